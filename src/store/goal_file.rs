//! One goal file: the raw text kept byte for byte, a typed view read from it,
//! and edits that splice only the bytes they mean to change.

use std::ffi::OsStr;
use std::ops::Range;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_yaml::{Mapping, Value};

use super::body::{self, BodyError, BodyLayout};
use super::dir::{Dir, Stat};
use super::frontmatter::{self, YamlValue};
use crate::config::{GoalDefaults, MAX_FILE_BYTES, describe_yaml as describe, yaml_message};
use crate::error::{Error, FileProblem};
use crate::model::duration::HumanDuration;
use crate::model::limits;
use crate::model::{
    Bounds, Budget, Check, CheckKind, Criterion, Escalation, Goal, HistoryEntry, LastCheck,
    PersonWait, Priority, Progress, Record, Status, Waiting, format_time,
};
use crate::yaml_locate::key_position;

/// A top-level field of a goal, to locate a problem at its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Id,
    Label,
    Status,
    Priority,
    Verification,
}

impl Field {
    fn key(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Label => "label",
            Field::Status => "status",
            Field::Priority => "priority",
            Field::Verification => "verification",
        }
    }
}

/// History lines a goal file keeps; the event log keeps all.
pub const HISTORY_KEEP: usize = 100;

const BOM: &str = "\u{feff}";

/// Top-level keys steward reads; any other key is kept as `extra`.
const KNOWN_KEYS: [&str; 32] = [
    "id",
    "label",
    "title",
    "status",
    "priority",
    "confirmed",
    "tags",
    "created_at",
    "updated_at",
    "closed_at",
    "closed_reason",
    "closed_outside",
    "verification",
    "budget",
    "bounds",
    "progress",
    "blockers",
    "escalation",
    "paused_from",
    "waiting",
    "ticks",
    "receipt",
    "owner",
    "origin",
    "constraints",
    "non_goals",
    "risks",
    "planning",
    "worktree",
    "runs_on",
    "pull_request",
    "handoff",
];

#[derive(Debug, Clone)]
pub struct GoalFile {
    pub path: PathBuf,
    /// Size and modification time when read, to tell whether the file
    /// changed since (`None` for files not read from disk).
    pub stamp: Option<(u64, std::time::SystemTime)>,
    /// The inode and change time when read.
    pub identity: Option<super::dir::FileIdentity>,
    /// Shared with the plan read from it ([`crate::model::plan::PlanSection`]),
    /// copied when an edit changes it while that plan is held.
    text: Arc<String>,
    /// The front matter between the `---` lines, line endings included.
    front_matter: Range<usize>,
    body_start: usize,
    /// 1-based file line of the first front-matter line.
    front_matter_line: usize,
    newline: &'static str,
}

impl GoalFile {
    /// Reads and splits a goal file; refuses files over 1 MiB and text that
    /// is not UTF-8.
    pub fn read(path: &Path) -> Result<GoalFile, FileProblem> {
        GoalFile::read_with(path, || {
            std::fs::File::options()
                .read(true)
                .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
                .open(path)
        })
    }

    /// [`GoalFile::read`] of `path`, the entry `name` of `dir`, looking up
    /// that one name instead of the whole path.
    pub fn read_in(dir: &Dir, name: &OsStr, path: &Path) -> Result<GoalFile, FileProblem> {
        GoalFile::read_with(path, || dir.open_file(name))
    }

    fn read_with(
        path: &Path,
        open: impl FnOnce() -> std::io::Result<std::fs::File>,
    ) -> Result<GoalFile, FileProblem> {
        let problem = |line: usize, column: usize, message: String| FileProblem {
            path: path.display().to_string(),
            line,
            column,
            message,
        };
        let cannot_read = |err: std::io::Error| problem(1, 1, format!("cannot read: {err}"));
        // Opened without waiting (a FIFO would wait for a writer), then
        // refused unless it is a regular file.
        let mut file = open().map_err(cannot_read)?;
        let stat = file
            .metadata()
            .and_then(|m| Stat::of(&m))
            .map_err(cannot_read)?;
        if !stat.is_file {
            return Err(problem(
                1,
                1,
                "not a regular file: steward reads only files".to_string(),
            ));
        }
        let too_large = |bytes: u64| {
            problem(
                1,
                1,
                format!("file is {bytes} bytes, larger than the 1 MiB steward reads"),
            )
        };
        if stat.len > MAX_FILE_BYTES {
            return Err(too_large(stat.len));
        }
        // Read through `take`, which knows no size: `File`'s own
        // `read_to_end` asks the kernel for the size again (`statx`,
        // `lseek`), two calls per goal file that `stat` answered already.
        // The bound also stops a file that grew meanwhile at the limit.
        let mut bytes = Vec::with_capacity(stat.len as usize + 1);
        std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut file, MAX_FILE_BYTES + 1),
            &mut bytes,
        )
        .map_err(cannot_read)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(bytes.len() as u64));
        }
        let text = String::from_utf8(bytes).map_err(|err| {
            let valid = &err.as_bytes()[..err.utf8_error().valid_up_to()];
            let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
            let column =
                valid.len() - valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
            problem(line, column, "not valid UTF-8".to_string())
        })?;
        let mut file = GoalFile::parse(path, text)?;
        file.stamp = Some((stat.len, stat.modified));
        file.identity = Some(stat.identity);
        Ok(file)
    }

    /// An empty goal file at `path`, to be filled by edits.
    pub fn empty(path: &Path) -> GoalFile {
        GoalFile::parse(path, "---\n---\n".to_string()).expect("the empty goal file parses")
    }

    /// Splits `text` into front matter and body.
    pub fn parse(path: &Path, text: String) -> Result<GoalFile, FileProblem> {
        let problem = |line: usize, message: &str| FileProblem {
            path: path.display().to_string(),
            line,
            column: 1,
            message: message.to_string(),
        };
        let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
        if let Some(line) = conflict_marker_line(&text) {
            return Err(problem(
                line,
                "git conflict marker: resolve the merge conflict in this file, then run `steward doctor`",
            ));
        }
        let mut lines = LineIter {
            text: &text,
            offset: start,
        };
        let Some(first) = lines.next() else {
            return Err(problem(
                1,
                "empty file: a goal starts with a `---` line of YAML front matter",
            ));
        };
        if trim_line(&text[first.clone()]) != "---" {
            return Err(problem(
                1,
                "missing front matter: a goal file starts with a `---` line",
            ));
        }
        let newline = if text[first.clone()].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let front_start = first.end;
        let mut closing = None;
        for range in lines.by_ref() {
            let line = trim_line(&text[range.clone()]);
            if line == "---" || line == "..." {
                closing = Some(range);
                break;
            }
        }
        let Some(closing) = closing else {
            // Where the goal's text most likely starts: a blank line or a
            // Markdown heading after the keys.
            let body = text[start..]
                .lines()
                .enumerate()
                .skip(1)
                .find(|(_, line)| line.trim().is_empty() || line.starts_with('#'))
                .map(|(index, _)| index + 1);
            let fix = match body {
                Some(line) => {
                    format!("add a `---` line before line {line}, where the goal's text starts")
                }
                None => "add a `---` line after its last key".to_string(),
            };
            return Err(problem(
                1,
                &format!("front matter opened on line 1 is never closed by a `---` line: {fix}"),
            ));
        };
        Ok(GoalFile {
            path: path.to_path_buf(),
            stamp: None,
            identity: None,
            front_matter: front_start..closing.start,
            body_start: closing.end,
            front_matter_line: 2,
            newline,
            text: Arc::new(text),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn front_matter(&self) -> &str {
        &self.text[self.front_matter.clone()]
    }

    pub fn body(&self) -> &str {
        &self.text[self.body_start..]
    }

    pub fn newline(&self) -> &'static str {
        self.newline
    }

    /// The typed view. Keys that are absent take `defaults`; a value of the
    /// wrong type is a problem located at its key.
    pub fn goal(&self, defaults: &GoalDefaults) -> Result<Goal, FileProblem> {
        self.goal_with_plan_memo(defaults, None)
    }

    /// [`GoalFile::goal`], taking the plan's summary from `plans` when a
    /// plan of the same text was checked before, and keeping it there
    /// when it is checked now.
    pub(super) fn goal_with_plan_memo(
        &self,
        defaults: &GoalDefaults,
        plans: Option<&super::plan_memo::PlanMemo>,
    ) -> Result<Goal, FileProblem> {
        let mapping = self.mapping()?;
        let reader = Reader {
            file: self,
            mapping: &mapping,
        };
        let layout = BodyLayout::parse(self.body());
        let body = self.body();
        let stem = self
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let label = reader
            .text(&["label"])?
            .unwrap_or(stem)
            .to_ascii_lowercase();
        // The label names the file steward writes: never a path.
        if let Err(why) = crate::model::label::validate(&label) {
            return Err(self.problem_at_key(&["label"], why));
        }
        let budget = Budget {
            max_dispatches: reader
                .count(&["budget", "max_dispatches"])?
                .unwrap_or(defaults.max_dispatches),
            max_assessments: reader
                .count(&["budget", "max_assessments"])?
                .unwrap_or(defaults.max_assessments),
            cooldown: reader
                .duration(&["budget", "cooldown"])?
                .unwrap_or(defaults.cooldown),
            escalate_after_failures: reader
                .count(&["budget", "escalate_after_failures"])?
                .unwrap_or(defaults.escalate_after_failures),
        };
        let progress = Progress {
            assessments: reader.count(&["progress", "assessments"])?.unwrap_or(0),
            dispatches: reader.count(&["progress", "dispatches"])?.unwrap_or(0),
            recorded_iterations: reader.count(&["progress", "iterations"])?,
            consecutive_failures: reader
                .count(&["progress", "consecutive_failures"])?
                .unwrap_or(0),
            cost_usd: reader.number(&["progress", "cost_usd"])?.unwrap_or(0.0),
            last_assessed_at: reader.time(&["progress", "last_assessed_at"])?,
            last_dispatched_at: reader.time(&["progress", "last_dispatched_at"])?,
            last_outcome: reader.text(&["progress", "last_outcome"])?,
            last_check: reader.last_check()?,
            blocker_fingerprint: reader.text(&["progress", "blocker_fingerprint"])?,
            blocker_streak: reader.count(&["progress", "blocker_streak"])?.unwrap_or(0),
            assessments_without_progress: reader
                .count(&["progress", "assessments_without_progress"])?
                .unwrap_or(0),
            unblocked_at: reader.time(&["progress", "unblocked_at"])?,
            unblock_note: reader.text(&["progress", "unblock_note"])?,
            waited_at: reader.time(&["progress", "waited_at"])?,
            wait_note: reader.text(&["progress", "wait_note"])?,
            wake_session: reader.text(&["progress", "wake_session"])?,
        };
        let criteria = layout
            .criteria
            .iter()
            .enumerate()
            .map(|(index, c)| Criterion {
                n: index + 1,
                text: c.text.clone(),
                met: c.met,
            })
            .collect();
        let plan = match layout.plan_content() {
            None => None,
            Some(content) => {
                let memo = plans.map(|memo| {
                    let key = super::plan_memo::PlanMemo::key_of(&body[content.clone()]);
                    (memo, key, memo.summary_of(&key))
                });
                let known = memo.and_then(|(_, _, known)| known);
                let section = crate::model::plan::PlanSection::read(
                    &self.text,
                    self.body_start,
                    content,
                    known,
                )
                .map_err(|err| FileProblem {
                    path: self.path.display().to_string(),
                    line: self.body_line() + err.line - 1,
                    column: err.column,
                    message: format!("## Plan: {}", err.message),
                })?;
                if let Some((memo, key, None)) = memo {
                    memo.remember(key, section.summary);
                }
                Some(section)
            }
        };
        Ok(Goal {
            id: reader.text(&["id"])?.unwrap_or_default(),
            title: reader.text(&["title"])?.unwrap_or_else(|| label.clone()),
            label,
            status: reader
                .text(&["status"])?
                .map_or(Status::Active, |s| Status::parse(&s)),
            priority: reader
                .text(&["priority"])?
                .map_or_else(|| defaults.priority.clone(), |p| Priority::parse(&p)),
            confirmed: reader.bool(&["confirmed"])?.unwrap_or(true),
            tags: reader.texts(&["tags"])?,
            created_at: reader.time(&["created_at"])?,
            updated_at: reader.time(&["updated_at"])?,
            closed_at: reader.time(&["closed_at"])?,
            closed_reason: reader.text(&["closed_reason"])?,
            closed_outside: reader.bool(&["closed_outside"])?.unwrap_or(false),
            verification: reader.checks()?,
            budget,
            bounds: Bounds {
                max_iterations: reader.count(&["bounds", "max_iterations"])?,
                deadline: reader.time(&["bounds", "deadline"])?,
                max_cost_usd: reader.number(&["bounds", "max_cost_usd"])?,
            },
            progress,
            blockers: reader.texts(&["blockers"])?,
            escalation: reader.escalation()?,
            paused_from: reader.text(&["paused_from"])?.map(|s| Status::parse(&s)),
            waiting: reader.waiting()?,
            ticks: reader
                .structured(&["ticks"], "a list of {n, by, at}")?
                .unwrap_or_default(),
            receipt: reader.structured(&["receipt"], "a receipt written by `steward complete`")?,
            record: Record {
                owner: reader.text(&["owner"])?,
                planning: reader.planning()?,
                worktree: reader.bool(&["worktree"])?,
                origin: reader.text(&["origin"])?,
                constraints: reader.texts(&["constraints"])?,
                non_goals: reader.texts(&["non_goals"])?,
                risks: reader.texts(&["risks"])?,
                runs_on: reader.texts(&["runs_on"])?,
                pull_request: reader.text(&["pull_request"])?,
            },
            handoff: reader.structured(&["handoff"], "a handoff written by `steward handoff`")?,
            description: layout.description(body).to_string(),
            criteria,
            plan,
            history: layout
                .history(body)
                .into_iter()
                .map(|line| HistoryEntry {
                    line: line.to_string(),
                })
                .collect(),
            extra: mapping
                .iter()
                .filter_map(|(key, value)| {
                    let key = key.as_str()?;
                    if KNOWN_KEYS.contains(&key) {
                        return None;
                    }
                    Some((
                        key.to_string(),
                        serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
                    ))
                })
                .collect(),
        })
    }

    fn mapping(&self) -> Result<Mapping, FileProblem> {
        if let Some((line, column)) = crate::yaml_locate::excessive_nesting(self.front_matter()) {
            return Err(self.problem(
                line,
                column,
                format!(
                    "front matter: flow collections nest deeper than {} levels",
                    crate::yaml_locate::MAX_FLOW_DEPTH
                ),
            ));
        }
        // The plain YAML goal files use takes the fast path; anything else,
        // and every error message, comes from yaml_serde.
        let parsed = crate::fast_yaml::parse(self.front_matter())
            .map_or_else(|| serde_yaml::from_str(self.front_matter()), Ok);
        let value: Value = parsed.map_err(|err| {
            let mut position = err.location().map_or((1, 1), |l| (l.line(), l.column()));
            let message = err.to_string();
            if let Some(key) = message
                .strip_prefix("duplicate entry with key \"")
                .and_then(|rest| rest.split('"').next())
            {
                position = crate::yaml_locate::duplicate_key_position(self.front_matter(), key)
                    .unwrap_or(position);
            }
            let (line, column) = position;
            self.problem(
                line,
                column,
                format!(
                    "front matter: {}",
                    yaml_message(&err, self.front_matter_line - 1)
                ),
            )
        })?;
        match value {
            Value::Mapping(mapping) => Ok(mapping),
            Value::Null => Ok(Mapping::new()),
            _ => Err(self.problem(
                1,
                1,
                "front matter must be a mapping of keys to values".to_string(),
            )),
        }
    }

    /// The 1-based file line the body starts on.
    fn body_line(&self) -> usize {
        self.text[..self.body_start].matches('\n').count() + 1
    }

    /// A problem at `line`/`column` of the front matter, in file coordinates.
    fn problem(&self, line: usize, column: usize, message: String) -> FileProblem {
        FileProblem {
            path: self.path.display().to_string(),
            line: self.front_matter_line + line - 1,
            column,
            message,
        }
    }

    /// A problem located at one of the goal's fields (or line 1 when it is
    /// absent), for `doctor` and `edit`.
    pub fn problem_at(&self, field: Field, message: String) -> FileProblem {
        self.problem_at_key(&[field.key()], message)
    }

    /// A problem located at a front-matter key (or line 1 when absent).
    fn problem_at_key(&self, path: &[&str], message: String) -> FileProblem {
        let (line, column) = key_position(self.front_matter(), path).unwrap_or((1, 1));
        self.problem(line, column, message)
    }

    /// Sets a front-matter value, changing only its bytes (for `edit.rs`,
    /// the one writer of keys).
    pub(super) fn set(&mut self, path: &[&str], value: YamlValue) -> Result<(), Error> {
        let edited = frontmatter::set(self.front_matter(), path, &value).map_err(|err| {
            Error::Internal(format!(
                "{}: cannot set {}: {err}",
                self.path.display(),
                path.join(".")
            ))
        })?;
        self.replace_front_matter(edited);
        Ok(())
    }

    /// Whether the front matter has top-level `key`.
    pub(super) fn front_matter_has(&self, key: &str) -> bool {
        key_position(self.front_matter(), &[key]).is_some()
    }

    /// Removes a front-matter key with its value (for `edit.rs`).
    pub(super) fn remove(&mut self, path: &[&str]) -> Result<(), Error> {
        let edited = frontmatter::remove(self.front_matter(), path).map_err(|err| {
            Error::Internal(format!(
                "{}: cannot remove {}: {err}",
                self.path.display(),
                path.join(".")
            ))
        })?;
        self.replace_front_matter(edited);
        Ok(())
    }

    fn replace_front_matter(&mut self, edited: String) {
        let old_len = self.front_matter.len();
        Arc::make_mut(&mut self.text).replace_range(self.front_matter.clone(), &edited);
        self.front_matter.end = self.front_matter.start + edited.len();
        self.body_start = self.body_start + edited.len() - old_len;
    }

    /// Applies a body edit (for `edit.rs`).
    pub(super) fn edit_body(
        &mut self,
        edit: impl FnOnce(&str, &'static str) -> Result<String, BodyError>,
    ) -> Result<(), Error> {
        let edited =
            edit(self.body(), self.newline).map_err(|err| Error::BadRequest(err.to_string()))?;
        Arc::make_mut(&mut self.text).replace_range(self.body_start.., &edited);
        Ok(())
    }

    /// Appends one `## History` line: time, actor, action and detail.
    pub fn append_history(&mut self, at: DateTime<Utc>, actor: &str, action: &str, detail: &str) {
        let line = if detail.is_empty() {
            format!("{} {actor} {action}", format_time(at))
        } else {
            format!("{} {actor} {action}: {detail}", format_time(at))
        };
        let edited = body::append_history(self.body(), &line, self.newline, HISTORY_KEEP);
        Arc::make_mut(&mut self.text).replace_range(self.body_start.., &edited);
    }

    /// Whether the bytes differ from `other`'s.
    pub fn differs_from(&self, other: &GoalFile) -> bool {
        self.text != other.text
    }
}

pub fn time_value(at: DateTime<Utc>) -> YamlValue {
    YamlValue::Str(format_time(at))
}

/// The first line (1-based) that starts a git conflict.
fn conflict_marker_line(text: &str) -> Option<usize> {
    // A substring search first: nearly every file has no marker at all.
    if !text.starts_with("<<<<<<<") && !text.contains("\n<<<<<<<") {
        return None;
    }
    text.lines()
        .position(|line| line.starts_with("<<<<<<< ") || line.trim_end() == "<<<<<<<")
        .map(|index| index + 1)
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\r', '\n', ' ', '\t'])
}

/// Whole lines of a text from an offset, line endings included.
struct LineIter<'t> {
    text: &'t str,
    offset: usize,
}

impl Iterator for LineIter<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        if self.offset >= self.text.len() {
            return None;
        }
        let start = self.offset;
        self.offset = match self.text[start..].find('\n') {
            Some(index) => start + index + 1,
            None => self.text.len(),
        };
        Some(start..self.offset)
    }
}

/// Typed access to front-matter values, with errors located at the key.
struct Reader<'a> {
    file: &'a GoalFile,
    mapping: &'a Mapping,
}

impl Reader<'_> {
    fn value(&self, path: &[&str]) -> Option<&Value> {
        let mut current = self.mapping.get(path[0])?;
        for key in &path[1..] {
            current = current.as_mapping()?.get(*key)?;
        }
        match current {
            Value::Null => None,
            value => Some(value),
        }
    }

    fn wrong(&self, path: &[&str], expected: &str) -> FileProblem {
        let found = self
            .value(path)
            .map_or_else(|| "nothing".to_string(), describe);
        self.file.problem_at_key(
            path,
            format!("{}: expected {expected}, found {found}", path.join(".")),
        )
    }

    fn text(&self, path: &[&str]) -> Result<Option<String>, FileProblem> {
        match self.value(path) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(self.wrong(path, "text")),
        }
    }

    /// `planning: auto|off`.
    fn planning(&self) -> Result<Option<crate::model::Planning>, FileProblem> {
        match self.text(&["planning"])? {
            None => Ok(None),
            Some(text) => crate::model::Planning::parse(&text)
                .map(Some)
                .ok_or_else(|| self.wrong(&["planning"], "auto or off")),
        }
    }

    fn texts(&self, path: &[&str]) -> Result<Vec<String>, FileProblem> {
        match self.value(path) {
            None => Ok(Vec::new()),
            Some(Value::Sequence(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(self.wrong(path, "a list of text")),
                })
                .collect(),
            Some(_) => Err(self.wrong(path, "a list of text")),
        }
    }

    fn count(&self, path: &[&str]) -> Result<Option<u64>, FileProblem> {
        match self.value(path) {
            None => Ok(None),
            Some(value) => match value.as_u64() {
                Some(n) if n <= limits::MAX_STORED => Ok(Some(n)),
                Some(_) => Err(self.wrong(path, "a whole number of at most 10^15")),
                None => Err(self.wrong(path, "a whole number")),
            },
        }
    }

    fn number(&self, path: &[&str]) -> Result<Option<f64>, FileProblem> {
        match self.value(path).map(|v| v.as_f64()) {
            None => Ok(None),
            Some(Some(x)) if x.is_finite() && (0.0..=limits::MAX_STORED as f64).contains(&x) => {
                Ok(Some(x))
            }
            Some(_) => Err(self.wrong(path, "a number from 0 to 10^15")),
        }
    }

    fn bool(&self, path: &[&str]) -> Result<Option<bool>, FileProblem> {
        match self.value(path) {
            None => Ok(None),
            Some(value) => value
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.wrong(path, "true or false")),
        }
    }

    fn time(&self, path: &[&str]) -> Result<Option<DateTime<Utc>>, FileProblem> {
        match self.value(path) {
            None => Ok(None),
            Some(Value::String(s)) => DateTime::parse_from_rfc3339(s)
                .map(|t| Some(t.with_timezone(&Utc)))
                .map_err(|_| self.wrong(path, "an RFC 3339 time such as 2026-11-21T04:00:00Z")),
            Some(_) => Err(self.wrong(path, "an RFC 3339 time such as 2026-11-21T04:00:00Z")),
        }
    }

    fn duration(&self, path: &[&str]) -> Result<Option<HumanDuration>, FileProblem> {
        match self.value(path) {
            None => Ok(None),
            Some(Value::String(s)) => HumanDuration::parse(s).map(Some).map_err(|why| {
                self.file
                    .problem_at_key(path, format!("{}: {why}", path.join(".")))
            }),
            Some(_) => Err(self.wrong(path, "a duration such as 10m")),
        }
    }

    fn checks(&self) -> Result<Vec<Check>, FileProblem> {
        let items = match self.value(&["verification"]) {
            None => return Ok(Vec::new()),
            Some(Value::Sequence(items)) => items.clone(),
            // The seed design had a single check; accept one mapping too.
            Some(Value::Mapping(_)) => {
                vec![self.value(&["verification"]).cloned().unwrap_or_default()]
            }
            Some(_) => return Err(self.wrong(&["verification"], "a list of checks")),
        };
        items
            .iter()
            .map(|item| {
                let bad = || {
                    self.file.problem_at_key(
                        &["verification"],
                        "verification: each check needs `type` and `target`".to_string(),
                    )
                };
                let map = item.as_mapping().ok_or_else(bad)?;
                let kind = map.get("type").and_then(Value::as_str).ok_or_else(bad)?;
                let target = match map.get("target") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    None | Some(Value::Null) => String::new(),
                    Some(_) => return Err(bad()),
                };
                let criterion = match map.get("criterion") {
                    None | Some(Value::Null) => None,
                    Some(value) => Some(value.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                        self.file.problem_at_key(
                            &["verification"],
                            "verification: `criterion` is a criterion number from 1".to_string(),
                        )
                    })? as usize),
                };
                Ok(Check {
                    kind: CheckKind::parse(kind),
                    target,
                    criterion,
                })
            })
            .collect()
    }

    fn last_check(&self) -> Result<Option<LastCheck>, FileProblem> {
        let path = ["progress", "last_check"];
        match self.value(&path) {
            None => return Ok(None),
            Some(Value::Mapping(_)) => {}
            Some(_) => {
                return Err(self.wrong(&path, "a mapping with since, passed, total and failures"));
            }
        }
        Ok(Some(LastCheck {
            since: self.time(&["progress", "last_check", "since"])?,
            passed: self
                .count(&["progress", "last_check", "passed"])?
                .unwrap_or(0),
            total: self
                .count(&["progress", "last_check", "total"])?
                .unwrap_or(0),
            failures: self.texts(&["progress", "last_check", "failures"])?,
        }))
    }

    /// A value steward writes as a whole structure (ticks, a receipt).
    fn structured<T: serde::de::DeserializeOwned>(
        &self,
        path: &[&str],
        expected: &str,
    ) -> Result<Option<T>, FileProblem> {
        let Some(value) = self.value(path) else {
            return Ok(None);
        };
        serde_json::to_value(value)
            .ok()
            .and_then(|json| serde_json::from_value(json).ok())
            .map(Some)
            .ok_or_else(|| self.wrong(path, expected))
    }

    fn waiting(&self) -> Result<Option<Waiting>, FileProblem> {
        match self.value(&["waiting"]) {
            None => return Ok(None),
            Some(Value::Mapping(_)) => {}
            Some(_) => {
                return Err(self.wrong(&["waiting"], "a mapping with until, for_check and reason"));
            }
        }
        Ok(Some(Waiting {
            until: self.time(&["waiting", "until"])?,
            for_check: self.bool(&["waiting", "for_check"])?.unwrap_or(false),
            for_person: match self.text(&["waiting", "for_person"])? {
                None => None,
                Some(text) => {
                    Some(PersonWait::parse(&text).ok_or_else(|| {
                        self.wrong(&["waiting", "for_person"], "review or judgment")
                    })?)
                }
            },
            reason: self.text(&["waiting", "reason"])?.unwrap_or_default(),
            since: self.time(&["waiting", "since"])?,
            session: self.text(&["waiting", "session"])?,
        }))
    }

    fn escalation(&self) -> Result<Option<Escalation>, FileProblem> {
        if self.value(&["escalation"]).is_none() {
            return Ok(None);
        }
        if !matches!(self.value(&["escalation"]), Some(Value::Mapping(_))) {
            return Err(self.wrong(&["escalation"], "a mapping with kind and reason"));
        }
        Ok(Some(Escalation {
            kind: self.text(&["escalation", "kind"])?.unwrap_or_default(),
            reason: self.text(&["escalation", "reason"])?.unwrap_or_default(),
            at: self.time(&["escalation", "at"])?,
        }))
    }
}
