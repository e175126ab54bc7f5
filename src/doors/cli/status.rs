//! `steward status`: one screen of what needs a person and what moves.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, bar, run_json};
use crate::context::Context;
use crate::engine::overview;
use crate::error::Result;

/// One screen: counts by status, every goal that waits for a person with
/// the command to run, goals parked and what they wait for, runs under way,
/// goals that moved in the last 24 hours, spend against budgets, when tick
/// last ran, and each open goal with a bar of criteria met and of budget
/// used. Exit 0 whatever it reports (1 on error).
#[derive(Debug, Args)]
pub struct StatusArgs {}

pub fn run(ctx: &Context, _args: StatusArgs, out: &mut Output) -> Result<ExitCode> {
    let report = overview::status(ctx)?;
    let fleet = crate::engine::fleet::read(ctx);
    for problem in &report.problems {
        out.warn(problem.clone());
    }
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "counts": report.counts,
            "closed": report.closed,
            "for_person": report.for_person.iter().map(|p| json!({"label": p.label, "why": p.why, "command": p.command})).collect::<Vec<_>>(),
            "waiting": report.waiting.iter().map(|(label, what)| json!({"label": label, "for": what})).collect::<Vec<_>>(),
            "runs": report.runs.iter().map(run_json).collect::<Vec<_>>(),
            "moved": report.moved.iter().map(|m| json!({"label": m.label, "action": m.action, "from": m.from, "to": m.to, "at": m.at})).collect::<Vec<_>>(),
            "spent_last_day_usd": report.spent_today,
            "max_cost_usd_per_day": report.daily_cap,
            "last_tick": report.last_tick,
            "notifications": {"pending": report.notify_pending, "failed": report.notify_failures.len()},
            "held_back": report.held_back,
            "conflicts": report.conflicts,
            "answers_refused": report.refused_answers.iter().map(|(at, what)| json!({"at": at, "what": what})).collect::<Vec<_>>(),
            "worktrees": crate::engine::worktree::overview(ctx).iter().map(|(path, branch, label, state)| json!({"path": path, "branch": branch, "label": label, "state": state})).collect::<Vec<_>>(),
            "machines": fleet.machines.iter().map(|seen| json!({"machine": seen.record.capacity.machine, "pass": seen.record.pass, "stale": seen.stale, "verified": seen.verified, "free": seen.record.capacity.free(), "running": seen.record.capacity.running})).collect::<Vec<_>>(),
        }));
        return Ok(ExitCode::Success);
    }
    let counts: Vec<String> = report
        .counts
        .iter()
        .map(|(status, n)| format!("{n} {status}"))
        .collect();
    let counts = if counts.is_empty() {
        "no open goals".to_string()
    } else {
        counts.join(", ")
    };
    out.line(format!("goals: {counts}; {} closed", report.closed));
    out.line(format!(
        "tick last ran: {}",
        report.last_tick.as_deref().unwrap_or("never")
    ));
    if let Some(forecast) = super::forecast::summary(ctx) {
        out.line(forecast);
    }
    if !report.for_person.is_empty() {
        out.line("");
        out.line("Waiting for you:");
        for item in &report.for_person {
            out.line(format!("  {}: {}", item.label, item.why));
            out.line(format!("    run: {}", item.command));
        }
    }
    if !report.notify_failures.is_empty() {
        out.line("");
        out.line(format!(
            "The notifier failed ({} notification(s) given up; see notify.command):",
            report.notify_failures.len()
        ));
        for failed in report.notify_failures.iter().rev().take(3) {
            out.line(format!(
                "  {}: {}",
                failed.id,
                failed.last_error.as_deref().unwrap_or("failed")
            ));
        }
    }
    if !report.refused_answers.is_empty() {
        out.line("");
        out.line("Answers from the phone refused in the last day (steward replies):");
        for (at, what) in &report.refused_answers {
            out.line(format!("  {at}  {what}"));
        }
    }
    if fleet.machines.len() > 1 {
        out.line("");
        out.line("Machines (steward fleet):");
        for seen in &fleet.machines {
            out.line(format!("  {}", super::fleet::line(seen)));
        }
    }
    if !report.conflicts.is_empty() {
        out.line("");
        out.line("Both machines changed these; choose, then `steward sync`:");
        for command in &report.conflicts {
            out.line(format!("  {command}"));
        }
    }
    if !report.held_back.is_empty() {
        out.line("");
        out.line("No run starts now (`steward why GOAL` for one goal):");
        for why in &report.held_back {
            out.line(format!("  {why}"));
        }
    }
    if !report.waiting.is_empty() {
        out.line("");
        out.line("Parked:");
        for (label, what) in &report.waiting {
            out.line(format!("  {label}: waits for {what}"));
        }
    }
    if !report.runs.is_empty() {
        out.line("");
        out.line("Runs under way:");
        for run in &report.runs {
            out.line(format!(
                "  {} {} for {} ({}, since {})",
                run.id,
                run.agent,
                run.goal_label,
                run.state_name(),
                run.started_at.as_deref().unwrap_or(&run.created_at)
            ));
            if let Some(worktree) = &run.worktree {
                out.line(format!("    in {} on {}", worktree.path, worktree.branch));
            }
        }
    }
    let worktrees: Vec<_> = crate::engine::worktree::overview(ctx)
        .into_iter()
        .filter(|(_, _, _, state)| *state != "in use")
        .collect();
    if !worktrees.is_empty() {
        out.line("");
        out.line("Worktrees (dispatch.worktree):");
        for (path, branch, label, state) in worktrees {
            let what = match state {
                "kept" => "uncommitted changes past retention.worktrees: kept for you",
                "conflict" => "its merge waits for you",
                "merged" => "merged",
                "judged" => "passed its checks there: merged at the next tick",
                "left" => "its branch waits for you or CI",
                _ => "in use by its open goal",
            };
            out.line(format!("  {path} ({branch}, {label}): {what}"));
        }
    }
    if !report.moved.is_empty() {
        out.line("");
        out.line("Moved in the last 24h:");
        for moved in report.moved.iter().take(10) {
            let change = match (&moved.from, &moved.to) {
                (Some(from), Some(to)) => format!("{from} -> {to}"),
                (None, Some(to)) => to.clone(),
                _ => moved.action.clone(),
            };
            out.line(format!(
                "  {}: {change} ({}, {})",
                moved.label, moved.action, moved.at
            ));
        }
    }
    out.line("");
    let cap = report
        .daily_cap
        .map_or_else(String::new, |cap| format!(" of ${cap:.2} a day"));
    out.line(format!(
        "Spend: ${:.2} on runs in the last 24h{cap}",
        report.spent_today
    ));
    if !report.goals.is_empty() {
        out.line("");
        let fancy = out.color;
        let width = report
            .goals
            .iter()
            .map(|g| g.label.len())
            .max()
            .unwrap_or(0);
        for goal in &report.goals {
            let criteria = bar(goal.criteria_standing(), goal.criteria.len(), fancy);
            let budget = bar(
                goal.progress.dispatches as usize,
                goal.budget.max_dispatches as usize,
                fancy,
            );
            out.line(format!(
                "  {:<width$}  {:<9} criteria {criteria} {}/{}  dispatches {budget} {}/{}",
                goal.label,
                goal.status.as_str(),
                goal.criteria_standing(),
                goal.criteria.len(),
                goal.progress.dispatches,
                goal.budget.max_dispatches,
            ));
        }
    }
    Ok(ExitCode::Success)
}
