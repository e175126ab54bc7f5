//! `steward run-agent ID`: the supervisor of one agent run. `tick` and
//! `dispatch` start it; people do not.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Supervise one recorded agent run to its end (started by tick and
/// dispatch; not for people)
#[derive(Debug, Args)]
pub struct RunAgentArgs {
    /// The run's dispatch id
    id: String,
}

pub fn run(ctx: &Context, args: RunAgentArgs, _out: &mut Output) -> Result<ExitCode> {
    if engine::run::run_agent(ctx, &args.id)?.is_some() {
        engine::at_run_end(ctx)?;
    }
    Ok(ExitCode::Success)
}
