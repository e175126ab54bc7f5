//! One agent run, from the supervisor's side (`steward run-agent ID`, the
//! process `tick` re-executes): claim the recorded run, start the agent,
//! wait for it within `dispatch.timeout`, read what it printed, and record
//! how it ended — through the same write path and rules as any command.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::agents::meter::{Metered, Seen};
use crate::agents::prices::Priced;
use crate::agents::supervise::{self, Launch, Stopped};
use crate::agents::{self, SessionTotals};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{
    Actor, Edit, Goal, GoalChange, ProgressField, Run, RunKind, RunOutcome, RunState, Status,
    format_time,
};
use crate::os::sandbox::SandboxMode;
use crate::store::{LoadedGoal, Transaction};

use super::{Notices, limits};

/// How long a run's agent waits after a usage limit whose reset it did
/// not say.
const LIMIT_RETRY_MINUTES: i64 = 30;

/// Where the instruction of run `id` waits for its supervisor.
pub fn prompt_path(ctx: &Context, id: &str) -> PathBuf {
    ctx.store.runs_dir().join(format!("{id}.prompt"))
}

/// Runs the agent of run `id` to its end. Returns the run as recorded;
/// `None` when another supervisor has it already.
pub fn run_agent(ctx: &Context, id: &str) -> Result<Option<Run>> {
    let Some(mut run) = claim(ctx, id)? else {
        return Ok(None);
    };
    supervise::become_supervisor();
    let (exit, stopped, report) = match launch(ctx, &mut run) {
        Ok(done) => done,
        Err(why) => {
            run.result = Some(why);
            (None, None, agents::RunReport::default())
        }
    };
    let profile = ctx.config.agent(&run.agent).cloned();
    // Its final message's update, before the record's end is written: the
    // run then counts as one that reported.
    let update = (run.kind != RunKind::Plan)
        .then(|| take_update(ctx, &run, report.message.as_deref()))
        .flatten();
    let now = ctx.clock_now();
    let mut tx = ctx.transaction_by_at(Actor::Steward, now)?;
    let mut current = ctx.store.find_run(&run.id)?;
    current.agent_pid = run.agent_pid;
    current.agent_start = run.agent_start;
    // Its worktree as the supervisor made it; what became of it (the
    // judge marks it) is the record's.
    if let Some(mut worktree) = run.worktree.clone() {
        if let Some(recorded) = &current.worktree {
            worktree.state = recorded.state;
            worktree.judged_commit = recorded.judged_commit.clone();
        }
        current.worktree = Some(worktree);
    }
    let outcome = match (&stopped, exit) {
        (Some(Stopped::Timeout), _) => RunOutcome::Timeout,
        (Some(Stopped::Stalled(_)), _) => RunOutcome::Stalled,
        (Some(Stopped::LimitRetries(_)), _) => RunOutcome::Limited,
        (Some(Stopped::Cancelled(_)), _) => RunOutcome::Cancelled,
        // Stopped for its goal's sake by another command, whichever signal
        // reached it first.
        _ if current.cancelled.is_some() => RunOutcome::Cancelled,
        (Some(Stopped::Requested), _) => RunOutcome::Killed,
        (Some(Stopped::Watch(_)), _) => RunOutcome::OverBudget,
        _ if current.kill_requested => RunOutcome::Killed,
        _ if report.limited => RunOutcome::Limited,
        (None, Some(0)) if !report.failed => RunOutcome::Ok,
        _ => RunOutcome::Error,
    };
    let previous = previous_session_total(ctx, &current, report.session.as_deref());
    let (cost, totals) = match &profile {
        Some(profile) => agents::run_cost(profile, &report, previous.as_ref()),
        None => (0.0, SessionTotals::default()),
    };
    current.ended_at = Some(format_time(now));
    current.exit = exit;
    current.outcome = Some(outcome);
    current.session = report.session.clone().or(current.session.take());
    current.result = report
        .result
        .clone()
        .or(run.result.take())
        .or_else(|| stderr_tail(ctx, &current.id));
    // What the update said, not its JSON: a person reads the result.
    if let Some(update) = update {
        current.result = Some(update);
    }
    current.cost_usd = cost;
    current.session_cost_total =
        Some(agents::round_micro(totals.cost_usd)).filter(|_| report.session.is_some());
    current.input_tokens = report
        .session_usage
        .map(|u| u.input + u.cached_input + u.cache_write);
    current.output_tokens = report.session_usage.map(|u| u.output);
    let cancelled = match &stopped {
        Some(Stopped::Cancelled(why)) => Some(why.clone()),
        _ if outcome == RunOutcome::Cancelled => current.cancelled.clone(),
        _ => None,
    };
    if let Some(why) = cancelled {
        current.result = Some(format!("cancelled: {why}"));
    }
    match &stopped {
        Some(Stopped::Stalled(why)) => current.result = Some(format!("stalled: {why}")),
        Some(Stopped::LimitRetries(why)) => current.result = Some(format!("limited: {why}")),
        _ => {}
    }
    // Stopped at its goal's own cost bound: reached, though maybe not
    // crossed (the next call would have).
    let mut bound_reached = None;
    if let Some(Stopped::Watch(why)) = &stopped {
        let allowance = allowance(ctx, &current);
        if allowance.as_ref().is_some_and(|a| a.goals) {
            bound_reached = Some(format!("cost bound reached: {why}"));
        }
        // A call already under way as it was stopped is charged too:
        // past the bound by at most that one response, and said.
        let over = allowance
            .filter(|allowance| cost > allowance.usd + 0.005)
            .map(|allowance| {
                format!(
                    "; a model call under way as it was stopped took it to ${cost:.2}, ${:.2} past {}",
                    cost - allowance.usd,
                    allowance.bound
                )
            })
            .unwrap_or_default();
        current.result = Some(format!(
            "stopped: {why}{over}{}",
            current
                .result
                .as_deref()
                .map(|r| format!(" (it had said: {})", crate::text::head(r, 300)))
                .unwrap_or_default()
        ));
    }
    if outcome == RunOutcome::Limited {
        // Unknown reset: try again after a while.
        let until = report
            .limit_resets_at
            .filter(|at| *at > now)
            .unwrap_or(now + chrono::Duration::minutes(LIMIT_RETRY_MINUTES));
        current.limited_until = Some(format_time(until));
        current.limit_guessed = report.limit_resets_at.is_none_or(|at| at <= now);
        if until - now > ctx.config.dispatch.limit_wait.to_chrono() {
            // Longer than a person would wait unknowing.
            tx.record_goal_event(
                &current.goal_id,
                &current.goal_label,
                "usage_limited",
                &format!(
                    "{}'s usage limit resets at {}: its runs wait until then (longer than dispatch.limit_wait)",
                    current.agent,
                    format_time(until)
                ),
            );
        }
    }
    current.reported = Some(reported(ctx, &current)?);
    if current.kind == RunKind::Plan && outcome == RunOutcome::Ok {
        take_plan(ctx, &mut tx, &mut current, report.message.as_deref())?;
    }
    let goal = tx.refind(&current.goal_id, &current.goal_label).ok();
    if ctx.config.dispatch.claim_git {
        super::claim::release(ctx, &mut tx, &current)?;
    }
    record_end(&mut tx, &current, goal.as_ref(), cost, now)?;
    if let Some(reason) = bound_reached {
        fail_at_bound(&mut tx, &current, reason, now)?;
    }
    super::finish(tx)?;
    Ok(Some(current))
}

/// The `overseerUpdate` a run's final message ends with (the Overseer's
/// update contract, as `assess --from-json` reads it), recorded as the
/// agent's assessment of the run's goal under its dispatch id, when the
/// run recorded none itself. The run's result to show in place of the
/// message: what the update said, or why it was not recorded (never the
/// agent's raw JSON). `None` when the message holds no update.
fn take_update(ctx: &Context, run: &Run, message: Option<&str>) -> Option<String> {
    let message = message.filter(|m| m.contains("\"overseerUpdate\""))?;
    if reported(ctx, run).unwrap_or(true) {
        return None;
    }
    // As the agent: what it wrote is the agent's word.
    let options = crate::context::GlobalOptions {
        root: Some(ctx.root.clone()),
        actor: Some("agent".to_string()),
        command: "assess",
        ..crate::context::GlobalOptions::default()
    };
    let recorded = Context::resolve(&options, ctx.env.clone())
        .and_then(|agent| super::assess_update(&agent, Some(&run.goal_id), message, Some(&run.id)));
    Some(match recorded {
        Ok(_) => format!(
            "its update, recorded as its assessment: {}",
            crate::model::plan::update::extract(message)
                .map(|update| crate::text::head(&update.summary, 300))
                .unwrap_or_default()
        ),
        // In words of no front door (no `--from-json`).
        Err(err) => format!(
            "its final message ends with an update steward did not record: {}",
            crate::text::head(&crate::text::one_line(&err.to_string()), 300)
        ),
    })
}

/// The goal of `run`, stopped before a model call that would cross its
/// `max_cost_usd`, fails at the bound as one that crossed it does.
fn fail_at_bound(
    tx: &mut Transaction<'_>,
    run: &Run,
    reason: String,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    let Ok(loaded) = tx.refind(&run.goal_id, &run.goal_label) else {
        return Ok(());
    };
    if loaded.goal.status.is_terminal() {
        return Ok(());
    }
    let verdict = crate::rules::watchdog::Verdict {
        status: Some(crate::model::Status::Failed),
        action: "failed",
        closed_reason: Some(reason.clone()),
        reason,
        ..crate::rules::watchdog::Verdict::default()
    };
    tx.save(&loaded, limits::verdict_change(&loaded.goal, &verdict, now))?;
    Ok(())
}

/// A planning run's answer: written as the goal's plan when it is a valid
/// one (as the agent's, tied to the run), else kept beside the run for the
/// repair prompt, the problems in the run's result.
fn take_plan(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    run: &mut Run,
    answer: Option<&str>,
) -> Result<()> {
    let answer = answer.unwrap_or_default();
    match crate::model::plan::json::validate(answer) {
        Ok(plan) => {
            let Ok(loaded) = tx.refind(&run.goal_id, &run.goal_label) else {
                return Ok(());
            };
            if loaded.goal.status.is_terminal() {
                return Ok(());
            }
            let (change, _) = super::plan::plan_change(&loaded.goal, plan);
            let change = change.by(Actor::Agent).for_run(&run.id);
            run.result = Some(format!("plan: {}", change.detail));
            run.reported = Some(true);
            tx.save(&loaded, change)?;
        }
        Err(problems) => {
            ctx.store
                .write_private(&ctx.store.run_answer_path(&run.id), answer)?;
            let shown: Vec<String> = problems.iter().take(3).map(ToString::to_string).collect();
            run.result = Some(format!(
                "not a valid plan ({} problem(s)): {}",
                problems.len(),
                shown.join("; ")
            ));
        }
    }
    Ok(())
}

/// The last lines the agent wrote to stderr, when its output said nothing.
fn stderr_tail(ctx: &Context, id: &str) -> Option<String> {
    let (_, stderr) = ctx.store.run_output_paths(id);
    let text = crate::os::safe_file::read_state(&stderr)?;
    let tail: Vec<&str> = text
        .lines()
        .rev()
        .take(5)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let tail = crate::text::one_line(&tail.join(" "));
    (!tail.is_empty()).then(|| crate::text::head(&tail, 500))
}

/// Whether the agent recorded an assessment or a completion under the
/// run's dispatch id.
fn reported(ctx: &Context, run: &Run) -> Result<bool> {
    let recent = ctx
        .store
        .log()
        .read_since_naming(&run.created_at, Some(&run.id))?;
    Ok(recent.iter().any(|e| {
        e.dispatch_id.as_deref() == Some(run.id.as_str())
            && matches!(
                e.action.as_str(),
                "assessed" | "completed" | "awaiting a person" | "awaiting merge"
            )
    }))
}

/// Marks the run started by this process, under the lock; `None` when it
/// was started already (two ticks raced to start a recovered run).
fn claim(ctx: &Context, id: &str) -> Result<Option<Run>> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    tx.leave_uncommitted();
    let mut run = ctx.store.find_run(id)?;
    if run.state() != RunState::Pending {
        return Ok(None);
    }
    run.started_at = Some(format_time(ctx.now));
    let me = crate::os::process::ProcessId::of(std::process::id());
    run.supervisor_pid = Some(std::process::id());
    run.supervisor_start = me.as_ref().map(|p| p.start);
    run.boot = me.map(|p| p.boot);
    tx.save_run(&run)?;
    super::finish(tx)?;
    Ok(Some(run))
}

/// Starts the agent and waits for it: its exit status, why the supervisor
/// stopped it (if it did), and what its output says. `Err` says why it
/// could not start.
fn launch(
    ctx: &Context,
    run: &mut Run,
) -> std::result::Result<(Option<i32>, Option<Stopped>, agents::RunReport), String> {
    let profile = ctx
        .config
        .agent(&run.agent)
        .ok_or_else(|| format!("no agent profile `{}`", run.agent))?
        .clone();
    let instruction = crate::os::safe_file::read_text(
        &prompt_path(ctx, &run.id),
        crate::os::safe_file::STATE_BYTES,
    )
    .map_err(|err| format!("cannot read the instruction: {err}"))?
    .ok_or("cannot read the instruction: it is gone")?;
    // Only a nudge and a wake resume the session they were given.
    let session = run.session.clone().filter(|_| {
        matches!(
            run.kind,
            crate::model::RunKind::Nudge | crate::model::RunKind::Wake
        )
    });
    let mode = ctx.config.dispatch.sandbox;
    let sandbox = sandbox_of(mode, &profile)?;
    let instruction = match sandbox {
        // Its shell cannot write the store, and no rule lets `steward`
        // out of Codex's sandbox: the MCP server writes for it.
        Some(agents::OutputFormat::CodexJsonl) => {
            format!("{instruction}{}", super::instruction::CODEX_SANDBOX_NOTE)
        }
        // Its sandbox lets a plain `steward …` out, never one in a chain:
        // the MCP tools are the other way.
        Some(agents::OutputFormat::ClaudeJson) => {
            format!("{instruction}{}", super::instruction::CLAUDE_SANDBOX_NOTE)
        }
        _ => instruction,
    };
    // Its own git worktree, when it works in one (`dispatch.worktree`).
    let cwd = match run.worktree.as_mut() {
        Some(worktree) => super::worktree::prepare(ctx, worktree)?,
        None => ctx.root.clone(),
    };
    let mut argv = profile.argv(session.as_deref(), &instruction);
    if let Some(client) = sandbox {
        argv = sandboxed(ctx, client, argv, mode, &run.id, run.worktree.as_ref())?;
    }
    let (stdout, stderr) = ctx.store.run_output_paths(&run.id);
    let env = vec![
        ("STEWARD_ROOT".to_string(), ctx.root.display().to_string()),
        ("STEWARD_ACTOR".to_string(), "agent".to_string()),
        ("STEWARD_GOAL".to_string(), run.goal_label.clone()),
        ("STEWARD_DISPATCH_ID".to_string(), run.id.clone()),
    ];
    let seen = Arc::new(Mutex::new(Seen::default()));
    let launch = Launch {
        argv: &argv,
        cwd: &cwd,
        env,
        unset: std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| {
                RETRY_SETTINGS.iter().any(|p| name.starts_with(p))
                    || crate::checks::TOKEN_VARIABLES.contains(&name.as_str())
            })
            .collect(),
        stdin: (profile.prompt == agents::PromptVia::Stdin).then_some(instruction),
        stdout: stdout.clone(),
        stderr,
        max_bytes: ctx.config.dispatch.log_max_bytes,
        seen: Some(seen.clone()),
    };
    // What the run may spend, and what it spent so far: a resumed Codex
    // thread's totals count from what steward recorded last.
    let allowance = allowance(ctx, run);
    let before = previous_session_total(ctx, run, session.as_deref()).map_or(0.0, |t| t.cost_usd);
    let mut rollout = (profile.output == agents::OutputFormat::CodexJsonl)
        .then(|| crate::agents::meter::Rollout::new(&codex_home(ctx)));
    // What it spent so far, each call at the prices of the model that
    // made it, and its dearest call: what the next may cost.
    let price = |model: Option<&str>| profile.prices_for(model);
    let spent = |rollout: &mut Option<crate::agents::meter::Rollout>| -> Option<Metered> {
        let seen = seen.lock().ok()?;
        match rollout {
            Some(rollout) => {
                let state = rollout.read(seen.thread.as_deref()?);
                let priced = price(state.model.as_deref());
                let largest = (state.calls.iter())
                    .map(|call| call.cost(priced.prices()))
                    .fold(0.0, f64::max);
                Some(Metered {
                    usd: (state.totals?.cost(priced.prices()) - before).max(0.0),
                    largest_usd: largest,
                    unknown_models: Vec::new(),
                })
            }
            None => Some(seen.metered(&price)),
        }
    };
    let agent = supervise::start(&launch)
        .map_err(|err| format!("cannot start `{}`: {err}", argv.join(" ")))?;
    run.agent_pid = Some(agent.pid());
    run.agent_start = crate::os::process::ProcessId::of(agent.pid()).map(|p| p.start);
    let _ = record_agent(ctx, run);
    let timeout = Duration::from_secs(ctx.config.dispatch.timeout.as_secs());
    // A wait for a person (marked by the client's hook) does not count
    // against the timeout: it lasts until the agent prints again.
    let paused = std::sync::atomic::AtomicU64::new(run.waited_secs);
    let mut person = PersonWaitWatch::new(run.waited_secs);
    let mut purpose = PurposeWatch::default();
    let mut stall = StallWatch::new(
        Duration::from_secs(ctx.config.dispatch.stall_after.as_secs()),
        agent.pid(),
    );
    let mut watch = || {
        let (lines, moving, on_limit, last) = seen
            .lock()
            .map(|s| (s.lines, s.moving, s.retrying_on_limit, s.last_move.clone()))
            .unwrap_or_default();
        let total = person.look(ctx, &run.id, lines);
        paused.store(total, std::sync::atomic::Ordering::SeqCst);
        if let Some(why) = purpose.look(ctx, run) {
            return Some(Stopped::Cancelled(why));
        }
        if let Some(stopped) = stall.look(moving, person.waiting(), on_limit, last.as_deref()) {
            return Some(stopped);
        }
        let allowance = allowance.as_ref()?;
        let spent = spent(&mut rollout)?;
        // Stopped before the call that would cross the bound: the next
        // may cost as much as the dearest so far.
        let spent_all = format!(
            "it had spent ${:.2} of the ${:.2} {} left",
            spent.usd, allowance.usd, allowance.bound
        );
        if spent.usd >= allowance.usd {
            Some(Stopped::Watch(spent_all))
        } else {
            (spent.usd + spent.largest_usd >= allowance.usd).then(|| {
                Stopped::Watch(format!(
                    "{spent_all}, and its next model call could cost ${:.2} (its dearest so far)",
                    spent.largest_usd
                ))
            })
        }
    };
    let ended = supervise::wait(agent, timeout, &mut watch, &paused)
        .map_err(|err| format!("lost the agent: {err}"))?;
    person.end(ctx, &run.id);
    let output = crate::os::safe_file::read_state(&stdout).unwrap_or_default();
    let mut report = agents::read_output(profile.output, &output);
    let seen = seen
        .lock()
        .map(|mut s| std::mem::take(&mut *s))
        .unwrap_or_default();
    // What the Codex thread's rollout says at the end, read once; what
    // Claude Code's responses cost, priced once.
    let codex = match (&mut rollout, seen.thread.as_deref()) {
        (Some(rollout), Some(thread)) => Some(rollout.read(thread).clone()),
        _ => None,
    };
    let metered = seen.metered(&price);
    if report.cost_total_usd.is_none() && report.session_usage.is_none() {
        // It ended before it said what it cost: what it showed it used.
        match &codex {
            Some(state) => {
                report.session_usage = state.totals;
                report.limited |= state.limited;
                report.limit_resets_at = report.limit_resets_at.or(state.limit_resets_at);
            }
            None => {
                let usage = seen.usage();
                report.run_usage = (usage != agents::Usage::default()).then_some(usage);
                report.run_cost_usd = Some(metered.usd).filter(|_| report.run_usage.is_some());
            }
        }
    }
    // The model a Codex thread ran, to price its tokens.
    if let Some(state) = &codex {
        report.model = state.model.clone();
    }
    let unknown = match &report.model {
        Some(model) if matches!(price(Some(model)), Priced::Unknown(_)) => vec![model.clone()],
        Some(_) => Vec::new(),
        None => metered.unknown_models,
    };
    if let Some(note) =
        crate::agents::prices::unknown_note(&unknown).filter(|_| report.cost_total_usd.is_none())
    {
        report.result = Some(match report.result.take() {
            Some(result) => format!("{result}\n({note})"),
            None => format!("({note})"),
        });
    }
    if report.limited && report.limit_resets_at.is_none() {
        report.limit_resets_at = match &codex {
            Some(state) => state.limit_resets_at,
            None => seen.limit_resets_at,
        };
    }
    Ok((Some(ended.exit), ended.stopped, report))
}

/// The longest a run's waits for a person add to its timeout, all told.
const PERSON_WAIT_MAX_SECS: u64 = 24 * 3600;

/// A run's signs of life: a line of its client's output that shows it
/// moving, its processes at work (processor time, asked every
/// [`StallWatch::PROBE`]), or a wait for a person. None for `after` is a
/// stall; one spent only retrying requests a rate limit refused is a
/// usage limit.
struct StallWatch {
    /// `dispatch.stall_after`; zero: never.
    after: Duration,
    /// The session the agent leads (its pid: it was started with setsid).
    session: u32,
    last_sign: std::time::Instant,
    moving: u64,
    /// The session's processor time at the last probe, and when.
    probed: Option<(std::time::Instant, Duration)>,
}

impl StallWatch {
    /// How often the processor time is asked (a scan of the processes).
    const PROBE: Duration = Duration::from_secs(30);
    /// The share of one processor its processes must have used since the
    /// last probe to count as at work: a client waiting on the network
    /// uses next to none, a build or a test suite far more.
    const BUSY_PERCENT: u32 = 5;

    fn new(after: Duration, session: u32) -> StallWatch {
        StallWatch {
            after,
            session,
            last_sign: std::time::Instant::now(),
            moving: 0,
            probed: None,
        }
    }

    fn look(
        &mut self,
        moving: u64,
        waiting_for_person: bool,
        retrying_on_limit: bool,
        last: Option<&str>,
    ) -> Option<Stopped> {
        if self.after.is_zero() {
            return None;
        }
        let now = std::time::Instant::now();
        if moving != self.moving || waiting_for_person {
            self.moving = moving;
            self.last_sign = now;
        }
        let probe_every = Self::PROBE
            .min(self.after / 4)
            .max(Duration::from_millis(250));
        if self.probed.is_none_or(|(at, _)| now >= at + probe_every) {
            let cpu = crate::os::process::session_cpu(self.session);
            if let (Some((at, before)), Some(cpu)) = (self.probed, cpu)
                && cpu.saturating_sub(before) * 100 >= (now - at) * Self::BUSY_PERCENT
            {
                self.last_sign = now;
            }
            self.probed = cpu.map(|cpu| (now, cpu));
        }
        let silent = now - self.last_sign;
        if silent < self.after {
            return None;
        }
        let minutes = crate::model::duration::HumanDuration(silent.as_secs());
        let after = last.map_or_else(String::new, |last| format!(" after: {last}"));
        Some(if retrying_on_limit {
            Stopped::LimitRetries(format!(
                "it only retried requests its rate limit refused for {minutes}{after}"
            ))
        } else {
            Stopped::Stalled(format!("no sign of life for {minutes}{after}"))
        })
    }
}

/// When an open run's client last printed: the newer time of its output
/// files, which the supervisor writes as the output comes.
pub fn last_output(ctx: &Context, run: &Run) -> Option<chrono::DateTime<chrono::Utc>> {
    let (stdout, stderr) = ctx.store.run_output_paths(&run.id);
    [stdout, stderr]
        .iter()
        .filter_map(|path| std::fs::metadata(path).ok()?.modified().ok())
        .max()
        .map(chrono::DateTime::<chrono::Utc>::from)
}

/// What makes a client retry refused requests in ways steward cannot see
/// (Claude Code's retry watchdog waits out a rate limit for hours, in
/// silence a stall could not be told from): a run does not inherit
/// variables whose names begin so. The README lists them. Settings that
/// only bound the retries (`CLAUDE_CODE_MAX_RETRIES`) stay: a client
/// retrying prints each retry, which steward reads.
const RETRY_SETTINGS: &[&str] = &["CLAUDE_CODE_RETRY_WATCHDOG"];

/// What the supervisor knows of its run's waits for a person.
struct PersonWaitWatch {
    /// Seconds waited in waits that ended.
    done: u64,
    /// The wait under way: when the supervisor saw it, and how many lines
    /// the agent had printed then.
    current: Option<(std::time::Instant, u64)>,
}

impl PersonWaitWatch {
    fn new(done: u64) -> PersonWaitWatch {
        PersonWaitWatch {
            done,
            current: None,
        }
    }

    /// Looks at the run's record: a wait the hook marked begins; one whose
    /// agent printed since is over (and recorded). The seconds waited, all
    /// told, at most [`PERSON_WAIT_MAX_SECS`].
    fn look(&mut self, ctx: &Context, id: &str, lines: u64) -> u64 {
        // A record that cannot be read now changes nothing.
        let marked = ctx.store.find_run(id).map(|r| r.person_wait.is_some());
        match (self.current, marked) {
            (None, Ok(true)) => self.current = Some((std::time::Instant::now(), lines)),
            (Some(_), Ok(false)) => self.end(ctx, id),
            (Some((_, at)), _) if lines > at => self.end(ctx, id),
            _ => {}
        }
        // A wait under way counts ahead by the watch's interval, so the
        // deadline never passes between two looks.
        let ongoing = self
            .current
            .map_or(0, |(since, _)| since.elapsed().as_secs() + 2);
        (self.done + ongoing).min(PERSON_WAIT_MAX_SECS)
    }

    /// Whether a wait for a person is under way.
    fn waiting(&self) -> bool {
        self.current.is_some()
    }

    /// Ends the wait under way, if one is: its seconds are the run's.
    fn end(&mut self, ctx: &Context, id: &str) {
        let Some((since, _)) = self.current.take() else {
            return;
        };
        self.done += since.elapsed().as_secs();
        let _ = end_person_wait(ctx, id, self.done);
    }
}

/// Records that a run's wait for a person is over.
fn end_person_wait(ctx: &Context, id: &str, waited: u64) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    tx.leave_uncommitted();
    let mut run = ctx.store.find_run(id)?;
    run.person_wait = None;
    run.waited_secs = waited;
    tx.save_run(&run)?;
    super::finish(tx)?;
    Ok(())
}

/// A run's client waits for a person (its hook says so): the run is
/// marked, and the person told once per wait (the event `run_awaits_person`,
/// notified as `permission`). Nothing for a run that ended or is another
/// machine's.
pub fn awaits_person(ctx: &Context, id: &str, what: &str) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    let Ok(mut run) = ctx.store.find_run(id) else {
        return Ok(());
    };
    if !run.is_active() || run.machine != ctx.machine_id() || run.person_wait.is_some() {
        return Ok(());
    }
    let what = crate::text::head(&crate::text::one_line(what), 300);
    run.person_wait = Some(crate::model::RunPersonWait {
        since: format_time(ctx.now),
        what: what.clone(),
    });
    tx.save_run(&run)?;
    tx.record_goal_event(
        &run.goal_id,
        &run.goal_label,
        "run_awaits_person",
        &format!("run {} ({}) waits for a person: {what}", run.id, run.agent),
    );
    super::finish(tx)?;
    Ok(())
}

/// Before a subagent starts in run `id`: `None` lets it (and counts it),
/// else why it is refused (`dispatch.max_subagents` reached).
pub fn admit_subagent(ctx: &Context, id: &str, max: u64) -> Result<Option<String>> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    tx.leave_uncommitted();
    let Ok(mut run) = ctx.store.find_run(id) else {
        return Ok(None);
    };
    if !run.is_active() || run.machine != ctx.machine_id() {
        return Ok(None);
    }
    if u64::from(run.subagents) >= max {
        return Ok(Some(format!(
            "steward: this run ({}) has started {} subagent(s), dispatch.max_subagents is {max}: do the work yourself, or record what is left with steward --actor agent assess {} --summary \"...\"",
            run.id, run.subagents, run.goal_label
        )));
    }
    run.subagents += 1;
    tx.save_run(&run)?;
    super::finish(tx)?;
    Ok(None)
}

/// Where Codex keeps its sessions: `$CODEX_HOME`, else `~/.codex`.
fn codex_home(ctx: &Context) -> PathBuf {
    ctx.env
        .var("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            ctx.env
                .var("HOME")
                .map(|home| Path::new(home).join(".codex"))
        })
        .unwrap_or_else(|| PathBuf::from(".codex"))
}

/// What run `run` may spend before it crosses a bound: what is left of
/// its goal's `max_cost_usd`, or of the day's spend cap, whichever is less.
fn allowance(ctx: &Context, run: &Run) -> Option<crate::agents::meter::Allowance> {
    let mut left: Vec<crate::agents::meter::Allowance> = Vec::new();
    if let Ok(loaded) = ctx.store.refind(&run.goal_id, &run.goal_label)
        && let Some(max) = loaded.goal.bounds.max_cost_usd
    {
        left.push(crate::agents::meter::Allowance {
            usd: (max - loaded.goal.progress.cost_usd).max(0.0),
            bound: format!("its goal's max_cost_usd (${max:.2})"),
            goals: true,
        });
    }
    if let Some(cap) = ctx.config.dispatch.max_cost_usd_per_day
        && let Ok((runs, _)) = ctx.store.runs()
    {
        let spent = super::limits::spend_last_day(ctx, &runs, ctx.clock_now())
            .map_or(cap, |spend| spend.usd);
        left.push(crate::agents::meter::Allowance {
            usd: (cap - spent).max(0.0),
            bound: format!("dispatch.max_cost_usd_per_day (${cap:.2})"),
            goals: false,
        });
    }
    left.into_iter().min_by(|a, b| a.usd.total_cmp(&b.usd))
}

/// Flags with which a client runs without any sandbox: a profile that
/// has one was given it on purpose, and runs as it is unless the sandbox
/// is required.
const NO_SANDBOX_FLAGS: [&str; 2] = ["--dangerously-bypass-approvals-and-sandbox", "--yolo"];

/// The client whose sandbox a run of `profile` gets under `mode` (`None`:
/// none). Another client has no sandbox steward knows: it runs as it is
/// in `auto`, and is refused rather than run unguarded when the sandbox is
/// required.
pub(crate) fn sandbox_of(
    mode: SandboxMode,
    profile: &agents::AgentProfile,
) -> std::result::Result<Option<agents::OutputFormat>, String> {
    let program = profile.command.first().cloned().unwrap_or_default();
    let bypass = profile
        .command
        .iter()
        .chain(&profile.resume)
        .find(|word| NO_SANDBOX_FLAGS.contains(&word.as_str()));
    match (mode, profile.output, bypass) {
        (SandboxMode::Off, ..) => Ok(None),
        (SandboxMode::Required, _, Some(flag)) => Err(format!(
            "dispatch.sandbox is required, and profile `{}` runs `{program}` with {flag}: no run starts unguarded",
            profile.name
        )),
        (SandboxMode::Auto, _, Some(_)) => Ok(None),
        (_, agents::OutputFormat::ClaudeJson | agents::OutputFormat::CodexJsonl, None) => {
            Ok(Some(profile.output))
        }
        (SandboxMode::Auto, agents::OutputFormat::Text, None) => Ok(None),
        (SandboxMode::Required, agents::OutputFormat::Text, None) => Err(format!(
            "dispatch.sandbox is required, and steward knows no sandbox for `{program}` (output: text): no run starts unguarded"
        )),
    }
}

/// Why the runs of the dispatch profiles would start without a sandbox
/// although `dispatch.sandbox` is `auto`: a profile steward knows no
/// sandbox for, one that turns its client's off, or a Claude Code that
/// cannot start its own here (bubblewrap and socat missing on Linux). For
/// `doctor`, `status` and `tick` to say, until it changes.
pub fn sandbox_gaps(ctx: &Context) -> Vec<String> {
    let dispatch = &ctx.config.dispatch;
    if !dispatch.enabled || dispatch.sandbox != SandboxMode::Auto {
        return Vec::new();
    }
    let mut gaps = Vec::new();
    for name in std::iter::once(&dispatch.agent).chain(&dispatch.fallback_agent) {
        let Some(profile) = ctx.config.agent(name) else {
            continue;
        };
        match sandbox_of(SandboxMode::Auto, profile) {
            Ok(None) => gaps.push(format!(
                "runs of agent profile `{name}` start without a sandbox (steward knows none for it, or it turns its client's off): the agent's shell can write state/ and steward.yaml; set dispatch.sandbox: required to refuse them"
            )),
            Ok(Some(agents::OutputFormat::ClaudeJson))
                if cfg!(target_os = "linux") && !claude_sandbox_available(ctx) =>
            {
                gaps.push(format!(
                    "runs of agent profile `{name}` start without Claude Code's sandbox: bubblewrap and socat are not both installed (`apt-get install bubblewrap socat`); its Edit rules still hold, its shell does not"
                ))
            }
            _ => {}
        }
    }
    gaps
}

/// Whether Claude Code can start its sandbox here: on Linux it needs
/// `bwrap` and `socat` on the `PATH`; on macOS it uses the system's own
/// (Seatbelt, `sandbox-exec`).
fn claude_sandbox_available(ctx: &Context) -> bool {
    cfg!(target_os = "macos") || ["bwrap", "socat"].iter().all(|program| found(ctx, program))
}

/// Why profile `agent`'s program cannot start here (not installed, not
/// on the `PATH` runs get, not executable): a run would only fail.
pub fn missing_program(ctx: &Context, agent: &str) -> Option<String> {
    let program = ctx.config.agent(agent)?.command.first()?.clone();
    (!found(ctx, &program)).then(|| {
        format!(
            "agent {agent}: `{program}` is not installed here (not an executable {}): install it, or point agents.{agent}.command or dispatch.agent elsewhere",
            if program.contains('/') {
                "file, relative to the store's root"
            } else {
                "on the PATH steward runs with"
            }
        )
    })
}

/// Whether `program` is an executable file: a path (relative to the
/// root, where runs start), or a name on the `PATH`.
fn found(ctx: &Context, program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(&ctx.root.join(program));
    }
    let path = ctx.env.var("PATH").unwrap_or("/usr/bin:/bin");
    std::env::split_paths(path).any(|dir| executable(&dir.join(program)))
}

/// `argv` run in `client`'s sandbox with the store's state read-only
/// (`dispatch.sandbox`): Claude Code with a settings file steward writes
/// under `state/cache/` (which the sandbox keeps read-only), Codex with
/// the permission profile and steward's MCP server.
fn sandboxed(
    ctx: &Context,
    client: agents::OutputFormat,
    argv: Vec<String>,
    mode: SandboxMode,
    dispatch_id: &str,
    worktree: Option<&crate::model::RunWorktree>,
) -> std::result::Result<Vec<String>, String> {
    let program = argv.first().cloned().unwrap_or_default();
    // A run in a worktree commits on its branch: those parts of the git
    // directory are its to write.
    let writable = worktree
        .map(|w| super::worktree::git_writable(ctx, w))
        .unwrap_or_default();
    match client {
        agents::OutputFormat::ClaudeJson => {
            // Machine state (its paths are this machine's), never committed.
            let cache = ctx.store.state_dir.join("cache");
            crate::store::cache_dir_ready(&cache);
            // A run in a worktree has settings of its own: runs in
            // parallel each name their own worktree.
            let settings = match worktree {
                Some(_) => ctx
                    .root
                    .join(cache.join(format!("claude-sandbox-{dispatch_id}.json"))),
                None => ctx.root.join(cache.join("claude-sandbox.json")),
            };
            let key_dir = ctx.env.user_home().map(|h| crate::store::key::key_dir(&h));
            let mut given = crate::os::sandbox::claude_settings(
                &ctx.root,
                key_dir.as_deref(),
                mode == SandboxMode::Required,
            );
            if let Some(worktree) = worktree {
                crate::os::sandbox::claude_in_worktree(
                    &mut given,
                    &ctx.root,
                    &super::worktree::state_entries(ctx),
                    &writable,
                    &super::worktree::git_denied(ctx, worktree),
                );
            }
            // The run's own subagents and waits for a person reach steward
            // whatever the working directory's settings say.
            let exe = crate::os::process::own_binary().map_err(|err| err.to_string())?;
            given["hooks"] = run_hooks(&exe);
            // Steward's MCP tools, which Claude Code starts outside its
            // sandbox: how a run records when its shell chains a command
            // before `steward`, which the sandbox keeps in; and `steward`
            // alone, which runs outside the sandbox and so is not among
            // the commands it allows without asking. Nothing else: the
            // sandbox allows the rest of Bash, the workspace's own
            // settings whatever they allow.
            given["permissions"]["allow"] = serde_json::json!(["mcp__steward", "Bash(steward:*)"]);
            let text = serde_json::to_string_pretty(&given).expect("settings serialize");
            ctx.store
                .write_private(&settings, &text)
                .map_err(|err| format!("cannot write the sandbox settings: {err}"))?;
            let mut sandboxed = vec![program];
            sandboxed.extend(["--settings".to_string(), settings.display().to_string()]);
            // `--mcp-config` takes every word up to the next option: only
            // where an option (or nothing) follows.
            if argv.get(1).is_none_or(|next| next.starts_with('-')) {
                sandboxed.extend([
                    "--mcp-config".to_string(),
                    crate::os::sandbox::claude_mcp_config(&ctx.root, &exe, dispatch_id).to_string(),
                ]);
            }
            sandboxed.extend(argv.into_iter().skip(1));
            Ok(sandboxed)
        }
        agents::OutputFormat::CodexJsonl => {
            let steward = crate::os::process::own_binary().map_err(|err| err.to_string())?;
            let argv = crate::os::sandbox::without_sandbox_flag(&argv);
            let at = argv
                .iter()
                .position(|word| word == "exec")
                .map_or(1, |i| i + 1);
            let mut sandboxed = argv[..at].to_vec();
            let key_dir = ctx.env.user_home().map(|h| crate::store::key::key_dir(&h));
            sandboxed.extend(crate::os::sandbox::codex_args(
                &ctx.root,
                &steward,
                key_dir.as_deref(),
                Some(dispatch_id),
                &writable,
            ));
            // Codex gives its MCP servers only the environment it names: a
            // clock fixed for a test (the `testing` feature's STEWARD_NOW)
            // reaches steward's server too, or its events would carry
            // another day than the run's.
            if let Some(now) = ctx.env.fixed_clock() {
                let now = serde_json::to_string(now).expect("strings serialize");
                sandboxed.extend([
                    "-c".to_string(),
                    format!("mcp_servers.steward.env.STEWARD_NOW={now}"),
                ]);
            }
            sandboxed.extend(argv[at..].iter().cloned());
            Ok(sandboxed)
        }
        agents::OutputFormat::Text => Ok(argv),
    }
}

/// The Claude Code hooks a run steward starts is given in its settings:
/// its subagents are obligations of its goal, `dispatch.max_subagents`
/// holds, and a wait for a person is told.
fn run_hooks(exe: &Path) -> serde_json::Value {
    let command = format!(
        "{} hook claude-code",
        crate::text::shell_word(&exe.display().to_string())
    );
    let group = |matcher: Option<&str>| {
        let mut group =
            serde_json::json!({"hooks": [{"type": "command", "command": command, "timeout": 30}]});
        if let Some(matcher) = matcher {
            group["matcher"] = serde_json::json!(matcher);
        }
        serde_json::json!([group])
    };
    serde_json::json!({
        "SubagentStart": group(None),
        "SubagentStop": group(None),
        "PreToolUse": group(Some("Agent|Task")),
        "Notification": group(Some("permission_prompt|elicitation_dialog")),
    })
}

/// Keeps the agent's process in the run record, so `runs kill` and `tick`
/// can find its process group.
fn record_agent(ctx: &Context, started: &Run) -> Result<()> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    tx.leave_uncommitted();
    let mut run = ctx.store.find_run(&started.id)?;
    run.agent_pid = started.agent_pid;
    run.agent_start = started.agent_start;
    run.worktree = started.worktree.clone();
    tx.save_run(&run)?;
    super::finish(tx)?;
    Ok(())
}

/// What the session cost before this run, as the last run of the same
/// session recorded it.
fn previous_session_total(
    ctx: &Context,
    run: &Run,
    session: Option<&str>,
) -> Option<SessionTotals> {
    let session = session?;
    let (runs, _) = ctx.store.runs().ok()?;
    runs.iter()
        .filter(|r| r.id != run.id && r.session.as_deref() == Some(session))
        .filter_map(|r| r.session_cost_total)
        .next_back()
        .map(|cost_usd| SessionTotals { cost_usd })
}

/// Records a run's end: the run record, and on its goal the cost, a failure
/// for a run that ended badly, a history line and an event with the
/// dispatch id; then the limits (a cost over `max_cost_usd` fails the goal).
pub fn record_end(
    tx: &mut Transaction<'_>,
    run: &Run,
    goal: Option<&LoadedGoal>,
    cost: f64,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    tx.save_run(run)?;
    let Some(loaded) = goal else {
        return Ok(());
    };
    let outcome = run.outcome.unwrap_or(RunOutcome::Error);
    let progress = &loaded.goal.progress;
    let mut detail = format!("run {} ({}) ended {}", run.id, run.agent, outcome.as_str());
    if cost > 0.0 {
        detail.push_str(&format!(", cost ${cost:.2}"));
    }
    if let Some(result) = &run.result {
        detail.push_str(&format!(
            ": {}",
            crate::text::head(&crate::text::one_line(result), 200)
        ));
    }
    let mut change = GoalChange::new("run_ended", detail)
        .by(Actor::Steward)
        .for_run(&run.id)
        .always();
    if cost > 0.0 {
        change.push(Edit::Progress(ProgressField::CostUsd(
            ((progress.cost_usd + cost) * 1e6).round() / 1e6,
        )));
    }
    // A run that failed or hung is the follow-up ladder's to handle (a
    // resend, then another agent, then a person), not a failure of the
    // goal's work: consecutive_failures counts what agents and subagents
    // report.
    if loaded.goal.status.is_terminal() {
        // Closed while it ran (completed by the agent, failed at a bound):
        // it keeps the run's end and what it cost.
        tx.save(loaded, change)?;
        return Ok(());
    }
    if let Some(saved) = tx.save(loaded, change)? {
        limits::enforce_at(tx, saved, now)?;
    }
    Ok(())
}

/// Stops a run's processes: its supervisor (which stops the agent and what
/// it started), the agent's process group in case the supervisor is gone,
/// and whatever else still carries the run's dispatch id (what left its
/// group and session, `setsid`). Only a run this machine started, by a
/// record it can verify, and only the very processes it started (same
/// pid, start time and boot): a record that names another process, or
/// comes from another machine, signals nothing. Whether anything was.
pub fn stop_processes(ctx: &Context, run: &Run) -> bool {
    if !run.verified || run.machine != ctx.machine_id() {
        return false;
    }
    let mut signalled = false;
    if let Some(supervisor) = run.supervisor_process() {
        // SIGTERM asks the supervisor to stop its agent.
        signalled |= supervisor.signal(libc::SIGTERM, false);
    }
    if let Some(agent) = run.agent_process() {
        signalled |= agent.signal(libc::SIGKILL, true);
    }
    if run.supervisor_process().is_some_and(|s| !s.is_running()) {
        // Its supervisor is gone: what the run left behind is ours to end.
        for pid in crate::os::process::carrying("STEWARD_DISPATCH_ID", &run.id) {
            crate::os::process::kill_with_group(pid);
            signalled = true;
        }
    }
    signalled
}

/// The runs `runs` shows: those under way or started in the last day,
/// every one with `all`; and the run records that could not be read.
pub fn listed(ctx: &Context, all: bool) -> Result<(Vec<Run>, Vec<crate::error::FileProblem>)> {
    let (runs, problems) = ctx.store.runs()?;
    let recent = format_time(ctx.now - chrono::Duration::days(1));
    let shown = (runs.into_iter())
        .filter(|r| all || r.is_active() || r.created_at >= recent)
        .collect();
    Ok((shown, problems))
}

/// How often a run's supervisor looks whether the run still has a goal to
/// work for.
const PURPOSE_EVERY: Duration = Duration::from_secs(3);

/// Whether a run still has a goal to work for: its goal open, not paused
/// and still there, and steward on (`enabled`, read again from the
/// configuration files, which a person may have changed since the run
/// started). Looked at every [`PURPOSE_EVERY`].
#[derive(Default)]
struct PurposeWatch {
    next: Option<std::time::Instant>,
}

impl PurposeWatch {
    /// Why the run should stop, when it should.
    fn look(&mut self, ctx: &Context, run: &Run) -> Option<String> {
        let now = std::time::Instant::now();
        if self.next.is_some_and(|next| now < next) {
            return None;
        }
        self.next = Some(now + PURPOSE_EVERY);
        if !ctx.enabled_now() {
            return Some("steward was turned off (enabled: false)".to_string());
        }
        match ctx.store.refind(&run.goal_id, &run.goal_label) {
            Ok(loaded) => cancelled_by_status(&loaded.goal.status),
            Err(Error::GoalNotFound { .. }) => Some(format!("goal {} is gone", run.goal_label)),
            // A goal file that cannot be read now: the next look decides.
            Err(_) => None,
        }
    }
}

/// Why a run of a goal with `status` should stop: a goal paused, or closed
/// by anything but its completion (the run that completed it ends by
/// itself).
fn cancelled_by_status(status: &Status) -> Option<String> {
    match status {
        Status::Paused => Some("its goal was paused".to_string()),
        Status::Abandoned => Some("its goal was abandoned".to_string()),
        Status::Failed => Some("its goal failed".to_string()),
        _ => None,
    }
}

/// Stops the runs of `goal` under way on this machine, for `why`: each is
/// marked, its supervisor asked to stop it (it records `cancelled`), and a
/// run whose supervisor is gone is ended here.
pub fn cancel_runs(ctx: &Context, tx: &mut Transaction<'_>, goal: &Goal, why: &str) -> Result<()> {
    let (runs, _) = ctx.store.runs()?;
    for mut run in runs {
        if run.goal_id != goal.id || !run.is_active() || run.machine != ctx.machine_id() {
            continue;
        }
        run.cancelled = Some(why.to_string());
        if run.supervisor_process().is_some_and(|p| p.is_running()) {
            tx.save_run(&run)?;
            stop_processes(ctx, &run);
        } else {
            stop_processes(ctx, &run);
            run.ended_at = Some(format_time(ctx.now));
            run.outcome = Some(RunOutcome::Cancelled);
            run.result = Some(format!("cancelled: {why}"));
            let goal = tx.refind(&run.goal_id, &run.goal_label).ok();
            record_end(tx, &run, goal.as_ref(), 0.0, ctx.now)?;
        }
    }
    Ok(())
}

/// `runs kill ID`: asks the run's supervisor to stop the agent and all it
/// started; a run whose supervisor is gone is ended here. A person's
/// command.
pub fn kill(ctx: &Context, reference: &str) -> Result<(Run, Notices)> {
    let mut tx = ctx.transaction()?;
    let mut run = ctx.store.find_run(reference)?;
    super::authority::person_only(ctx, "stop a run", || {
        format!("steward runs kill {}", run.id)
    })?;
    if !run.is_active() {
        return Err(Error::WrongStatus {
            label: run.id.clone(),
            why: format!("ended already ({})", run.state_name()),
        });
    }
    if run.machine != ctx.machine_id() {
        return Err(Error::WrongStatus {
            label: run.id.clone(),
            why: format!(
                "runs on machine {}: stop it there (this machine signals only its own runs)",
                run.machine
            ),
        });
    }
    run.kill_requested = true;
    let supervised = run.supervisor_process().is_some_and(|p| p.is_running());
    if supervised {
        tx.save_run(&run)?;
        stop_processes(ctx, &run);
    } else {
        stop_processes(ctx, &run);
        run.ended_at = Some(format_time(ctx.now));
        run.outcome = Some(RunOutcome::Killed);
        run.result = Some("killed by a person".to_string());
        let goal = tx.refind(&run.goal_id, &run.goal_label).ok();
        record_end(&mut tx, &run, goal.as_ref(), 0.0, ctx.now)?;
    }
    let notices = super::finish(tx)?;
    Ok((run, notices))
}
