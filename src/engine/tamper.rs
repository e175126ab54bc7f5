//! Tamper evidence (SPEC 11): a goal whose status, criteria or checks no
//! longer match what steward last recorded for it was changed outside
//! steward. `tick` records that (history line and event, actor `unknown`)
//! and `doctor` reports it.
//!
//! The digest steward last wrote is in the event log. To avoid reading the
//! whole log on every pass, `state/digests.json` keeps the digest of each
//! open goal as the last pass saw it and how far into the log that pass
//! read; only goals whose digest moved send the pass to the log, and then
//! only to its new lines. The file is machine state: delete it and the
//! next pass rebuilds it from the log.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::Result;
use crate::model::Digest;
use crate::store::{LoadedGoal, Store, events};

/// What the last pass saw.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Seen {
    /// Where reading the event log stopped.
    #[serde(default)]
    events: events::Cursor,
    /// Goal id → digest.
    goals: BTreeMap<String, Digest>,
}

/// A goal changed outside steward.
#[derive(Debug)]
pub struct EditedOutside<'g> {
    pub goal: &'g LoadedGoal,
    /// Which of status, criteria and checks differ from steward's record.
    pub fields: Vec<&'static str>,
}

fn seen_path(store: &Store) -> PathBuf {
    store.state_dir.join("digests.json")
}

/// The goals among `goals` changed outside steward since the last pass (in
/// the order of `goals`), and how far this pass read the log (to keep with [`remember`]). Each event
/// steward wrote since then carries the digest of the file before and after
/// its change; a `before` that is not the previous `after`, or a file that
/// is not the last `after`, means someone else changed it in between.
/// `pending` are the events of the running transaction, not yet in the log.
pub fn find<'g>(
    ctx: &Context,
    goals: &'g [LoadedGoal],
    pending: &[events::Event],
) -> Result<(Vec<EditedOutside<'g>>, Seen)> {
    let seen: Seen = std::fs::read_to_string(seen_path(&ctx.store))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let log = ctx.store.log();
    // The log is read a line at a time: without a cursor (a new machine,
    // state deleted) the tail is the whole history.
    let mut from_tail = Chains::default();
    let cursor = log.each_from(&seen.events, |event: Digests| {
        from_tail.follow(event, &seen.goals);
    })?;
    for event in pending {
        let event = Digests {
            goal_id: event.goal_id.clone(),
            digest_before: event.digest_before.clone(),
            digest: event.digest.clone(),
        };
        from_tail.follow(event, &seen.goals);
    }
    let from_tail = from_tail.0;
    let mut edited = Vec::new();
    let mut full_log: Option<BTreeMap<String, Chain>> = None;
    let no_start = BTreeMap::new();
    for goal in goals.iter().filter(|g| !g.goal.id.is_empty()) {
        let id = goal.goal.id.as_str();
        let digest = goal.digest();
        let in_tail = from_tail.get(id);
        let mut last = in_tail.map_or_else(|| seen.goals.get(id), |chain| chain.last.as_ref());
        // Moved with nothing new in the log: a merge may have put its event
        // before the offset. Read the whole log before saying so.
        if in_tail.is_none()
            && last.is_some_and(|last| *last != *digest)
            && seen.events != events::Cursor::default()
        {
            let whole = full_log.get_or_insert_with(|| {
                let mut whole = Chains::default();
                log.each_from(&events::Cursor::default(), |event: Digests| {
                    whole.follow(event, &no_start);
                })
                .map_or_else(|_| BTreeMap::new(), |_| whole.0)
            });
            if let Some(found) = whole.get(id) {
                last = found.last.as_ref();
            }
        }
        let mut fields = in_tail
            .map(|chain| chain.fields.clone())
            .unwrap_or_default();
        // A goal steward never recorded (written by hand) is adopted.
        if let Some(last) = last {
            add_fields(&mut fields, digest.differing(last));
        }
        if !fields.is_empty() {
            edited.push(EditedOutside { goal, fields });
        }
    }
    let seen = Seen {
        events: cursor,
        goals: BTreeMap::new(),
    };
    Ok((edited, seen))
}

/// The fields of an event that tamper evidence reads.
#[derive(Deserialize)]
struct Digests {
    #[serde(default)]
    goal_id: String,
    #[serde(default)]
    digest_before: Option<Digest>,
    #[serde(default)]
    digest: Option<Digest>,
}

/// What the log says about each goal, event by event: goal id → chain.
#[derive(Default)]
struct Chains(BTreeMap<String, Chain>);

impl Chains {
    /// Follows one event of a goal's chain, which starts at `start`'s digest
    /// for it (what an earlier pass saw) when the log has nothing before.
    fn follow(&mut self, event: Digests, start: &BTreeMap<String, Digest>) {
        let Some(after) = event.digest else { return };
        let chain = match self.0.entry(event.goal_id) {
            std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::btree_map::Entry::Vacant(entry) => {
                let last = start.get(entry.key()).cloned();
                entry.insert(Chain {
                    last,
                    fields: Vec::new(),
                })
            }
        };
        if let (Some(last), Some(before)) = (&chain.last, &event.digest_before) {
            add_fields(&mut chain.fields, before.differing(last));
        }
        chain.last = Some(after);
    }
}

/// What the log says about one goal since the last pass.
#[derive(Debug, Clone)]
struct Chain {
    /// The digest steward recorded last.
    last: Option<Digest>,
    /// Fields changed outside steward along the way.
    fields: Vec<&'static str>,
}

fn add_fields(fields: &mut Vec<&'static str>, more: Vec<&'static str>) {
    for field in more {
        if !fields.contains(&field) {
            fields.push(field);
        }
    }
    fields.sort_by_key(|f| ["status", "criteria", "checks"].iter().position(|x| x == f));
}

/// Keeps what this pass leaves: the digests of the goals as it wrote them,
/// and the log's end once the transaction's own events are in it (they
/// were checked already). Call it last, before the transaction finishes.
pub fn remember(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    mut seen: Seen,
    after: &[LoadedGoal],
) -> Result<()> {
    seen.events = ctx
        .store
        .log()
        .cursor_after(&seen.events, tx.pending_events());
    seen.goals = after
        .iter()
        .filter(|g| !g.goal.id.is_empty() && !g.goal.status.is_terminal())
        .map(|g| (g.goal.id.clone(), g.digest().into_owned()))
        .collect();
    let text = serde_json::to_string(&seen).expect("digests serialize") + "\n";
    let path = seen_path(&ctx.store);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        tx.write_file(&path, &text)?;
    }
    Ok(())
}
