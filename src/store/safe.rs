//! Reading steward's own state files without leaving the store: a file
//! that is a symbolic link (anything can be behind it), not a regular file
//! (a FIFO would hang the reader, and with it whoever holds the lock) or
//! larger than the record can be is refused, never followed or waited on.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The bytes of the state file at `path`, at most `cap` of them: `None`
/// when there is no file. A link, a directory, a FIFO or a file over `cap`
/// bytes is an error that says so.
pub fn read_bytes(path: &Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match file {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(std::io::Error::other(
                "a symbolic link: steward does not follow links in its state",
            ));
        }
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "not a regular file: steward reads only files in its state",
        ));
    }
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

/// [`read_bytes`] as UTF-8 text.
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

        let err = read_text(dir.path(), 100).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }
}
