//! The forecast (`steward forecast`): from the store's own runs, how many
//! more runs each workable goal likely needs, what they cost, and when the
//! last one ends at the store's limits. Pure: the caller gives the goals,
//! the runs and the limits.
//!
//! A goal's rate is runs per criterion met: its own (its runs over its
//! criteria met) once one of its runs met a criterion, else the store's
//! (the runs of every goal that has met one, over the criteria they met),
//! else unknown. The runs it needs are its unmet criteria at that rate,
//! rounded up; each costs and lasts what the runs of its basis did on
//! average. The runs are then laid out in time as `tick` would start
//! them: by priority, one at a time per goal and its cooldown apart,
//! `max_parallel` at once, at most `max_per_hour` an hour, and none past
//! the day's spend cap. Planning runs, runs stopped by a usage limit and
//! cancelled runs count in no rate: they say nothing of the work.

use chrono::{DateTime, Duration, Utc};

use crate::model::{Goal, Run, RunKind, RunOutcome};

/// The limits the runs are laid out under.
#[derive(Debug, Clone)]
pub struct Limits {
    pub now: DateTime<Utc>,
    pub max_parallel: u64,
    pub max_per_hour: u64,
    /// The day's spend cap, and what the last 24 hours spent.
    pub cap_usd: Option<f64>,
    pub spent_usd: f64,
}

/// Where a goal's rate comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Basis {
    /// Its own runs (how many).
    Goal(usize),
    /// The store's runs (how many), for a goal none of whose runs met a
    /// criterion yet.
    Store(usize),
    /// No run of this store has met a criterion.
    Unknown,
}

/// One goal's forecast.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalForecast {
    pub id: String,
    pub label: String,
    pub basis: Basis,
    /// Unmet criteria.
    pub unmet: usize,
    /// The runs it likely needs, their cost, and when the last one ends
    /// (`None` when the basis is unknown, or the cap stops it first).
    pub runs: Option<u64>,
    pub cost_usd: Option<f64>,
    pub finish: Option<DateTime<Utc>>,
    /// The share of the basis runs that failed, stalled or timed out.
    pub failing_share: Option<f64>,
}

/// The forecast of every workable goal.
#[derive(Debug, Clone, PartialEq)]
pub struct Forecast {
    pub goals: Vec<GoalForecast>,
    /// When the runs laid out reach the day's spend cap, if they do.
    pub cap_reached: Option<DateTime<Utc>>,
    /// What the runs laid out cost in all.
    pub cost_usd: f64,
}

/// The runs that say something of the work.
fn counts(run: &Run) -> bool {
    run.kind != RunKind::Plan
        && run.outcome.is_some()
        && !matches!(
            run.outcome,
            Some(RunOutcome::Limited | RunOutcome::Cancelled)
        )
}

/// What a set of runs says: how many, their mean cost and length, the
/// share that failed.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    runs: usize,
    cost: f64,
    secs: f64,
    failing: f64,
}

fn sample<'a>(runs: impl Iterator<Item = &'a Run>) -> Sample {
    let runs: Vec<&Run> = runs.collect();
    if runs.is_empty() {
        return Sample::default();
    }
    let n = runs.len() as f64;
    let lengths: Vec<f64> = (runs.iter())
        .filter_map(|r| {
            Some(
                (time(r.ended_at.as_deref()?)? - time(r.started_at.as_deref()?)?)
                    .num_seconds()
                    .max(0) as f64,
            )
        })
        .collect();
    Sample {
        runs: runs.len(),
        cost: runs.iter().map(|r| r.cost_usd).sum::<f64>() / n,
        secs: if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        },
        failing: runs
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome,
                    Some(
                        RunOutcome::Error
                            | RunOutcome::Timeout
                            | RunOutcome::Stalled
                            | RunOutcome::Killed
                    )
                )
            })
            .count() as f64
            / n,
    }
}

fn time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A goal's need: the runs it likely takes, at what cost and length, and
/// when it may start the next.
struct Need {
    runs_left: u64,
    cost: f64,
    secs: f64,
    cooldown: Duration,
    next_ready: DateTime<Utc>,
    finish: Option<DateTime<Utc>>,
}

/// The forecast of `workable` (in the order `tick` offers them: by
/// priority, then label), from `runs` and the goals `all` of the store
/// (closed ones too, for the store's rate).
pub fn forecast(workable: &[&Goal], all: &[&Goal], runs: &[Run], limits: &Limits) -> Forecast {
    let of = |id: &str| {
        let id = id.to_string();
        runs.iter().filter(move |r| r.goal_id == id && counts(r))
    };
    // The store's rate: the goals that met a criterion, and their runs.
    let moved: Vec<&&Goal> = (all.iter())
        .filter(|g| g.criteria_met() > 0 && of(&g.id).next().is_some())
        .collect();
    let store = sample(moved.iter().flat_map(|g| of(&g.id)));
    let store_met: usize = moved.iter().map(|g| g.criteria_met()).sum();
    let mut goals = Vec::new();
    let mut needs = Vec::new();
    for goal in workable {
        let own = sample(of(&goal.id));
        let met = goal.criteria_met();
        let unmet = goal.criteria.len().saturating_sub(met);
        let (basis, rate, sample) = if own.runs > 0 && met > 0 {
            (Basis::Goal(own.runs), own.runs as f64 / met as f64, own)
        } else if store_met > 0 {
            (
                Basis::Store(store.runs),
                store.runs as f64 / store_met as f64,
                store,
            )
        } else {
            (Basis::Unknown, 0.0, Sample::default())
        };
        let runs_left =
            (basis != Basis::Unknown).then(|| (unmet as f64 * rate - 1e-9).ceil().max(0.0) as u64);
        needs.push(runs_left.map(|runs_left| {
            Need {
                runs_left,
                cost: sample.cost,
                secs: sample.secs,
                cooldown: Duration::seconds(goal.budget.cooldown.as_secs() as i64),
                next_ready: (goal.progress.last_dispatched_at)
                    .map(|at| at + Duration::seconds(goal.budget.cooldown.as_secs() as i64))
                    .filter(|ready| *ready > limits.now)
                    .unwrap_or(limits.now),
                finish: (runs_left == 0).then_some(limits.now),
            }
        }));
        goals.push(GoalForecast {
            id: goal.id.clone(),
            label: goal.label.clone(),
            failing_share: (sample.runs > 0).then_some(sample.failing),
            cost_usd: runs_left.map(|n| n as f64 * sample.cost),
            basis,
            unmet,
            runs: runs_left,
            finish: None,
        });
    }
    let (cap_reached, cost_usd) = lay_out(&mut needs, limits);
    for (goal, need) in goals.iter_mut().zip(&needs) {
        goal.finish = need.as_ref().and_then(|n| n.finish);
    }
    Forecast {
        goals,
        cap_reached,
        cost_usd,
    }
}

/// Lays the runs of `needs` out in time (see the module's comment);
/// each need's `finish` is set where its last run ends. Returns when the
/// spend cap stops the runs, if it does, and what the runs laid out cost.
fn lay_out(needs: &mut [Option<Need>], limits: &Limits) -> (Option<DateTime<Utc>>, f64) {
    let mut now = limits.now;
    let mut busy_until: Vec<DateTime<Utc>> = Vec::new();
    let mut starts: Vec<DateTime<Utc>> = Vec::new();
    let mut spent = limits.spent_usd;
    let mut cost = 0.0;
    // A bound on the steps: each starts a run or moves the clock to the
    // next event.
    for _ in 0..100_000 {
        busy_until.retain(|until| *until > now);
        starts.retain(|at| *at > now - Duration::hours(1));
        for need in needs.iter_mut().flatten() {
            if need.runs_left == 0 || need.next_ready > now {
                continue;
            }
            if busy_until.len() as u64 >= limits.max_parallel.max(1)
                || starts.len() as u64 >= limits.max_per_hour.max(1)
            {
                break;
            }
            if limits
                .cap_usd
                .is_some_and(|cap| spent + need.cost > cap + 1e-9)
            {
                return (Some(now), cost);
            }
            let ends = now + Duration::milliseconds((need.secs * 1000.0) as i64);
            spent += need.cost;
            cost += need.cost;
            need.runs_left -= 1;
            need.next_ready = now + need.cooldown.max(ends - now);
            if need.runs_left == 0 {
                need.finish = Some(ends);
            }
            // A run that takes no time (none recorded) frees its slot at once.
            if ends > now {
                busy_until.push(ends);
            }
            starts.push(now);
        }
        let waiting = needs.iter().flatten().filter(|n| n.runs_left > 0);
        let next = (waiting.map(|n| n.next_ready))
            .chain(busy_until.iter().copied())
            .chain(starts.iter().map(|at| *at + Duration::hours(1)))
            .filter(|at| *at > now)
            .min();
        match next {
            Some(next) if needs.iter().flatten().any(|n| n.runs_left > 0) => now = next,
            _ => break,
        }
    }
    (None, cost)
}
