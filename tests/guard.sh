#!/usr/bin/env bash
# guard.sh BIN — a single long run under control:
#  1. SIGTERM and SIGINT inside one run stop it within a second: exit 143 /
#     130, what ran is judged and printed (STOPPED, the virtual time reached,
#     the seed, a replay command; "halted" in JSON), no process left;
#  2. the event and memory budgets end a run with a message naming the
#     budget, the virtual time reached and how to raise it (exit 1);
#  3. a scenario that cannot fit the memory budget is refused before it
#     runs (exit 2, why); a budget flag with a bad value is refused;
#  4. the progress line (virtual time, events/s, memory) is drawn on a
#     terminal only.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-guard.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "guard: $*"; exit 1; }
# Thousands of processes on one lock: every unlock wakes them all, so the
# run takes half a minute.
printf '[scenario]\nname = big\nduration = 1s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 3000\nthink = 10s\n' > "$tmp/big.scn"

# 1. Signals inside one run.
for sig in TERM INT; do
    "$bin" run "$tmp/big.scn" --json > "$tmp/out" 2> "$tmp/err" &
    pid=$!
    sleep 1.5
    t0=$(date +%s%N)
    kill -s $sig $pid
    wait $pid
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    want=$([ $sig = TERM ] && echo 143 || echo 130)
    [ "$rc" = "$want" ] || fail "SIG$sig inside a run: exit $rc, want $want"
    [ "$ms" -lt 2000 ] || fail "SIG$sig inside a run: it took ${ms} ms to stop"
    halted=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline()).get("halted",""))' "$tmp/out") ||
        fail "SIG$sig: no JSON result for the run that was stopped"
    echo "$halted" | grep -q "interrupted by signal .* at virtual .* (seed 1).*replay: locksim replay .* --seed 1 --horizon" ||
        fail "SIG$sig: the result does not say where it stopped and how to replay: $halted"
    kill -0 $pid 2>/dev/null && fail "SIG$sig: the process is still there"
    echo "ok   SIG$sig inside one run: exit $rc after ${ms} ms, $(echo "$halted" | cut -c1-90)..."
done
"$bin" run "$tmp/big.scn" > "$tmp/out" 2>&1 &
pid=$!
sleep 1
kill $pid
wait $pid
grep -q '\[STOPPED\]' "$tmp/out" || fail "the summary of a stopped run does not say STOPPED"
echo "ok   the summary of a stopped run: $(grep -m1 STOPPED "$tmp/out")"

# 2. Budgets.
"$bin" run "$tmp/big.scn" --max-events 200k > "$tmp/out"
rc=$?
[ $rc = 1 ] || fail "an event budget hit: exit $rc, want 1"
grep -q "stopped: the event budget of 200000 events ran out at virtual .* raise it with --max-events" "$tmp/out" ||
    fail "the event budget's message: $(grep stopped "$tmp/out")"
echo "ok   event budget: $(grep -o 'the event budget.*(seed 1)' "$tmp/out")"
# The bench's contended lock for ten virtual minutes: its history grows
# with every operation (big.scn's 3,000 waiters stay near their start).
sed 's/^duration .*/duration = 10m/' scenarios/bench/contended-watchdog.scn > "$tmp/grow.scn"
"$bin" run "$tmp/grow.scn" --max-memory 30M > "$tmp/out"
rc=$?
[ $rc = 1 ] || fail "a memory budget hit: exit $rc, want 1"
grep -q "stopped: the memory budget of 30 MB ran out (.* resident) at virtual .* raise it with --max-memory" "$tmp/out" ||
    fail "the memory budget's message: $(grep stopped "$tmp/out")"
echo "ok   memory budget: $(grep -o 'the memory budget.*(seed 1)' "$tmp/out")"

# 3. Refused before it runs.
printf '[scenario]\nduration = 1000h\n[protocol]\nname = redisson.lock\n[clients]\ncount = 100000\nthreads = 1000\n' > "$tmp/huge.scn"
"$bin" run "$tmp/huge.scn" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] || fail "a scenario that cannot fit: exit $rc, want 2"
grep -q "need about .* before the first event .* more than the memory budget" "$tmp/err" || fail "no reason: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "a refused scenario wrote a result"
echo "ok   refused before it runs: $(cut -c1-120 "$tmp/err")..."
"$bin" run "$tmp/big.scn" --max-memory lots > /dev/null 2> "$tmp/err" && fail "--max-memory lots was taken"
grep -q "wants a size" "$tmp/err" || fail "--max-memory lots: $(cat "$tmp/err")"
echo "ok   a bad budget is refused: $(cat "$tmp/err")"

# 4. Progress on a terminal only.
if command -v script > /dev/null; then
    script -qc "$bin run $tmp/big.scn --max-events 2M" /dev/null > "$tmp/tty" 2>&1
    tr '\r' '\n' < "$tmp/tty" | grep -q "run: virtual .* of 1s (.*%) · .* events, .*k/s · .* MB" ||
        fail "no progress line on a terminal"
    "$bin" run "$tmp/big.scn" --max-events 2M > /dev/null 2> "$tmp/err"
    [ -s "$tmp/err" ] && fail "progress drawn into a file: $(head -c 200 "$tmp/err")"
    echo "ok   progress: drawn on a terminal ($(tr '\r' '\n' < "$tmp/tty" | grep -m1 'run: virtual' | sed 's/ *$//')), not into a file"
fi
