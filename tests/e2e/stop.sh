#!/usr/bin/env bash
# Stopping means stopping, with the REAL Claude Code and Codex CLIs against
# the harness's scripted model (tests/e2e/harness), as steward dispatches
# them (built-in profiles, sandboxed):
#
#   abandon  the model runs a command that sleeps five minutes; a person
#            abandons the goal: the run ends `cancelled` within seconds,
#            and the command with it.
#   money    the model works in many short steps; the goal's max_cost_usd
#            is $0.50: the run is stopped `over_budget` before the call
#            that would cross it, each response priced at the model the
#            client names — past it by at most a call already under way,
#            and then said.
#
#   tests/e2e/stop.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

running() { # LABEL: waits until its run's agent has run for a while
  for _ in $(seq 60); do
    steward runs --all --json | python3 -c 'import json,sys; sys.exit(0 if any(r["goal_label"]==sys.argv[1] and r["state"]=="running" for r in json.load(sys.stdin)["runs"]) else 1)' "$1" && break
    sleep 1
  done
  sleep 8
}

abandon_case() { # AGENT: a run under way, then its goal abandoned
  e2e_dispatching "$1" 5m
  steward add hang-1 --title "Hang" --criterion "never" -q 2>/dev/null
  steward tick -q
  running hang-1
  date +%s > ../abandoned-at
  steward abandon hang-1 --reason "not needed after all" -q
  e2e_settle
  date +%s > ../settled-at
  pgrep -f "time.sleep(300)" > ../left.txt || true
}

money_case() { # AGENT: a run that spends in many steps against a bound
  e2e_dispatching "$1" 5m
  steward add spend-1 --title "Spend" --criterion "never" --max-cost-usd 0.5 -q 2>/dev/null
  steward tick -q
  e2e_settle
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "abandon-$agent")
  e2e_case "$agent" "$repo/tests/e2e/stop.json" "$dir" abandon_case
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
problems = []
run = runs[0] if runs else {}
if run.get("outcome") != "cancelled": problems.append(f"outcome {run.get('outcome')}: {run.get('result')}")
took = int(open(f"{d}/settled-at").read()) - int(open(f"{d}/abandoned-at").read())
if took > 15: problems.append(f"the run ended {took}s after the abandon")
if open(f"{d}/left.txt").read().strip(): problems.append("the agent's command still runs")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent abandon — the run was cancelled within seconds, with what it started ($dir)"
  else
    e2e_fail "$agent abandon ($dir)"
  fi
  dir=$(e2e_dir "money-$agent")
  e2e_case "$agent" "$repo/tests/e2e/stop.json" "$dir" money_case
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
problems = []
run = runs[0] if runs else {}
if run.get("outcome") != "over_budget": problems.append(f"outcome {run.get('outcome')}: {run.get('result')}")
# Past the bound by at most one response (a call under way as it was
# stopped), and then said.
import re
cost, result = run.get("cost_usd", 0), run.get("result") or ""
dearest = re.search(r"next model call could cost \$([0-9.]+)", result)
# (to the cent: what rounds to $0.50 is at the bound)
if cost >= 0.505:
    if "a model call under way as it was stopped took it to" not in result:
        problems.append(f"charged ${cost}, over the $0.50 bound, and not said")
    if not dearest or cost > 0.5 + float(dearest.group(1)) + 0.01:
        problems.append(f"charged ${cost}: more than one response past the $0.50 bound")
print(f"  (charged ${run.get('cost_usd')}: {run.get('result')})")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent money — stopped at the \$0.50 bound, past it by at most one response, said ($dir)"
  else
    e2e_fail "$agent money ($dir)"
  fi
}

e2e_main "${1:-all}"
