//! The structured status update of the Overseer design: an agent ends its
//! reply with a fenced `json` block holding `overseerUpdate`, which steward
//! reads without guessing. Strict keys, bounded strings.

use serde::Deserialize;

use super::NodeStatus;
use super::json::MAX_STRING_BYTES;

/// The most items of a list in an update.
const MAX_ITEMS: usize = 100;

/// What the agent reported.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Update {
    /// The goal, when the agent named it (a label or an id).
    pub goal: Option<String>,
    /// The plan node it worked on.
    pub node: Option<String>,
    pub status: Option<NodeStatus>,
    pub summary: String,
    pub next: Option<String>,
    pub blockers: Option<Vec<String>>,
    pub evidence: Evidence,
    /// A handoff given beside the update
    /// (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS").
    pub handoff: Option<crate::model::Handoff>,
}

/// What shows the work was done.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Evidence {
    #[serde(default)]
    pub files_touched: Vec<String>,
    #[serde(default)]
    pub tests_run: Vec<String>,
    #[serde(default)]
    pub commits: Vec<String>,
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        self.files_touched.is_empty() && self.tests_run.is_empty() && self.commits.is_empty()
    }

    /// One line for the history: what was touched, run and committed.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        for (what, items) in [
            ("files", &self.files_touched),
            ("tests", &self.tests_run),
            ("commits", &self.commits),
        ] {
            if !items.is_empty() {
                parts.push(format!("{what} {}", items.join(", ")));
            }
        }
        parts.join("; ")
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    #[serde(rename = "overseerUpdate")]
    update: Raw,
    #[serde(default)]
    handoff: Option<crate::model::Handoff>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Raw {
    goal_id: Option<String>,
    work_node_id: Option<String>,
    status: Option<String>,
    summary: Option<String>,
    next: Option<String>,
    blockers: Option<Vec<String>>,
    #[serde(default)]
    evidence: Evidence,
}

/// Reads the update from `text`: the last fenced `json` block holding
/// `overseerUpdate`, or the whole text when it is that JSON object.
pub fn extract(text: &str) -> Result<Update, String> {
    let candidates = fenced_json_blocks(text);
    let source = candidates
        .iter()
        .rev()
        .find(|block| block.contains("\"overseerUpdate\""))
        .copied()
        .or_else(|| {
            let whole = text.trim();
            (whole.starts_with('{') && whole.contains("\"overseerUpdate\"")).then_some(whole)
        })
        .ok_or_else(|| {
            "no structured update: end the reply with a fenced ```json block holding {\"overseerUpdate\": {...}}".to_string()
        })?;
    let envelope: Envelope = serde_json::from_str(source)
        .map_err(|err| format!("the overseerUpdate block does not read: {err}"))?;
    let raw = envelope.update;
    let handoff = envelope.handoff;
    let status = raw
        .status
        .map(|s| {
            NodeStatus::parse(&s).ok_or_else(|| {
                format!(
                    "overseerUpdate.status: `{s}`: expected todo, queued, in_progress, blocked, done or cancelled"
                )
            })
        })
        .transpose()?;
    let summary = raw
        .summary
        .ok_or("overseerUpdate.summary: missing: say what changed since the last update")?;
    let update = Update {
        goal: raw.goal_id.map(|g| bounded("goalId", g)).transpose()?,
        node: raw
            .work_node_id
            .map(|n| bounded("workNodeId", n))
            .transpose()?,
        status,
        summary: bounded("summary", summary)?,
        next: raw.next.map(|n| bounded("next", n)).transpose()?,
        blockers: raw.blockers.map(|b| list("blockers", b)).transpose()?,
        evidence: Evidence {
            files_touched: list("evidence.filesTouched", raw.evidence.files_touched)?,
            tests_run: list("evidence.testsRun", raw.evidence.tests_run)?,
            commits: list("evidence.commits", raw.evidence.commits)?,
        },
        handoff,
    };
    Ok(update)
}

/// A string of at most 64 KiB, as one line.
fn bounded(key: &str, text: String) -> Result<String, String> {
    if text.len() > MAX_STRING_BYTES {
        return Err(format!(
            "overseerUpdate.{key}: {} bytes: at most 64 KiB",
            text.len()
        ));
    }
    let line = crate::text::one_line(&text);
    if line.is_empty() {
        return Err(format!("overseerUpdate.{key}: empty"));
    }
    Ok(line)
}

fn list(key: &str, items: Vec<String>) -> Result<Vec<String>, String> {
    if items.len() > MAX_ITEMS {
        return Err(format!(
            "overseerUpdate.{key}: {} items: at most {MAX_ITEMS}",
            items.len()
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| bounded(&format!("{key}[{index}]"), item))
        .collect()
}

/// The contents of the fenced code blocks whose info string is `json`.
fn fenced_json_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        match open {
            None => {
                let fence = if trimmed.starts_with("```") {
                    "```"
                } else if trimmed.starts_with("~~~") {
                    "~~~"
                } else {
                    continue;
                };
                let info = trimmed
                    .trim_start_matches(fence.chars().next().unwrap())
                    .trim();
                if info.eq_ignore_ascii_case("json") {
                    open = Some((offset, fence));
                } else {
                    // Some other block: skip to its end.
                    open = Some((usize::MAX, fence));
                }
            }
            Some((content_start, fence)) => {
                if trimmed.starts_with(fence)
                    && trimmed
                        .trim_start_matches(fence.chars().next().unwrap())
                        .is_empty()
                {
                    if content_start != usize::MAX {
                        blocks.push(&text[content_start..start]);
                    }
                    open = None;
                }
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's example, as an agent's reply ends with it.
    const SEED_EXAMPLE: &str = r#"Done with the route; tests pass.

```json
{
  "overseerUpdate": {
    "goalId": "goal_...",
    "workNodeId": "S1.2.3",
    "status": "in_progress",
    "summary": "What changed since last dispatch",
    "next": "Next concrete action",
    "blockers": ["..."],
    "evidence": {
      "filesTouched": ["..."],
      "testsRun": ["..."],
      "commits": ["..."]
    }
  }
}
```
"#;

    #[test]
    fn the_seed_example_reads() {
        let update = extract(SEED_EXAMPLE).unwrap();
        assert_eq!(update.goal.as_deref(), Some("goal_..."));
        assert_eq!(update.node.as_deref(), Some("S1.2.3"));
        assert_eq!(update.status, Some(NodeStatus::InProgress));
        assert_eq!(update.summary, "What changed since last dispatch");
        assert_eq!(update.next.as_deref(), Some("Next concrete action"));
        assert_eq!(update.blockers, Some(vec!["...".to_string()]));
        assert_eq!(update.evidence.line(), "files ...; tests ...; commits ...");
    }

    #[test]
    fn the_last_block_with_an_update_counts() {
        let text = "```json\n{\"overseerUpdate\": {\"summary\": \"first\"}}\n```\nthen\n```json\n{\"other\": 1}\n```\n```json\n{\"overseerUpdate\": {\"summary\": \"second\"}}\n```\n";
        assert_eq!(extract(text).unwrap().summary, "second");
        let bare = "{\"overseerUpdate\": {\"summary\": \"a file of JSON\", \"status\": \"done\"}}";
        assert_eq!(extract(bare).unwrap().status, Some(NodeStatus::Done));
    }

    #[test]
    fn anything_else_is_a_clear_error() {
        assert!(
            extract("All done!")
                .unwrap_err()
                .contains("no structured update")
        );
        let unknown =
            "```json\n{\"overseerUpdate\": {\"summary\": \"s\", \"mood\": \"good\"}}\n```";
        assert!(
            extract(unknown)
                .unwrap_err()
                .contains("unknown field `mood`")
        );
        let status =
            "```json\n{\"overseerUpdate\": {\"summary\": \"s\", \"status\": \"finished\"}}\n```";
        assert!(
            extract(status)
                .unwrap_err()
                .contains("`finished`: expected todo")
        );
        let summary = "```json\n{\"overseerUpdate\": {\"status\": \"done\"}}\n```";
        assert!(extract(summary).unwrap_err().contains("summary: missing"));
        let long = format!(
            "```json\n{{\"overseerUpdate\": {{\"summary\": \"{}\"}}}}\n```",
            "x".repeat(MAX_STRING_BYTES + 1)
        );
        assert!(extract(&long).unwrap_err().contains("at most 64 KiB"));
        let code = "```rust\n// {\"overseerUpdate\": {}}\n```\n";
        assert!(extract(code).unwrap_err().contains("no structured update"));
    }
}
