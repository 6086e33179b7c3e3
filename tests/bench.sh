#!/usr/bin/env bash
# bench.sh BUILD — the benchmark: script evaluation on the fake vs a
# redis-server started here (pipelined and one at a time), side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=${1:-build}
redis_start || exit 1
echo "machine: $(nproc) cores, $(uname -m), redis-server $(redis-server --version | awk '{print $3}')"
"$build/bench_evals" 127.0.0.1 "$REDIS_PORT" "${BENCH_PAIRS:-200000}"
# The explorer: executions per second on a fixed bounded model.
echo "locksim check, checks/two-clients.scn (depth 14, branch 2, 16384 executions)"
"$build/locksim" check checks/two-clients.scn --depth 14 | sed -n 2p
