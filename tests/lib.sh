#!/usr/bin/env bash
# lib.sh — shared helpers for the test scripts: start a private redis-server
# on a free port of 127.0.0.1 (no persistence, in a temporary directory) and
# stop it whatever happens. Source it, then call redis_start.

REDIS_PIDS=()
REDIS_DIRS=()

# redis_start: starts one server; sets REDIS_PORT. Fails after 20 tries.
redis_start() {
    command -v redis-server >/dev/null 2>&1 || {
        echo "tests: redis-server is not installed (run 'make deps')" >&2
        return 1
    }
    local dir port pid try
    dir=$(mktemp -d "${TMPDIR:-/tmp}/locksim-redis.XXXXXX") || return 1
    REDIS_DIRS+=("$dir")
    for try in $(seq 1 20); do
        port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            --dir "$dir" --daemonize no --logfile "$dir/redis-$port.log" &
        pid=$!
        for _ in $(seq 1 100); do
            if ! kill -0 "$pid" 2>/dev/null; then break; fi   # died: port taken?
            if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then
                REDIS_PIDS+=("$pid")
                REDIS_PORT=$port
                return 0
            fi
            sleep 0.05
        done
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    echo "tests: could not start redis-server (see $dir)" >&2
    return 1
}

# redis_stop_all: stops every server started here and removes their dirs.
redis_stop_all() {
    local pid dir
    for pid in "${REDIS_PIDS[@]}"; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    REDIS_PIDS=()
    for dir in "${REDIS_DIRS[@]}"; do rm -rf "$dir"; done
    REDIS_DIRS=()
}

trap redis_stop_all EXIT
trap 'redis_stop_all; exit 130' INT TERM
