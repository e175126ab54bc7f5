//! Splitting a command line into words the way a POSIX shell quotes them,
//! without a shell: a goal file cannot expand variables, glob, pipe or
//! redirect, because `$`, `*`, `|`, `>` and `#` are plain characters here.

use std::iter::{Enumerate, Peekable};
use std::str::Chars;

/// Characters of the line with their 1-based positions, for error messages.
type Cursor<'a> = Peekable<Enumerate<Chars<'a>>>;

/// Splits `line` into argv. Single quotes keep everything literally; double
/// quotes keep everything but `\"`, `\\`, `\$`, `` \` `` and a backslash-newline
/// (removed); outside quotes a backslash keeps the next character (a
/// backslash-newline is removed) and unquoted whitespace separates words.
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // `''` is an empty word, which an empty `word` alone cannot tell apart
    // from no word at all.
    let mut in_word = false;
    let mut cursor: Cursor = line.chars().enumerate().peekable();
    while let Some((at, c)) = cursor.next() {
        match c {
            c if c.is_ascii_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                single_quoted(&mut cursor, &mut word)
                    .ok_or_else(|| unclosed("single quote", at, line))?;
                in_word = true;
            }
            '"' => {
                double_quoted(&mut cursor, &mut word)
                    .ok_or_else(|| unclosed("double quote", at, line))?;
                in_word = true;
            }
            '\\' => match cursor.next() {
                Some((_, '\n')) => {}
                Some((_, escaped)) => {
                    word.push(escaped);
                    in_word = true;
                }
                None => return Err(format!("trailing backslash in command `{line}`")),
            },
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty command".to_string());
    }
    Ok(words)
}

/// Consumes up to and including the closing `'`; `None` when there is none.
fn single_quoted(cursor: &mut Cursor, word: &mut String) -> Option<()> {
    loop {
        match cursor.next()?.1 {
            '\'' => return Some(()),
            c => word.push(c),
        }
    }
}

/// Consumes up to and including the closing `"`; `None` when there is none.
fn double_quoted(cursor: &mut Cursor, word: &mut String) -> Option<()> {
    loop {
        match cursor.next()?.1 {
            '"' => return Some(()),
            '\\' => match cursor.next()?.1 {
                '\n' => {}
                c @ ('"' | '\\' | '$' | '`') => word.push(c),
                c => {
                    word.push('\\');
                    word.push(c);
                }
            },
            c => word.push(c),
        }
    }
}

fn unclosed(what: &str, index: usize, line: &str) -> String {
    format!(
        "unclosed {what} at character {} of command `{line}`",
        index + 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split(line).unwrap_or_else(|err| panic!("`{line}`: {err}"))
    }

    #[test]
    fn whitespace_separates_words() {
        assert_eq!(words("cargo test --quiet"), ["cargo", "test", "--quiet"]);
        assert_eq!(words("  a\t b \n c  "), ["a", "b", "c"]);
    }

    #[test]
    fn single_quotes_are_literal() {
        assert_eq!(
            words(r#"sh -c 'echo "$HOME" \n'"#),
            ["sh", "-c", r#"echo "$HOME" \n"#]
        );
        assert_eq!(words("'a b''c'"), ["a bc"]);
    }

    #[test]
    fn double_quotes_unescape_only_what_posix_says() {
        assert_eq!(words(r#""a \" \\ \$ \` b""#), [r#"a " \ $ ` b"#]);
        assert_eq!(words(r#""\n \x""#), [r"\n \x"]);
        assert_eq!(words("\"one\\\ntwo\""), ["onetwo"]);
    }

    #[test]
    fn backslash_outside_quotes_escapes_the_next_character() {
        assert_eq!(words(r"a\ b c\'d \\"), ["a b", "c'd", "\\"]);
        assert_eq!(words("one\\\ntwo"), ["onetwo"]);
    }

    #[test]
    fn empty_quotes_are_an_empty_word() {
        assert_eq!(words("printf '' \"\" x"), ["printf", "", "", "x"]);
    }

    #[test]
    fn shell_syntax_is_plain_text() {
        assert_eq!(
            words("echo $HOME *.rs | wc > out # not a comment"),
            [
                "echo", "$HOME", "*.rs", "|", "wc", ">", "out", "#", "not", "a", "comment"
            ]
        );
    }

    #[test]
    fn unbalanced_quotes_say_where_they_open() {
        assert_eq!(
            split("echo 'hi").unwrap_err(),
            "unclosed single quote at character 6 of command `echo 'hi`"
        );
        assert_eq!(
            split(r#"echo "a\""#).unwrap_err(),
            r#"unclosed double quote at character 6 of command `echo "a\"`"#
        );
    }

    #[test]
    fn trailing_backslash_and_empty_commands_are_refused() {
        assert_eq!(
            split(r"echo \").unwrap_err(),
            r"trailing backslash in command `echo \`"
        );
        assert_eq!(split("").unwrap_err(), "empty command");
        assert_eq!(split(" \t\\\n ").unwrap_err(), "empty command");
    }
}
