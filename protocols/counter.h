/* counter.h — what the counter objects (RedissonSemaphore, semaphore.c;
 * RedissonCountDownLatch, latch.c) share: a string integer key with no
 * owner, the runtime's trySet before the workload, the store observer, a
 * wait accounted on the client clock, and the decoding of failed replies.
 * Private to protocols/. */
#ifndef LOCKSIM_COUNTER_H
#define LOCKSIM_COUNTER_H

#include "protocols/client/client.h"
#include "protocols/names.h"
#include "protocols/protocol.h"

/* Runs script (a trySetPermits / trySetCount) on lock's master before the
 * workload, as an administrator would, and records HOP_SET with value
 * and the script's answer. */
void counter_setup(cl_world *cw, int lock, const char *script, const char *const *keys,
                   int nargs, const char *const *args, int64_t value);
/* The counter as the master stores it: held = the key exists, count =
 * its value (0 when absent or not an integer), counter = 1. */
void counter_observe(cl_world *cw, int group, int lock, hist_store *out);
int counter_node_of(const cl_world *cw, int lock);
/* The object's key (the scenario's lock name). */
const char *counter_key(const cl_thread *t, int lock);

/* A wait on the client clock: rem_ms left of wait_ms (-1: for ever). */
typedef struct counter_wait {
    int64_t wait_ms, rem_ms, mark_ms;
} counter_wait;

void counter_wait_start(counter_wait *w, cl_proc *p, int64_t wait_us);
/* Charges the time since the last mark; 1 when a bounded wait is used up. */
int counter_wait_charge(counter_wait *w, cl_proc *p);
/* The latch wait to ask for: the remaining time, or -1 (for ever). */
int64_t counter_wait_us(const counter_wait *w);

/* A semaphore's waiting acquire (semaphore.c, expirable.c): put it first
 * in the operation (its cl_op first), set retry and end, and call
 * counter_acq_* from the try's reply. While the try fails it subscribes to
 * redisson_sc:{name} (the process's entry for the name) and waits there
 * for a message, the rest of a bounded wait, or us; each wake-up charges
 * the wait and tries again, or ends the operation once it is used up. */
typedef enum counter_acq_state { COUNTER_FIRST, COUNTER_SUBSCRIBING, COUNTER_LOOP } counter_acq_state;

typedef struct counter_acq {
    cl_op base;          /* its timer: RETRY-NOSYNC's delay; its sub: the channel */
    counter_wait w;
    counter_acq_state state;
    int nosync_retries;
    void (*retry)(struct counter_acq *a);                      /* sends the try again */
    void (*end)(struct counter_acq *a, int ok, const char *err); /* ends the operation */
} counter_acq;

/* Subscribes (the try failed for the first time) with the entry's message
 * policy (CL_SUB_*); the operation goes on when the subscription is
 * confirmed (a try), or ends when it is not in time. */
void counter_acq_subscribe(counter_acq *a, cl_proc *p, int policy);
/* Waits for a message: the blocking API takes `take` latch permits (for
 * at most us; < 0: for ever), the async API takes take_async of them at
 * once if the latch has them and tries again, else waits as a listener. */
void counter_acq_wait(counter_acq *a, cl_proc *p, int64_t take, int64_t take_async, int64_t us);
/* RETRY-NOSYNC: the try again after the retry delay; 0 when the attempts
 * are used up (nothing armed). */
int counter_acq_nosync(counter_acq *a, cl_proc *p);

/* The client settings of release v (PROTO_V) that every object shares:
 * retryAttempts 4 with the jittered delay since 3.48 (3 and 1500 ms
 * before), WAIT for replicas since 3.21.0 (semaphores: issue #4977), its
 * answer acted on since 3.20. counter_current are 4.7's. */
void counter_client_at(int v, cl_defaults *d);
/* How a semaphore message runs async listeners at release v (cl_sub_policy
 * bits: CL_SUB_TAKERS, CL_SUB_RUN_ALL or none). */
int counter_msg_policy(int v);
extern const cl_defaults counter_current;

/* The exception a failed command raises (NULL: a usable reply). */
const char *counter_failure(const sim_reply *r, cl_err err);
/* An integer or integer-string reply; nil (and anything else) is 0. */
int64_t counter_value(const sim_reply *r);

/* One operation that is one script with keys {key, channel}: done gets
 * ok and the reply's value, or the failure. */
void counter_simple_eval(cl_thread *t, int lock, const char *script, const char *const *keys, int nargs,
                         const char *const *args, int flags, cl_done_fn *done);
/* GET of the object's key (availablePermits, getCount; nil is 0). */
void counter_get(cl_thread *t, int lock, cl_done_fn *done);

#endif /* LOCKSIM_COUNTER_H */
