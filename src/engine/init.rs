//! `init`: create the configuration, the goal directory and, with git, what
//! git needs to merge the store.

use super::Notices;
use crate::config::{Config, FILE_NAME, Source};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::{Store, Transaction};

/// What git must not track: runtime state of this machine.
const STATE_IGNORE: &str = "# runtime state of this machine, not history: the lock, the prompt rotation,\n# unsaved edits, what tick last saw and told, what undo can take back, the\n# hooks' sessions, the output of agent runs (their records, runs/*.json, are\n# history), files of older versions (obligations.json, digests.json), and\n# the spare file of a directory, which holds the last bytes replaced there\nlock\nrotation.json\nobligations.json\ndigests.json\nnotify.json\nissues.json\ntick.json\nedits/\nundo/\nhooks/\nruns/*.out\nruns/*.err\nruns/*.prompt\nruns/*.answer\nconflicts/\n.steward-spare\n";

/// What `init` created, as paths relative to the root (directories end in
/// `/`).
#[derive(Debug, Default)]
pub struct Initialized {
    pub created: Vec<String>,
    pub notices: Notices,
}

/// Sets up a store at the context's root; what exists is left alone. With
/// `git`, `git.commit` is turned on (unless `--no-commit` says otherwise)
/// and what `init` writes is the first commit.
pub fn init(ctx: &Context, git: bool) -> Result<Initialized> {
    let mut created = Vec::new();
    let mut warnings = Vec::new();
    let config_path = ctx.store.root.join(FILE_NAME);
    let commit_source = ctx.config_sources.of("git.commit");
    let commit = git && commit_source != Source::Flag("--no-commit");
    let committing_store;
    let store = if commit && !ctx.config.git.commit {
        let mut config = ctx.config.clone();
        config.git.commit = true;
        committing_store = Store::new(&ctx.store.root, &ctx.store.absolute_root, &config)
            .with_keys(ctx.store.keys.clone());
        &committing_store
    } else {
        &ctx.store
    };
    let mut tx = Transaction::begin(store, ctx.now, ctx.acting(), ctx.lock_timeout, ctx.command)?;
    match crate::os::safe_file::read_to_string(&config_path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            tx.write_file(&config_path, &Config::template(commit))?;
            created.push(store.relative(&config_path));
        }
        Err(err) => return Err(Error::io(&config_path, "cannot read", err)),
        Ok(text) if commit => match commit_source {
            Source::File { line, .. } if !ctx.config.git.commit => warnings.push(format!(
                "{}:{line}: git.commit is false: steward will not commit changes; set it to true",
                store.relative(&config_path)
            )),
            Source::File { .. } => {}
            // Not in the file: say it there, appended, the rest untouched.
            _ if !text.lines().any(|l| l.starts_with("git:")) => {
                let separator = if text.is_empty() || text.ends_with('\n') {
                    ""
                } else {
                    "\n"
                };
                tx.write_file(
                    &config_path,
                    &format!("{text}{separator}git:\n  commit: true\n"),
                )?;
            }
            _ => warnings.push(format!(
                "{}: has a git: section without commit: add `commit: true` to it for steward to commit",
                store.relative(&config_path)
            )),
        },
        Ok(_) => {}
    }
    let goals_dir = &store.goals_dir;
    if !goals_dir.is_dir() {
        std::fs::create_dir_all(goals_dir)
            .map_err(|err| Error::io(goals_dir, "cannot create directory", err))?;
        created.push(format!("{}/", store.relative(goals_dir)));
    }
    let ignore = store.state_dir.join(".gitignore");
    if !ignore.exists() {
        tx.write_file(&ignore, STATE_IGNORE)?;
        created.push(store.relative(&ignore));
    }
    if git {
        if crate::os::git::ensure_repository(&ctx.root)? {
            created.push(".git/".to_string());
        }
        created.extend(super::git_setup::register(ctx, &mut tx)?);
    }
    let mut notices = super::finish(tx)?;
    notices.warnings.extend(warnings);
    Ok(Initialized { created, notices })
}
