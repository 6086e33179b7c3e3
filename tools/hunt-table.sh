#!/usr/bin/env bash
# hunt-table.sh BUILD [SEEDS] [FIXED_SEEDS] [FILES...] — what `make hunt` runs:
# for every known-bug scenario (scenarios/known-bugs, or FILES), its
# signature (the invariants it breaks, the fault kinds it needs: the
# scenario shrunk), the seed at which `locksim hunt` of its protocol finds
# the same signature (seeds SEEDS, default 1..10000), and, where a fixed
# version exists (tools/known-bug-fixes.txt), whether a hunt of the fixed
# version finds it in FIXED_SEEDS (default 1..100000). One line per known
# bug to stdout and to out/hunt/table.txt (and a markdown table,
# out/hunt/table.md), in file order; the runs' outputs
# in out/hunt/logs/. The known bugs are hunted HUNT_JOBS (default: the
# cores) at a time, each hunt on one core, so that one hunt's shrinking
# (one core) never leaves the other cores idle. HUNT_ROW_SECONDS (default
# none) boxes each hunt's time: a hunt still running then is interrupted
# and its row says how many seeds it ran (with one job, the first ones).
# Long: this is a make target, not part of make test.
set -u
row_format='%-52s %-36s %-62s %-24s %-40s %s\n'
if [ "${1:-}" = --row ]; then # one known bug: --row BUILD SEEDS FIXED_SEEDS INDEX FILE
    bin="$2/locksim" seeds=$3 fixed_seeds=$4 i=$5 f=$6
    box=()
    [ "${HUNT_ROW_SECONDS:-0}" -gt 0 ] && box=(timeout -s INT "$HUNT_ROW_SECONDS")
    # "not in 1..N" or, cut by the time box, "not in the first R of 1..N"
    # (R: the seeds run and those skipped as their draws lack a wanted fault).
    missed() {
        awk '/^not found in seeds / { r = $5; sub(/:$/, "", r); print "not in " r }
             /^not found in the seeds run of / { r = $8; sub(/:$/, "", r); n = $9
                 if (match($0, /, [0-9]+ seeds? skipped/)) n += substr($0, RSTART + 2) + 0
                 print "not in the first " n " of " r }' "$1"
    }
    # hunt TARGET SEEDS OUTDIR LOG: one hunt, on one core, boxed; its wall seconds in $secs.
    hunt() {
        local t0=$(date +%s)
        "${box[@]}" "$bin" hunt "$1" --want "$f" --seeds "$2" --jobs 1 --out "$3" --no-progress > "$4" 2>&1
        secs=$(($(date +%s) - t0))
    }
    b=$(basename "$f" .scn)
    proto=$("$bin" replay "$f" --print-scenario | awk '/^\[protocol\]/{p=1; next} /^\[/{p=0} p && $1 == "name" {print $3; exit}')
    log="out/hunt/logs/$b.txt"
    hunt "$proto" "$seeds" out/hunt/found "$log"
    sig=$(sed -n '1s/.*: \(.*\) (it shrinks.*/\1/p' "$log")
    if grep -q 'no signature to hunt for' "$log"; then
        sig="(a held twin: nothing to hunt)" at="-" size="-"
    elif grep -q '^found at seed' "$log"; then
        at="$(sed -n 's/^found at seed \([0-9]*\).*/\1/p' "$log") ($secs s)"
        size=$(grep -o 'shrunk: [^/]*events' "$log" | sed 's/shrunk: //; s/, 0 steps//')
    else
        at="$(missed "$log") ($secs s)"
        size=$(sed -n 's/^not found in [^:]*: //p' "$log")
        [ -n "$size" ] || size=$(head -c 200 "$log")
    fi
    read -r fix shared <<< "$(awk -v b="$b" '$1 == b {print $2, $3}' tools/known-bug-fixes.txt)"
    fixed="-"
    if [ -n "$fix" ]; then
        flog="out/hunt/logs/$b.fixed.txt"
        hunt "$fix" "$fixed_seeds" out/hunt/fixed "$flog"
        if grep -q '^found at seed' "$flog"; then
            fixed="$fix: FOUND at seed $(sed -n 's/^found at seed \([0-9]*\).*/\1/p' "$flog") ($secs s)"
            [ "$shared" = shared ] &&
                fixed="$fixed, as expected: the signature is shared (tools/known-bug-fixes.txt)"
        else
            fixed="$fix: none, $(missed "$flog" | sed 's/^not //') ($(sed -n 's/^not found in [^:]*: \(.*\)/\1/p' "$flog"); $secs s)"
        fi
    fi
    printf "$row_format" "$b" "$proto" "${sig:--}" "$at" "${size:--}" "$fixed" > "out/hunt/rows/$i.txt"
    printf '| %s | %s | %s | %s | %s | %s |\n' "$b" "$proto" "${sig:--}" "$at" "${size:--}" "$fixed" > "out/hunt/rows/$i.md"
    cat "out/hunt/rows/$i.txt"
    exit 0
fi
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
build=${1:-build}
seeds=${2:-1..10000}
fixed_seeds=${3:-1..100000}
shift 3 2>/dev/null
cd "$(dirname "$0")/.."
jobs=${HUNT_JOBS:-$(nproc 2>/dev/null || echo 2)}
files=${*:-$(ls scenarios/known-bugs/*.scn)}
rm -rf out/hunt/rows
mkdir -p out/hunt/logs out/hunt/rows
table=out/hunt/table.txt
header=$(printf "$row_format" "known bug" "protocol" "signature" "hunt: found at seed" \
    "shrunk (clients, faults, duration, events)" "fixed version: seeds without it")
echo "$header"
i=0
for f in $files; do
    i=$((i + 1))
    printf '%04d %s\n' "$i" "$f"
done | xargs -P "$jobs" -L 1 bash "$self" --row "$build" "$seeds" "$fixed_seeds"
{
    echo "$header"
    cat out/hunt/rows/*.txt
} > "$table"
{
    echo "| known bug | protocol | signature | hunt: found at seed (wall) | shrunk: clients, faults, duration, events (not found: candidates) | fixed version: seeds without it |"
    echo "|---|---|---|---|---|---|"
    cat out/hunt/rows/*.md
} > "${table%.txt}.md"
echo "table: $table and ${table%.txt}.md ($(ls out/hunt/rows/*.txt | wc -l) known bugs; seeds $seeds, fixed versions $fixed_seeds)"
