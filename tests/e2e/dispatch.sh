#!/usr/bin/env bash
# `steward tick` dispatching to the REAL Claude Code and Codex CLIs, each
# talking to the harness's scripted mock model (../shared/harness), with the
# built-in agent profiles: the run must end ok, report under its dispatch
# id, and the assessment the model makes must land in the goal.
#
#   tests/e2e/dispatch.sh [claude|codex|all]
#
# Needs the clients from `harness/setup.sh all` (HARNESS_PREFIX, default
# ~/.cache/steward-harness) and a built steward (STEWARD_BIN, default
# target/debug/steward). Skips, with a message and exit 0, what is not
# installed. Runs in a private network namespace when `unshare -n` works.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
harness=${HARNESS_DIR:-$repo/../shared/harness}
prefix=${HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness}
steward=$(readlink -f "${STEWARD_BIN:-$repo/target/debug/steward}")
which=${1:-all}

if [ ! -x "$steward" ]; then echo "skip: no steward at $steward (cargo build first)"; exit 0; fi
if [ ! -f "$harness/mock_llm.py" ]; then echo "skip: no harness at $harness"; exit 0; fi
if [ "${_E2E_INSIDE:-}" != 1 ] && unshare -n true 2>/dev/null; then
  export _E2E_INSIDE=1
  exec unshare -n bash -c 'ip link set lo up && exec "$@"' _ "$0" "$@"
fi

failures=0
run_case() {
  local agent=$1 dir mock port home store
  if [ ! -x "$prefix/bin/$agent" ]; then
    echo "skip: $agent is not installed under $prefix (run $harness/setup.sh $agent)"
    return 0
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/steward-e2e-$agent.XXXXXX")
  home=$dir/home store=$dir/store
  mkdir -p "$home/.codex" "$store"
  python3 "$harness/mock_llm.py" --script "$repo/tests/e2e/assess.json" --log "$dir/requests.jsonl" \
    --port-file "$dir/port" --lifetime 600 > "$dir/mock.out" 2>&1 &
  mock=$!
  for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
  port=$(cat "$dir/port")
  cat > "$home/.codex/config.toml" <<TOML
model = "mock-model"
model_provider = "mock"
check_for_update_on_startup = false
[analytics]
enabled = false
[features]
plugins = false
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "MOCK_LLM_API_KEY"
request_max_retries = 0
stream_max_retries = 0
TOML
  (
    unset ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN OPENAI_API_KEY OPENAI_BASE_URL CODEX_API_KEY \
          STEWARD_ROOT STEWARD_ACTOR CLAUDECODE CODEX_CI CODEX_THREAD_ID AI_AGENT
    export PATH="$(dirname "$steward"):$prefix/bin:/usr/local/bin:/usr/bin:/bin" HOME=$home \
      CLAUDE_CONFIG_DIR=$home/.claude CODEX_HOME=$home/.codex \
      ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=sk-ant-e2e-dummy \
      MOCK_LLM_API_KEY=e2e-dummy NO_PROXY=127.0.0.1,localhost DISABLE_TELEMETRY=1 \
      DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_MAX_RETRIES=1
    cd "$store"
    steward init -q
    steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
      --criterion "Runbook written" -q 2>/dev/null
    printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 2m\n' "$agent" >> steward.yaml
    steward tick -q
    for _ in $(seq 150); do
      steward runs --all --json | python3 -c 'import json,sys; sys.exit(0 if any(r["state"] in ("pending","running") for r in json.load(sys.stdin)["runs"]) else 1)' || break
      sleep 1
    done
    steward runs --all --json > "$dir/runs.json"
    steward show deploy-api --json > "$dir/goal.json"
  )
  kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null
  if python3 - "$dir" "$harness" <<'PY'
import json, subprocess, sys
d, harness = sys.argv[1], sys.argv[2]
run = json.load(open(f"{d}/runs.json"))["runs"][0]
goal = json.load(open(f"{d}/goal.json"))["goal"]
seen = subprocess.run([sys.executable, f"{harness}/requests.py", "contains", f"{d}/requests.jsonl",
                       '<goal-stewardship goal="deploy-api">'], capture_output=True).returncode == 0
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
    echo "ok: $agent — run ended ok, reported, criterion 1 met ($dir)"
  else
    echo "FAILED: $agent ($dir)"; failures=$((failures + 1))
  fi
}

case $which in
  claude|codex) run_case "$which" ;;
  all) run_case claude; run_case codex ;;
  *) echo "usage: $0 [claude|codex|all]" >&2; exit 2 ;;
esac
exit $((failures > 0))
