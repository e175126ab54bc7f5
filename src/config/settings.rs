//! The configuration as the rest of steward reads it: typed settings,
//! each value's source, and what a load held back or ignored.

use std::fmt;
use std::path::PathBuf;

use super::Sources;
use crate::agents::AgentProfile;
use crate::model::Priority;
use crate::model::duration::HumanDuration;
use crate::os::sandbox::SandboxMode;

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
    /// How long each `git` steward runs (a fetch, a push) may take.
    pub timeout: HumanDuration,
}

/// Agent runs that `tick` starts (steward-guide(7), "AGENT RUNS: TICK MAKES WORK HAPPEN").
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub enabled: bool,
    pub agent: String,
    pub fallback_agent: Option<String>,
    pub max_parallel: u64,
    pub timeout: HumanDuration,
    /// A run without a sign of life this long is stopped as stalled (0:
    /// never).
    pub stall_after: HumanDuration,
    /// A usage limit that resets later than this is told to a person.
    pub limit_wait: HumanDuration,
    /// A run's supervisor makes one pass as its run ends.
    pub pass_at_run_end: bool,
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
    /// (`crate::os::sandbox`).
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
    /// Push a finished run's branch and open a pull request for it.
    pub pull_request: bool,
    /// `owner/repo` of the pull requests; `None`: from `git.remote`.
    pub pull_request_repo: Option<String>,
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

/// Answers from the phone (steward-guide(7), "ANSWERING FROM THE PHONE").
#[derive(Debug, Clone, PartialEq)]
pub struct Replies {
    /// Zero: no answers offered.
    pub expires: HumanDuration,
    pub git_url: Option<String>,
    pub ntfy: Option<NtfyReplies>,
}

/// Where ntfy answers come back (`reply.ntfy`).
#[derive(Debug, Clone, PartialEq)]
pub struct NtfyReplies {
    pub server: String,
    pub topic: String,
    pub token: Option<String>,
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

/// What this machine tells the fleet about itself (`machine.*`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Machine {
    pub tags: Vec<String>,
    /// When it is awake to run agents; empty: always.
    pub available: Vec<QuietHours>,
}

/// Goals made from GitHub issues (`intake.*`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Intake {
    /// Issue labels that make the goal critical, high, low.
    pub critical_labels: Vec<String>,
    pub high_labels: Vec<String>,
    pub low_labels: Vec<String>,
    /// Comment on the issue, naming the goal made from it.
    pub comment: bool,
    /// Close the issue when the goal completes.
    pub close: bool,
}

/// Machines sharing a store (`fleet.*`).
#[derive(Debug, Clone, PartialEq)]
pub struct Fleet {
    pub stale_after: HumanDuration,
    pub defer: HumanDuration,
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
    pub reply: Replies,
    /// Agent profiles: the built-in `claude` and `codex`, and the file's.
    pub agents: Vec<AgentProfile>,
    /// `machine_id`; `None`: the host name.
    pub machine_id: Option<String>,
    /// `machine.*`: what this machine tells the fleet about itself.
    pub machine: Machine,
    pub fleet: Fleet,
    pub intake: Intake,
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
#[derive(Debug)]
pub struct LoadedConfig {
    pub config: Config,
    pub sources: Sources,
    /// `STEWARD_*` variables set and not applied.
    pub ignored_env: Vec<IgnoredEnv>,
    /// How the files differ from what a person on this machine accepted
    /// (`None`: they do not, or nothing was accepted here yet).
    pub changes: Option<ConfigChanges>,
    /// A configuration file that does not load, while what a person
    /// accepted here is in force in its place.
    pub broken: Option<crate::error::Error>,
}

/// How the configuration files differ from what a person on this machine
/// accepted (`steward config accept`): what they loosen is held at the
/// accepted value; what they tighten is in force at once, and recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigChanges {
    /// What the files say, as [`Said::text`](super::Said::text) gives it.
    pub said: String,
    /// What was accepted, the same way.
    pub accepted: String,
    /// The settings held at their accepted value (`agents` for the
    /// profiles).
    pub held: Vec<&'static str>,
    /// The settings the files tighten, in force.
    pub tightened: Vec<&'static str>,
    /// What was accepted with the tightenings: the record once they are
    /// recorded.
    pub record_with_tightened: String,
}

/// A `STEWARD_*` variable that is set and was not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredEnv {
    pub variable: String,
    pub key: &'static str,
    pub because: IgnoredBecause,
}

impl IgnoredEnv {
    pub(super) fn new(variable: String, key: &'static str, because: IgnoredBecause) -> IgnoredEnv {
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
