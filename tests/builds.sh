#!/usr/bin/env bash
# builds.sh — determinism across builds: every bundled scenario, seeds 1
# and 2, must give the same trace hash from the gcc -O2 build (build/), the
# AddressSanitizer + UndefinedBehaviorSanitizer build (build-san/) and a
# clang -O2 build (build-clang/). Builds what is missing (make, incremental).
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-builds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "builds: FAIL: $*"; exit 1; }
command -v clang >/dev/null 2>&1 || fail "clang is not installed (make deps installs it for make test)"
make -s --no-print-directory SAN=1 build-san/locksim > "$tmp/make.log" 2>&1 || { tail "$tmp/make.log"; fail "the SAN build"; }
make -s --no-print-directory BUILD=build-clang CC=clang build-clang/locksim > "$tmp/make.log" 2>&1 ||
    { tail "$tmp/make.log"; fail "the clang build"; }
hashes() {  # hashes BUILD: "scenario seed hash" lines
    "$1/locksim" run $(ls -d scenarios/*/) --seeds 1..2 --json --jobs 2 |
        python3 -c 'import json,sys; [print(d["scenario"], d["seed"], d["trace_hash"]) for d in map(json.loads, sys.stdin)]'
}
for b in build build-san build-clang; do
    hashes "$b" > "$tmp/$b" || fail "$b/locksim run exited $?"
done
n=$(wc -l < "$tmp/build")
for b in build-san build-clang; do
    cmp -s "$tmp/build" "$tmp/$b" || { diff "$tmp/build" "$tmp/$b" | head -4; fail "$b gives other trace hashes than build"; }
done
echo "builds: $n (scenario, seed) pairs, one trace hash each from gcc -O2 ($(cc --version | head -1 | awk '{print $NF}')), gcc ASan+UBSan and clang -O2 ($(clang --version | head -1 | awk '{print $4}'))"
