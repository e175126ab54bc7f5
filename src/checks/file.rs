//! `file_exists`: does a path exist inside the store root? Agents write the
//! path, so it may not name or lead to anything outside the root, not even to
//! learn whether that exists.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::CheckOutcome;

/// Symbolic links followed for one path before giving up, as Linux does.
const MAX_SYMLINKS: usize = 40;

pub fn run(target: &str, root: &Path) -> CheckOutcome {
    match locate(target, root) {
        Ok(true) => CheckOutcome::passed("exists"),
        Ok(false) => CheckOutcome::failed("missing"),
        Err(Problem::Invalid(reason)) => CheckOutcome::Invalid { reason },
        Err(Problem::Unreadable(detail)) => CheckOutcome::failed(detail),
    }
}

pub fn validate(target: &str, root: &Path) -> Result<(), String> {
    match locate(target, root) {
        Err(Problem::Invalid(reason)) => Err(reason),
        // Files come and go; only a path that leaves the root is wrong.
        Ok(_) | Err(Problem::Unreadable(_)) => Ok(()),
    }
}

enum Problem {
    /// The path is empty or leads out of the root: the check is wrong.
    Invalid(String),
    /// The file system would not answer: the check fails this time.
    Unreadable(String),
}

/// One step of a walk from the root.
enum Step {
    /// Back to the root, where an absolute symlink inside it points.
    Root,
    Up,
    Down(OsString),
}

/// The store root as configured and as the file system resolves it.
struct Root<'a> {
    given: &'a Path,
    real: PathBuf,
}

impl Root<'_> {
    /// The part of an absolute `path` below the root, spelled either way.
    fn below<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.real)
            .or_else(|_| path.strip_prefix(self.given))
            .ok()
    }

    /// `path` as a person would write it in the goal: relative to the root.
    fn show(&self, path: &Path) -> String {
        self.below(path).unwrap_or(path).display().to_string()
    }
}

/// Whether `target` exists inside `root`. The target is checked as written
/// first (an absolute path outside the root or a `..` above it is refused
/// whatever exists), then walked one component at a time from the real root,
/// following symlinks as the kernel would but refusing any step out of the
/// root, so that nothing outside it is ever looked at.
fn locate(target: &str, root: &Path) -> Result<bool, Problem> {
    if target.is_empty() {
        return Err(Problem::Invalid("file_exists needs a path".to_string()));
    }
    let real = fs::canonicalize(root).map_err(|err| {
        Problem::Unreadable(format!(
            "cannot resolve the store root `{}`: {err}",
            root.display()
        ))
    })?;
    let root = Root { given: root, real };
    let steps = steps_as_written(target, &root)?;
    walk(target, &root, steps)
}

fn steps_as_written(target: &str, root: &Root) -> Result<VecDeque<Step>, Problem> {
    let path = Path::new(target);
    let relative = if path.is_absolute() {
        root.below(path).ok_or_else(|| {
            Problem::Invalid(format!(
                "`{target}` is outside the store root `{}`",
                root.given.display()
            ))
        })?
    } else {
        path
    };
    let steps = steps(relative);
    let mut depth = 0_usize;
    for step in &steps {
        depth = match step {
            Step::Root => 0,
            Step::Down(_) => depth + 1,
            Step::Up => depth.checked_sub(1).ok_or_else(|| {
                Problem::Invalid(format!("`{target}` climbs out of the store root with `..`"))
            })?,
        };
    }
    Ok(steps)
}

fn steps(path: &Path) -> VecDeque<Step> {
    path.components()
        .filter_map(|component| match component {
            Component::ParentDir => Some(Step::Up),
            Component::Normal(name) => Some(Step::Down(name.to_os_string())),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Walks `steps` from the real root. `here` never holds a symlink, so `..`
/// is its parent, and never leaves the root.
fn walk(target: &str, root: &Root, mut steps: VecDeque<Step>) -> Result<bool, Problem> {
    let mut here = root.real.clone();
    let mut followed: Vec<PathBuf> = Vec::new();
    while let Some(step) = steps.pop_front() {
        let name = match step {
            Step::Root => {
                here = root.real.clone();
                continue;
            }
            Step::Up if here == root.real => {
                // The target's own `..` were checked as written, so a link
                // took the walk here.
                let link = followed
                    .last()
                    .map_or_else(String::new, |link| root.show(link));
                return Err(Problem::Invalid(format!(
                    "`{target}` leads out of the store root through the symlink `{link}`"
                )));
            }
            Step::Up => {
                here.pop();
                continue;
            }
            Step::Down(name) => name,
        };
        let next = here.join(name);
        match fs::symlink_metadata(&next) {
            Err(err) if is_absent(&err) => return Ok(false),
            Err(err) => return Err(unreadable(&next, &err)),
            Ok(meta) if meta.file_type().is_symlink() => {
                if followed.len() == MAX_SYMLINKS {
                    return Err(Problem::Unreadable(format!(
                        "too many levels of symbolic links in `{target}`"
                    )));
                }
                let mut resolved = link_steps(target, root, &next)?;
                resolved.append(&mut steps);
                steps = resolved;
                followed.push(next);
            }
            // `file.txt/more`: the kernel says ENOTDIR, so it does not exist.
            Ok(meta) if !meta.is_dir() && !steps.is_empty() => return Ok(false),
            Ok(_) => here = next,
        }
    }
    Ok(true)
}

/// The steps a symlink stands for: from where it is for a relative link,
/// from the root for an absolute one, which must point into the root.
fn link_steps(target: &str, root: &Root, link: &Path) -> Result<VecDeque<Step>, Problem> {
    let destination = fs::read_link(link).map_err(|err| unreadable(link, &err))?;
    if !destination.is_absolute() {
        return Ok(steps(&destination));
    }
    let below = root.below(&destination).ok_or_else(|| {
        Problem::Invalid(format!(
            "`{target}` leads through the symlink `{}` to `{}`, outside the store root",
            root.show(link),
            destination.display()
        ))
    })?;
    let mut steps = steps(below);
    steps.push_front(Step::Root);
    Ok(steps)
}

fn is_absent(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

fn unreadable(path: &Path, err: &io::Error) -> Problem {
    Problem::Unreadable(format!("cannot inspect `{}`: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// A store root and, beside it, a directory outside it with a file.
    struct Fixture {
        root: tempfile::TempDir,
        outside: tempfile::TempDir,
    }

    impl Fixture {
        fn new() -> Fixture {
            let root = tempfile::tempdir().unwrap();
            fs::create_dir_all(root.path().join("dist/sub")).unwrap();
            fs::write(root.path().join("dist/app.tar.gz"), "").unwrap();
            let outside = tempfile::tempdir().unwrap();
            fs::write(outside.path().join("secret"), "").unwrap();
            Fixture { root, outside }
        }

        fn run(&self, target: &str) -> CheckOutcome {
            run(target, self.root.path())
        }

        fn link(&self, name: &str, to: impl AsRef<Path>) {
            symlink(to, self.root.path().join(name)).unwrap();
        }

        fn assert_invalid(&self, target: &str, expected: &str) {
            match self.run(target) {
                CheckOutcome::Invalid { reason } => {
                    assert!(reason.contains(expected), "`{target}`: {reason}")
                }
                other => panic!("`{target}`: expected Invalid, got {other:?}"),
            }
            assert!(validate(target, self.root.path()).is_err(), "{target}");
        }
    }

    fn exists() -> CheckOutcome {
        CheckOutcome::passed("exists")
    }

    fn missing() -> CheckOutcome {
        CheckOutcome::failed("missing")
    }

    #[test]
    fn files_and_directories_inside_the_root_exist() {
        let fx = Fixture::new();
        for target in [
            "dist/app.tar.gz",
            "dist",
            "dist/sub/",
            "./dist/./sub",
            "dist/sub/../app.tar.gz",
            ".",
        ] {
            assert_eq!(fx.run(target), exists(), "{target}");
        }
    }

    #[test]
    fn absent_paths_are_missing_but_valid() {
        let fx = Fixture::new();
        for target in ["dist/app.zip", "nope/deeper/still", "dist/app.tar.gz/inner"] {
            assert_eq!(fx.run(target), missing(), "{target}");
            assert_eq!(validate(target, fx.root.path()), Ok(()), "{target}");
        }
    }

    #[test]
    fn dot_dot_may_not_climb_out_even_through_missing_directories() {
        let fx = Fixture::new();
        fx.assert_invalid("../etc/passwd", "climbs out of the store root with `..`");
        fx.assert_invalid("dist/../../x", "climbs out");
        fx.assert_invalid("nope/../../x", "climbs out");
    }

    #[test]
    fn absolute_paths_must_be_inside_the_root() {
        let fx = Fixture::new();
        let secret = fx.outside.path().join("secret");
        fx.assert_invalid(&secret.display().to_string(), "is outside the store root");
        fx.assert_invalid("/", "is outside the store root");
        let inside = fx.root.path().join("dist/app.tar.gz");
        assert_eq!(fx.run(&inside.display().to_string()), exists());
        let real = fs::canonicalize(fx.root.path()).unwrap().join("dist");
        assert_eq!(fx.run(&real.display().to_string()), exists());
    }

    #[test]
    fn symlinks_out_of_the_root_are_refused_whether_or_not_the_target_exists() {
        let fx = Fixture::new();
        fx.link("out", fx.outside.path());
        fx.link("secret", fx.outside.path().join("secret"));
        fx.link("nothing", fx.outside.path().join("nothing"));
        fx.link("up", "../");
        fx.link("sneaky", "dist/../..");
        fx.assert_invalid("out/secret", "through the symlink `out` to");
        fx.assert_invalid("out", "outside the store root");
        fx.assert_invalid("secret", "outside the store root");
        fx.assert_invalid("nothing", "outside the store root");
        fx.assert_invalid("up/x", "through the symlink `up`");
        fx.assert_invalid("sneaky", "through the symlink `sneaky`");
    }

    #[test]
    fn symlinks_within_the_root_are_followed() {
        let fx = Fixture::new();
        fx.link("rel", "dist/sub");
        fx.link("abs", fx.root.path().join("dist"));
        fx.link("chain", "rel/..");
        fx.link("dangling", "dist/not-yet");
        assert_eq!(fx.run("rel"), exists());
        assert_eq!(fx.run("abs/app.tar.gz"), exists());
        assert_eq!(fx.run("chain/app.tar.gz"), exists());
        assert_eq!(fx.run("dangling"), missing());
    }

    #[test]
    fn a_symlink_loop_fails_without_hanging() {
        let fx = Fixture::new();
        fx.link("a", "b");
        fx.link("b", "a");
        assert_eq!(
            fx.run("a"),
            CheckOutcome::failed("too many levels of symbolic links in `a`")
        );
        assert_eq!(validate("a", fx.root.path()), Ok(()));
    }

    #[test]
    fn an_empty_path_is_invalid() {
        let fx = Fixture::new();
        fx.assert_invalid("", "needs a path");
    }
}
