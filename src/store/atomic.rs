//! Atomic file replacement: a reader or a crash sees the old file or the new
//! one, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::os::safe_file;

/// Prefix of temporary files; scans skip names starting with a dot.
const TEMP_PREFIX: &str = ".steward-tmp-";

/// The name of a directory's [`Spare`]; scans skip it, as every name
/// starting with a dot, and `steward sync` does not commit it.
pub const SPARE: &str = ".steward-spare";

/// Writes `contents` to `path` through a temporary file in the same
/// directory: write, fsync, keep the old file's mode, rename, fsync the
/// directory.
pub fn write(path: &Path, contents: &[u8]) -> Result<()> {
    replace(path, contents)?;
    sync_dir(parent(path))
}

/// [`write()`] without the directory's fsync, for a caller that syncs the
/// directory later (once for many files) or not at all (a file derived from
/// others). The new bytes are on disk before the rename, so the file is
/// never empty or torn; until the directory is synced, a crash may bring
/// back the previous version.
pub fn replace(path: &Path, contents: &[u8]) -> Result<()> {
    replace_unless_changed(path, contents, None).map(drop)
}

/// [`replace`] of a file read when its size and modification time were
/// `read`: just before the rename the file is `stat`ed again, and when it
/// changed since (edited while the command ran) or is gone, nothing is
/// replaced: `Ok(None)`. Otherwise the size and modification time of the
/// file written. `read` of `None`: no comparison.
pub fn replace_unless_changed(
    path: &Path,
    contents: &[u8],
    read: Option<(u64, SystemTime)>,
) -> Result<Option<(u64, SystemTime)>> {
    stage(path, contents, true)?.replace_unless_changed(read)
}

/// New bytes for a file, written to a temporary file beside it and not yet
/// in its place: [`Staged::replace_unless_changed`] puts them there.
/// Dropped before that, the temporary file is removed.
pub struct Staged {
    path: PathBuf,
    bytes: Option<StagedBytes>,
    written: (u64, SystemTime),
}

/// Where staged bytes wait.
enum StagedBytes {
    /// A temporary file, renamed over the file.
    Temp(PathBuf),
    /// The directory's spare, exchanged with the file.
    Spare(Spare),
}

/// Writes `contents` for `path` to a temporary file in `path`'s directory,
/// with the mode of the file it will replace; waits for the disk when
/// `sync` is true. A caller that stages many files without waiting waits
/// once for all of them with [`sync_filesystem`] before placing any.
pub fn stage(path: &Path, contents: &[u8], sync: bool) -> Result<Staged> {
    let dir = parent(path);
    fs::create_dir_all(dir).map_err(|err| Error::io(dir, "cannot create directory", err))?;
    let mode = fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let temp = temp_path(dir);
    match write_temp(&temp, contents, mode, sync) {
        Ok(written) => Ok(Staged {
            path: path.to_path_buf(),
            bytes: Some(StagedBytes::Temp(temp)),
            written,
        }),
        Err(err) => {
            let _ = fs::remove_file(&temp);
            Err(err)
        }
    }
}

/// [`stage`] of one file, synced, in its directory's [`Spare`] when it
/// can be: placing it then makes no file and frees none. Only one file of
/// a directory can be staged this way at a time (the directory stays
/// locked until it is placed or dropped): a caller staging many uses
/// [`stage`].
pub fn stage_one(path: &Path, contents: &[u8]) -> Result<Staged> {
    let spare = regular_file(path).and_then(|target| {
        let mode = target.permissions().mode() & 0o7777;
        Spare::holding(parent(path), &target, contents, Some(mode), true)
    });
    match spare {
        Some(spare) => Ok(Staged {
            path: path.to_path_buf(),
            written: spare.written,
            bytes: Some(StagedBytes::Spare(spare)),
        }),
        None => stage(path, contents, true),
    }
}

/// What `lstat` says of `path` when it is a regular file: one a spare can
/// be exchanged with.
fn regular_file(path: &Path) -> Option<fs::Metadata> {
    path.symlink_metadata()
        .ok()
        .filter(|m| m.file_type().is_file())
}

impl Staged {
    /// Renames the staged bytes over the file unless it changed since it
    /// was `read` (see [`replace_unless_changed`]); the size and
    /// modification time of the file written.
    pub fn replace_unless_changed(
        mut self,
        read: Option<(u64, SystemTime)>,
    ) -> Result<Option<(u64, SystemTime)>> {
        if changed_since(&self.path, read) {
            return Ok(None);
        }
        let placed = match self.bytes.take().expect("a staged file is placed once") {
            StagedBytes::Temp(temp) => rename_over(&temp, &self.path).inspect_err(|_| {
                let _ = fs::remove_file(&temp);
            }),
            StagedBytes::Spare(spare) => spare.place(&self.path),
        };
        placed.map_err(|err| Error::io(&self.path, "cannot replace file", err))?;
        Ok(Some(self.written))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(StagedBytes::Temp(temp)) = &self.bytes {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Waits until everything written to the file system holding `dir` is on
/// disk (`syncfs`; on macOS `sync` and `F_FULLFSYNC`): one wait for many
/// staged files instead of one each.
/// It also waits for other programs' unwritten data on that file system.
pub fn sync_filesystem(dir: &Path) -> Result<()> {
    let handle = File::open(dir).map_err(|err| Error::io(dir, "cannot open directory", err))?;
    crate::os::platform::sync_filesystem(&handle)
        .map_err(|err| Error::io(dir, "cannot sync the file system", err))
}

/// Whether the file at `path` is no longer what was read when its size and
/// modification time were `read` (changed, or gone). `None`: not read from
/// disk, nothing to compare.
pub fn changed_since(path: &Path, read: Option<(u64, SystemTime)>) -> bool {
    read.is_some() && read != stamp(path)
}

/// The size and modification time of the file at `path`, links followed.
pub fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let metadata = fs::metadata(path).ok()?;
    Some((metadata.len(), metadata.modified().ok()?))
}

/// Replaces `path` through a temporary file like [`write()`], without waiting
/// for the disk: for state a crash may lose but must never tear (what
/// `undo` can take back). Readers see the old file or the new one.
pub fn write_unsynced(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = parent(path);
    fs::create_dir_all(dir).map_err(|err| Error::io(dir, "cannot create directory", err))?;
    let temp = temp_path(dir);
    let result = write_temp(&temp, contents, None, false).and_then(|_| {
        rename_over(&temp, path).map_err(|err| Error::io(path, "cannot replace file", err))
    });
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// [`write_unsynced`] for a file readers take no lock to read (a seal),
/// without making a file or freeing one: the bytes go through the
/// directory's [`Spare`]. Where there is no regular file at `path` to
/// exchange with or the spare cannot be used, the file is replaced as
/// [`write_unsynced`] does.
pub fn exchange_unsynced(path: &Path, contents: &[u8]) -> Result<()> {
    if let Some(target) = regular_file(path)
        && let Some(spare) = Spare::holding(parent(path), &target, contents, None, false)
        && spare.place(path).is_ok()
    {
        return Ok(());
    }
    write_unsynced(path, contents)
}

/// [`stage`] of a file in a directory steward does not own (the mirror,
/// in the project's root), through the spare of `spare_dir`: once placed,
/// no file was made beside it and none freed. Where the two cannot be
/// exchanged (no regular file at `path`, another file system, the spare in
/// use), the bytes go to a temporary file beside `path`, as [`stage`] puts
/// them.
///
/// `path`'s directory is synced first: the spare's bytes were `path`'s
/// until the last exchange, and were that not on disk, a crash while they
/// are written over would bring `path` back torn.
pub fn stage_from_spare(path: &Path, spare_dir: &Path, contents: &[u8]) -> Result<Staged> {
    if let Some(target) = regular_file(path)
        && sync_dir(parent(path)).is_ok()
        && let Some(spare) = Spare::holding(
            spare_dir,
            &target,
            contents,
            Some(target.permissions().mode() & 0o7777),
            true,
        )
    {
        return Ok(Staged {
            path: path.to_path_buf(),
            written: spare.written,
            bytes: Some(StagedBytes::Spare(spare)),
        });
    }
    stage(path, contents, true)
}

/// Moves a file readers take no lock to read (a seal) from `from` to `to`,
/// a name nothing holds yet, with new `contents`, without waiting for the
/// disk and without making a file or freeing one: the bytes go from the
/// spare of `from`'s directory to `to`, then the file at `from` becomes
/// that spare. Readers see the new file before the old one goes, as when
/// the new one is written first. Where that cannot be done, `to` is
/// written as [`exchange_unsynced`] does and `from` removed.
pub fn move_unsynced(from: &Path, to: &Path, contents: &[u8]) -> Result<()> {
    let dir = parent(to);
    fs::create_dir_all(dir).map_err(|err| Error::io(dir, "cannot create directory", err))?;
    if let Some(old) = regular_file(from)
        && to.symlink_metadata().is_err()
        && let Some(spare) = Spare::holding(parent(from), &old, contents, None, false)
        && rename_noreplace(&spare.path, to).is_ok()
    {
        // The spare's name is free while its directory stays locked.
        if fs::rename(from, &spare.path).is_ok() {
            return Ok(());
        }
    } else {
        exchange_unsynced(to, contents)?;
    }
    match fs::remove_file(from) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(Error::io(from, "cannot remove", err)),
    }
}

/// Renames `from` to `to` unless something is at `to` (`renameat2` with
/// `RENAME_NOREPLACE`; on macOS `renamex_np` with `RENAME_EXCL`).
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    crate::os::platform::rename(from, to, crate::os::Rename::NoReplace)
}

/// The spare file of a directory, holding a file's new bytes: written in
/// place, then exchanged with the file they replace (`renameat2` with
/// `RENAME_EXCHANGE`), so that a reader sees the old file or the new one,
/// as with a rename, and the old bytes become the spare. No file is made
/// and none freed: on a file system that discards freed blocks at once, a
/// rename over a file waits for the disk (after a `sync`, 277 µs against
/// 20 µs for an exchange here). The directory is locked (`flock`) while
/// its spare is in use, so two writers never share it. A spare that is a
/// link, anything but a regular file, a file with another name or the very
/// file it is to replace (names a crash left on one file, where the link
/// count was not put right) is removed, never written through.
struct Spare {
    path: PathBuf,
    written: (u64, SystemTime),
    /// The directory, locked.
    _lock: File,
}

impl Spare {
    /// The spare of `dir` holding `contents` (with `mode`; on disk when
    /// `sync`) for the file `target` describes, or `None` when it cannot be
    /// used.
    fn holding(
        dir: &Path,
        target: &fs::Metadata,
        contents: &[u8],
        mode: Option<u32>,
        sync: bool,
    ) -> Option<Spare> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let lock = File::open(dir).ok()?;
        // A spare on another file system can be neither exchanged with
        // `target` nor renamed over it.
        if lock.metadata().ok()?.dev() != target.dev() {
            return None;
        }
        // Never waited for: a spare in use (by another process, or by
        // this one through another descriptor) means a temporary file.
        // SAFETY: `flock` only takes the descriptor, which `lock` keeps open.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return None;
        }
        let path = dir.join(SPARE);
        let Ok(Some((file, metadata))) = safe_file::open_to_overwrite(&path, true) else {
            let _ = fs::remove_file(&path);
            return None;
        };
        if (metadata.dev(), metadata.ino()) == (target.dev(), target.ino()) {
            let _ = fs::remove_file(&path);
            return None;
        }
        let fill = || -> std::io::Result<(u64, SystemTime)> {
            if let Some(mode) = mode
                && metadata.permissions().mode() & 0o7777 != mode
            {
                file.set_permissions(fs::Permissions::from_mode(mode))?;
            }
            safe_file::write_over(&file, metadata.len(), contents)?;
            if sync {
                file.sync_all()?;
            }
            let written = file.metadata()?;
            Ok((written.len(), written.modified()?))
        };
        let written = fill().ok()?;
        Some(Spare {
            path,
            written,
            _lock: lock,
        })
    }

    /// Puts the spare's bytes at `target`: exchanged with it, or, on a file
    /// system that cannot exchange, renamed over it as a temporary file
    /// would be (the next write makes a new spare).
    fn place(self, target: &Path) -> std::io::Result<()> {
        if crate::os::platform::rename(&self.path, target, crate::os::Rename::Exchange).is_ok() {
            return Ok(());
        }
        fs::rename(&self.path, target)
    }
}

/// Writes a record that carries its own MAC (an undo record, a cache) over
/// the last one at `path` in place, without waiting for the disk: a torn
/// one (a crash, a reader at the wrong moment) fails its MAC and counts as
/// none. No new file, so no old one freed, which on a file system that
/// discards freed blocks at once is a wait for the disk. A link, anything
/// but a regular file, a file with another name or none at all is replaced
/// as [`write_unsynced`] does, never written through.
pub fn write_over_unsynced(path: &Path, contents: &[u8]) -> Result<()> {
    match safe_file::overwrite(path, contents) {
        Ok(true) => Ok(()),
        Ok(false) | Err(_) => write_unsynced(path, contents),
    }
}

/// Removes `path` durably.
pub fn remove(path: &Path) -> Result<()> {
    fs::remove_file(path).map_err(|err| Error::io(path, "cannot remove", err))?;
    sync_dir(parent(path))
}

/// Renames `from` to `to` (creating `to`'s directory when missing); the
/// caller syncs both directories.
pub fn move_file(from: &Path, to: &Path) -> Result<()> {
    let dir = parent(to);
    fs::create_dir_all(dir).map_err(|err| Error::io(dir, "cannot create directory", err))?;
    fs::rename(from, to)
        .map_err(|err| Error::io(from, &format!("cannot move to {}", to.display()), err))
}

/// Writes the temporary file; its size and modification time once written.
fn write_temp(
    temp: &Path,
    contents: &[u8],
    mode: Option<u32>,
    sync: bool,
) -> Result<(u64, SystemTime)> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .mode(mode.unwrap_or(0o644));
    let mut file = options
        .open(temp)
        .map_err(|err| Error::io(temp, "cannot create temporary file", err))?;
    if let Some(mode) = mode {
        // The umask applied at creation; restore the old file's exact mode
        // when it took something away. Asking costs an `fstat`; changing
        // it when it need not change, a journal update (~60 µs here).
        let created = file
            .metadata()
            .map_err(|err| Error::io(temp, "cannot stat", err))?
            .permissions()
            .mode()
            & 0o7777;
        if created != mode {
            file.set_permissions(fs::Permissions::from_mode(mode))
                .map_err(|err| Error::io(temp, "cannot set mode", err))?;
        }
    }
    file.write_all(contents)
        .map_err(|err| Error::io(temp, "cannot write", err))?;
    if sync {
        file.sync_all()
            .map_err(|err| Error::io(temp, "cannot sync", err))?;
    }
    let metadata = file
        .metadata()
        .map_err(|err| Error::io(temp, "cannot stat", err))?;
    let modified = metadata
        .modified()
        .map_err(|err| Error::io(temp, "cannot stat", err))?;
    Ok((metadata.len(), modified))
}

/// Prefix of what was found where a file of steward's goes, and moved
/// aside for it (a directory an agent made there); scans skip it.
pub const IN_THE_WAY: &str = ".steward-in-the-way-";

/// Renames `temp` over `path`; a directory found at `path` (never a
/// link) is first moved aside, beside it, under [`IN_THE_WAY`], kept for
/// a person to look at: one file of steward's that something took the
/// place of does not stop every later write.
fn rename_over(temp: &Path, path: &Path) -> std::io::Result<()> {
    match fs::rename(temp, path) {
        Err(err) => match move_aside_directory(path) {
            Ok(true) => fs::rename(temp, path),
            _ => Err(err),
        },
        ok => ok,
    }
}

/// Moves a directory found at `path` (never a link) aside, beside it,
/// under [`IN_THE_WAY`]; whether there was one.
pub fn move_aside_directory(path: &Path) -> std::io::Result<bool> {
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Ok(false);
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let aside = path.with_file_name(format!("{IN_THE_WAY}{name}-{}", &nonce[..8]));
    fs::rename(path, aside)?;
    Ok(true)
}

fn temp_path(dir: &Path) -> PathBuf {
    dir.join(format!(
        "{TEMP_PREFIX}{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ))
}

/// The temporary files in `dir` left by a write whose process is gone.
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else {
                return false;
            };
            let pid = rest.split('-').next().and_then(|p| p.parse().ok());
            !pid.is_some_and(crate::os::process::is_alive)
        })
        .map(|entry| entry.path())
        .collect()
}

/// The directory holding `path` (`.` for a bare name).
pub fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Makes a rename or creation in `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let handle = File::open(dir).map_err(|err| Error::io(dir, "cannot open directory", err))?;
    handle
        .sync_all()
        .map_err(|err| Error::io(dir, "cannot sync directory", err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_directory_where_a_file_goes_is_moved_aside_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seal");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), "an agent's").unwrap();
        exchange_unsynced(&path, b"steward's").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"steward's");
        let aside: Vec<PathBuf> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(IN_THE_WAY)
            })
            .collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(fs::read(aside[0].join("inside")).unwrap(), b"an agent's");
        // A link is replaced itself, never followed.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        assert!(
            write_unsynced(&link, b"x").is_ok(),
            "a link is replaced, not followed"
        );
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
    }

    #[test]
    fn an_exchange_swaps_the_spare_in_and_makes_no_file_after_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seal");
        fs::write(&path, "old").unwrap();
        exchange_unsynced(&path, b"new, longer").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new, longer");
        let spare = dir.path().join(SPARE);
        assert_eq!(fs::read_to_string(&spare).unwrap(), "old");
        // From now on the two inodes take turns: none is made or freed.
        let inodes = [&path, &spare].map(|p| fs::metadata(p).unwrap().ino());
        exchange_unsynced(&path, b"short").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "short");
        assert_eq!(fs::read_to_string(&spare).unwrap(), "new, longer");
        assert_eq!(fs::metadata(&path).unwrap().ino(), inodes[1]);
        assert_eq!(fs::metadata(&spare).unwrap().ino(), inodes[0]);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2, "no temporary file is left");
    }

    #[test]
    fn a_spare_that_is_a_link_or_not_a_plain_file_is_removed_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let path = dir.path().join("state/seal");
        fs::create_dir(dir.path().join("state")).unwrap();
        let spare = dir.path().join("state").join(SPARE);
        let plant: [&dyn Fn(); 3] = [
            &|| std::os::unix::fs::symlink(&outside, &spare).unwrap(),
            &|| fs::hard_link(&outside, &spare).unwrap(),
            &|| {
                let name = std::ffi::CString::new(spare.as_os_str().as_encoded_bytes()).unwrap();
                // SAFETY: a NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
            },
        ];
        for (turn, plant) in plant.iter().enumerate() {
            fs::write(&outside, "someone else's").unwrap();
            fs::write(&path, "old").unwrap();
            plant();
            let text = format!("new {turn}");
            exchange_unsynced(&path, text.as_bytes()).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), text, "turn {turn}");
            assert_eq!(fs::read_to_string(&outside).unwrap(), "someone else's");
            assert!(
                fs::symlink_metadata(&spare).is_err(),
                "turn {turn}: removed"
            );
        }
    }

    #[test]
    fn a_move_writes_the_new_name_from_the_spare_and_the_old_file_becomes_it() {
        let dir = tempfile::tempdir().unwrap();
        let (open, closed) = (dir.path().join("open"), dir.path().join("closed"));
        fs::create_dir(&open).unwrap();
        let spare = open.join(SPARE);
        for (n, label) in ["a", "b"].iter().enumerate() {
            let from = open.join(label);
            fs::write(&from, format!("open {label}")).unwrap();
            let inodes = [&from, &spare].map(|p| fs::metadata(p).ok().map(|m| m.ino()));
            let to = closed.join(format!("id-{label}"));
            move_unsynced(&from, &to, format!("closed {label}").as_bytes()).unwrap();
            assert_eq!(fs::read_to_string(&to).unwrap(), format!("closed {label}"));
            assert!(fs::symlink_metadata(&from).is_err(), "the old name goes");
            assert_eq!(fs::read_to_string(&spare).unwrap(), format!("open {label}"));
            // After the first, no file is made and none freed: the spare
            // moves on, and the old file takes its place.
            assert_eq!(fs::metadata(&spare).unwrap().ino(), inodes[0].unwrap());
            if n > 0 {
                assert_eq!(fs::metadata(&to).unwrap().ino(), inodes[1].unwrap());
            }
        }
        // Something at the new name already, or no old file: written over,
        // and the old name gone either way.
        let (from, to) = (open.join("c"), closed.join("id-a"));
        fs::write(&from, "open c").unwrap();
        move_unsynced(&from, &to, b"closed c").unwrap();
        assert_eq!(fs::read_to_string(&to).unwrap(), "closed c");
        assert!(fs::symlink_metadata(&from).is_err());
        move_unsynced(&open.join("never"), &closed.join("id-d"), b"closed d").unwrap();
        assert_eq!(fs::read_to_string(closed.join("id-d")).unwrap(), "closed d");
        let mut names: Vec<_> = fs::read_dir(&open)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        names.extend(
            fs::read_dir(&closed)
                .unwrap()
                .flatten()
                .map(|e| e.file_name()),
        );
        assert!(
            names
                .iter()
                .all(|n| !n.to_string_lossy().starts_with(TEMP_PREFIX)),
            "{names:?}"
        );
    }

    fn stage_and_place(path: &Path, spare_dir: &Path, contents: &[u8]) {
        let staged = stage_from_spare(path, spare_dir, contents).unwrap();
        staged.replace_unless_changed(None).unwrap();
    }

    /// A project directory with `state/` in it, and the path of its mirror
    /// holding `text`.
    fn project_with_mirror(text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        fs::create_dir(&state).unwrap();
        let mirror = dir.path().join("ACTIVE-TASKS.md");
        fs::write(&mirror, text).unwrap();
        (dir, state, mirror)
    }

    #[test]
    fn a_file_replaced_from_another_directorys_spare_keeps_its_mode_and_links_are_not_followed() {
        let (dir, state, mirror) = project_with_mirror("old");
        fs::set_permissions(&mirror, fs::Permissions::from_mode(0o640)).unwrap();
        let staged = stage_from_spare(&mirror, &state, b"new").unwrap();
        assert_eq!(
            fs::read_to_string(&mirror).unwrap(),
            "old",
            "not placed yet"
        );
        staged.replace_unless_changed(None).unwrap();
        assert_eq!(fs::read_to_string(&mirror).unwrap(), "new");
        let spare = state.join(SPARE);
        assert_eq!(fs::read_to_string(&spare).unwrap(), "old");
        assert_eq!(
            fs::metadata(&mirror).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let inodes = [&mirror, &spare].map(|p| fs::metadata(p).unwrap().ino());
        stage_and_place(&mirror, &state, b"newer");
        assert_eq!(fs::read_to_string(&mirror).unwrap(), "newer");
        assert_eq!(fs::metadata(&mirror).unwrap().ino(), inodes[1]);
        assert_eq!(fs::metadata(&spare).unwrap().ino(), inodes[0]);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2, "nothing made beside the file: {names:?}");
        // A link is replaced, never written through.
        let elsewhere = dir.path().join("elsewhere.md");
        fs::write(&elsewhere, "someone else's").unwrap();
        fs::remove_file(&mirror).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &mirror).unwrap();
        stage_and_place(&mirror, &state, b"mine");
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "someone else's");
        assert!(fs::symlink_metadata(&mirror).unwrap().file_type().is_file());
        assert_eq!(fs::read_to_string(&mirror).unwrap(), "mine");
    }

    #[test]
    fn an_exchange_with_nothing_there_makes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seal");
        exchange_unsynced(&path, b"first").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "first");
    }

    #[test]
    fn replaces_contents_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("goal.md");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["goal.md"], "no temporary file is left behind");
    }

    #[test]
    fn keeps_modes_the_umask_would_take_away_and_ones_it_would_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("goal.md");
        for mode in [0o666, 0o644, 0o640, 0o4755] {
            fs::write(&path, "old").unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
            write(&path, b"new").unwrap();
            let kept = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
            assert_eq!(kept, mode, "mode {mode:o}");
        }
    }

    #[test]
    fn staged_bytes_are_placed_after_one_sync_or_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let names = |dir: &Path| {
            let mut names: Vec<_> = fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        };
        let kept = dir.path().join("kept.md");
        let dropped = dir.path().join("dropped.md");
        fs::write(&kept, "old").unwrap();
        let read = stamp(&kept);
        let staged_kept = stage(&kept, b"new", false).unwrap();
        let staged_dropped = stage(&dropped, b"never", false).unwrap();
        assert_eq!(names(dir.path()).len(), 3, "two temporary files");
        assert_eq!(fs::read_to_string(&kept).unwrap(), "old", "not yet placed");
        sync_filesystem(dir.path()).unwrap();
        let written = staged_kept.replace_unless_changed(read).unwrap();
        assert_eq!(written, stamp(&kept));
        drop(staged_dropped);
        assert_eq!(fs::read_to_string(&kept).unwrap(), "new");
        assert_eq!(names(dir.path()), ["kept.md"]);
    }

    #[test]
    fn one_staged_file_goes_through_the_spare_and_keeps_its_mode_and_hand_edits() {
        let dir = tempfile::tempdir().unwrap();
        let goal = dir.path().join("goal.md");
        let other = dir.path().join("other.md");
        fs::write(&goal, "old").unwrap();
        fs::write(&other, "other").unwrap();
        fs::set_permissions(&goal, fs::Permissions::from_mode(0o600)).unwrap();
        let read = stamp(&goal);
        let staged = stage_one(&goal, b"new").unwrap();
        // The spare is in use: a second file of the directory is staged in
        // a temporary file, without waiting for the first.
        let second = stage_one(&other, b"second").unwrap();
        assert!(matches!(second.bytes, Some(StagedBytes::Temp(_))));
        assert!(matches!(staged.bytes, Some(StagedBytes::Spare(_))));
        assert_eq!(staged.replace_unless_changed(read).unwrap(), stamp(&goal));
        assert_eq!(fs::read_to_string(&goal).unwrap(), "new");
        assert_eq!(
            fs::metadata(&goal).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::read_to_string(dir.path().join(SPARE)).unwrap(), "old");
        second.replace_unless_changed(None).unwrap();
        assert_eq!(fs::read_to_string(&other).unwrap(), "second");

        // Edited by hand after it was read: left as it is.
        let read = stamp(&goal);
        let staged = stage_one(&goal, b"steward's").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        fs::write(&goal, "a person's edit").unwrap();
        assert_eq!(staged.replace_unless_changed(read).unwrap(), None);
        assert_eq!(fs::read_to_string(&goal).unwrap(), "a person's edit");

        // A new file has nothing to exchange with.
        let new = dir.path().join("new.md");
        let staged = stage_one(&new, b"first").unwrap();
        assert!(matches!(staged.bytes, Some(StagedBytes::Temp(_))));
        staged.replace_unless_changed(None).unwrap();
        assert_eq!(fs::read_to_string(&new).unwrap(), "first");
    }

    #[test]
    fn a_file_that_changed_since_it_was_read_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("goal.md");
        fs::write(&path, "read").unwrap();
        let read = stamp(&path);
        fs::write(&path, "edited by hand").unwrap();
        assert_eq!(replace_unless_changed(&path, b"new", read).unwrap(), None);
        assert_eq!(fs::read_to_string(&path).unwrap(), "edited by hand");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["goal.md"], "no temporary file is left behind");

        let read = stamp(&path);
        let written = replace_unless_changed(&path, b"new", read).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(written, stamp(&path), "the stamp of the file written");
        fs::remove_file(&path).unwrap();
        assert_eq!(
            replace_unless_changed(&path, b"again", written).unwrap(),
            None
        );
        assert!(
            !path.exists(),
            "a file removed meanwhile is not brought back"
        );
    }

    #[test]
    fn a_mirror_edited_while_its_bytes_were_staged_is_left_as_edited() {
        let (_dir, state, mirror) = project_with_mirror("read");
        let read = stamp(&mirror);
        let staged = stage_from_spare(&mirror, &state, b"rendered").unwrap();
        fs::write(&mirror, "edited by hand, longer").unwrap();
        assert_eq!(staged.replace_unless_changed(read).unwrap(), None);
        assert_eq!(
            fs::read_to_string(&mirror).unwrap(),
            "edited by hand, longer"
        );
    }

    #[test]
    fn a_spare_on_another_file_system_is_not_used() {
        let shm = Path::new("/dev/shm");
        let elsewhere = tempfile::tempdir().unwrap();
        let Ok(here) = tempfile::tempdir_in(shm) else {
            eprintln!("SKIPPED: no /dev/shm to put a second file system's directory in");
            return;
        };
        let mirror = here.path().join("ACTIVE-TASKS.md");
        fs::write(&mirror, "old").unwrap();
        let devices = [&mirror, elsewhere.path()].map(|p| fs::metadata(p).unwrap().dev());
        if devices[0] == devices[1] {
            eprintln!("SKIPPED: /dev/shm and the temporary directory share a file system");
            return;
        }
        let staged = stage_from_spare(&mirror, elsewhere.path(), b"new").unwrap();
        assert!(matches!(staged.bytes, Some(StagedBytes::Temp(_))));
        staged.replace_unless_changed(stamp(&mirror)).unwrap();
        assert_eq!(fs::read_to_string(&mirror).unwrap(), "new");
        assert!(!elsewhere.path().join(SPARE).exists());
    }
}
