//! What goal files in the open goals' directory said when they held a
//! terminal goal, keyed by size and modification time, so commands about
//! open goals pass over an unchanged one with a `stat` (SPEC 10). A person
//! who closes a goal by hand leaves its file there until the next `tick`
//! moves it to `closed/`; until then `list`, `prompt` and `add` would
//! otherwise read it again on every run.
//!
//! The cache is rebuildable: deleting it, or any line of it, loses nothing
//! but the time to read those files once more. A file whose size or time
//! differs from its line is read again. A file changed in the last
//! [`RACY_SECONDS`] is never cached: a second edit of the same size inside
//! the clock's granularity would otherwise go unseen (git's "racy clean").

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::GoalFile;

/// The first line of the cache file; a file with another one is ignored.
const HEADER: &str = "steward terminal goals v1";
/// Files changed more recently than this are read, never cached.
const RACY_SECONDS: u64 = 2;

/// Size and modification time of a file.
type Stamp = (u64, SystemTime);

#[derive(Debug)]
pub struct TerminalCache {
    path: PathBuf,
    entries: HashMap<OsString, Stamp>,
    /// Names found in the directory during this scan; the rest are dropped.
    seen: Vec<OsString>,
    changed: bool,
}

impl TerminalCache {
    /// Reads the cache at `path`; a missing or unreadable one is empty.
    pub fn load(path: &Path) -> TerminalCache {
        let entries = std::fs::read(path)
            .ok()
            .map(|bytes| parse(&bytes))
            .unwrap_or_default();
        TerminalCache {
            path: path.to_path_buf(),
            entries,
            seen: Vec::new(),
            changed: false,
        }
    }

    /// Whether `entry` is cached as terminal and its size and time are the
    /// ones cached (one `stat` relative to the open directory). A symbolic
    /// link never matches: its own time is not its target's.
    pub fn holds_unchanged(&mut self, entry: &std::fs::DirEntry) -> bool {
        let name = entry.file_name();
        let Some(cached) = self.entries.get(&name) else {
            return false;
        };
        let stamp = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        let unchanged = stamp == Some(*cached);
        if unchanged {
            self.seen.push(name);
        }
        unchanged
    }

    /// Records that `file` holds a terminal goal, unless it changed too
    /// recently to trust its time.
    pub fn remember(&mut self, file: &GoalFile) {
        let (Some(stamp), Some(name)) = (file.stamp, file.path.file_name()) else {
            return;
        };
        let settled = SystemTime::now()
            .checked_sub(Duration::from_secs(RACY_SECONDS))
            .is_some_and(|limit| stamp.1 <= limit);
        if !settled || name.as_bytes().contains(&b'\n') {
            return;
        }
        self.seen.push(name.to_os_string());
        if self.entries.insert(name.to_os_string(), stamp) != Some(stamp) {
            self.changed = true;
        }
    }

    /// Writes the cache back when this scan changed it: entries for files
    /// no longer cached as terminal are dropped. Best effort: a cache that
    /// cannot be written is only slower next time.
    pub fn save(mut self) {
        let before = self.entries.len();
        let seen: std::collections::HashSet<OsString> = self.seen.drain(..).collect();
        self.entries.retain(|name, _| seen.contains(name));
        if !self.changed && self.entries.len() == before {
            return;
        }
        let Some(dir) = self.path.parent() else {
            return;
        };
        // Never through a symbolic link: the cache is written by reading
        // commands, which take no lock and check no directory.
        if dir
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
            || std::fs::create_dir_all(dir).is_err()
        {
            return;
        }
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            // Machine-local: never committed, never merged.
            let _ = std::fs::write(&ignore, "*\n");
        }
        let _ = super::atomic::write_unsynced(&self.path, &render(&self.entries));
    }
}

/// `HEADER`, then one line per file: size, seconds, nanoseconds, name.
fn render(entries: &HashMap<OsString, Stamp>) -> Vec<u8> {
    let mut lines: Vec<(&OsString, &Stamp)> = entries.iter().collect();
    lines.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = format!("{HEADER}\n").into_bytes();
    for (name, (size, modified)) in lines {
        let since = modified.duration_since(UNIX_EPOCH).unwrap_or_default();
        out.extend_from_slice(
            format!("{size} {} {} ", since.as_secs(), since.subsec_nanos()).as_bytes(),
        );
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    out
}

/// The entries of a cache file; lines that do not parse are left out.
fn parse(bytes: &[u8]) -> HashMap<OsString, Stamp> {
    let mut lines = bytes.split(|b| *b == b'\n');
    if lines.next() != Some(HEADER.as_bytes()) {
        return HashMap::new();
    }
    lines
        .filter_map(|line| {
            let mut fields = line.splitn(4, |b| *b == b' ');
            let mut number =
                || -> Option<u64> { std::str::from_utf8(fields.next()?).ok()?.parse().ok() };
            let (size, secs, nanos) = (number()?, number()?, number()?);
            let name = fields.next().filter(|n| !n.is_empty())?;
            let modified =
                UNIX_EPOCH.checked_add(Duration::new(secs, u32::try_from(nanos).ok()?))?;
            Some((OsString::from_vec(name.to_vec()), (size, modified)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_entries_parse_back() {
        let mut entries = HashMap::new();
        let when = UNIX_EPOCH + Duration::new(1_795_000_000, 123_456_789);
        entries.insert(OsString::from("a goal.md"), (512, when));
        entries.insert(OsString::from("b.md"), (7, UNIX_EPOCH));
        assert_eq!(parse(&render(&entries)), entries);
    }

    #[test]
    fn a_damaged_cache_is_read_as_far_as_it_parses() {
        let text = format!("{HEADER}\n10 5 0 ok.md\nten 5 0 bad.md\n10 5\n\n");
        let entries = parse(text.as_bytes());
        assert_eq!(entries.len(), 1);
        assert!(entries.contains_key(&OsString::from("ok.md")));
        assert!(parse(b"another format\n10 5 0 ok.md\n").is_empty());
    }
}
