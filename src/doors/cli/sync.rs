//! `steward sync`: share the store through its git remote.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::sync;
use crate::error::Result;

/// Share the store through its git remote (git.remote): commit what
/// steward owns, pull, render the mirror's block again, push, and pull
/// again when the push is rejected. Two machines that changed the same
/// goal stop the pull: nothing is merged or lost, both versions are kept
/// under state/conflicts/, and sync exits 3 naming the files. Goals
/// changed outside steward are recorded and held for a person before the
/// commit (exit 3); goals the merge changed are taken as steward's: the
/// remote is trusted.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Pull only
    #[arg(long)]
    no_push: bool,
}

pub fn run(ctx: &Context, args: SyncArgs, out: &mut Output) -> Result<ExitCode> {
    let synced = sync::sync(ctx, !args.no_push)?;
    if out.json {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "remote": synced.remote,
            "branch": synced.branch,
            "committed": synced.committed,
            "pulled": synced.pulled,
            "regenerated": synced.regenerated,
            "pushed": synced.pushed,
            "retries": synced.retries,
            "held": synced.held,
        }));
    } else if !out.quiet {
        let mut parts = Vec::new();
        if synced.committed {
            parts.push("committed the store's changes".to_string());
        }
        parts.push(match synced.pulled {
            0 => "nothing to pull".to_string(),
            1 => "pulled 1 commit".to_string(),
            n => format!("pulled {n} commits"),
        });
        if synced.regenerated {
            parts.push("rendered the mirror again".to_string());
        }
        if synced.pushed {
            parts.push(match synced.retries {
                0 => "pushed".to_string(),
                n => format!("pushed after {n} rejected push(es)"),
            });
        }
        out.line(format!(
            "{}/{}: {}",
            synced.remote,
            synced.branch,
            parts.join(", ")
        ));
    }
    if !out.json {
        super::replies::print_taken(out, &synced.answers);
    }
    for label in &synced.held {
        out.warn(format!(
            "{label}: changed outside steward; recorded, and held for a person (steward show {label}, then steward accept {label})"
        ));
    }
    Ok(if synced.held.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::Attention
    })
}
