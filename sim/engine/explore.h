/* explore.h — systematic exploration of a scenario's choices (locksim
 * check) and exact replay of one path (a choice string).
 *
 * Every decision the simulator makes goes through sim_choose (message
 * latencies, think and hold times, jitters, whether a probabilistic fault
 * fires). The explorer re-runs the scenario from the start once per path,
 * depth first: the first `depth` choice points of a run branch, each over
 * at most `branch` values spread evenly over its range (the smallest, the
 * largest, ...); later points take the seeded default, as a plain run
 * would. libfiu decisions ("fiu ..." points) fire on value 0; at most
 * `faults` of them may fire on a path. A path is written as its choice
 * string: every value chosen, in order, separated by '.', which replays
 * the run exactly (locksim run --choices). */
#ifndef LOCKSIM_EXPLORE_H
#define LOCKSIM_EXPLORE_H

#include <stdint.h>
#include <stdio.h>

#include "sim/engine/run.h"

typedef struct explore_opts {
    int depth;            /* branching choice points per path */
    int branch;           /* values tried per point (>= 2) */
    int faults;           /* fault firings allowed per path (-1: any) */
    uint64_t max_runs;    /* stop after this many executions (0: no limit) */
    double max_seconds;   /* stop after this long (0: no limit) */
    int stop_at_first;    /* stop at the first failing path */
    int64_t horizon_us;   /* > 0: each run stops there (virtual time) */
} explore_opts;

typedef struct explore_result {
    uint64_t runs;         /* executions */
    uint64_t points;       /* choice points met, over all executions */
    uint64_t states;       /* distinct states visited: choice points not on a
                              prefix an earlier execution already ran (the
                              run is a function of its choices so far) */
    uint64_t outcomes;     /* distinct end states (trace hashes) */
    uint64_t failures;     /* executions that failed the scenario's expectations */
    int complete;          /* every path within the bounds was run */
    double seconds;
    char *counterexample;  /* the first failing path's choice string (owned), or NULL */
    char failure[256];     /* what failed on it */
    uint64_t ce_hash;      /* its trace hash */
} explore_result;

/* Explores s with seed (the seed gives the defaults beyond the depth).
 * progress, when not NULL, gets a line now and then. Returns 0, or -1 with
 * err set (an unknown protocol). */
int explore_run(const scenario *s, uint64_t seed, const explore_opts *o, explore_result *out, FILE *progress,
                scn_error *err);
void explore_result_free(explore_result *r);

/* A chooser that replays choice string str (run_opts.chooser / ud); past
 * its end, choices fall back to the seeded default. */
typedef struct explore_replay {
    uint64_t *v;
    size_t n, pos;
    uint64_t mismatches; /* a value out of a point's range (a string for another scenario) */
} explore_replay;

/* Parses "3.0.799.1"; -1 on a malformed string. */
int explore_replay_parse(explore_replay *r, const char *str);
void explore_replay_free(explore_replay *r);
uint64_t explore_replay_choose(void *ud, sim_ctx *ctx, uint64_t n, const char *label);

#endif /* LOCKSIM_EXPLORE_H */
