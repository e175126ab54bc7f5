#!/usr/bin/env bash
# A night with the REAL Claude Code and Codex CLIs (against the harness's
# scripted model, tests/e2e/harness), stepped by `tick` every five
# minutes of a moved clock (STEWARD_NOW), four goals per client:
#
#   ok-1       the agent writes work/ok-1 and asks the judge: completed
#              by its check;
#   lazy-1     the agent answers and records nothing: the ladder ends in
#              no_progress, told once;
#   limited-1  the model answers 429: the run is `limited`, no failure is
#              counted, the goal is not blocked and waits for the reset;
#   costly-1   max_cost_usd 0.000001: the first run's cost fails it.
#
# Every notification must name a goal, and `why` must name what holds the
# limited goal.
#
#   tests/e2e/night.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

night() { # AGENT: four goals, dispatch on, ticks five minutes apart
  # One clock for everything (the event log is split by day: a store made
  # "now" and ticked "last week" would file the night's events in the past).
  export STEWARD_NOW=2026-11-21T04:00:00Z
  steward init -q
  cat >> steward.yaml <<YAML
dispatch:
  enabled: true
  agent: $1
  max_parallel: 4
  max_retries: 0
  timeout: 2m
notify:
  command: [sh, -c, 'cat >> notified.jsonl; echo >> notified.jsonl']
YAML
  steward config accept -q
  for goal in ok-1 lazy-1 limited-1 costly-1; do
    steward add "$goal" --title "Goal $goal" --criterion "the work is there" \
      --verify "file_exists:work/$goal@1" -q
  done
  steward update costly-1 --max-cost-usd 0.000001 -q
  for minute in 00 05 10 15; do
    STEWARD_NOW=2026-11-21T04:${minute}:00Z steward tick -q >> mailed.txt
    e2e_settle
  done
  STEWARD_NOW=2026-11-21T04:15:00Z steward why limited-1 > why.txt
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "night-$agent")
  e2e_case "$agent" "$(e2e_script night "$agent")" "$dir" night
  if python3 - "$dir" "$steward" <<'PY'
import json, os, subprocess, sys
d, steward = sys.argv[1], sys.argv[2]
store = f"{d}/store"
runs = json.load(open(f"{d}/runs.json"))["runs"]
def goal(label):
    out = subprocess.run([steward, "-C", store, "show", label, "--json"], capture_output=True,
                         text=True, env=dict(os.environ, HOME=f"{d}/home")).stdout
    return json.loads(out)["goal"]
def of(label):
    return [r for r in runs if r["goal_label"] == label]
problems = []
ok = goal("ok-1")
if ok["status"] != "completed":
    problems.append(f"ok-1 is {ok['status']}, not completed")
lazy = goal("lazy-1")
if lazy["status"] != "blocked" or (lazy.get("escalation") or {}).get("kind") != "no_progress":
    problems.append(f"lazy-1 is {lazy['status']} ({lazy.get('escalation')}), not blocked by no_progress")
limited = goal("limited-1")
if limited["status"] == "blocked" or limited["progress"]["consecutive_failures"] != 0:
    problems.append(f"limited-1 is {limited['status']} with {limited['progress']['consecutive_failures']} failures")
if [r["outcome"] for r in of("limited-1")] != ["limited"]:
    problems.append(f"limited-1's runs: {[(r['outcome'], r.get('result')) for r in of('limited-1')]}")
# The scripted 429 says nothing of a reset: why says the wait is steward's
# guess, not the client's word.
why = open(f"{store}/why.txt").read()
if "hit a usage limit without saying when it resets" not in why or "steward tries again at" not in why:
    problems.append("why does not name the usage limit as a guess: " + why)
costly = goal("costly-1")
if costly["status"] != "failed" or costly["progress"]["cost_usd"] <= 0:
    problems.append(f"costly-1 is {costly['status']} at ${costly['progress']['cost_usd']}")
told = [json.loads(l) for l in open(f"{store}/notified.jsonl") if l.strip()]
# Where bubblewrap is missing, steward tells once that Claude Code's runs
# start without its sandbox: a notification about the store, not a goal.
unsandboxed = "start without Claude Code's sandbox"
for n in told:
    if unsandboxed in n.get("message", ""):
        continue
    if not (n.get("goal") or {}).get("label"):
        problems.append(f"a notification names no goal: {n}")
events = sorted(n["event"] for n in told)
if "no_progress" not in events or "completed" not in events or "failed" not in events:
    problems.append(f"notifications: {events}")
if events.count("no_progress") != 1:
    problems.append(f"lazy-1 told {events.count('no_progress')} times")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent night — completed, no_progress, limited, over its cost ($dir)"
  else
    e2e_fail "$agent night ($dir)"
  fi
}

e2e_main "${1:-all}"
