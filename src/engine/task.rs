//! Obligations of spawned subagents: spawned, ended, delivered, dismissed,
//! resolved from a message; and what their transitions do to linked goals
//! (steward-guide(7), "OBLIGATIONS: WHAT SPAWNED SUBAGENTS OWE").

use super::{Notices, limits};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::book::{self, Book, BookError, Ending, Key, Spawn, Transition};
use crate::model::{
    Actor, Edit, Goal, GoalChange, Obligation, ObligationStatus, ProgressField, Status,
};
use crate::store::{LoadedGoal, Transaction};

/// What the harness says about a spawned subagent.
#[derive(Debug, Clone, Default)]
pub struct SpawnRequest {
    pub label: String,
    /// The goal it serves; else linked by its label's prefix.
    pub goal: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub pid: Option<u32>,
    /// How long it may run; `None`: `obligations.default_timeout`.
    pub timeout_secs: Option<u64>,
    pub summary: Option<String>,
}

/// The obligations after a task verb, and the transitions it made.
#[derive(Debug)]
pub struct TaskOutcome {
    pub book: Book,
    pub transitions: Vec<Transition>,
    /// What could not be done and did not stop the verb (an ambiguous
    /// link, a tag naming no obligation), then the transaction's notices.
    pub warnings: Vec<String>,
    pub notices: Notices,
    /// The linked goals the transitions moved (a failure that blocked one).
    pub moved: Vec<GoalMoved>,
}

impl TaskOutcome {
    pub fn obligations(&self) -> impl Iterator<Item = &Obligation> {
        self.transitions.iter().filter_map(|t| self.book.get(&t.id))
    }
}

/// A subagent was spawned: it now owes a result. Returns its id with the
/// outcome.
pub fn spawned(ctx: &Context, request: &SpawnRequest) -> Result<(String, TaskOutcome)> {
    let mut tx = ctx.transaction()?;
    let mut warnings = Vec::new();
    let goal = match &request.goal {
        Some(reference) => {
            let loaded = tx.resolve(reference)?;
            if loaded.goal.status.is_terminal() {
                return Err(Error::GoalTakesNoTasks {
                    label: loaded.goal.label,
                    status: loaded.goal.status.to_string(),
                });
            }
            Some(*loaded.goal)
        }
        None => link_by_label(ctx, &request.label, &mut warnings),
    };
    let mut book = tx.store().obligations()?;
    let spawn = Spawn {
        label: request.label.clone(),
        goal: goal.as_ref().map(|g| (g.id.clone(), g.label.clone())),
        agent: request.agent.clone(),
        session: request.session.clone(),
        pid: request.pid,
        timeout_secs: request
            .timeout_secs
            .unwrap_or(ctx.config.obligations.default_timeout.as_secs()),
        summary: request.summary.clone(),
        machine: ctx.machine_id(),
    };
    let (id, transition) = book.spawn(spawn, ctx.now, book::new_id);
    let transitions: Vec<Transition> = transition.into_iter().collect();
    tx.save_obligations(&book, &transitions)?;
    let moved = apply_to_goals(ctx, &mut tx, &transitions, ctx.actor)?;
    let notices = super::finish(tx)?;
    Ok((
        id,
        TaskOutcome {
            book,
            transitions,
            warnings,
            notices,
            moved,
        },
    ))
}

/// The one open goal whose label, followed by `-` or `/`, starts the task
/// label. Goals are found by their file name, so this stays cheap.
fn link_by_label(ctx: &Context, label: &str, warnings: &mut Vec<String>) -> Option<Goal> {
    let mut matches = Vec::new();
    for (index, _) in label.match_indices(['-', '/']) {
        let prefix = &label[..index];
        if crate::model::label::validate(prefix).is_err() {
            continue;
        }
        if let Ok(loaded) = ctx.store.load(&ctx.store.open_path(prefix))
            && loaded.goal.label == prefix
            && !loaded.goal.status.is_terminal()
        {
            matches.push(*loaded.goal);
        }
    }
    if matches.len() > 1 {
        let labels: Vec<&str> = matches.iter().map(|g| g.label.as_str()).collect();
        warnings.push(format!(
            "task `{label}` matches the goals {}: not linked to any; pass --goal",
            labels.join(" and ")
        ));
        return None;
    }
    matches.pop()
}

/// Whether `label` names an open goal, which a subagent's obligation may
/// be linked to.
pub fn is_open_goal(ctx: &Context, label: &str) -> bool {
    ctx.store
        .resolve(label)
        .is_ok_and(|loaded| !loaded.goal.status.is_terminal())
}

/// A subagent ended: its result arrived (ok), or it failed.
pub fn ended(
    ctx: &Context,
    key: &Key,
    ending: Ending,
    detail: Option<String>,
) -> Result<TaskOutcome> {
    end(ctx, key, ending, detail, false)
}

/// A client's own subagent ended well (its `SubagentStop` hook): the
/// client hands its result back to the session that started it, so it
/// arrives delivered, and nothing is left for a person to relay.
pub fn returned_to_session(
    ctx: &Context,
    key: &Key,
    detail: Option<String>,
) -> Result<TaskOutcome> {
    end(ctx, key, Ending::Ok, detail, true)
}

/// Ends the obligation `key` names, `delivered` at once when its result
/// reached whoever was owed it.
fn end(
    ctx: &Context,
    key: &Key,
    ending: Ending,
    detail: Option<String>,
    delivered: bool,
) -> Result<TaskOutcome> {
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let mut transitions: Vec<Transition> = (book.end(key, ending, detail, ctx.now))
        .map_err(book_error)?
        .into_iter()
        .collect();
    if delivered && let Some(id) = transitions.first().map(|t| t.id.clone()) {
        let resolved = book.resolve(&id, ObligationStatus::Delivered, ctx.now);
        transitions.extend(resolved.map_err(book_error)?);
    }
    tx.save_obligations(&book, &transitions)?;
    let moved = apply_to_goals(ctx, &mut tx, &transitions, ctx.actor)?;
    let notices = super::finish(tx)?;
    Ok(TaskOutcome {
        book,
        transitions,
        warnings: Vec::new(),
        notices,
        moved,
    })
}

/// Marks one obligation delivered or dismissed.
pub fn resolve(ctx: &Context, id: &str, to: ObligationStatus) -> Result<TaskOutcome> {
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let transition = book.resolve(id, to, ctx.now).map_err(book_error)?;
    let transitions: Vec<Transition> = transition.into_iter().collect();
    tx.save_obligations(&book, &transitions)?;
    let notices = super::finish(tx)?;
    Ok(TaskOutcome {
        book,
        transitions,
        warnings: Vec::new(),
        notices,
        moved: Vec::new(),
    })
}

/// Resolves the obligations an outgoing message names with `[DELIVER:id]`
/// and `[DISMISS:id]` tags. `None` when the message has no tags (nothing
/// is read or locked).
pub fn resolve_message(ctx: &Context, message: &str) -> Result<Option<TaskOutcome>> {
    let tags = book::tags(message);
    if tags.is_empty() {
        return Ok(None);
    }
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let mut transitions = Vec::new();
    let mut warnings = Vec::new();
    for (to, id) in tags {
        match book.resolve(&id, to, ctx.now) {
            Ok(transition) => transitions.extend(transition),
            // The message went out anyway; say what could not be resolved.
            Err(err) => warnings.push(book_error(err).to_string()),
        }
    }
    tx.save_obligations(&book, &transitions)?;
    let notices = super::finish(tx)?;
    Ok(Some(TaskOutcome {
        book,
        transitions,
        warnings,
        notices,
        moved: Vec::new(),
    }))
}

fn book_error(err: BookError) -> Error {
    match err {
        BookError::NotFound(what) => Error::ObligationNotFound { what },
        BookError::NotArrived { id, status } => Error::NotArrived {
            id,
            status: status.to_string(),
        },
    }
}

/// A goal whose status a task's end changed, for `tick`'s findings.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalMoved {
    pub label: String,
    pub from: Status,
    pub to: Status,
    /// What moved it: the escalation's reason when it blocked, else the
    /// tasks that ended.
    pub reason: String,
}

/// What task transitions do to their linked goals
/// (steward-guide(7), "OBLIGATIONS: WHAT SPAWNED SUBAGENTS OWE"): a success
/// clears the goal's consecutive failures, a failure or timeout adds one,
/// and new work moves a verifying goal back to active. A task's success
/// says nothing of the goal's criteria: whether it is done is the judge's
/// (its checks, and `complete`). Goals that are blocked,
/// paused or closed are left alone. Each goal gets one history line.
/// Returns the goals whose status changed (a block included).
pub fn apply_to_goals(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    transitions: &[Transition],
    actor: Actor,
) -> Result<Vec<GoalMoved>> {
    let mut moved = Vec::new();
    let mut goals: Vec<(&str, &str)> = transitions
        .iter()
        .filter_map(|t| Some((t.goal_id.as_deref()?, t.goal_label.as_deref().unwrap_or(""))))
        .collect();
    goals.dedup();
    for (goal_id, label) in goals {
        let Ok(loaded) = tx.refind(goal_id, label) else {
            continue;
        };
        if !matches!(
            loaded.goal.status,
            Status::Active | Status::Stalled | Status::Verifying
        ) {
            continue;
        }
        let mine: Vec<&Transition> = transitions
            .iter()
            .filter(|t| t.goal_id.as_deref() == Some(goal_id))
            .collect();
        if let Some(change) = goal_change(&loaded, &mine, actor) {
            let detail = change.detail.clone();
            if let Some(saved) = tx.save(&loaded, change)? {
                let after = limits::enforce(ctx, tx, saved)?;
                if after.goal.status != loaded.goal.status {
                    moved.push(GoalMoved {
                        label: after.goal.label.clone(),
                        from: loaded.goal.status.clone(),
                        to: after.goal.status.clone(),
                        reason: after
                            .goal
                            .escalation
                            .as_ref()
                            .filter(|_| after.goal.status == Status::Blocked)
                            .map_or(detail, |e| format!("{}: {}", e.kind, e.reason)),
                    });
                }
            }
        }
    }
    Ok(moved)
}

fn goal_change(
    loaded: &LoadedGoal,
    transitions: &[&Transition],
    actor: Actor,
) -> Option<GoalChange> {
    let goal = &loaded.goal;
    let mut failures = goal.progress.consecutive_failures;
    let mut status = goal.status.clone();
    let mut parts = Vec::new();
    for t in transitions {
        let name = format!("{} ({})", t.label, t.id);
        if t.is_success() {
            failures = 0;
            parts.push(format!("{name} succeeded"));
        } else if t.is_failure() {
            failures = failures.saturating_add(1);
            parts.push(format!("{name} {}", t.to.map_or("ended", |s| s.as_str())));
        } else if matches!(t.action, "task_spawned" | "task_retried") {
            parts.push(format!("{name} spawned"));
            if status == Status::Verifying {
                status = Status::Active;
            }
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut change = GoalChange::new("task", parts.join("; ")).by(actor).always();
    if failures != goal.progress.consecutive_failures {
        change.push(Edit::Progress(ProgressField::ConsecutiveFailures(failures)));
    }
    if status != goal.status {
        change.push(Edit::Status(status));
    }
    Some(change)
}

/// What `tasks` shows: obligations and the agent runs steward started.
#[derive(Debug)]
pub struct Tasks {
    pub obligations: Vec<crate::model::Obligation>,
    pub runs: Vec<crate::model::Run>,
}

/// The obligations not yet resolved and the runs under way (every one of
/// each with `all`), only those of `goal` when given.
pub fn listed(ctx: &Context, all: bool, goal: Option<&str>) -> Result<Tasks> {
    let book = ctx.store.obligations()?;
    let goal_id = goal
        .map(|g| ctx.store.resolve(g).map(|l| l.goal.id))
        .transpose()?;
    let obligations = (book.obligations.into_iter())
        .filter(|o| all || !o.status.is_resolved())
        .filter(|o| goal_id.is_none() || o.goal_id == goal_id)
        .collect();
    // Agent runs steward started are obligations too.
    let (runs, _) = ctx.store.runs()?;
    let runs = (runs.into_iter())
        .filter(|r| all || r.is_active())
        .filter(|r| goal_id.as_deref().is_none_or(|id| r.goal_id == id))
        .collect();
    Ok(Tasks { obligations, runs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;

    #[test]
    fn a_failed_task_counts_a_failure_and_a_success_clears_it() {
        let store = Store::new();
        store.goal("ship", "", &["a"]);
        let spawn = SpawnRequest {
            label: "ship-tests".into(),
            ..SpawnRequest::default()
        };
        let (id, first) = spawned(&store.ctx(), &spawn).unwrap();
        assert_eq!(
            first.obligations().next().unwrap().goal_label.as_deref(),
            Some("ship"),
            "linked by its label's prefix"
        );
        let key = Key::Label("ship-tests".into());
        let outcome = ended(&store.ctx(), &key, Ending::Error, Some("red".into())).unwrap();
        assert_eq!(outcome.transitions[0].id, id);
        let goal = store.read("state/goals/ship.md");
        assert!(goal.contains("consecutive_failures: 1"), "{goal}");

        spawned(&store.ctx(), &spawn).unwrap();
        ended(&store.ctx(), &key, Ending::Ok, None).unwrap();
        let goal = store.read("state/goals/ship.md");
        assert!(goal.contains("consecutive_failures: 0"), "{goal}");
        assert!(
            !goal.contains("status: verifying"),
            "the judge's, not the task's: {goal}"
        );
    }

    #[test]
    fn delivering_a_running_task_is_refused() {
        let store = Store::new();
        let spawn = SpawnRequest {
            label: "lonely".into(),
            ..SpawnRequest::default()
        };
        let (id, _) = spawned(&store.ctx(), &spawn).unwrap();
        let err = resolve(&store.ctx(), &id, ObligationStatus::Delivered).unwrap_err();
        assert_eq!(err.exit_code(), 4);
    }
}
