//! `pr_merged`: asks the GitHub REST API whether a pull request was merged.

use serde_json::Value;

use super::client::{self, Get, Response};
use super::http;
use super::url::Url;
use super::{CheckOutcome, CheckPolicy};

const WEB_PREFIX: &str = "https://github.com/";
const EXPECTED: &str = "expected owner/repo#N or https://github.com/owner/repo/pull/N";
const API_VERSION: &str = "2022-11-28";

/// A pull request, spelled so that it can go into an API path as it is:
/// names hold no `/`, `..`, `%` or `?` that could point the request elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRef {
    owner: String,
    repo: String,
    number: u64,
}

impl PullRef {
    /// The API's path of the pull request.
    pub(super) fn api_path(&self) -> String {
        format!("{}/pulls/{}", self.repo_path(), self.number)
    }

    /// The API's path of the repository.
    pub(super) fn repo_path(&self) -> String {
        format!("repos/{}/{}", self.owner, self.repo)
    }

    /// Parses `owner/repo#N` or `https://github.com/owner/repo/pull/N`,
    /// the latter perhaps followed by `/files`, `#discussion_r1` and the like.
    pub fn parse(target: &str) -> Result<PullRef, String> {
        parse(target).map_err(|why| format!("invalid pull request `{target}`: {why}"))
    }
}

fn parse(target: &str) -> Result<PullRef, String> {
    let (owner, repo, number) = match web_path(target) {
        Some(path) => split_web_path(path),
        None => split_short(target),
    }
    .ok_or(EXPECTED)?;
    Ok(PullRef {
        owner: owner_name(owner)?,
        repo: repo_name(repo)?,
        number: number_of(number)?,
    })
}

/// What follows `https://github.com/`, if the target starts with it.
fn web_path(target: &str) -> Option<&str> {
    let prefix = target.get(..WEB_PREFIX.len())?;
    prefix
        .eq_ignore_ascii_case(WEB_PREFIX)
        .then(|| &target[WEB_PREFIX.len()..])
}

fn split_web_path(path: &str) -> Option<(&str, &str, &str)> {
    let mut parts = path.splitn(4, '/');
    let (owner, repo, "pull", rest) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?)
    else {
        return None;
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some((owner, repo, &rest[..end]))
}

fn split_short(target: &str) -> Option<(&str, &str, &str)> {
    let (slug, number) = target.split_once('#')?;
    let (owner, repo) = slug.split_once('/')?;
    Some((owner, repo, number))
}

/// A repository, `owner/repo`, spelled to go into an API path as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRef {
    pub owner: String,
    pub repo: String,
}

impl RepoRef {
    pub fn parse(target: &str) -> Result<RepoRef, String> {
        let invalid = |why: String| format!("invalid repository `{target}`: {why}");
        let (owner, repo) = target
            .split_once('/')
            .ok_or_else(|| invalid("expected owner/repo".to_string()))?;
        Ok(RepoRef {
            owner: owner_name(owner).map_err(invalid)?,
            repo: repo_name(repo).map_err(invalid)?,
        })
    }

    /// `repos/{owner}/{repo}`.
    pub fn api_path(&self) -> String {
        format!("repos/{}/{}", self.owner, self.repo)
    }
}

impl std::fmt::Display for RepoRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.repo)
    }
}

/// An issue: `owner/repo#N` or `https://github.com/owner/repo/issues/N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueRef {
    pub repo: RepoRef,
    pub number: u64,
}

impl IssueRef {
    pub fn parse(target: &str) -> Result<IssueRef, String> {
        const EXPECTED: &str = "expected owner/repo#N or https://github.com/owner/repo/issues/N";
        let invalid = |why: String| format!("invalid issue `{target}`: {why}");
        let (slug, number) = match web_path(target) {
            Some(path) => {
                let mut parts = path.splitn(4, '/');
                let (Some(owner), Some(repo), Some("issues"), Some(rest)) =
                    (parts.next(), parts.next(), parts.next(), parts.next())
                else {
                    return Err(invalid(EXPECTED.to_string()));
                };
                let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
                (format!("{owner}/{repo}"), &rest[..end])
            }
            None => {
                let (slug, number) = target
                    .split_once('#')
                    .ok_or_else(|| invalid(EXPECTED.to_string()))?;
                (slug.to_string(), number)
            }
        };
        Ok(IssueRef {
            repo: RepoRef::parse(&slug).map_err(&invalid)?,
            number: number_of(number)
                .map_err(|_| invalid(format!("`{number}` is not an issue number")))?,
        })
    }
}

/// GitHub user and organization names: letters, digits and `-`, up to 39.
pub(super) fn owner_name(owner: &str) -> Result<String, String> {
    let valid = (1..=39).contains(&owner.len())
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    valid
        .then(|| owner.to_string())
        .ok_or_else(|| format!("`{owner}` is not a GitHub user or organization name"))
}

/// GitHub repository names: letters, digits, `-`, `_` and `.`, up to 100,
/// but not `.` or `..`.
pub(super) fn repo_name(repo: &str) -> Result<String, String> {
    let valid = (1..=100).contains(&repo.len())
        && repo != "."
        && repo != ".."
        && repo
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    valid
        .then(|| repo.to_string())
        .ok_or_else(|| format!("`{repo}` is not a GitHub repository name"))
}

fn number_of(number: &str) -> Result<u64, String> {
    match number.parse::<u64>() {
        Ok(n) if n > 0 && number.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(format!("`{number}` is not a pull request number")),
    }
}

/// Asks the API about `pull`. The token never reaches a detail: no detail is
/// built from it, and anything the server echoes back is scrubbed.
pub fn run(pull: &PullRef, policy: &CheckPolicy) -> CheckOutcome {
    let token = token(policy);
    let outcome = ask(pull, policy, token);
    match token {
        Some(token) => outcome.map_text(|text| text.replace(token, "<redacted>")),
        None => outcome,
    }
}

fn ask(pull: &PullRef, policy: &CheckPolicy, token: Option<&str>) -> CheckOutcome {
    match api_get(policy, token, &pull.api_path()) {
        Ok(response) => judge(&response, token.is_some()),
        Err(detail) => CheckOutcome::failed(detail),
    }
}

/// Calls the GitHub REST API for steward's own acts (an issue read, a
/// comment, a pull request): `send` a JSON body (`None`: a GET) to
/// `{api}/{path}` with the token of [`CheckPolicy`]. The answer's JSON, or
/// why there is none, the token scrubbed from it.
pub(crate) fn call(
    policy: &CheckPolicy,
    send: Option<super::client::Send<'_>>,
    path: &str,
    missing: &str,
) -> Result<Value, String> {
    let token = token(policy);
    let answer = request(policy, token, path, send).and_then(|response| {
        if !(200..=299).contains(&response.status) {
            return Err(refusal(&response, token.is_some(), missing));
        }
        serde_json::from_slice(&response.body)
            .map_err(|err| format!("the GitHub API answered with bad JSON: {err}"))
    });
    answer.map_err(|why| match token {
        Some(token) => why.replace(token, "<redacted>"),
        None => why,
    })
}

/// GETs `{api}/{path}` from the GitHub REST API with `token`. A bad API
/// address is the operator's mistake, not the check's, so it fails rather
/// than invalidates.
pub(super) fn api_get(
    policy: &CheckPolicy,
    token: Option<&str>,
    path: &str,
) -> Result<Response, String> {
    request(policy, token, path, None)
}

fn request(
    policy: &CheckPolicy,
    token: Option<&str>,
    path: &str,
    send: Option<super::client::Send<'_>>,
) -> Result<Response, String> {
    let api = policy.github_api.trim_end_matches('/');
    let url = Url::parse(&format!("{api}/{path}"))
        .map_err(|err| format!("the GitHub API address does not work: {err}"))?;
    let authorization = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![
        ("Accept", "application/vnd.github+json"),
        ("X-GitHub-Api-Version", API_VERSION),
    ];
    if let Some(value) = &authorization {
        headers.push(("Authorization", value));
    }
    let get = Get {
        url: &url,
        headers: &headers,
        timeout: policy.http_timeout,
        // The API address comes from the operator's configuration, not from a
        // goal file, so the private-address rule does not apply to it.
        allow_private: true,
        read_body: true,
        send,
    };
    client::get(&get)
}

/// The token a check sends, if any.
pub(super) fn token(policy: &CheckPolicy) -> Option<&str> {
    policy
        .github_token
        .as_deref()
        .filter(|token| !token.is_empty())
}

/// What a refusal from the API says: its status, GitHub's message, and a
/// hint at the token for a 404 (GitHub answers 404 for what it hides).
pub(super) fn refusal(response: &Response, has_token: bool, missing: &str) -> String {
    match response.status {
        404 if has_token => format!("HTTP 404: {missing}, or the token cannot see it"),
        404 => format!("HTTP 404: {missing}, or no access (set GITHUB_TOKEN)"),
        status => {
            let status = http::status_text(status);
            match api_message(&response.body) {
                Some(message) => format!("{status}: {message}"),
                None => status,
            }
        }
    }
}

fn judge(response: &Response, has_token: bool) -> CheckOutcome {
    match response.status {
        200..=299 => merge_state(&response.body),
        _ => CheckOutcome::failed(refusal(response, has_token, "no such pull request")),
    }
}

fn merge_state(body: &[u8]) -> CheckOutcome {
    let answer: Value = match serde_json::from_slice(body) {
        Ok(answer) => answer,
        Err(err) => {
            return CheckOutcome::failed(format!("the GitHub API answered with bad JSON: {err}"));
        }
    };
    match answer.get("merged").and_then(Value::as_bool) {
        Some(true) => CheckOutcome::passed("merged"),
        Some(false) => {
            let state = answer
                .get("state")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            CheckOutcome::failed(format!("not merged (state: {state})"))
        }
        None => CheckOutcome::failed("the GitHub API answer has no `merged` field"),
    }
}

/// GitHub's explanation of an error, such as "Bad credentials".
pub(super) fn api_message(body: &[u8]) -> Option<String> {
    let answer: Value = serde_json::from_slice(body).ok()?;
    answer.get("message")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::{self, Server};

    const TOKEN: &str = "ghp_testtoken0123456789";

    fn pull(owner: &str, repo: &str, number: u64) -> PullRef {
        PullRef {
            owner: owner.into(),
            repo: repo.into(),
            number,
        }
    }

    fn failure(outcome: CheckOutcome) -> String {
        match outcome {
            CheckOutcome::Failed { detail } => detail,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    fn json_response(status: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// Runs the check against `server`, with the private-address rule in
    /// force, which the API address is exempt from, and makes sure the
    /// outcome does not give the token away.
    fn check(server: &Server, token: Option<&str>) -> CheckOutcome {
        let policy = CheckPolicy {
            github_api: format!("http://{}/", server.address),
            github_token: token.map(str::to_string),
            ..testing::policy(std::path::Path::new("/nonexistent"))
        };
        let outcome = run(&pull("acme", "widgets", 7), &policy);
        assert!(!format!("{outcome:?}").contains(TOKEN), "{outcome:?}");
        outcome
    }

    #[test]
    fn parses_the_short_form() {
        assert_eq!(
            PullRef::parse("acme/widgets#7"),
            Ok(pull("acme", "widgets", 7))
        );
        assert_eq!(
            PullRef::parse("a-b/c.d_e-f#123"),
            Ok(pull("a-b", "c.d_e-f", 123))
        );
    }

    #[test]
    fn parses_pull_request_addresses() {
        for target in [
            "https://github.com/acme/widgets/pull/7",
            "https://github.com/acme/widgets/pull/7/",
            "https://github.com/acme/widgets/pull/7/files",
            "https://github.com/acme/widgets/pull/7#issuecomment-1",
            "https://github.com/acme/widgets/pull/7?w=1",
            "HTTPS://GitHub.com/acme/widgets/pull/7",
        ] {
            assert_eq!(
                PullRef::parse(target),
                Ok(pull("acme", "widgets", 7)),
                "{target}"
            );
        }
    }

    #[test]
    fn refuses_anything_else() {
        let cases = [
            ("acme/widgets", EXPECTED),
            ("widgets#7", EXPECTED),
            ("https://github.com/acme/widgets/issues/7", EXPECTED),
            ("https://github.com/acme/widgets", EXPECTED),
            ("https://gitlab.com/acme/widgets/pull/7", EXPECTED),
            ("acme/widgets#", "`` is not a pull request number"),
            ("acme/widgets#0", "`0` is not a pull request number"),
            ("acme/widgets#+7", "`+7` is not a pull request number"),
            ("acme/widgets#7x", "`7x` is not a pull request number"),
            (
                "https://github.com/acme/widgets/pull/",
                "`` is not a pull request number",
            ),
            (
                "https://github.com/acme/widgets/pull/7x",
                "`7x` is not a pull request number",
            ),
            (
                "../widgets#7",
                "`..` is not a GitHub user or organization name",
            ),
            ("acme/..#7", "`..` is not a GitHub repository name"),
            (
                "acme/wid/gets#7",
                "`wid/gets` is not a GitHub repository name",
            ),
            (
                "acme/wid%2fgets#7",
                "`wid%2fgets` is not a GitHub repository name",
            ),
            ("/widgets#7", "`` is not a GitHub user or organization name"),
        ];
        for (target, why) in cases {
            assert_eq!(
                PullRef::parse(target),
                Err(format!("invalid pull request `{target}`: {why}")),
                "{target}"
            );
        }
    }

    #[test]
    fn a_merged_pull_request_passes_and_the_request_is_as_github_wants_it() {
        let server = Server::answering(&json_response(
            "200 OK",
            r#"{"state":"closed","merged":true}"#,
        ));
        assert_eq!(check(&server, Some(TOKEN)), CheckOutcome::passed("merged"));
        let request = server.request();
        assert!(
            request.starts_with("GET /repos/acme/widgets/pulls/7 HTTP/1.1\r\n"),
            "{request}"
        );
        // Header names are case-insensitive; the values are as sent.
        let lowered_names: String = request
            .lines()
            .map(|line| match line.split_once(": ") {
                Some((name, value)) => format!("{}: {value}\r\n", name.to_lowercase()),
                None => format!("{line}\r\n"),
            })
            .collect();
        for header in [
            format!("authorization: Bearer {TOKEN}\r\n"),
            "accept: application/vnd.github+json\r\n".to_string(),
            "x-github-api-version: 2022-11-28\r\n".to_string(),
            "user-agent: steward\r\n".to_string(),
        ] {
            assert!(
                lowered_names.contains(&header),
                "missing {header:?} in {request}"
            );
        }
    }

    #[test]
    fn no_authorization_is_sent_without_a_token() {
        let server = Server::answering(&json_response(
            "200 OK",
            r#"{"state":"closed","merged":true}"#,
        ));
        assert_eq!(check(&server, None), CheckOutcome::passed("merged"));
        assert!(!server.request().contains("Authorization"));
    }

    #[test]
    fn an_open_pull_request_fails_with_its_state() {
        let body = r#"{"state":"open","merged":false,"title":"Add widgets"}"#;
        let chunked = format!(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
            body.len()
        );
        let server = Server::answering(&chunked);
        assert_eq!(
            check(&server, None),
            CheckOutcome::failed("not merged (state: open)")
        );
    }

    #[test]
    fn a_missing_pull_request_hints_at_the_token() {
        let body = r#"{"message":"Not Found"}"#;
        let server = Server::answering(&json_response("404 Not Found", body));
        assert_eq!(
            check(&server, None),
            CheckOutcome::failed("HTTP 404: no such pull request, or no access (set GITHUB_TOKEN)")
        );
        let server = Server::answering(&json_response("404 Not Found", body));
        assert_eq!(
            check(&server, Some(TOKEN)),
            CheckOutcome::failed("HTTP 404: no such pull request, or the token cannot see it")
        );
    }

    #[test]
    fn refusals_quote_github_and_never_the_token() {
        let body = format!(r#"{{"message":"Bad credentials: {TOKEN} was revoked"}}"#);
        let server = Server::answering(&json_response("401 Unauthorized", &body));
        let outcome = check(&server, Some(TOKEN));
        assert_eq!(
            outcome,
            CheckOutcome::failed("HTTP 401: Bad credentials: <redacted> was revoked")
        );
        let server = Server::answering(&json_response("403 Forbidden", "not json"));
        assert_eq!(
            check(&server, Some(TOKEN)),
            CheckOutcome::failed("HTTP 403")
        );
    }

    #[test]
    fn odd_answers_fail_plainly() {
        let server = Server::answering(&json_response("200 OK", "[]"));
        assert_eq!(
            check(&server, None),
            CheckOutcome::failed("the GitHub API answer has no `merged` field")
        );
        let server = Server::answering(&json_response("200 OK", "<html>"));
        let detail = failure(check(&server, None));
        assert!(
            detail.starts_with("the GitHub API answered with bad JSON: "),
            "{detail}"
        );
        let server = Server::answering(&json_response(
            "502 Bad Gateway",
            r#"{"message":"Server Error"}"#,
        ));
        assert_eq!(
            check(&server, None),
            CheckOutcome::failed("HTTP 502: Server Error")
        );
    }

    #[test]
    fn a_bad_api_address_is_the_operators_problem_not_the_checks() {
        let policy = CheckPolicy {
            github_api: "ftp://example.com".to_string(),
            ..testing::policy(std::path::Path::new("/nonexistent"))
        };
        let detail = failure(run(&pull("acme", "widgets", 7), &policy));
        assert!(
            detail.starts_with("the GitHub API address does not work: "),
            "{detail}"
        );
    }
}
