//! `steward init`: create the configuration and the goal directory.

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::{SCHEMA_VERSION, relative};
use crate::config::{Config, FILE_NAME};
use crate::context::Context;
use crate::error::{Error, Result};

/// Create steward.yaml (every key, commented, with its default) and
/// state/goals/ in the working directory, or in the root given with -C.
/// Running it again creates only what is missing.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also create a git repository (unless the root is already inside one)
    /// and mark the event log `merge=union` in .gitattributes
    #[arg(long)]
    git: bool,
}

/// Lines steward needs in files it shares with the user; appended when
/// missing, never rewritten.
const STATE_IGNORE: &str = "# runtime state of this machine, not history: the lock, the prompt rotation,\n# obligations of running subagents and unsaved edits\nlock\nrotation.json\nobligations.json\nedits/\n";
const EVENT_LOG_ATTRIBUTE: &str = "state/events.jsonl merge=union";

pub fn run(ctx: &Context, args: InitArgs, out: &mut Output) -> Result<u8> {
    let mut created = Vec::new();
    let mut tx = ctx.transaction()?;
    let config_path = ctx.store.root.join(FILE_NAME);
    if !config_path.exists() {
        tx.write_file(&config_path, &Config::template())?;
        created.push(relative(ctx, &config_path));
    }
    let goals_dir = &ctx.store.goals_dir;
    if !goals_dir.is_dir() {
        std::fs::create_dir_all(goals_dir)
            .map_err(|err| Error::io(goals_dir, "cannot create directory", err))?;
        created.push(format!("{}/", relative(ctx, goals_dir)));
    }
    let ignore = ctx.store.state_dir.join(".gitignore");
    if !ignore.exists() {
        tx.write_file(&ignore, STATE_IGNORE)?;
        created.push(relative(ctx, &ignore));
    }
    if args.git {
        if crate::git::ensure_repository(&ctx.root)? {
            created.push(".git/".to_string());
        }
        let attributes = ctx.store.root.join(".gitattributes");
        let existing = match std::fs::read_to_string(&attributes) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(Error::io(&attributes, "cannot read", err)),
        };
        if !existing
            .lines()
            .any(|line| line.trim() == EVENT_LOG_ATTRIBUTE)
        {
            let separator = if existing.is_empty() || existing.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            tx.write_file(
                &attributes,
                &format!("{existing}{separator}{EVENT_LOG_ATTRIBUTE}\n"),
            )?;
            created.push(relative(ctx, &attributes));
        }
    }
    super::finish(tx, out)?;

    if ctx.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "root": ctx.root.display().to_string(), "created": created}));
    } else if !ctx.quiet {
        if created.is_empty() {
            out.line(format!(
                "steward is already set up in {}",
                ctx.root.display()
            ));
        } else {
            out.line(format!("Set up steward in {}", ctx.root.display()));
            for path in &created {
                out.line(format!("  created {path}"));
            }
            out.line("Next: steward add LABEL --title TITLE --criterion WHAT-DONE-MEANS");
        }
    }
    Ok(0)
}
