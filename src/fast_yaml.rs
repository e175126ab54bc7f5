//! A fast path for the plain YAML that goal files and `steward.yaml` use.
//!
//! Listing goals parses every goal's front matter, and yaml_serde (a libyaml
//! port) spends most of that time in its scanner, parser and event queue;
//! for the configuration, its buffers were 64 KB of a write's allocations.
//! These files nearly always use a small, plain subset of YAML, so [`parse`]
//! reads that subset directly, line by line, and builds the very
//! [`Value`] yaml_serde would. Anything outside the subset, valid YAML or
//! not, gets `None` and goes to yaml_serde, which stays the authority on
//! meaning and on error messages. A wrong `Some` would silently corrupt a
//! goal, so every doubtful shape is refused rather than guessed.
//!
//! The subset:
//! - a top-level block mapping (or an empty document, which is null);
//! - keys that are plain `[A-Za-z_][A-Za-z0-9_-]*` (resolved like any plain
//!   scalar, so `true:` is a boolean key, as in yaml_serde) or quoted, each
//!   followed directly by `:` and then a space or the end of the line;
//! - nested block mappings, block sequences indented or flush under their
//!   key, items that are scalars, flow collections or `- k: v` mappings;
//! - one-line values: plain scalars, single-quoted, double-quoted with the
//!   escapes `\\ \" \/ \n \t \r \0 \xXX \uXXXX \UXXXXXXXX`, and flow
//!   collections of scalars (`[a, "b", 3]`, `{k: v}`);
//! - blank lines, comment lines and ` # comments` after values;
//! - LF or CRLF line endings, spaces for indentation, no tabs.

use std::num::ParseIntError;

use serde_yaml::{Mapping, Number, Value};

/// The value yaml_serde would parse from `text`, when `text` stays within
/// the subset above; `None` for anything else (the caller then asks
/// yaml_serde, which also produces the error messages for invalid YAML).
pub fn parse(text: &str) -> Option<Value> {
    if !is_plain_text(text) {
        return None;
    }
    let mut lines = Lines::new(text);
    let Some(first) = lines.peek() else {
        return Some(Value::Null);
    };
    let (key, rest) = split_key(first.body)?;
    let value = mapping(&mut lines, first.indent, key, rest, 0)?;
    // A line left over is less indented than the top-level mapping.
    lines.peek().is_none().then_some(value)
}

/// Deepest nesting taken on the fast path; it keeps the recursion small and
/// far below yaml_serde's own recursion limit of 128.
const MAX_DEPTH: usize = 64;

/// Longest key source taken on the fast path: libyaml stops looking for a
/// simple key's `:` after 1024 characters, and bytes never undercount them.
const MAX_KEY_LEN: usize = 1000;

/// Whether every character is one libyaml reads as ordinary text: printable,
/// no tabs, no byte-order mark, and no line breaks but LF and CRLF (libyaml
/// also breaks lines at a lone CR, NEL, U+2028 and U+2029). A branch-free
/// pass over the bytes settles plain ASCII; rarer text gets a closer look.
fn is_plain_text(text: &str) -> bool {
    let (mut unusual, mut carriage_return) = (false, false);
    for byte in text.bytes() {
        unusual |= ((byte < b' ') & (byte != b'\n') & (byte != b'\r')) | (byte > b'~');
        carriage_return |= byte == b'\r';
    }
    (!carriage_return || carriage_returns_end_lines(text))
        && (!unusual || text.chars().all(is_ordinary_char))
}

/// Whether each CR is the first half of a CRLF line ending.
fn carriage_returns_end_lines(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('\r')
        .all(|(at, _)| bytes.get(at + 1) == Some(&b'\n'))
}

/// Characters libyaml accepts as text without treating them as a line break
/// or a byte-order mark (its reader rejects the others outright).
fn is_ordinary_char(c: char) -> bool {
    matches!(c,
        '\n' | '\r' | ' '..='~'
        | '\u{A0}'..='\u{2027}'
        | '\u{202A}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FEFE}'
        | '\u{FF00}'..='\u{FFFD}'
        | '\u{10000}'..='\u{10FFFF}')
}

/// A line with content: not blank, not a comment.
#[derive(Clone, Copy)]
struct Line<'a> {
    /// Leading spaces, which are the line's column since text is checked to be tab-free.
    indent: usize,
    /// The rest of the line, without the line break.
    body: &'a str,
}

/// The content lines of a text, with one line of look-ahead (block
/// structure is decided by the indentation of the next content line), and
/// the entries of the block mappings being read.
struct Lines<'a> {
    rest: &'a str,
    current: Option<Line<'a>>,
    /// Entries of the open block mappings, innermost last: each mapping is
    /// built once its size is known, so its hash table never grows.
    pending: Vec<(Value, Value)>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut lines = Lines {
            rest: text,
            current: None,
            pending: Vec::with_capacity(32),
        };
        lines.advance();
        lines
    }

    fn peek(&self) -> Option<Line<'a>> {
        self.current
    }

    /// Moves to the next line with content; comments and blank lines carry
    /// no meaning in block context, wherever they are indented.
    fn advance(&mut self) {
        self.current = None;
        while !self.rest.is_empty() {
            let bytes = self.rest.as_bytes();
            let indent = bytes.iter().take_while(|&&b| b == b' ').count();
            let end = indent + newline_offset(&bytes[indent..]);
            let body = &self.rest[indent..end];
            self.rest = self.rest.get(end + 1..).unwrap_or("");
            let body = body.strip_suffix('\r').unwrap_or(body);
            if !body.is_empty() && !body.starts_with('#') {
                self.current = Some(Line { indent, body });
                return;
            }
        }
    }
}

/// Where the first `\n` in `bytes` is (or its length), found eight bytes
/// at a time: front matter lines are too short for memchr's setup to pay.
fn newline_offset(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = u64::from_ne_bytes(chunk.try_into().expect("chunks of eight"));
        let zeroed = word ^ NEWLINES; // a zero byte where a newline was
        if zeroed.wrapping_sub(ONES) & !zeroed & HIGHS != 0 {
            break;
        }
        offset += 8;
    }
    offset
        + bytes[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(bytes.len() - offset)
}

/// The block collection starting at `line`, which is indented deeper than
/// its parent: a sequence if it starts with `- `, else a mapping.
fn block<'a>(lines: &mut Lines<'a>, line: Line<'a>, depth: usize) -> Option<Value> {
    if dash_content(line.body).is_some() {
        sequence(lines, line.indent, depth)
    } else {
        let (key, rest) = split_key(line.body)?;
        mapping(lines, line.indent, key, rest, depth)
    }
}

/// A block mapping at `indent` whose first line (the current one) has been
/// split into `key` and `rest`. It ends at a less indented line; a more
/// indented line nobody claimed would be a continuation or an error.
fn mapping<'a>(
    lines: &mut Lines<'a>,
    indent: usize,
    mut key: Value,
    mut rest: &'a str,
    depth: usize,
) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let first = lines.pending.len();
    loop {
        lines.advance();
        let value = entry_value(lines, indent, rest, depth)?;
        lines.pending.push((key, value));
        match lines.peek() {
            Some(line) if line.indent == indent => (key, rest) = split_key(line.body)?,
            Some(line) if line.indent > indent => return None,
            _ => return build_mapping(&mut lines.pending, first),
        }
    }
}

/// The mapping of the entries from `first` on, taken off the stack;
/// `None` on a duplicate key, which yaml_serde refuses.
fn build_mapping(pending: &mut Vec<(Value, Value)>, first: usize) -> Option<Value> {
    let mut map = Mapping::with_capacity(pending.len() - first);
    for (key, value) in pending.drain(first..) {
        if map.insert(key, value).is_some() {
            return None;
        }
    }
    Some(Value::Mapping(map))
}

/// A mapping entry's value: what follows `key:` on its line, or the block
/// below it when the line holds nothing but a comment.
fn entry_value(lines: &mut Lines, indent: usize, rest: &str, depth: usize) -> Option<Value> {
    let value = rest.trim_start_matches(' ');
    if value.is_empty() || value.starts_with('#') {
        nested(lines, indent, true, depth)
    } else {
        inline_value(value)
    }
}

/// The value below a `key:` or a bare `-` at `indent`: a deeper block, a
/// sequence flush with a mapping's keys (`flush_sequence`, YAML's
/// indentless sequence), or else null.
fn nested(lines: &mut Lines, indent: usize, flush_sequence: bool, depth: usize) -> Option<Value> {
    match lines.peek() {
        Some(line) if line.indent > indent => block(lines, line, depth + 1),
        Some(line)
            if flush_sequence && line.indent == indent && dash_content(line.body).is_some() =>
        {
            sequence(lines, indent, depth + 1)
        }
        _ => Some(Value::Null),
    }
}

/// A block sequence whose `-` entries sit at `indent`. It ends at the first
/// line that is less indented or not an entry; the caller judges that line.
fn sequence(lines: &mut Lines, indent: usize, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut items = Vec::new();
    while let Some(line) = lines.peek() {
        if line.indent < indent {
            break;
        }
        if line.indent > indent {
            return None;
        }
        let Some(content) = dash_content(line.body) else {
            break;
        };
        items.push(item(lines, line, content, depth)?);
    }
    Some(Value::Sequence(items))
}

/// One sequence entry, `content` being what follows its `- `: empty (the
/// value is the block below), a `k: v` that opens a mapping whose keys
/// align with `k`, or a one-line value.
fn item<'a>(
    lines: &mut Lines<'a>,
    line: Line<'a>,
    content: &'a str,
    depth: usize,
) -> Option<Value> {
    if content.is_empty() || content.starts_with('#') {
        lines.advance();
        return nested(lines, line.indent, false, depth);
    }
    let column = line.indent + line.body.len() - content.len();
    if starts_quoted(content) {
        // Decoded once, then either the first key of a mapping or the item.
        let (text, after) = quoted(content)?;
        if let Some(rest) = key_rest(content, after) {
            return mapping(lines, column, Value::String(text), rest, depth + 1);
        }
        lines.advance();
        return line_end(after).then_some(Value::String(text));
    }
    if let Some((key, rest)) = split_key(content) {
        return mapping(lines, column, key, rest, depth + 1);
    }
    lines.advance();
    inline_value(content)
}

/// What follows a block sequence entry's `-` and its spaces (`""` for a
/// bare `-`); `None` when the line is not an entry (`-x` is a plain scalar).
fn dash_content(body: &str) -> Option<&str> {
    match body.strip_prefix('-')? {
        "" => Some(""),
        rest if rest.starts_with(' ') => Some(rest.trim_start_matches(' ')),
        _ => None,
    }
}

/// Splits `key: rest` into the key's value and what follows the colon
/// (empty or starting with a space). Keys outside the subset, or followed by
/// anything but `:` (`key : v`, `key:v`), give `None`.
fn split_key(body: &str) -> Option<(Value, &str)> {
    if starts_quoted(body) {
        let (text, after_key) = quoted(body)?;
        return Some((Value::String(text), key_rest(body, after_key)?));
    }
    let key = &body[..identifier_len(body)?];
    let rest = key_rest(body, &body[key.len()..])?;
    // Plain keys resolve like any plain scalar: `null:` is a null key.
    Some((resolve(key)?, rest))
}

/// What follows the `:` after a key that `body` starts with and that ends
/// where `after_key` begins: nothing or a space-led value; `None` when no
/// `:` follows, or the key is too long for libyaml to see it as one.
fn key_rest<'a>(body: &str, after_key: &'a str) -> Option<&'a str> {
    let rest = after_key.strip_prefix(':')?;
    let fits = body.len() - after_key.len() <= MAX_KEY_LEN;
    (fits && (rest.is_empty() || rest.starts_with(' '))).then_some(rest)
}

/// Whether `s` starts with a quote, so holds a quoted scalar or nothing valid.
fn starts_quoted(s: &str) -> bool {
    matches!(s.as_bytes().first(), Some(b'"' | b'\''))
}

/// Length of the `[A-Za-z_][A-Za-z0-9_-]*` identifier starting `s`.
fn identifier_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() && bytes[0] != b'_' {
        return None;
    }
    let tail = bytes[1..]
        .iter()
        .take_while(|&&b| IDENTIFIER[usize::from(b)])
        .count();
    Some(1 + tail)
}

/// The bytes that may follow an identifier's first: `[A-Za-z0-9_-]`, as a
/// table because keys are scanned on every line.
const IDENTIFIER: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = matches!(byte as u8, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-');
        byte += 1;
    }
    table
};

/// A value written on its key's or dash's line, `s` starting at its first
/// character; only spaces and a comment may follow it.
fn inline_value(s: &str) -> Option<Value> {
    let (value, rest) = match s.as_bytes().first()? {
        b'"' | b'\'' => {
            let (text, rest) = quoted(s)?;
            (Value::String(text), rest)
        }
        b'[' => flow_sequence(s)?,
        b'{' => flow_mapping(s)?,
        _ => return block_plain(s),
    };
    line_end(rest).then_some(value)
}

/// Whether nothing but spaces and a comment is left on the line; a comment
/// needs a space before its `#`.
fn line_end(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.len() < rest.len() && trimmed.starts_with('#'))
}

/// Whether a plain scalar may start `s`: YAML's indicator characters start
/// other tokens, except `-` before a non-space (`-5`, `-x`).
fn starts_plain(s: &str) -> bool {
    match s.as_bytes() {
        [b'-', next, ..] => *next != b' ',
        [first, ..] => !matches!(
            first,
            b'-' | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        ),
        [] => false,
    }
}

/// A plain scalar that runs to the end of its line or to a ` #` comment.
/// A `: ` or a final `:` inside would make it a key, which YAML forbids in a
/// value (`title: a: b`), so those give `None`.
fn block_plain(s: &str) -> Option<Value> {
    if !starts_plain(s) {
        return None;
    }
    let bytes = s.as_bytes();
    let mut end = bytes.len();
    let mut from = 0;
    while let Some(found) = bytes[from..].iter().position(|&b| b == b'#' || b == b':') {
        let at = from + found;
        // `starts_plain` keeps `#` off the first byte, so `at - 1` exists.
        if bytes[at] == b'#' && bytes[at - 1] == b' ' {
            end = at;
            break;
        }
        if bytes[at] == b':' && bytes.get(at + 1).is_none_or(|&next| next == b' ') {
            return None;
        }
        from = at + 1;
    }
    resolve(s[..end].trim_end_matches(' '))
}

/// A one-line flow sequence of scalars, `s` starting at its `[`; returns
/// the sequence and what follows the `]`.
fn flow_sequence(s: &str) -> Option<(Value, &str)> {
    let mut items = Vec::new();
    let mut rest = s[1..].trim_start_matches(' ');
    if let Some(after) = rest.strip_prefix(']') {
        return Some((Value::Sequence(items), after));
    }
    loop {
        let (item, after) = flow_scalar(rest)?;
        items.push(item);
        let after = after.trim_start_matches(' ');
        if let Some(after) = after.strip_prefix(']') {
            return Some((Value::Sequence(items), after));
        }
        rest = after.strip_prefix(',')?.trim_start_matches(' ');
    }
}

/// A one-line flow mapping of scalars written `k: v`, `s` starting at its
/// `{`; returns the mapping and what follows the `}`.
fn flow_mapping(s: &str) -> Option<(Value, &str)> {
    let mut map = Mapping::new();
    let mut rest = s[1..].trim_start_matches(' ');
    if let Some(after) = rest.strip_prefix('}') {
        return Some((Value::Mapping(map), after));
    }
    loop {
        let (key, after_key) = flow_scalar(rest)?;
        if rest.len() - after_key.len() > MAX_KEY_LEN {
            return None;
        }
        let (value, after) = flow_scalar(after_key.strip_prefix(": ")?.trim_start_matches(' '))?;
        if map.insert(key, value).is_some() {
            return None;
        }
        let after = after.trim_start_matches(' ');
        if let Some(after) = after.strip_prefix('}') {
            return Some((Value::Mapping(map), after));
        }
        rest = after.strip_prefix(',')?.trim_start_matches(' ');
    }
}

/// A quoted or plain scalar inside a flow collection, and what follows it.
fn flow_scalar(s: &str) -> Option<(Value, &str)> {
    if starts_quoted(s) {
        let (text, rest) = quoted(s)?;
        Some((Value::String(text), rest))
    } else {
        let (plain, rest) = flow_plain(s)?;
        Some((resolve(plain)?, rest))
    }
}

/// A plain scalar inside a flow collection, which ends at `,` `]` `}` or a
/// `: `. Nesting (`[` `{`), a `:` before another indicator (an error in
/// libyaml), a ` #` comment cutting the line and the line's end all give `None`.
fn flow_plain(s: &str) -> Option<(&str, &str)> {
    if !starts_plain(s) {
        return None;
    }
    let bytes = s.as_bytes();
    let mut previous = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b',' | b']' | b'}' => return Some((s[..at].trim_end_matches(' '), &s[at..])),
            b'[' | b'{' => return None,
            b':' => match bytes.get(at + 1) {
                Some(b' ') => return Some((s[..at].trim_end_matches(' '), &s[at..])),
                None | Some(b',' | b'?' | b'[' | b']' | b'{' | b'}') => return None,
                Some(_) => {}
            },
            b'#' if previous == b' ' => return None,
            _ => {}
        }
        previous = byte;
    }
    None
}

/// A one-line quoted scalar, `s` starting at its opening quote; returns the
/// text and what follows the closing quote. Quoted text is never resolved:
/// `"1"` stays a string.
fn quoted(s: &str) -> Option<(String, &str)> {
    match s.as_bytes().first()? {
        b'\'' => single_quoted(&s[1..]),
        b'"' => double_quoted(&s[1..]),
        _ => None,
    }
}

/// The body of a single-quoted scalar, where `''` stands for `'`.
fn single_quoted(s: &str) -> Option<(String, &str)> {
    let mut text = String::new();
    let mut rest = s;
    loop {
        let quote = rest.bytes().position(|b| b == b'\'')?;
        text.push_str(&rest[..quote]);
        rest = &rest[quote + 1..];
        match rest.strip_prefix('\'') {
            Some(after) => {
                text.push('\'');
                rest = after;
            }
            None => return Some((text, rest)),
        }
    }
}

/// The body of a double-quoted scalar with its escapes decoded.
fn double_quoted(s: &str) -> Option<(String, &str)> {
    let mut text = String::new();
    let mut rest = s;
    loop {
        let stop = rest.bytes().position(|b| b == b'"' || b == b'\\')?;
        text.push_str(&rest[..stop]);
        if rest.as_bytes()[stop] == b'"' {
            return Some((text, &rest[stop + 1..]));
        }
        let (decoded, after) = escape(&rest[stop + 1..])?;
        text.push(decoded);
        rest = after;
    }
}

/// The character an escape stands for, `s` starting after the backslash;
/// escapes outside the subset give `None`.
fn escape(s: &str) -> Option<(char, &str)> {
    let rest = s.get(1..)?;
    let decoded = match s.as_bytes()[0] {
        b'\\' => '\\',
        b'"' => '"',
        b'/' => '/',
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'0' => '\0',
        b'x' => return hex_char(rest, 2),
        b'u' => return hex_char(rest, 4),
        b'U' => return hex_char(rest, 8),
        _ => return None,
    };
    Some((decoded, rest))
}

/// The character named by exactly `digits` hex digits at the start of `s`;
/// surrogates and values past U+10FFFF are errors in libyaml too.
fn hex_char(s: &str, digits: usize) -> Option<(char, &str)> {
    let hex = s.get(..digits)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let decoded = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((decoded, &s[digits..]))
}

/// The value yaml_serde gives an untagged plain scalar (its
/// `visit_untagged_scalar`): null, bool, integer, float, else string.
/// `None` for integers that need 128 bits, which yaml_serde refuses.
fn resolve(plain: &str) -> Option<Value> {
    Some(match plain.as_bytes().first()? {
        b'0'..=b'9' | b'.' | b'+' | b'-' => return resolve_number(plain),
        b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' => match plain {
            "~" | "null" | "Null" | "NULL" => Value::Null,
            "true" | "True" | "TRUE" => Value::Bool(true),
            "false" | "False" | "FALSE" => Value::Bool(false),
            _ => Value::String(plain.to_owned()),
        },
        _ => Value::String(plain.to_owned()),
    })
}

/// Every integer or finite float yaml_serde reads is spelled with digits,
/// signs, dots, hex digits, the radix letters `x` and `o` and the letters of
/// `.inf` and `.nan`; checking that first keeps timestamps and durations
/// off the slower number parsers.
fn could_be_number(plain: &str) -> bool {
    plain.bytes().all(|b| {
        matches!(b, b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' | b'x' | b'o' | b'i' | b'n' | b'I' | b'N' | b'.' | b'+' | b'-')
    })
}

/// What yaml_serde makes of a plain scalar starting with a digit, a dot or
/// a sign: the number part of its `visit_untagged_scalar`, in its order.
fn resolve_number(plain: &str) -> Option<Value> {
    // Decimal digits without a leading zero are all that `parse_unsigned_int`
    // looks at for the commonest numbers, so they go straight to u64.
    let decimal =
        plain.bytes().all(|b| b.is_ascii_digit()) && (plain.len() == 1 || !plain.starts_with('0'));
    if decimal && let Ok(int) = plain.parse::<u64>() {
        return Some(Value::Number(Number::from(int)));
    }
    if !could_be_number(plain) {
        return Some(Value::String(plain.to_owned()));
    }
    if let Some(int) = parse_unsigned_int(plain, u64::from_str_radix) {
        return Some(Value::Number(Number::from(int)));
    }
    if let Some(int) = parse_negative_int(plain, i64::from_str_radix) {
        return Some(Value::Number(Number::from(int)));
    }
    if parse_unsigned_int(plain, u128::from_str_radix).is_some()
        || parse_negative_int(plain, i128::from_str_radix).is_some()
    {
        return None;
    }
    if !digits_but_not_number(plain)
        && let Some(float) = parse_f64(plain)
    {
        return Some(Value::Number(Number::from(float)));
    }
    Some(Value::String(plain.to_owned()))
}

/// yaml_serde's `parse_unsigned_int`: an optional `+`, then `0x`/`0o`/`0b`
/// digits or decimal digits without a leading zero.
fn parse_unsigned_int<T>(
    scalar: &str,
    from_str_radix: fn(&str, u32) -> Result<T, ParseIntError>,
) -> Option<T> {
    let unpositive = scalar.strip_prefix('+').unwrap_or(scalar);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) || digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(unpositive, 10).ok()
}

/// yaml_serde's `parse_negative_int`: `-0x`/`-0o`/`-0b` digits, or what
/// Rust's `from_str_radix` reads in base 10 (which takes a `+` or `-`).
fn parse_negative_int<T>(
    scalar: &str,
    from_str_radix: fn(&str, u32) -> Result<T, ParseIntError>,
) -> Option<T> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = scalar.strip_prefix(prefix)
            && let Ok(int) = from_str_radix(&format!("-{rest}"), radix)
        {
            return Some(int);
        }
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(scalar, 10).ok()
}

/// yaml_serde's `parse_f64`: YAML's `.inf`/`.nan` spellings, else Rust's
/// float syntax (`1e5`, `.5`, `5.`) when the result is finite.
fn parse_f64(scalar: &str) -> Option<f64> {
    let unpositive = match scalar.strip_prefix('+') {
        Some(unpositive) if unpositive.starts_with(['+', '-']) => return None,
        Some(unpositive) => unpositive,
        None => scalar,
    };
    if let ".inf" | ".Inf" | ".INF" = unpositive {
        return Some(f64::INFINITY);
    }
    if let "-.inf" | "-.Inf" | "-.INF" = scalar {
        return Some(f64::NEG_INFINITY);
    }
    if let ".nan" | ".NaN" | ".NAN" = scalar {
        return Some(f64::NAN.copysign(1.0));
    }
    unpositive
        .parse::<f64>()
        .ok()
        .filter(|float| float.is_finite())
}

/// yaml_serde's `digits_but_not_number`: a leading zero followed by digits
/// (`007`, `-01`) is a string in YAML 1.2.
fn digits_but_not_number(scalar: &str) -> bool {
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// Whether the fast path took `text`; when it did, its value must equal
    /// yaml_serde's, in key order and float sign too (hence the `Debug` text).
    fn agrees(text: &str) -> bool {
        let Some(fast) = parse(text) else {
            return false;
        };
        let slow: Value = serde_yaml::from_str(text).unwrap_or_else(|err| {
            panic!("fast path took {text:?}, which yaml_serde rejects: {err}")
        });
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "for {text:?}");
        assert_eq!(fast, slow, "for {text:?}");
        true
    }

    /// The fast path's value for `text`, which must be yaml_serde's.
    fn fast(text: &str) -> Value {
        assert!(agrees(text), "{text:?} should take the fast path");
        parse(text).unwrap()
    }

    fn refused(text: &str) {
        assert_eq!(parse(text), None, "{text:?} should be left to yaml_serde");
    }

    fn string(s: &str) -> Value {
        Value::String(s.to_owned())
    }

    const EXAMPLE: &str = "\
id: 0f8e2c1a-5d7b-4c2e-9a31-7b1d2e4f6a90
label: deploy-api
title: Deploy the new API to production   # hand note
status: active
priority: \"high\"
confirmed: true
created_at: 2026-11-21T04:00:00Z
verification:
  - type: command_exit_zero
    target: cargo test --quiet
    criterion: 1
budget:
  max_dispatches: 20
  cooldown: 10m
bounds: {max_iterations: 40, deadline: 2026-12-01T00:00:00Z, max_cost_usd: 25.0}
progress:
  assessments: 0
  cost_usd: 1.25
  last_assessed_at: null
  last_outcome: \"tests pass | next: open the PR\"
  last_check:
    since: 2026-11-21T04:00:00Z
    passed: 1
    total: 2
    failures:
      - \"file_exists out/app.tar.gz: missing\"
blockers: []
tags: [ops, api]
escalation: null
";

    #[test]
    fn example_front_matter_takes_the_fast_path() {
        let value = fast(EXAMPLE);
        assert_eq!(value["title"], string("Deploy the new API to production"));
        assert_eq!(value["bounds"]["max_cost_usd"], Value::from(25.0));
        assert_eq!(value["verification"][0]["criterion"], Value::from(1));
        assert_eq!(
            value["progress"]["last_check"]["failures"][0],
            string("file_exists out/app.tar.gz: missing")
        );
    }

    #[test]
    fn empty_and_comment_only_documents_are_null() {
        for text in [
            "",
            "\n",
            "\n\n",
            "   \n",
            "# only a comment\n",
            "  # indented\n\n# two\n",
            "\r\n",
        ] {
            assert_eq!(fast(text), Value::Null, "{text:?}");
        }
    }

    #[test]
    fn block_mappings_nest_by_indentation() {
        fast("a: 1\nb:\n  c: 2\n  d:\n    e: x\nf: y\n");
        fast("a:\n    deep: 1\n    deeper:\n       x: 2\nb: 3");
        fast("  a: 1\n  b: 2\n");
        fast("a: 1\n# between\nb:\n# at column zero inside a block\n  c: 2\n");
    }

    #[test]
    fn sequences_indented_or_flush() {
        fast("tags:\n  - a\n  - b\nnext: 1\n");
        fast("tags:\n- a\n- b\nnext: 1\n");
        fast("tags:\n    -   a\n    - b\n");
        fast("outer:\n  inner:\n  - a\n  - b\n  after: 1\nlast: 2\n");
        fast("seq:\n  - [a, b]\n  - {k: v}\n  - 'q'\n  - \"d\"\n  - -1\n  - -x\n");
    }

    #[test]
    fn sequence_items_that_are_mappings() {
        fast("checks:\n  - type: a\n    target: b\n  - type: c\n");
        fast("checks:\n-   type: a\n    target: b\n- type: c\n  args:\n  - x\n  - y\n  more: 1\n");
        fast("checks:\n  - a:\n      b: 1\n    c: 2\n");
        fast("checks:\n  - 'quoted key': 1\n    \"other\": 2\n");
    }

    #[test]
    fn bare_dash_items_take_the_block_below_or_null() {
        assert_eq!(
            fast("s:\n  -\n    a: 1\n  -\n  - # nothing\n  - x\n")["s"][1],
            Value::Null
        );
        fast("s:\n  -\n    - nested\n    - items\n");
        fast("s:\n- \n- x\n");
    }

    #[test]
    fn empty_values_are_null() {
        let value = fast("a:\nb:   \nc: # comment\nd:\n");
        for key in ["a", "b", "c", "d"] {
            assert_eq!(value[key], Value::Null);
        }
        assert_eq!(
            fast("a:\n  # a comment is not a value\nb: 1\n")["a"],
            Value::Null
        );
    }

    #[test]
    fn quoted_keys_are_strings() {
        let value = fast("'true': 1\n\"null\": 2\n'it''s': 3\n\"a b: c\": 4\n\"\": 5\n");
        assert_eq!(value["true"], Value::from(1));
        assert_eq!(value["it's"], Value::from(3));
    }

    #[test]
    fn plain_keys_resolve_like_yaml_serde() {
        let value = fast("true: 1\nNull: 2\nFALSE: 3\nyes: 4\nnan: 5\ninf: 6\n_x-1: 7\n");
        assert_eq!(
            value.as_mapping().unwrap().get(Value::Bool(true)),
            Some(&Value::from(1))
        );
        assert_eq!(
            value.as_mapping().unwrap().get(Value::Null),
            Some(&Value::from(2))
        );
    }

    #[test]
    fn duplicate_keys_are_refused() {
        for text in [
            "a: 1\na: 2\n",
            "null: 1\nNULL: 2\n",
            "a: 1\n'a': 2\n",
            "b:\n  x: 1\n  x: 2\n",
            "f: {a: 1, a: 2}\n",
            "f: {1: a, 0x1: b}\n",
        ] {
            assert!(serde_yaml::from_str::<Value>(text).is_err(), "{text:?}");
            refused(text);
        }
    }

    /// Plain scalars at the edges of yaml_serde's null, bool, int and float rules.
    const EDGE_SCALARS: &str = "
        0 -0 +0 007 -007 +007 0.5 00.5 -0.0 +1 +-1 -+1 --1 ++1 0x1F -0x1F +0x1f 0x 0x-1 0x+1
        -0x-1 0xg 0o17 -0o17 0o8 0b101 -0b101 0b2 1_000 1__0 1e5 1E5 1e -1.5e-3 1.0e+16 .5 5. .
        +. -. +.5 -.5 .e1 25.0 1.25 3.402823669209385e38 1e400 -1e400 9007199254740993
        18446744073709551615 -9223372036854775808 -9223372036854775807 9223372036854775808
        340282366920938463463374607431768211456 .inf .Inf .INF +.inf -.inf -.Inf -.INF .iNf inf
        -inf infinity +infinity .nan .NaN .NAN -.nan +.nan nan NaN true True TRUE tRUE false
        False FALSE yes no on off y n ~ null Null NULL nULL 2026-11-21T04:00:00Z 2026-11-21 12:30
        1:2 0f8e2c1a-5d7b-4c2e-9a31-7b1d2e4f6a90 1e5e5 10m 1.2.3 + -x a#b C#
        http://example.com/a?b=c#d
    ";

    #[test]
    fn plain_scalars_resolve_like_yaml_serde() {
        for scalar in EDGE_SCALARS.split_whitespace() {
            let text = format!("k: {scalar}\n");
            assert!(agrees(&text), "{text:?} should take the fast path");
            agrees(&format!("k: [{scalar}]\n"));
            agrees(&format!("k: {{x: {scalar}}}\n"));
        }
    }

    #[test]
    fn integers_needing_128_bits_are_refused() {
        for scalar in [
            "18446744073709551616",
            "-9223372036854775809",
            "0x10000000000000000",
            "-0x8000000000000001",
        ] {
            let text = format!("k: {scalar}\n");
            assert!(serde_yaml::from_str::<Value>(&text).is_err(), "{text:?}");
            refused(&text);
        }
    }

    #[test]
    fn quoted_scalars_are_never_resolved() {
        let value = fast(
            "a: '1'\nb: \"true\"\nc: ''\nd: \"\"\ne: 'it''s # not a comment'\nf: \"a: b\" # note\n",
        );
        assert_eq!(value["a"], string("1"));
        assert_eq!(value["e"], string("it's # not a comment"));
    }

    #[test]
    fn double_quoted_escapes_in_the_subset() {
        let value =
            fast(r#"a: "\\ \" \/ \n \t \r \0 \x41 \xe9 \u00e9 \u263A \U0001F600 caf\u00E9""#);
        assert_eq!(value["a"], string("\\ \" / \n \t \r \0 A é é ☺ 😀 café"));
        for text in [
            r#"a: "\a""#,
            r#"a: "\e""#,
            r#"a: "\N""#,
            r#"a: "\ ""#,
            r#"a: "\q""#,
            r#"a: "\x4""#,
            r#"a: "\x+1""#,
            r#"a: "\uD800""#,
            r#"a: "\U00110000""#,
            r#"a: "\é""#,
            "a: \"x\\",
        ] {
            refused(text);
        }
    }

    #[test]
    fn flow_collections_of_scalars() {
        fast("a: []\nb: [ ]\nc: {}\nd: { }\n");
        fast("a: [a, \"b\", 'c', 3, -1.5, true, ~, 2026-12-01T00:00:00Z]\n");
        fast("a: [a,b ,  c  ]\nb: [x y, a#b, -, -z, http://x.y/z]\n");
        fast("a: {k: v, n: 1, 'q': \"w\", t: 2026-12-01T00:00:00Z, 1: one, true: yes}\n");
        fast("a: {a : 1}\nb: {x: a b c}\n");
    }

    #[test]
    fn nested_or_irregular_flow_is_refused() {
        for text in [
            "a: [[x]]",
            "a: [{k: v}]",
            "a: {k: [v]}",
            "a: {k: {v: 1}}",
            "a: [x, ]",
            "a: [, x]",
            "a: [x,,y]",
            "a: [x: y]",
            "a: [x:]",
            "a: [x:, y]",
            "a: [a #c]",
            "a: [a",
            "a: [a,\n  b]",
            "a: {k}",
            "a: {k:v}",
            "a: {k: }",
            "a: {\"k\" : v}",
            "a: [a] b",
            "a: [a]#c",
            "a: [?x]",
            "a: [- x]",
            "a: [a[b]]",
            "a: {k: v,}",
        ] {
            refused(text);
        }
    }

    #[test]
    fn comments_after_values() {
        let value = fast("a: x # c\nb: 'y'  # c\nc: [z] # c\nd: v#not-a-comment\ne: {k: v}   #c\n");
        assert_eq!(value["a"], string("x"));
        assert_eq!(value["d"], string("v#not-a-comment"));
        refused("a: \"v\"#c\n");
    }

    #[test]
    fn crlf_line_endings() {
        let value = fast("a: 1\r\nb:\r\n  - x\r\n  - 'y'\r\nc: \"z\"\r\n");
        assert_eq!(value["b"][1], string("y"));
        fast(&EXAMPLE.replace('\n', "\r\n"));
        for text in ["a: 1\rb: 2", "a: x\ry", "a: 1\r"] {
            refused(text);
        }
    }

    #[test]
    fn non_ascii_text_is_kept() {
        assert_eq!(
            fast("title: Café — ünïcode 日本 😀\n")["title"],
            string("Café — ünïcode 日本 😀")
        );
        fast("title: 'Naïve'\nb: \"déjà\"\nc: [é, ü]\n'ключ': значение\n");
        fast("a: x\u{A0}\n");
    }

    #[test]
    fn characters_libyaml_reads_differently_are_refused() {
        for text in [
            "a: 1\tb",
            "a:\t1",
            "\ta: 1",
            "\u{FEFF}a: 1",
            "a: x\u{85}y",
            "a: x\u{2028}y",
            "a: x\u{2029}y",
            "a: x\u{0}y",
            "a: x\u{7}y",
            "a: x\u{7F}y",
            "a: x\u{9F}y",
            "a: x\u{FFFE}y",
            "a: x\u{FEFF}y",
        ] {
            refused(text);
        }
    }

    #[test]
    fn constructs_outside_the_subset_are_refused() {
        for text in [
            "a: &x 1",
            "a: *x",
            "a: !t 1",
            "a: !!str 1",
            "a: |\n  x",
            "a: >-\n  x",
            "? a\n: b",
            "%YAML 1.2\n---\na: 1",
            "a: 1\n---\nb: 2",
            "a: 1\n...\n",
            "---\na: 1",
            "a: @x",
            "a: `x`",
            "a: %x",
            "a: 'x",
            "a: \"x",
            "a: 'x' y",
            "a: - x",
            "a: -",
            "a: ? x",
            "a: ?x",
            "a: : x",
            "a: :x",
            "a: ,x",
            "a: ]x",
            "a: }x",
            "<<: x",
            "a b: c",
            "1: x",
            "a : b",
            "a:b",
            "a:\n- x\n-y",
            "- a: 1",
            "[a]: b",
        ] {
            refused(text);
        }
        assert_eq!(
            fast("a: #\n")["a"],
            Value::Null,
            "a space makes it a comment"
        );
    }

    #[test]
    fn multi_line_scalars_are_refused() {
        for text in [
            "a: b\n  c\n",
            "a: b\n c: d\n",
            "a: 'b\n  c'\n",
            "a: \"b\n  c\"\n",
            "a:\n  b\n",
            "s:\n  - a\n    b\n",
            "s:\n  - a\n  b: c\n",
            "a: [x]\n  y\n",
            "a: b\n\n  c\n",
            "s:\n- a\n - b\n",
        ] {
            refused(text);
        }
    }

    #[test]
    fn colon_space_inside_a_plain_value_is_refused() {
        for text in [
            "title: a: b",
            "title: a:",
            "title: a: # c",
            "s:\n  - a b: c",
        ] {
            refused(text);
        }
        assert_eq!(fast("title: a:b # c: d\n")["title"], string("a:b"));
    }

    #[test]
    fn top_level_must_be_a_mapping() {
        for text in [
            "- a\n- b\n",
            "hello\n",
            "'x'\n",
            "[a, b]\n",
            "{a: 1}\n",
            "42\n",
        ] {
            refused(text);
        }
    }

    #[test]
    fn indentation_mistakes_are_refused() {
        for text in [
            "a:\n  b: 1\n c: 2\n",
            "a: 1\n  b: 2\n",
            "  a: 1\nb: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "s:\n  - a\n   - b\n",
            "s:\n  - k: 1\n   j: 2\n",
            "s:\n  - k: 1\n     j: 2\n",
            "a:\n  - x\nb: 1\n  c: 2\n",
        ] {
            refused(text);
        }
    }

    #[test]
    fn long_keys_and_deep_nesting_are_refused() {
        refused(&format!("{}: 1\n", "k".repeat(MAX_KEY_LEN + 1)));
        refused(&format!("'{}': 1\n", "k".repeat(MAX_KEY_LEN)));
        refused(&format!("a: {{{}: 1}}\n", "k".repeat(MAX_KEY_LEN + 1)));
        fast(&format!("{}: 1\n", "k".repeat(MAX_KEY_LEN)));
        let nest = |depth: usize| {
            (0..depth)
                .map(|d| format!("{}k:\n", " ".repeat(d)))
                .collect::<String>()
        };
        fast(&nest(MAX_DEPTH));
        refused(&nest(MAX_DEPTH + 2));
    }

    /// Front matter as people and steward write it.
    const CORPUS: [&str; 9] = [
        EXAMPLE,
        "id: 5b7d9a10-0000-4000-8000-000000000001\nlabel: comments\ntitle: Keep the comments   # trailing comment\n\n\
         # --- status block ---\nstatus: active\npriority: normal  # bump later?\nbudget:\n  # generous for now\n  \
         max_dispatches: 40\n  cooldown: 15m\n",
        "id: 5b7d9a10-0000-4000-8000-000000000005\r\nlabel: crlf\r\ntitle: Windows line endings\r\nstatus: active\r\n\
         updated_at: 2026-11-20T10:00:00Z\r\n",
        "id: 5b7d9a10-0000-4000-8000-000000000010\nlabel: flow-style\ntitle: Flow mappings\nstatus: active\n\
         budget: {max_dispatches: 20, max_assessments: 50, cooldown: 10m}\nbounds: {max_iterations: 9}\n",
        "id: '5b7d9a10-0000-4000-8000-000000000004'\nlabel: \"quoted-values\"\ntitle: 'It''s quoted'\n\
         status: \"active\"\npriority: \"normal\"\nblockers: [\"old: one\"]\ncreated_at: \"2026-11-20T10:00:00Z\"\n",
        "id: 5b7d9a10-0000-4000-8000-000000000002\nlabel: unknown-keys\ntitle: Old title\nowner: sam\n\
         links: {ticket: OPS-12, doc: \"https://example.com/a b\"}\nbudget:\n  max_dispatches: 20\n  \
         extra_budget_key: keep me\ncustom_list:\n  - a\n  - b: c\nstatus: active\n",
        "id: 00000007-0000-4000-8000-000000000000\nlabel: goal-00007\ntitle: Keep goal-00007 healthy and deployed\n\
         status: active\npriority: normal\nconfirmed: true\ncreated_at: 2026-11-20T04:00:00Z\n\
         updated_at: 2026-11-21T03:55:00Z\nverification: []\nbudget:\n  max_dispatches: 20\n  max_assessments: 50\n  \
         cooldown: 10m\n  escalate_after_failures: 3\nbounds:\n  max_iterations: 40\nprogress:\n  assessments: 3\n  \
         dispatches: 2\n  consecutive_failures: 0\n  cost_usd: 1.25\n  last_assessed_at: 2026-11-21T03:55:00Z\n  \
         last_dispatched_at: 2026-11-21T03:50:00Z\n  last_outcome: \"tests pass | next: open the PR\"\nblockers: []\n",
        "id: 9c1e4b2a-7f3d-4e8a-b6c5-2d1f0e9a8b7c\nlabel: nightly-backup\ntitle: \"Back up the database: nightly, verified\"\n\
         status: paused\npriority: low\nconfirmed: false\ncreated_at: 2026-10-01T00:00:00Z\nverification:\n\
         - type: file_exists\n  target: /var/backups/db.sql.gz\n- type: command_exit_zero\n  target: ./verify.sh --strict\n  \
         criterion: 2\nbudget:\n  max_dispatches: 5\n  cooldown: 1h\n  max_cost_usd: 2.5\nblockers:\n  - waiting on disk quota\n  \
         - 'ticket #4312'\nnotes: {owner: ops, escalate_to: \"@oncall\", retries: 3}\nescalation: ~\n",
        "# Written by hand.\nid: 3f2a1b0c-1111-4222-8333-444455556666\nlabel: café-docs\ntitle: Translate the docs — français\n\
         status: done\npriority: high\nconfirmed: True\ncompleted_at: 2026-11-19T18:30:00+01:00\nprogress:\n  \
         assessments: 12\n  cost_usd: 0.0\n  last_outcome: 'merged: PR #88'\n  last_check:\n    passed: 3\n    total: 3\n    \
         failures: []\ntags: [docs, i18n, \"fr-FR\"]\n",
    ];

    #[test]
    fn corpus_takes_the_fast_path() {
        for text in CORPUS {
            fast(text);
        }
    }

    /// A generated front matter tree; rendering picks the YAML spelling.
    #[derive(Debug, Clone)]
    enum Node {
        /// A value's source text as written after `key: ` or `- `.
        Scalar(String),
        Map(Vec<(String, Node)>),
        /// Items, and whether they sit flush with their key.
        Seq(Vec<Node>, bool),
        Empty,
    }

    /// Plain scalars of many shapes, valid in a block context.
    fn plain_scalar() -> impl Strategy<Value = String> {
        let words = prop::sample::select(vec![
            "active",
            "deploy-api",
            "true",
            "True",
            "TRUE",
            "false",
            "False",
            "yes",
            "No",
            "on",
            "off",
            "y",
            "null",
            "Null",
            "NULL",
            "~",
            ".inf",
            "-.Inf",
            "+.INF",
            ".nan",
            ".NaN",
            "10m",
            "1h",
            "C#",
            "a#b",
            "12:30",
            "http://example.com/x?y=1#z",
            "-x",
            "-1",
            "+1",
            "0",
            "-0",
            "1.0e+16",
            "Café — ok",
        ]);
        prop_oneof![
            10 => words.prop_map(str::to_owned),
            10 => "[+-]?(0|[1-9][0-9]{0,5})(\\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?",
            2 => "[+-]?\\.[0-9]{1,3}",
            4 => "[+-]?0[xob][0-9a-fA-F]{0,5}",
            2 => "[+-]?0[0-9]{1,4}",
            2 => "[+-]?[0-9]{1,3}(_[0-9]{3}){1,2}",
            2 => "-?[1-8][0-9]{14,17}",
            // Near and past the 64-bit limits, where yaml_serde refuses 128-bit integers.
            1 => "-?[0-9]{18,21}",
            10 => "20[0-9]{2}-[01][0-9]-[0-3][0-9](T[0-2][0-9]:[0-5][0-9]:[0-5][0-9](Z|[+-][01][0-9]:00))?",
            10 => "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
            20 => "[a-zA-Z][a-zA-Z0-9_./#,\\[\\]{}-]{0,8}( [a-zA-Z0-9_./#,-]{1,8}){0,4}",
            4 => "[a-z]{1,4}:[a-z0-9/]{1,6}",
            4 => "[a-zéü日—][a-zé日ü— ]{0,8}[a-zé]",
        ]
    }

    /// Quoted scalars: single with `''`, double with the subset's escapes.
    fn quoted_scalar() -> impl Strategy<Value = String> {
        let escape = prop::sample::select(vec![
            "\\\\",
            "\\\"",
            "\\/",
            "\\n",
            "\\t",
            "\\r",
            "\\0",
            "\\x41",
            "\\xe9",
            "\\u00e9",
            "\\u263A",
            "\\U0001F600",
        ]);
        let piece = prop_oneof![3 => "[ !#-\\[\\]-~é]{1,6}", 1 => escape.prop_map(str::to_owned)];
        prop_oneof![
            "[ -~é]{0,12}".prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
            prop::collection::vec(piece, 0..5)
                .prop_map(|pieces| format!("\"{}\"", pieces.concat())),
        ]
    }

    /// Scalars that may stand inside a flow collection.
    fn flow_item() -> impl Strategy<Value = String> {
        let plain = plain_scalar().prop_map(|s| s.replace([',', '[', ']', '{', '}', '#'], "_"));
        prop_oneof![3 => plain, 1 => quoted_scalar()]
    }

    fn flow_collection() -> impl Strategy<Value = String> {
        let separator = prop::sample::select(vec![", ", ",", " , "]);
        let seq = (prop::collection::vec(flow_item(), 0..5), separator.clone())
            .prop_map(|(items, separator)| format!("[{}]", items.join(separator)));
        let map = (
            prop::collection::btree_map("[a-z_][a-z0-9_]{0,6}", flow_item(), 0..4),
            separator,
        )
            .prop_map(|(entries, separator)| {
                let entries: Vec<String> =
                    entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", entries.join(separator))
            });
        prop_oneof![seq, map]
    }

    /// A value's source text, sometimes with a trailing comment.
    fn scalar() -> impl Strategy<Value = String> {
        let value = prop_oneof![6 => plain_scalar(), 2 => quoted_scalar(), 1 => flow_collection()];
        let comment = prop::sample::select(vec!["", "", "", " # note", "   # a: b"]);
        (value, comment).prop_map(|(value, comment)| value + comment)
    }

    fn key() -> impl Strategy<Value = String> {
        let known = prop::sample::select(vec![
            "id", "label", "title", "status", "priority", "budget", "progress", "tags", "true",
            "null", "on", "_x",
        ]);
        prop_oneof![
            4 => known.prop_map(str::to_owned),
            4 => "[a-z_][a-z0-9_-]{0,10}",
            1 => "[a-z][a-z :#]{0,6}".prop_map(|k| format!("'{k}'")),
            1 => "[a-z][a-z :#]{0,6}".prop_map(|k| format!("\"{k}\"")),
        ]
    }

    fn node() -> impl Strategy<Value = Node> {
        let leaf = prop_oneof![8 => scalar().prop_map(Node::Scalar), 1 => Just(Node::Empty)];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec((key(), inner.clone()), 0..6).prop_map(Node::Map),
                (prop::collection::vec(inner, 0..5), any::<bool>())
                    .prop_map(|(items, flush)| Node::Seq(items, flush)),
            ]
        })
    }

    /// Realistic front matter: a top-level mapping rendered with an indent
    /// step of 2 or 4, LF or CRLF, and comment or blank lines sprinkled in.
    fn front_matter() -> impl Strategy<Value = String> {
        let decoration =
            prop::sample::select(vec!["", "", "", "", "", "", "#", "  # note", "", "   "]);
        (
            prop::collection::vec((key(), node()), 1..12),
            prop::sample::select(vec![2, 4]),
            prop::sample::select(vec!["\n", "\r\n"]),
            prop::collection::vec(decoration, 64),
            any::<bool>(),
        )
            .prop_map(|(entries, step, newline, decorations, final_newline)| {
                let mut lines = Vec::new();
                render_map(&entries, 0, step, &mut lines);
                let mut text = String::new();
                for (at, line) in lines.iter().enumerate() {
                    text.push_str(line);
                    text.push_str(newline);
                    match decorations[at % decorations.len()] {
                        "" => {}
                        extra => {
                            text.push_str(extra);
                            text.push_str(newline);
                        }
                    }
                }
                if !final_newline {
                    text.truncate(text.len() - newline.len());
                }
                text
            })
    }

    fn render_map(entries: &[(String, Node)], indent: usize, step: usize, out: &mut Vec<String>) {
        let mut seen = std::collections::HashSet::new();
        for (key, node) in entries {
            if seen.insert(key.trim_matches(['\'', '"'])) {
                render_entry(
                    format!("{}{key}:", " ".repeat(indent)),
                    node,
                    indent,
                    step,
                    out,
                );
            }
        }
    }

    fn render_entry(head: String, node: &Node, indent: usize, step: usize, out: &mut Vec<String>) {
        match node {
            Node::Scalar(value) => out.push(format!("{head} {value}")),
            Node::Empty => out.push(head),
            Node::Map(entries) if !entries.is_empty() => {
                out.push(head);
                render_map(entries, indent + step, step, out);
            }
            Node::Seq(items, flush) if !items.is_empty() => {
                out.push(head);
                render_seq(
                    items,
                    if *flush { indent } else { indent + step },
                    step,
                    out,
                );
            }
            Node::Map(_) => out.push(format!("{head} {{}}")),
            Node::Seq(..) => out.push(format!("{head} []")),
        }
    }

    fn render_seq(items: &[Node], indent: usize, step: usize, out: &mut Vec<String>) {
        let dash = format!("{}-", " ".repeat(indent));
        for item in items {
            match item {
                Node::Map(entries) if !entries.is_empty() => {
                    let first = out.len();
                    render_map(entries, indent + 2, step, out);
                    out[first].replace_range(indent..=indent, "-");
                }
                Node::Scalar(_) | Node::Map(_) => {
                    render_entry(dash.clone(), item, indent, step, out)
                }
                Node::Seq(items, _) if !items.is_empty() => {
                    out.push(dash.clone());
                    render_seq(items, indent + step, step, out);
                }
                Node::Seq(..) => out.push(format!("{dash} []")),
                Node::Empty => out.push(dash.clone()),
            }
        }
    }

    /// Lines of YAML-ish tokens, valid or not, to probe the subset's edges.
    fn token_soup() -> impl Strategy<Value = String> {
        let prefix = prop::sample::select(vec!["", "", "", "- ", "-", "-  ", "? ", "--- ", "... "]);
        let key = prop::sample::select(vec![
            "a", "b", "a", "true", "Null", "'q'", "\"d\"", "'a'", "a b", "1", "", "#c", "&x a",
            "[a]", "{a: 1}", "é",
        ]);
        let colon = prop::sample::select(vec![": ", ": ", ":", " : ", "", ":  ", ": # c"]);
        let token = prop::sample::select(vec![
            "x",
            "y z",
            "1",
            "-1",
            "0x1F",
            "007",
            "1e3",
            ".5",
            "~",
            "null",
            "True",
            ".inf",
            ".nan",
            "'s'",
            "'it''s'",
            "\"d\"",
            "\"\\n\"",
            "\"\\q\"",
            "'",
            "\"",
            "[a, b]",
            "[a,b]",
            "[]",
            "{a: 1}",
            "{}",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            ": ",
            " #c",
            "#c",
            " ",
            "-",
            "- ",
            "&a",
            "*a",
            "!t",
            "|",
            ">",
            "%",
            "@",
            "`",
            "?",
            "é",
            "\t",
            "\u{2028}",
            "\u{FEFF}",
            "x:y",
            "a#b",
            "2026-11-21T04:00:00Z",
            "\\",
            "\r",
        ]);
        let line = (
            0usize..6,
            prefix,
            key,
            colon,
            prop::collection::vec(token, 0..4),
        )
            .prop_map(|(indent, prefix, key, colon, tokens)| {
                format!(
                    "{}{prefix}{key}{colon}{}",
                    " ".repeat(indent),
                    tokens.concat()
                )
            });
        (
            prop::collection::vec(line, 0..8),
            prop::sample::select(vec!["\n", "\r\n"]),
        )
            .prop_map(|(lines, newline)| lines.join(newline))
    }

    /// Realistic front matter with a few characters inserted, deleted or
    /// replaced: near misses land right on the subset's edges.
    fn mutated_front_matter() -> impl Strategy<Value = String> {
        let significant = prop::sample::select(vec![
            ' ', ' ', ':', '-', '#', '\'', '"', '\n', '[', ']', '{', '}', ',', '?', '&', '*', '!',
            '|', '>', '\\', 'a', '0', '.', '~', '\r', '\t', 'é', '%', '@',
        ]);
        let edit = (0u8..3, any::<prop::sample::Index>(), significant);
        (front_matter(), prop::collection::vec(edit, 1..4)).prop_map(|(text, edits)| {
            let mut chars: Vec<char> = text.chars().collect();
            for (kind, at, c) in edits {
                let at = at.index(chars.len() + 1);
                match kind {
                    0 => chars.insert(at, c),
                    1 if at < chars.len() => drop(chars.remove(at)),
                    _ if at < chars.len() => chars[at] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        })
    }

    proptest! {
        #[test]
        fn arbitrary_text_agrees(text in any::<String>()) {
            agrees(&text);
        }

        #[test]
        fn printable_ascii_agrees(text in "[ -~\n\r\t]{0,80}") {
            agrees(&text);
        }

        #[test]
        fn token_soup_agrees(text in token_soup()) {
            agrees(&text);
        }

        #[test]
        fn realistic_front_matter_agrees(text in front_matter()) {
            agrees(&text);
        }

        #[test]
        fn mutated_front_matter_agrees(text in mutated_front_matter()) {
            agrees(&text);
        }
    }

    #[test]
    fn realistic_front_matter_mostly_takes_the_fast_path() {
        let strategy = front_matter();
        let mut runner = TestRunner::deterministic();
        let samples = 300;
        let taken = (0..samples)
            .filter(|_| agrees(&strategy.new_tree(&mut runner).unwrap().current()))
            .count();
        assert!(
            taken * 100 >= samples * 80,
            "only {taken} of {samples} took the fast path"
        );
    }
}
