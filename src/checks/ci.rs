//! `ci_green`: asks the GitHub REST API how CI went on a pull request's
//! head commit, a branch, a tag or a commit: the check runs
//! (`GET /repos/{owner}/{repo}/commits/{ref}/check-runs`) and the commit
//! statuses (`GET /repos/{owner}/{repo}/commits/{ref}/status`). Passes when
//! every one succeeded, fails with the names of the failing ones first and
//! then what they said, and is pending while any is queued or running.

use serde_json::Value;

use super::CheckOutcome;
use super::CheckPolicy;
use super::client::Response;
use super::github::{self, PullRef};
use super::text;

/// What CI is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CiTarget {
    /// A pull request: CI on its head commit.
    Pull(PullRef),
    /// A branch, tag or commit of `owner/repo`.
    Ref {
        owner: String,
        repo: String,
        reference: String,
    },
}

const EXPECTED: &str = "expected owner/repo#N (a pull request), owner/repo@REF (a branch, tag or commit) or https://github.com/owner/repo/pull/N";

/// The last lines of a check run's text carried into a failure.
const TEXT_LINES: usize = 5;

impl CiTarget {
    pub fn parse(target: &str) -> Result<CiTarget, String> {
        let invalid = |why: String| format!("invalid CI target `{target}`: {why}");
        match target.split_once('@') {
            Some((slug, reference)) if !target.contains("://") => {
                let (owner, repo) = slug
                    .split_once('/')
                    .ok_or(EXPECTED.to_string())
                    .map_err(invalid)?;
                Ok(CiTarget::Ref {
                    owner: github::owner_name(owner).map_err(invalid)?,
                    repo: github::repo_name(repo).map_err(invalid)?,
                    reference: reference_name(reference).map_err(invalid)?,
                })
            }
            _ => match PullRef::parse(target) {
                Ok(pull) => Ok(CiTarget::Pull(pull)),
                Err(_) => Err(invalid(EXPECTED.to_string())),
            },
        }
    }
}

/// A branch, tag or commit name git allows, spelled so that it stays one
/// segment of an API path: letters, digits, `.`, `_`, `-` and `/` (sent as
/// `%2F`), no `..`, no empty part, not ending in `.lock`.
fn reference_name(reference: &str) -> Result<String, String> {
    let valid = (1..=255).contains(&reference.len())
        && reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/'))
        && !reference.starts_with(['-', '.'])
        && !reference.contains("..")
        && reference
            .split('/')
            .all(|part| !part.is_empty() && !part.starts_with('.'))
        && !reference.ends_with(".lock");
    valid
        .then(|| reference.to_string())
        .ok_or_else(|| format!("`{reference}` is not a branch, tag or commit name"))
}

/// Asks the API. The token never reaches a detail: none is built from it,
/// and anything the server echoes back is scrubbed.
pub fn run(target: &CiTarget, policy: &CheckPolicy) -> CheckOutcome {
    let token = github::token(policy);
    let outcome = ask(target, policy, token);
    match token {
        Some(token) => outcome.map_text(|text| text.replace(token, "<redacted>")),
        None => outcome,
    }
}

fn ask(target: &CiTarget, policy: &CheckPolicy, token: Option<&str>) -> CheckOutcome {
    let commit = match commit_path(target, policy, token) {
        Ok(path) => path,
        Err(detail) => return CheckOutcome::failed(detail),
    };
    let get = |what: &str| -> Result<Value, String> {
        let response = github::api_get(policy, token, &format!("{commit}/{what}"))?;
        answer(&response, token.is_some())
    };
    let runs = match get("check-runs?per_page=100") {
        Ok(runs) => runs,
        Err(detail) => return CheckOutcome::failed(detail),
    };
    let statuses = match get("status?per_page=100") {
        Ok(statuses) => statuses,
        Err(detail) => return CheckOutcome::failed(detail),
    };
    let mut seen = Seen::default();
    seen.check_runs(&runs);
    seen.statuses(&statuses);
    seen.outcome()
}

/// `repos/{owner}/{repo}/commits/{ref}`, a pull request's head commit
/// asked for first.
fn commit_path(
    target: &CiTarget,
    policy: &CheckPolicy,
    token: Option<&str>,
) -> Result<String, String> {
    match target {
        CiTarget::Ref {
            owner,
            repo,
            reference,
        } => Ok(format!(
            "repos/{owner}/{repo}/commits/{}",
            reference.replace('/', "%2F")
        )),
        CiTarget::Pull(pull) => {
            let response = github::api_get(policy, token, &pull.api_path())?;
            if !(200..=299).contains(&response.status) {
                return Err(github::refusal(
                    &response,
                    token.is_some(),
                    "no such pull request",
                ));
            }
            let answer: Value = serde_json::from_slice(&response.body)
                .map_err(|err| format!("the GitHub API answered with bad JSON: {err}"))?;
            let sha = (answer.pointer("/head/sha").and_then(Value::as_str))
                .filter(|sha| sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or("the GitHub API's pull request has no head commit")?;
            Ok(format!("{}/commits/{sha}", pull.repo_path()))
        }
    }
}

fn answer(response: &Response, has_token: bool) -> Result<Value, String> {
    if !(200..=299).contains(&response.status) {
        return Err(github::refusal(
            response,
            has_token,
            "no such repository or commit",
        ));
    }
    serde_json::from_slice(&response.body)
        .map_err(|err| format!("the GitHub API answered with bad JSON: {err}"))
}

/// What the check runs and statuses said, by name.
#[derive(Debug, Default)]
struct Seen {
    passed: Vec<String>,
    running: Vec<String>,
    /// Name, then what it said.
    failing: Vec<(String, String)>,
}

impl Seen {
    /// The check runs, each name's latest run (the highest id) only: a
    /// run started again replaces the one before.
    fn check_runs(&mut self, answer: &Value) {
        let mut latest: Vec<(&str, u64, &Value)> = Vec::new();
        for run in (answer.get("check_runs").and_then(Value::as_array))
            .into_iter()
            .flatten()
        {
            let name = run
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("(unnamed)");
            let id = run.get("id").and_then(Value::as_u64).unwrap_or(0);
            match latest.iter_mut().find(|(n, _, _)| *n == name) {
                Some(entry) if entry.1 < id => *entry = (name, id, run),
                Some(_) => {}
                None => latest.push((name, id, run)),
            }
        }
        for (name, _, run) in latest {
            let field = |pointer: &str| run.pointer(pointer).and_then(Value::as_str);
            if field("/status") != Some("completed") {
                self.running.push(name.to_string());
                continue;
            }
            match field("/conclusion") {
                Some("success" | "neutral" | "skipped") => self.passed.push(name.to_string()),
                conclusion => {
                    let mut said = vec![conclusion.unwrap_or("no conclusion").to_string()];
                    said.extend(field("/output/title").map(str::to_string));
                    said.extend(field("/output/summary").map(str::to_string));
                    said.extend(field("/output/text").map(last_lines));
                    self.failing.push((name.to_string(), said.join(": ")));
                }
            }
        }
    }

    /// The commit statuses (the combined status lists each context's
    /// latest).
    fn statuses(&mut self, answer: &Value) {
        for status in (answer.get("statuses").and_then(Value::as_array))
            .into_iter()
            .flatten()
        {
            let field = |name: &str| status.get(name).and_then(Value::as_str);
            let name = field("context").unwrap_or("(unnamed)").to_string();
            match field("state") {
                Some("success") => self.passed.push(name),
                Some("pending") => self.running.push(name),
                state => {
                    let mut said = vec![state.unwrap_or("no state").to_string()];
                    said.extend(field("description").map(str::to_string));
                    self.failing.push((name, said.join(": ")));
                }
            }
        }
    }

    fn outcome(self) -> CheckOutcome {
        if !self.failing.is_empty() {
            // The names first, so that a capped detail still has them all.
            let names: Vec<&str> = self.failing.iter().map(|(n, _)| n.as_str()).collect();
            let said: Vec<String> = (self.failing.iter())
                .map(|(name, said)| format!("{name}: {}", text::one_line(said)))
                .collect();
            let running = if self.running.is_empty() {
                String::new()
            } else {
                format!(" (still running: {})", self.running.join(", "))
            };
            return CheckOutcome::failed(format!(
                "failing: {}{running} — {}",
                names.join(", "),
                said.join("; ")
            ));
        }
        if !self.running.is_empty() {
            return CheckOutcome::Pending {
                detail: format!(
                    "CI running: {} ({} of {} done)",
                    self.running.join(", "),
                    self.passed.len(),
                    self.passed.len() + self.running.len()
                ),
            };
        }
        match self.passed.len() {
            0 => CheckOutcome::failed("no CI results for this commit"),
            1 => CheckOutcome::passed(format!("CI green: {}", self.passed[0])),
            n => CheckOutcome::passed(format!("CI green: all {n} checks")),
        }
    }
}

/// The last lines of a check run's text (where a test runner leaves its
/// summary), joined.
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(TEXT_LINES)..].join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::{self, Server};

    const TOKEN: &str = "ghp_testtoken0123456789";
    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    fn json(body: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// Runs the check against `server`, which answers each request in
    /// turn, and makes sure the outcome does not give the token away.
    fn check(target: &str, answers: &[String]) -> (CheckOutcome, Vec<String>) {
        let server = Server::answering_each(answers);
        let policy = CheckPolicy {
            github_api: format!("http://{}/", server.address),
            github_token: Some(TOKEN.to_string()),
            ..testing::policy(std::path::Path::new("/nonexistent"))
        };
        let outcome = run(&CiTarget::parse(target).unwrap(), &policy);
        assert!(!format!("{outcome:?}").contains(TOKEN), "{outcome:?}");
        let requests = (0..answers.len()).map(|_| server.request()).collect();
        (outcome, requests)
    }

    fn runs(runs: &str) -> String {
        json(&format!(r#"{{"total_count": 2, "check_runs": [{runs}]}}"#))
    }

    fn statuses(statuses: &str) -> String {
        json(&format!(
            r#"{{"state": "pending", "sha": "{SHA}", "total_count": 1, "statuses": [{statuses}]}}"#
        ))
    }

    const GREEN_BUILD: &str = r#"{"id": 1, "name": "build", "status": "completed", "conclusion": "success", "output": {"title": null, "summary": null, "text": null}}"#;

    #[test]
    fn parses_pull_requests_and_refs() {
        assert!(matches!(
            CiTarget::parse("acme/widgets#7"),
            Ok(CiTarget::Pull(_))
        ));
        assert!(matches!(
            CiTarget::parse("https://github.com/acme/widgets/pull/7"),
            Ok(CiTarget::Pull(_))
        ));
        assert_eq!(
            CiTarget::parse("acme/widgets@feature/login"),
            Ok(CiTarget::Ref {
                owner: "acme".into(),
                repo: "widgets".into(),
                reference: "feature/login".into()
            })
        );
        for bad in [
            "acme/widgets",
            "acme/widgets@",
            "acme/widgets@../x",
            "acme/widgets@a//b",
            "acme/widgets@x?y",
            "acme/widgets@-x",
            "acme/widgets@main.lock",
            "acme@main",
            "a/b/c@main",
        ] {
            let err = CiTarget::parse(bad).unwrap_err();
            assert!(
                err.starts_with(&format!("invalid CI target `{bad}`")),
                "{err}"
            );
        }
    }

    #[test]
    fn a_pull_request_is_asked_about_its_head_commit() {
        let (outcome, requests) = check(
            "acme/widgets#7",
            &[
                json(&format!(
                    r#"{{"number": 7, "head": {{"sha": "{SHA}", "ref": "fix"}}}}"#
                )),
                runs(GREEN_BUILD),
                statuses(r#"{"context": "ci/lint", "state": "success", "description": "ok"}"#),
            ],
        );
        assert_eq!(outcome, CheckOutcome::passed("CI green: all 2 checks"));
        assert!(requests[0].starts_with("GET /repos/acme/widgets/pulls/7 HTTP/1.1\r\n"));
        assert!(
            requests[1].starts_with(&format!(
                "GET /repos/acme/widgets/commits/{SHA}/check-runs?per_page=100 HTTP/1.1\r\n"
            )),
            "{}",
            requests[1]
        );
        assert!(requests[2].starts_with(&format!(
            "GET /repos/acme/widgets/commits/{SHA}/status?per_page=100 HTTP/1.1\r\n"
        )));
        for request in &requests {
            let lower = request.to_ascii_lowercase();
            assert!(lower.contains(&format!(
                "authorization: bearer {}",
                TOKEN.to_ascii_lowercase()
            )));
            assert!(lower.contains("x-github-api-version: 2022-11-28"));
        }
    }

    #[test]
    fn failing_checks_are_named_first_then_what_they_said() {
        let failing = r#"{"id": 3, "name": "unit-tests", "status": "completed", "conclusion": "failure",
            "output": {"title": "2 tests failed", "summary": "test_login and test_logout failed",
                       "text": "running 12 tests\n\ntest_login ... FAILED\ntest_logout ... FAILED\n\nassertion failed: token is valid\nleft: 1\nright: 2\n"}}"#;
        let (outcome, requests) = check(
            "acme/widgets@feature/login",
            &[
                runs(&format!("{GREEN_BUILD}, {failing}")),
                statuses(
                    r#"{"context": "ci/lint", "state": "failure", "description": "3 warnings"}"#,
                ),
            ],
        );
        let CheckOutcome::Failed { detail } = outcome else {
            panic!("{outcome:?}");
        };
        assert!(
            detail.starts_with("failing: unit-tests, ci/lint — unit-tests: failure: 2 tests failed: test_login and test_logout failed: "),
            "{detail}"
        );
        assert!(
            detail.contains("assertion failed: token is valid / left: 1 / right: 2"),
            "{detail}"
        );
        assert!(detail.contains("ci/lint: failure: 3 warnings"), "{detail}");
        assert!(requests[0].starts_with(
            "GET /repos/acme/widgets/commits/feature%2Flogin/check-runs?per_page=100 HTTP/1.1\r\n"
        ));
    }

    #[test]
    fn running_checks_are_pending_and_a_rerun_replaces_the_run_before() {
        let (outcome, _) = check(
            "acme/widgets@main",
            &[
                runs(&format!(
                    r#"{GREEN_BUILD}, {{"id": 5, "name": "e2e", "status": "completed", "conclusion": "failure"}},
                       {{"id": 9, "name": "e2e", "status": "in_progress", "conclusion": null}}"#
                )),
                statuses(""),
            ],
        );
        assert_eq!(
            outcome,
            CheckOutcome::Pending {
                detail: "CI running: e2e (1 of 2 done)".into()
            }
        );
    }

    #[test]
    fn no_results_fail_and_refusals_say_why_without_the_token() {
        let (outcome, _) = check("acme/widgets@main", &[runs(""), statuses("")]);
        assert_eq!(
            outcome,
            CheckOutcome::failed("no CI results for this commit")
        );
        let echo = format!(r#"{{"message": "Bad credentials {TOKEN}"}}"#);
        let (outcome, _) = check(
            "acme/widgets@main",
            &[format!(
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{echo}",
                echo.len()
            )],
        );
        assert_eq!(
            outcome,
            CheckOutcome::failed("HTTP 401: Bad credentials <redacted>")
        );
        let (outcome, _) = check(
            "acme/widgets#7",
            &["HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}".to_string()],
        );
        assert_eq!(
            outcome,
            CheckOutcome::failed("HTTP 404: no such pull request, or the token cannot see it")
        );
    }
}
