//! Is this message a heartbeat? Configured patterns: plain text matches
//! case-insensitively anywhere in a message short enough to be a
//! scheduler's ping (a long message that mentions the word is a person's or
//! a tool's, not a heartbeat); `/re/flags` is a regular expression, matched
//! as written.

use regex::{Regex, RegexBuilder};

/// The longest message a plain pattern finds a heartbeat in. Heartbeat
/// prompts are short lines a scheduler sends (OpenClaw's default is about
/// 170 characters); a request that mentions "the heartbeat endpoint" in a
/// page of text is not one.
pub const PLAIN_MAX_CHARS: usize = 500;

/// Used when no pattern is configured, or none compiles.
pub const BUILT_IN: [&str; 3] = ["heartbeat", "scheduled ping", "cron heartbeat"];

#[derive(Debug, Clone)]
enum Matcher {
    /// Lowercased.
    Plain(String),
    Regex(Regex),
}

#[derive(Debug, Clone)]
pub struct HeartbeatPatterns {
    matchers: Vec<Matcher>,
    /// Patterns that did not compile, with why: `doctor` reports them.
    pub problems: Vec<String>,
}

impl HeartbeatPatterns {
    pub fn compile(configured: &[String]) -> HeartbeatPatterns {
        let mut matchers = Vec::new();
        let mut problems = Vec::new();
        for pattern in configured {
            match compile_one(pattern) {
                Ok(matcher) => matchers.push(matcher),
                Err(why) => {
                    problems.push(format!("heartbeat pattern `{pattern}` is skipped: {why}"))
                }
            }
        }
        if matchers.is_empty() {
            matchers = BUILT_IN
                .iter()
                .map(|p| Matcher::Plain(p.to_string()))
                .collect();
        }
        HeartbeatPatterns { matchers, problems }
    }

    pub fn matches(&self, message: &str) -> bool {
        let message = message.trim();
        let short = message.chars().count() <= PLAIN_MAX_CHARS;
        let lowered = if short {
            message.to_lowercase()
        } else {
            String::new()
        };
        self.matchers.iter().any(|matcher| match matcher {
            Matcher::Plain(text) => short && lowered.contains(text.as_str()),
            Matcher::Regex(regex) => regex.is_match(message),
        })
    }
}

fn compile_one(pattern: &str) -> Result<Matcher, String> {
    let Some((body, flags)) = pattern
        .strip_prefix('/')
        .and_then(|rest| rest.rsplit_once('/'))
    else {
        if pattern.trim().is_empty() {
            return Err("it is empty".to_string());
        }
        return Ok(Matcher::Plain(pattern.to_lowercase()));
    };
    let mut builder = RegexBuilder::new(body);
    builder.size_limit(1 << 20);
    for flag in flags.chars() {
        match flag {
            'i' => builder.case_insensitive(true),
            'm' => builder.multi_line(true),
            's' => builder.dot_matches_new_line(true),
            'x' => builder.ignore_whitespace(true),
            'U' => builder.swap_greed(true),
            other => return Err(format!("unknown flag `{other}` (use i, m, s, x or U)")),
        };
    }
    builder.build().map(Matcher::Regex).map_err(|err| {
        err.to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_match_case_insensitively_anywhere() {
        let patterns = HeartbeatPatterns::compile(&[]);
        assert!(patterns.matches("Read HEARTBEAT.md if it exists"));
        assert!(patterns.matches("[cron] Scheduled Ping"));
        assert!(!patterns.matches("please fix the login page"));
    }

    #[test]
    fn configured_plain_and_regex_patterns() {
        let patterns = HeartbeatPatterns::compile(&["wake up".into(), "/^tick \\d+$/i".into()]);
        assert!(patterns.matches("time to WAKE UP"));
        assert!(patterns.matches("TICK 42"));
        assert!(!patterns.matches("tick tock"));
        assert!(
            !patterns.matches("heartbeat"),
            "configured patterns replace the built-ins"
        );
    }

    #[test]
    fn bad_patterns_are_skipped_and_reported() {
        let patterns =
            HeartbeatPatterns::compile(&["/(unclosed/".into(), "/x/q".into(), "ping".into()]);
        assert_eq!(patterns.problems.len(), 2);
        assert!(patterns.matches("ping"));
        let none_compile = HeartbeatPatterns::compile(&["/(/".into()]);
        assert!(
            none_compile.matches("heartbeat"),
            "falls back to the built-ins"
        );
    }

    #[test]
    fn a_long_message_that_mentions_a_heartbeat_is_not_one() {
        let patterns = HeartbeatPatterns::compile(&[]);
        let openclaw = "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. \
            Do not infer or repeat old tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.";
        assert!(patterns.matches(openclaw));
        let request = format!(
            "The heartbeat endpoint of the API returns 500 since this morning. {}",
            "Here is the log:\n  GET /health 500 12ms\n".repeat(20)
        );
        assert!(!patterns.matches(&request));
        let regex = HeartbeatPatterns::compile(&["/heartbeat/i".into()]);
        assert!(regex.matches(&request), "a regex is matched as written");
    }

    #[test]
    fn huge_messages_are_fine() {
        let message = "x".repeat(8 << 20) + " heartbeat";
        assert!(!HeartbeatPatterns::compile(&[]).matches(&message));
        assert!(HeartbeatPatterns::compile(&["/heartbeat$/".into()]).matches(&message));
    }
}
