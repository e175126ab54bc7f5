use predicates::prelude::*;

use crate::common::TestEnv;

fn status(env: &TestEnv, goal: &str) -> String {
    env.goal_json(goal)["status"].as_str().unwrap().to_string()
}

#[test]
fn pause_and_resume() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["pause", "g"])
        .assert()
        .success()
        .stdout("g: paused\n");
    assert_eq!(status(&env, "g"), "paused");
    let before = env.snapshot();
    env.steward()
        .args(["pause", "g"])
        .assert()
        .success()
        .stdout("g: nothing changed\n");
    env.assert_unchanged(&before);
    env.steward().args(["resume", "g"]).assert().success();
    assert_eq!(status(&env, "g"), "active");
    let events = env.events();
    assert_eq!(
        (events[1]["from"].as_str(), events[1]["to"].as_str()),
        (Some("active"), Some("paused"))
    );
}

#[test]
fn confirm_sets_confirmed() {
    let env = TestEnv::initialised();
    env.write("state/goals/g.md", "---\nlabel: g\nconfirmed: false\n---\n");
    env.steward().args(["confirm", "g"]).assert().success();
    assert_eq!(env.goal_json("g")["confirmed"], true);
}

#[test]
fn abandon_closes_the_goal_and_moves_it() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["abandon", "g"]).assert().code(2);
    env.steward()
        .args(["abandon", "g", "--reason", "not needed"])
        .assert()
        .success();
    let goal = env.goal_json("g");
    assert_eq!(goal["status"], "abandoned");
    assert_eq!(goal["closed_reason"], "not needed");
    assert_eq!(goal["closed_at"], "2026-11-21T04:00:00Z");
    let short = &goal["id"].as_str().unwrap()[..8];
    assert_eq!(goal["path"], format!("state/goals/closed/g-{short}.md"));
    assert!(!env.path("state/goals/g.md").exists());
    env.steward().arg("list").assert().stdout("");
    env.steward()
        .args(["abandon", "g", "--reason", "again"])
        .assert()
        .code(4);
}

#[test]
fn unblock_clears_the_escalation() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/g.md",
        "---\nlabel: g\nstatus: blocked\nescalation:\n  kind: failures\n  reason: 3 failures\nprogress:\n  consecutive_failures: 3\n---\n",
    );
    env.steward().args(["unblock", "g"]).assert().code(2);
    env.steward()
        .args(["unblock", "g", "--reason", "fixed the token"])
        .assert()
        .success();
    let goal = env.goal_json("g");
    assert_eq!(goal["status"], "active");
    assert_eq!(goal["escalation"], serde_json::Value::Null);
    assert_eq!(goal["progress"]["consecutive_failures"], 0);
    env.steward()
        .args(["unblock", "g", "--reason", "x"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("not blocked"));
}

#[test]
fn unblock_refuses_an_exhausted_budget_and_reset_budget_lifts_it() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/g.md",
        "---\nlabel: g\nstatus: blocked\nescalation: {kind: budget, reason: exhausted}\nbudget:\n  max_dispatches: 2\nprogress:\n  dispatches: 2\n  assessments: 5\n---\n",
    );
    env.steward()
        .args(["unblock", "g", "--reason", "go"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("reset-budget"));
    env.steward().args(["reset-budget", "g"]).assert().success();
    let goal = env.goal_json("g");
    assert_eq!(goal["status"], "active");
    assert_eq!(goal["progress"]["dispatches"], 0);
    assert_eq!(goal["progress"]["assessments"], 0);
    // The lifetime count stays, so hard bounds still hold.
    assert_eq!(goal["progress"]["iterations"], 5);
}

#[test]
fn resume_refuses_a_blocked_goal() {
    let env = TestEnv::initialised();
    env.write("state/goals/g.md", "---\nlabel: g\nstatus: blocked\n---\n");
    env.steward()
        .args(["resume", "g"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("use `steward unblock g"));
}

#[test]
fn actor_is_recorded_from_flag_or_environment() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["--actor", "agent", "update", "g", "--note", "a"])
        .assert()
        .success();
    env.steward()
        .env("STEWARD_ACTOR", "steward")
        .args(["update", "g", "--note", "b"])
        .assert()
        .success();
    env.steward()
        .args(["--actor", "watchdog", "update", "g", "--note", "c"])
        .assert()
        .code(2);
    let text = env.read("state/goals/g.md");
    assert!(
        text.contains("Z agent note: a\n") && text.contains("Z steward note: b\n"),
        "{text}"
    );
    let actors: Vec<&str> = env
        .events()
        .iter()
        .map(|e| e["actor"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .leak()
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(actors, ["user", "agent", "steward"]);
}

/// The goal file without the lines `undo` adds (its stamp and history line).
fn without_undo_stamp(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("updated_at:") && !l.contains(" undone: "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn undo_takes_back_the_last_change_byte_for_byte() {
    let mut env = TestEnv::initialised();
    env.add_goal("g");
    // A hand edit steward keeps: undo must keep it too.
    let edited = env
        .read("state/goals/g.md")
        .replace("label: g\n", "label: g\n# a comment of mine\n");
    env.write("state/goals/g.md", &edited);
    env.steward().args(["pause", "g"]).assert().success();
    env.steward().args(["resume", "g"]).assert().success();
    let before = env.read("state/goals/g.md");
    env.set_now("2026-11-21T04:30:00Z");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "g",
            "--summary",
            "s",
            "--met",
            "1",
        ])
        .assert()
        .success();
    let assessed = env.read("state/goals/g.md");
    // Only a person undoes.
    env.steward()
        .args(["--actor", "agent", "undo", "g"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("steward undo g"));
    env.steward()
        .args(["undo", "g"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "g: undid assess at 2026-11-21T04:30:00Z (assessed)",
        ));
    let undone = env.read("state/goals/g.md");
    assert_eq!(without_undo_stamp(&undone), without_undo_stamp(&before));
    assert!(undone.contains("# a comment of mine"));
    assert!(undone.contains("user undone: assess at 2026-11-21T04:30:00Z (assessed)"));
    let events = env.events();
    let last = events.last().unwrap();
    assert_eq!(last["action"], "undone");
    assert!(
        events.iter().any(|e| e["action"] == "assessed"),
        "the log keeps it"
    );
    // Undoing the undo redoes.
    env.steward().args(["undo", "g"]).assert().success();
    assert_eq!(
        without_undo_stamp(&env.read("state/goals/g.md")),
        without_undo_stamp(&assessed)
    );
    // No tamper finding: every step is in the log.
    env.steward()
        .args(["tick", "--json"])
        .assert()
        .stdout(predicate::str::contains("edited_outside").not());
}

#[test]
fn an_undo_record_linked_to_another_file_is_replaced_not_written_through() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["pause", "g"]).assert().success();
    let id = env.goal_json("g")["id"].as_str().unwrap().to_string();
    let record = env.path(&format!("state/undo/{id}.json"));
    let theirs = env.home().join("theirs.txt");
    std::fs::write(&theirs, "not steward's\n").unwrap();
    std::fs::remove_file(&record).unwrap();
    std::fs::hard_link(&theirs, &record).unwrap();
    env.steward().args(["resume", "g"]).assert().success();
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "not steward's\n");
    env.steward()
        .args(["undo", "g"])
        .assert()
        .success()
        .stdout(predicate::str::contains("undid resume"));
    assert_eq!(env.goal_json("g")["status"], "paused");
}

#[test]
fn undo_refuses_when_the_goal_changed_since() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["pause", "g"]).assert().success();
    let text = env
        .read("state/goals/g.md")
        .replace("title: Goal g", "title: Mine");
    env.write("state/goals/g.md", &text);
    let before = env.snapshot();
    env.steward()
        .args(["undo", "g"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("the goal changed since"))
        .stderr(predicate::str::contains("pause at"));
    env.assert_unchanged(&before);
    // A goal no command changed yet (written by hand) has nothing to undo.
    env.write(
        "state/goals/hand.md",
        "---\nlabel: hand\n---\n## Acceptance criteria\n\n- [ ] x\n",
    );
    env.steward()
        .args(["undo", "hand"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("keeps no change of it"));
}

#[test]
fn delete_removes_a_goal_by_mistake_and_undo_brings_it_back() {
    let env = TestEnv::initialised();
    env.add_goal("oops");
    env.add_goal("keep");
    let text = env.read("state/goals/oops.md");
    env.steward()
        .args(["--actor", "agent", "delete", "oops"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("only a person may delete a goal"));
    env.steward()
        .args(["delete", "oops"])
        .assert()
        .success()
        .stdout(predicate::str::contains("oops: deleted"));
    assert!(!env.path("state/goals/oops.md").exists());
    assert!(!env.read("ACTIVE-TASKS.md").contains("oops"));
    assert!(env.read("ACTIVE-TASKS.md").contains("keep"));
    let events = env.events();
    assert!(
        events
            .iter()
            .any(|e| e["action"] == "created" && e["label"] == "oops")
    );
    let deleted = events.last().unwrap();
    assert_eq!(deleted["action"], "deleted");
    assert_eq!(deleted["label"], "oops");
    env.steward().args(["show", "oops"]).assert().code(1);
    env.steward()
        .args(["undo", "oops"])
        .assert()
        .success()
        .stdout(predicate::str::contains("undid delete"));
    assert_eq!(
        without_undo_stamp(&env.read("state/goals/oops.md")),
        without_undo_stamp(&text)
    );
    assert!(env.read("ACTIVE-TASKS.md").contains("oops"));
    // Undoing the add deletes it again.
    env.steward().args(["undo", "oops"]).assert().success();
    assert!(!env.path("state/goals/oops.md").exists());
}
