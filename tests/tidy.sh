#!/usr/bin/env bash
# tidy.sh — the lint `make test` runs first: tools/layers.py check over the
# whole tree (every include written folder/file.h, no folder including
# from a folder above it in tools/layers.txt, no folder cycle, no private
# header of another folder, and no wall clock or unseeded randomness in a
# deterministic folder). Then it shows that the check can fail: in a
# scratch copy of the sources, an upward include and a wall-clock read are
# added, and the check must name both. Exits 1 on a finding.
set -u
cd "$(dirname "$0")/.."
python3 tools/layers.py check || exit 1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-tidy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r tools sim protocols faults reports "$tmp"/
printf '#include "sim/engine/run.h"\n' >> "$tmp/sim/kernel/rng.c"
printf 'static long wall(void) { return (long)time(NULL); }\n' >> "$tmp/faults/net.c"
out=$(python3 "$tmp/tools/layers.py" check)
rc=$?
fail() { echo "tidy: FAIL: $*"; echo "$out" | head -5; exit 1; }
[ "$rc" = 1 ] || fail "a tree with an upward include passed the check (exit $rc)"
grep -q '^sim/kernel/rng.c:[0-9]*: error: include "sim/engine/run.h": sim/engine is above sim/kernel' <<< "$out" ||
    fail "the upward include sim/kernel -> sim/engine was not reported"
grep -q "^faults/net.c:[0-9]*: error: 'time(' is banned in the deterministic folder faults" <<< "$out" ||
    fail "a wall-clock read in faults/ was not reported"
echo "tidy: the check fails on a planted upward include and a planted wall-clock read:"
grep -E '^(sim/kernel/rng|faults/net)\.c' <<< "$out" | sed 's/^/  /'
