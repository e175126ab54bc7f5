//! steward-guide(7), "CLAUDE CODE AND CODEX: HOOKS AND AN MCP SERVER":
//! `steward hook claude-code|codex` answers recorded hook payloads of the
//! real clients (Claude Code 2.1.330, Codex CLI 0.169.0) in their own JSON;
//! `hook install` merges steward's hooks.

use predicates::prelude::*;

use crate::common::TestEnv;

/// A Claude Code hook input, as the client sends it.
fn claude(event: &str, env: &TestEnv, extra: &str) -> String {
    format!(
        r#"{{"session_id":"352f-session","transcript_path":"/tmp/t.jsonl","cwd":"{}","permission_mode":"default","hook_event_name":"{event}"{extra}}}"#,
        env.root().display()
    )
}

/// A Codex hook input, as the client sends it.
fn codex(event: &str, env: &TestEnv, extra: &str) -> String {
    format!(
        r#"{{"session_id":"01a20775-codex","turn_id":"01a20775-8a16","transcript_path":"/tmp/r.jsonl","cwd":"{}","hook_event_name":"{event}","model":"mock-model","permission_mode":"bypassPermissions"{extra}}}"#,
        env.root().display()
    )
}

/// Runs `steward hook HARNESS` from elsewhere with `input` on stdin: the
/// store comes from the input's cwd. Returns stdout, asserting exit 0.
fn hook(env: &TestEnv, harness: &str, input: &str) -> String {
    let output = env
        .steward()
        .current_dir("/")
        .env("CLAUDECODE", "1")
        .args(["hook", harness])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("{err}: {text:?}"))
}

/// The context Claude Code's `UserPromptSubmit` hook adds on a heartbeat.
fn heartbeat_context(env: &TestEnv) -> String {
    let beat = json(&hook(
        env,
        "claude-code",
        &claude("UserPromptSubmit", env, r#","prompt":"heartbeat""#),
    ));
    beat["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn session_start_and_prompts_get_the_block_or_the_summaries_as_context() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let start = json(&hook(
        &env,
        "claude-code",
        &claude("SessionStart", &env, r#","source":"startup""#),
    ));
    assert_eq!(start["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        start["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .starts_with("[steward] deploy")
    );
    let ordinary = json(&hook(
        &env,
        "codex",
        &codex(
            "UserPromptSubmit",
            &env,
            r#","prompt":"fix the typo in the README""#,
        ),
    ));
    assert!(
        ordinary["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .starts_with("[steward] deploy")
    );
    let block = heartbeat_context(&env);
    let block = block.as_str();
    assert!(
        block.starts_with("<goal-stewardship goal=\"deploy\">"),
        "{block}"
    );
    assert!(block.contains("steward --actor agent assess deploy"));
}

#[test]
fn stop_continues_while_work_moves_and_stops_when_it_does_not() {
    let env = TestEnv::initialised();
    env.write_config("hooks:\n  max_continuations: 2\n");
    env.add_goal("deploy");
    let stop = || {
        hook(
            &env,
            "claude-code",
            &claude(
                "Stop",
                &env,
                r#","stop_hook_active":false,"last_assistant_message":"Done.""#,
            ),
        )
    };
    let first = json(&stop());
    assert_eq!(first["decision"], "block");
    let reason = first["reason"].as_str().unwrap();
    assert!(
        reason.len() <= 2000 && !reason.contains('<') && !reason.contains('>'),
        "{reason}"
    );
    assert!(reason.contains("goal deploy is not done"), "{reason}");
    assert!(
        reason.contains("steward --actor agent assess deploy --summary"),
        "{reason}"
    );
    // The continuation changed nothing: the session may stop.
    assert_eq!(stop(), "");
    // Progress: one more continuation, up to the limit of 2.
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "deploy",
            "--summary",
            "tests pass",
            "--met",
            "1",
        ])
        .assert()
        .success();
    // Partial progress is no reason to stop, though it starts the goal's
    // heartbeat cooldown.
    assert_eq!(json(&stop())["decision"], "block");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "deploy",
            "--summary",
            "more",
            "--met",
            "2",
        ])
        .assert()
        .success();
    assert_eq!(stop(), "", "max_continuations reached");
    // A new prompt from the person starts the series over.
    hook(
        &env,
        "claude-code",
        &claude("UserPromptSubmit", &env, r#","prompt":"go on""#),
    );
    assert_eq!(json(&stop())["decision"], "block");
}

#[test]
fn a_hooks_folder_that_leads_out_of_the_store_is_neither_written_nor_emptied() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    // A link planted where the sessions' counts are kept (by hand, or by a
    // pull): steward writes nothing through it and removes nothing.
    let outside = tempfile::tempdir().unwrap();
    let kept = outside.path().join("352f-session.json");
    std::fs::write(&kept, "a person's file\n").unwrap();
    let _ = std::fs::remove_dir_all(env.path("state/hooks"));
    std::os::unix::fs::symlink(outside.path(), env.path("state/hooks")).unwrap();
    let stop = claude("Stop", &env, r#","stop_hook_active":false"#);
    assert_eq!(
        hook(&env, "claude-code", &stop),
        "",
        "no continuation it cannot count"
    );
    hook(
        &env,
        "claude-code",
        &claude("UserPromptSubmit", &env, r#","prompt":"hi""#),
    );
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "a person's file\n");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[test]
fn stop_never_continues_when_only_a_person_can_help() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "deploy",
            "--summary",
            "need the token",
            "--stuck",
        ])
        .assert()
        .success();
    assert_eq!(
        hook(
            &env,
            "codex",
            &codex("Stop", &env, r#","stop_hook_active":false"#)
        ),
        ""
    );
    assert_eq!(hook(&env, "claude-code", &claude("Stop", &env, "")), "");
}

#[test]
fn a_goal_left_to_a_persons_judgment_is_not_work_for_the_agent() {
    let env = TestEnv::initialised();
    env.write_config("judge:\n  unchecked: person\n");
    env.add_goal("deploy");
    env.steward()
        .args(["--actor", "agent", "complete", "deploy", "--reason", "done"])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .code(4);
    let goal = env.goal_json("deploy");
    assert_eq!(goal["status"], "verifying");
    // The Stop hook lets the session end, and a loop hears "a person".
    assert_eq!(hook(&env, "claude-code", &claude("Stop", &env, "")), "");
    assert_eq!(
        hook(
            &env,
            "codex",
            &codex("Stop", &env, r#","stop_hook_active":false"#)
        ),
        ""
    );
    env.steward()
        .args(["--actor", "agent", "prompt", "--heartbeat", "--exit-status"])
        .assert()
        .code(3);
    // An agent can do nothing with it; a person's act ends the wait.
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "deploy",
            "--summary",
            "still done",
        ])
        .assert()
        .code(4)
        .stderr(predicates::str::contains(
            "ask the person to run: steward complete deploy",
        ));
    env.steward()
        .args(["--actor", "agent", "prompt", "--heartbeat", "--exit-status"])
        .assert()
        .code(3);
    env.steward()
        .args(["complete", "deploy", "--reason", "I looked"])
        .assert()
        .success();
    assert_eq!(env.goal_json("deploy")["status"], "completed");
}

#[test]
fn a_broken_store_never_blocks_the_person() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    // A store whose configuration never loaded: the hook says why and
    // lets the session go on.
    let fresh = TestEnv::new();
    fresh.write("steward.yaml", "enabled: maybe\n");
    std::fs::create_dir_all(fresh.path("state/goals")).unwrap();
    for harness in ["claude-code", "codex"] {
        for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
            fresh
                .steward()
                .current_dir("/")
                .args(["hook", harness])
                .write_stdin(claude(event, &fresh, r#","prompt":"heartbeat""#))
                .assert()
                .code(0)
                .stdout("")
                .stderr(predicate::str::contains("steward.yaml:1:1"));
        }
    }
    // One that stopped loading here keeps what a person accepted: the
    // hooks go on giving the goal to the agent.
    env.write_config("enabled: maybe\n");
    env.steward()
        .current_dir("/")
        .args(["hook", "claude-code"])
        .write_stdin(claude("UserPromptSubmit", &env, r#","prompt":"heartbeat""#))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("<goal-stewardship goal="));
    env.steward()
        .args(["hook", "claude-code"])
        .write_stdin("{not json")
        .assert()
        .code(0)
        .stdout("");
    // Outside any store a hook says nothing at all.
    env.steward()
        .current_dir("/")
        .args(["hook", "codex"])
        .write_stdin(r#"{"cwd":"/","hook_event_name":"Stop"}"#)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
}

#[test]
fn the_context_stays_under_the_cap_and_keeps_every_command() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 20\n");
    let long = "A long description of the work. ".repeat(200);
    for n in 0..8 {
        env.steward()
            .args([
                "add",
                &format!("goal-{n}"),
                "--title",
                "T",
                "--description",
                &long,
            ])
            .args(["--criterion", &"a criterion with many words ".repeat(8)])
            .assert()
            .success();
    }
    let block = heartbeat_context(&env);
    let block = block.as_str();
    assert!(block.chars().count() <= 9000, "{}", block.chars().count());
    let offered: Vec<&str> = block
        .lines()
        .filter_map(|l| l.strip_prefix("<goal-stewardship goal=\""))
        .map(|l| l.trim_end_matches("\">"))
        .collect();
    assert!(offered.len() >= 2, "{offered:?}");
    for label in offered {
        assert!(
            block.contains(&format!("steward --actor agent assess {label} --summary")),
            "{label}"
        );
        assert!(
            block.contains(&format!("steward --actor agent complete {label} --reason")),
            "{label}"
        );
    }
}

#[test]
fn install_merges_steward_hooks_once_and_keeps_the_others() {
    let env = TestEnv::initialised();
    env.write(
        ".claude/settings.json",
        r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-own-hook"}]}]}}"#,
    );
    env.steward()
        .args(["hook", "install", "claude-code", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("hook claude-code"));
    assert!(
        !env.read(".claude/settings.json")
            .contains("hook claude-code")
    );
    for _ in 0..2 {
        env.steward()
            .args(["hook", "install", "claude-code"])
            .assert()
            .success();
    }
    let settings = json(&env.read(".claude/settings.json"));
    assert_eq!(settings["model"], "opus");
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "{stop:?}");
    assert_eq!(stop[0]["hooks"][0]["command"], "my-own-hook");
    for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
        let commands: Vec<String> = settings["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap().iter())
            .map(|h| h["command"].as_str().unwrap().to_string())
            .filter(|c| c.ends_with("hook claude-code"))
            .collect();
        assert_eq!(commands.len(), 1, "{event}");
    }
    let codex_home = env.path("codex-home");
    env.steward()
        .env("CODEX_HOME", &codex_home)
        .args(["hook", "install", "codex"])
        .assert()
        .success();
    assert!(env.read("codex-home/hooks.json").contains("hook codex"));
    env.steward()
        .args(["hook", "install", "mcp"])
        .assert()
        .success();
    let mcp = json(&env.read(".mcp.json"));
    assert_eq!(mcp["mcpServers"]["steward"]["args"][0], "mcp");
}

#[test]
fn an_installed_hook_runs_from_a_path_with_a_space() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("my tools");
    std::fs::create_dir_all(&tools).unwrap();
    let copy = tools.join("steward");
    // A link, not a copy, where it can be: a copy is open for writing
    // while it is made, and a child another test forks meanwhile keeps
    // that descriptor until it execs, so running the copy can fail with
    // "Text file busy".
    let built = assert_cmd::cargo::cargo_bin("steward");
    if std::fs::hard_link(&built, &copy).is_err() {
        std::fs::copy(&built, &copy).unwrap();
    }
    env.program(&copy)
        .args(["hook", "install", "claude-code"])
        .status()
        .unwrap();
    let settings = json(&env.read(".claude/settings.json"));
    let command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(command.starts_with('\''), "{command}");
    // The harness runs it with a shell.
    let mut shell = env.program("sh");
    shell
        .args(["-c", &command])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = shell.spawn().unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        format!(
            r#"{{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"{}","prompt":"heartbeat"}}"#,
            env.root().display()
        )
        .as_bytes(),
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let answer = json(&String::from_utf8(output.stdout).unwrap());
    assert!(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("deploy")
    );
}

#[test]
fn install_with_sandbox_keeps_the_agents_tools_out_of_the_state() {
    let env = TestEnv::initialised();
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Bash(rm -rf *)"]}}"#,
    );
    env.steward()
        .args(["hook", "install", "claude-code", "--sandbox"])
        .assert()
        .success();
    let settings = json(&env.read(".claude/settings.json"));
    let root = std::fs::canonicalize(env.root()).unwrap();
    let deny = settings["permissions"]["deny"].to_string();
    assert!(deny.contains("Bash(rm -rf *)"), "kept: {settings}");
    assert!(
        deny.contains(&format!("Edit(/{}/state/**)", root.display())),
        "{settings}"
    );
    assert_eq!(settings["sandbox"]["enabled"], true);
    assert_eq!(settings["sandbox"]["failIfUnavailable"], true);
    assert_eq!(settings["sandbox"]["excludedCommands"][0], "steward *");
    assert!(settings["hooks"]["Stop"].is_array());
    // Codex: the rule that lets `steward` out of the sandbox, and what to
    // add to config.toml (steward does not rewrite it).
    let codex_home = env.path("codex-home");
    env.steward()
        .env("CODEX_HOME", &codex_home)
        .args(["hook", "install", "codex", "--sandbox"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "default_permissions=\"steward-agent\"",
        ))
        .stderr(predicate::str::contains("never run codex with --sandbox"));
    let rule = env.read("codex-home/rules/steward.rules");
    assert!(rule.contains("pattern = [\"steward\"]"), "{rule}");
    // Installing is a person's act: an agent could loosen its own sandbox.
    env.steward()
        .env("CLAUDECODE", "1")
        .args(["hook", "install", "claude-code"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("ask the person to run"));
}

/// The screens that offer work see a goal as the judge does: an agent's
/// edit of its goal file, not yet recorded by any write, makes the goal
/// wait for a person's review in the block, the Stop hook and `why`, as
/// it does in `complete`.
#[test]
fn a_goal_edited_outside_steward_is_offered_to_nobody_before_any_write() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let path = "state/goals/deploy.md";
    env.write(path, &env.read(path).replace("- [ ] First", "- [x] First"));
    let before = env.read(path);
    // As after a pass that recorded it: nothing to work on, a person is
    // needed.
    env.steward()
        .args(["--actor", "agent", "prompt", "--heartbeat", "--exit-status"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("<goal-stewardship goal=").not());
    for harness in ["claude-code", "codex"] {
        env.steward()
            .args(["hook", harness])
            .write_stdin(claude("Stop", &env, ""))
            .assert()
            .success()
            .stdout(predicate::str::contains("\"decision\":\"block\"").not());
    }
    env.steward()
        .args(["why", "deploy"])
        .assert()
        .stdout(predicate::str::contains(
            "a person to review what changed outside steward",
        ));
    assert_eq!(env.read(path), before, "nothing written");
    // The judge says the same.
    env.steward()
        .args(["--actor", "agent", "complete", "deploy", "--reason", "done"])
        .assert()
        .code(4);
}

#[test]
fn stop_lets_a_session_whose_own_tasks_run_stop_and_says_it_comes_back() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    // What Claude Code 2.1.332 sent as its background build ran, with the
    // store as its working directory.
    let mut recorded: serde_json::Value = json(
        &std::fs::read_to_string(format!(
            "{}/fixtures/hooks/claude-code-2.1.332-Stop-background.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    );
    recorded["cwd"] = env.root().display().to_string().into();
    assert_eq!(hook(&env, "claude-code", &recorded.to_string()), "");
    let events = env.events();
    let waits = (events.iter())
        .find(|e| e["action"] == "session_waits_on_its_tasks")
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(waits["label"], "deploy");
    assert!(
        waits["detail"].as_str().unwrap().contains(
            "stopped with 1 task of its own running: Build in the background (shell); not sent back to work: its client wakes it when they end"
        ),
        "{waits}"
    );
    // Woken as the task ended, it stops with none running: sent back to
    // the goal, the first continuation of its allowance.
    recorded["background_tasks"] = serde_json::json!([]);
    let back = json(&hook(&env, "claude-code", &recorded.to_string()));
    assert_eq!(back["decision"], "block");
    assert!(
        back["reason"]
            .as_str()
            .unwrap()
            .contains("continuation 1 of")
    );
}
