//! Claims (`dispatch.claim: git`; steward-design(7), "A claim is a push"):
//! before a machine starts a run it commits a claim on the goal — machine,
//! dispatch id, expiry — and pushes it. The push is the race: a rejected
//! push means the remote moved; the machine pulls, and when another
//! machine's claim on the same goal came in, it takes its own back and does
//! not start. A claim whose run is gone expires after `dispatch.timeout` and
//! the grace, and may be taken over. One file per goal and machine, so
//! claims never conflict in git.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Goal, Run, format_time};
use crate::store::Transaction;

/// Pushes tried before giving up for this pass.
const PUSH_ATTEMPTS: u32 = 4;

/// One machine's claim on one goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub goal_id: String,
    pub label: String,
    pub machine: String,
    pub dispatch_id: String,
    pub at: String,
    pub expires_at: String,
}

impl Claim {
    pub fn is_valid(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.as_str() > format_time(now).as_str()
    }
}

fn claims_dir(ctx: &Context) -> PathBuf {
    ctx.store.state_dir.join("claims")
}

fn claim_path(ctx: &Context, goal_id: &str, machine: &str) -> PathBuf {
    let safe = |text: &str| {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    claims_dir(ctx).join(format!("{}.{}.json", safe(goal_id), safe(machine)))
}

/// The claim files that cannot be read (`read_all` passes over them).
pub fn unreadable(ctx: &Context) -> Vec<crate::error::FileProblem> {
    let Ok(entries) = std::fs::read_dir(claims_dir(ctx)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| {
            let why =
                match crate::os::safe_file::read_text(&path, crate::os::safe_file::STATE_BYTES) {
                    Ok(Some(text)) => serde_json::from_str::<Claim>(&text).err()?.to_string(),
                    Ok(None) => return None,
                    Err(err) => err.to_string(),
                };
            Some(crate::error::FileProblem::whole_file(
                &path,
                format!(
                    "cannot read claim: {why}; remove the file (the next claim writes it afresh)"
                ),
            ))
        })
        .collect()
}

/// Every claim in the store, as the last pull left them.
pub fn read_all(ctx: &Context) -> Vec<Claim> {
    let Ok(entries) = std::fs::read_dir(claims_dir(ctx)) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| crate::os::safe_file::read_state(&entry.ok()?.path()))
        .filter_map(|text| serde_json::from_str(&text).ok())
        .collect()
}

/// Another machine's valid claim on `goal`, if any.
pub fn held_elsewhere<'c>(ctx: &Context, claims: &'c [Claim], goal: &Goal) -> Option<&'c Claim> {
    let here = ctx.machine_id();
    claims
        .iter()
        .find(|c| c.goal_id == goal.id && c.machine != here && c.is_valid(ctx.now))
}

/// Writes this machine's claim for `run`, in `tx` (committed with it).
pub fn write(ctx: &Context, tx: &mut Transaction<'_>, run: &Run) -> Result<()> {
    let expires = ctx.now
        + ctx.config.dispatch.timeout.to_chrono()
        + ctx.config.obligations.grace.to_chrono();
    let claim = Claim {
        goal_id: run.goal_id.clone(),
        label: run.goal_label.clone(),
        machine: run.machine.clone(),
        dispatch_id: run.id.clone(),
        at: format_time(ctx.now),
        expires_at: format_time(expires),
    };
    let text = serde_json::to_string_pretty(&claim).expect("claims serialize") + "\n";
    tx.write_file(&claim_path(ctx, &run.goal_id, &run.machine), &text)
}

/// Removes this machine's claim on a goal whose run ended, in `tx`.
pub fn release(ctx: &Context, tx: &mut Transaction<'_>, run: &Run) -> Result<()> {
    let path = claim_path(ctx, &run.goal_id, &run.machine);
    if path.exists() {
        tx.remove_file(&path)?;
    }
    Ok(())
}

/// Checks that claims can work here: commits on, the remote there.
pub fn check_setup(ctx: &Context) -> Result<()> {
    super::git_setup::refuse_programs_in_git_config(ctx)?;
    if !ctx.config.git.commit {
        return Err(Error::bad_value(
            "dispatch.claim",
            "`git` needs git.commit: true, so that claims are committed and pushed",
        ));
    }
    let remote = &ctx.config.git.remote;
    crate::os::git::cli(&ctx.root, &["remote", "get-url", remote]).map_err(|_| {
        Error::bad_value(
            "dispatch.claim",
            format!(
                "`git` needs the remote `{remote}` (git.remote): `git remote add {remote} URL`"
            ),
        )
    })?;
    Ok(())
}

/// Claims the goals of `decided` runs: commits a claim per run and pushes
/// it; a push rejected because the remote moved pulls and takes back the
/// claims another machine won first. The runs whose claims stand are then
/// recorded by `record` (counted as dispatches: `dispatch::record_claimed`),
/// committed, pushed, and returned, to be started. What was given up is
/// said in the notices.
pub fn claim(
    ctx: &Context,
    decided: Vec<(Run, String)>,
    record: impl FnOnce(&Context, &[(Run, String)]) -> Result<super::Notices>,
) -> Result<(Vec<Run>, super::Notices)> {
    let remote = ctx.config.git.remote.clone();
    let branch = crate::os::git::cli(&ctx.root, &["rev-parse", "--abbrev-ref", "HEAD"])?
        .trim()
        .to_string();
    // Under the store lock, as `sync` pushes: a push and another pass's
    // fetch both move the remote-tracking branch, and one would fail
    // ("cannot lock ref") as a run's end and the schedule pass at once.
    let push = || {
        let _lock = crate::store::StoreLock::acquire(&ctx.store.lock_path(), ctx.lock_timeout)?;
        crate::os::git::cli(
            &ctx.root,
            &["push", "--quiet", &remote, &format!("HEAD:{branch}")],
        )
    };
    let mut lost = Vec::new();
    let mut decided = decided;
    if !decided.is_empty() {
        let mut tx = ctx.transaction()?;
        for (run, _) in &decided {
            write(ctx, &mut tx, run)?;
        }
        super::finish(tx)?;
    }
    let mut pushed = false;
    for _ in 0..PUSH_ATTEMPTS {
        match push() {
            Ok(_) => {
                pushed = true;
                break;
            }
            Err(err) if !super::sync::rejected(&err) => return Err(err),
            Err(_) => {}
        }
        // The remote moved: see whose claims came in.
        super::sync::pull_locked(ctx, &remote, &branch)?;
        let claims = read_all(ctx);
        let winner = |run: &Run| {
            claims
                .iter()
                .find(|c| {
                    c.goal_id == run.goal_id && c.machine != run.machine && c.is_valid(ctx.now)
                })
                .map(|c| c.machine.clone())
        };
        let (keep, give_up): (Vec<_>, Vec<_>) = decided
            .into_iter()
            .partition(|(run, _)| winner(run).is_none());
        decided = keep;
        if !give_up.is_empty() {
            let mut tx = ctx.transaction()?;
            for (run, _) in give_up {
                let machine = winner(&run).unwrap_or_default();
                release(ctx, &mut tx, &run)?;
                lost.push(format!(
                    "{}: {machine} claimed the goal first; no run here",
                    run.goal_label
                ));
            }
            super::finish(tx)?;
        }
    }
    if !pushed {
        return Err(Error::Git(format!(
            "the claims could not be pushed to {remote} after {PUSH_ATTEMPTS} tries: nothing started; the next tick tries again"
        )));
    }
    let mut notices = record(ctx, &decided)?;
    notices.warnings.extend(lost);
    if !decided.is_empty()
        && let Err(err) = push()
    {
        // The claims are out; the counts follow with the next push.
        notices.warnings.push(err.to_string());
    }
    Ok((decided.into_iter().map(|(run, _)| run).collect(), notices))
}
