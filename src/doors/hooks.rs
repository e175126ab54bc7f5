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
//!   goal is workable for the agent, as `engine::continuation` decides
//!   and counts; this file words the reason.
//! - `SubagentStart`, `SubagentStop`: the agent's own subagents are
//!   obligations (`task spawned`, `task ended`), under the goal its run
//!   works on.
//! - `PreToolUse` on Claude Code's `Agent` tool: refuses a subagent past
//!   `dispatch.max_subagents` in a run.
//! - `Notification` (Claude Code's `permission_prompt`,
//!   `elicitation_dialog`) and Codex's `PermissionRequest`: a run waits for
//!   a person; they are told once, and the wait is not counted against
//!   the run's timeout.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::Context;
use crate::engine::{self, PromptRequest, Turn};
use crate::error::Result;
use crate::model::{Goal, Status};

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
    /// `SubagentStart`, `SubagentStop`: the subagent's id and type.
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub agent_type: Option<String>,
    /// `SubagentStop`: what the subagent said last.
    #[serde(default)]
    pub last_assistant_message: Option<String>,
    /// `Notification`: what it is about, and its text.
    #[serde(default)]
    pub notification_type: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// `PreToolUse`, `PermissionRequest`: the tool and its input.
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_input: Option<Value>,
    /// `Stop` (Claude Code): the session's own background tasks.
    #[serde(default)]
    pub background_tasks: Vec<BackgroundTask>,
}

/// A task a session started to run on its own while it goes on (a shell
/// command, a subagent), as Claude Code lists them at `Stop`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BackgroundTask {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
}

impl BackgroundTask {
    /// Still under way: the client wakes the session when it ends.
    fn running(&self) -> bool {
        matches!(self.status.as_deref(), Some("running" | "pending"))
    }

    /// In a few words, for the goal's history.
    fn said(&self) -> String {
        let what = (self.description.as_deref())
            .or(self.command.as_deref())
            .unwrap_or("a task");
        format!(
            "{} ({})",
            crate::text::head(&crate::text::one_line(what), 80),
            self.kind.as_deref().unwrap_or("task")
        )
    }
}

/// The JSON to print for `input`, or nothing.
pub fn answer(ctx: &Context, harness: Harness, input: &HookInput) -> Result<Option<Value>> {
    let _ = harness;
    match input.hook_event_name.as_str() {
        "SessionStart" => context("SessionStart", ctx, Turn::Ordinary),
        "UserPromptSubmit" => {
            if let Some(session) = &input.session_id {
                engine::continuation::start_over(ctx, session);
            }
            let prompt = input.prompt.clone().unwrap_or_default();
            context("UserPromptSubmit", ctx, Turn::Message(prompt))
        }
        "Stop" => stop(ctx, input),
        "SubagentStart" => subagent_started(ctx, harness, input),
        "SubagentStop" => subagent_stopped(ctx, input),
        "PreToolUse" => before_tool(ctx, input),
        "Notification" => match input.notification_type.as_deref() {
            Some("permission_prompt" | "elicitation_dialog") => {
                let what = [input.title.as_deref(), input.message.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(": ");
                waits_for_person(ctx, &what)
            }
            _ => Ok(None),
        },
        "PermissionRequest" => {
            let tool = input.tool_name.as_deref().unwrap_or("a tool");
            let detail = input
                .tool_input
                .as_ref()
                .and_then(|i| i.get("command").or(i.get("description")))
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .map(|d| format!(": {}", crate::text::head(&crate::text::one_line(&d), 200)))
                .unwrap_or_default();
            waits_for_person(ctx, &format!("permission to run {tool}{detail}"))
        }
        _ => Ok(None),
    }
}

/// The run this hook fires in, when steward started it: its dispatch id
/// from the environment the client passes on.
fn dispatch_id(ctx: &Context) -> Option<String> {
    ctx.env
        .var("STEWARD_DISPATCH_ID")
        .filter(|id| !id.is_empty())
        .map(str::to_string)
}

/// A subagent started: an obligation, under the goal of the run (or of
/// `STEWARD_GOAL`), keyed by the subagent's id.
fn subagent_started(ctx: &Context, harness: Harness, input: &HookInput) -> Result<Option<Value>> {
    let Some(agent_id) = input.agent_id.as_deref().filter(|id| !id.is_empty()) else {
        return Ok(None);
    };
    let kind = input.agent_type.as_deref().unwrap_or("subagent");
    let goal = (ctx.env.var("STEWARD_GOAL"))
        .filter(|label| engine::task::is_open_goal(ctx, label))
        .map(str::to_string);
    let short: String = agent_id.chars().take(12).collect();
    let kind_word: String = kind
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    let label = match &goal {
        Some(goal) => format!("{goal}/{kind_word}-{short}"),
        None => format!("subagent/{kind_word}-{short}"),
    };
    let client = match harness {
        Harness::ClaudeCode => "claude-code",
        Harness::Codex => "codex",
    };
    let run = dispatch_id(ctx)
        .map(|id| format!(" in run {id}"))
        .unwrap_or_default();
    let request = engine::task::SpawnRequest {
        label,
        goal,
        agent: Some(format!("{client}:{kind}")),
        session: Some(agent_id.to_string()),
        pid: None,
        timeout_secs: None,
        summary: Some(format!("{client} subagent {kind}{run}")),
    };
    engine::task::spawned(ctx, &request)?;
    Ok(None)
}

/// A subagent ended: its obligation arrived, with what it said last, and
/// delivered — the client gave it back to the session that started it.
fn subagent_stopped(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let Some(agent_id) = input.agent_id.as_deref().filter(|id| !id.is_empty()) else {
        return Ok(None);
    };
    let key = crate::model::book::Key::Session(agent_id.to_string());
    let detail = input
        .last_assistant_message
        .as_deref()
        .map(|m| crate::text::head(&crate::text::one_line(m), 500));
    match engine::task::returned_to_session(ctx, &key, detail) {
        Ok(_) => Ok(None),
        // A subagent started before the hooks were installed: nothing owed.
        Err(crate::error::Error::ObligationNotFound { .. }) => Ok(None),
        Err(err) => Err(err),
    }
}

/// Before Claude Code's `Agent` (formerly `Task`) tool: within a run, a
/// subagent past `dispatch.max_subagents` is refused, saying why.
fn before_tool(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    if !matches!(input.tool_name.as_deref(), Some("Agent" | "Task")) {
        return Ok(None);
    }
    let max = ctx.config.dispatch.max_subagents;
    let Some(run) = dispatch_id(ctx) else {
        return Ok(None);
    };
    if max == 0 {
        return Ok(None);
    }
    match engine::run::admit_subagent(ctx, &run, max)? {
        None => Ok(None),
        Some(why) => Ok(Some(json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": why,
            }
        }))),
    }
}

/// The client waits for a person (a permission, an answer): within a run,
/// the run waits for them, and they are told once.
fn waits_for_person(ctx: &Context, what: &str) -> Result<Option<Value>> {
    let Some(run) = dispatch_id(ctx) else {
        return Ok(None);
    };
    engine::run::awaits_person(ctx, &run, what)?;
    Ok(None)
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
    let session = input.session_id.as_deref().unwrap_or("no-session");
    // Its own work goes on: the client wakes the session when its tasks
    // end, and the next Stop sends it back to the goal if need be.
    let running: Vec<String> = (input.background_tasks.iter())
        .filter(|task| task.running())
        .map(BackgroundTask::said)
        .collect();
    if !running.is_empty() {
        engine::continuation::waits_on_own_tasks(ctx, session, &running)?;
        return Ok(None);
    }
    Ok(engine::continuation::at_stop(ctx, session)?.map(|go_on| {
        json!({
            "decision": "block",
            "reason": reason(&go_on.goal, go_on.count, go_on.limit),
        })
    }))
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
