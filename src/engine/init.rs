//! `init`: create the configuration, the goal directory and, with git, what
//! git needs to merge the store.

use super::Notices;
use crate::config::{Config, FILE_NAME};
use crate::context::Context;
use crate::error::{Error, Result};

/// What git must not track: runtime state of this machine.
const STATE_IGNORE: &str = "# runtime state of this machine, not history: the lock, the prompt rotation,\n# obligations of running subagents, unsaved edits, what tick last saw and told,\n# and the output of agent runs (their records, runs/*.json, are history)\nlock\nrotation.json\nobligations.json\ndigests.json\nnotify.json\ntick.json\nedits/\nruns/*.out\nruns/*.err\nruns/*.prompt\n";
const EVENT_LOG_ATTRIBUTE: &str = "state/events.jsonl merge=union";

/// What `init` created, as paths relative to the root (directories end in
/// `/`).
#[derive(Debug, Default)]
pub struct Initialized {
    pub created: Vec<String>,
    pub notices: Notices,
}

/// Sets up a store at the context's root; what exists is left alone.
pub fn init(ctx: &Context, git: bool) -> Result<Initialized> {
    let mut created = Vec::new();
    let mut tx = ctx.transaction()?;
    let store = &ctx.store;
    let config_path = store.root.join(FILE_NAME);
    if !config_path.exists() {
        tx.write_file(&config_path, &Config::template())?;
        created.push(store.relative(&config_path));
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
        if crate::git::ensure_repository(&ctx.root)? {
            created.push(".git/".to_string());
        }
        let attributes = store.root.join(".gitattributes");
        let existing = match std::fs::read_to_string(&attributes) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(Error::io(&attributes, "cannot read", err)),
        };
        if !existing
            .lines()
            .any(|line| line.trim() == EVENT_LOG_ATTRIBUTE)
        {
            let separator = if existing.is_empty() || existing.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            tx.write_file(
                &attributes,
                &format!("{existing}{separator}{EVENT_LOG_ATTRIBUTE}\n"),
            )?;
            created.push(store.relative(&attributes));
        }
    }
    let notices = super::finish(tx)?;
    Ok(Initialized { created, notices })
}
