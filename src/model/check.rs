//! Mechanical verification checks attached to a goal.

use std::fmt;

/// The kinds of check a goal can carry; an unknown kind is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckKind {
    Manual,
    FileExists,
    CommandExitZero,
    HttpOk,
    PrMerged,
    CiGreen,
    Unknown(String),
}

impl CheckKind {
    pub const NAMES: [&'static str; 6] = [
        "manual",
        "file_exists",
        "command_exit_zero",
        "http_ok",
        "pr_merged",
        "ci_green",
    ];

    pub fn parse(text: &str) -> CheckKind {
        match text {
            "manual" => CheckKind::Manual,
            "file_exists" => CheckKind::FileExists,
            "command_exit_zero" => CheckKind::CommandExitZero,
            "http_ok" => CheckKind::HttpOk,
            "pr_merged" => CheckKind::PrMerged,
            "ci_green" => CheckKind::CiGreen,
            other => CheckKind::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            CheckKind::Manual => "manual",
            CheckKind::FileExists => "file_exists",
            CheckKind::CommandExitZero => "command_exit_zero",
            CheckKind::HttpOk => "http_ok",
            CheckKind::PrMerged => "pr_merged",
            CheckKind::CiGreen => "ci_green",
            CheckKind::Unknown(text) => text,
        }
    }
}

impl fmt::Display for CheckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One check: what to test and, optionally, the criterion it proves.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    pub target: String,
    pub criterion: Option<usize>,
}

impl Check {
    /// Parses `TYPE:TARGET[@N]`: split at the first `:`, a trailing `@N` names
    /// the criterion.
    pub fn parse_spec(spec: &str) -> Result<Check, String> {
        let (kind, rest) = spec.split_once(':').ok_or_else(|| {
            format!("invalid check `{spec}`: expected TYPE:TARGET[@N], for example file_exists:dist/app.tar.gz@2")
        })?;
        let kind = match CheckKind::parse(kind.trim()) {
            CheckKind::Unknown(name) => {
                return Err(format!(
                    "unknown check type `{name}` in `{spec}`: expected one of {}",
                    CheckKind::NAMES.join(", ")
                ));
            }
            kind => kind,
        };
        let (target, criterion) = match rest.rsplit_once('@') {
            Some((target, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                let n: usize = n
                    .parse()
                    .map_err(|_| format!("criterion number `{n}` in `{spec}` is too large"))?;
                if n == 0 {
                    return Err(format!("criteria are numbered from 1, not 0, in `{spec}`"));
                }
                (target, Some(n))
            }
            _ => (rest, None),
        };
        let target = target.trim();
        if target.is_empty() && kind != CheckKind::Manual {
            return Err(format!("check `{spec}` has no target"));
        }
        Ok(Check {
            kind,
            target: target.to_string(),
            criterion,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_first_colon_and_takes_trailing_criterion() {
        let check = Check::parse_spec("http_ok:https://example.com:8443/health@2").unwrap();
        assert_eq!(check.kind, CheckKind::HttpOk);
        assert_eq!(check.target, "https://example.com:8443/health");
        assert_eq!(check.criterion, Some(2));
    }

    #[test]
    fn keeps_at_signs_that_are_not_a_criterion() {
        let check = Check::parse_spec("command_exit_zero:git log @{u}").unwrap();
        assert_eq!(check.target, "git log @{u}");
        assert_eq!(check.criterion, None);
    }

    #[test]
    fn refuses_unknown_types_missing_targets_and_zero() {
        assert!(Check::parse_spec("ping:host").is_err());
        assert!(Check::parse_spec("file_exists:").is_err());
        assert!(Check::parse_spec("file_exists").is_err());
        assert!(Check::parse_spec("file_exists:x@0").is_err());
    }
}
