#!/usr/bin/env bash
# cli_errors.sh BIN — bad input gets "file:line: what is wrong" and exit 2,
# never a crash, a hang or a report.
set -u
bin=${1:-build/locksim}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {   # expect NAME WANTED-STDERR-PIECE -- ARGS...
    local name=$1 want=$2
    shift 3
    local out err code
    out=$(timeout 20 "$bin" "$@" 2>"$tmp/err")
    code=$?
    err=$(cat "$tmp/err")
    if [ "$code" != 2 ]; then
        echo "FAIL $name: exit $code, want 2 ($err)"; fail=1
    elif ! grep -qF -- "$want" "$tmp/err"; then
        echo "FAIL $name: stderr \"$err\" lacks \"$want\""; fail=1
    elif [ -n "$out" ]; then
        echo "FAIL $name: wrote a report on bad input: $out"; fail=1
    else
        echo "ok   $name: $(head -1 "$tmp/err")"
    fi
}
cat > "$tmp/typo.scn" <<'SCN'
[scenario]
duration = 10s
[protocol]
name = redisson.lock
leese = 10s
SCN
cat > "$tmp/proto.scn" <<'SCN'
[scenario]
duration = 10s
[protocol]
name = redisson.lokc
[clients]
count = 1
SCN
printf '[scenario]\nduration = 10s\n[faults]\nat = 1s meteor client=1\n' > "$tmp/fault.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock@9.9\n[clients]\ncount = 1\n' > "$tmp/version.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\n[clients]\npermits = 0..2\n' > "$tmp/permits.scn"
printf '\x00\xff\x01garbage\n[[[\n' > "$tmp/binary.scn"
expect typo "$tmp/typo.scn:5: unknown key 'leese' in [protocol]" -- run "$tmp/typo.scn"
expect protocol "$tmp/proto.scn:4: unknown protocol 'redisson.lokc'" -- run "$tmp/proto.scn"
expect fault "$tmp/fault.scn:4: unknown fault \"meteor\"" -- run "$tmp/fault.scn"
expect version "$tmp/version.scn:4: '9.9' is not a release of redisson.lock" -- run "$tmp/version.scn"
expect permits "$tmp/permits.scn:6: 'permits' is a count from 1" -- run "$tmp/permits.scn"
expect binary "$tmp/binary.scn:" -- run "$tmp/binary.scn"
expect missing "no-such.scn" -- run "$tmp/no-such.scn"
expect seeds "--seeds wants A..B" -- run "$tmp/typo.scn" --seeds 5..2
expect option "unknown or incomplete option" -- run --frobnicate
expect backend "--backend is fake or redis" -- run "$tmp/typo.scn" --backend mongo
expect servers "need --allow-server-faults" -- run "$(dirname "$0")/../scenarios/real/server-crash-restart.scn" --backend redis --redis 127.0.0.1:1
expect redisspec "--redis goes with --backend redis" -- run "$tmp/typo.scn" --redis 127.0.0.1:1
expect command "unknown command" -- frobnicate
expect replaytypo "$tmp/typo.scn:5: unknown key 'leese'" -- replay "$tmp/typo.scn" --seed 1
expect replayaround "--around wants a time" -- replay "$tmp/typo.scn" --around soon
expect shrinkout "-o FILE is required" -- shrink "$tmp/typo.scn" --seed 1
expect shrinktypo "$tmp/typo.scn:5: unknown key 'leese'" -- shrink "$tmp/typo.scn" --seed 1 -o "$tmp/out.scn"
# A good scenario after a bad one: nothing runs (checked before running).
cp "$(dirname "$0")/../scenarios/smoke/contended.scn" "$tmp/a-good.scn"
expect half "$tmp/typo.scn:5:" -- run "$tmp/a-good.scn" "$tmp/typo.scn"
exit $fail
