/* check_reentrancy.c — hold counts: after each acquire or release that
 * completed, the count the store held for that thread right after the
 * operation's last command ran must equal the depth the thread believes
 * it has (a resent acquire that re-entered, or a resent unlock that
 * decremented twice, breaks this).
 *
 * Excludes no fault: a safety property must hold whatever the network
 * did; only the waits' checkers leave out impaired periods (impaired.c). */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

typedef struct seen {
    UT_hash_handle hh;
    uint64_t seq;
    int64_t count;
} seen;

void check_reentrancy(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    char *const *names = in->names;
    seen *map = NULL;
    r->checked[SCN_INV_REENTRANCY] = 1;
    r->verdict[SCN_INV_REENTRANCY] = CHECK_HELD;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op == HOP_STORE_COUNT) {
            seen *s;
            HASH_FIND(hh, map, &e->seq, sizeof e->seq, s);
            if (s == NULL) {
                s = sim_xcalloc(1, sizeof *s);
                s->seq = e->seq;
                HASH_ADD(hh, map, seq, sizeof s->seq, s);
            }
            s->count = e->value;
            continue;
        }
        if (e->kind != HIST_OK || (e->op != HOP_ACQUIRE && e->op != HOP_RELEASE) || e->seq == 0) continue;
        seen *s;
        HASH_FIND(hh, map, &e->seq, sizeof e->seq, s);
        if (s == NULL || s->count == e->value) continue;
        check_violate(r, SCN_INV_REENTRANCY, e->t_us, k,
                      "c%d.t%d believes it holds %s %lld time(s) after its %s, the store counts %lld",
                      e->client, e->thread, names[e->lock], (long long)e->value,
                      e->op == HOP_ACQUIRE ? "acquire" : "release", (long long)s->count);
    }
    seen *s, *tmp;
    HASH_ITER(hh, map, s, tmp) {
        HASH_DEL(map, s);
        sim_xfree(s);
    }
}
