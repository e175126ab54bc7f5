//! `steward reset-budget`: a human grants a fresh budget.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Reset a goal's dispatch and assessment counters. A goal blocked by its
/// budget becomes active. Hard bounds still count every assessment ever
/// made (progress.iterations), so a reset never lifts them.
#[derive(Debug, Args)]
pub struct ResetBudgetArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ResetBudgetArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::reset_budget(ctx, &args.goal)?;
    super::report(ctx, out, saved, "budget reset")?;
    Ok(ExitCode::Success)
}
