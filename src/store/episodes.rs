//! Episodes (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS"): when a goal
//! completes, fails or is abandoned, a short Markdown note is appended to
//! the memory file `episodes.path` names (`{date}` is the UTC date), the
//! file agents such as OpenClaw read. Appending never rewrites what is
//! there.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Result};
use crate::model::duration::HumanDuration;
use crate::model::{Goal, Status, format_time};

/// Makes the folders from `root` down to the one `path` is in, one at a
/// time, refusing a link on the way: a folder named by `{date}` does not
/// exist when the configuration is checked, and an agent could make it a
/// link to anywhere before its day comes.
fn make_folders(root: &Path, path: &Path) -> Result<()> {
    let Ok(relative) = path.strip_prefix(root) else {
        return Ok(());
    };
    let parts: Vec<_> = relative.components().collect();
    let mut at = root.to_path_buf();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        if let Err(err) = std::fs::create_dir(&at)
            && err.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(Error::io(&at, "cannot create directory", err));
        }
        let metadata = std::fs::symlink_metadata(&at)
            .map_err(|err| Error::io(&at, "cannot read directory", err))?;
        if !metadata.is_dir() {
            let why = std::io::Error::other(
                "not a folder (a link is never followed: episodes stay inside the store)",
            );
            return Err(Error::io(&at, "cannot write the episode under", why));
        }
    }
    Ok(())
}

/// The file an episode at `at` goes to, `{date}` filled in; relative paths
/// are under `root`.
pub fn path(template: &str, root: &Path, at: DateTime<Utc>) -> PathBuf {
    let path = PathBuf::from(template.replace("{date}", &at.format("%Y-%m-%d").to_string()));
    if path.is_absolute() {
        path
    } else {
        root.join(path)
    }
}

/// The episode of a goal that ended at `at`, as Markdown, with the runs it
/// took.
pub fn render(goal: &Goal, at: DateTime<Utc>, runs: usize) -> String {
    let one = crate::text::one_line;
    let how = match goal.status {
        Status::Completed => "completed",
        Status::Failed => "failed",
        _ => "abandoned",
    };
    let mut out = format!(
        "## {} — {} {how}\n\n{} (`{}`",
        format_time(at),
        goal.label,
        one(&goal.title),
        goal.label
    );
    if let Some(owner) = &goal.record.owner {
        out.push_str(&format!(", owner {}", one(owner)));
    }
    if let Some(origin) = &goal.record.origin {
        out.push_str(&format!(", from {}", one(origin)));
    }
    out.push_str(").\n\n");
    match &goal.closed_reason {
        Some(reason) => out.push_str(&format!("- Why: {}\n", one(reason))),
        None if goal.receipt.is_none() => out.push_str("- Closed by hand, no reason given\n"),
        None => {}
    }
    if let Some(receipt) = &goal.receipt {
        let unchecked = receipt.unchecked().count();
        out.push_str(&format!(
            "- Judged by {}: {} of {} criteria met{}\n",
            receipt.judged_by,
            goal.criteria_met(),
            goal.criteria.len(),
            if unchecked > 0 {
                format!(", {unchecked} on the agent's word")
            } else {
                String::new()
            }
        ));
        // The evidence: what each check saw, and what each criterion
        // rests on.
        for check in &receipt.checks {
            out.push_str(&format!(
                "  - check {} {}: {}{}\n",
                check.kind,
                one(&check.target),
                check.result,
                if check.detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", one(&check.detail))
                }
            ));
        }
        for criterion in &receipt.criteria {
            out.push_str(&format!(
                "  - criterion {} ({}): {}\n",
                criterion.n,
                one(&criterion.text),
                criterion.basis.describe()
            ));
        }
    }
    let took = goal
        .created_at
        .map(|created| HumanDuration::from_secs((at - created).num_seconds().max(0) as u64));
    out.push_str(&format!(
        "- {}{runs} run(s), ${:.2}, {} assessment(s)\n",
        took.map(|t| format!("Took {t}; ")).unwrap_or_default(),
        goal.progress.cost_usd,
        goal.progress.iterations()
    ));
    if let Some(outcome) = &goal.progress.last_outcome {
        out.push_str(&format!("- Last: {}\n", one(outcome)));
    }
    if let Some(handoff) = &goal.handoff {
        for decision in &handoff.decisions {
            out.push_str(&format!("- Decided: {}", one(&decision.decision)));
            if let Some(why) = &decision.rationale {
                out.push_str(&format!(" (because {})", one(why)));
            }
            out.push('\n');
        }
    }
    out
}

/// Appends `episode` to `path`, with a blank line before it when the file
/// has text; nothing else in the file changes.
pub fn append(root: &Path, path: &Path, episode: &str) -> Result<()> {
    make_folders(root, path)?;
    // Never through a link (it could lead anywhere) nor to a FIFO.
    let mut file = crate::os::safe_file::open_append(path)
        .map_err(|err| Error::io(path, "cannot open the episode file", err))?;
    let mut last = [0u8; 2];
    let len = file
        .metadata()
        .map_err(|err| Error::io(path, "cannot read the episode file", err))?
        .len();
    let tail = &mut last[..len.min(2) as usize];
    std::os::unix::fs::FileExt::read_exact_at(&file, tail, len.saturating_sub(2))
        .map_err(|err| Error::io(path, "cannot read the episode file", err))?;
    let lead = match &*tail {
        [] => "",
        [b'\n', b'\n'] => "",
        [.., b'\n'] => "\n",
        _ => "\n\n",
    };
    file.write_all(format!("{lead}{episode}").as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|err| Error::io(path, "cannot append the episode", err))
}
