//! Hand-edited goal files survive steward's writes byte for byte, except the
//! bytes each command means to change.
//!
//! `fixtures/roundtrip/<case>/` holds `goal.md` (a hand-written goal whose
//! label is the case name), `args` (one argument per line, after
//! `steward`), and either `expected.md` (the file after the command) or
//! `expected-error` (text stderr must contain; the file must not change).
//! STEWARD_REGENERATE=1 rewrites `expected.md`; review the diff.

use std::path::{Path, PathBuf};

use chrono::DateTime;
use proptest::prelude::*;
use steward::config::Config;
use steward::model::{Edit, ProgressField};
use steward::store::GoalFile;

use crate::common::TestEnv;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/roundtrip");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    cases
}

#[test]
fn fixture_corpus_round_trips() {
    let mut failures = Vec::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        // Written by hand before steward's first write here, which takes
        // the store's goals as they are.
        let env = TestEnv::new();
        let goal_path = format!("state/goals/{name}.md");
        let input = std::fs::read(case.join("goal.md")).unwrap();
        std::fs::create_dir_all(env.path("state/goals")).unwrap();
        std::fs::write(env.path(&goal_path), &input).unwrap();
        env.steward().arg("init").assert().success();
        let args = std::fs::read_to_string(case.join("args")).unwrap();
        let output = env.steward().args(args.lines()).output().unwrap();
        let after = std::fs::read(env.path(&goal_path)).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&output.stderr);

        if let Ok(expected_error) = std::fs::read_to_string(case.join("expected-error")) {
            if output.status.success() || !stderr.contains(expected_error.trim()) {
                failures.push(format!(
                    "{name}: expected an error containing {expected_error:?}, got: {stderr}"
                ));
            }
            if after != input {
                failures.push(format!(
                    "{name}: the file changed although the command failed"
                ));
            }
            continue;
        }
        if !output.status.success() {
            failures.push(format!(
                "{name}: `steward {}` failed: {stderr}",
                args.lines().collect::<Vec<_>>().join(" ")
            ));
            continue;
        }
        // Terminal or renamed goals move; the fixtures keep theirs in place.
        let expected_path = case.join("expected.md");
        if std::env::var_os("STEWARD_REGENERATE").is_some() {
            std::fs::write(&expected_path, &after).unwrap();
        } else if std::fs::read(&expected_path).ok() != Some(after.clone()) {
            failures.push(format!(
                "{name}: the file differs from expected.md; got:\n{}",
                String::from_utf8_lossy(&after)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Front matter a person might write: comments, blank lines, quoting
/// styles, flow and block mappings, unknown keys, in any order.
fn front_matter_line() -> impl Strategy<Value = String> {
    let word = "[a-z][a-z0-9_]{0,8}";
    let scalar = prop_oneof![
        "[a-zA-Z][a-zA-Z0-9 .,/-]{0,20}".prop_map(|s| s.trim().to_string()),
        "[a-zA-Z0-9 ':#-]{0,15}".prop_map(|s| format!("\"{}\"", s.replace('"', ""))),
        "[a-zA-Z0-9 \":#-]{0,15}".prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
        (0u32..1000).prop_map(|n| n.to_string()),
        Just("null".to_string()),
        Just("[a, b]".to_string()),
        Just("{k: v, n: 1}".to_string()),
    ];
    prop_oneof![
        (word, scalar.clone()).prop_map(|(k, v)| format!("x_{k}: {v}")),
        (word, scalar.clone(), "[a-z ]{0,10}").prop_map(|(k, v, c)| format!("x_{k}: {v}  # {c}")),
        "[ -~]{0,30}".prop_map(|c| format!("# {c}")),
        Just(String::new()),
        (word, word, scalar)
            .prop_map(|(k, c, v)| format!("x_{k}:\n  {c}: {v}\n  # nested comment\n  other: 1")),
        Just("title: 'A title: with colon'".to_string()),
        Just("status: active  # hand note".to_string()),
        Just("budget: {max_dispatches: 20, cooldown: 10m}".to_string()),
        Just("progress:\n  dispatches: 3\n  assessments: 4".to_string()),
        Just("tags: [a, b]".to_string()),
    ]
}

fn front_matter() -> impl Strategy<Value = (String, bool)> {
    (prop::collection::vec(front_matter_line(), 0..12), any::<bool>()).prop_map(|(lines, crlf)| {
        let newline = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("---{newline}");
        for line in lines {
            text.push_str(&line.replace('\n', newline));
            text.push_str(newline);
        }
        text.push_str(&format!("---{newline}Body text.{newline}{newline}## Acceptance criteria{newline}{newline}- [ ] one{newline}"));
        (text, crlf)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any front matter steward can read survives a write of an unrelated
    /// key: every old line is still there, in order, and every other value
    /// reads the same.
    #[test]
    fn writing_one_key_keeps_every_other_byte((text, _crlf) in front_matter(), assessments in 0i64..100) {
        let path = Path::new("state/goals/prop.md");
        let defaults = Config::default().defaults;
        let file = GoalFile::parse(path, text.clone()).unwrap();
        let Ok(before) = file.goal(&defaults) else {
            // Not a goal steward can read (duplicate keys, say): nothing to keep.
            return Ok(());
        };
        let mut edited = file.clone();
        edited.apply(&[Edit::Progress(ProgressField::Assessments(assessments as u64))]).unwrap();
        edited.append_history(DateTime::parse_from_rfc3339("2026-11-21T04:00:00Z").unwrap().to_utc(), "user", "note", "x");
        let after = edited.goal(&defaults).unwrap();

        let mut expected = before.clone();
        expected.progress.assessments = assessments as u64;
        expected.history.push(after.history.last().unwrap().clone());
        prop_assert_eq!(&after, &expected);

        // Every line of the old text is still there, in order, except the
        // `assessments:` line that changed.
        let mut remaining = edited.text().split_inclusive('\n');
        for line in text.split_inclusive('\n').filter(|l| !l.trim_start().starts_with("assessments:")) {
            prop_assert!(remaining.any(|l| l == line), "lost line {:?} in\n{}", line, edited.text());
        }
    }
}
