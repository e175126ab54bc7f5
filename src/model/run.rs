//! An agent run steward started (steward-design(7), "Record, then start"):
//! what was asked, of which agent, and how it ended. One record per run, in
//! its own file, so that two machines never edit the same one.

use serde::{Deserialize, Serialize};

/// Why a run was started: the follow-up ladder's steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// The goal is due: its block, as an instruction.
    First,
    /// The last run made no progress: resume its session and ask.
    Nudge,
    /// The last run failed: the same instruction again, afresh.
    Resend,
    /// Nudges and resends did not help: the fallback agent tries.
    Reassign,
    /// A person asked for it (`steward dispatch`).
    Manual,
    /// The goal has no plan yet: the planner prompt (or, after an invalid
    /// answer, the repair prompt), answered with the plan's JSON.
    Plan,
    /// The goal's wait ended: the session that parked it is resumed and
    /// told what it waited for and what changed.
    Wake,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::First => "first",
            RunKind::Nudge => "nudge",
            RunKind::Resend => "resend",
            RunKind::Reassign => "reassign",
            RunKind::Manual => "manual",
            RunKind::Plan => "plan",
            RunKind::Wake => "wake",
        }
    }
}

/// How a run ended, as steward judges it (not the exit code alone: Claude
/// Code exits 0 when interrupted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Ok,
    Error,
    /// Stopped at `dispatch.timeout`.
    Timeout,
    /// Stopped after `dispatch.stall_after` without a sign of life.
    Stalled,
    /// Stopped by `runs kill`, or its supervisor vanished.
    Killed,
    /// Ended on a usage or rate limit of the agent's account: no fault of
    /// the work; its agent waits for the limit to reset.
    Limited,
    /// Stopped as it was about to cross a cost bound (the goal's
    /// `max_cost_usd`, the day's spend cap).
    OverBudget,
    /// Stopped because its goal was closed, paused or removed, or steward
    /// was turned off (`enabled: false`), while it ran.
    Cancelled,
}

impl RunOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Ok => "ok",
            RunOutcome::Error => "error",
            RunOutcome::Timeout => "timeout",
            RunOutcome::Stalled => "stalled",
            RunOutcome::Killed => "killed",
            RunOutcome::Limited => "limited",
            RunOutcome::OverBudget => "over_budget",
            RunOutcome::Cancelled => "cancelled",
        }
    }
}

/// One run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The dispatch id (`STEWARD_DISPATCH_ID`).
    pub id: String,
    pub goal_id: String,
    pub goal_label: String,
    /// The agent profile.
    pub agent: String,
    pub kind: RunKind,
    /// The plan node the run works on (steward-guide(7), "PLANS").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Follow-up steps without progress before this one, from 0.
    pub attempt: u32,
    /// Of the instruction sent, so the same one is not resent too soon.
    pub instruction_hash: String,
    /// The goal's progress fingerprint when the run was dispatched.
    pub fingerprint: String,
    /// The machine that started it.
    pub machine: String,
    /// When the run was recorded (before it is spawned).
    pub created_at: String,
    /// When the supervisor started the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The re-executed steward that owns the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervisor_pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_pid: Option<u32>,
    /// The session resumed (a nudge), then the one the agent reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The exit code, or minus the signal that ended the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<RunOutcome>,
    /// The agent's final message, bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// What this run cost.
    #[serde(default)]
    pub cost_usd: f64,
    /// The session's running total after this run (both CLIs report
    /// totals per session: the next resumed run costs the difference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_cost_total: Option<f64>,
    /// The session's running token totals after this run (agents that
    /// report tokens: Codex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Whether the agent recorded an assessment or a completion under this
    /// run's dispatch id (`false`: it said nothing steward could hear).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported: Option<bool>,
    /// When the usage limit it ended on resets (`Limited`), as the client
    /// said or, when it did not, a wait steward chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_until: Option<String>,
    /// The client did not say when its limit resets: `limited_until` is
    /// steward's guess.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub limit_guessed: bool,
    /// A person asked to stop it (`runs kill`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kill_requested: bool,
    /// Why it is being stopped for its goal's sake (`abandon`, `pause`):
    /// it ends `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    /// The boot of the machine the supervisor and the agent ran in, and
    /// when each started (clock ticks after boot): with the pids, what
    /// tells the processes steward started from any later ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervisor_start: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_start: Option<u64>,
    /// The client waits for a person (a permission, an answer): since
    /// when, and what it asks. Not counted against the run's timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person_wait: Option<RunPersonWait>,
    /// Seconds the run waited for a person, all told.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waited_secs: u64,
    /// Subagents the run was let start (`dispatch.max_subagents`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub subagents: u32,
    /// The git worktree and branch the run works in (`dispatch.worktree`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<RunWorktree>,
    /// The signature of the machine that wrote the record (`store::runs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
    /// Whether the signature is one of a machine this one trusts (read,
    /// never written).
    #[serde(skip)]
    pub verified: bool,
}

/// A run's client waiting for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunPersonWait {
    pub since: String,
    /// What the client asks, in its words.
    pub what: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// A run's own git worktree (`dispatch.worktree`): where it is, its
/// branch, what it started from and what became of it. Follow-up runs of
/// a goal keep working in the worktree of the run before them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunWorktree {
    /// The worktree, relative to the root: `state/worktrees/<run id>`.
    pub path: String,
    /// `steward/<label>/<dispatch id, short>`.
    pub branch: String,
    /// Where the agent works in it: the store root's place in the
    /// repository (empty: the repository's top).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subdir: String,
    /// The commit the branch started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The root's branch when the worktree was made: where a merge goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    /// What became of it; `None` while it is in use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<WorktreeState>,
    /// The commit of the branch the judge passed: what steward merges,
    /// and nothing committed after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_commit: Option<String>,
    /// The commit of the branch steward last pushed for its pull request
    /// (`dispatch.pull_request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushed_commit: Option<String>,
}

impl RunWorktree {
    /// The branch the run's work is merged into, as a person reads it.
    pub fn into_name(&self) -> &str {
        self.into.as_deref().unwrap_or("the root's branch")
    }
}

/// What became of a run's worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// The judge found the goal's checks passing in it, with a branch to
    /// merge (`dispatch.merge: ff|merge`): steward merges it once the run
    /// ends. Only the judge sets it, never an agent's wait.
    Judged,
    /// Its goal closed and its branch waits for a person or CI
    /// (`dispatch.merge: none`), or it was merged.
    Left,
    /// Merged into the root's branch.
    Merged,
    /// The merge could not be made cleanly: a person merges.
    Conflict,
    /// Removed after `retention.worktrees` (the branch stays).
    Removed,
    /// Past its retention with uncommitted changes: kept for a person.
    Kept,
}

impl WorktreeState {
    pub fn as_str(self) -> &'static str {
        match self {
            WorktreeState::Judged => "judged",
            WorktreeState::Left => "left",
            WorktreeState::Merged => "merged",
            WorktreeState::Conflict => "conflict",
            WorktreeState::Removed => "removed",
            WorktreeState::Kept => "kept",
        }
    }
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Recorded, not started yet (or its start was interrupted).
    Pending,
    Running,
    Ended(RunOutcome),
}

impl Run {
    /// The supervisor as steward started it, when the record says all of
    /// it.
    pub fn supervisor_process(&self) -> Option<crate::os::process::ProcessId> {
        Some(crate::os::process::ProcessId {
            pid: self.supervisor_pid?,
            start: self.supervisor_start?,
            boot: self.boot.clone()?,
        })
    }

    /// The agent as its supervisor started it.
    pub fn agent_process(&self) -> Option<crate::os::process::ProcessId> {
        Some(crate::os::process::ProcessId {
            pid: self.agent_pid?,
            start: self.agent_start?,
            boot: self.boot.clone()?,
        })
    }

    /// The bytes a run record's signature covers: the record without it.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let unsigned = Run {
            sig: None,
            ..self.clone()
        };
        serde_json::to_vec(&unsigned).expect("runs serialize")
    }

    pub fn state(&self) -> RunState {
        match (&self.outcome, &self.started_at) {
            (Some(outcome), _) => RunState::Ended(*outcome),
            (None, Some(_)) => RunState::Running,
            (None, None) => RunState::Pending,
        }
    }

    /// Whether the run started or ended at `since` (RFC 3339) or later.
    pub fn touched_since(&self, since: &str) -> bool {
        self.created_at.as_str() >= since || self.ended_at.as_deref().is_some_and(|t| t >= since)
    }

    pub fn is_active(&self) -> bool {
        !matches!(self.state(), RunState::Ended(_))
    }

    pub fn state_name(&self) -> &'static str {
        match self.state() {
            RunState::Pending => "pending",
            RunState::Running => "running",
            RunState::Ended(outcome) => outcome.as_str(),
        }
    }
}
