//! `steward tick`: one deterministic watchdog pass, then the mirror.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, relative};
use crate::checks::{self, CheckOutcome, CheckPolicy};
use crate::context::Context;
use crate::error::Result;
use crate::model::{Actor, Check, Escalation, Goal, Status};
use crate::obligations::{Book, Transition};
use crate::store::{
    Change, GoalFile, LoadedGoal, Scope, Transaction, YamlValue, body, format_time, strings_value,
    time_value,
};
use crate::watchdog::{self, Evaluation, Verdict};

/// How many checks run at once.
const CHECK_WORKERS: usize = 8;

/// Run one watchdog pass over the open goals that are not paused: hard
/// bounds fail a goal, budgets and repeated failures block it, idle goals
/// stall, passing checks tick their criteria and a goal whose checks all pass
/// with every criterion met becomes `verifying`. Then refresh the mirror.
///
/// Exit 0 when nothing needs a human, 3 when an open goal is blocked or a
/// goal failed in this pass, 1 when a goal file or a check is broken (after
/// the pass has done what it could). Silent with -q unless something needs
/// attention.
#[derive(Debug, Args)]
pub struct TickArgs {
    /// Decide and print, write nothing (checks still run)
    #[arg(long)]
    dry_run: bool,
}

/// One change the pass made (or would make), to a goal or an obligation.
struct Finding {
    label: String,
    action: &'static str,
    from: String,
    to: String,
    reason: String,
}

/// What the pass found, for the report.
#[derive(Default)]
struct Report {
    checked: usize,
    findings: Vec<Finding>,
    needs_attention: Vec<String>,
    errors: Vec<(String, String)>,
}

pub fn run(ctx: &Context, args: TickArgs, out: &mut Output) -> Result<u8> {
    if !ctx.config.enabled {
        if ctx.json {
            out.json(&json!({"schema_version": SCHEMA_VERSION, "disabled": true, "checked": 0, "changed": 0, "findings": [], "needs_attention": [], "errors": []}));
        } else if !ctx.quiet {
            out.line("steward is disabled (enabled: false in steward.yaml): tick did nothing");
        }
        return Ok(0);
    }
    // The checks can take seconds: run them before taking the lock, so
    // agents recording progress are not kept waiting.
    let before = ctx.store.scan(Scope::Open)?;
    let outcomes = run_due_checks(ctx, &before.goals);
    let mut report = Report::default();
    if args.dry_run {
        let mut book = ctx.store.obligations()?;
        report.note_tasks(&expire(ctx, &mut book));
        let scan = before;
        report.note_problems(&scan.problems);
        let mut after = Vec::new();
        for loaded in &scan.goals {
            let verdict = decide(ctx, loaded, &outcomes, &mut report);
            after.push(verdict.map_or_else(|| loaded.goal.clone(), |v| preview(&loaded.goal, &v)));
        }
        report.needs_attention_from(&after);
    } else {
        let mut tx = ctx.transaction()?;
        let mut book = tx.store().obligations()?;
        let transitions = expire(ctx, &mut book);
        report.note_tasks(&transitions);
        tx.save_obligations(&book, &transitions)?;
        super::task::apply_to_goals(ctx, &mut tx, &book, &transitions, Actor::Watchdog)?;
        let scan = tx.store().rescan_open(&before)?;
        report.note_problems(&scan.problems);
        let mut after = Vec::new();
        for loaded in &scan.goals {
            let goal = match decide(ctx, loaded, &outcomes, &mut report) {
                Some(verdict) => {
                    let file = apply(ctx, loaded, &verdict)?;
                    let change = if verdict.is_silent() {
                        Change::silent()
                    } else {
                        Change::new(verdict.action, verdict.reason.clone()).by(Actor::Watchdog)
                    };
                    tx.save(Some(loaded), file, change)?
                        .map_or_else(|| loaded.goal.clone(), |saved| saved.goal)
                }
                None => loaded.goal.clone(),
            };
            after.push(goal);
        }
        report.needs_attention_from(&after);
        tx.render_mirror(&after.iter().collect::<Vec<_>>(), &book);
        super::finish(tx, out)?;
    }
    print(ctx, &report, args.dry_run, out);
    Ok(if !report.errors.is_empty() {
        1
    } else if report.needs_attention.is_empty() {
        0
    } else {
        3
    })
}

/// Obligations past their time: timed out, process gone, or resolved long
/// enough ago to drop.
fn expire(ctx: &Context, book: &mut Book) -> Vec<Transition> {
    let obligations = &ctx.config.obligations;
    book.expire(
        ctx.now,
        obligations.grace.as_secs(),
        obligations.delivered_ttl.as_secs(),
        crate::process::is_alive,
    )
}

impl Report {
    /// Goal files that could not be read are errors of the pass.
    fn note_problems(&mut self, problems: &[crate::error::FileProblem]) {
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
            });
        }
    }

    /// Blocked open goals and goals failed in this pass need a human.
    fn needs_attention_from(&mut self, after: &[Goal]) {
        let mut labels: Vec<String> = after
            .iter()
            .filter(|g| g.status == Status::Blocked)
            .map(|g| g.label.clone())
            .collect();
        labels.extend(
            self.findings
                .iter()
                .filter(|f| f.action == "failed")
                .map(|f| f.label.clone()),
        );
        labels.sort();
        labels.dedup();
        self.needs_attention = labels;
    }
}

/// The checks' outcomes per goal file, with the checks they are for: a goal
/// whose checks changed before the lock was taken is judged next pass.
type Outcomes = HashMap<PathBuf, (Vec<Check>, Vec<CheckOutcome>)>;

fn run_due_checks(ctx: &Context, goals: &[LoadedGoal]) -> Outcomes {
    let due: Vec<&LoadedGoal> = goals
        .iter()
        .filter(|g| watchdog::evaluate(&g.goal, ctx.now, None) == Evaluation::NeedsChecks)
        .collect();
    let checks: Vec<&Check> = due.iter().flat_map(|g| &g.goal.verification).collect();
    let mut outcomes = run_checks(ctx, &checks).into_iter();
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

/// Runs checks on a few threads; each is bounded by its own timeout.
pub(super) fn run_checks(ctx: &Context, checks: &[&Check]) -> Vec<CheckOutcome> {
    let policy = check_policy(ctx);
    let results: Mutex<Vec<Option<CheckOutcome>>> = Mutex::new(vec![None; checks.len()]);
    let next = Mutex::new(0);
    std::thread::scope(|scope| {
        for _ in 0..CHECK_WORKERS.min(checks.len()) {
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
                    let outcome = checks::run(check, &policy);
                    results.lock().expect("no worker panics holding it")[index] = Some(outcome);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("workers are done")
        .into_iter()
        .map(|o| o.expect("every check ran"))
        .collect()
}

pub fn check_policy(ctx: &Context) -> CheckPolicy {
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

/// The watchdog's verdict on one goal, noting findings and errors.
fn decide(
    ctx: &Context,
    loaded: &LoadedGoal,
    outcomes: &Outcomes,
    report: &mut Report,
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
                    relative(ctx, &loaded.file.path),
                    format!("{}: check cannot run: {reason}", goal.label),
                ));
            }
            None
        }
        Evaluation::Change(verdict) => {
            if !verdict.is_silent() {
                report.findings.push(Finding {
                    label: goal.label.clone(),
                    action: verdict.action,
                    from: goal.status.to_string(),
                    to: verdict.status.as_ref().unwrap_or(&goal.status).to_string(),
                    reason: verdict.reason.clone(),
                });
            }
            Some(*verdict)
        }
    }
}

/// The goal file with a verdict applied.
fn apply(ctx: &Context, loaded: &LoadedGoal, verdict: &Verdict) -> Result<GoalFile> {
    let mut file = loaded.file.clone();
    if let Some(status) = &verdict.status {
        file.set(&["status"], YamlValue::Str(status.as_str().to_string()))?;
    }
    if let Some(escalation) = &verdict.escalation {
        file.set(&["escalation"], escalation_value(escalation))?;
    }
    if let Some(reason) = &verdict.closed_reason {
        file.set(&["closed_reason"], YamlValue::Str(reason.clone()))?;
        file.set(&["closed_at"], time_value(ctx.now))?;
    }
    for &n in &verdict.met {
        file.edit_body(|body, _| body::set_met(body, n, true))?;
    }
    if let Some(result) = &verdict.last_check {
        let mut entries = Vec::new();
        if let Some(since) = result.since {
            entries.push(("since".to_string(), time_value(since)));
        }
        entries.push(("passed".to_string(), YamlValue::Int(result.passed as i64)));
        entries.push(("total".to_string(), YamlValue::Int(result.total as i64)));
        entries.push(("failures".to_string(), strings_value(&result.failures)));
        file.set(&["progress", "last_check"], YamlValue::Map(entries))?;
    }
    Ok(file)
}

/// The `escalation` mapping as written in front matter.
pub(super) fn escalation_value(escalation: &Escalation) -> YamlValue {
    let mut entries = vec![
        ("kind".to_string(), YamlValue::Str(escalation.kind.clone())),
        (
            "reason".to_string(),
            YamlValue::Str(escalation.reason.clone()),
        ),
    ];
    if let Some(at) = escalation.at {
        entries.push(("at".to_string(), time_value(at)));
    }
    YamlValue::Map(entries)
}

/// The goal as a verdict would leave it, for a dry run.
fn preview(goal: &Goal, verdict: &Verdict) -> Goal {
    let mut goal = goal.clone();
    if let Some(status) = &verdict.status {
        goal.status = status.clone();
    }
    goal
}

fn print(ctx: &Context, report: &Report, dry_run: bool, out: &mut Output) {
    for (_, message) in &report.errors {
        out.warn(message.clone());
    }
    if ctx.json {
        let findings: Vec<_> = report
            .findings
            .iter()
            .map(|f| json!({"label": f.label, "action": f.action, "from": f.from, "to": f.to, "reason": f.reason}))
            .collect();
        let errors: Vec<_> = report
            .errors
            .iter()
            .map(|(path, message)| json!({"path": path, "message": message}))
            .collect();
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "dry_run": dry_run,
            "checked": report.checked,
            "changed": report.findings.len(),
            "findings": findings,
            "needs_attention": report.needs_attention,
            "errors": errors,
        }));
        return;
    }
    let prefix = if dry_run { "would: " } else { "" };
    for finding in &report.findings {
        let transition = if finding.from == finding.to {
            finding.to.to_string()
        } else {
            format!("{} -> {}", finding.from, finding.to)
        };
        out.line(format!(
            "{prefix}{}: {transition} ({})",
            finding.label, finding.reason
        ));
    }
    if !report.needs_attention.is_empty() {
        out.line(format!(
            "needs attention: {}",
            report.needs_attention.join(", ")
        ));
    } else if !ctx.quiet {
        out.line(format!(
            "{prefix}checked {} goals at {}, {} changed",
            report.checked,
            format_time(ctx.now),
            report.findings.len()
        ));
    }
}

/// Applies the watchdog's blocking and failing rules right after another
/// command changed a goal, so a budget or bound that change crossed takes
/// effect at once rather than at the next pass.
pub(super) fn enforce_limits(
    ctx: &Context,
    tx: &mut Transaction<'_>,
    loaded: LoadedGoal,
) -> Result<LoadedGoal> {
    match watchdog::evaluate(&loaded.goal, ctx.now, None) {
        Evaluation::Change(verdict)
            if matches!(verdict.status, Some(Status::Blocked | Status::Failed)) =>
        {
            let file = apply(ctx, &loaded, &verdict)?;
            let change = Change::new(verdict.action, verdict.reason).by(Actor::Watchdog);
            Ok(tx.save(Some(&loaded), file, change)?.unwrap_or(loaded))
        }
        _ => Ok(loaded),
    }
}
