//! `steward task`: what spawned subagents owe (SPEC 7). The agent harness
//! calls these from its spawn, end and message hooks.

use std::ffi::OsString;
use std::io::Read;

use clap::{Args, Subcommand};
use serde_json::json;

use super::render::{SCHEMA_VERSION, obligation_json};
use super::{Output, args};
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};
use crate::model::{Actor, ObligationStatus, Status};
use crate::obligations::{self, Book, BookError, Ending, Key, Spawn, Transition};
use crate::store::{Change, LoadedGoal, Transaction, YamlValue};

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
    #[arg(long, value_parser = obligations::task_label)]
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

    /// What it was asked to do
    #[arg(long, value_parser = args::one_line)]
    summary: Option<String>,
}

/// A subagent ended: ok (its result arrived), error, timeout or killed.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").required(true).args(["label", "session"]))]
struct EndedArgs {
    /// The task's label
    #[arg(long, value_parser = obligations::task_label)]
    label: Option<String>,

    /// The session key given at spawn (wins over --label)
    #[arg(long)]
    session: Option<String>,

    /// How it ended
    #[arg(long, value_enum)]
    outcome: Ending,

    /// What it said, in a line
    #[arg(long, value_parser = args::one_line)]
    detail: Option<String>,
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

pub fn run(ctx: &Context, args: TaskArgs, out: &mut Output) -> Result<u8> {
    match args.command {
        TaskCommand::Spawned(args) => spawned(ctx, args, out),
        TaskCommand::Ended(args) => ended(ctx, args, out),
        TaskCommand::Deliver(args) => resolve_one(ctx, &args.id, ObligationStatus::Delivered, out),
        TaskCommand::Dismiss(args) => resolve_one(ctx, &args.id, ObligationStatus::Dismissed, out),
        TaskCommand::Resolve(args) => resolve_message(ctx, args, out),
    }
}

fn spawned(ctx: &Context, args: SpawnedArgs, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let goal = match &args.goal {
        Some(reference) => {
            let loaded = tx.resolve(reference)?;
            if loaded.goal.status.is_terminal() {
                return Err(Error::refused(format!(
                    "goal `{}` is {}: it takes no new tasks",
                    loaded.goal.label, loaded.goal.status
                )));
            }
            Some(loaded.goal)
        }
        None => link_by_label(ctx, &args.label, out),
    };
    let mut book = tx.store().obligations()?;
    let spawn = Spawn {
        label: args.label,
        goal: goal.as_ref().map(|g| (g.id.clone(), g.label.clone())),
        agent: args.agent,
        session: args.session,
        pid: args.pid,
        timeout_secs: args
            .timeout
            .unwrap_or(ctx.config.obligations.default_timeout)
            .as_secs(),
        summary: args.summary,
    };
    let (id, transition) = book.spawn(spawn, ctx.now, obligations::new_id);
    let transitions: Vec<Transition> = transition.into_iter().collect();
    tx.save_obligations(&book, &transitions)?;
    apply_to_goals(ctx, &mut tx, &book, &transitions, ctx.actor)?;
    super::finish(tx, out)?;
    let obligation = book.get(&id).expect("just spawned");
    if ctx.json {
        out.json(
            &json!({"schema_version": SCHEMA_VERSION, "obligation": obligation_json(obligation)}),
        );
    } else if !ctx.quiet {
        let link = obligation
            .goal_label
            .as_ref()
            .map(|g| format!(", goal {g}"))
            .unwrap_or_default();
        let what = match transitions.first().map(|t| t.action) {
            Some("task_retried") => format!("retry {}", obligation.retry_count),
            Some(_) => "running".to_string(),
            None => "already tracked".to_string(),
        };
        out.line(format!("{id}: {} {what}{link}", obligation.label));
    }
    Ok(0)
}

/// The one open goal whose label, followed by `-` or `/`, starts the task
/// label. Goals are found by their file name, so this stays cheap.
fn link_by_label(ctx: &Context, label: &str, out: &mut Output) -> Option<crate::model::Goal> {
    let mut matches = Vec::new();
    for (index, _) in label.match_indices(['-', '/']) {
        let prefix = &label[..index];
        if crate::label::validate(prefix).is_err() {
            continue;
        }
        if let Ok(loaded) = ctx.store.load(&ctx.store.open_path(prefix))
            && loaded.goal.label == prefix
            && !loaded.goal.status.is_terminal()
        {
            matches.push(loaded.goal);
        }
    }
    if matches.len() > 1 {
        let labels: Vec<&str> = matches.iter().map(|g| g.label.as_str()).collect();
        out.warn(format!(
            "task `{label}` matches the goals {}: not linked to any; pass --goal",
            labels.join(" and ")
        ));
        return None;
    }
    matches.pop()
}

fn ended(ctx: &Context, args: EndedArgs, out: &mut Output) -> Result<u8> {
    let key = match (args.session, args.label) {
        (Some(session), _) => Key::Session(session),
        (None, Some(label)) => Key::Label(label),
        (None, None) => unreachable!("clap requires one"),
    };
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let transition = book
        .end(&key, args.outcome, args.detail, ctx.now)
        .map_err(book_error)?;
    let transitions: Vec<Transition> = transition.into_iter().collect();
    tx.save_obligations(&book, &transitions)?;
    apply_to_goals(ctx, &mut tx, &book, &transitions, ctx.actor)?;
    super::finish(tx, out)?;
    report_transitions(
        ctx,
        &book,
        &transitions,
        out,
        "nothing changed (already ended, delivered or dismissed)",
    );
    Ok(0)
}

fn resolve_one(ctx: &Context, id: &str, to: ObligationStatus, out: &mut Output) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let transition = book.resolve(id, to, ctx.now).map_err(book_error)?;
    let transitions: Vec<Transition> = transition.into_iter().collect();
    tx.save_obligations(&book, &transitions)?;
    super::finish(tx, out)?;
    report_transitions(
        ctx,
        &book,
        &transitions,
        out,
        &format!("{id}: nothing changed (already resolved)"),
    );
    Ok(0)
}

fn resolve_message(ctx: &Context, args: ResolveArgs, out: &mut Output) -> Result<u8> {
    let message = if args.message == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(16 << 20)
            .read_to_end(&mut bytes)
            .map_err(|err| Error::failure(format!("cannot read the message from stdin: {err}")))?;
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        args.message.to_string_lossy().into_owned()
    };
    let tags = obligations::tags(&message);
    if tags.is_empty() {
        return Ok(0);
    }
    let mut tx = ctx.transaction()?;
    let mut book = tx.store().obligations()?;
    let mut transitions = Vec::new();
    for (to, id) in tags {
        match book.resolve(&id, to, ctx.now) {
            Ok(transition) => transitions.extend(transition),
            // The message went out anyway; say what could not be resolved.
            Err(err) => out.warn(book_error(err).message),
        }
    }
    tx.save_obligations(&book, &transitions)?;
    super::finish(tx, out)?;
    report_transitions(ctx, &book, &transitions, out, "nothing changed");
    Ok(0)
}

fn book_error(err: BookError) -> Error {
    match err {
        BookError::NotFound(message) => Error::failure(format!("{message}; nothing changed")),
        BookError::NotArrived { id, status } => Error::refused(format!(
            "{id} is {status}: there is no result to deliver yet; wait for it, or `steward task dismiss {id}`"
        )),
    }
}

fn report_transitions(
    ctx: &Context,
    book: &Book,
    transitions: &[Transition],
    out: &mut Output,
    unchanged: &str,
) {
    if ctx.json {
        let changed: Vec<_> = transitions
            .iter()
            .filter_map(|t| book.get(&t.id))
            .map(obligation_json)
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "changed": changed}));
    } else if !ctx.quiet {
        if transitions.is_empty() {
            out.line(unchanged);
        }
        for t in transitions {
            let from = t.from.map_or_else(String::new, |f| format!("{f} -> "));
            let to = t.to.map_or("dropped", |s| s.as_str());
            out.line(format!("{}: {} {from}{to}", t.id, t.label));
        }
    }
}

/// What task transitions do to their linked goals (SPEC 7): a success
/// clears the goal's consecutive failures, a failure or timeout adds one,
/// new work moves a verifying goal back to active, and a goal whose linked
/// tasks have all succeeded becomes verifying. Goals that are blocked,
/// paused or closed are left alone. Each goal gets one history line.
pub(super) fn apply_to_goals(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    book: &Book,
    transitions: &[Transition],
    actor: Actor,
) -> Result<()> {
    let mut goal_ids: Vec<&str> = transitions
        .iter()
        .filter_map(|t| t.goal_id.as_deref())
        .collect();
    goal_ids.dedup();
    for goal_id in goal_ids {
        let Ok(loaded) = tx.resolve(goal_id) else {
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
        if let Some(saved) = apply_to_goal(tx, book, &loaded, &mine, actor)? {
            super::tick::enforce_limits(ctx, tx, saved)?;
        }
    }
    Ok(())
}

fn apply_to_goal(
    tx: &mut Transaction<'_>,
    book: &Book,
    loaded: &LoadedGoal,
    transitions: &[&Transition],
    actor: Actor,
) -> Result<Option<LoadedGoal>> {
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
            failures += 1;
            parts.push(format!("{name} {}", t.to.map_or("ended", |s| s.as_str())));
        } else if matches!(t.action, "task_spawned" | "task_retried") {
            parts.push(format!("{name} spawned"));
            if status == Status::Verifying {
                status = Status::Active;
            }
        }
    }
    let linked: Vec<_> = book.of_goal(&goal.id).collect();
    if !linked.is_empty()
        && linked.iter().all(|o| o.status.succeeded())
        && matches!(status, Status::Active | Status::Stalled)
    {
        status = Status::Verifying;
        parts.push("every linked task succeeded".to_string());
    }
    if parts.is_empty() {
        return Ok(None);
    }
    let mut file = loaded.file.clone();
    if failures != goal.progress.consecutive_failures {
        file.set(
            &["progress", "consecutive_failures"],
            YamlValue::Int(failures as i64),
        )?;
    }
    if status != goal.status {
        file.set(&["status"], YamlValue::Str(status.as_str().to_string()))?;
    }
    tx.save(
        Some(loaded),
        file,
        Change::new("task", parts.join("; ")).by(actor).always(),
    )
}
