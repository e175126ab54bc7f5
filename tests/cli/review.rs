//! The review loop on GitHub (steward-guide(7), "CI on GitHub"):
//! `ci_green` against a loopback server that speaks the REST endpoints
//! steward uses, with bodies shaped as GitHub documents them.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::TestEnv;

const TOKEN: &str = "ghs_s3cr3tT0ken";

/// A GitHub REST API on 127.0.0.1: answers `GET …/check-runs` and
/// `GET …/status` for any commit with the check runs and statuses it is
/// given, `GET …/pulls/N` with a head commit; keeps every request head.
struct Github {
    address: String,
    check_runs: Arc<Mutex<String>>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Github {
    fn start() -> Github {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let check_runs = Arc::new(Mutex::new(String::new()));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (runs, seen) = (check_runs.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                stream
                    .set_read_timeout(Some(Duration::from_secs(10)))
                    .unwrap();
                let mut head = Vec::new();
                let mut byte = [0];
                while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split(' ').nth(1).unwrap_or_default().to_string();
                seen.lock().unwrap().push(head);
                let body = if path.contains("/check-runs") {
                    let runs = runs.lock().unwrap().clone();
                    format!(r#"{{"total_count": 1, "check_runs": [{runs}]}}"#)
                } else if path.contains("/status") {
                    r#"{"state": "pending", "total_count": 0, "statuses": []}"#.to_string()
                } else {
                    r#"{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}"#
                        .to_string()
                };
                let status = if body.contains("Not Found") {
                    "404 Not Found"
                } else {
                    "200 OK"
                };
                let _ = stream.write_all(
                    format!(
                        "HTTP/1.1 {status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            }
        });
        Github {
            address,
            check_runs,
            requests,
        }
    }

    /// What the check runs of every commit are from now on: one run
    /// named `unit-tests`, as GitHub Actions reports a job.
    fn unit_tests(&self, status: &str, conclusion: Option<&str>, summary: &str) {
        let conclusion = conclusion.map_or("null".to_string(), |c| format!("\"{c}\""));
        *self.check_runs.lock().unwrap() = format!(
            r#"{{"id": 4, "head_sha": "0123456789abcdef0123456789abcdef01234567", "name": "unit-tests",
                "status": "{status}", "conclusion": {conclusion},
                "started_at": "2026-11-21T04:00:00Z", "completed_at": null,
                "output": {{"title": "{summary}", "summary": "{summary}",
                           "text": "running 3 tests\ntest login ... FAILED\nerror: token {TOKEN} rejected\nassertion failed: the session is kept", "annotations_count": 0}},
                "app": {{"slug": "github-actions"}}}}"#
        );
    }
}

const AGENT: &str = "#!/bin/sh\n{ echo \"=== run\"; cat; } >> instructions.log\n";

fn store(github: &Github) -> TestEnv {
    let env = TestEnv::initialised();
    env.executable("agent.sh", AGENT);
    env.write_config(&format!(
        "verification:\n  github_api: http://{}\ndispatch:\n  enabled: true\n  agent: fake\n  timeout: 1m\n  pass_at_run_end: false\nagents:\n  fake:\n    command: [./agent.sh]\n    output: text\n",
        github.address
    ));
    env.steward().args(["config", "accept"]).assert().success();
    env.steward()
        .args(["add", "login", "--title", "Fix the login tests"])
        .args(["--criterion", "CI is green on main"])
        .args(["--verify", "ci_green:acme/app@main@1"])
        .assert()
        .success();
    env
}

fn tick(env: &TestEnv, now: &str) -> String {
    let output = env
        .steward()
        .env("GITHUB_TOKEN", TOKEN)
        .env("STEWARD_NOW", now)
        .args(["tick"])
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let started = Instant::now();
    while env
        .runs()
        .iter()
        .any(|r| matches!(r["state"].as_str(), Some("pending" | "running")))
    {
        assert!(started.elapsed().as_secs() < 60, "the run never ended");
        std::thread::sleep(Duration::from_millis(50));
    }
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// CI running: the goal waits at no cost. CI red: the next run is told
/// which check fails and what it said. CI green: the judge's check passes.
/// The token is sent to the API and written nowhere.
#[test]
fn ci_green_waits_for_ci_tells_the_next_run_what_failed_and_passes_when_green() {
    let github = Github::start();
    let env = store(&github);
    github.unit_tests("in_progress", None, "");
    tick(&env, "2026-11-21T04:00:00Z");
    assert!(env.runs().is_empty(), "a run started while CI ran");
    let why = env.steward().args(["why", "login"]).output().unwrap();
    let why = String::from_utf8_lossy(&why.stdout);
    assert!(
        why.contains("its checks wait for CI: ci_green acme/app@main: pending: CI running: unit-tests (0 of 1 done)"),
        "{why}"
    );
    let shown = env.goal_json("login");
    assert_eq!(shown["status"], "active", "{shown}");

    github.unit_tests("completed", Some("failure"), "1 test failed: login");
    tick(&env, "2026-11-21T04:05:00Z");
    let told = env.read("instructions.log");
    assert_eq!(told.matches("=== run").count(), 1, "{told}");
    assert!(
        told.contains("failing: ci_green acme/app@main: failing: unit-tests — unit-tests: failure: 1 test failed: login"),
        "{told}"
    );
    assert!(
        told.contains("assertion failed: the session is kept"),
        "{told}"
    );
    assert!(told.contains("token <redacted> rejected"), "{told}");

    github.unit_tests("completed", Some("success"), "all passed");
    tick(&env, "2026-11-21T04:10:00Z");
    let shown = env.goal_json("login");
    assert_eq!(shown["status"], "verifying", "{shown}");
    assert_eq!(shown["criteria"][0]["met"], true, "{shown}");

    let requests = github.requests.lock().unwrap().clone();
    assert!(
        requests.iter().any(|r| r
            .starts_with("GET /repos/acme/app/commits/main/check-runs?per_page=100 HTTP/1.1\r\n")),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| r.to_ascii_lowercase().contains(&format!(
                "authorization: bearer {}",
                TOKEN.to_ascii_lowercase()
            )))
    );
    for (path, bytes) in env.snapshot() {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "the token leaked into {}",
            path.display()
        );
    }
}
