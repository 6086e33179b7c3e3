#!/usr/bin/env bash
# robustness.sh BIN — the tool under abuse: Ctrl-C (SIGINT to the whole
# process group, as a terminal sends it) in the middle of a sweep with
# workers, report and JUnit file, of a single-process sweep, and of a
# contention sweep: exit 130, what finished is written (whole files),
# no temporary file and no process left behind; a missing redis-server is
# named; a run that would never end is refused.
set -u
bin=$(realpath "${1:-build/locksim}")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-robust.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "robustness: FAIL: $*"; exit 1; }

# interrupt SECONDS CMD...: runs CMD as the leader of a new process group,
# sends the group SIGINT after SECONDS; sets rc and checks that nothing
# of the group is left.
interrupt() {
    local after=$1; shift
    setsid "$@" > "$tmp/out" 2> "$tmp/err" &
    local pid=$!
    sleep "$after"
    kill -INT -- -"$pid" 2>/dev/null
    wait "$pid"; rc=$?
    sleep 0.3
    local left
    left=$(ps -o pid= -g "$pid" 2>/dev/null | wc -l)
    [ "$left" = 0 ] || { ps -o pid,cmd -g "$pid"; fail "$left process(es) of the interrupted group left"; }
}

# 1. Workers, a report and a JUnit file.
interrupt 2 "$bin" run scenarios/nemesis scenarios/redisson --seeds 1..40 --jobs 2 --report "$tmp/rep" --junit "$tmp/j.xml"
[ "$rc" = 130 ] || { cat "$tmp/err"; fail "an interrupted sweep exited $rc, not 130"; }
grep -q "interrupted: [0-9]* of [0-9]* runs finished" "$tmp/err" || fail "no word of the interruption: $(cat "$tmp/err")"
done=$(grep -c '^  events' "$tmp/out")
[ "$done" -gt 0 ] || fail "nothing finished in 2 s?"
grep -q "^$done runs: " "$tmp/out" || fail "the summary does not count the $done runs that finished"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert int(r.get("tests")) == int(sys.argv[2]), r.get("tests")' \
    "$tmp/j.xml" "$done" || fail "the JUnit file is not whole or does not hold the $done runs"
grep -q "INTERRUPTED" "$tmp/rep/index.html" || fail "the report does not say it was interrupted"
[ "$(grep -c '<tr><td class="n">' "$tmp/rep/index.html")" = "$done" ] || fail "the report's table does not hold the $done runs"
ls -d "$tmp"/*.tmp-* "$tmp"/*.old-* 2>/dev/null | grep -q . && fail "temporary files left: $(ls -d "$tmp"/*.tmp-*)"
echo "ok   Ctrl-C with --jobs 2 --report --junit: exit 130, $done finished runs in the summary, JUnit and report; no file or process left"

# 2. One process (no workers): the run in progress is dropped, the others kept.
interrupt 1 "$bin" run scenarios/redisson scenarios/nemesis --seeds 1..40 --json
[ "$rc" = 130 ] || fail "an interrupted --jobs 1 sweep exited $rc"
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" || fail "a half-written JSON line"
echo "ok   Ctrl-C with --jobs 1 --json: exit 130, $(wc -l < "$tmp/out") whole JSON lines"

# 3. locksim sweep.
interrupt 1 "$bin" sweep scenarios/contention/lock.scn --clients 1,2,4,8,16,32,64,128 --seeds 1..5 --jobs 2 --report "$tmp/sw"
[ "$rc" = 130 ] || fail "an interrupted locksim sweep exited $rc"
grep -q "interrupted" "$tmp/err" || fail "locksim sweep says nothing of the interruption"
[ -s "$tmp/sw/index.html" ] || fail "the interrupted sweep wrote no report"
ls -d "$tmp"/*.tmp-* 2>/dev/null | grep -q . && fail "temporary files left by locksim sweep"
echo "ok   Ctrl-C in locksim sweep --jobs 2 --report: exit 130, the points of what finished, the report written"

# 4. No redis-server on the PATH: named, nothing left.
mkdir -p "$tmp/path"
TMPDIR=$tmp env PATH="$tmp/path" "$bin" run scenarios/real/contended.scn --backend redis > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "redis-server is not installed" "$tmp/err" || fail "missing redis-server: exit $rc, $(cat "$tmp/err")"
ls -d "$tmp"/locksim-redis.* 2>/dev/null | grep -q . && fail "a temporary folder left by the failed start"
echo "ok   no redis-server: exit 2, \"$(sed 's/^[^:]*: //' "$tmp/err" | cut -c1-60)...\""

# 5. A scenario that would never end is refused.
printf '[scenario]\nname = for ever\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n' > "$tmp/forever.scn"
"$bin" run "$tmp/forever.scn" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "duration is required (a run must end)" "$tmp/err" || fail "a scenario without end: exit $rc"
echo "ok   a scenario without a duration is refused: $(cat "$tmp/err")"
echo "robustness: all passed"
