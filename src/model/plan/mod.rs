//! Plans: a goal's work broken into phases, tasks and subtasks, kept in the
//! goal file under `## Plan`, one line per node
//! (steward-design(7), "The plan lives in the goal file").
//!
//! - `line.rs`: the grammar of one line, and the byte-minimal rewrite of a
//!   node's status;
//! - `section.rs`: reads the `## Plan` section into a [`Plan`], locating
//!   every mistake by line and column;
//! - `json.rs`: validates the planner's JSON and renders the section;
//! - `prompt.rs`: the planner and repair prompts;
//! - `update.rs`: the structured status update (`overseerUpdate`).
//!
//! This module is pure: it takes text and returns data.

pub mod graph;
pub mod json;
pub mod line;
pub mod prompt;
pub mod section;
pub mod update;

use std::fmt;

/// The status of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeStatus {
    Todo,
    Queued,
    InProgress,
    Blocked,
    Done,
    Cancelled,
}

impl NodeStatus {
    pub const ALL: [NodeStatus; 6] = [
        NodeStatus::Todo,
        NodeStatus::Queued,
        NodeStatus::InProgress,
        NodeStatus::Blocked,
        NodeStatus::Done,
        NodeStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Todo => "todo",
            NodeStatus::Queued => "queued",
            NodeStatus::InProgress => "in_progress",
            NodeStatus::Blocked => "blocked",
            NodeStatus::Done => "done",
            NodeStatus::Cancelled => "cancelled",
        }
    }

    /// The name as JSON and the command line spell it.
    pub fn parse(text: &str) -> Option<NodeStatus> {
        NodeStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Done or cancelled: nothing more will happen to it.
    pub fn is_closed(self) -> bool {
        matches!(self, NodeStatus::Done | NodeStatus::Cancelled)
    }

    /// Work may start on it (once what it waits on is done).
    pub fn is_open_to_start(self) -> bool {
        matches!(self, NodeStatus::Todo | NodeStatus::Queued)
    }
}

impl fmt::Display for NodeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a node sits: phases hold tasks, tasks hold subtasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Phase,
    Task,
    Subtask,
}

impl Level {
    pub fn from_depth(depth: usize) -> Option<Level> {
        [Level::Phase, Level::Task, Level::Subtask]
            .get(depth)
            .copied()
    }

    pub fn depth(self) -> usize {
        self as usize
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Phase => "phase",
            Level::Task => "task",
            Level::Subtask => "subtask",
        }
    }
}

/// One phase, task or subtask.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub name: String,
    pub level: Level,
    pub status: NodeStatus,
    /// Why a blocked node is blocked.
    pub reason: Option<String>,
    /// Nodes that must be done (or cancelled) before this one starts.
    pub after: Vec<String>,
    pub outcome: Option<String>,
    /// The acceptance criteria, one per line (one string, for plans read
    /// by the hundred).
    pub accept: String,
    /// Index of the parent in [`Plan::nodes`].
    pub parent: Option<usize>,
    pub children: Vec<usize>,
}

/// A plan: its nodes in file order (each parent before its children).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub nodes: Vec<Node>,
}

/// Done and counted leaves under a node or a plan; cancelled ones do not
/// count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub done: usize,
    pub total: usize,
}

impl Tally {
    /// Whole percent done, rounded down (100 only when all are done).
    pub fn percent(self) -> u32 {
        if self.total == 0 {
            return 0;
        }
        (self.done * 100 / self.total) as u32
    }
}

impl Tally {
    /// Counts one leaf of this status.
    pub fn count(&mut self, status: NodeStatus) {
        match status {
            NodeStatus::Cancelled => {}
            NodeStatus::Done => {
                self.done += 1;
                self.total += 1;
            }
            _ => self.total += 1,
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} ({}%)", self.done, self.total, self.percent())
    }
}

/// A goal's plan as read: its `## Plan` section checked and summarised,
/// parsed in full the first time a command looks at its nodes. Reading
/// commands look at a few plans and summarise the rest.
#[derive(Debug, Clone)]
pub struct PlanSection {
    /// The text the section is in, shared with the file it was read from:
    /// a copy of every plan a heartbeat reads was a third of what plans
    /// cost it (page faults in two threads growing their heaps).
    source: std::sync::Arc<String>,
    /// The section after its heading, in `source`.
    range: std::ops::Range<usize>,
    pub summary: section::Summary,
    parsed: std::sync::OnceLock<Plan>,
}

impl PlanSection {
    /// Checks the section `body[content]`, where the body is `source`
    /// from `body_start`; a mistake is located in the body. `known`: the
    /// summary a section of this very text was checked to have before
    /// (the store's memo, keyed by the text's SHA-256), taken without
    /// checking it again.
    pub fn read(
        source: &std::sync::Arc<String>,
        body_start: usize,
        content: std::ops::Range<usize>,
        known: Option<section::Summary>,
    ) -> Result<PlanSection, section::PlanError> {
        let summary = match known {
            Some(summary) => summary,
            None => section::check(&source[body_start..], content.clone())?,
        };
        Ok(PlanSection {
            source: std::sync::Arc::clone(source),
            range: body_start + content.start..body_start + content.end,
            summary,
            parsed: std::sync::OnceLock::new(),
        })
    }

    /// The section's text, after its heading.
    fn text(&self) -> &str {
        &self.source[self.range.clone()]
    }

    /// The plan's nodes.
    pub fn plan(&self) -> &Plan {
        self.parsed.get_or_init(|| {
            section::parse(self.text(), 0..self.range.len())
                .map(|parsed| parsed.plan)
                .expect("a section of this text was checked, now or by an earlier command (the memo keyed by its SHA-256, MAC'd with this machine's key)")
        })
    }
}

impl PartialEq for PlanSection {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

/// A status a rollup gives a parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollup {
    pub id: String,
    pub from: NodeStatus,
    pub to: NodeStatus,
}

impl Node {
    /// The acceptance criteria.
    pub fn accepts(&self) -> impl Iterator<Item = &str> {
        self.accept.split('\n').filter(|a| !a.is_empty())
    }

    /// Adds an acceptance criterion.
    pub fn push_accept(&mut self, text: &str) {
        if !self.accept.is_empty() {
            self.accept.push('\n');
        }
        self.accept.push_str(text);
    }
}

impl Plan {
    pub fn find(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.find(id).map(|i| &self.nodes[i])
    }

    pub fn phases(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.parent.is_none())
    }

    fn is_leaf(&self, index: usize) -> bool {
        self.nodes[index].children.is_empty()
    }

    /// The leaves under `index` (itself when it has no children).
    fn leaves_under(&self, index: usize) -> Vec<usize> {
        if self.is_leaf(index) {
            return vec![index];
        }
        self.nodes[index]
            .children
            .iter()
            .flat_map(|&child| self.leaves_under(child))
            .collect()
    }

    fn tally_of(&self, leaves: impl IntoIterator<Item = usize>) -> Tally {
        let mut tally = Tally::default();
        for leaf in leaves {
            tally.count(self.nodes[leaf].status);
        }
        tally
    }

    /// Progress of one node: its leaves done.
    pub fn tally(&self, index: usize) -> Tally {
        self.tally_of(self.leaves_under(index))
    }

    /// Progress of the whole plan.
    pub fn overall(&self) -> Tally {
        self.tally_of((0..self.nodes.len()).filter(|&i| self.is_leaf(i)))
    }

    /// Every phase is done or cancelled, and one at least is done.
    pub fn is_done(&self) -> bool {
        let mut phases = self.phases().peekable();
        phases.peek().is_some()
            && self.phases().all(|p| p.status.is_closed())
            && self.phases().any(|p| p.status == NodeStatus::Done)
    }

    /// Whether what `index` and its ancestors wait on is done.
    pub fn dependencies_done(&self, index: usize) -> bool {
        let mut current = Some(index);
        while let Some(i) = current {
            let node = &self.nodes[i];
            let waiting = node
                .after
                .iter()
                .any(|dep| self.node(dep).is_some_and(|d| !d.status.is_closed()));
            if waiting {
                return false;
            }
            current = node.parent;
        }
        true
    }

    /// The leaves to work on next, in file order: those in progress, then
    /// those ready to start (their dependencies done).
    pub fn next_work(&self) -> Vec<&Node> {
        let leaves: Vec<usize> = (0..self.nodes.len()).filter(|&i| self.is_leaf(i)).collect();
        let in_progress = leaves
            .iter()
            .filter(|&&i| self.nodes[i].status == NodeStatus::InProgress);
        let ready = leaves
            .iter()
            .filter(|&&i| self.nodes[i].status.is_open_to_start() && self.dependencies_done(i));
        in_progress.chain(ready).map(|&i| &self.nodes[i]).collect()
    }

    /// The blocked nodes, with their reasons.
    pub fn blocked(&self) -> impl Iterator<Item = &Node> {
        self.nodes
            .iter()
            .filter(|n| n.status == NodeStatus::Blocked)
    }

    /// The ids of a node's ancestors, nearest first.
    pub fn ancestors(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut current = self.nodes[index].parent;
        while let Some(i) = current {
            out.push(i);
            current = self.nodes[i].parent;
        }
        out
    }

    /// Sets `id`'s status and rolls it up to its ancestors: a parent is done
    /// when its children are all done or cancelled (one at least done); a
    /// done parent with an open child is in progress again; a parent not yet
    /// started is in progress once a child is. Returns the parents' changes,
    /// nearest first; the caller has checked that `id` exists.
    pub fn set_status(
        &mut self,
        id: &str,
        status: NodeStatus,
        reason: Option<String>,
    ) -> Vec<Rollup> {
        let index = self.find(id).expect("the caller checked the node exists");
        let node = &mut self.nodes[index];
        node.status = status;
        node.reason = if status == NodeStatus::Blocked {
            reason
        } else {
            None
        };
        let mut rollups = Vec::new();
        for parent in self.ancestors(index) {
            let children = &self.nodes[parent].children;
            let statuses: Vec<NodeStatus> =
                children.iter().map(|&c| self.nodes[c].status).collect();
            let all_closed = statuses.iter().all(|s| s.is_closed());
            let any_done = statuses.contains(&NodeStatus::Done);
            let any_started = statuses
                .iter()
                .any(|s| matches!(s, NodeStatus::InProgress | NodeStatus::Done));
            let from = self.nodes[parent].status;
            let to = if all_closed && any_done {
                NodeStatus::Done
            } else if (from == NodeStatus::Done && !all_closed)
                || (from.is_open_to_start() && any_started)
            {
                NodeStatus::InProgress
            } else {
                from
            };
            if to == from || from == NodeStatus::Cancelled {
                continue;
            }
            let node = &mut self.nodes[parent];
            node.status = to;
            node.reason = None;
            rollups.push(Rollup {
                id: node.id.clone(),
                from,
                to,
            });
        }
        rollups
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A plan read from `## Plan` lines, for tests.
    pub(crate) fn plan(lines: &str) -> Plan {
        section::parse(lines, 0..lines.len())
            .map(|parsed| parsed.plan)
            .unwrap_or_else(|err| panic!("{err:?}"))
    }

    const SAMPLE: &str = "\
- [ ] P1 Ship the health endpoint
  - [ ] T1.1 Write the handler
    - accept: GET /health answers 200
    - [ ] S1.1.1 Add the route
      - accept: the route exists
    - [ ] S1.1.2 Return the build id
      - accept: the body holds the build id
  - [ ] T1.2 Deploy · after T1.1
    - accept: /health answers in production
- [ ] P2 Tell people · after P1
  - accept: the changelog says so
";

    #[test]
    fn rollups_go_up_one_level_at_a_time() {
        let mut plan = plan(SAMPLE);
        let first = plan.set_status("S1.1.1", NodeStatus::InProgress, None);
        assert_eq!(
            first,
            vec![
                Rollup {
                    id: "T1.1".into(),
                    from: NodeStatus::Todo,
                    to: NodeStatus::InProgress
                },
                Rollup {
                    id: "P1".into(),
                    from: NodeStatus::Todo,
                    to: NodeStatus::InProgress
                },
            ]
        );
        assert!(plan.set_status("S1.1.1", NodeStatus::Done, None).is_empty());
        let done = plan.set_status("S1.1.2", NodeStatus::Done, None);
        assert_eq!(
            done,
            vec![Rollup {
                id: "T1.1".into(),
                from: NodeStatus::InProgress,
                to: NodeStatus::Done
            }]
        );
        assert!(!plan.is_done());
        let deployed = plan.set_status("T1.2", NodeStatus::Done, None);
        assert_eq!(deployed[0].id, "P1");
        assert_eq!(deployed[0].to, NodeStatus::Done);
        // Reopening a subtask reopens what rolled up from it.
        let reopened = plan.set_status("S1.1.2", NodeStatus::Todo, None);
        assert_eq!(
            reopened
                .iter()
                .map(|r| (r.id.as_str(), r.to))
                .collect::<Vec<_>>(),
            vec![
                ("T1.1", NodeStatus::InProgress),
                ("P1", NodeStatus::InProgress),
            ]
        );
    }

    #[test]
    fn cancelled_work_does_not_hold_a_parent_back_but_cannot_finish_it_alone() {
        let mut plan = plan(SAMPLE);
        plan.set_status("S1.1.1", NodeStatus::Cancelled, None);
        assert_eq!(plan.node("T1.1").unwrap().status, NodeStatus::Todo);
        plan.set_status("S1.1.2", NodeStatus::Done, None);
        assert_eq!(plan.node("T1.1").unwrap().status, NodeStatus::Done);
        plan.set_status("T1.2", NodeStatus::Done, None);
        plan.set_status("P2", NodeStatus::Cancelled, None);
        assert!(plan.is_done(), "P1 done, P2 cancelled");
        assert_eq!(plan.overall(), Tally { done: 2, total: 2 });
    }

    #[test]
    fn next_work_is_what_runs_then_what_waits_on_nothing() {
        let mut plan = plan(SAMPLE);
        let ids = |plan: &Plan| {
            plan.next_work()
                .iter()
                .map(|n| n.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&plan),
            ["S1.1.1", "S1.1.2"],
            "T1.2 waits on T1.1, P2 on P1"
        );
        plan.set_status("S1.1.2", NodeStatus::InProgress, None);
        assert_eq!(ids(&plan), ["S1.1.2", "S1.1.1"]);
        plan.set_status("S1.1.1", NodeStatus::Done, None);
        plan.set_status("S1.1.2", NodeStatus::Done, None);
        assert_eq!(ids(&plan), ["T1.2"]);
        plan.set_status("T1.2", NodeStatus::Blocked, Some("no token".into()));
        assert!(ids(&plan).is_empty());
        assert_eq!(
            plan.blocked().next().unwrap().reason.as_deref(),
            Some("no token")
        );
    }

    #[test]
    fn tallies_count_leaves() {
        let mut plan = plan(SAMPLE);
        assert_eq!(plan.overall(), Tally { done: 0, total: 4 });
        plan.set_status("S1.1.1", NodeStatus::Done, None);
        assert_eq!(
            plan.tally(plan.find("P1").unwrap()).to_string(),
            "1/3 (33%)"
        );
    }
}
