/* check_liveness.c — lost wake-ups: no thread waits in an acquire for
 * longer than the bound while the lock is free in the store and it could
 * reach the lock's master. A wait ends with the acquire, or where the
 * thread gave up (HOP_GIVE_UP: tryLock's wait ran out and it leaves the
 * fair queue, however long that takes). Excluded: the waiter's impaired periods
 * (impaired.c: a partition, drop or drop-reply rule, a disconnect, a link
 * slowed beyond the bound, the master down, paused or mid-failover, a
 * replica paused while the lock's scripts wait for replicas (WAIT), its
 * own process paused, each with the time a lost command takes to be
 * answered after it), during which no lock could wake it in time: the
 * bound runs only over the free time outside them, and starts again after
 * each; a violation then says how long was not counted. The store's
 * state comes from the observations the simulator records after every
 * command (holder and expiry); between two observations a lock is free
 * from the later of the observation and the holder's expiry. For a
 * read/write lock, a reader's wait also counts while the store is in read
 * mode (it could join at once). A waiter that was waiting with no timeout
 * when the bound ran out (HOP_PARK) is told (CHECK_CAUSE_PARKED): only a
 * message could have woken it. A waiter that polls gets the resend grace
 * (check_resend_grace: its reply wait, WAIT's timeout included where the
 * scripts are synced, and the longest retry delay) on top of the bound
 * for the stretch after an impairment of it during the wait
 * (resend_grace): the command it sent into the impairment is sent again
 * only when its reply times out and the retry delay has passed; a parked
 * waiter gets none (no timeout wakes it), nor one whose acquire began
 * after the impairment ended (it sent nothing into it). A wait ends
 * where the store first counts the waiter's holds above what they were
 * before it asked (HOP_STORE_COUNT of its acquire: the script ran and
 * granted it): what it waits for after that is its reply (one lost, the
 * reply timeout), not the lock, which is no longer free for it even where
 * read mode would say so. A lock with a local lock (in->local_lock: the
 * process's threads queue on it before the store) is not free to a waiter
 * while a sibling thread of its process holds it, from the sibling's
 * acquire until its last release returns (the local lock is let go after
 * the store's answer), nor while an acquire a sibling began first is
 * under way (it tries the store with the local lock taken, the waiter
 * queued behind it; a sibling kept there by a lost command is judged on
 * its own wait): the bound runs over the stretches between such spans.
 * Not free either: a lock whose wait queue keeps the place of a thread
 * that cannot take its turn (its process died, its acquire failed and
 * left the place behind, or it is impaired toward the master as above),
 * up to that place's deadline, for a protocol that
 * declares such a queue (check_input.queue_wait_us, the fair lock's
 * threadWaitTime: "if some thread has died then Redisson waits its
 * return", wiki 8.2): the lock's expiry when the thread queued plus the
 * queue wait for each place it held then (kept_turns). A place kept past
 * that is the lock's doing. Every waiter gets it, also one ahead of the
 * kept place (the queue's order is not followed here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

/* The open acquires by operation tag, and each thread's last store count
 * per lock. */
typedef struct by_seq {
    uint64_t seq;
    size_t k;      /* its invoke */
    int64_t base;  /* the store's count for the thread before it */
    UT_hash_handle hh;
} by_seq;

typedef struct by_thread {
    int key[4]; /* client, inc, thread, lock */
    int64_t count;
    UT_hash_handle hh;
} by_thread;

/* granted[k] for each acquire invoke k: when the store first counted its
 * thread's holds above their count before it (INT64_MAX: never). One pass. */
static int64_t *granted_times(const history *hi)
{
    int64_t *granted = sim_xmalloc((hi->n + 1) * sizeof *granted);
    by_seq *open = NULL, *o, *otmp;
    by_thread *last = NULL, *b, *btmp;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        granted[k] = INT64_MAX;
        int key[4] = {e->client, e->inc, e->thread, e->lock};
        if (e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE && e->seq != 0) {
            HASH_FIND(hh, last, key, sizeof key, b);
            HASH_FIND(hh, open, &e->seq, sizeof e->seq, o);
            if (o == NULL) {
                o = sim_xcalloc(1, sizeof *o);
                o->seq = e->seq;
                HASH_ADD(hh, open, seq, sizeof o->seq, o);
            }
            o->k = k;
            o->base = b ? b->count : e->value; /* none seen: what it believes */
        } else if (e->op == HOP_STORE_COUNT) {
            HASH_FIND(hh, open, &e->seq, sizeof e->seq, o);
            if (o && e->value > o->base && granted[o->k] == INT64_MAX) granted[o->k] = e->t_us;
            HASH_FIND(hh, last, key, sizeof key, b);
            if (b == NULL) {
                b = sim_xcalloc(1, sizeof *b);
                memcpy(b->key, key, sizeof key);
                HASH_ADD(hh, last, key, sizeof b->key, b);
            }
            b->count = e->value;
        }
    }
    HASH_ITER(hh, open, o, otmp) {
        HASH_DEL(open, o);
        sim_xfree(o);
    }
    HASH_ITER(hh, last, b, btmp) {
        HASH_DEL(last, b);
        sim_xfree(b);
    }
    return granted;
}

typedef struct span {
    int64_t from, to;
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
} spans;

/* Appends [from, to) to s as it is (not merged: spans added out of time
 * order, sorted and merged after). */
static void push_span(spans *s, int64_t from, int64_t to)
{
    if (to <= from) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = sim_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (span){from, to};
}

/* Adds [from, to) to s, whose spans are added in time order (from never
 * below the last one's): merged with the last when they touch. */
static void add_span(spans *s, int64_t from, int64_t to)
{
    if (to <= from) return;
    if (s->n && s->v[s->n - 1].to >= from) { /* contiguous: extend */
        if (to > s->v[s->n - 1].to) s->v[s->n - 1].to = to;
        return;
    }
    push_span(s, from, to);
}

/* The first period of s (sorted, disjoint) that ends after t. */
static size_t first_after(const spans *s, int64_t t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid].to <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The free periods of each lock, from the store observations; readable:
 * read mode counts as free. */
static spans *free_periods(const history *hi, int nlocks, int64_t end_us, int readable)
{
    spans *fp = sim_xcalloc((size_t)nlocks, sizeof *fp);
    int64_t *since = sim_xcalloc((size_t)nlocks, sizeof *since); /* free from (if free) */
    int64_t *expiry = sim_xcalloc((size_t)nlocks, sizeof *expiry);
    int64_t *last_t = sim_xcalloc((size_t)nlocks, sizeof *last_t);
    for (int l = 0; l < nlocks; l++) expiry[l] = -1; /* unknown until observed: not free */
    for (size_t k = 0; k <= hi->n; k++) {
        const hist_event *e = k < hi->n ? &hi->ev[k] : NULL;
        if (e && (e->op != HOP_STORE || e->lock < 0 || e->lock >= nlocks)) continue;
        for (int l = 0; l < nlocks; l++) {
            if (e && e->lock != l) continue;
            int64_t t = e ? e->t_us : end_us;
            /* Close the period since the previous observation. */
            if (expiry[l] == 0) add_span(&fp[l], since[l], t);           /* was free */
            else if (expiry[l] > 0 && expiry[l] < t) add_span(&fp[l], expiry[l], t); /* expired */
            last_t[l] = t;
            if (e == NULL) continue;
            if (e->client == 0 || (readable && e->mode == SCN_RW_READ)) {
                expiry[l] = 0;
                since[l] = t;
            } else {
                expiry[l] = e->aux == INT64_MAX ? INT64_MAX : e->aux;
            }
        }
    }
    sim_xfree(since);
    sim_xfree(expiry);
    sim_xfree(last_t);
    return fp;
}

/* Subtracts the sorted, disjoint periods cut from s (sorted, disjoint). */
static void cut_spans(spans *s, const spans *cut)
{
    if (cut->n == 0 || s->n == 0) return;
    spans out = {0};
    size_t j = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t from = s->v[i].from, to = s->v[i].to;
        while (j < cut->n && cut->v[j].to <= from) j++;
        for (size_t c = j; c < cut->n && cut->v[c].from < to; c++) {
            add_span(&out, from, cut->v[c].from);
            if (cut->v[c].to > from) from = cut->v[c].to;
        }
        add_span(&out, from, to);
    }
    sim_xfree(s->v);
    *s = out;
}

/* One thread in a lock's wait queue (HOP_QUEUED .. HOP_DEQUEUED). */
typedef struct queued {
    int client, inc, thread, lock;
    int64_t since;     /* when it entered the queue */
    int64_t turn;      /* the deadline of its place: its turn is kept until then */
    int64_t died;      /* when it stopped waiting and left its place behind:
                          its process's crash, or its acquire's failure
                          (an error: no acquireFailed took it out); -1: waiting */
} queued;

static int span_cmp(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return a->from < b->from ? -1 : a->from > b->from;
}

/* The periods of x's stay in the queue, until t, during which its place
 * was kept for a thread that could not take its turn: dead, or impaired
 * toward the lock's master (impaired.c), each cut at its place's deadline. */
static void keep(spans *s, const check_input *in, const queued *x, int64_t t)
{
    int64_t lim = t < x->turn ? t : x->turn;
    if (x->died >= 0) push_span(s, x->died, lim);
    if (in->impaired == NULL) return;
    size_t n;
    const check_period *p = check_impaired_of(in->impaired, x->client, x->lock, &n);
    int64_t alive_to = x->died >= 0 && x->died < lim ? x->died : lim;
    for (size_t i = 0; i < n && p[i].from_us < alive_to; i++) {
        int64_t from = p[i].from_us > x->since ? p[i].from_us : x->since;
        int64_t to = p[i].to_us < alive_to ? p[i].to_us : alive_to;
        push_span(s, from, to);
    }
}

/* The periods during which each lock's wait queue kept the place of a
 * thread that could not take its turn: its process died, its acquire
 * failed with an error and left the place behind (lock() does not call
 * acquireFailed), or it could not reach the master (impaired.c). A wait queue (the fair lock) grants in
 * order and keeps a waiter's place until its deadline, the time its turn
 * was due (the lock's expiry when it queued) plus the queue wait for each
 * place it held then (Redisson wiki 8.2: "if some thread has died then
 * Redisson waits its return for 5 seconds. For example, if 5 threads are
 * died ... delay will be 25 seconds"; RedissonFairLock.tryLockInnerAsync,
 * redisson-4.7.0: "set its timeout ... to the timeout of the prior thread
 * in the queue (or the timeout of the lock if the queue is empty) plus
 * the threadWaitTime"). The lock is not free to the waiters behind it
 * then. NULL when the protocol declares no such queue. */
static spans *kept_turns(const history *hi, const check_input *in, int nlocks)
{
    if (in->queue_wait_us == NULL) return NULL;
    spans *kt = sim_xcalloc((size_t)nlocks, sizeof *kt);
    int64_t *expiry = sim_xcalloc((size_t)nlocks, sizeof *expiry); /* 0: free or unknown */
    queued *q = NULL;
    size_t nq = 0, cap = 0;
    for (size_t k = 0; k <= hi->n; k++) {
        const hist_event *e = k < hi->n ? &hi->ev[k] : NULL;
        if (e && e->op == HOP_STORE && e->lock >= 0 && e->lock < nlocks) {
            expiry[e->lock] = e->client == 0 || e->aux == INT64_MAX ? 0 : e->aux;
        } else if (e && e->op == HOP_QUEUED && e->lock >= 0 && e->lock < nlocks) {
            /* Its wait: that of the acquire it queued for, the thread's last invoke. */
            int64_t wait = -1;
            for (size_t b = k; b-- > 0;) {
                const hist_event *x = &hi->ev[b];
                if (x->op == HOP_ACQUIRE && x->kind == HIST_INVOKE && x->client == e->client &&
                    x->inc == e->inc && x->thread == e->thread) {
                    wait = x->aux;
                    break;
                }
            }
            int64_t due = expiry[e->lock] > e->t_us ? expiry[e->lock] : e->t_us;
            if (nq == cap) {
                cap = cap ? cap * 2 : 16;
                q = sim_xrealloc(q, cap * sizeof *q);
            }
            q[nq++] = (queued){e->client, e->inc, e->thread, e->lock, e->t_us,
                               due + (e->value > 0 ? e->value : 1) * in->queue_wait_us(in->queue_ud, wait), -1};
        } else if (e && e->op == HOP_CRASH) {
            for (size_t i = 0; i < nq; i++)
                if (q[i].client == e->client && q[i].inc == e->inc && q[i].died < 0) q[i].died = e->t_us;
        } else if (e && e->op == HOP_ACQUIRE && e->kind == HIST_FAIL) {
            for (size_t i = 0; i < nq; i++)
                if (q[i].client == e->client && q[i].inc == e->inc && q[i].thread == e->thread && q[i].died < 0)
                    q[i].died = e->t_us;
        } else if (e == NULL || (e->op == HOP_DEQUEUED && e->lock >= 0 && e->lock < nlocks)) {
            int64_t t = e ? e->t_us : in->end_us;
            for (size_t i = 0; i < nq;) {
                queued *x = &q[i];
                if (e && (x->client != e->client || x->inc != e->inc || x->thread != e->thread || x->lock != e->lock)) {
                    i++;
                    continue;
                }
                keep(&kt[x->lock], in, x, t);
                q[i] = q[--nq];
            }
        }
    }
    /* The queue's places end out of time order (pushed unmerged): sort
     * each lock's spans, then merge. */
    for (int l = 0; l < nlocks; l++) {
        spans *s = &kt[l];
        if (s->n > 1) qsort(s->v, s->n, sizeof *s->v, span_cmp);
        spans m = {0};
        for (size_t i = 0; i < s->n; i++) add_span(&m, s->v[i].from, s->v[i].to);
        sim_xfree(s->v);
        *s = m;
    }
    sim_xfree(q);
    sim_xfree(expiry);
    return kt;
}

/* Per history index of an acquire's invoke: when its thread gave up
 * waiting (HOP_GIVE_UP before the acquire ended), else -1. */
static int64_t *given_up(const history *hi)
{
    int64_t *g = sim_xcalloc(hi->n ? hi->n : 1, sizeof *g);
    for (size_t k = 0; k < hi->n; k++) {
        g[k] = -1;
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_GIVE_UP) continue;
        for (size_t b = k; b-- > 0;) { /* its open acquire: the thread's last invoke */
            const hist_event *x = &hi->ev[b];
            if (x->client != e->client || x->inc != e->inc || x->thread != e->thread) continue;
            if (x->op == HOP_ACQUIRE && x->kind == HIST_INVOKE && g[b] < 0) g[b] = e->t_us;
            if (x->op == HOP_ACQUIRE) break; /* an ended acquire: not this one's */
        }
    }
    return g;
}

/* Was the acquire invoked at e waiting with no timeout at t? Its HOP_PARK
 * events (only lock() answered a negative TTL parks) come after e, in
 * time order: a scan from e to t, done only for a violation. */
static int parked_at(const history *hi, const hist_event *e, int64_t t)
{
    int parked = 0;
    for (const hist_event *x = e + 1; x < hi->ev + hi->n && x->t_us <= t; x++)
        if (x->op == HOP_PARK && x->client == e->client && x->inc == e->inc && x->thread == e->thread &&
            x->seq == e->seq)
            parked = x->value != 0;
    return parked;
}

/* After an impaired period ends, a command the waiter sent into it is
 * lost (or sent on a connection it has not yet learnt is dead), and the
 * client sends it again only when its reply times out and the retry
 * delay after it has passed: a waiter that polls (not parked: a parked
 * one waits for a message, which no timeout replaces) gets that grace
 * (check_resend_grace) on top of the bound for a stretch that starts within them of
 * an impairment, or of a fail-reply fault that lost the reply to one of
 * its commands (HOP_REPLY_LOST: the lines do not say when that happens,
 * the history does). 0 elsewhere. */
static int64_t resend_grace(const history *hi, const check_input *in, const hist_event *e, int64_t a0, int64_t a)
{
    int64_t grace = check_resend_grace(in);
    if (grace == 0) return 0;
    /* Only what it sent in its own wait: an impairment that ended before
     * its acquire began lost nothing of it. */
    int64_t since = a - grace > e->t_us ? a - grace : e->t_us;
    int after = a > a0 || check_impaired_in_grace(in->impaired, e->client, e->lock, e->t_us, a, grace) ||
                check_reply_lost_within(hi, e, since, a);
    if (!after || parked_at(hi, e, a)) return 0;
    return grace;
}

/* A span of the local lock taken by a sibling thread. */
typedef struct taken {
    int64_t from, to;
} taken;

/* The spans in which e's sibling threads (same client and incarnation,
 * another thread, the same lock) have its local lock, or are ahead of e
 * for it: each hold from its acquire to the return of its last release
 * (ends: the ends of the history's operations), and each acquire a
 * sibling began before e's, from its call to its end (the sibling tries
 * the store with the local lock taken; e queues behind it). *n: how
 * many; malloc'd. */
static taken *sibling_spans(const history *hi, const check_holds *hs, const size_t *ends, int64_t end_us,
                            const hist_event *e, size_t *n)
{
    const check_spans *d = &hs->rule[CHECK_HOLDS_DEPTH];
    taken *v = NULL;
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++) {
        const check_span *h = &d->v[i];
        if (h->client != e->client || h->inc != e->inc || h->thread == e->thread || h->lock != e->lock) continue;
        int64_t h_to = h->to_us;
        if (h->end == CHECK_END_RELEASE) {
            size_t done = h->to_k < hi->n ? ends[h->to_k] : (size_t)-1;
            h_to = done == (size_t)-1 ? end_us : hi->ev[done].t_us;
        }
        v = sim_xrealloc(v, (m + 1) * sizeof *v);
        v[m++] = (taken){h->from_us, h_to};
    }
    for (size_t k = 0; k < (size_t)(e - hi->ev); k++) { /* the history is in time order */
        const hist_event *x = &hi->ev[k];
        if (x->op != HOP_ACQUIRE || x->kind != HIST_INVOKE || x->client != e->client || x->inc != e->inc ||
            x->thread == e->thread || x->lock != e->lock)
            continue;
        size_t done = ends[k];
        v = sim_xrealloc(v, (m + 1) * sizeof *v);
        v[m++] = (taken){x->t_us, done == (size_t)-1 ? end_us : hi->ev[done].t_us};
    }
    *n = m;
    return v;
}

/* The longest part of [a, b) outside the spans in which e's sibling
 * threads have the local lock or are ahead of e for it (sibling_spans);
 * 0 when none is left. */
static int unheld_by_siblings(const history *hi, const check_holds *hs, const size_t *ends, int64_t end_us,
                              const hist_event *e, int64_t *a, int64_t *b)
{
    size_t n;
    taken *v = sibling_spans(hi, hs, ends, end_us, e, &n);
    int64_t best_a = 0, best_b = 0, t = *a;
    for (;;) {
        /* The next sibling span that covers t or starts after it. */
        int64_t from = *b, to = *b;
        for (size_t i = 0; i < n; i++) {
            if (v[i].to <= t || v[i].from >= from) continue;
            from = v[i].from > t ? v[i].from : t;
            to = v[i].to;
        }
        if (from - t > best_b - best_a) best_a = t, best_b = from;
        if (from >= *b) break;
        t = to;
        if (t >= *b) break;
    }
    sim_xfree(v);
    *a = best_a;
    *b = best_b;
    return best_b > best_a;
}

void check_liveness(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    int64_t bound_us = in->liveness_bound_us, end_us = in->end_us;
    r->checked[SCN_INV_LIVENESS] = 1;
    r->verdict[SCN_INV_LIVENESS] = CHECK_HELD;
    if (nlocks <= 0) return;
    spans *fp = free_periods(hi, nlocks, end_us, 0);
    spans *rp = NULL; /* read/write locks: when a reader could join */
    for (size_t k = 0; k < hi->n && rp == NULL; k++)
        if (hi->ev[k].op == HOP_STORE && hi->ev[k].mode == SCN_RW_READ) rp = free_periods(hi, nlocks, end_us, 1);
    spans *dt = kept_turns(hi, in, nlocks);
    if (dt) { /* a kept turn: not free to those behind it */
        for (int l = 0; l < nlocks; l++) {
            cut_spans(&fp[l], &dt[l]);
            if (rp) cut_spans(&rp[l], &dt[l]);
            sim_xfree(dt[l].v);
        }
        sim_xfree(dt);
    }
    /* Walk the waits: invoke .. ok/fail of each acquire (or the end), or
     * its give-up (HOP_GIVE_UP: a tryLock whose wait ran out no longer
     * waits for the lock, whatever its leaving the queue takes). */
    size_t *ends = hist_op_ends(hi);
    int64_t *granted = granted_times(hi);
    int64_t *gave_up = given_up(hi);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_ACQUIRE || e->kind != HIST_INVOKE || e->lock < 0 || e->lock >= nlocks) continue;
        size_t done = ends[k] == (size_t)-1 ? hi->n : ends[k];
        int64_t to = done < hi->n ? hi->ev[done].t_us : end_us;
        if (granted[k] < to) to = granted[k];
        if (gave_up[k] >= 0 && gave_up[k] < to) to = gave_up[k];
        int reader = rp && e->mode == SCN_RW_READ;
        const spans *s = reader ? &rp[e->lock] : &fp[e->lock];
        for (size_t i = first_after(s, e->t_us); i < s->n && s->v[i].from < to; i++) {
            int64_t a0 = s->v[i].from > e->t_us ? s->v[i].from : e->t_us;
            int64_t b0 = s->v[i].to < to ? s->v[i].to : to;
            if (b0 - a0 <= bound_us) continue;
            /* The free stretch less the waiter's impaired periods. */
            int64_t t = a0, a, b;
            int late = 0;
            while (!late && check_impaired_next(in->impaired, e->client, e->lock, &t, b0, &a, &b)) {
                if (b - a <= bound_us + resend_grace(hi, in, e, a0, a)) continue;
                if (in->local_lock && hs && (!unheld_by_siblings(hi, hs, ends, end_us, e, &a, &b) ||
                                             b - a <= bound_us + resend_grace(hi, in, e, a0, a)))
                    continue;
                late = 1;
                char why[200];
                check_impaired_told(in->impaired, e->client, e->lock, a0, b0, why, sizeof why);
                int parked = parked_at(hi, e, a + bound_us);
                check_violation *v =
                    check_violate(r, SCN_INV_LIVENESS, a + bound_us, done < hi->n ? done : hi->n - 1,
                                  "c%d.t%d waited %lldms for %s while it was %s in the store "
                                  "(free from %lld.%03llds; bound %lldms)%s%s",
                                  e->client, e->thread, (long long)((b - a) / 1000), names[e->lock],
                                  reader ? "free or in read mode" : "free", (long long)(a / 1000000),
                                  (long long)(a / 1000 % 1000), (long long)(bound_us / 1000),
                                  parked ? "; it waited with no timeout, for a message" : "", why);
                if (v && parked) v->cause |= CHECK_CAUSE_PARKED;
            }
            if (late) break;
        }
    }
    sim_xfree(ends);
    sim_xfree(granted);
    sim_xfree(gave_up);
    for (int l = 0; l < nlocks; l++) {
        sim_xfree(fp[l].v);
        if (rp) sim_xfree(rp[l].v);
    }
    sim_xfree(fp);
    sim_xfree(rp);
}
