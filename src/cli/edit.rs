//! `steward edit`: change a goal by hand in an editor, validated on save.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::Command;

use clap::Args;

use super::Output;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{CheckKind, Goal, Priority, Status};
use crate::store::{Change, GoalFile, LoadedGoal};

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

pub fn run(ctx: &Context, args: EditArgs, out: &mut Output) -> Result<u8> {
    let loaded = ctx.store.resolve(&args.goal)?;
    super::refuse_terminal(&loaded.goal)?;
    let draft = ctx
        .store
        .drafts_dir()
        .join(format!("{}.md", loaded.goal.label));
    if draft.exists() {
        eprintln!("steward: reopening your unsaved draft {}", draft.display());
    } else {
        std::fs::create_dir_all(ctx.store.drafts_dir())
            .map_err(|err| Error::io(&ctx.store.drafts_dir(), "cannot create directory", err))?;
        std::fs::write(&draft, loaded.file.text())
            .map_err(|err| Error::io(&draft, "cannot write draft", err))?;
    }
    loop {
        run_editor(ctx, &draft)?;
        let text = std::fs::read_to_string(&draft)
            .map_err(|err| Error::io(&draft, "cannot read draft", err))?;
        if text == loaded.file.text() {
            remove_draft(&draft)?;
            if !ctx.quiet {
                out.line(super::render::confirmation(ctx, &loaded.goal, "no changes"));
            }
            return Ok(0);
        }
        match validate(ctx, &loaded, &draft, text) {
            Ok(file) => return save(ctx, &loaded, file, &draft, out),
            Err(problems) => {
                for problem in &problems {
                    eprintln!("{problem}");
                }
                if std::io::stdin().is_terminal() && ask_again() {
                    continue;
                }
                return Err(Error::failure(format!(
                    "the goal was not changed; your draft is kept at {} (run `steward edit {}` to reopen it, or delete it to start over)",
                    draft.display(),
                    loaded.goal.label
                )));
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
        .map_err(|err| Error::failure(format!("cannot start editor `{editor}`: {err}")))?;
    if !status.success() {
        return Err(Error::failure(format!(
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

/// Parses the draft and checks what a hand edit may not do. Problems are
/// located in the draft, where the line numbers apply.
fn validate(
    ctx: &Context,
    loaded: &LoadedGoal,
    draft: &Path,
    text: String,
) -> Result<GoalFile, Vec<String>> {
    let parsed = GoalFile::parse(draft, text).map_err(|p| vec![p.to_string()])?;
    let goal = parsed
        .goal(&ctx.config.defaults)
        .map_err(|p| vec![p.to_string()])?;
    let mut problems = Vec::new();
    let mut at = |key: &[&str], message: String| {
        problems.push(parsed.problem_at_key(key, message).to_string())
    };
    if goal.label != loaded.goal.label && ctx.store.label_taken(&goal.label) {
        at(&["label"], format!("goal `{}` is already open", goal.label));
    }
    match &goal.status {
        Status::Unknown(status) => at(&["status"], format!("unknown status `{status}`")),
        Status::Completed if loaded.goal.status != Status::Completed => at(
            &["status"],
            "a goal is completed only by `steward complete`, which checks it".to_string(),
        ),
        _ => {}
    }
    if let Priority::Unknown(priority) = &goal.priority {
        at(
            &["priority"],
            format!("unknown priority `{priority}`: expected critical, high, normal or low"),
        );
    }
    for check in &goal.verification {
        if let CheckKind::Unknown(kind) = &check.kind {
            at(&["verification"], format!("unknown check type `{kind}`"));
        }
        if let Some(n) = check.criterion.filter(|n| *n > goal.criteria.len()) {
            at(
                &["verification"],
                format!(
                    "check tied to criterion {n}, but there are {} criteria",
                    goal.criteria.len()
                ),
            );
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(GoalFile::parse(&loaded.file.path, parsed.text().to_string()).expect("the draft parsed"))
}

fn save(
    ctx: &Context,
    loaded: &LoadedGoal,
    file: GoalFile,
    draft: &Path,
    out: &mut Output,
) -> Result<u8> {
    let mut tx = ctx.transaction()?;
    let current = tx.resolve(&loaded.goal.id)?;
    if current.file.text() != loaded.file.text() {
        return Err(Error::failure(format!(
            "{} changed while you were editing; your draft is kept at {}: merge it by hand, then run `steward edit {}` again",
            current.file.path.display(),
            draft.display(),
            loaded.goal.label
        )));
    }
    let edited = file.goal(&ctx.config.defaults)?;
    let detail = changed_fields(&loaded.goal, &edited).join(", ");
    let saved = tx.save(Some(&current), file, Change::new("edited", detail))?;
    super::finish(tx, out)?;
    remove_draft(draft)?;
    super::report(ctx, out, saved, &current, "edited")?;
    Ok(0)
}

fn remove_draft(draft: &Path) -> Result<()> {
    std::fs::remove_file(draft).map_err(|err| Error::io(draft, "cannot remove draft", err))
}

/// Names of what a hand edit changed, for the history line.
fn changed_fields(before: &Goal, after: &Goal) -> Vec<&'static str> {
    let fields: [(&str, bool); 13] = [
        ("label", before.label != after.label),
        ("title", before.title != after.title),
        ("status", before.status != after.status),
        ("priority", before.priority != after.priority),
        ("confirmed", before.confirmed != after.confirmed),
        ("tags", before.tags != after.tags),
        ("description", before.description != after.description),
        ("criteria", before.criteria != after.criteria),
        ("verification", before.verification != after.verification),
        ("budget", before.budget != after.budget),
        ("bounds", before.bounds != after.bounds),
        ("blockers", before.blockers != after.blockers),
        (
            "other keys",
            before.extra != after.extra
                || before.progress != after.progress
                || before.escalation != after.escalation,
        ),
    ];
    let changed: Vec<&str> = fields
        .iter()
        .filter(|(_, changed)| *changed)
        .map(|(name, _)| *name)
        .collect();
    if changed.is_empty() {
        vec!["formatting"]
    } else {
        changed
    }
}
