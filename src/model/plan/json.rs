//! The planner's answer (the Overseer's plan JSON), validated strictly:
//! every mistake with its JSON path, nothing guessed. And the `## Plan`
//! lines a valid plan is written as.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::line::{self, DetailKind, SEPARATOR};
use super::{Level, Node, NodeStatus, Plan};

pub const MAX_PHASES: usize = 5;
pub const MAX_TASKS_PER_PHASE: usize = 7;
pub const MAX_SUBTASKS_PER_TASK: usize = 7;
/// The longest string steward takes in plan JSON, updates and handoffs.
pub const MAX_STRING_BYTES: usize = 64 * 1024;

/// One thing wrong with the JSON, at its path (`$.phases[0].tasks[1].id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Reads and validates the planner's answer: the whole text is one JSON
/// object of the plan's shape, or every problem is returned.
pub fn validate(text: &str) -> Result<Plan, Vec<Problem>> {
    let value: Value = serde_json::from_str(text.trim()).map_err(|err| {
        vec![Problem {
            path: "$".into(),
            message: format!(
                "not JSON ({err}): answer with the JSON object alone, without prose or code fences"
            ),
        }]
    })?;
    let mut reader = Reader::default();
    reader.root(&value);
    if reader.problems.is_empty() {
        let problems = super::graph::Skeleton::of(&reader.plan).dependency_problems();
        for (index, position, why) in problems {
            let path = format!("{}.deps[{position}]", reader.paths[index]);
            reader.problems.push(Problem { path, message: why });
        }
    }
    if reader.problems.is_empty() {
        Ok(reader.plan)
    } else {
        Err(reader.problems)
    }
}

#[derive(Default)]
struct Reader {
    plan: Plan,
    /// The JSON path of each node.
    paths: Vec<String>,
    first_seen: HashMap<String, String>,
    problems: Vec<Problem>,
}

const ROOT_KEYS: &[&str] = &["planVersion", "goal", "phases"];
const GOAL_KEYS: &[&str] = &["title", "successCriteria", "constraints"];
const NODE_KEYS: &[&str] = &["id", "name", "objective", "outcome", "acceptance", "deps"];

impl Reader {
    fn problem(&mut self, path: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.to_string(),
            message: message.into(),
        });
    }

    fn object<'v>(
        &mut self,
        path: &str,
        value: &'v Value,
        keys: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Some(map) = value.as_object() else {
            self.problem(path, format!("expected an object, found {}", kind(value)));
            return None;
        };
        for key in map.keys() {
            if !keys.contains(&key.as_str()) {
                self.problem(
                    &format!("{path}.{key}"),
                    format!("unknown key: expected {}", keys.join(", ")),
                );
            }
        }
        Some(map)
    }

    fn root(&mut self, value: &Value) {
        let Some(map) = self.object("$", value, ROOT_KEYS) else {
            return;
        };
        match map.get("planVersion") {
            None => {}
            Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
            Some(other) => self.problem("$.planVersion", format!("expected 1, found {other}")),
        }
        if let Some(goal) = map.get("goal")
            && let Some(goal) = self.object("$.goal", goal, GOAL_KEYS)
        {
            if let Some(title) = goal.get("title") {
                self.text("$.goal.title", title);
            }
            for key in ["successCriteria", "constraints"] {
                if let Some(list) = goal.get(key) {
                    self.texts(&format!("$.goal.{key}"), list, false);
                }
            }
        }
        let Some(phases) = map.get("phases") else {
            self.problem("$.phases", "missing: a plan has 1 to 5 phases");
            return;
        };
        self.children("$.phases", phases, Level::Phase, None, MAX_PHASES);
    }

    fn children(
        &mut self,
        path: &str,
        value: &Value,
        level: Level,
        parent: Option<usize>,
        max: usize,
    ) {
        let Some(list) = value.as_array() else {
            self.problem(path, format!("expected an array, found {}", kind(value)));
            return;
        };
        if level == Level::Phase && list.is_empty() {
            self.problem(path, "empty: a plan has 1 to 5 phases");
        }
        if list.len() > max {
            let holder = match level {
                Level::Phase => "a plan".to_string(),
                Level::Task => "a phase".to_string(),
                Level::Subtask => "a task".to_string(),
            };
            self.problem(
                path,
                format!(
                    "{} {}s: {holder} has at most {max}",
                    list.len(),
                    level.as_str()
                ),
            );
        }
        for (index, item) in list.iter().enumerate() {
            self.node(&format!("{path}[{index}]"), item, level, parent);
        }
    }

    fn node(&mut self, path: &str, value: &Value, level: Level, parent: Option<usize>) {
        let (child_key, child_level, max) = match level {
            Level::Phase => (Some("tasks"), Level::Task, MAX_TASKS_PER_PHASE),
            Level::Task => (Some("subtasks"), Level::Subtask, MAX_SUBTASKS_PER_TASK),
            Level::Subtask => (None, Level::Subtask, 0),
        };
        let mut keys = NODE_KEYS.to_vec();
        keys.extend(child_key);
        let Some(map) = self.object(path, value, &keys) else {
            return;
        };
        let id = match map.get("id") {
            None => {
                self.problem(&format!("{path}.id"), "missing: every node has an id");
                None
            }
            Some(Value::String(id)) => match line::validate_id(id) {
                Err(why) => {
                    self.problem(&format!("{path}.id"), why);
                    None
                }
                Ok(()) => {
                    if let Some(first) = self.first_seen.get(id) {
                        let message = format!("`{id}` is used twice (first at {first})");
                        self.problem(&format!("{path}.id"), message);
                    } else {
                        self.first_seen.insert(id.clone(), format!("{path}.id"));
                    }
                    Some(id.clone())
                }
            },
            Some(other) => {
                self.problem(
                    &format!("{path}.id"),
                    format!("expected a string, found {}", kind(other)),
                );
                None
            }
        };
        let name = match map.get("name") {
            None => {
                self.problem(&format!("{path}.name"), "missing: every node has a name");
                None
            }
            Some(value) => self.text(&format!("{path}.name"), value).filter(|name| {
                if name.contains(SEPARATOR) {
                    self.problem(
                        &format!("{path}.name"),
                        format!(
                            "must not contain `{}`, the plan line's separator",
                            SEPARATOR.trim()
                        ),
                    );
                    return false;
                }
                true
            }),
        };
        let outcome = match (map.get("objective"), map.get("outcome")) {
            (Some(_), Some(_)) => {
                self.problem(
                    &format!("{path}.outcome"),
                    "give objective or outcome, not both",
                );
                None
            }
            (Some(value), None) => self.text(&format!("{path}.objective"), value),
            (None, Some(value)) => self.text(&format!("{path}.outcome"), value),
            (None, None) => None,
        };
        let accept = match map.get("acceptance") {
            None => {
                self.problem(
                    &format!("{path}.acceptance"),
                    "missing: every node needs at least one acceptance criterion",
                );
                Vec::new()
            }
            Some(list) => self.texts(&format!("{path}.acceptance"), list, true),
        };
        let after = match map.get("deps") {
            None => Vec::new(),
            Some(list) => {
                let deps = self.texts(&format!("{path}.deps"), list, false);
                for (index, dep) in deps.iter().enumerate() {
                    if let Err(why) = line::validate_id(dep) {
                        self.problem(&format!("{path}.deps[{index}]"), why);
                    }
                }
                deps
            }
        };
        let index = self.plan.nodes.len();
        if let Some(parent) = parent {
            self.plan.nodes[parent].children.push(index);
        }
        self.plan.nodes.push(Node {
            id: id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            level,
            status: NodeStatus::Todo,
            reason: None,
            after,
            outcome,
            accept: accept.join("\n"),
            parent,
            children: Vec::new(),
        });
        self.paths.push(path.to_string());
        if let Some(key) = child_key
            && let Some(children) = map.get(key)
        {
            self.children(
                &format!("{path}.{key}"),
                children,
                child_level,
                Some(index),
                max,
            );
        }
    }

    /// A one-line string of at most 64 KiB.
    fn text(&mut self, path: &str, value: &Value) -> Option<String> {
        let Some(text) = value.as_str() else {
            self.problem(path, format!("expected a string, found {}", kind(value)));
            return None;
        };
        let text = text.trim();
        if text.is_empty() {
            self.problem(path, "empty");
            None
        } else if text.len() > MAX_STRING_BYTES {
            self.problem(path, format!("{} bytes: at most 64 KiB", text.len()));
            None
        } else if text.contains(['\n', '\r']) {
            self.problem(path, "one line: no line breaks");
            None
        } else {
            Some(text.to_string())
        }
    }

    fn texts(&mut self, path: &str, value: &Value, required: bool) -> Vec<String> {
        let Some(list) = value.as_array() else {
            self.problem(
                path,
                format!("expected an array of strings, found {}", kind(value)),
            );
            return Vec::new();
        };
        if required && list.is_empty() {
            self.problem(
                path,
                "empty: every node needs at least one acceptance criterion",
            );
        }
        list.iter()
            .enumerate()
            .filter_map(|(index, item)| self.text(&format!("{path}[{index}]"), item))
            .collect()
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `## Plan` lines of `plan`, each ending in `newline`.
pub fn render(plan: &Plan, newline: &str) -> String {
    let mut out = String::new();
    for node in &plan.nodes {
        let depth = node.level.depth();
        out.push_str(&line::render_node(
            depth,
            &node.id,
            &node.name,
            node.status,
            node.reason.as_deref(),
            &node.after,
        ));
        out.push_str(newline);
        if let Some(outcome) = &node.outcome {
            out.push_str(&line::render_detail(depth, DetailKind::Outcome, outcome));
            out.push_str(newline);
        }
        for accept in node.accepts() {
            out.push_str(&line::render_detail(depth, DetailKind::Accept, accept));
            out.push_str(newline);
        }
    }
    out
}

/// What replacing a plan changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Replaced {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Nodes that kept a status other than todo.
    pub kept: usize,
}

impl fmt::Display for Replaced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |ids: &[String]| {
            if ids.len() > 6 {
                format!("{} and {} more", ids[..6].join(", "), ids.len() - 6)
            } else {
                ids.join(", ")
            }
        };
        let mut parts = Vec::new();
        if !self.added.is_empty() {
            parts.push(format!("added {}", list(&self.added)));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed {}", list(&self.removed)));
        }
        if self.kept > 0 {
            parts.push(format!("{} kept their status", self.kept));
        }
        if parts.is_empty() {
            parts.push("the same nodes".to_string());
        }
        f.write_str(&parts.join("; "))
    }
}

/// Gives the nodes of `new` whose ids are in `old` their old status, then
/// rolls those up, and says what changed.
pub fn carry_over(new: &mut Plan, old: &Plan) -> Replaced {
    let mut replaced = Replaced::default();
    let mut carried = Vec::new();
    for node in &mut new.nodes {
        match old.node(&node.id) {
            Some(before) => {
                if before.status != NodeStatus::Todo {
                    node.status = before.status;
                    node.reason = before.reason.clone();
                    replaced.kept += 1;
                    carried.push(node.id.clone());
                }
            }
            None => replaced.added.push(node.id.clone()),
        }
    }
    replaced.removed = old
        .nodes
        .iter()
        .filter(|n| new.find(&n.id).is_none())
        .map(|n| n.id.clone())
        .collect();
    // Leaves last set, parents follow them.
    for id in carried.iter().rev() {
        let index = new.find(id).expect("carried from new");
        if new.nodes[index].children.is_empty() {
            let (status, reason) = (new.nodes[index].status, new.nodes[index].reason.clone());
            new.set_status(id, status, reason);
        }
    }
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's example shape, filled in.
    pub(crate) const EXAMPLE: &str = r#"{
      "planVersion": 1,
      "goal": {"title": "Health endpoint", "successCriteria": ["GET /health answers 200"], "constraints": ["no new dependencies"]},
      "phases": [
        {"id": "P1", "name": "Ship the health endpoint", "objective": "the endpoint is live",
         "acceptance": ["/health answers in production"],
         "tasks": [
           {"id": "T1.1", "name": "Write the handler", "outcome": "handler merged",
            "acceptance": ["GET /health answers 200 with the build id"], "deps": [],
            "subtasks": [
              {"id": "S1.1.1", "name": "Add the route", "acceptance": ["the route exists"]},
              {"id": "S1.1.2", "name": "Return the build id", "acceptance": ["the body holds it"], "deps": ["S1.1.1"]}
            ]},
           {"id": "T1.2", "name": "Deploy to production", "acceptance": ["/health answers in production"], "deps": ["T1.1"]}
         ]},
        {"id": "P2", "name": "Tell people", "acceptance": ["the changelog says so"], "deps": ["P1"]}
      ]
    }"#;

    fn problems(text: &str) -> Vec<String> {
        validate(text)
            .expect_err(text)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_valid_plan_renders_as_lines_that_read_back() {
        let plan = validate(EXAMPLE).unwrap();
        assert_eq!(plan.nodes.len(), 6);
        let text = render(&plan, "\n");
        assert_eq!(
            text.lines().take(6).collect::<Vec<_>>(),
            [
                "- [ ] P1 Ship the health endpoint",
                "  - outcome: the endpoint is live",
                "  - accept: /health answers in production",
                "  - [ ] T1.1 Write the handler",
                "    - outcome: handler merged",
                "    - accept: GET /health answers 200 with the build id",
            ]
        );
        assert!(text.contains("    - [ ] S1.1.2 Return the build id · after S1.1.1\n"));
        let read = crate::model::plan::section::parse(&text, 0..text.len())
            .unwrap()
            .plan;
        assert_eq!(read, plan);
    }

    #[test]
    fn every_rule_has_its_message_and_path() {
        assert!(problems("Here is the plan: {\"phases\": []}")[0].starts_with("$: not JSON"));
        assert!(problems("```json\n{}\n```")[0].starts_with("$: not JSON"));
        assert_eq!(
            problems(r#"{"phases": []}"#),
            ["$.phases: empty: a plan has 1 to 5 phases"]
        );
        assert_eq!(
            problems("{}"),
            ["$.phases: missing: a plan has 1 to 5 phases"]
        );
        let six = (1..=6)
            .map(|i| format!(r#"{{"id":"P{i}","name":"n","acceptance":["a"]}}"#))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(
            problems(&format!(r#"{{"phases":[{six}]}}"#)),
            ["$.phases: 6 phases: a plan has at most 5"]
        );
        let eight = (1..=8)
            .map(|i| format!(r#"{{"id":"T{i}","name":"n","acceptance":["a"]}}"#))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(
            problems(&format!(
                r#"{{"phases":[{{"id":"P1","name":"n","acceptance":["a"],"tasks":[{eight}]}}]}}"#
            )),
            ["$.phases[0].tasks: 8 tasks: a phase has at most 7"]
        );
        assert_eq!(
            problems(
                r#"{"phases":[{"id":"P1","name":"n","acceptance":["a"]},{"id":"P1","name":"m","acceptance":["b"]}]}"#
            ),
            ["$.phases[1].id: `P1` is used twice (first at $.phases[0].id)"]
        );
        assert_eq!(
            problems(r#"{"phases":[{"id":"P1","name":"n"}]}"#),
            ["$.phases[0].acceptance: missing: every node needs at least one acceptance criterion"]
        );
        assert_eq!(
            problems(r#"{"phases":[{"id":"P1","name":"n","acceptance":["a"],"deps":["P7"]}]}"#),
            ["$.phases[0].deps[0]: `P7` is not a node of this plan"]
        );
        assert_eq!(
            problems(
                r#"{"phases":[{"id":"P1","name":"n","acceptance":["a"],"deps":["P2"]},{"id":"P2","name":"m","acceptance":["b"],"deps":["P1"]}]}"#
            ),
            ["$.phases[0].deps[0]: dependency cycle: P1 → P2 → P1"]
        );
        assert_eq!(
            problems(r#"{"phases":[{"id":"P1","name":"n","acceptance":["a"],"risk":"low"}]}"#),
            [
                "$.phases[0].risk: unknown key: expected id, name, objective, outcome, acceptance, deps, tasks"
            ]
        );
        assert_eq!(
            problems(r#"{"phases":[{"id":"P1","name":"a · b","acceptance":[""]}]}"#),
            [
                "$.phases[0].name: must not contain `·`, the plan line's separator",
                "$.phases[0].acceptance[0]: empty",
            ]
        );
        let long = "x".repeat(MAX_STRING_BYTES + 1);
        assert_eq!(
            problems(&format!(
                r#"{{"phases":[{{"id":"P1","name":"{long}","acceptance":["a"]}}]}}"#
            )),
            [format!(
                "$.phases[0].name: {} bytes: at most 64 KiB",
                long.len()
            )]
        );
    }

    #[test]
    fn a_replaced_plan_keeps_the_status_of_surviving_ids() {
        let mut old = validate(EXAMPLE).unwrap();
        old.set_status("S1.1.1", NodeStatus::Done, None);
        old.set_status("T1.2", NodeStatus::Blocked, Some("no token".into()));
        let mut new = validate(&EXAMPLE.replace(
            r#"{"id": "P2", "name": "Tell people""#,
            r#"{"id": "P3", "name": "Tell people""#,
        ))
        .unwrap();
        let replaced = carry_over(&mut new, &old);
        assert_eq!(replaced.added, ["P3"]);
        assert_eq!(replaced.removed, ["P2"]);
        assert_eq!(new.node("S1.1.1").unwrap().status, NodeStatus::Done);
        assert_eq!(
            new.node("T1.2").unwrap().reason.as_deref(),
            Some("no token")
        );
        assert_eq!(new.node("T1.1").unwrap().status, NodeStatus::InProgress);
        assert_eq!(
            replaced.to_string(),
            "added P3; removed P2; 4 kept their status"
        );
    }
}
