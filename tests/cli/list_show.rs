use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn list_sorts_by_priority_then_label() {
    let env = TestEnv::initialised();
    env.add_goal("zeta");
    env.add_goal("alpha");
    env.steward()
        .args([
            "add",
            "urgent",
            "--title",
            "Urgent",
            "--criterion",
            "C",
            "--priority",
            "critical",
            "--confirmed",
        ])
        .assert()
        .success();
    env.steward()
        .args(["update", "alpha", "--check", "1"])
        .assert()
        .success();
    let output = env.steward().arg("list").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let labels: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(labels, ["urgent", "alpha", "zeta"]);
    assert!(
        text.contains("alpha   active  normal      1/3   0s  Goal alpha"),
        "{text}"
    );
}

#[test]
fn list_filters_by_status_priority_and_all() {
    let env = TestEnv::initialised();
    env.add_goal("one");
    env.add_goal("two");
    env.steward().args(["pause", "two"]).assert().success();
    env.steward()
        .args(["cancel", "one", "--reason", "dup"])
        .assert()
        .success();
    env.steward()
        .arg("list")
        .assert()
        .stdout(predicate::str::starts_with("two "));
    env.steward()
        .args(["list", "--status", "abandoned"])
        .assert()
        .stdout(predicate::str::starts_with("one "));
    env.steward()
        .args(["list", "--priority", "low"])
        .assert()
        .stdout("");
    let output = env
        .steward()
        .args(["list", "--all", "--json"])
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["schema_version"], 1);
    let statuses: Vec<&str> = document["goals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["paused", "abandoned"]);
    env.steward()
        .args(["list", "--status", "sleeping"])
        .assert()
        .code(2);
}

#[test]
fn list_reports_broken_files_and_still_lists_the_rest() {
    let env = TestEnv::initialised();
    env.add_goal("good");
    env.write(
        "state/goals/broken.md",
        "---\nlabel: broken\ntitle: [unclosed\n---\nbody\n",
    );
    env.write("state/goals/conflict.md", "---\nlabel: conflict\n<<<<<<< HEAD\nstatus: active\n=======\nstatus: paused\n>>>>>>> other\n---\n");
    env.write(
        "state/goals/open.md",
        "---\nlabel: open\ntitle: never closed\n",
    );
    let big = format!("---\nlabel: big\n---\n{}", "x".repeat(1024 * 1024));
    env.write("state/goals/big.md", &big);
    let before = env.snapshot();
    env.steward()
        .arg("list")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("good"))
        .stderr(predicate::str::contains("state/goals/broken.md:4:1: front matter: did not find expected ',' or ']', while parsing a flow sequence on line 3"))
        .stderr(predicate::str::contains("state/goals/conflict.md:3:1: git conflict marker"))
        .stderr(predicate::str::contains("state/goals/open.md:1:1: front matter opened on line 1 is never closed"))
        .stderr(predicate::str::contains("state/goals/big.md:1:1: file is 1048595 bytes, larger than the 1 MiB"));
    let output = env.steward().args(["list", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["goals"].as_array().unwrap().len(), 1);
    assert_eq!(document["errors"].as_array().unwrap().len(), 4);
    // Writing to another goal leaves the broken files alone.
    env.steward()
        .args(["update", "good", "--note", "still works"])
        .assert()
        .success();
    for (path, bytes) in &before {
        // The goal written, its event, what `undo` keeps of it and its
        // seal.
        let written = path.ends_with("good.md")
            || path
                .parent()
                .is_some_and(|dir| dir.ends_with("state/events"))
            || path.parent().is_some_and(|dir| dir.ends_with("state/undo"))
            || path.ends_with("state/seals/open/good")
            || path.ends_with("state/seals/journal");
        if !written {
            assert_eq!(
                &std::fs::read(path).unwrap(),
                bytes,
                "{} changed",
                path.display()
            );
        }
    }
}

#[test]
fn commands_on_a_broken_goal_name_the_file_and_change_nothing() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/broken.md",
        "---\nlabel: broken\nbudget:\n  max_dispatches: many\n---\n",
    );
    let before = env.snapshot();
    for args in [
        vec!["show", "broken"],
        vec!["update", "broken", "--note", "x"],
        vec!["pause", "broken"],
    ] {
        env.steward()
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(
                "state/goals/broken.md:4:3: budget.max_dispatches: expected a whole number, found `many`",
            ));
    }
    env.assert_unchanged(&before);
}

#[test]
fn show_prints_everything_about_a_goal() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args([
            "update",
            "deploy",
            "--check",
            "2",
            "--blocker",
            "waiting on review",
        ])
        .assert()
        .success();
    env.steward()
        .args(["show", "deploy"])
        .assert()
        .success()
        .stdout(predicate::str::contains("deploy — Goal deploy"))
        .stdout(predicate::str::contains("Criteria (1/3 met):"))
        .stdout(predicate::str::contains("  2. [x] Second"))
        .stdout(predicate::str::contains("Blockers:  waiting on review"))
        .stdout(predicate::str::contains(
            "user updated: criterion 2 met; blockers: waiting on review",
        ));
}

#[test]
fn show_exit_status_follows_the_goal() {
    let env = TestEnv::initialised();
    env.add_goal("open");
    env.steward()
        .args(["show", "open", "--exit-status", "-q"])
        .assert()
        .code(3)
        .stdout("");
    env.steward()
        .args(["abandon", "open", "--reason", "no"])
        .assert()
        .success();
    env.steward()
        .args(["show", "open", "--exit-status"])
        .assert()
        .code(1);
    env.write(
        "state/goals/closed/done-12345678.md",
        "---\nid: 12345678-0000-0000-0000-000000000000\nlabel: done\nstatus: completed\n---\n",
    );
    env.steward()
        .args(["show", "done", "--exit-status"])
        .assert()
        .code(0);
}

#[test]
fn goals_resolve_by_label_id_and_unique_prefix() {
    let env = TestEnv::initialised();
    env.write(
        "state/goals/one.md",
        "---\nid: abcd1111-0000-0000-0000-000000000000\nlabel: one\n---\n",
    );
    env.write(
        "state/goals/two.md",
        "---\nid: abcd2222-0000-0000-0000-000000000000\nlabel: two\n---\n",
    );
    env.steward()
        .args(["show", "ONE"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("one"));
    env.steward()
        .args(["show", "abcd2222-0000-0000-0000-000000000000"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("two"));
    env.steward()
        .args(["show", "abcd1"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("one"));
    env.steward()
        .args(["show", "abcd"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`abcd` matches 2 goals"));
    env.steward()
        .args(["show", "abc"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no goal matches `abc`"));
}

#[test]
fn hand_written_goals_take_defaults() {
    let env = TestEnv::initialised();
    env.write("state/goals/minimal.md", "---\ntitle: Written by hand\n---\nJust do it.\n\n## Acceptance criteria\n\n- [x] started\n- [ ] finished\n");
    let goal = env.goal_json("minimal");
    assert_eq!(goal["label"], "minimal");
    assert_eq!(goal["status"], "active");
    assert_eq!(goal["priority"], "normal");
    assert_eq!(goal["budget"]["max_dispatches"], 20);
    assert_eq!(goal["budget"]["cooldown"], "10m");
    assert_eq!(goal["description"], "Just do it.");
    assert_eq!(goal["criteria"][0]["met"], true);
    assert_eq!(goal["id"], "");
    // The first change gives it an id.
    env.steward()
        .args(["update", "minimal", "--note", "hello"])
        .assert()
        .success();
    assert_eq!(env.goal_json("minimal")["id"].as_str().unwrap().len(), 36);
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .args(["list", "--color", "always"])
        .assert()
        .stdout(predicate::str::contains("\u{1b}["));
    env.steward()
        .args(["list", "--color", "never"])
        .assert()
        .stdout(predicate::str::contains("\u{1b}[").not());
    env.steward()
        .arg("list")
        .assert()
        .stdout(predicate::str::contains("\u{1b}[").not());
    env.steward()
        .env("NO_COLOR", "1")
        .arg("list")
        .assert()
        .stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn list_shows_each_goals_age() {
    let mut env = TestEnv::initialised();
    env.add_goal("old");
    env.set_now("2026-11-30T04:00:00Z");
    env.add_goal("new");
    env.set_now("2026-11-30T04:12:00Z");
    let output = env.steward().arg("list").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("new  active  normal    0/3  12m  Goal new"),
        "{text}"
    );
    assert!(
        text.contains("old  active  normal    0/3   9d  Goal old"),
        "{text}"
    );
}

/// Sets a file's modification time to `seconds` after the epoch.
fn set_mtime(path: &std::path::Path, seconds: u64) {
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// The cache line steward writes for `path` as it is now.
fn cache_line(path: &std::path::Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).unwrap();
    format!(
        "{} {} {} {} {} {} {}",
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ino(),
        m.ctime(),
        m.ctime_nsec(),
        path.file_name().unwrap().to_string_lossy()
    )
}

#[test]
fn a_goal_closed_by_hand_is_passed_over_with_a_stat_until_it_changes() {
    let env = TestEnv::initialised();
    env.add_goal("open");
    env.add_goal("done");
    let path = "state/goals/done.md";
    env.write(
        path,
        &env.read(path)
            .replace("status: active", "status: completed"),
    );
    set_mtime(&env.path(path), 1_790_000_000);
    let listed = |env: &TestEnv| {
        let output = env.steward().args(["list", "--json"]).output().unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    // A file changed in the last seconds is read, never cached.
    assert!(!listed(&env).contains("\"done\""));
    assert!(!env.path("state/cache/terminal-goals").exists());
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert!(!listed(&env).contains("\"done\""));
    let cache = env.read("state/cache/terminal-goals");
    assert!(
        cache.lines().any(|l| l == cache_line(&env.path(path))),
        "{cache}"
    );
    assert_eq!(env.read("state/cache/.gitignore"), "*\n");

    // Changed (here only its time): read again, still closed, and not
    // cached until it has been left alone for a while.
    set_mtime(&env.path(path), 1_790_000_001);
    assert!(!listed(&env).contains("\"done\""));
    assert!(!env.read("state/cache/terminal-goals").contains("done.md"));

    // Reopened by hand: listed again, and no longer cached.
    let text = env.read(path);
    env.write(path, &text.replace("status: completed", "status: active"));
    assert!(listed(&env).contains("\"done\""));
    assert!(!env.read("state/cache/terminal-goals").contains("done.md"));

    // Deleting the cache loses nothing; tick moves a goal closed by hand.
    env.write(path, &text);
    std::fs::remove_dir_all(env.path("state/cache")).unwrap();
    assert!(!listed(&env).contains("\"done\""));
    env.steward().args(["tick", "-q"]).assert().code(3);
    assert!(!env.path(path).exists());
    assert!(listed(&env).contains("\"open\""));
}

#[test]
fn one_tick_moves_more_goals_closed_by_hand_than_a_batch_and_clears_the_cache() {
    // A batch moves 512 goals closed by hand; the pass goes on with the
    // other 3 under the lock afresh.
    let env = TestEnv::initialised();
    for n in 0..515 {
        let label = format!("done-{n:03}");
        env.write(
            &format!("state/goals/{label}.md"),
            &format!(
                "---\nlabel: {label}\nstatus: completed\n---\n## Acceptance criteria\n\n- [ ] a\n"
            ),
        );
    }
    // Files changed in the last seconds are never cached.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    env.steward().args(["list", "--json"]).assert().success();
    let cache = "state/cache/terminal-goals";
    assert_eq!(env.read(cache).lines().count(), 1 + 515);
    let tick = |env: &TestEnv| {
        let output = env.steward().args(["tick", "--json"]).output().unwrap();
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let pass = tick(&env);
    assert_eq!(pass["closed_waiting"], 0);
    let moved = pass["findings"].as_array().unwrap();
    assert_eq!(
        moved
            .iter()
            .filter(|f| f["action"] == "closed_by_hand")
            .count(),
        515
    );
    assert_eq!(
        std::fs::read_dir(env.path("state/goals/closed"))
            .unwrap()
            .count(),
        515
    );
    assert!(!env.path(cache).exists(), "cleared once none waits");
    env.steward()
        .args(["list", "--json"])
        .assert()
        .stdout(predicate::str::contains("done-").not());
}

#[test]
fn thousands_of_goals_closed_by_hand_are_checked_on_every_core_and_a_changed_one_read_again() {
    // From 4,096 files the cached ones are stat'ed on two threads or more,
    // each with its half of the directory.
    let env = TestEnv::initialised();
    env.add_goal("open");
    let closed = |n: usize| format!("state/goals/done-{n:04}.md");
    for n in 0..4200 {
        env.write(
            &closed(n),
            &format!("---\nlabel: done-{n:04}\nstatus: completed\n---\n"),
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let listed = |env: &TestEnv| -> Vec<String> {
        let output = env.steward().args(["list", "--json"]).output().unwrap();
        let goals: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let labels = goals["goals"].as_array().unwrap().iter();
        labels
            .map(|g| g["label"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(listed(&env), ["open"]);
    let cache = "state/cache/terminal-goals";
    assert_eq!(env.read(cache).lines().count(), 1 + 4200);

    // One reopened near the end, one touched near the start: both read again.
    let reopened = env.read(&closed(4150)).replace("completed", "active");
    env.write(&closed(4150), &reopened);
    set_mtime(&env.path(&closed(10)), 1_790_000_000);
    assert_eq!(listed(&env), ["done-4150", "open"]);
    let cached = env.read(cache);
    assert!(
        !cached.contains("done-4150.md"),
        "an open goal is not cached"
    );
    assert!(
        !cached.contains("done-0010.md"),
        "changed too recently to cache"
    );
    assert_eq!(cached.lines().count(), 1 + 4198);
}

#[test]
fn a_cache_line_that_hides_an_open_goal_is_found_by_tick_and_cleared() {
    let env = TestEnv::initialised();
    env.add_goal("open");
    env.add_goal("hidden");
    env.steward().args(["tick", "-q"]).assert().success();
    // Whoever can write the store writes a line for an open goal, with the
    // file's real stamp: the goal is passed over with a stat, unread.
    let header = format!("steward terminal goals v2 {}", env!("CARGO_PKG_VERSION"));
    env.write(
        "state/cache/terminal-goals",
        &format!(
            "{header}\n{}\n",
            cache_line(&env.path("state/goals/hidden.md"))
        ),
    );
    env.steward()
        .args(["prompt"])
        .assert()
        .stdout(predicate::str::contains("[steward] open"))
        .stdout(predicate::str::contains("hidden").not());
    // tick reads every file: it says so, records it and clears the cache.
    env.steward()
        .args(["tick"])
        .assert()
        .stdout(predicate::str::contains(
            "hidden: edited_outside (state/cache/terminal-goals listed the open goal in hidden.md as closed",
        ));
    assert!(!env.path("state/cache/terminal-goals").exists());
    assert!(env.events().iter().any(|e| e["action"] == "cache_forged"));
    env.steward()
        .args(["prompt"])
        .assert()
        .stdout(predicate::str::contains("[steward] hidden"));
}
