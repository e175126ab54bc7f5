//! `doctor`: check the configuration, every goal file, the lock and what
//! interrupted runs left behind. Reads only; changes nothing.

use std::collections::BTreeMap;
use std::path::Path;

use super::checking;
use crate::context::Context;
use crate::error::{Error, FileProblem, Result};
use crate::model::{Priority, Status};
use crate::rules::stewardship::heartbeat::HeartbeatPatterns;
use crate::store::{Field, LoadedGoal, Scope, StoreLock};
use crate::yaml_locate::key_position;

/// What `doctor` found.
#[derive(Debug, Default)]
pub struct Diagnosis {
    /// Every problem, by path and line.
    pub problems: Vec<FileProblem>,
    /// Facts worth knowing that are not problems (the lock is held).
    pub notes: Vec<String>,
    /// Machine-local state: (what, files, bytes).
    pub local_state: Vec<(&'static str, usize, u64)>,
    /// Goal files looked at, readable or not.
    pub checked: usize,
    /// Goal files that could be read.
    pub readable: usize,
}

pub fn doctor(ctx: &Context) -> Result<Diagnosis> {
    let mut problems: Vec<FileProblem> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    if let Some(err) = &ctx.config_error {
        problems.push(match err {
            Error::Config(problem) => problem.clone(),
            other => {
                FileProblem::whole_file(&ctx.root.join(crate::config::FILE_NAME), other.to_string())
            }
        });
    }
    let patterns = HeartbeatPatterns::compile(&ctx.config.heartbeat_patterns);
    let config_path = ctx.store.root.join(crate::config::FILE_NAME);
    let config_text = crate::os::safe_file::read_to_string(&config_path).unwrap_or_default();
    let (line, column) = key_position(&config_text, &["heartbeat_patterns"]).unwrap_or((1, 1));
    for message in patterns.problems {
        problems.push(FileProblem {
            path: config_path.display().to_string(),
            line,
            column,
            message,
        });
    }
    check_sandbox(ctx, &config_path, &config_text, &mut problems);
    if ctx.config.enabled && ctx.config.dispatch.enabled {
        let dispatch = &ctx.config.dispatch;
        for agent in std::iter::once(&dispatch.agent).chain(&dispatch.fallback_agent) {
            if let Some(why) = super::run::missing_program(ctx, agent) {
                problems.push(FileProblem::whole_file(&config_path, why));
            }
        }
    }
    for gap in super::run::sandbox_gaps(ctx) {
        problems.push(FileProblem::whole_file(&config_path, gap));
    }
    if let Ok((runs, _)) = ctx.store.runs()
        && let Some(warning) = super::limits::unaccounted_warning(
            &super::limits::spend_last_day(ctx, &runs, ctx.now)?.unaccounted,
        )
    {
        problems.push(FileProblem::whole_file(
            &ctx.store.state_dir.join("runs"),
            warning,
        ));
    }
    for conflict in super::resolve::unresolved(ctx) {
        problems.push(FileProblem::whole_file(
            &ctx.store.state_dir.join("conflicts"),
            format!(
                "both machines changed {} and no merge was finished: {}",
                conflict.path,
                super::resolve::command(&conflict)
            ),
        ));
    }
    if let Some(warning) = super::trust::held_config_warning(ctx) {
        problems.push(FileProblem::whole_file(&config_path, warning));
    }
    for machine in super::trust::untrusted_machines(ctx) {
        notes.push(format!(
            "{}: machine {machine} published its key; what it signs is held here until a person runs `steward accept --machine {machine}`",
            ctx.store.relative(&ctx.store.published_key_path(&machine))
        ));
    }
    let scan = ctx.store.scan(Scope::Diagnose)?;
    problems.extend(scan.problems.iter().cloned());
    for loaded in &scan.goals {
        check_goal(ctx, loaded, &mut problems);
    }
    check_duplicates(&scan.goals, &mut problems);
    problems.extend(ctx.store.log().unreadable_lines()?);
    if let Some(warning) = crate::store::log_mark::losses_warning(&ctx.store.log_losses()) {
        problems.push(FileProblem::whole_file(ctx.store.log().dir(), warning));
    }
    problems.extend(ctx.store.obligations()?.unreadable);
    problems.extend(ctx.store.runs()?.1);
    problems.extend(super::claim::unreadable(ctx));
    check_outside_changes(ctx, &scan.goals, &mut problems)?;
    check_leftovers(ctx, &mut notes);
    check_drafts(ctx, &mut problems);
    check_lock(ctx, &mut notes);
    let local_state = super::prune::local_state(ctx);
    let total: u64 = local_state.iter().map(|(_, _, bytes)| bytes).sum();
    if total > LOCAL_STATE_NOTE_BYTES {
        let parts: Vec<String> = local_state
            .iter()
            .filter(|(_, files, _)| *files > 0)
            .map(|(what, files, bytes)| format!("{what}: {files} file(s), {}", human_bytes(*bytes)))
            .collect();
        notes.push(format!(
            "machine-local state is {} (pruned by tick past retention.*): {}",
            human_bytes(total),
            parts.join("; ")
        ));
    }
    if ctx.config.dispatch.worktree && super::worktree::repository(&ctx.root).is_none() {
        notes.push(
            "dispatch.worktree is true, but the store is in no git work tree: runs work in the root"
                .to_string(),
        );
    }
    for (path, branch, label, state) in super::worktree::overview(ctx) {
        if state == "kept" {
            notes.push(format!(
                "worktree {path} (branch {branch}, goal {label}) has uncommitted changes past retention.worktrees: kept; look at them, then `git worktree remove --force {path}`"
            ));
        }
    }
    for aside in in_the_way(&ctx.store.state_dir) {
        notes.push(format!(
            "{}: something was where a file of steward's goes, and was moved aside (an agent's doing?); look at it, then remove it",
            ctx.store.relative(&aside)
        ));
    }
    notes.extend(super::schedule::warnings(ctx));
    check_git_setup(ctx, &mut problems, &mut notes);
    check_index_size(ctx, &mut notes);
    problems.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(Diagnosis {
        problems,
        notes,
        local_state,
        checked: scan.goals.len() + scan.problems.len(),
        readable: scan.goals.len(),
    })
}

/// A dispatch profile whose runs the sandbox setting refuses: each would
/// end as an error.
fn check_sandbox(ctx: &Context, path: &Path, text: &str, problems: &mut Vec<FileProblem>) {
    let dispatch = &ctx.config.dispatch;
    let (line, column) = key_position(text, &["dispatch", "sandbox"]).unwrap_or((1, 1));
    for name in std::iter::once(&dispatch.agent).chain(&dispatch.fallback_agent) {
        let Some(profile) = ctx.config.agent(name) else {
            continue;
        };
        if let Err(why) = super::run::sandbox_of(dispatch.sandbox, profile) {
            problems.push(FileProblem {
                path: path.display().to_string(),
                line,
                column,
                message: format!(
                    "{why} (give dispatch a claude-json or codex-jsonl profile, or set dispatch.sandbox: auto and sandbox the agent yourself)"
                ),
            });
        }
    }
}

/// What git lacks to merge this store: a problem when the repository has
/// a remote (other clones pull from it), a note otherwise.
fn check_git_setup(ctx: &Context, problems: &mut Vec<FileProblem>, notes: &mut Vec<String>) {
    let shared = git2::Repository::discover(&ctx.root)
        .ok()
        .and_then(|repo| repo.remotes().ok().map(|remotes| !remotes.is_empty()))
        .unwrap_or(false);
    for missing in super::git_setup::missing(ctx) {
        if shared {
            problems.push(FileProblem::whole_file(
                &ctx.store.root.join(".gitattributes"),
                missing,
            ));
        } else {
            notes.push(missing);
        }
    }
}

/// A git index this large is rewritten whole by every commit unless git
/// splits it: a note that says how (steward-design(7), "Commits that cost
/// what changed").
fn check_index_size(ctx: &Context, notes: &mut Vec<String>) {
    if !ctx.config.git.commit {
        return;
    }
    let Ok(repo) = git2::Repository::discover(&ctx.root) else {
        return;
    };
    let config = repo.config().ok();
    let split_set = config
        .as_ref()
        .is_some_and(|config| config.get_bool("core.splitIndex").is_ok());
    // Version 4 (`index.version`, `feature.manyFiles`) is libgit2's to
    // write, and libgit2 cannot read a split index: no advice to split.
    let version_4 = config.as_ref().is_some_and(|config| {
        config.get_i32("index.version").is_ok_and(|v| v == 4)
            || config.get_bool("feature.manyFiles").unwrap_or(false)
    }) || index_version(&repo.path().join("index")) == Some(4);
    let size = std::fs::metadata(repo.path().join("index")).map_or(0, |m| m.len());
    if size >= LARGE_INDEX_BYTES && !split_set && !version_4 {
        notes.push(format!(
            "{}: the git index is {}, and each commit rewrites it whole; `git config core.splitIndex true` has steward and git rewrite only what changed (tools built on libgit2, such as some shell prompts, cannot read a split index)",
            repo.path().join("index").display(),
            human_bytes(size)
        ));
    }
}

/// What was moved aside from where steward's own files go
/// (`store::atomic::IN_THE_WAY`), in the state folders steward writes
/// single files in (a goal's seal folder is one of them).
fn in_the_way(state_dir: &Path) -> Vec<std::path::PathBuf> {
    let dirs = [
        state_dir.to_path_buf(),
        state_dir.join("cache"),
        state_dir.join("seals"),
        state_dir.join("seals/open"),
        state_dir.join("seals/closed"),
        state_dir.join("seals/vanished"),
    ];
    let mut found: Vec<std::path::PathBuf> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(crate::store::IN_THE_WAY)
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// The version in an index file's header (none for what is no regular
/// file: a FIFO there would hang the read).
fn index_version(path: &Path) -> Option<u32> {
    let mut header = [0u8; 8];
    let mut file = crate::os::safe_file::open_regular(path).ok()??;
    std::io::Read::read_exact(&mut file, &mut header).ok()?;
    Some(u32::from_be_bytes(header[4..8].try_into().ok()?))
}

/// An index of about 40,000 files: a commit spends 10 ms on it.
const LARGE_INDEX_BYTES: u64 = 4 * 1024 * 1024;

/// A status, priority or check type written by hand that steward does
/// not know: kept as written, and said (by `doctor`, `show`, `accept`, and
/// once by `tick`) with the word a person most likely meant.
pub fn unknown_values(goal: &crate::model::Goal) -> Vec<(Field, String)> {
    let meant = |word: Option<&str>, known: String| match word {
        Some(word) => format!("did you mean `{word}`? known: {known}"),
        None => format!("known: {known}"),
    };
    let mut found = Vec::new();
    if let Status::Unknown(status) = &goal.status {
        let known = Status::KNOWN.map(|s| s.as_str().to_string()).join(", ");
        found.push((
            Field::Status,
            format!(
                "unknown status `{status}` ({}): nothing automatic touches this goal until the line is fixed",
                meant(Status::meant(status), known)
            ),
        ));
    }
    if let Priority::Unknown(priority) = &goal.priority {
        found.push((
            Field::Priority,
            format!(
                "unknown priority `{priority}` ({}): treated as normal until the line is fixed",
                meant(
                    Priority::meant(priority),
                    "critical, high, normal, low".to_string()
                )
            ),
        ));
    }
    for check in &goal.verification {
        if let crate::model::CheckKind::Unknown(kind) = &check.kind {
            let near = crate::text::nearest(kind, crate::model::CheckKind::NAMES);
            found.push((
                Field::Verification,
                format!(
                    "unknown check type `{kind}` ({}): the check never passes until the line is fixed",
                    meant(near, crate::model::CheckKind::NAMES.join(", "))
                ),
            ));
        }
    }
    found
}

fn check_goal(ctx: &Context, loaded: &LoadedGoal, problems: &mut Vec<FileProblem>) {
    let goal = &loaded.goal;
    let file = &loaded.file;
    let mut at = |field: Field, message: String| problems.push(file.problem_at(field, message));
    if goal.id.is_empty() {
        at(
            Field::Id,
            "no id: steward adds one on the next change".to_string(),
        );
    }
    for (field, message) in unknown_values(goal) {
        at(field, message);
    }
    let policy = checking::policy(ctx);
    for check in &goal.verification {
        // An unknown type is said above, with what was likely meant.
        if !matches!(check.kind, crate::model::CheckKind::Unknown(_))
            && let Some(problem) = checking::never_passes(check, &policy)
        {
            at(Field::Verification, problem);
        }
        if let Some(n) = check.criterion.filter(|n| *n > goal.criteria.len()) {
            at(
                Field::Verification,
                format!(
                    "check tied to criterion {n}, but the goal has {}",
                    crate::text::count(goal.criteria.len(), "criterion", "criteria")
                ),
            );
        }
    }
    let in_closed = file.path.parent() == Some(ctx.store.closed_dir.as_path());
    if in_closed && !goal.status.is_terminal() {
        at(
            Field::Status,
            format!(
                "{} goal among closed goals: steward does not see it as open; move it to {}",
                goal.status,
                ctx.store.goals_dir.display()
            ),
        );
    }
    let stem = file
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !in_closed && !goal.status.is_terminal() && stem != goal.label {
        at(
            Field::Label,
            format!(
                "label `{}` does not match the file name `{stem}.md`",
                goal.label
            ),
        );
    }
}

fn check_duplicates(goals: &[LoadedGoal], problems: &mut Vec<FileProblem>) {
    let mut by_label: BTreeMap<&str, Vec<&LoadedGoal>> = BTreeMap::new();
    let mut by_id: BTreeMap<&str, Vec<&LoadedGoal>> = BTreeMap::new();
    for loaded in goals {
        if !loaded.goal.status.is_terminal() {
            by_label.entry(&loaded.goal.label).or_default().push(loaded);
        }
        if !loaded.goal.id.is_empty() {
            by_id.entry(&loaded.goal.id).or_default().push(loaded);
        }
    }
    for (field, name, groups) in [
        (Field::Label, "label", &by_label),
        (Field::Id, "id", &by_id),
    ] {
        for (value, holders) in groups.iter().filter(|(_, holders)| holders.len() > 1) {
            for holder in holders {
                let others: Vec<String> = holders
                    .iter()
                    .filter(|h| h.file.path != holder.file.path)
                    .map(|h| h.file.path.display().to_string())
                    .collect();
                problems.push(holder.file.problem_at(
                    field,
                    format!("{name} `{value}` is also used by {}", others.join(", ")),
                ));
            }
        }
    }
}

/// Goals changed outside steward, and goals closed by hand that still sit
/// among the open ones: `tick` records both.
fn check_outside_changes(
    ctx: &Context,
    goals: &[LoadedGoal],
    problems: &mut Vec<FileProblem>,
) -> Result<()> {
    let in_open_dir: Vec<LoadedGoal> = goals
        .iter()
        .filter(|g| g.file.path.parent() == Some(ctx.store.goals_dir.as_path()))
        .cloned()
        .collect();
    for goal in &in_open_dir {
        if let crate::store::Trust::Outside(outside) = ctx.store.trust_of(goal) {
            problems.push(goal.file.problem_at(
                Field::Status,
                format!(
                    "{} (edited_outside); `steward tick` records it and holds the goal for a person",
                    outside.detail
                ),
            ));
        }
        if let Some(waiting) = goal.goal.waiting.as_ref()
            && waiting.for_person == Some(crate::model::PersonWait::Review)
        {
            problems.push(goal.file.problem_at(
                Field::Status,
                format!(
                    "waits for {}: run `steward show {label}`, then `steward accept {label}`",
                    waiting.reason,
                    label = goal.goal.label
                ),
            ));
        }
    }
    for goal in in_open_dir.iter().filter(|g| g.goal.status.is_terminal()) {
        problems.push(goal.file.problem_at(
            Field::Status,
            format!(
                "{} by hand, no receipt; `steward tick` moves it to the closed goals",
                goal.goal.status
            ),
        ));
    }
    Ok(())
}

/// Temporary files left by a run that was killed mid-write.
/// Temporary files whose writer is gone are harmless: noted, and removed
/// by the next `tick`.
fn check_leftovers(ctx: &Context, notes: &mut Vec<String>) {
    for path in ctx.store.leftovers() {
        notes.push(format!(
            "{}: temporary file left by an interrupted write; `steward tick` removes it",
            path.display()
        ));
    }
}

fn check_drafts(ctx: &Context, problems: &mut Vec<FileProblem>) {
    let Ok(entries) = std::fs::read_dir(ctx.store.drafts_dir()) else {
        return;
    };
    // `<label>.md.base`, the goal as the draft was taken, goes with its draft.
    for entry in entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".base"))
    {
        problems.push(FileProblem {
            path: entry.path().display().to_string(),
            line: 1,
            column: 1,
            message:
                "unsaved draft from `steward edit`: reopen it with `steward edit`, or delete it"
                    .to_string(),
        });
    }
}

fn check_lock(ctx: &Context, notes: &mut Vec<String>) {
    let path = ctx.store.lock_path();
    if StoreLock::is_held(&path) {
        let holder = StoreLock::holder(&path)
            .map_or_else(|| "unknown pid".to_string(), |pid| format!("pid {pid}"));
        notes.push(format!("{}: held right now by {holder}", path.display()));
    }
}

/// Machine-local state past this is worth a note.
const LOCAL_STATE_NOTE_BYTES: u64 = 64 * 1024 * 1024;

/// `1.2 MiB`.
fn human_bytes(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}
