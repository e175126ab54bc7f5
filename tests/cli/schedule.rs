//! `steward schedule`: the entry the system's scheduler runs, written with
//! the real `crontab` (on a user made for the test), systemd units that
//! `systemd-analyze verify` accepts, and a launchd plist a plist parser
//! reads back.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::TestEnv;

/// The binary under test, as the tests run it (`.ci/run` runs them once
/// more against the static build).
fn steward_bin() -> String {
    assert_cmd::cargo::cargo_bin("steward")
        .display()
        .to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn available(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A user made for the test, with a home and a store of their own: the
/// crontab steward writes is theirs, not the person's running the tests.
struct CronUser {
    name: String,
    home: PathBuf,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl CronUser {
    /// `None`, with the reason, where no user can be made (not root, no
    /// useradd or runuser) or cron's `crontab` is not installed.
    fn new() -> Result<CronUser, String> {
        for program in ["crontab", "useradd", "userdel", "runuser"] {
            if !available(program) {
                return Err(format!(
                    "`{program}` is not installed (Debian: cron, passwd, util-linux)"
                ));
            }
        }
        let uid = std::process::Command::new("id")
            .arg("-u")
            .output()
            .map_err(|e| e.to_string())?;
        if text(&uid.stdout).trim() != "0" {
            return Err("making a user for the test needs root".to_string());
        }
        let dir = tempfile::tempdir().unwrap();
        let name = format!("stw{}", std::process::id() % 100_000);
        let home = dir.path().join("home");
        let made = std::process::Command::new("useradd")
            .args(["--create-home", "--home-dir"])
            .arg(&home)
            .args(["--shell", "/bin/sh", &name])
            .output()
            .unwrap();
        if !made.status.success() {
            return Err(format!("useradd failed: {}", text(&made.stderr)));
        }
        let root = dir.path().join("store");
        std::fs::create_dir(&root).unwrap();
        for path in [dir.path(), &root] {
            let chown = std::process::Command::new("chown")
                .arg(format!("{name}:"))
                .arg(path)
                .status()
                .unwrap();
            assert!(chown.success());
        }
        let user = CronUser {
            name,
            home,
            root,
            _dir: dir,
        };
        assert!(user.steward(&["init", "-q"], &[]).status.success());
        Ok(user)
    }

    /// A command run as the user, with a clean environment.
    fn run(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = std::process::Command::new("runuser");
        command
            .args(["-u", &self.name, "--", "env", "-i"])
            .arg(format!("HOME={}", self.home.display()))
            .arg("PATH=/usr/local/bin:/usr/bin:/bin")
            .arg("STEWARD_NOW=2026-11-21T04:00:00Z")
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
            .arg(program)
            .args(args)
            .current_dir(&self.root);
        command.output().unwrap()
    }

    fn steward(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.run(&steward_bin(), args, env)
    }

    fn crontab(&self) -> String {
        text(&self.run("crontab", &["-l"], &[]).stdout)
    }

    fn set_crontab(&self, text: &str) {
        let file = self.root.join("../crontab.in");
        std::fs::write(&file, text).unwrap();
        let set = std::process::Command::new("crontab")
            .args(["-u", &self.name])
            .arg(&file)
            .status()
            .unwrap();
        assert!(set.success());
    }
}

impl Drop for CronUser {
    fn drop(&mut self) {
        let _ = std::process::Command::new("crontab")
            .args(["-u", &self.name, "-r"])
            .output();
        let _ = std::process::Command::new("userdel")
            .arg(&self.name)
            .output();
    }
}

#[test]
fn cron_gets_one_line_others_keep_their_bytes_and_the_line_runs_a_pass() {
    let user = match CronUser::new() {
        Ok(user) => user,
        Err(why) => {
            eprintln!("SKIPPED: schedule with the real crontab: {why}");
            return;
        }
    };
    let others = "MAILTO=\"\"\n# the person's own\n17 3 * * *\tbackup  --all   # nightly\n";
    user.set_crontab(others);

    let first = user.steward(&["schedule", "install", "--cron"], &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stdout).contains("every 5m"),
        "{}",
        text(&first.stdout)
    );
    let crontab = user.crontab();
    let (kept, ours) = crontab.split_at(others.len());
    assert_eq!(kept, others, "the other lines, byte for byte");
    let exe = steward_bin();
    let root = user.root.canonicalize().unwrap();
    assert!(
        ours.starts_with("*/5 * * * * PATH=/usr/local/bin:/usr/bin:/bin "),
        "{ours}"
    );
    assert!(
        ours.contains(&format!("{exe} -C {} tick -q # steward:", root.display())),
        "{ours}"
    );

    // Again: nothing changes, and it says so.
    let again = user.steward(&["schedule", "install", "--cron"], &[]);
    assert!(again.status.success());
    assert!(
        text(&again.stdout).contains("nothing changed"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(user.crontab(), crontab);

    // An agent cannot touch it.
    for action in ["install", "remove"] {
        let refused = user.steward(&["schedule", action], &[("CLAUDECODE", "1")]);
        assert_eq!(refused.status.code(), Some(4), "{action}");
        assert!(
            text(&refused.stderr).contains("only a person"),
            "{}",
            text(&refused.stderr)
        );
    }
    assert_eq!(user.crontab(), crontab);

    // The line is what cron runs: its command, by a shell with cron's
    // bare environment, makes a pass.
    let command = ours.splitn(6, ' ').nth(5).unwrap().trim_end();
    let ran = user.run("/bin/sh", &["-c", command], &[]);
    assert!(
        ran.status.success() || ran.status.code() == Some(3),
        "{}",
        text(&ran.stderr)
    );
    let status = user.steward(&["schedule", "status"], &[]);
    let said = text(&status.stdout);
    assert!(said.contains("cron: */5 * * * * — the crontab"), "{said}");
    assert!(
        said.contains(&format!("runs {exe} -C {} tick -q", root.display())),
        "{said}"
    );
    assert!(said.contains("last pass: 2026-11-21T04:00:00Z"), "{said}");

    // Another period replaces the line in place.
    let hourly = user.steward(&["schedule", "install", "--every", "2h"], &[]);
    assert!(hourly.status.success(), "{}", text(&hourly.stderr));
    let crontab = user.crontab();
    assert!(crontab.starts_with(others));
    assert_eq!(crontab.matches("# steward:").count(), 1);
    assert!(
        crontab[others.len()..].starts_with("0 */2 * * * "),
        "{crontab}"
    );

    // A line the person wrote for the same store is found, and doctor says
    // two entries run it once dispatch is on.
    user.set_crontab(&format!(
        "{crontab}*/10 * * * * cd {} && {exe} tick -q\n",
        root.display()
    ));
    let config = user.root.join("steward.yaml");
    let mut yaml = std::fs::read_to_string(&config).unwrap();
    yaml.push_str("dispatch:\n  enabled: true\n  agent: claude\n");
    std::fs::write(&config, yaml).unwrap();
    assert!(
        user.steward(&["config", "accept", "-q"], &[])
            .status
            .success()
    );
    let doctor = text(&user.steward(&["doctor"], &[]).stdout);
    assert!(
        doctor.contains("2 entries run this store's `tick`"),
        "{doctor}"
    );

    let removed = user.steward(&["schedule", "remove"], &[]);
    assert!(removed.status.success(), "{}", text(&removed.stderr));
    let crontab = user.crontab();
    assert!(!crontab.contains("# steward:"), "{crontab}");
    assert!(crontab.starts_with(others), "{crontab}");
    let status = text(&user.steward(&["schedule", "status"], &[]).stdout);
    assert!(status.contains("a line written by hand"), "{status}");
    user.set_crontab(others);
    let doctor = text(&user.steward(&["doctor"], &[]).stdout);
    assert!(
        doctor.contains("no scheduler runs this store's `tick`"),
        "{doctor}"
    );
}

#[test]
fn a_period_no_scheduler_can_keep_is_a_usage_error() {
    let env = TestEnv::initialised();
    env.steward()
        .args(["schedule", "install", "--launchd", "--every", "7m"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "does not divide an hour or a day",
        ));
    assert!(!env.home().join("Library").exists());
}

fn unit_dir(env: &TestEnv) -> PathBuf {
    env.home().join(".config/systemd/user")
}

/// The unit files steward wrote, by name.
fn units(env: &TestEnv) -> Vec<(String, String)> {
    let mut units: Vec<(String, String)> = std::fs::read_dir(unit_dir(env))
        .map(|entries| {
            entries
                .map(Result::unwrap)
                // Not what systemctl makes there (timers.target.wants/).
                .filter(|e| e.file_type().unwrap().is_file())
                .map(|e| {
                    let text = std::fs::read_to_string(e.path()).unwrap();
                    (e.file_name().into_string().unwrap(), text)
                })
                .collect()
        })
        .unwrap_or_default();
    units.sort();
    units
}

/// Whether a systemd user manager answers here.
fn user_manager_runs(env: &TestEnv) -> bool {
    env.program("systemctl")
        .args(["--user", "show-environment"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn systemd_units_verify_and_a_second_install_changes_nothing() {
    let env = TestEnv::initialised();
    if !available("systemctl") {
        eprintln!("SKIPPED: schedule --systemd: systemctl is not installed");
        return;
    }
    let manager = user_manager_runs(&env);
    let first = env
        .steward()
        .args(["schedule", "install", "--systemd", "--every", "10m"])
        .output()
        .unwrap();
    let units_now = units(&env);
    assert_eq!(units_now.len(), 2, "{units_now:?}");
    let (service, timer) = (&units_now[0], &units_now[1]);
    assert!(service.0.ends_with(".service") && timer.0.ends_with(".timer"));
    assert!(
        timer
            .1
            .contains("OnCalendar=*-*-* *:00/10:00\nPersistent=true"),
        "{}",
        timer.1
    );
    assert!(service.1.contains("SuccessExitStatus=3"), "{}", service.1);
    let root = env.root().canonicalize().unwrap();
    assert!(
        service.1.contains(&format!(
            "ExecStart=\"{}\" \"-C\" \"{}\" \"tick\" \"-q\"",
            steward_bin(),
            root.display()
        )),
        "{}",
        service.1
    );
    if available("systemd-analyze") {
        let verify = env
            .program("systemd-analyze")
            .arg("verify")
            .args([
                unit_dir(&env).join(&service.0),
                unit_dir(&env).join(&timer.0),
            ])
            .output()
            .unwrap();
        assert!(
            verify.status.success(),
            "{}{}",
            text(&verify.stdout),
            text(&verify.stderr)
        );
        assert!(
            text(&verify.stderr).trim().is_empty(),
            "{}",
            text(&verify.stderr)
        );
    } else {
        eprintln!("SKIPPED: systemd-analyze verify: systemd-analyze is not installed");
    }
    assert!(first.status.success(), "{}", text(&first.stderr));
    let enabled = env
        .program("systemctl")
        .args(["--user", "is-enabled", &timer.0])
        .output()
        .unwrap();
    assert!(
        enabled.status.success(),
        "enabled, with a manager or without"
    );
    if !manager {
        eprintln!("SKIPPED: starting the timer with systemctl --user: no user manager runs here");
        // Enabled all the same, and the person is told when it starts.
        let said = text(&first.stderr);
        assert!(
            said.contains("no systemd user manager runs for you now"),
            "{said}"
        );
        assert!(said.contains("loginctl enable-linger"), "{said}");
    }
    let modified = |env: &TestEnv| {
        units(env)
            .iter()
            .map(|(name, _)| {
                std::fs::metadata(unit_dir(env).join(name))
                    .unwrap()
                    .modified()
                    .unwrap()
            })
            .collect::<Vec<_>>()
    };
    let before = modified(&env);
    let again = env
        .steward()
        .args(["schedule", "install", "--systemd", "--every", "10m"])
        .output()
        .unwrap();
    assert_eq!(units(&env), units_now, "repeated install, same units");
    assert_eq!(modified(&env), before, "and not written again");
    assert!(
        text(&again.stdout).contains("nothing changed"),
        "{}",
        text(&again.stdout)
    );
    let status = text(
        &env.steward()
            .args(["schedule", "status"])
            .output()
            .unwrap()
            .stdout,
    );
    assert!(status.contains("systemd: *-*-* *:00/10:00"), "{status}");
    env.steward()
        .args(["schedule", "remove", "--systemd"])
        .assert()
        .success()
        .stdout(predicates::str::contains("removed"));
    assert!(units(&env).is_empty());
}

/// The plist read back by Python's plistlib, as JSON.
fn plist_as_json(path: &Path) -> Result<serde_json::Value, String> {
    let python = std::env::var("STEWARD_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let output = std::process::Command::new(python)
        .args([
            "-c",
            "import json, plistlib, sys\nprint(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))))",
        ])
        .arg(path)
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(text(&output.stderr));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())
}

#[test]
fn a_launchd_plist_reads_back_with_what_it_runs() {
    let env = TestEnv::new();
    let tricky = env.path("a <b> & \"c\"");
    std::fs::create_dir(&tricky).unwrap();
    env.steward()
        .current_dir(&tricky)
        .args(["init", "-q"])
        .assert()
        .success();
    let installed = env
        .steward()
        .current_dir(&tricky)
        .args(["schedule", "install", "--launchd", "--every", "15m"])
        .output()
        .unwrap();
    let agents = env.home().join("Library/LaunchAgents");
    let plists: Vec<PathBuf> = std::fs::read_dir(&agents)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(plists.len(), 1);
    if available("launchctl") {
        assert!(installed.status.success(), "{}", text(&installed.stderr));
    } else {
        // On Linux: written, and the error says it was not loaded.
        assert_eq!(installed.status.code(), Some(1));
        assert!(
            text(&installed.stderr).contains("`launchctl` is not installed"),
            "{}",
            text(&installed.stderr)
        );
    }
    let plist = match plist_as_json(&plists[0]) {
        Ok(plist) => plist,
        Err(why) if why.contains("No such file") || why.contains("not found") => {
            eprintln!("SKIPPED: reading the plist back: no python3 ({why})");
            return;
        }
        Err(why) => panic!("the plist does not parse: {why}"),
    };
    let root = tricky.canonicalize().unwrap();
    assert_eq!(
        plist["ProgramArguments"],
        serde_json::json!([
            steward_bin(),
            "-C",
            root.display().to_string(),
            "tick",
            "-q"
        ])
    );
    assert_eq!(plist["StartInterval"], 900);
    assert_eq!(plist["RunAtLoad"], true);
    assert!(
        plist["Label"]
            .as_str()
            .unwrap()
            .starts_with("io.github.goal-steward.tick.")
    );
    assert_eq!(
        plist["EnvironmentVariables"]["PATH"],
        std::env::var("PATH").unwrap()
    );
    let before = std::fs::read(&plists[0]).unwrap();
    let _ = env
        .steward()
        .current_dir(&tricky)
        .args(["schedule", "install", "--launchd", "--every", "15m"])
        .output()
        .unwrap();
    assert_eq!(std::fs::read(&plists[0]).unwrap(), before);
    env.steward()
        .current_dir(&tricky)
        .args(["schedule", "remove", "--launchd"])
        .assert()
        .success();
    assert!(!plists[0].exists());
}
