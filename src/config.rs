//! Layered configuration (steward-reference(5), "CONFIGURATION"): defaults <
//! `steward.yaml` < `STEWARD_*` environment < flags, with the source of
//! every value kept for `config`.
//!
//! One table, [`SETTINGS`], names every key, its type, its default and its
//! help text; parsing, environment names, the `config` listing and the file
//! `init` writes are all derived from it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::agents::{AgentProfile, OutputFormat, PromptVia};
use crate::duration::HumanDuration;
use crate::error::{Error, FileProblem, Result};
use crate::model::{Actor, Priority};
use crate::sandbox::SandboxMode;
use crate::yaml_locate::key_position;

pub const FILE_NAME: &str = "steward.yaml";

/// Settings of this machine only, never committed (`state/local/` is
/// ignored by git): over `steward.yaml`, under the environment. The place
/// for the commands steward runs here (agent profiles, the notifier).
pub const LOCAL_FILE: &str = "state/local/steward.yaml";

/// The settings that make steward run a program, besides the `agents:`
/// profiles, and `dispatch.base` and `dispatch.protect`, what every run's
/// work starts from and what a merge never brings home: what a pull, or
/// anyone who edits `steward.yaml`,
/// must not change behind the back of the person on this machine.
const COMMAND_KEYS: [&str; 6] = [
    "notify.command",
    "notify.routes",
    "notify.ping",
    "verification.allow_commands",
    "dispatch.base",
    "dispatch.protect",
];

/// Settings a person accepts with the commands, though they run none:
/// weakening one loosens what keeps an agent's tools away from the store.
/// Each is a choice whose words go from the weakest to the strongest;
/// while changes are held, the stronger of what the file says and what
/// was accepted is in force.
const GUARD_KEYS: [&str; 2] = ["dispatch.sandbox", "dispatch.merge"];

/// Files larger than this are refused rather than parsed
/// (steward-reference(5), "RELIABILITY").
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Count,
    Number,
    Duration,
    Text,
    OptionalText,
    Priority,
    PriorityList,
    TextList,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// A list of the listed words.
    ChoiceList(&'static [&'static str]),
    /// A number of at least 0, or null.
    OptionalNumber,
    /// A command as a list of words (program first), or null.
    OptionalArgv,
    /// `HH:MM-HH:MM`, or null.
    OptionalHours,
    /// A list of notification routes (`notify.routes`).
    Routes,
}

struct Setting {
    key: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
    /// Security settings come only from the operator's file, never from the
    /// environment an agent may control.
    file_only: bool,
    /// Which values an agent's environment may set (it may tighten, never
    /// loosen).
    for_agent: ForAgent,
}

/// Which `STEWARD_*` values an agent's environment may set for a setting:
/// a value at least as strict as the one in force, never a looser one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ForAgent {
    /// Any value: the setting decides nothing an agent could gain from.
    Any,
    /// A number or duration no larger.
    Lower,
    /// A count no larger and not 0 (0 turns the rule off).
    LowerNotOff,
    /// A duration no shorter.
    Higher,
    /// `true` only (turns a safeguard on).
    True,
    /// `false` only (turns something off: the kill switch).
    False,
    /// A list that keeps every entry in force.
    Superset,
    /// Nothing: where the data lives, what is trusted, how it is recorded.
    Never,
}

impl ForAgent {
    /// Whether an agent may replace `current` with `wanted`.
    fn allows(self, current: &Value, wanted: &Value) -> bool {
        if current == wanted {
            return true;
        }
        match (self, current, wanted) {
            (ForAgent::Any, _, _) => true,
            (ForAgent::Lower, Value::Count(c), Value::Count(w)) => w <= c,
            (ForAgent::Lower, Value::Duration(c), Value::Duration(w)) => w.0 <= c.0,
            (ForAgent::Lower, Value::Number(c), Value::Number(w)) => w <= c,
            (ForAgent::LowerNotOff, Value::Count(c), Value::Count(w)) => {
                *w != 0 && (*c == 0 || w <= c)
            }
            (ForAgent::Higher, Value::Duration(c), Value::Duration(w)) => w.0 >= c.0,
            (ForAgent::True, _, Value::Bool(w)) => *w,
            (ForAgent::False, _, Value::Bool(w)) => !*w,
            (ForAgent::Superset, Value::PriorityList(c), Value::PriorityList(w)) => {
                c.iter().all(|p| w.contains(p))
            }
            _ => false,
        }
    }
}

/// Every setting's default as YAML, in `SETTINGS` order, read as one
/// document: a parser for each of them was a twentieth of a write's time.
/// Each default is one line.
fn default_values() -> Vec<serde_yaml::Value> {
    let document: String = SETTINGS
        .iter()
        .map(|setting| format!("- {}\n", setting.default))
        .collect();
    serde_yaml::from_str(&document).expect("built-in defaults are valid YAML")
}

const fn setting(
    key: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
) -> Setting {
    Setting {
        key,
        kind,
        default,
        help,
        file_only: false,
        for_agent: ForAgent::Never,
    }
}

/// A setting an agent's environment may change as `for_agent` allows.
const fn agent_setting(
    key: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
    for_agent: ForAgent,
) -> Setting {
    Setting {
        for_agent,
        ..setting(key, kind, default, help)
    }
}

/// A setting only the operator's file may set: the environment is an
/// agent's to change.
const fn file_setting(
    key: &'static str,
    kind: Kind,
    default: &'static str,
    help: &'static str,
) -> Setting {
    Setting {
        file_only: true,
        ..setting(key, kind, default, help)
    }
}

/// The `agents:` part of the file `init` writes: the built-in profiles.
fn agents_template() -> String {
    let words = |list: &[String]| {
        let quoted: Vec<String> = list
            .iter()
            .map(|w| {
                if w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_=./".contains(c))
                    && !w.starts_with('-')
                    || w.starts_with("--")
                {
                    w.clone()
                } else {
                    format!("{w:?}")
                }
            })
            .collect();
        format!("[{}]", quoted.join(", "))
    };
    let mut out = format!(
        "# {:<44} # {}\n",
        "agents:", "profiles for dispatch; these two are built in"
    );
    for profile in AgentProfile::builtins() {
        out.push_str(&format!("#   {}:\n", profile.name));
        out.push_str(&format!("#     command: {}\n", words(&profile.command)));
        out.push_str(&format!(
            "#     prompt: {}\n",
            if profile.prompt == PromptVia::Stdin {
                "stdin"
            } else {
                "arg"
            }
        ));
        out.push_str(&format!("#     resume: {}\n", words(&profile.resume)));
        out.push_str(&format!("#     output: {}\n", profile.output.as_str()));
    }
    out
}

/// The events `notify.on` may name.
pub const NOTIFY_EVENTS: &[&str] = &[
    "blocked",
    "failed",
    "circuit_breaker",
    "no_progress",
    "failures",
    "budget",
    "agent",
    "verifying",
    "completed",
    "review",
    "reminder",
    "resolved",
    "limited",
    "merge",
    "permission",
    "spend_cap",
    "problem",
];

const SETTINGS: &[Setting] = &[
    agent_setting(
        "enabled",
        Kind::Bool,
        "true",
        "false: tick, prompt and dispatch do nothing (kill switch)",
        ForAgent::False,
    ),
    setting(
        "goals_dir",
        Kind::Text,
        "state/goals",
        "where goal files live, relative to the root",
    ),
    agent_setting(
        "defaults.max_dispatches",
        Kind::Count,
        "20",
        "dispatch budget of a new goal",
        ForAgent::Lower,
    ),
    agent_setting(
        "defaults.max_assessments",
        Kind::Count,
        "50",
        "assessment budget of a new goal",
        ForAgent::Lower,
    ),
    agent_setting(
        "defaults.cooldown",
        Kind::Duration,
        "10m",
        "minimum time between assessments of a goal",
        ForAgent::Higher,
    ),
    agent_setting(
        "defaults.escalate_after_failures",
        Kind::Count,
        "3",
        "consecutive failures before a goal blocks",
        ForAgent::LowerNotOff,
    ),
    agent_setting(
        "defaults.priority",
        Kind::Priority,
        "normal",
        "priority of a new goal",
        ForAgent::Any,
    ),
    agent_setting(
        "global_limits.max_dispatches_per_hour",
        Kind::Count,
        "6",
        "dispatches across all goals in any hour",
        ForAgent::Lower,
    ),
    agent_setting(
        "global_limits.max_active_goals",
        Kind::Count,
        "5",
        "open goals at most; add refuses more",
        ForAgent::Lower,
    ),
    agent_setting(
        "requires_bounds",
        Kind::Bool,
        "false",
        "true: add refuses a goal without bounds",
        ForAgent::True,
    ),
    agent_setting(
        "heartbeat_patterns",
        Kind::TextList,
        "[]",
        "empty: built-ins; \"/re/flags\" for a regex",
        ForAgent::Any,
    ),
    agent_setting(
        "attention_weights.critical",
        Kind::Number,
        "4",
        "share of the prompt for critical goals",
        ForAgent::Any,
    ),
    agent_setting(
        "attention_weights.high",
        Kind::Number,
        "2",
        "share of the prompt for high goals",
        ForAgent::Any,
    ),
    agent_setting(
        "attention_weights.normal",
        Kind::Number,
        "1",
        "share of the prompt for normal goals",
        ForAgent::Any,
    ),
    agent_setting(
        "attention_weights.low",
        Kind::Number,
        "0.5",
        "share of the prompt for low goals",
        ForAgent::Any,
    ),
    agent_setting(
        "multi_goal_max_chars",
        Kind::Count,
        "9000",
        "size cap of the stewardship block (agent harnesses keep 10000)",
        ForAgent::Any,
    ),
    agent_setting(
        "multi_goal_max_goals",
        Kind::Count,
        "8",
        "goals in one stewardship block at most",
        ForAgent::Any,
    ),
    agent_setting(
        "confirmation.require_for",
        Kind::PriorityList,
        "[critical, high]",
        "priorities a human must confirm",
        ForAgent::Superset,
    ),
    agent_setting(
        "circuit_breaker.enabled",
        Kind::Bool,
        "true",
        "block a goal that repeats the same blockers",
        ForAgent::True,
    ),
    agent_setting(
        "circuit_breaker.same_blocker_repeat_limit",
        Kind::Count,
        "3",
        "repeats of the same blockers that block",
        ForAgent::LowerNotOff,
    ),
    agent_setting(
        "circuit_breaker.max_assessments_without_progress",
        Kind::Count,
        "5",
        "assessments in a row that meet no criterion block; 0: off",
        ForAgent::LowerNotOff,
    ),
    Setting {
        file_only: true,
        ..setting(
            "judge.unchecked",
            Kind::Choice(&["agent", "person"]),
            "agent",
            "criteria without a check: agent's word, or a person completes",
        )
    },
    Setting {
        file_only: true,
        ..setting(
            "verification.allow_commands",
            Kind::Bool,
            "false",
            "true: run command_exit_zero checks",
        )
    },
    setting(
        "verification.command_timeout",
        Kind::Duration,
        "60s",
        "a check command is killed after this",
    ),
    Setting {
        file_only: true,
        ..setting(
            "verification.allow_private_hosts",
            Kind::Bool,
            "false",
            "true: http_ok may reach private addresses",
        )
    },
    setting(
        "verification.http_timeout",
        Kind::Duration,
        "10s",
        "an http_ok check gives up after this",
    ),
    setting(
        "verification.github_api",
        Kind::Text,
        "https://api.github.com",
        "API base for pr_merged",
    ),
    agent_setting(
        "obligations.default_timeout",
        Kind::Duration,
        "10m",
        "how long a subagent may run",
        ForAgent::Lower,
    ),
    agent_setting(
        "obligations.grace",
        Kind::Duration,
        "60s",
        "extra time before a running task times out",
        ForAgent::Lower,
    ),
    agent_setting(
        "obligations.delivered_ttl",
        Kind::Duration,
        "48h",
        "resolved obligations are dropped after this",
        ForAgent::Any,
    ),
    file_setting(
        "retention.undo",
        Kind::Duration,
        "30d",
        "undo records of goals closed (or deleted) longer ago are dropped",
    ),
    file_setting(
        "retention.run_logs",
        Kind::Duration,
        "14d",
        "a run's output, instruction and answer are dropped this long after it ended",
    ),
    file_setting(
        "retention.runs",
        Kind::Duration,
        "90d",
        "run records are dropped this long after their run ended (a commit when git.commit is on)",
    ),
    file_setting(
        "retention.worktrees",
        Kind::Duration,
        "7d",
        "a finished run's worktree is removed this long after its run ended (one with uncommitted changes is kept and reported)",
    ),
    file_setting(
        "dispatch.enabled",
        Kind::Bool,
        "false",
        "true: tick starts agent runs for goals that should move",
    ),
    file_setting(
        "dispatch.agent",
        Kind::Text,
        "claude",
        "the agent profile runs use (agents:)",
    ),
    file_setting(
        "dispatch.fallback_agent",
        Kind::OptionalText,
        "null",
        "the profile the reassign step uses",
    ),
    file_setting(
        "dispatch.max_parallel",
        Kind::Count,
        "1",
        "agent runs at once, store-wide",
    ),
    file_setting(
        "dispatch.timeout",
        Kind::Duration,
        "30m",
        "a run past this is stopped with everything it started",
    ),
    file_setting(
        "dispatch.limit_wait",
        Kind::Duration,
        "6h",
        "an agent's usage limit that resets later than this tells a person",
    ),
    file_setting(
        "dispatch.idle_after",
        Kind::Duration,
        "15m",
        "no assessment this long after a dispatch: no progress",
    ),
    file_setting(
        "dispatch.max_retries",
        Kind::Count,
        "2",
        "nudges and resends without progress before reassign, then escalate",
    ),
    file_setting(
        "dispatch.min_resend_interval",
        Kind::Duration,
        "5m",
        "the same instruction is never sent twice inside this",
    ),
    file_setting(
        "dispatch.backoff.base",
        Kind::Duration,
        "2m",
        "wait before follow-up step N: base x 2^(N-1)",
    ),
    file_setting(
        "dispatch.backoff.max",
        Kind::Duration,
        "30m",
        "the longest wait between follow-up steps",
    ),
    file_setting(
        "dispatch.log_max_bytes",
        Kind::Count,
        "1048576",
        "per run log; the tail is kept",
    ),
    file_setting(
        "dispatch.max_cost_usd_per_day",
        Kind::OptionalNumber,
        "20",
        "store-wide spend cap over 24h, runs stopped as they reach it; null: none",
    ),
    file_setting(
        "dispatch.claim",
        Kind::Choice(&["off", "git"]),
        "off",
        "git: claim a goal by pushing a commit before starting its run, so machines sharing the store never run one goal twice",
    ),
    file_setting(
        "dispatch.plan",
        Kind::Choice(&["off", "auto"]),
        "off",
        "auto: a goal without a plan gets a planning run first, then runs per ready node",
    ),
    file_setting(
        "dispatch.plan_repairs",
        Kind::Count,
        "2",
        "planning runs after an invalid plan, each with the repair prompt, before a person is asked",
    ),
    file_setting(
        "dispatch.sandbox",
        Kind::Choice(&["off", "auto", "required"]),
        "auto",
        "runs in the client's sandbox, the store's state/ and steward.yaml read-only: auto where the client has one, required refuses a run without",
    ),
    file_setting(
        "dispatch.max_subagents",
        Kind::Count,
        "0",
        "subagents one run may start (Claude Code's Agent tool, refused by the PreToolUse hook past it); 0: no limit",
    ),
    file_setting(
        "dispatch.worktree",
        Kind::Bool,
        "false",
        "true: each run works in a git worktree of its own, on a branch steward/<label>/<id>, under state/worktrees/ (a goal's `worktree:` overrides)",
    ),
    file_setting(
        "dispatch.base",
        Kind::OptionalText,
        "null",
        "the commit or branch a run's worktree branch starts from; null: the current branch's upstream, else HEAD",
    ),
    file_setting(
        "dispatch.protect",
        Kind::TextList,
        "[]",
        "more paths a run's branch must leave alone to be merged (a folder ends in /), besides steward's own and those that steer git, CI or agents",
    ),
    file_setting(
        "dispatch.merge",
        // Weakest first, as for every guard: `merge` merges the most.
        Kind::Choice(&["merge", "ff", "none"]),
        "none",
        "when a goal worked in a worktree completes: none leaves its branch for a person; ff or merge merges it into the root's branch when clean, then the root's checks judge",
    ),
    file_setting(
        "hooks.max_continuations",
        Kind::Count,
        "5",
        "Stop-hook continuations in a row per agent session",
    ),
    file_setting(
        "notify.command",
        Kind::OptionalArgv,
        "null",
        "[program, args...]: gets one JSON document on stdin",
    ),
    file_setting(
        "notify.on",
        Kind::ChoiceList(NOTIFY_EVENTS),
        "[blocked, failed, circuit_breaker, no_progress, verifying, completed, review, reminder, resolved, limited, merge, permission]",
        "events that tell a person (spend_cap and problem, a file or check steward cannot use, always do)",
    ),
    file_setting(
        "notify.routes",
        Kind::Routes,
        "[]",
        "[{events, priorities, owners, command}]: the first route an event matches gets it instead of notify.command",
    ),
    file_setting(
        "notify.remind_after",
        Kind::Duration,
        "24h",
        "a goal still waiting for a person is told again after this (0s: never)",
    ),
    file_setting(
        "notify.max_reminders",
        Kind::Count,
        "3",
        "reminders per wait at most",
    ),
    file_setting(
        "notify.ping",
        Kind::OptionalArgv,
        "null",
        "[program, args...]: run after every pass that went through (a dead man's switch)",
    ),
    file_setting(
        "notify.quiet_hours",
        Kind::OptionalHours,
        "null",
        "\"22:00-07:00\" local time: held for the digest, critical excepted",
    ),
    setting(
        "mirror.enabled",
        Kind::Bool,
        "true",
        "keep the ACTIVE-TASKS.md block up to date",
    ),
    setting(
        "mirror.path",
        Kind::Text,
        "ACTIVE-TASKS.md",
        "mirror file, relative to the root",
    ),
    agent_setting(
        "mirror.max_goals",
        Kind::Count,
        "50",
        "entries the block shows at most, by priority; a line counts the rest (0: all)",
        ForAgent::Any,
    ),
    agent_setting(
        "git.commit",
        Kind::Bool,
        "false",
        "commit every change to git",
        ForAgent::True,
    ),
    setting(
        "git.author",
        Kind::OptionalText,
        "null",
        "\"Name <email>\"; null: the repository's identity",
    ),
    setting(
        "git.remote",
        Kind::Text,
        "origin",
        "the remote `sync` and git claims pull from and push to",
    ),
    file_setting(
        "episodes.path",
        Kind::OptionalText,
        "null",
        "\"memory/{date}.md\": an episode is appended there when a goal completes, fails or is abandoned",
    ),
    // A name: what a machine's records say it is. What another machine
    // may do with a record rests on its key and its process identity,
    // never on this name.
    agent_setting(
        "machine_id",
        Kind::OptionalText,
        "null",
        "this machine's name in runs and claims; null: the host name",
        ForAgent::Any,
    ),
];

/// A parsed setting value.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Bool(bool),
    Count(u64),
    Number(f64),
    Duration(HumanDuration),
    Text(String),
    OptionalText(Option<String>),
    Priority(Priority),
    PriorityList(Vec<Priority>),
    TextList(Vec<String>),
    OptionalNumber(Option<f64>),
    OptionalTextList(Option<Vec<String>>),
    Routes(Vec<Route>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Count(n) => write!(f, "{n}"),
            Value::Number(x) => write!(f, "{x}"),
            Value::Duration(d) => write!(f, "{d}"),
            Value::Text(s) => f.write_str(s),
            Value::OptionalText(None) => f.write_str("null"),
            Value::OptionalText(Some(s)) => f.write_str(s),
            Value::Priority(p) => f.write_str(p.as_str()),
            Value::PriorityList(list) => {
                let names: Vec<&str> = list.iter().map(Priority::as_str).collect();
                write!(f, "[{}]", names.join(", "))
            }
            Value::TextList(list) | Value::OptionalTextList(Some(list)) => {
                let quoted: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
                write!(f, "[{}]", quoted.join(", "))
            }
            Value::OptionalNumber(None) | Value::OptionalTextList(None) => f.write_str("null"),
            Value::OptionalNumber(Some(x)) => write!(f, "{x}"),
            Value::Routes(routes) => {
                let shown: Vec<String> = routes.iter().map(Route::to_string).collect();
                write!(f, "[{}]", shown.join(", "))
            }
        }
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File {
        path: PathBuf,
        line: usize,
    },
    Env(String),
    Flag(&'static str),
    /// What a person on this machine accepted (`steward config accept`),
    /// kept while changes to it are held.
    Accepted,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File { path, line } => write!(f, "{}:{line}", path.display()),
            Source::Env(name) => write!(f, "env {name}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
            Source::Accepted => f.write_str("accepted (steward config accept)"),
        }
    }
}

/// One effective setting, for `config`.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: String,
    pub value: String,
    pub source: Source,
}

/// Values given on the command line that override configuration.
#[derive(Debug, Clone, Default)]
pub struct FlagOverrides {
    /// `--commit` / `--no-commit`.
    pub git_commit: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GoalDefaults {
    pub max_dispatches: u64,
    pub max_assessments: u64,
    pub cooldown: HumanDuration,
    pub escalate_after_failures: u64,
    pub priority: Priority,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GlobalLimits {
    pub max_dispatches_per_hour: u64,
    pub max_active_goals: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttentionWeights {
    pub critical: f64,
    pub high: f64,
    pub normal: f64,
    pub low: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CircuitBreaker {
    pub enabled: bool,
    pub same_blocker_repeat_limit: u64,
    pub max_assessments_without_progress: u64,
}

/// Who may complete a goal whose criteria have no check (steward-design(7), "Receipts").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unchecked {
    /// An agent's `complete` accepts them, on its word.
    Agent,
    /// Such a goal waits in `verifying` for a person's `complete`.
    Person,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub allow_commands: bool,
    pub command_timeout: HumanDuration,
    pub allow_private_hosts: bool,
    pub http_timeout: HumanDuration,
    pub github_api: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Obligations {
    pub default_timeout: HumanDuration,
    pub grace: HumanDuration,
    pub delivered_ttl: HumanDuration,
}

/// How long machine-local state is kept (`tick` prunes the rest daily).
#[derive(Debug, Clone, PartialEq)]
pub struct Retention {
    pub undo: HumanDuration,
    pub run_logs: HumanDuration,
    pub runs: HumanDuration,
    /// A finished run's worktree is removed this long after it ended.
    pub worktrees: HumanDuration,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mirror {
    pub enabled: bool,
    pub path: PathBuf,
    /// 0: every open goal.
    pub max_goals: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Git {
    pub commit: bool,
    pub author: Option<String>,
    pub remote: String,
}

/// Agent runs that `tick` starts (steward-guide(7), "AGENT RUNS: TICK MAKES WORK HAPPEN").
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub enabled: bool,
    pub agent: String,
    pub fallback_agent: Option<String>,
    pub max_parallel: u64,
    pub timeout: HumanDuration,
    /// A usage limit that resets later than this is told to a person.
    pub limit_wait: HumanDuration,
    pub idle_after: HumanDuration,
    pub max_retries: u64,
    pub min_resend_interval: HumanDuration,
    pub backoff_base: HumanDuration,
    pub backoff_max: HumanDuration,
    pub log_max_bytes: u64,
    pub max_cost_usd_per_day: Option<f64>,
    /// Claim goals through git before starting runs (steward-design(7), "A claim is a push").
    pub claim_git: bool,
    /// A goal without a plan gets a planning run first (steward-guide(7), "PLANS").
    pub plan_auto: bool,
    pub plan_repairs: u64,
    /// Runs in the client's sandbox, the store's state read-only
    /// (`crate::sandbox`).
    pub sandbox: SandboxMode,
    /// Subagents one run may start; 0: no limit.
    pub max_subagents: u64,
    /// Each run in a git worktree of its own (a goal's `worktree:` key
    /// overrides).
    pub worktree: bool,
    /// What a worktree's branch starts from; `None`: the upstream, else HEAD.
    pub base: Option<String>,
    /// What happens to a completed goal's branch.
    pub merge: MergeMode,
    /// Paths of the repository a branch must leave alone to be merged.
    pub protect: Vec<String>,
}

/// `dispatch.merge`: what happens to the branch of a goal completed in a
/// worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeMode {
    /// Left for a person or CI.
    None,
    /// Fast-forwarded into the root's branch when it can be.
    Ff,
    /// Merged with a merge commit when the merge is clean.
    Merge,
}

impl MergeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            MergeMode::None => "none",
            MergeMode::Ff => "ff",
            MergeMode::Merge => "merge",
        }
    }
}

/// The agent harness hooks (steward-guide(7), "CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER").
#[derive(Debug, Clone, PartialEq)]
pub struct Hooks {
    pub max_continuations: u64,
}

/// Telling a person (steward-guide(7), "TELLING A PERSON").
#[derive(Debug, Clone, PartialEq)]
pub struct Notify {
    pub command: Option<Vec<String>>,
    pub on: Vec<String>,
    pub quiet_hours: Option<QuietHours>,
    pub routes: Vec<Route>,
    /// Zero: never.
    pub remind_after: HumanDuration,
    pub max_reminders: u64,
    pub ping: Option<Vec<String>>,
}

/// Where notifications of some events, priorities or owners go
/// (`notify.routes`): an empty list matches any.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Route {
    pub events: Vec<String>,
    pub priorities: Vec<Priority>,
    pub owners: Vec<String>,
    pub command: Vec<String>,
}

impl Route {
    /// Whether a notification of `event` about a goal of `priority` and
    /// `owner` (none for a store-wide one) goes this way.
    pub fn matches(&self, event: &str, priority: Option<&Priority>, owner: Option<&str>) -> bool {
        (self.events.is_empty() || self.events.iter().any(|e| e == event))
            && (self.priorities.is_empty() || priority.is_some_and(|p| self.priorities.contains(p)))
            && (self.owners.is_empty() || owner.is_some_and(|o| self.owners.iter().any(|w| w == o)))
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let priorities: Vec<&str> = self.priorities.iter().map(Priority::as_str).collect();
        let value = serde_json::json!({
            "events": self.events,
            "priorities": priorities,
            "owners": self.owners,
            "command": self.command,
        });
        write!(f, "{value}")
    }
}

/// A span of the day in local time, possibly across midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    /// Minutes after midnight.
    pub start: u32,
    pub end: u32,
}

impl QuietHours {
    /// `HH:MM-HH:MM`.
    pub fn parse(text: &str) -> Option<QuietHours> {
        let minutes = |part: &str| {
            let (h, m) = part.trim().split_once(':')?;
            let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
            (h < 24 && m < 60 && part.trim().len() == 5).then_some(h * 60 + m)
        };
        let (start, end) = text.split_once('-')?;
        Some(QuietHours {
            start: minutes(start)?,
            end: minutes(end)?,
        })
    }

    /// Whether `minute` (after local midnight) falls in the span.
    pub fn contains(self, minute: u32) -> bool {
        if self.start <= self.end {
            (self.start..self.end).contains(&minute)
        } else {
            minute >= self.start || minute < self.end
        }
    }
}

/// The effective configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub enabled: bool,
    pub goals_dir: PathBuf,
    pub defaults: GoalDefaults,
    pub global_limits: GlobalLimits,
    pub requires_bounds: bool,
    pub heartbeat_patterns: Vec<String>,
    pub attention_weights: AttentionWeights,
    pub multi_goal_max_chars: u64,
    pub multi_goal_max_goals: u64,
    pub require_confirmation_for: Vec<Priority>,
    pub circuit_breaker: CircuitBreaker,
    pub judge_unchecked: Unchecked,
    pub verification: Verification,
    pub obligations: Obligations,
    pub retention: Retention,
    pub mirror: Mirror,
    pub git: Git,
    pub dispatch: Dispatch,
    pub hooks: Hooks,
    pub notify: Notify,
    /// Agent profiles: the built-in `claude` and `codex`, and the file's.
    pub agents: Vec<AgentProfile>,
    /// `machine_id`; `None`: the host name.
    pub machine_id: Option<String>,
    /// `episodes.path`: the memory file ended goals are told to.
    pub episodes: Option<String>,
}

impl Config {
    /// The agent profile called `name`.
    pub fn agent(&self, name: &str) -> Option<&AgentProfile> {
        self.agents.iter().find(|a| a.name == name)
    }
}

/// The configuration together with where each value came from.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub entries: Vec<Entry>,
    /// `STEWARD_*` variables set and not applied.
    pub ignored_env: Vec<IgnoredEnv>,
    /// The commands `steward.yaml` names that this machine has not
    /// accepted: held back.
    pub held_commands: Option<HeldCommands>,
}

/// Commands `steward.yaml` names that a person on this machine has not
/// accepted (`steward config accept`): steward runs the accepted ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCommands {
    /// What the file says, as [`commands_in`] gives it.
    pub in_file: String,
    /// What was accepted.
    pub accepted: String,
}

/// The commands a configuration's text names — its `agents:` profiles,
/// `notify.command`, `verification.allow_commands` — as canonical text (one
/// `key: value` line each, in a fixed order): what a person accepts, and
/// compares. Text that does not parse names none (it is refused anyway).
pub fn commands_in(text: &str) -> String {
    let document: serde_yaml::Value = serde_yaml::from_str(text).unwrap_or_default();
    let mut lines = Vec::new();
    let canonical = |value: &serde_yaml::Value| {
        serde_json::to_value(value)
            .map(|json| sorted(&json).to_string())
            .unwrap_or_default()
    };
    if let Some(agents) = document.get("agents") {
        lines.push(format!("agents: {}", canonical(agents)));
    }
    for key in COMMAND_KEYS.iter().chain(&GUARD_KEYS) {
        let value = key
            .split('.')
            .try_fold(&document, |value, part| value.get(part));
        if let Some(value) = value {
            lines.push(format!("{key}: {}", canonical(value)));
        }
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// `value` with every object's keys in order.
fn sorted(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            serde_json::Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(sorted).collect())
        }
        other => other.clone(),
    }
}

/// A `STEWARD_*` variable that is set and was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredEnv {
    pub variable: String,
    pub key: &'static str,
    pub because: IgnoredBecause,
}

impl IgnoredEnv {
    fn new(variable: String, key: &'static str, because: IgnoredBecause) -> IgnoredEnv {
        IgnoredEnv {
            variable,
            key,
            because,
        }
    }
}

/// Why a `STEWARD_*` variable was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoredBecause {
    /// The setting is read from steward.yaml only.
    FileOnly,
    /// An agent set it to a looser value than the one in force.
    Loosens,
    /// An agent set a setting only a person's environment may set.
    NotForAgents,
    /// It would turn steward on against the file's `enabled: false`.
    KillSwitch,
}

impl fmt::Display for IgnoredEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (variable, key) = (&self.variable, self.key);
        match self.because {
            IgnoredBecause::FileOnly => write!(
                f,
                "{variable} is ignored: {key} is read from steward.yaml only (an agent's environment must not set it)"
            ),
            IgnoredBecause::Loosens => write!(
                f,
                "{variable} is ignored: an agent's environment may tighten {key}, never loosen it"
            ),
            IgnoredBecause::NotForAgents => write!(
                f,
                "{variable} is ignored: an agent's environment may not set {key}"
            ),
            IgnoredBecause::KillSwitch => write!(
                f,
                "{variable} is ignored: steward.yaml turns steward off (enabled: false), and only the file turns it on"
            ),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        let layers = Layers::defaults();
        layers.to_config()
    }
}

impl Config {
    /// Loads `<root>/steward.yaml` (absent: defaults), then `env` (the
    /// `STEWARD_*` variables) and `flags` on top.
    /// The configuration `reader` runs with: the defaults, the file, the
    /// environment (as far as `reader` may set it) and the flags.
    ///
    /// `accepted` is what a person on this machine accepted of the commands
    /// `steward.yaml` names (`None`: nothing to compare with yet): when the
    /// file names others, they are held back, and said so.
    pub fn load(
        root: &Path,
        env: &BTreeMap<String, String>,
        flags: &FlagOverrides,
        reader: Actor,
        accepted: Option<&str>,
    ) -> Result<LoadedConfig> {
        let mut layers = Layers::defaults();
        let path = root.join(FILE_NAME);
        let mut held_commands = None;
        if let Some(text) = read_config_file(&path)? {
            let in_file = commands_in(&text);
            let held = accepted.is_some_and(|accepted| accepted != in_file);
            layers.apply_file(&path, &text, held)?;
            if held {
                layers.apply_accepted(accepted.unwrap_or_default());
                held_commands = Some(HeldCommands {
                    in_file,
                    accepted: accepted.unwrap_or_default().to_string(),
                });
            }
        }
        let local = root.join(LOCAL_FILE);
        if let Some(text) = read_config_file(&local)? {
            layers.apply_file(&local, &text, false)?;
        }
        let ignored_env = layers.apply_env(env, reader)?;
        if let Some(commit) = flags.git_commit {
            let flag = if commit { "--commit" } else { "--no-commit" };
            layers.set("git.commit", Value::Bool(commit), Source::Flag(flag));
        }
        layers.check_agents()?;
        Ok(LoadedConfig {
            config: layers.to_config(),
            entries: layers.entries(),
            ignored_env,
            held_commands,
        })
    }

    /// The defaults alone, for commands that go on when the file is broken.
    pub fn load_defaults() -> LoadedConfig {
        let layers = Layers::defaults();
        LoadedConfig {
            config: layers.to_config(),
            entries: layers.entries(),
            ignored_env: Vec::new(),
            held_commands: None,
        }
    }

    /// The text `init` writes: every key, commented out, with its default.
    /// With `git_commit`, the `git.commit` line is written set to true
    /// (`init --git`).
    pub fn template(git_commit: bool) -> String {
        let mut out = String::from(
            "# steward configuration. Every key is optional: the values below are the\n\
             # defaults. Uncomment a line (and its section line) to change it.\n",
        );
        let mut section: Vec<&str> = Vec::new();
        for setting in SETTINGS {
            let parts: Vec<&str> = setting.key.split('.').collect();
            let (name, parents) = parts.split_last().expect("keys are not empty");
            let shared = section
                .iter()
                .zip(parents)
                .take_while(|(a, b)| a == b)
                .count();
            for (depth, parent) in parents.iter().enumerate().skip(shared) {
                let comment = if git_commit && depth == 0 && *parent == "git" {
                    ""
                } else {
                    "# "
                };
                out.push_str(&format!("{comment}{}{parent}:\n", "  ".repeat(depth)));
            }
            section = parents.to_vec();
            if git_commit && setting.key == "git.commit" {
                out.push_str(&format!("{:<46} # {}\n", "  commit: true", setting.help));
                continue;
            }
            let line = format!("{}{name}: {}", "  ".repeat(parents.len()), setting.default);
            out.push_str(&format!("# {line:<44} # {}\n", setting.help));
        }
        out.push_str(&agents_template());
        out
    }

    /// The attention weight of a priority; unknown priorities weigh as normal.
    pub fn attention_weight(&self, priority: &Priority) -> f64 {
        let weights = &self.attention_weights;
        match priority {
            Priority::Critical => weights.critical,
            Priority::High => weights.high,
            Priority::Normal | Priority::Unknown(_) => weights.normal,
            Priority::Low => weights.low,
        }
    }
}

/// Reads the configuration file, `None` when there is none.
fn read_config_file(path: &Path) -> Result<Option<String>> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io(path, "cannot read configuration", err)),
    };
    if metadata.len() > MAX_FILE_BYTES {
        return Err(Error::Config(FileProblem::whole_file(
            path,
            "configuration file is larger than 1 MiB",
        )));
    }
    if !metadata.is_file() {
        return Err(Error::Config(FileProblem::whole_file(
            path,
            "not a regular file: steward reads its configuration from a file",
        )));
    }
    let bytes = {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let mut bytes = Vec::new();
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .and_then(|file| file.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
            .map_err(|err| Error::io(path, "cannot read configuration", err))?;
        bytes
    };
    let text = String::from_utf8(bytes).map_err(|err| {
        Error::Config(FileProblem::whole_file(
            path,
            format!("not valid UTF-8 (byte {})", err.utf8_error().valid_up_to()),
        ))
    })?;
    Ok(Some(text))
}

/// The value of every setting with its source, in table order.
#[derive(Clone)]
struct Layers {
    values: Vec<(Value, Source)>,
    agents: Vec<AgentProfile>,
    /// Where each profile a file set came from.
    agent_sources: Vec<(String, Source)>,
    /// Profiles steward.yaml names that this machine has not accepted:
    /// `dispatch.agent` may name them (no run starts with one).
    held_agents: Vec<String>,
}

impl Layers {
    fn defaults() -> Self {
        let values = SETTINGS
            .iter()
            .zip(default_values())
            .map(|(setting, yaml)| {
                let value = parse_value(setting.kind, &yaml).expect("built-in defaults are valid");
                (value, Source::Default)
            })
            .collect();
        Layers {
            values,
            agents: AgentProfile::builtins(),
            agent_sources: Vec::new(),
            held_agents: Vec::new(),
        }
    }

    fn set(&mut self, key: &str, value: Value, source: Source) {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        self.values[index] = (value, source);
    }

    /// Whether `value` of the guard `key` is stronger than the one in
    /// force.
    fn strengthens(&self, key: &str, value: &Value) -> bool {
        let setting = SETTINGS.iter().find(|s| s.key == key).expect("known key");
        let Kind::Choice(words) = setting.kind else {
            unreachable!("a guard is a choice")
        };
        let strength = |value: &Value| match value {
            Value::Text(word) => words.iter().position(|w| w == word),
            _ => None,
        };
        strength(value) > strength(self.get(key))
    }

    /// What a person on this machine accepted of the commands (as
    /// [`commands_in`] gives it), in force while the file's are held: the
    /// profiles and commands as accepted, and each guard on when it was
    /// accepted on (the file may turn one on, not off). The text was
    /// checked when it was accepted; a line this version cannot read is
    /// left out.
    fn apply_accepted(&mut self, accepted: &str) {
        for line in accepted.lines() {
            let Some((key, json)) = line.split_once(": ") else {
                continue;
            };
            let Ok(yaml) = serde_json::from_str::<serde_yaml::Value>(json) else {
                continue;
            };
            if key == "agents" {
                let mut checked = self.clone();
                if checked
                    .apply_agents(Path::new("(accepted on this machine)"), "", &yaml)
                    .is_ok()
                {
                    *self = checked;
                }
                continue;
            }
            let Some(setting) = SETTINGS.iter().find(|s| s.key == key) else {
                continue;
            };
            match parse_value(setting.kind, &yaml) {
                Ok(value) if GUARD_KEYS.contains(&key) => {
                    if self.strengthens(setting.key, &value) {
                        self.set(setting.key, value, Source::Accepted);
                    }
                }
                Ok(value) => self.set(setting.key, value, Source::Accepted),
                Err(_) => {}
            }
        }
    }

    /// Applies a configuration file; with `hold_commands`, its agent
    /// profiles and [`COMMAND_KEYS`] are left out (checked all the same).
    fn apply_file(&mut self, path: &Path, text: &str, hold_commands: bool) -> Result<()> {
        if let Some((line, column)) = crate::yaml_locate::excessive_nesting(text) {
            return Err(Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message: format!(
                    "flow collections nest deeper than {} levels",
                    crate::yaml_locate::MAX_FLOW_DEPTH
                ),
            }));
        }
        let document: serde_yaml::Value = serde_yaml::from_str(text).map_err(|err| {
            let (line, column) = err.location().map_or((1, 1), |l| (l.line(), l.column()));
            Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message: yaml_message(&err, 0),
            })
        })?;
        let at = |key: &str, message: String| {
            let parts: Vec<&str> = key.split('.').collect();
            let (line, column) = key_position(text, &parts).unwrap_or((1, 1));
            Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message,
            })
        };
        let mapping = match document {
            serde_yaml::Value::Null => return Ok(()),
            serde_yaml::Value::Mapping(mapping) => mapping,
            _ => {
                return Err(Error::Config(FileProblem::whole_file(
                    path,
                    "configuration must be a mapping of keys to values",
                )));
            }
        };
        let mut mapping = mapping;
        if let Some(agents) = mapping.remove("agents") {
            if hold_commands {
                // Checked, not applied.
                let mut checked = Layers::defaults();
                checked.apply_agents(path, text, &agents)?;
                self.held_agents
                    .extend(checked.agent_sources.into_iter().map(|(name, _)| name));
            } else {
                self.apply_agents(path, text, &agents)?;
            }
        }
        let mut pending = Vec::new();
        flatten(&mapping, "", &mut pending)
            .map_err(|key| at(&key, format!("keys must be plain strings (near `{key}`)")))?;
        for (key, yaml) in pending {
            let Some(setting) = SETTINGS.iter().find(|s| s.key == key) else {
                return Err(at(&key, format!("unknown key `{key}`{}", suggest(&key))));
            };
            let value = parse_value(setting.kind, &yaml)
                .map_err(|why| at(&key, format!("{key}: {why}")))?;
            if hold_commands && COMMAND_KEYS.contains(&setting.key) {
                continue;
            }
            if hold_commands
                && GUARD_KEYS.contains(&setting.key)
                && !self.strengthens(setting.key, &value)
            {
                // Weakened only once accepted; strengthened at once.
                continue;
            }
            let line =
                key_position(text, &key.split('.').collect::<Vec<_>>()).map_or(1, |(l, _)| l);
            self.set(
                setting.key,
                value,
                Source::File {
                    path: path.to_path_buf(),
                    line,
                },
            );
        }
        Ok(())
    }

    /// The `agents:` mapping: profiles by name, each overriding a built-in
    /// profile of that name field by field, or new.
    fn apply_agents(&mut self, path: &Path, text: &str, yaml: &serde_yaml::Value) -> Result<()> {
        let at = |keys: &[&str], message: String| {
            let (line, column) = key_position(text, keys).unwrap_or((1, 1));
            Error::Config(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message,
            })
        };
        let profiles = match yaml {
            serde_yaml::Value::Null => return Ok(()),
            serde_yaml::Value::Mapping(profiles) => profiles,
            other => {
                return Err(at(
                    &["agents"],
                    format!(
                        "agents: expected a mapping of profile names to profiles, found {}",
                        describe_yaml(other)
                    ),
                ));
            }
        };
        for (name, fields) in profiles {
            let Some(name) = name.as_str() else {
                return Err(at(
                    &["agents"],
                    "agents: profile names are text".to_string(),
                ));
            };
            let key = |field: &str| format!("agents.{name}.{field}");
            let serde_yaml::Value::Mapping(fields) = fields else {
                return Err(at(
                    &["agents", name],
                    format!(
                        "agents.{name}: expected a mapping with command, prompt, resume, output"
                    ),
                ));
            };
            let mut profile = self
                .agents
                .iter()
                .find(|a| a.name == name)
                .cloned()
                .unwrap_or(AgentProfile {
                    name: name.to_string(),
                    command: Vec::new(),
                    prompt: PromptVia::Stdin,
                    resume: Vec::new(),
                    output: OutputFormat::Text,
                    prices: crate::agents::Prices::default(),
                });
            let (mut own_prices, mut as_of) = (false, None);
            for (field, value) in fields {
                let field = field.as_str().unwrap_or_default();
                let wrong =
                    |why: String| at(&["agents", name, field], format!("{}: {why}", key(field)));
                match field {
                    "command" => profile.command = string_list(value).map_err(wrong)?,
                    "resume" => {
                        profile.resume = match value {
                            serde_yaml::Value::Null => Vec::new(),
                            other => string_list(other).map_err(wrong)?,
                        }
                    }
                    "prompt" => {
                        profile.prompt = match value.as_str() {
                            Some("stdin") => PromptVia::Stdin,
                            Some("arg") => PromptVia::Arg,
                            _ => return Err(wrong("expected stdin or arg".to_string())),
                        }
                    }
                    "output" => {
                        profile.output =
                            value
                                .as_str()
                                .and_then(OutputFormat::parse)
                                .ok_or_else(|| {
                                    wrong(format!(
                                        "expected one of {}",
                                        OutputFormat::NAMES.join(", ")
                                    ))
                                })?
                    }
                    "input_usd_per_mtok"
                    | "cached_input_usd_per_mtok"
                    | "cache_write_usd_per_mtok"
                    | "output_usd_per_mtok" => {
                        let price = value
                            .as_f64()
                            .filter(|x| x.is_finite() && *x >= 0.0 && *x <= 1e6)
                            .ok_or_else(|| {
                                wrong("expected a price of at least 0 (US dollars per million tokens)".to_string())
                            })?;
                        let prices = &mut profile.prices;
                        *match field {
                            "input_usd_per_mtok" => &mut prices.input,
                            "cached_input_usd_per_mtok" => &mut prices.cached_input,
                            "cache_write_usd_per_mtok" => &mut prices.cache_write,
                            _ => &mut prices.output,
                        } = price;
                        own_prices = true;
                    }
                    "prices_as_of" => {
                        as_of = Some(
                            value
                                .as_str()
                                .ok_or_else(|| wrong("expected text".to_string()))?
                                .to_string(),
                        );
                    }
                    other => {
                        return Err(at(
                            &["agents", name, other],
                            format!(
                                "unknown key `{}`: a profile has command, prompt, resume, output, input_usd_per_mtok, cached_input_usd_per_mtok, cache_write_usd_per_mtok, output_usd_per_mtok, prices_as_of",
                                key(other)
                            ),
                        ));
                    }
                }
            }
            // Prices of one's own are no longer the list's.
            if own_prices || as_of.is_some() {
                profile.prices.as_of = as_of;
            }
            if profile.command.first().is_none_or(|p| p.trim().is_empty()) {
                return Err(at(
                    &["agents", name],
                    format!(
                        "{}: a profile needs a command (a list, program first)",
                        key("command")
                    ),
                ));
            }
            let line = key_position(text, &["agents", name]).map_or(1, |(l, _)| l);
            self.agent_sources.push((
                name.to_string(),
                Source::File {
                    path: path.to_path_buf(),
                    line,
                },
            ));
            self.agents.retain(|a| a.name != name);
            self.agents.push(profile);
        }
        Ok(())
    }

    /// Profiles named by `dispatch.agent` and `dispatch.fallback_agent` must
    /// exist.
    fn check_agents(&self) -> Result<()> {
        for key in ["dispatch.agent", "dispatch.fallback_agent"] {
            let index = SETTINGS
                .iter()
                .position(|s| s.key == key)
                .expect("known key");
            let (value, source) = &self.values[index];
            let name = match value {
                Value::Text(name) | Value::OptionalText(Some(name)) => name,
                _ => continue,
            };
            if self.agents.iter().any(|a| a.name == *name) || self.held_agents.contains(name) {
                continue;
            }
            let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
            let message = format!(
                "{key}: no agent profile `{name}` (profiles: {}; define it under agents:)",
                known.join(", ")
            );
            return Err(match source {
                Source::File { path, line } => Error::Config(FileProblem {
                    path: path.display().to_string(),
                    line: *line,
                    column: 1,
                    message,
                }),
                _ => Error::bad_value(key, message),
            });
        }
        Ok(())
    }

    /// Applies the `STEWARD_*` variables `reader` may set, and returns the
    /// ones it may not: settings read from the file only, a value that
    /// would loosen a limit for an agent, and `enabled` against the file's
    /// `false` (the kill switch is the operator's, whoever runs steward).
    fn apply_env(
        &mut self,
        env: &BTreeMap<String, String>,
        reader: Actor,
    ) -> Result<Vec<IgnoredEnv>> {
        let mut ignored = Vec::new();
        for setting in SETTINGS {
            let name = env_name(setting.key);
            // Empty is unset, as for every other STEWARD_ variable.
            let Some(raw) = env.get(&name).filter(|raw| !raw.is_empty()) else {
                continue;
            };
            if setting.file_only {
                ignored.push(IgnoredEnv::new(name, setting.key, IgnoredBecause::FileOnly));
                continue;
            }
            let yaml: serde_yaml::Value = serde_yaml::from_str(raw)
                .unwrap_or_else(|_| serde_yaml::Value::String(raw.clone()));
            let value =
                parse_value(setting.kind, &yaml).map_err(|why| Error::bad_value(&name, why))?;
            let current = self.get(setting.key);
            let kill_switch_off = setting.key == "enabled"
                && *current == Value::Bool(false)
                && matches!(self.source(setting.key), Source::File { .. });
            if kill_switch_off && value != *current {
                ignored.push(IgnoredEnv::new(
                    name,
                    setting.key,
                    IgnoredBecause::KillSwitch,
                ));
                continue;
            }
            if reader == Actor::Agent && !setting.for_agent.allows(current, &value) {
                let because = if setting.for_agent == ForAgent::Never {
                    IgnoredBecause::NotForAgents
                } else {
                    IgnoredBecause::Loosens
                };
                ignored.push(IgnoredEnv::new(name, setting.key, because));
                continue;
            }
            self.set(setting.key, value, Source::Env(name));
        }
        Ok(ignored)
    }

    fn source(&self, key: &str) -> &Source {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        &self.values[index].1
    }

    fn entries(&self) -> Vec<Entry> {
        let settings = SETTINGS
            .iter()
            .zip(&self.values)
            .map(|(setting, (value, source))| Entry {
                key: setting.key.to_string(),
                value: value.to_string(),
                source: source.clone(),
            });
        let agents = self.agents.iter().map(|agent| Entry {
            key: format!("agents.{}", agent.name),
            value: format!(
                "{} (prompt {}, output {}{}, {})",
                agent.command.join(" "),
                match agent.prompt {
                    PromptVia::Stdin => "on stdin",
                    PromptVia::Arg => "as the last argument",
                },
                agent.output.as_str(),
                if agent.can_resume() { ", resumes" } else { "" },
                prices_text(&agent.prices)
            ),
            source: self
                .agent_sources
                .iter()
                .rev()
                .find(|(name, _)| *name == agent.name)
                .map_or(Source::Default, |(_, source)| source.clone()),
        });
        settings.chain(agents).collect()
    }

    fn get(&self, key: &str) -> &Value {
        let index = SETTINGS
            .iter()
            .position(|s| s.key == key)
            .expect("known key");
        &self.values[index].0
    }

    fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            Value::Bool(b) => *b,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn count(&self, key: &str) -> u64 {
        match self.get(key) {
            Value::Count(n) => *n,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn number(&self, key: &str) -> f64 {
        match self.get(key) {
            Value::Number(x) => *x,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn duration(&self, key: &str) -> HumanDuration {
        match self.get(key) {
            Value::Duration(d) => *d,
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn text(&self, key: &str) -> String {
        match self.get(key) {
            Value::Text(s) => s.clone(),
            Value::OptionalText(s) => s.clone().unwrap_or_default(),
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn optional_text(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Value::OptionalText(s) => s.clone(),
            other => unreachable!("{key} is {other:?}"),
        }
    }

    fn to_config(&self) -> Config {
        let priority = |key: &str| match self.get(key) {
            Value::Priority(p) => p.clone(),
            other => unreachable!("{key} is {other:?}"),
        };
        Config {
            enabled: self.bool("enabled"),
            goals_dir: PathBuf::from(self.text("goals_dir")),
            defaults: GoalDefaults {
                max_dispatches: self.count("defaults.max_dispatches"),
                max_assessments: self.count("defaults.max_assessments"),
                cooldown: self.duration("defaults.cooldown"),
                escalate_after_failures: self.count("defaults.escalate_after_failures"),
                priority: priority("defaults.priority"),
            },
            global_limits: GlobalLimits {
                max_dispatches_per_hour: self.count("global_limits.max_dispatches_per_hour"),
                max_active_goals: self.count("global_limits.max_active_goals"),
            },
            requires_bounds: self.bool("requires_bounds"),
            heartbeat_patterns: match self.get("heartbeat_patterns") {
                Value::TextList(list) => list.clone(),
                other => unreachable!("heartbeat_patterns is {other:?}"),
            },
            attention_weights: AttentionWeights {
                critical: self.number("attention_weights.critical"),
                high: self.number("attention_weights.high"),
                normal: self.number("attention_weights.normal"),
                low: self.number("attention_weights.low"),
            },
            multi_goal_max_chars: self.count("multi_goal_max_chars"),
            multi_goal_max_goals: self.count("multi_goal_max_goals"),
            require_confirmation_for: match self.get("confirmation.require_for") {
                Value::PriorityList(list) => list.clone(),
                other => unreachable!("confirmation.require_for is {other:?}"),
            },
            circuit_breaker: CircuitBreaker {
                enabled: self.bool("circuit_breaker.enabled"),
                same_blocker_repeat_limit: self.count("circuit_breaker.same_blocker_repeat_limit"),
                max_assessments_without_progress: self
                    .count("circuit_breaker.max_assessments_without_progress"),
            },
            judge_unchecked: match self.text("judge.unchecked").as_str() {
                "person" => Unchecked::Person,
                _ => Unchecked::Agent,
            },
            verification: Verification {
                allow_commands: self.bool("verification.allow_commands"),
                command_timeout: self.duration("verification.command_timeout"),
                allow_private_hosts: self.bool("verification.allow_private_hosts"),
                http_timeout: self.duration("verification.http_timeout"),
                github_api: self.text("verification.github_api"),
            },
            obligations: Obligations {
                default_timeout: self.duration("obligations.default_timeout"),
                grace: self.duration("obligations.grace"),
                delivered_ttl: self.duration("obligations.delivered_ttl"),
            },
            retention: Retention {
                undo: self.duration("retention.undo"),
                run_logs: self.duration("retention.run_logs"),
                runs: self.duration("retention.runs"),
                worktrees: self.duration("retention.worktrees"),
            },
            mirror: Mirror {
                enabled: self.bool("mirror.enabled"),
                path: PathBuf::from(self.text("mirror.path")),
                max_goals: self.count("mirror.max_goals"),
            },
            git: Git {
                commit: self.bool("git.commit"),
                author: self.optional_text("git.author"),
                remote: self.text("git.remote"),
            },
            dispatch: Dispatch {
                enabled: self.bool("dispatch.enabled"),
                agent: self.text("dispatch.agent"),
                fallback_agent: self.optional_text("dispatch.fallback_agent"),
                max_parallel: self.count("dispatch.max_parallel"),
                timeout: self.duration("dispatch.timeout"),
                limit_wait: self.duration("dispatch.limit_wait"),
                idle_after: self.duration("dispatch.idle_after"),
                max_retries: self.count("dispatch.max_retries"),
                min_resend_interval: self.duration("dispatch.min_resend_interval"),
                backoff_base: self.duration("dispatch.backoff.base"),
                backoff_max: self.duration("dispatch.backoff.max"),
                log_max_bytes: self.count("dispatch.log_max_bytes"),
                max_cost_usd_per_day: match self.get("dispatch.max_cost_usd_per_day") {
                    Value::OptionalNumber(x) => *x,
                    other => unreachable!("dispatch.max_cost_usd_per_day is {other:?}"),
                },
                claim_git: self.text("dispatch.claim") == "git",
                plan_auto: self.text("dispatch.plan") == "auto",
                plan_repairs: self.count("dispatch.plan_repairs"),
                sandbox: match self.text("dispatch.sandbox").as_str() {
                    "off" => SandboxMode::Off,
                    "required" => SandboxMode::Required,
                    _ => SandboxMode::Auto,
                },
                max_subagents: self.count("dispatch.max_subagents"),
                worktree: self.bool("dispatch.worktree"),
                base: self.optional_text("dispatch.base"),
                merge: match self.text("dispatch.merge").as_str() {
                    "ff" => MergeMode::Ff,
                    "merge" => MergeMode::Merge,
                    _ => MergeMode::None,
                },
                protect: match self.get("dispatch.protect") {
                    Value::TextList(list) => list.clone(),
                    other => unreachable!("dispatch.protect is {other:?}"),
                },
            },
            hooks: Hooks {
                max_continuations: self.count("hooks.max_continuations"),
            },
            notify: Notify {
                command: match self.get("notify.command") {
                    Value::OptionalTextList(words) => words.clone(),
                    other => unreachable!("notify.command is {other:?}"),
                },
                on: match self.get("notify.on") {
                    Value::TextList(list) => list.clone(),
                    other => unreachable!("notify.on is {other:?}"),
                },
                quiet_hours: self
                    .optional_text("notify.quiet_hours")
                    .and_then(|text| QuietHours::parse(&text)),
                routes: match self.get("notify.routes") {
                    Value::Routes(routes) => routes.clone(),
                    other => unreachable!("notify.routes is {other:?}"),
                },
                remind_after: self.duration("notify.remind_after"),
                max_reminders: self.count("notify.max_reminders"),
                ping: match self.get("notify.ping") {
                    Value::OptionalTextList(words) => words.clone(),
                    other => unreachable!("notify.ping is {other:?}"),
                },
            },
            agents: self.agents.clone(),
            machine_id: self.optional_text("machine_id"),
            episodes: self.optional_text("episodes.path"),
        }
    }
}

/// A profile's prices as `config` shows them.
fn prices_text(prices: &crate::agents::Prices) -> String {
    if *prices == crate::agents::Prices::default() {
        return "no prices: runs that report no cost count $0".to_string();
    }
    format!(
        "$ per million tokens: input {}, cached {}, cache write {}, output {}{}",
        prices.input,
        prices.cached_input,
        prices.cache_write,
        prices.output,
        prices
            .as_of
            .as_deref()
            .map(|as_of| format!("; {as_of}"))
            .unwrap_or_default()
    )
}

/// `defaults.max_dispatches` → `STEWARD_DEFAULTS_MAX_DISPATCHES`.
pub fn env_name(key: &str) -> String {
    format!("STEWARD_{}", key.replace('.', "_").to_ascii_uppercase())
}

/// Flattens nested mappings into dotted leaf keys; sections are the keys that
/// prefix a known setting. Returns the offending key when one is not a string.
fn flatten(
    mapping: &serde_yaml::Mapping,
    prefix: &str,
    out: &mut Vec<(String, serde_yaml::Value)>,
) -> Result<(), String> {
    for (key, value) in mapping {
        let Some(key) = key.as_str() else {
            return Err(format!("{prefix}{key:?}"));
        };
        let full = format!("{prefix}{key}");
        let is_section = SETTINGS
            .iter()
            .any(|s| s.key.starts_with(&format!("{full}.")));
        match value {
            serde_yaml::Value::Mapping(children) if is_section => {
                flatten(children, &format!("{full}."), out)?;
            }
            serde_yaml::Value::Null if is_section => {}
            _ => out.push((full, value.clone())),
        }
    }
    Ok(())
}

/// " (did you mean `x`?)" for a key close to a known one.
fn suggest(key: &str) -> String {
    let best = SETTINGS
        .iter()
        .map(|s| (edit_distance(key, s.key), s.key))
        .min()
        .filter(|(distance, _)| *distance <= 3);
    match best {
        Some((_, known)) => format!(" (did you mean `{known}`?)"),
        None => " (see `steward config` for every key)".to_string(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

fn parse_value(kind: Kind, yaml: &serde_yaml::Value) -> Result<Value, String> {
    use serde_yaml::Value as Y;
    let found = || describe_yaml(yaml);
    match kind {
        Kind::Bool => yaml
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| format!("expected true or false, found {}", found())),
        Kind::Count => yaml
            .as_u64()
            .map(Value::Count)
            .ok_or_else(|| format!("expected a whole number, found {}", found())),
        Kind::Number => match yaml.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Value::Number(x)),
            _ => Err(format!(
                "expected a number of at least 0, found {}",
                found()
            )),
        },
        Kind::Duration => match yaml {
            Y::String(s) => HumanDuration::parse(s).map(Value::Duration),
            _ => Err(format!(
                "expected a duration such as 10m, found {}",
                found()
            )),
        },
        Kind::Text => match yaml {
            Y::String(s) if !s.trim().is_empty() => Ok(Value::Text(s.clone())),
            _ => Err(format!("expected text, found {}", found())),
        },
        Kind::OptionalText => match yaml {
            Y::Null => Ok(Value::OptionalText(None)),
            Y::String(s) => Ok(Value::OptionalText(Some(s.clone()))),
            _ => Err(format!("expected text or null, found {}", found())),
        },
        Kind::Priority => match yaml {
            Y::String(s) => Priority::parse_known(s).map(Value::Priority),
            _ => Err(format!("expected a priority, found {}", found())),
        },
        Kind::PriorityList => string_list(yaml)?
            .iter()
            .map(|s| Priority::parse_known(s))
            .collect::<Result<_, _>>()
            .map(Value::PriorityList),
        Kind::TextList => string_list(yaml).map(Value::TextList),
        Kind::ChoiceList(words) => {
            let list = string_list(yaml)?;
            match list.iter().find(|w| !words.contains(&w.as_str())) {
                Some(word) => Err(format!(
                    "unknown `{word}`: expected some of {}",
                    words.join(", ")
                )),
                None => Ok(Value::TextList(list)),
            }
        }
        Kind::OptionalNumber => match yaml {
            Y::Null => Ok(Value::OptionalNumber(None)),
            _ => match yaml.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => Ok(Value::OptionalNumber(Some(x))),
                _ => Err(format!(
                    "expected a number of at least 0 or null, found {}",
                    found()
                )),
            },
        },
        Kind::OptionalArgv => match yaml {
            Y::Null => Ok(Value::OptionalTextList(None)),
            _ => {
                let words = string_list(yaml)?;
                if words.first().is_none_or(|w| w.trim().is_empty()) {
                    Err("expected a command: a list whose first word is the program".to_string())
                } else {
                    Ok(Value::OptionalTextList(Some(words)))
                }
            }
        },
        Kind::Routes => routes(yaml).map(Value::Routes),
        Kind::OptionalHours => match yaml {
            Y::Null => Ok(Value::OptionalText(None)),
            Y::String(s) if QuietHours::parse(s).is_some() => {
                Ok(Value::OptionalText(Some(s.clone())))
            }
            _ => Err(format!(
                "expected hours such as \"22:00-07:00\" or null, found {}",
                found()
            )),
        },
        Kind::Choice(words) => match yaml {
            Y::String(s) if words.contains(&s.as_str()) => Ok(Value::Text(s.clone())),
            _ => Err(format!(
                "expected one of {}, found {}",
                words.join(", "),
                found()
            )),
        },
    }
}

/// `notify.routes`: a list of mappings with `command` and, to narrow
/// what they get, `events`, `priorities` and `owners`.
fn routes(yaml: &serde_yaml::Value) -> Result<Vec<Route>, String> {
    let serde_yaml::Value::Sequence(items) = yaml else {
        return Err(format!(
            "expected a list of routes, found {}",
            describe_yaml(yaml)
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(n, item)| {
            let at = |why: String| format!("route {}: {why}", n + 1);
            let serde_yaml::Value::Mapping(fields) = item else {
                return Err(at(format!(
                    "expected a mapping with command (and events, priorities, owners), found {}",
                    describe_yaml(item)
                )));
            };
            let mut route = Route::default();
            for (key, value) in fields {
                let list = |value| {
                    string_list(value)
                        .map_err(|why| at(format!("{}: {why}", key.as_str().unwrap_or("?"))))
                };
                match key.as_str() {
                    Some("command") => {
                        route.command = list(value)?;
                        if route.command.first().is_none_or(|w| w.trim().is_empty()) {
                            return Err(at(
                                "command: expected a list whose first word is the program"
                                    .to_string(),
                            ));
                        }
                    }
                    Some("events") => {
                        route.events = list(value)?;
                        if let Some(unknown) = route
                            .events
                            .iter()
                            .find(|e| !NOTIFY_EVENTS.contains(&e.as_str()))
                        {
                            return Err(at(format!(
                                "events: unknown event `{unknown}` (known: {})",
                                NOTIFY_EVENTS.join(", ")
                            )));
                        }
                    }
                    Some("priorities") => {
                        route.priorities = list(value)?
                            .iter()
                            .map(|p| {
                                Priority::parse_known(p)
                                    .map_err(|why| at(format!("priorities: {why}")))
                            })
                            .collect::<Result<_, _>>()?;
                    }
                    Some("owners") => route.owners = list(value)?,
                    _ => {
                        return Err(at(format!(
                            "unknown key {} (a route has command, events, priorities, owners)",
                            describe_yaml(key)
                        )));
                    }
                }
            }
            if route.command.is_empty() {
                return Err(at("a route needs a command".to_string()));
            }
            Ok(route)
        })
        .collect()
}

fn string_list(yaml: &serde_yaml::Value) -> Result<Vec<String>, String> {
    let serde_yaml::Value::Sequence(items) = yaml else {
        return Err(format!("expected a list, found {}", describe_yaml(yaml)));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected a list of text, found {}", describe_yaml(item)))
        })
        .collect()
}

/// A value as an error message names it: "`5`", "a list".
pub fn describe_yaml(yaml: &serde_yaml::Value) -> String {
    match yaml {
        serde_yaml::Value::Null => "nothing".to_string(),
        serde_yaml::Value::Bool(b) => format!("`{b}`"),
        serde_yaml::Value::Number(n) => format!("`{n}`"),
        serde_yaml::Value::String(s) => format!("`{s}`"),
        serde_yaml::Value::Sequence(_) => "a list".to_string(),
        serde_yaml::Value::Mapping(_) => "a mapping".to_string(),
        serde_yaml::Value::Tagged(_) => "a tagged value".to_string(),
    }
}

/// A YAML error's message without its own location (the caller prints it
/// first), with any other line it names shifted by `line_offset` so that it
/// counts lines of the whole file.
pub fn yaml_message(err: &serde_yaml::Error, line_offset: usize) -> String {
    let text = err.to_string();
    let mut out = String::new();
    let mut rest = text.as_str();
    let mut first = true;
    while let Some(index) = rest.find(" at line ") {
        out.push_str(&rest[..index]);
        let after = &rest[index + " at line ".len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        let line: usize = after[..digits].parse().unwrap_or(0);
        let tail = &after[digits..];
        let column_end = tail.strip_prefix(" column ").map_or(0, |c| {
            " column ".len() + c.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(c.len())
        });
        if !first {
            out.push_str(&format!(" on line {}", line + line_offset));
        }
        first = false;
        rest = &tail[column_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, env: &[(&str, &str)]) -> Result<LoadedConfig> {
        load_for(Actor::User, text, env)
    }

    fn load_for(reader: Actor, text: &str, env: &[(&str, &str)]) -> Result<LoadedConfig> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), text).unwrap();
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::load(dir.path(), &env, &FlagOverrides::default(), reader, None)
    }

    #[test]
    fn an_agents_environment_tightens_limits_and_never_loosens_them() {
        let file = "global_limits:\n  max_dispatches_per_hour: 6\ndefaults:\n  cooldown: 10m\n  escalate_after_failures: 3\nconfirmation:\n  require_for: [critical, high]\ngit:\n  commit: true\n";
        let tighter = [
            ("STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR", "2"),
            ("STEWARD_DEFAULTS_COOLDOWN", "1h"),
            ("STEWARD_DEFAULTS_ESCALATE_AFTER_FAILURES", "1"),
            (
                "STEWARD_CONFIRMATION_REQUIRE_FOR",
                "[critical, high, normal]",
            ),
            ("STEWARD_REQUIRES_BOUNDS", "true"),
        ];
        let loaded = load_for(Actor::Agent, file, &tighter).unwrap();
        assert!(loaded.ignored_env.is_empty(), "{:?}", loaded.ignored_env);
        assert_eq!(loaded.config.global_limits.max_dispatches_per_hour, 2);
        assert_eq!(loaded.config.defaults.cooldown, HumanDuration(3600));
        assert!(loaded.config.requires_bounds);
        let looser = [
            ("STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR", "600"),
            ("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "100"),
            ("STEWARD_DEFAULTS_COOLDOWN", "1s"),
            ("STEWARD_DEFAULTS_ESCALATE_AFTER_FAILURES", "0"),
            ("STEWARD_CONFIRMATION_REQUIRE_FOR", "[]"),
            ("STEWARD_CIRCUIT_BREAKER_ENABLED", "false"),
            ("STEWARD_GIT_COMMIT", "false"),
            ("STEWARD_GOALS_DIR", "/tmp/elsewhere"),
            ("STEWARD_VERIFICATION_GITHUB_API", "http://127.0.0.1:9"),
        ];
        let loaded = load_for(Actor::Agent, file, &looser).unwrap();
        assert_eq!(
            loaded.config,
            load(file, &[]).unwrap().config,
            "nothing loosened"
        );
        let ignored: Vec<&str> = loaded.ignored_env.iter().map(|i| i.key).collect();
        assert_eq!(ignored.len(), looser.len(), "{ignored:?}");
        let said: Vec<String> = loaded.ignored_env.iter().map(ToString::to_string).collect();
        assert!(
            said.contains(&"STEWARD_GLOBAL_LIMITS_MAX_DISPATCHES_PER_HOUR is ignored: an agent's environment may tighten global_limits.max_dispatches_per_hour, never loosen it".to_string())
                && said.contains(&"STEWARD_GOALS_DIR is ignored: an agent's environment may not set goals_dir".to_string()),
            "{said:#?}"
        );
        // A person's environment still overrides the file.
        let person = load(file, &looser[..1]).unwrap();
        assert_eq!(person.config.global_limits.max_dispatches_per_hour, 600);
    }

    #[test]
    fn the_files_kill_switch_is_not_turned_on_from_the_environment() {
        for reader in [Actor::User, Actor::Agent] {
            let loaded =
                load_for(reader, "enabled: false\n", &[("STEWARD_ENABLED", "true")]).unwrap();
            assert!(!loaded.config.enabled, "{reader:?}");
            assert!(
                loaded.ignored_env[0]
                    .to_string()
                    .contains("only the file turns it on"),
                "{}",
                loaded.ignored_env[0]
            );
        }
        // Turning steward off from the environment is fine for anyone.
        let off = load_for(Actor::Agent, "", &[("STEWARD_ENABLED", "false")]).unwrap();
        assert!(!off.config.enabled);
    }

    #[test]
    fn defaults_read_as_one_document_are_each_default() {
        let values = default_values();
        assert_eq!(values.len(), SETTINGS.len());
        for (setting, value) in SETTINGS.iter().zip(&values) {
            assert!(!setting.default.contains('\n'), "{}", setting.key);
            let alone: serde_yaml::Value = serde_yaml::from_str(setting.default).unwrap();
            assert_eq!(&alone, value, "{}", setting.key);
        }
    }

    #[test]
    fn defaults_match_the_spec() {
        let config = Config::default();
        assert!(config.enabled);
        assert_eq!(config.defaults.max_dispatches, 20);
        assert_eq!(config.defaults.cooldown, HumanDuration(600));
        assert_eq!(config.global_limits.max_active_goals, 5);
        assert_eq!(
            config.require_confirmation_for,
            vec![Priority::Critical, Priority::High]
        );
        assert_eq!(config.attention_weights.low, 0.5);
        assert_eq!(config.git.author, None);
    }

    #[test]
    fn the_template_parses_to_the_defaults_when_uncommented() {
        let uncommented: String = Config::template(false)
            .lines()
            .filter(|line| {
                !line.starts_with("# steward") && !line.starts_with("# defaults. Uncomment")
            })
            .map(|line| {
                let line = line.strip_prefix("# ").unwrap_or(line);
                let line = line.split(" # ").next().unwrap().trim_end();
                format!("{line}\n")
            })
            .collect();
        let loaded = load(&uncommented, &[]).unwrap();
        assert_eq!(loaded.config, Config::default());
    }

    #[test]
    fn file_env_and_flag_layers_keep_their_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            "git:\n  commit: true\ndefaults: {cooldown: 5m}\n",
        )
        .unwrap();
        let env = BTreeMap::from([("STEWARD_DEFAULTS_PRIORITY".to_string(), "low".to_string())]);
        let flags = FlagOverrides {
            git_commit: Some(false),
        };
        let loaded = Config::load(dir.path(), &env, &flags, Actor::User, None).unwrap();
        assert!(!loaded.config.git.commit);
        assert_eq!(loaded.config.defaults.cooldown, HumanDuration(300));
        assert_eq!(loaded.config.defaults.priority, Priority::Low);
        let source = |key: &str| {
            loaded
                .entries
                .iter()
                .find(|e| e.key == key)
                .unwrap()
                .source
                .clone()
        };
        assert_eq!(source("git.commit"), Source::Flag("--no-commit"));
        assert!(matches!(
            source("defaults.cooldown"),
            Source::File { line: 3, .. }
        ));
        assert_eq!(
            source("defaults.priority"),
            Source::Env("STEWARD_DEFAULTS_PRIORITY".into())
        );
        assert_eq!(source("enabled"), Source::Default);
    }

    #[test]
    fn unknown_keys_and_bad_values_name_key_and_line() {
        let err = load("enabled: true\ndefaults:\n  max_dispachtes: 3\n", &[]).unwrap_err();
        assert!(err.to_string().ends_with(
            "steward.yaml:3:3: unknown key `defaults.max_dispachtes` (did you mean `defaults.max_dispatches`?)"
        ), "{}", err.to_string());
        let err = load("defaults:\n  cooldown: soon\n", &[]).unwrap_err();
        assert!(
            err.to_string()
                .contains("steward.yaml:2:3: defaults.cooldown: invalid duration `soon`"),
            "{}",
            err.to_string()
        );
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn security_settings_ignore_the_environment() {
        let loaded = load("", &[("STEWARD_VERIFICATION_ALLOW_COMMANDS", "true")]).unwrap();
        assert!(!loaded.config.verification.allow_commands);
    }

    #[test]
    fn bad_environment_values_name_the_variable() {
        let err = load("", &[("STEWARD_ENABLED", "maybe")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "STEWARD_ENABLED: expected true or false, found `maybe`"
        );
    }
}
