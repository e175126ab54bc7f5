//! The checked-in completions/ and man/ must be what the binary generates:
//! the command pages from the clap definition, the others from man/*.md.
//! Run with STEWARD_REGENERATE=1 to rewrite them.

use std::path::{Path, PathBuf};

use steward::doors::cli::generate;

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
/// roff generated from it: neither checked nor removed here.
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

/// A page added under man/ is built into the binary (generate.rs names
/// each), and becomes the page of the same name.
#[test]
fn every_markdown_page_is_generated() {
    let generated: Vec<String> = generate::man_pages().into_iter().map(|(n, _)| n).collect();
    let mut sources = 0;
    for entry in std::fs::read_dir(repo("man")).unwrap() {
        let path = entry.unwrap().path();
        if !is_source(&path) {
            continue;
        }
        sources += 1;
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            generated.contains(&stem),
            "{} is not built into steward: add it to generate.rs",
            path.display()
        );
    }
    assert_eq!(sources, 4, "man/*.md");
    for page in ["steward-reference.5", "steward-guide.7", "steward-design.7"] {
        let text = String::from_utf8(
            std::fs::read(repo("man").join(page)).unwrap_or_else(|_| panic!("man/{page}")),
        )
        .unwrap();
        assert!(text.starts_with("'\\\" t\n.TH steward\\-"), "{page}");
        assert!(text.contains(".SH NAME\n"), "{page}");
        assert!(!text.contains("<!--"), "{page} keeps an HTML comment");
    }
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
    for (page, file) in [
        ("add", "man/steward-add.1"),
        ("guide", "man/steward-guide.7"),
        ("steward-guide", "man/steward-guide.7"),
        ("reference", "man/steward-reference.5"),
        ("design", "man/steward-design.7"),
        ("development", "man/steward-development.7"),
    ] {
        let out = env.steward().args(["man", page]).output().unwrap();
        assert!(out.status.success(), "steward man {page}");
        assert_eq!(out.stdout, std::fs::read(repo(file)).unwrap(), "{page}");
    }
    env.steward()
        .args(["man", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "guide, reference, design or development",
        ));
}

/// Every `name(N)` a page names, as the page writes it: `\\fBsteward\\-add\\fR(1)`
/// or `steward-add(1)`, as the file it would be: `steward-add.1`.
fn references(roff: &str) -> Vec<String> {
    // The text without escapes: `\-` is a hyphen, a font change nothing,
    // a named glyph (`\(dq`, `\[u2014]`) a space.
    let mut plain = String::new();
    let mut chars = roff.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            plain.push(c);
            continue;
        }
        match chars.next() {
            Some('-') => plain.push('-'),
            Some('f') => {
                if chars.next() == Some('(') {
                    chars.nth(1);
                }
            }
            Some('(') => {
                chars.nth(1);
                plain.push(' ');
            }
            Some('[') => {
                chars.by_ref().find(|&c| c == ']');
                plain.push(' ');
            }
            _ => plain.push(' '),
        }
    }
    plain
        .split(|c: char| !(c.is_ascii_alphanumeric() || "-_()".contains(c)))
        .filter_map(|word| {
            let (name, section) = word.strip_suffix(')')?.rsplit_once('(')?;
            // `(see steward-add(1)`: the name after the last parenthesis.
            let name = name.rsplit('(').next()?;
            let digit = section.len() == 1 && section.chars().all(|c| c.is_ascii_digit());
            (digit && !name.is_empty()).then(|| format!("{name}.{section}"))
        })
        .collect()
}

#[test]
fn every_page_a_man_page_names_exists() {
    let pages: Vec<String> = generate::man_pages().into_iter().map(|(n, _)| n).collect();
    let mut named = 0;
    for (name, page) in generate::man_pages() {
        let text = String::from_utf8(page).unwrap();
        for file in references(&text) {
            named += 1;
            assert!(
                pages.contains(&file),
                "{name} names {file}, which does not exist"
            );
        }
        assert!(!text.contains("help(1)"), "{name} names a help page");
    }
    assert!(named > 100, "only {named} references found");
    let main = String::from_utf8(generate::man_page(None).unwrap()).unwrap();
    for page in ["steward-guide.7", "steward-reference.5", "steward-design.7"] {
        assert!(
            references(main.split(".SH \"SEE ALSO\"").nth(1).unwrap_or_default())
                .contains(&page.to_string()),
            "steward.1 does not refer to {page}"
        );
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
    let pages = generate::man_pages();
    env.steward()
        .args(["man", "--install", "share/man"])
        .assert()
        .success()
        .stdout(format!(
            "installed {} man pages in share/man (man1, man5, man7)\n",
            pages.len()
        ));
    for (name, page) in &pages {
        let section = name.rsplit_once('.').unwrap().1;
        assert_eq!(
            std::fs::read(env.path(&format!("share/man/man{section}")).join(name)).unwrap(),
            *page,
            "{name}"
        );
    }
    for (section, page) in [
        ("1", "steward-add.1"),
        ("5", "steward-reference.5"),
        ("7", "steward-guide.7"),
        ("7", "steward-design.7"),
        ("7", "steward-development.7"),
    ] {
        assert!(
            env.path(&format!("share/man/man{section}/{page}"))
                .is_file(),
            "{page}"
        );
    }
    rendered_without_warnings(&env, "share/man");
}

/// What `man` makes of the installed pages of sections 5 and 7 (and
/// `steward(1)`, which names them): no warning from groff at 80 columns.
/// Skipped, saying so, where man or groff is not installed.
fn rendered_without_warnings(env: &crate::common::TestEnv, dir: &str) {
    let installed = |program: &str| {
        env.program(program)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    if !installed("man") || !installed("groff") {
        eprintln!("SKIPPED: man or groff not installed: the pages were not rendered");
        return;
    }
    for page in [
        "man1/steward.1",
        "man5/steward-reference.5",
        "man7/steward-guide.7",
        "man7/steward-design.7",
        "man7/steward-development.7",
    ] {
        let out = env
            .program("man")
            .env("MANWIDTH", "80")
            .env("LC_ALL", "C.UTF-8")
            .args(["--warnings", "-l"])
            .arg(env.path(dir).join(page))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "man -l {page}: {stderr}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("NAME"), "man -l {page} printed:\n{text}");
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
