#!/bin/sh
# Installs steward from a GitHub release:
#
#   curl -fsSL https://github.com/goal-steward/steward/releases/latest/download/install.sh | sh
#
# The release workflow (.github/workflows/release.yml) publishes this script
# beside the archives .ci/package makes and their sha256sums.txt. Run with
# --help for the options and the environment it reads; tests/cli/install.rs
# runs it against a local server.
#
# POSIX sh, not bash: `| sh` is dash on Debian and Ubuntu.
set -eu

repository=https://github.com/goal-steward/steward

synopsis() {
  cat <<EOF
usage: install.sh [--prefix DIR]
       curl -fsSL $repository/releases/latest/download/install.sh | sh -s -- [--prefix DIR]
EOF
}

usage() {
  echo "Installs steward, the binary with its man pages and shell completions."
  echo
  synopsis
  cat <<EOF

  --prefix DIR  install under DIR: DIR/bin/steward, DIR/share/man, and
                DIR/share for the completions (default: \$HOME/.local)
  -h, --help    print this and exit

environment:
  STEWARD_INSTALL_PREFIX  the prefix, when --prefix is not given
  STEWARD_VERSION         a release such as 0.1.0 (default: the latest)
  STEWARD_INSTALL_TARGET  the build to install, such as
                          x86_64-unknown-linux-musl (default: this machine's)
  STEWARD_INSTALL_URL     where the release's files are (a mirror), in place of
                          $repository/releases/...

Nothing is written under the prefix until the archive's SHA-256 matches
the release's sha256sums.txt.
EOF
}

say() { printf '%s\n' "$*"; }
fail() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

prefix=${STEWARD_INSTALL_PREFIX:-}
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help)
      usage
      exit 0
      ;;
    --prefix)
      if [ $# -lt 2 ] || [ -z "$2" ]; then
        echo "error: --prefix needs a directory" >&2
        synopsis >&2
        exit 2
      fi
      prefix=$2
      shift 2
      ;;
    --prefix=?*)
      prefix=${1#--prefix=}
      shift
      ;;
    *)
      echo "error: unknown option: $1 (--help says what there is)" >&2
      synopsis >&2
      exit 2
      ;;
  esac
done
if [ -z "$prefix" ]; then
  [ -n "${HOME:-}" ] || fail "HOME is not set: give --prefix DIR"
  prefix=$HOME/.local
fi
# Absolute, so that what it says to add to PATH works from anywhere.
case $prefix in
  /*) ;;
  *) prefix=$(pwd)/$prefix ;;
esac
prefix=${prefix%/}

# This machine's build: static musl binaries on Linux, so any distribution.
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  # A shell under Rosetta sees x86_64 on an Apple silicon Mac: the native
  # build is the one to have there.
  if [ "$os" = Darwin ] && [ "$arch" = x86_64 ] &&
    [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch=arm64
  fi
  case $os/$arch in
    Linux/x86_64 | Linux/amd64) echo x86_64-unknown-linux-musl ;;
    Linux/aarch64 | Linux/arm64) echo aarch64-unknown-linux-musl ;;
    Darwin/x86_64) echo x86_64-apple-darwin ;;
    Darwin/arm64 | Darwin/aarch64) echo aarch64-apple-darwin ;;
    *) echo "" ;;
  esac
}

target=${STEWARD_INSTALL_TARGET:-}
if [ -z "$target" ]; then
  target=$(detect_target)
fi
machine="$(uname -s) $(uname -m)"

if [ -n "${STEWARD_INSTALL_URL:-}" ]; then
  base=${STEWARD_INSTALL_URL%/}
elif [ -n "${STEWARD_VERSION:-}" ]; then
  base=$repository/releases/download/v${STEWARD_VERSION#v}
else
  base=$repository/releases/latest/download
fi

if command -v curl >/dev/null 2>&1; then
  downloader=curl
elif command -v wget >/dev/null 2>&1; then
  downloader=wget
else
  fail "neither curl nor wget is installed: install one of them, or download $base by hand"
fi

# download URL FILE
download() {
  if [ $downloader = curl ]; then
    curl -fsSL --retry 2 -o "$2" "$1" || fail "could not download $1"
  else
    wget -q -O "$2" "$1" || fail "could not download $1"
  fi
}

# The SHA-256 of a file in hex: sha256sum on Linux, shasum on macOS.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else
    fail "no sha256sum, shasum or openssl to check the download with"
  fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t steward-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The release's list of archives first: it says whether there is a build
# for this machine before anything large is downloaded.
download "$base/sha256sums.txt" "$tmp/sha256sums.txt"
# sha256sum writes `HEX  NAME`, or `HEX *NAME` in binary mode.
available=$(awk '{ name = $2; sub(/^\*/, "", name) }
  name ~ /^steward-.+\.tar\.gz$/ {
    sub(/^steward-/, "", name); sub(/\.tar\.gz$/, "", name)
    list = list (list == "" ? "" : ", ") name
  }
  END { print list }' "$tmp/sha256sums.txt")
[ -n "$available" ] || fail "$base/sha256sums.txt lists no archives: is $base a steward release?"

if [ -z "$target" ]; then
  fail "no steward build for this machine ($machine); the release has: $available. Set STEWARD_INSTALL_TARGET to one of them, or build from source: cargo install --locked goal-steward"
fi
archive=steward-$target.tar.gz
expected=$(awk -v name="$archive" '{ file = $2; sub(/^\*/, "", file) } file == name { print $1; exit }' \
  "$tmp/sha256sums.txt")
if [ -z "$expected" ]; then
  fail "the release at $base has no build for $target; it has: $available"
fi

say "downloading $base/$archive"
download "$base/$archive" "$tmp/$archive"
actual=$(sha256_of "$tmp/$archive")
expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f')
if [ "$actual" != "$expected" ]; then
  fail "$archive does not match sha256sums.txt: expected SHA-256 $expected, got $actual; nothing was installed"
fi

mkdir "$tmp/unpacked"
(cd "$tmp/unpacked" && gzip -dc "../$archive" | tar -xf -) || fail "could not unpack $archive"
from=$tmp/unpacked/steward-$target
[ -f "$from/steward" ] || fail "$archive holds no steward-$target/steward"

# Copied beside its destination and renamed over it, so that a steward
# running now (cron, an agent's hook) keeps its file and the next start
# gets the new one whole.
# place SOURCE DIRECTORY NAME MODE
place() {
  mkdir -p "$2"
  cp "$1" "$2/.$3.new.$$"
  chmod "$4" "$2/.$3.new.$$"
  mv -f "$2/.$3.new.$$" "$2/$3"
}

place "$from/steward" "$prefix/bin" steward 755
report="  bin/steward"

for section in 1 5 7; do
  count=0
  for page in "$from"/man/*."$section"; do
    [ -f "$page" ] || continue
    place "$page" "$prefix/share/man/man$section" "${page##*/}" 644
    count=$((count + 1))
  done
  if [ $count -eq 1 ]; then
    report="$report
  share/man/man$section/: 1 page"
  elif [ $count -gt 1 ]; then
    report="$report
  share/man/man$section/: $count pages"
  fi
done

# Each shell looks for its completions under a name of its own; files
# completions/ may hold for other shells are left out.
zsh_installed=no
for file in "$from"/completions/*; do
  [ -f "$file" ] || continue
  case ${file##*/} in
    steward.bash) shell=bash dir=share/bash-completion/completions name=steward ;;
    _steward) shell=zsh dir=share/zsh/site-functions name=_steward zsh_installed=yes ;;
    steward.fish) shell=fish dir=share/fish/vendor_completions.d name=steward.fish ;;
    *) continue ;;
  esac
  place "$file" "$prefix/$dir" "$name" 644
  report="$report
  $shell completion: $dir/$name"
done

version=$("$prefix/bin/steward" --version 2>/dev/null || true)
say "installed ${version:-steward} ($target) under $prefix:"
say "$report"

# Said to zsh users alone, and not for the prefixes whose site-functions
# zsh's own fpath holds already.
case ${SHELL:-} in
  */zsh) ;;
  *) zsh_installed=no ;;
esac
case $prefix in
  /usr | /usr/local | /opt/homebrew) zsh_installed=no ;;
esac
if [ $zsh_installed = yes ]; then
  say ""
  say "zsh finds the completion once $prefix/share/zsh/site-functions is on its fpath: if it is not, add this line to ~/.zshrc, before compinit:"
  say "  fpath=(\"$prefix/share/zsh/site-functions\" \$fpath)"
fi

case :${PATH:-}: in
  *:"$prefix/bin":* | *:"$prefix/bin/":*)
    # Another steward earlier on PATH (cargo install's, say) would still be
    # the one that runs.
    found=$(command -v steward 2>/dev/null || true)
    if [ -n "$found" ] && [ "$found" != "$prefix/bin/steward" ]; then
      say ""
      say "note: $found comes before $prefix/bin on your PATH and runs in its place: remove it, or move $prefix/bin ahead of it."
    fi
    ;;
  *)
    # Written with $HOME where it is the home, so the line reads as a
    # person would write it.
    case $prefix in
      "${HOME:-/nonexistent}"/*) shown="\$HOME/${prefix#"$HOME"/}/bin" ;;
      *) shown="$prefix/bin" ;;
    esac
    say ""
    say "$prefix/bin is not on your PATH. To put it there:"
    case ${SHELL:-} in
      */zsh)
        say "  add this line to ~/.zshrc:"
        say "    export PATH=\"$shown:\$PATH\""
        ;;
      */bash)
        say "  add this line to ~/.bashrc (and to ~/.profile for login shells):"
        say "    export PATH=\"$shown:\$PATH\""
        ;;
      */fish)
        say "  run this once in fish:"
        say "    fish_add_path \"$prefix/bin\""
        ;;
      *)
        say "  add this line to ~/.profile:"
        say "    export PATH=\"$shown:\$PATH\""
        ;;
    esac
    say "  then open a new terminal, or run that line in this one."
    ;;
esac
