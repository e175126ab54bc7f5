//! Text that must stay on one line: goal text in history lines, the
//! mirror and the stewardship block, and details from untrusted sources.

/// Collapses every run of whitespace to one space and replaces other control
/// characters, so that a detail cannot break a line of a goal file or send
/// escape sequences to the terminal that prints it.
pub fn one_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.extend(
            word.chars()
                .map(|c| if c.is_control() { '\u{FFFD}' } else { c }),
        );
    }
    line
}

/// Keeps the first `max` characters, ending a shortened text with `…`.
pub fn head(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut kept: String = text.chars().take(max.saturating_sub(1)).collect();
    kept.push('…');
    kept
}

/// `text` as one word for a POSIX shell: as it is when it has nothing a
/// shell reads specially, else in single quotes.
pub fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=+,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// "1 goal", "2 goals": a count with the noun in the number it takes.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The lines that differ between `old` and `new`, as a unified diff with a
/// line of context (for a person comparing two versions of a goal).
pub fn line_diff(old: &str, new: &str) -> String {
    diff_between(old, new, ("when the draft was taken", "now"))
}

/// [`line_diff`] with the names of the two versions in its header.
pub fn diff_between(old: &str, new: &str, (was, is): (&str, &str)) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(1)
        .header(was, is)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_whitespace_and_defuses_control_characters() {
        assert_eq!(one_line("  a\n\n b\t\r\nc  "), "a b c");
        assert_eq!(
            one_line("red \x1b[31mtext\x07"),
            "red \u{FFFD}[31mtext\u{FFFD}"
        );
        assert_eq!(one_line(" \n "), "");
    }

    #[test]
    fn head_keeps_at_most_max_characters() {
        assert_eq!(head("abcdef", 6), "abcdef");
        assert_eq!(head("abcdef", 4), "abc…");
        assert_eq!(head("ééééé", 3), "éé…");
    }
}
