//! The Markdown body of a goal file: read with comrak for positions, edited
//! by splicing bytes so nothing outside the edit changes.
//!
//! Sections are ATX level-2 headings (`## Title`); a setext underline such as
//! `---` in the body is text, never a boundary.

use std::ops::Range;

use comrak::nodes::{AstNode, NodeValue};
use comrak::{Arena, Options, parse_document};

// History lines and criteria are single lines.
use crate::text::one_line;

pub const CRITERIA_HEADING: &str = "Acceptance criteria";
pub const HISTORY_HEADING: &str = "History";
pub const PLAN_HEADING: &str = "Plan";

/// One task item under `## Acceptance criteria`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CriterionSpan {
    pub text: String,
    pub met: bool,
    /// Byte offset of the character between the brackets.
    symbol: usize,
    /// The item's whole lines, line endings included.
    lines: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    title: String,
    /// From the heading line's first byte to the next level-1/2 heading.
    range: Range<usize>,
    /// Just after the heading line's line ending.
    content_start: usize,
}

/// Where things are in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyLayout {
    description_end: usize,
    sections: Vec<Section>,
    pub criteria: Vec<CriterionSpan>,
}

impl BodyLayout {
    /// Where things are in `body`: a line scan for plain bodies, comrak for
    /// anything a line scan could misread.
    pub fn parse(body: &str) -> BodyLayout {
        plain::scan(body).unwrap_or_else(|| BodyLayout::parse_markdown(body))
    }

    /// The full CommonMark reading.
    fn parse_markdown(body: &str) -> BodyLayout {
        let lines = LineIndex::new(body);
        let arena = Arena::new();
        let mut options = Options::default();
        options.extension.tasklist = true;
        let root = parse_document(&arena, body, &options);

        let mut boundaries = Vec::new();
        for node in root.children() {
            let data = node.data();
            if let NodeValue::Heading(heading) = &data.value
                && heading.level <= 2
                && !heading.setext
            {
                let line = data.sourcepos.start.line;
                boundaries.push((
                    line,
                    heading.level,
                    heading_title(lines.line_text(body, line)),
                ));
            }
        }
        let mut sections = Vec::new();
        for (index, (line, level, title)) in boundaries.iter().enumerate() {
            if *level != 2 {
                continue;
            }
            let end = boundaries
                .get(index + 1)
                .map_or(body.len(), |(next, _, _)| lines.start(*next));
            sections.push(Section {
                title: title.clone(),
                range: lines.start(*line)..end,
                content_start: lines.start(line + 1),
            });
        }
        let description_end = sections.first().map_or(body.len(), |s| s.range.start);

        let mut criteria = Vec::new();
        if let Some(section) = sections
            .iter()
            .find(|s| is_heading(&s.title, CRITERIA_HEADING))
        {
            for node in root.children() {
                let start = lines.start(node.data().sourcepos.start.line);
                if !section.range.contains(&start) {
                    continue;
                }
                if matches!(node.data().value, NodeValue::List(_)) {
                    collect_tasks(node, body, &lines, &mut criteria);
                }
            }
        }
        BodyLayout {
            description_end,
            sections,
            criteria,
        }
    }

    /// The text before the first `## ` heading, trimmed.
    pub fn description<'b>(&self, body: &'b str) -> &'b str {
        body[..self.description_end].trim()
    }

    /// The lines of the `## History` list, without their `- ` marker.
    pub fn history<'b>(&self, body: &'b str) -> Vec<&'b str> {
        self.history_items(body)
            .into_iter()
            .map(|range| {
                let line = body[range].trim_end_matches(['\r', '\n']);
                line.trim_start()[2..].trim()
            })
            .collect()
    }

    /// The `## Plan` section after its heading line, when there is one.
    pub fn plan_content(&self) -> Option<std::ops::Range<usize>> {
        self.section(PLAN_HEADING)
            .map(|s| s.content_start.min(s.range.end)..s.range.end)
    }

    fn section(&self, title: &str) -> Option<&Section> {
        self.sections.iter().find(|s| is_heading(&s.title, title))
    }

    /// Whole-line ranges of the `- ` items of the history section.
    fn history_items(&self, body: &str) -> Vec<Range<usize>> {
        let Some(section) = self.section(HISTORY_HEADING) else {
            return Vec::new();
        };
        let mut items = Vec::new();
        let mut offset = section.content_start;
        while offset < section.range.end {
            let end = line_end(body, offset).min(section.range.end);
            if body[offset..end].trim_start().starts_with("- ") {
                items.push(offset..end);
            }
            offset = end;
        }
        items
    }
}

fn is_heading(title: &str, wanted: &str) -> bool {
    title.eq_ignore_ascii_case(wanted)
}

fn heading_title(line: &str) -> String {
    let text = line.trim().trim_start_matches('#').trim();
    text.trim_end_matches('#').trim().to_string()
}

fn collect_tasks<'a>(
    list: &'a AstNode<'a>,
    body: &str,
    lines: &LineIndex,
    out: &mut Vec<CriterionSpan>,
) {
    for item in list.children() {
        let data = item.data();
        let NodeValue::TaskItem(task) = &data.value else {
            continue;
        };
        let symbol =
            lines.start(task.symbol_sourcepos.start.line) + task.symbol_sourcepos.start.column - 1;
        if !matches!(body.as_bytes().get(symbol), Some(b' ' | b'x' | b'X')) {
            // Positions that do not map to the source bytes (comrak rewrote
            // the text, e.g. a NUL): not a criterion steward can tick.
            continue;
        }
        let first = data.sourcepos.start.line;
        let mut last = data.sourcepos.end.line.max(first);
        // A list's last item reaches over the blank lines after it.
        while last > first && lines.line_text(body, last).trim().is_empty() {
            last -= 1;
        }
        let text = item
            .children()
            .find(|child| matches!(child.data().value, NodeValue::Paragraph))
            .map(|paragraph| {
                let pos = paragraph.data().sourcepos;
                let start = lines.start(pos.start.line) + pos.start.column - 1;
                let end = lines.end_of_content(body, pos.end.line);
                body.get(start..end.max(start))
                    .unwrap_or_default()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        out.push(CriterionSpan {
            text,
            met: task.symbol.is_some(),
            symbol,
            lines: lines.start(first)..lines.start(last + 1),
        });
    }
}

/// Byte offsets of line starts, with `\n`, `\r\n` and lone `\r` as line
/// endings, as CommonMark counts them.
struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Start of 1-based `line`; past the end, the text's length.
    fn start(&self, line: usize) -> usize {
        self.starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.len)
    }

    fn end_of_content(&self, text: &str, line: usize) -> usize {
        let end = self.start(line + 1);
        let slice = &text[self.start(line)..end];
        end - (slice.len() - slice.trim_end_matches(['\r', '\n']).len())
    }

    fn line_text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        &text[self.start(line)..self.end_of_content(text, line)]
    }
}

/// The offset just past the line ending of the line that holds `offset`.
fn line_end(text: &str, offset: usize) -> usize {
    match find_byte(text.as_bytes(), offset, b'\n') {
        Some(at) => at + 1,
        None => text.len(),
    }
}

/// The offset of the first `byte` in `bytes` at or after `from`, looked for
/// eight bytes at a time. core's search costs about 200 instructions for a
/// line of a plan, most of a body's scan; the memchr crate's SIMD would
/// first ask the CPU what it has, nine `cpuid`s that each trap to the
/// hypervisor on a virtual machine.
fn find_byte(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ pattern;
        // The high bit of each byte that is now zero; a borrow can mark a
        // byte after a zero one too, never one before, so the lowest mark
        // is the first match.
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    (bytes.get(at..)?.iter().position(|b| *b == byte)).map(|index| at + index)
}

/// The fast path: bodies made of paragraphs, ATX headings at the start of a
/// line and flat task lists, which is what steward writes and most people
/// do. Anything else (code fences, indented or nested blocks, HTML, block
/// quotes, setext underlines and thematic breaks, lazy continuation lines)
/// returns `None` and comrak reads the body.
mod plain {
    use super::{
        BodyLayout, CRITERIA_HEADING, CriterionSpan, PLAN_HEADING, Section, heading_title,
        is_heading, line_end,
    };

    /// A line of the body: its bytes without the line ending, and where it
    /// starts and ends (line ending included).
    struct Line<'b> {
        text: &'b str,
        start: usize,
        end: usize,
    }

    /// The body's lines, but for the lines of each `## Plan` section: the
    /// plan is checked on its own and nothing else here reads its lines,
    /// so they are only looked at for what could hide the heading after
    /// them. `None` when a line holds a carriage return before its end,
    /// or a plan line is tricky. `has_cr`: whether the body holds a
    /// carriage return (most do not, and their lines need no search for
    /// one).
    fn lines(body: &str, has_cr: bool) -> Option<Vec<Line<'_>>> {
        let mut out = Vec::new();
        let mut in_plan = false;
        let mut start = 0;
        while start < body.len() {
            let end = line_end(body, start);
            let text = line_text(&body[start..end], has_cr)?;
            match heading_level(text) {
                Some(level) if level <= 2 => {
                    in_plan = level == 2 && is_heading(&heading_title(text), PLAN_HEADING);
                }
                _ if in_plan => {
                    if is_tricky_in_plan(text) {
                        return None;
                    }
                    start = end;
                    continue;
                }
                _ => {}
            }
            out.push(Line { text, start, end });
            start = end;
        }
        Some(out)
    }

    /// The line `chunk` without its line ending; `None` when it holds a
    /// carriage return elsewhere.
    fn line_text(chunk: &str, has_cr: bool) -> Option<&str> {
        let text = chunk.strip_suffix('\n').unwrap_or(chunk);
        if !has_cr {
            return Some(text);
        }
        let text = text.strip_suffix('\r').unwrap_or(text);
        (!text.as_bytes().contains(&b'\r')).then_some(text)
    }

    /// [`is_tricky`] for a line of a plan, answered at a glance for the
    /// lines plans are made of: a node or detail (`- [ ] …`, `- accept: …`)
    /// or text, at column 0 or indented by 2 or more.
    fn is_tricky_in_plan(text: &str) -> bool {
        let bytes = text.as_bytes();
        let indent = bytes.iter().take_while(|b| **b == b' ').count();
        let plain = indent != 1
            && match &bytes[indent..] {
                [b'-', b' ', third, ..] => third.is_ascii_alphanumeric() || *third == b'[',
                [first, ..] => first.is_ascii_alphanumeric(),
                [] => true,
            };
        !plain && is_tricky(text, true)
    }

    /// Whether `bytes` hold a tab or NUL byte (which a line scan could
    /// misread), and, when they do not, whether they hold a carriage
    /// return: one pass, 64 bytes at a time in vector compares (three of
    /// core's searches were a third of a plan's scan).
    pub(super) fn unusual_bytes(bytes: &[u8]) -> (bool, bool) {
        // Folds over whole blocks without an early exit: the shape the
        // compiler makes vector code of.
        let any = |block: &[u8; 64], wanted: fn(u8) -> bool| {
            block
                .iter()
                .fold(0u8, |found, &byte| found | u8::from(wanted(byte)))
                != 0
        };
        let mut cr = false;
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            let block: &[u8; 64] = block.try_into().expect("64 bytes");
            cr |= any(block, |byte| byte == b'\r');
            if any(block, |byte| byte == b'\t' || byte == 0) {
                return (true, cr);
            }
        }
        let rest = blocks.remainder();
        let tab_or_nul = rest.iter().any(|&byte| byte == b'\t' || byte == 0);
        (tab_or_nul, cr || rest.contains(&b'\r'))
    }

    /// The level of an ATX heading starting at column 0.
    fn heading_level(text: &str) -> Option<usize> {
        let level = text.bytes().take_while(|b| *b == b'#').count();
        let rest = &text[level..];
        ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' '))).then_some(level)
    }

    /// Lines a line scan could misread (tabs and NUL bytes are checked
    /// once for the whole body). In `## Plan`, nested list items are the
    /// plan's own lines, which no other section reads.
    fn is_tricky(text: &str, in_plan: bool) -> bool {
        let trimmed = text.trim_start_matches(' ');
        let indent = text.len() - trimmed.len();
        if indent > 0 && !trimmed.is_empty() && indent < 2 {
            return true;
        }
        if trimmed.starts_with("```")
            || trimmed.starts_with("~~~")
            || trimmed.starts_with('<')
            || trimmed.starts_with('>')
        {
            return true;
        }
        // Setext underlines and thematic breaks: a line of only - = * _.
        let marks = trimmed.trim_end();
        if !marks.is_empty()
            && marks
                .bytes()
                .all(|b| matches!(b, b'-' | b'=' | b'*' | b'_' | b' '))
        {
            return true;
        }
        // A heading or list marker not at column 0.
        indent > 0 && (trimmed.starts_with('#') || (!in_plan && list_marker(trimmed).is_some()))
    }

    /// The width of a list marker and its one space (`- `, `* `, `+ `,
    /// `1. `, `12) `).
    fn list_marker(text: &str) -> Option<usize> {
        let bytes = text.as_bytes();
        if matches!(bytes.first(), Some(b'-' | b'*' | b'+')) {
            return match bytes.get(1) {
                Some(b' ') if bytes.get(2) != Some(&b' ') => Some(2),
                None => Some(1),
                _ => None,
            };
        }
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if (1..=9).contains(&digits) && matches!(bytes.get(digits), Some(b'.' | b')')) {
            return match bytes.get(digits + 1) {
                Some(b' ') if bytes.get(digits + 2) != Some(&b' ') => Some(digits + 2),
                None => Some(digits + 1),
                _ => None,
            };
        }
        None
    }

    /// The task box after a list marker: the symbol's offset in the line
    /// and whether it is ticked.
    fn task_box(text: &str, marker: usize) -> Option<(usize, bool)> {
        let rest = text.get(marker..)?;
        let bytes = rest.as_bytes();
        if bytes.len() < 3
            || bytes[0] != b'['
            || bytes[2] != b']'
            || !matches!(bytes.get(3), None | Some(b' '))
        {
            return None;
        }
        match bytes[1] {
            b' ' => Some((marker + 1, false)),
            b'x' | b'X' => Some((marker + 1, true)),
            _ => None,
        }
    }

    pub(super) fn scan(body: &str) -> Option<BodyLayout> {
        let (tab_or_nul, has_cr) = unusual_bytes(body.as_bytes());
        if tab_or_nul {
            return None;
        }
        let lines = lines(body, has_cr)?;
        if lines.iter().any(|line| is_tricky(line.text, false)) {
            return None;
        }
        // Headings, and which lines belong to a list item (its first line
        // and the indented lines after it).
        let mut boundaries: Vec<(usize, usize, String)> = Vec::new();
        let mut items: Vec<(usize, usize)> = Vec::new();
        let mut in_item = false;
        let mut marker_width = 0;
        let mut after_blank = true;
        for (index, line) in lines.iter().enumerate() {
            let text = line.text;
            if text.trim().is_empty() {
                after_blank = true;
                continue;
            }
            if let Some(level) = heading_level(text) {
                if level <= 2 {
                    boundaries.push((index, level, heading_title(text)));
                }
                in_item = false;
            } else if let Some(width) = list_marker(text) {
                items.push((index, index));
                in_item = true;
                marker_width = width;
            } else if text.starts_with(' ') {
                // Continuation of an item when indented to its content;
                // anything less indented is for comrak to place.
                let indent = text.len() - text.trim_start_matches(' ').len();
                if in_item && indent < marker_width {
                    return None;
                }
                if in_item && let Some(item) = items.last_mut() {
                    item.1 = index;
                }
            } else if in_item && !after_blank {
                // A lazy continuation line: comrak decides.
                return None;
            } else {
                in_item = false;
            }
            after_blank = false;
        }
        let start = |index: usize| lines.get(index).map_or(body.len(), |l| l.start);
        let mut sections = Vec::new();
        for (position, (index, level, title)) in boundaries.iter().enumerate() {
            if *level != 2 {
                continue;
            }
            let end = boundaries
                .get(position + 1)
                .map_or(body.len(), |(next, _, _)| start(*next));
            sections.push(Section {
                title: title.clone(),
                range: start(*index)..end,
                content_start: lines[*index].end,
            });
        }
        let description_end = sections.first().map_or(body.len(), |s| s.range.start);
        let mut criteria = Vec::new();
        if let Some(section) = sections
            .iter()
            .find(|s| is_heading(&s.title, CRITERIA_HEADING))
        {
            for (first, last) in items
                .iter()
                .copied()
                .filter(|(first, _)| section.range.contains(&start(*first)))
            {
                let line = &lines[first];
                let marker = list_marker(line.text)?;
                let Some((symbol, met)) = task_box(line.text, marker) else {
                    continue;
                };
                if line.text[symbol + 2..].trim().is_empty() {
                    // An empty task item: comrak takes its text from later
                    // lines in ways a line scan should not guess.
                    return None;
                }
                // The criterion is the item's first paragraph.
                let mut text: Vec<&str> = vec![line.text.get(symbol + 2..).unwrap_or_default()];
                text.extend(
                    lines[first + 1..=last]
                        .iter()
                        .map(|l| l.text)
                        .take_while(|t| !t.trim().is_empty()),
                );
                let text = text
                    .iter()
                    .flat_map(|t| t.split_whitespace())
                    .collect::<Vec<_>>()
                    .join(" ");
                criteria.push(CriterionSpan {
                    text,
                    met,
                    symbol: line.start + symbol,
                    lines: line.start..lines[last].end,
                });
            }
        }
        Some(BodyLayout {
            description_end,
            sections,
            criteria,
        })
    }
}

/// Errors of body edits, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    NoSuchCriterion {
        n: usize,
        count: usize,
    },
    NoSuchNode {
        id: String,
    },
    /// The plan does not read (the goal would not have been read either).
    Plan(String),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::NoSuchCriterion { n, count: 0 } => {
                write!(
                    f,
                    "criterion {n} does not exist: the goal has no acceptance criteria"
                )
            }
            BodyError::NoSuchCriterion { n, count } => {
                write!(
                    f,
                    "criterion {n} does not exist: the goal has criteria 1 to {count}"
                )
            }
            BodyError::NoSuchNode { id } => write!(f, "the plan has no node {id}"),
            BodyError::Plan(why) => write!(f, "the plan does not read: {why}"),
        }
    }
}

/// Ticks or unticks criterion `n` (1-based) by rewriting one byte.
pub fn set_met(body: &str, n: usize, met: bool) -> Result<String, BodyError> {
    let layout = BodyLayout::parse(body);
    let criterion = criterion(&layout, n)?;
    if criterion.met == met {
        return Ok(body.to_string());
    }
    let mut out = body.to_string();
    out.replace_range(
        criterion.symbol..criterion.symbol + 1,
        if met { "x" } else { " " },
    );
    Ok(out)
}

fn criterion(layout: &BodyLayout, n: usize) -> Result<&CriterionSpan, BodyError> {
    n.checked_sub(1)
        .and_then(|index| layout.criteria.get(index))
        .ok_or(BodyError::NoSuchCriterion {
            n,
            count: layout.criteria.len(),
        })
}

/// Removes criterion `n` with its lines.
pub fn remove_criterion(body: &str, n: usize) -> Result<String, BodyError> {
    let layout = BodyLayout::parse(body);
    let lines = criterion(&layout, n)?.lines.clone();
    let mut out = body.to_string();
    out.replace_range(lines, "");
    Ok(out)
}

/// Adds an unmet criterion after the last one, creating the section when
/// there is none (before `## History` if present).
pub fn add_criterion(body: &str, text: &str, newline: &str) -> String {
    let layout = BodyLayout::parse(body);
    let text = one_line(text);
    if let Some(last) = layout.criteria.last() {
        let first_line = &body[last.lines.start..line_end(body, last.lines.start)];
        let prefix = next_marker(&first_line[..last.symbol - 1 - last.lines.start]);
        let item = format!("{prefix}[ ] {text}");
        return insert_line_at(body, last.lines.end, &item, newline);
    }
    if let Some(section) = layout.section(CRITERIA_HEADING) {
        return insert_into_empty_section(body, section, &format!("- [ ] {text}"), newline);
    }
    let block = format!("## {CRITERIA_HEADING}{newline}{newline}- [ ] {text}{newline}");
    insert_before_history(body, &layout, &block, newline)
}

/// The list marker for the item after one whose text before `[` is `prefix`:
/// bullets are copied, ordered numbers go up by one.
fn next_marker(prefix: &str) -> String {
    let indent_len = prefix.len() - prefix.trim_start().len();
    let (indent, marker) = prefix.split_at(indent_len);
    let digits: String = marker.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return prefix.to_string();
    }
    let number: u64 = digits.parse().unwrap_or(0);
    format!("{indent}{}{}", number + 1, &marker[digits.len()..])
}

/// Sets the status of plan node `id` by rewriting its line only: the box
/// and the status note, every other byte as it was.
pub fn set_plan_node(
    body: &str,
    id: &str,
    status: crate::model::plan::NodeStatus,
    reason: Option<&str>,
) -> Result<String, BodyError> {
    let layout = BodyLayout::parse(body);
    let content = layout
        .plan_content()
        .ok_or_else(|| BodyError::NoSuchNode { id: id.to_string() })?;
    let parsed = crate::model::plan::section::parse(body, content)
        .map_err(|err| BodyError::Plan(format!("line {}: {}", err.line, err.message)))?;
    let index = parsed
        .plan
        .find(id)
        .ok_or_else(|| BodyError::NoSuchNode { id: id.to_string() })?;
    let range = parsed.lines[index].clone();
    let line = &body[range.clone()];
    let crate::model::plan::line::PlanLine::Node(node) =
        crate::model::plan::line::classify(line).map_err(|err| BodyError::Plan(err.message))?
    else {
        return Err(BodyError::NoSuchNode { id: id.to_string() });
    };
    let rewritten = crate::model::plan::line::with_status(line, &node, status, reason);
    let mut out = body.to_string();
    out.replace_range(range, &rewritten);
    Ok(out)
}

/// Puts `lines` (rendered plan lines) under `## Plan`: in place of the
/// section's nodes when there is one (what comes before the first node, a
/// note, stays), else as a new section before `## History` (or at the
/// end).
pub fn set_plan(body: &str, lines: &str, newline: &str) -> String {
    let layout = BodyLayout::parse(body);
    if let Some(content) = layout.plan_content() {
        let first_node = crate::model::plan::section::parse(body, content.clone())
            .ok()
            .and_then(|parsed| parsed.lines.first().map(|line| line.start));
        let intro_end = first_node.unwrap_or_else(|| {
            content.start + body[content.clone()].trim_end_matches(['\r', '\n']).len()
        });
        let intro = body[content.start..intro_end].trim_end_matches(['\r', '\n']);
        let mut block = String::from(newline);
        if !intro.trim().is_empty() {
            block = format!("{intro}{newline}{newline}");
        }
        block.push_str(lines);
        if content.end < body.len() {
            block.push_str(newline);
        }
        let mut out = body.to_string();
        out.replace_range(content, &block);
        return out;
    }
    let block = format!("## {PLAN_HEADING}{newline}{newline}{lines}");
    insert_before_history(body, &layout, &block, newline)
}

/// Replaces the description (the text before the first `## ` heading),
/// keeping the whitespace around it.
pub fn set_description(body: &str, text: &str, newline: &str) -> String {
    let layout = BodyLayout::parse(body);
    let region = &body[..layout.description_end];
    let text = normalize_newlines(text.trim(), newline);
    let lead = region.len() - region.trim_start().len();
    let content_end = region.trim_end().len();
    let mut out = body.to_string();
    if content_end > lead {
        out.replace_range(lead..content_end, &text);
        return out;
    }
    if text.is_empty() {
        return out;
    }
    // No description yet: put it before the first heading with a blank line.
    let separator = if layout.description_end < body.len() {
        format!("{newline}{newline}")
    } else {
        newline.to_string()
    };
    out.insert_str(lead, &format!("{text}{separator}"));
    out
}

/// Checks that `text` stays a description when written as one: no line of
/// it may start a `## ` section, open a code block or an HTML block that
/// runs on, or otherwise change what the rest of the body means (text on
/// the command line cannot create Markdown structure:
/// steward-design(7), "Structure stays the person's"). `Err` says which
/// line.
pub fn check_description(text: &str) -> Result<(), String> {
    let probe = format!("{}\n\n## Acceptance criteria\n\n- [ ] probe\n", text.trim());
    let layout = BodyLayout::parse(&probe);
    let read_back = layout.description(&probe);
    // A line of `-` or `=` under text makes that text a heading.
    let lines: Vec<&str> = text.lines().collect();
    let setext = lines.windows(2).any(|pair| {
        let under = pair[1].trim();
        !pair[0].trim().is_empty()
            && !under.is_empty()
            && (under.chars().all(|c| c == '-') || under.chars().all(|c| c == '='))
    });
    let intact = !setext
        && read_back == text.trim()
        && layout.criteria.len() == 1
        && layout.criteria[0].text == "probe";
    if intact {
        return Ok(());
    }
    let culprit = text
        .lines()
        .enumerate()
        .find(|(_, line)| {
            let line = line.trim_start();
            line.starts_with('#')
                || line.starts_with("```")
                || line.starts_with("~~~")
                || line.starts_with('<')
                || (!line.is_empty() && line.chars().all(|c| c == '=' || c == '-'))
        })
        .map_or_else(String::new, |(index, line)| {
            format!(" (line {}: `{}`)", index + 1, crate::text::head(line, 60))
        });
    Err(format!(
        "the description would change the goal's structure{culprit}: a line may not start a heading (`#`, `===`, `---`) or open a code or HTML block; indent such lines by four spaces or reword them"
    ))
}

/// Appends `line` to `## History` (creating it at the end when missing) and
/// drops the oldest entries beyond `keep`.
pub fn append_history(body: &str, line: &str, newline: &str, keep: usize) -> String {
    let layout = BodyLayout::parse(body);
    let entry = format!("- {}", one_line(line));
    let items = layout.history_items(body);
    let mut out = match (items.last(), layout.section(HISTORY_HEADING)) {
        (Some(last), _) => insert_line_at(body, last.end, &entry, newline),
        (None, Some(section)) => insert_into_empty_section(body, section, &entry, newline),
        (None, None) => append_block(
            body,
            &format!("## {HISTORY_HEADING}{newline}{newline}{entry}{newline}"),
            newline,
        ),
    };
    let excess = (items.len() + 1).saturating_sub(keep);
    if excess > 0 {
        let mut end = items[excess - 1].end;
        if end == body.len() && !body.ends_with('\n') {
            // The dropped entry was the unterminated last line: drop the
            // line ending inserted after it too.
            end += newline.len();
        }
        out.replace_range(items[0].start..end, "");
    }
    out
}

/// Puts the first item of a section one blank line below its heading.
fn insert_into_empty_section(body: &str, section: &Section, line: &str, newline: &str) -> String {
    let start = section.content_start;
    let next = line_end(body, start);
    if start < body.len() && body[start..next].trim().is_empty() {
        return insert_line_at(body, next, line, newline);
    }
    insert_line_at(body, start, &format!("{newline}{line}"), newline)
}

/// Inserts `line` so it starts at `offset` (a line start, or the end of a
/// text whose last line has no line ending, which stays without one).
fn insert_line_at(body: &str, offset: usize, line: &str, newline: &str) -> String {
    let mut out = body.to_string();
    if offset == body.len() && !body.is_empty() && !body.ends_with('\n') && !body.ends_with('\r') {
        out.push_str(newline);
        out.push_str(line);
    } else {
        out.insert_str(offset, &format!("{line}{newline}"));
    }
    out
}

/// Puts a new section's `block` (ending with a line ending) before
/// `## History`, or at the end when there is none.
fn insert_before_history(body: &str, layout: &BodyLayout, block: &str, newline: &str) -> String {
    match layout.section(HISTORY_HEADING) {
        Some(history) => {
            let mut out = body.to_string();
            out.insert_str(history.range.start, &format!("{block}{newline}"));
            out
        }
        None => append_block(body, block, newline),
    }
}

/// Appends a block (ending with a line ending) after a blank line, keeping a
/// missing final newline missing.
fn append_block(body: &str, block: &str, newline: &str) -> String {
    let mut out = body.to_string();
    let trimmed_len = out.trim_end_matches(['\r', '\n']).len();
    let had_final_newline = trimmed_len < out.len() || out.is_empty();
    if trimmed_len == 0 {
        out.clear();
    } else {
        out.truncate(trimmed_len);
        out.push_str(newline);
        out.push_str(newline);
    }
    out.push_str(block);
    if !had_final_newline {
        out.truncate(out.len() - newline.len());
    }
    out
}

fn normalize_newlines(text: &str, newline: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', newline)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "Run all tests, then deploy.\n\n## Acceptance criteria\n\n- [ ] All tests pass\n- [x] PR merged\n  after review\n- [ ] Deployed\n\n## History\n\n- 2026-11-21T04:00:00Z user created: priority high\n";

    #[test]
    fn reads_description_criteria_and_history() {
        let layout = BodyLayout::parse(BODY);
        assert_eq!(layout.description(BODY), "Run all tests, then deploy.");
        let criteria: Vec<(&str, bool)> = layout
            .criteria
            .iter()
            .map(|c| (c.text.as_str(), c.met))
            .collect();
        assert_eq!(
            criteria,
            [
                ("All tests pass", false),
                ("PR merged after review", true),
                ("Deployed", false)
            ]
        );
        assert_eq!(
            layout.history(BODY),
            ["2026-11-21T04:00:00Z user created: priority high"]
        );
    }

    #[test]
    fn ticking_changes_one_byte() {
        let out = set_met(BODY, 1, true).unwrap();
        assert_eq!(out, BODY.replacen("- [ ] All", "- [x] All", 1));
        assert_eq!(set_met(BODY, 2, true).unwrap(), BODY);
        assert_eq!(set_met(&out, 1, false).unwrap(), BODY);
        assert_eq!(
            set_met(BODY, 4, true),
            Err(BodyError::NoSuchCriterion { n: 4, count: 3 })
        );
    }

    #[test]
    fn criteria_in_code_blocks_and_other_sections_do_not_count() {
        let body = "Intro\n\n```\n- [ ] not a criterion\n```\n\n## Acceptance criteria\n\n* [ ] one\n\n## Notes\n\n- [ ] elsewhere\n";
        let layout = BodyLayout::parse(body);
        assert_eq!(layout.criteria.len(), 1);
        assert_eq!(layout.criteria[0].text, "one");
    }

    #[test]
    fn dashes_in_the_body_are_not_a_section() {
        let body = "Intro\n---\nmore\n\n## Acceptance criteria\n- [ ] a\n";
        let layout = BodyLayout::parse(body);
        assert_eq!(layout.description(body), "Intro\n---\nmore");
        assert_eq!(layout.criteria.len(), 1);
    }

    #[test]
    fn adds_criteria_with_the_same_marker() {
        let body = "## Acceptance criteria\n\n* [ ] one\n* [x] two\n\n## History\n";
        assert_eq!(
            add_criterion(body, "three", "\n"),
            "## Acceptance criteria\n\n* [ ] one\n* [x] two\n* [ ] three\n\n## History\n"
        );
        let ordered = "## Acceptance criteria\n\n1. [ ] one\n";
        assert_eq!(
            add_criterion(ordered, "two", "\n"),
            "## Acceptance criteria\n\n1. [ ] one\n2. [ ] two\n"
        );
    }

    #[test]
    fn adds_the_criteria_section_before_history() {
        let body = "Text\n\n## History\n\n- x\n";
        assert_eq!(
            add_criterion(body, "done", "\n"),
            "Text\n\n## Acceptance criteria\n\n- [ ] done\n\n## History\n\n- x\n"
        );
        assert_eq!(
            add_criterion("", "done", "\n"),
            "## Acceptance criteria\n\n- [ ] done\n"
        );
    }

    #[test]
    fn removes_a_criterion_with_its_continuation_lines() {
        let out = remove_criterion(BODY, 2).unwrap();
        assert_eq!(out, BODY.replace("- [x] PR merged\n  after review\n", ""));
    }

    #[test]
    fn replaces_only_the_description_text() {
        let out = set_description(BODY, "Ship it.", "\n");
        assert_eq!(out, BODY.replace("Run all tests, then deploy.", "Ship it."));
        let empty = "\n## Acceptance criteria\n";
        assert_eq!(
            set_description(empty, "New", "\n"),
            "\nNew\n\n## Acceptance criteria\n"
        );
        assert_eq!(set_description("", "New", "\n"), "New\n");
    }

    #[test]
    fn appends_history_keeping_crlf_and_a_missing_final_newline() {
        let body = "Text\r\n\r\n## History\r\n\r\n- one";
        assert_eq!(
            append_history(body, "two", "\r\n", 100),
            "Text\r\n\r\n## History\r\n\r\n- one\r\n- two"
        );
        assert_eq!(
            append_history("Text", "one", "\n", 100),
            "Text\n\n## History\n\n- one"
        );
        assert_eq!(
            append_history("Text\n", "one", "\n", 100),
            "Text\n\n## History\n\n- one\n"
        );
        assert_eq!(
            append_history("## History\n", "one", "\n", 100),
            "## History\n\n- one\n"
        );
    }

    mod differential {
        use proptest::prelude::*;

        use super::super::BodyLayout;

        /// Bytes around the ones searched for, and ones whose bits come
        /// near them (a borrow in a word-at-a-time search).
        fn bytes() -> impl Strategy<Value = Vec<u8>> {
            let byte = prop::sample::select(vec![
                b'\n', b'\r', b'\t', 0, 1, 0x0b, 0x80, 0x8a, 0xff, b'a',
            ]);
            prop::collection::vec(byte, 0..150)
        }

        proptest! {
            #[test]
            fn find_byte_finds_the_first_match(bytes in bytes(), from in 0usize..160) {
                let from = from.min(bytes.len());
                let wanted = bytes[from..].iter().position(|b| *b == b'\n').map(|at| from + at);
                prop_assert_eq!(super::super::find_byte(&bytes, from, b'\n'), wanted);
            }

            #[test]
            fn unusual_bytes_are_found_in_any_block(bytes in bytes()) {
                let tab_or_nul = bytes.iter().any(|b| *b == b'\t' || *b == 0);
                let (found, cr) = super::super::plain::unusual_bytes(&bytes);
                prop_assert_eq!(found, tab_or_nul);
                if !tab_or_nul {
                    prop_assert_eq!(cr, bytes.contains(&b'\r'));
                }
            }
        }

        fn line() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("## Acceptance criteria".to_string()),
                Just("## History".to_string()),
                Just("# Title".to_string()),
                Just("### Deeper".to_string()),
                Just(String::new()),
                "[a-z ]{0,12}".prop_map(|t| format!("- [ ] {t}")),
                "[a-z ]{0,12}".prop_map(|t| format!("* [x] {t}")),
                "[a-z ]{0,12}".prop_map(|t| format!("1. [X] {t}")),
                "[a-z ]{0,12}".prop_map(|t| format!("- {t}")),
                "[a-z ]{1,12}".prop_map(|t| format!("  {t}")),
                "[a-zA-Z .,:*_]{1,20}",
                Just("- [ ]".to_string()),
                Just("-[ ] no space".to_string()),
                Just("- [y] odd box".to_string()),
                Just("```".to_string()),
                Just("    code".to_string()),
                Just("---".to_string()),
                Just("> quote".to_string()),
                Just("<div>".to_string()),
                Just("  - nested".to_string()),
                Just("- 2026-11-21T04:00:00Z user note: x".to_string()),
                Just("## Plan".to_string()),
                Just("  - [ ] T1.1 A task · after T0".to_string()),
                Just("    - accept: it holds".to_string()),
                Just("    - [x] S1.1.1 A subtask".to_string()),
                Just("## plan".to_string()),
                Just("### Notes".to_string()),
                Just("  ~~~".to_string()),
                Just("  ---".to_string()),
                Just(" - [ ] T1.2 One space in".to_string()),
                Just("  # Not a heading".to_string()),
                Just("#hashtag".to_string()),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1000))]

            /// The line scan reads what comrak reads, whenever it answers.
            #[test]
            fn the_fast_path_agrees_with_comrak(lines in prop::collection::vec(line(), 0..14), crlf in any::<bool>()) {
                let newline = if crlf { "\r\n" } else { "\n" };
                let body = lines.join(newline) + newline;
                if let Some(fast) = super::super::plain::scan(&body) {
                    prop_assert_eq!(fast, BodyLayout::parse_markdown(&body), "body: {:?}", body);
                }
            }
        }

        #[test]
        fn plans_take_the_fast_path() {
            let body = "Ship it.\n\n## Acceptance criteria\n\n- [ ] One\n\n## Plan\n\n- [ ] P1 Build · in progress\n  - accept: it builds\n  - [x] T1.1 Write\n    - accept: written\n    - [x] S1.1.1 Route\n      - accept: exists\n\n## History\n\n- 2026-11-21T04:00:00Z user created: x\n";
            assert_eq!(
                super::super::plain::scan(body),
                Some(BodyLayout::parse_markdown(body))
            );
        }

        #[test]
        fn bodies_steward_writes_take_the_fast_path() {
            let body = "Run all tests.\n\n## Acceptance criteria\n\n- [ ] One\n- [x] Two\n  more\n\n## History\n\n- 2026-11-21T04:00:00Z user created: x\n";
            assert_eq!(
                super::super::plain::scan(body),
                Some(BodyLayout::parse_markdown(body))
            );
        }
    }

    #[test]
    fn history_keeps_the_most_recent_entries() {
        let mut body = String::from("## History\n\n");
        for i in 0..5 {
            body = append_history(&body, &format!("e{i}"), "\n", 3);
        }
        assert_eq!(body, "## History\n\n- e2\n- e3\n- e4\n");
        assert_eq!(
            append_history("## History\n\n- a", "b", "\n", 1),
            "## History\n\n- b"
        );
    }
}
