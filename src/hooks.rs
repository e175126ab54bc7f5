//! The agent harness hooks
//! (steward-guide(7), "CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER"):
//! what `steward hook claude-code` and `steward hook codex` answer to the
//! JSON a harness sends on each event.
//! A front door like the command line: it reads the hook's input, calls the
//! engine as actor `agent`, and returns the harness's own JSON, or nothing.
//!
//! - `SessionStart`: one line per open goal, as context.
//! - `UserPromptSubmit`: the stewardship block when the prompt is a
//!   heartbeat, the one-line summaries otherwise; it also starts the
//!   session's `Stop` continuations over.
//! - `Stop`: keeps the session working (`{"decision":"block"}`) while a
//!   goal is workable for the agent, at most `hooks.max_continuations`
//!   times in a row, and not again when the last continuation changed
//!   nothing; never when only a person can move things.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::Context;
use crate::engine::{self, PromptRequest, Turn};
use crate::error::Result;
use crate::model::{Goal, Status, fingerprint, progress_fingerprint};
use crate::store::Scope;

/// Both clients keep 10,000 characters of hook output.
pub const CONTEXT_CAP: usize = 9_000;
/// Claude Code sends a Stop reason twice and Codex escapes `<` and `>`:
/// plain text, kept short.
pub const REASON_CAP: usize = 2_000;

/// Which harness is asking; both take the same JSON today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Harness {
    ClaudeCode,
    Codex,
}

/// The fields of a hook's input steward reads; the rest is ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub hook_event_name: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub stop_hook_active: bool,
}

/// What a session's `Stop` continuations stand at (`state/hooks/`).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Continuations {
    count: u64,
    /// The goals' progress when the last continuation was sent.
    fingerprint: String,
}

/// The JSON to print for `input`, or nothing.
pub fn answer(ctx: &Context, harness: Harness, input: &HookInput) -> Result<Option<Value>> {
    let _ = harness;
    match input.hook_event_name.as_str() {
        "SessionStart" => context("SessionStart", ctx, Turn::Ordinary),
        "UserPromptSubmit" => {
            if let Some(session) = &input.session_id {
                forget_continuations(ctx, session);
            }
            let prompt = input.prompt.clone().unwrap_or_default();
            context("UserPromptSubmit", ctx, Turn::Message(prompt))
        }
        "Stop" => stop(ctx, input),
        _ => Ok(None),
    }
}

/// `additionalContext` for the session: the block or the summaries.
fn context(event: &str, ctx: &Context, turn: Turn) -> Result<Option<Value>> {
    let cap = (ctx.config.multi_goal_max_chars as usize).min(CONTEXT_CAP);
    let outcome = engine::prompt(
        ctx,
        &PromptRequest {
            turn,
            max_chars: Some(cap),
        },
    )?;
    if outcome.text.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(json!({
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": outcome.text,
        }
    })))
}

fn stop(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    if !ctx.config.enabled {
        return Ok(None);
    }
    let scan = ctx.store.scan(Scope::Open)?;
    let open: Vec<&Goal> = scan.goals.iter().map(|g| &*g.goal).collect();
    // A goal the session can go on with: its cooldown does not count (an
    // assessment of partial progress starts it, and is no reason to stop);
    // the continuations are bounded by hooks.max_continuations and by
    // progress below.
    let Some(goal) = open
        .iter()
        .copied()
        .filter(|g| continuable(g))
        .max_by(|a, b| {
            ctx.config
                .attention_weight(&a.priority)
                .total_cmp(&ctx.config.attention_weight(&b.priority))
        })
    else {
        return Ok(None);
    };
    let session = input
        .session_id
        .clone()
        .unwrap_or_else(|| "no-session".to_string());
    let path = continuations_path(ctx, &session);
    let mut state: Continuations = crate::store::safe::read_state(&path)
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
    if let Some(dir) = path.parent() {
        crate::store::cache_dir_ready(dir);
    }
    ctx.store.write_private(
        &path,
        &(serde_json::to_string(&state).expect("continuations serialize") + "\n"),
    )?;
    Ok(Some(json!({
        "decision": "block",
        "reason": reason(goal, state.count, limit),
    })))
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

/// Plain text naming the goal and the exact next command.
fn reason(goal: &Goal, count: u64, limit: u64) -> String {
    let label = &goal.label;
    let unmet: Vec<String> = goal
        .criteria
        .iter()
        .filter(|c| !c.met)
        .map(|c| format!("{}. {}", c.n, crate::text::one_line(&c.text)))
        .collect();
    let state = if goal.status == Status::Verifying || unmet.is_empty() {
        "every criterion appears met: check them against reality and ask the judge".to_string()
    } else {
        format!("unmet: {}", unmet.join("; "))
    };
    let opening = format!("steward: goal {label} is not done (");
    let rest = format!(
        "). Keep working on it (continuation {count} of {limit}). Before you stop, record what is true now: steward --actor agent assess {label} --summary \"...\" [--met N]... When every criterion is met: steward --actor agent complete {label} --reason \"...\". If only a person can help: steward --actor agent assess {label} --summary \"...\" --stuck. Waiting on CI or a review: add --wait-until TIME."
    );
    // The commands always fit: what is unmet is cut to the room left.
    let room = REASON_CAP.saturating_sub(opening.chars().count() + rest.chars().count());
    // Codex escapes angle brackets; the reason is plain text.
    let state = crate::text::head(&state.replace(['<', '>'], ""), room);
    format!("{opening}{state}{rest}")
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

fn forget_continuations(ctx: &Context, session: &str) {
    let _ = std::fs::remove_file(continuations_path(ctx, session));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Criterion;

    #[test]
    fn the_stop_reason_keeps_its_commands_whatever_the_criteria_say() {
        let mut goal = crate::engine::testing::parse_goal(
            "---\nid: g-1\nlabel: deploy\n---\nDo it.\n\n## Acceptance criteria\n\n- [ ] a\n",
        );
        goal.criteria = (1..=40)
            .map(|n| Criterion {
                n,
                text: format!("criterion {n} <with angle brackets> {}", "x".repeat(80)),
                met: false,
            })
            .collect();
        let reason = reason(&goal, 1, 5);
        assert!(reason.chars().count() <= REASON_CAP, "{}", reason.len());
        assert!(
            reason.contains("steward --actor agent complete deploy --reason"),
            "{reason}"
        );
        assert!(reason.contains("--wait-until TIME."), "{reason}");
        assert!(!reason.contains('<') && !reason.contains('>'));
    }
}
