//! `steward assess`: the agent records one stewardship assessment (seed tool
//! `goal_assess`).

use clap::Args;

use super::{Output, args};
use crate::assessment::{self, Outcome, Report};
use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Progress};
use crate::store::{Change, GoalFile, YamlValue, body, strings_value, time_value};

/// Record one assessment of a goal: what the agent found, what comes next,
/// and what it did.
///
/// Counts an assessment (refused with exit 4 once the assessment budget is
/// used up), replaces the blockers when --blocker or --no-blockers is given,
/// ticks criteria, and with --dispatched counts a dispatch (refused when the
/// goal's dispatch budget or the global hourly window is used up). Reporting
/// the same blockers too many times in a row trips the circuit breaker;
/// --stuck asks for a human. A budget or bound this assessment uses up takes
/// effect at once.
#[derive(Debug, Args)]
pub struct AssessArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// What the agent found, in a line
    #[arg(long, value_parser = args::one_line)]
    summary: String,

    /// The next action
    #[arg(long, value_parser = args::one_line)]
    next: Option<String>,

    /// A current blocker; repeat for more (replaces the list)
    #[arg(long = "blocker", value_name = "TEXT", value_parser = args::one_line, conflicts_with = "no_blockers")]
    blockers: Vec<String>,

    /// Nothing blocks the goal any more
    #[arg(long)]
    no_blockers: bool,

    /// Criterion N is met; repeat for more
    #[arg(long, value_name = "N", value_parser = args::criterion_number)]
    met: Vec<usize>,

    /// Work was dispatched (a subagent, a job) as part of this assessment
    #[arg(long)]
    dispatched: bool,

    /// What this step cost, in US dollars (added up)
    #[arg(long, value_name = "USD", value_parser = args::usd)]
    cost_usd: Option<f64>,

    /// How the work since the last assessment went: failed counts a
    /// consecutive failure, ok clears them
    #[arg(long, value_enum)]
    outcome: Option<Outcome>,

    /// The agent cannot go on without a human: block the goal
    #[arg(long)]
    stuck: bool,
}

pub fn run(ctx: &Context, args: AssessArgs, out: &mut Output) -> Result<u8> {
    let report = Report {
        summary: args.summary,
        next: args.next,
        blockers: if args.no_blockers {
            Some(Vec::new())
        } else {
            Some(args.blockers).filter(|b| !b.is_empty())
        },
        met: args.met,
        dispatched: args.dispatched,
        cost_usd: args.cost_usd,
        outcome: args.outcome,
        stuck: args.stuck,
    };
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    let window = if report.dispatched {
        super::budget::dispatches_last_hour(ctx)? as u64
    } else {
        0
    };
    let effects = assessment::assess(&loaded.goal, &report, &ctx.config, ctx.now, window)?;

    let mut file = loaded.file.clone();
    write_progress(&mut file, &loaded.goal.progress, &effects.progress)?;
    if let Some(blockers) = &effects.blockers
        && *blockers != loaded.goal.blockers
    {
        file.set(&["blockers"], strings_value(blockers))?;
    }
    for &n in &effects.met {
        file.edit_body(|body, _| body::set_met(body, n, true))?;
    }
    if let Some(status) = &effects.status {
        file.set(&["status"], YamlValue::Str(status.as_str().to_string()))?;
    }
    if let Some(escalation) = &effects.escalation {
        file.set(&["escalation"], super::tick::escalation_value(escalation))?;
    }
    let saved = tx
        .save(
            Some(&loaded),
            file,
            Change::new("assessed", effects.detail.clone()).always(),
        )?
        .expect("always saved");
    if report.dispatched {
        tx.record_event(&saved.goal, "dispatched", &report.summary);
    }
    let saved = super::tick::enforce_limits(ctx, &mut tx, saved)?;
    super::finish(tx, out)?;
    if ctx.json {
        out.json(&super::render::goal_document(ctx, &saved)?);
    } else if !ctx.quiet {
        out.line(super::render::confirmation(
            ctx,
            &saved.goal,
            &summary(&saved.goal),
        ));
    }
    Ok(0)
}

/// Writes the progress keys that changed.
fn write_progress(file: &mut GoalFile, old: &Progress, new: &Progress) -> Result<()> {
    let count = |n: u64| YamlValue::Int(n as i64);
    let counters = [
        ("assessments", old.assessments, new.assessments),
        ("dispatches", old.dispatches, new.dispatches),
        (
            "consecutive_failures",
            old.consecutive_failures,
            new.consecutive_failures,
        ),
        ("blocker_streak", old.blocker_streak, new.blocker_streak),
        (
            "assessments_without_progress",
            old.assessments_without_progress,
            new.assessments_without_progress,
        ),
    ];
    for (key, before, after) in counters {
        if before != after {
            file.set(&["progress", key], count(after))?;
        }
    }
    if old.recorded_iterations != new.recorded_iterations
        && let Some(iterations) = new.recorded_iterations
    {
        file.set(&["progress", "iterations"], count(iterations))?;
    }
    if old.cost_usd != new.cost_usd {
        file.set(&["progress", "cost_usd"], YamlValue::Float(new.cost_usd))?;
    }
    for (key, before, after) in [
        (
            "last_assessed_at",
            old.last_assessed_at,
            new.last_assessed_at,
        ),
        (
            "last_dispatched_at",
            old.last_dispatched_at,
            new.last_dispatched_at,
        ),
    ] {
        if before != after
            && let Some(at) = after
        {
            file.set(&["progress", key], time_value(at))?;
        }
    }
    if old.last_outcome != new.last_outcome
        && let Some(outcome) = &new.last_outcome
    {
        file.set(
            &["progress", "last_outcome"],
            YamlValue::Str(outcome.clone()),
        )?;
    }
    if old.blocker_fingerprint != new.blocker_fingerprint {
        let value = new
            .blocker_fingerprint
            .clone()
            .map_or(YamlValue::Null, YamlValue::Str);
        file.set(&["progress", "blocker_fingerprint"], value)?;
    }
    Ok(())
}

fn summary(goal: &Goal) -> String {
    let progress = &goal.progress;
    let mut text = format!(
        "assessed ({}/{} assessments, {}/{} dispatches, {}/{} criteria met)",
        progress.assessments,
        goal.budget.max_assessments,
        progress.dispatches,
        goal.budget.max_dispatches,
        goal.criteria_met(),
        goal.criteria.len()
    );
    if let Some(escalation) = &goal.escalation
        && goal.status == crate::model::Status::Blocked
    {
        text.push_str(&format!(
            "; BLOCKED ({}): {}",
            escalation.kind, escalation.reason
        ));
    }
    text
}
