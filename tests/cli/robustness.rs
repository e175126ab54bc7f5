//! Many writers at once, and writers killed at any moment
//! (steward-reference(5), "RELIABILITY").

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use predicates::prelude::*;

use crate::common::{Lcg, TestEnv};

fn start(env: &TestEnv, args: &[&str]) -> Child {
    let mut cmd = env.process();
    cmd.arg("--lock-timeout")
        .arg("120s")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd.spawn().unwrap()
}

fn assessments(env: &TestEnv, goal: &str) -> u64 {
    env.goal_json(goal)["progress"]["assessments"]
        .as_u64()
        .unwrap()
}

#[test]
fn concurrent_writers_lose_nothing() {
    let env = TestEnv::initialised();
    // 50 assessments of one goal that meet nothing: no circuit breaker here.
    env.write_config(
        "global_limits:\n  max_active_goals: 100\ncircuit_breaker:\n  max_assessments_without_progress: 0\n",
    );
    env.steward()
        .args([
            "add",
            "one",
            "--title",
            "T",
            "--criterion",
            "C",
            "--max-assessments",
            "500",
        ])
        .assert()
        .success();
    for n in 0..50 {
        env.add_goal(&format!("g{n}"));
    }
    let mut children = Vec::new();
    for n in 0..50 {
        children.push(start(
            &env,
            &[
                "--actor",
                "agent",
                "assess",
                "one",
                "--summary",
                &format!("run {n}"),
            ],
        ));
        children.push(start(
            &env,
            &[
                "--actor",
                "agent",
                "assess",
                &format!("g{n}"),
                "--summary",
                "once",
            ],
        ));
        if n % 10 == 0 {
            children.push(start(&env, &["tick", "-q"]));
            children.push(start(&env, &["prompt", "--heartbeat"]));
        }
    }
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.code().is_some_and(|c| c == 0 || c == 3),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(assessments(&env, "one"), 50);
    for n in 0..50 {
        assert_eq!(assessments(&env, &format!("g{n}")), 1, "g{n}");
    }
    env.steward().arg("list").assert().success();
    env.steward().args(["mirror", "--check"]).assert().success();
    let events = env.events();
    assert_eq!(
        events.iter().filter(|e| e["action"] == "created").count(),
        51
    );
    assert_eq!(
        events.iter().filter(|e| e["action"] == "assessed").count(),
        100
    );
    let of_goals = events.iter().filter(|e| e["goal_id"] != "").count();
    assert_eq!(of_goals, 151, "exactly one line per event");
}

#[test]
fn a_writer_killed_at_any_moment_leaves_every_file_whole() {
    let env = TestEnv::initialised();
    // Torn files are the point, not budgets: a build fast enough to finish
    // most of the assessments below would otherwise trip the circuit
    // breaker (five without progress) before the last one.
    env.write_config("circuit_breaker:\n  enabled: false\n");
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "C",
            "--max-assessments",
            "5000",
        ])
        .assert()
        .success();
    let mut random = Lcg(42);
    let mut killed = 0;
    for round in 0..60 {
        let args = match round % 3 {
            0 => vec!["assess", "g", "--summary", "killed maybe"],
            1 => vec!["update", "g", "--note", "killed maybe"],
            _ => vec!["task", "spawned", "--label", "g-work"],
        };
        let mut child = start(&env, &args);
        std::thread::sleep(Duration::from_micros(random.next(4000)));
        // SIGKILL: no chance to clean up.
        let _ = child.kill();
        if child
            .wait()
            .is_ok_and(|status| std::os::unix::process::ExitStatusExt::signal(&status).is_some())
        {
            killed += 1;
        }
    }
    assert!(
        killed >= 10,
        "only {killed} of 60 runs were killed before they finished"
    );
    // Every file parses: the goal, the mirror, the event log, the obligations.
    env.steward().args(["show", "g"]).assert().success();
    env.steward().args(["--json", "list"]).assert().success();
    env.steward().arg("tasks").assert().success();
    let mirror = env.read("ACTIVE-TASKS.md");
    assert!(
        steward::store::mirror::find_block(&mirror).is_ok(),
        "{mirror}"
    );
    for line in env.event_lines() {
        serde_json::from_str::<serde_json::Value>(&line)
            .unwrap_or_else(|err| panic!("torn event line {line:?}: {err}"));
    }
    // Leftovers of interrupted writes are hidden temporary files, never
    // something a scan could take for a goal; beside them, the
    // directory's spare.
    for entry in std::fs::read_dir(env.path("state/goals")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            ["g.md", "closed", ".steward-spare"].contains(&name.as_str())
                || name.starts_with(".steward-tmp-"),
            "unexpected {name}"
        );
    }
    // And the store still works.
    env.steward()
        .args(["assess", "g", "--summary", "after the storm"])
        .assert()
        .success();
}

/// steward's own write, killed at any moment, is never taken for a change
/// made outside it: the goal is not held for a person's review, and every
/// change the goal file records has its event in the log.
#[test]
fn a_write_killed_at_any_moment_is_never_taken_for_tampering_and_loses_no_event() {
    let env = TestEnv::initialised();
    env.write_config("circuit_breaker:\n  enabled: false\n");
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "C"])
        .args(["--max-assessments", "5000"])
        .assert()
        .success();
    let mut random = Lcg(7);
    let mut killed = 0;
    let mut round = 0;
    while killed < 30 && round < 600 {
        round += 1;
        let summary = format!("round {round}");
        let mut child = env.process();
        child
            .env("CLAUDECODE", "1")
            .args(["assess", "g", "--summary", &summary])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = child.spawn().unwrap();
        std::thread::sleep(Duration::from_micros(random.next(6000)));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if std::os::unix::process::ExitStatusExt::signal(&status).is_none() {
            continue;
        }
        killed += 1;
        // The agent goes on: its goal waits for nobody.
        let next = env
            .steward()
            .env("CLAUDECODE", "1")
            .args(["assess", "g", "--summary", &format!("after {round}")])
            .output()
            .unwrap();
        assert!(
            next.status.success(),
            "after kill {killed} (round {round}): {}",
            String::from_utf8_lossy(&next.stderr)
        );
    }
    assert_eq!(killed, 30, "only {killed} kills in {round} rounds");
    // Every assessment the goal file records is in the log.
    let goal = env.read("state/goals/g.md");
    let recorded = goal.lines().filter(|l| l.contains(" assessed: ")).count();
    let logged = env
        .events()
        .iter()
        .filter(|e| e["label"] == "g" && e["action"] == "assessed")
        .count();
    assert_eq!(
        u64::try_from(logged).unwrap(),
        assessments(&env, "g"),
        "events lost: the goal counts more assessments than the log has"
    );
    assert!(
        recorded <= logged,
        "{recorded} history lines, {logged} events"
    );
}

/// A command stopped between putting a goal's new bytes in place and
/// logging their event (`STEWARD_FAULT=abort-before-log` stops it there,
/// as a kill would): the next command completes the write — the event
/// logged, the seal moved on — and nothing waits for a person.
#[test]
fn a_write_stopped_before_its_event_is_completed_by_the_next_command() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for (round, args) in [
        vec!["assess", "g", "--summary", "stopped", "--met", "1"],
        vec!["update", "g", "--note", "stopped too"],
    ]
    .iter()
    .enumerate()
    {
        let stopped = env
            .steward()
            .env("CLAUDECODE", "1")
            .env("STEWARD_FAULT", "abort-before-log")
            .args(args)
            .output()
            .unwrap();
        assert!(
            std::os::unix::process::ExitStatusExt::signal(&stopped.status).is_some(),
            "round {round}: {stopped:?}"
        );
        assert!(env.path("state/seals/journal").exists());
        // A write that changes no goal completes it too, and marks it done:
        // what is done is never read again.
        env.write_config(&format!("notify:\n  remind_after: {}h\n", round + 2));
        let journal = env.read("state/seals/journal");
        assert!(
            journal
                .lines()
                .next()
                .unwrap_or_default()
                .contains(" done\t"),
            "round {round}: the journal is marked done: {journal}"
        );
        // A reader before any write already takes it as steward's.
        env.steward()
            .env("CLAUDECODE", "1")
            .args(["prompt", "--heartbeat"])
            .assert()
            .success()
            .stdout(predicate::str::contains("waits for").not());
        env.steward()
            .env("CLAUDECODE", "1")
            .args(["assess", "g", "--summary", &format!("after {round}")])
            .assert()
            .success();
        let journal = env.read("state/seals/journal");
        let last = journal.lines().last().unwrap_or_default();
        assert!(
            last.contains(" done\t"),
            "the journal is marked done: {journal}"
        );
    }
    let events = env.events();
    let of = |action: &str| {
        events
            .iter()
            .filter(|e| e["label"] == "g" && e["action"] == action)
            .count()
    };
    assert_eq!(of("assessed"), 3, "the stopped assessment is logged");
    assert_eq!(env.goal_json("g")["progress"]["assessments"], 3);
    assert!(
        events
            .iter()
            .any(|e| e["action"] == "interrupted_write_completed"),
        "said"
    );
    env.steward().arg("audit").assert().success();
}

/// A journal put back later, with the file it described, takes no goal
/// back: an intent counts only from the bytes sealed now.
#[test]
fn an_old_journal_put_back_with_its_file_is_no_write_of_stewards() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let stopped = env
        .steward()
        .env("CLAUDECODE", "1")
        .env("STEWARD_FAULT", "abort-before-log")
        .args(["assess", "g", "--summary", "kept aside", "--met", "1"])
        .output()
        .unwrap();
    assert!(std::os::unix::process::ExitStatusExt::signal(&stopped.status).is_some());
    let journal = env.read("state/seals/journal");
    let file = env.read("state/goals/g.md");
    // The next command completes it; then a person changes the goal.
    env.steward()
        .args(["update", "g", "--add-criterion", "Fourth"])
        .assert()
        .success();
    // The agent puts back the old file and the old journal.
    env.write("state/seals/journal", &journal);
    env.write("state/goals/g.md", &file);
    env.steward()
        .env("CLAUDECODE", "1")
        .args(["assess", "g", "--summary", "as before"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("changed outside steward"));
}

/// `tick`, killed at random moments through thirty passes that dispatch
/// and record runs, never leaves a goal waiting for a person's review and
/// loses no event.
#[test]
fn thirty_ticks_killed_at_random_leave_no_goal_for_review() {
    let env = TestEnv::initialised();
    env.executable(
        "agent.sh",
        "#!/bin/sh\ncat > /dev/null\nsteward --actor agent assess \"$STEWARD_GOAL\" --summary 'worked' >/dev/null 2>&1\necho done\n",
    );
    env.write_config(
        "circuit_breaker:\n  enabled: false\nglobal_limits:\n  max_dispatches_per_hour: 1000\n  max_active_goals: 20\ndispatch:\n  enabled: true\n  agent: fake\n  max_parallel: 8\n  sandbox: off\nagents:\n  fake:\n    command: [./agent.sh]\n    output: text\n",
    );
    for n in 0..6 {
        env.steward()
            .args(["add", &format!("g{n}"), "--title", "T", "--criterion", "C"])
            .args([
                "--max-dispatches",
                "500",
                "--max-assessments",
                "5000",
                "--cooldown",
                "1s",
            ])
            .assert()
            .success();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_steward")).parent().unwrap();
    let on_path = format!("{}:/usr/bin:/bin", bin.display());
    let mut random = Lcg(11);
    let mut killed = 0;
    let mut clock = chrono::DateTime::parse_from_rfc3339(crate::common::NOW).unwrap();
    let mut round = 0;
    while killed < 30 && round < 300 {
        round += 1;
        clock += chrono::Duration::minutes(5);
        let now = clock.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let mut child = env.process();
        child
            .env("PATH", on_path.clone())
            .env("STEWARD_NOW", &now)
            .args(["tick", "-q"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = child.spawn().unwrap();
        std::thread::sleep(Duration::from_micros(random.next(30_000)));
        let _ = child.kill();
        if std::os::unix::process::ExitStatusExt::signal(&child.wait().unwrap()).is_some() {
            killed += 1;
        }
        let listed = env
            .steward()
            .env("STEWARD_NOW", &now)
            .args(["--json", "list"])
            .output()
            .unwrap();
        let goals: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
        for goal in goals["goals"].as_array().unwrap() {
            assert_ne!(
                goal["waiting"]["for_person"], "review",
                "round {round}, kill {killed}: {goal}"
            );
        }
    }
    assert!(killed >= 20, "only {killed} kills in {round} rounds");
    let tick_at = |at: chrono::DateTime<chrono::FixedOffset>| {
        let now = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let _ = env
            .steward_on_path()
            .env("STEWARD_NOW", &now)
            .args(["tick", "-q"])
            .assert();
    };
    // A pass that is not killed starts what the last killed one recorded
    // and did not start (record, then start: the next pass starts it).
    tick_at(clock);
    // Let the runs end (and the passes their ends make), then one more
    // pass records what they did; nothing may write while it is read.
    env.settle();
    tick_at(clock + chrono::Duration::minutes(5));
    env.settle();
    for n in 0..6 {
        let label = format!("g{n}");
        let goal = env.goal_json(&label);
        assert_ne!(goal["waiting"]["for_person"], "review", "{goal}");
        let logged = env
            .events()
            .iter()
            .filter(|e| e["label"] == label.as_str() && e["action"] == "dispatched")
            .count();
        assert_eq!(
            goal["progress"]["dispatches"].as_u64().unwrap(),
            u64::try_from(logged).unwrap(),
            "{label}: a dispatch without its event"
        );
    }
}

#[test]
fn a_closed_standard_stream_is_opened_on_dev_null() {
    let env = TestEnv::initialised();
    // Started with descriptors 1 and 2 closed, as a careless cron job or
    // daemon may start it: a file steward opened would take them, and its
    // output would go there. `steward mcp` waits on its stdin: its
    // descriptors can be looked at.
    let mut child = env
        .program("sh")
        .args(["-c", "exec \"$@\" >&- 2>&-", "sh"])
        .arg(assert_cmd::cargo::cargo_bin("steward"))
        .arg("mcp")
        .stdin(Stdio::piped())
        // Pipes until `sh` closes them: never `/dev/null` but by steward.
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let link = |fd: u32| std::fs::read_link(format!("/proc/{}/fd/{fd}", child.id())).ok();
    let started = std::time::Instant::now();
    let opened = loop {
        let links = [link(1), link(2)];
        if links
            .iter()
            .all(|l| l.as_deref() == Some(Path::new("/dev/null")))
            || started.elapsed() > Duration::from_secs(10)
        {
            break links;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        opened,
        [Some("/dev/null".into()), Some("/dev/null".into())],
        "descriptors 1 and 2 of a steward started with them closed"
    );
}
