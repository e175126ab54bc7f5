//! What a run is told: the instruction of each kind of run — a first
//! run, a nudge, a resend (after a run that failed or stalled), a
//! reassign, a planning run, a plan node, the first run after a person's
//! unblock — then its dispatch id and worktree, and what a sandboxed
//! client is told of its sandbox. `dispatch` decides which run starts;
//! this says what it is asked.

use crate::context::Context;
use crate::model::plan::Node;
use crate::model::{Goal, Run, RunKind, RunOutcome, format_time};
use crate::rules::stewardship::render;

/// A planning run's instruction: the planner prompt, or after an answer
/// that was not a valid plan, the repair prompt with what was wrong.
fn planning(ctx: &Context, goal: &Goal, mine: &[&Run]) -> String {
    let previous = mine
        .last()
        .filter(|run| run.kind == RunKind::Plan)
        .and_then(|run| crate::os::safe_file::read_state(&ctx.store.run_answer_path(&run.id)));
    let planner = || {
        let mut prompt = crate::model::plan::prompt::planner(goal, &ctx.root.display().to_string());
        if let Some(plan) = &goal.plan {
            prompt.push_str(&replanning(goal, plan));
        }
        prompt
    };
    let prompt = match previous {
        Some(answer) => match crate::model::plan::json::validate(&answer) {
            Err(problems) => crate::model::plan::prompt::repair(&problems, &answer),
            Ok(_) => planner(),
        },
        None => planner(),
    };
    format!(
        "{prompt}\nsteward reads your final message as the plan: end with the JSON object alone.\n"
    )
}

/// What a planning run is told of the plan a goal has, when a person
/// unblocked it after the work stalled.
fn replanning(goal: &Goal, plan: &crate::model::plan::PlanSection) -> String {
    let note = goal
        .progress
        .unblock_note
        .as_deref()
        .map(|note| {
            format!(
                " A person unblocked it: \"{}\".",
                crate::text::one_line(note)
            )
        })
        .unwrap_or_default();
    format!(
        "\nThis goal has a plan, and work on it stalled until a person looked.{note} Its plan, with where each node stands:\n\n{}\nGive the whole plan again, changed where it did not work: keep the ids of the nodes that are done (they stay done), and add or change what the rest needs.\n",
        crate::model::plan::json::render(plan.plan(), "\n")
    )
}

/// What a person said when they unblocked the goal, for the first run
/// after it.
fn unblocked(goal: &Goal, mine: &[&Run]) -> String {
    let (Some(at), Some(note)) = (goal.progress.unblocked_at, &goal.progress.unblock_note) else {
        return String::new();
    };
    let since = format_time(at);
    if mine
        .iter()
        .any(|r| r.kind != RunKind::Plan && r.created_at >= since)
    {
        return String::new();
    }
    format!(
        "A person looked at this goal at {since} and said: \"{}\". Start from that.\n\n",
        crate::text::one_line(note)
    )
}

/// What a run on plan node `node` is asked, beside the goal's block.
fn plan_node(goal: &Goal, node: &Node) -> String {
    let label = &goal.label;
    let id = &node.id;
    let mut text = format!("Plan node {id} ({}): {}\n", node.level.as_str(), node.name);
    if let Some(outcome) = &node.outcome {
        text.push_str(&format!("Outcome: {outcome}\n"));
    }
    if !node.accept.is_empty() {
        text.push_str("Accept when:\n");
        for accept in node.accepts() {
            text.push_str(&format!("- {accept}\n"));
        }
    }
    text.push_str(&format!(
        "When you start: steward --actor agent work {label} {id} start. When its acceptance holds: steward --actor agent work {label} {id} done. Blocked: steward --actor agent work {label} {id} block --reason \"<why>\".\n"
    ));
    text
}

/// The instruction a run gets: the goal's block, with the run's contract
/// (and the plan node it works on). A nudge resuming a session asks for a
/// status report instead; a planning run gets the planner's prompt.
pub fn for_run(
    ctx: &Context,
    goal: &Goal,
    kind: RunKind,
    resumes: bool,
    node: Option<&Node>,
    mine: &[&Run],
) -> String {
    if kind == RunKind::Plan {
        return planning(ctx, goal, mine);
    }
    let label = &goal.label;
    let report = format!(
        "Record what you found before you stop: steward --actor agent assess {label} --summary \"<what is true now>\" --next \"<next step>\" [--met N]... [--blocker \"<what stops you>\"]... [--stuck]. When every criterion is met: steward --actor agent complete {label} --reason \"<evidence>\". Waiting on CI, a review or a person: steward --actor agent assess {label} --summary \"<what you wait for>\" --wait-until TIME (or --wait-for-check). Where you cannot run steward, end your last message with a fenced json block {{\"overseerUpdate\": {{\"summary\": \"<what is true now>\", \"next\": \"<next step>\", \"blockers\": [\"<what stops you>\"]}}}}: steward records it as your assessment."
    );
    let node_text = node.map(|n| plan_node(goal, n)).unwrap_or_default();
    let wait_over = format!(
        "The wait is over: {}. ",
        goal.progress
            .wait_note
            .as_deref()
            .map_or(
                "the goal no longer waits".to_string(),
                crate::text::one_line
            )
            .trim_end_matches('.')
    );
    // A resumed session is not shown the goal again: what its checks say
    // now (CI's failing checks, say) is told here.
    let failing = goal
        .progress
        .last_check
        .as_ref()
        .filter(|check| !check.failures.is_empty())
        .map_or_else(String::new, |check| {
            format!(
                "Its checks: {}/{} pass; failing: {}\n",
                check.passed,
                check.total,
                crate::text::one_line(&check.failures.join("; "))
            )
        });
    // What reviewers said on the goal's pull request since the last run
    // began: each said to the run after it, once.
    let review = mine
        .last()
        .and_then(|run| run.started_at.as_deref())
        .and_then(|since| {
            let pull = goal.record.pull_request.as_deref()?;
            super::review::review_of(&super::checking::policy(ctx), pull, since)
        })
        .unwrap_or_default();
    let failing = format!("{failing}{review}");
    if kind == RunKind::Wake && resumes {
        let on = node.map_or_else(String::new, |n| format!(", plan node {}", n.id));
        return format!(
            "steward wakes you for goal {label}{on}. {wait_over}Pick up where you left off: look at what changed, then work until its acceptance criteria are met or you are blocked, and {}\n{failing}{node_text}",
            lowercase_first(&report)
        );
    }
    if kind == RunKind::Nudge && resumes {
        let on = node.map_or_else(String::new, |n| format!(", plan node {}", n.id));
        return format!(
            "steward follow-up for goal {label}{on}: your last run ended without progress on its acceptance criteria. Reply in four lines — Status: what is true now. Next: the next step. Blockers: what stops you, or none. DONE + evidence: only if every criterion is met. Then act on it and {}\n{failing}{node_text}",
            lowercase_first(&report)
        );
    }
    let book = crate::model::book::Book::default();
    let block = render::goal_block(
        goal,
        &book,
        ctx.now,
        ctx.config.multi_goal_max_chars as usize,
        false,
    );
    let why = match kind {
        RunKind::Nudge => {
            "Your last run on this goal ended without progress: look again at what is unmet. "
        }
        RunKind::Resend => match mine.last() {
            Some(last) if last.outcome == Some(RunOutcome::Stalled) => &format!(
                "The last run on this goal stalled and was stopped ({}); start again, and where a command may run long, run it so that it prints as it goes. ",
                last.result
                    .as_deref()
                    .map_or("no sign of life".to_string(), |r| {
                        crate::text::head(&crate::text::one_line(r), 300)
                    })
            ),
            _ => "The last run on this goal failed; start again. ",
        },
        RunKind::Reassign => "Other attempts on this goal made no progress; you take it over. ",
        RunKind::Wake => &wait_over,
        _ => "",
    };
    let on = node.map_or_else(String::new, |n| {
        format!(", plan node {} ({})", n.id, n.name)
    });
    let unblocked = unblocked(goal, mine);
    format!(
        "steward asks you to work on goal {label}{on} now. {why}Work until its acceptance criteria are met or you are blocked; steward judges the result.\n\n{unblocked}{review}{node_text}{block}\n{report}\n"
    )
}

/// What follows the instruction once it was hashed (the same instruction
/// to a later run is the same one): the run's dispatch id, and its
/// worktree when it works in one.
pub fn for_this_run(instruction: String, run: &Run) -> String {
    let mut told = format!(
        "{instruction}This run's dispatch id is {} (in STEWARD_DISPATCH_ID): give it as --dispatch-id, or dispatch_id over MCP, where your environment does not carry it.\n",
        run.id
    );
    if let Some(worktree) = &run.worktree {
        told.push_str(&format!(
            "You work in a git worktree of your own, on branch {}: other runs work in theirs, and the person's checkout is not touched. Commit your work on this branch before you complete the goal; steward judges the goal's checks here, and what is not committed is not merged.\n",
            worktree.branch
        ));
    }
    told
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What a sandboxed Codex run is told after its instruction.
pub const CODEX_SANDBOX_NOTE: &str = "\nThis run's shell cannot write steward's store: where the steward commands above would write, call the steward MCP tools instead (goal_assess with the same fields, goal_complete).\n";

/// What a sandboxed Claude Code run is told after its instruction.
pub const CLAUDE_SANDBOX_NOTE: &str = "\nThis run's shell is sandboxed: it lets a steward command out only when it runs alone — never after `&&`, `;` or `|`, nor with `cd`, `$(...)` or a redirect. Run each steward command above as a command of its own, or call the steward MCP tools instead (mcp__steward__goal_assess with the same fields, mcp__steward__goal_complete).\n";
