//! Links in a repository's `.git` that git would write through. Git
//! writes most of its files by a lock file renamed over them, which
//! replaces a link; but it appends to reflogs and writes `FETCH_HEAD`,
//! `MERGE_MSG` and `COMMIT_EDITMSG` in place, and a folder that is a link
//! takes every file written into it elsewhere. An agent's shell can make
//! any of them a link to a file of the person's outside the store; steward
//! then writes nothing with git until a person removes it.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The links under `git_dir` git would write through: a symbolic link
/// among its top level (but `hooks` and `info`, which git only reads), its `logs/` (reflogs and their folders), the
/// folders of `refs/` and of `objects/`; and a file at the top level or in
/// `logs/` with a second name (a hard link to a file elsewhere).
pub fn written_through(git_dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    visit(git_dir, &mut found, Depth::Top);
    found
}

#[derive(Clone, Copy, PartialEq)]
enum Depth {
    /// `.git` itself: its files and folders, and the three below.
    Top,
    /// Under `logs/`: every file and folder.
    Logs,
    /// Under `refs/`: folders only (files are renamed over), at any depth.
    Refs,
    /// `objects/`: its folders only, not what they hold (git writes a
    /// loose object by renaming; only a folder that is a link matters).
    Objects,
}

/// Looks at the entries of `dir` at `depth`. Only what may matter is
/// stat'ed: the entries' kinds come with the listing, and a store's
/// thousands of loose objects and refs are never looked at one by one.
fn visit(dir: &Path, found: &mut Vec<PathBuf>, depth: Depth) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        // Git only reads these: a person's hooks or excludes kept
        // elsewhere are theirs.
        if depth == Depth::Top && matches!(name.to_str(), Some("hooks" | "info")) {
            continue;
        }
        let path = entry.path();
        let folders_only = matches!(depth, Depth::Refs | Depth::Objects);
        if kind.is_symlink() {
            // Under refs/ and objects/ a file that is a link is renamed
            // over; a folder that is one is written into.
            if !folders_only || path.metadata().is_ok_and(|m| m.is_dir()) {
                found.push(path);
            }
        } else if kind.is_dir() {
            let below = match (depth, name.to_str()) {
                (Depth::Top, Some("logs")) => Some(Depth::Logs),
                (Depth::Top, Some("refs")) => Some(Depth::Refs),
                (Depth::Top, Some("objects")) => Some(Depth::Objects),
                (Depth::Top | Depth::Objects, _) => None,
                (below, _) => Some(below),
            };
            if let Some(below) = below {
                visit(&path, found, below);
            }
        } else if !folders_only && path.symlink_metadata().is_ok_and(|m| m.nlink() > 1) {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_git_writes_through_are_found_and_others_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "a person's file").unwrap();
        for folder in [
            "logs/refs/heads",
            "refs/heads",
            "objects/ab",
            "objects/pack",
        ] {
            std::fs::create_dir_all(git.join(folder)).unwrap();
        }
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::os::unix::fs::symlink(dir.path(), git.join("hooks")).unwrap();
        // A loose object hard-linked by `git clone --local`, a ref that
        // is a link (git renames over it): neither is written through.
        std::fs::write(git.join("objects/ab/cdef"), "x").unwrap();
        std::fs::hard_link(git.join("objects/ab/cdef"), dir.path().join("clone")).unwrap();
        std::os::unix::fs::symlink(&outside, git.join("refs/heads/main")).unwrap();
        assert!(written_through(&git).is_empty());
        std::os::unix::fs::symlink(&outside, git.join("logs/refs/heads/main")).unwrap();
        std::fs::hard_link(&outside, git.join("FETCH_HEAD")).unwrap();
        std::os::unix::fs::symlink(dir.path(), git.join("objects/cd")).unwrap();
        let mut found = written_through(&git);
        found.sort();
        assert_eq!(
            found,
            ["FETCH_HEAD", "logs/refs/heads/main", "objects/cd"].map(|p| git.join(p))
        );
    }
}
