/* conform.h — conformance of the fake node against a real redis-server: a
 * seeded random sequence of commands and scripts (every command the fake
 * implements, wrong types, missing keys, edge values, wrong arities, the
 * protocol scripts) is run on both, and the replies must be equal. */
#ifndef LOCKSIM_CONFORM_H
#define LOCKSIM_CONFORM_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"

typedef struct conform_opts {
    const char *host;
    int port;
    uint64_t ops;
    uint64_t seed;
    int verbose;
    int all_scripts; /* also the scripts added after the baseline (--all-scripts) */
} conform_opts;

/* Runs the comparison. Returns 0 when every reply matched, 1 at the first
 * divergence (printed with seed, step, command and both replies), 2 when
 * the server cannot be reached. */
int conform_run(const conform_opts *o);

/* ------------------------------------------------------ the generator */

#define CONFORM_MAX_ARGS 24

/* Where an operation is sent. */
typedef enum conform_target {
    CONFORM_MAIN,   /* the main connection: a reply */
    CONFORM_SUB,    /* the subscriber connection: pushes or a reply */
    CONFORM_SLEEP,  /* no command: wait sleep_ms of wall time */
    CONFORM_BLOCKER,/* a blocker connection (conn): a blocking command, answered now or later */
    CONFORM_SETTLE  /* no command: the blockers still waiting time out, their replies compared */
} conform_target;

#define CONFORM_BLOCKERS 3

/* How replies are compared. */
#define CONFORM_CMP_TIME 1      /* integers >= 1000 may differ by 50 (ms) */
#define CONFORM_CMP_TIME_SEC 2  /* integers >= 50 may differ by 1 (s) */
#define CONFORM_CMP_SET 4       /* top-level array compared as a multiset */
#define CONFORM_CMP_PAIRS 8     /* ... of field/value pairs */
#define CONFORM_CMP_PROBE 16    /* integers within [0, 25] are equal (ms) */

typedef struct conform_op {
    conform_target target;
    int argc;
    char *argv[CONFORM_MAX_ARGS];
    size_t lens[CONFORM_MAX_ARGS];
    int cmp;
    int sleep_ms;
    int conn;           /* CONFORM_BLOCKER: which blocker connection */
    const char *family; /* coverage label: command name or script name */
} conform_op;

typedef struct conform_gen conform_gen;

/* all_scripts: also draw the scripts added after the conformance baseline
 * (off: a seed gives the stream it always gave). */
conform_gen *conform_gen_new(uint64_t seed, int all_scripts);
void conform_gen_free(conform_gen *g);
/* Fills op with the next operation (op owns its strings: conform_op_clear
 * frees them). sub_subscribed tells whether the subscriber connection is
 * in subscribe mode. */
void conform_gen_next(conform_gen *g, conform_op *op, int sub_subscribed);
void conform_op_clear(conform_op *op);
/* Writes the operation as a readable command line. */
size_t conform_op_format(const conform_op *op, char *buf, size_t cap);

#endif /* LOCKSIM_CONFORM_H */
