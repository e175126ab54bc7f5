//! Hostile goal files: each is reported with path, line and column, the
//! rest of the store keeps working, and nothing is rewritten.

use std::path::Path;

use predicates::prelude::*;
use proptest::prelude::*;

use crate::common::TestEnv;

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bad");
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, message) = l.split_once(": ").unwrap();
            (name.to_string(), message.to_string())
        })
        .collect()
}

#[test]
fn the_corpus_is_reported_and_left_alone() {
    let env = TestEnv::initialised();
    env.add_goal("good");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bad");
    let cases = corpus();
    for (name, _) in &cases {
        std::fs::copy(dir.join(name), env.path(&format!("state/goals/{name}"))).unwrap();
    }
    let before = env.snapshot();
    let output = env.steward().arg("list").output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("good"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (name, message) in &cases {
        let wanted = format!("state/goals/{name}:{message}");
        assert!(stderr.contains(&wanted), "missing {wanted:?} in\n{stderr}");
    }
    let doctor = env.steward().arg("doctor").output().unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout);
    for (name, _) in &cases {
        assert!(
            report.contains(&format!("state/goals/{name}:")),
            "doctor misses {name}:\n{report}"
        );
    }
    // The others keep working, and no hostile file is touched.
    env.steward()
        .args(["update", "good", "--note", "still fine"])
        .assert()
        .success();
    env.steward().arg("tick").assert().code(1);
    env.steward()
        .args(["prompt", "--heartbeat"])
        .assert()
        .success();
    for (path, bytes) in &before {
        if path.to_string_lossy().contains("/state/goals/") && !path.ends_with("good.md") {
            assert_eq!(
                &std::fs::read(path).unwrap(),
                bytes,
                "{} was rewritten",
                path.display()
            );
        }
    }
    // `state/goals/../../outside.md` would be the root's own outside.md.
    assert!(!env.path("outside.md").exists());
    assert!(!env.root().parent().unwrap().join("outside.md").exists());
}

#[test]
fn oversized_files_links_out_and_special_files_are_not_read() {
    let env = TestEnv::initialised();
    env.add_goal("good");
    env.write(
        "state/goals/huge.md",
        &format!("---\nlabel: huge\n---\n{}", "x".repeat(1 << 20)),
    );
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "---\nlabel: secret\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        env.path("state/goals/secret.md"),
    )
    .unwrap();
    let fifo = env.path("state/goals/pipe.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let output = env
        .steward()
        .args(["--lock-timeout", "5s", "list"])
        .timeout(std::time::Duration::from_secs(10))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "state/goals/huge.md:1:1: file is 1048596 bytes, larger than the 1 MiB steward reads"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "state/goals/secret.md:1:1: symbolic link to a file outside the goals directory"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("state/goals/pipe.md:1:1: not a regular file"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("good"));
    env.steward().args(["show", "secret"]).assert().code(1);
}

#[test]
fn an_unreadable_file_is_reported() {
    let env = TestEnv::initialised();
    env.add_goal("good");
    env.write("state/goals/locked.md", "---\nlabel: locked\n---\n");
    let path = env.path("state/goals/locked.md");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_ok() {
        // Running as root: permissions do not stop reads, nothing to test.
        return;
    }
    env.steward()
        .arg("list")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("good"))
        .stderr(predicate::str::contains(
            "state/goals/locked.md:1:1: cannot read: Permission denied",
        ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Reading a goal never panics, whatever the bytes.
    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..600), prefix in prop_oneof![Just(""), Just("---\n"), Just("---\nlabel: x\n")]) {
        let mut data = prefix.as_bytes().to_vec();
        data.extend(bytes);
        let defaults = steward::config::Config::default().defaults;
        if let Ok(text) = String::from_utf8(data.clone())
            && let Ok(file) = steward::store::GoalFile::parse(Path::new("x.md"), text)
        {
            let _ = file.goal(&defaults);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        std::fs::write(&path, &data).unwrap();
        if let Ok(file) = steward::store::GoalFile::read(&path) {
            let _ = file.goal(&defaults);
        }
    }
}
