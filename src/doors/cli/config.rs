//! `steward config`: the effective configuration and where each value came
//! from.

use crate::exit::ExitCode;
use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::Result;

/// Show every setting's effective value and its source: default, the file
/// and line, an environment variable (STEWARD_<KEY>, dots as underscores), or
/// a flag. Precedence: flags > environment > state/local/steward.yaml (this
/// machine's own) > steward.yaml > defaults.
///
/// The configuration is a person's: a change to steward.yaml or
/// state/local/steward.yaml that loosens anything (a limit, a judge rule,
/// confirmation, what runs, where data lives, whom to trust) takes effect
/// only once a person on this machine accepted it: `steward config
/// accept` shows what changed and accepts it. A change that only tightens
/// counts at once, and `tick` records it.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    action: Option<ConfigAction>,
}

#[derive(Debug, clap::Subcommand)]
enum ConfigAction {
    /// Accept what the configuration files say now (after a pull, or an
    /// edit), showing what changed
    Accept,
}

pub fn run(ctx: &Context, args: ConfigArgs, out: &mut Output) -> Result<ExitCode> {
    if let Some(ConfigAction::Accept) = args.action {
        return accept(ctx, out);
    }
    let entries = &ctx.config_sources.entries();
    for ignored in &ctx.ignored_env {
        out.warn(ignored.to_string());
    }
    for warning in [
        crate::engine::trust::broken_config_warning(ctx),
        crate::engine::trust::held_config_warning(ctx),
    ]
    .into_iter()
    .flatten()
    {
        out.warn(warning);
    }
    if out.json {
        let settings: Vec<_> = entries
            .iter()
            .map(|e| json!({"key": e.key, "value": e.value, "source": e.source.to_string()}))
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "root": ctx.root.display().to_string(), "settings": settings}));
        return Ok(ExitCode::Success);
    }
    out.line(format!("# root: {}", ctx.root.display()));
    // Sources line up, except after a value too long to pad to (an agent
    // profile's command line).
    const WIDEST: usize = 72;
    let width = entries
        .iter()
        .map(|e| e.key.len() + e.value.len() + 3)
        .filter(|&len| len <= WIDEST)
        .max()
        .unwrap_or(0);
    for entry in entries {
        let setting = format!("{} = {}", entry.key, entry.value);
        out.line(format!("{setting:<width$}  # {}", entry.source));
    }
    Ok(ExitCode::Success)
}

fn accept(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if !ctx.store.exists() {
        return Err(crate::error::Error::NotAStore {
            searched: ctx.root.clone(),
        });
    }
    let accepted = crate::engine::trust::accept_config(ctx)?;
    super::notices(out, accepted.notices);
    if out.json {
        out.json(&json!({"schema_version": SCHEMA_VERSION, "accepted": accepted.diff.is_some(), "diff": accepted.diff}));
    } else if !out.quiet {
        match &accepted.diff {
            Some(diff) => {
                out.line("accepted the configuration files as they are:");
                for line in diff.lines() {
                    out.line(format!("  {line}"));
                }
            }
            None => {
                out.line("nothing to accept: the configuration files say what was accepted here")
            }
        }
    }
    Ok(ExitCode::Success)
}
