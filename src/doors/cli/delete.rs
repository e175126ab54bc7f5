//! `steward delete`: remove a goal registered by mistake.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Remove a goal registered by mistake: its file is deleted, a `deleted`
/// event joins its events in the event log (which keeps them all), and the
/// mirror forgets it. `steward undo LABEL` brings it back while nothing
/// else changed it since. Only a person may delete; to stop work on a real
/// goal, `abandon` it instead (it stays readable, with its reason).
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: DeleteArgs, out: &mut Output) -> Result<ExitCode> {
    let saved = engine::delete(ctx, &args.goal)?;
    super::notices(out, saved.notices);
    let goal = &saved.goal.goal;
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "deleted": {"id": goal.id, "label": goal.label, "path": ctx.store.relative(&saved.goal.file.path)}}));
    } else if !out.quiet {
        out.line(format!(
            "{}: deleted ({}); `steward undo {}` brings it back",
            goal.label, goal.title, goal.label
        ));
    }
    Ok(ExitCode::Success)
}
