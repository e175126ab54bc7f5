//! Error kinds and the exit codes they map to (SPEC 3, "Exit codes").

use std::fmt;
use std::path::Path;

/// What went wrong, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// I/O, an unreadable goal file, not found, git failure: exit 1.
    Failure,
    /// A bad option or value on the command line or in configuration: exit 2.
    Usage,
    /// Refused by a rule (budget, confirmation, terminal goal, limits): exit 4.
    Refused,
    /// The store lock is held by another run past the timeout: exit 75.
    Locked,
}

impl ErrorKind {
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Failure => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Refused => 4,
            ErrorKind::Locked => 75,
        }
    }
}

/// An error with a message that already says what and where.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    pub fn failure(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Failure, message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Usage, message)
    }

    pub fn refused(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Refused, message)
    }

    /// An I/O error on `path`, worded as "path: what failed: why".
    pub fn io(path: &Path, doing: &str, err: std::io::Error) -> Self {
        Error::failure(format!("{}: {doing}: {err}", path.display()))
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A problem found in a file, located as `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
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
        Error::failure(problem.to_string())
    }
}
