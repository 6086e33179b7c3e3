/* command.c — Redisson's command layer for a virtual process: one command
 * connection and one pub/sub connection per node, requests matched to
 * replies in order, the reply timeout, resending of transport-R commands
 * after the retry delay (a resent script really runs again), and EVALSHA
 * with the EVAL fallback on NOSCRIPT.
 *
 * A command lives until it is done and no attempt of it is on the wire:
 * late replies (to an attempt that timed out) are matched and dropped. */
#include <stdio.h>
#include <string.h>

#include "cl_int.h"

struct cl_cmd {
    cl_proc *p;
    int node;
    int argc;
    char **argv;       /* the command as sent (EVALSHA form first) */
    size_t *lens;
    const proto_script_text *script; /* NULL for plain commands */
    cl_transport tr;
    int attempt;       /* resends so far */
    int done;
    int inflight;      /* sends whose reply has not come back */
    uint64_t tag;
    cl_timer timeout, retry;
    cl_cmd_fn *fn;
    void *ud;
    cl_cmd *prev, *next; /* the process's commands */
};

/* Requests on the wire of one connection, oldest first. */
typedef struct fifo {
    cl_cmd **q;
    size_t head, len, cap;
} fifo;

struct cl_node {
    cl_proc *p;
    int index;
    world_conn *cmd, *ps;
    fifo pending;
    cl_cmd *cmds; /* every live command of the process on this node */
};

typedef struct delivery {
    cl_node *n;
    sim_reply *reply;
    int push;
} delivery;

static void fifo_push(fifo *f, cl_cmd *c)
{
    if (f->len == f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 8;
        cl_cmd **q = sim_xmalloc(ncap * sizeof *q);
        for (size_t i = 0; i < f->len; i++) q[i] = f->q[(f->head + i) % f->cap];
        sim_xfree(f->q);
        f->q = q;
        f->cap = ncap;
        f->head = 0;
    }
    f->q[(f->head + f->len) % f->cap] = c;
    f->len++;
}

static cl_cmd *fifo_pop(fifo *f)
{
    if (f->len == 0) return NULL;
    cl_cmd *c = f->q[f->head];
    f->head = (f->head + 1) % f->cap;
    f->len--;
    return c;
}

/* ------------------------------------------------------------- freeing */

static void cmd_free(cl_cmd *c)
{
    cl_node *n = &c->p->nodes[c->node];
    if (c->prev) c->prev->next = c->next;
    else n->cmds = c->next;
    if (c->next) c->next->prev = c->prev;
    cl_timer_cancel(c->p, &c->timeout);
    cl_timer_cancel(c->p, &c->retry);
    for (int i = 0; i < c->argc; i++) sim_xfree(c->argv[i]);
    sim_xfree(c->argv);
    sim_xfree(c->lens);
    sim_xfree(c);
}

static void maybe_free(cl_cmd *c)
{
    if (c->done && c->inflight == 0) cmd_free(c);
}

void cl_commands_free(cl_proc *p)
{
    for (int i = 0; i < p->cw->s->nodes; i++) {
        cl_node *n = &p->nodes[i];
        while (n->cmds) cmd_free(n->cmds);
        sim_xfree(n->pending.q);
        memset(&n->pending, 0, sizeof n->pending);
    }
}

/* ------------------------------------------------------------- sending */

static void on_timeout(cl_proc *p, void *arg);

static void send_now(cl_cmd *c)
{
    cl_proc *p = c->p;
    cl_node *n = &p->nodes[c->node];
    world_send(n->cmd, c->argc, (const char *const *)c->argv, c->lens, c->tag);
    fifo_push(&n->pending, c);
    c->inflight++;
    cl_timer_arm(p, &c->timeout, p->cw->s->timeout_us, "cmd timeout", on_timeout, c);
}

static void finish(cl_cmd *c, const sim_reply *r, cl_err err)
{
    c->done = 1;
    cl_timer_cancel(c->p, &c->timeout);
    cl_timer_cancel(c->p, &c->retry);
    if (c->fn) c->fn(c->p, c->ud, r, err);
    maybe_free(c);
}

static void on_retry(cl_proc *p, void *arg)
{
    (void)p;
    send_now(arg);
}

/* Redisson's retry delay for resend number `attempt` (1-based). */
static int64_t retry_delay(cl_proc *p, int attempt)
{
    cl_world *cw = p->cw;
    if (!cw->jitter) return cw->retry_interval_us;
    /* EqualJitter(base 1000, max 2000): d = min(base * 2^a, max),
     * delay = d/2 + uniform[0, d/2]. */
    int64_t d = SIM_MS(1000);
    for (int a = 1; a < attempt && d < SIM_MS(2000); a++) d *= 2;
    if (d > SIM_MS(2000)) d = SIM_MS(2000);
    return d / 2 + (int64_t)cl_choose(p, (uint64_t)(d / 2 / 1000 + 1), "retry jitter") * 1000;
}

static void on_timeout(cl_proc *p, void *arg)
{
    cl_cmd *c = arg;
    if (c->done) return;
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(c->lens[0] < 40 ? c->lens[0] : 40), c->argv[0]);
    if (c->tr == CL_RESEND && c->attempt < p->cw->retry_attempts) {
        c->attempt++;
        int64_t delay = retry_delay(p, c->attempt);
        cl_trace(p, p->name, "reply timeout: resend %d of %s in %lldus", c->attempt, what,
                 (long long)delay);
        cl_timer_arm(p, &c->retry, delay, "cmd resend", on_retry, c);
        return;
    }
    cl_trace(p, p->name, "reply timeout: %s fails (RedisResponseTimeoutException)", what);
    finish(c, NULL, CL_ERR_TIMEOUT);
}

static int is_noscript(const sim_reply *r)
{
    return r->type == SIM_REPLY_ERR && r->len >= 8 && memcmp(r->str, "NOSCRIPT", 8) == 0;
}

/* Turns an EVALSHA command into the EVAL of the script's body. */
static void to_eval(cl_cmd *c)
{
    sim_xfree(c->argv[0]);
    sim_xfree(c->argv[1]);
    c->argv[0] = sim_xstrdup("EVAL");
    c->lens[0] = 4;
    c->argv[1] = sim_xmemdup(c->script->text, c->script->len);
    c->lens[1] = c->script->len;
}

static void delivery_free(void *arg);

static void on_reply_gated(cl_proc *p, void *arg)
{
    delivery *d = arg;
    cl_node *n = d->n;
    if (d->push) {
        cl_sub_on_push(p, n->index, d->reply);
    } else {
        cl_cmd *c = fifo_pop(&n->pending);
        if (c) {
            c->inflight--;
            if (c->done) {
                cl_trace(p, p->name, "late reply dropped");
                maybe_free(c);
            } else if (c->script && is_noscript(d->reply) && c->argv[0][4] == 'S') {
                to_eval(c);
                cl_timer_cancel(p, &c->timeout);
                send_now(c);
            } else {
                finish(c, d->reply, d->reply->type == SIM_REPLY_ERR ? CL_ERR_REPLY : CL_OK);
            }
        }
    }
    delivery_free(d);
}

static void delivery_free(void *arg)
{
    delivery *d = arg;
    sim_reply_free(d->reply);
    sim_xfree(d);
}

static void deliver(cl_node *n, const sim_reply *r, int push)
{
    delivery *d = sim_xmalloc(sizeof *d);
    d->n = n;
    d->reply = sim_reply_dup(r);
    d->push = push;
    cl_post_owned(n->p, push ? "push" : "reply", on_reply_gated, d, delivery_free);
}

static void on_cmd_reply(void *ud, const sim_reply *r)
{
    deliver(ud, r, 0);
}

static void on_ps_reply(void *ud, const sim_reply *r)
{
    (void)ud;
    (void)r; /* the pub/sub connection only answers with pushes */
}

static void on_ps_push(void *ud, const sim_reply *r)
{
    deliver(ud, r, 1);
}

void cl_nodes_open(cl_proc *p)
{
    int nn = p->cw->s->nodes;
    p->nodes = sim_xcalloc((size_t)nn, sizeof *p->nodes);
    for (int i = 0; i < nn; i++) {
        cl_node *n = &p->nodes[i];
        char name[64];
        n->p = p;
        n->index = i;
        snprintf(name, sizeof name, "%s/%d>%s", p->name, p->inc, world_node_name(p->cw->w, i));
        n->cmd = world_connect(p->cw->w, WORLD_CLIENT(p->client), i, name, on_cmd_reply, NULL, n);
        snprintf(name, sizeof name, "%s/%d~%s", p->name, p->inc, world_node_name(p->cw->w, i));
        n->ps = world_connect(p->cw->w, WORLD_CLIENT(p->client), i, name, on_ps_reply, on_ps_push, n);
    }
}

void cl_nodes_close(cl_proc *p)
{
    for (int i = 0; i < p->cw->s->nodes; i++) {
        world_close(p->nodes[i].cmd);
        world_close(p->nodes[i].ps);
    }
    sim_xfree(p->nodes);
    p->nodes = NULL;
}

void cl_ps_send(cl_proc *p, int node, int argc, const char *const *argv)
{
    size_t lens[8];
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    world_send(p->nodes[node].ps, argc, argv, lens, 0);
}

/* ------------------------------------------------------------ the API */

static cl_cmd *cmd_new(cl_proc *p, int node, int argc, cl_transport tr, cl_cmd_fn *fn,
                       void *ud, uint64_t tag)
{
    cl_cmd *c = sim_xcalloc(1, sizeof *c);
    cl_node *n = &p->nodes[node];
    c->p = p;
    c->node = node;
    c->argc = argc;
    c->argv = sim_xcalloc((size_t)argc, sizeof *c->argv);
    c->lens = sim_xcalloc((size_t)argc, sizeof *c->lens);
    c->tr = tr;
    c->fn = fn;
    c->ud = ud;
    c->tag = tag;
    c->next = n->cmds;
    if (n->cmds) n->cmds->prev = c;
    n->cmds = c;
    return c;
}

static void set_arg(cl_cmd *c, int i, const char *s)
{
    c->lens[i] = strlen(s);
    c->argv[i] = sim_xmemdup(s, c->lens[i]);
}

void cl_eval(cl_proc *p, int node, const char *script, int nkeys, const char *const *keys,
             int nargs, const char *const *args, cl_transport tr, uint64_t tag, cl_cmd_fn *fn,
             void *ud)
{
    const proto_script_text *t = proto_script_find(script);
    sim_assert(t != NULL);
    cl_cmd *c = cmd_new(p, node, 3 + nkeys + nargs, tr, fn, ud, tag);
    char sha[41], nk[16];
    fake_sha1hex(t->text, t->len, sha);
    snprintf(nk, sizeof nk, "%d", nkeys);
    c->script = t;
    set_arg(c, 0, "EVALSHA");
    set_arg(c, 1, sha);
    set_arg(c, 2, nk);
    for (int i = 0; i < nkeys; i++) set_arg(c, 3 + i, keys[i]);
    for (int i = 0; i < nargs; i++) set_arg(c, 3 + nkeys + i, args[i]);
    send_now(c);
}

void cl_command(cl_proc *p, int node, int argc, const char *const *argv, cl_transport tr,
                uint64_t tag, cl_cmd_fn *fn, void *ud)
{
    cl_cmd *c = cmd_new(p, node, argc, tr, fn, ud, tag);
    for (int i = 0; i < argc; i++) set_arg(c, i, argv[i]);
    send_now(c);
}
