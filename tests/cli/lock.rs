use std::process::{Command, Stdio};

use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn a_held_lock_exits_75_naming_the_holder() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    // Hold the lock from another process with flock(1) for a while.
    let lock = env.path("state/lock");
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args([
            "sh",
            "-c",
            &format!("echo 4242 > {} && sleep 5", lock.display()),
        ])
        .stdout(Stdio::null())
        .spawn()
        .expect("flock(1) is installed");
    // Wait until the holder wrote its pid.
    for _ in 0..100 {
        if std::fs::read_to_string(&lock)
            .unwrap_or_default()
            .contains("4242")
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let before = env.snapshot();
    env.steward()
        .args(["--lock-timeout", "0s", "update", "deploy", "--note", "x"])
        .assert()
        .code(75)
        .stderr(predicate::str::contains(
            "store is locked by steward pid 4242",
        ));
    env.assert_unchanged(&before);
    // Reading does not need the lock.
    env.steward().arg("list").assert().success();
    holder.kill().ok();
    holder.wait().ok();
}

#[test]
fn fifty_concurrent_updates_leave_fifty_history_lines() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let children: Vec<_> = (0..50)
        .map(|n| {
            let mut cmd = env.process();
            cmd.args([
                "--lock-timeout",
                "60s",
                "update",
                "deploy",
                "--note",
                &format!("note {n}"),
            ]);
            cmd.stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = env.read("state/goals/deploy.md");
    for n in 0..50 {
        assert_eq!(
            text.matches(&format!("user note: note {n}\n")).count(),
            1,
            "note {n}"
        );
    }
    assert_eq!(env.goal_json("deploy")["label"], "deploy");
    assert_eq!(env.events().len(), 51);
}
