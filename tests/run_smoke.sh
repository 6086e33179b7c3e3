#!/usr/bin/env bash
# run_smoke.sh BIN — what `make run` shows on a fresh machine: the smoke
# suite (fast scenarios, every invariant expected to hold) on the embedded
# fake, with their summaries, and its report (plots, index.html) in
# out/smoke; the run prints where.
set -u
cd "$(dirname "$0")/.."
bin=${1:-build/locksim}
"$bin" run scenarios/smoke --seed 1 --report out/smoke
