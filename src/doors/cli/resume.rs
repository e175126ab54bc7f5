//! `steward resume`: undo `pause`.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Resume a paused goal: it goes back to the status it was paused from
/// (active, or blocked when it was waiting for a person) and the watchdog
/// looks at it again on its next pass.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ResumeArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::resume(ctx, &args.goal)?;
    let status = saved.goal.goal.status.clone();
    super::report(ctx, out, saved, &format!("resumed ({status})"))?;
    Ok(ExitCode::Success)
}
