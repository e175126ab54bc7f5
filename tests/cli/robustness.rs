//! Many writers at once, and writers killed at any moment
//! (steward-reference(5), "RELIABILITY").

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::TestEnv;

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

/// A tiny deterministic generator: the test needs spread, not randomness.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
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
