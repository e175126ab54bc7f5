//! `steward init`: create the configuration and the goal directory.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Create steward.yaml (every key, commented, with its default) and
/// state/goals/ in the working directory, or in the root given with -C.
/// Running it again creates only what is missing.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also create a git repository (unless the root is already inside one),
    /// mark the event log `merge=union` in .gitattributes, turn git.commit
    /// on (not with --no-commit) and commit what init wrote
    #[arg(long)]
    git: bool,
}

/// Lines steward needs in files it shares with the user; appended when
/// missing, never rewritten.
pub fn run(ctx: &Context, args: InitArgs, out: &mut Output) -> Result<ExitCode> {
    let initialized = engine::init(ctx, args.git)?;
    super::notices(out, initialized.notices);
    let created = initialized.created;
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "root": ctx.root.display().to_string(), "created": created}));
    } else if !out.quiet {
        if created.is_empty() {
            out.line(format!(
                "steward is already set up in {}",
                ctx.root.display()
            ));
        } else {
            out.line(format!("Set up steward in {}", ctx.root.display()));
            for path in &created {
                out.line(format!("  created {path}"));
            }
            out.line("Next: steward add LABEL --title TITLE --criterion WHAT-DONE-MEANS");
        }
    }
    Ok(ExitCode::Success)
}
