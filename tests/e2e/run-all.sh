#!/usr/bin/env bash
# Runs every end-to-end script in tests/e2e, one after another, and prints
# one line for each —
#
#   judge     passed   4 passed, 0 failed, 0 skipped (6 s)
#   plan      FAILED   see target/e2e/plan.log        (then its last lines)
#   sandbox   SKIPPED  claude: not installed under ... (the script's reason)
#
# — then "e2e: N passed, N failed, N skipped", counting scripts. Exits 1
# when a script failed, 0 otherwise (also when every script was skipped).
#
#   tests/e2e/run-all.sh [claude|codex|all]      (passed on to each script)
#
# Environment:
#   E2E_LOGS            where each script's whole output goes, as NAME.log
#                       (default target/e2e in the repository)
#   E2E_WORK            where the cases' folders go (default a new
#                       ${TMPDIR:-/tmp}/steward-e2e.XXXXXX for this run); a
#                       folder made here is removed when nothing failed,
#                       unless E2E_KEEP=1
#   E2E_SCRIPT_TIMEOUT  seconds one script may take (default 900)
# and what the scripts read (lib.sh): STEWARD_BIN, HARNESS_PREFIX.
set -uo pipefail
e2e=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$e2e/../.." && pwd)
which=${1:-all}
case $which in
  claude|codex|all) ;;
  *) echo "usage: $0 [claude|codex|all]" >&2; exit 2 ;;
esac

logs=${E2E_LOGS:-$repo/target/e2e}
mkdir -p "$logs"
made_work=
if [ -z "${E2E_WORK:-}" ]; then
  E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/steward-e2e.XXXXXX")
  made_work=1
fi
export E2E_WORK

# The harness's own check first (it needs no client), then the others by name.
scripts=("$e2e/harness.sh")
for script in "$e2e"/*.sh; do
  case $(basename "$script") in lib.sh|run-all.sh|harness.sh) ;; *) scripts+=("$script") ;; esac
done

passed=0 failed=0 skipped=0
for script in "${scripts[@]}"; do
  name=$(basename "$script" .sh) log=$logs/$(basename "$script" .sh).log
  started=$SECONDS
  timeout "${E2E_SCRIPT_TIMEOUT:-900}" bash "$script" "$which" > "$log" 2>&1 < /dev/null
  status=$? took=$((SECONDS - started))
  counts=$(grep -E '^([a-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  counts=${counts#*: }
  case $status in
    0)
      passed=$((passed + 1))
      printf '%-9s passed   %s (%d s)\n' "$name" "${counts:-ok}" "$took" ;;
    77)
      skipped=$((skipped + 1))
      reason=$(grep '^SKIPPED: ' "$log" | tail -n 1)
      printf '%-9s SKIPPED  %s\n' "$name" "${reason#SKIPPED: }" ;;
    *)
      failed=$((failed + 1))
      [ "$status" -eq 124 ] && counts="timed out after ${E2E_SCRIPT_TIMEOUT:-900} s"
      printf '%-9s FAILED   %s, exit %d (%d s); see %s\n' "$name" "${counts:-no count}" "$status" "$took" "$log"
      tail -n 25 "$log" | sed 's/^/    | /' ;;
  esac
done

echo "e2e: $passed passed, $failed failed, $skipped skipped"
if [ "$failed" -gt 0 ]; then
  echo "The failed cases' folders are kept in $E2E_WORK; the scripts' output is in $logs."
  exit 1
fi
if [ -n "$made_work" ] && [ "${E2E_KEEP:-}" != 1 ]; then
  rm -rf "$E2E_WORK"
fi
exit 0
