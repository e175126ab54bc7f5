//! What a person reads (steward-guide(7), "`status` and `digest`"):
//! `status`, one screen of what needs them and what moves, and `digest`,
//! what happened since a time — short enough for a phone in the morning.
//! Reads only.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::notify;
use crate::config::Unchecked;
use crate::context::Context;
use crate::error::Result;
use crate::model::{Basis, Goal, Run, Status, format_time};
use crate::store::{Scope, events};

/// Something a person must do, with the command.
#[derive(Debug, Clone, PartialEq)]
pub struct ForPerson {
    pub label: String,
    pub why: String,
    pub command: String,
}

/// A goal that moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    pub label: String,
    pub action: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub at: String,
}

#[derive(Debug)]
pub struct StatusReport {
    /// Open goals by status.
    pub counts: BTreeMap<String, usize>,
    /// Goal files among the closed ones (not read).
    pub closed: u64,
    pub for_person: Vec<ForPerson>,
    /// Parked goals and what they wait for.
    pub waiting: Vec<(String, String)>,
    pub runs: Vec<Run>,
    pub moved: Vec<Moved>,
    pub goals: Vec<Goal>,
    /// Run cost in the last 24 hours, and the daily cap.
    pub spent_today: f64,
    pub daily_cap: Option<f64>,
    /// When `tick` last ran (the newest watchdog or dispatch event).
    pub last_tick: Option<String>,
    /// Notifications the notifier could not deliver.
    pub notify_failures: Vec<notify::Notification>,
    pub notify_pending: usize,
    pub problems: Vec<String>,
    /// What holds every goal back from runs now (`steward why` says it
    /// per goal).
    pub held_back: Vec<String>,
    /// Merges `sync` could not finish: the command for each file.
    pub conflicts: Vec<String>,
    /// Answers from the phone refused in the last day: when, and why.
    pub refused_answers: Vec<(String, String)>,
}

pub fn status(ctx: &Context) -> Result<StatusReport> {
    let scan = ctx.store.scan(Scope::Open)?;
    let goals: Vec<Goal> = scan.goals.into_iter().map(|g| *g.goal).collect();
    let mut counts = BTreeMap::new();
    for goal in &goals {
        *counts.entry(goal.status.to_string()).or_insert(0) += 1;
    }
    let (runs, run_problems) = ctx.store.runs()?;
    let since = format_time(ctx.now - chrono::Duration::days(1));
    let recent = ctx.store.log().read_since(&since)?;
    let outbox = notify::read_outbox(ctx);
    let spend = super::limits::spend_last_day(ctx, &runs, ctx.now)?;
    Ok(StatusReport {
        counts,
        closed: ctx.store.closed_count()?,
        for_person: goals.iter().filter_map(|g| for_person(ctx, g)).collect(),
        waiting: goals
            .iter()
            .filter(|g| g.waiting.as_ref().is_none_or(|w| w.for_person.is_none()))
            .filter_map(|g| Some((g.label.clone(), waiting_text(g.waiting.as_ref()?))))
            .collect(),
        spent_today: spend.usd,
        daily_cap: ctx.config.dispatch.max_cost_usd_per_day,
        runs: runs.into_iter().filter(Run::is_active).collect(),
        moved: moved(&recent),
        refused_answers: (recent.iter())
            .filter(|e| e.action == "reply_refused")
            .map(|e| (e.ts.clone(), e.detail.clone()))
            .collect(),
        last_tick: last_tick(ctx)?,
        notify_pending: outbox.pending.len(),
        notify_failures: outbox.failed,
        problems: (super::trust::broken_config_warning(ctx).into_iter())
            .chain(super::limits::unaccounted_warning(&spend.unaccounted))
            .chain(crate::store::log_mark::losses_warning(
                &ctx.store.log_losses(),
            ))
            .chain(super::trust::held_config_warning(ctx))
            .chain(super::run::sandbox_gaps(ctx))
            .chain(scan.problems.iter().map(ToString::to_string))
            .chain(run_problems.iter().map(ToString::to_string))
            .chain(
                ctx.store
                    .obligations()?
                    .unreadable
                    .iter()
                    .map(ToString::to_string),
            )
            .collect(),
        held_back: super::dispatch::Holds::read(ctx)?.store_wide(ctx),
        conflicts: super::resolve::unresolved(ctx)
            .iter()
            .map(super::resolve::command)
            .collect(),
        goals,
    })
}

/// What a person must do for `goal`, if anything.
fn for_person(ctx: &Context, goal: &Goal) -> Option<ForPerson> {
    let label = goal.label.clone();
    if let Some(waiting) = goal.waiting.as_ref().filter(|_| !goal.status.is_terminal())
        && let Some(why) = waiting.for_person
    {
        return Some(ForPerson {
            command: why.command(&label),
            label,
            why: format!("waiting for {}", waiting.reason),
        });
    }
    match &goal.status {
        Status::Blocked => {
            let (kind, reason) = goal
                .escalation
                .as_ref()
                .map_or(("unknown", String::new()), |e| {
                    (e.kind.as_str(), e.reason.clone())
                });
            let command = if kind == "budget" {
                format!("steward reset-budget {label}")
            } else {
                format!("steward unblock {label} --reason \"...\"")
            };
            Some(ForPerson {
                label,
                why: format!("blocked ({kind}): {reason}"),
                command,
            })
        }
        status if !goal.confirmed && !status.is_terminal() && *status != Status::Paused => {
            Some(ForPerson {
                command: format!("steward confirm {label}"),
                label,
                why: format!("{} goal not confirmed", goal.priority),
            })
        }
        Status::Verifying
            if ctx.config.judge_unchecked == Unchecked::Person && has_unchecked(goal) =>
        {
            Some(ForPerson {
                command: format!("steward complete {label} --reason \"...\""),
                label,
                why: "verifying: criteria rest on the agent's word and judge.unchecked is person"
                    .to_string(),
            })
        }
        _ => None,
    }
}

/// Whether some criterion has no check tied to it.
fn has_unchecked(goal: &Goal) -> bool {
    goal.criteria.iter().any(|c| {
        !goal
            .verification
            .iter()
            .any(|check| check.criterion == Some(c.n))
    })
}

fn waiting_text(waiting: &crate::model::Waiting) -> String {
    let mut what = waiting.reason.clone();
    if let Some(until) = waiting.until {
        what.push_str(&format!(" (until {})", format_time(until)));
    }
    if waiting.for_check {
        what.push_str(" (until a check changes)");
    }
    if waiting.for_person.is_some() {
        what.push_str(" (until a person acts)");
    }
    what
}

/// The latest status change of each goal in `recent`, newest first.
fn moved(recent: &[events::Event]) -> Vec<Moved> {
    let mut latest: BTreeMap<&str, &events::Event> = BTreeMap::new();
    for event in recent
        .iter()
        .filter(|e| e.to.is_some() && !e.goal_id.is_empty())
    {
        latest.insert(&event.goal_id, event);
    }
    let mut moved: Vec<Moved> = latest
        .values()
        .map(|e| Moved {
            label: e.label.clone(),
            action: e.action.clone(),
            from: e.from.clone(),
            to: e.to.clone(),
            at: e.ts.clone(),
        })
        .collect();
    moved.sort_by(|a, b| b.at.cmp(&a.at));
    moved
}

/// When `tick` last ran, from the file it keeps.
pub(crate) fn last_tick(ctx: &Context) -> Result<Option<String>> {
    Ok(super::tick::last_pass(ctx).and_then(|v| v["last_run"].as_str().map(str::to_string)))
}

/// A completed goal in the digest.
#[derive(Debug)]
pub struct Completed {
    pub goal: Goal,
    /// Criteria that rest on an agent's word or a hand edit.
    pub unchecked: Vec<usize>,
}

#[derive(Debug)]
pub struct DigestReport {
    pub since: DateTime<Utc>,
    pub completed: Vec<Completed>,
    pub failed: Vec<Goal>,
    /// Abandoned since, by a person's command or by hand.
    pub abandoned: Vec<Goal>,
    pub blocked: Vec<Goal>,
    /// Open goals that wait for a person (a merge, a review), with what
    /// they wait for.
    pub waiting: Vec<(Goal, String)>,
    /// (label, criterion, text, who, what contradicts it) ticked since:
    /// the failure of its own check when one fails.
    pub criteria_met: Vec<(String, usize, String, String, Option<String>)>,
    /// Open goals whose plan moved since: (label, its tally, the next node).
    pub plans: Vec<(String, crate::model::plan::Tally, Option<String>)>,
    pub runs: Vec<Run>,
    pub cost: f64,
}

pub fn digest(ctx: &Context, since: DateTime<Utc>) -> Result<DigestReport> {
    let since_text = format_time(since);
    let recent = ctx.store.log().read_since(&since_text)?;
    // Goals that closed in the window are read from the closed goals; the
    // others from the open ones.
    // A goal closed by hand says so in its event, not in its `to`.
    let closed: Vec<(&str, &str)> = recent
        .iter()
        .filter(|e| {
            matches!(e.to.as_deref(), Some("completed" | "failed" | "abandoned"))
                || e.action == "closed_by_hand"
        })
        .map(|e| (e.goal_id.as_str(), e.label.as_str()))
        .collect();
    let open = ctx.store.scan(Scope::Open)?;
    let mut completed = Vec::new();
    let mut failed = Vec::new();
    let mut abandoned = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (id, label) in closed {
        let Ok(loaded) = ctx.store.refind(id, label) else {
            continue;
        };
        let goal = *loaded.goal;
        if !seen.insert(goal.id.clone()) {
            continue;
        }
        match goal.status {
            Status::Completed => completed.push(Completed {
                unchecked: goal
                    .receipt
                    .as_ref()
                    .map(|r| r.unchecked().map(|c| c.n).collect())
                    .unwrap_or_default(),
                goal,
            }),
            Status::Failed => failed.push(goal),
            Status::Abandoned => abandoned.push(goal),
            _ => {}
        }
    }
    let blocked: Vec<Goal> = open
        .goals
        .iter()
        .filter(|g| g.goal.status == Status::Blocked)
        .map(|g| (*g.goal).clone())
        .collect();
    let waiting: Vec<(Goal, String)> = (open.goals.iter())
        .filter_map(|g| {
            let waiting = g.goal.waiting.as_ref()?;
            let person = waiting.for_person?;
            Some((
                (*g.goal).clone(),
                format!("a person's {}: {}", person.as_str(), waiting.reason),
            ))
        })
        .collect();
    let mut criteria_met = Vec::new();
    for goal in open
        .goals
        .iter()
        .map(|g| &*g.goal)
        .chain(completed.iter().map(|c| &c.goal))
    {
        for tick in goal.ticks.iter().filter(|t| t.at >= since_text) {
            if let Some(criterion) = goal.criteria.get(tick.n.wrapping_sub(1)) {
                criteria_met.push((
                    goal.label.clone(),
                    tick.n,
                    criterion.text.clone(),
                    tick.by.clone(),
                    goal.contradiction(tick.n).map(str::to_string),
                ));
            }
        }
    }
    let plans = open
        .goals
        .iter()
        .map(|g| &*g.goal)
        .filter(|goal| {
            recent.iter().any(|e| {
                e.goal_id == goal.id && matches!(e.action.as_str(), "work" | "planned" | "assessed")
            })
        })
        .filter_map(|goal| {
            let plan = goal.plan.as_ref()?.plan();
            let next = plan
                .next_work()
                .first()
                .map(|n| format!("{} {}", n.id, n.name));
            Some((goal.label.clone(), plan.overall(), next))
        })
        .collect();
    let (runs, _) = ctx.store.runs()?;
    let runs: Vec<Run> = runs
        .into_iter()
        .filter(|r| r.touched_since(&since_text))
        .collect();
    // Folded from +0.0: an empty sum of floats is -0.0, printed as such.
    let cost = runs.iter().fold(0.0, |total, r| total + r.cost_usd);
    Ok(DigestReport {
        since,
        completed,
        failed,
        abandoned,
        blocked,
        waiting,
        criteria_met,
        plans,
        runs,
        cost,
    })
}

/// The receipt's word on a completed goal, for people.
pub fn judged(completed: &Completed) -> String {
    match (&completed.goal.receipt, completed.unchecked.as_slice()) {
        (None, _) => "closed by hand, no receipt".to_string(),
        (Some(receipt), []) => format!(
            "judged by {}: every criterion checked or a person's",
            receipt.judged_by
        ),
        (Some(receipt), unchecked) => {
            let numbers: Vec<String> = unchecked.iter().map(usize::to_string).collect();
            let basis = receipt
                .criteria
                .iter()
                .find(|c| unchecked.contains(&c.n))
                .map_or(Basis::AgentsWord, |c| c.basis);
            format!(
                "judged by {}: criteria {} {}",
                receipt.judged_by,
                numbers.join(", "),
                basis.describe()
            )
        }
    }
}
