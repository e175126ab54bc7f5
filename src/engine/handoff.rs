//! `handoff`: what a session leaves for the next — summary, state,
//! decisions, next actions, open questions, blockers, evidence
//! (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS").
//! The latest is kept in the goal (shown by `show`, the stewardship block
//! and the next run's instruction); every one is in the event log.

use super::{Saved, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Input, Result};
use crate::model::{Edit, Goal, GoalChange, Handoff, format_time};

/// Reads a handoff given as JSON: strict keys, bounded strings.
pub fn parse(text: &str) -> Result<Handoff> {
    let handoff: Handoff = serde_json::from_str(text.trim())
        .map_err(|err| Error::bad_input(Input::Handoff, format!("{err}")))?;
    Ok(handoff)
}

/// The handoff as the goal keeps it: checked, dated and signed by the
/// actor, tied to a node of the goal's plan when one is named.
pub fn prepare(
    ctx: &Context,
    goal: &Goal,
    mut handoff: Handoff,
    node: Option<String>,
) -> Result<Handoff> {
    if handoff.at.is_some() || handoff.by.is_some() {
        return Err(Error::bad_input(
            Input::Handoff,
            "`at` and `by` are steward's to write: leave them out",
        ));
    }
    handoff
        .validate()
        .map_err(|why| Error::bad_input(Input::Handoff, why))?;
    let node = node.or(handoff.node.take());
    if let Some(id) = &node {
        let known = goal
            .plan
            .as_ref()
            .is_some_and(|plan| plan.plan().find(id).is_some());
        if !known {
            return Err(Error::bad_input(
                Input::Node,
                format!("`{}` has no plan node {id}", goal.label),
            ));
        }
    }
    handoff.node = node;
    handoff.at = Some(format_time(ctx.now));
    handoff.by = Some(ctx.actor.as_str().to_string());
    Ok(handoff)
}

/// The history line of a handoff.
pub fn detail(handoff: &Handoff) -> String {
    let mut detail = crate::text::head(&crate::text::one_line(&handoff.summary), 200);
    if !handoff.next_actions.is_empty() {
        detail.push_str(&format!("; next: {}", handoff.next_actions.len()));
    }
    if !handoff.open_questions.is_empty() {
        detail.push_str(&format!(
            "; open questions: {}",
            handoff.open_questions.len()
        ));
    }
    detail
}

/// Records `handoff` on the goal `reference` names.
pub fn handoff(
    ctx: &Context,
    reference: &str,
    handoff: Handoff,
    node: Option<String>,
) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    let handoff = prepare(ctx, &loaded.goal, handoff, node)?;
    let change = GoalChange::new("handoff", detail(&handoff))
        .always()
        .with(Edit::Handoff(Box::new(handoff)));
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}
