//! `steward assess`: the agent records one stewardship assessment (seed tool
//! `goal_assess`).

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine;
use crate::error::Result;
use crate::model::Goal;
use crate::rules::assessment::{Outcome, Report};

/// Record one assessment of a goal: what the agent found, what comes next,
/// and what it did.
///
/// Counts an assessment (refused with exit 4 once the assessment budget is
/// used up), replaces the blockers when --blocker or --no-blockers is given,
/// ticks criteria, and with --dispatched counts a dispatch (refused when the
/// goal's dispatch budget or the global hourly window is used up). Reporting
/// the same blockers too many times in a row trips the circuit breaker;
/// --stuck asks for a human. A budget or bound this assessment uses up takes
/// effect at once: an assessment that crosses a hard bound is recorded, says
/// that the goal failed, and exits 3.
#[derive(Debug, Args)]
pub struct AssessArgs {
    /// A label, an id, or at least 4 characters of an id (with --from-json:
    /// else the update's goalId, else the goal of the run that asked)
    #[arg(required_unless_present = "from_json")]
    goal: Option<String>,

    /// What the agent found, in a line
    #[arg(long, value_parser = args::one_line, required_unless_present = "from_json")]
    summary: Option<String>,

    /// Read a structured update instead of the options: the last fenced
    /// `json` block holding `overseerUpdate` (goalId, workNodeId, status,
    /// summary, next, blockers, evidence) in FILE ("-": stdin); its status
    /// moves the plan node
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["summary", "next", "blockers", "no_blockers", "met", "stuck", "wait_until", "wait_for_check"]
    )]
    from_json: Option<std::path::PathBuf>,

    /// The next action
    #[arg(long, value_parser = args::one_line)]
    next: Option<String>,

    /// A current blocker; repeat for more (replaces the list)
    #[arg(long = "blocker", value_name = "TEXT", value_parser = args::one_line, conflicts_with = "no_blockers")]
    blockers: Vec<String>,

    /// Nothing blocks the goal any more
    #[arg(long)]
    no_blockers: bool,

    /// Criterion N is met; repeat for more
    #[arg(long, value_name = "N", value_parser = args::criterion_number)]
    met: Vec<usize>,

    /// Work was dispatched (a subagent, a job) as part of this assessment
    #[arg(long)]
    dispatched: bool,

    /// What this step cost, in US dollars (added up)
    #[arg(long, value_name = "USD", value_parser = args::usd)]
    cost_usd: Option<f64>,

    /// How the work since the last assessment went: failed counts a
    /// consecutive failure, ok clears them
    #[arg(long, value_enum)]
    outcome: Option<OutcomeArg>,

    /// The agent cannot go on without a human: block the goal
    #[arg(long)]
    stuck: bool,

    /// Park the goal until TIME (CI running, a review pending): no runs, no
    /// block entries, no staleness until then
    #[arg(long, value_name = "TIME", value_parser = args::time)]
    wait_until: Option<chrono::DateTime<chrono::Utc>>,

    /// Park the goal until the result of its checks changes
    #[arg(long)]
    wait_for_check: bool,

    /// The agent run this report belongs to: a dispatch with an id steward
    /// counted already is not counted again
    #[arg(long, value_name = "ID", env = "STEWARD_DISPATCH_ID")]
    dispatch_id: Option<String>,
}

/// How the work since the last assessment went.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OutcomeArg {
    Ok,
    Failed,
}

pub fn run(ctx: &Context, args: AssessArgs, out: &mut Output) -> Result<ExitCode> {
    if let Some(source) = &args.from_json {
        let text = args::read_input(source)?;
        let saved = engine::assess_update(
            ctx,
            args.goal.as_deref(),
            &text,
            args.dispatch_id.as_deref(),
        )?;
        let what = summary(&saved.goal.goal);
        super::report(ctx, out, saved, &what)?;
        return Ok(ExitCode::Success);
    }
    let (Some(goal), Some(summary_text)) = (args.goal, args.summary) else {
        unreachable!("clap requires GOAL and --summary without --from-json");
    };
    let report = Report {
        summary: summary_text,
        next: args.next,
        blockers: if args.no_blockers {
            Some(Vec::new())
        } else {
            Some(args.blockers).filter(|b| !b.is_empty())
        },
        met: args.met,
        dispatched: args.dispatched,
        cost_usd: args.cost_usd,
        outcome: args.outcome.map(|outcome| match outcome {
            OutcomeArg::Ok => Outcome::Ok,
            OutcomeArg::Failed => Outcome::Failed,
        }),
        stuck: args.stuck,
        wait_until: args.wait_until,
        wait_for_check: args.wait_for_check,
        session: None,
    };
    let saved = engine::assess(ctx, &goal, &report, args.dispatch_id.as_deref())?;
    let what = summary(&saved.goal.goal);
    // The assessment crossed a hard bound: recorded, but the goal is now
    // failed and closed, which a person must hear of.
    let code = if saved.goal.goal.status == crate::model::Status::Failed {
        ExitCode::Attention
    } else {
        ExitCode::Success
    };
    super::report(ctx, out, saved, &what)?;
    Ok(code)
}

fn summary(goal: &Goal) -> String {
    let progress = &goal.progress;
    let mut text = format!(
        "assessed ({}/{} assessments, {}/{} dispatches, {}/{} criteria met)",
        progress.assessments,
        goal.budget.max_assessments,
        progress.dispatches,
        goal.budget.max_dispatches,
        goal.criteria_met(),
        goal.criteria.len()
    );
    if goal.status == crate::model::Status::Failed {
        text.push_str(&format!(
            "; FAILED: {}; the goal is closed for good",
            goal.closed_reason
                .as_deref()
                .unwrap_or("a hard bound was crossed")
        ));
    } else if let Some(escalation) = &goal.escalation
        && goal.status == crate::model::Status::Blocked
    {
        text.push_str(&format!(
            "; BLOCKED ({}): {}",
            escalation.kind, escalation.reason
        ));
    }
    text
}
