#!/usr/bin/env bash
# `steward tick` dispatching to the REAL Claude Code and Codex CLIs, each
# talking to the harness's scripted model (tests/e2e/harness), with the
# built-in agent profiles: the run must end ok, report under its dispatch
# id, and the assessment the model makes must land in the goal.
#
#   tests/e2e/dispatch.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED. Runs
# in a private network namespace when `unshare -n` works.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: one goal, dispatch on, one tick
  steward init -q
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --criterion "Runbook written" -q 2>/dev/null
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 2m\n' "$1" >> steward.yaml
  steward config accept -q
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "dispatch-$agent")
  e2e_case "$agent" "$(e2e_script assess "$agent")" "$dir" setup
  if python3 - "$dir" "$harness" <<'PY'
import json, sys
d, harness = sys.argv[1], sys.argv[2]
sys.path.insert(0, harness)
import request_log
run = json.load(open(f"{d}/runs.json"))["runs"][0]
goal = json.load(open(f"{d}/goal.json"))["goal"]
seen = request_log.seen(f"{d}/requests.jsonl", '<goal-stewardship goal="deploy-api">')
problems = []
if run.get("outcome") != "ok": problems.append(f"outcome {run.get('outcome')}: {run.get('result')}")
if run.get("reported") is not True: problems.append("the run reported nothing under its dispatch id")
if not run.get("session"): problems.append("no session id read from the output")
if not goal["criteria"][0]["met"]: problems.append("criterion 1 is not met")
if not seen: problems.append("the instruction never reached the model")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — run ended ok, reported, criterion 1 met ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
