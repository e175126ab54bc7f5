//! Steward's commits update the git index for the paths they commit, so
//! they show as committed. libgit2 reads the whole index into a map and
//! writes it back with a collision-detecting SHA-1, twice the work of the
//! index's size: at 100,000 closed goals (a 10 MB index) most of a
//! commit's time. This patches the index file instead: it walks the
//! entries as bytes, replaces, inserts or removes the few that changed,
//! copies the rest as they are, and writes the file once through git's
//! lock file (`index.lock`), with one SHA-1 (hardware, where the CPU has
//! it). Index versions 2 and 3 only, and nothing git calls mandatory in it
//! (a split index): anything else is left to libgit2 (`None`). Optional
//! extensions are dropped, as git may drop them: the cache of trees (git
//! rebuilds what it needs), the untracked cache, offsets into the entries.

use std::io::Write;
use std::path::Path;

use sha1::{Digest, Sha1};

/// One path's new entry (`None`: the path leaves the index).
pub struct Change<'a> {
    pub path: &'a str,
    pub entry: Option<Vec<u8>>,
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
    // One to eight NULs: the entry's length a multiple of eight.
    let padding = 8 - (entry.len() % 8);
    entry.extend(std::iter::repeat_n(0u8, padding));
    entry
}

/// An entry of the index as it is: its path and its bytes.
struct Existing<'a> {
    path: &'a [u8],
    stage: u16,
    bytes: &'a [u8],
}

/// Applies `changes` to the index at `git_dir/index`. `Some(Ok(()))` when
/// written; `Some(Err(locked))` when another git process holds the lock;
/// `None` when this index is one libgit2 must handle.
pub fn patch(git_dir: &Path, changes: &mut [Change<'_>]) -> Option<std::io::Result<()>> {
    let path = git_dir.join("index");
    let bytes = std::fs::read(&path).ok()?;
    let (version, entries, _extensions_end) = parse(&bytes)?;
    changes.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    // A path with a conflict (stages 1 to 3) is git's to sort out.
    if entries
        .iter()
        .any(|e| e.stage != 0 && changes.iter().any(|c| c.path.as_bytes() == e.path))
    {
        return None;
    }
    // The new file as pieces: runs of unchanged entries are slices of the
    // old file, copied by the kernel, never into a buffer of their own.
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(2 * changes.len() + 3);
    let mut count: u32 = 0;
    let mut run_start: Option<usize> = None;
    let mut run_end = 0;
    let mut pending = changes.iter().peekable();
    let base = bytes.as_ptr() as usize;
    let offset = |slice: &[u8]| slice.as_ptr() as usize - base;
    for existing in &entries {
        while let Some(change) = pending.peek() {
            if change.path.as_bytes() >= existing.path {
                break;
            }
            flush(&bytes, &mut pieces, &mut run_start, run_end);
            if let Some(entry) = &change.entry {
                pieces.push(entry);
                count += 1;
            }
            pending.next();
        }
        if pending
            .peek()
            .is_some_and(|c| c.path.as_bytes() == existing.path)
        {
            let change = pending.next().expect("peeked");
            flush(&bytes, &mut pieces, &mut run_start, run_end);
            if let Some(entry) = &change.entry {
                pieces.push(entry);
                count += 1;
            }
            continue;
        }
        let at = offset(existing.bytes);
        if run_start.is_none() {
            run_start = Some(at);
        }
        run_end = at + existing.bytes.len();
        count += 1;
    }
    flush(&bytes, &mut pieces, &mut run_start, run_end);
    for change in pending {
        if let Some(entry) = &change.entry {
            pieces.push(entry);
            count += 1;
        }
    }
    let mut header = Vec::with_capacity(12);
    header.extend_from_slice(b"DIRC");
    header.extend_from_slice(&version.to_be_bytes());
    header.extend_from_slice(&count.to_be_bytes());
    let mut hasher = Sha1::new();
    hasher.update(&header);
    for piece in &pieces {
        hasher.update(piece);
    }
    let digest = hasher.finalize();
    let mut all: Vec<&[u8]> = Vec::with_capacity(pieces.len() + 2);
    all.push(&header);
    all.extend(pieces);
    all.push(&digest);
    Some(write_locked(git_dir, &all))
}

/// Ends a run of unchanged entries (`start..end` of the old file).
fn flush<'a>(bytes: &'a [u8], pieces: &mut Vec<&'a [u8]>, start: &mut Option<usize>, end: usize) {
    if let Some(start) = start.take() {
        pieces.push(&bytes[start..end]);
    }
}

/// Writes the index through `index.lock`, as git does: created
/// exclusively (another holder means locked), then renamed over.
fn write_locked(git_dir: &Path, pieces: &[&[u8]]) -> std::io::Result<()> {
    let lock = git_dir.join("index.lock");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)?;
    let written = pieces
        .iter()
        .try_for_each(|piece| file.write_all(piece))
        .and_then(|()| file.flush());
    drop(file);
    match written.and_then(|()| std::fs::rename(&lock, git_dir.join("index"))) {
        Ok(()) => Ok(()),
        Err(err) => {
            let _ = std::fs::remove_file(&lock);
            Err(err)
        }
    }
}

/// The version, the entries, and where the extensions end; `None` for an
/// index this does not handle.
fn parse(bytes: &[u8]) -> Option<(u32, Vec<Existing<'_>>, usize)> {
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
    let mut entries = Vec::with_capacity(count);
    let mut at = 12;
    for _ in 0..count {
        let flags = u16::from_be_bytes(bytes.get(at + 60..at + 62)?.try_into().ok()?);
        let extended = version == 3 && flags & 0x4000 != 0;
        let path_at = at + 62 + if extended { 2 } else { 0 };
        let name_length = usize::from(flags & 0xfff);
        let path_length = if name_length < 0xfff {
            name_length
        } else {
            bytes.get(path_at..)?.iter().position(|&b| b == 0)?
        };
        let unpadded = path_at - at + path_length;
        let length = unpadded + (8 - unpadded % 8);
        let entry = bytes.get(at..at + length)?;
        entries.push(Existing {
            path: &bytes[path_at..path_at + path_length],
            stage: (flags >> 12) & 3,
            bytes: entry,
        });
        at += length;
    }
    // Extensions: a mandatory one (lowercase signature) is not ours to drop.
    let end = bytes.len().checked_sub(20)?;
    while at < end {
        let signature = bytes.get(at..at + 4)?;
        if signature[0].is_ascii_lowercase() {
            return None;
        }
        let size = word(at + 4)? as usize;
        at = at.checked_add(8 + size)?;
    }
    (at == end).then_some((version, entries, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    #[test]
    fn a_patched_index_is_what_git_add_would_write() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        for name in ["a.md", "b/c.md", "b/d.md", "z.md"] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, name).unwrap();
        }
        git(root, &["add", "-A"]);
        // b/c.md changes, b/e.md is new, z.md goes.
        std::fs::write(root.join("b/c.md"), "changed").unwrap();
        std::fs::write(root.join("b/e.md"), "new").unwrap();
        std::fs::remove_file(root.join("z.md")).unwrap();
        let entry = |name: &str| {
            use std::os::unix::fs::MetadataExt;
            let path = root.join(name);
            let metadata = std::fs::metadata(&path).unwrap();
            let id = git(root, &["hash-object", "-w", name]);
            let id: Vec<u8> = (0..20)
                .map(|i| u8::from_str_radix(&id.trim()[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            entry_bytes(
                (metadata.ctime() as u32, metadata.ctime_nsec() as u32),
                (metadata.mtime() as u32, metadata.mtime_nsec() as u32),
                metadata.dev() as u32,
                metadata.ino() as u32,
                0o100644,
                metadata.uid(),
                metadata.gid(),
                metadata.len() as u32,
                &id,
                name,
            )
        };
        let mut changes = vec![
            Change {
                path: "z.md",
                entry: None,
            },
            Change {
                path: "b/e.md",
                entry: Some(entry("b/e.md")),
            },
            Change {
                path: "b/c.md",
                entry: Some(entry("b/c.md")),
            },
        ];
        patch(&root.join(".git"), &mut changes).unwrap().unwrap();
        // git reads it, verifies it, and sees the work tree as staged.
        git(root, &["fsck", "--no-dangling", "--cache"]);
        assert_eq!(git(root, &["diff", "--name-only"]), "");
        assert_eq!(git(root, &["ls-files"]), "a.md\nb/c.md\nb/d.md\nb/e.md\n");
        assert_eq!(
            git(root, &["status", "--porcelain"]),
            "A  a.md\nA  b/c.md\nA  b/d.md\nA  b/e.md\n"
        );
    }

    #[test]
    fn an_index_it_cannot_handle_is_left_to_libgit2() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.md"), "a").unwrap();
        git(root, &["-c", "index.version=4", "add", "a.md"]);
        assert!(patch(&root.join(".git"), &mut []).is_none(), "version 4");
    }
}
