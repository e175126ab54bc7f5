//! Processes: whether a recorded one is still there, and this one's own
//! binary.

/// The path of the running steward binary, for commands written into
/// other programs' settings (hooks, the merge driver) and for re-executing
/// itself (run supervisors).
pub fn own_binary() -> crate::error::Result<std::path::PathBuf> {
    std::env::current_exe().map_err(|err| {
        crate::error::Error::io(
            std::path::Path::new("steward"),
            "cannot find steward's own binary",
            err,
        )
    })
}

/// True while `pid` names a live process (a zombie counts as gone).
pub fn is_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let exists = unsafe { libc::kill(raw, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !is_zombie(pid)
}

/// A process that exited but was not reaped yet (Linux: state `Z`).
fn is_zombie(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may
    // itself contain spaces or parentheses.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        == Some("Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_reaped_one_is_not() {
        assert!(is_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!is_alive(pid));
        assert!(!is_alive(0));
        assert!(!is_alive(u32::MAX));
    }
}
