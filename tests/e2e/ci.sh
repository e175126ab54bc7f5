#!/usr/bin/env bash
# `ci_green` with the REAL Claude Code and Codex CLIs (against the
# harness's scripted model), and a loopback GitHub REST API
# (harness/github.py) whose CI follows what the agent wrote: nothing yet
# (no CI results), a first attempt (unit-tests fails on test_login), a fix
# (green). The first run's attempt leaves CI red; the next run must be
# told `failing: unit-tests` and what it said, and its fix makes the goal's
# check pass.
#
#   tests/e2e/ci.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

ci() { # AGENT: one goal judged by CI, ticks five minutes apart
  python3 "$harness/github.py" --store "$PWD" --port-file ../github.port --lifetime 600 \
    > ../github.out 2>&1 &
  local github=$! minute
  for _ in $(seq 100); do [ -s ../github.port ] && break; sleep 0.1; done
  export STEWARD_NOW=2026-11-21T04:00:00Z
  steward init -q
  cat >> steward.yaml <<YAML
verification:
  github_api: http://127.0.0.1:$(cat ../github.port)
dispatch:
  enabled: true
  agent: $1
  timeout: 2m
YAML
  steward config accept -q
  steward add login --title "Fix the login tests" --criterion "CI is green on main" \
    --verify "ci_green:acme/app@main@1" -q
  for minute in 00 05 10 15 20 25 30; do
    STEWARD_NOW=2026-11-21T04:${minute}:00Z steward tick -q >> ticks.txt
    e2e_settle
  done
  kill "$github" 2>/dev/null
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "ci-$agent")
  e2e_case "$agent" "$(e2e_script ci "$agent")" "$dir" ci
  if python3 - "$dir" "$steward" "$harness" <<'PY'
import json, os, subprocess, sys
d, steward, harness = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, harness)
import request_log
store = f"{d}/store"
runs = json.load(open(f"{d}/runs.json"))["runs"]
out = subprocess.run([steward, "-C", store, "show", "login", "--json"], capture_output=True,
                     text=True, env=dict(os.environ, HOME=f"{d}/home")).stdout
goal = json.loads(out)["goal"]
log = request_log.load(f"{d}/requests.jsonl")
problems = []
if not os.path.exists(f"{store}/work/attempt"):
    problems.append("the first run made no attempt")
if not os.path.exists(f"{store}/work/fixed"):
    problems.append("no run fixed what CI said")
if goal["status"] != "completed" or not goal["criteria"][0]["met"]:
    problems.append(f"login is {goal['status']}, criterion met: {goal['criteria'][0]['met']}")
told = request_log.contains(log, "failing: unit-tests")
if not told:
    problems.append("no request showed the model `failing: unit-tests`")
elif not request_log.contains(log, "1 test failed: test_login"):
    problems.append("the failing check's summary did not reach the model")
if len(runs) < 2:
    problems.append(f"{len(runs)} run(s): {[(r['kind'], r['outcome']) for r in runs]}")
github = open(f"{d}/github.log").read()
if "/repos/acme/app/commits/main/check-runs" not in github:
    problems.append("steward never asked the API for the check runs")
for p in problems: print("  FAIL:", p)
print("  runs:", [(r["kind"], r["outcome"]) for r in runs])
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — CI red after the first run, failing: unit-tests told to the next, fixed ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
