//! Bringing a run's work home (`dispatch.merge: ff|merge`): before its
//! pass, `tick` merges the branch of each goal judged done in its worktree
//! into the root's branch when the merge is clean, then has the judge
//! decide in the root; a merge that is not clean waits for a person, told
//! once with the commands. The worktrees themselves are `worktree`'s.

use std::path::Path;

use git2::{BranchType, Repository};

use super::worktree::{DIR, MERGE_WAIT, dirty, mark_in, repository, safe_dir};
use crate::config::MergeMode;
use crate::context::Context;
use crate::error::Result;
use crate::model::{
    Actor, Edit, Goal, GoalChange, PersonWait, Run, RunWorktree, Status, Waiting, WorktreeState,
};

/// Whether `goal` waits for steward to merge its branch.
fn awaits_merge(goal: &Goal) -> bool {
    goal.waiting.as_ref().is_some_and(|w| {
        w.for_person.is_none()
            && w.until.is_none()
            && !w.for_check
            && w.reason.starts_with(MERGE_WAIT)
    })
}

/// What `tick` does for worktrees before its pass: merges the branches of
/// goals judged done in them (`dispatch.merge`), and marks the worktrees
/// of closed goals left. Returns lines for the person (a merge made, one
/// that waits for them).
pub fn settle(ctx: &Context) -> Result<Vec<String>> {
    let mut said = Vec::new();
    if !ctx.store.state_dir.join(DIR).is_dir() {
        return Ok(said);
    }
    let (runs, _) = ctx.store.runs()?;
    for run in super::worktree::last_runs(ctx, &runs) {
        let worktree = run.worktree.as_ref().expect("kept for its worktree");
        // In use, or judged: anything else is settled.
        if !matches!(worktree.state, None | Some(WorktreeState::Judged)) || run.is_active() {
            continue;
        }
        let Ok(loaded) = ctx.store.refind(&run.goal_id, &run.goal_label) else {
            continue;
        };
        let goal = &loaded.goal;
        if goal.status.is_terminal() {
            mark(ctx, run, WorktreeState::Left)?;
            continue;
        }
        // Only a branch the judge passed is merged: an agent's own wait
        // in the same words is not the judge's, nor a run record it
        // edited (the judge's mark is signed with the record). Only a goal
        // the judge left verifying, within its bounds: past a deadline it
        // fails however its branch reads.
        if worktree.state != Some(WorktreeState::Judged)
            || !run.verified
            || !awaits_merge(goal)
            || goal.status != Status::Verifying
            || crate::rules::watchdog::crossed_bound(goal, ctx.now).is_some()
        {
            continue;
        }
        // The goal's checks on what the root would hold, before it moves:
        // a merge that fails them never reaches the root.
        let merge = {
            let _deadline =
                crate::os::git::deadline(&ctx.root, &format!("merging branch {}", worktree.branch));
            merge(ctx, run, worktree)
        };
        let merged = merge.and_then(|merge| {
            let failing = super::worktree::checks_at_commit(
                ctx,
                goal,
                &merge.commit,
                &worktree.subdir,
                &run.id,
            )?;
            Ok((merge, failing))
        });
        match merged {
            Ok((_, failing)) if !failing.is_empty() => {
                super::worktree::unjudge(ctx, run)?;
                said.push(back_to_work(ctx, goal, run, worktree, &failing.join("; "))?);
            }
            Ok((merge, _)) => match bring_home(ctx, run, worktree, &merge) {
                Ok(commit) => {
                    mark(ctx, run, WorktreeState::Merged)?;
                    said.push(judge_in_root(ctx, goal, run, worktree, &commit)?);
                }
                Err(why) => {
                    mark(ctx, run, WorktreeState::Conflict)?;
                    said.push(wait_for_person(ctx, goal, run, worktree, &why)?);
                }
            },
            Err(why) => {
                mark(ctx, run, WorktreeState::Conflict)?;
                said.push(wait_for_person(ctx, goal, run, worktree, &why)?);
            }
        }
    }
    Ok(said)
}

/// Records what became of a run's worktree.
fn mark(ctx: &Context, run: &Run, state: WorktreeState) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    tx.leave_uncommitted();
    mark_in(ctx, &mut tx, run, state)?;
    super::finish(tx)?;
    Ok(())
}

/// The paths of the store a branch must not change to be merged: steward
/// merges code, never its own state or settings.
pub(super) fn store_paths(ctx: &Context, subdir: &str) -> Vec<String> {
    let mut paths = own_commit_paths(ctx, subdir);
    paths.extend(
        [
            "steward.yaml".to_string(),
            format!("{}/", ctx.store.relative(&ctx.store.goals_dir)),
            ".claude/".to_string(),
            ".mcp.json".to_string(),
            ".codex/".to_string(),
        ]
        .iter()
        .map(|path| in_subdir(subdir, path)),
    );
    paths.extend([".gitattributes", ".gitmodules", ".github/"].map(str::to_string));
    // The person's own, relative to the repository's top: a name without
    // a final `/` is the file or the folder of that name.
    for path in &ctx.config.dispatch.protect {
        let path = path.trim_start_matches("./").trim_start_matches('/');
        let folder = path.trim_end_matches('/');
        paths.push(folder.to_string());
        paths.push(format!("{folder}/"));
    }
    paths.dedup();
    paths
}

/// `path` of the store as a path of the repository, the store being at
/// `subdir` in it.
fn in_subdir(subdir: &str, path: &str) -> String {
    if subdir.is_empty() {
        path.to_string()
    } else {
        format!("{subdir}/{path}")
    }
}

/// Files that steer git, a person's CI or the next agent wherever they
/// are in the tree: a branch that changes one is a person's to merge.
const STEERING_NAMES: [&str; 5] = [
    ".gitattributes",
    ".gitmodules",
    "AGENTS.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
];

/// Whether `path`, changed on a branch, is one a person merges: under
/// one of `forbidden`, or named as one of [`STEERING_NAMES`] anywhere.
pub(super) fn is_forbidden(path: &str, forbidden: &[String]) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    STEERING_NAMES.contains(&name) || is_under_any(path, forbidden)
}

/// Whether `path` is one of `entries`: a file as named, or a folder (named
/// with a final `/`) itself (a file in its place) or anything under it.
fn is_under_any(path: &str, entries: &[String]) -> bool {
    entries.iter().any(|entry| match entry.strip_suffix('/') {
        Some(folder) => path == folder || path.starts_with(entry.as_str()),
        None => path == entry,
    })
}

/// Merges the run's branch into the root's branch, as `dispatch.merge`
/// says, when it can be done cleanly: the commit the root's branch is at
/// now, or why a person must merge.
fn merge(ctx: &Context, run: &Run, worktree: &RunWorktree) -> std::result::Result<Merge, String> {
    let (repo, _) =
        repository(&ctx.root).ok_or("the store root is no longer in a git work tree")?;
    let into = worktree
        .into
        .as_deref()
        .ok_or("the root was on no branch when the worktree was made")?;
    let head = repo.head().map_err(|err| format!("no HEAD: {err}"))?;
    if !head.is_branch() || head.shorthand().ok() != Some(into) {
        return Err(format!(
            "the root is on {}, not {into}",
            head.shorthand().unwrap_or("a detached HEAD")
        ));
    }
    if let Some(dir) = safe_dir(ctx, worktree)
        && dir.is_dir()
        && dirty(ctx, worktree)?
    {
        return Err(format!(
            "the worktree {} has uncommitted changes",
            worktree.path
        ));
    }
    let ours = head.peel_to_commit().map_err(|err| err.to_string())?;
    let theirs = repo
        .find_branch(&worktree.branch, BranchType::Local)
        .and_then(|b| b.get().peel_to_commit())
        .map_err(|err| format!("branch {}: {err}", worktree.branch))?;
    // What the judge passed, and nothing committed after it.
    let now = theirs.id().to_string();
    match worktree.judged_commit.as_deref() {
        Some(judged) if judged == now => {}
        Some(judged) => {
            return Err(format!(
                "branch {} moved after the judge passed it (judged {}, now {})",
                worktree.branch,
                &judged[..judged.len().min(12)],
                &now[..12]
            ));
        }
        None => {
            return Err(format!(
                "run {}'s record names no commit the judge passed on branch {}",
                run.id, worktree.branch
            ));
        }
    }
    if ours.id() == theirs.id()
        || repo
            .graph_descendant_of(ours.id(), theirs.id())
            .unwrap_or(false)
    {
        return Ok(Merge {
            commit: ours.id().to_string(),
            onto: ours.id(),
            top: None,
        });
    }
    // What git would read in place of the commits libgit2 checks here.
    let replaced = repo
        .references_glob("refs/replace/*")
        .map(|mut refs| refs.next().is_some())
        .unwrap_or(true);
    let common = repo.commondir().to_path_buf();
    // Claude Code's sandbox leaves empty ones as it denies them: only a
    // file that says something is one.
    let says_something = |path: &str| {
        std::fs::read_to_string(common.join(path)).is_ok_and(|text| !text.trim().is_empty())
    };
    if replaced || says_something("info/grafts") || says_something("objects/info/alternates") {
        return Err(
            "the repository has replacement refs (refs/replace/), grafts or borrowed objects (objects/info/alternates): what the branch holds is not what it shows; a person merges it"
                .to_string(),
        );
    }
    let merge_base = repo
        .merge_base(ours.id(), theirs.id())
        .map_err(|err| format!("no common history with {into}: {err}"))?;
    let changed = changed_paths(&repo, merge_base, theirs.id())?;
    let forbidden = store_paths(ctx, &worktree.subdir);
    let touched: Vec<&String> = changed
        .iter()
        .filter(|path| is_forbidden(path, &forbidden))
        .collect();
    if !touched.is_empty() {
        return Err(format!(
            "the branch changes files that steer steward, git, CI or agents, or that dispatch.protect names ({}): a person merges it",
            touched
                .iter()
                .take(5)
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let target = match ctx.config.dispatch.merge {
        MergeMode::Ff | MergeMode::None if merge_base == ours.id() => theirs.id(),
        // With `git.commit`, steward's own commits of its store move the
        // root's branch under every run: past those alone (the branch
        // changes none of their files, checked above), the merge commit
        // `merge` would make brings nothing else of the root's.
        MergeMode::Ff | MergeMode::None => {
            if let Some(other) = not_own(ctx, &repo, &worktree.subdir, merge_base, ours.id())? {
                return Err(format!(
                    "{into} moved since the branch started ({other} changed there): it cannot be fast-forwarded"
                ));
            }
            merge_commit(&repo, run, worktree, &ours, &theirs, into)?
        }
        MergeMode::Merge => merge_commit(&repo, run, worktree, &ours, &theirs, into)?,
    };
    let top = repo
        .workdir()
        .ok_or("the repository has no work tree")?
        .to_path_buf();
    Ok(Merge {
        commit: target.to_string(),
        onto: ours.id(),
        top: Some(top),
    })
}

/// A path changed between `from` and `to` that is not one of steward's
/// own commits of its store (`None`: all are).
fn not_own(
    ctx: &Context,
    repo: &Repository,
    subdir: &str,
    from: git2::Oid,
    to: git2::Oid,
) -> std::result::Result<Option<String>, String> {
    let store_own = own_commit_paths(ctx, subdir);
    Ok(changed_paths(repo, from, to)?
        .into_iter()
        .find(|path| !is_under_any(path, &store_own)))
}

/// Brings `made` home: the root's branch fast-forwarded to it; or, when
/// the branch moved meanwhile by steward's own commits of its store alone
/// (another steward process recording while the merge result was
/// checked, which the checked code does not depend on), made again on top
/// of them and brought home once more. The commit the branch is at.
fn bring_home(
    ctx: &Context,
    run: &Run,
    worktree: &RunWorktree,
    made: &Merge,
) -> std::result::Result<String, String> {
    let Some(top) = &made.top else {
        return Ok(made.commit.clone());
    };
    let why = match fast_forward_root(top, &made.commit) {
        Ok(()) => return Ok(made.commit.clone()),
        Err(why) => why,
    };
    let moved_by_steward = repository(&ctx.root)
        .and_then(|(repo, _)| {
            let now = repo.head().ok()?.peel_to_commit().ok()?.id();
            let descends = repo.graph_descendant_of(now, made.onto).ok()?;
            let own = not_own(ctx, &repo, &worktree.subdir, made.onto, now).ok()?;
            Some(descends && own.is_none())
        })
        .unwrap_or(false);
    if !moved_by_steward {
        return Err(why);
    }
    let again = merge(ctx, run, worktree)?;
    match &again.top {
        Some(top) => fast_forward_root(top, &again.commit).map(|()| again.commit.clone()),
        None => Ok(again.commit.clone()),
    }
}

/// What steward's own commits of its store change (`git.commit`): its
/// state and its mirror, nothing a run's branch may change or a person
/// writes.
fn own_commit_paths(ctx: &Context, subdir: &str) -> Vec<String> {
    let mut paths = vec![in_subdir(
        subdir,
        &format!("{}/", ctx.store.relative(&ctx.store.state_dir)),
    )];
    if let Some(mirror) = &ctx.store.mirror_path {
        paths.push(in_subdir(subdir, &ctx.store.relative(mirror)));
    }
    paths
}

/// The merge commit of `theirs` into `ours`, when git's merge of the two
/// is clean; not yet on any branch.
fn merge_commit(
    repo: &Repository,
    run: &Run,
    worktree: &RunWorktree,
    ours: &git2::Commit<'_>,
    theirs: &git2::Commit<'_>,
    into: &str,
) -> std::result::Result<git2::Oid, String> {
    let mut index = repo
        .merge_commits(ours, theirs, None)
        .map_err(|err| format!("cannot merge: {err}"))?;
    if index.has_conflicts() {
        let files: Vec<String> = index
            .conflicts()
            .map(|conflicts| {
                conflicts
                    .flatten()
                    .filter_map(|c| c.our.or(c.their).or(c.ancestor))
                    .map(|e| String::from_utf8_lossy(&e.path).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        return Err(format!("it conflicts with {into} in {}", files.join(", ")));
    }
    let tree = index
        .write_tree_to(repo)
        .and_then(|oid| repo.find_tree(oid))
        .map_err(|err| format!("cannot write the merged tree: {err}"))?;
    let signature = repo
        .signature()
        .or_else(|_| git2::Signature::now("steward", "steward@localhost"))
        .map_err(|err| err.to_string())?;
    repo.commit(
        None,
        &signature,
        &signature,
        &format!(
            "Merge branch '{}' (goal {}, run {})",
            worktree.branch, run.goal_label, run.id
        ),
        &tree,
        &[ours, theirs],
    )
    .map_err(|err| format!("cannot make the merge commit: {err}"))
}

/// A merge made but not yet brought to the root: the commit the root's
/// branch is to move to, and the root's repository (`None`: it is there).
struct Merge {
    commit: String,
    /// Where the root's branch was when the merge was made.
    onto: git2::Oid,
    top: Option<std::path::PathBuf>,
}

/// The paths that differ between two commits.
pub(super) fn changed_paths(
    repo: &Repository,
    from: git2::Oid,
    to: git2::Oid,
) -> std::result::Result<Vec<String>, String> {
    let tree = |oid| {
        repo.find_commit(oid)
            .and_then(|c| c.tree())
            .map_err(|err| err.to_string())
    };
    let diff = repo
        .diff_tree_to_tree(Some(&tree(from)?), Some(&tree(to)?), None)
        .map_err(|err| err.to_string())?;
    // A name that is not UTF-8 is kept, its odd bytes replaced: dropped,
    // a file under a protected folder could pass unseen.
    let mut paths: Vec<String> = diff
        .deltas()
        .flat_map(|d| [d.old_file().path_bytes(), d.new_file().path_bytes()])
        .flatten()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// Moves the root's branch and working tree to `commit`, a descendant of
/// where it is, with git's own care for local changes; no hooks run.
fn fast_forward_root(top: &Path, commit: &str) -> std::result::Result<(), String> {
    // A filter or driver the repository's own configuration names would
    // run as the checkout moves: never with steward's authority.
    let driver = crate::os::git::steward_merge_driver().unwrap_or_default();
    let key = format!("merge.{}.driver", super::git_setup::MIRROR_DRIVER);
    let found = crate::os::git::programs_in_repository_config(top, &[(&key, &driver)]);
    if !found.is_empty() {
        return Err(format!(
            "the repository's own configuration makes git run a program ({}): not merged; look at it and remove it with `git config --unset KEY`",
            found.join("; ")
        ));
    }
    // Never over a file the person keeps out of git (`.env`), never with
    // their uncommitted changes stashed and put back.
    let output = crate::os::git::command_without_hooks(top)
        .args([
            "merge",
            "--ff-only",
            "--no-edit",
            "--no-overwrite-ignore",
            "--no-autostash",
            commit,
        ])
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "git merge --ff-only in the root: {}",
            crate::text::one_line(String::from_utf8_lossy(&output.stderr).trim())
        ))
    }
}

/// After a clean merge: the judge in the root completes the goal, or
/// sends it back to work with what failed.
fn judge_in_root(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    worktree: &RunWorktree,
    commit: &str,
) -> Result<String> {
    let into = worktree.into_name();
    let request = super::CompleteRequest {
        reason: format!(
            "branch {} merged into {into} at {} (run {}); its checks pass in the root",
            worktree.branch,
            &commit[..commit.len().min(12)],
            run.id
        ),
        met: Vec::new(),
        dispatch_id: None,
    };
    match super::complete::complete_by(ctx, Actor::Steward, &goal.label, &request) {
        Ok(_) => Ok(format!(
            "{}: merged {} into {into}; completed",
            goal.label, worktree.branch
        )),
        Err(err) => {
            let detail = format!(
                "merged {} into {into}, but the judge in the root refused: {err}",
                worktree.branch
            );
            let outcome = if release(ctx, goal, run, "merge_judged", detail)? {
                "refused"
            } else {
                // The judge closed it (past a bound): it stays closed.
                "closed it"
            };
            Ok(format!(
                "{}: merged {} into {into}; the judge in the root {outcome}: {err}",
                goal.label, worktree.branch
            ))
        }
    }
}

/// Ends `goal`'s wait for its merge, recording `action` with `detail`,
/// and sends it from the judge's wait back to work (a person's pause or a
/// block stays as it is). False, and nothing written, when the goal has
/// closed meanwhile.
fn release(ctx: &Context, goal: &Goal, run: &Run, action: &str, detail: String) -> Result<bool> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    let loaded = tx.refind(&goal.id, &goal.label)?;
    if loaded.goal.status.is_terminal() {
        super::finish(tx)?;
        return Ok(false);
    }
    let mut change = GoalChange::new(action, detail)
        .by(Actor::Steward)
        .for_run(&run.id)
        .with(Edit::Waiting(None));
    if loaded.goal.status == Status::Verifying {
        change = change.with(Edit::Status(Status::Active));
    }
    tx.save(&loaded, change)?;
    super::finish(tx)?;
    Ok(true)
}

/// The goal's checks fail on the merge of its branch: nothing reaches the
/// root, and the goal goes back to work with what failed.
fn back_to_work(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    worktree: &RunWorktree,
    failing: &str,
) -> Result<String> {
    let into = worktree.into_name();
    let detail = format!(
        "branch {} merged with {into} fails the goal's checks, so it was not merged: {failing}",
        worktree.branch
    );
    release(ctx, goal, run, "merge_checked", detail)?;
    Ok(format!(
        "{}: branch {} not merged: the goal's checks fail on the merge: {failing}",
        goal.label, worktree.branch
    ))
}

/// A merge that is not clean: the goal waits for a person, who is told
/// once, with the commands.
fn wait_for_person(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    worktree: &RunWorktree,
    why: &str,
) -> Result<String> {
    let top = repository(&ctx.root)
        .and_then(|(repo, _)| repo.workdir().map(Path::to_path_buf))
        .unwrap_or_else(|| ctx.root.clone());
    let into = worktree.into.as_deref().unwrap_or("main");
    let commands = [
        format!("git -C {} checkout {into}", top.display()),
        format!("git -C {} merge {}", top.display(), worktree.branch),
        format!(
            "steward -C {} complete {} --reason \"merged {} by hand\"",
            ctx.root.display(),
            goal.label,
            worktree.branch
        ),
    ];
    let reason = format!(
        "a person merges branch {} into {into}: {why}; then: {}",
        worktree.branch,
        commands.join(" && ")
    );
    let told = format!(
        "branch {} was not merged into {into}: {why}\n{}",
        worktree.branch,
        commands.join("\n")
    );
    leave_to_person(ctx, goal, run, reason, &told)?;
    Ok(format!(
        "{}: branch {} waits for a person to merge it: {why}",
        goal.label, worktree.branch
    ))
}

/// Leaves a run's branch to a person: `goal` waits for them (`reason`,
/// with the commands to run), and they are told once (`merge_conflict`,
/// saying `told`).
pub(super) fn leave_to_person(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    reason: String,
    told: &str,
) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    let loaded = tx.refind(&goal.id, &goal.label)?;
    let change = GoalChange::new("awaiting a person", reason.clone())
        .by(Actor::Steward)
        .for_run(&run.id)
        .with(Edit::Waiting(Some(Waiting::for_person(
            PersonWait::Merge,
            reason,
            ctx.now,
        ))));
    tx.save(&loaded, change)?;
    tx.record_goal_event(&goal.id, &goal.label, "merge_conflict", told);
    super::finish(tx)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_forbidden;

    #[test]
    fn what_steers_steward_git_ci_or_agents_is_a_persons_to_merge() {
        let forbidden = [
            "state/".to_string(),
            "steward.yaml".to_string(),
            ".github/".to_string(),
        ];
        for path in [
            "state/goals/a.md",
            "steward.yaml",
            ".github/workflows/ci.yml",
            "src/.gitattributes",
            "vendor/.gitmodules",
            "AGENTS.md",
            "docs/CLAUDE.md",
        ] {
            assert!(is_forbidden(path, &forbidden), "{path}");
        }
        for path in [
            "src/main.rs",
            "stateful.rs",
            "docs/agents.md",
            "steward.yaml.example",
        ] {
            assert!(!is_forbidden(path, &forbidden), "{path}");
        }
    }
}
