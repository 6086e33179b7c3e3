#!/usr/bin/env bash
# tidy.sh — the determinism lint: the simulated path (the kernel, the fake
# node, protocols, faults, checkers) must not read the wall clock or draw
# randomness outside the sim context. Prints file:line: error: ... and
# exits 1 on a hit.
set -u
cd "$(dirname "$0")/.."
# sim/kernel/host.[ch] is the wall clock itself (tools/layers.txt exempts it).
files=$(ls sim/kernel/*.c sim/kernel/*.h sim/fake/*.c sim/fake/*.h protocols/*.c protocols/client/*.c faults/*.c \
           sim/checkers/*.c sim/history/*.c 2>/dev/null | grep -v '^sim/kernel/host\.[ch]$')
status=0
# The files with string literals emptied (a banned word in a message is
# not a call), comment lines kept as they are and skipped below.
stripped=$(mktemp)
trap 'rm -f "$stripped"' EXIT
for f in $files; do
    sed -E 's/"([^"\\]|\\.)*"/""/g' "$f" | awk -v f="$f" '{ print f ":" NR ":" $0 }'
done > "$stripped"
check() {   # check PATTERN USE-INSTEAD NAME
    local hits
    hits=$(grep -E "$1" "$stripped" | grep -vE '^\S+:[0-9]+:\s*(/\*|\*|//)')
    if [ -n "$hits" ]; then
        while IFS= read -r h; do
            echo "${h%%:*}:$(echo "$h" | cut -d: -f2): error: '$3' is banned here, use $2"
        done <<< "$hits"
        status=1
    fi
}
check '(^|[^_a-z])rand\(' 'sim_choose() or sim_stream()' 'rand('
check '(^|[^_a-z])srand\(' 'sim_new(seed)' 'srand('
check '(^|[^_a-z.])time\(' 'sim_now() or a node clock' 'time('
check 'gettimeofday' 'sim_now() or a node clock' 'gettimeofday'
check 'clock_gettime' 'sim_now() or a node clock' 'clock_gettime'
check 'fiu_enable_random' 'fiu_enable_external with sim_choose()' 'fiu_enable_random'
[ "$status" = 0 ] && echo "tidy: no wall-clock or unseeded randomness in the simulated path"
exit "$status"
