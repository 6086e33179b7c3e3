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
 *                      operation (t->cur_mode; none: write), one channel
 *                      for both sides, read holds renewed by the watchdog's
 *                      read task, write holds as "<id>:<t>:write".
 *
 * tryLock(wait, lease) and lock(lease) follow the ttl-or-message loop of
 * §3.3 with waitTime accounted on the client's clock. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/cl_int.h"
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
    return p->cw->proto->cfg;
}

/* The transport of a lock script: the version's class, plus WAIT for
 * replicas when synced evaluation is on. */
static int flags(const cl_proc *p, cl_transport tr)
{
    return tr | (p->cw->synced ? CL_SYNCED : 0);
}

static rlock_proc *state(cl_proc *p)
{
    return p->proto;
}

void rlock_proc_init(cl_proc *p)
{
    rlock_proc *r = sim_xcalloc(1, sizeof *r);
    for (int i = 0; i < SCN_MAX_LOCKS; i++)
        r->internal_lease_ms[i] = r->read_lease_ms[i] = p->cw->s->watchdog_us / 1000;
    r->token = sim_xcalloc((size_t)p->nthreads, sizeof *r->token);
    p->proto = r;
}

void rlock_proc_free(cl_proc *p)
{
    sim_xfree(state(p)->token);
    sim_xfree(p->proto);
    p->proto = NULL;
}

int rlock_node_of(const cl_world *cw, int lock)
{
    return cl_key_group(cw, lock);
}

/* prefixName(p, n): "p:n" when n has a '{', else "p:{n}". */
void rlock_prefix_name(const char *prefix, const char *name, char *buf, size_t cap)
{
    int brace = strchr(name, '{') == NULL;
    size_t pl = strlen(prefix), nl = strlen(name), n = 0;
    const char *parts[] = {prefix, ":", brace ? "{" : "", name, brace ? "}" : ""};
    size_t lens[] = {pl, 1, (size_t)brace, nl, (size_t)brace};
    for (size_t i = 0; i < 5; i++) { /* as snprintf would, cut at cap */
        size_t take = lens[i] < cap - 1 - n ? lens[i] : cap - 1 - n;
        memcpy(buf + n, parts[i], take);
        n += take;
    }
    buf[n] = '\0';
}

static const char *lock_key(const cl_thread *t, int lock)
{
    return cl_key_name(t->p->cw, lock);
}

/* ------------------------------------------------- read/write lock sides */

/* 1 when t's running operation takes the read side of a read/write lock;
 * 0 for its write side and for every other lock. */
static int reads(const cl_thread *t)
{
    return cfg_of(t->p)->read_acquire && t->cur_mode == SCN_RW_READ;
}

/* The handle's internalLockLeaseTime: read handles have their own. */
static int64_t *lease_of(cl_proc *p, int lock, int read)
{
    return read ? &state(p)->read_lease_ms[lock] : &state(p)->internal_lease_ms[lock];
}

static void channel_name(const cl_proc *p, const char *name, char *buf, size_t cap)
{
    rlock_prefix_name(cfg_of(p)->read_acquire ? "redisson_rwlock" : "redisson_lock__channel", name, buf,
                      cap);
}

/* t's lock name on its side: "<id>:<t>", or "<id>:<t>:write" for the write
 * side of a read/write lock. */
static void side_name(const cl_thread *t, int read, char *buf, size_t cap)
{
    cl_lock_name(t, buf, cap);
    if (cfg_of(t->p)->read_acquire && !read) snprintf(buf + strlen(buf), cap - strlen(buf), ":write");
}

/* The read side's key prefix "{name}" (name itself when it has a '{')
 * and t's timeout prefix "<keyPrefix>:<id>:<t>:rwlock_timeout" (§5.1). */
static void rw_prefixes(const cl_thread *t, int lock, char *key_prefix, char *timeout_prefix, size_t cap)
{
    const char *name = lock_key(t, lock);
    char lname[64];
    cl_lock_name(t, lname, sizeof lname);
    if (strchr(name, '{')) snprintf(key_prefix, cap, "%s", name);
    else snprintf(key_prefix, cap, "{%s}", name);
    snprintf(timeout_prefix, cap, "%s:%s:rwlock_timeout", key_prefix, lname);
}

/* Sends one unlock of t's hold of lock on its side (read: READ_UNLOCK;
 * otherwise the lock's or the write side's unlock), with the request's
 * latch key and TTL when the version has the latch. */
static void unlock_eval(cl_thread *t, int lock, int read, const char *latch, const char *ttl, int fl,
                        cl_cmd_fn *fn, void *ud)
{
    cl_proc *p = t->p;
    const rlock_cfg *c = cfg_of(p);
    const char *name = lock_key(t, lock);
    int node = rlock_node_of(p->cw, lock);
    char lname[64], channel[192], lease[24];
    side_name(t, read, lname, sizeof lname);
    channel_name(p, name, channel, sizeof channel);
    sim_fmt_i64(lease, *lease_of(p, lock, read));
    if (read) {
        char kprefix[192], tprefix[192];
        rw_prefixes(t, lock, kprefix, tprefix, sizeof kprefix);
        const char *keys[] = {name, channel, tprefix, kprefix, latch};
        const char *args[] = {"0", lname, "publish", ttl};
        cl_eval(p, node, c->read_unlock, 5, keys, 4, args, fl, t->op_seq, fn, ud);
    } else if (c->fair) {
        /* The fair unlock also purges the queue with the client's now and
         * wakes the head's own channel. */
        char queue[192], deadlines[192], now[24];
        fair_keys(name, queue, deadlines);
        sim_fmt_i64(now, cl_now_ms(p));
        const char *keys[] = {name, queue, deadlines, channel, latch};
        const char *args[] = {"0", lease, lname, now, "publish", ttl};
        int latched = c->unlock_latch && latch;
        cl_eval(p, node, c->unlock, latched ? 5 : 4, keys, latched ? 6 : 4, args, fl, t->op_seq, fn, ud);
    } else if (c->unlock_latch) {
        /* The write side publishes READ_UNLOCK (1): every waiter wakes. */
        const char *keys[] = {name, channel, latch};
        const char *args[] = {c->read_acquire ? "1" : "0", lease, lname, "publish", ttl};
        cl_eval(p, node, c->unlock, 3, keys, 5, args, fl, t->op_seq, fn, ud);
    } else {
        const char *keys[] = {name, channel};
        const char *args[] = {"0", lease, lname};
        cl_eval(p, node, c->unlock, 2, keys, 3, args, fl, t->op_seq, fn, ud);
    }
}


/* ------------------------------------------------------------- acquire */

typedef enum acq_state { ACQ_FIRST, ACQ_SUBSCRIBING, ACQ_LOOP } acq_state;

typedef struct acq_op {
    cl_thread *t;
    int lock;
    int64_t wait_ms;   /* -1: lock() */
    int64_t lease_ms;  /* <= 0: the watchdog (CUR); -1 only (V2019) */
    int read;          /* the read side of a read/write lock */
    proto_done_fn *done;
    acq_state state;
    int64_t rem_ms, mark_ms;
    cl_sub *sub;
    char lname[64];
    int nosync_retries; /* RETRY-NOSYNC attempts so far */
    cl_timer retry;
} acq_op;

static int uses_watchdog(const rlock_cfg *c, int64_t lease_ms)
{
    return c->lease0_is_watchdog ? lease_ms <= 0 : lease_ms == -1;
}

static void acq_send(acq_op *op);

static void acq_end(acq_op *op, int ok, const char *err)
{
    cl_thread *t = op->t;
    cl_proc *p = t->p;
    cl_timer_cancel(p, &op->retry);
    if (op->sub) cl_sub_release(p, op->sub);
    proto_done_fn *done = op->done;
    cl_free(p, op);
    done(t, ok, 0, err);
}

static void on_dequeued(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)r;
    acq_end(ud, 0, err == CL_ERR_TIMEOUT      ? "RedisResponseTimeoutException"
                   : err == CL_ERR_CONNECTION ? "RedisConnectionException"
                                              : NULL);
}

/* tryLock gives up: acquireFailed, which only the fair lock overrides (it
 * leaves the queue, and tryLock returns once that is done). */
static void acq_failed(acq_op *op)
{
    cl_proc *p = op->t->p;
    if (!cfg_of(p)->fair) {
        acq_end(op, 0, NULL);
        return;
    }
    cl_hist(p, op->t, HIST_INFO, HOP_GIVE_UP, op->lock, 0, 0, NULL);
    fair_dequeue(op->t, op->lock, op->wait_ms, flags(p, CL_RESEND), on_dequeued, op);
}

/* Charges the time since mark to rem; 1 when the wait is used up. */
static int charge(acq_op *op)
{
    int64_t now = cl_now_ms(op->t->p);
    op->rem_ms -= now - op->mark_ms;
    op->mark_ms = now;
    return op->rem_ms <= 0;
}

static void acquired(acq_op *op)
{
    cl_proc *p = op->t->p;
    const rlock_cfg *c = cfg_of(p);
    if (uses_watchdog(c, op->lease_ms)) {
        int node = rlock_node_of(p->cw, op->lock);
        if (op->read) cl_watchdog_add_read(p, node, op->lock, op->lname, op->t->index);
        else cl_watchdog_add(p, node, op->lock, op->lname, op->t->index);
    } else {
        *lease_of(p, op->lock, op->read) = op->lease_ms;
    }
    acq_end(op, 1, NULL);
}

static void on_wait(cl_proc *p, void *ud, int got)
{
    (void)p;
    (void)got;
    acq_op *op = ud;
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

static void on_rollback(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)ud;
    (void)r;
    (void)err; /* ROLLBACK-NOSYNC's unlock: its outcome is not checked */
}

static void on_nosync_retry(cl_proc *p, void *arg)
{
    (void)p;
    acq_send(arg);
}

/* The acquire ran on the master but no replica acknowledged it: undo it
 * with one unlock (a fresh request id), then try again (ROLLBACK-NOSYNC,
 * then RETRY-NOSYNC), or fail once the attempts are used up. */
static void acq_nosync(acq_op *op, const sim_reply *r)
{
    cl_proc *p = op->t->p;
    if (r && r->type == SIM_REPLY_NIL) {
        char request[33], latch_base[192], latch[256], ttl[24];
        cl_random_hex(p, request);
        rlock_prefix_name("redisson_unlock_latch", lock_key(op->t, op->lock), latch_base, sizeof latch_base);
        snprintf(latch, sizeof latch, "%s:%s", latch_base, request);
        sim_fmt_i64(ttl, (p->cw->s->timeout_us / 1000 * 4));
        unlock_eval(op->t, op->lock, op->read, latch, ttl, CL_NORESEND, on_rollback, NULL);
    }
    if (!cl_nosync_retry(p, &op->nosync_retries, &op->retry, on_nosync_retry, op))
        acq_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the lock");
}

static void on_acquire_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    acq_op *op = ud;
    const rlock_cfg *c = cfg_of(p);
    if (err == CL_ERR_NOSYNC) {
        acq_nosync(op, r);
        return;
    }
    if (err == CL_ERR_CONNECTION) {
        acq_end(op, 0, "RedisConnectionException");
        return;
    }
    if (err == CL_ERR_TIMEOUT) {
        /* Since 4.7.0 a timeout inside tryLock's loop means false; lock()
         * and the first attempt raise RedisResponseTimeoutException. */
        if (op->state == ACQ_LOOP && op->wait_ms >= 0 && c->try_timeout_fails) acq_failed(op);
        else acq_end(op, 0, "RedisResponseTimeoutException");
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
            state(p)->token[op->t->index - 1][op->lock] = token;
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
        if (c->fair) {
            fair_entry(op->t, op->lock, entry, channel);
        } else {
            snprintf(entry, sizeof entry, "%s:%s", p->id, lock_key(op->t, op->lock));
            channel_name(p, lock_key(op->t, op->lock), channel, sizeof channel);
        }
        op->state = ACQ_SUBSCRIBING;
        int64_t deadline = op->wait_ms >= 0 ? SIM_MS(op->rem_ms) : SIM_MS(7500);
        op->sub = cl_sub_acquire(p, rlock_node_of(p->cw, op->lock), entry, channel, deadline,
                                 on_subscribed, op);
        return;
    }
    /* The ttl-bounded wait: a message, or the holder's lease running out. */
    int64_t wait_us;
    if (op->wait_ms >= 0) wait_us = SIM_MS(ttl >= 0 && ttl < op->rem_ms ? ttl : op->rem_ms);
    else wait_us = ttl >= 0 ? SIM_MS(ttl) : -1;
    cl_sub_wait(p, op->sub, wait_us, on_wait, op);
}

static void acq_send(acq_op *op)
{
    cl_proc *p = op->t->p;
    const rlock_cfg *c = cfg_of(p);
    char lease[24];
    int64_t ms = uses_watchdog(c, op->lease_ms) ? *lease_of(p, op->lock, op->read) : op->lease_ms;
    sim_fmt_i64(lease, ms);
    op->mark_ms = cl_now_ms(p);
    int node = rlock_node_of(p->cw, op->lock);
    if (op->read) {
        char read_name[64], write_name[64], kprefix[192], tprefix[192];
        side_name(op->t, 1, read_name, sizeof read_name);
        side_name(op->t, 0, write_name, sizeof write_name);
        rw_prefixes(op->t, op->lock, kprefix, tprefix, sizeof kprefix);
        const char *keys[] = {lock_key(op->t, op->lock), tprefix};
        const char *args[] = {lease, read_name, write_name};
        cl_eval(p, node, c->read_acquire, 2, keys, 3, args, flags(p, c->acquire_tr), op->t->op_seq,
                on_acquire_reply, op);
        return;
    }
    if (c->fair) {
        /* FAIR_ACQUIRE_Q: waitMs and the client's now go along. */
        char queue[192], deadlines[192], wait[24], now[24];
        fair_keys(lock_key(op->t, op->lock), queue, deadlines);
        sim_fmt_i64(wait, fair_wait_ms(p, op->wait_ms));
        sim_fmt_i64(now, op->mark_ms);
        const char *keys[] = {lock_key(op->t, op->lock), queue, deadlines};
        const char *args[] = {lease, op->lname, wait, now};
        cl_eval(p, node, c->acquire, 3, keys, 4, args, flags(p, c->acquire_tr), op->t->op_seq, on_acquire_reply,
                op);
        return;
    }
    char tokens[192];
    rlock_prefix_name("redisson_lock_token", lock_key(op->t, op->lock), tokens, sizeof tokens);
    const char *keys[] = {lock_key(op->t, op->lock), tokens};
    const char *args[] = {lease, op->lname};
    cl_eval(p, node, c->acquire, c->fenced ? 2 : 1, keys, 2, args,
            flags(p, c->acquire_tr),
            op->t->op_seq, on_acquire_reply, op);
}

void rlock_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, proto_done_fn *done)
{
    cl_proc *p = t->p;
    acq_op *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->wait_ms = wait_us < 0 ? -1 : wait_us / 1000;
    op->lease_ms = lease_us == SCN_LEASE_WATCHDOG ? -1 : lease_us / 1000;
    /* lockAndGetToken(lease) does not pass the lease on: the watchdog. */
    if (cfg_of(p)->fenced && wait_us < 0) op->lease_ms = -1;
    op->done = done;
    op->rem_ms = op->wait_ms;
    op->read = reads(t);
    side_name(t, op->read, op->lname, sizeof op->lname);
    acq_send(op);
}

/* ------------------------------------------------------------- release */

typedef struct rel_op {
    cl_thread *t;
    int lock;
    int read;          /* the read side of a read/write lock */
    proto_done_fn *done;
    char latch[256];
    char ttl[24];
    int nosync_retries;
    cl_timer retry;
} rel_op;

static void rel_end(rel_op *op, int ok, const char *err)
{
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_timer_cancel(t->p, &op->retry);
    cl_free(t->p, op);
    done(t, ok, 0, err);
}

/* cancelRenewal(t, res): the registration goes; since 3.27.2 the lease
 * is reset to the watchdog's when res is nil or 1. A read unlock cancels
 * in the plain task too, which can stop the same thread's write renewal
 * (W-RW3). */
static void cancel_renewal(rel_op *op, int reset)
{
    cl_proc *p = op->t->p;
    cl_watchdog_cancel(p, op->lock, op->t->index);
    if (op->read) cl_watchdog_cancel_read(p, op->lock, op->t->index);
    if (reset) *lease_of(p, op->lock, op->read) = p->cw->s->watchdog_us / 1000;
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
         * keeps the request id, so the latch answers a replay. */
        cancel_renewal(op, 0);
        if (!cl_nosync_retry(p, &op->nosync_retries, &op->retry, on_unlock_retry, op))
            rel_end(op, 0, "NoSyncedSlavesException: no replica acknowledged the unlock");
        return;
    }
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) {
        cancel_renewal(op, 0);
        rel_end(op, 0, err == CL_ERR_TIMEOUT ? "RedisResponseTimeoutException" : "RedisConnectionException");
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        cancel_renewal(op, 0);
        rel_end(op, 0, "script error");
        return;
    }
    if (r->type == SIM_REPLY_NIL) {
        if (c->unlock_latch) cancel_renewal(op, 1); /* CUR cancels always */
        rel_end(op, 0, "IllegalMonitorStateException: attempt to unlock lock, not locked by current thread");
        return;
    }
    if (c->unlock_latch) {
        const char *del[] = {"DEL", op->latch};
        cl_command(p, rlock_node_of(p->cw, op->lock), 2, del, CL_NORESEND, 0, NULL, NULL);
    }
    cancel_renewal(op, c->unlock_latch && r->type == SIM_REPLY_INT && r->integer == 1);
    rel_end(op, 1, NULL);
}

/* The unlock latch TTL: max(1, (timeout + retryDelay(retryAttempts)) *
 * retryAttempts), with the version's delay policy. */
int64_t rlock_latch_ttl_ms(cl_proc *p)
{
    cl_world *cw = p->cw;
    int64_t a = cw->retry_attempts;
    int64_t delay_ms;
    if (cw->jitter) {
        int64_t d = 1000;
        for (int64_t i = 0; i < a && d < 2000; i++) d *= 2;
        if (d > 2000) d = 2000;
        delay_ms = d / 2 + (int64_t)cl_choose(p, (uint64_t)(d / 2 + 1), "latch ttl jitter");
    } else {
        delay_ms = cw->retry_interval_us / 1000;
    }
    int64_t ttl = (cw->s->timeout_us / 1000 + delay_ms) * a;
    return ttl < 1 ? 1 : ttl;
}

static void rel_send(rel_op *op)
{
    cl_proc *p = op->t->p;
    unlock_eval(op->t, op->lock, op->read, op->latch, op->ttl, flags(p, cfg_of(p)->unlock_tr), on_unlock_reply,
                op);
}

void rlock_release(cl_thread *t, int lock, proto_done_fn *done)
{
    cl_proc *p = t->p;
    const rlock_cfg *c = cfg_of(p);
    rel_op *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->read = reads(t);
    op->done = done;
    if (c->unlock_latch) {
        /* One request id per unlock() call (since 3.52), reused by retries. */
        char request[33], latch_base[192];
        cl_random_hex(p, request);
        rlock_prefix_name("redisson_unlock_latch", lock_key(t, lock), latch_base, sizeof latch_base);
        snprintf(op->latch, sizeof op->latch, "%s:%s", latch_base, request);
        sim_fmt_i64(op->ttl, rlock_latch_ttl_ms(p));
    }
    rel_send(op);
}

/* ------------------------------------------------- forceUnlock, queries */

typedef struct simple_op {
    cl_thread *t;
    proto_done_fn *done;
    scn_op what;
} simple_op;

static void on_simple_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    simple_op *op = ud;
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    scn_op what = op->what;
    cl_free(p, op);
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) {
        done(t, 0, 0, err == CL_ERR_TIMEOUT ? "RedisResponseTimeoutException" : "RedisConnectionException");
        return;
    }
    if (err == CL_ERR_NOSYNC) {
        done(t, 0, 0, "NoSyncedSlavesException");
        return;
    }
    if (r->type == SIM_REPLY_ERR) {
        done(t, 0, 0, "error reply");
        return;
    }
    int64_t v = 0;
    if (r->type == SIM_REPLY_INT) v = r->integer;
    else if (r->type == SIM_REPLY_STR) v = strtoll(r->str, NULL, 10);
    done(t, what == SCN_OP_FORCEUNLOCK ? v == 1 : 1, v, NULL);
}

void rlock_force_unlock(cl_thread *t, int lock, proto_done_fn *done)
{
    cl_proc *p = t->p;
    const rlock_cfg *c = cfg_of(p);
    simple_op *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->done = done;
    op->what = SCN_OP_FORCEUNLOCK;
    int read = reads(t);
    cl_watchdog_cancel(p, lock, 0);
    if (read) cl_watchdog_cancel_read(p, lock, 0);
    char channel[192];
    channel_name(p, lock_key(t, lock), channel, sizeof channel);
    if (c->fair) {
        /* FAIR_FORCE_UNLOCK: purges with the client's now, wakes the head. */
        char queue[192], deadlines[192], now[24];
        fair_keys(lock_key(t, lock), queue, deadlines);
        sim_fmt_i64(now, cl_now_ms(p));
        const char *keys[] = {lock_key(t, lock), queue, deadlines, channel};
        const char *args[] = {"0", now, "publish"};
        cl_eval(p, rlock_node_of(p->cw, lock), c->force, 4, keys, c->publish_arg ? 3 : 2, args,
                flags(p, CL_RESEND), t->op_seq, on_simple_reply, op);
        return;
    }
    const char *keys[] = {lock_key(t, lock), channel};
    /* The rw write side publishes READ_UNLOCK (1). */
    const char *args[] = {c->read_acquire && !read ? "1" : "0", "publish"};
    cl_eval(p, rlock_node_of(p->cw, lock), read ? c->read_force : c->force, 2, keys, c->publish_arg ? 2 : 1,
            args, flags(p, CL_RESEND), t->op_seq, on_simple_reply, op);
}

void rlock_query(cl_thread *t, int lock, scn_op what, proto_done_fn *done)
{
    cl_proc *p = t->p;
    simple_op *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->done = done;
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
    cl_command(p, rlock_node_of(p->cw, lock), argc, argv, CL_RESEND, t->op_seq, on_simple_reply, op);
}

/* ------------------------------------------------------------ observer */

static int first_field(void *ud, const char *f, size_t flen, const char *v, size_t vlen)
{
    proto_store *out = ud;
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

void rlock_observe(cl_world *cw, int group, int lock, proto_store *out)
{
    world_peek_result pk;
    if (!cl_store_peek(cw, group, lock, out, &pk) || pk.type != WORLD_TYPE_HASH) return;
    const char *key = cl_key_name(cw, lock);
    world_peek_hash(cw->w, world_master(cw->w, group), key, strlen(key), first_field, out);
}

int64_t rlock_token(cl_thread *t, int lock)
{
    return state(t->p)->token[t->index - 1][lock];
}

/* -------------------------------------------------------- the versions */

/* The current client's settings (4.7.x), shared with the fenced, fair
 * and (without the script names) read/write locks. */
#define RLOCK_CURRENT_CLIENT                                                     \
    .unlock_latch = 1, .publish_arg = 1, .acquire_tr = CL_NORESEND, .unlock_tr = CL_NORESEND, \
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .try_timeout_fails = 1, \
    .lease0_is_watchdog = 1
#define RLOCK_SCRIPTS .unlock = "lock_unlock", .force = "lock_force_unlock"

const rlock_cfg rlock_current = {.acquire = "lock_acquire", RLOCK_SCRIPTS, RLOCK_CURRENT_CLIENT};

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
    .force = "fair_force_unlock", .fair = 1, .dequeue = "fair_dequeue", .thread_wait_ms = 300000,
    .wait_is_queue_wait = 1,
};

/* RedissonFairLock 3.13.2: the 2019 client (no unlock latch, resent
 * scripts, per-lock watchdog, lease 0 = 0 ms) with the pre-3.32 scripts
 * and threadWaitTime 5000 for every wait. Its WAIT after lock scripts
 * (3.12.5, result unchecked) is not modelled: only latency differs. */
const rlock_cfg rlock_fair_3132 = {
    .acquire = "fair2019_acquire", .unlock = "fair2019_unlock", .force = "fair2019_force_unlock",
    RLOCK_2019_SETTINGS, .fair = 1, .dequeue = "fair_dequeue", .thread_wait_ms = 5000,
    .wait_is_queue_wait = 0,
};

/* RedissonReadWriteLock: the current client with the rw scripts. */
const rlock_cfg rlock_rw = {
    .acquire = "rw_write_acquire", RLOCK_CURRENT_CLIENT,
    .unlock = "rw_write_unlock", .force = "rw_write_force_unlock",
    .read_acquire = "rw_read_acquire", .read_unlock = "rw_read_unlock", .read_force = "rw_read_force_unlock",
};
