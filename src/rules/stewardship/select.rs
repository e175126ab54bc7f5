//! Which goals get this heartbeat, and how much of the block each gets.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::model::{Goal, Status};

/// A goal whose share of the characters would be smaller waits.
pub const MIN_SHARE: usize = 400;

/// Round-robin memory kept between calls: the turn at which each goal was
/// last offered, and when. Goals never offered come first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rotation {
    pub next_turn: u64,
    pub served: BTreeMap<String, u64>,
    #[serde(default)]
    pub offered_at: BTreeMap<String, DateTime<Utc>>,
}

impl Rotation {
    /// Records that `goals` were offered at `now`, and forgets goals no
    /// longer open.
    pub fn advance(&mut self, goals: &[&Goal], open: &[&Goal], now: DateTime<Utc>) {
        self.served.retain(|id, _| open.iter().any(|g| g.id == *id));
        self.offered_at
            .retain(|id, _| open.iter().any(|g| g.id == *id));
        for goal in goals {
            self.served.insert(goal.id.clone(), self.next_turn);
            self.offered_at.insert(goal.id.clone(), now);
            self.next_turn += 1;
        }
    }

    /// Whether `goal` was offered within its cooldown and nothing was
    /// assessed since: an agent that ignored the offer (or a loop that
    /// calls an agent that records nothing) is not offered it again
    /// before the cooldown is over, as if it had assessed.
    pub fn ignored(&self, goal: &Goal, now: DateTime<Utc>) -> bool {
        self.offered_at.get(&goal.id).is_some_and(|offered| {
            goal.progress
                .last_assessed_at
                .is_none_or(|at| at < *offered)
                && now - *offered < goal.budget.cooldown.to_chrono()
        })
    }
}

/// Goals the agent should work on now: open, not blocked or paused,
/// confirmed, and with their cooldown since the last assessment over.
pub fn is_candidate(goal: &Goal, now: DateTime<Utc>) -> bool {
    let workable = matches!(
        goal.status,
        Status::Active | Status::Stalled | Status::Verifying
    );
    let cooled = goal
        .progress
        .last_assessed_at
        .is_none_or(|at| now - at >= goal.budget.cooldown.to_chrono());
    workable && goal.confirmed && cooled && goal.waiting.is_none()
}

/// Candidates in the order they get turns: heavier attention weight first,
/// then the goal offered longest ago, then the oldest assessment.
pub fn order<'g>(candidates: Vec<&'g Goal>, config: &Config, rotation: &Rotation) -> Vec<&'g Goal> {
    let mut candidates = candidates;
    candidates.sort_by(|a, b| {
        let weight = |g: &Goal| config.attention_weight(&g.priority);
        weight(b)
            .total_cmp(&weight(a))
            .then_with(|| rotation.served.get(&a.id).cmp(&rotation.served.get(&b.id)))
            .then_with(|| {
                a.progress
                    .last_assessed_at
                    .cmp(&b.progress.last_assessed_at)
            })
            .then_with(|| a.label.cmp(&b.label))
    });
    candidates
}

/// Takes at most `multi_goal_max_goals` goals from the front of `ordered`
/// and splits `budget` characters among them by weight; goals whose share
/// would fall under [`MIN_SHARE`] wait, the last ones first.
pub fn allocate<'g>(
    ordered: &[&'g Goal],
    config: &Config,
    budget: usize,
) -> Vec<(&'g Goal, usize)> {
    let mut chosen: Vec<&Goal> = ordered
        .iter()
        .copied()
        .take(config.multi_goal_max_goals as usize)
        .collect();
    while !chosen.is_empty() {
        let weights: Vec<f64> = chosen
            .iter()
            .map(|g| config.attention_weight(&g.priority))
            .collect();
        let total: f64 = weights.iter().sum();
        let shares: Vec<usize> = weights
            .iter()
            .map(|w| {
                if total > 0.0 {
                    (budget as f64 * w / total).floor() as usize
                } else {
                    0
                }
            })
            .collect();
        if shares.iter().all(|s| *s >= MIN_SHARE) {
            return chosen.into_iter().zip(shares).collect();
        }
        chosen.pop();
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(label: &str, extra: &str) -> Goal {
        let text = format!("---\nid: id-{label}\nlabel: {label}\n{extra}\n---\n");
        crate::store::testing::parse_goal(&text)
    }

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn cooldown_gates_at_its_exact_edge() {
        let g = goal(
            "g",
            "budget: {cooldown: 10m}\nprogress: {last_assessed_at: 2026-11-21T04:00:00Z}",
        );
        assert!(!is_candidate(&g, at("2026-11-21T04:09:59Z")));
        assert!(is_candidate(&g, at("2026-11-21T04:10:00Z")));
    }

    #[test]
    fn blocked_paused_and_unconfirmed_goals_are_not_candidates() {
        let now = at("2026-11-21T04:00:00Z");
        assert!(!is_candidate(&goal("b", "status: blocked"), now));
        assert!(!is_candidate(&goal("p", "status: paused"), now));
        assert!(!is_candidate(&goal("u", "confirmed: false"), now));
        assert!(is_candidate(&goal("s", "status: stalled"), now));
        assert!(is_candidate(&goal("v", "status: verifying"), now));
    }

    #[test]
    fn a_critical_goal_wins_when_only_one_fits() {
        let config = Config::default();
        let (low, critical) = (
            goal("low", "priority: low"),
            goal("crit", "priority: critical"),
        );
        let ordered = order(vec![&low, &critical], &config, &Rotation::default());
        let chosen = allocate(&ordered, &config, 700);
        assert_eq!(chosen.len(), 1);
        assert_eq!(chosen[0].0.label, "crit");
        assert_eq!(chosen[0].1, 700);
    }

    #[test]
    fn shares_follow_the_weights() {
        let config = Config::default();
        let (high, normal) = (goal("h", "priority: high"), goal("n", "priority: normal"));
        let chosen = allocate(
            &order(vec![&normal, &high], &config, &Rotation::default()),
            &config,
            3000,
        );
        let shares: Vec<(&str, usize)> =
            chosen.iter().map(|(g, s)| (g.label.as_str(), *s)).collect();
        assert_eq!(shares, [("h", 2000), ("n", 1000)]);
    }

    #[test]
    fn rotation_gives_every_goal_a_turn() {
        let config = Config {
            multi_goal_max_goals: 1,
            ..Config::default()
        };
        let goals = [goal("a", ""), goal("b", ""), goal("c", "")];
        let refs: Vec<&Goal> = goals.iter().collect();
        let mut rotation = Rotation::default();
        let mut served = Vec::new();
        for _ in 0..4 {
            let chosen = allocate(&order(refs.clone(), &config, &rotation), &config, 12_000);
            let picked: Vec<&Goal> = chosen.iter().map(|(g, _)| *g).collect();
            served.push(picked[0].label.clone());
            rotation.advance(&picked, &refs, Utc::now());
        }
        assert_eq!(served, ["a", "b", "c", "a"]);
    }
}
