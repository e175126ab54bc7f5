//! A machine's record (`state/machines/<machine>.json`, committed with the
//! store): what it can run now, as it last said, signed with its key. A
//! record another machine cannot verify counts for nothing.

use serde::{Deserialize, Serialize};

use crate::store::key::{Domain, MachineKey, PublicKey};

/// What a machine can do, as its passes see it: every field but the time
/// of the pass, so an unchanged machine writes nothing new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capacity {
    pub machine: String,
    /// `machine.tags`.
    pub tags: Vec<String>,
    /// Whether it starts runs at all (`dispatch.enabled`).
    pub dispatch: bool,
    /// Whether it tells a person (`notify.command` or a route).
    pub notifies: bool,
    /// `dispatch.max_parallel`.
    pub slots: u64,
    /// The goals its runs work on now, by label.
    pub running: Vec<String>,
    pub agents: Vec<Agent>,
    /// `machine.available`, as written (local times of that machine).
    pub available: Vec<String>,
    /// While awake: when it next expects to sleep (`None`: it does not).
    pub sleeps_at: Option<String>,
    /// While asleep by its windows: when it wakes.
    pub wakes_at: Option<String>,
}

impl Capacity {
    /// Run slots not in use.
    pub fn free(&self) -> u64 {
        self.slots.saturating_sub(self.running.len() as u64)
    }

    pub fn agent(&self, name: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// Whether a goal that names `runs_on` may start here.
    pub fn takes(&self, runs_on: &[String]) -> bool {
        runs_on_names(runs_on, &self.machine, &self.tags)
    }
}

/// Whether `runs_on` (empty: any machine) names `machine` or one of its
/// `tags`.
pub fn runs_on_names(runs_on: &[String], machine: &str, tags: &[String]) -> bool {
    runs_on.is_empty() || (runs_on.iter()).any(|want| want == machine || tags.contains(want))
}

/// An agent profile as a machine sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agent {
    pub name: String,
    /// Its program is here (and, where the client keeps a login steward
    /// can see, logged in).
    pub usable: bool,
    /// Why not, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Its account's usage limit, as this machine's last run of it saw
    /// it: when it resets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_until: Option<String>,
}

/// The file: the capacity, the time of the pass that wrote it, and the
/// machine's signature over both.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub v: u32,
    pub capacity: Capacity,
    pub pass: String,
    pub sig: String,
}

impl Record {
    pub fn signed(capacity: Capacity, pass: String, key: &MachineKey) -> Record {
        let capacity_bytes = capacity_bytes(&capacity);
        let sig = key.sign(Domain::Machine, &[&capacity_bytes, pass.as_bytes()]);
        Record {
            v: 1,
            capacity,
            pass,
            sig,
        }
    }

    pub fn verifies(&self, key: &PublicKey) -> bool {
        let capacity_bytes = capacity_bytes(&self.capacity);
        self.v == 1
            && key.verifies(
                Domain::Machine,
                &[&capacity_bytes, self.pass.as_bytes()],
                &self.sig,
            )
    }

    pub fn render(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record serializes") + "\n"
    }
}

fn capacity_bytes(capacity: &Capacity) -> Vec<u8> {
    serde_json::to_vec(capacity).expect("a capacity serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capacity() -> Capacity {
        Capacity {
            machine: "laptop".into(),
            tags: vec!["gpu".into()],
            dispatch: true,
            notifies: true,
            slots: 2,
            running: vec!["deploy".into()],
            agents: vec![Agent {
                name: "claude".into(),
                usable: true,
                why: None,
                limited_until: Some("2026-12-08T04:00:00Z".into()),
            }],
            available: vec!["08:00-23:00".into()],
            sleeps_at: Some("2026-12-07T23:00:00Z".into()),
            wakes_at: None,
        }
    }

    #[test]
    fn a_record_verifies_with_its_machines_key_and_not_once_changed() {
        let key = MachineKey::for_tests(3);
        let record = Record::signed(capacity(), "2026-12-07T20:00:00Z".into(), &key);
        let back: Record = serde_json::from_str(&record.render()).unwrap();
        assert!(back.verifies(&key.public()));
        assert!(!back.verifies(&MachineKey::for_tests(4).public()));
        let mut freer = back.clone();
        freer.capacity.running.clear();
        assert!(!freer.verifies(&key.public()));
        let mut later = back;
        later.pass = "2026-12-07T21:00:00Z".into();
        assert!(!later.verifies(&key.public()));
        assert_eq!(capacity().free(), 1);
        assert!(capacity().takes(&["gpu".into()]));
        assert!(capacity().takes(&["laptop".into()]));
        assert!(!capacity().takes(&["server".into()]));
        assert!(capacity().takes(&[]));
    }
}
