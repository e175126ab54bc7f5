//! The README's shell snippets run as written.

use std::path::Path;

use crate::common::TestEnv;

/// The first ```sh block after `heading` in the README.
fn snippet(heading: &str) -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = &readme[readme
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in README"))..];
    let start = section.find("```sh\n").unwrap() + "```sh\n".len();
    section[start..start + section[start..].find("```").unwrap()].to_string()
}

/// A stand-in for an agent CLI: it does the work and asks the judge.
const FAKE_AGENT: &str = "#!/bin/sh\necho called >> agent-calls\ncase \"$2\" in *'steward --actor agent complete deploy-api'*) steward --actor agent complete deploy-api --reason 'done by the fake agent' --met 1 --met 2 ;; esac\n";

/// An agent that cannot go on without a person.
const STUCK_AGENT: &str = "#!/bin/sh\necho called >> agent-calls\nsteward --actor agent assess deploy-api --summary 'need the prod token' --stuck\n";

/// Runs the README's loop with `agent` as `my-agent-cli`; its exit status
/// and stderr.
fn run_loop(env: &TestEnv, agent: &str) -> std::process::Output {
    env.steward()
        .args([
            "add",
            "deploy-api",
            "--title",
            "T",
            "--criterion",
            "a",
            "--criterion",
            "b",
        ])
        .assert()
        .success();
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("my-agent-cli");
    std::fs::write(&path, agent).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let steward_dir = Path::new(env!("CARGO_BIN_EXE_steward"))
        .parent()
        .unwrap()
        .to_path_buf();
    let script = snippet("### A plain shell loop");
    std::process::Command::new("timeout")
        .args(["20", "sh", "-c", &script])
        .current_dir(env.root())
        .env_clear()
        .env(
            "PATH",
            format!("{}:{}:/usr/bin:/bin", bin.display(), steward_dir.display()),
        )
        .env("STEWARD_NOW", "2026-11-21T04:00:00Z")
        .output()
        .unwrap()
}

fn agent_calls(env: &TestEnv) -> usize {
    std::fs::read_to_string(env.path("agent-calls"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn the_shell_loop_runs_until_the_goal_is_done() {
    let env = TestEnv::initialised();
    let output = run_loop(&env, FAKE_AGENT);
    assert!(
        output.status.success(),
        "the loop exited with {}",
        output.status
    );
    assert_eq!(env.goal_json("deploy-api")["status"], "completed");
    assert_eq!(agent_calls(&env), 1);
}

#[test]
fn the_shell_loop_stops_and_tells_the_person_when_a_goal_blocks() {
    let env = TestEnv::initialised();
    let output = run_loop(&env, STUCK_AGENT);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(env.goal_json("deploy-api")["status"], "blocked");
    assert_eq!(agent_calls(&env), 1, "the agent is not called again");
    let told = String::from_utf8_lossy(&output.stderr);
    assert!(
        told.contains("deploy-api is blocked (agent)")
            && told.contains("steward unblock deploy-api"),
        "{told}"
    );
}

/// Every setting `steward config` knows is in the README's table.
#[test]
fn the_configuration_table_lists_every_setting() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = &readme[readme.find("| key | default | meaning |").unwrap()..];
    let table = &table[..table.find("\n\n").unwrap()];
    let env = TestEnv::initialised();
    let output = env.steward().arg("config").output().unwrap();
    let mut missing = Vec::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let Some((key, _)) = line.split_once(" = ") else {
            continue;
        };
        let key = key.trim();
        if key.starts_with("agents.") {
            continue;
        }
        if !table.contains(&format!("`{key}`")) {
            missing.push(key.to_string());
        }
    }
    assert!(missing.is_empty(), "not in the README's table: {missing:?}");
}
