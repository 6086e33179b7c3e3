/* scn.h — scenarios: the parsed form of a .scn file (INI, every value with
 * units) and the parser that reports bad input as "path:line: message".
 *
 * A scenario fixes everything but the seed: the Redis topology, the
 * protocol and its settings, the clients' random workload, scripted steps,
 * faults, and what the checkers are expected to find. */
#ifndef LOCKSIM_SCN_H
#define LOCKSIM_SCN_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* ------------------------------------------------------------ values */

typedef enum scn_dist_kind {
    SCN_DIST_CONST,   /* a */
    SCN_DIST_UNIFORM, /* a..b, both included */
    SCN_DIST_EXP      /* exp(a): exponential with mean a */
} scn_dist_kind;

/* A distribution of durations in µs. */
typedef struct scn_dist {
    scn_dist_kind kind;
    int64_t a_us, b_us;
} scn_dist;

/* Draws from d with one choice point named label (integer µs; the
 * exponential is computed in doubles and rounded, identically on every
 * IEEE-754 build). */
int64_t scn_dist_draw(sim_ctx *ctx, const scn_dist *d, const char *label);
/* Writes d as scenario text ("5ms", "1ms..20ms", "exp(50ms)"). */
size_t scn_dist_format(const scn_dist *d, char *buf, size_t cap);
size_t scn_duration_format(int64_t us, char *buf, size_t cap);

/* Probabilities are integer parts per million. */
#define SCN_PPM 1000000

/* ------------------------------------------------------------- steps */

typedef enum scn_op {
    /* client operations (in [steps]) */
    SCN_OP_LOCK,
    SCN_OP_TRYLOCK,
    SCN_OP_UNLOCK,
    SCN_OP_FORCEUNLOCK,
    SCN_OP_ISLOCKED,
    SCN_OP_HELD,      /* isHeldByCurrentThread */
    SCN_OP_HOLDCOUNT, /* getHoldCount */
    /* faults (in [faults] or [steps]) */
    SCN_FAULT_CRASH,
    SCN_FAULT_RESTART,
    SCN_FAULT_PAUSE,
    SCN_OP_COUNT
} scn_op;

/* One timed line of [steps] or [faults]. */
typedef struct scn_step {
    int line;          /* in the scenario file */
    int64_t at_us;     /* true time */
    scn_op op;
    int client;        /* 1-based; 0 when the op has no client */
    int thread;        /* 1-based */
    int lock;          /* index into the scenario's lock names */
    int64_t wait_us;   /* trylock wait; -1 = [protocol] wait */
    int64_t lease_us;  /* -1 = [protocol] lease; SCN_LEASE_WATCHDOG */
    int64_t for_us;    /* pause length */
    int has_wait, has_lease;
} scn_step;

#define SCN_LEASE_WATCHDOG (-1)

/* ------------------------------------------------------- expectations */

typedef enum scn_expect {
    SCN_EXPECT_NONE,     /* not stated: reported, not judged */
    SCN_EXPECT_HELD,
    SCN_EXPECT_VIOLATED,
    SCN_EXPECT_ANY
} scn_expect;

/* The invariants checkers can judge (index = checker id). */
typedef enum scn_invariant {
    SCN_INV_MUTEX,       /* mutual-exclusion */
    SCN_INV_REENTRANCY,  /* reentrancy */
    SCN_INV_LIVENESS,    /* liveness */
    SCN_INV_DEADLOCK,    /* deadlock */
    SCN_INV_COUNT
} scn_invariant;

/* Canonical name of an invariant ("mutual-exclusion", ...). */
const char *scn_invariant_name(scn_invariant inv);

/* ----------------------------------------------------------- scenario */

#define SCN_MAX_LOCKS 16

typedef enum scn_mode { SCN_MODE_LOCK, SCN_MODE_TRYLOCK } scn_mode;

typedef struct scenario {
    char *path;
    char *name;

    /* [scenario] */
    int64_t duration_us;
    uint64_t seed;
    int has_seed;
    int64_t drain_us;          /* after duration: no new ops, in-flight ones end */

    /* [redis] */
    int nodes;
    int replicas;
    scn_dist latency;          /* one way, client <-> node */

    /* [protocol] */
    char *protocol;            /* e.g. "redisson.lock", "redisson.lock@2019" */
    int protocol_line;         /* where it was named, for error messages */
    int64_t lease_us;          /* SCN_LEASE_WATCHDOG = -1 */
    int64_t wait_us;           /* tryLock wait */
    scn_mode mode;
    int64_t watchdog_us;       /* lockWatchdogTimeout */
    int64_t timeout_us;        /* reply timeout */
    int retry_attempts;        /* -1: the version's default */
    int64_t retry_interval_us; /* -1: the version's default policy */
    int64_t poll_us;           /* baselines: retry interval while waiting */
    char *expire_mode;         /* baseline.setnx: none | separate | atomic */
    int renew;                 /* baseline.cad: run the optional renewer */
    char *lock_names[SCN_MAX_LOCKS];
    int nlocks;

    /* [clients] */
    int clients;
    int threads;
    scn_dist hold;
    scn_dist think;
    scn_dist start;            /* first think of each thread */
    int reentry_ppm;
    int reentry_depth;
    int64_t ops_per_thread;    /* 0 = until the duration ends */

    /* [steps] and [faults], in file order */
    scn_step *steps;
    size_t nsteps, steps_cap;

    /* [expect] */
    scn_expect expect[SCN_INV_COUNT];
    int64_t liveness_bound_us;
    int64_t min_acquisitions;
} scenario;

/* Parse outcome: the first error wins; line 0 means "no line". */
typedef struct scn_error {
    char path[512];
    int line;
    char msg[512];
} scn_error;

/* Parses path into *out. Returns 0, or -1 with *err set (nothing
 * allocated survives). */
int scn_load(const char *path, scenario *out, scn_error *err);
/* Parses text as if read from path (tests). */
int scn_load_string(const char *path, const char *text, scenario *out, scn_error *err);
void scn_free(scenario *s);
/* Writes err as "path:line: message". */
void scn_error_print(const scn_error *err);

#endif /* LOCKSIM_SCN_H */
