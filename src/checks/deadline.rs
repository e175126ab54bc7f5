//! One clock for a whole check, so that its steps share a single budget
//! instead of each getting the full timeout.

use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    pub fn after(budget: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + budget,
            budget,
        }
    }

    /// The whole time allowed, for messages such as "timed out after 10s".
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// The time left, or `None` once it is gone (never `Some(0)`, which
    /// socket timeouts reject).
    pub fn remaining(&self) -> Option<Duration> {
        self.at
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_has_nothing_left() {
        let deadline = Deadline::after(Duration::ZERO);
        assert_eq!(deadline.remaining(), None);
    }

    #[test]
    fn a_future_deadline_has_at_most_its_budget_left() {
        let deadline = Deadline::after(Duration::from_secs(60));
        let left = deadline.remaining().unwrap();
        assert!(left <= Duration::from_secs(60) && left > Duration::from_secs(59));
        assert_eq!(deadline.budget(), Duration::from_secs(60));
    }
}
