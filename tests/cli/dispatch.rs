//! steward-guide(7), "AGENT RUNS: TICK MAKES WORK HAPPEN", and
//! steward-design(7), "A person is told once": tick starts agent runs,
//! follows them up, escalates, and tells a person once. The agent is a
//! shell script that really does the work (or fails to, or hangs) and runs
//! the commands it is given.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::TestEnv;

/// The fake agent: reads the instruction on stdin, logs its start and end,
/// and acts by the goal's label.
const AGENT: &str = r#"#!/bin/sh
instruction=$(cat)
echo "start $STEWARD_GOAL $STEWARD_DISPATCH_ID" >> spawns.log
case "$STEWARD_GOAL" in
  ok-*)
    echo "$instruction" | grep -q "goal-stewardship goal=\"$STEWARD_GOAL\"" || exit 9
    mkdir -p work && echo done > "work/$STEWARD_GOAL"
    steward complete "$STEWARD_GOAL" --reason "work/$STEWARD_GOAL written" >> agent.log 2>&1
    echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-'"$STEWARD_DISPATCH_ID"'","total_cost_usd":0.5}'
    ;;
  lazy-*)
    echo '{"type":"result","subtype":"success","is_error":false,"result":"I looked around","session_id":"lazy-session","total_cost_usd":0}'
    ;;
  hang-*)
    trap 'echo "end $STEWARD_GOAL $STEWARD_DISPATCH_ID" >> spawns.log; exit 130' INT TERM
    setsid sleep 600 < /dev/null > /dev/null 2>&1 &
    echo $! > orphan.pid
    sleep 600
    ;;
  costly-*)
    echo '{"type":"result","subtype":"success","is_error":false,"result":"spent a lot","session_id":"c-'"$STEWARD_DISPATCH_ID"'","total_cost_usd":5}'
    ;;
esac
echo "end $STEWARD_GOAL $STEWARD_DISPATCH_ID" >> spawns.log
"#;

/// Writes every notification it gets on one line.
const NOTIFIER: &str = "#!/bin/sh\ntr -d '\\n' >> notifications.log\necho >> notifications.log\n";

const CONFIG: &str = "global_limits:
  max_active_goals: 20
  max_dispatches_per_hour: 8
dispatch:
  enabled: true
  agent: fake
  fallback_agent: other
  max_parallel: 2
  timeout: 2s
  max_retries: 2
  min_resend_interval: 1m
  pass_at_run_end: false
  backoff:
    base: 1m
    max: 4m
notify:
  command: [./notify.sh]
verification:
  allow_commands: true
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
  other:
    command: [./agent.sh]
    output: claude-json
";

fn store() -> TestEnv {
    let env = TestEnv::initialised();
    env.write_config(CONFIG);
    env.executable("agent.sh", AGENT);
    env.executable("notify.sh", NOTIFIER);
    env
}

fn add(env: &TestEnv, label: &str, extra: &[&str]) {
    env.steward_on_path()
        .args([
            "add",
            label,
            "--title",
            label,
            "--criterion",
            "the work is there",
        ])
        .args(["--verify", &format!("file_exists:work/{label}@1")])
        .args(extra)
        .assert()
        .success();
}

fn notifications(env: &TestEnv) -> Vec<serde_json::Value> {
    std::fs::read_to_string(env.path("notifications.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn minute(m: u32) -> String {
    format!("2026-11-21T{:02}:{:02}:00Z", 4 + m / 60, m % 60)
}

#[test]
fn a_night_of_runs_ends_every_goal_where_it_belongs() {
    let mut env = store();
    for n in 1..=7 {
        add(&env, &format!("ok-{n}"), &[]);
    }
    add(&env, "lazy-1", &[]);
    // Its check fails with new words every run (a time): no progress all
    // the same.
    add(
        &env,
        "lazy-clock",
        &["--verify", "command_exit_zero:sh -c 'date +%s%N; exit 1'@1"],
    );
    add(&env, "hang-1", &["--escalate-after", "1"]);
    add(&env, "costly-1", &["--max-cost-usd", "3"]);
    let mut mailed = String::new();
    for step in 0..30 {
        env.set_now(&minute(step * 5));
        let output = env.steward_on_path().args(["tick", "-q"]).output().unwrap();
        assert!(
            matches!(output.status.code(), Some(0 | 3)),
            "tick at {}: {}",
            minute(step * 5),
            String::from_utf8_lossy(&output.stderr)
        );
        mailed.push_str(&String::from_utf8_lossy(&output.stdout));
        env.settle();
    }
    // Every notification of the night names its goal, and has an id (but
    // the one that says, where bubblewrap is missing, that the fake
    // Claude's runs start without Claude Code's sandbox).
    let unsandboxed = |told: &serde_json::Value| {
        told["message"]
            .as_str()
            .is_some_and(|m| m.contains("without Claude Code's sandbox"))
    };
    for told in notifications(&env).iter().filter(|told| !unsandboxed(told)) {
        assert!(told["goal"]["label"].is_string(), "{told}");
        assert!(told["id"].is_string(), "{told}");
    }
    // What cron mails: each goal that needs a person once, the one that
    // failed as its run ended included.
    assert!(mailed.contains("costly-1: failed (at "), "{mailed}");
    assert_eq!(mailed.matches("costly-1:").count(), 1, "{mailed}");
    assert_eq!(mailed.matches("lazy-1:").count(), 1, "{mailed}");
    for n in 1..=7 {
        let goal = env.goal_json(&format!("ok-{n}"));
        assert_eq!(goal["status"], "completed", "ok-{n}: {goal}");
        assert_eq!(goal["receipt"]["criteria"][0]["basis"], "check");
        // Completed during its run, it keeps the run's end and cost.
        assert_eq!(goal["progress"]["cost_usd"], 0.5, "ok-{n}: {goal}");
    }
    let closed = std::fs::read_dir(env.path("state/goals/closed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("ok-1-")
        })
        .unwrap();
    let text = std::fs::read_to_string(closed).unwrap();
    assert!(text.contains("ended ok, cost $0.50"), "{text}");
    assert!(
        env.runs()
            .iter()
            .filter(|r| r["goal_label"].as_str().unwrap().starts_with("ok-"))
            .all(|r| r["reported"] == true),
        "each ok run reported under its dispatch id"
    );
    let lazy = env.goal_json("lazy-1");
    assert_eq!(lazy["status"], "blocked", "{lazy}");
    assert_eq!(lazy["escalation"]["kind"], "no_progress");
    let lazy_runs: Vec<String> = env
        .runs()
        .iter()
        .filter(|r| r["goal_label"] == "lazy-1")
        .map(|r| r["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lazy_runs, ["first", "nudge", "nudge", "reassign"]);
    let clock = env.goal_json("lazy-clock");
    assert_eq!(clock["status"], "blocked", "{clock}");
    assert_eq!(clock["escalation"]["kind"], "no_progress");
    let clock_runs = env
        .runs()
        .iter()
        .filter(|r| r["goal_label"] == "lazy-clock")
        .count();
    assert_eq!(clock_runs, 4, "the ladder, not the dispatch budget");
    let told: Vec<serde_json::Value> = notifications(&env)
        .into_iter()
        .filter(|n| n["goal"]["label"] == "lazy-1")
        .collect();
    assert_eq!(told.len(), 1, "exactly one notification: {told:?}");
    assert_eq!(told[0]["event"], "no_progress");
    assert!(
        told[0]["commands"][1]
            .as_str()
            .unwrap()
            .starts_with("steward unblock lazy-1")
    );

    let hang = env
        .runs()
        .into_iter()
        .find(|r| r["goal_label"] == "hang-1")
        .unwrap();
    assert_eq!(hang["outcome"], "timeout");
    let orphan: i32 = env.read("orphan.pid").trim().parse().unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{orphan}")).exists()
            || std::fs::read_to_string(format!("/proc/{orphan}/stat"))
                .unwrap_or_default()
                .contains(") Z "),
        "the agent's child in another session was killed"
    );
    // Hung runs are the ladder's: sent again afresh (a killed session is
    // never resumed), then given to the other agent, then a person; the
    // goal's own failure count (escalate_after_failures: 1) is for what
    // agents report.
    let hang_runs: Vec<(String, String, bool)> = env
        .runs()
        .iter()
        .filter(|r| r["goal_label"] == "hang-1")
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["agent"].as_str().unwrap().to_string(),
                r["session"].is_string() && r["kind"] != "first",
            )
        })
        .collect();
    let kinds: Vec<&str> = hang_runs.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(kinds, ["first", "resend", "resend", "reassign"]);
    assert_eq!(hang_runs[3].1, "other");
    assert!(
        hang_runs.iter().all(|(_, _, resumed)| !resumed),
        "{hang_runs:?}"
    );
    let hung = env.goal_json("hang-1");
    assert_eq!(hung["status"], "blocked");
    assert_eq!(hung["escalation"]["kind"], "no_progress", "{hung}");

    let costly = env.goal_json("costly-1");
    assert_eq!(costly["status"], "failed", "{costly}");
    assert!(
        costly["closed_reason"]
            .as_str()
            .unwrap()
            .contains("exceeds max_cost_usd")
    );

    // The limits held: never more than max_parallel agents at once, never
    // more dispatches in an hour than the window, every spawn recorded.
    let log = env.read("spawns.log");
    let (mut running, mut most) = (0i32, 0i32);
    for line in log.lines() {
        running += if line.starts_with("start") { 1 } else { -1 };
        most = most.max(running);
    }
    assert!(most <= 2, "max_parallel exceeded: {most}\n{log}");
    let spawns = log.lines().filter(|l| l.starts_with("start")).count();
    assert_eq!(spawns, env.runs().len());
    let mut per_hour: BTreeMap<String, usize> = BTreeMap::new();
    let dispatched: Vec<String> = env
        .events()
        .iter()
        .filter(|e| e["action"] == "dispatched")
        .map(|e| e["ts"].as_str().unwrap().to_string())
        .collect();
    for ts in &dispatched {
        let start = chrono::DateTime::parse_from_rfc3339(ts).unwrap();
        let window = dispatched
            .iter()
            .filter(|other| {
                let t = chrono::DateTime::parse_from_rfc3339(other).unwrap();
                t <= start && start - t < chrono::Duration::hours(1)
            })
            .count();
        per_hour.insert(ts.clone(), window);
    }
    assert!(per_hour.values().all(|n| *n <= 8), "{per_hour:?}");
    assert_eq!(dispatched.len(), spawns);
}

#[test]
fn a_tick_that_dies_after_recording_its_runs_loses_nothing() {
    let env = store();
    add(&env, "ok-1", &[]);
    env.steward_on_path()
        .env("STEWARD_FAULT", "crash-after-persist")
        .arg("tick")
        .assert()
        .code(1);
    let recorded = env.runs();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["state"], "pending");
    assert_eq!(env.goal_json("ok-1")["progress"]["dispatches"], 1);
    // The next tick starts the recorded run under its id, counting nothing
    // again.
    env.steward_on_path().arg("tick").assert().success();
    env.settle();
    let after = env.runs();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["id"], recorded[0]["id"]);
    assert_eq!(after[0]["outcome"], "ok");
    let goal = env.goal_json("ok-1");
    assert_eq!(goal["status"], "completed");
    assert_eq!(goal["progress"]["dispatches"], 1);
}

#[test]
fn dispatch_starts_one_run_now_and_runs_kill_stops_it() {
    let env = store();
    add(&env, "hang-1", &[]);
    env.write_config(&CONFIG.replace("timeout: 2s", "timeout: 1h"));
    env.steward_on_path()
        .env("CLAUDECODE", "1")
        .args(["dispatch", "hang-1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "only a person may start an agent run",
        ));
    env.steward_on_path()
        .args(["dispatch", "hang-1", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("would start run"));
    assert!(env.runs().is_empty());
    env.steward_on_path()
        .args(["dispatch", "hang-1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("started run run-"));
    let started = Instant::now();
    while !env.path("orphan.pid").exists() || env.runs()[0]["state"] != "running" {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    }
    env.steward_on_path()
        .args(["dispatch", "hang-1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("under way"));
    let id = env.runs()[0]["id"].as_str().unwrap().to_string();
    env.steward_on_path()
        .args(["tasks"])
        .assert()
        .stdout(predicate::str::contains(&id));
    env.steward_on_path()
        .args(["runs", "kill", &id[..8]])
        .assert()
        .success();
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "killed");
    let orphan: i32 = env.read("orphan.pid").trim().parse().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !std::path::Path::new(&format!("/proc/{orphan}/cmdline")).exists()
            || std::fs::read_to_string(format!("/proc/{orphan}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    );
    assert!(env.read("state/goals/hang-1.md").contains("ended killed"));
}

/// Starts a run of hanging goal `label` and waits until its agent runs.
fn hanging_run(env: &TestEnv, label: &str) -> String {
    env.steward_on_path()
        .args(["dispatch", label])
        .assert()
        .success();
    let started = Instant::now();
    loop {
        let run = env.runs().into_iter().find(|r| r["goal_label"] == label);
        if let Some(run) = run.filter(|r| r["state"] == "running") {
            return run["id"].as_str().unwrap().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never ran");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run_of(env: &TestEnv, id: &str) -> serde_json::Value {
    env.runs().into_iter().find(|r| r["id"] == id).unwrap()
}

/// Closing, pausing or turning steward off stops a goal's runs then and
/// there (`cancelled`), not at their timeout; stopping a run is a
/// person's command.
#[test]
fn stopping_a_goal_stops_its_runs() {
    let env = store();
    env.write_config(&CONFIG.replace("timeout: 2s", "timeout: 1h"));
    for label in ["hang-1", "hang-2", "hang-3"] {
        add(&env, label, &[]);
    }
    let id = hanging_run(&env, "hang-1");
    env.steward_on_path()
        .env("CLAUDECODE", "1")
        .args(["runs", "kill", &id])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("steward runs kill"));
    env.steward_on_path()
        .args(["abandon", "hang-1", "--reason", "not needed"])
        .assert()
        .success();
    env.settle();
    let run = run_of(&env, &id);
    assert_eq!(run["outcome"], "cancelled", "{run}");
    assert_eq!(run["result"], "cancelled: its goal was abandoned", "{run}");

    let id = hanging_run(&env, "hang-2");
    env.steward_on_path()
        .args(["pause", "hang-2"])
        .assert()
        .success();
    env.settle();
    assert_eq!(
        run_of(&env, &id)["result"],
        "cancelled: its goal was paused"
    );
    assert_eq!(env.goal_json("hang-2")["status"], "paused");

    // Turned off in the file: the run's supervisor sees it by itself.
    let id = hanging_run(&env, "hang-3");
    let config = env.read("steward.yaml");
    env.write("steward.yaml", &format!("enabled: false\n{config}"));
    env.settle();
    let run = run_of(&env, &id);
    assert_eq!(run["outcome"], "cancelled", "{run}");
    assert_eq!(
        run["result"],
        "cancelled: steward was turned off (enabled: false)"
    );
}

#[test]
fn tick_dry_run_says_what_it_would_start_and_starts_nothing() {
    let env = store();
    add(&env, "ok-1", &[]);
    env.steward_on_path()
        .args(["tick", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "would: ok-1: dispatched (first run run-",
        ));
    assert!(env.runs().is_empty());
    assert_eq!(env.goal_json("ok-1")["progress"]["dispatches"], 0);
}

#[test]
fn the_kill_switch_and_the_spend_cap_stop_new_runs() {
    let env = store();
    add(&env, "costly-1", &[]);
    add(&env, "costly-2", &[]);
    env.write_config(
        &CONFIG
            .replace("max_parallel: 2", "max_parallel: 1")
            .replace("timeout: 2s", "timeout: 2s\n  max_cost_usd_per_day: 4"),
    );
    env.steward_on_path().arg("tick").assert().success();
    env.settle();
    assert_eq!(env.runs().len(), 1);
    // $5 spent of $4 a day: no new run, and the person is told once.
    for _ in 0..2 {
        env.steward_on_path().arg("tick").assert().success();
        env.settle();
    }
    assert_eq!(env.runs().len(), 1);
    let caps = notifications(&env)
        .into_iter()
        .filter(|n| n["event"] == "spend_cap")
        .count();
    assert_eq!(caps, 1);
    env.steward_on_path()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "Spend: $5.00 on runs in the last 24h of $4.00 a day",
        ));
    env.write_config(&format!("enabled: false\n{CONFIG}"));
    env.steward_on_path()
        .args(["dispatch", "costly-2"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("disabled"));
}

/// Money is counted from what steward signed: a run record removed or
/// edited by hand does not give the day's cap back. The run the event log
/// says steward started counts at the cap until a day has passed, and a
/// person is told.
#[test]
fn a_run_record_removed_or_edited_gives_no_money_back() {
    for edit in [false, true] {
        let env = store();
        add(&env, "costly-1", &[]);
        add(&env, "costly-2", &[]);
        env.write_config(
            &CONFIG
                .replace("max_parallel: 2", "max_parallel: 1")
                .replace("timeout: 2s", "timeout: 2s\n  max_cost_usd_per_day: 10"),
        );
        env.steward_on_path().arg("tick").assert().success();
        env.settle();
        let runs = env.runs();
        assert_eq!(runs.len(), 1);
        let id = runs[0]["id"].as_str().unwrap().to_string();
        let path = env.path(&format!("state/runs/{id}.json"));
        if edit {
            let text = std::fs::read_to_string(&path)
                .unwrap()
                .replace("\"cost_usd\": 5.0", "\"cost_usd\": 0.0");
            std::fs::write(&path, text).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
        let ticked = env.steward_on_path().args(["tick", "-q"]).output().unwrap();
        env.settle();
        let said = String::from_utf8_lossy(&ticked.stderr);
        assert!(
            said.contains(&format!(
                "the run record of {id} is gone or does not verify"
            )),
            "{said}"
        );
        assert_eq!(env.runs().len(), usize::from(edit), "no new run");
        env.steward_on_path()
            .arg("status")
            .assert()
            .stdout(predicate::str::contains(
                "Spend: $10.00 on runs in the last 24h of $10.00 a day",
            ));
        env.steward_on_path()
            .arg("doctor")
            .assert()
            .code(1)
            .stdout(predicate::str::contains(format!(
                "the run record of {id} is gone or does not verify"
            )));
    }
}

#[test]
fn waiting_is_free_until_the_time_passes() {
    let mut env = store();
    add(&env, "lazy-1", &[]);
    env.steward_on_path()
        .args([
            "--actor",
            "agent",
            "assess",
            "lazy-1",
            "--summary",
            "CI is running",
        ])
        .args(["--wait-until", "2026-11-21T06:00:00Z"])
        .assert()
        .success();
    for m in [30, 60, 90] {
        env.set_now(&minute(m));
        env.tick_and_settle();
    }
    assert!(env.runs().is_empty(), "no runs while parked");
    let goal = env.goal_json("lazy-1");
    assert_eq!(goal["status"], "active", "no staleness while parked");
    assert_eq!(goal["progress"]["assessments"], 1);
    env.steward_on_path()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "lazy-1: waits for CI is running (until 2026-11-21T06:00:00Z)",
        ));
    env.set_now(&minute(125));
    env.tick_and_settle();
    assert!(
        env.read("state/goals/lazy-1.md")
            .contains("watchdog waited: done waiting for CI is running")
    );
    assert_eq!(env.runs().len(), 1, "the goal is worked on again");
}

#[test]
fn a_dispatch_reported_twice_under_one_id_counts_once() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for _ in 0..3 {
        env.steward()
            .env("STEWARD_DISPATCH_ID", "sub-1")
            .args([
                "--actor",
                "agent",
                "assess",
                "g",
                "--summary",
                "started a subagent",
                "--dispatched",
            ])
            .assert()
            .success();
    }
    let goal = env.goal_json("g");
    assert_eq!(goal["progress"]["assessments"], 3);
    assert_eq!(goal["progress"]["dispatches"], 1);
}

/// A process of the test's own that no run started.
fn bystander() -> std::process::Child {
    std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap()
}

fn alive(child: &mut std::process::Child) -> bool {
    child.try_wait().unwrap().is_none()
}

#[test]
fn a_run_record_that_names_another_process_signals_nothing() {
    let env = store();
    add(&env, "hang-1", &[]);
    let mut victim = bystander();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    // Written by hand (by an agent, or pulled from another machine):
    // running, its supervisor and agent the bystander.
    let record = serde_json::json!({
        "id": "run-forged000001",
        "goal_id": env.goal_json("hang-1")["id"],
        "goal_label": "hang-1",
        "agent": "fake",
        "kind": "first",
        "attempt": 0,
        "instruction_hash": "x",
        "fingerprint": "x",
        "machine": host.trim(),
        "created_at": "2026-11-21T03:00:00Z",
        "started_at": "2026-11-21T03:00:00Z",
        "supervisor_pid": victim.id(),
        "agent_pid": victim.id(),
    });
    env.write(
        "state/runs/run-forged000001.json",
        &serde_json::to_string_pretty(&record).unwrap(),
    );
    env.steward_on_path()
        .args(["runs", "kill", "run-forged000001"])
        .assert()
        .success();
    env.steward_on_path().args(["tick", "-q"]).output().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(alive(&mut victim), "a process no run started was signalled");
    let _ = victim.kill();
}

#[test]
fn a_run_whose_supervisor_was_killed_is_stopped_with_what_escaped_its_group() {
    let env = store();
    add(&env, "hang-1", &[]);
    env.write_config(&CONFIG.replace("timeout: 2s", "timeout: 1h"));
    env.steward_on_path()
        .args(["dispatch", "hang-1"])
        .assert()
        .success();
    let started = Instant::now();
    while !env.path("orphan.pid").exists() || env.runs()[0]["state"] != "running" {
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
    }
    let run = &env.runs()[0];
    let id = run["id"].as_str().unwrap().to_string();
    // The supervisor dies without stopping anything (SIGKILL): the agent's
    // `setsid` child is no longer below it.
    let supervisor: i32 = run["supervisor_pid"].as_i64().unwrap() as i32;
    // SAFETY: the supervisor this test's run started.
    unsafe { libc::kill(supervisor, libc::SIGKILL) };
    let orphan: i32 = env.read("orphan.pid").trim().parse().unwrap();
    let gone = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |stat| stat.contains(") Z "))
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(!gone(orphan), "the escapee runs on");
    env.steward_on_path()
        .args(["runs", "kill", &id])
        .assert()
        .success();
    let started = Instant::now();
    while !gone(orphan) {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "what the run left behind was not stopped"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(env.runs()[0]["outcome"], "killed");
}

/// Records the arguments it was started with, one per line, and what it
/// was told, and ends as a run that did nothing.
const ARGV_AGENT: &str = r#"#!/bin/sh
cat > "stdin-$STEWARD_GOAL.log"
printf '%s\n' "$@" > "argv-$STEWARD_GOAL.log"
echo '{"type":"result","subtype":"success","is_error":false,"result":"looked","session_id":"s-1","total_cost_usd":0}'
"#;

#[test]
fn a_sandboxed_run_gets_its_clients_sandbox_and_a_client_without_one_none() {
    let env = TestEnv::initialised();
    env.executable("agent.sh", ARGV_AGENT);
    env.write_config(
        "dispatch:
  enabled: true
  agent: claudeish
  sandbox: required
agents:
  claudeish:
    command: [./agent.sh, -p]
    output: claude-json
  codexish:
    command: [./agent.sh, exec, --json, --sandbox, workspace-write, -]
    output: codex-jsonl
  plain:
    command: [./agent.sh]
    output: text
",
    );
    for (goal, agent) in [("c", "claudeish"), ("x", "codexish"), ("t", "plain")] {
        env.add_goal(goal);
        env.steward_on_path()
            .args(["dispatch", goal, "--agent", agent])
            .assert()
            .success();
        env.settle();
    }
    // Claude Code: the settings steward wrote, from outside what the
    // agent may write, with the store's state and the key's folder denied.
    let claude: Vec<String> = env.read("argv-c.log").lines().map(String::from).collect();
    assert_eq!(claude[0], "--settings", "{claude:?}");
    let settings_path = env.path("state/cache/claude-sandbox.json");
    assert_eq!(claude[1], settings_path.display().to_string());
    // Steward's MCP server, which the client starts outside its sandbox,
    // with the run's dispatch id: how a run whose shell chains a command
    // before `steward` still records, as its instruction says.
    assert_eq!(claude[2], "--mcp-config", "{claude:?}");
    let mcp: serde_json::Value = serde_json::from_str(&claude[3]).unwrap();
    let server = &mcp["mcpServers"]["steward"];
    assert_eq!(server["args"][2], "mcp", "{mcp}");
    let run_id = env
        .runs()
        .into_iter()
        .find(|r| r["goal_label"] == "c")
        .unwrap()["id"]
        .clone();
    assert_eq!(server["env"]["STEWARD_DISPATCH_ID"], run_id, "{mcp}");
    assert_eq!(claude[4], "-p");
    assert!(
        env.read("stdin-c.log").contains(
            "Run each steward command above as a command of its own, or call the steward MCP tools"
        ),
        "{}",
        env.read("stdin-c.log")
    );
    let settings: serde_json::Value =
        serde_json::from_str(&env.read("state/cache/claude-sandbox.json")).unwrap();
    // steward's own tools and `steward` alone, nothing else.
    assert_eq!(
        settings["permissions"]["allow"],
        serde_json::json!(["mcp__steward", "Bash(steward:*)"])
    );
    let deny_write = settings["sandbox"]["filesystem"]["denyWrite"].to_string();
    let root = std::fs::canonicalize(env.root()).unwrap();
    assert!(
        deny_write.contains(&format!("{}/state", root.display())),
        "{settings}"
    );
    assert!(deny_write.contains("/.config/steward"), "{settings}");
    assert_eq!(settings["sandbox"]["allowUnsandboxedCommands"], false);
    // Codex: its --sandbox gone (it would replace the profile), the
    // permission profile and steward's MCP server in its place.
    let codex = env.read("argv-x.log");
    assert!(!codex.contains("--sandbox"), "{codex}");
    assert!(
        codex.starts_with("exec\n-c\ndefault_permissions=\"steward-agent\"\n"),
        "{codex}"
    );
    assert!(
        codex.contains("\"state\"=\"read\",\"steward.yaml\"=\"read\""),
        "{codex}"
    );
    assert!(codex.contains("/.config/steward\"=\"none\""), "{codex}");
    assert!(
        codex.contains("mcp_servers.steward.args=[\"-C\","),
        "{codex}"
    );
    assert!(codex.ends_with("--json\n-\n"), "{codex}");
    // A client steward knows no sandbox for: no run starts unguarded.
    assert!(!env.path("argv-t.log").exists());
    let plain = env
        .runs()
        .into_iter()
        .find(|r| r["goal_label"] == "t")
        .unwrap();
    assert_eq!(plain["outcome"], "error", "{plain}");
    assert!(
        plain["result"]
            .as_str()
            .unwrap_or_default()
            .contains("steward knows no sandbox for `./agent.sh`"),
        "{plain}"
    );
    // `doctor` says so before the night does.
    let config = env
        .read("steward.yaml")
        .replace("agent: claudeish", "agent: plain");
    env.write_config(&config);
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "steward.yaml:4:3: dispatch.sandbox is required, and steward knows no sandbox for `./agent.sh` (output: text)",
        ));
    // Nor one whose client is told to run without any sandbox.
    let config = env
        .read("steward.yaml")
        .replace("agent: plain", "agent: codexish")
        .replace(
            "--json, --sandbox, workspace-write",
            "--json, --dangerously-bypass-approvals-and-sandbox",
        );
    env.write_config(&config);
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "profile `codexish` runs `./agent.sh` with --dangerously-bypass-approvals-and-sandbox",
        ));
}

#[test]
fn by_default_runs_are_sandboxed_where_the_client_has_a_sandbox() {
    let env = TestEnv::initialised();
    env.executable("agent.sh", ARGV_AGENT);
    env.write_config(
        "dispatch:
  enabled: true
  agent: claudeish
agents:
  claudeish:
    command: [./agent.sh, -p]
    output: claude-json
  codexish:
    command: [./agent.sh, exec, -]
    output: codex-jsonl
  plain:
    command: [./agent.sh, --plain]
    output: text
",
    );
    for (goal, agent) in [("c", "claudeish"), ("x", "codexish"), ("t", "plain")] {
        env.add_goal(goal);
        env.steward_on_path()
            .args(["dispatch", goal, "--agent", agent])
            .assert()
            .success();
        env.settle();
    }
    assert!(env.read("argv-c.log").starts_with("--settings\n"));
    let settings: serde_json::Value =
        serde_json::from_str(&env.read("state/cache/claude-sandbox.json")).unwrap();
    // Where Claude Code cannot start its sandbox, it runs without one
    // (its Edit rules still hold) rather than not at all.
    assert_eq!(settings["sandbox"]["failIfUnavailable"], false);
    assert!(
        env.read("argv-x.log")
            .contains("default_permissions=\"steward-agent\"")
    );
    // A client steward knows no sandbox for runs as it is.
    assert_eq!(env.read("argv-t.log"), "--plain\n");
    assert!(
        env.runs().iter().all(|r| r["outcome"] == "ok"),
        "{:?}",
        env.runs()
    );
    // A sandboxed Codex is told to record through the MCP server, whose
    // tools it has: its shell cannot write the store. A sandboxed Claude
    // Code has both: a steward command run alone, or the same tools.
    assert!(
        env.read("stdin-x.log")
            .contains("call the steward MCP tools")
    );
    assert!(
        env.read("stdin-c.log")
            .contains("run each steward command above as a command of its own")
            || env
                .read("stdin-c.log")
                .contains("Run each steward command above as a command of its own")
    );
    assert!(
        !env.read("stdin-t.log")
            .contains("call the steward MCP tools")
    );
}

#[test]
fn an_unblock_starts_fresh_work_told_what_the_person_said() {
    let mut env = TestEnv::initialised();
    env.write_config(
        "dispatch:
  enabled: true
  agent: fake
  max_parallel: 2
  max_retries: 0
  timeout: 30s
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
",
    );
    env.executable("agent.sh", AGENT);
    add(&env, "lazy-1", &[]);
    env.add_goal("planned");
    env.steward()
        .args(["plan", "import", "planned"])
        .arg(format!(
            "{}/fixtures/plans/valid.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .assert()
        .success();
    // A run each, no progress, no retries: both blocked.
    for step in 0..3 {
        env.set_now(&minute(step * 5));
        env.steward_on_path().args(["tick", "-q"]).output().unwrap();
        env.settle();
    }
    for goal in ["lazy-1", "planned"] {
        assert_eq!(
            env.goal_json(goal)["escalation"]["kind"],
            "no_progress",
            "{goal}"
        );
    }
    let runs_before = env.runs().len();
    env.set_now(&minute(20));
    for goal in ["lazy-1", "planned"] {
        env.steward()
            .args(["unblock", goal, "--note", "the token is in the vault now"])
            .assert()
            .success();
    }
    env.tick_and_settle();
    // Not blocked again on the runs from before; one fresh run each.
    let runs = env.runs();
    let fresh: Vec<&serde_json::Value> = runs[runs_before..].iter().collect();
    assert_eq!(fresh.len(), 2, "{fresh:?}");
    let lazy = fresh.iter().find(|r| r["goal_label"] == "lazy-1").unwrap();
    assert_eq!(lazy["kind"], "first");
    let id = lazy["id"].as_str().unwrap();
    let prompt = env.read(&format!("state/runs/{id}.prompt"));
    assert!(
        prompt.contains(&format!(
            "This run's dispatch id is {id} (in STEWARD_DISPATCH_ID)"
        )),
        "the instruction names its run: {prompt}"
    );
    assert!(
        prompt.contains("A person looked at this goal at 2026-11-21T04:20:00Z and said: \"the token is in the vault now\""),
        "{prompt}"
    );
    // A planned goal is planned again first, with its plan and the note.
    let planned = fresh.iter().find(|r| r["goal_label"] == "planned").unwrap();
    assert_eq!(planned["kind"], "plan");
    let prompt = env.read(&format!(
        "state/runs/{}.prompt",
        planned["id"].as_str().unwrap()
    ));
    assert!(prompt.contains("This goal has a plan"), "{prompt}");
    assert!(prompt.contains("the token is in the vault now"), "{prompt}");
    assert!(
        prompt.contains("S1.1.1"),
        "the plan with its nodes: {prompt}"
    );
}

#[test]
fn why_names_every_limit_that_holds_a_goal() {
    let mut env = TestEnv::initialised();
    env.write_config(
        "global_limits:
  max_dispatches_per_hour: 1
dispatch:
  enabled: true
  agent: fake
  max_parallel: 5
  timeout: 30s
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
",
    );
    env.executable("agent.sh", AGENT);
    add(&env, "lazy-1", &["--priority", "high", "--confirmed"]);
    add(&env, "lazy-2", &[]);
    let tick = env.steward_on_path().arg("tick").output().unwrap();
    let stdout = String::from_utf8_lossy(&tick.stdout);
    assert!(
        stdout.contains("held: lazy-2: the hourly dispatch window is spent (1 runs, global_limits.max_dispatches_per_hour) until 2026-11-21T05:00:00Z"),
        "{stdout}"
    );
    env.settle();
    env.steward()
        .args(["why", "lazy-2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("lazy-2 is not being worked now:"))
        .stdout(predicate::str::contains(
            "  - the hourly dispatch window is spent (1 runs, global_limits.max_dispatches_per_hour) until 2026-11-21T05:00:00Z",
        ));
    env.steward()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains("No run starts now"))
        .stdout(predicate::str::contains(
            "the hourly dispatch window is spent",
        ));
    env.steward()
        .args(["show", "lazy-2"])
        .assert()
        .stdout(predicate::str::contains(
            "Not now: the hourly dispatch window is spent",
        ));
    let json: serde_json::Value = serde_json::from_slice(
        &env.steward()
            .args(["--json", "tick", "--dry-run"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let held = json["held"].as_array().unwrap();
    assert!(
        held.iter().any(|h| h["label"] == "lazy-1"
            && h["why"]
                .as_str()
                .unwrap()
                .starts_with("follow-up 1 waits until 2026-11-21T04:02:00Z")),
        "the one that ran waits for its follow-up's backoff: {held:?}"
    );
    // An hour on: the window has room; the goal that ran is in backoff,
    // the other cools down after an assessment.
    env.set_now("2026-11-21T05:01:00Z");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "lazy-2",
            "--summary",
            "looked",
        ])
        .assert()
        .success();
    env.steward()
        .args(["why", "lazy-2"])
        .assert()
        .stdout(predicate::str::contains(
            "  - it cools down until 2026-11-21T05:11:00Z (budget.cooldown 10m after the last assessment)",
        ));
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "lazy-2",
            "--summary",
            "need a token",
            "--stuck",
        ])
        .assert()
        .success();
    env.steward()
        .args(["why", "lazy-2"])
        .assert()
        .stdout(predicate::str::contains("it is blocked (agent: the agent is stuck: need a token): a person runs `steward unblock lazy-2 --reason ...`"));
    env.write_config("dispatch:\n  enabled: false\n");
    env.steward()
        .args(["--json", "why", "lazy-1"])
        .assert()
        .stdout(predicate::str::contains(
            "dispatch is off (dispatch.enabled: false)",
        ));
}

/// Agents that spend: a Codex-style one whose thread's token totals grow
/// in its rollout file while it works, one that calls its model at a
/// steady pace, Claude-style ones that hang after two responses (of the
/// profile's model, or of models they name), and one that hits its
/// account's usage limit.
const SPENDING_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
case "$STEWARD_GOAL" in
  steady-*)
    thread=01a2-$STEWARD_DISPATCH_ID
    echo "{\"type\":\"thread.started\",\"thread_id\":\"$thread\"}"
    day="$CODEX_HOME/sessions/2026/11/21"
    mkdir -p "$day"
    rollout="$day/rollout-2026-11-21T04-00-00-$thread.jsonl"
    echo '{"type":"turn_context","payload":{"model":"gpt-5-codex"}}' >> "$rollout"
    i=1
    while [ $i -le 10 ]; do
      echo "{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":$((i * 800000)),\"cached_input_tokens\":0,\"output_tokens\":0},\"last_token_usage\":{\"input_tokens\":800000,\"cached_input_tokens\":0,\"output_tokens\":0}}}}" >> "$rollout"
      echo "$i" > spent-turns
      i=$((i + 1))
      sleep 2
    done
    ;;
  models-*)
    echo '{"type":"system","subtype":"init"}'
    echo '{"type":"assistant","message":{"id":"m1","model":"claude-opus-4-1-20250805","usage":{"input_tokens":100000,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}'
    echo '{"type":"assistant","message":{"id":"m2","model":"claude-mystery-9","usage":{"input_tokens":100000,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}'
    sleep 600
    ;;
  codex-*)
    thread=01a2-$STEWARD_DISPATCH_ID
    echo "{\"type\":\"thread.started\",\"thread_id\":\"$thread\"}"
    day="$CODEX_HOME/sessions/2026/11/21"
    mkdir -p "$day"
    rollout="$day/rollout-2026-11-21T04-00-00-$thread.jsonl"
    i=1
    while [ $i -le 60 ]; do
      echo "{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":$((i * 1000000)),\"cached_input_tokens\":0,\"output_tokens\":0}}}}" >> "$rollout"
      echo "$i" > spent-turns
      i=$((i + 1))
      sleep 0.2
    done
    ;;
  claude-*)
    echo '{"type":"system","subtype":"init"}'
    echo '{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":100000,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}'
    echo '{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":100000,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}'
    sleep 600
    ;;
  limited-*)
    echo "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":$LIMIT_RESETS,\"rateLimitType\":\"five_hour\"}}"
    echo '{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":429,"api_error":"usage_limit_reached","result":"You have hit your 5-hour limit","total_cost_usd":0,"session_id":"s-limited"}'
    exit 1
    ;;
esac
"#;

fn spending_store(config: &str) -> TestEnv {
    let env = TestEnv::initialised();
    env.write_config(config);
    env.executable("agent.sh", SPENDING_AGENT);
    env
}

#[test]
fn a_run_is_stopped_as_it_reaches_its_goals_cost_bound_and_charged() {
    let env = spending_store(
        "dispatch:
  enabled: true
  agent: codexish
  timeout: 60s
agents:
  codexish:
    command: [./agent.sh, exec, -]
    output: codex-jsonl
    input_usd_per_mtok: 1
    output_usd_per_mtok: 10
",
    );
    add(&env, "codex-1", &["--max-cost-usd", "3"]);
    let codex_home = env.path("codex-home");
    env.steward_on_path()
        .env("CODEX_HOME", &codex_home)
        .args(["tick", "-q"])
        .assert()
        .success();
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "over_budget", "{run}");
    // Looked at each second: stopped within a second of crossing it.
    let result = run["result"].as_str().unwrap();
    assert!(
        result.starts_with("stopped: it had spent $")
            && result.contains(" of the $3.00 its goal's max_cost_usd ($3.00) left"),
        "{run}"
    );
    // Empty when it was stopped before it wrote its first turn. The run
    // has 60 turns of 0.2 s; it reaches its bound at the third and is
    // looked at four times a second, but a loaded machine (the whole
    // suite on two cores) can delay the stop by seconds: only "mid-run"
    // is asserted.
    let turns: u32 = env.read("spent-turns").trim().parse().unwrap_or(0);
    assert!(turns < 30, "stopped mid-run, not at the end: {turns} turns");
    // Charged for what its thread used, and the goal failed at its bound
    // (reached: the next call would have crossed it).
    assert!(run["cost_usd"].as_f64().unwrap() >= 2.0, "{run}");
    let goal = env.goal_json("codex-1");
    assert_eq!(goal["status"], "failed", "{goal}");
    assert!(
        (goal["closed_reason"].as_str().unwrap()).starts_with("cost bound reached: it had spent $"),
        "{goal}"
    );
}

#[test]
fn a_run_is_stopped_before_the_call_that_would_cross_its_bound() {
    // $0.80 a call, every two seconds, against a bound of $3: stopped at
    // $2.40, as the next call would cross it, not after it.
    let env = spending_store(
        "dispatch:
  enabled: true
  agent: codexish
  timeout: 60s
agents:
  codexish:
    command: [./agent.sh, exec, -]
    output: codex-jsonl
    input_usd_per_mtok: 1
",
    );
    add(&env, "steady-1", &["--max-cost-usd", "3"]);
    env.steward_on_path()
        .env("CODEX_HOME", env.path("codex-home"))
        .args(["tick", "-q"])
        .assert()
        .success();
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "over_budget", "{run}");
    assert_eq!(run["cost_usd"], 2.4, "{run}");
    assert!(
        run["result"].as_str().unwrap().ends_with(
            "it had spent $2.40 of the $3.00 its goal's max_cost_usd ($3.00) left, and its next model call could cost $0.80 (its dearest so far)"
        ),
        "{run}"
    );
    assert_eq!(env.read("spent-turns").trim(), "3");
    let goal = env.goal_json("steady-1");
    assert_eq!(goal["status"], "failed", "{goal}");
}

#[test]
fn each_response_is_priced_at_the_model_that_gave_it() {
    // A profile without prices of its own: each response at its model's
    // list price, one the table does not know at its highest, and said.
    let env = spending_store(
        "dispatch:
  enabled: true
  agent: claudeish
  timeout: 2s
agents:
  claudeish:
    command: [./agent.sh]
    output: claude-json
",
    );
    add(&env, "models-1", &[]);
    env.tick_and_settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "timeout", "{run}");
    // 100,000 input tokens of Opus 4.1 at $15 a million, and as many of
    // an unknown model at the table's highest input price, $15.
    assert_eq!(run["cost_usd"], 3.0, "{run}");
    assert!(
        run["result"].as_str().unwrap().contains(
            "priced claude-mystery-9 at the highest known prices: steward's price table does not list it (set the profile's own prices)"
        ),
        "{run}"
    );
}

#[test]
fn a_run_stopped_at_its_timeout_is_charged_for_what_it_used() {
    let env = spending_store(
        "dispatch:
  enabled: true
  agent: claudeish
  timeout: 2s
agents:
  claudeish:
    command: [./agent.sh]
    output: claude-json
    input_usd_per_mtok: 3
",
    );
    add(&env, "claude-1", &[]);
    env.tick_and_settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "timeout");
    // Two responses of 100,000 input tokens at $3 a million.
    assert_eq!(run["cost_usd"], 0.6, "{run}");
    assert_eq!(env.goal_json("claude-1")["progress"]["cost_usd"], 0.6);
}

#[test]
fn a_usage_limit_parks_the_agent_until_it_resets_and_counts_no_failure() {
    let mut env = spending_store(
        "dispatch:
  enabled: true
  agent: claudeish
  max_parallel: 1
  timeout: 30s
  limit_wait: 1h
notify:
  command: [./notify.sh]
agents:
  claudeish:
    command: [./agent.sh]
    output: claude-json
",
    );
    env.executable("notify.sh", NOTIFIER);
    add(&env, "limited-1", &[]);
    add(&env, "limited-2", &[]);
    // The limit resets two hours after the night's first tick.
    let resets = chrono::DateTime::parse_from_rfc3339("2026-11-21T06:00:00Z")
        .unwrap()
        .timestamp()
        .to_string();
    let tick = |env: &TestEnv| {
        env.steward_on_path()
            .env("LIMIT_RESETS", &resets)
            .args(["tick", "-q"])
            .output()
            .unwrap()
    };
    tick(&env);
    env.settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["outcome"], "limited");
    assert_eq!(runs[0]["limited_until"], "2026-11-21T06:00:00Z");
    // Both goals wait for the reset: no run, no failure, no block.
    for minutes in [5, 30, 115] {
        env.set_now(&minute(minutes));
        tick(&env);
        env.settle();
    }
    assert_eq!(env.runs().len(), 1, "{:?}", env.runs());
    for goal in ["limited-1", "limited-2"] {
        let goal = env.goal_json(goal);
        assert!(
            matches!(goal["status"].as_str(), Some("active" | "stalled")),
            "{goal}"
        );
        assert_eq!(goal["progress"]["consecutive_failures"], 0);
    }
    env.steward()
        .args(["why", "limited-2"])
        .assert()
        .stdout(predicate::str::contains(
            "claudeish's usage limit resets at 2026-11-21T06:00:00Z",
        ));
    // Longer than dispatch.limit_wait: a person is told, once.
    let told: Vec<serde_json::Value> = notifications(&env)
        .into_iter()
        .filter(|n| n["event"] == "limited")
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["goal"]["label"], "limited-1");
    // After the reset, runs start again, as a first run (the limited one
    // is no step of the ladder).
    env.set_now(&minute(125));
    tick(&env);
    env.settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["kind"], "first");
}

#[test]
fn tick_keeps_machine_local_state_within_its_retention() {
    let mut env = store();
    add(&env, "ok-1", &[]);
    env.add_goal("kept");
    env.steward()
        .args(["update", "kept", "--note", "a recent change"])
        .assert()
        .success();
    env.tick_and_settle();
    let run = env.runs()[0]["id"].as_str().unwrap().to_string();
    assert_eq!(env.goal_json("ok-1")["status"], "completed");
    assert!(env.path(&format!("state/runs/{run}.out")).exists());
    // Both goals' undo records were last written two months ago.
    let undo = |label: &str| {
        let id = env.goal_json(label)["id"].as_str().unwrap().to_string();
        env.path(&format!("state/undo/{id}.json"))
    };
    let (closed_undo, open_undo) = (undo("ok-1"), undo("kept"));
    for path in [&closed_undo, &open_undo] {
        assert!(path.exists(), "{}", path.display());
        std::process::Command::new("touch")
            .args(["-d", "60 days ago"])
            .arg(path)
            .status()
            .unwrap();
    }
    env.steward()
        .args(["--json", "doctor"])
        .assert()
        .stdout(predicate::str::contains(r#""what":"run logs""#));
    // A hundred days on: the run's logs and record are gone, and the
    // closed goal's undo record; the open goal's is kept, and undo works.
    env.set_now("2027-03-01T04:00:00Z");
    env.steward_on_path().args(["tick", "-q"]).assert().code(0);
    assert!(!env.path(&format!("state/runs/{run}.out")).exists());
    assert!(!env.path(&format!("state/runs/{run}.json")).exists());
    assert!(!closed_undo.exists());
    assert!(open_undo.exists());
    env.steward().args(["undo", "kept"]).assert().success();
    assert!(
        env.events().iter().any(|e| e["action"] == "pruned"),
        "the prune is in the log"
    );
}

/// Does the work and says nothing of it: the checks judge it.
const QUIET_WORKER: &str = "#!/bin/sh
cat > /dev/null
mkdir -p work && touch \"work/$STEWARD_GOAL\"
echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"s-'\"$STEWARD_DISPATCH_ID\"'\",\"total_cost_usd\":0.01}'
";

#[test]
fn a_runs_end_judges_its_goal_and_starts_the_next_run_without_a_tick() {
    for pass_at_run_end in [true, false] {
        let env = TestEnv::initialised();
        env.write_config(&format!(
            "dispatch:
  enabled: true
  agent: fake
  max_parallel: 1
  timeout: 30s
  pass_at_run_end: {pass_at_run_end}
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
"
        ));
        env.executable("agent.sh", QUIET_WORKER);
        add(&env, "first", &["--priority", "high", "--confirmed"]);
        add(&env, "second", &[]);
        env.steward_on_path()
            .args(["tick", "-q"])
            .assert()
            .success();
        let scheduled = env.read("state/tick.json");
        env.settle();
        let statuses = ["first", "second"].map(|label| env.goal_json(label)["status"].clone());
        if pass_at_run_end {
            // One scheduled tick: the first run's end judged its goal (its
            // check passes: `verifying`, for `complete`) and started the
            // second goal's run, whose end judged that one.
            assert_eq!(statuses, ["verifying", "verifying"]);
            assert_eq!(env.runs().len(), 2);
            // The passes left what the scheduled tick tells its reader.
            assert_eq!(env.read("state/tick.json"), scheduled);
        } else {
            assert_eq!(statuses, ["active", "active"]);
            assert_eq!(env.runs().len(), 1);
        }
    }
}

/// Ends its reply with the Overseer's structured update, well formed or
/// not as its goal's label says, and records nothing else.
const UPDATING_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
case "$STEWARD_GOAL" in
  good-*) update='{"overseerUpdate": {"summary": "wrote the install section", "next": "add the upgrade notes", "evidence": {"filesTouched": ["docs/install.md"]}}}' ;;
  *) update='{"overseerUpdate": {"summary": "all done, trust me", "mood": "great"}}' ;;
esac
message=$(printf 'I worked on it.\n\n```json\n%s\n```\n' "$update")
python3 -c 'import json,sys; print(json.dumps({"type":"result","subtype":"success","is_error":False,"result":sys.argv[1],"session_id":"s-1","total_cost_usd":0.01}))' "$message"
"#;

#[test]
fn a_runs_final_update_is_read_as_its_assessment() {
    let env = TestEnv::initialised();
    env.write_config(
        "dispatch:
  enabled: true
  agent: fake
  max_parallel: 2
  timeout: 30s
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
",
    );
    env.executable("agent.sh", UPDATING_AGENT);
    add(&env, "good-1", &[]);
    add(&env, "bad-1", &[]);
    env.tick_and_settle();
    let run_of = |label: &str| {
        env.runs()
            .into_iter()
            .find(|r| r["goal_label"] == label)
            .unwrap()
    };
    // Recorded as the agent's assessment, tied to the run.
    let good = run_of("good-1");
    assert_eq!(good["reported"], true, "{good}");
    assert_eq!(
        good["result"],
        "its update, recorded as its assessment: wrote the install section"
    );
    let goal = env.goal_json("good-1");
    assert_eq!(goal["progress"]["assessments"], 1, "{goal}");
    env.steward()
        .args(["log", "good-1"])
        .assert()
        .stdout(predicate::str::contains("wrote the install section"))
        .stdout(predicate::str::contains("docs/install.md"));
    // A bad one is recorded nowhere, and said without its JSON.
    let bad = run_of("bad-1");
    assert_eq!(bad["reported"], false, "{bad}");
    let result = bad["result"].as_str().unwrap();
    assert!(
        result.starts_with("its final message ends with an update steward did not record: ")
            && result.contains("unknown field `mood`")
            && !result.contains('{')
            && !result.contains("trust me"),
        "{result}"
    );
    assert_eq!(env.goal_json("bad-1")["progress"]["assessments"], 0);
}

#[test]
fn a_guessed_usage_limit_reset_is_said_to_be_a_guess() {
    let env = spending_store(
        "dispatch:
  enabled: true
  agent: claudeish
  timeout: 30s
agents:
  claudeish:
    command: [./agent.sh]
    output: claude-json
",
    );
    add(&env, "limited-1", &[]);
    // The client says it hit its limit, not when the limit resets.
    env.steward_on_path()
        .env("LIMIT_RESETS", "null")
        .args(["tick", "-q"])
        .assert()
        .success();
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "limited", "{run}");
    assert_eq!(run["limit_guessed"], true, "{run}");
    env.steward()
        .args(["why", "limited-1"])
        .assert()
        .stdout(predicate::str::contains(format!(
            "claudeish hit a usage limit without saying when it resets (run {}): steward tries again at {}",
            run["id"].as_str().unwrap(),
            run["limited_until"].as_str().unwrap()
        )));
}

#[test]
fn an_agent_cli_that_is_not_installed_is_said_and_no_run_fails_on_it() {
    let env = TestEnv::initialised();
    env.write_config("dispatch:\n  enabled: true\n  agent: codex\n");
    add(&env, "waits", &[]);
    let said = "agent codex: `codex` is not installed here (not an executable on the PATH steward runs with)";
    let doctor = (env.steward().env("PATH", "/usr/bin:/bin").arg("doctor"))
        .output()
        .unwrap();
    assert_eq!(doctor.status.code(), Some(1));
    let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned()
        + &String::from_utf8_lossy(&doctor.stderr);
    assert!(
        doctor.contains(&format!("steward.yaml:1:1: {said}")),
        "{doctor}"
    );
    env.steward()
        .env("PATH", "/usr/bin:/bin")
        .args(["tick"])
        .assert()
        .stdout(predicate::str::contains(format!("held: waits: {said}")));
    assert!(env.runs().is_empty(), "{:?}", env.runs());
}
