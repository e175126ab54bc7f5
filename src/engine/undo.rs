//! `undo` and `delete`: a person takes back the last change steward made to
//! a goal, or removes a goal registered by mistake. Both leave their trace
//! in the event log; a deletion can be undone like any other change.

use super::Saved;
use super::authority::person_only;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{GoalChange, UndoRecord};
use crate::store::{GoalFile, LoadedGoal};

/// What `undo` took back.
#[derive(Debug)]
pub struct Undone {
    pub saved: Saved,
    /// "assess at 2026-11-21T04:00:00Z (assessed, blocked)".
    pub what: String,
    /// The change created the goal: undoing it deleted the goal.
    pub deleted: bool,
}

/// Restores the goal as it was before the last command that changed it,
/// when nothing changed it since: not by hand (its bytes are the ones that
/// command left) and not by steward (that command's event is the goal's
/// last in the log). A deleted goal comes back; a goal the change created
/// is deleted. Undoing an undo redoes.
pub fn undo(ctx: &Context, reference: &str) -> Result<Undone> {
    person_only(ctx, "undo a change", || format!("steward undo {reference}"))?;
    let mut tx = ctx.transaction()?;
    let current = match tx.resolve(reference) {
        Ok(loaded) => Some(loaded),
        Err(Error::GoalNotFound { .. }) if tx.store().deleted_record(reference).is_some() => None,
        Err(err) => return Err(err),
    };
    let record = match &current {
        Some(loaded) => tx.store().undo_record(&loaded.goal.id),
        None => tx.store().deleted_record(reference),
    };
    let label = current
        .as_ref()
        .map_or_else(|| reference.to_string(), |l| l.goal.label.clone());
    let cannot = |why: String| Error::CannotUndo {
        label: label.clone(),
        why,
    };
    let Some(record) = record else {
        let forged = current.as_ref().is_some_and(|l| {
            tx.store()
                .undo_dir()
                .join(format!("{}.json", l.goal.id))
                .exists()
        });
        return Err(cannot(if forged {
            "its undo record does not verify with this machine's key (changed outside steward, or written by another machine): nothing is restored".to_string()
        } else {
            "steward keeps no change of it to take back (it keeps each goal's last change from now on)".to_string()
        }));
    };
    let what = format!(
        "{} at {} ({})",
        record.command,
        record.at,
        record.actions.join(", ")
    );
    check_still_last(ctx, &record, current.as_ref())
        .map_err(|why| cannot(format!("{why}; it was `{what}`")))?;
    let Some(before) = record.before.clone() else {
        let Some(loaded) = current else {
            return Err(cannot(
                "it is neither in the store nor was it before".to_string(),
            ));
        };
        tx.delete(&loaded, format!("undone: {what}"))?;
        let notices = super::finish(tx)?;
        return Ok(Undone {
            saved: Saved {
                goal: loaded,
                changed: true,
                notices,
            },
            what,
            deleted: true,
        });
    };
    let path = current.as_ref().map_or_else(
        || tx.store().open_path(&record.label),
        |l| l.file.path.clone(),
    );
    let file = GoalFile::parse(&path, before)
        .map_err(|problem| cannot(format!("what it was before no longer reads ({problem})")))?;
    let change = GoalChange::new("undone", what.clone()).always();
    let (written, before) = match current {
        Some(loaded) => (tx.save_edited(&loaded, file, change)?, loaded),
        None => {
            let restored = tx.restore(file, change)?;
            (Some(restored.clone()), restored)
        }
    };
    let saved = super::saved(tx, written, before)?;
    Ok(Undone {
        saved,
        what,
        deleted: false,
    })
}

/// Whether `undo` of `loaded` here would undo a change found made outside
/// steward, putting back what steward last wrote.
pub fn undoes_outside_edit(ctx: &Context, loaded: &LoadedGoal) -> bool {
    ctx.store
        .undo_record(&loaded.goal.id)
        .is_some_and(|record| {
            record.actions.last().is_some_and(|a| a == "edited_outside")
                && record.after.as_deref() == Some(loaded.file.text())
                && record.before.is_some()
        })
}

/// Why the change `record` kept is no longer the goal's last, if it is not.
fn check_still_last(
    ctx: &Context,
    record: &UndoRecord,
    current: Option<&LoadedGoal>,
) -> std::result::Result<(), String> {
    if current.map(|l| l.file.text()) != record.after.as_deref() {
        return Err("the goal changed since (by hand, or by a later check result)".to_string());
    }
    let events = ctx
        .store
        .log()
        .read_since(&record.at)
        .map_err(|err| err.to_string())?;
    let last = events
        .iter()
        .rev()
        .filter(|e| e.goal_id == record.goal_id)
        .find(|e| e.digest.is_some() || e.action == "deleted");
    let digest = current.map(|l| l.digest().into_owned());
    match last {
        Some(event) if event.ts == record.at && event.digest == digest => Ok(()),
        Some(_) => Err("a later change is in the event log".to_string()),
        None => Err("the event log does not have that change".to_string()),
    }
}

/// Removes a goal registered by mistake (a person's act): the file goes,
/// the event log keeps the goal's events and a `deleted` one, and `undo`
/// brings it back.
pub fn delete(ctx: &Context, reference: &str) -> Result<Saved> {
    let mut tx = ctx.transaction()?;
    let loaded = tx.resolve(reference)?;
    person_only(ctx, "delete a goal", || {
        format!("steward delete {}", loaded.goal.label)
    })?;
    let goal = &loaded.goal;
    tx.delete(
        &loaded,
        format!(
            "{} ({}): {}",
            goal.title,
            goal.status,
            crate::text::count(goal.criteria.len(), "criterion", "criteria")
        ),
    )?;
    let notices = super::finish(tx)?;
    Ok(Saved {
        goal: loaded,
        changed: true,
        notices,
    })
}
