#!/usr/bin/env bash
# sweeps.sh BIN [SEEDS] — sweeps at scale: `--jobs 2` prints what `--jobs 1`
# prints (wall times aside), in summary and JSON form; shards 1/3, 2/3, 3/3
# together run every (scenario, seed) of the sweep exactly once; shards run
# by GNU parallel and put together by `locksim merge` count what the whole
# sweep counts; a shard taken from the environment (LOCKSIM_SHARD,
# JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID) is the one --shard names;
# --stop-on-failure stops at the same pair whatever --jobs is.
set -u
bin=${1:-build/locksim}
seeds=${2:-1..10}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-sweeps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sweep=(scenarios/smoke scenarios/redisson)
small=(scenarios/smoke --seeds 1..3)
fail() { echo "sweeps: FAIL: $*"; exit 1; }
# What a run prints less its wall-clock figures, the one thing --jobs may change.
# Measurements of the machine, not of the run: wall time and peak memory.
nowall() { sed -E 's/"wall_ms":[0-9.]+,//; s/"peak_rss_kb":[0-9]+,//; s/  wall [0-9]+ms  /  /' "$@"; }
# The (scenario, seed) pairs of JSON lines, one per line, sorted.
pairs() { python3 -c 'import json,sys; [print(d["scenario"], d["seed"]) for d in map(json.loads, sys.stdin)]' | sort; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
runs_of() { grep -cv '^$' "$1"; }

# 1. --jobs 2 = --jobs 1, JSON lines and summary.
t=$(date +%s%N)
"$bin" run "${sweep[@]}" --seeds "$seeds" --json > "$tmp/j1.json" || fail "--jobs 1 sweep exited $?"
t1=$(ms "$t"); t=$(date +%s%N)
"$bin" run "${sweep[@]}" --seeds "$seeds" --json --jobs 2 > "$tmp/j2.json" || fail "--jobs 2 sweep exited $?"
t2=$(ms "$t")
cmp -s <(nowall "$tmp/j1.json") <(nowall "$tmp/j2.json") ||
    { diff <(nowall "$tmp/j1.json") <(nowall "$tmp/j2.json") | head -5; fail "--jobs 2 JSON differs from --jobs 1"; }
echo "ok   --jobs 2 JSON = --jobs 1 JSON: $(runs_of "$tmp/j1.json") runs of ${sweep[*]} --seeds $seeds" \
     "(--jobs 1 ${t1}ms, --jobs 2 ${t2}ms)"
"$bin" run "${small[@]}" > "$tmp/s1.txt"; c1=$?
"$bin" run "${small[@]}" --jobs 2 > "$tmp/s2.txt"; c2=$?
"$bin" run "${small[@]}" --jobs 5 > "$tmp/s5.txt"; c5=$?
[ "$c1$c2$c5" = 000 ] || fail "summary sweeps exited $c1, $c2, $c5"
cmp -s <(nowall "$tmp/s1.txt") <(nowall "$tmp/s2.txt") || fail "--jobs 2 summary differs from --jobs 1"
cmp -s <(nowall "$tmp/s1.txt") <(nowall "$tmp/s5.txt") || fail "--jobs 5 summary differs from --jobs 1"
echo "ok   --jobs 2 and 5 summary = --jobs 1 summary: $(tail -1 "$tmp/s1.txt")"

# 2. Shards 1/3, 2/3, 3/3 cover the sweep once, run by GNU parallel.
command -v parallel >/dev/null 2>&1 || fail "GNU parallel is not installed (make deps)"
parallel --will-cite -j 2 "$bin" run "${sweep[*]}" --seeds "$seeds" --json --shard {}/3 \
    '>' "$tmp/shard-{}.json" ::: 1 2 3
rc=$?
[ "$rc" = 0 ] || fail "parallel: $rc shard(s) failed"
cat "$tmp"/shard-*.json | pairs > "$tmp/union"
pairs < "$tmp/j1.json" > "$tmp/whole"
[ -z "$(uniq -d "$tmp/union")" ] || fail "a (scenario, seed) is in two shards: $(uniq -d "$tmp/union" | head -1)"
cmp -s "$tmp/union" "$tmp/whole" || fail "shards 1/3..3/3 do not cover the sweep ($(wc -l < "$tmp/union") vs $(wc -l < "$tmp/whole") pairs)"
echo "ok   shards 1/3 2/3 3/3 under GNU parallel: $(runs_of "$tmp/shard-1.json") + $(runs_of "$tmp/shard-2.json")" \
     "+ $(runs_of "$tmp/shard-3.json") runs, every (scenario, seed) of the $(wc -l < "$tmp/whole") exactly once"
"$bin" merge "$tmp"/shard-*.json > "$tmp/merged.txt" || fail "merge of the shards exited $?"
want=$(python3 -c 'import json,sys
d=[json.loads(l) for l in sys.stdin]; n=len(d); f=sum(not x["expectations_met"] for x in d)
print("%d run%s: %d met every expectation, %d did not" % (n, "" if n == 1 else "s", n - f, f))' < "$tmp/j1.json")
[ "$(tail -1 "$tmp/merged.txt")" = "$want" ] || fail "merge says \"$(tail -1 "$tmp/merged.txt")\", the sweep \"$want\""
echo "ok   locksim merge of the shards: $(tail -1 "$tmp/merged.txt")"

# 3. The shard from the environment is --shard's.
"$bin" run "${small[@]}" --json --shard 2/3 | nowall > "$tmp/want.json"
check_env() {   # check_env VAR=VALUE...
    env "$@" "$bin" run "${small[@]}" --json 2> "$tmp/env.err" | nowall > "$tmp/got.json"
    cmp -s "$tmp/want.json" "$tmp/got.json" || fail "$* does not run shard 2/3"
    grep -q "shard 2/3" "$tmp/env.err" || fail "$*: no shard note on stderr"
    echo "ok   $*: shard 2/3 ($(runs_of "$tmp/got.json") runs)"
}
check_env LOCKSIM_SHARD=2/3
check_env JOB_COMPLETION_INDEX=1 LOCKSIM_SHARDS=3
check_env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3
LOCKSIM_SHARD=3/3 "$bin" run "${small[@]}" --json --shard 2/3 2>/dev/null | nowall > "$tmp/got.json"
cmp -s "$tmp/want.json" "$tmp/got.json" || fail "--shard does not win over LOCKSIM_SHARD"
# A Kubernetes Indexed Job of 3 completions, then merge.
for i in 0 1 2; do
    JOB_COMPLETION_INDEX=$i LOCKSIM_SHARDS=3 "$bin" run "${small[@]}" --json > "$tmp/pod-$i.json" 2>/dev/null ||
        fail "pod $i exited $?"
done
got=$("$bin" merge "$tmp"/pod-*.json); want=$("$bin" run "${small[@]}" | tail -1)
[ "$got" = "$want" ] || fail "3 indexed pods merged say \"$got\", the whole run \"$want\""
echo "ok   JOB_COMPLETION_INDEX=0..2 LOCKSIM_SHARDS=3, merged: $got"

# 4. --stop-on-failure: the same output up to the first failing pair.
mkdir "$tmp/sof"
cp scenarios/smoke/contended.scn "$tmp/sof/a.scn"
sed 's/^min-acquisitions *=.*/min-acquisitions = 1000000/' scenarios/smoke/contended.scn > "$tmp/sof/b.scn"
cp scenarios/smoke/trylock-lease.scn "$tmp/sof/c.scn"
grep -q 'min-acquisitions = 1000000' "$tmp/sof/b.scn" || fail "the failing copy has no min-acquisitions line"
for j in 1 3; do
    "$bin" run "$tmp/sof" --seeds 1..3 --stop-on-failure --jobs $j > "$tmp/sof-$j.txt"
    [ $? = 1 ] || fail "--stop-on-failure --jobs $j: exit is not 1"
done
cmp -s <(nowall "$tmp/sof-1.txt") <(nowall "$tmp/sof-3.txt") || fail "--stop-on-failure: --jobs 3 differs from --jobs 1"
[ "$(tail -1 "$tmp/sof-3.txt")" = "4 runs: 3 met every expectation, 1 did not" ] ||
    fail "--stop-on-failure did not stop at b.scn seed 1: $(tail -1 "$tmp/sof-3.txt")"
"$bin" run "$tmp/sof" --seeds 1..3 --json --jobs 2 > "$tmp/all.json"
[ $? = 1 ] || fail "a failing sweep with --jobs 2 does not exit 1"
got=$("$bin" merge "$tmp/all.json"); [ $? = 1 ] || fail "merge of a failing sweep does not exit 1"
echo "ok   --stop-on-failure stops at the first failing pair with --jobs 1 and 3; merge: $(echo "$got" | tail -1)"
echo "sweeps: all passed"
