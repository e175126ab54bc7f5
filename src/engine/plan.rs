//! `plan prompt`, `plan import`, `plan repair-prompt`
//! (steward-guide(7), "PLANS"): the planner's prompts, and its answer
//! validated and written under `## Plan`.

use super::{Saved, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::plan::json::{self, Replaced};
use crate::model::plan::{self as plans, Plan};
use crate::model::{Edit, Goal, GoalChange, Status};

/// The planner prompt for the goal `reference` names.
pub fn prompt(ctx: &Context, reference: &str) -> Result<String> {
    let loaded = ctx.store.resolve(reference)?;
    Ok(plans::prompt::planner(
        &loaded.goal,
        &ctx.root.display().to_string(),
    ))
}

/// The plan in `text`, or every problem with its JSON path.
/// `plan show`: `reference`'s goal and its plan, when it has one.
pub fn show(ctx: &Context, reference: &str) -> Result<(Goal, Option<Plan>)> {
    let goal = ctx.store.resolve(reference)?.goal;
    let plan = goal.plan.as_ref().map(|section| section.plan().clone());
    Ok((*goal, plan))
}

pub fn validate(text: &str) -> Result<Plan> {
    json::validate(text).map_err(|problems| Error::InvalidPlan {
        problems: problems.iter().map(ToString::to_string).collect(),
    })
}

/// The repair prompt for the planner's answer `text`; `None` when the
/// answer is a valid plan.
pub fn repair_prompt(ctx: &Context, reference: &str, text: &str) -> Result<Option<String>> {
    ctx.store.resolve(reference)?;
    Ok(match json::validate(text) {
        Ok(_) => None,
        Err(problems) => Some(plans::prompt::repair(&problems, text)),
    })
}

/// A plan written, and what it replaced.
#[derive(Debug)]
pub struct Imported {
    pub saved: Saved,
    /// `None` for a goal that had no plan.
    pub replaced: Option<Replaced>,
}

/// Validates the planner's answer `text` and writes it as the plan of the
/// goal `reference` names; nothing is written when it is not valid. A plan
/// replacing another keeps the status of the nodes whose ids survive.
pub fn import(ctx: &Context, reference: &str, text: &str) -> Result<Imported> {
    let plan = validate(text)?;
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    let (change, replaced) = plan_change(&loaded.goal, plan);
    let written = tx.save(&loaded, change)?;
    Ok(Imported {
        saved: super::saved(tx, written, loaded)?,
        replaced,
    })
}

/// The change that makes `plan` the goal's plan, keeping the status of the
/// nodes of the plan it replaces, and what it replaced.
pub fn plan_change(goal: &Goal, mut plan: Plan) -> (GoalChange, Option<Replaced>) {
    let replaced = goal
        .plan
        .as_ref()
        .map(|old| json::carry_over(&mut plan, old.plan()));
    let counts = count(&plan);
    let detail = match &replaced {
        None => format!("plan of {counts}"),
        Some(replaced) => format!("plan replaced, now {counts}: {replaced}"),
    };
    let mut change = GoalChange::new("planned", detail);
    if plan.is_done() && matches!(goal.status, Status::Active | Status::Stalled) {
        change.push(Edit::Status(Status::Verifying));
    }
    change.push(Edit::Plan(plan));
    (change, replaced)
}

/// "2 phases, 3 tasks, 4 subtasks".
pub fn count(plan: &Plan) -> String {
    let mut counts = [0usize; 3];
    for node in &plan.nodes {
        counts[node.level.depth()] += 1;
    }
    let names = ["phase", "task", "subtask"];
    counts
        .iter()
        .zip(names)
        .filter(|(n, _)| **n > 0)
        .map(|(n, name)| format!("{n} {name}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;

    const PLAN: &str = r#"{"phases": [{"id": "P1", "name": "Build", "acceptance": ["it builds"],
        "tasks": [{"id": "T1.1", "name": "Write it", "acceptance": ["written"]},
                  {"id": "T1.2", "name": "Test it", "acceptance": ["tested"], "deps": ["T1.1"]}]}]}"#;

    #[test]
    fn an_import_writes_the_section_before_the_history() {
        let store = Store::new();
        store.goal("ship", "", &["shipped"]);
        let imported = import(&store.ctx(), "ship", PLAN).unwrap();
        assert!(imported.replaced.is_none());
        let text = store.read("state/goals/ship.md");
        assert!(
            text.contains("- [ ] shipped\n\n## Plan\n\n- [ ] P1 Build\n  - accept: it builds\n  - [ ] T1.1 Write it\n    - accept: written\n  - [ ] T1.2 Test it · after T1.1\n    - accept: tested\n\n## History\n"),
            "{text}"
        );
        assert!(
            text.contains("agent planned: plan of 1 phase, 2 tasks"),
            "{text}"
        );
        let section = imported.saved.goal.goal.plan.unwrap();
        let plan = section.plan();
        assert_eq!(plan.next_work()[0].id, "T1.1");
    }

    #[test]
    fn an_invalid_plan_writes_nothing() {
        let store = Store::new();
        store.goal("ship", "", &["shipped"]);
        let before = store.read("state/goals/ship.md");
        let err = import(&store.ctx(), "ship", r#"{"phases": [{"id": "P1"}]}"#).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(message.contains("$.phases[0].name: missing"), "{message}");
        assert!(
            message.contains("$.phases[0].acceptance: missing"),
            "{message}"
        );
        assert_eq!(store.read("state/goals/ship.md"), before);
    }

    #[test]
    fn a_replaced_plan_keeps_what_was_done_and_says_what_changed() {
        let store = Store::new();
        store.goal("ship", "", &["shipped"]);
        import(&store.ctx(), "ship", PLAN).unwrap();
        crate::engine::work::work(
            &store.ctx(),
            "ship",
            &crate::engine::work::NodeWork {
                node: "T1.1".into(),
                status: plans::NodeStatus::Done,
                reason: None,
            },
        )
        .unwrap();
        let second = PLAN
            .replace(
                r#""id": "T1.2", "name": "Test it""#,
                r#""id": "T1.3", "name": "Test it well""#,
            )
            .replace(r#""deps": ["T1.1"]"#, r#""deps": []"#);
        let imported = import(&store.ctx(), "ship", &second).unwrap();
        assert_eq!(
            imported.replaced.unwrap().to_string(),
            "added T1.3; removed T1.2; 2 kept their status"
        );
        let text = store.read("state/goals/ship.md");
        assert!(text.contains("  - [x] T1.1 Write it\n"), "{text}");
        assert!(text.contains("- [ ] P1 Build · in progress\n"), "{text}");
    }
}
