//! `forecast`: the store's goals, runs and limits handed to the rule
//! (`crate::rules::forecast`), and the agents a usage limit holds.

use chrono::{DateTime, Utc};

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
