//! The controls a person uses on one goal: pause, resume, confirm, unblock,
//! reset the budget, abandon.

use super::authority::person_only;
use super::{Saved, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Edit, GoalChange, PersonWait, ProgressField, Status};

/// Nothing automatic touches a paused goal until a person resumes it; it
/// remembers its status (a block, with its escalation, stays a block).
pub fn pause(ctx: &Context, reference: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    let mut change = GoalChange::new("paused", format!("was {}", loaded.goal.status));
    if loaded.goal.status != Status::Paused {
        change.push(Edit::Status(Status::Paused));
        change.push(Edit::PausedFrom(Some(loaded.goal.status.clone())));
    }
    let written = tx.save(&loaded, change)?;
    super::run::cancel_runs(ctx, &mut tx, &loaded.goal, "its goal was paused")?;
    super::saved(tx, written, loaded)
}

/// A paused goal returns to the status it had before the pause; a pause
/// never clears a block.
pub fn resume(ctx: &Context, reference: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let goal = &loaded.goal;
    refuse_terminal(goal)?;
    person_only(ctx, "resume a goal", || {
        format!("steward resume {}", goal.label)
    })?;
    let back = goal.paused_from.clone().unwrap_or(Status::Active);
    let mut change = GoalChange::new("resumed", format!("back to {back}"));
    match &goal.status {
        Status::Paused => {
            change.push(Edit::Status(back));
            if goal.paused_from.is_some() {
                change.push(Edit::PausedFrom(None));
            }
        }
        Status::Active => {}
        Status::Blocked => {
            return Err(Error::WrongStatus {
                label: goal.label.clone(),
                why: format!(
                    "is blocked, not paused: use `steward unblock {} --reason ...`",
                    goal.label
                ),
            });
        }
        other => {
            return Err(Error::WrongStatus {
                label: goal.label.clone(),
                why: format!("is {other}, not paused"),
            });
        }
    }
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

/// A person says yes: unconfirmed goals are not offered to the agent.
pub fn confirm(ctx: &Context, reference: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    person_only(ctx, "confirm a goal", || {
        format!("steward confirm {}", loaded.goal.label)
    })?;
    let mut change = GoalChange::new("confirmed", "");
    if !loaded.goal.confirmed {
        change.push(Edit::Confirmed(true));
    }
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

/// A person clears an escalation: the goal becomes active and its failure
/// count and circuit-breaker streaks start over. A goal whose budget is used
/// up needs `reset_budget` instead.
pub fn unblock(ctx: &Context, reference: &str, reason: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let goal = &loaded.goal;
    refuse_terminal(goal)?;
    person_only(ctx, "unblock a goal", || {
        format!("steward unblock {} --reason \"...\"", goal.label)
    })?;
    // A goal the judge left to a person, or whose branch waits for a
    // person's merge, is sent back to work with the note: the branch of a
    // merge wait is left as it is.
    let sent_back = (goal.waiting.as_ref().and_then(|w| w.for_person))
        .filter(|wait| matches!(wait, PersonWait::Judgment | PersonWait::Merge));
    if goal.status != Status::Blocked && sent_back.is_none() {
        return Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!(
                "is {}, not blocked nor waiting for a person's judgment or merge",
                goal.status
            ),
        });
    }
    if let Some(exhausted) = goal.exhausted_budget() {
        return Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!(
                "has its {exhausted}; run `steward reset-budget {}` or raise the budget with `steward update`",
                goal.label
            ),
        });
    }
    let what = match sent_back {
        Some(PersonWait::Merge) => "sent back, its branch left unmerged",
        Some(_) => "sent back",
        None => "unblocked",
    };
    let mut change = GoalChange::new(what, reason)
        .with(Edit::Status(Status::Active))
        // Runs before now no longer count against it, and the next run
        // is told what the person said.
        .with(Edit::Progress(ProgressField::UnblockedAt(ctx.now)))
        .with(Edit::Progress(ProgressField::UnblockNote(
            reason.to_string(),
        )));
    if goal.escalation.is_some() {
        change.push(Edit::Escalation(None));
    }
    if sent_back.is_some() {
        change.push(Edit::Waiting(None));
    }
    // The agent asked for a person (`assess --stuck`): the answer ends its
    // wait, and the session that asked is the one woken with it.
    if goal.escalation.as_ref().is_some_and(|e| e.kind == "agent") {
        change.push(Edit::Progress(ProgressField::WaitedAt(ctx.now)));
        change.push(Edit::Progress(ProgressField::WaitNote(format!(
            "a person answered: \"{}\"",
            crate::text::one_line(reason)
        ))));
    }
    let progress = &goal.progress;
    for (value, field) in [
        (
            progress.consecutive_failures,
            ProgressField::ConsecutiveFailures(0),
        ),
        (progress.blocker_streak, ProgressField::BlockerStreak(0)),
        (
            progress.assessments_without_progress,
            ProgressField::AssessmentsWithoutProgress(0),
        ),
    ] {
        if value != 0 {
            change.push(Edit::Progress(field));
        }
    }
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

/// A person grants a fresh budget: the dispatch and assessment counters
/// start over, and a goal blocked by its budget becomes active. The bounds
/// still count every assessment ever made (`progress.iterations`).
pub fn reset_budget(ctx: &Context, reference: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let goal = &loaded.goal;
    refuse_terminal(goal)?;
    person_only(ctx, "reset a budget", || {
        format!("steward reset-budget {}", goal.label)
    })?;
    let progress = &goal.progress;
    let mut change = GoalChange::new(
        "budget reset",
        format!(
            "was dispatches {}, assessments {}",
            progress.dispatches, progress.assessments
        ),
    );
    if progress.assessments != 0 || progress.dispatches != 0 {
        // Keep the lifetime count before clearing the budget counter.
        change.push(Edit::Progress(ProgressField::Iterations(
            progress.iterations(),
        )));
        change.push(Edit::Progress(ProgressField::Assessments(0)));
        change.push(Edit::Progress(ProgressField::Dispatches(0)));
    }
    let blocked_by_budget = goal.status == Status::Blocked
        && goal.escalation.as_ref().is_some_and(|e| e.kind == "budget");
    if blocked_by_budget {
        change.push(Edit::Status(Status::Active));
        change.push(Edit::Escalation(None));
    }
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

/// The kill switch for one goal: it becomes terminal and moves to the
/// closed goals.
pub fn abandon(ctx: &Context, reference: &str, reason: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    person_only(ctx, "abandon a goal", || {
        format!("steward abandon {} --reason \"...\"", loaded.goal.label)
    })?;
    let change = GoalChange::new("abandoned", reason)
        .with(Edit::Status(Status::Abandoned))
        .with(Edit::Closed {
            reason: reason.to_string(),
            at: ctx.now,
        });
    let written = tx.save(&loaded, change)?;
    // Its runs stop now, not at their timeout.
    super::run::cancel_runs(ctx, &mut tx, &loaded.goal, "its goal was abandoned")?;
    super::saved(tx, written, loaded)
}
