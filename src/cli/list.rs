//! `steward list`: one line per goal.

use clap::Args;

use super::render::{self, GoalJson, SCHEMA_VERSION, goal_json, paint};
use super::{Output, args};
use crate::context::Context;
use crate::error::Result;
use crate::model::{Priority, Status};
use crate::store::{LoadedGoal, Scope};

/// List goals: open ones by default, sorted by priority then label.
///
/// A goal file that cannot be read is reported on stderr as
/// path:line:col: message; the others are still listed and the exit code
/// is 1.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Include completed, failed and abandoned goals
    #[arg(long)]
    all: bool,

    /// Only goals with this status; repeat for several
    #[arg(long = "status", value_name = "STATUS", value_parser = Status::parse_known)]
    statuses: Vec<Status>,

    /// Only goals with this priority
    #[arg(long, value_parser = args::priority)]
    priority: Option<Priority>,
}

pub fn run(ctx: &Context, args: ListArgs, out: &mut Output) -> Result<u8> {
    let wants_terminal = args.all || args.statuses.iter().any(Status::is_terminal);
    let scan = ctx.store.scan(if wants_terminal {
        Scope::All
    } else {
        Scope::Open
    })?;
    let mut goals: Vec<&LoadedGoal> = scan
        .goals
        .iter()
        .filter(|g| args.statuses.is_empty() || args.statuses.contains(&g.goal.status))
        .filter(|g| args.priority.as_ref().is_none_or(|p| *p == g.goal.priority))
        .collect();
    goals.sort_by(|a, b| {
        let key = |g: &LoadedGoal| {
            (
                g.goal.status.is_terminal(),
                g.goal.priority.rank(),
                g.goal.label.clone(),
            )
        };
        key(a).cmp(&key(b))
    });

    if ctx.json {
        let book = ctx.store.obligations()?;
        out.json(&ListJson {
            schema_version: SCHEMA_VERSION,
            goals: goals.iter().map(|g| goal_json(ctx, g, &book)).collect(),
            errors: scan
                .problems
                .iter()
                .map(|p| ErrorJson {
                    path: &p.path,
                    message: p.to_string(),
                })
                .collect(),
        });
    } else {
        print_table(ctx, &goals, out);
    }
    for problem in &scan.problems {
        out.warn(problem.to_string());
    }
    Ok(if scan.problems.is_empty() { 0 } else { 1 })
}

#[derive(serde::Serialize)]
struct ListJson<'g> {
    schema_version: u32,
    goals: Vec<GoalJson<'g>>,
    errors: Vec<ErrorJson<'g>>,
}

#[derive(serde::Serialize)]
struct ErrorJson<'p> {
    path: &'p str,
    message: String,
}

fn print_table(ctx: &Context, goals: &[&LoadedGoal], out: &mut Output) {
    let label_width = goals.iter().map(|g| g.goal.label.len()).max().unwrap_or(0);
    let status_width = goals
        .iter()
        .map(|g| g.goal.status.as_str().len())
        .max()
        .unwrap_or(0);
    let priority_width = goals
        .iter()
        .map(|g| g.goal.priority.as_str().len())
        .max()
        .unwrap_or(0);
    for loaded in goals {
        let goal = &loaded.goal;
        let criteria = format!("{}/{}", goal.criteria_met(), goal.criteria.len());
        out.line(format!(
            "{}  {}  {:<priority_width$}  {:>5}  {}",
            paint(
                ctx,
                &format!("{:<label_width$}", goal.label),
                render::Color::Bold
            ),
            render::status_cell(ctx, &goal.status, status_width),
            goal.priority.as_str(),
            criteria,
            goal.title
        ));
    }
}
