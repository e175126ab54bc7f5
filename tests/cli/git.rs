//! Git as the audit trail: one commit per change, nothing else touched.

use predicates::prelude::*;

use crate::common::{TestEnv, git, machine_key_file};

/// A repository with a local identity and a steward store committing to
/// it, set up as a user would: `init --git`, turn commits on, commit that.
fn repository() -> TestEnv {
    let env = TestEnv::new();
    git(env.root(), &["init", "-q", "-b", "main"]);
    git(env.root(), &["config", "user.name", "Repo User"]);
    git(env.root(), &["config", "user.email", "repo@example.com"]);
    // init --git turns git.commit on and commits what it wrote.
    env.steward().args(["init", "--git"]).assert().success();
    env
}

fn commits(env: &TestEnv) -> usize {
    git(env.root(), &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .unwrap()
}

/// Steward's own paths in `git status --porcelain`.
fn steward_changes(env: &TestEnv) -> Vec<String> {
    git(env.root(), &["status", "--porcelain"])
        .lines()
        .filter(|l| l.contains("state/") || l.contains("ACTIVE-TASKS.md"))
        .map(str::to_string)
        .collect()
}

#[test]
fn each_change_is_one_commit_whose_trailers_name_the_goal() {
    let env = repository();
    env.add_goal("deploy-api");
    assert!(
        steward_changes(&env).is_empty(),
        "{:?}",
        steward_changes(&env)
    );
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "deploy-api",
            "--summary",
            "tests pass, PR open",
        ])
        .assert()
        .success();
    assert!(steward_changes(&env).is_empty());
    let id = env.goal_json("deploy-api")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let log = git(env.root(), &["log", "--format=%s|%an <%ae>%n%b%x00"]);
    let commits: Vec<&str> = log.split('\0').filter(|c| !c.trim().is_empty()).collect();
    assert_eq!(commits.len(), 3, "{log}");
    assert!(
        commits[0]
            .starts_with("deploy-api: assess — tests pass, PR open|Repo User <repo@example.com>"),
        "{}",
        commits[0]
    );
    assert!(commits[0].contains(&format!(
        "Steward-Goal: {id}\nSteward-Action: assess\nSteward-Actor: agent"
    )));
    assert!(commits[1].trim_start().starts_with("deploy-api: add"));
    // The assessment ticked no criterion: the mirror's entry is as it was.
    let files = git(env.root(), &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["state/events/2026-11-21.jsonl", "state/goals/deploy-api.md"]
    );
    git(env.root(), &["fsck", "--strict"]);
    env.steward()
        .args(["log", "deploy-api"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "agent    assess       deploy-api: assess — tests pass, PR open",
        ));
}

#[test]
fn what_the_user_staged_or_changed_stays_as_it_was() {
    let env = repository();
    env.write("notes.txt", "staged by the user\n");
    env.write("draft.txt", "changed, not staged\n");
    git(env.root(), &["add", "notes.txt"]);
    env.add_goal("g");
    let status = git(env.root(), &["status", "--porcelain"]);
    assert!(status.contains("A  notes.txt"), "{status}");
    assert!(status.contains("?? draft.txt"), "{status}");
    let committed = git(env.root(), &["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        !committed.contains("notes.txt") && !committed.contains("draft.txt"),
        "{committed}"
    );
}

/// A repository split as git splits a large index (`core.splitIndex`):
/// steward's commits rewrite only the small index, and git reads it.
#[test]
fn a_split_index_stays_split_and_reads_as_committed() {
    let env = repository();
    git(env.root(), &["config", "core.splitIndex", "true"]);
    // A few files: what a commit changes is a large part of them, so a
    // new shared index would be due at git's 20%; in a store of 100,000
    // goals it is a small part.
    git(
        env.root(),
        &["config", "splitIndex.maxPercentChange", "100"],
    );
    git(env.root(), &["update-index", "--split-index"]);
    let shared_indexes = || {
        std::fs::read_dir(env.root().join(".git"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_str().unwrap().starts_with("sharedindex.")
            })
            .count()
    };
    let before = shared_indexes();
    env.add_goal("deploy-api");
    env.steward()
        .args(["assess", "deploy-api", "--summary", "tests pass"])
        .assert()
        .success();
    assert!(
        steward_changes(&env).is_empty(),
        "{:?}",
        steward_changes(&env)
    );
    assert_eq!(shared_indexes(), before, "no new shared index");
    let index = std::fs::read(env.root().join(".git/index")).unwrap();
    assert!(index.windows(4).any(|w| w == b"link"), "still split");
    git(env.root(), &["fsck", "--cache", "--no-dangling"]);
    assert!(
        git(env.root(), &["ls-files"]).contains("state/goals/deploy-api.md"),
        "git lists the new goal"
    );
}

/// An index of 50,000 files (4.6 MB): doctor says a commit rewrites it
/// whole and how to have git split it, until the repository says.
#[test]
fn doctor_notes_an_index_every_commit_rewrites_whole() {
    let env = repository();
    let blob = git(env.root(), &["hash-object", "-w", "--stdin"]);
    let listing: String = (0..50_000)
        .map(|n| format!("100644 {} 0\tstate/goals/closed/g{n:05}.md\n", blob.trim()))
        .collect();
    let mut update = std::process::Command::new("git")
        .args(["update-index", "--index-info"])
        .current_dir(env.root())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(update.stdin.as_mut().unwrap(), listing.as_bytes()).unwrap();
    assert!(update.wait().unwrap().success());
    let doctor =
        || String::from_utf8(env.steward().arg("doctor").output().unwrap().stdout).unwrap();
    let said = doctor();
    assert!(
        said.contains("each commit rewrites it whole; `git config core.splitIndex true`"),
        "{said}"
    );
    git(env.root(), &["config", "core.splitIndex", "false"]);
    assert!(
        !doctor().contains("core.splitIndex"),
        "the repository has said"
    );
}

#[test]
fn the_first_commit_of_an_empty_repository_and_a_detached_head() {
    let env = TestEnv::new();
    git(env.root(), &["init", "-q"]);
    env.write_config("git:\n  commit: true\n");
    env.steward().args(["init", "--git"]).assert().success();
    assert_eq!(commits(&env), 1, "init committed what it wrote");
    assert_eq!(
        git(env.root(), &["show", "--name-only", "--format=", "HEAD"]),
        format!(".gitattributes\nstate/.gitignore\n{}\n", machine_key_file())
    );
    env.add_goal("g");
    assert_eq!(commits(&env), 2);
    let head = git(env.root(), &["rev-parse", "HEAD"]);
    git(env.root(), &["checkout", "-q", "--detach", head.trim()]);
    env.steward().args(["pause", "g"]).assert().success();
    assert_eq!(commits(&env), 3);
    assert!(git(env.root(), &["log", "-1", "--format=%s"]).starts_with("g: pause"));
}

#[test]
fn a_root_in_a_subdirectory_commits_its_own_paths() {
    let env = TestEnv::new();
    git(env.root(), &["init", "-q"]);
    git(env.root(), &["config", "user.name", "Repo User"]);
    git(env.root(), &["config", "user.email", "repo@example.com"]);
    std::fs::create_dir_all(env.path("ops/agent")).unwrap();
    let sub = env.path("ops/agent");
    env.steward()
        .current_dir(&sub)
        .arg("init")
        .assert()
        .success();
    env.steward()
        .current_dir(&sub)
        .args(["--commit", "add", "g", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    let files = git(env.root(), &["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains("ops/agent/state/goals/g.md"), "{files}");
    assert!(
        git(env.root(), &["status", "--porcelain"])
            .lines()
            .all(|l| !l.contains("ops/agent/state/goals"))
    );
}

#[test]
fn a_tick_that_changes_several_goals_is_one_commit() {
    let mut env = repository();
    env.add_goal("a");
    env.add_goal("b");
    let before: usize = git(env.root(), &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .unwrap();
    env.set_now("2026-11-21T05:00:00Z");
    env.steward().arg("tick").assert().success();
    assert_eq!(
        git(env.root(), &["rev-list", "--count", "HEAD"])
            .trim()
            .parse::<usize>()
            .unwrap(),
        before + 1
    );
    let message = git(env.root(), &["log", "-1", "--format=%B"]);
    assert!(message.starts_with("tick: 2 goals changed\n"), "{message}");
    assert_eq!(message.matches("Steward-Goal: ").count(), 2);
    assert!(message.contains("Steward-Actor: watchdog"), "{message}");
    // A second tick at the same time commits nothing.
    env.steward().arg("tick").assert().success();
    assert_eq!(
        git(env.root(), &["rev-list", "--count", "HEAD"])
            .trim()
            .parse::<usize>()
            .unwrap(),
        before + 1
    );
}

#[test]
fn the_author_comes_from_the_configuration_then_the_repository_then_steward() {
    let env = TestEnv::new();
    git(env.root(), &["init", "-q"]);
    env.write_config("");
    env.steward()
        .args(["--commit", "add", "a", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    assert_eq!(
        git(env.root(), &["log", "-1", "--format=%an <%ae>|%cn <%ce>"]).trim(),
        "steward <steward@localhost>|steward <steward@localhost>"
    );
    env.write_config("git:\n  commit: true\n  author: Ada Lovelace <ada@example.com>\n");
    env.steward()
        .args(["add", "b", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    assert_eq!(
        git(env.root(), &["log", "-1", "--format=%an <%ae>"]).trim(),
        "Ada Lovelace <ada@example.com>"
    );
}

#[test]
fn ignored_paths_are_said_not_committed() {
    let env = repository();
    env.write(".gitignore", "state/\n");
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "C"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "state/goals/g.md is ignored by git (see .gitignore): steward did not commit it",
        ));
}

#[test]
fn a_commit_failure_keeps_the_change_and_exits_1() {
    let env = repository();
    env.add_goal("g");
    std::fs::write(env.path(".git/index.lock"), "").unwrap();
    let output = env
        .steward()
        .args(["update", "g", "--note", "while git is busy"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("g: note added"))
        .stderr(predicate::str::contains(
            "the change is written but not committed",
        ))
        .get_output()
        .clone();
    // Said once, naming the lock and what to do about it.
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.matches("written but not committed").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains(".git/index.lock: another git process holds the index lock"),
        "{stderr}"
    );
    assert!(
        env.read("state/goals/g.md")
            .contains("user note: while git is busy")
    );
    std::fs::remove_file(env.path(".git/index.lock")).unwrap();
}

#[test]
fn no_commit_overrides_the_configuration() {
    let env = repository();
    env.steward()
        .args([
            "--no-commit",
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "C",
        ])
        .assert()
        .success();
    assert_eq!(commits(&env), 1);
    assert!(!steward_changes(&env).is_empty());
}

#[test]
fn two_clones_that_change_different_goals_merge_cleanly() {
    let origin = repository();
    origin.add_goal("alpha");
    origin.add_goal("beta");
    let clone = tempfile::tempdir().unwrap();
    let clone_path = clone.path().join("c");
    git(
        origin.root(),
        &[
            "clone",
            "-q",
            origin.root().to_str().unwrap(),
            clone_path.to_str().unwrap(),
        ],
    );
    git(&clone_path, &["config", "user.name", "Clone User"]);
    git(&clone_path, &["config", "user.email", "clone@example.com"]);
    // A fresh clone registers what git needs (the mirror's merge driver).
    origin
        .steward()
        .current_dir(&clone_path)
        .env_remove("STEWARD_ROOT")
        .args(["init", "--git"])
        .assert()
        .success();
    // Each side changes a different goal and appends to the event log.
    origin
        .steward()
        .args(["update", "alpha", "--note", "from origin"])
        .assert()
        .success();
    origin
        .steward()
        .current_dir(&clone_path)
        .env_remove("STEWARD_ROOT")
        .args(["update", "beta", "--note", "from the clone"])
        .assert()
        .success();
    git(
        &clone_path,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    let events = std::fs::read_to_string(clone_path.join("state/events/2026-11-21.jsonl")).unwrap();
    assert!(
        events.contains("from origin") && events.contains("from the clone"),
        "{events}"
    );
    assert!(!events.contains("<<<<<<<"));
    origin
        .steward()
        .current_dir(&clone_path)
        .arg("doctor")
        .assert()
        .success();
}

#[test]
fn log_falls_back_to_the_event_log_without_git() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["update", "g", "--note", "hello"])
        .assert()
        .success();
    env.steward()
        .args(["log", "g"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "2026-11-21T04:00:00Z  user     note         note: hello\n",
        ));
}

#[test]
fn init_git_turns_commits_on_as_the_flag_promises() {
    let env = TestEnv::new();
    env.steward().args(["init", "--git"]).assert().success();
    assert_eq!(
        git(env.root(), &["show", "--name-only", "--format=", "HEAD"]),
        format!(
            ".gitattributes\nstate/.gitignore\n{}\nsteward.yaml\n",
            machine_key_file()
        )
    );
    env.steward()
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"git\.commit = true +# steward\.yaml:\d+").unwrap());
    env.add_goal("g");
    assert_eq!(commits(&env), 2, "add committed");
    assert!(git(env.root(), &["status", "--porcelain"]).is_empty());

    // A store made before: the setting is appended, the rest kept.
    let old = TestEnv::new();
    old.write_config("# mine\ndefaults: {cooldown: 5m}");
    old.steward().args(["init", "--git"]).assert().success();
    assert_eq!(
        old.read("steward.yaml"),
        "# mine\ndefaults: {cooldown: 5m}\ngit:\n  commit: true\n"
    );

    // --no-commit wins over the flag's promise.
    let plain = TestEnv::new();
    plain
        .steward()
        .args(["--no-commit", "init", "--git"])
        .assert()
        .success();
    assert!(
        plain
            .read("steward.yaml")
            .contains("# git:\n#   commit: false")
    );
}

#[test]
fn a_runs_commits_name_its_goal_and_steward_and_its_machine_state_stays_out() {
    let env = repository();
    env.write_config(
        "git:\n  commit: true\ndispatch:\n  enabled: true\n  agent: fake\n  timeout: 30s\nagents:\n  fake:\n    command: [./agent.sh]\n    output: claude-json\n",
    );
    env.executable(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\necho '{\"type\":\"result\",\"is_error\":false,\"result\":\"looked\",\"session_id\":\"s1\",\"total_cost_usd\":0.25}'\n",
    );
    git(env.root(), &["add", "-A"]);
    git(env.root(), &["commit", "-q", "-m", "setup"]);
    let before = commits(&env);
    env.add_goal("g");
    env.tick_and_settle();
    // The run's end is committed just after its record is written.
    let waited = std::time::Instant::now();
    while commits(&env) < before + 3 && waited.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The add, the pass that dispatched the run, the run's end: each names
    // the goal; the run's process ids are bookkeeping, not history.
    let log = git(
        env.root(),
        &[
            "log",
            &format!("-{}", commits(&env) - before),
            "--format=%s%n%b%x00",
        ],
    );
    let messages: Vec<&str> = log
        .split('\0')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    for message in &messages {
        assert!(message.contains("Steward-Goal: "), "{message}");
    }
    assert!(
        messages[0].starts_with("g: run-agent — run "),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains("Steward-Actor: steward"),
        "{}",
        messages[0]
    );
    // A hook's session state is never committed.
    env.steward()
        .args(["hook", "claude-code"])
        .write_stdin(format!(
            r#"{{"session_id":"s-1","cwd":"{}","hook_event_name":"Stop","stop_hook_active":false}}"#,
            env.root().display()
        ))
        .assert()
        .success();
    assert!(env.path("state/hooks/s-1.json").exists());
    assert!(
        !steward_changes(&env)
            .iter()
            .any(|path| path.contains("state/hooks")),
        "{:?}",
        steward_changes(&env)
    );
}

/// A `git` that never finishes — a remote that stops answering, or a FIFO
/// an agent put among the objects — is stopped at `git.timeout`, and the
/// command says so instead of holding the store's lock for good.
#[test]
fn a_git_that_never_finishes_is_stopped_at_its_timeout() {
    let env = repository();
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    git(
        env.root(),
        &["remote", "add", "origin", remote.path().to_str().unwrap()],
    );
    git(env.root(), &["push", "-q", "origin", "main"]);
    env.write_config("git:\n  commit: true\n  timeout: 2s\n");
    let head = git(env.root(), &["rev-parse", "HEAD"]);
    let object = env.path(&format!(".git/objects/{}/{}", &head[..2], head[2..].trim()));
    std::fs::remove_file(&object).unwrap();
    let name = std::ffi::CString::new(object.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string; mkfifo reads it only.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    env.steward()
        .arg("sync")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "after 2s without finishing (git.timeout)",
        ));
}

#[test]
fn an_object_cut_short_never_holds_a_command_past_the_git_timeout() {
    // libgit2 loops for ever on a loose object cut short, and waits for a
    // writer on a FIFO: both are an agent's shell away.
    for damage in ["cut short", "a FIFO"] {
        let env = repository();
        env.write_config("git:\n  commit: true\n  timeout: 2s\n");
        env.add_goal("a");
        let head = git(env.root(), &["rev-parse", "HEAD"]);
        let object = env.path(&format!(".git/objects/{}/{}", &head[..2], head[2..].trim()));
        let bytes = std::fs::read(&object).unwrap();
        std::fs::remove_file(&object).unwrap();
        if damage == "cut short" {
            std::fs::write(&object, &bytes[..bytes.len() / 2]).unwrap();
        } else {
            let name = std::ffi::CString::new(object.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid C string; mkfifo reads it only.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        }
        // The assessment is kept; only the commit is given up.
        env.steward()
            .args(["assess", "a", "--summary", "half way", "--met", "1"])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(1)
            .stdout(predicate::str::contains("a: assessed"))
            .stderr(predicate::str::contains(
                "committing: git did not finish within 2s (git.timeout)",
            ));
        env.steward()
            .args(["log", "a"])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(1)
            .stderr(predicate::str::contains("reading the goal's history"));
        env.steward()
            .args(["show", "a"])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .success()
            .stdout(predicate::str::contains("half way"));
    }
}

/// A store copied to another path, where none of its seals verifies: the
/// first pass holds every goal for a person, a batch of at most 512 goals
/// to a transaction (and so to a commit), so that its memory does not grow
/// with the store.
#[test]
fn a_store_copied_elsewhere_holds_every_goal_a_batch_to_a_commit() {
    let env = TestEnv::new();
    git(env.root(), &["init", "-q", "-b", "main"]);
    git(env.root(), &["config", "user.name", "Repo User"]);
    git(env.root(), &["config", "user.email", "repo@example.com"]);
    let goals = 1_100;
    for n in 0..goals {
        let label = format!("g{n:04}");
        env.write(
            &format!("state/goals/{label}.md"),
            &format!(
                "---\nid: {n:08x}-0000-4000-8000-000000000000\nlabel: {label}\ntitle: Goal {n}\n\
                 status: active\npriority: normal\nconfirmed: true\n\
                 created_at: 2026-11-20T04:00:00Z\nupdated_at: 2026-11-20T04:00:00Z\n\
                 verification: []\n---\nKeep it going.\n\n## Acceptance criteria\n\n- [ ] Done\n"
            ),
        );
    }
    // The store's first write takes the goals as they are.
    env.steward()
        .args(["init", "--git", "-q"])
        .assert()
        .success();
    env.write_config(&format!(
        "git:\n  commit: true\nglobal_limits:\n  max_active_goals: {goals}\n"
    ));
    env.steward().args(["tick", "-q"]).assert().success();
    git(env.root(), &["add", "-A"]);
    git(env.root(), &["commit", "-qm", "the configuration"]);
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(env.root().join("."))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(status.success());
    let in_copy = |args: &[&str]| {
        let mut cmd = env.process();
        cmd.current_dir(copy.path()).args(args);
        cmd.output().unwrap()
    };
    let head = git(copy.path(), &["rev-parse", "HEAD"]);
    let output = in_copy(&["tick", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let held = (report["findings"].as_array().unwrap().iter())
        .filter(|f| f["action"] == "edited_outside")
        .count();
    assert_eq!(held, goals, "{}", String::from_utf8_lossy(&output.stderr));
    let listed = in_copy(&["list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let waiting = (listed["goals"].as_array().unwrap().iter())
        .filter(|g| g["waiting"]["for_person"] == "review")
        .count();
    assert_eq!(waiting, goals, "{listed}");
    // Each commit of the pass holds at most a batch of goals.
    let range = format!("{}..HEAD", head.trim());
    let per_commit = git(
        copy.path(),
        &["log", "--format=%x00", "--name-only", &range],
    );
    let batches: Vec<usize> = (per_commit.split('\0').skip(1))
        .map(|files| {
            files
                .lines()
                .filter(|f| f.starts_with("state/goals/"))
                .count()
        })
        .collect();
    assert!(batches.len() >= 3, "{batches:?}");
    assert!(batches.iter().all(|&n| n <= 512), "{batches:?}");
    assert_eq!(batches.iter().sum::<usize>(), goals, "{batches:?}");
    // Held once: the next pass finds nothing new.
    let again = in_copy(&["tick", "--json"]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(
        !(again["findings"].as_array().unwrap().iter()).any(|f| f["action"] == "edited_outside"),
        "{again}"
    );
}

/// git quotes what it cannot read: a `.git/HEAD` an agent grew to
/// megabytes gets a short error, not the file printed whole (which also
/// blocked a caller that reads stderr only once steward ends). Found by the
/// mutation fuzzer (seed 52).
#[test]
fn a_huge_head_gets_an_error_of_a_few_lines() {
    let env = repository();
    env.add_goal("a");
    let head = env.path(".git/HEAD");
    let mut bytes = std::fs::read(&head).unwrap();
    bytes.resize(3 * 1024 * 1024, b'x');
    std::fs::write(&head, bytes).unwrap();
    let output = env
        .steward()
        .args(["assess", "a", "--summary", "half way"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot read HEAD"), "{}", &stderr[..500]);
    assert!(stderr.len() < 4_000, "{} bytes", stderr.len());
}
