/* repl.c — replication and failover between the world's nodes.
 *
 * A master ships the effects of each client command (the effect batches
 * its backend hands to the hook of set_master) to its replicas, one
 * message per batch, with the replication lag; a replica applies them in
 * offset order and acknowledges. A backend whose servers replicate by
 * themselves ships nothing: the links are then the world's view of the
 * topology, for failover and the connected-replica count. A WAIT the
 * backend leaves to the world (repl_wait) counts the replicas whose
 * acknowledged offset reaches the connection's last write, blocking the
 * connection until enough have or its timeout runs out.
 * Replication traffic that the network policy would drop is retried
 * (Redis' replication backlog resends it), so a replica lags, never
 * diverges. Failover (Sentinel-like) promotes the most up-to-date live
 * replica: what the old master had not shipped is gone.
 *
 * Invariants (asserted): in every group the master the world names is a
 * master and every other node replicates from it; an alive link joins
 * that master to one of its replicas, both up, with at most one alive
 * link per replica, and the master knows no more acknowledged than it
 * sent; a replica applies batches in offset order, one at a time, and only
 * those of its link's present epoch (each full sync starts one); a replica
 * never syncs from a node that is down; only a
 * master ships effects and answers a WAIT; a connection waits on one
 * WAIT at a time. The whole topology is checked (paranoid builds) after
 * each change of it. */
#include <stdio.h>
#include <string.h>

#include "sim/world/backend.h"

#define REPL_RETRY_US SIM_MS(100)

typedef struct repl_hook {
    world *w;
    int node;
} repl_hook;

/* Hook contexts, one per node (index = node). */
static repl_hook *hooks_of(world *w)
{
    return (repl_hook *)w->repl_hooks;
}

static wlink *find_link(world *w, int master, int replica)
{
    for (size_t i = 0; i < w->nlinks; i++)
        if (w->links[i].master == master && w->links[i].replica == replica) return &w->links[i];
    return NULL;
}

static wlink *link_for(world *w, int master, int replica)
{
    sim_assert(master >= 0 && master < w->nnodes && replica >= 0 && replica < w->nnodes && master != replica);
    sim_assert(w->nodes[master].group == w->nodes[replica].group); /* replication stays in its group */
    wlink *l = find_link(w, master, replica);
    if (l) return l;
    if (w->nlinks == w->links_cap) {
        w->links_cap = w->links_cap ? w->links_cap * 2 : 8;
        w->links = sim_xrealloc(w->links, w->links_cap * sizeof *w->links);
    }
    l = &w->links[w->nlinks++];
    memset(l, 0, sizeof *l);
    l->master = master;
    l->replica = replica;
    char buf[128];
    snprintf(buf, sizeof buf, "repl %s>%s", w->nodes[master].name, w->nodes[replica].name);
    l->lat_down = sim_xstrdup(buf);
    snprintf(buf, sizeof buf, "repl %s<%s", w->nodes[master].name, w->nodes[replica].name);
    l->lat_up = sim_xstrdup(buf);
    return l;
}

static void on_effects(void *ud, const fake_effect *effects, size_t n);

/* The whole replication topology is consistent (see the invariants
 * above). O(nodes + links). */
static int topology_ok(const world *w)
{
    for (int g = 0; g < w->ngroups; g++) {
        int m = w->groups[g].master;
        if (m < 0 || m >= w->nnodes || w->nodes[m].group != g || w->nodes[m].master >= 0) return 0;
        for (int i = 0; i < w->nnodes; i++)
            if (w->nodes[i].group == g && i != m && w->nodes[i].master != m) return 0;
    }
    for (size_t i = 0; i < w->nlinks; i++) {
        const wlink *l = &w->links[i];
        if (!l->alive) continue;
        const wnode *ma = &w->nodes[l->master], *r = &w->nodes[l->replica];
        if (r->master != l->master || !ma->up || !r->up || ma->master >= 0) return 0;
        if (l->acked > ma->offset || r->offset > ma->offset) return 0;
        for (size_t j = i + 1; j < w->nlinks; j++)
            if (w->links[j].alive && w->links[j].replica == l->replica) return 0;
    }
    return 1;
}

static void make_master(world *w, int node)
{
    sim_assert(node >= 0 && node < w->nnodes);
    w->nodes[node].master = -1;
    /* Without replicas nothing is shipped: the node need not record
     * its effects at all. */
    w->be->set_master(w, node, w->s->replicas > 0 ? on_effects : NULL, &hooks_of(w)[node]);
}

void repl_init(world *w)
{
    repl_hook *hooks = sim_xcalloc((size_t)w->nnodes, sizeof *hooks);
    w->repl_hooks = hooks;
    for (int i = 0; i < w->nnodes; i++) {
        hooks[i] = (repl_hook){w, i};
        wnode *n = &w->nodes[i];
        if (n->master < 0) {
            make_master(w, i);
        } else {
            w->be->set_replica(w, i);
            link_for(w, n->master, i)->alive = 1;
        }
    }
    sim_paranoid(topology_ok(w));
}

void repl_free(world *w)
{
    for (size_t i = 0; i < w->nlinks; i++) {
        sim_xfree(w->links[i].lat_down);
        sim_xfree(w->links[i].lat_up);
        msg *m = w->links[i].held;
        while (m) {
            msg *next = m->qnext;
            world_msg_free(m);
            m = next;
        }
    }
    sim_xfree(w->links);
    for (int i = 0; i < w->nnodes; i++) {
        wnode *n = &w->nodes[i];
        while (n->waits) {
            wwait *x = n->waits;
            n->waits = x->next;
            sim_timer_cancel(w->ctx, &x->timer);
            sim_xfree(x);
        }
    }
    sim_xfree(w->repl_hooks);
}

/* ------------------------------------------------------------- shipping */

static void post_repl(world *w, wlink *l, msg *m);

static void retry_post(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    msg *m = arg;
    world *w = m->w;
    world_wire_unlink(w, m);
    sim_assert(m->link >= 0 && (size_t)m->link < w->nlinks);
    wlink *l = &w->links[m->link];
    post_repl(w, l, m);
}

/* Replication traffic is not lost: what the policy refuses now is tried
 * again later (the replica reads it from the backlog). Meanwhile it is
 * on the wire, freed with the world if the run ends first. */
static void post_repl(world *w, wlink *l, msg *m)
{
    sim_assert(m->kind == WORLD_MSG_REPL || m->kind == WORLD_MSG_ACK);
    world_verdict v = {0, 0, 0};
    if (w->policy) w->policy(w->policy_ud, m->from, m->to, m->kind, NULL, &v);
    if (v.drop) {
        world_wire_link(w, m);
        sim_at(w->ctx, sim_now(w->ctx) + REPL_RETRY_US, "repl retry", retry_post, m);
        return;
    }
    int down = m->kind == WORLD_MSG_REPL;
    int64_t extra = v.extra_us;
    /* world_post would ask the policy again: post with it off. */
    world_policy_fn *saved = w->policy;
    w->policy = NULL;
    int64_t *last = down ? &l->last_down_us : &l->last_up_us;
    if (extra) *last = *last > sim_now(w->ctx) + extra ? *last : sim_now(w->ctx) + extra;
    world_post(w, m, down ? l->lat_down : l->lat_up, &w->s->replication_lag, last);
    w->policy = saved;
}

/* A master's hook (set_master): ships one client command's effects. */
static void on_effects(void *ud, const fake_effect *effects, size_t n)
{
    repl_hook *h = ud;
    world *w = h->w;
    wnode *master = &w->nodes[h->node];
    sim_assert(master->master < 0 && master->up); /* only a master ships */
    master->offset++;
    for (size_t i = 0; i < w->nlinks; i++) {
        wlink *l = &w->links[i];
        if (l->master != h->node || !l->alive) continue;
        msg *m = world_msg_new(w, WORLD_MSG_REPL, h->node, l->replica);
        m->link = (int)i;
        m->offset = master->offset;
        m->epoch = l->epoch;
        m->neffects = n;
        m->effects = sim_xcalloc(n, sizeof *m->effects);
        for (size_t k = 0; k < n; k++) {
            fake_effect *e = &m->effects[k];
            e->argc = effects[k].argc;
            e->argv = sim_xmalloc((size_t)e->argc * sizeof *e->argv);
            e->lens = sim_xmalloc((size_t)e->argc * sizeof *e->lens);
            for (int j = 0; j < e->argc; j++) {
                e->argv[j] = sim_xmemdup(effects[k].argv[j], effects[k].lens[j]);
                e->lens[j] = effects[k].lens[j];
            }
        }
        post_repl(w, l, m);
    }
}

/* ----------------------------------------------------------------- WAIT */

static int acked_count(world *w, int master, uint64_t woff)
{
    int n = 0;
    for (size_t i = 0; i < w->nlinks; i++) {
        const wlink *l = &w->links[i];
        if (l->master == master && l->alive && w->nodes[l->replica].up && l->acked >= woff) n++;
    }
    return n;
}

int world_connected_replicas(const world *w, int group)
{
    int master = w->groups[group].master, n = 0;
    for (size_t i = 0; i < w->nlinks; i++) {
        const wlink *l = &w->links[i];
        if (l->master == master && l->alive && w->nodes[l->replica].up) n++;
    }
    return n;
}

#define UNBLOCKED_ERR "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"

/* Ends WAIT x on node n: the replicas that acknowledged, or, on a node no
 * longer a master (demoted: Sentinel's REPLICAOF), Redis's
 * disconnectAllBlockedClients: an UNBLOCKED error, and the connection
 * closed after it (CLIENT_CLOSE_AFTER_REPLY; what queued behind the WAIT
 * is not run). A client that took the error for the count would call the
 * script before it replicated when it was lost with the failover. */
static void finish_wait(world *w, wnode *n, wwait *x, int demoted)
{
    int found = 0;
    for (wwait **pp = &n->waits; *pp; pp = &(*pp)->next) {
        if (*pp != x) continue;
        *pp = x->next;
        found = 1;
        break;
    }
    sim_assert(found && x->c->blocked && x->c->node == n->index);
    sim_timer_cancel(w->ctx, &x->timer);
    world_conn *c = x->c;
    uint64_t req = x->req_id;
    sim_xfree(x);
    if (demoted) {
        world_reply(c, req, sim_reply_err(UNBLOCKED_ERR));
        world_conn_reset(c);
        return;
    }
    world_reply(c, req, sim_reply_int(acked_count(w, c->node, c->woff)));
    world_unblock(w, c);
}

static void on_wait_timeout(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    wwait *x = arg;
    world *w = x->c->w;
    wnode *n = &w->nodes[x->c->node];
    sim_assert(n->up && !x->expired);
    if (n->paused) { /* it ends when the node runs again */
        x->expired = 1;
        return;
    }
    finish_wait(w, n, x, n->master >= 0);
}

void repl_resumed(world *w, int node)
{
    wnode *n = &w->nodes[node];
    sim_assert(n->up && !n->paused);
    for (wwait *x = n->waits, *next; x; x = next) {
        next = x->next;
        if (x->expired) finish_wait(w, n, x, n->master >= 0);
    }
}

void repl_wait(world *w, world_conn *c, uint64_t req_id, long long want, long long timeout)
{
    wnode *n = &w->nodes[c->node];
    sim_assert(n->master < 0 && n->up && !c->blocked && c->node_end != NULL);
    int now = acked_count(w, c->node, c->woff);
    if (now >= want) {
        world_reply(c, req_id, sim_reply_int(now));
        return;
    }
    wwait *x = sim_xcalloc(1, sizeof *x);
    x->c = c;
    x->req_id = req_id;
    x->want = want;
    x->next = n->waits;
    n->waits = x;
    c->blocked = 1;
    if (timeout > 0) sim_timer_arm(w->ctx, &x->timer, sim_now(w->ctx) + SIM_MS(timeout), "wait timeout",
                                   on_wait_timeout, x);
}

void repl_drop_waits(world *w, world_conn *c)
{
    sim_assert(c->node >= 0 && c->node < w->nnodes);
    wnode *n = &w->nodes[c->node];
    for (wwait **pp = &n->waits; *pp;) {
        wwait *x = *pp;
        if (x->c != c) {
            pp = &x->next;
            continue;
        }
        *pp = x->next;
        sim_timer_cancel(w->ctx, &x->timer);
        sim_xfree(x);
    }
    c->blocked = 0;
}

static void recheck_waits(world *w, int master)
{
    wnode *n = &w->nodes[master];
    for (wwait *x = n->waits, *next; x; x = next) {
        next = x->next;
        if (acked_count(w, master, x->c->woff) >= x->want) finish_wait(w, n, x, 0);
    }
}

/* ------------------------------------------------------------- delivery */

static void send_ack(world *w, wlink *l, uint64_t offset)
{
    sim_assert(l->alive && w->nodes[l->replica].up && offset == w->nodes[l->replica].offset);
    msg *m = world_msg_new(w, WORLD_MSG_ACK, l->replica, l->master);
    m->link = (int)(l - w->links);
    m->offset = offset;
    m->epoch = l->epoch;
    post_repl(w, l, m);
}

/* Applies held batches of link l in offset order. */
static void apply_ready(world *w, wlink *l)
{
    wnode *r = &w->nodes[l->replica];
    for (;;) {
        msg **pp = &l->held, *m = NULL;
        for (; *pp; pp = &(*pp)->qnext)
            if ((*pp)->offset == r->offset + 1) break;
        if (*pp == NULL) return;
        m = *pp;
        *pp = m->qnext;
        /* in offset order, from the master it replicates */
        sim_assert(m->offset == r->offset + 1 && r->master == l->master && l->alive);
        w->be->apply(w, l->replica, m->effects, m->neffects);
        r->offset = m->offset;
        send_ack(w, l, r->offset);
        world_msg_free(m);
    }
}

void repl_deliver(world *w, msg *m)
{
    sim_assert(m->link >= 0 && (size_t)m->link < w->nlinks);
    sim_assert(m->kind == WORLD_MSG_REPL || m->kind == WORLD_MSG_ACK);
    wlink *l = &w->links[m->link];
    wnode *to = &w->nodes[m->to];
    /* a batch goes down its link, an acknowledgement up */
    sim_assert(m->kind == WORLD_MSG_REPL ? m->from == l->master && m->to == l->replica
                                         : m->from == l->replica && m->to == l->master);
    if (!to->up || !l->alive || m->epoch != l->epoch || (m->kind == WORLD_MSG_REPL && to->master != l->master)) {
        world_msg_free(m); /* the link is gone, or was synced again since: a resync will follow */
        return;
    }
    if (to->paused) {
        world_hold(to, m);
        return;
    }
    if (m->kind == WORLD_MSG_ACK) {
        if (m->offset > l->acked) l->acked = m->offset;
        world_msg_free(m);
        recheck_waits(w, l->master);
        return;
    }
    if (m->offset <= to->offset) { /* already applied (a full sync covered it) */
        world_msg_free(m);
        return;
    }
    m->qnext = l->held;
    l->held = m;
    apply_ready(w, l);
}

/* ------------------------------------------------------------- topology */

void repl_attach(world *w, int node, int master)
{
    sim_assert(node != master && w->nodes[node].group == w->nodes[master].group);
    sim_assert(w->nodes[master].master < 0); /* a replica of a master */
    wnode *n = &w->nodes[node];
    n->master = master;
    w->be->set_replica(w, node);
    if (!n->up) return; /* synchronised when it comes back */
    for (size_t i = 0; i < w->nlinks; i++)
        if (w->links[i].replica == node) w->links[i].alive = 0;
    if (!w->nodes[master].up) { /* synchronised when the master comes back */
        sim_trace(w->ctx, n->name, "replica of %s (down: no sync until it restarts)", w->nodes[master].name);
        return;
    }
    w->be->full_sync(w, node, master);
    n->offset = w->nodes[master].offset;
    wlink *l = link_for(w, master, node);
    sim_assert(l->master == master && l->replica == node);
    l->alive = 1;
    l->acked = n->offset;
    /* A new epoch: batches and acknowledgements still in flight from an
     * earlier life of this link (the node was its master's replica
     * before, and the master a replica in between: offsets start again
     * from the full sync) must not be applied as if they followed it. */
    l->epoch++;
    while (l->held) {
        msg *m = l->held;
        l->held = m->qnext;
        world_msg_free(m);
    }
    sim_trace(w->ctx, n->name, "replica of %s (full sync at offset %llu)", w->nodes[master].name,
              (unsigned long long)n->offset);
}

static void on_failover_due(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    repl_hook *h = arg;
    world *w = h->w;
    int group = w->nodes[h->node].group;
    if (w->groups[group].master == h->node && !w->nodes[h->node].up) world_failover(w, group);
}

void repl_master_down(world *w, int node)
{
    wnode *n = &w->nodes[node];
    sim_assert(!n->up);
    for (size_t i = 0; i < w->nlinks; i++)
        if (w->links[i].replica == node || w->links[i].master == node) w->links[i].alive = 0;
    while (n->waits) {
        wwait *x = n->waits;
        n->waits = x->next;
        sim_timer_cancel(w->ctx, &x->timer);
        sim_xfree(x);
    }
    wgroup *g = &w->groups[n->group];
    if (g->master != node || w->s->replicas == 0) return;
    /* Sentinel sees the master down after down-after, then fails over. */
    sim_timer_arm(w->ctx, &g->failover_timer, sim_now(w->ctx) + w->s->down_after_us,
                  "sentinel failover", on_failover_due, &hooks_of(w)[node]);
    sim_paranoid(topology_ok(w));
}

static void on_discovered(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    repl_hook *h = arg;
    world *w = h->w;
    int group = w->nodes[h->node].group;
    w->groups[group].announced = h->node;
    sim_trace(w->ctx, "sentinel", "clients learn that %s is the master of group %d",
              w->nodes[h->node].name, group);
    if (w->master_fn) w->master_fn(w->master_ud, 0, group, h->node);
}

int world_failover(world *w, int group)
{
    sim_assert(group >= 0 && group < w->ngroups);
    wgroup *g = &w->groups[group];
    int old = g->master, best = w->be->pick_replica(w, group, old);
    if (best < 0) {
        sim_trace(w->ctx, "sentinel", "no replica of %s to promote", w->nodes[old].name);
        return -1;
    }
    sim_timer_cancel(w->ctx, &g->failover_timer);
    sim_trace(w->ctx, "sentinel", "failover: %s (offset %llu) replaces %s (offset %llu)",
              w->nodes[best].name, (unsigned long long)w->nodes[best].offset, w->nodes[old].name,
              (unsigned long long)w->nodes[old].offset);
    for (size_t i = 0; i < w->nlinks; i++)
        if (w->links[i].master == old) w->links[i].alive = 0;
    /* WAITs blocked on the old master end now, unblocked with an error as
     * REPLICAOF demotes it; a paused one when it runs again (a replica by
     * then). */
    if (w->nodes[old].paused) {
        for (wwait *x = w->nodes[old].waits; x; x = x->next) {
            sim_timer_cancel(w->ctx, &x->timer);
            x->expired = 1;
        }
    } else {
        while (w->nodes[old].waits) finish_wait(w, &w->nodes[old], w->nodes[old].waits, 1);
    }
    make_master(w, best);
    g->master = best;
    w->be->promote(w, best);
    sim_assert(w->nodes[best].up && w->nodes[best].group == group);
    sim_assert(w->nodes[old].waits == NULL || w->nodes[old].paused);
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].group == group && i != best) repl_attach(w, i, best);
    sim_paranoid(topology_ok(w));
    sim_timer_arm(w->ctx, &g->discovery_timer, sim_now(w->ctx) + w->s->discovery_us,
                  "sentinel discovery", on_discovered, &hooks_of(w)[best]);
    return best;
}
