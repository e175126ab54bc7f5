//! The summaries of plans already checked, keyed by the SHA-256 of the
//! plan's text (`state/cache/plans`), so a heartbeat over 100 goals with a
//! 100-node plan each does not check every plan again (steward-design(7),
//! "A checked plan is checked once").
//!
//! A plan's check and summary depend on its text alone, so a memo keyed by
//! the text's hash holds whatever the file, its times or its history: a
//! file changed through a shared mapping (which can leave its times as
//! they were) hashes to another key. The memo is MAC'd with the machine
//! key, since a summary taken on trust skips the plan's check, and one of
//! another steward version is not read; deleting it loses only the time to
//! check each plan once more.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest, Sha256};

use super::key::{Domain, MachineKey, hex};
use super::{atomic, cache_dir_ready};
use crate::model::plan::Tally;
use crate::model::plan::section::Summary;
use crate::os::safe_file;

/// The first line of the memo; one with another is not read (a new version
/// may check plans by other rules).
const HEADER: &str = concat!("steward checked plans 2 ", env!("CARGO_PKG_VERSION"));
/// A memo larger than this is not read (it is written anew).
const MAX_MEMO_BYTES: u64 = 16 * 1024 * 1024;

/// The SHA-256 of a plan's text.
pub type PlanKey = [u8; 32];

#[derive(Debug, Default)]
pub struct PlanMemo {
    kept: HashMap<PlanKey, Kept>,
    /// Plans checked by this command, to keep for the next.
    checked: Mutex<Vec<(PlanKey, Summary)>>,
}

#[derive(Debug)]
struct Kept {
    summary: Summary,
    /// Whether this command read a plan with this text: entries no
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

    /// The key of a plan whose text is `text`.
    pub fn key_of(text: &str) -> PlanKey {
        Sha256::digest(text.as_bytes()).into()
    }

    /// The summary kept for the plan whose text has `key`.
    pub fn summary_of(&self, key: &PlanKey) -> Option<Summary> {
        let kept = self.kept.get(key)?;
        kept.used.store(true, Ordering::Relaxed);
        Some(kept.summary)
    }

    /// Keeps `summary`, just checked from the plan whose text has `key`.
    pub fn remember(&self, key: PlanKey, summary: Summary) {
        (self.checked.lock().expect("not poisoned")).push((key, summary));
    }

    /// Writes the memo at `path` when this command checked a plan or read
    /// fewer plans than it holds: the entries it used and the plans it
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
        let mut entries: Vec<(PlanKey, Summary)> = (self.kept.into_iter())
            .filter(|(_, kept)| kept.used.load(Ordering::Relaxed))
            .map(|(plan, kept)| (plan, kept.summary))
            .chain(checked)
            .collect();
        entries.sort_by_key(|entry| entry.0);
        entries.dedup_by(|a, b| a.0 == b.0);
        let mut body = format!("{HEADER}\n");
        for (plan, summary) in &entries {
            body.push_str(&format!(
                "{} {} {} {:016x}\n",
                hex(plan),
                summary.tally.done,
                summary.tally.total,
                summary.statuses
            ));
        }
        if cache_dir_ready(atomic::parent(path)) {
            let text = key.with_mac(Domain::Cache, body);
            let _ = atomic::write_unsynced(path, text.as_bytes());
        }
    }
}

fn read(path: &Path, key: &MachineKey) -> Option<HashMap<PlanKey, Kept>> {
    let text = safe_file::read_text(path, MAX_MEMO_BYTES).ok()??;
    key.lines_under_mac(Domain::Cache, &text, HEADER)?
        .map(|line| {
            let mut words = line.split(' ');
            let hash = words.next()?;
            let mut plan = [0u8; 32];
            if hash.len() != 64 {
                return None;
            }
            for (byte, pair) in plan.iter_mut().zip(hash.as_bytes().chunks(2)) {
                *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
            }
            let tally = Tally {
                done: words.next()?.parse().ok()?,
                total: words.next()?.parse().ok()?,
            };
            let statuses = u64::from_str_radix(words.next()?, 16).ok()?;
            let kept = Kept {
                summary: Summary { tally, statuses },
                used: AtomicBool::new(false),
            };
            Some((plan, kept))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_kept_for_the_text_it_came_from_and_with_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let path = dir.path().join("cache/plans");
        let summary = Summary {
            tally: Tally { done: 3, total: 7 },
            statuses: 0xfeed,
        };
        let plan = "- [x] P1 Ship\n";

        let memo = PlanMemo::load(&path, Some(&key));
        assert_eq!(memo.summary_of(&PlanMemo::key_of(plan)), None);
        memo.remember(PlanMemo::key_of(plan), summary);
        memo.save(&path, Some(&key), || true);

        let memo = PlanMemo::load(&path, Some(&key));
        assert_eq!(memo.summary_of(&PlanMemo::key_of(plan)), Some(summary));
        // Another text, even one byte: another key.
        assert_eq!(memo.summary_of(&PlanMemo::key_of("- [ ] P1 Ship\n")), None);
        // Another machine's key, or a number changed by hand: not read.
        let other = MachineKey::load_or_create(&dir.path().join("other")).unwrap();
        let foreign = PlanMemo::load(&path, Some(&other));
        assert_eq!(foreign.summary_of(&PlanMemo::key_of(plan)), None);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace(" 3 7 ", " 7 7 ")).unwrap();
        let forged = PlanMemo::load(&path, Some(&key));
        assert_eq!(forged.summary_of(&PlanMemo::key_of(plan)), None);
    }

    #[test]
    fn entries_no_command_used_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let key = MachineKey::load_or_create(&dir.path().join("key")).unwrap();
        let path = dir.path().join("plans");
        let summary = Summary::default();
        let memo = PlanMemo::load(&path, Some(&key));
        memo.remember(PlanMemo::key_of("a"), summary);
        memo.remember(PlanMemo::key_of("b"), summary);
        memo.save(&path, Some(&key), || true);
        let memo = PlanMemo::load(&path, Some(&key));
        assert!(memo.summary_of(&PlanMemo::key_of("a")).is_some());
        memo.save(&path, Some(&key), || true);
        let memo = PlanMemo::load(&path, Some(&key));
        assert!(memo.summary_of(&PlanMemo::key_of("a")).is_some());
        assert!(memo.summary_of(&PlanMemo::key_of("b")).is_none());
    }
}
