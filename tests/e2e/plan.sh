#!/usr/bin/env bash
# Plans with the REAL Claude Code and Codex CLIs (SPEC 15): with
# `dispatch.plan: auto`, the first tick sends the planner prompt and steward
# reads the model's final message as the plan; the next tick starts a run
# on the first ready node, named in its instruction, and the model marks it
# done with `steward work`.
#
#   tests/e2e/plan.sh [claude|codex|all]
#
# Needs the clients from `harness/setup.sh all` and a built steward; skips,
# with a message and exit 0, what is not installed.
set -uo pipefail
which=${1:-all}
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

setup() { # AGENT: a goal without a plan, planning on; two ticks
  steward init -q
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --criterion "Runbook written" -q 2>/dev/null
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 2m\n  plan: auto\n' "$1" >> steward.yaml
  steward tick -q
  e2e_settle
  steward tick -q
}

failures=0
run_case() {
  local agent=$1 dir
  e2e_installed "$agent" || return 0
  dir=$(mktemp -d "${TMPDIR:-/tmp}/steward-e2e-plan-$agent.XXXXXX")
  e2e_case "$agent" "$(e2e_script plan "$agent")" "$dir" setup
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
goal = json.load(open(f"{d}/goal.json"))["goal"]
problems = []
if len(runs) < 2: problems.append(f"{len(runs)} run(s), expected a planning run and a node run")
else:
    if runs[0]["kind"] != "plan": problems.append(f"first run is {runs[0]['kind']}")
    if not str(runs[0].get("result", "")).startswith("plan: plan of 2 phases"): problems.append(f"planning run: {runs[0].get('result')}")
    if runs[1].get("node") != "S1.1.1": problems.append(f"node run on {runs[1].get('node')}")
    if runs[1].get("outcome") != "ok": problems.append(f"node run ended {runs[1].get('outcome')}: {runs[1].get('result')}")
if not goal.get("plan") or goal["plan"]["done"] != 1: problems.append(f"plan: {goal.get('plan')}")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    echo "ok: $agent — planned by the model, S1.1.1 worked and done ($dir)"
  else
    echo "FAILED: $agent ($dir)"; failures=$((failures + 1))
  fi
}

e2e_run_cases "$which"
