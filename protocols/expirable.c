/* expirable.c — RPermitExpirableSemaphore, client side (PROTOCOLS.md §6.3):
 * permits with ids and a lease each. tryAcquire(n, lease) is one
 * PSEM_ACQUIRE with n fresh ids and the deadline now + lease on the client
 * clock (no lease: the score 922337203685477): it first gives back permits
 * whose deadline has passed, then takes n, or answers the nearest deadline
 * of a held permit. acquire(n, lease) and tryAcquire(n, wait, lease) wait
 * on the semaphore channel for the earlier of a message and that nearest
 * deadline (for ever for acquire() when no held permit has a lease);
 * api=async waits as a listener of the entry.
 *
 * Scenario operations: lock = acquire(n, lease), trylock =
 * tryAcquire(n, wait, lease), unlock = release of the thread's oldest
 * permits (expirable_ops.c), with lease from the step or [protocol] lease
 * (-1: none); steps addpermits, trysetpermits, availablepermits,
 * updatelease. Releases (PSEM_AT_VERSION below, from Redisson's sources,
 * CHANGELOG and issues):
 *  - 3.11 .. 3.23.3: one id per call (the API acquired one permit), the
 *    publish command written in; 3.23.4: acquire(n) / release(ids), n ids
 *    per call ("methods for multiple permits support added");
 *  - before 3.17.0 a release does not look at the lease: a permit past it,
 *    not yet reclaimed, is answered "released" (issue #4086, PR #4091);
 *  - the acquire is resent after a reply timeout from 3.10.0 to 3.36
 *    (3.37.0: syncedEvalNoRetry; never resent before 3.10.0), a release
 *    in every release: a resent acquire takes its permits twice and
 *    keeps one id, so a permit is lost for good; WAIT for replicas since
 *    3.21.0;
 *  - a message adds v latch permits before 3.15.6, min(refs, v) after;
 *    a blocking wait takes n latch permits until 3.51.0 (issue #6664,
 *    PR #6665, merged 2025-06-27 after 3.50.0): tryAcquire(n > 1, wait)
 *    then sleeps through a release(n), whose message gives it one;
 *  - a listener re-checks the latch since 3.28.0 (issue #5762). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/expirable.h"

static const psem_cfg psem_current = {.multi = 1, .release_checks = 1, .tr = CL_NORESEND, .recheck = 1,
                                      .has_update = 1};

const psem_cfg *psem_cfg_of(const cl_thread *t)
{
    return cl_world_cfg(cl_proc_world(cl_thread_proc(t)));
}

psem_proc *psem_state(cl_thread *t)
{
    return *cl_proc_state(cl_thread_proc(t));
}

size_t psem_slot(const cl_thread *t, int lock)
{
    return (size_t)(cl_thread_index(t) - 1) * SCN_MAX_LOCKS + (size_t)lock;
}

int psem_release_flags(const cl_thread *t)
{
    /* tryReleaseAsync: syncedEvalWithRetry (or evalWriteAsync) in every
     * release, 4.7.0 too: resent after a reply timeout */
    return cl_lock_flags(cl_thread_proc(t), CL_RESEND);
}

int psem_flags(const cl_thread *t)
{
    return cl_lock_flags(cl_thread_proc(t), psem_cfg_of(t)->tr);
}

void psem_timeout_name(const char *name, char *buf, size_t cap)
{
    if (strchr(name, '{')) snprintf(buf, cap, "%s:timeout", name);
    else snprintf(buf, cap, "{%s}:timeout", name);
}

void psem_timeout_key(const cl_thread *t, int lock, char *buf, size_t cap)
{
    psem_timeout_name(counter_key(t, lock), buf, cap);
}

void psem_channel(const cl_thread *t, int lock, char *buf, size_t cap)
{
    proto_brace_name("redisson_sc:", counter_key(t, lock), buf, cap);
}

/* ------------------------------------------------------------- acquire */

typedef struct psem_op {
    counter_acq a;       /* first: the wait, the subscription, RETRY-NOSYNC */
    int64_t n;
    int64_t lease_ms;    /* -1: none */
    int64_t nearest_ms;  /* the nearest deadline's distance (-1: none) */
    int64_t sent_ms;     /* the client's clock when this attempt's deadline was set */
    char (*ids)[33];     /* this attempt's ids */
} psem_op;

static void try_send(counter_acq *a);

static void psem_end(counter_acq *a, int ok, const char *err)
{
    cl_free(cl_thread_proc(a->base.t), ((psem_op *)a)->ids);
    cl_op_end(a, ok, 0, err);
}

/* The ids of this attempt become a grant of the thread. */
static void grant(psem_op *op)
{
    cl_thread *t = op->a.base.t;
    cl_proc *p = cl_thread_proc(t);
    psem_proc *s = psem_state(t);
    psem_grant *g = cl_alloc(p, sizeof *g);
    g->no = ++s->next_no;
    g->n = (int)op->n;
    g->ids = op->ids;
    op->ids = NULL;
    psem_grant **tail = &s->held[psem_slot(t, op->a.base.lock)];
    while (*tail) tail = &(*tail)->next;
    *tail = g;
    /* The script got an absolute deadline, the attempt's clock + the lease
     * (Redisson's calcTimeout: System.currentTimeMillis() + leaseTime,
     * redisson-4.7.0 RedissonPermitExpirableSemaphore.java), and a command
     * resent after a disconnect or a retry keeps it: what is left of the
     * lease now is what the history tells. */
    int64_t left_ms = op->lease_ms - (cl_now_ms(p) - op->sent_ms);
    cl_hist(p, t, HIST_INFO, HOP_PERMIT, op->a.base.lock,
            op->lease_ms < 0 ? INT64_MAX : SIM_MS(left_ms > 0 ? left_ms : 0), g->no, NULL);
}

/* The reply: acquired ("OK", or the id before 3.23.4), the nearest
 * deadline (":<score>"), or nil. */
static int acquired(const psem_op *op, const sim_reply *r)
{
    if (r == NULL || r->type != SIM_REPLY_STR || r->str == NULL) return 0;
    if (r->len == 2 && memcmp(r->str, "OK", 2) == 0) return 1;
    return r->len == 32 && memcmp(r->str, op->ids[0], 32) == 0;
}

static void on_try_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    psem_op *op = ud;
    if (err == CL_ERR_NOSYNC) {
        if (acquired(op, r)) psem_release_ids(op->a.base.t, op->a.base.lock, op->ids, (int)op->n);
        if (!counter_acq_nosync(&op->a, p))
            psem_end(&op->a, 0, "NoSyncedSlavesException: no replica acknowledged the acquire");
        return;
    }
    const char *fail = counter_failure(r, err);
    if (fail) {
        psem_end(&op->a, 0, fail); /* the permits may have been taken: they come back with their lease */
        return;
    }
    if (acquired(op, r)) {
        grant(op);
        psem_end(&op->a, 1, NULL);
        return;
    }
    op->nearest_ms = -1;
    if (r && r->type == SIM_REPLY_STR && r->len > 1 && r->str[0] == ':')
        op->nearest_ms = strtoll(r->str + 1, NULL, 10) - cl_now_ms(p);
    if (op->a.w.wait_ms == 0 || counter_wait_charge(&op->a.w, p)) {
        psem_end(&op->a, 0, NULL);
        return;
    }
    const psem_cfg *c = psem_cfg_of(op->a.base.t);
    if (op->a.state == COUNTER_FIRST) {
        counter_acq_subscribe(&op->a, p, (c->adds_count ? CL_SUB_ADDS_COUNT : 0) | (c->recheck ? CL_SUB_RECHECK : 0) |
                                                     c->msg_policy);
        return;
    }
    /* A message, the nearest deadline or the rest of a bounded wait,
     * whichever comes first. */
    int64_t us = counter_wait_us(&op->a.w);
    if (op->nearest_ms >= 0) {
        int64_t near_us = SIM_MS(op->nearest_ms > 0 ? op->nearest_ms : 1);
        if (us < 0 || near_us < us) us = near_us;
    }
    int64_t take = c->latch_n ? op->n : 1;
    counter_acq_wait(&op->a, p, take, take, us);
}

static void try_send(counter_acq *a)
{
    psem_op *op = (psem_op *)a;
    cl_thread *t = a->base.t;
    cl_proc *p = cl_thread_proc(t);
    const psem_cfg *c = psem_cfg_of(t);
    if (op->ids == NULL) op->ids = cl_alloc(p, (size_t)op->n * sizeof *op->ids);
    for (int64_t i = 0; i < op->n; i++) cl_random_hex(p, op->ids[i]);
    char timeout[192], channel[192], num[24], deadline[24], now[24];
    psem_timeout_key(t, a->base.lock, timeout, sizeof timeout);
    psem_channel(t, a->base.lock, channel, sizeof channel);
    sim_fmt_i64(num, op->n);
    a->w.mark_ms = cl_now_ms(p);
    op->sent_ms = a->w.mark_ms;
    sim_fmt_i64(now, a->w.mark_ms);
    if (op->lease_ms < 0) snprintf(deadline, sizeof deadline, "%s", PSEM_NO_LEASE);
    else sim_fmt_i64(deadline, a->w.mark_ms + op->lease_ms);
    const char *keys[] = {counter_key(t, a->base.lock), timeout, channel};
    const char *args[5 + 64];
    int nargs;
    if (c->multi) {
        args[0] = num, args[1] = deadline, args[2] = now, args[3] = PSEM_NO_LEASE, args[4] = "publish";
        for (int64_t i = 0; i < op->n; i++) args[5 + i] = op->ids[i];
        nargs = 5 + (int)op->n;
    } else {
        args[0] = num, args[1] = deadline, args[2] = op->ids[0], args[3] = now, args[4] = PSEM_NO_LEASE;
        nargs = 5;
    }
    cl_world *cw = cl_proc_world(p);
    cl_eval(p, counter_node_of(cw, a->base.lock), cl_script_of(cw, c->multi ? "psem_acquire" : "psem2019_acquire"),
            3, keys, nargs, args, psem_flags(t), cl_thread_op(t), on_try_reply, op);
}

static void psem_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    int64_t n = cl_thread_permits(t) > 0 ? cl_thread_permits(t) : 1;
    if (n > 1 && !psem_cfg_of(t)->multi) {
        done(t, 0, 0, "RPermitExpirableSemaphore.acquire(permits, ...) exists since Redisson 3.23.4");
        return;
    }
    if (n > 64) {
        done(t, 0, 0, "locksim: an expirable semaphore acquires at most 64 permits at once");
        return;
    }
    psem_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->n = n;
    op->lease_ms = lease_us < 0 ? -1 : lease_us / 1000;
    op->nearest_ms = -1;
    op->a.retry = try_send;
    op->a.end = psem_end;
    counter_wait_start(&op->a.w, cl_thread_proc(t), wait_us);
    try_send(&op->a);
}

static void psem_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    (void)lock;
    done(t, 0, 0, "a semaphore has no forceUnlock");
}

/* The settings of release v (PROTO_V). */
static void psem_at_version(int v, void *cfg, cl_defaults *d)
{
    psem_cfg *c = cfg;
    c->multi = v >= PROTO_V(3, 23, 4);
    c->release_checks = v >= PROTO_V(3, 17, 0);
    /* tryAcquire goes syncedEvalNoRetry in 3.37.0 (85be4d67a); a release
     * is resent in every release (psem_release_flags) */
    c->tr = v >= PROTO_V(3, 37, 0) ? CL_NORESEND : CL_RESEND;
    c->adds_count = v < PROTO_V(3, 15, 6);
    c->latch_n = v < PROTO_V(3, 51, 0);
    c->recheck = v >= PROTO_V(3, 28, 0);
    c->msg_policy = counter_msg_policy(v);
    c->has_update = v >= PROTO_V(3, 8, 2);
    counter_client_at(v, d);
}

/* The scripts of a release (expirable_ops.c sends most of them). */
static size_t psem_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    (void)d;
    const psem_cfg *c = cfg;
    const char *names[8] = {c->multi ? "psem_acquire" : "psem2019_acquire",
                            c->release_checks ? "psem_release" : "psem2019_release", "psem_update_lease",
                            "psem_add", "sem_try_set", "psem_available"};
    size_t n = 6;
    if (c->multi) names[n++] = "psem_release_many"; /* n ids at once */
    return proto_names_out(names, n, out, max);
}

const proto_def proto_expirable_semaphore = {
    .name = "redisson.expirable-semaphore",
    .contract = &proto_contract_client_time,
    .summary = "RPermitExpirableSemaphore (4.7.x): permits with ids and a lease each, {name}:timeout holds them",
    .options = "[protocol] permits = N (trySetPermits before the workload; default 1), lease (-1: none); "
               "lock = acquire(n, lease), trylock = tryAcquire(n, wait, lease), unlock = release of the "
               "thread's oldest permits (with none: the last ones again); api=async; steps addpermits, "
               "trysetpermits, availablepermits, updatelease",
    .versions = "@3.0 .. @4.7 (a message adds v latch permits before 3.15.6; a written script never resent "
                "before 3.10.0, the acquire resent 3.10.0-3.36 (3.37.0: no retry), a release in every one; "
                "updateLeaseTime since 3.8.2; release checks the lease since "
                "3.17.0; WAIT since 3.21.0; n ids per acquire since 3.23.4; async listeners as the semaphore's; "
                "waits take one latch permit since 3.51.0)",
    .min_version = 30000,
    .at_version = psem_at_version,
    .cfg_size = sizeof(psem_cfg),
    .scripts = psem_scripts,
    .steps = PROTO_STEP(SCN_OP_ADDPERMITS) | PROTO_STEP(SCN_OP_TRYSETPERMITS) |
             PROTO_STEP(SCN_OP_AVAILABLEPERMITS) | PROTO_STEP(SCN_OP_UPDATELEASE) | PROTO_ASYNC,
    .impl = {
        .cfg = &psem_current,
        .defaults = &counter_current,
        .script = proto_script_find,
        .proc_init = psem_proc_init,
        .acquire = psem_acquire,
        .release = psem_release,
        .force_unlock = psem_force_unlock,
        .query = psem_query,
        .observe = psem_observe,
        .node_of = counter_node_of,
        .invariants = PROTO_INV(SCN_INV_PERMITS) | PROTO_INV(SCN_INV_LIVENESS) | PROTO_INV(SCN_INV_DEADLOCK) |
                      PROTO_INV(SCN_INV_LEASES),
        .setup = psem_setup,
        .reentry = CL_REENTRY_NO, /* permits with ids, not a thread's hold: no re-entry */
    },
};
