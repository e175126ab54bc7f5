//! Running an agent CLI under supervision: in its own session and process
//! group, its instruction on stdin and then end of input, its output kept
//! as a bounded tail, stopped at a timeout with SIGINT, SIGTERM, then
//! SIGKILL, and — the supervisor being a child subreaper — with every
//! process it left behind in other sessions killed too (Codex leaves its
//! shell tools running on SIGTERM).

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::agents::meter::Seen;

/// How long the agent gets after SIGINT, then after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);
/// How often the supervisor looks at the agent.
const POLL: Duration = Duration::from_millis(50);
/// How often the watch (what the run spent) is asked.
const WATCH_EVERY: Duration = Duration::from_millis(250);

/// What to start.
#[derive(Debug)]
pub struct Launch<'a> {
    pub argv: &'a [String],
    pub cwd: &'a Path,
    pub env: Vec<(String, String)>,
    /// Variables of steward's environment the agent does not inherit.
    pub unset: Vec<String>,
    /// Written to stdin, which is then closed; `None`: stdin is empty.
    pub stdin: Option<String>,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    /// The tail of each output file kept.
    pub max_bytes: u64,
    /// Sees each line of the agent's output as it comes.
    pub seen: Option<Arc<Mutex<Seen>>>,
}

/// Why the supervisor stopped the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    Timeout,
    /// No sign of life for `dispatch.stall_after`, and what it did last.
    Stalled(String),
    /// Retrying a request the account's rate limit refused, with nothing
    /// else, for as long: a usage limit, not a stall.
    LimitRetries(String),
    Requested,
    /// The watch said so, and why (a cost bound about to be crossed).
    Watch(String),
    /// The watch found the run has no goal to work for any more (closed,
    /// paused, steward turned off), and why.
    Cancelled(String),
}

/// How the agent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// The exit code, or minus the signal.
    pub exit: i32,
    pub stopped: Option<Stopped>,
}

/// A started agent.
pub struct Agent {
    child: Child,
    copiers: Vec<std::thread::JoinHandle<()>>,
}

impl Agent {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);
/// Set once this process is a subreaper: only then are orphans its own.
static SUPERVISING: AtomicBool = AtomicBool::new(false);

extern "C" fn request_stop(_signal: libc::c_int) {
    STOP_REQUESTED.store(true, Ordering::SeqCst);
}

/// Makes this process the reaper of every orphan below it, and turns
/// SIGTERM into a request to stop the agent (`runs kill`).
pub fn become_supervisor() {
    // SAFETY: the handler only stores to an atomic.
    SUPERVISING.store(true, Ordering::SeqCst);
    crate::os::process::become_subreaper();
    unsafe {
        libc::signal(
            libc::SIGTERM,
            request_stop as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// Starts the agent in a new session (so its process group is its own).
pub fn start(launch: &Launch<'_>) -> std::io::Result<Agent> {
    let (program, args) = launch
        .argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("the agent command is empty"))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(launch.cwd)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(if launch.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid is async-signal-safe; it makes the child the leader of
    // a new session and process group.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    for name in &launch.unset {
        command.env_remove(name);
    }
    let mut child = command.spawn()?;
    let mut copiers = Vec::new();
    if let (Some(text), Some(mut stdin)) = (launch.stdin.clone(), child.stdin.take()) {
        // A thread, so an agent that reads slowly cannot block the
        // supervisor; dropping stdin closes it.
        copiers.push(std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        }));
    }
    if let Some(stdout) = child.stdout.take() {
        copiers.push(copy_tail(
            stdout,
            launch.stdout.clone(),
            launch.max_bytes,
            launch.seen.clone(),
        ));
    }
    if let Some(stderr) = child.stderr.take() {
        copiers.push(copy_tail(
            stderr,
            launch.stderr.clone(),
            launch.max_bytes,
            None,
        ));
    }
    Ok(Agent { child, copiers })
}

/// Copies `from` into the file at `to`, keeping at most about `max` bytes:
/// when the file doubles that, it is rewritten with its tail. Each whole
/// line goes to `seen` as it comes.
fn copy_tail(
    mut from: impl Read + Send + 'static,
    to: PathBuf,
    max: u64,
    seen: Option<Arc<Mutex<Seen>>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let max = max.max(1024) as usize;
        let Ok(mut file) = crate::os::safe_file::create_truncated(&to) else {
            return;
        };
        let mut tail: Vec<u8> = Vec::new();
        let mut written = 0usize;
        let mut buffer = [0u8; 16 * 1024];
        // The line being read, for `seen` (a line longer than the tail is
        // not one it needs).
        let mut line: Vec<u8> = Vec::new();
        loop {
            let n = match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if let Some(seen) = &seen {
                for &byte in &buffer[..n] {
                    if byte == b'\n' {
                        if let Ok(mut seen) = seen.lock() {
                            seen.line(&String::from_utf8_lossy(&line));
                        }
                        line.clear();
                    } else if line.len() < max {
                        line.push(byte);
                    }
                }
            }
            tail.extend_from_slice(&buffer[..n]);
            if tail.len() > max {
                tail.drain(..tail.len() - max);
            }
            let _ = file.write_all(&buffer[..n]);
            written += n;
            if written > 2 * max {
                if let Ok(mut fresh) = crate::os::safe_file::create_truncated(&to) {
                    let _ = fresh.write_all(&tail);
                    file = fresh;
                }
                written = tail.len();
            }
        }
        if written > max
            && let Ok(mut fresh) = crate::os::safe_file::create_truncated(&to)
        {
            let _ = fresh.write_all(&tail);
        }
    })
}

/// Waits for the agent until `timeout`, or until a stop is requested; then
/// stops it and everything it started. Always sweeps up what the agent
/// left behind before returning.
pub fn wait(
    mut agent: Agent,
    timeout: Duration,
    watch: &mut dyn FnMut() -> Option<Stopped>,
    paused: &std::sync::atomic::AtomicU64,
) -> std::io::Result<Ended> {
    let started = Instant::now();
    // Time the agent waited for a person (seconds, kept up to date by the
    // watch) is not counted.
    let deadline = || started + timeout + Duration::from_secs(paused.load(Ordering::SeqCst));
    let pgid = agent.child.id() as i32;
    let mut stopped = None;
    let mut next_watch = Instant::now();
    let status = loop {
        if let Some(status) = agent.child.try_wait()? {
            break status;
        }
        if STOP_REQUESTED.load(Ordering::SeqCst) {
            stopped = Some(Stopped::Requested);
        } else if Instant::now() >= deadline() {
            stopped = Some(Stopped::Timeout);
        } else if Instant::now() >= next_watch {
            next_watch = Instant::now() + WATCH_EVERY;
            stopped = watch();
        }
        if stopped.is_some() {
            break stop(&mut agent.child, pgid)?;
        }
        std::thread::sleep(POLL);
    };
    sweep(pgid);
    for copier in agent.copiers.drain(..) {
        let _ = copier.join();
    }
    let exit = status
        .code()
        .unwrap_or_else(|| -status.signal().unwrap_or(0));
    Ok(Ended { exit, stopped })
}

/// SIGINT, a grace, SIGTERM, a grace, SIGKILL: to the whole process group.
fn stop(child: &mut Child, pgid: i32) -> std::io::Result<std::process::ExitStatus> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        signal_group(pgid, signal);
        let until = Instant::now() + GRACE;
        while Instant::now() < until {
            if let Some(status) = child.try_wait()? {
                return Ok(status);
            }
            std::thread::sleep(POLL);
        }
    }
    signal_group(pgid, libc::SIGKILL);
    child.wait()
}

fn signal_group(pgid: i32, signal: libc::c_int) {
    // SAFETY: kill with a negative pid signals the process group the agent
    // leads; a group that is gone gives ESRCH, which is fine.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Kills what is left: the agent's process group, and every process
/// reparented to this supervisor (it is their subreaper), with their
/// groups; then reaps them.
fn sweep(pgid: i32) {
    signal_group(pgid, libc::SIGKILL);
    // Only a subreaper's orphans are its own to kill and reap.
    if SUPERVISING.load(Ordering::SeqCst) {
        crate::os::process::kill_orphans(&[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn launch<'a>(dir: &'a Path, argv: &'a [String], stdin: Option<&str>) -> Launch<'a> {
        Launch {
            argv,
            cwd: dir,
            env: Vec::new(),
            unset: Vec::new(),
            stdin: stdin.map(str::to_string),
            stdout: dir.join("out"),
            stderr: dir.join("err"),
            max_bytes: 4096,
            seen: None,
        }
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn the_instruction_arrives_on_stdin_and_the_output_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let argv = sh("read line; echo \"got $line\"; echo oops >&2; exit 3");
        let agent = start(&launch(dir.path(), &argv, Some("hello\n"))).unwrap();
        let ended = wait(
            agent,
            Duration::from_secs(10),
            &mut || None,
            &AtomicU64::new(0),
        )
        .unwrap();
        assert_eq!(
            ended,
            Ended {
                exit: 3,
                stopped: None
            }
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out")).unwrap(),
            "got hello\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("err")).unwrap(),
            "oops\n"
        );
    }

    #[test]
    fn only_the_tail_of_a_long_output_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let argv = sh("i=0; while [ $i -lt 3000 ]; do echo line-$i; i=$((i+1)); done");
        let agent = start(&launch(dir.path(), &argv, None)).unwrap();
        wait(
            agent,
            Duration::from_secs(10),
            &mut || None,
            &AtomicU64::new(0),
        )
        .unwrap();
        let out = std::fs::read_to_string(dir.path().join("out")).unwrap();
        assert!(out.len() <= 4096, "{}", out.len());
        assert!(out.ends_with("line-2999\n"));
    }

    #[test]
    fn the_watch_sees_every_line_and_stops_the_agent_when_it_says() {
        let dir = tempfile::tempdir().unwrap();
        // More output than the tail keeps: the watch still sees it all.
        let line = r#"{"type":"assistant","message":{"id":"mID","usage":{"input_tokens":1000}}}"#;
        let argv = sh(&format!(
            "i=0; while [ $i -lt 200 ]; do echo '{}'; i=$((i+1)); done; sleep 30",
            line.replace("ID", "'$i'")
        ));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let mut launch = launch(dir.path(), &argv, None);
        launch.seen = Some(seen.clone());
        let agent = start(&launch).unwrap();
        let started = Instant::now();
        let mut watch = || {
            let input = seen.lock().unwrap().usage().input;
            (input >= 200_000).then(|| Stopped::Watch(format!("{input} input tokens")))
        };
        let ended = wait(
            agent,
            Duration::from_secs(60),
            &mut watch,
            &AtomicU64::new(0),
        )
        .unwrap();
        assert_eq!(
            ended.stopped,
            Some(Stopped::Watch("200000 input tokens".to_string()))
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
