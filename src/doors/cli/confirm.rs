//! `steward confirm`: a human says yes to a goal.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Confirm a goal: unconfirmed goals are not offered to the agent.
#[derive(Debug, Args)]
pub struct ConfirmArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ConfirmArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::confirm(ctx, &args.goal)?;
    super::report(ctx, out, saved, "confirmed")?;
    Ok(ExitCode::Success)
}
