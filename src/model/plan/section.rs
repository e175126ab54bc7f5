//! Reads the `## Plan` section of a goal body: checks it (every goal read
//! does, and keeps a summary), or parses it into a [`Plan`] with where each
//! node's line is, so a status change rewrites that line only.

use std::ops::Range;

use super::graph::Skeleton;
use super::line::{self, DetailKind, PlanLine};
use super::{Level, Node, NodeStatus, Plan, Tally};

/// A plan and where its nodes are.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedPlan {
    pub plan: Plan,
    /// Per node: its line in the body, without the line ending.
    pub lines: Vec<Range<usize>>,
}

/// A mistake in `## Plan`: 1-based line in the body, column, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// What a checked plan says without being parsed: how far it is, and a
/// digest of every node's status (for the goal's progress fingerprint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    pub tally: Tally,
    pub statuses: u64,
}

/// Where a node was read: its line number and the columns of its id and of
/// its `after` ids, for messages.
struct Origin {
    line: usize,
    id_column: usize,
    after_columns: Vec<usize>,
}

/// Checks the plan in `body[content]` (the section after its heading):
/// every rule the parser applies, without building the nodes.
pub fn check(body: &str, content: Range<usize>) -> Result<Summary, PlanError> {
    read(body, content, false).map(|read| read.summary)
}

/// Reads the plan in `body[content]` (the section after its heading).
pub fn parse(body: &str, content: Range<usize>) -> Result<ParsedPlan, PlanError> {
    let read = read(body, content, true)?;
    Ok(ParsedPlan {
        plan: read.plan,
        lines: read.lines,
    })
}

struct Read {
    /// Empty unless asked for.
    plan: Plan,
    lines: Vec<Range<usize>>,
    summary: Summary,
}

fn read(body: &str, content: Range<usize>, full: bool) -> Result<Read, PlanError> {
    let first_line = body[..content.start].matches('\n').count() + 1;
    // About one node in two lines of 60 bytes: room for them at once.
    let estimate = body[content.clone()].len() / 60;
    let mut plan = Plan {
        nodes: Vec::with_capacity(if full { estimate } else { 0 }),
    };
    let mut lines = Vec::with_capacity(if full { estimate } else { 0 });
    let mut skeleton = Skeleton::default();
    let mut has_outcome: Vec<bool> = Vec::with_capacity(estimate);
    let mut origins: Vec<Origin> = Vec::with_capacity(estimate);
    let mut summary = Summary::default();
    let mut statuses = crate::model::Fnv::default();
    // The depth and status of the node before, which is a leaf unless the
    // next node is deeper.
    let mut previous: Option<(usize, NodeStatus)> = None;
    // The node open at each depth.
    let mut open: Vec<usize> = Vec::new();
    let mut offset = content.start;
    for (here, chunk) in (first_line..).zip(body[content.clone()].split_inclusive('\n')) {
        let start = offset;
        offset += chunk.len();
        let text = chunk.trim_end_matches(['\n', '\r']);
        let mistake = |column: usize, message: String| PlanError {
            line: here,
            column,
            message,
        };
        match line::classify(text).map_err(|e| mistake(e.column, e.message))? {
            PlanLine::Other => {}
            PlanLine::Detail { indent, kind, text } => {
                let depth = indent / 2 - 1;
                let Some(&owner) = open.get(depth) else {
                    return Err(mistake(
                        1,
                        "this detail belongs to no node: indent it 2 spaces more than its node"
                            .to_string(),
                    ));
                };
                if kind == DetailKind::Outcome {
                    if has_outcome[owner] {
                        return Err(mistake(
                            indent + 1,
                            format!(
                                "{} has an outcome already: one per node",
                                skeleton.ids[owner]
                            ),
                        ));
                    }
                    has_outcome[owner] = true;
                }
                if full {
                    let node = &mut plan.nodes[owner];
                    match kind {
                        DetailKind::Accept => node.push_accept(text),
                        DetailKind::Outcome => node.outcome = Some(text.to_string()),
                    }
                }
            }
            PlanLine::Node(parsed) => {
                let level = Level::from_depth(parsed.depth).expect("line.rs allows three depths");
                if parsed.depth > open.len() {
                    let holder = Level::from_depth(parsed.depth - 1).expect("depth ≥ 1");
                    return Err(mistake(
                        1,
                        format!(
                            "{} {} is indented as a {} but comes under no {}",
                            level.as_str(),
                            parsed.id,
                            level.as_str(),
                            holder.as_str()
                        ),
                    ));
                }
                if let Some((depth, status)) = previous
                    && parsed.depth <= depth
                {
                    summary.tally.count(status);
                }
                previous = Some((parsed.depth, parsed.status));
                statuses.write(parsed.id);
                statuses.write(parsed.status.as_str());
                open.truncate(parsed.depth);
                let parent = open.last().copied();
                let index = skeleton.ids.len();
                if full {
                    if let Some(parent) = parent {
                        plan.nodes[parent].children.push(index);
                    }
                    plan.nodes.push(Node {
                        id: parsed.id.to_string(),
                        name: parsed.name.to_string(),
                        level,
                        status: parsed.status,
                        reason: parsed.reason.map(str::to_string),
                        after: parsed.after.iter().map(|(id, _)| id.to_string()).collect(),
                        outcome: None,
                        accept: String::new(),
                        parent,
                        children: Vec::new(),
                    });
                    lines.push(start..start + text.len());
                }
                origins.push(Origin {
                    line: here,
                    id_column: parsed.id_column,
                    after_columns: parsed.after.iter().map(|(_, column)| *column).collect(),
                });
                skeleton.push(
                    parsed.id,
                    parent,
                    parsed.after.iter().map(|(id, _)| *id).collect(),
                );
                has_outcome.push(false);
                open.push(index);
            }
        }
    }
    if let Some((_, status)) = previous {
        summary.tally.count(status);
    }
    summary.statuses = statuses.value();
    if let Some((first, again)) = skeleton.first_duplicate() {
        return Err(PlanError {
            line: origins[again].line,
            column: origins[again].id_column,
            message: format!(
                "node id {} is used twice (first on line {})",
                skeleton.ids[again], origins[first].line
            ),
        });
    }
    if let Some((node, position, why)) = skeleton.dependency_problems().into_iter().next() {
        let origin = &origins[node];
        return Err(PlanError {
            line: origin.line,
            column: origin.after_columns.get(position).copied().unwrap_or(1),
            message: why,
        });
    }
    Ok(Read {
        plan,
        lines,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::NodeStatus;

    fn read(text: &str) -> Result<ParsedPlan, PlanError> {
        parse(text, 0..text.len())
    }

    /// The mistake in `text`, which `check` and `parse` both find.
    fn mistake(text: &str) -> (usize, usize, String) {
        let err = read(text).expect_err(text);
        assert_eq!(check(text, 0..text.len()), Err(err.clone()), "{text}");
        (err.line, err.column, err.message)
    }

    #[test]
    fn a_check_summarises_what_the_parse_holds() {
        let text = "- [ ] P1 A\n  - [x] T1 B\n  - [ ] T2 C · cancelled\n  - [ ] T3 D\n    - [x] S1 E\n    - [ ] S2 F\n- [x] P2 G\n";
        let summary = check(text, 0..text.len()).unwrap();
        let plan = read(text).unwrap().plan;
        assert_eq!(summary.tally, plan.overall());
        assert_eq!(
            summary.tally,
            crate::model::plan::Tally { done: 3, total: 4 }
        );
    }

    #[test]
    fn nodes_nest_by_indent_and_keep_their_details() {
        let text = "Notes first.\n\n- [ ] P1 Ship\n  - outcome: shipped\n  - accept: users see it\n  - [x] T1.1 Build\n    - accept: it builds\n    - [x] S1.1.1 Compile\n      - accept: no errors\n  - [ ] T1.2 Deploy · in progress · after T1.1\n    - accept: it runs\n<!-- a comment -->\n";
        let parsed = read(text).unwrap();
        let plan = &parsed.plan;
        assert_eq!(plan.nodes.len(), 4);
        let p1 = plan.node("P1").unwrap();
        assert_eq!(p1.outcome.as_deref(), Some("shipped"));
        assert_eq!(p1.accepts().collect::<Vec<_>>(), ["users see it"]);
        assert_eq!(p1.children, [1, 3]);
        assert_eq!(plan.node("S1.1.1").unwrap().parent, Some(1));
        assert_eq!(plan.node("T1.2").unwrap().status, NodeStatus::InProgress);
        assert_eq!(
            &text[parsed.lines[3].clone()],
            "  - [ ] T1.2 Deploy · in progress · after T1.1"
        );
    }

    #[test]
    fn mistakes_are_located_in_the_body() {
        assert_eq!(mistake("- [ ] P1 A\n- [ ] P1 B\n").0, 2);
        assert!(
            mistake("- [ ] P1 A\n- [ ] P1 B\n")
                .2
                .contains("used twice (first on line 1)")
        );
        let orphan = mistake("  - [ ] T1 Task without a phase\n");
        assert_eq!((orphan.0, orphan.1), (1, 1));
        assert!(orphan.2.contains("comes under no phase"), "{}", orphan.2);
        let skipped = mistake("- [ ] P1 A\n    - [ ] S1 Subtask without a task\n");
        assert!(skipped.2.contains("comes under no task"), "{}", skipped.2);
        let unknown = mistake("- [ ] P1 A · after P9\n");
        assert_eq!((unknown.0, unknown.1), (1, 20));
        assert!(unknown.2.contains("`P9` is not a node"));
        let cycle = mistake("- [ ] P1 A · after P2\n- [ ] P2 B · after P1\n");
        assert!(
            cycle.2.contains("dependency cycle: P1 → P2 → P1"),
            "{}",
            cycle.2
        );
        let holder = mistake("- [ ] P1 A\n  - [ ] T1 B · after P1\n");
        assert!(holder.2.contains("which holds it"), "{}", holder.2);
        assert!(
            mistake("  - accept: floating\n")
                .2
                .contains("belongs to no node")
        );
        let lines = mistake("intro\n\n- [ ] P1 A\n  - outcome: x\n  - outcome: y\n");
        assert_eq!(lines.0, 5);
    }

    #[test]
    fn line_numbers_count_from_the_body_start() {
        let body = "Intro.\n\n## Plan\n\n- [ ] P1 A · soon\n";
        let start = body.find("\n\n- ").unwrap() + 1;
        let err = parse(body, start..body.len()).unwrap_err();
        assert_eq!(err.line, 5);
    }
}
