/* shrink.h — the shrinker behind `locksim shrink`: from a run that fails,
 * the smallest scenario that still fails the same way with the same seed.
 * Each step is kept only if a run of the result (written as text and
 * parsed back, exactly what a file of it holds) fails the same way:
 *   a. the nemesis's faults become [faults] lines, [nemesis] goes, and
 *      the run ends 5 s past the first violation (every later candidate
 *      runs only about as long as it must);
 *   b. whole clients, then ddmin (Zeller) over the fault lines;
 *   c. ddmin over the [steps] lines, then whole clients, then threads;
 *      b and c again while they remove anything, each line tried alone;
 *   d. the duration halved while it fails, then cut after the violation;
 *   e. distributions made constant (a..b -> a, exp(m) -> m), all at
 *      once where that fails the same way, else one at a time.
 * Removing anything moves the draws of the PRNG streams, so nothing is
 * assumed: every candidate is run. The seed never changes.
 * Each unlock step of the input is anchored to the lock step it releases
 * (per client, thread, lock and mode, the latest lock not yet released),
 * or, when it releases none (an application retrying a release), to the
 * unlock it repeats: a candidate that drops an anchor drops the steps
 * anchored to it too, so no shrink keeps a release of what was never
 * taken. */
#ifndef LOCKSIM_SHRINK_H
#define LOCKSIM_SHRINK_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine/run.h"

/* How a run fails: the invariant it breaks, or (inv -1) the expectation
 * it misses when it breaks none. */
typedef struct shrink_failure {
    int inv;
    char expect[256];
    int64_t at_us; /* the first violation of inv (-1: none) */
    int64_t from_us; /* when what led to it began, where its checker tells (-1: not told) */
    unsigned cause; /* its CHECK_CAUSE_* bits: a candidate must fail by the same cause */
    unsigned causes; /* the SHRINK_RUN_CAUSES of any violation, and the CHECK_CAUSE_LEASE_RAN_OUT of
                        the first two holders and of the first permits over the count: a candidate
                        must share them */
    unsigned invs; /* every invariant violated (bit i: scn_invariant i) */
    unsigned keep; /* wanted: a candidate fails the same way only if it breaks these too */
} shrink_failure;

/* Causes that mark a whole run, whichever violation told them: a permits
 * count an addPermits resend made wrong is wrong for every later verdict
 * (a first violation of liveness, say, does not make it another bug). */
#define SHRINK_RUN_CAUSES CHECK_CAUSE_ADD_RESENT

/* What a shrink did, step by step (sizes before and after). */
typedef struct shrink_stats {
    int had_nemesis;
    int explicit_ok;          /* a. the explicit faults failed the same way */
    size_t generated, late;   /* a. the nemesis's faults; those after the end */
    size_t faults0, faults_a, faults1; /* fault lines: before, after a., at the end */
    size_t ops0, ops1;        /* step lines */
    int clients0, clients1, threads0, threads1;
    int64_t duration0_us, duration1_us;
    int dists;                /* e. distributions made constant */
    size_t anchored;          /* the input's unlock steps with an anchor */
    unsigned runs;            /* runs of candidates, the first included */
    unsigned refused;         /* candidates the admit callback refused (not run) */
    int abandoned;            /* ended before d.: the failure needs an unwanted line */
} shrink_stats;

typedef struct shrink_result {
    shrink_failure want;  /* how the input fails */
    shrink_failure last;  /* how the last kept candidate failed (same kind; want's keep) */
    scenario out;         /* the shrunk scenario (owned; shrink_result_free) */
    shrink_stats stats;
} shrink_result;

/* 1 when r fails (an invariant violated, or an expectation missed), with
 * how in *f. In order: an invariant expected to hold, a missed
 * expectation, an invariant not judged, one expected to break. */
int shrink_classify(const run_result *r, shrink_failure *f);
/* "mutual-exclusion violated (first at 46.7s)" or "expectation not met:
 * ...". */
void shrink_failure_text(const shrink_failure *f, char *buf, size_t cap);

/* What a candidate must keep besides failing the same way: called with
 * got NULL before cand runs (0 refuses it unrun; the test must then be
 * monotone, a candidate with fewer lines than a refused one refused too,
 * so that ddmin still converges), and with how it failed after a run that
 * failed the same way (0: it does not count as failing the same way). */
typedef int (*shrink_admit_fn)(const scenario *cand, const shrink_failure *got, void *arg);
/* A fault line the caller cannot use (a kind its signature has not): when
 * the rounds of ddmin keep one that starts before the first violation,
 * the shrink ends there (stats.abandoned) without its duration and
 * distribution steps, which would only make the scenario smaller, never
 * what the caller wants. (Earlier is no test: a run without such lines
 * draws its latencies differently, and fewer clients can make one
 * unneeded; stopping after the first ddmin of the faults, or after one
 * run without them all, lost finds the whole shrink made.) */
typedef int (*shrink_line_fn)(const scn_step *line, void *arg);

#define SHRINK_SWARM 1u
#define SHRINK_SAME_INVARIANTS 2u
typedef struct shrink_opts {
    unsigned flags;        /* SHRINK_SWARM, SHRINK_SAME_INVARIANTS */
    unsigned keep;         /* invariants every candidate breaks (bit i: scn_invariant i) */
    shrink_admit_fn admit; /* or NULL: every candidate is run */
    shrink_line_fn unwanted; /* or NULL: no line is */
    void *admit_arg;       /* borrowed for the calls of both */
} shrink_opts;

/* Shrinks s with seed. Returns 1 with *out filled when s fails, 0 when
 * it does not (nothing to shrink; *out holds want and stats only), -1
 * with err set when s cannot run or cannot be written back as text. The
 * shrunk scenario is named after s's name and carries the seed. With
 * swarm testing (s->swarm, or SHRINK_SWARM) the shrinking starts from
 * the scenario the seed draws (every drawn value explicit). A candidate
 * must also break every invariant of o->keep, or with
 * SHRINK_SAME_INVARIANTS and keep 0, every invariant the input breaks (a
 * bug's whole signature is kept), and pass o->admit. A stop signal
 * (pool_stop_signal) ends the shrinking early: what was kept so far is
 * the result. */
int shrink_scenario(const scenario *s, uint64_t seed, const shrink_opts *o, shrink_result *out, scn_error *err);
void shrink_result_free(shrink_result *r);

/* Runs s with seed: 1 when it fails as want does (how in *got). */
int shrink_fails_same(const scenario *s, uint64_t seed, const shrink_failure *want, shrink_failure *got);

/* Fault lines and step lines of s; the highest client number it uses. */
size_t shrink_fault_lines(const scenario *s);
size_t shrink_step_lines(const scenario *s);
int shrink_clients_of(const scenario *s);

#endif /* LOCKSIM_SHRINK_H */
