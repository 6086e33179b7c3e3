#!/usr/bin/env bash
# monitor-lock.sh BIN PROTOCOL [LEASE] — what one lock sends to real Redis:
# starts as many redis-server processes as the lock has masters (free
# ports of 127.0.0.1, no persistence), records MONITOR on each, runs a
# short scenario on them (c1 locks and holds; c2 tries meanwhile, polls,
# and gets the lock after c1's unlock), and prints each server's command
# stream. The servers are stopped whatever happens. LOCKSIM_ARGS adds
# options (e.g. "--protocols scenarios/own-lock" for a lock of your own).
set -u
bin=${1:?usage: monitor-lock.sh BIN PROTOCOL [LEASE]}
proto=${2:?protocol}
lease=${3:-3s}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-monitor.XXXXXX")
mons=()
cleanup() { for p in "${mons[@]}"; do kill "$p" 2>/dev/null; done; redis_stop_all; rm -rf "$tmp"; }
trap cleanup EXIT
masters=$("$bin" ${LOCKSIM_ARGS:-} list | awk -v p="$proto" '$1 == p || $1 ~ "^"p"@" {print $0}' | grep -o '[0-9]* masters' | head -1 | cut -d' ' -f1)
masters=${masters:-1}
ports=()
for i in $(seq 1 "$masters"); do
    redis_start || exit 1
    ports+=("$REDIS_PORT")
    redis-cli -p "$REDIS_PORT" monitor > "$tmp/monitor-$i" &
    mons+=($!)
done
sleep 0.3
cat > "$tmp/one.scn" <<EOF
[scenario]
name     = monitor: one acquire, a contended try, the releases
duration = 2s
[redis]
nodes = $masters
[protocol]
name  = $proto
lease = $lease
wait  = 1s
[steps]
at = 0s     c1 lock
at = 100ms  c2 trylock
at = 350ms  c1 unlock
at = 600ms  c2 unlock
EOF
redis=$(printf '127.0.0.1:%s,' "${ports[@]}")
"$bin" ${LOCKSIM_ARGS:-} run "$tmp/one.scn" --backend redis --redis "${redis%,}" --allow-server-faults > "$tmp/run" 2>&1
sleep 0.3
for i in $(seq 1 "$masters"); do
    echo "== redis$((i - 1)) (MONITOR; timestamps and client addresses cut)"
    # The observer reads the store over a side connection (it sends TYPE):
    # its lines go, the clients' stay.
    side=$(grep -m1 -o '\[[0-9]* [0-9.:]*\] "TYPE"' "$tmp/monitor-$i" | grep -o '[0-9.]*:[0-9]*')
    grep -v '^OK$' "$tmp/monitor-$i" | { if [ -n "$side" ]; then grep -v -F "$side]"; else cat; fi; } |
        grep -v -E '"(PING|ping|INFO|info|CLIENT|client|COMMAND|command|REPLICAOF|replconf|REPLCONF|PSYNC|psync)"' |
        sed -E 's/^[0-9.]+ \[[0-9]+ lua\] /    [lua] /; s/^[0-9.]+ \[[0-9]+ [^]]*\] //; s/"(EVAL|eval)" "([^"]{0,40})[^"]*"/"\1" "\2..."/' |
        head -40
done
echo "== locksim"
tail -3 "$tmp/run"
