use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn init_creates_config_goal_dir_and_state_ignore() {
    let env = TestEnv::new();
    env.steward()
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains("created steward.yaml"));
    assert!(env.path("state/goals").is_dir());
    assert!(env.read("steward.yaml").contains("# enabled: true"));
    assert!(env.read("state/.gitignore").contains("lock"));
    // The commented template is valid configuration.
    env.steward()
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::contains("enabled = true"));
}

#[test]
fn init_twice_changes_nothing() {
    let env = TestEnv::initialised();
    std::fs::write(env.path("steward.yaml"), "enabled: false\n").unwrap();
    let before = env.snapshot();
    env.steward()
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains("already set up"));
    env.assert_unchanged(&before);
}

#[test]
fn init_git_creates_repository_and_union_merge_attribute() {
    let env = TestEnv::new();
    env.write(".gitattributes", "*.png binary");
    env.steward().args(["init", "--git"]).assert().success();
    assert!(env.path(".git").is_dir());
    assert_eq!(
        env.read(".gitattributes"),
        "*.png binary\nstate/events/*.jsonl merge=union\nACTIVE-TASKS.md merge=steward-mirror\n"
    );
    env.steward().args(["init", "--git"]).assert().success();
    assert_eq!(
        env.read(".gitattributes"),
        "*.png binary\nstate/events/*.jsonl merge=union\nACTIVE-TASKS.md merge=steward-mirror\n"
    );
}

#[test]
fn commands_find_the_root_from_a_subdirectory() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    std::fs::create_dir_all(env.path("src/deep")).unwrap();
    env.steward()
        .current_dir(env.path("src/deep"))
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("deploy"));
}

#[test]
fn root_flag_and_environment_choose_the_store() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    let elsewhere = tempfile::tempdir().unwrap();
    env.steward()
        .current_dir(elsewhere.path())
        .arg("list")
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("no steward store at"));
    env.steward()
        .current_dir(elsewhere.path())
        .args(["-C", env.root().to_str().unwrap(), "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("deploy"));
    env.steward()
        .current_dir(elsewhere.path())
        .env("STEWARD_ROOT", env.root())
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("deploy"));
}

#[test]
fn outside_a_store_every_command_but_init_refuses_and_creates_nothing() {
    let env = TestEnv::new();
    let missing = env.path("nowhere");
    let missing = missing.to_str().unwrap();
    let commands: [&[&str]; 14] = [
        &["tick"],
        &["tick", "--dry-run"],
        &["list"],
        &["show", "x"],
        &["prompt", "--heartbeat"],
        &["status"],
        &["digest"],
        &["budget"],
        &["tasks"],
        &["mirror"],
        &["audit"],
        &["doctor"],
        &["task", "spawned", "--label", "x"],
        &["assess", "x", "--summary", "s"],
    ];
    for args in commands {
        for root in [None, Some(missing)] {
            let mut cmd = env.steward();
            if let Some(root) = root {
                cmd.args(["-C", root]);
            }
            cmd.args(args)
                .assert()
                .code(1)
                .stdout("")
                .stderr(predicate::str::contains("no steward store at"))
                .stderr(predicate::str::contains("run `steward init`"));
        }
    }
    assert!(!env.path("nowhere").exists(), "tick created the root");
    assert_eq!(std::fs::read_dir(env.root()).unwrap().count(), 0);
    // What only prints, and init, work anywhere.
    env.steward().arg("config").assert().success();
    env.steward()
        .args(["completions", "bash"])
        .assert()
        .success();
    env.steward().args(["man"]).assert().success();
    env.steward()
        .args(["-C", missing, "init"])
        .assert()
        .success();
    env.steward()
        .args(["-C", missing, "tick"])
        .assert()
        .success();
}
