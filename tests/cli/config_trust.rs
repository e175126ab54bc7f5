//! steward-design(7), "The configuration is a person's": every setting of
//! both configuration files is weighed against what a person on this
//! machine accepted. What loosens waits for `steward config accept`; what
//! tightens counts at once and is recorded; a file that does not load
//! leaves the accepted configuration in force.

use predicates::prelude::*;

use crate::common::TestEnv;

fn agent(env: &TestEnv) -> assert_cmd::Command {
    let mut cmd = env.steward();
    cmd.env("CLAUDECODE", "1");
    cmd
}

/// What a careful person accepted: a person judges unchecked criteria,
/// and the limits are the defaults.
const ACCEPTED: &str = "judge:\n  unchecked: person\n";

/// The value `config` shows for `key`, and where it came from.
fn in_force(env: &TestEnv, key: &str) -> String {
    let output = env.steward().arg("config").output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find(|line| line.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("{key} not in {stdout}"))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each loosening an agent (or a pull) writes into either file is held at
/// what was accepted, said on every `config`, `tick` and `doctor`; the
/// person's `config accept` is what makes it count.
#[test]
fn every_setting_an_agent_loosens_waits_for_a_person() {
    // (file, what the agent writes, each setting held and its value)
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        (
            "steward.yaml",
            "judge:\n  unchecked: agent\n",
            &[("judge.unchecked", "person")],
        ),
        (
            "steward.yaml",
            "judge:\n  unchecked: person\nconfirmation:\n  require_for: []\n",
            &[("confirmation.require_for", "[critical, high]")],
        ),
        (
            "steward.yaml",
            "judge:\n  unchecked: person\ncircuit_breaker:\n  enabled: false\n",
            &[("circuit_breaker.enabled", "true")],
        ),
        (
            "steward.yaml",
            "judge:\n  unchecked: person\nglobal_limits:\n  max_active_goals: 500\n",
            &[("global_limits.max_active_goals", "5")],
        ),
        (
            "steward.yaml",
            "judge:\n  unchecked: person\nverification:\n  github_api: http://127.0.0.1:9\n  allow_private_hosts: true\n",
            &[
                ("verification.github_api", "https://api.github.com"),
                ("verification.allow_private_hosts", "false"),
            ],
        ),
        (
            "steward.yaml",
            "judge:\n  unchecked: person\ndispatch:\n  enabled: true\n  sandbox: off\n  agent: mine\nagents:\n  mine:\n    command: [sh, -c, 'echo pwned']\n",
            &[
                ("dispatch.enabled", "false"),
                ("dispatch.sandbox", "auto"),
                ("dispatch.agent", "claude"),
            ],
        ),
        (
            "state/local/steward.yaml",
            "judge:\n  unchecked: agent\ndefaults:\n  cooldown: 1s\n",
            &[("judge.unchecked", "person"), ("defaults.cooldown", "10m")],
        ),
    ];
    for (file, text, held) in cases {
        let env = TestEnv::initialised();
        env.write_config(ACCEPTED);
        env.write(file, text);
        let keys: Vec<&str> = held.iter().map(|(key, _)| *key).collect();
        for (key, value) in *held {
            assert!(
                in_force(&env, key).starts_with(&format!("{key} = {value} #")),
                "{file}: {text}: {}",
                in_force(&env, key)
            );
        }
        for command in ["config", "tick", "doctor", "status"] {
            let output = agent(&env).arg(command).output().unwrap();
            let said = String::from_utf8_lossy(&output.stdout).to_string()
                + &String::from_utf8_lossy(&output.stderr);
            let warning = said
                .lines()
                .find(|line| {
                    line.contains(
                        "the configuration files loosen what a person accepted on this machine (",
                    )
                })
                .unwrap_or_else(|| panic!("{command}: {said}"));
            for key in &keys {
                assert!(warning.contains(key), "{command}: {key}: {warning}");
            }
        }
        agent(&env)
            .args(["config", "accept"])
            .assert()
            .code(4)
            .stderr(predicate::str::contains(
                "only a person may accept the configuration",
            ));
        // Nothing an agent runs takes it: a loosening is no tightening.
        agent(&env).arg("tick").assert().success();
        assert!(in_force(&env, keys[0]).contains(&format!("= {} #", held[0].1)));
        env.steward()
            .args(["config", "accept"])
            .assert()
            .success()
            .stdout(predicate::str::contains("accepted the configuration files"));
        let now = in_force(&env, keys[0]);
        assert!(now.contains(&format!("# {file}:")), "{file}: {now}");
        let accepted = env
            .events()
            .into_iter()
            .rfind(|e| e["action"] == "config_accepted")
            .unwrap();
        assert_eq!(accepted["actor"], "user");
        assert!(
            accepted["detail"].as_str().unwrap().contains(keys[0]),
            "{accepted}"
        );
    }
}

/// Where data lives is a person's, and never outside the store.
#[test]
fn paths_in_the_configuration_stay_inside_the_store() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    for text in [
        "goals_dir: ../elsewhere\n",
        "mirror:\n  path: /tmp/ACTIVE.md\n",
        "episodes:\n  path: state/../../out.md\n",
    ] {
        env.write("steward.yaml", text);
        env.steward()
            .arg("list")
            .assert()
            .success()
            .stdout(predicate::str::contains("g  active"))
            .stderr(predicate::str::contains(
                "a path inside the store, relative to it, without `..`",
            ))
            .stderr(predicate::str::contains(
                "is in force until the file loads again",
            ));
    }
    // A link on the way leads out as well.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("elsewhere")).unwrap();
    env.write("steward.yaml", "mirror:\n  path: elsewhere/ACTIVE.md\n");
    env.steward()
        .args(["config", "accept"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("steward.yaml:2:1: mirror.path:"))
        .stderr(predicate::str::contains(
            "is a symbolic link: steward keeps its data inside the store, with no link on the way",
        ));
    // Held meanwhile, as any change of where data lives.
    env.steward()
        .arg("tick")
        .assert()
        .success()
        .stderr(predicate::str::contains("(mirror.path)"));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// A change that only tightens is in force at once, without a person, and
/// the next `tick` records it once; loosening it again waits.
#[test]
fn a_tightening_counts_at_once_and_tick_records_it_once() {
    let env = TestEnv::initialised();
    env.write_config("global_limits:\n  max_active_goals: 10\n");
    env.write(
        "steward.yaml",
        "global_limits:\n  max_active_goals: 3\njudge:\n  unchecked: person\n",
    );
    assert_eq!(
        in_force(&env, "global_limits.max_active_goals"),
        "global_limits.max_active_goals = 3 # steward.yaml:2"
    );
    assert_eq!(
        in_force(&env, "judge.unchecked"),
        "judge.unchecked = person # steward.yaml:4"
    );
    agent(&env).args(["tick", "-q"]).assert().success();
    agent(&env).args(["tick", "-q"]).assert().success();
    let recorded: Vec<_> = env
        .events()
        .into_iter()
        .filter(|e| e["action"] == "config_tightened")
        .collect();
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let detail = recorded[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("global_limits.max_active_goals = 3")
            && detail.contains("judge.unchecked = person"),
        "{detail}"
    );
    // Back to what the person once accepted: that is a loosening now.
    env.write("steward.yaml", "global_limits:\n  max_active_goals: 10\n");
    assert_eq!(
        in_force(&env, "global_limits.max_active_goals"),
        "global_limits.max_active_goals = 3 # accepted (steward config accept)"
    );
}

/// The records of what a person accepted, one per store in the key's
/// folder.
fn acceptances(env: &TestEnv) -> Vec<std::path::PathBuf> {
    let dir = env.home().join(".config/steward/stores");
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "config"))
        .collect();
    found.sort();
    found
}

/// What a person accepted is bound to its store: the record of a scratch
/// store where an agent's loose file was taken as it is verifies nowhere
/// else; and a record lost is not an acceptance of everything.
#[test]
fn an_acceptance_copied_from_another_store_does_not_verify() {
    let env = TestEnv::initialised();
    env.write_config(ACCEPTED);
    let [ours] = &acceptances(&env)[..] else {
        panic!("one record")
    };
    let loose = "judge:\n  unchecked: agent\nglobal_limits:\n  max_active_goals: 500\n";
    // Another store on this machine, with the same home and key, whose
    // person took its loose file as it is.
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(scratch.path().join("steward.yaml"), loose).unwrap();
    env.steward()
        .current_dir(scratch.path())
        .args(["init", "-q"])
        .assert()
        .success();
    let theirs = acceptances(&env)
        .into_iter()
        .find(|path| path != ours)
        .unwrap();
    std::fs::copy(&theirs, ours).unwrap();
    env.write("steward.yaml", loose);
    agent(&env)
        .arg("config")
        .assert()
        .stderr(predicate::str::contains(
            "no record of what a person accepted of the configuration verifies on this machine",
        ));
    assert_eq!(
        in_force(&env, "global_limits.max_active_goals"),
        "global_limits.max_active_goals = 5 # default",
        "nothing accepted verifies: the defaults"
    );
    // The same with the record removed: nothing is accepted, not all.
    std::fs::remove_file(ours).unwrap();
    assert_eq!(
        in_force(&env, "global_limits.max_active_goals"),
        "global_limits.max_active_goals = 5 # default"
    );
    agent(&env)
        .arg("tick")
        .assert()
        .stderr(predicate::str::contains(
            "no record of what a person accepted",
        ));
    env.steward().args(["config", "accept"]).assert().success();
    assert_eq!(
        in_force(&env, "global_limits.max_active_goals"),
        "global_limits.max_active_goals = 500 # steward.yaml:4"
    );
}

/// Removing the machine key is not a way to a first start: the store was
/// sealed before, so nothing is taken as it is, and an edit the agent made
/// still waits for a person.
#[test]
fn a_machine_key_removed_is_not_a_first_start() {
    let env = TestEnv::initialised();
    env.add_goal("g");
    env.write_config(ACCEPTED);
    let goal = env
        .read("state/goals/g.md")
        .replace("- [ ] First", "- [x] First");
    env.write("state/goals/g.md", &goal);
    std::fs::remove_file(env.home().join(".config/steward/machine-key")).unwrap();
    env.write("steward.yaml", "judge:\n  unchecked: agent\n");
    agent(&env).arg("tick").assert().code(3);
    let replaced = env
        .events()
        .into_iter()
        .find(|e| e["action"] == "key_replaced")
        .expect("recorded");
    assert!(
        replaced["detail"]
            .as_str()
            .unwrap()
            .contains("state/seals/open holds seals"),
        "{replaced}"
    );
    agent(&env)
        .args(["complete", "g", "--reason", "done"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("waits for a person to review"));
    agent(&env).arg("config").assert().stderr(predicate::str::contains(
        "no record of what a person accepted of the configuration verifies on this machine (its key was replaced",
    ));
    // The person looks, and takes the goal as it is now.
    env.steward().args(["accept", "g"]).assert().success();
    agent(&env)
        .args(["assess", "g", "--summary", "goes on"])
        .assert()
        .success();
}

/// An agent's own store, made for it: its first write seals its goals,
/// but takes neither its configuration nor its commands, which would run
/// outside the agent's sandbox (`steward` is let out of it).
#[test]
fn a_store_an_agent_writes_first_runs_none_of_its_commands() {
    let env = TestEnv::new();
    env.write(
        "steward.yaml",
        "verification:\n  allow_commands: true\njudge:\n  unchecked: agent\n",
    );
    env.write(
        "state/goals/x.md",
        "---\nid: 11111111-2222-3333-4444-555555555555\nlabel: x\ntitle: x\nstatus: active\nverification:\n  - type: command_exit_zero\n    target: touch ran\n    criterion: 1\n---\nx\n\n## Acceptance criteria\n\n- [ ] c\n",
    );
    let _ = agent(&env).args(["tick", "-q"]).assert();
    agent(&env)
        .args(["complete", "x", "--reason", "done"])
        .assert()
        .failure();
    assert!(!env.path("ran").exists(), "the agent's command ran");
    assert_eq!(
        in_force(&env, "verification.allow_commands"),
        "verification.allow_commands = false # default"
    );
    assert!(
        env.events()
            .iter()
            .any(|e| e["action"] == "sealed_by_agent"),
        "said"
    );
}

/// One store has one root, however it is named: a link to it, or a
/// trailing slash, finds the same marker and records, so no spelling of
/// its path is a first start.
#[test]
fn a_store_named_through_a_link_is_the_same_store() {
    let env = TestEnv::initialised();
    env.write_config(ACCEPTED);
    env.add_goal("g");
    let path = "state/goals/g.md";
    env.write(path, &env.read(path).replace("- [ ] First", "- [x] First"));
    std::fs::remove_dir_all(env.path("state/seals/open")).unwrap();
    let aliases = tempfile::tempdir().unwrap();
    let alias = aliases.path().join("alias");
    std::os::unix::fs::symlink(env.root(), &alias).unwrap();
    let slashed = format!("{}/", env.root().display());
    for root in [alias.display().to_string(), slashed] {
        agent(&env)
            .args([
                "-C",
                &root,
                "assess",
                "g",
                "--summary",
                "done",
                "--met",
                "1",
            ])
            .assert()
            .code(4)
            .stderr(predicate::str::contains("changed outside steward"));
    }
    assert!(!env.events().iter().any(|e| e["action"] == "sealed"));
}

/// A YAML tag makes a value that one reader takes as its value and another
/// keeps as a mapping: refused, with the accepted configuration in force.
#[test]
fn a_tagged_value_in_the_configuration_is_refused() {
    let env = TestEnv::initialised();
    env.write_config("dispatch:\n  max_cost_usd_per_day: 5\n");
    env.write("steward.yaml", "dispatch:\n  max_cost_usd_per_day: !x 1\n");
    agent(&env)
        .args(["tick", "-q"])
        .assert()
        .stderr(predicate::str::contains(
            "steward.yaml:2:25: the YAML tag `!x` is not read in a configuration file",
        ));
    env.write("steward.yaml", "");
    assert_eq!(
        in_force(&env, "dispatch.max_cost_usd_per_day"),
        "dispatch.max_cost_usd_per_day = 5 # accepted (steward config accept)"
    );
}

/// No silent gap in the operating system's part: runs that `dispatch.sandbox:
/// auto` would start without a sandbox are said by `doctor` and `status`
/// until it changes, and told once by `tick`; hooks installed without
/// `--sandbox` say what they leave open.
#[test]
fn runs_without_a_sandbox_and_hooks_without_one_are_said() {
    let env = TestEnv::initialised();
    env.write_config(
        "dispatch:\n  enabled: true\n  agent: plain\nagents:\n  plain:\n    command: [./agent.sh]\n    output: text\n",
    );
    let said = "runs of agent profile `plain` start without a sandbox";
    env.steward()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(said));
    env.steward()
        .arg("status")
        .assert()
        .stderr(predicate::str::contains(said));
    let first = env.steward().args(["tick", "-q"]).output().unwrap();
    assert!(String::from_utf8_lossy(&first.stderr).contains(said));
    let second = env.steward().args(["tick", "-q"]).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&second.stderr).contains(said),
        "told once"
    );
    env.write_config(
        "dispatch:\n  enabled: true\n  agent: plain\n  sandbox: required\nagents:\n  plain:\n    command: [./agent.sh]\n    output: text\n",
    );
    env.steward()
        .arg("status")
        .assert()
        .stderr(predicate::str::contains(said).not());
    env.steward()
        .args(["hook", "install", "claude-code"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "without --sandbox, the agent's own shell and file tools can still write the store's state/",
        ));
}
