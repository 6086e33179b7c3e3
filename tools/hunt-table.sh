#!/usr/bin/env bash
# hunt-table.sh BUILD [SEEDS] [FIXED_SEEDS] [FILES...] — what `make hunt` runs:
# for every known-bug scenario (scenarios/known-bugs, or FILES), its
# signature (the invariants it breaks, the fault kinds it needs: the
# scenario shrunk), the seed at which `locksim hunt` of its protocol finds
# the same signature (seeds SEEDS, default 1..10000), and, where a fixed
# version exists (tools/known-bug-fixes.txt), whether a hunt of the fixed
# version finds it in FIXED_SEEDS (default 1..100000). One line per known
# bug to stdout and to out/hunt/table.txt; the runs' outputs in
# out/hunt/logs/. Long: this is a make target, not part of make test.
set -u
build=${1:-build}
seeds=${2:-1..10000}
fixed_seeds=${3:-1..100000}
shift 3 2>/dev/null
cd "$(dirname "$0")/.."
bin="$build/locksim"
jobs=$(nproc 2>/dev/null || echo 2)
files=${*:-$(ls scenarios/known-bugs/*.scn)}
mkdir -p out/hunt/logs
table=out/hunt/table.txt
printf '%-52s %-26s %-50s %-22s %-34s %s\n' "known bug" "protocol" "signature" "hunt: found at seed" \
    "shrunk (clients, faults, events)" "fixed version: seeds without it" | tee "$table"
for f in $files; do
    b=$(basename "$f" .scn)
    proto=$("$bin" replay "$f" --print-scenario | awk '/^\[protocol\]/{p=1; next} /^\[/{p=0} p && $1 == "name" {print $3; exit}')
    log="out/hunt/logs/$b.txt"
    "$bin" hunt "$proto" --want "$f" --seeds "$seeds" --jobs "$jobs" --out out/hunt/found --no-progress > "$log" 2>&1
    sig=$(sed -n '1s/.*: \(.*\) (it shrinks.*/\1/p' "$log")
    if grep -q '^found at seed' "$log"; then
        at=$(sed -n 's/^found at seed \([0-9]*\).*/\1/p' "$log")
        size=$(grep -o 'shrunk: [^/]*events' "$log" | sed 's/shrunk: //; s/, 0 steps//')
    else
        at="not in $seeds"
        size=$(grep -m1 -o 'does not fail.*\|cannot.*' "$log" || echo "-")
    fi
    fix=$(awk -v b="$b" '$1 == b {print $2}' tools/known-bug-fixes.txt)
    fixed="-"
    if [ -n "$fix" ]; then
        flog="out/hunt/logs/$b.fixed.txt"
        "$bin" hunt "$fix" --want "$f" --seeds "$fixed_seeds" --jobs "$jobs" --out out/hunt/fixed --no-progress \
            > "$flog" 2>&1
        if grep -q '^found at seed' "$flog"; then
            fixed="$fix: FOUND at seed $(sed -n 's/^found at seed \([0-9]*\).*/\1/p' "$flog")"
        else
            fixed="$fix: none in $fixed_seeds ($(sed -n 's/^not found in seeds [^:]*: \(.*\)/\1/p' "$flog"))"
        fi
    fi
    printf '%-52s %-26s %-50s %-22s %-34s %s\n' "$b" "$proto" "${sig:--}" "$at" "${size:--}" "$fixed" | tee -a "$table"
done
