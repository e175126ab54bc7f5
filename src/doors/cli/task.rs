//! `steward task`: what spawned subagents owe
//! (steward-guide(7), "OBLIGATIONS: WHAT SPAWNED SUBAGENTS OWE"). The agent
//! harness calls these from its spawn, end and message hooks.

use crate::exit::ExitCode;
use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use clap::{Args, Subcommand};
use serde_json::json;

use super::render::{SCHEMA_VERSION, obligation_json};
use super::{Output, args};
use crate::context::Context;
use crate::engine::task::{self, SpawnRequest, TaskOutcome};
use crate::error::{Error, Result};
use crate::model::ObligationStatus;
use crate::model::book::{self, Ending, Key};
use crate::model::duration::HumanDuration;

/// Track what spawned subagents owe: results to deliver, failures to report.
#[derive(Debug, Args)]
pub struct TaskArgs {
    #[command(subcommand)]
    command: TaskCommand,
}

#[derive(Debug, Subcommand)]
enum TaskCommand {
    Spawned(SpawnedArgs),
    Ended(EndedArgs),
    Deliver(IdArgs),
    Dismiss(IdArgs),
    Resolve(ResolveArgs),
}

/// A subagent was spawned: it now owes a result.
///
/// Linked to a goal by --goal, else by a label that starts with
/// `<goal-label>-` or `<goal-label>/` when exactly one open goal matches.
/// The same session key, or a running obligation with the same label, is
/// one obligation however often the hook fires; spawning a label again
/// after it failed or timed out retries it (same id, retry_count + 1).
#[derive(Debug, Args)]
struct SpawnedArgs {
    /// The task's label (a-z 0-9 - _ / . :)
    #[arg(long, value_parser = book::task_label)]
    label: String,

    /// The goal it serves (a label, an id, or an id prefix)
    #[arg(long)]
    goal: Option<String>,

    /// The subagent's name
    #[arg(long)]
    agent: Option<String>,

    /// The harness's session key for the subagent
    #[arg(long)]
    session: Option<String>,

    /// The subagent's process id; the watchdog fails the task when it is gone
    #[arg(long)]
    pid: Option<u32>,

    /// How long it may run [default: obligations.default_timeout]
    #[arg(long, value_name = "DURATION", value_parser = args::duration)]
    timeout: Option<HumanDuration>,

    /// What it was asked to do (empty: nothing said)
    #[arg(long, value_parser = args::optional_line)]
    summary: Option<String>,
}

/// A subagent ended: ok (its result arrived), error, timeout or killed.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").required(true).args(["label", "session"]))]
struct EndedArgs {
    /// The task's label
    #[arg(long, value_parser = book::task_label)]
    label: Option<String>,

    /// The session key given at spawn (wins over --label)
    #[arg(long)]
    session: Option<String>,

    /// How it ended
    #[arg(long, value_enum)]
    outcome: EndingArg,

    /// What it said, in a line (empty: nothing said)
    #[arg(long, value_parser = args::optional_line)]
    detail: Option<String>,
}

/// How a subagent ended, as the harness reports it.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum EndingArg {
    Ok,
    Error,
    Timeout,
    Killed,
}

/// Mark an obligation delivered (its result reached the human) or dismissed.
#[derive(Debug, Args)]
struct IdArgs {
    /// The obligation's id (obl-…)
    id: String,
}

/// Resolve the obligations a message names with [DELIVER:obl-…] and
/// [DISMISS:obl-…] tags (the harness passes every outgoing message).
#[derive(Debug, Args)]
struct ResolveArgs {
    /// The outgoing message ("-" reads it from stdin)
    #[arg(long, value_name = "TEXT", value_parser = clap::value_parser!(OsString))]
    message: OsString,
}

pub fn run(ctx: &Context, args: TaskArgs, out: &mut Output) -> Result<ExitCode> {
    match args.command {
        TaskCommand::Spawned(args) => spawned(ctx, args, out),
        TaskCommand::Ended(args) => ended(ctx, args, out),
        TaskCommand::Deliver(args) => resolve_one(ctx, &args.id, ObligationStatus::Delivered, out),
        TaskCommand::Dismiss(args) => resolve_one(ctx, &args.id, ObligationStatus::Dismissed, out),
        TaskCommand::Resolve(args) => resolve_message(ctx, args, out),
    }
}

fn spawned(ctx: &Context, args: SpawnedArgs, out: &mut Output) -> Result<ExitCode> {
    let request = SpawnRequest {
        label: args.label,
        goal: args.goal,
        agent: args.agent,
        session: args.session,
        pid: args.pid,
        timeout_secs: args.timeout.map(|t| t.as_secs()),
        summary: args.summary.filter(|s| !s.is_empty()),
    };
    let (id, outcome) = task::spawned(ctx, &request)?;
    warnings(out, &outcome);
    let obligation = outcome.book.get(&id).expect("just spawned");
    if out.json {
        out.json(
            &json!({"schema_version": SCHEMA_VERSION, "obligation": obligation_json(obligation)}),
        );
    } else if !out.quiet {
        let link = obligation
            .goal_label
            .as_ref()
            .map(|g| format!(", goal {g}"))
            .unwrap_or_default();
        let what = match outcome.transitions.first().map(|t| t.action) {
            Some("task_retried") => format!("retry {}", obligation.retry_count),
            Some(_) => "running".to_string(),
            None => "already tracked".to_string(),
        };
        out.line(format!("{id}: {} {what}{link}", obligation.label));
    }
    Ok(ExitCode::Success)
}

fn ended(ctx: &Context, args: EndedArgs, out: &mut Output) -> Result<ExitCode> {
    let key = match (args.session, args.label) {
        (Some(session), _) => Key::Session(session),
        (None, Some(label)) => Key::Label(label),
        (None, None) => unreachable!("clap requires one"),
    };
    let ending = match args.outcome {
        EndingArg::Ok => Ending::Ok,
        EndingArg::Error => Ending::Error,
        EndingArg::Timeout => Ending::Timeout,
        EndingArg::Killed => Ending::Killed,
    };
    let outcome = task::ended(ctx, &key, ending, args.detail.filter(|d| !d.is_empty()))?;
    // A failure that blocked its goal: a person is needed (exit 3).
    let blocked = outcome
        .moved
        .iter()
        .any(|m| m.to == crate::model::Status::Blocked);
    report(
        out,
        outcome,
        "nothing changed (already ended, delivered or dismissed)",
    );
    Ok(if blocked {
        ExitCode::Attention
    } else {
        ExitCode::Success
    })
}

fn resolve_one(
    ctx: &Context,
    id: &str,
    to: ObligationStatus,
    out: &mut Output,
) -> Result<ExitCode> {
    let outcome = task::resolve(ctx, id, to)?;
    report(
        out,
        outcome,
        &format!("{id}: nothing changed (already resolved)"),
    );
    Ok(ExitCode::Success)
}

fn resolve_message(ctx: &Context, args: ResolveArgs, out: &mut Output) -> Result<ExitCode> {
    let message = if args.message == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(16 << 20)
            .read_to_end(&mut bytes)
            .map_err(|err| Error::io(Path::new("-"), "cannot read the message from stdin", err))?;
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        args.message.to_string_lossy().into_owned()
    };
    if let Some(outcome) = task::resolve_message(ctx, &message)? {
        report(out, outcome, "nothing changed");
    }
    Ok(ExitCode::Success)
}

fn warnings(out: &mut Output, outcome: &TaskOutcome) {
    for warning in &outcome.warnings {
        out.warn(warning.clone());
    }
    super::notices(out, outcome.notices.clone());
}

fn report(out: &mut Output, outcome: TaskOutcome, unchanged: &str) {
    warnings(out, &outcome);
    if out.json {
        let changed: Vec<_> = outcome.obligations().map(obligation_json).collect();
        let goals: Vec<_> = outcome
            .moved
            .iter()
            .map(|m| json!({"label": m.label, "from": m.from.as_str(), "to": m.to.as_str(), "reason": m.reason}))
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "changed": changed, "goals": goals}));
    } else if !out.quiet {
        if outcome.transitions.is_empty() {
            out.line(unchanged);
        }
        // What the end did to its goal: a block a person must hear of.
        for moved in &outcome.moved {
            let line = format!(
                "{}: {} -> {} ({})",
                moved.label, moved.from, moved.to, moved.reason
            );
            if moved.to == crate::model::Status::Blocked {
                out.warn(format!(
                    "{line}: a person runs `steward unblock {} --reason ...`",
                    moved.label
                ));
            } else {
                out.line(line);
            }
        }
        for t in &outcome.transitions {
            let from = t.from.map_or_else(String::new, |f| format!("{f} -> "));
            let to = t.to.map_or("dropped", |s| s.as_str());
            out.line(format!("{}: {} {from}{to}", t.id, t.label));
        }
    }
}
