//! steward-guide(7), "The MCP server": `steward mcp` driven by a real MCP
//! client no one here wrote: the official Python SDK (`pip install mcp`),
//! through `tests/mcp/client.py`. Where the package is missing, each test
//! prints SKIPPED past the test harness's capture and passes, unless
//! `STEWARD_REQUIRE_MCP_CLIENT` is set: `.ci/run` installs the package and
//! sets it, so CI never passes a test that did not run.

use predicates::prelude::*;
use serde_json::{Value, json};

use crate::common::TestEnv;

/// The Python that has the `mcp` package: `STEWARD_TEST_PYTHON`, else
/// `python3`.
fn python() -> String {
    std::env::var("STEWARD_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Runs `steward mcp` in the store under the SDK's client, making `calls`
/// ([name, arguments] pairs). `None` when the client cannot run here.
fn session(env: &TestEnv, calls: Value) -> Option<Value> {
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py");
    let output = match env
        .program(python())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg(client)
        .arg(calls.to_string())
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("steward"))
        .arg("mcp")
        .output()
    {
        Ok(output) => output,
        Err(err) => return skipped(&format!("cannot run {}: {err}", python())),
    };
    if output.status.code() == Some(77) {
        return skipped(String::from_utf8_lossy(&output.stderr).trim());
    }
    assert!(
        output.status.success(),
        "the MCP client failed: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    Some(serde_json::from_slice(&output.stdout).expect("the client prints JSON"))
}

/// A test that cannot run its client: SKIPPED on the terminal (written
/// to the process's stderr itself, which the harness does not capture),
/// or a failure where the client is required.
fn skipped(why: &str) -> Option<Value> {
    assert!(
        std::env::var_os("STEWARD_REQUIRE_MCP_CLIENT").is_none(),
        "the MCP client is required (STEWARD_REQUIRE_MCP_CLIENT) and cannot run: {why}"
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("SKIPPED: the MCP client test: {why}\n").as_bytes(),
    );
    None
}

/// The text of a tool's answer, and whether it was a tool error.
fn answer(call: &Value) -> (String, bool) {
    let result = &call["result"];
    let text = result["content"][0]["text"].as_str().unwrap().to_string();
    (text, result["isError"] == json!(true))
}

fn document(call: &Value) -> Value {
    let (text, is_error) = answer(call);
    assert!(!is_error, "{} was refused: {text}", call["name"]);
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_real_client_lists_and_calls_every_tool_as_the_agent() {
    let env = TestEnv::initialised();
    env.write("site/index.html", "<h1>docs</h1>");
    env.steward()
        .args(["add", "site", "--title", "Publish the site"])
        .args(["--criterion", "The page is built", "--criterion", "Read"])
        .args(["--verify", "file_exists:site/index.html@1"])
        .assert()
        .success();
    env.steward()
        .args(["add", "health", "--title", "Ship the health endpoint"])
        .args(["--criterion", "GET /health answers 200"])
        .assert()
        .success();
    env.steward()
        .args(["plan", "import", "health"])
        .arg(format!(
            "{}/fixtures/plans/valid.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .assert()
        .success();
    let calls = json!([
        ["goal_list", {}],
        ["goal_show", {"goal": "site"}],
        ["goal_register", {"label": "docs", "title": "Write the docs", "criteria": ["A quick start"], "priority": "high"}],
        ["goal_assess", {"goal": "site", "summary": "built the page", "next": "read it", "met": [1]}],
        ["goal_update", {"goal": "site", "verify": ["file_exists:.@2"], "note": "an easy check"}],
        ["goal_update", {"goal": "site", "max_dispatches": 500}],
        ["goal_update", {"goal": "site", "title": "Something easier"}],
        ["goal_complete", {"goal": "site", "reason": "done"}],
        ["task_spawned", {"label": "link-check", "goal": "site", "timeout": "30m"}],
        ["task_ended", {"label": "link-check", "outcome": "ok", "detail": "no broken links"}],
        ["stewardship_block", {"heartbeat": true}],
        ["goal_assess", {"goal": "site", "summary": "read it", "met": [2]}],
        ["goal_complete", {"goal": "site", "reason": "built, read, links checked"}],
        ["no_such_tool", {}],
        ["goal_handoff", {"goal": "docs", "handoff": {"summary": "outlined the quick start", "decisions": [{"decision": "one page", "rationale": "read on a phone"}], "next_actions": ["write the install section"], "evidence": {"files": ["docs/quick.md"]}}}],
        ["goal_handoff", {"goal": "docs", "handoff": {"summary": "signed by me", "by": "user"}}],
        ["goal_show", {"goal": "docs"}],
        ["goal_work", {"goal": "health", "node": "S1.1.1", "action": "done"}],
        ["goal_work", {"goal": "health", "node": "S1.1.2", "action": "block"}],
    ]);
    let Some(session) = session(&env, calls) else {
        return;
    };

    assert_eq!(session["server"]["serverInfo"]["name"], "steward");
    assert!(session["server"]["capabilities"]["tools"].is_object());
    let tools: Vec<&str> = session["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "goal_list",
            "goal_show",
            "goal_register",
            "goal_assess",
            "goal_update",
            "goal_complete",
            "goal_work",
            "goal_handoff",
            "task_spawned",
            "task_ended",
            "stewardship_block"
        ]
    );
    for tool in session["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{tool}");
    }

    let calls = session["calls"].as_array().unwrap();
    let list = document(&calls[0]);
    assert_eq!(list["goals"][1]["label"], "site");
    assert_eq!(list["goals"][1]["criteria_total"], 2);
    assert_eq!(
        document(&calls[1])["verification"][0]["type"],
        "file_exists"
    );
    // An agent's high-priority goal waits for a person's confirmation.
    let registered = document(&calls[2]);
    assert_eq!(registered["confirmed"], false);
    assert_eq!(registered["priority"], "high");
    assert_eq!(document(&calls[3])["criteria"][0]["met"], true);

    // Refusals are tool errors that say why and what the person runs.
    // The checks are the person's: a trivially true one would judge for
    // the agent.
    let (check, refused) = answer(&calls[4]);
    assert!(refused);
    assert!(
        check.contains("steward update site --verify file_exists:.@2"),
        "{check}"
    );
    let (raise, refused) = answer(&calls[5]);
    assert!(refused);
    assert!(
        raise.starts_with("steward refused (exit 4): only a person"),
        "{raise}"
    );
    assert!(
        raise.contains("steward update site --max-dispatches 500"),
        "{raise}"
    );
    let (objective, refused) = answer(&calls[6]);
    assert!(refused);
    assert!(objective.contains("unknown field `title`"), "{objective}");
    let (early, refused) = answer(&calls[7]);
    assert!(refused);
    assert!(early.contains("criterion 2 is not met: Read"), "{early}");
    assert_eq!(
        env.goal_json("site")["verification"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    assert!(
        document(&calls[8])["id"]
            .as_str()
            .unwrap()
            .starts_with("obl-")
    );
    assert_eq!(document(&calls[9])["changed"][0]["status"], "arrived");
    let block = document(&calls[10]);
    assert!(block["next"].is_string());
    assert_eq!(document(&calls[12])["status"], "completed");
    assert_eq!(calls[13]["error"]["code"], -32602);

    // A handoff is kept with the goal, signed by the agent; who signs is
    // steward's to say.
    assert_eq!(
        document(&calls[14])["handoff"]["next_actions"][0],
        "write the install section"
    );
    let (signed, refused) = answer(&calls[15]);
    assert!(refused);
    assert!(signed.contains("`at` and `by` are steward's"), "{signed}");
    let docs = document(&calls[16]);
    assert_eq!(docs["handoff"]["by"], "agent", "{docs}");
    assert_eq!(docs["handoff"]["summary"], "outlined the quick start");
    assert_eq!(
        docs["handoff"]["decisions"][0]["rationale"],
        "read on a phone"
    );
    // One view of a goal: the tool's is `show --json`'s, plus what keeps an
    // open goal from being worked now.
    let mut shown = docs.clone();
    assert!(shown["waits"].is_array(), "{docs}");
    shown.as_object_mut().unwrap().remove("waits");
    assert_eq!(shown, env.goal_json("docs"));

    // A plan node moves over MCP as with `steward work`; a block says why.
    document(&calls[17]);
    let plan: Value = serde_json::from_slice(
        &env.steward()
            .args(["plan", "show", "health", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let node = plan["plan"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "S1.1.1")
        .unwrap();
    assert_eq!(node["status"], "done", "{plan}");
    let (block, refused) = answer(&calls[18]);
    assert!(refused);
    assert!(block.contains("block needs one"), "{block}");
    assert!(
        !block.contains("--"),
        "a command-line flag over MCP: {block}"
    );

    // Every change was made as the agent, and the judge's receipt says so.
    let events = env.events();
    assert!(
        events[..3].iter().all(|e| e["actor"] == "user"),
        "the person created `site` and `health`, and planned it: {events:#?}"
    );
    assert!(events.len() > 8, "{events:#?}");
    assert!(
        events[3..].iter().all(|e| e["actor"] == "agent"),
        "{events:#?}"
    );
    let site = env.goal_json("site");
    assert_eq!(site["receipt"]["judged_by"], "agent");
    assert_eq!(site["receipt"]["checks"][0]["result"], "passed");
}

#[test]
fn mcp_always_acts_as_the_agent() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["mcp", "--actor", "user"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("always acts as the agent"));
}

#[test]
fn mcp_outside_a_store_says_where_it_looked() {
    let env = TestEnv::new();
    env.steward()
        .arg("mcp")
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no steward store at"))
        .stderr(predicates::str::contains("steward init"));
    assert!(env.snapshot().is_empty(), "nothing is created");
}

#[test]
fn a_goal_the_agent_edited_is_refused_through_mcp_too() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "site", "--title", "Publish the site"])
        .args(["--criterion", "The page is built"])
        .args(["--verify", "manual:a person looks@1"])
        .assert()
        .success();
    let path = "state/goals/site.md";
    let text = env.read(path);
    let start = text.find("verification:").unwrap();
    let end = text[start..].find("budget:").unwrap() + start;
    env.write(
        path,
        &format!("{}verification: []\n{}", &text[..start], &text[end..]),
    );
    let calls = json!([
        ["goal_complete", {"goal": "site", "reason": "done", "met": [1]}],
        ["goal_show", {"goal": "site"}],
    ]);
    let Some(session) = session(&env, calls) else {
        return;
    };
    let calls = session["calls"].as_array().unwrap();
    let (refusal, refused) = answer(&calls[0]);
    assert!(refused);
    assert!(
        refusal.contains("waits for a person to review what changed outside steward (checks)"),
        "{refusal}"
    );
    assert!(refusal.contains("steward accept site"), "{refusal}");
    let shown = document(&calls[1]);
    assert_eq!(shown["status"], "active");
    assert_eq!(shown["waiting"]["for_person"], "review", "{shown}");
}

#[test]
fn mcp_refusals_name_the_tools_parameters_not_the_command_lines_flags() {
    let env = TestEnv::initialised();
    env.add_goal("site");
    let calls = json!([
        ["goal_complete", {"goal": "site", "reason": "done", "met": [9]}],
        ["goal_assess", {"goal": "site", "summary": "s", "met": [7]}],
        ["goal_register", {"label": "late", "title": "T", "criteria": ["c"],
                           "deadline": "2001-01-01T00:00:00Z"}],
    ]);
    let Some(session) = session(&env, calls) else {
        return;
    };
    let calls = session["calls"].as_array().unwrap();
    let texts: Vec<String> = calls.iter().map(|call| answer(call).0).collect();
    assert!(
        texts[0].contains("met 9: criterion 9 does not exist"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("met 7: criterion 7 does not exist"),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].contains("deadline: 2001-01-01T00:00:00Z is not in the future"),
        "{}",
        texts[2]
    );
    for text in &texts {
        assert!(!text.contains("--"), "a flag in an MCP refusal: {text}");
    }
    // The command line still names its flags.
    env.steward()
        .args(["complete", "site", "--reason", "done", "--met", "9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--met 9: criterion 9 does not exist",
        ));
}
