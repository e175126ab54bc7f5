//! How goals look to people on a terminal: colours, columns, ages, bars.
//! The JSON documents are the engine's views (`engine::view`), the same
//! for `--json` and MCP; they are re-exported here for the command files.

use super::Output;
pub use crate::engine::view::{
    SCHEMA_VERSION, goal_document, goal_json, obligation_json, plan_json, run_json,
};
use crate::model::{Goal, Status};

/// ANSI colours, used only when the context says so.
#[derive(Debug, Clone, Copy)]
pub enum Color {
    Red,
    Green,
    Yellow,
    Blue,
    Cyan,
    Dim,
    Bold,
}

pub fn paint(out: &Output, text: &str, color: Color) -> String {
    if !out.color {
        return text.to_string();
    }
    let code = match color {
        Color::Red => "31",
        Color::Green => "32",
        Color::Yellow => "33",
        Color::Blue => "34",
        Color::Cyan => "36",
        Color::Dim => "2",
        Color::Bold => "1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

pub fn status_color(status: &Status) -> Color {
    match status {
        Status::Active => Color::Green,
        Status::Stalled => Color::Yellow,
        Status::Verifying => Color::Cyan,
        Status::Blocked | Status::Failed => Color::Red,
        Status::Paused => Color::Blue,
        Status::Completed | Status::Abandoned | Status::Unknown(_) => Color::Dim,
    }
}

/// A status padded to `width` then coloured, so columns stay aligned.
/// How long ago `since` was, in its largest whole unit, for a table column
/// (`45s`, `12m`, `30h`, `9d`, `6w`, `2y`); `-` when unknown.
pub fn age(
    since: Option<chrono::DateTime<chrono::Utc>>,
    now: chrono::DateTime<chrono::Utc>,
) -> String {
    let Some(since) = since else {
        return "-".to_string();
    };
    let secs = (now - since).num_seconds().max(0);
    let (n, unit) = match secs {
        s if s < 60 => (s, "s"),
        s if s < 3600 => (s / 60, "m"),
        s if s < 2 * 86_400 => (s / 3600, "h"),
        s if s < 14 * 86_400 => (s / 86_400, "d"),
        s if s < 365 * 86_400 => (s / (7 * 86_400), "w"),
        s => (s / (365 * 86_400), "y"),
    };
    format!("{n}{unit}")
}

pub fn status_cell(out: &Output, status: &Status, width: usize) -> String {
    let padded = format!("{:<width$}", status.as_str());
    paint(out, &padded, status_color(status))
}

/// A one-line summary of a change for people: "deploy-api: paused".
pub fn confirmation(out: &Output, goal: &Goal, what: &str) -> String {
    format!("{}: {what}", paint(out, &goal.label, Color::Bold))
}

/// A bar of `done` out of `total`, ten cells wide: block characters for a
/// terminal, `#` and `.` otherwise.
pub fn bar(done: usize, total: usize, fancy: bool) -> String {
    const CELLS: usize = 10;
    let filled = if total == 0 {
        0
    } else {
        (done.min(total) * CELLS).div_ceil(total)
    };
    let (full, empty) = if fancy { ('█', '░') } else { ('#', '.') };
    let mut text = String::from("[");
    text.extend(std::iter::repeat_n(full, filled));
    text.extend(std::iter::repeat_n(empty, CELLS - filled));
    text.push(']');
    text
}
