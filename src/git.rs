//! Git, through libgit2: creating the repository that keeps the audit trail.

use std::path::Path;

use crate::error::{Error, Result};

/// Creates a repository at `root` unless `root` is already inside one.
/// Returns whether one was created.
pub fn ensure_repository(root: &Path) -> Result<bool> {
    if git2::Repository::discover(root).is_ok() {
        return Ok(false);
    }
    git2::Repository::init(root).map(|_| true).map_err(|err| {
        Error::failure(format!(
            "{}: cannot create a git repository: {}",
            root.display(),
            err.message()
        ))
    })
}
