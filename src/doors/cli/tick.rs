//! `steward tick`: one deterministic watchdog pass, then the mirror.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::{self, TickOutcome, TickRequest};
use crate::error::Result;
use crate::model::format_time;

/// Run one watchdog pass over the open goals that are not paused: hard
/// bounds fail a goal, budgets and repeated failures block it, idle goals
/// stall, passing checks tick their criteria and a goal whose checks all pass
/// with every criterion met becomes `verifying`. Then refresh the mirror.
///
/// Exit 0 when nothing needs a human, 3 when an open goal is blocked or a
/// goal failed in this pass, 1 when a goal file or a check is broken (after
/// the pass has done what it could). With -q only what needs a person is
/// printed (a goal blocked or failed), and only the first time: a goal that
/// stays blocked is told once, though the exit status stays 3, and so is a
/// file that stays unreadable (on stderr; the exit status stays 1). A goal file edited by hand after the pass read it
/// is left as it is, with a warning, for the next pass. Goals closed by hand
/// (a terminal status set in the file) move to state/goals/closed/, at most
/// 512 a pass; the rest wait for the next one.
#[derive(Debug, Args)]
pub struct TickArgs {
    /// Decide and print, write nothing, start nothing: file and HTTP checks
    /// run, command checks do not (a goal with one is not checked)
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Context, args: TickArgs, out: &mut Output) -> Result<ExitCode> {
    let outcome = engine::tick(
        ctx,
        TickRequest {
            dry_run: args.dry_run,
            at_run_end: false,
        },
    )?;
    if outcome.disabled {
        if out.json {
            out.json(&json!({"schema_version": SCHEMA_VERSION, "disabled": true, "checked": 0, "changed": 0, "findings": [], "needs_attention": [], "errors": []}));
        } else if !out.quiet {
            out.line(format!(
                "steward is disabled (enabled: false, {}): tick did nothing",
                ctx.source_of("enabled")
            ));
        }
        return Ok(ExitCode::Success);
    }
    let code = outcome.exit_code();
    print(ctx, outcome, args.dry_run, out);
    Ok(code)
}

fn print(ctx: &Context, mut outcome: TickOutcome, dry_run: bool, out: &mut Output) {
    super::notices(out, std::mem::take(&mut outcome.notices));
    // Cron mails what -q prints: a file that stays unreadable is told once
    // (the exit status stays 1).
    let errors: Vec<&(String, String)> = if out.quiet && !out.json {
        outcome.new_errors.iter().collect()
    } else {
        outcome.errors.iter().chain(&outcome.cautions).collect()
    };
    for (_, message) in errors {
        out.warn(message.clone());
    }
    if !out.json {
        super::replies::print_taken(out, &outcome.answers);
    }
    if out.json {
        let findings: Vec<_> = outcome
            .findings
            .iter()
            .map(|f| json!({"label": f.label, "action": f.action, "from": f.from, "to": f.to, "reason": f.reason}))
            .collect();
        let errors: Vec<_> = outcome
            .errors
            .iter()
            .map(|(path, message)| json!({"path": path, "message": message}))
            .collect();
        let held: Vec<_> = outcome
            .dispatched
            .held
            .iter()
            .map(|(label, why)| json!({"label": label, "why": why}))
            .collect();
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "dry_run": dry_run,
            "checked": outcome.checked,
            "changed": outcome.goals_changed(),
            "findings": findings,
            "needs_attention": outcome.needs_attention,
            "held": held,
            "errors": errors,
            "closed_waiting": outcome.closed_waiting,
            "answers": {
                "applied": outcome.answers.applied,
                "refused": outcome.answers.refused.iter().map(|(reply, why)| json!({"reply": reply, "why": why})).collect::<Vec<_>>(),
            },
        }));
        return;
    }
    let prefix = if dry_run { "would: " } else { "" };
    if out.quiet {
        // Only what needs a person, once: cron mails whatever is printed.
        for (label, why) in &outcome.new_attention {
            out.line(format!("{prefix}{label}: {why}: needs a person"));
        }
        return;
    }
    for finding in &outcome.findings {
        let transition = match (finding.from.as_str(), finding.to.as_str()) {
            ("", "") => finding.action.to_string(),
            (from, to) if from == to || from.is_empty() => to.to_string(),
            (from, to) => format!("{from} -> {to}"),
        };
        out.line(format!(
            "{prefix}{}: {transition} ({})",
            finding.label, finding.reason
        ));
    }
    print_held(&outcome.dispatched.held, out);
    if outcome.closed_waiting > 0 {
        out.line(format!(
            "{} closed by hand wait in state/goals/ for the next pass (a pass moves {})",
            crate::text::count(outcome.closed_waiting, "more goal", "more goals"),
            crate::engine::MOVED_PER_PASS
        ));
    }
    if !outcome.needs_attention.is_empty() {
        out.line(format!(
            "needs attention: {}",
            outcome.needs_attention.join(", ")
        ));
    } else {
        out.line(format!(
            "{prefix}checked {} at {}, {} changed",
            crate::text::count(outcome.checked, "goal", "goals"),
            format_time(ctx.now),
            outcome.goals_changed()
        ));
    }
    // Before the night: what the work ahead likely takes.
    if dry_run && let Some(forecast) = super::forecast::summary(ctx) {
        out.line(forecast);
    }
}

/// How many lines of goals held back a pass prints (`tick --json` and
/// `steward why` have them all).
const HELD_LINES: usize = 20;

/// The goals dispatch left alone and why, those held for the same reason
/// on one line.
fn print_held(held: &[(String, String)], out: &mut Output) {
    let mut by_reason: Vec<(&str, Vec<&str>)> = Vec::new();
    for (label, why) in held {
        match by_reason.iter_mut().find(|(reason, _)| reason == why) {
            Some((_, labels)) => labels.push(label),
            None => by_reason.push((why, vec![label])),
        }
    }
    for (reason, labels) in by_reason.iter().take(HELD_LINES) {
        let named = match labels.len() {
            n if n > HELD_LINES => format!(
                "{} and {} more",
                labels[..HELD_LINES].join(", "),
                n - HELD_LINES
            ),
            _ => labels.join(", "),
        };
        out.line(format!("held: {named}: {reason}"));
    }
    if by_reason.len() > HELD_LINES {
        let rest: usize = by_reason[HELD_LINES..].iter().map(|(_, l)| l.len()).sum();
        out.line(format!(
            "held: {} more (`steward tick --json`, `steward why GOAL`)",
            crate::text::count(rest, "goal", "goals")
        ));
    }
}
