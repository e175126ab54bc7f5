//! `steward replies`: the answers notifications offered, and what became
//! of each; and how `tick` and `sync` say the answers they took.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::reply::{self, Fate, Taken};
use crate::error::Result;

/// List the answers notifications offered (steward-guide(7), "ANSWERING
/// FROM THE PHONE"): each one's act, goal and expiry, and whether it is
/// still open, was applied, refused, or expired; then answers refused that
/// no offer explains (forged, edited, or another machine's).
#[derive(Debug, Args)]
pub struct RepliesArgs {
    /// How far back (a duration such as 24h or 7d)
    #[arg(long, value_name = "PERIOD", default_value = "7d", value_parser = super::args::duration)]
    since: crate::model::duration::HumanDuration,
}

pub fn run(ctx: &Context, args: RepliesArgs, out: &mut Output) -> Result<ExitCode> {
    let since = ctx.now - chrono::Duration::seconds(args.since.as_secs() as i64);
    let reply::Listing {
        offered: listed,
        strays,
    } = reply::list(ctx, &crate::model::format_time(since))?;
    if out.json {
        let fate = |fate: &Fate| match fate {
            Fate::Open => json!({"state": "open"}),
            Fate::Applied(what) => json!({"state": "applied", "what": what}),
            Fate::Refused(why) => json!({"state": "refused", "why": why}),
            Fate::Expired => json!({"state": "expired"}),
        };
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "offered": listed.iter().map(|l| json!({
                "nonce": l.nonce, "act": l.act, "goal": l.label,
                "issued": l.issued, "expires": l.expires, "fate": fate(&l.fate),
            })).collect::<Vec<_>>(),
            "refused": strays.iter().map(|(at, detail)| json!({"at": at, "detail": detail})).collect::<Vec<_>>(),
        }));
        return Ok(ExitCode::Success);
    }
    if listed.is_empty() && strays.is_empty() {
        out.line("no answers offered or taken since then");
    }
    for l in &listed {
        let fate = match &l.fate {
            Fate::Open => format!("open until {}", l.expires),
            Fate::Applied(what) => format!("applied: {what}"),
            Fate::Refused(why) => format!("refused: {why}"),
            Fate::Expired => format!("expired at {}", l.expires),
        };
        out.line(format!(
            "{}  {} {}  {fate}  ({})",
            l.issued,
            l.act,
            l.label,
            &l.nonce[..8.min(l.nonce.len())]
        ));
    }
    for (at, detail) in &strays {
        out.line(format!("{at}  refused: {detail}"));
    }
    Ok(ExitCode::Success)
}

/// What `tick` and `sync` say of the answers they took: each is taken
/// once, so each is told whatever -q asks.
pub fn print_taken(out: &mut Output, taken: &Taken) {
    for line in &taken.applied {
        out.line(format!("answer from the phone applied: {line}"));
    }
    for (reply, why) in &taken.refused {
        out.warn(format!("answer from the phone refused: {reply}: {why}"));
    }
    for warning in &taken.warnings {
        out.warn(warning.clone());
    }
}
