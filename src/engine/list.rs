//! `list`: the goals a filter selects, open ones sorted by priority then
//! label, closed ones (when asked for) read a batch at a time as the front
//! door writes them, so a listing of 100,000 goals is never held whole.
//! Reads only.

use std::path::PathBuf;

use crate::context::Context;
use crate::error::{FileProblem, Result};
use crate::model::book::Book;
use crate::model::{Goal, Priority, Status};
use crate::store::{LoadedGoal, Scope};

/// Which goals to list.
#[derive(Debug, Default)]
pub struct ListRequest {
    /// Closed goals too.
    pub all: bool,
    /// Only these statuses (none: every one).
    pub statuses: Vec<Status>,
    pub priority: Option<Priority>,
    /// Read the obligations too, for each goal's tasks (`--json`).
    pub with_tasks: bool,
}

impl ListRequest {
    /// Whether closed goals can be among those wanted.
    fn wants_closed(&self) -> bool {
        self.all || self.statuses.iter().any(Status::is_terminal)
    }

    fn wants(&self, goal: &Goal) -> bool {
        (self.statuses.is_empty() || self.statuses.contains(&goal.status))
            && (self.wants_closed() || !goal.status.is_terminal())
            && self.priority.as_ref().is_none_or(|p| *p == goal.priority)
    }
}

/// The goals listed: those of the open goals' directory now, the closed
/// ones as [`Listing::each_closed`] reads them.
#[derive(Debug)]
pub struct Listing {
    request: ListRequest,
    /// Open goals (and goals closed by hand not yet moved), in list order.
    pub open: Vec<LoadedGoal>,
    closed: Vec<PathBuf>,
    /// Files that could not be read, so far.
    pub problems: Vec<FileProblem>,
    /// The obligations, when asked for (else empty).
    pub book: Book,
}

/// The goals `request` selects.
pub fn list(ctx: &Context, request: ListRequest) -> Result<Listing> {
    let wants_closed = request.wants_closed();
    let scan = ctx.store.scan(if wants_closed {
        Scope::OpenDirectory
    } else {
        Scope::Open
    })?;
    let mut problems = scan.problems;
    let mut open: Vec<LoadedGoal> = (scan.goals.into_iter())
        .filter(|g| request.wants(&g.goal))
        .collect();
    open.sort_by(|a, b| list_order(a).cmp(&list_order(b)));
    let closed = if wants_closed {
        ctx.store.closed_paths(&mut problems)?
    } else {
        Vec::new()
    };
    let book = if request.with_tasks {
        ctx.store.obligations()?
    } else {
        Book::default()
    };
    Ok(Listing {
        request,
        open,
        closed,
        problems,
        book,
    })
}

impl Listing {
    /// Whether closed goals follow the open ones.
    pub fn has_closed(&self) -> bool {
        self.request.wants_closed()
    }

    /// Reads the closed goals wanted, a batch at a time, handing each to
    /// `each`; files that cannot be read join [`Listing::problems`].
    pub fn each_closed(&mut self, ctx: &Context, mut each: impl FnMut(&LoadedGoal, &Book)) {
        let request = &self.request;
        let (problems, book) = (&mut self.problems, &self.book);
        ctx.store.load_each(&self.closed, |result| match result {
            Ok(loaded) if request.wants(&loaded.goal) => each(&loaded, book),
            Ok(_) => {}
            Err(problem) => problems.push(problem),
        });
    }
}

/// The labels of the open goals, from their file names alone (no goal
/// read): for shell completion.
pub fn labels(ctx: &Context) -> Result<Vec<String>> {
    ctx.store.open_labels()
}

/// Open goals first, then by priority, then by label.
fn list_order(loaded: &LoadedGoal) -> (bool, u8, &str) {
    let goal = &loaded.goal;
    (goal.status.is_terminal(), goal.priority.rank(), &goal.label)
}
