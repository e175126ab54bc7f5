//! `steward pause`: stop everything automatic on one goal.

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::Result;
use crate::model::Status;
use crate::store::{Change, YamlValue};

/// Pause a goal: the watchdog and the stewardship block leave it alone until
/// `steward resume`.
#[derive(Debug, Args)]
pub struct PauseArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: PauseArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    super::refuse_terminal(&loaded.goal)?;
    let mut file = loaded.file.clone();
    if loaded.goal.status != Status::Paused {
        file.set(&["status"], YamlValue::Str("paused".into()))?;
    }
    let detail = format!("was {}", loaded.goal.status);
    let saved = tx.save(Some(&loaded), file, Change::new("paused", detail))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "paused")?;
    Ok(0)
}
