//! `report --html` (steward-guide(7), "A page to look at"): gathers what the
//! page shows — the open goals and what needs a person (the same as
//! `status`), goals closed, events and runs since a time — has the front
//! door render it, and writes `DIR/index.html` in one atomic step, so a
//! web server publishing `DIR` never serves half a page. Reads the store;
//! changes nothing in it.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::overview::{self, StatusReport};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Goal, Run, format_time};
use crate::store::atomic;
use crate::store::events::Event;

/// What to write, and from when closed goals, events and runs are shown.
#[derive(Debug)]
pub struct ReportRequest {
    pub dir: PathBuf,
    pub since: DateTime<Utc>,
}

/// What the page shows, gathered by [`gather`].
#[derive(Debug)]
pub struct Page {
    /// When the page was made: the clock every age on it is measured by.
    pub now: DateTime<Utc>,
    /// The start of the window for closed goals, events and runs.
    pub since: DateTime<Utc>,
    /// The open goals and what needs a person (`status`).
    pub overview: StatusReport,
    /// Goals that closed since `since`, most recently closed first.
    pub closed: Vec<Goal>,
    /// The event log since `since`, oldest first.
    pub events: Vec<Event>,
    /// Runs started or ended since `since`, oldest first.
    pub runs: Vec<Run>,
    /// The work ahead, while dispatch is on.
    pub forecast: Option<crate::rules::forecast::Forecast>,
    /// The last forecast a person asked for, and what happened since.
    pub last_forecast: Option<(super::forecast::Remembered, Vec<super::forecast::Happened>)>,
    /// The machines that share the store, stale first (`steward fleet`).
    pub fleet: Vec<super::fleet::Seen>,
}

/// The page written.
#[derive(Debug)]
pub struct Written {
    pub path: PathBuf,
    pub open_goals: usize,
    /// Goal and run files that could not be read (the page lists them).
    pub problems: Vec<String>,
}

/// Gathers the page, has `render` make its HTML, and writes it.
pub fn report(
    ctx: &Context,
    request: &ReportRequest,
    render: impl FnOnce(&Page) -> String,
) -> Result<Written> {
    let page = gather(ctx, request.since)?;
    let html = render(&page);
    let path = request.dir.join("index.html");
    std::fs::create_dir_all(&request.dir)
        .map_err(|err| Error::io(&request.dir, "cannot create directory", err))?;
    atomic::write(&path, html.as_bytes())?;
    Ok(Written {
        path,
        open_goals: page.overview.goals.len(),
        problems: page.overview.problems,
    })
}

/// Everything the page shows, read at `ctx.now`.
pub fn gather(ctx: &Context, since: DateTime<Utc>) -> Result<Page> {
    let mut overview = overview::status(ctx)?;
    let since_text = format_time(since);
    let events = ctx.store.log().read_since(&since_text)?;
    let (runs, _) = ctx.store.runs()?;
    let runs = runs
        .into_iter()
        .filter(|r| r.touched_since(&since_text))
        .collect();
    Ok(Page {
        now: ctx.now,
        since,
        closed: closed_since(ctx, &events, &mut overview.problems),
        overview,
        events,
        runs,
        forecast: (ctx.config.enabled && ctx.config.dispatch.enabled)
            .then(|| super::forecast::outlook(ctx).ok())
            .flatten()
            .map(|outlook| outlook.forecast),
        last_forecast: super::forecast::since_last(ctx),
        fleet: super::fleet::read(ctx).machines,
    })
}

/// The goals the events closed, most recently closed first, as their files
/// say now (a goal closed and deleted since is left out; one that cannot
/// be read is a problem the page lists).
fn closed_since(ctx: &Context, events: &[Event], problems: &mut Vec<String>) -> Vec<Goal> {
    let mut closed: Vec<Goal> = Vec::new();
    for event in events.iter().rev().filter(|e| {
        !e.goal_id.is_empty()
            && matches!(e.to.as_deref(), Some("completed" | "failed" | "abandoned"))
    }) {
        if closed.iter().any(|g| g.id == event.goal_id) {
            continue;
        }
        match ctx.store.refind(&event.goal_id, &event.label) {
            Ok(loaded) if loaded.goal.status.is_terminal() => closed.push(*loaded.goal),
            Ok(_) | Err(Error::GoalNotFound { .. }) => {}
            Err(err) => problems.push(err.to_string()),
        }
    }
    closed
}
