//! What `tick` does next for each goal when dispatch is on
//! (steward-design(7), "THE RECOVERY LADDER"): start a run, follow one up
//! that made no progress (nudge, resend, reassign), escalate to a person,
//! or wait. Pure: goals, runs, settings and the clock in; decisions out.

use chrono::{DateTime, Utc};

use crate::config::Dispatch;
use crate::model::{Goal, Run, RunKind, RunOutcome, RunState, Status, progress_fingerprint};
use crate::rules::stewardship::select;

/// The next step for one goal.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Start a run.
    Start {
        kind: RunKind,
        agent: String,
        /// Steps without progress before this one.
        attempt: u32,
        /// The session to resume (a nudge).
        session: Option<String>,
    },
    /// Runs made no progress and the ladder is climbed: a person must look.
    Escalate { reason: String },
    /// Nothing now, and why (for `tick --dry-run` and `status`).
    Wait(String),
}

/// The follow-up state of one goal's runs.
pub fn step(goal: &Goal, runs: &[&Run], settings: &Dispatch, now: DateTime<Utc>) -> Step {
    if let Some(active) = runs.iter().find(|r| r.is_active()) {
        return Step::Wait(format!("run {} is {}", active.id, active.state_name()));
    }
    match goal.status {
        Status::Active | Status::Stalled | Status::Verifying => {}
        Status::Blocked => {
            let why = goal
                .escalation
                .as_ref()
                .map_or_else(String::new, |e| format!(" ({}: {})", e.kind, e.reason));
            return Step::Wait(format!(
                "it is blocked{why}: a person runs `steward unblock {} --reason ...`",
                goal.label
            ));
        }
        Status::Paused => {
            return Step::Wait(format!(
                "it is paused: a person runs `steward resume {}`",
                goal.label
            ));
        }
        _ => return Step::Wait(format!("it is {}", goal.status)),
    }
    if !goal.confirmed {
        return Step::Wait(format!(
            "it is not confirmed: a person runs `steward confirm {}`",
            goal.label
        ));
    }
    if let Some(waiting) = &goal.waiting {
        return Step::Wait(format!("it waits for {}", waiting.reason));
    }
    // CI is running on what the last run pushed: its answer is awaited at
    // no cost, and the next pass that finds it in goes on from there.
    if let Some(pending) =
        (goal.progress.last_check.as_ref()).and_then(|check| check.only_pending(&goal.verification))
    {
        return Step::Wait(format!(
            "its checks wait for an answer: {}",
            pending.join("; ")
        ));
    }
    // A person's unblock starts afresh: the runs before it count no more;
    // nor does a run that ended on the agent's usage limit (no fault of
    // the work: its agent waits, see `limited_agent`).
    let all: Vec<&Run> = (runs.iter().copied())
        .filter(|r| r.outcome != Some(RunOutcome::Limited))
        .collect();
    let runs: Vec<&Run> = since_unblock(goal, &all);
    let runs = runs.as_slice();
    let plans = match goal.record.planning {
        Some(planning) => planning == crate::model::Planning::Auto,
        None => settings.plan_auto,
    };
    if (plans && goal.plan.is_none()) || replanning_due(goal, runs) {
        return planning(goal, runs, settings, now);
    }
    // The run that parked the goal, or asked a person, may be from
    // before the person's unblock.
    if let Some(step) = wake(goal, &all, settings, now) {
        return step;
    }
    let fingerprint = progress_fingerprint(goal);
    // The runs since the goal last made progress, oldest first.
    let stuck: Vec<&&Run> = runs
        .iter()
        .rev()
        .take_while(|r| r.fingerprint == fingerprint)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let Some(last) = stuck.last() else {
        return first_run(goal, settings, now);
    };
    let attempt = stuck.len() as u32;
    let wait = backoff(settings, attempt);
    if let Some(ended) = ended_at(last)
        && now < ended + wait
    {
        return Step::Wait(format!(
            "follow-up {} waits until {} (dispatch.backoff after run {} made no progress)",
            attempt,
            crate::model::format_time(ended + wait),
            last.id
        ));
    }
    let retries = stuck
        .iter()
        .filter(|r| matches!(r.kind, RunKind::Nudge | RunKind::Resend))
        .count() as u64;
    let reassigned = stuck.iter().any(|r| r.kind == RunKind::Reassign);
    if retries < settings.max_retries {
        // A session that failed, hung or was killed is never resumed.
        let failed = matches!(
            last.outcome,
            Some(
                RunOutcome::Error | RunOutcome::Killed | RunOutcome::Timeout | RunOutcome::Stalled
            )
        ) || last.started_at.is_none();
        let resumable = last.session.clone().filter(|_| !failed);
        let (kind, session) = match resumable {
            Some(session) => (RunKind::Nudge, Some(session)),
            None if failed => (RunKind::Resend, None),
            None => (RunKind::Nudge, None),
        };
        return Step::Start {
            kind,
            agent: last.agent.clone(),
            attempt,
            session,
        };
    }
    // Another profile than the one that just failed to move it: the
    // fallback, or the main agent when the retries ran on the fallback
    // (its usage limit sent them there).
    let other = (settings.fallback_agent.iter())
        .chain(std::iter::once(&settings.agent))
        .find(|agent| **agent != last.agent);
    if !reassigned && let Some(other) = other.filter(|_| settings.fallback_agent.is_some()) {
        return Step::Start {
            kind: RunKind::Reassign,
            agent: other.clone(),
            attempt,
            session: None,
        };
    }
    let kinds: Vec<&str> = stuck.iter().map(|r| r.kind.as_str()).collect();
    let result = last
        .result
        .as_deref()
        .map(|r| {
            let said = crate::text::head(&crate::text::one_line(r), 300);
            format!(" Last result: {}.", said.trim_end_matches('.'))
        })
        .unwrap_or_default();
    Step::Escalate {
        reason: format!(
            "{} made no progress ({}): {}; the agent could not move it.{result} Look at the runs (`steward runs --all`), then a person runs `steward unblock {} --reason ...`",
            crate::text::count(stuck.len(), "run", "runs"),
            kinds.join(", "),
            what_became_of(&stuck),
            goal.label
        ),
    }
}

/// After the watchdog ended the goal's wait, before any run started: the
/// session of the run that parked it is resumed (a wake), or, where that
/// run has no session to resume or did not end well, a fresh first run
/// (which reads the goal's handoff). Once a run started after the wait
/// ended, none is woken again.
fn wake(goal: &Goal, runs: &[&Run], settings: &Dispatch, now: DateTime<Utc>) -> Option<Step> {
    let waited = crate::model::format_time(goal.progress.waited_at?);
    let last = runs.last().copied();
    if last.is_some_and(|run| run.created_at >= waited) {
        return None;
    }
    // An interactive session parked it: that session, with its profile.
    if let Some((agent, session)) = (goal.progress.wake_session.as_deref())
        .and_then(|parked| parked.split_once(':'))
        .filter(|(agent, session)| !agent.is_empty() && !session.is_empty())
    {
        return Some(if select::is_candidate(goal, now) {
            Step::Start {
                kind: RunKind::Wake,
                agent: agent.to_string(),
                attempt: 0,
                session: Some(session.to_string()),
            }
        } else {
            Step::Wait(cooling_down(goal))
        });
    }
    let parked = last.filter(|run| {
        run.kind != RunKind::Plan && run.outcome == Some(RunOutcome::Ok) && run.session.is_some()
    });
    Some(match parked {
        Some(run) if select::is_candidate(goal, now) => Step::Start {
            kind: RunKind::Wake,
            agent: run.agent.clone(),
            attempt: 0,
            session: run.session.clone(),
        },
        Some(_) => Step::Wait(cooling_down(goal)),
        None => first_run(goal, settings, now),
    })
}

/// How the runs ended, in a person's words, the most frequent first:
/// "killed at their timeout 4 times", "ended without a word twice, ended
/// in an error once".
fn what_became_of(runs: &[&&Run]) -> String {
    let mut tally: Vec<(&str, usize)> = Vec::new();
    for run in runs {
        let how = match run.outcome {
            Some(RunOutcome::Timeout) => "killed at their timeout",
            Some(RunOutcome::Stalled) => "stopped as stalled",
            Some(RunOutcome::Error) => "ended in an error",
            Some(RunOutcome::Killed) => "killed on request",
            Some(RunOutcome::OverBudget) => "stopped at their cost bound",
            Some(RunOutcome::Cancelled) => "cancelled",
            Some(RunOutcome::Limited) => "stopped by a usage limit",
            Some(RunOutcome::Ok) if run.reported == Some(true) => "reported, with nothing changed",
            Some(RunOutcome::Ok) => "ended without a report",
            None => "never finished",
        };
        match tally.iter_mut().find(|(said, _)| *said == how) {
            Some((_, n)) => *n += 1,
            None => tally.push((how, 1)),
        }
    }
    tally.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let times = |n: usize| match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    };
    (tally.iter())
        .map(|(how, n)| format!("{how} {}", times(*n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A goal without a plan under `dispatch.plan: auto`: a planning run when
/// it is due, then, after an answer that was not a valid plan, up to
/// `plan_repairs` more with the repair prompt, then a person.
fn planning(goal: &Goal, runs: &[&Run], settings: &Dispatch, now: DateTime<Utc>) -> Step {
    let attempts: Vec<&&Run> = runs
        .iter()
        .rev()
        .take_while(|r| r.kind == RunKind::Plan)
        .collect();
    let Some(last) = attempts.first() else {
        if !select::is_candidate(goal, now) {
            return Step::Wait(cooling_down(goal));
        }
        return Step::Start {
            kind: RunKind::Plan,
            agent: settings.agent.clone(),
            attempt: 0,
            session: None,
        };
    };
    if attempts.len() as u64 > settings.plan_repairs {
        let result = last
            .result
            .as_deref()
            .map(|r| {
                format!(
                    " Last: {}",
                    crate::text::head(&crate::text::one_line(r), 300)
                )
            })
            .unwrap_or_default();
        return Step::Escalate {
            reason: format!(
                "{} planning runs gave no valid plan.{result} A person writes the plan (`steward plan prompt {label}` gives the planner prompt; `steward plan import {label} FILE` takes the JSON), or starts a run without one (`steward dispatch {label}`)",
                attempts.len(),
                label = goal.label
            ),
        };
    }
    Step::Start {
        kind: RunKind::Plan,
        agent: last.agent.clone(),
        attempt: attempts.len() as u32,
        session: None,
    }
}

/// When `agent`'s usage limit resets, if a run of it ended on one that
/// has not reset yet, and that run.
pub fn limited_agent<'r>(
    runs: &[&'r Run],
    agent: &str,
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, &'r Run)> {
    runs.iter()
        .filter(|r| r.agent == agent)
        .filter_map(|r| Some((crate::model::parse_time(r.limited_until.as_deref()?)?, *r)))
        .filter(|(until, _)| *until > now)
        .max_by_key(|(until, _)| *until)
}

/// The runs since a person last unblocked the goal (all of them when no
/// one did).
pub fn since_unblock<'r>(goal: &Goal, runs: &[&'r Run]) -> Vec<&'r Run> {
    let Some(at) = goal.progress.unblocked_at else {
        return runs.to_vec();
    };
    let at = crate::model::format_time(at);
    runs.iter()
        .copied()
        .filter(|r| r.created_at >= at)
        .collect()
}

/// A planned goal a person unblocked is planned again before work goes on
/// (the Overseer's replan after an escalation): until a planning run since
/// the unblock gave a valid plan, while no other run started.
fn replanning_due(goal: &Goal, since_unblock: &[&Run]) -> bool {
    goal.plan.is_some()
        && goal.progress.unblocked_at.is_some()
        && since_unblock.iter().all(|r| r.kind == RunKind::Plan)
        && !since_unblock.iter().any(|r| r.reported == Some(true))
}

/// A goal without runs since its last progress starts one when it is due
/// (the stewardship block's rules: confirmed, cooled down).
fn first_run(goal: &Goal, settings: &Dispatch, now: DateTime<Utc>) -> Step {
    if !select::is_candidate(goal, now) {
        return Step::Wait(cooling_down(goal));
    }
    Step::Start {
        kind: RunKind::First,
        agent: settings.agent.clone(),
        attempt: 0,
        session: None,
    }
}

/// Why a goal that is otherwise workable waits: its cooldown after the
/// last assessment.
fn cooling_down(goal: &Goal) -> String {
    let until = goal
        .progress
        .last_assessed_at
        .map(|at| at + goal.budget.cooldown.to_chrono());
    match until {
        Some(until) => format!(
            "it cools down until {} (budget.cooldown {} after the last assessment)",
            crate::model::format_time(until),
            goal.budget.cooldown
        ),
        None => "it cools down (budget.cooldown)".to_string(),
    }
}

fn ended_at(run: &Run) -> Option<DateTime<Utc>> {
    run.ended_at
        .as_deref()
        .or(Some(run.created_at.as_str()))
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// `base × 2^(attempt−1)`, capped at `max`; nothing before the first step.
pub fn backoff(settings: &Dispatch, attempt: u32) -> chrono::Duration {
    if attempt == 0 {
        return chrono::Duration::zero();
    }
    let base = settings.backoff_base.as_secs();
    let factor = 1u64 << (attempt - 1).min(30);
    let secs = base
        .saturating_mul(factor)
        .min(settings.backoff_max.as_secs());
    crate::model::duration::HumanDuration::from_secs(secs).to_chrono()
}

/// Whether a run is still within its time: its supervisor should stop it
/// at `timeout`; past that and a grace, `tick` does.
pub fn overdue(run: &Run, settings: &Dispatch, grace_secs: u64, now: DateTime<Utc>) -> bool {
    run.state() == RunState::Running
        && run
            .started_at
            .as_deref()
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .is_some_and(|started| {
                // Waits for a person are not the run's to count.
                let waiting = run
                    .person_wait
                    .as_ref()
                    .and_then(|w| DateTime::parse_from_rfc3339(&w.since).ok())
                    .map_or(0, |since| {
                        now.signed_duration_since(since).num_seconds().max(0) as u64
                    });
                let limit = settings
                    .timeout
                    .as_secs()
                    .saturating_add(grace_secs)
                    .saturating_add(run.waited_secs.saturating_add(waiting).min(24 * 3600));
                now.signed_duration_since(started).num_seconds() > limit as i64
            })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn goal(extra: &str) -> Goal {
        let text = format!(
            "---\nid: g-1\nlabel: g\ncreated_at: 2026-11-21T11:59:00Z\n{extra}\n---\n## Acceptance criteria\n\n- [ ] one\n"
        );
        crate::store::testing::parse_goal(&text)
    }

    fn settings() -> Dispatch {
        let mut settings = Config::default().dispatch;
        settings.fallback_agent = Some("codex".into());
        settings
    }

    fn run(goal: &Goal, kind: RunKind, outcome: RunOutcome, ended: &str) -> Run {
        Run {
            id: format!("run-{ended}"),
            goal_id: goal.id.clone(),
            goal_label: goal.label.clone(),
            agent: if kind == RunKind::Reassign {
                "codex"
            } else {
                "claude"
            }
            .into(),
            kind,
            node: None,
            attempt: 0,
            instruction_hash: "h".into(),
            fingerprint: progress_fingerprint(goal),
            machine: "m".into(),
            created_at: ended.into(),
            started_at: Some(ended.into()),
            supervisor_pid: None,
            agent_pid: None,
            session: Some("s1".into()),
            ended_at: Some(ended.into()),
            exit: Some(0),
            outcome: Some(outcome),
            result: Some("nothing done".into()),
            cost_usd: 0.0,
            session_cost_total: None,
            input_tokens: None,
            output_tokens: None,
            reported: None,
            limited_until: None,
            limit_guessed: false,
            kill_requested: false,
            cancelled: None,
            boot: None,
            supervisor_start: None,
            agent_start: None,
            person_wait: None,
            waited_secs: 0,
            subagents: 0,
            worktree: None,
            sig: None,
            verified: false,
        }
    }

    #[test]
    fn a_due_goal_starts_a_first_run_and_an_active_run_waits() {
        let g = goal("");
        assert!(matches!(
            step(&g, &[], &settings(), now()),
            Step::Start {
                kind: RunKind::First,
                attempt: 0,
                ..
            }
        ));
        let mut running = run(&g, RunKind::First, RunOutcome::Ok, "2026-11-21T11:00:00Z");
        running.outcome = None;
        running.ended_at = None;
        assert!(matches!(
            step(&g, &[&running], &settings(), now()),
            Step::Wait(_)
        ));
    }

    #[test]
    fn the_ladder_nudges_resends_reassigns_then_escalates_with_backoff() {
        let g = goal("");
        let s = settings();
        let first = run(&g, RunKind::First, RunOutcome::Ok, "2026-11-21T11:00:00Z");
        match step(&g, &[&first], &s, now()) {
            Step::Start {
                kind,
                session,
                attempt,
                ..
            } => {
                assert_eq!(
                    (kind, session.as_deref(), attempt),
                    (RunKind::Nudge, Some("s1"), 1)
                );
            }
            other => panic!("{other:?}"),
        }
        // Backoff: 2m after the first, 4m after the second.
        let just = run(&g, RunKind::First, RunOutcome::Ok, "2026-11-21T11:59:00Z");
        assert!(matches!(step(&g, &[&just], &s, now()), Step::Wait(_)));
        let failed = run(
            &g,
            RunKind::Nudge,
            RunOutcome::Error,
            "2026-11-21T11:10:00Z",
        );
        assert!(matches!(
            step(&g, &[&first, &failed], &s, now()),
            Step::Start {
                kind: RunKind::Resend,
                attempt: 2,
                ..
            }
        ));
        let resent = run(&g, RunKind::Resend, RunOutcome::Ok, "2026-11-21T11:20:00Z");
        assert!(matches!(
            step(&g, &[&first, &failed, &resent], &s, now()),
            Step::Start {
                kind: RunKind::Reassign,
                ..
            }
        ));
        let reassigned = run(
            &g,
            RunKind::Reassign,
            RunOutcome::Ok,
            "2026-11-21T11:30:00Z",
        );
        match step(&g, &[&first, &failed, &resent, &reassigned], &s, now()) {
            Step::Escalate { reason } => assert!(
                reason.starts_with(
                    "4 runs made no progress (first, nudge, resend, reassign): ended without a report 3 times, ended in an error once; the agent could not move it. Last result: nothing done. Look"
                ),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_reassign_step_takes_a_profile_the_retries_did_not_use() {
        let g = goal("");
        let s = settings();
        // The retries ran on the fallback (the main agent's limit sent
        // them there): the reassign goes back to the main agent.
        let on = |kind, at: &str| {
            let mut r = run(&g, kind, RunOutcome::Ok, at);
            r.agent = "codex".into();
            r
        };
        let runs = [
            on(RunKind::First, "2026-11-21T10:00:00Z"),
            on(RunKind::Nudge, "2026-11-21T10:10:00Z"),
            on(RunKind::Nudge, "2026-11-21T10:30:00Z"),
        ];
        let runs: Vec<&Run> = runs.iter().collect();
        match step(&g, &runs, &s, now()) {
            Step::Start {
                kind: RunKind::Reassign,
                agent,
                ..
            } => assert_eq!(agent, s.agent),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn progress_starts_the_ladder_over() {
        let before = goal("");
        let first = run(
            &before,
            RunKind::First,
            RunOutcome::Ok,
            "2026-11-21T11:00:00Z",
        );
        let after = goal("blockers: [waiting on review]");
        assert!(matches!(
            step(&after, &[&first], &settings(), now()),
            Step::Start {
                kind: RunKind::First,
                attempt: 0,
                ..
            }
        ));
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let s = settings();
        let minutes = |n| backoff(&s, n).num_minutes();
        assert_eq!(
            [minutes(0), minutes(1), minutes(2), minutes(3), minutes(5)],
            [0, 2, 4, 8, 30]
        );
    }
}
