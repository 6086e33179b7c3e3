/* check_mutex.c — mutual exclusion, judged by what clients believe: a
 * thread holds a lock from the ok of its outermost acquire to the invoke
 * of its last release (or to its process's crash): the CHECK_HOLDS_DEPTH
 * holds. Two holders of the same lock at the same true time are a
 * violation, reported once per pair at the moment the second one starts to
 * hold, against the holds open then in their open set's order. Its cause
 * says whether the store had let the first holder's key expire (its
 * lease ran out) before the second acquired, or took it away otherwise (a
 * release run twice, a failover, another client's script).
 *
 * Excludes no fault: a safety property must hold whatever the network
 * did; only the waits' checkers leave out impaired periods (impaired.c). */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

static void fmt_time(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%06llds", (long long)(us / 1000000), (long long)(us % 1000000));
}

/* Had the store let o's key expire by the time x acquired? The last
 * reading of the store that names o as the holder says when the key
 * expires. That reading comes after commands, so it may come before o's
 * ok (the reply was on its way); a reading that names another holder
 * before o's ok means o's own is older still, and the answer is no; so
 * does reaching the invoke of o's acquire (a protocol the store is not
 * read for). O(events from o's acquire to x's ok), only for recorded
 * violations. */
static int lease_ran_out(const history *h, const check_span *o, const check_span *x)
{
    sim_assert(o->from_k <= x->from_k && x->from_k < h->n);
    for (size_t k = x->from_k + 1; k-- > 0;) {
        const hist_event *e = &h->ev[k];
        int by_o = e->client == o->client && e->inc == o->inc && e->thread == o->thread;
        if (by_o && e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE && k < o->from_k) return 0; /* o's acquire began */
        if (e->op != HOP_STORE || e->lock != x->lock) continue;
        if (by_o) return e->aux <= x->from_us;
        if (k < o->from_k) return 0;
    }
    return 0;
}

void check_mutex(const history *h, const check_holds *hs, const check_input *in, check_result *r)
{
    const check_spans *holds = &hs->rule[CHECK_HOLDS_DEPTH];
    r->checked[SCN_INV_MUTEX] = 1;
    r->verdict[SCN_INV_MUTEX] = CHECK_HELD;
    for (size_t i = 0; i < holds->n; i++) {
        const check_span *x = &holds->v[i];
        for (size_t j = 0; j < x->npeers; j++) {
            const check_span *o = &holds->v[hs->peers[x->peers + j]];
            if (check_same_thread(o, x)) continue;
            char a[32], b[32];
            fmt_time(o->from_us, a, sizeof a);
            fmt_time(x->from_us, b, sizeof b);
            check_violation *v = check_violate(r, SCN_INV_MUTEX, x->from_us, x->from_k,
                                               "c%d.t%d (holding since %s) and c%d.t%d (acquired at %s) both hold %s",
                                               o->client, o->thread, a, x->client, x->thread, b, in->names[x->lock]);
            if (v != NULL && lease_ran_out(h, o, x)) v->cause |= CHECK_CAUSE_LEASE_RAN_OUT;
        }
    }
}
