//! `edit`: a person changes a goal by hand. The editor runs in the command
//! layer; this keeps the draft, validates it and saves it.

use std::path::PathBuf;

use super::{Saved, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{CheckKind, Goal, GoalChange, Priority, Status};
use crate::store::{Field, GoalFile, LoadedGoal};

/// A goal opened for editing, with the draft the person edits.
#[derive(Debug)]
pub struct Draft {
    pub goal: LoadedGoal,
    pub path: PathBuf,
    /// The goal's text when the draft was taken, kept beside the draft.
    base: PathBuf,
    /// The draft was left by an earlier edit that did not validate.
    pub reopened: bool,
}

/// Opens a draft copy of the goal under `state/edits/`, or the draft an
/// earlier edit kept. A kept draft of a goal that changed since is never
/// reopened as if nothing happened: the error shows what changed in the
/// goal and keeps both.
pub fn open(ctx: &Context, reference: &str) -> Result<Draft> {
    let goal = ctx.store.resolve(reference)?;
    refuse_terminal(&goal.goal)?;
    super::authority::person_only(ctx, "edit a goal by hand", || {
        format!("steward edit {}", goal.goal.label)
    })?;
    ctx.store.check_own_directories()?;
    let drafts = ctx.store.drafts_dir();
    let path = drafts.join(format!("{}.md", goal.goal.label));
    let base = drafts.join(format!("{}.md.base", goal.goal.label));
    let reopened = path.symlink_metadata().is_ok();
    if reopened && !path.symlink_metadata().is_ok_and(|m| m.is_file()) {
        return Err(Error::UnsafePath {
            path,
            why: "not a plain file: steward does not follow links in its state",
        });
    }
    if reopened {
        // Drafts kept before the base was recorded are taken as current.
        if let Some(taken_from) = crate::os::safe_file::read_state(&base)
            && taken_from != goal.file.text()
        {
            return Err(Error::StaleDraft {
                label: goal.goal.label.clone(),
                draft: path,
                changes: crate::text::line_diff(&taken_from, goal.file.text()),
            });
        }
    } else {
        ctx.store.write_private(&path, goal.file.text())?;
        ctx.store.write_private(&base, goal.file.text())?;
    }
    Ok(Draft {
        goal,
        path,
        base,
        reopened,
    })
}

/// What the person's draft amounts to.
#[derive(Debug)]
pub enum Reviewed {
    /// The draft is the goal as it was.
    Unchanged,
    /// A valid edit, ready to save.
    Valid(GoalFile),
    /// What is wrong, as `path:line:col: message` in the draft.
    Invalid(Vec<String>),
}

/// Reads the draft and checks what a hand edit may not do. Problems are
/// located in the draft, where the line numbers apply.
pub fn review(ctx: &Context, draft: &Draft) -> Result<Reviewed> {
    let text = crate::os::safe_file::read_text(&draft.path, crate::config::MAX_FILE_BYTES)
        .map_err(|err| Error::io(&draft.path, "cannot read draft", err))?
        .ok_or_else(|| {
            Error::io(
                &draft.path,
                "cannot read draft",
                std::io::Error::from(std::io::ErrorKind::NotFound),
            )
        })?;
    if text == draft.goal.file.text() {
        remove(draft)?;
        return Ok(Reviewed::Unchanged);
    }
    let parsed = match GoalFile::parse(&draft.path, text) {
        Ok(parsed) => parsed,
        Err(problem) => return Ok(Reviewed::Invalid(vec![problem.to_string()])),
    };
    let goal = match parsed.goal(&ctx.config.defaults) {
        Ok(goal) => goal,
        Err(problem) => return Ok(Reviewed::Invalid(vec![problem.to_string()])),
    };
    let before = &draft.goal.goal;
    let mut problems = Vec::new();
    let mut at = |field: Field, message: String| {
        problems.push(parsed.problem_at(field, message).to_string())
    };
    if goal.label != before.label && ctx.store.label_taken(&goal.label) {
        at(
            Field::Label,
            format!("goal `{}` is already open", goal.label),
        );
    }
    match &goal.status {
        Status::Unknown(status) => at(Field::Status, format!("unknown status `{status}`")),
        Status::Completed if before.status != Status::Completed => at(
            Field::Status,
            "a goal is completed only by `steward complete`, which checks it".to_string(),
        ),
        _ => {}
    }
    if let Priority::Unknown(priority) = &goal.priority {
        at(
            Field::Priority,
            format!("unknown priority `{priority}`: expected critical, high, normal or low"),
        );
    }
    for check in &goal.verification {
        if let CheckKind::Unknown(kind) = &check.kind {
            at(Field::Verification, format!("unknown check type `{kind}`"));
        }
        if let Some(n) = check.criterion.filter(|n| *n > goal.criteria.len()) {
            at(
                Field::Verification,
                format!(
                    "check tied to criterion {n}, but there are {}",
                    crate::text::count(goal.criteria.len(), "criterion", "criteria")
                ),
            );
        }
    }
    if !problems.is_empty() {
        return Ok(Reviewed::Invalid(problems));
    }
    let file = GoalFile::parse(&draft.goal.file.path, parsed.text().to_string())
        .expect("the draft parsed");
    Ok(Reviewed::Valid(file))
}

/// Saves a valid draft over the goal, unless the goal changed since the
/// draft was taken; then the draft is kept and nothing is written.
pub fn save(ctx: &Context, draft: &Draft, file: GoalFile) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let current = tx.refind(&draft.goal.goal.id, &draft.goal.goal.label)?;
    if current.file.text() != draft.goal.file.text() {
        return Err(Error::ChangedMeanwhile {
            path: current.file.path.clone(),
            what: format!(
                "changed while you were editing; your draft is kept at {}",
                draft.path.display()
            ),
            hint: format!(
                "merge it by hand, then run `steward edit {}` again",
                draft.goal.goal.label
            ),
        });
    }
    let edited = file.goal(&ctx.config.defaults)?;
    let detail = changed_fields(&draft.goal.goal, &edited).join(", ");
    let written = tx.save_edited(&current, file, GoalChange::new("edited", detail))?;
    let saved = super::saved(tx, written, current)?;
    remove(draft)?;
    Ok(saved)
}

/// The person gave up on an invalid draft: the goal is unchanged and the
/// draft kept for the next `edit`.
pub fn kept(draft: &Draft) -> Error {
    Error::DraftKept {
        path: draft.path.clone(),
        label: draft.goal.goal.label.clone(),
    }
}

fn remove(draft: &Draft) -> Result<()> {
    for path in [&draft.path, &draft.base] {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(Error::io(path, "cannot remove draft", err)),
        }
    }
    Ok(())
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
