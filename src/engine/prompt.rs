//! `prompt`: what the agent reads on its turn
//! (steward-guide(7), "The stewardship block (`prompt`)"). The block is
//! composed by `crate::rules::stewardship` (pure); this reads the goals, the
//! obligations and the rotation, and advances the rotation.

use std::path::Path;

use super::Notices;
use crate::context::Context;
use crate::error::Result;
use crate::model::Goal;
use crate::rules::stewardship::heartbeat::HeartbeatPatterns;
use crate::rules::stewardship::render::{char_len, pending_block, summary_lines};
use crate::rules::stewardship::select::Rotation;
use crate::rules::stewardship::{self, LoopStatus};
use crate::store::Scope;

/// Which kind of turn the agent is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// A heartbeat: offer the goals due for work.
    Heartbeat,
    /// The person's last message, which may be a heartbeat.
    Message(String),
    /// An ordinary turn: one-line summaries.
    Ordinary,
}

#[derive(Debug, Clone)]
pub struct PromptRequest {
    pub turn: Turn,
    /// Cap on the characters; `None`: `multi_goal_max_chars`.
    pub max_chars: Option<usize>,
}

/// The text for the agent and what it offered.
#[derive(Debug)]
pub struct PromptOutcome {
    pub heartbeat: bool,
    pub text: String,
    /// Goals with a block, in order.
    pub offered: Vec<String>,
    /// Candidates that wait for a later turn (no room this time).
    pub waiting: Vec<String>,
    /// Goals listed as needing a person.
    pub attention: Vec<String>,
    /// What a loop should do next: work, tell a person, or wait.
    pub status: LoopStatus,
    /// Goal files that could not be read, a rotation that started over.
    pub warnings: Vec<String>,
    pub notices: Notices,
}

pub fn prompt(ctx: &Context, request: &PromptRequest) -> Result<PromptOutcome> {
    let mut outcome = PromptOutcome {
        heartbeat: false,
        text: String::new(),
        offered: Vec::new(),
        waiting: Vec::new(),
        attention: Vec::new(),
        status: LoopStatus::Idle,
        warnings: Vec::new(),
        notices: Notices::default(),
    };
    if !ctx.config.enabled {
        return Ok(outcome);
    }
    let max_chars = request
        .max_chars
        .unwrap_or(ctx.config.multi_goal_max_chars as usize);
    outcome.heartbeat = match &request.turn {
        Turn::Heartbeat => true,
        Turn::Message(text) => {
            HeartbeatPatterns::compile(&ctx.config.heartbeat_patterns).matches(text)
        }
        Turn::Ordinary => false,
    };
    let scan = ctx.store.scan(Scope::Open)?;
    outcome
        .warnings
        .extend(scan.problems.iter().map(ToString::to_string));
    let open: Vec<&Goal> = scan.goals.iter().map(|g| &*g.goal).collect();
    let book = ctx.store.obligations()?;
    outcome.status = stewardship::loop_status(&open, &book, ctx.now);
    // What subagents owe is shown on every turn, heartbeat or not.
    let pending = pending_block(&book, ctx.now, max_chars);
    if !outcome.heartbeat {
        outcome.text = summary_lines(&open, max_chars.saturating_sub(char_len(&pending)));
        outcome.text.push_str(&pending);
        return Ok(outcome);
    }
    let rotation_path = ctx.store.state_dir.join("rotation.json");
    let rotation = read_rotation(&rotation_path, &mut outcome.warnings);
    let window_spent = super::limits::dispatches_last_hour_seen(ctx)?
        >= ctx.config.global_limits.max_dispatches_per_hour;
    let frame = stewardship::Frame {
        book: &book,
        config: &ctx.config,
        now: ctx.now,
        window_spent,
    };
    // A goal the block would offer is first looked at as the judge looks
    // at it: one changed outside steward waits for a person's review, not
    // for work (only the few offered are hashed).
    // Each goal is looked at once: one found steward's stays so.
    let mut held: Vec<Goal> = Vec::new();
    let mut looked_at: Vec<String> = Vec::new();
    let mut composition = stewardship::compose(&open, &frame, &rotation, max_chars, &pending);
    loop {
        let fresh: Vec<&crate::store::LoadedGoal> = (composition.offered.iter())
            .filter(|offered| !looked_at.contains(&offered.id))
            .filter_map(|offered| scan.goals.iter().find(|g| g.goal.id == offered.id))
            .collect();
        looked_at.extend(fresh.iter().map(|loaded| loaded.goal.id.clone()));
        let newly: Vec<Goal> = (fresh.into_iter())
            .filter_map(|loaded| ctx.store.as_judged(loaded, ctx.now))
            .collect();
        if newly.is_empty() {
            break;
        }
        held.extend(newly);
        let open = with_held(&scan.goals, &held);
        composition = stewardship::compose(&open, &frame, &rotation, max_chars, &pending);
    }
    let open = with_held(&scan.goals, &held);
    outcome.status = stewardship::loop_status(&open, &book, ctx.now);
    if !composition.offered.is_empty() {
        let mut tx = ctx.transaction()?;
        // Another prompt may have advanced it meanwhile: start from the file.
        let mut rotation = read_rotation(&rotation_path, &mut outcome.warnings);
        rotation.advance(&composition.offered, &open, ctx.now);
        tx.write_file(
            &rotation_path,
            &(serde_json::to_string(&rotation).expect("rotation serializes") + "\n"),
        )?;
        outcome.notices = super::finish(tx)?;
    }
    let labels = |goals: &[&Goal]| goals.iter().map(|g| g.label.clone()).collect();
    // Offered nothing though a goal is workable: its last offer was
    // ignored within its cooldown. A loop waits, it does not call again.
    let owes = book
        .obligations
        .iter()
        .any(|o| o.status == crate::model::ObligationStatus::Arrived || o.status.is_unsuccessful());
    if outcome.status == LoopStatus::Work && composition.offered.is_empty() && !owes {
        outcome.status = LoopStatus::Idle;
    }
    outcome.offered = labels(&composition.offered);
    outcome.waiting = labels(&composition.waiting);
    outcome.attention = labels(&composition.attention);
    outcome.text = composition.text;
    Ok(outcome)
}

/// The open goals, each in `held`'s version where it has one.
fn with_held<'g>(goals: &'g [crate::store::LoadedGoal], held: &'g [Goal]) -> Vec<&'g Goal> {
    (goals.iter())
        .map(|g| held.iter().find(|h| h.id == g.goal.id).unwrap_or(&*g.goal))
        .collect()
}

/// The rotation so far; a file steward cannot read starts it over.
fn read_rotation(path: &Path, warnings: &mut Vec<String>) -> Rotation {
    match crate::os::safe_file::read_text(path, crate::os::safe_file::STATE_BYTES) {
        Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_else(|err| {
            warnings.push(format!(
                "{}: {err}; the rotation starts over",
                path.display()
            ));
            Rotation::default()
        }),
        Ok(None) => Rotation::default(),
        Err(err) => {
            warnings.push(format!(
                "{}: {err}; the rotation starts over",
                path.display()
            ));
            Rotation::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::Store;

    #[test]
    fn a_heartbeat_offers_the_goal_with_its_commands_and_rotates() {
        let store = Store::new();
        store.goal("ship", "", &["tests pass"]);
        let request = PromptRequest {
            turn: Turn::Message("heartbeat".into()),
            max_chars: None,
        };
        let outcome = prompt(&store.ctx(), &request).unwrap();
        assert!(outcome.heartbeat);
        assert_eq!(outcome.offered, ["ship"]);
        assert!(
            outcome.text.contains("<goal-stewardship goal=\"ship\">"),
            "{}",
            outcome.text
        );
        assert!(
            outcome.text.contains("steward --actor agent assess ship"),
            "{}",
            outcome.text
        );
        assert!(store.read("state/rotation.json").contains("ship"));
    }

    #[test]
    fn an_ordinary_turn_gets_one_line_per_goal() {
        let store = Store::new();
        store.goal("ship", "", &["tests pass"]);
        let request = PromptRequest {
            turn: Turn::Ordinary,
            max_chars: None,
        };
        let outcome = prompt(&store.ctx(), &request).unwrap();
        assert!(!outcome.heartbeat);
        assert_eq!(outcome.text.lines().count(), 1, "{}", outcome.text);
    }
}
