#!/usr/bin/env bash
# determinism.sh BIN [SEEDS] — the determinism self-check: every bundled
# scenario, each seed run twice, must give one trace_hash; two seeds must
# give two. On the first mismatch it names the first differing trace line.
# The scenarios are checked as many at a time as there are cores; the
# failures are printed in file order.
set -u
bin=${1:-build/locksim}
seeds=${2:-"1 2 3"}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-det.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
hash_of() { "$bin" run "$1" --seed "$2" --json | grep -o '"trace_hash":"[0-9a-f]*"' | cut -d'"' -f4; }
# check_scn INDEX SCENARIO: its seeds; what is wrong in $tmp/INDEX.fail.
check_scn() {
    local i=$1 scn=$2 prev="" seed h1 h2 n
    for seed in $seeds; do
        h1=$(hash_of "$scn" "$seed")
        h2=$(hash_of "$scn" "$seed")
        if [ -z "$h1" ]; then
            echo "determinism: $scn seed $seed printed no trace_hash" > "$tmp/$i.fail"; return 1
        fi
        if [ "$h1" != "$h2" ]; then
            "$bin" run "$scn" --seed "$seed" --trace "$tmp/$i.a" >/dev/null
            "$bin" run "$scn" --seed "$seed" --trace "$tmp/$i.b" >/dev/null
            n=$(cmp "$tmp/$i.a" "$tmp/$i.b" | sed -n 's/.* line \([0-9]*\).*/\1/p')
            { echo "determinism: $scn seed $seed gave two trace hashes: $h1 and $h2"
              echo "first differing trace line ($n):"
              echo "  run 1: $(sed -n "${n}p" "$tmp/$i.a")"
              echo "  run 2: $(sed -n "${n}p" "$tmp/$i.b")"; } > "$tmp/$i.fail"
            return 1
        fi
        if [ -n "$prev" ] && [ "$prev" = "$h1" ]; then
            echo "determinism: $scn gives the same trace hash for two seeds ($h1): is the seed used?" > "$tmp/$i.fail"
            return 1
        fi
        prev=$h1
    done
}
export -f hash_of check_scn
export bin seeds tmp
find scenarios -name '*.scn' | sort | awk '{print NR, $0}' > "$tmp/list"
xargs -P "$(nproc 2> /dev/null || echo 2)" -L 1 bash -c 'check_scn "$0" "$1"' < "$tmp/list"
for i in $(cut -d' ' -f1 "$tmp/list"); do
    [ -f "$tmp/$i.fail" ] && { cat "$tmp/$i.fail"; exit 1; }
done
nscn=$(wc -l < "$tmp/list")
nseeds=$(echo $seeds | wc -w)
echo "determinism: $((nscn * nseeds)) (scenario, seed) pairs, each run twice, one trace hash each"
