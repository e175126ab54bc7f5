//! Telling a person (SPEC 13): each event that needs one — a goal blocked,
//! failed, waiting for a person's judgement, completed; the spend cap — is
//! turned into one notification, recorded so no later `tick` repeats it,
//! and given to `notify.command` as one JSON document on stdin. A failing
//! notifier is tried again on later ticks, three times at most. In quiet
//! hours only critical goals are told; the rest waits for the digest.
//!
//! `state/notify.json` keeps how far into the event log notifications were
//! made and what is still to send (machine state).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Timelike;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Priority};
use crate::store::{Transaction, events};

/// Tries a notifier gets before steward gives up on a notification.
pub const MAX_ATTEMPTS: u32 = 3;
/// How long a notifier may run.
const NOTIFIER_TIMEOUT: Duration = Duration::from_secs(30);

/// One notification to send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub id: String,
    pub event: String,
    pub at: String,
    /// The JSON document the notifier gets.
    pub document: Value,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The pid of the `tick` sending it now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sending: Option<u32>,
}

/// What notifications stand at.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Outbox {
    /// Where turning the event log into notifications stopped; `None` in
    /// an outbox from before the log was split by day (read as a first
    /// pass).
    #[serde(default)]
    pub events: Option<events::Cursor>,
    pub pending: Vec<Notification>,
    /// Given up after MAX_ATTEMPTS, newest last (a few are kept for
    /// `status`).
    #[serde(default)]
    pub failed: Vec<Notification>,
    /// Held in quiet hours for the digest.
    #[serde(default)]
    pub held: u64,
    #[serde(default)]
    pub sent: u64,
}

fn outbox_path(ctx: &Context) -> PathBuf {
    ctx.store.state_dir.join("notify.json")
}

pub fn read_outbox(ctx: &Context) -> Outbox {
    crate::store::safe::read_state(&outbox_path(ctx))
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write_outbox(ctx: &Context, tx: &mut Transaction<'_>, outbox: &Outbox) -> Result<()> {
    let text = serde_json::to_string_pretty(outbox).expect("the outbox serializes") + "\n";
    let path = outbox_path(ctx);
    if crate::store::safe::read_state(&path).as_deref() == Some(text.as_str()) {
        return Ok(());
    }
    tx.write_file(&path, &text)
}

/// Under the tick's lock: turns the events since the last pass (and this
/// transaction's own) into notifications, and claims those to send now.
/// Returns what to send once the lock is released.
pub fn collect(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    goals: &[&Goal],
) -> Result<Vec<Notification>> {
    let notify = &ctx.config.notify;
    if notify.command.is_none() {
        // Nobody to tell: nothing is kept; a notifier set up later tells
        // of the last day first.
        return Ok(Vec::new());
    }
    let mut outbox = read_outbox(ctx);
    let first_pass = !outbox_path(ctx).exists() || outbox.events.is_none();
    let log = ctx.store.log();
    // The first pass tells of the last day, not of the store's whole past
    // (read a line at a time, never held).
    let since = first_pass.then(|| crate::model::format_time(ctx.now - chrono::Duration::days(1)));
    let mut new = Vec::new();
    let cursor = log.each_from(
        &outbox.events.clone().unwrap_or_default(),
        |event: events::Event| {
            if since.as_ref().is_none_or(|since| event.ts >= *since) {
                new.push(event);
            }
        },
    )?;
    new.extend_from_slice(tx.pending_events());
    outbox.events = Some(log.cursor_after(&cursor, tx.pending_events(), ctx.store.keys.signer()));
    let quiet = notify.quiet_hours.is_some_and(|hours| {
        let local = ctx.now.with_timezone(&chrono::Local);
        hours.contains(local.hour() * 60 + local.minute())
    });
    for event in &new {
        let Some((kind, goal)) = classify(event, goals, &notify.on) else {
            continue;
        };
        let critical = goal.is_some_and(|g| g.priority == Priority::Critical);
        if quiet && !critical {
            outbox.held += 1;
            continue;
        }
        let id = format!("{}-{}-{kind}", event.ts, event.goal_id);
        if outbox.pending.iter().any(|n| n.id == id) {
            continue;
        }
        outbox.pending.push(Notification {
            id,
            event: kind.clone(),
            at: event.ts.clone(),
            document: document(&kind, &event.ts, goal, event),
            attempts: 0,
            last_error: None,
            sending: None,
        });
    }
    let me = std::process::id();
    let mut to_send = Vec::new();
    for notification in &mut outbox.pending {
        let claimed = notification
            .sending
            .is_some_and(|pid| pid != me && crate::process::is_alive(pid));
        if !claimed {
            notification.sending = Some(me);
            to_send.push(notification.clone());
        }
    }
    write_outbox(ctx, tx, &outbox)?;
    Ok(to_send)
}

/// The notification an event makes, if `on` asks for it: its name and
/// the goal. A block is named by its escalation kind when `on` lists it.
fn classify<'g>(
    event: &events::Event,
    goals: &[&'g Goal],
    on: &[String],
) -> Option<(String, Option<&'g Goal>)> {
    let goal = goals.iter().copied().find(|g| g.id == event.goal_id);
    let kind = match (event.action.as_str(), event.to.as_deref()) {
        ("spend_cap", _) => "spend_cap".to_string(),
        (_, Some("blocked")) => {
            let escalation = goal
                .and_then(|g| g.escalation.as_ref())
                .map(|e| e.kind.clone())
                .filter(|kind| on.contains(kind));
            escalation.unwrap_or_else(|| "blocked".to_string())
        }
        (_, Some(status @ ("failed" | "verifying" | "completed"))) => status.to_string(),
        _ => return None,
    };
    // The spend cap stops every run: a person is always told.
    (kind == "spend_cap" || on.contains(&kind)).then_some((kind, goal))
}

/// The document a notifier gets: the event, the goal, and the exact
/// commands a person can run.
fn document(kind: &str, at: &str, goal: Option<&Goal>, event: &events::Event) -> Value {
    let Some(goal) = goal else {
        return json!({
            "schema_version": 1,
            "event": kind,
            "at": at,
            "message": format!("steward: {kind}: {}", event.detail),
            "goal": Value::Null,
            "commands": ["steward status", "steward runs --all"],
        });
    };
    let label = &goal.label;
    let commands: Vec<String> = match kind {
        "budget" => vec![
            format!("steward reset-budget {label}"),
            format!("steward show {label}"),
        ],
        "failed" | "completed" => vec![format!("steward show {label}")],
        "verifying" => vec![
            format!("steward show {label}"),
            format!("steward complete {label} --reason \"...\""),
        ],
        _ => vec![
            format!("steward show {label}"),
            format!("steward unblock {label} --reason \"...\""),
        ],
    };
    let why = goal
        .escalation
        .as_ref()
        .map(|e| e.reason.clone())
        .or_else(|| goal.closed_reason.clone())
        .unwrap_or_else(|| event.detail.clone());
    json!({
        "schema_version": 1,
        "event": kind,
        "at": at,
        "message": format!("steward: {label} {kind}: {}", crate::text::head(&crate::text::one_line(&why), 200)),
        "goal": {
            "id": goal.id,
            "label": label,
            "title": goal.title,
            "status": goal.status.as_str(),
            "priority": goal.priority.as_str(),
            "escalation": goal.escalation.as_ref().map(|e| json!({"kind": e.kind, "reason": e.reason})),
            "last_summary": goal.progress.last_outcome,
            "criteria_met": goal.criteria_met(),
            "criteria_total": goal.criteria.len(),
            "owner": goal.record.owner,
            "origin": goal.record.origin,
            "constraints": goal.record.constraints,
            "non_goals": goal.record.non_goals,
            "risks": goal.record.risks,
        },
        "commands": commands,
    })
}

/// After the lock is released: runs the notifier for each notification,
/// then records what was sent and what failed.
pub fn send(ctx: &Context, claimed: Vec<Notification>) -> Result<Vec<String>> {
    let Some(command) = ctx.config.notify.command.clone() else {
        return Ok(Vec::new());
    };
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let results: Vec<(String, std::result::Result<(), String>)> = claimed
        .iter()
        .map(|n| (n.id.clone(), run_notifier(ctx, &command, &n.document)))
        .collect();
    let mut warnings = Vec::new();
    let mut tx = ctx.transaction()?;
    let mut outbox = read_outbox(ctx);
    for (id, result) in results {
        let Some(index) = outbox.pending.iter().position(|n| n.id == id) else {
            continue;
        };
        match result {
            Ok(()) => {
                outbox.pending.remove(index);
                outbox.sent += 1;
            }
            Err(why) => {
                let notification = &mut outbox.pending[index];
                notification.attempts += 1;
                notification.sending = None;
                warnings.push(format!(
                    "notify.command failed for {} (attempt {}/{MAX_ATTEMPTS}): {why}",
                    notification.id, notification.attempts
                ));
                notification.last_error = Some(why);
                if notification.attempts >= MAX_ATTEMPTS {
                    let given_up = outbox.pending.remove(index);
                    outbox.failed.push(given_up);
                    let excess = outbox.failed.len().saturating_sub(20);
                    outbox.failed.drain(..excess);
                }
            }
        }
    }
    write_outbox(ctx, &mut tx, &outbox)?;
    let notices = super::finish(tx)?;
    warnings.extend(notices.warnings);
    Ok(warnings)
}

/// Runs the notifier with `document` on stdin, in the root, within
/// NOTIFIER_TIMEOUT.
fn run_notifier(
    ctx: &Context,
    command: &[String],
    document: &Value,
) -> std::result::Result<(), String> {
    let (program, args) = command.split_first().ok_or("notify.command is empty")?;
    let text = |key: &str| document[key].as_str().unwrap_or_default().to_string();
    let message = text("message");
    let mut child = Command::new(program);
    child
        .args(args)
        .current_dir(&ctx.root)
        // The one line a phone shows, for recipes without a JSON parser.
        .env("STEWARD_NOTIFY_EVENT", text("event"))
        .env(
            "STEWARD_NOTIFY_GOAL",
            document["goal"]["label"].as_str().unwrap_or_default(),
        )
        .env(
            "STEWARD_NOTIFY_MESSAGE_JSON",
            serde_json::to_string(&message).expect("strings serialize"),
        )
        .env("STEWARD_NOTIFY_MESSAGE", message)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group, and this process the reaper of whatever
        // leaves that group: all of it is stopped when the notifier ends.
        .process_group(0);
    let others = crate::process::children_of(std::process::id());
    crate::process::become_subreaper();
    let mut child = child
        .spawn()
        .map_err(|err| format!("cannot start `{program}`: {err}"))?;
    let stop_the_rest = |child: &std::process::Child| {
        crate::process::kill_with_group(child.id());
        crate::process::kill_orphans(&others);
    };
    if let Some(mut stdin) = child.stdin.take() {
        let text = serde_json::to_string(document).expect("documents serialize") + "\n";
        let _ = stdin.write_all(text.as_bytes());
    }
    let deadline = Instant::now() + NOTIFIER_TIMEOUT;
    loop {
        let exited = child.try_wait();
        if !matches!(exited, Ok(None)) || Instant::now() >= deadline {
            // Before its error output is read: a child still holding the
            // pipe would keep the reader waiting.
            stop_the_rest(&child);
        }
        match exited {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                return Err(format!(
                    "`{program}` {status}{}",
                    if stderr.trim().is_empty() {
                        String::new()
                    } else {
                        format!(
                            ": {}",
                            crate::text::head(&crate::text::one_line(&stderr), 200)
                        )
                    }
                ));
            }
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.wait();
                return Err(format!(
                    "`{program}` took longer than {}s",
                    NOTIFIER_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(err) => return Err(format!("`{program}`: {err}")),
        }
    }
}
