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
/// With --machine, trusts another machine of the store instead: what it
/// signs (its changes, pulled with git) is taken as steward's here from
/// now on. Its key is in state/machines/NAME.pub, which it wrote at its
/// first steward command; run this once on each machine it shares the
/// store with.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// A label, an id, or at least 4 characters of an id (or the label of
    /// a goal whose file was removed)
    #[arg(required_unless_present = "machine")]
    goal: Option<String>,

    /// Why, for the history line
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,

    /// Trust the key machine NAME published in the store
    #[arg(long, value_name = "NAME", conflicts_with_all = ["goal", "note"])]
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
    let goal = args.goal.as_deref().unwrap_or_default();
    match trust::accept(ctx, goal, args.note.as_deref())? {
        Accepted::Goal(saved) => super::report(ctx, out, saved, "accepted as it is")?,
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
    Ok(ExitCode::Success)
}
