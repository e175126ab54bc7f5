//! Reading steward's own state files without leaving the store: a file
//! that is a symbolic link (anything can be behind it), not a regular file
//! (a FIFO would hang the reader, and with it whoever holds the lock) or
//! larger than the record can be is refused, never followed or waited on.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The state file at `path` opened to read: `None` when there is none. A
/// link, a directory or a FIFO is an error that says so; nothing waits.
pub fn open_regular(path: &Path) -> std::io::Result<Option<std::fs::File>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    match open_checked(path, &mut options) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        other => other.map(Some),
    }
}

/// The state file at `path` opened to append (made when missing), never
/// through a link nor to anything but a regular file.
pub fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).create(true).append(true);
    open_checked(path, &mut options)
}

/// The state file at `path` opened to be read and written over in place
/// (made when missing), never through a link nor to anything but a
/// regular file.
pub fn open_read_write(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true);
    open_checked(path, &mut options)
}

/// The state file at `path` emptied to be written (made when missing),
/// never through a link nor to anything but a regular file.
pub fn create_truncated(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    // Emptied once it is known to be a regular file: opening with
    // O_TRUNC would empty whatever is there first.
    options.create(true).write(true);
    let file = open_checked(path, &mut options)?;
    file.set_len(0)?;
    Ok(file)
}

/// Writes `contents` over the state file at `path` in place, for a record
/// a crash may tear because it carries its own MAC (an undo record, a
/// cache): no
/// new file, so no old one freed, which on a file system that discards
/// freed blocks at once costs a wait for the disk. `Ok(false)` when there
/// is no file to write over; an error for what [`open_to_overwrite`]
/// refuses, which the caller replaces instead.
pub fn overwrite(path: &Path, contents: &[u8]) -> std::io::Result<bool> {
    let Some((file, metadata)) = open_to_overwrite(path, false)? else {
        return Ok(false);
    };
    write_over(&file, metadata.len(), contents)?;
    Ok(true)
}

/// The state file at `path` opened to be written over in place, with what
/// `fstat` says of it (made when missing and `create`; `None` when missing
/// otherwise): never through a link, nor to anything but a regular file,
/// nor to a file with another name (a hard link), whose bytes are another
/// file's too.
pub fn open_to_overwrite(
    path: &Path,
    create: bool,
) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    use std::os::unix::fs::MetadataExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(create);
    let (file, metadata) = match open_checked_with_metadata(path, &mut options) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other?,
    };
    if metadata.nlink() != 1 {
        return Err(std::io::Error::other(
            "a file with another name: steward does not write through it",
        ));
    }
    Ok(Some((file, metadata)))
}

/// Writes `contents` over `file` from its start, `len` bytes long before,
/// and cuts it to their length.
pub fn write_over(file: &std::fs::File, len: u64, contents: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(contents, 0)?;
    if len > contents.len() as u64 {
        file.set_len(contents.len() as u64)?;
    }
    Ok(())
}

fn open_checked(path: &Path, options: &mut std::fs::OpenOptions) -> std::io::Result<std::fs::File> {
    open_checked_with_metadata(path, options).map(|(file, _)| file)
}

fn open_checked_with_metadata(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|err| {
            if err.raw_os_error() == Some(libc::ELOOP) {
                std::io::Error::other("a symbolic link: steward does not follow links in its state")
            } else {
                err
            }
        })?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::other(
            "not a regular file: steward uses only files in its state",
        ));
    }
    Ok((file, metadata))
}

/// The bytes of the state file at `path`, at most `cap` of them: `None`
/// when there is no file. A link, a directory, a FIFO or a file over `cap`
/// bytes is an error that says so.
pub fn read_bytes(path: &Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let Some(file) = open_regular(path)? else {
        return Ok(None);
    };
    let meta = file.metadata()?;
    if meta.len() > cap {
        return Err(std::io::Error::other(format!(
            "{} bytes, more than the {cap} such a file holds",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(std::io::Error::other(format!(
            "grew past the {cap} bytes such a file holds while it was read"
        )));
    }
    Ok(Some(bytes))
}

/// The most a state file of steward's (a record, a cache, a run's output
/// tail) holds.
pub const STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the state file at `path`, or `None` when it is not there
/// or is not one steward reads (a link, a FIFO, too large): for state a
/// command can do without (a rotation, what the last pass saw).
pub fn read_state(path: &Path) -> Option<String> {
    read_text(path, STATE_BYTES).ok().flatten()
}

/// [`read_bytes`] as UTF-8 text.
/// [`read_text`] shaped as `std::fs::read_to_string`: a missing file is
/// `NotFound`. For files a person or an agent may have put anything in
/// place of (a FIFO would hang a plain read).
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    read_text(path, 64 * 1024 * 1024)?
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
}

pub fn read_text(path: &Path, cap: u64) -> std::io::Result<Option<String>> {
    read_bytes(path, cap)?
        .map(|bytes| String::from_utf8(bytes).map_err(|_| std::io::Error::other("not UTF-8 text")))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_directories_and_large_files_are_refused_and_files_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "state\n").unwrap();
        assert_eq!(read_text(&file, 100).unwrap().as_deref(), Some("state\n"));
        assert_eq!(read_text(&dir.path().join("none"), 100).unwrap(), None);
        let err = read_text(&file, 3).unwrap_err().to_string();
        assert!(err.contains("more than the 3"), "{err}");

        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let err = read_text(&link, 100).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");

        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let err = read_text(&fifo, 100).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        // Writing to a FIFO with no reader fails at once (ENXIO), never
        // waits.
        assert!(open_append(&fifo).is_err());
        let err = create_truncated(&link).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "state\n",
            "the target is untouched"
        );

        let err = read_text(dir.path(), 100).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn overwriting_keeps_the_file_and_never_writes_through_a_link() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("record");
        assert!(
            !overwrite(&file, b"new\n").unwrap(),
            "nothing to write over"
        );
        assert!(!file.exists());

        std::fs::write(&file, "a longer record\n").unwrap();
        let inode = std::fs::metadata(&file).unwrap().ino();
        assert!(overwrite(&file, b"short\n").unwrap());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "short\n");
        assert!(overwrite(&file, b"longer than that\n").unwrap());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "longer than that\n"
        );
        assert_eq!(
            std::fs::metadata(&file).unwrap().ino(),
            inode,
            "the same file"
        );

        let target = dir.path().join("someone-elses");
        std::fs::write(&target, "theirs\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = overwrite(&link, b"mine\n").unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        let hard = dir.path().join("hard");
        std::fs::hard_link(&target, &hard).unwrap();
        let err = overwrite(&hard, b"mine\n").unwrap_err().to_string();
        assert!(err.contains("another name"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
    }
}
