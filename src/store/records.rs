//! The records the store keeps beside the goals: the event log, the
//! obligations, the undo records, and files private to this machine.

use std::path::Path;

use super::{FileText, Store, atomic, events, key};
use crate::error::{Error, FileProblem, Result};
use crate::model::book::Book;
use crate::os::safe_file;

impl Store {
    /// Writes a file of steward's own under `state/` (a draft, a cache)
    /// atomically; a symbolic link at `path` is replaced, never followed.
    pub fn write_private(&self, path: &Path, contents: &str) -> Result<()> {
        atomic::write(path, contents.as_bytes())
    }

    /// The undo record of the goal with `id`, if one is kept, reads, and
    /// verifies with this machine's key (one edited or written outside
    /// steward is as good as none: `undo` never writes what it cannot
    /// vouch for).
    pub fn undo_record(&self, id: &str) -> Option<crate::model::UndoRecord> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return None;
        }
        let path = self.undo_dir().join(format!("{id}.json"));
        let text = safe_file::read_text(&path, 4 * crate::config::MAX_FILE_BYTES)
            .ok()
            .flatten()?;
        let record: crate::model::UndoRecord = serde_json::from_str(&text).ok()?;
        let key = self.keys.key().ok()?;
        let mac = record.mac.as_deref()?;
        key.verifies(key::Domain::Undo, &[&record.signed_bytes()], mac)
            .then_some(record)
    }

    /// The undo record of a goal the last change deleted, by its label or
    /// id (a prefix of at least 4 characters), for `undo` of a `delete`.
    pub fn deleted_record(&self, reference: &str) -> Option<crate::model::UndoRecord> {
        let wanted = reference.trim().to_ascii_lowercase();
        let entries = std::fs::read_dir(self.undo_dir()).ok()?;
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                self.undo_record(name.strip_suffix(".json")?)
            })
            .filter(|record| record.after.is_none())
            .filter(|record| {
                record.label == wanted || (wanted.len() >= 4 && record.goal_id.starts_with(&wanted))
            })
            .max_by(|a, b| a.at.cmp(&b.at))
    }

    /// The obligations, oldest first. A file that cannot be read or does
    /// not parse is in the book's `unreadable`, and is never overwritten
    /// or removed.
    pub fn obligations(&self) -> Result<Book> {
        let unreadable = |path: &Path, err: serde_json::Error| FileProblem {
            path: path.display().to_string(),
            line: err.line(),
            column: err.column(),
            message: format!("{err}; fix or remove the file (steward does not overwrite it)"),
        };
        let mut book = Book::default();
        let legacy = self.legacy_obligations_path();
        match safe_file::read_text(&legacy, safe_file::STATE_BYTES) {
            Ok(Some(text)) => match serde_json::from_str::<Book>(&text) {
                Ok(legacy_book) => book.obligations = legacy_book.obligations,
                Err(err) => book.unreadable.push(unreadable(&legacy, err)),
            },
            Ok(None) => {}
            Err(err) => book.unreadable.push(FileProblem::whole_file(
                &legacy,
                format!("cannot read obligations: {err}"),
            )),
        }
        let (files, problems) = self.obligation_files()?;
        book.unreadable.extend(problems);
        for (path, text) in files {
            match serde_json::from_str::<crate::model::Obligation>(&text) {
                Ok(obligation) => {
                    book.obligations.retain(|o| o.id != obligation.id);
                    book.obligations.push(obligation);
                }
                Err(err) => book.unreadable.push(unreadable(&path, err)),
            }
        }
        book.obligations
            .sort_by(|a, b| (a.spawned_at, &a.id).cmp(&(b.spawned_at, &b.id)));
        book.schema_version = 1;
        Ok(book)
    }

    /// The obligation files and their text, and the ones that could not
    /// be read.
    pub fn obligation_files(&self) -> Result<(Vec<FileText>, Vec<FileProblem>)> {
        let dir = self.obligations_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Vec::new(), Vec::new()));
            }
            Err(err) => return Err(Error::io(&dir, "cannot read obligations", err)),
        };
        let mut files = Vec::new();
        let mut problems = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|err| Error::io(&dir, "cannot read obligations", err))?
                .path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match safe_file::read_text(&path, safe_file::STATE_BYTES) {
                Ok(Some(text)) => files.push((path, text)),
                Ok(None) => {}
                Err(err) => problems.push(FileProblem::whole_file(
                    &path,
                    format!("cannot read obligation: {err}; fix or remove the file (steward does not overwrite it)"),
                )),
            }
        }
        files.sort();
        Ok((files, problems))
    }

    /// The event log.
    pub fn log(&self) -> events::Log {
        events::Log::new(&self.state_dir)
    }
}
