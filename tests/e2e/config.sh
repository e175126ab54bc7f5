#!/usr/bin/env bash
# A loosened steward.yaml under the REAL Claude Code and Codex CLIs (against
# the harness's scripted model, tests/e2e/harness). A person's store says
# `judge.unchecked: person` in steward.yaml, accepted on this machine
# (`steward config accept`), and holds a goal of one criterion with no check.
# The agent, with an unsandboxed shell (no --sandbox), rewrites steward.yaml
# to `judge.unchecked: agent`, tries `steward config accept` (refused: a
# person's), then `steward complete deploy-api --met 1` — as itself: the
# client marks it an agent, no --actor.
#
# The loosened setting must stay held at what the person accepted, so the
# complete is refused (exit 4, saying judge.unchecked is person) and the
# goal waits in verifying for a person's complete; and the person sees why:
# `steward config` warns that the files loosen judge.unchecked and shows it
# as person, accepted; `doctor` says so; `show` and `status` say the goal
# waits for the person's complete, with the command to run.
#
#   tests/e2e/config.sh [claude|codex|all]
#
# Needs the clients from `tests/e2e/harness/install.sh` and a steward built
# with the `testing` feature (see lib.sh); what is missing is SKIPPED.
set -uo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

new_store() { # DIR HOME: judge.unchecked: person, accepted; one goal of one criterion, no check
  mkdir -p "$1" && (
    cd "$1" && HOME=$2 "$steward" init -q &&
      printf 'judge:\n  unchecked: person\n' >> steward.yaml &&
      HOME=$2 "$steward" config accept -q &&
      HOME=$2 "$steward" add deploy-api --title "Deploy the API" --criterion "API responds on /health" -q 2>/dev/null
  )
}

check() { # DIR CLIENT
  python3 - "$@" "$steward" "$harness" <<'PY'
import json, os, re, subprocess, sys
d, client, steward, harness = sys.argv[1:]
sys.path.insert(0, harness)
import request_log
store, log = f"{d}/store", f"{d}/out/requests.jsonl"
env = dict(os.environ, HOME=f"{d}/person")
def run(*args):
    return subprocess.run([steward, "-C", store, *args], capture_output=True, text=True, env=env)
problems = []
held = ("the configuration files loosen what a person accepted on this machine (judge.unchecked): "
        "not in effect until a person runs `steward config accept`")

# The agent did loosen the file: else this proves nothing.
with open(f"{store}/steward.yaml", encoding="utf-8") as f:
    yaml = f.read()
if not re.search(r"^  unchecked: agent$", yaml, re.M) or "unchecked: person" in yaml:
    problems.append("the agent's edit of steward.yaml is not there:\n" + yaml[-300:])

# The goal is not completed: its file, and what steward reads of it.
try:
    with open(f"{store}/state/goals/deploy-api.md", encoding="utf-8") as f:
        front = f.read().split("\n---", 1)[0]
    if not re.search(r"^status: verifying$", front, re.M):
        problems.append("the goal file's status is not verifying:\n" + front)
except FileNotFoundError:
    problems.append("the goal file left state/goals (closed)")
goal = json.loads(run("show", "deploy-api", "--json").stdout)["goal"]
if goal["status"] != "verifying":
    problems.append(f"the goal is {goal['status']}, not verifying")
if (goal.get("waiting") or {}).get("for_person") != "judgment":
    problems.append(f"the goal does not wait for a person's judgment: {goal.get('waiting')}")

# The refusals reached the model, with exit 4.
results = request_log.results_text(log)
unseen = [said for said in ("only a person may accept the configuration",
                            "criteria 1 of `deploy-api` rest on the agent's word and judge.unchecked is person",
                            "the goal waits in verifying")
          if said not in results]
if results.count("exit=4") != 2:
    unseen.append("exit=4 twice (config accept, complete)")
if unseen:
    problems.append(f"the model never saw {unseen}; what the tools answered:\n" + results[-2000:])

# The agent's complete was the agent's, told by its client, not by a flag.
events = [json.loads(l) for l in run("audit").stdout.splitlines()]
waited = [e for e in events if e["action"] == "awaiting a person"]
if not waited or waited[0]["actor"] != "agent" or waited[0].get("actor_rule", "--actor agent") == "--actor agent":
    problems.append(f"the complete was not the agent's, told by its client: {waited}")
if any(e["action"] in ("completed", "config_accepted") for e in events if e["actor"] == "agent"):
    problems.append("the agent completed the goal or accepted the configuration")

# What the person sees.
config = run("config")
if held not in config.stderr:
    problems.append("config does not warn about judge.unchecked:\n" + config.stderr)
if not re.search(r"^judge\.unchecked = person +# accepted \(steward config accept\)$", config.stdout, re.M):
    problems.append("config does not show judge.unchecked = person, accepted:\n" + config.stdout)
doctor = run("doctor")
if doctor.returncode != 1 or held not in doctor.stdout + doctor.stderr:
    problems.append(f"doctor (exit {doctor.returncode}) does not say the change is held:\n"
                    + doctor.stdout + doctor.stderr)
show = run("show", "deploy-api").stdout
if "Waiting: for a person's complete: criteria 1 rest on the agent's word" not in show:
    problems.append("show does not say why:\n" + show)
status = run("status").stdout
if not re.search(r"deploy-api: waiting for a person's complete: criteria 1 rest on the agent's word\n"
                 r" +run: steward complete deploy-api", status):
    problems.append("status does not say why, with the person's command:\n" + status)
for p in problems:
    print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
}

run_case() { # CLIENT
  local client=$1 dir rc
  dir=$(e2e_dir "config-$client-loosen")
  # The person's home (steward's key) is not the agent's, but holds the same
  # key: one user, one key (see judge.sh).
  new_store "$dir/store" "$dir/person"
  export HARNESS_OUT=$dir/out HARNESS_HOME=$dir/home
  mkdir -p "$dir/home/.codex" "$dir/home/.config" && cp -r "$dir/person/.config/steward" "$dir/home/.config/"
  case $client in
    claude)
      HARNESS_PERMISSIONS="--allowedTools Bash" "$harness/run-claude.sh" "$dir/store" \
        "$repo/tests/e2e/config-shell.json" "Finish the goal" > "$dir/reply" 2> "$dir/stderr" ;;
    codex)
      "$harness/run-codex.sh" "$dir/store" "$repo/tests/e2e/config-shell.json" "Finish the goal" \
        > "$dir/reply" 2> "$dir/stderr" ;;
  esac
  rc=$?
  unset HARNESS_OUT HARNESS_HOME
  if [ "$rc" -ne 0 ]; then
    echo "  FAIL: $client exited $rc (see $dir/stderr)"; e2e_fail "$client loosen ($dir)"
  elif check "$dir" "$client"; then
    e2e_pass "$client loosen ($dir)"
  else
    e2e_fail "$client loosen ($dir)"
  fi
}

run_client() { # CLIENT
  run_case "$1"
}

e2e_main "${1:-all}"
