//! A store in a temporary directory and a context with a fixed clock, for
//! calling the verbs directly in unit tests: no process, no command line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::context::{Context, Environment, GlobalOptions};

pub const NOW: &str = "2026-11-21T04:00:00Z";

pub struct Store {
    dir: tempfile::TempDir,
}

impl Store {
    pub fn new() -> Store {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("state/goals")).expect("goals directory");
        Store { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A context acting as the agent at [`NOW`].
    pub fn ctx(&self) -> Context {
        self.ctx_at(NOW, "agent")
    }

    pub fn ctx_at(&self, now: &str, actor: &str) -> Context {
        let vars: BTreeMap<String, String> = [
            ("STEWARD_NOW".to_string(), now.to_string()),
            ("STEWARD_ACTOR".to_string(), actor.to_string()),
            (
                "HOME".to_string(),
                self.root().join("home").display().to_string(),
            ),
        ]
        .into();
        // A working directory outside the root keeps the store's paths
        // absolute: the test process runs elsewhere.
        let env = Environment {
            vars,
            cwd: self.root().join("elsewhere"),
            stdout_is_terminal: false,
            stderr_is_terminal: false,
            lineage: Some(Vec::new()),
        };
        let options = GlobalOptions {
            root: Some(self.root().to_path_buf()),
            ..GlobalOptions::default()
        };
        Context::resolve(&options, env).expect("the test context resolves")
    }

    /// Writes an open goal `label` with `front_matter` lines and unmet
    /// `criteria`, as steward would: sealed, once the store is sealed on
    /// this machine (see [`Store::goal_by_hand`] for a goal put there
    /// outside steward).
    pub fn goal(&self, label: &str, front_matter: &str, criteria: &[&str]) {
        self.goal_by_hand(label, front_matter, criteria);
        let ctx = self.ctx();
        if ctx.store.sealed_here() {
            let path = format!("state/goals/{label}.md");
            let loaded = ctx
                .store
                .load(&self.root().join(&path))
                .expect("the goal reads");
            let place = ctx.store.place_of(&loaded.file.path);
            if !loaded.goal.status.is_terminal() {
                ctx.store
                    .write_seal(
                        place,
                        &crate::store::seal::Seal {
                            id: loaded.goal.id.clone(),
                            label: loaded.goal.label.clone(),
                            sha256: crate::store::key::sha256(loaded.file.text().as_bytes()),
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

/// The goal a goal file's `text` describes, with the default settings.
pub fn parse_goal(text: &str) -> crate::model::Goal {
    crate::store::GoalFile::parse(Path::new("g.md"), text.to_string())
        .expect("the test goal file splits")
        .goal(&crate::config::Config::default().defaults)
        .expect("the test goal file reads")
}
