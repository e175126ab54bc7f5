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
        "state/goals/misnamed.md:6:1: check ping x cannot run: unknown check type `ping`",
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
fn a_bad_configuration_stops_commands_with_2() {
    let env = TestEnv::initialised();
    env.write_config("enabled: true\nmirror:\n  enabled: sometimes\n");
    env.steward()
        .arg("list")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "steward.yaml:3:3: mirror.enabled: expected true or false, found `sometimes`",
        ));
    env.write_config("colour: red\n");
    env.steward()
        .arg("list")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "steward.yaml:1:1: unknown key `colour`",
        ));
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
