//! What happened to goals: `log`, one goal's history from its git commits
//! (or, without git, from the event log), and `audit`, the event log
//! itself. Reads only.

use chrono::{DateTime, Utc};

use crate::context::Context;
use crate::error::Result;
use crate::model::format_time;
use crate::store::events::{Cursor, Event};

/// One change of a goal, newest first in a [`GoalLog`].
#[derive(Debug)]
pub struct LogEntry {
    pub at: String,
    pub actor: String,
    pub action: String,
    pub subject: String,
}

#[derive(Debug)]
pub struct GoalLog {
    pub label: String,
    pub entries: Vec<LogEntry>,
}

/// The history of `goal` (a label, an id, or an id's first characters),
/// newest first.
pub fn log(ctx: &Context, goal: &str) -> Result<GoalLog> {
    let goal = ctx.store.resolve(goal)?.goal;
    let entries = match crate::os::git::goal_log(&ctx.store.absolute_root, &goal.id)? {
        Some(commits) if !commits.is_empty() => commits
            .into_iter()
            .map(|c| LogEntry {
                at: format_time(c.when),
                actor: c.actor,
                action: c.action,
                subject: c.subject,
            })
            .collect(),
        _ => {
            // The whole log, a line at a time, keeping this goal's.
            let mut from_log = Vec::new();
            ctx.store.log().each_from(&Cursor::default(), |e: Event| {
                if e.goal_id == goal.id {
                    let subject = if e.detail.is_empty() {
                        e.action.clone()
                    } else {
                        format!("{}: {}", e.action, e.detail)
                    };
                    from_log.push(LogEntry {
                        at: e.ts,
                        actor: e.actor,
                        action: e.action,
                        subject,
                    });
                }
            })?;
            from_log.reverse();
            from_log
        }
    };
    Ok(GoalLog {
        label: goal.label,
        entries,
    })
}

/// Which events `audit` hands on.
#[derive(Debug, Default)]
pub struct AuditRequest {
    /// Only this goal's: a label, an id or an id's first characters. A goal
    /// whose file is gone still has its events, matched by label or id.
    pub goal: Option<String>,
    /// Only events since then.
    pub since: Option<DateTime<Utc>>,
}

/// Hands each event `request` selects to `each`, oldest first. Without
/// `since`, the log is read a line at a time (it can be larger than
/// memory).
pub fn audit(ctx: &Context, request: &AuditRequest, mut each: impl FnMut(&Event)) -> Result<()> {
    let wanted_id =
        (request.goal.as_deref()).map(|goal| ctx.store.resolve(goal).map(|g| g.goal.id));
    let mut hand_on = |event: &Event| {
        if let Some(goal) = &request.goal {
            let matches = match &wanted_id {
                Some(Ok(id)) => event.goal_id == *id,
                _ => {
                    event.label == goal.to_ascii_lowercase()
                        || (goal.len() >= 4
                            && event.goal_id.starts_with(&goal.to_ascii_lowercase()))
                }
            };
            if !matches {
                return;
            }
        }
        each(event);
    };
    let log = ctx.store.log();
    match &request.since {
        Some(since) => log
            .read_since(&format_time(*since))?
            .iter()
            .for_each(hand_on),
        None => {
            log.each_from(&Cursor::default(), |event: Event| hand_on(&event))?;
        }
    }
    Ok(())
}
