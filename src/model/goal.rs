//! The typed view of one goal file.

use chrono::{DateTime, Utc};

use super::{Check, CheckKind, Priority, Receipt, Status, Tick};
use crate::model::duration::HumanDuration;

/// Soft limits: crossing one blocks the goal until a human resets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub max_dispatches: u64,
    pub max_assessments: u64,
    pub cooldown: HumanDuration,
    pub escalate_after_failures: u64,
}

/// Hard limits: crossing one fails the goal for good. `None` means unbounded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bounds {
    pub max_iterations: Option<u64>,
    pub deadline: Option<DateTime<Utc>>,
    pub max_cost_usd: Option<f64>,
}

impl Bounds {
    pub fn is_empty(&self) -> bool {
        self.max_iterations.is_none() && self.deadline.is_none() && self.max_cost_usd.is_none()
    }
}

/// Counters the stewardship loop keeps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    pub assessments: u64,
    pub dispatches: u64,
    /// Assessments ever made, when recorded; unlike `assessments` a budget
    /// reset does not clear it, so `bounds.max_iterations` stays a hard
    /// bound. Until the first reset it equals `assessments` and is not
    /// written.
    pub recorded_iterations: Option<u64>,
    pub consecutive_failures: u64,
    pub cost_usd: f64,
    pub last_assessed_at: Option<DateTime<Utc>>,
    pub last_dispatched_at: Option<DateTime<Utc>>,
    pub last_outcome: Option<String>,
    pub last_check: Option<LastCheck>,
    /// The circuit breaker's memory: the blockers last reported (sorted,
    /// lowercased, joined by "; ") and how many assessments in a row
    /// reported them.
    pub blocker_fingerprint: Option<String>,
    pub blocker_streak: u64,
    /// Assessments in a row that met no new criterion.
    pub assessments_without_progress: u64,
    /// When a person last unblocked it, and what they said: runs before
    /// that no longer count against it, and the next run is told.
    pub unblocked_at: Option<DateTime<Utc>>,
    pub unblock_note: Option<String>,
    /// When the watchdog last ended a wait of the goal, and why: the
    /// session that parked it is woken (`RunKind::Wake`).
    pub waited_at: Option<DateTime<Utc>>,
    pub wait_note: Option<String>,
    /// The interactive session that parked the wait that ended last
    /// (`AGENT:SESSION`; empty: none), woken in the store's root.
    pub wake_session: Option<String>,
}

/// The result of the latest run of a goal's mechanical checks. It is
/// rewritten only when the result changes, so `since` is when it was first
/// seen and a failing check does not touch the file on every pass.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LastCheck {
    pub since: Option<DateTime<Utc>>,
    pub passed: u64,
    pub total: u64,
    pub failures: Vec<String>,
}

impl LastCheck {
    /// What follows a check's type and target in the failure line of a
    /// check whose answer is not in yet (CI still running).
    pub const PENDING: &'static str = "pending: ";

    /// Whether `check` failed in this result (its failure line starts
    /// with its type and target).
    pub fn failed(&self, check: &Check) -> bool {
        let prefix = format!("{} {}: ", check.kind, check.target);
        self.failures.iter().any(|f| f.starts_with(&prefix))
    }

    /// Whether `check`'s answer was not in yet.
    pub fn pending(&self, check: &Check) -> bool {
        let prefix = format!("{} {}: {}", check.kind, check.target, Self::PENDING);
        self.failures.iter().any(|f| f.starts_with(&prefix))
    }

    /// When checks are unmet only because their answers are not in yet
    /// (CI is running): their failure lines. The goal waits for them.
    pub fn only_pending(&self, checks: &[Check]) -> Option<Vec<&str>> {
        let unmet: Vec<&Check> = checks.iter().filter(|c| self.failed(c)).collect();
        (!unmet.is_empty() && unmet.iter().all(|c| self.pending(c)))
            .then(|| self.failures.iter().map(String::as_str).collect())
    }

    /// The same checks passed and failed, whatever the failures said and
    /// whenever they were seen: a failure whose text changes every run (a
    /// time, a count) is the same result. But CI's answer is what its
    /// failure says (which checks fail, and why): a `ci_green` failure
    /// that says something else is a new result, and so is a pending one
    /// that fails.
    pub fn same_outcome(&self, other: &LastCheck, checks: &[Check]) -> bool {
        self.passed == other.passed
            && self.total == other.total
            && checks.iter().all(|c| {
                self.failed(c) == other.failed(c)
                    && self.pending(c) == other.pending(c)
                    && (c.kind != CheckKind::CiGreen || self.failure(c) == other.failure(c))
            })
    }

    /// `check`'s failure line, if it failed.
    fn failure(&self, check: &Check) -> Option<&str> {
        let prefix = format!("{} {}: ", check.kind, check.target);
        self.failures
            .iter()
            .find(|f| f.starts_with(&prefix))
            .map(String::as_str)
    }
}

impl Progress {
    /// Assessments ever made.
    pub fn iterations(&self) -> u64 {
        self.recorded_iterations.unwrap_or(self.assessments)
    }
}

/// Why a goal is blocked and waits for a human.
#[derive(Debug, Clone, PartialEq)]
pub struct Escalation {
    /// `budget`, `failures`, `circuit_breaker` or `agent`.
    pub kind: String,
    pub reason: String,
    pub at: Option<DateTime<Utc>>,
}

/// A goal parked until a time passes or a check's result changes
/// (steward-design(7), "Waiting is free"): no runs, no block entries, no
/// staleness, no budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    pub until: Option<DateTime<Utc>>,
    /// Until the result of the goal's checks changes.
    pub for_check: bool,
    /// Until a person acts on the goal. Nothing else ends it, and while it
    /// lasts no agent is offered the goal or may act on it.
    pub for_person: Option<PersonWait>,
    /// What it waits for, in the agent's words.
    pub reason: String,
    pub since: Option<DateTime<Utc>>,
    /// The interactive session that parked it, as `AGENT:SESSION` (the
    /// agent profile and the client's session id): woken when the wait
    /// ends. A run steward started is found by its record instead.
    pub session: Option<String>,
}

/// Why a goal waits for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonWait {
    /// Its file was changed outside steward: a person looks, then accepts
    /// (`steward accept`) or changes it.
    Review,
    /// The judge left it to a person (`judge.unchecked: person`): a person
    /// completes it.
    Judgment,
    /// A branch worked in a run's worktree did not merge cleanly
    /// (`dispatch.merge`): a person merges it, then completes the goal.
    Merge,
}

impl PersonWait {
    pub fn as_str(self) -> &'static str {
        match self {
            PersonWait::Review => "review",
            PersonWait::Judgment => "judgment",
            PersonWait::Merge => "merge",
        }
    }

    pub fn parse(text: &str) -> Option<PersonWait> {
        match text {
            "review" => Some(PersonWait::Review),
            "judgment" => Some(PersonWait::Judgment),
            "merge" => Some(PersonWait::Merge),
            _ => None,
        }
    }

    /// The command that ends the wait, for goal `label`.
    pub fn command(self, label: &str) -> String {
        match self {
            PersonWait::Review => format!("steward show {label}, then steward accept {label}"),
            PersonWait::Judgment => format!("steward complete {label} --reason \"...\""),
            PersonWait::Merge => format!(
                "git merge the goal's branch (steward show {label}), then steward complete {label} --reason \"...\""
            ),
        }
    }
}

impl Waiting {
    /// Whether the wait is over at `now`, given the goal's current check
    /// result and the one when the wait began (`since`).
    pub fn is_over(&self, now: DateTime<Utc>, check_changed: bool) -> bool {
        self.for_person.is_none()
            && (self.until.is_some_and(|until| now >= until) || (self.for_check && check_changed))
    }

    /// As `--json` and MCP show it.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "until": self.until.map(super::format_time),
            "for_check": self.for_check,
            "for_person": self.for_person.map(PersonWait::as_str),
            "reason": self.reason,
            "since": self.since.map(super::format_time),
            "session": self.session,
        })
    }

    /// A wait only a person ends, for `reason`.
    pub fn for_person(why: PersonWait, reason: impl Into<String>, since: DateTime<Utc>) -> Waiting {
        Waiting {
            until: None,
            for_check: false,
            for_person: Some(why),
            reason: reason.into(),
            since: Some(since),
            session: None,
        }
    }
}

/// One acceptance criterion, numbered from 1 in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Criterion {
    pub n: usize,
    pub text: String,
    pub met: bool,
}

/// One line of the goal's `## History` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    pub line: String,
}

/// Everything steward reads from a goal file. Keys it does not know are
/// kept in `extra` so they can be shown, and are never dropped on write.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    pub id: String,
    pub label: String,
    pub title: String,
    pub status: Status,
    pub priority: Priority,
    pub confirmed: bool,
    pub tags: Vec<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub closed_at: Option<DateTime<Utc>>,
    pub closed_reason: Option<String>,
    /// Closed outside steward (steward recorded it when it found it): a
    /// receipt the file may carry is not steward's.
    pub closed_outside: bool,
    pub verification: Vec<Check>,
    pub budget: Budget,
    pub bounds: Bounds,
    pub progress: Progress,
    pub blockers: Vec<String>,
    pub escalation: Option<Escalation>,
    /// The status a paused goal returns to on `resume`.
    pub paused_from: Option<Status>,
    /// Parked until a time or a check's change.
    pub waiting: Option<Waiting>,
    /// Who ticked which criterion.
    pub ticks: Vec<Tick>,
    /// What `complete` judged; `None` for a goal closed any other way.
    pub receipt: Option<Receipt>,
    /// Who to tell, where it came from, constraints, non-goals, risks.
    pub record: super::Record,
    /// What the last session left for the next (boxed: most goals have
    /// none, and a scan holds thousands of goals).
    pub handoff: Option<Box<super::Handoff>>,
    pub description: String,
    pub criteria: Vec<Criterion>,
    /// The `## Plan` section, when the goal has one (steward-reference(5), "The plan section").
    pub plan: Option<crate::model::plan::PlanSection>,
    pub history: Vec<HistoryEntry>,
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl Goal {
    pub fn criteria_met(&self) -> usize {
        self.criteria.iter().filter(|c| c.met).count()
    }

    /// What the last check says against criterion `n` marked met: the
    /// failure of a check tied to it (an agent's word its own check
    /// contradicts).
    pub fn contradiction(&self, n: usize) -> Option<&str> {
        let last = self.progress.last_check.as_ref()?;
        if !self.criteria.get(n.checked_sub(1)?)?.met {
            return None;
        }
        (self.verification.iter())
            .filter(|check| check.criterion == Some(n))
            .find_map(|check| {
                let prefix = format!("{} {}: ", check.kind, check.target);
                last.failures.iter().find(|f| f.starts_with(&prefix))
            })
            .map(String::as_str)
    }

    /// The criteria met that no failing check contradicts: what a person
    /// can count as done.
    pub fn criteria_standing(&self) -> usize {
        (self.criteria.iter())
            .filter(|c| c.met && self.contradiction(c.n).is_none())
            .count()
    }

    pub fn all_criteria_met(&self) -> bool {
        self.criteria.iter().all(|c| c.met)
    }

    /// A terminal goal steward did not close: `complete` leaves a receipt and
    /// every other close a reason. Such a goal reads "closed by hand, no
    /// receipt" (steward-design(7), "Judge only what steward wrote").
    pub fn closed_by_hand(&self) -> bool {
        if self.closed_outside && self.status.is_terminal() {
            return true;
        }
        match self.status {
            Status::Completed => self.receipt.is_none(),
            ref status if status.is_terminal() => self.closed_reason.is_none(),
            _ => false,
        }
    }

    /// The budget that is used up, if any, as a sentence for people.
    pub fn exhausted_budget(&self) -> Option<String> {
        if self.progress.dispatches >= self.budget.max_dispatches {
            return Some(format!(
                "dispatch budget exhausted ({}/{})",
                self.progress.dispatches, self.budget.max_dispatches
            ));
        }
        if self.progress.assessments >= self.budget.max_assessments {
            return Some(format!(
                "assessment budget exhausted ({}/{})",
                self.progress.assessments, self.budget.max_assessments
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(failures: &[&str]) -> LastCheck {
        LastCheck {
            since: None,
            passed: 2 - failures.len() as u64,
            total: 2,
            failures: failures.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn a_ci_answer_is_a_new_result_where_another_failure_text_is_not() {
        let checks = [
            Check::parse_spec("command_exit_zero:make test").unwrap(),
            Check::parse_spec("ci_green:acme/app@main").unwrap(),
        ];
        let make = |text: &str| format!("command_exit_zero make test: {text}");
        let ci = |text: &str| format!("ci_green acme/app@main: {text}");
        // A command's output that changes every run is the same result.
        assert!(
            result(&[&make("exit 1 at 04:00")])
                .same_outcome(&result(&[&make("exit 1 at 04:05")]), &checks)
        );
        // CI's is not: which checks fail, and pending against failing.
        let running = ci("pending: CI running: unit-tests (0 of 1 done)");
        let red = ci("failing: unit-tests — unit-tests: failure");
        let other = ci("failing: lint — lint: failure");
        assert!(!result(&[&running]).same_outcome(&result(&[&red]), &checks));
        assert!(!result(&[&red]).same_outcome(&result(&[&other]), &checks));
        assert!(result(&[&red]).same_outcome(&result(&[&red]), &checks));
        let waiting = result(&[&running]);
        assert_eq!(waiting.only_pending(&checks), Some(vec![running.as_str()]));
        assert_eq!(
            result(&[&running, &make("exit 1")]).only_pending(&checks),
            None
        );
        assert_eq!(result(&[]).only_pending(&checks), None);
    }
}
