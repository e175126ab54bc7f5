//! Markdown man pages as roff: `man/steward-guide.7.md` and its siblings,
//! read with comrak and written as man(7) macros: tables for tbl(1), or as
//! tagged paragraphs where they would not fit a terminal.
//!
//! The Markdown they use: `# NAME(SECTION)` first, `##` sections and `###`
//! subsections, paragraphs, bullet and numbered lists (nested, with code
//! blocks inside items), GFM tables, fenced code, inline code, emphasis,
//! links, and HTML comments, which are notes for the end-to-end scripts and
//! are dropped.

use comrak::nodes::{AstNode, ListDelimType, ListType, NodeValue, TableAlignment};
use comrak::{Arena, Options, parse_document};

/// One page: its name and section, from its `# NAME(SECTION)` title.
#[derive(Debug)]
pub struct Page {
    pub name: String,
    pub section: String,
    pub roff: String,
}

impl Page {
    /// The file name man looks for: `steward-guide.7`.
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.name, self.section)
    }
}

/// The columns a page is laid out for: `MANWIDTH=80` gives the text 73
/// beside the 7 of the left margin. A table that fits is drawn by tbl,
/// which stretches its last column to any width; one that does not becomes
/// a list of tagged paragraphs, which reads at any width.
const TEXT_WIDTH: usize = 73;

/// The narrowest the wrapped last column of a tbl table may be.
const MIN_LAST_COLUMN: usize = 30;

/// A word longer than this may break after a `/`, `.` or `,` (a path, a
/// dotted key, a list): one that cannot fit on a line, and in the wrapped
/// column of a table, one that would make it too wide. Shorter words stay
/// whole, where a search finds them.
const LONG_WORD: usize = 40;

/// The same in the wrapped last column of a tbl table.
const LONG_WORD_IN_CELL: usize = 16;

/// `markdown` as a man page; `source` is the `.TH` footer (`steward 0.1.0`).
/// The error says what keeps it from being a page: its first line must be
/// the only `# NAME(SECTION)` heading.
pub fn to_roff(markdown: &str, source: &str) -> Result<Page, String> {
    let arena = Arena::new();
    let mut options = Options::default();
    options.extension.table = true;
    let root = parse_document(&arena, markdown, &options);
    let mut blocks = root.children();
    let title = blocks
        .next()
        .filter(|node| matches!(node.data().value, NodeValue::Heading(ref h) if h.level == 1))
        .map(plain_text)
        .ok_or("the page must start with a `# NAME(SECTION)` heading")?;
    let (name, section) = title
        .strip_suffix(')')
        .and_then(|title| title.split_once('('))
        .filter(|(name, section)| {
            !name.is_empty()
                && !section.is_empty()
                && section.starts_with(|c: char| c.is_ascii_digit())
                && section.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .ok_or_else(|| format!("the title `# {title}` is not `# NAME(SECTION)`"))?;
    let mut writer = Writer {
        out: String::new(),
        after_heading: false,
        indent: 0,
    };
    for node in blocks {
        writer.block(node)?;
    }
    // The first line asks man to run tbl; the page is left-aligned, without
    // hyphenation (a path or an option split across lines cannot be found
    // or pasted), and with one space after a sentence wherever the source
    // broke its line. A character with no name is `\[uXXXX]`, which an
    // ASCII terminal shows as `?`.
    let mut preamble = format!(
        "'\\\" t\n.TH {} {} \"\" {} \"\"\n.nh\n.ad l\n.if \\n(.g .ss \\n[.ss] 0\n",
        argument(&escape(name)),
        argument(section),
        argument(&escape(source))
    );
    let unnamed: std::collections::BTreeSet<&str> = writer
        .out
        .match_indices("\\[u")
        .filter_map(|(start, _)| {
            let end = start + writer.out[start..].find(']')? + 1;
            Some(&writer.out[start..end])
        })
        .collect();
    for glyph in unnamed {
        preamble.push_str(&format!(".if \\n(.g .fchar {glyph} ?\n"));
    }
    Ok(Page {
        name: name.to_string(),
        section: section.to_string(),
        roff: preamble + &writer.out,
    })
}

/// Writes the blocks of a page.
struct Writer {
    out: String,
    /// A `.SH` or `.SS` was just written: the paragraph after it needs no
    /// `.PP`.
    after_heading: bool,
    /// How far `.RS` has moved the left margin, in ens.
    indent: usize,
}

impl Writer {
    /// A control line.
    fn request(&mut self, line: &str) {
        self.out.push_str(line);
        self.out.push('\n');
    }

    /// Text lines from [`Inline`], which are never control lines.
    fn text(&mut self, text: &str) {
        for line in text.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
            self.request(line);
        }
    }

    /// Vertical space before a paragraph, unless a heading is just above.
    fn paragraph(&mut self) {
        if !std::mem::take(&mut self.after_heading) {
            self.request(".PP");
        }
    }

    fn blocks<'a>(&mut self, parent: &'a AstNode<'a>) -> Result<(), String> {
        for node in parent.children() {
            self.block(node)?;
        }
        Ok(())
    }

    fn block<'a>(&mut self, node: &'a AstNode<'a>) -> Result<(), String> {
        let value = node.data().value.clone();
        match value {
            NodeValue::Heading(heading) => {
                let text = Inline::render(node, None, LONG_WORD);
                match heading.level {
                    1 => {
                        return Err(format!(
                            "`# {}`: only the title is a level-1 heading",
                            plain_text(node)
                        ));
                    }
                    2 => self.request(&format!(".SH {}", argument(&text))),
                    3 => self.request(&format!(".SS {}", argument(&text))),
                    _ => {
                        self.paragraph();
                        self.text(&Inline::render(node, Some(Font::Bold), LONG_WORD));
                        self.request(".br");
                        return Ok(());
                    }
                }
                self.after_heading = true;
            }
            NodeValue::Paragraph => {
                self.paragraph();
                self.text(&Inline::render(node, None, LONG_WORD));
            }
            NodeValue::List(list) => {
                let items = node.children().count();
                let last = list.start + items.saturating_sub(1);
                let indent = match list.list_type {
                    ListType::Bullet => 2,
                    ListType::Ordered => last.to_string().len() + 2,
                };
                let delimiter = match list.delimiter {
                    ListDelimType::Period => '.',
                    ListDelimType::Paren => ')',
                };
                for (index, item) in node.children().enumerate() {
                    self.after_heading = false;
                    let tag = match list.list_type {
                        ListType::Bullet => "\\(bu".to_string(),
                        ListType::Ordered => format!("{}{delimiter}", list.start + index),
                    };
                    self.request(&format!(".IP {tag} {indent}"));
                    let mut children = item.children().filter(|c| !is_comment_block(c)).peekable();
                    if let Some(first) =
                        children.next_if(|c| matches!(c.data().value, NodeValue::Paragraph))
                    {
                        self.text(&Inline::render(first, None, LONG_WORD));
                    }
                    // The item's other blocks sit under its text.
                    if children.peek().is_some() {
                        self.request(&format!(".RS {indent}"));
                        self.indent += indent;
                        for child in children {
                            self.block(child)?;
                        }
                        self.indent -= indent;
                        self.request(".RE");
                    }
                }
            }
            NodeValue::CodeBlock(code) => self.verbatim(&code.literal),
            NodeValue::HtmlBlock(html) => {
                if !is_comment(&html.literal) {
                    self.verbatim(&html.literal);
                }
            }
            NodeValue::Table(_) => self.table(node),
            NodeValue::BlockQuote | NodeValue::MultilineBlockQuote(_) => {
                self.paragraph();
                self.request(".RS 4");
                self.indent += 4;
                self.after_heading = true;
                self.blocks(node)?;
                self.indent -= 4;
                self.request(".RE");
            }
            NodeValue::ThematicBreak => {
                self.paragraph();
                self.request("\\l'\\n(.lu'");
            }
            _ => self.blocks(node)?,
        }
        Ok(())
    }

    /// A code block: indented, unfilled, every character as written.
    fn verbatim(&mut self, literal: &str) {
        self.paragraph();
        self.request(".RS 4");
        self.request(".nf");
        for line in literal.lines() {
            let line = escape_code(line.trim_end(), usize::MAX);
            if line.is_empty() || line.starts_with('.') {
                self.request(&format!("\\&{line}"));
            } else {
                self.request(&line);
            }
        }
        self.request(".fi");
        self.request(".RE");
    }

    /// A table: drawn by tbl when every column but the last fits on one
    /// line beside a last column of at least [`MIN_LAST_COLUMN`]; else one
    /// tagged paragraph a row, its first cell the tag.
    fn table<'a>(&mut self, node: &'a AstNode<'a>) {
        let rows: Vec<Vec<&'a AstNode<'a>>> =
            node.children().map(|r| r.children().collect()).collect();
        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return;
        }
        let alignments = match &node.data().value {
            NodeValue::Table(table) => table.alignments.clone(),
            _ => Vec::new(),
        };
        let widest = |column: usize| {
            rows.iter()
                .filter_map(|row| row.get(column))
                .map(|cell| plain_text(cell).chars().count())
                .max()
                .unwrap_or(0)
        };
        let longest_word = |column: usize| {
            rows.iter()
                .filter_map(|row| row.get(column))
                .flat_map(|cell| {
                    plain_text(cell)
                        .split_whitespace()
                        .flat_map(|word| breakable(word, LONG_WORD_IN_CELL))
                        .map(|w| w.chars().count())
                        .collect::<Vec<_>>()
                })
                .max()
                .unwrap_or(0)
        };
        // tbl's rules: a box around each cell, three ens between columns.
        let rules = 3 * (columns - 1) + 2;
        let leading: usize = (0..columns - 1).map(widest).sum();
        let available = TEXT_WIDTH.saturating_sub(self.indent + rules);
        let last_width = available.saturating_sub(leading);
        if columns > 1 && last_width >= MIN_LAST_COLUMN && last_width >= longest_word(columns - 1) {
            self.tbl(&rows, columns, &alignments);
        } else {
            self.tagged(&rows, columns);
        }
    }

    fn tbl<'a>(
        &mut self,
        rows: &[Vec<&'a AstNode<'a>>],
        columns: usize,
        alignments: &[TableAlignment],
    ) {
        self.paragraph();
        self.request(".TS");
        self.request("allbox tab(\t);");
        let format: Vec<String> = (0..columns)
            .map(|column| {
                let align = match alignments.get(column) {
                    Some(TableAlignment::Center) => "c",
                    Some(TableAlignment::Right) => "r",
                    _ => "l",
                };
                if column + 1 == columns {
                    format!("{align}x")
                } else {
                    align.to_string()
                }
            })
            .collect();
        self.request(&format!("{}.", format.join(" ")));
        for (index, row) in rows.iter().enumerate() {
            let font = (index == 0).then_some(Font::Bold);
            let mut line = String::new();
            for column in 0..columns {
                let text = row
                    .get(column)
                    .map(|cell| {
                        let long = if column + 1 == columns {
                            LONG_WORD_IN_CELL
                        } else {
                            usize::MAX
                        };
                        Inline::render(cell, font, long)
                    })
                    .unwrap_or_default();
                if column + 1 == columns {
                    // The last column wraps: a text block.
                    line.push_str("T{\n");
                    line.push_str(&guard_block_end(&text));
                    line.push_str("\nT}");
                } else {
                    line.push_str(if text.is_empty() { "\\&" } else { &text });
                    line.push('\t');
                }
            }
            self.request(&line);
        }
        self.request(".TE");
        // tbl's last rule takes the space of the paragraph after it.
        self.request(".sp");
    }

    /// A table too wide for the page, as tagged paragraphs: the first cell
    /// is the tag; the header's first row in italics says what the columns
    /// are when there are two, and each other cell is labelled with its
    /// header when there are more.
    fn tagged<'a>(&mut self, rows: &[Vec<&'a AstNode<'a>>], columns: usize) {
        let Some((header, body)) = rows.split_first() else {
            return;
        };
        self.after_heading = false;
        let cell = |row: &[&'a AstNode<'a>], column: usize, font: Option<Font>| {
            row.get(column)
                .map(|cell| Inline::render(cell, font, LONG_WORD))
                .unwrap_or_default()
        };
        let header_text: Vec<String> = (0..columns)
            .map(|column| cell(header, column, Some(Font::Italic)))
            .collect();
        if columns == 2 && header_text.iter().all(|text| !text.is_empty()) {
            self.request(".TP 4");
            self.text(&header_text[0]);
            self.request(".br");
            self.text(&header_text[1]);
        }
        for row in body {
            self.request(".TP 4");
            let tag = cell(row, 0, None);
            self.text(if tag.is_empty() { "\\&" } else { &tag });
            // The cells under the tag, however short it is.
            self.request(".br");
            let mut first = true;
            for (column, label) in header_text.iter().enumerate().skip(1) {
                let text = cell(row, column, None);
                if text.is_empty() {
                    continue;
                }
                if !std::mem::take(&mut first) {
                    self.request(".br");
                }
                if columns > 2 && !label.is_empty() {
                    self.text(&format!("{label}: {text}"));
                } else {
                    self.text(&text);
                }
            }
        }
    }
}

/// `T}` at the start of a line would end a tbl text block.
fn guard_block_end(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.starts_with("T}") {
                format!("\\&{line}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Clone, Copy, PartialEq)]
enum Font {
    Bold,
    Italic,
}

/// Renders inline Markdown as roff text lines: escaped, its fonts nested,
/// and no line starting with a control character.
struct Inline {
    out: String,
    fonts: Vec<Font>,
    /// Words longer than this may break after `/`, `.` and `,`.
    long: usize,
}

impl Inline {
    /// The inline content of `node` in `font` (or roman).
    fn render<'a>(node: &'a AstNode<'a>, font: Option<Font>, long: usize) -> String {
        let mut inline = Inline {
            out: String::new(),
            fonts: Vec::new(),
            long,
        };
        if let Some(font) = font {
            inline.push_font(font);
        }
        inline.children(node);
        if font.is_some() {
            inline.pop_font();
        }
        inline.out
    }

    fn children<'a>(&mut self, node: &'a AstNode<'a>) {
        for child in node.children() {
            self.node(child);
        }
    }

    fn node<'a>(&mut self, node: &'a AstNode<'a>) {
        let value = node.data().value.clone();
        match value {
            NodeValue::Text(text) => self.prose(&text),
            NodeValue::Code(code) => {
                self.push_font(Font::Bold);
                let escaped = escape_code(&code.literal, self.long);
                self.push(&escaped);
                self.pop_font();
            }
            NodeValue::Emph => {
                self.push_font(Font::Italic);
                self.children(node);
                self.pop_font();
            }
            NodeValue::Strong => {
                self.push_font(Font::Bold);
                self.children(node);
                self.pop_font();
            }
            NodeValue::Link(link) => {
                self.children(node);
                let text = plain_text(node);
                match link_target(&link.url) {
                    Target::Page(reference) if reference != text => {
                        self.prose(&format!(" ({reference})"));
                    }
                    Target::Url if text != link.url && format!("mailto:{text}") != link.url => {
                        let url = escape(&link.url);
                        self.push(&format!(" <{url}>"));
                    }
                    _ => {}
                }
            }
            NodeValue::SoftBreak => self.out.push('\n'),
            NodeValue::LineBreak => self.out.push_str("\n.br\n"),
            NodeValue::HtmlInline(html) => {
                if !is_comment(&html) {
                    self.prose(&html);
                }
            }
            _ => self.children(node),
        }
    }

    /// Text, with each page it names (`steward-guide(7)`) in bold, as man
    /// pages write references.
    fn prose(&mut self, text: &str) {
        let mut rest = text;
        while let Some((before, name, after)) = next_reference(rest) {
            self.push(&self.escape(before));
            self.push_font(Font::Bold);
            self.push(&self.escape(name));
            self.pop_font();
            rest = after;
        }
        self.push(&self.escape(rest));
    }

    fn escape(&self, text: &str) -> String {
        breaking(text, self.long, escape)
    }

    /// Escaped text; at the start of a line, without the spaces that would
    /// break it and guarded from reading as a request.
    fn push(&mut self, escaped: &str) {
        let mut text = escaped;
        if self.out.is_empty() || self.out.ends_with('\n') {
            text = text.trim_start();
            if text.starts_with('.') || text.starts_with('\'') {
                self.out.push_str("\\&");
            }
        }
        self.out.push_str(text);
    }

    /// roff's `\fP` does not nest: switch to the font the stack adds up to.
    fn push_font(&mut self, font: Font) {
        self.fonts.push(font);
        self.set_font();
    }

    fn pop_font(&mut self) {
        self.fonts.pop();
        self.set_font();
    }

    fn set_font(&mut self) {
        let bold = self.fonts.contains(&Font::Bold);
        let italic = self.fonts.contains(&Font::Italic);
        self.out.push_str(match (bold, italic) {
            (false, false) => "\\fR",
            (false, true) => "\\fI",
            (true, false) => "\\fB",
            (true, true) => "\\f(BI",
        });
    }
}

/// Where a link goes.
enum Target {
    /// Another man page, by a relative link to its source
    /// (`steward-guide.7.md`): its reference, `steward-guide(7)`.
    Page(String),
    /// A URL, printed after the text.
    Url,
    /// Somewhere in this page or the source tree: the text says it all.
    Local,
}

fn link_target(url: &str) -> Target {
    if url.contains("://") || url.starts_with("mailto:") {
        return Target::Url;
    }
    let path = url.split('#').next().unwrap_or_default();
    let file = path.rsplit('/').next().unwrap_or_default();
    let page = file
        .strip_suffix(".md")
        .and_then(|stem| stem.rsplit_once('.'));
    match page {
        Some((name, section))
            if !name.is_empty() && section.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            Target::Page(format!("{name}({section})"))
        }
        _ => Target::Local,
    }
}

/// The next `name(N)` in `text`: what comes before it, the name, and what
/// comes after the `(N)`.
fn next_reference(text: &str) -> Option<(&str, &str, &str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(offset) = text[from..].find('(') {
        let open = from + offset;
        from = open + 1;
        let section = bytes.get(open + 1).is_some_and(u8::is_ascii_digit);
        let close = bytes.get(open + 2) == Some(&b')');
        let next = bytes.get(open + 3);
        if !section || !close || next.is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        let start = text[..open]
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_')))
            .map_or(0, |(index, c)| index + c.len_utf8());
        let name = &text[start..open];
        if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Some((&text[..start], name, &text[open..]));
        }
    }
    None
}

/// `text` escaped by `escape`, each word longer than `long` characters
/// with a break point (`\:`) after each of its pieces.
fn breaking(text: &str, long: usize, escape: impl Fn(&str) -> String) -> String {
    text.split(' ')
        .map(|word| {
            breakable(word, long)
                .map(&escape)
                .collect::<Vec<_>>()
                .join("\\:")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word in the pieces it may break into: after each `/`, `.` or `,` of a
/// word longer than `long` characters.
fn breakable(word: &str, long: usize) -> impl Iterator<Item = &str> {
    let long = word.chars().count() > long;
    let mut rest = word;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = if long {
            rest.char_indices()
                .find(|(index, c)| matches!(c, '/' | '.' | ',') && index + 1 < rest.len())
                .map_or(rest.len(), |(index, _)| index + 1)
        } else {
            rest.len()
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// An HTML comment on lines of its own: a note for the sources' readers.
fn is_comment_block<'a>(node: &'a AstNode<'a>) -> bool {
    matches!(&node.data().value, NodeValue::HtmlBlock(html) if is_comment(&html.literal))
}

fn is_comment(html: &str) -> bool {
    let html = html.trim();
    html.starts_with("<!--") && html.ends_with("-->")
}

/// The text of a node as a reader sees it, without markup.
fn plain_text<'a>(node: &'a AstNode<'a>) -> String {
    let mut text = String::new();
    for descendant in node.descendants() {
        match &descendant.data().value {
            NodeValue::Text(t) => text.push_str(t),
            NodeValue::Code(code) => text.push_str(&code.literal),
            NodeValue::SoftBreak | NodeValue::LineBreak => text.push(' '),
            NodeValue::HtmlInline(html) if !is_comment(html) => text.push_str(html),
            _ => {}
        }
    }
    text
}

/// A macro argument: quoted when it has a space.
fn argument(text: &str) -> String {
    if text.is_empty() || text.contains(' ') {
        format!("\"{text}\"")
    } else {
        text.to_string()
    }
}

/// Text for roff: a backslash is `\(rs`, a hyphen `\-` (an ASCII hyphen,
/// that a search and a paste find), and the typographic characters the
/// pages use are named glyphs, which also read on an ASCII terminal.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\(rs"),
            '-' => out.push_str("\\-"),
            '"' => out.push_str("\\(dq"),
            '`' => out.push_str("\\(ga"),
            '\t' => out.push(' '),
            '\u{a0}' => out.push_str("\\ "),
            '\u{2013}' => out.push_str("\\(en"),
            '\u{2014}' => out.push_str("\\(em"),
            '\u{2018}' => out.push_str("\\(oq"),
            '\u{2019}' => out.push_str("\\(cq"),
            '\u{201c}' => out.push_str("\\(lq"),
            '\u{201d}' => out.push_str("\\(rq"),
            '\u{2026}' => out.push_str("..."),
            '\u{2192}' => out.push_str("\\(->"),
            '\u{2212}' => out.push_str("\\(mi"),
            '\u{b7}' => out.push_str("\\(pc"),
            '\u{d7}' => out.push_str("\\(mu"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if c.is_control() => {}
            c => out.push_str(&format!("\\[u{:04X}]", u32::from(c))),
        }
    }
    out
}

/// Code for roff: as [`escape`], with the quotes as the ASCII characters a
/// shell reads (`'` would print as a typographic quote), and words longer
/// than `long` breakable.
fn escape_code(code: &str, long: usize) -> String {
    breaking(code, long, |text| escape(text).replace('\'', "\\(aq"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(markdown: &str) -> String {
        to_roff(markdown, "steward 1.0").unwrap().roff
    }

    /// The lines after the preamble.
    fn body(markdown: &str) -> String {
        let roff = page(markdown);
        let start = roff.find(".if \\n(.g .ss").unwrap();
        let body = roff[start..].split_once('\n').unwrap().1;
        body.lines()
            .filter(|line| !line.starts_with(".if \\n(.g .fchar"))
            .map(|line| format!("{line}\n"))
            .collect()
    }

    #[test]
    fn the_title_names_the_page_and_its_section() {
        let page = to_roff(
            "# steward-guide(7)\n\n## NAME\n\nsteward-guide - a guide\n",
            "steward 1.0",
        )
        .unwrap();
        assert_eq!(page.file_name(), "steward-guide.7");
        assert!(
            page.roff
                .starts_with("'\\\" t\n.TH steward\\-guide 7 \"\" \"steward 1.0\" \"\"\n"),
            "{}",
            page.roff
        );
        assert!(
            page.roff
                .contains(".SH NAME\nsteward\\-guide \\- a guide\n"),
            "{}",
            page.roff
        );
        for bad in [
            "no title\n",
            "# steward-guide\n",
            "# steward-guide()\n",
            "# (7)\n",
        ] {
            assert!(to_roff(bad, "s").is_err(), "{bad}");
        }
        let err = to_roff("# a(7)\n\n# b\n", "s").unwrap_err();
        assert!(err.contains("only the title"), "{err}");
    }

    #[test]
    fn a_line_never_starts_a_request_and_backslashes_are_text() {
        let roff = body(
            "# x(1)\n\n## A\n\nSee\n.SH NOT A HEADING and C:\\dir\\n\n'quoted'\nfoo\n`.hidden` here\n",
        );
        assert_eq!(
            roff,
            ".SH A\nSee\n\\&.SH NOT A HEADING and C:\\(rsdir\\(rsn\n\\&'quoted'\nfoo\n\\fB.hidden\\fR here\n"
        );
        // In code, too, and an empty line is kept.
        let code = body("# x(1)\n\n```\n.dot\n\n'q' a\\b --x\n```\n");
        assert_eq!(
            code,
            ".PP\n.RS 4\n.nf\n\\&.dot\n\\&\n\\(aqq\\(aq a\\(rsb \\-\\-x\n.fi\n.RE\n"
        );
    }

    #[test]
    fn sections_fonts_and_references() {
        let roff = body(
            "# x(1)\n\n## MORE \"THINGS\"\n\ntext\n\n### A sub\n\n*it* **bold *both*** `code` see steward-design(7), foo(1).\n",
        );
        assert_eq!(
            roff,
            ".SH \"MORE \\(dqTHINGS\\(dq\"\ntext\n.SS \"A sub\"\n\\fIit\\fR \\fBbold \\f(BIboth\\fB\\fR \\fBcode\\fR see \\fBsteward\\-design\\fR(7), \\fBfoo\\fR(1).\n"
        );
    }

    #[test]
    fn nested_lists_keep_their_code_blocks_under_the_item() {
        let roff = body(
            "# x(1)\n\n1. First\n   item.\n\n   ```sh\n   steward tick\n   ```\n\n   - inner\n   - two\n2. Second\n",
        );
        assert_eq!(
            roff,
            ".IP 1. 3\nFirst\nitem.\n.RS 3\n.PP\n.RS 4\n.nf\nsteward tick\n.fi\n.RE\n.IP \\(bu 2\ninner\n.IP \\(bu 2\ntwo\n.RE\n.IP 2. 3\nSecond\n"
        );
    }

    #[test]
    fn html_comments_are_dropped_and_other_html_is_text() {
        let roff = body(
            "# x(1)\n\n<!-- needs: ntfy server -->\n\nA <goal-stewardship> block<!-- inline note -->.\n\n- item\n\n  <!-- needs: more -->\n",
        );
        assert!(!roff.contains("needs") && !roff.contains("note"), "{roff}");
        assert!(roff.contains("A <goal\\-stewardship> block.\n"), "{roff}");
        assert_eq!(roff.matches(".PP").count(), 1, "{roff}");
    }

    #[test]
    fn links_print_their_url_or_the_page_they_name() {
        let roff = body(
            "# x(1)\n\n[the guide](steward-guide.7.md), [steward-design(7)](man/steward-design.7.md#rules), [docs](https://example.com/a), <https://example.com/b>, [here](#top), [bench](bench/README.md).\n",
        );
        assert_eq!(
            roff,
            ".PP\nthe guide (\\fBsteward\\-guide\\fR(7)), \\fBsteward\\-design\\fR(7), docs <https://example.com/a>, https://example.com/b, here, bench.\n"
        );
    }

    #[test]
    fn a_narrow_table_is_drawn_by_tbl() {
        let roff = body(
            "# x(1)\n\n| code | meaning |\n|---|--:|\n| `0` | done, .5 of it |\n| 1 | an error: T}\n",
        );
        assert_eq!(
            roff,
            ".PP\n.TS\nallbox tab(\t);\nl rx.\n\\fBcode\\fR\tT{\n\\fBmeaning\\fR\nT}\n\\fB0\\fR\tT{\ndone, .5 of it\nT}\n1\tT{\nan error: T}\nT}\n.TE\n.sp\n"
        );
        let guarded = body("# x(1)\n\n| a | b |\n|---|---|\n| .x | y |\n| z | T} w |\n");
        assert!(guarded.contains("\\&.x\tT{\n"), "{guarded}");
        assert!(guarded.contains("T{\n\\&T} w\nT}"), "{guarded}");
    }

    #[test]
    fn a_wide_table_becomes_tagged_paragraphs() {
        let long = "word ".repeat(30);
        let roff = body(&format!(
            "# x(1)\n\n| key | default | meaning |\n|---|---|---|\n| `circuit_breaker.max_assessments_without_progress` | `5` | {long}|\n| `b` | | c |\n"
        ));
        let words = long.trim_end();
        assert_eq!(
            roff,
            format!(
                ".TP 4\n\\fBcircuit_breaker.\\:max_assessments_without_progress\\fR\n.br\n\\fIdefault\\fR: \\fB5\\fR\n.br\n\\fImeaning\\fR: {words}\n.TP 4\n\\fBb\\fR\n.br\n\\fImeaning\\fR: c\n"
            )
        );
        let two = body(&format!(
            "# x(1)\n\n| only a person may | an agent may |\n|---|---|\n| {long} | {long} |\n"
        ));
        assert!(
            two.starts_with(
                ".TP 4\n\\fIonly a person may\\fR\n.br\n\\fIan agent may\\fR\n.TP 4\nword word"
            ),
            "{two}"
        );
    }

    #[test]
    fn typographic_characters_are_named_glyphs() {
        assert_eq!(
            escape("a — b – c … d → e × f − g · h \u{fffd}"),
            "a \\(em b \\(en c ... d \\(-> e \\(mu f \\(mi g \\(pc h \\[uFFFD]"
        );
        // Others, once each, have a stand-in where the terminal lacks them.
        let roff = page("# x(1)\n\nshown as `\u{fffd}`, \u{fffd} and \u{263a}\n");
        assert!(
            roff.contains(".if \\n(.g .fchar \\[u263A] ?\n.if \\n(.g .fchar \\[uFFFD] ?\n.PP\n"),
            "{roff}"
        );
        assert_eq!(roff.matches(".fchar").count(), 2, "{roff}");
    }
}
