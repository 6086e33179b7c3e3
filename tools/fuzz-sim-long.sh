#!/usr/bin/env bash
# fuzz-sim-long.sh [EXECUTIONS] [JOBS] — a long fuzz_sim campaign (what
# `make fuzz-long` runs; the issue asked for a million executions): JOBS
# libFuzzer processes of the FUZZ_ASAN=0 build (LeakSanitizer, UBSan as
# traps, assertions and the paranoid checks, the determinism check: about
# three times the ASan build's speed) share build-fuzz/corpus/sim for
# EXECUTIONS in all; then every input of that corpus is replayed through
# the ASan build's replay_sim, so what the fast build reached is checked
# for memory errors too. Prints the executions, the corpus and either "no
# crash" or where the crashing input is; exit 1 on a crash.
set -u
total=${1:-1000000}
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
cd "$(dirname "$0")/.."
make --no-print-directory FUZZ=1 FUZZ_ASAN=0 build-fuzz-lite/fuzz_sim > /dev/null || exit 2
make --no-print-directory FUZZ=1 build-fuzz/replay_sim > /dev/null || exit 2
corpus=build-fuzz/corpus/sim
mkdir -p "$corpus" build-fuzz/seed/sim
build-fuzz/replay_sim --decode tests/fuzz/corpus/sim build-fuzz/seed/sim || exit 2
per=$(( (total + jobs - 1) / jobs ))
t0=$(date +%s)
pids=()
for j in $(seq 1 "$jobs"); do
    mkdir -p "build-fuzz-lite/artifacts/sim$j"
    build-fuzz-lite/fuzz_sim -runs="$per" -seed="$j" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="build-fuzz-lite/artifacts/sim$j/" "$corpus" build-fuzz/seed/sim \
        > "build-fuzz-lite/fuzz_sim.$j.log" 2>&1 &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
runs=0
for j in $(seq 1 "$jobs"); do
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz-lite/fuzz_sim.$j.log" | grep -o '[0-9]*$')
    runs=$((runs + ${n:-0}))
done
secs=$(( $(date +%s) - t0 ))
found=$(find build-fuzz-lite/artifacts -type f | wc -l)
echo "fuzz_sim (LSan+UBSan build): $runs executions in ${secs}s over $jobs jobs ($(( runs / (secs > 0 ? secs : 1) ))/s), corpus $(ls "$corpus" | wc -l) inputs"
if [ "$status" != 0 ] || [ "$found" != 0 ]; then
    echo "fuzz_sim: a crash; its input is in build-fuzz-lite/artifacts/, the logs build-fuzz-lite/fuzz_sim.*.log"
    exit 1
fi
t1=$(date +%s)
build-fuzz/replay_sim "$corpus" > build-fuzz/replay_sim.log 2>&1 || {
    echo "fuzz_sim: the corpus fails under ASan: build-fuzz/replay_sim.log"; tail -5 build-fuzz/replay_sim.log; exit 1; }
echo "the corpus under the ASan build: $(tail -1 build-fuzz/replay_sim.log), no error, $(( $(date +%s) - t1 ))s"
