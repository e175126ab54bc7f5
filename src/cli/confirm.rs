//! `steward confirm`: a human says yes to a goal.

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::Result;
use crate::store::{Change, YamlValue};

/// Confirm a goal: unconfirmed goals are not offered to the agent.
#[derive(Debug, Args)]
pub struct ConfirmArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: ConfirmArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    super::refuse_terminal(&loaded.goal)?;
    let mut file = loaded.file.clone();
    if !loaded.goal.confirmed {
        file.set(&["confirmed"], YamlValue::Bool(true))?;
    }
    let saved = tx.save(Some(&loaded), file, Change::new("confirmed", ""))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "confirmed")?;
    Ok(0)
}
