//! A reply capability (steward-design(7), "Answers from the phone"): one
//! act of a fixed menu, on one goal, in the state it was issued for, until
//! it expires, signed by the machine that issued it. The reply that comes
//! back is the capability and the person's note; the signature covers
//! every field but the note.

use serde::{Deserialize, Serialize};

use crate::model::{CheckKind, Goal, PersonWait, Status};
use crate::store::key::{Domain, MachineKey, PublicKey};

/// A person's act a reply may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Act {
    /// `steward unblock GOAL --note`.
    Unblock,
    /// `steward reset-budget GOAL`.
    ResetBudget,
    /// `steward abandon GOAL --reason`.
    Abandon,
    /// `steward complete GOAL`: the person's judgment of the criteria
    /// that rest on the agent's word; the checks still run.
    Complete,
    /// `steward accept GOAL`: the change made outside steward is taken.
    Accept,
    /// `steward unblock GOAL --note`: a goal the judge left to a person,
    /// or whose branch waits for a person's merge, goes back to work with
    /// the note (the branch is left unmerged).
    SendBack,
    /// `steward undo GOAL`: the change made outside steward is undone,
    /// the goal put back as steward last wrote it.
    UndoEdit,
    /// `steward config accept`: what the configuration files say, held
    /// because it loosens what a person accepted, is accepted on the
    /// machine that told of it.
    AcceptConfig,
}

impl Act {
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Unblock => "unblock",
            Act::ResetBudget => "reset-budget",
            Act::Abandon => "abandon",
            Act::Complete => "complete",
            Act::Accept => "accept",
            Act::SendBack => "send-back",
            Act::UndoEdit => "undo-edit",
            Act::AcceptConfig => "accept-config",
        }
    }

    /// What the person reads on the button or beside the link.
    pub fn title(self) -> &'static str {
        match self {
            Act::Unblock => "Unblock with a note",
            Act::ResetBudget => "Reset the budget",
            Act::Abandon => "Abandon",
            Act::Complete => "Accept as met",
            Act::Accept => "Accept the edit",
            Act::SendBack => "Send back with a note",
            Act::UndoEdit => "Undo the edit",
            Act::AcceptConfig => "Accept the configuration",
        }
    }

    /// The command a person at the terminal runs for the same act.
    pub fn command(self, label: &str) -> String {
        match self {
            Act::Unblock => format!("steward unblock {label} --note \"...\""),
            Act::ResetBudget => format!("steward reset-budget {label}"),
            Act::Abandon => format!("steward abandon {label} --reason \"...\""),
            Act::Complete => format!("steward complete {label} --reason \"...\""),
            Act::Accept => format!("steward accept {label}"),
            Act::SendBack => format!("steward unblock {label} --note \"...\""),
            Act::UndoEdit => format!("steward undo {label}"),
            Act::AcceptConfig => "steward config accept".to_string(),
        }
    }
}

/// The acts that fit `goal` as it stands: what a person told of it would
/// do at the terminal. None for a goal that waits for nobody.
pub fn menu(goal: &Goal) -> Vec<Act> {
    let waits = goal.waiting.as_ref().and_then(|w| w.for_person);
    match (&goal.status, waits) {
        (_, Some(PersonWait::Review)) => {
            // A goal with command checks is accepted at the terminal,
            // where the person sees the commands it would run here.
            if (goal.verification.iter()).any(|c| c.kind == CheckKind::CommandExitZero) {
                vec![Act::UndoEdit]
            } else {
                vec![Act::Accept, Act::UndoEdit]
            }
        }
        (&Status::Verifying, Some(PersonWait::Judgment)) => {
            vec![Act::Complete, Act::SendBack, Act::Abandon]
        }
        // Merging a branch that did not merge cleanly takes a person's
        // hands at the terminal; from afar it can be sent back or let go.
        (&Status::Verifying, Some(PersonWait::Merge)) => vec![Act::SendBack, Act::Abandon],
        (&Status::Blocked, _) => {
            let budget = goal.escalation.as_ref().is_some_and(|e| e.kind == "budget");
            let mut acts = vec![Act::Unblock];
            if budget {
                acts.push(Act::ResetBudget);
            }
            acts.push(Act::Abandon);
            acts
        }
        _ => Vec::new(),
    }
}

impl Act {
    /// Whether only the machine that offered it can apply it: what it
    /// acts on is kept on that machine alone (an undo record).
    pub fn is_local(self) -> bool {
        matches!(self, Act::UndoEdit | Act::AcceptConfig)
    }
}

/// The subject of an answer about the configuration files.
pub const CONFIG: &str = "config";

/// The label an answer about the configuration files shows.
pub const CONFIG_LABEL: &str = "configuration";

/// What a capability grants: every field is signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    /// The format, 1.
    pub v: u32,
    /// The machine that issued it, whose key signs it.
    pub machine: String,
    /// Used once: 32 hex digits.
    pub nonce: String,
    pub act: Act,
    /// What it acts on: a goal's id, or [`CONFIG`]; and its label as the
    /// person read it.
    pub subject: String,
    pub label: String,
    /// The SHA-256 of the goal's file, or of what the configuration files
    /// said, when it was issued: the act applies to that state only.
    pub state: String,
    pub issued: String,
    pub expires: String,
}

impl Capability {
    /// The bytes the signature covers: the fields in their fixed order.
    fn signed_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a capability serializes")
    }

    pub fn sign(&self, key: &MachineKey) -> String {
        key.sign(Domain::Reply, &[&self.signed_bytes()])
    }

    pub fn verifies(&self, key: &PublicKey, signature: &str) -> bool {
        key.verifies(Domain::Reply, &[&self.signed_bytes()], signature)
    }
}

/// A reply as it comes back: the capability, its signature, and what the
/// person wrote.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The person's words (an unblock's note, an abandon's reason); not
    /// signed: whoever holds the link writes it.
    #[serde(default)]
    pub note: String,
    pub reply: Capability,
    pub sig: String,
}

impl Reply {
    /// The file a reply is, as the person's phone commits it: the note
    /// first, where the person types.
    pub fn render(&self) -> String {
        serde_json::to_string_pretty(self).expect("a reply serializes") + "\n"
    }
}

/// Whether `text` can be a nonce: what [`new_nonce`] makes.
pub fn is_nonce(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

pub fn new_nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capability() -> Capability {
        Capability {
            v: 1,
            machine: "laptop".into(),
            nonce: new_nonce(),
            act: Act::Unblock,
            subject: "g-1".into(),
            label: "deploy".into(),
            state: "ab".repeat(32),
            issued: "2026-12-07T04:00:00Z".into(),
            expires: "2026-12-08T04:00:00Z".into(),
        }
    }

    #[test]
    fn a_signed_capability_verifies_and_any_changed_field_does_not() {
        let key = MachineKey::for_tests(1);
        let cap = capability();
        let sig = cap.sign(&key);
        assert!(cap.verifies(&key.public(), &sig));
        assert!(!cap.verifies(&MachineKey::for_tests(2).public(), &sig));
        let changed = [
            Capability {
                act: Act::Abandon,
                ..cap.clone()
            },
            Capability {
                expires: "2027-12-08T04:00:00Z".into(),
                ..cap.clone()
            },
            Capability {
                subject: "g-2".into(),
                ..cap.clone()
            },
            Capability {
                machine: "server".into(),
                ..cap.clone()
            },
        ];
        for other in changed {
            assert!(!other.verifies(&key.public(), &sig), "{other:?}");
        }
        // The file round-trips, whatever the person typed in the note.
        let reply = Reply {
            note: "the token is in the vault\n\"quoted\"".into(),
            reply: cap.clone(),
            sig: sig.clone(),
        };
        let back: Reply = serde_json::from_str(&reply.render()).unwrap();
        assert!(back.reply.verifies(&key.public(), &back.sig));
        assert!(is_nonce(&cap.nonce));
        assert!(!is_nonce("../../etc/passwd"));
    }
}
