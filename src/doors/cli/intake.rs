//! `steward intake owner/repo --label L`: a goal for every open GitHub issue
//! with that label that no goal has yet (steward-guide(7), "Goals from
//! issues").

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::intake;
use crate::error::Result;

/// Make a goal of every open issue of REPO labelled LABEL that no goal has
/// yet (a person's command; run it again and it takes only new ones): each
/// as `add --from-issue` makes it. An issue a goal already has (open or
/// closed, by its origin) is left alone; one that cannot become a goal is
/// said and the others go on (exit 1).
#[derive(Debug, Args)]
pub struct IntakeArgs {
    /// The repository, owner/repo
    repo: String,
    /// The issues' label
    #[arg(long)]
    label: String,
}

pub fn run(ctx: &Context, args: IntakeArgs, out: &mut Output) -> Result<ExitCode> {
    let done = intake::intake(ctx, &args.repo, &args.label)?;
    let code = if done.failed.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::Failure
    };
    let pairs = |list: &[(u64, String)], key: &str| -> Vec<serde_json::Value> {
        list.iter()
            .map(|(n, text)| json!({"issue": n, key: text}))
            .collect()
    };
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "added": pairs(&done.added, "goal"),
            "taken": pairs(&done.taken, "goal"),
            "failed": pairs(&done.failed, "error"),
        }));
        return Ok(code);
    }
    for (number, label) in &done.added {
        out.line(format!("{}#{number}: added as goal {label}", args.repo));
    }
    if !out.quiet {
        for (number, label) in &done.taken {
            out.line(format!("{}#{number}: already goal {label}", args.repo));
        }
    }
    for (number, why) in &done.failed {
        out.warn(format!("{}#{number}: no goal made: {why}", args.repo));
    }
    if done.added.is_empty() && done.taken.is_empty() && done.failed.is_empty() && !out.quiet {
        out.line(format!(
            "no open issue of {} is labelled {}",
            args.repo, args.label
        ));
    }
    Ok(code)
}
