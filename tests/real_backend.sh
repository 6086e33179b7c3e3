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
for scn in scenarios/real/*.scn; do
    first=""
    for backend in redis fake; do
        out=$(TMPDIR=$runs_tmp "$bin" run "$scn" --backend "$backend" 2>&1)
        code=$?
        verdicts=$(echo "$out" | awk '/^  (mutual-exclusion|reentrancy|liveness|deadlock|fencing|fifo|starvation|rw-exclusion|permits|latch) /{printf "%s=%s ", $1, $2}')
        if [ "$code" != 0 ]; then
            echo "FAIL $scn on $backend (exit $code):"
            echo "$out" | sed 's/^/    /' | head -20
            fail=1
        elif [ -n "$first" ] && [ "$verdicts" != "$first" ]; then
            echo "FAIL $scn: the fake says $verdicts, redis-server said $first"
            fail=1
        else
            printf 'ok   %-48s %-6s %s\n' "$scn" "$backend" "$verdicts"
        fi
        [ -z "$first" ] && first=$verdicts
    done
done
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
