//! `steward resolve`: a person finishes a merge `sync` could not make. Sync
//! undid it and kept both versions of each file both sides changed under
//! `state/conflicts/` (`NAME.ours`, `NAME.theirs`, NAME the path with `/`
//! as `__`). Resolving one file records the choice (`NAME.chosen`); once
//! every conflicted file has one, the merge is made again with the chosen
//! versions, committed, the chosen goals taken as a person's, and the
//! copies removed.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};

/// Which version of a conflicted file a person keeps.
#[derive(Debug, Clone)]
pub enum Choice {
    Ours,
    Theirs,
    /// The file at this path (a version the person merged by hand).
    File(PathBuf),
}

/// What `resolve` did.
#[derive(Debug, Default)]
pub struct Resolved {
    /// The conflicted file the choice was for, as git names it.
    pub path: String,
    /// Files still without a choice: the merge waits for them.
    pub waiting: Vec<String>,
    /// The merge was made and committed.
    pub merged: bool,
    pub warnings: Vec<String>,
}

/// An unresolved conflict `sync` left: the file as git names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub path: String,
    /// The goal label, for a goal file.
    pub label: Option<String>,
    pub chosen: bool,
}

fn conflicts_dir(ctx: &Context) -> PathBuf {
    ctx.store.state_dir.join("conflicts")
}

fn kept_name(path: &str) -> String {
    path.replace('/', "__")
}

/// The conflicts `sync` left and no merge finished, by the copies kept.
pub fn unresolved(ctx: &Context) -> Vec<Conflict> {
    let Ok(entries) = std::fs::read_dir(conflicts_dir(ctx)) else {
        return Vec::new();
    };
    let names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    let mut conflicts: Vec<Conflict> = names
        .iter()
        .filter_map(|name| {
            name.strip_suffix(".ours")
                .or_else(|| name.strip_suffix(".theirs"))
        })
        .map(|base| {
            let path = base.replace("__", "/");
            Conflict {
                label: goal_label(ctx, &path),
                chosen: names.iter().any(|n| *n == format!("{base}.chosen")),
                path,
            }
        })
        .collect();
    conflicts.sort_by(|a, b| a.path.cmp(&b.path));
    conflicts.dedup();
    conflicts
}

/// The label of the goal whose file is `path` (`state/goals/LABEL.md`, or
/// `closed/LABEL-ID8.md`).
fn goal_label(ctx: &Context, path: &str) -> Option<String> {
    let goals = ctx.store.relative(&ctx.store.goals_dir);
    let name = path
        .strip_prefix(&format!("{goals}/"))?
        .strip_suffix(".md")?;
    match name.strip_prefix("closed/") {
        Some(closed) => closed.rsplit_once('-').map(|(label, _)| label.to_string()),
        None => Some(name.to_string()),
    }
}

/// The command that resolves `conflict`, for `sync`, `status` and `doctor`.
pub fn command(conflict: &Conflict) -> String {
    let what = conflict.label.as_deref().unwrap_or(&conflict.path);
    format!("steward resolve {what} --ours|--theirs|--file PATH")
}

/// Records the choice for the conflicted file of `reference` (a goal label,
/// or a path as git names it), and makes the merge once every conflicted
/// file has one.
pub fn resolve(ctx: &Context, reference: &str, choice: &Choice) -> Result<Resolved> {
    super::git_setup::refuse_programs_in_git_config(ctx)?;
    super::authority::person_only(ctx, "choose how a merge ends", || {
        format!("steward resolve {reference} --ours|--theirs")
    })?;
    let conflicts = unresolved(ctx);
    let conflict = conflicts
        .iter()
        .find(|c| c.path == reference || c.label.as_deref() == Some(reference))
        .ok_or_else(|| {
            let known: Vec<String> = conflicts
                .iter()
                .map(|c| c.label.clone().unwrap_or_else(|| c.path.clone()))
                .collect();
            Error::BadRequest(if known.is_empty() {
                "no conflict to resolve: `steward sync` left none in state/conflicts/".to_string()
            } else {
                format!(
                    "no conflict of `{reference}`; the conflicts are: {}",
                    known.join(", ")
                )
            })
        })?;
    let kept = conflicts_dir(ctx);
    let base = kept.join(kept_name(&conflict.path));
    let chosen_text = match choice {
        Choice::Ours => read(&with_suffix(&base, "ours"))?,
        Choice::Theirs => read(&with_suffix(&base, "theirs"))?,
        Choice::File(path) => read(&ctx.env.cwd.join(path))?,
    };
    crate::store::atomic::replace(&with_suffix(&base, "chosen"), chosen_text.as_bytes())?;
    let mut resolved = Resolved {
        path: conflict.path.clone(),
        ..Resolved::default()
    };
    resolved.waiting = unresolved(ctx)
        .into_iter()
        .filter(|c| !c.chosen)
        .map(|c| command(&c))
        .collect();
    if !resolved.waiting.is_empty() {
        return Ok(resolved);
    }
    merge_with_choices(ctx, &mut resolved)?;
    Ok(resolved)
}

/// Makes the merge again, with every chosen version in place of the
/// conflict, commits it, takes the chosen goals as a person's, removes the
/// copies.
fn merge_with_choices(ctx: &Context, resolved: &mut Resolved) -> Result<()> {
    let root = &ctx.root;
    let remote = ctx.config.git.remote.clone();
    let branch = crate::os::git::cli(root, &["rev-parse", "--abbrev-ref", "HEAD"])?
        .trim()
        .to_string();
    let lock = crate::store::StoreLock::acquire(&ctx.store.lock_path(), ctx.lock_timeout)?;
    crate::os::git::cli(root, &["fetch", "--quiet", &remote, &branch])?;
    let merge = super::trust::Merge::of_fetched(root)?;
    let merged = crate::os::git::cli(
        root,
        &["merge", "--quiet", "--no-ff", "--no-commit", "FETCH_HEAD"],
    );
    if merged.is_err() {
        let conflicted: Vec<String> =
            crate::os::git::cli(root, &["diff", "--name-only", "--diff-filter=U"])?
                .lines()
                .map(str::to_string)
                .collect();
        let kept = conflicts_dir(ctx);
        for path in &conflicted {
            let chosen = with_suffix(&kept.join(kept_name(path)), "chosen");
            let mirror = ctx
                .store
                .mirror_path
                .as_ref()
                .is_some_and(|m| ctx.store.relative(m) == *path);
            if chosen.exists() {
                std::fs::copy(&chosen, root.join(path))
                    .map_err(|err| Error::io(&root.join(path), "cannot write", err))?;
            } else if mirror {
                // Rendered again from the merged goals below.
                crate::os::git::cli(root, &["checkout", "--ours", "--", path])?;
            } else {
                // The remote moved on with a new conflict: choose for it too.
                crate::os::git::cli(root, &["merge", "--abort"])?;
                return Err(Error::BadRequest(format!(
                    "the remote changed {path} too since `sync`: run `steward sync` again, then resolve what it names"
                )));
            }
            crate::os::git::cli(root, &["add", "--", path])?;
        }
    }
    crate::os::git::cli(
        root,
        &[
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            "steward resolve: the merge, with a person's choices",
        ],
    )?;
    drop(lock);
    // What the merge brought is steward's as far as trusted machines signed
    // it (as after `sync`); the chosen versions are a person's: accepted.
    super::trust::adopt_merged(ctx, &merge)?;
    for conflict in unresolved(ctx) {
        if let Some(label) = &conflict.label
            && ctx.store.resolve(label).is_ok()
        {
            super::trust::accept(ctx, label, Some("chosen by `steward resolve`"))?;
        }
    }
    let kept = conflicts_dir(ctx);
    for conflict in unresolved(ctx) {
        let base = kept.join(kept_name(&conflict.path));
        for side in ["ours", "theirs", "chosen"] {
            let _ = std::fs::remove_file(with_suffix(&base, side));
        }
    }
    let _ = std::fs::remove_dir(&kept);
    if let Err(err) = super::refresh_mirror(ctx) {
        resolved
            .warnings
            .push(format!("the mirror was not rendered again: {err}"));
    }
    resolved.merged = true;
    Ok(())
}

fn with_suffix(base: &Path, suffix: &str) -> PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(format!(".{suffix}"));
    PathBuf::from(name)
}

fn read(path: &Path) -> Result<String> {
    crate::os::safe_file::read_to_string(path).map_err(|err| Error::io(path, "cannot read", err))
}
