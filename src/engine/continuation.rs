//! Keeping an agent's session working when it would stop
//! (steward-guide(7), "CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER"):
//! at the harness's `Stop`, the most important goal the session can go on
//! with, at most `hooks.max_continuations` times in a row, and not again
//! when the last continuation changed nothing; never when only a person
//! can move things. A session's count is machine state under
//! `state/hooks/`, never committed, started over by the person's next
//! prompt. The hook front door words the continuation for its harness.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Status, fingerprint, progress_fingerprint};
use crate::store::Scope;

/// A continuation: keep working on `goal`, the `count`th of `limit` in a
/// row.
#[derive(Debug)]
pub struct Continuation {
    pub goal: Goal,
    pub count: u64,
    pub limit: u64,
}

/// What a session's continuations stand at (`state/hooks/SESSION.json`).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Continuations {
    count: u64,
    /// The goals' progress when the last continuation was sent.
    fingerprint: String,
}

/// The continuation for `session` as it stops, counted, or none.
pub fn at_stop(ctx: &Context, session: &str) -> Result<Option<Continuation>> {
    if !ctx.config.enabled {
        return Ok(None);
    }
    let scan = ctx.store.scan(Scope::Open)?;
    let open: Vec<&Goal> = scan.goals.iter().map(|g| &*g.goal).collect();
    let Some(goal) = goal_to_go_on_with(ctx, &scan) else {
        return Ok(None);
    };
    let path = continuations_path(ctx, session);
    let mut state: Continuations = crate::os::safe_file::read_state(&path)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let now_print = progress(&open);
    let limit = ctx.config.hooks.max_continuations;
    if state.count >= limit || (state.count > 0 && state.fingerprint == now_print) {
        return Ok(None);
    }
    state.count += 1;
    state.fingerprint = now_print;
    // Machine state of one session: never committed (its own .gitignore).
    // Where it cannot be kept inside the store, no continuation: one that
    // is not counted could go on without end.
    if !state_dir_usable(ctx, &path) {
        return Ok(None);
    }
    ctx.store.write_private(
        &path,
        &(serde_json::to_string(&state).expect("continuations serialize") + "\n"),
    )?;
    Ok(Some(Continuation {
        goal: goal.clone(),
        count: state.count,
        limit,
    }))
}

/// The goal a session goes on with, as the judge sees it (one changed
/// outside steward waits for a person, not for the session), the weightiest
/// first. Its cooldown does not count (an assessment of partial progress
/// starts it, and is no reason to stop); the continuations are bounded by
/// hooks.max_continuations and by progress.
fn goal_to_go_on_with<'s>(ctx: &Context, scan: &'s crate::store::Scan) -> Option<&'s Goal> {
    let mut candidates: Vec<&crate::store::LoadedGoal> = (scan.goals.iter())
        .filter(|g| continuable(&g.goal))
        .collect();
    candidates.sort_by(|a, b| {
        ctx.config
            .attention_weight(&b.goal.priority)
            .total_cmp(&ctx.config.attention_weight(&a.goal.priority))
    });
    candidates
        .into_iter()
        .find(|loaded| ctx.store.as_judged(loaded, ctx.now).is_none())
        .map(|loaded| &*loaded.goal)
}

/// `session` stopped while tasks it started run on (`tasks`, in a few
/// words each): it is not sent back to work, and the goal it would have
/// gone on with records that it comes back when they end. Nothing is
/// counted against `hooks.max_continuations`.
pub fn waits_on_own_tasks(ctx: &Context, session: &str, tasks: &[String]) -> Result<()> {
    if !ctx.config.enabled {
        return Ok(());
    }
    let scan = ctx.store.scan(Scope::Open)?;
    let Some(goal) = goal_to_go_on_with(ctx, &scan) else {
        return Ok(());
    };
    let mut tx = ctx.transaction_by(crate::model::Actor::Steward)?;
    tx.record_goal_event(
        &goal.id,
        &goal.label,
        "session_waits_on_its_tasks",
        &format!(
            "session {session} stopped with {} of its own running: {}; not sent back to work: its client wakes it when they end",
            crate::text::count(tasks.len(), "task", "tasks"),
            tasks.join("; ")
        ),
    );
    super::finish(tx)?;
    Ok(())
}

/// Starts `session`'s continuations over: a person spoke.
pub fn start_over(ctx: &Context, session: &str) {
    let path = continuations_path(ctx, session);
    if ctx.store.check_own_directories().is_ok()
        && path
            .parent()
            .is_some_and(|dir| dir.symlink_metadata().is_ok_and(|m| m.is_dir()))
    {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether the directory of `path` is the store's own (no link leads out
/// of it) and ready to hold machine state.
fn state_dir_usable(ctx: &Context, path: &std::path::Path) -> bool {
    ctx.store.check_own_directories().is_ok()
        && path.parent().is_some_and(crate::store::cache_dir_ready)
}

/// Whether a session may be kept working on `goal`: being worked on,
/// confirmed, not waiting (for a time, a check or a person), budget left.
fn continuable(goal: &Goal) -> bool {
    matches!(
        goal.status,
        Status::Active | Status::Stalled | Status::Verifying
    ) && goal.confirmed
        && goal.waiting.is_none()
        && goal.exhausted_budget().is_none()
}

/// What moves when the agent works: every open goal's progress.
fn progress(open: &[&Goal]) -> String {
    let mut prints: Vec<String> = open
        .iter()
        .map(|g| format!("{}:{}:{}", g.id, g.status.as_str(), progress_fingerprint(g)))
        .collect();
    prints.sort();
    fingerprint(&prints.join("\n"))
}

fn continuations_path(ctx: &Context, session: &str) -> PathBuf {
    let safe: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    ctx.store
        .state_dir
        .join("hooks")
        .join(format!("{safe}.json"))
}
