//! `work`: a plan node starts, is done, blocked or cancelled. Rollups go up
//! with it (steward-design(7), "Rollups"); when every phase is done the goal
//! goes to `verifying`, and the judge still decides.

use super::{Saved, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::plan::NodeStatus;
use crate::model::{Edit, Goal, GoalChange, Status};

/// A node's new status; `Block` needs a reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeWork {
    pub node: String,
    pub status: NodeStatus,
    /// Why it is blocked, or a note on the change.
    pub reason: Option<String>,
}

/// Changes one node of the goal `reference` names.
pub fn work(ctx: &Context, reference: &str, work: &NodeWork) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    refuse_terminal(&loaded.goal)?;
    let (edits, detail) = node_edits(&loaded.goal, work)?;
    let change = GoalChange::new("work", detail).with_all(edits);
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

/// The edits that give `work.node` its new status, roll it up, and move the
/// goal to `verifying` when the whole plan is done; and the history detail.
pub fn node_edits(goal: &Goal, work: &NodeWork) -> Result<(Vec<Edit>, String)> {
    let Some(plan) = goal
        .plan
        .as_ref()
        .map(crate::model::plan::PlanSection::plan)
    else {
        return Err(Error::BadRequest(format!(
            "`{}` has no plan: write one with `steward plan import {} FILE` (`steward plan prompt {}` asks an agent for it)",
            goal.label, goal.label, goal.label
        )));
    };
    let Some(index) = plan.find(&work.node) else {
        let ids: Vec<&str> = plan.nodes.iter().map(|n| n.id.as_str()).collect();
        return Err(Error::BadRequest(format!(
            "the plan of `{}` has no node {}; its nodes: {}",
            goal.label,
            work.node,
            crate::text::head(&ids.join(", "), 200)
        )));
    };
    let node = &plan.nodes[index];
    if node.status == NodeStatus::Cancelled && work.status != NodeStatus::Cancelled {
        return Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!(
                "node {} is cancelled; to take it up again, edit its line (`steward edit {}`)",
                node.id, goal.label
            ),
        });
    }
    if work.status == NodeStatus::Blocked && work.reason.as_deref().is_none_or(str::is_empty) {
        return Err(Error::BadInput {
            input: crate::error::Input::Reason,
            why: format!("say why {} is blocked", node.id),
        });
    }
    let reason = (work.status == NodeStatus::Blocked)
        .then(|| work.reason.clone())
        .flatten();
    if node.status == work.status && node.reason == reason {
        return Ok((Vec::new(), String::new()));
    }
    let mut detail = format!("{} {} → {}", node.id, node.status, work.status);
    if let Some(note) = &work.reason {
        detail.push_str(&format!(" ({note})"));
    }
    let open_children = node
        .children
        .iter()
        .filter(|&&c| !plan.nodes[c].status.is_closed())
        .count();
    if work.status == NodeStatus::Done && open_children > 0 {
        detail.push_str(&format!(
            "; override: {open_children} of its {} {}s not done",
            node.children.len(),
            match node.level {
                crate::model::plan::Level::Phase => "task",
                _ => "subtask",
            }
        ));
    }
    let mut after = plan.clone();
    let rollups = after.set_status(&work.node, work.status, reason.clone());
    let mut edits = vec![Edit::PlanNode {
        id: work.node.clone(),
        status: work.status,
        reason,
    }];
    for rollup in &rollups {
        detail.push_str(&format!("; {} {} → {}", rollup.id, rollup.from, rollup.to));
        edits.push(Edit::PlanNode {
            id: rollup.id.clone(),
            status: rollup.to,
            reason: None,
        });
    }
    if after.is_done() && matches!(goal.status, Status::Active | Status::Stalled) {
        edits.push(Edit::Status(Status::Verifying));
        detail.push_str(&format!(
            "; every phase is done: verifying (the judge decides: steward complete {})",
            goal.label
        ));
    }
    Ok((edits, detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;

    const PLANNED: &str = "---\nid: ship-0000-4000-8000-000000000000\nlabel: ship\n---\n## Acceptance criteria\n\n- [ ] shipped\n\n## Plan\n\n<!-- keep this note -->\n- [ ] P1 Build\n  - accept: it builds\n  - [ ] T1.1   Write it   · after T0\n    - accept: written\n  - [ ] T0 Think first\n    - accept: thought\n";

    fn start(store: &Store, node: &str, status: NodeStatus, reason: Option<&str>) -> Result<Saved> {
        work(
            &store.ctx(),
            "ship",
            &NodeWork {
                node: node.into(),
                status,
                reason: reason.map(str::to_string),
            },
        )
    }

    #[test]
    fn a_status_change_rewrites_its_line_and_rolled_up_parents_only() {
        let store = Store::new();
        store.write("state/goals/ship.md", PLANNED);
        start(&store, "T0", NodeStatus::Done, None).unwrap();
        let text = store.read("state/goals/ship.md");
        let expected_plan = "<!-- keep this note -->\n- [ ] P1 Build · in progress\n  - accept: it builds\n  - [ ] T1.1   Write it   · after T0\n    - accept: written\n  - [x] T0 Think first\n    - accept: thought\n";
        assert!(text.contains(expected_plan), "{text}");
        assert!(
            text.contains("agent work: T0 todo → done; P1 todo → in_progress"),
            "{text}"
        );
        let saved = start(&store, "T1.1", NodeStatus::Done, None).unwrap();
        assert_eq!(saved.goal.goal.status, Status::Verifying);
        let text = store.read("state/goals/ship.md");
        assert!(
            text.contains("  - [x] T1.1   Write it   · after T0\n"),
            "{text}"
        );
        assert!(text.contains("- [x] P1 Build\n"), "{text}");
    }

    #[test]
    fn refusals_say_what_to_do() {
        let store = Store::new();
        store.write("state/goals/ship.md", PLANNED);
        let unknown = start(&store, "T9", NodeStatus::Done, None).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("has no node T9; its nodes: P1, T1.1, T0"),
            "{unknown}"
        );
        let reasonless = start(&store, "T0", NodeStatus::Blocked, None).unwrap_err();
        let said = reasonless.to_string();
        assert!(said.contains("reason: say why T0 is blocked"), "{said}");
        start(&store, "T0", NodeStatus::Cancelled, None).unwrap();
        let revived = start(&store, "T0", NodeStatus::InProgress, None).unwrap_err();
        assert!(revived.to_string().contains("is cancelled"), "{revived}");
        store.goal("flat", "", &["a"]);
        let flat = work(
            &store.ctx(),
            "flat",
            &NodeWork {
                node: "P1".into(),
                status: NodeStatus::Done,
                reason: None,
            },
        )
        .unwrap_err();
        assert!(flat.to_string().contains("has no plan"), "{flat}");
    }
}
