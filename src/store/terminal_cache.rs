//! What goal files in the open goals' directory said when they held a
//! terminal goal, keyed by size, modification time, inode and change time,
//! so commands about open goals pass over an unchanged one with a `stat`
//! (steward-design(7), "Goals closed by hand cost a stat"). A person who
//! closes a goal by hand leaves its file there until the next `tick` moves
//! it to `closed/`; until then `list`, `prompt` and `add` would otherwise
//! read it again on every run.
//!
//! The cache is rebuildable: deleting it, or any line of it, loses nothing
//! but the time to read those files once more. A file whose stamp differs
//! from its line is read again; the change time, which no program can set,
//! catches a replacement that keeps the modification time (`cp -p`,
//! `touch -r`). A file changed in the last [`RACY_SECONDS`] is never
//! cached: a second edit of the same size inside the clock's granularity
//! would otherwise go unseen (git's "racy clean").
//!
//! Whoever can write the store can write the cache, so it is checked where
//! every file is read anyway: `tick` reports a line that names a goal that
//! is open (a goal hidden from the agent's prompts and hooks) and clears
//! the cache, since after its pass no closed goal waits in the directory.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::LoadedGoal;

/// The first line of the cache file; a file with another one is ignored.
const HEADER: &str = concat!("steward terminal goals v2 ", env!("CARGO_PKG_VERSION"));
/// Files changed more recently than this are read, never cached.
const RACY_SECONDS: i64 = 2;
/// A cache larger than this is not read (it is rebuilt).
const MAX_CACHE_BYTES: u64 = 16 * 1024 * 1024;

/// What identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    size: i64,
    /// Modification time: seconds and nanoseconds.
    modified: (i64, i64),
    inode: i64,
    /// Change time, which no program can set: seconds and nanoseconds.
    changed: (i64, i64),
}

impl Stamp {
    fn of(metadata: &std::fs::Metadata) -> Option<Stamp> {
        metadata.is_file().then(|| Stamp {
            size: metadata.size() as i64,
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            inode: metadata.ino() as i64,
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    /// Whether this is the size and modification time `GoalFile` saw.
    fn matches(&self, size: u64, modified: SystemTime) -> bool {
        let seen = modified
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| (d.as_secs() as i64, i64::from(d.subsec_nanos())));
        self.size == size as i64 && seen == Some(self.modified)
    }

    /// Whether the file changed too recently for its times to be trusted.
    fn is_racy(&self) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        self.modified.0.max(self.changed.0) > now - RACY_SECONDS
    }

    /// The six numbers of a cache line, in order.
    fn numbers(&self) -> [i64; 6] {
        [
            self.size,
            self.modified.0,
            self.modified.1,
            self.inode,
            self.changed.0,
            self.changed.1,
        ]
    }

    fn from_numbers([size, modified, modified_ns, inode, changed, changed_ns]: [i64; 6]) -> Stamp {
        Stamp {
            size,
            modified: (modified, modified_ns),
            inode,
            changed: (changed, changed_ns),
        }
    }
}

#[derive(Debug)]
pub struct TerminalCache {
    path: PathBuf,
    entries: HashMap<Box<OsStr>, Entry>,
    changed: bool,
}

/// One cached file: its stamp, and whether this scan found it still
/// terminal (the entries it did not find are dropped when it saves). The
/// directory's files are checked on every core, hence the atomic.
#[derive(Debug)]
struct Entry {
    stamp: Stamp,
    seen: AtomicBool,
}

impl Entry {
    fn new(stamp: Stamp, seen: bool) -> Entry {
        Entry {
            stamp,
            seen: AtomicBool::new(seen),
        }
    }
}

impl TerminalCache {
    /// Reads the cache at `path`; a missing, unreadable or oversized one,
    /// or anything but a plain file, is empty.
    pub fn load(path: &Path) -> TerminalCache {
        TerminalCache {
            path: path.to_path_buf(),
            entries: read(path).map(|bytes| parse(&bytes)).unwrap_or_default(),
            changed: false,
        }
    }

    /// Makes room for `files` more entries at once: the files a scan is
    /// about to read may all be goals closed by hand. Growing the map a
    /// step at a time would hold its old table beside the new one (5 MB at
    /// 90,000 files), where room never filled is never touched.
    pub fn reserve(&mut self, files: usize) {
        self.entries.reserve(files);
    }

    /// Whether the file `name` has a line in the cache (whatever its stamp).
    pub fn lists(&self, name: &OsStr) -> bool {
        self.entries.contains_key(name)
    }

    /// Whether `entry` is cached as terminal and its stamp is the one cached
    /// (one `stat` relative to the open directory). A symbolic link never
    /// matches: its own stamp is not its target's.
    pub fn holds_unchanged(&self, entry: &std::fs::DirEntry) -> bool {
        let Some(cached) = self.entries.get(entry.file_name().as_os_str()) else {
            return false;
        };
        let unchanged = entry.metadata().ok().and_then(|m| Stamp::of(&m)) == Some(cached.stamp);
        if unchanged {
            cached.seen.store(true, Ordering::Relaxed);
        }
        unchanged
    }

    /// Records that the file at `path`, just read when its size and
    /// modification time were `read`, holds a terminal goal, unless it
    /// changed since or too recently to trust its times.
    pub fn remember(&mut self, path: &Path, read: Option<(u64, SystemTime)>) {
        let (Some((size, modified)), Some(name)) = (read, path.file_name()) else {
            return;
        };
        let Some(stamp) = std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| Stamp::of(&m))
        else {
            return;
        };
        if !stamp.matches(size, modified) || stamp.is_racy() || name.as_bytes().contains(&b'\n') {
            return;
        }
        match self.entries.get_mut(name) {
            Some(cached) if cached.stamp == stamp => *cached.seen.get_mut() = true,
            Some(cached) => {
                *cached = Entry::new(stamp, true);
                self.changed = true;
            }
            None => {
                self.entries.insert(name.into(), Entry::new(stamp, true));
                self.changed = true;
            }
        }
    }

    /// Writes the cache back when this scan changed it: entries for files
    /// no longer cached as terminal are dropped. Best effort: a cache that
    /// cannot be written is only slower next time. `store_is_safe`: the
    /// store's own directories lead nowhere outside it (reading commands
    /// take no lock and check nothing else).
    pub fn save(mut self, store_is_safe: impl FnOnce() -> bool) {
        let before = self.entries.len();
        self.entries.retain(|_, entry| *entry.seen.get_mut());
        if !self.changed && self.entries.len() == before {
            return;
        }
        let Some(dir) = self.path.parent() else {
            return;
        };
        if !store_is_safe() || !super::cache_dir_ready(dir) {
            return;
        }
        let _ = super::atomic::write_unsynced(&self.path, &render(&self.entries));
    }
}

/// The names of files in `goals` (every goal of the open directory, just
/// read) that the cache at `path` says held a terminal goal with the stamp
/// they have now, while the goal is open: lines only a hand could write.
/// The cache's lines are compared as they are read: one that waits for
/// `tick` may list 90,000 files.
pub fn forged(path: &Path, goals: &[LoadedGoal]) -> Vec<String> {
    use std::io::BufRead;
    let open: HashMap<&OsStr, &LoadedGoal> = (goals.iter())
        .filter(|loaded| !loaded.goal.status.is_terminal())
        .filter_map(|loaded| Some((loaded.file.path.file_name()?, loaded)))
        .collect();
    if open.is_empty() {
        return Vec::new();
    }
    let Some(file) = open_cache(path) else {
        return Vec::new();
    };
    // Read a line at a time: `tick` calls this holding every open goal,
    // and the cache of 90,000 goals closed by hand is 6 MB.
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file.take(MAX_CACHE_BYTES));
    let mut line = Vec::new();
    let mut next_line = |line: &mut Vec<u8>| {
        line.clear();
        let read = reader.read_until(b'\n', line).unwrap_or(0);
        if line.ends_with(b"\n") {
            line.pop();
        }
        read > 0
    };
    if !next_line(&mut line) || line != HEADER.as_bytes() {
        return Vec::new();
    }
    let mut forged = Vec::new();
    while next_line(&mut line) {
        let Some((name, cached)) = entry(&line) else {
            continue;
        };
        let Some(loaded) = open.get(OsStr::from_bytes(name)) else {
            continue;
        };
        let stamp = std::fs::symlink_metadata(&loaded.file.path)
            .ok()
            .and_then(|m| Stamp::of(&m));
        if stamp == Some(cached) {
            forged.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    forged.sort_unstable();
    forged.dedup();
    forged
}

/// How many of `names` (file names in the open goals' directory) the cache
/// at `path` lists, whatever their stamps: what `add` needs to count the
/// open goals. Only the names are read, none of the numbers: 9,000 lines
/// of goals closed by hand cost a pass over the bytes and a hash each.
pub fn count_listed(path: &Path, names: &[std::ffi::OsString]) -> usize {
    let Some(bytes) = read(path) else {
        return 0;
    };
    let mut listed: HashSet<&[u8], BuildHasherDefault<NameHasher>> = HashSet::default();
    // A line is some 70 bytes: room for them all at once.
    listed.reserve(bytes.len() / 48);
    listed.extend(lines(&bytes).filter_map(name_of));
    (names.iter())
        .filter(|name| listed.contains(name.as_bytes()))
        .count()
}

/// Hashes a file name eight bytes at a time (FxHash's mix), for a set that
/// lives for one command. SipHash, the standard map's, guards against keys
/// chosen to collide; here the worst such keys can do is cost time, never
/// a wrong count.
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mix =
            |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.0 = mix(
                self.0,
                u64::from_le_bytes(chunk.try_into().expect("eight bytes")),
            );
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.0 = mix(self.0, u64::from_le_bytes(last));
    }
}

/// The cache's bytes: a plain file of at most [`MAX_CACHE_BYTES`], never
/// through a symbolic link, never a FIFO that would block.
fn read(path: &Path) -> Option<Vec<u8>> {
    let file = open_cache(path)?;
    let len = file.metadata().ok()?.len();
    let mut bytes = Vec::with_capacity(len.min(MAX_CACHE_BYTES) as usize);
    file.take(MAX_CACHE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The cache file at `path`, when it is a regular file (not through a
/// symbolic link) of at most [`MAX_CACHE_BYTES`].
fn open_cache(path: &Path) -> Option<std::fs::File> {
    let metadata = path.symlink_metadata().ok()?;
    if !metadata.is_file() || metadata.len() > MAX_CACHE_BYTES {
        return None;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()
}

/// `HEADER`, then one line per file: the six numbers of its stamp, then
/// its name.
fn render(entries: &HashMap<Box<OsStr>, Entry>) -> Vec<u8> {
    use std::io::Write;
    /// More than a line takes (six numbers and a file name): the buffer is
    /// never copied to grow, and the pages beyond the end are never touched.
    const LINE_BYTES: usize = 192;
    let mut lines: Vec<(&OsStr, &Stamp)> = (entries.iter())
        .map(|(name, entry)| (&**name, &entry.stamp))
        .collect();
    lines.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = Vec::with_capacity(HEADER.len() + 1 + lines.len() * LINE_BYTES);
    writeln!(out, "{HEADER}").expect("writing to memory");
    for (name, stamp) in lines {
        for number in stamp.numbers() {
            write!(out, "{number} ").expect("writing to memory");
        }
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    out
}

/// The entries of a cache file, none of them seen yet; lines that do not
/// parse are left out.
fn parse(bytes: &[u8]) -> HashMap<Box<OsStr>, Entry> {
    entries(bytes)
        .map(|(name, stamp)| (OsStr::from_bytes(name).into(), Entry::new(stamp, false)))
        .collect()
}

/// The cache's lines as (file name, stamp); none when its header is not
/// [`HEADER`], and no line that does not parse.
fn entries(bytes: &[u8]) -> impl Iterator<Item = (&[u8], Stamp)> {
    lines(bytes).filter_map(entry)
}

/// The file name and stamp a line of the cache holds.
fn entry(line: &[u8]) -> Option<(&[u8], Stamp)> {
    let mut fields = line.splitn(7, |b| *b == b' ');
    let mut stamp = [0i64; 6];
    for number in &mut stamp {
        *number = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    }
    let name = fields.next().filter(|n| !n.is_empty())?;
    Some((name, Stamp::from_numbers(stamp)))
}

/// The cache's lines after its header; none when the header is not
/// [`HEADER`].
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let (header, rest) = match memchr::memchr(b'\n', bytes) {
        Some(end) => (&bytes[..end], &bytes[end + 1..]),
        None => (bytes, &[][..]),
    };
    let rest = if header == HEADER.as_bytes() {
        rest
    } else {
        &[]
    };
    let mut start = 0;
    memchr::memchr_iter(b'\n', rest)
        .chain((!rest.is_empty() && !rest.ends_with(b"\n")).then_some(rest.len()))
        .map(move |end| {
            let line = &rest[start..end];
            start = end + 1;
            line
        })
}

/// The file name of a line whose six numbers are there, as [`entries`]
/// would read it, without reading the numbers.
fn name_of(line: &[u8]) -> Option<&[u8]> {
    let mut fields = line.splitn(7, |b| *b == b' ');
    for _ in 0..6 {
        let field = fields.next()?;
        let digits = field.strip_prefix(b"-").unwrap_or(field);
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    fields.next().filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_entries_parse_back() {
        let entries: HashMap<Box<OsStr>, Entry> = [
            (
                "a goal.md",
                [512, 1_795_000_000, 123_456_789, 42, 1_795_000_001, 7],
            ),
            ("b.md", [7, 0, 0, 1, 0, 0]),
        ]
        .into_iter()
        .map(|(name, numbers)| {
            let stamp = Stamp::from_numbers(numbers);
            (OsStr::new(name).into(), Entry::new(stamp, false))
        })
        .collect();
        let stamps = |entries: &HashMap<Box<OsStr>, Entry>| -> HashMap<Box<OsStr>, Stamp> {
            (entries.iter())
                .map(|(name, entry)| (name.clone(), entry.stamp))
                .collect()
        };
        assert_eq!(stamps(&parse(&render(&entries))), stamps(&entries));
    }

    #[test]
    fn a_damaged_cache_is_read_as_far_as_it_parses() {
        let text = format!("{HEADER}\n10 5 0 1 5 0 ok.md\nten 5 0 1 5 0 bad.md\n10 5\n\n");
        let entries = parse(text.as_bytes());
        assert_eq!(entries.len(), 1);
        assert!(entries.contains_key(OsStr::new("ok.md")));
        assert!(parse(b"another format\n10 5 0 1 5 0 ok.md\n").is_empty());
    }

    #[test]
    fn the_names_counted_are_the_names_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("terminal-goals");
        let text = format!(
            "{HEADER}\n10 5 0 1 5 0 b.md\n-1 5 0 1 5 0 a.md\nten 5 0 1 5 0 c.md\n10 5 0 1 5 d.md\n10 5 0 1 5 0 gone.md\n"
        );
        std::fs::write(&path, &text).unwrap();
        let names: Vec<std::ffi::OsString> = ["a.md", "b.md", "c.md", "d.md", "e.md"]
            .into_iter()
            .map(Into::into)
            .collect();
        let parsed = parse(text.as_bytes());
        let listed = names
            .iter()
            .filter(|n| parsed.contains_key(n.as_os_str()))
            .count();
        assert_eq!(listed, 2, "a.md and b.md parse; c.md and d.md do not");
        assert_eq!(count_listed(&path, &names), listed);
        std::fs::write(&path, text.replace(HEADER, "another format")).unwrap();
        assert_eq!(count_listed(&path, &names), 0);
    }

    #[test]
    fn only_a_plain_file_of_bounded_size_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert!(read(&fifo).is_none(), "a FIFO is never opened");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read(&link).is_none(), "a link is never followed");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, HEADER).unwrap();
        assert_eq!(read(&plain).unwrap(), HEADER.as_bytes());
    }
}
