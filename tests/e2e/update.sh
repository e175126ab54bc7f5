#!/usr/bin/env bash
# A dispatched run whose agent records nothing itself and ends its reply
# with the Overseer's structured update (a fenced ```json block holding
# `overseerUpdate`), with the REAL Claude Code and Codex CLIs against the
# harness's scripted model: steward must read the update from the run's
# final message as the agent's assessment, tied to the run.
#
#   tests/e2e/update.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: one goal, dispatch on, one tick
  e2e_dispatching "$1"
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --criterion "Runbook written" -q 2>/dev/null
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "update-$agent")
  e2e_case "$agent" "$repo/tests/e2e/update.json" "$dir" setup
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
run = json.load(open(f"{d}/runs.json"))["runs"][0]
goal = json.load(open(f"{d}/goal.json"))["goal"]
problems = []
if run.get("outcome") != "ok": problems.append(f"outcome {run.get('outcome')}: {run.get('result')}")
if run.get("reported") is not True: problems.append("the update was not recorded under the run's dispatch id")
if run.get("result") != "its update, recorded as its assessment: install section of the runbook written":
    problems.append(f"result: {run.get('result')!r}")
if goal["progress"]["assessments"] != 1: problems.append(f"{goal['progress']['assessments']} assessments")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — the run's final overseerUpdate recorded as its assessment ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
