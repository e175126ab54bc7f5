//! The grammar of one line of `## Plan`:
//!
//! ```text
//! node    = INDENT "- [" BOX "] " ID " " NAME { " · " NOTE }
//! detail  = INDENT "- accept: " TEXT  |  INDENT "- outcome: " TEXT
//! INDENT  = 0, 2 or 4 spaces for a phase, a task, a subtask; a detail is
//!           indented 2 more than its node
//! BOX     = " " | "x" | "X"            ("x": done; nothing else is ticked)
//! ID      = a letter, then letters, digits, ".", "_" or "-" (at most 32)
//! NAME    = text without " · "
//! NOTE    = "queued" | "in progress" | "blocked: " REASON | "cancelled"
//!         | "after " ID { ", " ID }
//! ```
//!
//! A node with an empty box and no status note is `todo`; a ticked box
//! carries no status note. Any other line (a blank line, a note, a comment,
//! a bullet that is not a task item) is not part of the plan and is kept as
//! it is.

use std::ops::Range;

use super::NodeStatus;

/// The separator between a node's name and its notes.
pub const SEPARATOR: &str = " · ";

/// The longest node id.
pub const MAX_ID: usize = 32;

/// A line's mistake: 1-based column and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub column: usize,
    pub message: String,
}

fn error(column: usize, message: impl Into<String>) -> LineError {
    LineError {
        column,
        message: message.into(),
    }
}

/// A node line, with where its parts are for a byte-minimal rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLine<'a> {
    /// 0 phase, 1 task, 2 subtask.
    pub depth: usize,
    pub id: &'a str,
    /// 1-based column of the id.
    pub id_column: usize,
    pub name: &'a str,
    pub status: NodeStatus,
    pub reason: Option<&'a str>,
    /// The ids after `after`, with their 1-based columns.
    pub after: Vec<(&'a str, usize)>,
    /// Offset of the box's symbol in the line.
    box_at: usize,
    /// The status note with its separator, when there is one.
    status_note: Option<Range<usize>>,
    /// Where a new status note goes: after the name.
    name_end: usize,
}

/// What a detail line says about its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailKind {
    Accept,
    Outcome,
}

/// One classified line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanLine<'a> {
    Node(NodeLine<'a>),
    Detail {
        /// The spaces before `-`.
        indent: usize,
        kind: DetailKind,
        text: &'a str,
    },
    Other,
}

/// Reads one line (without its line ending).
pub fn classify(line: &str) -> Result<PlanLine<'_>, LineError> {
    let rest = line.trim_start_matches([' ', '\t']);
    let indent = line.len() - rest.len();
    let looks_like_node = is_task_item(rest);
    let detail = [
        ("- accept:", DetailKind::Accept),
        ("- outcome:", DetailKind::Outcome),
    ]
    .into_iter()
    .find(|(prefix, _)| rest.starts_with(prefix));
    if !looks_like_node && detail.is_none() {
        return Ok(PlanLine::Other);
    }
    if line[..indent].contains('\t') {
        return Err(error(1, "indent plan lines with spaces, not tabs"));
    }
    if let Some((prefix, kind)) = detail {
        let text = rest[prefix.len()..].trim();
        if text.is_empty() {
            return Err(error(
                indent + prefix.len() + 1,
                "empty: write what it says",
            ));
        }
        if !indent.is_multiple_of(2) || indent == 0 || indent > 6 {
            return Err(error(
                1,
                "a detail is indented 2 spaces more than its node (2, 4 or 6)",
            ));
        }
        return Ok(PlanLine::Detail { indent, kind, text });
    }
    // Columns count characters, as editors do; `node` counts bytes.
    let chars = |byte_column: usize| {
        line.get(..byte_column - 1)
            .map_or(byte_column, |before| before.chars().count() + 1)
    };
    match node(line, indent) {
        Ok(mut parsed) => {
            parsed.id_column = chars(parsed.id_column);
            for (_, column) in &mut parsed.after {
                *column = chars(*column);
            }
            Ok(PlanLine::Node(parsed))
        }
        Err(err) => Err(LineError {
            column: chars(err.column),
            ..err
        }),
    }
}

/// `- [?] ` with one character in the box.
fn is_task_item(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 6
        && bytes.starts_with(b"- [")
        && bytes[4] == b']'
        && bytes[5] == b' '
        && bytes[3].is_ascii()
}

fn node(line: &str, indent: usize) -> Result<NodeLine<'_>, LineError> {
    if !indent.is_multiple_of(2) || indent > 4 {
        return Err(error(
            1,
            format!("a node is indented 0, 2 or 4 spaces (phase, task, subtask), not {indent}"),
        ));
    }
    let box_at = indent + 3;
    let done = match line.as_bytes()[box_at] {
        b' ' => false,
        b'x' | b'X' => true,
        _ => {
            return Err(error(
                box_at + 1,
                "the box is `[ ]` (not done) or `[x]` (done)",
            ));
        }
    };
    let spaces = line[indent + 6..].len() - line[indent + 6..].trim_start_matches(' ').len();
    let id_start = indent + 6 + spaces;
    let after_box = &line[id_start..];
    let id_len = after_box.find(' ').unwrap_or(after_box.len());
    let id = &after_box[..id_len];
    validate_id(id).map_err(|why| error(id_start + 1, why))?;
    let name_start = id_start + id_len + 1;
    let rest = line.get(name_start..).unwrap_or("");
    let mut parts = separated(rest);
    let first = parts.next().unwrap_or("");
    let raw_name = first.trim_end();
    let name = raw_name.trim_start();
    if name.is_empty() {
        return Err(error(
            name_start.min(line.len()) + 1,
            format!("node {id} has no name: write it after the id"),
        ));
    }
    let name_end = name_start + raw_name.len();
    let mut parsed = NodeLine {
        depth: indent / 2,
        id,
        id_column: id_start + 1,
        name,
        status: if done {
            NodeStatus::Done
        } else {
            NodeStatus::Todo
        },
        reason: None,
        after: Vec::new(),
        box_at,
        status_note: None,
        name_end,
    };
    let mut offset = name_start + first.len();
    let mut seen_after = false;
    for part in parts {
        let note_start = offset;
        let column = offset + SEPARATOR.len() + 1;
        offset += SEPARATOR.len() + part.len();
        let note = part.trim_end();
        if let Some(ids) = note.strip_prefix("after ") {
            if seen_after {
                return Err(error(
                    column,
                    "one `after` note per node: list the ids in it",
                ));
            }
            seen_after = true;
            let mut id_column = column + "after ".len();
            for dep in ids.split(',') {
                let lead = dep.len() - dep.trim_start().len();
                let dep_id = dep.trim();
                validate_id(dep_id).map_err(|why| error(id_column + lead, why))?;
                parsed.after.push((dep_id, id_column + lead));
                id_column += dep.len() + 1;
            }
            continue;
        }
        let (status, reason) = match note {
            "queued" => (NodeStatus::Queued, None),
            "in progress" | "in_progress" => (NodeStatus::InProgress, None),
            "cancelled" => (NodeStatus::Cancelled, None),
            "blocked" => {
                return Err(error(column, "say why it is blocked: `blocked: REASON`"));
            }
            _ => match note.strip_prefix("blocked:") {
                Some(reason) if !reason.trim().is_empty() => {
                    (NodeStatus::Blocked, Some(reason.trim()))
                }
                Some(_) => {
                    return Err(error(column, "say why it is blocked: `blocked: REASON`"));
                }
                None => {
                    return Err(error(
                        column,
                        format!(
                            "unknown note `{note}`: expected queued, in progress, blocked: REASON, cancelled or after ID[, ID]"
                        ),
                    ));
                }
            },
        };
        if done {
            return Err(error(
                column,
                format!("a ticked node is done: remove `{note}`, or untick the box"),
            ));
        }
        if parsed.status_note.is_some() {
            return Err(error(column, "one status per node"));
        }
        parsed.status = status;
        parsed.reason = reason;
        parsed.status_note = Some(note_start..note_start + SEPARATOR.len() + note.len());
    }
    Ok(parsed)
}

/// `text` split at each [`SEPARATOR`]. The search is for its middle dot
/// alone, which most lines do not hold, rather than for the whole
/// separator.
fn separated(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        let mut from = 0;
        while let Some(dot) = current[from..].find('\u{b7}').map(|i| from + i) {
            let start = dot.saturating_sub(1);
            if current[start..].starts_with(SEPARATOR) {
                rest = Some(&current[start + SEPARATOR.len()..]);
                return Some(&current[..start]);
            }
            from = dot + '\u{b7}'.len_utf8();
        }
        rest = None;
        Some(current)
    })
}

/// A node id: a letter, then letters, digits, `.`, `_` or `-`.
pub fn validate_id(id: &str) -> Result<(), String> {
    let mut chars = id.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if id.is_empty() {
        return Err("expected a node id (a letter, then letters, digits, `.`, `_` or `-`)".into());
    }
    if !first_ok
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        || id.len() > MAX_ID
    {
        return Err(format!(
            "`{id}` is not a node id: a letter, then letters, digits, `.`, `_` or `-`, at most {MAX_ID}"
        ));
    }
    Ok(())
}

/// The status note a status is written with (none for todo and done).
fn status_note(status: NodeStatus, reason: Option<&str>) -> Option<String> {
    match status {
        NodeStatus::Todo | NodeStatus::Done => None,
        NodeStatus::Queued => Some("queued".into()),
        NodeStatus::InProgress => Some("in progress".into()),
        NodeStatus::Cancelled => Some("cancelled".into()),
        NodeStatus::Blocked => Some(format!("blocked: {}", reason.unwrap_or("no reason given"))),
    }
}

/// `line` with its node's status changed: the box's symbol and the status
/// note change, every other byte stays.
pub fn with_status(
    line: &str,
    parsed: &NodeLine<'_>,
    status: NodeStatus,
    reason: Option<&str>,
) -> String {
    let mut out = line.to_string();
    let note = status_note(status, reason).map(|n| format!("{SEPARATOR}{n}"));
    match (&parsed.status_note, note) {
        (Some(range), Some(note)) => out.replace_range(range.clone(), &note),
        (Some(range), None) => out.replace_range(range.clone(), ""),
        (None, Some(note)) => out.insert_str(parsed.name_end, &note),
        (None, None) => {}
    }
    let symbol = if status == NodeStatus::Done { "x" } else { " " };
    if (line.as_bytes()[parsed.box_at] == b' ') != (symbol == " ") {
        out.replace_range(parsed.box_at..parsed.box_at + 1, symbol);
    }
    out
}

/// A node's line as steward writes it.
pub fn render_node(
    depth: usize,
    id: &str,
    name: &str,
    status: NodeStatus,
    reason: Option<&str>,
    after: &[String],
) -> String {
    let mut line = format!(
        "{}- [{}] {id} {name}",
        "  ".repeat(depth),
        if status == NodeStatus::Done { "x" } else { " " }
    );
    if let Some(note) = status_note(status, reason) {
        line.push_str(SEPARATOR);
        line.push_str(&note);
    }
    if !after.is_empty() {
        line.push_str(SEPARATOR);
        line.push_str("after ");
        line.push_str(&after.join(", "));
    }
    line
}

/// A detail line as steward writes it.
pub fn render_detail(depth: usize, kind: DetailKind, text: &str) -> String {
    let key = match kind {
        DetailKind::Accept => "accept",
        DetailKind::Outcome => "outcome",
    };
    format!("{}- {key}: {text}", "  ".repeat(depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(line: &str) -> NodeLine<'_> {
        match classify(line) {
            Ok(PlanLine::Node(node)) => node,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    fn mistake(line: &str) -> LineError {
        classify(line).expect_err(line)
    }

    #[test]
    fn a_node_line_reads_id_name_status_and_dependencies() {
        let parsed = node(
            "  - [ ] T1.2 Deploy to production · blocked: needs the prod token · after T1.1, P0",
        );
        assert_eq!(parsed.depth, 1);
        assert_eq!(parsed.id, "T1.2");
        assert_eq!(parsed.name, "Deploy to production");
        assert_eq!(parsed.status, NodeStatus::Blocked);
        assert_eq!(parsed.reason, Some("needs the prod token"));
        assert_eq!(
            parsed.after.iter().map(|a| a.0).collect::<Vec<_>>(),
            ["T1.1", "P0"]
        );
        assert_eq!(node("- [x] P1 Ship it").status, NodeStatus::Done);
        assert_eq!(node("- [ ] P1 Ship it").status, NodeStatus::Todo);
        assert_eq!(
            node("- [ ] P1 Ship it · in progress").status,
            NodeStatus::InProgress
        );
        assert_eq!(
            node("- [ ] P1 Ship it · cancelled").status,
            NodeStatus::Cancelled
        );
    }

    #[test]
    fn other_lines_are_not_the_plan() {
        for line in [
            "",
            "Notes about the plan.",
            "- a plain bullet",
            "<!-- comment -->",
            "- [link](https://example.com)",
        ] {
            assert_eq!(classify(line), Ok(PlanLine::Other), "{line:?}");
        }
        assert_eq!(
            classify("    - accept: it answers 200"),
            Ok(PlanLine::Detail {
                indent: 4,
                kind: DetailKind::Accept,
                text: "it answers 200"
            })
        );
    }

    #[test]
    fn notes_are_split_at_the_separator_only() {
        let parts: Vec<&str> = separated("a·b · c ·d · ").collect();
        assert_eq!(parts, ["a·b", "c ·d", ""]);
        assert_eq!(separated("plain").collect::<Vec<_>>(), ["plain"]);
    }

    #[test]
    fn mistakes_say_where() {
        assert_eq!(mistake("   - [ ] T1 Odd indent").column, 1);
        assert_eq!(mistake("- [v] P1 Bad box").column, 4);
        assert_eq!(mistake("- [ ] 1P Bad id").column, 7);
        let unknown = mistake("- [ ] P1 Name · soon");
        assert_eq!(unknown.column, 17);
        assert!(
            unknown.message.contains("unknown note `soon`"),
            "{}",
            unknown.message
        );
        assert!(
            mistake("- [ ] P1 Name · blocked")
                .message
                .contains("blocked: REASON")
        );
        assert!(
            mistake("- [x] P1 Name · queued")
                .message
                .contains("ticked node is done")
        );
        assert!(
            mistake("- [ ] P1 Name · queued · cancelled")
                .message
                .contains("one status")
        );
        assert_eq!(mistake("- [ ] P1 Name · after T1, 2x").column, 27);
        assert!(mistake("- [ ] P1").message.contains("no name"));
        assert!(mistake("\t- [ ] P1 Tabbed").message.contains("tabs"));
        assert!(mistake("  - accept:   ").message.contains("empty"));
    }

    #[test]
    fn a_status_change_rewrites_the_box_and_the_note_only() {
        let line = "  - [ ]  T1.2   Deploy  it · after T1.1";
        let parsed = node(line);
        let started = with_status(line, &parsed, NodeStatus::InProgress, None);
        assert_eq!(
            started,
            "  - [ ]  T1.2   Deploy  it · in progress · after T1.1"
        );
        let parsed = node(&started);
        let blocked = with_status(&started, &parsed, NodeStatus::Blocked, Some("no token"));
        assert_eq!(
            blocked,
            "  - [ ]  T1.2   Deploy  it · blocked: no token · after T1.1"
        );
        let parsed = node(&blocked);
        let done = with_status(&blocked, &parsed, NodeStatus::Done, None);
        assert_eq!(done, "  - [x]  T1.2   Deploy  it · after T1.1");
        let parsed = node(&done);
        assert_eq!(with_status(&done, &parsed, NodeStatus::Todo, None), line);
    }

    #[test]
    fn rendered_lines_read_back() {
        let line = render_node(
            2,
            "S1.1.1",
            "Add the route",
            NodeStatus::Blocked,
            Some("waits"),
            &["S1.1.0".into()],
        );
        assert_eq!(
            line,
            "    - [ ] S1.1.1 Add the route · blocked: waits · after S1.1.0"
        );
        let parsed = node(&line);
        assert_eq!(
            (parsed.depth, parsed.status, parsed.reason),
            (2, NodeStatus::Blocked, Some("waits"))
        );
        assert_eq!(
            render_detail(2, DetailKind::Accept, "ok"),
            "      - accept: ok"
        );
    }
}
