//! Processes, as Linux's `/proc` shows them: whether a recorded one is
//! still the process steward started, which programs a process runs under,
//! and stopping a process group with everything that escaped it.

use serde::{Deserialize, Serialize};

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

/// What `/proc/PID/stat` says of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// The program's name as the kernel keeps it (`comm`, at most 15 bytes).
    pub name: String,
    /// `R`, `S`, `Z`, …
    pub state: char,
    pub parent: u32,
    /// When it started, in clock ticks after boot: with the boot, what
    /// tells a process from a later one given the same pid.
    pub start: u64,
}

/// The process `pid` as `/proc` shows it, if it is there.
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
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
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

/// The arguments `pid` was started with.
pub fn command_line(pid: u32) -> Vec<String> {
    read_proc(&format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// This boot of the machine (`/proc/sys/kernel/random/boot_id`): pids and
/// start times count again from nothing after a reboot.
pub fn boot_id() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = text.trim();
    (!id.is_empty()).then(|| id.to_string())
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
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
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
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
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

/// Makes this process the parent of every orphan below it (Linux's child
/// subreaper), so that what a child started in a session of its own
/// (`setsid`, a double fork) comes back here to be killed.
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag on this
    // process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
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
    fn a_name_with_parentheses_and_spaces_is_read_whole() {
        let line =
            "42 (my (odd) prog) S 7 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.name, "my (odd) prog");
        assert_eq!((stat.state, stat.parent, stat.start), ('S', 7, 12345));
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
