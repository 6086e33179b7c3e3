#!/usr/bin/env bash
# runaway.sh BIN — a lock policy whose acquire script never ends:
#  1. `run` stops at its first eval with one line naming the script, its
#     policy file and line, exit 2, well within 10 s of wall time;
#  2. with [redis] runaway = busy the run goes on, the node holding every
#     other client for busy-reply-threshold (5 s), then answering BUSY
#     (Redis 7.0's text) to everyone;
#  3. SIGTERM, sent while a long script runs, stops the run within 1 s
#     (the script's instruction hook looks at the stop signal).
set -u
bin=${1:-build/locksim}
bin=$(readlink -f "$bin")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-runaway.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "runaway: FAIL: $*"; exit 1; }
ms() { echo $(($(date +%s%N) / 1000000)); }

cd "$tmp"
policy() { # policy NAME BODY: NAME.lock whose acquire script is BODY
    cat > "$1.lock" <<EOF
[lock]
name    = $1
summary = an acquire script that runs too long
key     = lock:{lock}
owner   = {random:40}
lease   = 10s

[acquire]
script   = $1-acquire.lua
keys     = {key}
args     = {owner} {lease_ms}
acquired = 1
held     = 0

[wait]
mode     = poll
interval = 50ms

[release]
command   = DEL {key}
released  = 1
not-owner = 0
EOF
    printf '%s\n' "$2" > "$1-acquire.lua"
    printf '[scenario]\nduration = 5s\n%s\n[protocol]\nname = %s.lock\n[clients]\ncount = 2\n' "${3:-}" "$1" > "$1.scn"
}

# 1. The error.
policy spin 'while true do end'
t0=$(ms)
"$bin" run spin.scn > out.txt 2> err.txt; rc=$?
took=$(($(ms) - t0))
[ $rc = 2 ] || fail "a script that never ends: exit $rc, want 2 ($(cat err.txt))"
[ "$(wc -l < err.txt)" = 1 ] || fail "not one line: $(cat err.txt)"
grep -q "^$tmp/spin.lock:9: the script spin-acquire.lua of spin did not end" err.txt ||
    fail "the line does not name the policy's file, line and script: $(cat err.txt)"
grep -q 'SCRIPT KILL stops it (it had not written)' err.txt || fail "no word of SCRIPT KILL: $(cat err.txt)"
[ ! -s out.txt ] || fail "a result was written for a run refused as bad input: $(cat out.txt)"
[ "$took" -lt 10000 ] || fail "the error took $took ms (want < 10 s)"
echo "ok   a script that never ends: exit 2 in $took ms: $(cut -c1-110 err.txt)..."

# 2. Keep going: BUSY to everyone.
policy busy 'while true do end' $'[redis]\nrunaway = busy'
sed -i 's/^duration = 5s$/duration = 12s/' busy.scn
"$bin" run busy.scn > out.txt 2> err.txt; rc=$?
[ $rc = 0 ] || fail "[redis] runaway = busy: exit $rc ($(cat err.txt))"
"$bin" replay busy.scn > replay.txt
n=$(grep -c '"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."' replay.txt)
[ "$n" -gt 10 ] || fail "[redis] runaway = busy: $n BUSY replies"
# The node holds every other client for busy-reply-threshold (5 s) after
# the script began, then answers BUSY.
first=$(grep -m1 '"BUSY Redis is busy' replay.txt | awk '{print $1}' | tr -d s)
python3 -c "import sys; sys.exit(0 if float('$first') >= 5.0 else 1)" ||
    fail "[redis] runaway = busy: the first BUSY at ${first}s, before busy-reply-threshold (5 s)"
echo "ok   [redis] runaway = busy: the node serves nobody for 5 s (busy-reply-threshold), then $n BUSY replies (the first at ${first}s)"

# 3. SIGTERM inside a long script (each eval runs for seconds of wall time).
policy loop "for i = 1, 1000000000 do redis.call('incr', KEYS[1] .. ':n') end return 1"
for jobs in 1 2; do
    "$bin" run loop.scn --seeds 1..3 --jobs $jobs > out.txt 2> err.txt &
    pid=$!
    sleep 0.5
    t0=$(ms)
    kill -TERM $pid
    wait $pid; rc=$?
    took=$(($(ms) - t0))
    [ $rc = 143 ] || fail "SIGTERM (--jobs $jobs): exit $rc ($(cat err.txt))"
    [ "$took" -lt 1000 ] || fail "SIGTERM (--jobs $jobs) inside a script took $took ms (want < 1 s)"
    grep -q 'interrupted' err.txt || fail "SIGTERM (--jobs $jobs): not said: $(cat err.txt)"
    echo "ok   SIGTERM inside a script that runs for seconds (--jobs $jobs): stopped in $took ms, exit 143"
done
