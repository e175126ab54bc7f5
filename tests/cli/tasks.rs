use std::process::Stdio;

use predicates::prelude::*;

use crate::common::TestEnv;

fn id_of(output: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout);
    text.split(':').next().unwrap().trim().to_string()
}

fn spawn(env: &TestEnv, args: &[&str]) -> String {
    let output = env
        .steward()
        .args(["task", "spawned"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    id_of(&output)
}

fn obligations(env: &TestEnv, all: bool) -> Vec<serde_json::Value> {
    let mut cmd = env.steward();
    cmd.args(["tasks", "--json"]);
    if all {
        cmd.arg("--all");
    }
    let output = cmd.output().unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    document["obligations"].as_array().unwrap().clone()
}

fn prompt(env: &TestEnv) -> String {
    String::from_utf8(
        env.steward()
            .args(["prompt", "--message", "hello"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
}

#[test]
fn a_result_is_shown_until_it_is_delivered() {
    let env = TestEnv::initialised();
    let id = spawn(
        &env,
        &[
            "--label",
            "research",
            "--agent",
            "researcher",
            "--summary",
            "find sources",
        ],
    );
    assert!(id.starts_with("obl-") && id.len() == 12, "{id}");
    assert!(prompt(&env).contains(&format!(
        "- [RUNNING] research ({id}, agent researcher, spawned just now): find sources, 10m left"
    )));
    env.steward()
        .args(["task", "ended", "--label", "research", "--outcome", "ok"])
        .assert()
        .success();
    let block = prompt(&env);
    assert!(
        block.contains("1 result(s) ready: deliver them to the human BEFORE any new work."),
        "{block}"
    );
    assert!(block.contains(&format!(
        "steward --actor agent task deliver {id} (or put [DELIVER:{id}] in your message)"
    )));
    env.steward()
        .args(["task", "deliver", &id])
        .assert()
        .success();
    assert_eq!(prompt(&env), "");
    assert!(obligations(&env, false).is_empty());
    assert_eq!(obligations(&env, true)[0]["status"], "delivered");
}

#[test]
fn a_running_task_times_out_at_timeout_plus_grace() {
    let mut env = TestEnv::initialised();
    env.write_config("obligations:\n  grace: 60s\n");
    spawn(&env, &["--label", "slow", "--timeout", "10m"]);
    env.set_now("2026-11-21T04:10:59Z");
    env.steward().arg("tick").assert().success();
    assert_eq!(obligations(&env, false)[0]["status"], "running");
    env.set_now("2026-11-21T04:11:00Z");
    env.steward()
        .arg("tick")
        .assert()
        .success()
        .stdout(predicate::str::contains("slow: running -> timeout"));
    assert_eq!(obligations(&env, false)[0]["status"], "timeout");
    assert!(prompt(&env).contains("- [TIMEOUT] slow"));
}

#[test]
fn a_retry_replaces_the_failed_task() {
    let env = TestEnv::initialised();
    let id = spawn(&env, &["--label", "build"]);
    env.steward()
        .args([
            "task",
            "ended",
            "--label",
            "build",
            "--outcome",
            "error",
            "--detail",
            "OOM",
        ])
        .assert()
        .success();
    let again = spawn(&env, &["--label", "build"]);
    assert_eq!(again, id);
    let all = obligations(&env, true);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["retry_count"], 1);
    assert_eq!(all[0]["status"], "running");
}

#[test]
fn the_same_session_twice_is_one_obligation() {
    let env = TestEnv::initialised();
    let first = spawn(&env, &["--label", "a", "--session", "s-1"]);
    let second = spawn(&env, &["--label", "a", "--session", "s-1"]);
    assert_eq!(first, second);
    env.steward()
        .args(["task", "ended", "--session", "s-1", "--outcome", "killed"])
        .assert()
        .success();
    assert_eq!(obligations(&env, false)[0]["status"], "cancelled");
}

#[test]
fn a_late_end_after_delivery_changes_nothing() {
    let env = TestEnv::initialised();
    let id = spawn(&env, &["--label", "x"]);
    env.steward()
        .args(["task", "ended", "--label", "x", "--outcome", "ok"])
        .assert()
        .success();
    env.steward()
        .args(["task", "deliver", &id])
        .assert()
        .success();
    let before = env.snapshot();
    env.steward()
        .args(["task", "ended", "--label", "x", "--outcome", "error"])
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing changed"));
    env.assert_unchanged(&before);
}

#[test]
fn tasks_link_to_goals_by_label_prefix_unless_ambiguous() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.add_goal("deploy-api");
    env.add_goal("docs");
    let output = env
        .steward()
        .args(["task", "spawned", "--label", "docs/build"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("goal docs"));
    let output = env
        .steward()
        .args(["task", "spawned", "--label", "deploy-api-tests"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("goal"));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("matches the goals deploy and deploy-api: not linked")
    );
    let output = env
        .steward()
        .args([
            "task",
            "spawned",
            "--label",
            "other",
            "--goal",
            "deploy-api",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("goal deploy-api"));
    let linked = env.goal_json("docs")["tasks"].as_array().unwrap().clone();
    assert_eq!(linked.len(), 1);
    assert_eq!(linked[0]["label"], "docs/build");
    assert!(
        env.read("ACTIVE-TASKS.md")
            .contains("running tasks: docs/build")
    );
}

#[test]
fn linked_task_results_count_for_the_goal_but_do_not_judge_it() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "C",
            "--escalate-after",
            "2",
        ])
        .assert()
        .success();
    spawn(&env, &["--label", "g-one"]);
    spawn(&env, &["--label", "g-two"]);
    env.steward()
        .args(["task", "ended", "--label", "g-one", "--outcome", "error"])
        .assert()
        .success();
    assert_eq!(env.goal_json("g")["progress"]["consecutive_failures"], 1);
    spawn(&env, &["--label", "g-one"]);
    env.steward()
        .args(["task", "ended", "--label", "g-one", "--outcome", "ok"])
        .assert()
        .success();
    let goal = env.goal_json("g");
    assert_eq!(goal["progress"]["consecutive_failures"], 0);
    assert_eq!(goal["status"], "active", "one linked task still runs");
    env.steward()
        .args([
            "--actor",
            "agent",
            "task",
            "ended",
            "--label",
            "g-two",
            "--outcome",
            "ok",
        ])
        .assert()
        .success();
    // Every linked task succeeded: whether the goal is done is still the
    // judge's.
    assert_eq!(env.goal_json("g")["status"], "active");
    assert!(env.read("state/goals/g.md").contains("agent task: g-two ("));
}

#[test]
fn a_dead_process_fails_its_task() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let mut child = std::process::Command::new("sleep")
        .arg("0")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    spawn(&env, &["--label", "g-worker", "--pid", &pid.to_string()]);
    env.steward()
        .arg("tick")
        .assert()
        .success()
        .stdout(predicate::str::contains("g: running -> failed"));
    assert_eq!(obligations(&env, false)[0]["status"], "failed");
    assert_eq!(env.goal_json("g")["progress"]["consecutive_failures"], 1);
}

#[test]
fn resolve_handles_every_tag_in_a_message() {
    let env = TestEnv::initialised();
    let a = spawn(&env, &["--label", "a"]);
    let b = spawn(&env, &["--label", "b"]);
    env.steward()
        .args(["task", "ended", "--label", "a", "--outcome", "ok"])
        .assert()
        .success();
    let message = format!(
        "Here is the report. [DELIVER:{a}] The other one is not needed [DISMISS:{b}]. [DELIVER:obl-00000000]"
    );
    env.steward()
        .args(["task", "resolve", "--message", &message])
        .assert()
        .success()
        .stderr(predicate::str::contains("no obligation `obl-00000000`"));
    // Spawned in the same second: listed by id, so look each one up.
    let status = |id: &str| {
        obligations(&env, true)
            .iter()
            .find(|o| o["id"] == id)
            .map(|o| o["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(status(&a), "delivered");
    assert_eq!(status(&b), "dismissed");
}

#[test]
fn twenty_parallel_spawns_give_twenty_obligations() {
    let env = TestEnv::initialised();
    let children: Vec<_> = (0..20)
        .map(|n| {
            let mut cmd = env.process();
            cmd.args([
                "--lock-timeout",
                "60s",
                "task",
                "spawned",
                "--label",
                &format!("worker-{n}"),
            ]);
            cmd.stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(obligations(&env, false).len(), 20);
    let spawned = env
        .events()
        .iter()
        .filter(|e| e["action"] == "task_spawned")
        .count();
    assert_eq!(spawned, 20);
}

#[test]
fn bad_task_input_is_refused_and_changes_nothing() {
    let env = TestEnv::initialised();
    spawn(&env, &["--label", "x"]);
    let before = env.snapshot();
    env.steward()
        .args(["task", "ended", "--label", "x", "--outcome", "meh"])
        .assert()
        .code(2);
    env.steward()
        .args(["task", "spawned", "--label", "a b"])
        .assert()
        .code(2);
    env.steward()
        .args(["task", "ended", "--outcome", "ok"])
        .assert()
        .code(2);
    env.steward()
        .args(["task", "ended", "--label", "never", "--outcome", "ok"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no obligation was spawned with label `never`",
        ));
    env.steward()
        .args(["task", "deliver", "obl-12345678"])
        .assert()
        .code(1);
    let running = obligations(&env, false)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.steward()
        .args(["task", "deliver", &running])
        .assert()
        .code(4);
    env.assert_unchanged(&before);
}

#[test]
fn resolved_obligations_are_dropped_after_the_ttl() {
    let mut env = TestEnv::initialised();
    let id = spawn(&env, &["--label", "x"]);
    env.steward()
        .args(["task", "dismiss", &id])
        .assert()
        .success();
    env.set_now("2026-11-23T03:59:59Z");
    env.steward().arg("tick").assert().success();
    assert_eq!(obligations(&env, true).len(), 1);
    env.set_now("2026-11-23T04:00:00Z");
    env.steward().arg("tick").assert().success();
    assert!(obligations(&env, true).is_empty());
    assert!(env.events().iter().any(|e| e["action"] == "task_dropped"));
}

#[test]
fn an_empty_detail_or_summary_is_a_detail_of_nothing() {
    // The plain shell harness of steward-guide(7), "Wiring an agent harness",
    // passes `--detail "$(tail -n 1 …)"`, which is empty when the subagent
    // printed nothing.
    let mut env = TestEnv::initialised();
    env.add_goal("deploy");
    spawn(
        &env,
        &["--label", "deploy-tests", "--pid", "1", "--summary", ""],
    );
    env.steward()
        .args([
            "task",
            "ended",
            "--label",
            "deploy-tests",
            "--outcome",
            "ok",
            "--detail",
            "",
        ])
        .assert()
        .success();
    assert_eq!(obligations(&env, false)[0]["status"], "arrived");
    // A later tick does not take the recorded end for a dead process.
    env.set_now("2026-11-21T04:05:00Z");
    env.steward().arg("tick").assert().code(0);
    assert_eq!(obligations(&env, false)[0]["status"], "arrived");
}

#[test]
fn a_task_that_timed_out_has_nothing_to_deliver() {
    let env = TestEnv::initialised();
    let id = spawn(&env, &["--label", "slow"]);
    env.steward()
        .args(["task", "ended", "--label", "slow", "--outcome", "timeout"])
        .assert()
        .success();
    let before = env.snapshot();
    env.steward()
        .args(["task", "deliver", &id])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("task dismiss"));
    env.assert_unchanged(&before);
    env.steward()
        .args(["task", "dismiss", &id])
        .assert()
        .success();
}

#[test]
fn a_task_past_its_timeout_is_overdue_before_tick_marks_it() {
    let mut env = TestEnv::initialised();
    spawn(&env, &["--label", "slow", "--timeout", "10m"]);
    env.set_now("2026-11-21T04:05:00Z");
    assert!(prompt(&env).contains("- [RUNNING] slow"));
    assert!(prompt(&env).contains("5m left of its timeout"));
    // Inside the grace: no tick has marked it, but it is overdue.
    env.set_now("2026-11-21T04:10:30Z");
    let text = prompt(&env);
    assert!(text.contains("- [OVERDUE] slow"), "{text}");
    assert!(text.contains("30s past its timeout"), "{text}");
    assert!(!text.contains("[RUNNING]"), "{text}");
    assert_eq!(obligations(&env, false)[0]["status"], "running");
}

#[test]
fn obligations_are_one_file_each_and_the_old_single_file_moves_into_them() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let old = spawn(&env, &["--label", "g-old"]);
    // As an older steward kept them: all in state/obligations.json.
    let file = env.read(&format!("state/obligations/{old}.json"));
    let obligation: serde_json::Value = serde_json::from_str(&file).unwrap();
    std::fs::remove_dir_all(env.path("state/obligations")).unwrap();
    env.write(
        "state/obligations.json",
        &serde_json::json!({"schema_version": 1, "obligations": [obligation]}).to_string(),
    );
    assert_eq!(obligations(&env, false)[0]["id"], old.as_str());
    let new = spawn(&env, &["--label", "g-new"]);
    assert!(!env.path("state/obligations.json").exists());
    for id in [&old, &new] {
        assert!(
            env.path(&format!("state/obligations/{id}.json")).is_file(),
            "{id}"
        );
    }
    assert_eq!(obligations(&env, false).len(), 2);
}

#[test]
fn a_task_end_that_blocks_its_goal_says_so() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "C"])
        .args(["--escalate-after", "1"])
        .assert()
        .success();
    spawn(&env, &["--label", "g-build"]);
    env.steward()
        .args(["task", "ended", "--label", "g-build", "--outcome", "error"])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("g: active -> blocked ("))
        .stderr(predicates::str::contains(
            "a person runs `steward unblock g --reason ...`",
        ));
    assert_eq!(env.goal_json("g")["status"], "blocked");
}
