//! The summaries of plans already checked, keyed by the stamp of the goal
//! file they were read from (`state/cache/plans`), so a heartbeat over 100
//! goals with a 100-node plan each does not check every plan again
//! (steward-design(7), "A checked plan is checked once").
//!
//! A goal file whose size, modification time, inode and change time are
//! the ones kept is the file that was checked: the change time, which no
//! program can set, moves with every write. A file changed in the last
//! [`RACY_SECONDS`] is never kept (git's "racy clean"). The memo is MAC'd
//! with the machine key, since a summary taken on trust skips the plan's
//! check; deleting it loses only the time to check each plan once more.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::GoalFile;
use super::key::{Domain, MachineKey};
use super::{atomic, cache_dir_ready};
use crate::model::plan::Tally;
use crate::model::plan::section::Summary;
use crate::os::safe_file;

/// The first line of the memo; one with another is not read (a new version
/// may check plans by other rules).
const HEADER: &str = concat!("steward checked plans 1 ", env!("CARGO_PKG_VERSION"));
/// Files changed more recently than this are checked, never kept.
const RACY_SECONDS: i64 = 2;
/// A memo larger than this is not read (it is written anew).
const MAX_MEMO_BYTES: u64 = 16 * 1024 * 1024;

/// Size, modification time (s, ns), inode, change time (s, ns).
type Stamp = [i64; 6];

#[derive(Debug, Default)]
pub struct PlanMemo {
    kept: HashMap<Box<OsStr>, Kept>,
    /// Plans checked by this command, to keep for the next.
    checked: Mutex<Vec<(Box<OsStr>, Stamp, Summary)>>,
}

#[derive(Debug)]
struct Kept {
    stamp: Stamp,
    summary: Summary,
    /// Whether this command read the file with this stamp: entries no
    /// command read are dropped when the memo is written.
    used: AtomicBool,
}

impl PlanMemo {
    /// The memo at `path`; empty when it is missing, garbled, too large,
    /// of another version, or not MAC'd with `key`.
    pub fn load(path: &Path, key: Option<&MachineKey>) -> PlanMemo {
        let kept = key.and_then(|key| read(path, key)).unwrap_or_default();
        PlanMemo {
            kept,
            checked: Mutex::default(),
        }
    }

    /// The summary kept for `file`, when it is the file that was checked.
    pub fn summary_of(&self, file: &GoalFile) -> Option<Summary> {
        let kept = self.kept.get(file.path.file_name()?)?;
        (Some(kept.stamp) == stamp_of(file)).then(|| {
            kept.used.store(true, Ordering::Relaxed);
            kept.summary
        })
    }

    /// Keeps `summary`, just checked from `file`, unless the file changed
    /// too recently to trust its times.
    pub fn remember(&self, file: &GoalFile, summary: Summary) {
        let (Some(name), Some(stamp)) = (file.path.file_name(), stamp_of(file)) else {
            return;
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let awkward = name.as_bytes().iter().any(|b| matches!(b, b'\n' | b' '));
        if stamp[1].max(stamp[4]) > now - RACY_SECONDS || awkward {
            return;
        }
        (self.checked.lock().expect("not poisoned")).push((name.into(), stamp, summary));
    }

    /// Writes the memo at `path` when this command checked a plan or read
    /// fewer files than it holds: the entries it used and the plans it
    /// checked. Best effort, for commands that read every open goal.
    /// `store_is_safe`: the store's own directories lead nowhere outside it.
    pub fn save(self, path: &Path, key: Option<&MachineKey>, store_is_safe: impl FnOnce() -> bool) {
        let Some(key) = key else {
            return;
        };
        let checked = self.checked.into_inner().expect("not poisoned");
        let unused = self.kept.values().any(|k| !k.used.load(Ordering::Relaxed));
        if (checked.is_empty() && !unused) || !store_is_safe() {
            return;
        }
        let mut entries: Vec<(Box<OsStr>, Stamp, Summary)> = (self.kept.into_iter())
            .filter(|(_, kept)| kept.used.load(Ordering::Relaxed))
            .map(|(name, kept)| (name, kept.stamp, kept.summary))
            .chain(checked)
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        let mut body = format!("{HEADER}\n");
        for (name, stamp, summary) in &entries {
            let numbers: Vec<String> = stamp.iter().map(i64::to_string).collect();
            body.push_str(&format!(
                "{} {} {} {} {:016x}\n",
                name.to_string_lossy(),
                numbers.join(" "),
                summary.tally.done,
                summary.tally.total,
                summary.statuses
            ));
        }
        let mac = key.mac(Domain::Cache, &[body.as_bytes()]);
        if cache_dir_ready(atomic::parent(path)) {
            let _ = atomic::write_unsynced(path, format!("{body}mac {mac}\n").as_bytes());
        }
    }
}

fn stamp_of(file: &GoalFile) -> Option<Stamp> {
    let (size, modified) = file.stamp?;
    let identity = file.identity.as_ref()?;
    let modified = modified.duration_since(UNIX_EPOCH).ok()?;
    Some([
        i64::try_from(size).ok()?,
        modified.as_secs() as i64,
        i64::from(modified.subsec_nanos()),
        identity.inode as i64,
        identity.changed.0,
        identity.changed.1,
    ])
}

fn read(path: &Path, key: &MachineKey) -> Option<HashMap<Box<OsStr>, Kept>> {
    let text = safe_file::read_text(path, MAX_MEMO_BYTES).ok()??;
    let (body, mac) = text.rsplit_once("mac ")?;
    if !key.verifies(Domain::Cache, &[body.as_bytes()], mac.trim()) {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != HEADER {
        return None;
    }
    lines
        .map(|line| {
            let mut words = line.split(' ');
            let name: Box<OsStr> = OsStr::new(words.next()?).into();
            let mut number = || words.next()?.parse::<i64>().ok();
            let stamp = [
                number()?,
                number()?,
                number()?,
                number()?,
                number()?,
                number()?,
            ];
            let tally = Tally {
                done: words.next()?.parse().ok()?,
                total: words.next()?.parse().ok()?,
            };
            let statuses = u64::from_str_radix(words.next()?, 16).ok()?;
            let kept = Kept {
                stamp,
                summary: Summary { tally, statuses },
                used: AtomicBool::new(false),
            };
            Some((name, kept))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal_file(path: &Path) -> GoalFile {
        GoalFile::read(path).unwrap()
    }

    #[test]
    fn a_summary_is_kept_for_the_file_it_came_from_and_with_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let goal = dir.path().join("g.md");
        std::fs::write(&goal, "---\nlabel: g\n---\n").unwrap();
        let settled = SystemTime::now() - std::time::Duration::from_secs(3600);
        (std::fs::File::options().write(true).open(&goal).unwrap())
            .set_modified(settled)
            .unwrap();
        let memo_path = dir.path().join("cache/plans");
        let summary = Summary {
            tally: Tally { done: 3, total: 7 },
            statuses: 0xfeed,
        };

        // Changed within the last 2 seconds (its change time): not kept.
        let memo = PlanMemo::load(&memo_path, Some(&key));
        memo.remember(&goal_file(&goal), summary);
        memo.save(&memo_path, Some(&key), || true);
        assert!(!memo_path.exists());

        // A file settled: kept, and read back for the same file only.
        std::thread::sleep(std::time::Duration::from_millis(2100));
        let memo = PlanMemo::load(&memo_path, Some(&key));
        memo.remember(&goal_file(&goal), summary);
        memo.save(&memo_path, Some(&key), || true);
        let memo = PlanMemo::load(&memo_path, Some(&key));
        assert_eq!(memo.summary_of(&goal_file(&goal)), Some(summary));
        let other = MachineKey::load_or_create(&dir.path().join("other")).unwrap();
        let foreign = PlanMemo::load(&memo_path, Some(&other));
        assert_eq!(foreign.summary_of(&goal_file(&goal)), None);

        // A write changes the file's change time: checked again.
        std::fs::write(&goal, "---\nlabel: g\n---\n").unwrap();
        assert_eq!(memo.summary_of(&goal_file(&goal)), None);
    }
}
