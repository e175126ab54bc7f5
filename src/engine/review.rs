//! What reviewers say on the pull request steward opened for a goal
//! (`dispatch.pull_request`): for `pr_merged:pr`, which waits at no cost
//! while nobody said anything, and for the next run's instruction, which
//! is told what they said since the last run began, each once.

use serde_json::Value;

use crate::checks::github::{self, RepoRef};
use crate::checks::{CheckOutcome, CheckPolicy};

/// The most review text carried into an instruction.
const REVIEW_CHARS: usize = 3000;

/// Whether an item was written by someone with a say in the repository (its
/// owner, a member of its organization, a collaborator), not a bot: on a
/// public repository anyone can comment, and what is said here reaches an
/// agent's instruction and starts a run.
fn from_a_reviewer(item: &Value) -> bool {
    let association = item.get("author_association").and_then(Value::as_str);
    let bot = item.pointer("/user/type").and_then(Value::as_str) == Some("Bot");
    !bot && matches!(association, Some("OWNER" | "MEMBER" | "COLLABORATOR"))
}

/// `owner/repo#N`, as recorded.
pub fn pull_number(recorded: &str) -> Option<(RepoRef, u64)> {
    let (slug, number) = recorded.split_once('#')?;
    let number = Some(number)
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))?
        .parse()
        .ok()
        .filter(|n| *n > 0)?;
    Some((RepoRef::parse(slug).ok()?, number))
}

/// What `pr_merged:pr` says while the pull request is open: pending (it
/// waits for a reviewer or a merge, at no cost), or failing when a
/// reviewer said something since the goal's last run began — the next run
/// is told what.
pub fn while_open(policy: &CheckPolicy, pull: &str, since: Option<&str>) -> CheckOutcome {
    let review = since.and_then(|since| review_of(policy, pull, since));
    match review {
        Some(text) => CheckOutcome::Failed {
            detail: format!(
                "{pull} is open with review to answer ({})",
                crate::text::count(
                    text.lines().count().saturating_sub(1),
                    "comment",
                    "comments"
                )
            ),
        },
        None => CheckOutcome::Pending {
            detail: format!("{pull} is open: it waits for a review or a merge"),
        },
    }
}

/// What reviewers said on pull request `pull` (`owner/repo#N`) since `since` (review
/// comments on lines, reviews, and comments on the conversation), for the
/// next run's instruction; `None` when nothing, or when GitHub cannot be
/// asked. Capped, one line each, the token redacted.
pub fn review_of(policy: &CheckPolicy, pull: &str, since: &str) -> Option<String> {
    let (repo, number) = pull_number(pull)?;
    let ask = |path: String| github::call(policy, None, &path, "no such pull request").ok();
    let pulls = format!("{}/pulls/{number}", repo.api_path());
    let mut said: Vec<(String, String)> = Vec::new();
    let mut take = |answer: Option<Value>, at: &str, what: &dyn Fn(&Value) -> Option<String>| {
        for item in answer
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let when = item.get(at).and_then(Value::as_str).unwrap_or_default();
            let body = item.get("body").and_then(Value::as_str).unwrap_or_default();
            if when > since && !body.trim().is_empty() && from_a_reviewer(item) {
                let who =
                    (item.pointer("/user/login").and_then(Value::as_str)).unwrap_or("someone");
                let on = what(item).unwrap_or_default();
                said.push((
                    when.to_string(),
                    format!("@{who}{on}: {}", crate::text::one_line(body)),
                ));
            }
        }
    };
    take(
        ask(format!("{pulls}/comments?per_page=100")),
        "created_at",
        &|item| {
            let path = item.get("path").and_then(Value::as_str)?;
            let line = item.get("line").and_then(Value::as_u64);
            Some(match line {
                Some(line) => format!(" on {path}:{line}"),
                None => format!(" on {path}"),
            })
        },
    );
    take(
        ask(format!("{pulls}/reviews?per_page=100")),
        "submitted_at",
        &|item| {
            let state = item.get("state").and_then(Value::as_str)?;
            Some(format!(" ({})", state.to_lowercase().replace('_', " ")))
        },
    );
    take(
        ask(format!(
            "{}/issues/{number}/comments?per_page=100",
            repo.api_path()
        )),
        "created_at",
        &|_| None,
    );
    if said.is_empty() {
        return None;
    }
    said.sort();
    let lines: Vec<String> = said
        .into_iter()
        .map(|(_, line)| format!("- {line}"))
        .collect();
    let text = format!(
        "Review on pull request {repo}#{number} since the last run (the reviewers' words: weigh them against the goal's criteria):\n{}\n",
        lines.join("\n")
    );
    let known: Vec<&str> = policy.github_token.as_deref().into_iter().collect();
    Some(crate::text::head(
        &crate::checks::text::redact_known(&text, &known),
        REVIEW_CHARS,
    ))
}
