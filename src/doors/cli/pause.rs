//! `steward pause`: stop everything automatic on one goal.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Pause a goal: the watchdog and the stewardship block leave it alone until
/// `steward resume`.
#[derive(Debug, Args)]
pub struct PauseArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: PauseArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::pause(ctx, &args.goal)?;
    super::report(ctx, out, saved, "paused")?;
    Ok(ExitCode::Success)
}
