//! Every index written here is read back by git itself (and by libgit2).

use super::*;

/// `git ARGS` in `dir`, away from the machine's configuration, with an
/// identity to commit with.
fn git_output(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@localhost")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@localhost")
        .output()
        .unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_output(dir, args);
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// A repository with `names` added to its index (git's own `add`, with
/// `config` on the command line).
fn repository(names: &[&str], config: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    for name in names {
        write(root, name, name);
    }
    let mut args: Vec<&str> = config.iter().flat_map(|c| ["-c", c]).collect();
    args.extend(["add", "-A"]);
    git(root, &args);
    dir
}

fn write(root: &Path, name: &str, text: &str) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
}

/// The entry `git add` would make for `name` as it is now.
fn entry(root: &Path, name: &str) -> Vec<u8> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(root.join(name)).unwrap();
    let id = git(root, &["hash-object", "-w", name]);
    let id: Vec<u8> = (0..20)
        .map(|i| u8::from_str_radix(&id.trim()[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    entry_bytes(
        (metadata.ctime() as u32, metadata.ctime_nsec() as u32),
        (metadata.mtime() as u32, metadata.mtime_nsec() as u32),
        metadata.dev() as u32,
        metadata.ino() as u32,
        0o100644,
        metadata.uid(),
        metadata.gid(),
        metadata.len() as u32,
        &id,
        name,
    )
}

/// Changes the work tree and patches the index for it: `changed` written
/// anew, `removed` deleted.
fn change(root: &Path, changed: &[&str], removed: &[&str], settings: &Settings) {
    for name in changed {
        write(root, name, &format!("{name} changed"));
    }
    for name in removed {
        let _ = std::fs::remove_file(root.join(name));
    }
    let entries: Vec<(&str, Option<Vec<u8>>)> = changed
        .iter()
        .map(|name| (*name, Some(entry(root, name))))
        .chain(removed.iter().map(|name| (*name, None)))
        .collect();
    let mut changes: Vec<Change<'_>> = entries
        .into_iter()
        .map(|(path, entry)| Change { path, entry })
        .collect();
    patch(&root.join(".git"), &mut changes, settings)
        .expect("an index this handles")
        .expect("written");
}

/// The index as git reads it: checked whole, nothing unstaged, and the
/// same through libgit2.
fn read_back(root: &Path) -> String {
    git(root, &["fsck", "--no-dangling", "--cache"]);
    assert_eq!(git(root, &["diff", "--name-only"]), "", "unstaged changes");
    let files = git(root, &["ls-files"]);
    if !is_split(root) {
        let index = git2::Repository::open(root).unwrap().index().unwrap();
        let paths: Vec<String> = index
            .iter()
            .map(|e| String::from_utf8(e.path).unwrap() + "\n")
            .collect();
        assert_eq!(paths.concat(), files, "libgit2 reads the same");
    }
    files
}

fn is_split(root: &Path) -> bool {
    let bytes = std::fs::read(root.join(".git/index")).unwrap();
    parse(&bytes).unwrap().link.is_some()
}

fn shared_size(root: &Path) -> u64 {
    std::fs::read_dir(root.join(".git"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_str().unwrap().starts_with("sharedindex."))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

fn shared_indexes(root: &Path) -> usize {
    std::fs::read_dir(root.join(".git"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_str().unwrap().starts_with("sharedindex.")
        })
        .count()
}

#[test]
fn a_patched_index_is_what_git_add_would_write() {
    for skip_hash in [false, true] {
        let dir = repository(&["a.md", "b/c.md", "b/d.md", "z.md"], &[]);
        let root = dir.path();
        let settings = Settings {
            skip_hash,
            ..Settings::default()
        };
        change(root, &["b/c.md", "b/e.md"], &["z.md"], &settings);
        let bytes = std::fs::read(root.join(".git/index")).unwrap();
        assert_eq!(bytes[bytes.len() - 20..] == [0; 20], skip_hash);
        assert_eq!(read_back(root), "a.md\nb/c.md\nb/d.md\nb/e.md\n");
        assert_eq!(
            git(root, &["status", "--porcelain"]),
            "A  a.md\nA  b/c.md\nA  b/d.md\nA  b/e.md\n"
        );
    }
}

#[test]
fn a_split_index_is_patched_in_its_small_part() {
    let names: Vec<String> = (0..150).map(|n| format!("goals/g{n:03}.md")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let dir = repository(&names, &["core.splitIndex=true"]);
    let root = dir.path();
    git(root, &["commit", "-q", "-m", "all"]);
    assert!(is_split(root), "git split it");
    let settings = Settings::default();
    // Replaced, added, deleted, then re-added and replaced again.
    change(
        root,
        &["goals/g003.md", "goals/new.md"],
        &["goals/g070.md"],
        &settings,
    );
    change(
        root,
        &["goals/g070.md", "goals/g003.md"],
        &["goals/new.md"],
        &settings,
    );
    change(
        root,
        &["goals/g149.md", "goals/zz.md"],
        &["goals/g000.md"],
        &settings,
    );
    assert!(is_split(root), "still split");
    assert_eq!(
        shared_indexes(root),
        1,
        "the shared index was not rewritten"
    );
    let files = read_back(root);
    let mut expected: Vec<String> = names[1..].iter().map(|n| format!("{n}\n")).collect();
    expected.push("goals/zz.md\n".into());
    assert_eq!(files, expected.concat());
    assert_eq!(
        git(root, &["status", "--porcelain"]),
        "D  goals/g000.md\nM  goals/g003.md\nM  goals/g070.md\nM  goals/g149.md\nA  goals/zz.md\n"
    );
    let small = std::fs::metadata(root.join(".git/index")).unwrap().len();
    let shared = shared_size(root);
    assert!(small < shared / 4, "{small} bytes of {shared}");
    // And git goes on from it.
    write(root, "goals/g100.md", "by git");
    git(
        root,
        &["-c", "core.splitIndex=true", "add", "goals/g100.md"],
    );
    git(root, &["commit", "-q", "-m", "more"]);
    assert_eq!(git(root, &["status", "--porcelain"]), "");
}

#[test]
fn a_split_index_that_lists_too_much_gets_a_new_shared_index() {
    let dir = repository(&["a.md", "b.md", "c.md", "d.md"], &["core.splitIndex=true"]);
    let root = dir.path();
    let settings = Settings {
        max_percent_change: 0,
        ..Settings::default()
    };
    change(root, &["b.md"], &[], &settings);
    assert!(is_split(root));
    let index = std::fs::read(root.join(".git/index")).unwrap();
    assert_eq!(parse(&index).unwrap().count, 0, "nothing left to list");
    assert_eq!(read_back(root), "a.md\nb.md\nc.md\nd.md\n");
}

#[test]
fn core_split_index_splits_and_unsplits() {
    let dir = repository(&["a.md", "b.md"], &[]);
    let root = dir.path();
    let split = Settings {
        split: Some(true),
        ..Settings::default()
    };
    change(root, &["c.md"], &["a.md"], &split);
    assert!(is_split(root));
    assert_eq!(shared_indexes(root), 1);
    assert_eq!(read_back(root), "b.md\nc.md\n");
    change(root, &["a.md"], &[], &split);
    let whole = Settings {
        split: Some(false),
        ..Settings::default()
    };
    change(root, &["d.md"], &["b.md"], &whole);
    assert!(!is_split(root));
    assert_eq!(read_back(root), "a.md\nc.md\nd.md\n");
}

#[test]
fn adding_a_conflicted_path_resolves_it() {
    for split in [false, true] {
        let dir = repository(&["a.md", "b.md"], &[]);
        let root = dir.path();
        git(root, &["commit", "-q", "-m", "base"]);
        git(root, &["checkout", "-q", "-b", "other"]);
        write(root, "a.md", "theirs");
        git(root, &["commit", "-q", "-am", "theirs"]);
        git(root, &["checkout", "-q", "-"]);
        write(root, "a.md", "ours");
        git(root, &["commit", "-q", "-am", "ours"]);
        let config = format!("core.splitIndex={split}");
        let merge = git_output(root, &["-c", &config, "merge", "-q", "other"]);
        assert!(!merge.status.success(), "a conflict: {merge:?}");
        assert_eq!(is_split(root), split);
        assert_eq!(git(root, &["ls-files", "--unmerged"]).lines().count(), 3);
        change(root, &["a.md"], &[], &Settings::default());
        assert_eq!(git(root, &["ls-files", "--unmerged"]), "", "split: {split}");
        assert_eq!(git(root, &["status", "--porcelain"]), "M  a.md\n");
    }
}

#[test]
fn an_index_it_cannot_handle_is_left_to_libgit2() {
    let dir = repository(&["a.md"], &["index.version=4"]);
    let git_dir = dir.path().join(".git");
    assert!(patch(&git_dir, &mut [], &Settings::default()).is_none());
}

#[test]
fn a_split_index_without_its_shared_index_is_an_error_that_says_so() {
    let dir = repository(&["a.md"], &["core.splitIndex=true"]);
    let root = dir.path();
    for entry in std::fs::read_dir(root.join(".git")).unwrap() {
        let path = entry.unwrap().path();
        if path.to_str().unwrap().contains("sharedindex.") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let err = patch(&root.join(".git"), &mut [], &Settings::default())
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("git reset"), "{err}");
}

#[test]
fn the_index_lock_is_taken_before_the_index_is_read_and_left_to_its_holder() {
    let dir = repository(&["a.md"], &[]);
    let git_dir = dir.path().join(".git");
    let before = std::fs::read(git_dir.join("index")).unwrap();
    std::fs::write(git_dir.join("index.lock"), "another git's").unwrap();
    let err = patch(&git_dir, &mut [], &Settings::default())
        .unwrap()
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(
        std::fs::read_to_string(git_dir.join("index.lock")).unwrap(),
        "another git's"
    );
    assert_eq!(std::fs::read(git_dir.join("index")).unwrap(), before);
    // Taken by steward, the lock goes with what it leaves to libgit2.
    std::fs::remove_file(git_dir.join("index.lock")).unwrap();
    let dir = repository(&["a.md"], &["index.version=4"]);
    let git_dir = dir.path().join(".git");
    assert!(patch(&git_dir, &mut [], &Settings::default()).is_none());
    assert!(!git_dir.join("index.lock").exists());
}
