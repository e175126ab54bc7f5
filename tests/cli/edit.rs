use predicates::prelude::*;

use crate::common::TestEnv;

/// An EDITOR that runs a sed script on the file.
fn sed_editor(script: &str) -> String {
    format!("sed -i -e '{script}'")
}

#[test]
fn a_person_edits_by_hand_and_steward_keeps_it() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    // Tick a criterion, change the priority, add a comment and an unknown key.
    let editor = sed_editor(
        "s/^- \\[ \\] Second/- [x] Second/; s/^priority: normal/priority: low  # not urgent/; s/^blockers: \\[\\]/blockers: []\\n# reviewer is on leave\\nreviewer: sam/",
    );
    env.steward()
        .env("EDITOR", &editor)
        .args(["edit", "deploy"])
        .assert()
        .success()
        .stdout("deploy: edited\n");
    env.steward()
        .args(["update", "deploy", "--note", "x"])
        .assert()
        .success();
    let text = env.read("state/goals/deploy.md");
    assert!(text.contains("priority: low  # not urgent\n"), "{text}");
    assert!(
        text.contains("# reviewer is on leave\nreviewer: sam\n"),
        "{text}"
    );
    assert!(text.contains("- [x] Second\n"), "{text}");
    assert!(
        text.contains("user edited: priority, criteria, other keys\n"),
        "{text}"
    );
    let goal = env.goal_json("deploy");
    assert_eq!(goal["priority"], "low");
    assert_eq!(goal["criteria"][1]["met"], true);
    assert_eq!(goal["extra"]["reviewer"], "sam");
    assert!(!env.path("state/edits/deploy.md").exists());
}

#[test]
fn visual_wins_over_editor() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .env("VISUAL", sed_editor("s/^title: .*/title: From visual/"))
        .env("EDITOR", "false")
        .args(["edit", "deploy"])
        .assert()
        .success();
    assert_eq!(env.goal_json("deploy")["title"], "From visual");
}

#[test]
fn an_invalid_edit_is_reported_and_kept_as_a_draft() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let original = env.read("state/goals/deploy.md");
    env.steward()
        .env("EDITOR", sed_editor("s/^title: .*/title: [broken/"))
        .args(["edit", "deploy"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "state/edits/deploy.md:5:7: front matter: did not find expected",
        ))
        .stderr(predicate::str::contains(
            "your draft is kept at state/edits/deploy.md",
        ));
    assert_eq!(env.read("state/goals/deploy.md"), original);
    assert!(env.read("state/edits/deploy.md").contains("title: [broken"));
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("unsaved draft"));
    // The next edit reopens the draft; fixing it saves.
    env.steward()
        .env("EDITOR", sed_editor("s/^title: \\[broken/title: fixed/"))
        .args(["edit", "deploy"])
        .assert()
        .success()
        .stderr(predicate::str::contains("reopening your unsaved draft"));
    assert_eq!(env.goal_json("deploy")["title"], "fixed");
    assert!(!env.path("state/edits/deploy.md").exists());
}

#[test]
fn edits_that_break_the_rules_are_refused() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.add_goal("other");
    let original = env.read("state/goals/deploy.md");
    for (script, message) in [
        (
            "s/^status: active/status: completed/",
            "5:1: a goal is completed only by `steward complete`",
        ),
        (
            "s/^status: active/status: actve/",
            "5:1: unknown status `actve`",
        ),
        (
            "s/^priority: normal/priority: urgent/",
            "6:1: unknown priority `urgent`",
        ),
        (
            "s/^label: deploy/label: other/",
            "3:1: goal `other` is already open",
        ),
        (
            "s/^label: deploy/label: Bad Label/",
            "3:1: label `bad label` contains",
        ),
    ] {
        std::fs::remove_file(env.path("state/edits/deploy.md")).ok();
        env.steward()
            .env("EDITOR", sed_editor(script))
            .args(["edit", "deploy"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
        assert_eq!(env.read("state/goals/deploy.md"), original, "{script}");
    }
}

#[test]
fn a_label_changed_in_the_editor_renames_the_file() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .env("EDITOR", sed_editor("s/^label: deploy/label: ship/"))
        .args(["edit", "deploy"])
        .assert()
        .success();
    assert!(!env.path("state/goals/deploy.md").exists());
    assert_eq!(env.goal_json("ship")["label"], "ship");
}

#[test]
fn no_change_and_a_failing_editor_write_nothing() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let before = env.snapshot();
    env.steward()
        .env("EDITOR", "true")
        .args(["edit", "deploy"])
        .assert()
        .success()
        .stdout("deploy: no changes\n");
    env.assert_unchanged(&before);
    env.steward()
        .env("EDITOR", "false")
        .args(["edit", "deploy"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("editor `false` failed"));
}
