//! What one stewardship assessment does to a goal (seed tool `goal_assess`),
//! as a pure function: refusals, counters, the circuit breaker and the
//! agent's own escalation.

use chrono::{DateTime, Utc};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::{Escalation, Goal, Progress, Status, Waiting};

/// `last_outcome` is kept short: it is shown on every heartbeat.
const OUTCOME_CHARS: usize = 500;

/// How the work since the last assessment went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed,
}

/// What the agent reports.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub summary: String,
    pub next: Option<String>,
    /// `Some` replaces the blockers (empty: cleared); `None` keeps them.
    pub blockers: Option<Vec<String>>,
    pub met: Vec<usize>,
    pub dispatched: bool,
    pub cost_usd: Option<f64>,
    pub outcome: Option<Outcome>,
    pub stuck: bool,
    /// Park the goal until then (`--wait-until`).
    pub wait_until: Option<DateTime<Utc>>,
    /// Park the goal until its checks' result changes (`--wait-for-check`).
    pub wait_for_check: bool,
    /// The interactive session that reports it (`AGENT:SESSION`), woken
    /// when a wait it parks ends.
    pub session: Option<String>,
}

impl Report {
    fn waits(&self) -> bool {
        self.wait_until.is_some() || self.wait_for_check
    }
}

/// The goal after the assessment.
#[derive(Debug, Clone, PartialEq)]
pub struct Effects {
    pub progress: Progress,
    pub blockers: Option<Vec<String>>,
    /// Criteria newly met.
    pub met: Vec<usize>,
    pub status: Option<Status>,
    pub escalation: Option<Escalation>,
    /// `Some(Some(_))` parks the goal, `Some(None)` ends its wait.
    pub waiting: Option<Option<Waiting>>,
    /// The history line's detail.
    pub detail: String,
}

/// Applies `report` to `goal`, or refuses: exit 4 for a rule (terminal,
/// paused or blocked goal, budget, hourly window), exit 2 for a criterion
/// that does not exist.
pub fn assess(
    goal: &Goal,
    report: &Report,
    config: &Config,
    now: DateTime<Utc>,
    dispatches_last_hour: u64,
) -> Result<Effects> {
    refuse_unless_assessable(goal)?;
    let budget = &goal.budget;
    let mut progress = goal.progress.clone();
    if progress.assessments >= budget.max_assessments {
        return Err(Error::BudgetExhausted {
            label: goal.label.clone(),
            what: "assessment",
            used: progress.assessments,
            max: budget.max_assessments,
        });
    }
    if report.dispatched {
        refuse_dispatch(goal, config, now, dispatches_last_hour)?;
    }
    let mut met = Vec::new();
    for &n in &report.met {
        let Some(criterion) = n.checked_sub(1).and_then(|i| goal.criteria.get(i)) else {
            return Err(Error::NoSuchCriterion {
                input: crate::error::Input::Met,
                n,
                label: goal.label.clone(),
                count: goal.criteria.len(),
            });
        };
        if !criterion.met && !met.contains(&n) {
            met.push(n);
        }
    }

    progress.assessments = progress.assessments.saturating_add(1);
    if let Some(iterations) = progress.recorded_iterations {
        progress.recorded_iterations = Some(iterations.saturating_add(1));
    }
    progress.last_assessed_at = Some(now);
    progress.last_outcome = Some(outcome_text(report));
    if report.dispatched {
        progress.dispatches = progress.dispatches.saturating_add(1);
        progress.last_dispatched_at = Some(now);
    }
    if let Some(cost) = report.cost_usd {
        progress.cost_usd = round_cents(progress.cost_usd + cost);
    }
    match report.outcome {
        Some(Outcome::Ok) => progress.consecutive_failures = 0,
        Some(Outcome::Failed) => {
            progress.consecutive_failures = progress.consecutive_failures.saturating_add(1)
        }
        None => {}
    }
    let mut escalation = None;
    if let Some(blockers) = &report.blockers {
        track_blockers(&mut progress, blockers);
        let limit = config.circuit_breaker.same_blocker_repeat_limit;
        // The first report starts the streak; the limit counts repeats.
        if config.circuit_breaker.enabled && limit > 0 && progress.blocker_streak > limit {
            escalation = Some(breaker(
                now,
                format!(
                    "the same blockers were reported {} times in a row: {}. Remove their cause or change the plan, then run `steward unblock {} --reason ...`",
                    progress.blocker_streak,
                    blockers.join("; "),
                    goal.label
                ),
            ));
        }
    }
    let without_progress_limit = config.circuit_breaker.max_assessments_without_progress;
    progress.assessments_without_progress = if met.is_empty() {
        progress.assessments_without_progress.saturating_add(1)
    } else {
        0
    };
    if escalation.is_none()
        && config.circuit_breaker.enabled
        && without_progress_limit > 0
        && progress.assessments_without_progress >= without_progress_limit
    {
        escalation = Some(breaker(
            now,
            format!(
                "{} in a row met no criterion. Look at what the agent is doing, then run `steward unblock {} --reason ...`",
                crate::text::count(
                    progress.assessments_without_progress as usize,
                    "assessment",
                    "assessments"
                ),
                goal.label
            ),
        ));
    }
    if report.stuck {
        escalation = Some(Escalation {
            kind: "agent".to_string(),
            reason: format!("the agent is stuck: {}", report.summary),
            at: Some(now),
        });
    }
    let status = match (&escalation, &goal.status) {
        (Some(_), _) => Some(Status::Blocked),
        (None, Status::Stalled) => Some(Status::Active),
        _ => None,
    };
    if let Some(until) = report.wait_until
        && until <= now
    {
        return Err(Error::bad_input(
            crate::error::Input::WaitUntil,
            format!(
                "{} is not in the future (now is {})",
                crate::model::format_time(until),
                crate::model::format_time(now)
            ),
        ));
    }
    let waiting = if goal
        .waiting
        .as_ref()
        .is_some_and(|w| w.for_person.is_some())
    {
        // Only a person ends a wait for a person.
        None
    } else if report.waits() && escalation.is_none() {
        Some(Some(Waiting {
            until: report.wait_until,
            for_check: report.wait_for_check,
            for_person: None,
            reason: crate::text::head(&report.summary, 200),
            since: Some(now),
            session: report.session.clone(),
        }))
    } else if goal.waiting.is_some() {
        Some(None)
    } else {
        None
    };
    Ok(Effects {
        detail: detail(report, &met, &escalation),
        waiting,
        progress,
        blockers: report.blockers.clone(),
        met,
        status,
        escalation,
    })
}

/// Only goals being worked on take assessments.
fn refuse_unless_assessable(goal: &Goal) -> Result<()> {
    let why = match &goal.status {
        Status::Active | Status::Stalled | Status::Verifying => return Ok(()),
        status if status.is_terminal() => format!("is {status}: terminal goals do not change"),
        Status::Paused => {
            "is paused by a human; it takes no assessments until `steward resume`".to_string()
        }
        Status::Blocked => {
            let kind = goal
                .escalation
                .as_ref()
                .map_or("unknown", |e| e.kind.as_str());
            format!(
                "is blocked ({kind}) and waits for a human: `steward unblock` or `steward reset-budget`"
            )
        }
        status => format!("has the unknown status `{status}`; fix it by hand"),
    };
    Err(Error::WrongStatus {
        label: goal.label.clone(),
        why,
    })
}

/// When a goal may be dispatched again: its cooldown after the last
/// dispatch (`budget.cooldown`, a minimum interval between the runs of one
/// goal, first runs and follow-ups alike); `None` when it may now.
pub fn dispatch_spaced_until(goal: &Goal, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let until = goal.progress.last_dispatched_at? + goal.budget.cooldown.to_chrono();
    (until > now).then_some(until)
}

/// Why `goal` waits for [`dispatch_spaced_until`], in a person's words.
pub fn dispatch_spacing(goal: &Goal, until: DateTime<Utc>) -> String {
    format!(
        "it was dispatched at {}: budget.cooldown ({}) spaces its runs until {}",
        goal.progress
            .last_dispatched_at
            .map(crate::model::format_time)
            .unwrap_or_default(),
        goal.budget.cooldown,
        crate::model::format_time(until)
    )
}

/// A dispatch needs room in the goal's budget and in the global hourly
/// window, and its cooldown since the last one.
fn refuse_dispatch(
    goal: &Goal,
    config: &Config,
    now: DateTime<Utc>,
    dispatches_last_hour: u64,
) -> Result<()> {
    if goal.progress.dispatches >= goal.budget.max_dispatches {
        return Err(Error::BudgetExhausted {
            label: goal.label.clone(),
            what: "dispatch",
            used: goal.progress.dispatches,
            max: goal.budget.max_dispatches,
        });
    }
    if let Some(until) = dispatch_spaced_until(goal, now) {
        return Err(Error::DispatchRefused {
            label: goal.label.clone(),
            why: dispatch_spacing(goal, until),
        });
    }
    let limit = config.global_limits.max_dispatches_per_hour;
    if dispatches_last_hour >= limit {
        return Err(Error::WindowFull {
            used: dispatches_last_hour,
            limit,
            at: crate::model::format_time(now),
        });
    }
    Ok(())
}

/// The circuit breaker's fingerprint: sorted, lowercased blockers.
pub fn fingerprint(blockers: &[String]) -> String {
    let mut parts: Vec<String> = blockers
        .iter()
        .map(|b| b.trim().to_lowercase())
        .filter(|b| !b.is_empty())
        .collect();
    parts.sort();
    parts.dedup();
    parts.join("; ")
}

fn track_blockers(progress: &mut Progress, blockers: &[String]) {
    let print = fingerprint(blockers);
    if print.is_empty() {
        progress.blocker_fingerprint = None;
        progress.blocker_streak = 0;
    } else if progress.blocker_fingerprint.as_deref() == Some(print.as_str()) {
        progress.blocker_streak = progress.blocker_streak.saturating_add(1);
    } else {
        progress.blocker_fingerprint = Some(print);
        progress.blocker_streak = 1;
    }
}

fn breaker(now: DateTime<Utc>, reason: String) -> Escalation {
    Escalation {
        kind: "circuit_breaker".to_string(),
        reason,
        at: Some(now),
    }
}

/// "summary | next: …", bounded.
fn outcome_text(report: &Report) -> String {
    let text = match &report.next {
        Some(next) => format!("{} | next: {next}", report.summary),
        None => report.summary.clone(),
    };
    crate::text::head(&text, OUTCOME_CHARS)
}

fn round_cents(usd: f64) -> f64 {
    (usd * 1e6).round() / 1e6
}

fn detail(report: &Report, met: &[usize], escalation: &Option<Escalation>) -> String {
    let mut parts = vec![outcome_text(report)];
    if report.dispatched {
        parts.push("dispatched".to_string());
    }
    if !met.is_empty() {
        let numbers: Vec<String> = met.iter().map(usize::to_string).collect();
        parts.push(format!("met {}", numbers.join(", ")));
    }
    if let Some(cost) = report.cost_usd {
        parts.push(format!("cost +${cost:.2}"));
    }
    if let Some(outcome) = report.outcome {
        parts.push(format!(
            "outcome {}",
            if outcome == Outcome::Ok {
                "ok"
            } else {
                "failed"
            }
        ));
    }
    if let Some(escalation) = escalation {
        parts.push(format!("blocked ({})", escalation.kind));
    }
    match (report.wait_until, report.wait_for_check) {
        (Some(until), true) => parts.push(format!(
            "waiting until {} or a check changes",
            crate::model::format_time(until)
        )),
        (Some(until), false) => parts.push(format!(
            "waiting until {}",
            crate::model::format_time(until)
        )),
        (None, true) => parts.push("waiting for a check to change".to_string()),
        (None, false) => {}
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn goal(front_matter: &str) -> Goal {
        let text = format!(
            "---\nlabel: g\n{front_matter}\n---\n## Acceptance criteria\n\n- [ ] one\n- [x] two\n"
        );
        crate::store::testing::parse_goal(&text)
    }

    fn report(summary: &str) -> Report {
        Report {
            summary: summary.to_string(),
            ..Report::default()
        }
    }

    #[test]
    fn an_assessment_counts_and_records() {
        let g = goal("status: stalled\nprogress: {assessments: 2, cost_usd: 0.1}");
        let r = Report {
            next: Some("open the PR".into()),
            met: vec![1, 2],
            dispatched: true,
            cost_usd: Some(0.2),
            outcome: Some(Outcome::Failed),
            ..report("tests pass")
        };
        let effects = assess(&g, &r, &Config::default(), now(), 0).unwrap();
        assert_eq!(effects.progress.assessments, 3);
        assert_eq!(effects.progress.dispatches, 1);
        assert_eq!(effects.progress.cost_usd, 0.3);
        assert_eq!(effects.progress.consecutive_failures, 1);
        assert_eq!(
            effects.progress.last_outcome.as_deref(),
            Some("tests pass | next: open the PR")
        );
        assert_eq!(effects.met, [1], "criterion 2 was already met");
        assert_eq!(effects.status, Some(Status::Active));
        assert_eq!(
            effects.detail,
            "tests pass | next: open the PR; dispatched; met 1; cost +$0.20; outcome failed"
        );
    }

    #[test]
    fn refusals() {
        let config = Config::default();
        let refused =
            |g: &Goal, r: &Report, window| assess(g, r, &config, now(), window).unwrap_err();
        assert_eq!(
            refused(&goal("status: completed"), &report("x"), 0).exit_code(),
            4
        );
        assert_eq!(
            refused(&goal("status: paused"), &report("x"), 0).exit_code(),
            4
        );
        assert_eq!(
            refused(&goal("status: blocked"), &report("x"), 0).exit_code(),
            4
        );
        assert_eq!(
            refused(
                &goal("budget: {max_assessments: 2}\nprogress: {assessments: 2}"),
                &report("x"),
                0
            )
            .exit_code(),
            4
        );
        let dispatch = Report {
            dispatched: true,
            ..report("x")
        };
        assert_eq!(
            refused(
                &goal("budget: {max_dispatches: 1}\nprogress: {dispatches: 1}"),
                &dispatch,
                0
            )
            .exit_code(),
            4
        );
        let err = refused(&goal(""), &dispatch, 6);
        assert!(
            err.to_string().contains("max_dispatches_per_hour is 6"),
            "{err}"
        );
        assert!(assess(&goal(""), &dispatch, &config, now(), 5).is_ok());
        assert_eq!(
            refused(
                &goal(""),
                &Report {
                    met: vec![3],
                    ..report("x")
                },
                0
            )
            .exit_code(),
            2
        );
    }

    #[test]
    fn the_circuit_breaker_trips_on_the_repeat_that_reaches_the_limit() {
        let config = Config::default();
        let mut g = goal("");
        let blocked = Report {
            blockers: Some(vec!["CI red".into(), "Token expired".into()]),
            ..report("stuck again")
        };
        for expected_streak in 1..=3 {
            let effects = assess(&g, &blocked, &config, now(), 0).unwrap();
            assert_eq!(effects.progress.blocker_streak, expected_streak);
            assert_eq!(
                effects.status,
                None,
                "repeat {} must not trip",
                expected_streak - 1
            );
            g.progress = effects.progress;
        }
        // Same blockers in another order and case: the same fingerprint.
        let reordered = Report {
            blockers: Some(vec!["token expired".into(), "ci RED".into()]),
            ..report("x")
        };
        let effects = assess(&g, &reordered, &config, now(), 0).unwrap();
        assert_eq!(effects.status, Some(Status::Blocked));
        let escalation = effects.escalation.unwrap();
        assert_eq!(escalation.kind, "circuit_breaker");
        assert!(
            escalation
                .reason
                .starts_with("the same blockers were reported 4 times in a row"),
            "{}",
            escalation.reason
        );
    }

    #[test]
    fn omitted_blockers_keep_the_streak_and_new_ones_restart_it() {
        let config = Config::default();
        let mut g = goal("");
        g.progress.blocker_fingerprint = Some("ci red".into());
        g.progress.blocker_streak = 3;
        let effects = assess(&g, &report("no blockers given"), &config, now(), 0).unwrap();
        assert_eq!(effects.progress.blocker_streak, 3);
        let other = Report {
            blockers: Some(vec!["disk full".into()]),
            ..report("x")
        };
        assert_eq!(
            assess(&g, &other, &config, now(), 0)
                .unwrap()
                .progress
                .blocker_streak,
            1
        );
        let cleared = Report {
            blockers: Some(vec![]),
            ..report("x")
        };
        assert_eq!(
            assess(&g, &cleared, &config, now(), 0)
                .unwrap()
                .progress
                .blocker_streak,
            0
        );
    }

    #[test]
    fn stuck_blocks_with_kind_agent() {
        let effects = assess(
            &goal(""),
            &Report {
                stuck: true,
                ..report("need prod credentials")
            },
            &Config::default(),
            now(),
            0,
        )
        .unwrap();
        assert_eq!(effects.status, Some(Status::Blocked));
        assert_eq!(
            effects.escalation.unwrap().reason,
            "the agent is stuck: need prod credentials"
        );
    }

    #[test]
    fn long_outcomes_are_bounded() {
        let effects = assess(
            &goal(""),
            &report(&"x".repeat(2000)),
            &Config::default(),
            now(),
            0,
        )
        .unwrap();
        assert_eq!(effects.progress.last_outcome.unwrap().chars().count(), 500);
    }
}
