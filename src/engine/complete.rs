//! `complete`: the judge. The only way a goal reaches `completed`.

use super::{Saved, checking};
use crate::checks::CheckOutcome;
use crate::config::Unchecked;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{
    Actor, Basis, CheckKind, CheckedCheck, Edit, Goal, GoalChange, JudgedCriterion, PersonWait,
    Receipt, Status, Waiting, format_time, record_ticks,
};

/// What the caller claims: why the goal is done, and criteria it says are
/// met.
#[derive(Debug, Clone, Default)]
pub struct CompleteRequest {
    pub reason: String,
    pub met: Vec<usize>,
    /// The agent run this belongs to, for its event.
    pub dispatch_id: Option<String>,
}

/// What the judge decided.
#[derive(Debug)]
pub enum Judged {
    /// The goal is completed, with its receipt.
    Completed(Saved),
    /// Everything holds but some criteria rest on an agent's word and
    /// `judge.unchecked` is `person`: the goal waits in `verifying` for a
    /// person's `complete`.
    AwaitsPerson { saved: Saved, criteria: Vec<usize> },
    /// Everything holds in the run's worktree and `dispatch.merge` merges:
    /// the goal waits in `verifying` for steward to merge its branch once
    /// the run ends, and for the judge in the root (the wait's reason says
    /// which branch).
    AwaitsMerge(Saved),
}

/// Runs every mechanical check now and closes the goal when each passes
/// and every criterion is met, recording a receipt of what was judged;
/// otherwise refuses (exit 4) naming what is missing, and changes nothing.
/// A goal with a `manual` check is a person's to complete.
pub fn complete(ctx: &Context, reference: &str, request: &CompleteRequest) -> Result<Judged> {
    complete_by(ctx, ctx.actor, reference, request)
}

/// The judge, for `actor` (steward judges a merged branch in the root).
pub(crate) fn complete_by(
    ctx: &Context,
    actor: Actor,
    reference: &str,
    request: &CompleteRequest,
) -> Result<Judged> {
    let before = ctx.store.resolve(reference)?;
    refuse_unless_open(&before.goal)?;
    if before
        .goal
        .verification
        .iter()
        .any(|c| c.kind == CheckKind::Manual)
    {
        super::authority::person_only(ctx, "complete a goal with a manual check", || {
            format!("steward complete {} --reason \"...\"", before.goal.label)
        })?;
    }
    // Checks can take a while: run them before taking the lock.
    let checks: Vec<_> = before.goal.verification.iter().collect();
    // In the worktree of the goal's open run, if it works in one.
    let at = super::worktree::check_sites(ctx, &[&before.goal]).remove(0);
    let outcomes = checking::run_at(ctx, &checks, &at);

    let mut tx = if actor == ctx.actor {
        ctx.transaction()?
    } else {
        ctx.transaction_by(actor)?
    };
    let loaded = super::trust::refind(ctx, &mut tx, &before)?;
    refuse_unless_open(&loaded.goal)?;
    // A bound is hard: past its deadline (or cost, or iterations) a goal
    // fails, whatever its checks say now.
    if let Some(why) = crate::rules::watchdog::crossed_bound(&loaded.goal, ctx.now) {
        let label = loaded.goal.label.clone();
        super::limits::enforce(ctx, &mut tx, loaded)?;
        super::finish(tx)?;
        return Err(Error::BoundCrossed { label, why });
    }
    let goal = &loaded.goal;
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
                input: crate::error::Input::Met,
                n,
                label: goal.label.clone(),
                count: goal.criteria.len(),
            });
        }
    }
    let judgement = judge(ctx, actor, goal, &outcomes, &request.met);
    if !judgement.missing.is_empty() {
        return Err(Error::NotDone {
            label: goal.label.clone(),
            missing: judgement.missing,
        });
    }
    let at = format_time(ctx.now);
    let ticks = record_ticks(&goal.ticks, &judgement.newly_met, actor.as_str(), &at);
    let mut change = GoalChange::new("completed", request.reason.clone());
    if let Some(id) = &request.dispatch_id {
        change = change.for_run(id);
    }
    let mut change = change.with_all(
        judgement
            .newly_met
            .iter()
            .map(|&n| Edit::CriterionMet { n, met: true }),
    );
    if ticks != goal.ticks {
        change.push(Edit::Ticks(ticks));
    }
    let unchecked: Vec<usize> = judgement.receipt.unchecked().map(|c| c.n).collect();
    if ctx.config.judge_unchecked == Unchecked::Person
        && actor != Actor::User
        && !unchecked.is_empty()
    {
        let numbers: Vec<String> = unchecked.iter().map(usize::to_string).collect();
        let mut waiting = GoalChange::new(
            "awaiting a person",
            format!(
                "criteria {} rest on the agent's word (judge.unchecked: person); {}",
                numbers.join(", "),
                request.reason
            ),
        )
        .with_all(change.edits);
        waiting.dispatch_id = request.dispatch_id.clone();
        if goal.status != Status::Verifying {
            waiting.push(Edit::Status(Status::Verifying));
        }
        // No agent is offered the goal again: the person completes it.
        waiting.push(Edit::Waiting(Some(Waiting::for_person(
            PersonWait::Judgment,
            format!(
                "a person's complete: criteria {} rest on the agent's word",
                numbers.join(", ")
            ),
            ctx.now,
        ))));
        let written = tx.save(&loaded, waiting)?;
        return Ok(Judged::AwaitsPerson {
            saved: super::saved(tx, written, loaded)?,
            criteria: unchecked,
        });
    }
    // Judged in a run's worktree, with a branch to merge: steward merges
    // it once the run ends, and the judge in the root closes the goal.
    if actor != Actor::User
        && let Some((wait, run)) = super::worktree::merge_wait(ctx, goal)
    {
        let worktree = run.worktree.as_ref().expect("a merge wait has a worktree");
        let commit = super::worktree::judged_head(ctx, worktree).map_err(|why| {
            Error::WrongStatus {
                label: goal.label.clone(),
                why: format!(
                    "passes its checks, but {why}: commit the work on the branch, then ask again (the judge passes what will be merged)"
                ),
            }
        })?;
        let mut waiting = GoalChange::new(
            "awaiting merge",
            format!("checks pass in the run's worktree; {}", request.reason),
        )
        .with_all(change.edits);
        waiting.dispatch_id = request.dispatch_id.clone();
        if goal.status != Status::Verifying {
            waiting.push(Edit::Status(Status::Verifying));
        }
        waiting.push(Edit::Waiting(Some(wait)));
        let written = tx.save(&loaded, waiting)?;
        if written.is_some() {
            super::worktree::mark_judged(ctx, &mut tx, &run, &commit)?;
        }
        return Ok(Judged::AwaitsMerge(super::saved(tx, written, loaded)?));
    }
    // Judged in a run's worktree, its branch left for a person
    // (`dispatch.merge: none`): what passed is what is committed there.
    let mut reason = request.reason.clone();
    if actor != Actor::User
        && let Some(run) = super::worktree::open_run(ctx, &goal.id)
        && let Some(worktree) = &run.worktree
    {
        let commit = super::worktree::judged_head(ctx, worktree).map_err(|why| {
            Error::WrongStatus {
                label: goal.label.clone(),
                why: format!(
                    "passes its checks, but {why}: commit the work on the branch, then ask again (the judge passes what is committed)"
                ),
            }
        })?;
        reason.push_str(&format!(
            " (judged on branch {} at {})",
            worktree.branch,
            &commit[..commit.len().min(12)]
        ));
    }
    change.push(Edit::Status(Status::Completed));
    change.push(Edit::Closed {
        reason,
        at: ctx.now,
    });
    change.push(Edit::Receipt(judgement.receipt));
    let written = tx.save(&loaded, change)?;
    Ok(Judged::Completed(super::saved(tx, written, loaded)?))
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

/// What stands between the goal and `completed`, the criteria the checks
/// and `met` tick on the way, and the receipt if nothing does.
struct Judgement {
    missing: Vec<String>,
    newly_met: Vec<usize>,
    receipt: Receipt,
}

fn judge(
    ctx: &Context,
    actor: Actor,
    goal: &Goal,
    outcomes: &[CheckOutcome],
    met: &[usize],
) -> Judgement {
    let person = actor == Actor::User;
    let mut missing = Vec::new();
    let mut newly_met: Vec<usize> = met
        .iter()
        .copied()
        .filter(|n| !goal.criteria[n - 1].met)
        .collect();
    let mut checked_criteria = Vec::new();
    let mut checks = Vec::new();
    for (check, outcome) in goal.verification.iter().zip(outcomes) {
        let name = format!("check {} {}", check.kind, check.target);
        let result = match (outcome, &check.kind) {
            // Only a person gets this far with a manual check.
            (_, CheckKind::Manual) => Some(("person", "a person judged it".to_string())),
            (CheckOutcome::Passed { detail }, _) => Some(("passed", detail.clone())),
            (CheckOutcome::Failed { detail }, _) => {
                missing.push(format!("{name} fails: {detail}"));
                None
            }
            (CheckOutcome::Pending { detail }, _) => {
                missing.push(format!("{name} has not finished: {detail}"));
                None
            }
            (CheckOutcome::Invalid { reason }, _) => {
                missing.push(format!("{name} cannot run: {reason}"));
                None
            }
        };
        let Some((result, detail)) = result else {
            continue;
        };
        checks.push(CheckedCheck {
            kind: check.kind.as_str().to_string(),
            target: check.target.clone(),
            criterion: check.criterion,
            result: result.to_string(),
            detail,
        });
        if let Some(n) = check.criterion
            && goal.criteria.get(n - 1).is_some()
        {
            checked_criteria.push(n);
            if !goal.criteria[n - 1].met && !newly_met.contains(&n) {
                newly_met.push(n);
            }
        }
    }
    if goal.criteria.is_empty() {
        missing.push(
            "the goal has no acceptance criteria: a person adds one with `steward update --add-criterion`"
                .to_string(),
        );
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
    let at = format_time(ctx.now);
    let criteria = goal
        .criteria
        .iter()
        .map(|criterion| {
            let n = criterion.n;
            let tick = goal.ticks.iter().find(|t| t.n == n);
            let (ticked_by, ticked_at) = match (tick, newly_met.contains(&n)) {
                (_, true) => (Some(actor.as_str().to_string()), Some(at.clone())),
                (Some(tick), false) => (Some(tick.by.clone()), Some(tick.at.clone())),
                (None, false) => (None, None),
            };
            let basis = if checked_criteria.contains(&n) {
                Basis::Check
            } else if person || ticked_by.as_deref() == Some(Actor::User.as_str()) {
                Basis::Person
            } else if ticked_by.is_some() {
                Basis::AgentsWord
            } else {
                Basis::ByHand
            };
            JudgedCriterion {
                n,
                text: criterion.text.clone(),
                basis,
                ticked_by,
                ticked_at,
            }
        })
        .collect();
    Judgement {
        missing,
        newly_met,
        receipt: Receipt {
            judged_at: at,
            judged_by: actor.as_str().to_string(),
            checks,
            criteria,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{NOW, Store};

    fn request(met: &[usize]) -> CompleteRequest {
        CompleteRequest {
            reason: "shipped".into(),
            met: met.to_vec(),
            dispatch_id: None,
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
        let Judged::Completed(saved) = complete(&store.ctx(), "docs", &request(&[2])).unwrap()
        else {
            panic!("not completed");
        };
        assert_eq!(saved.goal.goal.status, Status::Completed);
        let receipt = saved.goal.goal.receipt.as_ref().expect("a receipt");
        assert_eq!(receipt.checks[0].result, "passed");
        assert_eq!(receipt.criteria[0].basis, Basis::Check);
        assert_eq!(receipt.criteria[1].basis, Basis::AgentsWord);
        assert_eq!(receipt.criteria[1].ticked_by.as_deref(), Some("agent"));
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
        assert_eq!(err.exit_code(), 4);
        assert!(
            err.to_string()
                .contains("only a person may complete a goal with a manual check"),
            "{err}"
        );
        let person = store.ctx_at(NOW, "user");
        assert!(complete(&person, "ok", &request(&[1])).is_ok());
    }
}
