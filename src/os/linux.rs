//! What steward asks of Linux: processes as `/proc` shows them, the child
//! subreaper, `renameat2`, `syncfs` and `getrandom`. `macos.rs` answers
//! the same questions on macOS.

use std::fs::File;
use std::path::Path;

use super::Rename;
use super::process::Stat;

/// The process `pid` as `/proc/PID/stat` shows it, if it is there. Its
/// start is in clock ticks after boot.
pub fn stat(pid: u32) -> Option<Stat> {
    let bytes = read_proc(&format!("/proc/{pid}/stat")).ok()?;
    parse_stat(std::str::from_utf8(&bytes).ok()?)
}

/// A file of `/proc`, read into room for most of them at once: `/proc`
/// says its files are empty, so `std::fs::read` would ask their size and
/// then read them in steps from 32 bytes up (steward reads a few at every
/// start, to know who runs it).
fn read_proc(path: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(1024);
    File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `pid (name) state ppid … starttime …`: the name is in parentheses and
/// may hold spaces and parentheses itself, so fields are counted from the
/// last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let (name_part, rest) = text.rsplit_once(')')?;
    let name = name_part.get(open + 1..)?.to_string();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (3), ppid (4), … starttime (22).
    Some(Stat {
        name,
        state: fields.first()?.chars().next()?,
        parent: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The processor time the processes of session `session` used, with
/// what their finished children used: what a run's tools did while its
/// client printed nothing.
pub fn session_cpu(session: u32) -> Option<std::time::Duration> {
    // SAFETY: sysconf only reads a setting.
    let ticks_per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    let mut ticks = 0u64;
    for pid in all_pids() {
        let Ok(bytes) = read_proc(&format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(fields) = std::str::from_utf8(&bytes).ok().and_then(|text| {
            Some(
                text.rsplit_once(')')?
                    .1
                    .split_whitespace()
                    .collect::<Vec<_>>(),
            )
        }) else {
            continue;
        };
        // After the name: session (6), utime (14), stime, cutime, cstime (17).
        if fields.get(3).and_then(|s| s.parse::<u32>().ok()) != Some(session) {
            continue;
        }
        ticks += (fields.get(11..15).into_iter().flatten())
            .filter_map(|t| t.parse::<u64>().ok())
            .sum::<u64>();
    }
    Some(std::time::Duration::from_millis(
        ticks * 1000 / ticks_per_second.max(1),
    ))
}

/// The arguments `pid` was started with, NUL-separated.
pub fn command_line(pid: u32) -> Option<Vec<u8>> {
    read_proc(&format!("/proc/{pid}/cmdline")).ok()
}

/// The environment of `pid` (this user's), NUL-separated.
pub fn environment(pid: u32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/environ")).ok()
}

/// This boot of the machine (`/proc/sys/kernel/random/boot_id`).
pub fn boot_id() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = text.trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// Every process's pid.
pub fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// Makes this process the parent of every orphan below it (the child
/// subreaper), so that what a child started in a session of its own
/// (`setsid`, a double fork) comes back here to be killed.
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag on this
    // process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// `renameat2(2)` of two paths.
pub fn rename(from: &Path, to: &Path, how: Rename) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(from.as_os_str().as_bytes())?;
    let to = CString::new(to.as_os_str().as_bytes())?;
    let flags = match how {
        Rename::NoReplace => libc::RENAME_NOREPLACE,
        Rename::Exchange => libc::RENAME_EXCHANGE,
    };
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let renamed = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    match renamed {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Waits until everything written to the file system holding `file` is on
/// disk (`syncfs`).
pub fn sync_filesystem(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `syncfs` only reads the descriptor, which `file` keeps open.
    if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Fills `bytes` from the kernel's random source (`getrandom`).
pub fn fill_random(bytes: &mut [u8]) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < bytes.len() {
        // SAFETY: getrandom writes at most the given length into the buffer.
        let n = unsafe {
            libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0)
        };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        filled += n as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_parentheses_and_spaces_is_read_whole() {
        let line =
            "42 (my (odd) prog) S 7 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.name, "my (odd) prog");
        assert_eq!((stat.state, stat.parent, stat.start), ('S', 7, 12345));
    }
}
