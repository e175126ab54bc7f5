//! Telling a person (steward-guide(7), "TELLING A PERSON"): each event that
//! needs one — a goal blocked, failed, waiting for a person's judgement,
//! completed; the spend cap — is turned into one notification, recorded so
//! no later `tick` repeats it (steward-design(7), "A person is told once"),
//! and given to `notify.command` as one JSON document on stdin. A failing
//! notifier is tried again on later ticks, three times at most. In quiet
//! hours only critical goals are told; the rest waits for the digest.
//!
//! `state/notify.json` keeps how far into the event log notifications were
//! made and what is still to send (machine state).

use std::collections::BTreeMap;
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
use crate::model::{Goal, PersonWait, Priority, Status};
use crate::store::{Transaction, events};

/// Tries a notifier gets before steward gives up on a notification.
pub const MAX_ATTEMPTS: u32 = 3;
/// How long a notifier may run.
const NOTIFIER_TIMEOUT: Duration = Duration::from_secs(30);

/// One notification to send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// Stable: the same event always gives the same id (a notifier may
    /// use it to drop what it was given twice).
    pub id: String,
    pub event: String,
    pub at: String,
    /// The JSON document the notifier gets.
    pub document: Value,
    /// The route's command (`notify.routes`); `None`: `notify.command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// The pid of the `tick` sending it now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sending: Option<u32>,
}

/// A goal a person was told needs them: reminded while it waits, and told
/// once it no longer does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Told {
    pub label: String,
    pub event: String,
    /// When the person was last told (the need, or a reminder).
    pub at: String,
    #[serde(default)]
    pub reminders: u64,
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
    /// The goals a person was told need them, by id.
    #[serde(default)]
    pub told: BTreeMap<String, Told>,
}

fn outbox_path(ctx: &Context) -> PathBuf {
    ctx.store.state_dir.join("notify.json")
}

/// The first line of `state/notify.json` (`store::told`).
const OUTBOX_HEADER: &str = "steward outbox v2";

/// The outbox this machine wrote; `None` when there is none, or the file
/// does not verify (an agent's edit, another store's, an older format):
/// then the pass tells of the last day again.
fn read_verified_outbox(ctx: &Context) -> Option<Outbox> {
    let document = ctx.store.read_told(&outbox_path(ctx), OUTBOX_HEADER)?;
    serde_json::from_str(&document).ok()
}

pub fn read_outbox(ctx: &Context) -> Outbox {
    read_verified_outbox(ctx).unwrap_or_default()
}

fn write_outbox(ctx: &Context, tx: &mut Transaction<'_>, outbox: &Outbox) -> Result<()> {
    let document = serde_json::to_string(outbox).expect("the outbox serializes");
    let text = ctx.store.render_told(OUTBOX_HEADER, &document);
    let path = outbox_path(ctx);
    if crate::os::safe_file::read_state(&path).as_deref() == Some(text.as_str()) {
        return Ok(());
    }
    tx.write_file(&path, &text)
}

/// Whether anyone is told anything: a notifier, or a route.
pub(super) fn has_notifier(ctx: &Context) -> bool {
    ctx.config.notify.command.is_some() || !ctx.config.notify.routes.is_empty()
}

/// Under the tick's lock: turns the events since the last pass (and this
/// transaction's own) into notifications, reminds of goals that still wait
/// for a person and tells of those that no longer do, and claims what to
/// send now. Returns what to send once the lock is released.
pub fn collect(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    goals: &[&Goal],
    problems: &[(String, String)],
) -> Result<Vec<Notification>> {
    let notify = &ctx.config.notify;
    if !has_notifier(ctx) {
        // Nobody to tell: nothing is kept; a notifier set up later tells
        // of the last day first.
        return Ok(Vec::new());
    }
    let verified = read_verified_outbox(ctx);
    let first_pass = verified
        .as_ref()
        .is_none_or(|outbox| outbox.events.is_none());
    let mut outbox = verified.unwrap_or_default();
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
    // In a store machines share, each tells what its own steward wrote:
    // every machine reads every event, and a person hears of each once.
    if super::fleet::shared(ctx) {
        let tells = super::fleet::read(ctx).tells_for(ctx);
        new.retain(|event| event.by.as_deref().is_none_or(&tells));
    }
    new.extend_from_slice(tx.pending_events());
    outbox.events = Some(log.cursor_after(&cursor, tx.pending_events(), ctx.store.keys.signer()));
    let quiet = notify.quiet_hours.is_some_and(|hours| {
        let local = ctx.now.with_timezone(&chrono::Local);
        hours.contains(local.hour() * 60 + local.minute())
    });
    let now = crate::model::format_time(ctx.now);
    let mut lookup = Lookup::new(ctx, goals);
    for event in &new {
        let Some((kind, goal)) = classify(event, &mut lookup, &notify.on) else {
            continue;
        };
        let notification = Draft {
            id: event_id(event, &kind),
            document: document_for_event(&kind, event, goal.as_ref()),
            kind,
            at: event.ts.clone(),
            goal,
        };
        outbox.queue(ctx, notification, quiet);
    }
    for (path, message) in problems {
        let draft = Draft {
            id: format!("{now}-{}-problem", crate::model::fingerprint(path)),
            kind: "problem".to_string(),
            at: now.clone(),
            document: document(
                "problem",
                &now,
                None,
                &format!("{message}; every other goal is still watched"),
                vec!["steward doctor".to_string()],
            ),
            goal: None,
        };
        outbox.queue(ctx, draft, quiet);
    }
    follow_up_waits(ctx, &mut outbox, &mut lookup, &now, quiet);
    let me = std::process::id();
    let mut to_send = Vec::new();
    for notification in &mut outbox.pending {
        let claimed = notification
            .sending
            .is_some_and(|pid| pid != me && crate::os::process::is_alive(pid));
        if !claimed {
            notification.sending = Some(me);
            to_send.push(notification.clone());
        }
    }
    if let Err(err) = write_outbox(ctx, tx, &outbox) {
        // What cannot be kept is told anyway, and again next pass: better
        // twice than never (an agent may have put a directory there).
        to_send.push(unkept(&now, &err.to_string()));
    }
    Ok(to_send)
}

/// The notification that the outbox could not be written.
fn unkept(now: &str, why: &str) -> Notification {
    let message = format!("{why}; until it is mended, what steward tells is told again each pass");
    let id = format!("{now}-outbox-problem");
    let mut document = document(
        "problem",
        now,
        None,
        &message,
        vec!["steward doctor".into()],
    );
    document["id"] = Value::String(id.clone());
    Notification {
        id,
        event: "problem".to_string(),
        at: now.to_string(),
        document,
        command: None,
        attempts: 0,
        last_error: None,
        sending: None,
    }
}

/// A notification before it is queued.
struct Draft {
    id: String,
    kind: String,
    at: String,
    document: Value,
    goal: Option<Goal>,
}

impl Outbox {
    /// Queues `draft` for the route that takes it (held in quiet hours but
    /// for critical goals), and remembers a goal a person is now waited
    /// for.
    fn queue(&mut self, ctx: &Context, draft: Draft, quiet: bool) {
        let goal = draft.goal.as_ref();
        if needs_a_person(&draft.kind)
            && let Some(goal) = goal
        {
            self.told.insert(
                goal.id.clone(),
                Told {
                    label: goal.label.clone(),
                    event: draft.kind.clone(),
                    at: crate::model::format_time(ctx.now),
                    reminders: 0,
                },
            );
        }
        let critical = goal.is_some_and(|g| g.priority == Priority::Critical);
        if quiet && !critical {
            self.held += 1;
            return;
        }
        if self.pending.iter().any(|n| n.id == draft.id) {
            return;
        }
        let notify = &ctx.config.notify;
        let route = notify.routes.iter().find(|route| {
            route.matches(
                &draft.kind,
                goal.map(|g| &g.priority),
                goal.and_then(|g| g.record.owner.as_deref()),
            )
        });
        if route.is_none() && notify.command.is_none() {
            return;
        }
        let mut document = draft.document;
        // The same event always has the same id: a notifier may drop what
        // it was given twice.
        document["id"] = Value::String(draft.id.clone());
        self.pending.push(Notification {
            id: draft.id,
            event: draft.kind,
            at: draft.at,
            document,
            command: route.map(|r| r.command.clone()),
            attempts: 0,
            last_error: None,
            sending: None,
        });
    }
}

/// The events after which a person is waited for, and reminded.
fn needs_a_person(kind: &str) -> bool {
    matches!(
        kind,
        "blocked"
            | "circuit_breaker"
            | "no_progress"
            | "failures"
            | "budget"
            | "agent"
            | "review"
            | "merge"
    ) || kind == "verifying"
}

/// Whether `goal` still waits for a person.
fn waits_for_a_person(goal: &Goal) -> bool {
    !goal.status.is_terminal()
        && (goal.status == Status::Blocked
            || goal
                .waiting
                .as_ref()
                .is_some_and(|w| w.for_person.is_some()))
}

/// For each goal a person was told needs them: told again after
/// `remind_after` (at most `max_reminders` times), and told once it no
/// longer waits — done, working again, or given up.
fn follow_up_waits(
    ctx: &Context,
    outbox: &mut Outbox,
    lookup: &mut Lookup<'_>,
    now: &str,
    quiet: bool,
) {
    let notify = &ctx.config.notify;
    let told: Vec<(String, Told)> = std::mem::take(&mut outbox.told).into_iter().collect();
    for (id, mut told) in told {
        let Some(goal) = lookup.goal(&id, &told.label) else {
            // Gone (deleted): nothing to wait for.
            continue;
        };
        if !waits_for_a_person(&goal) {
            if notify.on.iter().any(|e| e == "resolved") {
                let how = if goal.status.is_terminal() {
                    goal.status.as_str().to_string()
                } else {
                    format!("back to {}", goal.status.as_str())
                };
                let draft = Draft {
                    id: format!("{now}-{id}-resolved"),
                    kind: "resolved".to_string(),
                    at: now.to_string(),
                    document: document(
                        "resolved",
                        now,
                        Some(&goal),
                        &format!(
                            "{} ({how}) no longer needs a person; you were told it did ({}) at {}",
                            goal.label, told.event, told.at
                        ),
                        vec![format!("steward show {}", goal.label)],
                    ),
                    goal: Some(goal),
                };
                outbox.queue(ctx, draft, quiet);
            }
            continue;
        }
        let remind = notify.remind_after.0 > 0
            && told.reminders < notify.max_reminders
            && crate::model::parse_time(&told.at)
                .is_some_and(|at| ctx.now >= at + notify.remind_after.to_chrono());
        if remind && notify.on.iter().any(|e| e == "reminder") {
            told.reminders += 1;
            told.at = now.to_string();
            let why = goal
                .escalation
                .as_ref()
                .map(|e| e.reason.clone())
                .or_else(|| goal.waiting.as_ref().map(|w| w.reason.clone()))
                .unwrap_or_else(|| goal.status.as_str().to_string());
            let draft = Draft {
                id: format!("{now}-{id}-reminder"),
                kind: "reminder".to_string(),
                at: now.to_string(),
                document: document(
                    "reminder",
                    now,
                    Some(&goal),
                    &format!(
                        "{} still waits for a person ({}, reminder {} of {}): {why}",
                        goal.label, told.event, told.reminders, notify.max_reminders
                    ),
                    person_commands(&told.event, &goal),
                ),
                goal: Some(goal),
            };
            outbox.told.insert(id.clone(), told);
            outbox.queue(ctx, draft, quiet);
            continue;
        }
        outbox.told.insert(id, told);
    }
}

/// Goals by id: the open ones of the pass, closed ones read when an event
/// is about one.
struct Lookup<'a> {
    ctx: &'a Context,
    open: &'a [&'a Goal],
    closed: BTreeMap<String, Option<Goal>>,
}

impl<'a> Lookup<'a> {
    fn new(ctx: &'a Context, open: &'a [&'a Goal]) -> Lookup<'a> {
        Lookup {
            ctx,
            open,
            closed: BTreeMap::new(),
        }
    }

    /// The goal with `id`, last seen with `label`.
    fn goal(&mut self, id: &str, label: &str) -> Option<Goal> {
        if id.is_empty() {
            return None;
        }
        if let Some(goal) = self.open.iter().find(|g| g.id == id) {
            return Some((*goal).clone());
        }
        let ctx = self.ctx;
        self.closed
            .entry(id.to_string())
            .or_insert_with(|| {
                ctx.store
                    .refind(id, label)
                    .ok()
                    .map(|loaded| (*loaded.goal).clone())
            })
            .clone()
    }
}

/// A stable id for the notification `kind` an event makes.
fn event_id(event: &events::Event, kind: &str) -> String {
    let goal = if event.goal_id.is_empty() {
        crate::model::fingerprint(&event.detail)
    } else {
        event.goal_id.clone()
    };
    format!("{}-{goal}-{kind}", event.ts)
}

/// The notification an event makes, if `on` asks for it: its name and
/// the goal. A block is named by its escalation kind when `on` lists it.
fn classify(
    event: &events::Event,
    lookup: &mut Lookup<'_>,
    on: &[String],
) -> Option<(String, Option<Goal>)> {
    let goal = lookup.goal(&event.goal_id, &event.label);
    let kind = match (event.action.as_str(), event.to.as_deref()) {
        ("spend_cap", _) => "spend_cap".to_string(),
        ("usage_limited", _) => "limited".to_string(),
        ("merge_conflict", _) => "merge".to_string(),
        ("run_awaits_person", _) => "permission".to_string(),
        ("reply_applied" | "reply_refused", _) => "answered".to_string(),
        ("machine_stale", _) => "machine".to_string(),
        ("config_held", _) => "config".to_string(),
        ("edited_outside" | "closed_by_hand" | "deleted_outside", _) => "review".to_string(),
        (_, Some("blocked")) => {
            let escalation = goal
                .as_ref()
                .and_then(|g| g.escalation.as_ref())
                .map(|e| e.kind.clone())
                .filter(|kind| on.contains(kind));
            escalation.unwrap_or_else(|| "blocked".to_string())
        }
        // A goal whose checks all pass is completed by the agent (or the
        // next run): a person is told only when the judge left it to them.
        (_, Some("verifying")) => {
            let judgment = goal.as_ref().is_some_and(|g| {
                g.waiting
                    .as_ref()
                    .is_some_and(|w| w.for_person == Some(PersonWait::Judgment))
            });
            if !judgment {
                return None;
            }
            "verifying".to_string()
        }
        (_, Some(status @ ("failed" | "completed"))) => status.to_string(),
        _ => return None,
    };
    // What a person already dealt with since (unblocked, reviewed) is
    // not news.
    let still = goal.as_ref().is_none_or(|g| match kind.as_str() {
        "review" => {
            g.status.is_terminal()
                || g.waiting
                    .as_ref()
                    .is_some_and(|w| w.for_person == Some(PersonWait::Review))
        }
        "completed" | "failed" | "spend_cap" | "limited" | "permission" | "answered" | "config"
        | "machine" => true,
        "merge" => g
            .waiting
            .as_ref()
            .is_some_and(|w| w.for_person == Some(PersonWait::Merge)),
        _ => waits_for_a_person(g),
    });
    // The spend cap stops every run, and an answer was the person's own
    // act: a person is always told.
    let always = kind == "spend_cap" || kind == "answered";
    (still && (always || on.contains(&kind))).then_some((kind, goal))
}

/// The document the notification `kind` of `event` gets.
fn document_for_event(kind: &str, event: &events::Event, goal: Option<&Goal>) -> Value {
    let Some(goal) = goal else {
        if kind == "machine" {
            let why = event.detail.split_once(": ").map_or("", |(_, why)| why);
            let commands = vec!["steward fleet".to_string()];
            return document(kind, &event.ts, None, why, commands);
        }
        // The settings held, then the lines that differ.
        if kind == "config" {
            let mut lines = event.detail.lines();
            let head = lines.next().unwrap_or_default();
            let why = head.split_once(": ").map_or(head, |(_, why)| why);
            let commands = vec!["steward config accept".to_string()];
            let mut document = document(kind, &event.ts, None, why, commands);
            document["changes"] = json!(lines.collect::<Vec<_>>());
            return document;
        }
        let commands = vec![
            "steward status".to_string(),
            "steward runs --all".to_string(),
        ];
        let why = if kind == "answered" {
            answer_words(event)
        } else {
            event.detail.clone()
        };
        return document(kind, &event.ts, None, &why, commands);
    };
    let why = match kind {
        "review" | "spend_cap" | "limited" | "permission" => event.detail.clone(),
        "answered" => answer_words(event),
        // Why, then the exact commands, a line each.
        "merge" => {
            let mut lines = event.detail.lines();
            let why = lines.next().unwrap_or_default().to_string();
            let commands = lines.map(str::to_string).collect();
            return document(kind, &event.ts, Some(goal), &why, commands);
        }
        _ => goal
            .escalation
            .as_ref()
            .map(|e| e.reason.clone())
            .or_else(|| goal.closed_reason.clone())
            .unwrap_or_else(|| event.detail.clone()),
    };
    document(
        kind,
        &event.ts,
        Some(goal),
        &why,
        person_commands(kind, goal),
    )
}

/// What became of a person's answer from the phone, in their words (the
/// event's detail is `NONCE ACT LABEL by CHANNEL: what`).
fn answer_words(event: &events::Event) -> String {
    let (head, what) = (event.detail.split_once(": ")).unwrap_or(("", event.detail.as_str()));
    let act = head.split(' ').nth(1).unwrap_or("answer");
    let how = if event.action == "reply_applied" {
        "was applied"
    } else {
        "was refused"
    };
    format!("your answer `{act}` {how}: {what}")
}

/// The exact commands a person runs on `goal` after a `kind` notification.
fn person_commands(kind: &str, goal: &Goal) -> Vec<String> {
    let label = &goal.label;
    match kind {
        "budget" => vec![
            format!("steward reset-budget {label}"),
            format!("steward show {label}"),
        ],
        "failed" | "completed" | "resolved" | "limited" => vec![format!("steward show {label}")],
        // The client asks in its session; a run steward started has no one
        // there: stop it, or let it time out.
        "permission" => vec![
            format!("steward show {label}"),
            "steward runs".to_string(),
            "steward runs kill RUN".to_string(),
        ],
        "verifying" => vec![
            format!("steward show {label}"),
            format!("steward complete {label} --reason \"...\""),
        ],
        "review" => vec![
            format!("steward show {label}"),
            format!("steward accept {label}"),
        ],
        "spend_cap" => vec![
            "steward budget".to_string(),
            "steward runs --all".to_string(),
        ],
        _ => vec![
            format!("steward show {label}"),
            format!("steward unblock {label} --reason \"...\""),
        ],
    }
}

/// The document a notifier gets: the event, the goal (label, title, owner,
/// where it stands), what happened, and the exact commands a person can
/// run.
fn document(kind: &str, at: &str, goal: Option<&Goal>, why: &str, commands: Vec<String>) -> Value {
    let why = crate::text::head(&crate::text::one_line(why), 200);
    let Some(goal) = goal else {
        return json!({
            "schema_version": 1,
            "event": kind,
            "at": at,
            "message": format!("steward: {kind}: {why}"),
            "goal": Value::Null,
            "commands": commands,
        });
    };
    let label = &goal.label;
    let owner = goal
        .record
        .owner
        .as_ref()
        .map_or_else(String::new, |owner| format!(" [{owner}]"));
    json!({
        "schema_version": 1,
        "event": kind,
        "at": at,
        "message": format!("steward: {label} ({}){owner} {kind}: {why}", crate::text::head(&crate::text::one_line(&goal.title), 80)),
        "goal": {
            "id": goal.id,
            "label": label,
            "title": goal.title,
            "status": goal.status.as_str(),
            "priority": goal.priority.as_str(),
            "escalation": goal.escalation.as_ref().map(|e| json!({"kind": e.kind, "reason": e.reason})),
            "waiting": goal.waiting.as_ref().map(|w| json!({"reason": w.reason, "for_person": w.for_person.map(PersonWait::as_str)})),
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
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let mut issued = Vec::new();
    let results: Vec<(String, std::result::Result<(), String>)> = claimed
        .iter()
        .map(|n| {
            // The answers are made now, for the notifier only: never kept
            // in the outbox, which the agents can read.
            let mut document = n.document.clone();
            issued.extend(super::reply::offer(ctx, &mut document));
            let sent = match n.command.as_ref().or(ctx.config.notify.command.as_ref()) {
                Some(command) => run_notifier(ctx, command, &document),
                None => Err("no notify.command, and no route takes it".to_string()),
            };
            (n.id.clone(), sent)
        })
        .collect();
    let mut warnings = Vec::new();
    let mut tx = ctx.transaction()?;
    for super::reply::Issued { capability } in &issued {
        tx.record_store_event(
            "reply_issued",
            &format!(
                "{} {} {} until {}",
                capability.nonce,
                capability.act.as_str(),
                capability.label,
                capability.expires
            ),
        );
    }
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
    if let Err(err) = write_outbox(ctx, &mut tx, &outbox) {
        warnings.push(format!("{err}: what was sent is sent again next pass"));
    }
    let notices = super::finish(tx)?;
    warnings.extend(notices.warnings);
    Ok(warnings)
}

/// `notify.ping`, after a pass that went through: a dead man's switch (a
/// service that hears nothing for a while tells the person that cron
/// stopped running `tick`). Gets `{"event": "ping", "at", "open_goals",
/// "needs_attention"}`; a failure is a warning.
pub fn ping(ctx: &Context, open_goals: usize, needs_attention: &[String]) -> Option<String> {
    let command = ctx.config.notify.ping.as_ref()?;
    let document = json!({
        "schema_version": 1,
        "event": "ping",
        "at": crate::model::format_time(ctx.now),
        "message": format!("steward: tick ran: {open_goals} open, {} need a person", needs_attention.len()),
        "open_goals": open_goals,
        "needs_attention": needs_attention,
    });
    run_notifier(ctx, command, &document)
        .err()
        .map(|why| format!("notify.ping failed: {why}"))
}

/// The members of ntfy's JSON publish body but `topic` (title, message,
/// the answers' action buttons), for a recipe that writes
/// `{"topic": "...", $STEWARD_NOTIFY_NTFY_FIELDS}` without a JSON parser.
fn ntfy_fields(event: &str, message: &str, actions: &Value) -> String {
    let actions = if actions.is_array() {
        actions.clone()
    } else {
        Value::Array(Vec::new())
    };
    let body = json!({"title": format!("steward {event}"), "message": message, "actions": actions});
    let text = body.to_string();
    text[1..text.len() - 1].to_string()
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
        .env(
            "STEWARD_NOTIFY_NTFY_FIELDS",
            ntfy_fields(&text("event"), &message, &document["ntfy_actions"]),
        )
        .env("STEWARD_NOTIFY_MESSAGE", message)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group, and this process the reaper of whatever
        // leaves that group: all of it is stopped when the notifier ends.
        .process_group(0);
    let others = crate::os::process::children_of(std::process::id());
    crate::os::process::become_subreaper();
    let mut child = child
        .spawn()
        .map_err(|err| format!("cannot start `{program}`: {err}"))?;
    let stop_the_rest = |child: &std::process::Child| {
        crate::os::process::kill_with_group(child.id());
        crate::os::process::kill_orphans(&others);
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
