# Shared by the end-to-end scripts: the real Claude Code and Codex CLIs
# (from ../shared/harness/setup.sh) against the harness's scripted mock
# model, with steward's built-in agent profiles. Source it, then call
# `e2e_case AGENT SCRIPT.json DIR SETUP` (SETUP runs in the store with the
# clients' environment) and check what DIR holds.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
harness=${HARNESS_DIR:-$repo/../shared/harness}
prefix=${HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness}
# shellcheck source=steward-bin.sh
. "$repo/tests/e2e/steward-bin.sh"
if [ ! -f "$harness/mock_llm.py" ]; then echo "skip: no harness at $harness"; exit 0; fi
if [ "${_E2E_INSIDE:-}" != 1 ] && unshare -n true 2>/dev/null; then
  export _E2E_INSIDE=1
  exec unshare -n bash -c 'ip link set lo up && exec "$@"' _ "$0" "$@"
fi

# e2e_installed AGENT: whether the client is installed (says so when not).
e2e_installed() {
  if [ ! -x "$prefix/bin/$1" ]; then
    echo "skip: $1 is not installed under $prefix (run $harness/setup.sh $1)"
    return 1
  fi
}

# e2e_settle: waits (up to 150 s) until no run is pending or running.
e2e_settle() {
  for _ in $(seq 150); do
    steward runs --all --json | python3 -c 'import json,sys; sys.exit(0 if any(r["state"] in ("pending","running") for r in json.load(sys.stdin)["runs"]) else 1)' || break
    sleep 1
  done
}

# e2e_case AGENT SCRIPT DIR SETUP: starts the mock with SCRIPT, makes a
# store in DIR/store, runs the shell function SETUP there with the clients'
# environment, then waits for every run to end and writes DIR/runs.json.
e2e_case() {
  local agent=$1 script=$2 dir=$3 setup=$4 mock port home store
  home=$dir/home store=$dir/store
  # Codex's sandbox cannot start its helper from under the temporary
  # directory when its home is there too.
  mkdir -p "$home/.codex" "$store" "$dir/tmp"
  python3 "$harness/mock_llm.py" --script "$script" --log "$dir/requests.jsonl" \
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
    export PATH="$(dirname "$steward"):$prefix/bin:/usr/local/bin:/usr/bin:/bin" HOME=$home TMPDIR=$dir/tmp \
      CLAUDE_CONFIG_DIR=$home/.claude CODEX_HOME=$home/.codex \
      ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=sk-ant-e2e-dummy \
      MOCK_LLM_API_KEY=e2e-dummy NO_PROXY=127.0.0.1,localhost DISABLE_TELEMETRY=1 \
      DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_MAX_RETRIES=1
    cd "$store"
    "$setup" "$agent"
    e2e_settle
    steward runs --all --json > "$dir/runs.json"
    steward show deploy-api --json > "$dir/goal.json"
  )
  kill "$mock" 2>/dev/null; wait "$mock" 2>/dev/null
}

# e2e_script NAME AGENT: the model's script for AGENT — NAME-AGENT.json
# where the agent records through MCP (a dispatched Codex is sandboxed:
# its shell cannot write the store), else NAME.json.
e2e_script() {
  if [ -f "$repo/tests/e2e/$1-$2.json" ]; then echo "$repo/tests/e2e/$1-$2.json"; else echo "$repo/tests/e2e/$1.json"; fi
}

# e2e_run_cases WHICH: run_case for claude, codex or all; exits 1 when a
# case failed (run_case counts them in `failures`).
e2e_run_cases() {
  case $1 in
    claude|codex) run_case "$1" ;;
    all) run_case claude; run_case codex ;;
    *) echo "usage: $0 [claude|codex|all]" >&2; exit 2 ;;
  esac
  exit $((failures > 0))
}
