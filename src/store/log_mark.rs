//! What this machine appended to the event log, kept beside the store's
//! marker with the key (`~/.config/steward/stores/<hash>.log`), out of the
//! store: so that a log part shortened, removed or stripped of the last
//! line steward logged here is found, and the dispatches logged here still
//! count towards the hourly window and the day's spend when their lines
//! are gone (steward-design(7), "Threat model").
//!
//! One line a part this machine wrote to in the last two days (its name,
//! how many bytes steward appended to it here, the SHA-256 of the last
//! line), one line a dispatch logged here in the last day, and a MAC bound
//! to the store's root. Written over in place at every append, under the
//! store's lock. A record that is missing or does not verify is started
//! afresh: only whoever can write the key's folder can remove it, and they
//! can replace the key too.

use chrono::{DateTime, Utc};
use std::fmt::Write as _;
use std::path::PathBuf;

use super::Store;
use super::events::{Appended, Event};
use super::key::{self, Domain};
use super::seal::root_bytes;
use crate::error::Result;
use crate::model::{format_time, parse_time};
use crate::os::safe_file as safe;

const HEADER: &str = "steward log mark 1";
/// The largest record read: a day of dispatches at any sane limit.
const MARK_BYTES: u64 = 16 * 1024 * 1024;
/// The largest log part read for its last line: a day merged from many
/// machines' segments is far less.
const LOG_PART_BYTES: u64 = 1 << 30;

/// One part of the log, as this machine left it.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    name: String,
    /// Bytes steward appended to it here: the part is at least this long.
    bytes: u64,
    /// The SHA-256 of the last line it appended.
    last_line: String,
}

/// A dispatch this machine logged.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub ts: String,
    pub goal_id: String,
    pub dispatch_id: Option<String>,
    pub actor: String,
}

#[derive(Debug, Default, PartialEq)]
struct Mark {
    parts: Vec<Part>,
    dispatches: Vec<Dispatch>,
}

impl Mark {
    fn parse(text: &str) -> Option<Mark> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut mark = Mark::default();
        for line in lines {
            let fields: Vec<&str> = line.split(' ').collect();
            match fields.as_slice() {
                ["part", name, bytes, last_line] => mark.parts.push(Part {
                    name: name.to_string(),
                    bytes: bytes.parse().ok()?,
                    last_line: last_line.to_string(),
                }),
                ["dispatched", ts, goal_id, dispatch_id, actor] => mark.dispatches.push(Dispatch {
                    ts: ts.to_string(),
                    goal_id: goal_id.to_string(),
                    dispatch_id: (*dispatch_id != "-").then(|| dispatch_id.to_string()),
                    actor: actor.to_string(),
                }),
                _ => return None,
            }
        }
        Some(mark)
    }

    fn text(&self) -> String {
        let mut text = format!("{HEADER}\n");
        for part in &self.parts {
            let _ = writeln!(text, "part {} {} {}", part.name, part.bytes, part.last_line);
        }
        for d in &self.dispatches {
            let id = d.dispatch_id.as_deref().unwrap_or("-");
            let _ = writeln!(text, "dispatched {} {} {id} {}", d.ts, d.goal_id, d.actor);
        }
        text
    }

    /// Adds what was appended, and lets go of parts older than two days
    /// and dispatches older than one before `now`.
    fn add(&mut self, appended: &[Appended], events: &[Event], now: DateTime<Utc>) {
        for written in appended {
            match self.parts.iter_mut().find(|p| p.name == written.part) {
                Some(part) => {
                    part.bytes += written.bytes;
                    part.last_line.clone_from(&written.last_line);
                }
                None => self.parts.push(Part {
                    name: written.part.clone(),
                    bytes: written.bytes,
                    last_line: written.last_line.clone(),
                }),
            }
        }
        let oldest_day = format_time(now - chrono::Duration::days(2));
        let oldest_day = &oldest_day[..10];
        self.parts
            .retain(|p| p.name.get(..10).unwrap_or("") >= oldest_day);
        self.dispatches.extend(
            (events.iter())
                .filter(|e| e.action == "dispatched" && is_word(&e.goal_id) && is_word(&e.actor))
                .filter(|e| e.dispatch_id.as_deref().is_none_or(is_word))
                .map(|e| Dispatch {
                    ts: e.ts.clone(),
                    goal_id: e.goal_id.clone(),
                    dispatch_id: e.dispatch_id.clone(),
                    actor: e.actor.clone(),
                }),
        );
        let oldest = format_time(now - chrono::Duration::days(1));
        self.dispatches.retain(|d| d.ts >= oldest);
    }
}

/// Whether `text` can stand as one field of the record.
fn is_word(text: &str) -> bool {
    !text.is_empty() && text != "-" && !text.contains([' ', '\n', '\r'])
}

impl Store {
    /// Appends `events` to the log, signed by this machine, and notes what
    /// was written in this machine's record; returns the files written.
    pub(super) fn append_events(&self, events: &[Event]) -> Result<Vec<PathBuf>> {
        let appended = self.log().append(events, self.keys.signer())?;
        self.note_appended(&appended, events);
        Ok(appended.into_iter().map(|a| a.path).collect())
    }

    /// The record of what this machine appended, when one verifies.
    fn log_mark(&self) -> Option<Mark> {
        let key = self.keys.key().ok()?;
        let path = self.keys.log_mark_path(&self.absolute_root)?;
        let text = safe::read_text(&path, MARK_BYTES).ok()??;
        let (body, mac) = text.rsplit_once("mac ")?;
        key.verifies(
            Domain::LogMark,
            &[root_bytes(&self.absolute_root), body.as_bytes()],
            mac.trim(),
        )
        .then(|| Mark::parse(body))?
    }

    /// Notes what an append wrote (`appended`, for `events`) in this
    /// machine's record, once the store is sealed here. A record that
    /// cannot be written costs only what it would have found.
    fn note_appended(&self, appended: &[Appended], events: &[Event]) {
        if appended.is_empty() || !self.sealed_here() {
            return;
        }
        let (Ok(key), Some(path)) = (
            self.keys.key(),
            self.keys.log_mark_path(&self.absolute_root),
        ) else {
            return;
        };
        let now = (events.iter())
            .filter_map(|e| parse_time(&e.ts))
            .max()
            .unwrap_or_else(Utc::now);
        let mut mark = self.log_mark().unwrap_or_default();
        mark.add(appended, events, now);
        let body = mark.text();
        let mac = key.mac(
            Domain::LogMark,
            &[root_bytes(&self.absolute_root), body.as_bytes()],
        );
        let text = format!("{body}mac {mac}\n");
        // Written over in place, as at every change; replaced whole when
        // there is none yet or it is not a plain file of its own.
        if !matches!(safe::overwrite(&path, text.as_bytes()), Ok(true)) {
            let _ = super::atomic::write_unsynced(&path, text.as_bytes());
        }
    }

    /// The dispatches this machine logged in the day before now, whether
    /// or not their lines are still in the log.
    pub fn dispatches_logged_here(&self) -> Vec<Dispatch> {
        self.log_mark().map(|m| m.dispatches).unwrap_or_default()
    }

    /// What the log lost of what this machine appended to it: one line a
    /// part of the last two days that is gone, shorter than what steward
    /// appended here, or without the last line steward logged there.
    pub fn log_losses(&self) -> Vec<String> {
        let Some(mark) = self.log_mark() else {
            return Vec::new();
        };
        let log = self.log();
        mark.parts
            .iter()
            .filter_map(|part| {
                let path = log.path(&part.name);
                let shown = self.relative(&path);
                let bytes = match safe::read_bytes(&path, LOG_PART_BYTES) {
                    Ok(Some(bytes)) => bytes,
                    Ok(None) => return Some(format!("{shown} is gone")),
                    Err(err) => return Some(format!("{shown}: cannot read: {err}")),
                };
                if (bytes.len() as u64) < part.bytes {
                    return Some(format!(
                        "{shown} is shorter than what steward logged there on this machine"
                    ));
                }
                let has_last = (bytes.split(|&b| b == b'\n'))
                    .rev()
                    .any(|line| key::sha256(line) == part.last_line);
                (!has_last).then(|| {
                    format!(
                        "{shown} no longer holds the last line steward logged there on this machine"
                    )
                })
            })
            .collect()
    }
}

/// What a person is told of a log that lost lines.
pub fn losses_warning(losses: &[String]) -> Option<String> {
    (!losses.is_empty()).then(|| {
        format!(
            "the event log lost lines steward wrote ({}): the dispatches logged here still count towards the hourly window and the day's spend, and `steward audit` no longer shows what was removed (look at `git log -p state/events/` where git keeps the store)",
            losses.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn appended(part: &str, bytes: u64, last: &str) -> Appended {
        Appended {
            path: std::path::PathBuf::from(part),
            part: part.to_string(),
            bytes,
            last_line: last.to_string(),
        }
    }

    #[test]
    fn a_mark_adds_up_what_was_appended_and_forgets_old_days() {
        let now = parse_time("2026-12-07T10:00:00Z").unwrap();
        let mut mark = Mark::default();
        let dispatched = Event {
            ts: "2026-12-07T09:00:00Z".into(),
            goal_id: "g1".into(),
            actor: "steward".into(),
            action: "dispatched".into(),
            dispatch_id: Some("d1".into()),
            ..Event::default()
        };
        mark.add(&[appended("2026-12-04", 10, "a")], &[], now);
        assert!(mark.parts.is_empty(), "older than two days: {mark:?}");
        mark.add(&[appended("2026-12-07", 10, "a")], &[dispatched], now);
        mark.add(&[appended("2026-12-07", 5, "b")], &[], now);
        assert_eq!(
            mark.parts,
            vec![Part {
                name: "2026-12-07".into(),
                bytes: 15,
                last_line: "b".into()
            }]
        );
        assert_eq!(Mark::parse(&mark.text()), Some(mark));
        let later = parse_time("2026-12-08T09:00:01Z").unwrap();
        let mut mark = Mark::parse(&format!(
            "{HEADER}\ndispatched 2026-12-07T09:00:00Z g1 - agent\n"
        ))
        .unwrap();
        mark.add(&[], &[], later);
        assert!(mark.dispatches.is_empty(), "a day old: {mark:?}");
    }

    #[test]
    fn a_garbled_mark_is_not_read() {
        assert_eq!(Mark::parse("steward log mark 2\n"), None);
        assert_eq!(Mark::parse(&format!("{HEADER}\npart x y z\n")), None);
        assert_eq!(Mark::parse(&format!("{HEADER}\nsomething else\n")), None);
    }
}
