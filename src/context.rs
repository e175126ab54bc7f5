//! Settings resolved once per run: the root, configuration layers, the clock,
//! the actor and how to print. Nothing below the CLI layer reads the
//! environment or the real clock; it asks the context.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::config::{self, Config, FlagOverrides, LoadedConfig};
use crate::error::{Error, Result};
use crate::model::Actor;
use crate::os::process::Ancestor;
use crate::store::Store;

/// What the process was started with: variables, working directory, and
/// whether stdout is a terminal. Tests build one by hand.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub vars: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub stdout_is_terminal: bool,
    pub stderr_is_terminal: bool,
    /// The processes this one runs under, when known already (tests give
    /// them); `None`: read from `/proc` when the caller must be decided.
    pub lineage: Option<Vec<Ancestor>>,
}

impl Environment {
    /// The real process environment.
    pub fn capture() -> Result<Environment> {
        use std::io::IsTerminal;
        let cwd = std::env::current_dir()
            .map_err(|err| Error::io(Path::new("."), "cannot read the working directory", err))?;
        Ok(Environment {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            cwd,
            stdout_is_terminal: std::io::stdout().is_terminal(),
            stderr_is_terminal: std::io::stderr().is_terminal(),
            lineage: None,
        })
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A test hook's variable (`STEWARD_NOW`, `STEWARD_FAULT`): read only
    /// by a build with the `testing` feature (and unit tests). The binary
    /// people install ignores it, so an agent cannot set steward's clock.
    pub fn test_hook(&self, name: &str) -> Option<&str> {
        if cfg!(any(test, feature = "testing")) {
            self.var(name)
        } else {
            None
        }
    }

    /// The user's home, where steward keeps its machine key: the password
    /// database's, so that an agent setting `$HOME` cannot swap the key.
    /// A build with test hooks takes `$HOME`, so tests keep theirs apart.
    pub fn user_home(&self) -> Option<PathBuf> {
        self.test_hook("HOME")
            .map(PathBuf::from)
            .or_else(crate::store::key::home_of_user)
            // A user the password database does not know (a container):
            // `$HOME` is all there is.
            .or_else(|| self.var("HOME").map(PathBuf::from))
    }

    /// The clock `STEWARD_NOW` fixes, in a build that honours test hooks.
    pub fn fixed_clock(&self) -> Option<&str> {
        self.test_hook("STEWARD_NOW")
    }
}

/// Everything a command needs to know about this run.
#[derive(Debug)]
pub struct Context {
    pub root: PathBuf,
    pub config: Config,
    pub config_sources: config::Sources,
    /// `STEWARD_*` variables set and not applied, and why.
    pub ignored_env: Vec<config::IgnoredEnv>,
    /// How the configuration files differ from what a person here
    /// accepted: loosenings held back (`steward config accept`),
    /// tightenings in force.
    pub config_changes: Option<config::ConfigChanges>,
    /// The store is sealed here, and no record of what a person accepted
    /// of its configuration verifies (lost with a replaced key, or kept by
    /// no steward before): the defaults are the floor until a person
    /// accepts.
    pub acceptance_lost: bool,
    pub store: Store,
    pub now: DateTime<Utc>,
    pub actor: Actor,
    /// A person acts inside an agent's shell (`STEWARD_OVERRIDE_ACTOR=user`):
    /// every change says so in its history line and event.
    pub overridden: bool,
    /// What decided the actor (`CLAUDECODE=1`, `runs under claude (pid
    /// 812)`, `--actor agent`, `default`).
    pub actor_rule: String,
    /// A person's act that came as an answer from the phone: every change
    /// says so in its event, and touches the goal only in the state the
    /// answer was offered for.
    pub answer: Option<Answer>,
    pub lock_timeout: Duration,
    pub env: Environment,
    /// Why the configuration could not be loaded: the command goes on with
    /// what a person here last accepted, or with the defaults when it
    /// asked to (`doctor`).
    pub config_error: Option<Error>,
    /// The command's name, for commit messages.
    pub command: &'static str,
    /// Where a slow step says how it is getting on (the front door decides:
    /// the command line shows a line on a terminal's stderr).
    pub progress: Progress,
}

/// A place to say how a slow step is getting on: `Some(text)` shows or
/// replaces the line, `None` clears it. Silent by default.
#[derive(Default)]
pub struct Progress(Option<Box<ProgressSink>>);

/// What shows a progress line: the line, or `None` to clear it.
type ProgressSink = dyn Fn(Option<&str>) + Send + Sync;

impl Progress {
    pub fn to(sink: impl Fn(Option<&str>) + Send + Sync + 'static) -> Progress {
        Progress(Some(Box::new(sink)))
    }

    pub fn is_silent(&self) -> bool {
        self.0.is_none()
    }

    pub fn show(&self, line: Option<&str>) {
        if let Some(sink) = &self.0 {
            sink(line);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(shown)"
        } else {
            "Progress(silent)"
        })
    }
}

/// Environment variables that say a process runs inside an agent harness
/// (steward-design(7), "Who is calling"): the variable, and the value it
/// must have (`None`: any).
pub const AGENT_MARKERS: [(&str, Option<&str>); 6] = [
    // Claude Code, in its shell tool and its hooks (an IDE extension may
    // set CLAUDECODE in a person's terminal too: that person overrides).
    ("CLAUDECODE", Some("1")),
    ("CLAUDE_CODE_CHILD_SESSION", Some("1")),
    // Codex CLI, in the shell commands its model runs (not in its hooks).
    ("CODEX_CI", Some("1")),
    ("CODEX_THREAD_ID", None),
    // The cross-vendor convention (`claude-code_…_agent`, …).
    ("AI_AGENT", None),
    // An agent run steward started (`tick`, `dispatch`).
    ("STEWARD_DISPATCH_ID", None),
];

/// Agent CLIs a process may run under: a shell of theirs is an agent's,
/// whatever its environment says (an agent can unset a marker, not its
/// parents). Matched against a process's name, or, for a script run by an
/// interpreter (`node …/codex.js`), the script's file name.
pub const AGENT_PROGRAMS: &[&str] = &[
    "claude",
    "codex",
    "openclaw",
    "gemini",
    "aider",
    "opencode",
    "cursor-agent",
    "goose",
    "amp",
    "crush",
    "qwen",
];

/// Who is calling, as the flags, the environment and the processes above
/// say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub actor: Actor,
    pub overridden: bool,
    /// What decided it, for the record (`CLAUDECODE=1`, `runs under claude
    /// (pid 812)`, `--actor agent`, `default`).
    pub rule: String,
}

impl Caller {
    /// `STEWARD_ACTOR=agent`, the harness markers and a known agent CLI or
    /// steward run among the processes above make the caller an agent,
    /// and no flag raises an agent to a person; `--actor agent` always
    /// lowers. Only `STEWARD_OVERRIDE_ACTOR=user` (a person in an agent's
    /// shell) raises it, and that is recorded.
    pub fn resolve(flag: Option<&str>, env: &Environment) -> Result<Caller> {
        let parse = |name: &str, text: &str| {
            Actor::parse_cli(text).map_err(|why| Error::bad_value(name, why))
        };
        let flag = flag.map(|text| parse("--actor", text)).transpose()?;
        let variable = env
            .var("STEWARD_ACTOR")
            .map(|text| parse("STEWARD_ACTOR", text))
            .transpose()?;
        let marker = AGENT_MARKERS.iter().find_map(|(name, value)| {
            env.var(name)
                .filter(|v| value.is_none_or(|wanted| *v == wanted))
                .map(|v| format!("{name}={v}"))
        });
        let agent_by_environment = if variable == Some(Actor::Agent) {
            Some("STEWARD_ACTOR=agent".to_string())
        } else if marker.is_some() {
            marker
        } else if flag == Some(Actor::Agent) {
            // Lowered by the flag: nothing to look up.
            None
        } else {
            match &env.lineage {
                Some(lineage) => agent_ancestor(lineage),
                None => agent_ancestor(&crate::os::process::ancestors()),
            }
        };
        let overridden = agent_by_environment.is_some()
            && env
                .var("STEWARD_OVERRIDE_ACTOR")
                .is_some_and(|v| v.eq_ignore_ascii_case("user"));
        if let Some(because) = agent_by_environment.filter(|_| !overridden) {
            return match flag {
                None | Some(Actor::Agent) => Ok(Caller {
                    actor: Actor::Agent,
                    overridden: false,
                    rule: because,
                }),
                Some(raised) => Err(Error::AgentCannotRaise {
                    actor: raised.as_str(),
                    because: if because.contains('=') {
                        format!("{because} is set")
                    } else {
                        because
                    },
                }),
            };
        }
        let (actor, rule) = match (flag, overridden) {
            (Some(actor), _) => (actor, format!("--actor {}", actor.as_str())),
            (None, true) => (Actor::User, "STEWARD_OVERRIDE_ACTOR=user".to_string()),
            (None, false) => match variable {
                Some(actor) => (actor, format!("STEWARD_ACTOR={}", actor.as_str())),
                None => (Actor::User, "default".to_string()),
            },
        };
        Ok(Caller {
            overridden: overridden && actor == Actor::User,
            actor,
            rule,
        })
    }
}

/// The nearest process above that is an agent CLI or a steward run's
/// supervisor, as the rule that makes the caller an agent.
fn agent_ancestor(lineage: &[Ancestor]) -> Option<String> {
    lineage.iter().find_map(|ancestor| {
        if ancestor.name == "steward" && ancestor.argv.iter().any(|a| a == "run-agent") {
            return Some(format!("runs under a steward run (pid {})", ancestor.pid));
        }
        let program = agent_program(ancestor)?;
        Some(format!("runs under {program} (pid {})", ancestor.pid))
    })
}

/// The agent CLI `ancestor` is, by its name or its script's.
fn agent_program(ancestor: &Ancestor) -> Option<&'static str> {
    let known = |name: &str| {
        let name = name.to_ascii_lowercase();
        let stem = [".js", ".mjs", ".cjs", ".py", ".exe"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(&name);
        AGENT_PROGRAMS.iter().copied().find(|p| *p == stem)
    };
    if let Some(program) = known(&ancestor.name) {
        return Some(program);
    }
    // An interpreter: its first argument that is not an option names the
    // script (`node /usr/lib/node_modules/@openai/codex/bin/codex.js`); the
    // next names it only as a path (`node -r ./trace.js …/codex.js`), so
    // that a script's own word (`bash release.sh claude`) is not taken
    // for an agent.
    ancestor
        .argv
        .iter()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .take(2)
        .enumerate()
        .filter(|(at, arg)| *at == 0 || arg.contains('/'))
        .find_map(|(_, arg)| {
            let file = std::path::Path::new(arg).file_name()?.to_str()?;
            known(file)
        })
}

/// An answer from the phone a context acts on (`engine::reply`).
#[derive(Debug, Clone)]
pub struct Answer {
    /// `reply NONCE by CHANNEL`, as its events record it.
    pub via: String,
    /// The goal's id, and the SHA-256 of its file when it was offered.
    pub goal: String,
    pub state: String,
}

/// The global options that decide the context, as typed.
#[derive(Debug, Clone, Default)]
pub struct GlobalOptions {
    pub root: Option<PathBuf>,
    pub actor: Option<String>,
    pub lock_timeout: Option<String>,
    pub flags: FlagOverrides,
    /// Go on with the defaults when the configuration is invalid.
    pub tolerate_config_errors: bool,
    pub command: &'static str,
}

impl Context {
    pub fn resolve(options: &GlobalOptions, env: Environment) -> Result<Context> {
        let root = match &options.root {
            Some(root) => absolute(root, &env.cwd),
            None => match env.var("STEWARD_ROOT") {
                Some(root) => absolute(Path::new(root), &env.cwd),
                None => discover_root(&env.cwd),
            },
        };
        let now = match env.fixed_clock() {
            Some(text) => DateTime::parse_from_rfc3339(text)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|err| {
                    Error::bad_value(
                        "STEWARD_NOW",
                        format!("`{text}` is not an RFC 3339 time ({err})"),
                    )
                })?,
            None => Utc::now(),
        };
        let caller = Caller::resolve(options.actor.as_deref(), &env)?;
        let lock_timeout = match options
            .lock_timeout
            .as_deref()
            .or(env.var("STEWARD_LOCK_TIMEOUT"))
        {
            Some(text) => crate::model::duration::HumanDuration::parse(text)
                .map_err(|why| Error::bad_value("--lock-timeout", why))?
                .to_std(),
            None => Duration::from_secs(10),
        };
        // Paths in messages read best relative to where the user is.
        let store_root = match root.strip_prefix(&env.cwd) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => root.clone(),
        };
        // The machine key first: what a person here accepted of the
        // commands steward.yaml names decides which of them take effect.
        let keys = env.user_home().map(|home| {
            crate::store::seal::Keyring::at(crate::store::key::key_dir(&home), "").for_store(&root)
        });
        let accepted = keys.as_ref().and_then(|keys| keys.accepted_config(&root));
        let acceptance_lost = accepted == Some(crate::store::seal::AcceptedConfig::Lost);
        let accepted = accepted.map(|accepted| match accepted {
            crate::store::seal::AcceptedConfig::Verified(said) => said,
            crate::store::seal::AcceptedConfig::Lost => String::new(),
        });
        let (
            LoadedConfig {
                config,
                sources,
                ignored_env,
                changes,
                broken: _,
            },
            config_error,
        ) = match Config::load(
            &store_root,
            &env.vars,
            &options.flags,
            caller.actor,
            accepted.as_deref(),
        ) {
            Ok(mut loaded) => {
                let broken = loaded.broken.take();
                (loaded, broken)
            }
            Err(err) if options.tolerate_config_errors => (Config::load_defaults(), Some(err)),
            Err(err) => return Err(err),
        };
        crate::os::git::set_timeout(config.git.timeout.to_std());
        let mut store = Store::new(&store_root, &root, &config);
        store.fault = env.test_hook("STEWARD_FAULT").map(str::to_string);
        store.caller = caller.actor;
        if let Some(keys) = keys {
            let machine = config.machine_id.clone().unwrap_or_else(host_name);
            store = store.with_keys(keys.named(&machine));
        }
        Ok(Context {
            root,
            config,
            config_sources: sources,
            ignored_env,
            config_changes: changes,
            acceptance_lost,
            store,
            now,
            actor: caller.actor,
            overridden: caller.overridden,
            actor_rule: caller.rule,
            answer: None,
            lock_timeout,
            env,
            config_error,
            command: options.command,
            progress: Progress::default(),
        })
    }

    /// The time now, for a process that lives longer than one command (an
    /// agent run's supervisor): the real clock, unless `STEWARD_NOW` fixes
    /// it.
    pub fn clock_now(&self) -> DateTime<Utc> {
        if self.env.fixed_clock().is_some() {
            self.now
        } else {
            Utc::now()
        }
    }

    /// Whether steward is on as the configuration files say now, read
    /// again (a person may have turned it off since this process started):
    /// a file that does not load leaves what was in force.
    pub fn enabled_now(&self) -> bool {
        let accepted = self
            .store
            .keys
            .accepted_config(&self.root)
            .map(|a| match a {
                crate::store::seal::AcceptedConfig::Verified(said) => said,
                crate::store::seal::AcceptedConfig::Lost => String::new(),
            });
        match Config::load(
            &self.root,
            &self.env.vars,
            &crate::config::FlagOverrides::default(),
            self.actor,
            accepted.as_deref(),
        ) {
            Ok(loaded) => loaded.config.enabled,
            Err(_) => self.config.enabled,
        }
    }

    /// Where a setting's value came from, as `config` says it
    /// (`steward.yaml:3`, `env STEWARD_ENABLED`, `default`).
    pub fn source_of(&self, key: &str) -> String {
        self.config_sources.of(key).to_string()
    }

    /// This machine's name in runs and claims: `machine_id`, else the host
    /// name.
    pub fn machine_id(&self) -> String {
        self.config.machine_id.clone().unwrap_or_else(host_name)
    }

    /// Who this command acts for, as its transactions record it.
    pub fn acting(&self) -> crate::store::Acting {
        crate::store::Acting {
            actor: self.actor,
            overridden: self.overridden,
            rule: self.answer.as_ref().map(|a| a.via.clone()).or_else(|| {
                (self.actor == Actor::Agent || self.overridden).then(|| self.actor_rule.clone())
            }),
            expect: (self.answer.as_ref()).map(|a| (a.goal.clone(), a.state.clone())),
        }
    }

    /// Starts the one write path.
    pub fn transaction(&self) -> Result<crate::store::Transaction<'_>> {
        self.transaction_at(self.now)
    }

    /// Starts the one write path on behalf of steward itself (`tick` is the
    /// watchdog's pass whoever runs it): its events and commit carry
    /// `actor`, not the caller.
    pub fn transaction_by(&self, actor: Actor) -> Result<crate::store::Transaction<'_>> {
        self.transaction_by_at(actor, self.now)
    }

    /// The same, with the clock at `now` (a run's end, read as it ends).
    pub fn transaction_by_at(
        &self,
        actor: Actor,
        now: DateTime<Utc>,
    ) -> Result<crate::store::Transaction<'_>> {
        crate::store::Transaction::begin(
            &self.store,
            now,
            crate::store::Acting::steward(actor),
            self.lock_timeout,
            self.command,
        )
    }

    /// Starts the one write path with the clock at `now`.
    pub fn transaction_at(&self, now: DateTime<Utc>) -> Result<crate::store::Transaction<'_>> {
        crate::store::Transaction::begin(
            &self.store,
            now,
            self.acting(),
            self.lock_timeout,
            self.command,
        )
    }
}

/// `path` made absolute and physical: no `.`, `..` or link on the way, so
/// that one store has one root whatever spelling named it (its marker,
/// its records and the MACs bound to it are the root's). A root not made
/// yet (`init`) is its folder's physical path and its name.
fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    if let Ok(physical) = std::fs::canonicalize(&joined) {
        return physical;
    }
    match (joined.parent(), joined.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|parent| parent.join(name))
            .unwrap_or(joined),
        _ => joined,
    }
}

/// The nearest ancestor of `cwd` holding `steward.yaml` or `state/goals`,
/// else `cwd` itself. Inside a run's worktree (`state/worktrees/<name>`),
/// the store that holds it: the worktree's own copy of `steward.yaml` is
/// the branch's, not a store.
fn discover_root(cwd: &Path) -> PathBuf {
    if let Some(store) = worktree_store(cwd) {
        return store;
    }
    cwd.ancestors()
        .find(|dir| is_store(dir))
        .unwrap_or(cwd)
        .to_path_buf()
}

fn is_store(dir: &Path) -> bool {
    dir.join(config::FILE_NAME).is_file() || dir.join("state").join("goals").is_dir()
}

/// The store whose `state/worktrees/` holds `dir`, if one does.
pub fn worktree_store(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .filter(|a| a.file_name().is_some_and(|n| n == "worktrees"))
        .filter_map(|a| a.parent())
        .filter(|state| state.file_name().is_some_and(|n| n == "state"))
        .filter_map(|state| state.parent())
        .find(|store| is_store(store))
        .map(Path::to_path_buf)
}

/// The host name, or `localhost` when it cannot be read.
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: gethostname writes at most `len` bytes into the buffer.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buffer[..end]).into_owned()
    } else {
        "localhost".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)], lineage: Vec<Ancestor>) -> Environment {
        Environment {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            lineage: Some(lineage),
            ..Environment::default()
        }
    }

    fn process(pid: u32, name: &str, argv: &[&str]) -> Ancestor {
        Ancestor {
            pid,
            name: name.to_string(),
            argv: argv.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_shell_under_an_agent_cli_is_an_agent_whatever_its_environment_says() {
        let under_claude = vec![process(40, "bash", &["bash"]), process(31, "claude", &[])];
        let caller = Caller::resolve(None, &env(&[], under_claude.clone())).unwrap();
        assert_eq!(caller.actor, Actor::Agent);
        assert_eq!(caller.rule, "runs under claude (pid 31)");
        let raised = Caller::resolve(Some("user"), &env(&[], under_claude.clone()));
        assert!(
            matches!(raised, Err(Error::AgentCannotRaise { ref because, .. }) if because == "runs under claude (pid 31)"),
            "{raised:?}"
        );
        // A person in that shell overrides, and it is recorded.
        let person = Caller::resolve(
            None,
            &env(&[("STEWARD_OVERRIDE_ACTOR", "user")], under_claude),
        )
        .unwrap();
        assert_eq!(
            (person.actor, person.overridden, person.rule.as_str()),
            (Actor::User, true, "STEWARD_OVERRIDE_ACTOR=user")
        );
    }

    #[test]
    fn scripts_run_by_an_interpreter_and_steward_runs_are_recognised() {
        let codex = vec![process(
            7,
            "node",
            &[
                "node",
                "/usr/lib/node_modules/@openai/codex/bin/codex.js",
                "exec",
            ],
        )];
        assert_eq!(
            Caller::resolve(None, &env(&[], codex)).unwrap().rule,
            "runs under codex (pid 7)"
        );
        let supervised = vec![process(
            9,
            "steward",
            &["steward", "-C", "/s", "run-agent", "d-1"],
        )];
        assert_eq!(
            Caller::resolve(None, &env(&[], supervised)).unwrap().rule,
            "runs under a steward run (pid 9)"
        );
        let cron = vec![
            process(3, "sh", &["sh", "-c", "steward tick"]),
            process(2, "cron", &[]),
        ];
        let person = Caller::resolve(None, &env(&[], cron)).unwrap();
        assert_eq!(
            (person.actor, person.rule.as_str()),
            (Actor::User, "default")
        );
        let preloaded = vec![process(
            8,
            "node",
            &["node", "-r", "./trace.js", "/opt/codex/bin/codex.js"],
        )];
        assert_eq!(
            Caller::resolve(None, &env(&[], preloaded)).unwrap().rule,
            "runs under codex (pid 8)"
        );
        let a_word_of_a_script = vec![process(6, "bash", &["bash", "release.sh", "claude"])];
        assert_eq!(
            Caller::resolve(None, &env(&[], a_word_of_a_script))
                .unwrap()
                .actor,
            Actor::User
        );
        let not_an_agent = vec![process(5, "node", &["node", "server.js"])];
        assert_eq!(
            Caller::resolve(None, &env(&[], not_an_agent))
                .unwrap()
                .actor,
            Actor::User
        );
    }

    #[test]
    fn markers_decide_before_the_processes_and_the_flag_only_lowers() {
        let caller = Caller::resolve(None, &env(&[("CLAUDECODE", "1")], vec![])).unwrap();
        assert_eq!(
            (caller.actor, caller.rule.as_str()),
            (Actor::Agent, "CLAUDECODE=1")
        );
        let lowered = Caller::resolve(Some("agent"), &env(&[], vec![])).unwrap();
        assert_eq!(
            (lowered.actor, lowered.rule.as_str()),
            (Actor::Agent, "--actor agent")
        );
    }
}
