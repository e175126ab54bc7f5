//! `hook install` (steward-guide(7), "CLAUDE CODE AND CODEX: HOOKS AND AN
//! MCP SERVER"): steward's hooks merged into a harness's settings, or its
//! MCP server into `.mcp.json`, every other entry kept and nothing added
//! twice; with the sandbox, what keeps the agent's own tools out of the
//! store. A person's act: the hooks and server run outside an agent's
//! sandbox.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::context::Environment;
use crate::error::{Error, Result};

/// The harness whose settings are installed into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    ClaudeCode,
    Codex,
    Mcp,
}

/// What to install, and where.
#[derive(Debug, Clone)]
pub struct InstallRequest<'a> {
    /// The actor the caller says it is (`--actor`); the environment may
    /// say it is an agent whatever this says.
    pub actor: Option<&'a str>,
    pub target: Target,
    /// Claude Code: the user's settings, not this directory's.
    pub user: bool,
    /// Work out the file, write nothing.
    pub dry_run: bool,
    /// Also keep the agent's own tools out of the store.
    pub sandbox: bool,
}

/// What `install` did.
#[derive(Debug)]
pub struct Installed {
    pub path: PathBuf,
    /// The settings file as written (or as it would be).
    pub text: String,
    /// Whether steward's entries were missing from it.
    pub changed: bool,
    /// What a person must do by hand (Codex's config.toml).
    pub notes: Vec<String>,
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

/// Merges steward's hooks (or MCP server) into `request.target`'s settings
/// file, and with `sandbox` what keeps the agent's own tools out of the
/// store. Nothing is written when `dry_run`, or when the file has it all
/// already.
pub fn install(env: &Environment, request: &InstallRequest<'_>) -> Result<Installed> {
    // The hooks and MCP server it installs run outside an agent's
    // sandbox: installing them is a person's act.
    let caller = crate::context::Caller::resolve(request.actor, env)?;
    if caller.actor != crate::model::Actor::User {
        return Err(Error::PersonOnly {
            what: "install steward's hooks or MCP server".to_string(),
            person_runs: "steward hook install ...".to_string(),
        });
    }
    let exe = crate::os::process::own_binary()?;
    let exe = exe.display().to_string();
    let home = env.var("HOME").map(PathBuf::from);
    let (path, harness_arg) = match request.target {
        Target::ClaudeCode if request.user => (
            home.ok_or_else(|| {
                Error::bad_value("HOME", "is not set: the user's settings are under it")
            })?
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
    let existing = match crate::os::safe_file::read_to_string(&path) {
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
    let mut merged = if request.target == Target::Mcp {
        merge_mcp(existing.clone(), &exe)?
    } else {
        // The harnesses run the command with a shell: a path with a space
        // (or anything else a shell reads) is quoted.
        merge_hooks(
            existing.clone(),
            &format!("{} hook {harness_arg}", crate::text::shell_word(&exe)),
            events(request.target),
        )?
    };
    let mut notes = Vec::new();
    if !request.sandbox && request.target != Target::Mcp {
        notes.push(
            "without --sandbox, the agent's own shell and file tools can still write the store's state/ and steward.yaml and read ~/.config/steward/: steward finds and holds what they change, but cannot stop it (steward-design(7), \"Threat model\"); run `steward hook install ... --sandbox` to have the client keep them out"
                .to_string(),
        );
    }
    if request.sandbox {
        let root = find_store(&env.cwd).ok_or_else(|| {
            Error::BadRequest(format!(
                "no steward store at {} or above: the sandbox keeps agents out of a store's state/; install it from the store",
                env.cwd.display()
            ))
        })?;
        let key_dir = env
            .user_home()
            .map(|home| crate::store::key::key_dir(&home));
        match request.target {
            Target::ClaudeCode => {
                crate::os::sandbox::merge(
                    &mut merged,
                    &crate::os::sandbox::claude_settings(&root, key_dir.as_deref(), true),
                );
            }
            Target::Codex => {
                if !request.dry_run {
                    install_codex_rule(&path)?;
                }
                notes.push(codex_profile_note(
                    &root,
                    Path::new(&exe),
                    key_dir.as_deref(),
                ));
            }
            Target::Mcp => {
                return Err(Error::BadRequest(
                    "the sandbox is for claude-code and codex, not the MCP server".to_string(),
                ));
            }
        }
    }
    let text = serde_json::to_string_pretty(&merged).expect("JSON serializes") + "\n";
    let changed = merged != existing;
    if changed && !request.dry_run {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|err| Error::io(dir, "cannot create directory", err))?;
        }
        let temp = path.with_extension("steward-tmp");
        std::fs::write(&temp, &text).map_err(|err| Error::io(&temp, "cannot write", err))?;
        std::fs::rename(&temp, &path).map_err(|err| Error::io(&path, "cannot replace", err))?;
    }
    Ok(Installed {
        path,
        text,
        changed,
        notes,
    })
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

impl Target {
    /// What is installed for it, in a sentence.
    pub fn what(self) -> &'static str {
        match self {
            Target::Mcp => "MCP server",
            _ => "hooks",
        }
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

/// The nearest directory from `start` up that holds a store.
pub fn find_store(start: &Path) -> Option<PathBuf> {
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
