//! The append-only event log: one JSON line per change, never rewritten.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One change, as `audit` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub ts: String,
    pub goal_id: String,
    pub label: String,
    pub actor: String,
    pub action: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub detail: String,
}

/// Appends `events` in one write so lines from concurrent runs never mix.
pub fn append(path: &Path, events: &[Event]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let mut buffer = Vec::new();
    for event in events {
        serde_json::to_writer(&mut buffer, event).expect("events serialize");
        buffer.push(b'\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io(dir, "cannot create directory", err))?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|err| Error::io(path, "cannot open event log", err))?;
    file.write_all(&buffer)
        .map_err(|err| Error::io(path, "cannot append to event log", err))?;
    file.sync_data()
        .map_err(|err| Error::io(path, "cannot sync event log", err))
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
            Error::failure(format!(
                "{}:{}:{}: {err}",
                path.display(),
                index + 1,
                err.column()
            ))
        })?;
        events.push(event);
    }
    Ok(events)
}
