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
    return t->cur_n > 0 ? t->cur_n : 1;
}

static int sem_flags(const cl_proc *p)
{
    return CL_NORESEND | (p->cw->synced ? CL_SYNCED : 0);
}

static void channel_of(const cl_thread *t, int lock, char *buf, size_t cap)
{
    counter_channel("redisson_sc:", counter_key(t, lock), buf, cap);
}

/* One SEM_RELEASE of n permits; done gets the outcome (NULL: nobody waits
 * for it: ROLLBACK-NOSYNC's release). */
static void send_release(cl_thread *t, int lock, int64_t n, proto_done_fn *done)
{
    char channel[192], num[24];
    channel_of(t, lock, channel, sizeof channel);
    sim_fmt_i64(num, n);
    const char *keys[] = {counter_key(t, lock), channel};
    const char *args[] = {num, "publish"};
    if (done) counter_simple_eval(t, lock, "sem_release", keys, 2, args, sem_flags(t->p), done);
    else cl_eval(t->p, counter_node_of(t->p->cw, lock), "sem_release", 2, keys, 2, args, sem_flags(t->p), t->op_seq,
                 NULL, NULL);
}

/* ------------------------------------------------------------- acquire */

typedef enum sem_state { SEM_FIRST, SEM_SUBSCRIBING, SEM_LOOP } sem_state;

typedef struct sem_op {
    cl_thread *t;
    int lock;
    int64_t n;
    counter_wait w;
    proto_done_fn *done;
    sem_state state;
    cl_sub *sub;
    int nosync_retries;
    cl_timer retry;
} sem_op;

static void try_send(sem_op *op);

static void sem_end(sem_op *op, int ok, const char *err)
{
    cl_thread *t = op->t;
    cl_proc *p = t->p;
    cl_timer_cancel(p, &op->retry);
    if (op->sub) cl_sub_release(p, op->sub);
    proto_done_fn *done = op->done;
    cl_free(p, op);
    done(t, ok, 0, err);
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
    cl_proc *p = op->t->p;
    if (counter_value(r) == 1) send_release(op->t, op->lock, op->n, NULL);
    if (!cl_nosync_retry(p, &op->nosync_retries, &op->retry, on_nosync_retry, op))
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
        channel_of(op->t, op->lock, channel, sizeof channel);
        op->state = SEM_SUBSCRIBING;
        int64_t deadline = op->w.wait_ms >= 0 ? SIM_MS(op->w.rem_ms) : SIM_MS(SUBSCRIBE_TIMEOUT_MS);
        op->sub = cl_sub_acquire(p, counter_node_of(p->cw, op->lock), counter_key(op->t, op->lock), channel,
                                 deadline, on_subscribed, op);
        cl_sub_kind(op->sub, CL_SUB_SEMAPHORE);
        return;
    }
    /* No ttl to bound it: a message, or the rest of the wait (or for ever). */
    cl_sub_wait(p, op->sub, counter_wait_us(&op->w), on_wait, op);
}

static void try_send(sem_op *op)
{
    cl_proc *p = op->t->p;
    char num[24];
    sim_fmt_i64(num, op->n);
    const char *keys[] = {counter_key(op->t, op->lock)};
    const char *args[] = {num};
    op->w.mark_ms = cl_now_ms(p);
    cl_eval(p, counter_node_of(p->cw, op->lock), "sem_try_acquire", 1, keys, 1, args, sem_flags(p), op->t->op_seq,
            on_try_reply, op);
}

static void sem_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, proto_done_fn *done)
{
    (void)lease_us; /* no lease: the permits are held until released */
    sem_op *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->n = permits_of(t);
    op->done = done;
    counter_wait_start(&op->w, t->p, wait_us);
    try_send(op);
}

/* ----------------------------------------------------- release, queries */

static void sem_release(cl_thread *t, int lock, proto_done_fn *done)
{
    send_release(t, lock, permits_of(t), done);
}

/* Every query is availablePermits (GET; nil is 0). */
static void sem_query(cl_thread *t, int lock, scn_op what, proto_done_fn *done)
{
    (void)what;
    counter_get(t, lock, done);
}

static void sem_force_unlock(cl_thread *t, int lock, proto_done_fn *done)
{
    (void)lock;
    done(t, 0, 0, "a semaphore has no forceUnlock");
}

/* trySetPermits([protocol] permits) on every semaphore, before the workload. */
static void sem_setup(cl_world *cw)
{
    for (int lock = 0; lock < cw->s->nlocks; lock++) {
        char channel[192], num[24];
        counter_channel("redisson_sc:", cw->s->lock_names[lock], channel, sizeof channel);
        sim_fmt_i64(num, cw->s->init_permits);
        const char *keys[] = {cw->s->lock_names[lock], channel};
        const char *args[] = {num, "publish"};
        counter_setup(cw, lock, "sem_try_set", keys, 2, args, cw->s->init_permits);
    }
}

static const proto_client_defaults sem_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1};

const proto_def proto_semaphore = {
    .name = "redisson.semaphore",
    .summary = "RedissonSemaphore (4.7.x): permits in a string key, acquire(n) waits on redisson_sc:{name}",
    .defaults = &sem_defaults,
    .acquire = sem_acquire,
    .release = sem_release,
    .force_unlock = sem_force_unlock,
    .query = sem_query,
    .observe = counter_observe,
    .node_of = counter_node_of,
    .invariants = PROTO_INV(SCN_INV_PERMITS) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK),
    .options = "[protocol] permits = N (trySetPermits before the workload; default 1); "
               "lock = acquire(n), trylock = tryAcquire(n, wait), unlock = release(n); "
               "n from permits=N on a step or [clients] permits = A..B (default 1)",
    .setup = sem_setup,
};
