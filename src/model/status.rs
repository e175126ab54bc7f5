//! Goal statuses and priorities, with unknown values kept as data.

use std::fmt;

/// Where a goal stands (steward-reference(5), "Statuses"). A value steward
/// does not know is kept as written: the goal stays readable and nothing
/// automatic touches it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Status {
    Active,
    Stalled,
    Verifying,
    Blocked,
    Paused,
    Completed,
    Failed,
    Abandoned,
    Unknown(String),
}

impl Status {
    pub const KNOWN: [Status; 8] = [
        Status::Active,
        Status::Stalled,
        Status::Verifying,
        Status::Blocked,
        Status::Paused,
        Status::Completed,
        Status::Failed,
        Status::Abandoned,
    ];

    pub fn parse(text: &str) -> Status {
        match text {
            "active" => Status::Active,
            "stalled" => Status::Stalled,
            "verifying" => Status::Verifying,
            "blocked" => Status::Blocked,
            "paused" => Status::Paused,
            "completed" => Status::Completed,
            "failed" => Status::Failed,
            "abandoned" => Status::Abandoned,
            other => Status::Unknown(other.to_string()),
        }
    }

    /// The status a person most likely meant by `text`, one steward does
    /// not know: a word other trackers use for it, or the nearest.
    pub fn meant(text: &str) -> Option<&'static str> {
        const NAMES: [&str; 8] = [
            "active",
            "stalled",
            "verifying",
            "blocked",
            "paused",
            "completed",
            "failed",
            "abandoned",
        ];
        let text = text.trim().to_ascii_lowercase();
        match text.as_str() {
            "done" | "finished" | "closed" | "complete" | "resolved" | "fixed" => Some("completed"),
            "open" | "todo" | "in_progress" | "in-progress" | "doing" | "started" | "new" => {
                Some("active")
            }
            "cancelled" | "canceled" | "dropped" | "wontfix" => Some("abandoned"),
            "waiting" | "on_hold" | "on-hold" | "hold" => Some("paused"),
            "stuck" => Some("blocked"),
            "review" | "in_review" => Some("verifying"),
            _ => crate::text::nearest(&text, NAMES),
        }
    }

    /// Parses a status named on the command line, refusing unknown ones.
    pub fn parse_known(text: &str) -> Result<Status, String> {
        match Status::parse(&text.to_ascii_lowercase()) {
            Status::Unknown(_) => Err(format!(
                "unknown status `{text}`: expected one of {}",
                Status::KNOWN.map(|s| s.as_str().to_string()).join(", ")
            )),
            status => Ok(status),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Status::Active => "active",
            Status::Stalled => "stalled",
            Status::Verifying => "verifying",
            Status::Blocked => "blocked",
            Status::Paused => "paused",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Abandoned => "abandoned",
            Status::Unknown(text) => text,
        }
    }

    /// Completed, failed and abandoned goals are closed for good.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Abandoned)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much attention a goal gets. Unknown values read from a file are kept
/// and weigh like `normal`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Priority {
    Critical,
    High,
    Normal,
    Low,
    Unknown(String),
}

impl Priority {
    pub const KNOWN: [Priority; 4] = [
        Priority::Critical,
        Priority::High,
        Priority::Normal,
        Priority::Low,
    ];

    pub fn parse(text: &str) -> Priority {
        match text {
            "critical" => Priority::Critical,
            "high" => Priority::High,
            "normal" => Priority::Normal,
            "low" => Priority::Low,
            other => Priority::Unknown(other.to_string()),
        }
    }

    /// The priority a person most likely meant by `text`, one steward does
    /// not know.
    pub fn meant(text: &str) -> Option<&'static str> {
        let text = text.trim().to_ascii_lowercase();
        match text.as_str() {
            "urgent" | "p0" | "highest" | "blocker" => Some("critical"),
            "p1" | "important" => Some("high"),
            "medium" | "p2" | "default" => Some("normal"),
            "p3" | "lowest" | "minor" => Some("low"),
            _ => crate::text::nearest(&text, ["critical", "high", "normal", "low"]),
        }
    }

    /// Parses a priority given on the command line or in configuration.
    pub fn parse_known(text: &str) -> Result<Priority, String> {
        match Priority::parse(&text.to_ascii_lowercase()) {
            Priority::Unknown(_) => Err(format!(
                "unknown priority `{text}`: expected critical, high, normal or low"
            )),
            priority => Ok(priority),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Priority::Critical => "critical",
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
            Priority::Unknown(text) => text,
        }
    }

    /// Sort rank: critical first, unknown values with normal.
    pub fn rank(&self) -> u8 {
        match self {
            Priority::Critical => 0,
            Priority::High => 1,
            Priority::Normal | Priority::Unknown(_) => 2,
            Priority::Low => 3,
        }
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
