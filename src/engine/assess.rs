//! `assess`: the agent records one stewardship assessment (seed tool
//! `goal_assess`). The rules are in `crate::assessment`; this applies them
//! under the lock.

use super::{Saved, limits};
use crate::assessment::{self, Report};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Edit, GoalChange, format_time, progress_edits, record_ticks};

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
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(reference)?;
    let mut report = report.clone();
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
            what: "start no subagents; assess without --dispatched",
        });
    }
    let window = if report.dispatched {
        limits::dispatches_last_hour(ctx)?
    } else {
        0
    };
    let effects = assessment::assess(&loaded.goal, &report, &ctx.config, ctx.now, window)?;

    let mut change = GoalChange::new("assessed", effects.detail.clone())
        .always()
        .with_all(progress_edits(&loaded.goal.progress, &effects.progress));
    if let Some(id) = dispatch_id {
        change = change.for_run(id);
    }
    if let Some(waiting) = &effects.waiting {
        change.push(Edit::Waiting(waiting.clone()));
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
