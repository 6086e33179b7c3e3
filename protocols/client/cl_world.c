/* cl_world.c — the client side of a run: the processes (one per client,
 * a new incarnation after each restart), the settings resolved for the
 * protocol's version, client faults, and the store observer that records
 * into the history what the store holds after each command a node runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/client/cl_int.h"

/* Every incarnation ever started, to name a lock's holder from its id:
 * found by id, and by (client, incarnation mod 256) as tags carry it (the
 * newest one of that key wins, as it would in a search from the end). */
typedef struct incarnation {
    UT_hash_handle by_id, by_tag;
    char id[40];
    int client, inc;
    int tag_key[2]; /* client, inc & 0xFF */
} incarnation;

struct cl_registry {
    incarnation *ids, *tags; /* uthash */
    incarnation **all;       /* every one, to free */
    size_t n, cap;
};

static void remember(cl_world *cw, const cl_proc *p)
{
    struct cl_registry *r = cw->registry;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->all = sim_xrealloc(r->all, r->cap * sizeof *r->all);
    }
    incarnation *x = sim_xcalloc(1, sizeof *x), *old;
    r->all[r->n++] = x;
    snprintf(x->id, sizeof x->id, "%s", p->id);
    x->client = p->client;
    x->inc = p->inc;
    x->tag_key[0] = p->client;
    x->tag_key[1] = p->inc & 0xFF;
    HASH_FIND(by_id, r->ids, x->id, strlen(x->id), old);
    if (old) HASH_DELETE(by_id, r->ids, old);
    HASH_ADD(by_id, r->ids, id[0], strlen(x->id), x);
    HASH_FIND(by_tag, r->tags, x->tag_key, sizeof x->tag_key, old);
    if (old) HASH_DELETE(by_tag, r->tags, old);
    HASH_ADD(by_tag, r->tags, tag_key, sizeof x->tag_key, x);
}

static void registry_free(struct cl_registry *r)
{
    HASH_CLEAR(by_id, r->ids);
    HASH_CLEAR(by_tag, r->tags);
    for (size_t i = 0; i < r->n; i++) sim_xfree(r->all[i]);
    sim_xfree(r->all);
    sim_xfree(r);
}

int cl_world_who(const cl_world *cw, const char *lname, int *client, int *inc, int *thread)
{
    const char *colon = strrchr(lname, ':');
    if (colon == NULL) return 0;
    incarnation *x;
    HASH_FIND(by_id, cw->registry->ids, lname, (size_t)(colon - lname), x);
    if (x == NULL) return 0;
    *client = x->client;
    *inc = x->inc;
    *thread = atoi(colon + 1);
    return 1;
}

/* The id of incarnation inc (mod 256) of client, or NULL. */
static const char *id_of(const cl_world *cw, int client, int inc)
{
    int key[2] = {client, inc & 0xFF};
    incarnation *x;
    HASH_FIND(by_tag, cw->registry->tags, key, sizeof key, x);
    return x ? x->id : NULL;
}

/* --------------------------------------------------------- observation */

/* True time at which a key with node-clock deadline expire_ms is gone
 * (Redis: once node time > deadline), at the group master's clock rate. */
int64_t cl_expiry_true_us(cl_world *cw, int group, int64_t expire_ms)
{
    return world_true_at(cw->w, world_master(cw->w, group), expire_ms);
}

int cl_store_peek(cl_world *cw, int group, int lock, proto_store *out, world_peek_result *pk)
{
    memset(out, 0, sizeof *out);
    out->expire_ms = -1;
    const char *key = cl_key_name(cw, lock);
    if (!world_peek(cw->w, world_master(cw->w, group), key, strlen(key), pk)) return 0;
    out->held = 1;
    out->expire_ms = pk->expire_ms;
    return 1;
}

/* A counter object's value (semaphore permits, latch count): recorded
 * when it changes; not while the master is down (nothing to read). */
static void observe_counter(cl_world *cw, int group, int lock, const proto_store *st)
{
    if (!world_node_up(cw->w, world_master(cw->w, group))) return;
    int64_t exists = st->held;
    if (cw->observed[lock] && cw->last_count[lock] == st->count && cw->last_expire[lock] == exists) return;
    cw->observed[lock] = 1;
    cw->last_count[lock] = st->count;
    cw->last_expire[lock] = exists;
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_COUNTER, .lock = lock,
                    .value = st->count, .aux = exists};
    hist_add(cw->h, &e);
}

/* Records the lock as the store has it now (when it changed); raw, when
 * not NULL, gets what the protocol's observer read. */
static void observe_lock(cl_world *cw, int group, int lock, proto_store *raw)
{
    proto_store st = {0}; /* observers that predate a field leave it 0 */
    cw->proto->observe(cw, group, lock, &st);
    if (raw) *raw = st;
    if (st.counter) {
        observe_counter(cw, group, lock, &st);
        return;
    }
    int client = 0, inc = 0, thread = 0;
    if (st.held && !cl_world_who(cw, st.owner, &client, &inc, &thread)) client = -1; /* a foreign key */
    if (cw->proto->node_of(cw, lock) >= 0 && !world_node_up(cw->w, world_master(cw->w, group))) {
        /* No master: the lock cannot be had (not free), whatever it held. */
        st.held = 1;
        st.expire_ms = -1;
        client = -1;
        inc = thread = 0;
    }
    int64_t expire = !st.held            ? INT64_MAX
                     : st.expire_true_us ? st.expire_true_us
                                         : cl_expiry_true_us(cw, group, st.expire_ms);
    int64_t count = st.held ? st.count : 0;
    if (cw->observed[lock] && cw->last_client[lock] == client && cw->last_inc[lock] == inc &&
        cw->last_thread[lock] == thread && cw->last_count[lock] == count &&
        cw->last_expire[lock] == expire && cw->last_mode[lock] == st.mode) {
        if (cw->proto->queue) cl_queue_observe(cw, group, lock);
        return;
    }
    cw->last_mode[lock] = st.mode;
    cw->observed[lock] = 1;
    cw->last_client[lock] = client;
    cw->last_inc[lock] = inc;
    cw->last_thread[lock] = thread;
    cw->last_count[lock] = count;
    cw->last_expire[lock] = expire;
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_STORE, .client = client,
                    .inc = inc, .thread = thread, .lock = lock, .value = count, .aux = expire,
                    .mode = st.held ? st.mode : 0};
    hist_add(cw->h, &e);
    if (cw->proto->queue) cl_queue_observe(cw, group, lock);
}

/* Tags carry who sent a command: client, incarnation, thread, lock, and
 * the thread's operation count. */
uint64_t cl_tag(const cl_thread *t, int lock, uint64_t opcount)
{
    return ((uint64_t)t->p->client << 44) | ((uint64_t)(t->p->inc & 0xFF) << 36) |
           ((uint64_t)(t->index & 0x3FF) << 26) | ((uint64_t)(lock & 0xF) << 22) |
           (opcount & 0x3FFFFF);
}

static void on_exec(void *ud, int node, uint64_t tag)
{
    cl_world *cw = ud;
    int group = world_group_of(cw->w, node);
    int client = (int)(tag >> 44), inc = (int)((tag >> 36) & 0xFF);
    int thread = (int)((tag >> 26) & 0x3FF), lock = (int)((tag >> 22) & 0xF);
    proto_store st = {0}; /* what the store holds of the sender's lock */
    for (int l = 0; l < cw->s->nlocks; l++) {
        int g = cw->proto->node_of(cw, l);
        if (g == group || g < 0) observe_lock(cw, group, l, l == lock ? &st : NULL); /* < 0: spans groups */
    }
    if (tag == 0) return;
    if (lock >= cw->s->nlocks || cw->proto->node_of(cw, lock) != group) return;
    /* The store's count for the sending thread, right after its command. */
    const char *id = id_of(cw, client, inc);
    if (id == NULL) return;
    if (st.counter) return; /* no owner, no hold count */
    char lname[64];
    size_t idlen = strlen(id);
    memcpy(lname, id, idlen);
    lname[idlen] = ':';
    sim_fmt_i64(lname + idlen + 1, thread);
    int64_t count = st.held && strcmp(st.owner, lname) == 0 ? st.count : 0;
    if (cw->proto->store_count) count = cw->proto->store_count(cw, group, lock, lname);
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_STORE_COUNT,
                    .client = client, .inc = inc, .thread = thread, .lock = lock,
                    .value = count, .seq = tag};
    hist_add(cw->h, &e);
}

void cl_world_observe_all(cl_world *cw)
{
    for (int lock = 0; lock < cw->s->nlocks; lock++) {
        int g = cw->proto->node_of(cw, lock);
        observe_lock(cw, g < 0 ? 0 : g, lock, NULL);
    }
}

const char *cl_key_name(const cl_world *cw, int lock)
{
    return cw->key_names[lock];
}

int cl_key_group(const cl_world *cw, int lock)
{
    return cw->key_group[lock];
}

int cl_key_add(cl_world *cw, const char *name, int group)
{
    if (cw->nkeys >= SCN_MAX_LOCKS) return -1;
    int k = cw->nkeys++;
    cw->key_owned[k] = sim_xstrdup(name);
    cw->key_names[k] = cw->key_owned[k];
    cw->key_group[k] = group;
    return k;
}

/* ----------------------------------------------------------- lifecycle */

static void on_master(void *ud, int client, int group, int node)
{
    cl_world *cw = ud;
    (void)client;
    cw->masters_known[group] = node;
    for (int i = 0; i < cw->nprocs; i++)
        if (cw->procs[i]) cl_node_switch(cw->procs[i], group, node);
    cl_world_observe_all(cw);
}

static int client_count(const scenario *s)
{
    int n = s->clients;
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].client > n) n = s->steps[i].client;
    return n;
}

cl_world *cl_world_new(world *w, const scenario *s, const proto_def *p, history *h)
{
    cl_world *cw = sim_xcalloc(1, sizeof *cw);
    cw->w = w;
    cw->s = s;
    cw->proto = p;
    cw->h = h;
    cw->ctx = world_ctx(w);
    cw->registry = sim_xcalloc(1, sizeof(struct cl_registry));
    const proto_client_defaults *d = p->defaults;
    cw->watchdog_gen = d ? d->watchdog_gen : 2;
    cw->retry_attempts = s->retry_attempts >= 0 ? s->retry_attempts : (d ? d->retry_attempts : 4);
    if (s->retry_interval_us >= 0) {
        cw->jitter = 0;
        cw->retry_interval_us = s->retry_interval_us;
    } else {
        cw->jitter = d ? d->jitter : 1;
        cw->retry_interval_us = SIM_MS(1500);
    }
    cw->nprocs = client_count(s);
    cw->procs = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->procs);
    cw->last_inc_of = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->last_inc_of);
    cw->clocks = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->clocks);
    for (int i = 0; i < cw->nprocs; i++) sim_clock_init(&cw->clocks[i]);
    cw->step_due = sim_xcalloc(s->nsteps + 1, 1);
    cw->masters_known = sim_xcalloc((size_t)s->nodes, sizeof *cw->masters_known);
    for (int g = 0; g < s->nodes; g++) cw->masters_known[g] = world_master(w, g);
    cw->synced = s->synced >= 0 ? s->synced : (d ? d->synced : 0);
    cw->nosync_unchecked = d ? d->nosync_unchecked : 0;
    for (int i = 0; i < s->nlocks; i++) cw->key_names[i] = s->lock_names[i];
    cw->nkeys = s->nlocks;
    if (p->world_init) p->world_init(cw);
    world_set_master_listener(w, on_master, cw);
    world_set_exec_hook(w, on_exec, cw);
    return cw;
}

void cl_world_free(cl_world *cw)
{
    if (cw == NULL) return;
    for (int i = 0; i < cw->nprocs; i++) cl_proc_free(cw->procs[i]);
    registry_free(cw->registry);
    sim_xfree(cw->procs);
    sim_xfree(cw->last_inc_of);
    sim_xfree(cw->step_due);
    sim_xfree(cw->step_ev);
    sim_xfree(cw->masters_known);
    sim_xfree(cw->clocks);
    for (int i = 0; i < SCN_MAX_LOCKS; i++) sim_xfree(cw->key_owned[i]);
    cl_queue_free(cw);
    sim_xfree(cw);
}

static void start_proc(cl_world *cw, int client, int inc)
{
    cl_proc *p = cl_proc_new(cw, client, inc);
    cw->procs[client - 1] = p;
    remember(cw, p);
    cl_trace(p, p->name, "start id=%s incarnation=%d threads=%d", p->id, inc, p->nthreads);
    cl_workload_start(p);
}

void cl_world_start(cl_world *cw)
{
    if (cw->proto->setup) cw->proto->setup(cw);
    for (int c = 1; c <= cw->nprocs; c++) start_proc(cw, c, 1);
    cl_steps_schedule(cw);
    cl_world_observe_all(cw);
}

void cl_world_stop(cl_world *cw)
{
    cw->stopping = 1;
    for (int i = 0; i < cw->nprocs; i++)
        if (cw->procs[i]) cl_workload_stop(cw->procs[i]);
}

int cl_world_busy(const cl_world *cw)
{
    int n = 0;
    for (int i = 0; i < cw->nprocs; i++) {
        const cl_proc *p = cw->procs[i];
        if (p == NULL) continue;
        for (int t = 0; t < p->nthreads; t++) n += p->threads[t].busy;
    }
    return n;
}

int cl_world_holding(const cl_world *cw)
{
    int n = 0;
    for (int i = 0; i < cw->nprocs; i++) {
        const cl_proc *p = cw->procs[i];
        if (p == NULL) continue;
        for (int t = 0; t < p->nthreads; t++)
            for (int l = 0; l < cw->s->nlocks; l++) n += p->threads[t].depth[l] > 0;
    }
    return n;
}

void cl_world_counts(const cl_world *cw, uint64_t *acquisitions, uint64_t *failures,
                     uint64_t *errors)
{
    *acquisitions = cw->acquisitions;
    *failures = cw->acquire_failures;
    *errors = cw->op_errors;
}

cl_proc *cl_world_proc(cl_world *cw, int client)
{
    return client >= 1 && client <= cw->nprocs ? cw->procs[client - 1] : NULL;
}

/* -------------------------------------------------------------- faults */

void cl_crash(cl_world *cw, int client)
{
    cl_proc *p = cl_world_proc(cw, client);
    if (p == NULL) return;
    cl_trace(p, p->name, "crash");
    cl_hist(p, NULL, HIST_INFO, HOP_CRASH, 0, 0, 0, NULL);
    cw->procs[client - 1] = NULL;
    cw->last_inc_of[client - 1] = p->inc;
    cl_proc_free(p);
}

void cl_restart(cl_world *cw, int client)
{
    if (client < 1 || client > cw->nprocs || cw->procs[client - 1] || cw->stopping) return;
    int inc = cw->last_inc_of[client - 1] + 1;
    start_proc(cw, client, inc);
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_RESTART,
                    .client = client, .inc = inc};
    hist_add(cw->h, &e);
}

void cl_pause(cl_world *cw, int client, int64_t for_us)
{
    cl_proc *p = cl_world_proc(cw, client);
    if (p) cl_proc_pause(p, for_us);
}

void cl_world_fault(cl_world *cw, const char *line)
{
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_FAULT,
                    .value = hist_text(cw->h, line)};
    hist_add(cw->h, &e);
}

void cl_disconnect(cl_world *cw, int client)
{
    cl_proc *p = cl_world_proc(cw, client);
    if (p == NULL) return;
    cl_trace(p, p->name, "disconnect: every connection drops");
    for (int g = 0; g < cw->s->nodes; g++) cl_node_drop(p, g);
}

sim_clock *cl_clock(cl_world *cw, int client)
{
    return client >= 1 && client <= cw->nprocs ? &cw->clocks[client - 1] : NULL;
}

int cl_world_clients(const cl_world *cw)
{
    return cw->nprocs;
}
