//! How goals look: the JSON document fields
//! (steward-reference(5), "JSON OUTPUT") and text for people.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use super::Output;
use crate::context::Context;
use crate::model::book::Book;
use crate::model::format_time;
use crate::model::plan::Plan;
use crate::model::{Goal, Obligation, Receipt, Status, Tick};
use crate::store::LoadedGoal;

pub const SCHEMA_VERSION: u32 = 1;

fn time(at: Option<DateTime<Utc>>) -> Option<String> {
    at.map(format_time)
}

/// A goal as JSON, fields mirroring the front matter (steward-reference(5), "JSON OUTPUT").
#[derive(Serialize)]
pub struct GoalJson<'g> {
    id: &'g str,
    label: &'g str,
    title: &'g str,
    description: &'g str,
    status: &'g str,
    priority: &'g str,
    confirmed: bool,
    tags: &'g [String],
    criteria: Vec<CriterionJson<'g>>,
    verification: Vec<CheckJson<'g>>,
    budget: BudgetJson,
    bounds: BoundsJson,
    progress: ProgressJson<'g>,
    blockers: &'g [String],
    escalation: Option<EscalationJson<'g>>,
    /// What the goal is parked for, or waits for a person for.
    waiting: Option<Value>,
    tasks: Vec<ObligationJson<'g>>,
    created_at: Option<String>,
    updated_at: Option<String>,
    closed_at: Option<String>,
    closed_reason: Option<&'g str>,
    /// A terminal goal steward did not close (no receipt, no reason).
    closed_by_hand: bool,
    paused_from: Option<&'g str>,
    ticks: &'g [Tick],
    receipt: Option<&'g Receipt>,
    extra: &'g serde_json::Map<String, Value>,
    /// How far the plan is, when the goal has one (`plan show --json` has
    /// its nodes).
    plan: Option<Value>,
    owner: Option<&'g str>,
    origin: Option<&'g str>,
    constraints: &'g [String],
    /// `auto`, `off`, or null: as `dispatch.plan` says.
    planning: Option<&'static str>,
    non_goals: &'g [String],
    risks: &'g [String],
    handoff: Option<&'g crate::model::Handoff>,
    path: String,
}

#[derive(Serialize)]
struct CriterionJson<'g> {
    n: usize,
    text: &'g str,
    met: bool,
}

#[derive(Serialize)]
struct CheckJson<'g> {
    #[serde(rename = "type")]
    kind: &'g str,
    target: &'g str,
    criterion: Option<usize>,
}

#[derive(Serialize)]
struct BudgetJson {
    max_dispatches: u64,
    max_assessments: u64,
    cooldown: String,
    escalate_after_failures: u64,
}

#[derive(Serialize)]
struct BoundsJson {
    max_iterations: Option<u64>,
    deadline: Option<String>,
    max_cost_usd: Option<f64>,
}

#[derive(Serialize)]
struct ProgressJson<'g> {
    assessments: u64,
    dispatches: u64,
    iterations: u64,
    consecutive_failures: u64,
    cost_usd: f64,
    last_assessed_at: Option<String>,
    last_dispatched_at: Option<String>,
    last_outcome: Option<&'g str>,
    last_check: Option<LastCheckJson<'g>>,
}

#[derive(Serialize)]
struct LastCheckJson<'g> {
    since: Option<String>,
    passed: u64,
    total: u64,
    failures: &'g [String],
}

#[derive(Serialize)]
struct EscalationJson<'g> {
    kind: &'g str,
    reason: &'g str,
    at: Option<String>,
}

/// An obligation as JSON.
#[derive(Serialize)]
pub struct ObligationJson<'o> {
    id: &'o str,
    label: &'o str,
    status: &'o str,
    goal_id: Option<&'o str>,
    goal_label: Option<&'o str>,
    agent: Option<&'o str>,
    session: Option<&'o str>,
    pid: Option<u32>,
    summary: Option<&'o str>,
    spawned_at: String,
    timeout_secs: u64,
    ended_at: Option<String>,
    detail: Option<&'o str>,
    resolved_at: Option<String>,
    retry_count: u32,
}

pub fn obligation_json(obligation: &Obligation) -> ObligationJson<'_> {
    ObligationJson {
        id: &obligation.id,
        label: &obligation.label,
        status: obligation.status.as_str(),
        goal_id: obligation.goal_id.as_deref(),
        goal_label: obligation.goal_label.as_deref(),
        agent: obligation.agent.as_deref(),
        session: obligation.session.as_deref(),
        pid: obligation.pid,
        summary: obligation.summary.as_deref(),
        spawned_at: format_time(obligation.spawned_at),
        timeout_secs: obligation.timeout_secs,
        ended_at: time(obligation.ended_at),
        detail: obligation.detail.as_deref(),
        resolved_at: time(obligation.resolved_at),
        retry_count: obligation.retry_count,
    }
}

/// A goal as JSON; `book` supplies the obligations linked to it.
pub fn goal_json<'g>(ctx: &Context, loaded: &'g LoadedGoal, book: &'g Book) -> GoalJson<'g> {
    let goal = &loaded.goal;
    let progress = &goal.progress;
    GoalJson {
        id: &goal.id,
        label: &goal.label,
        title: &goal.title,
        description: &goal.description,
        status: goal.status.as_str(),
        priority: goal.priority.as_str(),
        confirmed: goal.confirmed,
        tags: &goal.tags,
        criteria: goal
            .criteria
            .iter()
            .map(|c| CriterionJson {
                n: c.n,
                text: &c.text,
                met: c.met,
            })
            .collect(),
        verification: goal
            .verification
            .iter()
            .map(|c| CheckJson {
                kind: c.kind.as_str(),
                target: &c.target,
                criterion: c.criterion,
            })
            .collect(),
        budget: BudgetJson {
            max_dispatches: goal.budget.max_dispatches,
            max_assessments: goal.budget.max_assessments,
            cooldown: goal.budget.cooldown.to_string(),
            escalate_after_failures: goal.budget.escalate_after_failures,
        },
        bounds: BoundsJson {
            max_iterations: goal.bounds.max_iterations,
            deadline: time(goal.bounds.deadline),
            max_cost_usd: goal.bounds.max_cost_usd,
        },
        progress: ProgressJson {
            assessments: progress.assessments,
            dispatches: progress.dispatches,
            iterations: progress.iterations(),
            consecutive_failures: progress.consecutive_failures,
            cost_usd: progress.cost_usd,
            last_assessed_at: time(progress.last_assessed_at),
            last_dispatched_at: time(progress.last_dispatched_at),
            last_outcome: progress.last_outcome.as_deref(),
            last_check: progress.last_check.as_ref().map(|check| LastCheckJson {
                since: time(check.since),
                passed: check.passed,
                total: check.total,
                failures: &check.failures,
            }),
        },
        blockers: &goal.blockers,
        escalation: goal.escalation.as_ref().map(|e| EscalationJson {
            kind: &e.kind,
            reason: &e.reason,
            at: time(e.at),
        }),
        waiting: goal.waiting.as_ref().map(crate::model::Waiting::json),
        tasks: if goal.id.is_empty() {
            Vec::new()
        } else {
            book.of_goal(&goal.id).map(obligation_json).collect()
        },
        created_at: time(goal.created_at),
        updated_at: time(goal.updated_at),
        closed_at: time(goal.closed_at),
        closed_reason: goal.closed_reason.as_deref(),
        closed_by_hand: goal.closed_by_hand(),
        paused_from: goal.paused_from.as_ref().map(|s| s.as_str()),
        ticks: &goal.ticks,
        receipt: goal.receipt.as_ref(),
        extra: &goal.extra,
        owner: goal.record.owner.as_deref(),
        origin: goal.record.origin.as_deref(),
        constraints: &goal.record.constraints,
        planning: goal.record.planning.map(crate::model::Planning::as_str),
        non_goals: &goal.record.non_goals,
        risks: &goal.record.risks,
        handoff: goal.handoff.as_deref(),
        plan: goal.plan.as_ref().map(|section| {
            let tally = section.summary.tally;
            json!({"done": tally.done, "total": tally.total, "percent": tally.percent()})
        }),
        path: ctx.store.relative(&loaded.file.path),
    }
}

/// `{"schema_version":1,"goal":{…}}`.
pub fn goal_document(ctx: &Context, loaded: &LoadedGoal) -> crate::error::Result<Value> {
    let book = ctx.store.obligations()?;
    Ok(json!({"schema_version": SCHEMA_VERSION, "goal": goal_json(ctx, loaded, &book)}))
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

pub fn paint(out: &Output, text: &str, color: Color) -> String {
    if !out.color {
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
/// How long ago `since` was, in its largest whole unit, for a table column
/// (`45s`, `12m`, `30h`, `9d`, `6w`, `2y`); `-` when unknown.
pub fn age(
    since: Option<chrono::DateTime<chrono::Utc>>,
    now: chrono::DateTime<chrono::Utc>,
) -> String {
    let Some(since) = since else {
        return "-".to_string();
    };
    let secs = (now - since).num_seconds().max(0);
    let (n, unit) = match secs {
        s if s < 60 => (s, "s"),
        s if s < 3600 => (s / 60, "m"),
        s if s < 2 * 86_400 => (s / 3600, "h"),
        s if s < 14 * 86_400 => (s / 86_400, "d"),
        s if s < 365 * 86_400 => (s / (7 * 86_400), "w"),
        s => (s / (365 * 86_400), "y"),
    };
    format!("{n}{unit}")
}

pub fn status_cell(out: &Output, status: &Status, width: usize) -> String {
    let padded = format!("{:<width$}", status.as_str());
    paint(out, &padded, status_color(status))
}

/// A one-line summary of a change for people: "deploy-api: paused".
pub fn confirmation(out: &Output, goal: &Goal, what: &str) -> String {
    format!("{}: {what}", paint(out, &goal.label, Color::Bold))
}

/// A run as JSON: the record as stored, with its state.
pub fn run_json(run: &crate::model::Run) -> Value {
    let mut value = serde_json::to_value(run).expect("runs serialize");
    value["state"] = json!(run.state_name());
    value
}

/// A bar of `done` out of `total`, ten cells wide: block characters for a
/// terminal, `#` and `.` otherwise.
pub fn bar(done: usize, total: usize, fancy: bool) -> String {
    const CELLS: usize = 10;
    let filled = if total == 0 {
        0
    } else {
        (done.min(total) * CELLS).div_ceil(total)
    };
    let (full, empty) = if fancy { ('█', '░') } else { ('#', '.') };
    let mut text = String::from("[");
    text.extend(std::iter::repeat_n(full, filled));
    text.extend(std::iter::repeat_n(empty, CELLS - filled));
    text.push(']');
    text
}

/// The plan for `--json`: every node with its place, status and share done.
pub fn plan_json(plan: &Plan) -> Value {
    let ready: Vec<&str> = plan.next_work().iter().map(|n| n.id.as_str()).collect();
    let overall = plan.overall();
    json!({
        "done": overall.done,
        "total": overall.total,
        "percent": overall.percent(),
        "next": ready,
        "nodes": plan.nodes.iter().enumerate().map(|(index, node)| {
            let tally = plan.tally(index);
            json!({
                "id": node.id,
                "level": node.level.as_str(),
                "name": node.name,
                "status": node.status.as_str(),
                "reason": node.reason,
                "after": node.after,
                "outcome": node.outcome,
                "acceptance": node.accepts().collect::<Vec<_>>(),
                "parent": node.parent.map(|p| plan.nodes[p].id.clone()),
                "percent": tally.percent(),
            })
        }).collect::<Vec<_>>(),
    })
}
