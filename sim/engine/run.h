/* run.h — one run of a scenario with one seed, on the simulated world:
 * builds the world, the clients and the fault schedule, runs the duration
 * then a bounded drain (no new operations; held locks are released),
 * judges the history with the checkers and fills the result. */
#ifndef LOCKSIM_RUN_H
#define LOCKSIM_RUN_H

#include <stdio.h>

#include "sim/checkers/checkers.h"
#include "sim/history/history.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"

/* What one run of a scenario with one seed did and how it was judged. */
typedef struct run_result {
    const scenario *s;
    uint64_t seed;
    const char *backend;
    int64_t virtual_us;
    double wall_ms;
    long peak_rss_kb;     /* the process's peak resident memory so far */
    uint64_t events, evals, commands;
    uint64_t acquisitions, acquire_failures, op_errors;
    uint64_t trace_hash;
    int trace_reproducible;
    check_result checks;
    int64_t latency_p50_us, latency_p95_us, latency_p99_us, latency_max_us;
    double fairness_jain; /* Jain's index over the threads' acquisitions (0: none) */
    int expectations_met;
    char expectation_failure[256]; /* the first unmet expectation */
    scn_step *generated;           /* the faults the nemesis drew (owned) */
    size_t ngenerated;
    int64_t *acted_us;             /* per fault line, s->steps' then generated's: when it acted (its at,
                                    * but a fail-reply's first spoiled reply, -1 for none); owned */
    int halted;                    /* RUN_HALT_*: the run stopped before its end (0: it did not) */
    int halt_signal;               /* RUN_HALT_SIGNAL: which */
    char halt_why[400];            /* what stopped it, where, and what to do */
    scenario *swarm;               /* swarm: the scenario the seed drew (owned; s is it) */
    char swarm_desc[512];          /* its drawn values, one line ("" without swarm) */
} run_result;

/* Acquire latencies (ok and fail) from h into r. */
void run_latency(const history *h, run_result *r);
/* Jain's fairness index (sum x)^2 / (n sum x^2) over x = the successful
 * acquires of each thread that invoked one: 1 when all got the same, 1/n
 * when one got everything, 0 when no thread acquired. O(events). */
void run_fairness(const history *h, run_result *r);
/* Judges r->checks against the scenario's [expect]. */
void run_expectations(run_result *r);

typedef struct run_opts {
    FILE *trace;        /* every trace line, or NULL */
    int real;           /* the real backend: redis-server processes */
    const char *redis;  /* real: the user's servers "HOST:PORT,..." (NULL: managed) */
    int allow_server_faults; /* real with --redis: faults may act on them */
    int64_t horizon_us;      /* > 0: the run stops there (before the duration) */
    sim_chooser_fn *chooser; /* decides every sim_choose (exploration, replay), or NULL */
    void *chooser_ud;
    int swarm;               /* swarm testing even without [swarm] (--swarm) */
    uint64_t max_events;     /* the event budget (0: the default; RUN_UNLIMITED: none) */
    long max_memory_kb;      /* the memory budget (0: the default; RUN_UNLIMITED: none) */
    int progress;            /* draw the run's progress on stderr (a terminal) */
} run_opts;

/* Budgets: a billion events (minutes of work), and 4 GB or half the
 * machine's memory, whichever is less; RUN_UNLIMITED turns one off. */
#define RUN_MAX_EVENTS_DEFAULT UINT64_C(1000000000)
#define RUN_UNLIMITED ((uint64_t)-1)

/* Why a run ended before its end (run_result.halted). */
#define RUN_HALT_SIGNAL 1
#define RUN_HALT_EVENTS 2
#define RUN_HALT_MEMORY 3

/* Loads path (with the n overrides of scn_load_with) and resolves its
 * protocol: 0, or -1 with every error found in err (scn_error_print),
 * the most specific first; an unknown protocol name is reported with a
 * did-you-mean even when the file has other errors. */
int run_load(const char *path, const scn_override *ov, size_t n, scenario *s, scn_error *err);
/* Makes a loaded s run its protocol with the scripts of folder dir, as
 * [protocol] scripts = dir would (dir absolute, or relative to s->path's
 * folder; to the current directory when s->path has none, as for a
 * scenario read from a string), over any folder s named. Loads and checks
 * the patch: 0, or -1 with err set ("DIR/FILE:LINE: ..." for a script
 * that does not compile) and s unchanged. Every later run, shrink and
 * scn_write of s (and of its copies) carries the patch. */
int run_use_scripts(scenario *s, const char *dir, scn_error *err);

/* The first fault of s the real backend cannot apply with options o, as
 * "file:line: why" in buf (cap bytes); 0 when it can run. */
int run_real_refusal(const scenario *s, const run_opts *o, char *buf, size_t cap);

/* Runs s with seed. The result borrows s; h receives the history (the
 * caller inits and frees it). With swarm testing (s->swarm, or o->swarm)
 * the run is of the scenario the seed draws from s (fault_swarm_draw),
 * which the result owns and names in r->s. Returns 0, or -1 if the
 * scenario names an unknown protocol (the error is in err). */
int run_scenario(const scenario *s, uint64_t seed, const run_opts *o, run_result *out,
                 history *h, scn_error *err);
void run_result_free(run_result *r);

#endif /* LOCKSIM_RUN_H */
