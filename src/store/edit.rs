//! The one place a typed change becomes bytes: each [`Edit`] is spliced
//! into the raw front matter or body of a goal file, leaving every other
//! byte as it was (steward-design(7), "Hand edits are sacred"). Besides the
//! reader in `goal_file.rs`, no other module names a front-matter key.

use super::body;
use super::frontmatter::YamlValue;
use super::goal_file::{GoalFile, time_value};
use crate::error::Result;
use crate::model::{
    BoundField, Bounds, Budget, BudgetField, Check, Edit, Escalation, LastCheck, ProgressField,
    Receipt, RecordField, Tick, Waiting,
};

impl GoalFile {
    /// Applies `edits` in order, changing only the bytes they mean to change.
    pub fn apply(&mut self, edits: &[Edit]) -> Result<()> {
        for edit in edits {
            apply_one(self, edit)?;
        }
        Ok(())
    }
}

fn apply_one(file: &mut GoalFile, edit: &Edit) -> Result<()> {
    let text = |s: &str| YamlValue::Str(s.to_string());
    match edit {
        Edit::Id(id) => file.set(&["id"], text(id)),
        Edit::Label(label) => file.set(&["label"], text(label)),
        Edit::Title(title) => file.set(&["title"], text(title)),
        Edit::Status(status) => file.set(&["status"], text(status.as_str())),
        Edit::Priority(priority) => file.set(&["priority"], text(priority.as_str())),
        Edit::Confirmed(confirmed) => file.set(&["confirmed"], YamlValue::Bool(*confirmed)),
        Edit::Tags(tags) => file.set(&["tags"], strings_value(tags)),
        Edit::CreatedAt(at) => file.set(&["created_at"], time_value(*at)),
        Edit::UpdatedAt(at) => file.set(&["updated_at"], time_value(*at)),
        Edit::Closed { reason, at } => {
            file.set(&["closed_reason"], text(reason))?;
            file.set(&["closed_at"], time_value(*at))
        }
        Edit::Verification(checks) => file.set(&["verification"], checks_value(checks)),
        Edit::Blockers(blockers) => file.set(&["blockers"], strings_value(blockers)),
        Edit::Escalation(escalation) => file.set(
            &["escalation"],
            escalation
                .as_ref()
                .map_or(YamlValue::Null, escalation_value),
        ),
        Edit::PausedFrom(Some(status)) => file.set(&["paused_from"], text(status.as_str())),
        Edit::PausedFrom(None) => file.remove(&["paused_from"]),
        Edit::ClosedOutside => file.set(&["closed_outside"], YamlValue::Bool(true)),
        Edit::Waiting(Some(waiting)) => file.set(&["waiting"], waiting_value(waiting)),
        Edit::Waiting(None) => file.remove(&["waiting"]),
        Edit::Ticks(ticks) => file.set(&["ticks"], ticks_value(ticks)),
        Edit::Receipt(receipt) => file.set(&["receipt"], receipt_value(receipt)),
        Edit::Budget(budget) => file.set(&["budget"], budget_value(budget)),
        Edit::BudgetField(field) => {
            let (key, value) = match field {
                BudgetField::MaxDispatches(n) => ("max_dispatches", count(*n)),
                BudgetField::MaxAssessments(n) => ("max_assessments", count(*n)),
                BudgetField::Cooldown(d) => ("cooldown", text(&d.to_string())),
                BudgetField::EscalateAfterFailures(n) => ("escalate_after_failures", count(*n)),
            };
            file.set(&["budget", key], value)
        }
        Edit::Bounds(bounds) => file.set(&["bounds"], bounds_value(bounds)),
        Edit::Bound(field) => {
            let (key, value) = match field {
                BoundField::MaxIterations(n) => ("max_iterations", count(*n)),
                BoundField::Deadline(at) => ("deadline", time_value(*at)),
                BoundField::MaxCostUsd(usd) => ("max_cost_usd", YamlValue::Float(*usd)),
            };
            file.set(&["bounds", key], value)
        }
        Edit::FreshProgress => file.set(&["progress"], fresh_progress()),
        Edit::Progress(field) => {
            let (key, value) = progress_entry(field);
            file.set(&["progress", key], value)
        }
        Edit::LastCheck(result) => file.set(&["progress", "last_check"], last_check_value(result)),
        Edit::Description(description) => {
            file.edit_body(|body, newline| Ok(body::set_description(body, description, newline)))
        }
        Edit::CriterionMet { n, met } => file.edit_body(|body, _| body::set_met(body, *n, *met)),
        Edit::RemoveCriterion(n) => file.edit_body(|body, _| body::remove_criterion(body, *n)),
        Edit::AddCriterion(criterion) => {
            file.edit_body(|body, newline| Ok(body::add_criterion(body, criterion, newline)))
        }
        Edit::PlanNode { id, status, reason } => {
            file.edit_body(|body, _| body::set_plan_node(body, id, *status, reason.as_deref()))
        }
        Edit::Record(field) => {
            let (key, value) = match field {
                RecordField::Owner(text) => ("owner", text.clone().map(YamlValue::Str)),
                RecordField::Planning(planning) => (
                    "planning",
                    planning.map(|p| YamlValue::Str(p.as_str().to_string())),
                ),
                RecordField::Origin(text) => ("origin", text.clone().map(YamlValue::Str)),
                RecordField::Constraints(list) => ("constraints", non_empty(list)),
                RecordField::NonGoals(list) => ("non_goals", non_empty(list)),
                RecordField::Risks(list) => ("risks", non_empty(list)),
                RecordField::RunsOn(list) => ("runs_on", non_empty(list)),
                RecordField::PullRequest(text) => {
                    ("pull_request", text.clone().map(YamlValue::Str))
                }
            };
            match value {
                Some(value) => file.set(&[key], value),
                None if file.front_matter_has(key) => file.remove(&[key]),
                None => Ok(()),
            }
        }
        Edit::Handoff(handoff) => file.set(
            &["handoff"],
            yaml_of(&serde_json::to_value(handoff).expect("handoffs serialize")),
        ),
        Edit::Plan(plan) => file.edit_body(|body, newline| {
            Ok(body::set_plan(
                body,
                &crate::model::plan::json::render(plan, newline),
                newline,
            ))
        }),
    }
}

fn non_empty(list: &[String]) -> Option<YamlValue> {
    (!list.is_empty()).then(|| strings_value(list))
}

/// A JSON value as YAML (a handoff, written as it was given).
fn yaml_of(value: &serde_json::Value) -> YamlValue {
    use serde_json::Value;
    match value {
        Value::Null => YamlValue::Null,
        Value::Bool(b) => YamlValue::Bool(*b),
        Value::Number(n) => n.as_i64().map_or_else(
            || YamlValue::Float(n.as_f64().unwrap_or(0.0)),
            YamlValue::Int,
        ),
        Value::String(s) => YamlValue::Str(s.clone()),
        Value::Array(items) => YamlValue::Seq(items.iter().map(yaml_of).collect()),
        Value::Object(map) => {
            YamlValue::Map(map.iter().map(|(k, v)| (k.clone(), yaml_of(v))).collect())
        }
    }
}

fn waiting_value(waiting: &Waiting) -> YamlValue {
    let mut entries = Vec::new();
    if let Some(until) = waiting.until {
        entries.push(("until".to_string(), time_value(until)));
    }
    if waiting.for_check {
        entries.push(("for_check".to_string(), YamlValue::Bool(true)));
    }
    if let Some(why) = waiting.for_person {
        entries.push((
            "for_person".to_string(),
            YamlValue::Str(why.as_str().to_string()),
        ));
    }
    entries.push(("reason".to_string(), YamlValue::Str(waiting.reason.clone())));
    if let Some(since) = waiting.since {
        entries.push(("since".to_string(), time_value(since)));
    }
    if let Some(session) = &waiting.session {
        entries.push(("session".to_string(), YamlValue::Str(session.clone())));
    }
    YamlValue::Map(entries)
}

fn ticks_value(ticks: &[Tick]) -> YamlValue {
    YamlValue::Seq(
        ticks
            .iter()
            .map(|tick| {
                YamlValue::Map(vec![
                    ("criterion".into(), count(tick.n as u64)),
                    ("by".into(), YamlValue::Str(tick.by.clone())),
                    ("at".into(), YamlValue::Str(tick.at.clone())),
                ])
            })
            .collect(),
    )
}

fn receipt_value(receipt: &Receipt) -> YamlValue {
    let optional = |text: &Option<String>| text.clone().map_or(YamlValue::Null, YamlValue::Str);
    let checks = receipt
        .checks
        .iter()
        .map(|check| {
            let mut entries = vec![
                ("type".into(), YamlValue::Str(check.kind.clone())),
                ("target".into(), YamlValue::Str(check.target.clone())),
            ];
            if let Some(n) = check.criterion {
                entries.push(("criterion".into(), count(n as u64)));
            }
            entries.push(("result".into(), YamlValue::Str(check.result.clone())));
            entries.push(("detail".into(), YamlValue::Str(check.detail.clone())));
            YamlValue::Map(entries)
        })
        .collect();
    let criteria = receipt
        .criteria
        .iter()
        .map(|criterion| {
            YamlValue::Map(vec![
                ("criterion".into(), count(criterion.n as u64)),
                ("text".into(), YamlValue::Str(criterion.text.clone())),
                (
                    "basis".into(),
                    YamlValue::Str(criterion.basis.as_str().to_string()),
                ),
                ("ticked_by".into(), optional(&criterion.ticked_by)),
                ("ticked_at".into(), optional(&criterion.ticked_at)),
            ])
        })
        .collect();
    YamlValue::Map(vec![
        (
            "judged_at".into(),
            YamlValue::Str(receipt.judged_at.clone()),
        ),
        (
            "judged_by".into(),
            YamlValue::Str(receipt.judged_by.clone()),
        ),
        ("checks".into(), YamlValue::Seq(checks)),
        ("criteria".into(), YamlValue::Seq(criteria)),
    ])
}

fn count(n: u64) -> YamlValue {
    YamlValue::Int(n as i64)
}

fn progress_entry(field: &ProgressField) -> (&'static str, YamlValue) {
    match field {
        ProgressField::Assessments(n) => ("assessments", count(*n)),
        ProgressField::Dispatches(n) => ("dispatches", count(*n)),
        ProgressField::Iterations(n) => ("iterations", count(*n)),
        ProgressField::ConsecutiveFailures(n) => ("consecutive_failures", count(*n)),
        ProgressField::BlockerStreak(n) => ("blocker_streak", count(*n)),
        ProgressField::AssessmentsWithoutProgress(n) => ("assessments_without_progress", count(*n)),
        ProgressField::CostUsd(usd) => ("cost_usd", YamlValue::Float(*usd)),
        ProgressField::LastAssessedAt(at) => ("last_assessed_at", time_value(*at)),
        ProgressField::LastDispatchedAt(at) => ("last_dispatched_at", time_value(*at)),
        ProgressField::LastOutcome(text) => ("last_outcome", YamlValue::Str(text.clone())),
        ProgressField::UnblockedAt(at) => ("unblocked_at", time_value(*at)),
        ProgressField::UnblockNote(text) => ("unblock_note", YamlValue::Str(text.clone())),
        ProgressField::WaitedAt(at) => ("waited_at", time_value(*at)),
        ProgressField::WaitNote(text) => ("wait_note", YamlValue::Str(text.clone())),
        ProgressField::WakeSession(text) => ("wake_session", YamlValue::Str(text.clone())),
        ProgressField::BlockerFingerprint(print) => (
            "blocker_fingerprint",
            print.clone().map_or(YamlValue::Null, YamlValue::Str),
        ),
    }
}

/// The counters of a new goal.
fn fresh_progress() -> YamlValue {
    YamlValue::Map(vec![
        ("assessments".into(), count(0)),
        ("dispatches".into(), count(0)),
        ("consecutive_failures".into(), count(0)),
        ("cost_usd".into(), count(0)),
        ("last_assessed_at".into(), YamlValue::Null),
        ("last_dispatched_at".into(), YamlValue::Null),
        ("last_outcome".into(), YamlValue::Null),
    ])
}

fn budget_value(budget: &Budget) -> YamlValue {
    YamlValue::Map(vec![
        ("max_dispatches".into(), count(budget.max_dispatches)),
        ("max_assessments".into(), count(budget.max_assessments)),
        (
            "cooldown".into(),
            YamlValue::Str(budget.cooldown.to_string()),
        ),
        (
            "escalate_after_failures".into(),
            count(budget.escalate_after_failures),
        ),
    ])
}

/// The `bounds` mapping with the bounds that are set.
fn bounds_value(bounds: &Bounds) -> YamlValue {
    let mut entries = Vec::new();
    if let Some(n) = bounds.max_iterations {
        entries.push(("max_iterations".to_string(), count(n)));
    }
    if let Some(deadline) = bounds.deadline {
        entries.push(("deadline".to_string(), time_value(deadline)));
    }
    if let Some(usd) = bounds.max_cost_usd {
        entries.push(("max_cost_usd".to_string(), YamlValue::Float(usd)));
    }
    YamlValue::Map(entries)
}

/// The `escalation` mapping as written in front matter.
fn escalation_value(escalation: &Escalation) -> YamlValue {
    let mut entries = vec![
        ("kind".to_string(), YamlValue::Str(escalation.kind.clone())),
        (
            "reason".to_string(),
            YamlValue::Str(escalation.reason.clone()),
        ),
    ];
    if let Some(at) = escalation.at {
        entries.push(("at".to_string(), time_value(at)));
    }
    YamlValue::Map(entries)
}

fn last_check_value(result: &LastCheck) -> YamlValue {
    let mut entries = Vec::new();
    if let Some(since) = result.since {
        entries.push(("since".to_string(), time_value(since)));
    }
    entries.push(("passed".to_string(), count(result.passed)));
    entries.push(("total".to_string(), count(result.total)));
    entries.push(("failures".to_string(), strings_value(&result.failures)));
    YamlValue::Map(entries)
}

/// The `verification` list as written in front matter.
fn checks_value(checks: &[Check]) -> YamlValue {
    YamlValue::Seq(
        checks
            .iter()
            .map(|check| {
                let mut entries = vec![
                    (
                        "type".to_string(),
                        YamlValue::Str(check.kind.as_str().to_string()),
                    ),
                    ("target".to_string(), YamlValue::Str(check.target.clone())),
                ];
                if let Some(n) = check.criterion {
                    entries.push(("criterion".to_string(), count(n as u64)));
                }
                YamlValue::Map(entries)
            })
            .collect(),
    )
}

/// A list of strings (blockers, tags) as written in front matter.
fn strings_value(items: &[String]) -> YamlValue {
    YamlValue::Seq(items.iter().cloned().map(YamlValue::Str).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Priority, Status};
    use chrono::{TimeZone, Utc};
    use std::path::Path;

    const FILE: &str = "---\n# keep me\nid: x\nstatus: active   # trailing\npriority: high\nbudget:\n  max_dispatches: 3\n---\nDo it.\n\n## Acceptance criteria\n\n- [ ] one\n- [ ] two\n";

    #[test]
    fn edits_change_only_their_bytes() {
        let mut file = GoalFile::parse(Path::new("g.md"), FILE.to_string()).unwrap();
        file.apply(&[
            Edit::Status(Status::Blocked),
            Edit::BudgetField(BudgetField::MaxDispatches(5)),
            Edit::CriterionMet { n: 2, met: true },
        ])
        .unwrap();
        assert_eq!(
            file.text(),
            FILE.replace("status: active", "status: blocked")
                .replace("max_dispatches: 3", "max_dispatches: 5")
                .replace("- [ ] two", "- [x] two")
        );
    }

    #[test]
    fn a_cleared_escalation_is_null_and_a_closed_goal_says_why() {
        let mut file = GoalFile::parse(Path::new("g.md"), FILE.to_string()).unwrap();
        let at = Utc.with_ymd_and_hms(2026, 11, 21, 4, 0, 0).unwrap();
        file.apply(&[
            Edit::Escalation(None),
            Edit::Priority(Priority::Low),
            Edit::Closed {
                reason: "done".into(),
                at,
            },
        ])
        .unwrap();
        let text = file.text();
        assert!(text.contains("escalation: null"), "{text}");
        assert!(text.contains("priority: low\n"), "{text}");
        assert!(text.contains("closed_reason: done"), "{text}");
        assert!(text.contains("closed_at: 2026-11-21T04:00:00Z"), "{text}");
        assert!(text.contains("# keep me\n"));
    }
}
