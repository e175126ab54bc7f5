//! steward-guide(7), "AGENT RUNS", stalls: a run that shows no sign of
//! life for `dispatch.stall_after` is stopped as stalled and sent again
//! with a note saying where it stopped; one that only retries a request
//! its rate limit refused is a usage limit; one whose tools work without
//! printing is alive. The agent is a script that really streams.

use crate::common::TestEnv;

const AGENT: &str = r#"#!/bin/sh
instruction=$(cat)
printf '%s' "$instruction" > "instruction-$STEWARD_DISPATCH_ID.txt"
printf '%s' "${CLAUDE_CODE_RETRY_WATCHDOG:-unset}" > "watchdog-$STEWARD_DISPATCH_ID.txt"
case "$STEWARD_GOAL" in
  silent-*)
    echo '{"type":"system","subtype":"init","session_id":"s-silent"}'
    echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Bash","input":{"command":"curl https://flaky.example/"}}],"usage":{"input_tokens":10}}}'
    sleep 600
    ;;
  retry-*)
    while :; do
      echo '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":300,"error_status":429,"error":"rate_limit"}'
      sleep 0.3
    done
    ;;
  busy-*)
    # Three seconds of work that prints nothing, on a busy processor.
    end=$(( $(date +%s) + 3 ))
    while [ "$(date +%s)" -lt "$end" ]; do :; done
    echo '{"type":"result","subtype":"success","is_error":false,"result":"built it","session_id":"s-busy","total_cost_usd":0}'
    ;;
esac
"#;

const CONFIG: &str = "dispatch:
  enabled: true
  agent: fake
  timeout: 1m
  stall_after: 2s
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
";

fn store(label: &str) -> TestEnv {
    let env = TestEnv::initialised();
    env.write_config(CONFIG);
    env.executable("agent.sh", AGENT);
    env.steward()
        .args(["add", label, "--title", label, "--criterion", "it is done"])
        .assert()
        .success();
    env
}

fn tick(env: &TestEnv) {
    env.steward_on_path()
        .env("CLAUDE_CODE_RETRY_WATCHDOG", "1")
        .args(["tick", "-q"])
        .assert()
        .success();
}

#[test]
fn a_silent_run_is_stopped_as_stalled_and_sent_again_told_where_it_stopped() {
    let mut env = store("silent-1");
    tick(&env);
    // While it runs, `runs` says when it last printed.
    let started = std::time::Instant::now();
    while !env.runs()[0]["last_output_at"].is_string() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            env.runs()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "stalled", "{run}");
    let result = run["result"].as_str().unwrap();
    assert!(
        result.starts_with(
            "stalled: no sign of life for 2s after: assistant tool_use Bash: curl https://flaky.example/"
        ),
        "{result}"
    );
    // The clients' own retry settings are not inherited.
    let id = run["id"].as_str().unwrap();
    assert_eq!(env.read(&format!("watchdog-{id}.txt")), "unset");

    // The next pass after the backoff sends it again, with the note.
    env.set_now("2026-11-21T05:00:00Z");
    tick(&env);
    env.settle();
    let runs = env.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1]["kind"], "resend", "{}", runs[1]);
    let told = env.read(&format!(
        "instruction-{}.txt",
        runs[1]["id"].as_str().unwrap()
    ));
    assert!(
        told.contains("The last run on this goal stalled and was stopped (stalled: no sign of life for 2s after: assistant tool_use Bash: curl https://flaky.example/)"),
        "{told}"
    );
}

#[test]
fn a_run_that_only_retries_a_refused_request_is_limited_not_stalled() {
    let env = store("retry-1");
    tick(&env);
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "limited", "{run}");
    assert!(
        run["result"]
            .as_str()
            .unwrap()
            .starts_with("limited: it only retried requests its rate limit refused for 2s"),
        "{run}"
    );
}

#[test]
fn a_run_whose_tools_work_without_printing_is_alive() {
    let env = store("busy-1");
    tick(&env);
    env.settle();
    let run = &env.runs()[0];
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["result"], "built it");
}
