//! `steward forecast`: from the store's own runs, the runs each workable
//! goal likely needs, their cost and when the last ends, checked against
//! a hand computation; "unknown" on a store without history.

use crate::common::TestEnv;

/// Each run ticks the goal's next criterion and reports $0.50.
const AGENT: &str = r#"#!/bin/sh
cat > /dev/null
echo x >> "done-$STEWARD_GOAL"
n=$(wc -l < "done-$STEWARD_GOAL")
steward update "$STEWARD_GOAL" --check "$n" -q
echo '{"type":"result","subtype":"success","is_error":false,"result":"one more","session_id":"s-'"$STEWARD_DISPATCH_ID"'","total_cost_usd":0.5}'
"#;

const CONFIG: &str = "dispatch:
  enabled: true
  agent: fake
  max_parallel: 1
  pass_at_run_end: false
agents:
  fake:
    command: [./agent.sh]
    output: claude-json
";

fn add(env: &TestEnv, label: &str, criteria: usize) {
    let mut add = env.steward();
    add.args(["add", label, "--title", label, "--cooldown", "1m"]);
    for n in 1..=criteria {
        add.args(["--criterion", &format!("part {n}")]);
    }
    add.assert().success();
}

fn forecast(env: &TestEnv, args: &[&str]) -> serde_json::Value {
    let output = env
        .steward()
        .args(["forecast", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_forecast_matches_a_hand_computation_from_the_runs() {
    let mut env = TestEnv::initialised();
    env.write_config(CONFIG);
    env.executable("agent.sh", AGENT);
    add(&env, "a-api", 4);
    // Two runs of a-api, ten minutes apart: each meets one criterion.
    for now in ["2026-11-21T04:00:00Z", "2026-11-21T04:10:00Z"] {
        env.set_now(now);
        env.tick_and_settle();
    }
    add(&env, "b-docs", 3);
    env.set_now("2026-11-21T04:20:00Z");
    let json = forecast(&env, &["--by", "2026-11-21T04:21:30Z"]);
    let goals = json["goals"].as_array().unwrap();
    // a-api: 2 runs met 2 criteria, 2 unmet: 2 more runs at $0.50. Its
    // last run was at 04:10, cooled down since: runs at 04:20 and 04:21
    // (its cooldown), each taking no time on the test's fixed clock.
    assert_eq!(goals[0]["label"], "a-api");
    assert_eq!(goals[0]["runs"], 2, "{json}");
    assert_eq!(goals[0]["cost_usd"], 1.0);
    assert_eq!(goals[0]["finish"], "2026-11-21T04:21:00Z");
    assert_eq!(goals[0]["basis"], "from 2 runs of this goal");
    // b-docs: no run of its own, so the store's rate, 2 runs for 2
    // criteria: 3 runs for its 3, at 04:20, 04:21 and 04:22.
    assert_eq!(goals[1]["runs"], 3);
    assert_eq!(goals[1]["cost_usd"], 1.5);
    assert_eq!(goals[1]["finish"], "2026-11-21T04:22:00Z");
    assert_eq!(
        goals[1]["basis"],
        "no run of its own met a criterion: from 2 runs of this store"
    );
    assert_eq!(json["cost_usd"], 2.5);
    assert_eq!(json["cap_reached"], serde_json::Value::Null);
    assert_eq!(json["late"], serde_json::json!(["b-docs"]));
    // In one line where a person looks before the night.
    let line = "forecast: 2 workable goals, 5 more runs, $2.50, the last done about 2026-11-21T04:22:00Z (steward forecast)";
    for args in [&["status"][..], &["tick", "--dry-run"], &["digest"]] {
        let output = env.steward_on_path().args(args).output().unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(said.contains(line), "{args:?}: {said}");
    }

    // And on the page.
    let dir = tempfile::tempdir().unwrap();
    env.steward()
        .args(["report", "--html"])
        .arg(dir.path())
        .assert()
        .success();
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        html.contains("<li><a href=\"#goal-b-docs\">b-docs</a>: 3 more runs, $1.50, done about <time datetime=\"2026-11-21T04:22:00Z\">2026-11-21 04:22</time></li>"),
        "{html}"
    );

    // A spend cap that $1.00 spent and $1.50 more would pass: reached as
    // the fourth run would start.
    env.write_config(&CONFIG.replace(
        "  max_parallel: 1\n",
        "  max_parallel: 1\n  max_cost_usd_per_day: 2.5\n",
    ));
    env.steward()
        .args(["config", "accept", "-q"])
        .assert()
        .success();
    let capped = forecast(&env, &[]);
    assert_eq!(capped["cap_reached"], "2026-11-21T04:21:00Z", "{capped}");
    assert_eq!(capped["goals"][1]["finish"], serde_json::Value::Null);

    let text = env
        .steward()
        .args(["forecast", "--by", "07:00"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(
            "a-api: 2 more runs, $1.00, done about 2026-11-21T04:21:00Z (from 2 runs of this goal)"
        ),
        "{text}"
    );
    assert!(
        text.contains("the day's spend cap ($2.50) is reached about 2026-11-21T04:21:00Z"),
        "{text}"
    );
    assert!(text.contains("a forecast is not a promise"), "{text}");
    // The morning's page sets the forecast a person asked for beside what
    // happened since: here one more run of a-api.
    env.set_now("2026-11-21T04:21:00Z");
    env.tick_and_settle();
    env.steward()
        .args(["report", "--html"])
        .arg(dir.path())
        .assert()
        .success();
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        html.contains("<h3>The forecast of <time datetime=\"2026-11-21T04:20:00Z\">2026-11-21 04:20</time>, against what happened</h3>"),
        "{html}"
    );
    assert!(
        html.contains("<li>a-api: forecast 2 runs, $1.00, done about <time datetime=\"2026-11-21T04:21:00Z\">2026-11-21 04:21</time>; since: 1 run, $0.50, still stalled</li>"),
        "{html}"
    );
}

#[test]
fn without_history_the_forecast_says_unknown() {
    let env = TestEnv::initialised();
    add(&env, "fresh", 2);
    let json = forecast(&env, &[]);
    assert_eq!(json["goals"][0]["runs"], serde_json::Value::Null);
    assert_eq!(
        json["goals"][0]["basis"],
        "unknown: no run of this store has met a criterion yet"
    );
    let text = env.steward().args(["forecast"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout)
            .contains("fresh: 2 criteria unmet, runs needed unknown (unknown: no run of this store has met a criterion yet)")
    );
}
