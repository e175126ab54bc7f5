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
