/* spinlock.c — RedissonSpinLock (PROTOCOLS.md §10, since 3.15.0): the
 * reentrant lock's hash and watchdog without pub/sub. A thread that finds
 * the lock held sleeps an exponential backoff (1, 2, 4 ... 128 ms plus a
 * jitter of rand[0, fails)) and polls again; tryLock(wait) gives up once
 * the wait has passed on the client's clock, lock() never does. Unlock
 * runs the reentrant unlock with the unlock latch and publishes nothing.
 * Queries and the store observer are the reentrant lock's. */
#include <stdio.h>
#include <string.h>

#include "protocols/names.h"
#include "protocols/rlock.h"

#define SPIN_MAX_MS 128

typedef struct spin_proc {
    int64_t internal_lease_ms[SCN_MAX_LOCKS];
} spin_proc;

static spin_proc *state(cl_proc *p)
{
    return *cl_proc_state(p);
}

static int64_t watchdog_ms(const cl_proc *p)
{
    return cl_world_scenario(cl_proc_world(p))->watchdog_us / 1000;
}

static void spin_proc_init(cl_proc *p)
{
    spin_proc *s = sim_xcalloc(1, sizeof *s);
    for (int i = 0; i < SCN_MAX_LOCKS; i++) s->internal_lease_ms[i] = watchdog_ms(p);
    *cl_proc_state(p) = s;
}

static void spin_proc_free(cl_proc *p)
{
    sim_xfree(state(p));
    *cl_proc_state(p) = NULL;
}

static const char *key_of(const cl_proc *p, int lock)
{
    return cl_world_scenario(cl_proc_world(p))->lock_names[lock];
}

/* The bundled script named name. */
static const cl_script *script(const cl_proc *p, const char *name)
{
    return cl_script_of(cl_proc_world(p), name);
}

/* ------------------------------------------------------------- acquire */

typedef struct spin_acq {
    cl_op base;        /* its timer: the backoff's sleep */
    int64_t wait_ms;   /* -1: lock() */
    int64_t lease_ms;  /* <= 0: the watchdog */
    int64_t start_ms;
    int64_t next_ms;   /* the backoff's next sleep */
    int64_t fails;
    char lname[64];
} spin_acq;

static void acq_send(spin_acq *op);

/* ExponentialBackOff.next(): 1, then doubling plus rand[0, fails), up to
 * the maximum, which then repeats. */
static int64_t backoff_next(spin_acq *op)
{
    if (op->next_ms == SPIN_MAX_MS) return SPIN_MAX_MS;
    int64_t r = op->next_ms;
    op->fails++;
    int64_t n = op->next_ms * 2 + (int64_t)cl_choose(cl_thread_proc(op->base.t), (uint64_t)op->fails, "spin backoff");
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
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) {
        cl_op_end(op, 0, 0, cl_err_exception(err));
        return;
    }
    if (err == CL_ERR_NOSYNC) {
        cl_op_end(op, 0, 0, "NoSyncedSlavesException: no replica acknowledged the lock");
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        cl_op_end(op, 0, 0, "script error");
        return;
    }
    if (r->type == SIM_REPLY_NIL) {
        if (op->lease_ms <= 0) cl_watchdog_add(p, 0, op->base.lock, op->lname, cl_thread_index(op->base.t));
        else state(p)->internal_lease_ms[op->base.lock] = op->lease_ms;
        cl_op_end(op, 1, 0, NULL);
        return;
    }
    if (op->wait_ms >= 0 && cl_now_ms(p) - op->start_ms >= op->wait_ms) {
        cl_op_end(op, 0, 0, NULL);
        return;
    }
    cl_timer_arm(p, &op->base.timer, SIM_MS(backoff_next(op)), "spin backoff", on_sleep_done, op);
}

static void acq_send(spin_acq *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    char lease[24];
    int64_t ms = op->lease_ms <= 0 ? state(p)->internal_lease_ms[op->base.lock] : op->lease_ms;
    sim_fmt_i64(lease, ms);
    const char *keys[] = {key_of(p, op->base.lock)};
    const char *args[] = {lease, op->lname};
    cl_eval(p, 0, script(p, "spin_acquire"), 1, keys, 2, args, cl_lock_flags(p, CL_NORESEND),
            cl_thread_op(op->base.t), on_acquire_reply, op);
}

static void spin_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    spin_acq *op = cl_op_new(t, sizeof *op, lock, done);
    op->wait_ms = cl_wait_ms(wait_us);
    op->lease_ms = cl_lease_ms(lease_us);
    op->start_ms = cl_now_ms(cl_thread_proc(t));
    op->next_ms = 1;
    snprintf(op->lname, sizeof op->lname, "%s", cl_thread_lock_name(t));
    acq_send(op);
}

/* ------------------------------------------------------------- release */

typedef struct spin_rel {
    cl_op base;
    char latch[256];
} spin_rel;

static void on_unlock_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    spin_rel *op = ud;
    const char *fail = NULL;
    int last = 0;
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) fail = cl_err_exception(err);
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
    cl_watchdog_cancel(p, op->base.lock, cl_thread_index(op->base.t));
    if (last || (r && r->type == SIM_REPLY_NIL)) state(p)->internal_lease_ms[op->base.lock] = watchdog_ms(p);
    cl_op_end(op, fail == NULL, 0, fail);
}

static void spin_release(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    spin_rel *op = cl_op_new(t, sizeof *op, lock, done);
    char lease[24], ttl[24];
    proto_unlock_latch(p, key_of(p, lock), op->latch, sizeof op->latch);
    sim_fmt_i64(lease, state(p)->internal_lease_ms[lock]);
    sim_fmt_i64(ttl, rlock_latch_ttl_ms(p));
    const char *keys[] = {key_of(p, lock), op->latch};
    const char *args[] = {lease, cl_thread_lock_name(t), ttl};
    cl_eval(p, 0, script(p, "spin_unlock"), 2, keys, 3, args, cl_lock_flags(p, CL_NORESEND), cl_thread_op(t),
            on_unlock_reply, op);
}

/* --------------------------------------------------------- forceUnlock */

static void on_force_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    if (err != CL_OK && err != CL_ERR_REPLY) {
        cl_op_end(ud, 0, 0, cl_err_exception(err));
        return;
    }
    int64_t v = r->type == SIM_REPLY_INT ? r->integer : 0;
    cl_op_end(ud, v == 1, v, r->type == SIM_REPLY_ERR ? "script error" : NULL);
}

static void spin_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    cl_watchdog_cancel(p, lock, 0);
    const char *keys[] = {key_of(p, lock)};
    cl_eval(p, 0, script(p, "spin_force_unlock"), 1, keys, 0, NULL, cl_lock_flags(p, CL_RESEND), cl_thread_op(t),
            on_force_reply, op);
}

static const cl_defaults spin_defaults = {.watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1,
                                              .readonly_retry = 1};

/* Its own three scripts and the watchdog's of the release. */
static size_t spin_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    (void)cfg;
    const char *names[] = {"spin_acquire", "spin_unlock", "spin_force_unlock",
                           d->watchdog_gen == 2 ? "lock_renew_batch" : "lock_renew"};
    return proto_names_out(names, 4, out, max);
}

const proto_def proto_spinlock = {
    .name = "redisson.spinlock",
    .summary = "RedissonSpinLock (3.15+): the lock's hash and watchdog, no pub/sub: exponential backoff polling",
    .options = "backoff 1..128 ms exponential with jitter (fixed); lease, wait, watchdog-timeout as redisson.lock",
    .versions = "@3.15 .. @4.7 (watchdog, retries, WAIT as the release)",
    .min_version = 31500,
    .scripts = spin_scripts,
    .impl = {
        /* The reentrant lock's settings: its queries (rlock_query) read
         * them; the spin lock's own operations read none. */
        .cfg = &rlock_current,
        .defaults = &spin_defaults,
        .script = proto_script_find,
        .proc_init = spin_proc_init,
        .proc_free = spin_proc_free,
        .acquire = spin_acquire,
        .release = spin_release,
        .force_unlock = spin_force_unlock,
        .query = rlock_query,
        .observe = rlock_observe,
        .node_of = rlock_node_of,
        .reentry = CL_REENTRY_REDIS, /* the lock's hash: a field per thread */
    },
};
