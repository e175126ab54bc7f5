use predicates::prelude::*;

use crate::common::TestEnv;

#[test]
fn doctor_is_quiet_when_all_is_well() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.steward()
        .arg("doctor")
        .assert()
        .success()
        .stdout("ok: 1 goal file checked, no problems\n");
}

#[test]
fn doctor_lists_every_problem_with_its_location() {
    let env = TestEnv::initialised();
    env.add_goal("deploy");
    env.write(
        "state/goals/broken.md",
        "---\nlabel: broken\ntitle: [x\n---\n",
    );
    env.write("state/goals/misnamed.md", "---\nid: 11111111-0000-0000-0000-000000000000\nlabel: other\nstatus: someday\npriority: urgent\nverification:\n  - type: ping\n    target: x\n---\n");
    env.write(
        "state/goals/twin.md",
        "---\nid: 11111111-0000-0000-0000-000000000000\nlabel: twin\n---\n",
    );
    env.write("state/goals/.steward-tmp-123-abc", "partial");
    env.write_config("defaults:\n  cooldwn: 5m\n");
    let before = env.snapshot();
    let output = env.steward().arg("doctor").output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "steward.yaml:2:3: unknown key `defaults.cooldwn` (did you mean `defaults.cooldown`?)",
        "state/goals/broken.md:4:1: front matter:",
        "state/goals/misnamed.md:3:1: label `other` does not match the file name `misnamed.md`",
        "state/goals/misnamed.md:4:1: unknown status `someday`",
        "state/goals/misnamed.md:5:1: unknown priority `urgent`",
        "state/goals/misnamed.md:6:1: unknown check type `ping` (known: manual, file_exists, command_exit_zero, http_ok, pr_merged, ci_green)",
        "state/goals/misnamed.md:2:1: id `11111111-0000-0000-0000-000000000000` is also used by state/goals/twin.md",
        "note: state/goals/.steward-tmp-123-abc: temporary file left by an interrupted write; `steward tick` removes it",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    env.assert_unchanged(&before);
}

#[test]
fn config_shows_values_and_sources() {
    let env = TestEnv::initialised();
    env.write_config("# mine\ndefaults:\n  cooldown: 5m\n");
    env.steward()
        .env("STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS", "9")
        .args(["--json", "config"])
        .assert()
        .success()
        .stdout(predicate::str::contains(r#"{"key":"defaults.cooldown","value":"5m","source":"steward.yaml:3"}"#))
        .stdout(predicate::str::contains(
            r#"{"key":"global_limits.max_active_goals","value":"9","source":"env STEWARD_GLOBAL_LIMITS_MAX_ACTIVE_GOALS"}"#,
        ))
        .stdout(predicate::str::contains(r#"{"key":"enabled","value":"true","source":"default"}"#));
}

#[test]
fn a_bad_configuration_stops_commands_with_2_before_anything_was_accepted() {
    let env = TestEnv::new();
    env.write(
        "steward.yaml",
        "enabled: true\nmirror:\n  enabled: sometimes\n",
    );
    env.steward()
        .arg("init")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "steward.yaml:3:3: mirror.enabled: expected true or false, found `sometimes`",
        ));
    env.write("steward.yaml", "colour: red\n");
    env.steward()
        .arg("init")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "steward.yaml:1:1: unknown key `colour` (see `steward config` for every key)",
        ));
}

/// A file that stops loading (a bad pull, a typo, an agent) never stops
/// steward: what a person here last accepted stays in force, every
/// command says so, `tick` tells the person once, and `config accept`
/// refuses the broken file.
#[test]
fn a_configuration_that_stops_loading_keeps_the_accepted_one_in_force() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 2\n");
    env.add_goal("a");
    env.write("steward.yaml", "global_limits:\n  max_active_goals: [\n");
    env.steward()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("a  active"))
        .stderr(predicate::str::contains(
            "steward.yaml:3:1: did not find expected node content",
        ))
        .stderr(predicate::str::contains(
            "the configuration a person last accepted on this machine is in force until the file loads again",
        ));
    env.add_goal("b");
    // The accepted limit holds: a third open goal is refused.
    env.steward()
        .args(["add", "c", "--title", "C", "--criterion", "x"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "global_limits.max_active_goals is 2",
        ));
    let tick = env.steward().args(["tick", "-q"]).assert().code(1);
    let told = String::from_utf8_lossy(&tick.get_output().stderr).to_string();
    assert!(told.contains("steward.yaml:3:1"), "{told}");
    env.steward()
        .args(["config", "accept"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("steward.yaml:3:1"));
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("steward.yaml:3:1"));
}

#[test]
fn bad_environment_values_are_usage_errors() {
    let env = TestEnv::initialised();
    env.steward()
        .env("STEWARD_NOW", "yesterday")
        .arg("list")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("STEWARD_NOW"));
    env.steward()
        .env("STEWARD_DEFAULTS_COOLDOWN", "soon")
        .arg("list")
        .assert()
        .code(2);
    env.steward()
        .args(["--lock-timeout", "forever", "list"])
        .assert()
        .code(2);
}

#[test]
fn doctor_reports_heartbeat_patterns_that_do_not_compile() {
    let env = TestEnv::initialised();
    env.write_config("heartbeat_patterns: [\"/(unclosed/\", ping]\n");
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "steward.yaml:1:1: heartbeat pattern `/(unclosed/` is skipped",
        ));
}

#[test]
fn config_says_where_each_value_came_from_and_what_it_ignored() {
    let env = TestEnv::initialised();
    env.write_config("enabled: true\n");
    env.steward()
        .env("STEWARD_ENABLED", "false")
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^enabled = false +# env STEWARD_ENABLED$").unwrap());
    // Empty is unset, as for every STEWARD_ variable.
    env.steward()
        .env("STEWARD_ENABLED", "")
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^enabled = true +# steward\.yaml:1$").unwrap());
    // A file-only setting in the environment is said to be ignored.
    env.steward()
        .env("STEWARD_VERIFICATION_ALLOW_COMMANDS", "true")
        .arg("config")
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^verification\.allow_commands = false +# default$").unwrap())
        .stderr(predicate::str::contains(
            "STEWARD_VERIFICATION_ALLOW_COMMANDS is ignored: verification.allow_commands is read from steward.yaml only",
        ));
}
