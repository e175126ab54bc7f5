# Sourced by the end-to-end scripts (after setting `repo`): the steward
# they drive — STEWARD_BIN, default target/debug/steward — which must be a
# build with the cargo feature `testing`, since the scripts move its clock
# (STEWARD_NOW) and give each case its own home, and so its own machine key.
steward=$(readlink -f "${STEWARD_BIN:-$repo/target/debug/steward}")
if [ ! -x "$steward" ]; then
  echo "skip: no steward at $steward (cargo build --features testing first)"
  exit 0
fi
_probe=$(mktemp -d)
if ! (cd "$_probe" && export HOME=$_probe && "$steward" init -q &&
  STEWARD_NOW=2001-01-02T00:00:00Z "$steward" digest --json) 2>/dev/null | grep -q '"since":"2001-01-01'; then
  rm -rf "$_probe"
  echo "FAILED: $steward ignores STEWARD_NOW: build it with \`cargo build --features testing\`"
  exit 1
fi
rm -rf "$_probe"
