#!/usr/bin/env bash
# scripts.sh BIN — a user's patch of a catalogue protocol's Lua scripts:
# `locksim scripts` writes them, and run unchanged they give the bundled
# lock's verdicts; an unlock without its owner check breaks mutual
# exclusion on the fake and on redis-server (EVALSHA of the patched text);
# a script that does not compile is FILE:LINE with exit 2; a file that
# names no script is refused; shrink writes the folder absolute.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/locksim}
case $bin in /*) ;; *) bin="$PWD/$bin" ;; esac
cd "$here/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-scripts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "scripts: FAIL: $*"; exit 1; }

verdicts() {   # verdicts ARGS...: "scenario invariant=verdict... met" per run
    "$bin" run "$@" --json |
        python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    print(d["scenario"], " ".join("%s=%s" % kv for kv in sorted(d["invariants"].items())), d["expectations_met"])'
}

# (a) The bundled scripts written out and run as a patch: the same verdicts.
"$bin" scripts redisson.lock "$tmp/same" > "$tmp/out" || fail "locksim scripts: $(cat "$tmp/out")"
[ "$(ls "$tmp/same" | wc -l)" = 4 ] || fail "locksim scripts wrote $(ls "$tmp/same")"
"$bin" list | grep -q "scripts: lock_acquire.lua lock_unlock.lua" || fail "list names no scripts"
set -- scenarios/contention/lock.scn scenarios/redisson/holder-pause.scn scenarios/redisson/lease-expiry.scn \
    scenarios/redisson/trylock-timeout.scn
verdicts "$@" --seeds 1..3 > "$tmp/bundled" || fail "the bundled lock"
verdicts "$@" --seeds 1..3 --scripts "$tmp/same" > "$tmp/patched" || fail "the unchanged patch"
cmp -s "$tmp/bundled" "$tmp/patched" || fail "an unchanged patch changed verdicts: $(diff "$tmp/bundled" "$tmp/patched")"
"$bin" run scenarios/contention/lock.scn --seed 1 --scripts "$tmp/same" --json | grep -q "\"protocol\":\"redisson.lock+scripts($tmp/same)\",\"scripts\":\"$tmp/same\"" ||
    fail "the JSON does not name the patch"
echo "ok   an unchanged patch (locksim scripts redisson.lock DIR): the bundled verdicts on $# scenarios x 3 seeds"

# (b) The unlock without its owner check: c2's unlock frees c1's lock.
cp -r "$tmp/same" "$tmp/broken"
python3 - "$tmp/broken/lock_unlock.lua" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
check = "if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then\n    return nil\nend\n"
assert check in s
open(p, "w").write(s.replace(check, "").replace("local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)", "local left = 0"))
EOF
cat > "$tmp/non-owner.scn" <<'EOF'
# c2 unlocks a lock it does not hold: Redisson refuses it; an unlock
# that skips the owner check frees c1's lock, and c3 takes it.
[scenario]
name     = unlock by a non-owner
duration = 1s

[protocol]
name    = redisson.lock
scripts = broken

[steps]
at = 0ms   c1 lock
at = 200ms c2 unlock
at = 400ms c3 lock
at = 600ms c1 unlock
at = 800ms c3 unlock

[expect]
mutual-exclusion = held
EOF
sed '/^scripts/d' "$tmp/non-owner.scn" > "$tmp/bundled.scn"
for backend in fake redis; do
    "$bin" run "$tmp/bundled.scn" --seed 1 --backend $backend > "$tmp/out" || fail "bundled on $backend: $(head -3 "$tmp/out")"
    "$bin" run "$tmp/non-owner.scn" --seed 1 --backend $backend > "$tmp/out"
    rc=$?
    [ $rc = 1 ] || fail "the broken unlock on $backend: exit $rc, want 1"
    grep -q "mutual-exclusion  violated" "$tmp/out" || fail "the broken unlock on $backend: $(head -4 "$tmp/out")"
    grep -q "redisson.lock+scripts(broken)" "$tmp/out" || fail "the summary does not name the patch"
done
echo "ok   an unlock without its owner check: mutual exclusion violated on the fake and on redis-server, held bundled"

# Shrink writes the scripts folder by its absolute path.
cp "$tmp/non-owner.scn" "$tmp/to-shrink.scn"
mkdir "$tmp/elsewhere"
"$bin" shrink "$tmp/to-shrink.scn" --seed 1 -o "$tmp/elsewhere/small.scn" > "$tmp/out" || fail "shrink: $(tail -3 "$tmp/out")"
grep -qx "scripts = $tmp/broken" "$tmp/elsewhere/small.scn" || fail "shrink wrote $(grep scripts "$tmp/elsewhere/small.scn")"
"$bin" run "$tmp/elsewhere/small.scn" --seed 1 > /dev/null
[ $? = 1 ] || fail "the shrunk scenario does not fail"
echo "ok   shrink: the written scenario names the folder absolute and fails the same way"

# (c) A syntax error: FILE:LINE, exit 2, no report.
printf -- '-- renew\nlocal x =\nreturn 1\n' > "$tmp/broken/lock_renew_batch.lua"
out=$("$bin" run "$tmp/non-owner.scn" --seed 1 2> "$tmp/err")
rc=$?
[ $rc = 2 ] && [ -z "$out" ] || fail "a syntax error: exit $rc, output $out"
grep -q "^$tmp/broken/lock_renew_batch.lua:3: the script does not compile" "$tmp/err" || fail "a syntax error: $(cat "$tmp/err")"
echo "ok   a script that does not compile: $(head -1 "$tmp/err" | sed "s|$tmp/||"), exit 2"
cp "$tmp/same/lock_renew_batch.lua" "$tmp/broken/"

# (d) A file that names no script of the protocol.
cp "$tmp/same/lock_unlock.lua" "$tmp/broken/lock_unlok.lua"
"$bin" run "$tmp/non-owner.scn" --seed 1 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc = 2 ] || fail "an unknown file: exit $rc"
grep -q "non-owner.scn:9: \[protocol\] scripts: .*lock_unlok.lua is no script of redisson.lock (did you mean lock_unlock.lua?)" "$tmp/err" ||
    fail "an unknown file: $(cat "$tmp/err")"
echo "ok   a file that names no script: $(head -1 "$tmp/err" | sed "s|$tmp/||g")"
