//! The crontab line: read and written through the system's `crontab`
//! command (which checks and installs it), every other line kept byte for
//! byte. steward's line ends with the comment `# steward:TAG`, which the
//! shell cron runs it with ignores, and which finds it again.

use std::path::Path;

use super::{Changed, Entry, Found, Scheduler};
use crate::context::Context;
use crate::error::Result;
use crate::model::duration::HumanDuration;

/// The five time fields cron runs a pass `every` with, or why it cannot:
/// cron names minutes of the hour and hours of the day, so a period must
/// divide one of them.
pub fn times(every: HumanDuration) -> std::result::Result<String, String> {
    let minutes = every.0 / 60;
    let whole_minutes = every.0 > 0 && every.0.is_multiple_of(60);
    match minutes {
        _ if !whole_minutes => {}
        1 => return Ok("* * * * *".to_string()),
        m if m < 60 && 60u64.is_multiple_of(m) => return Ok(format!("*/{m} * * * *")),
        60 => return Ok("0 * * * *".to_string()),
        m if m < 1440 && m.is_multiple_of(60) && 24u64.is_multiple_of(m / 60) => {
            return Ok(format!("0 */{} * * *", m / 60));
        }
        1440 => return Ok("0 0 * * *".to_string()),
        _ => {}
    }
    Err(format!(
        "`{every}` does not divide an hour or a day: schedulers run at the same minutes each hour; use one of 1m 2m 3m 4m 5m 6m 10m 12m 15m 20m 30m 1h 2h 3h 4h 6h 8h 12h 1d"
    ))
}

/// steward's crontab line for `entry`. The PATH goes first, on the line
/// alone (cron's own is `/usr/bin:/bin`); `%`, which cron turns into a
/// line break, is escaped.
pub fn line(entry: &Entry) -> String {
    let times = times(entry.every).expect("Entry::for_store checked the period");
    let command = format!(
        "PATH={} {}",
        crate::text::shell_word(&entry.path),
        entry.shell_command()
    );
    format!(
        "{times} {} {}",
        command.replace('%', "\\%"),
        marker(&entry.tag)
    )
}

fn marker(tag: &str) -> String {
    format!("# steward:{tag}")
}

/// `crontab` with `line` in place of this store's line (where that was,
/// else at the end), every other line as it was.
pub fn with_line(crontab: &str, tag: &str, line: &str) -> String {
    let mut out = String::with_capacity(crontab.len() + line.len() + 1);
    let mut placed = false;
    for old in crontab.split_inclusive('\n') {
        if is_ours(old, tag) {
            if !placed {
                out.push_str(line);
                out.push('\n');
                placed = true;
            }
            continue;
        }
        out.push_str(old);
    }
    if !placed {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `crontab` without this store's line.
pub fn without_line(crontab: &str, tag: &str) -> String {
    (crontab.split_inclusive('\n'))
        .filter(|line| !is_ours(line, tag))
        .collect()
}

fn is_ours(line: &str, tag: &str) -> bool {
    line.trim_end().ends_with(&marker(tag))
}

/// The lines of `crontab` that run this store's pass: steward's, and any
/// a person wrote that runs `tick` with this root.
pub fn lines_for(crontab: &str, root: &Path, tag: &str) -> Vec<(String, bool)> {
    let root = root.display().to_string();
    (crontab.lines())
        .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            if is_ours(line, tag) {
                Some((line.to_string(), true))
            } else {
                let by_hand =
                    line.contains("steward") && line.contains(" tick") && line.contains(&root);
                by_hand.then(|| (line.to_string(), false))
            }
        })
        .collect()
}

/// The user's crontab; empty when they have none.
fn read(ctx: &Context) -> Result<String> {
    let output = super::run(ctx, "crontab", &["-l"], None)?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    // "no crontab for USER": nothing yet.
    if super::said(&output).contains("no crontab") {
        return Ok(String::new());
    }
    Err(super::not_loaded(
        "crontab",
        &["-l"],
        &output,
        &[],
        "steward changed nothing",
    ))
}

fn write(ctx: &Context, text: &str) -> Result<()> {
    let output = super::run(ctx, "crontab", &["-"], Some(text))?;
    if output.status.success() {
        return Ok(());
    }
    Err(super::not_loaded(
        "crontab",
        &["-"],
        &output,
        &[],
        "the crontab is as it was",
    ))
}

pub fn install(ctx: &Context, entry: &Entry) -> Result<Changed> {
    let before = read(ctx)?;
    let after = with_line(&before, &entry.tag, &line(entry));
    let changed = after != before;
    if changed {
        write(ctx, &after)?;
    }
    Ok(changed_if(
        changed,
        "wrote this store's line in the crontab",
    ))
}

/// What changing the crontab did, if it changed.
fn changed_if(changed: bool, what: &str) -> Changed {
    let (written, commands) = if changed {
        (vec![what.to_string()], vec!["crontab -".to_string()])
    } else {
        (Vec::new(), Vec::new())
    };
    Changed {
        scheduler: Scheduler::Cron,
        written,
        commands,
        notes: Vec::new(),
    }
}

pub fn remove(ctx: &Context, tag: &str) -> Result<Changed> {
    let before = read(ctx)?;
    let after = without_line(&before, tag);
    let changed = after != before;
    if changed {
        write(ctx, &after)?;
    }
    Ok(changed_if(
        changed,
        "removed this store's line from the crontab",
    ))
}

/// This store's lines in the crontab (none when `crontab` is not
/// installed or cannot be read).
pub fn found(ctx: &Context, root: &Path, tag: &str) -> Vec<Found> {
    let Ok(crontab) = read(ctx) else {
        return Vec::new();
    };
    lines_for(&crontab, root, tag)
        .into_iter()
        .map(|(line, ours)| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (when, command) = if fields.len() > 5 && !fields[0].starts_with('@') {
                (fields[..5].join(" "), fields[5..].join(" "))
            } else {
                (
                    fields.first().copied().unwrap_or_default().to_string(),
                    fields.get(1..).map(|f| f.join(" ")).unwrap_or_default(),
                )
            };
            let command = command
                .strip_suffix(&marker(tag))
                .unwrap_or(&command)
                .trim_end();
            // The PATH it carries is long, and the same as the installer's.
            let command = match command.strip_prefix("PATH=") {
                Some(rest) if !rest.starts_with('\'') => {
                    rest.split_once(' ').map_or(command, |(_, c)| c)
                }
                _ => command,
            }
            .to_string();
            Found {
                scheduler: Scheduler::Cron,
                place: "the crontab".to_string(),
                when,
                command,
                ours,
                active: true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_become_cron_times_or_say_which_can() {
        let times = |text: &str| times(HumanDuration::parse(text).unwrap());
        assert_eq!(times("1m").unwrap(), "* * * * *");
        assert_eq!(times("5m").unwrap(), "*/5 * * * *");
        assert_eq!(times("60m").unwrap(), "0 * * * *");
        assert_eq!(times("2h").unwrap(), "0 */2 * * *");
        assert_eq!(times("1d").unwrap(), "0 0 * * *");
        for bad in ["7m", "90s", "30s", "5h", "2d"] {
            assert!(times(bad).unwrap_err().contains("15m"), "{bad}");
        }
    }

    #[test]
    fn the_line_replaces_its_own_and_keeps_every_other_byte() {
        let ours = "*/5 * * * * steward -C /s tick -q # steward:abc";
        let crontab = "MAILTO=me\n# keep\n0 3 * * *  backup   --all\n*/10 * * * * old # steward:abc\n@reboot x";
        let after = with_line(crontab, "abc", ours);
        assert_eq!(
            after,
            format!("MAILTO=me\n# keep\n0 3 * * *  backup   --all\n{ours}\n@reboot x")
        );
        assert_eq!(with_line(&after, "abc", ours), after, "idempotent");
        assert_eq!(
            without_line(&after, "abc"),
            "MAILTO=me\n# keep\n0 3 * * *  backup   --all\n@reboot x"
        );
        assert_eq!(with_line("", "abc", ours), format!("{ours}\n"));
        assert_eq!(with_line("x", "abc", ours), format!("x\n{ours}\n"));
        // Another store's line is another's.
        assert_eq!(
            without_line("a # steward:abd\n", "abc"),
            "a # steward:abd\n"
        );
    }

    #[test]
    fn a_line_escapes_what_cron_and_the_shell_read() {
        let entry = Entry {
            exe: "/opt/my tools/steward".into(),
            root: "/home/me/100% goals".into(),
            every: HumanDuration(300),
            path: "/usr/bin:/bin".into(),
            tag: "abc".into(),
        };
        assert_eq!(
            line(&entry),
            "*/5 * * * * PATH=/usr/bin:/bin '/opt/my tools/steward' -C '/home/me/100\\% goals' tick -q # steward:abc"
        );
        let found = lines_for(&format!("{}\n# x\n", line(&entry)), &entry.root, "abc");
        assert_eq!(found.len(), 1);
        let by_hand = lines_for(
            "*/5 * * * * cd /s && steward tick -q\n",
            Path::new("/s"),
            "abc",
        );
        assert_eq!(
            by_hand,
            [("*/5 * * * * cd /s && steward tick -q".to_string(), false)]
        );
    }
}
