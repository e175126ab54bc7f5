//! steward-guide(7), "NOTHING LOST BETWEEN SESSIONS": the goal's record,
//! handoffs, and episodes appended to a memory file.

use predicates::prelude::*;

use crate::common::TestEnv;

fn with_record() -> TestEnv {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "api", "--title", "Ship the API"])
        .args([
            "--criterion",
            "GET /health answers 200",
            "--criterion",
            "Runbook written",
        ])
        .args([
            "--owner",
            "ops@example.com",
            "--origin",
            "https://example.com/issues/7",
        ])
        .args(["--constraint", "no downtime", "--non-goal", "rewrite auth"])
        .args(["--risk", "the prod token expires"])
        .assert()
        .success();
    env
}

#[test]
fn the_goal_record_is_kept_shown_and_a_persons_to_change() {
    let env = with_record();
    let goal = env.goal_json("api");
    assert_eq!(goal["owner"], "ops@example.com");
    assert_eq!(goal["origin"], "https://example.com/issues/7");
    assert_eq!(goal["constraints"][0], "no downtime");
    assert_eq!(goal["non_goals"][0], "rewrite auth");
    assert_eq!(goal["risks"][0], "the prod token expires");
    let text = env.read("state/goals/api.md");
    assert!(text.contains("owner: ops@example.com\n"), "{text}");
    env.steward()
        .args(["show", "api"])
        .assert()
        .stdout(predicate::str::contains("Constraints: no downtime"));
    env.steward()
        .args(["plan", "prompt", "api"])
        .assert()
        .stdout(predicate::str::contains("\"no downtime\""))
        .stdout(predicate::str::contains("not a goal: rewrite auth"));
    env.steward()
        .args(["prompt", "--heartbeat"])
        .assert()
        .stdout(predicate::str::contains("Owner: ops@example.com"));
    // An agent cannot redefine who is told or what is ruled out.
    env.steward()
        .args(["--actor", "agent", "update", "api", "--owner", "me"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "steward update api --owner \"me\"",
        ));
    env.steward()
        .args(["update", "api", "--constraint", "", "--owner", ""])
        .assert()
        .success();
    let goal = env.goal_json("api");
    assert!(goal["owner"].is_null() && goal["constraints"].as_array().unwrap().is_empty());
    assert!(
        !env.read("state/goals/api.md").contains("\nowner:"),
        "the key is gone"
    );
}

#[test]
fn a_handoff_round_trips_and_the_next_session_starts_from_it() {
    let env = with_record();
    let handoff = r##"{
      "summary": "route added; tests pass",
      "current_state": "handler merged, not deployed",
      "decisions": [{"decision": "use axum", "rationale": "already a dependency"}],
      "next_actions": ["deploy to staging", "run the smoke tests"],
      "open_questions": ["who owns the prod token?"],
      "blockers": [],
      "evidence": {"files": ["src/health.rs"], "tests": ["cargo test health"], "commits": ["4f2c1aa"], "prs": ["#12"], "urls": ["https://ci.example.com/1"]}
    }"##;
    env.steward()
        .args(["--actor", "agent", "handoff", "api", "--from-json", "-"])
        .write_stdin(handoff)
        .assert()
        .success()
        .stdout("api: handoff recorded\n");
    let goal = env.goal_json("api");
    assert_eq!(goal["handoff"]["next_actions"][1], "run the smoke tests");
    assert_eq!(
        goal["handoff"]["decisions"][0]["rationale"],
        "already a dependency"
    );
    assert_eq!(goal["handoff"]["by"], "agent");
    assert_eq!(goal["handoff"]["evidence"]["prs"][0], "#12");
    // The next heartbeat and the next run's instruction start from it.
    env.steward()
        .args(["prompt", "--heartbeat"])
        .env("STEWARD_NOW", "2026-11-22T04:00:00Z")
        .assert()
        .stdout(predicate::str::contains("Next: deploy to staging"))
        .stdout(predicate::str::contains(
            "Open question: who owns the prod token?",
        ));
    env.write_config(
        "dispatch:\n  enabled: true\n  agent: quiet\nagents:\n  quiet:\n    command: [\"true\"]\n    output: text\n",
    );
    env.steward()
        .args(["dispatch", "api"])
        .env("STEWARD_NOW", "2026-11-22T04:00:00Z")
        .assert()
        .success();
    let prompt = std::fs::read_dir(env.path("state/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "prompt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap();
    assert!(prompt.contains("Next: run the smoke tests"), "{prompt}");
    assert!(
        prompt.contains("Decided: use axum (because already a dependency)"),
        "{prompt}"
    );
    // Every handoff is in the event log.
    let events = env.events();
    let logged = events.iter().find(|e| e["action"] == "handoff").unwrap();
    assert_eq!(logged["handoff"]["summary"], "route added; tests pass");
    // The same object rides on a structured update.
    let update = r#"{"overseerUpdate": {"summary": "deployed to staging"}, "handoff": {"summary": "staging is up", "next_actions": ["deploy to production"]}}"#;
    env.steward()
        .args(["--actor", "agent", "assess", "api", "--from-json", "-"])
        .env("STEWARD_NOW", "2026-11-22T05:00:00Z")
        .write_stdin(update)
        .assert()
        .success();
    assert_eq!(
        env.goal_json("api")["handoff"]["next_actions"][0],
        "deploy to production"
    );
    // A session that starts while the goal cools down after that
    // assessment (no heartbeat block) still gets the handoff with the goal.
    env.steward()
        .args(["prompt", "--heartbeat"])
        .env("STEWARD_NOW", "2026-11-22T05:01:00Z")
        .assert()
        .stdout("");
    let session_start = r#"{"hook_event_name": "SessionStart", "session_id": "s2"}"#;
    env.steward()
        .args(["hook", "claude-code"])
        .env("STEWARD_NOW", "2026-11-22T05:01:00Z")
        .write_stdin(session_start)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Last handoff (2026-11-22T05:00:00Z by agent): staging is up — next: deploy to production",
        ));
}

#[test]
fn a_handoff_that_is_not_valid_writes_nothing() {
    let env = with_record();
    let before = env.snapshot();
    let long = "x".repeat(64 * 1024 + 1);
    for (json, message) in [
        (
            "{\"summary\": \"s\", \"mood\": \"good\"}",
            "unknown field `mood`",
        ),
        ("{\"next_actions\": [\"a\"]}", "missing field `summary`"),
        ("{\"summary\": \"  \"}", "summary: empty"),
        (
            &format!("{{\"summary\": \"{long}\"}}"),
            "summary: 65537 bytes: at most 64 KiB",
        ),
        (
            &format!(
                "{{\"summary\": \"s\", \"next_actions\": [{}]}}",
                vec!["\"a\""; 51].join(",")
            ),
            "next_actions: 51 items: at most 50",
        ),
        (
            "{\"summary\": \"s\", \"by\": \"person\"}",
            "`at` and `by` are steward's",
        ),
        (
            "{\"summary\": \"s\", \"evidence\": {\"screens\": []}}",
            "unknown field `screens`",
        ),
        ("not json", "expected ident"),
    ] {
        env.steward()
            .args(["handoff", "api", "--from-json", "-"])
            .write_stdin(json.to_string())
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    env.steward()
        .args(["handoff", "api", "--node", "P1", "--summary", "s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no plan node P1"));
    env.assert_unchanged(&before);
}

#[test]
fn every_way_a_goal_ends_appends_an_episode_and_keeps_what_was_written() {
    let env = TestEnv::initialised();
    env.write_config(
        "episodes:\n  path: memory/{date}.md\nverification:\n  allow_commands: true\n",
    );
    let memory = "# Memory\n\nHand-written: the staging box is slow on Mondays.\n";
    env.write("memory/2026-11-21.md", memory);
    for (label, extra) in [
        ("done", vec![]),
        ("bounded", vec!["--max-iterations", "1"]),
        ("dropped", vec![]),
    ] {
        env.steward()
            .args([
                "add",
                label,
                "--title",
                &format!("Goal {label}"),
                "--criterion",
                "it holds",
            ])
            .args(["--owner", "ops@example.com"])
            .args(extra)
            .assert()
            .success();
    }
    env.steward()
        .args([
            "handoff",
            "done",
            "--summary",
            "finished",
            "--decision",
            "ship on Tuesday",
            "--rationale",
            "Mondays are slow",
        ])
        .assert()
        .success();
    env.steward()
        .args([
            "--actor", "agent", "complete", "done", "--reason", "it holds", "--met", "1",
        ])
        .assert()
        .success();
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "bounded",
            "--summary",
            "tried once",
        ])
        .assert()
        .code(3);
    env.steward()
        .args(["abandon", "dropped", "--reason", "not needed any more"])
        .assert()
        .success();
    let text = env.read("memory/2026-11-21.md");
    assert!(
        text.starts_with(memory),
        "hand-written text kept byte for byte:\n{text}"
    );
    for heading in [
        "— done completed",
        "— bounded failed",
        "— dropped abandoned",
    ] {
        assert!(text.contains(heading), "{heading}:\n{text}");
    }
    assert!(
        text.contains("Goal done (`done`, owner ops@example.com)."),
        "{text}"
    );
    assert!(
        text.contains("- Why: it holds\n- Judged by agent: 1 of 1 criteria met, 1 on the agent's word\n  - criterion 1 (it holds): on the agent's word"),
        "the reason and the evidence: {text}"
    );
    assert!(
        text.contains("- Decided: ship on Tuesday (because Mondays are slow)"),
        "{text}"
    );
    assert!(text.contains("- Why: not needed any more"), "{text}");
    assert_eq!(text.matches("\n## ").count(), 3, "{text}");
}
