//! `steward complete`: the judge. The only way a goal reaches `completed`.

use crate::exit::ExitCode;
use clap::Args;

use super::{Output, args};
use crate::context::Context;
use crate::engine::{self, CompleteRequest, Judged};
use crate::error::Result;

/// Judge a goal done and close it: run every mechanical check now and
/// require each to pass and every acceptance criterion to be met (criteria
/// given with --met and those of passing checks count). Otherwise refuse
/// with exit 4, say what is missing, and change nothing.
///
/// A `manual` check stands for a person's judgement: it passes only when a
/// human runs this command (--actor user, the default).
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,

    /// Why the goal is done: the evidence
    #[arg(long, value_parser = args::one_line)]
    reason: String,

    /// Criterion N is met; repeat for more
    #[arg(long, value_name = "N", value_parser = args::criterion_number)]
    met: Vec<usize>,

    /// The agent run this belongs to
    #[arg(long, value_name = "ID", env = "STEWARD_DISPATCH_ID")]
    dispatch_id: Option<String>,
}

pub fn run(ctx: &Context, args: CompleteArgs, out: &mut Output) -> Result<ExitCode> {
    let request = CompleteRequest {
        reason: args.reason,
        met: args.met,
        dispatch_id: args.dispatch_id,
    };
    match engine::complete(ctx, &args.goal, &request)? {
        Judged::Completed(saved) => {
            super::report(ctx, out, saved, "completed")?;
            Ok(ExitCode::Success)
        }
        Judged::AwaitsPerson { saved, criteria } => {
            let label = saved.goal.goal.label.clone();
            let numbers: Vec<String> = criteria.iter().map(usize::to_string).collect();
            super::report(ctx, out, saved, "verifying: waits for a person")?;
            out.warn(format!(
                "criteria {} of `{label}` rest on the agent's word and judge.unchecked is person: the goal waits in verifying; the person runs: steward complete {label} --reason \"...\"",
                numbers.join(", ")
            ));
            Ok(ExitCode::Refused)
        }
        Judged::AwaitsMerge(saved) => {
            let why = saved
                .goal
                .goal
                .waiting
                .as_ref()
                .map(|w| w.reason.clone())
                .unwrap_or_default();
            super::report(
                ctx,
                out,
                saved,
                "verifying: its checks pass in the run's worktree",
            )?;
            out.warn(why);
            Ok(ExitCode::Success)
        }
    }
}
