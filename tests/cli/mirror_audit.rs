use predicates::prelude::*;

use crate::common::TestEnv;

const BEGIN: &str = "<!-- steward:begin (generated: edits inside this block are overwritten) -->";

#[test]
fn the_mirror_follows_every_change_and_keeps_hand_written_text() {
    let env = TestEnv::initialised();
    env.write(
        "ACTIVE-TASKS.md",
        "# Tasks\n\nAbove, by hand.\n\n## Active Goals\n\nIntro line.\n",
    );
    env.add_goal("beta");
    env.steward()
        .args([
            "add",
            "alpha",
            "--title",
            "Alpha",
            "--criterion",
            "C",
            "--priority",
            "high",
            "--confirmed",
        ])
        .assert()
        .success();
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.starts_with("# Tasks\n\nAbove, by hand.\n\n## Active Goals\n\nIntro line.\n\n"),
        "{text}"
    );
    let alpha = text.find("- **alpha** (high, active) — Alpha").unwrap();
    let beta = text
        .find("- **beta** (normal, active) — Goal beta")
        .unwrap();
    assert!(alpha < beta);
    // Text after the block stays too.
    env.write("ACTIVE-TASKS.md", &format!("{text}\nBelow, by hand.\n"));
    env.steward()
        .args(["update", "beta", "--check", "1", "--blocker", "waiting"])
        .assert()
        .success();
    env.steward()
        .args(["abandon", "alpha", "--reason", "no"])
        .assert()
        .success();
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.ends_with("<!-- steward:end -->\n\nBelow, by hand.\n"),
        "{text}"
    );
    assert!(!text.contains("alpha"));
    assert!(
        text.contains("  criteria 1/3 · dispatches 0/20\n  blockers: waiting\n"),
        "{text}"
    );
    env.steward().args(["mirror", "--check"]).assert().success();
}

#[test]
fn mirror_check_and_regenerate() {
    let env = TestEnv::initialised();
    env.add_goal("one");
    // A goal changed by hand leaves the mirror stale.
    let goal = env
        .read("state/goals/one.md")
        .replace("title: Goal one", "title: Renamed by hand");
    env.write("state/goals/one.md", &goal);
    env.steward()
        .args(["mirror", "--check"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("stale"));
    env.steward()
        .arg("mirror")
        .assert()
        .success()
        .stdout(predicate::str::contains("updated (1 open goal)"));
    env.steward().args(["mirror", "--check"]).assert().success();
    assert!(env.read("ACTIVE-TASKS.md").contains("Renamed by hand"));
    let before = env.snapshot();
    env.steward()
        .arg("mirror")
        .assert()
        .success()
        .stdout(predicate::str::contains("already up to date"));
    env.assert_unchanged(&before);
    // --json is JSON, stale or not.
    let check = env
        .steward()
        .args(["mirror", "--check", "--json"])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0));
    let check: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(check["current"], true);
    assert_eq!(check["schema_version"], 1);
    let refresh = env.steward().args(["mirror", "--json"]).output().unwrap();
    let refresh: serde_json::Value = serde_json::from_slice(&refresh.stdout).unwrap();
    assert_eq!(refresh["updated"], false);
    assert_eq!(refresh["open_goals"], 1);
    assert_eq!(refresh["path"], "ACTIVE-TASKS.md");
}

#[test]
fn an_assessment_that_changes_nothing_the_mirror_shows_leaves_the_file_alone() {
    let env = TestEnv::initialised();
    env.add_goal("one");
    let inode = |env: &TestEnv| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(env.path("ACTIVE-TASKS.md"))
            .unwrap()
            .ino()
    };
    let (before, file) = (env.read("ACTIVE-TASKS.md"), inode(&env));
    env.steward()
        .args(["--actor", "agent", "assess", "one", "--summary", "looked"])
        .assert()
        .success();
    assert_eq!(env.read("ACTIVE-TASKS.md"), before);
    assert_eq!(inode(&env), file, "not rewritten");
    env.steward().args(["mirror", "--check"]).assert().success();
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "one",
            "--summary",
            "did",
            "--met",
            "1",
        ])
        .env("STEWARD_NOW", "2026-11-21T05:00:00Z")
        .assert()
        .success();
    assert!(env.read("ACTIVE-TASKS.md").contains("criteria 1/"));
    env.steward().args(["mirror", "--check"]).assert().success();
}

#[test]
fn the_mirror_shows_the_first_goals_and_is_not_written_for_the_others() {
    use std::os::unix::fs::MetadataExt;
    const FULL: &str = "_The first 2 open goals by priority: `steward list` lists them all._\n<!-- steward:end -->";
    let env = TestEnv::initialised();
    env.write_config("mirror:\n  max_goals: 2\n");
    for label in ["a", "b", "c", "d"] {
        env.add_goal(label);
    }
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.contains("- **a** ") && text.contains("- **b** "),
        "{text}"
    );
    assert!(
        !text.contains("- **c** ") && !text.contains("- **d** "),
        "{text}"
    );
    assert!(text.contains(FULL), "{text}");
    env.steward().args(["mirror", "--check"]).assert().success();
    // A goal not shown changes, closes, or is added: the file is not
    // written at all.
    let inode = || {
        std::fs::metadata(env.path("ACTIVE-TASKS.md"))
            .unwrap()
            .ino()
    };
    let before = inode();
    env.steward()
        .args(["update", "d", "--check", "1"])
        .assert()
        .success();
    env.steward()
        .args(["abandon", "d", "--reason", "not needed"])
        .assert()
        .success();
    env.add_goal("e");
    assert_eq!(env.read("ACTIVE-TASKS.md"), text);
    assert_eq!(inode(), before);
    env.steward().args(["mirror", "--check"]).assert().success();
    // A shown goal closes: the next one moves up.
    env.steward()
        .args(["abandon", "a", "--reason", "not needed"])
        .assert()
        .success();
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.contains("- **b** ") && text.contains("- **c** ") && text.contains(FULL),
        "{text}"
    );
    env.steward().args(["mirror", "--check"]).assert().success();
    // Fewer open goals than the block can show: every one is, and the
    // last line goes.
    for label in ["c", "e"] {
        env.steward()
            .args(["abandon", label, "--reason", "not needed"])
            .assert()
            .success();
    }
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.contains("- **b** ") && !text.contains("_The first"),
        "{text}"
    );
    env.steward().args(["mirror", "--check"]).assert().success();
}

/// Whatever a command does to goals shown or not, the patched block is what
/// a full render gives.
#[test]
fn a_mirror_that_hides_goals_stays_current_through_every_kind_of_change() {
    let env = TestEnv::initialised();
    env.write_config("mirror:\n  max_goals: 2\n");
    for label in ["b", "d", "f"] {
        env.add_goal(label);
    }
    let steps: &[&[&str]] = &[
        &["add", "a", "--title", "A", "--criterion", "x"],
        &["add", "z", "--title", "Z", "--criterion", "x"],
        &["update", "z", "--priority", "high", "--confirmed"],
        &["update", "a", "--priority", "low"],
        &["update", "f", "--label", "c"],
        &[
            "--actor",
            "agent",
            "assess",
            "d",
            "--summary",
            "s",
            "--met",
            "1",
        ],
        &[
            "--actor",
            "agent",
            "assess",
            "c",
            "--summary",
            "s",
            "--stuck",
            "--blocker",
            "needs a key",
        ],
        &["unblock", "c", "--reason", "key given"],
        &["pause", "b"],
        &["resume", "b"],
        &["abandon", "z", "--reason", "r"],
        &["abandon", "a", "--reason", "r"],
        &["undo", "a"],
        &["delete", "d"],
        &["undo", "d"],
        &["delete", "b"],
        // Shown goals close while those hidden have a lower priority, or
        // the same one and a later label.
        &["add", "m", "--title", "M", "--criterion", "x"],
        &["add", "n", "--title", "N", "--criterion", "x"],
        &["update", "n", "--priority", "low"],
        &["abandon", "c", "--reason", "r"],
        &["add", "e", "--title", "E", "--criterion", "x"],
        &["abandon", "d", "--reason", "r"],
        &["abandon", "e", "--reason", "r"],
    ];
    for step in steps {
        env.steward().args(*step).assert().success();
        env.steward()
            .args(["mirror", "--check"])
            .assert()
            .success()
            .stdout(predicate::str::contains("up to date"));
    }
}

/// Labels are reused once a goal closes: what happens to a closed goal,
/// or to a goal whose file vanished, must not take an open goal's entry.
#[test]
fn a_full_mirror_keeps_the_entry_of_an_open_goal_that_reuses_a_label() {
    let env = TestEnv::initialised();
    env.write_config("mirror:\n  max_goals: 3\n");
    env.add_goal("b");
    env.steward()
        .args(["abandon", "b", "--reason", "old"])
        .assert()
        .success();
    let closed = env.goal_json("b")["id"].as_str().unwrap().to_string();
    for label in ["a", "b", "c", "d"] {
        env.add_goal(label);
    }
    let shown = |text: &str| text.contains("- **b** ") && text.contains("- **c** ");
    assert!(shown(&env.read("ACTIVE-TASKS.md")));
    // The closed `b` is deleted by its id: the open `b` stays shown.
    env.steward()
        .args(["delete", &closed[..8]])
        .assert()
        .success()
        .stdout(predicate::str::contains("b: deleted"));
    let text = env.read("ACTIVE-TASKS.md");
    assert!(shown(&text), "{text}");
    env.steward().args(["mirror", "--check"]).assert().success();
    // The open `b`'s file removed by hand, and a person adds `b` again in
    // the same command that records the vanished one: the new `b` is shown.
    std::fs::remove_file(env.path("state/goals/b.md")).unwrap();
    env.add_goal("b");
    let text = env.read("ACTIVE-TASKS.md");
    assert!(shown(&text), "{text}");
    env.steward().args(["mirror", "--check"]).assert().success();
}

#[test]
fn a_mirror_with_broken_markers_is_left_alone() {
    let env = TestEnv::initialised();
    env.write(
        "ACTIVE-TASKS.md",
        &format!("# Tasks\n{BEGIN}\nno end marker\n"),
    );
    env.add_goal("one");
    assert_eq!(
        env.read("ACTIVE-TASKS.md"),
        format!("# Tasks\n{BEGIN}\nno end marker\n")
    );
    // A note leaves the goal's entry as it was: the mirror is not read.
    env.steward()
        .args(["update", "one", "--note", "x"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    // A change to what the entry shows is refused in a broken mirror.
    env.steward()
        .args(["update", "one", "--title", "Renamed"])
        .assert()
        .success()
        .stderr(predicate::str::contains("ACTIVE-TASKS.md:2:1: mirror not updated: the steward:begin marker has no steward:end marker"));
    env.steward().arg("mirror").assert().code(1);
}

#[test]
fn the_mirror_shows_a_change_only_once_its_events_are_written() {
    let env = TestEnv::initialised();
    env.add_goal("one");
    let mirror = env.read("ACTIVE-TASKS.md");
    assert!(mirror.contains("— Goal one"), "{mirror}");
    // A log steward refuses to append to: the goal is written, its event
    // is not, and the mirror must not tell of the change.
    let day = env.path("state/events/2026-11-21.jsonl");
    std::fs::remove_file(&day).unwrap();
    std::os::unix::fs::symlink(env.path("elsewhere.jsonl"), &day).unwrap();
    env.steward()
        .args(["update", "one", "--title", "Renamed"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("2026-11-21.jsonl"));
    assert!(env.read("state/goals/one.md").contains("title: Renamed"));
    assert_eq!(env.read("ACTIVE-TASKS.md"), mirror);
    assert!(!env.path("elsewhere.jsonl").exists());
    // The change is steward's own, stopped before its event: the next pass
    // logs the event its journal kept, and renders the mirror from the
    // goal files as they are.
    std::fs::remove_file(&day).unwrap();
    env.steward().arg("tick").assert().success();
    assert!(env.read("ACTIVE-TASKS.md").contains("— Renamed"));
    let events = env.events();
    assert!(
        events
            .iter()
            .any(|e| e["label"] == "one" && e["action"] == "updated"),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["action"] == "interrupted_write_completed")
    );
}

#[test]
fn a_disabled_mirror_is_not_written() {
    let env = TestEnv::initialised();
    env.write_config("mirror:\n  enabled: false\n");
    env.add_goal("one");
    assert!(!env.path("ACTIVE-TASKS.md").exists());
    env.steward()
        .arg("mirror")
        .assert()
        .success()
        .stdout(predicate::str::contains("disabled"));
}

#[test]
fn audit_prints_filters_and_redacts_the_event_log() {
    let mut env = TestEnv::initialised();
    env.add_goal("one");
    env.set_now("2026-11-21T06:00:00Z");
    env.add_goal("two");
    env.steward()
        .args(["update", "two", "--note", "secret plan"])
        .assert()
        .success();
    let all = env.steward().arg("audit").output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(all.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[2]["detail"], "secret plan");
    env.steward()
        .args(["audit", "--goal", "two"])
        .assert()
        .stdout(predicate::str::contains("\"label\":\"one\"").not());
    let since = env
        .steward()
        .args(["audit", "--since", "1h"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(since.stdout).unwrap().lines().count(), 2);
    env.steward()
        .args(["audit", "--since", "2026-11-21T05:00:00Z"])
        .assert()
        .stdout(predicate::str::contains("\"one\"").not());
    let redacted = env.steward().args(["audit", "--redact"]).output().unwrap();
    let text = String::from_utf8(redacted.stdout).unwrap();
    assert!(
        !text.contains("secret") && !text.contains("\"label\"") && !text.contains("Goal"),
        "{text}"
    );
    assert!(
        text.starts_with("{\"ts\":\"2026-11-21T04:00:00Z\",\"goal_id\":"),
        "{text}"
    );
    env.steward()
        .args(["audit", "--since", "whenever"])
        .assert()
        .code(2);
}

#[test]
fn a_line_of_the_log_that_does_not_parse_is_named_with_its_line() {
    let env = TestEnv::initialised();
    env.add_goal("one");
    env.add_goal("two");
    let day = "state/events/2026-11-21.jsonl";
    let log = env.read(day);
    let mut lines: Vec<&str> = log.lines().collect();
    lines.insert(1, "{\"ts\": garbled");
    env.write(day, &(lines.join("\n") + "\n"));
    let named = "state/events/2026-11-21.jsonl:2:8: this line is not an event";
    env.steward()
        .arg("audit")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\"label\":\"two\""))
        .stderr(predicate::str::contains(named));
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(named));
    // A line without its end swallows no event of steward's.
    let text = env.read(day);
    env.write(day, &format!("{text}unfinished"));
    env.steward()
        .args(["abandon", "two", "--reason", "not needed"])
        .assert()
        .success();
    assert!(
        env.event_lines()
            .iter()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .any(|e| e["label"] == "two" && e["to"] == "abandoned")
    );
    // The screens that read the log pass over it.
    for screen in [
        &["status"][..],
        &["show", "one"],
        &["digest"],
        &["log", "one"],
    ] {
        env.steward().args(screen).assert().success();
    }
}

#[test]
fn budget_shows_usage_and_the_dispatch_window() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/g.md",
        "---\nlabel: g\nbudget: {max_dispatches: 5, max_assessments: 9}\nbounds: {max_iterations: 12, max_cost_usd: 10, deadline: 2026-11-23T04:00:00Z}\nprogress: {dispatches: 2, assessments: 3, cost_usd: 1.5}\n---\n",
    );
    let line = format!(
        "{}\n",
        serde_json::json!({"ts": "2026-11-21T03:30:00Z", "goal_id": "x", "label": "g", "actor": "agent", "action": "dispatched", "from": null, "to": null, "detail": ""})
    );
    let old = line.replace("03:30", "02:30");
    env.write("state/events.jsonl", &format!("{old}{line}"));
    env.steward()
        .arg("budget")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "g                    active    dispatches 2/5, assessments 3/9, iterations 3/12, cost $1.50/$10.00, deadline in 2d (2026-11-23T04:00:00Z)",
        ))
        .stdout(predicate::str::contains("global: 1/6 dispatches in the last hour"));
    let output = env.steward().args(["budget", "--json"]).output().unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["window"],
        serde_json::json!({"dispatches_last_hour": 1, "max_dispatches_per_hour": 6})
    );
    assert_eq!(
        document["goals"][0]["dispatches"],
        serde_json::json!({"used": 2, "max": 5})
    );
}
