//! `assess`: the agent records one stewardship assessment (seed tool
//! `goal_assess`). The rules are in `crate::rules::assessment`; this applies them
//! under the lock.

use super::work::NodeWork;
use super::{Saved, limits};
use crate::context::Context;
use crate::error::{Error, Input, Result};
use crate::model::plan::NodeStatus;
use crate::model::{Edit, GoalChange, ProgressField, format_time, progress_edits, record_ticks};
use crate::rules::assessment::{self, Report};

/// Records `report` on the goal `reference` names. A budget or bound the
/// assessment uses up takes effect at once. `dispatch_id` ties it to an
/// agent run; a dispatch reported with an id steward already counted (its
/// own run, or the same report again) is not counted twice.
pub fn assess(
    ctx: &Context,
    reference: &str,
    report: &Report,
    dispatch_id: Option<&str>,
) -> Result<Saved> {
    assess_with(ctx, reference, report, dispatch_id, Extra::default())
}

/// `assess --from-json`: the structured update in `text` (the last fenced
/// `json` block holding `overseerUpdate`) applied to the goal and its plan
/// node. The goal is `reference`, else the update's `goalId`, else the
/// goal of the run `dispatch_id`; the node is the update's `workNodeId`,
/// else the node that run was asked to work on.
pub fn assess_update(
    ctx: &Context,
    reference: Option<&str>,
    text: &str,
    dispatch_id: Option<&str>,
) -> Result<Saved> {
    let update = crate::model::plan::update::extract(text)
        .map_err(|why| Error::bad_input(Input::OverseerUpdate, why))?;
    let run = dispatch_id.and_then(|id| ctx.store.find_run(id).ok());
    let goal = match (reference, &update.goal) {
        (Some(given), Some(named)) => {
            let (a, b) = (ctx.store.resolve(given)?, ctx.store.resolve(named)?);
            if a.goal.id != b.goal.id {
                return Err(Error::bad_input(
                    Input::OverseerUpdate,
                    format!("the update is about `{named}`, not `{given}`"),
                ));
            }
            given.to_string()
        }
        (Some(given), None) => given.to_string(),
        (None, Some(named)) => named.clone(),
        (None, None) => match &run {
            Some(run) => run.goal_id.clone(),
            None => {
                return Err(Error::bad_input(
                    Input::OverseerUpdate,
                    "the update names no goal (goalId), and no run of steward's asked for it: give GOAL",
                ));
            }
        },
    };
    let node = update
        .node
        .clone()
        .or_else(|| run.as_ref().and_then(|r| r.node.clone()));
    let work = match (update.status, node) {
        (Some(status), Some(node)) => Some(NodeWork {
            node,
            status,
            reason: (status == NodeStatus::Blocked).then(|| {
                update
                    .blockers
                    .as_ref()
                    .filter(|b| !b.is_empty())
                    .map_or_else(|| update.summary.clone(), |b| b.join("; "))
            }),
        }),
        (Some(_), None) => {
            return Err(Error::bad_input(
                Input::OverseerUpdate,
                "overseerUpdate.status needs workNodeId: say which plan node it is about",
            ));
        }
        (None, _) => None,
    };
    let report = Report {
        summary: update.summary.clone(),
        next: update.next.clone(),
        blockers: update.blockers.clone(),
        ..Report::default()
    };
    let evidence = (!update.evidence.is_empty()).then(|| update.evidence.line());
    assess_with(
        ctx,
        &goal,
        &report,
        dispatch_id,
        Extra {
            work: work.as_ref(),
            evidence: evidence.as_deref(),
            handoff: update.handoff,
        },
    )
}

/// What a structured update brings beside the assessment: a plan node's
/// new status, the evidence, a handoff.
#[derive(Default)]
struct Extra<'a> {
    work: Option<&'a NodeWork>,
    evidence: Option<&'a str>,
    handoff: Option<crate::model::Handoff>,
}

/// The interactive session an agent's assessment comes from, as
/// `AGENT:SESSION`: its client puts the session's id in the environment of
/// the commands it runs (Claude Code 2.1.332: `CLAUDE_CODE_SESSION_ID`;
/// Codex: `CODEX_SESSION_ID`). Only an agent's, and only an id a command
/// line can carry.
fn interactive_session(ctx: &Context) -> Option<String> {
    if ctx.actor != crate::model::Actor::Agent {
        return None;
    }
    [
        ("claude", "CLAUDE_CODE_SESSION_ID"),
        ("codex", "CODEX_SESSION_ID"),
    ]
    .into_iter()
    .find_map(|(agent, var)| {
        let id = ctx
            .env
            .var(var)
            .filter(|id| crate::agents::is_session_id(id))?;
        Some(format!("{agent}:{id}"))
    })
}

/// An assessment with what a structured update brings beside it.
fn assess_with(
    ctx: &Context,
    reference: &str,
    report: &Report,
    dispatch_id: Option<&str>,
    extra: Extra<'_>,
) -> Result<Saved> {
    let Extra {
        work,
        evidence,
        handoff,
    } = extra;
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let handoff = handoff
        .map(|h| super::handoff::prepare(ctx, &loaded.goal, h, work.map(|w| w.node.clone())))
        .transpose()?;
    let node = work
        .map(|work| super::work::node_edits(&loaded.goal, work))
        .transpose()?;
    let mut report = report.clone();
    if dispatch_id.is_none() {
        report.session = interactive_session(ctx);
    }
    if report.dispatched
        && let Some(id) = dispatch_id
        && limits::dispatch_counted(ctx, &loaded.goal.id, id)?
    {
        report.dispatched = false;
    }
    if report.dispatched && !ctx.config.enabled {
        // The kill switch stops every new run, the agent's subagents too.
        return Err(Error::Disabled {
            from: ctx.source_of("enabled"),
            what: "start no subagents; assess without saying one was dispatched",
        });
    }
    let window = if report.dispatched {
        limits::dispatches_last_hour(ctx)?
    } else {
        0
    };
    let effects = assessment::assess(&loaded.goal, &report, &ctx.config, ctx.now, window)?;

    let mut detail = effects.detail.clone();
    if let Some((_, node_detail)) = &node
        && !node_detail.is_empty()
    {
        detail.push_str(&format!("; {node_detail}"));
    }
    if let Some(evidence) = evidence {
        detail.push_str(&format!("; evidence: {evidence}"));
    }
    if let Some(handoff) = &handoff {
        detail.push_str(&format!("; handoff: {}", super::handoff::detail(handoff)));
    }
    let mut change = GoalChange::new("assessed", detail)
        .always()
        .with_all(progress_edits(&loaded.goal.progress, &effects.progress));
    if let Some((edits, _)) = node {
        // The assessment's own status (blocked, failed) wins over the
        // plan's `verifying`.
        change.edits.extend(
            edits
                .into_iter()
                .filter(|e| effects.status.is_none() || !matches!(e, Edit::Status(_))),
        );
    }
    if let Some(id) = dispatch_id {
        change = change.for_run(id);
    }
    if let Some(waiting) = &effects.waiting {
        change.push(Edit::Waiting(waiting.clone()));
    }
    if let Some(handoff) = handoff {
        change.push(Edit::Handoff(Box::new(handoff)));
    }
    if let Some(blockers) = &effects.blockers
        && *blockers != loaded.goal.blockers
    {
        change.push(Edit::Blockers(blockers.clone()));
    }
    for &n in &effects.met {
        change.push(Edit::CriterionMet { n, met: true });
    }
    if !effects.met.is_empty() {
        change.push(Edit::Ticks(record_ticks(
            &loaded.goal.ticks,
            &effects.met,
            ctx.actor.as_str(),
            &format_time(ctx.now),
        )));
    }
    if let Some(status) = &effects.status {
        change.push(Edit::Status(status.clone()));
    }
    if let Some(escalation) = &effects.escalation {
        // The session that asks a person is woken with the answer: a
        // person's own session by its id (none: the run that asked, by
        // its record).
        if escalation.kind == "agent" {
            let session = report.session.clone().unwrap_or_default();
            if !session.is_empty() || loaded.goal.progress.wake_session.is_some() {
                change.push(Edit::Progress(ProgressField::WakeSession(session)));
            }
        }
        change.push(Edit::Escalation(Some(escalation.clone())));
    }
    let saved = tx
        .save(&loaded, change)?
        .expect("an assessment is always saved");
    if report.dispatched {
        tx.record_event(&saved.goal, "dispatched", &report.summary, dispatch_id);
    }
    let saved = limits::enforce(ctx, &mut tx, saved)?;
    let notices = super::finish(tx)?;
    Ok(Saved {
        goal: saved,
        changed: true,
        notices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;
    use crate::model::Status;

    #[test]
    fn an_assessment_is_written_with_its_history_line() {
        let store = Store::new();
        store.goal("ship", "", &["a", "b"]);
        let report = Report {
            summary: "tests pass".into(),
            met: vec![1],
            ..Report::default()
        };
        let saved = assess(&store.ctx(), "ship", &report, None).unwrap();
        assert_eq!(saved.goal.goal.progress.assessments, 1);
        assert!(saved.goal.goal.criteria[0].met);
        let text = store.read("state/goals/ship.md");
        assert!(text.contains("- [x] a\n"), "{text}");
        assert!(
            text.contains("2026-11-21T04:00:00Z agent assessed: tests pass; met 1"),
            "{text}"
        );
    }

    #[test]
    fn an_assessment_that_uses_up_the_budget_blocks_at_once() {
        let store = Store::new();
        store.goal("ship", "budget: {max_assessments: 1}", &["a"]);
        let report = Report {
            summary: "x".into(),
            ..Report::default()
        };
        let saved = assess(&store.ctx(), "ship", &report, None).unwrap();
        assert_eq!(saved.goal.goal.status, Status::Blocked);
        let err = assess(&store.ctx(), "ship", &report, None).unwrap_err();
        assert_eq!(err.exit_code(), 4, "{err}");
    }
}
