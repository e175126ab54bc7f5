# shellcheck shell=bash
# Sourced by every end-to-end script in tests/e2e. The scripts drive the
# REAL Claude Code and Codex CLIs (installed by harness/install.sh) against
# the harness's scripted model (harness/model.py), with a steward built with
# the cargo feature `testing` (STEWARD_BIN, default target/debug/steward):
# the scripts move its clock (STEWARD_NOW) and give each case its own HOME,
# and so its own machine key.
#
# Sourcing it sets repo, harness, prefix and steward, and checks that the
# script can run at all: when it cannot (no steward build, no python3) it
# prints `SKIPPED: <reason>` and exits 77.
#
# A script then defines `run_client CLIENT`, which runs its cases for one
# client and reports each with e2e_pass, e2e_fail or e2e_skip, and ends with
# `e2e_main "${1:-all}"`: run_client for each chosen client that is
# installed (the others are skipped), then the closing line
# "N passed, N failed, N skipped" and the status — 1 when a case failed,
# 77 when no case ran, else 0.
#
# Environment: STEWARD_BIN, HARNESS_PREFIX (where install.sh put the
# clients), E2E_WORK (where the cases' folders go: default a
# steward-e2e-NAME.XXXXXX folder per case in ${TMPDIR:-/tmp}; they are kept,
# for a look at what failed).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=harness/common.sh
. "$repo/tests/e2e/harness/common.sh"
prefix=$harness_prefix
export HARNESS_PREFIX=$prefix
# The checks import harness/request_log.py: no __pycache__ in the tree.
export PYTHONDONTWRITEBYTECODE=1
# Whatever says "an agent runs this" or names another store stays out: the
# scripts decide who acts where.
unset STEWARD_ROOT STEWARD_ACTOR STEWARD_DISPATCH_ID STEWARD_OVERRIDE_ACTOR CLAUDECODE \
  CLAUDE_CODE_CHILD_SESSION CODEX_CI CODEX_THREAD_ID AI_AGENT

e2e_passed=0 e2e_failed=0 e2e_skipped=0 e2e_skip_reasons=()

# e2e_cannot_run REASON: the whole script cannot run.
e2e_cannot_run() {
  echo "SKIPPED: $1"
  exit 77
}

command -v python3 > /dev/null || e2e_cannot_run "no python3 (the scripted model and the checks need it)"
steward=${STEWARD_BIN:-$repo/target/debug/steward}
[ -x "$steward" ] || e2e_cannot_run "no steward at $steward (cargo build --features testing first)"
steward=$(readlink -f "$steward")
export STEWARD_BIN=$steward
_probe=$(mktemp -d)
if ! (cd "$_probe" && export HOME=$_probe && "$steward" init -q &&
  STEWARD_NOW=2001-01-02T00:00:00Z "$steward" digest --json) 2>/dev/null | grep -q '"since":"2001-01-01'; then
  rm -rf "$_probe"
  echo "FAILED: $steward ignores STEWARD_NOW: build it with \`cargo build --features testing\`"
  exit 1
fi
rm -rf "$_probe"
unset _probe

e2e_pass() { # WHAT
  echo "ok: $1"
  e2e_passed=$((e2e_passed + 1))
}

e2e_fail() { # WHAT
  echo "FAILED: $1"
  e2e_failed=$((e2e_failed + 1))
}

e2e_skip() { # WHAT REASON
  echo "SKIPPED: $1: $2"
  e2e_skipped=$((e2e_skipped + 1))
  e2e_skip_reasons+=("$1: $2")
}

# e2e_finish: the closing line, and the status (see the top).
e2e_finish() {
  local reasons="" reason
  echo "$(basename "$0" .sh): $e2e_passed passed, $e2e_failed failed, $e2e_skipped skipped"
  [ "$e2e_failed" -eq 0 ] || exit 1
  if [ "$e2e_passed" -eq 0 ]; then
    for reason in "${e2e_skip_reasons[@]}"; do reasons+="${reasons:+; }$reason"; done
    echo "SKIPPED: ${reasons:-no case ran}"
    exit 77
  fi
  exit 0
}

# e2e_main [claude|codex|all]: run_client for each chosen client, then e2e_finish.
e2e_main() {
  local clients client
  case ${1:-all} in
    claude|codex) clients=$1 ;;
    all) clients="claude codex" ;;
    *) echo "usage: $0 [claude|codex|all]" >&2; exit 2 ;;
  esac
  local missing=()
  for client in $clients; do
    harness_client "$client" > /dev/null || missing+=("$client")
  done
  if [ "${#missing[@]}" -eq "$(wc -w <<< "$clients")" ]; then
    local which="neither claude nor codex is"
    [ "${#missing[@]}" -eq 1 ] && which="${missing[0]} is not"
    e2e_cannot_run "$which installed under $prefix (tests/e2e/harness/install.sh ${1:-all})"
  fi
  for client in $clients; do
    if harness_client "$client" > /dev/null; then
      run_client "$client"
    else
      e2e_skip "$client" "not installed under $prefix (tests/e2e/harness/install.sh $client)"
    fi
  done
  e2e_finish
}

# e2e_isolate "$@": runs the rest of the script in a private network
# namespace holding only loopback, when it can make one as root (the
# harness's runners make their own otherwise). For the scripts whose
# clients `steward tick` starts, out of the runners' reach.
e2e_isolate() {
  harness_isolate --root-only "$BASH" "$0" "$@"
}

# e2e_dir NAME: a new folder for one case (see E2E_WORK), printed.
e2e_dir() {
  if [ -n "${E2E_WORK:-}" ]; then
    mkdir -p "$E2E_WORK" && mktemp -d "$E2E_WORK/$1.XXXXXX"
  else
    mktemp -d "${TMPDIR:-/tmp}/steward-e2e-$1.XXXXXX"
  fi
}

# e2e_dispatching AGENT [TIMEOUT]: a store here whose runs AGENT does,
# with the built-in profile, accepted as a person would; each run's end
# leaves the next pass to the case (no pass at the run's end).
e2e_dispatching() {
  steward init -q
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: %s\n  pass_at_run_end: false\n' \
    "$1" "${2:-2m}" >> steward.yaml
  steward config accept -q
}

# e2e_settle: waits (up to 150 s) until no run is pending or running.
e2e_settle() {
  # Until no run is under way and no supervisor is still making the pass
  # its run's end makes.
  for _ in $(seq 150); do
    steward runs --all --json | python3 -c '
import json, os, sys
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except (OSError, TypeError):
        return False
runs = json.load(sys.stdin)["runs"]
sys.exit(0 if any(r["state"] in ("pending", "running") or alive(r.get("supervisor_pid")) for r in runs) else 1)' || break
    sleep 1
  done
}

# e2e_case AGENT SCRIPT DIR SETUP: for a client that steward dispatches
# itself, with its built-in agent profile. Starts the scripted model with
# SCRIPT (its log: DIR/requests.jsonl), makes DIR/store, and runs the shell
# function SETUP there (as `SETUP AGENT`) in the clients' environment: a
# HOME of their own (DIR/home), the model as their API, steward and the
# clients on PATH. Then waits for every run to end and writes
# DIR/runs.json (steward runs --all) and, when there is a goal deploy-api,
# DIR/goal.json (steward show deploy-api).
e2e_case() {
  local agent=$1 script=$2 dir=$3 setup=$4 home store
  home=$dir/home store=$dir/store
  # Codex's sandbox cannot start its helper from under the temporary
  # directory when its home is there too: the case's TMPDIR is its own.
  mkdir -p "$home/.codex" "$store" "$dir/tmp"
  harness_model_start "$script" "$dir" || { echo "  FAIL: the scripted model did not start"; return 1; }
  harness_codex_provider "$HARNESS_MODEL_PORT" > "$home/.codex/config.toml"
  (
    unset ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN OPENAI_API_KEY OPENAI_BASE_URL CODEX_API_KEY
    export PATH="${steward%/*}:$prefix/bin:/usr/local/bin:/usr/bin:/bin" HOME=$home TMPDIR=$dir/tmp \
      CLAUDE_CONFIG_DIR=$home/.claude CODEX_HOME=$home/.codex \
      ANTHROPIC_BASE_URL=http://127.0.0.1:$HARNESS_MODEL_PORT ANTHROPIC_API_KEY=sk-ant-e2e-dummy \
      MOCK_LLM_API_KEY=e2e-dummy NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
      DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_MAX_RETRIES=1
    cd "$store" || exit 1
    "$setup" "$agent"
    e2e_settle
    steward runs --all --json > "$dir/runs.json"
    steward show deploy-api --json > "$dir/goal.json" 2> /dev/null || rm -f "$dir/goal.json"
  )
  harness_model_stop
}

# e2e_script NAME AGENT: the model's script for AGENT — NAME-AGENT.json
# where the agent records through MCP (a dispatched Codex is sandboxed:
# its shell cannot write the store), else NAME.json.
e2e_script() {
  if [ -f "$repo/tests/e2e/$1-$2.json" ]; then echo "$repo/tests/e2e/$1-$2.json"; else echo "$repo/tests/e2e/$1.json"; fi
}
