#!/usr/bin/env bash
# nemesis_replay.sh BIN — a seed whose nemesis breaks mutual exclusion
# replays to the same violation: the first such seed of 1..40 is run twice;
# both runs must give one trace hash and one violation, the JSON must list
# the generated faults, and each of them must be in the trace.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
scn=scenarios/nemesis/watchdog-lock-under-nemesis.scn
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-nem.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(eval(sys.argv[1]))' "$1"; }
seed=""
for s in $(seq 1 40); do
    "$bin" run "$scn" --seed "$s" --json > "$tmp/1.json"
    if [ "$(field 'd["invariants"]["mutual-exclusion"]' < "$tmp/1.json")" = violated ]; then seed=$s; break; fi
done
[ -n "$seed" ] || { echo "nemesis: no seed of 1..40 broke mutual exclusion"; exit 1; }
"$bin" run "$scn" --seed "$seed" --json --trace "$tmp/trace" > "$tmp/2.json"
h1=$(field 'd["trace_hash"]' < "$tmp/1.json"); h2=$(field 'd["trace_hash"]' < "$tmp/2.json")
v1=$(field '[(v["invariant"], v["at_ms"], v["detail"]) for v in d["violations"]]' < "$tmp/1.json")
v2=$(field '[(v["invariant"], v["at_ms"], v["detail"]) for v in d["violations"]]' < "$tmp/2.json")
[ "$h1" = "$h2" ] || { echo "nemesis: seed $seed replayed with another trace hash ($h1, $h2)"; exit 1; }
[ "$v1" = "$v2" ] || { echo "nemesis: seed $seed replayed to another violation"; exit 1; }
n=$(field 'len(d["faults"])' < "$tmp/2.json")
[ "$n" -gt 0 ] || { echo "nemesis: seed $seed: the JSON lists no generated faults"; exit 1; }
field '"\n".join(d["faults"])' < "$tmp/2.json" | sed 's/^at = [^ ]* //' | while read -r f; do
    grep -qF -- "$f (nemesis)" "$tmp/trace" || { echo "nemesis: fault \"$f\" is not in the trace"; exit 1; }
done || exit 1
echo "nemesis: seed $seed breaks mutual exclusion and replays to it (trace $h1, $n generated faults in JSON and trace)"
echo "  $(field 'd["violations"][0]["detail"]' < "$tmp/2.json")"
