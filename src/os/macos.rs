//! What steward asks of macOS, the same questions `linux.rs` answers:
//! processes through `proc_pidinfo` and the `KERN_PROCARGS2` sysctl, the
//! boot through `kern.bootsessionuuid`, `renamex_np`, and `getentropy`.
//! There is no child subreaper: what a run left behind is found by the
//! dispatch id in its environment and its process group.

use std::ffi::{CStr, c_int, c_void};
use std::fs::File;
use std::path::Path;

use super::Rename;
use super::process::Stat;

/// The process `pid` as the kernel describes it. Its start is in
/// microseconds since the epoch: with the boot, what tells a process from
/// a later one given the same pid.
pub fn stat(pid: u32) -> Option<Stat> {
    let pid = c_int::try_from(pid).ok()?;
    // SAFETY: an all-zero proc_bsdinfo is a valid value of plain integers.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = c_int::try_from(std::mem::size_of::<libc::proc_bsdinfo>()).ok()?;
    // SAFETY: proc_pidinfo writes at most `size` bytes into `info`.
    let got = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            (&raw mut info).cast::<c_void>(),
            size,
        )
    };
    if got != size {
        return None;
    }
    let comm: Vec<u8> = info.pbi_comm.iter().map(|c| *c as u8).collect();
    let name = CStr::from_bytes_until_nul(&comm)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    Some(Stat {
        name,
        state: if info.pbi_status == libc::SZOMB {
            'Z'
        } else {
            'R'
        },
        parent: info.pbi_ppid,
        start: info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
    })
}

/// `KERN_PROCARGS2` of `pid`: its argument count, the executable's path,
/// then its arguments and its environment, each NUL-terminated.
fn process_arguments(pid: u32) -> Option<Vec<u8>> {
    let pid = c_int::try_from(pid).ok()?;
    let mut most: c_int = 0;
    let mut size = std::mem::size_of::<c_int>();
    let mut mib = [libc::CTL_KERN, libc::KERN_ARGMAX];
    // SAFETY: sysctl writes one c_int into `most`.
    let asked = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            2,
            (&raw mut most).cast::<c_void>(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if asked != 0 || most <= 0 {
        return None;
    }
    let mut bytes = vec![0u8; usize::try_from(most).ok()?];
    let mut size = bytes.len();
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
    // SAFETY: sysctl writes at most `size` bytes into `bytes`.
    let read = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            bytes.as_mut_ptr().cast::<c_void>(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if read != 0 {
        return None;
    }
    bytes.truncate(size);
    Some(bytes)
}

/// The processor time of a session's processes: not asked on macOS, whose
/// task times come in units of the machine's clock. A run whose tools
/// work silently for longer than `dispatch.stall_after` counts as stalled
/// there unless they print.
pub fn session_cpu(_session: u32) -> Option<std::time::Duration> {
    None
}

/// The arguments and the environment in `KERN_PROCARGS2`'s bytes, each
/// NUL-separated as Linux's `/proc` gives them.
fn split_arguments(bytes: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let count = usize::try_from(i32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?)).ok()?;
    let rest = bytes.get(4..)?;
    // The executable's path, then the NULs that pad it.
    let path_end = rest.iter().position(|b| *b == 0)?;
    let rest = &rest[path_end..];
    let start = rest.iter().position(|b| *b != 0).unwrap_or(rest.len());
    let mut strings = rest[start..].split(|b| *b == 0);
    let mut join = |n: Option<usize>| {
        let mut joined = Vec::new();
        for string in strings.by_ref().take(n.unwrap_or(usize::MAX)) {
            if n.is_none() && string.is_empty() {
                break;
            }
            joined.extend_from_slice(string);
            joined.push(0);
        }
        joined
    };
    let arguments = join(Some(count));
    let environment = join(None);
    Some((arguments, environment))
}

/// The arguments `pid` was started with, NUL-separated.
pub fn command_line(pid: u32) -> Option<Vec<u8>> {
    Some(split_arguments(&process_arguments(pid)?)?.0)
}

/// The environment of `pid` (this user's), NUL-separated.
pub fn environment(pid: u32) -> Option<Vec<u8>> {
    Some(split_arguments(&process_arguments(pid)?)?.1)
}

/// This boot of the machine (`kern.bootsessionuuid`).
pub fn boot_id() -> Option<String> {
    let mut bytes = [0u8; 64];
    let mut size = bytes.len();
    // SAFETY: a NUL-terminated name; sysctlbyname writes at most `size`
    // bytes into `bytes`.
    let read = unsafe {
        libc::sysctlbyname(
            c"kern.bootsessionuuid".as_ptr(),
            bytes.as_mut_ptr().cast::<c_void>(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if read != 0 {
        return None;
    }
    let id = CStr::from_bytes_until_nul(&bytes).ok()?.to_str().ok()?;
    (!id.is_empty()).then(|| id.to_string())
}

/// Every process's pid.
pub fn all_pids() -> Vec<u32> {
    // SAFETY: with no buffer, proc_listallpids says how many there are.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    let Ok(count) = usize::try_from(count) else {
        return Vec::new();
    };
    // Room for those started meanwhile.
    let mut pids = vec![0 as c_int; count + 64];
    let bytes = c_int::try_from(pids.len() * std::mem::size_of::<c_int>()).unwrap_or(c_int::MAX);
    // SAFETY: proc_listallpids writes at most `bytes` bytes into `pids`.
    let listed = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast::<c_void>(), bytes) };
    let listed = usize::try_from(listed).unwrap_or(0).min(pids.len());
    (pids[..listed].iter())
        .filter_map(|pid| u32::try_from(*pid).ok().filter(|pid| *pid > 0))
        .collect()
}

/// macOS has no child subreaper: orphans go to launchd, and a run's are
/// found by the dispatch id they carry.
pub fn become_subreaper() {}

/// `renamex_np(2)` of two paths.
pub fn rename(from: &Path, to: &Path, how: Rename) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(from.as_os_str().as_bytes())?;
    let to = CString::new(to.as_os_str().as_bytes())?;
    let flags = match how {
        Rename::NoReplace => libc::RENAME_EXCL,
        Rename::Exchange => libc::RENAME_SWAP,
    };
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    match unsafe { libc::renamex_np(from.as_ptr(), to.as_ptr(), flags) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Waits until what was written is on disk: macOS has no `syncfs`, so
/// `sync` schedules every file system's writes and `F_FULLFSYNC` on
/// `file` waits for its drive to write them, its cache included.
pub fn sync_filesystem(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: sync takes nothing; fcntl only reads the descriptor, which
    // `file` keeps open.
    unsafe {
        libc::sync();
        if libc::fcntl(file.as_raw_fd(), libc::F_FULLFSYNC) == -1 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Fills `bytes` from the kernel's random source (`getentropy`, at most
/// 256 bytes a call).
pub fn fill_random(bytes: &mut [u8]) -> std::io::Result<()> {
    for chunk in bytes.chunks_mut(256) {
        // SAFETY: getentropy writes exactly `chunk.len()` bytes, at most 256.
        if unsafe { libc::getentropy(chunk.as_mut_ptr().cast::<c_void>(), chunk.len()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procargs_split_into_arguments_and_environment() {
        let mut bytes = 2i32.to_ne_bytes().to_vec();
        bytes.extend_from_slice(b"/bin/sh\0\0\0sh\0-c\0HOME=/h\0A=b\0\0\0");
        let (arguments, environment) = split_arguments(&bytes).unwrap();
        assert_eq!(arguments, b"sh\0-c\0");
        assert_eq!(environment, b"HOME=/h\0A=b\0");
    }
}
