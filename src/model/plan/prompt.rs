//! The planner's prompts (the Overseer's templates): one asks for a plan of
//! a goal as strict JSON, the other for a corrected answer, with what was
//! wrong.

use super::json::{
    MAX_PHASES, MAX_STRING_BYTES, MAX_SUBTASKS_PER_TASK, MAX_TASKS_PER_PHASE, Problem,
};
use crate::model::{Goal, format_time};

/// The shape the planner must answer with.
const SCHEMA: &str = r#"{
  "planVersion": 1,
  "phases": [
    {
      "id": "P1",
      "name": "one line",
      "objective": "one line (optional)",
      "acceptance": ["a check a third party could make"],
      "deps": [],
      "tasks": [
        {
          "id": "T1.1",
          "name": "one line",
          "outcome": "one line (optional)",
          "acceptance": ["..."],
          "deps": [],
          "subtasks": [
            {"id": "S1.1.1", "name": "one line", "acceptance": ["..."], "deps": []}
          ]
        }
      ]
    }
  ]
}"#;

/// The planner prompt for `goal`, worked on in `root`.
pub fn planner(goal: &Goal, root: &str) -> String {
    let criteria = serde_json::to_string_pretty(
        &goal
            .criteria
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>(),
    )
    .expect("strings serialize");
    let mut constraints = vec![format!("work happens in {root}")];
    constraints.extend(goal.record.constraints.iter().cloned());
    constraints.extend(
        goal.record
            .non_goals
            .iter()
            .map(|n| format!("not a goal: {n}")),
    );
    constraints.extend(
        goal.record
            .risks
            .iter()
            .map(|r| format!("risk to keep in mind: {r}")),
    );
    if let Some(deadline) = goal.bounds.deadline {
        constraints.push(format!("done before {}", format_time(deadline)));
    }
    if let Some(usd) = goal.bounds.max_cost_usd {
        constraints.push(format!("spend at most ${usd:.2} in agent runs"));
    }
    constraints.push(format!(
        "at most {} agent runs (dispatches) in all",
        goal.budget.max_dispatches
    ));
    let constraints = serde_json::to_string_pretty(&constraints).expect("strings serialize");
    let statement = if goal.description.trim().is_empty() {
        "(none given beyond the title and the success criteria)"
    } else {
        goal.description.trim()
    };
    format!(
        "You are OverseerPlanner. Decompose the following goal into a 3-tier plan:
Phases -> Tasks -> Subtasks.

Requirements:
- Output MUST be valid JSON only (no markdown, no code fences, no prose).
- Use at most {MAX_PHASES} phases, {MAX_TASKS_PER_PHASE} tasks per phase, {MAX_SUBTASKS_PER_TASK} subtasks per task.
- Every node must have: id, name, objective or outcome (optional), acceptance (array of strings, at least one).
- Ids are unique: a letter, then letters, digits, \".\", \"_\" or \"-\" (P1, T1.1, S1.1.1).
- Include deps as arrays of ids when a node must wait for another; no cycles, and never a node's own phase or task.
- Names and criteria are one line each (at most 64 KiB), and names do not contain \" · \".
- Keep acceptance criteria testable/verifiable. The goal is judged by its success criteria: the plan must lead to every one.
- No other keys than these:

{SCHEMA}

Goal:
{title}

Problem statement:
{statement}

Success criteria:
{criteria}

Constraints:
{constraints}
",
        title = goal.title,
    )
}

/// The repair prompt: what was wrong with `previous`, and the request for
/// corrected JSON.
pub fn repair(problems: &[Problem], previous: &str) -> String {
    let errors = problems
        .iter()
        .map(|p| format!("- {p}"))
        .collect::<Vec<_>>()
        .join("\n");
    let previous = if previous.len() > MAX_STRING_BYTES {
        let mut end = MAX_STRING_BYTES;
        while !previous.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n[… cut at 64 KiB]", &previous[..end])
    } else {
        previous.to_string()
    };
    format!(
        "Your previous output was invalid JSON or did not match the required schema.
Return ONLY corrected JSON that matches the schema exactly. Do not add commentary.

The schema:

{SCHEMA}

Validation errors:
{errors}

Previous output:
{previous}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::parse_goal;

    #[test]
    fn the_planner_prompt_carries_the_goal_and_the_bounds() {
        let goal = parse_goal(
            "---\nlabel: ship\ntitle: Ship the API\n---\n## Acceptance criteria\n\n- [ ] GET /health answers 200\n- [ ] Runbook written\n",
        );
        let prompt = planner(&goal, "/srv/agent");
        assert!(prompt.contains("Ship the API"));
        assert!(prompt.contains("\"GET /health answers 200\""));
        assert!(prompt.contains("at most 5 phases, 7 tasks per phase, 7 subtasks per task"));
        assert!(prompt.contains("work happens in /srv/agent"));
        assert!(prompt.contains("Output MUST be valid JSON only"));
    }

    #[test]
    fn the_repair_prompt_lists_every_error() {
        let problems = vec![
            Problem {
                path: "$.phases[0].id".into(),
                message: "missing".into(),
            },
            Problem {
                path: "$.phases[1]".into(),
                message: "expected an object".into(),
            },
        ];
        let prompt = repair(&problems, "{\"phases\": [{}, 1]}");
        assert!(prompt.contains("- $.phases[0].id: missing\n- $.phases[1]: expected an object"));
        assert!(prompt.ends_with("Previous output:\n{\"phases\": [{}, 1]}\n"));
    }
}
