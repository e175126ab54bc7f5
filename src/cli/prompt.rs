//! `steward prompt`: what the agent reads on its turn.

use std::ffi::OsString;
use std::io::Read;

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::Goal;
use crate::stewardship::heartbeat::HeartbeatPatterns;
use crate::stewardship::render::{char_len, pending_block, summary_lines};
use crate::stewardship::select::Rotation;
use crate::stewardship::{self, Composition};
use crate::store::Scope;

/// The most of a message read from stdin.
const MAX_MESSAGE_BYTES: u64 = 16 << 20;

/// Print the stewardship block for the agent's turn.
///
/// On a heartbeat (--heartbeat, or a --message that matches
/// heartbeat_patterns) it offers the goals due for work, each in a
/// <goal-stewardship> block with the exact `steward assess` and `steward
/// complete` commands, and lists the goals that need a human. Output is
/// empty when there is nothing to do, so the caller can skip the model
/// call. Otherwise it prints one line per open goal. The output never
/// exceeds multi_goal_max_chars (or --max-chars). Goals take turns: each
/// call moves the offered goals to the back of the queue. On every turn a
/// <pending-obligations> block lists what spawned subagents owe.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The user's last message of this turn ("-" reads it from stdin)
    #[arg(long, value_name = "TEXT", conflicts_with = "heartbeat", value_parser = clap::value_parser!(OsString))]
    message: Option<OsString>,

    /// Treat this turn as a heartbeat
    #[arg(long)]
    heartbeat: bool,

    /// Cap on the characters printed [default: multi_goal_max_chars]
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
}

pub fn run(ctx: &Context, args: PromptArgs, out: &mut Output) -> Result<u8> {
    if !ctx.config.enabled {
        return Ok(0);
    }
    let max_chars = args
        .max_chars
        .unwrap_or(ctx.config.multi_goal_max_chars as usize);
    let heartbeat = args.heartbeat || is_heartbeat(ctx, args.message)?;
    let scan = ctx.store.scan(Scope::Open)?;
    for problem in &scan.problems {
        out.warn(problem.to_string());
    }
    let open: Vec<&Goal> = scan.goals.iter().map(|g| &g.goal).collect();
    let book = ctx.store.obligations()?;
    // What subagents owe is shown on every turn, heartbeat or not.
    let pending = pending_block(&book, ctx.now, max_chars);
    if !heartbeat {
        let mut text = summary_lines(&open, max_chars.saturating_sub(char_len(&pending)));
        text.push_str(&pending);
        if ctx.json {
            out.json(&json!({"schema_version": SCHEMA_VERSION, "heartbeat": false, "text": text}));
        } else {
            out.stdout.push_str(&text);
        }
        return Ok(0);
    }
    let rotation_path = ctx.store.state_dir.join("rotation.json");
    let mut rotation = read_rotation(&rotation_path, out);
    let composition = stewardship::compose(
        &open,
        &book,
        &ctx.config,
        ctx.now,
        &rotation,
        max_chars,
        &pending,
    );
    if !composition.offered.is_empty() {
        let mut tx = ctx.transaction()?;
        // Another prompt may have advanced it meanwhile: start from the file.
        rotation = read_rotation(&rotation_path, out);
        rotation.advance(&composition.offered, &open);
        tx.write_file(
            &rotation_path,
            &(serde_json::to_string(&rotation).expect("rotation serializes") + "\n"),
        )?;
        super::finish(tx, out)?;
    }
    if ctx.json {
        out.json(&document(&composition));
    } else {
        out.stdout.push_str(&composition.text);
    }
    Ok(0)
}

fn is_heartbeat(ctx: &Context, message: Option<OsString>) -> Result<bool> {
    let Some(message) = message else {
        return Ok(false);
    };
    let text = if message == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_MESSAGE_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|err| Error::failure(format!("cannot read the message from stdin: {err}")))?;
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        message.to_string_lossy().into_owned()
    };
    Ok(HeartbeatPatterns::compile(&ctx.config.heartbeat_patterns).matches(&text))
}

/// The rotation so far; a file steward cannot read starts it over.
fn read_rotation(path: &std::path::Path, out: &mut Output) -> Rotation {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).unwrap_or_else(|err| {
            out.warn(format!(
                "{}: {err}; the rotation starts over",
                path.display()
            ));
            Rotation::default()
        }),
        Err(_) => Rotation::default(),
    }
}

fn document(composition: &Composition<'_>) -> serde_json::Value {
    let labels = |goals: &[&Goal]| goals.iter().map(|g| g.label.clone()).collect::<Vec<_>>();
    json!({
        "schema_version": SCHEMA_VERSION,
        "heartbeat": true,
        "offered": labels(&composition.offered),
        "waiting": labels(&composition.waiting),
        "attention": labels(&composition.attention),
        "text": composition.text,
    })
}
