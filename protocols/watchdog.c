/* watchdog.c — Redisson's lock watchdog (expiration renewal) in a virtual
 * process, in both generations:
 *
 *  - Generation 1 (V2019 .. 3.43): one entry and one timer per lock; every
 *    lease/3 it renews the first registered thread's lock name with
 *    LOCK_RENEW. V2019 leaves the entry without a timer on a reply of 0,
 *    and stops for good on an error.
 *  - Generation 2 (CUR, since 3.44): one process-wide task; each tick
 *    renews every registered lock in one LOCK_RENEW_BATCH per node (chunks
 *    of 100), cancelling one count of a lock's head thread when it replied
 *    0, and re-arms whatever happened. A tick that finds nothing ends its
 *    chain; a registration while none runs starts a new chain, so two
 *    chains can run at once, as in Redisson.
 *
 * Renewal always extends to lockWatchdogTimeout (transport R). */
#include <stdio.h>
#include <string.h>

#include "cl_int.h"

#define BATCH 100

typedef struct wd_thread {
    int thread;
    int count;
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

typedef struct wd_chain {
    cl_timer timer;
    struct wd_chain *next;
} wd_chain;

typedef struct wd_state {
    wd_entry *entries;        /* in registration order */
    wd_chain *chains;         /* generation 2 tick chains */
    int running;
} wd_state;

/* The watchdog lives beside the protocol state: one per process. */
static wd_state *state(cl_proc *p, int create);

static wd_entry *find(wd_state *w, int lock)
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

static void remove_entry(cl_proc *p, wd_state *w, wd_entry *e)
{
    for (wd_entry **pp = &w->entries; *pp; pp = &(*pp)->next) {
        if (*pp != e) continue;
        *pp = e->next;
        break;
    }
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

/* -------------------------------------------------------- generation 1 */

typedef struct renew_ctx {
    int lock;
} renew_ctx;

static void gen1_tick(cl_proc *p, void *arg);

static void gen1_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    int lock = (int)(intptr_t)ud;
    wd_state *w = state(p, 0);
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL) return; /* cancelled meanwhile */
    if ((err != CL_OK && err != CL_ERR_NOSYNC) || r == NULL || r->type != SIM_REPLY_INT) {
        /* V2019 logs the error and stops: the entry stays, unrenewed. */
        cl_trace(p, p->name, "watchdog: renewal of %s failed, renewal stops", cl_key_name(p->cw, lock));
        return;
    }
    if (r->integer == 1) {
        cl_timer_arm(p, &e->timer, period_us(p), "watchdog", gen1_tick, (void *)(intptr_t)lock);
    } else {
        cl_trace(p, p->name, "watchdog: %s is not ours any more, renewal idles", cl_key_name(p->cw, lock));
    }
}

static void gen1_tick(cl_proc *p, void *arg)
{
    int lock = (int)(intptr_t)arg;
    wd_state *w = state(p, 0);
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL || e->nthreads == 0) return;
    char lease[24];
    snprintf(lease, sizeof lease, "%lld", (long long)lease_ms(p));
    const char *keys[] = {cl_key_name(p->cw, lock)};
    const char *args[] = {lease, e->threads[0].lname};
    cl_eval(p, e->node, "lock_renew", 1, keys, 2, args, CL_RESEND | (p->cw->synced ? CL_SYNCED : 0), 0,
            gen1_reply, (void *)(intptr_t)lock);
}

/* -------------------------------------------------------- generation 2 */

static void gen2_tick(cl_proc *p, void *arg);

static void chain_start(cl_proc *p, wd_state *w)
{
    wd_chain *c = sim_xcalloc(1, sizeof *c);
    c->next = w->chains;
    w->chains = c;
    cl_timer_arm(p, &c->timer, period_us(p), "watchdog tick", gen2_tick, c);
}

static void chain_end(cl_proc *p, wd_state *w, wd_chain *c)
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
static void gen2_cancel_one(cl_proc *p, wd_state *w, wd_entry *e, int thread)
{
    wd_thread *t = thread ? find_thread(e, thread) : NULL;
    if (thread && t) {
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
    int heads[BATCH];
} batch_ctx;

static void gen2_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    batch_ctx *b = ud;
    wd_state *w = state(p, 0);
    if (w && (err == CL_OK || err == CL_ERR_NOSYNC) && r && r->type == SIM_REPLY_ARRAY) {
        for (int i = 0; i < b->n && (size_t)i < r->elements; i++) {
            if (r->element[i]->type == SIM_REPLY_INT && r->element[i]->integer == 1) continue;
            wd_entry *e = find(w, b->locks[i]);
            if (e) gen2_cancel_one(p, w, e, b->heads[i]);
        }
    } else if (err != CL_OK) {
        cl_trace(p, p->name, "watchdog: batch renewal failed (logged; the task keeps ticking)");
    }
    /* The next tick is armed once every chunk of this one is done,
     * whether or not there were errors. */
    if (--*b->outstanding == 0) {
        cl_free(p, b->outstanding);
        cl_timer_arm(p, &b->chain->timer, period_us(p), "watchdog tick", gen2_tick, b->chain);
    }
    cl_free(p, b);
}

static void gen2_tick(cl_proc *p, void *arg)
{
    wd_chain *c = arg;
    wd_state *w = state(p, 0);
    if (w == NULL || w->entries == NULL) {
        if (w) chain_end(p, w, c);
        return;
    }
    char lease[24];
    snprintf(lease, sizeof lease, "%lld", (long long)lease_ms(p));
    int *outstanding = cl_alloc(p, sizeof *outstanding);
    *outstanding = 1; /* held by this function until every chunk is sent */
    for (int node = 0; node < p->cw->s->nodes; node++) {
        wd_entry *e = w->entries;
        while (e) {
            batch_ctx *b = cl_alloc(p, sizeof *b);
            b->chain = c;
            b->outstanding = outstanding;
            const char *keys[BATCH];
            const char *args[BATCH + 1];
            args[0] = lease;
            for (; e && b->n < BATCH; e = e->next) {
                if (e->node != node || e->qlen == 0) continue;
                wd_thread *t = find_thread(e, e->queue[0]);
                keys[b->n] = cl_key_name(p->cw, e->lock);
                args[b->n + 1] = t->lname;
                b->locks[b->n] = e->lock;
                b->heads[b->n] = e->queue[0];
                b->n++;
            }
            if (b->n == 0) {
                cl_free(p, b);
                continue;
            }
            (*outstanding)++;
            cl_eval(p, node, "lock_renew_batch", b->n, keys, b->n + 1, args,
                    CL_RESEND | (p->cw->synced ? CL_SYNCED : 0), 0, gen2_reply, b);
        }
    }
    if (--*outstanding == 0) { /* nothing was sent */
        cl_free(p, outstanding);
        cl_timer_arm(p, &c->timer, period_us(p), "watchdog tick", gen2_tick, c);
    }
}

/* ---------------------------------------------------------------- API */

void cl_watchdog_add(cl_proc *p, int node, int lock, const char *lname, int thread)
{
    wd_state *w = state(p, 1);
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
    wd_thread *t = find_thread(e, thread);
    if (t == NULL) {
        if (e->nthreads == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 4;
            e->threads = sim_xrealloc(e->threads, (size_t)e->cap * sizeof *e->threads);
        }
        t = &e->threads[e->nthreads++];
        memset(t, 0, sizeof *t);
        t->thread = thread;
        snprintf(t->lname, sizeof t->lname, "%s", lname);
    }
    t->count++;
    if (p->cw->watchdog_gen == 1) {
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

void cl_watchdog_cancel(cl_proc *p, int lock, int thread)
{
    wd_state *w = state(p, 0);
    wd_entry *e = w ? find(w, lock) : NULL;
    if (e == NULL) return;
    if (p->cw->watchdog_gen == 2) {
        gen2_cancel_one(p, w, e, thread);
        return;
    }
    wd_thread *t = thread ? find_thread(e, thread) : NULL;
    if (t && --t->count == 0) {
        int i = (int)(t - e->threads);
        memmove(&e->threads[i], &e->threads[i + 1], (size_t)(e->nthreads - i - 1) * sizeof *t);
        e->nthreads--;
    }
    if (!thread || e->nthreads == 0) remove_entry(p, w, e);
}

/* ------------------------------------------------------------- storage */

static wd_state *state(cl_proc *p, int create)
{
    if (p->watchdog == NULL && create) p->watchdog = sim_xcalloc(1, sizeof(wd_state));
    return p->watchdog;
}

void cl_watchdog_free(cl_proc *p)
{
    wd_state *w = state(p, 0);
    if (w == NULL) return;
    while (w->entries) remove_entry(p, w, w->entries);
    while (w->chains) chain_end(p, w, w->chains);
    sim_xfree(w);
    p->watchdog = NULL;
}
