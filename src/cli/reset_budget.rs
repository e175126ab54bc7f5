//! `steward reset-budget`: a human grants a fresh budget.

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::Result;
use crate::model::Status;
use crate::store::{Change, YamlValue};

/// Reset a goal's dispatch and assessment counters. A goal blocked by its
/// budget becomes active. Hard bounds still count every assessment ever
/// made (progress.iterations), so a reset never lifts them.
#[derive(Debug, Args)]
pub struct ResetBudgetArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ResetBudgetArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    let goal = &loaded.goal;
    super::refuse_terminal(goal)?;
    let progress = &goal.progress;
    let mut file = loaded.file.clone();
    if progress.assessments != 0 || progress.dispatches != 0 {
        // Keep the lifetime count before clearing the budget counter.
        file.set(
            &["progress", "iterations"],
            YamlValue::Int(progress.iterations() as i64),
        )?;
        file.set(&["progress", "assessments"], YamlValue::Int(0))?;
        file.set(&["progress", "dispatches"], YamlValue::Int(0))?;
    }
    let blocked_by_budget = goal.status == Status::Blocked
        && goal.escalation.as_ref().is_some_and(|e| e.kind == "budget");
    if blocked_by_budget {
        file.set(&["status"], YamlValue::Str("active".into()))?;
        file.set(&["escalation"], YamlValue::Null)?;
    }
    let detail = format!(
        "was dispatches {}, assessments {}",
        progress.dispatches, progress.assessments
    );
    let saved = tx.save(Some(&loaded), file, Change::new("budget reset", detail))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "budget reset")?;
    Ok(0)
}
