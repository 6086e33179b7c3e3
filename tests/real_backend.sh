#!/usr/bin/env bash
# real_backend.sh BIN — the real-Redis backend: every scenario of
# scenarios/real runs on redis-server processes that locksim starts and
# stops itself, and on the fake; both must meet the file's expectations
# and give the same verdict for every invariant; no server may be left
# behind.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "real backend: redis-server is not installed (make deps)"; exit 1; }
# Every run gets a private TMPDIR: the servers it starts work in it, so
# the ones left behind (if any) are found by their working directory,
# whatever else runs on the machine. A killed server whose parent is gone
# may linger as a zombie until PID 1 reaps it: it does not count.
servers_in() {
    local n=0 p st
    for p in $(pgrep -x redis-server); do
        st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
        [ "$st" = Z ] && continue
        case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$1"/*) n=$((n + 1)) ;; esac
    done
    echo "$n"
}
runs_tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-real.XXXXXX")
fail=0
# Both backends over every scenario at once: the real runs are mostly
# waiting (wall time), so four run side by side, each on servers of its
# own; then scenario by scenario, each must meet its expectations on both
# with the same verdict for every invariant.
verdicts() { # BACKEND: "scenario met inv=verdict ..." per scenario
    TMPDIR=$runs_tmp "$bin" run scenarios/real --backend "$1" --jobs 4 --json 2> "$runs_tmp/$1.err" |
        python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    print(d["scenario"], d["expectations_met"], " ".join("%s=%s" % kv for kv in sorted(d["invariants"].items()) if kv[0] != "dead-holder"))' |
        sort
}
verdicts redis > "$runs_tmp/redis.v"
verdicts fake > "$runs_tmp/fake.v"
n=$(ls scenarios/real/*.scn | wc -l)
for backend in redis fake; do
    got=$(wc -l < "$runs_tmp/$backend.v")
    [ "$got" = "$n" ] || { echo "FAIL scenarios/real on $backend: $got of $n runs ($(head -3 "$runs_tmp/$backend.err"))"; fail=1; }
    grep ' False ' "$runs_tmp/$backend.v" | sed "s/^/FAIL on $backend: /" | grep . && fail=1
done
while read -r scn met inv; do
    other=$(grep "^$scn " "$runs_tmp/fake.v" | cut -d' ' -f3-)
    if [ "$other" != "$inv" ]; then
        echo "FAIL $scn: the fake says $other, redis-server said $inv"
        fail=1
    else
        printf 'ok   %-48s redis, fake %s\n' "$scn" "$inv"
    fi
done < "$runs_tmp/redis.v"
# Servers the user runs (--redis): the run uses them and starts none.
here=$(pwd)/tests
. "$here/lib.sh"
if redis_start; then
    out=$("$bin" run scenarios/real/contended.scn --backend redis --redis "127.0.0.1:$REDIS_PORT" 2>&1)
    code=$?
    keys=$(redis-cli -p "$REDIS_PORT" dbsize 2>/dev/null)
    if [ "$code" != 0 ]; then
        echo "FAIL scenarios/real/contended.scn on --redis 127.0.0.1:$REDIS_PORT (exit $code)"; echo "$out" | head; fail=1
    else
        echo "ok   --redis 127.0.0.1:$REDIS_PORT (a server run outside locksim): contended run met, $keys key(s) left there"
    fi
    redis_stop_all
fi

# Ctrl-C in the middle of a run: every server locksim started goes too.
# The run gets a private TMPDIR; its servers are the live redis-server
# processes working in it.
priv=$(mktemp -d "${TMPDIR:-/tmp}/locksim-int.XXXXXX")
TMPDIR=$priv "$bin" run scenarios/real/contended.scn --backend redis >/dev/null 2>&1 &
pid=$!
sleep 1.5
mid=$(servers_in "$priv")
kill -INT "$pid"
wait "$pid" 2>/dev/null
sleep 0.3
left=$(servers_in "$priv")
rm -rf "$priv"
if [ "$mid" -lt 1 ] || [ "$left" != 0 ]; then
    echo "FAIL: interrupted run: $mid server(s) during the run, $left left after SIGINT"
    fail=1
else
    echo "ok   interrupted run (SIGINT): its $mid server(s) stopped with it"
fi
left=$(servers_in "$runs_tmp")
if [ "$left" != 0 ]; then
    echo "FAIL: $left redis-server process(es) left behind by the runs"
    fail=1
fi
rm -rf "$runs_tmp"
exit $fail
