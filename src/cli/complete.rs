//! `steward complete`: the judge. The only way a goal reaches `completed`.

use clap::Args;

use super::{Output, args};
use crate::checks::CheckOutcome;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Actor, CheckKind, Goal, Status};
use crate::store::{Change, YamlValue, body, time_value};

/// Judge a goal done and close it: run every mechanical check now and
/// require each to pass and every acceptance criterion to be met (criteria
/// given with --met and those of passing checks count). Otherwise refuse
/// with exit 4, say what is missing, and change nothing.
///
/// A `manual` check stands for a person's judgement: it passes only when a
/// human runs this command (--actor user, the default).
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// Why the goal is done: the evidence
    #[arg(long, value_parser = args::one_line)]
    reason: String,

    /// Criterion N is met; repeat for more
    #[arg(long, value_name = "N", value_parser = args::criterion_number)]
    met: Vec<usize>,
}

pub fn run(ctx: &Context, args: CompleteArgs, out: &mut Output) -> Result<u8> {
    let before = ctx.store.resolve(&args.goal)?;
    refuse_unless_open(&before.goal)?;
    // Checks can take a while: run them before taking the lock.
    let checks: Vec<_> = before.goal.verification.iter().collect();
    let outcomes = super::tick::run_checks(ctx, &checks);

    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&before.goal.id)?;
    let goal = &loaded.goal;
    refuse_unless_open(goal)?;
    if goal.verification != before.goal.verification {
        return Err(Error::failure(format!(
            "the checks of `{}` changed while they ran; run the command again",
            goal.label
        )));
    }
    for &n in &args.met {
        if n > goal.criteria.len() {
            return Err(Error::usage(format!(
                "--met {n}: criterion {n} does not exist (`{}` has {} criteria)",
                goal.label,
                goal.criteria.len()
            )));
        }
    }
    let verdict = judge(ctx, goal, &outcomes, &args.met);
    if !verdict.missing.is_empty() {
        return Err(Error::refused(format!(
            "`{}` is not done, nothing was changed:\n  - {}",
            goal.label,
            verdict.missing.join("\n  - ")
        )));
    }
    let mut file = loaded.file.clone();
    for &n in &verdict.newly_met {
        file.edit_body(|body, _| body::set_met(body, n, true))?;
    }
    file.set(&["status"], YamlValue::Str("completed".to_string()))?;
    file.set(&["closed_reason"], YamlValue::Str(args.reason.clone()))?;
    file.set(&["closed_at"], time_value(ctx.now))?;
    let saved = tx.save(Some(&loaded), file, Change::new("completed", args.reason))?;
    super::finish(tx, out)?;
    super::report(ctx, out, saved, &loaded, "completed")?;
    Ok(0)
}

fn refuse_unless_open(goal: &Goal) -> Result<()> {
    match &goal.status {
        status if status.is_terminal() => Err(Error::refused(format!(
            "`{}` is already {status}",
            goal.label
        ))),
        Status::Unknown(status) => Err(Error::refused(format!(
            "`{}` has the unknown status `{status}`; fix it by hand first",
            goal.label
        ))),
        _ => Ok(()),
    }
}

/// What stands between the goal and `completed`, and the criteria the
/// checks and --met tick on the way.
struct Judgement {
    missing: Vec<String>,
    newly_met: Vec<usize>,
}

fn judge(ctx: &Context, goal: &Goal, outcomes: &[CheckOutcome], met: &[usize]) -> Judgement {
    let mut missing = Vec::new();
    let mut newly_met: Vec<usize> = met
        .iter()
        .copied()
        .filter(|n| !goal.criteria[n - 1].met)
        .collect();
    for (check, outcome) in goal.verification.iter().zip(outcomes) {
        let name = format!("check {} {}", check.kind, check.target);
        let passed = match (outcome, &check.kind) {
            (_, CheckKind::Manual) if ctx.actor == Actor::User => true,
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
