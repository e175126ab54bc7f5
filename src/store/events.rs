//! The append-only event log: one JSON line per change, never rewritten.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, FileProblem, Result};
use crate::model::Digest;

/// One change, as `audit` prints it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub ts: String,
    pub goal_id: String,
    pub label: String,
    pub actor: String,
    pub action: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub detail: String,
    /// The agent run this is about (`STEWARD_DISPATCH_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch_id: Option<String>,
    /// A person acted inside an agent's shell (`STEWARD_OVERRIDE_ACTOR`).
    #[serde(default, rename = "override", skip_serializing_if = "is_false")]
    pub overridden: bool,
    /// The goal's status, criteria and checks as this change found them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_before: Option<Digest>,
    /// The goal's status, criteria and checks as this change left them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
    /// What `complete` judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<serde_json::Value>,
}

fn is_false(value: &bool) -> bool {
    !value
}

fn encode(events: &[Event]) -> Vec<u8> {
    let mut buffer = Vec::new();
    for event in events {
        serde_json::to_writer(&mut buffer, event).expect("events serialize");
        buffer.push(b'\n');
    }
    buffer
}

/// The bytes `events` take in the log.
pub fn encoded_len(events: &[Event]) -> u64 {
    encode(events).len() as u64
}

/// Appends `events` in one write so lines from concurrent runs never mix.
pub fn append(path: &Path, events: &[Event]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let buffer = encode(events);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io(dir, "cannot create directory", err))?;
    }
    if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Err(Error::UnsafePath {
            path: path.to_path_buf(),
            why: "not a plain file (a symbolic link?): steward does not follow links in its state",
        });
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|err| Error::io(path, "cannot open event log", err))?;
    file.write_all(&buffer)
        .map_err(|err| Error::io(path, "cannot append to event log", err))?;
    file.sync_data()
        .map_err(|err| Error::io(path, "cannot sync event log", err))
}

/// Events whose time is at or after `since`, read from the end of the log
/// so the cost follows the window, not the log's age. The log is in append
/// order; reading stops at the first line older than `since`.
pub fn read_since(path: &Path, since: &str) -> Result<Vec<Event>> {
    use std::io::{Read, Seek, SeekFrom};
    const CHUNK: u64 = 64 * 1024;
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let read_error = |err| Error::io(path, "cannot read event log", err);
    let mut end = file.seek(SeekFrom::End(0)).map_err(read_error)?;
    let mut carry: Vec<u8> = Vec::new();
    let mut events = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let mut chunk = vec![0; (end - start) as usize];
        file.seek(SeekFrom::Start(start)).map_err(read_error)?;
        file.read_exact(&mut chunk).map_err(read_error)?;
        chunk.extend_from_slice(&carry);
        // The first line of a chunk may be cut; keep it for the next round.
        let first_break = if start == 0 {
            0
        } else {
            chunk
                .iter()
                .position(|b| *b == b'\n')
                .map_or(chunk.len(), |i| i + 1)
        };
        carry = chunk[..first_break].to_vec();
        for line in chunk[first_break..].split(|b| *b == b'\n').rev() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let event: Event = serde_json::from_slice(line).map_err(|err| {
                Error::Unreadable(FileProblem::whole_file(
                    path,
                    format!("a line does not parse: {err}"),
                ))
            })?;
            if event.ts.as_str() < since {
                events.reverse();
                return Ok(events);
            }
            events.push(event);
        }
        end = start;
    }
    events.reverse();
    Ok(events)
}

/// The events after byte `offset` (where an earlier read ended), and the
/// offset after them. A log shorter than `offset` was replaced: it is read
/// from the start.
pub fn read_from(path: &Path, offset: u64) -> Result<(Vec<Event>, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let read_error = |err| Error::io(path, "cannot read event log", err);
    let len = file.metadata().map_err(read_error)?.len();
    let start = if offset <= len { offset } else { 0 };
    file.seek(SeekFrom::Start(start)).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(read_error)?;
    // A line still being written by another run is left for next time.
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut events = Vec::new();
    for line in bytes[..complete].split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let event = serde_json::from_slice(line).map_err(|err| {
            Error::Unreadable(FileProblem::whole_file(
                path,
                format!("a line does not parse: {err}"),
            ))
        })?;
        events.push(event);
    }
    Ok((events, start + complete as u64))
}

/// Reads every event; a line that does not parse is an error naming it.
pub fn read_all(path: &Path) -> Result<Vec<Event>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let mut events = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|err| Error::io(path, "cannot read event log", err))?;
        if line.trim().is_empty() {
            continue;
        }
        let event = serde_json::from_str(&line).map_err(|err| {
            Error::Unreadable(FileProblem {
                path: path.display().to_string(),
                line: index + 1,
                column: err.column(),
                message: err.to_string(),
            })
        })?;
        events.push(event);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(ts: &str, action: &str) -> Event {
        Event {
            ts: ts.to_string(),
            goal_id: "id".into(),
            label: "g".into(),
            actor: "agent".into(),
            action: action.into(),
            detail: "x".repeat(300),
            ..Event::default()
        }
    }

    #[test]
    fn read_since_stops_at_the_window_across_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut all = Vec::new();
        for minute in 0..600 {
            all.push(event(
                &format!("2026-11-21T{:02}:{:02}:00Z", minute / 60, minute % 60),
                "dispatched",
            ));
        }
        append(&path, &all).unwrap();
        let recent = read_since(&path, "2026-11-21T09:00:00Z").unwrap();
        assert_eq!(recent.len(), 60);
        assert_eq!(recent[0].ts, "2026-11-21T09:00:00Z");
        assert_eq!(
            read_since(&path, "2026-11-21T00:00:00Z").unwrap().len(),
            600
        );
        assert_eq!(read_all(&path).unwrap(), all);
    }
}
