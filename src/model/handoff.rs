//! What a session leaves for the next: the goal's record (who to tell,
//! where it came from, its constraints, non-goals and risks) and the
//! structured handoff, so a fresh session starts where the last stopped
//! (steward-guide(7), "NOTHING LOST BETWEEN SESSIONS").

use serde::{Deserialize, Serialize};

/// The goal's record: optional keys of its front matter.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    /// Who to tell: a name, an address, a handle (never a secret).
    pub owner: Option<String>,
    /// Where the goal came from: a session, an issue URL.
    pub origin: Option<String>,
    pub constraints: Vec<String>,
    pub non_goals: Vec<String>,
    pub risks: Vec<String>,
    /// `auto`: plan it before work (a planning run); `off`: work it
    /// without a plan. `None`: as `dispatch.plan` says.
    pub planning: Option<Planning>,
    /// `true`: its runs work in git worktrees of their own; `false`: in
    /// the root. `None`: as `dispatch.worktree` says.
    pub worktree: Option<bool>,
    /// The machines (names or `machine.tags`) its runs may start on;
    /// empty: any.
    pub runs_on: Vec<String>,
    /// The pull request steward opened for its runs' branch
    /// (`owner/repo#N`, `dispatch.pull_request`): what `pr_merged:pr` and
    /// `ci_green:pr` follow. Steward's to write, as the checks are.
    pub pull_request: Option<String>,
}

/// Whether dispatch plans a goal before working on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planning {
    Auto,
    Off,
}

impl Planning {
    pub fn parse(text: &str) -> Option<Planning> {
        match text {
            "auto" => Some(Planning::Auto),
            "off" => Some(Planning::Off),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Planning::Auto => "auto",
            Planning::Off => "off",
        }
    }
}

impl Record {
    pub fn is_empty(&self) -> bool {
        *self == Record::default()
    }

    /// The record as lines for people and agents (`Owner: …`), empty when
    /// nothing is set.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(owner) = &self.owner {
            lines.push(format!("Owner: {owner}"));
        }
        if let Some(origin) = &self.origin {
            lines.push(format!("Origin: {origin}"));
        }
        if let Some(pull) = &self.pull_request {
            lines.push(format!("Pull request: {pull}"));
        }
        if let Some(planning) = self.planning {
            lines.push(format!("Planning: {}", planning.as_str()));
        }
        if let Some(worktree) = self.worktree {
            lines.push(format!("Worktree: {worktree}"));
        }
        for (name, list) in [
            ("Constraints", &self.constraints),
            ("Non-goals", &self.non_goals),
            ("Risks", &self.risks),
            ("Runs on", &self.runs_on),
        ] {
            if !list.is_empty() {
                lines.push(format!("{name}: {}", list.join("; ")));
            }
        }
        lines
    }
}

/// A decision and why it was taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
}

/// What shows the work: anchors another session can follow.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffEvidence {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub urls: Vec<String>,
}

impl HandoffEvidence {
    pub fn is_empty(&self) -> bool {
        *self == HandoffEvidence::default()
    }
}

/// One handoff. `at`, `by` and `node` are steward's to fill in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handoff {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The plan node it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_state: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<Decision>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_questions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<String>,
    #[serde(default, skip_serializing_if = "HandoffEvidence::is_empty")]
    pub evidence: HandoffEvidence,
}

/// The longest string of a handoff.
pub const MAX_HANDOFF_STRING: usize = 64 * 1024;
/// The most items of one list of a handoff.
pub const MAX_HANDOFF_ITEMS: usize = 50;

impl Handoff {
    /// Checks the bounds: every string at most 64 KiB and not empty, every
    /// list at most 50 items; `Err` names the key.
    pub fn validate(&self) -> Result<(), String> {
        let text = |key: &str, value: &str| -> Result<(), String> {
            if value.trim().is_empty() {
                return Err(format!("{key}: empty"));
            }
            if value.len() > MAX_HANDOFF_STRING {
                return Err(format!("{key}: {} bytes: at most 64 KiB", value.len()));
            }
            Ok(())
        };
        let list = |key: &str, items: &[String]| -> Result<(), String> {
            if items.len() > MAX_HANDOFF_ITEMS {
                return Err(format!(
                    "{key}: {} items: at most {MAX_HANDOFF_ITEMS}",
                    items.len()
                ));
            }
            items
                .iter()
                .enumerate()
                .try_for_each(|(i, item)| text(&format!("{key}[{i}]"), item))
        };
        text("summary", &self.summary)?;
        if let Some(state) = &self.current_state {
            text("current_state", state)?;
        }
        if self.decisions.len() > MAX_HANDOFF_ITEMS {
            return Err(format!(
                "decisions: {} items: at most {MAX_HANDOFF_ITEMS}",
                self.decisions.len()
            ));
        }
        for (i, decision) in self.decisions.iter().enumerate() {
            text(&format!("decisions[{i}].decision"), &decision.decision)?;
            if let Some(why) = &decision.rationale {
                text(&format!("decisions[{i}].rationale"), why)?;
            }
        }
        list("next_actions", &self.next_actions)?;
        list("open_questions", &self.open_questions)?;
        list("blockers", &self.blockers)?;
        let e = &self.evidence;
        for (key, items) in [
            ("evidence.files", &e.files),
            ("evidence.commands", &e.commands),
            ("evidence.tests", &e.tests),
            ("evidence.commits", &e.commits),
            ("evidence.prs", &e.prs),
            ("evidence.urls", &e.urls),
        ] {
            list(key, items)?;
        }
        Ok(())
    }

    /// The handoff as lines for the next session, at most `max_chars`
    /// characters: summary, state, decisions, next actions, questions,
    /// blockers, evidence.
    pub fn lines(&self) -> Vec<String> {
        let one = crate::text::one_line;
        let mut lines = vec![format!(
            "Last handoff ({}{}): {}",
            self.at.as_deref().unwrap_or("undated"),
            self.by
                .as_deref()
                .map(|by| format!(" by {by}"))
                .unwrap_or_default(),
            one(&self.summary)
        )];
        if let Some(node) = &self.node {
            lines.push(format!("On plan node: {node}"));
        }
        if let Some(state) = &self.current_state {
            lines.push(format!("State: {}", one(state)));
        }
        for decision in &self.decisions {
            lines.push(match &decision.rationale {
                Some(why) => format!(
                    "Decided: {} (because {})",
                    one(&decision.decision),
                    one(why)
                ),
                None => format!("Decided: {}", one(&decision.decision)),
            });
        }
        for action in &self.next_actions {
            lines.push(format!("Next: {}", one(action)));
        }
        for question in &self.open_questions {
            lines.push(format!("Open question: {}", one(question)));
        }
        for blocker in &self.blockers {
            lines.push(format!("Blocker: {}", one(blocker)));
        }
        let e = &self.evidence;
        let anchors: Vec<&String> = e
            .files
            .iter()
            .chain(&e.commands)
            .chain(&e.tests)
            .chain(&e.commits)
            .chain(&e.prs)
            .chain(&e.urls)
            .collect();
        if !anchors.is_empty() {
            lines.push(format!(
                "Evidence: {}",
                anchors
                    .iter()
                    .map(|a| one(a))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        lines
    }
}
