#!/usr/bin/env bash
# One scripted Codex turn (`codex exec`) in a steward store.
#
#   run-codex.sh STORE SCRIPT.json PROMPT [CODEX EXEC ARGS...]
#
# Starts the scripted model (model.py) with SCRIPT, writes a throwaway
# CODEX_HOME/config.toml whose model provider is that model, runs
# `codex exec PROMPT` in STORE with approvals and Codex's own sandbox off,
# then stops the model. Prints the agent's last message; exits with codex's
# status (124: HARNESS_TIMEOUT ran out; 2: the harness could not run it).
#
# What a run leaves in HARNESS_OUT (default: a new temporary folder, named on
# stderr as "harness: out=DIR"):
#   requests.jsonl    every request codex sent, with the answer (request_log.py)
#   codex.out         its --json event stream       codex.err  its stderr
#   last-message.txt  its final message (-o)
#   model.out         the model's own output        rc  codex's status
#   home/             the run's HOME; CODEX_HOME is home/.codex
#
# Environment (besides common.sh's HARNESS_PREFIX and HARNESS_NETNS):
#   STEWARD_BIN      the steward the agent's shell finds first on PATH
#   HARNESS_HOME     the HOME to use instead of HARNESS_OUT/home (hooks that
#                    `steward hook install codex` wrote to HOME/.codex stay)
#   HARNESS_TIMEOUT  seconds codex may take (default 120)
#   HARNESS_MODEL    the model name sent (default e2e-model)
set -uo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

harness_enter codex "$@"

store=$(cd "$1" && pwd) script=$(readlink -f "$2") prompt=$3
shift 3
out=$HARNESS_OUT home=${HARNESS_HOME:-$HARNESS_OUT/home}
codex=$(harness_client codex)
# Codex runs its shell tool as `bash -lc`.
path=$(harness_login_path "$home")
mkdir -p "$home/.codex"

timeout=${HARNESS_TIMEOUT:-120}
HARNESS_MODEL_LIFETIME=$((timeout + 60)) harness_model_start "$script" "$out" || exit 2
trap harness_model_stop EXIT
{
  echo 'approval_policy = "never"'
  echo 'sandbox_mode = "danger-full-access"'
  harness_codex_provider "$HARNESS_MODEL_PORT"
} > "$home/.codex/config.toml"

cd "$store" || exit 2
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CODEX_API_KEY -u HARNESS_OUT -u HARNESS_HOME \
  HOME="$home" CODEX_HOME="$home/.codex" PATH="$path" MOCK_LLM_API_KEY=e2e-dummy \
  NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost RUST_LOG="${RUST_LOG:-warn}" \
  timeout "$timeout" "$codex" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
    --json --color never -o "$out/last-message.txt" "$@" "$prompt" \
    > "$out/codex.out" 2> "$out/codex.err" < /dev/null
rc=$?
echo "$rc" > "$out/rc"
harness_model_stop
[ -f "$out/last-message.txt" ] && cat "$out/last-message.txt"
[ "$rc" -eq 0 ] || echo "run-codex.sh: codex exited $rc; see $out/codex.err" >&2
exit "$rc"
