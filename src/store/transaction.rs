//! The one write path: lock, re-read, apply, write atomically, append history
//! and events. Every command that changes the store goes through here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};

use super::events::Event;
use super::key::{Domain, sha256};
use super::seal::{OutsideChange, Place, Seal, Trust};
use super::{GoalFile, LoadedGoal, Scan, Scope, Store, StoreLock, atomic};
use crate::config::MAX_FILE_BYTES;
use crate::error::{Error, Result};
use crate::model::book::{Book, Transition};
use crate::model::{Actor, Digest, Edit, Goal, GoalChange, UndoRecord, format_time};
use crate::store::mirror;

/// Who a transaction acts for.
#[derive(Debug, Clone)]
pub struct Acting {
    pub actor: Actor,
    /// A person acts by override in an agent's shell.
    pub overridden: bool,
    /// What made the caller an agent (`CLAUDECODE=1`, `runs under claude
    /// (pid 812)`), recorded in the events it writes; `None` for a person
    /// and for steward itself.
    pub rule: Option<String>,
    /// An answer from the phone: the goal (its id) and the SHA-256 of the
    /// file it was offered for; a write that would start from other bytes
    /// is refused under the lock.
    pub expect: Option<(String, String)>,
}

impl Acting {
    /// steward itself (`tick`'s watchdog, a run's supervisor).
    pub fn steward(actor: Actor) -> Acting {
        Acting {
            actor,
            overridden: false,
            rule: None,
            expect: None,
        }
    }
}

/// Holds the store lock from `begin` to `finish`.
pub struct Transaction<'s> {
    store: &'s Store,
    _lock: StoreLock,
    now: DateTime<Utc>,
    actor: Actor,
    /// A person acts by override in an agent's shell: history and events
    /// say so.
    overridden: bool,
    /// What made the caller an agent, for its events.
    actor_rule: Option<String>,
    /// See [`Acting::expect`].
    expect: Option<(String, String)>,
    events: Vec<Event>,
    written: Vec<PathBuf>,
    /// Goals saved, with the label they had before, for the mirror.
    mirror_changes: Vec<MirrorChange>,
    /// A full render of the mirror block, when the command read every goal.
    mirror_block: Option<String>,
    /// Obligations changed: linked goals' mirror entries may show them.
    obligations_changed: bool,
    /// Goals that ended in this transaction, for their episodes.
    ended: Vec<Goal>,
    /// The command, for the commit message.
    command: &'static str,
    /// Labels of goals deleted, for the mirror.
    mirror_removals: Vec<String>,
    /// Each goal's change by this command, for `undo`, by goal id.
    undo: BTreeMap<String, UndoRecord>,
    /// Directories that gained, lost or replaced an entry: synced once each
    /// when the transaction finishes, before its events are appended.
    unsynced_dirs: Vec<PathBuf>,
    /// Directories found free of leftovers, recorded so when it finishes.
    leftovers_checked: Option<super::leftovers::Checked>,
    /// When set (`tick`), a goal file that changed on disk since it was read
    /// is left as it is, and listed here, instead of failing the command.
    left_changed: Option<Vec<PathBuf>>,
    /// What each goal written or deleted was sealed as before, and is
    /// sealed as now, by goal id: the seals are written when the
    /// transaction finishes.
    seals: BTreeMap<String, SealChange>,
    /// Finish (write what was recorded) even when dropped: a command that
    /// recorded a change made outside steward and then refuses keeps the
    /// record.
    finish_on_drop: bool,
    finished: bool,
    /// What this transaction is about to write, written first.
    journal: super::journal::Journal,
    /// Machine bookkeeping only (a run's process ids): written, not
    /// committed; the next commit that writes the same files carries them.
    uncommitted: bool,
}

/// A goal read under the lock, verified: see [`Transaction::verify`].
#[derive(Debug)]
pub struct Verified {
    pub goal: LoadedGoal,
    /// What was found changed outside steward (and is now recorded).
    pub outside: Option<OutsideChange>,
}

/// A goal's seal before and after a transaction: where it was and where
/// it goes (`None`: the goal was new, or is gone).
struct SealChange {
    before: Option<(Place, String)>,
    after: Option<(Place, Seal)>,
}

/// A goal's new bytes, stamped, and the goal they say, not yet written.
struct Prepared {
    file: GoalFile,
    goal: Goal,
    actor: Actor,
}

/// What a finished transaction did.
#[derive(Debug, Default)]
pub struct Finished {
    pub written: Vec<PathBuf>,
    /// Problems that did not stop the command (a mirror steward could not
    /// update, a path git ignores), for stderr.
    pub warnings: Vec<String>,
    /// The commit failed: the files are written, the command must exit 1.
    pub commit_error: Option<String>,
}

impl<'s> Transaction<'s> {
    pub fn begin(
        store: &'s Store,
        now: DateTime<Utc>,
        acting: Acting,
        lock_timeout: Duration,
        command: &'static str,
    ) -> Result<Self> {
        let Acting {
            actor,
            overridden,
            rule: actor_rule,
            expect,
        } = acting;
        store.check_own_directories()?;
        let lock = StoreLock::acquire(&store.lock_path(), lock_timeout)?;
        Ok(Transaction {
            store,
            _lock: lock,
            now,
            actor,
            overridden,
            actor_rule,
            expect,
            events: Vec::new(),
            written: Vec::new(),
            mirror_changes: Vec::new(),
            mirror_block: None,
            obligations_changed: false,
            ended: Vec::new(),
            command,
            mirror_removals: Vec::new(),
            undo: BTreeMap::new(),
            unsynced_dirs: Vec::new(),
            leftovers_checked: None,
            uncommitted: false,
            left_changed: None,
            seals: BTreeMap::new(),
            finish_on_drop: false,
            finished: false,
            journal: super::journal::Journal::default(),
        })
        .and_then(|mut tx| {
            tx.seal_store_here()?;
            tx.complete_interrupted()?;
            // What the store's first write here, a replaced key or an
            // interrupted write recorded is kept even if the command then
            // fails or lets the transaction go.
            if !tx.events.is_empty() {
                tx.finish_on_drop = true;
            }
            tx.publish_key()?;
            Ok(tx)
        })
    }

    /// Puts this machine's public key into the store under the name it
    /// signs with (`state/machines/<machine>.pub`), for the other machines
    /// to check what it signs; written when missing or different.
    fn publish_key(&mut self) -> Result<()> {
        // Machine-local settings are never committed.
        let local = self.store.state_dir.join("local");
        if local.is_dir() && !local.join(".gitignore").exists() {
            super::cache_dir_ready(&local);
        }
        let key = self.store.keys.key()?;
        let published = self.store.published_key_path(self.store.keys.machine());
        let public = format!("ed25519 {}\n", key.public_hex());
        if crate::os::safe_file::read_text(&published, 4096)
            .ok()
            .flatten()
            .as_deref()
            != Some(&public)
        {
            self.write_file(&published, &public)?;
        }
        Ok(())
    }

    /// The first write to a store on this machine seals its open goals as
    /// they are: from then on a goal file steward did not write is found.
    /// (A store cloned here, or used by a steward that sealed nothing yet,
    /// starts trusting its goals at this moment, as
    /// steward-design(7), "Judge only what steward wrote", says.)
    fn seal_store_here(&mut self) -> Result<()> {
        if self.store.sealed_here_with_mac() {
            return Ok(());
        }
        self.store.keys.key()?;
        let now = format_time(self.now);
        // Seals this machine's key made are there: the store was sealed
        // here before, and its marker was removed (or the store moved).
        // Sealing again would take every goal as it now is, and trust the
        // keys and commands the store now names: what an agent that
        // removed the marker would want. The marker is put back, and every
        // goal is judged against its seal.
        if self.store.holds_own_seals() {
            self.store.mark_sealed_here(&now)?;
            self.record_store_event(
                "marker_restored",
                "the store's seals are this machine's, but its marker in ~/.config/steward/stores/ was gone (removed, or the store moved): put back; every goal is judged against its seal, none sealed afresh",
            );
            return Ok(());
        }
        // Sealed here before by another key: the key was removed or
        // replaced. Taking every goal as it is would make that the way to
        // have any edit accepted. The store is marked sealed with the new
        // key, under which no old seal, record or acceptance verifies:
        // every goal, the configuration and the other machines wait for a
        // person.
        if let Some(evidence) = self.store.sealed_by_another_key() {
            self.store.mark_sealed_here(&now)?;
            self.record_store_event(
                "key_replaced",
                &format!(
                    "this machine's key is not the one that sealed this store before ({evidence}): nothing is taken as it is; every goal waits for a person's `steward accept GOAL`, the configuration for `steward config accept`, other machines for `steward accept --machine NAME`"
                ),
            );
            return Ok(());
        }
        // The keys the store holds are trusted from now on (this machine's
        // own is published below), and so is what the configuration files
        // say now and the commands its goals run; later changes that
        // loosen them wait for a person here. Only a person's first write
        // takes them: an agent's own store, made for it, would otherwise
        // run its commands outside its sandbox.
        let scan = self.store.scan(Scope::Open)?;
        let by_person = self.store.caller == Actor::User;
        if by_person {
            self.store
                .trust_machines(&self.store.published_machines())?;
            self.store
                .accept_config(&crate::config::said_in_files(&self.store.root))?;
            let commands: Vec<String> = (scan.goals.iter())
                .flat_map(|loaded| {
                    super::seal::command_checks(&loaded.goal)
                        .map(|command| super::seal::command_digest(&loaded.goal.id, command))
                })
                .collect();
            self.store.accept_commands(&commands)?;
        } else {
            self.record_store_event(
                "sealed_by_agent",
                "an agent's command was the first to write to this store here: its goals are sealed as they are, but no configuration, command check or other machine is taken until a person runs `steward config accept`, `steward accept GOAL` and `steward accept --machine NAME`",
            );
        }
        for loaded in &scan.goals {
            if loaded.goal.id.is_empty() {
                continue;
            }
            let seal = Seal {
                id: loaded.goal.id.clone(),
                label: loaded.goal.label.clone(),
                sha256: sha256(loaded.file.text().as_bytes()),
            };
            self.store.write_seal(Place::Open, &seal)?;
        }
        self.store.mark_sealed_here(&now)?;
        if !scan.goals.is_empty() {
            self.record_store_event(
                "sealed",
                &format!(
                    "{} open goals sealed as they are: steward's first write to this store on this machine",
                    scan.goals.len()
                ),
            );
        }
        Ok(())
    }

    /// Writes what this transaction recorded even if the command then
    /// fails: for a change found that must not be forgotten.
    pub fn finish_even_if_dropped(&mut self) {
        self.finish_on_drop = true;
    }

    pub fn store(&self) -> &Store {
        self.store
    }

    /// What made `actor` an agent, when it is the caller.
    fn rule_for(&self, actor: Actor) -> Option<String> {
        self.actor_rule.clone().filter(|_| actor == self.actor)
    }

    /// Re-reads one goal under the lock.
    pub fn resolve(&self, reference: &str) -> Result<LoadedGoal> {
        self.store.resolve(reference)
    }

    /// [`Store::refind`] under the lock.
    pub fn refind(&self, id: &str, label: &str) -> Result<LoadedGoal> {
        self.store.refind(id, label)
    }

    /// Finds a goal read before the lock was taken again under it; see
    /// [`Store::refind_after`].
    pub fn refind_after(&self, before: &LoadedGoal) -> Result<LoadedGoal> {
        self.store.refind_after(before)
    }

    /// Re-reads goals under the lock.
    pub fn scan(&self, scope: Scope) -> Result<Scan> {
        self.store.scan(scope)
    }

    /// `loaded` (read under the lock) against what steward last wrote to
    /// its file on this machine. A change made outside steward — an edit,
    /// a file put in place, a seal changed — is recorded at once, before
    /// anything is decided on the goal: a history line and an event by
    /// `unknown` naming what changed, and, for an open goal, a wait for a
    /// person's review; a closed one is marked closed outside steward.
    /// Returns the goal as it now is, and what was found.
    pub fn verify(&mut self, loaded: LoadedGoal) -> Result<Verified> {
        let Some(outside) = self.outside_of(&loaded) else {
            return Ok(Verified {
                goal: loaded,
                outside: None,
            });
        };
        let change = self.recording(&loaded, &outside);
        let file = edited(&loaded, &change)?;
        let goal = self.write(Some(&loaded), file, change)?.unwrap_or(loaded);
        Ok(Verified {
            goal,
            outside: Some(outside),
        })
    }

    /// What was changed in `loaded` outside steward, if anything; a seal
    /// lost in a crash is repaired on the way. A goal this transaction
    /// wrote already is steward's.
    fn outside_of(&mut self, loaded: &LoadedGoal) -> Option<OutsideChange> {
        if !loaded.goal.id.is_empty() && self.seals.contains_key(&loaded.goal.id) {
            return None;
        }
        match self.store.trust_of(loaded) {
            Trust::Steward => None,
            Trust::Signed => {
                // Steward wrote this (here, and crashed before sealing it;
                // or on a machine this one trusts): sealed as it is.
                let place = self.store.place_of(&loaded.file.path);
                self.seal_change(
                    Some((place, loaded.goal.label.clone())),
                    &loaded.goal,
                    Some((place, sha256(loaded.file.text().as_bytes()))),
                );
                None
            }
            Trust::Outside(outside) => Some(outside),
        }
    }

    /// The change that records what `outside` found (see
    /// [`Transaction::verify`]): by `unknown`, and kept even if the command
    /// then fails.
    fn recording(&mut self, loaded: &LoadedGoal, outside: &OutsideChange) -> GoalChange {
        self.finish_on_drop = true;
        let goal = &loaded.goal;
        let mut change = if goal.status.is_terminal() {
            GoalChange::new(
                "closed_by_hand",
                format!("closed by hand, no receipt: {}", outside.detail),
            )
            .with(Edit::ClosedOutside)
        } else {
            let review = super::seal::review_wait(outside, self.now);
            GoalChange::new("edited_outside", outside.detail.clone())
                .with(Edit::Waiting(Some(review)))
        };
        change.actor = Some(Actor::Unknown);
        change.always = true;
        change.diff = outside.diff.clone();
        change
    }

    /// From now on a goal file that changed on disk since it was read (a
    /// hand edit while a long pass ran) is left as it is and named in the
    /// warnings: saving it writes nothing and returns `None`. Without this
    /// the save fails with [`Error::ChangedMeanwhile`].
    pub fn leave_changed_goals(&mut self) {
        self.left_changed.get_or_insert_with(Vec::new);
    }

    /// Applies `change` to `original` and writes it when its bytes differ
    /// (or always, for a note), stamping `updated_at`, appending a history
    /// line and recording an event. Moves the file where its status says
    /// it belongs. Returns the goal as written (with its file where it now
    /// lives), or `None` when nothing changed. The file is replaced only
    /// if it is still what `original` read (see
    /// [`Transaction::leave_changed_goals`]).
    pub fn save(
        &mut self,
        original: &LoadedGoal,
        mut change: GoalChange,
    ) -> Result<Option<LoadedGoal>> {
        let verified = self.verify(original.clone())?;
        let original = &verified.goal;
        self.person_looks(original, &mut change);
        let file = edited(original, &change)?;
        self.write(Some(original), file, change)
    }

    /// A person's change to a goal that waits for a person (the judge left
    /// it to one, or its file changed outside steward) ends that wait: a
    /// person has looked. The history line says so.
    fn person_looks(&self, original: &LoadedGoal, change: &mut GoalChange) {
        let actor = change.actor.unwrap_or(self.actor);
        let Some(waiting) = (original.goal.waiting.as_ref()).filter(|w| w.for_person.is_some())
        else {
            return;
        };
        if actor != Actor::User
            || change.silent
            || change.edits.iter().any(|e| matches!(e, Edit::Waiting(_)))
        {
            return;
        }
        change.push(Edit::Waiting(None));
        let ended = format!("no longer waiting for {}", waiting.reason);
        change.detail = if change.detail.is_empty() {
            ended
        } else {
            format!("{}; {ended}", change.detail)
        };
    }

    /// Writes a new goal at `path` from `change` (its edits fill an empty
    /// file); refuses when a file is already there.
    pub fn create(&mut self, path: &Path, change: GoalChange) -> Result<LoadedGoal> {
        let mut file = GoalFile::empty(path);
        file.apply(&change.edits)?;
        Ok(self
            .write(None, file, change)?
            .expect("a new goal is always written"))
    }

    /// Writes a goal file a person edited by hand (`steward edit`), recording
    /// `change` (which carries no edits of its own).
    pub fn save_edited(
        &mut self,
        original: &LoadedGoal,
        mut file: GoalFile,
        mut change: GoalChange,
    ) -> Result<Option<LoadedGoal>> {
        let verified = self.verify(original.clone())?;
        let original = &verified.goal;
        self.person_looks(original, &mut change);
        file.apply(&change.edits)?;
        self.write(Some(original), file, change)
    }

    fn write(
        &mut self,
        original: Option<&LoadedGoal>,
        file: GoalFile,
        change: GoalChange,
    ) -> Result<Option<LoadedGoal>> {
        let Some(prepared) = self.prepare(original, file, &change)? else {
            return Ok(None);
        };
        let staged = atomic::stage_one(&prepared.file.path, prepared.file.text().as_bytes())?;
        self.place(original, prepared, staged, change)
    }

    /// [`Transaction::save`] of many goals, waiting for the disk once per
    /// batch of files instead of once per file: each goal's new bytes are
    /// written beside it first, then the file system is synced, then each
    /// is renamed into place (a goal changed meanwhile is left as
    /// [`Transaction::save`] leaves it). Whether each goal was written.
    /// For `tick`'s move of thousands of goals closed by hand; a few goals
    /// are synced one by one, as `syncfs` also waits for other programs'
    /// writes.
    pub fn save_all(&mut self, changes: Vec<(&LoadedGoal, GoalChange)>) -> Result<Vec<bool>> {
        /// Fewer files than this are synced one by one.
        const SYNC_FILE_SYSTEM_FROM: usize = 16;
        /// Goals staged at once: bounds the memory and the temporary files
        /// of a large batch.
        const BATCH: usize = 1024;
        let sync_each = changes.len() < SYNC_FILE_SYSTEM_FROM;
        let mut saved = Vec::with_capacity(changes.len());
        let mut changes = changes.into_iter().peekable();
        while changes.peek().is_some() {
            let mut staged = Vec::new();
            for (original, mut change) in changes.by_ref().take(BATCH) {
                // A change found made outside steward is recorded by the
                // same write, when the caller only moves the goal.
                if let Some(outside) = self.outside_of(original) {
                    if change.silent {
                        change = self.recording(original, &outside);
                    } else {
                        return Err(Error::Internal(format!(
                            "{}: changed outside steward; verify it before saving it with others",
                            original.file.path.display()
                        )));
                    }
                }
                let file = edited(original, &change)?;
                match self.prepare(Some(original), file, &change)? {
                    Some(prepared) => {
                        let text = prepared.file.text().as_bytes();
                        let bytes = atomic::stage(&prepared.file.path, text, sync_each)?;
                        staged.push(Some((original, prepared, bytes, change)));
                    }
                    None => staged.push(None),
                }
            }
            if !sync_each && staged.iter().any(Option::is_some) {
                atomic::sync_filesystem(&self.store.absolute_root)?;
            }
            for item in staged {
                saved.push(match item {
                    Some((original, prepared, bytes, change)) => self
                        .place(Some(original), prepared, bytes, change)?
                        .is_some(),
                    None => false,
                });
            }
        }
        Ok(saved)
    }

    /// Applies what every write does before the bytes go to disk: the
    /// `updated_at` and history stamps (for a change that is not silent)
    /// and the size limit. `None` when the bytes are `original`'s and the
    /// change need not be written.
    fn prepare(
        &self,
        original: Option<&LoadedGoal>,
        mut file: GoalFile,
        change: &GoalChange,
    ) -> Result<Option<Prepared>> {
        if let Some(original) = original
            && !change.always
            && !file.differs_from(&original.file)
        {
            return Ok(None);
        }
        // An answer acts on the bytes it was offered for, or not at all:
        // the file is placed only if unchanged since `original` was read.
        if let (Some((id, sha)), Some(original)) = (&self.expect, original)
            && original.goal.id == *id
            && sha256(original.file.text().as_bytes()) != *sha
        {
            return Err(Error::BadRequest(format!(
                "goal {} changed since the answer was offered",
                original.goal.label
            )));
        }
        let actor = change.actor.unwrap_or(self.actor);
        // Stamped and read once; a goal without an id (written by hand) is
        // stamped again from the same bytes, with one, and read again.
        let unstamped = (!change.silent).then(|| file.clone());
        if !change.silent {
            self.stamp(&mut file, actor, change, None)?;
        }
        within_size(&file)?;
        let mut goal = self.read_back(&file)?;
        if let Some(unstamped) = unstamped
            && goal.id.is_empty()
        {
            file = unstamped;
            let id = uuid::Uuid::new_v4().to_string();
            self.stamp(&mut file, actor, change, Some(id))?;
            within_size(&file)?;
            goal = self.read_back(&file)?;
        }
        Ok(Some(Prepared { file, goal, actor }))
    }

    /// What a change that is not silent adds to the file: `id` (for a goal
    /// without one), `updated_at` and a line of history.
    fn stamp(
        &self,
        file: &mut GoalFile,
        actor: Actor,
        change: &GoalChange,
        id: Option<String>,
    ) -> Result<()> {
        let stamps: Vec<Edit> = (id.map(Edit::Id).into_iter())
            .chain([Edit::UpdatedAt(self.now)])
            .collect();
        file.apply(&stamps)?;
        let who = if self.overridden && actor == self.actor {
            format!("{} (override)", actor.as_str())
        } else {
            actor.as_str().to_string()
        };
        file.append_history(self.now, &who, &change.action, &change.detail);
        Ok(())
    }

    /// The command checks a person's write on this machine puts in a goal
    /// are accepted here: those it adds (`add`, `update`), and every one
    /// the person was shown whole (`edit`, `accept`). A command that
    /// arrived any other way — a pull, a file written by hand or by an
    /// agent — runs only once a person here accepts it.
    fn accept_persons_commands(
        &self,
        original: Option<&LoadedGoal>,
        goal: &crate::model::Goal,
        actor: Actor,
    ) -> Result<()> {
        if actor != Actor::User {
            return Ok(());
        }
        let shown = matches!(self.command, "edit" | "accept");
        let before: Vec<&str> = original
            .map(|o| super::seal::command_checks(&o.goal).collect())
            .unwrap_or_default();
        let accepted: Vec<String> = super::seal::command_checks(goal)
            .filter(|command| shown || !before.contains(command))
            .map(|command| super::seal::command_digest(&goal.id, command))
            .collect();
        if accepted.is_empty() {
            return Ok(());
        }
        self.store.accept_commands(&accepted)
    }

    /// Writes what is about to be done to `goal`'s file in the journal
    /// (`store::journal`).
    fn intend(
        &mut self,
        original: Option<&LoadedGoal>,
        goal: &crate::model::Goal,
        sha_after: &str,
        event: Option<&Event>,
    ) -> Result<()> {
        if goal.id.is_empty() || !self.store.sealed_here() {
            return Ok(());
        }
        let Ok(key) = self.store.keys.key() else {
            return Ok(());
        };
        let home = self.store.home_of(goal);
        let intent = super::journal::Intent {
            path: self.store.relative(&home),
            id: goal.id.clone(),
            label: goal.label.clone(),
            sealed_as: original.map(|o| (self.store.place_of(&o.file.path), o.goal.label.clone())),
            before: original.map(|o| sha256(o.file.text().as_bytes())),
            after: sha_after.to_string(),
            event: event.cloned(),
        };
        let state_dir = &self.store.state_dir;
        self.journal.intend(state_dir, key, &intent)
    }

    /// Completes what a transaction killed before it finished left in the
    /// journal: the goal files it put in place get their events logged
    /// and their seals moved on; what it did not put in place is dropped.
    /// steward's own interrupted write is so never taken for a change made
    /// outside it.
    fn complete_interrupted(&mut self) -> Result<()> {
        let state_dir = self.store.state_dir.clone();
        let Ok(key) = self.store.keys.key() else {
            return Ok(());
        };
        let Some(left) = super::journal::read(&state_dir, key) else {
            return Ok(());
        };
        let mut goals: Vec<&str> = left.intents.iter().map(|i| i.id.as_str()).collect();
        goals.sort_unstable();
        goals.dedup();
        let sha_at = |path: &str| {
            let text = crate::os::safe_file::read_state(&self.store.root.join(path))?;
            Some(sha256(text.as_bytes()))
        };
        let mut events = Vec::new();
        let mut completed = Vec::new();
        for id in goals {
            let intents: Vec<&super::journal::Intent> =
                left.intents.iter().filter(|i| i.id == id).collect();
            if !self.store.starts_from_seal(intents[0]) {
                continue;
            }
            let happened = super::journal::took_place(&intents, sha_at);
            let Some(last) = happened.checked_sub(1).map(|at| intents[at]) else {
                continue;
            };
            if !left.logged {
                // Stopped after its events were logged and before it said
                // so: each is logged once.
                let keys = self.store.trusted_keys();
                let log = self.store.log();
                events.extend(
                    intents[..happened]
                        .iter()
                        .filter_map(|i| i.event.clone())
                        .filter(|event| {
                            let Some(after) = event.sha256.as_deref() else {
                                return true;
                            };
                            let before = event.sha256_before.as_deref();
                            !log.signed_chain(&event.goal_id, before, after, &keys)
                        }),
                );
            }
            let place = self.store.place_of(&self.store.root.join(&last.path));
            let seal = Seal {
                id: last.id.clone(),
                label: last.label.clone(),
                sha256: last.after.clone(),
            };
            match &intents[0].sealed_as {
                Some((from, label)) if *from != place || label != &seal.label => {
                    self.store.move_seal(*from, label, place, &seal)?
                }
                _ => self.store.write_seal(place, &seal)?,
            }
            completed.push(last.label.clone());
        }
        if !events.is_empty() {
            let written = self.store.append_events(&events)?;
            self.written.extend(written);
        }
        if !completed.is_empty() {
            self.record_store_event(
                "interrupted_write_completed",
                &format!(
                    "a steward command stopped after writing {} and before recording it: its events are logged and its seals moved on",
                    completed.join(", ")
                ),
            );
        }
        // Marked done, written over in place like any journal: read again
        // by every later transaction, its intents would take a goal that
        // comes back to bytes one of them started from.
        let mut journal = super::journal::Journal::default();
        journal.end_leftover(&state_dir, key)
    }

    /// Puts a prepared goal's staged bytes in place and records the change:
    /// event, mirror entry, undo record.
    fn place(
        &mut self,
        original: Option<&LoadedGoal>,
        prepared: Prepared,
        staged: atomic::Staged,
        change: GoalChange,
    ) -> Result<Option<LoadedGoal>> {
        let Prepared {
            mut file,
            goal,
            actor,
        } = prepared;
        let digest = Digest::of(&goal);
        let sha_after = sha256(file.text().as_bytes());
        let silent = change.silent;
        let action = change.action.clone();
        // A silent change that changes the bytes is still recorded: the
        // store's other machines take a pulled goal file as steward's by
        // a signed chain of events to its bytes.
        let sha_before = original.map(|o| sha256(o.file.text().as_bytes()));
        let recorded = !silent || sha_before.as_deref() != Some(sha_after.as_str());
        let event = recorded.then(|| Event {
            ts: format_time(self.now),
            goal_id: goal.id.clone(),
            label: goal.label.clone(),
            actor: actor.as_str().to_string(),
            action: change.action,
            from: original
                .map(|o| o.goal.status.as_str().to_string())
                .filter(|from| *from != goal.status.as_str()),
            to: Some(goal.status.as_str().to_string())
                .filter(|_| original.is_none_or(|o| o.goal.status != goal.status)),
            detail: change.detail,
            dispatch_id: change.dispatch_id,
            overridden: self.overridden && actor == self.actor,
            actor_rule: self.rule_for(actor),
            digest_before: original.map(|o| o.digest().into_owned()),
            digest: Some(digest.clone()),
            sha256_before: sha_before,
            sha256: Some(sha_after.clone()),
            diff: change.diff.clone(),
            receipt: change.edits.iter().find_map(|edit| match edit {
                Edit::Receipt(receipt) => {
                    Some(serde_json::to_value(receipt).expect("receipts serialize"))
                }
                _ => None,
            }),
            handoff: change.edits.iter().find_map(|edit| match edit {
                Edit::Handoff(handoff) => {
                    Some(serde_json::to_value(handoff).expect("handoffs serialize"))
                }
                _ => None,
            }),
            by: None,
        });
        // What is about to happen, before it does: a crash from here to
        // the log leaves a record the next transaction completes.
        self.intend(original, &goal, &sha_after, event.as_ref())?;
        let Some((path, stamp)) = self.write_goal(original, &file, &goal, staged)? else {
            return Ok(None);
        };
        file.path = path;
        file.stamp = Some(stamp);
        file.identity = None;
        if goal.status.is_terminal() && original.is_none_or(|o| !o.goal.status.is_terminal()) {
            self.ended.push(goal.clone());
        }
        self.accept_persons_commands(original, &goal, actor)?;
        self.seal_change(
            original.map(|o| (self.store.place_of(&o.file.path), o.goal.label.clone())),
            &goal,
            Some((self.store.place_of(&file.path), sha_after)),
        );
        let Some(event) = event else {
            return Ok(Some(LoadedGoal {
                file,
                goal: Box::new(goal),
                digest: Some(Box::new(digest)),
            }));
        };
        self.events.push(event);
        // A note or a new date leaves the goal's mirror entry as it was:
        // then the mirror is not read at all (`tick` renders the whole
        // block, entries made stale by hand included). Without a mirror
        // there is nothing to compare; a goal closed before and after has
        // no entry, and its label may be an open goal's now (labels are
        // reused once a goal closes).
        let open_before_or_after =
            !goal.status.is_terminal() || original.is_some_and(|o| !o.goal.status.is_terminal());
        let same_entry = self.store.mirror_path.is_none()
            || !open_before_or_after
            || original.is_some_and(|o| {
                o.goal.label == goal.label
                    && mirror::render_entry(&o.goal, &Book::default())
                        == mirror::render_entry(&goal, &Book::default())
            });
        if !same_entry {
            // A goal that takes the label of one removed in this
            // transaction (a vanished goal's, say) has the entry now.
            self.mirror_removals.retain(|label| *label != goal.label);
            self.mirror_changes.push(MirrorChange {
                old_label: original.map_or_else(|| goal.label.clone(), |o| o.goal.label.clone()),
                goal: goal.clone(),
            });
        }
        // What `undo` takes back is a command's change, not a check's
        // result recorded since. Undoing a change found made outside
        // steward puts back what steward last wrote, where it is kept.
        if !silent {
            let as_steward_wrote = (action == "edited_outside")
                .then(|| original.and_then(|o| self.store.as_steward_wrote(o)))
                .flatten();
            self.remember_for_undo(
                &goal.id,
                &goal.label,
                as_steward_wrote
                    .as_deref()
                    .or(original.map(|o| o.file.text())),
                Some(file.text()),
                &action,
            );
        }
        Ok(Some(LoadedGoal {
            file,
            goal: Box::new(goal),
            digest: Some(Box::new(digest)),
        }))
    }

    /// Notes a goal's seal: where it was before this transaction (at the
    /// first write of the goal) and what it is now.
    fn seal_change(
        &mut self,
        before: Option<(Place, String)>,
        goal: &Goal,
        after: Option<(Place, String)>,
    ) {
        if goal.id.is_empty() {
            return;
        }
        let after = after.map(|(place, sha256)| {
            (
                place,
                Seal {
                    id: goal.id.clone(),
                    label: goal.label.clone(),
                    sha256,
                },
            )
        });
        self.seals
            .entry(goal.id.clone())
            .and_modify(|change| change.after = after.clone())
            .or_insert(SealChange { before, after });
    }

    /// Writes the seals of the goals this transaction wrote, and removes
    /// those of goals it moved, renamed or deleted.
    fn write_seals(&mut self) -> Result<()> {
        for (id, change) in std::mem::take(&mut self.seals) {
            match (change.after, change.before) {
                (Some((place, seal)), Some((from, label)))
                    if place != from || (place == Place::Open && seal.label != label) =>
                {
                    self.store.move_seal(from, &label, place, &seal)?;
                }
                (Some((place, seal)), _) => self.store.write_seal(place, &seal)?,
                (None, Some((from, label))) => self.store.remove_seal(from, &label, &id)?,
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// Keeps what this command did to a goal for `undo`: the bytes it
    /// found (at its first write) and the bytes it left (at its last).
    fn remember_for_undo(
        &mut self,
        id: &str,
        label: &str,
        before: Option<&str>,
        after: Option<&str>,
        action: &str,
    ) {
        if id.is_empty() {
            return;
        }
        let after = after.map(str::to_string);
        if let Some(record) = self.undo.get_mut(id) {
            record.after = after;
            record.label = label.to_string();
            record.actions.push(action.to_string());
            return;
        }
        let record = UndoRecord {
            schema_version: 1,
            goal_id: id.to_string(),
            label: label.to_string(),
            at: format_time(self.now),
            command: self.command.to_string(),
            actor: self.actor.as_str().to_string(),
            actions: vec![action.to_string()],
            before: before.map(str::to_string),
            after,
            mac: None,
        };
        self.undo.insert(id.to_string(), record);
    }

    /// Writes a goal that is not in the store (`undo` of a deletion) from
    /// its bytes, where its status and label say it lives; refuses when a
    /// file is already there.
    pub fn restore(&mut self, file: GoalFile, change: GoalChange) -> Result<LoadedGoal> {
        let mut file = file;
        file.path = self.store.home_of(&self.read_back(&file)?);
        Ok(self
            .write(None, file, change)?
            .expect("a restored goal is always written"))
    }

    /// Deletes a goal's file (`steward delete`): an event records it, with
    /// the goal's digest before, and `undo` can bring it back.
    pub fn delete(&mut self, loaded: &LoadedGoal, detail: String) -> Result<()> {
        let verified = self.verify(loaded.clone())?;
        let loaded = &verified.goal;
        if atomic::changed_since(&loaded.file.path, loaded.file.stamp) {
            self.changed_meanwhile(&loaded.file.path)?;
            return Ok(());
        }
        atomic::remove(&loaded.file.path)?;
        self.written.push(loaded.file.path.clone());
        let goal = &loaded.goal;
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: goal.id.clone(),
            label: goal.label.clone(),
            actor: self.actor.as_str().to_string(),
            action: "deleted".to_string(),
            from: Some(goal.status.as_str().to_string()),
            to: None,
            detail,
            overridden: self.overridden,
            actor_rule: self.rule_for(self.actor),
            digest_before: Some(loaded.digest().into_owned()),
            sha256_before: Some(sha256(loaded.file.text().as_bytes())),
            ..Event::default()
        });
        self.seal_change(
            Some((self.store.place_of(&loaded.file.path), goal.label.clone())),
            goal,
            None,
        );
        // A closed goal's label may be an open goal's now: only a file of
        // the open goals' directory can have an entry.
        if self.store.place_of(&loaded.file.path) == Place::Open {
            self.mirror_removals.push(goal.label.clone());
        }
        self.remember_for_undo(
            &goal.id,
            &goal.label,
            Some(loaded.file.text()),
            None,
            "deleted",
        );
        Ok(())
    }

    /// Renames the goal's staged bytes over `original`'s file only if that
    /// is unchanged since it was read, and moves it where its status says
    /// it belongs; never overwrites another file. Returns where it is and
    /// its size and modification time, or `None` when `original` changed
    /// and this transaction leaves changed goals.
    fn write_goal(
        &mut self,
        original: Option<&LoadedGoal>,
        file: &GoalFile,
        goal: &Goal,
        staged: atomic::Staged,
    ) -> Result<Option<(PathBuf, (u64, SystemTime))>> {
        let home = self.store.home_of(goal);
        if original.is_none() && file.path.exists() {
            return Err(Error::PathTaken {
                path: file.path.clone(),
                what: "a file is already there; steward does not overwrite it".to_string(),
            });
        }
        if home != file.path && home.exists() {
            return Err(Error::PathTaken {
                path: home,
                what: format!(
                    "cannot move goal `{}` there: the file already exists",
                    goal.label
                ),
            });
        }
        let read = original
            .filter(|o| o.file.path == file.path)
            .and_then(|o| o.file.stamp);
        let Some(stamp) = staged.replace_unless_changed(read)? else {
            return self.changed_meanwhile(&file.path).map(|()| None);
        };
        self.sync_later(&file.path);
        self.written.push(file.path.clone());
        if home != file.path {
            atomic::move_file(&file.path, &home)?;
            self.sync_later(&home);
            self.written.push(home.clone());
        }
        Ok(Some((home, stamp)))
    }

    /// A goal file changed on disk since this command read it: a hand edit
    /// is never written over.
    fn changed_meanwhile(&mut self, path: &Path) -> Result<()> {
        if let Some(left) = &mut self.left_changed {
            left.push(path.to_path_buf());
            return Ok(());
        }
        Err(Error::ChangedMeanwhile {
            path: path.to_path_buf(),
            what: "changed on disk after steward read it (edited while the command ran?); it was left as it is".to_string(),
            hint: "run the command again".to_string(),
        })
    }

    /// Marks the directory of `path` to be synced when the transaction
    /// finishes: a pass that writes many goals syncs each directory once.
    fn sync_later(&mut self, path: &Path) {
        let dir = atomic::parent(path);
        if !self.unsynced_dirs.iter().any(|d| d == dir) {
            self.unsynced_dirs.push(dir.to_path_buf());
        }
    }

    /// Writes the obligations and records an event per transition.
    pub fn save_obligations(&mut self, book: &Book, transitions: &[Transition]) -> Result<()> {
        if transitions.is_empty() {
            return Ok(());
        }
        self.write_obligation_files(book)?;
        for transition in transitions {
            let to = transition
                .to
                .map_or_else(|| "dropped".to_string(), |s| s.as_str().to_string());
            self.events.push(Event {
                ts: format_time(self.now),
                goal_id: transition.goal_id.clone().unwrap_or_default(),
                label: transition.goal_label.clone().unwrap_or_default(),
                actor: self.actor.as_str().to_string(),
                action: transition.action.to_string(),
                from: transition.from.map(|s| s.as_str().to_string()),
                to: Some(to),
                detail: format!("{} {}", transition.id, transition.label),
                overridden: self.overridden,
                actor_rule: self.rule_for(self.actor),
                ..Event::default()
            });
        }
        self.obligations_changed = true;
        Ok(())
    }

    /// Writes one file per obligation that changed, removes those the book
    /// dropped, and retires the old single file.
    fn write_obligation_files(&mut self, book: &Book) -> Result<()> {
        let dir = self.store.obligations_dir();
        let (files, _) = self.store.obligation_files()?;
        let mut on_disk: std::collections::BTreeMap<PathBuf, String> = files.into_iter().collect();
        // A file steward could not read is the person's to fix: never
        // rewritten or removed.
        let unreadable = |path: &Path| book.unreadable.iter().any(|p| Path::new(&p.path) == path);
        on_disk.retain(|path, _| !unreadable(path));
        for obligation in &book.obligations {
            if !is_safe_name(&obligation.id) {
                return Err(Error::BadRequest(format!(
                    "obligation id `{}` cannot name a file: fix state/obligations",
                    obligation.id
                )));
            }
            let path = dir.join(format!("{}.json", obligation.id));
            if unreadable(&path) {
                continue;
            }
            let text =
                serde_json::to_string_pretty(obligation).expect("obligations serialize") + "\n";
            if on_disk.remove(&path).as_deref() != Some(text.as_str()) {
                atomic::replace(&path, text.as_bytes())?;
                self.sync_later(&path);
                self.written.push(path);
            }
        }
        for (gone, _) in on_disk {
            std::fs::remove_file(&gone)
                .map_err(|err| Error::io(&gone, "cannot remove obligation", err))?;
            self.sync_later(&gone);
            self.written.push(gone);
        }
        let legacy = self.store.legacy_obligations_path();
        if legacy.exists() && !unreadable(&legacy) {
            std::fs::remove_file(&legacy)
                .map_err(|err| Error::io(&legacy, "cannot remove", err))?;
            self.written.push(legacy);
        }
        Ok(())
    }

    /// Seals `loaded` as it is, on the word of a source steward trusts (a
    /// merge `sync` made from the remote), recording where it came from.
    /// Whether it was not sealed as it is already.
    pub fn adopt(&mut self, loaded: &LoadedGoal, detail: &str) -> Result<bool> {
        if loaded.goal.id.is_empty() || self.store.trust_of(loaded) == Trust::Steward {
            return Ok(false);
        }
        let place = self.store.place_of(&loaded.file.path);
        self.adopt_from(loaded, place, detail);
        Ok(true)
    }

    /// Seals `loaded` where it is, its seal taken from `from` (a goal a
    /// pull moved to the closed goals), recording where it came from.
    pub fn adopt_from(&mut self, loaded: &LoadedGoal, from: Place, detail: &str) {
        let place = self.store.place_of(&loaded.file.path);
        let sha = sha256(loaded.file.text().as_bytes());
        self.seal_change(
            Some((from, loaded.goal.label.clone())),
            &loaded.goal,
            Some((place, sha.clone())),
        );
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: loaded.goal.id.clone(),
            label: loaded.goal.label.clone(),
            actor: Actor::Steward.as_str().to_string(),
            action: "pulled".to_string(),
            detail: detail.to_string(),
            sha256: Some(sha),
            ..Event::default()
        });
    }

    /// Records, signed, that a merge kept `loaded` (sealed here as it is)
    /// over the version hashed `dropped` that another machine's steward
    /// wrote: a machine whose seal is of the dropped version finds the
    /// kept one led to from its own by signed changes.
    pub fn link_dropped(&mut self, loaded: &LoadedGoal, dropped: &str, detail: &str) {
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: loaded.goal.id.clone(),
            label: loaded.goal.label.clone(),
            actor: Actor::Steward.as_str().to_string(),
            action: "merged".to_string(),
            detail: detail.to_string(),
            sha256_before: Some(dropped.to_string()),
            sha256: Some(sha256(loaded.file.text().as_bytes())),
            ..Event::default()
        });
        self.finish_on_drop = true;
    }

    /// Records that the file of an open goal steward sealed is gone and
    /// steward did not remove it: an event by `unknown`, and its seal kept
    /// aside (`vanished`) so its label is not reused until a person has
    /// looked (`steward accept`).
    pub fn record_vanished(&mut self, seal: &Seal) -> Result<()> {
        self.store.write_seal(Place::Vanished, seal)?;
        self.store.remove_seal(Place::Open, &seal.label, &seal.id)?;
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: seal.id.clone(),
            label: seal.label.clone(),
            actor: Actor::Unknown.as_str().to_string(),
            action: "deleted_outside".to_string(),
            detail: "the goal's file was removed outside steward".to_string(),
            sha256_before: Some(seal.sha256.clone()),
            ..Event::default()
        });
        self.mirror_removals.push(seal.label.clone());
        self.finish_on_drop = true;
        Ok(())
    }

    /// Ends the record of a goal whose file vanished outside steward, a
    /// person having looked: its label is free again.
    pub fn forget_vanished(&mut self, seal: &Seal, detail: &str) -> Result<()> {
        self.store
            .remove_seal(Place::Vanished, &seal.label, &seal.id)?;
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: seal.id.clone(),
            label: seal.label.clone(),
            actor: self.actor.as_str().to_string(),
            action: "deletion_accepted".to_string(),
            detail: detail.to_string(),
            overridden: self.overridden,
            actor_rule: self.rule_for(self.actor),
            ..Event::default()
        });
        Ok(())
    }

    /// Records an extra event about a goal saved in this transaction (a
    /// dispatch that rides on an assessment), with the run it is about.
    pub fn record_event(
        &mut self,
        goal: &Goal,
        action: &str,
        detail: &str,
        dispatch_id: Option<&str>,
    ) {
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: goal.id.clone(),
            label: goal.label.clone(),
            actor: self.actor.as_str().to_string(),
            action: action.to_string(),
            detail: detail.to_string(),
            dispatch_id: dispatch_id.map(str::to_string),
            overridden: self.overridden,
            actor_rule: self.rule_for(self.actor),
            ..Event::default()
        });
    }

    /// Records an event about the store as a whole (the spend cap).
    pub fn record_store_event(&mut self, action: &str, detail: &str) {
        self.events.push(Event {
            ts: format_time(self.now),
            actor: Actor::Steward.as_str().to_string(),
            action: action.to_string(),
            detail: detail.to_string(),
            ..Event::default()
        });
    }

    /// Records an act of the caller on the store as a whole (a person's
    /// `config accept`): who did it, and under which override.
    pub fn record_store_act(&mut self, action: &str, detail: &str) {
        self.record_act(None, action, detail);
    }

    /// Records an act of the caller about a goal that changes nothing in
    /// its file (a person accepting its command checks).
    pub fn record_goal_act(&mut self, goal: &crate::model::Goal, action: &str, detail: &str) {
        self.record_act(Some(goal), action, detail);
    }

    fn record_act(&mut self, goal: Option<&crate::model::Goal>, action: &str, detail: &str) {
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: goal.map(|g| g.id.clone()).unwrap_or_default(),
            label: goal.map(|g| g.label.clone()).unwrap_or_default(),
            actor: self.actor.as_str().to_string(),
            action: action.to_string(),
            detail: detail.to_string(),
            overridden: self.overridden,
            actor_rule: self.rule_for(self.actor),
            ..Event::default()
        });
    }

    /// Records an event about a goal that changes nothing in it (the
    /// goal whose run crossed the spend cap).
    pub fn record_goal_event(&mut self, goal_id: &str, label: &str, action: &str, detail: &str) {
        self.events.push(Event {
            ts: format_time(self.now),
            goal_id: goal_id.to_string(),
            label: label.to_string(),
            actor: Actor::Steward.as_str().to_string(),
            action: action.to_string(),
            detail: detail.to_string(),
            ..Event::default()
        });
    }

    /// Writes an agent run's record.
    pub fn save_run(&mut self, run: &crate::model::Run) -> Result<()> {
        let path = self.store.write_run(run)?;
        self.written.push(path);
        Ok(())
    }

    /// The events this transaction will append when it finishes.
    /// The files this transaction wrote, moved or removed so far.
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }

    pub fn pending_events(&self) -> &[Event] {
        &self.events
    }

    /// Parses a file about to be written: steward never writes a goal it
    /// could not read back.
    fn read_back(&self, file: &GoalFile) -> Result<Goal> {
        file.goal(&self.store.defaults).map_err(|problem| {
            Error::Internal(format!(
                "the edited goal would not parse ({problem}); nothing was written"
            ))
        })
    }

    /// Moves a terminal goal found among the open ones to where closed goals
    /// live, so its label can be reused. The bytes are not changed.
    pub fn archive(&mut self, loaded: &LoadedGoal) -> Result<()> {
        // Only what steward closed moves unchanged; a goal closed outside
        // steward is recorded as such, and that write moves it.
        let verified = self.verify(loaded.clone())?;
        if verified.outside.is_some() {
            return Ok(());
        }
        let home = self.store.closed_path(&loaded.goal);
        if home.exists() {
            return Err(Error::PathTaken {
                what: format!(
                    "cannot move {} there: the file already exists",
                    loaded.file.path.display()
                ),
                path: home,
            });
        }
        atomic::move_file(&loaded.file.path, &home)?;
        self.seal_change(
            Some((Place::Open, loaded.goal.label.clone())),
            &loaded.goal,
            Some((Place::Closed, sha256(loaded.file.text().as_bytes()))),
        );
        self.sync_later(&loaded.file.path);
        self.sync_later(&home);
        self.written.push(loaded.file.path.clone());
        self.written.push(home);
        Ok(())
    }

    /// Removes the temporary files killed writes left behind: under the lock
    /// no other write is under way.
    pub fn remove_leftovers(&mut self) {
        self.leftovers_checked = Some(self.store.remove_leftovers());
    }

    /// Writes, and leaves the commit to the next transaction that writes
    /// the same files: for bookkeeping no one reads history for.
    pub fn leave_uncommitted(&mut self) {
        self.uncommitted = true;
    }

    /// Writes a file that is not a goal (configuration, attributes)
    /// atomically, as part of this transaction.
    pub fn write_file(&mut self, path: &Path, contents: &str) -> Result<()> {
        atomic::write(path, contents.as_bytes())?;
        self.written.push(path.to_path_buf());
        Ok(())
    }

    /// Appends the episode of each goal that ended here to `episodes.path`
    /// (a file people and agents read: outside the commit).
    fn tell_episodes(&mut self) -> Result<(), String> {
        let Some(template) = self.store.episodes.clone() else {
            return Ok(());
        };
        if self.ended.is_empty() {
            return Ok(());
        }
        let (runs, _) = self.store.runs().map_err(|err| err.to_string())?;
        for goal in std::mem::take(&mut self.ended) {
            let count = runs.iter().filter(|r| r.goal_id == goal.id).count();
            let path = super::episodes::path(&template, &self.store.root, self.now);
            super::episodes::append(
                &self.store.root,
                &path,
                &super::episodes::render(&goal, self.now, count),
            )
            .map_err(|err| format!("episode not written: {err}"))?;
        }
        Ok(())
    }

    /// Removes a file of steward's own, as part of this transaction.
    pub fn remove_file(&mut self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|err| Error::io(path, "cannot remove", err))?;
        self.written.push(path.to_path_buf());
        Ok(())
    }

    /// Sets the mirror block from every open goal, for commands that read
    /// them all anyway (`tick`, `mirror`).
    pub fn render_mirror(&mut self, goals: &[&Goal], book: &Book) {
        self.mirror_block = Some(mirror::render_block(
            goals,
            book,
            self.store.mirror_max_goals,
        ));
    }

    /// Ends the transaction: appends the events, refreshes the mirror, then
    /// releases the lock.
    pub fn finish(mut self) -> Result<Finished> {
        self.complete()
    }

    fn complete(&mut self) -> Result<Finished> {
        self.finished = true;
        if self.store.fault.as_deref() == Some("abort-before-log") && !self.events.is_empty() {
            std::process::abort();
        }
        let dirs = std::mem::take(&mut self.unsynced_dirs);
        let block = self.mirror_block.take();
        // The mirror's update and its staged bytes, or why it has none.
        let (logged, mirror) = match self.updated_mirror(block) {
            Ok(Some(update)) => {
                let (logged, staged) = self.log_events_staging(&dirs, &update);
                (logged, Ok(Some((update, staged))))
            }
            unchanged => (self.log_events(&dirs), unchanged.map(|_| None)),
        };
        let logged = logged?;
        self.written.extend(logged);
        if self.journal.is_open()
            && let Ok(key) = self.store.keys.key()
        {
            let state_dir = &self.store.state_dir;
            self.journal.logged(state_dir, key)?;
        }
        // After the events, which carry the same hashes under the same key:
        // a seal a crash loses is repaired from them.
        self.write_seals()?;
        if self.journal.is_open()
            && let Ok(key) = self.store.keys.key()
        {
            self.journal.done(&self.store.state_dir, key)?;
        }
        let mut warnings: Vec<String> = (self.left_changed.iter().flatten())
            .map(|path| {
                format!(
                    "{}: changed on disk while steward {} ran (edited by hand?); left as it is, for the next pass",
                    path.display(),
                    self.command
                )
            })
            .collect();
        if let Err(warning) = self.tell_episodes() {
            warnings.push(warning);
        }
        for mut record in std::mem::take(&mut self.undo).into_values() {
            let path = self
                .store
                .undo_dir()
                .join(format!("{}.json", record.goal_id));
            if let Ok(key) = self.store.keys.key() {
                record.mac = Some(key.mac(Domain::Undo, &[&record.signed_bytes()]));
            }
            let text = record.json_line();
            // Written over the last record in place: a torn one fails its
            // MAC, and `undo` then says it cannot, as with none.
            if let Err(err) = atomic::write_over_unsynced(&path, &text) {
                warnings.push(format!("`steward undo` cannot take this back: {err}"));
            }
        }
        match mirror {
            Ok(Some((update, staged))) => warnings.extend(self.place_mirror(update, staged)),
            Ok(None) => {}
            Err(warning) => warnings.push(warning),
        }
        if let Some(checked) = self.leftovers_checked.take() {
            checked.record();
        }
        let mut commit_error = None;
        if let Some(git) = &self.store.git
            && !self.written.is_empty()
            && !self.uncommitted
        {
            let request = crate::os::git::CommitRequest {
                root: &self.store.absolute_root,
                paths: &self.written,
                message: commit_message(self.command, self.actor, &self.events),
                author: git.author.as_deref(),
                when: self.now,
            };
            match crate::os::git::commit(&request) {
                Ok(committed) => warnings.extend(committed.warnings),
                Err(err) => {
                    commit_error = Some(format!("the change is written but not committed: {err}"))
                }
            }
        }
        Ok(Finished {
            written: std::mem::take(&mut self.written),
            warnings,
            commit_error,
        })
    }

    /// Syncs the directories written to, then appends the events: an
    /// event never tells of a write a crash could take back.
    fn log_events(&self, dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
        for dir in dirs {
            atomic::sync_dir(dir)?;
        }
        self.store.append_events(&self.events)
    }

    /// [`Transaction::log_events`], while the mirror's new bytes go to
    /// disk on another thread: two waits at once, which the disk can serve
    /// together. The mirror is put in place after the events (by the
    /// caller), so it never shows a change a crash could take back.
    fn log_events_staging(
        &self,
        dirs: &[PathBuf],
        update: &MirrorUpdate,
    ) -> (Result<Vec<PathBuf>>, Result<atomic::Staged>) {
        let stage = || {
            atomic::stage_from_spare(&update.path, &self.store.state_dir, update.text.as_bytes())
        };
        std::thread::scope(|scope| {
            let staging = std::thread::Builder::new().spawn_scoped(scope, stage);
            let logged = self.log_events(dirs);
            let staged = match staging {
                Ok(handle) => handle.join().expect("staging the mirror panicked"),
                Err(_) => stage(),
            };
            (logged, staged)
        })
    }

    /// Puts the mirror's staged bytes in place, unless a person changed it
    /// since it was read; the warning to give when it is not updated.
    fn place_mirror(
        &mut self,
        update: MirrorUpdate,
        staged: Result<atomic::Staged>,
    ) -> Option<String> {
        match staged.and_then(|staged| staged.replace_unless_changed(update.read)) {
            Ok(Some(_)) => {
                self.written.push(update.path);
                None
            }
            Ok(None) => Some(format!(
                "{}: changed on disk while steward {} ran (edited by hand?); mirror not updated, left for the next pass",
                update.path.display(),
                self.command
            )),
            Err(err) => Some(err.to_string()),
        }
    }

    /// The mirror with its block brought up to date, when that changes it:
    /// the full render when there is one, else the saved goals' entries
    /// one by one. A mirror whose markers are broken is left alone and
    /// reported.
    fn updated_mirror(&self, block: Option<String>) -> Result<Option<MirrorUpdate>, String> {
        let Some(path) = self.store.mirror_path.clone() else {
            return Ok(None);
        };
        if block.is_none()
            && self.mirror_changes.is_empty()
            && self.mirror_removals.is_empty()
            && !self.obligations_changed
        {
            return Ok(None);
        }
        // Before the bytes: a change made while they are read shows as one
        // made after, and the mirror is then left alone.
        let read = atomic::stamp(&path);
        // Never through a link: its target's bytes would become the
        // mirror, and go wherever the mirror is committed.
        let existing =
            match crate::os::safe_file::read_text(&path, crate::os::safe_file::STATE_BYTES) {
                Ok(text) => text,
                Err(err) => return Err(format!("{}: mirror not updated: {err}", path.display())),
            };
        let broken = |(line, message): (usize, String)| {
            format!("{}:{line}:1: mirror not updated: {message}", path.display())
        };
        let current = match &existing {
            Some(text) => mirror::current_content(text).map_err(broken)?,
            None => None,
        };
        let book = || self.store.obligations().map_err(|err| err.to_string());
        let content = match (block, current) {
            (Some(full), _) => full,
            (None, Some(content)) if !self.obligations_changed => {
                let book = book()?;
                let entries: Vec<Option<String>> = (self.mirror_changes.iter())
                    .map(|c| {
                        let goal = &c.goal;
                        (!goal.status.is_terminal()).then(|| mirror::render_entry(goal, &book))
                    })
                    .collect();
                let changes: Vec<mirror::EntryChange> = (self.mirror_changes.iter())
                    .zip(&entries)
                    .map(|(c, entry)| mirror::EntryChange {
                        old_label: &c.old_label,
                        label: &c.goal.label,
                        priority: &c.goal.priority,
                        entry: entry.as_deref(),
                    })
                    .collect();
                let removed: Vec<&str> = self.mirror_removals.iter().map(String::as_str).collect();
                let patched =
                    mirror::patch(&content, &changes, &removed, self.store.mirror_max_goals);
                match patched {
                    Some(mirror::Patched::Block(block)) => block,
                    Some(mirror::Patched::Short(short)) => {
                        let next = self.open_goals_after(short.last_label());
                        match short.fill(next, &book) {
                            Some(block) => block,
                            None => self.render_mirror_block(&book)?,
                        }
                    }
                    None => self.render_mirror_block(&book)?,
                }
            }
            // No block yet, or tasks changed: render it from every open goal.
            _ => self.render_mirror_block(&book()?)?,
        };
        let updated = mirror::splice(existing.as_deref(), &content).map_err(broken)?;
        // The mirror is derived from the goals: its directory is not synced
        // (a crash may bring back the previous mirror, never a torn one;
        // the next tick renders it again).
        Ok(
            (existing.as_deref() != Some(updated.as_str())).then_some(MirrorUpdate {
                path,
                text: updated,
                read,
            }),
        )
    }

    /// The open goals whose labels follow `label`, in label order, read as
    /// they are asked for: at most [`MIRROR_FILL_READS`] files, after which
    /// reading every open goal costs little more.
    fn open_goals_after<'t>(&'t self, label: &str) -> impl Iterator<Item = Goal> + use<'s, 't> {
        let labels = self.store.open_labels().unwrap_or_default();
        let first = labels.partition_point(|l| l.as_str() <= label);
        labels
            .into_iter()
            .skip(first)
            .take(MIRROR_FILL_READS)
            .filter_map(|label| self.store.load(&self.store.open_path(&label)).ok())
            .map(|loaded| *loaded.goal)
    }

    /// The mirror block rendered from every open goal.
    fn render_mirror_block(&self, book: &Book) -> Result<String, String> {
        let scan = self
            .store
            .scan(Scope::Open)
            .map_err(|err| err.to_string())?;
        let goals: Vec<&Goal> = scan.goals.iter().map(|g| &*g.goal).collect();
        Ok(mirror::render_block(
            &goals,
            book,
            self.store.mirror_max_goals,
        ))
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }
}

/// The mirror's new text, and when it was read.
struct MirrorUpdate {
    path: PathBuf,
    text: String,
    /// The mirror's size and modification time when it was read (`None`:
    /// there was none): one that changed since is left alone.
    read: Option<(u64, SystemTime)>,
}

/// A saved goal whose mirror entry may have changed.
struct MirrorChange {
    /// Its label before this transaction.
    old_label: String,
    goal: Goal,
}

/// A transaction that ends without `finish` (a command that failed half
/// way) still makes what it wrote durable, as far as it can: the files are
/// whole either way, and no event tells of them.
impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.finish_on_drop && !self.finished {
            let _ = self.complete();
            return;
        }
        for dir in std::mem::take(&mut self.unsynced_dirs) {
            let _ = atomic::sync_dir(&dir);
        }
    }
}

/// Longest commit subject, as git tools show it.
const SUBJECT_CHARS: usize = 72;

/// How many goal files a write reads to find the goals that take the
/// places of shown ones in the mirror, before it renders the block from
/// every open goal instead.
const MIRROR_FILL_READS: usize = 32;

/// "label: command — detail" for one goal, "command: N goals changed" for
/// several, with one body line per event and trailers naming the goals,
/// the command and the actor.
fn commit_message(command: &str, actor: Actor, events: &[Event]) -> String {
    let mut goals: Vec<(&str, &str)> = Vec::new();
    for event in events.iter().filter(|e| !e.goal_id.is_empty()) {
        if !goals.iter().any(|(id, _)| *id == event.goal_id) {
            goals.push((&event.goal_id, &event.label));
        }
    }
    let subject = match goals.as_slice() {
        [(_, label)] => {
            let detail = events
                .iter()
                .find(|e| !e.detail.is_empty())
                .map_or("", |e| e.detail.as_str());
            if detail.is_empty() {
                format!("{label}: {command}")
            } else {
                format!("{label}: {command} — {detail}")
            }
        }
        [] => format!("steward {command}"),
        many => format!("{command}: {} goals changed", many.len()),
    };
    let mut message = crate::text::head(&crate::text::one_line(&subject), SUBJECT_CHARS);
    message.push_str("\n\n");
    for event in events {
        let who = if event.label.is_empty() {
            String::new()
        } else {
            format!("{}: ", event.label)
        };
        let detail = if event.detail.is_empty() {
            String::new()
        } else {
            format!(" — {}", event.detail)
        };
        message.push_str(&format!("- {who}{}{detail}\n", event.action));
    }
    if !events.is_empty() {
        message.push('\n');
    }
    for (id, _) in &goals {
        message.push_str(&format!("Steward-Goal: {id}\n"));
    }
    message.push_str(&format!(
        "Steward-Action: {command}\nSteward-Actor: {}\n",
        actor.as_str()
    ));
    message
}

/// Refuses bytes over the size a goal file may have.
fn within_size(file: &GoalFile) -> Result<()> {
    let bytes = file.text().len() as u64;
    if bytes > MAX_FILE_BYTES {
        return Err(Error::TooLarge {
            path: file.path.clone(),
            bytes,
        });
    }
    Ok(())
}

/// `original`'s file with `change`'s edits applied.
fn edited(original: &LoadedGoal, change: &GoalChange) -> Result<GoalFile> {
    let mut file = original.file.clone();
    file.apply(&change.edits)?;
    Ok(file)
}

/// An id fit to name a file: letters, digits, `-` and `_`.
fn is_safe_name(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing;

    const SHIP: &str = "state/goals/ship.md";

    /// `path`'s text with a line added, as a person would in an editor.
    fn edit_by_hand(store: &testing::TempStore, path: &str) -> String {
        let edited = store.read(path) + "A line added by hand.\n";
        store.write(path, &edited);
        edited
    }

    #[test]
    fn a_goal_edited_after_it_was_read_is_not_written_over() {
        let store = testing::TempStore::new();
        store.goal("ship", "", &["a"]);
        let opened = store.store();
        // The first write seals the goals written by hand above.
        store.transaction(&opened).unwrap().finish().unwrap();
        let mut tx = store.transaction(&opened).unwrap();
        let loaded = tx.resolve("ship").unwrap();
        let edited = edit_by_hand(&store, SHIP);
        let err = tx
            .save(&loaded, GoalChange::new("noted", "x").always())
            .unwrap_err();
        assert!(matches!(err, Error::ChangedMeanwhile { .. }), "{err}");
        assert_eq!(store.read(SHIP), edited);
        assert!(tx.pending_events().is_empty());
        drop(tx);

        let mut tx = store.transaction(&opened).unwrap();
        let loaded = tx.resolve("ship").unwrap();
        edit_by_hand(&store, SHIP);
        assert!(matches!(
            tx.delete(&loaded, "x".to_string()),
            Err(Error::ChangedMeanwhile { .. })
        ));
        assert!(store.root().join(SHIP).exists());
    }

    #[test]
    fn a_pass_that_leaves_changed_goals_writes_the_others_and_names_those() {
        let store = testing::TempStore::new();
        store.goal("ship", "", &["a"]);
        store.goal("docs", "", &["a"]);
        let opened = store.store();
        // The first write seals the goals written by hand above.
        store.transaction(&opened).unwrap().finish().unwrap();
        let mut tx = store.transaction(&opened).unwrap();
        tx.leave_changed_goals();
        let ship = tx.resolve("ship").unwrap();
        let docs = tx.resolve("docs").unwrap();
        let edited = edit_by_hand(&store, SHIP);
        let note = || GoalChange::new("noted", "x").always();
        assert!(tx.save(&ship, note()).unwrap().is_none());
        let docs = tx.save(&docs, note()).unwrap().expect("docs is written");
        // What this transaction wrote is not a change made meanwhile.
        let docs = tx
            .save(&docs, note())
            .unwrap()
            .expect("docs is written again");
        assert_eq!(docs.goal.history.len(), 2, "{:?}", docs.goal.history);
        let events: Vec<&str> = (tx.pending_events().iter())
            .map(|e| e.label.as_str())
            .collect();
        assert_eq!(events, ["docs", "docs"]);
        let finished = tx.finish().unwrap();
        assert_eq!(store.read(SHIP), edited);
        let warning = finished.warnings.join("\n");
        assert!(
            warning.contains("ship.md: changed on disk while steward") && !warning.contains("docs"),
            "{warning}"
        );
    }

    #[test]
    fn saving_many_goals_at_once_writes_each_and_leaves_a_changed_one() {
        let store = testing::TempStore::new();
        let labels: Vec<String> = (0..20).map(|i| format!("g{i:02}")).collect();
        for label in &labels {
            store.goal(label, "", &["a"]);
        }
        let opened = store.store();
        // The first write seals the goals written by hand above.
        store.transaction(&opened).unwrap().finish().unwrap();
        let mut tx = store.transaction(&opened).unwrap();
        tx.leave_changed_goals();
        let loaded: Vec<LoadedGoal> = labels.iter().map(|l| tx.resolve(l).unwrap()).collect();
        let edited = edit_by_hand(&store, "state/goals/g07.md");
        let changes = (loaded.iter())
            .map(|goal| (goal, GoalChange::new("noted", "x").always()))
            .collect();
        let saved = tx.save_all(changes).unwrap();
        let written: Vec<usize> = (0..20).filter(|&i| saved[i]).collect();
        assert_eq!(written, (0..20).filter(|&i| i != 7).collect::<Vec<_>>());
        assert_eq!(tx.pending_events().len(), 19);
        let finished = tx.finish().unwrap();
        assert_eq!(store.read("state/goals/g07.md"), edited);
        for i in written {
            let goal = testing::parse_goal(&store.read(&format!("state/goals/g{i:02}.md")));
            assert_eq!(goal.history.len(), 1, "g{i:02}: {:?}", goal.history);
        }
        let warning = finished.warnings.join("\n");
        assert!(warning.contains("g07.md: changed on disk"), "{warning}");
        let goal_files: Vec<String> = labels.iter().map(|l| format!("{l}.md")).collect();
        assert_eq!(
            store.names_in("state/goals"),
            goal_files,
            "no temporary file is left"
        );
    }

    #[test]
    fn a_batch_that_fails_part_way_leaves_no_temporary_file() {
        let store = testing::TempStore::new();
        for i in 0..20 {
            store.goal(&format!("g{i:02}"), "", &["a"]);
        }
        let before = store.read("state/goals/g00.md");
        let opened = store.store();
        let mut tx = store.transaction(&opened).unwrap();
        let loaded: Vec<LoadedGoal> = (0..20)
            .map(|i| tx.resolve(&format!("g{i:02}")).unwrap())
            .collect();
        let too_long = "x".repeat(MAX_FILE_BYTES as usize);
        let changes = (loaded.iter().enumerate())
            .map(|(i, goal)| {
                let detail = if i == 12 {
                    too_long.clone()
                } else {
                    "x".into()
                };
                (goal, GoalChange::new("noted", detail).always())
            })
            .collect();
        let err = tx.save_all(changes).unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        drop(tx);
        assert_eq!(store.read("state/goals/g00.md"), before, "nothing placed");
        let goal_files: Vec<String> = (0..20).map(|i| format!("g{i:02}.md")).collect();
        assert_eq!(
            store.names_in("state/goals"),
            goal_files,
            "no temporary file is left"
        );
    }

    fn event(goal_id: &str, label: &str, action: &str, detail: &str) -> Event {
        Event {
            ts: "2026-11-21T04:00:00Z".into(),
            goal_id: goal_id.into(),
            label: label.into(),
            actor: "agent".into(),
            action: action.into(),
            detail: detail.into(),
            ..Event::default()
        }
    }

    #[test]
    fn one_goal_names_the_goal_and_command() {
        let message = commit_message(
            "assess",
            Actor::Agent,
            &[event(
                "id-1",
                "deploy-api",
                "assessed",
                "tests pass, PR open",
            )],
        );
        assert_eq!(
            message,
            "deploy-api: assess — tests pass, PR open\n\n- deploy-api: assessed — tests pass, PR open\n\nSteward-Goal: id-1\nSteward-Action: assess\nSteward-Actor: agent\n"
        );
    }

    #[test]
    fn several_goals_are_listed_and_subjects_are_short() {
        let events = [
            event("a", "alpha", "stalled", "idle"),
            event("b", "beta", "blocked", "budget"),
        ];
        let message = commit_message("tick", Actor::Watchdog, &events);
        assert!(message.starts_with(
            "tick: 2 goals changed\n\n- alpha: stalled — idle\n- beta: blocked — budget\n"
        ));
        assert!(message.contains("Steward-Goal: a\nSteward-Goal: b\n"));
        let long = commit_message(
            "update",
            Actor::User,
            &[event("a", "alpha", "note", &"x".repeat(200))],
        );
        assert_eq!(long.lines().next().unwrap().chars().count(), 72);
    }
}
