//! Dispatch (steward-design(7), "Record, then start"): after the watchdog
//! pass, `tick` follows up the runs under way, decides which goals to run
//! (the ladder in `crate::rules::ladder`), records each run and counts it under the
//! lock, and only then — the lock released — starts a supervisor for each. A
//! crash between the two leaves a recorded run without a process, which the
//! next `tick` starts under the same dispatch id without counting it again.

use std::path::Path;
use std::process::{Command, Stdio};

use chrono::{DateTime, Utc};

use super::{Notices, limits, run};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::plan::Node;
use crate::model::{
    Actor, Edit, Escalation, Goal, GoalChange, ProgressField, Run, RunKind, RunOutcome, RunState,
    Status, fingerprint, format_time, progress_fingerprint,
};
use crate::rules::ladder::{self, Step};
use crate::store::{LoadedGoal, Transaction};

/// What dispatch did in one pass.
#[derive(Debug, Default)]
pub struct Dispatched {
    /// Runs recorded now (to start once the lock is released).
    pub started: Vec<Run>,
    /// Runs recorded earlier whose start was interrupted: started again.
    pub resumed: Vec<Run>,
    /// Runs whose end this pass recorded (supervisor gone, overdue).
    pub ended: Vec<Run>,
    /// Goals escalated for lack of progress: (label, reason).
    pub escalated: Vec<(String, String)>,
    /// Goals left alone, and why (for `tick --dry-run` and `status`).
    pub held: Vec<(String, String)>,
    /// The day's spend reached `dispatch.max_cost_usd_per_day`.
    pub spend_capped: bool,
    /// Runs counted at the day's cap for want of a verified record
    /// ([`limits::Spend::unaccounted`]).
    pub unaccounted: Vec<String>,
    /// With `dispatch.claim: git`: runs decided but not recorded, with
    /// their instructions, until their claims win (`claim::publish`).
    pub to_claim: Vec<(Run, String)>,
}

/// Store-wide limits as they stand.
struct Room {
    /// What the runs of the last day cost ([`limits::spend_last_day`]).
    spent: f64,
    /// The runs counted at the cap among them.
    unaccounted: Vec<String>,
    parallel_left: u64,
    window_left: u64,
    window_reopens_at: Option<DateTime<Utc>>,
    spend_capped: bool,
    /// When the spend of the last day falls under the cap, as the runs
    /// that count age out of it.
    spend_frees_at: Option<DateTime<Utc>>,
}

/// Follows up the runs under way and decides what to start, recording it
/// in `tx`. `goals` are the open goals after the watchdog pass; the ones
/// this changes are replaced by their new versions.
pub fn plan(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    goals: &mut [LoadedGoal],
    dry_run: bool,
) -> Result<Dispatched> {
    let mut report = Dispatched::default();
    let (mut runs, _problems) = ctx.store.runs()?;
    follow_up_running(ctx, tx, goals, &mut runs, &mut report, dry_run)?;
    let settings = &ctx.config.dispatch;
    report.resumed = runs
        .iter()
        .filter(|r| r.state() == RunState::Pending && r.machine == ctx.machine_id())
        .cloned()
        .collect();
    if !ctx.config.enabled || !settings.enabled {
        return Ok(report);
    }
    // A profile steward.yaml names but no person here accepted runs
    // nothing (tick says why).
    if ctx.config.agent(&settings.agent).is_none() {
        return Ok(report);
    }
    let claims = if settings.claim_git {
        super::claim::read_all(ctx)
    } else {
        Vec::new()
    };
    let shared = super::fleet::shared(ctx);
    let fleet = if shared {
        super::fleet::read(ctx)
    } else {
        super::fleet::Fleet::default()
    };
    let mut room = room(ctx, &runs, limits::window(ctx)?)?;
    report.spend_capped = room.spend_capped;
    report.unaccounted = room.unaccounted.clone();
    if room.spend_capped && !dry_run && !spend_cap_told(ctx)? {
        let detail = format!(
            "runs cost ${:.2} in the last 24h, dispatch.max_cost_usd_per_day is ${:.2}: no new runs",
            room.spent,
            settings.max_cost_usd_per_day.unwrap_or_default()
        );
        // About the goal whose run spent last: what a person looks at first.
        let last = runs
            .iter()
            .filter(|r| r.cost_usd > 0.0)
            .max_by(|a, b| a.ended_at.cmp(&b.ended_at));
        match last {
            Some(run) => tx.record_goal_event(&run.goal_id, &run.goal_label, "spend_cap", &detail),
            None => tx.record_store_event("spend_cap", &detail),
        }
    }
    // Goals alike are taken by label; where machines share the store,
    // each takes them in an order of its own, so machines that pass at
    // the same moment claim different goals rather than race for the same.
    let machine = ctx.machine_id();
    let alike = |g: &Goal| {
        if !shared {
            g.label.clone()
        } else {
            crate::model::fingerprint(&format!("{machine} {}", g.id))
        }
    };
    let mut order: Vec<usize> = (0..goals.len()).collect();
    order.sort_by_cached_key(|&i| {
        let g = &goals[i].goal;
        (
            std::cmp::Reverse(OrderedWeight(ctx.config.attention_weight(&g.priority))),
            g.progress.last_assessed_at,
            alike(g),
        )
    });
    for index in order {
        let loaded = goals[index].clone();
        let goal = &loaded.goal;
        let mine: Vec<&Run> = runs.iter().filter(|r| r.goal_id == goal.id).collect();
        let all: Vec<&Run> = runs.iter().collect();
        match decide(ctx, goal, &mine, &all, &claims, &room, &fleet) {
            Decision::Hold(why) => report.held.push((goal.label.clone(), why)),
            Decision::Escalate(reason) => {
                if !dry_run {
                    let last = mine.last().map(|r| r.id.as_str());
                    match escalate(ctx, tx, &loaded, &reason, last)? {
                        Some(saved) => goals[index] = saved,
                        // Edited by hand meanwhile: the next pass decides.
                        None => continue,
                    }
                }
                report.escalated.push((goal.label.clone(), reason));
            }
            Decision::Start { run, instruction } => {
                room.parallel_left -= 1;
                room.window_left -= 1;
                runs.push((*run).clone());
                if settings.claim_git && !dry_run {
                    report.to_claim.push((*run, instruction));
                    continue;
                }
                if !dry_run {
                    match record(ctx, tx, &loaded, &run, &instruction)? {
                        Some(saved) => goals[index] = saved,
                        // Edited by hand meanwhile: no run; the next pass
                        // decides.
                        None => continue,
                    }
                }
                report.started.push(*run);
            }
        }
    }
    Ok(report)
}

/// What a pass does for one goal.
enum Decision {
    /// No run now, and why.
    Hold(String),
    /// Runs made no progress: a person must look, and why.
    Escalate(String),
    /// Start this run with this instruction.
    Start { run: Box<Run>, instruction: String },
}

/// What a pass decides for `goal`, whose runs are `mine` (of all `runs`),
/// with `room` left in the store-wide limits: the ladder's step, the
/// agent's usage limit, then the limits, the plan and the resend interval.
fn decide(
    ctx: &Context,
    goal: &Goal,
    mine: &[&Run],
    runs: &[&Run],
    claims: &[super::claim::Claim],
    room: &Room,
    fleet: &super::fleet::Fleet,
) -> Decision {
    if let Some(claim) = super::claim::held_elsewhere(ctx, claims, goal) {
        return Decision::Hold(format!(
            "claimed by {} until {} (run {})",
            claim.machine, claim.expires_at, claim.dispatch_id
        ));
    }
    if let Some(why) = super::fleet::Fleet::not_here(ctx, goal) {
        return Decision::Hold(why);
    }
    let (kind, agent, attempt, session) =
        match ladder::step(goal, mine, &ctx.config.dispatch, ctx.now) {
            Step::Wait(why) => return Decision::Hold(why),
            Step::Escalate { reason } => return Decision::Escalate(reason),
            Step::Start {
                kind,
                agent,
                attempt,
                session,
            } => (kind, agent, attempt, session),
        };
    // An agent that hit its account's usage limit waits for the reset;
    // the fallback agent works meanwhile when it has not hit one too.
    // Each machine has its own logins, and its own limits: its runs say.
    let machine = ctx.machine_id();
    let runs: Vec<&Run> = runs
        .iter()
        .copied()
        .filter(|r| r.machine == machine)
        .collect();
    let runs = runs.as_slice();
    let mut agent = agent;
    if let Some((until, limited)) = ladder::limited_agent(runs, &agent, ctx.now) {
        let fallback = ctx
            .config
            .dispatch
            .fallback_agent
            .as_ref()
            .filter(|fallback| **fallback != agent)
            .filter(|fallback| ladder::limited_agent(runs, fallback, ctx.now).is_none());
        match fallback {
            Some(fallback) => agent = fallback.clone(),
            None if limited.limit_guessed => {
                return Decision::Hold(format!(
                    "{agent} hit a usage limit without saying when it resets (run {}): steward tries again at {}",
                    limited.id,
                    format_time(until)
                ));
            }
            None => {
                return Decision::Hold(format!(
                    "{agent}'s usage limit resets at {} (run {} ended on it)",
                    format_time(until),
                    limited.id
                ));
            }
        }
    }
    // A run of a program that is not there only fails: held, and said.
    if let Some(why) = super::run::missing_program(ctx, &agent) {
        return Decision::Hold(why);
    }
    if let Some(why) = fleet.defers(ctx, goal, &agent, mine) {
        return Decision::Hold(why);
    }
    // A session goes on with the agent that had it: a follow-up's last
    // run's, or the parked session a wake names with its agent.
    let session =
        session.filter(|_| kind == RunKind::Wake || mine.last().is_some_and(|r| r.agent == agent));
    // A plan's repairs, and the first work on it, follow its planning
    // run at once: planning is not work on the goal.
    let after_planning = mine.last().is_some_and(|r| r.kind == RunKind::Plan);
    if kind != RunKind::Plan
        && !after_planning
        && let Some(until) = crate::rules::assessment::dispatch_spaced_until(goal, ctx.now)
    {
        return Decision::Hold(crate::rules::assessment::dispatch_spacing(goal, until));
    }
    if let Some(why) = refusal(ctx, goal, room) {
        return Decision::Hold(why);
    }
    let node = node_for(goal, mine, kind);
    if let Some(plan) = &goal.plan
        && kind != RunKind::Plan
        && node.is_none()
        && !plan.plan().is_done()
    {
        return Decision::Hold(
            "no node of its plan is ready: the rest is blocked or waits on other nodes (`steward plan show`)".to_string(),
        );
    }
    let instruction = super::instruction::for_run(ctx, goal, kind, session.is_some(), node, mine);
    let hash = fingerprint(&instruction);
    if let Some(recent) = resent_too_soon(ctx, mine, &hash) {
        return Decision::Hold(format!(
            "the same instruction went out at {recent} (dispatch.min_resend_interval)"
        ));
    }
    let mut run = new_run(ctx, goal, kind, &agent, attempt, session, hash);
    run.node = node.map(|n| n.id.clone());
    run.worktree = super::worktree::for_run(ctx, goal, mine, &run.id);
    let instruction = super::instruction::for_this_run(instruction, &run);
    Decision::Start {
        run: Box::new(run),
        instruction,
    }
}

/// `why`: `goal` (a label, an id, or an id's first characters) and what
/// keeps it from being worked now; nothing when a run can start.
pub fn why(ctx: &Context, goal: &str) -> Result<(LoadedGoal, Vec<String>)> {
    let mut loaded = ctx.store.resolve(goal)?;
    // As the judge sees it: changed outside steward, it waits for a person.
    if let Some(held) = ctx.store.as_judged(&loaded, ctx.now) {
        loaded.goal = Box::new(held);
    }
    let reasons = Holds::read(ctx)?.why_not(ctx, &loaded.goal);
    Ok((loaded, reasons))
}

/// What holds goals back from runs, read once for many goals (`why`,
/// `show`, `status`, MCP).
pub struct Holds {
    runs: Vec<Run>,
    claims: Vec<super::claim::Claim>,
    room: Room,
    fleet: super::fleet::Fleet,
}

/// An attention weight, ordered as `f64::total_cmp` orders it.
#[derive(PartialEq)]
struct OrderedWeight(f64);

impl Eq for OrderedWeight {}

impl PartialOrd for OrderedWeight {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderedWeight {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The fleet's records, when machines share the store.
fn fleet_of(ctx: &Context) -> super::fleet::Fleet {
    if super::fleet::shared(ctx) {
        super::fleet::read(ctx)
    } else {
        super::fleet::Fleet::default()
    }
}

/// Why nothing runs at all: steward's kill switch, and where it was set.
fn steward_off(ctx: &Context) -> Option<String> {
    (!ctx.config.enabled).then(|| {
        format!(
            "steward is off (enabled: false, {})",
            ctx.source_of("enabled")
        )
    })
}

impl Holds {
    pub fn read(ctx: &Context) -> Result<Holds> {
        let (runs, _) = ctx.store.runs()?;
        let claims = if ctx.config.dispatch.claim_git {
            super::claim::read_all(ctx)
        } else {
            Vec::new()
        };
        // A view: the window as the heartbeat counts it.
        let room = room(ctx, &runs, limits::window_seen(ctx)?)?;
        Ok(Holds {
            runs,
            claims,
            room,
            fleet: fleet_of(ctx),
        })
    }

    /// What holds every goal back now: steward or dispatch off, a profile
    /// not accepted, and the store-wide limits (the spend cap, the hourly
    /// window, `max_parallel`), each with when it lifts where it does.
    pub fn store_wide(&self, ctx: &Context) -> Vec<String> {
        let mut reasons: Vec<String> = steward_off(ctx).into_iter().collect();
        let settings = &ctx.config.dispatch;
        if !settings.enabled {
            return reasons;
        }
        if ctx.config.agent(&settings.agent).is_none() {
            reasons.push(format!(
                "dispatch.agent `{}` is not accepted on this machine (`steward config accept`)",
                settings.agent
            ));
        }
        reasons.extend(store_refusals(ctx, &self.room));
        reasons
    }

    /// Every reason `goal` gets no run at the next pass, as dispatch sees
    /// it now (none: it would get one, unless goals of a higher priority
    /// take the last slots first).
    pub fn why_not(&self, ctx: &Context, goal: &Goal) -> Vec<String> {
        let mut reasons: Vec<String> = steward_off(ctx).into_iter().collect();
        let settings = &ctx.config.dispatch;
        let dispatching = settings.enabled && ctx.config.agent(&settings.agent).is_some();
        if !settings.enabled {
            reasons.push(
                "dispatch is off (dispatch.enabled: false): no run starts by itself; an agent works it from the stewardship block, or a person runs `steward dispatch`".to_string(),
            );
        } else if !dispatching {
            reasons.push(format!(
                "dispatch.agent `{}` is not accepted on this machine (`steward config accept`)",
                settings.agent
            ));
        }
        let mine: Vec<&Run> = self.runs.iter().filter(|r| r.goal_id == goal.id).collect();
        let all: Vec<&Run> = self.runs.iter().collect();
        match decide(
            ctx,
            goal,
            &mine,
            &all,
            &self.claims,
            &self.room,
            &self.fleet,
        ) {
            Decision::Hold(why) => reasons.push(why),
            Decision::Escalate(reason) => {
                reasons.push(format!("the next pass blocks it: {reason}"));
            }
            Decision::Start { .. } => {}
        }
        if dispatching {
            // The store-wide limits hold it too, whatever else does.
            for why in refusals(ctx, goal, &self.room) {
                if !reasons.contains(&why) {
                    reasons.push(why);
                }
            }
        }
        reasons
    }
}

/// A person starts one run now (`steward dispatch`), inside every budget.
pub fn dispatch_now(
    ctx: &Context,
    reference: &str,
    agent: Option<&str>,
    dry_run: bool,
) -> Result<(Run, Notices)> {
    super::authority::person_only(ctx, "start an agent run", || {
        format!("steward dispatch {reference}")
    })?;
    if !ctx.config.enabled {
        return Err(Error::Disabled {
            from: ctx.source_of("enabled"),
            what: "no runs start",
        });
    }
    let agent = agent.unwrap_or(&ctx.config.dispatch.agent).to_string();
    if ctx.config.agent(&agent).is_none() {
        let why = if ctx.config_changes.is_some() {
            format!(
                "the agent profile `{agent}` is not accepted on this machine (see `steward config accept`)"
            )
        } else {
            format!("no agent profile `{agent}` (see `steward config`)")
        };
        return Err(Error::bad_input(crate::error::Input::Agent, why));
    }
    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let goal = &loaded.goal;
    super::refuse_terminal(goal)?;
    if !matches!(
        goal.status,
        Status::Active | Status::Stalled | Status::Verifying
    ) {
        return Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!("is {}: only a goal being worked on gets runs", goal.status),
        });
    }
    let (runs, _) = ctx.store.runs()?;
    if let Some(active) = runs.iter().find(|r| r.goal_id == goal.id && r.is_active()) {
        return Err(Error::WrongStatus {
            label: goal.label.clone(),
            why: format!("has run {} under way ({})", active.id, active.state_name()),
        });
    }
    if let Some(why) = refusal(ctx, goal, &room(ctx, &runs, limits::window(ctx)?)?) {
        return Err(Error::DispatchRefused {
            label: goal.label.clone(),
            why,
        });
    }
    let claiming = ctx.config.dispatch.claim_git;
    if claiming
        && let Some(claim) = super::claim::held_elsewhere(ctx, &super::claim::read_all(ctx), goal)
    {
        return Err(Error::DispatchRefused {
            label: goal.label.clone(),
            why: format!(
                "{} claimed it until {} (run {})",
                claim.machine, claim.expires_at, claim.dispatch_id
            ),
        });
    }
    let node = node_for(goal, &[], RunKind::Manual);
    let instruction = super::instruction::for_run(ctx, goal, RunKind::Manual, false, node, &[]);
    let mut run = new_run(
        ctx,
        goal,
        RunKind::Manual,
        &agent,
        0,
        None,
        fingerprint(&instruction),
    );
    run.node = node.map(|n| n.id.clone());
    // In a worktree of its own, as the runs tick starts
    // (`dispatch.worktree`).
    let mine: Vec<&Run> = runs.iter().filter(|r| r.goal_id == goal.id).collect();
    run.worktree = super::worktree::for_run(ctx, goal, &mine, &run.id);
    let instruction = super::instruction::for_this_run(instruction, &run);
    if dry_run {
        return Ok((run, Notices::default()));
    }
    if claiming {
        drop(tx);
        let (won, mut notices) =
            super::claim::claim(ctx, vec![(run.clone(), instruction)], record_claimed)?;
        notices.warnings.extend(start_supervisors(ctx, &won));
        if won.is_empty() {
            return Err(Error::DispatchRefused {
                label: goal.label.clone(),
                why: notices.warnings.join("; "),
            });
        }
        return Ok((run, notices));
    }
    record(ctx, &mut tx, &loaded, &run, &instruction)?;
    let mut notices = super::finish(tx)?;
    notices
        .warnings
        .extend(start_supervisors(ctx, std::slice::from_ref(&run)));
    Ok((run, notices))
}

/// What keeps a goal from one more run now, if anything.
fn refusal(ctx: &Context, goal: &Goal, room: &Room) -> Option<String> {
    refusals(ctx, goal, room).into_iter().next()
}

/// Every limit that keeps a goal from one more run now.
fn refusals(ctx: &Context, goal: &Goal, room: &Room) -> Vec<String> {
    let mut refusals = store_refusals(ctx, room);
    if goal.progress.dispatches >= goal.budget.max_dispatches {
        refusals.push(format!(
            "its dispatch budget is spent ({}/{})",
            goal.progress.dispatches, goal.budget.max_dispatches
        ));
    }
    refusals
}

/// The store-wide limits that keep every goal from a run now.
fn store_refusals(ctx: &Context, room: &Room) -> Vec<String> {
    let mut refusals = Vec::new();
    if room.spend_capped {
        let until = room
            .spend_frees_at
            .map_or_else(String::new, |at| format!(" until {}", format_time(at)));
        refusals.push(format!(
            "the day's spend reached dispatch.max_cost_usd_per_day (${:.2}){until}",
            ctx.config.dispatch.max_cost_usd_per_day.unwrap_or_default()
        ));
    }
    if room.parallel_left == 0 {
        refusals.push(format!(
            "{} run(s) under way (dispatch.max_parallel)",
            ctx.config.dispatch.max_parallel
        ));
    }
    if room.window_left == 0 {
        let until = room
            .window_reopens_at
            .map_or_else(String::new, |at| format!(" until {}", format_time(at)));
        refusals.push(format!(
            "the hourly dispatch window is spent ({} runs, global_limits.max_dispatches_per_hour){until}",
            ctx.config.global_limits.max_dispatches_per_hour
        ));
    }
    refusals
}

/// How much room the store-wide limits leave, with `recent` the times of
/// the hour's dispatches ([`limits::window`]).
fn room(ctx: &Context, runs: &[Run], recent: Vec<String>) -> Result<Room> {
    let settings = &ctx.config.dispatch;
    // Run slots are each machine's: another machine's runs use its own.
    let machine = ctx.machine_id();
    let active = (runs.iter())
        .filter(|r| r.is_active() && r.machine == machine)
        .count() as u64;
    let window = recent.len() as u64;
    let spend = limits::spend_last_day(ctx, runs, ctx.now)?;
    let spent = spend.usd;
    let spend_capped = settings
        .max_cost_usd_per_day
        .is_some_and(|cap| spent >= cap);
    Ok(Room {
        spent,
        unaccounted: spend.unaccounted,
        parallel_left: settings.max_parallel.saturating_sub(active),
        window_left: ctx
            .config
            .global_limits
            .max_dispatches_per_hour
            .saturating_sub(window),
        // An hour after the oldest dispatch in it, this pass's own if the
        // pass fills it.
        window_reopens_at: Some(
            recent
                .first()
                .and_then(|ts| crate::model::parse_time(ts))
                .unwrap_or(ctx.now)
                + chrono::Duration::hours(1),
        ),
        spend_capped,
        spend_frees_at: spend_capped
            .then(|| {
                spend_frees_at(
                    runs,
                    ctx.now,
                    settings.max_cost_usd_per_day.unwrap_or_default(),
                )
            })
            .flatten(),
    })
}

/// Whether the spend cap was recorded in the last day already.
fn spend_cap_told(ctx: &Context) -> Result<bool> {
    let since = format_time(ctx.now - chrono::Duration::days(1));
    let recent = ctx
        .store
        .log()
        .read_since_naming(&since, Some("spend_cap"))?;
    Ok(recent.iter().any(|e| e.action == "spend_cap"))
}

/// When what runs cost in the 24 hours before falls under `cap` again, as
/// the oldest of them age out.
fn spend_frees_at(runs: &[Run], now: DateTime<Utc>, cap: f64) -> Option<DateTime<Utc>> {
    let since = format_time(now - chrono::Duration::days(1));
    let mut counted: Vec<(&str, f64)> = runs
        .iter()
        .filter_map(|r| Some((r.ended_at.as_deref()?, r.cost_usd)))
        .filter(|(ended, cost)| *ended >= since.as_str() && *cost > 0.0)
        .collect();
    counted.sort_by(|a, b| a.0.cmp(b.0));
    let mut left = counted.iter().fold(0.0, |total, (_, cost)| total + cost);
    for (ended, cost) in counted {
        left -= cost;
        if left < cap {
            return crate::model::parse_time(ended).map(|at| at + chrono::Duration::days(1));
        }
    }
    None
}

/// The same instruction sent within `min_resend_interval`: when.
fn resent_too_soon(ctx: &Context, runs: &[&Run], hash: &str) -> Option<String> {
    let since = format_time(ctx.now - ctx.config.dispatch.min_resend_interval.to_chrono());
    runs.iter()
        .filter(|r| r.instruction_hash == hash && r.created_at > since)
        .map(|r| r.created_at.clone())
        .next_back()
}

fn new_run(
    ctx: &Context,
    goal: &Goal,
    kind: RunKind,
    agent: &str,
    attempt: u32,
    session: Option<String>,
    instruction_hash: String,
) -> Run {
    let mut id = String::new();
    while id.is_empty() || ctx.store.run_path(&id).exists() {
        id = format!("run-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    }
    Run {
        id,
        goal_id: goal.id.clone(),
        goal_label: goal.label.clone(),
        agent: agent.to_string(),
        kind,
        node: None,
        attempt,
        instruction_hash,
        fingerprint: progress_fingerprint(goal),
        machine: ctx.machine_id(),
        created_at: format_time(ctx.now),
        started_at: None,
        supervisor_pid: None,
        agent_pid: None,
        session,
        ended_at: None,
        exit: None,
        outcome: None,
        result: None,
        cost_usd: 0.0,
        session_cost_total: None,
        input_tokens: None,
        output_tokens: None,
        reported: None,
        limited_until: None,
        limit_guessed: false,
        kill_requested: false,
        cancelled: None,
        boot: None,
        supervisor_start: None,
        agent_start: None,
        person_wait: None,
        waited_secs: 0,
        subagents: 0,
        worktree: None,
        sig: None,
        verified: false,
    }
}

/// Records runs whose claims won, each counted as a dispatch of its goal.
pub fn record_claimed(ctx: &Context, runs: &[(Run, String)]) -> Result<Notices> {
    let mut tx = ctx.transaction_by(Actor::Steward)?;
    for (run, instruction) in runs {
        let loaded = tx.refind(&run.goal_id, &run.goal_label)?;
        record(ctx, &mut tx, &loaded, run, instruction)?;
    }
    super::finish(tx)
}

/// Counts the dispatch and records the run, under the lock; the goal as
/// written, or `None` (and no run) when the goal's file changed since it
/// was read and `tx` leaves such goals.
fn record(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    loaded: &LoadedGoal,
    run: &Run,
    instruction: &str,
) -> Result<Option<LoadedGoal>> {
    let goal = &loaded.goal;
    let change = GoalChange::new(
        "dispatched",
        format!("{} run {} to {}", run.kind.as_str(), run.id, run.agent),
    )
    .by(Actor::Steward)
    .for_run(&run.id)
    .with(Edit::Progress(ProgressField::Dispatches(
        goal.progress.dispatches.saturating_add(1),
    )))
    .with(Edit::Progress(ProgressField::LastDispatchedAt(ctx.now)));
    let Some(saved) = tx.save(loaded, change)? else {
        return Ok(None);
    };
    tx.save_run(run)?;
    ctx.store
        .write_private(&run::prompt_path(ctx, &run.id), instruction)?;
    Ok(Some(limits::enforce(ctx, tx, saved)?))
}

/// Runs made no progress: the goal waits for a person (kind `no_progress`).
fn escalate(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    loaded: &LoadedGoal,
    reason: &str,
    last_run: Option<&str>,
) -> Result<Option<LoadedGoal>> {
    let mut change = GoalChange::new("blocked", format!("no_progress: {reason}"))
        .by(Actor::Steward)
        .with(Edit::Status(Status::Blocked))
        .with(Edit::Escalation(Some(Escalation {
            kind: "no_progress".to_string(),
            reason: reason.to_string(),
            at: Some(ctx.now),
        })));
    if let Some(id) = last_run {
        change = change.for_run(id);
    }
    tx.save(loaded, change)
}

/// Runs whose supervisor is gone, or that ran past their time, are ended
/// here; their agents are stopped.
fn follow_up_running(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    goals: &[LoadedGoal],
    runs: &mut [Run],
    report: &mut Dispatched,
    dry_run: bool,
) -> Result<()> {
    let grace = ctx.config.obligations.grace.as_secs();
    for run in runs.iter_mut() {
        if run.state() != RunState::Running || run.machine != ctx.machine_id() {
            continue;
        }
        // A record is trusted to name a live supervisor only with its
        // start time and boot: a bare pid may be anyone's by now.
        let supervisor_alive = match run.supervisor_process() {
            Some(process) => process.is_running(),
            None => run.supervisor_pid.is_some_and(crate::os::process::is_alive),
        };
        let overdue = ladder::overdue(run, &ctx.config.dispatch, grace, ctx.now);
        let (outcome, why) = match (supervisor_alive, overdue) {
            (false, _) => (RunOutcome::Killed, "its supervisor is gone"),
            (true, true) => (RunOutcome::Timeout, "it ran past dispatch.timeout"),
            (true, false) => continue,
        };
        if dry_run {
            report.ended.push(run.clone());
            continue;
        }
        run::stop_processes(ctx, run);
        run.ended_at = Some(format_time(ctx.now));
        run.outcome = Some(outcome);
        run.result = Some(format!("ended by tick: {why}"));
        let goal = goals.iter().find(|g| g.goal.id == run.goal_id);
        run::record_end(tx, run, goal, 0.0, ctx.now)?;
        report.ended.push(run.clone());
    }
    Ok(())
}

/// The plan node a run works on: a follow-up keeps the node of the run it
/// follows while that node is open; otherwise the first of the plan's next
/// work. `None` without a plan, or when nothing in it is ready.
fn node_for<'g>(goal: &'g Goal, mine: &[&Run], kind: RunKind) -> Option<&'g Node> {
    let plan = goal.plan.as_ref()?.plan();
    if kind == RunKind::Plan {
        return None;
    }
    if matches!(
        kind,
        RunKind::Nudge | RunKind::Resend | RunKind::Reassign | RunKind::Wake
    ) && let Some(node) = mine
        .last()
        .and_then(|run| run.node.as_deref())
        .and_then(|id| plan.node(id))
        .filter(|node| !node.status.is_closed())
    {
        return Some(node);
    }
    plan.next_work().into_iter().next()
}

/// Starts one supervisor (`steward run-agent ID`, re-executed) per run,
/// detached in its own session so it outlives the `tick` that started it.
/// Returns what could not be started, as warnings.
pub fn start_supervisors(ctx: &Context, runs: &[Run]) -> Vec<String> {
    let exe = match crate::os::process::own_binary() {
        Ok(exe) => exe,
        Err(err) => return vec![format!("{err}: no run started")],
    };
    runs.iter()
        .filter_map(|run| spawn_supervisor(&exe, &ctx.root, &run.id).err())
        .collect()
}

fn spawn_supervisor(exe: &Path, root: &Path, id: &str) -> std::result::Result<(), String> {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(exe);
    command
        .arg("-C")
        .arg(root)
        .arg("run-agent")
        .arg(id)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe; the supervisor leads a session of
    // its own, so the tick's terminal or cron job ending does not end it.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    command
        .spawn()
        .map(drop)
        .map_err(|err| format!("run {id}: cannot start its supervisor: {err}"))
}

impl Dispatched {
    /// Every run to start once the lock is released.
    pub fn to_start(&self) -> Vec<Run> {
        self.resumed.iter().chain(&self.started).cloned().collect()
    }
}
