//! How many goal files the open goals' directory held, and how many of
//! them the terminal-goal cache listed, kept with the stamps of that
//! directory and that cache (`state/cache/open-count`), so that `add`,
//! counting open goals against `max_active_goals`, does not list a
//! directory of 10,000 entries while 9,000 goals closed by hand wait for
//! `tick` (steward-design(7), "Goals closed by hand cost a stat").
//!
//! The count is used only while the directory's stamp is the one kept: a
//! file made, removed or renamed there changes the directory's change time,
//! which no program can set. `add` writes the count again after making its
//! goal's file, under the store lock. A file a person makes by hand in the
//! same clock tick as that write (on kernels without fine-grained directory
//! times) can be left out until the next `tick`, which removes the count.
//! The record is bound to this machine's key: a forged one is not read.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::key::{Domain, MachineKey};
use super::{atomic, cache_dir_ready};
use crate::os::safe_file;

const HEADER: &str = "steward open count 1";

/// The goal files of the open goals' directory, counted by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// Goal files in the directory.
    pub files: u64,
    /// How many of them the terminal-goal cache lists, when that was asked.
    pub listed: Option<u64>,
}

/// What identifies one state of the directory and of the terminal-goal
/// cache: device, inode, size, modification and change times of each (the
/// cache's all zero when it is missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamps(Vec<i64>);

impl Stamps {
    /// The stamps of `dir` and `terminal_cache` now; `None` when the
    /// directory cannot be read.
    pub fn of(dir: &Path, terminal_cache: &Path) -> Option<Stamps> {
        let dir = dir.symlink_metadata().ok().filter(|m| m.is_dir())?;
        let cache = terminal_cache
            .symlink_metadata()
            .ok()
            .filter(|m| m.is_file());
        let numbers = |m: Option<&std::fs::Metadata>| {
            m.map_or([0; 7], |m| {
                [
                    m.dev() as i64,
                    m.ino() as i64,
                    m.size() as i64,
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime(),
                    m.ctime_nsec(),
                ]
            })
        };
        let mut all = numbers(Some(&dir)).to_vec();
        all.extend(numbers(cache.as_ref()));
        Some(Stamps(all))
    }
}

/// The count kept at `path`, when it was made with `stamps` and `key`.
pub fn read(path: &Path, key: &MachineKey, stamps: &Stamps) -> Option<Counted> {
    let text = safe_file::read_state(path)?;
    let mut lines = key.lines_under_mac(Domain::Cache, &text, HEADER)?;
    let kept: Vec<i64> = (lines.next()?.split(' '))
        .map(|word| word.parse().ok())
        .collect::<Option<_>>()?;
    if kept != stamps.0 {
        return None;
    }
    let mut count = lines.next()?.split(' ');
    let files = count.next()?.parse().ok()?;
    let listed = match count.next()? {
        "-" => None,
        number => Some(number.parse().ok()?),
    };
    Some(Counted { files, listed })
}

/// Keeps `counted` with `stamps` at `path`. Best effort: a count that
/// cannot be written is only slower next time.
pub fn write(path: &Path, key: &MachineKey, stamps: &Stamps, counted: Counted) {
    let numbers: Vec<String> = stamps.0.iter().map(i64::to_string).collect();
    let listed = counted.listed.map_or("-".to_string(), |n| n.to_string());
    let body = format!(
        "{HEADER}\n{}\n{} {listed}\n",
        numbers.join(" "),
        counted.files
    );
    if cache_dir_ready(atomic::parent(path)) {
        let text = key.with_mac(Domain::Cache, body);
        // In place: a torn count fails its MAC and is counted again.
        let _ = atomic::write_over_unsynced(path, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_in(dir: &Path) -> MachineKey {
        MachineKey::load_or_create(&dir.join("key")).unwrap()
    }

    #[test]
    fn a_count_is_read_back_only_with_its_stamps_and_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let goals = dir.path().join("goals");
        std::fs::create_dir(&goals).unwrap();
        let (cache, path) = (dir.path().join("terminal"), dir.path().join("cache/count"));
        let key = key_in(dir.path());
        let stamps = Stamps::of(&goals, &cache).unwrap();
        let counted = Counted {
            files: 10_000,
            listed: Some(9_000),
        };
        write(&path, &key, &stamps, counted);
        assert_eq!(read(&path, &key, &stamps), Some(counted));

        // Another machine's key, a changed number, a new file in the
        // directory, a terminal-goal cache written since: not read.
        let other = key_in(&dir.path().join("other"));
        assert_eq!(read(&path, &other, &stamps), None);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("10000 9000", "10000 9999")).unwrap();
        assert_eq!(read(&path, &key, &stamps), None);
        write(&path, &key, &stamps, counted);
        std::fs::write(goals.join("new.md"), "").unwrap();
        assert_eq!(
            read(&path, &key, &Stamps::of(&goals, &cache).unwrap()),
            None
        );
        let stamps = Stamps::of(&goals, &cache).unwrap();
        write(&path, &key, &stamps, counted);
        std::fs::write(&cache, "steward terminal goals\n").unwrap();
        assert_eq!(
            read(&path, &key, &Stamps::of(&goals, &cache).unwrap()),
            None
        );
    }

    #[test]
    fn a_count_without_the_listed_goals_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path());
        let stamps = Stamps::of(dir.path(), &dir.path().join("none")).unwrap();
        let path = dir.path().join("count");
        let counted = Counted {
            files: 3,
            listed: None,
        };
        write(&path, &key, &stamps, counted);
        assert_eq!(read(&path, &key, &stamps), Some(counted));
    }

    #[test]
    fn a_count_is_written_over_the_last_in_place_and_a_torn_one_is_not_read() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path());
        let stamps = Stamps::of(dir.path(), &dir.path().join("none")).unwrap();
        let path = dir.path().join("count");
        let long = Counted {
            files: 10_000,
            listed: Some(9_000),
        };
        write(&path, &key, &stamps, long);
        let inode = std::fs::metadata(&path).unwrap().ino();
        let short = Counted {
            files: 3,
            listed: None,
        };
        write(&path, &key, &stamps, short);
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        assert_eq!(read(&path, &key, &stamps), Some(short));

        // A write cut short by a crash: the MAC does not match.
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 10]).unwrap();
        assert_eq!(read(&path, &key, &stamps), None);
    }
}
