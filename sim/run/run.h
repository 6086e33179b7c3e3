/* run.h — one run of a scenario with one seed, on the simulated world:
 * builds the world, the clients and the fault schedule, runs the duration
 * then a bounded drain (no new operations; held locks are released),
 * judges the history with the checkers and fills the result. */
#ifndef LOCKSIM_RUN_H
#define LOCKSIM_RUN_H

#include <stdio.h>

#include "reports/report.h"
#include "scn/scn.h"

typedef struct run_opts {
    FILE *trace;        /* every trace line, or NULL */
    int real;           /* the real backend: redis-server processes */
    const char *redis;  /* real: the user's servers "HOST:PORT,..." (NULL: managed) */
    int allow_server_faults; /* real with --redis: faults may act on them */
    int64_t horizon_us;      /* > 0: the run stops there (before the duration) */
    sim_chooser_fn *chooser; /* decides every sim_choose (exploration, replay), or NULL */
    void *chooser_ud;
} run_opts;

/* The first fault of s the real backend cannot apply with options o, as
 * "file:line: why" in buf (cap bytes); 0 when it can run. */
int run_real_refusal(const scenario *s, const run_opts *o, char *buf, size_t cap);

/* Runs s with seed. The result borrows s; h receives the history (the
 * caller inits and frees it). Returns 0, or -1 if the scenario names an
 * unknown protocol (the error is in err). */
int run_scenario(const scenario *s, uint64_t seed, const run_opts *o, run_result *out,
                 history *h, scn_error *err);
void run_result_free(run_result *r);

#endif /* LOCKSIM_RUN_H */
