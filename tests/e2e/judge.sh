#!/usr/bin/env bash
# The judge under the REAL Claude Code and Codex CLIs (against the
# harness's scripted model, tests/e2e/harness): an agent edits its
# goal file with its own shell (ticks every criterion, sets the status to
# verifying), then asks the judge to complete it —
#
#   shell   with `steward --actor agent complete` from its shell tool;
#   mcp     with the MCP tool goal_complete (`steward mcp` registered).
#
# Each must be refused (exit 4 / a tool error saying a person must review
# what changed outside steward), the goal must stay open and wait for a
# person, and the person must see why in `steward show` (the lines that
# changed) and `steward status` (the command to run).
#
#   tests/e2e/judge.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

new_store() { # DIR: a store with one goal of two criteria, as a person made it
  mkdir -p "$1" && (
    cd "$1" && HOME=$2 "$steward" init -q &&
      HOME=$2 "$steward" add deploy-api --title "Deploy the API" \
        --criterion "API responds on /health" --criterion "Runbook written" -q 2>/dev/null
  )
}

check() { # DIR CLIENT CASE
  python3 - "$@" "$steward" "$harness" <<'PY'
import json, os, subprocess, sys
d, client, case, steward, harness = sys.argv[1:]
sys.path.insert(0, harness)
import request_log
store, log = f"{d}/store", f"{d}/out/requests.jsonl"
env = dict(os.environ, HOME=f"{d}/person")
def run(*args):
    return subprocess.run([steward, "-C", store, *args], capture_output=True, text=True, env=env)
goal = json.loads(run("show", "deploy-api", "--json").stdout)["goal"]
results = request_log.results_text(log)
problems = []
if goal["status"] == "completed":
    problems.append("the agent completed its own edited goal")
if (goal.get("waiting") or {}).get("for_person") != "review":
    problems.append(f"the goal does not wait for a person's review: {goal.get('waiting')}")
if "waits for a person to review what changed outside steward" not in results:
    problems.append("the refusal never reached the model:\n" + results[-2000:])
if case == "shell" and "exit=4" not in results:
    problems.append("steward complete did not exit 4 in the agent's shell")
show = run("show", "deploy-api").stdout
if "Waiting: for a person to review what changed outside steward (status, criteria)" not in show:
    problems.append("show does not say why:\n" + show)
if "+status: verifying" not in show:
    problems.append("show does not print what changed:\n" + show)
status = run("status").stdout
if "steward show deploy-api, then steward accept deploy-api" not in status:
    problems.append("status does not name the person's command:\n" + status)
events = [json.loads(l) for l in run("audit").stdout.splitlines()]
found = [e for e in events if e["action"] == "edited_outside"]
if not found or found[0]["actor"] != "unknown":
    problems.append("no edited_outside event by unknown")
for p in problems:
    print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

run_case() { # CLIENT CASE
  local client=$1 case=$2 dir rc
  dir=$(e2e_dir "judge-$client-$case")
  # The person's home (steward's key) is not the agent's: the agent's
  # shell runs with the harness's home.
  new_store "$dir/store" "$dir/person"
  export HARNESS_OUT=$dir/out HARNESS_HOME=$dir/home
  mkdir -p "$dir/home/.codex"
  # The agent's steward must find the same key as the person's: one user,
  # one key (steward takes it from the password database in an installed
  # build; the test build takes $HOME).
  mkdir -p "$dir/home/.config" && cp -r "$dir/person/.config/steward" "$dir/home/.config/"
  case $client:$case in
    claude:shell)
      HARNESS_PERMISSIONS="--allowedTools Bash" "$harness/run-claude.sh" "$dir/store" \
        "$repo/tests/e2e/judge-shell.json" "Finish the goal" > "$dir/reply" 2> "$dir/stderr" ;;
    codex:shell)
      "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/judge-shell.json" "Finish the goal" \
        > "$dir/reply" 2> "$dir/stderr" ;;
    claude:mcp)
      (cd "$dir/store" && HOME=$dir/home "$steward" hook install mcp -q)
      HARNESS_PERMISSIONS="--allowedTools Bash,mcp__steward" "$harness/run-claude.sh" "$dir/store" \
        "$repo/tests/e2e/judge-mcp-claude.json" "Finish the goal" > "$dir/reply" 2> "$dir/stderr" ;;
    codex:mcp)
      "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/judge-mcp-codex.json" "Finish the goal" \
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
  run_case "$1" shell
  run_case "$1" mcp
}

e2e_main "${1:-all}"
