#!/usr/bin/env bash
# A run whose model stops answering mid-run, with the REAL Claude Code and
# Codex CLIs against the harness's scripted model (its second answer comes
# 90 s late): steward must stop the run as stalled within
# dispatch.stall_after (5 s here), not at dispatch.timeout, and the resend
# that follows must be told the last run stalled.
#
#   tests/e2e/stall.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

setup() { # AGENT: one goal; a run that stalls, then the resend
  e2e_dispatching "$1" 2m
  printf '  stall_after: 5s\n  min_resend_interval: 0s\n  backoff:\n    base: 1s\n    max: 1s\n' >> steward.yaml
  steward config accept -q
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --cooldown 1s -q 2>/dev/null
  date +%s > ../started
  steward tick -q
  e2e_settle
  date +%s > ../stalled
  sleep 2
  steward tick -q
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "stall-$agent")
  e2e_case "$agent" "$repo/tests/e2e/stall.json" "$dir" setup
  if python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
runs = json.load(open(f"{d}/runs.json"))["runs"]
took = int(open(f"{d}/stalled").read()) - int(open(f"{d}/started").read())
problems = []
if len(runs) != 2:
    problems.append(f"{len(runs)} run(s), expected the stalled run and its resend")
else:
    first, second = runs
    if first.get("outcome") != "stalled": problems.append(f"first run ended {first.get('outcome')}: {first.get('result')}")
    if not str(first.get("result", "")).startswith("stalled: no sign of life for "): problems.append(f"first result: {first.get('result')!r}")
    if second.get("kind") != "resend": problems.append(f"second run is a {second.get('kind')}")
    if second.get("outcome") != "ok": problems.append(f"resend ended {second.get('outcome')}: {second.get('result')}")
# Caught within stall_after and the supervisor's looks, far before the
# model's 90 s answer or the 2 m timeout.
if took > 45: problems.append(f"the stall took {took} s to catch")
told = [json.loads(l) for l in open(f"{d}/requests.jsonl")]
if not any("stalled and was stopped" in json.dumps(r) for r in told): problems.append("no request told the model the last run stalled")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  then
    e2e_pass "$agent — a silent run stopped as stalled, and the resend told so ($dir)"
  else
    e2e_fail "$agent ($dir)"
  fi
}

e2e_main "${1:-all}"
