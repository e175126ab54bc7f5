//! What a goal, a run, an obligation and a plan look like as JSON: one
//! view of each, the same for the command line's `--json` and the MCP
//! tools (steward-reference(5), "JSON OUTPUT"). Fields mirror the front
//! matter; a new field is added here once and every front door has it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use crate::context::Context;
use crate::model::book::Book;
use crate::model::format_time;
use crate::model::plan::Plan;
use crate::model::{Obligation, Receipt, Tick};
use crate::store::LoadedGoal;

/// The shape of every JSON document, as `schema_version`.
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
    /// The machines (names or tags) its runs may start on; empty: any.
    runs_on: &'g [String],
    /// The pull request steward opened for its branch (`owner/repo#N`).
    pull_request: Option<&'g str>,
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
        runs_on: &goal.record.runs_on,
        pull_request: goal.record.pull_request.as_deref(),
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
    Ok(json!({"schema_version": SCHEMA_VERSION, "goal": goal_value(ctx, loaded)?}))
}

/// A goal as `show --json` and the MCP tools give it, with its linked
/// tasks.
pub fn goal_value(ctx: &Context, loaded: &LoadedGoal) -> crate::error::Result<Value> {
    let book = ctx.store.obligations()?;
    Ok(serde_json::to_value(goal_json(ctx, loaded, &book)).expect("goals serialize"))
}

/// A run as JSON: the record as stored, with its state.
pub fn run_json(run: &crate::model::Run) -> Value {
    let mut value = serde_json::to_value(run).expect("runs serialize");
    value["state"] = json!(run.state_name());
    value
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
