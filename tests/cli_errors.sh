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
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\n[steps]\nat = 1s c1 addpermits permits=2\n' > "$tmp/semstep.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.spinlock\n[steps]\nat = 0s c1 lock\nat = 1s c1.t2 lock api=async\n' > "$tmp/async.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.semaphore\n[steps]\nat = 1s c1 updatelease lease=5s\n' > "$tmp/lease.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.semaphore\n[steps]\nat = 1s c1 addpermits permits=0\n' > "$tmp/addzero.scn"
expect typo "$tmp/typo.scn:5: unknown key 'leese' in [protocol] (did you mean lease?)" -- run "$tmp/typo.scn"
# Every error of a file, the most specific first, names with a did-you-mean:
# a protocol typo is not hidden behind "nothing to run".
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lok\n' > "$tmp/hidden.scn"
expect hidden-typo "$tmp/hidden.scn:4: unknown protocol 'redisson.lok' (did you mean redisson.lock?)" -- run "$tmp/hidden.scn"
grep -q "nothing to run" "$tmp/err" || { echo "FAIL hidden-typo: the second error is not reported"; fail=1; }
printf '[scenario]\nduration = 10s\n[protocl]\nname = redisson.lock\n[clients]\ncont = 3\nmembers = 3\n[nemesis]\nkinds = pause, crahs\n[steps]\nat = 1s c1 lok\n' > "$tmp/many.scn"
expect many-typos "$tmp/many.scn:4: unknown section [protocl] (did you mean [protocol]?)" -- run "$tmp/many.scn"
for want in "many.scn:6: unknown key 'cont' in [clients] (did you mean count?)" \
            "many.scn:7: unknown key 'members' in [clients] (it is a key of [protocol])" \
            "many.scn:9: unknown nemesis kind \"crahs\" (did you mean crash?)" \
            "many.scn:11: unknown operation \"lok\" (did you mean lock?)"; do
    grep -qF -- "$want" "$tmp/err" || { echo "FAIL many-typos: no \"$want\" in $(cat "$tmp/err")"; fail=1; }
done
expect protocol "$tmp/proto.scn:4: unknown protocol 'redisson.lokc' (did you mean redisson.lock?)" -- run "$tmp/proto.scn"
expect fault "$tmp/fault.scn:4: unknown fault \"meteor\"" -- run "$tmp/fault.scn"
expect version "$tmp/version.scn:4: '9.9' is not a release of redisson.lock" -- run "$tmp/version.scn"
expect permits "$tmp/permits.scn:6: 'permits' is a count from 1" -- run "$tmp/permits.scn"
expect binary "$tmp/binary.scn:" -- run "$tmp/binary.scn"
expect semstep "$tmp/semstep.scn:6: 'addpermits' is not an operation of redisson.lock" -- run "$tmp/semstep.scn"
expect async "$tmp/async.scn:7: 'lock' has no async API (api=async) in redisson.spinlock (the async API is in redisson.lock, redisson.fencedlock, redisson.fairlock" -- run "$tmp/async.scn"
expect updatelease "$tmp/lease.scn:6: 'updatelease' is not an operation of redisson.semaphore" -- run "$tmp/lease.scn"
expect addzero "$tmp/addzero.scn:6: permits must be an integer from -2147483647, not 0," -- run "$tmp/addzero.scn"
expect missing "no-such.scn" -- run "$tmp/no-such.scn"
expect seeds "--seeds wants A..B" -- run "$tmp/typo.scn" --seeds 5..2
expect option "unknown or incomplete option" -- run --frobnicate
expect backend "--backend is fake or redis" -- run "$tmp/typo.scn" --backend mongo
expect servers "need --allow-server-faults" -- run "$(dirname "$0")/../scenarios/real/server-crash-restart.scn" --backend redis --redis 127.0.0.1:1
expect redisspec "--redis goes with --backend redis" -- run "$tmp/typo.scn" --redis 127.0.0.1:1
expect command "unknown command" -- frobnicate
expect checkdepth "--depth wants an integer" -- check "$tmp/typo.scn" --depth many
expect checkfile "$tmp/typo.scn:5: unknown key 'leese'" -- check "$tmp/typo.scn"
expect choices "--choices wants values separated by '.'" -- run "$tmp/typo.scn" --choices 1.x.3
expect replaytypo "$tmp/typo.scn:5: unknown key 'leese'" -- replay "$tmp/typo.scn" --seed 1
expect replayaround "--around wants a time" -- replay "$tmp/typo.scn" --around soon
expect shrinkout "-o FILE is required" -- shrink "$tmp/typo.scn" --seed 1
expect shrinktypo "$tmp/typo.scn:5: unknown key 'leese'" -- shrink "$tmp/typo.scn" --seed 1 -o "$tmp/out.scn"
# A good scenario after a bad one: nothing runs (checked before running).
cp "$(dirname "$0")/../scenarios/smoke/contended.scn" "$tmp/a-good.scn"
expect half "$tmp/typo.scn:5:" -- run "$tmp/a-good.scn" "$tmp/typo.scn"
# Sweeps: --jobs, --shard and the shard variables, merge's input.
good="$(dirname "$0")/../scenarios/smoke/contended.scn"
expect jobs "--jobs wants a count from 1 to 256" -- run "$good" --jobs 0
expect jobsword "--jobs wants a count" -- run "$good" --jobs many
expect jobstrace "use it with --jobs 1" -- run "$good" --jobs 2 --trace "$tmp/t"
expect jobsredis "--jobs 2 with --redis" -- run "$good" --backend redis --redis 127.0.0.1:1 --jobs 2
expect shard "--shard wants I/N with 1 <= I <= N (got \"4/3\")" -- run "$good" --shard 4/3
expect shardzero "--shard wants I/N" -- run "$good" --shard 0/3
expect shardword "--shard wants I/N" -- run "$good" --shard half
LOCKSIM_SHARD=1/0 expect envshard "LOCKSIM_SHARD wants I/N" -- run "$good"
JOB_COMPLETION_INDEX=1 expect k8scount "LOCKSIM_SHARDS (the number of shards) is not" -- run "$good"
JOB_COMPLETION_INDEX=3 LOCKSIM_SHARDS=3 expect k8sindex "JOB_COMPLETION_INDEX=3 is not below LOCKSIM_SHARDS=3" -- run "$good"
SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=2 expect slurm "SLURM_ARRAY_TASK_ID must be an index from 0" -- run "$good"
printf '{"scenario":"a.scn","seed":1,"expectations_met":true,"trace_hash":"0","invariants":{}}\nnot json\n' > "$tmp/bad.json"
printf '{"scenario":"a.scn","seed":"1","expectations_met":true,"trace_hash":"0","invariants":{}}\n' > "$tmp/field.json"
expect mergejson "$tmp/bad.json:2: not JSON" -- merge "$tmp/bad.json"
expect mergefield "$tmp/field.json:1: not a locksim run result: \"seed\"" -- merge "$tmp/field.json"
head -1 "$tmp/bad.json" > "$tmp/one.json"
expect mergedup "$tmp/bad.json:1: a.scn seed 1 (fake) is already at $tmp/one.json:1" -- merge "$tmp/one.json" "$tmp/bad.json"
expect mergemissing "no-such.json" -- merge "$tmp/no-such.json"
expect mergenone "locksim merge: no file given" -- merge
# Lock policy files: the policy's or the script's own file and line.
mkdir -p "$tmp/locks"
printf '[scenario]\nduration = 10s\n[protocol]\nname = locks/mine.lock\n[clients]\ncount = 1\n' > "$tmp/mine.scn"
printf '[lock]\nname = mine\n[acquire]\ncommand = SET {key} {owner} NX PX {lease_ms}\nacquired = OK\nheld = nul\n' > "$tmp/locks/mine.lock"
expect policy-pattern "$tmp/locks/mine.lock:6: \"nul\" is not a reply pattern" -- run "$tmp/mine.scn"
printf '[lock]\nname = mine\n[acquire]\nscript = get.lua\nacquired = 1\n[release]\ncommand = DEL {key}\nreleased = any\n' > "$tmp/locks/mine.lock"
printf -- '-- acquire\nif redis.call("get", KEYS[1]) = ARGV[1] then\nend\n' > "$tmp/locks/get.lua"
expect policy-script "$tmp/locks/get.lua:2: the script does not compile" -- run "$tmp/mine.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = locks/none.lock\n[clients]\ncount = 1\n' > "$tmp/none.scn"
expect policy-missing "locks/none.lock: cannot open the lock policy file" -- run "$tmp/none.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = node-redlock\n[clients]\ncount = 1\n' > "$tmp/masters.scn"
expect policy-masters "$tmp/masters.scn:4: node-redlock@5.0.0-beta.2 takes 3 independent masters: give [redis] nodes = 3" -- run "$tmp/masters.scn"
expect protocols-dir "no-such-dir: cannot open the folder of lock policies" -- --protocols "$tmp/no-such-dir" list
expect protocols-missing "locksim: --protocols wants a folder" -- list --protocols
# The lock's contract and the differential hunt.
printf '[lock]\nname = mine\n[acquire]\ncommand = SET {key} {owner} NX PX {lease_ms}\nacquired = OK\nheld = nil\n[release]\ncommand = DEL {key}\nreleased = any\n[contract]\nsurvives = crash, pasue\n' > "$tmp/locks/mine.lock"
expect contract-kind "$tmp/locks/mine.lock:11: survives: \"pasue\" is not a fault kind (did you mean pause?)" -- run "$tmp/mine.scn"
expect hunt-against-unknown "locksim hunt: --against: unknown protocol 'redisson.lok' (did you mean redisson.lock?)" -- hunt redisson.lock --against redisson.lok --seeds 1..2
expect hunt-against-kind "--against: redisson.semaphore is a semaphore, redisson.lock is a lock: a hunt compares two of a kind" -- hunt redisson.semaphore --against redisson.lock --seeds 1..2
# A patch of a protocol's scripts ([protocol] scripts, --scripts, locksim scripts).
mkdir -p "$tmp/patch"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\nscripts = patch\n[clients]\ncount = 1\n' > "$tmp/patched.scn"
printf 'return 1\n' > "$tmp/patch/lock_unlok.lua"
expect scripts-unknown "$tmp/patched.scn:5: [protocol] scripts: $tmp/patch/lock_unlok.lua is no script of redisson.lock (did you mean" -- run "$tmp/patched.scn"
rm "$tmp/patch/lock_unlok.lua"
printf -- '-- unlock\nif redis.call("get", KEYS[1]) = ARGV[1] then\nend\n' > "$tmp/patch/lock_unlock.lua"
expect scripts-compile "$tmp/patch/lock_unlock.lua:2: the script does not compile" -- run "$tmp/patched.scn"
expect scripts-compile-flag "$tmp/patch/lock_unlock.lua:2: the script does not compile" -- replay "$good" --scripts "$tmp/patch"
expect scripts-no-folder "locksim: --scripts $tmp/no-such-dir: no such folder" -- run "$good" --scripts "$tmp/no-such-dir"
expect scripts-missing "locksim: --scripts wants one folder" -- run "$good" --scripts
expect scripts-not-here "locksim: --scripts is an option of run, replay, shrink, check, sweep and hunt" -- list --scripts "$tmp/patch"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\nscripts =\n[clients]\ncount = 1\n' > "$tmp/empty.scn"
expect scripts-empty "$tmp/empty.scn:5: 'scripts' wants a folder" -- run "$tmp/empty.scn"
printf '[scenario]\nduration = 10s\n[protocol]\nname = redis-py\nscripts = patch\n[clients]\ncount = 1\n' > "$tmp/policy-patched.scn"
expect scripts-policy "$tmp/policy-patched.scn:5: [protocol] scripts: redis-py@5.0 is a lock policy" -- run "$tmp/policy-patched.scn"
expect scripts-cmd-unknown "locksim scripts: unknown protocol 'redisson.lokc' (did you mean redisson.lock?)" -- scripts redisson.lokc "$tmp/out"
expect scripts-cmd-release "locksim scripts: '2.0' is not a release of redisson.lock" -- scripts redisson.lock@2.0 "$tmp/out"
expect scripts-cmd-none "locksim scripts: baseline.setnx runs no Lua script" -- scripts baseline.setnx "$tmp/out"
expect scripts-cmd-usage "locksim scripts: which folder? (DIR)" -- scripts redisson.lock
expect scripts-cmd-exists "$tmp/patch/lock_unlock.lua exists (--force writes over it)" -- scripts redisson.lock "$tmp/patch"
expect help-unknown "locksim help: unknown command 'runn' (did you mean run?)" -- help runn

# Help on every command: the commands `locksim help` lists, each with
# COMMAND --help, COMMAND -h and help COMMAND: its usage on stdout, exit 0.
"$bin" help > "$tmp/help" && grep -q '^usage: locksim <command>' "$tmp/help" || { echo "FAIL help: locksim help"; fail=1; }
cmds=$(sed -n 's/^  \([a-z]*\) .*/\1/p' "$tmp/help" | sort -u)
[ "$(echo "$cmds" | wc -w)" -ge 12 ] || { echo "FAIL help: only $(echo $cmds) listed"; fail=1; }
for c in $cmds; do
    for how in "$c --help" "$c -h" "help $c"; do
        out=$("$bin" $how 2> "$tmp/err"); code=$?
        if [ $code != 0 ] || ! echo "$out" | grep -q "^usage: locksim $c\b" || [ -s "$tmp/err" ]; then
            echo "FAIL help: locksim $how: exit $code, $(echo "$out" | head -1) $(cat "$tmp/err")"; fail=1
        fi
    done
done
"$bin" run --seeds 1..2 --help > /dev/null 2>&1 || { echo "FAIL help: --help after other options"; fail=1; }
[ $fail = 0 ] && echo "ok   help: $(echo $cmds | wc -w) commands, each with --help, -h and help COMMAND"
exit $fail
