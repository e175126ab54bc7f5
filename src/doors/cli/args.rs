//! Parsers for option values; a bad value is a usage error (exit 2) that
//! names the value.

use chrono::{DateTime, NaiveDate, Utc};

use crate::model::duration::HumanDuration;
use crate::model::{Bounds, Check, Priority, limits};

pub fn label(text: &str) -> Result<String, String> {
    crate::model::label::normalize(text)
}

pub fn priority(text: &str) -> Result<Priority, String> {
    Priority::parse_known(text)
}

pub fn duration(text: &str) -> Result<HumanDuration, String> {
    HumanDuration::parse(text)
}

pub fn check(text: &str) -> Result<Check, String> {
    Check::parse_spec(text)
}

/// RFC 3339, or a plain date meaning midnight UTC.
pub fn time(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&Utc));
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|date| date.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc())
        .map_err(|_| format!("invalid time `{text}`: expected RFC 3339 such as 2026-12-01T00:00:00Z, or a date such as 2026-12-01"))
}

/// A non-negative amount of US dollars, at most a billion.
pub fn usd(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=limits::MAX_USD).contains(&x) => Ok(x),
        _ => Err(format!(
            "invalid amount `{text}`: expected a number of US dollars from 0 to {}",
            limits::MAX_USD
        )),
    }
}

/// A whole number of at most a billion: a budget, a bound.
pub fn count(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n <= limits::MAX_COUNT => Ok(n),
        _ => Err(format!(
            "invalid number `{text}`: expected a whole number from 0 to {}",
            limits::MAX_COUNT
        )),
    }
}

/// Text that becomes one line: a criterion, a blocker, a title.
pub fn one_line(text: &str) -> Result<String, String> {
    let text = crate::text::one_line(text);
    if text.is_empty() {
        Err("must not be empty".to_string())
    } else {
        Ok(text)
    }
}

/// Text that becomes one line and may be empty: what a subagent said,
/// which a harness passes on as it came (an empty detail is a detail of
/// nothing). Empty becomes `None` at the caller.
pub fn optional_line(text: &str) -> Result<String, String> {
    Ok(crate::text::one_line(text))
}

/// A criterion number, from 1.
pub fn criterion_number(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "invalid criterion number `{text}`: criteria are numbered from 1"
        )),
    }
}

/// A tag: one word of printable characters.
pub fn tag(text: &str) -> Result<String, String> {
    let tag = text.trim().to_string();
    if tag.is_empty()
        || tag
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ',')
    {
        return Err(format!(
            "invalid tag `{text}`: tags are one word without commas"
        ));
    }
    Ok(tag)
}

/// Budget (soft) and bounds (hard) options shared by `add` and `update`.
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Dispatch budget; the goal blocks when it is used up
    #[arg(long, value_name = "N", value_parser = count)]
    pub max_dispatches: Option<u64>,

    /// Assessment budget; the goal blocks when it is used up
    #[arg(long, value_name = "N", value_parser = count)]
    pub max_assessments: Option<u64>,

    /// Minimum time between assessments, and between dispatches, such as
    /// 10m (0: none)
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub cooldown: Option<HumanDuration>,

    /// Consecutive failures after which the goal blocks
    #[arg(long, value_name = "N", value_parser = count)]
    pub escalate_after: Option<u64>,

    /// Hard bound: the goal fails once this many assessments were made
    #[arg(long, value_name = "N", value_parser = count)]
    pub max_iterations: Option<u64>,

    /// Hard bound: the goal fails after this time (RFC 3339 or a date)
    #[arg(long, value_name = "TIME", value_parser = time)]
    pub deadline: Option<DateTime<Utc>>,

    /// Hard bound: the goal fails when its cost exceeds this many US dollars
    #[arg(long, value_name = "USD", value_parser = usd)]
    pub max_cost_usd: Option<f64>,
}

impl LimitArgs {
    /// The bounds given on the command line.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            max_iterations: self.max_iterations,
            deadline: self.deadline,
            max_cost_usd: self.max_cost_usd,
        }
    }
}

/// `--since`: RFC 3339, a date, or a duration back from `now` (`24h`).
pub fn since_time(now: DateTime<Utc>, text: &str) -> Result<DateTime<Utc>, crate::error::Error> {
    if let Ok(duration) = HumanDuration::parse(text) {
        return Ok(now - duration.to_chrono());
    }
    time(text).map_err(|why| {
        crate::error::Error::bad_value("--since", format!("{why}, or a duration such as 24h"))
    })
}

/// The most steward reads of a JSON document given as FILE or `-`.
const MAX_INPUT_BYTES: u64 = 1024 * 1024;

/// The text of `source`: a file, or stdin for `-`; at most 1 MiB of UTF-8.
pub fn read_input(source: &std::path::Path) -> crate::error::Result<String> {
    use crate::error::Error;
    use std::io::Read;
    let from_stdin = source.as_os_str() == "-";
    let mut bytes = Vec::new();
    let read = if from_stdin {
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(source)
            .and_then(|file| file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes))
    };
    let shown = if from_stdin {
        std::path::Path::new("stdin")
    } else {
        source
    };
    read.map_err(|err| Error::io(shown, "cannot read", err))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Error::bad_value(
            shown.display().to_string(),
            "larger than the 1 MiB steward reads",
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::bad_value(shown.display().to_string(), "not UTF-8 text"))
}

/// The goal's record, shared by `add` and `update`
/// (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS").
#[derive(Debug, Clone, clap::Args)]
pub struct RecordArgs {
    /// Who to tell about the goal: a name, an address, a handle (never a
    /// secret); on update, "" removes it
    #[arg(long, value_name = "WHO", value_parser = optional_line)]
    pub owner: Option<String>,

    /// Where the goal came from: a session, an issue URL; on update, ""
    /// removes it
    #[arg(long, value_name = "WHERE", value_parser = optional_line)]
    pub origin: Option<String>,

    /// A constraint the work must respect; repeat for more (on update:
    /// replaces the list, "" clears it)
    #[arg(long = "constraint", value_name = "TEXT", value_parser = optional_line)]
    pub constraints: Vec<String>,

    /// What the goal is not about; repeat for more (as --constraint)
    #[arg(long = "non-goal", value_name = "TEXT", value_parser = optional_line)]
    pub non_goals: Vec<String>,

    /// A risk to keep in mind; repeat for more (as --constraint)
    #[arg(long = "risk", value_name = "TEXT", value_parser = optional_line)]
    pub risks: Vec<String>,

    /// A machine its runs may start on: a machine's name or one of its
    /// machine.tags; repeat for more (as --constraint; none: any machine)
    #[arg(long = "runs-on", value_name = "MACHINE_OR_TAG", value_parser = optional_line)]
    pub runs_on: Vec<String>,

    /// auto: dispatch plans the goal before working on it; off: works it
    /// without a plan; default: as dispatch.plan says
    #[arg(long, value_name = "auto|off|default", value_parser = ["auto", "off", "default"])]
    pub planning: Option<String>,
}

impl RecordArgs {
    /// The record of a new goal.
    pub fn record(&self) -> crate::model::Record {
        let list = |items: &[String]| items.iter().filter(|i| !i.is_empty()).cloned().collect();
        crate::model::Record {
            owner: self.owner.clone().filter(|o| !o.is_empty()),
            origin: self.origin.clone().filter(|o| !o.is_empty()),
            constraints: list(&self.constraints),
            non_goals: list(&self.non_goals),
            risks: list(&self.risks),
            runs_on: list(&self.runs_on),
            planning: self
                .planning
                .as_deref()
                .and_then(crate::model::Planning::parse),
            worktree: None,
            pull_request: None,
        }
    }

    /// What `update` changes: a list given replaces the old one.
    pub fn update(&self) -> crate::engine::RecordUpdate {
        let list = |items: &[String]| {
            (!items.is_empty()).then(|| items.iter().filter(|i| !i.is_empty()).cloned().collect())
        };
        crate::engine::RecordUpdate {
            owner: self.owner.clone(),
            origin: self.origin.clone(),
            constraints: list(&self.constraints),
            non_goals: list(&self.non_goals),
            risks: list(&self.risks),
            runs_on: list(&self.runs_on),
            planning: self.planning.as_deref().map(crate::model::Planning::parse),
        }
    }
}
