//! `steward log`: what happened to one goal, from git when the store is
//! versioned, else from the event log.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Show a goal's history, newest first: date, actor, action and subject of
/// every commit that names the goal in its Steward-Goal trailer, or, when
/// the store is not in a git repository (or has no such commits), the
/// goal's events from the event log.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: LogArgs, out: &mut Output) -> Result<ExitCode> {
    let log = engine::history::log(ctx, &args.goal)?;
    if out.json {
        let list: Vec<_> = log
            .entries
            .iter()
            .map(
                |e| json!({"at": e.at, "actor": e.actor, "action": e.action, "subject": e.subject}),
            )
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "goal": log.label, "log": list}));
        return Ok(ExitCode::Success);
    }
    for e in log.entries {
        out.line(format!(
            "{}  {:<8} {:<12} {}",
            e.at, e.actor, e.action, e.subject
        ));
    }
    Ok(ExitCode::Success)
}
