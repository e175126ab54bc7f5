//! `add`: register a goal (seed tool `goal_register`).

use super::Saved;
use crate::context::Context;
use crate::error::{Error, Input, Result};
use crate::model::{Actor, Bounds, Budget, Check, Edit, GoalChange, Priority, Status};
use crate::store::seal::Place;

/// A new goal as the caller describes it; `None` takes the configured
/// default.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    pub label: String,
    pub title: String,
    pub description: Option<String>,
    pub criteria: Vec<String>,
    pub priority: Option<Priority>,
    pub checks: Vec<Check>,
    pub max_dispatches: Option<u64>,
    pub max_assessments: Option<u64>,
    pub cooldown: Option<crate::model::duration::HumanDuration>,
    pub escalate_after: Option<u64>,
    pub bounds: Bounds,
    pub confirmed: bool,
    pub tags: Vec<String>,
    /// Owner, origin, constraints, non-goals, risks.
    pub record: crate::model::Record,
}

/// Registers the goal. A goal whose priority needs a person's confirmation
/// is added unconfirmed unless a person says `confirmed`. Refused (exit 4)
/// when an agent claims the confirmation, the store requires bounds it
/// lacks, its label is taken or too many goals are open.
pub fn add(ctx: &Context, request: &AddRequest) -> Result<Saved> {
    let priority = request
        .priority
        .clone()
        .unwrap_or_else(|| ctx.config.defaults.priority.clone());
    if request.criteria.is_empty() {
        return Err(Error::bad_input(
            Input::Criterion,
            "a goal needs at least one acceptance criterion",
        ));
    }
    if let Some(description) = &request.description {
        crate::store::body::check_description(description)
            .map_err(|why| Error::bad_input(Input::Description, why))?;
    }
    for check in &request.checks {
        super::check_criterion_in_range(check, request.criteria.len())?;
    }
    if let Some(deadline) = request.bounds.deadline
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
    if ctx.config.requires_bounds && request.bounds.is_empty() {
        return Err(Error::BoundsRequired);
    }
    // Where a person must confirm, an agent's --confirmed is refused and
    // a goal an agent adds without it waits, unconfirmed, for `steward
    // confirm`; a person is asked to say --confirmed.
    let needs_confirmation = ctx.config.require_confirmation_for.contains(&priority);
    if needs_confirmation && request.confirmed {
        super::authority::person_only(ctx, &format!("confirm a {priority} goal"), || {
            format!("steward confirm {}", request.label)
        })?;
    }
    if needs_confirmation && !request.confirmed && ctx.actor == Actor::User {
        return Err(Error::NeedsConfirmation {
            what: format!("a {priority} goal"),
            by_person: true,
        });
    }
    let confirmed = !needs_confirmation || request.confirmed;

    let mut tx = ctx.transaction()?;
    // Goals live under their label's name, so the label is checked by file
    // name (`doctor` reports a file whose label differs from its name).
    let path = ctx.store.open_path(&request.label);
    if path.symlink_metadata().is_ok() {
        match ctx.store.load(&path) {
            // A goal closed by hand still sits under its open name: move it aside.
            Ok(existing) if existing.goal.status.is_terminal() => tx.archive(&existing)?,
            Ok(_) => {
                return Err(Error::LabelTaken {
                    label: request.label.clone(),
                    at: Some(ctx.store.relative(&path)),
                    hint: "choose another label, or complete or abandon that goal first",
                });
            }
            Err(problem) => {
                return Err(Error::LabelUnreadable {
                    label: request.label.clone(),
                    problem,
                });
            }
        }
    }
    // A label whose goal vanished outside steward is not an agent's to
    // take; a person who takes it lets that goal go, on the record.
    if let Some(vanished) = super::trust::refuse_vanished_label(ctx, &request.label)? {
        if ctx
            .store
            .seal_of_label(Place::Open, &request.label)?
            .is_ok_and(|s| s.is_some())
        {
            tx.record_vanished(&vanished)?;
        }
        tx.forget_vanished(
            &vanished,
            &format!(
                "a person reused the label of goal {}, whose file was removed outside steward",
                vanished.id
            ),
        )?;
    }
    let limit = ctx.config.global_limits.max_active_goals;
    let counted = tx.store().count_open(limit)?;
    if counted.open >= limit {
        return Err(Error::TooManyGoals {
            open: counted.open,
            limit,
        });
    }

    let change = new_goal(ctx, request, &priority, confirmed);
    let written = tx.create(&path, change)?;
    tx.store().count_added(&counted);
    let mut notices = super::finish(tx)?;
    let policy = super::checking::policy(ctx);
    notices.warnings.extend(
        request
            .checks
            .iter()
            .filter_map(|check| super::checking::never_passes(check, &policy))
            .map(|problem| {
                format!(
                    "`{}`: {problem}; `steward doctor` lists it until it is fixed",
                    request.label
                )
            }),
    );
    if !request.checks.iter().any(|c| c.criterion.is_some()) {
        notices.warnings.push(format!(
            "no criterion of `{}` has a check: each rests on the agent's word; tie a check (TYPE:TARGET@N) to one",
            request.label
        ));
    }
    Ok(Saved {
        goal: written,
        changed: true,
        notices,
    })
}

fn new_goal(
    ctx: &Context,
    request: &AddRequest,
    priority: &Priority,
    confirmed: bool,
) -> GoalChange {
    let defaults = &ctx.config.defaults;
    let budget = Budget {
        max_dispatches: request.max_dispatches.unwrap_or(defaults.max_dispatches),
        max_assessments: request.max_assessments.unwrap_or(defaults.max_assessments),
        cooldown: request.cooldown.unwrap_or(defaults.cooldown),
        escalate_after_failures: request
            .escalate_after
            .unwrap_or(defaults.escalate_after_failures),
    };
    let mut change = GoalChange::new(
        "created",
        format!(
            "priority {priority}, {}",
            crate::text::count(request.criteria.len(), "criterion", "criteria")
        ),
    )
    .with(Edit::Id(uuid::Uuid::new_v4().to_string()))
    .with(Edit::Label(request.label.clone()))
    .with(Edit::Title(request.title.clone()))
    .with(Edit::Status(Status::Active))
    .with(Edit::Priority(priority.clone()))
    .with(Edit::Confirmed(confirmed));
    if !request.tags.is_empty() {
        change.push(Edit::Tags(request.tags.clone()));
    }
    change
        .edits
        .extend(super::update::RecordUpdate::from(&request.record).edits(&Default::default()));
    change.push(Edit::CreatedAt(ctx.now));
    change.push(Edit::UpdatedAt(ctx.now));
    change.push(Edit::Verification(request.checks.clone()));
    change.push(Edit::Budget(budget));
    if !request.bounds.is_empty() {
        change.push(Edit::Bounds(request.bounds.clone()));
    }
    change.push(Edit::FreshProgress);
    change.push(Edit::Blockers(Vec::new()));
    change.push(Edit::Description(
        request.description.clone().unwrap_or_default(),
    ));
    change.with_all(request.criteria.iter().cloned().map(Edit::AddCriterion))
}
