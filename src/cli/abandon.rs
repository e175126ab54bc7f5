//! `steward abandon` (alias `cancel`): the kill switch for one goal.

use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::error::Result;
use crate::store::{Change, YamlValue, time_value};

/// Abandon a goal for good: it becomes terminal, stops being worked on, and
/// its file moves to the closed goals.
#[derive(Debug, Args)]
pub struct AbandonArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// Why it is abandoned
    #[arg(long, value_parser = args::one_line)]
    reason: String,
}

pub fn run(ctx: &Context, args: AbandonArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    super::refuse_terminal(&loaded.goal)?;
    let mut file = loaded.file.clone();
    file.set(&["status"], YamlValue::Str("abandoned".into()))?;
    file.set(&["closed_reason"], YamlValue::Str(args.reason.clone()))?;
    file.set(&["closed_at"], time_value(ctx.now))?;
    let saved = tx.save(Some(&loaded), file, Change::new("abandoned", args.reason))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "abandoned")?;
    Ok(0)
}
