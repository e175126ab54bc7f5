#!/usr/bin/env bash
# steward's hooks and MCP server under the REAL Claude Code and Codex CLIs,
# each talking to the harness's scripted model (tests/e2e/harness):
#
#   stop-loop   `steward hook install claude-code|codex`; the agent says it is
#               done at once, steward's Stop hook sends it back naming the goal
#               and the next command, it assesses and completes, and the next
#               Stop lets it end: the goal is completed, one continuation.
#   block       the stewardship block reached the model as context.
#   mcp         `steward mcp` registered (`hook install mcp` for Claude Code,
#               -c mcp_servers.steward for Codex): the model lists the goals,
#               assesses and leaves a handoff (goal_handoff: summary, next
#               action, decision, evidence file) over MCP, as the agent; a
#               raised limit is refused (Claude Code). The handoff is in the
#               goal (`show --json`, by: agent), in the event log and in the
#               next `prompt --heartbeat` block.
#
#   tests/e2e/hooks.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

new_store() { # DIR: a store with one goal of two criteria
  mkdir -p "$1" && (
    cd "$1" && "$steward" init -q &&
      "$steward" add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
        --criterion "Runbook written" -q 2>/dev/null
  )
}

check() { # DIR CLIENT CASE: asserts on the store and the request log
  python3 - "$@" "$steward" "$harness" <<'PY'
import json, subprocess, sys
d, client, case, steward, harness = sys.argv[1:]
sys.path.insert(0, harness)
import request_log
store, log = f"{d}/store", f"{d}/out/requests.jsonl"
goal = json.loads(subprocess.run([steward, "-C", store, "show", "deploy-api", "--json"],
                                 capture_output=True, text=True).stdout)["goal"]
events = [json.loads(l) for l in subprocess.run([steward, "-C", store, "audit"],
                                                capture_output=True, text=True).stdout.splitlines()]
def seen(text):
    return request_log.seen(log, text)
def results():
    return request_log.results_text(log)
problems = []
if any(e["actor"] != "agent" for e in events[1:]):
    problems.append("a change was not made as the agent")
if case == "stop-loop":
    if goal["status"] != "completed":
        problems.append(f"the goal is {goal['status']}, not completed")
    if not seen("goal deploy-api is not done"):
        problems.append("the Stop hook's reason never reached the model")
    if not seen("Keep working on it (continuation 1 of 5)"):
        problems.append("no first continuation")
    if seen("continuation 2 of 5"):
        problems.append("a second continuation after the goal was complete")
    if not seen('<goal-stewardship goal="deploy-api">'):
        problems.append("the stewardship block never reached the model")
else:
    if not goal["criteria"][0]["met"]:
        problems.append("criterion 1 was not ticked over MCP")
    if '"criteria_total": 2' not in results():
        problems.append("goal_list's answer never reached the model")
    if client == "claude" and "steward refused (exit 4): only a person" not in results():
        problems.append("the raised limit was not refused as a tool error")
    # the handoff left over MCP: in the goal, signed by steward as the agent's
    next_action = "run the smoke test against staging"
    handoff = goal.get("handoff") or {}
    if handoff.get("by") != "agent":
        problems.append(f"no handoff by the agent in the goal (handoff: {handoff or None})")
    if handoff.get("next_actions") != [next_action]:
        problems.append(f"the handoff's next actions are {handoff.get('next_actions')}")
    if handoff.get("decisions") != [{"decision": "serve /health from the API process",
                                     "rationale": "no extra service to deploy"}]:
        problems.append(f"the handoff's decisions are {handoff.get('decisions')}")
    if handoff.get("evidence") != {"files": ["src/health.rs"]}:
        problems.append(f"the handoff's evidence is {handoff.get('evidence')}")
    if not any(e["action"] == "handoff" and e["actor"] == "agent"
               and (e.get("handoff") or {}).get("next_actions") == [next_action] for e in events):
        problems.append("no handoff event by the agent in the event log")
    if next_action not in results():
        problems.append("goal_handoff's answer never reached the model")
    # the next heartbeat, once the assessment's cooldown (10m) is over, shows it
    import datetime, os
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1))
    block = subprocess.run([steward, "-C", store, "prompt", "--heartbeat"], capture_output=True,
                           text=True, env=dict(os.environ, STEWARD_NOW=later.strftime("%Y-%m-%dT%H:%M:%SZ"))).stdout
    if '<goal-stewardship goal="deploy-api">' not in block:
        problems.append("the next heartbeat offered no block for deploy-api")
    elif f"Next: {next_action}" not in block or "by agent): health answers 200 on staging" not in block:
        problems.append("the next heartbeat's block lacks the handoff:\n" + block)
for p in problems:
    print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

run_case() { # CLIENT CASE
  local client=$1 case=$2 dir rc
  dir=$(e2e_dir "hooks-$client-$case")
  export HARNESS_OUT=$dir/out HARNESS_HOME=$dir/home
  mkdir -p "$dir/home/.codex"
  # The person and the agent are one user with one machine key (an
  # installed steward takes the home from the password database; this
  # test build takes $HOME): the store is made with the agent's home.
  HOME=$dir/home new_store "$dir/store"
  case $client:$case in
    claude:stop-loop)
      (cd "$dir/store" && HOME=$dir/home "$steward" hook install claude-code -q)
      "$harness/run-claude.sh" "$dir/store" "$repo/tests/e2e/stop-loop.json" \
        "Scheduled heartbeat: continue standing goals" > "$dir/reply" 2> "$dir/stderr" ;;
    codex:stop-loop)
      CODEX_HOME=$dir/home/.codex "$steward" hook install codex -q
      "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/stop-loop.json" \
        "Scheduled heartbeat: continue standing goals" --dangerously-bypass-hook-trust \
        > "$dir/reply" 2> "$dir/stderr" ;;
    claude:mcp)
      (cd "$dir/store" && HOME=$dir/home "$steward" hook install mcp -q)
      HARNESS_PERMISSIONS="--allowedTools mcp__steward" "$harness/run-claude.sh" "$dir/store" \
        "$repo/tests/e2e/mcp-claude.json" "Work on the goals" > "$dir/reply" 2> "$dir/stderr" ;;
    codex:mcp)
      "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/mcp-codex.json" "Work on the goals" \
        -c "mcp_servers.steward.command=\"$steward\"" -c 'mcp_servers.steward.args=["mcp"]' \
        > "$dir/reply" 2> "$dir/stderr" ;;
  esac
  rc=$?
  unset HARNESS_OUT HARNESS_HOME
  if [ "$rc" -ne 0 ]; then
    echo "  FAIL: $client exited $rc (see $dir/stderr)"; e2e_fail "$client $case ($dir)"
  elif check "$dir" "$client" "$case"; then
    e2e_pass "$client $case ($dir)"
  else
    e2e_fail "$client $case ($dir)"
  fi
}

run_client() { # CLIENT
  run_case "$1" stop-loop
  run_case "$1" mcp
}

e2e_main "${1:-all}"
