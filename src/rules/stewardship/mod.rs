//! The stewardship block (steward-guide(7), "The stewardship block (`prompt`)"):
//! pure functions from (goals, config, now, rotation) to the text an agent
//! reads on its heartbeat turn.

pub mod heartbeat;
pub mod render;
pub mod select;

use chrono::{DateTime, Utc};

use crate::config::Config;
use crate::model::Goal;
use crate::model::book::Book;
use select::Rotation;

/// What one heartbeat offers the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Composition<'g> {
    pub text: String,
    /// Goals with a block, in order.
    pub offered: Vec<&'g Goal>,
    /// Candidates that wait for a later turn (no room this time).
    pub waiting: Vec<&'g Goal>,
    /// Goals listed in the attention section.
    pub attention: Vec<&'g Goal>,
}

/// The heartbeat text for `open` goals within `max_chars`, with `extra`
/// (pending obligations) kept whole when it fits. The attention section and
/// `extra` come first in the budget; the goal blocks share what is left.
/// What a block is written against besides the goals.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub book: &'a Book,
    pub config: &'a Config,
    pub now: DateTime<Utc>,
    /// The hourly dispatch window is full: no `--dispatched` is offered.
    pub window_spent: bool,
}

pub fn compose<'g>(
    open: &[&'g Goal],
    frame: &Frame<'_>,
    rotation: &Rotation,
    max_chars: usize,
    extra: &str,
) -> Composition<'g> {
    let Frame {
        book,
        config,
        now,
        window_spent,
    } = *frame;
    let attention_goals: Vec<&Goal> = open
        .iter()
        .copied()
        .filter(|g| needs_attention(g))
        .collect();
    let attention = render::attention_section(&attention_goals, now, max_chars / 2);
    let extra = if render::char_len(extra) + render::char_len(&attention) <= max_chars {
        extra
    } else {
        ""
    };
    let budget = max_chars.saturating_sub(render::char_len(&attention) + render::char_len(extra));
    let candidates: Vec<&Goal> = open
        .iter()
        .copied()
        .filter(|g| select::is_candidate(g, now) && !rotation.ignored(g, now))
        .collect();
    let ordered = select::order(candidates, config, rotation);
    let chosen = select::allocate(&ordered, config, budget);
    // Render at the allotted shares; what short blocks leave unused goes to
    // the blocks that had to be cut.
    let render =
        |goal: &Goal, share: usize| render::goal_block(goal, book, now, share, window_spent);
    let mut blocks: Vec<String> = chosen.iter().map(|(g, share)| render(g, *share)).collect();
    let unused: usize = chosen
        .iter()
        .zip(&blocks)
        .map(|((_, share), block)| share.saturating_sub(render::char_len(block)))
        .sum();
    let cut: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, block)| block.contains("…\n"))
        .map(|(index, _)| index)
        .collect();
    if unused > 0 && !cut.is_empty() {
        let extra = unused / cut.len();
        for index in cut {
            let (goal, share) = chosen[index];
            blocks[index] = render(goal, share + extra);
        }
    }
    let mut text = blocks.concat();
    text.push_str(&attention);
    text.push_str(extra);
    let offered: Vec<&Goal> = chosen.iter().map(|(g, _)| *g).collect();
    let waiting = ordered
        .into_iter()
        .filter(|g| !offered.iter().any(|o| o.id == g.id && o.label == g.label))
        .collect();
    Composition {
        text,
        offered,
        waiting,
        attention: if attention.is_empty() {
            Vec::new()
        } else {
            attention_goals
        },
    }
}

/// What a loop driving an agent should do next (steward-design(7), "The loop contract").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopStatus {
    /// A goal is workable, or a subagent's result waits: call the agent.
    Work,
    /// Nothing is workable and a goal waits for a person: tell them.
    NeedsPerson,
    /// Nothing to do now: goals cool down, subagents run, nothing is open.
    Idle,
}

impl LoopStatus {
    /// `prompt --exit-status`: 0, 3 or 5.
    pub fn exit_code(self) -> crate::exit::ExitCode {
        match self {
            LoopStatus::Work => crate::exit::ExitCode::Success,
            LoopStatus::NeedsPerson => crate::exit::ExitCode::Attention,
            LoopStatus::Idle => crate::exit::ExitCode::Idle,
        }
    }
}

/// Work when a goal is a candidate or an obligation asks the agent to act
/// (a result to deliver, a failure to report); else a person is needed when
/// a goal is blocked or unconfirmed; else idle.
pub fn loop_status(open: &[&Goal], book: &Book, now: DateTime<Utc>) -> LoopStatus {
    let agent_owes = book
        .obligations
        .iter()
        .any(|o| o.status == crate::model::ObligationStatus::Arrived || o.status.is_unsuccessful());
    if agent_owes || open.iter().any(|g| select::is_candidate(g, now)) {
        return LoopStatus::Work;
    }
    let waits_for_person = open.iter().any(|g| {
        use crate::model::Status;
        g.status == Status::Blocked
            || (!g.confirmed && !g.status.is_terminal() && g.status != Status::Paused)
            || g.waiting.as_ref().is_some_and(|w| w.for_person.is_some())
    });
    if waits_for_person {
        LoopStatus::NeedsPerson
    } else {
        LoopStatus::Idle
    }
}

fn needs_attention(goal: &Goal) -> bool {
    use crate::model::Status;
    match goal.status {
        Status::Blocked | Status::Stalled => true,
        Status::Paused => false,
        ref status => !goal.confirmed && !status.is_terminal(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static BOOK: std::sync::LazyLock<Book> = std::sync::LazyLock::new(Book::default);

    fn frame(config: &Config) -> Frame<'_> {
        Frame {
            book: &BOOK,
            config,
            now: now(),
            window_spent: false,
        }
    }

    fn goal(label: &str, extra: &str) -> Goal {
        let text = format!(
            "---\nid: id-{label}\nlabel: {label}\n{extra}\n---\n{}\n## Acceptance criteria\n\n- [ ] one\n",
            "Long words. ".repeat(300)
        );
        crate::store::testing::parse_goal(&text)
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn the_whole_text_never_exceeds_the_cap() {
        let config = Config::default();
        let goals: Vec<Goal> = (0..12)
            .map(|n| {
                goal(
                    &format!("g{n}"),
                    if n % 3 == 0 {
                        "status: blocked\nescalation: {kind: agent, reason: stuck}"
                    } else {
                        "priority: high"
                    },
                )
            })
            .collect();
        let refs: Vec<&Goal> = goals.iter().collect();
        for cap in [0, 100, 399, 400, 1000, 2500, 12_000] {
            let composition = compose(&refs, &frame(&config), &Rotation::default(), cap, "");
            assert!(
                render::char_len(&composition.text) <= cap,
                "{} > {cap}",
                render::char_len(&composition.text)
            );
            let blocks = composition.text.matches("<goal-stewardship ").count();
            assert_eq!(
                blocks,
                composition.text.matches("</goal-stewardship>").count()
            );
            assert_eq!(blocks, composition.offered.len());
        }
    }

    #[test]
    fn nothing_to_do_is_empty() {
        let config = Config::default();
        let fresh = goal("g", "progress: {last_assessed_at: 2026-11-21T11:55:00Z}");
        let composition = compose(&[&fresh], &frame(&config), &Rotation::default(), 12_000, "");
        assert_eq!(composition.text, "");
        assert!(composition.offered.is_empty());
    }
}
