//! How goals look: the JSON document fields (SPEC 3) and text for people.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::context::Context;
use crate::model::{Goal, Obligation, Status};
use crate::obligations::Book;
use crate::store::{LoadedGoal, format_time};

pub const SCHEMA_VERSION: u32 = 1;

fn time(at: Option<DateTime<Utc>>) -> Value {
    at.map_or(Value::Null, |t| Value::String(format_time(t)))
}

/// A goal as JSON, fields mirroring the front matter; `tasks` are the
/// obligations linked to it.
pub fn goal_json(ctx: &Context, loaded: &LoadedGoal, book: &Book) -> Value {
    let goal = &loaded.goal;
    let tasks: Vec<Value> = if goal.id.is_empty() {
        Vec::new()
    } else {
        book.of_goal(&goal.id).map(obligation_json).collect()
    };
    json!({
        "id": goal.id,
        "label": goal.label,
        "title": goal.title,
        "description": goal.description,
        "status": goal.status.as_str(),
        "priority": goal.priority.as_str(),
        "confirmed": goal.confirmed,
        "tags": goal.tags,
        "criteria": goal.criteria.iter().map(|c| json!({"n": c.n, "text": c.text, "met": c.met})).collect::<Vec<_>>(),
        "verification": goal.verification.iter().map(|c| json!({"type": c.kind.as_str(), "target": c.target, "criterion": c.criterion})).collect::<Vec<_>>(),
        "budget": {
            "max_dispatches": goal.budget.max_dispatches,
            "max_assessments": goal.budget.max_assessments,
            "cooldown": goal.budget.cooldown.to_string(),
            "escalate_after_failures": goal.budget.escalate_after_failures,
        },
        "bounds": {
            "max_iterations": goal.bounds.max_iterations,
            "deadline": time(goal.bounds.deadline),
            "max_cost_usd": goal.bounds.max_cost_usd,
        },
        "progress": {
            "assessments": goal.progress.assessments,
            "dispatches": goal.progress.dispatches,
            "iterations": goal.progress.iterations(),
            "consecutive_failures": goal.progress.consecutive_failures,
            "cost_usd": goal.progress.cost_usd,
            "last_assessed_at": time(goal.progress.last_assessed_at),
            "last_dispatched_at": time(goal.progress.last_dispatched_at),
            "last_outcome": goal.progress.last_outcome,
        },
        "blockers": goal.blockers,
        "escalation": goal.escalation.as_ref().map(|e| json!({"kind": e.kind, "reason": e.reason, "at": time(e.at)})),
        "tasks": tasks,
        "created_at": time(goal.created_at),
        "updated_at": time(goal.updated_at),
        "closed_at": time(goal.closed_at),
        "closed_reason": goal.closed_reason,
        "extra": goal.extra,
        "path": relative(ctx, &loaded.file.path),
    })
}

/// An obligation as JSON.
pub fn obligation_json(obligation: &Obligation) -> Value {
    json!({
        "id": obligation.id,
        "label": obligation.label,
        "status": obligation.status.as_str(),
        "goal_id": obligation.goal_id,
        "goal_label": obligation.goal_label,
        "agent": obligation.agent,
        "session": obligation.session,
        "pid": obligation.pid,
        "summary": obligation.summary,
        "spawned_at": format_time(obligation.spawned_at),
        "timeout_secs": obligation.timeout_secs,
        "ended_at": time(obligation.ended_at),
        "detail": obligation.detail,
        "resolved_at": time(obligation.resolved_at),
        "retry_count": obligation.retry_count,
    })
}

/// `{"schema_version":1,"goal":{…}}`.
pub fn goal_document(ctx: &Context, loaded: &LoadedGoal) -> crate::error::Result<Value> {
    let book = ctx.store.obligations()?;
    Ok(json!({"schema_version": SCHEMA_VERSION, "goal": goal_json(ctx, loaded, &book)}))
}

/// A path relative to the store root when it is inside it.
pub fn relative(ctx: &Context, path: &Path) -> String {
    path.strip_prefix(&ctx.store.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// ANSI colours, used only when the context says so.
#[derive(Debug, Clone, Copy)]
pub enum Color {
    Red,
    Green,
    Yellow,
    Blue,
    Cyan,
    Dim,
    Bold,
}

pub fn paint(ctx: &Context, text: &str, color: Color) -> String {
    if !ctx.color {
        return text.to_string();
    }
    let code = match color {
        Color::Red => "31",
        Color::Green => "32",
        Color::Yellow => "33",
        Color::Blue => "34",
        Color::Cyan => "36",
        Color::Dim => "2",
        Color::Bold => "1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

pub fn status_color(status: &Status) -> Color {
    match status {
        Status::Active => Color::Green,
        Status::Stalled => Color::Yellow,
        Status::Verifying => Color::Cyan,
        Status::Blocked | Status::Failed => Color::Red,
        Status::Paused => Color::Blue,
        Status::Completed | Status::Abandoned | Status::Unknown(_) => Color::Dim,
    }
}

/// A status padded to `width` then coloured, so columns stay aligned.
pub fn status_cell(ctx: &Context, status: &Status, width: usize) -> String {
    let padded = format!("{:<width$}", status.as_str());
    paint(ctx, &padded, status_color(status))
}

/// A one-line summary of a change for people: "deploy-api: paused".
pub fn confirmation(ctx: &Context, goal: &Goal, what: &str) -> String {
    format!("{}: {what}", paint(ctx, &goal.label, Color::Bold))
}
