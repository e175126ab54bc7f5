#!/usr/bin/env bash
# The session that asked a person is the one woken with the answer, with
# the REAL Claude Code and Codex CLIs against the harness's scripted model:
# the first run asks (`assess --stuck`, or goal_assess over MCP); a person
# answers with `steward unblock --note`; the next pass resumes that run's
# session, told what the person said.
#
#   tests/e2e/answer.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: the run that asks, the answer, the wake
  e2e_dispatching "$1"
  steward add deploy-api --title "Deploy the API" --criterion "Deployed" --cooldown 1s -q 2>/dev/null
  steward tick -q
  e2e_settle
  steward show deploy-api --json > ../asked.json
  steward unblock deploy-api --note "the token is in the vault" -q
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "answer-$agent")
  e2e_case "$agent" "$(e2e_script answer "$agent")" "$dir" setup
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
asked = json.load(open(f"{d}/asked.json"))["goal"]
problems = []
if (asked.get("escalation") or {}).get("kind") != "agent": problems.append(f"the run did not ask a person: {asked.get('escalation')}")
kinds = [r["kind"] for r in runs]
if kinds != ["first", "wake"]: problems.append(f"runs: {kinds}")
elif runs[1].get("session") != runs[0].get("session") or runs[1].get("outcome") != "ok":
    problems.append(f"the wake: {runs[1].get('session')} (asked in {runs[0].get('session')}), {runs[1].get('outcome')}: {runs[1].get('result')}")
told = open(f"{d}/requests.jsonl").read()
if "steward wakes you for goal deploy-api. The wait is over: a person answered:" not in told or "the token is in the vault" not in told:
    problems.append("no request told the model what the person answered")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — the session that asked woken with the person's answer ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
