use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::TestEnv;

fn tick_json(env: &TestEnv) -> (i32, serde_json::Value) {
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    (
        output.status.code().unwrap(),
        serde_json::from_slice(&output.stdout).unwrap(),
    )
}

fn status(env: &TestEnv, goal: &str) -> String {
    env.goal_json(goal)["status"].as_str().unwrap().to_string()
}

#[test]
fn staleness_fires_at_exactly_twice_the_cooldown() {
    let mut env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "C",
            "--cooldown",
            "10m",
        ])
        .assert()
        .success();
    env.set_now("2026-11-21T04:19:59Z");
    env.steward().arg("tick").assert().code(0);
    assert_eq!(status(&env, "g"), "active");
    env.set_now("2026-11-21T04:20:00Z");
    let (code, report) = tick_json(&env);
    assert_eq!(code, 0);
    assert_eq!(
        report["findings"][0],
        serde_json::json!({"label": "g", "action": "stalled", "from": "active", "to": "stalled", "reason": "no activity for 20m (2 × cooldown is 20m)"})
    );
    assert_eq!(status(&env, "g"), "stalled");
    let text = env.read("state/goals/g.md");
    assert!(
        text.contains("- 2026-11-21T04:20:00Z watchdog stalled: no activity for 20m"),
        "{text}"
    );
    assert_eq!(env.events().last().unwrap()["actor"], "watchdog");
}

#[test]
fn a_second_tick_at_the_same_time_writes_nothing() {
    let mut env = TestEnv::initialised();
    env.add_goal("a");
    env.steward()
        .args([
            "add",
            "b",
            "--title",
            "B",
            "--criterion",
            "C",
            "--max-dispatches",
            "0",
        ])
        .assert()
        .success();
    env.set_now("2026-11-21T05:00:00Z");
    env.steward().arg("tick").assert().code(3);
    let before = env.snapshot();
    env.steward().arg("tick").assert().code(3);
    env.assert_unchanged(&before);
}

#[test]
fn budgets_block_at_their_maximum_and_not_before() {
    let env = TestEnv::initialised();
    env.write_goal("under", "---\nlabel: under\nbudget: {max_dispatches: 3, max_assessments: 5}\nprogress: {dispatches: 2, assessments: 4, last_assessed_at: 2026-11-21T04:00:00Z}\n---\n");
    env.write_goal("at", "---\nlabel: at\nbudget: {max_assessments: 5}\nprogress: {assessments: 5, last_assessed_at: 2026-11-21T04:00:00Z}\n---\n");
    env.write_goal("fails", "---\nlabel: fails\nbudget: {escalate_after_failures: 2}\nprogress: {consecutive_failures: 2, last_assessed_at: 2026-11-21T04:00:00Z}\n---\n");
    let (code, report) = tick_json(&env);
    assert_eq!(code, 3);
    assert_eq!(
        report["needs_attention"],
        serde_json::json!(["at", "fails"])
    );
    assert_eq!(status(&env, "under"), "active");
    let at = env.goal_json("at");
    assert_eq!(at["status"], "blocked");
    assert_eq!(at["escalation"]["kind"], "budget");
    assert_eq!(env.goal_json("fails")["escalation"]["kind"], "failures");
}

#[test]
fn hard_bounds_fail_the_goal_for_good() {
    let mut env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "C",
            "--deadline",
            "2026-11-21T06:00:00Z",
        ])
        .assert()
        .success();
    env.write_goal("spent", "---\nlabel: spent\nbounds: {max_cost_usd: 10}\nprogress: {cost_usd: 10.5, last_assessed_at: 2026-11-21T04:00:00Z}\n---\n");
    env.set_now("2026-11-21T05:59:59Z");
    let (_, report) = tick_json(&env);
    assert_eq!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["to"] == "failed")
            .count(),
        1
    );
    env.set_now("2026-11-21T06:00:00Z");
    let (code, report) = tick_json(&env);
    assert_eq!(code, 3);
    assert_eq!(report["needs_attention"], serde_json::json!(["g"]));
    let g = env.goal_json("g");
    assert_eq!(g["status"], "failed");
    assert_eq!(g["closed_reason"], "deadline 2026-11-21T06:00:00Z passed");
    assert!(
        g["path"]
            .as_str()
            .unwrap()
            .starts_with("state/goals/closed/g-")
    );
    assert_eq!(
        env.goal_json("spent")["closed_reason"],
        "cost $10.50 exceeds max_cost_usd $10.00"
    );
    // Failed goals are terminal: the next pass neither sees nor reports them.
    let (code, report) = tick_json(&env);
    assert_eq!((code, report["checked"].as_u64()), (0, Some(0)));
}

#[test]
fn paused_goals_are_left_alone() {
    let env = TestEnv::initialised();
    let paused = "---\nlabel: p\nstatus: paused\nbounds: {max_iterations: 1}\nprogress: {assessments: 5}\n---\n";
    env.write("state/goals/p.md", paused);
    env.steward().arg("tick").assert().code(0);
    assert_eq!(env.read("state/goals/p.md"), paused);
}

#[test]
fn a_broken_goal_is_reported_and_the_pass_goes_on() {
    let env = TestEnv::initialised();
    env.write("state/goals/broken.md", "---\nlabel: [\n---\n");
    env.write_goal(
        "full",
        "---\nlabel: full\nbudget: {max_dispatches: 1}\nprogress: {dispatches: 1}\n---\n",
    );
    let (code, report) = tick_json(&env);
    assert_eq!(code, 1);
    assert_eq!(report["errors"][0]["path"], "state/goals/broken.md");
    assert_eq!(status(&env, "full"), "blocked");
    assert_eq!(env.read("state/goals/broken.md"), "---\nlabel: [\n---\n");
}

#[test]
fn disabled_tick_does_nothing_and_says_so() {
    let env = TestEnv::initialised();
    env.write_config("enabled: false\n");
    env.write(
        "state/goals/full.md",
        "---\nlabel: full\nbudget: {max_dispatches: 1}\nprogress: {dispatches: 1}\n---\n",
    );
    let before = env.snapshot();
    env.steward()
        .arg("tick")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("disabled"));
    env.assert_unchanged(&before);
}

#[test]
fn dry_run_reports_without_writing() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/full.md",
        "---\nlabel: full\nbudget: {max_dispatches: 1}\nprogress: {dispatches: 1}\n---\n",
    );
    let before = env.snapshot();
    env.steward()
        .args(["tick", "--dry-run"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("would: full: active -> blocked"));
    env.assert_unchanged(&before);
}

#[test]
fn the_mirror_keeps_hand_written_text_around_its_block() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let mirror = env.read("ACTIVE-TASKS.md");
    env.write(
        "ACTIVE-TASKS.md",
        &format!("Above, by hand.\n\n{mirror}\nBelow, by hand.\n"),
    );
    env.write_goal(
        "g",
        &env.read("state/goals/g.md")
            .replace("title: Goal g", "title: Edited by hand"),
    );
    env.steward().arg("tick").assert().success();
    let text = env.read("ACTIVE-TASKS.md");
    assert!(
        text.starts_with("Above, by hand.\n\n# Active Tasks\n"),
        "{text}"
    );
    assert!(
        text.ends_with("<!-- steward:end -->\n\nBelow, by hand.\n"),
        "{text}"
    );
    assert!(text.contains("Edited by hand"));
}

#[test]
fn file_exists_ticks_its_criterion_only() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "one",
            "--criterion",
            "two",
            "--criterion",
            "three",
        ])
        .args(["--verify", "file_exists:out/app.tar.gz@2"])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(0);
    let goal = env.goal_json("g");
    assert_eq!(goal["criteria"][1]["met"], false);
    let text = env.read("state/goals/g.md");
    assert!(
        text.contains("failures:\n      - \"file_exists out/app.tar.gz: missing\""),
        "{text}"
    );
    assert!(
        !text.contains("watchdog"),
        "a failing check writes no history line:\n{text}"
    );
    env.write("out/app.tar.gz", "x");
    let (code, report) = tick_json(&env);
    assert_eq!(code, 0);
    assert_eq!(report["findings"][0]["action"], "criterion_met");
    let met: Vec<bool> = env.goal_json("g")["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["met"].as_bool().unwrap())
        .collect();
    assert_eq!(met, [false, true, false]);
    assert_eq!(status(&env, "g"), "active");
}

#[test]
fn passing_checks_with_every_criterion_met_make_the_goal_verifying() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "one",
            "--criterion",
            "two",
        ])
        .args(["--verify", "file_exists:README@2"])
        .assert()
        .success();
    env.write("README", "x");
    env.steward()
        .args(["update", "g", "--check", "1"])
        .assert()
        .success();
    env.steward()
        .arg("tick")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("g: active -> verifying"));
    assert_eq!(status(&env, "g"), "verifying");
    let before = env.snapshot();
    env.steward().arg("tick").assert().code(0);
    env.assert_unchanged(&before);
    // A failed re-check sends it back.
    std::fs::remove_file(env.path("README")).unwrap();
    env.steward()
        .arg("tick")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "g: verifying -> active (re-check failed",
        ));
}

#[test]
fn a_check_that_escapes_the_root_is_an_error_and_changes_nothing() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "one",
            "--verify",
            "file_exists:../outside@1",
        ])
        .assert()
        .success();
    // What the pass saw, when it ran and its caches are machine state, not
    // a change to the store.
    let caches = env.path("state/cache");
    std::fs::remove_dir_all(&caches).unwrap();
    let before = env.snapshot();
    let (code, report) = tick_json(&env);
    assert_eq!(code, 1);
    assert!(
        report["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("g: check cannot run: file_exists ../outside:"),
        "{report}"
    );
    std::fs::remove_file(env.path("state/tick.json")).unwrap();
    let _ = std::fs::remove_dir_all(&caches);
    env.assert_unchanged(&before);
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("state/goals/g.md"));
}

#[test]
fn commands_run_only_when_the_operator_allows_them() {
    let env = TestEnv::initialised();
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "one",
            "--verify",
            "command_exit_zero:true@1",
        ])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(0);
    assert!(
        env.read("state/goals/g.md")
            .contains("verification.allow_commands is false")
    );
    assert_eq!(env.goal_json("g")["criteria"][0]["met"], false);
    // An agent cannot allow them through the environment.
    env.steward()
        .env("STEWARD_VERIFICATION_ALLOW_COMMANDS", "true")
        .arg("tick")
        .assert()
        .code(0);
    assert_eq!(env.goal_json("g")["criteria"][0]["met"], false);
    env.write_config("verification:\n  allow_commands: true\n");
    env.steward().arg("tick").assert().code(0);
    assert_eq!(status(&env, "g"), "verifying");
}

#[test]
fn a_hung_command_is_killed_at_its_timeout() {
    let env = TestEnv::initialised();
    env.write_config("verification:\n  allow_commands: true\n  command_timeout: 1s\n");
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "one",
            "--verify",
            "command_exit_zero:sleep 30@1",
        ])
        .assert()
        .success();
    let started = Instant::now();
    env.steward().arg("tick").assert().code(0);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert!(env.read("state/goals/g.md").contains("timed out after 1s"));
}

/// A one-route HTTP server on 127.0.0.1 answering every request with
/// `response`; returns its address and a receiver of the requests' heads.
fn serve(response: &'static str) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (sender, requests) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let _ = sender.send(head);
            let _ = stream.write_all(response.as_bytes());
            let mut rest = Vec::new();
            let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
            let _ = stream.read_to_end(&mut rest);
        }
    });
    (address, requests)
}

#[test]
fn http_ok_refuses_private_addresses_unless_allowed() {
    let env = TestEnv::initialised();
    let (address, _requests) =
        serve("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "up",
            "--verify",
            &format!("http_ok:http://{address}/health@1"),
        ])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(0);
    assert!(
        env.read("state/goals/g.md").contains("a private address"),
        "{}",
        env.read("state/goals/g.md")
    );
    assert_eq!(env.goal_json("g")["criteria"][0]["met"], false);
    env.write_config("verification:\n  allow_private_hosts: true\n");
    env.steward().arg("tick").assert().code(0);
    assert_eq!(status(&env, "g"), "verifying");
}

#[test]
fn pr_merged_asks_the_github_api_with_the_token() {
    let env = TestEnv::initialised();
    let body = r#"{"merged": true, "state": "closed"}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (address, requests) = serve(response.leak());
    env.write_config(&format!("verification:\n  github_api: http://{address}\n"));
    env.steward()
        .args([
            "add",
            "g",
            "--title",
            "T",
            "--criterion",
            "merged",
            "--verify",
            "pr_merged:acme/api#7@1",
        ])
        .assert()
        .success();
    let output = env
        .steward()
        .env("GITHUB_TOKEN", "s3cr3t-token")
        .args(["tick", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let head = requests.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(
        head.starts_with("GET /repos/acme/api/pulls/7 HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("authorization: bearer s3cr3t-token"),
        "{head}"
    );
    assert_eq!(status(&env, "g"), "verifying");
    for (path, bytes) in env.snapshot() {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("s3cr3t"),
            "the token leaked into {}",
            path.display()
        );
    }
    assert!(!String::from_utf8_lossy(&output.stdout).contains("s3cr3t"));
}

#[test]
fn quiet_tick_tells_only_what_needs_a_person_and_only_once() {
    let mut env = TestEnv::initialised();
    env.add_goal("idle");
    env.steward()
        .args(["add", "spent", "--title", "T", "--criterion", "C"])
        .args(["--max-assessments", "1"])
        .assert()
        .success();
    // Stalling is routine: nothing printed, exit 0.
    env.set_now("2026-11-21T04:30:00Z");
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(0)
        .stdout("");
    assert_eq!(status(&env, "idle"), "stalled");
    // The agent spends the budget: the goal blocks at once.
    env.steward()
        .args(["--actor", "agent", "assess", "spent", "--summary", "s"])
        .assert()
        .success();
    assert_eq!(status(&env, "spent"), "blocked");
    env.set_now("2026-11-21T04:35:00Z");
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(3)
        .stdout(predicate::str::starts_with("spent: blocked (budget: "))
        .stdout(predicate::str::contains("idle").not());
    // Still blocked at the next pass: said once, the exit status stays 3.
    env.set_now("2026-11-21T04:40:00Z");
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(3)
        .stdout("");
    // Released and blocked again: new again.
    env.steward()
        .args(["reset-budget", "spent"])
        .assert()
        .success();
    env.set_now("2026-11-21T04:45:00Z");
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(0)
        .stdout("");
    env.steward()
        .args(["--actor", "agent", "assess", "spent", "--summary", "s"])
        .assert()
        .success();
    env.set_now("2026-11-21T04:50:00Z");
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(3)
        .stdout(predicate::str::starts_with("spent: blocked"));
    // Without -q every pass still says what waits.
    env.steward()
        .arg("tick")
        .assert()
        .code(3)
        .stdout(predicate::str::contains("needs attention: spent"));
}

#[test]
fn a_goal_blocked_by_task_failures_is_a_finding_of_the_watchdog() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "deploy", "--title", "T", "--criterion", "C"])
        .args(["--escalate-after", "1"])
        .assert()
        .success();
    let mut child = std::process::Command::new("sleep")
        .arg("0")
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    env.steward()
        .args([
            "--actor",
            "agent",
            "task",
            "spawned",
            "--label",
            "deploy-tests",
        ])
        .args(["--pid", &pid.to_string()])
        .assert()
        .success();
    let events_before = env.events().len();
    let (code, report) = tick_json(&env);
    assert_eq!(code, 3, "{report}");
    let findings = report["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["label"] == "deploy" && f["action"] == "task_failed"),
        "{report}"
    );
    assert!(
        findings.iter().any(|f| f["label"] == "deploy"
            && f["action"] == "blocked"
            && f["to"] == "blocked"
            && f["reason"].as_str().unwrap().starts_with("failures: ")),
        "{report}"
    );
    // One goal changed; the obligation's line is not a second one.
    assert_eq!(report["changed"], 1, "{report}");
    assert_eq!(report["needs_attention"], serde_json::json!(["deploy"]));
    // Everything the pass did is the watchdog's, whoever ran it.
    let events = env.events();
    assert!(events.len() > events_before);
    for event in &events[events_before..] {
        assert_eq!(event["actor"], "watchdog", "{event}");
    }
}

#[test]
fn obligations_are_not_counted_as_goal_changes() {
    let mut env = TestEnv::initialised();
    env.steward()
        .args(["task", "spawned", "--label", "loose", "--timeout", "1m"])
        .assert()
        .success();
    env.set_now("2026-11-21T05:00:00Z");
    env.steward()
        .arg("tick")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("loose: running -> timeout"))
        .stdout(predicate::str::contains(
            "checked 0 goals at 2026-11-21T05:00:00Z, 0 changed",
        ));
}

#[test]
fn a_dry_run_runs_no_command() {
    let env = TestEnv::initialised();
    env.write_config("verification:\n  allow_commands: true\n");
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "one"])
        .args(["--verify", "command_exit_zero:touch ran@1"])
        .assert()
        .success();
    let before = env.snapshot();
    env.steward()
        .args(["tick", "--dry-run"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "g: command checks are not run in a dry run",
        ));
    assert!(!env.path("ran").exists(), "the dry run ran the command");
    env.assert_unchanged(&before);
    env.steward().arg("tick").assert().code(0);
    assert!(env.path("ran").exists());
}

#[test]
fn the_kill_switch_says_where_it_was_set() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .env("STEWARD_ENABLED", "false")
        .arg("tick")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "enabled: false, env STEWARD_ENABLED",
        ));
    env.steward()
        .env("STEWARD_ENABLED", "false")
        .arg("config")
        .assert()
        .stdout(predicate::str::is_match(r"(?m)^enabled = false +# env STEWARD_ENABLED$").unwrap());
    env.write_config("# off for the night\nenabled: false\n");
    env.steward()
        .arg("tick")
        .assert()
        .stdout(predicate::str::contains("enabled: false, steward.yaml:2"));
    // Nothing is dispatched while it is off, by steward or by the agent.
    let before = env.snapshot();
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "g",
            "--summary",
            "s",
            "--dispatched",
        ])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "assess without saying one was dispatched",
        ));
    env.assert_unchanged(&before);
    env.steward()
        .args(["--actor", "agent", "assess", "g", "--summary", "s"])
        .assert()
        .success();
    assert_eq!(env.goal_json("g")["progress"]["dispatches"], 0);
}

#[test]
fn a_check_slower_than_a_second_shows_a_progress_line_on_a_terminal() {
    let env = TestEnv::initialised();
    env.write_config("verification:\n  allow_commands: true\n");
    env.steward()
        .args(["add", "slow", "--title", "T", "--criterion", "c"])
        .args(["--verify", "command_exit_zero:sleep 1.5@1"])
        .assert()
        .success();
    // Not a terminal (cron, a pipe): nothing on stderr.
    env.steward().arg("tick").assert().code(0).stderr("");
    // On a terminal: `script` runs steward on a pseudo-terminal.
    let steward = assert_cmd::cargo::cargo_bin("steward");
    let output = env
        .program("script")
        .args(["-qec", &format!("{} tick", steward.display()), "/dev/null"])
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert!(
        screen.contains("\r\x1b[2Ksteward: checking command_exit_zero sleep 1.5 (1s; 0 of 1 done)"),
        "{screen:?}"
    );
    assert!(
        screen.contains("\r\x1b[2Kchecked 1 goal at"),
        "cleared before the report: {screen:?}"
    );
    // -q keeps it quiet.
    let output = env
        .program("script")
        .args([
            "-qec",
            &format!("{} tick -q", steward.display()),
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("checking"));
}
