//! `steward doctor`: check configuration, every goal file and the lock.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Check the configuration, every goal file (open and closed), the lock and
/// leftovers; print each problem as path:line:col: message. Exit 0 when all
/// is well, 1 otherwise. Nothing is changed, unless --fix.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Repair what git needs to merge a shared store: steward's
    /// .gitattributes lines and its merge driver in .git/config (a
    /// person's command)
    #[arg(long)]
    fix: bool,
}

pub fn run(ctx: &Context, args: DoctorArgs, out: &mut Output) -> Result<ExitCode> {
    if args.fix {
        for fixed in engine::git_setup::fix(ctx)? {
            out.warn(format!("fixed: {fixed}"));
        }
    }
    let diagnosis = engine::doctor(ctx)?;
    let problems = &diagnosis.problems;
    if out.json {
        let list: Vec<_> = problems
            .iter()
            .map(|p| json!({"path": p.path, "line": p.line, "column": p.column, "message": p.message}))
            .collect();
        let local: Vec<_> = diagnosis
            .local_state
            .iter()
            .map(|(what, files, bytes)| json!({"what": what, "files": files, "bytes": bytes}))
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "checked": diagnosis.checked, "problems": list, "notes": diagnosis.notes, "local_state": local}));
    } else {
        for problem in problems {
            out.line(problem.to_string());
        }
        for note in &diagnosis.notes {
            out.line(format!("note: {note}"));
        }
        if problems.is_empty() && !out.quiet {
            out.line(format!(
                "ok: {} checked, no problems",
                crate::text::count(diagnosis.readable, "goal file", "goal files")
            ));
        }
    }
    Ok(ExitCode::failure_if(!problems.is_empty()))
}
