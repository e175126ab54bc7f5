//! The agent CLIs. This file holds their profiles (steward-guide(7),
//! "Profiles"): how to start one, how to resume its session, and how to
//! read what it printed, as pure functions. [`meter`] reads what a run has
//! used while it runs, and [`supervise`] runs one under supervision: the
//! only place here that starts a process.

pub mod meter;
pub mod prices;
pub mod supervise;

use chrono::{DateTime, Utc};
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
    /// What its tokens cost: Codex reports tokens, not dollars, and a run
    /// stopped before it said what it cost is charged for what it used.
    pub prices: Prices,
}

/// US dollars per million tokens, and where they come from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prices {
    /// Input not read from the cache.
    pub input: f64,
    /// Input read from the cache.
    pub cached_input: f64,
    /// Input written to the cache (Claude).
    pub cache_write: f64,
    pub output: f64,
    /// The profile's own (set in `steward.yaml`): they price every model.
    /// Otherwise a model the client names is priced from the table
    /// ([`prices`]), and these price a run that names none.
    pub own: bool,
    /// When and whose list prices they are, for `config` and
    /// steward-guide(7), "Profiles".
    pub as_of: Option<String>,
}

/// Tokens a run or a session used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input not read from the cache.
    pub input: u64,
    pub cached_input: u64,
    pub cache_write: u64,
    pub output: u64,
}

impl Usage {
    pub fn plus(self, other: &Usage) -> Usage {
        Usage {
            input: self.input + other.input,
            cached_input: self.cached_input + other.cached_input,
            cache_write: self.cache_write + other.cache_write,
            output: self.output + other.output,
        }
    }

    /// What `self` holds beyond `earlier` (totals read twice).
    pub fn since(self, earlier: &Usage) -> Usage {
        Usage {
            input: self.input.saturating_sub(earlier.input),
            cached_input: self.cached_input.saturating_sub(earlier.cached_input),
            cache_write: self.cache_write.saturating_sub(earlier.cache_write),
            output: self.output.saturating_sub(earlier.output),
        }
    }

    /// What it cost at `prices`.
    pub fn cost(&self, prices: &Prices) -> f64 {
        (self.input as f64 * prices.input
            + self.cached_input as f64 * prices.cached_input
            + self.cache_write as f64 * prices.cache_write
            + self.output as f64 * prices.output)
            / 1e6
    }
}

impl AgentProfile {
    /// What `model` costs as this profile runs it: the profile's own
    /// prices, else the table's for a model the client named, else the
    /// profile's for a run that named none.
    pub fn prices_for(&self, model: Option<&str>) -> prices::Priced {
        match model {
            Some(model) if !self.prices.own => prices::of_model(model),
            _ => prices::Priced::Known(self.prices.clone()),
        }
    }

    /// The built-in profiles: Claude Code and Codex CLI.
    pub fn builtins() -> Vec<AgentProfile> {
        // A fresh run is the base argv plus `fresh`; a resumed one, the base
        // plus `resume`.
        let argv = |base: &[&str], tail: &[&str]| -> Vec<String> {
            base.iter().chain(tail).map(|s| s.to_string()).collect()
        };
        // Headless Claude Code asks before running a tool, and refuses:
        // the profile grants no tool itself. A sandboxed run (the default
        // where the sandbox can start) runs Bash inside it without asking,
        // and `steward` and steward's MCP tools as the settings steward
        // writes for it allow; an unsandboxed one what the workspace's
        // own permission settings allow. stream-json prints each model
        // response as it comes (its tokens, a usage limit and its reset),
        // then the same result object as json.
        let claude = [
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
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
            // Codex's own goals would take turns steward never sees.
            "-c",
            "features.goals=false",
        ];
        vec![
            AgentProfile {
                name: "claude".into(),
                command: argv(&claude, &[]),
                prompt: PromptVia::Stdin,
                resume: argv(&claude, &["--resume", "{session}"]),
                output: OutputFormat::ClaudeJson,
                // Claude Code reports what a run cost; these price a run
                // stopped before it did, and meter one as it goes.
                prices: Prices {
                    input: 3.0,
                    cache_write: 3.75,
                    cached_input: 0.30,
                    output: 15.0,
                    own: false,
                    as_of: Some("Claude Sonnet list prices, 2025-09".to_string()),
                },
            },
            AgentProfile {
                name: "codex".into(),
                command: argv(&codex, &["-"]),
                prompt: PromptVia::Stdin,
                resume: argv(&codex, &["resume", "{session}", "-"]),
                output: OutputFormat::CodexJsonl,
                prices: Prices {
                    input: 1.25,
                    cached_input: 0.125,
                    cache_write: 0.0,
                    output: 10.0,
                    own: false,
                    as_of: Some("OpenAI GPT-5 list prices, 2025-08".to_string()),
                },
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
    pub session_usage: Option<Usage>,
    /// The model the session ran, when the client said (Codex's rollout).
    pub model: Option<String>,
    /// What this run's output showed it cost, each response at its model's
    /// prices, when it said nothing of the session (Claude Code stopped
    /// before its result).
    pub run_cost_usd: Option<f64>,
    /// The tokens this run's output showed, when it said nothing of the
    /// session (Claude Code stopped before its result).
    pub run_usage: Option<Usage>,
    /// It ended on a usage or rate limit of the agent's account: no fault
    /// of the work, and no use trying before `limit_resets_at`.
    pub limited: bool,
    pub limit_resets_at: Option<DateTime<Utc>>,
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

/// Claude Code prints one JSON object (`json`), or one per event ending
/// with the same object (`stream-json`); a line that is one wins over noise
/// around it.
fn read_claude(stdout: &str) -> RunReport {
    let mut seen = crate::agents::meter::Seen::default();
    for line in stdout.lines() {
        seen.line(line);
    }
    let object = stdout
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
        .or_else(|| serde_json::from_str::<Value>(stdout.trim()).ok());
    let Some(object) = object else {
        // Stopped before its result: what its responses showed.
        let usage = seen.usage();
        return RunReport {
            result: last_lines(stdout),
            run_usage: (usage != Usage::default()).then_some(usage),
            limit_resets_at: seen.limit_resets_at,
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
            "permission denied for {} (allow it in the workspace's .claude/settings.json, or give the profile --allowedTools): {}",
            denied.join(", "),
            result.unwrap_or_default()
        ));
    }
    let failed = object
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || !denied.is_empty();
    // A subscription's usage limit, or the API's rate limit after Claude
    // Code's own retries.
    let limited = failed
        && (text("api_error") == Some("usage_limit_reached")
            || object.get("api_error_status").and_then(Value::as_u64) == Some(429));
    RunReport {
        session: text("session_id")
            .filter(|s| is_session_id(s))
            .map(str::to_string),
        message: text("result").and_then(whole),
        result,
        cost_total_usd: object.get("total_cost_usd").and_then(Value::as_f64),
        session_usage: None,
        model: None,
        run_usage: None,
        run_cost_usd: None,
        limited,
        limit_resets_at: seen.limit_resets_at.filter(|_| limited),
        failed,
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
                report.session_usage = event.get("usage").map(crate::agents::meter::codex_usage);
            }
            Some("turn.failed") => {
                report.failed = true;
                let message = event
                    .get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str);
                if let Some(message) = message {
                    report.result = bounded(message);
                    report.limited = is_codex_limit(message);
                    report.limit_resets_at = try_again_at(message, chrono::Local::now());
                }
            }
            // Codex retrying: not an error of the run.
            Some("error")
                if event
                    .get("message")
                    .and_then(Value::as_str)
                    .is_some_and(|m| m.starts_with("Reconnecting...")) => {}
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

/// Whether a failed Codex turn's message is a usage or rate limit of the
/// account (Codex 0.171's texts, either apostrophe).
fn is_codex_limit(message: &str) -> bool {
    let message = message.replace('’', "'").to_lowercase();
    [
        "hit your usage limit",
        "quota exceeded. check your plan",
        "out of credits",
        "hit your spend cap",
        "exceeded retry limit, last status: 429",
        "rate limit exceeded:",
    ]
    .iter()
    .any(|pattern| message.contains(pattern))
}

/// The time in "try again at 2:10 PM" or "try again at Nov 29th, 2026
/// 12:22 PM" (Codex writes the local time of the process, which is
/// steward's too), in UTC.
pub fn try_again_at(message: &str, now: DateTime<chrono::Local>) -> Option<DateTime<Utc>> {
    use chrono::TimeZone;
    let rest = message.split("try again at ").nth(1)?;
    let rest = rest.trim_end_matches(['.', ' ']);
    let (date, time) = match rest.rsplit_once(", ") {
        // "Nov 29th, 2026 12:22 PM": the year starts the time part.
        Some((month_day, year_time)) => {
            let (year, time) = year_time.split_once(' ')?;
            let month_day: String = month_day
                .replace("st", "")
                .replace("nd", "")
                .replace("rd", "")
                .replace("th", "");
            let date =
                chrono::NaiveDate::parse_from_str(&format!("{month_day} {year}"), "%b %d %Y")
                    .ok()?;
            (date, time)
        }
        None => (now.date_naive(), rest),
    };
    let time = chrono::NaiveTime::parse_from_str(time.trim(), "%I:%M %p").ok()?;
    chrono::Local
        .from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|at| at.with_timezone(&Utc))
}

/// The cost of a run from the session totals: what this run added to what
/// steward last recorded for the session. A run that ended before it said
/// (stopped, or killed at its timeout) is charged for what its output
/// showed it used.
pub fn run_cost(
    profile: &AgentProfile,
    report: &RunReport,
    previous: Option<&SessionTotals>,
) -> (f64, SessionTotals) {
    let before = previous.map_or(0.0, |p| p.cost_usd);
    let prices = profile.prices_for(report.model.as_deref());
    let total = match (report.cost_total_usd, report.session_usage) {
        (Some(usd), _) => usd,
        (None, Some(session)) => session.cost(prices.prices()),
        (None, None) => {
            before
                + (report.run_cost_usd)
                    .unwrap_or_else(|| report.run_usage.map_or(0.0, |u| u.cost(prices.prices())))
        }
    };
    let totals = SessionTotals { cost_usd: total };
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
    fn the_built_in_profiles_grant_no_tool_of_their_own() {
        for profile in AgentProfile::builtins() {
            for word in profile.command.iter().chain(&profile.resume) {
                assert!(
                    ![
                        "--allowedTools",
                        "--allowed-tools",
                        "--dangerously-skip-permissions",
                        "--yolo"
                    ]
                    .contains(&word.as_str())
                        && !word.starts_with("--dangerously"),
                    "{}: {word}",
                    profile.name
                );
            }
        }
    }

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
        assert_eq!(report.session_usage.unwrap().input, 30839);
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
        codex.prices = Prices {
            input: 1.0,
            cached_input: 0.1,
            output: 10.0,
            own: true,
            ..Prices::default()
        };
        let report = RunReport {
            session_usage: Some(Usage {
                input: 2_000_000,
                cached_input: 10_000_000,
                output: 100_000,
                ..Usage::default()
            }),
            ..RunReport::default()
        };
        assert_eq!(run_cost(&codex, &report, None).0, 4.0);
        // Stopped before it said: charged for what its output showed.
        let stopped = RunReport {
            run_usage: Some(Usage {
                input: 1_000_000,
                ..Usage::default()
            }),
            ..RunReport::default()
        };
        let (cost, totals) = run_cost(claude, &stopped, Some(&SessionTotals { cost_usd: 0.5 }));
        assert_eq!(cost, 3.0);
        assert_eq!(totals.cost_usd, 3.5);
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

    #[test]
    fn usage_limits_are_told_from_failures_with_their_reset() {
        let claude = concat!(
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795701424,"rateLimitType":"five_hour"}}"#,
            "\n",
            r#"{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":429,"api_error":"usage_limit_reached","result":"You've hit your 5-hour limit · resets 1:57pm (UTC)","total_cost_usd":0,"session_id":"s1"}"#,
        );
        let report = read_output(OutputFormat::ClaudeJson, claude);
        assert!(report.limited && report.failed);
        assert_eq!(
            report.limit_resets_at,
            DateTime::from_timestamp(1795701424, 0)
        );
        let codex = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"error\",\"message\":\"Reconnecting... 1/3 (timeout)\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"You’ve hit your usage limit. Upgrade to Pro or try again at 2:10 PM.\"}}\n";
        let report = read_output(OutputFormat::CodexJsonl, codex);
        assert!(report.limited && report.failed);
        assert!(report.limit_resets_at.is_some());
        let other = "{\"type\":\"turn.failed\",\"error\":{\"message\":\"API 500\"}}\n";
        assert!(!read_output(OutputFormat::CodexJsonl, other).limited);
    }

    #[test]
    fn codex_reset_times_are_read_in_local_time() {
        use chrono::TimeZone;
        let now = chrono::Local
            .with_ymd_and_hms(2026, 11, 26, 9, 0, 0)
            .unwrap();
        let same_day = try_again_at("…or try again at 2:10 PM.", now).unwrap();
        assert_eq!(
            same_day,
            chrono::Local
                .with_ymd_and_hms(2026, 11, 26, 14, 10, 0)
                .unwrap()
                .with_timezone(&Utc)
        );
        let later = try_again_at("…or try again at Nov 29th, 2026 12:22 PM.", now).unwrap();
        assert_eq!(
            later,
            chrono::Local
                .with_ymd_and_hms(2026, 11, 29, 12, 22, 0)
                .unwrap()
                .with_timezone(&Utc)
        );
        assert_eq!(try_again_at("Try again later.", now), None);
    }
}
