/* backend_real.c — the world on real redis-server processes (the real
 * backend of backend.h), and world_new_real. The clients, the network
 * layer, the replication bookkeeping and Sentinel are the same as on the
 * fake: every message still goes through world_post (so the policy hook
 * and its libfiu points apply), with no simulated latency. What differs is
 * the node end: a client connection is a hiredis connection to the node's
 * server, a command is sent there and its reply comes back through the
 * poll loop; a subscription's confirmations and messages come back as
 * pushes. Time is the wall clock: the kernel's waiter polls the
 * connections until the next event is due. Node faults act on the
 * processes; the servers replicate by themselves through proxy.c; reads of
 * the store for the checkers go over one side connection per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/kernel/host.h"
#include "sim/real/aio.h"
#include "sim/real/real.h"
#include "sim/real/servers.h"
#include "sim/world/backend.h"

typedef struct rnode {
    world *w;
    int node;
    sim_timer clock_refresh;  /* a drifting clock's offset updates */
} rnode;

typedef struct wreal {
    real_servers *srv;
    real_loop *loop;
    real_conn **side;         /* per node: for peeks, opened on first use */
    int64_t start_mono_us, start_unix_us;
    uint64_t commands, evals;
    sim_reply *peek_keep;     /* the string a peek lent out */
    wproxy **proxies;         /* every replication link made, freed at the end */
    size_t nproxies;
    rnode *nodes;             /* index = world node */
    uint64_t version;         /* store_version: a new one at each reading */
} wreal;

static wreal *state_of(const world *w)
{
    return w->be_state;
}

static sim_reply *side_cmd(world *w, int node, int argc, const char *const *argv, const size_t *lens);

/* True time now: µs since the world started, on the monotonic clock. */
static int64_t wall_now(const wreal *r)
{
    return host_mono_us() - r->start_mono_us;
}

/* ------------------------------------------------------------ the loop */

static void wait_for(void *ud, sim_ctx *ctx, int64_t due_us)
{
    world *w = ud;
    wreal *r = state_of(w);
    int64_t now = wall_now(r);
    if (now < due_us) {
        int64_t timeout = due_us == SIM_TIME_NEVER ? 100000 : due_us - now;
        real_loop_poll(r->loop, timeout);
        now = wall_now(r);
    }
    sim_advance(ctx, now < due_us ? now : due_us);
}

void wreal_catch_up(world *w)
{
    sim_advance(w->ctx, wall_now(state_of(w)));
}

struct real_loop *wreal_loop(world *w)
{
    return state_of(w)->loop;
}

int wreal_port(const world *w, int node)
{
    return real_servers_port(state_of(w)->srv, node);
}

const char *wreal_host(const world *w, int node)
{
    return real_servers_host(state_of(w)->srv, node);
}

/* Points replica at master through a new replication proxy. */
static void attach(world *w, int replica, int master)
{
    wreal *r = state_of(w);
    wproxy *p = wproxy_new(w, master, replica);
    if (p == NULL) return;
    r->proxies = sim_xrealloc(r->proxies, (r->nproxies + 1) * sizeof *r->proxies);
    r->proxies[r->nproxies++] = p;
    char port[16];
    snprintf(port, sizeof port, "%d", wproxy_port(p));
    const char *of[] = {"REPLICAOF", "127.0.0.1", port};
    size_t lens[] = {9, 9, strlen(port)};
    sim_reply_free(side_cmd(w, replica, 3, of, lens));
}

/* ----------------------------------------------------- client traffic */

static int is_sub_command(const msg *m)
{
    static const char *const names[] = {"subscribe", "unsubscribe", "psubscribe", "punsubscribe"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (m->lens[0] == strlen(names[i]) && strncasecmp(m->argv[0], names[i], m->lens[0]) == 0) return 1;
    return 0;
}

/* A reply from the server: to the command whose message is the cookie,
 * or (cookie c itself) a subscription's confirmation or message. */
static void on_reply(void *ud, void *cookie, const sim_reply *reply)
{
    world_conn *c = ud;
    world *w = c->w;
    if (cookie == c) {
        if (reply == NULL || c->closed) return;
        wreal_catch_up(w);
        world_push(c, sim_reply_dup(reply));
        return;
    }
    msg *m = cookie;
    if (reply != NULL && !c->closed) {
        wreal_catch_up(w);
        world_ran(w, c, m->tag);
        world_reply(c, m->req_id, sim_reply_dup(reply));
    }
    world_msg_free(m);
}

static void on_lost(void *ud)
{
    world_conn *c = ud;
    wreal_catch_up(c->w);
    world_conn_reset(c);
}

static int64_t be_latency_us(world *w, const scn_dist *d, const char *lat)
{
    (void)w;
    (void)d;
    (void)lat;
    return 0; /* the network is real */
}

static void be_open(world *w, world_conn *c)
{
    wreal *r = state_of(w);
    c->node_end = real_aconn_open(r->loop, real_servers_host(r->srv, c->node), real_servers_port(r->srv, c->node),
                                  on_reply, on_lost, c);
    if (c->node_end == NULL) world_conn_reset(c);
}

static void be_command(world *w, world_conn *c, msg *m)
{
    wreal *r = state_of(w);
    r->commands++;
    if (m->lens[0] >= 4 && strncasecmp(m->argv[0], "eval", 4) == 0) r->evals++;
    if (is_sub_command(m)) {
        real_aconn_send(c->node_end, m->argc, (const char *const *)m->argv, m->lens, c);
    } else if (real_aconn_send(c->node_end, m->argc, (const char *const *)m->argv, m->lens, m) == 0) {
        return; /* kept until its reply */
    }
    world_msg_free(m);
}

static void be_conn_gone(world *w, world_conn *c)
{
    (void)w;
    if (c->node_end) {
        real_aconn_close(c->node_end); /* pending commands' messages are freed with NULL replies */
        c->node_end = NULL;
    }
}

/* ---------------------------------------------------------- node faults */

static void be_crash(world *w, int node)
{
    real_servers_kill(state_of(w)->srv, node);
    sim_trace(w->ctx, w->nodes[node].name, "SIGKILL (redis-server pid gone, data lost)");
}

static void be_restart(world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    wnode *n = &w->nodes[node];
    int master = w->groups[n->group].master;
    sim_assert(w->nodes[master].group == n->group);
    if (real_servers_restart(state_of(w)->srv, node, 0) != 0) {
        sim_trace(w->ctx, n->name, "restart failed");
        return;
    }
    if (state_of(w)->side[node]) {
        real_close(state_of(w)->side[node]);
        state_of(w)->side[node] = NULL;
    }
    if (master != node) attach(w, node, master);
    sim_trace(w->ctx, n->name, "restarted (empty)%s", master != node ? " as a replica" : "");
}

static void be_pause(world *w, int node, int on)
{
    if (on) real_servers_pause(state_of(w)->srv, node);
    else real_servers_resume(state_of(w)->srv, node);
}

static uint64_t be_commands(const world *w)
{
    return state_of(w)->commands;
}

static uint64_t be_evals(const world *w)
{
    return state_of(w)->evals;
}

/* How far node's replication got (INFO replication), or -1. */
static long long repl_offset(world *w, int node)
{
    const char *argv[] = {"INFO", "replication"};
    size_t lens[] = {4, 11};
    sim_reply *r = side_cmd(w, node, 2, argv, lens);
    long long off = -1;
    const char *p = r && r->str ? strstr(r->str, "slave_repl_offset:") : NULL;
    if (p) off = atoll(p + 18);
    sim_reply_free(r);
    return off;
}

/* The live node of group (not old) whose replication got furthest. */
static int be_pick_replica(world *w, int group, int old)
{
    sim_assert(group >= 0 && group < w->ngroups);
    int best = -1;
    long long best_off = -1;
    for (int i = 0; i < w->nnodes; i++) {
        wnode *n = &w->nodes[i];
        if (n->group != group || i == old || !n->up) continue;
        long long off = repl_offset(w, i);
        if (best < 0 || off > best_off) {
            best = i;
            best_off = off;
        }
    }
    return best;
}

/* Sentinel's failover on the servers: the chosen replica stops
 * replicating, the group's other live nodes follow it. */
static void be_promote(world *w, int best)
{
    const char *no_one[] = {"REPLICAOF", "NO", "ONE"};
    size_t no_one_lens[] = {9, 2, 3};
    sim_reply_free(side_cmd(w, best, 3, no_one, no_one_lens));
    for (int i = 0; i < w->nnodes; i++) {
        if (i == best || w->nodes[i].group != w->nodes[best].group || !w->nodes[i].up) continue;
        attach(w, i, best);
    }
    sim_trace(w->ctx, "sentinel", "REPLICAOF NO ONE on %s; the others follow it", w->nodes[best].name);
}

/* The server's wall clock follows the node's clock: its offset from true
 * time now; a drifting clock is refreshed every 20 ms. */
static void be_clock_changed(world *w, int node);

static void refresh_clock(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    rnode *rn = arg;
    be_clock_changed(rn->w, rn->node);
}

static void be_clock_changed(world *w, int node)
{
    wnode *n = &w->nodes[node];
    rnode *rn = &state_of(w)->nodes[node];
    const sim_clock *c = &n->clock;
    int64_t offset = sim_clock_now_us(w->ctx, c) - (sim_now(w->ctx) + SIM_CLOCK_EPOCH_US);
    if (real_servers_set_offset(state_of(w)->srv, node, offset) != 0)
        sim_trace(w->ctx, n->name, "clock: the server's clock cannot be moved");
    if (c->drift_ppm != 0)
        sim_timer_arm(w->ctx, &rn->clock_refresh, sim_now(w->ctx) + SIM_MS(20), "clock refresh", refresh_clock, rn);
    else
        sim_timer_cancel(w->ctx, &rn->clock_refresh);
}

static sim_reply *be_admin(world *w, int node, int argc, const char *const *argv)
{
    size_t lens[16];
    sim_assert(argc <= 16);
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    return side_cmd(w, node, argc, argv, lens);
}

/* ---------------------------------------------------------------- peeks */

static sim_reply *side_cmd(world *w, int node, int argc, const char *const *argv, const size_t *lens)
{
    wreal *r = state_of(w);
    if (!real_servers_alive(r->srv, node)) return NULL;
    if (r->side[node] == NULL) {
        char err[128];
        r->side[node] = real_connect(real_servers_host(r->srv, node), real_servers_port(r->srv, node), 200, err, sizeof err);
        if (r->side[node] == NULL) return NULL;
        real_set_timeout(r->side[node], 200);
    }
    sim_reply *rep = real_command(r->side[node], argc, argv, lens);
    if (rep == NULL) {
        real_close(r->side[node]); /* paused or gone: try afresh next time */
        r->side[node] = NULL;
    }
    return rep;
}

static sim_reply *side_key(world *w, int node, const char *cmd, const char *key, size_t klen)
{
    const char *argv[] = {cmd, key};
    size_t lens[] = {strlen(cmd), klen};
    return side_cmd(w, node, 2, argv, lens);
}

static int be_peek(world *w, int node, const char *key, size_t klen, world_peek_result *out)
{
    memset(out, 0, sizeof *out);
    out->expire_ms = -1;
    sim_reply *t = side_key(w, node, "TYPE", key, klen);
    if (t == NULL || t->str == NULL || strcmp(t->str, "none") == 0) {
        sim_reply_free(t);
        return 0;
    }
    const char *type = t->str;
    const char *count_cmd = NULL;
    if (!strcmp(type, "string")) out->type = WORLD_TYPE_STRING;
    else if (!strcmp(type, "hash")) out->type = WORLD_TYPE_HASH, count_cmd = "HLEN";
    else if (!strcmp(type, "list")) out->type = WORLD_TYPE_LIST, count_cmd = "LLEN";
    else if (!strcmp(type, "zset")) out->type = WORLD_TYPE_ZSET, count_cmd = "ZCARD";
    else if (!strcmp(type, "set")) out->type = WORLD_TYPE_SET, count_cmd = "SCARD";
    sim_reply_free(t);
    int64_t unix_ms = host_unix_us() / 1000;
    sim_reply *p = side_key(w, node, "PTTL", key, klen);
    if (p && p->type == SIM_REPLY_INT && p->integer >= 0) out->expire_ms = unix_ms + p->integer;
    sim_reply_free(p);
    if (count_cmd) {
        sim_reply *n = side_key(w, node, count_cmd, key, klen);
        if (n && n->type == SIM_REPLY_INT) out->count = (size_t)n->integer;
        sim_reply_free(n);
    } else if (out->type == WORLD_TYPE_STRING) {
        sim_reply_free(state_of(w)->peek_keep);
        state_of(w)->peek_keep = side_key(w, node, "GET", key, klen);
        if (state_of(w)->peek_keep && state_of(w)->peek_keep->str) {
            out->str = state_of(w)->peek_keep->str;
            out->len = state_of(w)->peek_keep->len;
        }
    }
    return 1;
}

static int be_peek_hash(world *w, int node, const char *key, size_t klen,
                          int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud)
{
    sim_reply *all = side_key(w, node, "HGETALL", key, klen);
    if (all == NULL || all->type != SIM_REPLY_ARRAY || all->elements == 0) {
        sim_reply_free(all);
        return 0;
    }
    for (size_t i = 0; i + 1 < all->elements; i += 2)
        if (!fn(ud, all->element[i]->str, all->element[i]->len, all->element[i + 1]->str,
                all->element[i + 1]->len))
            break;
    sim_reply_free(all);
    return 1;
}

static int be_peek_list(world *w, int node, const char *key, size_t klen,
                          void (*fn)(void *ud, const char *v, size_t vlen), void *ud)
{
    const char *argv[] = {"LRANGE", key, "0", "-1"};
    size_t lens[] = {6, klen, 1, 2};
    sim_reply *all = side_cmd(w, node, 4, argv, lens);
    int ok = all && all->type == SIM_REPLY_ARRAY && all->elements > 0;
    for (size_t i = 0; ok && i < all->elements; i++) fn(ud, all->element[i]->str, all->element[i]->len);
    sim_reply_free(all);
    return ok;
}

/* A deadline in Unix ms (what PTTL gave: the servers' clocks) on the
 * true-time axis. */
/* Other clients and the servers' own expiry change a real store at any
 * time: no two readings are the same version, and no peek holds. */
static uint64_t be_store_version(world *w)
{
    return ++state_of(w)->version;
}

static void be_watch_begin(world *w)
{
    (void)w;
}

static int64_t be_watch_end(world *w)
{
    return sim_now(w->ctx);
}

static int64_t be_true_at(world *w, int node, int64_t unix_ms)
{
    (void)node;
    return unix_ms * 1000 + 1000 - state_of(w)->start_unix_us;
}

/* ------------------------------------------------------------- lifetime */

/* The servers replicate by themselves (through proxy.c): roles change by
 * REPLICAOF in restart and promote, and no effects pass through here. */
static void be_set_master(world *w, int node, fake_repl_fn *ship, void *ud)
{
    (void)w;
    (void)node;
    (void)ship;
    (void)ud;
}

static void be_set_replica(world *w, int node)
{
    (void)w;
    (void)node;
}

static void be_full_sync(world *w, int node, int master)
{
    (void)w;
    (void)node;
    (void)master;
}

static void be_apply(world *w, int node, const fake_effect *effects, size_t n)
{
    (void)w;
    (void)node;
    (void)effects;
    (void)n;
}

static void be_free(world *w)
{
    wreal *r = state_of(w);
    sim_set_waiter(w->ctx, NULL, NULL);
    for (size_t i = 0; i < w->nconns; i++) w->conns[i]->node_end = NULL;
    for (size_t i = 0; i < r->nproxies; i++) wproxy_free(r->proxies[i]);
    sim_xfree(r->proxies);
    real_loop_free(r->loop); /* closes the connections */
    for (int i = 0; i < w->nnodes; i++) {
        real_close(r->side[i]);
        sim_timer_cancel(w->ctx, &r->nodes[i].clock_refresh);
    }
    sim_xfree(r->side);
    sim_xfree(r->nodes);
    sim_reply_free(r->peek_keep);
    sim_xfree(r);
    w->be_state = NULL;
}

/* A real server's script that does not end is Redis's to answer (BUSY,
 * SCRIPT KILL): the run does not stop for it. */
static int be_runaway(const world *w, char *sha, int *wrote)
{
    (void)w, (void)sha, (void)wrote;
    return 0;
}

static const wbackend backend = WBACKEND_TABLE;

world *world_new_real(sim_ctx *ctx, const scenario *s, real_servers *srv)
{
    world *w = world_alloc(ctx, s);
    wreal *r = sim_xcalloc(1, sizeof *r);
    r->srv = srv;
    r->loop = real_loop_new();
    r->side = sim_xcalloc((size_t)w->nnodes, sizeof *r->side);
    r->nodes = sim_xcalloc((size_t)w->nnodes, sizeof *r->nodes);
    for (int i = 0; i < w->nnodes; i++) r->nodes[i] = (rnode){.w = w, .node = i};
    r->start_mono_us = host_mono_us() - sim_now(w->ctx);
    r->start_unix_us = host_unix_us() - sim_now(w->ctx);
    w->be = &backend;
    w->be_state = r;
    sim_set_waiter(w->ctx, wait_for, w);
    /* Managed replicas replicate through locksim, with the scenario's lag. */
    for (int i = 0; i < w->nnodes && real_servers_managed(srv); i++)
        if (w->nodes[i].master >= 0) attach(w, i, w->nodes[i].master);
    repl_init(w);
    return w;
}
