//! Limits that every verb respects: a budget or bound crossed by a change
//! takes effect at once, the store-wide hourly dispatch window, and what
//! runs spent in the last day (the daily cap).

use chrono::{DateTime, Utc};

use crate::context::Context;
use crate::error::Result;
use crate::model::format_time;
use crate::model::{Actor, Edit, Goal, GoalChange, ProgressField, Run, Status, record_ticks};
use crate::rules::watchdog::{self, Evaluation, Verdict};
use crate::store::log_mark::Dispatch;
use crate::store::{LoadedGoal, Transaction};

/// Applies the watchdog's blocking and failing rules right after another
/// verb changed a goal, so a budget or bound that change crossed takes
/// effect at once rather than at the next pass.
pub fn enforce(ctx: &Context, tx: &mut Transaction<'_>, loaded: LoadedGoal) -> Result<LoadedGoal> {
    enforce_at(tx, loaded, ctx.now)
}

/// [`enforce`] with the clock at `now`.
pub fn enforce_at(
    tx: &mut Transaction<'_>,
    loaded: LoadedGoal,
    now: DateTime<Utc>,
) -> Result<LoadedGoal> {
    match watchdog::evaluate(&loaded.goal, now, None) {
        Evaluation::Change(verdict)
            if matches!(verdict.status, Some(Status::Blocked | Status::Failed)) =>
        {
            let change = verdict_change(&loaded.goal, &verdict, now);
            Ok(tx.save(&loaded, change)?.unwrap_or(loaded))
        }
        _ => Ok(loaded),
    }
}

/// The change a watchdog verdict makes to `goal`, recorded as the
/// watchdog's.
pub fn verdict_change(goal: &Goal, verdict: &Verdict, now: DateTime<Utc>) -> GoalChange {
    let mut edits = Vec::new();
    if let Some(status) = &verdict.status {
        edits.push(Edit::Status(status.clone()));
    }
    if let Some(escalation) = &verdict.escalation {
        edits.push(Edit::Escalation(Some(escalation.clone())));
    }
    if let Some(reason) = &verdict.closed_reason {
        edits.push(Edit::Closed {
            reason: reason.clone(),
            at: now,
        });
    }
    edits.extend(
        verdict
            .met
            .iter()
            .map(|&n| Edit::CriterionMet { n, met: true }),
    );
    if !verdict.met.is_empty() {
        edits.push(Edit::Ticks(record_ticks(
            &goal.ticks,
            &verdict.met,
            Actor::Watchdog.as_str(),
            &format_time(now),
        )));
    }
    if let Some(result) = &verdict.last_check {
        edits.push(Edit::LastCheck(result.clone()));
    }
    if verdict.end_waiting {
        edits.push(Edit::Waiting(None));
        // The session that parked the goal is woken, told why.
        edits.push(Edit::Progress(ProgressField::WaitedAt(now)));
        edits.push(Edit::Progress(ProgressField::WaitNote(
            verdict.reason.clone(),
        )));
        // An interactive session that parked it is the one woken; none
        // (empty) leaves the run that parked it to be found by its record.
        let session = goal.waiting.as_ref().and_then(|w| w.session.clone());
        if session.is_some() || goal.progress.wake_session.is_some() {
            edits.push(Edit::Progress(ProgressField::WakeSession(
                session.unwrap_or_default(),
            )));
        }
    }
    if verdict.is_silent() {
        let detail = verdict.last_check.as_ref().map_or_else(String::new, |c| {
            let mut detail = format!("{} of {} checks pass", c.passed, c.total);
            if !c.failures.is_empty() {
                detail.push_str(&format!(": {}", c.failures.join("; ")));
            }
            detail
        });
        GoalChange::silent("checked", detail, edits).by(Actor::Watchdog)
    } else {
        GoalChange::new(verdict.action, verdict.reason.clone())
            .by(Actor::Watchdog)
            .with_all(edits)
    }
}

/// Dispatches recorded in the hour before now, store-wide.
pub fn dispatches_last_hour(ctx: &Context) -> Result<u64> {
    Ok(window(ctx)?.len() as u64)
}

/// The dispatches of the hour before now as the heartbeat shows them:
/// see [`window_seen`].
pub fn dispatches_last_hour_seen(ctx: &Context) -> Result<u64> {
    Ok(window_seen(ctx)?.len() as u64)
}

/// [`window`] as views show it (the heartbeat, `show`, `why`, `status`):
/// counted from the store's cache of the window and what was logged since
/// (`store/dispatch_window.rs`), so a busy day's log is not read whole on
/// every one. Never what decides a dispatch: that is [`window`], from the
/// log.
pub fn window_seen(ctx: &Context) -> Result<Vec<String>> {
    ctx.store
        .dispatch_times_seen(ctx.now - chrono::Duration::hours(1), ctx.now)
}

/// The times of the dispatches in the hour before now, oldest first.
pub fn window(ctx: &Context) -> Result<Vec<String>> {
    let since = format_time(ctx.now - chrono::Duration::hours(1));
    let until = format_time(ctx.now);
    let logged: Vec<Dispatch> = dispatches_since(ctx, &since)?
        .into_iter()
        .filter(|d| d.ts <= until)
        .collect();
    let mut times: Vec<String> = logged.into_iter().map(|d| d.ts).collect();
    times.sort();
    Ok(times)
}

/// The dispatches logged since `since`: those in the event log, and those
/// this machine logged whose lines the log lost (`store::log_mark`), so
/// that removing lines from the log lowers no limit.
fn dispatches_since(ctx: &Context, since: &str) -> Result<Vec<Dispatch>> {
    let mut dispatches: Vec<Dispatch> = (ctx.store.log())
        .read_since_naming(since, Some("dispatched"))?
        .into_iter()
        .filter(|e| e.action == "dispatched")
        .map(|e| Dispatch {
            ts: e.ts,
            goal_id: e.goal_id,
            dispatch_id: e.dispatch_id,
            actor: e.actor,
        })
        .collect();
    let lost: Vec<Dispatch> = (ctx.store.dispatches_logged_here().into_iter())
        .filter(|here| here.ts.as_str() >= since)
        .filter(|here| {
            !dispatches.iter().any(|logged| match &here.dispatch_id {
                Some(id) => logged.dispatch_id.as_ref() == Some(id),
                None => logged.ts == here.ts && logged.goal_id == here.goal_id,
            })
        })
        .collect();
    dispatches.extend(lost);
    Ok(dispatches)
}

/// Whether the dispatch `dispatch_id` of `goal_id` is counted already: a
/// run steward started (counted when it was recorded), or a dispatch an
/// agent reported with that id in the last day.
pub fn dispatch_counted(ctx: &Context, goal_id: &str, dispatch_id: &str) -> Result<bool> {
    if ctx.store.run_path(dispatch_id).is_file() {
        return Ok(true);
    }
    let since = format_time(ctx.now - chrono::Duration::days(1));
    let recent = ctx
        .store
        .log()
        .read_since_naming(&since, Some(dispatch_id))?;
    Ok(recent.iter().any(|e| {
        e.action == "dispatched"
            && e.goal_id == goal_id
            && e.dispatch_id.as_deref() == Some(dispatch_id)
    }))
}

/// What the runs of the last 24 hours cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spend {
    pub usd: f64,
    /// Runs steward started in that time (by the event log) whose record
    /// is gone or verifies with no trusted machine's key: each counted at
    /// the day's cap, what it could have spent, until a person looks.
    pub unaccounted: Vec<String>,
}

/// What the runs of the 24 hours before `now` cost, counted so that
/// removing or editing a run record lowers nothing: each run's record
/// counts where a trusted machine's key verifies it; a run the event log
/// says steward started in that time with no such record counts at
/// `dispatch.max_cost_usd_per_day`, and is named.
pub fn spend_last_day(ctx: &Context, runs: &[Run], now: DateTime<Utc>) -> Result<Spend> {
    let since = format_time(now - chrono::Duration::days(1));
    let ended = |r: &&Run| r.ended_at.as_deref().is_some_and(|t| t >= since.as_str());
    // Without a key nothing verifies: the records are all there is.
    let (Some(cap), true) = (
        ctx.config.dispatch.max_cost_usd_per_day,
        ctx.store.keys.key().is_ok(),
    ) else {
        return Ok(Spend {
            usd: total(runs.iter().filter(ended).map(|r| r.cost_usd)),
            unaccounted: Vec::new(),
        });
    };
    let started: Vec<String> = dispatches_since(ctx, &since)?
        .into_iter()
        .filter(|d| d.actor == Actor::Steward.as_str())
        .filter_map(|d| d.dispatch_id)
        .collect();
    let verified = |id: &str| runs.iter().any(|r| r.id == id && r.verified);
    let unaccounted: Vec<String> = (started.iter())
        .filter(|id| !verified(id))
        .cloned()
        .collect();
    let recorded = runs
        .iter()
        .filter(ended)
        .filter(|r| r.verified || !started.contains(&r.id))
        .map(|r| r.cost_usd);
    let bounds = unaccounted.iter().map(|_| cap);
    Ok(Spend {
        usd: total(recorded.chain(bounds)),
        unaccounted,
    })
}

/// The sum of `costs`. Not `sum`: the sum of no floats is -0.0, printed
/// "$-0.00".
fn total(costs: impl Iterator<Item = f64>) -> f64 {
    costs.fold(0.0, |total, cost| total + cost)
}

/// What a person is told of runs counted at the cap for want of a record.
pub fn unaccounted_warning(unaccounted: &[String]) -> Option<String> {
    (!unaccounted.is_empty()).then(|| {
        format!(
            "the run record of {} is gone or does not verify: each counts at dispatch.max_cost_usd_per_day until a day has passed since it started (look at state/runs/, `steward runs --all`)",
            unaccounted.join(", ")
        )
    })
}

/// What every open goal has used of its budget and bounds, and the
/// store-wide dispatch window (`budget`).
#[derive(Debug)]
pub struct Usage {
    /// Open goals by priority, then label.
    pub goals: Vec<LoadedGoal>,
    pub dispatches_last_hour: u64,
    pub max_dispatches_per_hour: u64,
    pub problems: Vec<crate::error::FileProblem>,
}

/// What `budget` shows.
pub fn usage(ctx: &Context) -> Result<Usage> {
    let scan = ctx.store.scan(crate::store::Scope::Open)?;
    let mut goals = scan.goals;
    goals.sort_by(|a, b| {
        (a.goal.priority.rank(), &a.goal.label).cmp(&(b.goal.priority.rank(), &b.goal.label))
    });
    Ok(Usage {
        goals,
        dispatches_last_hour: dispatches_last_hour(ctx)?,
        max_dispatches_per_hour: ctx.config.global_limits.max_dispatches_per_hour,
        problems: scan.problems,
    })
}
