//! `complete`: the judge. The only way a goal reaches `completed`.

use super::{Saved, checking};
use crate::checks::CheckOutcome;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Actor, CheckKind, Edit, Goal, GoalChange, Status};

/// What the caller claims: why the goal is done, and criteria it says are
/// met.
#[derive(Debug, Clone, Default)]
pub struct CompleteRequest {
    pub reason: String,
    pub met: Vec<usize>,
}

/// Runs every mechanical check now and closes the goal when each passes
/// and every criterion is met; otherwise refuses (exit 4) naming what is
/// missing, and changes nothing. A `manual` check passes only for a person.
pub fn complete(ctx: &Context, reference: &str, request: &CompleteRequest) -> Result<Saved> {
    let before = ctx.store.resolve(reference)?;
    refuse_unless_open(&before.goal)?;
    // Checks can take a while: run them before taking the lock.
    let checks: Vec<_> = before.goal.verification.iter().collect();
    let outcomes = checking::run(ctx, &checks);

    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&before.goal.id)?;
    let goal = &loaded.goal;
    refuse_unless_open(goal)?;
    if goal.verification != before.goal.verification {
        return Err(Error::ChangedMeanwhile {
            path: loaded.file.path.clone(),
            what: format!("the checks of `{}` changed while they ran", goal.label),
            hint: "run the command again".to_string(),
        });
    }
    for &n in &request.met {
        if n == 0 || n > goal.criteria.len() {
            return Err(Error::NoSuchCriterion {
                option: "--met",
                n,
                label: goal.label.clone(),
                count: goal.criteria.len(),
            });
        }
    }
    let judgement = judge(ctx.actor, goal, &outcomes, &request.met);
    if !judgement.missing.is_empty() {
        return Err(Error::NotDone {
            label: goal.label.clone(),
            missing: judgement.missing,
        });
    }
    let change = GoalChange::new("completed", request.reason.clone())
        .with_all(
            judgement
                .newly_met
                .iter()
                .map(|&n| Edit::CriterionMet { n, met: true }),
        )
        .with(Edit::Status(Status::Completed))
        .with(Edit::Closed {
            reason: request.reason.clone(),
            at: ctx.now,
        });
    let written = tx.save(&loaded, change)?;
    super::saved(tx, written, loaded)
}

fn refuse_unless_open(goal: &Goal) -> Result<()> {
    match &goal.status {
        status if status.is_terminal() => Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!("is already {status}"),
        }),
        Status::Unknown(status) => Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!("has the unknown status `{status}`; fix it by hand first"),
        }),
        _ => Ok(()),
    }
}

/// What stands between the goal and `completed`, and the criteria the
/// checks and `met` tick on the way.
struct Judgement {
    missing: Vec<String>,
    newly_met: Vec<usize>,
}

fn judge(actor: Actor, goal: &Goal, outcomes: &[CheckOutcome], met: &[usize]) -> Judgement {
    let mut missing = Vec::new();
    let mut newly_met: Vec<usize> = met
        .iter()
        .copied()
        .filter(|n| !goal.criteria[n - 1].met)
        .collect();
    for (check, outcome) in goal.verification.iter().zip(outcomes) {
        let name = format!("check {} {}", check.kind, check.target);
        let passed = match (outcome, &check.kind) {
            (_, CheckKind::Manual) if actor == Actor::User => true,
            (_, CheckKind::Manual) => {
                missing.push(format!("{name}: a manual check needs a person; ask the human to run `steward complete {}`", goal.label));
                false
            }
            (CheckOutcome::Passed { .. }, _) => true,
            (CheckOutcome::Failed { detail }, _) => {
                missing.push(format!("{name} fails: {detail}"));
                false
            }
            (CheckOutcome::Invalid { reason }, _) => {
                missing.push(format!("{name} cannot run: {reason}"));
                false
            }
        };
        if passed
            && let Some(n) = check.criterion
            && goal.criteria.get(n - 1).is_some_and(|c| !c.met)
            && !newly_met.contains(&n)
        {
            newly_met.push(n);
        }
    }
    for criterion in &goal.criteria {
        if !criterion.met && !newly_met.contains(&criterion.n) {
            missing.push(format!(
                "criterion {} is not met: {}",
                criterion.n, criterion.text
            ));
        }
    }
    newly_met.sort_unstable();
    newly_met.dedup();
    Judgement { missing, newly_met }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{NOW, Store};

    fn request(met: &[usize]) -> CompleteRequest {
        CompleteRequest {
            reason: "shipped".into(),
            met: met.to_vec(),
        }
    }

    #[test]
    fn a_goal_with_a_passing_check_and_every_criterion_met_completes() {
        let store = Store::new();
        store.write("site/index.html", "<h1>hi</h1>");
        store.goal(
            "docs",
            "verification:\n  - type: file_exists\n    target: site/index.html\n    criterion: 1",
            &["built", "reviewed"],
        );
        let saved = complete(&store.ctx(), "docs", &request(&[2])).unwrap();
        assert_eq!(saved.goal.goal.status, Status::Completed);
        assert!(saved.goal.goal.all_criteria_met());
        assert!(
            saved
                .goal
                .file
                .path
                .starts_with(store.root().join("state/goals/closed"))
        );
    }

    #[test]
    fn an_unmet_criterion_or_a_failing_check_is_refused_and_nothing_changes() {
        let store = Store::new();
        store.goal(
            "docs",
            "verification:\n  - type: file_exists\n    target: site/index.html",
            &["built"],
        );
        let before = store.read("state/goals/docs.md");
        let err = complete(&store.ctx(), "docs", &request(&[1])).unwrap_err();
        assert_eq!(err.exit_code(), 4);
        assert!(
            err.to_string()
                .contains("check file_exists site/index.html fails"),
            "{err}"
        );
        assert_eq!(store.read("state/goals/docs.md"), before);
    }

    #[test]
    fn a_manual_check_needs_a_person() {
        let store = Store::new();
        store.goal(
            "ok",
            "verification:\n  - type: manual\n    target: looks right",
            &["a"],
        );
        let err = complete(&store.ctx(), "ok", &request(&[1])).unwrap_err();
        assert!(
            err.to_string().contains("a manual check needs a person"),
            "{err}"
        );
        let person = store.ctx_at(NOW, "user");
        assert!(complete(&person, "ok", &request(&[1])).is_ok());
    }
}
