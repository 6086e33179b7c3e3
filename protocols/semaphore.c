/* semaphore.c — RedissonSemaphore, client side (PROTOCOLS.md §6), current
 * version: tryAcquire(n) is one SEM_TRY_ACQUIRE; acquire(n) and
 * tryAcquire(n, wait) retry on the semaphore channel's messages (each
 * adds min(waiting references, new count) permits to the entry's latch)
 * with the wait accounted on the client clock, acquire(n) waiting on the
 * latch for ever; release(n) is one SEM_RELEASE, which anyone may call.
 * Scripts go SYNCED + NR; an acquire that no replica acknowledged is
 * rolled back (release n) and run again (ROLLBACK-NOSYNC, RETRY-NOSYNC).
 *
 * The lock operations map onto it: lock = acquire(n), trylock =
 * tryAcquire(n, wait), unlock = release(n), with n = the operation's
 * permits (1 when not given). The runtime sets [protocol] permits with
 * trySetPermits before the workload. There is no owner and no lease: a
 * crashed holder's permits never come back. */
#include <stdio.h>
#include <string.h>

#include "protocols/counter.h"

#define SUBSCRIBE_TIMEOUT_MS 7500 /* subscriptionTimeout */

static int64_t permits_of(const cl_thread *t)
{
    return cl_thread_permits(t) > 0 ? cl_thread_permits(t) : 1;
}

static int sem_flags(const cl_proc *p)
{
    return cl_lock_flags(p, CL_NORESEND);
}

static void channel_of(const cl_thread *t, int lock, char *buf, size_t cap)
{
    proto_brace_name("redisson_sc:", counter_key(t, lock), buf, cap);
}

/* One SEM_RELEASE of n permits; done gets the outcome (NULL: nobody waits
 * for it: ROLLBACK-NOSYNC's release). */
static void send_release(cl_thread *t, int lock, int64_t n, cl_done_fn *done)
{
    char channel[192], num[24];
    channel_of(t, lock, channel, sizeof channel);
    sim_fmt_i64(num, n);
    const char *keys[] = {counter_key(t, lock), channel};
    const char *args[] = {num, "publish"};
    if (done) counter_simple_eval(t, lock, "sem_release", keys, 2, args, sem_flags(cl_thread_proc(t)), done);
    else {
        cl_world *cw = cl_proc_world(cl_thread_proc(t));
        cl_eval(cl_thread_proc(t), counter_node_of(cw, lock), cl_script_of(cw, "sem_release"), 2, keys, 2, args,
                sem_flags(cl_thread_proc(t)), cl_thread_op(t), NULL, NULL);
    }
}

/* ------------------------------------------------------------- acquire */

typedef enum sem_state { SEM_FIRST, SEM_SUBSCRIBING, SEM_LOOP } sem_state;

typedef struct sem_op {
    cl_op base;        /* its timer: RETRY-NOSYNC's delay; its sub: the channel */
    int64_t n;
    counter_wait w;
    sem_state state;
    int nosync_retries;
} sem_op;

static void try_send(sem_op *op);

static void sem_end(sem_op *op, int ok, const char *err)
{
    cl_op_end(op, ok, 0, err);
}

static void on_wait(cl_proc *p, void *ud, int got)
{
    (void)got;
    sem_op *op = ud;
    if (counter_wait_charge(&op->w, p)) {
        sem_end(op, 0, NULL);
        return;
    }
    try_send(op);
}

static void on_subscribed(cl_proc *p, void *ud, int ok)
{
    sem_op *op = ud;
    if (!ok) {
        if (op->w.wait_ms >= 0) sem_end(op, 0, NULL);
        else sem_end(op, 0, "RedisTimeoutException: subscribe timeout (7500 ms)");
        return;
    }
    op->state = SEM_LOOP;
    if (counter_wait_charge(&op->w, p)) {
        sem_end(op, 0, NULL);
        return;
    }
    try_send(op);
}

static void on_nosync_retry(cl_proc *p, void *arg)
{
    (void)p;
    try_send(arg);
}

/* The acquire ran on the master but no replica acknowledged it: give the
 * permits back if it took them, then run it again, or fail once the
 * attempts are used up. */
static void sem_nosync(sem_op *op, const sim_reply *r)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    if (counter_value(r) == 1) send_release(op->base.t, op->base.lock, op->n, NULL);
    if (!cl_nosync_retry(p, &op->nosync_retries, &op->base.timer, on_nosync_retry, op))
        sem_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the acquire");
}

static void on_try_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    sem_op *op = ud;
    if (err == CL_ERR_NOSYNC) {
        sem_nosync(op, r);
        return;
    }
    const char *fail = counter_failure(r, err);
    if (fail) {
        sem_end(op, 0, fail); /* NR: the permits may have been taken */
        return;
    }
    if (counter_value(r) == 1) {
        sem_end(op, 1, NULL);
        return;
    }
    if (op->w.wait_ms == 0 || counter_wait_charge(&op->w, p)) {
        sem_end(op, 0, NULL);
        return;
    }
    if (op->state == SEM_FIRST) {
        char channel[192];
        channel_of(op->base.t, op->base.lock, channel, sizeof channel);
        op->state = SEM_SUBSCRIBING;
        int64_t deadline = op->w.wait_ms >= 0 ? SIM_MS(op->w.rem_ms) : SIM_MS(SUBSCRIBE_TIMEOUT_MS);
        op->base.sub = cl_sub_acquire(p, counter_node_of(cl_proc_world(p), op->base.lock), counter_key(op->base.t, op->base.lock), channel,
                                 deadline, on_subscribed, op);
        cl_sub_kind(op->base.sub, CL_SUB_SEMAPHORE);
        return;
    }
    /* No ttl to bound it: a message, or the rest of the wait (or for ever). */
    cl_sub_wait(p, op->base.sub, counter_wait_us(&op->w), on_wait, op);
}

static void try_send(sem_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    char num[24];
    sim_fmt_i64(num, op->n);
    const char *keys[] = {counter_key(op->base.t, op->base.lock)};
    const char *args[] = {num};
    op->w.mark_ms = cl_now_ms(p);
    cl_eval(p, counter_node_of(cl_proc_world(p), op->base.lock), cl_script_of(cl_proc_world(p), "sem_try_acquire"), 1, keys, 1, args, sem_flags(p), cl_thread_op(op->base.t),
            on_try_reply, op);
}

static void sem_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    (void)lease_us; /* no lease: the permits are held until released */
    sem_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->n = permits_of(t);
    counter_wait_start(&op->w, cl_thread_proc(t), wait_us);
    try_send(op);
}

/* ----------------------------------------------------- release, queries */

static void sem_release(cl_thread *t, int lock, cl_done_fn *done)
{
    send_release(t, lock, permits_of(t), done);
}

/* Every query is availablePermits (GET; nil is 0). */
static void sem_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    (void)what;
    counter_get(t, lock, done);
}

static void sem_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    (void)lock;
    done(t, 0, 0, "a semaphore has no forceUnlock");
}

/* trySetPermits([protocol] permits) on every semaphore, before the workload. */
static void sem_setup(cl_world *cw)
{
    for (int lock = 0; lock < cl_world_scenario(cw)->nlocks; lock++) {
        char channel[192], num[24];
        proto_brace_name("redisson_sc:", cl_world_scenario(cw)->lock_names[lock], channel, sizeof channel);
        sim_fmt_i64(num, cl_world_scenario(cw)->init_permits);
        const char *keys[] = {cl_world_scenario(cw)->lock_names[lock], channel};
        const char *args[] = {num, "publish"};
        counter_setup(cw, lock, "sem_try_set", keys, 2, args, cl_world_scenario(cw)->init_permits);
    }
}

static const cl_defaults sem_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1};

const proto_def proto_semaphore = {
    .name = "redisson.semaphore",
    .summary = "RedissonSemaphore (4.7.x): permits in a string key, acquire(n) waits on redisson_sc:{name}",
    .options = "[protocol] permits = N (trySetPermits before the workload; default 1); "
               "lock = acquire(n), trylock = tryAcquire(n, wait), unlock = release(n); "
               "n from permits=N on a step or [clients] permits = A..B (default 1)",
    .impl = {
        .defaults = &sem_defaults,
        .script = proto_script_find,
        .acquire = sem_acquire,
        .release = sem_release,
        .force_unlock = sem_force_unlock,
        .query = sem_query,
        .observe = counter_observe,
        .node_of = counter_node_of,
        .invariants = PROTO_INV(SCN_INV_PERMITS) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK),
        .setup = sem_setup,
    },
};
