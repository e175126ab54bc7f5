//! The guide's notifier recipes, each run with a stand-in for its tool,
//! and the rules: one notification per event, retries, quiet hours.

use std::path::Path;

use predicates::prelude::*;

use crate::common::TestEnv;

/// The first ```yaml block after `heading` in steward-guide(7).
fn recipe(heading: &str) -> String {
    let guide = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("man/steward-guide.7.md"),
    )
    .unwrap();
    let section = &guide[guide
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in man/steward-guide.7.md"))..];
    let start = section.find("```yaml\n").unwrap() + "```yaml\n".len();
    section[start..start + section[start..].find("```").unwrap()].to_string()
}

/// A stand-in for `tool`: records each argument on a line, then stdin.
fn stand_in(env: &TestEnv, tool: &str) {
    let path = env.path(&format!("bin/{tool}"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        format!("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > {tool}.args\ncat > {tool}.stdin\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// Blocks goal `g` and runs tick with the stand-ins on PATH.
fn block_and_tick(env: &TestEnv, extra_env: &[(&str, &str)]) -> std::process::Output {
    env.add_goal("g");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "g",
            "--summary",
            "need the prod token",
            "--stuck",
        ])
        .assert()
        .success();
    let mut tick = env.steward();
    tick.env(
        "PATH",
        format!("{}:/usr/bin:/bin", env.path("bin").display()),
    );
    for (name, value) in extra_env {
        tick.env(name, value);
    }
    tick.arg("tick").output().unwrap()
}

#[test]
fn the_ntfy_recipe_posts_the_message() {
    let env = TestEnv::initialised();
    env.write_config(&recipe("### ntfy"));
    stand_in(&env, "curl");
    block_and_tick(&env, &[]);
    let args = env.read("curl.args");
    assert!(args.contains("Title: steward blocked"), "{args}");
    assert!(
        args.contains("steward: g (Goal g) blocked: the agent is stuck: need the prod token"),
        "{args}"
    );
    assert!(
        args.ends_with("https://ntfy.sh/my-steward-topic\n"),
        "{args}"
    );
}

#[test]
fn the_sendmail_recipe_mails_the_document() {
    let env = TestEnv::initialised();
    env.write_config(&recipe("### Email with sendmail"));
    stand_in(&env, "sendmail");
    block_and_tick(&env, &[]);
    let mail = env.read("sendmail.stdin");
    assert!(
        mail.starts_with("To: me@example.com\nSubject: steward: g (Goal g) blocked:"),
        "{mail}"
    );
    let body = mail.split_once("\n\n").unwrap().1;
    let document: serde_json::Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(document["event"], "blocked");
    assert_eq!(
        document["commands"][1],
        "steward unblock g --reason \"...\""
    );
}

#[test]
fn the_slack_recipe_sends_valid_json() {
    let env = TestEnv::initialised();
    env.write_config(&recipe("### A Slack webhook"));
    stand_in(&env, "curl");
    block_and_tick(&env, &[("SLACK_WEBHOOK_URL", "https://hooks.example/T1")]);
    let args: Vec<String> = env.read("curl.args").lines().map(str::to_string).collect();
    let body = &args[args.iter().position(|a| a == "-d").unwrap() + 1];
    let payload: serde_json::Value = serde_json::from_str(body).unwrap();
    assert!(
        payload["text"]
            .as_str()
            .unwrap()
            .starts_with("steward: g (Goal g) blocked:"),
        "{body}"
    );
    assert_eq!(args.last().unwrap(), "https://hooks.example/T1");
}

#[test]
fn the_notify_send_recipe_shows_the_message() {
    let env = TestEnv::initialised();
    env.write_config(&recipe("### The desktop, with notify-send"));
    stand_in(&env, "notify-send");
    block_and_tick(&env, &[]);
    let args = env.read("notify-send.args");
    assert!(
        args.starts_with("steward: blocked\nsteward: g (Goal g) blocked:"),
        "{args}"
    );
}

#[test]
fn a_notification_is_sent_once_and_a_failing_notifier_is_retried_three_times() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [./notify.sh]\n");
    env.write(
        "notify.sh",
        "#!/bin/sh\necho try >> tries.log\ncat > /dev/null\nexit 1\n",
    );
    std::fs::set_permissions(
        env.path("notify.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let output = block_and_tick(&env, &[]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("notify.command failed"));
    for _ in 0..4 {
        env.steward().arg("tick").output().unwrap();
    }
    assert_eq!(env.read("tries.log").lines().count(), 3);
    env.steward()
        .arg("status")
        .assert()
        .stdout(predicates::str::contains(
            "The notifier failed (1 notification(s) given up",
        ));
    // A working notifier is told of new events only.
    env.write(
        "notify.sh",
        "#!/bin/sh\ncat >> told.log\necho >> told.log\n",
    );
    env.steward().arg("tick").assert().code(3);
    assert!(!env.path("told.log").exists());
}

/// An agent that moves the outbox's cursor past what it did (or takes a
/// notification out) to keep the person from hearing of it: the outbox no
/// longer verifies, and the pass tells of the last day again.
#[test]
fn an_outbox_changed_outside_steward_tells_again_rather_than_nothing() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [sh, -c, 'cat >> told.log; echo >> told.log']\n");
    env.add_goal("g");
    env.add_goal("h");
    env.steward().arg("tick").assert().success();
    let stuck = |label: &str| {
        env.steward()
            .args([
                "--actor",
                "agent",
                "assess",
                label,
                "--summary",
                "need a person",
            ])
            .arg("--stuck")
            .assert()
            .success();
    };
    stuck("g");
    env.steward().arg("tick").assert().code(3);
    assert!(env.read("told.log").contains("\"label\":\"g\""));
    std::fs::remove_file(env.path("told.log")).unwrap();
    // The agent blocks h, then moves the cursor to the log's end.
    stuck("h");
    let outbox = env.read("state/notify.json");
    let mut lines: Vec<String> = outbox.lines().map(str::to_string).collect();
    let mut document: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    let part = document["events"]["part"].as_str().unwrap().to_string();
    let size = std::fs::metadata(env.path(&format!("state/events/{part}.jsonl")))
        .unwrap()
        .len();
    document["events"]["offset"] = size.into();
    lines[1] = document.to_string();
    std::fs::write(env.path("state/notify.json"), lines.join("\n") + "\n").unwrap();
    env.steward().arg("tick").assert().code(3);
    let told = env.read("told.log");
    assert!(told.contains("\"label\":\"h\""), "{told}");
}

#[test]
fn quiet_hours_hold_all_but_critical_goals() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [./notify.sh]\n  quiet_hours: \"03:00-05:00\"\n");
    env.write(
        "notify.sh",
        "#!/bin/sh\ncat >> told.log\necho >> told.log\n",
    );
    std::fs::set_permissions(
        env.path("notify.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    env.steward()
        .args([
            "add",
            "urgent",
            "--title",
            "T",
            "--criterion",
            "C",
            "--priority",
            "critical",
            "--confirmed",
        ])
        .assert()
        .success();
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "urgent",
            "--summary",
            "stuck",
            "--stuck",
        ])
        .assert()
        .success();
    // 04:00 UTC is inside the quiet hours (the test's local time is UTC).
    block_and_tick(&env, &[("TZ", "UTC")]);
    let told = env.read("told.log");
    assert!(told.contains("\"label\":\"urgent\""), "{told}");
    assert!(!told.contains("\"label\":\"g\""), "{told}");
}

#[test]
fn what_a_notifier_leaves_running_is_stopped_with_it() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [./notify.sh]\n");
    // A notifier that leaves a process behind in a session of its own.
    env.executable(
        "notify.sh",
        "#!/bin/sh\ncat > /dev/null\nsetsid sleep 600 < /dev/null > /dev/null 2>&1 &\necho $! > escaped.pid\n",
    );
    let output = block_and_tick(&env, &[]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let pid: u32 = env.read("escaped.pid").trim().parse().unwrap();
    let gone = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "))
    };
    let started = std::time::Instant::now();
    while !gone() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "the notifier's escapee {pid} still runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_digest_says_what_moved_and_what_it_cost() {
    let env = TestEnv::initialised();
    env.steward()
        .arg("digest")
        .assert()
        .success()
        .stdout("Since 2026-11-20T04:00:00Z:\n  nothing happened\n");
    let quiet: serde_json::Value = serde_json::from_slice(
        &env.steward()
            .args(["digest", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    // Nothing spent is 0, not the -0 an empty sum of floats gives.
    assert_eq!(quiet["cost_usd"].to_string(), "0.0");
    env.add_goal("g");
    env.steward()
        .args(["complete", "g", "--reason", "shipped"])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .success();
    env.steward()
        .args(["digest", "--since", "1h"])
        .assert()
        .success()
        .stdout(predicate::str::contains("completed  g — shipped"));
}

#[test]
fn the_digest_says_what_waits_for_a_person_and_what_a_check_contradicts() {
    let env = TestEnv::initialised();
    for goal in ["by-hand", "dropped", "edited"] {
        env.add_goal(goal);
    }
    env.steward()
        .args([
            "add",
            "built",
            "--title",
            "Build it",
            "--criterion",
            "built",
        ])
        .args(["--verify", "file_exists:built.txt@1"])
        .assert()
        .success();
    // Closed by hand (completed and abandoned), edited outside steward,
    // and an agent's word its own check contradicts.
    let edit = |goal: &str, from: &str, to: &str| {
        let path = format!("state/goals/{goal}.md");
        env.write(&path, &env.read(&path).replacen(from, to, 1));
    };
    edit("by-hand", "status: active", "status: completed");
    edit("dropped", "status: active", "status: abandoned");
    edit("edited", "priority: normal", "priority: high");
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            "built",
            "--summary",
            "built it",
            "--met",
            "1",
        ])
        .assert()
        .success();
    env.steward().args(["tick", "-q"]).output().unwrap();
    let digest = env.steward().args(["digest"]).output().unwrap();
    let digest = String::from_utf8(digest.stdout).unwrap();
    for line in [
        "completed  by-hand (closed by hand, no receipt)",
        "abandoned  dropped — closed by hand",
        "waits      edited — for a person's review: ",
        "met        built #1 built (by agent, but its check fails: file_exists built.txt: missing)",
    ] {
        assert!(digest.contains(line), "{line}\n{digest}");
    }
    // The list counts what stands: a criterion its check contradicts is
    // not done.
    env.steward()
        .args(["list"])
        .assert()
        .stdout(predicate::str::is_match(r"built\s+active\s+normal\s+0/1").unwrap());
}

/// Appends every document it gets as one line to `log`.
fn logging_notifier(env: &TestEnv, name: &str, log: &str) {
    env.executable(
        name,
        &format!("#!/bin/sh\ntr -d '\\n' >> {log}\necho >> {log}\n"),
    );
}

fn told(env: &TestEnv, log: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(env.path(log))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn stuck(env: &TestEnv, goal: &str) {
    env.steward()
        .args([
            "--actor",
            "agent",
            "assess",
            goal,
            "--summary",
            "need the token",
            "--stuck",
        ])
        .assert()
        .success();
}

#[test]
fn every_notification_names_its_goal_closed_ones_too() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [./notify.sh]\n");
    logging_notifier(&env, "notify.sh", "told.log");
    env.add_goal("done-one");
    env.steward()
        .args([
            "--actor", "agent", "complete", "done-one", "--reason", "shipped",
        ])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .success();
    env.steward().arg("tick").assert().success();
    let told = told(&env, "told.log");
    assert_eq!(told.len(), 1, "{told:?}");
    let completed = &told[0];
    assert_eq!(completed["event"], "completed");
    assert_eq!(completed["goal"]["label"], "done-one", "{completed}");
    assert_eq!(completed["goal"]["title"], "Goal done-one");
    assert!(
        completed["message"]
            .as_str()
            .unwrap()
            .starts_with("steward: done-one (Goal done-one) completed: shipped"),
        "{completed}"
    );
    assert!(
        completed["id"].as_str().unwrap().ends_with("-completed"),
        "a stable id: {completed}"
    );
}

#[test]
fn routes_send_a_goals_events_by_priority_and_owner() {
    let env = TestEnv::initialised();
    env.write_config(
        "notify:
  command: [./notify.sh]
  routes:
    - priorities: [critical]
      command: [./pager.sh]
    - owners: [alice]
      events: [blocked, agent]
      command: [./alice.sh]
",
    );
    for (name, log) in [
        ("notify.sh", "told.log"),
        ("pager.sh", "paged.log"),
        ("alice.sh", "alice.log"),
    ] {
        logging_notifier(&env, name, log);
    }
    env.steward()
        .args([
            "add",
            "fire",
            "--title",
            "Put out the fire",
            "--criterion",
            "out",
        ])
        .args(["--priority", "critical", "--confirmed"])
        .assert()
        .success();
    env.add_goal("chores");
    env.add_goal("other");
    env.write_goal(
        "chores",
        &env.read("state/goals/chores.md")
            .replace("priority: normal", "priority: normal\nowner: alice"),
    );
    for goal in ["fire", "chores", "other"] {
        stuck(&env, goal);
    }
    env.steward().arg("tick").assert().code(3);
    let label = |docs: Vec<serde_json::Value>| -> Vec<String> {
        docs.iter()
            .map(|d| d["goal"]["label"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(label(told(&env, "paged.log")), ["fire"]);
    assert_eq!(label(told(&env, "alice.log")), ["chores"]);
    assert_eq!(label(told(&env, "told.log")), ["other"]);
    assert!(
        told(&env, "alice.log")[0]["message"]
            .as_str()
            .unwrap()
            .contains("[alice]")
    );
    // A route is a command: changed by a pull, it waits for a person.
    env.write(
        "steward.yaml",
        &env.read("steward.yaml")
            .replace("./pager.sh", "./elsewhere.sh"),
    );
    env.steward()
        .arg("config")
        .assert()
        .stderr(predicates::str::contains("(notify.routes)"));
}

#[test]
fn a_wait_for_a_person_is_recalled_then_its_end_is_told() {
    let mut env = TestEnv::initialised();
    env.write_config(
        "notify:\n  command: [./notify.sh]\n  remind_after: 24h\n  max_reminders: 2\n",
    );
    logging_notifier(&env, "notify.sh", "told.log");
    env.add_goal("g");
    stuck(&env, "g");
    env.steward().arg("tick").assert().code(3);
    for hours in [12, 25, 50, 75, 100] {
        env.set_now(&format!(
            "2026-11-{}T{:02}:00:00Z",
            21 + (4 + hours) / 24,
            (4 + hours) % 24
        ));
        env.steward().arg("tick").assert().code(3);
    }
    let events: Vec<String> = told(&env, "told.log")
        .iter()
        .map(|d| d["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        events,
        ["blocked", "reminder", "reminder"],
        "two reminders, a day apart"
    );
    let reminder = &told(&env, "told.log")[1];
    assert!(
        reminder["message"]
            .as_str()
            .unwrap()
            .contains("g still waits for a person (blocked, reminder 1 of 2)"),
        "{reminder}"
    );
    assert_eq!(
        reminder["commands"][1],
        "steward unblock g --reason \"...\""
    );
    env.steward()
        .args(["unblock", "g", "--reason", "gave it the token"])
        .assert()
        .success();
    env.steward().arg("tick").assert().success();
    env.steward().arg("tick").assert().success();
    let all = told(&env, "told.log");
    let resolved = all.last().unwrap();
    assert_eq!(all.len(), 4, "resolved is told once: {all:?}");
    assert_eq!(resolved["event"], "resolved");
    assert!(
        resolved["message"]
            .as_str()
            .unwrap()
            .contains("g (back to stalled) no longer needs a person"),
        "{resolved}"
    );
}

#[test]
fn verifying_tells_a_person_only_when_a_person_must_judge() {
    let env = TestEnv::initialised();
    env.write_config("judge:\n  unchecked: person\nnotify:\n  command: [./notify.sh]\n");
    logging_notifier(&env, "notify.sh", "told.log");
    env.write("built.txt", "yes");
    env.steward()
        .args([
            "add",
            "checked",
            "--title",
            "Checked",
            "--criterion",
            "built",
        ])
        .args(["--verify", "file_exists:built.txt@1"])
        .assert()
        .success();
    // Its check passes: verifying, and the agent completes it.
    env.steward().arg("tick").assert().success();
    assert_eq!(env.goal_json("checked")["status"], "verifying");
    assert!(told(&env, "told.log").is_empty());
    env.add_goal("word");
    env.steward()
        .args([
            "--actor", "agent", "complete", "word", "--reason", "trust me",
        ])
        .args(["--met", "1", "--met", "2", "--met", "3"])
        .assert()
        .code(4);
    env.steward().arg("tick").assert().code(3);
    let told = told(&env, "told.log");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["event"], "verifying");
    assert_eq!(told[0]["goal"]["label"], "word");
    assert_eq!(
        told[0]["commands"][1],
        "steward complete word --reason \"...\""
    );
}

#[test]
fn an_unreadable_file_is_told_once_and_the_rest_is_still_watched() {
    let env = TestEnv::initialised();
    env.write_config("notify:\n  command: [./notify.sh]\n  ping: [./ping.sh]\n");
    logging_notifier(&env, "notify.sh", "told.log");
    logging_notifier(&env, "ping.sh", "pings.log");
    env.add_goal("g");
    env.add_goal("other");
    env.write("state/obligations/obl-broken.json", "{ not json");
    stuck(&env, "g");
    let first = env.steward().args(["tick", "-q"]).output().unwrap();
    assert_eq!(first.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(
        stderr.contains("state/obligations/obl-broken.json"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&first.stdout).contains("g: blocked"));
    let second = env.steward().args(["tick", "-q"]).output().unwrap();
    // The file was told; the blocked goal is what the exit says now (a
    // file that stays broken never hides a goal waiting for a person).
    assert_eq!(second.status.code(), Some(3));
    assert!(
        second.stderr.is_empty(),
        "told once: {}",
        String::from_utf8_lossy(&second.stderr)
    );
    let told = told(&env, "told.log");
    let events: Vec<&str> = told.iter().map(|d| d["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["blocked", "problem"], "{told:?}");
    assert!(
        told[1]["message"]
            .as_str()
            .unwrap()
            .contains("obl-broken.json")
    );
    assert_eq!(told[1]["commands"][0], "steward doctor");
    assert_eq!(
        env.read("state/obligations/obl-broken.json"),
        "{ not json",
        "never rewritten"
    );
    // The rest works: the block, tasks, the hooks, and doctor says why.
    env.steward()
        .args(["prompt"])
        .assert()
        .success()
        .stdout(predicates::str::contains("other (normal, active)"));
    env.steward()
        .args(["task", "spawned", "--label", "lint", "--goal", "other"])
        .assert()
        .success();
    assert_eq!(env.read("state/obligations/obl-broken.json"), "{ not json");
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "state/obligations/obl-broken.json:1:3",
        ));
    // The dead man's switch heard both passes.
    assert_eq!(told_lines(&env, "pings.log"), 2);
}

fn told_lines(env: &TestEnv, log: &str) -> usize {
    std::fs::read_to_string(env.path(log))
        .unwrap_or_default()
        .lines()
        .count()
}
