//! `steward forecast`: will the work finish tonight, and what will it cost.

use chrono::{DateTime, Local, NaiveTime, TimeZone, Utc};
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::Result;
use crate::exit::ExitCode;
use crate::model::format_time;
use crate::rules::forecast::{Basis, GoalForecast};

/// Say, from this store's own runs, how many more runs each workable goal
/// likely needs, what they cost and when the last one ends at the current
/// limits (dispatch.max_parallel, the hourly dispatches, the day's spend
/// cap, each goal's cooldown), with the basis of each guess: the goal's
/// own runs, the store's, or unknown. Also when the day's spend cap is
/// reached and which agents a usage limit holds. A forecast is not a
/// promise: it assumes the next runs go as the past ones did. --json
/// prints {schema_version, at, goals, cap_reached, cost_usd, limited}.
#[derive(Debug, Args)]
pub struct ForecastArgs {
    /// Name the goals that will not finish by this time: HH:MM (the next
    /// such time here), or RFC 3339
    #[arg(long, value_name = "TIME")]
    by: Option<String>,
}

/// `HH:MM` as the next such local time after `now`, or RFC 3339.
fn deadline(text: &str, now: DateTime<Utc>) -> std::result::Result<DateTime<Utc>, String> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    let time = NaiveTime::parse_from_str(text, "%H:%M")
        .map_err(|_| format!("invalid time `{text}`: expected HH:MM such as 07:00, or RFC 3339"))?;
    let local = now.with_timezone(&Local);
    let today = local.date_naive().and_time(time);
    let at = Local
        .from_local_datetime(&today)
        .earliest()
        .ok_or_else(|| format!("{text} does not exist today here (a clock change)"))?
        .with_timezone(&Utc);
    Ok(if at > now {
        at
    } else {
        at + chrono::Duration::days(1)
    })
}

/// What a goal's forecast says, in words; `dollars` and `time` write its
/// amounts and times (plain here, the page's markup there).
pub(crate) fn goal_words(
    goal: &GoalForecast,
    dollars: impl Fn(f64) -> String,
    time: impl Fn(DateTime<Utc>) -> String,
) -> String {
    let runs = |n: u64| crate::text::count(n as usize, "more run", "more runs");
    match (goal.runs, goal.cost_usd, goal.finish) {
        (Some(0), _, _) => "every criterion met: the judge decides".to_string(),
        (Some(n), Some(cost), Some(finish)) => {
            format!(
                "{}, {}, done about {}",
                runs(n),
                dollars(cost),
                time(finish)
            )
        }
        (Some(n), Some(cost), None) => format!(
            "{}, {}, not done before the day's spend cap",
            runs(n),
            dollars(cost)
        ),
        _ => format!(
            "{} unmet, runs needed unknown",
            crate::text::count(goal.unmet, "criterion", "criteria")
        ),
    }
}

fn basis(basis: &Basis) -> String {
    match basis {
        Basis::Goal(n) => format!(
            "from {}",
            crate::text::count(*n, "run of this goal", "runs of this goal")
        ),
        Basis::Store(n) => format!(
            "no run of its own met a criterion: from {}",
            crate::text::count(*n, "run of this store", "runs of this store")
        ),
        Basis::Unknown => "unknown: no run of this store has met a criterion yet".to_string(),
    }
}

pub fn run(ctx: &Context, args: ForecastArgs, out: &mut Output) -> Result<ExitCode> {
    let by = args
        .by
        .as_deref()
        .map(|text| deadline(text, ctx.now))
        .transpose()
        .map_err(|why| crate::error::Error::bad_value("--by", why))?;
    let outlook = crate::engine::forecast::outlook(ctx)?;
    let forecast = &outlook.forecast;
    // Kept for the morning's page, which sets it beside what happened.
    crate::engine::forecast::remember(ctx, forecast);
    let late: Vec<&str> = (forecast.goals.iter())
        .filter(|g| by.is_some_and(|by| g.finish.is_none_or(|at| at > by)))
        .map(|g| g.label.as_str())
        .collect();
    if out.json {
        let goals: Vec<_> = (forecast.goals.iter())
            .map(|g| {
                json!({
                    "label": g.label,
                    "unmet": g.unmet,
                    "runs": g.runs,
                    "cost_usd": g.cost_usd.map(crate::agents::round_micro),
                    "finish": g.finish.map(format_time),
                    "failing_share": g.failing_share,
                    "basis": basis(&g.basis),
                })
            })
            .collect();
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "at": format_time(ctx.now),
            "goals": goals,
            "cap_reached": forecast.cap_reached.map(format_time),
            "cost_usd": crate::agents::round_micro(forecast.cost_usd),
            "limited": outlook.limited.iter().map(|(agent, until)| json!({"agent": agent, "until": format_time(*until)})).collect::<Vec<_>>(),
            "late": by.map(|_| late.clone()),
        }));
        return Ok(ExitCode::Success);
    }
    let limits = &outlook.limits;
    let cap = limits
        .cap_usd
        .map_or("no daily cap".to_string(), |cap| format!("${cap:.2} a day"));
    out.line(format!(
        "forecast at {} ({} at once, {} an hour, {cap}; ${:.2} spent in the last 24 hours):",
        format_time(ctx.now),
        limits.max_parallel,
        limits.max_per_hour,
        limits.spent_usd
    ));
    if forecast.goals.is_empty() {
        out.line("  no workable goal");
    }
    for goal in &forecast.goals {
        let what = goal_words(goal, |usd| format!("${usd:.2}"), format_time);
        let failing = goal
            .failing_share
            .filter(|share| *share > 0.0)
            .map(|share| {
                format!(
                    "; {:.0}% of those runs failed, stalled or timed out",
                    share * 100.0
                )
            })
            .unwrap_or_default();
        out.line(format!(
            "  {}: {what} ({}{failing})",
            goal.label,
            basis(&goal.basis)
        ));
    }
    out.line(match (forecast.cap_reached, limits.cap_usd) {
        (Some(at), Some(cap)) => format!(
            "the day's spend cap (${cap:.2}) is reached about {}",
            format_time(at)
        ),
        (None, Some(cap)) => format!(
            "the day's spend cap is not reached by this work: ${:.2} of the ${:.2} left",
            forecast.cost_usd,
            (cap - limits.spent_usd).max(0.0)
        ),
        _ => format!(
            "this work costs ${:.2}; no daily cap is set",
            forecast.cost_usd
        ),
    });
    if outlook.limited.is_empty() {
        out.line("usage windows: no agent is held by its usage limit now (steward learns a window only when a run meets it)");
    }
    for (agent, until) in &outlook.limited {
        out.line(format!(
            "usage windows: {agent} waits for its usage limit until {}",
            format_time(*until)
        ));
    }
    if let Some(by) = by {
        out.line(if late.is_empty() {
            format!(
                "every workable goal is forecast to finish by {}",
                format_time(by)
            )
        } else {
            format!(
                "will not finish by {}: {}",
                format_time(by),
                late.join(", ")
            )
        });
    }
    out.line("a forecast is not a promise: it assumes the next runs go as the past ones did");
    Ok(ExitCode::Success)
}

/// The forecast in one line, for `status`, `digest` and `tick --dry-run`:
/// `None` without dispatch (no runs to forecast) or a workable goal.
pub fn summary(ctx: &Context) -> Option<String> {
    if !ctx.config.enabled || !ctx.config.dispatch.enabled {
        return None;
    }
    let outlook = crate::engine::forecast::outlook(ctx).ok()?;
    let goals = &outlook.forecast.goals;
    if goals.is_empty() {
        return None;
    }
    let known: Vec<_> = goals.iter().filter(|g| g.runs.is_some()).collect();
    let runs: u64 = known.iter().filter_map(|g| g.runs).sum();
    let last = known.iter().filter_map(|g| g.finish).max();
    let unknown = goals.len() - known.len();
    let mut line = format!(
        "forecast: {}, {}, ${:.2}",
        crate::text::count(goals.len(), "workable goal", "workable goals"),
        crate::text::count(runs as usize, "more run", "more runs"),
        outlook.forecast.cost_usd
    );
    if let Some(last) = last.filter(|_| known.iter().all(|g| g.finish.is_some())) {
        line.push_str(&format!(", the last done about {}", format_time(last)));
    }
    if unknown > 0 {
        line.push_str(&format!("; unknown for {unknown} without history"));
    }
    if let Some(at) = outlook.forecast.cap_reached {
        line.push_str(&format!(
            "; the day's spend cap is reached about {}",
            format_time(at)
        ));
    }
    line.push_str(" (steward forecast)");
    Some(line)
}
