//! `steward dispatch`: a person starts one agent run for a goal now.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, run_json};
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Start one agent run for a goal now, inside every budget (the goal's
/// dispatches, the hourly window, dispatch.max_parallel, the daily spend
/// cap). The run is supervised like the ones tick starts: see `steward
/// runs`.
#[derive(Debug, Args)]
pub struct DispatchArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// The agent profile [default: dispatch.agent]
    #[arg(long, value_name = "PROFILE")]
    agent: Option<String>,

    /// Say what would start; start nothing
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Context, args: DispatchArgs, out: &mut Output) -> Result<ExitCode> {
    let (run, notices) =
        engine::dispatch::dispatch_now(ctx, &args.goal, args.agent.as_deref(), args.dry_run)?;
    super::notices(out, notices);
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "dry_run": args.dry_run, "run": run_json(&run)}));
    } else if !out.quiet {
        let verb = if args.dry_run {
            "would start"
        } else {
            "started"
        };
        out.line(format!(
            "{}: {verb} run {} ({})",
            run.goal_label, run.id, run.agent
        ));
    }
    Ok(ExitCode::Success)
}
