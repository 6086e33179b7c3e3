/* backend_fake.c — the world on embedded fake nodes (sim/fake), and
 * world_new. A node is a fake_node reading the world's clock of that node;
 * a client connection's node end is a fake_conn; a command runs the moment
 * it arrives and its reply goes back over the simulated network. The fake
 * knows nothing of replicas: a master's WAIT is checked by the fake, then
 * counted by the world (repl_wait), and replication applies the effect
 * batches the fake records. A client blocked in a blocking command
 * (BLPOP & co.) blocks its connection as a WAIT does; its answer (served,
 * timed out by the node's clock, or UNBLOCKED when the node is made a
 * replica, which closes the connection) goes back when the fake gives it,
 * and a node's next timeout is an event at the true time its clock passes
 * the deadline (moved with the clock; a paused node times nothing out
 * until it runs again).
 *
 * Invariants (asserted): a command reaches a node that is up and
 * running, over an open node end, never while its connection is blocked
 * in a WAIT; only a master's WAIT is the world's; a fake node is a
 * replica exactly when the world says so. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/world/backend.h"

typedef struct wfake {
    fake_node **nodes; /* index = world node */
    sim_timer *block_timers; /* per node: its next blocked client's timeout */
    uint64_t gen;      /* node faults, clock moves, role changes, admin commands */
    int watching, admin_in_watch;
} wfake;

static fake_node *node_of(const world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    return ((const wfake *)w->be_state)->nodes[node];
}

/* ------------------------------------------------------------- traffic */

static int64_t be_latency_us(world *w, const scn_dist *d, const char *lat)
{
    return scn_dist_draw(w->ctx, d, lat);
}

static void on_node_push(void *ud, const sim_reply *push)
{
    /* shared: a published message goes to every subscriber */
    world_push(ud, sim_reply_ref((sim_reply *)push));
}

static void be_open(world *w, world_conn *c)
{
    sim_assert(c->node_end == NULL && w->nodes[c->node].up && !w->nodes[c->node].paused);
    c->node_end = fake_conn_new(node_of(w, c->node), on_node_push, c);
}

static int is_wait(const msg *m)
{
    return m->argc == 3 && m->lens[0] == 4 && strncasecmp(m->argv[0], "wait", 4) == 0;
}

/* A master's WAIT: the fake checks its arguments as Redis does (and
 * answers errors); the world counts the replicas. */
static void run_wait(world *w, world_conn *c, const msg *m)
{
    sim_assert(w->nodes[c->node].master < 0);
    sim_reply *r = fake_exec(node_of(w, c->node), c->node_end, m->argc, (const char *const *)m->argv, m->lens);
    if (r == NULL || r->type == SIM_REPLY_ERR) {
        world_reply(c, m->req_id, r);
        return;
    }
    sim_reply_free(r);
    long long want = 0, ms = 0; /* the fake accepted both: strict integers */
    int ok = fake_str2ll(m->argv[1], m->lens[1], &want) && fake_str2ll(m->argv[2], m->lens[2], &ms);
    sim_assert(ok);
    repl_wait(w, c, m->req_id, want, ms);
}

/* ------------------------------------------------ blocked clients */

static void arm_block_timer(world *w, int node);

/* The answers node's fake gave its blocked clients go back, in order. */
static void answered(world *w, int node)
{
    fake_conn *fc;
    sim_reply *r;
    int close;
    while (fake_node_unblocked(node_of(w, node), &fc, &r, &close)) {
        world_conn *c = fake_conn_ud(fc);
        sim_assert(c->blocked && c->node_end == fc && c->node == node);
        c->woff = w->nodes[node].offset;
        world_reply(c, c->block_req, r);
        if (close) {
            world_conn_reset(c);
        } else {
            if (w->nodes[node].master < 0) world_ran(w, c, c->block_tag);
            world_unblock(w, c);
        }
    }
    arm_block_timer(w, node);
}

static void on_block_timer(sim_ctx *ctx, void *arg);

static void arm_block_timer(world *w, int node)
{
    wfake *f = w->be_state;
    sim_timer *t = &f->block_timers[node];
    int64_t d = fake_node_block_deadline(node_of(w, node));
    if (d < 0 || !w->nodes[node].up || w->nodes[node].paused) {
        sim_timer_cancel(w->ctx, t);
        return;
    }
    int64_t at = sim_clock_true_at(w->ctx, &w->nodes[node].clock, (d + 1) * 1000);
    if (at < sim_now(w->ctx)) at = sim_now(w->ctx);
    sim_timer_cancel(w->ctx, t);
    sim_timer_arm(w->ctx, t, at, "block timeout", on_block_timer, &w->nodes[node]);
}

static void on_block_timer(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    wnode *n = arg;
    world *w = n->owner;
    sim_assert(n->up && !n->paused); /* paused or down: the timer is off */
    fake_node_block_timeouts(node_of(w, n->index));
    answered(w, n->index);
}

/* Redis 7.0's busy-reply-threshold: a script that does not end holds
 * every other client for this long, then they are answered BUSY. */
#define BUSY_REPLY_THRESHOLD_US SIM_SEC(5)

static void be_command(world *w, world_conn *c, msg *m)
{
    wnode *n = &w->nodes[c->node];
    sim_assert(n->up && !n->paused && c->node_end != NULL && !c->blocked && m->c == c);
    if (is_wait(m) && n->master < 0) {
        run_wait(w, c, m);
    } else {
        int wrote;
        int was_runaway = fake_node_runaway(node_of(w, c->node), &wrote) != NULL;
        sim_reply *r = fake_exec(node_of(w, c->node), c->node_end, m->argc, (const char *const *)m->argv, m->lens);
        /* A script that ran the limit on a node that keeps going ([redis]
         * runaway = busy) runs on: the node serves nobody until the busy
         * threshold has passed (a stall, as a pause), then answers BUSY. */
        if (!was_runaway && w->s->runaway_busy && fake_node_runaway(node_of(w, c->node), &wrote) != NULL) {
            c->woff = n->offset;
            world_msg_free(m);
            world_node_pause(w, c->node, BUSY_REPLY_THRESHOLD_US);
            return;
        }
        c->woff = n->offset;
        if (fake_conn_blocked(c->node_end)) { /* answered later (answered) */
            sim_assert(r == NULL);
            c->blocked = 1;
            c->block_req = m->req_id;
            c->block_tag = m->tag;
        } else {
            world_ran(w, c, m->tag);
            if (r) world_reply(c, m->req_id, r); /* NULL: answered with pushes (SUBSCRIBE) */
        }
        answered(w, c->node);
    }
    world_msg_free(m);
}

static void be_conn_gone(world *w, world_conn *c)
{
    (void)w;
    fake_conn_free(c->node_end);
    c->node_end = NULL;
}

/* --------------------------------------------------------- node faults */

/* Anything that may change what a peek sees, time and writes aside. */
static void moved(world *w)
{
    ((wfake *)w->be_state)->gen++;
}

static void be_crash(world *w, int node)
{
    sim_assert(!w->nodes[node].up);
    moved(w);
    fake_node_reset(node_of(w, node), w->s->persistence);
    arm_block_timer(w, node); /* off: its blocked clients went with their connections */
}

/* The process was reset at the crash; a paused node is held by the world
 * (nothing reaches it); the fake reads the world's clock itself. */
static void be_restart(world *w, int node)
{
    sim_assert(w->nodes[node].up);
    moved(w);
}
/* A paused server times nothing out: the timer is off until it runs. */
static void be_pause(world *w, int node, int on)
{
    moved(w);
    arm_block_timer(w, node);
    (void)on;
}

static void be_clock_changed(world *w, int node)
{
    moved(w);
    arm_block_timer(w, node);
}

/* ------------------------------------------------ replication, failover */

static void be_set_master(world *w, int node, fake_repl_fn *ship, void *ud)
{
    sim_assert(w->nodes[node].master < 0);
    moved(w);
    fake_node_set_replica(node_of(w, node), 0);
    fake_node_set_repl(node_of(w, node), ship, ud);
}

static void be_set_replica(world *w, int node)
{
    sim_assert(w->nodes[node].master >= 0);
    moved(w);
    fake_node_set_repl(node_of(w, node), NULL, NULL);
    fake_node_set_replica(node_of(w, node), 1);
    answered(w, node); /* its blocked clients: UNBLOCKED, then closed */
}

static void be_full_sync(world *w, int node, int master)
{
    sim_assert(node != master && w->nodes[node].master == master && w->nodes[node].up);
    moved(w);
    fake_node_copy_data(node_of(w, node), node_of(w, master));
}

static void be_apply(world *w, int node, const fake_effect *effects, size_t n)
{
    sim_assert(w->nodes[node].master >= 0 && w->nodes[node].up && !w->nodes[node].paused);
    moved(w);
    fake_node_apply(node_of(w, node), effects, n);
}

/* The live replica of old that applied the most batches. */
static int be_pick_replica(world *w, int group, int old)
{
    int best = -1;
    for (int i = 0; i < w->nnodes; i++) {
        wnode *n = &w->nodes[i];
        if (n->group != group || i == old || !n->up || n->master != old) continue;
        if (best < 0 || n->offset > w->nodes[best].offset) best = i;
    }
    sim_assert(best < 0 || (w->nodes[best].up && w->nodes[best].group == group));
    return best;
}

static void be_promote(world *w, int node)
{
    sim_assert(w->nodes[node].master < 0 && w->nodes[node].up);
    moved(w);
}

/* ----------------------------------------------------------- observing */

static int be_peek(world *w, int node, const char *key, size_t klen, world_peek_result *out)
{
    static const int types[] = {[FAKE_TYPE_STRING] = WORLD_TYPE_STRING, [FAKE_TYPE_LIST] = WORLD_TYPE_LIST,
                                [FAKE_TYPE_HASH] = WORLD_TYPE_HASH, [FAKE_TYPE_ZSET] = WORLD_TYPE_ZSET,
                                [FAKE_TYPE_SET] = WORLD_TYPE_SET};
    fake_peek fp;
    int found = fake_node_peek(node_of(w, node), key, klen, &fp);
    *out = (world_peek_result){types[fp.type], fp.expire_ms, fp.str, fp.len, fp.count};
    return found;
}

static int be_peek_hash(world *w, int node, const char *key, size_t klen,
                          int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud)
{
    return fake_node_peek_hash(node_of(w, node), key, klen, fn, ud);
}

static int be_peek_list(world *w, int node, const char *key, size_t klen,
                          void (*fn)(void *ud, const char *v, size_t vlen), void *ud)
{
    return fake_node_peek_list(node_of(w, node), key, klen, fn, ud);
}

static sim_reply *be_admin(world *w, int node, int argc, const char *const *argv)
{
    wfake *f = w->be_state;
    f->admin_in_watch |= f->watching; /* a script's reads are not noted */
    moved(w);
    fake_conn *admin = fake_conn_new(node_of(w, node), NULL, NULL);
    sim_reply *r = fake_execv(node_of(w, node), admin, argc, argv);
    fake_conn_free(admin);
    if (w->nodes[node].up && !w->nodes[node].paused) answered(w, node);
    return r;
}

static uint64_t be_store_version(world *w)
{
    const wfake *f = w->be_state;
    uint64_t v = f->gen;
    for (int i = 0; i < w->nnodes; i++) v += fake_node_version(f->nodes[i]);
    return v;
}

static void be_watch_begin(world *w)
{
    wfake *f = w->be_state;
    f->watching = 1;
    f->admin_in_watch = 0;
    for (int i = 0; i < w->nnodes; i++) fake_node_watch(f->nodes[i], 1);
}

static int64_t be_true_at(world *w, int node, int64_t node_ms);

static int64_t be_watch_end(world *w)
{
    wfake *f = w->be_state;
    int64_t until = INT64_MAX;
    for (int i = 0; i < w->nnodes; i++) {
        fake_node_watch(f->nodes[i], 0);
        int64_t ms = fake_node_watch_min(f->nodes[i]);
        if (ms < 0) continue;
        int64_t t = be_true_at(w, i, ms); /* the key is gone from then on */
        if (t < until) until = t;
    }
    f->watching = 0;
    return f->admin_in_watch ? sim_now(w->ctx) : until;
}

static int64_t be_true_at(world *w, int node, int64_t node_ms)
{
    int64_t t = sim_clock_true_at(w->ctx, &w->nodes[node].clock, (node_ms + 1) * 1000);
    sim_assert(t >= sim_now(w->ctx)); /* never in the past */
    return t;
}

static uint64_t be_commands(const world *w)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nnodes; i++) n += fake_node_stats(node_of(w, i))->commands;
    return n;
}

static uint64_t be_evals(const world *w)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nnodes; i++) n += fake_node_stats(node_of(w, i))->scripts;
    return n;
}

/* ------------------------------------------------------------ lifetime */

static void be_free(world *w)
{
    wfake *f = w->be_state;
    for (int i = 0; i < w->nnodes; i++) sim_timer_cancel(w->ctx, &f->block_timers[i]);
    sim_xfree(f->block_timers);
    for (int i = 0; i < w->nnodes; i++) fake_node_closing(f->nodes[i]);
    for (size_t i = 0; i < w->nconns; i++) be_conn_gone(w, w->conns[i]);
    for (int i = 0; i < w->nnodes; i++) fake_node_free(f->nodes[i]);
    sim_xfree(f->nodes);
    sim_xfree(f);
    w->be_state = NULL;
}

/* The first node whose script did not end. */
static int be_runaway(const world *w, char *sha, int *wrote)
{
    for (int i = 0; i < w->nnodes; i++) {
        const char *x = fake_node_runaway(node_of(w, i), wrote);
        if (x == NULL) continue;
        memcpy(sha, x, 41);
        return 1;
    }
    return 0;
}

static const wbackend backend = WBACKEND_TABLE;

world *world_new(sim_ctx *ctx, const scenario *s)
{
    world *w = world_alloc(ctx, s);
    wfake *f = sim_xcalloc(1, sizeof *f);
    f->nodes = sim_xcalloc((size_t)w->nnodes, sizeof *f->nodes);
    f->block_timers = sim_xcalloc((size_t)w->nnodes, sizeof *f->block_timers);
    for (int i = 0; i < w->nnodes; i++) {
        f->nodes[i] = fake_node_new(ctx, w->nodes[i].name, &w->nodes[i].clock);
        fake_node_set_runaway_keep(f->nodes[i], s->runaway_busy);
    }
    w->be = &backend;
    w->be_state = f;
    repl_init(w);
    return w;
}
