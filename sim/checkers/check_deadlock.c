/* check_deadlock.c — at the end of a run, threads still waiting in an
 * acquire must not wait for ever: not in a cycle of threads each waiting
 * for a lock another one of them holds, and not on a lock held, with no
 * expiry, by a process that has died. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

typedef struct waiter {
    int client, inc, thread, lock;
    size_t at;
} waiter;

typedef struct owner {
    int client, inc, thread; /* 0: free; -1: unknown owner */
    int64_t expire;
} owner;

void check_deadlock(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    int64_t end_us = in->end_us;
    r->checked[SCN_INV_DEADLOCK] = 1;
    r->verdict[SCN_INV_DEADLOCK] = CHECK_HELD;
    if (nlocks <= 0) return;
    owner *own = sim_xcalloc((size_t)nlocks, sizeof *own);
    waiter *w = NULL;
    size_t nw = 0, cap = 0;
    /* Dead incarnations, and the waits still open at the end. */
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op == HOP_STORE && e->lock >= 0 && e->lock < nlocks) {
            own[e->lock] = (owner){e->client, e->inc, e->thread, e->aux};
        } else if (e->op == HOP_CRASH) {
            for (size_t i = nw; i-- > 0;)
                if (w[i].client == e->client && w[i].inc == e->inc) w[i] = w[--nw];
        } else if (e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE && e->lock >= 0 && e->lock < nlocks) {
            if (nw == cap) {
                cap = cap ? cap * 2 : 16;
                w = sim_xrealloc(w, cap * sizeof *w);
            }
            w[nw++] = (waiter){e->client, e->inc, e->thread, e->lock, k};
        } else if (e->op == HOP_ACQUIRE) {
            for (size_t i = nw; i-- > 0;)
                if (w[i].client == e->client && w[i].inc == e->inc && w[i].thread == e->thread) w[i] = w[--nw];
        }
    }
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
            const waiter *next = NULL;
            for (size_t k = 0; k < nw; k++)
                if (w[k].client == o->client && w[k].inc == o->inc && w[k].thread == o->thread) next = &w[k];
            if (next == NULL) break;
            if (next == x) {
                cycle = 1;
                break;
            }
            cur = next;
        }
        if (cycle)
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
    sim_xfree(w);
    sim_xfree(own);
}
