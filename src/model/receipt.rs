//! What the judge saw (steward-design(7), "Receipts"): who ticked each
//! criterion, and the receipt `complete` records — each check with its
//! result, each criterion with what it rests on, and who judged.

use serde::{Deserialize, Serialize};

/// Who ticked criterion `n`, and when (RFC 3339). Kept in the goal file
/// (`ticks:`) so the receipt can say it; a criterion ticked in an editor
/// has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tick {
    #[serde(rename = "criterion")]
    pub n: usize,
    pub by: String,
    pub at: String,
}

/// What a criterion rests on when the goal is judged done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A check tied to it passed when the judge ran it.
    Check,
    /// A person ticked it or judged the goal.
    Person,
    /// An agent said so, and nothing checked it.
    AgentsWord,
    /// Ticked in the file by hand: nobody recorded who.
    ByHand,
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Check => "check",
            Basis::Person => "person",
            Basis::AgentsWord => "agents_word",
            Basis::ByHand => "by_hand",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Basis::Check => "checked",
            Basis::Person => "a person's judgement",
            Basis::AgentsWord => "on the agent's word",
            Basis::ByHand => "ticked by hand, no record",
        }
    }
}

/// One check as the judge ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedCheck {
    #[serde(rename = "type")]
    pub kind: String,
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub criterion: Option<usize>,
    /// `passed`, or `person` for a manual check a person vouched for.
    pub result: String,
    /// Exit status, HTTP status, path: what the check saw.
    pub detail: String,
}

/// One criterion as the judge found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedCriterion {
    #[serde(rename = "criterion")]
    pub n: usize,
    pub text: String,
    pub basis: Basis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticked_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticked_at: Option<String>,
}

/// What `complete` judged, kept in the goal file and the event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub judged_at: String,
    /// The actor who ran `complete`.
    pub judged_by: String,
    pub checks: Vec<CheckedCheck>,
    pub criteria: Vec<JudgedCriterion>,
}

impl Receipt {
    /// Criteria that rest on nothing but an agent's word or a hand edit.
    pub fn unchecked(&self) -> impl Iterator<Item = &JudgedCriterion> {
        self.criteria
            .iter()
            .filter(|c| matches!(c.basis, Basis::AgentsWord | Basis::ByHand))
    }
}

/// `ticks` with criteria `met` recorded as ticked by `by` at `at`,
/// replacing older records of the same criteria.
pub fn record_ticks(ticks: &[Tick], met: &[usize], by: &str, at: &str) -> Vec<Tick> {
    let mut ticks: Vec<Tick> = ticks
        .iter()
        .filter(|t| !met.contains(&t.n))
        .cloned()
        .collect();
    ticks.extend(met.iter().map(|&n| Tick {
        n,
        by: by.to_string(),
        at: at.to_string(),
    }));
    ticks.sort_by_key(|t| t.n);
    ticks
}

/// `ticks` without records of criteria `unmet`, and with the criteria after
/// `removed` (ascending) numbered down as the body numbers them.
pub fn forget_ticks(ticks: &[Tick], unmet: &[usize], removed: &[usize]) -> Vec<Tick> {
    ticks
        .iter()
        .filter(|t| !unmet.contains(&t.n) && !removed.contains(&t.n))
        .map(|t| Tick {
            n: t.n - removed.iter().filter(|r| **r < t.n).count(),
            ..t.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(n: usize, by: &str) -> Tick {
        Tick {
            n,
            by: by.into(),
            at: "2026-11-21T04:00:00Z".into(),
        }
    }

    #[test]
    fn a_new_tick_replaces_the_old_record_and_removals_renumber() {
        let ticks = record_ticks(&[tick(2, "user")], &[2, 1], "agent", "2026-11-21T04:00:00Z");
        assert_eq!(ticks, [tick(1, "agent"), tick(2, "agent")]);
        let ticks = forget_ticks(&[tick(1, "a"), tick(3, "b"), tick(4, "c")], &[4], &[2]);
        assert_eq!(ticks, [tick(1, "a"), tick(2, "b")]);
    }
}
