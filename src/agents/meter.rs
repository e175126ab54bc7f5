//! What an agent run has used so far, read while it runs: Claude Code's
//! `stream-json` output (each model response's tokens, and a usage limit
//! with its reset), and Codex's own session log (its rollout file, where
//! the thread's token totals and rate limits are written as it goes; its
//! `--json` output has them only at the end). Priced with the profile's
//! prices, it stops a run that would cross a cost bound, and charges a run
//! that ended before it said what it cost.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::Usage;
use super::prices::Priced;

/// What the output of a run showed so far.
#[derive(Debug, Default)]
pub struct Seen {
    /// Claude Code: each model response's tokens and the model that gave
    /// it, by message id (a response is printed once per content block,
    /// with the same usage).
    responses: HashMap<String, (Usage, Option<String>)>,
    /// Codex: the thread, to find its rollout file.
    pub thread: Option<String>,
    /// The reset of a usage limit the client reported.
    pub limit_resets_at: Option<DateTime<Utc>>,
    /// Lines of output seen: a run that waited for a person and prints
    /// again has moved on.
    pub lines: u64,
    /// Lines that show the run moving: all but the client's reports that
    /// it retries a failed request (Claude Code's `api_retry`), which a
    /// client stuck on a refused request prints for ever.
    pub moving: u64,
    /// The requests retried since the last line that moved were refused
    /// by a rate limit (HTTP 429).
    pub retrying_on_limit: bool,
    /// What the last line that moved said, in a few words: where a run
    /// that went silent was.
    pub last_move: Option<String>,
}

/// An event of the client's stream in a few words: its type, and the
/// tool it called or the command it ran where it says.
fn what_moved(event: &Value) -> String {
    let kind = (event.get("type").and_then(Value::as_str)).unwrap_or("event");
    // Claude Code: what the message holds (a tool call, a tool's result).
    let part = (event
        .pointer("/message/content/0/type")
        .and_then(Value::as_str))
    .filter(|part| *part != "text");
    let tool = event
        .pointer("/message/content/0/name")
        .or_else(|| event.pointer("/item/type"))
        .and_then(Value::as_str);
    let command = (event.pointer("/message/content/0/input/command"))
        .or_else(|| event.pointer("/item/command"))
        .and_then(Value::as_str);
    let mut said = kind.to_string();
    if let Some(part) = part {
        said.push_str(&format!(" {part}"));
    }
    if let Some(tool) = tool {
        said.push_str(&format!(" {tool}"));
    }
    if let Some(command) = command {
        said.push_str(&format!(
            ": {}",
            crate::text::head(&crate::text::one_line(command), 100)
        ));
    }
    said
}

impl Seen {
    /// Reads one line of the agent's output.
    pub fn line(&mut self, line: &str) {
        self.lines += 1;
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            self.moved(crate::text::head(&crate::text::one_line(line), 120));
            return;
        };
        if event.get("subtype").and_then(Value::as_str) == Some("api_retry") {
            self.retrying_on_limit = event.get("error_status").and_then(Value::as_i64) == Some(429)
                || event.get("error").and_then(Value::as_str) == Some("rate_limit");
            return;
        }
        self.moved(what_moved(&event));
        match event.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let message = event.get("message");
                let id = message.and_then(|m| m.get("id")).and_then(Value::as_str);
                let usage = message.and_then(|m| m.get("usage"));
                let model = (message.and_then(|m| m.get("model")).and_then(Value::as_str))
                    .filter(|m| !m.is_empty() && m.len() <= 200)
                    .map(str::to_string);
                if let (Some(id), Some(usage)) = (id, usage) {
                    self.responses
                        .insert(id.to_string(), (claude_usage(usage), model));
                }
                // A rejected request carries the limit's reset.
                if let Some(at) = event
                    .pointer("/api_error_params/rate_limit_info/resetsAt")
                    .and_then(Value::as_i64)
                {
                    self.limit_resets_at = DateTime::from_timestamp(at, 0);
                }
            }
            Some("rate_limit_event") => {
                let info = event.get("rate_limit_info");
                let rejected =
                    info.and_then(|i| i.get("status")).and_then(Value::as_str) == Some("rejected");
                if rejected
                    && let Some(at) = info.and_then(|i| i.get("resetsAt")).and_then(Value::as_i64)
                {
                    self.limit_resets_at = DateTime::from_timestamp(at, 0);
                }
            }
            Some("thread.started") => {
                self.thread = event
                    .get("thread_id")
                    .and_then(Value::as_str)
                    .filter(|t| super::is_session_id(t))
                    .map(str::to_string);
            }
            _ => {}
        }
    }

    fn moved(&mut self, what: String) {
        self.moving += 1;
        self.retrying_on_limit = false;
        self.last_move = Some(what);
    }

    /// The tokens of the responses seen (Claude Code: this run's).
    pub fn usage(&self) -> Usage {
        self.responses
            .values()
            .fold(Usage::default(), |total, (usage, _)| total.plus(usage))
    }

    /// What the responses seen cost, each at the prices of the model that
    /// gave it.
    pub fn metered(&self, price: &dyn Fn(Option<&str>) -> Priced) -> Metered {
        let mut metered = Metered::default();
        for (usage, model) in self.responses.values() {
            metered.add(usage, model.as_deref(), price);
        }
        metered
    }
}

/// What a run's model calls cost so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metered {
    pub usd: f64,
    /// The dearest single call: what the next one may cost.
    pub largest_usd: f64,
    /// Models the price table does not know, priced at its highest.
    pub unknown_models: Vec<String>,
}

impl Metered {
    fn add(&mut self, usage: &Usage, model: Option<&str>, price: &dyn Fn(Option<&str>) -> Priced) {
        let priced = price(model);
        let usd = usage.cost(priced.prices());
        self.usd += usd;
        self.largest_usd = self.largest_usd.max(usd);
        if let (Priced::Unknown(_), Some(model)) = (&priced, model)
            && !self.unknown_models.iter().any(|m| m == model)
        {
            self.unknown_models.push(model.to_string());
        }
    }
}

/// Claude's usage object: input without the cache, cache writes, cache
/// reads, output (at the start of a response, a placeholder count).
pub fn claude_usage(usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input: count("input_tokens"),
        cache_write: count("cache_creation_input_tokens"),
        cached_input: count("cache_read_input_tokens"),
        output: count("output_tokens"),
    }
}

/// Codex's usage object (`turn.completed`, the rollout's token counts):
/// its input counts the cached tokens too.
pub fn codex_usage(usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = count("cached_input_tokens");
    Usage {
        input: count("input_tokens").saturating_sub(cached),
        cached_input: cached,
        cache_write: count("cache_write_input_tokens"),
        output: count("output_tokens"),
    }
}

/// A Codex thread's rollout file, read as it grows.
#[derive(Debug)]
pub struct Rollout {
    sessions: PathBuf,
    file: Option<PathBuf>,
    /// How far the file has been read (whole lines only), and what those
    /// lines said: each read takes only what was appended since.
    read_to: u64,
    state: RolloutState,
}

/// What a rollout file says of its thread so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RolloutState {
    /// The thread's token totals.
    pub totals: Option<Usage>,
    /// The model of its last turn.
    pub model: Option<String>,
    /// The tokens of each model call, in order.
    pub calls: Vec<Usage>,
    /// When a rate-limit window that is used up resets.
    pub limit_resets_at: Option<DateTime<Utc>>,
    /// The turn ended on a usage or rate limit.
    pub limited: bool,
}

impl Rollout {
    /// The rollouts under `codex_home` (`$CODEX_HOME`, else `~/.codex`).
    pub fn new(codex_home: &Path) -> Rollout {
        Rollout {
            sessions: codex_home.join("sessions"),
            file: None,
            read_to: 0,
            state: RolloutState::default(),
        }
    }

    /// Reads the rollout of `thread`, once its file is found (in the
    /// newest day folders: `sessions/YYYY/MM/DD/rollout-…-THREAD.jsonl`).
    pub fn read(&mut self, thread: &str) -> &RolloutState {
        if self.file.is_none() {
            self.file = find_rollout(&self.sessions, thread);
        }
        let Some(file) = &self.file else {
            return &self.state;
        };
        let Some(appended) = read_appended(file, self.read_to) else {
            return &self.state;
        };
        // A file that shrank was replaced: read it again from its start.
        if appended.restarted {
            self.read_to = 0;
            self.state = RolloutState::default();
        }
        let mut whole = (appended.bytes.iter().rposition(|b| *b == b'\n')).map_or(0, |i| i + 1);
        // A last line without its newline yet counts once it is whole
        // JSON (no prefix of an object is).
        let rest = &appended.bytes[whole..];
        if !rest.is_empty() && serde_json::from_slice::<Value>(rest).is_ok() {
            whole = appended.bytes.len();
        }
        for line in String::from_utf8_lossy(&appended.bytes[..whole]).lines() {
            self.state.apply(line);
        }
        self.read_to = appended.from + whole as u64;
        &self.state
    }
}

/// What was appended to a file past `from` (at most 64 MiB at a time).
struct Appended {
    from: u64,
    bytes: Vec<u8>,
    restarted: bool,
}

fn read_appended(path: &Path, from: u64) -> Option<Appended> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = crate::os::safe_file::open_regular(path).ok()??;
    let len = file.metadata().ok()?.len();
    let (from, restarted) = if len < from { (0, true) } else { (from, false) };
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.take(64 * 1024 * 1024).read_to_end(&mut bytes).ok()?;
    Some(Appended {
        from,
        bytes,
        restarted,
    })
}

/// Reads a rollout's events: the last token totals, a used-up rate-limit
/// window's reset, and whether the turn ended on a limit.
pub fn read_rollout(text: &str) -> RolloutState {
    let mut state = RolloutState::default();
    for line in text.lines() {
        state.apply(line);
    }
    state
}

impl RolloutState {
    /// Takes one line of a rollout into account.
    fn apply(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let Some(payload) = event.get("payload") else {
            return;
        };
        if event.get("type").and_then(Value::as_str) == Some("turn_context")
            && let Some(model) = payload.get("model").and_then(Value::as_str)
        {
            self.model = Some(model.to_string()).filter(|m| !m.is_empty() && m.len() <= 200);
        }
        match payload.get("type").and_then(Value::as_str) {
            Some("token_count") => {
                let totals = payload.pointer("/info/total_token_usage").map(codex_usage);
                // Each call's own tokens, or what the totals grew by.
                let call = match (
                    payload.pointer("/info/last_token_usage"),
                    totals,
                    self.totals,
                ) {
                    (Some(call), _, _) => Some(codex_usage(call)),
                    (None, Some(now), Some(before)) => Some(now.since(&before)),
                    (None, now, None) => now,
                    (None, None, Some(_)) => None,
                };
                self.calls.extend(call);
                if totals.is_some() {
                    self.totals = totals;
                }
                for window in ["primary", "secondary"] {
                    let Some(window) = payload.pointer(&format!("/rate_limits/{window}")) else {
                        continue;
                    };
                    let used = window
                        .get("used_percent")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0);
                    let resets = window
                        .get("resets_at")
                        .and_then(Value::as_i64)
                        .and_then(|at| DateTime::from_timestamp(at, 0));
                    if used >= 100.0 && resets.is_some() {
                        self.limit_resets_at = self.limit_resets_at.max(resets);
                    }
                }
            }
            Some("task_complete") => {
                let info = payload.pointer("/error/codex_error_info");
                self.limited = match info {
                    Some(Value::String(kind)) => {
                        kind == "usage_limit_exceeded" || kind == "rate_limit_exceeded"
                    }
                    Some(other) => {
                        other
                            .pointer("/response_too_many_failed_attempts/http_status_code")
                            .and_then(Value::as_u64)
                            == Some(429)
                    }
                    None => false,
                };
            }
            _ => {}
        }
    }
}

/// The rollout file of `thread` in the three newest day folders.
fn find_rollout(sessions: &Path, thread: &str) -> Option<PathBuf> {
    let suffix = format!("-{thread}.jsonl");
    let newest = |dir: &Path| -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        entries.reverse();
        entries
    };
    let mut days = Vec::new();
    'years: for year in newest(sessions) {
        for month in newest(&year) {
            for day in newest(&month) {
                days.push(day);
                if days.len() == 3 {
                    break 'years;
                }
            }
        }
    }
    days.iter().flat_map(|day| newest(day)).find(|file| {
        file.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
    })
}

/// What a run may still spend before it crosses a bound, and which.
#[derive(Debug, Clone, PartialEq)]
pub struct Allowance {
    pub usd: f64,
    /// The bound, for the run's result (`the goal's max_cost_usd ($3.00)`).
    pub bound: String,
    /// It is the goal's own bound (not the day's cap).
    pub goals: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_responses_count_once_whatever_their_blocks() {
        let mut seen = Seen::default();
        for line in [
            r#"{"type":"system","subtype":"init"}"#,
            r#"{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":1200,"output_tokens":1,"cache_creation_input_tokens":9000,"cache_read_input_tokens":0}}}"#,
            r#"{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":1200,"output_tokens":1,"cache_creation_input_tokens":9000,"cache_read_input_tokens":0}}}"#,
            r#"{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":500,"output_tokens":1,"cache_creation_input_tokens":250,"cache_read_input_tokens":18150}}}"#,
        ] {
            seen.line(line);
        }
        assert_eq!(
            seen.usage(),
            Usage {
                input: 1700,
                cache_write: 9250,
                cached_input: 18150,
                output: 2,
            }
        );
    }

    #[test]
    fn a_rejected_limit_gives_its_reset() {
        let mut seen = Seen::default();
        seen.line(r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1795700000}}"#);
        assert_eq!(seen.limit_resets_at, None);
        seen.line(r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795701424,"rateLimitType":"five_hour"}}"#);
        assert_eq!(
            seen.limit_resets_at,
            DateTime::from_timestamp(1795701424, 0)
        );
    }

    #[test]
    fn a_rollout_gives_the_threads_totals_and_a_spent_windows_reset() {
        let text = concat!(
            r#"{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":20400,"cached_input_tokens":18000,"output_tokens":65}},"rate_limits":{"primary":{"used_percent":37.5,"resets_at":1795704188}}}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":100.0,"window_minutes":300,"resets_at":1795702250},"secondary":{"used_percent":42.0,"resets_at":1796102250}}}}"#,
            "\n",
            r#"{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"You’ve hit your usage limit.","codex_error_info":"usage_limit_exceeded"}}}"#,
            "\n",
        );
        let state = read_rollout(text);
        assert_eq!(
            state.totals,
            Some(Usage {
                input: 2400,
                cached_input: 18000,
                cache_write: 0,
                output: 65,
            })
        );
        assert_eq!(
            state.limit_resets_at,
            DateTime::from_timestamp(1795702250, 0)
        );
        assert!(state.limited);
    }

    #[test]
    fn the_rollout_is_found_in_the_newest_days() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/11/26");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::create_dir_all(home.path().join("sessions/2026/10/01")).unwrap();
        std::fs::write(
            day.join("rollout-2026-11-26T04-00-00-01a2.jsonl"),
            r#"{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"output_tokens":5}}}}"#,
        )
        .unwrap();
        let mut rollout = Rollout::new(home.path());
        assert_eq!(rollout.read("01a2").totals.unwrap().output, 5);
        assert_eq!(Rollout::new(home.path()).read("other").totals, None);
    }

    #[test]
    fn a_rollout_is_read_as_it_grows_half_lines_included() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/11/26");
        std::fs::create_dir_all(&day).unwrap();
        let path = day.join("rollout-2026-11-26T04-00-00-01a2.jsonl");
        let line = |input: u64| {
            format!(
                "{{\"type\":\"event_msg\",\"payload\":{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{input},\"output_tokens\":0}}}}}}}}\n"
            )
        };
        let mut rollout = Rollout::new(home.path());
        std::fs::write(&path, line(10)).unwrap();
        assert_eq!(rollout.read("01a2").calls.len(), 1);
        // Half a line: not yet; the rest: once.
        let second = line(25);
        let (head, tail) = second.split_at(20);
        let append = |text: &str| {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            file.write_all(text.as_bytes()).unwrap();
        };
        append(head);
        assert_eq!(rollout.read("01a2").totals.unwrap().input, 10);
        append(tail);
        let state = rollout.read("01a2");
        assert_eq!(state.totals.unwrap().input, 25);
        assert_eq!(
            state.calls.iter().map(|c| c.input).collect::<Vec<_>>(),
            [10, 15]
        );
        // Replaced by a shorter file: read again from its start.
        std::fs::write(&path, line(3)).unwrap();
        assert_eq!(rollout.read("01a2").totals.unwrap().input, 3);
    }
}
