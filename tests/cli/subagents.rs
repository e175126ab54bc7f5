//! Inside a run: the agent's own subagents are obligations of its goal,
//! `dispatch.max_subagents` is held by the `PreToolUse` hook's answer, and
//! a client that waits for a person (its `Notification` hook) makes the run
//! wait without timing out. The fake agent sends steward's hook the
//! payloads Claude Code 2.1.332 sends (`fixtures/hooks/`), as the client
//! would from inside the run.

use predicates::prelude::*;

use crate::common::TestEnv;

fn fixture(name: &str) -> String {
    format!(
        "{}/fixtures/hooks/claude-code-2.1.332-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Starts two subagents and asks for a third (each `PreToolUse` answer
/// kept), ends the first, then reports.
const SUBAGENTS: &str = r#"#!/bin/sh
cat > /dev/null
for n in 1 2 3; do
  steward hook claude-code < "$FIXTURES/claude-code-2.1.332-PreToolUse.json" > "pre-$n.json"
done
steward hook claude-code < "$FIXTURES/claude-code-2.1.332-SubagentStart.json"
steward tasks --json > tasks-running.json
steward hook claude-code < "$FIXTURES/claude-code-2.1.332-SubagentStop.json"
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-1","total_cost_usd":0}'
"#;

/// Says it waits for a permission, is silent past the run's timeout, then
/// goes on and ends.
const WAITS: &str = r#"#!/bin/sh
cat > /dev/null
steward hook claude-code < "$FIXTURES/claude-code-2.1.332-Notification.json"
steward hook claude-code < "$FIXTURES/claude-code-2.1.332-Notification.json"
sleep 4
echo '{"type":"result","subtype":"success","is_error":false,"result":"went on","session_id":"s-2","total_cost_usd":0}'
"#;

fn store(agent: &str, extra: &str) -> TestEnv {
    let env = TestEnv::initialised();
    env.write_config(&format!(
        "dispatch:
  enabled: true
  agent: fake
  timeout: 2s
{extra}notify:
  command: [./notify.sh]
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
"
    ));
    env.executable(
        "agent.sh",
        &agent.replace(
            "$FIXTURES",
            &format!("{}/fixtures/hooks", env!("CARGO_MANIFEST_DIR")),
        ),
    );
    env.executable(
        "notify.sh",
        "#!/bin/sh\ntr -d '\\n' >> notifications.log\necho >> notifications.log\n",
    );
    env.add_goal("deploy");
    env
}

fn json(env: &TestEnv, file: &str) -> serde_json::Value {
    let text = env.read(file);
    if text.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}: {text}"))
    }
}

#[test]
fn the_fixtures_are_what_the_hook_reads() {
    for name in [
        "PreToolUse",
        "SubagentStart",
        "SubagentStop",
        "Notification",
    ] {
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
        assert_eq!(value["hook_event_name"], name);
        assert!(value["session_id"].is_string());
    }
}

#[test]
fn codex_subagents_are_obligations_of_the_goal_too() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let hook = |event: &str| {
        let payload = std::fs::read_to_string(format!(
            "{}/fixtures/hooks/codex-0.171.0-{event}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        env.steward()
            .args(["hook", "codex"])
            .env("STEWARD_GOAL", "deploy")
            .env("STEWARD_ROOT", env.root())
            .write_stdin(payload)
            .assert()
            .success()
            .stdout("");
    };
    hook("SubagentStart");
    let tasks = env.steward().args(["tasks", "--json"]).output().unwrap();
    let tasks: serde_json::Value = serde_json::from_slice(&tasks.stdout).unwrap();
    let task = &tasks["obligations"][0];
    assert_eq!(task["status"], "running", "{tasks}");
    assert_eq!(task["goal_label"], "deploy", "{tasks}");
    assert_eq!(task["agent"], "codex:default", "{tasks}");
    hook("SubagentStop");
    // Codex gave its result back to the session: delivered, nothing owed.
    let tasks = env.steward().args(["tasks", "--json"]).output().unwrap();
    let tasks: serde_json::Value = serde_json::from_slice(&tasks.stdout).unwrap();
    assert_eq!(tasks["obligations"], serde_json::json!([]), "{tasks}");
    let tasks = (env.steward().args(["tasks", "--all", "--json"]))
        .output()
        .unwrap();
    let tasks: serde_json::Value = serde_json::from_slice(&tasks.stdout).unwrap();
    assert_eq!(tasks["obligations"][0]["status"], "delivered", "{tasks}");
    assert_eq!(
        tasks["obligations"][0]["detail"],
        "The subagent looked: nothing to change."
    );
}

#[test]
fn a_runs_subagents_are_obligations_of_its_goal_and_bounded() {
    let env = store(SUBAGENTS, "  max_subagents: 2\n");
    env.tick_and_settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["subagents"], 2, "{run}");
    // Two let through (no answer), the third refused with the reason.
    assert!(json(&env, "pre-1.json").is_null());
    assert!(json(&env, "pre-2.json").is_null());
    let refused = json(&env, "pre-3.json");
    assert_eq!(
        refused["hookSpecificOutput"]["permissionDecision"], "deny",
        "{refused}"
    );
    let why = refused["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(why.contains("dispatch.max_subagents is 2"), "{why}");
    // While it ran, the subagent was an obligation of the goal.
    let running = json(&env, "tasks-running.json");
    let task = &running["obligations"][0];
    assert_eq!(task["status"], "running", "{running}");
    assert_eq!(task["goal_label"], "deploy", "{running}");
    assert_eq!(task["session"], "ae3c1841af58479b6", "{running}");
    assert!(
        task["label"]
            .as_str()
            .unwrap()
            .starts_with("deploy/general-purpose-"),
        "{running}"
    );
    // Its end arrived with what it said last, delivered: Claude Code gave
    // it back to the run's session. Nothing is left to deliver, and the
    // goal's status is the judge's, not the subagent's.
    let after = (env.steward().args(["tasks", "--all", "--json"]))
        .output()
        .unwrap();
    let after: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    let task = &after["obligations"][0];
    assert_eq!(task["status"], "delivered", "{after}");
    assert!(task.to_string().contains("hi from the subagent"), "{after}");
    assert_eq!(env.goal_json("deploy")["status"], "active");
    env.steward()
        .args(["prompt"])
        .assert()
        .stdout(predicate::str::contains("deliver").not());
}

#[test]
fn a_run_waiting_for_a_person_is_not_timed_out_and_the_person_is_told_once() {
    let env = store(WAITS, "");
    env.steward_on_path()
        .args(["tick", "-q"])
        .assert()
        .success();
    // Mid-wait, past the timeout: still running, and marked.
    std::thread::sleep(std::time::Duration::from_millis(2800));
    let run = env.runs()[0].clone();
    assert_eq!(run["state"], "running", "{run}");
    assert!(
        run["person_wait"]["what"]
            .as_str()
            .unwrap()
            .contains("Claude needs your permission to use Bash"),
        "{run}"
    );
    env.steward_on_path().args(["tick", "-q"]).assert().code(0);
    env.settle();
    let run = env.runs()[0].clone();
    assert_eq!(run["outcome"], "ok", "{run}");
    assert!(run["person_wait"].is_null(), "{run}");
    assert!(run["waited_secs"].as_u64().unwrap() >= 2, "{run}");
    let told: Vec<serde_json::Value> = env
        .read("notifications.log")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|n: &serde_json::Value| n["event"] == "permission")
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["goal"]["label"], "deploy");
    assert!(
        told[0]["message"]
            .as_str()
            .unwrap()
            .contains("waits for a person: Permission needed: Claude needs your permission"),
        "{}",
        told[0]
    );
}
