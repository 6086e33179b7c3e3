/* check_rw.c — read/write exclusion, judged by what clients believe: a
 * thread holds a side (read or write) of a lock from the ok of its
 * outermost acquire of that side to the invoke of its last release of it
 * (or to its process's crash): the CHECK_HOLDS_SIDES holds. A write hold
 * excludes every other thread's hold, read or write, at the same true
 * time; read holds share; a thread's own holds never conflict (write then
 * read is Redisson's downgrade). A conflict is reported once per pair,
 * when the second hold starts, and says whether the hold already there was
 * a write (CHECK_CAUSE_OVER_WRITE): a write lock lost under its holder is
 * another bug than a read hold cut short.
 *
 * Excludes no fault: a safety property must hold whatever the network
 * did; only the waits' checkers leave out impaired periods (impaired.c). */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

static int writes(const check_span *x)
{
    return x->mode != SCN_RW_READ; /* no side: the write lock */
}

static const char *side(const check_span *x)
{
    return writes(x) ? "write" : "read";
}

void check_rw_exclusion(const history *h, const check_holds *hs, const check_input *in, check_result *r)
{
    const check_spans *holds = &hs->rule[CHECK_HOLDS_SIDES];
    r->checked[SCN_INV_RW_EXCLUSION] = 1;
    r->verdict[SCN_INV_RW_EXCLUSION] = CHECK_HELD;
    for (size_t i = 0; i < holds->n; i++) {
        const check_span *x = &holds->v[i];
        for (size_t j = 0; j < x->npeers; j++) {
            const check_span *o = &holds->v[hs->peers[x->peers + j]];
            if (check_same_thread(o, x) || (!writes(x) && !writes(o))) continue;
            check_violation *v = check_violate(r, SCN_INV_RW_EXCLUSION, x->from_us, x->from_k,
                          "c%d.t%d (holding %s since %lld.%06llds) and c%d.t%d (acquired %s at "
                          "%lld.%06llds) both hold %s",
                          o->client, o->thread, side(o), (long long)(o->from_us / 1000000),
                          (long long)(o->from_us % 1000000), x->client, x->thread, side(x),
                          (long long)(x->from_us / 1000000), (long long)(x->from_us % 1000000),
                          in->names[x->lock]);
            if (v != NULL && writes(o)) v->cause |= CHECK_CAUSE_OVER_WRITE;
        }
    }
}
