//! `steward hook`: answer an agent harness's hooks, and install them.

use crate::exit::ExitCode;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::{GlobalArgs, Output};
use crate::context::{Context, Environment, GlobalOptions};
use crate::doors::hooks::{self, Harness, HookInput};
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
            // The hooks and MCP server it installs run outside an agent's
            // sandbox: installing them is a person's act.
            let caller = crate::context::Caller::resolve(global.actor.as_deref(), &env)?;
            if caller.actor != crate::model::Actor::User {
                return Err(Error::PersonOnly {
                    what: "install steward's hooks or MCP server".to_string(),
                    person_runs: "steward hook install ...".to_string(),
                });
            }
            self::install(&env, &install, out)
        }
    }
}

/// Answers one hook. Whatever goes wrong is one line on stderr and exit
/// 0: a hook that exits 2 would block the person's prompt.
fn answer(global: &GlobalArgs, env: Environment, harness: Harness, out: &mut Output) -> ExitCode {
    match try_answer(global, env, harness) {
        Ok(Some(value)) => out.json(&value),
        Ok(None) => {}
        Err(err) => out.warn(format!("hook: {err}")),
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
    let Some(root) = find_store(&start) else {
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

/// The nearest directory from `start` up that holds a store.
fn find_store(start: &Path) -> Option<PathBuf> {
    // In a run's worktree: the store that holds it, never the branch's
    // own copy of steward.yaml.
    if let Some(store) = crate::context::worktree_store(start) {
        return Some(store);
    }
    start
        .ancestors()
        .find(|dir| {
            dir.join(crate::config::FILE_NAME).is_file() || dir.join("state").join("goals").is_dir()
        })
        .map(Path::to_path_buf)
}

/// The hook events steward answers, per harness, each with its matcher
/// (Claude Code 2.1.332 and Codex CLI 0.171.0 both have SubagentStart and
/// SubagentStop; Claude Code says it waits for a person with its
/// Notification hook, Codex with PermissionRequest; only Claude Code's
/// PreToolUse on its Agent tool can refuse a subagent).
fn events(target: Target) -> &'static [(&'static str, Option<&'static str>)] {
    match target {
        Target::ClaudeCode => &[
            ("SessionStart", None),
            ("UserPromptSubmit", None),
            ("Stop", None),
            ("SubagentStart", None),
            ("SubagentStop", None),
            ("PreToolUse", Some("Agent|Task")),
            ("Notification", Some("permission_prompt|elicitation_dialog")),
        ],
        Target::Codex => &[
            ("SessionStart", None),
            ("UserPromptSubmit", None),
            ("Stop", None),
            ("SubagentStart", None),
            ("SubagentStop", None),
            ("PermissionRequest", None),
        ],
        Target::Mcp => &[],
    }
}

fn install(env: &Environment, args: &InstallArgs, out: &mut Output) -> Result<ExitCode> {
    let exe = crate::os::process::own_binary()?;
    let exe = exe.display().to_string();
    let home = env.var("HOME").map(PathBuf::from);
    let (path, harness_arg) = match args.target {
        Target::ClaudeCode if args.user => (
            home.ok_or_else(|| Error::bad_value("--user", "HOME is not set"))?
                .join(".claude/settings.json"),
            "claude-code",
        ),
        Target::ClaudeCode => (env.cwd.join(".claude/settings.json"), "claude-code"),
        Target::Codex => (
            env.var("CODEX_HOME")
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".codex")))
                .ok_or_else(|| {
                    Error::bad_value("CODEX_HOME", "neither CODEX_HOME nor HOME is set")
                })?
                .join("hooks.json"),
            "codex",
        ),
        Target::Mcp => (env.cwd.join(".mcp.json"), "mcp"),
    };
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|err| {
            Error::Unreadable(crate::error::FileProblem {
                path: path.display().to_string(),
                line: err.line(),
                column: err.column(),
                message: format!("{err}; steward does not rewrite a file it cannot read"),
            })
        })?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(err) => return Err(Error::io(&path, "cannot read", err)),
    };
    let mut merged = if args.target == Target::Mcp {
        merge_mcp(existing.clone(), &exe)?
    } else {
        // The harnesses run the command with a shell: a path with a space
        // (or anything else a shell reads) is quoted.
        merge_hooks(
            existing.clone(),
            &format!("{} hook {harness_arg}", crate::text::shell_word(&exe)),
            events(args.target),
        )?
    };
    if args.sandbox {
        let root = find_store(&env.cwd).ok_or_else(|| {
            Error::BadRequest(format!(
                "no steward store at {} or above: --sandbox protects a store's state/; run it in the store",
                env.cwd.display()
            ))
        })?;
        let key_dir = env
            .user_home()
            .map(|home| crate::store::key::key_dir(&home));
        match args.target {
            Target::ClaudeCode => {
                crate::os::sandbox::merge(
                    &mut merged,
                    &crate::os::sandbox::claude_settings(&root, key_dir.as_deref(), true),
                );
            }
            Target::Codex => {
                if !args.dry_run {
                    install_codex_rule(&path)?;
                }
                out.warn(codex_profile_note(
                    &root,
                    Path::new(&exe),
                    key_dir.as_deref(),
                ));
            }
            Target::Mcp => {
                return Err(Error::BadRequest(
                    "--sandbox is for claude-code and codex".to_string(),
                ));
            }
        }
    }
    let text = serde_json::to_string_pretty(&merged).expect("JSON serializes") + "\n";
    if args.dry_run {
        out.text(&text);
        return Ok(ExitCode::Success);
    }
    if merged == existing {
        if !out.quiet {
            out.line(format!(
                "{} already has steward's {}",
                path.display(),
                what(args.target)
            ));
        }
        return Ok(ExitCode::Success);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::io(dir, "cannot create directory", err))?;
    }
    let temp = path.with_extension("steward-tmp");
    std::fs::write(&temp, &text).map_err(|err| Error::io(&temp, "cannot write", err))?;
    std::fs::rename(&temp, &path).map_err(|err| Error::io(&path, "cannot replace", err))?;
    if !out.quiet {
        out.line(format!(
            "{}: added steward's {}",
            path.display(),
            what(args.target)
        ));
        if args.target == Target::Codex {
            out.line("Codex runs hooks it trusts: review them in codex (or run codex exec with --dangerously-bypass-hook-trust)");
        }
    }
    Ok(ExitCode::Success)
}

/// Writes the rule that runs `steward …` outside Codex's sandbox, beside
/// its hooks file: `$CODEX_HOME/rules/steward.rules`.
fn install_codex_rule(hooks: &Path) -> Result<()> {
    let dir = hooks
        .parent()
        .map_or_else(|| PathBuf::from("rules"), |home| home.join("rules"));
    std::fs::create_dir_all(&dir).map_err(|err| Error::io(&dir, "cannot create directory", err))?;
    let path = dir.join("steward.rules");
    std::fs::write(&path, crate::os::sandbox::CODEX_RULE)
        .map_err(|err| Error::io(&path, "cannot write", err))
}

/// What to add to Codex's config.toml (steward does not rewrite a TOML
/// file): the permission profile that keeps the store's state read-only,
/// and steward's MCP server.
fn codex_profile_note(root: &Path, steward: &Path, key_dir: Option<&Path>) -> String {
    let args = crate::os::sandbox::codex_args(root, steward, key_dir, None, &[]);
    let lines: Vec<String> = args.chunks(2).map(|pair| pair[1].clone()).collect();
    format!(
        "add to $CODEX_HOME/config.toml, before its first [table] (or pass each with -c), and never run codex with --sandbox or --dangerously-bypass-approvals-and-sandbox:\n  {}",
        lines.join("\n  ")
    )
}

fn what(target: Target) -> &'static str {
    match target {
        Target::Mcp => "MCP server",
        _ => "hooks",
    }
}

/// `settings` with one command hook per event for `command`, unless the
/// event has it already; every other hook kept as it is.
fn merge_hooks(
    mut settings: Value,
    command: &str,
    events: &[(&str, Option<&str>)],
) -> Result<Value> {
    let not_an_object = || {
        Error::BadRequest(
            "the settings file is not a JSON object; steward leaves it alone".to_string(),
        )
    };
    let hooks = settings
        .as_object_mut()
        .ok_or_else(not_an_object)?
        .entry("hooks")
        .or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(not_an_object)?;
    for (event, matcher) in events {
        let groups = hooks.entry(*event).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(not_an_object)?;
        let present = groups.iter().any(|group| {
            group["hooks"]
                .as_array()
                .is_some_and(|list| list.iter().any(|h| h["command"] == command))
        });
        if !present {
            let mut group =
                json!({"hooks": [{"type": "command", "command": command, "timeout": 30}]});
            if let Some(matcher) = matcher {
                group["matcher"] = json!(matcher);
            }
            groups.push(group);
        }
    }
    Ok(settings)
}

/// `.mcp.json` with steward's server, every other server kept.
fn merge_mcp(mut settings: Value, exe: &str) -> Result<Value> {
    let not_an_object =
        || Error::BadRequest(".mcp.json is not a JSON object; steward leaves it alone".to_string());
    let servers = settings
        .as_object_mut()
        .ok_or_else(not_an_object)?
        .entry("mcpServers")
        .or_insert_with(|| json!({}));
    let servers = servers.as_object_mut().ok_or_else(not_an_object)?;
    servers
        .entry("steward")
        .or_insert_with(|| json!({"type": "stdio", "command": exe, "args": ["mcp"]}));
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_hooks_and_adds_ours_once() {
        let settings = json!({"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other"}]}]}});
        let once = merge_hooks(
            settings,
            "steward hook claude-code",
            &[("Stop", None), ("SessionStart", None)],
        )
        .unwrap();
        let twice = merge_hooks(
            once.clone(),
            "steward hook claude-code",
            &[("Stop", None), ("SessionStart", None)],
        )
        .unwrap();
        assert_eq!(once, twice);
        assert_eq!(once["model"], "x");
        assert_eq!(once["hooks"]["Stop"].as_array().unwrap().len(), 2);
        assert_eq!(once["hooks"]["Stop"][0]["hooks"][0]["command"], "other");
    }
}
