/* rlock.c — RedissonLock, the reentrant lock with watchdog, client side, in
 * its two published versions (PROTOCOLS.md §3):
 *
 *  redisson.lock       current (4.7.x): merged acquire test, unlock with the
 *                      unlock latch and a request id, scripts not resent
 *                      (NR), batched watchdog, jittered retry delay;
 *  redisson.lock@2019  3.11.x: two-branch acquire, unlock without latch,
 *                      every script resent on a reply timeout (R),
 *                      per-lock watchdog timer, fixed 1500 ms retry delay.
 *
 *  redisson.fencedlock RedissonFencedLock: the current lock whose acquire
 *                      also draws a token from a counter key (§11).
 *  redisson.fairlock   RedissonFairLock (§4), current and 3.13.2: the same
 *                      client with the queue scripts, a channel per
 *                      thread, and acquireFailed = dequeue (fairlock.c).
 *
 *  redisson.rwlock     RedissonReadWriteLock (§5): the current client with
 *                      the read or the write side's scripts, chosen per
 *                      operation (the thread's mode; none: write), one
 *                      channel for both sides, read holds renewed by the
 *                      watchdog's read task, write holds as "<id>:<t>:write".
 *
 * tryLock(wait, lease) and lock(lease) follow the ttl-or-message loop of
 * §3.3 with waitTime accounted on the client's clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/names.h"
#include "protocols/rlock.h"

/* Per process: each lock handle's internalLockLeaseTime (ms; the rw
 * lock's read handles apart), and (fenced lock) each thread's last token
 * per lock. */
typedef struct rlock_proc {
    int64_t internal_lease_ms[SCN_MAX_LOCKS];
    int64_t read_lease_ms[SCN_MAX_LOCKS];
    int64_t (*token)[SCN_MAX_LOCKS]; /* [thread-1][lock] */
} rlock_proc;

static const rlock_cfg *cfg_of(const cl_proc *p)
{
    return cl_world_cfg(cl_proc_world(p));
}

static int is_fair(const rlock_cfg *c)
{
    return c->fair.dequeue != NULL;
}

int64_t rlock_queue_wait_us(const cl_world *cw, int64_t wait_us)
{
    const rlock_cfg *c = cl_world_cfg(cw);
    sim_assert(is_fair(c)); /* set only for the fair lock (registry.c) */
    return fair_wait_us(&c->fair, cw, wait_us);
}

static rlock_proc *state(cl_proc *p)
{
    return *cl_proc_state(p);
}

/* lockWatchdogTimeout in ms: the lease a watchdog hold gets. */
static int64_t watchdog_ms(const cl_proc *p)
{
    return cl_world_scenario(cl_proc_world(p))->watchdog_us / 1000;
}

/* The script of the world's protocol named name. */
static const cl_script *script(const cl_proc *p, const char *name)
{
    return cl_script_of(cl_proc_world(p), name);
}

void rlock_proc_init(cl_proc *p)
{
    rlock_proc *r = sim_xcalloc(1, sizeof *r);
    for (int i = 0; i < SCN_MAX_LOCKS; i++)
        r->internal_lease_ms[i] = r->read_lease_ms[i] = watchdog_ms(p);
    r->token = sim_xcalloc((size_t)cl_proc_threads(p), sizeof *r->token);
    *cl_proc_state(p) = r;
}

void rlock_proc_free(cl_proc *p)
{
    sim_xfree(state(p)->token);
    sim_xfree(state(p));
    *cl_proc_state(p) = NULL;
}

int rlock_node_of(const cl_world *cw, int lock)
{
    return cl_key_group(cw, lock);
}

static const char *lock_key(const cl_thread *t, int lock)
{
    return cl_key_name(cl_proc_world(cl_thread_proc(t)), lock);
}

/* ------------------------------------------------- read/write lock sides */

/* 1 when t's running operation takes the read side of a read/write lock;
 * 0 for its write side and for every other lock. */
static int reads(const cl_thread *t)
{
    return cfg_of(cl_thread_proc(t))->read_acquire && cl_thread_mode(t) == SCN_RW_READ;
}

/* The handle's internalLockLeaseTime: read handles have their own. */
static int64_t *lease_of(cl_proc *p, int lock, int read)
{
    return read ? &state(p)->read_lease_ms[lock] : &state(p)->internal_lease_ms[lock];
}

static void channel_name(const cl_proc *p, const char *name, char *buf, size_t cap)
{
    proto_prefix_name(cfg_of(p)->read_acquire ? "redisson_rwlock" : "redisson_lock__channel", name, buf,
                      cap);
}

/* t's lock name on its side: "<id>:<t>", or "<id>:<t>:write" for the write
 * side of a read/write lock. */
static void side_name(const cl_thread *t, int read, char *buf, size_t cap)
{
    const rlock_cfg *c = cfg_of(cl_thread_proc(t));
    int write = c->read_acquire && !read && !c->rw_shared_name;
    sim_strjoin(buf, cap, cl_thread_lock_name(t), write ? ":write" : "", (const char *)NULL);
}

/* The read side's key prefix "{name}" (name itself when it has a '{')
 * and t's timeout prefix "<keyPrefix>:<id>:<t>:rwlock_timeout" (§5.1). */
static void rw_prefixes(const cl_thread *t, int lock, char *key_prefix, char *timeout_prefix, size_t cap)
{
    const char *name = lock_key(t, lock);
    if (strchr(name, '{')) sim_strjoin(key_prefix, cap, name, (const char *)NULL);
    else sim_strjoin(key_prefix, cap, "{", name, "}", (const char *)NULL);
    sim_strjoin(timeout_prefix, cap, key_prefix, ":", cl_thread_lock_name(t), ":rwlock_timeout", (const char *)NULL);
}

/* Sends one unlock of t's hold of lock on its side (read: READ_UNLOCK;
 * otherwise the lock's or the write side's unlock), with the request's
 * latch key and TTL when the version has the latch. */
static void unlock_eval(cl_thread *t, int lock, int read, const char *latch, const char *ttl, int fl,
                        cl_cmd_fn *fn, void *ud)
{
    cl_proc *p = cl_thread_proc(t);
    const rlock_cfg *c = cfg_of(p);
    const char *name = lock_key(t, lock);
    int node = rlock_node_of(cl_proc_world(p), lock);
    char lname[64], channel[192], lease[24];
    side_name(t, read, lname, sizeof lname);
    channel_name(p, name, channel, sizeof channel);
    sim_fmt_i64(lease, *lease_of(p, lock, read));
    if (read && c->rw_no_timeouts) {
        /* Before 3.3.2: no timeout keys; a hold left gets this lease. */
        const char *keys[] = {name, channel};
        const char *args[] = {"0", lease, lname};
        cl_eval(p, node, script(p, c->read_unlock), 2, keys, 3, args, fl, cl_thread_op(t), fn, ud);
    } else if (read) {
        char kprefix[192], tprefix[192];
        rw_prefixes(t, lock, kprefix, tprefix, sizeof kprefix);
        const char *keys[] = {name, channel, tprefix, kprefix, latch};
        const char *args[] = {"0", lname, "publish", ttl};
        int latched = c->unlock_latch != 0; /* before 3.24: no latch key, no command, no TTL */
        cl_eval(p, node, script(p, c->read_unlock), latched ? 5 : 4, keys, latched ? 4 : 2, args, fl, cl_thread_op(t),
                fn, ud);
    } else if (is_fair(c) && c->fair.place_keys && cl_thread_async(t)) {
        /* Before 3.2.0 unlockAsync is RedissonLock's: the plain script on
         * the plain channel, which no fair waiter listens to. */
        const char *keys[] = {name, channel};
        const char *args[] = {"0", lease, lname};
        cl_eval(p, node, script(p, "lock2018_unlock"), 2, keys, 3, args, fl, cl_thread_op(t), fn, ud);
    } else if (is_fair(c) && c->fair.place_keys) {
        /* Before 3.2.0: no purge, the head of the queue woken. */
        char queue[192], deadlines[192];
        fair_keys(name, queue, deadlines);
        const char *keys[] = {name, channel, queue};
        const char *args[] = {"0", lease, lname};
        cl_eval(p, node, script(p, c->unlock), 3, keys, 3, args, fl, cl_thread_op(t), fn, ud);
    } else if (is_fair(c)) {
        /* The fair unlock also purges the queue with the client's now and
         * wakes the head's own channel. */
        char queue[192], deadlines[192], now[24];
        fair_keys(name, queue, deadlines);
        sim_fmt_i64(now, cl_now_ms(p));
        const char *keys[] = {name, queue, deadlines, channel, latch};
        const char *args[] = {"0", lease, lname, now, "publish", ttl};
        int latched = c->unlock_latch && latch;
        cl_eval(p, node, script(p, c->unlock), latched ? 5 : 4, keys, latched ? 6 : 4, args, fl, cl_thread_op(t), fn, ud);
    } else if (c->unlock_latch) {
        /* The write side publishes READ_UNLOCK (1): every waiter wakes. */
        const char *keys[] = {name, channel, latch};
        const char *args[] = {c->read_acquire ? "1" : "0", lease, lname, "publish", ttl};
        cl_eval(p, node, script(p, c->unlock), 3, keys, 5, args, fl, cl_thread_op(t), fn, ud);
    } else {
        const char *keys[] = {name, channel};
        const char *args[] = {c->read_acquire && !c->rw_write_msg0 ? "1" : "0", lease, lname};
        cl_eval(p, node, script(p, c->unlock), 2, keys, 3, args, fl, cl_thread_op(t), fn, ud);
    }
}


/* ------------------------------------------------------------- acquire */

typedef enum acq_state { ACQ_FIRST, ACQ_SUBSCRIBING, ACQ_LOOP } acq_state;

typedef struct acq_op {
    cl_op base;        /* its timer: RETRY-NOSYNC's delay; its sub: the lock's channel */
    int64_t wait_ms;   /* -1: lock() */
    int64_t lease_ms;  /* <= 0: the watchdog (CUR); -1 only (V2019) */
    int read;          /* the read side of a read/write lock */
    acq_state state;
    int64_t rem_ms, mark_ms;
    char lname[64];
    int nosync_retries; /* RETRY-NOSYNC attempts so far */
    int parked;         /* lock() waits with no timeout (a negative TTL) */
} acq_op;

static int uses_watchdog(const rlock_cfg *c, int64_t lease_ms)
{
    return c->lease0_is_watchdog ? lease_ms <= 0 : lease_ms == -1;
}

static void acq_send(acq_op *op);

static void acq_end(acq_op *op, int ok, const char *err)
{
    cl_op_end(op, ok, 0, err);
}

/* The operation waits as a listener of the entry (the async API). */
static int listens(const acq_op *op)
{
    return cl_thread_async(op->base.t) || cfg_of(cl_thread_proc(op->base.t))->fenced;
}

static void on_dequeued(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)r;
    acq_end(ud, 0, err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION ? cl_err_exception(err) : NULL);
}

/* tryLock gives up: acquireFailed, which only the fair lock overrides (it
 * leaves the queue, and tryLock returns once that is done). */
static void acq_failed(acq_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    if (!is_fair(cfg_of(p)) || cfg_of(p)->fair.stays_queued) {
        acq_end(op, 0, NULL);
        return;
    }
    cl_hist(p, op->base.t, HIST_INFO, HOP_GIVE_UP, op->base.lock, 0, 0, NULL);
    fair_dequeue(&cfg_of(p)->fair, op->base.t, op->base.lock, op->wait_ms, cl_lock_flags(p, CL_RESEND), on_dequeued,
                 op);
}

/* Charges the time since mark to rem; 1 when the wait is used up. */
static int charge(acq_op *op)
{
    int64_t now = cl_now_ms(cl_thread_proc(op->base.t));
    op->rem_ms -= now - op->mark_ms;
    op->mark_ms = now;
    return op->rem_ms <= 0;
}

static void acquired(acq_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    const rlock_cfg *c = cfg_of(p);
    if (uses_watchdog(c, op->lease_ms)) {
        int node = rlock_node_of(cl_proc_world(p), op->base.lock);
        if (op->read) cl_watchdog_add_read(p, node, op->base.lock, op->lname, cl_thread_index(op->base.t));
        else cl_watchdog_add(p, node, op->base.lock, op->lname, cl_thread_index(op->base.t));
    } else {
        *lease_of(p, op->base.lock, op->read) = op->lease_ms;
    }
    acq_end(op, 1, NULL);
}

static void on_wait(cl_proc *p, void *ud, int got)
{
    (void)got;
    acq_op *op = ud;
    if (op->parked) {
        op->parked = 0;
        cl_hist(p, op->base.t, HIST_INFO, HOP_PARK, op->base.lock, 0, 0, NULL);
    }
    if (op->wait_ms >= 0 && charge(op)) {
        acq_failed(op);
        return;
    }
    acq_send(op);
}

static void on_subscribed(cl_proc *p, void *ud, int ok)
{
    (void)p;
    acq_op *op = ud;
    if (!ok) {
        if (op->wait_ms >= 0) acq_failed(op);
        else acq_end(op, 0, "RedisTimeoutException: subscribe timeout (7500 ms)");
        return;
    }
    op->state = ACQ_LOOP;
    if (op->wait_ms >= 0 && charge(op)) {
        acq_failed(op);
        return;
    }
    acq_send(op);
}

static void on_nosync_retry(cl_proc *p, void *arg)
{
    (void)p;
    acq_send(arg);
}

/* RETRY-NOSYNC: try again after the delay, or fail once the attempts are
 * used up. */
static void nosync_retry_or_fail(acq_op *op)
{
    if (!cl_nosync_retry(cl_thread_proc(op->base.t), &op->nosync_retries, &op->base.timer, on_nosync_retry, op))
        acq_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the lock");
}

static void on_rollback(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)r;
    (void)err; /* ROLLBACK-NOSYNC's unlock: its outcome is not checked */
    nosync_retry_or_fail(ud);
}

/* The acquire ran on the master but no replica acknowledged it. The lock
 * and the read/write locks undo it with one unlock (a fresh request id)
 * whatever the script answered, and only once that unlock is done is the
 * NoSyncedSlavesException seen by ServiceManager.execute, which tries again
 * after the retry delay (ROLLBACK-NOSYNC, then RETRY-NOSYNC):
 * redisson-3.22.0 .. 4.7.0 RedissonLock.tryAcquireAsync ->
 * RedissonBaseLock.handleNoSync -> CommandAsyncService.handleNoSync, whose
 * supplier's stage is composed before the exception goes on. The fenced
 * lock's token acquire (RedissonFencedLock.tryAcquireAsync, 3.21.0 ..
 * 4.7.0) has neither: the exception reaches the caller and the script's
 * effect stays. */
static void acq_nosync(acq_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    if (cfg_of(p)->fenced || cfg_of(p)->nosync_no_rollback) {
        acq_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the lock");
        return;
    }
    char latch[256], ttl[24];
    proto_unlock_latch(p, lock_key(op->base.t, op->base.lock), latch, sizeof latch);
    sim_fmt_i64(ttl, (cl_world_scenario(cl_proc_world(p))->timeout_us / 1000 * 4));
    unlock_eval(op->base.t, op->base.lock, op->read, latch, ttl, CL_NORESEND, on_rollback, op);
}

static void on_acquire_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    acq_op *op = ud;
    const rlock_cfg *c = cfg_of(p);
    if (err == CL_ERR_NOSYNC) {
        acq_nosync(op);
        return;
    }
    if (err == CL_ERR_CONNECTION) {
        acq_end(op, 0, cl_err_exception(err));
        return;
    }
    if (err == CL_ERR_TIMEOUT) {
        /* Since 4.7.0 a timeout inside tryLock's loop means false; lock(),
         * the first attempt and tryLockAsync (which completes its future
         * exceptionally) raise RedisResponseTimeoutException. The
         * fenced lock's token acquire has a loop of its own that passes
         * every error on (RedissonFencedLock.tryLockAsync, 4.7.0). */
        if (op->state == ACQ_LOOP && op->wait_ms >= 0 && c->try_timeout_fails && !c->fenced &&
            !cl_thread_async(op->base.t))
            acq_failed(op);
        else acq_end(op, 0, cl_err_exception(err));
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        acq_end(op, 0, "script error");
        return;
    }
    int64_t ttl;
    if (c->fenced) {
        /* {-1, token}: acquired; {pttl, -1}: held. A held lock without a
         * TTL also answers -1 first, which the client takes for success
         * (PROTOCOLS.md §11). */
        int64_t first = -1, token = -1;
        if (r->type == SIM_REPLY_ARRAY && r->elements == 2) {
            first = r->element[0]->integer;
            token = r->element[1]->integer;
        }
        if (first == -1) {
            state(p)->token[cl_thread_index(op->base.t) - 1][op->base.lock] = token;
            acquired(op);
            return;
        }
        ttl = first;
    } else {
        if (r->type == SIM_REPLY_NIL) {
            acquired(op);
            return;
        }
        ttl = r->type == SIM_REPLY_INT ? r->integer : -1;
    }
    if (op->wait_ms >= 0 && charge(op)) {
        acq_failed(op);
        return;
    }
    if (op->state == ACQ_FIRST) {
        char entry[192], channel[192];
        if (is_fair(c)) {
            fair_entry(op->base.t, op->base.lock, entry, channel);
        } else {
            sim_strjoin(entry, sizeof entry, cl_proc_id(p), ":", lock_key(op->base.t, op->base.lock), (const char *)NULL);
            channel_name(p, lock_key(op->base.t, op->base.lock), channel, sizeof channel);
        }
        op->state = ACQ_SUBSCRIBING;
        /* lock(): syncSubscription's 7500 ms since 3.2.1, for ever before. */
        int64_t deadline = op->wait_ms >= 0                                  ? SIM_MS(op->rem_ms)
                           : cl_world_settings(cl_proc_world(p))->sub_no_timeout ? -1
                                                                              : SIM_MS(7500);
        op->base.sub = cl_sub_acquire(p, rlock_node_of(cl_proc_world(p), op->base.lock), entry, channel, deadline,
                                      on_subscribed, op);
        cl_sub_policy(op->base.sub, c->sub_msg_policy | (c->listen_recheck ? CL_SUB_RECHECK : 0));
        return;
    }
    /* The ttl-bounded wait: a message, or the holder's lease running out. */
    int64_t wait_us;
    if (op->wait_ms >= 0) wait_us = SIM_MS(ttl >= 0 && ttl < op->rem_ms ? ttl : op->rem_ms);
    else wait_us = ttl >= 0 ? SIM_MS(ttl) : -1;
    /* lockAsync / tryLockAsync: a permit a message left in the entry's
     * latch sends the attempt again at once (latch.tryAcquire()); else a
     * listener of the entry, which a message runs, with a timer of the
     * same wait (RedissonLock.lockAsync, 3.10.0 .. 4.7.0). The fenced
     * lock's blocking calls are its async ones (RedissonFencedLock.
     * lockAndGetToken = get(lockAndGetTokenAsync()), 4.7.0). */
    if (listens(op) && cl_sub_try_take(op->base.sub, 1)) {
        on_wait(p, op, 1);
        return;
    }
    if (wait_us < 0) { /* only a message ends it: the checkers tell such a waiter */
        sim_assert(!op->parked); /* on_wait ends a park before the next reply */
        op->parked = 1;
        cl_hist(p, op->base.t, HIST_INFO, HOP_PARK, op->base.lock, 1, 0, NULL);
    }
    if (listens(op)) cl_sub_listen(p, op->base.sub, wait_us, on_wait, op);
    else cl_sub_wait(p, op->base.sub, wait_us, on_wait, op);
}

static void acq_send(acq_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    const rlock_cfg *c = cfg_of(p);
    char lease[24];
    int64_t ms = uses_watchdog(c, op->lease_ms) ? *lease_of(p, op->base.lock, op->read) : op->lease_ms;
    sim_fmt_i64(lease, ms);
    op->mark_ms = cl_now_ms(p);
    int node = rlock_node_of(cl_proc_world(p), op->base.lock);
    if (op->read) {
        char read_name[64], write_name[64], kprefix[192], tprefix[192];
        side_name(op->base.t, 1, read_name, sizeof read_name);
        side_name(op->base.t, 0, write_name, sizeof write_name);
        rw_prefixes(op->base.t, op->base.lock, kprefix, tprefix, sizeof kprefix);
        const char *keys[] = {lock_key(op->base.t, op->base.lock), tprefix};
        const char *args[] = {lease, read_name, write_name};
        cl_eval(p, node, script(p, c->read_acquire), 2, keys, 3, args, cl_lock_flags(p, c->acquire_tr),
                cl_thread_op(op->base.t), on_acquire_reply, op);
        return;
    }
    if (is_fair(c)) {
        /* FAIR_ACQUIRE_Q: waitMs and the client's now go along (before
         * 3.2.0 the thread's place key instead of the deadline zset, and
         * threadWaitTime alone). */
        char queue[192], deadlines[256], wait[24], now[24];
        fair_keys(lock_key(op->base.t, op->base.lock), queue, deadlines);
        if (c->fair.place_keys) fair_place_key(op->base.t, lock_key(op->base.t, op->base.lock), deadlines, sizeof deadlines);
        sim_fmt_i64(wait, fair_wait_ms(&c->fair, p, op->wait_ms));
        sim_fmt_i64(now, op->mark_ms);
        const char *keys[] = {lock_key(op->base.t, op->base.lock), queue, deadlines};
        const char *args[] = {lease, op->lname, wait, now};
        cl_eval(p, node, script(p, c->acquire), 3, keys, 4, args, cl_lock_flags(p, c->acquire_tr),
                cl_thread_op(op->base.t), on_acquire_reply, op);
        return;
    }
    char tokens[192];
    if (c->fenced) /* the token key goes along only then */
        proto_prefix_name("redisson_lock_token", lock_key(op->base.t, op->base.lock), tokens, sizeof tokens);
    const char *keys[] = {lock_key(op->base.t, op->base.lock), c->fenced ? tokens : NULL};
    const char *args[] = {lease, op->lname};
    cl_eval(p, node, script(p, c->acquire), c->fenced ? 2 : 1, keys, 2, args, cl_lock_flags(p, c->acquire_tr),
            cl_thread_op(op->base.t), on_acquire_reply, op);
}

void rlock_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    acq_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->wait_ms = cl_wait_ms(wait_us);
    op->lease_ms = cl_lease_ms(lease_us);
    /* lockAndGetToken(lease) does not pass the lease on: the watchdog. */
    if (cfg_of(p)->fenced && wait_us < 0) op->lease_ms = -1;
    op->rem_ms = op->wait_ms;
    op->read = reads(t);
    side_name(t, op->read, op->lname, sizeof op->lname);
    acq_send(op);
}

/* ------------------------------------------------------------- release */

typedef struct rel_op {
    cl_op base;        /* its timer: RETRY-NOSYNC's delay */
    int read;          /* the read side of a read/write lock */
    char latch[256];
    char ttl[24];
    int nosync_retries;
} rel_op;

static void rel_end(rel_op *op, int ok, const char *err)
{
    cl_op_end(op, ok, 0, err);
}

/* cancelRenewal(t, res): the registration goes, and the lease is reset to
 * the watchdog's as the version says (lease_reset; resets). A read unlock
 * cancels in the plain task too, which can stop the same thread's write
 * renewal (W-RW3). */
static void cancel_renewal(rel_op *op, int reset)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    cl_watchdog_cancel(p, op->base.lock, cl_thread_index(op->base.t));
    if (op->read) cl_watchdog_cancel_read(p, op->base.lock, cl_thread_index(op->base.t));
    if (reset) *lease_of(p, op->base.lock, op->read) = watchdog_ms(p);
}

/* Whether an unlock's cancel resets the lease: outcome 0 (still held), 1
 * (released) or -1 (nil, an error: Redisson's unlockResult null). */
static int resets(const rlock_cfg *c, int outcome)
{
    return c->lease_reset == 1 || (c->lease_reset == 2 && outcome != 0);
}

static void rel_send(rel_op *op);

static void on_unlock_retry(cl_proc *p, void *arg)
{
    (void)p;
    rel_send(arg);
}

static void on_unlock_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    rel_op *op = ud;
    const rlock_cfg *c = cfg_of(p);
    if (err == CL_ERR_NOSYNC) {
        /* RETRY-NOSYNC: cancelRenewal runs after every attempt; the retry
         * keeps the request id since 3.52.0, so the latch answers a
         * replay (3.24-3.51: a fresh id, rel_send). */
        cancel_renewal(op, resets(c, -1));
        if (!cl_nosync_retry(p, &op->nosync_retries, &op->base.timer, on_unlock_retry, op))
            rel_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the unlock");
        return;
    }
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) {
        if (!c->unlock_error_keeps) cancel_renewal(op, resets(c, -1));
        rel_end(op, 0, cl_err_exception(err));
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        if (!c->unlock_error_keeps) cancel_renewal(op, resets(c, -1));
        rel_end(op, 0, "script error");
        return;
    }
    if (r->type == SIM_REPLY_NIL) {
        if (c->nil_cancels) cancel_renewal(op, resets(c, -1)); /* 3.12.1: whatever the reply */
        rel_end(op, 0, "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread");
        return;
    }
    if (c->unlock_latch) {
        const char *del[] = {"DEL", op->latch};
        cl_command(p, rlock_node_of(cl_proc_world(p), op->base.lock), 2, del, CL_NORESEND, 0, NULL, NULL);
    }
    if (cl_world_settings(cl_proc_world(p))->watchdog_gen == 0) {
        /* 3.10.4 and before: only a release (1) cancels, for every thread;
         * a hold count still above 0 keeps its renewal. */
        if (r->type == SIM_REPLY_INT && r->integer == 1) cl_watchdog_cancel(p, op->base.lock, 0);
        rel_end(op, 1, NULL);
        return;
    }
    cancel_renewal(op, resets(c, r->type == SIM_REPLY_INT && r->integer == 1));
    rel_end(op, 1, NULL);
}

/* The unlock latch TTL: max(1, (timeout + retryDelay(retryAttempts)) *
 * retryAttempts), with the version's delay policy. */
int64_t rlock_latch_ttl_ms(cl_proc *p)
{
    cl_world *cw = cl_proc_world(p);
    int64_t a = cl_world_settings(cw)->retry_attempts;
    int64_t delay_ms;
    if (cl_world_settings(cw)->jitter) {
        int64_t d = 1000;
        for (int64_t i = 0; i < a && d < 2000; i++) d *= 2;
        if (d > 2000) d = 2000;
        delay_ms = d / 2 + (int64_t)cl_choose(p, (uint64_t)(d / 2 + 1), "latch ttl jitter");
    } else {
        delay_ms = cl_world_settings(cw)->retry_interval_us / 1000;
    }
    int64_t ttl = (cl_world_scenario(cw)->timeout_us / 1000 + delay_ms) * a;
    return ttl < 1 ? 1 : ttl;
}

static void rel_send(rel_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    /* 3.24-3.51: a retry is a new unlockInnerAsync with a new request id,
     * so the latch of the run that released does not answer it: the
     * script decrements the hold again (or answers nil). */
    if (op->nosync_retries > 0 && cfg_of(p)->unlock_id_per_run)
        proto_unlock_latch(p, lock_key(op->base.t, op->base.lock), op->latch, sizeof op->latch);
    unlock_eval(op->base.t, op->base.lock, op->read, op->latch, op->ttl, cl_lock_flags(p, cfg_of(p)->unlock_tr),
                on_unlock_reply, op);
}

void rlock_release(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    const rlock_cfg *c = cfg_of(p);
    rel_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->read = reads(t);
    if (c->unlock_latch) {
        /* One request id per unlock() call, reused by retries (3.52.0+;
         * before, rel_send draws one per run). */
        proto_unlock_latch(p, lock_key(t, lock), op->latch, sizeof op->latch);
        sim_fmt_i64(op->ttl, rlock_latch_ttl_ms(p));
    }
    rel_send(op);
}

/* ------------------------------------------------- forceUnlock, queries */

typedef struct simple_op {
    cl_op base;
    scn_op what;
} simple_op;

static void on_simple_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    simple_op *op = ud;
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) {
        cl_op_end(op, 0, 0, err == CL_ERR_TIMEOUT ? cl_err_exception(err) : "RedisConnectionException");
        return;
    }
    if (err == CL_ERR_NOSYNC) {
        cl_op_end(op, 0, 0, cl_err_exception(err));
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        cl_op_end(op, 0, 0, "error reply");
        return;
    }
    int64_t v = 0;
    if (r->type == SIM_REPLY_INT) v = r->integer;
    else if (r->type == SIM_REPLY_STR) v = strtoll(r->str, NULL, 10);
    cl_op_end(op, op->what == SCN_OP_FORCEUNLOCK ? v == 1 : 1, v, NULL);
}

void rlock_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    const rlock_cfg *c = cfg_of(p);
    simple_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->what = SCN_OP_FORCEUNLOCK;
    int read = reads(t);
    cl_watchdog_cancel(p, lock, 0);
    if (read) cl_watchdog_cancel_read(p, lock, 0);
    char channel[192];
    channel_name(p, lock_key(t, lock), channel, sizeof channel);
    if (is_fair(c) && c->fair.place_keys) {
        char queue[192], deadlines[192];
        fair_keys(lock_key(t, lock), queue, deadlines);
        const char *keys[] = {lock_key(t, lock), queue, channel};
        const char *args[] = {"0"};
        cl_eval(p, rlock_node_of(cl_proc_world(p), lock), script(p, c->force), 3, keys, 1, args,
                cl_lock_flags(p, CL_RESEND), cl_thread_op(t), on_simple_reply, op);
        return;
    }
    if (is_fair(c)) {
        /* FAIR_FORCE_UNLOCK: purges with the client's now, wakes the head. */
        char queue[192], deadlines[192], now[24];
        fair_keys(lock_key(t, lock), queue, deadlines);
        sim_fmt_i64(now, cl_now_ms(p));
        const char *keys[] = {lock_key(t, lock), queue, deadlines, channel};
        const char *args[] = {"0", now, "publish"};
        cl_eval(p, rlock_node_of(cl_proc_world(p), lock), script(p, c->force), 4, keys, c->publish_arg ? 3 : 2,
                args, cl_lock_flags(p, CL_RESEND), cl_thread_op(t), on_simple_reply, op);
        return;
    }
    const char *keys[] = {lock_key(t, lock), channel};
    /* The rw write side publishes READ_UNLOCK (1). */
    const char *args[] = {c->read_acquire && !read && !c->rw_write_msg0 ? "1" : "0", "publish"};
    cl_eval(p, rlock_node_of(cl_proc_world(p), lock), script(p, read ? c->read_force : c->force), 2, keys,
            c->publish_arg ? 2 : 1, args, cl_lock_flags(p, CL_RESEND), cl_thread_op(t), on_simple_reply, op);
}

void rlock_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    simple_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->what = what;
    char lname[64];
    side_name(t, reads(t), lname, sizeof lname);
    const char *argv[3] = {NULL, lock_key(t, lock), lname};
    int argc = 3;
    if (what == SCN_OP_ISLOCKED) {
        argv[0] = "EXISTS";
        argc = 2;
    } else if (what == SCN_OP_HELD) {
        argv[0] = "HEXISTS";
    } else {
        argv[0] = "HGET";
    }
    cl_command(p, rlock_node_of(cl_proc_world(p), lock), argc, argv, CL_RESEND, cl_thread_op(t), on_simple_reply, op);
}

/* ------------------------------------------------------------ observer */

static int first_field(void *ud, const char *f, size_t flen, const char *v, size_t vlen)
{
    hist_store *out = ud;
    size_t n = flen < sizeof out->owner - 1 ? flen : sizeof out->owner - 1;
    memcpy(out->owner, f, n);
    out->owner[n] = '\0';
    char num[32];
    n = vlen < sizeof num - 1 ? vlen : sizeof num - 1;
    memcpy(num, v, n);
    num[n] = '\0';
    out->count = strtoll(num, NULL, 10);
    return 0; /* one field is enough: a Redisson lock hash has one */
}

void rlock_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    world_peek_result pk;
    if (!cl_store_peek(cw, group, lock, out, &pk) || pk.type != WORLD_TYPE_HASH) return;
    cl_store_peek_hash(cw, group, lock, first_field, out);
}

int64_t rlock_token(cl_thread *t, int lock)
{
    return state(cl_thread_proc(t))->token[cl_thread_index(t) - 1][lock];
}

size_t rlock_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    const rlock_cfg *c = cfg;
    const char *names[10];
    size_t n = 0;
    names[n++] = c->acquire;
    if (c->read_acquire) names[n++] = c->read_acquire;
    if (is_fair(c) && !c->fair.stays_queued) names[n++] = c->fair.dequeue;
    names[n++] = c->unlock;
    if (is_fair(c) && c->fair.place_keys) names[n++] = "lock2018_unlock"; /* unlockAsync's */
    if (c->read_unlock) names[n++] = c->read_unlock;
    names[n++] = c->force;
    if (c->read_force) names[n++] = c->read_force;
    names[n++] = d->watchdog_gen == 2 ? "lock_renew_batch" : "lock_renew"; /* watchdog.c */
    /* the read holds' renewal: batched since 3.44, per lock before (in the
     * plain task), RedissonLock's script before 3.8.1 */
    if (c->read_acquire && d->watchdog_gen == 2) names[n++] = "rw_read_renew_batch";
    else if (c->read_acquire && !d->read_renew_hash) names[n++] = "rw2018_read_renew";
    return proto_names_out(names, n, out, max);
}

/* -------------------------------------------------------- the versions */

/* The current client's settings (4.7.x), shared with the fenced, fair
 * and (without the script names) read/write locks. */
#define RLOCK_CURRENT_CLIENT                                                     \
    .unlock_latch = 1, .publish_arg = 1, .acquire_tr = CL_NORESEND, .unlock_tr = CL_NORESEND, \
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .try_timeout_fails = 1, \
    .lease0_is_watchdog = 1, .listen_recheck = 1, .nil_cancels = 1, .lease_reset = 2
#define RLOCK_SCRIPTS .unlock = "lock_unlock", .force = "lock_force_unlock"

const rlock_cfg rlock_current = {.acquire = "lock_acquire", RLOCK_SCRIPTS, RLOCK_CURRENT_CLIENT};

/* RedissonRedLock's members: the current lock; the composite takes a
 * quorum of them (multilock.c). */
const rlock_cfg rlock_redlock = {.acquire = "lock_acquire", RLOCK_SCRIPTS, RLOCK_CURRENT_CLIENT, .quorum = 1};

/* The 2019 client's settings (3.11.x; 3.13.2 differs in none of them). */
#define RLOCK_2019_SETTINGS                                                    \
    .unlock_latch = 0, .publish_arg = 0, .acquire_tr = CL_RESEND,             \
    .unlock_tr = CL_RESEND, .watchdog_gen = 1, .retry_attempts = 3,           \
    .jitter = 0, .try_timeout_fails = 0, .lease0_is_watchdog = 0

const rlock_cfg rlock_2019 = {.acquire = "lock2019_acquire", .unlock = "lock2019_unlock",
                              .force = "lock2019_force_unlock", RLOCK_2019_SETTINGS};

/* RedissonFencedLock (3.19+): the current lock with the token acquire. */
const rlock_cfg rlock_fenced = {.acquire = "fenced_acquire_token", RLOCK_SCRIPTS, RLOCK_CURRENT_CLIENT,
                                .fenced = 1};

/* RedissonFairLock, current: the current lock's settings and the queue
 * scripts; threadWaitTime 300000, overridden by a tryLock waitTime > 0. */
const rlock_cfg rlock_fair = {
    .acquire = "fair_acquire", RLOCK_CURRENT_CLIENT, .unlock = "fair_unlock",
    .force = "fair_force_unlock",
    .fair = {.dequeue = "fair_dequeue", .thread_wait_ms = 300000, .wait_is_queue_wait = 1},
};

/* RedissonFairLock 3.13.2: the 2019 client (no unlock latch, resent
 * scripts, per-lock watchdog, lease 0 = 0 ms) with the pre-3.32 scripts
 * and threadWaitTime 5000 for every wait. Its WAIT after lock scripts
 * (3.12.5, result unchecked) is not modelled: only latency differs. */
const rlock_cfg rlock_fair_3132 = {
    .acquire = "fair2019_acquire", .unlock = "fair2019_unlock", .force = "fair2019_force_unlock",
    RLOCK_2019_SETTINGS, .nil_cancels = 1, .fair = {.dequeue = "fair_dequeue", .thread_wait_ms = 5000, .wait_is_queue_wait = 0},
};

/* RedissonReadWriteLock: the current client with the rw scripts. */
const rlock_cfg rlock_rw = {
    .acquire = "rw_write_acquire", RLOCK_CURRENT_CLIENT,
    .unlock = "rw_write_unlock", .force = "rw_write_force_unlock",
    .read_acquire = "rw_read_acquire", .read_unlock = "rw_read_unlock", .read_force = "rw_read_force_unlock",
};
