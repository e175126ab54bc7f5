//! The plain-text goal store. [`Store`] is the facade every verb holds;
//! its methods live with the part of the store they are about:
//!
//! - `paths.rs`: where each kind of file is;
//! - `scan.rs`: reading many goals ([`Scope`], [`Scan`]) and counting them;
//! - `find.rs`: finding one goal by label or id;
//! - `records.rs`: the event log, the obligations, undo records, private
//!   files;
//! - `caches.rs`: the rebuildable caches and the leftovers of killed
//!   writes; `dispatch_window.rs`, the heartbeat's count of the hour's
//!   dispatches; `told.rs`, what this machine last told a person;
//! - `transaction.rs`: the one write path ([`Transaction`]); `goal_file.rs`
//!   and `edit.rs` read and edit a goal file's bytes, `seal.rs` says whether
//!   a goal is what steward wrote.

pub(crate) mod atomic;
pub mod body;
mod dir;
mod dispatch_window;
mod edit;
pub mod episodes;
pub mod events;
mod forecast_memo;
pub mod frontmatter;
mod goal_file;
mod journal;
pub mod key;
mod leftovers;
mod lock;
pub mod log_mark;
pub mod mirror;
mod open_count;
mod plan_memo;
mod runs;
pub mod seal;
mod terminal_cache;
mod told;
mod transaction;

mod caches;
mod find;
mod paths;
mod records;
mod scan;
#[cfg(test)]
pub(crate) mod testing;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

pub use frontmatter::YamlValue;
pub use goal_file::{Field, GoalFile, HISTORY_KEEP};
pub use lock::StoreLock;
pub use seal::{OutsideChange, Trust};
pub use transaction::{Acting, Finished, Transaction, Verified};

pub(crate) use atomic::IN_THE_WAY;
pub(crate) use caches::cache_dir_ready;
pub use scan::{CLOSED_IN_PLACE_KEPT, ClosedInPlace, Scan, Scope};

use crate::config::{Config, GoalDefaults};
use crate::model::{Digest, Goal};

/// Where terminal goals go, inside the goals directory.
const CLOSED_DIR: &str = "closed";

/// How commits are made when `git.commit` is on.
#[derive(Debug, Clone)]
pub struct GitSettings {
    pub author: Option<String>,
}

/// A goal read from disk with the file it came from.
#[derive(Debug, Clone)]
pub struct LoadedGoal {
    pub file: GoalFile,
    /// Boxed: a goal is over a kilobyte, and a scan of 10,000 moves each
    /// loaded goal from its thread into the scan, and again under the lock.
    pub goal: Box<Goal>,
    /// `goal`'s tamper-evidence digest
    /// (steward-design(7), "Judge only what steward wrote") when the scan
    /// worked it out, in the thread that read the goal while it was in that
    /// core's cache (`tick` compares every goal's with the event log's); see
    /// [`LoadedGoal::digest`].
    pub digest: Option<Box<Digest>>,
}

impl LoadedGoal {
    /// `goal`'s tamper-evidence digest.
    pub fn digest(&self) -> Cow<'_, Digest> {
        match &self.digest {
            Some(digest) => Cow::Borrowed(digest),
            None => Cow::Owned(Digest::of(&self.goal)),
        }
    }
}

/// A file's path and its text.
pub type FileText = (PathBuf, String);

#[derive(Debug, Clone)]
pub struct Store {
    pub root: PathBuf,
    pub goals_dir: PathBuf,
    pub closed_dir: PathBuf,
    pub state_dir: PathBuf,
    /// The mirror file, when `mirror.enabled`.
    pub mirror_path: Option<PathBuf>,
    /// Entries the mirror block shows at most (`mirror.max_goals`, 0: all).
    pub mirror_max_goals: usize,
    /// The root as an absolute path, for git.
    pub absolute_root: PathBuf,
    /// Commit every change, with this author (`git.author`) when set.
    pub git: Option<GitSettings>,
    /// `episodes.path`: where an ended goal's episode is appended.
    pub episodes: Option<String>,
    /// This machine's key, for seals and steward's other records.
    pub keys: seal::Keyring,
    defaults: GoalDefaults,
    /// The plans already checked, while a scan reads the open goals.
    plans: std::sync::Arc<std::sync::RwLock<Option<plan_memo::PlanMemo>>>,
    /// A fault to inject (`STEWARD_FAULT`, read only by a build with the
    /// test hooks): `abort-before-log` stops a transaction between its
    /// goal files and its events, as a kill would.
    pub(crate) fault: Option<String>,
    /// Who runs this command (not whom its transactions act for): a
    /// store's first write here accepts its configuration and commands
    /// only when a person runs it.
    pub(crate) caller: crate::model::Actor,
}
impl Store {
    pub fn new(root: &Path, absolute_root: &Path, config: &Config) -> Store {
        let goals_dir = root.join(&config.goals_dir);
        Store {
            root: root.to_path_buf(),
            closed_dir: goals_dir.join(CLOSED_DIR),
            goals_dir,
            state_dir: root.join("state"),
            mirror_path: config
                .mirror
                .enabled
                .then(|| root.join(&config.mirror.path)),
            mirror_max_goals: match usize::try_from(config.mirror.max_goals) {
                Ok(0) | Err(_) => usize::MAX,
                Ok(max) => max,
            },
            absolute_root: absolute_root.to_path_buf(),
            git: config.git.commit.then(|| GitSettings {
                author: config.git.author.clone(),
            }),
            defaults: config.defaults.clone(),
            episodes: config.episodes.clone(),
            keys: seal::Keyring::default(),
            plans: std::sync::Arc::default(),
            fault: None,
            caller: crate::model::Actor::User,
        }
    }

    /// The store with this machine's key.
    pub fn with_keys(self, keys: seal::Keyring) -> Store {
        Store { keys, ..self }
    }

    /// Whether a store is here: its configuration file or its goals
    /// directory.
    pub fn exists(&self) -> bool {
        self.root.join(crate::config::FILE_NAME).is_file() || self.goals_dir.is_dir()
    }
}
