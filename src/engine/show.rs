//! `show`: one goal with what a person or an agent reads about it — what
//! keeps it from being worked now, whether its file is what steward wrote
//! (and what changed outside steward), the subagents' obligations linked
//! to it, and the worktrees its runs worked in. Reads only.

use crate::context::Context;
use crate::error::Result;
use crate::model::RunWorktree;
use crate::model::book::Book;
use crate::model::{Goal, PersonWait};
use crate::store::{LoadedGoal, Trust};

/// A goal and what is shown with it.
#[derive(Debug)]
pub struct Shown {
    pub loaded: LoadedGoal,
    /// Its file, relative to where the caller is.
    pub path: String,
    /// What keeps an open goal from being worked now (`why`): empty for a
    /// closed goal, or when not asked for.
    pub waits: Vec<String>,
    /// Whether the file is what steward wrote.
    pub trust: Trust,
    /// For a goal waiting for a person's review of a change made outside
    /// steward: the diff its event kept.
    pub review_diff: Option<String>,
    /// The obligations, of which the goal's are shown.
    pub book: Book,
    /// The worktrees and branches its runs worked in, with their state.
    pub worktrees: Vec<(RunWorktree, &'static str)>,
}

/// `goal` (a label, an id, or an id's first characters) and what is shown
/// with it; `waits`: work out what keeps it from being worked.
pub fn show(ctx: &Context, goal: &str, waits: bool) -> Result<Shown> {
    let loaded = ctx.store.resolve(goal)?;
    let waits = if loaded.goal.status.is_terminal() || !waits {
        Vec::new()
    } else {
        super::dispatch::Holds::read(ctx)?.why_not(ctx, &loaded.goal)
    };
    let review_diff = (loaded.goal.waiting.as_ref())
        .filter(|w| w.for_person == Some(PersonWait::Review) && !loaded.goal.status.is_terminal())
        .and_then(|_| outside_diff(ctx, &loaded.goal));
    Ok(Shown {
        path: ctx.store.relative(&loaded.file.path),
        waits,
        trust: ctx.store.trust_of(&loaded),
        review_diff,
        book: ctx.store.obligations()?,
        worktrees: super::worktree::goal_worktrees(ctx, &loaded.goal.id),
        loaded,
    })
}

/// What the last change found made outside steward to `goal` changed, as
/// its event keeps it.
fn outside_diff(ctx: &Context, goal: &Goal) -> Option<String> {
    let since = goal
        .waiting
        .as_ref()?
        .since
        .map(crate::model::format_time)?;
    let events = ctx.store.log().read_since(&since).ok()?;
    events
        .into_iter()
        .rev()
        .find(|e| e.goal_id == goal.id && e.action == "edited_outside")
        .and_then(|e| e.diff)
}
