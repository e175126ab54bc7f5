# shellcheck shell=bash
# Sourced by the harness's runners (run-claude.sh, run-codex.sh) and by
# tests/e2e/lib.sh: where the clients are, the private network namespace,
# and starting and stopping the scripted model (model.py).
#
# Environment:
#   HARNESS_PREFIX  where install.sh put the clients
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness)
#   HARNESS_NETNS   auto (default): run in a private network namespace when
#                   `unshare` can make one; 1: insist on one; 0: never
#   HARNESS_PYTHON  the Python that runs model.py (default python3)

harness=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
harness_prefix=${HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness}

# harness_client claude|codex: prints the client's executable under the
# prefix, or fails when it is not installed there.
harness_client() {
  [ -x "$harness_prefix/bin/$1" ] && echo "$harness_prefix/bin/$1"
}

# harness_isolate [--root-only] COMMAND...: replaces this process with
# COMMAND in a private network namespace that holds only loopback, so the
# client reaches the scripted model on 127.0.0.1 and nothing else. As root
# that is `unshare -n`; otherwise `unshare -rn` (a user namespace too, where
# the user looks like root), unless --root-only. Returns, and runs nothing,
# when already isolated or when no namespace can be made (HARNESS_NETNS=1
# makes that an error).
harness_isolate() {
  local flags=-n ip
  if [ "$1" = --root-only ]; then
    shift
    [ "$(id -u)" = 0 ] || flags=
  elif [ "$(id -u)" != 0 ]; then
    flags=-rn
  fi
  [ "${HARNESS_ISOLATED:-}" = 1 ] && return 0
  [ "${HARNESS_NETNS:-auto}" = 0 ] && return 0
  ip=$(PATH=$PATH:/usr/sbin:/sbin command -v ip)
  if [ -n "$flags" ] && [ -n "$ip" ] && unshare "$flags" true 2>/dev/null; then
    export HARNESS_ISOLATED=1
    exec unshare "$flags" bash -c '"$0" link set lo up && exec "$@"' "$ip" "$@"
  fi
  if [ "${HARNESS_NETNS:-auto}" = 1 ]; then
    echo "harness: HARNESS_NETNS=1, but no private network namespace can be made here" >&2
    exit 2
  fi
  echo "harness: no private network namespace here (unshare); the client can reach the network" >&2
}

# harness_enter CLIENT STORE SCRIPT PROMPT [ARGS...]: a runner's start.
# Checks its arguments, makes HARNESS_OUT, and runs the calling runner
# again in a private network namespace (harness_isolate); where none can
# be made, goes on in this process.
harness_enter() {
  local client=$1 runner
  runner=$(basename "$0")
  shift
  if [ "${_HARNESS_RUN:-}" != 1 ]; then
    [ $# -ge 3 ] || { sed -n '4p' "$0" >&2; exit 2; }
    [ -d "$1" ] || { echo "$runner: no such store: $1" >&2; exit 2; }
    [ -f "$2" ] || { echo "$runner: no such script: $2" >&2; exit 2; }
    harness_client "$client" > /dev/null ||
      { echo "$runner: $client is not installed under $harness_prefix (run $harness/install.sh $client)" >&2; exit 2; }
    HARNESS_OUT=${HARNESS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/harness-$client.XXXXXX")}
    mkdir -p "$HARNESS_OUT" && HARNESS_OUT=$(cd "$HARNESS_OUT" && pwd)
    echo "harness: out=$HARNESS_OUT" >&2
    export HARNESS_OUT _HARNESS_RUN=1
    harness_isolate "$BASH" "$0" "$@"
  fi
  unset _HARNESS_RUN
}

# harness_login_path HOME: prints PATH with STEWARD_BIN's folder first, and
# writes it to HOME/.profile: the clients' shells are login shells, which
# reset PATH from /etc/profile.
harness_login_path() {
  local path=$PATH
  [ -n "${STEWARD_BIN:-}" ] && path=$(dirname "$(readlink -f "$STEWARD_BIN")"):$path
  mkdir -p "$1"
  printf 'export PATH=%q\n' "$path" > "$1/.profile"
  echo "$path"
}

# harness_model_start SCRIPT DIR: starts model.py with SCRIPT on a free port
# of 127.0.0.1, logging to DIR/requests.jsonl (its own output in
# DIR/model.out); sets HARNESS_MODEL_PID and HARNESS_MODEL_PORT. It stops by
# itself after HARNESS_MODEL_LIFETIME seconds (default 600) if no one stops it.
harness_model_start() {
  local script=$1 dir=$2
  rm -f "$dir/port"
  "${HARNESS_PYTHON:-python3}" "$harness/model.py" --script "$script" --log "$dir/requests.jsonl" \
    --port-file "$dir/port" --lifetime "${HARNESS_MODEL_LIFETIME:-600}" > "$dir/model.out" 2>&1 &
  HARNESS_MODEL_PID=$!
  for _ in $(seq 100); do
    [ -s "$dir/port" ] && break
    kill -0 "$HARNESS_MODEL_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ ! -s "$dir/port" ]; then
    echo "harness: the scripted model did not start:" >&2
    cat "$dir/model.out" >&2
    harness_model_stop
    return 1
  fi
  # shellcheck disable=SC2034 # for the caller
  HARNESS_MODEL_PORT=$(cat "$dir/port")
}

harness_model_stop() {
  if [ -n "${HARNESS_MODEL_PID:-}" ]; then
    kill "$HARNESS_MODEL_PID" 2>/dev/null
    wait "$HARNESS_MODEL_PID" 2>/dev/null
    HARNESS_MODEL_PID=
  fi
}

# harness_codex_provider PORT: the lines of a Codex config.toml that send it
# to the scripted model (a custom provider, key from MOCK_LLM_API_KEY), with
# every start-up call that would leave the machine turned off.
harness_codex_provider() {
  cat <<TOML
model = "${HARNESS_MODEL:-e2e-model}"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
# the curated-plugin sync would fetch from github.com at start
plugins = false

[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$1/v1"
wire_api = "responses"
env_key = "MOCK_LLM_API_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000
TOML
}
