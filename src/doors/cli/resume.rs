//! `steward resume`: undo `pause`.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Resume a paused goal: it becomes active and the watchdog looks at it
/// again on its next pass.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ResumeArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::resume(ctx, &args.goal)?;
    super::report(ctx, out, saved, "resumed (active)")?;
    Ok(ExitCode::Success)
}
