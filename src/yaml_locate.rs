//! Finds where a key sits in YAML text, so errors can say `line:col`.
//!
//! This is a line scan over block mappings, enough to point a person at the
//! key a message is about; it never decides what a document means.

/// The 1-based line and column of the key at `path`, when it is written in
/// block style. For a key inside a flow mapping, or a key that is missing,
/// the position of the deepest parent found.
pub fn key_position(text: &str, path: &[&str]) -> Option<(usize, usize)> {
    locate(text, path).map(|(_, position)| position)
}

/// How deep `path` was found, and where.
fn locate(text: &str, path: &[&str]) -> Option<(usize, (usize, usize))> {
    let mut found = None;
    let mut depth = 0;
    // Indentation of the keys searched at this depth; `None` until the first
    // line of the parent's block is seen.
    let mut level: Option<usize> = Some(0);
    let mut parent_indent: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let content = line.trim_start_matches([' ', '\u{feff}']);
        let indent = line.len() - content.len();
        if content.is_empty() || content.starts_with('#') || content.starts_with("---") {
            continue;
        }
        if let Some(parent) = parent_indent
            && indent <= parent
        {
            // Left the block of the last matched parent: the path is absent.
            return found;
        }
        if *level.get_or_insert(indent) != indent {
            continue;
        }
        if key_of(content) == Some(path[depth]) {
            depth += 1;
            found = Some((depth, (index + 1, indent + 1)));
            if depth == path.len() {
                return found;
            }
            parent_indent = Some(indent);
            level = None;
        }
    }
    found
}

/// Where `key` appears a second time at the same indentation as its first
/// appearance, for duplicate-key errors (the parser reports the mapping).
pub fn duplicate_key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut first_indent = None;
    for (index, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        if key_of(content) != Some(key) || content.starts_with("- ") {
            continue;
        }
        match first_indent {
            None => first_indent = Some(indent),
            Some(first) if first == indent => return Some((index + 1, indent + 1)),
            Some(_) => {}
        }
    }
    None
}

/// Deeper `[` / `{` nesting than this is refused before parsing: the
/// parser's time grows with the square of the depth.
pub const MAX_FLOW_DEPTH: usize = 100;

/// Where flow collections first nest deeper than [`MAX_FLOW_DEPTH`]
/// (1-based line and column), outside quotes and comments.
pub fn excessive_nesting(text: &str) -> Option<(usize, usize)> {
    // Too few opening brackets to nest that deep: the common case, found
    // with a byte count.
    if text.bytes().filter(|b| matches!(b, b'[' | b'{')).count() <= MAX_FLOW_DEPTH {
        return None;
    }
    let mut depth = 0usize;
    for (index, line) in text.lines().enumerate() {
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for (column, ch) in line.char_indices() {
            match (quote, ch) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '#') if previous.is_whitespace() => break,
                (None, '\'' | '"') => quote = Some(ch),
                (None, '[' | '{') => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some((index + 1, column + 1));
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            previous = ch;
        }
    }
    None
}

/// The key of a `key: value` line, unquoted.
fn key_of(content: &str) -> Option<&str> {
    let content = content.strip_prefix("- ").unwrap_or(content);
    let colon = content.find(':')?;
    let key = content[..colon].trim();
    let key = key
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .or_else(|| key.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
        .unwrap_or(key);
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "enabled: true\n# comment\ndefaults:\n  cooldown: 10m\n  priority: high\ngit: {commit: true}\n";

    #[test]
    fn deep_flow_nesting_is_found_but_quotes_and_comments_do_not_count() {
        let deep = format!("a: {}{}", "[".repeat(150), "]".repeat(150));
        assert_eq!(excessive_nesting(&deep), Some((1, 104)));
        assert_eq!(
            excessive_nesting(&format!("a: '{}'", "[".repeat(150))),
            None
        );
        assert_eq!(
            excessive_nesting(&format!("a: b # {}", "[".repeat(150))),
            None
        );
        assert_eq!(excessive_nesting("a: {b: [1, [2]]}\n"), None);
    }

    #[test]
    fn finds_top_level_and_nested_keys() {
        assert_eq!(key_position(TEXT, &["enabled"]), Some((1, 1)));
        assert_eq!(key_position(TEXT, &["defaults", "priority"]), Some((5, 3)));
    }

    #[test]
    fn points_at_the_parent_of_a_flow_key_or_a_missing_key() {
        assert_eq!(key_position(TEXT, &["git", "commit"]), Some((6, 1)));
        assert_eq!(key_position(TEXT, &["defaults", "missing"]), Some((3, 1)));
        assert_eq!(key_position(TEXT, &["nowhere"]), None);
    }
}
