//! A temporary store root, a clean environment and a fixed clock.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub const NOW: &str = "2026-11-21T04:00:00Z";

pub struct TestEnv {
    dir: tempfile::TempDir,
    /// The home of the person running steward: its machine key, out of
    /// the store.
    home: tempfile::TempDir,
    now: String,
    /// The machine's name (`STEWARD_MACHINE_ID`), for several machines.
    machine: Option<String>,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        TestEnv {
            dir: tempfile::tempdir().expect("temp dir"),
            home: tempfile::tempdir().expect("temp dir"),
            now: NOW.to_string(),
            machine: None,
        }
    }

    /// The home steward runs with (`~/.config/steward` is in it).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// `steward` run in the root with only the variables a test sets.
    pub fn steward(&self) -> Command {
        Command::from_std(self.process())
    }

    /// The same as a plain process, for tests that run many at once.
    pub fn process(&self) -> std::process::Command {
        self.program(assert_cmd::cargo::cargo_bin("steward"))
    }

    /// Another program, run in the root with the same clean environment.
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        cmd.env_clear()
            .current_dir(self.root())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("STEWARD_NOW", &self.now)
            .env("HOME", self.home.path())
            .envs(self.machine.iter().map(|name| ("STEWARD_MACHINE_ID", name)))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        cmd
    }

    /// The same environment, as machine `name` (`STEWARD_MACHINE_ID`).
    pub fn on_machine(mut self, name: &str) -> TestEnv {
        self.machine = Some(name.to_string());
        self
    }

    pub fn set_now(&mut self, now: &str) {
        self.now = now.to_string();
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative))
            .unwrap_or_else(|err| panic!("{relative}: {err}"))
    }

    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
}

impl TestEnv {
    /// Writes `steward.yaml` as a person would, and accepts the commands
    /// it names (`steward config accept`) once the store exists: commands
    /// nobody accepted on this machine do not run.
    pub fn write_config(&self, contents: &str) {
        self.write("steward.yaml", contents);
        if self.path("state/goals").is_dir() {
            // A file that does not load is refused here too; the test
            // says what it expects of it.
            let _ = self.steward().args(["config", "accept", "-q"]).output();
        }
    }

    /// Writes goal `label` by hand, as a person would in an editor, and
    /// accepts it (`steward accept`): a goal file steward did not write
    /// waits for a person's review until then.
    pub fn write_goal(&self, label: &str, contents: &str) {
        self.write(&format!("state/goals/{label}.md"), contents);
        self.steward()
            .args(["accept", label, "-q"])
            .assert()
            .success();
    }

    /// A store made with `init`.
    pub fn initialised() -> TestEnv {
        let env = TestEnv::new();
        env.steward().arg("init").assert().success();
        env
    }

    /// Adds a normal goal with three criteria.
    pub fn add_goal(&self, label: &str) {
        self.steward()
            .args(["add", label, "--title", &format!("Goal {label}")])
            .args([
                "--criterion",
                "First",
                "--criterion",
                "Second",
                "--criterion",
                "Third",
            ])
            .assert()
            .success();
    }

    /// Every file under the root with its bytes, to prove nothing changed.
    /// (The lock, `state/cache/sealed`, what the last pass found sealed —
    /// machine state that only saves reading seals — and the journal of
    /// the last write are left out.)
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            entries.sort();
            for path in entries {
                if path.file_name().is_some_and(|n| n == ".git" || n == "lock")
                    || path.ends_with("state/cache/sealed")
                    || path.ends_with("state/seals/journal")
                {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push((path.clone(), std::fs::read(&path).unwrap()));
                }
            }
        }
        let mut out = Vec::new();
        walk(self.root(), &mut out);
        out
    }

    /// Fails naming the files that differ from `before` (a snapshot).
    pub fn assert_unchanged(&self, before: &[(PathBuf, Vec<u8>)]) {
        let after = self.snapshot();
        let mut changed: Vec<String> = Vec::new();
        for (path, bytes) in &after {
            match before.iter().find(|(p, _)| p == path) {
                Some((_, old)) if old == bytes => {}
                Some(_) => changed.push(format!("changed: {}", path.display())),
                None => changed.push(format!("created: {}", path.display())),
            }
        }
        for (path, _) in before {
            if !after.iter().any(|(p, _)| p == path) {
                changed.push(format!("removed: {}", path.display()));
            }
        }
        assert!(changed.is_empty(), "files changed:\n{}", changed.join("\n"));
    }

    /// The goal as `show --json` prints it.
    pub fn goal_json(&self, goal: &str) -> serde_json::Value {
        let output = self
            .steward()
            .args(["show", goal, "--json"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "show {goal}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["schema_version"], 1);
        document["goal"].clone()
    }

    /// The lines of the event log (one file a day), parsed, in order.
    pub fn events(&self) -> Vec<serde_json::Value> {
        self.event_lines()
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The lines of the event log as written.
    pub fn event_lines(&self) -> Vec<String> {
        let mut days: Vec<PathBuf> = match std::fs::read_dir(self.path("state/events")) {
            Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        };
        days.sort();
        days.iter()
            .flat_map(|day| {
                std::fs::read_to_string(day)
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Agent runs: fake agents are scripts that really do the work.
impl TestEnv {
    /// Writes an executable script `name`.
    pub fn executable(&self, name: &str, text: &str) {
        self.write(name, text);
        std::fs::set_permissions(
            self.path(name),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }

    /// `steward` with the built binary's folder on PATH, as agents need.
    pub fn steward_on_path(&self) -> Command {
        let mut cmd = self.steward();
        let dir = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
        cmd.env("PATH", format!("{}:/usr/bin:/bin", dir.display()));
        cmd
    }

    /// Every agent run, as `runs --all --json` prints them.
    pub fn runs(&self) -> Vec<serde_json::Value> {
        let output = self
            .steward()
            .args(["runs", "--all", "--json"])
            .output()
            .unwrap();
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        document["runs"].as_array().unwrap().clone()
    }

    /// One `tick` with the binary on `PATH` (as cron runs it), then waits
    /// for the runs it started to end.
    pub fn tick_and_settle(&self) {
        self.steward_on_path()
            .args(["tick", "-q"])
            .assert()
            .success();
        self.settle();
    }

    /// Waits until no run is pending or running, and every run's
    /// supervisor has exited (after recording a run's end it may still
    /// commit, and a person's commit made meanwhile fails on a moved HEAD).
    pub fn settle(&self) {
        let started = std::time::Instant::now();
        let alive = |pid: &serde_json::Value| {
            (pid.as_u64().and_then(|pid| u32::try_from(pid).ok()))
                .is_some_and(steward::os::process::is_alive)
        };
        while self.runs().iter().any(|r| {
            r["state"] == "running" || r["state"] == "pending" || alive(&r["supervisor_pid"])
        }) {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "runs never ended: {:?}",
                self.runs()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Runs `git` in `dir` without the user's configuration; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git is installed");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Where steward on this machine publishes its key in a store
/// (`state/machines/<host name>.pub`, with no `machine_id` set).
pub fn machine_key_file() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("state/machines/{}.pub", host.trim())
}

/// A tiny deterministic generator: the tests need spread, not
/// randomness, and a case must replay from its seed.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number below `below` (0 when `below` is 0).
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below.max(1)
    }

    /// One of `items`, which must not be empty.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next(items.len() as u64) as usize]
    }
}

/// One request a [`serve_json`] server took.
pub struct Request {
    pub method: String,
    pub path: String,
    /// The request line and headers, up to the blank line.
    pub head: String,
    pub body: Vec<u8>,
}

/// An HTTP/1.1 server on 127.0.0.1 that stands in for a remote JSON API
/// (GitHub's): one request a connection, each answered with the status
/// (`"200 OK"`) and body `answer` gives. Returns its address.
pub fn serve_json(answer: impl Fn(&Request) -> (&'static str, String) + Send + 'static) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            let mut head = Vec::new();
            let mut byte = [0];
            while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let length: usize = (head.lines())
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                })
                .unwrap_or(0);
            let mut body = vec![0; length];
            let _ = stream.read_exact(&mut body);
            let mut words = head.split(' ');
            let request = Request {
                method: words.next().unwrap_or_default().to_string(),
                path: words.next().unwrap_or_default().to_string(),
                head: head.clone(),
                body,
            };
            let (status, body) = answer(&request);
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    address
}
