//! A change to one goal as data: the edits a verb makes and the history
//! line that records them. `store::edit` is the one place that turns these
//! into bytes of the goal file.

use chrono::{DateTime, Utc};

use super::{
    Actor, Bounds, Budget, Check, Escalation, LastCheck, Priority, Progress, Receipt, Status, Tick,
    Waiting,
};
use crate::model::duration::HumanDuration;

/// One edit of a goal file. Verbs emit an edit only for a value that
/// changes; the store writes exactly what it is given.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    Id(String),
    Label(String),
    Title(String),
    Status(Status),
    Priority(Priority),
    Confirmed(bool),
    Tags(Vec<String>),
    CreatedAt(DateTime<Utc>),
    UpdatedAt(DateTime<Utc>),
    /// The goal ended: why and when (`closed_reason`, `closed_at`).
    Closed {
        reason: String,
        at: DateTime<Utc>,
    },
    Verification(Vec<Check>),
    Blockers(Vec<String>),
    /// `None` clears the escalation.
    Escalation(Option<Escalation>),
    /// The status to return to on `resume`; `None` removes the key.
    PausedFrom(Option<Status>),
    /// Marks a goal found closed outside steward (`closed_outside: true`).
    ClosedOutside,
    /// Parks the goal; `None` ends the wait (removes the key).
    Waiting(Option<Waiting>),
    /// Who ticked which criterion, the whole list.
    Ticks(Vec<Tick>),
    Receipt(Receipt),
    /// The whole budget, as a new goal writes it.
    Budget(Budget),
    BudgetField(BudgetField),
    /// The bounds that are set, as a new goal writes them.
    Bounds(Bounds),
    Bound(BoundField),
    /// The counters of a new goal, all zero.
    FreshProgress,
    Progress(ProgressField),
    LastCheck(LastCheck),
    /// The body text before the first `## ` heading.
    Description(String),
    CriterionMet {
        n: usize,
        met: bool,
    },
    /// Removes criterion `n` as numbered when this edit is applied (edits
    /// apply in order: remove from the highest number down).
    RemoveCriterion(usize),
    AddCriterion(String),
    /// One plan node's status: its line is rewritten, nothing else.
    PlanNode {
        id: String,
        status: crate::model::plan::NodeStatus,
        reason: Option<String>,
    },
    /// The whole plan, written under `## Plan`.
    Plan(crate::model::plan::Plan),
    /// One key of the goal's record; empty removes it.
    Record(RecordField),
    /// The latest handoff.
    Handoff(Box<super::Handoff>),
}

/// One key of the goal's record.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordField {
    Owner(Option<String>),
    Origin(Option<String>),
    Constraints(Vec<String>),
    NonGoals(Vec<String>),
    Risks(Vec<String>),
    RunsOn(Vec<String>),
    Planning(Option<super::Planning>),
    PullRequest(Option<String>),
}

/// One budget key.
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetField {
    MaxDispatches(u64),
    MaxAssessments(u64),
    Cooldown(HumanDuration),
    EscalateAfterFailures(u64),
}

/// One bound key.
#[derive(Debug, Clone, PartialEq)]
pub enum BoundField {
    MaxIterations(u64),
    Deadline(DateTime<Utc>),
    MaxCostUsd(f64),
}

/// One progress key.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressField {
    Assessments(u64),
    Dispatches(u64),
    Iterations(u64),
    ConsecutiveFailures(u64),
    BlockerStreak(u64),
    AssessmentsWithoutProgress(u64),
    CostUsd(f64),
    LastAssessedAt(DateTime<Utc>),
    LastDispatchedAt(DateTime<Utc>),
    LastOutcome(String),
    BlockerFingerprint(Option<String>),
    UnblockedAt(DateTime<Utc>),
    UnblockNote(String),
    WaitedAt(DateTime<Utc>),
    WaitNote(String),
    WakeSession(String),
}

/// What a verb does to one goal: the edits, and the history line and event
/// that record them.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalChange {
    pub edits: Vec<Edit>,
    pub action: String,
    pub detail: String,
    /// Who made it, when not the command's actor (the watchdog).
    pub actor: Option<Actor>,
    /// Record it even when no byte changes (a note).
    pub always: bool,
    /// Machine state only (`progress.last_check`): no history line,
    /// `updated_at` untouched. Its event, when the bytes change, is only
    /// the signed step the store's other machines verify the file by.
    pub silent: bool,
    /// The agent run the change is about, for its event.
    pub dispatch_id: Option<String>,
    /// What differs from what steward last wrote, for the event of a
    /// change found made outside steward.
    pub diff: Option<String>,
}

impl GoalChange {
    pub fn new(action: &str, detail: impl Into<String>) -> GoalChange {
        GoalChange {
            edits: Vec::new(),
            action: action.to_string(),
            detail: detail.into(),
            actor: None,
            always: false,
            silent: false,
            dispatch_id: None,
            diff: None,
        }
    }

    /// Ties the change to an agent run.
    pub fn for_run(mut self, dispatch_id: &str) -> GoalChange {
        self.dispatch_id = Some(dispatch_id.to_string());
        self
    }

    /// A change of machine state that people need not read about:
    /// `action` and `detail` name it in the log.
    pub fn silent(action: &str, detail: impl Into<String>, edits: Vec<Edit>) -> GoalChange {
        GoalChange {
            edits,
            silent: true,
            ..GoalChange::new(action, detail)
        }
    }

    /// Records the change even when it changes nothing else, as a note does.
    pub fn always(mut self) -> GoalChange {
        self.always = true;
        self
    }

    /// Records the change as made by `actor` rather than the command's actor.
    pub fn by(mut self, actor: Actor) -> GoalChange {
        self.actor = Some(actor);
        self
    }

    pub fn with(mut self, edit: Edit) -> GoalChange {
        self.edits.push(edit);
        self
    }

    pub fn with_all(mut self, edits: impl IntoIterator<Item = Edit>) -> GoalChange {
        self.edits.extend(edits);
        self
    }

    pub fn push(&mut self, edit: Edit) {
        self.edits.push(edit);
    }
}

/// The edits that take `old` progress to `new`.
pub fn progress_edits(old: &Progress, new: &Progress) -> Vec<Edit> {
    use ProgressField as F;
    let mut edits = Vec::new();
    let mut counter = |before: u64, after: u64, field: fn(u64) -> ProgressField| {
        if before != after {
            edits.push(Edit::Progress(field(after)));
        }
    };
    counter(old.assessments, new.assessments, F::Assessments);
    counter(old.dispatches, new.dispatches, F::Dispatches);
    counter(
        old.consecutive_failures,
        new.consecutive_failures,
        F::ConsecutiveFailures,
    );
    counter(old.blocker_streak, new.blocker_streak, F::BlockerStreak);
    counter(
        old.assessments_without_progress,
        new.assessments_without_progress,
        F::AssessmentsWithoutProgress,
    );
    if old.recorded_iterations != new.recorded_iterations
        && let Some(iterations) = new.recorded_iterations
    {
        edits.push(Edit::Progress(F::Iterations(iterations)));
    }
    if old.cost_usd != new.cost_usd {
        edits.push(Edit::Progress(F::CostUsd(new.cost_usd)));
    }
    if old.last_assessed_at != new.last_assessed_at
        && let Some(at) = new.last_assessed_at
    {
        edits.push(Edit::Progress(F::LastAssessedAt(at)));
    }
    if old.last_dispatched_at != new.last_dispatched_at
        && let Some(at) = new.last_dispatched_at
    {
        edits.push(Edit::Progress(F::LastDispatchedAt(at)));
    }
    if old.last_outcome != new.last_outcome
        && let Some(outcome) = &new.last_outcome
    {
        edits.push(Edit::Progress(F::LastOutcome(outcome.clone())));
    }
    if old.blocker_fingerprint != new.blocker_fingerprint {
        edits.push(Edit::Progress(F::BlockerFingerprint(
            new.blocker_fingerprint.clone(),
        )));
    }
    if old.last_check != new.last_check
        && let Some(result) = &new.last_check
    {
        edits.push(Edit::LastCheck(result.clone()));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_changed_is_edited() {
        let old = Progress::default();
        let mut new = old.clone();
        assert!(progress_edits(&old, &new).is_empty());
        new.assessments = 2;
        new.cost_usd = 1.5;
        assert_eq!(
            progress_edits(&old, &new),
            vec![
                Edit::Progress(ProgressField::Assessments(2)),
                Edit::Progress(ProgressField::CostUsd(1.5)),
            ]
        );
    }
}
