//! Taking answers: each reply that came back (a file a pull brought under
//! `state/replies/`, a message on the ntfy reply topic) is verified — the
//! issuing machine trusted here, its signature, never used, not expired,
//! the goal in the state it was issued for, the act still on its menu —
//! and then applied as the person's own act through the same verbs a
//! person runs, recorded with its channel and nonce. Anything else is
//! refused and said why; nothing is half-applied: the act is one verb's
//! one transaction, and the judge still runs every check.

use std::path::{Path, PathBuf};

use super::capability::{Act, CONFIG, Capability, Reply, is_nonce, menu};
use crate::context::{Context, GlobalOptions};
use crate::error::{Error, Result};
use crate::model::{Actor, format_time};
use crate::os::safe_file;

/// The most reply files one pass takes.
const GIT_REPLIES_PER_PASS: usize = 32;

/// The largest reply file read.
const REPLY_BYTES: u64 = 64 * 1024;

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Git,
    Ntfy,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Git => "git",
            Channel::Ntfy => "ntfy",
        }
    }
}

/// One answer that came back, before it is verified.
pub struct Incoming {
    pub channel: Channel,
    /// The reply file, for an answer by git: removed once taken.
    pub file: Option<PathBuf>,
    pub text: String,
}

/// What taking the answers did: a line each, for `tick -q` and `sync`.
#[derive(Debug, Default)]
pub struct Taken {
    pub applied: Vec<String>,
    /// (the reply, why it was refused).
    pub refused: Vec<(String, String)>,
    pub warnings: Vec<String>,
}

/// The reply files a pull brought, oldest name first. A folder that is a
/// link (a collaborator could push one) is not read: its files would be
/// taken, copied and removed wherever it leads.
pub fn from_git(ctx: &Context) -> std::result::Result<Vec<Incoming>, String> {
    let dir = super::replies_dir(ctx);
    if let Some(why) = not_a_folder(&dir) {
        return Err(format!(
            "{}: {why}: answers by git are not read until it is a folder again",
            ctx.store.relative(&dir)
        ));
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    // A flood of reply files (forged ones pushed by whoever can push) is
    // taken a bounded number a pass; the rest wait for the next.
    files.truncate(GIT_REPLIES_PER_PASS);
    Ok(files
        .into_iter()
        .map(|path| Incoming {
            channel: Channel::Git,
            text: match safe_file::read_text(&path, REPLY_BYTES) {
                Ok(Some(text)) => text,
                _ => String::new(),
            },
            file: Some(path),
        })
        .collect())
}

/// Why `dir` cannot hold answers, when it exists and is not a folder of
/// its own (a link, a file).
fn not_a_folder(dir: &Path) -> Option<&'static str> {
    let metadata = std::fs::symlink_metadata(dir).ok()?;
    if metadata.file_type().is_symlink() {
        Some("a symbolic link")
    } else if !metadata.is_dir() {
        Some("not a folder")
    } else {
        None
    }
}

/// Verifies and applies each of `incoming`.
pub fn take(ctx: &Context, incoming: Vec<Incoming>) -> Taken {
    let mut taken = Taken::default();
    for answer in incoming {
        let shown = match &answer.file {
            Some(path) => ctx.store.relative(path),
            None => format!("an answer by {}", answer.channel.as_str()),
        };
        let reply = serde_json::from_str::<Reply>(&answer.text).ok();
        // What only the machine that offered it can do is left for it.
        if reply
            .as_ref()
            .is_some_and(|r| r.reply.act.is_local() && r.reply.machine != ctx.store.keys.machine())
        {
            continue;
        }
        // The nonce an unreadable answer was named for is used up too.
        let named = (answer.file.as_deref())
            .and_then(|path| path.file_stem()?.to_str())
            .filter(|stem| is_nonce(stem));
        let outcome = match &reply {
            Some(reply) => verify_and_apply(ctx, reply, &answer),
            None => match named.and_then(|nonce| used_before(ctx, nonce, None)) {
                Some(how) => Err(used(how)),
                None => Err(Refusal::new("it is not a reply steward can read")),
            },
        };
        let nonce = reply.as_ref().map(|r| r.reply.nonce.as_str()).or(named);
        let recorded = match &outcome {
            Ok(did) => record(ctx, reply.as_ref(), nonce, &answer, "reply_applied", did),
            Err(refusal) => record(
                ctx,
                reply.as_ref(),
                nonce,
                &answer,
                "reply_refused",
                &refusal.0,
            ),
        };
        if let Err(err) = recorded {
            taken.warnings.push(format!("{shown}: {err}"));
        }
        match outcome {
            Ok(did) => taken.applied.push(format!("{shown}: {did}")),
            Err(refusal) => taken.refused.push((shown, refusal.0)),
        }
    }
    taken
}

/// Why an answer is not applied.
struct Refusal(String);

impl Refusal {
    fn new(why: impl Into<String>) -> Refusal {
        Refusal(why.into())
    }
}

fn verify_and_apply(
    ctx: &Context,
    reply: &Reply,
    answer: &Incoming,
) -> std::result::Result<String, Refusal> {
    let cap = &reply.reply;
    if cap.v != 1 || !is_nonce(&cap.nonce) {
        return Err(Refusal::new("it is not a reply steward can read"));
    }
    if let Some(path) = &answer.file
        && path.file_name().and_then(|n| n.to_str()) != Some(&format!("{}.json", cap.nonce))
    {
        return Err(Refusal::new(format!(
            "its file is not named for its nonce ({}.json)",
            cap.nonce
        )));
    }
    if let Some(how) = used_before(ctx, &cap.nonce, Some(&cap.issued)) {
        return Err(used(how));
    }
    let trusted = ctx.store.trusted_machines();
    let Some(key) = trusted.get(&cap.machine) else {
        return Err(Refusal::new(format!(
            "machine {} is not one this machine trusts",
            cap.machine
        )));
    };
    if !cap.verifies(key, &reply.sig) {
        return Err(Refusal::new(
            "its signature does not verify: it was forged or changed",
        ));
    }
    let now = format_time(ctx.now);
    if now > cap.expires {
        return Err(Refusal::new(format!("it expired at {}", cap.expires)));
    }
    if cap.subject == CONFIG {
        config_holds(ctx, cap)?;
    } else {
        goal_holds(ctx, cap)?;
    }
    let person = person(ctx, cap, answer.channel).map_err(|e| Refusal::new(e.to_string()))?;
    apply(&person, cap.act, &cap.subject, &cap.state, &reply.note)
        .map(|did| format!("{did} ({} by {})", cap.label, answer.channel.as_str()))
        .map_err(|err| Refusal::new(err.to_string()))
}

/// Why the answer `cap` about a goal does not hold, if it does not: the
/// goal is open here, in the state it was offered for, and the act is on
/// its menu.
fn goal_holds(ctx: &Context, cap: &Capability) -> std::result::Result<(), Refusal> {
    let loaded = ctx
        .store
        .resolve(&cap.subject)
        .map_err(|_| Refusal::new(format!("goal {} is no longer open here", cap.label)))?;
    let state = crate::store::key::sha256(loaded.file.text().as_bytes());
    if state != cap.state {
        return Err(Refusal::new(format!(
            "goal {} changed since the answer was offered: a fresh notification offers what fits it now",
            cap.label
        )));
    }
    if !menu(&loaded.goal).contains(&cap.act) {
        return Err(Refusal::new(format!(
            "`{}` is not an answer goal {} takes",
            cap.act.as_str(),
            cap.label
        )));
    }
    Ok(())
}

/// Why the answer `cap` about the configuration files does not hold, if
/// it does not: the files still say what they said when it was offered,
/// and that is still held.
fn config_holds(ctx: &Context, cap: &Capability) -> std::result::Result<(), Refusal> {
    if cap.act != Act::AcceptConfig {
        return Err(Refusal::new(format!(
            "`{}` is not an answer the configuration takes",
            cap.act.as_str()
        )));
    }
    let Some(changes) = ctx.config_changes.as_ref().filter(|c| !c.held.is_empty()) else {
        return Err(Refusal::new(
            "nothing in the configuration files waits for a person now",
        ));
    };
    if crate::store::key::sha256(changes.said.as_bytes()) != cap.state {
        return Err(Refusal::new(
            "the configuration files changed since the answer was offered: a fresh notification offers what fits them now",
        ));
    }
    Ok(())
}

/// How the answer `nonce` was dealt with before, if it was (`applied`,
/// `refused`): the log, as every machine of the store shares it, since it
/// was issued (`None`: as far back as an answer can still be good). A
/// refusal uses an answer up as an application does: what a person was
/// told was refused never takes effect later, whoever puts it back. The
/// cost: whoever can write the store can spend an answer it saw offered
/// (the person is told, and answers at the terminal).
fn used_before(ctx: &Context, nonce: &str, issued: Option<&str>) -> Option<&'static str> {
    let since = issued.map_or_else(
        || {
            let back = chrono::Duration::seconds(ctx.config.reply.expires.as_secs() as i64);
            format_time(ctx.now - back - chrono::Duration::days(1))
        },
        str::to_string,
    );
    let events = ctx
        .store
        .log()
        .read_since_naming(&since, Some(nonce))
        .ok()?;
    events.iter().find_map(|e| match e.action.as_str() {
        "reply_applied" if e.detail.starts_with(nonce) => Some("applied"),
        "reply_refused" if e.detail.starts_with(nonce) => Some("refused"),
        _ => None,
    })
}

fn used(how: &str) -> Refusal {
    Refusal::new(format!("it was {how} before: an answer is used once"))
}

/// The person the answer speaks for: this store, acting as the person,
/// every change saying which answer made it, on the goal as it was when
/// the answer was offered (checked again under the lock the act takes).
fn person(ctx: &Context, cap: &super::capability::Capability, channel: Channel) -> Result<Context> {
    let options = GlobalOptions {
        root: Some(ctx.root.clone()),
        command: "reply",
        ..GlobalOptions::default()
    };
    let mut person = Context::resolve(&options, ctx.env.clone())?;
    person.actor = Actor::User;
    person.overridden = false;
    person.answer = Some(crate::context::Answer {
        via: format!("reply {} by {}", cap.nonce, channel.as_str()),
        goal: cap.subject.clone(),
        state: cap.state.clone(),
    });
    Ok(person)
}

/// The person's act, through the verb a person runs.
fn apply(person: &Context, act: Act, goal: &str, state: &str, note: &str) -> Result<String> {
    let note = crate::text::one_line(note.trim());
    let said = |fallback: &str| {
        if note.is_empty() {
            fallback.to_string()
        } else {
            note.clone()
        }
    };
    match act {
        Act::Unblock => {
            super::super::control::unblock(person, goal, &said("unblocked from the phone"))?;
            Ok("unblocked".to_string())
        }
        Act::ResetBudget => {
            super::super::control::reset_budget(person, goal)?;
            Ok("budget reset".to_string())
        }
        Act::Abandon => {
            super::super::control::abandon(person, goal, &said("abandoned from the phone"))?;
            Ok("abandoned".to_string())
        }
        Act::Complete => {
            let request = super::super::complete::CompleteRequest {
                reason: said("accepted as met from the phone"),
                ..Default::default()
            };
            match super::super::complete::complete(person, goal, &request)? {
                super::super::complete::Judged::Completed(_) => Ok("completed".to_string()),
                super::super::complete::Judged::AwaitsMerge(_) => {
                    Ok("judged met; waits for its branch to merge".to_string())
                }
                super::super::complete::Judged::AwaitsPerson { .. } => Err(Error::BadRequest(
                    "the judge still waits for a person".to_string(),
                )),
            }
        }
        Act::SendBack => {
            super::super::control::unblock(person, goal, &said("sent back from the phone"))?;
            Ok("sent back to work".to_string())
        }
        Act::UndoEdit => {
            super::super::undo::undo(person, goal)?;
            Ok("the edit undone".to_string())
        }
        Act::AcceptConfig => {
            // What the person's context read the files as: the answer was
            // checked against it, and it is what gets accepted.
            let said = person.config_changes.as_ref().map(|c| &c.said);
            if said
                .map(|s| crate::store::key::sha256(s.as_bytes()))
                .as_deref()
                != Some(state)
            {
                return Err(Error::BadRequest(
                    "the configuration files changed since the answer was offered".to_string(),
                ));
            }
            super::super::trust::accept_config(person)?;
            Ok("the configuration accepted".to_string())
        }
        Act::Accept => {
            super::super::trust::accept(person, goal, (!note.is_empty()).then_some(note.as_str()))?;
            Ok("the edit accepted".to_string())
        }
    }
}

/// Records how the answer went, and takes its file away in the same
/// commit (a refused one is kept under `state/replies/refused/` for a
/// person to look at).
fn record(
    ctx: &Context,
    reply: Option<&Reply>,
    nonce: Option<&str>,
    answer: &Incoming,
    action: &str,
    what: &str,
) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    let detail = match reply {
        Some(reply) => format!(
            "{} {} {} by {}: {what}",
            reply.reply.nonce,
            reply.reply.act.as_str(),
            reply.reply.label,
            answer.channel.as_str()
        ),
        None => format!(
            "{} - - by {}: {what}",
            nonce.unwrap_or("-"),
            answer.channel.as_str()
        ),
    };
    let goal = reply.filter(|r| r.reply.subject != CONFIG);
    match goal.and_then(|r| ctx.store.resolve(&r.reply.subject).ok()) {
        Some(loaded) => tx.record_event(&loaded.goal, action, &detail, None),
        None => tx.record_store_event(action, &detail),
    }
    // The event is recorded whatever becomes of the file: used is used.
    let mut kept = Ok(());
    if let Some(path) = &answer.file {
        let refused = refused_path(path);
        let folder = refused.parent().unwrap_or(path);
        if action != "reply_refused" {
            tx.remove_file(path)?;
        } else if let Some(why) = not_a_folder(folder) {
            let why = std::io::Error::other(format!("{why}: the answer is left where it is"));
            kept = Err(Error::io(folder, "cannot keep a refused answer", why));
        } else {
            std::fs::create_dir_all(folder)
                .map_err(|err| Error::io(folder, "cannot create directory", err))?;
            tx.write_file(&refused, &answer.text)?;
            tx.remove_file(path)?;
        }
    }
    super::super::finish(tx)?;
    kept
}

fn refused_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_owned()).unwrap_or_default();
    path.with_file_name("refused").join(name)
}
