//! The store-wide advisory lock every writing command holds while it reads,
//! decides and writes.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Held until dropped; the kernel releases it if the process dies.
#[derive(Debug)]
pub struct StoreLock {
    file: File,
}

impl StoreLock {
    /// Waits up to `timeout` for the lock at `path`, then fails with exit
    /// code 75 naming the holder's pid.
    pub fn acquire(path: &Path, timeout: Duration) -> Result<StoreLock> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|err| Error::io(dir, "cannot create directory", err))?;
        }
        if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
            return Err(Error::UnsafePath {
                path: path.to_path_buf(),
                why: "not a plain file (a symbolic link?): steward does not follow links in its state",
            });
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|err| Error::io(path, "cannot open lock file", err))?;
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if started.elapsed() >= timeout {
                        return Err(locked_error(path, &mut file, timeout));
                    }
                    std::thread::sleep(pause.min(timeout.saturating_sub(started.elapsed())));
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::Error(err)) => return Err(Error::io(path, "cannot lock", err)),
            }
        }
        record_holder(&mut file).map_err(|err| Error::io(path, "cannot write lock holder", err))?;
        Ok(StoreLock { file })
    }

    /// The pid recorded in a lock file, if any (for `doctor`).
    pub fn holder(path: &Path) -> Option<u32> {
        let mut text = String::new();
        File::open(path).ok()?.read_to_string(&mut text).ok()?;
        text.trim().parse().ok()
    }

    /// Whether another process holds the lock right now (for `doctor`).
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = File::open(path) else {
            return false;
        };
        matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock))
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Writes the holder's pid over the previous one: a fixed width, so no
/// truncation (a slow call on some file systems) is needed.
fn record_holder(file: &mut File) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(format!("{:<10}\n", std::process::id()).as_bytes(), 0)
}

fn locked_error(path: &Path, file: &mut File, timeout: Duration) -> Error {
    let mut text = String::new();
    let _ = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text));
    let holder = match text.trim() {
        "" => "another steward run".to_string(),
        pid => format!("steward pid {pid}"),
    };
    Error::Locked {
        path: path.to_path_buf(),
        holder,
        waited: timeout,
    }
}

/// Where the lock lives under a state directory.
pub fn path_in(state_dir: &Path) -> PathBuf {
    state_dir.join("lock")
}
