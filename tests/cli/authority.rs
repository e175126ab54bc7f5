//! steward-design(7), "An agent is judged, never the judge". Each way an
//! agent could complete, unblock or redefine its own goal is refused for an
//! agent and allowed for a person; the environment decides who is calling.

use predicates::prelude::*;

use crate::common::TestEnv;

/// `steward` as an agent: the marker Claude Code sets in its shell.
fn agent(env: &TestEnv) -> assert_cmd::Command {
    let mut cmd = env.steward();
    cmd.env("CLAUDECODE", "1");
    cmd
}

/// Puts goal `label` in `blocked` by letting the agent say it is stuck.
fn block(env: &TestEnv, label: &str) {
    agent(env)
        .args(["assess", label, "--summary", "need the token", "--stuck"])
        .assert()
        .success();
    assert_eq!(env.goal_json(label)["status"], "blocked");
}

#[test]
fn the_block_addresses_agent_commands_to_the_agent_and_the_rest_to_the_person() {
    let env = TestEnv::initialised();
    env.add_goal("work");
    env.add_goal("stuck");
    block(&env, "stuck");
    let output = agent(&env)
        .args(["prompt", "--heartbeat"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("steward --actor agent assess work"), "{text}");
    for line in text.lines().filter(|l| l.contains("steward ")) {
        let for_person = line.contains("person");
        let every_agent_command_lowered = line
            .match_indices("steward ")
            .all(|(at, _)| line[at..].starts_with("steward --actor agent "));
        assert!(
            for_person || every_agent_command_lowered,
            "a command for the agent without --actor agent: {line}"
        );
    }
    // Run as printed for the person, by the agent: refused.
    agent(&env)
        .args(["unblock", "stuck", "--reason", "fixed it myself"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "only a person may unblock a goal; ask the person to run: steward unblock stuck",
        ));
}

#[test]
fn a_manual_check_is_a_persons_to_complete_whatever_flag_the_agent_passes() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "looks right"])
        .args(["--verify", "manual:a person looks@1"])
        .assert()
        .success();
    for actor in [None, Some("user"), Some("steward")] {
        let mut cmd = agent(&env);
        if let Some(actor) = actor {
            cmd.args(["--actor", actor]);
        }
        cmd.args(["complete", "g", "--reason", "done", "--met", "1"])
            .assert()
            .code(4);
    }
    assert_eq!(env.goal_json("g")["status"], "active");
}

#[test]
fn the_description_cannot_rewrite_the_criteria() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let sneaky = "Ship it.\n## Acceptance criteria\n- [x] done";
    let before = env.snapshot();
    agent(&env)
        .args(["update", "g", "--description", sneaky])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "only a person may change what a goal means",
        ));
    env.assert_unchanged(&before);
    // A person gets a usage error naming the line: text stays text.
    env.steward()
        .args(["update", "g", "--description", sneaky])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2: `## Acceptance criteria`"));
    env.assert_unchanged(&before);
    for sneaky in ["```\nhidden", "<!--\nhidden", "Title\n---"] {
        env.steward()
            .args(["update", "g", "--description", sneaky])
            .assert()
            .code(2);
    }
    env.steward()
        .args([
            "update",
            "g",
            "--description",
            "Ship it.\n\n    ## indented stays text",
        ])
        .assert()
        .success();
    assert_eq!(env.goal_json("g")["criteria"].as_array().unwrap().len(), 3);
}

#[test]
fn a_goal_keeps_at_least_one_criterion() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    agent(&env)
        .args(["update", "g", "--remove-criterion", "3"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "steward update g --remove-criterion 3",
        ));
    env.steward()
        .args([
            "update",
            "g",
            "--remove-criterion",
            "1",
            "--remove-criterion",
            "2",
        ])
        .assert()
        .success();
    env.steward()
        .args(["update", "g", "--remove-criterion", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "at least one acceptance criterion",
        ));
    env.steward()
        .args([
            "update",
            "g",
            "--remove-criterion",
            "1",
            "--add-criterion",
            "New",
        ])
        .assert()
        .success();
}

#[test]
fn pause_then_resume_never_clears_a_block() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    block(&env, "g");
    agent(&env).args(["pause", "g"]).assert().success();
    agent(&env)
        .args(["resume", "g"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("steward resume g"));
    // And says where it went back to.
    env.steward()
        .args(["resume", "g"])
        .assert()
        .success()
        .stdout(predicate::str::contains("resumed (blocked)"));
    let goal = env.goal_json("g");
    assert_eq!(goal["status"], "blocked");
    assert_eq!(goal["escalation"]["kind"], "agent");
}

#[test]
fn an_agent_cannot_confirm_unblock_or_grant_itself_budget() {
    let env = TestEnv::initialised();
    let before = env.snapshot();
    agent(&env)
        .args([
            "add",
            "big",
            "--title",
            "T",
            "--criterion",
            "C",
            "--priority",
            "high",
            "--confirmed",
        ])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("steward confirm big"));
    env.assert_unchanged(&before);
    agent(&env)
        .args([
            "add",
            "big",
            "--title",
            "T",
            "--criterion",
            "C",
            "--priority",
            "high",
        ])
        .assert()
        .success();
    assert_eq!(env.goal_json("big")["confirmed"], false);
    agent(&env).args(["confirm", "big"]).assert().code(4);
    env.steward().args(["confirm", "big"]).assert().success();

    env.steward()
        .args(["update", "big", "--max-assessments", "1"])
        .assert()
        .success();
    agent(&env)
        .args(["assess", "big", "--summary", "one"])
        .assert()
        .success();
    assert_eq!(env.goal_json("big")["escalation"]["kind"], "budget");
    for args in [
        vec!["reset-budget", "big"],
        vec!["unblock", "big", "--reason", "x"],
        vec!["update", "big", "--max-assessments", "10"],
        vec!["abandon", "big", "--reason", "x"],
    ] {
        agent(&env).args(&args).assert().code(4);
    }
    // Lowering a budget or tightening a bound is the agent's to do.
    agent(&env)
        .args([
            "update",
            "big",
            "--max-dispatches",
            "3",
            "--max-iterations",
            "9",
        ])
        .assert()
        .success();
    env.steward()
        .args(["reset-budget", "big"])
        .assert()
        .success();
    assert_eq!(env.goal_json("big")["status"], "active");
}

#[test]
fn the_environment_says_agent_and_no_flag_raises_it() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for (name, value) in [
        ("STEWARD_ACTOR", "agent"),
        ("CLAUDECODE", "1"),
        ("CODEX_CI", "1"),
        ("CODEX_THREAD_ID", "01a2082d"),
        ("STEWARD_DISPATCH_ID", "d-1"),
    ] {
        env.steward()
            .env(name, value)
            .args(["--actor", "user", "pause", "g"])
            .assert()
            .code(4)
            .stderr(predicate::str::contains("cannot raise it"));
        if name != "STEWARD_ACTOR" {
            env.steward()
                .env(name, value)
                .env("STEWARD_ACTOR", "user")
                .args(["confirm", "g"])
                .assert()
                .code(4);
        }
    }
    // Nothing in the environment: --actor agent lowers a person.
    env.steward()
        .args(["--actor", "agent", "confirm", "g"])
        .assert()
        .code(4);
}

#[test]
fn a_persons_override_is_allowed_and_says_so_everywhere() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    block(&env, "g");
    env.steward()
        .env("CLAUDECODE", "1")
        .env("STEWARD_OVERRIDE_ACTOR", "user")
        .args(["unblock", "g", "--reason", "gave it the token"])
        .assert()
        .success();
    assert_eq!(env.goal_json("g")["status"], "active");
    let text = env.read("state/goals/g.md");
    assert!(
        text.contains("user (override) unblocked: gave it the token"),
        "{text}"
    );
    let event = env
        .events()
        .into_iter()
        .find(|e| e["action"] == "unblocked")
        .unwrap();
    assert_eq!(event["override"], true);
    assert_eq!(event["actor"], "user");
    // The refusal an agent sees never mentions the override.
    let output = agent(&env)
        .args(["abandon", "g", "--reason", "x"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("OVERRIDE"));
}

#[test]
fn complete_records_a_receipt_of_what_was_judged() {
    let env = TestEnv::initialised();
    env.write("site/index.html", "<h1>docs</h1>");
    env.steward()
        .args([
            "add",
            "docs",
            "--title",
            "Docs",
            "--criterion",
            "Built",
            "--criterion",
            "Reviewed",
        ])
        .args(["--verify", "file_exists:site/index.html@1"])
        .assert()
        .success();
    agent(&env)
        .args(["assess", "docs", "--summary", "read it", "--met", "2"])
        .assert()
        .success();
    agent(&env)
        .args(["complete", "docs", "--reason", "built and read"])
        .assert()
        .success();
    let goal = env.goal_json("docs");
    assert_eq!(goal["status"], "completed");
    assert_eq!(goal["closed_by_hand"], false);
    let receipt = &goal["receipt"];
    assert_eq!(receipt["judged_by"], "agent");
    assert_eq!(receipt["checks"][0]["type"], "file_exists");
    assert_eq!(receipt["checks"][0]["result"], "passed");
    assert_eq!(receipt["criteria"][0]["basis"], "check");
    assert_eq!(receipt["criteria"][1]["basis"], "agents_word");
    assert_eq!(receipt["criteria"][1]["ticked_by"], "agent");
    env.steward()
        .args(["show", "docs"])
        .assert()
        .stdout(predicate::str::contains("criterion 2: on the agent's word"))
        .stdout(predicate::str::contains(
            "check file_exists site/index.html: passed",
        ));
    let audit = env.steward().arg("audit").output().unwrap();
    let audit = String::from_utf8(audit.stdout).unwrap();
    let completed = audit
        .lines()
        .find(|l| l.contains("\"action\":\"completed\""))
        .unwrap();
    assert!(completed.contains("\"receipt\":{"), "{completed}");
}

#[test]
fn judge_unchecked_person_keeps_an_agents_word_for_a_person() {
    let env = TestEnv::initialised();
    env.write_config("judge:\n  unchecked: person\n");
    env.add_goal("g");
    agent(&env)
        .args([
            "complete", "g", "--reason", "trust me", "--met", "1", "--met", "2", "--met", "3",
        ])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("rest on the agent's word"));
    let goal = env.goal_json("g");
    assert_eq!(goal["status"], "verifying");
    env.steward()
        .args(["complete", "g", "--reason", "I checked"])
        .assert()
        .success();
    let goal = env.goal_json("g");
    assert_eq!(goal["receipt"]["criteria"][0]["basis"], "person");
    // The agent cannot loosen it from its environment.
    env.steward()
        .env("STEWARD_JUDGE_UNCHECKED", "agent")
        .arg("config")
        .assert()
        .stdout(
            predicate::str::contains("judge.unchecked").and(predicate::str::contains("person")),
        );
}

/// A write through a shared mapping changes a file's bytes and, once its
/// page is dirty, not its times: the pass that trusts a goal file its
/// last pass found sealed hashes the bytes, not only the `stat`.
#[test]
fn a_goal_changed_through_a_shared_mapping_is_found_though_its_times_stay() {
    use std::os::fd::AsRawFd;
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["tick", "-q"]).assert().success();
    let path = env.path("state/goals/g.md");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let len = file.metadata().unwrap().len() as usize;
    // SAFETY: a shared read-write mapping of a file this test owns, of its
    // whole length, unmapped below; no other reference to it is made.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(map, libc::MAP_FAILED);
    // SAFETY: `map` is `len` bytes, mapped above and not yet unmapped.
    let bytes = unsafe { std::slice::from_raw_parts_mut(map.cast::<u8>(), len) };
    // The first write dirties the page (the times move); the pass that
    // follows finds the bytes as steward wrote them and records the file.
    bytes[0] = b'-';
    env.steward().args(["tick", "-q"]).assert().success();
    let stamp = |m: std::fs::Metadata| {
        use std::os::unix::fs::MetadataExt;
        (
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    };
    let before = stamp(std::fs::metadata(&path).unwrap());
    let at = (bytes.windows(7))
        .position(|w| w == b"- [ ] F")
        .expect("the first criterion");
    bytes[at + 3] = b'x';
    // SAFETY: as above; nothing refers to `bytes` from here on.
    unsafe { libc::munmap(map, len) };
    assert!(env.read("state/goals/g.md").contains("- [x] First"));
    if stamp(std::fs::metadata(&path).unwrap()) != before {
        eprintln!("this file system moved the times on a second write to a dirty page");
    }
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["findings"][0]["action"], "edited_outside",
        "{report}"
    );
}

/// The marker that says the store is sealed on this machine
/// (`~/.config/steward/stores/<hash of the root>`).
fn store_marker(env: &TestEnv) -> std::path::PathBuf {
    let dir = env.home().join(".config/steward/stores");
    // Beside it, `<hash>.config`: what a person accepted of the store's
    // configuration.
    let mut markers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| path.extension().is_none())
        .collect();
    assert_eq!(markers.len(), 1, "{markers:?}");
    markers.pop().unwrap()
}

#[test]
fn a_marker_without_its_mac_still_seals_and_one_whose_mac_is_wrong_does_not() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let marker = store_marker(&env);
    let text = std::fs::read_to_string(&marker).unwrap();
    let mac = text.lines().find(|l| l.starts_with("mac ")).expect("a MAC");
    // As a steward before the MAC wrote it: sealed all the same (a hand
    // edit is found, never taken as the store's first state), and the
    // next write adds the MAC.
    let old: String = text
        .lines()
        .filter(|l| !l.starts_with("mac "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&marker, &old).unwrap();
    let path = "state/goals/g.md";
    env.write(path, &env.read(path).replace("- [ ] First", "- [x] First"));
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["findings"][0]["action"], "edited_outside",
        "{report}"
    );
    assert!(std::fs::read_to_string(&marker).unwrap().contains(mac));
    // A MAC that is not this machine's for this root: not sealed here. The
    // store's seals are this machine's, so the next write puts the marker
    // back and says so, sealing nothing afresh.
    let count = |env: &TestEnv, action: &str| {
        (env.events().iter())
            .filter(|e| e["action"] == action)
            .count()
    };
    let sealed = count(&env, "sealed");
    let forged = old + "mac " + &"0".repeat(64) + "\n";
    std::fs::write(&marker, forged).unwrap();
    env.steward()
        .args(["update", "g", "--note", "looked"])
        .assert()
        .success();
    assert_eq!(count(&env, "marker_restored"), 1);
    assert_eq!(count(&env, "sealed"), sealed);
    assert!(std::fs::read_to_string(&marker).unwrap().contains(mac));
}

/// A store whose goal `g`, sealed by a pass, then had its first criterion
/// ticked by hand.
fn a_criterion_ticked_by_hand() -> TestEnv {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["tick", "-q"]).assert().success();
    let path = "state/goals/g.md";
    env.write(path, &env.read(path).replace("- [ ] First", "- [x] First"));
    env
}

#[test]
fn removing_the_marker_does_not_make_a_hand_edit_the_stores_first_state() {
    let env = a_criterion_ticked_by_hand();
    // The agent removes the marker that says the store is sealed here, so
    // that its next write would seal every goal as it now is.
    std::fs::remove_file(store_marker(&env)).unwrap();
    let output = agent(&env)
        .args(["assess", "g", "--summary", "done"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("changed outside steward"), "{stderr}");
    let restored = (env.events().iter()).any(|e| e["action"] == "marker_restored");
    assert!(restored, "the marker is put back and says so");
    let sealed = (env.events().iter()).any(|e| {
        e["action"] == "sealed"
            && e["detail"]
                .as_str()
                .is_some_and(|d| d.contains("1 open goals"))
    });
    assert!(!sealed, "no goal sealed afresh");
    assert!(store_marker(&env).exists());
    let goal = env.goal_json("g");
    assert_eq!(goal["waiting"]["for_person"], "review", "{goal}");
}

#[test]
fn a_hand_edit_of_status_criteria_or_checks_is_found_and_recorded_once() {
    let env = a_criterion_ticked_by_hand();
    let path = "state/goals/g.md";
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(3), "a person must look");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["action"], "edited_outside", "{report}");
    assert!(
        finding["reason"]
            .as_str()
            .unwrap()
            .starts_with("criteria changed outside steward; held for a person"),
        "{report}"
    );
    assert!(
        env.read(path)
            .contains("unknown edited_outside: criteria changed outside steward"),
    );
    let event = env.events().into_iter().last().unwrap();
    assert_eq!(event["actor"], "unknown");
    // Recorded: the next pass finds nothing new; the goal still waits.
    let again = env.steward().args(["tick", "--json"]).output().unwrap();
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["findings"], serde_json::json!([]));
    assert_eq!(again["needs_attention"], serde_json::json!(["g"]));
}

#[test]
fn a_hand_edit_is_found_by_the_next_command_not_only_by_tick() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let path = "state/goals/g.md";
    env.write(
        path,
        &env.read(path).replace(
            "verification: []",
            "verification:\n  - type: file_exists\n    target: .\n    criterion: 1",
        ),
    );
    // The agent's own next command finds it, records it and is refused.
    agent(&env)
        .args(["assess", "g", "--summary", "checked", "--met", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "goal `g` waits for a person to review what changed outside steward (checks)",
        ))
        .stderr(predicate::str::contains(
            "steward show g, then steward accept g",
        ));
    assert!(
        env.read(path)
            .contains("unknown edited_outside: checks changed outside steward")
    );
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "waits for a person to review what changed outside steward (checks)",
        ));
    // A person looks and accepts; the agent works again.
    env.steward().args(["accept", "g"]).assert().success();
    agent(&env)
        .args(["assess", "g", "--summary", "checked"])
        .assert()
        .success();
}

#[test]
fn removing_steward_s_seals_does_not_make_a_hand_edit_steward_s() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.add_goal("h");
    env.steward().args(["tick", "-q"]).assert().success();
    let path = "state/goals/g.md";
    env.write(path, &env.read(path).replace("- [ ] First", "- [x] First"));
    // The agent removes what steward wrote down: each goal is checked
    // against the chain of changes steward signed in the event log.
    std::fs::remove_dir_all(env.path("state/seals")).unwrap();
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let labels: Vec<&str> = (report["findings"].as_array().unwrap().iter())
        .filter(|f| f["action"] == "edited_outside")
        .map(|f| f["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["g"], "{report}");
}

#[test]
fn a_goal_closed_by_hand_is_moved_and_shown_without_a_receipt() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.steward().args(["tick", "-q"]).assert().success();
    let path = "state/goals/g.md";
    env.write(
        path,
        &env.read(path)
            .replace("status: active", "status: completed"),
    );
    env.steward()
        .arg("doctor")
        .assert()
        .stdout(predicate::str::contains("completed by hand, no receipt"));
    // A person is told once: steward cannot tell who closed it.
    env.steward()
        .args(["tick", "-q"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("g: closed_by_hand"));
    assert!(!env.path(path).exists());
    let goal = env.goal_json("g");
    assert_eq!(goal["closed_by_hand"], true);
    assert!(
        goal["path"]
            .as_str()
            .unwrap()
            .starts_with("state/goals/closed/")
    );
    env.steward()
        .args(["show", "g"])
        .assert()
        .stdout(predicate::str::contains("closed:    by hand, no receipt"))
        .stdout(predicate::str::contains(
            "closed by hand, no receipt: status changed outside steward",
        ));
}

#[test]
fn many_goals_closed_by_hand_are_moved_in_one_pass() {
    // From 16 on, the pass writes them all, then waits for the disk once.
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 24\n");
    let labels: Vec<String> = (0..24).map(|i| format!("g{i:02}")).collect();
    for label in &labels {
        env.add_goal(label);
    }
    env.steward().args(["tick", "-q"]).assert().success();
    for label in &labels {
        let path = format!("state/goals/{label}.md");
        env.write(
            &path,
            &env.read(&path)
                .replace("status: active", "status: completed"),
        );
    }
    let output = env.steward().args(["tick", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 24, "{report}");
    assert!(
        findings.iter().all(|f| f["action"] == "closed_by_hand"),
        "{report}"
    );
    let left: Vec<_> = std::fs::read_dir(env.path("state/goals"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name != "closed")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    for label in &labels {
        let goal = env.goal_json(label);
        assert_eq!(goal["closed_by_hand"], true, "{goal}");
    }
    env.steward()
        .args(["tick", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("closed_by_hand").not());
}

#[test]
fn a_kept_draft_is_never_saved_over_a_goal_that_changed() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    // An invalid edit keeps its draft.
    env.steward()
        .env(
            "EDITOR",
            "sed -i -e 's/^priority: normal/priority: whenever/'",
        )
        .args(["edit", "g"])
        .assert()
        .code(1);
    assert!(env.path("state/edits/g.md").exists());
    // The agent records an assessment meanwhile.
    agent(&env)
        .args(["assess", "g", "--summary", "tests pass", "--met", "1"])
        .assert()
        .success();
    let after_assessment = env.read("state/goals/g.md");
    // The person fixes the draft; steward refuses to save it over the
    // assessment and shows what changed.
    env.steward()
        .env("EDITOR", "sed -i -e 's/^priority: whenever/priority: low/'")
        .args(["edit", "g"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "changed since your draft was taken",
        ))
        .stderr(predicate::str::contains("+- [x] First"));
    assert_eq!(env.read("state/goals/g.md"), after_assessment);
    assert!(env.path("state/edits/g.md").exists(), "the draft is kept");
}

#[test]
fn add_warns_when_no_criterion_has_a_check() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "g", "--title", "T", "--criterion", "C"])
        .assert()
        .success()
        .stderr(predicate::str::contains("each rests on the agent's word"));
    env.steward()
        .args([
            "add",
            "h",
            "--title",
            "T",
            "--criterion",
            "C",
            "--verify",
            "file_exists:x@1",
        ])
        .assert()
        .success()
        .stderr("");
}

#[test]
fn the_criteria_and_the_checks_are_a_persons_to_add_change_or_remove() {
    let env = TestEnv::initialised();
    env.write_config("judge:\n  unchecked: person\n");
    env.add_goal("h");
    let before = env.snapshot();
    // A trivially true check would let the judge tick the criterion for it.
    agent(&env)
        .args(["update", "h", "--verify", "file_exists:.@1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "ask the person to run: steward update h --verify file_exists:.@1",
        ));
    agent(&env)
        .args(["update", "h", "--add-criterion", "Something easy"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "steward update h --add-criterion 'Something easy'",
        ));
    agent(&env)
        .args(["update", "h", "--remove-criterion", "3"])
        .assert()
        .code(4);
    env.assert_unchanged(&before);
    // So `complete` still waits for a person on the agent's word.
    agent(&env)
        .args(["complete", "h", "--reason", "done"])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .code(4);
    assert_eq!(env.goal_json("h")["status"], "verifying");
    // A person may.
    env.steward()
        .args(["update", "h", "--verify", "file_exists:.@1"])
        .args(["--add-criterion", "Fourth"])
        .assert()
        .success();
    assert_eq!(env.goal_json("h")["criteria"][3]["text"], "Fourth");
}

#[test]
fn an_agent_that_unsets_its_markers_is_still_an_agent_under_its_cli() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    block(&env, "g");
    // What a shell of the agent CLI looks like: a process named `claude`
    // above steward, with no marker in the environment.
    let bin_dir = tempfile::tempdir().unwrap();
    let claude = bin_dir.path().join("claude");
    std::os::unix::fs::symlink("/bin/sh", &claude).unwrap();
    let steward = assert_cmd::cargo::cargo_bin("steward");
    let output = env
        .program(&claude)
        .args([
            "-c",
            &format!(
                "env -u CLAUDECODE {} unblock g --reason mine; exit $?",
                steward.display()
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("only a person may unblock"), "{stderr}");
    assert_eq!(env.goal_json("g")["status"], "blocked");
    // The rule that decided is in what the agent writes.
    env.add_goal("h");
    env.program(&claude)
        .args([
            "-c",
            &format!("{} assess h --summary trying; exit $?", steward.display()),
        ])
        .output()
        .unwrap();
    let event = env
        .events()
        .into_iter()
        .rev()
        .find(|e| e["action"] == "assessed")
        .unwrap();
    assert_eq!(event["actor"], "agent");
    assert!(
        event["actor_rule"]
            .as_str()
            .is_some_and(|rule| rule.starts_with("runs under claude (pid ")),
        "{event}"
    );
}

#[test]
fn an_agents_environment_cannot_loosen_limits_or_turn_steward_on() {
    let env = TestEnv::initialised();
    env.write_config("enabled: false\nglobal_limits:\n  max_active_goals: 1\n");
    env.add_goal("one");
    agent(&env)
        .env("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "50")
        .args(["add", "two", "--title", "T", "--criterion", "C"])
        .assert()
        .code(4);
    let output = agent(&env)
        .env("STEWARD_ENABLED", "true")
        .arg("tick")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("disabled"),
        "{output:?}"
    );
    agent(&env)
        .env("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "50")
        .env("STEWARD_ENABLED", "true")
        .arg("config")
        .assert()
        .success()
        .stderr(
            predicate::str::contains(
                "STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS is ignored: an agent's environment may tighten global_limits.max_active_goals, never loosen it",
            )
            .and(predicate::str::contains("STEWARD_ENABLED is ignored")),
        );
    // A person's environment may still raise a limit.
    env.steward()
        .env("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "2")
        .args(["add", "two", "--title", "T", "--criterion", "C"])
        .assert()
        .success();
}

#[test]
fn complete_respects_the_deadline() {
    let mut env = TestEnv::initialised();
    env.steward()
        .args(["add", "late", "--title", "T", "--criterion", "C"])
        .args(["--deadline", "2026-11-22T00:00:00Z"])
        .assert()
        .success();
    env.set_now("2026-11-23T00:00:00Z");
    agent(&env)
        .args(["complete", "late", "--reason", "done", "--met", "1"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "`late` cannot be completed: deadline 2026-11-22T00:00:00Z passed; the goal failed",
        ));
    let goal = env.goal_json("late");
    assert_eq!(goal["status"], "failed");
    assert!(goal["receipt"].is_null(), "{goal}");
}

/// A seal is bound to its store: an agent that weakens its goal in a
/// scratch store of its own, lets steward seal it there (a store's first
/// write takes its goals as they are) and copies the file and its seal
/// back, has changed the goal outside steward.
#[test]
fn a_goal_sealed_in_another_store_and_copied_back_is_held() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["add", "g", "--title", "G", "--criterion", "Built"])
        .args(["--verify", "file_exists:built.txt@1"])
        .assert()
        .success();
    let scratch = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(scratch.path().join("state/goals")).unwrap();
    let weakened = env
        .read("state/goals/g.md")
        .replace("target: built.txt", "target: state");
    std::fs::write(scratch.path().join("state/goals/g.md"), weakened).unwrap();
    agent(&env)
        .current_dir(scratch.path())
        .args(["init", "-q"])
        .assert()
        .success();
    for path in ["state/goals/g.md", "state/seals/open/g"] {
        std::fs::copy(scratch.path().join(path), env.path(path)).unwrap();
    }
    agent(&env)
        .args(["complete", "g", "--reason", "built"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("changed outside steward"));
    assert_ne!(env.goal_json("g")["status"], "completed");
}

/// An open goal moved among the closed ones is no goal closed by steward:
/// unchanged or marked done with a receipt of its own, it is found
/// removed from the open goals outside steward, its label is not the
/// agent's to take, and nothing reads it as completed.
#[test]
fn an_open_goal_moved_among_the_closed_ones_is_found_removed() {
    for marked_done in [false, true] {
        let env = TestEnv::initialised();
        env.add_goal("g");
        env.steward().args(["tick", "-q"]).assert().success();
        let id = env.goal_json("g")["id"].as_str().unwrap().to_string();
        let mut text = env.read("state/goals/g.md");
        if marked_done {
            text = text.replace("status: active", "status: completed").replace(
                "blockers: []",
                "blockers: []\nreceipt:\n  completed_at: 2026-11-21T04:00:00Z\n  by: agent\n  reason: done",
            );
        }
        std::fs::create_dir_all(env.path("state/goals/closed")).unwrap();
        env.write(&format!("state/goals/closed/g-{}.md", &id[..8]), &text);
        std::fs::remove_file(env.path("state/goals/g.md")).unwrap();
        env.steward()
            .arg("tick")
            .assert()
            .code(3)
            .stdout(predicate::str::contains("g: deleted_outside"));
        agent(&env)
            .args(["add", "g", "--title", "Mine now", "--criterion", "x"])
            .assert()
            .code(4);
        let events = env.events();
        assert!(
            !events.iter().any(|e| e["action"] == "pulled"),
            "taken as closed on another machine: {events:?}"
        );
        assert!(
            !events
                .iter()
                .any(|e| e["action"] == "completed" || e["to"] == "completed"),
            "{events:?}"
        );
    }
}
