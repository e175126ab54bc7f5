use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn update_changes_each_field_it_is_given() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args([
            "update",
            "deploy",
            "--title",
            "New title",
            "--description",
            "Now with a description.",
        ])
        .args([
            "--check",
            "1",
            "--add-criterion",
            "Fourth",
            "--blocker",
            "a",
            "--blocker",
            "b",
        ])
        .args([
            "--verify",
            "file_exists:out/app@4",
            "--max-assessments",
            "9",
            "--cooldown",
            "30m",
        ])
        .args([
            "--deadline",
            "2027-01-01T00:00:00Z",
            "--tag",
            "x",
            "--note",
            "why",
        ])
        .assert()
        .success();
    let goal = env.goal_json("deploy");
    assert_eq!(goal["title"], "New title");
    assert_eq!(goal["description"], "Now with a description.");
    assert_eq!(goal["criteria"][0]["met"], true);
    assert_eq!(goal["criteria"][3]["text"], "Fourth");
    assert_eq!(goal["blockers"], serde_json::json!(["a", "b"]));
    assert_eq!(
        goal["verification"][0],
        serde_json::json!({"type": "file_exists", "target": "out/app", "criterion": 4})
    );
    assert_eq!(goal["budget"]["max_assessments"], 9);
    assert_eq!(goal["budget"]["cooldown"], "30m");
    assert_eq!(goal["bounds"]["deadline"], "2027-01-01T00:00:00Z");
    assert_eq!(goal["tags"], serde_json::json!(["x"]));
    let text = env.read("state/goals/deploy.md");
    assert!(text.contains("user updated: title changed; description changed; criterion 1 met; criterion added: Fourth"), "{text}");
    assert!(text.ends_with("; note: why\n"), "{text}");
}

#[test]
fn note_alone_appends_one_history_line() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let before = env.read("state/goals/deploy.md");
    env.steward()
        .args(["update", "deploy", "--note", "looked at it"])
        .assert()
        .success();
    let after = env.read("state/goals/deploy.md");
    let added: Vec<&str> = after
        .lines()
        .filter(|l| !before.lines().any(|b| b == *l))
        .collect();
    assert_eq!(
        added,
        [
            "updated_at: 2026-11-21T04:00:00Z",
            "- 2026-11-21T04:00:00Z user note: looked at it"
        ]
        .iter()
        .copied()
        .filter(|l| !before.contains(l))
        .collect::<Vec<_>>()
    );
    assert_eq!(env.events().last().unwrap()["action"], "note");
}

#[test]
fn removing_criteria_renumbers_checks() {
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
            "--criterion",
            "c",
        ])
        .args(["--verify", "file_exists:x@3", "--verify", "file_exists:y@1"])
        .assert()
        .success();
    env.steward()
        .args(["update", "g", "--remove-criterion", "1"])
        .assert()
        .success();
    let goal = env.goal_json("g");
    let texts: Vec<&str> = goal["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["b", "c"]);
    assert_eq!(goal["verification"][0]["criterion"], 2);
    assert_eq!(
        goal["verification"][1]["criterion"],
        serde_json::Value::Null
    );
}

#[test]
fn criterion_numbers_out_of_range_exit_2() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let before = env.snapshot();
    for args in [
        ["--check", "4"],
        ["--uncheck", "9"],
        ["--remove-criterion", "4"],
        ["--check", "0"],
    ] {
        env.steward()
            .args(["update", "deploy"])
            .args(args)
            .assert()
            .code(2)
            .stdout("");
    }
    env.steward()
        .args(["update", "deploy", "--check", "4"])
        .assert()
        .stderr(predicate::str::contains(
            "--check 4: criterion 4 does not exist (`deploy` has 3 criteria)",
        ));
    env.steward()
        .args(["update", "deploy", "--verify", "file_exists:x@5"])
        .assert()
        .code(2);
    env.steward()
        .args(["update", "deploy"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to update"));
    env.assert_unchanged(&before);
}

#[test]
fn same_values_change_nothing() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let before = env.snapshot();
    env.steward()
        .args([
            "update",
            "deploy",
            "--priority",
            "normal",
            "--title",
            "Goal deploy",
        ])
        .assert()
        .success()
        .stdout("deploy: nothing changed\n");
    env.assert_unchanged(&before);
}

#[test]
fn rename_moves_the_file_and_refuses_a_taken_label() {
    let env = TestEnv::initialised();
    env.add_goal("old");
    env.add_goal("taken");
    env.steward()
        .args(["update", "old", "--label", "taken"])
        .assert()
        .code(4);
    env.steward()
        .args(["update", "old", "--label", "bad/label"])
        .assert()
        .code(2);
    env.steward()
        .args(["update", "old", "--label", "New"])
        .assert()
        .success();
    assert!(!env.path("state/goals/old.md").exists());
    assert!(env.read("state/goals/new.md").contains("label: new\n"));
    assert_eq!(env.goal_json("new")["label"], "new");
}

#[test]
fn raising_priority_needs_confirmation() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args(["update", "deploy", "--priority", "high"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("--confirmed"));
    env.steward()
        .args(["update", "deploy", "--priority", "high", "--confirmed"])
        .assert()
        .success();
    assert_eq!(env.goal_json("deploy")["priority"], "high");
}

#[test]
fn terminal_goals_do_not_change() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args(["abandon", "deploy", "--reason", "stop"])
        .assert()
        .success();
    let before = env.snapshot();
    env.steward()
        .args(["update", "deploy", "--note", "late"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "is abandoned: terminal goals do not change",
        ));
    env.assert_unchanged(&before);
}
