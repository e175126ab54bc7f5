//! `schedule`: the entry that runs this store's watchdog pass
//! (`steward -C ROOT tick -q`) every few minutes, written for the system's
//! own scheduler: a crontab line ([`cron`]), a systemd user timer
//! ([`systemd`]) or a launchd agent ([`launchd`]). Installing is
//! idempotent, names everything by absolute path and carries the PATH of
//! the person who installs it, so the pass finds the agent CLIs there as
//! it does in their shell. A person's act: the entry runs outside any
//! agent's sandbox.

pub mod cron;
pub mod launchd;
pub mod systemd;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::duration::HumanDuration;

/// The schedulers steward writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    Cron,
    Systemd,
    Launchd,
}

impl Scheduler {
    pub const ALL: [Scheduler; 3] = [Scheduler::Cron, Scheduler::Systemd, Scheduler::Launchd];

    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Cron => "cron",
            Scheduler::Systemd => "systemd",
            Scheduler::Launchd => "launchd",
        }
    }

    /// The one a person here most likely runs: launchd on macOS; on
    /// Linux cron when its `crontab` is installed, else systemd's timers.
    pub fn native(ctx: &Context) -> Scheduler {
        if cfg!(target_os = "macos") {
            Scheduler::Launchd
        } else if find_program(ctx, "crontab").is_some() || find_program(ctx, "systemctl").is_none()
        {
            Scheduler::Cron
        } else {
            Scheduler::Systemd
        }
    }
}

/// What the entry runs, and how often.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// This steward binary.
    pub exe: PathBuf,
    /// The store's root.
    pub root: PathBuf,
    pub every: HumanDuration,
    /// The PATH the pass runs with: the installer's own.
    pub path: String,
    /// Names this store's entry among others: a hash of its root.
    pub tag: String,
}

impl Entry {
    /// The entry for this store, run every `every`. A period cron cannot
    /// say (it names minutes of the hour and hours of the day) is a usage
    /// error for every scheduler alike, so that moving from one to
    /// another keeps the rhythm.
    pub fn for_store(ctx: &Context, every: HumanDuration) -> Result<Entry> {
        cron::times(every).map_err(|why| Error::bad_value("--every", why))?;
        let exe = crate::os::process::own_binary()?;
        let root = absolute(&ctx.root);
        for (what, path) in [("steward's binary", &exe), ("the store", &root)] {
            let text = path.to_str().unwrap_or_default();
            if text.is_empty() || text.contains(['\n', '\r']) {
                return Err(Error::bad_value(
                    what,
                    format!(
                        "{} has a line break or is not UTF-8: no scheduler's entry can name it",
                        path.display()
                    ),
                ));
            }
        }
        Ok(Entry {
            tag: tag(&root),
            exe,
            root,
            every,
            path: ctx
                .env
                .var("PATH")
                .unwrap_or("/usr/local/bin:/usr/bin:/bin")
                .to_string(),
        })
    }

    /// The command line, as a POSIX shell reads it.
    pub fn shell_command(&self) -> String {
        format!(
            "{} -C {} tick -q",
            crate::text::shell_word(&self.exe.display().to_string()),
            crate::text::shell_word(&self.root.display().to_string()),
        )
    }

    /// The arguments after the program.
    pub fn args(&self) -> [String; 4] {
        [
            "-C".to_string(),
            self.root.display().to_string(),
            "tick".to_string(),
            "-q".to_string(),
        ]
    }
}

/// The store's tag: the first 12 hex digits of the SHA-256 of its root,
/// the same for every scheduler.
pub fn tag(root: &Path) -> String {
    crate::store::key::sha256(root.as_os_str().as_encoded_bytes())[..12].to_string()
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What one scheduler holds for this store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub scheduler: Scheduler,
    /// Where: the crontab, or the unit or agent file.
    pub place: String,
    /// How often, as the scheduler says it.
    pub when: String,
    /// What it runs.
    pub command: String,
    /// Whether steward wrote it (`false`: a line written by hand that
    /// runs this store's tick).
    pub ours: bool,
    /// Whether the scheduler runs it: enabled, or loaded (a scheduler
    /// that is not installed or cannot be reached runs nothing).
    pub active: bool,
}

/// What `install` or `remove` did.
#[derive(Debug)]
pub struct Changed {
    pub scheduler: Scheduler,
    /// The files or crontab changed; empty when everything already was
    /// as asked.
    pub written: Vec<String>,
    /// What the scheduler was told (`systemctl --user enable --now …`).
    pub commands: Vec<String>,
    /// What the person should know (the entry waits for something).
    pub notes: Vec<String>,
}

/// Installing and removing are a person's: the entry runs outside any
/// agent's sandbox, on the person's PATH.
pub fn person_only(ctx: &Context, verb: &str) -> Result<()> {
    if ctx.actor == crate::model::Actor::User {
        return Ok(());
    }
    Err(Error::PersonOnly {
        what: format!("{verb} the scheduler's entry for this store"),
        person_runs: format!("steward schedule {verb}"),
    })
}

/// Writes `entry` for `scheduler` (replacing this store's entry there if
/// it differs) and has the scheduler run it.
pub fn install(ctx: &Context, scheduler: Scheduler, entry: &Entry) -> Result<Changed> {
    person_only(ctx, "install")?;
    if !ctx.store.exists() {
        return Err(Error::NotAStore {
            searched: ctx.root.clone(),
        });
    }
    match scheduler {
        Scheduler::Cron => cron::install(ctx, entry),
        Scheduler::Systemd => systemd::install(ctx, entry),
        Scheduler::Launchd => launchd::install(ctx, entry),
    }
}

/// Takes this store's entry out of `scheduler`.
pub fn remove(ctx: &Context, scheduler: Scheduler) -> Result<Changed> {
    person_only(ctx, "remove")?;
    let tag = tag(&absolute(&ctx.root));
    match scheduler {
        Scheduler::Cron => cron::remove(ctx, &tag),
        Scheduler::Systemd => systemd::remove(ctx, &tag),
        Scheduler::Launchd => launchd::remove(ctx, &tag),
    }
}

/// Every entry that runs this store's pass, in every scheduler that can
/// be asked here.
pub fn found(ctx: &Context) -> Vec<Found> {
    let root = absolute(&ctx.root);
    let tag = tag(&root);
    let mut found = cron::found(ctx, &root, &tag);
    found.extend(systemd::found(ctx, &tag));
    found.extend(launchd::found(ctx, &tag));
    found
}

/// The doctor's warnings: dispatch on and nothing runs the pass, or two
/// schedulers run it.
pub fn warnings(ctx: &Context) -> Vec<String> {
    if !ctx.config.enabled || !ctx.config.dispatch.enabled {
        return Vec::new();
    }
    let running: Vec<Found> = (found(ctx).into_iter()).filter(|f| f.active).collect();
    match running.len() {
        0 => vec![
            "dispatch is on, but no scheduler runs this store's `tick`: nothing starts or follows up runs until one does; `steward schedule install` writes the entry".to_string(),
        ],
        1 => Vec::new(),
        _ => vec![format!(
            "{} entries run this store's `tick` ({}): each pass waits for the other's lock; keep one (`steward schedule remove --SCHEDULER`, or delete the line you wrote)",
            running.len(),
            running
                .iter()
                .map(|f| format!("{} ({})", f.scheduler.name(), f.place))
                .collect::<Vec<_>>()
                .join(", ")
        )],
    }
}

/// `program` on the PATH steward runs with.
pub(crate) fn find_program(ctx: &Context, program: &str) -> Option<PathBuf> {
    let path = ctx.env.var("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Runs a scheduler's program and waits for it; its output is kept, not
/// shown. A program that is not installed is an error that says so.
pub(crate) fn run(
    ctx: &Context,
    program: &str,
    args: &[&str],
    input: Option<&str>,
) -> Result<Output> {
    let Some(exe) = find_program(ctx, program) else {
        return Err(Error::Program(format!(
            "`{program}` is not installed here (not on PATH): {}",
            missing_hint(program)
        )));
    };
    let mut command = Command::new(&exe);
    command
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|err| Error::io(&exe, "cannot run", err))?;
    if let Some(input) = input {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        stdin
            .write_all(input.as_bytes())
            .map_err(|err| Error::io(&exe, "cannot write to", err))?;
    }
    child
        .wait_with_output()
        .map_err(|err| Error::io(&exe, "cannot wait for", err))
}

fn missing_hint(program: &str) -> &'static str {
    match program {
        "crontab" => "install cron (Debian and Ubuntu: `apt-get install cron`), or use --systemd",
        "systemctl" => "this system does not run systemd; use --cron",
        "launchctl" => "launchd is macOS's; on Linux use --cron or --systemd",
        _ => "install it",
    }
}

/// The first line a program said on stderr (or stdout), for an error.
pub(crate) fn said(output: &Output) -> String {
    let text = String::from_utf8_lossy(if output.stderr.is_empty() {
        &output.stdout
    } else {
        &output.stderr
    })
    .trim()
    .to_string();
    text.lines().next().unwrap_or("no output").to_string()
}

/// The error for a scheduler program that failed after steward wrote its
/// files: what was written stays, and the message says what to do.
pub(crate) fn not_loaded(
    program: &str,
    args: &[&str],
    output: &Output,
    written: &[String],
    hint: &str,
) -> Error {
    let written = if written.is_empty() {
        String::new()
    } else {
        format!("{}, but ", written.join("; "))
    };
    Error::Program(format!(
        "{written}`{program} {}` failed ({}): {}; {hint}",
        args.join(" "),
        output.status,
        said(output)
    ))
}

/// The home directory the scheduler's files go under.
pub(crate) fn home(ctx: &Context) -> Result<PathBuf> {
    ctx.env
        .var("HOME")
        .map(PathBuf::from)
        .ok_or_else(|| Error::bad_value("HOME", "is not set: the scheduler's files go under it"))
}

/// Writes `text` to `path` unless it holds that already; whether it wrote.
pub(crate) fn write_if_changed(path: &Path, text: &str) -> Result<bool> {
    if crate::os::safe_file::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io(dir, "cannot create directory", err))?;
    }
    crate::store::atomic::write(path, text.as_bytes())?;
    Ok(true)
}

/// Removes `path`; whether there was one.
pub(crate) fn remove_file(path: &Path) -> Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(Error::io(path, "cannot remove", err)),
    }
}
