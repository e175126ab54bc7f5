//! `update`: change what a goal says (seed tool `goal_update`).

use chrono::{DateTime, Utc};

use super::{Saved, check_criterion_in_range, refuse_terminal};
use crate::context::Context;
use crate::error::{Error, Input, Result};
use crate::model::duration::HumanDuration;
use crate::model::{
    BoundField, BudgetField, Check, Edit, Goal, GoalChange, Planning, Priority, Record,
    RecordField, forget_ticks, format_time, record_ticks,
};

/// The changes asked for; criterion numbers refer to the goal as it is
/// before the update. Ticks apply first, then removals, then additions.
#[derive(Debug, Clone, Default)]
pub struct UpdateRequest {
    pub title: Option<String>,
    pub description: Option<String>,
    pub priority: Option<Priority>,
    pub add_criteria: Vec<String>,
    pub remove_criteria: Vec<usize>,
    pub check: Vec<usize>,
    pub uncheck: Vec<usize>,
    /// `Some` replaces the blockers (empty: cleared).
    pub blockers: Option<Vec<String>>,
    pub verify: Vec<Check>,
    pub clear_checks: bool,
    pub max_dispatches: Option<u64>,
    pub max_assessments: Option<u64>,
    pub cooldown: Option<HumanDuration>,
    pub escalate_after: Option<u64>,
    pub max_iterations: Option<u64>,
    pub deadline: Option<DateTime<Utc>>,
    pub max_cost_usd: Option<f64>,
    pub label: Option<String>,
    pub tags: Vec<String>,
    pub untags: Vec<String>,
    pub confirmed: bool,
    pub note: Option<String>,
    /// The goal's record: a person's to change once the goal exists.
    pub record: RecordUpdate,
}

/// New values for the goal's record; `None` leaves a key alone, an empty
/// text or list removes it.
#[derive(Debug, Clone, Default)]
pub struct RecordUpdate {
    pub owner: Option<String>,
    pub origin: Option<String>,
    pub constraints: Option<Vec<String>>,
    pub non_goals: Option<Vec<String>>,
    pub risks: Option<Vec<String>>,
    pub runs_on: Option<Vec<String>>,
    /// `Some(None)`: as `dispatch.plan` says.
    pub planning: Option<Option<Planning>>,
}

impl From<&Record> for RecordUpdate {
    fn from(record: &Record) -> Self {
        let list = |items: &Vec<String>| (!items.is_empty()).then(|| items.clone());
        RecordUpdate {
            owner: record.owner.clone(),
            origin: record.origin.clone(),
            constraints: list(&record.constraints),
            non_goals: list(&record.non_goals),
            risks: list(&record.risks),
            runs_on: list(&record.runs_on),
            planning: record.planning.map(Some),
        }
    }
}

impl RecordUpdate {
    fn is_empty(&self) -> bool {
        self.owner.is_none()
            && self.origin.is_none()
            && self.constraints.is_none()
            && self.non_goals.is_none()
            && self.risks.is_none()
            && self.runs_on.is_none()
            && self.planning.is_none()
    }

    /// The edits that take `old` to this, and the options that ask for
    /// them (for the person's command when an agent asks).
    fn changes(&self, old: &Record) -> Vec<(Edit, String)> {
        let text = |new: &Option<String>, old: &Option<String>| {
            new.as_ref()
                .map(|t| Some(t.trim().to_string()).filter(|t| !t.is_empty()))
                .filter(|new| new != old)
        };
        let list = |new: &Option<Vec<String>>, old: &Vec<String>| {
            new.as_ref().filter(|new| *new != old).cloned()
        };
        let mut changes = Vec::new();
        if let Some(planning) = self.planning.filter(|p| *p != old.planning) {
            let option = format!(
                "--planning {}",
                planning.map_or("default", Planning::as_str)
            );
            changes.push((Edit::Record(RecordField::Planning(planning)), option));
        }
        if let Some(owner) = text(&self.owner, &old.owner) {
            let option = format!("--owner \"{}\"", owner.as_deref().unwrap_or_default());
            changes.push((Edit::Record(RecordField::Owner(owner)), option));
        }
        if let Some(origin) = text(&self.origin, &old.origin) {
            let option = format!("--origin \"{}\"", origin.as_deref().unwrap_or_default());
            changes.push((Edit::Record(RecordField::Origin(origin)), option));
        }
        if let Some(items) = list(&self.constraints, &old.constraints) {
            changes.push((
                Edit::Record(RecordField::Constraints(items)),
                "--constraint \"...\"".into(),
            ));
        }
        if let Some(items) = list(&self.non_goals, &old.non_goals) {
            changes.push((
                Edit::Record(RecordField::NonGoals(items)),
                "--non-goal \"...\"".into(),
            ));
        }
        if let Some(items) = list(&self.risks, &old.risks) {
            changes.push((
                Edit::Record(RecordField::Risks(items)),
                "--risk \"...\"".into(),
            ));
        }
        if let Some(items) = list(&self.runs_on, &old.runs_on) {
            changes.push((
                Edit::Record(RecordField::RunsOn(items)),
                "--runs-on \"...\"".into(),
            ));
        }
        changes
    }

    /// The edits that take `old` to this.
    pub fn edits(&self, old: &Record) -> Vec<Edit> {
        self.changes(old)
            .into_iter()
            .map(|(edit, _)| edit)
            .collect()
    }
}

impl UpdateRequest {
    fn changes_nothing(&self) -> bool {
        self.title.is_none()
            && self.description.is_none()
            && self.priority.is_none()
            && self.add_criteria.is_empty()
            && self.remove_criteria.is_empty()
            && self.check.is_empty()
            && self.uncheck.is_empty()
            && self.blockers.is_none()
            && self.verify.is_empty()
            && !self.clear_checks
            && self.max_dispatches.is_none()
            && self.max_assessments.is_none()
            && self.cooldown.is_none()
            && self.escalate_after.is_none()
            && self.max_iterations.is_none()
            && self.deadline.is_none()
            && self.max_cost_usd.is_none()
            && self.label.is_none()
            && self.tags.is_empty()
            && self.untags.is_empty()
            && !self.confirmed
            && self.note.is_none()
            && self.record.is_empty()
    }
}

/// What `update` did, for the person who asked.
#[derive(Debug)]
pub struct Updated {
    pub saved: Saved,
    /// One phrase per change ("title changed", "criterion 2 met").
    pub parts: Vec<String>,
}

/// Applies `request` to the goal `reference` names.
pub fn update(ctx: &Context, reference: &str, request: &UpdateRequest) -> Result<Updated> {
    if request.changes_nothing() {
        return Err(Error::BadRequest(
            "nothing to update: give at least one option (see `steward update --help`)".to_string(),
        ));
    }
    if let Some(n) = request.check.iter().find(|n| request.uncheck.contains(n)) {
        // Named by each front door in its own words (`--uncheck`, MCP's
        // `uncheck`).
        return Err(Error::bad_input(
            Input::Uncheck,
            format!("criterion {n} is also to be checked: check it or uncheck it, not both"),
        ));
    }
    if let Some(deadline) = request.deadline
        && deadline <= ctx.now
    {
        return Err(Error::bad_input(
            Input::Deadline,
            format!(
                "{} is not in the future (now is {})",
                crate::model::format_time(deadline),
                crate::model::format_time(ctx.now)
            ),
        ));
    }

    let mut tx = ctx.transaction()?;
    let loaded = super::trust::resolve(ctx, &mut tx, reference)?;
    let goal = &loaded.goal;
    refuse_terminal(goal)?;
    if let Some(label) = &request.label
        && *label != goal.label
        && tx.store().label_taken(label)
    {
        return Err(Error::LabelTaken {
            label: label.clone(),
            at: None,
            hint: "choose another label",
        });
    }
    if let Some(priority) = &request.priority {
        let required = &ctx.config.require_confirmation_for;
        if required.contains(priority) && !required.contains(&goal.priority) && !request.confirmed {
            return Err(Error::NeedsConfirmation {
                what: format!("raising `{}` to {priority}", goal.label),
                by_person: false,
            });
        }
    }

    let reserved = person_only_options(request, goal);
    if !reserved.is_empty() {
        super::authority::person_only(
            ctx,
            "change what a goal means or loosen its limits",
            || format!("steward update {} {}", goal.label, reserved.join(" ")),
        )?;
    }
    if !request.remove_criteria.is_empty()
        && sorted_unique(&request.remove_criteria).len() + 1
            > goal.criteria.len() + request.add_criteria.len()
    {
        return Err(Error::LastCriterion {
            label: goal.label.clone(),
        });
    }
    if let Some(description) = &request.description {
        crate::store::body::check_description(description)
            .map_err(|why| Error::bad_input(Input::Description, why))?;
    }

    let mut planned = Planned::default();
    planned.fields(request, goal);
    planned.criteria(request, goal)?;
    planned.ticks(request, goal, ctx);
    planned.checks(request, goal)?;
    planned.blockers(request, goal);
    planned.limits(request, goal);
    planned.tags(request, goal);
    for (edit, _) in request.record.changes(&goal.record) {
        let part = match &edit {
            Edit::Record(RecordField::Owner(owner)) => {
                format!("owner: {}", owner.as_deref().unwrap_or("none"))
            }
            Edit::Record(RecordField::Origin(origin)) => {
                format!("origin: {}", origin.as_deref().unwrap_or("none"))
            }
            Edit::Record(RecordField::Constraints(items)) => {
                format!("constraints: {}", items.join("; "))
            }
            Edit::Record(RecordField::NonGoals(items)) => {
                format!("non-goals: {}", items.join("; "))
            }
            Edit::Record(RecordField::Risks(items)) => format!("risks: {}", items.join("; ")),
            Edit::Record(RecordField::RunsOn(items)) => {
                format!("runs on: {}", items.join(", "))
            }
            Edit::Record(RecordField::Planning(planning)) => format!(
                "planning: {}",
                planning.map_or("as dispatch.plan says", Planning::as_str)
            ),
            _ => String::new(),
        };
        planned.edit(edit, part);
    }
    if let Some(label) = &request.label
        && *label != goal.label
    {
        planned.edit(
            Edit::Label(label.clone()),
            format!("label {} -> {label}", goal.label),
        );
    }
    let Planned { edits, parts } = planned;
    let (action, detail) = match (&request.note, parts.is_empty()) {
        (Some(note), true) => ("note", note.clone()),
        (Some(note), false) => ("updated", format!("{}; note: {note}", parts.join("; "))),
        (None, _) => ("updated", parts.join("; ")),
    };
    let mut change = GoalChange::new(action, detail).with_all(edits);
    if request.note.is_some() {
        change = change.always();
    }
    let written = tx.save(&loaded, change)?;
    let label = written
        .as_ref()
        .map_or_else(|| goal.label.clone(), |g| g.goal.label.clone());
    let mut saved = super::saved(tx, written, loaded)?;
    let policy = super::checking::policy(ctx);
    saved.notices.warnings.extend(
        request
            .verify
            .iter()
            .filter_map(|check| super::checking::never_passes(check, &policy))
            .map(|problem| {
                format!("`{label}`: {problem}; `steward doctor` lists it until it is fixed")
            }),
    );
    Ok(Updated { saved, parts })
}

/// The options of `request` that only a person may give
/// (steward-design(7), "An agent is judged, never the judge"): what changes
/// the objective (title, description, label, the criteria or the checks),
/// raises a budget or loosens a bound, or confirms.
fn person_only_options(request: &UpdateRequest, goal: &Goal) -> Vec<String> {
    let mut options: Vec<String> = request
        .record
        .changes(&goal.record)
        .into_iter()
        .map(|(_, option)| option)
        .collect();
    if request.title.as_ref().is_some_and(|t| *t != goal.title) {
        options.push("--title \"...\"".to_string());
    }
    if request
        .description
        .as_ref()
        .is_some_and(|d| d.trim() != goal.description)
    {
        options.push("--description \"...\"".to_string());
    }
    if request.label.as_ref().is_some_and(|l| *l != goal.label) {
        options.push(format!(
            "--label {}",
            request.label.as_deref().unwrap_or_default()
        ));
    }
    // The criteria and the checks are what the judge holds the goal to:
    // an agent adds none (a trivially true check would judge for it),
    // removes none and changes none.
    for criterion in &request.add_criteria {
        options.push(format!(
            "--add-criterion {}",
            crate::text::shell_word(criterion)
        ));
    }
    for n in sorted_unique(&request.remove_criteria) {
        options.push(format!("--remove-criterion {n}"));
    }
    for check in &request.verify {
        let tie = check
            .criterion
            .map_or_else(String::new, |n| format!("@{n}"));
        options.push(format!(
            "--verify {}",
            crate::text::shell_word(&format!("{}:{}{tie}", check.kind, check.target))
        ));
    }
    if request.clear_checks && !goal.verification.is_empty() {
        options.push("--clear-checks".to_string());
    }
    let budget = &goal.budget;
    let raised = |new: Option<u64>, old: u64| new.filter(|n| *n > old);
    if let Some(n) = raised(request.max_dispatches, budget.max_dispatches) {
        options.push(format!("--max-dispatches {n}"));
    }
    if let Some(n) = raised(request.max_assessments, budget.max_assessments) {
        options.push(format!("--max-assessments {n}"));
    }
    if let Some(cooldown) = request.cooldown.filter(|c| *c < budget.cooldown) {
        options.push(format!("--cooldown {cooldown}"));
    }
    // 0 turns escalation off: the loosest of all.
    if let Some(n) = request.escalate_after.filter(|n| {
        budget.escalate_after_failures != 0 && (*n == 0 || *n > budget.escalate_after_failures)
    }) {
        options.push(format!("--escalate-after {n}"));
    }
    let bounds = &goal.bounds;
    if let (Some(new), Some(old)) = (request.max_iterations, bounds.max_iterations)
        && new > old
    {
        options.push(format!("--max-iterations {new}"));
    }
    if let (Some(new), Some(old)) = (request.deadline, bounds.deadline)
        && new > old
    {
        options.push(format!("--deadline {}", crate::model::format_time(new)));
    }
    if let (Some(new), Some(old)) = (request.max_cost_usd, bounds.max_cost_usd)
        && new > old
    {
        options.push(format!("--max-cost-usd {new}"));
    }
    if request.confirmed && !goal.confirmed {
        options.push("--confirmed".to_string());
    }
    options
}

/// The edits an update makes, each with the phrase describing it.
#[derive(Default)]
struct Planned {
    edits: Vec<Edit>,
    parts: Vec<String>,
}

impl Planned {
    fn edit(&mut self, edit: Edit, part: impl Into<String>) {
        self.edits.push(edit);
        self.parts.push(part.into());
    }

    fn fields(&mut self, request: &UpdateRequest, goal: &Goal) {
        if let Some(title) = &request.title
            && *title != goal.title
        {
            self.edit(Edit::Title(title.clone()), "title changed");
        }
        if let Some(description) = &request.description
            && description.trim() != goal.description
        {
            self.edit(
                Edit::Description(description.clone()),
                "description changed",
            );
        }
        if let Some(priority) = &request.priority
            && *priority != goal.priority
        {
            self.edit(
                Edit::Priority(priority.clone()),
                format!("priority {} -> {priority}", goal.priority),
            );
        }
        if request.confirmed && !goal.confirmed {
            self.edit(Edit::Confirmed(true), "confirmed");
        }
    }

    fn criteria(&mut self, request: &UpdateRequest, goal: &Goal) -> Result<()> {
        let count = goal.criteria.len();
        let numbers = [
            (Input::Check, &request.check),
            (Input::Uncheck, &request.uncheck),
            (Input::RemoveCriterion, &request.remove_criteria),
        ];
        for (input, list) in numbers {
            if let Some(&n) = list.iter().find(|&&n| n == 0 || n > count) {
                return Err(Error::NoSuchCriterion {
                    input,
                    n,
                    label: goal.label.clone(),
                    count,
                });
            }
        }
        for (numbers, met) in [(&request.check, true), (&request.uncheck, false)] {
            for &n in numbers {
                if goal.criteria[n - 1].met != met {
                    let state = if met { "met" } else { "not met" };
                    self.edit(
                        Edit::CriterionMet { n, met },
                        format!("criterion {n} {state}"),
                    );
                }
            }
        }
        let removals = sorted_unique(&request.remove_criteria);
        for &n in removals.iter().rev() {
            self.edit(Edit::RemoveCriterion(n), format!("criterion {n} removed"));
        }
        if !removals.is_empty()
            && !goal.verification.is_empty()
            && request.verify.is_empty()
            && !request.clear_checks
        {
            // Checks tied to criteria follow their renumbering.
            let renumbered = renumber_checks(&goal.verification, &removals);
            if renumbered != goal.verification {
                self.edits.push(Edit::Verification(renumbered));
            }
        }
        for criterion in &request.add_criteria {
            self.edit(
                Edit::AddCriterion(criterion.clone()),
                format!("criterion added: {criterion}"),
            );
        }
        Ok(())
    }

    /// Who ticked what follows `--check`, `--uncheck` and removals.
    fn ticks(&mut self, request: &UpdateRequest, goal: &Goal, ctx: &Context) {
        let newly_met: Vec<usize> = request
            .check
            .iter()
            .copied()
            .filter(|&n| !goal.criteria[n - 1].met)
            .collect();
        let ticks = record_ticks(
            &goal.ticks,
            &newly_met,
            ctx.actor.as_str(),
            &format_time(ctx.now),
        );
        let ticks = forget_ticks(
            &ticks,
            &request.uncheck,
            &sorted_unique(&request.remove_criteria),
        );
        if ticks != goal.ticks {
            self.edits.push(Edit::Ticks(ticks));
        }
    }

    fn checks(&mut self, request: &UpdateRequest, goal: &Goal) -> Result<()> {
        if request.verify.is_empty() && !request.clear_checks {
            return Ok(());
        }
        let removals = sorted_unique(&request.remove_criteria);
        let final_count = goal.criteria.len() - removals.len() + request.add_criteria.len();
        let mut checks = if request.clear_checks {
            Vec::new()
        } else {
            renumber_checks(&goal.verification, &removals)
        };
        for check in &request.verify {
            check_criterion_in_range(check, final_count)?;
            checks.push(check.clone());
        }
        if checks != goal.verification {
            let part = format!("checks: {}", checks.len());
            self.edit(Edit::Verification(checks), part);
        }
        Ok(())
    }

    fn blockers(&mut self, request: &UpdateRequest, goal: &Goal) {
        match &request.blockers {
            Some(blockers) if blockers.is_empty() && !goal.blockers.is_empty() => {
                self.edit(Edit::Blockers(Vec::new()), "blockers cleared");
            }
            Some(blockers) if !blockers.is_empty() && *blockers != goal.blockers => {
                self.edit(
                    Edit::Blockers(blockers.clone()),
                    format!("blockers: {}", blockers.join("; ")),
                );
            }
            _ => {}
        }
    }

    fn limits(&mut self, request: &UpdateRequest, goal: &Goal) {
        let budget = &goal.budget;
        let numbers = [
            (
                "max_dispatches",
                request.max_dispatches,
                budget.max_dispatches,
                BudgetField::MaxDispatches as fn(u64) -> BudgetField,
            ),
            (
                "max_assessments",
                request.max_assessments,
                budget.max_assessments,
                BudgetField::MaxAssessments,
            ),
            (
                "escalate_after_failures",
                request.escalate_after,
                budget.escalate_after_failures,
                BudgetField::EscalateAfterFailures,
            ),
        ];
        for (key, new, old, field) in numbers {
            if let Some(new) = new
                && new != old
            {
                self.edit(
                    Edit::BudgetField(field(new)),
                    format!("{key} {old} -> {new}"),
                );
            }
        }
        if let Some(cooldown) = request.cooldown
            && cooldown != budget.cooldown
        {
            self.edit(
                Edit::BudgetField(BudgetField::Cooldown(cooldown)),
                format!("cooldown {} -> {cooldown}", budget.cooldown),
            );
        }
        let bounds = &goal.bounds;
        if let Some(n) = request.max_iterations
            && Some(n) != bounds.max_iterations
        {
            self.edit(
                Edit::Bound(BoundField::MaxIterations(n)),
                format!("max_iterations {n}"),
            );
        }
        if let Some(deadline) = request.deadline
            && Some(deadline) != bounds.deadline
        {
            self.edit(
                Edit::Bound(BoundField::Deadline(deadline)),
                format!("deadline {}", crate::model::format_time(deadline)),
            );
        }
        if let Some(usd) = request.max_cost_usd
            && Some(usd) != bounds.max_cost_usd
        {
            self.edit(
                Edit::Bound(BoundField::MaxCostUsd(usd)),
                format!("max_cost_usd {usd}"),
            );
        }
    }

    fn tags(&mut self, request: &UpdateRequest, goal: &Goal) {
        let mut tags = goal.tags.clone();
        tags.retain(|t| !request.untags.contains(t));
        for tag in &request.tags {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
        if tags != goal.tags {
            let shown = if tags.is_empty() {
                "none".to_string()
            } else {
                tags.join(", ")
            };
            self.edit(Edit::Tags(tags), format!("tags: {shown}"));
        }
    }
}

fn sorted_unique(numbers: &[usize]) -> Vec<usize> {
    let mut numbers = numbers.to_vec();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// Checks after criteria `removed` (ascending) are gone: later numbers move
/// down; a check whose criterion was removed is no longer tied to one.
fn renumber_checks(checks: &[Check], removed: &[usize]) -> Vec<Check> {
    checks
        .iter()
        .map(|check| {
            let criterion = check.criterion.and_then(|n| {
                if removed.contains(&n) {
                    None
                } else {
                    Some(n - removed.iter().filter(|r| **r < n).count())
                }
            });
            Check {
                criterion,
                ..check.clone()
            }
        })
        .collect()
}
