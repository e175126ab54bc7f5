//! Machine-local state kept within bounds (`retention.*`): once a day,
//! `tick` drops the undo records of goals no longer open whose last change
//! is older than `retention.undo`, the output, instruction and answer of
//! runs that ended before `retention.run_logs`, and the records of runs
//! that ended before `retention.runs` (history: a commit when git.commit
//! is on). `doctor` says how much there is.

use std::collections::HashSet;
use std::path::Path;
use std::time::SystemTime;

use crate::context::Context;
use crate::error::Result;
use crate::store::Transaction;

/// How often the pass prunes: listing every undo record and run is work
/// a day's worth of state repays.
const EVERY: chrono::Duration = chrono::Duration::hours(24);

/// What one pass dropped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    pub undo: usize,
    pub run_logs: usize,
    pub runs: usize,
    pub worktrees: usize,
}

fn marker(ctx: &Context) -> std::path::PathBuf {
    ctx.store.state_dir.join("cache").join("pruned")
}

/// Prunes when the last prune is a day old (or never was). `open` are the
/// ids of the open goals.
pub fn prune(ctx: &Context, tx: &mut Transaction<'_>, open: &HashSet<&str>) -> Result<Pruned> {
    let mut pruned = Pruned::default();
    let last = crate::os::safe_file::read_state(&marker(ctx))
        .and_then(|text| crate::model::parse_time(text.trim()));
    if last.is_some_and(|at| ctx.now - at < EVERY) {
        return Ok(pruned);
    }
    let retention = &ctx.config.retention;
    let now = SystemTime::now();
    let undo_dir = ctx.store.state_dir.join("undo");
    if let Ok(entries) = std::fs::read_dir(&undo_dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
            else {
                continue;
            };
            if open.contains(id) || !older_than(&path, now, retention.undo.as_secs()) {
                continue;
            }
            if std::fs::remove_file(&path).is_ok() {
                pruned.undo += 1;
            }
        }
    }
    let (runs, _) = ctx.store.runs()?;
    let before = |keep: &crate::model::duration::HumanDuration| {
        crate::model::format_time(ctx.now - keep.to_chrono())
    };
    let (logs_before, records_before) = (before(&retention.run_logs), before(&retention.runs));
    for run in runs.iter().filter(|r| !r.is_active()) {
        let Some(ended) = run.ended_at.as_deref() else {
            continue;
        };
        if ended < logs_before.as_str() {
            let dir = ctx.store.runs_dir();
            let mut any = false;
            for kind in ["out", "err", "prompt", "answer"] {
                any |= std::fs::remove_file(dir.join(format!("{}.{kind}", run.id))).is_ok();
            }
            // A run in a worktree had sandbox settings of its own.
            let settings = format!("claude-sandbox-{}.json", run.id);
            any |= std::fs::remove_file(ctx.store.state_dir.join("cache").join(settings)).is_ok();
            pruned.run_logs += usize::from(any);
        }
        if ended < records_before.as_str() {
            tx.remove_file(&ctx.store.run_path(&run.id))?;
            pruned.runs += 1;
        }
    }
    let worktrees = super::worktree::prune(ctx, tx, &runs)?;
    pruned.worktrees = worktrees.removed;
    for (path, branch) in &worktrees.kept {
        tx.record_store_event(
            "worktree_kept",
            &format!(
                "{path} (branch {branch}) is past retention.worktrees with uncommitted changes: kept for a person"
            ),
        );
    }
    if crate::store::cache_dir_ready(&ctx.store.state_dir.join("cache")) {
        let _ = crate::store::atomic::write_unsynced(
            &marker(ctx),
            format!("{}\n", crate::model::format_time(ctx.now)).as_bytes(),
        );
    }
    if pruned.runs > 0 || pruned.undo > 0 || pruned.run_logs > 0 || pruned.worktrees > 0 {
        tx.record_store_event(
            "pruned",
            &format!(
                "dropped {} undo record(s), the logs of {} run(s), {} run record(s), {} worktree(s) past their retention",
                pruned.undo, pruned.run_logs, pruned.runs, pruned.worktrees
            ),
        );
    }
    Ok(pruned)
}

fn older_than(path: &Path, now: SystemTime, secs: u64) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|modified| now.duration_since(modified).ok())
        .is_some_and(|age| age.as_secs() > secs)
}

/// How much machine-local state there is: (what, files, bytes).
pub fn local_state(ctx: &Context) -> Vec<(&'static str, usize, u64)> {
    let mut sizes = Vec::new();
    let count = |dir: &Path, matches: &dyn Fn(&str) -> bool| -> (usize, u64) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (0, 0);
        };
        entries
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(matches))
            .filter_map(|e| e.metadata().ok())
            .fold((0, 0), |(n, bytes), m| (n + 1, bytes + m.len()))
    };
    let state = &ctx.store.state_dir;
    let (n, bytes) = count(&state.join("undo"), &|n| n.ends_with(".json"));
    sizes.push(("undo records", n, bytes));
    let (n, bytes) = count(&ctx.store.runs_dir(), &|n| {
        [".out", ".err", ".prompt", ".answer"]
            .iter()
            .any(|kind| n.ends_with(kind))
    });
    sizes.push(("run logs", n, bytes));
    let (n, bytes) = count(&ctx.store.runs_dir(), &|n| n.ends_with(".json"));
    sizes.push(("run records", n, bytes));
    let (n, bytes) = count(&state.join("seals").join("open"), &|_| true);
    sizes.push(("seals of open goals", n, bytes));
    sizes
}
