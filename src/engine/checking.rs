//! Running mechanical checks for `tick`, `complete` and `doctor`: the
//! policy the operator's configuration allows, and a few checks at a time.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::checks::{self, CheckOutcome, CheckPolicy};
use crate::context::Context;
use crate::model::{Check, CheckKind};

/// How many checks run at once.
const CHECK_WORKERS: usize = 8;

/// A check running longer than this is shown on the progress line.
const SLOW: Duration = Duration::from_secs(1);

/// How often the progress line is brought up to date.
const PROGRESS_TICK: Duration = Duration::from_millis(100);

/// "checking http_ok https://… (3s; 2 of 5 done)" for the check running
/// longest, once it has run longer than [`SLOW`].
fn slowest(
    checks: &[&Check],
    started: &[Option<Instant>],
    results: &[Option<CheckOutcome>],
) -> Option<String> {
    let done = results.iter().filter(|r| r.is_some()).count();
    let (index, since) = started
        .iter()
        .enumerate()
        .filter(|(i, _)| results[*i].is_none())
        .filter_map(|(i, s)| s.map(|s| (i, s)))
        .min_by_key(|(_, s)| *s)?;
    let running = since.elapsed();
    (running >= SLOW).then(|| {
        let check = checks[index];
        format!(
            "checking {} {} ({}s; {} of {} done)",
            check.kind,
            crate::text::head(&crate::text::one_line(&check.target), 60),
            running.as_secs(),
            done,
            checks.len()
        )
    })
}

/// What checks may do here: from `steward.yaml` and the token in the
/// environment.
pub fn policy(ctx: &Context) -> CheckPolicy {
    let verification = &ctx.config.verification;
    CheckPolicy {
        root: ctx.root.clone(),
        allow_commands: verification.allow_commands,
        command_timeout: verification.command_timeout.to_std(),
        allow_private_hosts: verification.allow_private_hosts,
        http_timeout: verification.http_timeout.to_std(),
        github_api: verification.github_api.clone(),
        github_token: ctx
            .env
            .var("GITHUB_TOKEN")
            .or(ctx.env.var("GH_TOKEN"))
            .map(str::to_string),
    }
}

/// Why `check` can never pass here, if it cannot: malformed (a bad URL,
/// unbalanced quotes, a path out of the root, an unknown type) or not
/// allowed by the operator (a command while `verification.allow_commands`
/// is off). For `add` and `update` to warn at once and `doctor` to list.
pub fn never_passes(check: &Check, policy: &CheckPolicy) -> Option<String> {
    let name = format!("check {} {}", check.kind, check.target);
    if let Err(why) = checks::validate(check, policy) {
        Some(format!("{name} cannot run: {why}"))
    } else if check.kind == CheckKind::CommandExitZero && !policy.allow_commands {
        Some(format!(
            "{name} never runs: verification.allow_commands is false in steward.yaml"
        ))
    } else {
        None
    }
}

/// Where a check runs: a folder (the root, or a run's worktree), or why
/// checks cannot run there (a worktree whose links to its repository
/// are not what steward made): each then fails with that reason.
#[derive(Debug, Clone)]
pub struct Site {
    pub dir: std::path::PathBuf,
    pub refused: Option<String>,
    /// The goal whose checks run here: its command checks run only as a
    /// person on this machine accepted them.
    pub goal_id: String,
    pub goal_label: String,
    /// The pull request steward opened for the goal: what a `pr_merged`
    /// or `ci_green` check whose target is `pr` follows.
    pub pull_request: Option<String>,
    /// When the goal's last run began (with a pull request): what a
    /// reviewer said after it is for the next run.
    pub last_run_at: Option<String>,
}

/// Why a command check a person here did not accept does not run.
fn not_accepted(label: &str) -> String {
    format!(
        "not run: the command reached the goal another way than a person's add, update, edit or accept on this machine (a pull, a file written by hand or by an agent); a person here accepts it with `steward accept {label}`, which shows it"
    )
}

/// The same, with file paths and commands relative to `at` (a run's
/// worktree) instead of the root.
pub fn run_at(ctx: &Context, checks: &[&Check], at: &Site) -> Vec<CheckOutcome> {
    let each: Vec<(&Check, &Site)> = checks.iter().map(|c| (*c, at)).collect();
    run_each(ctx, &each)
}

/// The same, each check at its own site (the goals of one pass, some in
/// their runs' worktrees).
pub fn run_each(ctx: &Context, each: &[(&Check, &Site)]) -> Vec<CheckOutcome> {
    let base = policy(ctx);
    let checks: Vec<&Check> = each.iter().map(|(c, _)| *c).collect();
    let policies: Vec<CheckPolicy> = each
        .iter()
        .map(|(_, at)| CheckPolicy {
            root: at.dir.clone(),
            ..base.clone()
        })
        .collect();
    let accepted = if checks.iter().any(|c| c.kind == CheckKind::CommandExitZero) {
        ctx.store.accepted_commands()
    } else {
        Default::default()
    };
    let results: Mutex<Vec<Option<CheckOutcome>>> = Mutex::new(vec![None; checks.len()]);
    let started: Mutex<Vec<Option<Instant>>> = Mutex::new(vec![None; checks.len()]);
    let next = Mutex::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..CHECK_WORKERS.min(checks.len()))
            .map(|_| {
                scope.spawn(|| {
                    loop {
                        let index = {
                            let mut next = next.lock().expect("no worker panics holding it");
                            let index = *next;
                            *next += 1;
                            index
                        };
                        let Some(check) = checks.get(index) else {
                            break;
                        };
                        started.lock().expect("no worker panics holding it")[index] =
                            Some(Instant::now());
                        let site = each[index].1;
                        let outcome = match &site.refused {
                            Some(why) => CheckOutcome::Failed {
                                detail: why.clone(),
                            },
                            None if check.kind == CheckKind::CommandExitZero
                                && !accepted.contains(&crate::store::seal::command_digest(
                                    &site.goal_id,
                                    &check.target,
                                )) =>
                            {
                                CheckOutcome::Failed {
                                    detail: not_accepted(&site.goal_label),
                                }
                            }
                            None if check.target == checks::PULL_REQUEST_TARGET
                                && matches!(check.kind, CheckKind::PrMerged | CheckKind::CiGreen) =>
                            {
                                match &site.pull_request {
                                    Some(pull) => match checks::run(
                                        &Check {
                                            target: pull.clone(),
                                            ..(*check).clone()
                                        },
                                        &policies[index],
                                    ) {
                                        CheckOutcome::Failed { detail }
                                            if check.kind == CheckKind::PrMerged
                                                && detail.starts_with("not merged (state: open)") =>
                                        {
                                            super::review::while_open(
                                                &policies[index],
                                                pull,
                                                site.last_run_at.as_deref(),
                                            )
                                        }
                                        // Steward pushed it: CI has yet to
                                        // register, not failed.
                                        CheckOutcome::Failed { detail }
                                            if check.kind == CheckKind::CiGreen
                                                && detail == "no CI results for this commit" =>
                                        {
                                            CheckOutcome::Pending {
                                                detail: format!("no CI results yet for {pull}: CI registers its checks after a push"),
                                            }
                                        }
                                        outcome => outcome,
                                    },
                                    None => CheckOutcome::Failed {
                                        detail: "no pull request yet: steward opens one when a run's branch is ready (dispatch.pull_request)".to_string(),
                                    },
                                }
                            }
                            None => checks::run(check, &policies[index]),
                        };
                        results.lock().expect("no worker panics holding it")[index] = Some(outcome);
                    }
                })
            })
            .collect();
        if ctx.progress.is_silent() {
            return;
        }
        let mut shown: Option<String> = None;
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(PROGRESS_TICK);
            let line = {
                let started = started.lock().expect("no worker panics holding it");
                let results = results.lock().expect("no worker panics holding it");
                slowest(&checks, &started, &results)
            };
            if let Some(line) = line
                && shown.as_ref() != Some(&line)
            {
                ctx.progress.show(Some(&line));
                shown = Some(line);
            }
        }
        if shown.is_some() {
            ctx.progress.show(None);
        }
    });
    results
        .into_inner()
        .expect("workers are done")
        .into_iter()
        .map(|o| o.expect("every check ran"))
        .collect()
}
