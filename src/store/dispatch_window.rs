//! The dispatch times of the last hour as the heartbeat counts them, kept
//! with the point of the event log they were read up to
//! (`state/cache/dispatch-window`), so a heartbeat on a busy day reads what
//! was logged since the last one rather than the whole hour
//! (steward-design(7), "Targets").
//!
//! Rebuildable: a missing, torn or garbled cache, a log file replaced since
//! (a merge writes a new file: its inode changes), or a clock earlier than
//! the cache's (a test's) reads the hour from the log again. It is written
//! over in place, as a heartbeat on a busy day writes it each time: a new
//! file renamed over the old one frees that one, which on a file system
//! that discards freed blocks at once is a wait for the disk (0.4–0.8 ms on
//! the development machine, about a tenth of the heartbeat). Its last line
//! is this machine's MAC of the others, as for steward's other caches, so a
//! torn one (a crash, or a heartbeat reading while another writes) or a
//! forged one is not read. Whoever can write the store can still remove it
//! or bring back an older one, so nothing decides a dispatch by it: `tick`,
//! `dispatch` and `assess --dispatched` count from the log itself, and the
//! cache only shapes what a heartbeat shows.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::Store;
use super::events::{Cursor, line_before};
use super::key::{Domain, MachineKey};
use crate::error::Result;
use crate::model::format_time;
use crate::os::safe_file;

const HEADER: &str = "steward dispatch window v2";
/// More dispatches than an hour can hold at any sane limit: a cache that
/// lists more is not read.
const MAX_TIMES: usize = 100_000;

/// The fields of an event the window needs.
#[derive(Deserialize)]
struct Logged {
    ts: String,
    action: String,
}

/// What the cache holds.
struct Window {
    /// When it was written: a clock before it cannot use it.
    at: String,
    /// Where in the log it was read up to, and what that file was then:
    /// its inode and the hash of the line before the cursor (a file
    /// rewritten by a merge differs in one or the other).
    cursor: Cursor,
    inode: u64,
    tail: String,
    /// Dispatch times at or after an hour before `at`, oldest first.
    times: Vec<String>,
}

impl Store {
    /// The times of the dispatches logged from `since` to `now`, from the
    /// cache and the log after it; the cache is brought up to date.
    pub fn dispatch_times_seen(
        &self,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>> {
        let (since, now) = (format_time(since), format_time(now));
        let log = self.log();
        let path = self.cache_dir().join("dispatch-window");
        // Without this machine's key there is no cache: the hour is read
        // from the log each time.
        let key = self.keys.key().ok();
        let cached = key.and_then(|key| read(&path, key)).filter(|w| {
            let part = log.path(&w.cursor.part);
            w.at <= now
                && inode(&part) == Some(w.inode)
                && line_before(&part, w.cursor.offset) == w.tail
        });
        // What the cache said, to write it only when that changes.
        let before =
            (cached.as_ref()).map(|w| (w.cursor.part.clone(), w.cursor.offset, w.times.len()));
        let (mut times, cursor) = match cached {
            Some(window) => {
                let mut times = window.times;
                let read = log.each_from(&window.cursor, |event: Logged| {
                    if event.action == "dispatched" {
                        times.push(event.ts);
                    }
                });
                match read {
                    Ok(end) => (times, end),
                    // A line that does not parse: the whole read below
                    // passes over lines without the word, as every other
                    // count of the window does.
                    Err(_) => whole(&log, &since)?,
                }
            }
            None => whole(&log, &since)?,
        };
        times.retain(|ts| *ts >= since);
        times.sort();
        let part = log.path(&cursor.part);
        let unchanged = before == Some((cursor.part.clone(), cursor.offset, times.len()));
        if let (Some(key), Some(inode)) = (key, inode(&part).filter(|_| !unchanged)) {
            let window = Window {
                at: now.clone(),
                tail: line_before(&part, cursor.offset),
                cursor,
                inode,
                times: times.clone(),
            };
            // Not through a directory that leads outside the store.
            if self.check_own_directories().is_ok() && super::cache_dir_ready(&self.cache_dir()) {
                let text = key.with_mac(Domain::Cache, render(&window));
                let _ = super::atomic::write_over_unsynced(&path, text.as_bytes());
            }
        }
        times.retain(|ts| *ts <= now);
        Ok(times)
    }
}

/// The hour's dispatch times read from the log, and the end of the log:
/// the end first, so what is appended meanwhile is read again next time
/// rather than missed.
fn whole(log: &super::events::Log, since: &str) -> Result<(Vec<String>, Cursor)> {
    let end = log.end()?;
    let times = (log
        .read_since_naming(since, Some("dispatched"))?
        .into_iter())
    .filter(|e| e.action == "dispatched")
    .map(|e| e.ts)
    .collect();
    Ok((times, end))
}

/// The last line of the file at `path` before `offset`, hashed (empty
/// when none can be read): lines end alike, but each begins with its time.
fn inode(path: &Path) -> Option<u64> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.ino())
}

fn render(window: &Window) -> String {
    let or_dash = |text: &str| {
        if text.is_empty() {
            "-".to_string()
        } else {
            text.to_string()
        }
    };
    let mut text = format!(
        "{HEADER}\n{} {} {} {} {}\n",
        window.at,
        or_dash(&window.cursor.part),
        window.cursor.offset,
        window.inode,
        or_dash(&window.tail),
    );
    for ts in &window.times {
        text.push_str(ts);
        text.push('\n');
    }
    text
}

/// The cache at `path`; `None` when it is missing, torn, not under `key`'s
/// MAC or does not parse.
fn read(path: &Path, key: &MachineKey) -> Option<Window> {
    let text = safe_file::read_state(path)?;
    let mut lines = key.lines_under_mac(Domain::Cache, &text, HEADER)?;
    let mut fields = lines.next()?.split(' ');
    let at = fields.next()?.to_string();
    let part = match fields.next()? {
        "-" => String::new(),
        part => part.to_string(),
    };
    let offset = fields.next()?.parse().ok()?;
    let inode = fields.next()?.parse().ok()?;
    let tail = match fields.next()? {
        "-" => String::new(),
        tail => tail.to_string(),
    };
    // A part is a day's file name, never a path.
    if !part
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        || part.starts_with('.')
    {
        return None;
    }
    // Past the start of the file, the line before the cursor is known.
    if offset > 0 && tail.is_empty() {
        return None;
    }
    let times: Vec<String> = lines.map(str::to_string).take(MAX_TIMES + 1).collect();
    if times.len() > MAX_TIMES {
        return None;
    }
    // Times as steward writes them, or the cache is not steward's.
    let well_formed =
        |ts: &String| ts.len() == 20 && ts.ends_with('Z') && !ts.contains(char::is_whitespace);
    (fields.next().is_none() && times.iter().all(well_formed)).then_some(Window {
        at,
        cursor: Cursor {
            part,
            offset,
            ..Cursor::default()
        },
        inode,
        tail,
        times,
    })
}

#[cfg(test)]
mod tests {
    use crate::store::testing::TempStore;

    const LOG: &str = "state/events/2026-11-21.jsonl";

    fn line(ts: &str, action: &str) -> String {
        format!(
            "{{\"ts\":\"{ts}\",\"goal_id\":\"g\",\"label\":\"g\",\"actor\":\"agent\",\"action\":\"{action}\",\"from\":null,\"to\":null,\"detail\":\"\"}}\n"
        )
    }

    fn append(temp: &TempStore, lines: &[String]) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(temp.root().join(LOG))
            .unwrap();
        std::io::Write::write_all(&mut file, lines.concat().as_bytes()).unwrap();
    }

    /// `body` under this machine's MAC, as steward writes the cache.
    fn under_mac(temp: &TempStore, body: &str) -> String {
        let store = temp.store();
        let key = store.keys.key().unwrap();
        key.with_mac(super::Domain::Cache, body.to_string())
    }

    /// The cache at `path`, read as the heartbeat reads it.
    fn read(temp: &TempStore, path: &std::path::Path) -> Option<super::Window> {
        super::read(path, temp.store().keys.key().unwrap())
    }

    fn seen(temp: &TempStore, now: &str) -> Vec<String> {
        let now: chrono::DateTime<chrono::Utc> = now.parse().unwrap();
        (temp.store())
            .dispatch_times_seen(now - chrono::Duration::hours(1), now)
            .unwrap()
    }

    #[test]
    fn the_window_follows_the_log_from_where_it_was_read() {
        let temp = TempStore::new();
        temp.write(LOG, "");
        append(
            &temp,
            &[
                line("2026-11-21T02:30:00Z", "dispatched"),
                line("2026-11-21T03:10:00Z", "dispatched"),
                line("2026-11-21T03:20:00Z", "assessed"),
            ],
        );
        assert_eq!(
            seen(&temp, "2026-11-21T04:00:00Z"),
            ["2026-11-21T03:10:00Z"]
        );
        let cache = temp.read("state/cache/dispatch-window");
        let (body, _mac) = cache.rsplit_once("mac ").unwrap();
        assert!(body.ends_with("2026-11-21T03:10:00Z\n"), "{cache}");
        // The next heartbeat takes the hour from the cache, not the log: a
        // time only the cache lists is counted.
        let listed = body.replace(
            "2026-11-21T03:10:00Z\n",
            "2026-11-21T03:05:00Z\n2026-11-21T03:10:00Z\n",
        );
        temp.write("state/cache/dispatch-window", &under_mac(&temp, &listed));
        assert_eq!(
            seen(&temp, "2026-11-21T04:00:00Z"),
            ["2026-11-21T03:05:00Z", "2026-11-21T03:10:00Z"]
        );
        temp.write("state/cache/dispatch-window", &cache);

        // Appended since: read from where the cache left off.
        append(&temp, &[line("2026-11-21T03:50:00Z", "dispatched")]);
        assert_eq!(
            seen(&temp, "2026-11-21T04:05:00Z"),
            ["2026-11-21T03:10:00Z", "2026-11-21T03:50:00Z"]
        );
        // An hour on, the first has left the window.
        assert_eq!(
            seen(&temp, "2026-11-21T04:30:00Z"),
            ["2026-11-21T03:50:00Z"]
        );
    }

    #[test]
    fn a_line_that_does_not_parse_costs_one_whole_read() {
        let temp = TempStore::new();
        temp.write(LOG, &line("2026-11-21T03:10:00Z", "dispatched"));
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 1);
        append(
            &temp,
            &[
                "{\"ts\":\"2026-11-21T03:20:00Z\", oops\n".to_string(),
                line("2026-11-21T03:30:00Z", "dispatched"),
            ],
        );
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 2);
        assert_eq!(seen(&temp, "2026-11-21T04:01:00Z").len(), 2);
    }

    #[test]
    fn a_cache_that_names_no_log_file_or_no_line_is_not_read() {
        let temp = TempStore::new();
        let path = temp.root().join("state/cache/dispatch-window");
        for forged in [
            "steward dispatch window v2\n2026-11-21T04:00:00Z ../../out 0 1 -\n",
            "steward dispatch window v2\n2026-11-21T04:00:00Z 2026-11-21 999 1 -\n",
        ] {
            let forged = under_mac(&temp, forged);
            temp.write("state/cache/dispatch-window", &forged);
            assert!(read(&temp, &path).is_none(), "{forged}");
        }
        let many = "2026-11-21T03:10:00Z\n".repeat(super::MAX_TIMES + 1);
        temp.write(
            "state/cache/dispatch-window",
            &under_mac(
                &temp,
                &format!(
                    "steward dispatch window v2\n2026-11-21T04:00:00Z 2026-11-21 0 1 -\n{many}"
                ),
            ),
        );
        assert!(read(&temp, &path).is_none());
    }

    #[test]
    fn the_cache_is_written_over_in_place_and_a_torn_or_forged_one_is_not_read() {
        use std::os::unix::fs::MetadataExt;
        let temp = TempStore::new();
        let path = temp.root().join("state/cache/dispatch-window");
        temp.write(LOG, &line("2026-11-21T03:10:00Z", "dispatched"));
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 1);
        let inode = std::fs::metadata(&path).unwrap().ino();
        append(&temp, &[line("2026-11-21T03:20:00Z", "dispatched")]);
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 2);
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        let cache = temp.read("state/cache/dispatch-window");
        assert!(read(&temp, &path).is_some());

        // Cut short, its times changed without its MAC, or put under
        // another machine's key: not read, and the hour comes from the log.
        let cut = &cache[..cache.len() - 10];
        let changed = cache.replace("03:20:00Z", "03:25:00Z");
        let (body, _mac) = cache.rsplit_once("mac ").unwrap();
        let other = super::MachineKey::load_or_create(&temp.root().join("other")).unwrap();
        let forged = other.with_mac(super::Domain::Cache, body.to_string());
        for torn in [cut, &changed, &forged] {
            temp.write("state/cache/dispatch-window", torn);
            assert!(read(&temp, &path).is_none(), "{torn}");
            assert_eq!(
                seen(&temp, "2026-11-21T04:00:00Z"),
                ["2026-11-21T03:10:00Z", "2026-11-21T03:20:00Z"]
            );
        }
    }

    #[test]
    fn a_cache_that_does_not_match_the_log_is_rebuilt_from_it() {
        let temp = TempStore::new();
        temp.write(LOG, &line("2026-11-21T03:10:00Z", "dispatched"));
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 1);

        // A merge writes a new file: lines before the cache's offset count.
        let merged = [
            line("2026-11-21T03:05:00Z", "dispatched"),
            line("2026-11-21T03:10:00Z", "dispatched"),
        ]
        .concat();
        std::fs::remove_file(temp.root().join(LOG)).unwrap();
        temp.write(LOG, &merged);
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 2);
        // Rewritten in place (the same inode): the bytes before the cursor
        // differ.
        let rewritten = [
            line("2026-11-21T03:01:00Z", "dispatched"),
            line("2026-11-21T03:05:00Z", "dispatched"),
            line("2026-11-21T03:10:00Z", "assessed"),
        ]
        .concat();
        std::fs::write(temp.root().join(LOG), &rewritten).unwrap();
        assert_eq!(
            seen(&temp, "2026-11-21T04:00:00Z"),
            ["2026-11-21T03:01:00Z", "2026-11-21T03:05:00Z"]
        );

        // Garbled, or written by a later clock: read from the log.
        temp.write(
            "state/cache/dispatch-window",
            "steward dispatch window v1\nnonsense\n",
        );
        assert_eq!(seen(&temp, "2026-11-21T04:00:00Z").len(), 2);
        assert_eq!(seen(&temp, "2026-11-21T04:01:00Z").len(), 2);
        assert_eq!(seen(&temp, "2026-11-21T03:30:00Z").len(), 2);
        assert_eq!(seen(&temp, "2026-11-21T03:03:00Z").len(), 1);
    }
}
