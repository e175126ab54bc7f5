//! Tamper evidence (steward-design(7), "Judge only what steward wrote"): a
//! digest of what decides whether a goal is done — its status, its criteria
//! and its checks. Every write records it in the event log; a goal file
//! whose digest differs from the last one steward recorded was changed
//! outside steward.

use serde::{Deserialize, Serialize};

use super::Goal;

/// The status as written, and fingerprints of the criteria and the checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    pub status: String,
    pub criteria: String,
    pub checks: String,
}

impl Digest {
    pub fn of(goal: &Goal) -> Digest {
        let mut criteria = Fnv::default();
        for criterion in &goal.criteria {
            criteria.write(if criterion.met { "[x] " } else { "[ ] " });
            criteria.write(&criterion.text);
            criteria.write("\n");
        }
        let mut checks = Fnv::default();
        for check in &goal.verification {
            checks.write(check.kind.as_str());
            checks.write("\0");
            checks.write(&check.target);
            checks.write("\0");
            checks.write(&check.criterion.map_or_else(String::new, |n| n.to_string()));
            checks.write("\n");
        }
        Digest {
            status: goal.status.as_str().to_string(),
            criteria: criteria.hex(),
            checks: checks.hex(),
        }
    }

    /// The fields that differ from `other`, in a fixed order.
    pub fn differing(&self, other: &Digest) -> Vec<&'static str> {
        let mut fields = Vec::new();
        if self.status != other.status {
            fields.push("status");
        }
        if self.criteria != other.criteria {
            fields.push("criteria");
        }
        if self.checks != other.checks {
            fields.push("checks");
        }
        fields
    }
}

/// A stable fingerprint of `text` (16 hex digits).
pub fn fingerprint(text: &str) -> String {
    let mut fnv = Fnv::default();
    fnv.write(text);
    fnv.hex()
}

/// What progress on a goal looks like: which criteria are met, the
/// blockers, which checks pass and the plan nodes' statuses — never free
/// text (a summary, or a failing check's output, which may change every run
/// with nothing done). A run whose goal has the same fingerprint after it
/// made no progress (steward-design(7), "Progress is a changed fingerprint").
pub fn progress_fingerprint(goal: &Goal) -> String {
    let mut fnv = Fnv::default();
    for criterion in &goal.criteria {
        fnv.write(if criterion.met { "1" } else { "0" });
    }
    fnv.write("\n");
    let mut blockers: Vec<String> = goal
        .blockers
        .iter()
        .map(|b| b.trim().to_lowercase())
        .collect();
    blockers.sort();
    for blocker in &blockers {
        fnv.write(blocker);
        fnv.write("\n");
    }
    if let Some(result) = &goal.progress.last_check {
        fnv.write(&format!("{}/{}", result.passed, result.total));
        for check in &goal.verification {
            fnv.write(if result.failed(check) { "F" } else { "P" });
        }
    }
    if let Some(plan) = &goal.plan {
        fnv.write(&format!("\nplan {:016x}", plan.summary.statuses));
    }
    fnv.hex()
}

/// 64-bit FNV-1a: stable across versions and machines, which a digest kept
/// in a shared event log needs. Evidence, not a signature: whoever can
/// write the log can forge it.
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub(crate) fn write(&mut self, text: &str) {
        for byte in text.bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }

    pub(crate) fn value(&self) -> u64 {
        self.0
    }
}

/// What differs between two readings of one goal, by the names a person
/// knows from the file: what a change made outside steward touched.
pub fn changed_fields(before: &Goal, after: &Goal) -> Vec<&'static str> {
    let mut fields = Vec::new();
    let mut differs = |name: &'static str, changed: bool| {
        if changed {
            fields.push(name);
        }
    };
    differs("id", before.id != after.id);
    differs("label", before.label != after.label);
    differs("status", before.status != after.status);
    differs(
        "criteria",
        before.criteria != after.criteria || before.ticks != after.ticks,
    );
    differs("checks", before.verification != after.verification);
    differs("title", before.title != after.title);
    differs("description", before.description != after.description);
    differs("priority", before.priority != after.priority);
    differs("confirmed", before.confirmed != after.confirmed);
    differs("budget", before.budget != after.budget);
    differs("bounds", before.bounds != after.bounds);
    differs("progress", before.progress != after.progress);
    differs("blockers", before.blockers != after.blockers);
    differs(
        "escalation",
        before.escalation != after.escalation || before.paused_from != after.paused_from,
    );
    differs("waiting", before.waiting != after.waiting);
    differs(
        "receipt",
        before.receipt != after.receipt
            || before.closed_reason != after.closed_reason
            || before.closed_at != after.closed_at
            || before.closed_outside != after.closed_outside,
    );
    differs("record", before.record != after.record);
    differs("handoff", before.handoff != after.handoff);
    differs("plan", before.plan != after.plan);
    differs("history", before.history != after.history);
    differs(
        "other",
        before.tags != after.tags || before.extra != after.extra,
    );
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fnv_of_known_text_is_stable() {
        let mut fnv = Fnv::default();
        fnv.write("a");
        assert_eq!(fnv.hex(), "af63dc4c8601ec8c");
    }
}
