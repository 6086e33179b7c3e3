#!/usr/bin/env bash
# history-audit.sh BIN [TABLE] — every Redisson release that `locksim list`
# names on a versions: or history: line, and every release boundary of the
# version settings (protocols/versions.c settings(), the at_version of
# semaphore.c, expirable.c, latch.c and counter.c), has a row in TABLE
# (default tools/history-audit.md) that names it as `X.Y.Z` and gives a
# verdict. Then it checks that it notices a missing row: the same check on
# the table without the first release's rows must fail.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
table=${2:-tools/history-audit.md}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-audit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# X.Y -> X.Y.0
norm() { awk -F. '{ printf "%d.%d.%d\n", $1, $2, (NF > 2 ? $3 : 0) }'; }

# The releases: list lines, then the settings' V(a, b, c) / PROTO_V(a, b, c)
# (the table's upper clamp V(4, 7, 99) and the macro itself aside).
"$bin" list > "$tmp/list" || { echo "history-audit: $bin list failed"; exit 1; }
{
    grep -E '^ +(versions|history): ' "$tmp/list" | grep -oE '\b[34]\.[0-9]+(\.[0-9]+)?\b'
    awk '/^static void settings\(/ { on = 1 } on { print } on && /^}/ { on = 0 }' protocols/versions.c |
        grep -oE '\bV\([0-9]+, [0-9]+, [0-9]+\)' | tr -d 'V( )' | tr , .
    for f in protocols/semaphore.c protocols/expirable.c protocols/latch.c protocols/counter.c; do
        grep -oE '\bPROTO_V\([0-9]+, [0-9]+, [0-9]+\)' "$f" | sed 's/PROTO_V//' | tr -d '( )' | tr , .
    done
} | norm | sort -u -V > "$tmp/versions"
n=$(wc -l < "$tmp/versions")
[ "$n" -ge 30 ] || { echo "history-audit: only $n releases found (the extraction is broken)"; exit 1; }

# check TABLE: 0 when every release has a row with a verdict, else 1 and
# the releases without one.
check() {
    local t=$1 missing=0 v
    grep -E '^\| *[A-Z][0-9]+ *\|' "$t" > "$tmp/rows"
    while read -r v; do
        if ! grep -F "\`$v\`" "$tmp/rows" | grep -qE '\| *(confirmed|moved|wrong)\b'; then
            echo "  no row with a verdict names \`$v\`"
            missing=1
        fi
    done < "$tmp/versions"
    return $missing
}

check "$table" > "$tmp/out" || {
    cat "$tmp/out"
    echo "history-audit: $table lacks the releases above (add a row: claim, source, verdict)"
    exit 1
}
rows=$(grep -cE '^\| *[A-Z][0-9]+ *\|' "$table")
bad=$(grep -E '^\| *[A-Z][0-9]+ *\|' "$table" | grep -cvE '\| *(confirmed|moved|wrong)\b')
[ "$bad" = 0 ] || { echo "history-audit: $bad rows of $table have no verdict"; exit 1; }
echo "ok   history audit: $n releases named by locksim list and the version settings, each in $table ($rows rows)"

# It fails on a table missing a row: drop every row naming the first release.
first=$(head -1 "$tmp/versions")
grep -vF "\`$first\`" "$table" > "$tmp/short.md"
if check "$tmp/short.md" > /dev/null; then
    echo "history-audit: a table without the rows of \`$first\` passed the check"
    exit 1
fi
echo "ok   history audit: a table without the rows naming \`$first\` fails"
