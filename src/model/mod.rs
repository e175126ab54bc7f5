//! Goals as data, with the grammars and rules of their parts: a goal and
//! a change to it, runs, checks, receipts, plans (`plan/`), the obligations'
//! task book (`book`), labels and durations. No I/O here: a run names its
//! processes with `os::process` identities, never looks at them.

pub mod book;
mod change;
mod check;
mod digest;
pub mod duration;
mod goal;
mod handoff;
pub mod label;
mod obligation;
pub mod plan;
mod receipt;
mod run;
mod status;
mod undo;

pub use change::{
    BoundField, BudgetField, Edit, GoalChange, ProgressField, RecordField, progress_edits,
};
pub use check::{Check, CheckKind};
pub(crate) use digest::Fnv;
pub use digest::{Digest, changed_fields, fingerprint, progress_fingerprint};
pub use goal::{
    Bounds, Budget, Criterion, Escalation, Goal, HistoryEntry, LastCheck, PersonWait, Progress,
    Waiting,
};
pub use handoff::{Decision, Handoff, HandoffEvidence, Planning, Record};
pub use obligation::{Obligation, ObligationStatus};
pub use receipt::{
    Basis, CheckedCheck, JudgedCriterion, Receipt, Tick, forget_ticks, record_ticks,
};
pub use run::{Run, RunKind, RunOutcome, RunPersonWait, RunState, RunWorktree, WorktreeState};
pub use status::{Priority, Status};
pub use undo::UndoRecord;

/// How big a number steward takes, so that counting up, adding costs and
/// writing them back never overflows.
pub mod limits {
    /// The largest budget, bound or count given on a command line.
    pub const MAX_COUNT: u64 = 1_000_000_000;
    /// The largest amount of US dollars given on a command line.
    pub const MAX_USD: f64 = 1e9;
    /// The largest count or amount read from a file: room to count up from
    /// any value a command accepts.
    pub const MAX_STORED: u64 = 1_000_000_000_000_000;
}

/// RFC 3339 in UTC with whole seconds, as goal files store times.
pub fn format_time(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A time as [`format_time`] writes it (any RFC 3339 time), in UTC.
pub fn parse_time(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|at| at.with_timezone(&chrono::Utc))
}

/// Who did something; recorded in history lines and events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    User,
    Agent,
    Steward,
    Watchdog,
    /// Someone who did not go through steward (a hand edit found later).
    Unknown,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::User => "user",
            Actor::Agent => "agent",
            Actor::Steward => "steward",
            Actor::Watchdog => "watchdog",
            Actor::Unknown => "unknown",
        }
    }

    /// Parses the actors a command line may claim (`watchdog` is steward's own).
    pub fn parse_cli(text: &str) -> Result<Actor, String> {
        match text.to_ascii_lowercase().as_str() {
            "user" => Ok(Actor::User),
            "agent" => Ok(Actor::Agent),
            "steward" => Ok(Actor::Steward),
            _ => Err(format!(
                "unknown actor `{text}`: expected user, agent or steward"
            )),
        }
    }
}
