//! `steward fleet`: the machines that share this store, as their records
//! say — each one's last pass, its run slots, its agents and their usage
//! limits, what it runs now — stale machines first.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::fleet::{self, Seen};
use crate::error::Result;

/// List the machines that share this store (steward-guide(7), "A FLEET OF
/// MACHINES"): each one's last pass, its free run slots, its agents (usable
/// here, limited until when) and what it runs now. A machine with no pass
/// for fleet.stale_after comes first, marked stale; a record this machine
/// cannot verify is marked so and counts for nothing.
#[derive(Debug, Args)]
pub struct FleetArgs {}

pub fn run(ctx: &Context, _args: FleetArgs, out: &mut Output) -> Result<ExitCode> {
    let fleet = fleet::read(ctx);
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "machines": fleet.machines.iter().map(|seen| {
                let c = &seen.record.capacity;
                json!({
                    "machine": c.machine, "this": seen.this, "pass": seen.record.pass,
                    "stale": seen.stale, "verified": seen.verified, "tags": c.tags,
                    "dispatch": c.dispatch, "slots": c.slots, "free": c.free(),
                    "running": c.running, "agents": c.agents, "available": c.available,
                    "sleeps_at": c.sleeps_at, "wakes_at": c.wakes_at,
                })
            }).collect::<Vec<_>>(),
        }));
        return Ok(ExitCode::Success);
    }
    if fleet.machines.is_empty() {
        out.line(if fleet::shared(ctx) {
            "no machine has published a record yet: each `tick` publishes its own"
        } else {
            "this store is not shared with other machines (no other machine's key under state/machines/, dispatch.claim is not git)"
        });
        return Ok(ExitCode::Success);
    }
    for seen in &fleet.machines {
        out.line(line(seen));
    }
    Ok(ExitCode::Success)
}

/// One machine, as `fleet` and `status` show it.
pub fn line(seen: &Seen) -> String {
    let marks = marks(seen);
    let marks = if marks.is_empty() {
        String::new()
    } else {
        format!(" ({})", marks.join(", "))
    };
    format!("{}{marks}: {}", seen.record.capacity.machine, details(seen))
}

/// What sets a machine apart: this one, stale, unverified, not dispatching.
pub fn marks(seen: &Seen) -> Vec<&'static str> {
    let mut marks = Vec::new();
    if seen.this {
        marks.push("this machine");
    }
    if seen.stale {
        marks.push("STALE");
    }
    if !seen.verified {
        marks.push("UNVERIFIED: counts for nothing");
    }
    if !seen.record.capacity.dispatch {
        marks.push("dispatch off");
    }
    marks
}

/// A machine's last pass, slots, agents, tags, windows and runs.
pub fn details(seen: &Seen) -> String {
    let c = &seen.record.capacity;
    let agents: Vec<String> = (c.agents.iter())
        .map(|a| match (&a.limited_until, a.usable) {
            (_, false) => format!("{} not usable", a.name),
            (Some(until), true) => format!("{} limited until {until}", a.name),
            (None, true) => format!("{} ok", a.name),
        })
        .collect();
    let mut text = format!(
        "last pass {}, {}/{} slots free, agents: {}",
        seen.record.pass,
        c.free(),
        c.slots,
        agents.join(", ")
    );
    if !c.tags.is_empty() {
        text.push_str(&format!(", tags: {}", c.tags.join(", ")));
    }
    if let Some(at) = &c.sleeps_at {
        text.push_str(&format!(", sleeps at {at}"));
    }
    if let Some(at) = &c.wakes_at {
        text.push_str(&format!(", asleep until {at}"));
    }
    if !c.running.is_empty() {
        text.push_str(&format!("; runs {}", c.running.join(", ")));
    }
    text
}
