//! `steward unblock`: a human clears an escalation.

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Unblock a goal a human has looked at: it becomes active, its escalation,
/// consecutive failures and circuit-breaker streaks are cleared, and the
/// runs before now no longer count against it: the next `tick` starts fresh
/// work (a planned goal is planned again first), told what you said. A goal
/// blocked because its budget is used up needs `steward reset-budget` (or a
/// bigger budget) instead.
#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// What the human did or decided: the next run is told (`--note` is
    /// the same)
    #[arg(long, visible_alias = "note", value_parser = args::one_line)]
    reason: String,
}

pub fn run(ctx: &Context, args: UnblockArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::unblock(ctx, &args.goal, &args.reason)?;
    super::report(ctx, out, saved, "unblocked (active)")?;
    Ok(ExitCode::Success)
}
