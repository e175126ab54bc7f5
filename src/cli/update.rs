//! `steward update`: change what a goal says (seed tool `goal_update`).

use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Check, Goal, Priority};
use crate::store::{Change, GoalFile, YamlValue, body, checks_value, strings_value};

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
}

impl UpdateArgs {
    fn changes_nothing(&self) -> bool {
        let limits = &self.limits;
        self.title.is_none()
            && self.description.is_none()
            && self.priority.is_none()
            && self.add_criteria.is_empty()
            && self.remove_criteria.is_empty()
            && self.check.is_empty()
            && self.uncheck.is_empty()
            && self.blockers.is_empty()
            && !self.no_blockers
            && self.verify.is_empty()
            && !self.clear_checks
            && limits.max_dispatches.is_none()
            && limits.max_assessments.is_none()
            && limits.cooldown.is_none()
            && limits.escalate_after.is_none()
            && limits.max_iterations.is_none()
            && limits.deadline.is_none()
            && limits.max_cost_usd.is_none()
            && self.new_label.is_none()
            && self.tags.is_empty()
            && self.untags.is_empty()
            && !self.confirmed
            && self.note.is_none()
    }
}

pub fn run(ctx: &Context, args: UpdateArgs, out: &mut Output) -> Result<u8> {
    if args.changes_nothing() {
        return Err(Error::usage(
            "nothing to update: give at least one option (see `steward update --help`)",
        ));
    }
    if let Some(n) = args.check.iter().find(|n| args.uncheck.contains(n)) {
        return Err(Error::usage(format!(
            "criterion {n} is given to both --check and --uncheck"
        )));
    }
    args.limits.validate(ctx.now)?;

    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(&args.goal)?;
    let goal = &loaded.goal;
    super::refuse_terminal(goal)?;
    if let Some(label) = &args.new_label
        && *label != goal.label
        && tx.store().label_taken(label)
    {
        return Err(Error::refused(format!(
            "goal `{label}` is already open; choose another label"
        )));
    }
    if let Some(priority) = &args.priority {
        let required = &ctx.config.require_confirmation_for;
        if required.contains(priority) && !required.contains(&goal.priority) && !args.confirmed {
            return Err(Error::refused(format!(
                "raising `{}` to {priority} needs a human's confirmation: ask the human, then run again with --confirmed",
                goal.label
            )));
        }
    }

    let mut file = loaded.file.clone();
    let mut parts = Vec::new();
    apply(&args, goal, &mut file, &mut parts)?;
    let (action, detail) = match (&args.note, parts.is_empty()) {
        (Some(note), true) => ("note", note.clone()),
        (Some(note), false) => ("updated", format!("{}; note: {note}", parts.join("; "))),
        (None, _) => ("updated", parts.join("; ")),
    };
    let mut change = Change::new(action, detail);
    if args.note.is_some() {
        change = change.always();
    }
    let saved = tx.save(Some(&loaded), file, change)?;
    super::finish(tx, out)?;

    let what = if parts.is_empty() {
        "note added".to_string()
    } else {
        format!("updated: {}", parts.join("; "))
    };
    super::report(ctx, out, saved, &loaded, &what)?;
    Ok(0)
}

/// Edits `file` for every option given, describing each change in `parts`.
fn apply(
    args: &UpdateArgs,
    goal: &Goal,
    file: &mut GoalFile,
    parts: &mut Vec<String>,
) -> Result<()> {
    let text = |s: &str| YamlValue::Str(s.to_string());
    if let Some(title) = &args.title
        && *title != goal.title
    {
        file.set(&["title"], text(title))?;
        parts.push("title changed".to_string());
    }
    if let Some(description) = &args.description
        && description.trim() != goal.description
    {
        file.edit_body(|body, newline| Ok(body::set_description(body, description, newline)))?;
        parts.push("description changed".to_string());
    }
    if let Some(priority) = &args.priority
        && *priority != goal.priority
    {
        file.set(&["priority"], text(priority.as_str()))?;
        parts.push(format!("priority {} -> {priority}", goal.priority));
    }
    if args.confirmed && !goal.confirmed {
        file.set(&["confirmed"], YamlValue::Bool(true))?;
        parts.push("confirmed".to_string());
    }
    apply_criteria(args, goal, file, parts)?;
    apply_checks(args, goal, file, parts)?;
    if args.no_blockers && !goal.blockers.is_empty() {
        file.set(&["blockers"], YamlValue::Seq(Vec::new()))?;
        parts.push("blockers cleared".to_string());
    } else if !args.blockers.is_empty() && args.blockers != goal.blockers {
        file.set(&["blockers"], strings_value(&args.blockers))?;
        parts.push(format!("blockers: {}", args.blockers.join("; ")));
    }
    apply_limits(args, goal, file, parts)?;
    let mut tags = goal.tags.clone();
    tags.retain(|t| !args.untags.contains(t));
    for tag in &args.tags {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    if tags != goal.tags {
        file.set(&["tags"], strings_value(&tags))?;
        parts.push(format!(
            "tags: {}",
            if tags.is_empty() {
                "none".to_string()
            } else {
                tags.join(", ")
            }
        ));
    }
    if let Some(label) = &args.new_label
        && *label != goal.label
    {
        file.set(&["label"], text(label))?;
        parts.push(format!("label {} -> {label}", goal.label));
    }
    Ok(())
}

fn apply_criteria(
    args: &UpdateArgs,
    goal: &Goal,
    file: &mut GoalFile,
    parts: &mut Vec<String>,
) -> Result<()> {
    let count = goal.criteria.len();
    for n in args
        .check
        .iter()
        .chain(&args.uncheck)
        .chain(&args.remove_criteria)
    {
        if *n > count {
            return Err(Error::usage(format!(
                "criterion {n} does not exist: `{}` has {count} criteria",
                goal.label
            )));
        }
    }
    for (numbers, met) in [(&args.check, true), (&args.uncheck, false)] {
        for &n in numbers {
            if goal.criteria[n - 1].met != met {
                file.edit_body(|body, _| body::set_met(body, n, met))?;
                parts.push(format!(
                    "criterion {n} {}",
                    if met { "met" } else { "not met" }
                ));
            }
        }
    }
    let mut removals = args.remove_criteria.clone();
    removals.sort_unstable();
    removals.dedup();
    for &n in removals.iter().rev() {
        file.edit_body(|body, _| body::remove_criterion(body, n))?;
        parts.push(format!("criterion {n} removed"));
    }
    if !removals.is_empty()
        && !goal.verification.is_empty()
        && args.verify.is_empty()
        && !args.clear_checks
    {
        // Checks tied to criteria follow their renumbering.
        let renumbered = renumber_checks(&goal.verification, &removals);
        if renumbered != goal.verification {
            file.set(&["verification"], checks_value(&renumbered))?;
        }
    }
    for criterion in &args.add_criteria {
        file.edit_body(|body, newline| Ok(body::add_criterion(body, criterion, newline)))?;
        parts.push(format!("criterion added: {criterion}"));
    }
    Ok(())
}

/// Checks after criteria `removed` (ascending) are gone: later numbers move
/// down; a check whose criterion was removed is no longer tied to one.
fn renumber_checks(checks: &[Check], removed: &[usize]) -> Vec<Check> {
    checks
        .iter()
        .map(|check| {
            let criterion = check.criterion.and_then(|n| {
                if removed.contains(&n) {
                    None
                } else {
                    Some(n - removed.iter().filter(|r| **r < n).count())
                }
            });
            Check {
                criterion,
                ..check.clone()
            }
        })
        .collect()
}

fn apply_checks(
    args: &UpdateArgs,
    goal: &Goal,
    file: &mut GoalFile,
    parts: &mut Vec<String>,
) -> Result<()> {
    if args.verify.is_empty() && !args.clear_checks {
        return Ok(());
    }
    let final_count =
        goal.criteria.len() - dedup_count(&args.remove_criteria) + args.add_criteria.len();
    let mut checks = if args.clear_checks {
        Vec::new()
    } else {
        let mut removals = args.remove_criteria.clone();
        removals.sort_unstable();
        removals.dedup();
        renumber_checks(&goal.verification, &removals)
    };
    for check in &args.verify {
        args::check_criterion_in_range(check, final_count)?;
        checks.push(check.clone());
    }
    if checks != goal.verification {
        file.set(&["verification"], checks_value(&checks))?;
        parts.push(format!("checks: {}", checks.len()));
    }
    Ok(())
}

fn dedup_count(numbers: &[usize]) -> usize {
    let mut numbers = numbers.to_vec();
    numbers.sort_unstable();
    numbers.dedup();
    numbers.len()
}

fn apply_limits(
    args: &UpdateArgs,
    goal: &Goal,
    file: &mut GoalFile,
    parts: &mut Vec<String>,
) -> Result<()> {
    let limits = &args.limits;
    let count = |n: u64| YamlValue::Int(n as i64);
    let budget = &goal.budget;
    let numbers = [
        (
            "max_dispatches",
            limits.max_dispatches,
            budget.max_dispatches,
        ),
        (
            "max_assessments",
            limits.max_assessments,
            budget.max_assessments,
        ),
        (
            "escalate_after_failures",
            limits.escalate_after,
            budget.escalate_after_failures,
        ),
    ];
    for (key, new, old) in numbers {
        if let Some(new) = new
            && new != old
        {
            file.set(&["budget", key], count(new))?;
            parts.push(format!("{key} {old} -> {new}"));
        }
    }
    if let Some(cooldown) = limits.cooldown
        && cooldown != budget.cooldown
    {
        file.set(
            &["budget", "cooldown"],
            YamlValue::Str(cooldown.to_string()),
        )?;
        parts.push(format!("cooldown {} -> {cooldown}", budget.cooldown));
    }
    let bounds = &goal.bounds;
    if let Some(n) = limits.max_iterations
        && Some(n) != bounds.max_iterations
    {
        file.set(&["bounds", "max_iterations"], count(n))?;
        parts.push(format!("max_iterations {n}"));
    }
    if let Some(deadline) = limits.deadline
        && Some(deadline) != bounds.deadline
    {
        file.set(&["bounds", "deadline"], crate::store::time_value(deadline))?;
        parts.push(format!("deadline {}", crate::store::format_time(deadline)));
    }
    if let Some(usd) = limits.max_cost_usd
        && Some(usd) != bounds.max_cost_usd
    {
        file.set(&["bounds", "max_cost_usd"], YamlValue::Float(usd))?;
        parts.push(format!("max_cost_usd {usd}"));
    }
    Ok(())
}
