/* check_fair.c — fairness: queue order (fifo) and starvation. A grant is
 * the ok of a first acquisition (depth 1); a wait is one acquire, from its
 * invoke to its ok / fail or its process's crash. Reentrant acquires
 * (invoked while the thread already holds the lock) are neither.
 *
 * Queue order is the server's: the observer records HOP_QUEUED when the
 * master ran the script that queued a thread; a thread that never queued
 * is placed at the store observation that made it the holder. A wait
 * that failed with an error and left its place in the queue (no
 * HOP_DEQUEUED: lock() and tryLock's first attempt call no acquireFailed
 * on a reply timeout, redisson-4.7.0 RedissonLock) hands that place to
 * the thread's next wait on the lock, which the server grants from it.
 *
 * Excluded, both: what happens while a waiter could not reach the master
 * (its impaired periods, impaired.c: cut off, a slow link, the master
 * down, paused or mid-failover, its process paused), and for the resend
 * grace after each within its wait (could_take, check_resend_grace: what
 * it sent into the period is lost and sent again only after its reply
 * wait and a retry delay). A grant then is no overtake
 * of it (it could not have taken its turn, nor kept its place: the queue
 * purges a waiter that does not come back in time), and no grant counted
 * against its starvation bound. Grants while it could reach the master
 * count as before; for starvation, from its first queue entry where it
 * has one (its request as the server has it: what came before, say over
 * a slow link within the bound, passed nobody over), and none for a wait
 * granted without queueing on a lock with a queue (check_input's
 * queue_wait_us): its first request to arrive took the lock. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

typedef struct wait_key {
    int client, inc, thread;
} wait_key;

/* One open acquire. */
typedef struct waiter {
    UT_hash_handle hh;
    wait_key k;
    int lock;
    size_t invoked;   /* history index of the invoke */
    size_t queued;    /* of its first HOP_QUEUED in this wait (SIZE_MAX: none) */
    int64_t position;
    int out;          /* a HOP_DEQUEUED took its place away since */
} waiter;

static waiter *find(waiter *open, const hist_event *e)
{
    wait_key k = {e->client, e->inc, e->thread};
    waiter *w;
    HASH_FIND(hh, open, &k, sizeof k, w);
    return w;
}

static void close_wait(waiter **open, waiter *w)
{
    HASH_DEL(*open, w);
    sim_xfree(w);
}

static void close_all(waiter **open)
{
    waiter *w, *tmp;
    HASH_ITER(hh, *open, w, tmp) close_wait(open, w);
}

/* Opens a wait at invoke k (not for reentrant acquires). A place the
 * thread's last wait on the lock left behind in the queue (left: its
 * acquire failed with an error and nothing dequeued it, as lock() and
 * tryLock's first attempt leave it, calling no acquireFailed) is this
 * wait's place: the server grants it from there. */
static void open_wait(waiter **open, waiter **left, const hist_event *e, size_t k)
{
    waiter *w = find(*open, e), *was = left ? find(*left, e) : NULL;
    if (w) close_wait(open, w); /* a lost end: start over */
    if (was && was->lock != e->lock) close_wait(left, was), was = NULL;
    if (e->value > 0) return;   /* reentry: the thread holds the lock */
    w = sim_xcalloc(1, sizeof *w);
    w->k = (wait_key){e->client, e->inc, e->thread};
    w->lock = e->lock;
    w->invoked = k;
    w->queued = SIZE_MAX;
    if (was) {
        w->queued = was->queued;
        w->position = was->position;
        close_wait(left, was);
    }
    HASH_ADD(hh, *open, k, sizeof w->k, w);
}

/* The wait w ended at e: a failure with an error that left its queue
 * place behind keeps it (left) for the thread's next wait. */
static void end_wait(waiter **open, waiter **left, waiter *w, const hist_event *e)
{
    HASH_DEL(*open, w);
    if (e->kind == HIST_FAIL && e->err && w->queued != SIZE_MAX && !w->out) {
        waiter *was = find(*left, e);
        if (was) close_wait(left, was);
        HASH_ADD(hh, *left, k, sizeof w->k, w);
        return;
    }
    sim_xfree(w);
}

static void close_crashed(waiter **open, const hist_event *e)
{
    waiter *w, *tmp;
    HASH_ITER(hh, *open, w, tmp)
        if (w->k.client == e->client && w->k.inc == e->inc) close_wait(open, w);
}

/* Could the waiter w take a grant at t? Not while it could not reach the
 * master, nor for the resend grace after (within its wait): a command it
 * sent into an impaired period is lost and sent again only when its reply
 * times out and a retry delay has passed (check_resend_grace, as every
 * checker), so it may not be in the queue, or not know its turn came,
 * until then. */
static int could_take(const check_input *in, const history *h, const waiter *w, int64_t t)
{
    int64_t grace = check_resend_grace(in);
    int64_t from = t > grace ? t - grace : 0, inv = h->ev[w->invoked].t_us;
    if (from < inv) from = inv;
    if (from > t) from = t;
    return check_impaired_within(in->impaired, w->k.client, w->lock, from, t + 1, NULL) == 0;
}

static void fmt_s(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%03llds", (long long)(us / 1000000), (long long)(us / 1000 % 1000));
}

/* The history index at which the grant ok at k happened on the server:
 * the grantee's first HOP_QUEUED, or else the store observation that made
 * it the holder (holder_at[lock]), or k itself. */
static size_t grant_place(const history *h, const waiter *w, const size_t *holder_at, size_t k)
{
    if (w && w->queued != SIZE_MAX) return w->queued;
    const hist_event *e = &h->ev[k];
    size_t at = holder_at[e->lock];
    if (at != SIZE_MAX) {
        const hist_event *st = &h->ev[at];
        if (st->client == e->client && st->inc == e->inc && st->thread == e->thread) return at;
    }
    return k;
}

/* Reports the waiters that grant k (to w) overtook; returns how many. */
static uint64_t overtakes(const history *h, const check_input *in, waiter *open, const waiter *w,
                          size_t place, size_t k, check_result *r)
{
    char *const *names = in->names;
    const hist_event *g = &h->ev[k];
    uint64_t n = 0;
    const waiter *first = NULL;
    for (const waiter *x = open; x; x = x->hh.next) {
        if (x == w || x->lock != g->lock || x->queued == SIZE_MAX || x->queued >= place) continue;
        if (!could_take(in, h, x, g->t_us)) continue; /* it could not take its turn */
        if (first == NULL || x->queued < first->queued) first = x;
        n++;
    }
    if (n == 0) return 0;
    char tq[24], tg[24], fq[24];
    fmt_s(h->ev[place].t_us, tq, sizeof tq);
    fmt_s(g->t_us, tg, sizeof tg);
    fmt_s(h->ev[first->queued].t_us, fq, sizeof fq);
    check_violate(r, SCN_INV_FIFO, g->t_us, k,
                  "c%d.t%d (in line at %s) was granted %s at %s ahead of c%d.t%d, queued at %s "
                  "(position %lld) and still waiting%s",
                  g->client, g->thread, tq, names[g->lock], tg, first->k.client, first->k.thread, fq,
                  (long long)first->position, n > 1 ? " (and others)" : "");
    return n;
}

void check_fifo(const history *h, const check_holds *hs, const check_input *in, check_result *r)
{
    r->checked[SCN_INV_FIFO] = 1;
    r->verdict[SCN_INV_FIFO] = CHECK_HELD;
    waiter *open = NULL, *left = NULL; /* places left behind by failed waits (end_wait) */
    size_t holder_at[SCN_MAX_LOCKS];
    for (int l = 0; l < SCN_MAX_LOCKS; l++) holder_at[l] = SIZE_MAX;
    uint64_t total = 0, grants = 0;
    size_t first_v = r->nv;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op == HOP_CRASH) {
            close_crashed(&open, e);
            close_crashed(&left, e);
            continue;
        }
        if (e->lock < 0 || e->lock >= SCN_MAX_LOCKS) continue;
        if (e->op == HOP_GIVE_UP) {
            waiter *w = find(open, e);
            if (w) close_wait(&open, w);
        } else if (e->op == HOP_STORE) {
            const hist_event *prev = holder_at[e->lock] == SIZE_MAX ? NULL : &h->ev[holder_at[e->lock]];
            if (prev == NULL || prev->client != e->client || prev->inc != e->inc || prev->thread != e->thread)
                holder_at[e->lock] = k;
        } else if (e->op == HOP_QUEUED) {
            waiter *w = find(open, e);
            if (w && w->lock == e->lock && w->queued == SIZE_MAX) {
                w->queued = k;
                w->position = e->value;
            }
        } else if (e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE) {
            open_wait(&open, &left, e, k);
        } else if (e->op == HOP_DEQUEUED) {
            waiter *w = find(open, e), *was = find(left, e);
            if (w && w->lock == e->lock) w->out = 1;
            if (was && was->lock == e->lock) close_wait(&left, was);
        } else if (e->op == HOP_ACQUIRE) {
            waiter *w = find(open, e);
            if (e->kind == HIST_OK && e->value == 1) {
                grants++;
                total += overtakes(h, in, open, w, grant_place(h, w, holder_at, k), k, r);
            }
            if (w) end_wait(&open, &left, w, e);
        }
    }
    close_all(&open);
    close_all(&left);
    if (total && first_v < r->nv) {
        check_violation *v = &r->v[first_v];
        size_t len = strlen(v->detail);
        snprintf(v->detail + len, sizeof v->detail - len, "; %llu overtakes in %llu grants",
                 (unsigned long long)total, (unsigned long long)grants);
    }
}

/* ---------------------------------------------------------- starvation */

/* How many of the sorted indexes g[0..n) lie strictly between a and b. */
static size_t between(const size_t *g, size_t n, size_t a, size_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first > a */
        size_t mid = (lo + hi) / 2;
        if (g[mid] <= a) lo = mid + 1;
        else hi = mid;
    }
    size_t from = lo;
    hi = n;
    while (lo < hi) { /* first >= b */
        size_t mid = (lo + hi) / 2;
        if (g[mid] < b) lo = mid + 1;
        else hi = mid;
    }
    return lo - from;
}

typedef struct worst {
    size_t count, invoked, end;
    int64_t end_us;
    wait_key k;
    int lock, open;
} worst;

/* The grants to others of wait w (from its request .. end) that it could
 * have taken: those while it could reach the master. Its request is its
 * first entry in the wait queue (HOP_QUEUED) where it has one: a grant
 * before its request reached the server (a slow link within the bound)
 * does not pass it over. */
static size_t reachable(const history *h, const check_input *in, const size_t *const *g, const size_t *ng,
                        const waiter *w, size_t end, int64_t end_us)
{
    const check_impaired *im = in->impaired;
    size_t from = w->queued != SIZE_MAX ? w->queued : w->invoked; /* its request, as the server has it */
    size_t c = between(g[w->lock], ng[w->lock], from, end);
    if (c == 0 || check_impaired_within(im, w->k.client, w->lock, h->ev[w->invoked].t_us, end_us, NULL) == 0) return c;
    const size_t *v = g[w->lock];
    size_t n = 0;
    size_t lo = 0, hi = ng[w->lock];
    while (lo < hi) { /* the first grant after it */
        size_t mid = (lo + hi) / 2;
        if (v[mid] <= from) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < ng[w->lock] && v[i] < end; i++)
        if (could_take(in, h, w, h->ev[v[i]].t_us)) n++;
    return n;
}

static void consider(worst *m, const history *h, const check_input *in, const size_t *const *g,
                     const size_t *ng, const waiter *w, size_t end, int64_t end_us, int still_open)
{
    size_t c = reachable(h, in, g, ng, w, end, end_us);
    if (c <= m->count) return;
    *m = (worst){c, w->invoked, end, end_us, w->k, w->lock, still_open};
}

void check_starvation(const history *h, const check_holds *hs, const check_input *in, check_result *r)
{
    char *const *names = in->names;
    int64_t bound = in->starvation_bound, end_us = in->end_us;
    r->checked[SCN_INV_STARVATION] = 1;
    r->verdict[SCN_INV_STARVATION] = CHECK_HELD;
    /* The grants per lock (history indexes, ascending), and the threads. */
    size_t *g[SCN_MAX_LOCKS] = {0}, ng[SCN_MAX_LOCKS] = {0}, cap[SCN_MAX_LOCKS] = {0};
    waiter *threads = NULL;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op != HOP_ACQUIRE || e->lock < 0 || e->lock >= SCN_MAX_LOCKS) continue;
        hist_event id = *e;
        id.inc = 0;
        if (e->kind == HIST_INVOKE && find(threads, &id) == NULL) open_wait(&threads, NULL, &id, k);
        if (e->kind != HIST_OK || e->value != 1) continue;
        int l = e->lock;
        if (ng[l] == cap[l]) {
            cap[l] = cap[l] ? cap[l] * 2 : 64;
            g[l] = sim_xrealloc(g[l], cap[l] * sizeof *g[l]);
        }
        g[l][ng[l]++] = k;
    }
    if (bound <= 0) bound = 2 * (int64_t)HASH_COUNT(threads);
    close_all(&threads);
    worst m = {0};
    waiter *open = NULL;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op == HOP_CRASH) {
            waiter *w, *tmp;
            HASH_ITER(hh, open, w, tmp)
                if (w->k.client == e->client && w->k.inc == e->inc) {
                    consider(&m, h, in, (const size_t *const *)g, ng, w, k, e->t_us, 0);
                    close_wait(&open, w);
                }
            continue;
        }
        if (e->op == HOP_QUEUED) { /* its request reached the queue */
            waiter *w = find(open, e);
            if (w && w->lock == e->lock && w->queued == SIZE_MAX) w->queued = k;
            continue;
        }
        if (e->op != HOP_ACQUIRE || e->lock < 0 || e->lock >= SCN_MAX_LOCKS) continue;
        if (e->kind == HIST_INVOKE) {
            open_wait(&open, NULL, e, k);
            continue;
        }
        waiter *w = find(open, e);
        if (w == NULL) continue;
        /* Granted without ever queueing, where a lock has a queue: at its
         * first request to reach the server, so nobody passed it over. */
        int first_try = in->queue_wait_us && w->queued == SIZE_MAX && e->kind == HIST_OK && e->value == 1;
        if (!first_try) consider(&m, h, in, (const size_t *const *)g, ng, w, k, e->t_us, 0);
        close_wait(&open, w);
    }
    for (waiter *w = open; w; w = w->hh.next) consider(&m, h, in, (const size_t *const *)g, ng, w, h->n, end_us, 1);
    close_all(&open);
    if ((int64_t)m.count > bound) {
        char from[24], to[24];
        fmt_s(h->ev[m.invoked].t_us, from, sizeof from);
        fmt_s(m.end_us, to, sizeof to);
        check_violate(r, SCN_INV_STARVATION, m.end_us, m.end < h->n ? m.end : h->n - 1,
                      "c%d.t%d waited for %s from %s to %s%s while %zu grants went to other threads "
                      "(bound %lld); the worst wait of the run",
                      m.k.client, m.k.thread, names[m.lock], from, to, m.open ? " (still waiting)" : "",
                      m.count, (long long)bound);
    }
    for (int l = 0; l < SCN_MAX_LOCKS; l++) sim_xfree(g[l]);
}
