#!/usr/bin/env bash
# templates.sh BIN — `locksim new`: it lists the templates, writes each one
# (never over an existing file; an unknown name gets a did-you-mean), and
# every template runs as written: gc-pause fails on some seeds of 1..20
# and holds on others, failover, clock-jump and lost-unlock-reply fail on
# seed 1 as their comments say, fair-contended holds on seeds 1..5; and the
# first "Try:" of the failing ones (the fixed version, the smaller jump)
# holds.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-new.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "templates: $*"; exit 1; }
n=$("$bin" new | grep -c '^  ')
[ "$n" -ge 5 ] || fail "locksim new lists $n templates"
for t in gc-pause failover clock-jump lost-unlock-reply fair-contended; do
    "$bin" new $t "$tmp/$t.scn" > /dev/null || fail "locksim new $t failed"
    cmp -s "$tmp/$t.scn" scenarios/templates/$t.scn || fail "locksim new $t wrote something else than the template"
done
"$bin" new gc-pause "$tmp/gc-pause.scn" 2> "$tmp/err" && fail "locksim new wrote over an existing file"
"$bin" new gc-paus "$tmp/x.scn" 2> "$tmp/err"; [ $? = 2 ] && grep -q "did you mean gc-pause" "$tmp/err" ||
    fail "an unknown template: $(cat "$tmp/err")"
echo "ok   locksim new: $n templates listed, each written as bundled, no overwrite, did-you-mean"
out=$("$bin" run "$tmp/gc-pause.scn" --seeds 1..20 | tail -1)
echo "$out" | grep -q "20 runs: [1-9][0-9]* met every expectation, [1-9][0-9]* did not" || fail "gc-pause seeds 1..20: $out"
echo "ok   gc-pause: $out"
for t in failover clock-jump lost-unlock-reply; do
    "$bin" run "$tmp/$t.scn" > "$tmp/out"; [ $? = 1 ] || fail "$t does not fail on seed 1"
done
"$bin" run "$tmp/fair-contended.scn" --seeds 1..5 > /dev/null || fail "fair-contended does not hold on seeds 1..5"
sed 's/redisson.lock@2019/redisson.lock@3.24/' "$tmp/lost-unlock-reply.scn" > "$tmp/t1.scn"
sed 's/^name  = redisson.lock@2019/name   = redisson.lock\nsynced = yes/' "$tmp/failover.scn" > "$tmp/t2.scn"
sed 's/jump=+40s/jump=+5s/' "$tmp/clock-jump.scn" > "$tmp/t3.scn"
for f in t1 t2 t3; do "$bin" run "$tmp/$f.scn" > /dev/null || fail "a Try: of the templates does not hold ($f)"; done
echo "ok   failover, clock-jump, lost-unlock-reply fail as written; their Try: (3.24, synced, +5s) hold; fair-contended holds"

# A violation explained in Redisson's terms (-v, JSON, the report).
seed=$("$bin" run "$tmp/gc-pause.scn" --seeds 1..20 --json | python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    if d["violations"]: print(d["seed"]); break')
hint=$("$bin" run "$tmp/gc-pause.scn" --seed "$seed" --json | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(d["violations"][0].get("hint",""))')
echo "$hint" | grep -q "lease = 10s (leaseTime) was shorter than the holder's pause" || fail "gc-pause seed $seed: hint \"$hint\""
"$bin" run "$tmp/gc-pause.scn" --seed "$seed" -v | grep -q "^    hint: lease = 10s" || fail "no hint in -v"
hint=$("$bin" run "$tmp/failover.scn" --json | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(d["violations"][0].get("hint",""))')
echo "$hint" | grep -q "synced = yes" || fail "failover: hint \"$hint\""
echo "ok   hints in Redisson's terms: gc-pause seed $seed: \"$(echo "$hint" | cut -c1-60)...\", failover: synced"
