/* world.c — nodes, the network model and connections. Each direction of a
 * connection is a FIFO channel: a message arrives at max(now + latency,
 * arrival of the previous message), so TCP order holds while latencies
 * vary. A node runs a command the moment it arrives. */
#include <stdio.h>
#include <string.h>

#include "world.h"

typedef struct msg msg;

/* Owns every connection ever opened (freed with the world) and every
 * message on the wire (so a world freed mid-run leaks nothing). */
struct world {
    sim_ctx *ctx;
    const scenario *s;
    int nnodes;
    fake_node **nodes;
    char **node_names;
    world_exec_fn *exec_fn;
    void *exec_ud;
    world_conn **conns;
    size_t nconns, conns_cap;
    msg *wire; /* messages in flight, doubly linked */
};

struct world_conn {
    world *w;
    int from, node;
    char *name;
    char *lat_up, *lat_down; /* PRNG stream names of the two directions */
    fake_conn *fconn;        /* node side: set when the open arrives */
    world_reply_fn *on_reply;
    world_push_fn *on_push;
    void *ud;
    int closed;              /* client side gone: deliver nothing more */
    int64_t last_up_us, last_down_us;
};

typedef enum msg_kind { MSG_OPEN, MSG_CMD, MSG_CLOSE, MSG_REPLY, MSG_PUSH } msg_kind;

struct msg {
    world_conn *c;
    msg_kind kind;
    int argc;
    char **argv;
    size_t *lens;
    sim_reply *reply;
    uint64_t tag;
    msg *prev, *next;
};

world *world_new(sim_ctx *ctx, const scenario *s)
{
    world *w = sim_xcalloc(1, sizeof *w);
    w->ctx = ctx;
    w->s = s;
    w->nnodes = s->nodes;
    w->nodes = sim_xcalloc((size_t)w->nnodes, sizeof *w->nodes);
    w->node_names = sim_xcalloc((size_t)w->nnodes, sizeof *w->node_names);
    for (int i = 0; i < w->nnodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "redis%d", i);
        w->node_names[i] = sim_xstrdup(name);
        w->nodes[i] = fake_node_new(ctx, name);
    }
    return w;
}

static void msg_free(msg *m);

void world_free(world *w)
{
    if (w == NULL) return;
    while (w->wire) {
        msg *m = w->wire;
        w->wire = m->next;
        msg_free(m);
    }
    for (size_t i = 0; i < w->nconns; i++) {
        world_conn *c = w->conns[i];
        fake_conn_free(c->fconn);
        sim_xfree(c->name);
        sim_xfree(c->lat_up);
        sim_xfree(c->lat_down);
        sim_xfree(c);
    }
    sim_xfree(w->conns);
    for (int i = 0; i < w->nnodes; i++) {
        fake_node_free(w->nodes[i]);
        sim_xfree(w->node_names[i]);
    }
    sim_xfree(w->nodes);
    sim_xfree(w->node_names);
    sim_xfree(w);
}

sim_ctx *world_ctx(const world *w)
{
    return w->ctx;
}

int world_nodes(const world *w)
{
    return w->nnodes;
}

fake_node *world_node(world *w, int i)
{
    return w->nodes[i];
}

const char *world_node_name(const world *w, int i)
{
    return w->node_names[i];
}

uint64_t world_commands(const world *w)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nnodes; i++) n += fake_node_stats(w->nodes[i])->commands;
    return n;
}

uint64_t world_evals(const world *w)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nnodes; i++) n += fake_node_stats(w->nodes[i])->scripts;
    return n;
}

void world_set_exec_hook(world *w, world_exec_fn *fn, void *ud)
{
    w->exec_fn = fn;
    w->exec_ud = ud;
}

/* ------------------------------------------------------------ messages */

static void msg_free(msg *m)
{
    for (int i = 0; i < m->argc; i++) sim_xfree(m->argv[i]);
    sim_xfree(m->argv);
    sim_xfree(m->lens);
    sim_reply_free(m->reply);
    sim_xfree(m);
}

static void deliver(sim_ctx *ctx, void *arg);

/* Puts m on the wire in its direction; it arrives after the latency and
 * never before the message sent before it on the same connection. */
static void post(world_conn *c, msg *m, int up)
{
    world *w = c->w;
    int64_t lat = scn_dist_draw(w->ctx, &w->s->latency, up ? c->lat_up : c->lat_down);
    int64_t *last = up ? &c->last_up_us : &c->last_down_us;
    int64_t t = sim_now(w->ctx) + lat;
    if (t < *last) t = *last;
    *last = t;
    m->prev = NULL;
    m->next = w->wire;
    if (w->wire) w->wire->prev = m;
    w->wire = m;
    static const char *const labels[] = {"net open", "net cmd", "net close", "net reply", "net push"};
    sim_at(w->ctx, t, labels[m->kind], deliver, m);
}

static void on_node_push(void *ud, const sim_reply *push)
{
    world_conn *c = ud;
    msg *m = sim_xcalloc(1, sizeof *m);
    m->c = c;
    m->kind = MSG_PUSH;
    m->reply = sim_reply_dup(push);
    post(c, m, 0);
}

static void at_node(world_conn *c, msg *m)
{
    world *w = c->w;
    fake_node *n = w->nodes[c->node];
    switch (m->kind) {
    case MSG_OPEN:
        c->fconn = fake_conn_new(n, on_node_push, c);
        break;
    case MSG_CMD: {
        if (c->fconn == NULL) break;
        sim_reply *r = fake_exec(n, c->fconn, m->argc, (const char *const *)m->argv, m->lens);
        if (w->exec_fn) w->exec_fn(w->exec_ud, c->node, m->tag);
        if (r == NULL) break; /* answered with pushes (SUBSCRIBE) */
        msg *back = sim_xcalloc(1, sizeof *back);
        back->c = c;
        back->kind = MSG_REPLY;
        back->reply = r;
        post(c, back, 0);
        break;
    }
    case MSG_CLOSE:
        fake_conn_free(c->fconn);
        c->fconn = NULL;
        break;
    default:
        break;
    }
}

static void deliver(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    msg *m = arg;
    world_conn *c = m->c;
    world *w = c->w;
    if (m->prev) m->prev->next = m->next;
    else w->wire = m->next;
    if (m->next) m->next->prev = m->prev;
    if (m->kind == MSG_REPLY || m->kind == MSG_PUSH) {
        if (!c->closed) {
            if (m->kind == MSG_REPLY) c->on_reply(c->ud, m->reply);
            else if (c->on_push) c->on_push(c->ud, m->reply);
        }
    } else {
        at_node(c, m);
    }
    msg_free(m);
}

/* --------------------------------------------------------- connections */

world_conn *world_connect(world *w, int from, int node, const char *name,
                          world_reply_fn *on_reply, world_push_fn *on_push, void *ud)
{
    world_conn *c = sim_xcalloc(1, sizeof *c);
    char buf[160];
    c->w = w;
    c->from = from;
    c->node = node;
    c->name = sim_xstrdup(name);
    snprintf(buf, sizeof buf, "lat %s up", name);
    c->lat_up = sim_xstrdup(buf);
    snprintf(buf, sizeof buf, "lat %s down", name);
    c->lat_down = sim_xstrdup(buf);
    c->on_reply = on_reply;
    c->on_push = on_push;
    c->ud = ud;
    if (w->nconns == w->conns_cap) {
        w->conns_cap = w->conns_cap ? w->conns_cap * 2 : 16;
        w->conns = sim_xrealloc(w->conns, w->conns_cap * sizeof *w->conns);
    }
    w->conns[w->nconns++] = c;
    msg *m = sim_xcalloc(1, sizeof *m);
    m->c = c;
    m->kind = MSG_OPEN;
    post(c, m, 1);
    return c;
}

void world_send(world_conn *c, int argc, const char *const *argv, const size_t *lens,
                uint64_t tag)
{
    msg *m = sim_xcalloc(1, sizeof *m);
    m->c = c;
    m->kind = MSG_CMD;
    m->tag = tag;
    m->argc = argc;
    m->argv = sim_xmalloc((size_t)argc * sizeof *m->argv);
    m->lens = sim_xmalloc((size_t)argc * sizeof *m->lens);
    for (int i = 0; i < argc; i++) {
        m->argv[i] = sim_xmemdup(argv[i], lens[i]);
        m->lens[i] = lens[i];
    }
    post(c, m, 1);
}

void world_close(world_conn *c)
{
    if (c == NULL || c->closed) return;
    c->closed = 1;
    msg *m = sim_xcalloc(1, sizeof *m);
    m->c = c;
    m->kind = MSG_CLOSE;
    post(c, m, 1);
}
