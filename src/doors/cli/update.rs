//! `steward update`: change what a goal says (seed tool `goal_update`).

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine::{self, UpdateRequest};
use crate::error::Result;
use crate::model::{Check, Priority};

/// Change a goal's title, description, priority, criteria, blockers, checks,
/// budget, bounds, label or tags, or add a note to its history.
///
/// Criterion numbers refer to the goal as it is before this command; ticks
/// apply first, then removals, then additions. Hard bounds can be set or
/// changed here; remove one with `steward edit`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// New title
    #[arg(long, value_parser = args::one_line)]
    title: Option<String>,

    /// New description (the body text before the first `## ` heading)
    #[arg(long)]
    description: Option<String>,

    /// New priority: critical, high, normal or low
    #[arg(long, value_parser = args::priority)]
    priority: Option<Priority>,

    /// Add an acceptance criterion; repeat for more
    #[arg(long = "add-criterion", value_name = "TEXT", value_parser = args::one_line)]
    add_criteria: Vec<String>,

    /// Remove criterion N; repeat for more
    #[arg(long = "remove-criterion", value_name = "N", value_parser = args::criterion_number)]
    remove_criteria: Vec<usize>,

    /// Mark criterion N met; repeat for more
    #[arg(long = "check", value_name = "N", value_parser = args::criterion_number)]
    check: Vec<usize>,

    /// Mark criterion N not met; repeat for more
    #[arg(long = "uncheck", value_name = "N", value_parser = args::criterion_number)]
    uncheck: Vec<usize>,

    /// Replace the blockers with these; repeat for more
    #[arg(long = "blocker", value_name = "TEXT", value_parser = args::one_line, conflicts_with = "no_blockers")]
    blockers: Vec<String>,

    /// Clear the blockers
    #[arg(long)]
    no_blockers: bool,

    /// Add a check TYPE:TARGET[@N]; repeat for more
    #[arg(long = "verify", value_name = "TYPE:TARGET[@N]", value_parser = args::check)]
    verify: Vec<Check>,

    /// Remove every check (before adding those given with --verify)
    #[arg(long)]
    clear_checks: bool,

    #[command(flatten)]
    limits: args::LimitArgs,

    /// Rename the goal (its file is renamed too)
    #[arg(long = "label", value_name = "LABEL", value_parser = args::label)]
    new_label: Option<String>,

    /// Add a tag; repeat for more
    #[arg(long = "tag", value_parser = args::tag)]
    tags: Vec<String>,

    /// Remove a tag; repeat for more
    #[arg(long = "untag", value_name = "TAG", value_parser = args::tag)]
    untags: Vec<String>,

    /// A human confirmed the goal (needed to raise it to a priority that
    /// requires confirmation)
    #[arg(long)]
    confirmed: bool,

    /// Add a note to the goal's history
    #[arg(long)]
    note: Option<String>,

    #[command(flatten)]
    record: args::RecordArgs,
}

pub fn run(ctx: &Context, args: UpdateArgs, out: &mut Output) -> Result<ExitCode> {
    let limits = args.limits;
    let request = UpdateRequest {
        title: args.title,
        description: args.description,
        priority: args.priority,
        add_criteria: args.add_criteria,
        remove_criteria: args.remove_criteria,
        check: args.check,
        uncheck: args.uncheck,
        blockers: if args.no_blockers {
            Some(Vec::new())
        } else {
            Some(args.blockers).filter(|b| !b.is_empty())
        },
        verify: args.verify,
        clear_checks: args.clear_checks,
        max_dispatches: limits.max_dispatches,
        max_assessments: limits.max_assessments,
        cooldown: limits.cooldown,
        escalate_after: limits.escalate_after,
        max_iterations: limits.max_iterations,
        deadline: limits.deadline,
        max_cost_usd: limits.max_cost_usd,
        label: args.new_label,
        tags: args.tags,
        untags: args.untags,
        confirmed: args.confirmed,
        note: args.note,
        record: args.record.update(),
    };
    let updated = engine::update(ctx, &args.goal, &request)?;
    let what = if updated.parts.is_empty() {
        "note added".to_string()
    } else {
        format!("updated: {}", updated.parts.join("; "))
    };
    super::report(ctx, out, updated.saved, &what)?;
    Ok(ExitCode::Success)
}
