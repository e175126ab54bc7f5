//! `steward edit`: change a goal by hand in an editor, validated on save.

use crate::exit::ExitCode;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::Command;

use clap::Args;

use super::{Output, render};
use crate::context::Context;
use crate::engine::edit::{self, Reviewed};
use crate::error::{Error, Result};

/// Open a goal in $VISUAL or $EDITOR (else vi) and validate it when the
/// editor exits.
///
/// You edit a draft copy under state/edits/; the goal file changes only when
/// the draft is valid. An invalid draft is reported as path:line:col and
/// kept, and the next `steward edit` of the goal reopens it; delete the draft
/// to start over.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// A label, an id, or at least 4 characters of an id
    goal: String,
}

pub fn run(ctx: &Context, args: EditArgs, out: &mut Output) -> Result<ExitCode> {
    let draft = edit::open(ctx, &args.goal)?;
    if draft.reopened {
        eprintln!(
            "steward: reopening your unsaved draft {}",
            draft.path.display()
        );
    }
    loop {
        run_editor(ctx, &draft.path)?;
        match edit::review(ctx, &draft)? {
            Reviewed::Unchanged => {
                if !out.quiet {
                    let line = render::confirmation(out, &draft.goal.goal, "no changes");
                    out.line(line);
                }
                return Ok(ExitCode::Success);
            }
            Reviewed::Valid(file) => {
                let saved = edit::save(ctx, &draft, file)?;
                super::report(ctx, out, saved, "edited")?;
                return Ok(ExitCode::Success);
            }
            Reviewed::Invalid(problems) => {
                for problem in &problems {
                    eprintln!("{}", super::clean(problem, false));
                }
                if std::io::stdin().is_terminal() && ask_again() {
                    continue;
                }
                return Err(edit::kept(&draft));
            }
        }
    }
}

fn run_editor(ctx: &Context, path: &Path) -> Result<()> {
    let editor = ctx
        .env
        .var("VISUAL")
        .or(ctx.env.var("EDITOR"))
        .unwrap_or("vi");
    // Through the shell, as git does, so EDITOR="code --wait" works.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("steward-edit")
        .arg(path)
        .status()
        .map_err(|err| Error::Program(format!("cannot start editor `{editor}`: {err}")))?;
    if !status.success() {
        return Err(Error::Program(format!(
            "editor `{editor}` failed ({status}); the goal was not changed, the draft is at {}",
            path.display()
        )));
    }
    Ok(())
}

fn ask_again() -> bool {
    eprint!("Edit again? [Y/n] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    !matches!(answer.trim().to_ascii_lowercase().as_str(), "n" | "no")
}
