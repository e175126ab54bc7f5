//! The watchdog's rules as a pure function of (goal, now, check outcomes):
//! no I/O here. `tick` runs the checks and applies what this decides
//! through the one write path.
//!
//! For each goal that is open, not paused and of a known status, the first
//! rule that changes something decides: hard bounds, budget, consecutive
//! failures, staleness, mechanical checks
//! (steward-design(7), "The first rule that changes something decides").

use chrono::{DateTime, Utc};

use crate::checks::CheckOutcome;
use crate::model::duration::HumanDuration;
use crate::model::format_time;
use crate::model::{Escalation, Goal, LastCheck, PersonWait, Status};

/// What the watchdog decided about one goal.
#[derive(Debug, Clone, PartialEq)]
pub enum Evaluation {
    /// Nothing to change.
    Unchanged,
    /// The goal's checks are due; evaluate again with their outcomes.
    NeedsChecks,
    /// Checks that can never run: the goal is left alone and each reason
    /// reported.
    InvalidChecks(Vec<String>),
    Change(Box<Verdict>),
}

/// A change to one goal.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// The new status, when it changes.
    pub status: Option<Status>,
    /// The history action and detail; empty for a silent change.
    pub action: &'static str,
    pub reason: String,
    pub escalation: Option<Escalation>,
    /// Why a goal failed (a hard bound).
    pub closed_reason: Option<String>,
    /// Criteria that passing checks met.
    pub met: Vec<usize>,
    /// A new check result, when it differs from the recorded one.
    pub last_check: Option<LastCheck>,
    /// The goal's wait is over.
    pub end_waiting: bool,
}

impl Verdict {
    /// Only `last_check` changed: no history line
    /// (steward-design(7), "The first rule that changes something decides").
    pub fn is_silent(&self) -> bool {
        self.action.is_empty()
    }
}

/// Whether the watchdog looks at a goal at all.
pub fn is_watched(goal: &Goal) -> bool {
    matches!(
        goal.status,
        Status::Active | Status::Stalled | Status::Verifying | Status::Blocked
    )
}

pub fn evaluate(goal: &Goal, now: DateTime<Utc>, checks: Option<&[CheckOutcome]>) -> Evaluation {
    if !is_watched(goal) {
        return Evaluation::Unchanged;
    }
    let for_person = goal.waiting.as_ref().and_then(|w| w.for_person);
    // Changed outside steward: nothing in the file is taken as steward's
    // until a person has looked, not even its bounds.
    if for_person == Some(PersonWait::Review) {
        return Evaluation::Unchanged;
    }
    if let Some(reason) = crossed_bound(goal, now) {
        return Evaluation::Change(Box::new(Verdict {
            status: Some(Status::Failed),
            action: "failed",
            closed_reason: Some(reason.clone()),
            reason,
            ..Verdict::default()
        }));
    }
    if goal.status != Status::Blocked {
        if let Some(reason) = goal.exhausted_budget() {
            return block(now, "budget", reason);
        }
        let limit = goal.budget.escalate_after_failures;
        if limit > 0 && goal.progress.consecutive_failures >= limit {
            let reason = format!(
                "{} consecutive failures (escalate_after_failures: {limit})",
                goal.progress.consecutive_failures
            );
            return block(now, "failures", reason);
        }
    }
    if let Some(waiting) = &goal.waiting {
        let check_changed = goal
            .progress
            .last_check
            .as_ref()
            .and_then(|check| check.since)
            .zip(waiting.since)
            .is_some_and(|(changed, began)| changed > began);
        if waiting.is_over(now, check_changed) {
            let why = if check_changed && waiting.for_check {
                "the checks' result changed".to_string()
            } else {
                format!(
                    "{} passed",
                    waiting.until.map_or_else(String::new, format_time)
                )
            };
            return Evaluation::Change(Box::new(Verdict {
                action: "waited",
                reason: format!("done waiting for {}: {why}", waiting.reason),
                end_waiting: true,
                ..Verdict::default()
            }));
        }
    } else if let Some((status, reason)) = staleness(goal, now) {
        let action = if status == Status::Stalled {
            "stalled"
        } else {
            "active"
        };
        return Evaluation::Change(Box::new(Verdict {
            status: Some(status),
            action,
            reason,
            ..Verdict::default()
        }));
    }
    if goal.status == Status::Blocked || goal.verification.is_empty() || for_person.is_some() {
        return Evaluation::Unchanged;
    }
    match checks {
        None => Evaluation::NeedsChecks,
        Some(outcomes) => judge_checks(goal, now, outcomes),
    }
}

fn block(now: DateTime<Utc>, kind: &str, reason: String) -> Evaluation {
    Evaluation::Change(Box::new(Verdict {
        status: Some(Status::Blocked),
        action: "blocked",
        escalation: Some(Escalation {
            kind: kind.to_string(),
            reason: reason.clone(),
            at: Some(now),
        }),
        reason: format!("{kind}: {reason}"),
        ..Verdict::default()
    }))
}

/// A hard bound the goal has crossed: deadline reached, iterations at
/// their maximum, or cost above it.
pub fn crossed_bound(goal: &Goal, now: DateTime<Utc>) -> Option<String> {
    let bounds = &goal.bounds;
    let progress = &goal.progress;
    if let Some(deadline) = bounds.deadline
        && now >= deadline
    {
        return Some(format!("deadline {} passed", format_time(deadline)));
    }
    if let Some(max) = bounds.max_iterations
        && progress.iterations() >= max
    {
        return Some(format!(
            "{} iterations reached max_iterations {max}",
            progress.iterations()
        ));
    }
    if let Some(max) = bounds.max_cost_usd
        && progress.cost_usd > max
    {
        return Some(format!(
            "cost ${:.2} exceeds max_cost_usd ${max:.2}",
            progress.cost_usd
        ));
    }
    None
}

/// Active → stalled after 2 × cooldown without an assessment, dispatch or
/// (for a new goal) creation; stalled → active when there was activity
/// within that time. A cooldown of 0 turns staleness off.
fn staleness(goal: &Goal, now: DateTime<Utc>) -> Option<(Status, String)> {
    if !matches!(goal.status, Status::Active | Status::Stalled)
        || goal.budget.cooldown.as_secs() == 0
    {
        return None;
    }
    let progress = &goal.progress;
    let last = [
        progress.last_assessed_at,
        progress.last_dispatched_at,
        goal.created_at,
    ]
    .into_iter()
    .flatten()
    .max()?;
    let limit = HumanDuration::from_secs(goal.budget.cooldown.as_secs() * 2);
    let idle = now - last;
    let idle_text = HumanDuration::from_secs(idle.num_seconds().max(0) as u64);
    let stale = idle >= limit.to_chrono();
    match (&goal.status, stale) {
        (Status::Active, true) => Some((
            Status::Stalled,
            format!("no activity for {idle_text} (2 × cooldown is {limit})"),
        )),
        (Status::Stalled, false) => Some((Status::Active, format!("activity {idle_text} ago"))),
        _ => None,
    }
}

/// Ticks the criteria of passing checks, records the result, and moves the
/// goal to `verifying` when every check passes and every criterion is met
/// (or back to `active` when a re-check of a verifying goal fails).
fn judge_checks(goal: &Goal, now: DateTime<Utc>, outcomes: &[CheckOutcome]) -> Evaluation {
    let invalid: Vec<String> = goal
        .verification
        .iter()
        .zip(outcomes)
        .filter_map(|(check, outcome)| match outcome {
            CheckOutcome::Invalid { reason } => {
                Some(format!("{} {}: {reason}", check.kind, check.target))
            }
            _ => None,
        })
        .collect();
    if !invalid.is_empty() {
        return Evaluation::InvalidChecks(invalid);
    }
    let mut met = Vec::new();
    let mut failures = Vec::new();
    for (check, outcome) in goal.verification.iter().zip(outcomes) {
        match outcome {
            CheckOutcome::Passed { .. } => {
                if let Some(n) = check.criterion
                    && goal.criteria.get(n - 1).is_some_and(|c| !c.met)
                    && !met.contains(&n)
                {
                    met.push(n);
                }
            }
            CheckOutcome::Failed { detail } => {
                failures.push(format!("{} {}: {detail}", check.kind, check.target))
            }
            CheckOutcome::Pending { detail } => failures.push(format!(
                "{} {}: {}{detail}",
                check.kind,
                check.target,
                LastCheck::PENDING
            )),
            CheckOutcome::Invalid { .. } => unreachable!("invalid checks returned above"),
        }
    }
    let total = goal.verification.len() as u64;
    let result = LastCheck {
        since: Some(now),
        passed: total - failures.len() as u64,
        total,
        failures,
    };
    let all_met = goal.criteria.iter().all(|c| c.met || met.contains(&c.n));
    let all_pass = result.failures.is_empty();
    let status = match goal.status {
        Status::Verifying if !(all_pass && all_met) => Some(Status::Active),
        Status::Active | Status::Stalled if all_pass && all_met => Some(Status::Verifying),
        _ => None,
    };
    let last_check = match &goal.progress.last_check {
        Some(previous) if previous.same_outcome(&result, &goal.verification) => None,
        _ => Some(result),
    };
    let met_text = match met.as_slice() {
        [] => String::new(),
        [n] => format!("criterion {n} met by its check"),
        many => format!(
            "criteria {} met by their checks",
            many.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let (action, reason) = match &status {
        Some(Status::Verifying) => {
            let checks = if total == 1 {
                "the check passes".to_string()
            } else {
                format!("all {total} checks pass")
            };
            let all = format!(
                "{checks} and every criterion is met: run `steward complete {}`",
                goal.label
            );
            (
                "verifying",
                if met_text.is_empty() {
                    all
                } else {
                    format!("{met_text}; {all}")
                },
            )
        }
        Some(_) => {
            let failing = last_check
                .as_ref()
                .or(goal.progress.last_check.as_ref())
                .map(|c| c.failures.join("; "))
                .unwrap_or_default();
            ("active", format!("re-check failed: {failing}"))
        }
        None if !met.is_empty() => ("criterion_met", met_text),
        None if last_check.is_some() => ("", String::new()),
        None => return Evaluation::Unchanged,
    };
    Evaluation::Change(Box::new(Verdict {
        status,
        action,
        reason,
        met,
        last_check,
        ..Verdict::default()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-11-21T12:00:00Z";

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(NOW)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn goal(front_matter: &str) -> Goal {
        // A goal created ten minutes ago, unless the test says otherwise.
        let created = if front_matter.contains("created_at") {
            ""
        } else {
            "created_at: 2026-11-21T11:50:00Z\n"
        };
        let text = format!(
            "---\nlabel: g\n{created}{front_matter}\n---\n## Acceptance criteria\n\n- [ ] one\n- [ ] two\n"
        );
        crate::store::testing::parse_goal(&text)
    }

    fn verdict(evaluation: Evaluation) -> Verdict {
        match evaluation {
            Evaluation::Change(verdict) => *verdict,
            other => panic!("expected a change, got {other:?}"),
        }
    }

    fn eval(g: &Goal, at: &str) -> Evaluation {
        let at = DateTime::parse_from_rfc3339(at)
            .unwrap()
            .with_timezone(&Utc);
        evaluate(g, at, None)
    }

    #[test]
    fn staleness_fires_at_exactly_twice_the_cooldown() {
        let g = goal(
            "created_at: 2026-11-21T09:00:00Z\nbudget: {cooldown: 10m}\nprogress: {last_assessed_at: 2026-11-21T11:40:00Z}",
        );
        assert_eq!(eval(&g, "2026-11-21T11:59:59Z"), Evaluation::Unchanged);
        let v = verdict(eval(&g, "2026-11-21T12:00:00Z"));
        assert_eq!(v.status, Some(Status::Stalled));
        assert_eq!(v.reason, "no activity for 20m (2 × cooldown is 20m)");
        let stalled = goal(
            "created_at: 2026-11-21T09:00:00Z\nstatus: stalled\nbudget: {cooldown: 10m}\nprogress: {last_assessed_at: 2026-11-21T11:45:00Z}",
        );
        assert_eq!(verdict(eval(&stalled, NOW)).status, Some(Status::Active));
    }

    #[test]
    fn hard_bounds_fail_the_goal() {
        let deadline = goal("bounds: {deadline: 2026-11-21T12:00:00Z}");
        assert_eq!(
            eval(&deadline, "2026-11-21T11:59:59Z"),
            Evaluation::Unchanged
        );
        let v = verdict(eval(&deadline, NOW));
        assert_eq!(v.status, Some(Status::Failed));
        assert_eq!(
            v.closed_reason.as_deref(),
            Some("deadline 2026-11-21T12:00:00Z passed")
        );
        let iterations = goal("bounds: {max_iterations: 3}\nprogress: {assessments: 3}");
        assert_eq!(verdict(eval(&iterations, NOW)).status, Some(Status::Failed));
        let under = goal("bounds: {max_iterations: 3}\nprogress: {assessments: 2}");
        assert_eq!(eval(&under, NOW), Evaluation::Unchanged);
        let cost = goal("bounds: {max_cost_usd: 5}\nprogress: {cost_usd: 5.01}");
        assert_eq!(verdict(eval(&cost, NOW)).status, Some(Status::Failed));
        assert_eq!(
            eval(
                &goal("bounds: {max_cost_usd: 5}\nprogress: {cost_usd: 5}"),
                NOW
            ),
            Evaluation::Unchanged
        );
        // Bounds beat everything, even a blocked goal.
        let blocked =
            goal("status: blocked\nbounds: {max_iterations: 1}\nprogress: {assessments: 1}");
        assert_eq!(verdict(eval(&blocked, NOW)).status, Some(Status::Failed));
    }

    #[test]
    fn budgets_and_failures_block_with_their_kind() {
        let dispatches = goal("budget: {max_dispatches: 2}\nprogress: {dispatches: 2}");
        let v = verdict(eval(&dispatches, NOW));
        assert_eq!(v.status, Some(Status::Blocked));
        assert_eq!(v.escalation.unwrap().kind, "budget");
        assert_eq!(
            eval(
                &goal("budget: {max_dispatches: 2}\nprogress: {dispatches: 1}"),
                NOW
            ),
            Evaluation::Unchanged
        );
        let failures =
            goal("budget: {escalate_after_failures: 3}\nprogress: {consecutive_failures: 3}");
        assert_eq!(
            verdict(eval(&failures, NOW)).escalation.unwrap().kind,
            "failures"
        );
        assert_eq!(
            eval(
                &goal("budget: {escalate_after_failures: 3}\nprogress: {consecutive_failures: 2}"),
                NOW
            ),
            Evaluation::Unchanged
        );
        // Already blocked: nothing more to say.
        assert_eq!(
            eval(
                &goal("status: blocked\nprogress: {consecutive_failures: 9}"),
                NOW
            ),
            Evaluation::Unchanged
        );
    }

    #[test]
    fn paused_and_unknown_goals_are_left_alone() {
        assert_eq!(
            eval(&goal("status: paused\nbounds: {max_iterations: 0}"), NOW),
            Evaluation::Unchanged
        );
        assert_eq!(
            eval(&goal("status: someday\nbounds: {max_iterations: 0}"), NOW),
            Evaluation::Unchanged
        );
    }

    fn passed() -> CheckOutcome {
        CheckOutcome::Passed {
            detail: "ok".into(),
        }
    }

    fn failed() -> CheckOutcome {
        CheckOutcome::Failed {
            detail: "missing".into(),
        }
    }

    const CHECKS: &str = "verification:\n  - {type: file_exists, target: a, criterion: 2}\n  - {type: file_exists, target: b}";

    #[test]
    fn checks_are_due_then_tick_their_criterion() {
        let g = goal(CHECKS);
        assert_eq!(eval(&g, NOW), Evaluation::NeedsChecks);
        let v = verdict(evaluate(&g, now(), Some(&[passed(), failed()])));
        assert_eq!(v.met, [2]);
        assert_eq!(v.status, None);
        assert_eq!(v.action, "criterion_met");
        assert_eq!(v.last_check.unwrap().failures, ["file_exists b: missing"]);
    }

    #[test]
    fn all_checks_passing_with_all_criteria_met_is_verifying() {
        let text = format!("{CHECKS}\n");
        let mut g = goal(&text);
        g.criteria[0].met = true;
        let v = verdict(evaluate(&g, now(), Some(&[passed(), passed()])));
        assert_eq!(v.status, Some(Status::Verifying));
        assert_eq!(v.met, [2]);
        // A verifying goal whose re-check fails goes back to active.
        let mut verifying = goal(&format!("status: verifying\n{CHECKS}"));
        verifying.criteria.iter_mut().for_each(|c| c.met = true);
        let v = verdict(evaluate(&verifying, now(), Some(&[passed(), failed()])));
        assert_eq!(v.status, Some(Status::Active));
    }

    #[test]
    fn a_failing_check_changes_only_the_recorded_result_once() {
        let g = goal(CHECKS);
        let outcomes = [failed(), failed()];
        let v = verdict(evaluate(&g, now(), Some(&outcomes)));
        assert!(v.is_silent());
        let mut again = g.clone();
        again.progress.last_check = v.last_check;
        assert_eq!(
            evaluate(&again, now(), Some(&outcomes)),
            Evaluation::Unchanged
        );
    }

    #[test]
    fn invalid_checks_leave_the_goal_alone() {
        let g = goal(CHECKS);
        let outcomes = [
            passed(),
            CheckOutcome::Invalid {
                reason: "path escapes the root".into(),
            },
        ];
        assert_eq!(
            evaluate(&g, now(), Some(&outcomes)),
            Evaluation::InvalidChecks(vec!["file_exists b: path escapes the root".into()])
        );
    }
}
