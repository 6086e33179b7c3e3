/* spinlock.c — RedissonSpinLock (PROTOCOLS.md §10, since 3.15.0): the
 * reentrant lock's hash and watchdog without pub/sub. A thread that finds
 * the lock held sleeps an exponential backoff (1, 2, 4 ... 128 ms plus a
 * jitter of rand[0, fails)) and polls again; tryLock(wait) gives up once
 * the wait has passed on the client's clock, lock() never does. Unlock
 * runs the reentrant unlock with the unlock latch and publishes nothing.
 * Queries and the store observer are the reentrant lock's. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/cl_int.h"
#include "protocols/rlock.h"

#define SPIN_MAX_MS 128

typedef struct spin_proc {
    int64_t internal_lease_ms[SCN_MAX_LOCKS];
} spin_proc;

static spin_proc *state(cl_proc *p)
{
    return p->proto;
}

static void spin_proc_init(cl_proc *p)
{
    spin_proc *s = sim_xcalloc(1, sizeof *s);
    for (int i = 0; i < SCN_MAX_LOCKS; i++) s->internal_lease_ms[i] = p->cw->s->watchdog_us / 1000;
    p->proto = s;
}

static void spin_proc_free(cl_proc *p)
{
    sim_xfree(p->proto);
    p->proto = NULL;
}

static int flags(const cl_proc *p, int tr)
{
    return tr | (p->cw->synced ? CL_SYNCED : 0);
}

static const char *key_of(const cl_proc *p, int lock)
{
    return p->cw->s->lock_names[lock];
}

/* ------------------------------------------------------------- acquire */

typedef struct spin_acq {
    cl_thread *t;
    int lock;
    int64_t wait_ms;   /* -1: lock() */
    int64_t lease_ms;  /* <= 0: the watchdog */
    int64_t start_ms;
    int64_t next_ms;   /* the backoff's next sleep */
    int64_t fails;
    char lname[64];
    proto_done_fn *done;
    cl_timer sleep;
} spin_acq;

static void acq_send(spin_acq *op);

static void acq_end(spin_acq *op, int ok, const char *err)
{
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_timer_cancel(t->p, &op->sleep);
    cl_free(t->p, op);
    done(t, ok, 0, err);
}

/* ExponentialBackOff.next(): 1, then doubling plus rand[0, fails), up to
 * the maximum, which then repeats. */
static int64_t backoff_next(spin_acq *op)
{
    if (op->next_ms == SPIN_MAX_MS) return SPIN_MAX_MS;
    int64_t r = op->next_ms;
    op->fails++;
    int64_t n = op->next_ms * 2 + (int64_t)cl_choose(op->t->p, (uint64_t)op->fails, "spin backoff");
    op->next_ms = n < SPIN_MAX_MS ? n : SPIN_MAX_MS;
    return r;
}

static void on_sleep_done(cl_proc *p, void *arg)
{
    (void)p;
    acq_send(arg);
}

static void on_acquire_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    spin_acq *op = ud;
    if (err == CL_ERR_TIMEOUT) {
        acq_end(op, 0, "RedisResponseTimeoutException");
        return;
    }
    if (err == CL_ERR_CONNECTION) {
        acq_end(op, 0, "RedisConnectionException");
        return;
    }
    if (err == CL_ERR_NOSYNC) {
        acq_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the lock");
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        acq_end(op, 0, "script error");
        return;
    }
    if (r->type == SIM_REPLY_NIL) {
        if (op->lease_ms <= 0) cl_watchdog_add(p, 0, op->lock, op->lname, op->t->index);
        else state(p)->internal_lease_ms[op->lock] = op->lease_ms;
        acq_end(op, 1, NULL);
        return;
    }
    if (op->wait_ms >= 0 && cl_now_ms(p) - op->start_ms >= op->wait_ms) {
        acq_end(op, 0, NULL);
        return;
    }
    cl_timer_arm(p, &op->sleep, SIM_MS(backoff_next(op)), "spin backoff", on_sleep_done, op);
}

static void acq_send(spin_acq *op)
{
    cl_proc *p = op->t->p;
    char lease[24];
    int64_t ms = op->lease_ms <= 0 ? state(p)->internal_lease_ms[op->lock] : op->lease_ms;
    sim_fmt_i64(lease, ms);
    const char *keys[] = {key_of(p, op->lock)};
    const char *args[] = {lease, op->lname};
    cl_eval(p, 0, "spin_acquire", 1, keys, 2, args, flags(p, CL_NORESEND), op->t->op_seq, on_acquire_reply, op);
}

static void spin_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, proto_done_fn *done)
{
    cl_proc *p = t->p;
    spin_acq *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->wait_ms = wait_us < 0 ? -1 : wait_us / 1000;
    op->lease_ms = lease_us == SCN_LEASE_WATCHDOG ? -1 : lease_us / 1000;
    op->start_ms = cl_now_ms(p);
    op->next_ms = 1;
    op->done = done;
    cl_lock_name(t, op->lname, sizeof op->lname);
    acq_send(op);
}

/* ------------------------------------------------------------- release */

typedef struct spin_rel {
    cl_thread *t;
    int lock;
    char latch[256];
    proto_done_fn *done;
} spin_rel;

static void on_unlock_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    spin_rel *op = ud;
    cl_thread *t = op->t;
    int lock = op->lock;
    proto_done_fn *done = op->done;
    const char *fail = NULL;
    int last = 0;
    if (err == CL_ERR_TIMEOUT) fail = "RedisResponseTimeoutException";
    else if (err == CL_ERR_CONNECTION) fail = "RedisConnectionException";
    else if (err == CL_ERR_NOSYNC) fail = "NoSyncedSlavesException: no replica acknowledged the unlock";
    else if (r->type == SIM_REPLY_ERR) fail = "script error";
    else if (r->type == SIM_REPLY_NIL)
        fail = "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread";
    else last = r->type == SIM_REPLY_INT && r->integer == 1;
    if (fail == NULL) {
        const char *del[] = {"DEL", op->latch};
        cl_command(p, 0, 2, del, CL_NORESEND, 0, NULL, NULL);
    }
    /* cancelRenewal after every unlock; the lease resets once free. */
    cl_watchdog_cancel(p, lock, t->index);
    if (last || (r && r->type == SIM_REPLY_NIL)) state(p)->internal_lease_ms[lock] = p->cw->s->watchdog_us / 1000;
    cl_free(p, op);
    done(t, fail == NULL, 0, fail);
}

static void spin_release(cl_thread *t, int lock, proto_done_fn *done)
{
    cl_proc *p = t->p;
    spin_rel *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->done = done;
    char request[33], base[192], lname[64], lease[24], ttl[24];
    cl_random_hex(p, request);
    rlock_prefix_name("redisson_unlock_latch", key_of(p, lock), base, sizeof base);
    snprintf(op->latch, sizeof op->latch, "%s:%s", base, request);
    cl_lock_name(t, lname, sizeof lname);
    sim_fmt_i64(lease, state(p)->internal_lease_ms[lock]);
    sim_fmt_i64(ttl, rlock_latch_ttl_ms(p));
    const char *keys[] = {key_of(p, lock), op->latch};
    const char *args[] = {lease, lname, ttl};
    cl_eval(p, 0, "spin_unlock", 2, keys, 3, args, flags(p, CL_NORESEND), t->op_seq, on_unlock_reply, op);
}

/* --------------------------------------------------------- forceUnlock */

typedef struct spin_force {
    cl_thread *t;
    proto_done_fn *done;
} spin_force;

static void on_force_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    spin_force *op = ud;
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_free(p, op);
    if (err != CL_OK && err != CL_ERR_REPLY) {
        done(t, 0, 0,
             err == CL_ERR_TIMEOUT ? "RedisResponseTimeoutException"
             : err == CL_ERR_NOSYNC ? "NoSyncedSlavesException"
                                    : "RedisConnectionException");
        return;
    }
    int64_t v = r->type == SIM_REPLY_INT ? r->integer : 0;
    done(t, v == 1, v, r->type == SIM_REPLY_ERR ? "script error" : NULL);
}

static void spin_force_unlock(cl_thread *t, int lock, proto_done_fn *done)
{
    cl_proc *p = t->p;
    spin_force *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->done = done;
    cl_watchdog_cancel(p, lock, 0);
    const char *keys[] = {key_of(p, lock)};
    cl_eval(p, 0, "spin_force_unlock", 1, keys, 0, NULL, flags(p, CL_RESEND), t->op_seq, on_force_reply, op);
}

static const proto_client_defaults spin_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1};

const proto_def proto_spinlock = {
    .name = "redisson.spinlock",
    .summary = "RedissonSpinLock (3.15+): the lock's hash and watchdog, no pub/sub: exponential backoff polling",
    .defaults = &spin_defaults,
    .proc_init = spin_proc_init,
    .proc_free = spin_proc_free,
    .acquire = spin_acquire,
    .release = spin_release,
    .force_unlock = spin_force_unlock,
    .query = rlock_query,
    .observe = rlock_observe,
    .node_of = rlock_node_of,
    .options = "backoff 1..128 ms exponential with jitter (fixed); lease, wait, watchdog-timeout as redisson.lock",
    .versions = "@3.15 .. @4.7 (watchdog, retries, WAIT as the release)",
    .min_version = 31500,
};
