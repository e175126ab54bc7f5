//! `steward hook`: answer an agent harness's hooks, and install them.

use crate::exit::ExitCode;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;

use super::{GlobalArgs, Output};
use crate::context::{Context, Environment, GlobalOptions};
use crate::doors::hooks::{self, Harness, HookInput};
use crate::engine::install;
use crate::error::{Error, Result};

/// The most of a hook's input read from stdin.
const MAX_INPUT: u64 = 1 << 20;

/// Answer an agent harness's hook (the JSON it sends on stdin), or install
/// steward's hooks into a harness's settings.
///
/// `steward hook claude-code` and `steward hook codex` read the hook's JSON
/// and print the harness's own JSON, or nothing: the stewardship block as
/// context on SessionStart and UserPromptSubmit, and on Stop a
/// continuation while a goal is workable (hooks.max_continuations in a
/// row at most). They run as actor agent, find the store from -C, else the
/// input's cwd, else the working directory, always exit 0, and print
/// nothing to stdout on an error (one line on stderr).
#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(Debug, Subcommand)]
enum HookCommand {
    /// Answer a Claude Code hook
    ClaudeCode,
    /// Answer a Codex CLI hook
    Codex,
    Install(InstallArgs),
}

/// Merge steward's hooks into a harness's settings (without touching other
/// hooks; running it again changes nothing), or its MCP server into
/// .mcp.json
#[derive(Debug, Args)]
struct InstallArgs {
    /// claude-code: .claude/settings.json here (~/.claude/settings.json
    /// with --user); codex: $CODEX_HOME/hooks.json (default
    /// ~/.codex/hooks.json); mcp: .mcp.json here
    #[arg(value_enum)]
    target: Target,

    /// Install for the user rather than this directory (claude-code)
    #[arg(long)]
    user: bool,

    /// Print the file as it would be; write nothing
    #[arg(long)]
    dry_run: bool,

    /// Also keep the agent's own tools out of this store's state/ and
    /// steward.yaml (and the machine key): claude-code gets permission
    /// rules and its sandbox (bubblewrap and socat on Linux), with
    /// `steward …` excluded from it; codex gets the rule that runs
    /// `steward …` outside its sandbox, and the permission profile to add
    /// to its config.toml is printed
    #[arg(long)]
    sandbox: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    ClaudeCode,
    Codex,
    Mcp,
}

impl From<Target> for install::Target {
    fn from(target: Target) -> install::Target {
        match target {
            Target::ClaudeCode => install::Target::ClaudeCode,
            Target::Codex => install::Target::Codex,
            Target::Mcp => install::Target::Mcp,
        }
    }
}

/// Runs `steward hook`: before any store is resolved, since a hook finds
/// its store from its input.
pub fn run(
    global: &GlobalArgs,
    env: Environment,
    args: HookArgs,
    out: &mut Output,
) -> Result<ExitCode> {
    match args.command {
        HookCommand::ClaudeCode => Ok(answer(global, env, Harness::ClaudeCode, out)),
        HookCommand::Codex => Ok(answer(global, env, Harness::Codex, out)),
        HookCommand::Install(install) => {
            self::install(&env, global.actor.as_deref(), &install, out)
        }
    }
}

/// Answers one hook. Whatever goes wrong is one line on stderr and exit
/// 0: a hook that exits 2 would block the person's prompt.
fn answer(global: &GlobalArgs, env: Environment, harness: Harness, out: &mut Output) -> ExitCode {
    match try_answer(global, env, harness) {
        Ok(Some(value)) => out.json(&value),
        Ok(None) => {}
        Err(err) => out.warn(format!("hook: {}", super::message(&err))),
    }
    ExitCode::Success
}

fn try_answer(global: &GlobalArgs, env: Environment, harness: Harness) -> Result<Option<Value>> {
    let input = read_input()?;
    // A run steward started names its store: the agent's working directory
    // may be a worktree, or anywhere.
    let start = global
        .root
        .clone()
        .or_else(|| env.var("STEWARD_ROOT").map(PathBuf::from))
        .or_else(|| input.cwd.clone())
        .unwrap_or_else(|| env.cwd.clone());
    let Some(root) = install::find_store(&start) else {
        return Ok(None);
    };
    let options = GlobalOptions {
        root: Some(root),
        actor: Some("agent".to_string()),
        command: "hook",
        ..GlobalOptions::default()
    };
    let ctx = Context::resolve(&options, env)?;
    hooks::answer(&ctx, harness, &input)
}

/// The hook's JSON from stdin; empty input (or a terminal) is no event.
fn read_input() -> Result<HookInput> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(HookInput::default());
    }
    let mut bytes = Vec::new();
    stdin
        .lock()
        .take(MAX_INPUT)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::io(Path::new("-"), "cannot read the hook's input", err))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(HookInput::default());
    }
    serde_json::from_slice(&bytes).map_err(|err| {
        Error::bad_value(
            "the hook's input",
            format!("not the JSON a hook sends: {err}"),
        )
    })
}

/// `hook install`: the engine merges; this says what it did.
fn install(
    env: &Environment,
    actor: Option<&str>,
    args: &InstallArgs,
    out: &mut Output,
) -> Result<ExitCode> {
    let target = install::Target::from(args.target);
    let installed = install::install(
        env,
        &install::InstallRequest {
            actor,
            target,
            user: args.user,
            dry_run: args.dry_run,
            sandbox: args.sandbox,
        },
    )?;
    for note in installed.notes {
        out.warn(note);
    }
    if args.dry_run {
        out.text(&installed.text);
        return Ok(ExitCode::Success);
    }
    if out.quiet {
        return Ok(ExitCode::Success);
    }
    let path = installed.path.display();
    if !installed.changed {
        out.line(format!("{path} already has steward's {}", target.what()));
        return Ok(ExitCode::Success);
    }
    out.line(format!("{path}: added steward's {}", target.what()));
    if target == install::Target::Codex {
        out.line("Codex runs hooks it trusts: review them in codex (or run codex exec with --dangerously-bypass-hook-trust)");
    }
    Ok(ExitCode::Success)
}
