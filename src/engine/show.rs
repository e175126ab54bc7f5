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
    /// Whether the file is what steward wrote, when asked for.
    pub trust: Option<Trust>,
    /// For a goal waiting for a person's review of a change made outside
    /// steward, when asked for: the diff its event kept.
    pub review_diff: Option<String>,
    /// The obligations, of which the goal's are shown.
    pub book: Book,
    /// The worktrees and branches its runs worked in, with their state.
    pub worktrees: Vec<(RunWorktree, &'static str)>,
}

/// What to work out besides the goal: each costs reads a caller that does
/// not print it should not pay for.
#[derive(Debug, Clone, Copy)]
pub struct ShowRequest {
    /// What keeps an open goal from being worked now.
    pub waits: bool,
    /// Whether the file is what steward wrote (its seal checked), and the
    /// diff a person is asked to review.
    pub provenance: bool,
}

/// `goal` (a label, an id, or an id's first characters) and what
/// `request` asks for with it.
pub fn show(ctx: &Context, goal: &str, request: ShowRequest) -> Result<Shown> {
    let loaded = ctx.store.resolve(goal)?;
    let open = !loaded.goal.status.is_terminal();
    let waits = if open && request.waits {
        super::dispatch::Holds::read(ctx)?.why_not(ctx, &loaded.goal)
    } else {
        Vec::new()
    };
    let review_diff = (loaded.goal.waiting.as_ref())
        .filter(|w| request.provenance && open && w.for_person == Some(PersonWait::Review))
        .and_then(|_| outside_diff(ctx, &loaded.goal));
    Ok(Shown {
        path: ctx.store.relative(&loaded.file.path),
        waits,
        trust: request.provenance.then(|| ctx.store.trust_of(&loaded)),
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
