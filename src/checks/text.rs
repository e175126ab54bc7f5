//! Short, single-line text from untrusted sources: command output, server
//! answers and the targets agents write.

use std::time::Duration;

pub use crate::text::{head, one_line};

/// The longest detail or reason an outcome carries, in characters.
pub const MAX_CHARS: usize = 300;

/// Keeps the last `max` characters, starting a shortened text with `…`: the
/// end of a command's output is where it says why it failed.
pub fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let skip = count - max.saturating_sub(1);
    std::iter::once('…')
        .chain(text.chars().skip(skip))
        .collect()
}

/// Replaces token-shaped text with `<redacted>`: GitHub's tokens by their
/// prefixes (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), whole or
/// cut short, whatever follows `Bearer` or `token`, and long runs that look
/// like a key (32 characters or more mixing capitals, small letters and
/// digits; hex digests such as commit ids stay). A server that echoes a
/// fragment of the token gives none of it away.
pub fn redact_secrets(text: &str) -> String {
    static SECRET: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static KEY_SHAPED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let secret = SECRET.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\b(?:gh[pousr]_[A-Za-z0-9_]+|github_pat_[A-Za-z0-9_]+)|\b(?:bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}",
        )
        .expect("the secret pattern compiles")
    });
    let key_shaped = KEY_SHAPED.get_or_init(|| {
        regex::Regex::new(r"[A-Za-z0-9_+/=-]{32,}").expect("the key pattern compiles")
    });
    let text = secret.replace_all(text, "<redacted>");
    key_shaped
        .replace_all(&text, |found: &regex::Captures<'_>| {
            let run = &found[0];
            let mixed = run.chars().any(|c| c.is_ascii_uppercase())
                && run.chars().any(|c| c.is_ascii_lowercase())
                && run.chars().any(|c| c.is_ascii_digit());
            if mixed {
                "<redacted>".to_string()
            } else {
                run.to_string()
            }
        })
        .into_owned()
}

/// [`redact_secrets`], and every piece of 8 characters or more of the
/// `known` secrets (the token a check was given), wherever it appears.
pub fn redact_known(text: &str, known: &[&str]) -> String {
    const PIECE: usize = 8;
    let mut text = redact_secrets(text);
    for secret in known.iter().filter(|s| s.len() >= PIECE) {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < chars.len() {
            // The longest run from here that the secret holds.
            let start = chars[i].0;
            let mut end = i;
            while end < chars.len() {
                let stop = chars.get(end + 1).map_or(text.len(), |(at, _)| *at);
                if !secret.contains(&text[start..stop]) {
                    break;
                }
                end += 1;
            }
            if end - i >= PIECE {
                out.push_str("<redacted>");
                i = end;
            } else {
                out.push(chars[i].1);
                i += 1;
            }
        }
        text = out;
    }
    text
}

/// `1s`, `90s` or `1500ms`: how long something was allowed to take.
pub fn duration(span: Duration) -> String {
    if span.subsec_nanos() == 0 {
        format!("{}s", span.as_secs())
    } else {
        format!("{}ms", span.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_keep_at_most_max_characters() {
        assert_eq!(head("abcdef", 6), "abcdef");
        assert_eq!(head("abcdef", 4), "abc…");
        assert_eq!(tail("abcdef", 6), "abcdef");
        assert_eq!(tail("abcdef", 4), "…def");
        assert_eq!(tail("ééééé", 3), "…éé");
        assert_eq!(
            head(&"x".repeat(1000), MAX_CHARS).chars().count(),
            MAX_CHARS
        );
    }

    #[test]
    fn token_shaped_text_is_redacted_whole_or_cut_short() {
        assert_eq!(
            redact_secrets("bad credentials for ghp_abc123 (ghp_abc…) and github_pat_11AB_x"),
            "bad credentials for <redacted> (<redacted>…) and <redacted>"
        );
        assert_eq!(
            redact_secrets("Authorization: Bearer abcdefgh12345"),
            "Authorization: <redacted>"
        );
        assert_eq!(
            redact_secrets("ghost town, tokens of esteem"),
            "ghost town, tokens of esteem"
        );
        // A key without its prefix; a commit id stays.
        assert_eq!(
            redact_secrets("key aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3 seen"),
            "key <redacted> seen"
        );
        let commit = "4f2c1aa0d9e8b7c6a5f4e3d2c1b0a9f8e7d6c5b4";
        assert_eq!(redact_secrets(commit), commit);
    }

    #[test]
    fn pieces_of_a_known_token_are_redacted_wherever_they_appear() {
        let token = "ghp_0123456789abcdefghijABCDEFGHIJklmn";
        assert_eq!(
            redact_known("the server said: 89abcdefghij, bad", &[token]),
            "the server said: <redacted>, bad"
        );
        assert_eq!(redact_known("nothing of it", &[token]), "nothing of it");
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(Duration::from_secs(1)), "1s");
        assert_eq!(duration(Duration::from_secs(90)), "90s");
        assert_eq!(duration(Duration::from_millis(1500)), "1500ms");
    }
}
