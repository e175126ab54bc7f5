#!/usr/bin/env bash
# Installs the real agent clients the end-to-end tests drive, from the npm
# registry, into a prefix of their own (nothing global is touched):
#
#   tests/e2e/harness/install.sh [claude|codex|all]     (default all)
#
# PREFIX is $HARNESS_PREFIX, default ${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness;
# the clients land in PREFIX/bin/claude and PREFIX/bin/codex, where the
# tests look. Versions, pinned to the ones the tests were last verified
# with; set either to another version, or to `latest`:
#
#   CLAUDE_CODE_VERSION  @anthropic-ai/claude-code   (default 2.1.332)
#   CODEX_VERSION        @openai/codex               (default 0.171.0)
#
# Needs node and npm (Debian: apt-get install nodejs npm). Both packages ship
# their native binary as a per-platform optional dependency on the registry,
# so nothing is fetched from anywhere else. Claude Code asks for node >= 22;
# on an older node npm warns (EBADENGINE) and it runs all the same, as the
# client is the native binary. A client already at the asked version is left
# as it is.
set -euo pipefail

what=${1:-all}
prefix=${HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/steward-harness}
claude_version=${CLAUDE_CODE_VERSION:-2.1.332}
codex_version=${CODEX_VERSION:-0.171.0}

case $what in
  claude|codex|all) ;;
  *) echo "usage: $0 [claude|codex|all]" >&2; exit 2 ;;
esac
if ! command -v npm >/dev/null; then
  echo "install.sh: npm is needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

# installed BIN VERSION: whether PREFIX/bin/BIN already says VERSION.
installed() {
  [ "$2" != latest ] && [ -x "$prefix/bin/$1" ] &&
    "$prefix/bin/$1" --version 2>/dev/null | grep -qF "$2"
}

npm_install() { # PACKAGE@VERSION
  npm install --global --prefix "$prefix" --no-audit --no-fund --loglevel=error "$1" >&2
}

install_claude() {
  if ! installed claude "$claude_version"; then
    npm_install "@anthropic-ai/claude-code@$claude_version"
    if ! "$prefix/bin/claude" --version >/dev/null 2>&1; then
      # Its postinstall puts the platform's binary over a stub; with install
      # scripts turned off (npm's ignore-scripts) that did not happen.
      echo "install.sh: claude is still the stub; running its install.cjs" >&2
      (cd "$prefix/lib/node_modules/@anthropic-ai/claude-code" && node install.cjs) >&2
    fi
  fi
  echo "claude: $("$prefix/bin/claude" --version) at $prefix/bin/claude"
}

install_codex() {
  installed codex "$codex_version" || npm_install "@openai/codex@$codex_version"
  echo "codex: $("$prefix/bin/codex" --version) at $prefix/bin/codex"
}

case $what in
  claude) install_claude ;;
  codex) install_codex ;;
  all) install_claude; install_codex ;;
esac
