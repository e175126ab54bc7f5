//! The obligation rules
//! (steward-guide(7), "OBLIGATIONS: WHAT SPAWNED SUBAGENTS OWE") as pure
//! functions over a [`Book`]: what a spawn, an end, a delivery or a pass of
//! time does. The store reads and writes the book; commands decide what to
//! print.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::model::{Obligation, ObligationStatus};

/// Every obligation the store knows, in spawn order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Book {
    pub schema_version: u32,
    pub obligations: Vec<Obligation>,
    /// Files that could not be read: reported, left as they are (never
    /// rewritten or removed), and no reason to stop the work on the rest.
    #[serde(skip)]
    pub unreadable: Vec<crate::error::FileProblem>,
}

/// One change to an obligation, for events and for the linked goal.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub id: String,
    pub label: String,
    pub goal_id: Option<String>,
    pub goal_label: Option<String>,
    pub from: Option<ObligationStatus>,
    /// `None` when the obligation was dropped from the book.
    pub to: Option<ObligationStatus>,
    pub action: &'static str,
}

impl Transition {
    fn of(
        obligation: &Obligation,
        from: Option<ObligationStatus>,
        action: &'static str,
    ) -> Transition {
        Transition {
            id: obligation.id.clone(),
            label: obligation.label.clone(),
            goal_id: obligation.goal_id.clone(),
            goal_label: obligation.goal_label.clone(),
            from,
            to: Some(obligation.status),
            action,
        }
    }

    /// An end that counts as a failure of the linked goal's work.
    pub fn is_failure(&self) -> bool {
        matches!(
            self.to,
            Some(ObligationStatus::Failed | ObligationStatus::Timeout)
        ) && self.from == Some(ObligationStatus::Running)
    }

    /// An end that produced a result.
    pub fn is_success(&self) -> bool {
        self.to == Some(ObligationStatus::Arrived) && self.from != Some(ObligationStatus::Arrived)
    }
}

/// What `task spawned` was told.
#[derive(Debug, Clone, Default)]
pub struct Spawn {
    pub label: String,
    pub goal: Option<(String, String)>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub pid: Option<u32>,
    pub timeout_secs: u64,
    pub summary: Option<String>,
    /// The machine the subagent runs on (its pid means something there).
    pub machine: String,
}

/// How a subagent ended, as the harness reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Ok,
    Error,
    Timeout,
    Killed,
}

impl Ending {
    fn status(self) -> ObligationStatus {
        match self {
            Ending::Ok => ObligationStatus::Arrived,
            Ending::Error => ObligationStatus::Failed,
            Ending::Timeout => ObligationStatus::Timeout,
            Ending::Killed => ObligationStatus::Cancelled,
        }
    }
}

/// Which obligation an end is about.
#[derive(Debug, Clone)]
pub enum Key {
    Session(String),
    Label(String),
}

/// Why an obligation could not be found or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    NotFound(String),
    NotArrived {
        id: String,
        status: ObligationStatus,
    },
}

impl Book {
    pub fn get(&self, id: &str) -> Option<&Obligation> {
        self.obligations.iter().find(|o| o.id == id)
    }

    /// Obligations linked to a goal.
    pub fn of_goal<'b>(&'b self, goal_id: &'b str) -> impl Iterator<Item = &'b Obligation> + 'b {
        self.obligations
            .iter()
            .filter(move |o| o.goal_id.as_deref() == Some(goal_id))
    }

    /// Registers a spawn: a new obligation, a retry of a failed one with the
    /// same label (same id, `retry_count + 1`), or nothing when the same
    /// session or a running obligation with the label is already known (the
    /// hook fired twice). Returns the obligation's id and the transition.
    pub fn spawn(
        &mut self,
        spawn: Spawn,
        now: DateTime<Utc>,
        new_id: impl FnOnce(&Book) -> String,
    ) -> (String, Option<Transition>) {
        let duplicate = self.obligations.iter().find(|o| {
            let same_session =
                spawn.session.is_some() && o.session == spawn.session && !o.status.is_resolved();
            let running_label = o.label == spawn.label && o.status == ObligationStatus::Running;
            same_session || running_label
        });
        if let Some(existing) = duplicate {
            return (existing.id.clone(), None);
        }
        let (goal_id, goal_label) = spawn.goal.clone().unzip();
        let retry = self
            .obligations
            .iter_mut()
            .rev()
            .find(|o| o.label == spawn.label && o.status.is_unsuccessful());
        if let Some(old) = retry {
            let from = old.status;
            *old = Obligation {
                id: old.id.clone(),
                retry_count: old.retry_count + 1,
                ..fresh(&spawn, old.id.clone(), goal_id, goal_label, now)
            };
            return (
                old.id.clone(),
                Some(Transition::of(old, Some(from), "task_retried")),
            );
        }
        let id = new_id(self);
        let obligation = fresh(&spawn, id.clone(), goal_id, goal_label, now);
        let transition = Transition::of(&obligation, None, "task_spawned");
        self.obligations.push(obligation);
        (id, Some(transition))
    }

    /// Records how a subagent ended. A delivered or dismissed obligation is
    /// never changed by a late event (`Ok(None)`).
    pub fn end(
        &mut self,
        key: &Key,
        ending: Ending,
        detail: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Option<Transition>, BookError> {
        let index = self.find(key).ok_or_else(|| {
            BookError::NotFound(match key {
                Key::Session(session) => {
                    format!("no obligation was spawned with session `{session}`")
                }
                Key::Label(label) => format!("no obligation was spawned with label `{label}`"),
            })
        })?;
        let obligation = &mut self.obligations[index];
        let to = ending.status();
        if obligation.status.is_resolved() || obligation.status == to {
            return Ok(None);
        }
        let from = obligation.status;
        obligation.status = to;
        obligation.ended_at = Some(now);
        obligation.detail = detail;
        Ok(Some(Transition::of(obligation, Some(from), "task_ended")))
    }

    /// The session key wins over the label; among obligations with the
    /// label, a running one, else the latest.
    fn find(&self, key: &Key) -> Option<usize> {
        match key {
            Key::Session(session) => self
                .obligations
                .iter()
                .rposition(|o| o.session.as_deref() == Some(session.as_str())),
            Key::Label(label) => self
                .obligations
                .iter()
                .rposition(|o| o.label == *label && o.status == ObligationStatus::Running)
                .or_else(|| self.obligations.iter().rposition(|o| o.label == *label)),
        }
    }

    /// Marks an obligation delivered (its result reached the human) or
    /// dismissed. Delivering needs a result, which only a task that ended
    /// ok has (a failed or timed-out one is reported, then dismissed);
    /// dismissing works on any.
    pub fn resolve(
        &mut self,
        id: &str,
        to: ObligationStatus,
        now: DateTime<Utc>,
    ) -> Result<Option<Transition>, BookError> {
        let obligation = self
            .obligations
            .iter_mut()
            .find(|o| o.id == id)
            .ok_or_else(|| BookError::NotFound(format!("no obligation `{id}`")))?;
        if obligation.status.is_resolved() {
            return Ok(None);
        }
        if to == ObligationStatus::Delivered && obligation.status != ObligationStatus::Arrived {
            return Err(BookError::NotArrived {
                id: id.to_string(),
                status: obligation.status,
            });
        }
        let from = obligation.status;
        obligation.status = to;
        obligation.resolved_at = Some(now);
        let action = if to == ObligationStatus::Delivered {
            "task_delivered"
        } else {
            "task_dismissed"
        };
        Ok(Some(Transition::of(obligation, Some(from), action)))
    }

    /// What time does: running obligations past spawned + timeout + grace
    /// time out, running ones whose process is gone fail, and resolved ones
    /// older than `ttl_secs` are dropped (their events stay in the log).
    pub fn expire(
        &mut self,
        now: DateTime<Utc>,
        grace_secs: u64,
        ttl_secs: u64,
        here: &str,
        is_alive: impl Fn(u32) -> bool,
    ) -> Vec<Transition> {
        let mut transitions = Vec::new();
        for obligation in self
            .obligations
            .iter_mut()
            .filter(|o| o.status == ObligationStatus::Running)
        {
            if now >= obligation.deadline(grace_secs) {
                obligation.status = ObligationStatus::Timeout;
                obligation.ended_at = Some(now);
                obligation.detail = Some(format!(
                    "no end reported within {}s (timeout) + {grace_secs}s (grace)",
                    obligation.timeout_secs
                ));
                transitions.push(Transition::of(
                    obligation,
                    Some(ObligationStatus::Running),
                    "task_timeout",
                ));
            } else if let Some(pid) = obligation.pid
                && obligation.machine.as_deref().is_none_or(|m| m == here)
                && !is_alive(pid)
            {
                obligation.status = ObligationStatus::Failed;
                obligation.ended_at = Some(now);
                obligation.detail = Some(format!("process {pid} is gone without reporting an end"));
                transitions.push(Transition::of(
                    obligation,
                    Some(ObligationStatus::Running),
                    "task_failed",
                ));
            }
        }
        let ttl = chrono::Duration::seconds(ttl_secs as i64);
        self.obligations.retain(|o| {
            let expired = o.status.is_resolved() && o.resolved_at.is_some_and(|at| now - at >= ttl);
            if expired {
                transitions.push(Transition {
                    to: None,
                    action: "task_dropped",
                    ..Transition::of(o, Some(o.status), "")
                });
            }
            !expired
        });
        transitions
    }
}

fn fresh(
    spawn: &Spawn,
    id: String,
    goal_id: Option<String>,
    goal_label: Option<String>,
    now: DateTime<Utc>,
) -> Obligation {
    Obligation {
        id,
        label: spawn.label.clone(),
        status: ObligationStatus::Running,
        goal_id,
        goal_label,
        agent: spawn.agent.clone(),
        session: spawn.session.clone(),
        pid: spawn.pid,
        machine: Some(spawn.machine.clone()),
        summary: spawn.summary.clone(),
        spawned_at: now,
        timeout_secs: spawn.timeout_secs,
        ended_at: None,
        detail: None,
        resolved_at: None,
        retry_count: 0,
    }
}

/// A new `obl-` id not yet in the book.
pub fn new_id(book: &Book) -> String {
    loop {
        let id = format!("obl-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        if book.get(&id).is_none() {
            return id;
        }
    }
}

/// The `[DELIVER:obl-…]` and `[DISMISS:obl-…]` tags in a message.
pub fn tags(message: &str) -> Vec<(ObligationStatus, String)> {
    let mut found = Vec::new();
    for (tag, status) in [
        ("[DELIVER:", ObligationStatus::Delivered),
        ("[DISMISS:", ObligationStatus::Dismissed),
    ] {
        let mut rest = message;
        while let Some(start) = rest.find(tag) {
            rest = &rest[start + tag.len()..];
            if let Some(end) = rest.find(']') {
                let id = rest[..end].trim();
                if id.starts_with("obl-") && id.len() <= 40 && !found.iter().any(|(_, f)| f == id) {
                    found.push((status, id.to_string()));
                }
            }
        }
    }
    found
}

/// Task labels: like goal labels, and `/`, `.` and `:` too, up to 128.
pub fn task_label(input: &str) -> Result<String, String> {
    let label = input.trim().to_ascii_lowercase();
    let explain = "task labels are 1-128 characters of a-z, 0-9, '-', '_', '/', '.' and ':', starting with a letter or digit";
    if label.is_empty() || label.len() > 128 {
        return Err(format!("invalid task label `{input}`: {explain}"));
    }
    if let Some(bad) = label
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "-_/.:".contains(*c)))
    {
        return Err(format!(
            "invalid task label `{input}`: it contains {bad:?}; {explain}"
        ));
    }
    if !label.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!("invalid task label `{input}`: {explain}"));
    }
    Ok(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T04:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + chrono::Duration::seconds(seconds)
    }

    fn spawn(label: &str) -> Spawn {
        Spawn {
            label: label.into(),
            timeout_secs: 600,
            machine: "here".into(),
            ..Spawn::default()
        }
    }

    fn counter() -> impl FnMut(&Book) -> String {
        let mut n = 0;
        move |_| {
            n += 1;
            format!("obl-{n:08}")
        }
    }

    #[test]
    fn spawning_twice_is_one_obligation() {
        let mut book = Book::default();
        let mut ids = counter();
        let (first, t) = book.spawn(
            Spawn {
                session: Some("s1".into()),
                ..spawn("tests")
            },
            at(0),
            &mut ids,
        );
        assert_eq!(t.unwrap().action, "task_spawned");
        let (again, t) = book.spawn(
            Spawn {
                session: Some("s1".into()),
                ..spawn("other")
            },
            at(5),
            &mut ids,
        );
        assert_eq!((again, t), (first.clone(), None));
        let (same_label, t) = book.spawn(spawn("tests"), at(5), &mut ids);
        assert_eq!((same_label, t), (first, None));
        assert_eq!(book.obligations.len(), 1);
    }

    #[test]
    fn a_retry_replaces_the_failed_obligation() {
        let mut book = Book::default();
        let (id, _) = book.spawn(spawn("tests"), at(0), counter());
        book.end(
            &Key::Label("tests".into()),
            Ending::Error,
            Some("boom".into()),
            at(10),
        )
        .unwrap();
        let (retried, t) = book.spawn(spawn("tests"), at(20), counter());
        assert_eq!(retried, id);
        assert_eq!(t.unwrap().action, "task_retried");
        assert_eq!(book.obligations.len(), 1);
        assert_eq!(book.obligations[0].retry_count, 1);
        assert_eq!(book.obligations[0].status, ObligationStatus::Running);
        assert_eq!(book.obligations[0].spawned_at, at(20));
    }

    #[test]
    fn a_late_end_does_not_touch_a_delivered_obligation() {
        let mut book = Book::default();
        let (id, _) = book.spawn(spawn("tests"), at(0), counter());
        let t = book
            .end(&Key::Label("tests".into()), Ending::Ok, None, at(10))
            .unwrap()
            .unwrap();
        assert!(t.is_success());
        book.resolve(&id, ObligationStatus::Delivered, at(20))
            .unwrap();
        assert_eq!(
            book.end(&Key::Label("tests".into()), Ending::Error, None, at(30))
                .unwrap(),
            None
        );
        assert_eq!(book.get(&id).unwrap().status, ObligationStatus::Delivered);
        assert!(matches!(
            book.end(&Key::Label("nope".into()), Ending::Ok, None, at(30)),
            Err(BookError::NotFound(_))
        ));
    }

    #[test]
    fn delivering_needs_a_result() {
        let mut book = Book::default();
        let (id, _) = book.spawn(spawn("tests"), at(0), counter());
        assert!(matches!(
            book.resolve(&id, ObligationStatus::Delivered, at(1)),
            Err(BookError::NotArrived { .. })
        ));
        assert!(
            book.resolve(&id, ObligationStatus::Dismissed, at(1))
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn a_task_that_did_not_end_ok_has_nothing_to_deliver() {
        for ending in [Ending::Error, Ending::Timeout, Ending::Killed] {
            let mut book = Book::default();
            let (id, _) = book.spawn(spawn("tests"), at(0), counter());
            book.end(&Key::Label("tests".into()), ending, None, at(1))
                .unwrap();
            assert!(matches!(
                book.resolve(&id, ObligationStatus::Delivered, at(2)),
                Err(BookError::NotArrived { .. })
            ));
        }
    }

    #[test]
    fn timeout_fires_at_timeout_plus_grace_and_not_before() {
        let mut book = Book::default();
        book.spawn(spawn("tests"), at(0), counter());
        assert!(book.expire(at(659), 60, 3600, "here", |_| true).is_empty());
        let transitions = book.expire(at(660), 60, 3600, "here", |_| true);
        assert_eq!(transitions[0].action, "task_timeout");
        assert!(transitions[0].is_failure());
    }

    #[test]
    fn a_dead_process_fails_its_obligation() {
        let mut book = Book::default();
        book.spawn(
            Spawn {
                pid: Some(4242),
                ..spawn("tests")
            },
            at(0),
            counter(),
        );
        let transitions = book.expire(at(1), 60, 3600, "here", |pid| pid != 4242);
        assert_eq!(transitions[0].to, Some(ObligationStatus::Failed));
    }

    #[test]
    fn a_process_on_another_machine_is_not_looked_for_here() {
        let mut book = Book::default();
        book.spawn(
            Spawn {
                pid: Some(4242),
                machine: "elsewhere".into(),
                ..spawn("tests")
            },
            at(0),
            counter(),
        );
        assert!(book.expire(at(1), 60, 3600, "here", |_| false).is_empty());
    }

    #[test]
    fn resolved_obligations_are_dropped_after_the_ttl() {
        let mut book = Book::default();
        let (id, _) = book.spawn(spawn("tests"), at(0), counter());
        book.resolve(&id, ObligationStatus::Dismissed, at(10))
            .unwrap();
        assert!(
            book.expire(at(10 + 3599), 60, 3600, "here", |_| true)
                .is_empty()
        );
        assert_eq!(
            book.expire(at(10 + 3600), 60, 3600, "here", |_| true)[0].action,
            "task_dropped"
        );
        assert!(book.obligations.is_empty());
    }

    #[test]
    fn tags_are_found_in_a_message() {
        let found = tags(
            "Done! [DELIVER:obl-1a2b3c4d] and [DISMISS: obl-00000001] but not [DELIVER:x] [DELIVER:obl-1a2b3c4d]",
        );
        assert_eq!(
            found,
            [
                (ObligationStatus::Delivered, "obl-1a2b3c4d".to_string()),
                (ObligationStatus::Dismissed, "obl-00000001".to_string())
            ]
        );
    }

    #[test]
    fn task_labels() {
        assert_eq!(task_label("Deploy-API/Tests").unwrap(), "deploy-api/tests");
        for bad in ["", "a b", "-x", "../x", "é"] {
            assert!(task_label(bad).is_err(), "{bad}");
        }
    }
}
