//! `steward budget`: how much of its budget and bounds every open goal has
//! used, and the global dispatch window.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::{Value, json};

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;
use crate::model::Goal;
use crate::model::format_time;

/// Show dispatches and assessments against each open goal's budget,
/// iterations, cost and deadline against its bounds, and the dispatches of
/// the last hour against global_limits.max_dispatches_per_hour (counted from
/// the event log).
#[derive(Debug, Args)]
pub struct BudgetArgs {}

pub fn run(ctx: &Context, _args: BudgetArgs, out: &mut Output) -> Result<ExitCode> {
    let usage = engine::limits::usage(ctx)?;
    let window = usage.dispatches_last_hour;
    let limit = usage.max_dispatches_per_hour;
    let goals: Vec<&Goal> = usage.goals.iter().map(|g| &*g.goal).collect();
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "goals": goals.iter().map(|g| goal_usage(g)).collect::<Vec<_>>(),
            "window": {"dispatches_last_hour": window, "max_dispatches_per_hour": limit},
        }));
    } else {
        for goal in &goals {
            out.line(usage_line(ctx, goal));
        }
        out.line(format!("global: {window}/{limit} dispatches in the last hour (global_limits.max_dispatches_per_hour)"));
    }
    for problem in &usage.problems {
        out.warn(problem.to_string());
    }
    Ok(ExitCode::failure_if(!usage.problems.is_empty()))
}

fn goal_usage(goal: &Goal) -> Value {
    let progress = &goal.progress;
    json!({
        "label": goal.label,
        "status": goal.status.as_str(),
        "dispatches": {"used": progress.dispatches, "max": goal.budget.max_dispatches},
        "assessments": {"used": progress.assessments, "max": goal.budget.max_assessments},
        "iterations": {"used": progress.iterations(), "max": goal.bounds.max_iterations},
        "cost_usd": {"used": progress.cost_usd, "max": goal.bounds.max_cost_usd},
        "deadline": goal.bounds.deadline.map(format_time),
    })
}

fn usage_line(ctx: &Context, goal: &Goal) -> String {
    let progress = &goal.progress;
    let mut parts = vec![
        format!(
            "dispatches {}/{}",
            progress.dispatches, goal.budget.max_dispatches
        ),
        format!(
            "assessments {}/{}",
            progress.assessments, goal.budget.max_assessments
        ),
    ];
    if let Some(max) = goal.bounds.max_iterations {
        parts.push(format!("iterations {}/{max}", progress.iterations()));
    }
    match goal.bounds.max_cost_usd {
        Some(max) => parts.push(format!("cost ${:.2}/${max:.2}", progress.cost_usd)),
        None if progress.cost_usd > 0.0 => parts.push(format!("cost ${:.2}", progress.cost_usd)),
        None => {}
    }
    if let Some(deadline) = goal.bounds.deadline {
        let left = deadline - ctx.now;
        let when = if left <= chrono::Duration::zero() {
            "passed".to_string()
        } else {
            format!(
                "in {}",
                crate::model::duration::HumanDuration::from_secs(
                    left.num_minutes().max(1) as u64 * 60
                )
            )
        };
        parts.push(format!("deadline {when} ({})", format_time(deadline)));
    }
    format!(
        "{:<20} {:<9} {}",
        goal.label,
        goal.status.as_str(),
        parts.join(", ")
    )
}
