//! `steward mirror`: regenerate or check the ACTIVE-TASKS.md block.

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::mirror;
use crate::store::Scope;

/// Regenerate steward's block in ACTIVE-TASKS.md (mirror.path) from every
/// open goal. Everything outside the block stays as it is; the file and the
/// block are created when missing. With --check, change nothing and exit 1
/// when the block is stale.
#[derive(Debug, Args)]
pub struct MirrorArgs {
    /// Exit 1 when the block differs from what steward would write
    #[arg(long)]
    check: bool,
}

pub fn run(ctx: &Context, args: MirrorArgs, out: &mut Output) -> Result<u8> {
    let Some(path) = ctx.store.mirror_path.clone() else {
        if !ctx.quiet {
            out.line("the mirror is disabled (mirror.enabled: false)");
        }
        return Ok(0);
    };
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(Error::io(&path, "cannot read mirror", err)),
    };
    let broken = |(line, message): (usize, String)| {
        Error::failure(format!(
            "{}:{line}:1: {message}; fix the markers by hand",
            path.display()
        ))
    };
    let current = match &existing {
        Some(text) => mirror::current_content(text).map_err(broken)?,
        None => None,
    };
    let display = path.display();
    if args.check {
        let scan = ctx.store.scan(Scope::Open)?;
        let book = ctx.store.obligations()?;
        let goals: Vec<_> = scan.goals.iter().map(|g| &g.goal).collect();
        let expected = mirror::render_block(&goals, &book);
        for problem in &scan.problems {
            out.warn(problem.to_string());
        }
        if current.as_deref() == Some(expected.as_str()) {
            if !ctx.quiet {
                out.line(format!("{display} is up to date"));
            }
            return Ok(0);
        }
        if !ctx.quiet {
            out.line(format!("{display} is stale: run `steward mirror`"));
        }
        return Ok(1);
    }
    let mut tx = ctx.transaction()?;
    let scan = tx.scan(Scope::Open)?;
    let book = tx.store().obligations()?;
    tx.render_mirror(
        &scan.goals.iter().map(|g| &g.goal).collect::<Vec<_>>(),
        &book,
    );
    let finished = tx.finish()?;
    if let Some(warning) = finished.warnings.into_iter().next() {
        return Err(Error::failure(warning));
    }
    for problem in &scan.problems {
        out.warn(problem.to_string());
    }
    if !ctx.quiet {
        let what = if finished.written.contains(&path) {
            "updated"
        } else {
            "already up to date"
        };
        out.line(format!(
            "{display} {what} ({} open goals)",
            scan.goals.len()
        ));
    }
    Ok(if scan.problems.is_empty() { 0 } else { 1 })
}
