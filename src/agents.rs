//! Agent profiles (SPEC 12): how to start an agent CLI, how to resume its
//! session, and how to read what it printed. Pure: no processes here.

use serde_json::Value;

/// How the instruction reaches the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptVia {
    /// On stdin, which is then closed (both CLIs wait for end of input).
    Stdin,
    /// As the last argument; stdin is empty.
    Arg,
}

/// How to read the agent's standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Claude Code's `--output-format json`: one result object.
    ClaudeJson,
    /// Codex CLI's `exec --json`: one event per line.
    CodexJsonl,
    /// Anything else: the last lines are the result, nothing else is known.
    Text,
}

impl OutputFormat {
    pub const NAMES: [&'static str; 3] = ["claude-json", "codex-jsonl", "text"];

    pub fn parse(text: &str) -> Option<OutputFormat> {
        match text {
            "claude-json" => Some(OutputFormat::ClaudeJson),
            "codex-jsonl" => Some(OutputFormat::CodexJsonl),
            "text" => Some(OutputFormat::Text),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::ClaudeJson => "claude-json",
            OutputFormat::CodexJsonl => "codex-jsonl",
            OutputFormat::Text => "text",
        }
    }
}

/// One agent CLI steward can start.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentProfile {
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    pub prompt: PromptVia,
    /// The command that resumes a session, `{session}` standing for its id;
    /// empty when the agent cannot resume.
    pub resume: Vec<String>,
    pub output: OutputFormat,
    /// Prices for agents that report tokens, not dollars (Codex).
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
}

impl AgentProfile {
    /// The built-in profiles: Claude Code and Codex CLI.
    pub fn builtins() -> Vec<AgentProfile> {
        // A fresh run is the base argv plus `fresh`; a resumed one, the base
        // plus `resume`.
        let argv = |base: &[&str], tail: &[&str]| -> Vec<String> {
            base.iter().chain(tail).map(|s| s.to_string()).collect()
        };
        // Headless Claude Code asks before running a tool; a run may use
        // Bash (and so `steward`). The flag does not carry over to
        // `--resume`: both commands need it.
        let claude = [
            "claude",
            "-p",
            "--output-format",
            "json",
            "--allowedTools",
            "Bash",
        ];
        // Codex refuses a root that is not a trusted git repository without
        // --skip-git-repo-check, runs read-only without a writable sandbox
        // (the store is the working directory), and runs tools in a login
        // shell whose profile may reset PATH. Its exec flags go before
        // `resume`.
        let codex = [
            "codex",
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--sandbox",
            "workspace-write",
            "-c",
            "allow_login_shell=false",
        ];
        vec![
            AgentProfile {
                name: "claude".into(),
                command: argv(&claude, &[]),
                prompt: PromptVia::Stdin,
                resume: argv(&claude, &["--resume", "{session}"]),
                output: OutputFormat::ClaudeJson,
                input_usd_per_mtok: 0.0,
                output_usd_per_mtok: 0.0,
            },
            AgentProfile {
                name: "codex".into(),
                command: argv(&codex, &["-"]),
                prompt: PromptVia::Stdin,
                resume: argv(&codex, &["resume", "{session}", "-"]),
                output: OutputFormat::CodexJsonl,
                input_usd_per_mtok: 0.0,
                output_usd_per_mtok: 0.0,
            },
        ]
    }

    /// The argv of a fresh run, or of a resumed one when `session` is given
    /// and the profile can resume; the instruction is appended for
    /// `prompt: arg`.
    pub fn argv(&self, session: Option<&str>, instruction: &str) -> Vec<String> {
        // A session id comes from the agent's output: one that could be
        // read as an option, or hold anything but an id's characters, is
        // never put in a command line (the run starts afresh instead).
        let session = session.filter(|s| is_session_id(s));
        let mut argv: Vec<String> = match session {
            Some(session) if self.can_resume() => self
                .resume
                .iter()
                .map(|word| word.replace("{session}", session))
                .collect(),
            _ => self.command.clone(),
        };
        if self.prompt == PromptVia::Arg {
            argv.push(instruction.to_string());
        }
        argv
    }

    pub fn can_resume(&self) -> bool {
        !self.resume.is_empty()
    }
}

/// Whether `text` can be a session id, as the clients make them (Claude
/// Code and Codex: UUIDs): 1 to 128 letters, digits, `-`, `_`, `.` and
/// `:`, not starting with `-`.
pub fn is_session_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 128
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
}

/// What steward reads from an agent's output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunReport {
    pub session: Option<String>,
    /// The agent's final message, bounded.
    pub result: Option<String>,
    /// The final message whole (a planning run's answer is the plan).
    pub message: Option<String>,
    /// The session's running total cost, in US dollars, when known.
    pub cost_total_usd: Option<f64>,
    /// The session's running token totals, when reported (Codex).
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// The agent said it failed (Claude's `is_error`, Codex's `turn.failed`).
    pub failed: bool,
    /// The agent said it finished a turn (Claude's result, Codex's
    /// `turn.completed`).
    pub finished: bool,
}

/// Longest result text kept.
const RESULT_CHARS: usize = 2_000;

/// Reads `stdout` as `format` says.
pub fn read_output(format: OutputFormat, stdout: &str) -> RunReport {
    match format {
        OutputFormat::ClaudeJson => read_claude(stdout),
        OutputFormat::CodexJsonl => read_codex(stdout),
        OutputFormat::Text => RunReport {
            result: last_lines(stdout),
            message: whole(stdout),
            finished: true,
            ..RunReport::default()
        },
    }
}

fn whole(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn bounded(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| crate::text::head(text, RESULT_CHARS))
}

fn last_lines(stdout: &str) -> Option<String> {
    let lines: Vec<&str> = stdout.lines().rev().take(20).collect();
    let text: Vec<&str> = lines.into_iter().rev().collect();
    bounded(&text.join("\n"))
}

/// Claude Code prints one JSON object; a line that is one wins over noise
/// around it.
fn read_claude(stdout: &str) -> RunReport {
    let object = stdout
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
        .or_else(|| serde_json::from_str::<Value>(stdout.trim()).ok());
    let Some(object) = object else {
        return RunReport {
            result: last_lines(stdout),
            ..RunReport::default()
        };
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    // Tools the agent was not allowed to run: it could not do the work.
    let denied: Vec<&str> = object
        .get("permission_denials")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|d| d.get("tool_name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut result = text("result").and_then(bounded);
    if !denied.is_empty() {
        result = bounded(&format!(
            "permission denied for {} (give the profile --allowedTools): {}",
            denied.join(", "),
            result.unwrap_or_default()
        ));
    }
    RunReport {
        session: text("session_id")
            .filter(|s| is_session_id(s))
            .map(str::to_string),
        message: text("result").and_then(whole),
        result,
        cost_total_usd: object.get("total_cost_usd").and_then(Value::as_f64),
        input_tokens: None,
        output_tokens: None,
        failed: object
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || !denied.is_empty(),
        finished: text("type") == Some("result"),
    }
}

/// Codex prints events: `thread.started` (the session), `item.completed`
/// with `agent_message` items, `turn.completed` with running token totals,
/// `turn.failed` on failure.
fn read_codex(stdout: &str) -> RunReport {
    let mut report = RunReport::default();
    let mut error_seen = false;
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        match event.get("type").and_then(Value::as_str) {
            Some("thread.started") => {
                report.session = event
                    .get("thread_id")
                    .and_then(Value::as_str)
                    .filter(|s| is_session_id(s))
                    .map(str::to_string);
            }
            Some("item.completed") => {
                let item = event.get("item");
                let kind = item.and_then(|i| i.get("type")).and_then(Value::as_str);
                if kind == Some("agent_message")
                    && let Some(text) = item.and_then(|i| i.get("text")).and_then(Value::as_str)
                {
                    report.result = bounded(text);
                    report.message = whole(text);
                }
            }
            Some("turn.completed") => {
                report.finished = true;
                let usage = event.get("usage");
                let count = |key: &str| usage.and_then(|u| u.get(key)).and_then(Value::as_u64);
                report.input_tokens = count("input_tokens");
                report.output_tokens = count("output_tokens");
            }
            Some("turn.failed") => {
                report.failed = true;
                let message = event
                    .get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str);
                if let Some(message) = message {
                    report.result = bounded(message);
                }
            }
            Some("error") => {
                error_seen = true;
                if report.result.is_none()
                    && let Some(message) = event.get("message").and_then(Value::as_str)
                {
                    report.result = bounded(message);
                }
            }
            _ => {}
        }
    }
    // A top-level error with no completed turn is a failure (Codex reports
    // warnings as `item.completed` items, not as these).
    report.failed |= error_seen && !report.finished;
    report
}

/// The cost of a run from the session totals: what this run added to what
/// steward last recorded for the session.
pub fn run_cost(
    profile: &AgentProfile,
    report: &RunReport,
    previous: Option<&SessionTotals>,
) -> (f64, SessionTotals) {
    let totals = SessionTotals {
        cost_usd: report.cost_total_usd.unwrap_or_else(|| {
            let input = report.input_tokens.unwrap_or(0) as f64;
            let output = report.output_tokens.unwrap_or(0) as f64;
            (input * profile.input_usd_per_mtok + output * profile.output_usd_per_mtok) / 1e6
        }),
    };
    let before = previous.map_or(0.0, |p| p.cost_usd);
    let cost = (totals.cost_usd - before).max(0.0);
    (round_micro(cost), totals)
}

/// A session's running totals as steward last recorded them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SessionTotals {
    pub cost_usd: f64,
}

pub fn round_micro(usd: f64) -> f64 {
    (usd * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_json_gives_the_session_result_and_running_cost() {
        let out = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"after tool","session_id":"e39e72bb","total_cost_usd":0.10098}"#;
        let report = read_output(OutputFormat::ClaudeJson, out);
        assert_eq!(report.session.as_deref(), Some("e39e72bb"));
        assert_eq!(report.result.as_deref(), Some("after tool"));
        assert_eq!(report.cost_total_usd, Some(0.10098));
        assert!(report.finished && !report.failed);
        let error = r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500","session_id":"x","total_cost_usd":0}"#;
        assert!(read_output(OutputFormat::ClaudeJson, error).failed);
        let denied = r#"{"type":"result","subtype":"success","is_error":false,"result":"I could not","session_id":"x","permission_denials":[{"tool_name":"Bash","tool_use_id":"t","tool_input":{}}]}"#;
        let report = read_output(OutputFormat::ClaudeJson, denied);
        assert!(report.failed);
        assert!(
            report
                .result
                .unwrap()
                .starts_with("permission denied for Bash")
        );
    }

    #[test]
    fn codex_jsonl_gives_the_thread_last_message_and_tokens() {
        let out = "{\"type\":\"thread.started\",\"thread_id\":\"01a2\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_4\",\"type\":\"agent_message\",\"text\":\"first\"}}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_5\",\"type\":\"agent_message\",\"text\":\"done\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":30839,\"cached_input_tokens\":0,\"output_tokens\":30}}\n";
        let report = read_output(OutputFormat::CodexJsonl, out);
        assert_eq!(report.session.as_deref(), Some("01a2"));
        assert_eq!(report.result.as_deref(), Some("done"));
        assert_eq!(report.input_tokens, Some(30839));
        assert!(report.finished && !report.failed);
        let failed = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"error\",\"message\":\"boom\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"API 500\"}}\n";
        let report = read_output(OutputFormat::CodexJsonl, failed);
        assert!(report.failed);
        assert_eq!(report.result.as_deref(), Some("API 500"));
    }

    #[test]
    fn a_resumed_run_costs_the_difference_from_the_last_total() {
        let claude = &AgentProfile::builtins()[0];
        let report = RunReport {
            cost_total_usd: Some(0.151764),
            ..RunReport::default()
        };
        let (cost, totals) = run_cost(claude, &report, Some(&SessionTotals { cost_usd: 0.10098 }));
        assert_eq!(cost, 0.050784);
        assert_eq!(totals.cost_usd, 0.151764);
        let mut codex = AgentProfile::builtins()[1].clone();
        codex.input_usd_per_mtok = 1.0;
        codex.output_usd_per_mtok = 10.0;
        let report = RunReport {
            input_tokens: Some(2_000_000),
            output_tokens: Some(100_000),
            ..RunReport::default()
        };
        assert_eq!(run_cost(&codex, &report, None).0, 3.0);
    }

    #[test]
    fn a_session_id_that_is_not_an_id_never_reaches_a_command_line() {
        let profile = AgentProfile::builtins()
            .into_iter()
            .find(|p| p.name == "codex")
            .unwrap();
        for hostile in [
            "--dangerously-bypass-approvals-and-sandbox",
            "a b",
            "x;rm -rf ~",
            "",
        ] {
            let argv = profile.argv(Some(hostile), "go");
            assert_eq!(argv, profile.command, "{hostile:?} was used");
        }
        let resumed = profile.argv(Some("01a20775-89f9-7d60-8323-d5cb963188a8"), "go");
        assert!(resumed.contains(&"01a20775-89f9-7d60-8323-d5cb963188a8".to_string()));
        let out = r#"{"type":"thread.started","thread_id":"--yolo"}"#;
        assert_eq!(read_output(OutputFormat::CodexJsonl, out).session, None);
    }

    #[test]
    fn resuming_replaces_the_session_and_arg_prompts_go_last() {
        let codex = &AgentProfile::builtins()[1];
        let resumed = codex.argv(Some("t1"), "hi");
        assert_eq!(&resumed[resumed.len() - 3..], ["resume", "t1", "-"]);
        assert_eq!(codex.argv(None, "hi").last().unwrap(), "-");
        let mut custom = codex.clone();
        custom.prompt = PromptVia::Arg;
        custom.resume.clear();
        assert_eq!(custom.argv(Some("t1"), "hi").last().unwrap(), "hi");
    }
}
