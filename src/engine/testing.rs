//! A store in a temporary directory and a context with a fixed clock, for
//! calling the verbs directly in unit tests: no process, no command line.

use std::collections::BTreeMap;

use crate::context::{Context, Environment, GlobalOptions};
use crate::store::testing::TempStore;

pub use crate::store::testing::{NOW, parse_goal};

/// A [`TempStore`] with contexts on it: its file helpers are the store's.
pub struct Store {
    temp: TempStore,
}

impl std::ops::Deref for Store {
    type Target = TempStore;

    fn deref(&self) -> &TempStore {
        &self.temp
    }
}

impl Store {
    pub fn new() -> Store {
        Store {
            temp: TempStore::new(),
        }
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
}
