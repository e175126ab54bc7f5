//! `steward work GOAL NODE start|done|block|cancel`: a plan node moves.

use crate::exit::ExitCode;
use clap::{Args, Subcommand};

use super::{Output, args};
use crate::context::Context;
use crate::engine::work::{self, NodeWork};
use crate::error::Result;
use crate::model::plan::NodeStatus;

/// Move one node of a goal's plan: start it, mark it done, block it with a
/// reason, or cancel it. Its line in the goal file changes and nothing
/// else; a task is done when its subtasks are, a phase when its tasks are,
/// and when every phase is done the goal goes to verifying (the judge still
/// decides: `steward complete`).
#[derive(Debug, Args)]
pub struct WorkArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
    /// The node's id (P1, T1.2, ...)
    node: String,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Work on the node has begun (in progress)
    Start(Note),
    /// The node's acceptance holds
    Done(Note),
    /// The node cannot go on: say why
    Block(Reason),
    /// The node will not be done
    Cancel(Note),
}

#[derive(Debug, Args)]
struct Note {
    /// Why, for the history
    #[arg(long, value_parser = args::one_line)]
    reason: Option<String>,
}

#[derive(Debug, Args)]
struct Reason {
    /// What blocks it
    #[arg(long, value_parser = args::one_line)]
    reason: String,
}

pub fn run(ctx: &Context, args: WorkArgs, out: &mut Output) -> Result<ExitCode> {
    let (status, reason) = match args.action {
        Action::Start(note) => (NodeStatus::InProgress, note.reason),
        Action::Done(note) => (NodeStatus::Done, note.reason),
        Action::Block(reason) => (NodeStatus::Blocked, Some(reason.reason)),
        Action::Cancel(note) => (NodeStatus::Cancelled, note.reason),
    };
    let request = NodeWork {
        node: args.node.clone(),
        status,
        reason,
    };
    let saved = work::work(ctx, &args.goal, &request)?;
    let what = format!("{} {}", args.node, status.as_str().replace('_', " "));
    super::report(ctx, out, saved, &what)?;
    Ok(ExitCode::Success)
}
