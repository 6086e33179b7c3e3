/* counter.c — helpers of the counter objects (semaphore, count-down
 * latch): the runtime's trySet before the workload, the observer of a
 * string integer key, waits on the client clock, reply decoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/counter.h"

void counter_setup(cl_world *cw, int lock, const char *script, const char *const *keys,
                   int nargs, const char *const *args, int64_t value)
{
    const proto_script_text *st = proto_script_find(script);
    sim_assert(st != NULL);
    int node = world_master(cw->w, cw->proto->node_of(cw, lock));
    const char *argv[8] = {"EVAL", st->text, "2", keys[0], keys[1]};
    sim_assert(nargs <= 3);
    for (int i = 0; i < nargs; i++) argv[5 + i] = args[i];
    sim_reply *r = world_admin(cw->w, node, 5 + nargs, argv);
    int64_t answer = r && r->type == SIM_REPLY_INT ? r->integer : 0;
    sim_reply_free(r);
    sim_trace(cw->ctx, "setup", "%s %s %lld: %s", script, keys[0], (long long)value, answer ? "set" : "already set");
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_SET, .lock = lock, .value = value,
                    .aux = answer};
    hist_add(cw->h, &e);
}

void counter_observe(cl_world *cw, int group, int lock, proto_store *out)
{
    world_peek_result pk;
    int exists = cl_store_peek(cw, group, lock, out, &pk);
    out->counter = 1;
    if (!exists || pk.type != WORLD_TYPE_STRING) return;
    char num[32];
    snprintf(num, sizeof num, "%.*s", (int)(pk.len < 31 ? pk.len : 31), pk.str);
    out->count = strtoll(num, NULL, 10);
}

int counter_node_of(const cl_world *cw, int lock)
{
    (void)cw;
    (void)lock;
    return 0;
}

const char *counter_key(const cl_thread *t, int lock)
{
    return cl_key_name(t->p->cw, lock);
}

void counter_channel(const char *prefix, const char *name, char *buf, size_t cap)
{
    if (strchr(name, '{')) snprintf(buf, cap, "%s%s", prefix, name);
    else snprintf(buf, cap, "%s{%s}", prefix, name);
}

void counter_wait_start(counter_wait *w, cl_proc *p, int64_t wait_us)
{
    w->wait_ms = wait_us < 0 ? -1 : wait_us / 1000;
    w->rem_ms = w->wait_ms;
    w->mark_ms = cl_now_ms(p);
}

int counter_wait_charge(counter_wait *w, cl_proc *p)
{
    int64_t now = cl_now_ms(p);
    if (w->wait_ms < 0) {
        w->mark_ms = now;
        return 0;
    }
    w->rem_ms -= now - w->mark_ms;
    w->mark_ms = now;
    return w->rem_ms <= 0;
}

int64_t counter_wait_us(const counter_wait *w)
{
    return w->wait_ms < 0 ? -1 : SIM_MS(w->rem_ms);
}

const char *counter_failure(const sim_reply *r, cl_err err)
{
    switch (err) {
    case CL_ERR_TIMEOUT: return "RedisResponseTimeoutException";
    case CL_ERR_CONNECTION: return "RedisConnectionException";
    case CL_ERR_NOSYNC: return "NoSyncedSlavesException";
    default: break;
    }
    if (r == NULL) return "no reply";
    if (r->type == SIM_REPLY_ERR) return "script error";
    return NULL;
}

int64_t counter_value(const sim_reply *r)
{
    if (r == NULL) return 0;
    if (r->type == SIM_REPLY_INT) return r->integer;
    if (r->type == SIM_REPLY_STR && r->str) return strtoll(r->str, NULL, 10);
    return 0;
}

/* ------------------------------------------------- one-command operations */

typedef struct simple_op {
    cl_thread *t;
    proto_done_fn *done;
} simple_op;

static void on_simple_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    simple_op *op = ud;
    cl_thread *t = op->t;
    proto_done_fn *done = op->done;
    cl_free(p, op);
    const char *fail = counter_failure(r, err);
    done(t, fail == NULL, fail ? 0 : counter_value(r), fail);
}

void counter_simple_eval(cl_thread *t, int lock, const char *script, const char *const *keys, int nargs,
                         const char *const *args, int flags, proto_done_fn *done)
{
    simple_op *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->done = done;
    cl_eval(t->p, counter_node_of(t->p->cw, lock), script, 2, keys, nargs, args, flags, t->op_seq,
            on_simple_reply, op);
}

void counter_get(cl_thread *t, int lock, proto_done_fn *done)
{
    simple_op *op = cl_alloc(t->p, sizeof *op);
    op->t = t;
    op->done = done;
    const char *argv[] = {"GET", counter_key(t, lock)};
    cl_command(t->p, counter_node_of(t->p->cw, lock), 2, argv, CL_RESEND, t->op_seq, on_simple_reply, op);
}
