#!/usr/bin/env bash
# The harness itself, without any client or steward: the scripted model
# (harness/model.py) answers the requests Claude Code and Codex send, in
# both APIs, streamed and not, and logs them as request_log.py reads them
# (harness/check_model.py). Needs only python3.
#
#   tests/e2e/harness.sh
set -uo pipefail
command -v python3 > /dev/null || { echo "SKIPPED: no python3"; exit 77; }
exec python3 "$(dirname "${BASH_SOURCE[0]}")/harness/check_model.py"
