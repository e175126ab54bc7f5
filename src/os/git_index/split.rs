//! The split index (`core.splitIndex`, git's `Documentation/gitformat-index`):
//! the entries live in a shared index, `sharedindex.<its SHA-1>`, written
//! now and then; `index` lists only what changed since: the shared entries
//! it replaces (in order, their paths left out), those it deletes (two
//! bitmaps in its `link` extension), and the entries it adds. A commit
//! then rewrites a file the size of what changed, not of every goal ever
//! closed. Past `splitIndex.maxPercentChange`, a new shared index is
//! written, as git does.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::SystemTime;

use super::mapped::Mapped;
use super::{
    Change, EXTENDED, Entry, FLAGS_AT, IndexFile, IndexLock, Pieces, Settings, ewah, header, pad,
    parse, trailer, whole_index,
};

/// A split index's `link` extension: the shared index it builds on, and
/// the positions there it deletes and replaces.
pub struct Link {
    base: [u8; 20],
    deleted: Vec<usize>,
    replaced: Vec<usize>,
}

impl Link {
    pub fn parse(body: &[u8]) -> Option<Link> {
        let base: [u8; 20] = body.get(..20)?.try_into().ok()?;
        let rest = &body[20..];
        if rest.is_empty() {
            return Some(Link {
                base,
                deleted: Vec::new(),
                replaced: Vec::new(),
            });
        }
        let (deleted, used) = ewah::decode(rest)?;
        let (replaced, rest_used) = ewah::decode(&rest[used..])?;
        (used + rest_used == rest.len()).then_some(Link {
            base,
            deleted,
            replaced,
        })
    }

    fn extension(&self) -> Vec<u8> {
        let mut body = self.base.to_vec();
        body.extend(ewah::encode(&self.deleted));
        body.extend(ewah::encode(&self.replaced));
        let mut extension = b"link".to_vec();
        extension.extend_from_slice(&(body.len() as u32).to_be_bytes());
        extension.extend(body);
        extension
    }
}

/// The bytes of the shared index `link` names, checked against its name.
pub fn read_shared(git_dir: &Path, link: &Link) -> std::io::Result<Mapped> {
    let path = git_dir.join(format!("sharedindex.{}", hex(&link.base)));
    let bytes = Mapped::open(&path).map_err(|err| {
        std::io::Error::new(
            err.kind(),
            format!(
                "{}: the split git index needs it: {err} (`rm .git/index && git reset` rebuilds the index from HEAD, unstaging what was staged)",
                path.display()
            ),
        )
    })?;
    if bytes.len() < 20 || bytes[bytes.len() - 20..] != link.base {
        return Err(corrupt(&path));
    }
    Ok(bytes)
}

/// What a split index says on top of its shared index.
struct Layer<'a> {
    replaced: BTreeMap<usize, Cow<'a, [u8]>>,
    deleted: BTreeSet<usize>,
    added: Vec<Entry<'a>>,
}

impl<'a> Layer<'a> {
    fn read(
        index: &IndexFile<'a>,
        link: &Link,
        base_count: usize,
        git_dir: &Path,
    ) -> std::io::Result<Layer<'a>> {
        let entries: Vec<Entry<'a>> = index.entries().collect();
        let count = link.replaced.len();
        let sound = count <= entries.len()
            && link
                .replaced
                .iter()
                .chain(&link.deleted)
                .all(|&p| p < base_count)
            && entries[..count].iter().all(|e| e.path.is_empty())
            && entries[count..].iter().all(|e| !e.path.is_empty());
        let deleted: BTreeSet<usize> = link.deleted.iter().copied().collect();
        if !sound || link.replaced.iter().any(|p| deleted.contains(p)) {
            return Err(corrupt(&git_dir.join("index")));
        }
        let mut entries = entries.into_iter();
        Ok(Layer {
            replaced: link
                .replaced
                .iter()
                .copied()
                .zip(entries.by_ref().take(count).map(|e| e.bytes))
                .collect(),
            deleted,
            added: entries.collect(),
        })
    }

    /// Records `change`, whose path the shared index holds at `positions`
    /// (every stage): an entry there is replaced or deleted, else the
    /// change is added (or its addition dropped).
    fn apply(&mut self, change: &'a Change<'_>, positions: &[(usize, u16)], version: u32) {
        let path = change.path.as_bytes();
        let mut replaced = false;
        for &(position, stage) in positions {
            match &change.entry {
                Some(entry) if stage == 0 => {
                    self.replaced
                        .insert(position, Cow::Owned(without_path(entry, version)));
                    self.deleted.remove(&position);
                    replaced = true;
                }
                _ => {
                    self.replaced.remove(&position);
                    self.deleted.insert(position);
                }
            }
        }
        self.added.retain(|e| e.path != path);
        if let (false, Some(entry)) = (replaced, &change.entry) {
            let at = self.added.partition_point(|e| e.path < path);
            self.added.insert(
                at,
                Entry {
                    path,
                    stage: 0,
                    bytes: Cow::Borrowed(entry),
                },
            );
        }
    }

    /// The whole index this layer and `base` make, in order.
    fn materialize<'b>(&self, base: &[Entry<'b>], version: u32) -> Vec<Entry<'b>>
    where
        'a: 'b,
    {
        let mut shared = Vec::with_capacity(base.len());
        for (position, entry) in base.iter().enumerate() {
            if self.deleted.contains(&position) {
                continue;
            }
            match self.replaced.get(&position) {
                Some(replacement) => shared.push(Entry {
                    path: entry.path,
                    stage: entry.stage,
                    bytes: Cow::Owned(with_path(replacement, entry.path, version)),
                }),
                None => shared.push(entry.clone()),
            }
        }
        // The added entries go in order; one of a path and stage the shared
        // index has takes its place, as git reads it.
        let mut out = Vec::with_capacity(shared.len() + self.added.len());
        let mut added = self.added.iter().peekable();
        for entry in shared {
            while let Some(next) = added.next_if(|a| (a.path, a.stage) < (entry.path, entry.stage))
            {
                out.push(next.clone());
            }
            if added
                .peek()
                .is_some_and(|a| (a.path, a.stage) == (entry.path, entry.stage))
            {
                continue;
            }
            out.push(entry);
        }
        out.extend(added.cloned());
        out
    }
}

/// The whole index a split `index` stands for, from its shared index.
pub fn materialize<'a>(
    git_dir: &Path,
    shared: &IndexFile<'a>,
    index: &IndexFile<'a>,
    link: &Link,
) -> std::io::Result<Vec<Entry<'a>>> {
    let base: Vec<Entry<'a>> = shared.entries().collect();
    let layer = Layer::read(index, link, base.len(), git_dir)?;
    Ok(layer.materialize(&base, index.version))
}

/// Applies `changes` to a split index: rewrites the small index, or a new
/// shared index when the small one would list too much.
pub fn update(
    lock: IndexLock,
    git_dir: &Path,
    index: &IndexFile<'_>,
    link: &Link,
    changes: &[Change<'_>],
    settings: &Settings,
) -> std::io::Result<()> {
    let shared_bytes = read_shared(git_dir, link)?;
    let shared = parse_shared(git_dir, &shared_bytes, link)?;
    let mut layer = Layer::read(index, link, shared.count, git_dir)?;
    for (change, positions) in changes.iter().zip(positions(&shared, changes)) {
        layer.apply(change, &positions, index.version);
    }
    let listed = layer.replaced.len() + layer.added.len();
    let total = shared.count - layer.deleted.len() + layer.added.len();
    let percent = settings.max_percent_change.min(100) as usize;
    if percent == 0 || (percent < 100 && listed * 100 > total * percent) {
        let base: Vec<Entry<'_>> = shared.entries().collect();
        let mut out = Pieces::new(&shared_bytes);
        for entry in layer.materialize(&base, index.version) {
            out.push(entry);
        }
        let version = index.version.max(shared.version);
        return create(lock, git_dir, version, &out, settings);
    }
    let link = Link {
        base: link.base,
        deleted: layer.deleted.iter().copied().collect(),
        replaced: layer.replaced.keys().copied().collect(),
    };
    let entries = layer
        .replaced
        .values()
        .map(|bytes| &bytes[..])
        .chain(layer.added.iter().map(|entry| &entry.bytes[..]));
    write_split(lock, index.version, entries, &link, settings)?;
    // In use: git keeps a shared index fresh so that expiry spares it.
    let shared = git_dir.join(format!("sharedindex.{}", hex(&link.base)));
    if let Ok(Some(file)) = crate::os::safe_file::open_regular(&shared) {
        let _ = file.set_modified(SystemTime::now());
    }
    Ok(())
}

/// Where the shared index holds each of `changes`' paths (sorted), at
/// which stages: one walk of its entries.
fn positions(shared: &IndexFile<'_>, changes: &[Change<'_>]) -> Vec<Vec<(usize, u16)>> {
    let mut found = vec![Vec::new(); changes.len()];
    let mut next = 0;
    for (position, entry) in shared.entries().enumerate() {
        while next < changes.len() && changes[next].path.as_bytes() < entry.path {
            next += 1;
        }
        if next == changes.len() {
            break;
        }
        if changes[next].path.as_bytes() == entry.path {
            found[next].push((position, entry.stage));
        }
    }
    found
}

/// Splits the index: `entries` become a new shared index, and `index` an
/// empty layer on top of it.
pub fn create(
    lock: IndexLock,
    git_dir: &Path,
    version: u32,
    entries: &Pieces<'_>,
    settings: &Settings,
) -> std::io::Result<()> {
    // A shared index is named by its hash, whatever `index.skipHash` says.
    let mut hash = [0; 20];
    whole_index(version, entries, false, |pieces, trailer| {
        hash = *trailer;
        // A name no one can foresee, created anew: never written through
        // a link someone put in the git directory.
        let temporary = git_dir.join(format!(
            "sharedindex_steward_{}",
            uuid::Uuid::new_v4().simple()
        ));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temporary)
            .and_then(|mut out| {
                use std::io::Write;
                pieces.iter().try_for_each(|piece| out.write_all(piece))
            })
            .and_then(|()| {
                std::fs::rename(
                    &temporary,
                    git_dir.join(format!("sharedindex.{}", hex(trailer))),
                )
            });
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    })?;
    let name = format!("sharedindex.{}", hex(&hash));
    let link = Link {
        base: hash,
        deleted: Vec::new(),
        replaced: Vec::new(),
    };
    write_split(lock, version, std::iter::empty(), &link, settings)?;
    remove_expired(git_dir, &name, settings);
    Ok(())
}

/// Writes the small index of a split one: its own `entries` (the
/// replacements, then the additions), the `link` extension, the trailer.
fn write_split<'e>(
    lock: IndexLock,
    version: u32,
    entries: impl Iterator<Item = &'e [u8]>,
    link: &Link,
    settings: &Settings,
) -> std::io::Result<()> {
    let entries: Vec<&[u8]> = entries.collect();
    let header = header(version, entries.len());
    let extension = link.extension();
    let mut pieces: Vec<&[u8]> = vec![&header];
    pieces.extend(entries);
    pieces.push(&extension);
    let trailer = trailer(&pieces, settings.skip_hash);
    pieces.push(&trailer);
    lock.commit(&pieces)
}

/// Removes the shared indexes other than `current` that nothing has
/// used for `splitIndex.sharedIndexExpire` (two weeks), as git does when
/// it writes one.
fn remove_expired(git_dir: &Path, current: &str, settings: &Settings) {
    let Some(expiry) = settings.shared_index_expiry else {
        return;
    };
    let Ok(listing) = std::fs::read_dir(git_dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in listing.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_shared = name
            .strip_prefix("sharedindex.")
            .is_some_and(|hash| hash.len() == 40 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
        let expired = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|modified| now.duration_since(modified).is_ok_and(|age| age > expiry));
        if is_shared && name != current && expired {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The shared index in `bytes`, which must be whole and not split itself.
pub fn parse_shared<'a>(
    git_dir: &Path,
    bytes: &'a [u8],
    link: &Link,
) -> std::io::Result<IndexFile<'a>> {
    parse(bytes)
        .filter(|shared| shared.link.is_none())
        .ok_or_else(|| corrupt(&git_dir.join(format!("sharedindex.{}", hex(&link.base)))))
}

/// A full entry as a replacement is stored: the same, with no path.
fn without_path(entry: &[u8], version: u32) -> Vec<u8> {
    let (fixed, flags) = fixed_part(entry, version);
    let mut out = entry[..fixed].to_vec();
    out[FLAGS_AT..FLAGS_AT + 2].copy_from_slice(&(flags & !0xfff).to_be_bytes());
    pad(&mut out);
    out
}

/// A replacement with the path of the entry it replaces.
fn with_path(replacement: &[u8], path: &[u8], version: u32) -> Vec<u8> {
    let (fixed, flags) = fixed_part(replacement, version);
    let mut out = replacement[..fixed].to_vec();
    let flags = flags & !0xfff | path.len().min(0xfff) as u16;
    out[FLAGS_AT..FLAGS_AT + 2].copy_from_slice(&flags.to_be_bytes());
    out.extend_from_slice(path);
    pad(&mut out);
    out
}

/// How long an entry's part before its path is, and its flags.
fn fixed_part(entry: &[u8], version: u32) -> (usize, u16) {
    let flags = u16::from_be_bytes([entry[FLAGS_AT], entry[FLAGS_AT + 1]]);
    let extended = version == 3 && flags & EXTENDED != 0;
    (FLAGS_AT + 2 + if extended { 2 } else { 0 }, flags)
}

fn corrupt(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: the split git index does not read as git writes it (`rm .git/index && git reset` rebuilds the index from HEAD, unstaging what was staged)",
            path.display()
        ),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
