//! `steward tasks`: the obligations of spawned subagents.

use crate::exit::ExitCode;
use chrono::{DateTime, Utc};
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, obligation_json};
use crate::context::Context;
use crate::error::Result;
use crate::model::Obligation;
use crate::model::duration::HumanDuration;

/// List obligations: pending ones by default (running, arrived, failed,
/// timed out, cancelled), every one with --all.
#[derive(Debug, Args)]
pub struct TasksArgs {
    /// Include delivered and dismissed obligations
    #[arg(long)]
    all: bool,

    /// Only those linked to this goal
    #[arg(long)]
    goal: Option<String>,
}

pub fn run(ctx: &Context, args: TasksArgs, out: &mut Output) -> Result<ExitCode> {
    // Agent runs steward started are obligations too: shown while under way
    // (every one with --all).
    let listed = crate::engine::task::listed(ctx, args.all, args.goal.as_deref())?;
    let (shown, runs) = (listed.obligations, listed.runs);
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "obligations": shown.iter().map(|o| obligation_json(o)).collect::<Vec<_>>(),
            "runs": runs.iter().map(super::render::run_json).collect::<Vec<_>>(),
        }));
        return Ok(ExitCode::Success);
    }
    for obligation in &shown {
        out.line(line(obligation, ctx.now));
    }
    for run in &runs {
        out.line(format!(
            "{}  {:<9} run of {} for goal {} ({}, since {})",
            run.id,
            run.state_name(),
            run.agent,
            run.goal_label,
            run.kind.as_str(),
            run.started_at.as_deref().unwrap_or(&run.created_at)
        ));
    }
    Ok(ExitCode::Success)
}

fn line(obligation: &Obligation, now: DateTime<Utc>) -> String {
    let age = HumanDuration::from_secs((now - obligation.spawned_at).num_seconds().max(0) as u64);
    let goal = obligation
        .goal_label
        .as_ref()
        .map(|g| format!("goal {g}, "))
        .unwrap_or_default();
    let retry = if obligation.retry_count > 0 {
        format!(", retry {}", obligation.retry_count)
    } else {
        String::new()
    };
    let detail = obligation
        .detail
        .as_ref()
        .map(|d| format!(" — {d}"))
        .unwrap_or_default();
    format!(
        "{}  {:<9} {}  ({goal}spawned {age} ago, timeout {}{retry}){detail}",
        obligation.id,
        obligation.status.as_str(),
        obligation.label,
        HumanDuration::from_secs(obligation.timeout_secs)
    )
}
