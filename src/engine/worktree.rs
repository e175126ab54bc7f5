//! A git worktree per run (`dispatch.worktree`): with the store root inside
//! a git work tree, each run works in a worktree of its own under
//! `state/worktrees/<run id>` (machine-local, ignored by git), on a branch
//! `steward/<label>/<dispatch id, short>` started from `dispatch.base`.
//! Follow-up runs of the goal keep working there. The goal's checks run in
//! the worktree while its run is open, then in the root; a goal completed
//! there is left on its branch (`dispatch.merge: none`) or merged into the
//! root's branch when the merge is clean (`ff`, `merge`), then judged in
//! the root. A merge that is not clean is never forced: the goal waits for
//! a person, who is told the commands. Worktrees of finished runs go after
//! `retention.worktrees`; one with uncommitted changes is kept.
//!
//! The agent writes whatever it likes in its worktree — a `.git` file
//! pointing elsewhere, `.gitattributes`, hooks, links. steward reads and
//! changes worktrees through libgit2, which runs no hooks, filters or
//! fsmonitor, opening each by the administrative directory steward made,
//! never by the worktree's own `.git` file; its one `git` process, the
//! fast-forward of the root, runs with hooks and fsmonitor off.

use std::path::{Component, Path, PathBuf};

use git2::{BranchType, Repository, WorktreeAddOptions};

use super::checking::Site;
use crate::config::MergeMode;
use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Run, RunWorktree, Waiting, WorktreeState};

/// Where worktrees live, under the state directory.
pub const DIR: &str = "worktrees";

/// The start of the wait of a goal whose judge passed in a worktree and
/// whose branch is to be merged (`dispatch.merge: ff|merge`).
pub const MERGE_WAIT: &str = "steward to merge branch ";

/// Whether runs of `goal` work in worktrees of their own.
pub fn wanted(ctx: &Context, goal: &Goal) -> bool {
    goal.record.worktree.unwrap_or(ctx.config.dispatch.worktree)
}

/// The repository whose work tree holds the root, and the root's place in
/// it ("" at the top).
pub(super) fn repository(root: &Path) -> Option<(Repository, String)> {
    let repo = Repository::discover(root).ok()?;
    let top = repo.workdir()?.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    let sub = root.strip_prefix(&top).ok()?.to_str()?.to_string();
    Some((repo, sub))
}

/// The worktree a new run of `goal` works in: the one of its last run
/// while that is still in use, else a new one; `None` without worktrees
/// (off, or the root is not in a git work tree).
pub fn for_run(ctx: &Context, goal: &Goal, mine: &[&Run], id: &str) -> Option<RunWorktree> {
    if !wanted(ctx, goal) {
        return None;
    }
    if let Some(last) = mine.iter().rev().find_map(|r| r.worktree.as_ref())
        && last.state.is_none()
        && safe_dir(ctx, last).is_some_and(|dir| dir.is_dir())
    {
        return Some(last.clone());
    }
    let (_, subdir) = repository(&ctx.root)?;
    let short: String = id.trim_start_matches("run-").chars().take(8).collect();
    let mut branch = format!("steward/{}/{short}", goal.label);
    if !git2::Reference::is_valid_name(&format!("refs/heads/{branch}")) {
        branch = format!("steward/{}/{short}", &goal.id[..goal.id.len().min(8)]);
    }
    Some(RunWorktree {
        path: format!("{}/{DIR}/{id}", ctx.store.relative(&ctx.store.state_dir)),
        branch,
        subdir,
        base: None,
        into: None,
        state: None,
        judged_commit: None,
        pushed_commit: None,
    })
}

/// The worktree's directory, when its recorded path is one steward makes:
/// `state/worktrees/<name>`, nothing else, and no link on the way.
pub(super) fn safe_dir(ctx: &Context, worktree: &RunWorktree) -> Option<PathBuf> {
    let parent = ctx.store.state_dir.join(DIR);
    let relative = Path::new(&worktree.path);
    let name = relative.file_name()?.to_str()?;
    let expected = format!("{}/{DIR}/{name}", ctx.store.relative(&ctx.store.state_dir));
    if worktree.path != expected || name.starts_with('.') {
        return None;
    }
    if [&ctx.store.state_dir, &parent].iter().any(|dir| {
        dir.symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
    }) {
        return None;
    }
    let subdir = Path::new(&worktree.subdir);
    if subdir
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    Some(parent.join(name))
}

/// Where the agent of a run in `worktree` works, and its checks run.
pub fn work_dir(ctx: &Context, worktree: &RunWorktree) -> Option<PathBuf> {
    Some(safe_dir(ctx, worktree)?.join(&worktree.subdir))
}

/// Makes the run's worktree when it is not there yet (its branch from
/// `dispatch.base`, or the branch as it stands when a follow-up run finds
/// it gone), filling in its base and the root's branch. Where the agent
/// works, or why it cannot start.
pub fn prepare(ctx: &Context, worktree: &mut RunWorktree) -> std::result::Result<PathBuf, String> {
    let _deadline =
        crate::os::git::deadline(&ctx.root, &format!("making worktree {}", worktree.path));
    let dir = safe_dir(ctx, worktree)
        .ok_or_else(|| format!("worktree path {} is not steward's", worktree.path))?;
    let work = dir.join(&worktree.subdir);
    if dir
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(format!("{} is a symbolic link", worktree.path));
    }
    if dir.is_dir() {
        return Ok(work);
    }
    let (repo, _) = repository(&ctx.root)
        .ok_or_else(|| "the store root is no longer in a git work tree".to_string())?;
    crate::store::cache_dir_ready(&ctx.store.state_dir.join(DIR));
    let branch = match repo.find_branch(&worktree.branch, BranchType::Local) {
        Ok(branch) => branch,
        Err(_) => {
            let base = base_commit(ctx, &repo)?;
            worktree.base = Some(base.id().to_string());
            repo.branch(&worktree.branch, &base, false)
                .map_err(|err| format!("cannot create branch {}: {err}", worktree.branch))?
        }
    };
    if worktree.into.is_none() {
        worktree.into = repo
            .head()
            .ok()
            .filter(git2::Reference::is_branch)
            .and_then(|head| head.shorthand().ok().map(str::to_string));
    }
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    // A stale administrative entry of the same name (its folder removed by
    // hand) goes first.
    if let Ok(old) = repo.find_worktree(&name) {
        let _ = old.prune(Some(git2::WorktreePruneOptions::new().valid(true)));
    }
    // libgit2 makes `.git/worktrees` for the first worktree, and fails
    // when another process made it in the meantime: of two runs started
    // at once, one ended before its agent started ("directory exists").
    let admin = repo.commondir().join("worktrees");
    std::fs::create_dir_all(&admin)
        .map_err(|err| format!("cannot create {}: {err}", admin.display()))?;
    let mut options = WorktreeAddOptions::new();
    options.reference(Some(branch.get()));
    repo.worktree(&name, &dir, Some(&options))
        .map_err(|err| format!("cannot create worktree {}: {err}", worktree.path))?;
    Ok(work)
}

/// `dispatch.base`, else the current branch's upstream, else HEAD.
fn base_commit<'r>(
    ctx: &Context,
    repo: &'r Repository,
) -> std::result::Result<git2::Commit<'r>, String> {
    if let Some(base) = &ctx.config.dispatch.base {
        return repo
            .revparse_single(base)
            .and_then(|o| o.peel_to_commit())
            .map_err(|err| format!("dispatch.base `{base}`: {err}"));
    }
    let head = repo
        .head()
        .map_err(|err| format!("the repository has no HEAD to start from: {err}"))?;
    if head.is_branch()
        && let Ok(name) = head.shorthand()
        && let Ok(branch) = repo.find_branch(name, BranchType::Local)
        && let Ok(upstream) = branch.upstream()
        && let Ok(commit) = upstream.get().peel_to_commit()
    {
        return Ok(commit);
    }
    head.peel_to_commit()
        .map_err(|err| format!("HEAD is not a commit: {err}"))
}

/// The worktree of `goal`'s open run, if it works in one: where the goal's
/// checks run while it is open. With `dispatch.pull_request`, also the
/// last run's worktree still in use after the run ended: its branch is
/// the pull request's, and the goal's checks judge what it holds.
pub fn open_for(ctx: &Context, goal_id: &str, runs: &[Run]) -> Option<PathBuf> {
    let run = runs
        .iter()
        .rev()
        .find(|r| r.goal_id == goal_id && r.machine == ctx.machine_id() && r.worktree.is_some())
        .filter(|r| {
            r.is_active()
                || (ctx.config.dispatch.pull_request
                    && r.worktree.as_ref().is_some_and(|w| w.state.is_none()))
        })?;
    let worktree = run.worktree.as_ref()?;
    work_dir(ctx, worktree).filter(|dir| dir.is_dir())
}

/// The open run of goal `goal_id` on this machine that works in a
/// worktree, when there is one.
pub fn open_run(ctx: &Context, goal_id: &str) -> Option<Run> {
    if !ctx.store.state_dir.join(DIR).is_dir() {
        return None;
    }
    let (runs, _) = ctx.store.runs().ok()?;
    open_for(ctx, goal_id, &runs)?;
    runs.into_iter()
        .rev()
        .find(|r| r.goal_id == goal_id && r.is_active() && r.machine == ctx.machine_id())
}

/// Where each goal's checks run: its open run's worktree, else the root.
/// Reads the runs only when some worktree exists.
pub fn check_sites(ctx: &Context, goals: &[&Goal]) -> Vec<Site> {
    let ids: Vec<&str> = goals.iter().map(|g| g.id.as_str()).collect();
    check_roots(ctx, &ids)
        .into_iter()
        .zip(goals)
        .map(|(dir, goal)| check_site(ctx, dir, goal))
        .collect()
}

fn check_roots(ctx: &Context, goal_ids: &[&str]) -> Vec<PathBuf> {
    let root = || vec![ctx.root.clone(); goal_ids.len()];
    let any = std::fs::read_dir(ctx.store.state_dir.join(DIR))
        .map(|entries| entries.flatten().any(|e| e.file_name() != ".gitignore"))
        .unwrap_or(false);
    if !any {
        return root();
    }
    let Ok((runs, _)) = ctx.store.runs() else {
        return root();
    };
    goal_ids
        .iter()
        .map(|id| open_for(ctx, id, &runs).unwrap_or_else(|| ctx.root.clone()))
        .collect()
}

/// The branch a judge in a worktree leaves to merge, when the goal's
/// checks ran in `worktree` and `dispatch.merge` merges: the wait the
/// goal gets instead of `completed`.
pub fn merge_wait(ctx: &Context, goal: &Goal) -> Option<(Waiting, Run)> {
    if ctx.config.dispatch.merge == MergeMode::None || !ctx.store.state_dir.join(DIR).is_dir() {
        return None;
    }
    let (runs, _) = ctx.store.runs().ok()?;
    open_for(ctx, &goal.id, &runs)?;
    let run = runs
        .iter()
        .rev()
        .find(|r| r.goal_id == goal.id && r.is_active())?;
    let worktree = run.worktree.as_ref()?;
    let wait = Waiting {
        until: None,
        for_check: false,
        for_person: None,
        session: None,
        reason: format!(
            "{MERGE_WAIT}{} into {} once run {} ends (dispatch.merge: {}), and to judge it in the root",
            worktree.branch,
            worktree.into_name(),
            run.id,
            ctx.config.dispatch.merge.as_str()
        ),
        since: Some(ctx.now),
    };
    Some((wait, run.clone()))
}

/// The judge passed `run`'s goal in its worktree at `commit`: what lets
/// steward merge the branch, that commit and nothing after it (a wait an
/// agent sets with the same words does not).
pub(super) fn mark_judged(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    run: &Run,
    commit: &str,
) -> Result<()> {
    let mut current = ctx.store.find_run(&run.id)?;
    if let Some(worktree) = &mut current.worktree {
        worktree.state = Some(WorktreeState::Judged);
        worktree.judged_commit = Some(commit.to_string());
    }
    tx.save_run(&current)
}

/// The commit the branch of `worktree` is at, for the judge to pass: only
/// when everything in the worktree is committed (what the checks saw is
/// what would be merged).
pub fn judged_head(ctx: &Context, worktree: &RunWorktree) -> std::result::Result<String, String> {
    let _deadline =
        crate::os::git::deadline(&ctx.root, &format!("reading branch {}", worktree.branch));
    if dirty(ctx, worktree)? {
        return Err(format!(
            "its worktree {} has changes not committed to branch {}",
            worktree.path, worktree.branch
        ));
    }
    let (repo, _) = repository(&ctx.root).ok_or("not in a git work tree")?;
    repo.find_branch(&worktree.branch, BranchType::Local)
        .and_then(|b| b.get().peel_to_commit())
        .map(|commit| commit.id().to_string())
        .map_err(|err| format!("branch {}: {err}", worktree.branch))
}

/// The same, in a transaction under way.
pub(super) fn mark_in(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    run: &Run,
    state: WorktreeState,
) -> Result<()> {
    let mut current = ctx.store.find_run(&run.id)?;
    if let Some(worktree) = &mut current.worktree {
        worktree.state = Some(state);
    }
    tx.save_run(&current)
}

/// The judge's mark taken off `run`'s worktree: what it passed is not to
/// be merged (the next judge marks it again).
pub(super) fn unjudge(ctx: &Context, run: &Run) -> Result<()> {
    let mut tx = ctx.transaction_by(crate::model::Actor::Steward)?;
    tx.leave_uncommitted();
    let mut current = ctx.store.find_run(&run.id)?;
    if let Some(worktree) = &mut current.worktree {
        worktree.state = None;
        worktree.judged_commit = None;
    }
    tx.save_run(&current)?;
    super::finish(tx)?;
    Ok(())
}

/// The goal's checks run on `commit` (what the root would hold after a
/// merge), in a worktree made for them under `state/worktrees/` and
/// removed after: the failing ones, as lines. Files git ignores in the
/// run's worktree (a build output) are not there, so what passes here is
/// what the commit holds.
pub fn checks_at_commit(
    ctx: &Context,
    goal: &Goal,
    commit: &str,
    subdir: &str,
    name: &str,
) -> std::result::Result<Vec<String>, String> {
    if goal.verification.is_empty() {
        return Ok(Vec::new());
    }
    let (repo, _) = repository(&ctx.root).ok_or("not in a git work tree")?;
    let name = format!("verify-{name}");
    let branch_name = format!("steward/verify/{name}");
    let dir = ctx.store.state_dir.join(DIR).join(&name);
    let made = {
        let _deadline = crate::os::git::deadline(&ctx.root, &format!("checking out {commit}"));
        let target = git2::Oid::from_str(commit)
            .and_then(|oid| repo.find_commit(oid))
            .map_err(|err| format!("commit {commit}: {err}"))?;
        let branch = repo
            .branch(&branch_name, &target, true)
            .map_err(|err| format!("cannot create branch {branch_name}: {err}"))?;
        crate::store::cache_dir_ready(&ctx.store.state_dir.join(DIR));
        remove(ctx, &dir);
        let mut options = WorktreeAddOptions::new();
        options.reference(Some(branch.get()));
        repo.worktree(&name, &dir, Some(&options))
            .map_err(|err| format!("cannot make a worktree to check the merge: {err}"))
    };
    let failing = made.map(|_| {
        let checks: Vec<&crate::model::Check> = goal.verification.iter().collect();
        let at = dir.join(subdir);
        let site = check_site(ctx, at, goal);
        super::checking::run_at(ctx, &checks, &site)
            .iter()
            .zip(&checks)
            .filter_map(|(outcome, check)| match outcome {
                crate::checks::CheckOutcome::Passed { .. } => None,
                crate::checks::CheckOutcome::Failed { detail } => {
                    Some(format!("{} {}: {detail}", check.kind, check.target))
                }
                crate::checks::CheckOutcome::Pending { detail } => Some(format!(
                    "{} {}: {}{detail}",
                    check.kind,
                    check.target,
                    crate::model::LastCheck::PENDING
                )),
                crate::checks::CheckOutcome::Invalid { reason } => {
                    Some(format!("{} {}: {reason}", check.kind, check.target))
                }
            })
            .collect()
    });
    remove(ctx, &dir);
    if let Ok(mut branch) = repo.find_branch(&branch_name, BranchType::Local) {
        let _ = branch.delete();
    }
    failing
}

/// Whether the worktree has changes not committed to its branch (files
/// changed, staged or new), read by libgit2 through the administrative
/// directory steward made, never the worktree's own `.git` file.
pub fn dirty(ctx: &Context, worktree: &RunWorktree) -> std::result::Result<bool, String> {
    let dir = safe_dir(ctx, worktree).ok_or("not steward's worktree")?;
    let (repo, _) = repository(&ctx.root).ok_or("not in a git work tree")?;
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let admin = repo.path().join("worktrees").join(name);
    let wt = Repository::open_bare(&admin).map_err(|err| format!("{}: {err}", admin.display()))?;
    wt.set_workdir(&dir, false)
        .map_err(|err| format!("{}: {err}", dir.display()))?;
    let mut options = git2::StatusOptions::new();
    options
        .include_untracked(true)
        .recurse_untracked_dirs(false)
        .include_ignored(false);
    let statuses = wt
        .statuses(Some(&mut options))
        .map_err(|err| format!("{}: {err}", dir.display()))?;
    Ok(!statuses.is_empty())
}

/// What retention did to worktrees.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pruned {
    pub removed: usize,
    /// Past their retention with uncommitted changes: (path, branch).
    pub kept: Vec<(String, String)>,
}

/// Removes the worktrees of finished runs older than
/// `retention.worktrees` whose goal closed or moved on (their branches
/// stay); one with uncommitted changes is kept and marked.
pub fn prune(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    runs: &[Run],
) -> Result<Pruned> {
    let mut pruned = Pruned::default();
    if !ctx.store.state_dir.join(DIR).is_dir() {
        return Ok(pruned);
    }
    let before = crate::model::format_time(ctx.now - ctx.config.retention.worktrees.to_chrono());
    let last = last_runs(ctx, runs);
    for run in last {
        let worktree = run.worktree.as_ref().expect("kept for its worktree");
        if run.is_active()
            || matches!(
                worktree.state,
                Some(WorktreeState::Removed | WorktreeState::Kept)
            )
            || run.ended_at.as_deref().is_none_or(|t| t >= before.as_str())
        {
            continue;
        }
        // A worktree still in use by an open goal stays.
        let open = matches!(worktree.state, None | Some(WorktreeState::Judged))
            && ctx
                .store
                .refind(&run.goal_id, &run.goal_label)
                .is_ok_and(|g| !g.goal.status.is_terminal());
        if open {
            continue;
        }
        let Some(dir) = safe_dir(ctx, worktree) else {
            continue;
        };
        if !dir.is_dir() {
            mark_in(ctx, tx, run, WorktreeState::Removed)?;
            continue;
        }
        match dirty(ctx, worktree) {
            Ok(false) => {
                remove(ctx, &dir);
                mark_in(ctx, tx, run, WorktreeState::Removed)?;
                pruned.removed += 1;
            }
            _ => {
                mark_in(ctx, tx, run, WorktreeState::Kept)?;
                pruned
                    .kept
                    .push((worktree.path.clone(), worktree.branch.clone()));
            }
        }
    }
    Ok(pruned)
}

/// Removes a worktree's folder (links in it are removed, never followed)
/// and git's entry for it; the branch stays.
fn remove(ctx: &Context, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    if let Some((repo, _)) = repository(&ctx.root)
        && let Some(name) = dir.file_name().and_then(|n| n.to_str())
        && let Ok(worktree) = repo.find_worktree(name)
    {
        let _ = worktree.prune(Some(git2::WorktreePruneOptions::new().valid(true)));
    }
}

/// Every worktree not removed, as `status` and `doctor` show them: none
/// without a worktree folder (the runs are not read).
pub fn overview(ctx: &Context) -> Vec<(String, String, String, &'static str)> {
    if !ctx.store.state_dir.join(DIR).is_dir() {
        return Vec::new();
    }
    match ctx.store.runs() {
        Ok((runs, _)) => listed(ctx, &runs),
        Err(_) => Vec::new(),
    }
}

/// The worktrees of one goal's runs, read only when a worktree folder
/// exists (`show`).
pub fn goal_worktrees(ctx: &Context, goal_id: &str) -> Vec<(RunWorktree, &'static str)> {
    if !ctx.store.state_dir.join(DIR).is_dir() {
        return Vec::new();
    }
    match ctx.store.runs() {
        Ok((runs, _)) => of_goal(&runs, goal_id)
            .into_iter()
            .map(|(w, state)| (w.clone(), state))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The worktrees of one goal's runs: (worktree, what became of it).
pub fn of_goal<'r>(runs: &'r [Run], goal_id: &str) -> Vec<(&'r RunWorktree, &'static str)> {
    let mut found: Vec<(&RunWorktree, &'static str)> = Vec::new();
    for run in runs.iter().filter(|r| r.goal_id == goal_id) {
        let Some(worktree) = &run.worktree else {
            continue;
        };
        found.retain(|(w, _)| w.path != worktree.path);
        let state = match worktree.state {
            Some(state) => state.as_str(),
            None if run.is_active() => "in use",
            None => "open",
        };
        found.push((worktree, state));
    }
    found
}

/// The last run of each worktree of this machine, which speaks for it.
pub fn last_runs<'r>(ctx: &Context, runs: &'r [Run]) -> Vec<&'r Run> {
    let mut last: Vec<&Run> = Vec::new();
    for run in runs.iter().filter(|r| r.machine == ctx.machine_id()) {
        let Some(worktree) = &run.worktree else {
            continue;
        };
        last.retain(|r| r.worktree.as_ref().is_none_or(|w| w.path != worktree.path));
        last.push(run);
    }
    last
}

/// The worktrees kept with uncommitted changes, and those in use, for
/// `doctor` and `status`: (path, branch, goal label, state).
pub fn listed(ctx: &Context, runs: &[Run]) -> Vec<(String, String, String, &'static str)> {
    let last = last_runs(ctx, runs);
    last.into_iter()
        .filter_map(|run| {
            let worktree = run.worktree.as_ref()?;
            let state = match worktree.state {
                Some(WorktreeState::Removed) => return None,
                Some(state) => state.as_str(),
                None if run.is_active() => "in use",
                None => "open",
            };
            Some((
                worktree.path.clone(),
                worktree.branch.clone(),
                run.goal_label.clone(),
                state,
            ))
        })
        .collect()
}

/// The parts of the repository's git directory a commit on the run's
/// branch writes: objects, the folder of the goal's branches
/// (`refs/heads/steward/<label>/`) and of their logs, and the worktree's
/// own administrative folder — never another branch, `config` or `hooks`,
/// which steward's and the person's git would read. The folders are made
/// if they are missing: a sandbox can only open what exists.
pub fn git_writable(ctx: &Context, worktree: &RunWorktree) -> Vec<PathBuf> {
    let Some((repo, _)) = repository(&ctx.root) else {
        return Vec::new();
    };
    let common = repo.commondir().to_path_buf();
    let name = Path::new(&worktree.path)
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let branch_folder = Path::new(&worktree.branch)
        .parent()
        .unwrap_or(Path::new(""))
        .to_path_buf();
    let refs = common.join("refs/heads").join(&branch_folder);
    let logs = common.join("logs/refs/heads").join(&branch_folder);
    for folder in [&refs, &logs] {
        let _ = std::fs::create_dir_all(folder);
    }
    vec![
        common.join("objects"),
        refs,
        logs,
        common.join("worktrees").join(name),
    ]
}

/// What a sandboxed run in a worktree must not write in the repository's
/// git directory, for a client that opens the whole of it to a session in
/// a worktree (Claude Code does): every ref but the goal's own branches —
/// packed branches made loose refs first, so that there is a file to deny
/// rather than a line of `packed-refs` a new file would override —,
/// `packed-refs`, and what steers git or the root's checkout (`config`,
/// `hooks`, `info`, `objects/info`, the root's `HEAD` and `index`, the
/// shared indexes, other worktrees). A new branch name stays writable:
/// nothing reads it.
pub fn git_denied(ctx: &Context, worktree: &RunWorktree) -> Vec<PathBuf> {
    let Some((repo, _)) = repository(&ctx.root) else {
        return Vec::new();
    };
    let common = repo.commondir().to_path_buf();
    // A branch only `packed-refs` holds would be moved by a new loose file
    // in `refs/heads/`, which stays writable for the goal's own: each gets
    // its loose file, to be denied. (The other folders of `refs/` are
    // denied whole below: nothing can be made in them.)
    let packed = std::fs::read_to_string(common.join("packed-refs")).unwrap_or_default();
    for name in packed
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(_, name)| name)
        .filter(|name| name.starts_with("refs/heads/"))
    {
        keep_loose(&repo, name);
    }
    // Folders a sandbox can only deny when they exist: a remote-tracking
    // ref made there would be the upstream a next run starts from, an
    // `objects/info/alternates` would lend the repository objects that go
    // with the worktree.
    for folder in ["refs/remotes", "refs/tags", "objects/info"] {
        let _ = std::fs::create_dir_all(common.join(folder));
    }
    let own_run = Path::new(&worktree.path).file_name();
    let entries = |dir: &Path, keep: Option<&std::ffi::OsStr>| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|listing| {
                listing
                    .flatten()
                    .filter(|e| Some(e.file_name().as_os_str()) != keep)
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut branch = Path::new(&worktree.branch).components();
    let (top, label) = (branch.next(), branch.next());
    let mut denied = entries(&common.join("refs"), Some("heads".as_ref()));
    denied.extend(entries(
        &common.join("refs/heads"),
        top.map(|c| c.as_os_str()),
    ));
    if let Some(top) = top {
        denied.extend(entries(
            &common.join("refs/heads").join(top),
            label.map(|c| c.as_os_str()),
        ));
    }
    denied.extend(entries(&common.join("worktrees"), own_run));
    for name in [
        "packed-refs",
        "config",
        "config.worktree",
        "hooks",
        "info",
        "modules",
        "shallow",
        "HEAD",
        "index",
        "objects/info",
    ] {
        let path = common.join(name);
        if path.exists() {
            denied.push(path);
        }
    }
    // The shared indexes of a split index, which a commit of the root's
    // reads.
    denied.extend(entries(&common, None).into_iter().filter(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("sharedindex."))
    }));
    denied.sort();
    denied
}

/// Writes `name` as a loose ref of the commit it names, if only
/// `packed-refs` holds it (libgit2 leaves a packed ref of the same target
/// as it is): through its lock file, as git writes one.
fn keep_loose(repo: &Repository, name: &str) {
    let loose = repo.commondir().join(name);
    if loose.exists() {
        return;
    }
    let lock = PathBuf::from(format!("{}.lock", loose.display()));
    if let Some(parent) = loose.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    // Another holder of the lock: it is writing the ref; left to it.
    let Ok(mut file) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
    else {
        return;
    };
    // Looked at again under the lock: git may have written it meanwhile.
    let written = match repo.refname_to_id(name) {
        Ok(target) if !loose.exists() => {
            std::io::Write::write_all(&mut file, format!("{target}\n").as_bytes())
                .and_then(|()| std::fs::rename(&lock, &loose))
        }
        _ => Err(std::io::Error::other("nothing to write")),
    };
    if written.is_err() {
        let _ = std::fs::remove_file(&lock);
    }
}

/// Where `at`'s checks run, once the worktree `at` lies in (when it is one
/// steward made under `state/worktrees/`) links to its repository as
/// steward made it: its `.git` file names its folder in the repository's
/// git directory, and that folder's `commondir` the git directory. The
/// agent can point either elsewhere, at a repository of its own whose
/// configuration runs programs; they are written back before a check
/// runs `git` there. A worktree whose folder is gone, or that has a
/// configuration of its own (`config.worktree`, which the agent can
/// write), runs no check: each fails, saying why.
fn check_site(ctx: &Context, at: PathBuf, goal: &Goal) -> Site {
    let refused = restore_links(ctx, &at).err();
    Site {
        dir: at,
        refused,
        goal_id: goal.id.clone(),
        goal_label: goal.label.clone(),
        pull_request: goal.record.pull_request.clone(),
        last_run_at: goal.record.pull_request.as_ref().and_then(|_| {
            let (runs, _) = ctx.store.runs().ok()?;
            runs.iter()
                .rev()
                .find(|r| r.goal_id == goal.id)
                .and_then(|r| r.started_at.clone())
        }),
    }
}

fn restore_links(ctx: &Context, at: &Path) -> std::result::Result<(), String> {
    let worktrees = ctx.store.state_dir.join(DIR);
    // The store may be a folder of the repository: `at` is then in the
    // worktree, not the worktree itself.
    let Some(name) = at
        .strip_prefix(&worktrees)
        .ok()
        .and_then(|rest| rest.components().next())
    else {
        return Ok(());
    };
    let (repo, _) =
        repository(&ctx.root).ok_or("the store root is no longer in a git work tree")?;
    let common = repo.commondir().to_path_buf();
    let admin = common.join("worktrees").join(name);
    let work_tree = worktrees.join(name);
    if !admin.is_dir() || !work_tree.is_dir() {
        return Err(format!(
            "worktree {}: its folder in the repository is gone; no check runs there",
            work_tree.display()
        ));
    }
    // Claude Code's sandbox leaves an empty one as it denies it: only a
    // configuration with something in it is one.
    if std::fs::metadata(admin.join("config.worktree")).is_ok_and(|m| m.len() > 0) {
        return Err(format!(
            "worktree {}: it has a configuration of its own ({}), which its agent can write; no check runs there",
            work_tree.display(),
            admin.join("config.worktree").display()
        ));
    }
    let links = [
        (
            work_tree.join(".git"),
            format!("gitdir: {}\n", admin.display()),
        ),
        (admin.join("commondir"), format!("{}\n", common.display())),
    ];
    for (path, wanted) in links {
        // As libgit2 writes them, a folder ends in `/`.
        let same = |text: &str| text.trim_end().trim_end_matches('/').to_string();
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && std::fs::read_to_string(&path).is_ok_and(|had| same(&had) == same(&wanted))
        {
            continue;
        }
        // Replaced, never written through: the agent may have made it a
        // link to somewhere else.
        let _ = std::fs::remove_file(&path);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, wanted.as_bytes()))
            .map_err(|err| {
                format!(
                    "{}: cannot write it back as steward made it: {err}",
                    path.display()
                )
            })?;
    }
    Ok(())
}

/// The entries of the store's state directory but its worktrees: what a
/// sandboxed run in a worktree is denied one by one.
pub fn state_entries(ctx: &Context) -> Vec<String> {
    let mut entries: Vec<String> = std::fs::read_dir(&ctx.store.state_dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|name| name != DIR)
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries
}
