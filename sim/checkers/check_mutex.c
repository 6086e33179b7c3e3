/* check_mutex.c — mutual exclusion, judged by what clients believe: a
 * thread holds a lock from the ok of its outermost acquire to the invoke
 * of its last release (or to its process's crash): the CHECK_HOLDS_DEPTH
 * holds. Two holders of the same lock at the same true time are a
 * violation, reported once per pair at the moment the second one starts to
 * hold, against the holds open then in their open set's order. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

static void fmt_time(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%06llds", (long long)(us / 1000000), (long long)(us % 1000000));
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
            check_violate(r, SCN_INV_MUTEX, x->from_us, x->from_k,
                          "c%d.t%d (holding since %s) and c%d.t%d (acquired at %s) both hold %s", o->client,
                          o->thread, a, x->client, x->thread, b, in->names[x->lock]);
        }
    }
}
