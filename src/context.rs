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
use crate::store::Store;

/// What the process was started with: variables, working directory, and
/// whether stdout is a terminal. Tests build one by hand.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub vars: BTreeMap<String, String>,
    pub cwd: PathBuf,
    pub stdout_is_terminal: bool,
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
        })
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Everything a command needs to know about this run.
#[derive(Debug)]
pub struct Context {
    pub root: PathBuf,
    pub config: Config,
    pub config_entries: Vec<config::Entry>,
    pub store: Store,
    pub now: DateTime<Utc>,
    pub actor: Actor,
    pub lock_timeout: Duration,
    pub env: Environment,
    /// Why the configuration could not be loaded, when the command asked to
    /// go on with defaults (`doctor`).
    pub config_error: Option<Error>,
    /// The command's name, for commit messages.
    pub command: &'static str,
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
        let now = match env.var("STEWARD_NOW") {
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
        let actor_text = options.actor.as_deref().or(env.var("STEWARD_ACTOR"));
        let actor = match actor_text {
            Some(text) => Actor::parse_cli(text).map_err(|why| Error::bad_value("--actor", why))?,
            None => Actor::User,
        };
        let lock_timeout = match options
            .lock_timeout
            .as_deref()
            .or(env.var("STEWARD_LOCK_TIMEOUT"))
        {
            Some(text) => crate::duration::HumanDuration::parse(text)
                .map_err(|why| Error::bad_value("--lock-timeout", why))?
                .to_std(),
            None => Duration::from_secs(10),
        };
        // Paths in messages read best relative to where the user is.
        let store_root = match root.strip_prefix(&env.cwd) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => root.clone(),
        };
        let (LoadedConfig { config, entries }, config_error) =
            match Config::load(&store_root, &env.vars, &options.flags) {
                Ok(loaded) => (loaded, None),
                Err(err) if options.tolerate_config_errors => (Config::load_defaults(), Some(err)),
                Err(err) => return Err(err),
            };
        let store = Store::new(&store_root, &root, &config);
        Ok(Context {
            root,
            config,
            config_entries: entries,
            store,
            now,
            actor,
            lock_timeout,
            env,
            config_error,
            command: options.command,
        })
    }

    /// Starts the one write path.
    pub fn transaction(&self) -> Result<crate::store::Transaction<'_>> {
        crate::store::Transaction::begin(
            &self.store,
            self.now,
            self.actor,
            self.lock_timeout,
            self.command,
        )
    }
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// The nearest ancestor of `cwd` holding `steward.yaml` or `state/goals`,
/// else `cwd` itself.
fn discover_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| {
            dir.join(config::FILE_NAME).is_file() || dir.join("state").join("goals").is_dir()
        })
        .unwrap_or(cwd)
        .to_path_buf()
}
