//! `steward show`: everything about one goal.

use crate::exit::ExitCode;
use clap::Args;

use super::Output;
use super::render::{self, Color, SCHEMA_VERSION, goal_json, paint};
use crate::context::Context;
use crate::engine;
use crate::engine::show::{ShowRequest, Shown};
use crate::error::Result;
use crate::model::format_time;
use crate::model::{Goal, Receipt, Status};
use crate::store::Trust;

/// How many history lines `show` prints.
const RECENT_HISTORY: usize = 10;

/// Show one goal: criteria, checks, budget, bounds, progress, blockers and
/// recent history.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// Exit 0 when the goal is completed, 3 while it is open, 1 when it
    /// failed or was abandoned (for shell loops: until steward show G
    /// --exit-status -q; do ...; done)
    #[arg(long)]
    exit_status: bool,
}

pub fn run(ctx: &Context, args: ShowArgs, out: &mut Output) -> Result<ExitCode> {
    let request = ShowRequest {
        waits: !out.quiet,
        provenance: !out.quiet && !out.json,
    };
    let shown = engine::show::show(ctx, &args.goal, request)?;
    let loaded = &shown.loaded;
    if out.json {
        let mut document = serde_json::json!({
            "schema_version": SCHEMA_VERSION,
            "goal": goal_json(ctx, loaded, &shown.book),
        });
        document["waits"] = serde_json::json!(shown.waits);
        document["worktrees"] = serde_json::json!(
            (shown.worktrees.iter())
                .map(|(w, state)| serde_json::json!({"path": w.path, "branch": w.branch, "state": state}))
                .collect::<Vec<_>>()
        );
        out.json(&document);
    } else if !out.quiet {
        print_goal(&shown, out);
        print_tasks(&shown, out);
        print_worktrees(&shown, out);
    }
    if !args.exit_status {
        return Ok(ExitCode::Success);
    }
    Ok(match loaded.goal.status {
        Status::Completed => ExitCode::Success,
        Status::Failed | Status::Abandoned => ExitCode::Failure,
        _ => ExitCode::Attention,
    })
}

/// Whether the goal is what steward wrote, what it waits for, and what
/// changed outside steward.
fn print_trust(shown: &Shown, out: &mut Output) {
    let goal = &shown.loaded.goal;
    for (_, problem) in crate::engine::unknown_values(goal) {
        out.line(format!("{} {problem}", paint(out, "Problem:", Color::Red)));
    }
    if let Some(Trust::Outside(outside)) = &shown.trust {
        out.line(format!(
            "{} {} — steward's next command on it records this and holds it for a person",
            paint(out, "Outside:", Color::Red),
            outside.detail
        ));
        if let Some(diff) = &outside.diff {
            print_diff(diff, out);
        }
    }
    let Some(waiting) = goal.waiting.as_ref().filter(|_| !goal.status.is_terminal()) else {
        return;
    };
    let mut what = format!("for {}", waiting.reason);
    if let Some(until) = waiting.until {
        what.push_str(&format!(", until {}", format_time(until)));
    }
    if waiting.for_check {
        what.push_str(", until a check's result changes");
    }
    if let Some(why) = waiting.for_person {
        what.push_str(&format!(
            " — no agent may act on it; a person runs {}",
            why.command(&goal.label)
        ));
    }
    out.line(format!("{} {what}", paint(out, "Waiting:", Color::Yellow)));
    if let Some(diff) = &shown.review_diff {
        print_diff(diff, out);
    }
}

fn print_diff(diff: &str, out: &mut Output) {
    for line in diff.lines() {
        let color = match line.as_bytes().first() {
            Some(b'+') if !line.starts_with("+++") => Some(Color::Green),
            Some(b'-') if !line.starts_with("---") => Some(Color::Red),
            _ => None,
        };
        let line = color.map_or_else(|| line.to_string(), |c| paint(out, line, c));
        out.line(format!("  {line}"));
    }
}

fn print_goal(shown: &Shown, out: &mut Output) {
    let goal = &shown.loaded.goal;
    let waits = &shown.waits;
    out.line(format!(
        "{} — {}",
        paint(out, &goal.label, Color::Bold),
        goal.title
    ));
    let confirmed = if goal.confirmed {
        "confirmed"
    } else {
        "NOT confirmed: a human must run `steward confirm`"
    };
    out.line(format!(
        "status:    {} (priority {}, {confirmed})",
        paint(
            out,
            goal.status.as_str(),
            render::status_color(&goal.status)
        ),
        goal.priority
    ));
    out.line(format!("id:        {}", goal.id));
    out.line(format!("file:      {}", shown.path));
    out.line(format!(
        "created:   {}   updated: {}",
        when(goal.created_at),
        when(goal.updated_at)
    ));
    if goal.closed_by_hand() {
        out.line("closed:    by hand, no receipt");
    } else if let Some(reason) = &goal.closed_reason {
        out.line(format!("closed:    {} — {reason}", when(goal.closed_at)));
    }
    print_trust(shown, out);
    for why in waits {
        out.line(format!("{} {why}", paint(out, "Not now:", Color::Yellow)));
    }
    if !goal.tags.is_empty() {
        out.line(format!("tags:      {}", goal.tags.join(", ")));
    }
    for line in goal.record.lines() {
        out.line(line);
    }
    if !goal.description.is_empty() {
        out.line("");
        for line in goal.description.lines() {
            out.line(format!("  {line}"));
        }
    }
    out.line("");
    out.line(format!(
        "Criteria ({}/{} met):",
        goal.criteria_standing(),
        goal.criteria.len()
    ));
    for criterion in &goal.criteria {
        let mark = if criterion.met {
            paint(out, "[x]", Color::Green)
        } else {
            "[ ]".to_string()
        };
        let who = goal
            .ticks
            .iter()
            .find(|t| t.n == criterion.n)
            .filter(|_| criterion.met)
            .map(|t| format!("  (ticked by {} {})", t.by, t.at))
            .unwrap_or_default();
        let against = goal
            .contradiction(criterion.n)
            .map(|failure| format!(" — but its check fails: {failure}"))
            .unwrap_or_default();
        out.line(format!(
            "  {}. {mark} {}{who}{against}",
            criterion.n, criterion.text
        ));
    }
    if let Some(plan) = goal
        .plan
        .as_ref()
        .map(crate::model::plan::PlanSection::plan)
    {
        let next: Vec<String> = plan
            .next_work()
            .iter()
            .take(3)
            .map(|n| format!("{} {}", n.id, n.name))
            .collect();
        out.line(format!(
            "Plan:      {} of its steps done{}",
            plan.overall(),
            if next.is_empty() {
                String::new()
            } else {
                format!("; next: {}", next.join("; "))
            }
        ));
        for node in plan.blocked() {
            out.line(format!(
                "  blocked: {} {} — {}",
                node.id,
                node.name,
                node.reason.as_deref().unwrap_or("no reason given")
            ));
        }
        out.line(format!(
            "  (`steward plan show {}` for the tree)",
            goal.label
        ));
    }
    if let Some(handoff) = &goal.handoff {
        for line in handoff.lines() {
            out.line(line);
        }
    }
    if !goal.verification.is_empty() {
        out.line("Checks:");
        for check in &goal.verification {
            let tie = check
                .criterion
                .map(|n| format!(" (criterion {n})"))
                .unwrap_or_default();
            out.line(format!("  {} {}{tie}", check.kind, check.target));
        }
    }
    if let Some(check) = &goal.progress.last_check {
        let failing = if check.failures.is_empty() {
            String::new()
        } else {
            format!("; failing: {}", check.failures.join("; "))
        };
        out.line(format!(
            "Last check: {}/{} pass (since {}){failing}",
            check.passed,
            check.total,
            when(check.since)
        ));
    }
    print_limits(goal, out);
    if let Some(escalation) = &goal.escalation {
        out.line(format!(
            "{} {} — {} ({})",
            paint(out, "Escalation:", Color::Red),
            escalation.kind,
            escalation.reason,
            when(escalation.at)
        ));
    }
    let blockers = if goal.blockers.is_empty() {
        "none".to_string()
    } else {
        goal.blockers.join("; ")
    };
    out.line(format!("Blockers:  {blockers}"));
    match &goal.receipt {
        Some(_) if goal.closed_by_hand() => out.line(
            "Receipt:   the file has one, but steward did not write it (closed outside steward)",
        ),
        Some(receipt) => print_receipt(receipt, out),
        None => {}
    }
    for (key, value) in &goal.extra {
        out.line(format!("{key}: {value}"));
    }
    if !goal.history.is_empty() {
        out.line("");
        out.line("Recent history:");
        let skip = goal.history.len().saturating_sub(RECENT_HISTORY);
        for entry in &goal.history[skip..] {
            out.line(format!("  {}", entry.line));
        }
    }
}

fn print_tasks(shown: &Shown, out: &mut Output) {
    let goal = &shown.loaded.goal;
    let tasks: Vec<_> = if goal.id.is_empty() {
        Vec::new()
    } else {
        shown.book.of_goal(&goal.id).collect()
    };
    if tasks.is_empty() {
        return;
    }
    out.line("");
    out.line("Linked tasks:");
    for task in tasks {
        let detail = task
            .detail
            .as_ref()
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        out.line(format!(
            "  {} {} ({}){detail}",
            task.id, task.label, task.status
        ));
    }
}

fn print_limits(goal: &Goal, out: &mut Output) {
    let budget = &goal.budget;
    let progress = &goal.progress;
    out.line(format!(
        "Budget:    dispatches {}/{}, assessments {}/{}, cooldown {}, blocks after {} failures",
        progress.dispatches,
        budget.max_dispatches,
        progress.assessments,
        budget.max_assessments,
        budget.cooldown,
        budget.escalate_after_failures
    ));
    let bounds = &goal.bounds;
    let mut parts = Vec::new();
    if let Some(max) = bounds.max_iterations {
        parts.push(format!("iterations {}/{max}", progress.iterations()));
    }
    if let Some(deadline) = bounds.deadline {
        parts.push(format!("deadline {}", format_time(deadline)));
    }
    if let Some(max) = bounds.max_cost_usd {
        parts.push(format!("cost ${:.2}/${max:.2}", progress.cost_usd));
    }
    out.line(format!(
        "Bounds:    {}",
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    ));
    out.line(format!(
        "Progress:  {} consecutive failures, cost ${:.2}, last assessed {}, last dispatched {}",
        progress.consecutive_failures,
        progress.cost_usd,
        when(progress.last_assessed_at),
        when(progress.last_dispatched_at)
    ));
    if let Some(outcome) = &progress.last_outcome {
        out.line(format!("Last outcome: {outcome}"));
    }
}

fn print_receipt(receipt: &Receipt, out: &mut Output) {
    out.line(format!(
        "Receipt:   judged {} by {}",
        receipt.judged_at, receipt.judged_by
    ));
    for check in &receipt.checks {
        out.line(format!(
            "  check {} {}: {} ({})",
            check.kind, check.target, check.result, check.detail
        ));
    }
    for criterion in &receipt.criteria {
        let who = match (&criterion.ticked_by, &criterion.ticked_at) {
            (Some(by), Some(at)) => format!(", ticked by {by} {at}"),
            _ => String::new(),
        };
        out.line(format!(
            "  criterion {}: {}{who} — {}",
            criterion.n,
            criterion.basis.describe(),
            criterion.text
        ));
    }
}

fn when(at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.map_or_else(|| "never".to_string(), format_time)
}

/// The git worktrees and branches the goal's runs worked in.
fn print_worktrees(shown: &Shown, out: &mut Output) {
    for (worktree, state) in &shown.worktrees {
        out.line(format!(
            "Worktree: {} on branch {} ({state})",
            worktree.path, worktree.branch
        ));
    }
}
