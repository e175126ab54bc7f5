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

/// How many single-character insertions, deletions or substitutions
/// turn `a` into `b` (Levenshtein): how near a typo is to a known word.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// The word of `known` nearest `typed`, when it is near enough to be what
/// was meant: at most 2 edits, and fewer than half of `typed`.
pub fn nearest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|word| (edit_distance(typed, word), word))
        .filter(|(distance, _)| {
            *distance > 0 && *distance <= 2 && distance * 2 < typed.chars().count()
        })
        .min()
        .map(|(_, word)| word)
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
