//! `steward undo`: take back the last change steward made to a goal.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Take back the last change steward made to a goal: the goal file becomes,
/// byte for byte, what that command found, stamped with updated_at and a
/// history line `undone`, and an event records it (the undone change stays
/// in the event log).
///
/// One command is one change: an assessment and the block it caused are
/// undone together. Refused (exit 4, nothing changed) when the goal changed
/// since, by hand or by a later command (a check result `tick` recorded
/// counts). A deleted goal comes back; a goal `add` just created is
/// deleted. Undoing an undo redoes.
/// Only a person may undo. Counters kept outside the goal (the hourly
/// dispatch window, obligations, agent runs) are not rolled back.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: UndoArgs, out: &mut Output) -> Result<ExitCode> {
    let undone = engine::undo(ctx, &args.goal)?;
    if undone.deleted {
        super::notices(out, undone.saved.notices);
        let goal = &undone.saved.goal.goal;
        if out.json {
            out.json(&serde_json::json!({"schema_version": super::render::SCHEMA_VERSION, "deleted": {"id": goal.id, "label": goal.label}, "undone": undone.what}));
        } else if !out.quiet {
            out.line(format!(
                "{}: undid {}: the goal is deleted; `steward undo {}` brings it back",
                goal.label, undone.what, goal.label
            ));
        }
        return Ok(ExitCode::Success);
    }
    super::report(ctx, out, undone.saved, &format!("undid {}", undone.what))?;
    Ok(ExitCode::Success)
}
