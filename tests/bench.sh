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
# The simulator: virtual seconds per wall second, events/s, seeds/s and
# peak memory for the bench scenarios, and the contended one against
# real redis-server in real time (acquisitions per wall second).
echo "simulator speed (fake backend; one process per scenario, seed 1)"
for scn in bench/scenarios/*.scn; do
    "$build/locksim" run "$scn" --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
w = d["wall_ms"] / 1000
print("  %-40s %7.1f virtual s / wall s  %10.0f events/s  %6.2f seeds/s  %6.1f MB peak  %s" % (
    d["name"][7:], d["virtual_ms"] / d["wall_ms"], d["events"] / w, 1 / w, d["peak_rss_kb"] / 1024,
    "met" if d["expectations_met"] else "NOT MET"))'
done
echo "the contended lock, 10 s: fake vs redis-server (the same clients, real time)"
fake=$("$build/locksim" run bench/contended-real.scn --json)
real=$("$build/locksim" run bench/contended-real.scn --backend redis --json)
python3 -c '
import json, sys
f, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
fa, ra = f["acquisitions"] / (f["wall_ms"] / 1000), r["acquisitions"] / (r["wall_ms"] / 1000)
print("  fake:         %8.0f acquisitions per wall s  (%.0f virtual s / wall s)" % (fa, f["virtual_ms"] / f["wall_ms"]))
print("  redis-server: %8.0f acquisitions per wall s  (real time)   fake/real %6.1fx" % (ra, fa / ra))' "$fake" "$real"
