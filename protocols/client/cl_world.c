/* cl_world.c — the client side of a run: the processes (one per client,
 * a new incarnation after each restart), the settings resolved for the
 * protocol's version, the keys behind lock indexes, client faults, and the
 * store observer's hooks (the protocol reads the store; the history's
 * observer records it).
 *
 * Invariants (asserted): a client runs at most one live process, whose
 * incarnation is above every earlier one of that client; a lock index
 * names a key of the world; the masters clients learn of are in their
 * group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/client/client_int.h"

/* --------------------------------------------------------- the store */

int cl_store_peek(cl_world *cw, int group, int lock, hist_store *out, world_peek_result *pk)
{
    memset(out, 0, sizeof *out);
    out->expire_ms = -1;
    const char *key = cl_key_name(cw, lock);
    if (!world_peek(cw->w, world_master(cw->w, group), key, strlen(key), pk)) return 0;
    out->held = 1;
    out->expire_ms = pk->expire_ms;
    return 1;
}

int cl_store_peek_key(cl_world *cw, int group, const char *key, world_peek_result *pk)
{
    return world_peek(cw->w, world_master(cw->w, group), key, strlen(key), pk);
}

int cl_store_peek_hash(cl_world *cw, int group, int lock,
                       int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud)
{
    const char *key = cl_key_name(cw, lock);
    return world_peek_hash(cw->w, world_master(cw->w, group), key, strlen(key), fn, ud);
}

int cl_store_peek_list(cl_world *cw, int group, const char *key, void (*fn)(void *ud, const char *v, size_t vlen),
                       void *ud)
{
    return world_peek_list(cw->w, world_master(cw->w, group), key, strlen(key), fn, ud);
}

int64_t cl_admin_eval(cl_world *cw, int group, const cl_script *script, int nkeys, const char *const *keys,
                      int nargs, const char *const *args)
{
    const char *argv[16];
    char nk[24];
    sim_assert(3 + nkeys + nargs <= 16);
    sim_fmt_i64(nk, nkeys);
    argv[0] = "EVAL";
    argv[1] = script->text;
    argv[2] = nk;
    for (int i = 0; i < nkeys; i++) argv[3 + i] = keys[i];
    for (int i = 0; i < nargs; i++) argv[3 + nkeys + i] = args[i];
    sim_reply *r = world_admin(cw->w, world_master(cw->w, group), 3 + nkeys + nargs, argv);
    int64_t answer = r && r->type == SIM_REPLY_INT ? r->integer : 0;
    sim_reply_free(r);
    return answer;
}

void cl_owner_register(cl_thread *t, const char *token)
{
    cl_proc *p = t->p;
    hist_observer_owner(p->cw->obs, token, p->client, p->inc, t->index);
}

int cl_group_up(const cl_world *cw, int group)
{
    return world_node_up(cw->w, world_master(cw->w, group));
}

int64_t cl_expiry_true_us(cl_world *cw, int group, int64_t expire_ms)
{
    return world_true_at(cw->w, world_master(cw->w, group), expire_ms);
}

void cl_world_info(cl_world *cw, hist_op op, int lock, int64_t value, int64_t aux)
{
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = op, .lock = lock, .value = value,
                    .aux = aux};
    hist_add(cw->h, &e);
}

void cl_world_observe_all(cl_world *cw)
{
    hist_observe_all(cw->obs);
}

/* The protocol's reader, as the history's observer calls it. */
static void read_lock(void *ud, int group, int lock, hist_store *out)
{
    cl_world *cw = ud;
    cw->proto->observe(cw, group, lock, out);
}

static int read_node_of(void *ud, int lock)
{
    cl_world *cw = ud;
    return cw->proto->node_of(cw, lock);
}

int cl_lock_group(const cl_world *cw, int lock)
{
    return cw->proto->node_of(cw, lock);
}

static int64_t read_count(void *ud, int group, int lock, const char *lname)
{
    cl_world *cw = ud;
    return cw->proto->store_count(cw, group, lock, lname);
}

static void read_queue(void *ud, int group, int lock, hist_queue_fn *fn, void *qud)
{
    cl_world *cw = ud;
    cw->proto->queue(cw, group, lock, fn, qud);
}

/* ------------------------------------------------------------ keys */

const char *cl_key_name(const cl_world *cw, int lock)
{
    sim_assert(lock >= 0 && lock < cw->nkeys);
    return cw->key_names[lock];
}

int cl_key_group(const cl_world *cw, int lock)
{
    sim_assert(lock >= 0 && lock < cw->nkeys);
    return cw->key_group[lock];
}

void cl_key_rename(cl_world *cw, int lock, const char *name)
{
    sim_assert(lock >= 0 && lock < cw->nkeys);
    sim_xfree(cw->key_owned[lock]);
    cw->key_owned[lock] = sim_xstrdup(name);
    cw->key_names[lock] = cw->key_owned[lock];
    if (cw->obs) hist_observer_forget(cw->obs); /* readings of the old key */
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

static const cl_script *script_find(const cl_world *cw, const char *name)
{
    for (size_t i = 0; i < cw->proto->npatched; i++)
        if (strcmp(cw->proto->patched[i].name, name) == 0) return &cw->proto->patched[i];
    return cw->proto->script ? cw->proto->script(name) : NULL;
}

/* Protocols ask for a script by a name of their configuration on every
 * send: the answer for that name's address is kept (checked by content,
 * as a buffer may be reused for another name). */
const cl_script *cl_script_lookup(const cl_world *cw, const char *name)
{
    cl_world *m = (cl_world *)cw; /* the memo only; what is found does not change */
    size_t slot = ((uintptr_t)name >> 3) % (sizeof m->script_memo / sizeof m->script_memo[0]);
    const cl_script *s = m->script_memo[slot].script;
    if (m->script_memo[slot].name == name && s != NULL && strcmp(s->name, name) == 0) return s;
    s = script_find(cw, name);
    if (s != NULL) {
        m->script_memo[slot].name = name;
        m->script_memo[slot].script = s;
    }
    return s;
}

const cl_script *cl_script_of(const cl_world *cw, const char *name)
{
    const cl_script *s = cl_script_lookup(cw, name);
    sim_assert(s != NULL);
    return s;
}

/* ------------------------------------------------------- accessors */

const scenario *cl_world_scenario(const cl_world *cw)
{
    return cw->s;
}

const void *cl_world_cfg(const cl_world *cw)
{
    return cw->proto->cfg;
}

sim_ctx *cl_world_ctx(const cl_world *cw)
{
    return cw->ctx;
}

const cl_settings *cl_world_settings(const cl_world *cw)
{
    return &cw->set;
}

/* ----------------------------------------------------------- lifecycle */

static void on_master(void *ud, int client, int group, int node)
{
    cl_world *cw = ud;
    (void)client;
    sim_assert(group >= 0 && group < cw->s->nodes && world_group_of(cw->w, node) == group);
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

/* The settings of the protocol's version, where the scenario sets none. */
static void resolve_settings(cl_world *cw)
{
    const scenario *s = cw->s;
    const cl_defaults *d = cw->proto->defaults;
    cl_settings *set = &cw->set;
    set->watchdog_gen = d ? d->watchdog_gen : 2;
    set->retry_attempts = s->retry_attempts >= 0 ? s->retry_attempts : (d ? d->retry_attempts : 4);
    if (s->retry_interval_us >= 0) {
        set->jitter = 0;
        set->retry_interval_us = s->retry_interval_us;
    } else {
        set->jitter = d ? d->jitter : 1;
        set->retry_interval_us = SIM_MS(1500);
    }
    set->synced = s->synced >= 0 ? s->synced : (d ? d->synced : 0);
    set->nosync_unchecked = d ? d->nosync_unchecked : 0;
    set->readonly_retry = d ? d->readonly_retry : 0;
    set->wd_error_keeps = d ? d->wd_error_keeps : 0;
    set->wd_zero_keeps = d ? d->wd_zero_keeps : 0;
    set->nosync_no_retry = d ? d->nosync_no_retry : 0;
    set->written_final = d ? d->written_final : 0;
    set->nosync_all = d ? d->nosync_all : 0;
    set->sub_no_timeout = d ? d->sub_no_timeout : 0;
    set->read_renew_hash = d ? d->read_renew_hash : 0;
}

cl_world *cl_world_new(world *w, const scenario *s, const cl_protocol *p, history *h)
{
    cl_world *cw = sim_xcalloc(1, sizeof *cw);
    cw->w = w;
    cw->s = s;
    cw->proto = p;
    cw->h = h;
    cw->ctx = world_ctx(w);
    cw->events = (sim_freelist)SIM_FREELIST(cl_event);
    cl_commands_world_init(cw);
    resolve_settings(cw);
    cw->nprocs = client_count(s);
    cw->procs = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->procs);
    cw->last_inc_of = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->last_inc_of);
    cw->clocks = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->clocks);
    for (int i = 0; i < cw->nprocs; i++) sim_clock_init(&cw->clocks[i]);
    cw->fail = sim_xcalloc((size_t)cw->nprocs, sizeof *cw->fail);
    cw->step_due = sim_xcalloc(s->nsteps + 1, 1);
    cw->masters_known = sim_xcalloc((size_t)s->nodes, sizeof *cw->masters_known);
    for (int g = 0; g < s->nodes; g++) cw->masters_known[g] = world_master(w, g);
    for (int i = 0; i < s->nlocks; i++) cw->key_names[i] = s->lock_names[i];
    cw->nkeys = s->nlocks;
    if (p->world_init) p->world_init(cw);
    world_set_master_listener(w, on_master, cw);
    hist_reader r = {.ud = cw, .observe = read_lock, .node_of = read_node_of,
                     .store_count = p->store_count ? read_count : NULL, .queue = p->queue ? read_queue : NULL};
    cw->obs = hist_observer_new(h, w, s->nlocks, &r);
    return cw;
}

void cl_world_free(cl_world *cw)
{
    if (cw == NULL) return;
    for (int i = 0; i < cw->nprocs; i++) cl_proc_free(cw->procs[i]);
    hist_observer_free(cw->obs);
    sim_xfree(cw->procs);
    sim_xfree(cw->last_inc_of);
    sim_xfree(cw->step_due);
    sim_xfree(cw->step_ev);
    sim_xfree(cw->masters_known);
    sim_xfree(cw->clocks);
    for (int i = 0; i < cw->nprocs; i++)
        for (int k = 0; k < 4; k++) sim_xfree(cw->fail[i].spoiled_at[k]);
    sim_xfree(cw->fail);
    for (int i = 0; i < SCN_MAX_LOCKS; i++) sim_xfree(cw->key_owned[i]);
    sim_fl_drain(&cw->events);
    cl_commands_world_free(cw);
    sim_xfree(cw);
}

static void start_proc(cl_world *cw, int client, int inc)
{
    sim_assert(client >= 1 && client <= cw->nprocs && cw->procs[client - 1] == NULL);
    sim_assert(inc > cw->last_inc_of[client - 1]);
    cl_proc *p = cl_proc_new(cw, client, inc);
    cw->procs[client - 1] = p;
    hist_observer_incarnation(cw->obs, p->id, client, inc);
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

void cl_world_counts(const cl_world *cw, uint64_t *acquisitions, uint64_t *failures, uint64_t *errors)
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
    sim_assert(p->alive && p->client == client && p->inc > cw->last_inc_of[client - 1]);
    cl_trace(p, p->name, "crash");
    cl_hist(p, NULL, HIST_INFO, HOP_CRASH, 0, 0, 0, NULL);
    cw->procs[client - 1] = NULL;
    cw->last_inc_of[client - 1] = p->inc;
    cl_proc_free(p);
}

void cl_crash_on_reply(cl_world *cw, int client)
{
    cl_proc *p = cl_world_proc(cw, client);
    if (p == NULL) return;
    p->crash_on_reply = 1;
    cl_trace(p, p->name, "crash armed: at the next reply");
}

void cl_restart(cl_world *cw, int client)
{
    if (client < 1 || client > cw->nprocs) return;
    cl_proc *live = cw->procs[client - 1];
    if (live && live->crash_on_reply) { /* the window of the crash closed before a reply came */
        live->crash_on_reply = 0;
        cl_trace(live, live->name, "crash on reply disarmed: no reply came before the restart");
    }
    if (live || cw->stopping) return;
    int inc = cw->last_inc_of[client - 1] + 1;
    start_proc(cw, client, inc);
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_RESTART, .client = client, .inc = inc};
    hist_add(cw->h, &e);
}

void cl_pause(cl_world *cw, int client, int64_t for_us)
{
    cl_proc *p = cl_world_proc(cw, client);
    if (p) cl_proc_pause(p, for_us);
}

void cl_world_fault(cl_world *cw, const char *line)
{
    hist_event e = {.t_us = sim_now(cw->ctx), .kind = HIST_INFO, .op = HOP_FAULT, .value = hist_text(cw->h, line)};
    hist_add(cw->h, &e);
}

void cl_fail_reply(cl_world *cw, int client, int kind, int count, int as_error)
{
    if (client < 1 || client > cw->nprocs || kind < 1 || kind > 3) return;
    cw->fail[client - 1].count[kind] += count;
    cw->fail[client - 1].as_error[kind] = as_error;
}

size_t cl_fail_reply_spoils(const cl_world *cw, int client, int kind, const int64_t **at)
{
    *at = NULL;
    if (client < 1 || client > cw->nprocs || kind < 1 || kind > 3) return 0;
    *at = cw->fail[client - 1].spoiled_at[kind];
    return cw->fail[client - 1].nspoiled[kind];
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
