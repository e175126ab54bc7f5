//! steward-guide(7), "AGENT RUNS": the session that parked its goal on a
//! wait is the one woken when the wait ends — its session resumed and
//! told what it waited for — exactly once.

use crate::common::TestEnv;

/// Parks its goal on CI the first time; resumed, says it picked up.
const AGENT: &str = r#"#!/bin/sh
instruction=$(cat)
echo "$*" >> argv.log
printf '%s' "$instruction" > "instruction-$STEWARD_DISPATCH_ID.txt"
case "$*" in
  *--resume*)
    echo '{"type":"result","subtype":"success","is_error":false,"result":"woken: CI is green","session_id":"s-park","total_cost_usd":0}'
    ;;
  *)
    steward --actor agent assess "$STEWARD_GOAL" --summary "CI runs" --wait-until 2026-11-21T05:00:00Z -q
    echo '{"type":"result","subtype":"success","is_error":false,"result":"parked on CI","session_id":"s-park","total_cost_usd":0}'
    ;;
esac
"#;

const CONFIG: &str = "dispatch:
  enabled: true
  agent: fake
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    resume: [./agent.sh, --resume, '{session}']
    output: claude-json
";

#[test]
fn the_session_that_parked_a_goal_is_woken_once_when_its_wait_ends() {
    let mut env = TestEnv::initialised();
    env.write_config(CONFIG);
    env.executable("agent.sh", AGENT);
    env.steward()
        .args([
            "add",
            "ship",
            "--title",
            "Ship",
            "--criterion",
            "CI is green",
        ])
        .assert()
        .success();
    env.tick_and_settle();
    assert!(env.goal_json("ship")["waiting"].is_object());
    // Still waiting: nothing starts.
    env.set_now("2026-11-21T04:40:00Z");
    env.tick_and_settle();
    assert_eq!(env.runs().len(), 1);
    // The wait is over: the parked session is resumed, told why.
    env.set_now("2026-11-21T05:01:00Z");
    env.tick_and_settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["kind"], "wake", "{}", runs[1]);
    assert_eq!(runs[1]["session"], "s-park");
    let argv = env.read("argv.log");
    assert!(
        argv.lines()
            .nth(1)
            .is_some_and(|line| line.ends_with(" --resume s-park")),
        "{argv}"
    );
    let told = env.read(&format!(
        "instruction-{}.txt",
        runs[1]["id"].as_str().unwrap()
    ));
    assert!(
        told.starts_with("steward wakes you for goal ship. The wait is over: done waiting for CI runs: 2026-11-21T05:00:00Z passed. Pick up where you left off"),
        "{told}"
    );
    // Woken once: later passes follow the ladder, with no second wake.
    for now in ["2026-11-21T05:30:00Z", "2026-11-21T06:30:00Z"] {
        env.set_now(now);
        env.tick_and_settle();
    }
    let wakes = env.runs().iter().filter(|r| r["kind"] == "wake").count();
    assert_eq!(wakes, 1, "{:?}", env.runs());
}

#[test]
fn an_interactive_session_that_parked_a_goal_is_resumed_when_its_wait_ends() {
    let mut env = TestEnv::initialised();
    // The profile a session of Claude Code is resumed with: a script here.
    env.write_config(
        &CONFIG
            .replace("agent: fake", "agent: claude")
            .replace("  fake:", "  claude:"),
    );
    env.executable("agent.sh", AGENT);
    env.steward()
        .args([
            "add",
            "ship",
            "--title",
            "Ship",
            "--criterion",
            "CI is green",
        ])
        .assert()
        .success();
    // A person's Claude Code session parks it: its shell carries the
    // session's id, and no dispatch id.
    env.steward()
        .env("CLAUDECODE", "1")
        .env("CLAUDE_CODE_SESSION_ID", "6f1c2d3e-interactive")
        .args([
            "assess",
            "ship",
            "--summary",
            "CI runs",
            "--wait-until",
            "2026-11-21T05:00:00Z",
        ])
        .assert()
        .success();
    assert_eq!(
        env.goal_json("ship")["waiting"]["session"],
        "claude:6f1c2d3e-interactive"
    );
    env.set_now("2026-11-21T05:01:00Z");
    env.tick_and_settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["kind"], "wake");
    assert_eq!(runs[0]["agent"], "claude");
    // Resumed with the session's id (the script then reports its own).
    let argv = env.read("argv.log");
    assert!(
        argv.trim_end().ends_with(" --resume 6f1c2d3e-interactive"),
        "{argv}"
    );
    // Once.
    env.set_now("2026-11-21T06:01:00Z");
    env.tick_and_settle();
    assert_eq!(env.runs().iter().filter(|r| r["kind"] == "wake").count(), 1);
}

/// Asks a person the first time; resumed, says it has the answer.
const ASKING_AGENT: &str = r#"#!/bin/sh
instruction=$(cat)
echo "$*" >> argv.log
printf '%s' "$instruction" > "instruction-$STEWARD_DISPATCH_ID.txt"
case "$*" in
  *--resume*)
    echo '{"type":"result","subtype":"success","is_error":false,"result":"deployed with the token","session_id":"s-ask","total_cost_usd":0}'
    ;;
  *)
    steward --actor agent assess "$STEWARD_GOAL" --summary "the deploy needs a token only a person has" --stuck -q
    echo '{"type":"result","subtype":"success","is_error":false,"result":"asked for the token","session_id":"s-ask","total_cost_usd":0}'
    ;;
esac
"#;

#[test]
fn the_session_that_asked_a_person_is_woken_with_the_answer() {
    let mut env = TestEnv::initialised();
    env.write_config(CONFIG);
    env.executable("agent.sh", ASKING_AGENT);
    env.steward()
        .args(["add", "ship", "--title", "Ship", "--criterion", "Deployed"])
        .assert()
        .success();
    env.tick_and_settle();
    assert_eq!(env.goal_json("ship")["escalation"]["kind"], "agent");
    env.set_now("2026-11-21T04:30:00Z");
    env.steward()
        .args(["unblock", "ship", "--note", "the token is in the vault"])
        .assert()
        .success();
    env.tick_and_settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["kind"], "wake", "{}", runs[1]);
    let argv = env.read("argv.log");
    assert!(argv.trim_end().ends_with(" --resume s-ask"), "{argv}");
    let told = env.read(&format!(
        "instruction-{}.txt",
        runs[1]["id"].as_str().unwrap()
    ));
    assert!(
        told.starts_with("steward wakes you for goal ship. The wait is over: a person answered: \"the token is in the vault\". Pick up where you left off"),
        "{told}"
    );
}
