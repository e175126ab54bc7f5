//! `steward merge-driver mirror BASE OURS THEIRS`: the merge driver git
//! runs for the mirror file (`init --git` registers it): steward's block
//! never conflicts, the rest merges line by line, and the merged file is
//! written over OURS. Exit 0 when it merged cleanly, 1 with conflict
//! markers left for a person.

use crate::exit::ExitCode;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::error::{Error, Result};

/// Git's merge driver for steward's files (registered by `init --git`; not
/// for people)
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// Which file
    kind: Kind,
    /// The common ancestor's version (%O)
    base: PathBuf,
    /// Our version, where the result is written (%A)
    ours: PathBuf,
    /// Their version (%B)
    theirs: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    Mirror,
}

pub fn run(args: MergeDriverArgs, env: &crate::context::Environment) -> Result<ExitCode> {
    // It reads and writes where it is told. An agent, whose `git pull`
    // runs it too, could also run it outside its sandbox (`steward …` is
    // let out) to read a file of its choosing (the machine key) into one
    // it can read, or to write one: for an agent it reads and writes only
    // the temporary files git made for it, during a merge.
    let caller = crate::context::Caller::resolve(None, env)?;
    let agent = caller.actor != crate::model::Actor::User;
    if agent {
        let foreign = [&args.base, &args.ours, &args.theirs]
            .into_iter()
            .find(|path| !made_by_git(path));
        let why = match foreign {
            Some(path) => Some(format!(
                "run git's merge driver on {} (an agent's git merge runs it on git's own temporary files)",
                path.display()
            )),
            None if !run_by_git_merging() => Some(
                "run git's merge driver outside a merge git runs (its parent is not git, or no git merge holds the index here)"
                    .to_string(),
            ),
            None => None,
        };
        if let Some(what) = why {
            return Err(Error::PersonOnly {
                what,
                person_runs: "git merge".to_string(),
            });
        }
    }
    // For an agent, each file is read through what was opened, never a
    // link swapped in after the look above, and must be git's own: a
    // regular file with no other name.
    let read =
        |path: &PathBuf| read_file(path, agent).map_err(|err| Error::io(path, "cannot read", err));
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let (merged, clean) = match args.kind {
        Kind::Mirror => crate::store::mirror::merge(&base, &ours, &theirs),
    };
    write_over(&args.ours, &merged).map_err(|err| Error::io(&args.ours, "cannot write", err))?;
    Ok(ExitCode::failure_if(!clean))
}

/// The text of the file at `path`, opened without following a link; for
/// an agent, only a regular file with one name.
fn read_file(path: &Path, agent: bool) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if agent && !(metadata.file_type().is_file() && metadata.nlink() == 1) {
        return Err(std::io::Error::other(
            "not a file git made for the merge (a regular file with one name)",
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

/// Whether git runs this driver, in a merge: the process that started it
/// is git (through the shell git runs a driver's command line with), and
/// git holds the index's lock while it merges.
fn run_by_git_merging() -> bool {
    let starter = crate::os::process::ancestors()
        .into_iter()
        .find(|ancestor| !matches!(ancestor.name.as_str(), "sh" | "dash" | "bash"));
    starter.is_some_and(|starter| starter.name == "git") && merging()
}

/// Whether a git merge runs here: it holds the index's lock while it
/// runs the drivers (in the repository whose work tree this is).
fn merging() -> bool {
    let git = Path::new(".git");
    let dir = match crate::os::safe_file::read_to_string(git) {
        // A worktree's `.git` file names its folder.
        Ok(text) => match text.strip_prefix("gitdir: ") {
            Some(dir) => PathBuf::from(dir.trim()),
            None => return false,
        },
        Err(_) => git.to_path_buf(),
    };
    dir.join("index.lock").is_file()
}

/// Whether `path` is a temporary file git made for a merge driver: a
/// `.merge_file_XXXXXX` in the directory git runs it in, not a link, and
/// no other name of a file (a hard link to one it could not read).
fn made_by_git(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let named = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(".merge_file_"));
    let regular =
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file() && m.nlink() == 1);
    let here = std::env::current_dir().and_then(|dir| dir.canonicalize());
    let folder = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .map(Path::canonicalize);
    named && regular && matches!((here, folder), (Ok(here), Some(Ok(folder))) if here == folder)
}

/// Writes `text` over the file at `path`, never through a link.
fn write_over(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?
        .write_all(text.as_bytes())
}
