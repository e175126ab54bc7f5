#!/usr/bin/env bash
# The operating system's part of the threat model, with the REAL clients
# (against the harness's scripted model, tests/e2e/harness): an agent
# whose tools are sandboxed as steward sets them up tries to write its
# goal file and steward.yaml from its own shell and to read the machine
# key, then records progress the way it may —
#
#   claude  twice: in a session of the person's after `steward hook
#           install claude-code --sandbox` (permission rules and Claude
#           Code's sandbox: needs bubblewrap and socat), then as a run
#           steward dispatches with `dispatch.sandbox: required`; the agent
#           runs `steward … assess` in its shell (excluded from the
#           sandbox).
#   codex   a dispatched run with `dispatch.sandbox: required` (a permission
#           profile, steward's MCP server); the agent assesses over MCP.
#
# The writes must fail, the goal file and steward.yaml stay as they were,
# no change made outside steward is found, and the assessment lands.
#
# Then, for each client, a dispatched run whose agent chains a command
# before `steward` (`mkdir -p docs && steward … assess`), which the sandbox
# keeps in: steward's error tells it what to run instead, the instruction
# names the MCP tools, and its assessment lands through them.
#
#   tests/e2e/sandbox.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_isolate "$@"

check() { # DIR STORE LOG: what the sandbox let through
  python3 - "$@" "$steward" "$harness" <<'PY'
import json, os, subprocess, sys
d, store, log, steward, harness = sys.argv[1:]
sys.path.insert(0, harness)
import request_log
env = dict(os.environ, HOME=f"{d}/home")
def run(*args):
    return subprocess.run([steward, "-C", store, *args], capture_output=True, text=True, env=env)
goal_file = open(f"{store}/state/goals/deploy-api.md").read()
config = open(f"{store}/steward.yaml").read()
goal = json.loads(run("show", "deploy-api", "--json").stdout)["goal"]
events = [json.loads(l) for l in run("audit").stdout.splitlines()]
results = request_log.results_text(log)
# The key is in the account's home (a build with the `testing` feature
# takes $HOME instead).
import pwd
keys = [f"{home}/.config/steward/machine-key" for home in (f"{d}/home", pwd.getpwuid(os.getuid()).pw_dir)]
key = open(next(k for k in keys if os.path.exists(k))).read().strip()
problems = []
if "status: completed" in goal_file.split("## History")[-1] or goal_file.rstrip().endswith("status: completed"):
    problems.append("the agent's shell wrote the goal file")
if "sandbox-escaped" in config:
    problems.append("the agent's shell wrote steward.yaml")
if "write=0" in results or "config=0" in results:
    problems.append("a write into the store's state reported success:\n" + results[-1500:])
if key in results:
    problems.append("the machine key reached the model")
if any(e["action"] == "edited_outside" for e in events):
    problems.append("a change made outside steward was found: the sandbox let it through")
if not goal["criteria"][0]["met"]:
    problems.append("the assessment did not land:\n" + results[-1500:])
for p in problems:
    print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

claude_case() {
  local dir=$1
  export HARNESS_OUT=$dir/out HARNESS_HOME=$dir/home
  mkdir -p "$dir/home/.codex" "$dir/store"
  (
    cd "$dir/store" && export HOME=$dir/home &&
      "$steward" init -q &&
      "$steward" add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
        --criterion "Runbook written" -q 2>/dev/null &&
      "$steward" hook install claude-code --sandbox -q
  )
  "$harness/run-claude.sh" "$dir/store" "$repo/tests/e2e/sandbox-claude.json" "Work on the goal" \
    > "$dir/reply" 2> "$dir/stderr"
  local rc=$?
  unset HARNESS_OUT HARNESS_HOME
  [ "$rc" -eq 0 ] || { echo "  FAIL: claude exited $rc (see $dir/stderr)"; return 1; }
  check "$dir" "$dir/store" "$dir/out/requests.jsonl"
}

dispatch_setup() { # AGENT: one goal, dispatch on in the sandbox, one tick
  steward init -q
  steward add deploy-api --title "Deploy the API" --criterion "API responds on /health" \
    --criterion "Runbook written" -q 2>/dev/null
  printf 'dispatch:\n  enabled: true\n  agent: %s\n  timeout: 2m\n  sandbox: required\n' "$1" >> steward.yaml
  steward config accept -q
  steward tick -q
}

chained_check() { # DIR: the chained command was refused with what to do, and the MCP call landed
  python3 - "$1" "$steward" "$harness" <<'PY'
import json, os, subprocess, sys
d, steward, harness = sys.argv[1:]
sys.path.insert(0, harness)
import request_log
env = dict(os.environ, HOME=f"{d}/home")
goal = json.loads(subprocess.run([steward, "-C", f"{d}/store", "show", "deploy-api", "--json"],
                                 capture_output=True, text=True, env=env).stdout)["goal"]
log = f"{d}/requests.jsonl"
results = request_log.results_text(log)
problems = []
if "run the steward command alone" not in results:
    problems.append("the agent was not told what to run instead:\n" + results[-1500:])
if not request_log.seen(log, "steward MCP tools"):
    problems.append("the instruction did not name the MCP tools")
if not goal["criteria"][0]["met"]:
    problems.append("the assessment did not land:\n" + results[-1500:])
for p in problems:
    print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

run_chained() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "sandbox-chained-$agent")
  e2e_case "$agent" "$repo/tests/e2e/chained-$agent.json" "$dir" dispatch_setup
  if chained_check "$dir"; then e2e_pass "$agent sandbox, a chained steward command ($dir)"; else
    e2e_fail "$agent sandbox, a chained steward command ($dir)"; fi
}

run_client() { # AGENT
  local agent=$1 dir
  dir=$(e2e_dir "sandbox-$agent")
  case $agent in
    claude)
      if ! command -v bwrap >/dev/null || ! command -v socat >/dev/null; then
        e2e_skip "claude sandbox" "Claude Code's sandbox needs bubblewrap and socat (apt-get install bubblewrap socat)"
        return
      fi
      if claude_case "$dir/session"; then e2e_pass "claude sandbox, hooks installed ($dir/session)"; else
        e2e_fail "claude sandbox, hooks installed ($dir/session)"; fi
      e2e_case claude "$repo/tests/e2e/sandbox-claude.json" "$dir/dispatched" dispatch_setup
      if check "$dir/dispatched" "$dir/dispatched/store" "$dir/dispatched/requests.jsonl"; then
        e2e_pass "claude sandbox, dispatched ($dir/dispatched)"; else
        e2e_fail "claude sandbox, dispatched ($dir/dispatched)"; fi
      run_chained claude ;;
    codex)
      e2e_case codex "$repo/tests/e2e/sandbox-codex.json" "$dir" dispatch_setup
      if check "$dir" "$dir/store" "$dir/requests.jsonl"; then e2e_pass "codex sandbox ($dir)"; else
        e2e_fail "codex sandbox ($dir)"; fi
      run_chained codex ;;
  esac
}

e2e_main "${1:-all}"
