//! `steward why GOAL`: every reason a goal is not being worked now.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::Result;

/// Say every reason the goal is not being worked now: its status, a wait,
/// its cooldown or a follow-up's backoff (until when), a run under way, the
/// hourly run window, the day's spend cap, `max_parallel`, its dispatch
/// budget, a plan with no node ready, dispatch off. Nothing held: the next
/// `tick` starts a run. Exit 0 either way.
#[derive(Debug, Args)]
pub struct WhyArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: WhyArgs, out: &mut Output) -> Result<ExitCode> {
    let (loaded, reasons) = crate::engine::dispatch::why(ctx, &args.goal)?;
    let goal = &loaded.goal;
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "goal": goal.label,
            "held": !reasons.is_empty(),
            "reasons": reasons,
        }));
        return Ok(ExitCode::Success);
    }
    if reasons.is_empty() {
        out.line(format!(
            "{}: nothing holds it: the next `tick` starts a run (unless goals of a higher priority take the last slots)",
            goal.label
        ));
        return Ok(ExitCode::Success);
    }
    out.line(format!("{} is not being worked now:", goal.label));
    for reason in reasons {
        out.line(format!("  - {reason}"));
    }
    Ok(ExitCode::Success)
}
