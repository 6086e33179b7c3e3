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

#include "protocols/protocol.h"

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
    return ((const base_cfg *)cl_world_cfg(cl_proc_world(p)))->kind;
}

static base_proc *state(cl_proc *p)
{
    return (*cl_proc_state(p));
}

static void base_init(cl_proc *p)
{
    base_proc *b = sim_xcalloc(1, sizeof *b);
    b->token = sim_xcalloc((size_t)cl_proc_threads(p), sizeof *b->token);
    b->renew = sim_xcalloc((size_t)cl_proc_threads(p), sizeof *b->renew);
    (*cl_proc_state(p)) = b;
}

static void base_free(cl_proc *p)
{
    base_proc *b = (*cl_proc_state(p));
    if (b == NULL) return;
    sim_xfree(b->token);
    sim_xfree(b->renew);
    sim_xfree(b);
    (*cl_proc_state(p)) = NULL;
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
    cl_op base;        /* its timer: the poll's sleep */
    int64_t wait_us, lease_ms;
    int64_t start_ms;
} base_op;

static void try_once(base_op *op);

static void op_end(base_op *op, int ok, const char *err)
{
    cl_op_end(op, ok, 0, err);
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
    cl_thread *t = op->base.t;
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION) {
        op_end(op, 0, cl_err_exception(err));
        return;
    }
    int got = (r->type == SIM_REPLY_INT && r->integer == 1) || r->type == SIM_REPLY_STATUS;
    if (r->type == SIM_REPLY_ERR) {
        op_end(op, 0, "error reply");
        return;
    }
    if (got) {
        const char *mode = cl_world_scenario(cl_proc_world(p))->expire_mode;
        if (kind_of(p) == BASE_SETNX && (mode == NULL || !strcmp(mode, "separate"))) {
            char ms[24];
            sim_fmt_i64(ms, op->lease_ms);
            const char *argv[] = {"PEXPIRE", cl_world_scenario(cl_proc_world(p))->lock_names[op->base.lock], ms};
            cl_command(p, base_node_of(cl_proc_world(p), op->base.lock), 3, argv, CL_RESEND, cl_thread_op(t), on_pexpire, op);
            return;
        }
        if (kind_of(p) == BASE_CAD && cl_world_scenario(cl_proc_world(p))->renew) {
            intptr_t key = (intptr_t)((cl_thread_index(t) - 1) * SCN_MAX_LOCKS + op->base.lock);
            cl_timer_arm(p, &state(p)->renew[cl_thread_index(t) - 1][op->base.lock], SIM_MS(op->lease_ms / 3),
                         "cad renew", renew_tick, (void *)key);
        }
        op_end(op, 1, NULL);
        return;
    }
    /* Held by someone: poll again unless the wait is used up. */
    int64_t poll = cl_world_scenario(cl_proc_world(p))->poll_us;
    if (op->wait_us >= 0 && (cl_now_ms(p) - op->start_ms) * 1000 + poll > op->wait_us) {
        op_end(op, 0, NULL);
        return;
    }
    cl_timer_arm(p, &op->base.timer, poll, "poll", on_sleep, op);
}

static void try_once(base_op *op)
{
    cl_thread *t = op->base.t;
    cl_proc *p = cl_thread_proc(t);
    const char *name = cl_world_scenario(cl_proc_world(p))->lock_names[op->base.lock];
    char *token = state(p)->token[cl_thread_index(t) - 1][op->base.lock];
    const char *mode = cl_world_scenario(cl_proc_world(p))->expire_mode;
    char ms[24];
    sim_fmt_i64(ms, op->lease_ms);
    if (kind_of(p) == BASE_CAD) {
        snprintf(token, 64, "%s:%d:%llu", cl_proc_id(p), cl_thread_index(t), (unsigned long long)++state(p)->counter);
    } else {
        snprintf(token, 64, "%s:%d", cl_proc_id(p), cl_thread_index(t));
    }
    if (kind_of(p) == BASE_CAD || (mode && !strcmp(mode, "atomic"))) {
        const char *argv[] = {"SET", name, token, "NX", "PX", ms};
        cl_command(p, base_node_of(cl_proc_world(p), op->base.lock), 6, argv, CL_RESEND, cl_thread_op(t), on_try_reply, op);
    } else {
        const char *argv[] = {"SETNX", name, token};
        cl_command(p, base_node_of(cl_proc_world(p), op->base.lock), 3, argv, CL_RESEND, cl_thread_op(t), on_try_reply, op);
    }
}

static void base_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    base_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->wait_us = wait_us;
    op->lease_ms = lease_ms_of(cl_thread_proc(t), lease_us);
    op->start_ms = cl_now_ms(cl_thread_proc(t));
    try_once(op);
}

/* ------------------------------------------------------------- renewal */

static void on_extend(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    intptr_t key = (intptr_t)ud;
    int thread = (int)(key / SCN_MAX_LOCKS), lock = (int)(key % SCN_MAX_LOCKS);
    if (err != CL_OK || r->type != SIM_REPLY_INT || r->integer != 1) {
        cl_trace(p, cl_proc_name(p), "cad renewer for %s stops", cl_world_scenario(cl_proc_world(p))->lock_names[lock]);
        return;
    }
    int64_t lease = lease_ms_of(p, cl_world_scenario(cl_proc_world(p))->lease_us);
    cl_timer_arm(p, &state(p)->renew[thread][lock], SIM_MS(lease / 3), "cad renew", renew_tick, ud);
}

static void renew_tick(cl_proc *p, void *arg)
{
    intptr_t key = (intptr_t)arg;
    int thread = (int)(key / SCN_MAX_LOCKS), lock = (int)(key % SCN_MAX_LOCKS);
    char ms[24];
    sim_fmt_i64(ms, lease_ms_of(p, cl_world_scenario(cl_proc_world(p))->lease_us));
    const char *keys[] = {cl_world_scenario(cl_proc_world(p))->lock_names[lock]};
    const char *args[] = {state(p)->token[thread][lock], ms};
    cl_eval(p, base_node_of(cl_proc_world(p), lock), cl_script_of(cl_proc_world(p), "cad_extend"), 1, keys, 2, args, CL_NORESEND, 0, on_extend, arg);
}

/* ------------------------------------------------------------- release */

static void on_release(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) cl_op_end(ud, 0, 0, "no reply");
    else if (kind_of(p) == BASE_CAD && !(r->type == SIM_REPLY_INT && r->integer == 1))
        cl_op_end(ud, 0, 0, "not the owner any more (compare-and-delete found another token)");
    else cl_op_end(ud, 1, 0, NULL);
}

static void base_release(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    cl_timer_cancel(p, &state(p)->renew[cl_thread_index(t) - 1][lock]);
    const char *name = cl_world_scenario(cl_proc_world(p))->lock_names[lock];
    if (kind_of(p) == BASE_CAD) {
        const char *keys[] = {name};
        const char *args[] = {state(p)->token[cl_thread_index(t) - 1][lock]};
        cl_eval(p, base_node_of(cl_proc_world(p), lock), cl_script_of(cl_proc_world(p), "cad_release"), 1, keys, 1,
                args, CL_NORESEND, cl_thread_op(t), on_release, op);
    } else {
        const char *argv[] = {"DEL", name};
        cl_command(p, base_node_of(cl_proc_world(p), lock), 2, argv, CL_RESEND, cl_thread_op(t), on_release, op);
    }
}

static void base_force(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    const char *argv[] = {"DEL", cl_world_scenario(cl_proc_world(cl_thread_proc(t)))->lock_names[lock]};
    cl_command(cl_thread_proc(t), base_node_of(cl_proc_world(cl_thread_proc(t)), lock), 2, argv, CL_RESEND, cl_thread_op(t), on_release, op);
}

static void on_query(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    if (err == CL_ERR_TIMEOUT || err == CL_ERR_CONNECTION || r == NULL) cl_op_end(ud, 0, 0, "no reply");
    else cl_op_end(ud, 1, r->type == SIM_REPLY_INT ? r->integer : 0, NULL);
}

static void base_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    (void)what;
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    const char *argv[] = {"EXISTS", cl_world_scenario(cl_proc_world(cl_thread_proc(t)))->lock_names[lock]};
    cl_command(cl_thread_proc(t), base_node_of(cl_proc_world(cl_thread_proc(t)), lock), 2, argv, CL_RESEND, cl_thread_op(t), on_query, op);
}

/* ------------------------------------------------------------ observer */

static void base_observe(cl_world *cw, int group, int lock, hist_store *out)
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

/* SETNX + DEL runs no script; compare-and-delete its release and its
 * renewer's extension (renew = yes). */
static size_t base_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    (void)d;
    const char *names[] = {"cad_release", "cad_extend"};
    return proto_names_out(names, ((const base_cfg *)cfg)->kind == BASE_CAD ? 2 : 0, out, max);
}

/* The two baselines differ in their settings only. */
#define BASE_IMPL(c)                                                                        \
    .impl = {.cfg = c, .script = proto_script_find, .proc_init = base_init, .proc_free = base_free, \
             .acquire = base_acquire, .release = base_release, .force_unlock = base_force,        \
             .query = base_query, .observe = base_observe, .node_of = base_node_of,              \
             .reentry = CL_REENTRY_NO},                                                           \
    .scripts = base_scripts

const proto_def proto_baseline_setnx = {
    .name = "baseline.setnx",
    .summary = "SETNX + DEL, no owner check (expire-mode: separate | none | atomic)",
    BASE_IMPL(&setnx_cfg),
};

const proto_def proto_baseline_cad = {
    .name = "baseline.cad",
    .summary = "SET NX PX + compare-and-delete script, optional renewer (renew = yes)",
    BASE_IMPL(&cad_cfg),
};
