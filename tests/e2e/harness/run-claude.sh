#!/usr/bin/env bash
# One scripted Claude Code turn (`claude -p`) in a steward store.
#
#   run-claude.sh STORE SCRIPT.json PROMPT [CLAUDE ARGS...]
#
# Starts the scripted model (model.py) with SCRIPT, points Claude Code at it
# with a dummy key and a throwaway HOME, runs `claude -p PROMPT` in STORE,
# then stops the model. Prints the agent's reply; exits with claude's status
# (124: HARNESS_TIMEOUT ran out; 2: the harness could not run it).
#
# What a run leaves in HARNESS_OUT (default: a new temporary folder, named on
# stderr as "harness: out=DIR"):
#   requests.jsonl  every request claude sent, with the answer (request_log.py)
#   claude.out      its stdout          claude.err  its stderr
#   debug.log       its --debug-file: hook runs and what they printed
#   model.out       the model's own output          rc  claude's status
#   home/           the run's HOME and CLAUDE_CONFIG_DIR (home/.claude)
#
# Environment (besides common.sh's HARNESS_PREFIX and HARNESS_NETNS):
#   STEWARD_BIN          the steward the agent's shell finds first on PATH
#   HARNESS_HOME         the HOME to use instead of HARNESS_OUT/home
#   HARNESS_PERMISSIONS  permission flags (default "--allowedTools Bash")
#   HARNESS_TIMEOUT      seconds claude may take (default 120)
#   HARNESS_MODEL        --model to send (default: claude's own)
set -uo pipefail
# shellcheck source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

harness_enter claude "$@"

store=$(cd "$1" && pwd) script=$(readlink -f "$2") prompt=$3
shift 3
out=$HARNESS_OUT home=${HARNESS_HOME:-$HARNESS_OUT/home}
claude=$(harness_client claude)
path=$(harness_login_path "$home")
# shellcheck disable=SC2206 # the flags are words
permissions=(${HARNESS_PERMISSIONS:---allowedTools Bash})
extra=()
[ -n "${HARNESS_MODEL:-}" ] && extra+=(--model "$HARNESS_MODEL")

timeout=${HARNESS_TIMEOUT:-120}
HARNESS_MODEL_LIFETIME=$((timeout + 60)) harness_model_start "$script" "$out" || exit 2
trap harness_model_stop EXIT

cd "$store" || exit 2
env -u ANTHROPIC_AUTH_TOKEN -u CLAUDE_CODE_OAUTH_TOKEN -u CLAUDE_CODE_USE_BEDROCK -u CLAUDE_CODE_USE_VERTEX \
  -u HARNESS_OUT -u HARNESS_HOME \
  HOME="$home" CLAUDE_CONFIG_DIR="$home/.claude" PATH="$path" \
  ANTHROPIC_BASE_URL="http://127.0.0.1:$HARNESS_MODEL_PORT" ANTHROPIC_API_KEY=sk-ant-e2e-dummy \
  NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
  DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_MAX_RETRIES=1 \
  timeout "$timeout" "$claude" -p "$prompt" "${permissions[@]}" --output-format text \
    --debug-file "$out/debug.log" "${extra[@]}" "$@" \
    > "$out/claude.out" 2> "$out/claude.err" < /dev/null
rc=$?
echo "$rc" > "$out/rc"
harness_model_stop
cat "$out/claude.out"
[ "$rc" -eq 0 ] || echo "run-claude.sh: claude exited $rc; see $out/claude.err" >&2
exit "$rc"
