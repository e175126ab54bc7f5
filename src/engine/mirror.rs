//! The `ACTIVE-TASKS.md` mirror on demand: regenerate its block, or check
//! that it is current.

use std::path::PathBuf;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::Scope;
use crate::store::mirror;

/// The mirror after a refresh.
#[derive(Debug)]
pub struct MirrorRefresh {
    pub path: PathBuf,
    pub updated: bool,
    pub open_goals: usize,
    /// Goal files that could not be read (left out of the block).
    pub problems: Vec<String>,
}

/// Whether the mirror's block matches the open goals.
#[derive(Debug)]
pub struct MirrorCheck {
    pub path: PathBuf,
    pub current: bool,
    pub problems: Vec<String>,
}

/// The current block of the mirror at `path`, `None` when there is none
/// yet; broken markers are an error and the file is left alone.
fn current_block(path: &std::path::Path) -> Result<Option<String>> {
    let existing = match crate::os::safe_file::read_text(path, crate::os::safe_file::STATE_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(None),
        Err(err) => return Err(Error::io(path, "cannot read mirror", err)),
    };
    mirror::current_content(&existing)
        .map(|content| content.map(std::borrow::Cow::into_owned))
        .map_err(|(line, message)| Error::BrokenMirror {
            path: path.to_path_buf(),
            line,
            message,
        })
}

/// `None` when the mirror is disabled (`mirror.enabled: false`).
pub fn check_mirror(ctx: &Context) -> Result<Option<MirrorCheck>> {
    let Some(path) = ctx.store.mirror_path.clone() else {
        return Ok(None);
    };
    let current = current_block(&path)?;
    let scan = ctx.store.scan(Scope::Open)?;
    let book = ctx.store.obligations()?;
    let goals: Vec<_> = scan.goals.iter().map(|g| &*g.goal).collect();
    let expected = mirror::render_block(&goals, &book, ctx.store.mirror_max_goals);
    Ok(Some(MirrorCheck {
        current: current.as_deref() == Some(expected.as_str()),
        path,
        problems: scan.problems.iter().map(ToString::to_string).collect(),
    }))
}

/// Regenerates the block from every open goal; `None` when the mirror is
/// disabled. A mirror steward cannot update is an error.
pub fn refresh_mirror(ctx: &Context) -> Result<Option<MirrorRefresh>> {
    let Some(path) = ctx.store.mirror_path.clone() else {
        return Ok(None);
    };
    current_block(&path)?;
    let mut tx = ctx.transaction()?;
    let scan = tx.scan(Scope::Open)?;
    let book = tx.store().obligations()?;
    tx.render_mirror(
        &scan.goals.iter().map(|g| &*g.goal).collect::<Vec<_>>(),
        &book,
    );
    let finished = tx.finish()?;
    if let Some(warning) = finished.warnings.into_iter().next() {
        return Err(Error::MirrorNotUpdated(warning));
    }
    Ok(Some(MirrorRefresh {
        updated: finished.written.contains(&path),
        path,
        open_goals: scan.goals.len(),
        problems: scan.problems.iter().map(ToString::to_string).collect(),
    }))
}
