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
 * permits (1 when not given); api=async is acquireAsync / tryAcquireAsync,
 * whose waits are listeners of the entry (a message runs one of them).
 * The runtime sets [protocol] permits with trySetPermits before the
 * workload; steps addpermits, trysetpermits, drainpermits and
 * availablepermits run the others. There is no owner and no lease: a
 * crashed holder's permits never come back.
 *
 * Releases differ in how a message wakes waiters and in what addPermits
 * publishes (sem_at_version, from Redisson's CHANGELOG and sources):
 *  - before 3.15.6 a message adds its whole count v to the entry's latch
 *    (SemaphorePubSub: latch.release(v)) and acquire(n) waits for n latch
 *    permits; v accumulates in a java.util.concurrent.Semaphore, whose
 *    release() throws "Maximum permit count exceeded" past 2^31 - 1, and
 *    the waiters are never woken again (fixed in 3.15.6: "RSemaphore
 *    permits can't be acquired due to 'Maximum permit count exceeded'");
 *    since then min(references, v) and one permit per wake-up;
 *  - addPermits (3.12.0) set the count without publishing until 3.16.2
 *    ("threads waiting for RSemaphore permits acquisition unable to
 *    acquire them if permits added");
 *  - tryAcquire and release are resent after a reply timeout from 3.10.0
 *    to 3.36 (3.37.0: syncedEvalNoRetry, 85be4d67a; the CHANGELOG's
 *    3.16.4 line, issue #3850, reached the latch's countDown only;
 *    nothing written is resent before 3.10.0), addPermits in every
 *    release; scripts wait for replicas since 3.21.0 (issue #4977);
 *  - since 3.28.0 (issues #5761, #5762) a listener added while the latch
 *    holds a permit runs at once. */
#include <stdio.h>
#include <string.h>

#include "protocols/counter.h"


typedef struct sem_cfg {
    int adds_count;    /* a message adds v latch permits; waits take n (< 3.15.6) */
    int has_add;       /* addPermits exists (3.12.0) */
    int add_publishes; /* addPermits publishes the new count (3.16.2) */
    int tr;            /* CL_RESEND before 3.37.0, CL_NORESEND since */
    int recheck;       /* addListener looks at the latch (3.28.0) */
    int msg_policy;    /* how a message runs listeners (counter_msg_policy) */
} sem_cfg;

static const sem_cfg sem_current = {.has_add = 1, .add_publishes = 1, .tr = CL_NORESEND, .recheck = 1};

static const sem_cfg *cfg_of(const cl_thread *t)
{
    return cl_world_cfg(cl_proc_world(cl_thread_proc(t)));
}

static int64_t permits_of(const cl_thread *t)
{
    return cl_thread_permits(t) > 0 ? cl_thread_permits(t) : 1;
}

static int sem_flags(const cl_thread *t)
{
    return cl_lock_flags(cl_thread_proc(t), cfg_of(t)->tr);
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
    if (done) counter_simple_eval(t, lock, "sem_release", keys, 2, args, sem_flags(t), done);
    else {
        cl_world *cw = cl_proc_world(cl_thread_proc(t));
        cl_eval(cl_thread_proc(t), counter_node_of(cw, lock), cl_script_of(cw, "sem_release"), 2, keys, 2, args,
                sem_flags(t), cl_thread_op(t), NULL, NULL);
    }
}

/* ------------------------------------------------------------- acquire */

typedef struct sem_op {
    counter_acq a; /* first: the wait, the subscription, RETRY-NOSYNC */
    int64_t n;
} sem_op;

static void try_send(counter_acq *a);

static void sem_end(counter_acq *a, int ok, const char *err)
{
    cl_op_end(a, ok, 0, err);
}

/* The acquire ran on the master but no replica acknowledged it: give the
 * permits back if it took them, then run it again, or fail once the
 * attempts are used up. */
static void sem_nosync(sem_op *op, const sim_reply *r)
{
    cl_proc *p = cl_thread_proc(op->a.base.t);
    if (counter_value(r) == 1) send_release(op->a.base.t, op->a.base.lock, op->n, NULL);
    if (!counter_acq_nosync(&op->a, p))
        sem_end(&op->a, 0, "NoSyncedSlavesException: no replica acknowledged the acquire");
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
        sem_end(&op->a, 0, fail); /* NR: the permits may have been taken */
        return;
    }
    if (counter_value(r) == 1) {
        sem_end(&op->a, 1, NULL);
        return;
    }
    if (op->a.w.wait_ms == 0 || counter_wait_charge(&op->a.w, p)) {
        sem_end(&op->a, 0, NULL);
        return;
    }
    const sem_cfg *c = cfg_of(op->a.base.t);
    if (op->a.state == COUNTER_FIRST) {
        counter_acq_subscribe(&op->a, p, (c->adds_count ? CL_SUB_ADDS_COUNT : 0) | (c->recheck ? CL_SUB_RECHECK : 0) |
                                                     c->msg_policy);
        return;
    }
    /* No ttl to bound it: a message, or the rest of the wait (or for ever).
     * The blocking API waits for n latch permits before 3.15.6, one since;
     * acquireAsync took n of them before 3.15.6, tryAcquireAsync one. */
    counter_acq_wait(&op->a, p, c->adds_count ? op->n : 1, c->adds_count && op->a.w.wait_ms < 0 ? op->n : 1,
                     counter_wait_us(&op->a.w));
}

static void try_send(counter_acq *a)
{
    sem_op *op = (sem_op *)a;
    cl_proc *p = cl_thread_proc(a->base.t);
    char num[24];
    sim_fmt_i64(num, op->n);
    const char *keys[] = {counter_key(a->base.t, a->base.lock)};
    const char *args[] = {num};
    a->w.mark_ms = cl_now_ms(p);
    cl_eval(p, counter_node_of(cl_proc_world(p), a->base.lock), cl_script_of(cl_proc_world(p), "sem_try_acquire"), 1,
            keys, 1, args, sem_flags(a->base.t), cl_thread_op(a->base.t), on_try_reply, op);
}

static void sem_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    (void)lease_us; /* no lease: the permits are held until released */
    sem_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->n = permits_of(t);
    op->a.retry = try_send;
    op->a.end = sem_end;
    counter_wait_start(&op->a.w, cl_thread_proc(t), wait_us);
    try_send(&op->a);
}

/* ----------------------------------------------------- release, queries */

static void sem_release(cl_thread *t, int lock, cl_done_fn *done)
{
    send_release(t, lock, permits_of(t), done);
}

/* addPermits(n): the current script publishes the new count; 3.12.0 to
 * 3.16.1 only set it. */
static void sem_add(cl_thread *t, int lock, cl_done_fn *done)
{
    const sem_cfg *c = cfg_of(t);
    if (!c->has_add) {
        done(t, 0, 0, "RSemaphore.addPermits exists since Redisson 3.12.0");
        return;
    }
    char channel[192], num[24];
    channel_of(t, lock, channel, sizeof channel);
    sim_fmt_i64(num, cl_thread_permits(t));
    const char *keys[] = {counter_key(t, lock), channel};
    const char *args[] = {num, "publish"};
    counter_simple_eval(t, lock, c->add_publishes ? "sem_add" : "sem2019_add", keys, 2, args,
                        cl_lock_flags(cl_thread_proc(t), CL_RESEND), done);
}

/* Steps: addpermits, trysetpermits, drainpermits; every other query is
 * availablePermits (GET; nil is 0). */
static void sem_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    char channel[192], num[24];
    channel_of(t, lock, channel, sizeof channel);
    sim_fmt_i64(num, permits_of(t));
    const char *keys[] = {counter_key(t, lock), channel};
    const char *args[] = {num, "publish"};
    int flags = cl_lock_flags(cl_thread_proc(t), CL_RESEND);
    if (what == SCN_OP_ADDPERMITS) sem_add(t, lock, done);
    else if (what == SCN_OP_TRYSETPERMITS) counter_simple_eval(t, lock, "sem_try_set", keys, 2, args, flags, done);
    else if (what == SCN_OP_DRAINPERMITS) counter_simple_eval(t, lock, "sem_drain", keys, 0, NULL, flags, done);
    else counter_get(t, lock, done);
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

/* The settings of release v (PROTO_V). */
static void sem_at_version(int v, void *cfg, cl_defaults *d)
{
    sem_cfg *c = cfg;
    c->adds_count = v < PROTO_V(3, 15, 6);
    c->has_add = v >= PROTO_V(3, 12, 0);
    c->add_publishes = v >= PROTO_V(3, 16, 2);
    /* tryAcquire and release go syncedEvalNoRetry in 3.37.0 (85be4d67a);
     * 3.16.4's noRetry (issue #3850) reached the latch's countDown only */
    c->tr = v >= PROTO_V(3, 37, 0) ? CL_NORESEND : CL_RESEND;
    c->recheck = v >= PROTO_V(3, 28, 0);
    c->msg_policy = counter_msg_policy(v);
    counter_client_at(v, d);
}

/* The scripts of a release: addPermits's only where it exists. */
static size_t sem_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    (void)d;
    const sem_cfg *c = cfg;
    const char *names[5] = {"sem_try_acquire", "sem_release", "sem_try_set", "sem_drain"};
    size_t n = 4;
    if (c->has_add) names[n++] = c->add_publishes ? "sem_add" : "sem2019_add";
    return proto_names_out(names, n, out, max);
}

const proto_def proto_semaphore = {
    .name = "redisson.semaphore",
    .contract = &proto_contract_semaphore,
    .summary = "RedissonSemaphore (4.7.x): permits in a string key, acquire(n) waits on redisson_sc:{name}",
    .options = "[protocol] permits = N (trySetPermits before the workload; default 1); "
               "lock = acquire(n), trylock = tryAcquire(n, wait), unlock = release(n); "
               "n from permits=N on a step or [clients] permits = A..B (default 1); api=async on a step "
               "or [clients] async = yes: acquireAsync / tryAcquireAsync; steps addpermits, trysetpermits, "
               "drainpermits, availablepermits",
    .versions = "@3.0 .. @4.7 (a message adds v latch permits before 3.15.6; addPermits from 3.12.0, "
                "publishing from 3.16.2; a written script never resent before 3.10.0, acquire and release resent "
                "3.10.0-3.36 (syncedEvalNoRetry 3.37.0), addPermits always; "
                "WAIT since 3.21.0; async listeners take a message's permits up to 3.7.0, all run in 3.7.1, "
                "one since 3.7.2, re-check since 3.28.0; acquire() waits for its subscription for ever up to 3.2.0)",
    .min_version = 30000,
    .at_version = sem_at_version,
    .cfg_size = sizeof(sem_cfg),
    .scripts = sem_scripts,
    .steps = PROTO_STEPS_SEMAPHORE | PROTO_ASYNC,
    .impl = {
        .cfg = &sem_current,
        .defaults = &counter_current,
        .script = proto_script_find,
        .acquire = sem_acquire,
        .release = sem_release,
        .force_unlock = sem_force_unlock,
        .query = sem_query,
        .observe = counter_observe,
        .node_of = counter_node_of,
        .invariants = PROTO_INV(SCN_INV_PERMITS) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK),
        .setup = sem_setup,
        .reentry = CL_REENTRY_NO, /* permits, not a thread's hold: no re-entry */
    },
};
