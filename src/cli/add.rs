//! `steward add`: register a goal (seed tool `goal_register`).

use clap::Args;

use super::render::{self, goal_document, relative};
use super::{Output, args};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Bounds, Check, Priority};
use crate::store::{Change, GoalFile, YamlValue, body, checks_value, strings_value, time_value};

/// Register a goal: what must be achieved and how to tell it is done.
///
/// Critical and high goals need --confirmed (a human said yes); the store
/// may also require bounds and caps how many goals are open.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// Short name: 1-64 of a-z 0-9 - _, starting with a letter or digit
    #[arg(value_parser = args::label)]
    label: String,

    /// One line saying what the goal is
    #[arg(long, value_parser = args::one_line)]
    title: String,

    /// The full goal statement (Markdown)
    #[arg(long)]
    description: Option<String>,

    /// An acceptance criterion; repeat for each
    #[arg(long = "criterion", value_name = "TEXT", required = true, value_parser = args::one_line)]
    criteria: Vec<String>,

    /// critical, high, normal or low [default: defaults.priority]
    #[arg(long, value_parser = args::priority)]
    priority: Option<Priority>,

    /// A mechanical check TYPE:TARGET[@N] (types: manual, file_exists,
    /// command_exit_zero, http_ok, pr_merged); @N ties it to criterion N
    #[arg(long = "verify", value_name = "TYPE:TARGET[@N]", value_parser = args::check)]
    checks: Vec<Check>,

    #[command(flatten)]
    limits: args::LimitArgs,

    /// A human confirmed this goal (required for critical and high)
    #[arg(long)]
    confirmed: bool,

    /// A tag; repeat for more
    #[arg(long = "tag", value_parser = args::tag)]
    tags: Vec<String>,
}

pub fn run(ctx: &Context, args: AddArgs, out: &mut Output) -> Result<u8> {
    let priority = args
        .priority
        .clone()
        .unwrap_or_else(|| ctx.config.defaults.priority.clone());
    for check in &args.checks {
        args::check_criterion_in_range(check, args.criteria.len())?;
    }
    args.limits.validate(ctx.now)?;
    let bounds = args.limits.bounds(&Bounds::default());
    if ctx.config.requires_bounds && bounds.is_empty() {
        return Err(Error::refused(
            "this store requires bounds (requires_bounds: true): give --max-iterations, --deadline or --max-cost-usd",
        ));
    }
    if ctx.config.require_confirmation_for.contains(&priority) && !args.confirmed {
        return Err(Error::refused(format!(
            "a {priority} goal needs a human's confirmation: ask the human, then run the same command with --confirmed"
        )));
    }

    let mut tx = ctx.transaction()?;
    // Goals live under their label's name, so the label is checked by file
    // name (`doctor` reports a file whose label differs from its name).
    let path = ctx.store.open_path(&args.label);
    if path.symlink_metadata().is_ok() {
        match ctx.store.load(&path) {
            // A goal closed by hand still sits under its open name: move it aside.
            Ok(existing) if existing.goal.status.is_terminal() => tx.archive(&existing)?,
            Ok(_) => {
                return Err(Error::refused(format!(
                    "goal `{}` is already open ({}); choose another label, or complete or abandon that goal first",
                    args.label,
                    relative(ctx, &path)
                )));
            }
            Err(problem) => {
                return Err(Error::refused(format!(
                    "{problem}\nthe label `{}` is taken by that file, which steward cannot read; fix it or choose another label",
                    args.label
                )));
            }
        }
    }
    let limit = ctx.config.global_limits.max_active_goals;
    let open_count = tx.store().count_open(limit)?;
    if open_count >= limit {
        return Err(Error::refused(format!(
            "{open_count} goals are open and global_limits.max_active_goals is {limit}: complete or abandon one first, or raise the limit"
        )));
    }

    let file = new_goal_file(ctx, &args, &priority, &bounds)?;
    let detail = format!("priority {priority}, {} criteria", args.criteria.len());
    let loaded = tx
        .save(None, file, Change::new("created", detail))?
        .expect("a new goal is always written");
    super::finish(tx, out)?;

    let goal = &loaded.goal;
    if ctx.json {
        out.json(&goal_document(ctx, &loaded)?);
    } else if !ctx.quiet {
        let short: String = goal.id.chars().take(8).collect();
        out.line(render::confirmation(
            ctx,
            goal,
            &format!(
                "added ({short}), {}, priority {}, {} criteria",
                goal.status,
                goal.priority,
                goal.criteria.len()
            ),
        ));
        out.line(format!("  {}", relative(ctx, &loaded.file.path)));
    }
    Ok(0)
}

fn new_goal_file(
    ctx: &Context,
    args: &AddArgs,
    priority: &Priority,
    bounds: &Bounds,
) -> Result<GoalFile> {
    let defaults = &ctx.config.defaults;
    let limits = &args.limits;
    let mut file = GoalFile::empty(&ctx.store.open_path(&args.label));
    let text = |s: &str| YamlValue::Str(s.to_string());
    let count = |n: u64| YamlValue::Int(n as i64);
    file.set(&["id"], text(&uuid::Uuid::new_v4().to_string()))?;
    file.set(&["label"], text(&args.label))?;
    file.set(&["title"], text(&args.title))?;
    file.set(&["status"], text("active"))?;
    file.set(&["priority"], text(priority.as_str()))?;
    file.set(&["confirmed"], YamlValue::Bool(true))?;
    if !args.tags.is_empty() {
        file.set(&["tags"], strings_value(&args.tags))?;
    }
    file.set(&["created_at"], time_value(ctx.now))?;
    file.set(&["updated_at"], time_value(ctx.now))?;
    file.set(&["verification"], checks_value(&args.checks))?;
    let budget = YamlValue::Map(vec![
        (
            "max_dispatches".into(),
            count(limits.max_dispatches.unwrap_or(defaults.max_dispatches)),
        ),
        (
            "max_assessments".into(),
            count(limits.max_assessments.unwrap_or(defaults.max_assessments)),
        ),
        (
            "cooldown".into(),
            text(&limits.cooldown.unwrap_or(defaults.cooldown).to_string()),
        ),
        (
            "escalate_after_failures".into(),
            count(
                limits
                    .escalate_after
                    .unwrap_or(defaults.escalate_after_failures),
            ),
        ),
    ]);
    file.set(&["budget"], budget)?;
    if !bounds.is_empty() {
        file.set(&["bounds"], args::bounds_value(bounds))?;
    }
    let progress = YamlValue::Map(vec![
        ("assessments".into(), count(0)),
        ("dispatches".into(), count(0)),
        ("consecutive_failures".into(), count(0)),
        ("cost_usd".into(), count(0)),
        ("last_assessed_at".into(), YamlValue::Null),
        ("last_dispatched_at".into(), YamlValue::Null),
        ("last_outcome".into(), YamlValue::Null),
    ]);
    file.set(&["progress"], progress)?;
    file.set(&["blockers"], YamlValue::Seq(Vec::new()))?;
    let description = args.description.clone().unwrap_or_default();
    file.edit_body(|body, newline| {
        let mut body = body::set_description(body, &description, newline);
        for criterion in &args.criteria {
            body = body::add_criterion(&body, criterion, newline);
        }
        Ok(body)
    })?;
    Ok(file)
}
