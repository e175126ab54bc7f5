//! The exit codes, in one place: every command's outcome and every error
//! kind becomes one of these, and the table in steward-reference(5),
//! "EXIT CODES", and steward(1)'s EXIT STATUS are tested against
//! [`ExitCode::ALL`].

use std::fmt;

/// What a steward process tells its caller by its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Done; for `tick`: nothing needs a person.
    Success,
    /// An error (I/O, an unreadable file, not found, git, a check that
    /// cannot run), or a command that found problems (`doctor`, `mirror
    /// --check`, `show --exit-status` of a closed goal).
    Failure,
    /// A bad option or value.
    Usage,
    /// Something needs a person: `tick`, `assess` past a bound, `show
    /// --exit-status` of an open goal, `prompt --exit-status`, `sync`.
    Attention,
    /// Refused by a rule; nothing changed.
    Refused,
    /// `prompt --exit-status`: nothing to do now.
    Idle,
    /// The store is locked by another run past `--lock-timeout`.
    Locked,
}

impl ExitCode {
    /// Every exit code, in the order of their numbers.
    pub const ALL: [ExitCode; 7] = [
        ExitCode::Success,
        ExitCode::Failure,
        ExitCode::Usage,
        ExitCode::Attention,
        ExitCode::Refused,
        ExitCode::Idle,
        ExitCode::Locked,
    ];

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::Failure => 1,
            ExitCode::Usage => 2,
            ExitCode::Attention => 3,
            ExitCode::Refused => 4,
            ExitCode::Idle => 5,
            // sysexits' EX_TEMPFAIL: try again later.
            ExitCode::Locked => 75,
        }
    }

    /// [`ExitCode::Failure`] when `failed`, else [`ExitCode::Success`].
    pub fn failure_if(failed: bool) -> ExitCode {
        if failed {
            ExitCode::Failure
        } else {
            ExitCode::Success
        }
    }
}

impl fmt::Display for ExitCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

/// Tests and callers may compare with the documented number.
impl PartialEq<u8> for ExitCode {
    fn eq(&self, other: &u8) -> bool {
        self.code() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::ExitCode;

    /// The codes a document's EXIT CODES table lists, in its order.
    fn table_codes(markdown: &str) -> Vec<u8> {
        let section = &markdown[markdown
            .find("## EXIT CODES")
            .expect("an EXIT CODES section")..];
        section
            .lines()
            .skip_while(|line| !line.starts_with("| code"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|line| line.split('|').nth(1).unwrap().trim().parse().unwrap())
            .collect()
    }

    #[test]
    fn the_documents_list_exactly_these_codes() {
        let all: Vec<u8> = ExitCode::ALL.iter().map(|c| c.code()).collect();
        let reference = include_str!("../man/steward-reference.5.md");
        assert_eq!(
            table_codes(reference),
            all,
            "steward-reference(5), EXIT CODES"
        );
        // steward(1)'s EXIT STATUS: one sentence a code, each starting
        // with its number.
        let page = include_str!("../man/steward.1");
        let status = &page[page.find(".SH \"EXIT STATUS\"").unwrap()..];
        let status = &status[..status[1..].find(".SH").unwrap()];
        for code in &all {
            assert!(
                status.contains(&format!("{code} ")),
                "steward(1) EXIT STATUS does not say what {code} means"
            );
        }
        let text = status.split_once(".PP\n").expect("a paragraph").1;
        let listed = text
            .split(". ")
            .filter_map(|sentence| sentence.split(' ').next())
            .filter_map(|word| word.parse::<u8>().ok())
            .count();
        assert_eq!(
            listed,
            all.len(),
            "steward(1) EXIT STATUS lists other codes"
        );
    }

    #[test]
    fn the_numbers_are_distinct_and_in_order() {
        let codes: Vec<u8> = ExitCode::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 4, 5, 75]);
    }
}
