//! A pull request for each finished branch (`dispatch.pull_request`, with
//! worktrees and `dispatch.merge: none`): before its pass, `tick` pushes
//! the branch of a run that ended with its goal open and every check but
//! those that follow the pull request passing, and opens a pull request on
//! GitHub for it, or updates the one it opened before. The pull request is
//! recorded on the goal (`pull_request`), where `pr_merged:pr` and
//! `ci_green:pr` find it, and what reviewers say on it reaches the next
//! run's instruction ([`review_since`]). Steward's acts under the person's
//! git credentials and token, never the agent's: the branch is checked
//! against the protected paths first, as a merge would be.

use git2::BranchType;
use serde_json::{Value, json};

use super::worktree::repository;
use crate::checks::client::{Method, Send};
use crate::checks::github::{self, RepoRef};
use crate::context::Context;
use crate::error::Result;
use crate::model::{Actor, Edit, Goal, GoalChange, RecordField, Run, RunWorktree, Status};
use crate::store::Trust;

/// What `tick` does for pull requests before its pass; lines for the
/// person (a pull request opened, a branch left for them).
pub fn settle(ctx: &Context) -> Result<Vec<String>> {
    let mut said = Vec::new();
    // A person's pass (cron's): an agent's `tick` acts on no remote, with
    // its environment shaping the push.
    if ctx.actor != Actor::User
        || !ctx.config.dispatch.pull_request
        || ctx.config.dispatch.merge != crate::config::MergeMode::None
        || !ctx.store.state_dir.join(super::worktree::DIR).is_dir()
    {
        return Ok(said);
    }
    let (runs, _) = ctx.store.runs()?;
    for run in super::worktree::last_runs(ctx, &runs) {
        let worktree = run.worktree.as_ref().expect("kept for its worktree");
        // A run record an agent edited does not verify: nothing of it is
        // pushed.
        if run.is_active() || worktree.state.is_some() || !run.verified {
            continue;
        }
        let Ok(loaded) = ctx.store.refind(&run.goal_id, &run.goal_label) else {
            continue;
        };
        let goal = &loaded.goal;
        // Only a goal being worked, as steward wrote it: what GitHub is told
        // (the title, the criteria, the pull request to update) is never a
        // file an agent changed, before the pass has even looked at it.
        let person = (goal.waiting.as_ref()).is_some_and(|w| w.for_person.is_some());
        let worked = matches!(
            goal.status,
            Status::Active | Status::Stalled | Status::Verifying
        );
        if !worked || person || matches!(ctx.store.trust_of(&loaded), Trust::Outside(_)) {
            continue;
        }
        let head = match branch_head(ctx, worktree) {
            Ok(Some(head)) => head,
            Ok(None) => continue,
            Err(why) => {
                said.push(format!("{}: no pull request: {why}", goal.label));
                continue;
            }
        };
        if worktree.pushed_commit.as_deref() == Some(head.as_str()) {
            continue;
        }
        // What is pushed is what is committed: the checks judge that.
        match super::worktree::dirty(ctx, worktree) {
            Ok(false) => {}
            Ok(true) => {
                said.push(format!(
                    "{}: branch {} not pushed: its worktree {} has changes not committed",
                    goal.label, worktree.branch, worktree.path
                ));
                continue;
            }
            Err(why) => {
                said.push(format!("{}: no pull request: {why}", goal.label));
                continue;
            }
        }
        if !others_pass(ctx, goal) {
            continue;
        }
        let goal = &met_by_checks(goal);
        // What the branch changes, against what the remote holds (the
        // agent can move the local branch it started from).
        let upstream = match remote_into(ctx, worktree) {
            Ok(upstream) => upstream,
            Err(why) => {
                said.push(format!(
                    "{}: branch {} not pushed (tried again next pass): {why}",
                    goal.label, worktree.branch
                ));
                continue;
            }
        };
        // What steers steward, git, CI or agents: a person's to push, and
        // the goal waits for them rather than for more runs.
        if let Err(why) = protected(ctx, worktree, &head, upstream) {
            said.push(wait_for_person(ctx, goal, run, worktree, &why)?);
            continue;
        }
        match publish(ctx, goal, run, worktree, &head) {
            Ok(line) => said.push(line),
            Err(why) => said.push(format!(
                "{}: branch {} not pushed for a pull request (tried again next pass): {why}",
                goal.label, worktree.branch
            )),
        }
    }
    Ok(said)
}

/// Whether every check of `goal` but those that follow its pull request
/// passes now, where its checks run (its run's worktree).
fn others_pass(ctx: &Context, goal: &Goal) -> bool {
    let others: Vec<&crate::model::Check> = (goal.verification.iter())
        .filter(|c| c.target != crate::checks::PULL_REQUEST_TARGET)
        .collect();
    let Some(site) = super::worktree::check_sites(ctx, &[goal]).pop() else {
        return false;
    };
    super::checking::run_at(ctx, &others, &site)
        .iter()
        .all(|outcome| matches!(outcome, crate::checks::CheckOutcome::Passed { .. }))
}

/// `goal` with the criteria its checks other than the pull request's met
/// (they all pass now): the pull request's text shows them met.
fn met_by_checks(goal: &Goal) -> Goal {
    let mut goal = goal.clone();
    for check in &goal.verification {
        if check.target != crate::checks::PULL_REQUEST_TARGET
            && let Some(criterion) = check.criterion.and_then(|n| goal.criteria.get_mut(n - 1))
        {
            criterion.met = true;
        }
    }
    goal
}

/// The branch's commit, when it has commits its base has not (`None`:
/// nothing to push).
fn branch_head(
    ctx: &Context,
    worktree: &RunWorktree,
) -> std::result::Result<Option<String>, String> {
    let (repo, _) = repository(&ctx.root).ok_or("the store root is not in a git work tree")?;
    let head = repo
        .find_branch(&worktree.branch, BranchType::Local)
        .and_then(|b| b.get().peel_to_commit())
        .map_err(|err| format!("branch {}: {err}", worktree.branch))?;
    let base = worktree
        .base
        .as_deref()
        .and_then(|b| git2::Oid::from_str(b).ok());
    if base == Some(head.id()) {
        return Ok(None);
    }
    Ok(Some(head.id().to_string()))
}

/// Pushes the branch and opens or updates its pull request; the line for
/// the person.
fn publish(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    worktree: &RunWorktree,
    head: &str,
) -> std::result::Result<String, String> {
    let into = worktree
        .into
        .as_deref()
        .ok_or("the root was on no branch when the worktree was made")?;
    // What is committed is pushed, and only that: the rest of the
    // worktree is the agent's to commit.
    super::git_setup::refuse_programs_in_git_config(ctx).map_err(|err| err.to_string())?;
    let repo = repository_of(ctx)?;
    let remote = &ctx.config.git.remote;
    // The commit the checks passed, by its id: the branch moving meanwhile
    // changes nothing pushed, and no tag follows it.
    crate::os::git::cli(
        &ctx.root,
        &[
            "-c",
            "push.followTags=false",
            "push",
            "--quiet",
            "--no-follow-tags",
            remote,
            &format!("+{head}:refs/heads/{}", worktree.branch),
        ],
    )
    .map_err(|err| format!("git push {remote}: {}", without_userinfo(&err.to_string())))?;
    let policy = super::checking::policy(ctx);
    let body = body(goal, run);
    let (pull, verb) = match goal
        .record
        .pull_request
        .as_deref()
        .and_then(super::review::pull_number)
    {
        // Only the pull request still open for this very branch is
        // updated: one merged or closed since, or for another branch, gets
        // a new one beside it.
        Some((recorded, number))
            if recorded == repo && still_open_for(&policy, &repo, number, &worktree.branch) =>
        {
            let send = json!({"title": goal.title, "body": body}).to_string();
            let path = format!("{}/pulls/{number}", repo.api_path());
            github::call(&policy, Some(patch(&send)), &path, "no such pull request")?;
            (number, "updated")
        }
        _ => (open(&policy, &repo, goal, worktree, into, &body)?, "opened"),
    };
    let named = format!("{repo}#{pull}");
    let mut tx = ctx
        .transaction_by(Actor::Steward)
        .map_err(|err| err.to_string())?;
    let result = (|| -> Result<()> {
        let loaded = tx.refind(&goal.id, &goal.label)?;
        let detail = format!("pull request {named} {verb} for branch {}", worktree.branch);
        let mut change = GoalChange::new("pull_request", detail)
            .by(Actor::Steward)
            .for_run(&run.id);
        if goal.record.pull_request.as_deref() != Some(named.as_str()) {
            change = change.with(Edit::Record(RecordField::PullRequest(Some(named.clone()))));
        }
        tx.save(&loaded, change)?;
        let mut current = ctx.store.find_run(&run.id)?;
        if let Some(worktree) = &mut current.worktree {
            worktree.pushed_commit = Some(head.to_string());
        }
        tx.save_run(&current)
    })();
    result.map_err(|err| err.to_string())?;
    super::finish(tx).map_err(|err| err.to_string())?;
    Ok(format!(
        "{}: pull request {named} {verb} for branch {}",
        goal.label, worktree.branch
    ))
}

/// Whether pull request `number` is open with `branch` as its head.
fn still_open_for(
    policy: &crate::checks::CheckPolicy,
    repo: &RepoRef,
    number: u64,
    branch: &str,
) -> bool {
    let path = format!("{}/pulls/{number}", repo.api_path());
    github::call(policy, None, &path, "no such pull request").is_ok_and(|pull| {
        pull.get("state").and_then(Value::as_str) == Some("open")
            && pull.pointer("/head/ref").and_then(Value::as_str) == Some(branch)
    })
}

fn patch(json: &str) -> Send<'_> {
    Send {
        method: Method::Patch,
        json: json.as_bytes(),
    }
}

/// Opens the pull request; one GitHub already has for the branch is
/// taken (a push after a crash, say). Its number.
fn open(
    policy: &crate::checks::CheckPolicy,
    repo: &RepoRef,
    goal: &Goal,
    worktree: &RunWorktree,
    into: &str,
    body: &str,
) -> std::result::Result<u64, String> {
    let send = json!({"title": goal.title, "head": worktree.branch, "base": into, "body": body})
        .to_string();
    let path = format!("{}/pulls", repo.api_path());
    let opened = github::call(
        policy,
        Some(Send {
            method: Method::Post,
            json: send.as_bytes(),
        }),
        &path,
        "no such repository",
    );
    let answer = match opened {
        Ok(answer) => answer,
        // 422: "A pull request already exists for owner:branch."
        Err(why) if why.starts_with("HTTP 422") => {
            let path = format!(
                "{}/pulls?state=open&head={}:{}",
                repo.api_path(),
                repo.owner,
                worktree.branch.replace('/', "%2F")
            );
            let list = github::call(policy, None, &path, "no such repository")?;
            list.as_array()
                .and_then(|pulls| pulls.first())
                .cloned()
                .ok_or(why)?
        }
        Err(why) => return Err(why),
    };
    answer
        .get("number")
        .and_then(Value::as_u64)
        .ok_or_else(|| "the GitHub API's pull request has no number".to_string())
}

/// The commit the remote's branch the worktree started from is at, as a
/// fetch finds it now.
fn remote_into(ctx: &Context, worktree: &RunWorktree) -> std::result::Result<git2::Oid, String> {
    let into = worktree
        .into
        .as_deref()
        .ok_or("the root was on no branch when the worktree was made")?;
    super::git_setup::refuse_programs_in_git_config(ctx).map_err(|err| err.to_string())?;
    let remote = &ctx.config.git.remote;
    let fetched = crate::os::git::cli(
        &ctx.root,
        &[
            "fetch",
            "--quiet",
            "--no-tags",
            remote,
            &format!("refs/heads/{into}"),
        ],
    )
    .and_then(|_| crate::os::git::cli(&ctx.root, &["rev-parse", "FETCH_HEAD"]))
    .map_err(|err| {
        format!(
            "cannot fetch {into} from {remote}: {}",
            without_userinfo(&err.to_string())
        )
    })?;
    git2::Oid::from_str(fetched.trim()).map_err(|err| err.to_string())
}

/// A branch that changes what steers steward, git, CI or agents is never
/// pushed: a person looks at it. What it changes is read against
/// `upstream`, the remote's branch it goes into.
fn protected(
    ctx: &Context,
    worktree: &RunWorktree,
    head: &str,
    upstream: git2::Oid,
) -> std::result::Result<(), String> {
    let (repo, _) = repository(&ctx.root).ok_or("the store root is not in a git work tree")?;
    let head = git2::Oid::from_str(head).map_err(|err| err.to_string())?;
    let base = repo
        .merge_base(upstream, head)
        .map_err(|err| format!("no common history with the remote: {err}"))?;
    let forbidden = super::merge_back::store_paths(ctx, &worktree.subdir);
    let changed = super::merge_back::changed_paths(&repo, base, head)?;
    let touched: Vec<&str> = (changed.iter())
        .filter(|path| super::merge_back::is_forbidden(path, &forbidden))
        .map(String::as_str)
        .take(5)
        .collect();
    if touched.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "it changes files that steer steward, git, CI or agents, or that dispatch.protect names ({}): a person pushes it",
            touched.join(", ")
        ))
    }
}

/// Leaves the branch to a person: the goal waits for them (as a merge
/// that is not clean does), told once with the commands.
fn wait_for_person(
    ctx: &Context,
    goal: &Goal,
    run: &Run,
    worktree: &RunWorktree,
    why: &str,
) -> Result<String> {
    let remote = &ctx.config.git.remote;
    let reason = format!(
        "a person looks at branch {} before it is pushed: {why}; then `git push {remote} {}` and open its pull request by hand, or `steward unblock {} --note \"...\"` to send it back",
        worktree.branch, worktree.branch, goal.label
    );
    let told = format!("branch {} was not pushed: {why}", worktree.branch);
    super::merge_back::leave_to_person(ctx, goal, run, reason, &told)?;
    Ok(format!(
        "{}: branch {} waits for a person before it is pushed: {why}",
        goal.label, worktree.branch
    ))
}

/// The repository pull requests go to: `dispatch.pull_request_repo`, else
/// the address of `git.remote` (`https://HOST/owner/repo(.git)`,
/// `git@HOST:owner/repo(.git)`).
///
/// `.git/config` is the agent's to write as much as the person's: the
/// address pushed to must be the one fetched from, and name the same
/// repository the pull request is opened in, or nothing is pushed.
fn repository_of(ctx: &Context) -> std::result::Result<RepoRef, String> {
    let remote = &ctx.config.git.remote;
    let address = |push: bool| -> std::result::Result<String, String> {
        let mut args = vec!["remote", "get-url"];
        if push {
            args.push("--push");
        }
        args.push(remote);
        crate::os::git::cli(&ctx.root, &args)
            .map(|url| url.trim().to_string())
            .map_err(|err| format!("git.remote {remote}: {err}"))
    };
    let (fetch, push) = (address(false)?, address(true)?);
    if fetch != push {
        return Err(format!(
            "{remote} pushes to {} but fetches from {}: steward pushes only where it fetches",
            without_userinfo(&push),
            without_userinfo(&fetch)
        ));
    }
    let named = named_repository(&fetch);
    match (&ctx.config.dispatch.pull_request_repo, named) {
        (Some(configured), named) => {
            let configured = RepoRef::parse(configured)?;
            if named.as_ref() != Some(&configured) {
                return Err(format!(
                    "{remote} ({}) is not dispatch.pull_request_repo {configured}",
                    without_userinfo(&fetch)
                ));
            }
            Ok(configured)
        }
        (None, Some(named)) => Ok(named),
        (None, None) => Err(format!(
            "cannot tell owner/repo from the address of {remote} ({}): set dispatch.pull_request_repo",
            without_userinfo(&fetch)
        )),
    }
}

/// The `owner/repo` an address ends with (`https://HOST/owner/repo.git`,
/// `git@HOST:owner/repo.git`, a path `…/owner/repo.git`).
fn named_repository(url: &str) -> Option<RepoRef> {
    let url = url.trim_end_matches('/').trim_end_matches(".git");
    let path = url.rsplit_once(':').map_or(url, |(_, path)| path);
    let mut parts = path.rsplit('/');
    let (repo, owner) = (parts.next()?, parts.next()?);
    RepoRef::parse(&format!("{owner}/{repo}")).ok()
}

/// `text` with the user and password of any address in it left out
/// (`https://user:TOKEN@host/...` → `https://host/...`).
fn without_userinfo(text: &str) -> String {
    text.split(' ')
        .map(|word| match word.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((userinfo, host)) if !userinfo.contains('/') => format!("{scheme}://{host}"),
                _ => word.to_string(),
            },
            None => word.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The pull request's text: the goal's criteria as they stand, its checks'
/// last result, what its runs cost, and where it comes from.
fn body(goal: &Goal, run: &Run) -> String {
    let mut text = format!(
        "Opened by steward for goal `{}` (run {}).\n\n### Acceptance criteria\n",
        goal.label, run.id
    );
    for criterion in &goal.criteria {
        let mark = if criterion.met { "x" } else { " " };
        text.push_str(&format!("\n- [{mark}] {}", criterion.text));
    }
    if !goal.verification.is_empty() {
        text.push_str("\n\n### Checks\n");
        for check in &goal.verification {
            let state = if check.target == crate::checks::PULL_REQUEST_TARGET {
                "follows this pull request"
            } else {
                "passes on this branch"
            };
            text.push_str(&format!("\n- `{} {}`: {state}", check.kind, check.target));
        }
    }
    text.push_str(&format!(
        "\n\n### Cost\n\n{} dispatches, ${:.2} in all.",
        goal.progress.dispatches, goal.progress.cost_usd
    ));
    if let Some(origin) = &goal.record.origin {
        text.push_str(&format!("\n\nFrom {origin}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_is_read_from_the_address_and_no_password_is_shown() {
        for url in [
            "https://github.com/acme/app.git",
            "git@github.com:acme/app.git",
            "ssh://git@github.com/acme/app",
            "/srv/git/acme/app.git",
        ] {
            assert_eq!(
                named_repository(url),
                RepoRef::parse("acme/app").ok(),
                "{url}"
            );
        }
        assert_eq!(named_repository("/app.git"), None);
        assert_eq!(
            without_userinfo(
                "fatal: https://x-access-token:ghp_s3cret@github.com/acme/app.git failed"
            ),
            "fatal: https://github.com/acme/app.git failed"
        );
        assert_eq!(
            without_userinfo("https://github.com/a@b/c"),
            "https://github.com/a@b/c"
        );
    }
}
