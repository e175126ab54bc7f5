//! `steward report --html DIR`: the page to look at.

use crate::exit::ExitCode;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::report::{ReportRequest, report};
use crate::error::Result;

/// Write one self-contained HTML page to DIR/index.html (DIR is created):
/// the open goals by status with bars for criteria met and budget used,
/// their plans, what waits for a person with the command to run, goals
/// closed, events and agent runs since a time, and spend. No script,
/// nothing fetched from anywhere; it reads well without its style and on
/// a phone. Cron can make it and a web server publish DIR. Exit 0 (1 on
/// error).
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The directory to write index.html in
    #[arg(long, value_name = "DIR")]
    html: PathBuf,

    /// Show goals closed, events and runs since: RFC 3339, a date, or a
    /// duration back from now such as 24h
    #[arg(long, value_name = "WHEN", default_value = "24h")]
    since: String,
}

pub fn run(ctx: &Context, args: ReportArgs, out: &mut Output) -> Result<ExitCode> {
    // It writes where it is told, outside the store too.
    crate::engine::authority::person_only(ctx, "write the report page", || {
        format!("steward report --html {}", args.html.display())
    })?;
    let since = super::args::since_time(ctx.now, &args.since)?;
    let written = report(
        ctx,
        &ReportRequest {
            dir: args.html,
            since,
        },
        super::page::render,
    )?;
    for problem in &written.problems {
        out.warn(problem.clone());
    }
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "path": written.path,
            "open_goals": written.open_goals,
        }));
    } else if !out.quiet {
        out.line(format!(
            "wrote {} ({})",
            written.path.display(),
            crate::text::count(written.open_goals, "open goal", "open goals")
        ));
    }
    Ok(ExitCode::Success)
}
