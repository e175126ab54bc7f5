//! What a new user types wrong, by hand or at the prompt: each is said
//! with where, what was likely meant and what to do, and nothing else
//! stops because of it.

use predicates::prelude::*;

use crate::common::TestEnv;

/// A goal file as a person writes one in an editor.
fn hand_written(label: &str, front: &str) -> String {
    format!(
        "---\nlabel: {label}\ntitle: Goal {label}\n{front}---\n\n## Acceptance criteria\n- [ ] {label} is there\n"
    )
}

#[test]
fn a_mistyped_label_or_section_says_what_was_meant() {
    let env = TestEnv::initialised();
    env.add_goal("deploy-api");
    env.steward()
        .args(["show", "deploy-ap"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no goal matches `deploy-ap` (did you mean `deploy-api`?)",
        ));
    // Nothing near: the usual words.
    env.steward()
        .args(["show", "zzz"])
        .assert()
        .stderr(predicate::str::contains("give a label, an id"));
    env.write_config("dispach:\n  enabled: true\n");
    env.steward()
        .args(["config"])
        .assert()
        .stderr(predicate::str::contains(
            "steward.yaml:1:1: unknown key `dispach` (did you mean the section `dispatch:`?)",
        ));
}

#[test]
fn values_a_person_wrote_that_steward_does_not_know_are_said_with_what_was_meant() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/done-ish.md",
        &hand_written(
            "done-ish",
            "status: done\npriority: hgh\nverification:\n  - type: file_exist\n    target: x.txt\n    criterion: 1\n",
        ),
    );
    let expected = [
        "state/goals/done-ish.md:4:1: unknown status `done` (did you mean `completed`?",
        "state/goals/done-ish.md:5:1: unknown priority `hgh` (did you mean `high`?",
        "unknown check type `file_exist` (did you mean `file_exists`?",
    ];
    let tick = env.steward().args(["tick"]).output().unwrap();
    let said = String::from_utf8_lossy(&tick.stderr);
    for line in expected {
        assert!(said.contains(line), "{line}\n{said}");
    }
    let show = env.steward().args(["show", "done-ish"]).output().unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains("Problem: unknown status `done`"), "{shown}");
}

#[test]
fn front_matter_never_closed_says_where_to_close_it() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/half.md",
        "---\nlabel: half\ntitle: Half\n\nThe goal's text.\n",
    );
    env.steward()
        .args(["list"])
        .assert()
        .stderr(predicate::str::contains(
            "state/goals/half.md:1:1: front matter opened on line 1 is never closed by a `---` line: add a `---` line before line 4, where the goal's text starts",
        ));
}

#[test]
fn a_file_that_stays_broken_never_hides_a_goal_that_needs_a_person() {
    let env = TestEnv::initialised();
    env.add_goal("stuck");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "stuck",
            "--summary",
            "need a token",
            "--stuck",
        ])
        .assert()
        .success();
    env.write("state/goals/broken.md", "not a goal\n");
    // Said first: exit 1. Then the goal that waits is what the exit says.
    env.steward().args(["tick", "-q"]).assert().code(1);
    env.steward().args(["tick", "-q"]).assert().code(3);
}

#[test]
fn a_folder_of_hand_written_goals_is_accepted_in_one_step() {
    let env = TestEnv::initialised();
    for label in ["one", "two", "three"] {
        env.write(
            &format!("state/goals/{label}.md"),
            &hand_written(label, "status: active\n"),
        );
    }
    // An agent may not.
    env.steward()
        .args(["--actor", "agent", "accept", "--all"])
        .assert()
        .code(4);
    env.steward()
        .args(["accept", "--all"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "one: accepted as it is\n  Goal one — 1 criterion, 0 checks, priority normal",
        ))
        .stdout(predicate::str::contains("two: accepted as it is"))
        .stdout(predicate::str::contains("three: accepted as it is"));
    for label in ["one", "two", "three"] {
        assert!(env.goal_json(label)["waiting"].is_null(), "{label}");
    }
    env.steward()
        .args(["accept", "--all"])
        .assert()
        .success()
        .stdout("nothing waits for a person's acceptance\n");
    // Several named: one that cannot be taken is said, the others taken.
    env.write(
        "state/goals/four.md",
        &hand_written("four", "status: active\n"),
    );
    env.steward()
        .args(["accept", "nope", "four"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nope: no goal matches `nope`"))
        .stdout(predicate::str::contains("four: accepted as it is"));
}
