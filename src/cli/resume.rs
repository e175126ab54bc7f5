//! `steward resume`: undo `pause`.

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::Status;
use crate::store::{Change, YamlValue};

/// Resume a paused goal: it becomes active and the watchdog looks at it
/// again on its next pass.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ResumeArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    let goal = &loaded.goal;
    super::refuse_terminal(goal)?;
    let mut file = loaded.file.clone();
    match goal.status {
        Status::Paused => file.set(&["status"], YamlValue::Str("active".into()))?,
        Status::Active => {}
        Status::Blocked => {
            return Err(Error::refused(format!(
                "goal `{}` is blocked, not paused: use `steward unblock {} --reason ...`",
                goal.label, goal.label
            )));
        }
        ref other => {
            return Err(Error::refused(format!(
                "goal `{}` is {other}, not paused",
                goal.label
            )));
        }
    }
    let saved = tx.save(Some(&loaded), file, Change::new("resumed", ""))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "resumed (active)")?;
    Ok(0)
}
