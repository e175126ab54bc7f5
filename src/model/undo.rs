//! What the last command did to one goal, kept so that a person can take
//! it back (`steward undo`): the goal's bytes before and after.

use serde::{Deserialize, Serialize};

/// One goal's last change, as one command made it (several writes of one
/// command, an assessment and the block it caused, are one change).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UndoRecord {
    pub schema_version: u32,
    pub goal_id: String,
    /// The label after the change (before, for a deletion).
    pub label: String,
    /// When the command ran (its events' `ts`).
    pub at: String,
    /// The command (`assess`, `tick`, `delete`, …).
    pub command: String,
    /// The actor of the command.
    pub actor: String,
    /// The history actions of its writes, in order (`assessed`, `blocked`).
    pub actions: Vec<String>,
    /// The file as the command found it; `None`: the command created it.
    pub before: Option<String>,
    /// The file as the command left it; `None`: the command deleted it.
    pub after: Option<String>,
    /// This machine's MAC of the record without it: `undo` writes nothing
    /// it cannot verify (a record edited or written outside steward).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

impl UndoRecord {
    /// The bytes the MAC covers: the record without its MAC.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let unsigned = UndoRecord {
            mac: None,
            ..self.clone()
        };
        unsigned.json()
    }

    /// The record as one line of JSON, its newline included.
    pub fn json_line(&self) -> Vec<u8> {
        let mut line = self.json();
        line.push(b'\n');
        line
    }

    /// The record as JSON, in a buffer sized for it at once: the goal's
    /// bytes before and after are most of it, and a buffer that doubles
    /// on its way there touches a fresh page each time.
    fn json(&self) -> Vec<u8> {
        let text = |t: &Option<String>| t.as_ref().map_or(0, |t| t.len() + t.len() / 8);
        let mut bytes = Vec::with_capacity(512 + text(&self.before) + text(&self.after));
        serde_json::to_writer(&mut bytes, self).expect("undo records serialize");
        bytes
    }
}
