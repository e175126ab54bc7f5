//! What the store keeps only to be fast or tidy, all of it rebuildable:
//! the cache of goals closed by hand (`terminal_cache.rs`), the record of
//! directories found free of leftovers, and the check that the store's own
//! directories lead nowhere outside it.

use std::path::{Path, PathBuf};

use super::{LoadedGoal, Store, atomic, leftovers, terminal_cache};
use crate::error::{Error, Result};

impl Store {
    /// Refuses to work in a store whose own directories (`state/`, the goals,
    /// the closed goals, the drafts) are symbolic links that lead out of the
    /// root: whoever can write the store (an agent) could otherwise make the
    /// operator's next run write elsewhere.
    pub fn check_own_directories(&self) -> Result<()> {
        let root = self.absolute_root.canonicalize().ok();
        for dir in [
            self.state_dir.clone(),
            self.goals_dir.clone(),
            self.closed_dir.clone(),
            self.drafts_dir(),
            self.undo_dir(),
            self.log().dir().to_path_buf(),
            self.obligations_dir(),
            self.runs_dir(),
            self.cache_dir(),
            self.state_dir.join("seals"),
            self.state_dir.join("seals/open"),
            self.state_dir.join("seals/closed"),
            self.state_dir.join("seals/vanished"),
            self.state_dir.join("hooks"),
            self.state_dir.join("claims"),
            self.state_dir.join("conflicts"),
            self.state_dir.join("machines"),
        ] {
            let Ok(metadata) = dir.symlink_metadata() else {
                continue;
            };
            if !metadata.file_type().is_symlink() {
                continue;
            }
            let inside = match (&root, dir.canonicalize()) {
                (Some(root), Ok(target)) => target.starts_with(root),
                _ => false,
            };
            if !inside {
                return Err(Error::UnsafePath {
                    path: dir,
                    why: "a symbolic link that leads out of the store",
                });
            }
        }
        for file in [self.log().path(""), self.lock_path()] {
            if file.symlink_metadata().is_ok_and(|m| !m.is_file()) {
                return Err(Error::UnsafePath {
                    path: file,
                    why: "not a plain file (a symbolic link?): steward does not follow links in its state",
                });
            }
        }
        Ok(())
    }

    /// Where killed writes can leave temporary files: directories small
    /// enough to list every time, and the ones `tick` lists only when they
    /// changed (with their names in the record).
    fn leftover_dirs(&self) -> ([PathBuf; 2], [(&'static str, PathBuf); 3]) {
        (
            [self.state_dir.clone(), self.cache_dir()],
            [
                ("goals", self.goals_dir.clone()),
                ("closed", self.closed_dir.clone()),
                ("undo", self.undo_dir()),
            ],
        )
    }

    /// Removes the temporary files killed writes left behind, listing the
    /// goal, closed-goal and undo directories only when they changed since
    /// they were last found clean; the caller records them clean when its
    /// writes are done. Only under the lock.
    pub(super) fn remove_leftovers(&self) -> leftovers::Checked {
        let (small, tracked) = self.leftover_dirs();
        for path in small.iter().flat_map(|dir| atomic::leftovers(dir)) {
            let _ = std::fs::remove_file(path);
        }
        leftovers::remove(tracked.into(), self.cache_dir().join("leftovers"))
    }

    /// Temporary files a killed write left behind (their writer is gone).
    pub fn leftovers(&self) -> Vec<PathBuf> {
        let (small, tracked) = self.leftover_dirs();
        small
            .iter()
            .chain(tracked.iter().map(|(_, dir)| dir))
            .flat_map(|dir| atomic::leftovers(dir))
            .collect()
    }

    /// Checks the cache of goals closed by hand against `goals` (the open
    /// goals of the directory, just read) and removes it unless `keep`
    /// (goals closed by hand wait for the next `tick`) and it hid none:
    /// the names of open goals it hid. For `tick`, which moves the goals
    /// closed by hand out of the directory. The count of goal files `add`
    /// keeps goes too: a file a person made in the same clock tick as an
    /// `add` is counted again from the next one.
    pub fn settle_terminal_cache(&self, goals: &[LoadedGoal], keep: bool) -> Vec<String> {
        let _ = std::fs::remove_file(self.open_count_path());
        let path = self.terminal_cache_path();
        let forged = terminal_cache::forged(&path, goals);
        if (!keep || !forged.is_empty()) && path.symlink_metadata().is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&path);
        }
        forged
    }
}

/// Makes `dir` ready to hold steward's caches: created when missing, and
/// given a `.gitignore` that keeps it out of commits (caches are
/// machine-local, never merged). False when it cannot be used, or is a
/// symbolic link (which could lead out of the store).
pub(crate) fn cache_dir_ready(dir: &Path) -> bool {
    if dir
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        || std::fs::create_dir_all(dir).is_err()
    {
        return false;
    }
    // Created only where nothing is, a dangling link included.
    if let Ok(mut ignore) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(".gitignore"))
    {
        let _ = std::io::Write::write_all(&mut ignore, b"*\n");
    }
    true
}
