//! `steward abandon` (alias `cancel`): the kill switch for one goal.

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Abandon a goal for good: it becomes terminal, stops being worked on, and
/// its file moves to the closed goals.
#[derive(Debug, Args)]
pub struct AbandonArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// Why it is abandoned
    #[arg(long, value_parser = args::one_line)]
    reason: String,
}

pub fn run(ctx: &Context, args: AbandonArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::abandon(ctx, &args.goal, &args.reason)?;
    super::report(ctx, out, saved, "abandoned")?;
    Ok(ExitCode::Success)
}
