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
/// cut short, and whatever follows `Bearer` or `token`. A server that echoes
/// a fragment of the token gives none of it away.
pub fn redact_secrets(text: &str) -> String {
    static SECRET: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let secret = SECRET.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\b(?:gh[pousr]_[A-Za-z0-9_]+|github_pat_[A-Za-z0-9_]+)|\b(?:bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}",
        )
        .expect("the secret pattern compiles")
    });
    secret.replace_all(text, "<redacted>").into_owned()
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
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(Duration::from_secs(1)), "1s");
        assert_eq!(duration(Duration::from_secs(90)), "90s");
        assert_eq!(duration(Duration::from_millis(1500)), "1500ms");
    }
}
