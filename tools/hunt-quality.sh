#!/usr/bin/env bash
# hunt-quality.sh BUILD [PRECISION_SEEDS] [RECALL_SEEDS] — what `make
# hunt-quality` prints: how far a hunt can be trusted.
#  - Precision: `hunt X --seeds 1..N --json` within X's contract, for the
#    locks we call correct (the current Redisson ones, each correct bundled
#    policy, the Redis-counted reentrant hash lock of scenarios/own-lock):
#    how many seeds failed and the signatures they shrink to. Each one left
#    is a real bug (with its witness in out/hunt-quality/X/) or a checker
#    to fix.
#  - Recall: `hunt BUGGY --against FIXED --want BUG` for each known bug with
#    a fixed version (tools/known-bug-fixes.txt, but the pairs whose fix
#    does not remove the signature): the seed at which the differential
#    hunt first finds the bug's signature where the fixed version holds the
#    same seed, and the size it shrinks to.
#  - Open recall (QUALITY_ONLY=recall-open, not run by default): the same
#    pairs hunted WITHOUT --want, as a user hunts: `hunt BUGGY --against
#    FIXED --beyond-contract --json` over growing chunks of the seeds
#    (250, 500, 1000, then 2000 each up to RECALL_SEEDS' end, each chunk
#    hunted whole, then shrunk), stopping at the first chunk where a
#    signature is the known bug's, or once RECALL_BOX seconds (300) have
#    gone (checked between chunks: an interrupted hunt shrinks nothing;
#    RECALL_SHRINKS, 20, caps a chunk's shrinks). The known bug's signature is what `hunt --want` prints on its first line; a
#    differential signature names only what FIXED held, so it matches when
#    its invariants are some of the known bug's and FIXED broke the rest on
#    the shrunk file (as --want lets the fixed version break a part of the
#    signature), none of them one the bug holds, its waiter shape the same
#    and its fault kinds the same. Always beyond the contract: the known
#    bugs need faults a contract may exclude, and --want hunts beyond it
#    too.
# Lines go to stdout and to out/hunt-quality/summary.txt; each hunt's output
# to out/hunt-quality/logs/. QUALITY_ONLY=precision|recall|recall-open runs
# one part; QUALITY_TARGETS / QUALITY_BUGS name the rows to run
# (space-separated), QUALITY_JOBS the hunts' --jobs (nproc).
# Long (hours at the default seeds): a make target, not part of make test.
set -u
build=${1:-build}
pseeds=${2:-1..2000}
rseeds=${3:-1..10000}
bin="$build/locksim"
cd "$(dirname "$0")/.."
out=out/hunt-quality
mkdir -p "$out/logs"
jobs=${QUALITY_JOBS:-$(nproc 2> /dev/null || echo 2)}
summary="$out/summary.txt"
: > "$summary"
say() { printf '%s\n' "$*" | tee -a "$summary"; }

correct="redisson.lock redisson.fairlock redisson.rwlock redisson.semaphore redisson.expirable-semaphore
redisson.latch redisson.spinlock redisson.fencedlock redis-py node-redlock redsync spring-lockregistry
spring-lockregistry-pubsub python-redis-lock redis-semaphore redis-semaphore-multi redis-semaphore-mutex ruby-redis-semaphore
scenarios/own-lock/distlock.lock scenarios/own-lock/hashlock/hashlock.lock"
targets=${QUALITY_TARGETS:-$correct}

if [ "${QUALITY_ONLY:-precision}" = precision ]; then
    say "precision: hunt X --seeds $pseeds within X's contract ($(date -u +%F))"
    for t in $targets; do
        [ -e "$t" ] || [ "${t#*/}" = "$t" ] || continue # a policy file this tree does not have
        name=$(basename "$t" .lock)
        t0=$(date +%s)
        "$bin" hunt "$t" --seeds "$pseeds" --jobs "$jobs" --json --max-shrinks 30 --no-progress \
            --out "$out/$name" > "$out/logs/precision-$name.json" 2> "$out/logs/precision-$name.err"
        secs=$(($(date +%s) - t0))
        python3 - "$out/logs/precision-$name.json" "$t" "$secs" <<'PY' | tee -a "$summary"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
if not rows or not rows[-1].get("summary"):
    print("  %-34s the hunt did not finish (see its log)" % sys.argv[2]); sys.exit(0)
s, sigs = rows[-1], rows[:-1]
within = [r for r in sigs if r["class"] == "within-contract"]
print("  %-34s %5d runs, %4d failed (%.1f%%), %4d within the contract, %2d within-contract signature%s%s, %d run signature%s not shrunk (%s s)" % (
    sys.argv[2], s["runs"], s["failed"], 100.0 * s["failed"] / max(s["runs"], 1), s["failed_within"], len(within),
    "" if len(within) == 1 else "s", ": " + "; ".join("%s (%d, first %d)" % (r["signature"], r["seeds"], r["first_seed"]) for r in within) if within else "",
    s["not_shrunk"], "" if s["not_shrunk"] == 1 else "s", sys.argv[3]))
PY
    done
fi

# known_pairs: "bug fixed file buggy" for each known bug with a fixed
# version (tools/known-bug-fixes.txt, but the shared ones), of
# QUALITY_BUGS when set; buggy is the protocol its scenario pins.
known_pairs() {
    grep -v '^#' tools/known-bug-fixes.txt | while read -r bug fixed shared; do
        [ -n "$bug" ] && [ -z "$shared" ] || continue
        case " ${QUALITY_BUGS:-$bug} " in *" $bug "*) ;; *) continue ;; esac
        f=scenarios/known-bugs/$bug.scn
        buggy=$("$bin" replay "$f" --print-scenario | awk '/^\[protocol\]/{p=1; next} /^\[/{p=0} p && $1 == "name" {print $3; exit}')
        echo "$bug $fixed $f $buggy"
    done
}

if [ "${QUALITY_ONLY:-recall}" = recall ]; then
    say "recall: hunt BUGGY --against FIXED --want BUG --seeds $rseeds (every fault drawn, as --want does)"
    known_pairs | while read -r bug fixed f buggy; do
        t0=$(date +%s)
        "$bin" hunt "$buggy" --against "$fixed" --want "$f" --seeds "$rseeds" --jobs "$jobs" --no-progress \
            --out "$out/recall" > "$out/logs/recall-$bug.txt" 2>&1
        secs=$(($(date +%s) - t0))
        found=$(sed -n 's/^found at seed \([0-9]*\),.*/\1/p' "$out/logs/recall-$bug.txt")
        size=$(grep -o 'shrunk: [^/]*events' "$out/logs/recall-$bug.txt" | head -1)
        if [ -n "$found" ]; then
            say "$(printf '  %-44s %-32s found at seed %-6s %s (%s s)' "$bug" "--against $fixed" "$found" "$size" "$secs")"
        else
            say "$(printf '  %-44s %-32s NOT found in %s (%s s)' "$bug" "--against $fixed" "$rseeds" "$secs")"
        fi
    done
fi

if [ "${QUALITY_ONLY:-}" = recall-open ]; then
    box=${RECALL_BOX:-300}
    say "open recall: hunt BUGGY --against FIXED --beyond-contract --seeds $rseeds in chunks, no --want (box $box s a bug)"
    known_pairs | while read -r bug fixed f buggy; do
        log="$out/logs/recall-open-$bug"
        # The known bug's signature: the first line of a --want hunt of one seed.
        want=$("$bin" hunt "$buggy" --against "$fixed" --want "$f" --seeds 1..1 --jobs 1 --no-progress \
            --out "$out/recall-open" 2> /dev/null | sed -n 's/^hunt .* for [^:]*: \(.*\) (it shrinks to .*/\1/p')
        first=${rseeds%..*} last=${rseeds#*..} chunk=250 t0=$(date +%s) result=""
        : > "$log.json"
        while [ "$first" -le "$last" ] && [ -z "$result" ] && [ $(($(date +%s) - t0)) -lt "$box" ]; do
            end=$((first + chunk - 1))
            [ "$end" -gt "$last" ] && end=$last
            timeout -s INT $((box + 600)) "$bin" hunt "$buggy" --against "$fixed" --beyond-contract --seeds "$first..$end" \
                --jobs "$jobs" --json --max-shrinks "${RECALL_SHRINKS:-20}" --no-progress --out "$out/recall-open" \
                > "$log.part" 2>> "$log.err"
            cat "$log.part" >> "$log.json"
            result=$(python3 - "$log.part" "$want" <<'PY'
import json, re, sys
def parse(text):
    """(invariants, waiter shape, fault kinds, held) of a signature text."""
    held = set()
    m = re.search(r", with (\S+) held$", text)
    if m: held, text = set(m.group(1).split("+")), text[:m.start()]
    left, _, right = text.partition(" after ")
    if left.endswith(" (no fault)"): left = left[:-len(" (no fault)")]
    invs, _, shape = left.partition(" ")
    return set(invs.split("+")), shape, set(right.split("+")) if right else set(), held
want = parse(sys.argv[2])
for line in open(sys.argv[1]):
    r = json.loads(line) if line.strip() else {}
    if not r.get("signature") or not r.get("shrunk"): continue
    invs, shape, kinds, _ = parse(r["signature"])
    fixed_broke = set(r.get("reference", {}).get("broke", []))
    if invs and invs <= want[0] and want[0] <= invs | fixed_broke and not invs & want[3] and shape == want[1] and \
            kinds == want[2]:
        z, us = r["shrunk_size"], r["shrunk_size"]["duration_us"]
        d = "%dm" % (us // 60000000) if us % 60000000 == 0 else "%gs" % (us / 1e6) if us >= 1000000 else "%gms" % (us / 1e3)
        print("%d %s: %d client%s, %d fault%s, %d step%s, %s, %d events" % (r["first_seed"], r["signature"],
              z["clients"], "" if z["clients"] == 1 else "s", z["faults"], "" if z["faults"] == 1 else "s", z["steps"],
              "" if z["steps"] == 1 else "s", d, z["events"]))
        break
PY
)
            reached=$end first=$((end + 1)) chunk=$((chunk < 2000 ? chunk * 2 : chunk))
        done
        secs=$(($(date +%s) - t0))
        if [ -n "$result" ]; then
            say "$(printf '  %-44s %-32s found at seed %-6s %s (%s s; wanted: %s)' "$bug" "--against $fixed" "${result%% *}" "${result#* }" "$secs" "$want")"
        else
            say "$(printf '  %-44s %-32s NOT found in %s..%s (%s s; wanted: %s)' "$bug" "--against $fixed" "${rseeds%..*}" "${reached:-?}" "$secs" "$want")"
        fi
    done
fi
