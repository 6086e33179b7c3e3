/* check_leases.c — an expirable semaphore's permits (RPermitExpirable-
 * Semaphore), judged on true time. A thread holds an acquire's n permits
 * from its ok to the invoke of its release (which releases the thread's
 * oldest acquire) or its process's crash; the permits in all come from the
 * runtime's trySetPermits and the steps that move them (permit_avail.c);
 * the store's available count and acquired ids from HOP_COUNTER; each
 * acquire's permit number and lease from HOP_PERMIT (the lease counted
 * from that event, which comes no earlier than the script that set it),
 * each release's answer from HOP_PERMIT_END.
 *
 * permits:  threads never hold more permits than there are (a holder past
 *           its lease still believes it holds: when another takes the
 *           permit, that is the violation, caused by the lease running
 *           out: CHECK_CAUSE_LEASE_RAN_OUT), and at the end the store's
 *           available + acquired == the permits in all (none created, none
 *           lost: a crashed holder's permits come back with their lease;
 *           an addPermits that failed with an error, or whose process
 *           crashed before its answer, may or may not have run: the store
 *           may then have up to its permits fewer: check_undecided);
 *           after an addPermits resent on a reply timeout, either carries
 *           CHECK_CAUSE_ADD_RESENT (its script may have run twice);
 * liveness: no acquire(n) waits longer than the bound while the store has
 *           n available and the waiter could reach the master (a lost
 *           wake-up; its impaired periods, impaired.c, do not count, and
 *           the bound starts again after each, with the resend grace on
 *           top within that grace of one (check_resend_grace: its reply
 *           wait and the longest retry delay); nor does a time when
 *           another acquire of its process wants more permits than the
 *           store has: check_avail_waiter, as in check_permits.c);
 * deadlock: no thread still waits at the end for n permits when the store
 *           has fewer than n in all, available or acquired (unless the
 *           master is down, paused or mid-failover at the end, as in
 *           check_permits.c);
 * leases:   no release is answered "released" for a permit whose lease had
 *           ended before the release was invoked, nor for one released
 *           before. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

/* One acquire's permits, by (client, incarnation, permit number). */
typedef struct grant {
    int64_t key[4];      /* client, inc, no, 0 */
    int64_t n;
    int64_t deadline_us; /* INT64_MAX: no lease */
    int64_t lease_us;    /* INT64_MAX: none */
    int held;            /* not yet released (by the thread's belief) */
    int released;        /* a release was answered "released" */
    size_t next;         /* the thread's next grant held, index + 1 (0: none) */
} grant;

/* A thread on a lock, by (client, incarnation, thread, lock): its grants
 * held, oldest first. */
typedef struct holder {
    int64_t key[4];
    size_t head, tail;   /* grants held, index + 1 (0: none) */
    size_t pending;      /* the grant of its acquire not answered yet */
    int64_t release_us;  /* its last release's invoke */
} holder;

/* Records of one kind (each starting with its key) found by key. */
typedef struct table {
    unsigned char *v;
    size_t size, n, cap;
    size_t *slots, nslots; /* open addressing: index + 1, 0 empty */
} table;

typedef struct pool {
    int64_t total, held, available, acquired;
    int has_total, observed, over;
} pool;

static const int64_t *key_at(const table *t, size_t i)
{
    return (const int64_t *)(t->v + i * t->size);
}

static size_t slot_of(const table *t, const int64_t k[4])
{
    uint64_t h = 0;
    for (int j = 0; j < 4; j++) h = (h ^ (uint64_t)k[j]) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h ^ (h >> 29)) & (t->nslots - 1);
}

static void reindex(table *t)
{
    sim_xfree(t->slots);
    t->nslots = 4 * t->cap;
    t->slots = sim_xcalloc(t->nslots, sizeof *t->slots);
    for (size_t i = 0; i < t->n; i++) {
        size_t k = slot_of(t, key_at(t, i));
        while (t->slots[k]) k = (k + 1) & (t->nslots - 1);
        t->slots[k] = i + 1;
    }
}

/* The record with key k, made zeroed (key set) when make and absent;
 * NULL when absent and not made. Pointers last until the next make. */
static void *lookup(table *t, const int64_t k[4], int make)
{
    if (t->nslots) {
        for (size_t s = slot_of(t, k); t->slots[s]; s = (s + 1) & (t->nslots - 1))
            if (memcmp(key_at(t, t->slots[s] - 1), k, 4 * sizeof *k) == 0) return t->v + (t->slots[s] - 1) * t->size;
    }
    if (!make) return NULL;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = sim_xrealloc(t->v, t->cap * t->size);
    }
    unsigned char *r = t->v + t->n * t->size;
    memset(r, 0, t->size);
    memcpy(r, k, 4 * sizeof *k);
    t->n++;
    if (t->n * 2 > t->nslots) reindex(t);
    else {
        size_t s = slot_of(t, k);
        while (t->slots[s]) s = (s + 1) & (t->nslots - 1);
        t->slots[s] = t->n;
    }
    return r;
}

typedef struct state {
    table grants, holders;
    pool *p;
    check_resends resends;
    check_peaks peaks;
    check_undecided undecided;
} state;

static grant *grant_at(state *st, size_t i1)
{
    return (grant *)(st->grants.v + (i1 - 1) * st->grants.size);
}

static holder *holder_of(state *st, const hist_event *e)
{
    int64_t k[4] = {e->client, e->inc, e->thread, e->lock};
    return lookup(&st->holders, k, 1);
}

static void on_permit(state *st, const hist_event *e)
{
    int64_t k[4] = {e->client, e->inc, e->aux, 0};
    int64_t deadline = e->value == INT64_MAX ? INT64_MAX : e->t_us + e->value;
    grant *g = lookup(&st->grants, k, 0);
    if (g) { /* updateLeaseTime */
        g->deadline_us = deadline;
        g->lease_us = e->value;
        return;
    }
    g = lookup(&st->grants, k, 1);
    g->deadline_us = deadline;
    g->lease_us = e->value;
    holder_of(st, e)->pending = st->grants.n;
}

/* Does a thread still believe it holds a permit of lock whose lease had
 * ended, or was in its last tenth, at at_us (its holder outlived the
 * lease)? The deadline is counted from the reply, later than the script
 * that set it by a round trip, and a waiter reclaims a permit the moment
 * its lease ends: the last tenth stands for that (the random workload
 * keeps its holds under 9/10 of a lease). O(holds). */
static int lapsed_held(state *st, int lock, int64_t at_us)
{
    for (size_t i = 0; i < st->holders.n; i++) {
        const holder *h = (const holder *)(st->holders.v + i * st->holders.size);
        if (h->key[3] != lock) continue;
        for (size_t g1 = h->head; g1; g1 = grant_at(st, g1)->next) {
            const grant *g = grant_at(st, g1);
            if (g->deadline_us != INT64_MAX && g->deadline_us - g->lease_us / 10 <= at_us) return 1;
        }
    }
    return 0;
}

/* The acquire's ok: its grant (the HOP_PERMIT just before) is now held. */
static void on_acquired(state *st, const hist_event *e, size_t k, char *const *names, check_result *r)
{
    pool *p = &st->p[e->lock];
    int64_t n = e->n > 0 ? e->n : 1;
    holder *h = holder_of(st, e);
    if (h->pending) {
        grant *g = grant_at(st, h->pending);
        g->n = n;
        g->held = 1;
        if (h->tail) grant_at(st, h->tail)->next = h->pending;
        else h->head = h->pending;
        h->tail = h->pending;
        h->pending = 0;
    }
    p->held += n;
    int64_t bound = check_peaks_bound(&st->peaks, e, p->total);
    if (!p->has_total || p->held <= bound || p->over) return;
    p->over = 1;
    char why[160];
    unsigned cause = check_resends_told(&st->resends, e->lock, why, sizeof why);
    check_violation *v = check_violate(r, SCN_INV_PERMITS, e->t_us, k,
                                       "threads hold %lld permits of %s, which has %lld (c%d.t%d just acquired %lld)%s",
                                       (long long)p->held, names[e->lock], (long long)bound, e->client, e->thread,
                                       (long long)n, why);
    if (v != NULL) v->cause |= cause;
    if (v != NULL && lapsed_held(st, e->lock, e->t_us)) v->cause |= CHECK_CAUSE_LEASE_RAN_OUT;
}

/* A release takes the thread's oldest grant out of its hands. */
static void on_release(state *st, const hist_event *e)
{
    holder *h = holder_of(st, e);
    h->release_us = e->t_us;
    if (!h->head) return; /* nothing held: the store answers it */
    grant *g = grant_at(st, h->head);
    h->head = g->next;
    if (!h->head) h->tail = 0;
    g->held = 0;
    pool *p = &st->p[e->lock];
    p->held -= g->n;
    if (p->held <= p->total) p->over = 0;
}

static void on_crash(state *st, const hist_event *e)
{
    for (size_t i = 0; i < st->holders.n; i++) {
        holder *h = (holder *)(st->holders.v + i * st->holders.size);
        if (h->key[0] != e->client || h->key[1] != e->inc) continue;
        for (size_t g1 = h->head; g1; g1 = grant_at(st, g1)->next) {
            grant_at(st, g1)->held = 0;
            st->p[h->key[3]].held -= grant_at(st, g1)->n;
        }
        h->head = h->tail = 0;
    }
}

/* A release answered: "released" must mean a live permit, released once. */
static void on_answer(state *st, const hist_event *e, size_t k, char *const *names, check_result *r)
{
    int64_t key[4] = {e->client, e->inc, e->aux, 0};
    grant *g = e->aux ? lookup(&st->grants, key, 0) : NULL;
    if (g == NULL || e->value != 1) return;
    int64_t invoked = holder_of(st, e)->release_us;
    if (g->released)
        check_violate(r, SCN_INV_LEASES, e->t_us, k,
                      "c%d.t%d's release of permit #%lld of %s was answered \"released\" a second time", e->client,
                      e->thread, (long long)e->aux, names[e->lock]);
    else if (g->deadline_us != INT64_MAX && invoked > g->deadline_us)
        check_violate(r, SCN_INV_LEASES, e->t_us, k,
                      "c%d.t%d's release of permit #%lld of %s, invoked at %lld.%03llds, was answered "
                      "\"released\" although its lease had ended at %lld.%03llds",
                      e->client, e->thread, (long long)e->aux, names[e->lock], (long long)(invoked / 1000000),
                      (long long)(invoked / 1000 % 1000), (long long)(g->deadline_us / 1000000),
                      (long long)(g->deadline_us / 1000 % 1000));
    g->released = 1;
}

static void conservation(const state *st, int nlocks, char *const *names, int64_t end_us, size_t last,
                         check_result *r)
{
    for (int l = 0; l < nlocks; l++) {
        const pool *p = &st->p[l];
        if (!p->has_total || !p->observed) continue;
        int64_t in_store = p->available + p->acquired;
        if (in_store <= p->total && in_store >= p->total - st->undecided.permits[l]) continue;
        char why[160];
        unsigned cause = check_resends_told(&st->resends, l, why, sizeof why);
        check_violation *v = check_violate(r, SCN_INV_PERMITS, end_us, last,
                      "%lld permits of %s %s: at the end %lld available + %lld acquired in the store, %lld in all%s",
                      (long long)(in_store < p->total ? p->total - in_store : in_store - p->total), names[l],
                      in_store < p->total ? "lost" : "created", (long long)p->available, (long long)p->acquired,
                      (long long)p->total, why);
        if (v != NULL) v->cause |= cause;
    }
}

static void waits(const history *hi, const check_input *in, const state *st, check_result *r)
{
    check_avail *avail = check_avail_build(hi, in->nlocks);
    size_t *ends = hist_op_ends(hi);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_ACQUIRE || e->kind != HIST_INVOKE || e->lock < 0 || e->lock >= in->nlocks) continue;
        size_t done = ends[k];
        int64_t to = done == (size_t)-1 ? in->end_us : hi->ev[done].t_us;
        int64_t at = 0, n = e->n > 0 ? e->n : 1;
        int64_t len = 0, grace = check_resend_grace(in);
        if (check_avail_waiter(avail, in->impaired, hi, ends, k, to, in->liveness_bound_us, grace, &len, &at) > in->liveness_bound_us) {
            char why[200];
            check_impaired_told(in->impaired, e->client, e->lock, e->t_us, to, why, sizeof why);
            check_violation *v = check_violate(r, SCN_INV_LIVENESS, at + in->liveness_bound_us, done == (size_t)-1 ? hi->n - 1 : done,
                          "c%d.t%d waited %lldms for %lld permit(s) of %s while the store had them "
                          "(from %lld.%03llds; bound %lldms)%s",
                          e->client, e->thread, (long long)(len / 1000), (long long)n, in->names[e->lock],
                          (long long)(at / 1000000), (long long)(at / 1000 % 1000),
                          (long long)(in->liveness_bound_us / 1000), why);
            if (v != NULL) v->cause |= check_wait_shape(hi, ends, k, at);
        }
        const pool *p = &st->p[e->lock];
        if (done != (size_t)-1 || !p->observed || p->available + p->acquired >= n) continue;
        if (check_impaired_kinds_at(in->impaired, e->client, e->lock, in->end_us) & CHECK_IMP_MASTER) continue;
        check_violate(r, SCN_INV_DEADLOCK, in->end_us, k,
                      "c%d.t%d waits for %lld permit(s) of %s that can never come: the store has %lld available "
                      "and %lld acquired",
                      e->client, e->thread, (long long)n, in->names[e->lock], (long long)p->available,
                      (long long)p->acquired);
    }
    check_avail_free(avail);
    sim_xfree(ends);
}

void check_leases(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    static const scn_invariant mine[] = {SCN_INV_PERMITS, SCN_INV_LIVENESS, SCN_INV_DEADLOCK, SCN_INV_LEASES};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        r->checked[mine[i]] = 1;
        if (r->verdict[mine[i]] != CHECK_VIOLATED) r->verdict[mine[i]] = CHECK_HELD;
    }
    if (in->nlocks <= 0) return;
    state st = {.grants = {.size = sizeof(grant)}, .holders = {.size = sizeof(holder)},
                .p = sim_xcalloc((size_t)in->nlocks, sizeof *st.p)};
    check_resends_init(&st.resends, in->nlocks);
    check_peaks_init(&st.peaks, in->nlocks);
    check_undecided_init(&st.undecided, in->nlocks);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        check_undecided_feed(&st.undecided, e);
        if (e->op == HOP_CRASH) {
            on_crash(&st, e);
            continue;
        }
        if (e->lock < 0 || e->lock >= in->nlocks) continue;
        pool *p = &st.p[e->lock];
        int64_t delta;
        check_resends_feed(&st.resends, e);
        if (check_peaks_feed(&st.peaks, e, p->total, &delta)) {
            p->total += delta;
            p->has_total = 1;
            if (p->held <= p->total) p->over = 0;
        } else if (e->op == HOP_COUNTER) {
            p->available = e->aux ? e->value : 0;
            p->acquired = e->n;
            p->observed = 1;
        } else if (e->op == HOP_PERMIT) {
            on_permit(&st, e);
        } else if (e->op == HOP_ACQUIRE && e->kind == HIST_OK) {
            on_acquired(&st, e, k, in->names, r);
        } else if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE) {
            on_release(&st, e);
        } else if (e->op == HOP_PERMIT_END) {
            on_answer(&st, e, k, in->names, r);
        }
    }
    conservation(&st, in->nlocks, in->names, in->end_us, hi->n ? hi->n - 1 : 0, r);
    waits(hi, in, &st, r);
    sim_xfree(st.grants.v);
    sim_xfree(st.grants.slots);
    sim_xfree(st.holders.v);
    sim_xfree(st.holders.slots);
    sim_xfree(st.p);
    check_resends_free(&st.resends);
    check_peaks_free(&st.peaks);
    check_undecided_free(&st.undecided);
}
