#!/usr/bin/env bash
# Plans with the REAL Claude Code and Codex CLIs (steward-guide(7), "PLANS"):
# with `dispatch.plan: auto`, the first tick sends the planner prompt and
# steward reads the model's final message as the plan; the next tick starts
# a run on the first ready node, named in its instruction, and the model
# marks it done with `steward work`.
#
#   tests/e2e/plan.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: a goal without a plan, planning on; two ticks
  steward init -q
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --criterion "Runbook written" -q 2>/dev/null
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 2m\n  plan: auto\n' "$1" >> steward.yaml
  steward config accept -q
  steward tick -q
  e2e_settle
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "plan-$agent")
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
    e2e_pass "$agent — planned by the model, S1.1.1 worked and done ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
