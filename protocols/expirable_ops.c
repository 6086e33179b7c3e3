/* expirable_ops.c — RPermitExpirableSemaphore's operations other than
 * acquire (expirable.c): release of a thread's oldest permits (PSEM_RELEASE
 * for one id, the list script for several; with nothing held, the ids it
 * released last, again), updateLeaseTime of its oldest permits,
 * addPermits, trySetPermits, availablePermits (which reclaims expired
 * permits first), the runtime's trySetPermits, and the store observer:
 * the available count and how many ids the timeout set holds.
 *
 * Every release's answer is recorded (HOP_PERMIT_END) with the number of
 * the permits it named, and every lease a permit gets (HOP_PERMIT), for
 * the lease checker. release() raises IllegalArgumentException when the
 * store did not release every id live. */
#include <stdio.h>
#include <string.h>

#include "protocols/expirable.h"

#define NOT_RELEASED "IllegalArgumentException: permit has already been released or doesn't exist"

void psem_proc_init(cl_proc *p)
{
    psem_proc *s = cl_alloc(p, sizeof *s);
    size_t slots = (size_t)cl_proc_threads(p) * SCN_MAX_LOCKS;
    s->held = cl_alloc(p, slots * sizeof *s->held);
    s->last = cl_alloc(p, slots * sizeof *s->last);
    *cl_proc_state(p) = s;
}

/* One script with the semaphore's keys in the order it takes them: KEYS
 * [name, channel, timeout set] (kind 'c') or [name, timeout set, channel]
 * (kind 't'). */
static void eval_keys(cl_thread *t, int lock, char kind, const char *script, int nargs, const char *const *args,
                      int flags, cl_cmd_fn *fn, void *ud)
{
    char timeout[192], channel[192];
    psem_timeout_key(t, lock, timeout, sizeof timeout);
    psem_channel(t, lock, channel, sizeof channel);
    const char *name = counter_key(t, lock);
    const char *keys_c[] = {name, channel, timeout};
    const char *keys_t[] = {name, timeout, channel};
    cl_world *cw = cl_proc_world(cl_thread_proc(t));
    cl_eval(cl_thread_proc(t), counter_node_of(cw, lock), cl_script_of(cw, script), 3, kind == 'c' ? keys_c : keys_t,
            nargs, args, flags, cl_thread_op(t), fn, ud);
}

/* ------------------------------------------------------------- release */

typedef struct rel_op {
    cl_op base;
    int64_t no; /* the permits' number (0: never acquired) */
    int n;
} rel_op;

static void on_release(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    rel_op *op = ud;
    const char *fail = counter_failure(r, err);
    if (fail) {
        cl_op_end(op, 0, 0, fail);
        return;
    }
    int released = counter_value(r) == op->n;
    cl_hist(p, op->base.t, HIST_INFO, HOP_PERMIT_END, op->base.lock, released, op->no, NULL);
    cl_op_end(op, released, 0, released ? NULL : NOT_RELEASED);
}

/* Sends the release of n ids; fn NULL: nobody waits (a rollback). */
static void send_release(cl_thread *t, int lock, char (*ids)[33], int n, cl_cmd_fn *fn, void *ud)
{
    const psem_cfg *c = psem_cfg_of(t);
    char now[24], num[24];
    sim_fmt_i64(now, cl_now_ms(cl_thread_proc(t)));
    if (n == 1) {
        const char *args[] = {ids[0], "1", now, "publish"};
        eval_keys(t, lock, 'c', c->release_checks ? "psem_release" : "psem2019_release", c->release_checks ? 4 : 2,
                  args, psem_release_flags(t), fn, ud);
        return;
    }
    const char *args[3 + 64];
    sim_fmt_i64(num, n);
    args[0] = num, args[1] = now, args[2] = "publish";
    for (int i = 0; i < n; i++) args[3 + i] = ids[i];
    eval_keys(t, lock, 'c', "psem_release_many", 3 + n, args, psem_release_flags(t), fn, ud);
}

void psem_release_ids(cl_thread *t, int lock, char (*ids)[33], int n)
{
    send_release(t, lock, ids, n, NULL, NULL);
}

void psem_release(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    psem_proc *s = psem_state(t);
    size_t k = psem_slot(t, lock);
    psem_grant *g = s->held[k];
    if (g) { /* the oldest grant leaves; it is the one sent again next time */
        s->held[k] = g->next;
        g->next = NULL;
        if (s->last[k]) {
            cl_free(p, s->last[k]->ids);
            cl_free(p, s->last[k]);
        }
        s->last[k] = g;
    } else {
        g = s->last[k];
    }
    rel_op *op = cl_op_new(t, sizeof *op, lock, done);
    if (g == NULL) { /* never acquired: an id the store never saw */
        char id[1][33];
        cl_random_hex(p, id[0]);
        op->n = 1;
        send_release(t, lock, id, 1, on_release, op);
        return;
    }
    op->no = g->no;
    op->n = g->n;
    send_release(t, lock, g->ids, g->n, on_release, op);
}

/* ----------------------------------------------------- updateLeaseTime */

typedef struct lease_op {
    cl_op base;
    psem_grant *g;
    int next;         /* the next id to update */
    int64_t lease_us; /* SCN_LEASE_WATCHDOG: none */
} lease_op;

static void update_next(lease_op *op);

static void on_update(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    lease_op *op = ud;
    const char *fail = counter_failure(r, err);
    if (fail || counter_value(r) != 1) {
        cl_op_end(op, 0, 0, fail);
        return;
    }
    if (++op->next < op->g->n) {
        update_next(op);
        return;
    }
    cl_hist(p, op->base.t, HIST_INFO, HOP_PERMIT, op->base.lock, op->lease_us < 0 ? INT64_MAX : op->lease_us,
            op->g->no, NULL);
    cl_op_end(op, 1, 1, NULL);
}

static void update_next(lease_op *op)
{
    cl_thread *t = op->base.t;
    char deadline[24], now[24];
    int64_t now_ms = cl_now_ms(cl_thread_proc(t));
    sim_fmt_i64(now, now_ms);
    if (op->lease_us < 0) snprintf(deadline, sizeof deadline, "%s", PSEM_NO_LEASE);
    else sim_fmt_i64(deadline, now_ms + op->lease_us / 1000);
    const char *args[] = {op->g->ids[op->next], deadline, now, "publish"};
    eval_keys(t, op->base.lock, 't', "psem_update_lease", 4, args, psem_flags(t), on_update, op);
}

static void update_lease(cl_thread *t, int lock, int64_t lease_us, cl_done_fn *done)
{
    if (!psem_cfg_of(t)->has_update) {
        done(t, 0, 0, "RPermitExpirableSemaphore.updateLeaseTime exists since Redisson 3.8.2");
        return;
    }
    psem_grant *g = psem_state(t)->held[psem_slot(t, lock)];
    if (g == NULL) {
        done(t, 0, 0, "the thread holds no permit to update");
        return;
    }
    lease_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->g = g;
    op->lease_us = lease_us;
    update_next(op);
}

/* ------------------------------------------------------- the other steps */

static void on_value(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    const char *fail = counter_failure(r, err);
    cl_op_end(ud, fail == NULL, fail ? 0 : counter_value(r), fail);
}

void psem_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    if (what == SCN_OP_UPDATELEASE) {
        update_lease(t, lock, cl_thread_lease_us(t), done);
        return;
    }
    char num[24], now[24];
    sim_fmt_i64(num, cl_thread_permits(t) ? cl_thread_permits(t) : 1);
    sim_fmt_i64(now, cl_now_ms(cl_thread_proc(t)));
    int flags = cl_lock_flags(cl_thread_proc(t), CL_RESEND);
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    if (what == SCN_OP_ADDPERMITS || what == SCN_OP_TRYSETPERMITS) {
        const char *args[] = {num, "publish"};
        eval_keys(t, lock, 'c', what == SCN_OP_ADDPERMITS ? "psem_add" : "sem_try_set", 2, args, flags, on_value, op);
    } else {
        const char *args[] = {now, "publish"};
        eval_keys(t, lock, 't', "psem_available", 2, args, flags, on_value, op);
    }
}

/* ---------------------------------------------------- setup, observer */

void psem_setup(cl_world *cw)
{
    const scenario *s = cl_world_scenario(cw);
    for (int lock = 0; lock < s->nlocks; lock++) {
        char channel[192], num[24];
        proto_brace_name("redisson_sc:", s->lock_names[lock], channel, sizeof channel);
        sim_fmt_i64(num, s->init_permits);
        const char *keys[] = {s->lock_names[lock], channel};
        const char *args[] = {num, "publish"};
        counter_setup(cw, lock, "sem_try_set", keys, 2, args, s->init_permits);
    }
}

void psem_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    counter_observe(cw, group, lock, out);
    char timeout[192];
    psem_timeout_name(cl_key_name(cw, lock), timeout, sizeof timeout);
    world_peek_result pk;
    if (cl_store_peek_key(cw, group, timeout, &pk) && pk.type == WORLD_TYPE_ZSET) out->acquired = (int64_t)pk.count;
}
