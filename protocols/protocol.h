/* protocol.h — the lock protocols and the client side of a run: the
 * protocol table (`locksim list`), the bundled server scripts, and the
 * client world that runs virtual Redisson processes against the world's
 * nodes, drives their workload and scripted steps, applies client faults
 * and records the history. */
#ifndef LOCKSIM_PROTOCOL_H
#define LOCKSIM_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/history/history.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"
#include "sim/world/world.h"

/* ----------------------------------------------------------- scripts */

/* One bundled script: name is its file name without ".lua". */
typedef struct proto_script_text {
    const char *name;
    const char *text;
    size_t len;
    char sha[41]; /* SHA-1 of text in hex, as EVALSHA names it (computed by the build) */
} proto_script_text;

/* Generated from protocols/lua by tools/embed.c; NULL-terminated. */
extern const proto_script_text proto_script_texts[];
extern const size_t proto_script_text_count;

/* The bundled script named name, or NULL. O(number of scripts). */
const proto_script_text *proto_script_find(const char *name);

/* --------------------------------------------------------- protocols */

typedef struct cl_world cl_world;
typedef struct cl_proc cl_proc;
typedef struct cl_thread cl_thread;

/* How an operation ended: ok (acquired / released / answered), value (the
 * hold depth after it, or a query's answer), err (a static reason). */
typedef void proto_done_fn(cl_thread *t, int ok, int64_t value, const char *err);

/* The lock as one node stores it. */
typedef struct proto_store {
    int held;
    char owner[64];    /* the holder's lock name, "<id>:<thread>" */
    int64_t count;     /* its hold count */
    int64_t expire_ms; /* node-clock deadline, -1 none */
    int64_t expire_true_us; /* if not 0: the true time it is gone (spans groups) */
    int mode;          /* read/write lock: SCN_RW_READ / SCN_RW_WRITE (0: none) */
    int counter;       /* a counter object (semaphore, latch): no owner; count
                          is its value, held whether its key exists */
} proto_store;

/* One waiter of a fair lock's queue: its lock name (len bytes, borrowed). */
typedef void proto_queue_fn(void *ud, const char *lname, size_t len);

/* Redisson settings that differ by version (PROTOCOLS.md 0.8, 0.9). */
typedef struct proto_client_defaults {
    int watchdog_gen;   /* 1: per-lock timer; 2: batched */
    int retry_attempts;
    int jitter;         /* 1: EqualJitter(1000, 2000); 0: fixed 1500 ms */
    int synced;         /* lock scripts pipelined with WAIT (3.12.5+) */
    int nosync_unchecked; /* WAIT's answer is not acted on (before 3.20) */
} proto_client_defaults;

typedef struct proto_def {
    const char *name;
    const char *summary;
    const void *cfg;          /* the protocol's own settings (version) */
    const proto_client_defaults *defaults;
    void (*proc_init)(cl_proc *p);
    void (*proc_free)(cl_proc *p);
    /* wait_us < 0: lock() (waits for ever); >= 0: tryLock(wait). */
    void (*acquire)(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us,
                    proto_done_fn *done);
    void (*release)(cl_thread *t, int lock, proto_done_fn *done);
    void (*force_unlock)(cl_thread *t, int lock, proto_done_fn *done);
    void (*query)(cl_thread *t, int lock, scn_op what, proto_done_fn *done);
    /* Reads lock from its group's master's store (no side effects). */
    void (*observe)(cl_world *cw, int group, int lock, proto_store *out);
    /* Called once when the client world is made (may add keys). */
    void (*world_init)(cl_world *cw);
    /* The node group holding lock (single-group protocols: 0; -1: the
     * lock spans groups). */
    int (*node_of)(const cl_world *cw, int lock);
    /* The fencing token of t's hold of lock, or 0 (NULL: no tokens). */
    int64_t (*token)(cl_thread *t, int lock);
    /* Fair locks: calls fn for each lock name in lock's wait queue on its
     * group's master, head first, without side effects (NULL: no queue).
     * The observer records queue changes as HOP_QUEUED / HOP_DEQUEUED. */
    void (*queue)(cl_world *cw, int group, int lock, proto_queue_fn *fn, void *ud);
    /* The checkers that apply (bits 1 << SCN_INV_*; 0: the lock family's
     * mutual-exclusion, reentrancy, liveness, deadlock, fencing). */
    unsigned invariants;
    /* Its [protocol] / [clients] options, for `locksim list` (NULL: none
     * beyond the common ones). */
    const char *options;
    /* The Redisson releases "name@X.Y[.Z]" may pin (NULL: only the name
     * itself), e.g. "3.11 .. 4.7"; a release gets that version's settings
     * of the lock family (PROTOCOLS.md §0.9). */
    const char *versions;
    int min_version;    /* the oldest release it exists in (major*10000+minor*100+patch) */
    /* The store's hold count for lock name lname "<id>:<t>" (NULL: the
     * observed owner's count when lname owns it, else 0). */
    int64_t (*store_count)(cl_world *cw, int group, int lock, const char *lname);
    /* Runs once before the workload (the store's initial state, recorded
     * in the history), or NULL. */
    void (*setup)(cl_world *cw);
    /* The one operation a random-workload thread runs after each think
     * (NULL: the lock cycle: acquire, hold, release). */
    scn_op (*random_op)(cl_thread *t);
} proto_def;

#define PROTO_INV(i) (1u << (i))
#define PROTO_INV_LOCK                                                                         \
    (PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_REENTRANCY) | PROTO_INV(SCN_INV_LIVENESS) | \
     PROTO_INV(SCN_INV_DEADLOCK) | PROTO_INV(SCN_INV_FENCING))
/* The checkers that apply to p. */
unsigned proto_invariants(const proto_def *p);

/* The protocol named name (with version, e.g. "redisson.lock@2019"), or
 * NULL. */
const proto_def *proto_find(const char *name);
/* Why proto_find(name) found nothing, as one sentence in buf. */
const char *proto_unknown_reason(const char *name, char *buf, size_t cap);
/* All protocols, NULL-terminated, for `locksim list`. */
extern const proto_def *const proto_all[];

/* --------------------------------------------------- the client world */

/* Creates the clients of scenario s on world w with protocol p; their
 * events start when cl_world_start() schedules them. h receives the
 * history. Borrowed: w, s, p, h. */
cl_world *cl_world_new(world *w, const scenario *s, const proto_def *p, history *h);
void cl_world_free(cl_world *cw);
/* Schedules every thread's workload and scripted steps. */
void cl_world_start(cl_world *cw);
/* The duration is over: threads finish what they are doing, start nothing
 * new, and release what they hold. */
void cl_world_stop(cl_world *cw);
/* Client faults (client is 1-based). */
void cl_crash(cl_world *cw, int client);
void cl_restart(cl_world *cw, int client);
void cl_pause(cl_world *cw, int client, int64_t for_us);
/* Every connection of the client drops; it reconnects and resubscribes. */
void cl_disconnect(cl_world *cw, int client);
/* The clock of client's machine (it outlives its processes). */
sim_clock *cl_clock(cl_world *cw, int client);
int cl_world_clients(const cl_world *cw);
/* Threads in the middle of an operation. */
int cl_world_busy(const cl_world *cw);
/* Threads that believe they hold a lock. */
int cl_world_holding(const cl_world *cw);
/* Counters of the run so far. */
void cl_world_counts(const cl_world *cw, uint64_t *acquisitions, uint64_t *failures,
                     uint64_t *errors);
/* Records the store's view of every lock (after a fault changed it). */
void cl_world_observe_all(cl_world *cw);
/* Records in the history that a fault (its scenario line) was applied. */
void cl_world_fault(cl_world *cw, const char *line);

#endif /* LOCKSIM_PROTOCOL_H */
