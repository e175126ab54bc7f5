//! In-place edits of YAML front matter: change one value's bytes, keep every other byte.
//!
//! People hand-edit goal files, so a full parse-and-reserialize round trip would
//! destroy their comments, spacing and quoting. Instead this module scans the
//! text just far enough to find the byte range of one value (a line scan for
//! block structure, a character scan inside flow collections and quoted
//! scalars) and splices a freshly rendered value into that range. Everything
//! outside the range is copied verbatim.

use std::fmt::{self, Write as _};
use std::ops::Range;

/// A value as steward writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum YamlValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<YamlValue>),
    Map(Vec<(String, YamlValue)>),
}

/// Why an edit could not be made; `line` is 1-based within the front matter text.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for EditError {}

/// Sets the value at `path` (e.g. ["status"] or ["progress", "assessments"]) and returns the new text.
pub fn set(fm: &str, path: &[&str], value: &YamlValue) -> Result<String, EditError> {
    check_path(path)?;
    let doc = Doc::new(fm);
    let root = doc.root()?;
    Ok(set_in_block(&doc, &root, path, value)?.apply(fm))
}

/// Removes the key at `path` with its value lines; removing a missing key returns the text unchanged.
pub fn remove(fm: &str, path: &[&str]) -> Result<String, EditError> {
    check_path(path)?;
    let doc = Doc::new(fm);
    let root = doc.root()?;
    Ok(match remove_in_block(&doc, &root, path)? {
        Some(edit) => edit.apply(fm),
        None => fm.to_string(),
    })
}

/// Renders a scalar or collection the way `set` would write it as a top-level value (used by callers for messages); strings are plain when safe, else double-quoted.
pub fn render_scalar(value: &YamlValue) -> String {
    render_inline(value, Ctx::Block)
}

fn check_path(path: &[&str]) -> Result<(), EditError> {
    if path.is_empty() {
        return Err(EditError {
            line: 1,
            message: "empty key path".to_string(),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Edits
// ---------------------------------------------------------------------------

/// One splice: the bytes in `range` become `text`. Every operation produces exactly one.
struct Edit {
    range: Range<usize>,
    text: String,
}

impl Edit {
    fn new(range: Range<usize>, text: String) -> Self {
        Edit { range, text }
    }

    fn apply(self, fm: &str) -> String {
        let mut out = String::with_capacity(fm.len() + self.text.len());
        out.push_str(&fm[..self.range.start]);
        out.push_str(&self.text);
        out.push_str(&fm[self.range.end..]);
        out
    }
}

/// Walks `path` through block mappings, handing over to the flow editor when a
/// flow mapping is reached.
fn set_in_block(
    doc: &Doc,
    map: &BlockMap,
    path: &[&str],
    value: &YamlValue,
) -> Result<Edit, EditError> {
    let Some(entry) = map.find(path[0]) else {
        return Ok(insert_entry(doc, map, path, value));
    };
    doc.check_editable(entry)?;
    let rest = &path[1..];
    if rest.is_empty() {
        return Ok(replace_value(doc, entry, value));
    }
    match entry.value.kind {
        Kind::BlockMap { indent } => set_in_block(doc, &doc.child_map(entry, indent)?, rest, value),
        Kind::Flow { map: true } => set_in_flow(doc, entry.value.start, rest, value),
        _ if doc.is_null(entry) => Ok(replace_value(doc, entry, &nest(rest, value))),
        _ => Err(doc.not_a_mapping(entry)),
    }
}

/// Like `set_in_block`, but `None` means "nothing to remove".
fn remove_in_block(doc: &Doc, map: &BlockMap, path: &[&str]) -> Result<Option<Edit>, EditError> {
    let Some(entry) = map.find(path[0]) else {
        return Ok(None);
    };
    doc.check_editable(entry)?;
    let rest = &path[1..];
    if rest.is_empty() {
        return Ok(Some(doc.remove_lines(entry)));
    }
    match entry.value.kind {
        Kind::BlockMap { indent } => {
            let child = doc.child_map(entry, indent)?;
            if let [only] = child.entries.as_slice()
                && rest == [only.key.as_str()]
            {
                // Dropping the last key would leave `key:` (null); keep it a mapping.
                doc.check_editable(only)?;
                return Ok(Some(replace_value(doc, entry, &YamlValue::Map(Vec::new()))));
            }
            remove_in_block(doc, &child, rest)
        }
        Kind::Flow { map: true } => remove_in_flow(doc, entry.value.start, rest),
        _ if doc.is_null(entry) => Ok(None),
        _ => Err(doc.not_a_mapping(entry)),
    }
}

/// Adds a missing key (and any missing parents below it) after the mapping's
/// last content line, at the indentation of its siblings.
fn insert_entry(doc: &Doc, map: &BlockMap, path: &[&str], value: &YamlValue) -> Edit {
    let value = nest(&path[1..], value);
    let head = format!("{}{}:", spaces(map.indent), render_str(path[0], Ctx::Block));
    let lines = value_lines(head, &value, map.indent + 2);
    doc.insert_lines(map.insert_after, &lines)
}

/// Replaces an existing entry's value: just the token when old and new both
/// fit on the key line, otherwise the whole value span.
fn replace_value(doc: &Doc, entry: &Entry, new: &YamlValue) -> Edit {
    let v = &entry.value;
    let key_line = &doc.lines[entry.line];
    let span_end = doc.lines[v.last_line].end;
    let eol = doc.eol;
    match block_lines(new, child_indent(entry, new)) {
        None => {
            let old_first = v.on_key_line().then(|| doc.bytes()[v.start]);
            let token = styled_token(old_first, new, Ctx::Block);
            if !v.on_key_line() {
                let comment = doc.trailing_comment(entry.colon_end, key_line.end);
                Edit::new(entry.colon_end..span_end, format!(" {token}{comment}"))
            } else if entry.single_line() {
                Edit::new(v.start..v.token_end, token)
            } else {
                Edit::new(entry.colon_end..span_end, format!(" {token}"))
            }
        }
        Some(lines) => {
            let body = lines.join(eol);
            if !v.on_key_line() {
                Edit::new(key_line.end..span_end, format!("{eol}{body}"))
            } else if entry.single_line() {
                let comment = doc.trailing_comment(v.token_end, key_line.end);
                Edit::new(entry.colon_end..span_end, format!("{comment}{eol}{body}"))
            } else {
                Edit::new(entry.colon_end..span_end, format!("{eol}{body}"))
            }
        }
    }
}

/// Where a new block collection's children go: reuse the old value's
/// indentation (flush or indented sequences stay as they were), else key + 2.
fn child_indent(entry: &Entry, new: &YamlValue) -> usize {
    match (&entry.value.kind, new) {
        (Kind::BlockMap { indent }, YamlValue::Map(_))
        | (Kind::BlockSeq { indent }, YamlValue::Seq(_)) => *indent,
        _ => entry.indent + 2,
    }
}

/// Wraps `value` in single-key mappings, one per remaining path element.
fn nest(path: &[&str], value: &YamlValue) -> YamlValue {
    path.iter().rev().fold(value.clone(), |inner, key| {
        YamlValue::Map(vec![(key.to_string(), inner)])
    })
}

fn is_null_token(token: &str) -> bool {
    matches!(token, "~" | "null" | "Null" | "NULL")
}

// ---------------------------------------------------------------------------
// Flow mappings
// ---------------------------------------------------------------------------

/// One `key: value` inside `{...}`, as byte offsets into the front matter;
/// `comma` is the separator after it, if any.
struct FlowEntry {
    key: String,
    start: usize,
    key_end: usize,
    colon: Option<usize>,
    value: Option<Range<usize>>,
    end: usize,
    comma: Option<usize>,
}

struct FlowMap {
    entries: Vec<FlowEntry>,
    open: usize,
    close: usize,
}

impl FlowMap {
    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.key == key)
    }
}

/// Sets a key inside the flow mapping opening at `open`, touching only the
/// changed entry's bytes (or appending `, key: value`).
fn set_in_flow(
    doc: &Doc,
    open: usize,
    path: &[&str],
    value: &YamlValue,
) -> Result<Edit, EditError> {
    let map = doc.flow_map(open)?;
    let rest = &path[1..];
    let Some(index) = map.position(path[0]) else {
        return Ok(add_flow_entry(&map, path[0], &nest(rest, value)));
    };
    let entry = &map.entries[index];
    if rest.is_empty() {
        return Ok(set_flow_value(doc, entry, value));
    }
    match &entry.value {
        Some(r) if doc.bytes()[r.start] == b'{' => set_in_flow(doc, r.start, rest, value),
        Some(r) if !is_null_token(&doc.text[r.clone()]) => {
            Err(doc.flow_not_a_mapping(path[0], r.start))
        }
        _ => Ok(set_flow_value(doc, entry, &nest(rest, value))),
    }
}

fn remove_in_flow(doc: &Doc, open: usize, path: &[&str]) -> Result<Option<Edit>, EditError> {
    let map = doc.flow_map(open)?;
    let Some(index) = map.position(path[0]) else {
        return Ok(None);
    };
    let rest = &path[1..];
    if rest.is_empty() {
        return Ok(Some(remove_flow_entry(&map, index)));
    }
    match &map.entries[index].value {
        Some(r) if doc.bytes()[r.start] == b'{' => remove_in_flow(doc, r.start, rest),
        Some(r) if !is_null_token(&doc.text[r.clone()]) => {
            Err(doc.flow_not_a_mapping(path[0], r.start))
        }
        _ => Ok(None),
    }
}

fn set_flow_value(doc: &Doc, entry: &FlowEntry, value: &YamlValue) -> Edit {
    match (&entry.value, entry.colon) {
        (Some(r), _) => {
            let token = styled_token(Some(doc.bytes()[r.start]), value, Ctx::Flow);
            Edit::new(r.clone(), token)
        }
        (None, Some(colon)) => {
            let at = colon + 1;
            Edit::new(at..at, format!(" {}", render_inline(value, Ctx::Flow)))
        }
        (None, None) => {
            let at = entry.key_end;
            Edit::new(at..at, format!(": {}", render_inline(value, Ctx::Flow)))
        }
    }
}

fn add_flow_entry(map: &FlowMap, key: &str, value: &YamlValue) -> Edit {
    let text = format!(
        "{}: {}",
        render_str(key, Ctx::Flow),
        render_inline(value, Ctx::Flow)
    );
    match map.entries.last() {
        Some(last) => {
            // `{c:, d: 1}` does not parse: a colon without value needs a blank.
            let bare_colon = last.colon.is_some() && last.value.is_none();
            let separator = if bare_colon { " , " } else { ", " };
            Edit::new(last.end..last.end, format!("{separator}{text}"))
        }
        None => Edit::new(map.open + 1..map.open + 1, text),
    }
}

/// Removes an entry together with one neighbouring comma.
fn remove_flow_entry(map: &FlowMap, index: usize) -> Edit {
    let entry = &map.entries[index];
    let range = if let Some(next) = map.entries.get(index + 1) {
        entry.start..next.start
    } else if index > 0 {
        let previous = &map.entries[index - 1];
        previous.comma.unwrap_or(previous.end)..entry.end
    } else {
        map.open + 1..map.close
    };
    Edit::new(range, String::new())
}

// ---------------------------------------------------------------------------
// Document structure
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum LineKind {
    Blank,
    Comment,
    Content,
    /// Content whose leading whitespace contains a tab: YAML forbids tabs as
    /// indentation, so such lines are only accepted inside scalar text.
    TabIndented,
}

/// One line: `start..end` is its text without the line ending, `next` the
/// start of the following line.
struct Line {
    start: usize,
    end: usize,
    next: usize,
    indent: usize,
    kind: LineKind,
}

/// The front matter text split into classified lines.
struct Doc<'a> {
    text: &'a str,
    lines: Vec<Line>,
    eol: &'static str,
}

/// A block mapping: its entries, their indentation, and the line after which
/// a new entry goes (`None`: the end of the text).
struct BlockMap {
    entries: Vec<Entry>,
    indent: usize,
    insert_after: Option<usize>,
}

impl BlockMap {
    fn find(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }
}

/// A `key: value` line of a block mapping and the extent of its value.
struct Entry {
    key: String,
    line: usize,
    indent: usize,
    colon_end: usize,
    value: Value,
}

impl Entry {
    fn single_line(&self) -> bool {
        self.value.last_line == self.line
    }
}

#[derive(Clone, Copy)]
enum Kind {
    /// Nothing after the colon and nothing below: null.
    Empty,
    /// Plain, quoted or alias scalar starting on the key line.
    Scalar,
    /// `|` or `>` literal/folded text.
    BlockScalar,
    /// `[...]` or `{...}` starting on the key line.
    Flow { map: bool },
    /// Block mapping on the following lines, entries at `indent`.
    BlockMap { indent: usize },
    /// Block sequence on the following lines, dashes at `indent`.
    BlockSeq { indent: usize },
    /// Some other node that starts on the line below the key.
    Indented,
}

/// Where a value sits: `start..token_end` is its text on the key line (for
/// values that start there) and `last_line` the last line of its span.
struct Value {
    kind: Kind,
    start: usize,
    token_end: usize,
    last_line: usize,
    has_properties: bool,
}

impl Value {
    fn on_key_line(&self) -> bool {
        matches!(
            self.kind,
            Kind::Scalar | Kind::BlockScalar | Kind::Flow { .. }
        )
    }
}

impl<'a> Doc<'a> {
    fn new(text: &'a str) -> Self {
        let eol = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        Doc {
            text,
            lines: scan_lines(text.as_bytes()),
            eol,
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn err(&self, line: usize, message: impl Into<String>) -> EditError {
        EditError {
            line: line + 1,
            message: message.into(),
        }
    }

    fn err_at(&self, offset: usize, message: impl Into<String>) -> EditError {
        self.err(self.line_of(offset), message)
    }

    fn tab_error(&self, line: usize) -> EditError {
        self.err(line, "tab used for indentation")
    }

    fn line_of(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|l| l.start <= offset)
            .saturating_sub(1)
    }

    /// The top-level mapping: entries at the indentation of the first content line.
    fn root(&self) -> Result<BlockMap, EditError> {
        let indent = self
            .lines
            .iter()
            .find(|l| matches!(l.kind, LineKind::Content | LineKind::TabIndented))
            .map_or(0, |l| l.indent);
        let entries = self.entries(0, self.lines.len(), indent)?;
        Ok(BlockMap {
            entries,
            indent,
            insert_after: None,
        })
    }

    fn child_map(&self, entry: &Entry, indent: usize) -> Result<BlockMap, EditError> {
        let entries = self.entries(entry.line + 1, entry.value.last_line + 1, indent)?;
        Ok(BlockMap {
            entries,
            indent,
            insert_after: Some(entry.value.last_line),
        })
    }

    /// Parses every entry of a block mapping at `indent` within lines `from..to`;
    /// every content line there must belong to one of them.
    fn entries(&self, from: usize, to: usize, indent: usize) -> Result<Vec<Entry>, EditError> {
        let mut entries = Vec::new();
        let mut i = from;
        while i < to {
            let line = &self.lines[i];
            match line.kind {
                LineKind::Blank | LineKind::Comment => {
                    i += 1;
                    continue;
                }
                LineKind::TabIndented => return Err(self.tab_error(i)),
                LineKind::Content => {}
            }
            if line.indent != indent {
                return Err(self.err(
                    i,
                    format!("unexpected indentation (expected {indent} spaces)"),
                ));
            }
            let entry = self.entry(i, to)?;
            i = entry.value.last_line + 1;
            entries.push(entry);
        }
        Ok(entries)
    }

    fn entry(&self, i: usize, to: usize) -> Result<Entry, EditError> {
        let Some((key, colon_end)) = self.parse_key(i) else {
            let found = if self.is_seq_item(i) {
                "a sequence item"
            } else {
                "something else"
            };
            return Err(self.err(
                i,
                format!("expected `key: value`, found {found} (front matter must be a mapping)"),
            ));
        };
        Ok(Entry {
            key,
            line: i,
            indent: self.lines[i].indent,
            colon_end,
            value: self.value(i, colon_end, to)?,
        })
    }

    /// Reads a block mapping key (`key:`, `'key':`, `"key":`) at the start of line `i`.
    fn parse_key(&self, i: usize) -> Option<(String, usize)> {
        let line = &self.lines[i];
        let b = self.bytes();
        let from = line.start + line.indent;
        let next_is_blank = from + 1 >= line.end || is_blank(b[from + 1]);
        let (key, after) = match b[from] {
            b'-' | b'?' | b':' if next_is_blank => return None,
            b'"' | b'\'' => {
                let end = skip_quoted(b, from, line.end)?;
                (unquote(&self.text[from..end]), end)
            }
            b'[' | b']' | b'{' | b'}' | b',' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%'
            | b'@' | b'`' => return None,
            _ => {
                let colon = plain_key_end(b, from, line.end)?;
                (self.text[from..colon].trim_end().to_string(), colon)
            }
        };
        let colon = skip_blanks(b, after, line.end);
        let followed_by_blank = colon + 1 >= line.end || is_blank(b[colon + 1]);
        (colon < line.end && b[colon] == b':' && followed_by_blank && !key.is_empty())
            .then_some((key, colon + 1))
    }

    fn is_seq_item(&self, i: usize) -> bool {
        let line = &self.lines[i];
        let at = line.start + line.indent;
        self.bytes()[at] == b'-' && (at + 1 >= line.end || is_blank(self.bytes()[at + 1]))
    }

    /// Finds where the value after `key:` on line `i` starts and ends.
    fn value(&self, i: usize, colon_end: usize, to: usize) -> Result<Value, EditError> {
        let line = &self.lines[i];
        let b = self.bytes();
        let mut pos = skip_blanks(b, colon_end, line.end);
        let mut has_properties = false;
        while pos < line.end && matches!(b[pos], b'&' | b'!') {
            has_properties = true;
            let token_end = pos
                + b[pos..line.end]
                    .iter()
                    .take_while(|c| !is_blank(**c))
                    .count();
            pos = skip_blanks(b, token_end, line.end);
        }
        if pos == line.end || b[pos] == b'#' {
            return self.value_below(i, colon_end, to, has_properties);
        }
        let start = pos;
        let (kind, token_end, last_line) = match b[pos] {
            b'|' | b'>' => (Kind::BlockScalar, line.end, self.block_scalar_end(i, to)),
            b'[' | b'{' => {
                let close =
                    skip_flow(b, pos).ok_or_else(|| self.err(i, "unterminated flow collection"))?;
                let last = self.closed_value_end(i, close, to)?;
                (
                    Kind::Flow {
                        map: b[pos] == b'{',
                    },
                    close,
                    last,
                )
            }
            b'"' | b'\'' => {
                let close = skip_quoted(b, pos, b.len())
                    .ok_or_else(|| self.err(i, "unterminated quoted string"))?;
                (Kind::Scalar, close, self.closed_value_end(i, close, to)?)
            }
            _ => {
                let end = plain_end(b, pos, line.end);
                (
                    Kind::Scalar,
                    end,
                    self.block_end(i, line.indent, false, to)?,
                )
            }
        };
        Ok(Value {
            kind,
            start,
            token_end,
            last_line,
            has_properties,
        })
    }

    /// A value with nothing after the colon: null, or a node on the lines below.
    fn value_below(
        &self,
        i: usize,
        colon_end: usize,
        to: usize,
        has_properties: bool,
    ) -> Result<Value, EditError> {
        let last_line = self.block_end(i, self.lines[i].indent, true, to)?;
        let first_child = (i + 1..=last_line).find(|&j| {
            self.lines[j].kind != LineKind::Blank && self.lines[j].kind != LineKind::Comment
        });
        let kind = match first_child {
            None => Kind::Empty,
            Some(j) if self.lines[j].kind == LineKind::TabIndented => return Err(self.tab_error(j)),
            Some(j) if self.is_seq_item(j) => Kind::BlockSeq {
                indent: self.lines[j].indent,
            },
            Some(j) if self.parse_key(j).is_some() => Kind::BlockMap {
                indent: self.lines[j].indent,
            },
            Some(_) => Kind::Indented,
        };
        Ok(Value {
            kind,
            start: colon_end,
            token_end: colon_end,
            last_line,
            has_properties,
        })
    }

    /// The last line of a quoted or flow value that closes at byte `close`;
    /// only a comment may follow it.
    fn closed_value_end(&self, i: usize, close: usize, to: usize) -> Result<usize, EditError> {
        let last = self.line_of(close - 1);
        if last >= to {
            return Err(self.err(i, "value runs past the end of its block"));
        }
        let b = self.bytes();
        let end = self.lines[last].end;
        let after = skip_blanks(b, close, end);
        if after < end && !(b[after] == b'#' && after > close) {
            return Err(self.err(last, "unexpected text after value"));
        }
        let below = self.block_end(last, self.lines[i].indent, false, to)?;
        if below != last {
            return Err(self.err(below, "unexpected indented text after value"));
        }
        Ok(last)
    }

    /// The last line of the block that follows line `i` for a key at `indent`:
    /// lines indented deeper (plus same-indent `- ` items right below a bare
    /// `key:` when `flush_seq`). Trailing blank and comment lines are left outside.
    fn block_end(
        &self,
        i: usize,
        indent: usize,
        flush_seq: bool,
        to: usize,
    ) -> Result<usize, EditError> {
        let mut last = i;
        let mut in_flush_seq = false;
        for j in i + 1..to {
            let line = &self.lines[j];
            if matches!(line.kind, LineKind::Blank | LineKind::Comment) {
                continue;
            }
            if line.indent > indent {
                last = j;
                continue;
            }
            if line.kind == LineKind::TabIndented {
                return Err(self.tab_error(j));
            }
            let starts_seq = flush_seq && last == i;
            if line.indent == indent && (starts_seq || in_flush_seq) && self.is_seq_item(j) {
                in_flush_seq = true;
                last = j;
                continue;
            }
            break;
        }
        Ok(last)
    }

    /// The last line of a `|`/`>` scalar: every deeper line counts, even one
    /// that looks like a comment, since it is text there.
    fn block_scalar_end(&self, i: usize, to: usize) -> usize {
        let indent = self.lines[i].indent;
        let mut last = i;
        for j in i + 1..to {
            let line = &self.lines[j];
            if line.kind == LineKind::Blank {
                continue;
            }
            if line.indent <= indent {
                break;
            }
            last = j;
        }
        last
    }

    fn is_null(&self, entry: &Entry) -> bool {
        let v = &entry.value;
        match v.kind {
            Kind::Empty => true,
            Kind::Scalar => entry.single_line() && is_null_token(&self.text[v.start..v.token_end]),
            _ => false,
        }
    }

    fn not_a_mapping(&self, entry: &Entry) -> EditError {
        let holds = match entry.value.kind {
            Kind::BlockSeq { .. } | Kind::Flow { map: false } => "a sequence",
            Kind::Indented => "a value on the next line that is not a block mapping",
            _ => "a scalar",
        };
        self.err(
            entry.line,
            format!("`{}` holds {holds}, not a mapping", entry.key),
        )
    }

    fn flow_not_a_mapping(&self, key: &str, offset: usize) -> EditError {
        let holds = if self.bytes()[offset] == b'[' {
            "a sequence"
        } else {
            "a scalar"
        };
        self.err_at(offset, format!("`{key}` holds {holds}, not a mapping"))
    }

    /// Anchors and tags may be referenced or meaningful elsewhere; rewriting
    /// such a value could silently change other values, so refuse.
    fn check_editable(&self, entry: &Entry) -> Result<(), EditError> {
        if entry.value.has_properties {
            return Err(self.err(
                entry.line,
                format!("`{}` has an anchor or tag; edit it by hand", entry.key),
            ));
        }
        Ok(())
    }

    /// `from..end` if it holds a comment (with its leading blanks), else "".
    fn trailing_comment(&self, from: usize, end: usize) -> &'a str {
        let at = skip_blanks(self.bytes(), from, end);
        if at < end && self.bytes()[at] == b'#' {
            &self.text[from..end]
        } else {
            ""
        }
    }

    /// Deletes an entry's lines with their line endings; neighbouring lines
    /// keep every byte, including their own line endings.
    fn remove_lines(&self, entry: &Entry) -> Edit {
        let start = self.lines[entry.line].start;
        Edit::new(
            start..self.lines[self.removal_end(entry)].next,
            String::new(),
        )
    }

    /// The entry's last line plus any comment lines indented under its key
    /// that follow it: they describe it, and left behind after a block scalar
    /// they would turn into part of its text.
    fn removal_end(&self, entry: &Entry) -> usize {
        let mut last = entry.value.last_line;
        for (j, line) in self.lines.iter().enumerate().skip(last + 1) {
            match line.kind {
                LineKind::Blank => {}
                LineKind::Comment if line.indent > entry.indent => last = j,
                _ => break,
            }
        }
        last
    }

    fn has_line_ending(&self, line: &Line) -> bool {
        line.next > 0 && self.bytes()[line.next - 1] == b'\n'
    }

    /// Inserts `lines` after line `after` (or after the whole text), adding a
    /// line ending first when that line lacks one.
    fn insert_lines(&self, after: Option<usize>, lines: &[String]) -> Edit {
        let body = lines.join(self.eol);
        let eol = self.eol;
        match after.or(self.lines.len().checked_sub(1)) {
            None => Edit::new(0..0, format!("{body}{eol}")), // empty text
            Some(j) if self.has_line_ending(&self.lines[j]) => {
                let at = self.lines[j].next;
                Edit::new(at..at, format!("{body}{eol}"))
            }
            Some(j) => Edit::new(
                self.lines[j].end..self.lines[j].next,
                format!("{eol}{body}"),
            ),
        }
    }

    /// Parses the flow mapping whose `{` is at `open` into its entries.
    fn flow_map(&self, open: usize) -> Result<FlowMap, EditError> {
        let b = self.bytes();
        let mut entries = Vec::new();
        let mut pos = open + 1;
        loop {
            pos = skip_flow_space(b, pos);
            match b.get(pos) {
                None => return Err(self.err_at(open, "unterminated flow mapping")),
                Some(b'}') => {
                    return Ok(FlowMap {
                        entries,
                        open,
                        close: pos,
                    });
                }
                Some(_) => {}
            }
            let mut entry = self.flow_entry(pos)?;
            pos = skip_flow_space(b, entry.end);
            match b.get(pos) {
                Some(b',') => {
                    entry.comma = Some(pos);
                    pos += 1;
                }
                Some(b'}') => {}
                _ => return Err(self.err_at(pos, "expected `,` or `}` in flow mapping")),
            }
            entries.push(entry);
        }
    }

    fn flow_entry(&self, start: usize) -> Result<FlowEntry, EditError> {
        let b = self.bytes();
        let (key, key_end) = match b[start] {
            b'"' | b'\'' => {
                let end = skip_quoted(b, start, b.len())
                    .ok_or_else(|| self.err_at(start, "unterminated quoted key"))?;
                (unquote(&self.text[start..end]), end)
            }
            b'[' | b'{' => return Err(self.err_at(start, "complex keys are not supported")),
            _ => {
                let end = flow_plain_end(b, start);
                if end == start {
                    return Err(self.err_at(start, "expected a key in flow mapping"));
                }
                (self.text[start..end].to_string(), end)
            }
        };
        let mut entry = FlowEntry {
            key,
            start,
            key_end,
            colon: None,
            value: None,
            end: key_end,
            comma: None,
        };
        let colon = skip_flow_space(b, key_end);
        if b.get(colon) != Some(&b':') {
            return Ok(entry);
        }
        entry.colon = Some(colon);
        entry.end = colon + 1;
        let value_start = skip_flow_space(b, colon + 1);
        if matches!(b.get(value_start), Some(b',' | b'}') | None) {
            return Ok(entry);
        }
        let value_end = match b[value_start] {
            b'[' | b'{' => skip_flow(b, value_start),
            b'"' | b'\'' => skip_quoted(b, value_start, b.len()),
            _ => Some(flow_plain_end(b, value_start)),
        }
        .ok_or_else(|| self.err_at(value_start, "unterminated value in flow mapping"))?;
        entry.value = Some(value_start..value_end);
        entry.end = value_end;
        Ok(entry)
    }
}

fn scan_lines(b: &[u8]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let (raw_end, next) = match b[start..].iter().position(|&c| c == b'\n') {
            Some(p) => (start + p, start + p + 1),
            None => (b.len(), b.len()),
        };
        let end = if raw_end > start && b[raw_end - 1] == b'\r' {
            raw_end - 1
        } else {
            raw_end
        };
        lines.push(classify_line(b, start, end, next));
        start = next;
    }
    lines
}

fn classify_line(b: &[u8], start: usize, end: usize, next: usize) -> Line {
    let text = &b[start..end];
    let indent = text.iter().take_while(|&&c| c == b' ').count();
    let kind = match text.iter().position(|&c| !is_blank(c)) {
        None => LineKind::Blank,
        Some(p) if text[p] == b'#' => LineKind::Comment,
        Some(p) if p > indent => LineKind::TabIndented,
        Some(_) => LineKind::Content,
    };
    Line {
        start,
        end,
        next,
        indent,
        kind,
    }
}

// ---------------------------------------------------------------------------
// Byte scanners. They stop only at ASCII bytes, so every offset they return
// is a char boundary even in text with multi-byte characters.
// ---------------------------------------------------------------------------

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn is_flow_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn skip_blanks(b: &[u8], mut pos: usize, end: usize) -> usize {
    while pos < end && is_blank(b[pos]) {
        pos += 1;
    }
    pos
}

/// Skips whitespace, line breaks and comments inside a flow collection.
fn skip_flow_space(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() {
        if is_flow_space(b[pos]) {
            pos += 1;
        } else if b[pos] == b'#' && (pos == 0 || is_flow_space(b[pos - 1])) {
            pos += b[pos..].iter().take_while(|&&c| c != b'\n').count();
        } else {
            break;
        }
    }
    pos
}

/// The offset just past the quoted scalar opening at `pos` (quote char there).
fn skip_quoted(b: &[u8], pos: usize, limit: usize) -> Option<usize> {
    let quote = b[pos];
    let mut i = pos + 1;
    while i < limit {
        match b[i] {
            b'\\' if quote == b'"' => i += 2,
            c if c == quote => {
                if quote == b'\'' && i + 1 < limit && b[i + 1] == b'\'' {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset just past the flow collection opening at `open`, skipping
/// nested collections, quoted scalars and comments.
fn skip_flow(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut token_start = true;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => {
                depth += 1;
                token_start = true;
            }
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
                token_start = false;
            }
            b',' | b':' => token_start = true,
            b'"' | b'\'' if token_start => {
                i = skip_quoted(b, i, b.len())?;
                token_start = false;
                continue;
            }
            b'#' if is_flow_space(b[i - 1]) => {
                i += b[i..].iter().take_while(|&&c| c != b'\n').count();
                continue;
            }
            c if is_flow_space(c) => {}
            _ => token_start = false,
        }
        i += 1;
    }
    None
}

/// End of a plain scalar on one line: before ` #` or the line end, trailing blanks trimmed.
fn plain_end(b: &[u8], pos: usize, end: usize) -> usize {
    let mut stop = (pos + 1..end)
        .find(|&i| b[i] == b'#' && is_blank(b[i - 1]))
        .unwrap_or(end);
    while stop > pos && is_blank(b[stop - 1]) {
        stop -= 1;
    }
    stop
}

/// The colon ending a plain block key (`:` followed by a blank or the line
/// end), or `None` when the line is not a key (a ` #` comes first).
fn plain_key_end(b: &[u8], from: usize, end: usize) -> Option<usize> {
    let stop = (from..end).find(|&i| match b[i] {
        b':' => i + 1 >= end || is_blank(b[i + 1]),
        b'#' => i > from && is_blank(b[i - 1]),
        _ => false,
    })?;
    (b[stop] == b':').then_some(stop)
}

/// End of a plain scalar inside a flow collection (it may span lines).
fn flow_plain_end(b: &[u8], pos: usize) -> usize {
    let mut end = pos;
    for i in pos..b.len() {
        match b[i] {
            b',' | b'[' | b']' | b'{' | b'}' => break,
            b':' if b
                .get(i + 1)
                .is_none_or(|&c| is_flow_space(c) || b",[]{}".contains(&c)) =>
            {
                break;
            }
            b'#' if i > pos && is_flow_space(b[i - 1]) => break,
            c if is_flow_space(c) => {}
            _ => end = i + 1,
        }
    }
    end
}

/// Decodes a quoted key so `'k'` and `"k"` match the path element `k`.
fn unquote(raw: &str) -> String {
    let inner = &raw[1..raw.len() - 1];
    if raw.starts_with('\'') {
        inner.replace("''", "'")
    } else {
        unescape_double(inner)
    }
}

fn unescape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            '0' => Some('\0'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            't' | '\t' => Some('\t'),
            'n' => Some('\n'),
            'v' => Some('\u{B}'),
            'f' => Some('\u{C}'),
            'r' => Some('\r'),
            'e' => Some('\u{1B}'),
            'N' => Some('\u{85}'),
            '_' => Some('\u{A0}'),
            'L' => Some('\u{2028}'),
            'P' => Some('\u{2029}'),
            ' ' | '"' | '/' | '\\' => Some(e),
            _ => None,
        };
        let digits = match e {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => 0,
        };
        if let Some(c) = simple {
            out.push(c);
        } else if let Some(c) = hex_char(chars.as_str(), digits) {
            out.push(c);
            chars = chars.as_str()[digits..].chars();
        } else {
            out.push('\\');
            out.push(e);
        }
    }
    out
}

fn hex_char(s: &str, digits: usize) -> Option<char> {
    let hex = s
        .get(..digits)
        .filter(|h| digits > 0 && h.bytes().all(|c| c.is_ascii_hexdigit()))?;
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

// ---------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------

/// Flow context forbids more characters in plain scalars (`,[]{}` and `:`).
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Block,
    Flow,
}

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// Renders a scalar or empty collection on one line; collections in flow form.
fn render_inline(value: &YamlValue, ctx: Ctx) -> String {
    match value {
        YamlValue::Null => "null".to_string(),
        YamlValue::Bool(b) => b.to_string(),
        YamlValue::Int(i) => i.to_string(),
        YamlValue::Float(f) => render_float(*f),
        YamlValue::Str(s) => render_str(s, ctx),
        YamlValue::Seq(items) => {
            let items: Vec<String> = items.iter().map(|v| render_inline(v, Ctx::Flow)).collect();
            format!("[{}]", items.join(", "))
        }
        YamlValue::Map(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        render_str(k, Ctx::Flow),
                        render_inline(v, Ctx::Flow)
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// Renders a replacement token, keeping the old token's quote style when
/// the new value is a string (`old_first` is the old token's first byte).
fn styled_token(old_first: Option<u8>, new: &YamlValue, ctx: Ctx) -> String {
    match (old_first, new) {
        (Some(b'\''), YamlValue::Str(s)) => single_quoted(s).unwrap_or_else(|| double_quoted(s)),
        (Some(b'"'), YamlValue::Str(s)) => double_quoted(s),
        _ => render_inline(new, ctx),
    }
}

/// Block lines for a non-empty collection with its items at `indent`;
/// `None` for values that go on the key line.
fn block_lines(value: &YamlValue, indent: usize) -> Option<Vec<String>> {
    match value {
        YamlValue::Map(entries) if !entries.is_empty() => Some(
            entries
                .iter()
                .flat_map(|(k, v)| {
                    let head = format!("{}{}:", spaces(indent), render_str(k, Ctx::Block));
                    value_lines(head, v, indent + 2)
                })
                .collect(),
        ),
        YamlValue::Seq(items) if !items.is_empty() => Some(
            items
                .iter()
                .flat_map(|item| seq_item_lines(item, indent))
                .collect(),
        ),
        _ => None,
    }
}

/// `head` (e.g. `  key:`) followed by the value, inline or as a block below.
fn value_lines(head: String, value: &YamlValue, child_indent: usize) -> Vec<String> {
    match block_lines(value, child_indent) {
        Some(lines) => std::iter::once(head).chain(lines).collect(),
        None => vec![format!("{head} {}", render_inline(value, Ctx::Block))],
    }
}

/// One `- item`; a collection item starts on the dash line (`- k: v`) with
/// its following lines aligned under the first.
fn seq_item_lines(item: &YamlValue, indent: usize) -> Vec<String> {
    match block_lines(item, indent + 2) {
        Some(mut lines) => {
            lines[0].replace_range(indent..=indent, "-");
            lines
        }
        None => vec![format!(
            "{}- {}",
            spaces(indent),
            render_inline(item, Ctx::Block)
        )],
    }
}

/// Shortest round-trip form that still reads back as a float under YAML 1.1
/// and 1.2: always a `.`, and a signed exponent (`1.0e+16`).
fn render_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.to_string();
    }
    let s = format!("{f:?}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let dot = if mantissa.contains('.') { "" } else { ".0" };
            let sign = if exp.starts_with('-') { "" } else { "+" };
            format!("{mantissa}{dot}e{sign}{exp}")
        }
        None => s,
    }
}

fn render_str(s: &str, ctx: Ctx) -> String {
    if is_plain_safe(s, ctx) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// True when `s` written plain reads back as the same string under both
/// YAML 1.1 and 1.2 (so no bool/null/number look-alikes).
fn is_plain_safe(s: &str, ctx: Ctx) -> bool {
    let (Some(first), Some(last)) = (s.chars().next(), s.chars().last()) else {
        return false;
    };
    let flow_unsafe = ctx == Ctx::Flow && s.contains([',', '[', ']', '{', '}', ':']);
    first != ' '
        && last != ' '
        && !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && s.chars().all(is_plain_char)
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !s.starts_with("...")
        && !flow_unsafe
        && !is_reserved_word(s)
        && !looks_numeric(s)
        && !looks_like_date(s)
}

/// Characters that may appear raw in a plain or single-quoted scalar: YAML
/// printable, minus tabs, line breaks and the byte-order mark.
fn is_plain_char(c: char) -> bool {
    matches!(c,
        ' '..='~'
        | '\u{A0}'..='\u{2027}'
        | '\u{202A}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FEFE}'
        | '\u{FF00}'..='\u{FFFD}'
        | '\u{10000}'..='\u{10FFFF}')
}

fn is_reserved_word(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | "null"
            | "~"
            | "="
            | "<<"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | ".nan"
    )
}

/// Anything a YAML 1.1 or 1.2 resolver might read as a number: ints in any
/// base, floats with or without exponent, `_` separators, sexagesimal `1:20`.
/// Errs towards quoting (`1.2.3` is quoted) but leaves hex-ish words such as
/// UUIDs (`0f8e2c1a-...`) plain.
fn looks_numeric(s: &str) -> bool {
    let lower = s.strip_prefix(['+', '-']).unwrap_or(s).to_ascii_lowercase();
    let radix_digits = ["0x", "0o", "0b"]
        .iter()
        .find_map(|p| lower.strip_prefix(p));
    if let Some(digits) = radix_digits {
        return digits.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let mantissa_ok = mantissa.contains(|c: char| c.is_ascii_digit())
        && mantissa
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | ':'));
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// A bare `2026-11-21`: a YAML 1.1 timestamp. (Full RFC 3339 timestamps stay
/// plain on purpose; yaml_serde reads them back as strings.)
fn looks_like_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    matches!(parts.as_slice(), [y, m, d]
        if y.len() == 4 && (1..=2).contains(&m.len()) && (1..=2).contains(&d.len())
            && s.chars().all(|c| c.is_ascii_digit() || c == '-'))
}

fn single_quoted(s: &str) -> Option<String> {
    s.chars()
        .all(is_plain_char)
        .then(|| format!("'{}'", s.replace('\'', "''")))
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{B}' => out.push_str("\\v"),
            '\u{C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1B}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if is_plain_char(c) => out.push(c),
            c if u32::from(c) <= 0xFF => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_yaml::{Mapping, Value};
    use std::collections::HashSet;

    const TYPICAL: &str = "\
id: 0f8e2c1a-5d7b-4c2e-9a31-7b1d2e4f6a90
label: deploy-api
title: Deploy the new API to production
status: active   # hand note
priority: high
confirmed: true
created_at: 2026-11-21T04:00:00Z
verification:
  - type: command_exit_zero
    target: cargo test --quiet
    criterion: 1
budget:
  max_dispatches: 20
  cooldown: 10m
progress:
  assessments: 0
  cost_usd: 0
  last_assessed_at: null
  last_outcome: null
blockers: []
escalation: null
my_unknown_key: {keep: me}
";

    fn s(text: &str) -> YamlValue {
        YamlValue::Str(text.to_string())
    }

    fn strs(items: &[&str]) -> YamlValue {
        YamlValue::Seq(items.iter().map(|i| s(i)).collect())
    }

    fn map(entries: &[(&str, YamlValue)]) -> YamlValue {
        YamlValue::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// Parses front matter; an empty document counts as an empty mapping.
    fn yaml(text: &str) -> Value {
        match serde_yaml::from_str(text) {
            Ok(Value::Null) => Value::Mapping(Mapping::new()),
            Ok(v) => v,
            Err(e) => panic!("does not parse: {e}\n{text}"),
        }
    }

    fn to_yaml(v: &YamlValue) -> Value {
        match v {
            YamlValue::Null => Value::Null,
            YamlValue::Bool(b) => Value::Bool(*b),
            YamlValue::Int(i) => Value::Number((*i).into()),
            YamlValue::Float(f) => Value::Number((*f).into()),
            YamlValue::Str(s) => Value::String(s.clone()),
            YamlValue::Seq(items) => Value::Sequence(items.iter().map(to_yaml).collect()),
            YamlValue::Map(entries) => Value::Mapping(
                entries
                    .iter()
                    .map(|(k, v)| (Value::String(k.clone()), to_yaml(v)))
                    .collect(),
            ),
        }
    }

    /// What `set` should do to the parsed document; false when the path
    /// goes through something that is neither a mapping nor null.
    fn put(doc: &mut Value, path: &[&str], new: Value) -> bool {
        if doc.is_null() {
            *doc = Value::Mapping(Mapping::new());
        }
        let Value::Mapping(map) = doc else {
            return false;
        };
        let key = Value::String(path[0].to_string());
        if path.len() == 1 {
            map.insert(key, new);
            return true;
        }
        put(map.entry(key).or_insert(Value::Null), &path[1..], new)
    }

    /// What `remove` should do to the parsed document; false as for `put`.
    fn delete(doc: &mut Value, path: &[&str]) -> bool {
        match doc {
            Value::Null => true,
            Value::Mapping(map) => {
                let key = Value::String(path[0].to_string());
                match map.get_mut(&key) {
                    Some(_) if path.len() == 1 => {
                        map.remove(&key);
                        true
                    }
                    Some(child) => delete(child, &path[1..]),
                    None => true,
                }
            }
            _ => false,
        }
    }

    /// `set`, checking that the result parses, holds the new value and
    /// that every other value is unchanged.
    #[track_caller]
    fn checked_set(fm: &str, path: &[&str], value: &YamlValue) -> String {
        let out = set(fm, path, value).unwrap_or_else(|e| panic!("set failed: {e}\n{fm}"));
        let mut expected = yaml(fm);
        assert!(put(&mut expected, path, to_yaml(value)));
        assert_eq!(yaml(&out), expected, "\n--- before\n{fm}\n--- after\n{out}");
        out
    }

    #[track_caller]
    fn checked_remove(fm: &str, path: &[&str]) -> String {
        let out = remove(fm, path).unwrap_or_else(|e| panic!("remove failed: {e}\n{fm}"));
        let mut expected = yaml(fm);
        assert!(delete(&mut expected, path));
        assert_eq!(yaml(&out), expected, "\n--- before\n{fm}\n--- after\n{out}");
        out
    }

    // --- scalars on the key line -------------------------------------------

    #[test]
    fn scalar_replace_keeps_trailing_comment_and_spacing() {
        let out = checked_set(TYPICAL, &["status"], &s("done"));
        assert_eq!(
            out,
            TYPICAL.replace("status: active   #", "status: done   #")
        );
    }

    #[test]
    fn nested_scalar_in_block_mapping() {
        let out = checked_set(TYPICAL, &["progress", "assessments"], &YamlValue::Int(3));
        assert_eq!(out, TYPICAL.replace("  assessments: 0", "  assessments: 3"));
        let out = checked_set(TYPICAL, &["progress", "cost_usd"], &YamlValue::Float(2.5));
        assert_eq!(out, TYPICAL.replace("  cost_usd: 0", "  cost_usd: 2.5"));
    }

    #[test]
    fn timestamps_are_written_plain_and_read_back_as_strings() {
        let stamp = "2026-11-22T05:30:00Z";
        let out = checked_set(TYPICAL, &["progress", "last_assessed_at"], &s(stamp));
        let line = format!("  last_assessed_at: {stamp}");
        assert_eq!(out, TYPICAL.replace("  last_assessed_at: null", &line));
        assert_eq!(
            yaml(&out)["progress"]["last_assessed_at"],
            Value::String(stamp.into())
        );
        assert_eq!(
            yaml(TYPICAL)["created_at"],
            Value::String("2026-11-21T04:00:00Z".into())
        );
    }

    #[test]
    fn single_quote_style_is_kept() {
        assert_eq!(
            checked_set("a: 'x'  # c\n", &["a"], &s("it's")),
            "a: 'it''s'  # c\n"
        );
    }

    #[test]
    fn double_quote_style_is_kept() {
        let out = checked_set("a: \"x\"\nb: 1\n", &["a"], &s("say \"hi\"\n"));
        assert_eq!(out, "a: \"say \\\"hi\\\"\\n\"\nb: 1\n");
        assert_eq!(
            checked_set("a: \"x\"\n", &["a"], &s("plain")),
            "a: \"plain\"\n"
        );
    }

    #[test]
    fn single_quotes_fall_back_to_double_for_unprintable_text() {
        assert_eq!(
            checked_set("a: 'x'\n", &["a"], &s("a\tb")),
            "a: \"a\\tb\"\n"
        );
    }

    #[test]
    fn plain_value_gets_quotes_only_when_needed() {
        assert_eq!(checked_set("a: x\n", &["a"], &s("yes")), "a: \"yes\"\n");
        assert_eq!(checked_set("a: x\n", &["a"], &s("")), "a: \"\"\n");
        assert_eq!(
            checked_set("a: x\n", &["a"], &s("two words")),
            "a: two words\n"
        );
    }

    #[test]
    fn quoted_value_replaced_by_non_string_is_plain() {
        assert_eq!(
            checked_set("a: 'x'\n", &["a"], &YamlValue::Int(5)),
            "a: 5\n"
        );
        assert_eq!(
            checked_set("a: \"x\"\n", &["a"], &YamlValue::Null),
            "a: null\n"
        );
    }

    #[test]
    fn quoted_keys_match() {
        let fm = "'status': a  # c\n\"title\": b\n";
        assert_eq!(
            checked_set(fm, &["status"], &s("c")),
            "'status': c  # c\n\"title\": b\n"
        );
        assert_eq!(
            checked_set(fm, &["title"], &s("d")),
            "'status': a  # c\n\"title\": d\n"
        );
        let fm = "\"it's \\\"x\\\"\": 1\n'a''b': 2\n";
        assert_eq!(
            checked_set(fm, &["it's \"x\""], &YamlValue::Int(3)),
            "\"it's \\\"x\\\"\": 3\n'a''b': 2\n"
        );
        assert_eq!(
            checked_set(fm, &["a'b"], &YamlValue::Int(4)),
            "\"it's \\\"x\\\"\": 1\n'a''b': 4\n"
        );
    }

    #[test]
    fn no_op_set_rewrites_tokens_identically() {
        let cases = [
            (vec!["id"], s("0f8e2c1a-5d7b-4c2e-9a31-7b1d2e4f6a90")),
            (vec!["status"], s("active")),
            (vec!["title"], s("Deploy the new API to production")),
            (vec!["confirmed"], YamlValue::Bool(true)),
            (vec!["created_at"], s("2026-11-21T04:00:00Z")),
            (vec!["budget", "max_dispatches"], YamlValue::Int(20)),
            (vec!["budget", "cooldown"], s("10m")),
            (vec!["progress", "last_outcome"], YamlValue::Null),
            (vec!["blockers"], YamlValue::Seq(vec![])),
            (vec!["my_unknown_key", "keep"], s("me")),
        ];
        for (path, value) in cases {
            assert_eq!(checked_set(TYPICAL, &path, &value), TYPICAL, "{path:?}");
        }
        let fm = "a: 'x y'\nb: \"z\"\n";
        assert_eq!(checked_set(fm, &["a"], &s("x y")), fm);
        assert_eq!(checked_set(fm, &["b"], &s("z")), fm);
    }

    // --- line endings and final newline --------------------------------------

    #[test]
    fn crlf_is_kept_and_used_for_new_lines() {
        let fm = TYPICAL.replace('\n', "\r\n");
        assert_eq!(
            checked_set(&fm, &["status"], &s("done")),
            fm.replace("active", "done")
        );
        let out = checked_set(&fm, &["escalation", "reason"], &s("stuck"));
        assert!(
            out.contains("\r\nescalation:\r\n  reason: stuck\r\nmy_unknown_key"),
            "{out}"
        );
        let out = checked_set(&fm, &["new_key"], &strs(&["a", "b"]));
        assert!(
            out.ends_with("{keep: me}\r\nnew_key:\r\n  - a\r\n  - b\r\n"),
            "{out}"
        );
        let out = checked_set(&fm, &["budget", "paused"], &YamlValue::Bool(true));
        assert!(
            out.contains("  cooldown: 10m\r\n  paused: true\r\nprogress:"),
            "{out}"
        );
        assert!(!out.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn missing_final_newline() {
        assert_eq!(checked_set("a: 1", &["a"], &YamlValue::Int(2)), "a: 2");
        assert_eq!(
            checked_set("a: 1", &["b"], &YamlValue::Int(2)),
            "a: 1\nb: 2"
        );
        assert_eq!(
            checked_set("a: 1\r\nb: 2", &["c"], &YamlValue::Int(3)),
            "a: 1\r\nb: 2\r\nc: 3"
        );
        assert_eq!(
            checked_set("a:\n  b: 1", &["a", "c"], &YamlValue::Int(2)),
            "a:\n  b: 1\n  c: 2"
        );
        assert_eq!(checked_set("a: 1", &["a"], &strs(&["x"])), "a:\n  - x");
        assert_eq!(checked_remove("a: 1\nb: 2", &["b"]), "a: 1\n");
        assert_eq!(checked_remove("a: 1\r\nb:\r\n  c: 2", &["b"]), "a: 1\r\n");
    }

    #[test]
    fn empty_or_comment_only_front_matter() {
        assert_eq!(checked_set("", &["a"], &YamlValue::Int(1)), "a: 1\n");
        assert_eq!(
            checked_set("# note\n", &["a", "b"], &YamlValue::Int(1)),
            "# note\na:\n  b: 1\n"
        );
        assert_eq!(checked_remove("# note\n", &["a"]), "# note\n");
    }

    // --- missing keys and parents --------------------------------------------

    #[test]
    fn missing_top_level_key_is_appended() {
        let out = checked_set(TYPICAL, &["owner"], &s("alice"));
        assert_eq!(out, format!("{TYPICAL}owner: alice\n"));
        let fm = "a: 1\n# trailing comment\n\n";
        assert_eq!(
            checked_set(fm, &["b"], &YamlValue::Int(2)),
            "a: 1\n# trailing comment\n\nb: 2\n"
        );
    }

    #[test]
    fn missing_child_goes_after_last_content_line_with_sibling_indent() {
        let fm = "progress:\n    done: 1\n    # trailing note\n\nz: 1\n";
        let out = checked_set(fm, &["progress", "total"], &YamlValue::Int(2));
        assert_eq!(
            out,
            "progress:\n    done: 1\n    total: 2\n    # trailing note\n\nz: 1\n"
        );
    }

    #[test]
    fn comment_lines_inside_a_block_belong_to_it() {
        let fm = "a:\n  b: 1\n# note\n\n  c: 2\nz: 3\n";
        let out = checked_set(fm, &["a", "d"], &YamlValue::Int(4));
        assert_eq!(out, "a:\n  b: 1\n# note\n\n  c: 2\n  d: 4\nz: 3\n");
    }

    #[test]
    fn missing_parents_are_created_as_block_mappings() {
        let out = checked_set(TYPICAL, &["review", "owner"], &s("alice"));
        assert_eq!(out, format!("{TYPICAL}review:\n  owner: alice\n"));
        let out = checked_set(TYPICAL, &["x", "w", "z"], &YamlValue::Int(1));
        assert_eq!(out, format!("{TYPICAL}x:\n  w:\n    z: 1\n"));
        let out = checked_set(TYPICAL, &["progress", "history", "last"], &s("ok"));
        let expected = "  last_outcome: null\n  history:\n    last: ok\nblockers: []";
        assert!(out.contains(expected), "{out}");
    }

    #[test]
    fn three_levels_of_block_mappings() {
        let fm = "a:\n  b:\n    c: 1\n  e: 0\n";
        assert_eq!(
            checked_set(fm, &["a", "b", "c"], &YamlValue::Int(2)),
            "a:\n  b:\n    c: 2\n  e: 0\n"
        );
        assert_eq!(
            checked_set(fm, &["a", "b", "d"], &YamlValue::Int(3)),
            "a:\n  b:\n    c: 1\n    d: 3\n  e: 0\n"
        );
    }

    #[test]
    fn null_parent_becomes_a_block_mapping() {
        let reason = s("stuck");
        for fm in [
            "escalation: null\nz: 1\n",
            "escalation:\nz: 1\n",
            "escalation: ~\nz: 1\n",
        ] {
            let out = checked_set(fm, &["escalation", "reason"], &reason);
            assert_eq!(out, "escalation:\n  reason: stuck\nz: 1\n");
        }
        let out = checked_set(
            "escalation: ~   # none yet\nz: 1\n",
            &["escalation", "reason"],
            &reason,
        );
        assert_eq!(out, "escalation:   # none yet\n  reason: stuck\nz: 1\n");
        let out = checked_set(
            "escalation:  # none yet\n  # later\nz: 1\n",
            &["escalation", "reason"],
            &reason,
        );
        assert_eq!(
            out,
            "escalation:  # none yet\n  reason: stuck\n  # later\nz: 1\n"
        );
    }

    #[test]
    fn indented_root_mapping() {
        let fm = "  a: 1\n  b:\n    c: 2\n";
        assert_eq!(
            checked_set(fm, &["d"], &YamlValue::Int(3)),
            "  a: 1\n  b:\n    c: 2\n  d: 3\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "c"], &YamlValue::Int(4)),
            "  a: 1\n  b:\n    c: 4\n"
        );
    }

    // --- flow mappings ---------------------------------------------------------

    #[test]
    fn flow_parent_entry_is_changed_in_place() {
        let fm = TYPICAL.replace(
            "budget:\n  max_dispatches: 20\n  cooldown: 10m\n",
            "budget: {max_dispatches: 20, cooldown: 10m}  # caps\n",
        );
        let out = checked_set(&fm, &["budget", "cooldown"], &s("5m"));
        assert_eq!(out, fm.replace("cooldown: 10m}", "cooldown: 5m}"));
        let out = checked_set(&fm, &["budget", "paused"], &YamlValue::Bool(true));
        assert_eq!(
            out,
            fm.replace("cooldown: 10m}", "cooldown: 10m, paused: true}")
        );
        let out = checked_set(&fm, &["budget", "note"], &s("a, b: c"));
        assert_eq!(
            out,
            fm.replace("cooldown: 10m}", "cooldown: 10m, note: \"a, b: c\"}")
        );
    }

    #[test]
    fn multi_line_flow_parent_changes_only_its_lines() {
        let fm = "x:\n  budget: {\n    cool: 10m\n }\n  z: 1\n";
        let out = checked_set(fm, &["x", "budget", "cool"], &s("1h"));
        assert_eq!(out, "x:\n  budget: {\n    cool: 1h\n }\n  z: 1\n");
        // libyaml also accepts a closing brace left of the enclosing block;
        // the line scan cannot place it, so it is refused rather than guessed.
        let fm = "x:\n  budget: {\n    cool: 10m\n}\n  z: 1\n";
        assert_eq!(set_error(fm, &["x", "budget", "cool"]).line, 4);
        let fm = "a: 1\nbudget: {\n  max: 20,  # cap\n  cool: 10m\n}\nz: 2\n";
        let out = checked_set(fm, &["budget", "cool"], &s("1h"));
        assert_eq!(
            out,
            "a: 1\nbudget: {\n  max: 20,  # cap\n  cool: 1h\n}\nz: 2\n"
        );
        let out = checked_set(fm, &["budget", "new"], &YamlValue::Int(1));
        assert_eq!(
            out,
            "a: 1\nbudget: {\n  max: 20,  # cap\n  cool: 10m, new: 1\n}\nz: 2\n"
        );
    }

    #[test]
    fn flow_parent_keeps_quote_styles_and_nests() {
        let fm = "b: {k: 'x', j: \"y\", 'q': 1}\n";
        assert_eq!(
            checked_set(fm, &["b", "k"], &s("it's")),
            "b: {k: 'it''s', j: \"y\", 'q': 1}\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "j"], &s("w")),
            "b: {k: 'x', j: \"w\", 'q': 1}\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "q"], &strs(&["a", "b c"])),
            "b: {k: 'x', j: \"y\", 'q': [a, b c]}\n"
        );
        assert_eq!(
            checked_set("b: {}\n", &["b", "k"], &YamlValue::Int(1)),
            "b: {k: 1}\n"
        );
        let fm = "b: {c: {d: 1}, e: null, f}\n";
        assert_eq!(
            checked_set(fm, &["b", "c", "e"], &YamlValue::Int(2)),
            "b: {c: {d: 1, e: 2}, e: null, f}\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "e", "x"], &s("w")),
            "b: {c: {d: 1}, e: {x: w}, f}\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "f"], &YamlValue::Int(3)),
            "b: {c: {d: 1}, e: null, f: 3}\n"
        );
        assert_eq!(
            checked_set(fm, &["b", "g", "h"], &map(&[("i", YamlValue::Null)])),
            "b: {c: {d: 1}, e: null, f, g: {h: {i: null}}}\n"
        );
    }

    // --- sequences and collections ---------------------------------------------

    #[test]
    fn flow_sequence_values() {
        let out = checked_set(TYPICAL, &["blockers"], &strs(&["waiting on review"]));
        assert_eq!(
            out,
            TYPICAL.replace("blockers: []\n", "blockers:\n  - waiting on review\n")
        );
        let fm = "tags: [a, b]  # note\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["tags"], &strs(&["x"])),
            "tags:  # note\n  - x\nz: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["tags"], &s("none")),
            "tags: none  # note\nz: 1\n"
        );
        let fm = "tags: [a,\n  b]\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["tags"], &YamlValue::Int(1)),
            "tags: 1\nz: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["tags"], &strs(&["c"])),
            "tags:\n  - c\nz: 1\n"
        );
    }

    #[test]
    fn flush_sequence_stays_flush() {
        let fm = "tags:\n- a\n- b: 1\n  c: 2\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["tags"], &strs(&["x", "w"])),
            "tags:\n- x\n- w\nz: 1\n"
        );
        assert_eq!(checked_remove(fm, &["tags"]), "z: 1\n");
    }

    #[test]
    fn indented_sequence_stays_indented() {
        let fm = "tags:\n    - a\n    - b\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["tags"], &strs(&["x"])),
            "tags:\n    - x\nz: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["tags"], &map(&[("k", YamlValue::Int(1))])),
            "tags:\n  k: 1\nz: 1\n"
        );
    }

    #[test]
    fn sequence_of_mappings_aligns_keys_under_the_first() {
        let check = map(&[
            ("type", s("command_exit_zero")),
            ("target", s("cargo test")),
            ("criterion", YamlValue::Int(0)),
        ]);
        let out = checked_set(
            TYPICAL,
            &["verification"],
            &YamlValue::Seq(vec![check.clone(), check]),
        );
        let block = "verification:\n  - type: command_exit_zero\n    target: cargo test\n    criterion: 0\n  - type: command_exit_zero\n    target: cargo test\n    criterion: 0\nbudget:";
        assert!(out.contains(block), "{out}");
        let nested = YamlValue::Seq(vec![strs(&["a", "b"]), map(&[("k", strs(&["v"]))])]);
        assert_eq!(
            checked_set("x: 1\n", &["x"], &nested),
            "x:\n  - - a\n    - b\n  - k:\n      - v\n"
        );
    }

    #[test]
    fn empty_collections_are_written_inline() {
        assert_eq!(
            checked_set("a: 1  # c\n", &["a"], &YamlValue::Seq(vec![])),
            "a: []  # c\n"
        );
        assert_eq!(
            checked_set("a:\n  b: 1\n", &["a"], &YamlValue::Map(vec![])),
            "a: {}\n"
        );
        let value = map(&[("x", YamlValue::Seq(vec![])), ("w", YamlValue::Map(vec![]))]);
        assert_eq!(
            checked_set("a: 1\n", &["a"], &value),
            "a:\n  x: []\n  w: {}\n"
        );
    }

    #[test]
    fn multi_line_values_are_replaced_whole() {
        let fm = "a:  # c\n  b: 1\n  # inner\n  c: 2\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["a"], &YamlValue::Int(5)),
            "a: 5  # c\nz: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["a"], &map(&[("d", YamlValue::Int(1))])),
            "a:  # c\n  d: 1\nz: 1\n"
        );
        let fm = "a: 1  # c\nz: 1\n";
        assert_eq!(
            checked_set(fm, &["a"], &map(&[("b", YamlValue::Int(2))])),
            "a:  # c\n  b: 2\nz: 1\n"
        );
        let fm = "a: first\n  continued\nz: 1\n";
        assert_eq!(checked_set(fm, &["a"], &s("one")), "a: one\nz: 1\n");
        let fm = "a: \"first\n  second\"\nz: 1\n";
        assert_eq!(checked_set(fm, &["a"], &s("one")), "a: \"one\"\nz: 1\n");
    }

    #[test]
    fn block_scalars_are_replaced_whole() {
        let fm = "notes: |\n  line one\n  # not a comment\n\n  line three\n\nnext: 1\n";
        assert_eq!(
            checked_set(fm, &["notes"], &s("short")),
            "notes: short\n\nnext: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["notes"], &s("two\nlines")),
            "notes: \"two\\nlines\"\n\nnext: 1\n"
        );
        assert_eq!(
            checked_set(fm, &["next"], &YamlValue::Int(2)),
            fm.replace("next: 1", "next: 2")
        );
        let fm = "a: >-\n  folded\n  text\n";
        assert_eq!(checked_set(fm, &["a"], &strs(&["x"])), "a:\n  - x\n");
    }

    #[test]
    fn unknown_keys_comments_and_blank_lines_survive_many_edits() {
        let fm = format!("# header comment\n\n{TYPICAL}\n# footer\n");
        let mut out = checked_set(&fm, &["status"], &s("done"));
        out = checked_set(&out, &["progress", "assessments"], &YamlValue::Int(1));
        out = checked_set(&out, &["progress", "last_outcome"], &s("pass"));
        out = checked_set(&out, &["escalation", "reason"], &s("blocked: waiting"));
        out = checked_set(&out, &["blockers"], &strs(&["review"]));
        let expected = fm
            .replace("status: active", "status: done")
            .replace("assessments: 0", "assessments: 1")
            .replace("last_outcome: null", "last_outcome: pass")
            .replace(
                "escalation: null",
                "escalation:\n  reason: \"blocked: waiting\"",
            )
            .replace("blockers: []", "blockers:\n  - review");
        assert_eq!(out, expected);
    }

    // --- remove -----------------------------------------------------------------

    #[test]
    fn remove_top_level_and_nested_keys() {
        let out = checked_remove(TYPICAL, &["budget"]);
        assert_eq!(
            out,
            TYPICAL.replace("budget:\n  max_dispatches: 20\n  cooldown: 10m\n", "")
        );
        let out = checked_remove(TYPICAL, &["progress", "cost_usd"]);
        assert_eq!(out, TYPICAL.replace("  cost_usd: 0\n", ""));
        let out = checked_remove(TYPICAL, &["status"]);
        assert_eq!(out, TYPICAL.replace("status: active   # hand note\n", ""));
        let fm = "a: 1\n# about b\nb: |\n  text\n\n# after b\nc: 2\n";
        assert_eq!(
            checked_remove(fm, &["b"]),
            "a: 1\n# about b\n\n# after b\nc: 2\n"
        );
        let fm = "a: |\n  text\nb: 1\n  # under b\n\n  # more\n\nc: 2\n";
        assert_eq!(checked_remove(fm, &["b"]), "a: |\n  text\n\nc: 2\n");
    }

    #[test]
    fn removing_a_missing_key_changes_nothing() {
        for path in [
            &["nope"][..],
            &["nope", "x"],
            &["escalation", "x"],
            &["budget", "nope"],
            &["my_unknown_key", "nope"],
        ] {
            assert_eq!(checked_remove(TYPICAL, path), TYPICAL, "{path:?}");
        }
    }

    #[test]
    fn removing_the_last_child_leaves_an_empty_mapping() {
        assert_eq!(
            checked_remove("a:  # c\n  b: 1\nz: 1\n", &["a", "b"]),
            "a: {}  # c\nz: 1\n"
        );
        assert_eq!(
            checked_remove(TYPICAL, &["my_unknown_key", "keep"]),
            TYPICAL.replace("{keep: me}", "{}")
        );
    }

    #[test]
    fn remove_from_flow_mappings() {
        let fm = "b: {x: 1, y: 'two', z: [3]}  # c\n";
        assert_eq!(
            checked_remove(fm, &["b", "x"]),
            "b: {y: 'two', z: [3]}  # c\n"
        );
        assert_eq!(checked_remove(fm, &["b", "y"]), "b: {x: 1, z: [3]}  # c\n");
        assert_eq!(
            checked_remove(fm, &["b", "z"]),
            "b: {x: 1, y: 'two'}  # c\n"
        );
        assert_eq!(checked_remove("b: {x: 1,}\n", &["b", "x"]), "b: {}\n");
        assert_eq!(
            checked_remove("b: {x: , y: 1}\n", &["b", "y"]),
            "b: {x: }\n"
        );
        assert_eq!(
            checked_set("b: {x: }\n", &["b", "w"], &YamlValue::Int(1)),
            "b: {x: , w: 1 }\n"
        );
        assert_eq!(
            checked_remove("b: {c: {d: 1, e: 2}}\n", &["b", "c", "d"]),
            "b: {c: {e: 2}}\n"
        );
    }

    // --- errors -----------------------------------------------------------------

    #[track_caller]
    fn set_error(fm: &str, path: &[&str]) -> EditError {
        let err = set(fm, path, &YamlValue::Int(1)).expect_err("set should fail");
        let remove_err = remove(fm, path).expect_err("remove should fail");
        assert_eq!(err.line, remove_err.line);
        err
    }

    #[test]
    fn front_matter_must_be_a_mapping() {
        let err = set_error("- a\n- b\n", &["a"]);
        assert_eq!(err.line, 1);
        assert!(err.message.contains("sequence item"), "{err}");
        assert_eq!(set_error("# c\njust text\n", &["a"]).line, 2);
        assert_eq!(set_error("[a, b]\n", &["a"]).line, 1);
        assert_eq!(set_error("a:\n    b: 1\n  c: 2\n", &["a", "b"]).line, 3);
    }

    #[test]
    fn paths_through_sequences_and_scalars_fail() {
        let err = set_error(TYPICAL, &["status", "x"]);
        assert_eq!(
            err.to_string(),
            "line 4: `status` holds a scalar, not a mapping"
        );
        let err = set_error(TYPICAL, &["verification", "type"]);
        assert_eq!(
            err.to_string(),
            "line 8: `verification` holds a sequence, not a mapping"
        );
        assert_eq!(set_error(TYPICAL, &["blockers", "x"]).line, 20);
        assert!(
            set_error("a:\n  b: [1]\n", &["a", "b", "c"])
                .message
                .contains("sequence")
        );
        assert!(
            set_error("a: {b: [1]}\n", &["a", "b", "c"])
                .message
                .contains("sequence")
        );
        assert!(
            set_error("a: {b: 1}\n", &["a", "b", "c"])
                .message
                .contains("scalar")
        );
        let err = set_error("a:\n  {b: 1}\n", &["a", "b"]);
        assert!(err.message.contains("next line"), "{err}");
    }

    #[test]
    fn tabs_as_indentation_fail() {
        assert_eq!(set_error("a: 1\n\tb: 2\n", &["a"]).line, 2);
        assert_eq!(set_error("a:\n\tb: 1\n", &["a", "b"]).line, 2);
        assert_eq!(set_error("a:\n  \tb: 1\n", &["a", "b"]).line, 2);
    }

    #[test]
    fn unsafe_or_malformed_values_fail() {
        assert!(
            set_error("a: {b: 1\nc: 2\n", &["a", "b"])
                .message
                .contains("unterminated")
        );
        assert!(
            set_error("a: 'open\n", &["a"])
                .message
                .contains("unterminated")
        );
        assert_eq!(set_error("a: [1] x\n", &["a"]).line, 1);
        assert!(
            set_error("a: &x 1\nb: *x\n", &["a"])
                .message
                .contains("anchor")
        );
        assert!(set_error("a: !!str 1\n", &["a"]).message.contains("tag"));
        assert_eq!(set(TYPICAL, &[], &YamlValue::Null).unwrap_err().line, 1);
        assert_eq!(
            checked_set("a: &x 1\nb: *x\n", &["b"], &YamlValue::Int(2)),
            "a: &x 1\nb: 2\n"
        );
    }

    #[test]
    fn error_display() {
        let err = EditError {
            line: 3,
            message: "boom".to_string(),
        };
        assert_eq!(err.to_string(), "line 3: boom");
    }

    // --- rendering --------------------------------------------------------------

    #[test]
    fn strings_are_plain_only_when_safe() {
        let plain = [
            "deploy-api",
            "Deploy the new API",
            "it's",
            "a#b",
            "café",
            "1st",
            "x:y",
            "e5",
            "2026-11-21T04:00:00Z",
            "a \"q\"",
            "0f8e2c1a-5d7b",
            "1-2",
            "12e",
            "1e5x",
            "inf",
            "NaN",
            "2026-1-x",
        ];
        for text in plain {
            assert_eq!(render_scalar(&s(text)), text);
        }
        let quoted = [
            "",
            " x",
            "x ",
            "true",
            "False",
            "YES",
            "no",
            "On",
            "off",
            "y",
            "N",
            "null",
            "NULL",
            "~",
            "0x1F",
            "1e3",
            ".5",
            "1_000",
            "+1",
            "017",
            "0o17",
            "-1",
            "1.5",
            "1:20",
            "2026-11-21",
            ".inf",
            "-.Inf",
            "+.inf",
            ".NaN",
            "- x",
            "-x",
            "?x",
            ":x",
            ",x",
            "[x",
            "]x",
            "{x",
            "}x",
            "#x",
            "&x",
            "*x",
            "!x",
            "|x",
            ">x",
            "'x",
            "\"x",
            "%x",
            "@x",
            "`x",
            "a: b",
            "a #b",
            "a:",
            "line\nbreak",
            "tab\there",
            "\u{FEFF}bom",
            "---",
            "...",
            "1.",
            "0b101",
            "1e+3",
            "-.5e3",
            "0x",
            "1.2.3",
            "2026-1-2",
            "\u{7}bell",
            "<<",
            "=",
            "nel\u{85}",
            "ls\u{2028}",
            "del\u{7F}",
            "c1\u{9F}",
            "\u{FFFE}",
        ];
        for text in quoted {
            let rendered = render_scalar(&s(text));
            assert!(rendered.starts_with('"'), "{text:?} rendered as {rendered}");
            assert_eq!(
                yaml(&format!("k: {rendered}\n"))["k"],
                Value::String(text.into()),
                "{rendered}"
            );
        }
        assert_eq!(render_scalar(&s("a\nb")), "\"a\\nb\"");
        assert_eq!(render_scalar(&s("\u{FEFF}x")), "\"\\uFEFFx\"");
        assert_eq!(render_scalar(&s("\u{9F}\u{7}")), "\"\\x9F\\a\"");
    }

    #[test]
    fn numbers_and_collections_render_and_read_back() {
        let cases = [
            (YamlValue::Float(2.5), "2.5"),
            (YamlValue::Float(3.0), "3.0"),
            (YamlValue::Float(-0.0), "-0.0"),
            (YamlValue::Float(1e16), "1.0e+16"),
            (YamlValue::Float(1.5e-7), "1.5e-7"),
            (YamlValue::Float(f64::MAX), "1.7976931348623157e+308"),
            (YamlValue::Int(i64::MIN), "-9223372036854775808"),
            (YamlValue::Bool(false), "false"),
            (YamlValue::Null, "null"),
            (strs(&["a", "b, c"]), "[a, \"b, c\"]"),
            (
                map(&[("k", YamlValue::Int(1)), ("on", s("x:y"))]),
                "{k: 1, \"on\": \"x:y\"}",
            ),
            (YamlValue::Seq(vec![]), "[]"),
            (YamlValue::Map(vec![]), "{}"),
        ];
        for (value, text) in cases {
            assert_eq!(render_scalar(&value), text);
            assert_eq!(
                yaml(&format!("k: {text}\n"))["k"],
                to_yaml(&value),
                "{text}"
            );
        }
    }

    // --- properties ---------------------------------------------------------------

    const TRICKY: &[&str] = &[
        "",
        "yes",
        "No",
        "ON",
        "null",
        "~",
        "0x1F",
        "1e3",
        ".5",
        "1_000",
        "+1",
        "017",
        "-",
        "---",
        "...",
        "a: b",
        "a #b",
        "x:",
        "2026-11-21T04:00:00Z",
        "2026-11-21",
        "<<",
        "=",
        ".inf",
        "true",
        "y",
        "tab\there",
        "multi\nline",
        " lead",
        "trail ",
    ];

    fn tricky_string() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z][a-z0-9 _-]{0,10}",
            "[ -~]{0,10}",
            prop::sample::select(TRICKY).prop_map(String::from),
            "[\\x00-\\x1F\\x7F-\\xA0\\x{2028}\\x{FEFF}\\x{FFFE}a #:'\"]{0,5}",
            "\\PC{0,6}",
        ]
    }

    fn yaml_value() -> impl Strategy<Value = YamlValue> {
        let leaf = prop_oneof![
            Just(YamlValue::Null),
            any::<bool>().prop_map(YamlValue::Bool),
            any::<i64>().prop_map(YamlValue::Int),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(YamlValue::Float),
            tricky_string().prop_map(YamlValue::Str),
        ];
        leaf.prop_recursive(2, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(YamlValue::Seq),
                prop::collection::vec((tricky_string(), inner), 0..3).prop_map(|entries| {
                    let mut seen = HashSet::new();
                    YamlValue::Map(
                        entries
                            .into_iter()
                            .filter(|(k, _)| seen.insert(k.clone()))
                            .collect(),
                    )
                }),
            ]
        })
    }

    const NAMES: &[&str] = &[
        "id",
        "status",
        "budget",
        "progress",
        "notes",
        "tags",
        "escalation",
        "label",
    ];
    const SCALARS: &[&str] = &[
        "active",
        "'single ''q'''",
        "\"dq \\\" x\"",
        "42",
        "-3.5",
        "true",
        "null",
        "~",
        "",
        "2026-11-21T04:00:00Z",
        "[]",
        "{}",
        "[a, 'b c']",
        "{x: 1, y: \"two\"}",
        "Deploy the new API",
    ];
    const FLOW_SCALARS: &[&str] = &[
        "1", "'a b'", "\"q\"", "10m", "null", "[1, 2]", "true", "{z: 0}",
    ];
    const SEQ_ITEMS: &[&str] = &["a", "'b c'", "3", "k: v\n  k2: 'w'", "[x, y]"];
    const COMMENTS: &[&str] = &["", "  # hand note", " # x: y"];
    /// Whitespace-only lines stay within the block scalars' indentation: a
    /// longer one would be text if it ended up right after one.
    const FILLERS: &[&str] = &["", "# comment", "#", "  "];

    /// The shape of one generated top-level entry.
    #[derive(Debug, Clone)]
    enum Spec {
        Scalar {
            raw: usize,
            comment: usize,
            key_style: usize,
        },
        BlockMap {
            children: Vec<(usize, usize, usize)>,
            indent: usize,
            inner_comment: bool,
        },
        FlowMap {
            children: Vec<usize>,
            multiline: bool,
        },
        Seq {
            items: Vec<usize>,
            flush: bool,
        },
        Text {
            folded: bool,
            lines: usize,
        },
    }

    fn spec() -> impl Strategy<Value = Spec> {
        let scalar = (0..SCALARS.len(), 0..COMMENTS.len(), 0..3usize);
        prop_oneof![
            scalar
                .clone()
                .prop_map(|(raw, comment, key_style)| Spec::Scalar {
                    raw,
                    comment,
                    key_style
                }),
            (
                prop::collection::vec(scalar, 1..4),
                prop_oneof![Just(2usize), Just(4)],
                any::<bool>()
            )
                .prop_map(|(children, indent, inner_comment)| Spec::BlockMap {
                    children,
                    indent,
                    inner_comment
                }),
            (
                prop::collection::vec(0..FLOW_SCALARS.len(), 0..4),
                any::<bool>()
            )
                .prop_map(|(children, multiline)| Spec::FlowMap {
                    children,
                    multiline
                }),
            (
                prop::collection::vec(0..SEQ_ITEMS.len(), 1..4),
                any::<bool>()
            )
                .prop_map(|(items, flush)| Spec::Seq { items, flush }),
            (any::<bool>(), 1..4usize).prop_map(|(folded, lines)| Spec::Text { folded, lines }),
        ]
    }

    /// Block-mapping children of a generated entry: key and line range.
    type ChildSpans = Vec<(String, Range<usize>)>;

    /// A generated entry placed in a document: line ranges of it and of its block-mapping children.
    #[derive(Debug)]
    struct Placed {
        key: String,
        lines: Range<usize>,
        children: Option<ChildSpans>,
    }

    #[derive(Debug)]
    struct GenDoc {
        text: String,
        eol: &'static str,
        entries: Vec<Placed>,
    }

    fn key_text(name: &str, style: usize) -> String {
        match style {
            0 => name.to_string(),
            1 => format!("'{name}'"),
            _ => format!("\"{name}\""),
        }
    }

    fn scalar_line(indent: usize, key: &str, raw: &str, comment: &str) -> String {
        let value = if raw.is_empty() {
            String::new()
        } else {
            format!(" {raw}")
        };
        format!("{}{key}:{value}{comment}", spaces(indent))
    }

    /// Renders one entry; child line ranges are relative to its first line.
    fn render_spec(spec: &Spec, key: &str) -> (Vec<String>, Option<ChildSpans>) {
        match spec {
            Spec::Scalar {
                raw,
                comment,
                key_style,
            } => (
                vec![scalar_line(
                    0,
                    &key_text(key, *key_style),
                    SCALARS[*raw],
                    COMMENTS[*comment],
                )],
                None,
            ),
            Spec::BlockMap {
                children,
                indent,
                inner_comment,
            } => {
                let mut lines = vec![format!("{key}:")];
                if *inner_comment {
                    lines.push(format!("{}# inner note", spaces(*indent)));
                }
                let mut spans = Vec::new();
                for (i, (raw, comment, style)) in children.iter().enumerate() {
                    let name = format!("c{i}");
                    spans.push((name.clone(), lines.len()..lines.len() + 1));
                    lines.push(scalar_line(
                        *indent,
                        &key_text(&name, *style),
                        SCALARS[*raw],
                        COMMENTS[*comment],
                    ));
                }
                (lines, Some(spans))
            }
            Spec::FlowMap {
                children,
                multiline,
            } => {
                let entries: Vec<String> = children
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("c{i}: {}", FLOW_SCALARS[*v]))
                    .collect();
                if *multiline && !entries.is_empty() {
                    let mut lines = vec![format!("{key}: {{")];
                    lines.push(format!("  {}", entries.join(",\n  ")));
                    lines.push("}".to_string());
                    (
                        lines.join("\n").split('\n').map(String::from).collect(),
                        None,
                    )
                } else {
                    (vec![format!("{key}: {{{}}}", entries.join(", "))], None)
                }
            }
            Spec::Seq { items, flush } => {
                let indent = spaces(if *flush { 0 } else { 2 });
                let mut lines = vec![format!("{key}:")];
                for item in items {
                    for (i, part) in SEQ_ITEMS[*item].split('\n').enumerate() {
                        lines.push(if i == 0 {
                            format!("{indent}- {part}")
                        } else {
                            format!("{indent}{part}")
                        });
                    }
                }
                (lines, None)
            }
            Spec::Text { folded, lines } => {
                let mut out = vec![format!("{key}: {}", if *folded { ">" } else { "|" })];
                out.extend(
                    ["  line one", "  # not a comment", "  x: y"][..*lines]
                        .iter()
                        .map(|l| l.to_string()),
                );
                (out, None)
            }
        }
    }

    fn gen_doc() -> impl Strategy<Value = GenDoc> {
        (
            prop::collection::vec(
                (spec(), prop::option::of(0..FILLERS.len())),
                1..=NAMES.len(),
            ),
            prop::option::of(0..FILLERS.len()),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(specs, trailer, crlf, final_newline)| {
                let mut lines: Vec<String> = Vec::new();
                let mut entries = Vec::new();
                for ((spec, filler), name) in specs.iter().zip(NAMES) {
                    lines.extend(filler.map(|f| FILLERS[f].to_string()));
                    let start = lines.len();
                    let (entry_lines, children) = render_spec(spec, name);
                    lines.extend(entry_lines);
                    let shift =
                        |(k, r): (String, Range<usize>)| (k, r.start + start..r.end + start);
                    entries.push(Placed {
                        key: name.to_string(),
                        lines: start..lines.len(),
                        children: children.map(|c| c.into_iter().map(shift).collect()),
                    });
                }
                lines.extend(trailer.map(|f| FILLERS[f].to_string()));
                let eol = if crlf { "\r\n" } else { "\n" };
                let mut text = lines.join(eol);
                // A block scalar's value depends on whether the text after it
                // ends with a line break, so omit the final newline only
                // without them (real front matter always has one).
                let has_text = specs
                    .iter()
                    .any(|(spec, _)| matches!(spec, Spec::Text { .. }));
                if final_newline || has_text {
                    text.push_str(eol);
                }
                GenDoc { text, eol, entries }
            })
    }

    /// Picks a path of depth 1 or 2: existing or new top-level key, existing or new child.
    fn target_path(doc: &GenDoc, top: usize, child: usize, depth: usize) -> Vec<String> {
        let key = doc
            .entries
            .get(top)
            .map_or("fresh".to_string(), |e| e.key.clone());
        let mut path = vec![key];
        if depth == 2 {
            path.push(if child < 4 {
                format!("c{child}")
            } else {
                "c_new".to_string()
            });
        }
        path
    }

    /// The line range of `doc` that an edit at `path` may touch.
    fn edited_span(doc: &GenDoc, path: &[&str], removing: bool) -> Range<usize> {
        let end = doc.text.lines().count();
        let Some(entry) = doc.entries.iter().find(|e| e.key == path[0]) else {
            return end..end;
        };
        match (&entry.children, path.get(1)) {
            (Some(children), Some(child)) => match children.iter().find(|(k, _)| k == child) {
                Some(_) if removing && children.len() == 1 => entry.lines.clone(),
                Some((_, r)) => r.clone(),
                None => entry.lines.end..entry.lines.end,
            },
            _ => entry.lines.clone(),
        }
    }

    /// Every old line outside `span` is still there, in order, before and after the edit.
    fn check_outside_span(old: &str, new: &str, span: Range<usize>) -> Result<(), TestCaseError> {
        let old: Vec<&str> = old.lines().collect();
        let new: Vec<&str> = new.lines().collect();
        let head = &old[..span.start.min(old.len())];
        let tail = &old[span.end.min(old.len())..];
        prop_assert!(new.len() >= head.len() + tail.len());
        prop_assert_eq!(&new[..head.len()], head);
        prop_assert_eq!(&new[new.len() - tail.len()..], tail);
        Ok(())
    }

    fn check_line_endings(doc: &GenDoc, out: &str) -> Result<(), TestCaseError> {
        // Text without any line ending gets the default, LF.
        if doc.eol == "\r\n" && doc.text.contains('\n') {
            let bytes = out.as_bytes();
            prop_assert!(
                out.match_indices('\n')
                    .all(|(i, _)| i > 0 && bytes[i - 1] == b'\r')
            );
        } else {
            prop_assert!(!out.contains('\r'));
        }
        Ok(())
    }

    const NOISE_LINES: &[&str] = &[
        "a: 1",
        "b:",
        "  a: x # c",
        "  - 1",
        "- 2",
        "c: {a: 1,",
        "  b: 2}",
        "'a': \"x",
        "  y\"",
        "\tb: 1",
        "a: |",
        "  # t",
        "",
        "c: [1, {a: 2",
        "]}",
        "b: &x {a: 1}",
        "? a",
        "  c: ~",
        "a: {b, c: }",
        "\"b\": 'it''s'",
        "  b:\r",
        "c: {a: {b: [",
        "#",
        "  c:",
        "    a: 1",
        "- a: 1",
        "  b: |",
        "    x",
        "b: 'x''y'",
        "'c': {a: [1, 2], b: {c: 3}}",
        "a: >-",
        "  - a: 1",
        "    b: 2",
        "c: ~ # n",
        "b: \"a",
        "  b\"",
        "a: [",
        "  1,",
        "  2]",
        "  c: {a: 1}",
        "c: *x",
        "  b: null",
        "    c: x",
        "a:\r",
        "  - b",
    ];

    fn noisy_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[abc :#'\"\\-\\[\\]{},|>&*!?\\t\\r\\n~.\\\\]{0,60}",
            prop::collection::vec(prop::sample::select(NOISE_LINES), 0..10)
                .prop_map(|lines| lines.join("\n")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn set_and_remove_never_panic(
            fm in noisy_text(),
            path in prop::collection::vec(prop::sample::select(&["a", "b", "c"][..]), 0..4),
            value in yaml_value(),
        ) {
            let _ = set(&fm, &path, &value);
            let _ = remove(&fm, &path);
        }

        #[test]
        fn ok_results_on_noisy_documents_are_correct(
            fm in prop::collection::vec(prop::sample::select(NOISE_LINES), 0..10).prop_map(|lines| lines.join("\n") + "\n"),
            path in prop::collection::vec(prop::sample::select(&["a", "b", "c"][..]), 1..4),
            value in yaml_value(),
        ) {
            let Ok(before @ Value::Mapping(_)) = serde_yaml::from_str::<Value>(&fm) else { return Ok(()) };
            if let Ok(out) = set(&fm, &path, &value) {
                let mut expected = before.clone();
                prop_assert!(put(&mut expected, &path, to_yaml(&value)));
                let after: Result<Value, _> = serde_yaml::from_str(&out);
                prop_assert!(after.is_ok(), "{}\n---\n{}", fm, out);
                prop_assert_eq!(after.unwrap(), expected, "{}\n---\n{}", fm, out);
            }
            if let Ok(out) = remove(&fm, &path) {
                let mut expected = before.clone();
                prop_assert!(delete(&mut expected, &path));
                prop_assert_eq!(yaml(&out), expected, "{}\n---\n{}", fm, out);
            }
        }

        #[test]
        fn set_changes_only_the_edited_span(
            doc in gen_doc(),
            (top, child, depth) in (0..NAMES.len() + 1, 0..5usize, 1..=2usize),
            value in yaml_value(),
        ) {
            let owned = target_path(&doc, top, child, depth);
            let path: Vec<&str> = owned.iter().map(String::as_str).collect();
            let mut expected = yaml(&doc.text);
            let allowed = put(&mut expected, &path, to_yaml(&value));
            let result = set(&doc.text, &path, &value);
            if !allowed {
                prop_assert!(result.is_err(), "expected an error, got {:?}", result);
                return Ok(());
            }
            let out = result.map_err(|e| TestCaseError::fail(format!("{e}\n{}", doc.text)))?;
            prop_assert_eq!(yaml(&out), expected, "\n{}\n---\n{}", doc.text, out);
            check_outside_span(&doc.text, &out, edited_span(&doc, &path, false))?;
            check_line_endings(&doc, &out)?;
            prop_assert_eq!(out.ends_with('\n'), doc.text.ends_with('\n'));
        }

        #[test]
        fn remove_changes_only_the_removed_span(
            doc in gen_doc(),
            (top, child, depth) in (0..NAMES.len() + 1, 0..5usize, 1..=2usize),
        ) {
            let owned = target_path(&doc, top, child, depth);
            let path: Vec<&str> = owned.iter().map(String::as_str).collect();
            let mut expected = yaml(&doc.text);
            let allowed = delete(&mut expected, &path);
            let result = remove(&doc.text, &path);
            if !allowed {
                prop_assert!(result.is_err(), "expected an error, got {:?}", result);
                return Ok(());
            }
            let out = result.map_err(|e| TestCaseError::fail(format!("{e}\n{}", doc.text)))?;
            prop_assert_eq!(yaml(&out), expected, "\n{}\n---\n{}", doc.text, out);
            check_outside_span(&doc.text, &out, edited_span(&doc, &path, true))?;
            check_line_endings(&doc, &out)?;
        }
    }
}
