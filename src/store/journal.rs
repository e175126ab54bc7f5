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

/// The line that says a transaction finished: nothing is left to do.
const DONE: &str = "done";

pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join("seals").join("journal")
}

/// The journal a transaction writes, opened at its first intent. It is
/// written over in place from its start, never made anew or shortened:
/// on a file system that discards freed blocks at once, making and
/// removing a file at every write would wait for the disk each time.
/// Every line carries the transaction's own nonce under its MAC, so what
/// an earlier, longer transaction left after this one's lines is not read.
#[derive(Debug, Default)]
pub struct Journal {
    open: Option<(std::fs::File, String, u64)>,
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
        if self.open.is_none() {
            return Ok(());
        }
        self.append(state_dir, key, LOGGED)
            .map_err(|err| Error::io(&path(state_dir), "cannot write", err))
    }

    /// Says the transaction is done: the journal holds nothing to do.
    pub fn done(&mut self, state_dir: &Path, key: &MachineKey) -> Result<()> {
        if self.open.is_none() {
            return Ok(());
        }
        self.append(state_dir, key, DONE)
            .map_err(|err| Error::io(&path(state_dir), "cannot write", err))
    }

    /// Says what an interrupted transaction left is dealt with: written
    /// whether or not this journal wrote anything (a fresh one, opened for
    /// it).
    pub fn end_leftover(&mut self, state_dir: &Path, key: &MachineKey) -> Result<()> {
        self.append(state_dir, key, DONE)
            .map_err(|err| Error::io(&path(state_dir), "cannot write", err))
    }

    /// Whether anything was written to it.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    fn append(&mut self, state_dir: &Path, key: &MachineKey, line: &str) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.open.is_none() {
            // Beside the seals, made as they are (removed, it comes back);
            // never through a link, nor a FIFO that would hang the write.
            let path = path(state_dir);
            super::cache_dir_ready(super::atomic::parent(&path));
            // A directory made there would stop every write: moved aside.
            super::atomic::move_aside_directory(&path)?;
            let file = crate::os::safe_file::open_read_write(&path)?;
            let nonce = uuid::Uuid::new_v4().simple().to_string();
            self.open = Some((file, nonce, 0));
        }
        let (file, nonce, at) = self.open.as_mut().expect("opened above");
        let body = format!("{nonce} {line}");
        let mac = key.mac(Domain::Journal, &[body.as_bytes()]);
        let text = format!("{body}\t{mac}\n");
        file.write_all_at(text.as_bytes(), *at)?;
        *at += text.len() as u64;
        Ok(())
    }
}

/// What the journal at `state_dir` holds: the lines of the transaction
/// that wrote it last, while it is not done (`None` otherwise).
pub fn read(state_dir: &Path, key: &MachineKey) -> Option<Left> {
    let text = crate::os::safe_file::read_text(&path(state_dir), JOURNAL_BYTES)
        .ok()
        .flatten()?;
    let mut left = Left::default();
    let mut nonce: Option<&str> = None;
    for line in text.lines() {
        let Some((body, mac)) = line.rsplit_once('\t') else {
            break;
        };
        let Some((its, what)) = body.split_once(' ') else {
            break;
        };
        // The first line names the transaction; what follows another's
        // nonce, or does not verify, is an older one's.
        if nonce.is_some_and(|n| n != its)
            || !key.verifies(Domain::Journal, &[body.as_bytes()], mac)
        {
            break;
        }
        nonce = Some(its);
        match what {
            DONE => return None,
            LOGGED => left.logged = true,
            json => left.intents.push(serde_json::from_str(json).ok()?),
        }
    }
    nonce.map(|_| left)
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
    fn a_journal_is_one_transactions_until_done_and_written_over_in_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("seals")).unwrap();
        let key = MachineKey::for_tests(1);
        let mut journal = Journal::default();
        for after in ["A", "B"] {
            journal
                .intend(dir.path(), &key, &intent("g.md", after))
                .unwrap();
        }
        journal.logged(dir.path(), &key).unwrap();
        let left = read(dir.path(), &key).unwrap();
        assert_eq!(left.intents, vec![intent("g.md", "A"), intent("g.md", "B")]);
        assert!(left.logged);
        assert!(read(dir.path(), &MachineKey::for_tests(2)).is_none());
        journal.done(dir.path(), &key).unwrap();
        assert!(read(dir.path(), &key).is_none());
        let inode = || {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(path(dir.path())).unwrap().ino()
        };
        let before = inode();
        // A shorter transaction after it: what the longer one left after
        // the new lines is not read.
        let mut next = Journal::default();
        next.intend(dir.path(), &key, &intent("h.md", "C")).unwrap();
        let left = read(dir.path(), &key).unwrap();
        assert_eq!(left.intents, vec![intent("h.md", "C")]);
        assert!(!left.logged);
        assert_eq!(inode(), before, "written over in place");
    }
}
