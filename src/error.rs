//! Error kinds and the exit codes they map to (steward-reference(5), "EXIT CODES").
//!
//! Each kind carries what the message needs (the path, the line, the
//! goal, the command to run next); [`Error::exit_code`] is the one place a
//! kind becomes an exit code.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::exit::ExitCode;

/// An input of a request that can be wrong. The engine says which; each
/// front door names it in its own words: the command line by its flag, MCP
/// by its parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    Criterion,
    Description,
    Deadline,
    WaitUntil,
    Agent,
    Met,
    Check,
    Uncheck,
    RemoveCriterion,
    Verify,
    Node,
    Handoff,
    OverseerUpdate,
    Reason,
    /// A person's confirmation of a goal's priority.
    Confirmed,
}

impl Input {
    /// What it is, in words that belong to no front door: what an error
    /// says when no door renders it (a log line, a test).
    pub fn name(self) -> &'static str {
        match self {
            Input::Criterion => "criterion",
            Input::Description => "description",
            Input::Deadline => "deadline",
            Input::WaitUntil => "wait until",
            Input::Agent => "agent",
            Input::Met => "met",
            Input::Check => "check",
            Input::Uncheck => "uncheck",
            Input::RemoveCriterion => "criterion to remove",
            Input::Verify => "verification",
            Input::Node => "node",
            Input::Handoff => "handoff",
            Input::OverseerUpdate => "structured update",
            Input::Reason => "reason",
            Input::Confirmed => "confirmation",
        }
    }
}

/// What [`Error::NeedsConfirmation`] says, the confirmation named by the
/// front door.
fn confirmation_needed(
    what: &str,
    by_person: bool,
    name: impl Fn(Input) -> &'static str,
) -> String {
    let confirmed = name(Input::Confirmed);
    if by_person {
        format!(
            "{what} needs a human's confirmation: you are the human: run the same command with {confirmed}"
        )
    } else {
        format!(
            "{what} needs a human's confirmation: ask the human, then run again with {confirmed}"
        )
    }
}

/// Everything that can go wrong, one variant per kind of failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // ---- exit 1: I/O, unreadable files, not found, git ----
    /// An operating-system call on `path` failed.
    #[error("{}: {doing}: {source}", path.display())]
    Io {
        path: PathBuf,
        doing: String,
        #[source]
        source: std::io::Error,
    },

    /// A file steward cannot read (a goal, the obligations, the event log),
    /// located as `path:line:col`. The file is never rewritten.
    #[error("{0}")]
    Unreadable(FileProblem),

    /// No goal answers to a label, id or id prefix.
    #[error(
        "no goal matches `{reference}` ({}){}",
        nearest.as_deref().map_or_else(|| "give a label, an id, or at least 4 characters of an id".to_string(), |label| format!("did you mean `{label}`?")),
        unreadable_note(*unreadable)
    )]
    GoalNotFound {
        reference: String,
        unreadable: usize,
        /// The open goal's label nearest the reference, when it is near
        /// enough to be a typo of it.
        nearest: Option<String>,
    },

    /// No store where one is needed.
    #[error(
        "no steward store at {}: no steward.yaml, no state/goals (run `steward init` there, or pass -C DIR)",
        searched.display()
    )]
    NotAStore { searched: PathBuf },

    /// No agent run answers to a dispatch id or prefix.
    #[error("no run matches `{reference}` (see `steward runs --all`)")]
    RunNotFound { reference: String },

    /// No obligation answers to an id or a key.
    #[error("{what}; nothing changed")]
    ObligationNotFound { what: String },

    /// A file changed under a command that read it earlier.
    #[error("{}: {what}; {hint}", path.display())]
    ChangedMeanwhile {
        path: PathBuf,
        what: String,
        hint: String,
    },

    /// `edit` kept a draft that did not validate; the goal is unchanged.
    #[error("the goal was not changed; your draft is kept at {} (run `steward edit {label}` to reopen it, or delete it to start over)", path.display())]
    DraftKept { path: PathBuf, label: String },

    /// `edit` found a kept draft of a goal that changed since the draft was
    /// taken.
    #[error("goal `{label}` changed since your draft was taken; your draft is kept at {} and the goal is unchanged. What changed in the goal since:\n{changes}Copy what you need from the draft, delete it, and run `steward edit {label}` again", draft.display())]
    StaleDraft {
        label: String,
        draft: PathBuf,
        changes: String,
    },

    /// A git operation failed.
    #[error("{0}")]
    Git(String),

    /// A program steward starts (the editor, a scheduler's) failed.
    #[error("{0}")]
    Program(String),

    /// The GitHub API did not do what steward asked (`add --from-issue`,
    /// `intake`): what it said, the token scrubbed.
    #[error("the GitHub API: {0}")]
    Github(String),

    /// The mirror's markers are broken; it is left alone.
    #[error("{}:{line}:1: {message}; fix the markers by hand", path.display())]
    BrokenMirror {
        path: PathBuf,
        line: usize,
        message: String,
    },

    /// The mirror could not be written.
    #[error("{0}")]
    MirrorNotUpdated(String),

    /// A path steward will not use: a link out of the store.
    #[error("{}: {why}; fix it by hand", path.display())]
    UnsafePath { path: PathBuf, why: &'static str },

    /// This machine's key cannot be had (see `store::key`).
    #[error("steward's machine key: {0}")]
    Key(String),

    /// A bug: steward refused to write something it could not read back.
    #[error("internal error: {0}")]
    Internal(String),

    // ---- exit 2: usage ----
    /// `steward.yaml` is invalid, located as `path:line:col`.
    #[error("{0}")]
    Config(FileProblem),

    /// A bad value of an option, an environment variable or a setting.
    #[error("{name}: {why}")]
    BadValue { name: String, why: String },

    /// The command line asks for nothing, or for two things that exclude
    /// each other.
    #[error("{0}")]
    BadRequest(String),

    /// A bad value of one of a request's inputs; each front door names the
    /// input in its own words (`doors::cli::message`, MCP's own).
    #[error("{}: {why}", input.name())]
    BadInput { input: Input, why: String },

    /// A criterion number that the goal does not have.
    #[error("{} {n}: criterion {n} does not exist (`{label}` has {})", input.name(), crate::text::count(*count, "criterion", "criteria"))]
    NoSuchCriterion {
        input: Input,
        n: usize,
        label: String,
        count: usize,
    },

    /// An id prefix that more than one goal starts with.
    #[error("`{reference}` matches {} goals: {}; give more of the id", matches.len(), matches.join(", "))]
    AmbiguousGoal {
        reference: String,
        matches: Vec<String>,
    },

    // ---- exit 4: refused by a rule ----
    /// Terminal goals never change.
    #[error("goal `{label}` is {status}: {hint}")]
    Terminal {
        label: String,
        status: String,
        hint: &'static str,
    },

    /// The goal's status does not allow the command.
    #[error("goal `{label}` {why}")]
    WrongStatus { label: String, why: String },

    /// A budget of the goal is used up.
    #[error(
        "`{label}`: {what} budget exhausted ({used}/{max}); a human must run `steward reset-budget {label}`"
    )]
    BudgetExhausted {
        label: String,
        what: &'static str,
        used: u64,
        max: u64,
    },

    /// The store-wide hourly dispatch window is full.
    #[error(
        "{used} dispatches in the hour before {at} and global_limits.max_dispatches_per_hour is {limit}: do not dispatch now; assess without --dispatched or wait"
    )]
    WindowFull { used: u64, limit: u64, at: String },

    /// Only a person may do this; `by_person`: the one asking is one.
    #[error("{}", confirmation_needed(what, *by_person, Input::name))]
    NeedsConfirmation { what: String, by_person: bool },

    /// `undo` cannot take the last change back.
    #[error("cannot undo the last change of `{label}`: {why}; nothing changed")]
    CannotUndo { label: String, why: String },

    /// An agent asked for what only a person may do
    /// (steward-design(7), "An agent is judged, never the judge").
    #[error("only a person may {what}; ask the person to run: {person_runs}")]
    PersonOnly { what: String, person_runs: String },

    /// An agent asked to act on a goal that waits for a person: its file
    /// was changed outside steward, or the judge left it to a person.
    #[error(
        "goal `{label}` waits for {why}: nothing an agent does changes that; ask the person to run: {person_runs}"
    )]
    WaitsForPerson {
        label: String,
        why: String,
        person_runs: String,
    },

    /// A flag tried to raise an agent to a person.
    #[error(
        "this process runs as an agent ({because}): --actor {actor} cannot raise it; ask the person to run the command in their own shell"
    )]
    AgentCannotRaise {
        actor: &'static str,
        because: String,
    },

    /// A write would make a goal larger than steward reads.
    #[error("{}: the change would make the goal {bytes} bytes, more than the 1 MiB steward reads; nothing was written (shorten the description or notes)", path.display())]
    TooLarge { path: PathBuf, bytes: u64 },

    /// A goal always keeps at least one criterion.
    #[error(
        "goal `{label}` must keep at least one acceptance criterion; add another before removing this one"
    )]
    LastCriterion { label: String },

    /// `enabled: false` (from `source`: the file and line, or the
    /// environment): steward starts nothing and counts no dispatch.
    #[error("steward is disabled (enabled: false, {from}): {what}")]
    Disabled { from: String, what: &'static str },

    /// A run cannot start now (a budget, the window, the spend cap).
    #[error("goal `{label}` gets no run now: {why}")]
    DispatchRefused { label: String, why: String },

    /// `requires_bounds: true` and the goal has none.
    #[error(
        "this store requires bounds (requires_bounds: true): give --max-iterations, --deadline or --max-cost-usd"
    )]
    BoundsRequired,

    /// `global_limits.max_active_goals` goals are open.
    #[error(
        "{} open and global_limits.max_active_goals is {limit}: complete or abandon one first, or raise the limit",
        if *open == 1 { "1 goal is".to_string() } else { format!("{open} goals are") }
    )]
    TooManyGoals { open: u64, limit: u64 },

    /// An open goal already has the label.
    #[error("goal `{label}` is already open{}; {hint}", at.as_ref().map(|p| format!(" ({p})")).unwrap_or_default())]
    LabelTaken {
        label: String,
        at: Option<String>,
        hint: &'static str,
    },

    /// A label's file is there but cannot be read.
    #[error(
        "{problem}\nthe label `{label}` is taken by that file, which steward cannot read; fix it or choose another label"
    )]
    LabelUnreadable { label: String, problem: FileProblem },

    /// steward never overwrites a file it did not mean to write.
    #[error("{}: {what}", path.display())]
    PathTaken { path: PathBuf, what: String },

    /// The planner's answer is not a plan.
    #[error(
        "not a valid plan, nothing was written:\n  - {}\n(`steward plan repair-prompt GOAL FILE` asks the planner to correct it)",
        problems.join("\n  - ")
    )]
    InvalidPlan { problems: Vec<String> },

    /// A hard bound of the goal was crossed before the judge could close
    /// it: the goal failed instead.
    #[error(
        "`{label}` cannot be completed: {why}; the goal failed (a bound is hard: a person adds a new goal to go on)"
    )]
    BoundCrossed { label: String, why: String },

    /// `complete` judged the goal not done.
    #[error("`{label}` is not done, nothing was changed:\n  - {}", missing.join("\n  - "))]
    NotDone { label: String, missing: Vec<String> },

    /// `task deliver` of an obligation that has no result: still running,
    /// or ended without one.
    #[error(
        "{id} is {status}: there is no result to deliver{}",
        if status == "running" { format!(" yet; wait for it, or `steward task dismiss {id}`") } else { format!("; tell the human it did not deliver, then `steward task dismiss {id}`") }
    )]
    NotArrived { id: String, status: String },

    /// A task cannot be linked to the goal.
    #[error("goal `{label}` is {status}: it takes no new tasks")]
    GoalTakesNoTasks { label: String, status: String },

    // ---- exit 3: a person must choose ----
    /// Two machines changed the same files: the pull was undone, both
    /// versions kept.
    #[error(
        "both sides changed {}: nothing was merged or lost; both versions are kept in {} (ours as *.ours, theirs as *.theirs); choose for each:\n  {}\nthen `steward sync` pushes the merge",
        files.join(", "),
        kept.display(),
        commands.join("\n  ")
    )]
    Conflict {
        files: Vec<String>,
        kept: PathBuf,
        /// The `steward resolve` command of each file.
        commands: Vec<String>,
    },

    /// A merge from the remote would have broken the store: undone,
    /// nothing pushed.
    #[error(
        "the merge from {from} would have broken the store, so it was undone and nothing was pushed:\n  - {}\nboth versions of each goal are kept in {}; fix the remote's side (or ask whoever pushed it), then `steward sync` again",
        problems.join("\n  - "),
        kept.display()
    )]
    BrokenMerge {
        from: String,
        problems: Vec<String>,
        kept: PathBuf,
    },

    // ---- exit 75: the lock ----
    /// Another steward run holds the store lock past the timeout.
    #[error("{}: store is locked by {holder}; gave up after {waited:?} (retry later or raise --lock-timeout)", path.display())]
    Locked {
        path: PathBuf,
        holder: String,
        waited: Duration,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

fn unreadable_note(count: usize) -> String {
    if count == 0 {
        String::new()
    } else {
        format!("; {count} goal file(s) could not be read, see `steward doctor`")
    }
}

impl Error {
    /// An I/O error on `path`, worded as "path: what failed: why".
    pub fn io(path: &Path, doing: &str, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            doing: doing.to_string(),
            source,
        }
    }

    /// A bad value of the option, variable or setting `name`.
    pub fn bad_value(name: impl Into<String>, why: impl Into<String>) -> Self {
        Error::BadValue {
            name: name.into(),
            why: why.into(),
        }
    }

    /// A bad value of `input`.
    pub fn bad_input(input: Input, why: impl Into<String>) -> Self {
        Error::BadInput {
            input,
            why: why.into(),
        }
    }

    /// The message with `input`'s name as a front door spells it (its
    /// flag, its parameter).
    pub fn named_by(&self, input_name: impl Fn(Input) -> &'static str) -> String {
        match self {
            Error::BadInput { input, why } => format!("{}: {why}", input_name(*input)),
            Error::NoSuchCriterion {
                input,
                n,
                label,
                count,
            } => format!(
                "{} {n}: criterion {n} does not exist (`{label}` has {})",
                input_name(*input),
                crate::text::count(*count, "criterion", "criteria")
            ),
            Error::NeedsConfirmation { what, by_person } => {
                confirmation_needed(what, *by_person, input_name)
            }
            other => other.to_string(),
        }
    }

    /// The exit code for this kind of error (steward-reference(5), "EXIT CODES").
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Io { .. }
            | Error::Unreadable(_)
            | Error::GoalNotFound { .. }
            | Error::RunNotFound { .. }
            | Error::NotAStore { .. }
            | Error::ObligationNotFound { .. }
            | Error::ChangedMeanwhile { .. }
            | Error::DraftKept { .. }
            | Error::StaleDraft { .. }
            | Error::Git(_)
            | Error::Program(_)
            | Error::Github(_)
            | Error::BrokenMirror { .. }
            | Error::MirrorNotUpdated(_)
            | Error::UnsafePath { .. }
            | Error::Key(_)
            | Error::Internal(_) => ExitCode::Failure,
            Error::Config(_)
            | Error::BadValue { .. }
            | Error::BadInput { .. }
            | Error::BadRequest(_)
            | Error::NoSuchCriterion { .. }
            | Error::InvalidPlan { .. }
            | Error::AmbiguousGoal { .. } => ExitCode::Usage,
            Error::Terminal { .. }
            | Error::WrongStatus { .. }
            | Error::BudgetExhausted { .. }
            | Error::WindowFull { .. }
            | Error::NeedsConfirmation { .. }
            | Error::PersonOnly { .. }
            | Error::CannotUndo { .. }
            | Error::LastCriterion { .. }
            | Error::Disabled { .. }
            | Error::DispatchRefused { .. }
            | Error::TooLarge { .. }
            | Error::AgentCannotRaise { .. }
            | Error::BoundsRequired
            | Error::TooManyGoals { .. }
            | Error::LabelTaken { .. }
            | Error::LabelUnreadable { .. }
            | Error::PathTaken { .. }
            | Error::NotDone { .. }
            | Error::BoundCrossed { .. }
            | Error::WaitsForPerson { .. }
            | Error::NotArrived { .. }
            | Error::GoalTakesNoTasks { .. } => ExitCode::Refused,
            Error::Conflict { .. } | Error::BrokenMerge { .. } => ExitCode::Attention,
            Error::Locked { .. } => ExitCode::Locked,
        }
    }
}

/// A problem found in a file, located as `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl FileProblem {
    /// A problem with the whole file, reported at its first line.
    pub fn whole_file(path: &Path, message: impl Into<String>) -> FileProblem {
        FileProblem {
            path: path.display().to_string(),
            line: 1,
            column: 1,
            message: message.into(),
        }
    }
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )
    }
}

impl From<FileProblem> for Error {
    fn from(problem: FileProblem) -> Self {
        Error::Unreadable(problem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_map_to_the_exit_codes_of_the_contract() {
        let problem = FileProblem::whole_file(Path::new("g.md"), "bad");
        assert_eq!(Error::Unreadable(problem.clone()).exit_code(), 1);
        assert_eq!(Error::Config(problem).exit_code(), 2);
        assert_eq!(Error::BoundsRequired.exit_code(), 4);
        let locked = Error::Locked {
            path: PathBuf::from("state/lock"),
            holder: "steward pid 7".into(),
            waited: Duration::from_secs(1),
        };
        assert_eq!(locked.exit_code(), 75);
        assert!(
            locked
                .to_string()
                .starts_with("state/lock: store is locked by steward pid 7")
        );
    }

    #[test]
    fn messages_say_what_and_where() {
        let err = Error::NoSuchCriterion {
            input: Input::Met,
            n: 4,
            label: "deploy".into(),
            count: 3,
        };
        assert_eq!(
            err.to_string(),
            "met 4: criterion 4 does not exist (`deploy` has 3 criteria)"
        );
        assert_eq!(
            err.named_by(|_| "--met"),
            "--met 4: criterion 4 does not exist (`deploy` has 3 criteria)"
        );
        let err = Error::GoalNotFound {
            reference: "nope".into(),
            unreadable: 2,
            nearest: None,
        };
        assert!(
            err.to_string()
                .ends_with("2 goal file(s) could not be read, see `steward doctor`")
        );
    }
}
