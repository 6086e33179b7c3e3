#!/usr/bin/env bash
# fuzz.sh BUILD SECONDS [TARGET...] — what `make fuzz` runs: each libFuzzer
# target (scn: the scenario parser; lua: the fake's Lua host; resp: the
# real backend's reply path; sim: the simulator itself, random valid
# scenarios run twice) for SECONDS, from its seed corpus
# (tests/fuzz/corpus/T, kept as text: decoded into BUILD/seed/T by the
# target's replay binary) and the inputs it found before (BUILD/corpus/T).
# Prints the executions of each; a crash fails the run and is kept in
# BUILD/artifacts/T; once fixed, save it as a regression in the kept form:
#   BUILD/replay_T --encode BUILD/artifacts/T/crash-... > tests/fuzz/regressions/T/NAME
# (make test replays those). FUZZ_RUNS=N runs each target N inputs instead.
set -u
build=${1:-build-fuzz}
secs=${2:-60}
shift 2 2>/dev/null
targets=${*:-scn lua resp sim}
cd "$(dirname "$0")/.."
status=0
for t in $targets; do
    bin="$build/fuzz_$t"
    [ -x "$bin" ] || { echo "fuzz: $bin is not built (make FUZZ=1 fuzzers)"; exit 2; }
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t" "$build/seed/$t"
    "$build/replay_$t" --decode "tests/fuzz/corpus/$t" "$build/seed/$t" ||
        { echo "fuzz: cannot decode tests/fuzz/corpus/$t"; exit 2; }
    limit=(-max_total_time="$secs")
    [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
    log="$build/fuzz_$t.log"
    # -timeout: an input that runs over 10 s is a hang; the Lua target's
    # scripts stop at 200000 instructions, the sim target's runs last a
    # few virtual seconds, so none should.
    "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$t/" "$build/corpus/$t" "$build/seed/$t" > "$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    found=$(ls "$build/artifacts/$t" | grep -c . )
    if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
        echo "fuzz $t: FAIL after ${runs:-?} executions: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$log")"
        echo "  the input is in $build/artifacts/$t/; log $log"
        status=1
    else
        echo "fuzz $t: ${runs:-?} executions (${rate:-?}/s), $cov, corpus $(ls "$build/corpus/$t" | wc -l) inputs, no crash"
    fi
done
exit $status
