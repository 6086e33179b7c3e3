/* watchdog.c — Redisson's lock watchdog (expiration renewal) in a virtual
 * process, in its three generations:
 *
 *  - Generation 0 (3.8.1 .. 3.10.4): an entry per lock holding the one
 *    thread that scheduled it (a later registration while it exists is a
 *    no-op) and its timer; the renewal's reply removes the entry whatever
 *    it says, and a reply of 1 schedules a new one. An error or a 0 ends
 *    the chain (the next acquisition starts another); a cancel that runs
 *    while a renewal is on the wire is undone by that renewal's reply of 1,
 *    which schedules again (the chain outlives the unlock by one period).
 *  - Generation 1 (V2019 .. 3.43): one entry and one timer per lock; every
 *    lease/3 it renews the first registered thread's lock name with
 *    LOCK_RENEW. On an error (a NoSyncedSlaves one too, from 3.20) it
 *    stops, leaving the entry before 3.14.0 (issue #3194: the lock's later
 *    holds in the process are not renewed) and removing it since (PR
 *    #3195); a reply of 0 leaves the entry without a timer before 3.16.1
 *    and removes it since (cancelExpirationRenewal(null)).
 *  - Generation 2 (CUR, since 3.44): one process-wide task; each tick
 *    renews every registered lock in one LOCK_RENEW_BATCH per node (chunks
 *    of 100), cancelling one count of a lock's head thread when it replied
 *    0, and re-arms whatever happened. A tick that finds nothing ends its
 *    chain; a registration while none runs starts a new chain, so two
 *    chains can run at once, as in Redisson.
 *
 * The read locks of RedissonReadWriteLock:
 *  - since 3.44, a task of their own (ReadLockTask): each tick sends one
 *    READ_RENEW_BATCH with every thread of the process that holds read on
 *    a lock, renewing their timeout keys and the hash; a lock that replied
 *    0 loses one count of each thread listed. The write side renews in
 *    the plain task under its "<id>:<t>:write" name.
 *  - before (generations 0 and 1), the plain task's entry of the lock:
 *    Redisson keys it by "<id>:<name>", the same for the read and the
 *    write lock of one hash, so a thread's read and write holds share it.
 *    The entry renews as the lock that created it: a read lock with
 *    RedissonReadLock.renewExpirationAsync (rw2018_read_renew, the hash
 *    and every timeout key, since 3.8.1), or before 3.8.1 with
 *    RedissonLock's script under the read name (the hash alone: the
 *    timeout keys lapse, issue #1604); a write lock with LOCK_RENEW under
 *    its write name, whatever read holds joined it.
 *
 * Renewal always extends to lockWatchdogTimeout (transport R).
 *
 * Invariants (asserted): a registered thread holds a count above zero;
 * every thread in an entry's queue is registered in it; a task runs a
 * chain exactly while it has entries; a tick's count of batches without
 * a reply never goes below zero. */
#include <stdio.h>
#include <string.h>

#include "protocols/client/client_int.h"

#define BATCH 100

typedef struct wd_thread {
    int thread;
    int count;
    int read;          /* registered first by a read lock (generations 0, 1) */
    char lname[64];
} wd_thread;

/* One registered lock. Generation 1: threads in registration order.
 * Generation 2: queue holds one thread id per acquisition. */
typedef struct wd_entry {
    int lock, node;
    wd_thread *threads;
    int nthreads, cap;
    int *queue;
    int qlen, qcap;
    cl_timer timer;           /* generation 1 */
    struct wd_entry *next;
} wd_entry;

typedef struct wd_task wd_task;

typedef struct wd_chain {
    cl_timer timer;
    wd_task *task;
    struct wd_chain *next;
} wd_chain;

/* One renewal task: the plain locks' or the read locks'. */
struct wd_task {
    wd_entry *entries;        /* in registration order */
    wd_chain *chains;         /* generation 2 tick chains */
    int running;
    int read;                 /* renews read holds (READ_RENEW_BATCH) */
};

typedef struct wd_state {
    wd_task plain, read;
} wd_state;

/* The watchdog lives beside the protocol state: one per process. */
static wd_state *state(cl_proc *p, int create);

static wd_task *task(cl_proc *p, int read, int create)
{
    wd_state *w = state(p, create);
    return w == NULL ? NULL : read ? &w->read : &w->plain;
}

static wd_entry *find(wd_task *w, int lock)
{
    for (wd_entry *e = w->entries; e; e = e->next)
        if (e->lock == lock) return e;
    return NULL;
}

static wd_thread *find_thread(wd_entry *e, int thread)
{
    for (int i = 0; i < e->nthreads; i++)
        if (e->threads[i].thread == thread) return &e->threads[i];
    return NULL;
}

/* Every thread queued in e is registered in it with a count. O(n^2). */
static int queue_ok(const wd_entry *e)
{
    for (int i = 0; i < e->qlen; i++) {
        int found = 0;
        for (int k = 0; k < e->nthreads; k++) found |= e->threads[k].thread == e->queue[i] && e->threads[k].count > 0;
        if (!found) return 0;
    }
    return 1;
}

static void remove_entry(cl_proc *p, wd_task *w, wd_entry *e)
{
    int found = 0;
    for (wd_entry **pp = &w->entries; *pp; pp = &(*pp)->next) {
        if (*pp != e) continue;
        *pp = e->next;
        found = 1;
        break;
    }
    sim_assert(found);
    cl_timer_cancel(p, &e->timer);
    sim_xfree(e->threads);
    sim_xfree(e->queue);
    sim_xfree(e);
}

static int64_t lease_ms(cl_proc *p)
{
    return p->cw->s->watchdog_us / 1000;
}

static int64_t period_us(cl_proc *p)
{
    return SIM_MS(lease_ms(p) / 3);
}

static void key_prefix(const char *name, char *buf, size_t cap);

/* One lock's renewal in generations 0 and 1, as the lock that created
 * its entry renews (t: the entry's first thread): LOCK_RENEW under t's
 * name, or a read lock's RedissonReadLock.renewExpirationAsync since
 * 3.8.1. */
static void renew_one(cl_proc *p, int node, int lock, const wd_thread *t, cl_cmd_fn *done, void *ud)
{
    char lease[24], prefix[64];
    sim_fmt_i64(lease, lease_ms(p));
    const char *name = cl_key_name(p->cw, lock);
    key_prefix(name, prefix, sizeof prefix);
    const char *keys[] = {name, prefix};
    const char *args[] = {lease, t->lname};
    int per_read = t->read && !p->cw->set.read_renew_hash;
    cl_eval(p, node, cl_script_of(p->cw, per_read ? "rw2018_read_renew" : "lock_renew"), per_read ? 2 : 1, keys, 2,
            args, cl_lock_flags(p, CL_RESEND), 0, done, ud);
}

/* -------------------------------------------------------- generation 0 */

static void gen0_tick(cl_proc *p, void *arg);

/* scheduleExpirationRenewal(t) of 3.10.4 and before: nothing when the
 * lock has an entry, else an entry for t with its timer. */
static void gen0_schedule(cl_proc *p, wd_task *w, int node, int lock, const char *lname, int thread, int read)
{
    if (find(w, lock)) return;
    wd_entry *e = sim_xcalloc(1, sizeof *e);
    e->lock = lock;
    e->node = node;
    e->cap = e->nthreads = 1;
    e->threads = sim_xcalloc(1, sizeof *e->threads);
    e->threads[0].thread = thread;
    e->threads[0].count = 1;
    e->threads[0].read = read;
    sim_strjoin(e->threads[0].lname, sizeof e->threads[0].lname, lname, (const char *)NULL);
    wd_entry **tail = &w->entries;
    while (*tail) tail = &(*tail)->next;
    *tail = e;
    cl_timer_arm(p, &e->timer, period_us(p), "watchdog", gen0_tick, e);
}

/* What a renewal on the wire remembers: the entry's lock, thread and name
 * (the entry itself may be gone when the reply comes). */
typedef struct gen0_renewal {
    int lock, node, thread, read;
    char lname[64];
} gen0_renewal;

static void gen0_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    gen0_renewal *rn = ud;
    wd_task *w = task(p, 0, 0);
    wd_entry *e = w ? find(w, rn->lock) : NULL;
    if (e) remove_entry(p, w, e); /* expirationRenewalMap.remove(entryName) */
    int renewed = (err == CL_OK || err == CL_ERR_NOSYNC) && r && r->type == SIM_REPLY_INT && r->integer == 1;
    if (renewed && w) {
        gen0_schedule(p, w, rn->node, rn->lock, rn->lname, rn->thread, rn->read);
    } else {
        cl_trace(p, p->name, "watchdog: renewal of %s %s, the chain ends", cl_key_name(p->cw, rn->lock),
                 err != CL_OK && err != CL_ERR_NOSYNC ? "failed" : "answered 0");
    }
    cl_free(p, rn);
}

static void gen0_tick(cl_proc *p, void *arg)
{
    wd_entry *e = arg;
    gen0_renewal *rn = cl_alloc(p, sizeof *rn);
    rn->lock = e->lock;
    rn->node = e->node;
    rn->thread = e->threads[0].thread;
    rn->read = e->threads[0].read;
    sim_strjoin(rn->lname, sizeof rn->lname, e->threads[0].lname, (const char *)NULL);
    renew_one(p, e->node, e->lock, &e->threads[0], gen0_reply, rn);
}

/* cancelExpirationRenewal(t) of 3.10.4 and before: the entry goes when t
 * is its thread (or t is 0). */
static void gen0_cancel(cl_proc *p, wd_task *w, wd_entry *e, int thread)
{
    if (thread == 0 || e->threads[0].thread == thread) remove_entry(p, w, e);
}

/* -------------------------------------------------------- generation 1 */

typedef struct renew_ctx {
    int lock;
} renew_ctx;

static void gen1_tick(cl_proc *p, void *arg);

static void gen1_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    int lock = (int)(intptr_t)ud;
    wd_task *w = task(p, 0, 0);
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL) return; /* cancelled meanwhile */
    /* A renewal no replica acknowledged is an error where WAIT's answer
     * counts (3.20+: syncedEval's "None of slaves were synced"). */
    if (err != CL_OK || r == NULL || r->type != SIM_REPLY_INT) {
        /* Logged, and renewal stops. Before 3.14.0 the entry stays,
         * unrenewed (issue #3194); since, renewExpiration's error branch
         * removes it (EXPIRATION_RENEWAL_MAP.remove, PR #3195), so the
         * next acquisition starts a new timer. */
        cl_trace(p, p->name, "watchdog: renewal of %s failed, renewal stops%s", cl_key_name(p->cw, lock),
                 p->cw->set.wd_error_keeps ? "" : ", entry removed");
        if (!p->cw->set.wd_error_keeps) remove_entry(p, w, e);
        return;
    }
    if (r->integer == 1) {
        cl_timer_arm(p, &e->timer, period_us(p), "watchdog", gen1_tick, (void *)(intptr_t)lock);
    } else if (p->cw->set.wd_zero_keeps) {
        cl_trace(p, p->name, "watchdog: %s is not ours any more, renewal idles", cl_key_name(p->cw, lock));
    } else {
        /* 3.16.1+: cancelExpirationRenewal(null) drops the entry. */
        cl_trace(p, p->name, "watchdog: %s is not ours any more, entry removed", cl_key_name(p->cw, lock));
        remove_entry(p, w, e);
    }
}

static void gen1_tick(cl_proc *p, void *arg)
{
    int lock = (int)(intptr_t)arg;
    wd_task *w = task(p, 0, 0);
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL || e->nthreads == 0) return;
    renew_one(p, e->node, lock, &e->threads[0], gen1_reply, (void *)(intptr_t)lock);
}

/* -------------------------------------------------------- generation 2 */

static void gen2_tick(cl_proc *p, void *arg);

static void chain_start(cl_proc *p, wd_task *w)
{
    wd_chain *c = sim_xcalloc(1, sizeof *c);
    c->task = w;
    c->next = w->chains;
    w->chains = c;
    cl_timer_arm(p, &c->timer, period_us(p), "watchdog tick", gen2_tick, c);
}

static void chain_end(cl_proc *p, wd_task *w, wd_chain *c)
{
    for (wd_chain **pp = &w->chains; *pp; pp = &(*pp)->next) {
        if (*pp != c) continue;
        *pp = c->next;
        break;
    }
    cl_timer_cancel(p, &c->timer);
    sim_xfree(c);
}

/* cancel(name, t) of generation 2: one count of t, all of it at 0. */
static void gen2_cancel_one(cl_proc *p, wd_task *w, wd_entry *e, int thread)
{
    wd_thread *t = thread ? find_thread(e, thread) : NULL;
    if (thread && t) {
        sim_assert(t->count > 0);
        if (--t->count == 0) {
            int k = 0;
            for (int i = 0; i < e->qlen; i++)
                if (e->queue[i] != thread) e->queue[k++] = e->queue[i];
            e->qlen = k;
            *t = e->threads[--e->nthreads];
        }
    }
    if (!thread || e->qlen == 0) remove_entry(p, w, e);
    if (w->entries == NULL) w->running = 0;
}

typedef struct batch_ctx {
    wd_chain *chain;
    int *outstanding;   /* batches of this tick still without a reply */
    int n;
    int locks[BATCH];
    int heads[BATCH];   /* plain: the head thread; read: how many listed */
    int *listed;        /* read: the threads listed, lock after lock */
    int nlisted;
} batch_ctx;

/* A lock that replied 0: one count of its head thread (plain), or of
 * every listed thread (read) goes. */
static void gen2_not_renewed(cl_proc *p, wd_task *w, const batch_ctx *b, int i, int listed_from)
{
    if (!w->read) {
        wd_entry *e = find(w, b->locks[i]);
        if (e) gen2_cancel_one(p, w, e, b->heads[i]);
        return;
    }
    for (int k = 0; k < b->heads[i]; k++) {
        wd_entry *e = find(w, b->locks[i]); /* may go with any cancel */
        if (e) gen2_cancel_one(p, w, e, b->listed[listed_from + k]);
    }
}

static void gen2_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    batch_ctx *b = ud;
    wd_task *w = b->chain->task;
    if (state(p, 0) && (err == CL_OK || err == CL_ERR_NOSYNC) && r && r->type == SIM_REPLY_ARRAY) {
        int from = 0;
        for (int i = 0; i < b->n && (size_t)i < r->elements; i++) {
            int renewed = r->element[i]->type == SIM_REPLY_INT && r->element[i]->integer == 1;
            if (!renewed) gen2_not_renewed(p, w, b, i, from);
            if (w->read) from += b->heads[i];
        }
    } else if (err != CL_OK) {
        cl_trace(p, p->name, "watchdog: batch renewal failed (logged; the task keeps ticking)");
    }
    /* The next tick is armed once every chunk of this one is done,
     * whether or not there were errors. */
    sim_assert(*b->outstanding > 0);
    if (--*b->outstanding == 0) {
        cl_free(p, b->outstanding);
        cl_timer_arm(p, &b->chain->timer, period_us(p), "watchdog tick", gen2_tick, b->chain);
    }
    cl_free(p, b->listed);
    cl_free(p, b);
}

/* keyPrefix of a read lock's timeout keys: "{name}", or name when it has
 * a '{' (PROTOCOLS.md 5.1). */
static void key_prefix(const char *name, char *buf, size_t cap)
{
    if (strchr(name, '{')) sim_strjoin(buf, cap, name, (const char *)NULL);
    else sim_strjoin(buf, cap, "{", name, "}", (const char *)NULL);
}

/* Fills batch b from e onwards with the locks on node; returns where it
 * stopped. Plain: one key and the head's lock name per lock. Read: the
 * pair (name, keyPrefix) and every holding thread's name (prefixes and
 * counts are kept in bufs). */
static wd_entry *fill_batch(cl_proc *p, wd_task *w, int node, wd_entry *e, batch_ctx *b,
                            const char **keys, const char **args, int *nargs,
                            char (*bufs)[64])
{
    for (; e && b->n < BATCH; e = e->next) {
        if (e->node != node || e->qlen == 0) continue;
        const char *name = cl_key_name(p->cw, e->lock);
        b->locks[b->n] = e->lock;
        sim_paranoid(queue_ok(e));
        if (!w->read) {
            sim_assert(find_thread(e, e->queue[0]) != NULL); /* the head is registered */
            keys[b->n] = name;
            args[(*nargs)++] = find_thread(e, e->queue[0])->lname;
            b->heads[b->n++] = e->queue[0];
            continue;
        }
        keys[2 * b->n] = name;
        key_prefix(name, bufs[2 * b->n], sizeof bufs[0]);
        keys[2 * b->n + 1] = bufs[2 * b->n];
        snprintf(bufs[2 * b->n + 1], sizeof bufs[0], "%d", e->nthreads);
        args[(*nargs)++] = bufs[2 * b->n + 1];
        for (int i = 0; i < e->nthreads; i++) {
            args[(*nargs)++] = e->threads[i].lname;
            b->listed[b->nlisted++] = e->threads[i].thread;
        }
        b->heads[b->n++] = e->nthreads;
    }
    return e;
}

static void gen2_tick(cl_proc *p, void *arg)
{
    wd_chain *c = arg;
    wd_task *w = c->task;
    if (w->entries == NULL) {
        sim_assert(!w->running); /* emptied by a cancel, which stopped it */
        chain_end(p, w, c);
        return;
    }
    sim_assert(w->running && w->chains != NULL);
    char lease[24];
    sim_fmt_i64(lease, lease_ms(p));
    int *outstanding = cl_alloc(p, sizeof *outstanding);
    *outstanding = 1; /* held by this function until every chunk is sent */
    /* Written by fill_batch before they are read: not zeroed (13 KB a tick);
     * the read side's prefixes only where they are used. */
    const char **keys = sim_xmalloc(2 * BATCH * sizeof *keys);
    const char **args = NULL;
    char(*bufs)[64] = w->read ? sim_xmalloc(2 * BATCH * sizeof *bufs) : NULL;
    for (int node = 0; node < p->cw->s->nodes; node++) {
        wd_entry *e = w->entries;
        while (e) {
            batch_ctx *b = cl_alloc(p, sizeof *b);
            b->chain = c;
            b->outstanding = outstanding;
            size_t room = 1 + BATCH;
            for (wd_entry *x = e; x; x = x->next) room += (size_t)x->nthreads + 1;
            args = sim_xrealloc(args, room * sizeof *args);
            args[0] = lease;
            if (w->read) b->listed = cl_alloc(p, room * sizeof *b->listed);
            int nargs = 1;
            e = fill_batch(p, w, node, e, b, keys, args, &nargs, bufs);
            if (b->n == 0) {
                cl_free(p, b);
                continue;
            }
            (*outstanding)++;
            cl_eval(p, node, cl_script_of(p->cw, w->read ? "rw_read_renew_batch" : "lock_renew_batch"),
                    w->read ? 2 * b->n : b->n, keys, nargs, args, cl_lock_flags(p, CL_RESEND), 0, gen2_reply, b);
        }
    }
    sim_xfree(keys);
    sim_xfree(args);
    sim_xfree(bufs);
    if (--*outstanding == 0) { /* nothing was sent */
        cl_free(p, outstanding);
        cl_timer_arm(p, &c->timer, period_us(p), "watchdog tick", gen2_tick, c);
    }
}

/* ---------------------------------------------------------------- API */

static void add(cl_proc *p, wd_task *w, int node, int lock, const char *lname, int thread, int read)
{
    if (p->cw->set.watchdog_gen == 0 && !w->read) {
        gen0_schedule(p, w, node, lock, lname, thread, read);
        return;
    }
    wd_entry *e = find(w, lock);
    int fresh = e == NULL;
    if (fresh) {
        e = sim_xcalloc(1, sizeof *e);
        e->lock = lock;
        e->node = node;
        wd_entry **tail = &w->entries;
        while (*tail) tail = &(*tail)->next;
        *tail = e;
    }
    sim_assert(thread > 0 && lock >= 0 && lock < p->cw->nkeys && p->alive);
    wd_thread *t = find_thread(e, thread);
    if (t == NULL) {
        if (e->nthreads == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 4;
            e->threads = sim_xrealloc(e->threads, (size_t)e->cap * sizeof *e->threads);
        }
        t = &e->threads[e->nthreads++];
        memset(t, 0, sizeof *t);
        t->thread = thread;
        t->read = read;
        sim_strjoin(t->lname, sizeof t->lname, lname, (const char *)NULL);
    }
    t->count++;
    if (p->cw->set.watchdog_gen == 1 && !w->read) {
        if (fresh)
            cl_timer_arm(p, &e->timer, period_us(p), "watchdog", gen1_tick, (void *)(intptr_t)lock);
        return;
    }
    if (e->qlen == e->qcap) {
        e->qcap = e->qcap ? e->qcap * 2 : 4;
        e->queue = sim_xrealloc(e->queue, (size_t)e->qcap * sizeof *e->queue);
    }
    e->queue[e->qlen++] = thread;
    if (!w->running) {
        w->running = 1;
        chain_start(p, w);
    }
}

static void cancel(cl_proc *p, wd_task *w, int lock, int thread)
{
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL) return;
    if (p->cw->set.watchdog_gen == 2 || w->read) {
        gen2_cancel_one(p, w, e, thread);
        return;
    }
    if (p->cw->set.watchdog_gen == 0) {
        gen0_cancel(p, w, e, thread);
        return;
    }
    wd_thread *t = thread ? find_thread(e, thread) : NULL;
    sim_assert(t == NULL || t->count > 0);
    if (t && --t->count == 0) {
        int i = (int)(t - e->threads);
        memmove(&e->threads[i], &e->threads[i + 1], (size_t)(e->nthreads - i - 1) * sizeof *t);
        e->nthreads--;
    }
    if (!thread || e->nthreads == 0) remove_entry(p, w, e);
}

void cl_watchdog_add(cl_proc *p, int node, int lock, const char *lname, int thread)
{
    add(p, task(p, 0, 1), node, lock, lname, thread, 0);
}

void cl_watchdog_cancel(cl_proc *p, int lock, int thread)
{
    cancel(p, task(p, 0, 0), lock, thread);
}

/* Read holds: ReadLockTask since 3.44, the lock's shared entry before. */
void cl_watchdog_add_read(cl_proc *p, int node, int lock, const char *lname, int thread)
{
    int own = p->cw->set.watchdog_gen == 2;
    add(p, task(p, own, 1), node, lock, lname, thread, 1);
}

void cl_watchdog_cancel_read(cl_proc *p, int lock, int thread)
{
    cancel(p, task(p, p->cw->set.watchdog_gen == 2, 0), lock, thread);
}

/* ------------------------------------------------------------- storage */

static wd_state *state(cl_proc *p, int create)
{
    if (p->watchdog == NULL && create) {
        wd_state *w = sim_xcalloc(1, sizeof *w);
        w->read.read = 1;
        p->watchdog = w;
    }
    return p->watchdog;
}

void cl_watchdog_free(cl_proc *p)
{
    wd_state *w = state(p, 0);
    if (w == NULL) return;
    wd_task *tasks[] = {&w->plain, &w->read};
    for (int i = 0; i < 2; i++) {
        while (tasks[i]->entries) remove_entry(p, tasks[i], tasks[i]->entries);
        while (tasks[i]->chains) chain_end(p, tasks[i], tasks[i]->chains);
    }
    sim_xfree(w);
    p->watchdog = NULL;
}
