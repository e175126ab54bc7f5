//! `steward mirror`: regenerate or check the ACTIVE-TASKS.md block.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine;
use crate::error::Result;

/// Regenerate steward's block in ACTIVE-TASKS.md (mirror.path) from every
/// open goal. Everything outside the block stays as it is; the file and the
/// block are created when missing. With --check, change nothing and exit 1
/// when the block is stale. --json prints {"schema_version":1, "path",
/// "enabled", "current"} with --check, {…, "updated", "open_goals"} without.
#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// Exit 1 when the block differs from what steward would write
    #[arg(long)]
    check: bool,
}

pub fn run(ctx: &Context, args: MirrorArgs, out: &mut Output) -> Result<ExitCode> {
    if args.check {
        let Some(check) = engine::check_mirror(ctx)? else {
            return Ok(disabled(out));
        };
        for problem in check.problems {
            out.warn(problem);
        }
        let display = check.path.display();
        if out.json {
            out.json(&json!({"schema_version": SCHEMA_VERSION, "path": display.to_string(), "enabled": true, "current": check.current}));
            return Ok(ExitCode::failure_if(!check.current));
        }
        if check.current {
            if !out.quiet {
                out.line(format!("{display} is up to date"));
            }
            return Ok(ExitCode::Success);
        }
        if !out.quiet {
            out.line(format!("{display} is stale: run `steward mirror`"));
        }
        return Ok(ExitCode::Failure);
    }
    let Some(refresh) = engine::refresh_mirror(ctx)? else {
        return Ok(disabled(out));
    };
    let failed = !refresh.problems.is_empty();
    for problem in refresh.problems {
        out.warn(problem);
    }
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "path": refresh.path.display().to_string(), "enabled": true, "updated": refresh.updated, "open_goals": refresh.open_goals}));
    } else if !out.quiet {
        let what = if refresh.updated {
            "updated"
        } else {
            "already up to date"
        };
        out.line(format!(
            "{} {what} ({})",
            refresh.path.display(),
            crate::text::count(refresh.open_goals, "open goal", "open goals")
        ));
    }
    Ok(ExitCode::failure_if(failed))
}

fn disabled(out: &mut Output) -> ExitCode {
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "enabled": false}));
    } else if !out.quiet {
        out.line("the mirror is disabled (mirror.enabled: false)");
    }
    ExitCode::Success
}
