/* baseline.c — the two baselines of PROTOCOLS.md §1–2, so users can see
 * what Redisson adds:
 *
 *  baseline.setnx  SETNX (+ a separate PEXPIRE, or none, or SET NX PX),
 *                  sleep-polling, release by an unconditional DEL: whoever
 *                  holds the key loses it;
 *  baseline.cad    SET NX PX with a unique token per acquisition, release
 *                  by compare-and-delete, optional compare-and-extend renewer.
 *
 * Neither is reentrant: a thread that asks again waits on itself. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/cl_int.h"

typedef char base_token[64];

/* Per process: each (thread, lock)'s current token and renewer. */
typedef struct base_proc {
    base_token (*token)[SCN_MAX_LOCKS]; /* [thread-1][lock] */
    cl_timer (*renew)[SCN_MAX_LOCKS];
    uint64_t counter;
} base_proc;

typedef enum base_kind { BASE_SETNX, BASE_CAD } base_kind;

typedef struct base_cfg {
    base_kind kind;
} base_cfg;

static const base_cfg setnx_cfg = {BASE_SETNX};
static const base_cfg cad_cfg = {BASE_CAD};

static base_kind kind_of(const cl_proc *p)
{
    return ((const base_cfg *)p->cw->proto->cfg)->kind;
}

static base_proc *state(cl_proc *p)
{
    return p->proto;
}

static void base_init(cl_proc *p)
{
    base_proc *b = sim_xcalloc(1, sizeof *b);
    b->token = sim_xcalloc((size_t)p->nthreads, sizeof *b->token);
    b->renew = sim_xcalloc((size_t)p->nthreads, sizeof *b->renew);
    p->proto = b;
}

static void base_free(cl_proc *p)
{
    base_proc *b = p->proto;
    if (b == NULL) return;
    sim_xfree(b->token);
    sim_xfree(b->renew);
    sim_xfree(b);
    p->proto = NULL;
}

static int base_node_of(const cl_world *cw, int lock)
{
    (void)cw;
    (void)lock;
    return 0;
}

static int64_t lease_ms_of(const cl_proc *p, int64_t lease_us)
{
    return lease_us > 0 ? lease_us / 1000 : 10000; /* the knob's default */
}

/* ------------------------------------------------------------- acquire */

typedef struct base_op {
    cl_thread *t;
    int lock;
    int64_t wait_us, lease_ms;
    int64_t start_ms;
    proto_done_fn *done;
    cl_timer sleep;
} base_op;

static void try_once(base_op *op);

static void op_end(base_op *op, int ok, const char *err)
{
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_timer_cancel(t->p, &op->sleep);
    cl_free(t->p, op);
    done(t, ok, 0, err);
}

static void on_pexpire(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    (void)r;
    (void)err;
    op_end(ud, 1, NULL); /* the key is ours whatever PEXPIRE answered */
}

static void on_sleep(cl_proc *p, void *arg)
{
    (void)p;
    try_once(arg);
}

static void renew_tick(cl_proc *p, void *arg);

static void on_try_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    base_op *op = ud;
    cl_thread *t = op->t;
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) {
        op_end(op, 0, err == CL_ERR_TIMEOUT ? "RedisResponseTimeoutException" : "RedisConnectionException");
        return;
    }
    int got = (r->type == SIM_REPLY_INT && r->integer == 1) || r->type == SIM_REPLY_STATUS;
    if (r->type == SIM_REPLY_ERR) {
        op_end(op, 0, "error reply");
        return;
    }
    if (got) {
        const char *mode = p->cw->s->expire_mode;
        if (kind_of(p) == BASE_SETNX && (mode == NULL || !strcmp(mode, "separate"))) {
            char ms[24];
            sim_fmt_i64(ms, op->lease_ms);
            const char *argv[] = {"PEXPIRE", p->cw->s->lock_names[op->lock], ms};
            cl_command(p, base_node_of(p->cw, op->lock), 3, argv, CL_RESEND, t->op_seq, on_pexpire, op);
            return;
        }
        if (kind_of(p) == BASE_CAD && p->cw->s->renew) {
            intptr_t key = (intptr_t)((t->index - 1) * SCN_MAX_LOCKS + op->lock);
            cl_timer_arm(p, &state(p)->renew[t->index - 1][op->lock], SIM_MS(op->lease_ms / 3),
                         "cad renew", renew_tick, (void *)key);
        }
        op_end(op, 1, NULL);
        return;
    }
    /* Held by someone: poll again unless the wait is used up. */
    int64_t poll = p->cw->s->poll_us;
    if (op->wait_us >= 0 && (cl_now_ms(p) - op->start_ms) * 1000 + poll > op->wait_us) {
        op_end(op, 0, NULL);
        return;
    }
    cl_timer_arm(p, &op->sleep, poll, "poll", on_sleep, op);
}

static void try_once(base_op *op)
{
    cl_thread *t = op->t;
    cl_proc *p = t->p;
    const char *name = p->cw->s->lock_names[op->lock];
    char *token = state(p)->token[t->index - 1][op->lock];
    const char *mode = p->cw->s->expire_mode;
    char ms[24];
    sim_fmt_i64(ms, op->lease_ms);
    if (kind_of(p) == BASE_CAD) {
        snprintf(token, 64, "%s:%d:%llu", p->id, t->index, (unsigned long long)++state(p)->counter);
    } else {
        snprintf(token, 64, "%s:%d", p->id, t->index);
    }
    if (kind_of(p) == BASE_CAD || (mode && !strcmp(mode, "atomic"))) {
        const char *argv[] = {"SET", name, token, "NX", "PX", ms};
        cl_command(p, base_node_of(p->cw, op->lock), 6, argv, CL_RESEND, t->op_seq, on_try_reply, op);
    } else {
        const char *argv[] = {"SETNX", name, token};
        cl_command(p, base_node_of(p->cw, op->lock), 3, argv, CL_RESEND, t->op_seq, on_try_reply, op);
    }
}

static void base_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, proto_done_fn *done)
{
    base_op *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->lock = lock;
    op->wait_us = wait_us;
    op->lease_ms = lease_ms_of(t->p, lease_us);
    op->start_ms = cl_now_ms(t->p);
    op->done = done;
    try_once(op);
}

/* ------------------------------------------------------------- renewal */

static void on_extend(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    intptr_t key = (intptr_t)ud;
    int thread = (int)(key / SCN_MAX_LOCKS), lock = (int)(key % SCN_MAX_LOCKS);
    if (err != CL_OK || r->type != SIM_REPLY_INT || r->integer != 1) {
        cl_trace(p, p->name, "cad renewer for %s stops", p->cw->s->lock_names[lock]);
        return;
    }
    int64_t lease = lease_ms_of(p, p->cw->s->lease_us);
    cl_timer_arm(p, &state(p)->renew[thread][lock], SIM_MS(lease / 3), "cad renew", renew_tick, ud);
}

static void renew_tick(cl_proc *p, void *arg)
{
    intptr_t key = (intptr_t)arg;
    int thread = (int)(key / SCN_MAX_LOCKS), lock = (int)(key % SCN_MAX_LOCKS);
    char ms[24];
    sim_fmt_i64(ms, lease_ms_of(p, p->cw->s->lease_us));
    const char *keys[] = {p->cw->s->lock_names[lock]};
    const char *args[] = {state(p)->token[thread][lock], ms};
    cl_eval(p, base_node_of(p->cw, lock), "cad_extend", 1, keys, 2, args, CL_NORESEND, 0, on_extend, arg);
}

/* ------------------------------------------------------------- release */

typedef struct base_rel {
    cl_thread *t;
    proto_done_fn *done;
} base_rel;

static void on_release(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    base_rel *op = ud;
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_free(p, op);
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) done(t, 0, 0, "no reply");
    else if (kind_of(p) == BASE_CAD && !(r->type == SIM_REPLY_INT && r->integer == 1))
        done(t, 0, 0, "not the owner any more (compare-and-delete found another token)");
    else done(t, 1, 0, NULL);
}

static void base_release(cl_thread *t, int lock, proto_done_fn *done)
{
    cl_proc *p = t->p;
    base_rel *op = cl_alloc(p, sizeof *op);
    op->t = t;
    op->done = done;
    cl_timer_cancel(p, &state(p)->renew[t->index - 1][lock]);
    const char *name = p->cw->s->lock_names[lock];
    if (kind_of(p) == BASE_CAD) {
        const char *keys[] = {name};
        const char *args[] = {state(p)->token[t->index - 1][lock]};
        cl_eval(p, base_node_of(p->cw, lock), "cad_release", 1, keys, 1, args, CL_NORESEND, t->op_seq,
                on_release, op);
    } else {
        const char *argv[] = {"DEL", name};
        cl_command(p, base_node_of(p->cw, lock), 2, argv, CL_RESEND, t->op_seq, on_release, op);
    }
}

static void base_force(cl_thread *t, int lock, proto_done_fn *done)
{
    base_rel *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->done = done;
    const char *argv[] = {"DEL", t->p->cw->s->lock_names[lock]};
    cl_command(t->p, base_node_of(t->p->cw, lock), 2, argv, CL_RESEND, t->op_seq, on_release, op);
}

static void on_query(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    base_rel *op = ud;
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_free(p, op);
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) done(t, 0, 0, "no reply");
    else done(t, 1, r->type == SIM_REPLY_INT ? r->integer : 0, NULL);
}

static void base_query(cl_thread *t, int lock, scn_op what, proto_done_fn *done)
{
    (void)what;
    base_rel *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->done = done;
    const char *argv[] = {"EXISTS", t->p->cw->s->lock_names[lock]};
    cl_command(t->p, base_node_of(t->p->cw, lock), 2, argv, CL_RESEND, t->op_seq, on_query, op);
}

/* ------------------------------------------------------------ observer */

static void base_observe(cl_world *cw, int group, int lock, proto_store *out)
{
    world_peek_result pk;
    if (!cl_store_peek(cw, group, lock, out, &pk)) return;
    out->count = 1;
    if (pk.type != WORLD_TYPE_STRING) return;
    /* "<uuid>:<thread>" or "<uuid>:<thread>:<counter>": keep two parts */
    size_t n = pk.len < sizeof out->owner - 1 ? pk.len : sizeof out->owner - 1;
    memcpy(out->owner, pk.str, n);
    out->owner[n] = '\0';
    char *c1 = strchr(out->owner, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2) *c2 = '\0';
}

const proto_def proto_baseline_setnx = {
    .name = "baseline.setnx",
    .summary = "SETNX + DEL, no owner check (expire-mode: separate | none | atomic)",
    .cfg = &setnx_cfg,
    .proc_init = base_init,
    .proc_free = base_free,
    .acquire = base_acquire,
    .release = base_release,
    .force_unlock = base_force,
    .query = base_query,
    .observe = base_observe,
    .node_of = base_node_of,
};

const proto_def proto_baseline_cad = {
    .name = "baseline.cad",
    .summary = "SET NX PX + compare-and-delete script, optional renewer (renew = yes)",
    .cfg = &cad_cfg,
    .proc_init = base_init,
    .proc_free = base_free,
    .acquire = base_acquire,
    .release = base_release,
    .force_unlock = base_force,
    .query = base_query,
    .observe = base_observe,
    .node_of = base_node_of,
};
