//! `steward accept`: a person has looked at what changed outside steward.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::trust::{self, Accepted};
use crate::error::Result;

/// Accept a goal as it now is, after looking at what changed outside
/// steward (a hand edit, a file put in place, a plain `git pull`): the
/// goal stops waiting for a person and agents may work on it again. For a
/// goal whose file was removed outside steward, lets it go and frees its
/// label. A person's other commands on a goal accept it too; this one
/// changes nothing else.
///
/// A command check that reached the goal another way than a person's add,
/// update, edit or accept on this machine — a pull, a file written by
/// hand or by an agent — does not run here until a person accepts it:
/// this shows each such command and accepts it.
///
/// Several goals may be named; --all takes every open goal that waits for
/// this (a folder of goal files written by hand or restored), showing
/// what each holds as it takes it. One that cannot be accepted is said
/// and the others are still taken.
///
/// With --machine, trusts another machine of the store instead: what it
/// signs (its changes, pulled with git) is taken as steward's here from
/// now on. Its key is in state/machines/NAME.pub, which it wrote at its
/// first steward command; run this once on each machine it shares the
/// store with.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// Labels, ids, or at least 4 characters of an id (or the label of a
    /// goal whose file was removed)
    #[arg(required_unless_present_any = ["machine", "all"])]
    goals: Vec<String>,

    /// Every open goal changed or put in place outside steward, or holding
    /// command checks no person here accepted
    #[arg(long, conflicts_with_all = ["goals", "machine"])]
    all: bool,

    /// Why, for the history line
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,

    /// Trust the key machine NAME published in the store
    #[arg(long, value_name = "NAME", conflicts_with_all = ["goals", "note"])]
    machine: Option<String>,
}

pub fn run(ctx: &Context, args: AcceptArgs, out: &mut Output) -> Result<ExitCode> {
    if let Some(machine) = &args.machine {
        let public = trust::trust_machine(ctx, machine)?;
        if out.json {
            out.json(
                &json!({"schema_version": SCHEMA_VERSION, "trusted": machine, "key": public.hex()}),
            );
        } else if !out.quiet {
            out.line(format!(
                "{machine}: trusted on this machine (key {}…): its signed changes are steward's here",
                &public.hex()[..16]
            ));
        }
        return Ok(ExitCode::Success);
    }
    let goals = if args.all {
        trust::awaiting_acceptance(ctx)?
    } else {
        args.goals
    };
    if goals.is_empty() {
        if !out.quiet && !out.json {
            out.line("nothing waits for a person's acceptance");
        }
        return Ok(ExitCode::Success);
    }
    let many = goals.len() > 1;
    let mut failed = None;
    for goal in &goals {
        let accepted = trust::accept(ctx, goal, args.note.as_deref())
            .and_then(|accepted| print(ctx, accepted, many, out));
        match accepted {
            Ok(()) => {}
            // One that cannot be taken is said; the others are taken.
            Err(err) if many => {
                out.warn(format!("{goal}: {}", super::message(&err)));
                failed.get_or_insert(err.exit_code());
            }
            Err(err) => return Err(err),
        }
    }
    Ok(failed.unwrap_or(ExitCode::Success))
}

/// What one acceptance did; with `shown`, what the goal holds (a person
/// taking many at once sees each).
fn print(ctx: &Context, accepted: Accepted, shown: bool, out: &mut Output) -> Result<()> {
    match accepted {
        Accepted::Goal(saved) => {
            let goal = saved.goal.goal.clone();
            super::report(ctx, out, saved, "accepted as it is")?;
            if shown && !out.quiet && !out.json {
                holds(&goal, out);
            }
        }
        Accepted::Vanished(seal, notices) => {
            super::notices(out, notices);
            if out.json {
                out.json(&json!({"schema_version": SCHEMA_VERSION, "accepted": "deleted", "label": seal.label, "id": seal.id}));
            } else if !out.quiet {
                out.line(format!(
                    "{}: the removal of goal {} is accepted; the label is free",
                    seal.label, seal.id
                ));
            }
        }
        Accepted::Commands(loaded, commands, notices) => {
            super::notices(out, notices);
            if out.json {
                out.json(&json!({"schema_version": SCHEMA_VERSION, "accepted": "commands", "label": loaded.goal.label, "commands": commands}));
            } else if !out.quiet {
                out.line(format!(
                    "{}: its command checks run on this machine from now on:",
                    loaded.goal.label
                ));
                for command in &commands {
                    out.line(format!("  {command}"));
                }
            }
        }
        Accepted::Nothing(loaded) => {
            if out.json {
                let document = super::render::goal_document(ctx, &loaded)?;
                out.json(&document);
            } else if !out.quiet {
                out.line(format!(
                    "{}: nothing waits for a person's review",
                    loaded.goal.label
                ));
            }
        }
    }
    Ok(())
}

/// What a goal accepted holds: its title and criteria, its checks, and
/// any value steward does not know.
fn holds(goal: &crate::model::Goal, out: &mut Output) {
    out.line(format!(
        "  {} — {}, {}, priority {}",
        goal.title,
        crate::text::count(goal.criteria.len(), "criterion", "criteria"),
        crate::text::count(goal.verification.len(), "check", "checks"),
        goal.priority
    ));
    for check in &goal.verification {
        out.line(format!("  check {} {}", check.kind, check.target));
    }
    for (_, problem) in crate::engine::unknown_values(goal) {
        out.line(format!("  problem: {problem}"));
    }
}
