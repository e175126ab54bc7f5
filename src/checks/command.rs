//! `command_exit_zero`: runs a command without a shell, in the store root, in
//! a process group of its own, and judges it by its exit status.

use std::collections::VecDeque;
use std::io::{self, PipeReader, PipeWriter, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use super::deadline::Deadline;
use super::{CheckOutcome, CheckPolicy, text};

const NOT_ALLOWED: &str = "not run: verification.allow_commands is false in steward.yaml";

/// The most output kept; the rest is read and dropped so that the command
/// never blocks on a full pipe.
const OUTPUT_CAP: usize = 64 * 1024;

/// How much of the end of the output a failure quotes, in characters.
const TAIL_CHARS: usize = 200;

/// The longest pause between two looks at whether the command has exited.
const MAX_POLL: Duration = Duration::from_millis(25);

/// How long a process killed with SIGKILL may take to be reaped before
/// `run` gives up on it (one stuck in uninterruptible I/O can take longer).
const REAP_GRACE: Duration = Duration::from_millis(500);

/// Runs `argv` if the policy allows commands. Everything the command starts
/// in its process group is killed when it ends or times out.
pub fn run(argv: &[String], policy: &CheckPolicy) -> CheckOutcome {
    if !policy.allow_commands {
        return CheckOutcome::failed(NOT_ALLOWED);
    }
    let deadline = Deadline::after(policy.command_timeout);
    match start(argv, &policy.root) {
        Ok((child, capture)) => supervise(child, &capture, deadline, &argv[0]),
        Err(detail) => CheckOutcome::failed(detail),
    }
}

/// Starts the command with its output going to a capture thread.
fn start(argv: &[String], root: &Path) -> Result<(Child, Capture), String> {
    let (reader, writer) = io::pipe().map_err(|err| format!("cannot create a pipe: {err}"))?;
    let capture = Capture::start(reader).map_err(|err| format!("cannot start a thread: {err}"))?;
    let child =
        spawn(argv, root, writer).map_err(|err| format!("cannot run `{}`: {err}", argv[0]))?;
    Ok((child, capture))
}

/// Waits for the command until the deadline and judges how it ended.
fn supervise(mut child: Child, capture: &Capture, deadline: Deadline, name: &str) -> CheckOutcome {
    match wait_for_exit(&child, deadline) {
        Ok(true) => {
            // A background process may still hold the output open; it gets
            // until the deadline, then is killed with the rest of the group.
            capture.wait(deadline);
            kill_group(&child);
            match child.wait() {
                Ok(status) => judge(status, &capture.output()),
                Err(err) => CheckOutcome::failed(format!("cannot wait for `{name}`: {err}")),
            }
        }
        Ok(false) => {
            kill_group(&child);
            reap(&mut child);
            let budget = text::duration(deadline.budget());
            CheckOutcome::failed(format!("timed out after {budget}"))
        }
        // Nothing is killed: the child may be gone (ECHILD), and its group id
        // with it.
        Err(err) => CheckOutcome::failed(format!("cannot wait for `{name}`: {err}")),
    }
}

/// Starts the command with stdin from /dev/null and stdout and stderr both
/// into `output`. Every copy of `output` in this process is closed on return,
/// even on failure, or the capture thread would never see the output end.
fn spawn(argv: &[String], root: &Path, output: PipeWriter) -> io::Result<Child> {
    let mut command = Command::new(program(&argv[0], root));
    for name in super::TOKEN_VARIABLES {
        command.env_remove(name);
    }
    command
        .args(&argv[1..])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(output.try_clone()?)
        .stderr(output)
        .process_group(0)
        .spawn()
}

/// A program named with a slash (`./ci.sh`, `bin/check`) is taken relative to
/// the root, where the command runs; a bare name is looked up on PATH.
fn program(name: &str, root: &Path) -> PathBuf {
    if name.contains('/') {
        root.join(name)
    } else {
        PathBuf::from(name)
    }
}

/// Waits until the child exits or the deadline passes, without reaping it.
/// An unreaped child keeps its pid, which is also its process group id, from
/// being reused, so killing the group afterwards cannot hit a stranger.
fn wait_for_exit(child: &Child, deadline: Deadline) -> io::Result<bool> {
    let mut pause = Duration::from_millis(1);
    loop {
        if has_exited(child)? {
            return Ok(true);
        }
        let Some(left) = deadline.remaining() else {
            return Ok(false);
        };
        thread::sleep(pause.min(left));
        pause = (pause * 2).min(MAX_POLL);
    }
}

fn has_exited(child: &Child) -> io::Result<bool> {
    // SAFETY: siginfo_t is plain old data, for which all zeroes is valid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `info` is a live, writable siginfo_t. WNOWAIT leaves the
        // child waitable, so `Child::wait` still reaps it.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            // SAFETY: waitid succeeded, so `info` is initialised; with WNOHANG
            // its pid stays zero when the child has not exited.
            return Ok(unsafe { info.si_pid() } != 0);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Sends SIGKILL to the child's process group: the command and whatever it
/// left running in the background. Only called while the child is unreaped.
fn kill_group(child: &Child) {
    let Ok(group) = libc::pid_t::try_from(child.id()) else {
        return;
    };
    // SAFETY: kill takes plain integers. Its result is of no use: the group
    // may hold nothing but the exited child.
    unsafe { libc::kill(-group, libc::SIGKILL) };
}

/// Reaps a killed child if it dies within `REAP_GRACE`; otherwise leaves it
/// rather than hold the check past its timeout.
fn reap(child: &mut Child) {
    if let Ok(true) = wait_for_exit(child, Deadline::after(REAP_GRACE)) {
        let _ = child.wait();
    }
}

fn judge(status: ExitStatus, output: &[u8]) -> CheckOutcome {
    match (status.code(), status.signal()) {
        (Some(0), _) => CheckOutcome::passed("exit 0"),
        (Some(code), _) => {
            let summary = text::tail(
                &text::one_line(&String::from_utf8_lossy(output)),
                TAIL_CHARS,
            );
            if summary.is_empty() {
                CheckOutcome::failed(format!("exit {code}"))
            } else {
                CheckOutcome::failed(format!("exit {code}: {summary}"))
            }
        }
        (None, Some(signal)) => CheckOutcome::failed(format!("killed by signal {signal}")),
        (None, None) => CheckOutcome::failed(format!("ended abnormally: {status}")),
    }
}

/// Reads the command's output on a thread of its own, so that waiting for it
/// can stop at the deadline even when a process outside the group keeps the
/// pipe open; the thread is then left to finish on its own.
struct Capture {
    tail: Arc<Mutex<Tail>>,
    done: Receiver<()>,
}

impl Capture {
    fn start(mut pipe: PipeReader) -> io::Result<Capture> {
        let tail = Arc::new(Mutex::new(Tail::default()));
        let (finished, done) = mpsc::channel();
        let shared = Arc::clone(&tail);
        thread::Builder::new()
            .name("steward-check-output".into())
            .spawn(move || {
                let mut chunk = [0; 8192];
                loop {
                    match pipe.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => lock(&shared).push(&chunk[..n]),
                        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = finished.send(());
            })?;
        Ok(Capture { tail, done })
    }

    /// Waits until the output ends or the deadline passes.
    fn wait(&self, deadline: Deadline) {
        if let Some(left) = deadline.remaining() {
            // Timing out is the point; a dead thread has nothing more to give.
            let _ = self.done.recv_timeout(left);
        }
    }

    /// The output read so far (its last `OUTPUT_CAP` bytes).
    fn output(&self) -> Vec<u8> {
        lock(&self.tail).bytes.iter().copied().collect()
    }
}

fn lock(tail: &Mutex<Tail>) -> std::sync::MutexGuard<'_, Tail> {
    // The reader thread cannot panic while holding the lock, and a tail cut
    // short would still be worth reporting.
    tail.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The last `OUTPUT_CAP` bytes of output: the end is where a failing command
/// says why.
#[derive(Default)]
struct Tail {
    bytes: VecDeque<u8>,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let excess = self.bytes.len().saturating_sub(OUTPUT_CAP);
        self.bytes.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::checks::testing;

    fn policy(root: &Path, timeout: Duration) -> CheckPolicy {
        CheckPolicy {
            allow_commands: true,
            command_timeout: timeout,
            ..testing::policy(root)
        }
    }

    fn run_line(line: &str, timeout: Duration) -> CheckOutcome {
        let root = tempfile::tempdir().unwrap();
        let argv = crate::checks::argv::split(line).unwrap();
        run(&argv, &policy(root.path(), timeout))
    }

    fn detail(outcome: CheckOutcome) -> String {
        match outcome {
            CheckOutcome::Failed { detail } => detail,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    const SECOND: Duration = Duration::from_secs(1);
    const LONG: Duration = Duration::from_secs(10);

    #[test]
    fn commands_are_not_run_unless_the_operator_allows_them() {
        let root = tempfile::tempdir().unwrap();
        let marker = root.path().join("ran");
        let argv = vec!["touch".to_string(), marker.display().to_string()];
        let outcome = run(&argv, &testing::policy(root.path()));
        assert_eq!(outcome, CheckOutcome::failed(NOT_ALLOWED));
        assert!(!marker.exists());
    }

    #[test]
    fn exit_zero_passes() {
        assert_eq!(run_line("true", LONG), CheckOutcome::passed("exit 0"));
    }

    #[test]
    fn a_failure_quotes_the_end_of_the_output() {
        let outcome = run_line("sh -c 'echo boom; exit 3'", LONG);
        assert_eq!(outcome, CheckOutcome::failed("exit 3: boom"));
    }

    #[test]
    fn stderr_is_captured_and_whitespace_collapsed() {
        let outcome = run_line("sh -c 'echo one; echo \"  two\" >&2; exit 1'", LONG);
        assert_eq!(outcome, CheckOutcome::failed("exit 1: one two"));
    }

    #[test]
    fn a_silent_failure_gives_just_the_code() {
        assert_eq!(run_line("false", LONG), CheckOutcome::failed("exit 1"));
    }

    #[test]
    fn a_signal_is_named() {
        let outcome = run_line("sh -c 'kill -9 $$'", LONG);
        assert_eq!(outcome, CheckOutcome::failed("killed by signal 9"));
    }

    #[test]
    fn a_missing_program_cannot_run() {
        let detail = detail(run_line("steward-no-such-program --flag", LONG));
        assert!(
            detail.starts_with("cannot run `steward-no-such-program`: "),
            "{detail}"
        );
    }

    #[test]
    fn runs_in_the_root_and_finds_programs_relative_to_it() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("marker"), "").unwrap();
        std::fs::create_dir(root.path().join("bin")).unwrap();
        let script = root.path().join("bin/check.sh");
        std::fs::write(&script, "#!/bin/sh\ntest -f marker\n").unwrap();
        let mut mode = std::fs::metadata(&script).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(&script, mode).unwrap();
        let policy = policy(root.path(), LONG);
        for line in ["test -f marker", "bin/check.sh", "./bin/check.sh"] {
            let argv = crate::checks::argv::split(line).unwrap();
            assert_eq!(
                run(&argv, &policy),
                CheckOutcome::passed("exit 0"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_slow_command_is_killed_at_the_timeout() {
        let start = Instant::now();
        let outcome = run_line("sleep 30", SECOND);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(outcome, CheckOutcome::failed("timed out after 1s"));
    }

    #[test]
    fn the_whole_process_group_is_killed_at_the_timeout() {
        let root = tempfile::tempdir().unwrap();
        let line = "sh -c 'sleep 0.6 && touch survived & sleep 30'";
        let argv = crate::checks::argv::split(line).unwrap();
        let outcome = run(&argv, &policy(root.path(), Duration::from_millis(300)));
        assert_eq!(outcome, CheckOutcome::failed("timed out after 300ms"));
        thread::sleep(Duration::from_millis(700));
        assert!(!root.path().join("survived").exists());
    }

    #[test]
    fn background_leftovers_are_killed_when_the_command_ends() {
        let root = tempfile::tempdir().unwrap();
        let line = "sh -c '(sleep 0.5; touch survived) >/dev/null 2>&1 &'";
        let argv = crate::checks::argv::split(line).unwrap();
        let start = Instant::now();
        let outcome = run(&argv, &policy(root.path(), LONG));
        assert!(start.elapsed() < SECOND, "{:?}", start.elapsed());
        assert_eq!(outcome, CheckOutcome::passed("exit 0"));
        thread::sleep(SECOND);
        assert!(!root.path().join("survived").exists());
    }

    #[test]
    fn a_background_process_holding_the_output_open_cannot_hold_the_check() {
        // The backgrounded `sleep` inherits stdout: the command has exited
        // but its output has not ended.
        let start = Instant::now();
        let outcome = run_line("sh -c 'sleep 30 & echo started'", SECOND);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(outcome, CheckOutcome::passed("exit 0"));
    }

    #[test]
    fn a_process_that_left_the_group_cannot_hold_the_check_either() {
        // `setsid` puts `sleep` out of reach of the group kill, so only
        // giving up on the reader thread ends the wait.
        let start = Instant::now();
        let outcome = run_line("sh -c 'setsid sleep 5 & echo started; exit 4'", SECOND);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(outcome, CheckOutcome::failed("exit 4: started"));
    }

    #[test]
    fn large_output_is_drained_and_only_its_end_quoted() {
        let line = "sh -c 'head -c 1000000 /dev/zero | tr \"\\0\" x; echo; echo the end; exit 2'";
        let detail = detail(run_line(line, LONG));
        assert!(detail.starts_with("exit 2: …xxx"), "{detail}");
        assert!(detail.ends_with("xxx the end"), "{detail}");
        assert_eq!(detail.chars().count(), "exit 2: ".len() + TAIL_CHARS);
    }

    #[test]
    fn the_tail_keeps_the_last_bytes_up_to_the_cap() {
        let mut tail = Tail::default();
        tail.push(&[b'a'; OUTPUT_CAP]);
        tail.push(b"end");
        assert_eq!(tail.bytes.len(), OUTPUT_CAP);
        assert!(tail.bytes.iter().rev().take(3).eq(b"dne"));
        assert_eq!(tail.bytes.front(), Some(&b'a'));
    }
}
