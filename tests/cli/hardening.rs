//! A store an agent can write must not hurt the person who runs steward:
//! links out of the root, values that overflow, goals that grow too large,
//! labels claimed twice, terminal escapes, leftovers of killed writes.

use std::os::unix::fs::symlink;

use predicates::prelude::*;

use crate::common::TestEnv;

/// A file outside the store that must never change.
fn outside(env: &TestEnv) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("precious");
    std::fs::write(&path, "precious\n").unwrap();
    let _ = env;
    (dir, path)
}

#[test]
fn state_files_and_directories_that_link_out_of_the_root_are_refused() {
    for (link, to_dir) in [
        ("state/lock", false),
        ("state/events", true),
        ("state/goals/closed", true),
        ("state/edits", true),
    ] {
        let env = TestEnv::initialised();
        env.add_goal("g");
        let (dir, file) = outside(&env);
        let _ = std::fs::remove_file(env.path(link));
        let _ = std::fs::remove_dir_all(env.path(link));
        let target = if to_dir {
            dir.path().to_path_buf()
        } else {
            file.clone()
        };
        symlink(&target, env.path(link)).unwrap();
        let args: &[&str] = if link == "state/edits" {
            &["edit", "g"]
        } else {
            &["abandon", "g", "--reason", "x"]
        };
        env.steward()
            .env("EDITOR", "true")
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(link));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "precious\n",
            "{link}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{link}");
        assert_eq!(env.goal_json("g")["status"], "active", "{link}");
    }
}

#[test]
fn a_draft_that_is_a_link_is_not_opened() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    let (_dir, file) = outside(&env);
    std::fs::create_dir_all(env.path("state/edits")).unwrap();
    symlink(&file, env.path("state/edits/g.md")).unwrap();
    env.steward()
        .env("EDITOR", "sed -i -e s/precious/owned/")
        .args(["edit", "g"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "state/edits/g.md: not a plain file",
        ));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "precious\n");
}

#[test]
fn durations_and_numbers_too_large_are_usage_errors_and_never_panic() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for args in [
        vec!["update", "g", "--cooldown", "99999999999d"],
        vec!["update", "g", "--max-dispatches", "18446744073709551615"],
        vec!["update", "g", "--max-cost-usd", "1e308"],
        vec!["assess", "g", "--summary", "x", "--cost-usd", "1e308"],
        vec![
            "task",
            "spawned",
            "--label",
            "t",
            "--timeout",
            "99999999999d",
        ],
    ] {
        env.steward()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("internal error").not());
    }
    // The same values written by hand: a problem at the key, not a panic.
    env.write(
        "state/goals/huge.md",
        "---\nlabel: huge\nbudget:\n  cooldown: 99999999999d\n---\n## Acceptance criteria\n\n- [ ] x\n",
    );
    env.write(
        "state/goals/many.md",
        "---\nlabel: many\nprogress:\n  assessments: 18446744073709551615\n---\n## Acceptance criteria\n\n- [ ] x\n",
    );
    for (args, code) in [
        (vec!["tick"], 1),
        (vec!["list"], 1),
        // The block still goes to the agent; the problems go to stderr.
        (vec!["prompt", "--heartbeat"], 0),
    ] {
        env.steward()
            .args(&args)
            .assert()
            .code(code)
            .stderr(predicate::str::contains(
                "state/goals/huge.md:4:3: budget.cooldown",
            ))
            .stderr(predicate::str::contains(
                "state/goals/many.md:4:3: progress.assessments",
            ));
    }
    env.steward()
        .args(["assess", "g", "--summary", "still works"])
        .assert()
        .success();
    // A file that does not load leaves what was accepted in force, and
    // says why; `config accept` refuses it with its usage error.
    env.write_config("defaults:\n  cooldown: 99999999999d\n");
    env.steward()
        .args(["config", "accept"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "steward.yaml:2:3: defaults.cooldown",
        ));
}

#[test]
fn a_write_that_would_grow_a_goal_past_the_read_limit_is_refused() {
    let env = TestEnv::initialised();
    let description = "word ".repeat((1024 * 1024 - 300) / 5);
    env.write(
        "state/goals/big.md",
        &format!("---\nlabel: big\n---\n{description}\n\n## Acceptance criteria\n\n- [ ] x\n"),
    );
    let before = env.read("state/goals/big.md");
    env.steward()
        .args(["update", "big", "--note", &"n".repeat(1000)])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "more than the 1 MiB steward reads",
        ));
    assert_eq!(env.read("state/goals/big.md"), before);
    env.steward().args(["show", "big"]).assert().success();
}

#[test]
fn a_label_claimed_by_a_second_file_is_never_acted_on() {
    let env = TestEnv::initialised();
    env.add_goal("real");
    env.write(
        "state/goals/impostor.md",
        "---\nid: 22222222-0000-4000-8000-000000000000\nlabel: real\n---\n## Acceptance criteria\n\n- [ ] x\n",
    );
    let impostor = env.read("state/goals/impostor.md");
    env.steward()
        .args(["update", "real", "--note", "hello"])
        .assert()
        .success();
    assert!(env.read("state/goals/real.md").contains("note: hello"));
    for reference in ["impostor", "2222"] {
        env.steward()
            .args(["update", reference, "--note", "x"])
            .assert()
            .code(1);
    }
    env.steward()
        .arg("list")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "state/goals/impostor.md:3:1: label `real` does not match the file name `impostor.md`",
        ));
    assert_eq!(env.read("state/goals/impostor.md"), impostor);
}

#[test]
fn terminal_escapes_in_goal_files_never_reach_the_terminal() {
    let env = TestEnv::initialised();
    // Accepted by a person as written: a file nobody accepted waits for a
    // review, and the block offers it to no agent.
    env.write_goal(
        "evil",
        "---\nlabel: evil\ntitle: \"Evil \\e]0;owned\\a title \\e[2J\"\n---\nDescription \u{1b}[31mred\u{1b}[0m and \u{9b}c and a\rreturn.\n\n## Acceptance criteria\n\n- [ ] bell \u{7} here\n",
    );
    for args in [
        vec!["show", "evil"],
        vec!["list"],
        vec!["prompt", "--heartbeat"],
        vec!["prompt", "--message", "hi"],
        vec!["--color", "always", "show", "evil"],
    ] {
        let output = env.steward().args(&args).output().unwrap();
        let shown = String::from_utf8_lossy(&output.stdout).to_string()
            + &String::from_utf8_lossy(&output.stderr);
        // Colour codes are all that passes, and only when colouring.
        let colouring = args.contains(&"always");
        for bad in [
            "\u{1b}]",
            "\u{1b}[2J",
            "\u{7}",
            "\u{9b}",
            "\r",
            "\u{1b}[31mred",
        ] {
            if colouring && bad == "\u{1b}[31mred" {
                continue;
            }
            assert!(!shown.contains(bad), "{args:?} printed {bad:?}: {shown:?}");
        }
        assert!(shown.contains("evil"), "{args:?}: {shown}");
    }
}

#[test]
fn temporary_files_of_killed_writes_are_removed_by_tick() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    // pid 4194304 is above Linux's pid limit: never a live process.
    env.write("state/goals/.steward-tmp-4194304-abc", "partial");
    env.steward()
        .arg("doctor")
        .assert()
        .success()
        .stdout(predicate::str::contains("`steward tick` removes it"));
    env.steward().args(["tick", "-q"]).assert().success();
    assert!(!env.path("state/goals/.steward-tmp-4194304-abc").exists());
}

#[test]
fn every_state_directory_that_links_out_of_the_root_is_refused() {
    for link in [
        "state/hooks",
        "state/obligations",
        "state/runs",
        "state/cache",
        "state/seals",
        "state/claims",
        "state/machines",
    ] {
        let env = TestEnv::initialised();
        env.add_goal("g");
        let (dir, _) = outside(&env);
        let _ = std::fs::remove_dir_all(env.path(link));
        symlink(dir.path(), env.path(link)).unwrap();
        env.steward()
            .args(["abandon", "g", "--reason", "x"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(link));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{link}");
    }
}

#[test]
fn a_mirror_or_episode_file_that_is_a_link_is_neither_read_nor_written() {
    let env = TestEnv::initialised();
    env.write_config("episodes:\n  path: memory/{date}.md\n");
    env.add_goal("g");
    let (_dir, file) = outside(&env);
    std::fs::remove_file(env.path("ACTIVE-TASKS.md")).unwrap();
    symlink(&file, env.path("ACTIVE-TASKS.md")).unwrap();
    std::fs::create_dir_all(env.path("memory")).unwrap();
    symlink(&file, env.path("memory/2026-11-21.md")).unwrap();
    let output = env
        .steward()
        .args(["abandon", "g", "--reason", "not needed"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ACTIVE-TASKS.md: mirror not updated: a symbolic link"),
        "{stderr}"
    );
    assert!(stderr.contains("episode not written"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "precious\n");
    assert!(
        std::fs::symlink_metadata(env.path("ACTIVE-TASKS.md"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left as it is"
    );
}

/// A directory an agent makes where steward keeps a file of its own (the
/// journal, a seal, the pass's record) stops no write: it is moved aside,
/// kept, and named by `doctor`.
#[test]
fn a_directory_in_place_of_a_state_file_is_moved_aside_and_named() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for file in ["state/seals/journal", "state/tick.json"] {
        let _ = std::fs::remove_file(env.path(file));
        std::fs::create_dir_all(env.path(file)).unwrap();
        env.write(&format!("{file}/inside"), "an agent's\n");
    }
    env.steward()
        .args(["update", "g", "--note", "still works"])
        .assert()
        .success();
    env.steward().args(["tick", "-q"]).assert().success();
    assert!(env.path("state/tick.json").is_file());
    env.steward()
        .arg("doctor")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "state/seals/.steward-in-the-way-journal-",
        ))
        .stdout(predicate::str::contains(
            "state/.steward-in-the-way-tick.json-",
        ));
}

/// A folder that `{date}` names does not exist when the configuration is
/// checked: one an agent makes a link before its day is not followed.
#[test]
fn an_episode_folder_made_a_link_before_its_day_is_not_followed() {
    let env = TestEnv::initialised();
    env.write_config("episodes:\n  path: memory/{date}/episodes.md\n");
    env.add_goal("g");
    let (dir, _file) = outside(&env);
    std::fs::create_dir_all(env.path("memory")).unwrap();
    symlink(dir.path(), env.path("memory/2026-11-21")).unwrap();
    let output = env
        .steward()
        .args(["abandon", "g", "--reason", "not needed"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("episode not written"), "{stderr}");
    assert!(stderr.contains("memory/2026-11-21"), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // Without the link, the day's folder is made and the episode written.
    std::fs::remove_file(env.path("memory/2026-11-21")).unwrap();
    env.add_goal("h");
    env.steward()
        .args(["abandon", "h", "--reason", "not needed"])
        .assert()
        .success();
    assert!(
        env.read("memory/2026-11-21/episodes.md")
            .contains("h abandoned")
    );
}

/// Runs `cmd`, failing when it takes longer than a few seconds (a reader
/// stuck on a FIFO).
fn finishes(mut cmd: std::process::Command, what: &str) -> std::process::Output {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match wait.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: the test's own child.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{what} hung on a FIFO");
        }
    }
}

#[test]
fn a_fifo_in_the_state_never_hangs_a_command() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    std::fs::create_dir_all(env.path("state/hooks")).unwrap();
    for fifo in [
        "state/tick.json",
        "state/notify.json",
        "state/rotation.json",
        "state/hooks/s-1.json",
        "state/cache/terminal-goals",
    ] {
        let path = env.path(fifo);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
    }
    let mut tick = env.process();
    tick.arg("tick");
    finishes(tick, "tick");
    let mut prompt = env.process();
    prompt.args(["prompt", "--heartbeat"]);
    finishes(prompt, "prompt");
    let mut hook = env.process();
    hook.args(["hook", "claude-code"])
        .stdin(std::process::Stdio::piped());
    let mut child = hook.stdout(std::process::Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        br#"{"hook_event_name":"Stop","session_id":"s-1","stop_hook_active":false}"#,
    )
    .unwrap();
    drop(child.stdin.take());
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the hook hung"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
