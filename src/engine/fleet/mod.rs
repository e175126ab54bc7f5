//! Machines sharing one store (steward-guide(7), "A FLEET OF MACHINES"):
//! each pass publishes what this machine can run now in its record under
//! `state/machines/`, signed and written only when it changes (or, so the
//! others see it is alive, a third of `fleet.stale_after` after the last);
//! the records place work without a coordinator — a goal names where it
//! runs (`runs_on`), and a machine about to sleep leaves a ready goal, for
//! at most `fleet.defer`, to one that can run it longer; a machine that
//! stopped passing is told to a person once.

mod record;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Timelike as _, Utc};

pub use record::{Agent, Capacity, Record};

use crate::context::Context;
use crate::error::Result;
use crate::model::{Goal, Run, format_time, parse_time};
use crate::os::safe_file;

/// The largest record read.
const RECORD_BYTES: u64 = 64 * 1024;

/// A machine's record as this one reads it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub record: Record,
    /// Signed by the key of the machine it names, which this one trusts.
    pub verified: bool,
    /// No pass for `fleet.stale_after`.
    pub stale: bool,
    /// This machine's own.
    pub this: bool,
}

/// The records of the store's machines, read once for a pass.
#[derive(Debug, Default)]
pub struct Fleet {
    pub machines: Vec<Seen>,
    /// When this machine next sleeps and wakes by its windows, from now.
    here: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
}

/// Where machine `name`'s record is.
fn record_path(ctx: &Context, name: &str) -> PathBuf {
    ctx.store
        .state_dir
        .join("machines")
        .join(format!("{name}.json"))
}

/// Whether this store is shared with other machines: claims go through
/// git, or another machine published its key here.
pub fn shared(ctx: &Context) -> bool {
    ctx.config.dispatch.claim_git
        || (ctx.store.published_machines().keys()).any(|m| m != ctx.store.keys.machine())
}

/// Every machine's record, stale ones first, then by name.
pub fn read(ctx: &Context) -> Fleet {
    let dir = ctx.store.state_dir.join("machines");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Fleet::default();
    };
    let trusted = ctx.store.trusted_machines();
    let stale_after = chrono::Duration::seconds(ctx.config.fleet.stale_after.as_secs() as i64);
    let mut machines: Vec<Seen> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|entry| {
            let text = safe_file::read_text(&entry.path(), RECORD_BYTES).ok()??;
            let record: Record = serde_json::from_str(&text).ok()?;
            // A record under another machine's name is that name's claim,
            // and verifies only with that machine's key.
            let named = entry.path().file_stem()?.to_str()? == record.capacity.machine;
            let verified = named
                && (trusted.get(&record.capacity.machine)).is_some_and(|key| record.verifies(key));
            let stale = parse_time(&record.pass).is_none_or(|pass| ctx.now - pass > stale_after);
            let this = record.capacity.machine == ctx.store.keys.machine();
            Some(Seen {
                record,
                verified,
                stale,
                this,
            })
        })
        .collect();
    machines.sort_by(|a, b| {
        (b.stale, &a.record.capacity.machine).cmp(&(a.stale, &b.record.capacity.machine))
    });
    Fleet {
        machines,
        here: sleep(ctx, ctx.now),
    }
}

/// What this machine can run now, with `runs` the store's runs.
pub fn capacity_here(ctx: &Context, runs: &[Run]) -> Capacity {
    let machine = ctx.machine_id();
    let mine: Vec<&Run> = runs.iter().filter(|r| r.machine == machine).collect();
    let running = {
        let mut labels: Vec<String> = (mine.iter())
            .filter(|r| r.is_active())
            .map(|r| r.goal_label.clone())
            .collect();
        labels.sort();
        labels
    };
    let verified: Vec<&Run> = mine.iter().copied().filter(|r| r.verified).collect();
    let agents = (ctx.config.agents.iter())
        .map(|profile| {
            let why = super::run::missing_program(ctx, &profile.name)
                .or_else(|| logged_out(ctx, &profile.name, &profile.command));
            let limited = crate::rules::ladder::limited_agent(&verified, &profile.name, ctx.now);
            Agent {
                name: profile.name.clone(),
                usable: why.is_none(),
                why,
                limited_until: limited.map(|(until, _)| format_time(until)),
            }
        })
        .collect();
    let (sleeps_at, wakes_at) = sleep(ctx, ctx.now);
    Capacity {
        machine: ctx.store.keys.machine().to_string(),
        tags: ctx.config.machine.tags.clone(),
        dispatch: ctx.config.enabled && ctx.config.dispatch.enabled,
        notifies: super::notify::has_notifier(ctx),
        slots: ctx.config.dispatch.max_parallel,
        running,
        agents,
        available: (ctx.config.machine.available.iter())
            .map(|h| {
                format!(
                    "{:02}:{:02}-{:02}:{:02}",
                    h.start / 60,
                    h.start % 60,
                    h.end / 60,
                    h.end % 60
                )
            })
            .collect(),
        sleeps_at: sleeps_at.map(format_time),
        wakes_at: wakes_at.map(format_time),
    }
}

/// Why the client `command` runs is not logged in here, where it keeps
/// its login where steward can see (Claude Code, Codex); `None` when it is,
/// or cannot be told.
fn logged_out(ctx: &Context, name: &str, command: &[String]) -> Option<String> {
    let program = Path::new(command.first()?).file_name()?.to_str()?;
    let home = PathBuf::from(ctx.env.var("HOME")?);
    let has = |var: &str| ctx.env.var(var).is_some_and(|v| !v.is_empty());
    let (signs, files): (&[&str], &[&str]) = match program {
        "claude" => (
            &[
                "ANTHROPIC_API_KEY",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "ANTHROPIC_BASE_URL",
            ],
            &[".claude/.credentials.json", ".claude.json"],
        ),
        "codex" => (
            &["OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"],
            &[".codex/auth.json"],
        ),
        _ => return None,
    };
    let logged_in = signs.iter().any(|v| has(v)) || files.iter().any(|f| home.join(f).is_file());
    (!logged_in).then(|| {
        format!(
            "agent {name}: `{program}` has no login here (none of {} set, no {})",
            signs.join(", "),
            files.join(" or ")
        )
    })
}

/// When this machine, awake now by `machine.available`, next sleeps; or,
/// asleep, when it wakes. Both `None` without windows.
fn sleep(ctx: &Context, now: DateTime<Utc>) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
    let windows = &ctx.config.machine.available;
    if windows.is_empty() {
        return (None, None);
    }
    let awake_at = |at: DateTime<Utc>| {
        let local = at.with_timezone(&chrono::Local);
        let minute = local.hour() * 60 + local.minute();
        windows.iter().any(|w| w.contains(minute))
    };
    let awake = awake_at(now);
    let change = (1..=24 * 60)
        .map(|m| now + chrono::Duration::minutes(m))
        .find(|at| awake_at(*at) != awake)
        .map(|at| at.with_second(0).unwrap_or(at));
    if awake {
        (change, None)
    } else {
        (None, change)
    }
}

/// Writes this machine's record when what it says changed, or when the
/// last is a third of `fleet.stale_after` old; whether it wrote. Only in a
/// store shared with other machines.
pub fn publish(ctx: &Context) -> Result<bool> {
    if !shared(ctx) {
        return Ok(false);
    }
    let key = ctx.store.keys.key()?;
    let (runs, _) = ctx.store.runs()?;
    let capacity = capacity_here(ctx, &runs);
    let path = record_path(ctx, &capacity.machine);
    let heartbeat = chrono::Duration::seconds(ctx.config.fleet.stale_after.as_secs() as i64 / 3);
    let current = safe_file::read_text(&path, RECORD_BYTES)
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str::<Record>(&text).ok())
        .filter(|r| r.verifies(&key.public()));
    if let Some(current) = current
        && current.capacity == capacity
        && parse_time(&current.pass).is_some_and(|pass| ctx.now - pass < heartbeat)
    {
        return Ok(false);
    }
    let record = Record::signed(capacity, format_time(ctx.now), key);
    let mut tx = ctx.transaction_by(crate::model::Actor::Steward)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| crate::error::Error::io(dir, "cannot create directory", err))?;
    }
    tx.write_file(&path, &record.render())?;
    super::finish(tx)?;
    Ok(true)
}

/// Records, once for each pass it stopped after, a machine of the fleet
/// that stopped passing: told to a person (notification `machine`) by the
/// machine that found it. The event's detail starts with the machine, its
/// last pass and the finder.
pub fn record_stale(
    ctx: &Context,
    tx: &mut crate::store::Transaction<'_>,
    fleet: &Fleet,
) -> Result<()> {
    let stale = (fleet.machines.iter()).filter(|m| m.verified && m.stale && !m.this);
    for seen in stale {
        let capacity = &seen.record.capacity;
        let head = format!("{} {}", capacity.machine, seen.record.pass);
        let since = &seen.record.pass;
        let told = (ctx
            .store
            .log()
            .read_since_naming(since, Some(&head))?
            .iter())
        .any(|e| e.action == "machine_stale" && e.detail.starts_with(&head));
        if told {
            continue;
        }
        let running = if capacity.running.is_empty() {
            String::new()
        } else {
            format!(
                "; it was running {}: their claims are released as they expire",
                capacity.running.join(", ")
            )
        };
        tx.record_store_event(
            "machine_stale",
            &format!(
                "{head} {}: machine {} has made no pass since {} (fleet.stale_after {}){running}",
                ctx.store.keys.machine(),
                capacity.machine,
                seen.record.pass,
                ctx.config.fleet.stale_after
            ),
        );
    }
    Ok(())
}

impl Fleet {
    /// Which machines' events this one tells, as a machine with a notifier:
    /// its own, and — when it is the first by name of the machines that
    /// notify — those of machines whose fresh record says they do not, or
    /// that published none. A person hears of each event once.
    pub fn tells_for(&self, ctx: &Context) -> impl Fn(&str) -> bool + use<> {
        let me = ctx.store.keys.machine().to_string();
        let notifiers: std::collections::BTreeSet<String> = (self.machines.iter())
            .filter(|m| m.verified && !m.stale && m.record.capacity.notifies && !m.this)
            .map(|m| m.record.capacity.machine.clone())
            .chain(std::iter::once(me.clone()))
            .collect();
        let deputy = notifiers.first() == Some(&me);
        move |by: &str| by == me || (deputy && !notifiers.contains(by))
    }

    /// Why `goal` does not start on this machine, when its `runs_on`
    /// names neither this machine nor one of its tags.
    pub fn not_here(ctx: &Context, goal: &Goal) -> Option<String> {
        let runs_on = &goal.record.runs_on;
        let machine = ctx.store.keys.machine();
        let here = record::runs_on_names(runs_on, machine, &ctx.config.machine.tags);
        (!here).then(|| {
            format!(
                "it runs on {} (runs_on), not on {machine}{}",
                runs_on.join(", "),
                if ctx.config.machine.tags.is_empty() {
                    String::new()
                } else {
                    format!(" (tags {})", ctx.config.machine.tags.join(", "))
                }
            )
        })
    }

    /// Why this machine leaves `goal` to another for now: it is asleep
    /// or sleeps before a run of `agent` could end, and a machine whose
    /// fresh record says it can start the goal now and run it through is
    /// there — for at most `fleet.defer` after the goal became ready.
    pub fn defers(&self, ctx: &Context, goal: &Goal, agent: &str, mine: &[&Run]) -> Option<String> {
        let defer = chrono::Duration::seconds(ctx.config.fleet.defer.as_secs() as i64);
        if defer.is_zero() || self.machines.is_empty() {
            return None;
        }
        let ready = ready_since(goal, mine);
        if ctx.now - ready >= defer {
            return None;
        }
        let run_ends =
            ctx.now + chrono::Duration::seconds(ctx.config.dispatch.timeout.as_secs() as i64);
        let (sleeps_at, wakes_at) = self.here;
        let sleeps_soon = wakes_at.is_some() || sleeps_at.is_some_and(|at| at < run_ends);
        if !sleeps_soon {
            return None;
        }
        let better = self.machines.iter().find(|seen| {
            let c = &seen.record.capacity;
            seen.verified
                && !seen.stale
                && !seen.this
                && c.dispatch
                && c.free() > 0
                && c.takes(&goal.record.runs_on)
                && c.wakes_at.is_none()
                && (c.sleeps_at.as_deref().and_then(parse_time)).is_none_or(|at| at >= run_ends)
                && c.agent(agent).is_some_and(|a| {
                    a.usable
                        && (a.limited_until.as_deref().and_then(parse_time))
                            .is_none_or(|until| until <= ctx.now)
                })
        })?;
        Some(format!(
            "this machine sleeps before a run could end (machine.available); left to {}, which can run it now, until {}",
            better.record.capacity.machine,
            format_time(ready + defer)
        ))
    }
}

/// When `goal` became ready for a run: its last run's end, a person's
/// unblock, or its creation, the latest.
fn ready_since(goal: &Goal, mine: &[&Run]) -> DateTime<Utc> {
    let last_end = (mine.iter())
        .filter_map(|r| parse_time(r.ended_at.as_deref()?))
        .max();
    [goal.created_at, last_end, goal.progress.unblocked_at]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}
