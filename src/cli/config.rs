//! `steward config`: the effective configuration and where each value came
//! from.

use clap::Args;
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::error::Result;

/// Show every setting's effective value and its source: default, the file
/// and line, an environment variable (STEWARD_<KEY>, dots as underscores), or
/// a flag. Precedence: flags > environment > steward.yaml > defaults.
#[derive(Debug, Args)]
pub struct ConfigArgs {}

pub fn run(ctx: &Context, _args: ConfigArgs, out: &mut Output) -> Result<u8> {
    let entries = &ctx.config_entries;
    for ignored in &ctx.ignored_env {
        out.warn(ignored.to_string());
    }
    if out.json {
        let settings: Vec<_> = entries
            .iter()
            .map(|e| json!({"key": e.key, "value": e.value, "source": e.source.to_string()}))
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "root": ctx.root.display().to_string(), "settings": settings}));
        return Ok(0);
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
    Ok(0)
}
