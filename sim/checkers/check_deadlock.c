/* check_deadlock.c — at the end of a run, threads still waiting in an
 * acquire must not wait for ever: not in a cycle of threads each waiting
 * for a lock another one of them holds, and not on a lock held, with no
 * expiry, by a process that has died.
 *
 * Excluded: a waiter whose lock's master is down, paused or mid-failover
 * at the end (impaired.c): the holds seen there may not be what a master
 * serves once it is back (a restart without persistence, a promoted
 * replica that missed them). A waiter only cut off from the master at the
 * end is still judged: holds that never end are in the store whatever
 * its network, and it would wait for them for ever. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

typedef struct waiter {
    int client, inc, thread, lock;
    size_t at;
} waiter;

typedef struct owner {
    int client, inc, thread; /* 0: free; -1: unknown owner */
    int64_t expire;
} owner;

/* The open waits, in the order the violations are reported in (the order
 * swap-removal leaves), with an index from a thread to its wait: a run
 * stopped with 100,000 threads waiting is judged in a second, not in
 * hours. A thread has one wait open at a time; were a history to give one
 * two, the index is dropped and every lookup scans (linear). */
typedef struct wkey {
    int client, inc, thread;
} wkey;

typedef struct windex {
    wkey key;
    size_t i;
    UT_hash_handle hh;
} windex;

typedef struct waits {
    waiter *w;
    size_t n, cap;
    windex *index;
    int linear;
} waits;

static windex *index_find(const waits *ws, int client, int inc, int thread)
{
    wkey k;
    memset(&k, 0, sizeof k);
    k.client = client;
    k.inc = inc;
    k.thread = thread;
    windex *x;
    HASH_FIND(hh, ws->index, &k, sizeof k, x);
    return x;
}

static void index_drop(waits *ws)
{
    windex *x, *tmp;
    HASH_ITER(hh, ws->index, x, tmp) {
        HASH_DEL(ws->index, x);
        sim_xfree(x);
    }
    ws->linear = 1;
}

static void wait_add(waits *ws, const waiter *x)
{
    if (!ws->linear) {
        if (index_find(ws, x->client, x->inc, x->thread) != NULL) {
            index_drop(ws);
        } else {
            windex *e = sim_xcalloc(1, sizeof *e);
            e->key.client = x->client;
            e->key.inc = x->inc;
            e->key.thread = x->thread;
            e->i = ws->n;
            HASH_ADD(hh, ws->index, key, sizeof e->key, e);
        }
    }
    if (ws->n == ws->cap) {
        ws->cap = ws->cap ? ws->cap * 2 : 16;
        ws->w = sim_xrealloc(ws->w, ws->cap * sizeof *ws->w);
    }
    ws->w[ws->n++] = *x;
}

/* Removes wait i: the last one takes its place. */
static void wait_remove(waits *ws, size_t i)
{
    sim_assert(i < ws->n);
    if (!ws->linear) {
        const waiter *x = &ws->w[i];
        windex *e = index_find(ws, x->client, x->inc, x->thread);
        sim_assert(e != NULL && e->i == i);
        HASH_DEL(ws->index, e);
        sim_xfree(e);
        if (i != ws->n - 1) {
            const waiter *last = &ws->w[ws->n - 1];
            windex *m = index_find(ws, last->client, last->inc, last->thread);
            sim_assert(m != NULL && m->i == ws->n - 1);
            m->i = i;
        }
    }
    ws->w[i] = ws->w[--ws->n];
}

/* The wait of a thread (the last one, were there two), or NULL. */
static const waiter *wait_of(const waits *ws, int client, int inc, int thread)
{
    if (!ws->linear) {
        const windex *e = index_find(ws, client, inc, thread);
        return e ? &ws->w[e->i] : NULL;
    }
    const waiter *found = NULL;
    for (size_t k = 0; k < ws->n; k++)
        if (ws->w[k].client == client && ws->w[k].inc == inc && ws->w[k].thread == thread) found = &ws->w[k];
    return found;
}

void check_deadlock(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    int64_t end_us = in->end_us;
    r->checked[SCN_INV_DEADLOCK] = 1;
    r->verdict[SCN_INV_DEADLOCK] = CHECK_HELD;
    if (nlocks <= 0) return;
    owner *own = sim_xcalloc((size_t)nlocks, sizeof *own);
    waits ws = {0};
    /* Dead incarnations, and the waits still open at the end. */
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op == HOP_STORE && e->lock >= 0 && e->lock < nlocks) {
            own[e->lock] = (owner){e->client, e->inc, e->thread, e->aux};
        } else if (e->op == HOP_CRASH) {
            for (size_t i = ws.n; i-- > 0;)
                if (ws.w[i].client == e->client && ws.w[i].inc == e->inc) wait_remove(&ws, i);
        } else if (e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE && e->lock >= 0 && e->lock < nlocks) {
            wait_add(&ws, &(waiter){e->client, e->inc, e->thread, e->lock, k});
        } else if (e->op == HOP_ACQUIRE) {
            if (ws.linear) {
                for (size_t i = ws.n; i-- > 0;)
                    if (ws.w[i].client == e->client && ws.w[i].inc == e->inc && ws.w[i].thread == e->thread)
                        wait_remove(&ws, i);
            } else {
                const windex *x = index_find(&ws, e->client, e->inc, e->thread);
                if (x) wait_remove(&ws, x->i);
            }
        }
    }
    const waiter *w = ws.w;
    size_t nw = ws.n;
    /* Whether each lock's owner is alive at the end: its last event is not
     * a crash. Asked once per lock, not once per waiter (thousands of
     * waiters behind one holder, millions of events). */
    signed char *alive = sim_xcalloc((size_t)nlocks, 1); /* 0: not asked yet, 1: alive, 2: dead */
    /* Follow each waiter's wait-for chain: waiter -> holder of its lock ->
     * the lock that holder waits for -> ... The next lock depends only on
     * the lock before it, so a chain that has not come back to its waiter
     * within nlocks steps never does. */
    size_t max_steps = nw < (size_t)nlocks ? nw : (size_t)nlocks;
    for (size_t i = 0; i < nw; i++) {
        const waiter *x = &w[i];
        if (check_impaired_kinds_at(in->impaired, x->client, x->lock, end_us) & CHECK_IMP_MASTER) continue;
        size_t steps = 0;
        const waiter *cur = x;
        int cycle = 0, dead = 0;
        while (steps++ <= max_steps) {
            const owner *o = &own[cur->lock];
            if (o->client <= 0 || o->expire < end_us) break; /* free, foreign, or expiring */
            if (alive[cur->lock] == 0) {
                alive[cur->lock] = 2; /* no event at all: not alive */
                for (size_t k = hi->n; k-- > 0;) {
                    const hist_event *e = &hi->ev[k];
                    if (e->client != o->client || e->inc != o->inc) continue;
                    alive[cur->lock] = e->op != HOP_CRASH ? 1 : 2;
                    break;
                }
            }
            if (alive[cur->lock] == 2 && o->expire == INT64_MAX) {
                dead = 1;
                break;
            }
            const waiter *next = wait_of(&ws, o->client, o->inc, o->thread);
            if (next == NULL) break;
            if (next == x) {
                cycle = 1;
                break;
            }
            cur = next;
        }
        const owner *first = &own[x->lock];
        int self = cycle && first->client == x->client && first->inc == x->inc && first->thread == x->thread;
        if (self) { /* its own hold: the application asked what the lock does not do */
            check_violation *v = check_violate(r, SCN_INV_DEADLOCK, end_us, x->at,
                                               "c%d.t%d waits for %s, which it holds itself (a re-entry the lock "
                                               "does not grant: a read hold upgraded to write, or before "
                                               "Redisson 3.2.4 a write hold asking to read)",
                                               x->client, x->thread, names[x->lock]);
            if (v) v->cause |= CHECK_CAUSE_SELF;
        } else if (cycle)
            check_violate(r, SCN_INV_DEADLOCK, end_us, x->at,
                          "c%d.t%d waits for %s in a cycle of threads each waiting for a lock "
                          "another holds",
                          x->client, x->thread, names[x->lock]);
        else if (dead)
            check_violate(r, SCN_INV_DEADLOCK, end_us, x->at,
                          "c%d.t%d waits for %s, held without expiry by a process that died",
                          x->client, x->thread, names[x->lock]);
    }
    sim_xfree(alive);
    if (!ws.linear) index_drop(&ws);
    sim_xfree(ws.w);
    sim_xfree(own);
}
