//! The `ACTIVE-TASKS.md` mirror: steward owns one marked block under an
//! `## Active Goals` heading; every other byte of the file belongs to
//! whoever wrote it.
//!
//! The block holds one entry per open goal, ordered by priority then label,
//! up to `mirror.max_goals`; a block that shows that many ends with a line
//! saying so. The line does not count the goals it leaves out: a goal that
//! is not shown can be added or closed without changing the file. A command
//! that changes some goals patches their entries ([`patch`]) without reading
//! the other goals whenever the block alone says where they go, and when a
//! shown goal leaves a full block, reads only the goals that follow it
//! ([`Short::fill`]); a full render ([`render_block`]) gives the same text.

use std::borrow::Cow;

use crate::model::book::Book;
use crate::model::{Goal, ObligationStatus, Priority};

pub const HEADING: &str = "## Active Goals";
pub const BEGIN: &str =
    "<!-- steward:begin (generated: edits inside this block are overwritten) -->";
pub const END: &str = "<!-- steward:end -->";
/// What both markers start with.
const MARKER_START: &str = "<!-- steward:";
const EMPTY: &str = "_No open goals._";

/// One goal's entry: a list item whose first line carries the sort key.
pub fn render_entry(goal: &Goal, book: &Book) -> String {
    // No assessment count: assessments come with every heartbeat, and the
    // mirror changes only when what a reader acts on changes (every
    // assessment rewrote the whole file, and made a diff in a shared store).
    let mut entry = format!(
        "- **{}** ({}, {}) — {}\n  criteria {}/{} · dispatches {}/{}",
        goal.label,
        goal.priority,
        goal.status,
        inline(&goal.title),
        goal.criteria_met(),
        goal.criteria.len(),
        goal.progress.dispatches,
        goal.budget.max_dispatches,
    );
    if let Some(plan) = &goal.plan {
        entry.push_str(&format!(" · plan {}%", plan.summary.tally.percent()));
    }
    if let Some(escalation) = &goal.escalation {
        entry.push_str(&format!(
            "\n  escalation: {} — {}",
            escalation.kind,
            inline(&escalation.reason)
        ));
    }
    if !goal.blockers.is_empty() {
        let blockers: Vec<String> = goal.blockers.iter().map(|b| inline(b)).collect();
        entry.push_str(&format!("\n  blockers: {}", blockers.join("; ")));
    }
    let running: Vec<String> = book
        .of_goal(&goal.id)
        .filter(|o| !goal.id.is_empty() && o.status == ObligationStatus::Running)
        .map(|o| format!("{} ({})", inline(&o.label), o.id))
        .collect();
    if !running.is_empty() {
        entry.push_str(&format!("\n  running tasks: {}", running.join(", ")));
    }
    entry.push('\n');
    entry
}

/// The block's content for these open goals, sorted: the first `max`
/// entries, and the line that says so when there are that many.
pub fn render_block(goals: &[&Goal], book: &Book, max: usize) -> String {
    let mut goals: Vec<&Goal> = goals
        .iter()
        .copied()
        .filter(|g| !g.status.is_terminal())
        .collect();
    goals.sort_by(|a, b| sort_key(&a.priority, &a.label).cmp(&sort_key(&b.priority, &b.label)));
    if goals.is_empty() {
        return format!("{EMPTY}\n");
    }
    let mut block: String = (goals.iter().take(max))
        .map(|goal| render_entry(goal, book))
        .collect();
    if goals.len() >= max {
        block.push_str(&full_line(max));
    }
    block
}

/// The last line of a block that shows `max` entries: other open goals may
/// follow them. It does not count them, so that a goal the block does not
/// show is added or closed without a change to the file.
fn full_line(max: usize) -> String {
    format!("_The first {max} open goals by priority: `steward list` lists them all._\n")
}

/// The block's entries and its last line when that is not part of an
/// entry: the line of a full block ([`full_line`]), the line of an empty
/// one, or words steward did not write.
fn split_tail(block: &str) -> (&str, Option<&str>) {
    let start = block
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |at| at + 1);
    if block[start..].starts_with('_') {
        (&block[..start], Some(&block[start..]))
    } else {
        (block, None)
    }
}

/// The block's entries, and whether it is full: it ends with the line of a
/// block that shows `max` entries (and may not show every open goal).
/// `None` when its last line is one steward would not write now: another
/// `max`'s, an older steward's, or words steward never wrote.
fn split_full(block: &str, max: usize) -> Option<(&str, bool)> {
    match split_tail(block) {
        (_, None) => Some((block, false)),
        (_, Some(tail)) if tail.trim_end() == EMPTY => Some((block, false)),
        (entries, Some(tail)) => (tail == full_line(max)).then_some((entries, true)),
    }
}

/// One goal whose entry may have changed.
pub struct EntryChange<'a> {
    pub old_label: &'a str,
    pub label: &'a str,
    pub priority: &'a Priority,
    /// The entry now; `None` for a goal that is closed.
    pub entry: Option<&'a str>,
}

/// A block patched without reading the other goals.
#[derive(Debug, PartialEq, Eq)]
pub enum Patched {
    /// The block, as a full render gives it.
    Block(String),
    /// Shown goals left (closed, or moved down) a full block: the goals
    /// that take their places follow the last entry.
    Short(Short),
}

/// A block whose last entries are missing: those of the open goals that
/// follow its last entry, in order ([`Short::fill`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Short {
    content: String,
    max: usize,
}

impl Short {
    /// The label of the block's last entry: the missing entries are of open
    /// goals whose labels follow it, or of goals with a lower priority.
    pub fn last_label(&self) -> &str {
        last_key(&self.content).map_or("", |(_, label)| label)
    }

    /// The whole block, given `next`: the open goals whose labels follow
    /// [`Short::last_label`], in label order (read as they are asked for;
    /// terminal ones and those the block shows are passed over). `None`
    /// when they cannot tell: too few of them have the last entry's
    /// priority (the missing goals may have a lower one, and any label, or
    /// be none), or one the block does not show sorts before it (the block
    /// was not current).
    pub fn fill(self, next: impl IntoIterator<Item = Goal>, book: &Book) -> Option<String> {
        let (rank, last) = last_key(&self.content)?;
        let last = last.to_string();
        let Short { mut content, max } = self;
        let mut wanted = max - entries(&content).count();
        for goal in next {
            // A goal of a higher priority than the last entry's may follow
            // it by label, and is shown already.
            let shown = || entries(&content).any(|e| entry_label(e) == Some(goal.label.as_str()));
            if goal.status.is_terminal() || goal.label <= last || shown() {
                continue;
            }
            match goal.priority.rank().cmp(&rank) {
                std::cmp::Ordering::Less => return None,
                std::cmp::Ordering::Greater => continue,
                std::cmp::Ordering::Equal => {
                    wanted -= 1;
                    content.push_str(&render_entry(&goal, book));
                    if wanted == 0 {
                        break;
                    }
                }
            }
        }
        if wanted > 0 {
            return None;
        }
        content.push_str(&full_line(max));
        Some(content)
    }
}

/// The block with these goals' entries changed and the `removed` labels
/// gone, showing at most `max` entries, without reading the other goals
/// ([`Patched::Short`] when goals that follow must be read). `None` when
/// that cannot be known from the block alone — its last line is not one
/// steward writes now, or a full block lost every entry — and the block
/// must be rendered from every open goal.
pub fn patch(
    block: &str,
    changes: &[EntryChange],
    removed: &[&str],
    max: usize,
) -> Option<Patched> {
    let (entries_part, full) = split_full(block, max)?;
    let mut content = entries_part.to_string();
    for change in changes {
        let upsert_change = |content: &str| {
            let content = match change.old_label != change.label {
                true => upsert(content, change.old_label, None),
                false => content.to_string(),
            };
            upsert(
                &content,
                change.label,
                change.entry.map(|e| (change.priority, e)),
            )
        };
        // A block that is not full shows every open goal.
        if !full {
            content = upsert_change(&content);
            continue;
        }
        let shown = entries(&content).any(|e| entry_label(e) == Some(change.old_label));
        let key = sort_key(change.priority, change.label);
        let last = last_key(&content)?;
        match (shown, change.entry.is_some()) {
            // Shown and still before the last shown entry (or that entry,
            // in its place): replaced. Now after it, a goal not shown may
            // come first.
            (true, true) if key < last || (change.old_label == last.1 && key == last) => {
                content = upsert_change(&content);
            }
            // Not shown (or new) and now before the last shown entry:
            // shown, and the last one no longer (below).
            (false, true) if key < last => content = upsert_change(&content),
            // Not shown, and still after the last entry, or closed.
            (false, _) => {}
            // A shown goal closed or moved down: its entry goes, and the
            // goal that takes its place follows the last one left.
            (true, _) => content = upsert(&content, change.old_label, None),
        }
    }
    for label in removed {
        content = upsert(&content, label, None);
    }
    let shown = entries(&content).count();
    if shown < max && full {
        return (shown > 0).then_some(Patched::Short(Short { content, max }));
    }
    if shown == 0 {
        return Some(Patched::Block(format!("{EMPTY}\n")));
    }
    if shown >= max {
        content = entries(&content).take(max).collect();
        content.push_str(&full_line(max));
    }
    Some(Patched::Block(content))
}

/// The sort key of the block's last entry.
fn last_key(content: &str) -> Option<(u8, &str)> {
    let last = entries(content).last()?;
    Some((entry_priority(last)?.rank(), entry_label(last)?))
}

fn sort_key<'a>(priority: &Priority, label: &'a str) -> (u8, &'a str) {
    (priority.rank(), label)
}

/// Goal text is written by agents: keep it on one line and unable to forge
/// the markers or HTML.
fn inline(text: &str) -> String {
    crate::text::one_line(text)
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Replaces, inserts or removes (`entry: None`) the entry of `label` in the
/// block content, keeping the order. One pass and one copy of the block: a
/// write that changes one goal pays for the mirror's size once.
fn upsert(block: &str, label: &str, entry: Option<(&Priority, &str)>) -> String {
    let mut out = String::with_capacity(block.len() + entry.map_or(0, |(_, text)| text.len()));
    let mut pending = entry;
    for existing in entries(block).filter(|e| entry_label(e) != Some(label)) {
        if let Some((priority, text)) = pending
            && let (Some(p), Some(l)) = (entry_priority(existing), entry_label(existing))
            && sort_key(&p, l) > sort_key(priority, label)
        {
            out.push_str(text);
            pending = None;
        }
        out.push_str(existing);
    }
    if let Some((_, text)) = pending {
        out.push_str(text);
    }
    if out.is_empty() {
        return format!("{EMPTY}\n");
    }
    out
}

/// The entries of a block: each starts at a line beginning with `- ` and
/// runs to the next; text before the first entry is not one.
fn entries(block: &str) -> impl Iterator<Item = &str> {
    let mut starts = line_starts(block).filter(|&at| block[at..].starts_with("- "));
    let mut next = starts.next();
    std::iter::from_fn(move || {
        let start = next?;
        next = starts.next();
        Some(&block[start..next.unwrap_or(block.len())])
    })
}

/// Where each line of `text` starts. `find(char)` is core's memchr, which
/// needs no CPU feature detection (a `cpuid`, slow in a virtual machine).
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let mut next = Some(0);
    std::iter::from_fn(move || {
        let start = next.filter(|&at| at < text.len())?;
        next = text[start..].find('\n').map(|end| start + end + 1);
        Some(start)
    })
}

fn entry_label(entry: &str) -> Option<&str> {
    let rest = entry.strip_prefix("- **")?;
    rest.split_once("**").map(|(label, _)| label)
}

fn entry_priority(entry: &str) -> Option<Priority> {
    let rest = entry.strip_prefix("- **")?.split_once("** (")?.1;
    rest.split_once(',')
        .map(|(priority, _)| Priority::parse(priority))
}

/// Where steward's block sits in a mirror file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSpan {
    /// Byte range of the content between the marker lines.
    pub content: std::ops::Range<usize>,
}

/// Finds the block; `Err` (1-based line, message) when the markers are
/// broken, in which case the file must be left alone.
pub fn find_block(text: &str) -> Result<Option<BlockSpan>, (usize, String)> {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut begin = None;
    // Only a line that starts like a marker can be one.
    for offset in line_starts(text).filter(|&at| text[at..].starts_with(MARKER_START)) {
        let line = &text[offset..];
        let line = &line[..line.find('\n').map_or(line.len(), |end| end + 1)];
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed == BEGIN {
            if begin.is_some() {
                return Err((
                    line_of(offset),
                    "a second steward:begin marker before the steward:end marker".to_string(),
                ));
            }
            begin = Some((offset, offset + line.len()));
        } else if trimmed == END {
            let Some((_, start)) = begin else {
                return Err((
                    line_of(offset),
                    "a steward:end marker without a steward:begin marker".to_string(),
                ));
            };
            return Ok(Some(BlockSpan {
                content: start..offset,
            }));
        }
    }
    match begin {
        Some((offset, _)) => Err((
            line_of(offset),
            "the steward:begin marker has no steward:end marker after it".to_string(),
        )),
        None => Ok(None),
    }
}

/// The mirror file with `content` as the block's content: replaced in
/// place when the block exists, else appended under the heading (a new file
/// when there is none). Line endings follow the file's.
pub fn splice(existing: Option<&str>, content: &str) -> Result<String, (usize, String)> {
    let Some(text) = existing else {
        return Ok(format!(
            "# Active Tasks\n\n{HEADING}\n\n{BEGIN}\n{content}{END}\n"
        ));
    };
    let newline = if has_crlf(text) { "\r\n" } else { "\n" };
    let content = match newline {
        "\n" => Cow::Borrowed(content),
        _ => Cow::Owned(content.replace('\n', newline)),
    };
    match find_block(text)? {
        Some(span) => {
            let mut out = String::with_capacity(text.len() - span.content.len() + content.len());
            out.push_str(&text[..span.content.start]);
            out.push_str(&content);
            out.push_str(&text[span.content.end..]);
            Ok(out)
        }
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            if !out.is_empty() {
                out.push_str(newline);
            }
            let has_heading = text.lines().any(|l| l.trim_end() == HEADING);
            if !has_heading {
                out.push_str(&format!("{HEADING}{newline}{newline}"));
            }
            out.push_str(&format!("{BEGIN}{newline}{content}{END}{newline}"));
            Ok(out)
        }
    }
}

/// Merges three versions of a mirror file (git's merge driver). The block
/// merges entry by entry, keyed by goal ([`merge_blocks`]): right after
/// the pull it lists the open goals of both sides. What people wrote
/// around it merges line by line. Returns the merged text and whether it
/// merged without conflict. A file whose markers are broken is merged as
/// plain text.
pub fn merge(base: &str, ours: &str, theirs: &str) -> (String, bool) {
    let block = |text: &str| match find_block(text) {
        Ok(Some(span)) => Some(text[span.content].to_string()),
        _ => None,
    };
    let (Some(our_block), Some(their_block)) = (block(ours), block(theirs)) else {
        return crate::os::git::merge_text(base, ours, theirs);
    };
    let merged_block = merge_blocks(&block(base).unwrap_or_default(), &our_block, &their_block);
    // The text around the block merges with our block in all three, so
    // the block itself cannot conflict; then the merged block goes in.
    let with_our_block = |text: &str| -> String {
        match find_block(text) {
            Ok(Some(span)) => {
                let mut out = text.to_string();
                out.replace_range(span.content, &our_block);
                out
            }
            _ => text.to_string(),
        }
    };
    let (mut merged, clean) =
        crate::os::git::merge_text(&with_our_block(base), ours, &with_our_block(theirs));
    if clean && let Ok(Some(span)) = find_block(&merged) {
        merged.replace_range(span.content, &merged_block);
    }
    (merged, clean)
}

/// A three-way merge of a block's entries, keyed by goal: an entry added
/// on either side is kept, one changed on one side is that side's (ours
/// when both changed it), one removed on a side that left the other
/// unchanged is removed; sorted as a render sorts them. The line of a full
/// block ends it when either side's block was full, until steward renders
/// the block again.
pub fn merge_blocks(base: &str, ours: &str, theirs: &str) -> String {
    let keyed = |block: &str| -> Vec<(String, String)> {
        let (entries_part, _) = split_tail(block);
        entries(entries_part)
            .filter_map(|e| Some((entry_label(e)?.to_string(), e.to_string())))
            .collect()
    };
    let find = |side: &[(String, String)], label: &str| {
        side.iter()
            .find(|(l, _)| l == label)
            .map(|(_, e)| e.clone())
    };
    let (b, o, t) = (keyed(base), keyed(ours), keyed(theirs));
    let mut labels: Vec<&str> = o.iter().chain(&t).map(|(l, _)| l.as_str()).collect();
    labels.sort_unstable();
    labels.dedup();
    let mut merged: Vec<String> = Vec::new();
    for label in labels {
        let (was, mine, other) = (find(&b, label), find(&o, label), find(&t, label));
        let kept = match (mine, other) {
            (Some(mine), Some(other)) => Some(if Some(&mine) == was.as_ref() {
                other
            } else {
                mine
            }),
            // Removed on the other side: gone, unless changed on this one.
            (Some(one), None) | (None, Some(one)) => (was.as_ref() != Some(&one)).then_some(one),
            (None, None) => None,
        };
        merged.extend(kept);
    }
    merged.sort_by(|a, b| {
        let key = |e: &str| {
            (
                entry_priority(e).map_or(u8::MAX, |p| p.rank()),
                entry_label(e).unwrap_or_default().to_string(),
            )
        };
        key(a).cmp(&key(b))
    });
    let full_line = [ours, theirs]
        .into_iter()
        .filter_map(|block| split_tail(block).1)
        .find(|tail| tail.trim_end() != EMPTY);
    if merged.is_empty() && full_line.is_none() {
        return format!("{EMPTY}\n");
    }
    let mut block: String = merged.concat();
    block.extend(full_line);
    block
}

/// The block content as it is in a mirror file, with `\n` line endings.
pub fn current_content(text: &str) -> Result<Option<Cow<'_, str>>, (usize, String)> {
    Ok(find_block(text)?.map(|span| {
        let content = &text[span.content];
        match has_crlf(content) {
            true => Cow::Owned(content.replace("\r\n", "\n")),
            false => Cow::Borrowed(content),
        }
    }))
}

/// Whether the text has Windows line endings (a byte search first: most
/// files have no `\r` at all).
fn has_crlf(text: &str) -> bool {
    text.as_bytes().contains(&b'\r') && text.contains("\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::store::GoalFile;

    fn goal(label: &str, priority: &str, title: &str) -> Goal {
        let text = format!(
            "---\nlabel: {label}\npriority: {priority}\ntitle: \"{title}\"\n---\n## Acceptance criteria\n\n- [x] a\n- [ ] b\n"
        );
        GoalFile::parse(std::path::Path::new("x.md"), text)
            .unwrap()
            .goal(&Config::default().defaults)
            .unwrap()
    }

    #[test]
    fn entries_are_sorted_by_priority_then_label() {
        let (a, b, c) = (
            goal("b-normal", "normal", "B"),
            goal("a-normal", "normal", "A"),
            goal("z-crit", "critical", "Z"),
        );
        let block = render_block(&[&a, &b, &c], &Book::default(), usize::MAX);
        let labels: Vec<&str> = entries(&block).filter_map(entry_label).collect();
        assert_eq!(labels, ["z-crit", "a-normal", "b-normal"]);
        assert!(
            block.contains(
                "- **a-normal** (normal, active) — A\n  criteria 1/2 · dispatches 0/20\n"
            )
        );
    }

    #[test]
    fn upsert_gives_the_same_text_as_a_full_render() {
        let goals = [
            goal("c", "low", "C"),
            goal("a", "high", "A"),
            goal("b", "normal", "B"),
        ];
        let mut block = render_block(&[], &Book::default(), usize::MAX);
        for g in &goals {
            block = upsert(
                &block,
                &g.label,
                Some((&g.priority, &render_entry(g, &Book::default()))),
            );
        }
        assert_eq!(
            block,
            render_block(
                &goals.iter().collect::<Vec<_>>(),
                &Book::default(),
                usize::MAX
            )
        );
        let renamed = goal("b", "normal", "B again");
        block = upsert(
            &block,
            "b",
            Some((&renamed.priority, &render_entry(&renamed, &Book::default()))),
        );
        assert!(block.contains("B again") && !block.contains("— B\n"));
        block = upsert(&block, "a", None);
        block = upsert(&block, "b", None);
        block = upsert(&block, "c", None);
        assert_eq!(block, "_No open goals._\n");
    }

    /// Every change a write can make to a block that shows three of its
    /// goals: patched as a full render would have it, or refused.
    #[test]
    fn a_patched_block_is_what_a_full_render_gives_or_is_refused() {
        let book = Book::default();
        let open = |goals: &[Goal]| render_block(&goals.iter().collect::<Vec<_>>(), &book, 3);
        let before = vec![
            goal("a", "high", "A"),
            goal("b", "normal", "B"),
            goal("c", "normal", "C"),
            goal("d", "normal", "D"),
            goal("e", "low", "E"),
        ];
        let block = open(&before);
        assert!(
            block.ends_with(
                "  criteria 1/2 · dispatches 0/20\n_The first 3 open goals by priority: `steward list` lists them all._\n"
            ),
            "{block}"
        );
        let mut closed = goal("x", "normal", "X");
        closed.status = crate::model::Status::Completed;
        // (what changes, its label before, whether goals that follow the
        // last entry are read)
        let cases: Vec<(Goal, Option<&str>, bool)> = vec![
            // a shown goal changes its title: replaced in place
            (goal("b", "normal", "B again"), None, false),
            // a goal not shown changes: nothing shown changes
            (goal("d", "normal", "D again"), None, false),
            // a new goal after the last shown one: not shown either
            (goal("f", "low", "F"), None, false),
            // a new goal before it: shown, the last shown one no longer
            (goal("aa", "critical", "AA"), None, false),
            // a goal not shown moves up: shown, the last shown one no longer
            (goal("d", "critical", "D"), None, false),
            // a shown goal moves up
            (goal("c", "critical", "C"), None, false),
            // a shown goal moves down: the first one not shown takes its place
            (goal("b", "low", "B"), None, true),
            // a goal not shown closes: nothing changes
            (closed_as(&goal("e", "low", "E")), None, false),
            // a shown goal closes: the next one takes its place
            (closed_as(&goal("a", "high", "A")), None, true),
            // a goal not shown renamed, and still not shown
            (goal("z", "low", "E"), Some("e"), false),
            // a closed goal changes: nothing
            (closed.clone(), None, false),
        ];
        for (changed, old_label, reads_next) in cases {
            let old_label = old_label.unwrap_or(&changed.label);
            let entry = (!changed.status.is_terminal()).then(|| render_entry(&changed, &book));
            let change = EntryChange {
                old_label,
                label: &changed.label,
                priority: &changed.priority,
                entry: entry.as_deref(),
            };
            let mut after: Vec<Goal> = before
                .iter()
                .filter(|g| g.label != old_label)
                .cloned()
                .collect();
            after.push(changed.clone());
            let patched = match patch(&block, &[change], &[], 3) {
                Some(Patched::Block(block)) if !reads_next => block,
                Some(Patched::Short(short)) if reads_next => {
                    let next = following(&after, short.last_label());
                    short.fill(next, &book).unwrap()
                }
                other => panic!("{}: {other:?}", changed.label),
            };
            assert_eq!(patched, open(&after), "{}", changed.label);
        }
        // A shown goal closes and every one not shown has a lower priority:
        // they may have any label, so the block is rendered from them all.
        let mut lower = before.clone();
        lower[3] = goal("d", "low", "D");
        lower[4] = goal("aa", "low", "AA");
        let (short, after) = close_shown(&lower, 2, 3);
        assert_eq!(short.last_label(), "b");
        assert_eq!(short.fill(following(&after, "b"), &book), None);
        // A shown goal of a higher priority whose label follows the last
        // entry's is passed over, not taken for a stale block.
        let mixed = vec![
            goal("cc", "high", "CC"),
            goal("b", "normal", "B"),
            goal("c", "normal", "C"),
            goal("d", "normal", "D"),
        ];
        let (short, after) = close_shown(&mixed, 1, 3);
        let next = following(&after, short.last_label());
        assert_eq!(short.fill(next, &book), Some(open(&after)));
        // A goal that sorts before the last entry among those that follow
        // it: the block was not current, and is rendered.
        let mut moved_up = before.clone();
        moved_up[2] = goal("c", "critical", "C");
        let (short, _) = close_shown(&before, 0, 2);
        assert_eq!(short.fill(following(&moved_up, "b"), &book), None);
        // A block that shows every open goal: the goal that fills it
        // brings the last line, the next one changes nothing.
        let mut patched = open(&before[..2]);
        for added in &before[2..4] {
            let entry = render_entry(added, &book);
            let change = EntryChange {
                old_label: &added.label,
                label: &added.label,
                priority: &added.priority,
                entry: Some(&entry),
            };
            let Some(Patched::Block(block)) = patch(&patched, &[change], &[], 3) else {
                panic!("{}: not patched", added.label);
            };
            patched = block;
        }
        assert_eq!(patched, open(&before[..3]));
        assert_eq!(patched, open(&before[..4]));
        // A full block whose last line is another `max`'s, an older
        // steward's, or words steward did not write: rendered.
        assert_eq!(patch(&block, &[], &[], 4), None);
        let older = block.replace(
            &full_line(3),
            "_And 2 more open goals (`steward list` lists them)_\n",
        );
        assert_eq!(patch(&older, &[], &[], 3), None);
        let forged = block.replace("_The first 3", "_The first three");
        assert_eq!(patch(&forged, &[], &[], 3), None);
    }

    /// The goals whose labels follow `label`, in label order, as the store
    /// lists them.
    fn following(goals: &[Goal], label: &str) -> Vec<Goal> {
        let mut next: Vec<Goal> = goals
            .iter()
            .filter(|g| g.label.as_str() > label)
            .cloned()
            .collect();
        next.sort_by(|a, b| a.label.cmp(&b.label));
        next
    }

    fn closed_as(goal: &Goal) -> Goal {
        let mut goal = goal.clone();
        goal.status = crate::model::Status::Completed;
        goal
    }

    /// The block of `goals` (showing `max`) patched for `goals[at]`, a
    /// shown one, closing: the entries it lacks must be read. With the
    /// goals as they are after.
    fn close_shown(goals: &[Goal], at: usize, max: usize) -> (Short, Vec<Goal>) {
        let book = Book::default();
        let block = render_block(&goals.iter().collect::<Vec<_>>(), &book, max);
        let closed = closed_as(&goals[at]);
        let change = EntryChange {
            old_label: &closed.label,
            label: &closed.label,
            priority: &closed.priority,
            entry: None,
        };
        let Some(Patched::Short(short)) = patch(&block, &[change], &[], max) else {
            panic!(
                "{}: a shown goal closed: the next must be read",
                closed.label
            );
        };
        let mut after = goals.to_vec();
        after[at] = closed;
        (short, after)
    }

    #[test]
    fn goal_text_cannot_forge_markers() {
        let g = goal("x", "normal", "<!-- steward:end --> evil");
        assert!(render_entry(&g, &Book::default()).contains("&lt;!-- steward:end --&gt; evil"));
    }

    #[test]
    fn splice_keeps_everything_outside_the_block() {
        let text = "# Tasks\n\nWritten by hand.\n\n## Active Goals\n\n<!-- steward:begin (generated: edits inside this block are overwritten) -->\nold\n<!-- steward:end -->\n\nA footer.";
        let out = splice(Some(text), "- **new** (normal, active) — N\n").unwrap();
        assert_eq!(
            out,
            text.replace("old\n", "- **new** (normal, active) — N\n")
        );
    }

    #[test]
    fn splice_appends_heading_and_block_and_creates_files() {
        assert_eq!(
            splice(Some("Notes"), "x\n").unwrap(),
            format!("Notes\n\n{HEADING}\n\n{BEGIN}\nx\n{END}\n")
        );
        assert_eq!(
            splice(None, "x\n").unwrap(),
            format!("# Active Tasks\n\n{HEADING}\n\n{BEGIN}\nx\n{END}\n")
        );
        let crlf = format!("A\r\n\r\n{BEGIN}\r\nold\r\n{END}\r\n");
        assert_eq!(
            splice(Some(&crlf), "x\ny\n").unwrap(),
            format!("A\r\n\r\n{BEGIN}\r\nx\r\ny\r\n{END}\r\n")
        );
    }

    #[test]
    fn the_block_never_conflicts_and_the_rest_merges() {
        let file = |note: &str, entry: &str| {
            format!("# Active Tasks\n\n{note}\n\n{HEADING}\n\n{BEGIN}\n{entry}{END}\n\nfooter\n")
        };
        let base = file("notes", "- **a** (normal, active) — A\n");
        let ours = file(
            "notes",
            "- **a** (normal, active) — A\n- **b** (normal, active) — B\n",
        );
        let theirs = file(
            "notes by a person",
            "- **a** (normal, active) — A\n- **c** (normal, active) — C\n",
        );
        let (merged, clean) = merge(&base, &ours, &theirs);
        assert!(clean, "{merged}");
        assert_eq!(
            merged,
            file(
                "notes by a person",
                "- **a** (normal, active) — A\n- **b** (normal, active) — B\n- **c** (normal, active) — C\n"
            )
        );
    }

    #[test]
    fn blocks_merge_entry_by_entry_keyed_by_goal() {
        let entry = |label: &str, priority: &str, status: &str| {
            format!("- **{label}** ({priority}, {status}) — {label}\n  criteria 0/1\n")
        };
        let base = [
            entry("a", "normal", "active"),
            entry("b", "normal", "active"),
            entry("c", "normal", "active"),
        ]
        .concat();
        // Ours: a changed, c removed, d added. Theirs: b changed, e added
        // (high), c unchanged.
        let ours = [
            entry("a", "normal", "blocked"),
            entry("b", "normal", "active"),
            entry("d", "normal", "active"),
        ]
        .concat();
        let theirs = [
            entry("e", "high", "active"),
            entry("a", "normal", "active"),
            entry("b", "normal", "verifying"),
            entry("c", "normal", "active"),
        ]
        .concat();
        assert_eq!(
            merge_blocks(&base, &ours, &theirs),
            [
                entry("e", "high", "active"),
                entry("a", "normal", "blocked"),
                entry("b", "normal", "verifying"),
                entry("d", "normal", "active"),
            ]
            .concat()
        );
        // Both sides removed everything: the empty block.
        assert_eq!(merge_blocks(&base, EMPTY, EMPTY), format!("{EMPTY}\n"));
        // Theirs was full: the merged block ends with its last line.
        let full = format!("{theirs}{}", full_line(4));
        assert_eq!(
            merge_blocks(&base, &ours, &full),
            merge_blocks(&base, &ours, &theirs) + &full_line(4)
        );
        // Theirs lost every entry but was full: its line stays.
        assert_eq!(merge_blocks(&base, EMPTY, &full_line(4)), full_line(4));
    }

    #[test]
    fn broken_markers_are_refused() {
        assert_eq!(find_block(&format!("a\n{BEGIN}\nb\n")).unwrap_err().0, 2);
        assert_eq!(find_block(&format!("{END}\n")).unwrap_err().0, 1);
        assert_eq!(
            find_block(&format!("a\n\n{BEGIN}\nb\n{BEGIN}\n{END}\n"))
                .unwrap_err()
                .0,
            5
        );
    }

    #[test]
    fn a_marker_is_a_whole_line() {
        let text = format!("see {BEGIN}\n{BEGIN} and more\n{BEGIN}\r\nx\n{END}\n");
        let span = find_block(&text).unwrap().unwrap();
        assert_eq!(&text[span.content], "x\n");
        assert_eq!(find_block(&format!("quoted: {END}\n")), Ok(None));
    }

    #[test]
    fn text_before_the_first_entry_is_dropped_and_entries_keep_their_lines() {
        let block = "_No open goals._\n- **b** (normal, active) — B\n  criteria 0/1\n";
        let entry = "- **a** (high, active) — A\n";
        assert_eq!(
            upsert(block, "a", Some((&Priority::High, entry))),
            format!("{entry}- **b** (normal, active) — B\n  criteria 0/1\n")
        );
        assert_eq!(upsert(block, "b", None), "_No open goals._\n");
    }
}
