//! The systemd user timer: `steward-TAG.service` (one pass) and
//! `steward-TAG.timer` (when) under `~/.config/systemd/user`, enabled with
//! `systemctl --user`. `Persistent=true` runs a pass missed while the
//! machine slept; exit 3 (something needs a person, who was told) is a
//! success to systemd.

use std::path::PathBuf;

use super::{Changed, Entry, Found, Scheduler};
use crate::context::Context;
use crate::error::Result;

fn unit(tag: &str) -> String {
    format!("steward-{tag}")
}

fn dir(ctx: &Context) -> Result<PathBuf> {
    Ok(match ctx.env.var("XDG_CONFIG_HOME") {
        Some(config) => PathBuf::from(config),
        None => super::home(ctx)?.join(".config"),
    }
    .join("systemd/user"))
}

/// A word of a unit file's command line or value: quoted, with what
/// systemd expands (`%` specifiers, `$` variables) doubled.
fn quoted(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('%', "%%")
        .replace('$', "$$");
    format!("\"{escaped}\"")
}

/// The calendar expression for a period cron can also say.
pub fn on_calendar(entry: &Entry) -> String {
    let minutes = entry.every.0 / 60;
    if minutes < 60 {
        format!("*-*-* *:00/{minutes:02}:00")
    } else if minutes < 24 * 60 {
        format!("*-*-* 00/{:02}:00:00", minutes / 60)
    } else {
        "*-*-* 00:00:00".to_string()
    }
}

pub fn service(entry: &Entry) -> String {
    let root = entry.root.display().to_string().replace('%', "%%");
    let mut exec = quoted(&entry.exe.display().to_string());
    for arg in entry.args() {
        exec.push(' ');
        exec.push_str(&quoted(&arg));
    }
    format!(
        "# Written by `steward schedule install`; `steward schedule remove` takes it out.\n\
         [Unit]\n\
         Description=steward watchdog pass for {root}\n\
         \n\
         [Service]\n\
         Type=oneshot\n\
         ExecStart={exec}\n\
         Environment={}\n\
         # 3: something needs a person, and the pass told them.\n\
         SuccessExitStatus=3\n",
        quoted(&format!("PATH={}", entry.path)),
    )
}

pub fn timer(entry: &Entry) -> String {
    let root = entry.root.display().to_string().replace('%', "%%");
    format!(
        "# Written by `steward schedule install`; `steward schedule remove` takes it out.\n\
         [Unit]\n\
         Description=steward watchdog pass for {root}, every {}\n\
         \n\
         [Timer]\n\
         OnCalendar={}\n\
         Persistent=true\n\
         \n\
         [Install]\n\
         WantedBy=timers.target\n",
        entry.every,
        on_calendar(entry),
    )
}

fn systemctl(ctx: &Context, args: &[&str], written: &[String]) -> Result<String> {
    let mut all = vec!["--user"];
    all.extend_from_slice(args);
    let output = super::run(ctx, "systemctl", &all, None)?;
    if !output.status.success() {
        return Err(super::not_loaded(
            "systemctl",
            &all,
            &output,
            written,
            "the units stay as written; run `steward schedule install --systemd` again once that is fixed, or use --cron",
        ));
    }
    Ok(format!("systemctl {}", all.join(" ")))
}

pub fn install(ctx: &Context, entry: &Entry) -> Result<Changed> {
    // Asked first: without systemctl nothing is written.
    let manager = manager_runs(ctx)?;
    let dir = dir(ctx)?;
    let name = unit(&entry.tag);
    let mut written = Vec::new();
    for (file, text) in [
        (format!("{name}.service"), service(entry)),
        (format!("{name}.timer"), timer(entry)),
    ] {
        let path = dir.join(file);
        if super::write_if_changed(&path, &text)? {
            written.push(format!("wrote {}", path.display()));
        }
    }
    let timer = format!("{name}.timer");
    let mut commands = Vec::new();
    let mut notes = Vec::new();
    if manager {
        if !written.is_empty() {
            commands.push(systemctl(ctx, &["daemon-reload"], &written)?);
        }
        if !written.is_empty() || !is_enabled(ctx, &timer) {
            commands.push(systemctl(ctx, &["enable", "--now", &timer], &written)?);
        }
    } else {
        // Enabling needs no manager: the link is a file.
        if !is_enabled(ctx, &timer) {
            commands.push(systemctl(ctx, &["enable", &timer], &written)?);
        }
        notes.push(NO_MANAGER.to_string());
    }
    Ok(Changed {
        scheduler: Scheduler::Systemd,
        written,
        commands,
        notes,
    })
}

const NO_MANAGER: &str = "no systemd user manager runs for you now: the timer is enabled and starts with one (at your next login); `loginctl enable-linger` keeps one running without a login session, or use --cron";

pub fn remove(ctx: &Context, tag: &str) -> Result<Changed> {
    let dir = dir(ctx)?;
    let name = unit(tag);
    let timer = format!("{name}.timer");
    let manager = manager_runs(ctx).unwrap_or(false);
    let mut commands = Vec::new();
    // Disabled first, while systemd still knows the unit; stopped too
    // where a manager runs it.
    if dir.join(&timer).exists() && is_enabled(ctx, &timer) {
        let args: &[&str] = if manager {
            &["disable", "--now", &timer]
        } else {
            &["disable", &timer]
        };
        commands.push(systemctl(ctx, args, &[])?);
    }
    let mut written = Vec::new();
    for file in [format!("{name}.service"), timer] {
        let path = dir.join(file);
        if super::remove_file(&path)? {
            written.push(format!("removed {}", path.display()));
        }
    }
    if !written.is_empty() && manager {
        commands.push(systemctl(ctx, &["daemon-reload"], &[])?);
    }
    Ok(Changed {
        scheduler: Scheduler::Systemd,
        written,
        commands,
        notes: Vec::new(),
    })
}

/// Whether a user manager answers: one runs while the person is logged
/// in, or always with lingering. An error when there is no systemctl.
fn manager_runs(ctx: &Context) -> Result<bool> {
    let output = super::run(ctx, "systemctl", &["--user", "show-environment"], None)?;
    Ok(output.status.success())
}

fn is_enabled(ctx: &Context, timer: &str) -> bool {
    super::run(
        ctx,
        "systemctl",
        &["--user", "is-enabled", "--quiet", timer],
        None,
    )
    .is_ok_and(|output| output.status.success())
}

pub fn found(ctx: &Context, tag: &str) -> Vec<Found> {
    let Ok(dir) = dir(ctx) else {
        return Vec::new();
    };
    let name = unit(tag);
    let timer_path = dir.join(format!("{name}.timer"));
    let Ok(timer) = crate::os::safe_file::read_to_string(&timer_path) else {
        return Vec::new();
    };
    let service = crate::os::safe_file::read_to_string(&dir.join(format!("{name}.service")))
        .unwrap_or_default();
    let value = |text: &str, key: &str| {
        (text.lines())
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .unwrap_or_default()
            .to_string()
    };
    let active = manager_runs(ctx).unwrap_or(false) && is_enabled(ctx, &format!("{name}.timer"));
    vec![Found {
        scheduler: Scheduler::Systemd,
        place: timer_path.display().to_string(),
        when: value(&timer, "OnCalendar"),
        command: value(&service, "ExecStart"),
        ours: true,
        active,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::duration::HumanDuration;

    #[test]
    fn units_quote_what_systemd_would_expand() {
        let entry = Entry {
            exe: "/opt/my tools/steward".into(),
            root: "/home/me/100% $goals".into(),
            every: HumanDuration(15 * 60),
            path: "/usr/bin:/bin".into(),
            tag: "abc".into(),
        };
        let service = service(&entry);
        assert!(
            service.contains(
                r#"ExecStart="/opt/my tools/steward" "-C" "/home/me/100%% $$goals" "tick" "-q""#
            ),
            "{service}"
        );
        assert!(service.contains("SuccessExitStatus=3"));
        assert!(timer(&entry).contains("OnCalendar=*-*-* *:00/15:00\nPersistent=true"));
        let hourly = Entry {
            every: HumanDuration(7200),
            ..entry
        };
        assert_eq!(on_calendar(&hourly), "*-*-* 00/02:00:00");
    }
}
