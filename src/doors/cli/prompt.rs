//! `steward prompt`: what the agent reads on its turn.

use crate::exit::ExitCode;
use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::{self, PromptOutcome, PromptRequest, Turn};
use crate::error::{Error, Result};

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

    /// Exit 0 when the output asks the agent to work, 3 when nothing is
    /// workable and a goal waits for a person, 5 when there is nothing to
    /// do now (for loops: see steward-design(7))
    #[arg(long)]
    exit_status: bool,
}

pub fn run(ctx: &Context, args: PromptArgs, out: &mut Output) -> Result<ExitCode> {
    if !ctx.config.enabled {
        return Ok(if args.exit_status {
            ExitCode::Idle
        } else {
            ExitCode::Success
        });
    }
    let turn = match args.message {
        _ if args.heartbeat => Turn::Heartbeat,
        Some(message) => Turn::Message(read_message(message)?),
        None => Turn::Ordinary,
    };
    let outcome = engine::prompt(
        ctx,
        &PromptRequest {
            turn,
            max_chars: args.max_chars,
        },
    )?;
    for warning in &outcome.warnings {
        out.warn(warning.clone());
    }
    let code = if args.exit_status {
        outcome.status.exit_code()
    } else {
        ExitCode::Success
    };
    let PromptOutcome {
        heartbeat,
        text,
        offered,
        waiting,
        attention,
        notices,
        ..
    } = outcome;
    super::notices(out, notices);
    if !out.json {
        out.text(&text);
    } else if heartbeat {
        out.json(&json!({
            "schema_version": SCHEMA_VERSION,
            "heartbeat": true,
            "offered": offered,
            "waiting": waiting,
            "attention": attention,
            "text": text,
        }));
    } else {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "heartbeat": false, "text": text}));
    }
    Ok(code)
}

/// The message as given, or read from stdin for "-".
fn read_message(message: OsString) -> Result<String> {
    if message != "-" {
        return Ok(message.to_string_lossy().into_owned());
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_MESSAGE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::io(Path::new("-"), "cannot read the message from stdin", err))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
