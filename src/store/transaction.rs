//! The one write path: lock, re-read, apply, write atomically, append history
//! and events. Every command that changes the store goes through here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::events::{self, Event};
use super::{GoalFile, LoadedGoal, Scan, Scope, Store, StoreLock, atomic, format_time, time_value};
use crate::error::{Error, Result};
use crate::model::{Actor, Goal};

/// What a change to one goal records in its history and the event log.
#[derive(Debug, Clone)]
pub struct Change {
    pub action: String,
    pub detail: String,
    pub actor: Option<Actor>,
    /// Record it even when no other byte changes (a note).
    pub always: bool,
}

impl Change {
    pub fn new(action: &str, detail: impl Into<String>) -> Change {
        Change {
            action: action.to_string(),
            detail: detail.into(),
            actor: None,
            always: false,
        }
    }

    /// Records the change even when it changes nothing else, as a note does.
    pub fn always(mut self) -> Change {
        self.always = true;
        self
    }

    /// Records the change as made by `actor` rather than the command's actor.
    pub fn by(mut self, actor: Actor) -> Change {
        self.actor = Some(actor);
        self
    }
}

/// Holds the store lock from `begin` to `finish`.
pub struct Transaction<'s> {
    store: &'s Store,
    _lock: StoreLock,
    now: DateTime<Utc>,
    actor: Actor,
    events: Vec<Event>,
    written: Vec<PathBuf>,
}

impl<'s> Transaction<'s> {
    pub fn begin(
        store: &'s Store,
        now: DateTime<Utc>,
        actor: Actor,
        lock_timeout: Duration,
    ) -> Result<Self> {
        let lock = StoreLock::acquire(&store.lock_path(), lock_timeout)?;
        Ok(Transaction {
            store,
            _lock: lock,
            now,
            actor,
            events: Vec::new(),
            written: Vec::new(),
        })
    }

    pub fn store(&self) -> &Store {
        self.store
    }

    /// Re-reads one goal under the lock.
    pub fn resolve(&self, reference: &str) -> Result<LoadedGoal> {
        self.store.resolve(reference)
    }

    /// Re-reads goals under the lock.
    pub fn scan(&self, scope: Scope) -> Result<Scan> {
        self.store.scan(scope)
    }

    /// Writes `file` when its bytes differ from `original` (or when
    /// `original` is `None`: a new goal), stamping `updated_at`, appending a
    /// history line and recording an event. Moves the file where its status
    /// says it belongs. Returns the goal as written, or `None` when nothing
    /// changed.
    pub fn save(
        &mut self,
        original: Option<&LoadedGoal>,
        mut file: GoalFile,
        change: Change,
    ) -> Result<Option<Goal>> {
        if let Some(original) = original
            && !change.always
            && !file.differs_from(&original.file)
        {
            return Ok(None);
        }
        let actor = change.actor.unwrap_or(self.actor);
        let before = self.read_back(&file)?;
        if before.id.is_empty() {
            file.set(
                &["id"],
                super::frontmatter::YamlValue::Str(uuid::Uuid::new_v4().to_string()),
            )?;
        }
        file.set(&["updated_at"], time_value(self.now))?;
        file.append_history(self.now, actor.as_str(), &change.action, &change.detail);
        let goal = self.read_back(&file)?;

        let home = self.store.home_of(&goal);
        if original.is_none() && file.path.exists() {
            return Err(Error::refused(format!(
                "{}: a file is already there; steward does not overwrite it",
                file.path.display()
            )));
        }
        if home != file.path && home.exists() {
            return Err(Error::refused(format!(
                "{}: cannot move goal `{}` there: the file already exists",
                home.display(),
                goal.label
            )));
        }
        atomic::write(&file.path, file.text().as_bytes())?;
        self.written.push(file.path.clone());
        if home != file.path {
            atomic::rename(&file.path, &home)?;
            self.written.push(home);
        }
        self.events.push(Event {
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
        });
        Ok(Some(goal))
    }

    /// Parses a file about to be written: steward never writes a goal it
    /// could not read back.
    fn read_back(&self, file: &GoalFile) -> Result<Goal> {
        file.goal(&self.store.defaults).map_err(|problem| {
            Error::failure(format!(
                "internal error: the edited goal would not parse ({problem}); nothing was written"
            ))
        })
    }

    /// Moves a terminal goal found among the open ones to where closed goals
    /// live, so its label can be reused. The bytes are not changed.
    pub fn archive(&mut self, loaded: &LoadedGoal) -> Result<()> {
        let home = self.store.closed_path(&loaded.goal);
        if home.exists() {
            return Err(Error::refused(format!(
                "{}: cannot move {} there: the file already exists",
                home.display(),
                loaded.file.path.display()
            )));
        }
        atomic::rename(&loaded.file.path, &home)?;
        self.written.push(loaded.file.path.clone());
        self.written.push(home);
        Ok(())
    }

    /// Writes a file that is not a goal (configuration, attributes)
    /// atomically, as part of this transaction.
    pub fn write_file(&mut self, path: &Path, contents: &str) -> Result<()> {
        atomic::write(path, contents.as_bytes())?;
        self.written.push(path.to_path_buf());
        Ok(())
    }

    /// Ends the transaction: appends the events, then releases the lock.
    /// Returns the paths written.
    pub fn finish(self) -> Result<Vec<PathBuf>> {
        events::append(&self.store.events_path(), &self.events)?;
        let mut written = self.written;
        if !self.events.is_empty() {
            written.push(self.store.events_path());
        }
        Ok(written)
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }
}
