//! `steward runs`: the agent runs steward started.

use crate::exit::ExitCode;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, run_json};
use crate::context::Context;
use crate::engine;
use crate::error::Result;
use crate::model::Run;

/// List the agent runs steward started: the ones under way and the recent
/// ones (--all: every one), with agent, age, outcome and cost.
#[derive(Debug, Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    command: Option<RunsCommand>,

    /// Every run, not only those under way and of the last day
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Subcommand)]
enum RunsCommand {
    Kill(KillArgs),
}

/// Stop a run, with everything its agent started (a person's command)
#[derive(Debug, Args)]
struct KillArgs {
    /// The dispatch id, or a unique prefix of it
    id: String,
}

pub fn run(ctx: &Context, args: RunsArgs, out: &mut Output) -> Result<ExitCode> {
    if let Some(RunsCommand::Kill(kill)) = args.command {
        let (run, notices) = engine::run::kill(ctx, &kill.id)?;
        super::notices(out, notices);
        if out.json {
            out.json(&json!({"schema_version": SCHEMA_VERSION, "run": run_json(&run)}));
        } else if !out.quiet {
            out.line(format!("{}: stopping ({})", run.id, run.goal_label));
        }
        return Ok(ExitCode::Success);
    }
    let (shown, problems) = engine::run::listed(ctx, args.all)?;
    for problem in &problems {
        out.warn(problem.to_string());
    }
    // An open run's last sign of life: when its client last printed.
    let last_output = |run: &Run| {
        run.is_active()
            .then(|| engine::run::last_output(ctx, run))
            .flatten()
    };
    if out.json {
        let runs: Vec<_> = (shown.iter())
            .map(|run| {
                let mut json = run_json(run);
                if let Some(at) = last_output(run) {
                    json["last_output_at"] = json!(crate::model::format_time(at));
                }
                json
            })
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "runs": runs}));
    } else {
        for run in &shown {
            out.line(line(run, ctx.now, last_output(run)));
        }
    }
    Ok(ExitCode::failure_if(!problems.is_empty()))
}

fn line(run: &Run, now: DateTime<Utc>, last_output: Option<DateTime<Utc>>) -> String {
    let ago = |at: DateTime<Utc>| {
        crate::model::duration::HumanDuration::from_secs((now - at).num_seconds().max(0) as u64)
            .to_string()
    };
    let age = DateTime::parse_from_rfc3339(&run.created_at)
        .map(|t| ago(t.with_timezone(&Utc)))
        .unwrap_or_default();
    let printed = last_output
        .map(|at| format!(", last output {} ago", ago(at)))
        .unwrap_or_default();
    let exit = run.exit.map(|e| format!(", exit {e}")).unwrap_or_default();
    let cost = if run.cost_usd > 0.0 {
        format!(", ${:.2}", run.cost_usd)
    } else {
        String::new()
    };
    let result = run
        .result
        .as_deref()
        .map(|r| format!(" — {}", crate::text::head(&crate::text::one_line(r), 80)))
        .unwrap_or_default();
    let silent = if run.reported == Some(false) {
        ", no report"
    } else {
        ""
    };
    let worktree = run
        .worktree
        .as_ref()
        .map(|w| format!(" [{} in {}]", w.branch, w.path))
        .unwrap_or_default();
    format!(
        "{}  {:<8} {:<12} {} {} ({age} ago{printed}{exit}{cost}{silent}){worktree}{result}",
        run.id,
        run.state_name(),
        run.goal_label,
        run.agent,
        run.kind.as_str()
    )
}
