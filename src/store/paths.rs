//! Where the store keeps each kind of file: the goals, open and closed,
//! the lock, the caches, the undo records, the drafts and the obligations.
//! Paths only; nothing here reads or writes.

use std::path::{Path, PathBuf};

use super::{Store, lock};
use crate::model::Goal;

/// Where a seal lives, as part of what its MAC binds: beside the open
/// goals, the closed ones, or a goal whose file vanished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    Open,
    Closed,
    Vanished,
}

impl Place {
    pub(super) fn dir_name(self) -> &'static str {
        match self {
            Place::Open => "open",
            Place::Closed => "closed",
            Place::Vanished => "vanished",
        }
    }
}

impl Store {
    /// Steward's rebuildable, machine-local caches.
    pub(super) fn cache_dir(&self) -> PathBuf {
        self.state_dir.join("cache")
    }

    /// Where the last change to each goal is kept for `undo`.
    pub fn undo_dir(&self) -> PathBuf {
        self.state_dir.join("undo")
    }

    /// Where `edit` keeps a draft that did not validate.
    pub fn drafts_dir(&self) -> PathBuf {
        self.state_dir.join("edits")
    }

    /// Where the obligations of spawned subagents are kept: one file each,
    /// so that two machines recording tasks never touch the same file.
    pub fn obligations_dir(&self) -> PathBuf {
        self.state_dir.join("obligations")
    }

    /// Where they were kept before, all in one file; read, then replaced
    /// by the files of the directory on the next write.
    pub fn legacy_obligations_path(&self) -> PathBuf {
        self.state_dir.join("obligations.json")
    }

    /// The rebuildable cache of goals closed by hand (machine-local).
    pub(super) fn terminal_cache_path(&self) -> PathBuf {
        self.cache_dir().join("terminal-goals")
    }

    /// The rebuildable count of goal files in the open goals' directory
    /// (machine-local).
    pub(super) fn open_count_path(&self) -> PathBuf {
        self.cache_dir().join("open-count")
    }

    /// The rebuildable memo of checked plans (machine-local).
    pub(super) fn plan_memo_path(&self) -> PathBuf {
        self.cache_dir().join("plans")
    }

    pub fn lock_path(&self) -> PathBuf {
        lock::path_in(&self.state_dir)
    }

    /// Where an open goal with `label` lives.
    pub fn open_path(&self, label: &str) -> PathBuf {
        self.goals_dir.join(format!("{label}.md"))
    }

    /// Where a terminal goal lives: the label and the id's first 8
    /// characters, so a label can be reused.
    pub fn closed_path(&self, goal: &Goal) -> PathBuf {
        self.closed_path_of(&goal.label, &goal.id)
    }

    /// [`Store::closed_path`] of the goal with `label` and `id`.
    pub fn closed_path_of(&self, label: &str, id: &str) -> PathBuf {
        let short: String = id.chars().take(8).collect();
        self.closed_dir.join(format!("{label}-{short}.md"))
    }

    /// `path` relative to the store root when it is inside it, for messages.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Where `goal` belongs given its status.
    pub fn home_of(&self, goal: &Goal) -> PathBuf {
        if goal.status.is_terminal() {
            self.closed_path(goal)
        } else {
            self.open_path(&goal.label)
        }
    }
}
