#!/usr/bin/env bash
# replay_shrink.sh BIN — `locksim replay` and `locksim shrink`:
#  1. replay prints the same bytes for the same seed (twice);
#  2. replay --around violation shows the violation of a known bug;
#  3. replay exits 1 when the run misses an expectation;
#  4. the scenario writer round-trips: every bundled scenario, written back
#     as text (replay --print-scenario) and run with seed 1, gives the same
#     trace hash as the file itself;
#  5. shrink of the nemesis scenario at its first seed that breaks mutual
#     exclusion: no more faults than the nemesis made, and the shrunk file
#     breaks mutual exclusion again, three runs out of three;
#  6. shrink keeps each unlock with the lock it releases: the resent
#     semaphore release keeps its lost reply and its lock/unlock pairs (it
#     used to shrink to a lone unlock, a release of a permit never taken).
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-shrink.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "replay/shrink: $*"; exit 1; }
json() { python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l); print(eval(sys.argv[1]))' "$1"; }

nem=scenarios/nemesis/watchdog-lock-under-nemesis.scn
bug=scenarios/known-bugs/pause-outlives-lease.scn

# 1. Determinism of the timeline.
"$bin" replay "$nem" --seed 7 > "$tmp/r1" || [ $? = 1 ] || fail "replay $nem exited with an error"
"$bin" replay "$nem" --seed 7 > "$tmp/r2" || true
cmp -s "$tmp/r1" "$tmp/r2" || fail "replay of $nem seed 7 printed different bytes twice"
echo "ok   replay is byte-identical for one seed ($(wc -l < "$tmp/r1") lines, $nem seed 7)"

# 2. The violation, in its window.
"$bin" replay "$bug" --seed 1 --around violation > "$tmp/around" || fail "replay --around violation: exit $?"
grep -q '^>> .*VIOLATION mutual-exclusion: ' "$tmp/around" || fail "no violation line around the violation of $bug"
grep -q '^!! ' "$tmp/around" && fail "the window should not reach the pause at 5s"
"$bin" replay "$bug" --seed 1 | grep -q '^!! .*fault .*pause client=c1' || fail "the pause fault is not marked !!"
echo "ok   --around violation: $(grep '^>>' "$tmp/around" | head -1 | cut -c1-100)"

# 3. Exit 1 when an expectation is missed.
sed 's/^mutual-exclusion = violated/mutual-exclusion = held/' "$bug" > "$tmp/held.scn"
"$bin" replay "$tmp/held.scn" --seed 1 > /dev/null
[ $? = 1 ] || fail "replay of a run that misses an expectation should exit 1"
echo "ok   replay exits 1 when an expectation is missed"

# 4. Round trip of the writer over every bundled scenario (with the lock
# policies and scripts some of them name beside them).
find scenarios -name '*.lock' -o -name '*.lua' | while read -r f; do
    mkdir -p "$tmp/rt/$(dirname "$f")" && cp "$f" "$tmp/rt/$f"
done
find scenarios -name '*.scn' | sort | while read -r f; do
    mkdir -p "$tmp/rt/$(dirname "$f")"
    "$bin" replay "$f" --print-scenario > "$tmp/rt/$f" || { echo "cannot write $f back"; exit 1; }
done || fail "the writer failed"
"$bin" run scenarios --seed 1 --json | json 'd["trace_hash"]' > "$tmp/h1"
(cd "$tmp/rt" && "$OLDPWD/$bin" run scenarios --seed 1 --json) | json 'd["trace_hash"]' > "$tmp/h2"
n=$(wc -l < "$tmp/h1")
[ "$n" -gt 0 ] && cmp -s "$tmp/h1" "$tmp/h2" ||
    fail "a scenario written back runs differently: $(diff "$tmp/h1" "$tmp/h2" | head -4)"
echo "ok   round trip: $n bundled scenarios written back, same trace hash with seed 1"

# 5. Shrink the first seed of 1..40 whose nemesis breaks mutual exclusion.
seed=$("$bin" run "$nem" --seeds 1..40 --json |
       json '"%d %s" % (d["seed"], d["invariants"]["mutual-exclusion"])' | awk '$2 == "violated" {print $1; exit}')
[ -n "$seed" ] || fail "no seed of 1..40 breaks mutual exclusion in $nem"
made=$("$bin" run "$nem" --seed "$seed" --json | json 'len(d["faults"])')
"$bin" shrink "$nem" --seed "$seed" -o "$tmp/shrunk.scn" > "$tmp/shrink.out" ||
    { cat "$tmp/shrink.out"; fail "shrink exited $?"; }
after=$(grep -c '^at = ' "$tmp/shrunk.scn" || true)
faults=$(sed -n '/^\[faults\]/,/^\[/p' "$tmp/shrunk.scn" | grep -c '^at = ' || true)
grep -q '^\[nemesis\]' "$tmp/shrunk.scn" && fail "the shrunk file still has a [nemesis]"
[ "$faults" -le "$made" ] || fail "the shrunk file has $faults faults, the nemesis made $made"
for i in 1 2 3; do
    v=$("$bin" run "$tmp/shrunk.scn" --json | json 'd["invariants"]["mutual-exclusion"]')
    [ "$v" = violated ] || fail "run $i of the shrunk file: mutual-exclusion $v"
done
grep -q '^seed = '"$seed"'$' "$tmp/shrunk.scn" || fail "the shrunk file does not set seed = $seed"
echo "ok   shrink of $nem seed $seed: faults $made (nemesis) -> $faults, $after timed lines in all;" \
     "mutual-exclusion violated 3 runs of 3"
sed -n 's/^  *\([abcde]\. \)/     \1/p; s/^after: /     after: /p' "$tmp/shrink.out"

# 6. Unlocks stay paired with their locks.
sem=scenarios/known-bugs/semaphore-release-resent-3.16.3.scn
"$bin" shrink "$sem" -o "$tmp/sem.scn" > "$tmp/sem.out" || { cat "$tmp/sem.out"; fail "shrink of $sem exited $?"; }
grep -q '^at = .* drop-reply ' "$tmp/sem.scn" || fail "the shrunk $sem lost its drop-reply: $(grep '^at' "$tmp/sem.scn")"
pairs=$(awk '/^at = / && ($5 == "lock" || $5 == "unlock") { d[$4] += $5 == "lock" ? 1 : -1; if (d[$4] < 0) bad = 1; n++ }
             END { print (bad ? "unpaired" : n) }' "$tmp/sem.scn")
case "$pairs" in ''|0|unpaired) fail "the shrunk $sem has an unlock before its lock: $(grep '^at' "$tmp/sem.scn" | tr '\n' ';')" ;; esac
echo "ok   shrink of $sem: the drop-reply and $pairs lock/unlock steps, each unlock after its lock"
# ... and a lock never loses its unlock: without it the lock would be held
# to the end, past its lease, and the pause that breaks RedLock would go.
rl=scenarios/known-bugs/redlock-pause-outlives-lease.scn
"$bin" shrink "$rl" -o "$tmp/rl.scn" > "$tmp/rl.out" || { cat "$tmp/rl.out"; fail "shrink of $rl exited $?"; }
left=$(awk '/^at = / && ($4 == "c1" || $4 == "c2") && ($5 == "lock" || $5 == "unlock") { printf "%s %s;", $4, $5 }
            /^at = / && $4 == "pause" && $5 == "client=c1" { printf "c1 pause;" }' "$tmp/rl.scn")
[ "$left" = "c1 lock;c1 unlock;c2 lock;c2 unlock;c1 pause;" ] ||
    fail "the shrunk $rl should keep the pause and both holds, each with its unlock: $left"
echo "ok   shrink of $rl: $left (no lock without its unlock)"

# A run that does not fail has nothing to shrink: exit 1, no file.
"$bin" shrink scenarios/smoke/contended.scn --seed 1 -o "$tmp/none.scn" > /dev/null
[ $? = 1 ] && [ ! -e "$tmp/none.scn" ] || fail "shrink of a passing run should exit 1 and write nothing"
echo "ok   shrink of a passing run exits 1 and writes nothing"
