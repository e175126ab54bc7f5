//! A mutation fuzzer over the trust boundary (steward-design(7), "Threat
//! model"): a store in many states (goals open, blocked, waiting, with a
//! plan; runs, one in a worktree of its own; an obligation; an answer
//! from the phone the agent forged; answers offered; a second
//! clone; a goal made from a GitHub issue, whose end steward tells the
//! issue, against a loopback GitHub API), every file steward keeps or reads
//! changed the way an agent with a shell could change it — or pushed,
//! changed, by a collaborator with their own clone and key — then every
//! deciding path run (the command line, the hooks, MCP, `sync`), and the
//! promises checked.
//!
//! Seeded and bounded: `STEWARD_MUTATION_CASES` sets the number of cases
//! (the suite runs a few dozen), `STEWARD_MUTATION_SEED` the seed; a
//! failure names the case's seed, file and mutation, and
//! `STEWARD_MUTATION_CASE=<case seed>` replays that case alone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Lcg, Request, TestEnv, git, serve_json};

/// The limits steward-design(7), "Threat model", names: a promise a
/// mutation may break only by one of these, and the threat model must
/// name each (checked below), so that the two cannot drift.
const LIMITS: &[(&str, &str)] = &[
    // Level 3: what the operating system must enforce.
    ("the key's folder", "`~/.config/steward/`"),
];

/// Each limit the fuzzer allows is one the threat model names.
#[test]
fn the_fuzzers_exceptions_are_the_threat_models_limits() {
    let design = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("man/steward-design.7.md"),
    )
    .unwrap();
    let model = design
        .split("### Threat model")
        .nth(1)
        .and_then(|rest| rest.split("\n### ").next())
        .expect("the threat model section");
    for (name, words) in LIMITS {
        assert!(
            model.contains(words),
            "{name}: `{words}` is not in the threat model"
        );
    }
}

/// How an agent changes one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mutation {
    /// One byte replaced by another.
    Byte,
    /// A word that decides something swapped for its weaker twin.
    Loosen,
    /// One of its lines, loosened, appended: what a reader of new lines
    /// only (the log's) meets.
    Append,
    Truncate,
    Delete,
    /// Moved to another name within the store.
    Move,
    /// Replaced by the file of the same name in another store the agent
    /// made (its goal weakened, its configuration loose).
    Foreign,
    /// Put back as it was before the last change.
    Older,
    /// A symbolic link to a file outside the store.
    Link,
    Fifo,
    Huge,
    /// Replaced by a directory of the same name (holding a file).
    Directory,
}

const MUTATIONS: &[Mutation] = &[
    Mutation::Byte,
    Mutation::Loosen,
    Mutation::Loosen,
    Mutation::Append,
    Mutation::Truncate,
    Mutation::Delete,
    Mutation::Move,
    Mutation::Foreign,
    Mutation::Foreign,
    Mutation::Older,
    Mutation::Link,
    Mutation::Fifo,
    Mutation::Huge,
    Mutation::Directory,
];

/// Words whose swap loosens a goal, a record or the configuration.
const LOOSER: &[(&str, &str)] = &[
    ("- [ ] ", "- [x] "),
    ("person", "agent"),
    ("status: active", "status: completed"),
    ("status: blocked", "status: active"),
    ("file_exists", "manual"),
    ("built.txt", "steward.yaml"),
    ("true", "false"),
    ("false", "true"),
    ("\"cost_usd\":", "\"cost_usd\":0,\"x\":"),
    ("for_person", "for_agent"),
    // An event of the log made a goal's end (the issue told of it).
    ("\"to\":null", "\"to\":\"completed\""),
];

/// A GitHub REST API on 127.0.0.1 that knows issue acme/app#1 (whose
/// task list is goal a's criteria) and takes every write; it keeps the
/// request line of each request.
struct Github {
    address: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Github {
    fn start() -> Github {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let address = serve_json(move |request: &Request| {
            let line = request.head.lines().next().unwrap_or_default().to_string();
            let body = if line.starts_with("GET /repos/acme/app/issues/1 ") {
                r#"{"id": 1000, "number": 1, "state": "open", "title": "A", "body": "- [ ] Built\n- [ ] Reviewed\n", "labels": [], "html_url": "https://github.com/acme/app/issues/1"}"#
            } else {
                "{}"
            };
            seen.lock().unwrap().push(line);
            ("200 OK", body.to_string())
        });
        Github { address, requests }
    }

    /// The writes (comments, closes, pull requests) it took after the
    /// first `since` requests.
    fn writes_after(&self, since: usize) -> Vec<String> {
        (self.requests.lock().unwrap().iter().skip(since))
            .filter(|line| !line.starts_with("GET "))
            .cloned()
            .collect()
    }

    fn seen(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

/// The fixture: one store, in several states at once, and a scratch store
/// of the agent's with the same goals weakened.
struct Fixture {
    env: TestEnv,
    /// The store's git remote, and a collaborator's clone of it (their
    /// own home, so their own key).
    remote: PathBuf,
    collaborator: TestEnv,
    /// The store, the key's folder, the remote and the collaborator's
    /// clone as the cases start from.
    snapshot: PathBuf,
    /// The same, as they were before the last tick (for `Older`).
    earlier: PathBuf,
    scratch: tempfile::TempDir,
    outside: tempfile::TempDir,
    /// Where the notifier writes what the person is told (`told.json`,
    /// one document a line), outside the store and the snapshots.
    told: tempfile::TempDir,
    _snapshots: tempfile::TempDir,
    goal_a: String,
    /// Blocked by its agent's `assess --stuck`; an answer the agent forged
    /// waits in `state/replies/`.
    goal_c: String,
    /// Where goal a came from; no case may make steward write there.
    github: Github,
}

fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

fn replace_tree(from: &Path, to: &Path) {
    if to.exists() {
        std::fs::remove_dir_all(to).unwrap();
    }
    std::fs::create_dir_all(to).unwrap();
    copy_tree(from, to);
}

impl Fixture {
    fn new() -> Fixture {
        let env = TestEnv::new().on_machine("here");
        git(env.root(), &["init", "-q", "-b", "main"]);
        identify(env.root(), "here");
        env.steward().args(["init", "--git"]).assert().success();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "the person's file\n").unwrap();
        let told = tempfile::tempdir().unwrap();
        let github = Github::start();
        // This machine's own settings beside the store's: both are files
        // an agent can write.
        env.write(
            "state/local/steward.yaml",
            "circuit_breaker:\n  enabled: true\n",
        );
        // A fake agent that really runs: its run leaves a record.
        env.executable("agent.sh", "#!/bin/sh\necho 'looked at it'\n");
        let settings = format!(
            "judge:\n  unchecked: person\nverification:\n  allow_commands: true\n  github_api: http://{github}\nglobal_limits:\n  max_active_goals: 6\ngit:\n  commit: true\n  timeout: 5s\nagents:\n  fake:\n    command: [./agent.sh]\n    output: text\nnotify:\n  command: [sh, -c, 'tr -d \"\\\\n\" >> {told}; echo >> {told}']\nreply:\n  git_url: \"https://git.example/new/main?filename={{path}}&value={{content}}\"\nintake:\n  close: true\n",
            told = told.path().join("told.json").display(),
            github = github.address,
        );
        env.write_config(&format!(
            "{settings}dispatch:\n  enabled: true\n  agent: fake\n  sandbox: off\n  pass_at_run_end: false\n"
        ));
        // a: a check that fails and a criterion only a person judges, made
        // from issue acme/app#1: its end is the issue's to hear.
        env.steward()
            .args(["add", "--from-issue", "acme/app#1", "a"])
            .args(["--verify", "file_exists:built.txt@1"])
            .assert()
            .success();
        assert!(env.path("state/issues.json").exists());
        // b: a command a person accepted.
        env.steward()
            .args(["add", "b", "--title", "B", "--criterion", "Ran"])
            .args(["--verify", "command_exit_zero:touch ran-b@1"])
            .assert()
            .success();
        env.add_goal("c");
        env.add_goal("d");
        // e: a plan, and a run in a worktree of its own.
        env.add_goal("e");
        let plan = std::fs::read_to_string(format!(
            "{}/fixtures/plans/valid.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        env.steward()
            .args(["plan", "import", "e"])
            .write_stdin(plan)
            .assert()
            .success();
        let agent = |args: &[&str]| {
            env.steward()
                .env("CLAUDECODE", "1")
                .args(args)
                .assert()
                .success();
        };
        agent(&["assess", "c", "--summary", "need a token", "--stuck"]);
        agent(&[
            "assess",
            "d",
            "--summary",
            "waiting",
            "--wait-until",
            "2026-11-22T00:00:00Z",
        ]);
        agent(&["assess", "a", "--summary", "started", "--met", "2"]);
        agent(&["task", "spawned", "--label", "a-tests", "--goal", "a"]);
        env.steward().args(["dispatch", "b"]).assert().success();
        env.settle();
        git(env.root(), &["add", "-A"]);
        git(env.root(), &["commit", "-q", "-m", "the store so far"]);
        env.write_config(&format!(
            "{settings}dispatch:\n  enabled: true\n  agent: fake\n  sandbox: off\n  worktree: true\n  pass_at_run_end: false\n"
        ));
        env.steward().args(["config", "accept"]).assert().success();
        env.steward().args(["dispatch", "e"]).assert().success();
        env.settle();
        assert_eq!(env.runs().len(), 2, "the fixture's runs left their records");
        assert!(
            env.runs().iter().any(|r| r["worktree"].is_object()),
            "{:?}",
            env.runs()
        );
        // No more runs: a case's tick must not start one while the next
        // case puts the store back.
        env.write_config(&format!("{settings}dispatch:\n  enabled: false\n"));
        let dir = tempfile::tempdir().unwrap();
        let remote = dir.path().join("remote.git");
        git(
            dir.path(),
            &[
                "init",
                "-q",
                "--bare",
                "-b",
                "main",
                remote.to_str().unwrap(),
            ],
        );
        git(
            env.root(),
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        git(env.root(), &["push", "-q", "origin", "main"]);
        let collaborator = TestEnv::new().on_machine("collaborator");
        git(
            collaborator.root(),
            &["clone", "-q", remote.to_str().unwrap(), "."],
        );
        identify(collaborator.root(), "collaborator");
        let snapshots = tempfile::tempdir().unwrap();
        let earlier = snapshots.path().join("earlier");
        snapshot(&env, &earlier);
        env.steward().args(["tick", "-q"]).assert().code(3);
        env.steward().arg("sync").assert().success();
        git(
            collaborator.root(),
            &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
        );
        // An answer the agent wrote for its blocked goal c, signed by no
        // key: every case's `sync` and `tick` take it (and refuse it).
        let goal_c = env.goal_json("c")["id"].as_str().unwrap().to_string();
        let nonce = "5eed5eed5eed5eed5eed5eed5eed5eed";
        env.write(
            &format!("state/replies/{nonce}.json"),
            &format!(
                "{{\"note\": \"the token is in the vault\", \"reply\": {{\"v\": 1, \"machine\": \"here\", \"nonce\": \"{nonce}\", \"act\": \"unblock\", \"goal\": \"{goal_c}\", \"label\": \"c\", \"state\": \"{}\", \"issued\": \"2026-11-21T04:00:00Z\", \"expires\": \"2026-11-22T04:00:00Z\"}}, \"sig\": \"{}\"}}\n",
                // The goal's true state: only the signature stands
                // between the answer and the unblock.
                sha256_of(&env.path("state/goals/c.md")),
                "0".repeat(128)
            ),
        );
        let snapshot_dir = snapshots.path().join("now");
        snapshot(&env, &snapshot_dir);
        copy_tree(&remote, &snapshot_dir.join("remote"));
        copy_tree(collaborator.root(), &snapshot_dir.join("collaborator"));
        // The agent's own store, with the same goals weakened: its first
        // write seals them as they are; its configuration is loose.
        let scratch = tempfile::tempdir().unwrap();
        copy_tree(env.root(), scratch.path());
        std::fs::remove_dir_all(scratch.path().join("state/seals")).unwrap();
        for entry in std::fs::read_dir(scratch.path().join("state/goals")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path)
                    .unwrap()
                    .replace("- [ ] ", "- [x] ")
                    .replace("file_exists", "command_exit_zero")
                    .replace("built.txt", "touch pwned");
                std::fs::write(&path, text).unwrap();
            }
        }
        std::fs::write(
            scratch.path().join("steward.yaml"),
            "judge:\n  unchecked: agent\nverification:\n  allow_commands: true\n  allow_private_hosts: true\nglobal_limits:\n  max_active_goals: 500\ncircuit_breaker:\n  enabled: false\n",
        )
        .unwrap();
        let _ = env
            .steward()
            .env("CLAUDECODE", "1")
            .current_dir(scratch.path())
            .args(["tick", "-q"])
            .assert();
        let goal_a = env.goal_json("a")["id"].as_str().unwrap().to_string();
        std::mem::forget(dir);
        Fixture {
            env,
            remote,
            collaborator,
            snapshot: snapshot_dir,
            earlier,
            scratch,
            outside,
            told,
            _snapshots: snapshots,
            goal_a,
            goal_c,
            github,
        }
    }

    /// The store and the key's folder back as the cases start from.
    fn restore(&self) {
        replace_tree(&self.snapshot.join("store"), self.env.root());
        replace_tree(&self.snapshot.join("home"), self.env.home());
        replace_tree(&self.snapshot.join("remote"), &self.remote);
        replace_tree(
            &self.snapshot.join("collaborator"),
            self.collaborator.root(),
        );
    }

    /// The files a collaborator can push: those the store's git tracks,
    /// and this machine's own settings, which git never should.
    fn pushable(&self) -> Vec<PathBuf> {
        let root = self.collaborator.root();
        let tracked = git(root, &["ls-files"]);
        let mut files: Vec<PathBuf> = tracked.lines().map(|f| root.join(f)).collect();
        files.push(root.join(LOCAL_SETTINGS));
        files
    }

    /// Every file steward keeps or reads, the key's folder included.
    fn files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let kind = entry.file_type().unwrap();
                if kind.is_dir() {
                    walk(&path, out);
                } else if kind.is_file() && !path.ends_with("state/lock") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(self.env.root(), &mut files);
        walk(&self.env.home().join(".config/steward"), &mut files);
        files.sort();
        files
    }
}

/// This machine's own settings, which a collaborator can force into git.
const LOCAL_SETTINGS: &str = "state/local/steward.yaml";

fn identify(dir: &Path, name: &str) {
    git(dir, &["config", "user.name", name]);
    git(
        dir,
        &["config", "user.email", &format!("{name}@example.com")],
    );
}

/// The collaborator commits what the case changed in their clone,
/// whatever git's attributes or ignores say, and pushes it; `false` when
/// there was nothing git could commit.
fn push_as_collaborator(fx: &Fixture) -> bool {
    let root = fx.collaborator.root();
    let quiet = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    quiet(&["add", "-A", "-f"])
        && quiet(&["commit", "-q", "-m", "a collaborator's change"])
        && quiet(&["push", "-q", "origin", "main"])
}

fn snapshot(env: &TestEnv, to: &Path) {
    for (from, name) in [(env.root(), "store"), (env.home(), "home")] {
        let dir = to.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        copy_tree(from, &dir);
    }
}

/// Applies `mutation` to `path`; what it did, or `None` when it does not
/// apply to this file.
fn mutate(
    fx: &Fixture,
    root: &Path,
    path: &Path,
    mutation: Mutation,
    random: &mut Lcg,
) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let relative_to_home = path.strip_prefix(fx.env.home()).ok();
    let twin = |base: &Path| {
        relative_to_home.map_or_else(
            || base.join("store").join(path.strip_prefix(root).unwrap()),
            |inside| base.join("home").join(inside),
        )
    };
    match mutation {
        Mutation::Byte => {
            if bytes.is_empty() {
                return None;
            }
            let mut bytes = bytes;
            let at = random.next(bytes.len() as u64) as usize;
            let bytes_to_put = b"x0 :-\n[]\"{}";
            let byte = bytes_to_put[random.next(bytes_to_put.len() as u64) as usize];
            bytes[at] = byte;
            std::fs::write(path, bytes).unwrap();
            Some(format!("byte {at} made {:?}", byte as char))
        }
        Mutation::Loosen => {
            let text = String::from_utf8(bytes).ok()?;
            let found: Vec<&(&str, &str)> = LOOSER
                .iter()
                .filter(|(from, _)| text.contains(from))
                .collect();
            let (from, to) = **found.get(random.next(found.len() as u64) as usize)?;
            std::fs::write(path, text.replacen(from, to, 1)).unwrap();
            Some(format!("{from:?} made {to:?}"))
        }
        Mutation::Append => {
            let text = String::from_utf8(bytes).ok()?;
            let lines: Vec<&str> = (text.lines())
                .filter(|l| LOOSER.iter().any(|(from, _)| l.contains(from)))
                .collect();
            let line = *lines.get(random.next(lines.len() as u64) as usize)?;
            let found: Vec<&(&str, &str)> = LOOSER
                .iter()
                .filter(|(from, _)| line.contains(from))
                .collect();
            let (from, to) = **found.get(random.next(found.len() as u64) as usize)?;
            let separator = if text.ends_with('\n') { "" } else { "\n" };
            let appended = format!("{separator}{}\n", line.replacen(from, to, 1));
            std::fs::write(path, format!("{text}{appended}")).unwrap();
            Some(format!("a line appended, {from:?} made {to:?}"))
        }
        Mutation::Truncate => {
            let keep = random.next(bytes.len() as u64 + 1) as usize;
            std::fs::write(path, &bytes[..keep]).unwrap();
            Some(format!("cut to {keep} bytes"))
        }
        Mutation::Delete => {
            std::fs::remove_file(path).unwrap();
            Some("deleted".to_string())
        }
        Mutation::Move => {
            let others = if root == fx.env.root() {
                fx.files()
            } else {
                fx.pushable()
            };
            let other = random.pick(&others).clone();
            let to = other.with_file_name(format!(
                "{}-moved",
                path.file_name().unwrap().to_string_lossy()
            ));
            let to = if random.next(2) == 0 { other } else { to };
            if to == path || !to.parent().is_some_and(Path::is_dir) {
                return None;
            }
            std::fs::rename(path, &to).unwrap();
            Some(format!("moved over {}", to.display()))
        }
        Mutation::Foreign => {
            let inside = path.strip_prefix(root).ok()?;
            let theirs = std::fs::read(fx.scratch.path().join(inside)).ok()?;
            std::fs::write(path, theirs).unwrap();
            Some("replaced by the agent's store's".to_string())
        }
        Mutation::Older => {
            let older = std::fs::read(twin(&fx.earlier)).ok()?;
            if older == bytes {
                return None;
            }
            std::fs::write(path, older).unwrap();
            Some("put back as before the last tick".to_string())
        }
        Mutation::Link => {
            std::fs::remove_file(path).unwrap();
            std::os::unix::fs::symlink(fx.outside.path().join("keep.txt"), path).unwrap();
            Some("a link to a file outside".to_string())
        }
        Mutation::Fifo => {
            std::fs::remove_file(path).unwrap();
            let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid C string; mkfifo reads it only.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            Some("a FIFO".to_string())
        }
        Mutation::Huge => {
            let mut huge = bytes;
            huge.resize(3 * 1024 * 1024, b'x');
            std::fs::write(path, huge).unwrap();
            Some("grown to 3 MiB".to_string())
        }
        Mutation::Directory => {
            std::fs::remove_file(path).unwrap();
            std::fs::create_dir(path).unwrap();
            std::fs::write(path.join("inside"), bytes).unwrap();
            Some("made a directory".to_string())
        }
    }
}

/// What a deciding command did.
struct Ran {
    code: Option<i32>,
    stderr: String,
}

/// Runs steward with `args` in the fixture's store, bounded in time.
fn run(fx: &Fixture, case: &str, agent: bool, args: &[&str]) -> Ran {
    let mut cmd = fx.env.process();
    cmd.args(["--lock-timeout", "5s"]).args(args);
    run_bounded(cmd, case, agent, &format!("steward {args:?}"), None)
}

/// Runs `cmd` (as the agent when `agent`) with `input` on its stdin, and
/// kills it, failing the case, when it takes more than 30 seconds.
fn run_bounded(
    mut cmd: std::process::Command,
    case: &str,
    agent: bool,
    what: &str,
    input: Option<&str>,
) -> Ran {
    if agent {
        cmd.env("CLAUDECODE", "1");
    }
    let mut child = cmd
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = input {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(input.as_bytes());
    }
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return Ran {
                code: status.code(),
                stderr,
            };
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("{case}: {what} hung");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// No panic, and a documented exit code.
fn keeps_its_word(case: &str, what: &str, ran: &Ran) {
    assert!(
        !ran.stderr.contains("panicked"),
        "{case}: {what} panicked: {}",
        ran.stderr
    );
    let code = ran.code.unwrap_or(-1);
    assert!(
        EXIT_CODES.contains(&code),
        "{case}: {what} exited {code}: {}",
        ran.stderr
    );
}

/// The Python with the MCP SDK, as `tests/cli/mcp.rs` finds it: `None`
/// (said once, SKIPPED) where it is missing, unless CI requires it.
fn mcp_python() -> Option<String> {
    static FOUND: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let python =
                std::env::var("STEWARD_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string());
            let has_sdk = std::process::Command::new(&python)
                .args(["-c", "import mcp"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !has_sdk {
                assert!(
                    std::env::var_os("STEWARD_REQUIRE_MCP_CLIENT").is_none(),
                    "the MCP client is required (STEWARD_REQUIRE_MCP_CLIENT) and {python} has no `mcp`"
                );
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr(),
                    b"SKIPPED: the mutation fuzzer's MCP path: no Python `mcp` package\n",
                );
            }
            has_sdk.then_some(python)
        })
        .clone()
}

/// The documented exit codes (steward-reference(5), "EXIT CODES").
const EXIT_CODES: &[i32] = &[0, 1, 2, 3, 4, 5, 75];

/// Whether the log holds a completion of goal `id` (by the judge). Only
/// regular files are read: a FIFO put in the log's place would hang the
/// reader.
/// The SHA-256 of the file at `path`, in hex.
fn sha256_of(path: &Path) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(std::fs::read(path).unwrap());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether the event log holds `action` on goal `id`.
fn logged(fx: &Fixture, id: &str, action: &str) -> bool {
    let dir = fx.env.path("state/events");
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .flat_map(|text| text.lines().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(&line).ok())
        .any(|e| e["goal_id"] == id && e["action"] == action)
}

/// What `config --json` says of `key`, as a person sees it.
fn setting(fx: &Fixture, key: &str) -> Option<String> {
    let output = fx
        .env
        .steward()
        .args(["--json", "config"])
        .output()
        .unwrap();
    let config: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    config["settings"]
        .as_array()?
        .iter()
        .find(|s| s["key"] == key)
        .and_then(|s| s["value"].as_str().map(str::to_string))
}

fn outside_files(dir: &Path) -> BTreeSet<(String, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|kind| kind.is_file()))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect()
}

/// The agent asks for a person on goal d, which waits until then.
const STUCK: &[&str] = &["assess", "d", "--summary", "need a person", "--stuck"];

/// The promises every case keeps, whatever was changed: no panic, no
/// hang, a documented exit code; goal `a` never completed (its check
/// fails, and a person judges its second criterion); no command run that
/// no person accepted; nothing outside the store touched; the
/// configuration no looser than the person accepted; a person told when
/// the agent asks for one — or the change was one of the threat model's
/// limits.
fn check(fx: &Fixture, case: &str, limit: Option<&str>) {
    let before = outside_files(fx.outside.path());
    let deciding: &[(bool, &[&str])] = &[
        (
            true,
            &[
                "complete", "a", "--reason", "done", "--met", "1", "--met", "2",
            ],
        ),
        (true, &["assess", "a", "--summary", "x", "--met", "1"]),
        (true, &["prompt", "--heartbeat"]),
        (true, &["unblock", "c"]),
        (true, &["config", "accept"]),
        (true, STUCK),
        (false, &["tick", "-q"]),
        (true, &["complete", "a", "--reason", "done again"]),
        (false, &["budget"]),
        (false, &["status"]),
        (false, &["doctor"]),
    ];
    // `sync` first: what a collaborator pushed arrives as cron would
    // bring it.
    let told = fx.told.path().join("told.json");
    std::fs::write(&told, "").unwrap();
    let asked = fx.github.seen();
    let sync = run(fx, case, false, &["sync"]);
    keeps_its_word(case, "steward sync", &sync);
    let mut stuck = false;
    for (agent, args) in deciding {
        let ran = run(fx, case, *agent, args);
        keeps_its_word(case, &format!("steward {args:?}"), &ran);
        stuck |= *args == STUCK && ran.code == Some(0);
    }
    // The agent asked for a person: whatever it changed, the pass tells
    // the person (the notifier's document names the goal, blocked).
    if stuck && limit.is_none() {
        let told = std::fs::read_to_string(&told).unwrap();
        let blocked_d = told
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .any(|doc| doc["goal"]["label"] == "d" && doc["goal"]["status"] == "blocked");
        assert!(
            blocked_d,
            "{case}: the person was not told that d asks for them; told: {told}"
        );
    }
    // The hooks, as the clients call them at a session's edges.
    let root = fx.env.root().display();
    for (harness, payload) in [
        (
            "claude-code",
            format!(
                r#"{{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"{root}","hook_event_name":"SessionStart","source":"startup"}}"#
            ),
        ),
        (
            "claude-code",
            format!(
                r#"{{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"{root}","hook_event_name":"Stop","stop_hook_active":false}}"#
            ),
        ),
        (
            "codex",
            format!(
                r#"{{"session_id":"s2","turn_id":"t1","transcript_path":"/tmp/r.jsonl","cwd":"{root}","hook_event_name":"Stop","model":"m","permission_mode":"default","stop_hook_active":false}}"#
            ),
        ),
    ] {
        let mut cmd = fx.env.process();
        cmd.args(["hook", harness]);
        let ran = run_bounded(cmd, case, true, &format!("hook {harness}"), Some(&payload));
        keeps_its_word(case, &format!("steward hook {harness}"), &ran);
        assert_eq!(ran.code, Some(0), "{case}: a hook failed: {}", ran.stderr);
    }
    // MCP, through the SDK's client, as both clients reach steward.
    if let Some(python) = mcp_python() {
        let calls = r#"[["goal_assess", {"goal": "a", "summary": "x", "met": [1, 2]}], ["goal_complete", {"goal": "a", "reason": "done"}], ["goal_update", {"goal": "a", "verify": ["file_exists:.@1"]}]]"#;
        let mut cmd = fx.env.program(python);
        cmd.env("PYTHONDONTWRITEBYTECODE", "1")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
            .arg(calls)
            .arg("--")
            .arg(assert_cmd::cargo::cargo_bin("steward"))
            .arg("mcp");
        let ran = run_bounded(cmd, case, true, "steward mcp", None);
        keeps_its_word(case, "steward mcp", &ran);
        assert_eq!(
            ran.code,
            Some(0),
            "{case}: the MCP session failed: {}",
            ran.stderr
        );
    }
    assert!(
        !logged(fx, &fx.goal_a, "completed"),
        "{case}: goal a was completed by the agent"
    );
    // No goal ends a person caused: GitHub hears nothing.
    let writes = fx.github.writes_after(asked);
    assert!(
        writes.is_empty(),
        "{case}: steward wrote to GitHub: {writes:?}"
    );
    assert!(
        !logged(fx, &fx.goal_c, "unblocked"),
        "{case}: goal c was unblocked, and no person answered"
    );
    assert!(
        !fx.env.path("pwned").exists(),
        "{case}: a command no person accepted ran"
    );
    assert_eq!(
        outside_files(fx.outside.path()),
        before,
        "{case}: a file outside the store changed"
    );
    if limit.is_none() {
        for (key, wanted) in [
            ("judge.unchecked", "person"),
            ("verification.allow_private_hosts", "false"),
            ("circuit_breaker.enabled", "true"),
        ] {
            if let Some(value) = setting(fx, key) {
                assert_eq!(value, wanted, "{case}: {key} loosened");
            }
        }
        if let Some(max) = setting(fx, "global_limits.max_active_goals") {
            assert!(
                max.parse::<u64>().is_ok_and(|n| n <= 6),
                "{case}: max_active_goals is {max}"
            );
        }
    }
}

#[test]
fn no_change_an_agent_makes_to_the_stores_files_breaks_a_promise() {
    let cases: u64 = std::env::var("STEWARD_MUTATION_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24);
    let seed: u64 = std::env::var("STEWARD_MUTATION_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2026);
    let fx = Fixture::new();
    // The untouched store keeps every promise.
    fx.restore();
    check(&fx, "no change", None);
    let replay: Option<u64> = std::env::var("STEWARD_MUTATION_CASE")
        .ok()
        .and_then(|n| n.parse().ok());
    let cases = if replay.is_some() { 1 } else { cases };
    let mut random = Lcg(seed);
    let (mut ran, mut pushes) = (0, 0);
    while ran < cases {
        let case_seed = replay.unwrap_or_else(|| random.next(u64::MAX));
        let mut case = Lcg(case_seed);
        fx.restore();
        // One case in three is a collaborator's push; the rest, an agent's
        // shell on this machine.
        let pushed = case.next(3) == 0;
        let (root, files) = if pushed {
            (fx.collaborator.root(), fx.pushable())
        } else {
            (fx.env.root(), fx.files())
        };
        let mutation = *case.pick(MUTATIONS);
        // An appended line matters where a reader reads new lines only:
        // the event log's days, among the many files of the store.
        let appendable: Vec<PathBuf> = (files.iter())
            .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
            .cloned()
            .collect();
        let path = if mutation == Mutation::Append && !appendable.is_empty() {
            case.pick(&appendable).clone()
        } else {
            case.pick(&files).clone()
        };
        let what = if path.ends_with(LOCAL_SETTINGS) && pushed {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::copy(fx.scratch.path().join("steward.yaml"), &path).unwrap();
            Some("the agent's loose settings, force-added".to_string())
        } else {
            mutate(&fx, root, &path, mutation, &mut case)
        };
        let Some(what) = what else {
            assert!(replay.is_none(), "case seed {case_seed} changes nothing");
            continue;
        };
        if pushed && !push_as_collaborator(&fx) {
            assert!(replay.is_none(), "case seed {case_seed} pushes nothing");
            continue;
        }
        ran += 1;
        pushes += u64::from(pushed);
        let shown = path
            .strip_prefix(root)
            .or_else(|_| path.strip_prefix(fx.env.home()))
            .unwrap_or(&path)
            .display()
            .to_string();
        // A file of the key's folder changed, or one moved over it.
        let home = fx.env.home().display().to_string();
        let limit =
            (path.starts_with(fx.env.home()) || what.contains(&home)).then_some(LIMITS[0].0);
        let who = if pushed { "pushed" } else { "agent" };
        let name = format!("case seed {case_seed} ({who} {mutation:?} {shown}: {what})");
        check(&fx, &name, limit);
    }
    assert!(cases < 6 || pushes > 0, "no case was a collaborator's push");
}
