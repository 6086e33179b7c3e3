/* world.c — nodes, the network model and client connections. Each
 * direction of a connection is a FIFO channel: a message arrives at
 * max(now + latency + policy delay, arrival of the previous message), so
 * TCP order holds while latencies vary; the policy may drop it instead. A
 * message reaches the node's backend (backend.h) when it arrives, unless
 * the node is down (the message is lost, an open is refused) or paused (it
 * waits), or the connection is blocked in a WAIT (its commands queue).
 *
 * Invariants (asserted): a message travels between a client and an
 * existing node, or between two nodes, and on its connection's own pair;
 * it is freed only off the wire; a connection whose client side closed
 * sends nothing but its CLOSE; a node end opens once, only on a node
 * that is up and running; a paused node is up, and a down one is neither
 * paused nor holding messages; a crashed node keeps no connection's node
 * end. */
#include <stdio.h>
#include <string.h>

#include "sim/world/backend.h"

/* ------------------------------------------------------------ messages */

/* e is an endpoint of w: a node, or a client. */
static int endpoint_ok(const world *w, int e)
{
    return WORLD_IS_CLIENT(e) ? e > WORLD_CLIENT_BASE : e >= 0 && e < w->nnodes;
}

msg *world_msg_new(world *w, world_msg_kind kind, int from, int to)
{
    sim_assert(endpoint_ok(w, from) && endpoint_ok(w, to) && from != to);
    sim_assert(kind >= WORLD_MSG_OPEN && kind <= WORLD_MSG_ACK);
    msg *m = sim_fl_get(&w->msgs);
    m->w = w;
    m->kind = kind;
    m->from = from;
    m->to = to;
    m->link = -1;
    return m;
}

void world_hold(wnode *n, msg *m)
{
    sim_assert(n->up && n->paused && !m->on_wire && m->to == n->index);
    m->qnext = NULL;
    if (n->queue_tail) n->queue_tail->qnext = m;
    else n->queue_head = m;
    n->queue_tail = m;
}

void world_msg_free(msg *m)
{
    sim_assert(!m->on_wire); /* its delivery would follow */
    sim_xfree(m->argv); /* one block: the pointers, the lengths, the bytes */
    sim_reply_free(m->reply);
    for (size_t i = 0; i < m->neffects; i++) {
        for (int j = 0; j < m->effects[i].argc; j++) sim_xfree(m->effects[i].argv[j]);
        sim_xfree(m->effects[i].argv);
        sim_xfree(m->effects[i].lens);
    }
    sim_xfree(m->effects);
    sim_fl_put(&m->w->msgs, m);
}

void world_wire_link(world *w, msg *m)
{
    sim_assert(!m->on_wire && m->w == w);
    m->prev = NULL;
    m->next = w->wire;
    if (w->wire) w->wire->prev = m;
    w->wire = m;
    m->on_wire = 1;
}

void world_wire_unlink(world *w, msg *m)
{
    sim_assert(m->on_wire && (m->prev != NULL || w->wire == m));
    if (m->prev) m->prev->next = m->next;
    else w->wire = m->next;
    if (m->next) m->next->prev = m->prev;
    m->prev = m->next = NULL;
    m->on_wire = 0;
}

static void deliver(sim_ctx *ctx, void *arg);

static const char *const kind_labels[] = {"net open",  "net cmd",   "net close", "net reply",
                                          "net push",  "net reset", "net repl",  "net ack"};

/* ---------------------------------------------------- held by a partition */

/* A pub/sub push that a partition cuts off, on a connection that outlives
 * the partition, is not lost: TCP keeps retransmitting it (for minutes,
 * tcp_retries2) and it arrives once the partition ends, after whatever the
 * connection sent before it. Dropping it made a waiter parked on its
 * channel (a latch's await with no timeout) wait for ever where the real
 * one wakes at the heal. So does the close of a connection whose node
 * crashed (the FIN its kernel sends is retransmitted the same way): the
 * client learns at the heal, not at the next command it writes, that its
 * connections are gone. Commands and replies a partition cuts off are
 * still lost: the client's reply timeout and resend stand for them;
 * except on a kept connection (world_conn_keep: a blocking command's,
 * whose client has no reply timeout to resend after), where they are
 * held as pushes are, and what a drop fault loses is sent again a
 * retransmission timeout (KEPT_RTO_US) later. */
static void release_held(sim_ctx *ctx, void *arg);

/* A kept connection's lost message is sent again after this (TCP's
 * minimum retransmission timeout, rounded up as Linux's first is). */
#define KEPT_RTO_US SIM_MS(1000)

static void hold(world_conn *c, msg *m, int64_t until)
{
    world *w = c->w;
    sim_assert((m->kind == WORLD_MSG_PUSH || m->kind == WORLD_MSG_RESET ||
                (c->keep && (m->kind == WORLD_MSG_CMD || m->kind == WORLD_MSG_REPLY))) &&
               m->c == c && !m->on_wire && until > sim_now(w->ctx));
    sim_trace(w->ctx, "net", "hold %s to %s until the partition ends", kind_labels[m->kind], c->name);
    m->qnext = NULL;
    if (c->held_tail) c->held_tail->qnext = m;
    else c->held_head = m;
    c->held_tail = m;
    if (until != INT64_MAX && (!sim_timer_armed(&c->held_timer) || sim_timer_when(&c->held_timer) > until))
        sim_timer_arm(w->ctx, &c->held_timer, until, "net held", release_held, c);
}

/* Sends what c holds again, in order: the policy judges each anew (a
 * partition still on holds it again, and those behind it with it). */
static void release(world_conn *c)
{
    world *w = c->w;
    msg *m = c->held_head;
    c->held_head = c->held_tail = NULL;
    sim_timer_cancel(w->ctx, &c->held_timer);
    while (m) {
        msg *next = m->qnext;
        m->qnext = NULL;
        if (c->closed) {
            world_msg_free(m); /* its client side is gone: nothing reads it */
        } else if (c->held_head) {
            c->held_tail->qnext = m; /* behind one held again */
            c->held_tail = m;
        } else if (WORLD_IS_CLIENT(m->to)) {
            world_post(w, m, c->lat_down, &w->s->latency, &c->last_down_us);
        } else {
            world_post(w, m, c->lat_up, &w->s->latency, &c->last_up_us);
        }
        m = next;
    }
}

static void release_held(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    release(arg);
}

void world_release_held(world *w)
{
    for (size_t i = 0; i < w->nconns; i++)
        if (w->conns[i]->held_head) release(w->conns[i]);
}

void world_post(world *w, msg *m, const char *lat, const scn_dist *d, int64_t *last)
{
    world_verdict v = {0, 0, 0};
    if (w->policy) w->policy(w->policy_ud, m->from, m->to, m->kind, m->reply, &v);
    world_conn *down = m->c && WORLD_IS_CLIENT(m->to) ? m->c : NULL;
    /* A kept connection (world_conn_keep) holds its commands and replies
     * too, both ways, in the one queue (each direction keeps its order). */
    world_conn *hc = down ? down : m->c && m->c->keep ? m->c : NULL;
    /* TCP order: what a partition held goes before anything that passes. */
    if (hc && !v.drop && hc->held_head) release(hc);
    int holdable = hc && !hc->closed &&
                   ((down && (m->kind == WORLD_MSG_PUSH || m->kind == WORLD_MSG_RESET)) ||
                    (hc->keep && (m->kind == WORLD_MSG_CMD || m->kind == WORLD_MSG_REPLY)));
    /* On a kept connection a message lost otherwise (a drop fault) is
     * sent again, as TCP retransmits it, a retransmission timeout later. */
    if (holdable && v.drop && v.hold_until_us <= sim_now(w->ctx) && hc->keep &&
        (m->kind == WORLD_MSG_CMD || m->kind == WORLD_MSG_REPLY))
        v.hold_until_us = sim_now(w->ctx) + KEPT_RTO_US;
    if (holdable && (v.drop ? v.hold_until_us > sim_now(w->ctx) : hc->held_head != NULL)) {
        hold(hc, m, v.drop ? v.hold_until_us : INT64_MAX); /* cut off, or behind one held again */
        return;
    }
    if (v.drop) {
        sim_trace(w->ctx, "net", "drop %s %s", kind_labels[m->kind], lat);
        if (m->kind == WORLD_MSG_OPEN && !m->c->reset_sent && !m->c->closed) {
            /* A connect whose handshake cannot get through never opens:
             * the client learns it as a failed connect (a reset, which no
             * fault on the link stops) one latency later, and opens again
             * after its reconnect delay, as after a node that refused it.
             * Before, it believed the connection up, and learnt otherwise
             * only from a reset to the next command it sent, which then
             * waited out its reply timeout. */
            world_conn *c = m->c;
            c->reset_sent = 1;
            msg *r = world_msg_new(w, WORLD_MSG_RESET, c->node, c->from);
            r->c = c;
            int64_t t = sim_now(w->ctx) + w->be->latency_us(w, d, lat);
            if (t < c->last_down_us) t = c->last_down_us;
            c->last_down_us = t;
            world_wire_link(w, r);
            sim_at(w->ctx, t, kind_labels[r->kind], deliver, r);
        }
        world_msg_free(m);
        return;
    }
    int64_t t = sim_now(w->ctx) + w->be->latency_us(w, d, lat) + v.extra_us;
    sim_assert(t >= sim_now(w->ctx)); /* no message arrives before it is sent */
    if (t < *last) t = *last;
    *last = t;
    world_wire_link(w, m);
    sim_at(w->ctx, t, kind_labels[m->kind], deliver, m);
}

static void post_up(world_conn *c, msg *m)
{
    /* the client side sends; once closed, only its CLOSE */
    sim_assert(m->c == c && m->from == c->from && m->to == c->node);
    sim_assert(!c->closed || m->kind == WORLD_MSG_CLOSE);
    world_post(c->w, m, c->lat_up, &c->w->s->latency, &c->last_up_us);
}

static void post_down(world_conn *c, msg *m)
{
    sim_assert(m->c == c && m->from == c->node && m->to == c->from);
    sim_assert(m->kind == WORLD_MSG_REPLY || m->kind == WORLD_MSG_PUSH || m->kind == WORLD_MSG_RESET);
    world_post(c->w, m, c->lat_down, &c->w->s->latency, &c->last_down_us);
}

void world_reply(world_conn *c, uint64_t req_id, sim_reply *r)
{
    msg *m = world_msg_new(c->w, WORLD_MSG_REPLY, c->node, c->from);
    m->c = c;
    m->req_id = req_id;
    m->reply = r;
    post_down(c, m);
}

void world_push(world_conn *c, sim_reply *push)
{
    msg *m = world_msg_new(c->w, WORLD_MSG_PUSH, c->node, c->from);
    m->c = c;
    m->reply = push;
    post_down(c, m);
}

/* ------------------------------------------------------------- nodes */

void world_ran(world *w, world_conn *c, uint64_t tag)
{
    sim_assert(w->nodes[c->node].up && !w->nodes[c->node].paused);
    if (w->exec_fn && w->nodes[c->node].master < 0) w->exec_fn(w->exec_ud, c->node, tag);
}

void world_unblock(world *w, world_conn *c)
{
    sim_assert(c->node_end != NULL);
    c->blocked = 0;
    while (c->backlog_head && !c->blocked) {
        msg *m = c->backlog_head;
        c->backlog_head = m->qnext;
        if (c->backlog_head == NULL) c->backlog_tail = NULL;
        w->be->command(w, c, m);
    }
}

void world_conn_reset(world_conn *c)
{
    c->w->be->conn_gone(c->w, c);
    sim_assert(c->node_end == NULL);
    repl_drop_waits(c->w, c);
    while (c->backlog_head) {
        msg *m = c->backlog_head;
        c->backlog_head = m->qnext;
        world_msg_free(m);
    }
    c->backlog_tail = NULL;
    c->blocked = 0;
    if (c->reset_sent || c->closed) return;
    c->reset_sent = 1;
    msg *m = world_msg_new(c->w, WORLD_MSG_RESET, c->node, c->from);
    m->c = c;
    post_down(c, m);
}

/* A command on a connection the node reset (it crashed since, or closed
 * it) is answered with a reset again, as TCP answers a segment of a
 * connection it does not know: a client whose first reset was lost (cut
 * off when the node crashed) learns it at its next command instead of
 * waiting out a reply timeout on a dead connection for ever. Once the
 * client has taken a reset it sends nothing more on the connection. */
static void reset_again(world *w, world_conn *c)
{
    if (c->closed) return;
    msg *m = world_msg_new(w, WORLD_MSG_RESET, c->node, c->from);
    m->c = c;
    post_down(c, m);
}

/* A message reaches a node that is up and running. */
static void at_node(world *w, msg *m)
{
    world_conn *c = m->c;
    sim_assert(c != NULL && c->node == m->to && w->nodes[m->to].up && !w->nodes[m->to].paused);
    switch (m->kind) {
    case WORLD_MSG_OPEN:
        sim_assert(c->node_end == NULL); /* a connection opens once */
        w->be->open(w, c);
        break;
    case WORLD_MSG_CMD:
        if (c->node_end == NULL) { /* the connection was reset */
            reset_again(w, c);
            break;
        }
        if (c->blocked) {               /* behind a WAIT or a blocking command */
            m->qnext = NULL;
            if (c->backlog_tail) c->backlog_tail->qnext = m;
            else c->backlog_head = m;
            c->backlog_tail = m;
            return;
        }
        w->be->command(w, c, m);
        return;
    case WORLD_MSG_CLOSE:
        w->be->conn_gone(w, c);
        repl_drop_waits(w, c);
        break;
    default:
        break;
    }
    world_msg_free(m);
}

static void to_node(world *w, msg *m)
{
    sim_assert(!WORLD_IS_CLIENT(m->to) && m->to < w->nnodes && WORLD_IS_CLIENT(m->from));
    wnode *n = &w->nodes[m->to];
    sim_assert(n->up || !n->paused); /* a down node is not paused */
    if (!n->up) {
        /* A down node refuses connections and loses what was sent. */
        if (m->kind == WORLD_MSG_OPEN) world_conn_reset(m->c);
        world_msg_free(m);
        return;
    }
    if (n->paused) {
        world_hold(n, m);
        return;
    }
    at_node(w, m);
}

static void to_client(world *w, msg *m)
{
    (void)w;
    world_conn *c = m->c;
    sim_assert(c != NULL && WORLD_IS_CLIENT(m->to) && m->to == c->from && m->from == c->node);
    if (!c->closed) {
        switch (m->kind) {
        case WORLD_MSG_REPLY: c->on_reply(c->ud, m->req_id, m->reply); break;
        case WORLD_MSG_PUSH: if (c->on_push) c->on_push(c->ud, m->reply); break;
        case WORLD_MSG_RESET:
            c->closed = 1; /* nothing more comes from this connection */
            if (c->on_reset) c->on_reset(c->ud);
            break;
        default: break;
        }
    }
    world_msg_free(m);
}

static void deliver(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    msg *m = arg;
    world *w = m->w;
    world_wire_unlink(w, m);
    sim_assert(endpoint_ok(w, m->from) && endpoint_ok(w, m->to));
    switch (m->kind) {
    case WORLD_MSG_OPEN:
    case WORLD_MSG_CMD:
    case WORLD_MSG_CLOSE: to_node(w, m); break;
    case WORLD_MSG_REPLY:
    case WORLD_MSG_PUSH:
    case WORLD_MSG_RESET: to_client(w, m); break;
    case WORLD_MSG_REPL:
    case WORLD_MSG_ACK: repl_deliver(w, m); break;
    }
}

/* Runs what queued at a node while it was paused, in arrival order. */
static void end_pause(sim_ctx *ctx, void *arg)
{
    wnode *n = arg;
    (void)ctx;
    sim_assert(n->up && n->paused); /* a crash cancels the resume */
    n->paused = 0;
    world *w = NULL;
    n->owner->be->pause(n->owner, n->index, 0);
    msg *m = n->queue_head;
    n->queue_head = n->queue_tail = NULL;
    while (m) {
        msg *next = m->qnext;
        w = m->w;
        sim_assert(w == n->owner && m->to == n->index);
        if (m->kind == WORLD_MSG_REPL || m->kind == WORLD_MSG_ACK) repl_deliver(w, m);
        else to_node(w, m);
        m = next;
    }
    repl_resumed(n->owner, n->index);
}

void world_node_pause(world *w, int node, int64_t for_us)
{
    sim_assert(node >= 0 && node < w->nnodes && for_us >= 0);
    wnode *n = &w->nodes[node];
    if (!n->up || n->paused) return;
    sim_assert(!sim_timer_armed(&n->pause_end) && n->queue_head == NULL);
    n->paused = 1;
    w->be->pause(w, node, 1);
    sim_trace(w->ctx, n->name, "paused for %lldus", (long long)for_us);
    sim_timer_arm(w->ctx, &n->pause_end, sim_now(w->ctx) + for_us, "node resume", end_pause, n);
}

void world_node_crash(world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    wnode *n = &w->nodes[node];
    if (!n->up) return;
    n->up = 0;
    n->paused = 0;
    sim_timer_cancel(w->ctx, &n->pause_end);
    while (n->queue_head) {
        msg *m = n->queue_head;
        n->queue_head = m->qnext;
        world_msg_free(m);
    }
    n->queue_tail = NULL;
    for (size_t i = 0; i < w->nconns; i++)
        if (w->conns[i]->node == node) {
            world_conn_reset(w->conns[i]);
            sim_assert(w->conns[i]->node_end == NULL && !w->conns[i]->blocked);
        }
    w->be->crash(w, node);
    sim_trace(w->ctx, n->name, "crashed%s", w->s->persistence ? " (data persisted)" : ", data lost");
    repl_master_down(w, node);
}

void world_node_restart(world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    wnode *n = &w->nodes[node];
    if (n->up) return;
    sim_assert(!n->paused && n->queue_head == NULL && n->waits == NULL);
    n->up = 1;
    int master = w->groups[n->group].master;
    w->be->restart(w, node);
    sim_trace(w->ctx, n->name, "restarted");
    if (master != node) {
        repl_attach(w, node, master);
        return;
    }
    /* The master is back before Sentinel failed it over: its replicas
     * sync from it again, with the data it came back with. */
    sim_timer_cancel(w->ctx, &w->groups[n->group].failover_timer);
    for (int i = 0; i < w->nnodes; i++)
        if (i != node && w->nodes[i].group == n->group && w->nodes[i].up) repl_attach(w, i, node);
}

/* --------------------------------------------------------- connections */

world_conn *world_connect(world *w, int from, int node, const char *name, world_reply_fn *on_reply,
                          world_push_fn *on_push, world_reset_fn *on_reset, void *ud)
{
    sim_assert(WORLD_IS_CLIENT(from) && endpoint_ok(w, from) && node >= 0 && node < w->nnodes);
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
    c->on_reset = on_reset;
    c->ud = ud;
    if (w->nconns == w->conns_cap) {
        w->conns_cap = w->conns_cap ? w->conns_cap * 2 : 16;
        w->conns = sim_xrealloc(w->conns, w->conns_cap * sizeof *w->conns);
    }
    w->conns[w->nconns++] = c;
    msg *m = world_msg_new(w, WORLD_MSG_OPEN, from, node);
    m->c = c;
    post_up(c, m);
    return c;
}

void world_send(world_conn *c, int argc, const char *const *argv, const size_t *lens, uint64_t tag,
                uint64_t req_id)
{
    if (c->closed) return;
    sim_assert(argc > 0);
    msg *m = world_msg_new(c->w, WORLD_MSG_CMD, c->from, c->node);
    m->c = c;
    m->tag = tag;
    m->req_id = req_id;
    m->argc = argc;
    /* One allocation: argc pointers, argc lengths, then each argument's
     * bytes with a NUL after them. */
    size_t bytes = 0;
    for (int i = 0; i < argc; i++) bytes += lens[i] + 1;
    char *block = sim_xmalloc((size_t)argc * (sizeof *m->argv + sizeof *m->lens) + bytes);
    m->argv = (char **)block;
    m->lens = (size_t *)(block + (size_t)argc * sizeof *m->argv);
    char *p = (char *)(m->lens + argc);
    for (int i = 0; i < argc; i++) {
        memcpy(p, argv[i], lens[i]);
        p[lens[i]] = '\0';
        m->argv[i] = p;
        m->lens[i] = lens[i];
        p += lens[i] + 1;
    }
    post_up(c, m);
}

void world_close(world_conn *c)
{
    if (c == NULL || c->closed) {
        if (c) c->closed = 1;
        return;
    }
    c->closed = 1;
    msg *m = world_msg_new(c->w, WORLD_MSG_CLOSE, c->from, c->node);
    m->c = c;
    post_up(c, m);
}

void world_conn_keep(world_conn *c)
{
    c->keep = 1;
}

int world_conn_closed(const world_conn *c)
{
    return c->closed;
}

int world_conn_node(const world_conn *c)
{
    return c->node;
}

/* ----------------------------------------------------------- lifecycle */

world *world_alloc(sim_ctx *ctx, const scenario *s)
{
    sim_assert(s->nodes >= 1 && s->replicas >= 0); /* the parser's bounds */
    world *w = sim_xcalloc(1, sizeof *w);
    w->ctx = ctx;
    w->s = s;
    w->msgs = (sim_freelist)SIM_FREELIST(msg);
    w->ngroups = s->nodes;
    w->nnodes = s->nodes * (1 + s->replicas);
    w->nodes = sim_xcalloc((size_t)w->nnodes, sizeof *w->nodes);
    w->groups = sim_xcalloc((size_t)w->ngroups, sizeof *w->groups);
    for (int g = 0; g < w->ngroups; g++) {
        int base = g * (1 + s->replicas);
        w->groups[g].master = base;
        w->groups[g].announced = base;
        for (int k = 0; k <= s->replicas; k++) {
            wnode *n = &w->nodes[base + k];
            char name[32];
            scn_node_name(s, base + k, name, sizeof name);
            n->name = sim_xstrdup(name);
            n->owner = w;
            n->index = base + k;
            n->group = g;
            n->up = 1;
            n->master = k == 0 ? -1 : base;
            sim_clock_init(&n->clock);
        }
    }
    return w;
}

void world_free(world *w)
{
    if (w == NULL) return;
    w->be->free(w);
    repl_free(w);
    for (size_t i = 0; i < w->nconns; i++) /* the backend let go of every node end */
        sim_assert(w->conns[i]->node_end == NULL);
    while (w->wire) {
        msg *m = w->wire;
        world_wire_unlink(w, m);
        world_msg_free(m);
    }
    for (int i = 0; i < w->nnodes; i++) {
        wnode *n = &w->nodes[i];
        sim_timer_cancel(w->ctx, &n->pause_end);
        while (n->queue_head) {
            msg *m = n->queue_head;
            n->queue_head = m->qnext;
            world_msg_free(m);
        }
    }
    for (size_t i = 0; i < w->nconns; i++) {
        world_conn *c = w->conns[i];
        while (c->backlog_head) {
            msg *m = c->backlog_head;
            c->backlog_head = m->qnext;
            world_msg_free(m);
        }
        sim_timer_cancel(w->ctx, &c->held_timer);
        while (c->held_head) {
            msg *m = c->held_head;
            c->held_head = m->qnext;
            world_msg_free(m);
        }
        sim_xfree(c->name);
        sim_xfree(c->lat_up);
        sim_xfree(c->lat_down);
        sim_xfree(c);
    }
    sim_xfree(w->conns);
    for (int i = 0; i < w->nnodes; i++) sim_xfree(w->nodes[i].name);
    for (int g = 0; g < w->ngroups; g++) {
        sim_timer_cancel(w->ctx, &w->groups[g].failover_timer);
        sim_timer_cancel(w->ctx, &w->groups[g].discovery_timer);
    }
    sim_xfree(w->nodes);
    sim_xfree(w->groups);
    sim_fl_drain(&w->msgs);
    sim_xfree(w);
}

sim_ctx *world_ctx(const world *w)
{
    return w->ctx;
}

void world_set_policy(world *w, world_policy_fn *fn, void *ud)
{
    w->policy = fn;
    w->policy_ud = ud;
}

void world_set_exec_hook(world *w, world_exec_fn *fn, void *ud)
{
    w->exec_fn = fn;
    w->exec_ud = ud;
}

void world_set_master_listener(world *w, world_master_fn *fn, void *ud)
{
    w->master_fn = fn;
    w->master_ud = ud;
}

int world_nodes(const world *w)
{
    return w->nnodes;
}

int world_groups(const world *w)
{
    return w->ngroups;
}

sim_clock *world_node_clock(world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    return &w->nodes[node].clock;
}

const char *world_node_name(const world *w, int node)
{
    return w->nodes[node].name;
}

int world_group_of(const world *w, int node)
{
    return w->nodes[node].group;
}

int world_master(const world *w, int group)
{
    sim_assert(group >= 0 && group < w->ngroups);
    sim_assert(w->nodes[w->groups[group].master].master < 0); /* the group's master is a master */
    return w->groups[group].master;
}

int world_node_up(const world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    return w->nodes[node].up;
}

int world_is_replica(const world *w, int node)
{
    return w->nodes[node].master >= 0;
}

uint64_t world_commands(const world *w)
{
    return w->be->commands(w);
}

int world_runaway(const world *w, char *sha, int *wrote)
{
    return w->be->runaway(w, sha, wrote);
}

uint64_t world_evals(const world *w)
{
    return w->be->evals(w);
}

/* --------------------------------------------- through the backend */

int world_peek(world *w, int node, const char *key, size_t klen, world_peek_result *out)
{
    return w->be->peek(w, node, key, klen, out);
}

int world_peek_hash(world *w, int node, const char *key, size_t klen,
                    int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud)
{
    return w->be->peek_hash(w, node, key, klen, fn, ud);
}

int world_peek_list(world *w, int node, const char *key, size_t klen,
                    void (*fn)(void *ud, const char *v, size_t vlen), void *ud)
{
    return w->be->peek_list(w, node, key, klen, fn, ud);
}

sim_reply *world_admin(world *w, int node, int argc, const char *const *argv)
{
    return w->be->admin(w, node, argc, argv);
}

uint64_t world_store_version(world *w)
{
    return w->be->store_version(w);
}

void world_watch_begin(world *w)
{
    w->be->watch_begin(w);
}

int64_t world_watch_end(world *w)
{
    return w->be->watch_end(w);
}

int64_t world_true_at(world *w, int node, int64_t node_ms)
{
    if (node_ms < 0) return INT64_MAX;
    return w->be->true_at(w, node, node_ms);
}

void world_node_clock_changed(world *w, int node)
{
    w->be->clock_changed(w, node);
}
