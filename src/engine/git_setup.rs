//! What git needs to merge a store that several machines share
//! (steward-design(7), "Merge-clean by construction"): the event log's day
//! files merge line by line (`merge=union`), the mirror through steward's
//! merge driver (its block never conflicts); goal files, runs, obligations
//! and claims are one file per item. `init --git` registers it,
//! idempotently; `doctor` says what is missing.

use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::Transaction;

/// The merge driver's name in `.gitattributes` and `.git/config`.
pub const MIRROR_DRIVER: &str = "steward-mirror";

/// The `.gitattributes` lines a shared store needs.
pub fn attributes(ctx: &Context) -> Vec<String> {
    let mut lines = vec!["state/events/*.jsonl merge=union".to_string()];
    if ctx.config.mirror.enabled {
        lines.push(format!(
            "{} merge={MIRROR_DRIVER}",
            ctx.config.mirror.path.display()
        ));
    }
    lines
}

/// The merge driver's command line: this binary, by its full path.
fn driver_command() -> Result<String> {
    crate::os::git::steward_merge_driver()
}

/// Refuses to run git in a repository whose own configuration makes git
/// run a program steward did not put there (`.git/config` is an agent's to
/// write): such a setting would run with the person's authority, outside
/// any sandbox, at the next `sync`.
pub fn refuse_programs_in_git_config(ctx: &Context) -> Result<()> {
    let driver = driver_command().unwrap_or_default();
    let key = format!("merge.{MIRROR_DRIVER}.driver");
    let found = crate::os::git::programs_in_repository_config(&ctx.root, &[(&key, &driver)]);
    if found.is_empty() {
        return Ok(());
    }
    Err(Error::Git(format!(
        "the repository's own configuration makes git run a program or reach another repository ({}): steward runs git only where it does not, since whoever can write .git (an agent's shell) could put it there; look at it, move what is yours to ~/.gitconfig, and remove it with `git config --unset KEY`",
        found.join("; ")
    )))
}

fn read_attributes(ctx: &Context) -> Result<String> {
    let path = ctx.store.root.join(".gitattributes");
    match crate::os::safe_file::read_to_string(&path) {
        Ok(text) => Ok(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(err) => Err(Error::io(&path, "cannot read", err)),
    }
}

/// Adds what is missing: attribute lines (written in `tx`) and the merge
/// driver in the repository's configuration. Returns what it added, for
/// people.
pub fn register(ctx: &Context, tx: &mut Transaction<'_>) -> Result<Vec<String>> {
    let mut added = Vec::new();
    let existing = read_attributes(ctx)?;
    let missing: Vec<String> = attributes(ctx)
        .into_iter()
        .filter(|line| !existing.lines().any(|l| l.trim() == line))
        .collect();
    if !missing.is_empty() {
        let separator = if existing.is_empty() || existing.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        let path = ctx.store.root.join(".gitattributes");
        tx.write_file(
            &path,
            &format!("{existing}{separator}{}\n", missing.join("\n")),
        )?;
        added.push(ctx.store.relative(&path));
    }
    if ctx.config.mirror.enabled
        && crate::os::git::set_merge_driver(
            &ctx.root,
            MIRROR_DRIVER,
            "steward's mirror: the generated block merges entry by entry",
            &driver_command()?,
        )?
    {
        added.push(format!(".git/config (merge.{MIRROR_DRIVER})"));
    }
    Ok(added)
}

/// Attributes that change what git does with a file's bytes or how it
/// merges them: on steward's files, only steward's own may set them.
const CONTENT_ATTRIBUTES: [&str; 4] = ["merge", "filter", "ident", "working-tree-encoding"];

/// Attributes set on steward's files that are not steward's own, as
/// `path: attribute: value` (from `git check-attr`, so every way git reads
/// attributes counts): a line pulled from another machine, such as
/// `merge=union` on goal files, would turn two changes of one goal into a
/// broken file.
pub fn foreign_attributes(ctx: &Context) -> Result<Vec<String>> {
    let goals = ctx.store.relative(&ctx.store.goals_dir);
    let mut samples = vec![
        format!("{goals}/goal.md"),
        format!("{goals}/closed/goal-0000.md"),
        "state/events/2026-01-01.jsonl".to_string(),
        "state/runs/run.json".to_string(),
        "state/obligations/obl.json".to_string(),
        "state/claims/claim.json".to_string(),
        "state/machines/machine.pub".to_string(),
        crate::config::FILE_NAME.to_string(),
    ];
    if ctx.config.mirror.enabled {
        samples.push(ctx.config.mirror.path.display().to_string());
    }
    let mut args = vec!["check-attr".to_string(), "-a".to_string(), "--".to_string()];
    args.extend(samples);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = crate::os::git::cli(&ctx.root, &args)?;
    let own: Vec<(String, String)> = attributes(ctx)
        .iter()
        .filter_map(|line| {
            let (pattern, attribute) = line.split_once(' ')?;
            let (name, value) = attribute.split_once('=')?;
            Some((pattern.to_string(), format!("{name}: {value}")))
        })
        .collect();
    Ok(report
        .lines()
        .filter(|line| {
            CONTENT_ATTRIBUTES
                .iter()
                .any(|name| line.contains(&format!(": {name}: ")))
        })
        .filter(|line| {
            // `path: merge: union` of steward's own line for that path.
            !own.iter().any(|(pattern, attribute)| {
                line.ends_with(attribute.as_str()) && glob_matches(pattern, line)
            })
        })
        .map(str::to_string)
        .collect())
}

/// Whether the path at the start of a `git check-attr` line matches
/// steward's own `pattern` (`state/events/*.jsonl`, or the mirror's path).
fn glob_matches(pattern: &str, line: &str) -> bool {
    let path = line.split(": ").next().unwrap_or_default();
    match pattern.split_once('*') {
        Some((head, tail)) => {
            path.starts_with(head) && path.ends_with(tail) && !path[head.len()..].contains('/')
        }
        None => path == pattern,
    }
}

/// `doctor --fix`: what `register` adds, in its own transaction, by a
/// person; what it added.
pub fn fix(ctx: &Context) -> Result<Vec<String>> {
    super::authority::person_only(ctx, "repair the repository's configuration", || {
        "steward doctor --fix".to_string()
    })?;
    if git2::Repository::discover(&ctx.root).is_err() {
        return Ok(Vec::new());
    }
    let mut tx = ctx.transaction()?;
    let added = register(ctx, &mut tx)?;
    super::finish(tx)?;
    Ok(added)
}

/// In a clone whose `.gitattributes` names steward's merge driver and
/// whose `.git/config` does not define it (git does not carry it), run by
/// a person: registers it (steward's own `merge.steward-mirror` entries
/// only), so that the first pull that changes the mirror merges. Cheap
/// when there is nothing to do: two small files read. An agent's command
/// registers nothing: the driver runs the binary that registered it.
pub fn adopt_clone(ctx: &Context) -> Option<String> {
    if ctx.actor != crate::model::Actor::User || !ctx.config.mirror.enabled {
        return None;
    }
    let attributes =
        crate::os::safe_file::read_to_string(&ctx.store.root.join(".gitattributes")).ok()?;
    if !attributes.contains(&format!("merge={MIRROR_DRIVER}")) {
        return None;
    }
    // `.git` as a directory: the common case, read as text. A worktree or
    // submodule (`.git` a file) goes through libgit2.
    let config = ctx.store.root.join(".git/config");
    if let Ok(text) = crate::os::safe_file::read_to_string(&config)
        && text.contains(&format!("[merge \"{MIRROR_DRIVER}\"]"))
    {
        return None;
    }
    if crate::os::git::merge_driver(&ctx.root, MIRROR_DRIVER).is_some() {
        return None;
    }
    match crate::os::git::set_merge_driver(
        &ctx.root,
        MIRROR_DRIVER,
        "steward's mirror: the generated block merges entry by entry",
        &driver_command().ok()?,
    ) {
        Ok(true) => Some(format!(
            "registered steward's merge driver in .git/config (merge.{MIRROR_DRIVER}), which .gitattributes names and a clone does not carry"
        )),
        Ok(false) => None,
        Err(err) => Some(format!(
            "cannot register steward's merge driver ({err}): a pull that changes the mirror will conflict; run `steward doctor --fix`"
        )),
    }
}

/// What a shared store lacks, as sentences for `doctor`; nothing outside a
/// git repository.
pub fn missing(ctx: &Context) -> Vec<String> {
    if git2::Repository::discover(&ctx.root).is_err() {
        return Vec::new();
    }
    let mut problems = Vec::new();
    let existing = read_attributes(ctx).unwrap_or_default();
    for line in attributes(ctx) {
        if !existing.lines().any(|l| l.trim() == line) {
            problems.push(format!(
                ".gitattributes lacks `{line}`: two clones would conflict there; run `steward doctor --fix`"
            ));
        }
    }
    for foreign in foreign_attributes(ctx).unwrap_or_default() {
        problems.push(format!(
            "git attribute not steward's on its files ({foreign}): it changes how git merges or stores them; remove its line from .gitattributes"
        ));
    }
    if ctx.config.mirror.enabled && crate::os::git::merge_driver(&ctx.root, MIRROR_DRIVER).is_none()
    {
        problems.push(format!(
            "the merge driver {MIRROR_DRIVER} is not configured in this clone: a pull that changes the mirror would conflict; run `steward doctor --fix`"
        ));
    }
    problems
}
