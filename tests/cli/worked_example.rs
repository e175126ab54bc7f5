//! The seed design's worked example (section 9), end to end: register
//! deploy-api, heartbeats, subagent results, verification, completion.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::TestEnv;

/// A fake GitHub API whose pull request is merged once `merged` is set.
fn fake_github(merged: Arc<AtomicBool>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let body = if merged.load(Ordering::SeqCst) {
                r#"{"merged": true, "state": "closed"}"#
            } else {
                r#"{"merged": false, "state": "open"}"#
            };
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
            let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
            let _ = stream.read_to_end(&mut Vec::new());
        }
    });
    address
}

struct Timeline {
    env: TestEnv,
}

impl Timeline {
    fn at(&mut self, minutes: u32) -> &TestEnv {
        self.env.set_now(&format!(
            "2026-11-21T{:02}:{:02}:00Z",
            4 + minutes / 60,
            minutes % 60
        ));
        &self.env
    }

    fn agent(&self, args: &[&str]) -> String {
        let output = self
            .env
            .steward()
            .arg("--actor")
            .arg("agent")
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "steward {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn heartbeat(&self) -> String {
        self.agent(&["prompt", "--message", "Read HEARTBEAT.md and follow it."])
    }

    fn goal(&self) -> serde_json::Value {
        self.env.goal_json("deploy-api")
    }

    fn met(&self) -> Vec<bool> {
        self.goal()["criteria"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["met"].as_bool().unwrap())
            .collect()
    }

    fn obligation_id(&self, label: &str) -> String {
        let output = self
            .env
            .steward()
            .args(["tasks", "--all", "--json"])
            .output()
            .unwrap();
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let found = document["obligations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["label"] == label)
            .unwrap()
            .clone();
        found["id"].as_str().unwrap().to_string()
    }
}

#[test]
fn deploy_api_from_request_to_completion() {
    let merged = Arc::new(AtomicBool::new(false));
    let api = fake_github(merged.clone());
    let mut t = Timeline {
        env: TestEnv::initialised(),
    };
    t.env
        .write_config(&format!("verification:\n  github_api: http://{api}\n"));

    // T=0: the user asks; the agent registers the goal, unconfirmed (a
    // high goal is a person's to confirm), and the user confirms it.
    t.at(0);
    t.agent(&[
        "add",
        "deploy-api",
        "--title",
        "Deploy the new API to production",
        "--description",
        "Run all tests, fix any failures, create a PR, get it merged, then deploy.",
        "--criterion",
        "All tests pass",
        "--criterion",
        "Any test failures are fixed",
        "--criterion",
        "Pull request created",
        "--criterion",
        "Pull request merged",
        "--criterion",
        "Deployed to production",
        "--priority",
        "high",
        "--verify",
        "pr_merged:acme/api#42@4",
    ]);
    assert_eq!(t.goal()["confirmed"], false);
    t.env
        .steward()
        .args(["confirm", "deploy-api"])
        .assert()
        .success();
    assert_eq!(t.goal()["status"], "active");
    assert_eq!(t.goal()["confirmed"], true);

    // T=5: heartbeat. The goal was never assessed: the block offers it.
    t.at(5);
    let block = t.heartbeat();
    assert!(
        block.contains("<goal-stewardship goal=\"deploy-api\">"),
        "{block}"
    );
    assert!(block.contains("Last assessment: never"));
    assert!(block.contains("1. [unmet] All tests pass"));
    t.agent(&[
        "task",
        "spawned",
        "--label",
        "deploy-api-tests",
        "--agent",
        "test-runner",
        "--summary",
        "run the test suite",
    ]);
    t.agent(&[
        "assess",
        "deploy-api",
        "--summary",
        "Dispatched test-runner subagent",
        "--dispatched",
    ]);
    assert_eq!(t.goal()["progress"]["dispatches"], 1);
    // Within the cooldown the next heartbeat has nothing new for this goal.
    t.at(10);
    assert!(!t.heartbeat().contains("<goal-stewardship"));

    // T=12: the subagent ends: tests passed.
    t.at(12);
    t.agent(&[
        "task",
        "ended",
        "--label",
        "deploy-api-tests",
        "--outcome",
        "ok",
        "--detail",
        "all 412 tests passed",
    ]);
    assert!(
        t.env
            .read("state/goals/deploy-api.md")
            .contains("agent task: deploy-api-tests (")
    );
    assert_eq!(
        t.goal()["status"],
        "active",
        "every linked task succeeded, which is not the judge's word"
    );

    // T=15: heartbeat. The result is ready and must be delivered first; the
    // goal still has unmet criteria.
    t.at(15);
    let block = t.heartbeat();
    let tests_id = t.obligation_id("deploy-api-tests");
    assert!(
        block.contains(&format!(
            "- [ARRIVED] deploy-api-tests ({tests_id}, agent test-runner, goal deploy-api"
        )),
        "{block}"
    );
    assert!(block.contains("1. [unmet] All tests pass"), "{block}");
    t.agent(&[
        "task",
        "resolve",
        "--message",
        &format!("All tests pass. [DELIVER:{tests_id}]"),
    ]);
    t.agent(&[
        "assess",
        "deploy-api",
        "--summary",
        "tests pass, nothing to fix",
        "--next",
        "create the PR",
        "--met",
        "1",
        "--met",
        "2",
        "--outcome",
        "ok",
    ]);
    t.agent(&[
        "task",
        "spawned",
        "--label",
        "deploy-api-pr",
        "--agent",
        "pr-writer",
    ]);
    assert_eq!(
        t.goal()["status"],
        "active",
        "new work sends it back to active"
    );
    assert_eq!(t.met(), [true, true, false, false, false]);

    // T=25: the PR subagent ends.
    t.at(25);
    t.agent(&[
        "task",
        "ended",
        "--label",
        "deploy-api-pr",
        "--outcome",
        "ok",
        "--detail",
        "opened acme/api#42",
    ]);

    // T=30: heartbeat: PR open, awaiting review.
    t.at(30);
    let block = t.heartbeat();
    assert!(block.contains("- [ARRIVED] deploy-api-pr"), "{block}");
    let pr_id = t.obligation_id("deploy-api-pr");
    t.agent(&["task", "deliver", &pr_id]);
    t.agent(&[
        "assess",
        "deploy-api",
        "--summary",
        "PR #42 open, awaiting review",
        "--next",
        "wait for review",
        "--met",
        "3",
    ]);

    // T=35: the watchdog. Assessed 5 minutes ago: not stale. The PR is not
    // merged, so the goal is not verified.
    t.at(35);
    let output = t.env.steward().args(["tick", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let actions: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap())
        .collect();
    assert!(
        actions.iter().all(|a| *a == "active"),
        "only the re-check moves it: {report}"
    );
    assert_eq!(t.goal()["status"], "active");
    assert!(
        t.env
            .read("state/goals/deploy-api.md")
            .contains("not merged (state: open)")
    );

    // Cron runs the watchdog every 5 minutes. Nobody assesses for 20 minutes
    // (2 × cooldown): the goal stalls at T=50.
    for minute in [40, 45, 50, 55] {
        t.at(minute);
        t.env.steward().args(["tick", "-q"]).assert().code(0);
    }
    assert_eq!(t.goal()["status"], "stalled");

    // T=60: the PR is merged; the watchdog's check ticks criterion 4, then
    // the heartbeat says to deploy (and that the goal had stalled).
    merged.store(true, Ordering::SeqCst);
    t.at(60);
    t.env.steward().arg("tick").assert().code(0);
    assert_eq!(t.met(), [true, true, true, true, false]);
    let block = t.heartbeat();
    assert!(block.contains("4. [met] Pull request merged"), "{block}");
    assert!(
        block.contains("- deploy-api is stalled (last assessed 30m ago)"),
        "{block}"
    );
    t.agent(&[
        "task",
        "spawned",
        "--label",
        "deploy-api-deploy",
        "--agent",
        "deployer",
    ]);
    t.agent(&[
        "assess",
        "deploy-api",
        "--summary",
        "PR merged; deploying",
        "--dispatched",
    ]);

    // T=70: the deploy succeeds: every linked task succeeded, and the goal
    // is still the judge's to close.
    t.at(70);
    t.agent(&[
        "task",
        "ended",
        "--label",
        "deploy-api-deploy",
        "--outcome",
        "ok",
        "--detail",
        "v2 live",
    ]);
    assert_eq!(t.goal()["status"], "active");

    // T=75: heartbeat: the judge. Refused without evidence for criterion 5,
    // accepted with it.
    t.at(75);
    let block = t.heartbeat();
    assert!(
        block.contains("steward --actor agent complete deploy-api --reason"),
        "{block}"
    );
    t.env
        .steward()
        .args([
            "--actor",
            "agent",
            "complete",
            "deploy-api",
            "--reason",
            "looks done",
        ])
        .assert()
        .code(4);
    let deploy_id = t.obligation_id("deploy-api-deploy");
    t.agent(&["task", "deliver", &deploy_id]);
    t.agent(&[
        "complete",
        "deploy-api",
        "--reason",
        "tests, PR #42 and the deploy all done",
        "--met",
        "5",
    ]);

    // The user wakes up.
    let goal = t.goal();
    assert_eq!(goal["status"], "completed");
    assert_eq!(
        goal["closed_reason"],
        "tests, PR #42 and the deploy all done"
    );
    t.env
        .steward()
        .args(["show", "deploy-api", "--exit-status", "-q"])
        .assert()
        .code(0);
    let listed = String::from_utf8(
        t.env
            .steward()
            .args(["list", "--all"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let words = listed.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("deploy-api completed high 5/5 1h Deploy the new API to production"),
        "{listed}"
    );
    assert_eq!(t.heartbeat(), "", "nothing left to do");
    assert!(!t.env.read("ACTIVE-TASKS.md").contains("deploy-api"));
}
