/* check_permits.c — a semaphore's permits, judged on true time. A thread
 * holds n permits from the ok of its acquire(n) to the invoke of its
 * release(n), or to its process's crash (Redisson never gives a crashed
 * holder's permits back: they are lost). The permits set come from the
 * runtime's trySetPermits (HOP_SET) and the steps that add, set and drain
 * them (permit_avail.c), the store's count from HOP_COUNTER.
 *
 * permits:  the permits held never exceed the permits set (the most set
 *           while the acquire was in flight: check_peaks), and at the end
 *           available + held by live threads == set (none created: a release
 *           by a thread that held nothing; none lost: a crashed holder, an
 *           acquire whose reply was lost; an addPermits that failed with
 *           an error, or whose process crashed before its answer, may or
 *           may not have run: up to its permits fewer is no loss,
 *           check_undecided);
 * liveness: no acquire(n) waits longer than the bound while the store has
 *           n available and the waiter could reach the master (a lost
 *           wake-up); its impaired periods (impaired.c: cut off, a slow
 *           link, the master down, paused or mid-failover, its process
 *           paused) do not count, and the bound starts again after each,
 *           with the resend grace on top within that grace of one
 *           (check_resend_grace: its reply wait and the longest retry
 *           delay; its command is resent only then); nor does a time when
 *           another acquire of its process wants more permits than the
 *           store has (that one may take the process's wake-up:
 *           check_avail_waiter, a non-fair Semaphore's head of line);
 * deadlock: at the end, no thread waits for n permits when fewer than n are
 *           available or held by live threads (they can never come), unless
 *           the master is down, paused or mid-failover at the end: the
 *           count seen is not the one a master will serve. A waiter cut off
 *           at the end is still judged: the count does not depend on it.
 *
 * Permits over the bound or created or lost by the end where an
 * addPermits had been resent after its reply timed out (HOP_RESENT: the
 * script is not idempotent, and a resend after a lost reply adds twice)
 * carry CHECK_CAUSE_ADD_RESENT: another bug than a resent release.
 *
 * What a thread holds is an amount here, not the shared holds' intervals
 * (check_holds): a release(n) takes up to n of all the thread holds of the
 * semaphore, whatever its acquires were, and the rest counts as created. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

typedef struct holder {
    int client, inc, thread, lock;
    int64_t held;
} holder;

typedef struct sem {
    int64_t set;        /* permits set (HOP_SET) */
    int has_set;
    int64_t held;       /* by live threads */
    int64_t lost;       /* held by threads whose process crashed */
    int64_t foreign;    /* released by threads beyond what they held */
    int64_t available;  /* the store's last count */
    int observed;
    int over;           /* held > set right now (reported once per excursion) */
    int64_t unsure;     /* acquires / releases that failed with an error */
    char lost_by[64], foreign_by[64], unsure_by[160];
} sem;

typedef struct state {
    sem *s;
    holder *h;          /* in order of first appearance */
    size_t nh, cap;
    size_t *slots;      /* open addressing over h: index + 1, 0 empty */
    size_t nslots;      /* a power of two, > 2 * cap */
    check_resends resends;
    check_peaks peaks;
    check_undecided undecided;
} state;

static int64_t permits(const hist_event *e)
{
    return e->n > 0 ? e->n : 1;
}

static size_t holder_hash(int client, int inc, int thread, int lock)
{
    uint64_t k = ((uint64_t)(uint32_t)client << 32 | (uint32_t)thread) * UINT64_C(0x9e3779b97f4a7c15);
    k ^= ((uint64_t)(uint32_t)inc << 32 | (uint32_t)lock) * UINT64_C(0xff51afd7ed558ccd);
    return (size_t)(k ^ (k >> 29));
}

static void index_holder(state *st, size_t i)
{
    const holder *x = &st->h[i];
    size_t k = holder_hash(x->client, x->inc, x->thread, x->lock) & (st->nslots - 1);
    while (st->slots[k]) k = (k + 1) & (st->nslots - 1);
    st->slots[k] = i + 1;
}

/* The holder entry of e's thread on e's lock, made on first sight. */
static holder *holder_of(state *st, const hist_event *e)
{
    if (st->nslots) {
        size_t k = holder_hash(e->client, e->inc, e->thread, e->lock) & (st->nslots - 1);
        for (; st->slots[k]; k = (k + 1) & (st->nslots - 1)) {
            holder *x = &st->h[st->slots[k] - 1];
            if (x->client == e->client && x->inc == e->inc && x->thread == e->thread && x->lock == e->lock) return x;
        }
    }
    if (st->nh == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 16;
        st->h = sim_xrealloc(st->h, st->cap * sizeof *st->h);
        sim_xfree(st->slots);
        st->nslots = 4 * st->cap;
        st->slots = sim_xcalloc(st->nslots, sizeof *st->slots);
        for (size_t i = 0; i < st->nh; i++) index_holder(st, i);
    }
    st->h[st->nh] = (holder){e->client, e->inc, e->thread, e->lock, 0};
    index_holder(st, st->nh);
    return &st->h[st->nh++];
}

static void on_crash(state *st, const hist_event *e)
{
    for (size_t i = 0; i < st->nh; i++) {
        holder *x = &st->h[i];
        if (x->client != e->client || x->inc != e->inc || x->held == 0) continue;
        sem *s = &st->s[x->lock];
        if (s->lost == 0) snprintf(s->lost_by, sizeof s->lost_by, "c%d.t%d", x->client, x->thread);
        s->lost += x->held;
        s->held -= x->held;
        x->held = 0;
    }
}

static void on_acquired(state *st, const hist_event *e, size_t k, char *const *names, check_result *r)
{
    sem *s = &st->s[e->lock];
    int64_t n = permits(e);
    holder_of(st, e)->held += n;
    s->held += n;
    int64_t bound = check_peaks_bound(&st->peaks, e, s->set);
    if (!s->has_set || s->held <= bound || s->over) return;
    s->over = 1;
    char why[160];
    unsigned cause = check_resends_told(&st->resends, e->lock, why, sizeof why);
    check_violation *v = check_violate(r, SCN_INV_PERMITS, e->t_us, k,
                  "threads hold %lld permits of %s, which has %lld (c%d.t%d just acquired %lld)%s",
                  (long long)s->held, names[e->lock], (long long)bound, e->client, e->thread, (long long)n, why);
    if (v != NULL) v->cause |= cause;
}

static void on_release(state *st, const hist_event *e)
{
    sem *s = &st->s[e->lock];
    int64_t n = permits(e);
    holder *x = holder_of(st, e);
    int64_t take = x->held < n ? x->held : n;
    x->held -= take;
    s->held -= take;
    if (take < n && s->foreign == 0) snprintf(s->foreign_by, sizeof s->foreign_by, "c%d.t%d", e->client, e->thread);
    s->foreign += n - take;
    if (s->held <= s->set) s->over = 0;
}

/* The end: available + held by live threads must be what was set. */
static void conservation(const state *st, int nlocks, char *const *names, int64_t end_us, size_t last,
                         check_result *r)
{
    for (int l = 0; l < nlocks; l++) {
        const sem *s = &st->s[l];
        if (!s->has_set || !s->observed) continue;
        int64_t total = s->available + s->held;
        if (total <= s->set && total >= s->set - st->undecided.permits[l]) continue;
        char why[320] = "";
        unsigned cause = 0;
        if (total > s->set && s->foreign) {
            snprintf(why, sizeof why, "; threads released %lld they did not hold (first %s)", (long long)s->foreign,
                     s->foreign_by);
        } else if (total < s->set && s->lost) {
            snprintf(why, sizeof why, "; %lld held by crashed processes (first %s) never came back", (long long)s->lost,
                     s->lost_by);
        } else if (st->resends.count[l]) {
            cause = check_resends_told(&st->resends, l, why, sizeof why);
        } else if (s->unsure) {
            /* Only operations that failed with an error explain it: the
             * client was told, unlike a script that loses or adds permits. */
            snprintf(why, sizeof why, "; %lld acquire/release(s) failed with an error and may or may not have run "
                     "(first %s)", (long long)s->unsure, s->unsure_by);
            cause = CHECK_CAUSE_FAILED_OP;
        }
        check_violation *v = check_violate(r, SCN_INV_PERMITS, end_us, last,
                      "%lld permits of %s %s: at the end %lld available + %lld held by live threads, %lld set%s",
                      (long long)(total < s->set ? s->set - total : total - s->set), names[l],
                      total < s->set ? "lost" : "created", (long long)s->available, (long long)s->held,
                      (long long)s->set, why);
        if (v != NULL) v->cause |= cause;
    }
}

/* ------------------------------------------------------------ the waits */

static void waits(const history *hi, const check_input *in, int nlocks, char *const *names, int64_t bound_us,
                  int64_t end_us, const state *st, check_result *r)
{
    check_avail *avail = check_avail_build(hi, nlocks);
    size_t *ends = hist_op_ends(hi);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op != HOP_ACQUIRE || e->kind != HIST_INVOKE || e->lock < 0 || e->lock >= nlocks) continue;
        size_t done = ends[k];
        int64_t to = done == (size_t)-1 ? end_us : hi->ev[done].t_us;
        int64_t at = 0, n = permits(e);
        int64_t len = 0, grace = check_resend_grace(in);
        if (check_avail_waiter(avail, in->impaired, hi, ends, k, to, bound_us, grace, &len, &at) > bound_us) {
            char why[200];
            check_impaired_told(in->impaired, e->client, e->lock, e->t_us, to, why, sizeof why);
            check_violation *v = check_violate(r, SCN_INV_LIVENESS, at + bound_us, done == (size_t)-1 ? hi->n - 1 : done,
                          "c%d.t%d waited %lldms for %lld permit(s) of %s while the store had them "
                          "(from %lld.%03llds; bound %lldms)%s",
                          e->client, e->thread, (long long)(len / 1000), (long long)n, names[e->lock],
                          (long long)(at / 1000000), (long long)(at / 1000 % 1000), (long long)(bound_us / 1000), why);
            if (v != NULL) v->cause |= check_wait_shape(hi, ends, k, at);
        }
        const sem *s = &st->s[e->lock];
        if (done != (size_t)-1 || !s->observed || s->available + s->held >= n) continue;
        if (check_impaired_kinds_at(in->impaired, e->client, e->lock, end_us) & CHECK_IMP_MASTER) continue;
        check_violate(r, SCN_INV_DEADLOCK, end_us, k,
                      "c%d.t%d waits for %lld permit(s) of %s that can never come: %lld available, %lld held by "
                      "live threads%s%s",
                      e->client, e->thread, (long long)n, names[e->lock], (long long)s->available, (long long)s->held,
                      s->lost ? ", the rest lost with crashed " : "", s->lost ? s->lost_by : "");
    }
    check_avail_free(avail);
    sim_xfree(ends);
}

void check_permits(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    int64_t bound_us = in->liveness_bound_us, end_us = in->end_us;
    static const scn_invariant mine[] = {SCN_INV_PERMITS, SCN_INV_LIVENESS, SCN_INV_DEADLOCK};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        r->checked[mine[i]] = 1;
        if (r->verdict[mine[i]] != CHECK_VIOLATED) r->verdict[mine[i]] = CHECK_HELD;
    }
    if (nlocks <= 0) return;
    state st = {.s = sim_xcalloc((size_t)nlocks, sizeof *st.s)};
    check_resends_init(&st.resends, nlocks);
    check_peaks_init(&st.peaks, nlocks);
    check_undecided_init(&st.undecided, nlocks);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        check_undecided_feed(&st.undecided, e);
        if (e->op == HOP_CRASH) {
            on_crash(&st, e);
            continue;
        }
        if (e->lock < 0 || e->lock >= nlocks) continue;
        sem *s = &st.s[e->lock];
        int64_t delta;
        check_resends_feed(&st.resends, e);
        if (check_peaks_feed(&st.peaks, e, s->set, &delta)) {
            s->set += delta;
            s->has_set = 1;
            if (s->held <= s->set) s->over = 0;
        } else if (e->op == HOP_COUNTER) {
            s->available = e->aux ? e->value : 0;
            s->observed = 1;
        } else if (e->op == HOP_ACQUIRE && e->kind == HIST_OK) {
            on_acquired(&st, e, k, names, r);
        } else if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE) {
            on_release(&st, e);
        } else if ((e->op == HOP_ACQUIRE || e->op == HOP_RELEASE) && e->kind == HIST_FAIL && e->err &&
                   strcmp(e->err, "not acquired") != 0) {
            if (s->unsure++ == 0)
                snprintf(s->unsure_by, sizeof s->unsure_by, "c%d.t%d: %s", e->client, e->thread, e->err);
        }
    }
    conservation(&st, nlocks, names, end_us, hi->n ? hi->n - 1 : 0, r);
    waits(hi, in, nlocks, names, bound_us, end_us, &st, r);
    check_resends_free(&st.resends);
    check_peaks_free(&st.peaks);
    check_undecided_free(&st.undecided);
    sim_xfree(st.s);
    sim_xfree(st.h);
    sim_xfree(st.slots);
}
