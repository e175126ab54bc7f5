//! What a spawned subagent owes: its result delivered, or its failure
//! reported.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObligationStatus {
    Running,
    /// The result is ready and must be delivered before new work.
    Arrived,
    Failed,
    Timeout,
    Cancelled,
    Delivered,
    Dismissed,
}

impl ObligationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ObligationStatus::Running => "running",
            ObligationStatus::Arrived => "arrived",
            ObligationStatus::Failed => "failed",
            ObligationStatus::Timeout => "timeout",
            ObligationStatus::Cancelled => "cancelled",
            ObligationStatus::Delivered => "delivered",
            ObligationStatus::Dismissed => "dismissed",
        }
    }

    /// Delivered and dismissed obligations are done; nothing overwrites them.
    pub fn is_resolved(self) -> bool {
        matches!(
            self,
            ObligationStatus::Delivered | ObligationStatus::Dismissed
        )
    }

    /// Ended without a result: to be reported or retried.
    pub fn is_unsuccessful(self) -> bool {
        matches!(
            self,
            ObligationStatus::Failed | ObligationStatus::Timeout | ObligationStatus::Cancelled
        )
    }

    /// The subagent produced its result.
    pub fn succeeded(self) -> bool {
        matches!(
            self,
            ObligationStatus::Arrived | ObligationStatus::Delivered
        )
    }
}

impl fmt::Display for ObligationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obligation {
    /// `obl-` and 8 hex digits; kept across retries.
    pub id: String,
    pub label: String,
    pub status: ObligationStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The machine it runs on; its pid is checked there only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub spawned_at: DateTime<Utc>,
    pub timeout_secs: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub retry_count: u32,
}

impl Obligation {
    /// When a running obligation times out: spawned + timeout + grace.
    pub fn deadline(&self, grace_secs: u64) -> DateTime<Utc> {
        self.spawned_at + chrono::Duration::seconds((self.timeout_secs + grace_secs) as i64)
    }
}
