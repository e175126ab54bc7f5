//! Steward's commits update the git index for the paths they commit, so
//! they show as committed. libgit2 reads the whole index into a map and
//! writes it back with a collision-detecting SHA-1, twice the work of the
//! index's size: at 100,000 closed goals (a 10 MB index) most of a
//! commit's time. This patches the index file instead: it walks the
//! entries as bytes, replaces, inserts or removes the few that changed,
//! and writes the file once through git's lock file (`index.lock`).
//!
//! It follows the repository's own settings for large indexes, as git
//! does: with `core.splitIndex` (or an index git already split), only the
//! small index that lists what changed since the shared one is rewritten
//! ([`split`]); with `index.skipHash`, the file ends in zeros instead of
//! its SHA-1. Index versions 2 and 3 only: anything else (version 4, a
//! sparse index) is left to libgit2 (`None`). Optional extensions are
//! dropped, as git may drop them: the cache of trees (git rebuilds what it
//! needs), the untracked cache, offsets into the entries.

mod ewah;
mod mapped;
mod split;

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use sha1::{Digest, Sha1};

/// One path's new entry (`None`: the path leaves the index).
pub struct Change<'a> {
    pub path: &'a str,
    pub entry: Option<Vec<u8>>,
}

/// The repository's settings that shape the index file.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// `core.splitIndex`: `None` keeps the index as it is.
    pub split: Option<bool>,
    /// `index.skipHash` (on with `feature.manyFiles`).
    pub skip_hash: bool,
    /// `splitIndex.maxPercentChange`: how much of the index the small one
    /// may list before a new shared index is written.
    pub max_percent_change: u32,
    /// `splitIndex.sharedIndexExpire`: how long a shared index no index
    /// names is kept (`None`: for ever).
    pub shared_index_expiry: Option<std::time::Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            split: None,
            skip_hash: false,
            max_percent_change: 20,
            // Git's default, "2.weeks.ago".
            shared_index_expiry: Some(std::time::Duration::from_secs(14 * 24 * 3600)),
        }
    }
}

/// The entry bytes of a stage-0 file (version 2 layout, which version 3
/// shares when no extended flag is set).
#[allow(clippy::too_many_arguments)]
pub fn entry_bytes(
    ctime: (u32, u32),
    mtime: (u32, u32),
    dev: u32,
    ino: u32,
    mode: u32,
    uid: u32,
    gid: u32,
    size: u32,
    id: &[u8],
    path: &str,
) -> Vec<u8> {
    let mut entry = Vec::with_capacity(64 + path.len() + 8);
    for value in [
        ctime.0, ctime.1, mtime.0, mtime.1, dev, ino, mode, uid, gid, size,
    ] {
        entry.extend_from_slice(&value.to_be_bytes());
    }
    entry.extend_from_slice(id);
    entry.extend_from_slice(&(path.len().min(0xfff) as u16).to_be_bytes());
    entry.extend_from_slice(path.as_bytes());
    pad(&mut entry);
    entry
}

/// One to eight NULs: the entry's length a multiple of eight.
fn pad(entry: &mut Vec<u8>) {
    let padding = 8 - (entry.len() % 8);
    entry.extend(std::iter::repeat_n(0u8, padding));
}

/// Where an entry's flags are, and the bytes before its path: the stat,
/// the object id, the flags, and in version 3 the extended flags when the
/// flags say so.
const FLAGS_AT: usize = 60;
const EXTENDED: u16 = 0x4000;

/// An entry of the index: its path, its stage and its bytes (borrowed
/// from the file read, or made here).
#[derive(Clone)]
struct Entry<'a> {
    path: &'a [u8],
    stage: u16,
    bytes: Cow<'a, [u8]>,
}

/// An index file as read: its version, where its entries are, and its
/// `link` extension when it is split.
struct IndexFile<'a> {
    bytes: &'a [u8],
    version: u32,
    count: usize,
    link: Option<split::Link>,
}

impl<'a> IndexFile<'a> {
    /// The entries, in order, walked as they are read (`parse` checked
    /// that they are whole).
    fn entries(&self) -> impl Iterator<Item = Entry<'a>> + use<'a> {
        let (bytes, version) = (self.bytes, self.version);
        let mut at = 12;
        (0..self.count).map(move |_| {
            let (entry, length) = entry_at(bytes, at, version).expect("checked by parse");
            at += length;
            entry
        })
    }
}

/// Applies `changes` to the index at `git_dir/index`. `Some(Ok(()))` when
/// written; `Some(Err(locked))` when another git process holds the lock;
/// `None` when this index is one libgit2 must handle.
pub fn patch(
    git_dir: &Path,
    changes: &mut [Change<'_>],
    settings: &Settings,
) -> Option<std::io::Result<()>> {
    let lock = match IndexLock::take(git_dir) {
        Ok(lock) => lock,
        Err(err) => return Some(Err(err)),
    };
    let file = mapped::Mapped::open(&git_dir.join("index")).ok()?;
    let index = parse(&file)?;
    changes.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let version = index.version;
    match (&index.link, settings.split) {
        // Split, and `core.splitIndex` says no more: written whole.
        (Some(link), Some(false)) => Some(split::read_shared(git_dir, link).and_then(|shared| {
            let shared_index = split::parse_shared(git_dir, &shared, link)?;
            let entries = split::materialize(git_dir, &shared_index, &index, link)?;
            let mut out = Pieces::new(&shared);
            apply(entries.into_iter(), changes, |entry| out.push(entry));
            let version = version.max(shared_index.version);
            write_full(lock, version, &out, settings)
        })),
        (Some(link), _) => Some(split::update(
            lock, git_dir, &index, link, changes, settings,
        )),
        (None, split) => {
            let mut out = Pieces::new(&file);
            apply(index.entries(), changes, |entry| out.push(entry));
            Some(if split == Some(true) {
                split::create(lock, git_dir, version, &out, settings)
            } else {
                write_full(lock, version, &out, settings)
            })
        }
    }
}

/// `entries` with `changes` applied, in order, each given to `out`: a
/// changed path's entries (every stage: adding a file ends its conflict,
/// as `git add` does) give way to its new one.
fn apply<'a>(
    entries: impl Iterator<Item = Entry<'a>>,
    changes: &'a [Change<'_>],
    mut out: impl FnMut(Entry<'a>),
) {
    let mut pending = changes.iter().peekable();
    let mut entries = entries.peekable();
    loop {
        let take_change = match (pending.peek(), entries.peek()) {
            (Some(change), Some(entry)) => change.path.as_bytes() <= entry.path,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if !take_change {
            out(entries.next().expect("peeked"));
            continue;
        }
        let change = pending.next().expect("peeked");
        while entries
            .next_if(|e| e.path == change.path.as_bytes())
            .is_some()
        {}
        if let Some(entry) = &change.entry {
            out(Entry {
                path: change.path.as_bytes(),
                stage: 0,
                bytes: Cow::Borrowed(entry),
            });
        }
    }
}

/// The entries of an index to write, as few pieces as can be: entries
/// that lie side by side in `file`, the buffer an index was read from, are
/// one run of it.
struct Pieces<'a> {
    file: &'a [u8],
    pieces: Vec<Piece<'a>>,
    count: usize,
}

enum Piece<'a> {
    Run(usize, usize),
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl<'a> Pieces<'a> {
    fn new(file: &'a [u8]) -> Pieces<'a> {
        Pieces {
            file,
            pieces: Vec::new(),
            count: 0,
        }
    }

    fn push(&mut self, entry: Entry<'a>) {
        self.count += 1;
        let bytes = match entry.bytes {
            Cow::Borrowed(bytes) => bytes,
            Cow::Owned(bytes) => return self.pieces.push(Piece::Owned(bytes)),
        };
        let offset = (bytes.as_ptr() as usize).wrapping_sub(self.file.as_ptr() as usize);
        let end = offset.wrapping_add(bytes.len());
        if offset > self.file.len() || end > self.file.len() {
            return self.pieces.push(Piece::Borrowed(bytes));
        }
        match self.pieces.last_mut() {
            Some(Piece::Run(_, run_end)) if *run_end == offset => *run_end = end,
            _ => self.pieces.push(Piece::Run(offset, end)),
        }
    }

    fn slices(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(|piece| match piece {
            Piece::Run(start, end) => &self.file[*start..*end],
            Piece::Borrowed(bytes) => bytes,
            Piece::Owned(bytes) => &bytes[..],
        })
    }
}

/// Writes `entries` as a whole index: the header, the entries, no
/// extension, and the SHA-1 of it all (zeros with `index.skipHash`).
fn write_full(
    lock: IndexLock,
    version: u32,
    entries: &Pieces<'_>,
    settings: &Settings,
) -> std::io::Result<()> {
    whole_index(version, entries, settings.skip_hash, |pieces, _| {
        lock.commit(pieces)
    })
}

/// Hands `write` the pieces of a whole index of `entries` (the header,
/// the entries, the trailer) and the trailer, its SHA-1 or zeros.
fn whole_index(
    version: u32,
    entries: &Pieces<'_>,
    skip_hash: bool,
    write: impl FnOnce(&[&[u8]], &[u8; 20]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let header = header(version, entries.count);
    let mut pieces = vec![&header[..]];
    pieces.extend(entries.slices());
    let trailer = trailer(&pieces, skip_hash);
    pieces.push(&trailer);
    write(&pieces, &trailer)
}

fn header(version: u32, count: usize) -> Vec<u8> {
    let mut header = Vec::with_capacity(12);
    header.extend_from_slice(b"DIRC");
    header.extend_from_slice(&version.to_be_bytes());
    header.extend_from_slice(&(count as u32).to_be_bytes());
    header
}

/// The file's last 20 bytes: the SHA-1 of what comes before, or zeros.
fn trailer(pieces: &[&[u8]], skip_hash: bool) -> [u8; 20] {
    if skip_hash {
        return [0; 20];
    }
    let mut hasher = Sha1::new();
    for piece in pieces {
        hasher.update(piece);
    }
    hasher.finalize().into()
}

/// `index.lock`, held as git holds it: created exclusively (another
/// holder: `AlreadyExists`), taken before the index is read so that no
/// change another git process makes in between is written over; the new
/// index is written into it and renamed over `index`. Dropped before
/// that, it is removed.
pub struct IndexLock {
    /// The lock file, until it becomes the index.
    path: Option<std::path::PathBuf>,
    file: Option<std::fs::File>,
}

impl IndexLock {
    pub fn take(git_dir: &Path) -> std::io::Result<IndexLock> {
        let path = git_dir.join("index.lock");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(IndexLock {
            path: Some(path),
            file: Some(file),
        })
    }

    /// Writes `pieces` as the new index.
    fn commit(mut self, pieces: &[&[u8]]) -> std::io::Result<()> {
        let mut file = self.file.take().expect("held until committed");
        pieces
            .iter()
            .try_for_each(|piece| file.write_all(piece))
            .and_then(|()| file.flush())?;
        drop(file);
        let path = self.path.as_ref().expect("held until committed");
        std::fs::rename(path, path.with_file_name("index"))?;
        self.path = None;
        Ok(())
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The index file in `bytes`; `None` for one this does not handle.
fn parse(bytes: &[u8]) -> Option<IndexFile<'_>> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = word(4)?;
    if !(2..=3).contains(&version) {
        return None;
    }
    let count = word(8)? as usize;
    let mut at = 12;
    for _ in 0..count {
        at += entry_at(bytes, at, version)?.1;
    }
    // Extensions: a mandatory one (lowercase signature) is not ours to
    // drop; `link`, the split index's, is read.
    let end = bytes.len().checked_sub(20)?;
    let mut link = None;
    while at < end {
        let signature = bytes.get(at..at + 4)?;
        let size = word(at + 4)? as usize;
        let body = bytes.get(at + 8..(at + 8).checked_add(size)?)?;
        if signature == b"link" {
            link = Some(split::Link::parse(body)?);
        } else if signature[0].is_ascii_lowercase() {
            return None;
        }
        at += 8 + size;
    }
    (at == end).then_some(IndexFile {
        bytes,
        version,
        count,
        link,
    })
}

/// The entry at `at` and its length with padding; `None` if cut short.
fn entry_at(bytes: &[u8], at: usize, version: u32) -> Option<(Entry<'_>, usize)> {
    let flags = u16::from_be_bytes(bytes.get(at + FLAGS_AT..at + 62)?.try_into().ok()?);
    let extended = version == 3 && flags & EXTENDED != 0;
    let path_at = at + 62 + if extended { 2 } else { 0 };
    let name_length = usize::from(flags & 0xfff);
    let path_length = if name_length < 0xfff {
        name_length
    } else {
        memchr::memchr(0, bytes.get(path_at..)?)?
    };
    let unpadded = path_at - at + path_length;
    let length = unpadded + (8 - unpadded % 8);
    let entry = bytes.get(at..at + length)?;
    Some((
        Entry {
            path: &bytes[path_at..path_at + path_length],
            stage: (flags >> 12) & 3,
            bytes: Cow::Borrowed(entry),
        },
        length,
    ))
}

#[cfg(test)]
mod tests;
