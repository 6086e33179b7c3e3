#!/usr/bin/env bash
# reports.sh BIN [OUT] — what `--report`, `--junit`, `--tap` and `locksim sweep`
# write, checked as a user would look at it: every known-bugs scenario gets
# its holders timeline (violations marked), latency and throughput plots,
# rendered by gnuplot; index.html loads in headless Chromium with every
# image and the violations section; JUnit parses as XML and TAP with Perl's
# TAP::Parser, the same from run and from merge; without gnuplot the data
# and scripts are written and render.sh draws them; the contention sweep
# draws the reentrant, fair and spin locks on one chart, the same with
# --jobs 1 and 2; the progress bar shows on a terminal and nowhere else;
# bad output paths are refused before anything runs; a short hunt's page
# (`hunt --report`) has each signature's shrunk scenario and timeline and
# loads in Chromium. The known-bugs report (with the browser's screenshot)
# is kept in OUT when given, the hunt's page in OUT/hunt.
set -u
bin=$(realpath "${1:-build/locksim}")
keep=${2:-}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locksim-reports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "reports: FAIL: $*"; exit 1; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 5000 ]; }

# 1. The known bugs: a folder per scenario with its pictures, index.html.
kb=$tmp/kb
"$bin" run scenarios/known-bugs --seed 1 --report "$kb" --junit "$tmp/kb.xml" --jobs 2 > "$tmp/kb.txt" 2> "$tmp/kb.err" ||
    { cat "$tmp/kb.err"; fail "run --report exited $?"; }
grep -q warning "$tmp/kb.err" && { cat "$tmp/kb.err"; fail "gnuplot warnings"; }
grep -q "^report: $kb/index.html" "$tmp/kb.err" || fail "run --report does not say where the report is"
"$bin" run scenarios/known-bugs --seed 1 --json > "$tmp/kb.json" || fail "run --json exited $?"
n=$(ls scenarios/known-bugs/*.scn | wc -l)
[ "$(ls -d "$kb"/runs/*/ | wc -l)" = "$n" ] || fail "$(ls -d "$kb"/runs/*/ | wc -l) run folders for $n scenarios"
pngs=0
for d in "$kb"/runs/*/; do
    for gp in "$d"*.gp; do
        stem=${gp%.gp}
        for f in "$stem.dat" "$stem.png" "$stem.svg"; do [ -s "$f" ] || fail "$f is missing or empty"; done
        is_png "$stem.png" || fail "$stem.png is not a PNG picture"
        grep -q '</svg>' "$stem.svg" || fail "$stem.svg is not a whole SVG"
        pngs=$((pngs + 1))
    done
    ls "$d"holders-*.png > /dev/null 2>&1 || fail "no holders timeline in $d"
    [ -s "$d"latency.png ] && [ -s "$d"throughput.png ] || fail "no latency or throughput plot in $d"
done
# Each violation is marked on its holders timeline: a red cross per thread it names.
python3 - "$kb" "$tmp/kb.json" <<'PY' || fail "violations are not all marked on the holders timelines"
import glob, json, os, sys
kb, runs = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
folders = sorted(glob.glob(os.path.join(kb, "runs", "*")))
for run, folder in zip(runs, folders):
    marks = 0
    for dat in glob.glob(os.path.join(folder, "holders-*.dat")):
        block = None
        for line in open(dat):
            if line.startswith("# "): block = line[2:].strip()
            elif line.strip() and block == "violation": marks += 1
    if run["violations"] and marks == 0:
        sys.exit("%s: %d violations, none marked" % (run["scenario"], len(run["violations"])))
    if run["violations"]:
        gp = open(glob.glob(os.path.join(folder, "holders-*.gp"))[0]).read()
        if "#e41a1c" not in gp: sys.exit("%s: no red violation line" % run["scenario"])
PY
nv=$(python3 -c 'import json,sys; print(sum(len(json.loads(l)["violations"]) for l in open(sys.argv[1])))' "$tmp/kb.json")
[ "$(grep -c 'class="violation"' "$kb/index.html")" = "$nv" ] || fail "index.html explains $(grep -c 'class="violation"' "$kb/index.html") violations, the runs had $nv"
grep -q 'Faults active at that moment: pause client=c1 for=40s' "$kb/index.html" || fail "the pause is not named at its violation"
grep -q 'They held it together from 30.002s to 46.000s' "$kb/index.html" || fail "the overlap of pause-outlives-lease is not explained"
[ -s "$kb/cdf.png" ] || fail "no latency CDF across protocols"
ls -d "$tmp"/*.tmp-* "$tmp"/*.old-* 2>/dev/null | grep -q . && fail "temporary files left: $(ls -d "$tmp"/*.tmp-* "$tmp"/*.old-*)"
find "$kb" -name gnuplot.log | grep -q . && fail "gnuplot logs left"
echo "ok   known-bugs --report: $n run folders, $pngs pictures (PNG + SVG + script + data), $nv violations explained, latency CDF"

# 2. The page in a real browser.
python3 tests/browser_report.py "$kb" --expect-violations --min-images "$((pngs + 1))" --screenshot "$kb/screenshot.png" ||
    fail "the report does not pass in headless Chromium"
is_png "$kb/screenshot.png" || fail "no screenshot"

# 3. JUnit and TAP, from run and from merge, read by real parsers.
cp scenarios/known-bugs/pause-outlives-lease.scn "$tmp/wrong.scn"
sed -i 's/^mutual-exclusion = violated/mutual-exclusion = held/' "$tmp/wrong.scn"
"$bin" run scenarios/smoke "$tmp/wrong.scn" --seeds 1..2 --junit "$tmp/ci.xml" --json > "$tmp/ci.json"
[ $? = 1 ] || fail "a run with a missed expectation must exit 1"
"$bin" run scenarios/smoke "$tmp/wrong.scn" --seeds 1..2 --tap > "$tmp/ci.tap"
[ $? = 1 ] || fail "--tap with a missed expectation must exit 1"
python3 - "$tmp/ci.xml" "$tmp/ci.json" <<'PY' || fail "JUnit"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
runs = [json.loads(l) for l in open(sys.argv[2])]
cases = root.findall("./testsuite/testcase")
assert root.tag == "testsuites" and int(root.get("tests")) == len(runs) == len(cases), (root.get("tests"), len(runs))
bad = [r for r in runs if not r["expectations_met"]]
assert int(root.get("failures")) == len(bad) == 2
for run, case in zip(runs, cases):
    out = case.find("system-out").text
    assert out.startswith("locksim replay %s --seed %d" % (run["scenario"], run["seed"])), out
    f = case.find("failure")
    assert (f is None) == run["expectations_met"]
    if f is not None:
        assert f.get("message") == run["expectation_failure"], (f.get("message"), run["expectation_failure"])
        assert "--around violation" in out
print("ok   JUnit: %d testcases in %d testsuites, %d failures whose message is the first unmet expectation"
      % (len(cases), len(root.findall("testsuite")), len(bad)))
PY
perl -MTAP::Parser -e '
    my $p = TAP::Parser->new({source => $ARGV[0]});
    while (my $r = $p->next) { die "unparsed TAP line: " . $r->as_string . "\n" if $r->is_unknown; }
    die "TAP: plan " . ($p->plan // "none") . ", " . $p->tests_run . " tests\n" unless $p->is_good_plan;
    die "TAP: " . scalar($p->failed) . " failed, expected 2\n" unless scalar($p->failed) == 2;
    print "ok   TAP: ", $p->tests_run, " tests, plan ", $p->plan, ", ", scalar($p->failed), " not ok (TAP::Parser)\n";
' "$tmp/ci.tap" || fail "TAP"
grep -q "^  message: \"mutual-exclusion expected held, was violated\"" "$tmp/ci.tap" || fail "TAP failure without its message"
"$bin" merge "$tmp/ci.json" --junit "$tmp/merged.xml" --tap > "$tmp/merged.tap"
[ $? = 1 ] || fail "merge of a failing sweep must exit 1"
strip_time() { sed -E 's/ time="[0-9.]+"//g' "$1"; }
cmp -s <(strip_time "$tmp/ci.xml") <(strip_time "$tmp/merged.xml") || fail "merge --junit differs from run --junit"
cmp -s <(grep -v '^#' "$tmp/ci.tap") <(grep -v '^#' "$tmp/merged.tap") || fail "merge --tap differs from run --tap"
echo "ok   merge --junit / --tap write what run writes"

# 4. Without gnuplot: data and scripts, a message saying how to render.
env PATH=/nonexistent "$bin" run scenarios/known-bugs/pause-outlives-lease.scn --report "$tmp/nognu" > /dev/null 2> "$tmp/nognu.err" ||
    fail "a run without gnuplot exited $?"
grep -q "gnuplot is not installed" "$tmp/nognu.err" && grep -q "render.sh" "$tmp/nognu.err" ||
    fail "no word on how to render: $(cat "$tmp/nognu.err")"
d=$(ls -d "$tmp"/nognu/runs/*/)
ls "$d"*.png > /dev/null 2>&1 && fail "pictures without gnuplot?"
[ -s "$d/holders-lock.gp" ] && [ -s "$d/holders-lock.dat" ] || fail "no scripts and data without gnuplot"
sh "$tmp/nognu/render.sh" || fail "render.sh exited $?"
is_png "$d/holders-lock.png" && is_png "$d/latency.png" || fail "render.sh drew nothing"
echo "ok   without gnuplot: scripts and data written, the run says how to render; render.sh draws them"

# 5. Contention sweep: three locks on one chart, --jobs 1 = --jobs 2.
sw=(scenarios/contention/lock.scn --clients 1,4,16 --protocol redisson.lock,redisson.fairlock,redisson.spinlock --seeds 1..2)
"$bin" sweep "${sw[@]}" --json --jobs 2 --report "$tmp/sweep" > "$tmp/sw2.json" 2> "$tmp/sw.err" || fail "sweep exited $?"
"$bin" sweep "${sw[@]}" --json > "$tmp/sw1.json" || fail "sweep --jobs 1 exited $?"
# Wall-clock figures (wall_ms_per_run, us_per_event) measure the machine, not the runs.
untimed() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l); d.pop("wall_ms_per_run"); d.pop("us_per_event"); print(json.dumps(d, sort_keys=True))' "$1"; }
cmp -s <(untimed "$tmp/sw1.json") <(untimed "$tmp/sw2.json") || fail "sweep --jobs 2 differs from --jobs 1"
[ "$(wc -l < "$tmp/sw1.json")" = 9 ] || fail "$(wc -l < "$tmp/sw1.json") points, want 3 series x 3 values"
is_png "$tmp/sweep/contention.png" || fail "no contention chart"
[ "$(grep -c '^# redisson' "$tmp/sweep/contention.dat")" = 3 ] || fail "the chart does not have the three locks"
python3 - "$tmp/sw1.json" <<'PY' || fail "contention figures"
import json, sys
p = {(d["series"], d["value"]): d for d in map(json.loads, open(sys.argv[1]))}
fair, lock, spin = (p[(s, "16")] for s in ("redisson.fairlock", "redisson.lock", "redisson.spinlock"))
# The reentrant lock wakes every waiter at each unlock: its evals per
# acquisition grow with the clients; the fair lock wakes only the head.
assert lock["evals_per_acquisition"] > 2 * fair["evals_per_acquisition"], (lock, fair)
assert fair["fairness_jain"] > 0.99 and spin["fairness_jain"] < fair["fairness_jain"], (fair, spin)
assert all(d["runs"] == 2 and d["met"] == 2 and d["acquisitions_per_s"] > 0 for d in p.values())
print("ok   sweep: 3 locks x 3 client counts x 2 seeds; at 16 clients evals/acq lock %.1f, fair %.1f; "
      "Jain fair %.3f, spin %.3f" % (lock["evals_per_acquisition"], fair["evals_per_acquisition"],
                                      fair["fairness_jain"], spin["fairness_jain"]))
PY
"$bin" sweep scenarios/contention/lock.scn --hold 1ms,5ms --seeds 1 > "$tmp/hold.txt" || fail "sweep of a duration key exited $?"
grep -q "^redisson.lock *5ms" "$tmp/hold.txt" || fail "sweep --hold: $(cat "$tmp/hold.txt")"

# 6. The progress bar: on a terminal, and nowhere else.
script -qefc "$bin run scenarios/smoke --seeds 1..3 --jobs 2" /dev/null > "$tmp/tty.txt" 2>&1 || fail "run on a terminal exited $?"
smoke_runs=$(( $(ls scenarios/smoke/*.scn | wc -l) * 3 ))
grep -q "\[#*\.*\] [0-9]*/$smoke_runs runs, 0 failed, [0-9.]* seeds/s, ETA" "$tmp/tty.txt" || fail "no progress bar on a terminal"
script -qefc "$bin sweep scenarios/contention/lock.scn --clients 1,2 --seeds 1" /dev/null > "$tmp/tty2.txt" 2>&1
grep -q '/2 runs, 0 failed' "$tmp/tty2.txt" || fail "no progress bar in sweep on a terminal"
"$bin" run scenarios/smoke --seeds 1..3 > "$tmp/file.txt" 2>&1
grep -q 'seeds/s' "$tmp/file.txt" && fail "progress written to a file"
script -qefc "$bin run scenarios/smoke --seeds 1..3 > $tmp/piped.txt" /dev/null > "$tmp/tty3.txt" 2>&1
grep -q 'seeds/s' "$tmp/tty3.txt" "$tmp/piped.txt" && fail "progress drawn while stdout is not a terminal"
echo "ok   progress bar on a terminal (run and sweep); none in files or when stdout is redirected"

# 7. Bad output paths: refused before anything runs, nothing half written.
mkdir -p "$tmp/mine" && echo keep > "$tmp/mine/notes.txt"
"$bin" run scenarios/smoke --report "$tmp/mine" > /dev/null 2> "$tmp/e1"; rc=$?
[ $rc = 2 ] && grep -q "is not a locksim report" "$tmp/e1" && [ "$(cat "$tmp/mine/notes.txt")" = keep ] ||
    fail "--report onto a user's folder: exit $rc, $(cat "$tmp/e1")"
echo a file > "$tmp/afile"
"$bin" run scenarios/smoke --junit "$tmp/afile/x.xml" > /dev/null 2> "$tmp/e2"; rc=$?
[ $rc = 2 ] && grep -q "cannot write $tmp/afile/x.xml" "$tmp/e2" || fail "--junit to a bad path: exit $rc"
"$bin" run scenarios/smoke/cad-renewer.scn --junit "$tmp/new/dir/x.xml" > /dev/null 2>&1 && [ -s "$tmp/new/dir/x.xml" ] ||
    fail "--junit does not make its folder"
"$bin" run scenarios/smoke --tap --json > /dev/null 2>&1; [ $? = 2 ] || fail "--tap with --json must exit 2"
"$bin" sweep scenarios/contention/lock.scn --nosuchkey 1,2 > /dev/null 2> "$tmp/e3"; rc=$?
[ $rc = 2 ] && grep -q 'no scenario key "nosuchkey"' "$tmp/e3" || fail "sweep --nosuchkey: exit $rc"
"$bin" sweep scenarios/contention/lock.scn --clients 1,x > /dev/null 2> "$tmp/e4"; rc=$?
[ $rc = 2 ] && grep -q "clients.count = x: 'count' must be an integer" "$tmp/e4" || fail "sweep --clients 1,x: exit $rc: $(cat "$tmp/e4")"
"$bin" sweep scenarios/contention/lock.scn --clients 1 --hold 1ms > /dev/null 2>&1; [ $? = 2 ] || fail "two swept keys must exit 2"
"$bin" sweep scenarios/contention/lock.scn --clients 1 --protocol redisson.nosuch > /dev/null 2> "$tmp/e5"; rc=$?
[ $rc = 2 ] || fail "sweep with an unknown protocol: exit $rc"
"$bin" run scenarios/smoke --seed 1 --report "$kb" > /dev/null 2>&1 || fail "a report replaces an earlier report"
[ -e "$kb/runs/00001-cad-renewer-s1/run.html" ] && [ ! -e "$kb/runs/00032-spinlock-pause-outlives-lease-s1" ] ||
    fail "the earlier report was not replaced whole"
echo "ok   bad output paths refused (exit 2, user folders untouched); an earlier report is replaced whole"
# 8. The hunt's page (`hunt --report`): a short hunt's page has a section per
# signature it printed, each with its shrunk scenario copied beside the
# holders timeline gnuplot drew of it; it loads in headless Chromium; a
# folder that is not a report is refused before the hunt runs. (The
# reference timeline of --against: unit test hunt_page_orders_and_pairs.)
rep=$tmp/hunt
"$bin" hunt redisson.lock@3.10 --seeds 1..40 --max-shrinks 2 --jobs 2 --out "$tmp/out" --report "$rep" \
    > "$tmp/hunt.txt" 2> "$tmp/hunt.err"
rc=$?
[ $rc = 1 ] || { cat "$tmp/hunt.txt" "$tmp/hunt.err"; fail "hunt --report exited $rc, want 1 (failures found)"; }
grep -q "^report: $rep/index.html$" "$tmp/hunt.txt" || fail "the hunt does not say where the report is"
mapfile -t files < <(grep -o '[^ ]*\.scn$' "$tmp/hunt.txt")
[ "${#files[@]}" -ge 1 ] || fail "the hunt shrank nothing: $(cat "$tmp/hunt.txt")"
[ "$(grep -c '<section class="run" id="sig-' "$rep/index.html")" = "${#files[@]}" ] ||
    fail "$(grep -c '<section class="run" id="sig-' "$rep/index.html") sections for ${#files[@]} signatures"
for i in "${!files[@]}"; do
    f=${files[$i]}
    d=$rep/$(printf 'sig-%02d' $((i + 1)))
    sig=$(grep -F "$f" "$tmp/hunt.txt" | sed -E 's/^  (.*[^ ]) +[0-9]+ seeds? +\(first.*/\1/')
    grep -qF ">$((i + 1)). $sig</h2>" "$rep/index.html" || fail "no section for signature $((i + 1)) ($sig)"
    cmp -s "$f" "$d/$(basename "$f")" || fail "$d does not hold a copy of $f"
    grep -qF "href=\"$(basename "$d")/$(basename "$f")\"" "$rep/index.html" || fail "no link to $d/$(basename "$f")"
    is_png "$d/holders-lock.png" || fail "no holders timeline in $d"
    grep -q '^# violation' "$d/holders-lock.dat" && [ "$(sed -n '/^# violation/,$p' "$d/holders-lock.dat" | grep -c '^[0-9]')" -ge 1 ] ||
        fail "$d: the violation is not marked on the timeline"
done
ls -d "$tmp"/*.tmp-* 2>/dev/null | grep -q . && fail "temporary folders left: $(ls -d "$tmp"/*.tmp-*)"
echo "ok   hunt --report: ${#files[@]} signatures, each with its shrunk scenario and its holders timeline"

# The page in a real browser.
python3 tests/browser_report.py "$rep" --min-images "${#files[@]}" --expect-sections within,beyond,sig-1 \
    --screenshot "$rep/screenshot.png" || fail "the hunt's page does not pass in headless Chromium"
is_png "$rep/screenshot.png" || fail "no screenshot"

# Refusals, before the hunt runs.
mkdir -p "$tmp/mine" && echo keep > "$tmp/mine/notes.txt"
"$bin" hunt redisson.lock@3.10 --seeds 1..40 --out "$tmp/out2" --report "$tmp/mine" > /dev/null 2> "$tmp/e1"; rc=$?
[ $rc = 2 ] && grep -q "is not a locksim report" "$tmp/e1" && [ "$(cat "$tmp/mine/notes.txt")" = keep ] &&
    [ ! -e "$tmp/out2" ] || fail "--report onto a user's folder: exit $rc, $(cat "$tmp/e1")"
"$bin" hunt redisson.lock --want scenarios/known-bugs/pause-outlives-lease.scn --report "$tmp/w" > /dev/null 2> "$tmp/e2"; rc=$?
[ $rc = 2 ] && grep -q -- "--report is for a hunt without --want" "$tmp/e2" || fail "--report with --want: exit $rc"
echo "ok   hunt --report refuses a user's folder before the hunt, and --want"
if [ -n "$keep" ]; then
    "$bin" run scenarios/known-bugs --seed 1 --report "$keep" --jobs 2 > /dev/null 2>&1 || fail "report into $keep"
    python3 tests/browser_report.py "$keep" --expect-violations > /dev/null || fail "the kept report in the browser"
    cp -r "$rep" "$keep/hunt" || fail "cannot keep the hunt's page in $keep/hunt"
    echo "ok   kept: $keep/index.html, screenshot $keep/screenshot.png; the hunt's page in $keep/hunt"
fi
echo "reports: all passed"
