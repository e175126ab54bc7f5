//! What a transaction is about to do to a goal file, written before it
//! does it: so that a command killed between putting a goal's new bytes in
//! place and logging their event leaves a record steward recognises as its
//! own, and the next transaction completes the write (the event logged,
//! the seal moved on) instead of taking steward's own bytes for a change
//! made outside it.
//!
//! `state/seals/journal` holds one line per intent, MACed with the key
//! bound to the store, then a line `logged` once the transaction's events
//! are in the log; a transaction that finishes removes it. Written without
//! waiting for the disk: it covers a process killed or crashing, not a
//! machine losing power (steward-design(7), "Threat model").

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

use super::events::Event;
use super::key::{Domain, MachineKey};
use super::paths::Place;

/// One goal file a transaction is about to write.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Intent {
    /// Where the goal's new bytes go, relative to the store's root.
    pub path: String,
    pub id: String,
    pub label: String,
    /// Where its seal was, and under which label (`None`: a new goal).
    pub sealed_as: Option<(Place, String)>,
    /// The SHA-256 of the bytes it replaces (`None`: a new goal): an
    /// intent counts only from the bytes sealed now, so an old journal put
    /// back takes no goal back.
    pub before: Option<String>,
    /// The SHA-256 of the bytes about to be put in place.
    pub after: String,
    /// The change's event, unsigned (`None`: a change that logs none).
    pub event: Option<Event>,
}

/// What an interrupted transaction left: its intents, in order, and
/// whether its events reached the log.
#[derive(Debug, Default)]
pub struct Left {
    pub intents: Vec<Intent>,
    pub logged: bool,
}

/// The line that says a transaction's events are in the log.
const LOGGED: &str = "logged";

/// The largest journal read: a pass over many goals writes a line each.
const JOURNAL_BYTES: u64 = 256 * 1024 * 1024;

pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join("seals").join("journal")
}

/// The journal a transaction appends to, opened at its first intent.
#[derive(Debug, Default)]
pub struct Journal {
    file: Option<std::fs::File>,
}

impl Journal {
    /// Appends `intent`, before its bytes are put in place.
    pub fn intend(&mut self, state_dir: &Path, key: &MachineKey, intent: &Intent) -> Result<()> {
        let json = serde_json::to_string(intent).expect("intents serialize");
        self.append(state_dir, key, &json)
            .map_err(|err| Error::io(&path(state_dir), "cannot write", err))
    }

    /// Says the transaction's events are in the log.
    pub fn logged(&mut self, state_dir: &Path, key: &MachineKey) -> Result<()> {
        if self.file.is_none() {
            return Ok(());
        }
        self.append(state_dir, key, LOGGED)
            .map_err(|err| Error::io(&path(state_dir), "cannot write", err))
    }

    /// Whether anything was written to it.
    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    fn append(&mut self, state_dir: &Path, key: &MachineKey, line: &str) -> std::io::Result<()> {
        if self.file.is_none() {
            // Beside the seals, made as they are (removed, it comes back);
            // never through a link, nor a FIFO that would hang the write.
            let path = path(state_dir);
            super::cache_dir_ready(super::atomic::parent(&path));
            let file = crate::os::safe_file::open_append(&path)?;
            // Whatever an earlier transaction left was dealt with when this
            // one began: a journal is one transaction's.
            file.set_len(0)?;
            self.file = Some(file);
        }
        let mac = key.mac(Domain::Journal, &[line.as_bytes()]);
        let file = self.file.as_mut().expect("opened above");
        file.write_all(format!("{line}\t{mac}\n").as_bytes())
    }
}

/// What the journal at `state_dir` holds: the lines this key wrote, read
/// in order; lines that do not verify are left out.
pub fn read(state_dir: &Path, key: &MachineKey) -> Option<Left> {
    let text = crate::os::safe_file::read_text(&path(state_dir), JOURNAL_BYTES)
        .ok()
        .flatten()?;
    let mut left = Left::default();
    for line in text.lines() {
        let Some((body, mac)) = line.rsplit_once('\t') else {
            continue;
        };
        if !key.verifies(Domain::Journal, &[body.as_bytes()], mac) {
            continue;
        }
        if body == LOGGED {
            left.logged = true;
        } else if let Ok(intent) = serde_json::from_str(body) {
            left.intents.push(intent);
        }
    }
    Some(left)
}

/// Removes the journal at `state_dir`: its transaction is done.
pub fn remove(state_dir: &Path) -> Result<()> {
    let path = path(state_dir);
    match std::fs::remove_file(&path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io(&path, "cannot remove", err))
        }
        _ => Ok(()),
    }
}

/// Of the intents for one goal, in order, how many took place: all up to
/// the last whose bytes the file holds now (`sha` of what is at that
/// intent's path).
pub fn took_place(intents: &[&Intent], sha_at: impl Fn(&str) -> Option<String>) -> usize {
    intents
        .iter()
        .rposition(|intent| sha_at(&intent.path).as_deref() == Some(intent.after.as_str()))
        .map_or(0, |last| last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(path: &str, after: &str) -> Intent {
        Intent {
            path: path.to_string(),
            id: "id".to_string(),
            label: "g".to_string(),
            sealed_as: None,
            before: None,
            after: after.to_string(),
            event: None,
        }
    }

    #[test]
    fn the_intents_that_took_place_end_at_the_last_the_file_holds() {
        let (a, b, c) = (
            intent("g.md", "A"),
            intent("g.md", "B"),
            intent("closed/g.md", "C"),
        );
        let all = [&a, &b, &c];
        let holds = |map: &'static [(&'static str, &'static str)]| {
            move |path: &str| {
                map.iter()
                    .find(|(p, _)| *p == path)
                    .map(|(_, sha)| sha.to_string())
            }
        };
        assert_eq!(took_place(&all, holds(&[("g.md", "before")])), 0);
        assert_eq!(took_place(&all, holds(&[("g.md", "A")])), 1);
        assert_eq!(took_place(&all, holds(&[("g.md", "B")])), 2);
        assert_eq!(took_place(&all, holds(&[("closed/g.md", "C")])), 3);
    }

    #[test]
    fn only_lines_of_this_key_are_read_and_a_new_journal_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("seals")).unwrap();
        let key = MachineKey::for_tests(1);
        let mut journal = Journal::default();
        journal
            .intend(dir.path(), &key, &intent("g.md", "A"))
            .unwrap();
        journal.logged(dir.path(), &key).unwrap();
        let left = read(dir.path(), &key).unwrap();
        assert_eq!(left.intents, vec![intent("g.md", "A")]);
        assert!(left.logged);
        assert!(
            read(dir.path(), &MachineKey::for_tests(2))
                .unwrap()
                .intents
                .is_empty()
        );
        let mut next = Journal::default();
        next.intend(dir.path(), &key, &intent("h.md", "B")).unwrap();
        let left = read(dir.path(), &key).unwrap();
        assert_eq!(left.intents, vec![intent("h.md", "B")]);
        assert!(!left.logged);
        remove(dir.path()).unwrap();
        assert!(read(dir.path(), &key).is_none());
    }
}
