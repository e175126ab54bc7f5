//! `forecast`: the store's goals, runs and limits handed to the rule
//! (`crate::rules::forecast`), and the agents a usage limit holds.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Status};
use crate::rules::forecast::{self, Forecast, Limits};
use crate::store::Scope;

/// The forecast, and each agent a usage limit holds, with when it resets.
pub struct Outlook {
    pub forecast: Forecast,
    pub limits: Limits,
    pub limited: Vec<(String, DateTime<Utc>)>,
}

/// Goals `tick` may start runs on: open, and neither paused, blocked nor
/// waiting for a person.
fn workable(goal: &Goal) -> bool {
    matches!(
        goal.status,
        Status::Active | Status::Stalled | Status::Verifying
    ) && goal.waiting.as_ref().is_none_or(|w| w.for_person.is_none())
}

pub fn outlook(ctx: &Context) -> Result<Outlook> {
    let scan = ctx.store.scan(Scope::All)?;
    let all: Vec<&Goal> = scan.goals.iter().map(|g| &*g.goal).collect();
    let mut open: Vec<&Goal> = all.iter().copied().filter(|g| workable(g)).collect();
    open.sort_by(|a, b| (a.priority.rank(), &a.label).cmp(&(b.priority.rank(), &b.label)));
    let (runs, _) = ctx.store.runs()?;
    // What a trusted machine recorded: a record written outside steward
    // shapes no forecast.
    let runs: Vec<_> = runs.into_iter().filter(|r| r.verified).collect();
    let dispatch = &ctx.config.dispatch;
    let limits = Limits {
        now: ctx.now,
        max_parallel: dispatch.max_parallel,
        max_per_hour: ctx.config.global_limits.max_dispatches_per_hour,
        cap_usd: dispatch.max_cost_usd_per_day,
        spent_usd: super::limits::spend_last_day(ctx, &runs, ctx.now)?.usd,
    };
    let refs: Vec<_> = runs.iter().collect();
    let mut agents: Vec<&String> = std::iter::once(&dispatch.agent)
        .chain(&dispatch.fallback_agent)
        .collect();
    agents.dedup();
    let limited = (agents.into_iter())
        .filter_map(|agent| {
            crate::rules::ladder::limited_agent(&refs, agent, ctx.now)
                .map(|(until, _)| (agent.clone(), until))
        })
        .collect();
    Ok(Outlook {
        forecast: forecast::forecast(&open, &all, &runs, &limits),
        limits,
        limited,
    })
}

/// A forecast as kept for the morning.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Remembered {
    pub at: String,
    pub goals: Vec<RememberedGoal>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RememberedGoal {
    pub id: String,
    pub label: String,
    pub runs: Option<u64>,
    pub cost_usd: Option<f64>,
    pub finish: Option<String>,
}

/// What happened to a goal of a kept forecast since it was made.
#[derive(Debug, Clone)]
pub struct Happened {
    pub goal: RememberedGoal,
    /// Runs started since, and what they cost.
    pub runs: usize,
    pub cost_usd: f64,
    /// Its status now, and when it closed if it did.
    pub status: String,
    pub closed_at: Option<DateTime<Utc>>,
}

/// Keeps the forecast a person asked for, for the page's comparison.
pub fn remember(ctx: &Context, forecast: &Forecast) {
    let kept = Remembered {
        at: crate::model::format_time(ctx.now),
        goals: (forecast.goals.iter())
            .map(|g| RememberedGoal {
                id: g.id.clone(),
                label: g.label.clone(),
                runs: g.runs,
                cost_usd: g.cost_usd,
                finish: g.finish.map(crate::model::format_time),
            })
            .collect(),
    };
    ctx.store
        .remember_forecast(&serde_json::to_string(&kept).expect("a forecast serializes"));
}

/// The last forecast kept, with what happened to each goal since.
pub fn since_last(ctx: &Context) -> Option<(Remembered, Vec<Happened>)> {
    let kept: Remembered = serde_json::from_str(&ctx.store.remembered_forecast()?).ok()?;
    let scan = ctx.store.scan(Scope::All).ok()?;
    let (runs, _) = ctx.store.runs().ok()?;
    let happened = (kept.goals.iter())
        .map(|goal| {
            let since: Vec<_> = (runs.iter())
                .filter(|r| r.verified && r.goal_id == goal.id && r.created_at >= kept.at)
                .filter(|r| r.kind != crate::model::RunKind::Plan)
                .collect();
            let now = scan.goals.iter().find(|g| g.goal.id == goal.id);
            Happened {
                goal: goal.clone(),
                runs: since.len(),
                cost_usd: since.iter().map(|r| r.cost_usd).sum(),
                status: now.map_or("gone".to_string(), |g| g.goal.status.to_string()),
                closed_at: now.and_then(|g| g.goal.closed_at),
            }
        })
        .collect();
    Some((kept, happened))
}
