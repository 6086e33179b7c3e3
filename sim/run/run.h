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
} run_opts;

/* Runs s with seed. The result borrows s; h receives the history (the
 * caller inits and frees it). Returns 0, or -1 if the scenario names an
 * unknown protocol (the error is in err). */
int run_scenario(const scenario *s, uint64_t seed, const run_opts *o, run_result *out,
                 history *h, scn_error *err);
void run_result_free(run_result *r);

#endif /* LOCKSIM_RUN_H */
