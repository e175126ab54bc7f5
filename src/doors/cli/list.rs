//! `steward list`: one line per goal.

use crate::exit::ExitCode;
use clap::Args;

use super::render::{self, SCHEMA_VERSION, goal_json, paint};
use super::{Output, args};
use crate::context::Context;
use crate::engine::{self, list::ListRequest};
use crate::error::Result;
use crate::model::book::Book;
use crate::model::{Goal, Priority, Status};
use crate::store::LoadedGoal;

/// List goals: open ones by default, sorted by priority then label. Each
/// line: label, status, priority, criteria met/total, age (since the goal
/// was created: 45s, 12m, 30h, 9d, 6w, 2y) and title.
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

    /// Print the labels of the open goals, one per line, from their file
    /// names alone (for shell completion: fast, reads no goal)
    #[arg(long, hide = true, conflicts_with_all = ["all", "statuses", "priority"])]
    labels: bool,
}

pub fn run(ctx: &Context, args: ListArgs, out: &mut Output) -> Result<ExitCode> {
    if args.labels {
        for label in engine::list::labels(ctx)? {
            out.line(label);
        }
        return Ok(ExitCode::Success);
    }
    let mut found = engine::list::list(
        ctx,
        ListRequest {
            all: args.all,
            statuses: args.statuses,
            priority: args.priority,
            with_tasks: out.json,
        },
    )?;
    let open: Vec<&LoadedGoal> = found.open.iter().collect();
    let mut listing = Listing::start(&open, found.has_closed(), out);
    for loaded in &found.open {
        listing.goal(ctx, loaded, &found.book, out);
    }
    found.each_closed(ctx, |loaded, book| listing.goal(ctx, loaded, book, out));
    listing.finish(&found.problems, out);
    for problem in &found.problems {
        out.warn(problem.to_string());
    }
    Ok(ExitCode::failure_if(!found.problems.is_empty()))
}

/// Writes the listing one goal at a time: JSON, or a table whose columns
/// are sized by the open goals.
struct Listing {
    json: bool,
    first: bool,
    widths: (usize, usize, usize),
    /// A column for plan progress, when a listed goal has a plan.
    plans: bool,
}

impl Listing {
    /// Starts writing to stdout as goals come (a listing of 10,000 goals
    /// is megabytes: never held whole). `closed_follow`: closed goals, not
    /// read yet, come after `open`, so the columns get a floor width.
    fn start(open: &[&LoadedGoal], closed_follow: bool, out: &mut Output) -> Listing {
        out.stream();
        let width = |f: fn(&Goal) -> usize, floor: usize| {
            open.iter()
                .map(|g| f(&g.goal))
                .max()
                .unwrap_or(0)
                .max(if closed_follow { floor } else { 0 })
        };
        let widths = (
            width(|g| g.label.len(), 20),
            width(|g| g.status.as_str().len(), 9),
            width(|g| g.priority.as_str().len(), 8),
        );
        if out.json {
            out.text(&format!(
                "{{\"schema_version\":{SCHEMA_VERSION},\"goals\":["
            ));
        }
        Listing {
            json: out.json,
            first: true,
            widths,
            plans: open.iter().any(|g| g.goal.plan.is_some()),
        }
    }

    fn goal(&mut self, ctx: &Context, loaded: &LoadedGoal, book: &Book, out: &mut Output) {
        if self.json {
            if !self.first {
                out.text(",");
            }
            out.text(
                &serde_json::to_string(&goal_json(ctx, loaded, book)).expect("goals serialize"),
            );
        } else {
            let line = table_line(out, &loaded.goal, self.widths, self.plans, ctx.now);
            out.line(line);
        }
        self.first = false;
    }

    fn finish(self, problems: &[crate::error::FileProblem], out: &mut Output) {
        if self.json {
            let errors: Vec<ErrorJson<'_>> = problems
                .iter()
                .map(|p| ErrorJson {
                    path: &p.path,
                    message: p.to_string(),
                })
                .collect();
            out.text("],\"errors\":");
            out.text(&serde_json::to_string(&errors).expect("errors serialize"));
            out.text("}\n");
        }
    }
}

#[derive(serde::Serialize)]
struct ErrorJson<'p> {
    path: &'p str,
    message: String,
}

fn table_line(
    out: &Output,
    goal: &Goal,
    (label_width, status_width, priority_width): (usize, usize, usize),
    plans: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> String {
    // A criterion an agent marked met while its check fails is not done.
    let criteria = format!("{}/{}", goal.criteria_standing(), goal.criteria.len());
    // How far its plan is, when it has one.
    let plan = match (&goal.plan, plans) {
        (_, false) => String::new(),
        (Some(plan), true) => format!("{:>4}  ", format!("{}%", plan.summary.tally.percent())),
        (None, true) => " ".repeat(6),
    };
    format!(
        "{}  {}  {:<priority_width$}  {:>5}  {:>3}  {}{}",
        paint(
            out,
            &format!("{:<label_width$}", goal.label),
            render::Color::Bold
        ),
        render::status_cell(out, &goal.status, status_width),
        goal.priority.as_str(),
        criteria,
        render::age(goal.created_at, now),
        plan,
        goal.title
    )
}
