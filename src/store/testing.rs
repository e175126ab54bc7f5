//! A store in a temporary directory for the store's own unit tests, and
//! the fixtures every layer above builds on (`engine::testing` adds a
//! context): goal files written as steward or a person would, the store as
//! a command opens it, and transactions begun as a command begins them.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::{Acting, Store, Transaction};
use crate::config::Config;
use crate::model::{Actor, Goal};

/// The clock of every fixture.
pub const NOW: &str = "2026-11-21T04:00:00Z";

pub struct TempStore {
    dir: tempfile::TempDir,
}

impl TempStore {
    pub fn new() -> TempStore {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("state/goals")).expect("goals directory");
        TempStore { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The store as a command opens it, with the default settings and a
    /// machine key kept under the root (`home/`).
    pub fn store(&self) -> Store {
        let keys = super::seal::Keyring::at(super::key::key_dir(&self.root().join("home")), "")
            .for_store(self.root());
        Store::new(self.root(), self.root(), &Config::default()).with_keys(keys)
    }

    /// The one write path on `store`, as the agent, at [`NOW`].
    pub fn transaction<'s>(&self, store: &'s Store) -> crate::error::Result<Transaction<'s>> {
        Transaction::begin(
            store,
            now(),
            Acting::steward(Actor::Agent),
            std::time::Duration::from_secs(10),
            "test",
        )
    }

    /// Writes an open goal `label` with `front_matter` lines and unmet
    /// `criteria`, as steward would: sealed, once the store is sealed on
    /// this machine (see [`TempStore::goal_by_hand`] for a goal put there
    /// outside steward).
    pub fn goal(&self, label: &str, front_matter: &str, criteria: &[&str]) {
        self.goal_by_hand(label, front_matter, criteria);
        let store = self.store();
        if store.sealed_here() {
            let path = format!("state/goals/{label}.md");
            let loaded = store
                .load(&self.root().join(&path))
                .expect("the goal reads");
            let place = store.place_of(&loaded.file.path);
            if !loaded.goal.status.is_terminal() {
                store
                    .write_seal(
                        place,
                        &super::seal::Seal {
                            id: loaded.goal.id.clone(),
                            label: loaded.goal.label.clone(),
                            sha256: super::key::sha256(loaded.file.text().as_bytes()),
                        },
                    )
                    .expect("sealed");
            }
        }
    }

    /// Writes an open goal as a person or an agent would in an editor:
    /// no seal.
    pub fn goal_by_hand(&self, label: &str, front_matter: &str, criteria: &[&str]) {
        let mut text = format!(
            "---\nid: {label}-0000-4000-8000-000000000000\nlabel: {label}\ncreated_at: {NOW}\n{front_matter}\n---\nDo {label}.\n\n## Acceptance criteria\n\n"
        );
        for criterion in criteria {
            text.push_str(&format!("- [ ] {criterion}\n"));
        }
        self.write(&format!("state/goals/{label}.md"), &text);
    }

    pub fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, text).expect("written");
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path)).expect("readable")
    }

    /// The names in directory `dir` (files and directories), sorted.
    pub fn names_in(&self, dir: &str) -> Vec<String> {
        let entries = std::fs::read_dir(self.root().join(dir)).expect("a directory");
        let mut names: Vec<String> = entries
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    /// How many goal files (`*.md`) directory `dir` holds.
    pub fn goal_files_in(&self, dir: &str) -> usize {
        self.names_in(dir)
            .iter()
            .filter(|n| n.ends_with(".md"))
            .count()
    }
}

/// [`NOW`] as a time.
pub fn now() -> DateTime<Utc> {
    NOW.parse().expect("NOW is RFC 3339")
}

/// The goal a goal file's `text` describes, with the default settings.
pub fn parse_goal(text: &str) -> Goal {
    super::GoalFile::parse(Path::new("g.md"), text.to_string())
        .expect("the test goal file splits")
        .goal(&Config::default().defaults)
        .expect("the test goal file reads")
}
