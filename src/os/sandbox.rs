//! What the agent clients need to keep an agent's own tools — its shell,
//! its file edits — out of a store's `state/` and `steward.yaml`, while
//! steward itself (run as an excluded command, or as the MCP server the
//! client starts outside its sandbox) still writes there. Verified with
//! Claude Code 2.1.332 and Codex CLI 0.171.0; what each holds is in
//! steward-design(7), "Threat model".

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// `dispatch.sandbox`: whether the runs steward starts are sandboxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    Off,
    /// Where the client has a sandbox steward knows; Claude Code runs
    /// without one (its Edit rules still hold) where it cannot start it.
    Auto,
    /// Every run, or none: a client without a sandbox, or a Claude Code
    /// that cannot start its own, does not run.
    Required,
}

/// Claude Code settings (`.claude/settings.json`, or a file given with
/// `--settings`): its Edit and Write tools denied the store's state and
/// configuration, and its Bash tool sandboxed with them read-only
/// (bubblewrap and socat on Linux; without them, when `required`, the
/// client refuses to start rather than run unsandboxed), no escape from
/// the sandbox, and
/// `steward …` excluded from it so that the commands steward prints still
/// run. Paths are absolute: relative ones resolve against the settings
/// file's own directory.
pub fn claude_settings(root: &Path, key_dir: Option<&Path>, required: bool) -> Value {
    let root = root.display().to_string();
    let mut deny_write = vec![format!("{root}/state"), format!("{root}/steward.yaml")];
    let mut deny_edit = vec![
        format!("Edit(/{root}/state/**)"),
        format!("Edit(/{root}/steward.yaml)"),
    ];
    let mut deny_read = Vec::new();
    if let Some(key_dir) = key_dir {
        let key_dir = key_dir.display().to_string();
        deny_write.push(key_dir.clone());
        deny_edit.push(format!("Edit(/{key_dir}/**)"));
        deny_edit.push(format!("Read(/{key_dir}/**)"));
        deny_read.push(key_dir);
    }
    json!({
        "permissions": {"deny": deny_edit},
        "sandbox": {
            "enabled": true,
            "failIfUnavailable": required,
            "autoAllowBashIfSandboxed": true,
            "allowUnsandboxedCommands": false,
            "excludedCommands": ["steward *"],
            "filesystem": {"denyWrite": deny_write, "denyRead": deny_read},
        },
    })
}

/// The MCP configuration (`--mcp-config`, as a JSON string) that gives a
/// Claude Code run steward's MCP server for the store at `root`, with the
/// run's dispatch id: Claude Code starts it outside its sandbox, so it
/// writes where the run's shell cannot.
pub fn claude_mcp_config(root: &Path, steward: &Path, dispatch_id: &str) -> Value {
    json!({"mcpServers": {"steward": {
        "type": "stdio",
        "command": steward.display().to_string(),
        "args": ["-C", root.display().to_string(), "mcp"],
        "env": {"STEWARD_DISPATCH_ID": dispatch_id},
    }}})
}

/// The settings of a run that works in a git worktree under the store's
/// `state/worktrees/` (`dispatch.worktree`): `state/` cannot be denied
/// whole, the worktree being in it, so each of its other entries is;
/// outside the worktree the sandbox writes nothing anyway, but for
/// `writable`, the parts of the repository's git directory a commit on
/// the run's branch writes (never its `config` or `hooks`). Claude Code
/// opens the whole git directory to a session in a worktree of its own
/// accord: `denied` is what of it stays read-only (other branches,
/// `packed-refs`, `config`, `hooks`).
pub fn claude_in_worktree(
    settings: &mut Value,
    root: &Path,
    state_entries: &[String],
    writable: &[PathBuf],
    denied: &[PathBuf],
) {
    let root = root.display().to_string();
    let whole_edit = format!("Edit(/{root}/state/**)");
    let whole_write = format!("{root}/state");
    if let Some(deny) = settings["permissions"]["deny"].as_array_mut() {
        deny.retain(|rule| rule.as_str() != Some(whole_edit.as_str()));
        for entry in state_entries {
            deny.push(json!(format!("Edit(/{root}/state/{entry})")));
            deny.push(json!(format!("Edit(/{root}/state/{entry}/**)")));
        }
    }
    let filesystem = &mut settings["sandbox"]["filesystem"];
    if let Some(deny) = filesystem["denyWrite"].as_array_mut() {
        deny.retain(|path| path.as_str() != Some(whole_write.as_str()));
        for entry in state_entries {
            deny.push(json!(format!("{root}/state/{entry}")));
        }
        deny.extend(denied.iter().map(|p| json!(p.display().to_string())));
    }
    filesystem["allowWrite"] = json!(
        writable
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    );
}

/// `settings` with `more` merged in: lists gain the entries they lack,
/// objects merge key by key, other values are set. Everything else in
/// `settings` is kept.
pub fn merge(settings: &mut Value, more: &Value) {
    match (settings, more) {
        (Value::Object(have), Value::Object(add)) => {
            for (key, value) in add {
                match have.get_mut(key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        have.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(have), Value::Array(add)) => {
            for value in add {
                if !have.contains(value) {
                    have.push(value.clone());
                }
            }
        }
        (have, add) => *have = add.clone(),
    }
}

/// The Codex CLI flags for `codex exec` that do the same with a
/// permission profile: the file system read-only but for the working
/// directory (the store) and the temporary directory, with the store's
/// `state/` and `steward.yaml` read-only in it; and steward's MCP server,
/// which Codex starts outside its sandbox, with its tools approved (exec
/// never asks) and, for a run steward started, its dispatch id. A
/// `--sandbox` flag would override the profile: the caller removes it.
pub fn codex_args(
    root: &Path,
    steward: &Path,
    key_dir: Option<&Path>,
    dispatch_id: Option<&str>,
    writable: &[PathBuf],
) -> Vec<String> {
    let quoted = |text: &str| serde_json::to_string(text).expect("strings serialize");
    let mut hidden = key_dir
        .map(|dir| format!(", {}=\"none\"", quoted(&dir.display().to_string())))
        .unwrap_or_default();
    // The store is the workspace, its state and settings read-only in it.
    // A run in a worktree has the worktree as its workspace: the store's
    // state/ and steward.yaml lie outside it, read-only under `:root`, and
    // the branch need not have copies of them.
    let store = if writable.is_empty() {
        ",\"state\"=\"read\",\"steward.yaml\"=\"read\""
    } else {
        ""
    };
    // A run in a worktree: the parts of the git directory a commit writes.
    for path in writable {
        hidden.push_str(&format!(
            ", {}=\"write\"",
            quoted(&path.display().to_string())
        ));
    }
    [
        "default_permissions=\"steward-agent\"".to_string(),
        format!("permissions.steward-agent.filesystem={{\":root\"=\"read\", \":tmpdir\"=\"write\", \":workspace_roots\"={{\".\"=\"write\"{store}}}{hidden}}}"),
        format!(
            "mcp_servers.steward.command={}",
            quoted(&steward.display().to_string())
        ),
        format!(
            "mcp_servers.steward.args=[\"-C\",{},\"mcp\"]",
            quoted(&root.display().to_string())
        ),
        "mcp_servers.steward.default_tools_approval_mode=\"approve\"".to_string(),
    ]
    .into_iter()
    .chain(dispatch_id.map(|id| {
        format!(
            "mcp_servers.steward.env={{STEWARD_DISPATCH_ID={}}}",
            quoted(id)
        )
    }))
    .flat_map(|value| ["-c".to_string(), value])
    .collect()
}

/// `argv` without `--sandbox MODE`, `-s MODE` or `--sandbox=MODE`.
pub fn without_sandbox_flag(argv: &[String]) -> Vec<String> {
    let mut kept = Vec::with_capacity(argv.len());
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        if word == "--sandbox" || word == "-s" {
            words.next();
        } else if !word.starts_with("--sandbox=") {
            kept.push(word.clone());
        }
    }
    kept
}

/// The Codex execpolicy rule (`$CODEX_HOME/rules/steward.rules`) that runs
/// a plain `steward …` command outside the sandbox, as Claude Code's
/// excluded command does.
pub const CODEX_RULE: &str = "# steward writes its store's state/, which the sandbox keeps read-only\n# for everything else the agent runs (`steward hook install codex --sandbox`).\nprefix_rule(\n    pattern = [\"steward\"],\n    decision = \"allow\",\n    justification = \"steward must write state/ outside the sandbox\",\n)\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_merge_into_what_is_there_without_losing_it() {
        let mut settings = json!({
            "model": "opus",
            "permissions": {"deny": ["Bash(rm -rf *)"], "allow": ["Read"]},
            "sandbox": {"enabled": false, "filesystem": {"denyWrite": ["/etc"]}},
        });
        merge(
            &mut settings,
            &claude_settings(
                Path::new("/srv/store"),
                Some(Path::new("/home/me/.config/steward")),
                true,
            ),
        );
        assert_eq!(settings["model"], "opus");
        assert_eq!(settings["permissions"]["allow"], json!(["Read"]));
        let deny = settings["permissions"]["deny"].as_array().unwrap();
        assert!(deny.contains(&json!("Bash(rm -rf *)")));
        assert!(deny.contains(&json!("Edit(//srv/store/state/**)")));
        assert_eq!(settings["sandbox"]["enabled"], true);
        assert_eq!(settings["sandbox"]["allowUnsandboxedCommands"], false);
        let deny_write = settings["sandbox"]["filesystem"]["denyWrite"]
            .as_array()
            .unwrap();
        assert_eq!(deny_write[0], "/etc");
        assert!(deny_write.contains(&json!("/srv/store/state")));
        let again = settings.clone();
        merge(
            &mut settings,
            &claude_settings(
                Path::new("/srv/store"),
                Some(Path::new("/home/me/.config/steward")),
                true,
            ),
        );
        assert_eq!(settings, again, "idempotent");
    }

    #[test]
    fn the_sandbox_flag_is_taken_out_of_a_codex_command() {
        let argv: Vec<String> = [
            "codex",
            "exec",
            "--sandbox",
            "workspace-write",
            "-s",
            "x",
            "--sandbox=y",
            "-",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(without_sandbox_flag(&argv), ["codex", "exec", "-"]);
        let args = codex_args(
            Path::new("/srv/store"),
            Path::new("/usr/bin/steward"),
            Some(Path::new("/home/me/.config/steward")),
            Some("run-1"),
            &[],
        );
        assert!(
            args.contains(&"mcp_servers.steward.env={STEWARD_DISPATCH_ID=\"run-1\"}".to_string())
        );
        assert!(
            args.contains(&"mcp_servers.steward.args=[\"-C\",\"/srv/store\",\"mcp\"]".to_string())
        );
        let filesystem = args
            .iter()
            .find(|a| a.starts_with("permissions.steward-agent.filesystem="))
            .unwrap();
        assert!(
            filesystem.ends_with(", \"/home/me/.config/steward\"=\"none\"}"),
            "{filesystem}"
        );
    }
}
