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
before=$(pgrep -c -x redis-server || true)
fail=0
for scn in scenarios/real/*.scn; do
    first=""
    for backend in redis fake; do
        out=$("$bin" run "$scn" --backend "$backend" 2>&1)
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
after=$(pgrep -c -x redis-server || true)
if [ "$after" -gt "$before" ]; then
    echo "FAIL: $((after - before)) redis-server process(es) left behind"
    fail=1
fi
exit $fail
