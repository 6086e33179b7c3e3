#!/usr/bin/env bash
# hunt_shard.sh BIN — a hunt spread over shards (`hunt --shard I/N`, or the
# environment as Kubernetes and Slurm set it) and finished by `locksim
# merge` prints the table and the JSON of one process over all the seeds,
# byte for byte, and writes the same shrunk files:
#  1. a differential hunt in 3 shards run by GNU parallel, table and --json;
#  2. a --want hunt in 2 shards from JOB_COMPLETION_INDEX / LOCKSIM_SHARDS
#     and 2 from SLURM_ARRAY_TASK_ID: the same seed found, the same line;
#  3. bad input: a shard missing or given twice, partial hunts of two
#     hunts, a file cut short, --report on a shard: one line, exit 2.
set -u
bin=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-hunt-shard.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "hunt shards: $*"; exit 1; }
command -v parallel >/dev/null 2>&1 || fail "GNU parallel is not installed (make deps)"
# The paths of the two output folders differ; all else must not.
same() { diff <(sed "s#$tmp/[a-z0-9]*#DIR#g" "$1") <(sed "s#$tmp/[a-z0-9]*#DIR#g" "$2"); }

# 1. hunt redisson.lock@2019 --against redisson.lock, seeds 1..60.
hunt=(hunt redisson.lock@2019 --against redisson.lock --seeds 1..60)
for fmt in table json; do
    flag=; [ $fmt = json ] && flag=--json
    "$bin" "${hunt[@]}" $flag --jobs 2 --out "$tmp/one$fmt" > "$tmp/one.$fmt"
    parallel --will-cite -j 2 "$bin" "${hunt[*]}" $flag --out "$tmp/sh$fmt" --shard {}/3 ::: 1 2 3 > "$tmp/shards.$fmt" ||
        fail "a shard failed: $(cat "$tmp/shards.$fmt")"
    [ "$(ls "$tmp/sh$fmt"/*.hunt | wc -l)" = 3 ] || fail "not 3 partial hunts: $(ls "$tmp/sh$fmt")"
    "$bin" merge "$tmp/sh$fmt"/*.hunt --jobs 2 > "$tmp/merged.$fmt"
    same "$tmp/one.$fmt" "$tmp/merged.$fmt" > "$tmp/diff" || fail "merge ($fmt) is not the one-process hunt: $(cat "$tmp/diff")"
    diff -r -x '*.hunt' "$tmp/one$fmt" "$tmp/sh$fmt" > "$tmp/diff" || fail "merge ($fmt) wrote other shrunk files: $(cat "$tmp/diff")"
done
grep -q '^  .* shrunk: ' "$tmp/one.table" || fail "the hunt shrank nothing (no test of the shrinks' merge): $(cat "$tmp/one.table")"
echo "ok   hunt --against in 3 shards (GNU parallel) + merge: the table and --json of one process, the same $(ls "$tmp/onetable"/*.scn | wc -l) shrunk files"

# 2. --want, the shard from the environment.
want=(hunt redisson.lock@3.23 --against redisson.lock@3.24 --want scenarios/known-bugs/drop-reply-unlock-3.23.scn --seeds 2130..2230)
"$bin" "${want[@]}" --jobs 2 --out "$tmp/wone" > "$tmp/wone.txt"
grep -q '^found at seed 2207,' "$tmp/wone.txt" || fail "hunt --want did not find seed 2207: $(cat "$tmp/wone.txt")"
for i in 0 1; do JOB_COMPLETION_INDEX=$i LOCKSIM_SHARDS=2 "$bin" "${want[@]}" --out "$tmp/wk8s" > /dev/null || fail "k8s shard $i"; done
for i in 4 5; do SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=2 "$bin" "${want[@]}" --out "$tmp/wslurm" > /dev/null ||
    fail "slurm task $i"; done
cmp -s <(grep -v '^args' "$tmp/wk8s/redisson.lock@3.23--shard-1-of-2.hunt") \
    <(grep -v '^args' "$tmp/wslurm/redisson.lock@3.23--shard-1-of-2.hunt") ||
    fail "JOB_COMPLETION_INDEX 0 and SLURM_ARRAY_TASK_ID 4 (of 4..5) are not the same shard"
for d in wk8s wslurm; do
    "$bin" merge "$tmp/$d"/*.hunt --jobs 2 > "$tmp/$d.txt"
    same "$tmp/wone.txt" "$tmp/$d.txt" > "$tmp/diff" || fail "merge of $d is not the one-process --want hunt: $(cat "$tmp/diff")"
done
echo "ok   hunt --want in 2 shards (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID) + merge: $(grep '^found' "$tmp/wone.txt" | cut -d'(' -f1)as one process"

# 3. Bad input.
parts=("$tmp"/shtable/*.hunt)
"$bin" merge "${parts[0]}" "${parts[1]}" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q 'shard 3 of 3 is missing' "$tmp/err" || fail "a shard missing: exit $rc, $(cat "$tmp/err")"
"$bin" merge "${parts[0]}" "${parts[0]}" "${parts[1]}" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q ':3: shard 1 of 3 given twice' "$tmp/err" || fail "a shard twice: exit $rc, $(cat "$tmp/err")"
"$bin" merge "${parts[0]}" "$tmp/wk8s/redisson.lock@3.23--shard-2-of-2.hunt" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q ':2: another hunt than the first file' "$tmp/err" || fail "two hunts' shards: exit $rc, $(cat "$tmp/err")"
head -n -1 "${parts[2]}" > "$tmp/cut.hunt"
"$bin" merge "${parts[0]}" "${parts[1]}" "$tmp/cut.hunt" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q 'cut.hunt: cut short' "$tmp/err" || fail "a partial hunt cut short: exit $rc, $(cat "$tmp/err")"
"$bin" hunt redisson.lock --seeds 1..4 --shard 1/2 --report "$tmp/rep" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q 'report' "$tmp/err" || fail "--report on a shard: exit $rc, $(cat "$tmp/err")"
"$bin" hunt redisson.lock --seeds 1..4 --shard 3/2 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] || fail "--shard 3/2: exit $rc, $(cat "$tmp/err")"
echo "ok   merge refuses a missing shard, a shard twice, two hunts' shards and a file cut short; hunt --shard refuses --report and 3/2"
