/* check_latch.c — a count-down latch, judged on true time. The count set
 * comes from the runtime's trySetCount (HOP_SET); the latch is due to open
 * at the earlier of the store's count reaching 0 (HOP_COUNTER) and the ok
 * of the countDown() that completes the count.
 *
 * latch:    no await returns released before as many countDown()s as the
 *           count were invoked (an early opening: a lost or resent
 *           countDown, a failover that lost the count);
 * liveness: no await still waits longer than the bound after the latch
 *           was due to open, or after it began if that is later (a lost
 *           ZERO message; a failover that lost a countDown). */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

typedef struct latch {
    int64_t count;      /* set (HOP_SET) */
    int has_set;
    int64_t invoked;    /* countDown()s invoked so far */
    int64_t done;       /* countDown()s that answered ok so far */
    int64_t due_us;     /* when it was due to open (-1: not yet) */
} latch;

/* Pass 1: when each latch was due to open. */
static void due_times(const history *hi, int nlocks, latch *l)
{
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->lock < 0 || e->lock >= nlocks || e->op == HOP_CRASH) continue;
        latch *x = &l[e->lock];
        if (e->op == HOP_SET && e->aux) {
            x->count += e->value;
            x->has_set = 1;
        }
        if (!x->has_set || x->due_us >= 0) continue;
        int zero = e->op == HOP_COUNTER && (e->aux == 0 || e->value <= 0);
        if (e->op == HOP_COUNTDOWN && e->kind == HIST_OK && ++x->done >= x->count) zero = 1;
        if (zero) x->due_us = e->t_us;
    }
}

static void late(const history *hi, const size_t *ends, size_t k, const latch *x, char *const *names, int64_t bound_us,
                 int64_t end_us, check_result *r)
{
    const hist_event *e = &hi->ev[k];
    size_t done = ends[k];
    if (x->due_us < 0) return;
    int64_t to = done == (size_t)-1 ? end_us : hi->ev[done].t_us;
    int64_t from = e->t_us > x->due_us ? e->t_us : x->due_us;
    if (to - from <= bound_us) return;
    check_violation *v = check_violate(
        r, SCN_INV_LIVENESS, from + bound_us, done == (size_t)-1 ? hi->n - 1 : done,
        "c%d.t%d %s %lldms after %s was due to open at %lld.%03llds (bound %lldms)", e->client, e->thread,
        done == (size_t)-1 ? "still waited" : "waited", (long long)((to - from) / 1000), names[e->lock],
        (long long)(x->due_us / 1000000), (long long)(x->due_us / 1000 % 1000), (long long)(bound_us / 1000));
    if (v != NULL) v->cause |= check_wait_shape(hi, ends, k, from);
}

void check_latch(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    int64_t bound_us = in->liveness_bound_us, end_us = in->end_us;
    static const scn_invariant mine[] = {SCN_INV_LATCH, SCN_INV_LIVENESS};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        r->checked[mine[i]] = 1;
        if (r->verdict[mine[i]] != CHECK_VIOLATED) r->verdict[mine[i]] = CHECK_HELD;
    }
    if (nlocks <= 0) return;
    latch *l = sim_xcalloc((size_t)nlocks, sizeof *l);
    for (int i = 0; i < nlocks; i++) l[i].due_us = -1;
    due_times(hi, nlocks, l);
    size_t *ends = hist_op_ends(hi);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->lock < 0 || e->lock >= nlocks || e->op == HOP_CRASH) continue;
        latch *x = &l[e->lock];
        if (e->op == HOP_COUNTDOWN && e->kind == HIST_INVOKE) x->invoked++;
        if (e->op != HOP_AWAIT) continue;
        if (e->kind == HIST_INVOKE) late(hi, ends, k, x, names, bound_us, end_us, r);
        else if (e->kind == HIST_OK && e->value == 1 && x->has_set && x->invoked < x->count)
            check_violate(r, SCN_INV_LATCH, e->t_us, k,
                          "c%d.t%d's await returned released after %lld of %lld countDown()s of %s", e->client,
                          e->thread, (long long)x->invoked, (long long)x->count, names[e->lock]);
    }
    sim_xfree(ends);
    sim_xfree(l);
}
