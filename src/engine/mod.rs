//! The verbs of steward, callable without a command line: one function per
//! verb, taking the resolved [`Context`](crate::context::Context) (root, configuration, clock, actor)
//! and a typed request, returning a typed outcome or an [`Error`]. The
//! front doors (`crate::doors`: the command line, the harness hooks, the
//! MCP server) and the agent runs call these functions; none of them
//! prints or exits. Reading verbs are here too ([`list`], [`show`],
//! [`history`], …), and [`view`] is the one JSON view of a goal every front
//! door prints.
//!
//! Where a rule lives:
//! - what an assessment does to a goal: `crate::rules::assessment` (pure), applied
//!   by [`assess()`];
//! - the watchdog's rules: `crate::rules::watchdog` (pure), applied by [`tick()`];
//! - budgets crossed by a change, the hourly dispatch window: [`limits`];
//! - running mechanical checks: [`checking`];
//! - what finished subagent tasks do to their goals: [`task`];
//! - keeping a session working at its harness's Stop: [`continuation`];
//! - how a change becomes bytes of a goal file: `crate::store` (`edit.rs`).

mod add;
mod assess;
pub mod authority;
pub mod checking;
pub mod claim;
mod complete;
pub mod continuation;
mod control;
pub mod dispatch;
mod doctor;
pub mod edit;
pub mod fleet;
pub mod forecast;
pub mod git_setup;
pub mod handoff;
pub mod history;
mod init;
pub mod install;
mod instruction;
pub mod intake;
pub mod limits;
pub mod list;
mod merge_back;
mod mirror;
pub mod notify;
pub mod overview;
pub mod plan;
mod prompt;
pub mod prune;
pub mod pull_request;
pub mod reply;
pub mod report;
pub mod resolve;
pub mod review;
pub mod run;
pub mod schedule;
pub mod show;
pub mod sync;
pub mod task;
mod tick;
pub mod trust;
mod undo;
mod update;
pub mod view;
pub mod work;
pub mod worktree;

pub use add::{AddRequest, add};
pub use assess::{assess, assess_update};
pub use complete::{CompleteRequest, Judged, complete};
pub use control::{abandon, confirm, pause, reset_budget, resume, unblock};
pub use doctor::{Diagnosis, doctor, unknown_values};
pub use init::{Initialized, init};
pub use mirror::{MirrorCheck, MirrorRefresh, check_mirror, refresh_mirror};
pub use prompt::{PromptOutcome, PromptRequest, Turn, prompt};
pub use tick::{Finding, MOVED_PER_PASS, TickOutcome, TickRequest, at_run_end, tick};
pub use undo::{Undone, delete, undo};
pub use update::{RecordUpdate, UpdateRequest, Updated, update};

use crate::error::{Error, Result};
use crate::model::Goal;
use crate::store::{LoadedGoal, Transaction};

/// What a finished write could not do, for the front door to report: a
/// mirror left alone, a path git ignores, a commit that failed.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Notices {
    pub warnings: Vec<String>,
    /// The change is written but not committed: the command exits 1.
    pub commit_error: Option<String>,
}

/// A goal after a verb: as written, or as it was when nothing changed.
#[derive(Debug)]
pub struct Saved {
    pub goal: LoadedGoal,
    pub changed: bool,
    pub notices: Notices,
}

/// Ends a transaction, keeping what it could not do as notices.
fn finish(tx: Transaction<'_>) -> Result<Notices> {
    let finished = tx.finish()?;
    Ok(Notices {
        warnings: finished.warnings,
        commit_error: finished.commit_error,
    })
}

/// Finishes `tx` and reports `saved` (or `before`, when nothing was written).
fn saved(tx: Transaction<'_>, written: Option<LoadedGoal>, before: LoadedGoal) -> Result<Saved> {
    let notices = finish(tx)?;
    Ok(Saved {
        changed: written.is_some(),
        goal: written.unwrap_or(before),
        notices,
    })
}

/// A check tied to a criterion must name one that exists.
fn check_criterion_in_range(check: &crate::model::Check, criteria: usize) -> Result<()> {
    match check.criterion {
        Some(n) if n > criteria => Err(Error::bad_input(
            crate::error::Input::Verify,
            format!(
                "{}:{}@{n}: criterion {n} does not exist (the goal has {})",
                check.kind,
                check.target,
                crate::text::count(criteria, "criterion", "criteria")
            ),
        )),
        _ => Ok(()),
    }
}

/// Terminal goals never change: refused with exit 4.
fn refuse_terminal(goal: &Goal) -> Result<()> {
    if goal.status.is_terminal() {
        return Err(Error::Terminal {
            label: goal.label.clone(),
            status: goal.status.to_string(),
            hint: "terminal goals do not change (add a new goal instead)",
        });
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testing;
