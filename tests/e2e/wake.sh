#!/usr/bin/env bash
# The session that parked its goal on a wait is the one woken, with the
# REAL Claude Code and Codex CLIs against the harness's scripted model: the
# first run waits (`assess --wait-until`, or goal_assess over MCP) until a
# time 25 s ahead; the pass after it resumes that run's session, told the
# wait is over, exactly once.
#
#   tests/e2e/wake.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: the parking run, the wait, the wake, one more pass
  e2e_dispatching "$1"
  steward add deploy-api --title "Deploy the API" --criterion "CI is green" --cooldown 1s -q 2>/dev/null
  steward tick -q
  e2e_settle
  steward show deploy-api --json > ../parked.json
  # Past the wait, then the pass that ends it and wakes the session, then
  # one more that must not wake it again.
  while [ "$(date -u +%s)" -le "$(date -u -d "$(cat ../until)" +%s)" ]; do sleep 1; done
  steward tick -q
  e2e_settle
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir script
  dir=$(e2e_dir "wake-$agent")
  mkdir -p "$dir"
  date -u -d '+25 seconds' +%Y-%m-%dT%H:%M:%SZ > "$dir/until"
  script="$dir/wake.json"
  sed "s/UNTIL/$(cat "$dir/until")/" "$(e2e_script wake "$agent")" > "$script"
  e2e_case "$agent" "$script" "$dir" setup
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
parked = json.load(open(f"{d}/parked.json"))["goal"]
problems = []
if not parked.get("waiting"): problems.append(f"the first run did not park the goal: {parked.get('waiting')}")
kinds = [r["kind"] for r in runs]
if kinds[:2] != ["first", "wake"]: problems.append(f"runs: {kinds}")
if kinds.count("wake") != 1: problems.append(f"woken {kinds.count('wake')} times")
if len(runs) >= 2:
    first, wake = runs[0], runs[1]
    if not wake.get("session") or wake.get("session") != first.get("session"):
        problems.append(f"the wake resumed {wake.get('session')}, not the parked session {first.get('session')}")
    if wake.get("outcome") != "ok": problems.append(f"wake ended {wake.get('outcome')}: {wake.get('result')}")
told = open(f"{d}/requests.jsonl").read()
if "steward wakes you for goal deploy-api. The wait is over" not in told: problems.append("no request told the model its wait is over")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — the parked session woken once as its wait ended ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
