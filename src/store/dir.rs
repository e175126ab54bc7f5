//! Files looked up by name in a directory opened once. Given a path, the
//! kernel walks every component of it again on each call; reading 10,000
//! goal files that walk (a `stat` and an `open` per file, a second `stat`
//! under the lock) was a tenth of `tick`. Here each call looks up one name.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// An open directory.
pub struct Dir {
    handle: File,
}

/// What `stat` says about a file, symbolic links followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub is_file: bool,
    pub len: u64,
    /// Equal to what `std::fs::Metadata::modified` gives for the same file.
    pub modified: SystemTime,
    /// The inode and its change time (seconds, nanoseconds): no user can
    /// set a change time, so a file with the same ones was not replaced
    /// or written since.
    pub identity: FileIdentity,
}

/// A file's inode and change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileIdentity {
    pub inode: u64,
    pub changed: (i64, i64),
}

impl Stat {
    pub fn of(metadata: &std::fs::Metadata) -> io::Result<Stat> {
        use std::os::unix::fs::MetadataExt;
        Ok(Stat {
            is_file: metadata.is_file(),
            len: metadata.len(),
            modified: metadata.modified()?,
            identity: FileIdentity {
                inode: metadata.ino(),
                changed: (metadata.ctime(), metadata.ctime_nsec()),
            },
        })
    }
}

impl Dir {
    pub fn open(path: &Path) -> io::Result<Dir> {
        Ok(Dir {
            handle: File::open(path)?,
        })
    }

    /// `stat` of the entry `name`, following a symbolic link.
    pub fn stat(&self, name: &OsStr) -> io::Result<Stat> {
        let name = c_name(name)?;
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `name` is NUL-terminated and outlives the call; `stat`
        // points to memory the call fills, read only when it succeeded.
        let rc =
            unsafe { libc::fstatat(self.handle.as_raw_fd(), name.as_ptr(), stat.as_mut_ptr(), 0) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fstatat succeeded, so it wrote the whole struct.
        let stat = unsafe { stat.assume_init() };
        Ok(Stat {
            is_file: stat.st_mode & libc::S_IFMT == libc::S_IFREG,
            len: stat.st_size as u64,
            modified: system_time(stat.st_mtime, stat.st_mtime_nsec),
            identity: FileIdentity {
                inode: stat.st_ino,
                changed: (stat.st_ctime, stat.st_ctime_nsec),
            },
        })
    }

    /// Opens the entry `name` for reading. Without waiting: a FIFO opens at
    /// once (for the caller to refuse), where a plain open would wait for a
    /// writer.
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        let name = c_name(name)?;
        // SAFETY: `name` is NUL-terminated and outlives the call.
        let fd = unsafe {
            libc::openat(
                self.handle.as_raw_fd(),
                name.as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file name holds a NUL byte"))
}

/// A `stat` time as the `SystemTime` the standard library makes of it.
fn system_time(secs: i64, nanos: i64) -> SystemTime {
    let nanos = Duration::from_nanos(nanos.clamp(0, 999_999_999) as u64);
    let whole = Duration::from_secs(secs.unsigned_abs());
    if secs >= 0 {
        UNIX_EPOCH + whole + nanos
    } else {
        UNIX_EPOCH - whole + nanos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_by_name_says_what_metadata_by_path_says() {
        let dir = tempfile::tempdir().unwrap();
        let times = [
            UNIX_EPOCH + Duration::new(1_795_000_000, 123_456_789),
            UNIX_EPOCH - Duration::new(86_400, 250_000_000),
            UNIX_EPOCH,
        ];
        let opened = Dir::open(dir.path()).unwrap();
        for (n, time) in times.into_iter().enumerate() {
            let name = format!("goal-{n}.md");
            let path = dir.path().join(&name);
            std::fs::write(&path, "x".repeat(n * 10)).unwrap();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(time)
                .unwrap();
            let by_name = opened.stat(OsStr::new(&name)).unwrap();
            let by_path = Stat::of(&std::fs::metadata(&path).unwrap()).unwrap();
            assert_eq!(by_name, by_path);
            assert_eq!(by_name.modified, time);
        }
    }

    #[test]
    fn a_link_is_followed_and_a_directory_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("target.md"), "goal").unwrap();
        std::os::unix::fs::symlink("target.md", dir.path().join("link.md")).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let opened = Dir::open(dir.path()).unwrap();
        let link = opened.stat(OsStr::new("link.md")).unwrap();
        assert!(link.is_file);
        assert_eq!(link.len, 4);
        assert!(!opened.stat(OsStr::new("sub")).unwrap().is_file);
        let mut text = String::new();
        io::Read::read_to_string(
            &mut opened.open_file(OsStr::new("link.md")).unwrap(),
            &mut text,
        )
        .unwrap();
        assert_eq!(text, "goal");
        let missing = opened.stat(OsStr::new("missing.md")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
