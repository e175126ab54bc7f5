//! The checked-in completions/ and man/ must be what the binary generates.
//! Run with STEWARD_REGENERATE=1 to rewrite them.

use std::path::{Path, PathBuf};

use steward::cli::generate;

fn check_or_write(expected: &[(PathBuf, Vec<u8>)], dir: &Path) {
    let regenerate = std::env::var_os("STEWARD_REGENERATE").is_some();
    if regenerate {
        std::fs::create_dir_all(dir).unwrap();
        for entry in std::fs::read_dir(dir).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
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
    present.retain(|p| !expected.iter().any(|(e, _)| e == p));
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
