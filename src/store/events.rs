//! The append-only event log: one JSON line per change, never rewritten,
//! one file per UTC day under `state/events/` so that a commit touches a
//! small file and git merges two machines' days line by line
//! (`merge=union`). `state/events.jsonl`, where steward kept the whole log
//! before, is read as its oldest part and never written again.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::key::{Domain, MachineKey, PublicKey};
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
    /// What made the caller an agent (`CLAUDECODE=1`, `runs under claude
    /// (pid 812)`), or the override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_rule: Option<String>,
    /// The goal's status, criteria and checks as this change found them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_before: Option<Digest>,
    /// The goal's status, criteria and checks as this change left them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
    /// The SHA-256 of the goal file before and after this change: the
    /// chain a lost seal is repaired from (`store::seal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// What differs from what steward last wrote (a change found made
    /// outside steward), as a unified diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// What `complete` judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<serde_json::Value>,
    /// The handoff recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<serde_json::Value>,
    /// The machine whose steward wrote the line, as the line says (its
    /// signature is checked where it matters): added by the signer.
    #[serde(default, skip_serializing)]
    pub by: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// Who signs the events a transaction appends: this machine's key and its
/// name in the store.
#[derive(Clone, Copy)]
pub struct Signer<'k> {
    pub key: &'k MachineKey,
    pub machine: &'k str,
}

/// The lines of `events`, each ending, when there is a signer, in the
/// machine that wrote it and its signature of the line before them
/// (`,"by":"…","sig":"…"}`): a machine of the store whose key is trusted
/// wrote such an event, unchanged ([`signed_by`]).
fn encode(events: &[Event], signer: Option<Signer<'_>>) -> Vec<u8> {
    let mut buffer = Vec::new();
    for event in events {
        let start = buffer.len();
        serde_json::to_writer(&mut buffer, event).expect("events serialize");
        if let Some(signer) = signer {
            let sig = signer.key.sign(
                Domain::Event,
                &[&buffer[start..], signer.machine.as_bytes()],
            );
            buffer.pop();
            buffer.extend_from_slice(BY_FIELD);
            serde_json::to_writer(&mut buffer, signer.machine).expect("names serialize");
            buffer.extend_from_slice(SIG_FIELD);
            buffer.extend_from_slice(sig.as_bytes());
            buffer.extend_from_slice(b"\"}");
        }
        buffer.push(b'\n');
    }
    buffer
}

/// How the machine and its signature end an event's line.
const BY_FIELD: &[u8] = b",\"by\":";
const SIG_FIELD: &[u8] = b",\"sig\":\"";

/// The machine that signed `line` (one line of the log, without its
/// newline), when one of `keys` verifies it: the line is that machine's,
/// unchanged. The name is the machine's word; the key decides.
pub fn signed_by(line: &[u8], keys: &[PublicKey]) -> Option<String> {
    const SIG_HEX: usize = 128;
    let sig_start = line.len().checked_sub(SIG_FIELD.len() + SIG_HEX + 2)?;
    if &line[sig_start..sig_start + SIG_FIELD.len()] != SIG_FIELD || !line.ends_with(b"\"}") {
        return None;
    }
    let sig = std::str::from_utf8(&line[sig_start + SIG_FIELD.len()..line.len() - 2]).ok()?;
    let head = &line[..sig_start];
    let by_start = head
        .windows(BY_FIELD.len())
        .rposition(|window| window == BY_FIELD)?;
    let machine: String = serde_json::from_slice(&head[by_start + BY_FIELD.len()..]).ok()?;
    let mut signed = head[..by_start].to_vec();
    signed.push(b'}');
    keys.iter()
        .any(|key| key.verifies(Domain::Event, &[&signed, machine.as_bytes()], sig))
        .then_some(machine)
}

/// The bytes `events` take in the log.
/// The hash of the line of the file at `path` that ends at `offset` (its
/// last 4 KiB at most, which hold an event's signature); empty when there
/// is none.
pub(super) fn line_before(path: &Path, offset: u64) -> String {
    use std::os::unix::fs::FileExt;
    const MOST: u64 = 4096;
    let start = offset.saturating_sub(MOST);
    let mut bytes = vec![0; (offset - start) as usize];
    let read = crate::os::safe_file::open_regular(path)
        .ok()
        .flatten()
        .is_some_and(|file| file.read_exact_at(&mut bytes, start).is_ok());
    if read {
        last_line_hash(&bytes)
    } else {
        String::new()
    }
}

/// The hash of the last line of `bytes` (which end with its newline).
fn last_line_hash(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let Some((_, body)) = bytes.split_last() else {
        return String::new();
    };
    let line = &bytes[body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)..];
    super::key::hex(&sha2::Sha256::digest(line))
}

/// The log's parts in order: the old single file, then the days.
pub struct Log {
    dir: PathBuf,
    legacy: PathBuf,
}

/// Where a reader stopped: how far it read each part of the log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The newest part read (its day, `""` for the old single file) and
    /// the byte offset in it.
    pub part: String,
    pub offset: u64,
    /// How far each older part was read: an older part can still grow (a
    /// process whose clock is still on the day before appends to it after
    /// the next day's part began) or appear (a merge brings another
    /// machine's day; an agent's shell writes one dated ahead). `None` in a
    /// cursor kept before older parts were followed: they count as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub older: Option<BTreeMap<String, u64>>,
    /// The hash of the line each part was read up to ([`line_before`]): a
    /// part rewritten under the cursor (a merge brought an older copy, an
    /// agent cut it and appended) no longer has it there, and is read
    /// again from its start — what was told is told again rather than
    /// what came since skipped. A part it does not name is trusted at its
    /// offset (a cursor from before).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tails: BTreeMap<String, String>,
}

impl Cursor {
    /// The cursor that read each part up to its offset, where the line
    /// before it hashes to its tail.
    fn from_offsets(
        mut offsets: BTreeMap<String, u64>,
        mut tails: BTreeMap<String, String>,
    ) -> Cursor {
        tails.retain(|part, tail| offsets.contains_key(part) && !tail.is_empty());
        let Some((part, offset)) = offsets.pop_last() else {
            return Cursor::default();
        };
        Cursor {
            part,
            offset,
            older: Some(offsets),
            tails,
        }
    }

    /// How far each part was read (a part it does not name: not at all).
    fn offsets(&self) -> BTreeMap<String, u64> {
        let mut offsets = self.older.clone().unwrap_or_default();
        // Read from its start: the same as not named (an empty log's cursor).
        if self.offset > 0 {
            offsets.insert(self.part.clone(), self.offset);
        }
        offsets
    }

    /// Where reading `part` starts; `None` when it counts as read.
    fn start_in(&self, part: &str) -> Option<u64> {
        match part.cmp(&self.part) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Equal => Some(self.offset),
            std::cmp::Ordering::Less => {
                (self.older.as_ref()).map(|o| o.get(part).copied().unwrap_or(0))
            }
        }
    }
}

/// The size of the file at `path`, 0 when there is none.
fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// What one append wrote to one part of the log.
#[derive(Debug, Clone)]
pub struct Appended {
    pub path: PathBuf,
    pub part: String,
    /// How much the part grew.
    pub bytes: u64,
    /// The SHA-256 of the last line written, without its newline.
    pub last_line: String,
}

/// The key the old single file sorts under, before every day.
const LEGACY: &str = "";

impl Log {
    pub fn new(state_dir: &Path) -> Log {
        Log {
            dir: state_dir.join("events"),
            legacy: state_dir.join("events.jsonl"),
        }
    }

    /// The directory of the day files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of one part.
    pub fn path(&self, part: &str) -> PathBuf {
        if part == LEGACY {
            self.legacy.clone()
        } else {
            self.dir.join(format!("{part}.jsonl"))
        }
    }

    /// The parts that exist, oldest first.
    fn parts(&self) -> Result<Vec<String>> {
        let mut parts = Vec::new();
        if self.legacy.exists() {
            parts.push(LEGACY.to_string());
        }
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(parts),
            Err(err) => return Err(Error::io(&self.dir, "cannot read the event log", err)),
        };
        let mut days: Vec<String> = entries
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                let part = name.strip_suffix(".jsonl")?;
                is_part(part).then(|| part.to_string())
            })
            .collect();
        days.sort();
        parts.extend(days);
        Ok(parts)
    }

    /// The part events of `day` are appended to: the day's newest segment,
    /// or a new one when that has reached [`SEGMENT_BYTES`] (a commit
    /// hashes the part it changed: its cost stays that of a segment, however
    /// much was logged that day).
    fn target(&self, day: &str) -> String {
        let mut part = day.to_string();
        for n in 1.. {
            let next = segment(day, n);
            if !self.path(&next).exists() {
                let full =
                    std::fs::metadata(self.path(&part)).is_ok_and(|m| m.len() >= SEGMENT_BYTES);
                return if full { next } else { part };
            }
            part = next;
        }
        unreachable!("a day has fewer than u32::MAX segments")
    }

    /// Appends `events`, each to the newest segment of its day, in one
    /// write per file; returns what was written to each.
    pub fn append(&self, events: &[Event], signer: Option<Signer<'_>>) -> Result<Vec<Appended>> {
        let mut written = Vec::new();
        let mut by_day: Vec<(&str, Vec<Event>)> = Vec::new();
        for event in events {
            let day = day_of(&event.ts);
            match by_day.iter_mut().find(|(d, _)| *d == day) {
                Some((_, list)) => list.push(event.clone()),
                None => by_day.push((day, vec![event.clone()])),
            }
        }
        for (day, list) in by_day {
            let part = self.target(day);
            let path = self.path(&part);
            let (bytes, last_line) = append(&path, &list, signer)?;
            written.push(Appended {
                path,
                part,
                bytes,
                last_line,
            });
        }
        Ok(written)
    }

    /// Whether events signed with one of `keys` take goal `goal_id` from
    /// the bytes hashed `from` (`None`: from nothing, its creation) to
    /// those hashed `to`, one change after another: steward wrote those
    /// bytes, here or on another machine of the store (a seal lost in a
    /// crash, a change a `git pull` brought).
    pub fn signed_chain(
        &self,
        goal_id: &str,
        from: Option<&str>,
        to: &str,
        keys: &[PublicKey],
    ) -> bool {
        self.chains_of(goal_id).reaches(goal_id, from, to, keys)
    }

    /// The changes of goal `goal_id` the log records ([`Log::chains`]).
    pub fn chains_of(&self, goal_id: &str) -> Chains {
        self.chains(&[goal_id].into_iter().collect())
    }

    /// The changes of the goals `goal_ids` the log records, read once from
    /// its newest part backwards (at most [`CHAINS_SEARCHED`] bytes): for
    /// checking many goals' chains at once ([`Chains::reaches`]).
    pub fn chains(&self, goal_ids: &std::collections::HashSet<&str>) -> Chains {
        // Every goal asked for is covered, those without a change in the
        // log too: asked again one at a time, each would read it all again.
        let mut chains = Chains {
            steps: goal_ids
                .iter()
                .map(|id| (id.to_string(), Vec::new()))
                .collect(),
        };
        let Ok(parts) = self.parts() else {
            return chains;
        };
        let mut budget = CHAINS_SEARCHED;
        // Where each line was read, newest last: parts and their chunks
        // come newest first, the lines of a chunk oldest first.
        let mut chunks = 0u64;
        for part in parts.iter().rev() {
            let Ok(Some(mut file)) = crate::os::safe_file::open_regular(&self.path(part)) else {
                break;
            };
            // Read a chunk at a time: a busy day's part is megabytes, and
            // only the lines of the goals asked for are kept.
            let read = whole_lines_from_end(&mut file, budget, |region| {
                chunks += 1;
                let lines = region.split(|b| *b == b'\n').filter(|l| !l.is_empty());
                for (n, line) in lines.enumerate() {
                    let Some(id) = goal_id_of(line).filter(|id| goal_ids.contains(id)) else {
                        continue;
                    };
                    let Some(mark) = mark_of(line, id) else {
                        continue;
                    };
                    let links = mark.after.is_some() && (mark.before.is_some() || mark.begins);
                    chains.steps.entry(id.to_string()).or_default().push(Step {
                        order: (mark.ts, std::cmp::Reverse(chunks), n),
                        after: mark.after.unwrap_or_default(),
                        before: mark.before,
                        links,
                        anchors: mark.anchors,
                        line: line.to_vec(),
                    });
                }
                std::ops::ControlFlow::Continue(())
            });
            let Ok(read) = read else {
                break;
            };
            budget = budget.saturating_sub(read);
            if budget == 0 {
                break;
            }
        }
        chains
    }

    /// Events at or after `since`: the parts of its day and later, each read
    /// from its end so the cost follows the window.
    pub fn read_since(&self, since: &str) -> Result<Vec<Event>> {
        self.read_since_naming(since, None)
    }

    /// [`Log::read_since`] for the events whose line holds `word` (an
    /// action, an id): the others in the window are passed over without
    /// being parsed, so what a busy day logged costs a scan of its bytes.
    /// The caller still checks the field it wants: `word` may be anywhere
    /// on a line.
    pub fn read_since_naming(&self, since: &str, word: Option<&str>) -> Result<Vec<Event>> {
        let first_day = day_of(since);
        let mut events = Vec::new();
        for part in self.parts()? {
            if part == LEGACY || part.as_str() >= first_day {
                events.extend(read_since(&self.path(&part), since, word)?);
            }
        }
        Ok(events)
    }

    /// Hands each event after `cursor` to `each`, oldest first, read as `T`
    /// (the fields of an event the caller needs) a line at a time, never
    /// holding the log: a store cloned onto a new machine has no cursor
    /// yet, and its first pass reads the whole history. Returns where the
    /// reading ended. A cursor that no longer falls on a line start (the
    /// file was merged) moves on to the next line.
    pub fn each_from<T: DeserializeOwned>(
        &self,
        cursor: &Cursor,
        mut each: impl FnMut(T),
    ) -> Result<Cursor> {
        let (mut offsets, mut tails) = (BTreeMap::new(), cursor.tails.clone());
        for part in self.parts()? {
            let path = self.path(&part);
            let size = size(&path);
            let after = match cursor.start_in(&part) {
                // Only a part that grew is opened: a year of days costs a
                // stat each.
                Some(from) if from != size => {
                    let rewritten = from > 0
                        && (cursor.tails.get(&part))
                            .is_some_and(|t| *t != line_before(&path, from));
                    let after = each_from(&path, if rewritten { 0 } else { from }, &mut each)?;
                    tails.insert(part.clone(), line_before(&path, after));
                    after
                }
                _ => size,
            };
            offsets.insert(part, after);
        }
        Ok(Cursor::from_offsets(offsets, tails))
    }

    /// Every line of the log that does not parse as an event, with its
    /// file and line number (`doctor`).
    pub fn unreadable_lines(&self) -> Result<Vec<FileProblem>> {
        let mut problems = Vec::new();
        for part in self.parts()? {
            problems.extend(unreadable_lines(&self.path(&part))?);
        }
        Ok(problems)
    }

    /// The end of the log as it is: where a reader that wants only what
    /// comes next starts.
    pub fn end(&self) -> Result<Cursor> {
        let parts = self.parts()?.into_iter();
        Ok(Cursor::from_offsets(
            parts
                .map(|part| {
                    let size = size(&self.path(&part));
                    (part, size)
                })
                .collect(),
            BTreeMap::new(),
        ))
    }

    /// Where a reader at `cursor` (at the end of the log, as
    /// [`Log::each_from`] left it) will be once `pending` is appended
    /// (signed by `signer`).
    pub fn cursor_after(
        &self,
        cursor: &Cursor,
        pending: &[Event],
        signer: Option<Signer<'_>>,
    ) -> Cursor {
        let (mut offsets, mut tails) = (cursor.offsets(), cursor.tails.clone());
        // Each day's events go to the part `append` will choose.
        let mut days: Vec<&str> = pending.iter().map(|e| day_of(&e.ts)).collect();
        days.sort_unstable();
        days.dedup();
        for day in days {
            let part = self.target(day);
            let of_day: Vec<Event> = (pending.iter())
                .filter(|e| day_of(&e.ts) == day)
                .cloned()
                .collect();
            let from = (offsets.get(&part).copied()).unwrap_or_else(|| size(&self.path(&part)));
            let encoded = encode(&of_day, signer);
            tails.insert(part.clone(), last_line_hash(&encoded));
            offsets.insert(part, from + encoded.len() as u64);
        }
        Cursor::from_offsets(offsets, tails)
    }
}

/// A day's segment after its first file (`YYYY-MM-DD.sNNNN`): it sorts
/// after the day's first file and before the next day's.
fn segment(day: &str, n: u32) -> String {
    format!("{day}.s{n:04}")
}

/// A segment grows until this many bytes, then the day's next begins.
const SEGMENT_BYTES: u64 = 256 * 1024;

/// A part of the log: `YYYY-MM-DD`, or one of its segments.
fn is_part(text: &str) -> bool {
    match text.split_once(".s") {
        Some((day, n)) => is_day(day) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()),
        None => is_day(text),
    }
}

/// `YYYY-MM-DD`.
fn is_day(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
}

/// The day of an RFC 3339 time, the part its event goes to.
fn day_of(ts: &str) -> &str {
    ts.get(..10)
        .filter(|day| is_day(day))
        .unwrap_or("0000-00-00")
}

/// Appends `events` in one write so lines from concurrent runs never mix;
/// returns how many bytes were written and the SHA-256 of the last line.
fn append(path: &Path, events: &[Event], signer: Option<Signer<'_>>) -> Result<(u64, String)> {
    let buffer = encode(events, signer);
    let last_line = buffer
        .strip_suffix(b"\n")
        .map(|lines| lines.rsplit(|&b| b == b'\n').next().unwrap_or(lines))
        .map(super::key::sha256)
        .unwrap_or_default();
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
        .read(true)
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|err| Error::io(path, "cannot open event log", err))?;
    // A log whose last line has no end (written by someone else) would
    // swallow the first event into it: it starts on a line of its own.
    let len = file.metadata().map_or(0, |m| m.len());
    let mut last = [b'\n'];
    if len > 0 {
        use std::os::unix::fs::FileExt;
        let _ = file.read_at(&mut last, len - 1);
    }
    let buffer = if last[0] == b'\n' {
        buffer
    } else {
        [&b"\n"[..], &buffer].concat()
    };
    file.write_all(&buffer)
        .map_err(|err| Error::io(path, "cannot append to event log", err))?;
    file.sync_data()
        .map_err(|err| Error::io(path, "cannot sync event log", err))?;
    Ok((buffer.len() as u64, last_line))
}

/// What a log line says of goal `goal_id`'s file.
struct Mark {
    ts: String,
    /// The hash of the bytes steward left (`None`: it removed the file).
    after: Option<String>,
    /// The hash of the bytes it found.
    before: Option<String>,
    /// The file came into being (a new goal, an undone removal).
    begins: bool,
    /// Steward recorded the file as it found it, changed outside steward,
    /// and held the goal for a person (`edited_outside`): the bytes it
    /// left are steward's whatever came before, and carry the hold.
    anchors: bool,
}

/// The change of goal `goal_id`'s file a log line records: only changes
/// steward made by writing the file or removing it. A removal steward
/// found (`deleted_outside`) is not one: on another machine of the store it
/// may be the move to the closed goals that a pull brought.
fn mark_of(line: &[u8], goal_id: &str) -> Option<Mark> {
    let event: Event = serde_json::from_slice(line).ok()?;
    if event.goal_id != goal_id
        || (event.sha256.is_none() && event.sha256_before.is_none())
        || event.action == "deleted_outside"
    {
        return None;
    }
    Some(Mark {
        ts: event.ts,
        begins: event.action == "created" || event.action == "undone",
        anchors: event.action == "edited_outside",
        after: event.sha256,
        before: event.sha256_before,
    })
}

/// How much of the log a search for goals' changes reads, newest first.
pub const CHAINS_SEARCHED: u64 = 64 * 1024 * 1024;

/// The recorded changes of some goals: see [`Log::chains`].
#[derive(Debug, Default)]
pub struct Chains {
    steps: std::collections::HashMap<String, Vec<Step>>,
}

/// One change of a goal's file: the hashes after (empty: the file was
/// removed) and before, whether it links the two (a change from bytes
/// steward knew, or the file's beginning), the log line that says so, to
/// verify when used, and where it falls among the goal's changes (its
/// time, then its place in the log).
#[derive(Debug)]
struct Step {
    after: String,
    before: Option<String>,
    links: bool,
    /// A record of a change found made outside steward ([`Mark`]).
    anchors: bool,
    line: Vec<u8>,
    order: Order,
}

impl Step {
    /// Whether this takes a version as steward's without naming the one
    /// before it (a merge adopted, a goal closed elsewhere taken).
    fn restates(&self) -> bool {
        self.before.is_none() && !self.links && !self.anchors
    }
}

/// Where a change falls among a goal's changes: its time, then its place
/// in the log (chunks are read newest first, a chunk's lines oldest first).
type Order = (String, std::cmp::Reverse<u64>, usize);

impl Chains {
    /// Adds the changes of the goals `other` holds.
    pub fn extend(&mut self, other: Chains) {
        self.steps.extend(other.steps);
    }

    /// Whether this holds goal `goal_id`'s changes (it was asked for).
    pub fn covers(&self, goal_id: &str) -> bool {
        self.steps.contains_key(goal_id)
    }

    /// Whether changes signed with one of `keys` lead goal `goal_id` from
    /// the bytes hashed `from` (`None`: its creation), or from a signed
    /// record of a change found made outside steward (which holds the
    /// goal for a person), to those hashed `to`. Only the lines on a path
    /// are verified.
    pub fn reaches(&self, goal_id: &str, from: Option<&str>, to: &str, keys: &[PublicKey]) -> bool {
        let Some(steps) = self.steps.get(goal_id) else {
            return false;
        };
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![to.to_string()];
        while let Some(at) = stack.pop() {
            if Some(at.as_str()) == from {
                return true;
            }
            if !seen.insert(at.clone()) {
                continue;
            }
            for step in steps.iter().filter(|s| s.links && s.after == at) {
                if signed_by(&step.line, keys).is_none() {
                    continue;
                }
                if step.anchors {
                    return true;
                }
                match &step.before {
                    Some(before) => stack.push(before.clone()),
                    None if from.is_none() => return true,
                    None => {}
                }
            }
        }
        false
    }

    /// [`Chains::reaches`], and `to` is what the goal's last change signed
    /// with one of `keys` left: an earlier version steward once wrote, put
    /// back (from git, from a copy) after later changes or a removal, is
    /// not taken as steward's.
    pub fn reaches_last(
        &self,
        goal_id: &str,
        from: Option<&str>,
        to: &str,
        keys: &[PublicKey],
    ) -> bool {
        let Some(steps) = self.steps.get(goal_id) else {
            return false;
        };
        // A line copied further down the log keeps the place of the first:
        // copying an earlier change after the last one, in the same second,
        // does not make it last.
        let mut first_place: std::collections::HashMap<&[u8], &Order> = Default::default();
        for step in steps {
            let place = first_place.entry(&step.line).or_insert(&step.order);
            *place = (*place).min(&step.order);
        }
        // A record that takes a version as steward's without naming the
        // one before it (a merge adopted, a goal closed on another machine
        // taken) is no newer a change than the signed change that made the
        // version: in a store shared through git, one machine takes a
        // version while another has already changed it further.
        let taken: std::collections::HashSet<&str> = (steps.iter())
            .filter(|s| s.restates())
            .map(|s| s.after.as_str())
            .collect();
        let mut first_made: std::collections::HashMap<&str, &Order> = Default::default();
        for step in (steps.iter()).filter(|s| s.links && taken.contains(s.after.as_str())) {
            if signed_by(&step.line, keys).is_some() {
                let place = first_made.entry(&step.after).or_insert(&step.order);
                *place = (*place).min(&step.order);
            }
        }
        let place_of = |step: &Step| {
            let place = first_place[step.line.as_slice()];
            match first_made.get(step.after.as_str()) {
                Some(made) if step.restates() => place.min(made),
                _ => place,
            }
        };
        let mut newest_first: Vec<(&Order, &Step)> =
            steps.iter().map(|s| (place_of(s), s)).collect();
        newest_first.sort_by(|a, b| b.0.cmp(a.0));
        let last = (newest_first.into_iter())
            .map(|(_, step)| step)
            .find(|s| signed_by(&s.line, keys).is_some());
        last.is_some_and(|last| last.after == to) && self.reaches(goal_id, from, to, keys)
    }
}

/// The goal id a log line names, read without parsing the line.
fn goal_id_of(line: &[u8]) -> Option<&str> {
    const FIELD: &[u8] = b"\"goal_id\":\"";
    let start = memchr::memmem::find(line, FIELD)? + FIELD.len();
    let len = memchr::memchr(b'"', &line[start..])?;
    std::str::from_utf8(&line[start..start + len]).ok()
}

/// Reads `file` from its end a chunk at a time, at most `budget` bytes, and
/// hands `each` the whole lines of each chunk (newline-separated, the last
/// one's newline left off), newest chunk first, until it says to stop. A
/// line cut by the budget is left out. Returns how many bytes were read.
fn whole_lines_from_end(
    file: &mut std::fs::File,
    budget: u64,
    mut each: impl FnMut(&[u8]) -> std::ops::ControlFlow<()>,
) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    const CHUNK: u64 = 64 * 1024;
    let mut end = file.seek(SeekFrom::End(0))?;
    let stop = end.saturating_sub(budget);
    let read_from = end;
    let mut carry: Vec<u8> = Vec::new();
    let mut chunk: Vec<u8> = Vec::new();
    while end > stop {
        let start = end.saturating_sub(CHUNK).max(stop);
        chunk.resize((end - start) as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&carry);
        // The first line of a chunk may be cut; it is kept for the next.
        let first_break = if start == 0 {
            0
        } else {
            memchr::memchr(b'\n', &chunk).map_or(chunk.len(), |i| i + 1)
        };
        carry.clear();
        carry.extend_from_slice(&chunk[..first_break]);
        let region = &chunk[first_break..];
        let region = region.strip_suffix(b"\n").unwrap_or(region);
        end = start;
        if each(region).is_break() {
            break;
        }
    }
    Ok(read_from - end)
}

/// Events whose time is at or after `since`, read from the end of the log
/// so the cost follows the window, not the log's age. The log is in append
/// order; reading stops at the first line older than `since`.
fn read_since(path: &Path, since: &str, word: Option<&str>) -> Result<Vec<Event>> {
    use std::ops::ControlFlow::{Break, Continue};
    static ESCAPE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\u"));
    let word = word.map(memchr::memmem::Finder::new);
    let mut file = match crate::os::safe_file::open_regular(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(Vec::new()),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let mut events = Vec::new();
    whole_lines_from_end(&mut file, u64::MAX, |region| {
        // Where the word, or an escape that may spell it, occurs in this
        // chunk, found in one pass each: a line with neither is passed over
        // by its time alone, never searched on its own.
        let mut hits: Vec<usize> = match &word {
            Some(word) => word
                .find_iter(region)
                .chain(ESCAPE.find_iter(region))
                .collect(),
            None => Vec::new(),
        };
        hits.sort_unstable();
        let mut line_end = region.len();
        loop {
            let line_start = memchr::memrchr(b'\n', &region[..line_end]).map_or(0, |i| i + 1);
            let line = &region[line_start..line_end];
            let first_line = line_start == 0;
            line_end = line_start.saturating_sub(1);
            // The hits past this line's start are this line's or a later one's.
            let mut in_line = false;
            while hits.last().is_some_and(|&hit| hit >= line_start) {
                hits.pop();
                in_line = true;
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                if let (Some(_), Some(ts)) = (&word, written_at(line)) {
                    if ts < since.as_bytes() {
                        return Break(());
                    }
                    // A line with escapes is parsed: `\u0064` may spell a `d`.
                    if !in_line {
                        if first_line {
                            break;
                        }
                        continue;
                    }
                }
                // A line that does not parse is no event: passed over
                // here, and named by `doctor` ([`Log::unreadable_lines`]).
                match serde_json::from_slice::<Event>(line) {
                    Ok(event) if event.ts.as_str() < since => return Break(()),
                    Ok(event) => events.push(event),
                    Err(_) => {}
                }
            }
            if first_line {
                break;
            }
        }
        Continue(())
    })
    .map_err(|err| Error::io(path, "cannot read event log", err))?;
    events.reverse();
    Ok(events)
}

/// The time of an event line as steward writes it (`{"ts":"…"`), without
/// parsing the line; `None` for a line written otherwise.
fn written_at(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"{\"ts\":\"")?;
    let end = rest.iter().position(|b| *b == b'"')?;
    let ts = &rest[..end];
    (!ts.contains(&b'\\')).then_some(ts)
}

/// Hands each event after byte `offset` (where an earlier read ended) to
/// `each`, a line at a time; returns the offset after them. A file shorter
/// than `offset` was replaced: it is read from the start; an offset inside
/// a line (a merge moved the lines) moves on to the next line.
fn each_from<T: DeserializeOwned>(
    path: &Path,
    offset: u64,
    each: &mut impl FnMut(T),
) -> Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let file = match crate::os::safe_file::open_regular(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(0),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let read_error = |err| Error::io(path, "cannot read event log", err);
    let len = file.metadata().map_err(read_error)?.len();
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let mut at = if offset <= len { offset } else { 0 };
    if at > 0 {
        let mut before = [0u8; 1];
        reader.seek(SeekFrom::Start(at - 1)).map_err(read_error)?;
        reader.read_exact(&mut before).map_err(read_error)?;
        if before[0] != b'\n' {
            at += reader.read_until(b'\n', &mut line).map_err(read_error)? as u64;
        }
    }
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(read_error)?;
        // A line still being written by another run is left for next time.
        if line.last() != Some(&b'\n') {
            return Ok(at);
        }
        at += read as u64;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // A line that does not parse is no event: passed over here, and
        // named by `doctor` ([`Log::unreadable_lines`]).
        if let Ok(event) = serde_json::from_slice(&line) {
            each(event);
        }
    }
}

/// The lines of one part of the log that do not parse as events, by
/// their number from the file's start.
fn unreadable_lines(path: &Path) -> Result<Vec<FileProblem>> {
    let file = match crate::os::safe_file::open_regular(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(Vec::new()),
        Err(err) => return Err(Error::io(path, "cannot read event log", err)),
    };
    let read_error = |err| Error::io(path, "cannot read event log", err);
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let mut problems = Vec::new();
    for number in 1.. {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(read_error)? == 0 {
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) || line.last() != Some(&b'\n') {
            continue;
        }
        if let Err(err) = serde_json::from_slice::<Event>(&line) {
            // serde's own position counts within the line.
            let text = err.to_string();
            let why = text.split(" at line ").next().unwrap_or(&text);
            problems.push(FileProblem {
                path: path.display().to_string(),
                line: number,
                column: err.column(),
                message: format!(
                    "this line is not an event ({why}): every screen passes over it; a line steward wrote never reads so, so someone else wrote it"
                ),
            });
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events after `cursor`, and where the reading ended.
    fn read_from(log: &Log, cursor: &Cursor) -> (Vec<Event>, Cursor) {
        let mut events = Vec::new();
        let end = log.each_from(cursor, |e| events.push(e)).unwrap();
        (events, end)
    }

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
    fn a_read_for_one_word_finds_what_a_whole_read_finds_across_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        // Some 600 KB: ten chunks, the word in every seventh line, some in
        // the detail of another action, and the window's edge mid-chunk.
        let all: Vec<Event> = (0..4000)
            .map(|n| {
                let mut e = event(
                    &format!(
                        "2026-11-21T{:02}:{:02}:{:02}Z",
                        n / 3600 + 1,
                        n / 60 % 60,
                        n % 60
                    ),
                    if n % 7 == 0 { "dispatched" } else { "assessed" },
                );
                if n % 11 == 0 {
                    e.detail = "dispatched by hand".to_string();
                }
                e.detail.push_str(&"x".repeat(n % 97));
                e
            })
            .collect();
        append(&path, &all, None).unwrap();
        for since in [
            "2026-11-21T00:00:00Z",
            "2026-11-21T01:30:00Z",
            "2026-11-21T02:06:39Z",
        ] {
            let named = read_since(&path, since, Some("dispatched")).unwrap();
            let whole = read_since(&path, since, None).unwrap();
            let with_word = |events: &[Event]| -> Vec<String> {
                (events.iter())
                    .filter(|e| e.action == "dispatched" || e.detail.contains("dispatched"))
                    .map(|e| e.ts.clone())
                    .collect()
            };
            assert_eq!(with_word(&named), with_word(&whole), "since {since}");
            assert_eq!(named.len(), with_word(&whole).len(), "since {since}");
        }
    }

    #[test]
    fn a_read_for_one_word_parses_only_the_lines_that_hold_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let mut all = Vec::new();
        for minute in 0..120 {
            let action = if minute % 10 == 0 {
                "dispatched"
            } else {
                "assessed"
            };
            all.push(event(
                &format!("2026-11-21T{:02}:{:02}:00Z", minute / 60, minute % 60),
                action,
            ));
        }
        append(&path, &all, None).unwrap();
        // A line with an escape and one written by hand, spaced: both parsed.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(
            &mut file,
            b"{\"ts\":\"2026-11-21T02:00:00Z\",\"goal_id\":\"id\",\"label\":\"g\",\"actor\":\"agent\",\"action\":\"dispatche\\u0064\",\"from\":null,\"to\":null,\"detail\":\"\"}\n\
              {\"ts\": \"2026-11-21T02:01:00Z\", \"goal_id\": \"id\", \"label\": \"g\", \"actor\": \"agent\", \"action\": \"assessed\", \"from\": null, \"to\": null, \"detail\": \"\"}\n",
        )
        .unwrap();
        let found = read_since(&path, "2026-11-21T01:00:00Z", Some("dispatched")).unwrap();
        let actions: Vec<&str> = found.iter().map(|e| e.action.as_str()).collect();
        assert_eq!(actions.iter().filter(|a| **a == "dispatched").count(), 7);
        assert_eq!(found.last().unwrap().ts, "2026-11-21T02:01:00Z");
        assert!(
            found
                .iter()
                .all(|e| e.ts.as_str() >= "2026-11-21T01:00:00Z")
        );
        assert_eq!(
            found.len(),
            8,
            "six written, the escaped one, the spaced one"
        );
    }

    #[test]
    fn chains_cover_every_goal_asked_for_even_one_the_log_never_changed() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        log.append(&[event("2026-11-21T00:00:00Z", "assessed")], None)
            .unwrap();
        let chains = log.chains(&["id", "other"].into_iter().collect());
        // Covered, so no one asks the log again goal by goal; reaching
        // nothing, since no change of theirs is recorded.
        assert!(chains.covers("id") && chains.covers("other"));
        assert!(!chains.covers("third"));
        assert!(!chains.reaches("other", None, "sha", &[]));
    }

    #[test]
    fn lines_read_from_the_end_are_whole_across_chunks_and_cut_by_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines");
        // Some 400 KB of lines of many lengths, so that lines cross the
        // chunks' edges wherever they fall.
        let lines: Vec<String> = (0..4000)
            .map(|n| format!("{n} {}", "x".repeat(n * 37 % 191)))
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let read = |budget: u64| {
            let mut file = std::fs::File::open(&path).unwrap();
            let mut found: Vec<String> = Vec::new();
            let bytes = whole_lines_from_end(&mut file, budget, |region| {
                let mut chunk: Vec<String> = (region.split(|b| *b == b'\n'))
                    .map(|l| String::from_utf8(l.to_vec()).unwrap())
                    .collect();
                chunk.append(&mut found);
                found = chunk;
                std::ops::ControlFlow::Continue(())
            })
            .unwrap();
            (found, bytes)
        };
        let size = std::fs::metadata(&path).unwrap().len();
        assert_eq!(read(u64::MAX), (lines.clone(), size));
        // A budget that cuts a line: the lines after the cut, whole.
        let (tail, bytes) = read(100_000);
        assert_eq!(bytes, 100_000);
        assert!(tail.len() > 100 && tail.len() < lines.len());
        assert_eq!(tail[..], lines[lines.len() - tail.len()..]);
        let whole: usize = tail.iter().map(|l| l.len() + 1).sum();
        assert!(whole <= 100_000 && whole > 100_000 - 200, "{whole}");
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
        append(&path, &all, None).unwrap();
        let recent = read_since(&path, "2026-11-21T09:00:00Z", None).unwrap();
        assert_eq!(recent.len(), 60);
        assert_eq!(recent[0].ts, "2026-11-21T09:00:00Z");
        assert_eq!(
            read_since(&path, "2026-11-21T00:00:00Z", None)
                .unwrap()
                .len(),
            600
        );
        let mut read = Vec::new();
        each_from(&path, 0, &mut |e: Event| read.push(e)).unwrap();
        assert_eq!(read, all);
    }

    #[test]
    fn the_log_is_one_file_a_day_read_in_order_with_the_old_file_first() {
        let dir = tempfile::tempdir().unwrap();
        append(
            &dir.path().join("events.jsonl"),
            &[event("2026-11-20T23:00:00Z", "old")],
            None,
        )
        .unwrap();
        let log = Log::new(dir.path());
        let written = log
            .append(
                &[
                    event("2026-11-21T23:59:00Z", "late"),
                    event("2026-11-22T00:01:00Z", "early"),
                ],
                None,
            )
            .unwrap();
        assert_eq!(
            written.iter().map(|a| a.path.clone()).collect::<Vec<_>>(),
            [
                dir.path().join("events/2026-11-21.jsonl"),
                dir.path().join("events/2026-11-22.jsonl")
            ]
        );
        let actions = |events: Vec<Event>| events.into_iter().map(|e| e.action).collect::<Vec<_>>();
        assert_eq!(
            actions(log.read_since("2026-11-21T12:00:00Z").unwrap()),
            ["late", "early"]
        );
        let (all, cursor) = read_from(&log, &Cursor::default());
        assert_eq!(actions(all), ["old", "late", "early"]);
        let pending = [event("2026-11-22T00:02:00Z", "pending")];
        let after = log.cursor_after(&cursor, &pending, None);
        log.append(&pending, None).unwrap();
        let (none, end) = read_from(&log, &after);
        assert!(none.is_empty());
        assert_eq!(end, after);
    }

    #[test]
    fn a_busy_day_grows_segments_read_in_order_and_cursors_follow_them() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let mut cursor = log.end().unwrap();
        let mut written = 0;
        // About 3 MB in one day: a dozen segments.
        for batch in 0..100 {
            let events: Vec<Event> = (0..40)
                .map(|n| {
                    let second = batch * 40 + n;
                    let mut e = event(
                        &format!(
                            "2026-11-21T{:02}:{:02}:{:02}Z",
                            second / 3600,
                            second / 60 % 60,
                            second % 60
                        ),
                        "x",
                    );
                    e.detail = "d".repeat(700);
                    e
                })
                .collect();
            let expected = log.cursor_after(&cursor, &events, None);
            log.append(&events, None).unwrap();
            written += events.len();
            let (read, after) = read_from(&log, &cursor);
            assert_eq!(read.len(), events.len(), "batch {batch}");
            assert_eq!(after, expected, "cursor_after says where reading ends");
            cursor = after;
        }
        let parts = log.parts().unwrap();
        assert!(parts.len() > 10, "{parts:?}");
        assert_eq!(parts[0], "2026-11-21");
        assert_eq!(parts[1], "2026-11-21.s0001");
        for part in &parts {
            let size = std::fs::metadata(log.path(part)).unwrap().len();
            assert!(size < SEGMENT_BYTES + 40 * 1024, "{part}: {size}");
        }
        // The next day sorts after every segment.
        log.append(&[event("2026-11-22T00:00:00Z", "next")], None)
            .unwrap();
        assert_eq!(log.parts().unwrap().last().unwrap(), "2026-11-22");
        let (all, _) = read_from(&log, &Cursor::default());
        assert_eq!(all.len(), written + 1);
        assert!(all.windows(2).all(|w| w[0].ts <= w[1].ts), "in order");
        assert_eq!(log.read_since("2026-11-21T01:00:00Z").unwrap().len(), 401);
    }

    #[test]
    fn a_reader_misses_nothing_appended_to_or_put_before_its_newest_part() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let actions = |events: Vec<Event>| events.into_iter().map(|e| e.action).collect::<Vec<_>>();
        log.append(&[event("2026-11-21T23:59:58Z", "evening")], None)
            .unwrap();
        // A process whose clock has passed midnight writes the next day...
        log.append(&[event("2026-11-22T00:00:01Z", "midnight")], None)
            .unwrap();
        let (_, cursor) = read_from(&log, &Cursor::default());
        assert_eq!(cursor.part, "2026-11-22");
        // ...then one whose clock has not writes the day before, and an
        // agent's shell writes a day far ahead.
        let late = [event("2026-11-21T23:59:59Z", "late")];
        let expected = log.cursor_after(&cursor, &late, None);
        log.append(&late, None).unwrap();
        let (read, after) = read_from(&log, &cursor);
        assert_eq!(actions(read), ["late"]);
        assert_eq!(after, expected, "cursor_after follows the older part");
        log.append(&[event("2099-01-01T00:00:00Z", "ahead")], None)
            .unwrap();
        let (read, cursor) = read_from(&log, &after);
        assert_eq!(actions(read), ["ahead"]);
        log.append(&[event("2026-11-22T00:00:02Z", "today")], None)
            .unwrap();
        // A merge brings a day this machine never had.
        std::fs::write(
            log.path("2026-11-20"),
            encode(&[event("2026-11-20T12:00:00Z", "merged")], None),
        )
        .unwrap();
        let (read, cursor) = read_from(&log, &cursor);
        assert_eq!(actions(read), ["merged", "today"]);
        let (read, _) = read_from(&log, &cursor);
        assert!(read.is_empty());
        // A cursor kept before older parts were followed counts them read.
        let kept: Cursor = serde_json::from_str(r#"{"part":"2026-11-22","offset":0}"#).unwrap();
        let (read, _) = read_from(&log, &kept);
        assert_eq!(actions(read), ["midnight", "today", "ahead"]);
    }

    /// A part put back as it was (a merge of an older copy, an agent that
    /// cut it) and then appended to is read again from its start: what
    /// came since is never skipped, whether the cursor came from a read
    /// or from what a transaction was about to append.
    #[test]
    fn a_part_rewritten_under_the_cursor_is_read_again_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let key = MachineKey::for_tests(3);
        let signer = Some(Signer {
            key: &key,
            machine: "here",
        });
        let first = [event("2026-11-21T01:00:00Z", "a")];
        log.append(&first, signer).unwrap();
        let path = log.path("2026-11-21");
        let older = std::fs::read(&path).unwrap();
        let (_, read) = read_from(&log, &Cursor::default());
        let pending = [event("2026-11-21T02:00:00Z", "b")];
        let after_append = log.cursor_after(&read, &pending, signer);
        log.append(&pending, signer).unwrap();
        assert_eq!(after_append, read_from(&log, &Cursor::default()).1);
        for cursor in [read_from(&log, &Cursor::default()).1, after_append] {
            std::fs::write(&path, &older).unwrap();
            log.append(&[event("2026-11-21T03:00:00Z", "c")], signer)
                .unwrap();
            log.append(&[event("2026-11-21T03:00:01Z", "d")], signer)
                .unwrap();
            let (events, _) = read_from(&log, &cursor);
            let actions: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
            assert_eq!(actions, ["a", "c", "d"]);
        }
    }

    #[test]
    fn a_line_still_being_written_is_left_for_the_next_reader() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        log.append(&[event("2026-11-21T01:00:00Z", "a")], None)
            .unwrap();
        let line = String::from_utf8(encode(&[event("2026-11-21T02:00:00Z", "b")], None)).unwrap();
        let (first, rest) = line.split_at(40);
        let path = log.path("2026-11-21");
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(first.as_bytes()).unwrap();
        let (events, cursor) = read_from(&log, &Cursor::default());
        assert_eq!(events.len(), 1);
        assert_eq!(cursor.offset, encode(&events, None).len() as u64);
        file.write_all(rest.as_bytes()).unwrap();
        let (events, _) = read_from(&log, &cursor);
        assert_eq!(
            events.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
    }

    #[test]
    fn a_cursor_inside_a_merged_line_moves_to_the_next_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        log.append(
            &[
                event("2026-11-21T01:00:00Z", "a"),
                event("2026-11-21T02:00:00Z", "b"),
            ],
            None,
        )
        .unwrap();
        let (events, _) = read_from(
            &log,
            &Cursor {
                part: "2026-11-21".into(),
                offset: 5,
                older: None,
                tails: BTreeMap::new(),
            },
        );
        assert_eq!(
            events.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
    }
}

#[cfg(test)]
mod signature_tests {
    use super::*;

    #[test]
    fn an_event_a_trusted_machine_signed_verifies_and_an_edited_one_does_not() {
        let key = MachineKey::load_or_create(tempfile::tempdir().unwrap().path()).unwrap();
        let signer = Signer {
            key: &key,
            machine: "laptop",
        };
        let event = Event {
            ts: "2026-11-21T04:00:00Z".into(),
            goal_id: "id".into(),
            label: "g".into(),
            actor: "agent".into(),
            action: "assessed".into(),
            sha256: Some("ab".repeat(32)),
            ..Event::default()
        };
        let bytes = encode(std::slice::from_ref(&event), Some(signer));
        let line = bytes.strip_suffix(b"\n").unwrap();
        let trusted = [key.public()];
        assert_eq!(signed_by(line, &trusted).as_deref(), Some("laptop"));
        let read: Event = serde_json::from_slice(line).unwrap();
        assert_eq!(read.action, "assessed", "the signature is more fields");
        let edited = String::from_utf8(line.to_vec())
            .unwrap()
            .replace("assessed", "completed");
        assert_eq!(signed_by(edited.as_bytes(), &trusted), None);
        let renamed = String::from_utf8(line.to_vec())
            .unwrap()
            .replace("\"laptop\"", "\"server\"");
        assert_eq!(signed_by(renamed.as_bytes(), &trusted), None);
        let unsigned = encode(std::slice::from_ref(&event), None);
        assert_eq!(
            signed_by(unsigned.strip_suffix(b"\n").unwrap(), &trusted),
            None
        );
        let other = MachineKey::load_or_create(tempfile::tempdir().unwrap().path()).unwrap();
        assert_eq!(signed_by(line, &[other.public()]), None);
    }

    #[test]
    fn a_chain_of_signed_changes_leads_from_a_seal_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let signer = Signer {
            key: &key,
            machine: "a",
        };
        let step = |action: &str, before: Option<&str>, after: &str| Event {
            ts: "2026-11-21T04:00:00Z".into(),
            goal_id: "g-1".into(),
            action: action.into(),
            sha256_before: before.map(str::to_string),
            sha256: Some(after.to_string()),
            ..Event::default()
        };
        log.append(
            &[
                step("created", None, "v1"),
                step("assessed", Some("v1"), "v2"),
                step("assessed", Some("v2"), "v3"),
            ],
            Some(signer),
        )
        .unwrap();
        // Forged: not signed.
        log.append(&[step("assessed", Some("v3"), "v4")], None)
            .unwrap();
        let trusted = [key.public()];
        assert!(log.signed_chain("g-1", Some("v1"), "v3", &trusted));
        assert!(log.signed_chain("g-1", None, "v2", &trusted));
        assert!(
            !log.signed_chain("g-1", Some("v3"), "v1", &trusted),
            "never back"
        );
        assert!(!log.signed_chain("g-1", Some("v3"), "v4", &trusted));
        assert!(!log.signed_chain("g-2", None, "v2", &trusted));
        assert!(!log.signed_chain("g-1", None, "v2", &[]));
    }

    /// A version later changes replaced, put back without its seal, is not
    /// steward's: the chain must end at the goal's last signed change.
    #[test]
    fn only_the_last_signed_change_leaves_steward_s_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let signer = || {
            Some(Signer {
                key: &key,
                machine: "a",
            })
        };
        let event = |ts: &str, action: &str, before: Option<&str>, after: Option<&str>| Event {
            ts: format!("2026-11-21T04:00:0{ts}Z"),
            goal_id: "g-1".into(),
            action: action.into(),
            sha256_before: before.map(str::to_string),
            sha256: after.map(str::to_string),
            ..Event::default()
        };
        let trusted = [key.public()];
        let last = |to: &str| log.chains_of("g-1").reaches_last("g-1", None, to, &trusted);
        log.append(
            &[
                event("0", "created", None, Some("v1")),
                event("1", "assessed", Some("v1"), Some("v2")),
                // One command, two changes in the same second: the later
                // line is the last.
                event("2", "assessed", Some("v2"), Some("v3")),
                event("2", "completed", Some("v3"), Some("v4")),
            ],
            signer(),
        )
        .unwrap();
        assert!(last("v4"));
        for earlier in ["v1", "v2", "v3"] {
            assert!(!last(earlier), "{earlier} was replaced");
            assert!(log.signed_chain("g-1", None, earlier, &trusted));
        }
        // A later line nobody trusted signed changes nothing, nor a signed
        // line of the same second copied after the last one.
        log.append(&[event("3", "assessed", Some("v4"), Some("v2"))], None)
            .unwrap();
        assert!(last("v4") && !last("v2"));
        let text = std::fs::read_to_string(log.path(&log.parts().unwrap()[0])).unwrap();
        let copied = text.lines().nth(2).unwrap();
        assert!(copied.contains("\"v3\""), "{copied}");
        let part = log.path(&log.parts().unwrap()[0]);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&part)
            .unwrap();
        std::io::Write::write_all(&mut file, format!("{copied}\n").as_bytes()).unwrap();
        assert!(last("v4") && !last("v3"));
        // A removal found, not made: on another machine it may be the
        // move a pull brought.
        log.append(&[event("3", "deleted_outside", Some("v4"), None)], signer())
            .unwrap();
        assert!(last("v4"));
        // Removed: no version is steward's; put back by `undo`: it is.
        log.append(&[event("4", "deleted", Some("v4"), None)], signer())
            .unwrap();
        assert!(!last("v4"));
        log.append(&[event("5", "undone", None, Some("v4"))], signer())
            .unwrap();
        assert!(last("v4"));
        // Changed back to bytes it had before: those are the last again.
        log.append(&[event("6", "assessed", Some("v4"), Some("v1"))], signer())
            .unwrap();
        assert!(last("v1") && !last("v4"));
    }

    /// In a store shared through git, a machine that takes a version as
    /// steward's (a merge it adopted) records it after another machine
    /// changed that version further: the taking is no newer a change, and
    /// the other machine's last change is still the last. Taking a version
    /// no change made is a newer change.
    #[test]
    fn a_version_taken_after_later_changes_is_not_the_last_change() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::new(dir.path());
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let signer = Some(Signer {
            key: &key,
            machine: "a",
        });
        let event = |ts: &str, action: &str, before: Option<&str>, after: &str| Event {
            ts: format!("2026-11-21T04:00:0{ts}Z"),
            goal_id: "g-1".into(),
            action: action.into(),
            sha256_before: before.map(str::to_string),
            sha256: Some(after.to_string()),
            ..Event::default()
        };
        let trusted = [key.public()];
        let last = |to: &str| log.chains_of("g-1").reaches_last("g-1", None, to, &trusted);
        log.append(
            &[
                event("0", "created", None, "v1"),
                event("1", "dispatched", Some("v1"), "v2"),
                event("2", "completed", Some("v2"), "v3"),
                // Another machine took v2 (its merge) before it pulled the
                // completion.
                event("3", "pulled", None, "v2"),
            ],
            signer,
        )
        .unwrap();
        assert!(last("v3") && !last("v2"));
        // A version no change made, taken: the last change is no longer v3.
        log.append(&[event("4", "pulled", None, "v9")], signer)
            .unwrap();
        assert!(!last("v3"));
        // A line nobody trusted signed, saying an early change made v9,
        // does not move the taking back.
        log.append(&[event("0", "assessed", Some("v1"), "v9")], None)
            .unwrap();
        assert!(!last("v3"));
        // Found changed outside steward and held: that record is the last,
        // though an earlier change made the same bytes.
        log.append(&[event("5", "edited_outside", None, "v2")], signer)
            .unwrap();
        assert!(last("v2") && !last("v3"));
    }
}
