//! steward-design(7), "Judge only what steward wrote". Every verb
//! that decides something about a goal reads it through [`resolve`]: the
//! file is compared with what steward last wrote to it on this machine
//! (its seal, `crate::store::seal`), and a change made outside steward is
//! recorded before anything is decided — then the goal waits for a
//! person. An agent is refused any act on a goal that waits for a person;
//! a person's act ends the wait (a person has looked).

use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Actor, PersonWait};
use crate::store::key::sha256;
use crate::store::seal::{Place, Seal};
use crate::store::{LoadedGoal, Transaction};

/// The goal `reference` names, read under the lock and verified. For an
/// agent, refused (exit 4) when the goal waits for a person — because its
/// file was just found changed outside steward, or for any earlier reason.
/// What was found is recorded even when the command is refused.
pub fn resolve(ctx: &Context, tx: &mut Transaction<'_>, reference: &str) -> Result<LoadedGoal> {
    let loaded = tx.resolve(reference)?;
    let verified = tx.verify(loaded)?;
    if ctx.actor != Actor::User {
        refuse_if_waiting(&verified.goal)?;
    }
    Ok(verified.goal)
}

/// [`resolve`] for a goal `before` read before the lock was taken: found
/// again where it was read (and not parsed again while its file holds the
/// same bytes), or by its id and label, without searching the store.
pub fn refind(ctx: &Context, tx: &mut Transaction<'_>, before: &LoadedGoal) -> Result<LoadedGoal> {
    let loaded = tx.refind_after(before)?;
    let verified = tx.verify(loaded)?;
    if ctx.actor != Actor::User {
        refuse_if_waiting(&verified.goal)?;
    }
    Ok(verified.goal)
}

/// Refuses an agent's act on a goal that waits for a person.
pub fn refuse_if_waiting(loaded: &LoadedGoal) -> Result<()> {
    let goal = &loaded.goal;
    if goal.status.is_terminal() {
        return Ok(());
    }
    let Some(waiting) = goal.waiting.as_ref() else {
        return Ok(());
    };
    let Some(why) = waiting.for_person else {
        return Ok(());
    };
    Err(Error::WaitsForPerson {
        label: goal.label.clone(),
        why: waiting.reason.clone(),
        person_runs: why.command(&goal.label),
    })
}

/// Whether an agent may take `label` for a new goal: not while an open
/// goal steward sealed under it vanished outside steward and no person has
/// looked (the agent could delete a hard goal and add an easy one under
/// its name). Returns the vanished goal's seal, for a person's `add` to
/// record and release.
pub fn vanished_label(ctx: &Context, label: &str) -> Result<Option<Seal>> {
    if !ctx.store.sealed_here() {
        return Ok(None);
    }
    for place in [Place::Vanished, Place::Open] {
        if let Ok(Some(seal)) = ctx.store.seal_of_label(place, label)? {
            if place == Place::Open && ctx.store.open_path(label).exists() {
                continue;
            }
            return Ok(Some(seal));
        }
    }
    Ok(None)
}

/// Refuses an agent a label whose goal vanished outside steward.
pub fn refuse_vanished_label(ctx: &Context, label: &str) -> Result<Option<Seal>> {
    let Some(seal) = vanished_label(ctx, label)? else {
        return Ok(None);
    };
    if ctx.actor != Actor::User {
        return Err(Error::WaitsForPerson {
            label: label.to_string(),
            why: format!(
                "the file of goal {} under this label was removed outside steward",
                seal.id
            ),
            person_runs: format!("steward accept {label}"),
        });
    }
    Ok(Some(seal))
}

/// What a person's `accept` did.
#[derive(Debug)]
pub enum Accepted {
    /// The goal waited for a review; it no longer does.
    Goal(super::Saved),
    /// A goal whose file vanished outside steward is let go; its label is
    /// free.
    Vanished(Seal, super::Notices),
    /// Nothing waited for a person's review, but command checks that
    /// reached the goal another way than a person here: accepted now.
    Commands(LoadedGoal, Vec<String>, super::Notices),
    /// Nothing waited for a person's review.
    Nothing(LoadedGoal),
}

/// `steward accept GOAL`: a person has looked at what changed outside
/// steward and takes the goal as it now is (or lets a vanished goal go).
pub fn accept(ctx: &Context, reference: &str, note: Option<&str>) -> Result<Accepted> {
    super::authority::person_only(ctx, "accept what changed outside steward", || {
        format!("steward accept {reference}")
    })?;
    let mut tx = ctx.transaction()?;
    let loaded = match tx.resolve(reference) {
        Ok(loaded) => loaded,
        Err(Error::GoalNotFound { .. }) => {
            let label = reference.trim().to_ascii_lowercase();
            if let Some(seal) = vanished_label(ctx, &label)? {
                let mut detail = format!(
                    "a person accepted that the file of goal {} was removed outside steward",
                    seal.id
                );
                if let Some(note) = note {
                    detail.push_str(&format!("; note: {note}"));
                }
                if ctx
                    .store
                    .seal_of_label(Place::Open, &label)?
                    .is_ok_and(|s| s.is_some())
                {
                    tx.record_vanished(&seal)?;
                }
                tx.forget_vanished(&seal, &detail)?;
                let notices = super::finish(tx)?;
                return Ok(Accepted::Vanished(seal, notices));
            }
            return Err(Error::GoalNotFound {
                reference: reference.to_string(),
                unreadable: 0,
                nearest: None,
            });
        }
        Err(err) => return Err(err),
    };
    let verified = tx.verify(loaded)?;
    let goal = &verified.goal.goal;
    let reviewing = goal.waiting.as_ref().and_then(|w| w.for_person) == Some(PersonWait::Review);
    if !reviewing {
        let accepted = ctx.store.accepted_commands();
        let held: Vec<String> = crate::store::seal::command_checks(goal)
            .filter(|command| {
                !accepted.contains(&crate::store::seal::command_digest(&goal.id, command))
            })
            .map(str::to_string)
            .collect();
        if held.is_empty() {
            super::finish(tx)?;
            return Ok(Accepted::Nothing(verified.goal));
        }
        let digests: Vec<String> = (held.iter())
            .map(|command| crate::store::seal::command_digest(&goal.id, command))
            .collect();
        ctx.store.accept_commands(&digests)?;
        let list: Vec<String> = held.iter().map(|c| format!("`{c}`")).collect();
        let mut detail = format!(
            "a person accepted the command checks {} on this machine",
            list.join(", ")
        );
        if let Some(note) = note {
            detail.push_str(&format!("; note: {note}"));
        }
        tx.record_goal_act(goal, "commands_accepted", &detail);
        let notices = super::finish(tx)?;
        return Ok(Accepted::Commands(verified.goal, held, notices));
    }
    let mut detail = "the goal as it is".to_string();
    if let Some(note) = note {
        detail.push_str(&format!("; note: {note}"));
    }
    // The person's change ends the wait (the transaction says so).
    let change = crate::model::GoalChange::new("accepted", detail).always();
    let written = tx.save(&verified.goal, change)?;
    Ok(Accepted::Goal(super::saved(tx, written, verified.goal)?))
}

/// The open goals a person's `accept` would take, by label: changed or
/// put in place outside steward (recorded first, as `tick` would), or
/// holding command checks no person here accepted.
pub fn awaiting_acceptance(ctx: &Context) -> Result<Vec<String>> {
    super::authority::person_only(ctx, "accept what changed outside steward", || {
        "steward accept --all".to_string()
    })?;
    record_outside_changes(ctx)?;
    let scan = ctx.store.scan(crate::store::Scope::Open)?;
    let accepted = ctx.store.accepted_commands();
    Ok((scan.goals.iter())
        .map(|loaded| &loaded.goal)
        .filter(|goal| {
            goal.waiting.as_ref().and_then(|w| w.for_person) == Some(PersonWait::Review)
                || crate::store::seal::command_checks(goal).any(|command| {
                    !accepted.contains(&crate::store::seal::command_digest(&goal.id, command))
                })
        })
        .map(|goal| goal.label.clone())
        .collect())
}

/// Records every change made outside steward to the open goals (as `tick`
/// does, without its rules): before `sync` commits the store, so that
/// what it pushes carries each such change with its hold, and another
/// machine that pulls it holds the goal too. The labels found.
pub fn record_outside_changes(ctx: &Context) -> Result<Vec<String>> {
    let mut tx = ctx.transaction()?;
    let scan = tx.scan(crate::store::Scope::Open)?;
    let mut found = Vec::new();
    for loaded in scan.goals {
        if loaded.goal.status == crate::model::Status::Paused {
            continue;
        }
        let verified = tx.verify(loaded)?;
        if verified.outside.is_some() {
            found.push(verified.goal.goal.label.clone());
        }
    }
    super::finish(tx)?;
    Ok(found)
}

/// Takes as steward's the goal files a merge of `sync` or `resolve`
/// changed (found with `git diff` from our side to HEAD): where
/// git merged two versions line by line, no machine signed the result,
/// but each side was steward's — ours as sealed here, theirs by a signed
/// chain from the merge base. Files that are one side's version verify on
/// their own (a signed chain), or wait for a person like any other change
/// made outside steward.
pub fn adopt_merged(ctx: &Context, merge: &Merge) -> Result<usize> {
    if !ctx.store.sealed_here() {
        return Ok(0);
    }
    let changed = merge.changed_goal_files(ctx)?;
    let mut tx = ctx.transaction()?;
    let mut adopted = 0;
    for relative in &changed {
        let path = ctx.store.root.join(relative);
        let Ok(loaded) = ctx.store.load(&path) else {
            continue;
        };
        if !matches!(ctx.store.trust_of(&loaded), crate::store::Trust::Outside(_)) {
            continue;
        }
        let version = |commit: &str| {
            crate::os::git::cli(&ctx.root, &["show", &format!("{commit}:./{relative}")]).ok()
        };
        let sha = |text: &Option<String>| text.as_deref().map(|t| sha256(t.as_bytes()));
        let (ours, theirs, base) = (
            version(&merge.ours),
            version(&merge.theirs),
            version(&merge.base),
        );
        let Some(their_sha) = sha(&theirs) else {
            continue;
        };
        let ours_sealed = sha(&ours).is_some_and(|ours| {
            ctx.store
                .seal_of_label(Place::Open, &loaded.goal.label)
                .ok()
                .and_then(|seal| seal.ok().flatten())
                .is_some_and(|seal| seal.sha256 == ours)
        });
        let theirs_signed = ctx.store.log().signed_chain(
            &loaded.goal.id,
            sha(&base).as_deref(),
            &their_sha,
            &ctx.store.trusted_keys(),
        );
        if ours_sealed
            && theirs_signed
            && tx.adopt(
                &loaded,
                &format!(
                    "merged by sync from this machine's version and the remote's ({})",
                    merge.theirs_short
                ),
            )?
        {
            adopted += 1;
        }
    }
    link_dropped(ctx, merge, &mut tx)?;
    link_closed_over_ours(ctx, merge, &mut tx)?;
    super::finish(tx)?;
    Ok(adopted)
}

/// For each open goal the merge took closed from the other side over the
/// version sealed here (`sync` takes the judge's closed goal over a
/// watchdog's mark, see `sync::taken_side`): a signed record that links
/// this machine's version to the closed one, so that the next pass finds
/// the goal closed on another machine rather than removed. Only when the
/// other side's steward closed it (a signed chain from the merge base): a
/// goal closed or moved by hand there is still found as such.
fn link_closed_over_ours(
    ctx: &Context,
    merge: &Merge,
    tx: &mut crate::store::Transaction,
) -> Result<()> {
    // Removed by the merge and changed on our side: where ours is the
    // base's version, the closed goal's chain starts from our seal anyway.
    let removed = goal_files_changed(ctx, "D", &merge.ours, "HEAD")?;
    let ours_changed = goal_files_changed(ctx, "M", &merge.base, &merge.ours)?;
    let keys = ctx.store.trusted_keys();
    for relative in removed.intersection(&ours_changed) {
        let version = |commit: &str| {
            crate::os::git::cli(&ctx.root, &["show", &format!("{commit}:./{relative}")]).ok()
        };
        let Some(ours) = version(&merge.ours) else {
            continue;
        };
        let path = ctx.store.root.join(relative);
        let Some(goal) = (crate::store::GoalFile::parse(&path, ours.clone()).ok())
            .and_then(|file| file.goal(&ctx.config.defaults).ok())
        else {
            continue;
        };
        let ours = sha256(ours.as_bytes());
        let sealed = (ctx.store.seal_of_label(Place::Open, &goal.label).ok())
            .and_then(|seal| seal.ok().flatten())
            .is_some_and(|seal| seal.id == goal.id && seal.sha256 == ours);
        let closed = ctx.store.closed_path_of(&goal.label, &goal.id);
        let Ok(closed) = ctx.store.load(&closed) else {
            continue;
        };
        let base = version(&merge.base).map(|text| sha256(text.as_bytes()));
        let closed_sha = sha256(closed.file.text().as_bytes());
        if sealed
            && closed.goal.id == goal.id
            && closed.goal.status.is_terminal()
            && (ctx.store.log()).signed_chain(&goal.id, base.as_deref(), &closed_sha, &keys)
        {
            tx.link_dropped(
                &closed,
                &ours,
                &format!(
                    "merged by sync: the remote's closed goal ({}) kept over this machine's open version",
                    merge.theirs_short
                ),
            );
        }
    }
    Ok(())
}

/// For each open goal the merge kept as this machine sealed it over a
/// different version the other side's steward wrote (`sync` takes one
/// side of a goal only watchdogs marked, see `sync::taken_side`): a signed
/// record that links the dropped version to the kept one, so the machine
/// that wrote the dropped one takes the kept one as steward's.
fn link_dropped(ctx: &Context, merge: &Merge, tx: &mut crate::store::Transaction) -> Result<()> {
    // They changed it, the merge differs from theirs, and not from ours.
    let kept_ours = goal_files_changed(ctx, "ACDMRT", &merge.ours, "HEAD")?;
    let theirs_changed = goal_files_changed(ctx, "ACDMRT", &merge.base, &merge.theirs)?;
    let candidates: Vec<String> = goal_files_changed(ctx, "ACDMRT", &merge.theirs, "HEAD")?
        .intersection(&theirs_changed)
        .filter(|p| !kept_ours.contains(*p))
        .cloned()
        .collect();
    for relative in &candidates {
        let Ok(text) = crate::os::git::cli(
            &ctx.root,
            &["show", &format!("{}:./{relative}", merge.theirs)],
        ) else {
            continue;
        };
        let theirs = sha256(text.as_bytes());
        let Ok(loaded) = ctx.store.load(&ctx.store.root.join(relative)) else {
            continue;
        };
        let keys = ctx.store.trusted_keys();
        if loaded.goal.status.is_terminal()
            || ctx.store.trust_of(&loaded) != crate::store::Trust::Steward
            || !(ctx.store.log()).signed_chain(&loaded.goal.id, None, &theirs, &keys)
        {
            continue;
        }
        tx.link_dropped(
            &loaded,
            &theirs,
            &format!(
                "merged by sync: this machine's version kept over the remote's ({}), which only marked it",
                merge.theirs_short
            ),
        );
    }
    Ok(())
}

/// The goal files (relative to the root) that git's diff from `from` to
/// `to` lists with a status in `statuses` (`--diff-filter`; renames seen
/// as a removal and an addition).
fn goal_files_changed(
    ctx: &Context,
    statuses: &str,
    from: &str,
    to: &str,
) -> Result<std::collections::BTreeSet<String>> {
    let goals = ctx.store.relative(&ctx.store.goals_dir);
    let filter = format!("--diff-filter={statuses}");
    let names = crate::os::git::cli(
        &ctx.root,
        &[
            "diff",
            "--name-only",
            "--no-renames",
            &filter,
            "--relative",
            from,
            to,
            "--",
            &goals,
        ],
    )?;
    Ok((names.lines())
        .filter(|p| p.ends_with(".md"))
        .map(str::to_string)
        .collect())
}

/// The commits of a merge `sync` or `resolve` makes.
#[derive(Debug, Clone)]
pub struct Merge {
    pub ours: String,
    pub theirs: String,
    pub base: String,
    pub theirs_short: String,
}

impl Merge {
    /// The goal files (relative to the root) that differ between our side
    /// of the merge and `HEAD` now.
    pub fn changed_goal_files(&self, ctx: &Context) -> Result<Vec<String>> {
        let goals = ctx.store.relative(&ctx.store.goals_dir);
        let diff = crate::os::git::cli(
            &ctx.root,
            &[
                "diff",
                "--name-only",
                "--relative",
                &self.ours,
                "HEAD",
                "--",
                &goals,
            ],
        )?;
        Ok(diff
            .lines()
            .filter(|path| path.ends_with(".md"))
            .map(str::to_string)
            .collect())
    }

    /// The merge of what was just fetched (`FETCH_HEAD`) into `HEAD` of
    /// the repository at `root`, about to be made.
    pub fn of_fetched(root: &std::path::Path) -> Result<Merge> {
        let git = |args: &[&str]| -> Result<String> {
            Ok(crate::os::git::cli(root, args)?.trim().to_string())
        };
        Ok(Merge {
            ours: git(&["rev-parse", "HEAD"])?,
            theirs: git(&["rev-parse", "FETCH_HEAD"])?,
            base: git(&["merge-base", "HEAD", "FETCH_HEAD"])?,
            theirs_short: git(&["rev-parse", "--short", "FETCH_HEAD"])?,
        })
    }
}

/// Trusts machine `name`'s published key on this machine: its signed
/// changes are steward's from now on (a person's act, once per machine
/// that joins the store).
pub fn trust_machine(ctx: &Context, name: &str) -> Result<crate::store::key::PublicKey> {
    super::authority::person_only(ctx, "trust another machine's key", || {
        format!("steward accept --machine {name}")
    })?;
    let published = ctx.store.published_machines();
    let Some(public) = published.get(name).cloned() else {
        let known: Vec<&str> = published.keys().map(String::as_str).collect();
        return Err(Error::BadRequest(format!(
            "no machine `{name}` published a key in state/machines/ (published: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        )));
    };
    let tx = ctx.transaction()?;
    ctx.store
        .trust_machines(&[(name.to_string(), public.clone())].into_iter().collect())?;
    super::finish(tx)?;
    Ok(public)
}

/// Machines that published a key in the store which this machine does not
/// trust (yet), by name.
pub fn untrusted_machines(ctx: &Context) -> Vec<String> {
    let trusted = ctx.store.trusted_keys();
    ctx.store
        .published_machines()
        .into_iter()
        .filter(|(_, key)| !trusted.contains(key))
        .map(|(name, _)| name)
        .collect()
}

/// What `steward config accept` did: the lines of the settings that
/// changed, or nothing when the files say what was accepted.
#[derive(Debug)]
pub struct ConfigAccepted {
    pub diff: Option<String>,
    pub notices: super::Notices,
}

/// `steward config accept`: a person on this machine accepts what the
/// configuration files say now, after a change that loosens something —
/// by a pull, by hand, or by anyone else who can write the files. Until
/// then steward keeps what was accepted before. A file that does not load
/// is refused with its error.
pub fn accept_config(ctx: &Context) -> Result<ConfigAccepted> {
    super::authority::person_only(ctx, "accept the configuration", || {
        "steward config accept".to_string()
    })?;
    // What the files say, loaded afresh: a file that does not load is
    // not accepted.
    crate::config::files_load(&ctx.store.root)?;
    let mut tx = ctx.transaction()?;
    let Some(changes) = ctx.config_changes.as_ref() else {
        if ctx.acceptance_lost {
            let said = crate::config::said_in_files(&ctx.store.root);
            ctx.store.accept_config(&said)?;
            tx.record_store_act(
                "config_accepted",
                "a person accepted the configuration files as they are, no earlier acceptance verifying",
            );
        }
        let notices = super::finish(tx)?;
        return Ok(ConfigAccepted {
            diff: None,
            notices,
        });
    };
    let diff = crate::text::diff_between(
        &changes.accepted,
        &changes.said,
        ("accepted on this machine", "the configuration files"),
    );
    ctx.store.accept_config(&changes.said)?;
    let detail = if changes.held.is_empty() {
        "a person accepted the configuration files as they are".to_string()
    } else {
        format!(
            "a person accepted the configuration files as they are, loosening {}",
            changes.held.join(", ")
        )
    };
    tx.record_store_act("config_accepted", &detail);
    let notices = super::finish(tx)?;
    Ok(ConfigAccepted {
        diff: Some(diff),
        notices,
    })
}

/// Records what the configuration files tightened since a person last
/// accepted them (in force already): once, in `tx`, with the settings and
/// their new values.
pub fn record_tightened(ctx: &Context, tx: &mut crate::store::Transaction<'_>) -> Result<()> {
    let Some(changes) = ctx.config_changes.as_ref() else {
        return Ok(());
    };
    if changes.tightened.is_empty() {
        return Ok(());
    }
    let said: Vec<String> = (changes.tightened.iter())
        .map(|key| format!("{key} = {}", ctx.config_sources.value_of(key)))
        .collect();
    ctx.store.accept_config(&changes.record_with_tightened)?;
    tx.finish_even_if_dropped();
    tx.record_store_event(
        "config_tightened",
        &format!(
            "the configuration files tighten {}: in force without a person",
            said.join(", ")
        ),
    );
    Ok(())
}

/// Records, once for what the files say, that they loosen what a person
/// accepted on this machine: the person is told (notification `config`),
/// with the lines that differ. The event's detail starts with the
/// digest of what the files say and this machine's name.
pub fn record_held(ctx: &Context, tx: &mut crate::store::Transaction<'_>) -> Result<()> {
    let Some(changes) = ctx.config_changes.as_ref().filter(|c| !c.held.is_empty()) else {
        return Ok(());
    };
    let digest = crate::store::key::sha256(changes.said.as_bytes());
    let head = format!("{} {}", &digest[..16], ctx.store.keys.machine());
    let since = crate::model::format_time(ctx.now - chrono::Duration::days(30));
    let events = ctx.store.log().read_since_naming(&since, Some(&head))?;
    if (events.iter()).any(|e| e.action == "config_held" && e.detail.starts_with(&head)) {
        return Ok(());
    }
    let diff = crate::text::diff_between(
        &changes.accepted,
        &changes.said,
        ("accepted on this machine", "the configuration files"),
    );
    let mut lines: Vec<&str> = (diff.lines())
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    if lines.len() > HELD_LINES {
        lines.truncate(HELD_LINES);
        lines.push("… (more lines differ: steward config accept shows them all)");
    }
    tx.record_store_event(
        "config_held",
        &format!(
            "{head}: the configuration files loosen {}: not in force on this machine until a person accepts them\n{}",
            changes.held.join(", "),
            lines.join("\n")
        ),
    );
    Ok(())
}

/// The most lines of a held configuration change a notification shows.
const HELD_LINES: usize = 20;

/// The warning a command gives while the configuration files loosen
/// something no person here accepted.
pub fn held_config_warning(ctx: &Context) -> Option<String> {
    let held = ctx.config_changes.as_ref().map_or(&[][..], |c| &c.held[..]);
    if ctx.acceptance_lost {
        return Some(format!(
            "no record of what a person accepted of the configuration verifies on this machine (its key was replaced, or an older steward kept none){}: the defaults are in force wherever the files loosen them until a person runs `steward config accept` (it shows the difference)",
            if held.is_empty() {
                String::new()
            } else {
                format!("; held: {}", held.join(", "))
            }
        ));
    }
    if held.is_empty() {
        return None;
    }
    Some(format!(
        "the configuration files loosen what a person accepted on this machine ({}): not in effect until a person runs `steward config accept` (it shows the difference); the accepted values are in force meanwhile",
        held.join(", ")
    ))
}

/// The warning a command gives while a configuration file does not load
/// and what a person accepted here is in force in its place.
pub fn broken_config_warning(ctx: &Context) -> Option<String> {
    let err = ctx.config_error.as_ref()?;
    Some(format!(
        "{err} — the configuration a person last accepted on this machine is in force until the file loads again (fix it, then `steward config accept`)"
    ))
}
