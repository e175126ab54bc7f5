//! steward-guide(7), "PLANS": plans of phases, tasks and subtasks —
//! imported from the planner's JSON, moved by `work` and `assess
//! --from-json`, rolled up, edited by hand, and made by a planning run.

use predicates::prelude::*;

use crate::common::TestEnv;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/plans/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn planned() -> TestEnv {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "health", "--title", "Ship the health endpoint"])
        .args(["--criterion", "GET /health answers 200 in production"])
        .assert()
        .success();
    env.steward()
        .args(["plan", "import", "health", &fixture("valid.json")])
        .assert()
        .success()
        .stdout("health: planned\n");
    env
}

/// The `## Plan` section of the goal file.
fn plan_section(env: &TestEnv) -> String {
    let text = env.read("state/goals/health.md");
    let start = text.find("## Plan").unwrap();
    let end = start + text[start..].find("## History").unwrap();
    text[start..end].to_string()
}

#[test]
fn an_imported_plan_is_written_as_lines_and_shown_as_a_tree() {
    let env = planned();
    assert_eq!(
        plan_section(&env),
        "## Plan

- [ ] P1 Ship the health endpoint
  - outcome: the endpoint is live
  - accept: /health answers in production
  - [ ] T1.1 Write the handler
    - outcome: the handler is merged
    - accept: GET /health answers 200 with the build id
    - [ ] S1.1.1 Add the route
      - accept: the route exists
    - [ ] S1.1.2 Return the build id · after S1.1.1
      - accept: the body holds the build id
  - [ ] T1.2 Deploy to production · after T1.1
    - accept: /health answers in production
- [ ] P2 Tell people · after P1
  - accept: the changelog says so

"
    );
    env.steward()
        .args(["plan", "show", "health"])
        .assert()
        .success()
        .stdout(
            "plan: 0/4 (0%) of its steps done
[ ] P1 Ship the health endpoint  0%
  [ ] T1.1 Write the handler  0%
    [ ] S1.1.1 Add the route  (ready)
    [ ] S1.1.2 Return the build id  (after S1.1.1)
  [ ] T1.2 Deploy to production  (after T1.1)
[ ] P2 Tell people  (after P1)
",
        );
    let output = env
        .steward()
        .args(["plan", "show", "health", "--json"])
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["plan"]["next"], serde_json::json!(["S1.1.1"]));
    assert_eq!(document["plan"]["nodes"][4]["after"][0], "T1.1");
    assert_eq!(env.goal_json("health")["plan"]["total"], 4);
}

#[test]
fn every_invalid_plan_is_refused_with_its_path_and_nothing_is_written() {
    let env = TestEnv::initialised();
    env.add_goal("health");
    let cases = [
        (
            "over-bounds.json",
            "$.phases: 6 phases: a plan has at most 5",
        ),
        (
            "duplicate-id.json",
            "$.phases[0].tasks[1].id: `T1` is used twice (first at $.phases[0].tasks[0].id)",
        ),
        (
            "missing-acceptance.json",
            "$.phases[0].tasks[0].acceptance: missing",
        ),
        (
            "unknown-dep.json",
            "$.phases[0].tasks[0].deps[0]: `T9` is not a node of this plan",
        ),
        (
            "cycle.json",
            "$.phases[0].deps[0]: dependency cycle: P1 → P3 → P2 → P1",
        ),
        ("not-json.json", "$: not JSON"),
        ("json-in-prose.json", "$: not JSON"),
    ];
    let before = env.snapshot();
    for (file, message) in cases {
        env.steward()
            .args(["plan", "import", "health", &fixture(file)])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "not a valid plan, nothing was written",
            ))
            .stderr(predicate::str::contains(message));
        env.assert_unchanged(&before);
    }
    // The repair prompt carries the errors and the previous answer.
    env.steward()
        .args(["plan", "repair-prompt", "health", &fixture("cycle.json")])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Validation errors:\n- $.phases[0].deps[0]: dependency cycle",
        ))
        .stdout(predicate::str::contains("Previous output:\n{"));
    env.steward()
        .args(["plan", "repair-prompt", "health", &fixture("valid.json")])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains(
            "is a valid plan: nothing to repair",
        ));
}

#[test]
fn work_rolls_up_and_a_finished_plan_leaves_the_verdict_to_the_judge() {
    let env = planned();
    let work = |node: &str, action: &[&str]| {
        env.steward()
            .args(["--actor", "agent", "work", "health", node])
            .args(action)
            .assert()
            .success();
    };
    work("S1.1.1", &["start"]);
    assert!(plan_section(&env).contains("- [ ] P1 Ship the health endpoint · in progress\n"));
    assert!(plan_section(&env).contains("  - [ ] T1.1 Write the handler · in progress\n"));
    work("S1.1.1", &["done"]);
    work("S1.1.2", &["done"]);
    assert!(plan_section(&env).contains("  - [x] T1.1 Write the handler\n"));
    work("T1.2", &["block", "--reason", "needs the prod token"]);
    assert!(plan_section(&env).contains(
        "  - [ ] T1.2 Deploy to production · blocked: needs the prod token · after T1.1\n"
    ));
    env.steward()
        .args(["prompt", "--heartbeat"])
        .env("STEWARD_NOW", "2026-11-22T04:00:00Z")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Blocked: T1.2 Deploy to production — needs the prod token",
        ))
        .stdout(predicate::str::contains("Next in the plan: nothing ready"));
    work("T1.2", &["done"]);
    assert_eq!(
        env.goal_json("health")["status"],
        "active",
        "P2 is still open"
    );
    work("P2", &["done"]);
    let goal = env.goal_json("health");
    assert_eq!(goal["status"], "verifying");
    assert!(env.read("state/goals/health.md").contains(
        "agent work: P2 todo → done; every phase is done: verifying (the judge decides: steward complete health)"
    ));
    // Cancelled is final for commands; the file is the person's to edit.
    env.steward()
        .args(["work", "health", "P2", "cancel"])
        .assert()
        .success();
    env.steward()
        .args(["work", "health", "P2", "start"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("node P2 is cancelled"));
    env.steward()
        .args(["work", "health", "T7", "done"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no node T7"));
}

#[test]
fn a_status_change_rewrites_one_line_and_keeps_hand_edits_byte_for_byte() {
    let env = planned();
    // A person edits the plan: a note, a comment, odd spacing, a new task.
    let text = env.read("state/goals/health.md").replace(
        "- [ ] P2 Tell people · after P1\n",
        "<!-- P2 waits for marketing -->\nSome notes about the rollout.\n\n- [ ] P2   Tell  people   · after P1\n  - [ ] T2.1 Write the changelog\n    - accept: it is merged\n",
    );
    env.write("state/goals/health.md", &text);
    // S1.1.2 under way: its task and phase are in progress already, so
    // finishing S1.1.1 changes S1.1.1's line alone.
    env.steward()
        .args(["work", "health", "S1.1.2", "start"])
        .assert()
        .success();
    let before = plan_section(&env);
    env.steward()
        .args(["work", "health", "S1.1.1", "done"])
        .assert()
        .success();
    let after = plan_section(&env);
    let changed: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        changed,
        [(
            "    - [ ] S1.1.1 Add the route",
            "    - [x] S1.1.1 Add the route"
        )]
    );
    assert_eq!(before.len(), after.len());
    // A mistake in a hand edit is located and nothing is written.
    let broken = env
        .read("state/goals/health.md")
        .replace("T2.1 Write", "T2.1 Write · soon ·");
    env.write("state/goals/health.md", &broken);
    let line = broken.lines().position(|l| l.contains("T2.1")).unwrap() + 1;
    env.steward()
        .args(["work", "health", "S1.1.2", "done"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "state/goals/health.md:{line}:"
        )))
        .stderr(predicate::str::contains("## Plan: unknown note `soon`"));
    assert_eq!(env.read("state/goals/health.md"), broken);
}

#[test]
fn a_structured_update_moves_its_node_and_is_recorded() {
    let env = planned();
    // The seed's example payload, naming this goal and a node of its plan.
    let reply = r#"Route added; the tests pass.

```json
{
  "overseerUpdate": {
    "goalId": "health",
    "workNodeId": "S1.1.1",
    "status": "done",
    "summary": "What changed since last dispatch",
    "next": "Next concrete action",
    "blockers": [],
    "evidence": {
      "filesTouched": ["src/health.rs"],
      "testsRun": ["cargo test health"],
      "commits": ["4f2c1aa"]
    }
  }
}
```
"#;
    env.steward()
        .args(["--actor", "agent", "assess", "--from-json", "-"])
        .write_stdin(reply)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "health: assessed (1/50 assessments",
        ));
    assert!(plan_section(&env).contains("    - [x] S1.1.1 Add the route\n"));
    let text = env.read("state/goals/health.md");
    assert!(
        text.contains("agent assessed: What changed since last dispatch | next: Next concrete action; S1.1.1 todo → done; T1.1 todo → in_progress; P1 todo → in_progress; evidence: files src/health.rs; tests cargo test health; commits 4f2c1aa"),
        "{text}"
    );
    // Anything it cannot read is a clear error, and nothing is written.
    let before = env.snapshot();
    for (payload, message) in [
        ("All done!", "no structured update"),
        (
            "```json\n{\"overseerUpdate\": {\"summary\": \"s\", \"status\": \"done\"}}\n```",
            "needs workNodeId",
        ),
        (
            "```json\n{\"overseerUpdate\": {\"summary\": \"s\", \"mood\": \"good\"}}\n```",
            "unknown field `mood`",
        ),
        (
            "```json\n{\"overseerUpdate\": {\"goalId\": \"health\", \"workNodeId\": \"X9\", \"status\": \"done\", \"summary\": \"s\"}}\n```",
            "has no node X9",
        ),
    ] {
        env.steward()
            .args(["--actor", "agent", "assess", "health", "--from-json", "-"])
            .write_stdin(payload)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    env.assert_unchanged(&before);
}

/// A planning agent: prose first, the plan after the repair prompt; then,
/// given a plan node, it does the node.
const PLANNER: &str = r#"#!/bin/sh
instruction=$(cat)
printf '%s\n' "$instruction" > "instruction-$STEWARD_DISPATCH_ID.txt"
case "$instruction" in
  *"Your previous output was invalid"*) cat plan.json ;;
  *OverseerPlanner*) echo "Sure! Here is a plan: first build it, then ship it." ;;
  *"Plan node "*)
    node=$(printf '%s\n' "$instruction" | sed -n 's/^Plan node \([^ ]*\) .*/\1/p' | head -n 1)
    steward work "$STEWARD_GOAL" "$node" done
    echo "did $node"
    ;;
esac
"#;

fn planning_store(repairs: u32) -> TestEnv {
    let env = TestEnv::initialised();
    env.write_config(
        &format!(
            "dispatch:\n  enabled: true\n  agent: planner\n  plan: auto\n  plan_repairs: {repairs}\n  timeout: 10s\n  pass_at_run_end: false\nagents:\n  planner:\n    command: [./planner.sh]\n    output: text\n"
        ),
    );
    env.executable("planner.sh", PLANNER);
    env.write(
        "plan.json",
        &std::fs::read_to_string(fixture("valid.json")).unwrap(),
    );
    env.steward()
        .args(["add", "health", "--title", "Ship the health endpoint"])
        .args(["--criterion", "GET /health answers 200 in production"])
        .assert()
        .success();
    env
}

fn tick(env: &mut TestEnv, now: &str) {
    env.set_now(now);
    let output = env.steward_on_path().args(["tick", "-q"]).output().unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    env.settle();
}

#[test]
fn a_planning_run_repairs_an_invalid_answer_then_runs_work_the_ready_nodes() {
    let mut env = planning_store(2);
    tick(&mut env, "2026-11-21T04:00:00Z");
    let runs = env.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["kind"], "plan");
    assert!(
        runs[0]["result"]
            .as_str()
            .unwrap()
            .starts_with("not a valid plan (1 problem(s)): $: not JSON"),
        "{}",
        runs[0]
    );
    assert!(env.goal_json("health")["plan"].is_null());

    tick(&mut env, "2026-11-21T04:05:00Z");
    let runs = env.runs();
    assert_eq!(runs[1]["kind"], "plan");
    let repair = env.read(&format!(
        "instruction-{}.txt",
        runs[1]["id"].as_str().unwrap()
    ));
    assert!(
        repair.contains("Validation errors:\n- $: not JSON"),
        "{repair}"
    );
    assert!(
        repair.contains("Previous output:\nSure! Here is a plan"),
        "{repair}"
    );
    assert!(
        runs[1]["result"]
            .as_str()
            .unwrap()
            .starts_with("plan: plan of 2 phases, 2 tasks, 2 subtasks"),
        "{}",
        runs[1]
    );
    assert_eq!(env.goal_json("health")["plan"]["total"], 4);
    assert!(
        env.read("state/goals/health.md")
            .contains("agent planned: plan of 2 phases")
    );

    // Then one run per ready node, each named in its instruction.
    tick(&mut env, "2026-11-21T04:10:00Z");
    let runs = env.runs();
    assert_eq!(runs[2]["kind"], "first");
    assert_eq!(runs[2]["node"], "S1.1.1");
    let instruction = env.read(&format!(
        "instruction-{}.txt",
        runs[2]["id"].as_str().unwrap()
    ));
    assert!(
        instruction
            .contains("steward asks you to work on goal health, plan node S1.1.1 (Add the route)"),
        "{instruction}"
    );
    assert!(instruction.contains("- the route exists"), "{instruction}");
    assert!(plan_section(&env).contains("    - [x] S1.1.1 Add the route\n"));
    // The next node's run waits the goal's cooldown (10m) since the last.
    tick(&mut env, "2026-11-21T04:15:00Z");
    assert_eq!(env.runs().len(), 3);
    tick(&mut env, "2026-11-21T04:20:00Z");
    assert_eq!(env.runs()[3]["node"], "S1.1.2");
}

#[test]
fn planning_that_never_gives_a_plan_asks_a_person() {
    let mut env = planning_store(1);
    env.write("plan.json", "still not a plan");
    for minute in ["00", "05", "10"] {
        tick(&mut env, &format!("2026-11-21T04:{minute}:00Z"));
    }
    assert_eq!(env.runs().len(), 2, "one planning run and one repair");
    let goal = env.goal_json("health");
    assert_eq!(goal["status"], "blocked");
    assert_eq!(goal["escalation"]["kind"], "no_progress");
    assert!(
        goal["escalation"]["reason"]
            .as_str()
            .unwrap()
            .contains("2 planning runs gave no valid plan"),
        "{goal}"
    );
}

#[test]
fn a_goal_says_whether_it_is_planned_whatever_dispatch_plan_says() {
    let mut env = planning_store(0);
    // dispatch.plan is auto; this one is worked without a plan.
    env.steward()
        .args([
            "add",
            "quick",
            "--title",
            "A quick fix",
            "--criterion",
            "fixed",
        ])
        .args(["--planning", "off"])
        .assert()
        .success();
    env.steward()
        .args(["show", "quick"])
        .assert()
        .stdout(predicate::str::contains("Planning: off"));
    env.write_config(
        &env.read("steward.yaml")
            .replace("max_parallel", "x")
            .replace("plan: auto", "plan: auto\n  max_parallel: 2"),
    );
    tick(&mut env, "2026-11-21T04:00:00Z");
    let kinds = |env: &TestEnv| -> Vec<(String, String)> {
        env.runs()
            .iter()
            .map(|r| {
                (
                    r["goal_label"].as_str().unwrap().to_string(),
                    r["kind"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let runs = kinds(&env);
    assert!(
        runs.contains(&("health".to_string(), "plan".to_string())),
        "{runs:?}"
    );
    assert!(
        runs.contains(&("quick".to_string(), "first".to_string())),
        "{runs:?}"
    );
    // And the other way round: dispatch.plan off, a goal that wants one.
    env.steward()
        .args(["update", "quick", "--planning", "auto"])
        .assert()
        .success();
    env.steward()
        .args(["--actor", "agent", "update", "quick", "--planning", "off"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "steward update quick --planning off",
        ));
    env.steward()
        .args(["show", "quick", "--json"])
        .assert()
        .stdout(predicate::str::contains("\"planning\":\"auto\""));
}

/// Plans already checked are taken from `state/cache/plans`, keyed by the
/// SHA-256 of their text: a hand edit is checked again, and a memo changed
/// by hand is not read.
#[test]
fn a_checked_plan_is_checked_again_only_when_its_text_changes() {
    let env = planned();
    // `list` reads every open goal, through the memo.
    let plan_json = |env: &TestEnv| {
        let output = env.steward().args(["list", "--json"]).output().unwrap();
        let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        listed["goals"][0]["plan"].clone()
    };
    assert_eq!(plan_json(&env)["total"], 4);
    let memo = env.read("state/cache/plans");
    assert!(memo.contains(" 0 4 "), "{memo}");

    // Another tally under the same text's hash: its key's code no longer
    // fits, and the plan is checked again.
    env.write("state/cache/plans", &memo.replace(" 0 4 ", " 4 4 "));
    assert_eq!(plan_json(&env)["done"], 0);

    // A hand edit that breaks the plan is found, not hidden by the memo.
    let path = "state/goals/health.md";
    let text = env.read(path);
    env.write(path, &text.replace("S1.1.2 Return", "S1.1.1 Return"));
    env.steward()
        .arg("list")
        .assert()
        .stderr(predicate::str::contains(
            "## Plan: node id S1.1.1 is used twice",
        ));
}
