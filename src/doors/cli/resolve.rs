//! `steward resolve`: finish a merge `sync` could not make.

use crate::exit::ExitCode;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::resolve::{self, Choice};
use crate::error::Result;

/// Choose which version of a file both machines changed is kept, after
/// `steward sync` stopped on a conflict: ours, theirs, or a file you
/// merged by hand. Once every conflicted file has a choice, the merge is
/// made again with them and committed, the chosen goals are taken as
/// yours, and the copies under state/conflicts/ are removed; `steward
/// sync` then pushes it. A person's command.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("choice").required(true).args(["ours", "theirs", "file"])))]
pub struct ResolveArgs {
    /// The goal's label, or the conflicted file's path as git names it
    goal: String,
    /// Keep this machine's version
    #[arg(long)]
    ours: bool,
    /// Keep the remote's version
    #[arg(long)]
    theirs: bool,
    /// Keep the version in PATH (merged by hand from state/conflicts/)
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
}

pub fn run(ctx: &Context, args: ResolveArgs, out: &mut Output) -> Result<ExitCode> {
    let choice = match (args.ours, args.theirs, args.file) {
        (true, _, _) => Choice::Ours,
        (_, true, _) => Choice::Theirs,
        (_, _, Some(path)) => Choice::File(path),
        _ => unreachable!("clap requires one"),
    };
    let resolved = resolve::resolve(ctx, &args.goal, &choice)?;
    for warning in &resolved.warnings {
        out.warn(warning.clone());
    }
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "path": resolved.path,
            "merged": resolved.merged,
            "waiting": resolved.waiting,
        }));
    } else if !out.quiet {
        if resolved.merged {
            out.line(format!(
                "{}: resolved; the merge is made and committed: `steward sync` pushes it",
                resolved.path
            ));
        } else {
            out.line(format!(
                "{}: chosen; the merge waits for the others:",
                resolved.path
            ));
            for command in &resolved.waiting {
                out.line(format!("  {command}"));
            }
        }
    }
    Ok(ExitCode::Success)
}
