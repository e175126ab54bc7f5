//! `steward handoff GOAL`: what this session leaves for the next.

use crate::exit::ExitCode;
use std::path::PathBuf;

use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine;
use crate::error::{Error, Result};
use crate::model::{Decision, Handoff, HandoffEvidence};

/// Record what this session leaves for the next: where things stand, what
/// was decided and why, what to do next, what is open, what blocks, and
/// the evidence. The latest handoff is shown by `show`, in the stewardship
/// block and in the next run's instruction, so a fresh session starts where
/// this one stopped; every handoff is in the event log. Give it as JSON
/// (--from-json: summary, current_state, decisions[{decision, rationale}],
/// next_actions[], open_questions[], blockers[], evidence{files, commands,
/// tests, commits, prs, urls}) or with the options.
#[derive(Debug, Args)]
pub struct HandoffArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// The plan node the handoff is about
    #[arg(long, value_name = "ID")]
    node: Option<String>,

    /// Read the handoff as JSON from FILE ("-": stdin)
    #[arg(long, value_name = "FILE", conflicts_with = "summary")]
    from_json: Option<PathBuf>,

    /// What happened, in a line
    #[arg(long, value_parser = args::one_line, required_unless_present = "from_json")]
    summary: Option<String>,

    /// Where things stand now
    #[arg(long = "state", value_name = "TEXT", value_parser = args::one_line)]
    current_state: Option<String>,

    /// A decision taken; repeat for more
    #[arg(long = "decision", value_name = "TEXT", value_parser = args::one_line)]
    decisions: Vec<String>,

    /// Why, for the decision in the same position; repeat for more
    #[arg(long = "rationale", value_name = "TEXT", value_parser = args::one_line)]
    rationales: Vec<String>,

    /// The next action; repeat for more
    #[arg(long = "next", value_name = "TEXT", value_parser = args::one_line)]
    next_actions: Vec<String>,

    /// A question left open; repeat for more
    #[arg(long = "question", value_name = "TEXT", value_parser = args::one_line)]
    open_questions: Vec<String>,

    /// What blocks the work; repeat for more
    #[arg(long = "blocker", value_name = "TEXT", value_parser = args::one_line)]
    blockers: Vec<String>,

    /// A file touched; repeat for more
    #[arg(long = "file", value_name = "PATH", value_parser = args::one_line)]
    files: Vec<String>,

    /// A command run; repeat for more
    #[arg(long = "command", value_name = "TEXT", value_parser = args::one_line)]
    commands: Vec<String>,

    /// A test run; repeat for more
    #[arg(long = "test", value_name = "TEXT", value_parser = args::one_line)]
    tests: Vec<String>,

    /// A commit; repeat for more
    #[arg(long = "commit-id", value_name = "ID", value_parser = args::one_line)]
    commits: Vec<String>,

    /// A pull request; repeat for more
    #[arg(long = "pr", value_name = "REF", value_parser = args::one_line)]
    prs: Vec<String>,

    /// A URL; repeat for more
    #[arg(long = "url", value_name = "URL", value_parser = args::one_line)]
    urls: Vec<String>,
}

pub fn run(ctx: &Context, args: HandoffArgs, out: &mut Output) -> Result<ExitCode> {
    let handoff = match &args.from_json {
        Some(source) => engine::handoff::parse(&args::read_input(source)?)?,
        None => from_options(&args)?,
    };
    let saved = engine::handoff::handoff(ctx, &args.goal, handoff, args.node.clone())?;
    super::report(ctx, out, saved, "handoff recorded")?;
    Ok(ExitCode::Success)
}

fn from_options(args: &HandoffArgs) -> Result<Handoff> {
    if args.rationales.len() > args.decisions.len() {
        return Err(Error::bad_value(
            "--rationale",
            "each --rationale goes with the --decision in the same position",
        ));
    }
    Ok(Handoff {
        summary: args.summary.clone().unwrap_or_default(),
        current_state: args.current_state.clone(),
        decisions: args
            .decisions
            .iter()
            .enumerate()
            .map(|(i, decision)| Decision {
                decision: decision.clone(),
                rationale: args.rationales.get(i).cloned(),
            })
            .collect(),
        next_actions: args.next_actions.clone(),
        open_questions: args.open_questions.clone(),
        blockers: args.blockers.clone(),
        evidence: HandoffEvidence {
            files: args.files.clone(),
            commands: args.commands.clone(),
            tests: args.tests.clone(),
            commits: args.commits.clone(),
            prs: args.prs.clone(),
            urls: args.urls.clone(),
        },
        ..Handoff::default()
    })
}
