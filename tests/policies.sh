#!/usr/bin/env bash
# policies.sh BIN — locks defined by files (lock policies): the locks of
# scenarios/own-lock (distlock: two scripts and a policy file; hashlock/:
# re-entry counted in Redis) give the same verdicts on the fake and on
# redis-server processes; --protocols DIR adds a folder of policies by
# name; a lock that claims no re-entry refuses [clients] reentry, and a
# bad reentrant value is FILE:LINE, both exit 2; a script that fails at
# run time is an error reply counted in the run (its text in the trace),
# not a crash; a semaphore of a set runs from a file, and the mistakes of
# the semaphore and blocking-wait keys are FILE:LINE, exit 2.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/locksim}
cd "$here/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-policies.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "policies: FAIL: $*"; exit 1; }

verdicts() {   # verdicts BACKEND: "scenario invariant=verdict..." per run
    "$bin" run scenarios/own-lock --seed 1 --backend "$1" --jobs 4 --json |
        python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l)
    print(d["scenario"], " ".join("%s=%s" % kv for kv in sorted(d["invariants"].items())), d["expectations_met"])' | sort
}
verdicts fake > "$tmp/fake" || fail "own-lock on the fake"
verdicts redis > "$tmp/redis" || fail "own-lock on redis-server"
cmp -s "$tmp/fake" "$tmp/redis" || fail "fake and redis-server disagree: $(diff "$tmp/fake" "$tmp/redis")"
grep -q False "$tmp/fake" && fail "an own-lock scenario missed its expectations: $(cat "$tmp/fake")"
echo "ok   own locks (scenarios/own-lock: distlock, and hashlock/ re-entered, counted in Redis): the same verdicts on the fake and on redis-server"
sed 's/^/       /' "$tmp/fake"

mkdir -p "$tmp/locks"
cp scenarios/own-lock/*.lua scenarios/own-lock/distlock.lock "$tmp/locks/"
"$bin" --protocols "$tmp/locks" list | grep -q '^  distlock ' || fail "--protocols: distlock not listed"
sed 's/name  = distlock.lock/name  = distlock/' scenarios/own-lock/distlock-contended.scn > "$tmp/by-name.scn"
"$bin" run "$tmp/by-name.scn" --seed 1 --protocols "$tmp/locks" > "$tmp/out" || fail "--protocols: run by name: $(tail -3 "$tmp/out")"
echo "ok   --protocols DIR: the folder's policies are listed and run by name"

# refused POLICY-SED PATTERN: hashlock with its reentrant line edited by
# POLICY-SED must refuse its contended scenario, exit 2, saying PATTERN.
refused() {
    sed "$1" scenarios/own-lock/hashlock/hashlock.lock > "$tmp/nore/hashlock.lock"
    "$bin" run "$tmp/nore/hashlock-contended.scn" --seed 1 > "$tmp/out" 2>&1
    local rc=$?
    [ "$rc" -eq 2 ] && grep -q "$2" "$tmp/out" || fail "$1: exit $rc, $(cat "$tmp/out") (wanted: $2)"
}
mkdir -p "$tmp/nore"
cp scenarios/own-lock/hashlock/*.lua scenarios/own-lock/hashlock/hashlock-contended.scn "$tmp/nore/"
scn_line=$(grep -n '^reentry ' "$tmp/nore/hashlock-contended.scn" | cut -d: -f1)
pol_line=$(grep -n '^reentrant ' scenarios/own-lock/hashlock/hashlock.lock | cut -d: -f1)
refused 's/^reentrant = redis/reentrant = no/' \
    "hashlock-contended.scn:$scn_line: hashlock does not claim re-entry (reentrant = no)"
refused 's/^reentrant = redis/reentrant = maybe/' \
    "hashlock.lock:$pol_line: reentrant wants redis, local or no (got \"maybe\")"
echo "ok   re-entry: refused at its line where the lock claims none; a bad reentrant value is FILE:LINE; exit 2 each"

printf "return redis.call('hget', KEYS[1])\n" > "$tmp/locks/bad.lua"
printf '[lock]\nname = bad\n[acquire]\nscript = bad.lua\nkeys = {key}\nacquired = 1\n[release]\ncommand = DEL {key}\nreleased = any\n' > "$tmp/locks/bad.lock"
printf '[scenario]\nduration = 2s\n[protocol]\nname = locks/bad.lock\n[clients]\ncount = 1\n' > "$tmp/bad.scn"
"$bin" run "$tmp/bad.scn" --seed 1 --json > "$tmp/bad.json"
rc=$?
[ "$rc" -le 1 ] || fail "a script error at run time ended the run with $rc"
errors=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["errors"])' "$tmp/bad.json")
[ "$errors" -gt 0 ] || fail "a failing script counted no error"
"$bin" replay "$tmp/bad.scn" --seed 1 --no-events | grep -q 'acquire on master 0: error reply (error) "ERR Wrong number of args' ||
    fail "the script's error is not in the trace"
echo "ok   a script that fails at run time: $errors error replies counted, the text in the trace, exit $rc"

# Semaphores and blocking waits from files: a set semaphore of plain
# commands runs; each new key's mistake is FILE:LINE, exit 2.
mkdir -p "$tmp/sem"
pol() { printf "$1" > "$tmp/sem/p.lock"; printf '[scenario]\nduration = 3s\n[protocol]\nname = p.lock\n[clients]\ncount = 3\nthreads = 2\n[expect]\npermits = held\n' > "$tmp/sem/s.scn"; }
pol '[lock]\nname = setsem\npermits = 2\nlease = none\n[acquire]\nscript = acq.lua\nkeys = {key}\nargs = {owner} {permits}\nacquired = 1\nheld = 0\n[wait]\nmode = poll\ninterval = 10ms\n[release]\ncommand = SREM {key} {owner}\nreleased = int\n[observe]\ntype = set\n'
printf "if redis.call('scard', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end\nreturn redis.call('sadd', KEYS[1], ARGV[1])\n" > "$tmp/sem/acq.lua"
"$bin" run "$tmp/sem/s.scn" --seed 1 > "$tmp/out" 2>&1 || fail "a set semaphore from a policy file: $(cat "$tmp/out")"
echo "ok   a semaphore of a set (SADD/SREM, [observe] type = set) from a policy file: permits held"
bad() { # bad POLICY-TEXT WANT: the run is refused, exit 2, saying WANT
    pol "$1"
    "$bin" run "$tmp/sem/s.scn" --seed 1 > "$tmp/out" 2>&1
    local rc=$?
    [ "$rc" -eq 2 ] && grep -qF "$2" "$tmp/out" || fail "exit $rc, $(cat "$tmp/out") (wanted: $2)"
}
head='[lock]\nname = p\n[acquire]\ncommand = SET {key} 1 NX\nacquired = OK\nheld = nil\n'
tail='[release]\ncommand = DEL {key}\nreleased = int\n'
bad "$head[wait]\nmode = block\n$tail" "p.lock:8: [wait] mode = block needs its blocking command"
bad "$head[wait]\nmode = block\ncommand = LPOP x\n$tail" "p.lock:9: [wait] command: \"LPOP\" does not block"
bad "$head[wait]\nmode = block\ncommand = BLPOP x {block_s}\nblock = soon\n$tail" "p.lock:10: block wants remaining, wait, lease, wait-or-lease or a duration"
bad "$head[wait]\ncommand = BLPOP x 1\n$tail" "p.lock:8: [wait] command is a blocking wait's: mode = block is missing"
bad '[lock]\nname = p\n[acquire]\ncommand = SET {key} 1 NX\nowner = rep\nacquired = OK\n[release]\ncommand = DEL {key}\nreleased = int\n' \
    "p.lock:5: owner wants reply or reply:N"
bad "$head$tail[observe]\nmembers = free\n" "p.lock:11: [observe] members is a semaphore's: [lock] permits = N is missing"
bad '[lock]\nname = p\npermits = 2\n[acquire]\ncommand = SET {key} 1 NX\nacquired = OK\n[release]\ncommand = DEL {key}\nreleased = int\n[observe]\ntype = set\nmembers = some\n' \
    "p.lock:12: members wants holders or free"
bad "$head[renew]\ncommand = PEXPIRE {key} 1\nrenewed = 1\non-error = maybe\n$tail" "p.lock:10: on-error wants stop or retry"
bad '[lock]\nname = p\npermits = 2\n[acquire]\ncommand = SET {key} 1 NX\nacquired = OK\n[release]\ncommand = DEL {key}\nreleased = int\n' \
    "p.lock:3: a semaphore ([lock] permits) keeps its permits in a zset, a set, a list, a hash or a counter"
echo "ok   semaphores and blocking waits from files: bad permits, observe, wait block, owner and on-error lines are FILE:LINE, exit 2"
