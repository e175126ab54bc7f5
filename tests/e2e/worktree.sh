#!/usr/bin/env bash
# `dispatch.worktree` with the REAL Claude Code and Codex CLIs, each talking
# to the harness's scripted model (tests/e2e/harness):
#
# - worktrees: two goals of one git repository dispatched at once
#   (max_parallel 2), each run in its own worktree on its own branch; each
#   model writes its goal's name into the same tracked file, commits, and
#   asks the judge, whose command check runs in that worktree. Both goals
#   complete, each branch holds its own edit, and the root's checkout is
#   untouched (dispatch.merge: none). alpha's model also tries to move
#   main from its worktree: the sandbox lets it write only its goal's
#   branches (bubblewrap for Claude Code). With Claude Code, beta's model
#   starts 8 s late: two of its sandboxes setting up at once in one
#   repository race over the empty .git/config.lock each makes and
#   removes (steward-guide(7), "Worktrees"), and the scripted model,
#   unlike a real one, does not run a failed command again.
# - merge: one such goal with dispatch.merge: ff; as the run ends, its
#   supervisor's pass fast-forwards main to the run's commit and the judge
#   completes the goal in the root, with no second tick.
# - subagent: with Claude Code, a run whose model starts a subagent with
#   its Agent tool (the hooks are those steward gives the run); with
#   Codex, a session of the goal whose model spawns one with
#   multi_agent_v1.spawn_agent (`steward hook install codex`, hooks
#   trusted): the subagent is an obligation of the goal, delivered with
#   what it said (SubagentStart, SubagentStop: the client gave it back to
#   the session), and the goal's status is left to the judge.
#
#   tests/e2e/worktree.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

# A git repository whose one tracked file, shared.txt, every run edits,
# with a store at its top.
repository_with_a_store() {
  git init -q -b main
  git config user.name "e2e"
  git config user.email "e2e@example.com"
  steward init -q
  echo base > shared.txt
  printf 'state/\n.claude/\nACTIVE-TASKS.md\n' > .gitignore
  git add shared.txt .gitignore
  git commit -qm base
}

setup_worktrees() { # AGENT: a repository, two goals, one tick
  repository_with_a_store
  for goal in alpha beta; do
    steward add "$goal" --title "shared.txt says $goal" --criterion "shared.txt says $goal" \
      --verify "command_exit_zero:grep -qx $goal shared.txt@1" -q 2>/dev/null
  done
  printf 'verification:\n  allow_commands: true\ndispatch:\n  enabled: true\n  agent: %s\n  timeout: 3m\n  max_parallel: 2\n  worktree: true\n' "$1" >> steward.yaml
  steward config accept > /dev/null
  git rev-parse main > ../main-before.txt
  steward tick -q
  e2e_settle
  git rev-parse main > ../main-after.txt
  steward show alpha --json > ../alpha.json
  steward show beta --json > ../beta.json
  for goal in alpha beta; do
    branch=$(steward runs --all --json | python3 -c 'import json,sys; print([r["worktree"]["branch"] for r in json.load(sys.stdin)["runs"] if r["goal_label"]==sys.argv[1]][0])' "$goal")
    git show "$branch:shared.txt" > "../$goal-branch.txt" 2>&1
  done
  cat shared.txt > ../root.txt
  git status --porcelain -- shared.txt > ../root-status.txt
}

setup_merge() { # AGENT: one goal, dispatch.merge: ff, one tick
  repository_with_a_store
  steward add alpha --title "shared.txt says alpha" --criterion "shared.txt says alpha" \
    --verify "command_exit_zero:grep -qx alpha shared.txt@1" -q 2>/dev/null
  printf 'verification:\n  allow_commands: true\ndispatch:\n  enabled: true\n  agent: %s\n  timeout: 3m\n  worktree: true\n  merge: ff\n' "$1" >> steward.yaml
  steward config accept > /dev/null
  steward tick -q
  e2e_settle
  steward show alpha --json > ../alpha.json
  cat shared.txt > ../root.txt
  git log --format=%s -1 > ../root-log.txt
}

check_merge() { # DIR
  python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
after = json.load(open(f"{d}/alpha.json"))["goal"]
problems = []
if after["status"] != "completed": problems.append(f"after the run's end: {after['status']} {after.get('waiting')}")
elif not (after.get("closed_reason") or "").startswith("branch steward/alpha/"):
    problems.append(f"closed: {after.get('closed_reason')}")
elif after["receipt"]["judged_by"] != "steward": problems.append(f"judged by {after['receipt']['judged_by']}")
if open(f"{d}/root.txt").read().strip() != "alpha": problems.append("the root's shared.txt is not alpha")
if open(f"{d}/root-log.txt").read().strip() != "alpha wrote shared.txt": problems.append("main is not at the run's commit")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

setup_subagent() { # AGENT: one goal, a run whose model starts a subagent
  steward init -q
  steward add deploy-api --title "Deploy the API" --criterion "Someone looked" -q 2>/dev/null
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 3m\n' "$1" >> steward.yaml
  steward config accept -q
  steward tick -q
  e2e_settle
  steward tasks --all --json > ../tasks.json
  steward show deploy-api --json > ../goal.json
}

codex_subagent() { # DIR: a Codex session of the goal (STEWARD_GOAL) with
  # steward's hooks installed and trusted for the run; its model spawns a
  # subagent with multi_agent_v1.spawn_agent. Codex runs only hooks it
  # trusts: a run steward dispatches needs them reviewed once in codex.
  local dir=$1
  mkdir -p "$dir/home/.codex" "$dir/store"
  (cd "$dir/store" && HOME=$dir/home "$steward" init -q &&
    HOME=$dir/home "$steward" add deploy-api --title "Deploy the API" --criterion "Someone looked" -q 2>/dev/null)
  CODEX_HOME=$dir/home/.codex HOME=$dir/home "$steward" hook install codex -q
  HARNESS_OUT=$dir/out HARNESS_HOME=$dir/home STEWARD_GOAL=deploy-api \
    "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/subagent-codex.json" "Work on the goal" \
    --dangerously-bypass-hook-trust > "$dir/reply" 2> "$dir/stderr"
  (cd "$dir/store" && HOME=$dir/home "$steward" tasks --all --json > ../tasks.json &&
    HOME=$dir/home "$steward" show deploy-api --json > ../goal.json)
  echo '{"runs": []}' > "$dir/runs.json"
}

check_worktrees() { # DIR
  python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
problems = []
paths = set()
for goal in ("alpha", "beta"):
    doc = json.load(open(f"{d}/{goal}.json"))
    g = doc["goal"]
    mine = [r for r in runs if r["goal_label"] == goal]
    if g["status"] != "completed":
        problems.append(f"{goal} is {g['status']}: {[(r.get('outcome'), r.get('result')) for r in mine]}")
    elif g["receipt"]["criteria"][0]["basis"] != "check":
        problems.append(f"{goal} was not judged by its check")
    worktree = (mine[0].get("worktree") if mine else None) or {}
    if not worktree.get("path", "").startswith("state/worktrees/run-"):
        problems.append(f"{goal}'s run had no worktree: {worktree}")
    if not worktree.get("branch", "").startswith(f"steward/{goal}/"):
        problems.append(f"{goal}'s branch: {worktree.get('branch')}")
    paths.add(worktree.get("path"))
    on_branch = open(f"{d}/{goal}-branch.txt").read().strip()
    if on_branch != goal:
        problems.append(f"{goal}'s branch holds {on_branch!r}")
    if not any(w["branch"] == worktree.get("branch") for w in doc.get("worktrees", [])):
        problems.append(f"show {goal} names no worktree: {doc.get('worktrees')}")
if len(paths) != 2:
    problems.append(f"the runs shared a worktree: {paths}")
if open(f"{d}/root.txt").read().strip() != "base":
    problems.append("the root's shared.txt changed")
if open(f"{d}/root-status.txt").read().strip():
    problems.append("the root's checkout is not clean")
# alpha's model tries `git update-ref refs/heads/main HEAD`: in the
# sandbox only the goal's own branches are writable.
if open(f"{d}/main-before.txt").read() != open(f"{d}/main-after.txt").read():
    problems.append("the agent moved main from its worktree")
starts = sorted(r["started_at"] for r in runs)
ends = sorted(r["ended_at"] for r in runs)
if len(runs) != 2 or starts[1] > ends[0]:
    problems.append(f"the runs did not overlap: {starts} {ends}")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

check_subagent() { # DIR
  python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
tasks = json.load(open(f"{d}/tasks.json"))["obligations"]
problems = []
# Claude Code's is a run steward started; Codex's a session of the goal.
if runs and runs[0].get("outcome") != "ok":
    problems.append(f"the run: {(runs[0].get('outcome'), runs[0].get('result'))}")
mine = [t for t in tasks if t.get("goal_label") == "deploy-api"]
if len(mine) != 1:
    problems.append(f"obligations of deploy-api: {tasks}")
else:
    t = mine[0]
    if t["status"] != "delivered": problems.append(f"status {t['status']}")
    if not (t["label"].startswith("deploy-api/general-purpose-") or t["label"].startswith("deploy-api/default-")):
        problems.append(f"label {t['label']}")
    if "nothing to change" not in (t.get("detail") or ""): problems.append(f"detail {t.get('detail')}")
    if runs and runs[0]["id"] not in (t.get("summary") or ""): problems.append(f"summary {t.get('summary')}")
goal = json.load(open(f"{d}/goal.json"))["goal"] if os.path.exists(f"{d}/goal.json") else None
if goal and goal["status"] == "verifying": problems.append("the subagent's end moved the goal to verifying")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "worktree-$agent")
  e2e_case "$agent" "$(e2e_script worktree "$agent")" "$dir" setup_worktrees
  if check_worktrees "$dir"; then
    e2e_pass "$agent worktrees — two runs at once, each completed in its own worktree, the root untouched ($dir)"
  else
    e2e_fail "$agent worktrees ($dir)"
  fi
  dir=$(e2e_dir "merge-$agent")
  e2e_case "$agent" "$(e2e_script worktree "$agent")" "$dir" setup_merge
  if check_merge "$dir"; then
    e2e_pass "$agent merge — as the run ends, the branch judged done in its worktree is fast-forwarded into main and judged in the root ($dir)"
  else
    e2e_fail "$agent merge ($dir)"
  fi
  dir=$(e2e_dir "subagent-$agent")
  if [ "$agent" = claude ]; then
    e2e_case "$agent" "$(e2e_script worktree "$agent")" "$dir" setup_subagent
  else
    codex_subagent "$dir"
  fi
  if check_subagent "$dir"; then
    e2e_pass "$agent subagent — the subagent its model started is an obligation of the goal, delivered, the goal left to the judge ($dir)"
  else
    e2e_fail "$agent subagent ($dir)"
  fi
}

e2e_main "${1:-all}"
