//! Processes: whether a recorded one is still the process steward
//! started, which programs a process runs under, and stopping a process
//! group with everything that escaped it. What each system says of a
//! process comes from `linux.rs` or `macos.rs`.

use serde::{Deserialize, Serialize};

use super::platform;

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
    let Some(raw) = positive(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let exists = unsafe { libc::kill(raw, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && stat(pid).is_none_or(|s| s.state != 'Z')
}

fn positive(pid: u32) -> Option<i32> {
    i32::try_from(pid).ok().filter(|p| *p > 0)
}

/// What the system says of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// The program's name as the kernel keeps it (at most 15 bytes).
    pub name: String,
    /// `R`, `S`, `Z`, …: only a zombie (`Z`) matters to steward.
    pub state: char,
    pub parent: u32,
    /// When it started, in the system's own unit (Linux: clock ticks after
    /// boot; macOS: microseconds since the epoch): with the boot, what
    /// tells a process from a later one given the same pid.
    pub start: u64,
}

/// The process `pid`, if it is there.
pub fn stat(pid: u32) -> Option<Stat> {
    platform::stat(pid)
}

/// The arguments `pid` was started with.
pub fn command_line(pid: u32) -> Vec<String> {
    platform::command_line(pid)
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The processor time the processes of session `session` used (`None`
/// where the system is not asked).
pub fn session_cpu(session: u32) -> Option<std::time::Duration> {
    platform::session_cpu(session)
}

/// This boot of the machine: pids and start times count again from
/// nothing after a reboot.
pub fn boot_id() -> Option<String> {
    platform::boot_id()
}

/// A process as steward recorded it when it started it: its pid, when it
/// started, and in which boot. Only a live process with all three the
/// same is that process: a pid is reused, and a record can be edited or
/// come from another machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessId {
    pub pid: u32,
    pub start: u64,
    pub boot: String,
}

impl ProcessId {
    /// The process `pid` as it is now.
    pub fn of(pid: u32) -> Option<ProcessId> {
        Some(ProcessId {
            pid,
            start: stat(pid)?.start,
            boot: boot_id()?,
        })
    }

    /// Whether this is still the running process it was.
    pub fn is_running(&self) -> bool {
        is_alive(self.pid)
            && stat(self.pid).is_some_and(|s| s.start == self.start)
            && boot_id().as_deref() == Some(self.boot.as_str())
    }

    /// Sends `signal` to the process, or to the group it leads, when it is
    /// still the process recorded. Whether it was.
    pub fn signal(&self, signal: libc::c_int, group: bool) -> bool {
        let Some(pid) = positive(self.pid).filter(|_| self.is_running()) else {
            return false;
        };
        // SAFETY: kill only sends a signal, to a process checked just now
        // to be the one steward started.
        unsafe { libc::kill(if group { -pid } else { pid }, signal) == 0 }
    }
}

/// A process this one runs under: its parent, the parent's parent, … up to
/// the first process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ancestor {
    pub pid: u32,
    pub name: String,
    /// The arguments, read only where the name does not say enough (an
    /// interpreter running a script, steward itself).
    pub argv: Vec<String>,
}

/// Names whose arguments say what really runs: a script's interpreter,
/// or steward (whose `run-agent` is a run's supervisor).
const READ_ARGUMENTS_OF: &[&str] = &[
    "node", "bun", "deno", "python", "python3", "steward", "sh", "bash",
];

/// The processes above this one, nearest first (at most 64).
pub fn ancestors() -> Vec<Ancestor> {
    let mut found = Vec::new();
    let mut pid = stat(std::process::id()).map_or(0, |s| s.parent);
    while pid > 1 && found.len() < 64 {
        let Some(stat) = stat(pid) else { break };
        let interpreted = READ_ARGUMENTS_OF
            .iter()
            .any(|name| stat.name == *name || stat.name.starts_with("python"));
        found.push(Ancestor {
            pid,
            argv: if interpreted {
                command_line(pid)
            } else {
                Vec::new()
            },
            name: stat.name,
        });
        pid = stat.parent;
    }
    found
}

/// The processes whose parent is `parent`.
pub fn children_of(parent: u32) -> Vec<u32> {
    all_pids()
        .filter(|pid| stat(*pid).is_some_and(|s| s.parent == parent))
        .collect()
}

fn all_pids() -> impl Iterator<Item = u32> {
    platform::all_pids().into_iter()
}

/// The processes of this user whose environment holds `name=value`: what
/// a run started carries `STEWARD_DISPATCH_ID`, also when it left its
/// process group and session (`setsid`) and its supervisor is gone.
pub fn carrying(name: &str, value: &str) -> Vec<u32> {
    let wanted = format!("{name}={value}");
    let me = std::process::id();
    all_pids()
        .filter(|pid| *pid != me)
        .filter(|pid| {
            platform::environment(*pid).is_some_and(|environ| {
                environ
                    .split(|b| *b == 0)
                    .any(|entry| entry == wanted.as_bytes())
            })
        })
        .collect()
}

/// SIGKILL to `pid` and the group it leads.
pub fn kill_with_group(pid: u32) {
    if let Some(raw) = positive(pid) {
        // SAFETY: only sends signals; a process or group that is gone
        // gives ESRCH.
        unsafe {
            libc::kill(-raw, libc::SIGKILL);
            libc::kill(raw, libc::SIGKILL);
        }
    }
}

/// Reaps every child of this process that has exited.
pub fn reap() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on any child, without blocking.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            break;
        }
    }
}

/// Makes this process the parent of every orphan below it, where the
/// system can (Linux's child subreaper), so that what a child started in
/// a session of its own (`setsid`, a double fork) comes back here to be
/// killed. On macOS it cannot: orphans are found by what they carry
/// ([`carrying`]).
pub fn become_subreaper() {
    platform::become_subreaper();
}

/// Kills the children of this process (a subreaper) that are not in
/// `keep` — orphans left by what it ran — with their groups, and reaps
/// them, until none is left (a few rounds: killing one may orphan more).
pub fn kill_orphans(keep: &[u32]) {
    let me = std::process::id();
    for _ in 0..20 {
        let orphans: Vec<u32> = children_of(me)
            .into_iter()
            .filter(|pid| !keep.contains(pid))
            .collect();
        if orphans.is_empty() {
            break;
        }
        orphans.into_iter().for_each(kill_with_group);
        reap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    reap();
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

    #[test]
    fn a_recorded_process_is_the_same_only_with_the_same_start_and_boot() {
        let me = ProcessId::of(std::process::id()).unwrap();
        assert!(me.is_running());
        let later = ProcessId {
            start: me.start + 1,
            ..me.clone()
        };
        assert!(!later.is_running(), "a pid reused by another process");
        assert!(!later.signal(0, false));
        let elsewhere = ProcessId {
            boot: "another-boot".to_string(),
            ..me.clone()
        };
        assert!(!elsewhere.is_running());
        assert!(me.signal(0, false));
    }

    #[test]
    fn the_processes_above_this_one_are_listed_nearest_first() {
        let ancestors = ancestors();
        let parent = stat(std::process::id()).unwrap().parent;
        assert_eq!(ancestors.first().map(|a| a.pid), Some(parent));
    }
}
