//! The table of every setting ([`SETTINGS`]): its key, its type, its
//! default, its help text and who may set it; and the values a setting
//! holds.

use std::fmt;

use crate::agents::{AgentProfile, PromptVia};
use crate::model::Priority;
use crate::model::duration::HumanDuration;

use super::settings::Route;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
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
    /// A list of `HH:MM-HH:MM`.
    HoursList,
    /// A list of notification routes (`notify.routes`).
    Routes,
}

pub(super) struct Setting {
    pub(super) key: &'static str,
    pub(super) kind: Kind,
    pub(super) default: &'static str,
    pub(super) help: &'static str,
    /// Security settings come only from the operator's file, never from the
    /// environment an agent may control.
    pub(super) file_only: bool,
    /// Which values an agent's environment may set (it may tighten, never
    /// loosen).
    pub(super) for_agent: ForAgent,
}

/// Which `STEWARD_*` values an agent's environment may set for a setting:
/// a value at least as strict as the one in force, never a looser one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ForAgent {
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
    pub(super) fn allows(self, current: &Value, wanted: &Value) -> bool {
        if current == wanted {
            return true;
        }
        match (self, current, wanted) {
            (ForAgent::Any, _, _) => true,
            (ForAgent::Lower, Value::Count(c), Value::Count(w)) => w <= c,
            (ForAgent::Lower, Value::Duration(c), Value::Duration(w)) => w.0 <= c.0,
            (ForAgent::Lower, Value::Number(c), Value::Number(w)) => w <= c,
            // None: no limit at all.
            (ForAgent::Lower, Value::OptionalNumber(c), Value::OptionalNumber(w)) => match (c, w) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(c), Some(w)) => w <= c,
            },
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

/// Every setting's default as YAML, in `SETTINGS` order. Each default is a
/// one-line scalar or a flow list of words, read here without a YAML
/// parser: starting one was a twentieth of a write's time, one document for
/// all of them still 5% (`perf record` of `update`). The test
/// `defaults_read_without_a_parser_are_each_default` holds every default to
/// what a YAML parser reads.
pub(super) fn default_values() -> Vec<serde_yaml::Value> {
    SETTINGS
        .iter()
        .map(|setting| default_value(setting.default))
        .collect()
}

/// One default as YAML reads it: `null`, `true`, `false`, a number, a flow
/// list of plain words (`[a, b]`), or else a plain string.
fn default_value(text: &str) -> serde_yaml::Value {
    use serde_yaml::Value as Y;
    if let Some(items) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let words = items.split(',').map(str::trim).filter(|w| !w.is_empty());
        return Y::Sequence(words.map(|w| Y::String(w.to_owned())).collect());
    }
    match text {
        "null" => Y::Null,
        "true" => Y::Bool(true),
        "false" => Y::Bool(false),
        _ => match (text.parse::<u64>(), text.parse::<f64>()) {
            (Ok(n), _) => Y::Number(n.into()),
            (_, Ok(x)) if x.is_finite() => Y::Number(x.into()),
            _ => Y::String(text.to_owned()),
        },
    }
}

pub(super) const fn setting(
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
pub(super) const fn agent_setting(
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
pub(super) const fn file_setting(
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
pub(super) fn agents_template() -> String {
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
    "config",
    "machine",
];

pub(super) const SETTINGS: &[Setting] = &[
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
        "minimum time between assessments of a goal, and between its dispatches (0: none)",
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
        "API base for pr_merged and ci_green",
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
        "agent runs at once on this machine (each machine sharing the store has its own)",
    ),
    file_setting(
        "dispatch.timeout",
        Kind::Duration,
        "30m",
        "a run past this is stopped with everything it started",
    ),
    file_setting(
        "dispatch.stall_after",
        Kind::Duration,
        "10m",
        "a run that shows no sign of life this long (no output, its processes idle, no person asked) is stopped as stalled and sent again; 0s: never",
    ),
    file_setting(
        "dispatch.pass_at_run_end",
        Kind::Bool,
        "true",
        "a run's supervisor makes one pass as its run ends, so the judge and the next run need not wait for the scheduled tick; false: they wait for it",
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
        "dispatch.pull_request",
        Kind::Bool,
        "false",
        "true (with worktree and merge: none): push the branch of a run that finished with the goal's other checks passing and open (or update) a pull request on GitHub",
    ),
    file_setting(
        "dispatch.pull_request_repo",
        Kind::OptionalText,
        "null",
        "owner/repo the pull requests are opened in; null: from the address of git.remote",
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
        "[blocked, failed, circuit_breaker, no_progress, verifying, completed, review, reminder, resolved, limited, merge, permission, config, machine]",
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
        "entries the block shows at most, by priority; a full block ends with a line that says so (0: all)",
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
        "git.timeout",
        Kind::Duration,
        "10m",
        "a `git` steward runs (a fetch, a push) past this is stopped with what it started, and the command fails; steward's own reads and commits of the repository stop at the lesser of this and 1m",
    ),
    file_setting(
        "reply.expires",
        Kind::Duration,
        "24h",
        "how long a notification's answers stay good (0s: notifications offer none)",
    ),
    file_setting(
        "reply.git_url",
        Kind::OptionalText,
        "null",
        "the git host's new-file page with {path} and {content}, e.g. \"https://github.com/OWNER/REPO/new/main?filename={path}&value={content}\": each answer is a link that fills in a reply file to commit",
    ),
    file_setting(
        "reply.ntfy.server",
        Kind::OptionalText,
        "null",
        "\"https://ntfy.sh\": answers come back as ntfy messages on reply.ntfy.topic",
    ),
    file_setting(
        "reply.ntfy.topic",
        Kind::OptionalText,
        "null",
        "the topic answers are posted to: a secret (whoever knows it can answer); \"file:PATH\" reads it from a file the agents cannot read (under ~/.config/steward/)",
    ),
    file_setting(
        "reply.ntfy.token",
        Kind::OptionalText,
        "null",
        "an ntfy access token for the reply topic (tk_...), sent as a bearer token; \"file:PATH\" reads it from a file",
    ),
    file_setting(
        "episodes.path",
        Kind::OptionalText,
        "null",
        "\"memory/{date}.md\": an episode is appended there when a goal completes, fails or is abandoned",
    ),
    file_setting(
        "machine.tags",
        Kind::TextList,
        "[]",
        "this machine's tags, which goals' runs_on may name (in the machine-local state/local/steward.yaml)",
    ),
    file_setting(
        "machine.available",
        Kind::HoursList,
        "[]",
        "[\"08:00-23:00\"] local times this machine is awake to run agents, for placement ([]: always; in the machine-local file)",
    ),
    file_setting(
        "fleet.stale_after",
        Kind::Duration,
        "30m",
        "a machine whose record shows no pass for this long counts for nothing in placement, and a person is told once",
    ),
    file_setting(
        "fleet.defer",
        Kind::Duration,
        "10m",
        "how long a ready goal is left to a machine whose record says it can start it sooner (0s: never)",
    ),
    file_setting(
        "intake.critical_labels",
        Kind::TextList,
        "[P0, priority/critical]",
        "issue labels that make a goal from an issue critical (add --from-issue, intake)",
    ),
    file_setting(
        "intake.high_labels",
        Kind::TextList,
        "[P1, priority/high]",
        "issue labels that make a goal from an issue high",
    ),
    file_setting(
        "intake.low_labels",
        Kind::TextList,
        "[P3, priority/low]",
        "issue labels that make a goal from an issue low (any other: defaults.priority)",
    ),
    file_setting(
        "intake.comment",
        Kind::Bool,
        "false",
        "true: comment on an issue a goal is made from, naming the goal",
    ),
    file_setting(
        "intake.close",
        Kind::Bool,
        "false",
        "true: close an issue when the goal made from it completes (it is commented on either way)",
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
pub(super) enum Value {
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
