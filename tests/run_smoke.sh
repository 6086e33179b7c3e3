#!/usr/bin/env bash
# run_smoke.sh BIN — what `make run` shows on a fresh machine: the fake node
# checked against a redis-server started here, for a short sequence.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=${1:-build/locksim}
redis_start || exit 1
"$bin" conform --redis "127.0.0.1:$REDIS_PORT" --ops 5000 --seed 1
