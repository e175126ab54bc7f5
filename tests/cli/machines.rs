//! steward-guide(7), "MANY MACHINES, ONE STORE": one store, several
//! machines, a bare git remote between them. Real git, two clones on this
//! machine told apart by STEWARD_MACHINE_ID.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common::{TestEnv, git};

/// A bare remote and two machines' clones of one store.
pub(crate) struct Machines {
    _dir: tempfile::TempDir,
    pub(crate) remote: PathBuf,
    pub(crate) a: TestEnv,
    pub(crate) b: TestEnv,
}

pub(crate) fn identify(dir: &Path, name: &str) {
    git(dir, &["config", "user.name", name]);
    git(
        dir,
        &["config", "user.email", &format!("{name}@example.com")],
    );
}

/// A bare remote, and machine a's store (`init --git`, `goals`) pushed
/// to it.
pub(crate) fn published(goals: &[&str]) -> (tempfile::TempDir, PathBuf, TestEnv) {
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
    let a = TestEnv::new().on_machine("a");
    git(a.root(), &["init", "-q", "-b", "main"]);
    identify(a.root(), "a");
    a.steward().args(["init", "--git"]).assert().success();
    for goal in goals {
        a.add_goal(goal);
    }
    git(
        a.root(),
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(a.root(), &["push", "-q", "origin", "main"]);
    (dir, remote, a)
}

/// Machine `name`'s clone of `remote`, nothing run in it.
pub(crate) fn clone_of(remote: &Path, name: &str) -> TestEnv {
    let env = TestEnv::new().on_machine(name);
    git(env.root(), &["clone", "-q", remote.to_str().unwrap(), "."]);
    identify(env.root(), name);
    env
}

/// Machine a makes the store (`init --git`, two goals) and pushes it;
/// machine b clones it and runs `init --git`.
pub(crate) fn machines() -> Machines {
    let (dir, remote, a) = published(&["alpha", "beta"]);
    let b = clone_of(&remote, "b");
    // b trusts the keys the store holds when it first writes to it (a's);
    // a trusts b's once a person says so, after b pushed it.
    b.steward().args(["init", "--git"]).assert().success();
    git(b.root(), &["push", "-q", "origin", "main"]);
    git(
        a.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    a.steward()
        .args(["accept", "--machine", "b"])
        .assert()
        .success()
        .stdout(predicate::str::contains("b: trusted on this machine"));
    Machines {
        _dir: dir,
        remote,
        a,
        b,
    }
}

pub(crate) fn on(env: &TestEnv, machine: &str) -> assert_cmd::Command {
    let mut cmd = env.steward_on_path();
    cmd.env("STEWARD_MACHINE_ID", machine);
    cmd
}

/// a notes something on alpha, b on beta, neither syncs.
fn notes_on_both(m: &Machines) {
    for (env, machine, goal) in [(&m.a, "a", "alpha"), (&m.b, "b", "beta")] {
        on(env, machine)
            .args(["update", goal, "--note", &format!("from {machine}")])
            .assert()
            .success();
    }
}

/// Dispatch on with git claims, to `./agent.sh` (the `AGENT` script).
const CLAIMING: &str = "dispatch:\n  enabled: true\n  agent: fake\n  claim: git\n  max_parallel: 5\n  timeout: 1m\nagents:\n  fake:\n    command: [./agent.sh]\n    output: text\n";

/// Waits until the runs `machine` started in `env` have ended.
fn wait_for_runs(env: &TestEnv, machine: &str) {
    let started = std::time::Instant::now();
    while env.runs().iter().any(|r| {
        r["machine"] == machine && matches!(r["state"].as_str(), Some("pending" | "running"))
    }) {
        assert!(
            started.elapsed().as_secs() < 30,
            "{machine}: {:?}",
            env.runs()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Every file under the root holds no conflict marker.
fn assert_no_conflict_markers(env: &TestEnv) {
    for (path, bytes) in env.snapshot() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text
                .lines()
                .any(|l| l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>")),
            "{}: {text}",
            path.display()
        );
    }
}

#[test]
fn two_machines_changing_different_goals_merge_with_a_plain_pull() {
    let m = machines();
    // a works on alpha, b on beta: new goals, assessments, tasks, ticks.
    for (env, machine, goal) in [(&m.a, "a", "alpha"), (&m.b, "b", "beta")] {
        env.add_goal(&format!("{goal}-next"));
        on(env, machine)
            .args([
                "--actor",
                "agent",
                "assess",
                goal,
                "--summary",
                &format!("{machine} was here"),
                "--met",
                "1",
            ])
            .assert()
            .success();
        on(env, machine)
            .args([
                "--actor",
                "agent",
                "task",
                "spawned",
                "--label",
                &format!("{goal}-tests"),
            ])
            .assert()
            .success();
        on(env, machine).args(["tick", "-q"]).assert().success();
    }
    // A plain pull merges without a conflict, thanks to what init --git set.
    git(m.a.root(), &["push", "-q", "origin", "main"]);
    git(
        m.b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert_no_conflict_markers(&m.b);
    // Right after the pull the mirror lists both sides' goals, in order.
    let mirror = m.b.read("ACTIVE-TASKS.md");
    let at = |label: &str| {
        mirror
            .find(&format!("**{label}**"))
            .unwrap_or_else(|| panic!("{label}: {mirror}"))
    };
    assert!(
        at("alpha") < at("alpha-next")
            && at("alpha-next") < at("beta")
            && at("beta") < at("beta-next")
    );
    // The next command renders the same from the merged goals.
    on(&m.b, "b").args(["tick", "-q"]).assert().success();
    let rendered = m.b.read("ACTIVE-TASKS.md");
    for label in ["alpha", "beta", "alpha-next", "beta-next"] {
        assert!(rendered.contains(&format!("**{label}**")), "{rendered}");
    }
    on(&m.b, "b")
        .args(["show", "alpha-next"])
        .assert()
        .success();
    let events = m.b.events();
    for summary in ["a was here", "b was here"] {
        assert!(
            events
                .iter()
                .any(|e| e["detail"].as_str().unwrap().contains(summary)),
            "{summary}"
        );
    }
    on(&m.b, "b")
        .args(["tasks", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("alpha-tests"))
        .stdout(predicate::str::contains("beta-tests"));
    on(&m.b, "b").arg("doctor").assert().success();
}

/// The other machine finds the open goal's file gone (moved to the closed
/// goals) before it checks the closed one: the removal it records is not a
/// change of its own, and the closed goal stays steward's.
#[test]
fn a_goal_completed_on_one_machine_is_steward_s_on_the_other_after_a_pull() {
    let m = machines();
    on(&m.a, "a")
        .args(["complete", "alpha", "--reason", "done"])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .success();
    git(m.a.root(), &["push", "-q", "origin", "main"]);
    git(
        m.b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    on(&m.b, "b").args(["tick", "-q"]).assert().success();
    on(&m.b, "b")
        .args(["show", "alpha"])
        .assert()
        .success()
        .stdout(predicate::str::contains("completed"))
        .stdout(predicate::str::contains("outside steward").not());
    on(&m.b, "b").args(["tick", "-q"]).assert().success();
}

#[test]
fn sync_commits_pulls_renders_the_mirror_again_and_pushes() {
    let m = machines();
    // a's store was made by a steward that did not ignore the spare files
    // in state/.gitignore: sync leaves them out all the same.
    let ignore = m.a.read("state/.gitignore");
    m.a.write("state/.gitignore", &ignore.replace(".steward-spare\n", ""));
    git(m.a.root(), &["commit", "-qam", "An older state/.gitignore"]);
    notes_on_both(&m);
    assert!(m.a.path("state/goals/.steward-spare").exists());
    on(&m.a, "a")
        .arg("sync")
        .assert()
        .success()
        .stdout("origin/main: nothing to pull, pushed\n");
    // b is behind: sync pulls first, merges, pushes.
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .success()
        .stdout(predicate::str::contains("pulled"))
        .stdout(predicate::str::contains("pushed"));
    on(&m.a, "a").arg("sync").assert().success();
    for env in [&m.a, &m.b] {
        assert_no_conflict_markers(env);
        let alpha = env.read("state/goals/alpha.md");
        let beta = env.read("state/goals/beta.md");
        assert!(alpha.contains("note: from a") && beta.contains("note: from b"));
        let mirror = env.read("ACTIVE-TASKS.md");
        assert!(
            mirror.contains("**alpha**") && mirror.contains("**beta**"),
            "{mirror}"
        );
    }
    assert_eq!(
        git(m.a.root(), &["rev-parse", "HEAD"]),
        git(&m.remote, &["rev-parse", "main"]),
        "a has what the remote has"
    );
    let pushed = git(&m.remote, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(!pushed.contains(".steward-spare"), "{pushed}");
}

#[test]
fn the_same_goal_changed_on_both_machines_stops_sync_with_both_versions_kept() {
    let m = machines();
    on(&m.a, "a")
        .args(["update", "alpha", "--title", "Alpha as a sees it"])
        .assert()
        .success();
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b")
        .args(["update", "alpha", "--title", "Alpha as b sees it"])
        .assert()
        .success();
    let ours = m.b.read("state/goals/alpha.md");
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "both sides changed state/goals/alpha.md",
        ))
        .stderr(predicate::str::contains("state/conflicts"))
        .stderr(predicate::str::contains(
            "steward resolve alpha --ours|--theirs|--file PATH",
        ));
    // Nothing lost: b's version where it was, a's beside it.
    assert_eq!(m.b.read("state/goals/alpha.md"), ours);
    let theirs = m.b.read("state/conflicts/state__goals__alpha.md.theirs");
    assert!(theirs.contains("title: Alpha as a sees it"), "{theirs}");
    assert!(
        m.b.read("state/conflicts/state__goals__alpha.md.ours")
            .contains("Alpha as b sees it")
    );
    assert_no_conflict_markers(&m.b);
    on(&m.b, "b").args(["show", "alpha"]).assert().success();
    // status and doctor say what to do; resolve finishes it.
    on(&m.b, "b")
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "steward resolve alpha --ours|--theirs",
        ));
    on(&m.b, "b").arg("doctor").assert().code(1);
    on(&m.b, "b")
        .env("CLAUDECODE", "1")
        .args(["resolve", "alpha", "--theirs"])
        .assert()
        .code(4);
    on(&m.b, "b")
        .args(["resolve", "alpha", "--theirs"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "resolved; the merge is made and committed",
        ));
    assert!(
        m.b.read("state/goals/alpha.md")
            .contains("title: Alpha as a sees it")
    );
    assert!(
        !m.b.path("state/conflicts").exists(),
        "no conflict files left"
    );
    on(&m.b, "b").arg("doctor").assert().success();
    // The chosen goal is a person's: agents may work it; sync pushes.
    on(&m.b, "b")
        .args(["--actor", "agent", "assess", "alpha", "--summary", "fine"])
        .assert()
        .success();
    on(&m.b, "b").arg("sync").assert().success();
    on(&m.a, "a").arg("sync").assert().success();
    assert!(
        m.a.read("state/goals/alpha.md")
            .contains("title: Alpha as a sees it")
    );
    on(&m.a, "a").arg("doctor").assert().success();
}

#[test]
fn a_push_rejected_because_another_machine_pushed_first_is_pulled_and_pushed_again() {
    let m = machines();
    notes_on_both(&m);
    // While b pushes, a pushes first: b's push finds the remote moved. The
    // git steward runs is a wrapper that lets a push first, once (steward
    // runs no hooks), as a real race happens once.
    let real_git = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    let once = bin.path().join("once");
    std::fs::write(&once, "").unwrap();
    let wrapper = bin.path().join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ncase \" $* \" in *\" push \"*) if [ -e '{once}' ]; then rm '{once}'; '{git}' -C '{a}' push -q origin main; fi ;; esac\nexec '{git}' \"$@\"\n",
            once = once.display(),
            git = real_git.trim(),
            a = m.a.root().display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    let steward_dir = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
    let output = on(&m.b, "b")
        .env(
            "PATH",
            format!(
                "{}:{}:/usr/bin:/bin",
                bin.path().display(),
                steward_dir.display()
            ),
        )
        .args(["sync", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let synced: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(synced["retries"], 1, "{synced}");
    assert_eq!(synced["pushed"], true, "{synced}");
    // The remote holds both machines' changes, merged.
    git(m.a.root(), &["pull", "-q", "--no-rebase", "origin", "main"]);
    for env in [&m.a, &m.b] {
        assert!(env.read("state/goals/alpha.md").contains("note: from a"));
        assert!(env.read("state/goals/beta.md").contains("note: from b"));
        assert_no_conflict_markers(env);
    }
    assert_eq!(
        git(m.b.root(), &["rev-parse", "HEAD"]),
        git(&m.remote, &["rev-parse", "main"])
    );
}

/// The agent: says where and what it started.
const AGENT: &str =
    "#!/bin/sh\ncat > /dev/null\necho \"$STEWARD_MACHINE_ID $STEWARD_GOAL\" >> \"$STARTS\"\n";

#[test]
fn two_ticks_at_the_same_moment_start_one_run_per_goal() {
    let m = machines();
    let a = &m.a;
    a.add_goal("gamma");
    let config =
        a.read("steward.yaml") + "global_limits:\n  max_dispatches_per_hour: 20\n" + CLAIMING;
    a.write_config(&config);
    a.executable("agent.sh", AGENT);
    git(a.root(), &["add", "steward.yaml", "agent.sh"]);
    git(
        a.root(),
        &["commit", "-q", "-m", "dispatch with git claims"],
    );
    git(a.root(), &["push", "-q", "origin", "main"]);
    git(
        m.b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    m.b.steward().args(["config", "accept"]).assert().success();
    let starts = m._dir.path().join("starts.log");
    let tick = |env: &TestEnv, machine: &str| {
        let mut cmd = env.process();
        let dir = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
        cmd.env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
            .env("STEWARD_MACHINE_ID", machine)
            .env("STARTS", &starts)
            .args(["tick", "-q"]);
        cmd.spawn().unwrap()
    };
    let (first, second) = (tick(&m.a, "a"), tick(&m.b, "b"));
    for child in [first, second] {
        let output = child.wait_with_output().unwrap();
        assert!(matches!(output.status.code(), Some(0 | 3)), "{output:?}");
    }
    // Each machine waits for its own runs (the other's it saw when it
    // pulled stay as they were until the next pull).
    for (env, machine) in [(&m.a, "a"), (&m.b, "b")] {
        wait_for_runs(env, machine);
    }
    let log = std::fs::read_to_string(&starts).unwrap_or_default();
    for goal in ["alpha", "beta", "gamma"] {
        let runs = log
            .lines()
            .filter(|l| l.ends_with(&format!(" {goal}")))
            .count();
        assert_eq!(runs, 1, "{goal} started {runs} times:\n{log}");
    }
    // Both machines converge, with one run per goal recorded.
    for (env, machine) in [(&m.a, "a"), (&m.b, "b"), (&m.a, "a")] {
        on(env, machine).arg("sync").assert().success();
    }
    for env in [&m.a, &m.b] {
        assert_eq!(env.runs().len(), 3, "{:?}", env.runs());
        assert_no_conflict_markers(env);
    }
}

#[test]
fn a_claim_left_by_a_machine_that_went_away_is_taken_over_once_it_expires() {
    let m = machines();
    let config = m.a.read("steward.yaml") + CLAIMING;
    m.a.write_config(&config);
    m.a.executable("agent.sh", AGENT);
    // Machine a claimed alpha, pushed the claim and went away: its run will
    // never end, and its claim is never released.
    let alpha = m.a.goal_json("alpha");
    let id = alpha["id"].as_str().unwrap();
    m.a.write(
        &format!("state/claims/{id}.a.json"),
        &serde_json::json!({
            "goal_id": id,
            "label": "alpha",
            "machine": "a",
            "dispatch_id": "d-gone",
            "at": crate::common::NOW,
            "expires_at": "2026-11-21T05:00:00Z",
        })
        .to_string(),
    );
    git(m.a.root(), &["add", "-A"]);
    git(m.a.root(), &["commit", "-q", "-m", "a claims alpha"]);
    git(m.a.root(), &["push", "-q", "origin", "main"]);
    git(
        m.b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    // The agent profile came with the pull: a person on b accepts it.
    m.b.steward()
        .args(["config", "accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains("+agents:"));
    let starts = m._dir.path().join("starts.log");
    let tick = |now: &str| {
        let dir = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
        let output =
            m.b.process()
                .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
                .env("STEWARD_MACHINE_ID", "b")
                .env("STEWARD_NOW", now)
                .env("STARTS", &starts)
                .args(["tick", "-q"])
                .output()
                .unwrap();
        assert!(matches!(output.status.code(), Some(0 | 3)), "{output:?}");
        wait_for_runs(&m.b, "b");
        std::fs::read_to_string(&starts).unwrap_or_default()
    };
    // While the claim holds, b leaves alpha alone (and works on beta).
    let log = tick("2026-11-21T04:30:00Z");
    assert!(log.contains("b beta"), "{log}");
    assert!(!log.contains("alpha"), "{log}");
    // Past its expiry, b takes alpha over.
    let log = tick("2026-11-21T06:00:00Z");
    assert!(log.contains("b alpha"), "{log}");
}

#[test]
fn a_pulled_attribute_on_steward_s_files_is_undone_and_never_pushed() {
    let m = machines();
    // Someone with push access adds an attribute that merges goal files
    // line by line.
    let attributes = m.a.read(".gitattributes") + "state/goals/*.md merge=union\n";
    m.a.write(".gitattributes", &attributes);
    git(
        m.a.root(),
        &["commit", "-q", "-am", "merge goals line by line"],
    );
    on(&m.a, "a").arg("sync").assert().success();
    let ours = m.b.read(".gitattributes");
    on(&m.b, "b")
        .args(["update", "beta", "--note", "from b"])
        .assert()
        .success();
    let remote_before = git(&m.remote, &["rev-parse", "main"]);
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the merge from origin/main would have broken the store",
        ))
        .stderr(predicate::str::contains(
            "the remote sets an attribute on steward's files (state/goals/goal.md: merge: union)",
        ));
    assert_eq!(m.b.read(".gitattributes"), ours, "undone");
    assert_eq!(
        git(&m.remote, &["rev-parse", "main"]),
        remote_before,
        "nothing pushed"
    );
    // doctor names it where it is.
    on(&m.a, "a")
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("merge: union"));
}

/// Whoever can push can break `steward.yaml` or force a machine's own
/// settings into git: the merge that brings either is undone on the
/// machine that pulls it, nothing is pushed, and the person is told (exit
/// 3); the machine goes on with what it had.
#[test]
fn a_pushed_configuration_that_does_not_load_or_a_tracked_local_file_is_undone() {
    let m = machines();
    let cases = [
        (
            "steward.yaml",
            "global_limits:\n  max_active_goals: [\n",
            "the merged configuration does not load: steward.yaml:",
        ),
        (
            "state/local/steward.yaml",
            "dispatch:\n  sandbox: off\n",
            "state/local/steward.yaml: the remote tracks a file of state/local/, this machine's own settings, which are never shared",
        ),
    ];
    for (path, text, said) in cases {
        git(
            m.a.root(),
            &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
        );
        m.a.write(path, text);
        git(m.a.root(), &["add", "-f", path]);
        git(m.a.root(), &["commit", "-q", "-m", "a collaborator's push"]);
        git(m.a.root(), &["push", "-q", "origin", "main"]);
        let ours = m.b.read("steward.yaml");
        let remote_before = git(&m.remote, &["rev-parse", "main"]);
        on(&m.b, "b")
            .args(["update", "beta", "--note", "from b"])
            .assert()
            .success();
        on(&m.b, "b")
            .arg("sync")
            .assert()
            .code(3)
            .stderr(predicate::str::contains(
                "the merge from origin/main would have broken the store",
            ))
            .stderr(predicate::str::contains(said));
        assert_eq!(m.b.read("steward.yaml"), ours, "{path}: undone");
        assert!(!m.b.path("state/local/steward.yaml").exists() || path == "steward.yaml");
        assert_eq!(
            git(&m.remote, &["rev-parse", "main"]),
            remote_before,
            "{path}: nothing pushed"
        );
        // b goes on as it was.
        on(&m.b, "b").arg("list").assert().success();
        // The collaborator takes it back.
        git(m.a.root(), &["rm", "-q", "--cached", path]);
        git(
            m.a.root(),
            &["checkout", "-q", "HEAD~1", "--", "steward.yaml"],
        );
        git(m.a.root(), &["commit", "-q", "-am", "taken back"]);
        git(m.a.root(), &["push", "-q", "origin", "main"]);
        on(&m.b, "b").arg("sync").assert().success();
    }
}

/// A command check is code run as the person on every machine that allows
/// commands: one that arrives by a pull — a new goal, or a check changed
/// to a command — does not run here until a person here accepts it.
#[test]
fn a_command_check_that_arrives_by_a_pull_runs_once_a_person_here_accepts_it() {
    let m = machines();
    // Both machines run command checks: each person accepted that.
    for (env, machine) in [(&m.a, "a"), (&m.b, "b")] {
        env.write(
            "state/local/steward.yaml",
            "verification:\n  allow_commands: true\n",
        );
        on(env, machine)
            .args(["config", "accept", "-q"])
            .assert()
            .success();
    }
    on(&m.a, "a")
        .args(["add", "gamma", "--title", "Gamma", "--criterion", "made"])
        .args(["--verify", "command_exit_zero:touch ran-here@1"])
        .assert()
        .success();
    // On a, where a person added it, it runs as ever.
    on(&m.a, "a").arg("tick").assert().success();
    assert!(m.a.path("ran-here").exists());
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b").arg("sync").assert().success();
    assert!(m.b.path("state/goals/gamma.md").exists());
    // On b the goal is steward's (a signed it), but its command is not
    // b's person's: it does not run, and the agent cannot complete on it.
    on(&m.b, "b").arg("tick").assert().success();
    assert!(!m.b.path("ran-here").exists(), "the pulled command ran");
    on(&m.b, "b")
        .args(["--actor", "agent", "complete", "gamma", "--reason", "done"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "the command reached the goal another way than a person's add, update, edit or accept on this machine",
        ))
        .stderr(predicate::str::contains("steward accept gamma"));
    assert!(!m.b.path("ran-here").exists());
    on(&m.b, "b")
        .args(["--actor", "agent", "accept", "gamma"])
        .assert()
        .code(4);
    on(&m.b, "b")
        .args(["accept", "gamma"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "gamma: its command checks run on this machine from now on:\n  touch ran-here",
        ));
    on(&m.b, "b")
        .args(["--actor", "agent", "complete", "gamma", "--reason", "done"])
        .assert()
        .success();
    assert!(m.b.path("ran-here").exists());
    on(&m.b, "b").arg("sync").assert().success();
    // A check changed to another command on a is held again on b.
    on(&m.a, "a")
        .args(["add", "delta", "--title", "Delta", "--criterion", "made"])
        .args(["--verify", "file_exists:delta-made@1"])
        .assert()
        .success();
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b").arg("sync").assert().success();
    on(&m.a, "a")
        .args([
            "update",
            "delta",
            "--verify",
            "command_exit_zero:touch delta-ran@1",
        ])
        .assert()
        .success();
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b").arg("sync").assert().success();
    on(&m.b, "b").arg("tick").assert().success();
    assert!(!m.b.path("delta-ran").exists(), "the changed check ran");
}

#[test]
fn a_merge_that_breaks_a_goal_is_undone_and_never_pushed() {
    let m = machines();
    // The attribute is already on both machines (a person put it there):
    // two changes of one goal merge line by line into a broken file.
    for env in [&m.a, &m.b] {
        let attributes = env.read(".gitattributes") + "state/goals/*.md merge=union\n";
        env.write(".gitattributes", &attributes);
    }
    git(
        m.a.root(),
        &["commit", "-q", "-am", "merge goals line by line"],
    );
    on(&m.a, "a").arg("sync").assert().success();
    git(
        m.b.root(),
        &["commit", "-q", "-am", "merge goals line by line"],
    );
    on(&m.a, "a")
        .args(["update", "alpha", "--title", "Alpha as a sees it"])
        .assert()
        .success();
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b")
        .args(["update", "alpha", "--title", "Alpha as b sees it"])
        .assert()
        .success();
    let remote_before = git(&m.remote, &["rev-parse", "main"]);
    let ours = m.b.read("state/goals/alpha.md");
    on(&m.b, "b")
        .arg("sync")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the merge from origin/main would have broken the store",
        ))
        .stderr(predicate::str::contains("state/goals/alpha.md"));
    assert_eq!(m.b.read("state/goals/alpha.md"), ours, "undone");
    assert_eq!(
        git(&m.remote, &["rev-parse", "main"]),
        remote_before,
        "nothing pushed"
    );
    assert!(
        m.b.read("state/conflicts/state__goals__alpha.md.theirs")
            .contains("Alpha as a sees it")
    );
}

#[test]
fn an_agents_pull_merges_the_mirror_and_its_driver_writes_nothing_else() {
    let m = machines();
    for (env, machine, goal) in [(&m.a, "a", "gamma"), (&m.b, "b", "delta")] {
        on(env, machine)
            .args(["add", goal, "--title", goal, "--criterion", "done"])
            .assert()
            .success();
        on(env, machine).args(["tick", "-q"]).assert().success();
    }
    git(m.a.root(), &["push", "-q", "origin", "main"]);
    // The pull an agent runs in its shell runs the mirror's merge driver
    // as the agent: it merges git's temporary file as for a person.
    let pulled =
        m.b.program("git")
            .args(["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"])
            .env("CLAUDECODE", "1")
            .output()
            .unwrap();
    assert!(
        pulled.status.success(),
        "{}",
        String::from_utf8_lossy(&pulled.stderr)
    );
    assert_no_conflict_markers(&m.b);
    // Both sides changed the mirror: right after the pull it lists both.
    let mirror = m.b.read("ACTIVE-TASKS.md");
    assert!(
        mirror.contains("**delta**") && mirror.contains("**gamma**"),
        "{mirror}"
    );
    assert!(m.b.path("state/goals/gamma.md").exists());
    // Run by the agent itself, it writes no other file.
    m.b.write("notes.txt", "mine\n");
    m.b.steward()
        .env("CLAUDECODE", "1")
        .args(["merge-driver", "mirror", "ACTIVE-TASKS.md", "notes.txt"])
        .arg("ACTIVE-TASKS.md")
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "only a person may run git's merge driver on ACTIVE-TASKS.md",
        ));
    assert_eq!(m.b.read("notes.txt"), "mine\n");
    // Nor does it read one: the machine key, merged into a file named as
    // git names its own, stays where it is.
    let key = m.b.home().join(".config/steward/machine-key");
    for name in [".merge_file_base", ".merge_file_ours", ".merge_file_theirs"] {
        m.b.write(name, "");
    }
    let refused = |args: &[&std::ffi::OsStr], why: &str| {
        m.b.steward()
            .env("CLAUDECODE", "1")
            .args(["merge-driver", "mirror"])
            .args(args)
            .assert()
            .code(4)
            .stderr(predicate::str::contains(why.to_string()));
        assert_eq!(m.b.read(".merge_file_ours"), "", "written");
    };
    refused(
        &[
            key.as_os_str(),
            ".merge_file_ours".as_ref(),
            key.as_os_str(),
        ],
        &format!("merge driver on {}", key.display()),
    );
    std::fs::hard_link(&key, m.b.path(".merge_file_key")).unwrap();
    refused(
        &[
            ".merge_file_key".as_ref(),
            ".merge_file_ours".as_ref(),
            ".merge_file_theirs".as_ref(),
        ],
        "merge driver on .merge_file_key",
    );
    refused(
        &[
            ".merge_file_base".as_ref(),
            ".merge_file_ours".as_ref(),
            ".merge_file_theirs".as_ref(),
        ],
        "merge driver outside a merge",
    );
}

#[test]
fn a_clone_that_never_ran_init_pulls_without_conflict() {
    let (_dir, remote, a) = published(&["alpha"]);
    // b clones and goes straight to work: no `init --git`.
    let b = clone_of(&remote, "b");
    b.steward()
        .args(["add", "beta", "--title", "Beta", "--criterion", "done"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "registered steward's merge driver in .git/config",
        ));
    // (`git.commit` is on in the store: the add is committed.)
    a.add_goal("gamma");
    git(a.root(), &["push", "-q", "origin", "main"]);
    git(
        b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert_no_conflict_markers(&b);
    let mirror = b.read("ACTIVE-TASKS.md");
    for label in ["alpha", "beta", "gamma"] {
        assert!(mirror.contains(&format!("**{label}**")), "{mirror}");
    }
    // Only steward's own entries in .git/config; doctor is content.
    let config = std::fs::read_to_string(b.path(".git/config")).unwrap();
    assert!(config.contains("[merge \"steward-mirror\"]"), "{config}");
    b.steward()
        .args(["accept", "--machine", "a"])
        .assert()
        .success();
    b.steward().arg("doctor").assert().success();
}

#[test]
fn doctor_fix_repairs_what_git_needs() {
    let m = machines();
    git(
        m.b.root(),
        &["config", "--unset-all", "merge.steward-mirror.driver"],
    );
    m.b.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("run `steward doctor --fix`"));
    m.b.steward()
        .args(["doctor", "--fix"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "fixed: .git/config (merge.steward-mirror)",
        ));
}

/// Whoever can write `.git` (an agent's shell) cannot make steward's git
/// run a program: hooks never run, and a repository configuration that
/// names a program (a filter, a merge driver, an ssh command, an include)
/// stops `sync` with what to remove.
#[test]
fn sync_runs_no_hook_and_no_program_the_repository_configuration_names() {
    let m = machines();
    let hook = m.b.path(".git/hooks/post-merge");
    std::fs::write(&hook, "#!/bin/sh\ntouch hooked\n").unwrap();
    let mut permissions = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&hook, permissions).unwrap();
    notes_on_both(&m);
    on(&m.a, "a").arg("sync").assert().success();
    on(&m.b, "b").arg("sync").assert().success();
    assert!(!m.b.path("hooked").exists(), "a hook ran");
    for (key, value) in [
        ("filter.x.smudge", "touch smudged"),
        ("core.sshCommand", "touch sshed"),
        ("merge.steward-mirror.driver", "touch merged"),
        ("include.path", "/tmp/elsewhere"),
    ] {
        git(m.b.root(), &["config", key, value]);
        on(&m.b, "b")
            .arg("sync")
            .assert()
            .failure()
            .stderr(predicate::str::contains(
                "the repository's own configuration makes git run a program",
            ))
            .stderr(predicate::str::contains(key.to_ascii_lowercase()));
        git(m.b.root(), &["config", "--unset", key]);
    }
    // steward's own merge driver, registered again, is no such program;
    // nor is a key without a value (a boolean, which git2 cannot give as
    // a value).
    let config = m.b.path(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[x]\n\tflag\n");
    std::fs::write(&config, text).unwrap();
    on(&m.b, "b").arg("sync").assert().success();
}
