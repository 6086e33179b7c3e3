#!/usr/bin/env bash
# bench.sh BUILD — the benchmark `make bench` runs: starts a redis-server on
# a free port of 127.0.0.1 (stopped afterwards, whatever happens) and runs
# tests/bench.py, which prints every figure beside its reference and the
# ratio and writes bench/results.json.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=${1:-build}
cd "$here/.."
redis_start || exit 1
python3 "$here/bench.py" "$build" "$REDIS_PORT"
