//! `tick`: one deterministic watchdog pass, then the mirror. The rules
//! (steward-design(7), "The first rule that changes something decides") are
//! in `crate::rules::watchdog`; this runs the checks, applies the verdicts under
//! the lock and reports what changed.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::{Notices, checking, dispatch, limits, notify, task};
use crate::checks::CheckOutcome;
use crate::context::Context;
use crate::error::{Error, FileProblem, Result};
use crate::model::book::{Book, Transition};
use crate::model::{Actor, Check, CheckKind, Goal, GoalChange, Status};
use crate::rules::watchdog::{self, Evaluation, Verdict};
use crate::store::seal::{Place, Seal};
use crate::store::{LoadedGoal, OutsideChange, Scan, Scope, Transaction, Trust};

#[derive(Debug, Clone, Copy, Default)]
pub struct TickRequest {
    /// Decide and report, write nothing.
    pub dry_run: bool,
    /// The pass a run's supervisor makes as its run ends
    /// (`dispatch.pass_at_run_end`): it is not the scheduled tick, so it
    /// leaves what that tick tells its reader (`tick.json`) and the
    /// `notify.ping` that says the schedule runs.
    pub at_run_end: bool,
}

/// One change the pass made (or would make), to a goal or an obligation.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub label: String,
    pub action: &'static str,
    pub from: String,
    pub to: String,
    pub reason: String,
    /// The obligation the finding is about (`obl-…`); `None`: the goal.
    pub task: Option<String>,
}

/// What the pass found.
#[derive(Debug, Default)]
pub struct TickOutcome {
    /// `enabled: false`: the pass did nothing.
    pub disabled: bool,
    pub checked: usize,
    pub findings: Vec<Finding>,
    /// Blocked open goals and goals failed in this pass.
    pub needs_attention: Vec<String>,
    /// Those of `needs_attention` the last pass did not report, as (label,
    /// status and why): what `tick -q` tells a person, once.
    pub new_attention: Vec<(String, String)>,
    /// Goal files that could not be read and checks that cannot run, as
    /// (path, message).
    pub errors: Vec<(String, String)>,
    /// What a person should know that breaks nothing (runs that would
    /// start without a sandbox), as (key, message): told once like
    /// `errors`, without changing the exit status.
    pub cautions: Vec<(String, String)>,
    /// Those of `errors` and `cautions` the last pass did not report: what
    /// `tick -q` prints, once.
    pub new_errors: Vec<(String, String)>,
    /// What dispatch started, ended, escalated and held.
    pub dispatched: dispatch::Dispatched,
    pub notices: Notices,
    /// Goals closed by hand left in the open goals' directory for the next
    /// pass (one moves at most [`MOVED_PER_PASS`]).
    pub closed_waiting: usize,
    /// The answers from the phone taken before the pass.
    pub answers: super::reply::Taken,
}

impl TickOutcome {
    /// How many goals the pass changed (or would): findings about
    /// obligations are not goal changes.
    pub fn goals_changed(&self) -> usize {
        let mut labels: Vec<&str> = self
            .findings
            .iter()
            .filter(|f| f.task.is_none())
            .map(|f| f.label.as_str())
            .collect();
        labels.sort_unstable();
        labels.dedup();
        labels.len()
    }

    /// 1 when a goal file or a check broke since the last pass said so;
    /// else 3 when a goal needs a person; else 1 while one stays broken;
    /// else 0. A file that stays unreadable never hides a goal that waits.
    pub fn exit_code(&self) -> crate::exit::ExitCode {
        use crate::exit::ExitCode;
        let newly_broken = self.new_errors.iter().any(|e| self.errors.contains(e));
        if newly_broken {
            ExitCode::Failure
        } else if !self.needs_attention.is_empty() {
            ExitCode::Attention
        } else if !self.errors.is_empty() {
            ExitCode::Failure
        } else {
            ExitCode::Success
        }
    }
}

pub fn tick(ctx: &Context, request: TickRequest) -> Result<TickOutcome> {
    let mut outcome = TickOutcome::default();
    if !ctx.config.enabled {
        outcome.disabled = true;
        return Ok(outcome);
    }
    outcome
        .notices
        .warnings
        .extend(super::trust::held_config_warning(ctx));
    // A person's answers from the phone first: the pass then sees the
    // goals as the person left them.
    if !request.dry_run && !request.at_run_end {
        outcome.answers = super::reply::take_answers(ctx);
        let warnings = std::mem::take(&mut outcome.answers.warnings);
        outcome.notices.warnings.extend(warnings);
    }
    // A configuration file that does not load, and runs that would start
    // without a sandbox: told once, like a goal file that cannot be read.
    let config_path = ctx.store.root.join(crate::config::FILE_NAME);
    let config_path = config_path.display().to_string();
    if let Some(broken) = super::trust::broken_config_warning(ctx) {
        outcome.errors.push((config_path.clone(), broken));
    }
    for gap in super::run::sandbox_gaps(ctx) {
        outcome
            .cautions
            .push((format!("{config_path} (dispatch.sandbox)"), gap));
    }
    // Machines sharing the store through git: their claims first.
    let claiming = ctx.config.dispatch.enabled && ctx.config.dispatch.claim_git && !request.dry_run;
    if claiming {
        super::claim::check_setup(ctx)?;
        let branch = crate::os::git::cli(&ctx.root, &["rev-parse", "--abbrev-ref", "HEAD"])?;
        super::sync::pull_locked(ctx, &ctx.config.git.remote, branch.trim())?;
    }
    if !request.dry_run {
        // Branches of goals judged done in their worktrees: merged now.
        outcome
            .notices
            .warnings
            .extend(super::merge_back::settle(ctx)?);
        // Branches of runs that finished with the goal's other checks
        // passing: pushed, and a pull request opened or updated.
        outcome
            .notices
            .warnings
            .extend(super::pull_request::settle(ctx)?);
    }
    if request.dry_run {
        let before = ctx.store.scan(Scope::OpenDirectoryWithDigests)?;
        let due = due_checks(ctx, &before.goals, true, &mut outcome);
        let outcomes = run_checks(ctx, &due);
        let mut book = ctx.store.obligations()?;
        outcome.note_problems(&book.unreadable);
        outcome.note_tasks(&expire(ctx, &mut book));
        outcome.note_problems(&before.problems);
        for loaded in before
            .goals
            .iter()
            .filter(|g| g.goal.status != Status::Paused)
        {
            if let Trust::Outside(outside) = ctx.store.trust_of(loaded) {
                outcome
                    .findings
                    .push(outside_finding(&loaded.goal, &outside));
            }
        }
        let closed = ctx.store.load_closed_in_place(&before.closed_in_place);
        outcome.note_problems(&closed.problems);
        for loaded in &closed.goals {
            if let Trust::Outside(outside) = ctx.store.trust_of(loaded) {
                outcome
                    .findings
                    .push(outside_finding(&loaded.goal, &outside));
            }
        }
        for (label, seal) in vanished(ctx, &before)? {
            outcome.findings.push(vanished_finding(&label, &seal));
        }
        outcome.closed_waiting = before.more_closed_in_place;
        let mut after = Vec::new();
        // The scan holds open goals only (`closed_in_place`: the others).
        for loaded in &before.goals {
            let verdict = decide(ctx, loaded, &outcomes, &mut outcome);
            if let Some(verdict) = &verdict {
                outcome
                    .findings
                    .extend(verdict_finding(&loaded.goal, verdict));
            }
            after.push(
                verdict.map_or_else(|| (*loaded.goal).clone(), |v| preview(&loaded.goal, &v)),
            );
        }
        let after: Vec<&Goal> = after.iter().collect();
        let reported = reported_before(ctx);
        outcome.needs_attention_from(&after, &reported.attention);
        outcome.new_errors_from(&reported.problems);
        let mut open = before.goals;
        let mut tx = ctx.transaction_by(Actor::Watchdog)?;
        outcome.dispatched = dispatch::plan(ctx, &mut tx, &mut open, true)?;
        let dispatched = std::mem::take(&mut outcome.dispatched);
        outcome.note_dispatch(&dispatched);
        outcome.dispatched = dispatched;
        return Ok(outcome);
    }
    // The goals are read under the lock, so what the pass decides on is
    // what it writes over. The checks can take seconds: when one is due
    // the lock is let go while they run (agents recording progress are not
    // kept waiting), and files that changed meanwhile are read again.
    let mut tx = ctx.transaction_by(Actor::Watchdog)?;
    super::trust::record_tightened(ctx, &mut tx)?;
    super::trust::record_held(ctx, &mut tx)?;
    let before = tx.scan(Scope::OpenDirectoryWithDigests)?;
    let due = due_checks(ctx, &before.goals, false, &mut outcome);
    let checked = !due.is_empty();
    let outcomes = if checked {
        drop(tx);
        let outcomes = run_checks(ctx, &due);
        tx = ctx.transaction_by(Actor::Watchdog)?;
        outcomes
    } else {
        Outcomes::new()
    };
    drop(due);
    // A goal edited by hand after the pass read it is not written over.
    tx.leave_changed_goals();
    tx.remove_leftovers();
    let mut book = tx.store().obligations()?;
    outcome.note_problems(&book.unreadable);
    let transitions = expire(ctx, &mut book);
    outcome.note_tasks(&transitions);
    tx.save_obligations(&book, &transitions)?;
    for moved in task::apply_to_goals(ctx, &mut tx, &transitions, Actor::Watchdog)? {
        outcome.findings.push(Finding {
            action: if moved.to == Status::Blocked {
                "blocked"
            } else {
                "task"
            },
            label: moved.label,
            from: moved.from.to_string(),
            to: moved.to.to_string(),
            reason: moved.reason,
            task: None,
        });
    }
    let scan = if checked {
        tx.store().rescan_directory(before)?
    } else {
        tx.store().reread(before, tx.written())?
    };
    outcome.note_problems(&scan.problems);
    let waiting = scan.more_closed_in_place > 0;
    settle_terminal_cache(&mut tx, &scan.goals, waiting, &mut outcome);
    for (label, seal) in gone_from_the_open_goals(ctx, &scan)? {
        match closed_elsewhere(ctx, &label, &seal) {
            Some(closed) => tx.adopt_from(&closed, Place::Open, "closed on another machine"),
            None => {
                tx.record_vanished(&seal)?;
                outcome.findings.push(vanished_finding(&label, &seal));
            }
        }
    }
    ctx.store.use_seal_cache();
    ctx.store.prepare_chains(&scan.goals);
    let mut after = Vec::with_capacity(scan.goals.len());
    let mut recorded_outside = 0;
    for loaded in scan.goals {
        // What changed outside steward is recorded before anything is
        // decided on the goal, and holds it for a person. Nothing
        // automatic touches a paused goal: the person's `resume` records
        // it.
        let verified = if loaded.goal.status == Status::Paused {
            crate::store::Verified {
                goal: loaded,
                outside: None,
            }
        } else {
            tx.verify(loaded)?
        };
        if let Some(outside) = &verified.outside {
            outcome
                .findings
                .push(outside_finding(&verified.goal.goal, outside));
            recorded_outside += 1;
        }
        let loaded = verified.goal;
        let goal = match decide(ctx, &loaded, &outcomes, &mut outcome) {
            Some(verdict) => {
                let change = limits::verdict_change(&loaded.goal, &verdict, ctx.now);
                match tx.save(&loaded, change)? {
                    Some(saved) => {
                        outcome
                            .findings
                            .extend(verdict_finding(&loaded.goal, &verdict));
                        saved
                    }
                    // Edited by hand meanwhile: the next pass decides.
                    None => loaded,
                }
            }
            None => loaded,
        };
        // A status or priority written by hand that steward does not
        // know: said once, with what was likely meant.
        for (field, message) in super::doctor::unknown_values(&goal.goal) {
            let problem = goal.file.problem_at(field, message);
            outcome
                .cautions
                .push((problem.path.clone(), problem.to_string()));
        }
        after.push(goal);
        // A store copied to another path, where no seal verifies, holds
        // every goal at once: written a batch at a time, so that the pass
        // keeps no more than a batch's undo records, events and bytes.
        if recorded_outside == HELD_PER_TRANSACTION {
            recorded_outside = 0;
            outcome.keep_notices(super::finish(tx)?);
            tx = ctx.transaction_by(Actor::Watchdog)?;
            tx.leave_changed_goals();
        }
    }
    outcome.closed_waiting = scan.more_closed_in_place;
    let closed = ctx.store.load_closed_in_place(&scan.closed_in_place);
    outcome.note_problems(&closed.problems);
    move_to_closed(ctx, &mut tx, &closed.goals, &mut outcome)?;
    drop(closed);
    let dispatched = dispatch::plan(ctx, &mut tx, &mut after, false)?;
    outcome.note_dispatch(&dispatched);
    // Runs counted at the cap for want of a verified record: told once.
    if let Some(warning) = super::limits::unaccounted_warning(&dispatched.unaccounted) {
        let key = ctx.store.state_dir.join("runs");
        outcome.cautions.push((key.display().to_string(), warning));
    }
    let losses = ctx.store.log_losses();
    if let Some(warning) = crate::store::log_mark::losses_warning(&losses) {
        let key = ctx.store.log().dir().display().to_string();
        outcome.cautions.push((key, warning));
    }
    let goals: Vec<&Goal> = after.iter().map(|g| &*g.goal).collect();
    let open_goals = goals.len();
    let open_ids: std::collections::HashSet<&str> = goals.iter().map(|g| g.id.as_str()).collect();
    super::prune::prune(ctx, &mut tx, &open_ids)?;
    let before = reported_before(ctx);
    let read_to = outcome.note_failed_meanwhile(ctx, before.events.as_ref())?;
    outcome.needs_attention_from(&goals, &before.attention);
    outcome.new_errors_from(&before.problems);
    // A machine of the fleet that stopped passing: told once.
    if super::fleet::shared(ctx) {
        super::fleet::record_stale(ctx, &mut tx, &super::fleet::read(ctx))?;
    }
    // A file that cannot be read is told once: the rest of the pass went on.
    let notifications = notify::collect(ctx, &mut tx, &goals, &outcome.new_errors)?;
    let events =
        ctx.store
            .log()
            .cursor_after(&read_to, tx.pending_events(), ctx.store.keys.signer());
    if !request.at_run_end
        && let Err(err) = record_pass(ctx, &mut tx, &outcome, &events)
    {
        // What the pass reports is machine state: without it the next pass
        // reports again, which is no reason to stop this one.
        (outcome.notices.warnings).push(format!("{err}: the next pass reports this one's again"));
    }
    // Machine state that only saves reading seals: a failure costs time.
    let _ = ctx.store.save_seal_cache(&after);
    tx.render_mirror(&goals, &book);
    outcome.keep_notices(super::finish(tx)?);
    // The open goals are let go before the batches read the directory
    // again: at 100,000 goals they are most of the pass's memory.
    drop(after);
    move_the_rest_to_closed(ctx, &mut outcome)?;
    // Fault injection for tests: a tick that dies between recording its runs
    // and starting them must lose nothing.
    if ctx.env.test_hook("STEWARD_FAULT") == Some("crash-after-persist") {
        return Err(Error::Internal(
            "STEWARD_FAULT=crash-after-persist: stopped after recording the runs".to_string(),
        ));
    }
    // The lock is released: the runs recorded start now (once their claims
    // are pushed, when machines share the store), then the person is told.
    let mut dispatched = dispatched;
    if claiming {
        match super::claim::claim(
            ctx,
            std::mem::take(&mut dispatched.to_claim),
            dispatch::record_claimed,
        ) {
            Ok((won, notices)) => {
                let won = dispatch::Dispatched {
                    started: won,
                    ..dispatch::Dispatched::default()
                };
                outcome.note_dispatch(&won);
                dispatched.started = won.started;
                outcome.notices.warnings.extend(notices.warnings);
            }
            Err(err) => outcome.notices.warnings.push(err.to_string()),
        }
    }
    let to_start = dispatched.to_start();
    outcome
        .notices
        .warnings
        .extend(dispatch::start_supervisors(ctx, &to_start));
    // What this machine can run now, for the others: once its runs
    // started.
    if let Err(err) = super::fleet::publish(ctx) {
        (outcome.notices.warnings).push(format!("this machine's record for the fleet: {err}"));
    }
    outcome
        .notices
        .warnings
        .extend(notify::send(ctx, notifications)?);
    // The issues goals were made from, told how they ended.
    match super::intake::report_ends(ctx) {
        Ok(warnings) => outcome.notices.warnings.extend(warnings),
        Err(err) => (outcome.notices.warnings).push(format!("telling issues: {err}")),
    }
    outcome.dispatched = dispatched;
    if !request.at_run_end {
        outcome
            .notices
            .warnings
            .extend(notify::ping(ctx, open_goals, &outcome.needs_attention));
    }
    Ok(outcome)
}

/// One pass as a run ends (`dispatch.pass_at_run_end`, as the files say
/// now): its goal is judged, and its next run or another goal's starts,
/// within the same limits and under the same lock as the scheduled
/// `tick`, without waiting for it. Made with a context of its own: the
/// run may have lasted half an hour, and its configuration changed.
pub fn at_run_end(ctx: &Context) -> Result<()> {
    let options = crate::context::GlobalOptions {
        root: Some(ctx.root.clone()),
        command: "tick",
        ..crate::context::GlobalOptions::default()
    };
    let pass = Context::resolve(&options, ctx.env.clone())?;
    if !pass.config.dispatch.pass_at_run_end {
        return Ok(());
    }
    let request = TickRequest {
        dry_run: false,
        at_run_end: true,
    };
    tick(&pass, request).map(drop)
}

/// Keeps when the pass ran, for `status`, which goals needed a person and
/// which files could not be read, so the next pass tells only of new ones
/// (machine state; written only when something moved, so a second pass at
/// the same time writes nothing).
fn record_pass(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    outcome: &TickOutcome,
    events: &crate::store::events::Cursor,
) -> Result<()> {
    let path = ctx.store.state_dir.join("tick.json");
    let problems: Vec<&str> = (outcome.errors.iter())
        .chain(&outcome.cautions)
        .map(|(path, _)| path.as_str())
        .collect();
    let document = serde_json::json!({
        "last_run": crate::model::format_time(ctx.now),
        "attention": outcome.needs_attention,
        "problems": problems,
        "events": events,
    });
    let text = ctx.store.render_told(PASS_HEADER, &document.to_string());
    if crate::os::safe_file::read_state(&path).as_deref() != Some(text.as_str()) {
        tx.write_file(&path, &text)?;
    }
    Ok(())
}

/// What the last pass reported (nothing when it was never recorded: the
/// first pass reports all).
#[derive(Default)]
struct Reported {
    /// Where in the event log it stopped reading.
    events: Option<crate::store::events::Cursor>,
    /// The goals that needed a person.
    attention: Vec<String>,
    /// The files that could not be read.
    problems: Vec<String>,
}

/// The first line of `state/tick.json` (`store::told`).
const PASS_HEADER: &str = "steward pass v2";

/// What the last pass recorded, when this machine wrote it for this store
/// (an edited, copied or older-format file reads as no pass: the next one
/// reports everything again rather than stay silent).
pub(crate) fn last_pass(ctx: &Context) -> Option<serde_json::Value> {
    let document = (ctx.store).read_told(&ctx.store.state_dir.join("tick.json"), PASS_HEADER)?;
    serde_json::from_str(&document).ok()
}

fn reported_before(ctx: &Context) -> Reported {
    let Some(last) = last_pass(ctx) else {
        return Reported::default();
    };
    let texts = |key: &str| -> Vec<String> {
        last[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    Reported {
        events: serde_json::from_value(last["events"].clone()).ok(),
        attention: texts("attention"),
        problems: texts("problems"),
    }
}

/// Goals closed by hand that one batch of a pass moves at most (see
/// [`crate::store::CLOSED_IN_PLACE_KEPT`]); a pass moves batches until
/// none waits or `MOVING_TIME` is spent. What is left waits for the next
/// pass; reading commands pass over them with a `stat` meanwhile.
pub const MOVED_PER_PASS: usize = crate::store::CLOSED_IN_PLACE_KEPT;

/// Moves `batch`, terminal goals read under the lock from the open goals'
/// directory (up to [`MOVED_PER_PASS`]), to the closed goals, waiting for
/// the disk once for all of them; one closed outside steward is recorded as
/// such by the same write ([`Transaction::save_all`]). Returns how many
/// were moved.
fn move_to_closed(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    batch: &[LoadedGoal],
    outcome: &mut TickOutcome,
) -> Result<usize> {
    if batch.is_empty() {
        return Ok(0);
    }
    // Closed by hand, a goal's seal differs: whether signed changes lead
    // to it is one pass over the log for the batch, not one a goal.
    ctx.store.prepare_chains(batch);
    let findings: Vec<Option<Finding>> = (batch.iter())
        .map(|loaded| match ctx.store.trust_of(loaded) {
            Trust::Outside(outside) => Some(outside_finding(&loaded.goal, &outside)),
            Trust::Steward | Trust::Signed => None,
        })
        .collect();
    // Closed by steward, but the move to the closed goals was interrupted:
    // finish it.
    let changes = (batch.iter())
        .map(|loaded| {
            (
                loaded,
                GoalChange::silent("moved", "closed goal moved to the closed goals", Vec::new())
                    .always(),
            )
        })
        .collect();
    // A goal edited again meanwhile is left for the next pass.
    let mut moved = 0;
    for (saved, finding) in tx.save_all(changes)?.into_iter().zip(findings) {
        if saved {
            moved += 1;
            outcome.findings.extend(finding);
        }
    }
    Ok(moved)
}

/// Checks the cache of goals closed by hand against `open`, the goals of
/// the open goals' directory just read: one it hid was written outside
/// steward, and is told. The cache is kept while goals closed by hand wait.
fn settle_terminal_cache(
    tx: &mut Transaction<'_>,
    open: &[LoadedGoal],
    waiting: bool,
    outcome: &mut TickOutcome,
) {
    for name in tx.store().settle_terminal_cache(open, waiting) {
        let label = name.strip_suffix(".md").unwrap_or(&name).to_string();
        let reason = format!(
            "state/cache/terminal-goals listed the open goal in {name} as closed, hiding it from prompts and hooks: written outside steward; the cache is cleared"
        );
        tx.record_store_event("cache_forged", &reason);
        outcome.findings.push(Finding {
            label,
            action: "edited_outside",
            from: String::new(),
            to: String::new(),
            reason,
            task: None,
        });
    }
}

/// How long a pass goes on moving goals closed by hand, a batch of
/// [`MOVED_PER_PASS`] at a time, once its own work is done.
const MOVING_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// Moves the goals closed by hand that the pass left waiting, a batch at a
/// time, each under the lock (let go between them, so an agent recording
/// progress waits one batch at most) and each read afresh, until none
/// waits or [`MOVING_TIME`] is spent. The batches go through the
/// directory's files in name order, listed once, each from where the last
/// stopped (the files a batch read past its last goal are read again by
/// the next); one closed by hand meanwhile behind them waits for the next
/// pass. What these batches find outside steward is in the
/// log, told by the next pass.
fn move_the_rest_to_closed(ctx: &Context, outcome: &mut TickOutcome) -> Result<()> {
    if outcome.closed_waiting == 0 {
        return Ok(());
    }
    let started = std::time::Instant::now();
    // The pass that read them all told the files that do not read.
    let paths = ctx.store.open_directory_paths(&mut Vec::new())?;
    let mut rest = &paths[..];
    while !rest.is_empty() && started.elapsed() < MOVING_TIME {
        ctx.store.forget_chains();
        let mut tx = ctx.transaction_by(Actor::Watchdog)?;
        let (batch, through) = ctx.store.closed_among(rest, MOVED_PER_PASS);
        rest = &rest[through..];
        let moved = move_to_closed(ctx, &mut tx, &batch, outcome)?;
        drop(batch);
        outcome.closed_waiting = match rest.is_empty() {
            true => 0,
            false => outcome.closed_waiting.saturating_sub(moved),
        };
        settle_terminal_cache(&mut tx, &[], outcome.closed_waiting > 0, outcome);
        outcome.keep_notices(super::finish(tx)?);
    }
    Ok(())
}

/// How many goals changed outside steward one transaction of `tick`
/// records before it is written and the next begins.
const HELD_PER_TRANSACTION: usize = 512;

/// The finding a change made outside steward makes.
fn outside_finding(goal: &Goal, outside: &OutsideChange) -> Finding {
    let closed = goal.status.is_terminal();
    Finding {
        label: goal.label.clone(),
        action: if closed {
            "closed_by_hand"
        } else {
            "edited_outside"
        },
        from: String::new(),
        to: goal.status.to_string(),
        reason: if closed {
            format!("closed by hand, no receipt: {}", outside.detail)
        } else {
            format!(
                "{}; held for a person (steward show {label}, then steward accept {label})",
                outside.detail,
                label = goal.label
            )
        },
        task: None,
    }
}

/// Open goals steward sealed whose file is gone, not by steward: each
/// label with its seal. Files the scan could not read are there. A goal a
/// pull moved to the closed goals is not gone ([`closed_elsewhere`]).
fn vanished(ctx: &Context, scan: &Scan) -> Result<Vec<(String, Seal)>> {
    Ok(gone_from_the_open_goals(ctx, scan)?
        .into_iter()
        .filter(|(label, seal)| closed_elsewhere(ctx, label, seal).is_none())
        .collect())
}

/// Open goals steward sealed whose file is no longer among the open goals,
/// with their seals.
fn gone_from_the_open_goals(ctx: &Context, scan: &Scan) -> Result<Vec<(String, Seal)>> {
    let scanned: HashSet<&str> = scan.goals.iter().map(|g| g.goal.label.as_str()).collect();
    let present = |label: &str| scanned.contains(label) || ctx.store.open_path(label).exists();
    let mut gone = Vec::new();
    for label in ctx.store.sealed_open_labels() {
        if present(&label) {
            continue;
        }
        if let Ok(Some(seal)) = ctx.store.seal_of_label(Place::Open, &label)? {
            gone.push((label, seal));
        }
    }
    Ok(gone)
}

/// The closed goal an open goal steward sealed here became on another
/// machine of the store (completed or abandoned there, and pulled): the
/// same id, where steward puts it, and steward's by the signed events.
fn closed_elsewhere(ctx: &Context, label: &str, seal: &Seal) -> Option<LoadedGoal> {
    let loaded = ctx
        .store
        .load(&ctx.store.closed_path_of(label, &seal.id))
        .ok()?;
    // Closed by steward on another machine: the signed events lead there.
    // An open goal moved among the closed ones by hand has vanished from
    // the open goals; one closed by hand is found there as such.
    ctx.store.closed_by_steward(&loaded, seal).then_some(loaded)
}

fn vanished_finding(label: &str, seal: &Seal) -> Finding {
    Finding {
        label: label.to_string(),
        action: "deleted_outside",
        from: String::new(),
        to: String::new(),
        reason: format!(
            "the file of goal {} was removed outside steward; the label is kept from reuse until a person runs `steward accept {label}`",
            seal.id
        ),
        task: None,
    }
}

/// Obligations past their time: timed out, process gone, or resolved long
/// enough ago to drop.
fn expire(ctx: &Context, book: &mut Book) -> Vec<Transition> {
    let obligations = &ctx.config.obligations;
    book.expire(
        ctx.now,
        obligations.grace.as_secs(),
        obligations.delivered_ttl.as_secs(),
        &ctx.machine_id(),
        crate::os::process::is_alive,
    )
}

impl TickOutcome {
    /// What one of the pass's transactions could not do: its warnings, and
    /// the first commit that failed.
    fn keep_notices(&mut self, notices: super::Notices) {
        self.notices.warnings.extend(notices.warnings);
        if self.notices.commit_error.is_none() {
            self.notices.commit_error = notices.commit_error;
        }
    }

    /// Runs started, ended and goals escalated are findings.
    fn note_dispatch(&mut self, dispatched: &dispatch::Dispatched) {
        for run in &dispatched.started {
            self.findings.push(Finding {
                label: run.goal_label.clone(),
                action: "dispatched",
                from: String::new(),
                to: String::new(),
                reason: format!("{} run {} to {}", run.kind.as_str(), run.id, run.agent),
                task: None,
            });
        }
        for run in &dispatched.ended {
            self.findings.push(Finding {
                label: run.goal_label.clone(),
                action: "run_ended",
                from: "running".to_string(),
                to: run.state_name().to_string(),
                reason: run.result.clone().unwrap_or_default(),
                task: None,
            });
        }
        for (label, reason) in &dispatched.escalated {
            self.findings.push(Finding {
                label: label.clone(),
                action: "blocked",
                from: String::new(),
                to: "blocked".to_string(),
                reason: format!("no_progress: {reason}"),
                task: None,
            });
        }
    }

    /// Goals that failed since the last pass outside it (a run that
    /// crossed a bound as it ended): what a person hears of at this pass.
    /// Reads the event log from where the last pass stopped (the first
    /// pass reads nothing); returns where it stopped.
    fn note_failed_meanwhile(
        &mut self,
        ctx: &Context,
        from: Option<&crate::store::events::Cursor>,
    ) -> Result<crate::store::events::Cursor> {
        let log = ctx.store.log();
        let Some(from) = from else {
            return log.end();
        };
        let mut failed = Vec::new();
        let end = log.each_from(from, |event: crate::store::events::Event| {
            if event.to.as_deref() == Some("failed") {
                failed.push(event);
            }
        })?;
        for event in failed {
            if self
                .findings
                .iter()
                .any(|f| f.label == event.label && f.action == "failed")
            {
                continue;
            }
            self.findings.push(Finding {
                label: event.label.clone(),
                action: "failed",
                from: event.from.clone().unwrap_or_default(),
                to: "failed".to_string(),
                reason: format!("at {}: {}", event.ts, event.detail),
                task: None,
            });
        }
        Ok(end)
    }

    /// Goal files that could not be read are errors of the pass.
    fn note_problems(&mut self, problems: &[FileProblem]) {
        self.errors
            .extend(problems.iter().map(|p| (p.path.clone(), p.to_string())));
    }

    /// Timeouts and dead processes are findings; dropping old resolved
    /// obligations is housekeeping.
    fn note_tasks(&mut self, transitions: &[Transition]) {
        for t in transitions.iter().filter(|t| t.to.is_some()) {
            self.findings.push(Finding {
                label: t.goal_label.clone().unwrap_or_else(|| t.label.clone()),
                action: t.action,
                from: t.from.map_or_else(String::new, |s| s.to_string()),
                to: t.to.map_or_else(String::new, |s| s.to_string()),
                reason: format!("task {} ({})", t.label, t.id),
                task: Some(t.id.clone()),
            });
        }
    }

    fn new_errors_from(&mut self, reported: &[String]) {
        self.new_errors = (self.errors.iter())
            .chain(&self.cautions)
            .filter(|(path, _)| !reported.contains(path))
            .cloned()
            .collect();
    }

    fn needs_attention_from(&mut self, after: &[&Goal], reported: &[String]) {
        let mut attention: Vec<(String, String)> = after
            .iter()
            .filter(|g| g.status == Status::Blocked)
            .map(|g| {
                let why = g.escalation.as_ref().map_or_else(
                    || "blocked".to_string(),
                    |e| format!("blocked ({}: {})", e.kind, e.reason),
                );
                (g.label.clone(), why)
            })
            .collect();
        attention.extend(
            after
                .iter()
                .filter(|g| g.status != Status::Blocked && !g.status.is_terminal())
                .filter_map(|g| {
                    let waiting = g.waiting.as_ref()?;
                    waiting.for_person?;
                    Some((g.label.clone(), format!("waiting for {}", waiting.reason)))
                }),
        );
        attention.extend(
            self.findings
                .iter()
                .filter(|f| matches!(f.action, "failed" | "deleted_outside" | "closed_by_hand"))
                .map(|f| (f.label.clone(), format!("{} ({})", f.action, f.reason))),
        );
        attention.sort();
        attention.dedup_by(|a, b| a.0 == b.0);
        self.needs_attention = attention.iter().map(|(label, _)| label.clone()).collect();
        self.new_attention = attention
            .into_iter()
            .filter(|(label, _)| !reported.contains(label))
            .collect();
    }
}

/// The checks' outcomes per goal file, with the checks they are for: a goal
/// whose checks changed before the lock was taken is judged next pass.
type Outcomes = HashMap<PathBuf, (Vec<Check>, Vec<CheckOutcome>)>;

/// A dry run has no side effects: a goal with a command check is not
/// checked at all (its verdict waits for a real pass), and says so.
/// The goals whose checks are due (in a dry run, not those that would run
/// commands: said in `report`).
fn due_checks<'g>(
    ctx: &Context,
    goals: &'g [LoadedGoal],
    dry_run: bool,
    report: &mut TickOutcome,
) -> Vec<&'g LoadedGoal> {
    goals
        .iter()
        .filter(|g| watchdog::evaluate(&g.goal, ctx.now, None) == Evaluation::NeedsChecks)
        .filter(|g| {
            let runs_commands = g
                .goal
                .verification
                .iter()
                .any(|c| c.kind == CheckKind::CommandExitZero);
            if dry_run && runs_commands && ctx.config.verification.allow_commands {
                report.notices.warnings.push(format!(
                    "{}: command checks are not run in a dry run; the goal is not checked",
                    g.goal.label
                ));
            }
            !(dry_run && runs_commands)
        })
        .collect()
}

/// Runs the checks of `due`, by goal file.
fn run_checks(ctx: &Context, due: &[&LoadedGoal]) -> Outcomes {
    let goals: Vec<&Goal> = due.iter().map(|g| &*g.goal).collect();
    // A goal whose run works in a worktree is checked there.
    let sites = super::worktree::check_sites(ctx, &goals);
    let checks: Vec<(&Check, &checking::Site)> = due
        .iter()
        .zip(&sites)
        .flat_map(|(g, site)| g.goal.verification.iter().map(move |c| (c, site)))
        .collect();
    let mut outcomes = checking::run_each(ctx, &checks).into_iter();
    due.iter()
        .map(|loaded| {
            let mine = (&mut outcomes)
                .take(loaded.goal.verification.len())
                .collect();
            (
                loaded.file.path.clone(),
                (loaded.goal.verification.clone(), mine),
            )
        })
        .collect()
}

/// The watchdog's verdict on one goal, counting it and noting its checks
/// that cannot run; the caller reports the verdict once it is written.
fn decide(
    ctx: &Context,
    loaded: &LoadedGoal,
    outcomes: &Outcomes,
    report: &mut TickOutcome,
) -> Option<Verdict> {
    report.checked += 1;
    let goal = &loaded.goal;
    let ran = outcomes
        .get(&loaded.file.path)
        .filter(|(checks, _)| *checks == goal.verification)
        .map(|(_, o)| o.as_slice());
    match watchdog::evaluate(goal, ctx.now, ran) {
        Evaluation::Unchanged | Evaluation::NeedsChecks => None,
        Evaluation::InvalidChecks(reasons) => {
            for reason in reasons {
                report.errors.push((
                    ctx.store.relative(&loaded.file.path),
                    format!("{}: check cannot run: {reason}", goal.label),
                ));
            }
            None
        }
        Evaluation::Change(verdict) => Some(*verdict),
    }
}

/// What a verdict about `goal` reports, unless it is a silent one.
fn verdict_finding(goal: &Goal, verdict: &Verdict) -> Option<Finding> {
    (!verdict.is_silent()).then(|| Finding {
        label: goal.label.clone(),
        action: verdict.action,
        from: goal.status.to_string(),
        to: verdict.status.as_ref().unwrap_or(&goal.status).to_string(),
        reason: verdict.reason.clone(),
        task: None,
    })
}

/// The goal as a verdict would leave it, for a dry run.
fn preview(goal: &Goal, verdict: &Verdict) -> Goal {
    let mut goal = goal.clone();
    if let Some(status) = &verdict.status {
        goal.status = status.clone();
    }
    goal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;

    /// Goal `report`, whose check of criterion 1 is due and passes.
    fn report_with_a_passing_check(store: &Store) {
        store.write("out/report.txt", "done");
        store.goal(
            "report",
            "verification:\n  - type: file_exists\n    target: out/report.txt\n    criterion: 1",
            &["report written"],
        );
    }

    #[test]
    fn a_passing_check_ticks_its_criterion_and_a_second_pass_writes_nothing() {
        let store = Store::new();
        report_with_a_passing_check(&store);
        let outcome = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert_eq!(outcome.checked, 1);
        assert_eq!(outcome.findings.len(), 1, "{:?}", outcome.findings);
        assert_eq!(outcome.findings[0].to, "verifying");
        assert_eq!(outcome.exit_code(), 0);
        let written = store.read("state/goals/report.md");
        assert!(written.contains("- [x] report written"), "{written}");

        let again = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert!(again.findings.is_empty(), "{:?}", again.findings);
        assert_eq!(store.read("state/goals/report.md"), written);
    }

    #[test]
    fn a_pass_moves_the_goals_closed_by_hand_a_batch_at_a_time() {
        let store = Store::new();
        // A check is due: the lock is let go while it runs, and the
        // directory read again.
        report_with_a_passing_check(&store);
        let total = MOVED_PER_PASS + 3;
        for n in 0..total {
            store.goal(&format!("done-{n:04}"), "status: completed", &["a"]);
        }
        let closed_by_hand = |outcome: &TickOutcome| {
            (outcome.findings.iter())
                .filter(|f| f.action == "closed_by_hand")
                .count()
        };
        let dry = tick(
            &store.ctx(),
            TickRequest {
                dry_run: true,
                ..TickRequest::default()
            },
        )
        .unwrap();
        assert_eq!(
            (closed_by_hand(&dry), dry.closed_waiting),
            (MOVED_PER_PASS, 3)
        );
        assert_eq!(store.goal_files_in("state/goals"), total + 1);

        let first = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert_eq!(first.checked, 1);
        assert!(
            first
                .findings
                .iter()
                .any(|f| f.label == "report" && f.to == "verifying")
        );
        // The pass's own batch, then the rest in a batch of their own.
        assert_eq!((closed_by_hand(&first), first.closed_waiting), (total, 0));
        assert_eq!(store.goal_files_in("state/goals"), 1);
        assert_eq!(store.goal_files_in("state/goals/closed"), total);

        let second = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert_eq!((closed_by_hand(&second), second.closed_waiting), (0, 0));
        assert_eq!(store.goal_files_in("state/goals"), 1);
        let moved = store.read("state/goals/closed/done-0000-done-000.md");
        assert!(moved.contains("closed by hand, no receipt"), "{moved}");
    }

    #[test]
    fn the_batches_move_every_closed_goal_among_open_ones_and_leave_the_open() {
        let store = Store::new();
        // Three batches after the pass's own, each going on where the last
        // stopped; every seventh file holds an open goal.
        let total = 3 * MOVED_PER_PASS + 5;
        let mut open = 0;
        for n in 0..total + total / 6 {
            if n % 7 == 3 {
                store.goal(&format!("g-{n:05}"), "", &["a"]);
                open += 1;
            } else {
                store.goal(&format!("g-{n:05}"), "status: completed", &["a"]);
            }
        }
        let closed = total + total / 6 - open;
        let first = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert_eq!(first.closed_waiting, 0);
        let closed_by_hand = (first.findings.iter())
            .filter(|f| f.action == "closed_by_hand")
            .count();
        assert_eq!(closed_by_hand, closed);
        assert_eq!(store.goal_files_in("state/goals"), open);
        assert_eq!(store.goal_files_in("state/goals/closed"), closed);
    }

    #[test]
    fn a_crossed_budget_blocks_and_needs_a_person() {
        let store = Store::new();
        store.goal(
            "spent",
            "budget: {max_dispatches: 2}\nprogress: {dispatches: 2}",
            &["a"],
        );
        let dry = tick(
            &store.ctx(),
            TickRequest {
                dry_run: true,
                ..TickRequest::default()
            },
        )
        .unwrap();
        assert_eq!(dry.needs_attention, ["spent"]);
        assert!(
            !store
                .read("state/goals/spent.md")
                .contains("status: blocked")
        );

        let outcome = tick(&store.ctx(), TickRequest::default()).unwrap();
        assert_eq!(outcome.exit_code(), 3);
        assert!(
            store
                .read("state/goals/spent.md")
                .contains("status: blocked")
        );
    }
}
