//! Goals from GitHub issues (steward-guide(7), "Goals from issues"):
//! `add --from-issue owner/repo#N` makes one, `intake owner/repo --label L`
//! one for every open issue with that label not yet taken. A person's acts:
//! the work the issues ask for becomes the agents'. The issue's address is
//! the goal's `origin`, which is how a later intake knows it was taken, and
//! how the goal's completion is told back on the issue (`issue_reports`).

use serde_json::{Value, json};

use super::{AddRequest, Saved};
use crate::checks::client::{Method, Send};
use crate::checks::github::{self, IssueRef, RepoRef};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Goal, Priority};
use crate::store::Scope;
use crate::store::events::Event;

/// The longest description taken from an issue's body.
const DESCRIPTION_CHARS: usize = 8000;
/// The longest criterion taken from a task-list item.
const CRITERION_CHARS: usize = 200;

/// An issue as the API gives it.
#[derive(Debug)]
struct Issue {
    number: u64,
    title: String,
    body: String,
    labels: Vec<String>,
    url: String,
}

impl Issue {
    /// The issue in an answer of `GET /repos/{owner}/{repo}/issues/{n}` (or
    /// one item of the list); `None` for a pull request, which the issues
    /// API lists too.
    fn of(answer: &Value) -> Option<Issue> {
        if answer.get("pull_request").is_some() {
            return None;
        }
        let text = |key: &str| answer.get(key).and_then(Value::as_str).unwrap_or_default();
        Some(Issue {
            number: answer.get("number")?.as_u64()?,
            title: crate::text::one_line(text("title")),
            body: text("body").replace("\r\n", "\n"),
            labels: (answer.get("labels").and_then(Value::as_array))
                .into_iter()
                .flatten()
                .filter_map(|l| l.get("name").and_then(Value::as_str).map(str::to_string))
                .collect(),
            url: text("html_url").to_string(),
        })
    }
}

/// What a person's `add --from-issue` says beside the issue.
#[derive(Debug, Default)]
pub struct FromIssue {
    /// The goal's label; `None`: `REPO-N`.
    pub label: Option<String>,
    pub confirmed: bool,
    /// Instead of the one the issue's labels say.
    pub priority: Option<Priority>,
    pub checks: Vec<crate::model::Check>,
}

/// `add --from-issue`: the goal made from issue `target`.
pub fn add_from_issue(ctx: &Context, target: &str, given: FromIssue) -> Result<Saved> {
    super::authority::person_only(ctx, "make a goal from an issue", || {
        format!("steward add --from-issue {target}")
    })?;
    let issue_ref = IssueRef::parse(target).map_err(Error::BadRequest)?;
    let policy = super::checking::policy(ctx);
    let path = format!("{}/issues/{}", issue_ref.repo.api_path(), issue_ref.number);
    let answer = github::call(&policy, None, &path, "no such issue").map_err(Error::Github)?;
    let issue = Issue::of(&answer).ok_or_else(|| {
        Error::BadRequest(format!(
            "{target} is a pull request, not an issue: a pull request's CI is a ci_green check"
        ))
    })?;
    if let Some(goal) = taken(ctx, &issue.url)?.first() {
        return Err(Error::BadRequest(format!(
            "{target} is already goal {} ({})",
            goal.label, goal.status
        )));
    }
    make(ctx, &issue_ref.repo, &issue, given)
}

/// What `intake` did.
#[derive(Debug, Default)]
pub struct Intaken {
    /// Issue number and the goal made.
    pub added: Vec<(u64, String)>,
    /// Issue number and the goal that has it already.
    pub taken: Vec<(u64, String)>,
    /// Issue number and why no goal was made.
    pub failed: Vec<(u64, String)>,
}

/// `intake owner/repo --label L`: a goal for each open issue labelled
/// `label` that no goal has yet (the first 100 the API lists).
pub fn intake(ctx: &Context, repo: &str, label: &str) -> Result<Intaken> {
    super::authority::person_only(ctx, "make goals from issues", || {
        format!("steward intake {repo} --label {label}")
    })?;
    let repo = RepoRef::parse(repo).map_err(Error::BadRequest)?;
    let policy = super::checking::policy(ctx);
    let path = format!(
        "{}/issues?state=open&labels={}&per_page=100",
        repo.api_path(),
        percent_encode(label)
    );
    let answer = github::call(&policy, None, &path, "no such repository").map_err(Error::Github)?;
    let issues: Vec<Issue> = (answer.as_array().into_iter().flatten())
        .filter_map(Issue::of)
        .collect();
    let mut goals = ctx.store.scan(Scope::All)?.goals;
    let mut intaken = Intaken::default();
    for issue in issues {
        let holder = goals
            .iter()
            .find(|g| g.goal.record.origin.as_deref() == Some(issue.url.as_str()));
        if let Some(holder) = holder {
            intaken
                .taken
                .push((issue.number, holder.goal.label.clone()));
            continue;
        }
        match make(ctx, &repo, &issue, FromIssue::default()) {
            Ok(saved) => {
                intaken
                    .added
                    .push((issue.number, saved.goal.goal.label.clone()));
                goals.push(saved.goal);
            }
            Err(err) => intaken.failed.push((issue.number, err.to_string())),
        }
    }
    Ok(intaken)
}

/// The goals (open or closed) whose origin is `url`.
fn taken(ctx: &Context, url: &str) -> Result<Vec<Goal>> {
    Ok((ctx.store.scan(Scope::All)?.goals.into_iter())
        .filter(|g| g.goal.record.origin.as_deref() == Some(url))
        .map(|g| *g.goal)
        .collect())
}

/// Adds the goal for `issue` and, with `intake.comment`, says so on it.
fn make(ctx: &Context, repo: &RepoRef, issue: &Issue, given: FromIssue) -> Result<Saved> {
    let request = request(ctx, repo, issue, given);
    let mut saved = super::add(ctx, &request)?;
    remember(ctx, &saved.goal.goal.id, &issue.url)?;
    if ctx.config.intake.comment {
        let body = format!(
            "steward tracks this issue as goal `{}`: {}",
            saved.goal.goal.label,
            criteria_line(&request.criteria)
        );
        if let Err(why) = comment(ctx, repo, issue.number, &body) {
            saved.notices.warnings.push(format!(
                "could not comment on {repo}#{}: {why}",
                issue.number
            ));
        }
    }
    Ok(saved)
}

fn criteria_line(criteria: &[String]) -> String {
    crate::text::count(criteria.len(), "criterion", "criteria")
}

/// The goal an issue asks for: its title, its body as the description
/// (task-list items taken out, lines that would change the goal file's
/// structure indented), its task-list items as the criteria (else one:
/// the issue is resolved), its labels mapped to a priority.
fn request(ctx: &Context, repo: &RepoRef, issue: &Issue, given: FromIssue) -> AddRequest {
    let (criteria, rest) = task_list(&issue.body);
    let criteria = if criteria.is_empty() {
        vec![format!(
            "{repo}#{} is resolved: {}",
            issue.number,
            crate::text::head(&issue.title, CRITERION_CHARS)
        )]
    } else {
        criteria
    };
    let description = description(&rest, &issue.url);
    AddRequest {
        label: given.label.unwrap_or_else(|| label_for(repo, issue.number)),
        title: if issue.title.is_empty() {
            format!("{repo}#{}", issue.number)
        } else {
            issue.title.clone()
        },
        description: Some(description),
        criteria,
        priority: given.priority.or_else(|| priority(ctx, &issue.labels)),
        checks: given.checks,
        max_dispatches: None,
        max_assessments: None,
        cooldown: None,
        escalate_after: None,
        bounds: Default::default(),
        confirmed: given.confirmed,
        tags: Vec::new(),
        record: crate::model::Record {
            origin: Some(issue.url.clone()),
            ..Default::default()
        },
    }
}

/// `REPO-N`, made a label: lower case, other characters `-`.
fn label_for(repo: &RepoRef, number: u64) -> String {
    let name: String = (repo.repo.chars())
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-' | '_') => c,
            _ => '-',
        })
        .collect();
    let name = name.trim_matches(['-', '_']);
    let name = &name[..name.len().min(50)];
    if name.is_empty() {
        format!("issue-{number}")
    } else {
        format!("{name}-{number}")
    }
}

/// The task-list items of `body` (`- [ ] text`, `- [x] text`) as criteria,
/// and the body without them.
fn task_list(body: &str) -> (Vec<String>, String) {
    let mut criteria = Vec::new();
    let mut rest = Vec::new();
    for line in body.lines() {
        let item = line.trim_start();
        let text = ["- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "* [x] ", "* [X] "]
            .iter()
            .find_map(|marker| item.strip_prefix(marker));
        match text.map(str::trim).filter(|t| !t.is_empty()) {
            Some(text) => criteria.push(crate::text::head(
                &crate::text::one_line(text),
                CRITERION_CHARS,
            )),
            None => rest.push(line),
        }
    }
    (criteria, rest.join("\n"))
}

/// The issue's body as a goal's description: capped, each line that would
/// start a heading or a code or HTML block indented, rules dropped, and
/// the issue's address last. Where it still would not do, the address
/// alone.
fn description(body: &str, url: &str) -> String {
    let tamed: Vec<String> = crate::text::head(body.trim(), DESCRIPTION_CHARS)
        .lines()
        .map(|line| {
            let start = line.trim_start();
            if !start.is_empty() && start.chars().all(|c| c == '-' || c == '=' || c == '*') {
                String::new()
            } else if ["#", "```", "~~~", "<"]
                .iter()
                .any(|m| start.starts_with(m))
            {
                format!("    {start}")
            } else {
                line.to_string()
            }
        })
        .collect();
    let from = format!("From the issue {url}");
    let text = format!("{}\n\n{from}", tamed.join("\n").trim());
    match crate::store::body::check_description(&text) {
        Ok(()) => text.trim().to_string(),
        Err(_) => from,
    }
}

/// The priority the issue's labels say, by `intake.*_labels`.
fn priority(ctx: &Context, labels: &[String]) -> Option<Priority> {
    let intake = &ctx.config.intake;
    let has = |list: &[String]| {
        labels
            .iter()
            .any(|l| list.iter().any(|w| w.eq_ignore_ascii_case(l)))
    };
    if has(&intake.critical_labels) {
        Some(Priority::Critical)
    } else if has(&intake.high_labels) {
        Some(Priority::High)
    } else if has(&intake.low_labels) {
        Some(Priority::Low)
    } else {
        None
    }
}

/// Comments `body` on issue `number`.
fn comment(
    ctx: &Context,
    repo: &RepoRef,
    number: u64,
    body: &str,
) -> std::result::Result<(), String> {
    let policy = super::checking::policy(ctx);
    let json = json!({ "body": body }).to_string();
    let send = Send {
        method: Method::Post,
        json: json.as_bytes(),
    };
    let path = format!("{}/issues/{number}/comments", repo.api_path());
    github::call(&policy, Some(send), &path, "no such issue").map(drop)
}

/// `state/issues.json`: where telling issues of their goals' ends stopped.
fn reports_path(ctx: &Context) -> std::path::PathBuf {
    ctx.store.state_dir.join("issues.json")
}

const REPORTS_HEADER: &str = "steward issue reports v1";

/// After a pass, outside its lock: tells each GitHub issue a goal was made
/// from here that the goal ended — completed (with the judge's receipt, and
/// closing the issue with `intake.close`), failed or abandoned — once. Done
/// by `tick`, not by `complete`: an agent's `complete` may run in a sandbox
/// with no network. Only the goals this machine made from issues are told,
/// each on the issue it was made from, as `state/issues.json` (signed with
/// this machine's key) remembers them: a goal an agent gave an issue's
/// address as its origin never makes steward comment there, nor close it.
/// An issue GitHub cannot be reached for is tried again next pass; one it
/// refuses is a warning, and the others go on. A store that never made a
/// goal from an issue reads and writes nothing.
pub fn report_ends(ctx: &Context) -> Result<Vec<String>> {
    // A person's pass (cron's), not an agent's `tick`.
    if ctx.actor != crate::model::Actor::User {
        return Ok(Vec::new());
    }
    let Some(mut reports) = read_reports(ctx) else {
        return Ok(Vec::new());
    };
    let log = ctx.store.log();
    let (was_part, was_pending) = (reports.cursor.part.clone(), reports.pending.len());
    let mut ends = std::mem::take(&mut reports.pending);
    reports.cursor = log.each_from(&reports.cursor, |event: Event| {
        let ended = matches!(
            event.to.as_deref(),
            Some("completed" | "failed" | "abandoned")
        );
        if ended && reports.goals.contains_key(&event.goal_id) {
            ends.push(event);
        }
    })?;
    // Nothing to tell, and the log read within the same part: the cursor
    // is kept as it was (re-read next pass), sparing a pass a write.
    if ends.is_empty() && was_pending == 0 && reports.cursor.part == was_part {
        return Ok(Vec::new());
    }
    let mut warnings = Vec::new();
    let mut tx = ctx.transaction()?;
    let mut ends = ends.into_iter();
    for event in ends.by_ref() {
        let Some(issue) =
            (reports.goals.get(&event.goal_id)).and_then(|address| issue_of_address(address))
        else {
            continue;
        };
        let Ok(loaded) = ctx.store.refind(&event.goal_id, &event.label) else {
            continue;
        };
        // The log line is anybody's to append: what is told is the goal
        // as steward wrote it, ended — never a line's word that it ended,
        // nor a file an agent changed.
        let goal = &loaded.goal;
        let steward_wrote = !matches!(ctx.store.trust_of(&loaded), crate::store::Trust::Outside(_));
        if !goal.status.is_terminal() || !steward_wrote {
            continue;
        }
        let told = format!("{}#{}", issue.repo, issue.number);
        match tell_end(ctx, &issue, goal) {
            Ok(unclosed) => {
                warnings.extend(unclosed);
                tx.record_store_event(
                    "issue_told",
                    &format!("{told}: goal {} {}", goal.label, goal.status),
                );
                reports.goals.remove(&event.goal_id);
            }
            Err(TellError::Unreached(why)) => {
                warnings.push(format!(
                    "could not tell {told} that goal {} ended: {why}; tried again next pass",
                    goal.label
                ));
                reports.pending.push(event);
                break;
            }
            Err(TellError::Refused(why)) => {
                warnings.push(format!(
                    "GitHub refused to be told on {told} that goal {} ended: {why}",
                    goal.label
                ));
                reports.goals.remove(&event.goal_id);
            }
        }
    }
    // What was not reached waits for the next pass, the newest kept.
    reports.pending.extend(ends);
    let excess = reports.pending.len().saturating_sub(PENDING_KEPT);
    reports.pending.drain(..excess);
    write_reports(ctx, &mut tx, &reports)?;
    warnings.extend(super::finish(tx)?.warnings);
    Ok(warnings)
}

/// `state/issues.json` as this machine wrote it; `None` when there is none
/// or it does not verify.
fn read_reports(ctx: &Context) -> Option<Reports> {
    let text = ctx.store.read_told(&reports_path(ctx), REPORTS_HEADER)?;
    serde_json::from_str(&text).ok()
}

fn write_reports(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    reports: &Reports,
) -> Result<()> {
    let document = serde_json::to_string(reports).expect("the reports serialize");
    let text = ctx.store.render_told(REPORTS_HEADER, &document);
    if crate::os::safe_file::read_state(&reports_path(ctx)).as_deref() != Some(text.as_str()) {
        tx.write_file(&reports_path(ctx), &text)?;
    }
    Ok(())
}

/// Remembers that goal `goal_id` was made from the issue at `address`, to
/// tell it how the goal ends; the first one starts reading the log at its
/// end.
fn remember(ctx: &Context, goal_id: &str, address: &str) -> Result<()> {
    let mut reports = match read_reports(ctx) {
        Some(reports) => reports,
        None => Reports {
            cursor: ctx.store.log().end()?,
            ..Reports::default()
        },
    };
    reports
        .goals
        .insert(goal_id.to_string(), address.to_string());
    let mut tx = ctx.transaction()?;
    write_reports(ctx, &mut tx, &reports)?;
    super::finish(tx).map(drop)
}

/// The most ends kept to tell when GitHub is out of reach.
const PENDING_KEPT: usize = 100;

/// `state/issues.json`: the goals made from issues here and their issues'
/// addresses, where reading the log for their ends stopped, and the ends
/// GitHub was not reached for.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Reports {
    cursor: crate::store::events::Cursor,
    #[serde(default)]
    pending: Vec<Event>,
    #[serde(default)]
    goals: std::collections::BTreeMap<String, String>,
}

/// Why an issue was not told.
enum TellError {
    /// GitHub was not reached, or failed (5xx): tried again.
    Unreached(String),
    /// GitHub answered no: not tried again.
    Refused(String),
}

impl From<String> for TellError {
    fn from(why: String) -> TellError {
        if why.starts_with("HTTP ") && !why.starts_with("HTTP 5")
            || why.starts_with("the GitHub API answered with bad JSON")
        {
            TellError::Refused(why)
        } else {
            TellError::Unreached(why)
        }
    }
}

/// The issue an `origin` names: `https://HOST/owner/repo/issues/N` (on
/// github.com or a GitHub Enterprise host).
fn issue_of_address(origin: &str) -> Option<IssueRef> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))?;
    let path = rest.split_once('/')?.1;
    let parts: Vec<&str> = path.split(['?', '#']).next()?.split('/').collect();
    match parts.as_slice() {
        [owner, repo, "issues", number, ..] => {
            IssueRef::parse(&format!("{owner}/{repo}#{number}")).ok()
        }
        _ => None,
    }
}

/// Comments on `issue` how `goal` ended, and closes it when it completed
/// and `intake.close` says so.
///
/// Told once the comment is in: a close GitHub refuses or cannot be asked
/// for then is a warning (`Ok(Some)`), not a reason to comment again.
fn tell_end(
    ctx: &Context,
    issue: &IssueRef,
    goal: &Goal,
) -> std::result::Result<Option<String>, TellError> {
    let body = end_comment(goal);
    comment(ctx, &issue.repo, issue.number, &body).map_err(TellError::from)?;
    if goal.status == crate::model::Status::Completed && ctx.config.intake.close {
        let policy = super::checking::policy(ctx);
        let json = json!({"state": "closed", "state_reason": "completed"}).to_string();
        let send = Send {
            method: Method::Patch,
            json: json.as_bytes(),
        };
        let path = format!("{}/issues/{}", issue.repo.api_path(), issue.number);
        if let Err(why) = github::call(&policy, Some(send), &path, "no such issue") {
            return Ok(Some(format!(
                "could not close {}#{} (it was told): {why}",
                issue.repo, issue.number
            )));
        }
    }
    Ok(None)
}

/// The comment that tells an issue how its goal ended.
fn end_comment(goal: &Goal) -> String {
    let mut text = format!(
        "steward: goal `{}` {} at {}: {}",
        goal.label,
        goal.status,
        goal.closed_at
            .map_or_else(|| "an unknown time".to_string(), crate::model::format_time),
        crate::text::one_line(goal.closed_reason.as_deref().unwrap_or("no reason given"))
    );
    if let Some(receipt) = &goal.receipt {
        text.push_str("\n\nThe judge's receipt:\n");
        for check in &receipt.checks {
            text.push_str(&format!(
                "\n- check `{} {}`: {} ({})",
                check.kind,
                check.target,
                check.result,
                crate::text::one_line(&check.detail)
            ));
        }
        for criterion in &goal.criteria {
            let mark = if criterion.met { "x" } else { " " };
            text.push_str(&format!("\n- [{mark}] {}", criterion.text));
        }
    }
    text
}

/// `text` for a query string: everything but unreserved characters
/// percent-encoded.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_list_items_become_criteria_and_leave_the_description() {
        let body = "Login drops the session.\n\n## Steps\n- [ ] the session survives a reload\n- [x] the test `test_login` passes\n* [ ]   \n---\n```\ntrace\n```";
        let (criteria, rest) = task_list(body);
        assert_eq!(
            criteria,
            [
                "the session survives a reload",
                "the test `test_login` passes"
            ]
        );
        let text = description(&rest, "https://github.com/acme/app/issues/7");
        assert!(
            text.starts_with("Login drops the session.\n\n    ## Steps"),
            "{text}"
        );
        assert!(
            text.ends_with("From the issue https://github.com/acme/app/issues/7"),
            "{text}"
        );
        assert!(crate::store::body::check_description(&text).is_ok());
    }

    #[test]
    fn labels_are_names_a_goal_can_have() {
        let repo = RepoRef::parse("acme/My.App_2").unwrap();
        assert_eq!(label_for(&repo, 42), "my-app_2-42");
        assert_eq!(percent_encode("good first issue"), "good%20first%20issue");
        assert_eq!(percent_encode("a&b=c"), "a%26b%3Dc");
    }
}
