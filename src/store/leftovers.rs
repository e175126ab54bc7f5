//! Removing the temporary files killed writes left behind, without listing
//! every directory on every `tick`: at 100,000 goals, listing `closed/` and
//! `undo/` each pass to find nothing was a tenth of `tick`'s time.
//!
//! A temporary file appears only where steward writes, and steward writes
//! the goal, closed-goal and undo directories only under the store's lock,
//! which `tick` holds. So a directory whose modification and change times
//! are the ones recorded when it was last found clean holds no leftover:
//! it is not listed again. The record (`state/cache/leftovers`) is a cache:
//! deleted or garbled, every directory is listed once more. What this can
//! miss, until the directory next changes (`doctor` lists every leftover
//! meanwhile): a leftover whose process id a live process has taken, and
//! one made by a write killed within the same tick of the file-system
//! clock as the record was written (the directory's times do not move).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::atomic;

const HEADER: &str = "steward leftovers v1";

/// When a directory last changed: modification and change time, each in
/// seconds and nanoseconds (the change time no program can set).
type Version = [i64; 4];

/// Directories looked at for leftovers, to be recorded clean once the
/// transaction that looked has written what it writes.
pub struct Checked {
    dirs: Vec<(&'static str, PathBuf)>,
    record: PathBuf,
    /// The record as it was read.
    before: String,
}

/// Removes the leftovers in each of `dirs` (a name for the record, and
/// where it is) that changed since `record` last found it clean.
pub fn remove(dirs: Vec<(&'static str, PathBuf)>, record: PathBuf) -> Checked {
    let before = read(&record);
    for (name, dir) in &dirs {
        let recorded = version(dir).is_some_and(|times| {
            before
                .lines()
                .skip(1)
                .any(|line| parse_line(line) == Some((times, *name)))
        });
        if !recorded {
            for path in atomic::leftovers(dir) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
    Checked {
        dirs,
        record,
        before,
    }
}

impl Checked {
    /// Records the directories clean as they are now: under the lock,
    /// since [`remove`] only this transaction changed them, and each of
    /// its writes renamed or removed its temporary file. Written only when
    /// it changed.
    pub fn record(self) {
        let mut after = String::from(HEADER);
        after.push('\n');
        for (name, dir) in &self.dirs {
            if let Some([m, mn, c, cn]) = version(dir) {
                after.push_str(&format!("{m} {mn} {c} {cn} {name}\n"));
            }
        }
        if after != self.before && super::cache_dir_ready(atomic::parent(&self.record)) {
            let _ = atomic::write_unsynced(&self.record, after.as_bytes());
        }
    }
}

fn version(dir: &Path) -> Option<Version> {
    let metadata = dir.symlink_metadata().ok()?;
    metadata.is_dir().then(|| {
        [
            metadata.mtime(),
            metadata.mtime_nsec(),
            metadata.ctime(),
            metadata.ctime_nsec(),
        ]
    })
}

/// The record's text; empty unless it starts with [`HEADER`].
fn read(record: &Path) -> String {
    match crate::os::safe_file::read_state(record) {
        Some(text) if text.lines().next() == Some(HEADER) => text,
        _ => String::new(),
    }
}

fn parse_line(line: &str) -> Option<(Version, &str)> {
    let mut parts = line.splitn(5, ' ');
    let mut version = [0; 4];
    for number in &mut version {
        *number = parts.next()?.parse().ok()?;
    }
    Some((version, parts.next()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pid 4194304 is above Linux's pid limit: never a live process.
    const LEFTOVER: &str = ".steward-tmp-4194304-abc";

    /// A store's closed directory and the record's path (not written yet).
    fn store() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let closed = root.path().join("closed");
        std::fs::create_dir(&closed).unwrap();
        let record = root.path().join("cache/leftovers");
        (root, closed, record)
    }

    /// One pass over `closed` as `tick` makes it: remove, then record.
    fn pass(closed: &Path, record: &Path) {
        remove(vec![("closed", closed.to_path_buf())], record.to_path_buf()).record();
    }

    #[test]
    fn a_directory_is_listed_again_only_when_it_changed() {
        let (_root, closed, record) = store();
        std::fs::write(closed.join(LEFTOVER), "partial").unwrap();
        pass(&closed, &record);
        assert!(!closed.join(LEFTOVER).exists(), "a leftover is removed");
        let recorded = std::fs::read_to_string(&record).unwrap();
        assert!(recorded.starts_with(HEADER), "{recorded}");

        // Nothing changed: the directory is not listed, the record not
        // rewritten.
        let inode = record.metadata().unwrap().ino();
        pass(&closed, &record);
        assert_eq!(record.metadata().unwrap().ino(), inode);

        // Times other than the recorded ones (here a second earlier, as a
        // change would leave them): listed again.
        std::fs::write(closed.join(LEFTOVER), "partial").unwrap();
        let [m, mn, c, cn] = version(&closed).unwrap();
        let stale = format!("{HEADER}\n{} {mn} {c} {cn} closed\n", m - 1);
        std::fs::write(&record, stale).unwrap();
        pass(&closed, &record);
        assert!(!closed.join(LEFTOVER).exists());
    }

    #[test]
    fn a_lost_or_garbled_record_lists_every_directory() {
        let (_root, closed, record) = store();
        // A record that says the directory, leftover and all, is clean.
        let trusted = || {
            std::fs::write(closed.join(LEFTOVER), "partial").unwrap();
            let [m, mn, c, cn] = version(&closed).unwrap();
            format!("{HEADER}\n{m} {mn} {c} {cn} closed\n")
        };
        std::fs::create_dir(record.parent().unwrap()).unwrap();
        std::fs::write(&record, trusted()).unwrap();
        pass(&closed, &record);
        assert!(closed.join(LEFTOVER).exists(), "the record is trusted");
        for garble in [
            |_: String| None,
            |text: String| Some(text.replace(HEADER, "steward leftovers v0")),
            |text: String| Some(text.replacen(' ', "x", 1)),
            |_: String| Some(String::new()),
        ] {
            match garble(trusted()) {
                Some(text) => std::fs::write(&record, text).unwrap(),
                None => std::fs::remove_file(&record).unwrap(),
            }
            pass(&closed, &record);
            assert!(!closed.join(LEFTOVER).exists());
        }
    }
}
