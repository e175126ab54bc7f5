use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn add_writes_the_goal_file_history_and_event() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "Deploy-API",
            "--title",
            "Deploy the new API to production",
        ])
        .args(["--description", "Run all tests, then deploy."])
        .args(["--criterion", "All tests pass", "--criterion", "Deployed"])
        .args(["--priority", "high", "--confirmed", "--tag", "ops"])
        .args([
            "--verify",
            "command_exit_zero:cargo test --quiet@1",
            "--verify",
            "http_ok:https://api.example.com/health",
        ])
        .args([
            "--max-dispatches",
            "7",
            "--cooldown",
            "1h",
            "--max-iterations",
            "40",
            "--deadline",
            "2026-12-01",
        ])
        .args(["--max-cost-usd", "25"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("deploy-api: added"));
    let text = env.read("state/goals/deploy-api.md");
    for expected in [
        "label: deploy-api\n",
        "title: Deploy the new API to production\n",
        "status: active\n",
        "priority: high\n",
        "confirmed: true\n",
        "created_at: 2026-11-21T04:00:00Z\n",
        "  - type: command_exit_zero\n    target: cargo test --quiet\n    criterion: 1\n",
        "  max_dispatches: 7\n  max_assessments: 50\n  cooldown: 1h\n",
        "  deadline: 2026-12-01T00:00:00Z\n",
        "blockers: []\n---\nRun all tests, then deploy.\n\n## Acceptance criteria\n\n- [ ] All tests pass\n- [ ] Deployed\n\n## History\n\n- 2026-11-21T04:00:00Z user created: priority high, 2 criteria\n",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    let goal = env.goal_json("deploy-api");
    assert_eq!(goal["tags"], serde_json::json!(["ops"]));
    assert_eq!(goal["bounds"]["max_cost_usd"], 25.0);
    assert_eq!(
        goal["criteria"][0],
        serde_json::json!({"n": 1, "text": "All tests pass", "met": false})
    );
    let events = env.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["action"], "created");
    assert_eq!(events[0]["to"], "active");
    assert_eq!(events[0]["goal_id"], goal["id"]);
}

#[test]
fn add_outside_a_store_is_refused_and_creates_nothing() {
    let env = TestEnv::new();
    env.steward()
        .args(["add", "first", "--title", "T", "--criterion", "C"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("no steward store at"))
        .stderr(predicates::str::contains("steward init"));
    assert_eq!(std::fs::read_dir(env.root()).unwrap().count(), 0);
}

#[test]
fn bad_values_exit_2_and_write_nothing() {
    let env = TestEnv::initialised();
    let before = env.snapshot();
    let long = "a".repeat(65);
    let cases: Vec<Vec<&str>> = vec![
        vec!["add", "../x"],
        vec!["add", "a b"],
        vec!["add", "UPPER/x"],
        vec!["add", &long],
        vec!["add", "ok", "--priority", "urgent"],
        vec!["add", "ok", "--cooldown", "soon"],
        vec!["add", "ok", "--verify", "file_exists:x@2"],
        vec!["add", "ok", "--verify", "ping:host"],
        vec!["add", "ok", "--deadline", "2020-01-01"],
        vec!["add", "ok", "--max-cost-usd", "-3"],
        vec!["add", "ok", "--max-dispatches", "many"],
    ];
    for args in cases {
        let mut cmd = env.steward();
        cmd.args(&args);
        if args.len() == 2 || args[1] == "ok" {
            cmd.args(["--title", "T", "--criterion", "C"]);
        }
        cmd.assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::is_empty().not());
        env.assert_unchanged(&before);
    }
}

#[test]
fn label_errors_say_what_is_wrong() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "a b", "--title", "T", "--criterion", "C"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("label `a b` contains ' '"));
}

#[test]
fn duplicate_open_label_is_refused_with_4() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let before = env.snapshot();
    env.steward()
        .args(["add", "DEPLOY", "--title", "Again", "--criterion", "C"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("goal `deploy` is already open"));
    env.assert_unchanged(&before);
}

#[test]
fn a_label_can_be_reused_once_the_goal_is_terminal() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args(["abandon", "deploy", "--reason", "wrong plan"])
        .assert()
        .success();
    env.add_goal("deploy");
    env.steward()
        .args(["list", "--all"])
        .assert()
        .success()
        .stdout(predicate::str::contains("abandoned"));
    assert_eq!(env.goal_json("deploy")["status"], "active");
}

#[test]
fn high_and_critical_goals_need_confirmation() {
    let env = TestEnv::initialised();
    let before = env.snapshot();
    env.steward()
        .args([
            "add",
            "big",
            "--title",
            "T",
            "--criterion",
            "C",
            "--priority",
            "critical",
        ])
        .assert()
        .code(4)
        .stderr(
            predicate::str::contains("needs a human").and(predicate::str::contains("--confirmed")),
        );
    env.assert_unchanged(&before);
    env.steward()
        .args([
            "add",
            "big",
            "--title",
            "T",
            "--criterion",
            "C",
            "--priority",
            "critical",
            "--confirmed",
        ])
        .assert()
        .success();
}

#[test]
fn max_active_goals_is_enforced() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 2\n");
    env.add_goal("one");
    env.add_goal("two");
    env.steward()
        .args(["add", "three", "--title", "T", "--criterion", "C"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("max_active_goals is 2"));
    assert!(!env.path("state/goals/three.md").exists());
}

/// Goals closed by hand wait in the open directory until `tick` moves
/// them: they do not count as open, known closed from the cache a read
/// left, and a file the cache does not know is read.
#[test]
fn goals_closed_by_hand_and_not_yet_moved_are_not_counted_open() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 2\n");
    env.add_goal("one");
    env.add_goal("two");
    let path = "state/goals/one.md";
    env.write(
        path,
        &env.read(path)
            .replace("status: active", "status: completed"),
    );
    // Not read yet: the goals are read to count them.
    env.steward()
        .args(["add", "three", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    assert!(env.path(path).exists(), "not moved: no tick ran");
    let path = "state/goals/two.md";
    env.write(
        path,
        &env.read(path)
            .replace("status: active", "status: completed"),
    );
    // A read leaves the cache of goals closed by hand (of files not
    // changed in the last 2 s); `add` counts with it.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    env.steward().arg("list").assert().success();
    let cache = env.read("state/cache/terminal-goals");
    assert!(cache.contains("two.md"), "{cache}");
    env.steward()
        .args(["add", "four", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    env.steward()
        .args(["add", "five", "--title", "T", "--criterion", "C"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "2 goals are open and global_limits.max_active_goals is 2",
        ));
}

/// `add` keeps its count of goal files while the directory stays as it
/// was (`state/cache/open-count`): a file removed by hand is seen at once,
/// and a count changed by hand is not read.
#[test]
fn the_count_add_keeps_follows_the_directory_and_cannot_be_forged() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 2\n");
    env.add_goal("one");
    env.add_goal("two");
    let kept = env.read("state/cache/open-count");
    assert!(kept.contains("\n2 -\n"), "{kept}");
    let refused = |label: &str| {
        env.steward()
            .args(["add", label, "--title", "T", "--criterion", "C"])
            .assert()
            .code(4)
            .stderr(predicate::str::contains(
                "2 goals are open and global_limits.max_active_goals is 2",
            ));
    };
    // The same stamps with another count: its key's code no longer fits.
    env.write(
        "state/cache/open-count",
        &kept.replace("\n2 -\n", "\n0 -\n"),
    );
    refused("three");
    std::fs::remove_file(env.path("state/goals/two.md")).unwrap();
    env.steward()
        .args(["add", "three", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
    refused("four");
}

#[test]
fn requires_bounds_refuses_unbounded_goals() {
    let env = TestEnv::initialised();
    env.write_config("requires_bounds: true\n");
    env.steward()
        .args(["add", "loose", "--title", "T", "--criterion", "C"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("requires bounds"));
    env.steward()
        .args([
            "add",
            "bounded",
            "--title",
            "T",
            "--criterion",
            "C",
            "--max-iterations",
            "10",
        ])
        .assert()
        .success();
}

#[test]
fn json_output_has_the_schema_version_and_goal() {
    let env = TestEnv::initialised();
    let output = env
        .steward()
        .args([
            "--json",
            "add",
            "deploy",
            "--title",
            "T",
            "--criterion",
            "C",
        ])
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["schema_version"], 1);
    assert_eq!(document["goal"]["label"], "deploy");
    assert_eq!(document["goal"]["path"], "state/goals/deploy.md");
    for key in [
        "id",
        "title",
        "description",
        "status",
        "priority",
        "confirmed",
        "tags",
        "criteria",
        "verification",
        "budget",
        "bounds",
        "progress",
        "blockers",
        "escalation",
        "tasks",
    ] {
        assert!(document["goal"].get(key).is_some(), "missing {key}");
    }
}

#[test]
fn add_warns_about_checks_that_can_never_run_here_and_doctor_lists_them() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "a",
            "--criterion",
            "b",
        ])
        .args(["--criterion", "c"])
        .args(["--verify", "command_exit_zero:cargo test@1"])
        .args(["--verify", "http_ok:https://user:pw@example.com/@2"])
        .args(["--verify", "file_exists:../outside@3"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "check command_exit_zero cargo test never runs: verification.allow_commands is false",
        ))
        .stderr(predicates::str::contains(
            "check http_ok https://user:pw@example.com/ cannot run: invalid URL",
        ))
        .stderr(predicates::str::contains(
            "check file_exists ../outside cannot run:",
        ));
    assert!(env.path("state/goals/g.md").is_file(), "the goal is added");
    let doctor = env.steward().arg("doctor").output().unwrap();
    assert_eq!(doctor.status.code(), Some(1));
    let report =
        String::from_utf8(doctor.stdout).unwrap() + &String::from_utf8(doctor.stderr).unwrap();
    for what in [
        "cargo test never runs",
        "user:pw@example.com/ cannot run",
        "../outside cannot run",
    ] {
        assert!(report.contains(what), "{what} missing from {report}");
    }
    // A check that can run says nothing.
    env.steward()
        .args(["update", "g", "--verify", "file_exists:dist/app.tar@1"])
        .assert()
        .success()
        .stderr(predicates::str::contains("cannot run").not());
    env.steward()
        .args(["update", "g", "--verify", "http_ok:not-a-url@1"])
        .assert()
        .success()
        .stderr(predicates::str::contains("cannot run: invalid URL"));
}
