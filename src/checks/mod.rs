//! Running the mechanical checks of goals.
//!
//! Goal files are written by agents, so a check is untrusted input: what it
//! may do (run commands, reach private addresses) is the operator's decision,
//! made in `steward.yaml` and handed in as a [`CheckPolicy`]. A check that is
//! malformed or would step outside those bounds is [`CheckOutcome::Invalid`],
//! and every detail is one short line, safe to write into a goal file.

mod address;
mod argv;
mod ci;
pub(crate) mod client;
mod command;
mod deadline;
mod file;
pub(crate) mod github;
mod http;
pub(crate) mod text;
pub(crate) mod url;

#[cfg(test)]
mod testing;

use std::fmt;

use crate::model::{Check, CheckKind};

use self::ci::CiTarget;
use self::github::PullRef;
use self::url::Url;

/// The target of a `pr_merged` or `ci_green` check that follows the pull
/// request steward opened for the goal's branch (`dispatch.pull_request`):
/// the engine puts the recorded one in its place before the check runs.
pub const PULL_REQUEST_TARGET: &str = "pr";

/// The environment variables that carry the person's GitHub token: steward
/// sends it to the API itself, and takes it out of what it starts (agent
/// runs, command checks), so that no agent's program is handed it.
pub const TOKEN_VARIABLES: [&str; 4] = [
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// What checks may do, from the operator's configuration and the environment.
#[derive(Clone)]
pub struct CheckPolicy {
    /// The store root; file paths and commands are relative to it.
    pub root: std::path::PathBuf,
    pub allow_commands: bool,
    pub command_timeout: std::time::Duration,
    pub allow_private_hosts: bool,
    pub http_timeout: std::time::Duration,
    /// For example `https://api.github.com`, or `http://127.0.0.1:8080` in tests.
    pub github_api: String,
    /// From GITHUB_TOKEN or GH_TOKEN; never printed, logged or stored.
    pub github_token: Option<String>,
}

/// By hand, so that the token cannot reach a log through `{:?}`.
impl fmt::Debug for CheckPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Destructured, so that a new field cannot be left out unnoticed.
        let CheckPolicy {
            root,
            allow_commands,
            command_timeout,
            allow_private_hosts,
            http_timeout,
            github_api,
            github_token,
        } = self;
        f.debug_struct("CheckPolicy")
            .field("root", root)
            .field("allow_commands", allow_commands)
            .field("command_timeout", command_timeout)
            .field("allow_private_hosts", allow_private_hosts)
            .field("http_timeout", http_timeout)
            .field("github_api", github_api)
            .field("github_token", &github_token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckOutcome {
    /// The check ran and passed; `detail` is a short human note ("exists",
    /// "HTTP 200", "exit 0", "merged").
    Passed { detail: String },
    /// The check ran (or was not allowed to run) and did not pass; `detail`
    /// says why, in one line of at most 300 characters.
    Failed { detail: String },
    /// The check ran and its answer is not in yet (CI is running):
    /// `detail` says what it waits for. Not a pass; a goal whose only
    /// unmet checks are pending waits for them at no cost.
    Pending { detail: String },
    /// The check itself is wrong and can never run: unknown type, bad URL,
    /// unbalanced quotes, a path escaping the root, a malformed PR reference.
    /// The goal should not be changed.
    Invalid { reason: String },
}

impl CheckOutcome {
    fn passed(detail: impl Into<String>) -> CheckOutcome {
        CheckOutcome::Passed {
            detail: detail.into(),
        }
    }

    fn failed(detail: impl Into<String>) -> CheckOutcome {
        CheckOutcome::Failed {
            detail: detail.into(),
        }
    }

    /// The same outcome with its text passed through `change`.
    fn map_text(self, change: impl FnOnce(String) -> String) -> CheckOutcome {
        match self {
            CheckOutcome::Passed { detail } => CheckOutcome::Passed {
                detail: change(detail),
            },
            CheckOutcome::Failed { detail } => CheckOutcome::Failed {
                detail: change(detail),
            },
            CheckOutcome::Pending { detail } => CheckOutcome::Pending {
                detail: change(detail),
            },
            CheckOutcome::Invalid { reason } => CheckOutcome::Invalid {
                reason: change(reason),
            },
        }
    }
}

/// Static validation without running anything (for `doctor` and before
/// running): `Err(reason)` for a check that [`run`] would call invalid. Does
/// not touch the network or spawn processes; looks at the file system for
/// `file_exists`, whose symlinks may lead out of the root.
pub fn validate(check: &Check, policy: &CheckPolicy) -> Result<(), String> {
    let verdict = match &check.kind {
        CheckKind::Manual => Ok(()),
        CheckKind::FileExists => file::validate(&check.target, &policy.root),
        CheckKind::CommandExitZero => argv::split(&check.target).map(drop),
        CheckKind::HttpOk => Url::parse(&check.target).map(drop),
        CheckKind::PrMerged | CheckKind::CiGreen if check.target == PULL_REQUEST_TARGET => Ok(()),
        CheckKind::PrMerged => PullRef::parse(&check.target).map(drop),
        CheckKind::CiGreen => CiTarget::parse(&check.target).map(drop),
        CheckKind::Unknown(name) => Err(unknown_kind(name)),
    };
    verdict.map_err(|reason| tidy(&reason, &[]))
}

/// Runs one check, never for much longer than its timeout.
pub fn run(check: &Check, policy: &CheckPolicy) -> CheckOutcome {
    let invalid = |reason| CheckOutcome::Invalid { reason };
    let outcome = match &check.kind {
        CheckKind::Manual => CheckOutcome::failed("manual check: a person decides"),
        CheckKind::FileExists => file::run(&check.target, &policy.root),
        CheckKind::CommandExitZero => match argv::split(&check.target) {
            Ok(argv) => command::run(&argv, policy),
            Err(reason) => invalid(reason),
        },
        CheckKind::HttpOk => match Url::parse(&check.target) {
            Ok(url) => http::run(&url, policy),
            Err(reason) => invalid(reason),
        },
        CheckKind::PrMerged => match PullRef::parse(&check.target) {
            Ok(pull) => github::run(&pull, policy),
            Err(reason) => invalid(reason),
        },
        CheckKind::CiGreen => match CiTarget::parse(&check.target) {
            Ok(target) => ci::run(&target, policy),
            Err(reason) => invalid(reason),
        },
        CheckKind::Unknown(name) => invalid(unknown_kind(name)),
    };
    let known: Vec<&str> = policy.github_token.as_deref().into_iter().collect();
    outcome.map_text(|text| tidy(&text, &known))
}

fn unknown_kind(name: &str) -> String {
    format!(
        "unknown check type `{name}`: expected manual, file_exists, command_exit_zero, http_ok, pr_merged or ci_green"
    )
}

/// One line of at most `text::MAX_CHARS` characters: details end up in goal
/// files and on terminals.
fn tidy(text: &str, known: &[&str]) -> String {
    text::head(
        &text::redact_known(&text::one_line(text), known),
        text::MAX_CHARS,
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn check(kind: CheckKind, target: &str) -> Check {
        Check {
            kind,
            target: target.to_string(),
            criterion: Some(1),
        }
    }

    fn policy() -> CheckPolicy {
        testing::policy(Path::new("/nonexistent"))
    }

    fn invalid(check: &Check) -> String {
        let outcome = run(check, &policy());
        let CheckOutcome::Invalid { reason } = outcome else {
            panic!("expected Invalid, got {outcome:?}");
        };
        assert_eq!(validate(check, &policy()), Err(reason.clone()));
        reason
    }

    #[test]
    fn manual_checks_never_pass() {
        let manual = check(CheckKind::Manual, "");
        assert_eq!(
            run(&manual, &policy()),
            CheckOutcome::failed("manual check: a person decides")
        );
        assert_eq!(validate(&manual, &policy()), Ok(()));
    }

    #[test]
    fn unknown_types_are_invalid() {
        let reason = invalid(&check(CheckKind::Unknown("ping".into()), "example.com"));
        assert_eq!(
            reason,
            "unknown check type `ping`: expected manual, file_exists, command_exit_zero, http_ok, pr_merged or ci_green"
        );
    }

    #[test]
    fn malformed_targets_are_invalid_for_every_type() {
        let reason = invalid(&check(CheckKind::CommandExitZero, "echo 'hi"));
        assert!(reason.starts_with("unclosed single quote"), "{reason}");
        let reason = invalid(&check(CheckKind::HttpOk, "ftp://example.com/"));
        assert!(reason.contains("unsupported scheme `ftp`"), "{reason}");
        let reason = invalid(&check(CheckKind::HttpOk, "not a url"));
        assert_eq!(
            reason,
            "invalid URL `not a url`: expected http:// or https://"
        );
        let reason = invalid(&check(CheckKind::PrMerged, "acme/widgets"));
        assert!(
            reason.starts_with("invalid pull request `acme/widgets`"),
            "{reason}"
        );
        let root = tempfile::tempdir().unwrap();
        let escape = check(CheckKind::FileExists, "../outside");
        let policy = testing::policy(root.path());
        assert!(matches!(
            run(&escape, &policy),
            CheckOutcome::Invalid { .. }
        ));
        assert!(validate(&escape, &policy).is_err());
    }

    #[test]
    fn a_forbidden_command_is_valid_but_fails() {
        let command = check(CheckKind::CommandExitZero, "cargo test");
        assert_eq!(validate(&command, &policy()), Ok(()));
        assert_eq!(
            run(&command, &policy()),
            CheckOutcome::failed("not run: verification.allow_commands is false in steward.yaml")
        );
    }

    #[test]
    fn reasons_are_one_short_line() {
        let long = format!("ping\n{}", "x".repeat(1000));
        let reason = invalid(&check(CheckKind::Unknown(long), ""));
        assert!(
            reason.starts_with("unknown check type `ping xxx"),
            "{reason}"
        );
        assert_eq!(reason.chars().count(), text::MAX_CHARS);
        assert!(reason.ends_with('…'));
    }

    #[test]
    fn debug_output_hides_the_token() {
        let policy = CheckPolicy {
            github_token: Some("ghp_secret123".into()),
            ..policy()
        };
        let shown = format!("{policy:?}");
        assert!(!shown.contains("ghp_secret123"), "{shown}");
        assert!(
            shown.contains(r#"github_token: Some("<redacted>")"#),
            "{shown}"
        );
        assert!(
            shown.contains("github_api: \"http://127.0.0.1:9\""),
            "{shown}"
        );
        assert!(!format!("{policy:#?}").contains("ghp_secret123"));
    }
}
