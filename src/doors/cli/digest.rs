//! `steward digest`: what happened since a time.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, run_json};
use crate::context::Context;
use crate::engine::overview;
use crate::error::Result;
use crate::model::format_time;

/// What happened since a time (default: the last 24 hours): goals
/// completed, with what the judge's receipt rests on; goals failed,
/// abandoned and blocked, with why; goals waiting for a person (a merge, a
/// review, a judgment); criteria met, and a failing check that says
/// otherwise; agent runs and what they cost. Short
/// enough to read on a phone. Exit 0 whatever it reports (1 on error).
#[derive(Debug, Args)]
pub struct DigestArgs {
    /// RFC 3339, a date, or a duration back from now such as 24h
    #[arg(long, value_name = "WHEN", default_value = "24h")]
    since: String,
}

pub fn run(ctx: &Context, args: DigestArgs, out: &mut Output) -> Result<ExitCode> {
    let since = super::args::since_time(ctx.now, &args.since)?;
    let report = overview::digest(ctx, since)?;
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "since": format_time(report.since),
            "completed": report.completed.iter().map(|c| json!({
                "label": c.goal.label,
                "title": c.goal.title,
                "reason": c.goal.closed_reason,
                "receipt": c.goal.receipt,
                "closed_by_hand": c.goal.closed_by_hand(),
                "owner": c.goal.record.owner,
                "on_the_agents_word": c.unchecked,
            })).collect::<Vec<_>>(),
            "failed": report.failed.iter().map(|g| json!({"label": g.label, "title": g.title, "reason": g.closed_reason, "owner": g.record.owner})).collect::<Vec<_>>(),
            "abandoned": report.abandoned.iter().map(|g| json!({"label": g.label, "title": g.title, "reason": g.closed_reason, "closed_by_hand": g.closed_by_hand(), "owner": g.record.owner})).collect::<Vec<_>>(),
            "waiting_for_a_person": report.waiting.iter().map(|(g, why)| json!({"label": g.label, "title": g.title, "for": g.waiting.as_ref().and_then(|w| w.for_person).map(|p| p.as_str()), "why": why, "owner": g.record.owner})).collect::<Vec<_>>(),
            "blocked": report.blocked.iter().map(|g| json!({"label": g.label, "title": g.title, "owner": g.record.owner, "escalation": g.escalation.as_ref().map(|e| json!({"kind": e.kind, "reason": e.reason}))})).collect::<Vec<_>>(),
            "criteria_met": report.criteria_met.iter().map(|(label, n, text, by, against)| json!({"label": label, "criterion": n, "text": text, "by": by, "check_fails": against})).collect::<Vec<_>>(),
            "plans": report.plans.iter().map(|(label, tally, next)| json!({"label": label, "done": tally.done, "total": tally.total, "percent": tally.percent(), "next": next})).collect::<Vec<_>>(),
            "runs": report.runs.iter().map(run_json).collect::<Vec<_>>(),
            "cost_usd": report.cost,
        }));
        return Ok(ExitCode::Success);
    }
    out.line(format!("Since {}:", format_time(report.since)));
    if report.completed.is_empty()
        && report.failed.is_empty()
        && report.abandoned.is_empty()
        && report.blocked.is_empty()
        && report.waiting.is_empty()
        && report.criteria_met.is_empty()
        && report.plans.is_empty()
        && report.runs.is_empty()
    {
        out.line("  nothing happened");
        return Ok(ExitCode::Success);
    }
    for completed in &report.completed {
        let reason = (completed.goal.closed_reason.as_deref())
            .map(|reason| format!(" — {reason}"))
            .unwrap_or_default();
        out.line(format!(
            "completed  {}{}{reason} ({})",
            completed.goal.label,
            owner(&completed.goal),
            overview::judged(completed)
        ));
    }
    for goal in &report.failed {
        out.line(format!(
            "failed     {}{} — {}",
            goal.label,
            owner(goal),
            goal.closed_reason.as_deref().unwrap_or("")
        ));
    }
    for goal in &report.abandoned {
        let reason = match (&goal.closed_reason, goal.closed_by_hand()) {
            (Some(reason), _) => reason.as_str(),
            (None, true) => "closed by hand",
            (None, false) => "no reason given",
        };
        out.line(format!(
            "abandoned  {}{} — {reason}",
            goal.label,
            owner(goal)
        ));
    }
    for goal in &report.blocked {
        let why = goal
            .escalation
            .as_ref()
            .map_or_else(String::new, |e| format!("{}: {}", e.kind, e.reason));
        out.line(format!("blocked    {}{} — {why}", goal.label, owner(goal)));
    }
    for (goal, why) in &report.waiting {
        out.line(format!(
            "waits      {}{} — for {why}",
            goal.label,
            owner(goal)
        ));
    }
    for (label, n, text, by, against) in &report.criteria_met {
        let against = against
            .as_deref()
            .map(|failure| format!(", but its check fails: {failure}"))
            .unwrap_or_default();
        out.line(format!("met        {label} #{n} {text} (by {by}{against})"));
    }
    for (label, tally, next) in &report.plans {
        let next = next
            .as_deref()
            .map_or_else(String::new, |n| format!(", next {n}"));
        out.line(format!(
            "plan       {label} {tally} of its steps done{next}"
        ));
    }
    if !report.runs.is_empty() {
        let ok = report
            .runs
            .iter()
            .filter(|r| r.state_name() == "ok")
            .count();
        out.line(format!(
            "runs       {} ({ok} ok), ${:.2}",
            report.runs.len(),
            report.cost
        ));
    }
    if let Some(forecast) = super::forecast::summary(ctx) {
        out.line("");
        out.line(forecast);
    }
    Ok(ExitCode::Success)
}

/// " (owner X)" when the goal names who to tell.
fn owner(goal: &crate::model::Goal) -> String {
    goal.record
        .owner
        .as_deref()
        .map(|owner| format!(" (owner {owner})"))
        .unwrap_or_default()
}
