//! The judge holds when the agent writes the store's files as the same
//! user: every change steward did not make is found and recorded before
//! anything is judged, and never silently accepted.

use predicates::prelude::*;

use crate::common::TestEnv;

/// `steward` as an agent in Claude Code's shell.
fn agent(env: &TestEnv) -> assert_cmd::Command {
    let mut cmd = env.steward();
    cmd.env("CLAUDECODE", "1");
    cmd
}

fn add_with_manual_check(env: &TestEnv, label: &str) {
    env.steward()
        .args([
            "add",
            label,
            "--title",
            "Ship it",
            "--criterion",
            "A person likes it",
        ])
        .args(["--verify", "manual:a person looks@1"])
        .assert()
        .success();
}

#[test]
fn an_agent_that_edits_its_goal_and_completes_is_refused_and_the_person_sees_why() {
    let env = TestEnv::initialised();
    add_with_manual_check(&env, "h");
    let path = "state/goals/h.md";
    // The agent removes the manual check and ticks the criterion by hand.
    let text = env.read(path);
    let start = text.find("verification:").unwrap();
    let end = text[start..].find("budget:").unwrap() + start;
    let edited = format!("{}verification: []\n{}", &text[..start], &text[end..])
        .replace("- [ ] A person likes it", "- [x] A person likes it");
    env.write(path, &edited);
    agent(&env)
        .args(["complete", "h", "--reason", "done"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "goal `h` waits for a person to review what changed outside steward (criteria, checks)",
        ));
    assert_eq!(env.goal_json("h")["status"], "active");
    let events = env.events();
    let found = events
        .iter()
        .find(|e| e["action"] == "edited_outside")
        .unwrap();
    assert_eq!(found["actor"], "unknown");
    assert!(
        found["diff"]
            .as_str()
            .unwrap()
            .contains("-  - type: manual"),
        "{found}"
    );
    // Asked again, the agent still gets nothing.
    agent(&env)
        .args(["complete", "h", "--reason", "done"])
        .assert()
        .code(4);
    env.steward()
        .args(["show", "h"])
        .assert()
        .stdout(predicate::str::contains(
            "Waiting: for a person to review what changed outside steward (criteria, checks)",
        ))
        .stdout(predicate::str::contains("-  - type: manual"));
    env.steward()
        .arg("status")
        .assert()
        .stdout(predicate::str::contains(
            "run: steward show h, then steward accept h",
        ));
    // The person looks and accepts the goal as it is now: the agent may
    // work on it again.
    env.steward()
        .args(["accept", "h", "--note", "the check was wrong"])
        .assert()
        .success();
    agent(&env)
        .args(["complete", "h", "--reason", "done"])
        .assert()
        .success();
}

#[test]
fn a_goal_moved_back_from_the_closed_goals_is_not_open_again() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["abandon", "g", "--reason", "not needed"])
        .assert()
        .success();
    let closed = std::fs::read_dir(env.path("state/goals/closed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .unwrap();
    let text = std::fs::read_to_string(&closed)
        .unwrap()
        .replace("status: abandoned", "status: active");
    std::fs::remove_file(&closed).unwrap();
    env.write("state/goals/g.md", &text);
    agent(&env)
        .args(["assess", "g", "--summary", "back at it", "--met", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("changed outside steward"));
    let goal = env.goal_json("g");
    assert_eq!(goal["criteria"][0]["met"], false, "{goal}");
}

/// An earlier version steward once wrote, put back after the goal was
/// closed (from git or a copy) without its seal, is not taken as steward's:
/// the log's last change of the goal left other bytes.
#[test]
fn an_earlier_version_put_back_without_its_seal_is_not_open_again() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["update", "g", "--note", "on it"])
        .assert()
        .success();
    let open = env.read("state/goals/g.md");
    env.steward()
        .args([
            "complete", "g", "--met", "1", "--met", "2", "--met", "3", "--reason", "done",
        ])
        .assert()
        .success();
    for dir in ["state/goals/closed", "state/seals/closed"] {
        for entry in std::fs::read_dir(env.path(dir)).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
    }
    env.write("state/goals/g.md", &open);
    agent(&env)
        .args(["assess", "g", "--summary", "back at it", "--met", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("changed outside steward"));
    env.steward()
        .args(["show", "g"])
        .assert()
        .stdout(predicate::str::contains("outside steward"));
}

#[test]
fn a_goal_deleted_by_hand_is_found_and_its_label_waits_for_a_person() {
    let env = TestEnv::initialised();
    env.add_goal("hard");
    env.steward().args(["tick", "-q"]).assert().success();
    std::fs::remove_file(env.path("state/goals/hard.md")).unwrap();
    // The agent adds an easier goal under the same label: refused.
    agent(&env)
        .args(["add", "hard", "--title", "Easy", "--criterion", "Nothing"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("was removed outside steward"))
        .stderr(predicate::str::contains("steward accept hard"));
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["findings"][0]["action"], "deleted_outside",
        "{report}"
    );
    assert_eq!(report["needs_attention"], serde_json::json!(["hard"]));
    let event = env
        .events()
        .into_iter()
        .find(|e| e["action"] == "deleted_outside")
        .unwrap();
    assert_eq!(event["actor"], "unknown");
    // Found once.
    let again = env.steward().args(["tick", "--json"]).output().unwrap();
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["findings"], serde_json::json!([]));
    agent(&env)
        .args(["add", "hard", "--title", "Easy", "--criterion", "Nothing"])
        .assert()
        .code(4);
    // A person lets it go; then the label is free.
    env.steward()
        .args(["accept", "hard"])
        .assert()
        .success()
        .stdout(predicate::str::contains("the label is free"));
    agent(&env)
        .args(["add", "hard", "--title", "Easy", "--criterion", "Nothing"])
        .assert()
        .success();
}

/// Seals are replaced through a spare without waiting for the disk: a
/// crash can leave a seal's name on another goal's seal, or on torn bytes.
/// The signed events then say the goal is steward's, and the seal is made
/// again.
#[test]
fn a_seal_on_another_goal_s_bytes_or_torn_is_repaired_from_the_log() {
    let env = TestEnv::initialised();
    for label in ["g", "h", "k"] {
        env.add_goal(label);
    }
    env.steward()
        .args(["update", "g", "--note", "one"])
        .assert()
        .success();
    let other = env.read("state/seals/open/h");
    env.write("state/seals/open/g", &other);
    let torn = env.read("state/seals/open/k");
    env.write("state/seals/open/k", &torn[..torn.len() / 2]);
    env.steward()
        .args(["tick", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("outside").not());
    for label in ["g", "k"] {
        env.steward()
            .args(["show", label])
            .assert()
            .stdout(predicate::str::contains("Outside").not());
        assert!(
            env.read(&format!("state/seals/open/{label}"))
                .contains(&format!("label {label}\n"))
        );
    }
    agent(&env)
        .args(["assess", "g", "--summary", "x"])
        .assert()
        .success();
}

#[test]
fn a_forged_seal_or_undo_record_is_not_steward_s() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward()
        .args(["update", "g", "--note", "one"])
        .assert()
        .success();
    let path = "state/goals/g.md";
    let edited = env.read(path).replace("- [ ] First", "- [x] First");
    env.write(path, &edited);
    // The agent writes the seal steward would have written: it does not
    // have the key.
    let seal = env.read("state/seals/open/g");
    let sha = sha256_hex(&edited);
    let old_sha = seal
        .lines()
        .find_map(|l| l.strip_prefix("sha256 "))
        .unwrap()
        .to_string();
    env.write("state/seals/open/g", &seal.replace(&old_sha, &sha));
    agent(&env)
        .args(["assess", "g", "--summary", "x"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("waits for a person"));
    assert!(
        env.read(path)
            .contains("its seal was changed outside steward")
    );

    // An undo record rewritten to restore the agent's version is refused.
    let record = env.read(&format!(
        "state/undo/{}.json",
        env.goal_json("g")["id"].as_str().unwrap()
    ));
    let forged = record.replace("title: Goal g", "title: Something easier");
    assert_ne!(forged, record);
    let id = env.goal_json("g")["id"].as_str().unwrap().to_string();
    env.write(&format!("state/undo/{id}.json"), &forged);
    env.steward()
        .args(["undo", "g"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("does not verify"));
}

fn sha256_hex(text: &str) -> String {
    steward::store::key::sha256(text.as_bytes())
}

#[test]
fn a_goal_closed_by_hand_with_a_copied_receipt_reads_as_closed_by_hand() {
    let env = TestEnv::initialised();
    env.write("site/index.html", "x");
    env.steward()
        .args(["add", "real", "--title", "T", "--criterion", "Built"])
        .args(["--verify", "file_exists:site/index.html@1"])
        .assert()
        .success();
    env.steward()
        .args(["complete", "real", "--reason", "built"])
        .assert()
        .success();
    let real = std::fs::read_dir(env.path("state/goals/closed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("real-"))
        .unwrap();
    let closed = std::fs::read_to_string(real).unwrap();
    let receipt_at = closed.find("receipt:").unwrap();
    let receipt_end = closed[receipt_at..].find("\n---").unwrap() + receipt_at;
    let receipt = &closed[receipt_at..receipt_end];
    env.add_goal("mine");
    let path = "state/goals/mine.md";
    let forged = env.read(path).replace(
        "status: active",
        &format!("status: completed\nclosed_reason: done\n{receipt}"),
    );
    env.write(path, &forged);
    env.steward().args(["tick", "-q"]).assert().code(3);
    let goal = env.goal_json("mine");
    assert_eq!(goal["status"], "completed");
    assert_eq!(goal["closed_by_hand"], true, "{goal}");
    env.steward()
        .args(["show", "mine"])
        .assert()
        .stdout(predicate::str::contains("closed:    by hand, no receipt"))
        .stdout(predicate::str::contains("steward did not write it"));
}

#[test]
fn commands_steward_yaml_gains_run_only_once_a_person_here_accepts_them() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    agent(&env)
        .args(["assess", "g", "--summary", "need the token", "--stuck"])
        .assert()
        .success();
    // Whoever can write steward.yaml (a pull, an agent, a person) names a
    // notifier: it does not run until a person on this machine accepts it.
    env.executable(
        "notify.sh",
        "#!/bin/sh\ncat > /dev/null\necho ran >> notified.log\n",
    );
    env.write("steward.yaml", "notify:\n  command: [./notify.sh]\n");
    env.steward()
        .arg("tick")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "the configuration files loosen what a person accepted on this machine (notify.command): not in effect until a person runs `steward config accept`",
        ));
    assert!(!env.path("notified.log").exists(), "the notifier ran");
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("steward config accept"));
    agent(&env)
        .args(["config", "accept"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "only a person may accept the configuration",
        ));
    env.steward()
        .args(["config", "accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "+notify.command: [\"./notify.sh\"]",
        ));
    env.add_goal("h");
    agent(&env)
        .args(["assess", "h", "--summary", "stuck too", "--stuck"])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(3);
    assert!(env.read("notified.log").starts_with("ran\n"));
    let told = env.read("notified.log").lines().count();
    // Changed again: the accepted notifier goes on telling the person.
    env.executable(
        "other.sh",
        "#!/bin/sh\ncat > /dev/null\necho other >> notified.log\n",
    );
    env.write("steward.yaml", "notify:\n  command: [./other.sh]\n");
    env.add_goal("i");
    agent(&env)
        .args(["assess", "i", "--summary", "stuck as well", "--stuck"])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(3);
    let log = env.read("notified.log");
    assert!(!log.contains("other"), "{log}");
    assert!(log.lines().count() > told, "{log}");
    // The machine's own file is weighed the same way, and never
    // committed.
    env.write(
        "state/local/steward.yaml",
        "verification:\n  allow_commands: true\n",
    );
    env.steward()
        .arg("config")
        .assert()
        .stdout(
            predicate::str::is_match(r"verification.allow_commands = false +# default").unwrap(),
        )
        .stderr(predicate::str::contains(
            "(verification.allow_commands, notify.command)",
        ));
    env.steward()
        .args(["config", "accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "+verification.allow_commands: true",
        ));
    env.steward().arg("config").assert().stdout(
        predicate::str::is_match(
            r"verification.allow_commands = true +# state/local/steward.yaml:2",
        )
        .unwrap(),
    );
    env.steward().arg("tick").assert().code(3);
    assert_eq!(env.read("state/local/.gitignore"), "*\n");
}

/// What every run's worktree starts from is a person's to change: a pull
/// that moves `dispatch.base` is held until accepted on this machine.
#[test]
fn a_pulled_dispatch_base_waits_for_a_person() {
    let env = TestEnv::initialised();
    env.write_config("dispatch:\n  base: main\n");
    env.write("steward.yaml", "dispatch:\n  base: refs/heads/agent-made\n");
    env.steward()
        .arg("config")
        .assert()
        .stdout(
            predicate::str::is_match(r"dispatch.base = main +# accepted \(steward config accept\)")
                .unwrap(),
        )
        .stderr(predicate::str::contains("(dispatch.base)"));
    env.steward()
        .args(["config", "accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "+dispatch.base: \"refs/heads/agent-made\"",
        ));
    env.steward().arg("config").assert().stdout(
        predicate::str::is_match(r"dispatch.base = refs/heads/agent-made +# steward.yaml:2")
            .unwrap(),
    );
}

#[test]
fn a_sandbox_a_person_accepted_stays_until_a_person_accepts_it_weaker() {
    let env = TestEnv::initialised();
    // A pull, or anyone who writes the file, turns the default off: held.
    env.write("steward.yaml", "dispatch:\n  sandbox: off\n");
    env.steward()
        .arg("config")
        .assert()
        .stdout(predicate::str::is_match(r"dispatch.sandbox = auto +# default").unwrap());
    // Made stronger, it is in force at once, accepted or not.
    env.write("steward.yaml", "dispatch:\n  sandbox: required\n");
    env.steward().arg("config").assert().stdout(
        predicate::str::is_match(r"dispatch.sandbox = required +# steward.yaml:2").unwrap(),
    );
    env.write_config("dispatch:\n  sandbox: required\n");
    env.write("steward.yaml", "dispatch:\n  sandbox: off\n");
    env.steward()
        .arg("config")
        .assert()
        .stdout(
            predicate::str::is_match(
                r"dispatch.sandbox = required +# accepted \(steward config accept\)",
            )
            .unwrap(),
        )
        .stderr(predicate::str::contains("(dispatch.sandbox)"));
    env.steward()
        .args(["config", "accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains("-dispatch.sandbox: \"required\""))
        .stdout(predicate::str::contains("+dispatch.sandbox: \"off\""));
    env.steward()
        .arg("config")
        .assert()
        .stdout(predicate::str::is_match(r"dispatch.sandbox = off +# steward.yaml:2").unwrap());
}
