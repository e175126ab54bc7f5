//! `sync`: the store shared through a git remote
//! (steward-guide(7), "MANY MACHINES, ONE STORE"). Under the store lock:
//! commit what steward owns, pull (a merge), regenerate what steward owns
//! (the mirror's block), commit it, push, and pull again when the push is
//! rejected. Two machines that changed the same files stop the pull with
//! both versions kept.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Goal, Status};
use crate::store::StoreLock;

/// Pushes rejected because the remote moved, tried again after a pull.
const PUSH_RETRIES: u32 = 3;

/// What `sync` did.
#[derive(Debug, Default)]
pub struct Synced {
    pub remote: String,
    pub branch: String,
    /// Steward's own changes committed before the pull.
    pub committed: bool,
    /// Commits the pull brought.
    pub pulled: usize,
    /// The mirror's block rendered again after the merge.
    pub regenerated: bool,
    pub pushed: bool,
    /// Pushes rejected and tried again.
    pub retries: u32,
    /// Goals found changed outside steward before the commit: recorded,
    /// and held for a person.
    pub held: Vec<String>,
    /// The answers from the phone the pull brought, taken before the push.
    pub answers: super::reply::Taken,
}

/// Syncs the store with `git.remote`; `push: false` only pulls.
pub fn sync(ctx: &Context, push: bool) -> Result<Synced> {
    super::git_setup::refuse_programs_in_git_config(ctx)?;
    let root = &ctx.root;
    let remote = ctx.config.git.remote.clone();
    let branch = crate::os::git::cli(root, &["rev-parse", "--abbrev-ref", "HEAD"])?
        .trim()
        .to_string();
    crate::os::git::cli(root, &["remote", "get-url", &remote]).map_err(|_| {
        Error::Git(format!(
            "no git remote `{remote}` (git.remote): add one with `git remote add {remote} URL`"
        ))
    })?;
    let mut synced = Synced {
        remote: remote.clone(),
        branch: branch.clone(),
        ..Synced::default()
    };
    // What changed outside steward is recorded (and held) before it is
    // committed: another machine pulling it holds it too.
    synced.held = super::trust::record_outside_changes(ctx)?;
    let lock = StoreLock::acquire(&ctx.store.lock_path(), ctx.lock_timeout)?;
    synced.committed = commit_own(ctx, "steward sync: the store's changes")?;
    let pulled = pull(ctx, &remote, &branch);
    drop(lock);
    synced.pulled = take_pulled(ctx, pulled?)?;
    if synced.pulled > 0 {
        synced.regenerated = regenerate(ctx)?;
    }
    synced.answers = super::reply::take_answers(ctx);
    if !push {
        return Ok(synced);
    }
    loop {
        let lock = StoreLock::acquire(&ctx.store.lock_path(), ctx.lock_timeout)?;
        match crate::os::git::cli(
            root,
            &["push", "--quiet", &remote, &format!("HEAD:{branch}")],
        ) {
            Ok(_) => {
                synced.pushed = true;
                return Ok(synced);
            }
            Err(err) if synced.retries < PUSH_RETRIES && rejected(&err) => {
                synced.retries += 1;
                let pulled = pull(ctx, &remote, &branch);
                drop(lock);
                synced.pulled += take_pulled(ctx, pulled?)?;
                synced.regenerated |= regenerate(ctx)?;
            }
            Err(err) => return Err(err),
        }
    }
}

/// Pulls `remote/branch` under the store lock (claims before a pass, and
/// after a rejected push); the commits it brought.
pub(crate) fn pull_locked(ctx: &Context, remote: &str, branch: &str) -> Result<usize> {
    super::git_setup::refuse_programs_in_git_config(ctx)?;
    let lock = StoreLock::acquire(&ctx.store.lock_path(), ctx.lock_timeout)?;
    let pulled = pull(ctx, remote, branch);
    drop(lock);
    take_pulled(ctx, pulled?)
}

/// Takes the goals a pull changed as steward's (see
/// [`super::trust::adopt_merged`]); the commits it brought.
fn take_pulled(ctx: &Context, pulled: Pulled) -> Result<usize> {
    if let Some(merge) = &pulled.merge {
        super::trust::adopt_merged(ctx, merge)?;
    }
    Ok(pulled.commits)
}

/// What a pull did: the commits it brought, and the merge it made.
struct Pulled {
    commits: usize,
    merge: Option<super::trust::Merge>,
}

/// Whether a push failed because the remote has commits we lack.
pub(crate) fn rejected(err: &Error) -> bool {
    let text = err.to_string();
    // "cannot lock ref": another push moved the branch while ours ran.
    [
        "rejected",
        "fetch first",
        "non-fast-forward",
        "cannot lock ref",
    ]
    .iter()
    .any(|sign| text.contains(sign))
}

/// The paths steward owns, relative to the root.
fn own_paths(ctx: &Context) -> Vec<String> {
    let mut paths = vec![
        ctx.store.relative(&ctx.store.goals_dir),
        "state".to_string(),
    ];
    if let Some(mirror) = &ctx.store.mirror_path {
        paths.push(ctx.store.relative(mirror));
    }
    paths
}

/// Commits steward's paths when they changed (a store without
/// `git.commit`); whether it committed.
fn commit_own(ctx: &Context, message: &str) -> Result<bool> {
    let root = &ctx.root;
    let paths = own_paths(ctx);
    let existing: Vec<&str> = paths
        .iter()
        .map(String::as_str)
        .filter(|p| root.join(p).exists())
        .collect();
    if existing.is_empty() {
        return Ok(false);
    }
    // A directory's spare holds the last bytes replaced there: machine
    // state, never committed.
    let spares = format!(":(exclude,glob)**/{}", crate::store::atomic::SPARE);
    let mut add = vec!["add", "-A", "--"];
    add.extend(&existing);
    add.push(&spares);
    crate::os::git::cli(root, &add)?;
    let mut staged = vec!["diff", "--cached", "--quiet", "--"];
    staged.extend(&existing);
    if crate::os::git::cli(root, &staged).is_ok() {
        return Ok(false);
    }
    let mut commit = vec!["commit", "--quiet", "--no-verify", "-m", message, "--"];
    commit.extend(&existing);
    crate::os::git::cli(root, &commit)?;
    Ok(true)
}

/// Fetches and merges `remote/branch`; the commits it brought. A merge
/// that conflicts is undone, both versions of each file kept under
/// `state/conflicts/`, and reported.
fn pull(ctx: &Context, remote: &str, branch: &str) -> Result<Pulled> {
    let root = &ctx.root;
    crate::os::git::cli(root, &["fetch", "--quiet", remote, branch])?;
    let behind: usize = crate::os::git::cli(root, &["rev-list", "--count", "HEAD..FETCH_HEAD"])?
        .trim()
        .parse()
        .unwrap_or(0);
    if behind == 0 {
        return Ok(Pulled {
            commits: 0,
            merge: None,
        });
    }
    let before = Before {
        foreign_attributes: super::git_setup::foreign_attributes(ctx).unwrap_or_default(),
        config_loads: config_loads(ctx).is_ok(),
        tracked_local: tracked_local(ctx),
    };
    let merge = super::trust::Merge::of_fetched(root)?;
    if crate::os::git::cli(root, &["merge", "--quiet", "--no-edit", "FETCH_HEAD"]).is_ok() {
        check_merge(ctx, &merge, &before, &format!("{remote}/{branch}"))?;
        return Ok(Pulled {
            commits: behind,
            merge: Some(merge),
        });
    }
    let conflicted: Vec<String> =
        crate::os::git::cli(root, &["diff", "--name-only", "--diff-filter=U"])?
            .lines()
            .map(str::to_string)
            .collect();
    // A goal the judge closed on one machine while another's watchdog
    // only marked it (stalled, say): the judge's version is the goal's.
    // An open goal two watchdogs marked at different times: one mark is
    // kept, and the next pass marks the goal as its clock finds it.
    if !conflicted.is_empty()
        && let Some(choices) = (conflicted.iter())
            .map(|path| taken_side(ctx, path).map(|side| (path, side)))
            .collect::<Option<Vec<_>>>()
    {
        for (path, side) in &choices {
            match side {
                Taken::Side(side) => {
                    crate::os::git::cli(root, &["checkout", side, "--", path])?;
                    crate::os::git::cli(root, &["add", "--", path])?;
                }
                Taken::Moved => {
                    crate::os::git::cli(root, &["rm", "--quiet", "--", path])?;
                }
            }
        }
        crate::os::git::cli(root, &["commit", "--quiet", "--no-verify", "--no-edit"])?;
        check_merge(ctx, &merge, &before, &format!("{remote}/{branch}"))?;
        return Ok(Pulled {
            commits: behind,
            merge: Some(merge),
        });
    }
    let kept = ctx.store.state_dir.join("conflicts");
    for path in &conflicted {
        keep_both(root, &kept, path)?;
    }
    crate::os::git::cli(root, &["merge", "--abort"])?;
    if conflicted.is_empty() {
        return Err(Error::Git(
            "the merge failed without a conflict git could name: see `git status`".to_string(),
        ));
    }
    let commands = super::resolve::unresolved(ctx)
        .iter()
        .filter(|c| conflicted.contains(&c.path))
        .map(super::resolve::command)
        .collect();
    Err(Error::Conflict {
        files: conflicted,
        kept: PathBuf::from(ctx.store.relative(&kept)),
        commands,
    })
}

/// What [`check_merge`] compares the merge with.
struct Before {
    /// Git attributes on steward's files not its own.
    foreign_attributes: Vec<String>,
    /// Whether the configuration files loaded.
    config_loads: bool,
    /// Files under `state/local/` that git tracks.
    tracked_local: Vec<String>,
}

/// Whether the configuration files as they are now load.
fn config_loads(ctx: &Context) -> Result<()> {
    crate::config::files_load(&ctx.store.root)
}

/// The files under `state/local/` (this machine's own, never shared) that
/// git tracks.
fn tracked_local(ctx: &Context) -> Vec<String> {
    crate::os::git::cli(&ctx.root, &["ls-files", "--", "state/local/"])
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// What a merge git made without a conflict may still have broken: a goal
/// file that no longer reads (two changes of one goal merged line by line),
/// git attributes on steward's files that were not there before (a pulled
/// `merge=union` on goal files), a configuration file that no longer loads
/// (every command here would run on the last accepted configuration, and a
/// fix could not be pulled past it), or a tracked `state/local/` (another
/// machine's own settings forced into git). Each undoes the merge (keeping
/// both versions of each goal under `state/conflicts/`) and is reported.
fn check_merge(
    ctx: &Context,
    merge: &super::trust::Merge,
    before: &Before,
    from: &str,
) -> Result<()> {
    let root = &ctx.root;
    let mut problems = Vec::new();
    let mut broken = Vec::new();
    for relative in merge.changed_goal_files(ctx)? {
        let path = ctx.store.root.join(&relative);
        if !path.exists() {
            continue;
        }
        if let Err(problem) = ctx.store.load(&path) {
            problems.push(problem.to_string());
            broken.push(relative);
        }
    }
    for foreign in super::git_setup::foreign_attributes(ctx).unwrap_or_default() {
        if !before.foreign_attributes.contains(&foreign) {
            problems.push(format!(
                ".gitattributes: the remote sets an attribute on steward's files ({foreign})"
            ));
        }
    }
    if before.config_loads
        && let Err(err) = config_loads(ctx)
    {
        problems.push(format!("the merged configuration does not load: {err}"));
    }
    for path in tracked_local(ctx) {
        if !before.tracked_local.contains(&path) {
            problems.push(format!(
                "{path}: the remote tracks a file of state/local/, this machine's own settings, which are never shared"
            ));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let kept = ctx.store.state_dir.join("conflicts");
    for path in &broken {
        let name = path.replace('/', "__");
        for (commit, side) in [(&merge.ours, "ours"), (&merge.theirs, "theirs")] {
            if let Ok(text) = crate::os::git::cli(root, &["show", &format!("{commit}:./{path}")]) {
                let file = kept.join(format!("{name}.{side}"));
                std::fs::create_dir_all(&kept)
                    .map_err(|err| Error::io(&kept, "cannot create directory", err))?;
                std::fs::write(&file, text).map_err(|err| Error::io(&file, "cannot write", err))?;
            }
        }
    }
    // `--keep`: nothing a person had not committed is lost.
    crate::os::git::cli(root, &["reset", "--quiet", "--keep", &merge.ours])?;
    Err(Error::BrokenMerge {
        from: from.to_string(),
        problems,
        kept: PathBuf::from(ctx.store.relative(&kept)),
    })
}

/// Writes our and their version of a conflicted file beside each other.
fn keep_both(root: &Path, kept: &Path, path: &str) -> Result<()> {
    let name = path.replace('/', "__");
    for (stage, side) in [(2, "ours"), (3, "theirs")] {
        let Ok(text) = crate::os::git::cli(root, &["show", &format!(":{stage}:{path}")]) else {
            continue;
        };
        let file = kept.join(format!("{name}.{side}"));
        std::fs::create_dir_all(kept)
            .map_err(|err| Error::io(kept, "cannot create directory", err))?;
        std::fs::write(&file, text).map_err(|err| Error::io(&file, "cannot write", err))?;
    }
    Ok(())
}

/// How a goal file both sides of a merge changed is taken without a
/// person.
enum Taken {
    /// That side's version (`--ours`, `--theirs`).
    Side(&'static str),
    /// That side moved it to the closed goals, where the merge has it:
    /// the open file goes.
    Moved,
}

/// For a goal file both sides of a merge changed: the side to take, or
/// `None` when a person must choose.
///
/// - The judge closed the goal on one side and the other left it open with
///   the criteria and checks it had at the merge base (a watchdog's mark,
///   an assessment: nothing the closed goal still needs): the closed goal.
/// - Both left it open, and one side changed nothing but what the watchdog
///   marks ([`marked_only`]): the other side; when both only marked it,
///   the later mark. The watchdog marks the goal again on its next pass,
///   from its own clock and the goal as taken.
fn taken_side(ctx: &Context, path: &str) -> Option<Taken> {
    let version = |stage: u8| {
        let text = crate::os::git::cli(&ctx.root, &["show", &format!(":{stage}:{path}")]).ok()?;
        let file = crate::store::GoalFile::parse(&ctx.store.root.join(path), text).ok()?;
        file.goal(&ctx.config.defaults).ok()
    };
    let base = version(1)?;
    let unchanged = |open: &Goal| {
        let criteria = |g: &Goal| {
            g.criteria
                .iter()
                .map(|c| c.text.clone())
                .collect::<Vec<_>>()
        };
        open.id == base.id
            && !open.status.is_terminal()
            && criteria(open) == criteria(&base)
            && open.verification == base.verification
    };
    match (version(2), version(3)) {
        (Some(ours), Some(theirs)) if ours.id == base.id && theirs.id == base.id => {
            match (ours.status.is_terminal(), theirs.status.is_terminal()) {
                (true, false) if unchanged(&theirs) => Some(Taken::Side("--ours")),
                (false, true) if unchanged(&ours) => Some(Taken::Side("--theirs")),
                (false, false) => match (marked_only(&base, &ours), marked_only(&base, &theirs)) {
                    (true, true) if theirs.updated_at > ours.updated_at => {
                        Some(Taken::Side("--theirs"))
                    }
                    (true, true) | (false, true) => Some(Taken::Side("--ours")),
                    (true, false) => Some(Taken::Side("--theirs")),
                    (false, false) => None,
                },
                _ => None,
            }
        }
        // One side moved the goal to the closed goals (git saw a removal):
        // the merge holds it there, closed.
        (Some(open), None) | (None, Some(open)) if unchanged(&open) => {
            closed_in_merge(ctx, &base).then_some(Taken::Moved)
        }
        _ => None,
    }
}

/// Whether `side` differs from `base` only in what a watchdog pass marks
/// on an open goal: active or stalled, the time of the change, the last
/// check's result, and history lines added after `base`'s.
fn marked_only(base: &Goal, side: &Goal) -> bool {
    let watched = |s: &Status| matches!(s, Status::Active | Status::Stalled);
    // History lines added after base's, the oldest perhaps dropped for
    // them (a goal keeps its newest lines only).
    let appended = base.history.is_empty()
        || (0..base.history.len())
            .any(|dropped| side.history.starts_with(&base.history[dropped..]));
    if !(watched(&base.status) && watched(&side.status) && appended) {
        return false;
    }
    let mut unmarked = side.clone();
    unmarked.status = base.status.clone();
    unmarked.updated_at = base.updated_at;
    unmarked.progress.last_check = base.progress.last_check.clone();
    unmarked.history = base.history.clone();
    unmarked == *base
}

/// Whether the merge's work tree holds `goal` among the closed goals,
/// closed.
fn closed_in_merge(ctx: &Context, goal: &crate::model::Goal) -> bool {
    let dir = ctx.store.goals_dir.join("closed");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return false;
    };
    let prefix = format!("{}-", goal.label);
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        name.to_str().is_some_and(|n| n.starts_with(&prefix))
            && ctx
                .store
                .load(&entry.path())
                .is_ok_and(|loaded| loaded.goal.id == goal.id && loaded.goal.status.is_terminal())
    })
}

/// Renders the mirror's block from the goals as merged and commits it;
/// whether it changed.
fn regenerate(ctx: &Context) -> Result<bool> {
    let refreshed = super::refresh_mirror(ctx)?.is_some_and(|r| r.updated);
    if refreshed && !ctx.config.git.commit {
        commit_own(ctx, "steward sync: the mirror after the merge")?;
    }
    Ok(refreshed)
}

#[cfg(test)]
mod tests {
    use super::marked_only;
    use crate::model::{Goal, HistoryEntry, Status};

    fn goal(status: &str, history: &[&str]) -> Goal {
        let lines: String = history.iter().map(|line| format!("- {line}\n")).collect();
        crate::store::testing::parse_goal(&format!(
            "---\nid: g-1\nlabel: g\nstatus: {status}\n---\n## Acceptance criteria\n\n- [ ] one\n\n## History\n\n{lines}"
        ))
    }

    #[test]
    fn a_watchdogs_mark_is_one_and_anything_else_is_not() {
        let base = goal(
            "active",
            &["2026-11-21T04:00:00Z user created: 1 criterion"],
        );
        let mut stalled = goal(
            "stalled",
            &[
                "2026-11-21T04:00:00Z user created: 1 criterion",
                "2026-11-21T05:00:00Z watchdog stalled: no activity for 1h",
            ],
        );
        assert!(marked_only(&base, &stalled));
        // The oldest line dropped to make room for the mark: still a mark.
        stalled.history.remove(0);
        let mut full = base.clone();
        full.history.push(HistoryEntry {
            line: "2026-11-21T04:30:00Z agent assessed: half".into(),
        });
        stalled.history.insert(0, full.history[1].clone());
        assert!(marked_only(&full, &stalled));
        // A criterion changed, a history line rewritten, a status the
        // watchdog does not set: not marks.
        let mut reworded = stalled.clone();
        reworded.criteria[0].text = "another".into();
        assert!(!marked_only(&full, &reworded));
        let mut rewritten = stalled.clone();
        rewritten.history[0].line = "2026-11-21T04:30:00Z agent assessed: all done".into();
        assert!(!marked_only(&full, &rewritten));
        let mut paused = stalled;
        paused.status = Status::Paused;
        assert!(!marked_only(&full, &paused));
    }
}
