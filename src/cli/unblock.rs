//! `steward unblock`: a human clears an escalation.

use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::Status;
use crate::store::{Change, YamlValue};

/// Unblock a goal a human has looked at: it becomes active, its escalation,
/// consecutive failures and circuit-breaker streaks are cleared. A goal blocked because its budget
/// is used up needs `steward reset-budget` (or a bigger budget) instead.
#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// What the human did or decided
    #[arg(long, value_parser = args::one_line)]
    reason: String,
}

pub fn run(ctx: &Context, args: UnblockArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    let goal = &loaded.goal;
    super::refuse_terminal(goal)?;
    if goal.status != Status::Blocked {
        return Err(Error::refused(format!(
            "goal `{}` is {}, not blocked",
            goal.label, goal.status
        )));
    }
    if let Some(exhausted) = goal.exhausted_budget() {
        return Err(Error::refused(format!(
            "goal `{}`: {exhausted}; run `steward reset-budget {}` or raise the budget with `steward update`",
            goal.label, goal.label
        )));
    }
    let mut file = loaded.file.clone();
    file.set(&["status"], YamlValue::Str("active".into()))?;
    if goal.escalation.is_some() {
        file.set(&["escalation"], YamlValue::Null)?;
    }
    // A human looked: the failure count and the circuit breaker start over.
    let progress = &goal.progress;
    for (key, value) in [
        ("consecutive_failures", progress.consecutive_failures),
        ("blocker_streak", progress.blocker_streak),
        (
            "assessments_without_progress",
            progress.assessments_without_progress,
        ),
    ] {
        if value != 0 {
            file.set(&["progress", key], YamlValue::Int(0))?;
        }
    }
    let saved = tx.save(Some(&loaded), file, Change::new("unblocked", args.reason))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "unblocked (active)")?;
    Ok(0)
}
