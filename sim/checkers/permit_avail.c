/* permit_avail.c — what both semaphore checkers (check_permits.c,
 * check_leases.c) read of a history: the permits a semaphore counts in
 * all (set by the runtime's trySetPermits, moved by addPermits,
 * trySetPermits and drainPermits steps), the store's available count
 * over true time (HOP_COUNTER), with the longest stretch in a window
 * during which at least n were available (for a waiter: with the resend
 * grace after an impairment, and not while a waiter of its process wanted
 * more than were available: check_avail_waiter), the addPermits calls
 * resent (check_resends), the addPermits calls whose outcome nobody learnt
 * (check_undecided), the most permits counted while an acquire was in
 * flight (check_peaks), and the shape of a wait that starved (also the
 * latch checker's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

int check_permit_total(const hist_event *e, int64_t *delta)
{
    *delta = 0;
    if (e->op == HOP_SET) {
        if (!e->aux) return 0;
        *delta = e->value;
        return 1;
    }
    if (e->op == HOP_PERMITS_ADD) {
        /* More permits count from the invoke (another thread may take them
         * before the adder hears back), fewer from the ok. */
        if (e->kind == HIST_INVOKE && e->n > 0) *delta = e->n;
        if (e->kind == HIST_OK && e->n < 0) *delta = e->n;
        return *delta != 0;
    }
    if (e->op == HOP_PERMITS_SET && e->kind == HIST_OK && e->value == 1) {
        *delta = e->n > 0 ? e->n : 1;
        return 1;
    }
    if (e->op == HOP_PERMITS_DRAIN && e->kind == HIST_OK) {
        *delta = -e->value;
        return 1;
    }
    return 0;
}

void check_undecided_init(check_undecided *x, int nlocks)
{
    memset(x, 0, sizeof *x);
    x->nlocks = nlocks;
    x->permits = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *x->permits);
}

static void undecided_drop(check_undecided *x, size_t i, int doubt)
{
    const struct check_open_add *o = &x->open[i];
    if (doubt) x->permits[o->lock] += o->n < 0 ? -o->n : o->n;
    x->open[i] = x->open[--x->nopen];
}

void check_undecided_feed(check_undecided *x, const hist_event *e)
{
    if (e->op == HOP_CRASH) { /* its adds in flight may or may not have run */
        for (size_t i = x->nopen; i-- > 0;)
            if (x->open[i].client == e->client && x->open[i].inc == e->inc) undecided_drop(x, i, 1);
        return;
    }
    if (e->op != HOP_PERMITS_ADD || e->lock < 0 || e->lock >= x->nlocks) return;
    if (e->kind == HIST_INVOKE) {
        if (x->nopen == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 8;
            x->open = sim_xrealloc(x->open, x->cap * sizeof *x->open);
        }
        x->open[x->nopen++] = (struct check_open_add){e->seq, e->client, e->inc, e->thread, e->lock, e->n};
        return;
    }
    for (size_t i = 0; i < x->nopen; i++) {
        const struct check_open_add *o = &x->open[i];
        if (o->client != e->client || o->inc != e->inc || o->thread != e->thread || o->seq != e->seq) continue;
        /* An error: it may or may not have run ("not acquired" is no
         * addPermits answer). */
        undecided_drop(x, i, e->kind == HIST_FAIL && e->err != NULL);
        return;
    }
}

void check_undecided_free(check_undecided *x)
{
    sim_xfree(x->open);
    sim_xfree(x->permits);
    memset(x, 0, sizeof *x);
}

static int64_t wanted_of(const hist_event *e)
{
    return e->n > 0 ? e->n : 1;
}

typedef struct point {
    int64_t t, available;
} point;

typedef struct timeline {
    point *v;
    size_t n, cap;
} timeline;

struct check_avail {
    int nlocks;
    timeline *tl;
};

check_avail *check_avail_build(const history *hi, int nlocks)
{
    check_avail *a = sim_xcalloc(1, sizeof *a);
    a->nlocks = nlocks;
    a->tl = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *a->tl);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_COUNTER || e->lock < 0 || e->lock >= nlocks) continue;
        timeline *x = &a->tl[e->lock];
        if (x->n == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 64;
            x->v = sim_xrealloc(x->v, x->cap * sizeof *x->v);
        }
        x->v[x->n++] = (point){e->t_us, e->aux ? e->value : 0};
    }
    return a;
}

void check_avail_free(check_avail *a)
{
    if (a == NULL) return;
    for (int l = 0; l < a->nlocks; l++) sim_xfree(a->tl[l].v);
    sim_xfree(a->tl);
    sim_xfree(a);
}

int64_t check_avail_reachable(const check_avail *a, const check_impaired *im, int client, int lock, int64_t n,
                              int64_t from, int64_t to, int64_t *at)
{
    int64_t best = 0, t = from, x, y;
    while (check_impaired_next(im, client, lock, &t, to, &x, &y)) {
        int64_t where = 0, len = check_avail_longest(a, lock, n, x, y, &where);
        if (len > best) {
            best = len;
            if (at) *at = where;
        }
    }
    return best;
}

/* The index of x's first point after t (x->n: none). */
static size_t point_after(const timeline *x, int64_t t)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->v[mid].t <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The store's count at t: its last point at or before t (0 before any). */
static int64_t avail_at(const timeline *x, int64_t t)
{
    size_t i = point_after(x, t);
    return i > 0 ? x->v[i - 1].available : 0;
}

/* Another acquire of the waiter's process on its semaphore, open over
 * [from, to): it wants m permits. */
typedef struct sibling {
    int64_t from, to, m;
} sibling;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Is the wait for n at t one that counts: n available and no sibling
 * open at t wanting more than are available? */
static int counts_at(const timeline *x, const sibling *sib, size_t nsib, int64_t n, int64_t t)
{
    int64_t avail = avail_at(x, t);
    if (avail < n) return 0;
    for (size_t i = 0; i < nsib; i++)
        if (sib[i].from <= t && t < sib[i].to && sib[i].m > avail) return 0;
    return 1;
}

/* The longest stretch of [from, to) that counts (counts_at), over the
 * times where either the count or the open siblings change. */
static int64_t longest_behind(const timeline *x, const sibling *sib, size_t nsib, int64_t n, int64_t from,
                              int64_t to, int64_t *at)
{
    size_t cap = x->n + 2 * nsib + 1, nc = 0;
    int64_t *cut = sim_xcalloc(cap, sizeof *cut);
    cut[nc++] = from;
    for (size_t i = 0; i < x->n; i++)
        if (x->v[i].t > from && x->v[i].t < to) cut[nc++] = x->v[i].t;
    for (size_t i = 0; i < nsib; i++) {
        if (sib[i].from > from && sib[i].from < to) cut[nc++] = sib[i].from;
        if (sib[i].to > from && sib[i].to < to) cut[nc++] = sib[i].to;
    }
    sim_assert(nc <= cap);
    qsort(cut, nc, sizeof *cut, cmp_i64);
    int64_t best = 0, run_from = -1;
    for (size_t i = 0; i < nc; i++) {
        int64_t next = i + 1 < nc ? cut[i + 1] : to;
        if (!counts_at(x, sib, nsib, n, cut[i])) run_from = -1;
        else if (run_from < 0) run_from = cut[i];
        if (run_from >= 0 && next - run_from > best) {
            best = next - run_from;
            *at = run_from;
        }
    }
    sim_xfree(cut);
    return best;
}

int64_t check_avail_waiter(const check_avail *a, const check_impaired *im, const history *hi, const size_t *ends,
                           size_t k, int64_t to, int64_t bound, int64_t grace, int64_t *len, int64_t *at)
{
    const hist_event *w = &hi->ev[k];
    sim_assert(k < hi->n && w->op == HOP_ACQUIRE && w->kind == HIST_INVOKE && w->lock >= 0 && w->lock < a->nlocks);
    int64_t n = wanted_of(w), where = 0;
    *len = 0;
    /* A wait that ended in an error (a reply timeout, NoSyncedSlaves-
     * Exception) spent its last grace waiting for the reply to the command
     * that failed, not for a wake-up. */
    const hist_event *last = ends[k] == (size_t)-1 ? NULL : &hi->ev[ends[k]];
    if (last && last->kind == HIST_FAIL && last->err && strcmp(last->err, "not acquired") != 0)
        to = to - grace > w->t_us ? to - grace : w->t_us;
    /* Only a wait that could be blamed pays for the scan of its siblings. */
    if (check_avail_reachable(a, im, w->client, w->lock, n, w->t_us, to, &where) <= bound) return 0;
    size_t nsib = 0, cap = 0;
    sibling *sib = NULL;
    for (size_t i = 0; i < hi->n && hi->ev[i].t_us < to; i++) {
        const hist_event *o = &hi->ev[i];
        if (i == k || o->op != HOP_ACQUIRE || o->kind != HIST_INVOKE || o->client != w->client ||
            o->inc != w->inc || o->lock != w->lock || wanted_of(o) <= n)
            continue;
        int64_t end = ends[i] == (size_t)-1 ? INT64_MAX : hi->ev[ends[i]].t_us;
        if (end <= w->t_us) continue;
        if (nsib == cap) {
            cap = cap ? cap * 2 : 8;
            sib = sim_xrealloc(sib, cap * sizeof *sib);
        }
        sib[nsib++] = (sibling){o->t_us, end, wanted_of(o)};
    }
    int64_t best = 0, t = w->t_us, x, y;
    while (check_impaired_next(im, w->client, w->lock, &t, to, &x, &y)) {
        where = 0;
        int64_t got = nsib ? longest_behind(&a->tl[w->lock], sib, nsib, n, x, y, &where)
                           : check_avail_longest(a, w->lock, n, x, y, &where);
        if (got == 0) continue;
        /* The grace after an impairment within its own wait, or after a
         * reply of it a fail-reply lost. */
        int64_t since = where - grace > w->t_us ? where - grace : w->t_us;
        int lost = grace > 0 ? check_reply_lost_within(hi, w, since, where + got) : 0;
        int impaired = grace > 0 && check_impaired_in_grace(im, w->client, w->lock, w->t_us, where, grace);
        int64_t g = grace * (lost > impaired ? lost : impaired);
        if (got - g > best) {
            best = got - g;
            *len = got;
            *at = where;
        }
    }
    sim_xfree(sib);
    return best;
}

int64_t check_avail_longest(const check_avail *a, int lock, int64_t n, int64_t from, int64_t to, int64_t *at)
{
    const timeline *x = &a->tl[lock];
    size_t i = point_after(x, from);
    int64_t best = 0, run_from = -1;
    int64_t avail = i > 0 ? x->v[i - 1].available : 0;
    int64_t t = from;
    for (;;) {
        int64_t next = i < x->n && x->v[i].t < to ? x->v[i].t : to;
        if (avail >= n && run_from < 0) run_from = t;
        if (avail < n && run_from >= 0) run_from = -1;
        if (run_from >= 0 && next - run_from > best) {
            best = next - run_from;
            *at = run_from;
        }
        if (next >= to) break;
        avail = x->v[i].available;
        t = next;
        i++;
    }
    return best;
}

void check_resends_init(check_resends *x, int nlocks)
{
    memset(x, 0, sizeof *x);
    x->nlocks = nlocks;
    x->count = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *x->count);
    x->first = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *x->first);
}

void check_resends_feed(check_resends *x, const hist_event *e)
{
    if (e->seq == 0 || e->lock < 0 || e->lock >= x->nlocks) return;
    if (e->op == HOP_PERMITS_ADD && e->kind == HIST_INVOKE) {
        if (x->nadds == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 16;
            x->adds = sim_xrealloc(x->adds, x->cap * sizeof *x->adds);
        }
        x->adds[x->nadds++] = e->seq;
        return;
    }
    if (e->op != HOP_RESENT) return;
    for (size_t i = x->nadds; i-- > 0;) { /* resends are rare; the latest adds first */
        if (x->adds[i] != e->seq) continue;
        if (x->count[e->lock]++ == 0)
            snprintf(x->first[e->lock], sizeof x->first[e->lock], "c%d.t%d", e->client, e->thread);
        return;
    }
}

void check_resends_free(check_resends *x)
{
    sim_xfree(x->adds);
    sim_xfree(x->count);
    sim_xfree(x->first);
    memset(x, 0, sizeof *x);
}

unsigned check_resends_told(const check_resends *x, int lock, char *why, size_t cap)
{
    sim_assert(lock >= 0 && lock < x->nlocks && cap > 0);
    why[0] = '\0';
    if (x->count[lock] == 0) return 0;
    snprintf(why, cap, "; %lld addPermits resent after a reply timeout (first %s) may have run twice",
             (long long)x->count[lock], x->first[lock]);
    return CHECK_CAUSE_ADD_RESENT;
}

struct check_peak_open {
    uint64_t seq;
    int64_t t_us;
    UT_hash_handle hh;
};

void check_peaks_init(check_peaks *x, int nlocks)
{
    size_t n = (size_t)(nlocks > 0 ? nlocks : 1);
    memset(x, 0, sizeof *x);
    x->nlocks = nlocks;
    x->cuts = sim_xcalloc(n, sizeof *x->cuts);
    x->ncuts = sim_xcalloc(n, sizeof *x->ncuts);
    x->capcuts = sim_xcalloc(n, sizeof *x->capcuts);
}

int check_peaks_feed(check_peaks *x, const hist_event *e, int64_t total, int64_t *delta)
{
    sim_assert(e->lock >= 0 && e->lock < x->nlocks);
    int l = e->lock;
    if (check_permit_total(e, delta)) {
        if (*delta < 0) {
            if (x->ncuts[l] == x->capcuts[l]) {
                x->capcuts[l] = x->capcuts[l] ? x->capcuts[l] * 2 : 16;
                x->cuts[l] = sim_xrealloc(x->cuts[l], x->capcuts[l] * sizeof *x->cuts[l]);
            }
            x->cuts[l][x->ncuts[l]++] = (struct check_peak_cut){e->t_us, total};
        }
        return 1;
    }
    if (e->op != HOP_ACQUIRE || e->seq == 0) return 0;
    check_peak_open *o;
    HASH_FIND(hh, x->open, &e->seq, sizeof e->seq, o);
    if (e->kind == HIST_INVOKE) {
        if (o == NULL) {
            o = sim_xcalloc(1, sizeof *o);
            o->seq = e->seq;
            HASH_ADD(hh, x->open, seq, sizeof o->seq, o);
        }
        o->t_us = e->t_us;
    } else if (e->kind != HIST_OK && o != NULL) { /* the ok is still to be judged */
        HASH_DEL(x->open, o);
        sim_xfree(o);
    }
    return 0;
}

int64_t check_peaks_bound(check_peaks *x, const hist_event *e, int64_t total)
{
    sim_assert(e->op == HOP_ACQUIRE && e->kind == HIST_OK && e->lock >= 0 && e->lock < x->nlocks);
    int l = e->lock;
    int64_t bound = total;
    check_peak_open *o;
    HASH_FIND(hh, x->open, &e->seq, sizeof e->seq, o);
    if (o == NULL) return bound;
    for (size_t i = x->ncuts[l]; i-- > 0 && x->cuts[l][i].t_us >= o->t_us;)
        if (x->cuts[l][i].before > bound) bound = x->cuts[l][i].before;
    HASH_DEL(x->open, o);
    sim_xfree(o);
    return bound;
}

void check_peaks_free(check_peaks *x)
{
    check_peak_open *o, *tmp;
    HASH_ITER(hh, x->open, o, tmp) {
        HASH_DEL(x->open, o);
        sim_xfree(o);
    }
    for (int l = 0; l < x->nlocks; l++) sim_xfree(x->cuts[l]);
    sim_xfree(x->cuts);
    sim_xfree(x->ncuts);
    sim_xfree(x->capcuts);
    memset(x, 0, sizeof *x);
}

unsigned check_wait_shape(const history *hi, const size_t *ends, size_t k, int64_t at)
{
    const hist_event *w = &hi->ev[k];
    sim_assert(k < hi->n && (w->op == HOP_ACQUIRE || w->op == HOP_AWAIT) && w->kind == HIST_INVOKE && w->t_us <= at);
    unsigned shape = (w->op == HOP_ACQUIRE && wanted_of(w) > 1 ? CHECK_CAUSE_WAIT_MANY : 0) |
                     (w->async ? CHECK_CAUSE_ASYNC : 0);
    for (size_t i = 0; i < hi->n && hi->ev[i].t_us <= at; i++) {
        const hist_event *o = &hi->ev[i];
        if (o->op == HOP_PERMITS_ADD && o->kind == HIST_INVOKE && o->n > 0 && o->lock == w->lock &&
            (ends[i] == (size_t)-1 || hi->ev[ends[i]].t_us >= at))
            shape |= CHECK_CAUSE_ADDED;
        if (i == k || o->op != w->op || o->kind != HIST_INVOKE || o->client != w->client || o->inc != w->inc ||
            o->lock != w->lock || (ends[i] != (size_t)-1 && hi->ev[ends[i]].t_us <= at))
            continue;
        shape |= CHECK_CAUSE_SIBLING;
        if (w->op == HOP_ACQUIRE && wanted_of(o) != wanted_of(w)) shape |= CHECK_CAUSE_MIXED_N;
    }
    if (!w->async) return shape;
    /* Its own listener, added after the message it waited for: at any
     * time of the wait, as the wait runs past at. */
    size_t end = ends[k] == (size_t)-1 ? hi->n : ends[k];
    for (size_t i = k + 1; i < end; i++) {
        const hist_event *o = &hi->ev[i];
        if (o->op == HOP_LATE_LISTENER && o->client == w->client && o->inc == w->inc && o->thread == w->thread &&
            o->seq == w->seq)
            return shape | CHECK_CAUSE_LATE_LISTENER;
    }
    return shape;
}
