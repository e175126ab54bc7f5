//! `steward schedule`: have the system's scheduler run this store's pass.

use clap::{Args, Subcommand};
use serde_json::json;

use super::Output;
use super::render::SCHEMA_VERSION;
use crate::context::Context;
use crate::engine::schedule::{self, Changed, Entry, Scheduler};
use crate::error::Result;
use crate::exit::ExitCode;
use crate::model::duration::HumanDuration;

/// Have cron, a systemd user timer or launchd run this store's watchdog
/// pass (`steward -C ROOT tick -q`) every few minutes.
///
/// `install` writes the entry with absolute paths and the PATH it is run
/// with (so the pass finds the agent CLIs), replacing this store's entry
/// if it differs; run again, it changes nothing. Without a flag it picks
/// launchd on macOS, cron on Linux when `crontab` is installed, else
/// systemd. `status` says which schedulers run this store, how often, and
/// when the last pass ran; `remove` takes the entry out (of every
/// scheduler, without a flag). Installing and removing are a person's.
#[derive(Debug, Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Write the entry and have the scheduler run it
    Install(InstallArgs),
    /// Which schedulers run this store's pass, how often, and the last pass
    Status,
    /// Take this store's entry out
    Remove(Which),
}

#[derive(Debug, Args)]
struct InstallArgs {
    #[command(flatten)]
    which: Which,

    /// How often: a period that divides an hour or a day (1m–30m, 1h–12h, 1d)
    #[arg(long, value_name = "PERIOD", default_value = "5m", value_parser = super::args::duration)]
    every: HumanDuration,
}

#[derive(Debug, Args)]
#[group(multiple = false)]
struct Which {
    /// A line in your crontab, through the `crontab` command
    #[arg(long)]
    cron: bool,
    /// A systemd user timer and service, enabled with `systemctl --user`
    #[arg(long)]
    systemd: bool,
    /// A launchd agent in ~/Library/LaunchAgents (macOS)
    #[arg(long)]
    launchd: bool,
}

impl Which {
    fn named(&self) -> Option<Scheduler> {
        match (self.cron, self.systemd, self.launchd) {
            (true, _, _) => Some(Scheduler::Cron),
            (_, true, _) => Some(Scheduler::Systemd),
            (_, _, true) => Some(Scheduler::Launchd),
            _ => None,
        }
    }
}

pub fn run(ctx: &Context, args: ScheduleArgs, out: &mut Output) -> Result<ExitCode> {
    match args.action {
        Action::Install(install) => {
            schedule::person_only(ctx, "install")?;
            let scheduler = install
                .which
                .named()
                .unwrap_or_else(|| Scheduler::native(ctx));
            let entry = Entry::for_store(ctx, install.every)?;
            let changed = schedule::install(ctx, scheduler, &entry)?;
            if out.json {
                out.json(&json!({
                    "schema_version": SCHEMA_VERSION,
                    "scheduler": scheduler.name(),
                    "every": entry.every.to_string(),
                    "command": entry.shell_command(),
                    "changed": changed.written,
                    "ran": changed.commands,
                    "notes": changed.notes,
                }));
            } else if out.quiet {
                for note in &changed.notes {
                    out.warn(format!("{}: {note}", scheduler.name()));
                }
            } else {
                say(out, &changed);
                if changed.written.is_empty() && changed.commands.is_empty() {
                    out.line(format!(
                        "{} already runs this store every {}: nothing changed",
                        scheduler.name(),
                        entry.every
                    ));
                } else {
                    out.line(format!(
                        "{} runs `{}` every {}",
                        scheduler.name(),
                        entry.shell_command(),
                        entry.every
                    ));
                }
            }
            Ok(ExitCode::Success)
        }
        Action::Remove(which) => {
            schedule::person_only(ctx, "remove")?;
            let schedulers = match which.named() {
                Some(one) => vec![one],
                None => (schedule::found(ctx).iter())
                    .filter(|f| f.ours)
                    .map(|f| f.scheduler)
                    .collect(),
            };
            let mut all = Vec::new();
            for scheduler in schedulers {
                all.push(schedule::remove(ctx, scheduler)?);
            }
            let removed = all.iter().any(|c| !c.written.is_empty());
            if out.json {
                out.json(&json!({
                    "schema_version": SCHEMA_VERSION,
                    "removed": all.iter().filter(|c| !c.written.is_empty()).map(|c| c.scheduler.name()).collect::<Vec<_>>(),
                }));
            } else if !out.quiet {
                for changed in &all {
                    say(out, changed);
                }
                if !removed {
                    out.line("no scheduler had steward's entry for this store: nothing removed");
                }
            }
            Ok(ExitCode::Success)
        }
        Action::Status => status(ctx, out),
    }
}

fn say(out: &mut Output, changed: &Changed) {
    for note in &changed.notes {
        out.warn(format!("{}: {note}", changed.scheduler.name()));
    }
    for written in &changed.written {
        out.line(format!("{}: {written}", changed.scheduler.name()));
    }
    for command in &changed.commands {
        out.line(format!("{}: ran {command}", changed.scheduler.name()));
    }
}

fn status(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let found = schedule::found(ctx);
    let last = crate::engine::overview::last_tick(ctx)?;
    if out.json {
        let entries: Vec<_> = found
            .iter()
            .map(|f| {
                json!({
                    "scheduler": f.scheduler.name(),
                    "place": f.place,
                    "when": f.when,
                    "command": f.command,
                    "by_steward": f.ours,
                    "active": f.active,
                })
            })
            .collect();
        out.json(&json!({"schema_version": SCHEMA_VERSION, "entries": entries, "last_pass": last}));
        return Ok(ExitCode::Success);
    }
    if found.is_empty() {
        out.line(
            "no scheduler runs this store's pass: `steward schedule install` writes the entry",
        );
    }
    for f in &found {
        let state = if f.active {
            ""
        } else {
            " (written, but not enabled or loaded: it does not run)"
        };
        let by = if f.ours {
            ""
        } else {
            ", a line written by hand"
        };
        out.line(format!(
            "{}: {} — {}{by}{state}",
            f.scheduler.name(),
            f.when,
            f.place
        ));
        out.line(format!("  runs {}", f.command));
    }
    out.line(match last {
        Some(at) => format!("last pass: {at}"),
        None => "last pass: never (no `tick` has run in this store on this machine)".to_string(),
    });
    Ok(ExitCode::Success)
}
