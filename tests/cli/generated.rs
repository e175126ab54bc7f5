//! The checked-in completions/ and man/ must be what the binary generates.
//! Run with STEWARD_REGENERATE=1 to rewrite them.

use std::path::{Path, PathBuf};

use steward::cli::generate;

fn check_or_write(expected: &[(PathBuf, Vec<u8>)], dir: &Path) {
    let regenerate = std::env::var_os("STEWARD_REGENERATE").is_some();
    if regenerate {
        std::fs::create_dir_all(dir).unwrap();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !is_source(&path) {
                std::fs::remove_file(path).unwrap();
            }
        }
    }
    let mut stale = Vec::new();
    for (path, bytes) in expected {
        if regenerate {
            std::fs::write(path, bytes).unwrap();
        } else if std::fs::read(path).ok().as_deref() != Some(bytes.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    let mut present: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    present.retain(|p| !is_source(p) && !expected.iter().any(|(e, _)| e == p));
    stale.extend(
        present
            .iter()
            .map(|p| format!("{} (no longer generated)", p.display())),
    );
    assert!(
        stale.is_empty(),
        "generated files are out of date: {}\nrun `STEWARD_REGENERATE=1 cargo test --test cli generated` and commit the result",
        stale.join(", ")
    );
}

/// A page written by hand (`man/steward-guide.7.md`), kept beside the
/// generated ones: neither checked nor removed here.
fn is_source(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "md")
}

fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

#[test]
fn completions_are_up_to_date() {
    let dir = repo("completions");
    let expected: Vec<_> = generate::SHELLS
        .iter()
        .map(|shell| {
            (
                dir.join(generate::completion_file_name(*shell)),
                generate::completion(*shell),
            )
        })
        .collect();
    check_or_write(&expected, &dir);
}

#[test]
fn man_pages_are_up_to_date() {
    let dir = repo("man");
    let expected: Vec<_> = generate::man_pages()
        .into_iter()
        .map(|(name, page)| (dir.join(name), page))
        .collect();
    check_or_write(&expected, &dir);
}

#[test]
fn the_commands_print_what_is_checked_in() {
    let env = crate::common::TestEnv::new();
    let bash = env
        .steward()
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(
        bash.stdout,
        std::fs::read(repo("completions/steward.bash")).unwrap()
    );
    let page = env.steward().args(["man", "add"]).output().unwrap();
    assert_eq!(
        page.stdout,
        std::fs::read(repo("man/steward-add.1")).unwrap()
    );
    env.steward().args(["man", "nope"]).assert().code(2);
}

#[test]
fn every_page_a_man_page_names_exists() {
    let pages: Vec<String> = generate::man_pages().into_iter().map(|(n, _)| n).collect();
    for (name, page) in generate::man_pages() {
        let text = String::from_utf8(page).unwrap();
        for reference in text.split_whitespace().filter(|w| w.ends_with("(1)")) {
            let file = format!(
                "{}.1",
                reference.trim_end_matches("(1)").replace("\\-", "-")
            );
            assert!(
                pages.contains(&file),
                "{name} names {reference}, which does not exist"
            );
        }
        assert!(!text.contains("help(1)"), "{name} names a help page");
    }
    for page in [
        "steward.1",
        "steward-add.1",
        "steward-task-spawned.1",
        "steward-man.1",
    ] {
        let text = String::from_utf8(
            generate::man_page(Some(
                page.trim_start_matches("steward-").trim_end_matches(".1"),
            ))
            .unwrap_or_else(|| generate::man_page(None).unwrap()),
        )
        .unwrap();
        assert!(text.contains(".SH EXAMPLES"), "{page} has no EXAMPLES");
    }
    let main = String::from_utf8(generate::man_page(None).unwrap()).unwrap();
    for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
        assert!(
            main.contains(&format!(".SH \"{section}\""))
                || main.contains(&format!(".SH {section}")),
            "steward.1 lacks {section}"
        );
    }
}

#[test]
fn man_install_writes_every_page_where_man_looks() {
    let env = crate::common::TestEnv::new();
    env.steward()
        .args(["man", "--install", "share/man"])
        .assert()
        .success()
        .stdout(predicates::str::contains("man pages in share/man/man1"));
    for (name, page) in generate::man_pages() {
        assert_eq!(
            std::fs::read(env.path("share/man/man1").join(&name)).unwrap(),
            page,
            "{name}"
        );
    }
}

#[test]
fn bash_completes_goal_labels_in_the_store_given() {
    let env = crate::common::TestEnv::initialised();
    env.add_goal("deploy");
    env.add_goal("docs");
    env.add_goal("release");
    let elsewhere = tempfile::tempdir().unwrap();
    let steward_dir = assert_cmd::cargo::cargo_bin("steward")
        .parent()
        .unwrap()
        .to_path_buf();
    let script = repo("completions/steward.bash");
    let complete = |dir: &Path, words: &str| {
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _steward_with_goals; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let output = env
            .program("bash")
            .current_dir(dir)
            .env("PATH", format!("{}:/usr/bin:/bin", steward_dir.display()))
            .args(["-c", &program])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(complete(env.root(), "steward show d"), "deploy\ndocs\n");
    assert_eq!(complete(env.root(), "steward cancel r"), "release\n");
    let root = env.root().display().to_string();
    assert_eq!(
        complete(
            elsewhere.path(),
            &format!("steward -C {root} --actor agent assess ''")
        ),
        "deploy\ndocs\nrelease\n"
    );
    // Outside a store, and after the GOAL, nothing is offered.
    assert_eq!(complete(elsewhere.path(), "steward show d").trim(), "");
    assert!(!complete(env.root(), "steward show deploy d").contains("docs"));
    // zsh and fish ask the same helper.
    for shell in ["completions/_steward", "completions/steward.fish"] {
        let text = std::fs::read_to_string(repo(shell)).unwrap();
        assert!(text.contains("list --labels"), "{shell}");
    }
    env.steward()
        .args(["list", "--labels"])
        .assert()
        .success()
        .stdout("deploy\ndocs\nrelease\n");
}

/// A run adds only its own command's arguments; help that lists the
/// commands must still come from the whole tree.
#[test]
fn help_names_every_command_with_its_purpose_and_each_command_its_options() {
    let env = crate::common::TestEnv::new();
    for args in [&["--help"][..], &["help"], &[]] {
        let out = env.steward().args(args).output().unwrap();
        let text = String::from_utf8_lossy(if args.is_empty() {
            &out.stderr
        } else {
            &out.stdout
        });
        let update = text
            .lines()
            .find(|l| l.trim_start().starts_with("update "))
            .unwrap_or_else(|| panic!("steward {args:?} lists update:\n{text}"));
        assert!(update.contains("Change a goal's"), "{args:?}: {update}");
    }
    let hook = env.steward().args(["help", "hook"]).assert().success();
    let hook = String::from_utf8_lossy(&hook.get_output().stdout).to_string();
    assert!(
        hook.contains("install") && hook.contains("claude-code"),
        "{hook}"
    );
    let update = env.steward().args(["update", "--help"]).assert().success();
    let update = String::from_utf8_lossy(&update.get_output().stdout).to_string();
    assert!(
        update.contains("--add-criterion") && update.contains("--root"),
        "{update}"
    );
    env.steward()
        .args(["update", "--no-such-option"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "unexpected argument '--no-such-option'",
        ));
}
