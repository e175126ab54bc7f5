//! `steward audit`: the event log as JSON lines.

use crate::exit::ExitCode;
use clap::Args;
use serde::Serialize;

use super::{Output, args};
use crate::context::Context;
use crate::engine::{self, history::AuditRequest};
use crate::error::Result;
use crate::store::events::Event;

/// Print the event log as JSON lines {ts, goal_id, label, actor, action,
/// from, to, detail}, oldest first.
///
/// --redact drops every free-text field (label and detail, which carry
/// titles, summaries, blockers and reasons), so that the output can leave
/// the machine: what remains is ids, actors, actions, statuses and times.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only events of this goal (a label, an id, or an id prefix)
    #[arg(long)]
    goal: Option<String>,

    /// Only events at or after this time (RFC 3339, a date, or a duration
    /// back from now such as 24h)
    #[arg(long, value_name = "TIME")]
    since: Option<String>,

    /// Drop free text
    #[arg(long)]
    redact: bool,
}

pub fn run(ctx: &Context, args: AuditArgs, out: &mut Output) -> Result<ExitCode> {
    let since = args
        .since
        .as_deref()
        .map(|text| args::since_time(ctx.now, text))
        .transpose()?;
    if since.is_none() {
        // The whole log can be larger than memory: printed as it is read.
        out.stream();
    }
    let request = AuditRequest {
        goal: args.goal,
        since,
    };
    engine::history::audit(ctx, &request, |event| {
        let line = if args.redact {
            serde_json::to_string(&Redacted::from(event))
        } else {
            serde_json::to_string(event)
        };
        out.line(line.expect("events serialize"));
    })?;
    // Lines that are no event are passed over, and named here.
    let unreadable = ctx.store.log().unreadable_lines()?;
    for problem in &unreadable {
        out.warn(problem.to_string());
    }
    Ok(if unreadable.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}

/// An event without free text, fields in the log's order.
#[derive(Serialize)]
struct Redacted<'e> {
    ts: &'e str,
    goal_id: &'e str,
    actor: &'e str,
    action: &'e str,
    from: Option<&'e str>,
    to: Option<&'e str>,
    #[serde(rename = "override", skip_serializing_if = "std::ops::Not::not")]
    overridden: bool,
}

impl<'e> From<&'e Event> for Redacted<'e> {
    fn from(event: &'e Event) -> Self {
        Redacted {
            ts: &event.ts,
            goal_id: &event.goal_id,
            actor: &event.actor,
            action: &event.action,
            from: event.from.as_deref(),
            to: event.to.as_deref(),
            overridden: event.overridden,
        }
    }
}
