//! `steward log`: what happened to one goal, from git when the store is
//! versioned, else from the event log.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::Result;
use crate::model::format_time;
use crate::store::events::{Cursor, Event};

/// Show a goal's history, newest first: date, actor, action and subject of
/// every commit that names the goal in its Steward-Goal trailer, or, when
/// the store is not in a git repository (or has no such commits), the
/// goal's events from the event log.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: LogArgs, out: &mut Output) -> Result<ExitCode> {
    let goal = ctx.store.resolve(&args.goal)?.goal;
    let entries: Vec<(String, String, String, String)> =
        match crate::os::git::goal_log(&ctx.store.absolute_root, &goal.id)? {
            Some(commits) if !commits.is_empty() => commits
                .into_iter()
                .map(|c| (format_time(c.when), c.actor, c.action, c.subject))
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
                        from_log.push((e.ts, e.actor, e.action, subject));
                    }
                })?;
                from_log.reverse();
                from_log
            }
        };
    if out.json {
        let list: Vec<_> = entries.iter().map(|(at, actor, action, subject)| json!({"at": at, "actor": actor, "action": action, "subject": subject})).collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "goal": goal.label, "log": list}));
        return Ok(ExitCode::Success);
    }
    for (at, actor, action, subject) in entries {
        out.line(format!("{at}  {actor:<8} {action:<12} {subject}"));
    }
    Ok(ExitCode::Success)
}
