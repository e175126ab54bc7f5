//! `steward plan`: a goal's plan of phases, tasks and subtasks
//! (steward-guide(7), "PLANS").

use crate::exit::ExitCode;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::render::{SCHEMA_VERSION, plan_json};
use super::{Output, args};
use crate::context::Context;
use crate::engine;
use crate::error::Result;
use crate::model::plan::{NodeStatus, Plan};

/// Break a goal into phases, tasks and subtasks that an agent works
/// through: the planner prompt, the planner's JSON imported, the plan shown
///
/// The plan lives in the goal file under `## Plan`, one line per node:
///
///   node    = INDENT "- [" BOX "] " ID " " NAME { " · " NOTE }
///   detail  = INDENT "- accept: " TEXT  |  INDENT "- outcome: " TEXT
///   INDENT  = 0, 2 or 4 spaces: a phase, a task, a subtask; a detail is
///             indented 2 more than its node
///   BOX     = " " or "x" (done)
///   ID      = a letter, then letters, digits, ".", "_" or "-" (at most 32)
///   NAME    = text without " · "
///   NOTE    = "queued" | "in progress" | "blocked: " REASON | "cancelled"
///           | "after " ID { ", " ID }
///
/// An empty box without a status note is todo; a ticked box carries no
/// status note. Other lines (notes, comments, plain bullets) are kept as
/// they are. A mistake is reported with line and column and the goal is
/// not written until it is fixed. `steward work` moves a node by rewriting
/// its line only.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PlanArgs {
    #[command(subcommand)]
    command: PlanCommand,
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// Print the planner prompt for a goal: an agent answers it with the
    /// plan as JSON (at most 5 phases, 7 tasks per phase, 7 subtasks per
    /// task)
    Prompt(GoalArg),
    Import(ImportArgs),
    RepairPrompt(RepairArgs),
    /// Show the plan as a tree: each node's status, each parent's share
    /// done, and what is ready to start
    Show(GoalArg),
}

#[derive(Debug, Args)]
struct GoalArg {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

/// Validate the planner's JSON and write it under `## Plan`; nothing is
/// written when it is not valid (every problem is printed with its JSON
/// path, exit 2). A plan replacing another keeps the status of the nodes
/// whose ids survive.
#[derive(Debug, Args)]
struct ImportArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
    /// The planner's answer ("-" or nothing: stdin)
    #[arg(value_name = "FILE", default_value = "-")]
    file: PathBuf,
}

/// Print the repair prompt for a planner's answer that is not a valid
/// plan: what is wrong, and the request for corrected JSON
#[derive(Debug, Args)]
struct RepairArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
    /// The planner's answer ("-": stdin)
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn run(ctx: &Context, args: PlanArgs, out: &mut Output) -> Result<ExitCode> {
    match args.command {
        PlanCommand::Prompt(args) => {
            let prompt = engine::plan::prompt(ctx, &args.goal)?;
            if out.json {
                out.json(&json!({"schema_version": SCHEMA_VERSION, "prompt": prompt}));
            } else {
                out.text(&prompt);
            }
            Ok(ExitCode::Success)
        }
        PlanCommand::Import(args) => {
            let text = args::read_input(&args.file)?;
            let imported = engine::plan::import(ctx, &args.goal, &text)?;
            let what = match &imported.replaced {
                None => "planned".to_string(),
                Some(replaced) => format!("plan replaced: {replaced}"),
            };
            super::report(ctx, out, imported.saved, &what)?;
            Ok(ExitCode::Success)
        }
        PlanCommand::RepairPrompt(args) => {
            let text = args::read_input(&args.file)?;
            match engine::plan::repair_prompt(ctx, &args.goal, &text)? {
                Some(prompt) if out.json => {
                    out.json(&json!({"schema_version": SCHEMA_VERSION, "prompt": prompt}));
                }
                Some(prompt) => out.text(&prompt),
                None => out.warn(format!(
                    "{} is a valid plan: nothing to repair (`steward plan import {} {}`)",
                    args.file.display(),
                    args.goal,
                    args.file.display()
                )),
            }
            Ok(ExitCode::Success)
        }
        PlanCommand::Show(args) => {
            let (goal, plan) = engine::plan::show(ctx, &args.goal)?;
            let goal = &goal;
            let Some(plan) = &plan else {
                if out.json {
                    out.json(&json!({"schema_version": SCHEMA_VERSION, "goal": goal.label, "plan": Value::Null}));
                } else if !out.quiet {
                    out.line(format!(
                        "{} has no plan (`steward plan prompt {}` asks an agent for one)",
                        goal.label, goal.label
                    ));
                }
                return Ok(ExitCode::Success);
            };
            if out.json {
                out.json(&json!({"schema_version": SCHEMA_VERSION, "goal": goal.label, "plan": plan_json(plan)}));
            } else {
                show(plan, out);
            }
            Ok(ExitCode::Success)
        }
    }
}

/// The plan as a tree, each node with its status and its share done.
fn show(plan: &Plan, out: &mut Output) {
    out.line(format!("plan: {} of its steps done", plan.overall()));
    let ready: Vec<&str> = plan.next_work().iter().map(|n| n.id.as_str()).collect();
    for (index, node) in plan.nodes.iter().enumerate() {
        let indent = "  ".repeat(node.level.depth());
        let mark = match node.status {
            NodeStatus::Done => "[x]",
            NodeStatus::Cancelled => "[-]",
            _ => "[ ]",
        };
        let mut line = format!("{indent}{mark} {} {}", node.id, node.name);
        if !node.children.is_empty() {
            line.push_str(&format!("  {}%", plan.tally(index).percent()));
        }
        let mut notes = Vec::new();
        if !matches!(node.status, NodeStatus::Todo | NodeStatus::Done) {
            notes.push(match &node.reason {
                Some(reason) => format!("{}: {reason}", node.status),
                None => node.status.to_string(),
            });
        }
        if ready.contains(&node.id.as_str()) && node.status != NodeStatus::InProgress {
            notes.push("ready".to_string());
        }
        if !node.after.is_empty() {
            notes.push(format!("after {}", node.after.join(", ")));
        }
        if !notes.is_empty() {
            line.push_str(&format!("  ({})", notes.join("; ")));
        }
        out.line(line);
    }
}
