#!/usr/bin/env bash
# check.sh BIN — locksim check: the no-fault model completes with no
# violation; the 2019 unlock with one lost reply and the failover with
# asynchronous replication each give a counterexample whose choice string
# replays to the same violation (twice, one trace hash); the current
# unlock passes the same bounds.
set -u
bin=${1:-build/locksim}
cd "$(dirname "$0")/.."
fail=0
run_check() {   # run_check FILE WANT-EXIT
    out=$("$bin" check "$1" --depth 12 --faults 1)
    code=$?
    echo "$out" | sed -n 2p | sed "s|^ |ok   $1:|"
    if [ "$code" != "$2" ]; then
        echo "FAIL $1: locksim check exited $code, want $2"; echo "$out"; fail=1; return
    fi
    [ "$2" = 0 ] && ! echo "$out" | grep -q "complete within the bounds" && {
        echo "FAIL $1: the search did not complete within its bounds"; fail=1; }
    [ "$2" = 1 ] || return
    choices=$(echo "$out" | sed -n 's/^  choices: //p')
    want=$(echo "$out" | sed -n 's/^  counterexample: \([a-z-]*\) expected held, was violated.*/\1/p')
    h1=$("$bin" run "$1" --choices "$choices" --json | grep -o '"trace_hash":"[0-9a-f]*"')
    h2=$("$bin" run "$1" --choices "$choices" --json | grep -o '"trace_hash":"[0-9a-f]*"')
    v=$("$bin" run "$1" --choices "$choices" --json | grep -o "\"$want\":\"violated\"")
    if [ -z "$v" ] || [ "$h1" != "$h2" ]; then
        echo "FAIL $1: the choice string does not replay the $want violation ($h1, $h2)"; fail=1
    else
        echo "ok   $1: the counterexample replays to the $want violation ($h1)"
    fi
}
run_check checks/two-clients.scn 0
run_check checks/unlock-lost-reply-current.scn 0
run_check checks/unlock-lost-reply-2019.scn 1
run_check checks/failover-async.scn 1
exit $fail
