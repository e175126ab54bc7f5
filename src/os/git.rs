//! Git as the audit trail (steward-guide(7), "GIT AS THE AUDIT TRAIL"), through
//! libgit2: create the repository, commit exactly the files a command wrote,
//! and read a goal's commits back.
//!
//! A commit is built from HEAD's tree with steward's paths replaced, so
//! whatever else the user has staged or changed stays exactly as it was;
//! the index is updated for steward's paths only.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use git2::{ErrorCode, FileMode, Oid, Repository, Signature, Time};

use crate::error::{Error, Result};

/// Files steward writes that are runtime state of one machine, never
/// history: the lock, the prompt rotation, unsaved drafts, obligations.
const RUNTIME_FILES: [&str; 7] = [
    "lock",
    "tick.json",
    "rotation.json",
    "obligations.json",
    "digests.json",
    "notify.json",
    "issues.json",
];

/// Who commits when neither `git.author` nor the repository says.
const FALLBACK_NAME: &str = "steward";
const FALLBACK_EMAIL: &str = "steward@localhost";

/// How often to retry when another git process holds the index lock.
const INDEX_RETRIES: u32 = 20;

/// Creates a repository at `root` unless `root` is already inside one.
/// Returns whether one was created.
pub fn ensure_repository(root: &Path) -> Result<bool> {
    if Repository::discover(root).is_ok() {
        return Ok(false);
    }
    Repository::init(root)
        .map(|_| true)
        .map_err(|err| git_error(root, "cannot create a git repository", &err))
}

/// Merges three versions of a text line by line, as git does: the result
/// (with conflict markers where the two sides disagree) and whether it
/// merged cleanly.
pub fn merge_text(base: &str, ours: &str, theirs: &str) -> (String, bool) {
    fn input(text: &str) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input
            .content(text.as_bytes())
            .path("file")
            .mode(Some(FileMode::Blob));
        input
    }
    // `merge_file` does not start libgit2 itself (git2 0.21); creating a
    // configuration does.
    let _ = git2::Config::new();
    let (base, ours_input, theirs) = (input(base), input(ours), input(theirs));
    match git2::merge_file(&base, &ours_input, &theirs, None) {
        Ok(result) => (
            String::from_utf8_lossy(result.content()).into_owned(),
            result.is_automergeable(),
        ),
        Err(_) => (ours.to_string(), false),
    }
}

/// The merge driver `name` as the repository of `root` configures it.
pub fn merge_driver(root: &Path, name: &str) -> Option<String> {
    let repo = Repository::discover(root).ok()?;
    let config = repo.config().ok()?;
    config.get_string(&format!("merge.{name}.driver")).ok()
}

/// Configures merge driver `name` (`driver` is its command line) in the
/// repository of `root`; returns whether anything changed.
pub fn set_merge_driver(root: &Path, name: &str, description: &str, driver: &str) -> Result<bool> {
    if merge_driver(root, name).as_deref() == Some(driver) {
        return Ok(false);
    }
    let repo = Repository::discover(root)
        .map_err(|err| git_error(root, "cannot open the git repository", &err))?;
    let mut config = repo
        .config()
        .and_then(|config| config.open_level(git2::ConfigLevel::Local))
        .map_err(|err| git_error(root, "cannot open the repository's configuration", &err))?;
    config
        .set_str(&format!("merge.{name}.name"), description)
        .and_then(|()| config.set_str(&format!("merge.{name}.driver"), driver))
        .map_err(|err| git_error(root, "cannot configure the merge driver", &err))?;
    Ok(true)
}

/// A `git` process for steward's own work in the repository at `root`:
/// no fsmonitor, no commit-graph file and no replacement refs (an agent
/// that can write objects and refs can write those, and libgit2, which
/// checks what steward merges, reads neither), no submodules followed,
/// no prompt, nothing from stdin, and none of the environment variables
/// that would point it at another repository, and no hooks.
pub fn command(root: &Path) -> std::process::Command {
    let mut git = std::process::Command::new("git");
    git.arg("--no-replace-objects")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.commitGraph=false",
            "-c",
            "submodule.recurse=false",
        ])
        // No hooks: whoever can write `.git/hooks` (an agent's shell)
        // would run them with steward's authority.
        .args(["-c", "core.hooksPath=/dev/null"])
        .arg("-C")
        .arg(root)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .stdin(std::process::Stdio::null());
    for name in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
    ] {
        git.env_remove(name);
    }
    git
}

/// [`command`] by its older name: every git steward runs runs no hooks.
pub fn command_without_hooks(root: &Path) -> std::process::Command {
    command(root)
}

/// The merge driver's command line steward registers for its mirror:
/// this binary, by its full path.
pub fn steward_merge_driver() -> Result<String> {
    let exe = crate::os::process::own_binary()?;
    Ok(format!(
        "'{}' merge-driver mirror %O %A %B",
        exe.display().to_string().replace('\'', "'\\''")
    ))
}

/// Settings of the repository's own configuration (`.git/config`, and a
/// worktree's) that make git run a program, read another file, or talk to
/// another repository than the person's: whoever can write `.git` — an
/// agent with a shell — would run them with steward's authority, outside
/// the agent's sandbox, at the next `sync`. Each as `key = value`; the
/// merge driver steward registers itself (`allowed`) is not one.
pub fn programs_in_repository_config(root: &Path, allowed: &[(&str, &str)]) -> Vec<String> {
    let Ok(repo) = Repository::discover(root) else {
        return Vec::new();
    };
    let Ok(config) = repo.config() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for level in [git2::ConfigLevel::Local, git2::ConfigLevel::Worktree] {
        let Ok(config) = config.open_level(level) else {
            continue;
        };
        let Ok(entries) = config.entries(None) else {
            continue;
        };
        let _ = entries.for_each(|entry| {
            // A key without `=` is a boolean true, with no value (git2's
            // `value` panics on it).
            let value = if entry.has_value() {
                entry.value().unwrap_or_default()
            } else {
                "true"
            };
            let Ok(key) = entry.name() else {
                return;
            };
            let key = key.to_ascii_lowercase();
            if runs_a_program(&key, value) && !allowed.iter().any(|(k, v)| *k == key && *v == value)
            {
                found.push(format!("{key} = {value}"));
            }
        });
    }
    found
}

/// Whether setting `key` (lower case) with `value` makes git run a
/// program or reach elsewhere.
fn runs_a_program(key: &str, value: &str) -> bool {
    let parts: Vec<&str> = key.split('.').collect();
    let (section, name) = (parts[0], parts[parts.len() - 1]);
    match (section, name) {
        ("core", "sshcommand" | "editor" | "pager" | "askpass" | "gitproxy" | "hookspath")
        | ("core", "fsmonitor" | "alternaterefscommand" | "worktree")
        | ("credential", "helper")
        | ("gpg", "program")
        | ("diff", "external" | "textconv" | "command")
        | ("filter", "clean" | "smudge" | "process")
        | ("merge", "driver")
        | ("remote", "uploadpack" | "receivepack" | "proxy")
        | ("url", "insteadof" | "pushinsteadof")
        | ("sequence", "editor")
        | ("include" | "includeif", "path")
        | ("uploadpack", "packobjectshook")
        | ("protocol", "allow")
        | ("submodule", "update")
        | ("pager" | "alias", _) => true,
        ("remote", "url" | "pushurl") => value.starts_with("ext::") || value.contains("::"),
        _ => false,
    }
}

/// The `git` program, for what libgit2 without TLS cannot do: talk to
/// remotes. Runs in `root` as [`command`] makes it; the output, or an
/// error with git's words.
pub fn cli(root: &Path, args: &[&str]) -> Result<String> {
    if let Ok(repo) = Repository::discover(root) {
        no_links_written_through(&repo)?;
    }
    let output = output_within(command(root).args(args), timeout()).map_err(|err| match err {
        Ran::Failed(err) => Error::Git(format!("cannot run git: {err}")),
        Ran::TimedOut(after) => Error::Git(format!(
            "git {}: stopped, with what it started, after {} without finishing (git.timeout): a remote that does not answer, or a file in the repository git cannot read",
            args.join(" "),
            shown(after)
        )),
    })?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(Error::Git(format!(
            "git {}: {}",
            args.join(" "),
            git_said(String::from_utf8_lossy(&output.stderr).trim())
        )))
    }
}

/// What git said of a failure, kept short: git quotes what it could not
/// read, and a ref or config an agent grew to megabytes would otherwise be
/// printed whole (and block a caller that reads stderr only at the end).
fn git_said(message: &str) -> String {
    crate::text::head(message, GIT_SAID)
}

/// The most characters of git's own words an error keeps.
const GIT_SAID: usize = 2_000;

/// How long a `git` that steward runs may take (`git.timeout`): set once
/// a command has read its configuration.
static TIMEOUT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();

/// [`TIMEOUT`] before the configuration says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Sets how long each `git` steward runs may take, for the rest of the
/// command (the first call wins).
pub fn set_timeout(timeout: Duration) {
    let _ = TIMEOUT.set(timeout);
}

fn timeout() -> Duration {
    TIMEOUT.get().copied().unwrap_or(DEFAULT_TIMEOUT)
}

/// The longest libgit2's work in the repository may take: `git.timeout`,
/// but never more than [`LOCAL_TIMEOUT_MAX`]. It talks to no remote; a
/// read that takes longer is on a damaged object, and an agent's FIFO
/// must not hold every command for the ten minutes a fetch may take.
fn local_timeout() -> Duration {
    timeout().min(LOCAL_TIMEOUT_MAX)
}

/// See [`local_timeout`].
const LOCAL_TIMEOUT_MAX: Duration = Duration::from_secs(60);

/// Why [`output_within`] has no output.
enum Ran {
    Failed(std::io::Error),
    TimedOut(Duration),
}

/// `cmd`'s output, or its process group killed once `limit` has passed:
/// a remote that stops answering, or a FIFO an agent put among the
/// objects, never holds the store's lock for good.
fn output_within(
    cmd: &mut std::process::Command,
    limit: Duration,
) -> std::result::Result<std::process::Output, Ran> {
    // In the caller's process group: a person's terminal can still answer
    // an ssh prompt.
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(Ran::Failed)?;
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match receiver.recv_timeout(limit) {
        Ok(output) => output.map_err(Ran::Failed),
        Err(_) => {
            // What git started (ssh, a remote helper) first, then git.
            for helper in crate::os::process::children_of(pid) {
                crate::os::process::kill_with_group(helper);
            }
            crate::os::process::kill_with_group(pid);
            Err(Ran::TimedOut(limit))
        }
    }
}

/// Refuses to write with git while a link in `.git` (or a worktree's
/// own git folder) would take the write to a file outside the
/// repository (`git_links`).
fn no_links_written_through(repo: &Repository) -> Result<()> {
    let mut found = crate::os::git_links::written_through(repo.path());
    if repo.commondir() != repo.path() {
        found.extend(crate::os::git_links::written_through(repo.commondir()));
    }
    match found.first() {
        None => Ok(()),
        Some(first) => Err(Error::Git(format!(
            "{}{}: a link in the repository's git folder, which git would write through to a file elsewhere: steward writes nothing with git until it is gone (`rm {}`; git makes what it needs again)",
            first.display(),
            match found.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            },
            first.display()
        ))),
    }
}

/// One commit to make.
#[derive(Debug, Clone)]
pub struct CommitRequest<'a> {
    /// The store root, absolute.
    pub root: &'a Path,
    /// The paths the command wrote (created, changed or removed).
    pub paths: &'a [PathBuf],
    pub message: String,
    /// `git.author`: `Name <email>`.
    pub author: Option<&'a str>,
    pub when: DateTime<Utc>,
}

/// What a commit did.
#[derive(Debug, Default)]
pub struct Committed {
    pub id: Option<Oid>,
    /// Paths left out because git ignores them, for stderr.
    pub warnings: Vec<String>,
}

/// Commits exactly `request.paths` (those git does not ignore) on top of
/// HEAD. Nothing to commit is not an error; a repository libgit2 cannot
/// read within `git.timeout` is one ([`bounded`]).
pub fn commit(request: &CommitRequest<'_>) -> Result<Committed> {
    let root = request.root.to_path_buf();
    let paths = request.paths.to_vec();
    let message = request.message.clone();
    let author = request.author.map(str::to_string);
    let when = request.when;
    bounded(request.root, "committing", move || {
        commit_now(&CommitRequest {
            root: &root,
            paths: &paths,
            message,
            author: author.as_deref(),
            when,
        })
    })
}

/// `work`, on a thread of its own, given up once `git.timeout` has
/// passed. libgit2 loops for ever on a loose object cut short (libgit2
/// issue 7342, fixed after the 1.9.7 that git2 vendors) and waits for a
/// writer on a FIFO put among the objects: files an agent's shell can
/// write. A thread given up keeps spinning until the command ends.
fn bounded<T: Send + 'static>(
    at: &Path,
    doing: &str,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("libgit2".to_string())
        .spawn(move || {
            let _ = sender.send(work());
        })
        .map_err(|err| Error::Git(format!("cannot start a thread for git: {err}")))?;
    let limit = local_timeout();
    match receiver.recv_timeout(limit) {
        Ok(result) => result,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            Err(Error::Git(gave_up(at, doing, limit)))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Error::Internal(format!(
            "{}: {doing} stopped without an answer",
            at.display()
        ))),
    }
}

/// Keeps the command to `git.timeout` while it reads a repository with
/// libgit2 in work that cannot move to a thread of its own (it borrows
/// the command's context): not dropped by then, the command stops with
/// exit 1 and says why, as a killed one would (its journal is replayed
/// by the next).
#[must_use = "the deadline holds only while the guard lives"]
pub struct Deadline {
    _done: std::sync::mpsc::Sender<()>,
}

/// A [`Deadline`] for `doing` in the repository at `at`.
pub fn deadline(at: &Path, doing: &str) -> Deadline {
    let (done, waiting) = std::sync::mpsc::channel::<()>();
    let limit = local_timeout();
    let message = gave_up(at, doing, limit);
    let _ = std::thread::Builder::new()
        .name("git deadline".to_string())
        .spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = waiting.recv_timeout(limit) {
                eprintln!("steward: {message}");
                std::process::exit(i32::from(crate::exit::ExitCode::Failure.code()));
            }
        });
    Deadline { _done: done }
}

/// Why a libgit2 read was given up.
fn gave_up(at: &Path, doing: &str, limit: Duration) -> String {
    format!(
        "{}: {doing}: git did not finish within {} (git.timeout): an object in .git cut short or not a file; `git fsck` names it",
        at.display(),
        shown(limit)
    )
}

/// `limit` as `git.timeout` spells it.
fn shown(limit: Duration) -> String {
    match limit.as_secs() {
        secs if secs % 60 == 0 => format!("{}m", secs / 60),
        secs => format!("{secs}s"),
    }
}

fn commit_now(request: &CommitRequest<'_>) -> Result<Committed> {
    let repo = Repository::discover(request.root).map_err(|_| {
        Error::Git(format!(
            "{}: git.commit is on but this is not inside a git repository (run `steward init --git`)",
            request.root.display()
        ))
    })?;
    let workdir = repo.workdir().ok_or_else(|| {
        Error::Git(format!(
            "{}: git.commit is on but the repository is bare (it has no work tree to commit from)",
            repo.path().display()
        ))
    })?;
    let workdir = workdir
        .canonicalize()
        .map_err(|err| Error::io(workdir, "cannot resolve the work tree", err))?;
    no_links_written_through(&repo)?;
    let mut committed = Committed::default();
    let head = match repo.head() {
        Ok(head) => Some(
            head.peel_to_commit()
                .map_err(|err| git_error(&workdir, "cannot read HEAD", &err))?,
        ),
        Err(err) if matches!(err.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
        Err(err) => return Err(git_error(&workdir, "cannot read HEAD", &err)),
    };
    let baseline = match &head {
        Some(commit) => commit.tree(),
        None => repo
            .treebuilder(None)
            .and_then(|b| b.write())
            .and_then(|oid| repo.find_tree(oid)),
    }
    .map_err(|err| git_error(&workdir, "cannot read the tree", &err))?;
    let mut changes: Vec<(PathBuf, String)> = Vec::new();
    for path in request.paths {
        let Some(relative) = relative_to(&workdir, path) else {
            continue;
        };
        if is_runtime(&relative) || changes.iter().any(|(_, r)| *r == relative) {
            continue;
        }
        // A file git tracks is committed whatever .gitignore says; only a
        // new one is looked up (libgit2 reads the whole index for it).
        let tracked = baseline.get_path(Path::new(&relative)).is_ok();
        if !tracked && repo.is_path_ignored(&relative).unwrap_or(false) {
            committed.warnings.push(format!(
                "{relative} is ignored by git (see .gitignore): steward did not commit it"
            ));
            continue;
        }
        changes.push((workdir.join(&relative), relative));
    }
    if changes.is_empty() {
        return Ok(committed);
    }
    let mut update = git2::build::TreeUpdateBuilder::new();
    // Each file is hashed once: its blob goes into the tree and, with its
    // stat, into the index.
    let mut staged: Vec<(&str, Option<(Oid, std::fs::Metadata)>)> = Vec::new();
    for (absolute, relative) in &changes {
        match std::fs::metadata(absolute) {
            Ok(metadata) => {
                // The bytes as they are: steward's files take no filter
                // (doctor reports an attribute that would set one), and
                // asking for filters makes libgit2 read the whole index.
                let bytes = std::fs::read(absolute)
                    .map_err(|err| Error::io(absolute, "cannot read", err))?;
                let blob = repo
                    .blob(&bytes)
                    .map_err(|err| git_error(absolute, "cannot store in git", &err))?;
                update.upsert(relative.as_str(), blob, file_mode(&metadata));
                staged.push((relative, Some((blob, metadata))));
            }
            Err(_) => {
                update.remove(relative.as_str());
                staged.push((relative, None));
            }
        }
    }
    let tree_id = update
        .create_updated(&repo, &baseline)
        .map_err(|err| git_error(&workdir, "cannot build the tree", &err))?;
    if head.is_some() && tree_id == baseline.id() {
        return Ok(committed);
    }
    stage(&repo, &staged)?;
    let tree = repo
        .find_tree(tree_id)
        .map_err(|err| git_error(&workdir, "cannot read the tree", &err))?;
    let signature = signature(&repo, request.author, request.when)?;
    let parents: Vec<&git2::Commit<'_>> = head.iter().collect();
    let id = repo
        .commit(
            Some("HEAD"),
            &signature,
            &signature,
            &request.message,
            &tree,
            &parents,
        )
        .map_err(|err| git_error(&workdir, "cannot commit", &err))?;
    committed.id = Some(id);
    Ok(committed)
}

/// Updates the index for steward's paths only, so they show as committed;
/// retries while another git process holds the index lock.
fn stage(repo: &Repository, changes: &[(&str, Option<(Oid, std::fs::Metadata)>)]) -> Result<()> {
    let mut attempt = 0;
    let mut patches: Vec<crate::os::git_index::Change<'_>> = changes
        .iter()
        .map(|(relative, blob)| crate::os::git_index::Change {
            path: relative,
            entry: blob
                .as_ref()
                .map(|(id, metadata)| raw_entry(relative, *id, metadata)),
        })
        .collect();
    let settings = index_settings(repo);
    loop {
        // The index patched in place where it can be; else libgit2.
        match crate::os::git_index::patch(repo.path(), &mut patches, &settings) {
            Some(Ok(())) => return Ok(()),
            Some(Err(err))
                if err.kind() == std::io::ErrorKind::AlreadyExists && attempt < INDEX_RETRIES =>
            {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Some(Err(err)) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(index_locked(repo));
            }
            Some(Err(err)) => {
                return Err(Error::io(
                    &repo.path().join("index"),
                    "cannot update the index",
                    err,
                ));
            }
            None => {}
        }
        let result = repo.index().and_then(|mut index| {
            for (relative, blob) in changes {
                match blob {
                    Some((id, metadata)) => index.add(&index_entry(relative, *id, metadata))?,
                    None => index.remove_path(Path::new(relative))?,
                }
            }
            index.write()
        });
        match result {
            Ok(()) => return Ok(()),
            Err(err) if err.code() == ErrorCode::Locked && attempt < INDEX_RETRIES => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(err) if err.code() == ErrorCode::Locked => return Err(index_locked(repo)),
            Err(err) => return Err(git_error(repo.path(), "cannot update the index", &err)),
        }
    }
}

/// The index lock was still held after the retries.
fn index_locked(repo: &Repository) -> Error {
    Error::Git(format!(
        "{}: another git process holds the index lock (still there after {} ms of retries); if no git is running, remove the file and run `git add` on the files the commit names",
        repo.path().join("index.lock").display(),
        INDEX_RETRIES * 50
    ))
}

/// The repository's settings for the index file, as git reads them.
fn index_settings(repo: &Repository) -> crate::os::git_index::Settings {
    let mut settings = crate::os::git_index::Settings::default();
    let Ok(config) = repo.config() else {
        return settings;
    };
    settings.split = config.get_bool("core.splitIndex").ok();
    let many_files = config.get_bool("feature.manyFiles").unwrap_or(false);
    settings.skip_hash = config.get_bool("index.skipHash").unwrap_or(many_files);
    // Out of range, git takes its default.
    if let Ok(percent) = config.get_i32("splitIndex.maxPercentChange")
        && (0..=100).contains(&percent)
    {
        settings.max_percent_change = percent as u32;
    }
    // Git's other values are dates ("1.week.ago"): its default stands.
    match config.get_string("splitIndex.sharedIndexExpire").as_deref() {
        Ok("never") => settings.shared_index_expiry = None,
        Ok("now") => settings.shared_index_expiry = Some(Duration::ZERO),
        _ => {}
    }
    settings
}

/// The same as the bytes of an index file's entry.
fn raw_entry(relative: &str, id: Oid, metadata: &std::fs::Metadata) -> Vec<u8> {
    let entry = index_entry(relative, id, metadata);
    let time = |t: git2::IndexTime| (t.seconds() as u32, t.nanoseconds());
    crate::os::git_index::entry_bytes(
        time(entry.ctime),
        time(entry.mtime),
        entry.dev,
        entry.ino,
        entry.mode,
        entry.uid,
        entry.gid,
        entry.file_size,
        id.as_bytes(),
        relative,
    )
}

/// The index entry of a file whose blob is `id`, with its stat (as
/// `git add` records it, so `git status` sees it unchanged).
fn index_entry(relative: &str, id: Oid, metadata: &std::fs::Metadata) -> git2::IndexEntry {
    use std::os::unix::fs::MetadataExt;
    let time = |secs: i64, nanos: i64| git2::IndexTime::new(secs as i32, nanos as u32);
    git2::IndexEntry {
        ctime: time(metadata.ctime(), metadata.ctime_nsec()),
        mtime: time(metadata.mtime(), metadata.mtime_nsec()),
        dev: metadata.dev() as u32,
        ino: metadata.ino() as u32,
        mode: u32::from(file_mode(metadata)),
        uid: metadata.uid(),
        gid: metadata.gid(),
        file_size: metadata.len() as u32,
        id,
        flags: relative.len().min(0xfff) as u16,
        flags_extended: 0,
        path: relative.as_bytes().to_vec(),
    }
}

fn file_mode(metadata: &std::fs::Metadata) -> FileMode {
    use std::os::unix::fs::PermissionsExt;
    if metadata.permissions().mode() & 0o111 != 0 {
        FileMode::BlobExecutable
    } else {
        FileMode::Blob
    }
}

/// `path` relative to the work tree, with `/` separators; `None` outside it.
fn relative_to(workdir: &Path, path: &Path) -> Option<String> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let absolute = parent.canonicalize().ok()?.join(path.file_name()?);
    let relative = absolute.strip_prefix(workdir).ok()?;
    Some(
        relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

fn is_runtime(relative: &str) -> bool {
    let mut parts = relative.rsplit('/');
    let name = parts.next().unwrap_or_default();
    let dir = parts.next().unwrap_or_default();
    (dir == "state" && RUNTIME_FILES.contains(&name)) || relative.contains("state/edits/")
}

/// `git.author`, else the repository's user.name and user.email, else a
/// fixed steward identity; dated `when` (the run's clock).
fn signature(
    repo: &Repository,
    author: Option<&str>,
    when: DateTime<Utc>,
) -> Result<Signature<'static>> {
    let time = Time::new(when.timestamp(), 0);
    let (name, email) = match author {
        Some(author) => parse_author(author)?,
        None => match repo.signature() {
            Ok(configured) => (
                configured.name().unwrap_or(FALLBACK_NAME).to_string(),
                configured.email().unwrap_or(FALLBACK_EMAIL).to_string(),
            ),
            Err(_) => (FALLBACK_NAME.to_string(), FALLBACK_EMAIL.to_string()),
        },
    };
    Signature::new(&name, &email, &time)
        .map_err(|err| Error::bad_value("git.author", err.message()))
}

fn parse_author(author: &str) -> Result<(String, String)> {
    let invalid = || {
        Error::bad_value(
            "git.author",
            format!("`{author}` is not of the form \"Name <email>\""),
        )
    };
    let (name, rest) = author.split_once('<').ok_or_else(invalid)?;
    let email = rest.strip_suffix('>').ok_or_else(invalid)?;
    if name.trim().is_empty() || email.trim().is_empty() {
        return Err(invalid());
    }
    Ok((name.trim().to_string(), email.trim().to_string()))
}

fn git_error(path: &Path, doing: &str, err: &git2::Error) -> Error {
    Error::Git(format!(
        "{}: {doing}: {}",
        path.display(),
        git_said(err.message())
    ))
}

/// One commit that carries a `Steward-Goal` trailer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalCommit {
    pub id: String,
    pub when: DateTime<Utc>,
    pub subject: String,
    pub actor: String,
    pub action: String,
}

/// The commits of a goal, newest first; `None` when the root is not in a
/// repository or it has no commits.
pub fn goal_log(root: &Path, goal_id: &str) -> Result<Option<Vec<GoalCommit>>> {
    let (at, goal_id) = (root.to_path_buf(), goal_id.to_string());
    bounded(root, "reading the goal's history", move || {
        goal_log_now(&at, &goal_id)
    })
}

fn goal_log_now(root: &Path, goal_id: &str) -> Result<Option<Vec<GoalCommit>>> {
    let Ok(repo) = Repository::discover(root) else {
        return Ok(None);
    };
    let Ok(head) = repo.head() else {
        return Ok(None);
    };
    let Some(start) = head.target() else {
        return Ok(None);
    };
    let mut walk = repo
        .revwalk()
        .map_err(|err| git_error(root, "cannot read history", &err))?;
    walk.push(start)
        .map_err(|err| git_error(root, "cannot read history", &err))?;
    let wanted = format!("Steward-Goal: {goal_id}");
    let mut commits = Vec::new();
    for oid in walk {
        let oid = oid.map_err(|err| git_error(root, "cannot read history", &err))?;
        let commit = repo
            .find_commit(oid)
            .map_err(|err| git_error(root, "cannot read a commit", &err))?;
        let message = commit.message().unwrap_or_default();
        if !message.lines().any(|line| line.trim() == wanted) {
            continue;
        }
        let trailer = |key: &str| {
            message
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
                .unwrap_or_default()
                .to_string()
        };
        commits.push(GoalCommit {
            id: oid.to_string(),
            when: Utc
                .timestamp_opt(commit.time().seconds(), 0)
                .single()
                .unwrap_or_default(),
            subject: String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default())
                .into_owned(),
            actor: trailer("Steward-Actor:"),
            action: trailer("Steward-Action:"),
        });
    }
    Ok(Some(commits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_are_name_and_email() {
        assert_eq!(
            parse_author("Ada Lovelace <ada@example.com>").unwrap(),
            ("Ada Lovelace".into(), "ada@example.com".into())
        );
        assert!(parse_author("ada@example.com").is_err());
        assert!(parse_author("<ada@example.com>").is_err());
    }

    #[test]
    fn runtime_files_are_never_committed() {
        assert!(is_runtime("state/lock"));
        assert!(is_runtime("sub/state/rotation.json"));
        assert!(is_runtime("state/edits/g.md"));
        assert!(!is_runtime("state/goals/lock.md"));
        assert!(!is_runtime("state/events.jsonl"));
    }
}
