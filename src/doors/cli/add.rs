//! `steward add`: register a goal (seed tool `goal_register`).

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args, render};
use crate::context::Context;
use crate::engine::{self, AddRequest};
use crate::error::Result;
use crate::model::{Check, Priority};

/// Register a goal: what must be achieved and how to tell it is done.
///
/// Critical and high goals need --confirmed (a human said yes); the store
/// may also require bounds and caps how many goals are open. A --verify
/// check that can never pass here (a command while
/// verification.allow_commands is off, a malformed URL, a path outside the
/// root) is added with a warning on stderr, and `steward doctor` lists it.
///
/// --from-issue makes the goal from a GitHub issue instead (a person's
/// command): its title, its body as the description, its task-list items as
/// the criteria, its labels as the priority (intake.*_labels), its address
/// as the origin; LABEL defaults to REPO-N.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// Short name: 1-64 of a-z 0-9 - _, starting with a letter or digit
    #[arg(value_parser = args::label, required_unless_present = "from_issue")]
    label: Option<String>,

    /// One line saying what the goal is
    #[arg(long, value_parser = args::one_line, required_unless_present = "from_issue")]
    title: Option<String>,

    /// The full goal statement (Markdown)
    #[arg(long)]
    description: Option<String>,

    /// An acceptance criterion; repeat for each
    #[arg(long = "criterion", value_name = "TEXT", required_unless_present = "from_issue", value_parser = args::one_line)]
    criteria: Vec<String>,

    /// Make the goal from GitHub issue owner/repo#N (or its address)
    #[arg(long, value_name = "ISSUE", conflicts_with_all = ["title", "description", "criteria", "tags"])]
    from_issue: Option<String>,

    /// critical, high, normal or low [default: defaults.priority]
    #[arg(long, value_parser = args::priority)]
    priority: Option<Priority>,

    /// A mechanical check TYPE:TARGET[@N] (types: manual, file_exists,
    /// command_exit_zero, http_ok, pr_merged, ci_green); @N ties it to criterion N
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

    #[command(flatten)]
    record: args::RecordArgs,
}

pub fn run(ctx: &Context, args: AddArgs, out: &mut Output) -> Result<ExitCode> {
    let mut saved = match &args.from_issue {
        Some(issue) => {
            let given = engine::intake::FromIssue {
                label: args.label,
                confirmed: args.confirmed,
                priority: args.priority,
                checks: args.checks,
            };
            engine::intake::add_from_issue(ctx, issue, given)?
        }
        None => engine::add(ctx, &request(args))?,
    };
    super::notices(out, std::mem::take(&mut saved.notices));
    show(ctx, saved, out)
}

/// The request of a goal given on the command line.
fn request(args: AddArgs) -> AddRequest {
    let limits = args.limits;
    AddRequest {
        bounds: limits.bounds(),
        label: args.label.expect("clap requires it without --from-issue"),
        title: args.title.expect("clap requires it without --from-issue"),
        description: args.description,
        criteria: args.criteria,
        priority: args.priority,
        checks: args.checks,
        max_dispatches: limits.max_dispatches,
        max_assessments: limits.max_assessments,
        cooldown: limits.cooldown,
        escalate_after: limits.escalate_after,
        confirmed: args.confirmed,
        tags: args.tags,
        record: args.record.record(),
    }
}

fn show(ctx: &Context, saved: crate::engine::Saved, out: &mut Output) -> Result<ExitCode> {
    let loaded = saved.goal;
    let goal = &loaded.goal;
    if out.json {
        let document = render::goal_document(ctx, &loaded)?;
        out.json(&document);
    } else if !out.quiet {
        let short: String = goal.id.chars().take(8).collect();
        let line = render::confirmation(
            out,
            goal,
            &format!(
                "added ({short}), {}, priority {}, {}",
                goal.status,
                goal.priority,
                crate::text::count(goal.criteria.len(), "criterion", "criteria")
            ),
        );
        out.line(line);
        out.line(format!("  {}", ctx.store.relative(&loaded.file.path)));
    }
    Ok(ExitCode::Success)
}
