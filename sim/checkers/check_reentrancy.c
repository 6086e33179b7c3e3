/* check_reentrancy.c — hold counts: after each acquire or release that
 * completed, the count the store held for that thread right after the
 * operation's last command ran must equal the depth the thread believes
 * it has (a resent acquire that re-entered, or a resent unlock that
 * decremented twice, breaks this).
 *
 * Excludes no fault: a safety property must hold whatever the network
 * did; only the waits' checkers leave out impaired periods (impaired.c).
 * But a count off after the thread's own acquire or release of the lock
 * failed with an error (a reply timeout: the script may have run, as
 * Jepsen's indeterminate :info) is told (CHECK_CAUSE_FAILED_OP): the
 * client told the application it did not know, and the count the thread
 * keeps is the application's guess. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "sim/kernel/ut.h"

typedef struct seen {
    UT_hash_handle hh;
    uint64_t seq;
    int64_t count;
} seen;

/* A thread's acquire or release of a lock that failed with an error, by
 * the thread (client, incarnation, thread) and lock. */
typedef struct unsure {
    UT_hash_handle hh;
    uint64_t key;
    char who[128]; /* the first such operation, "its acquire at S.MMMs: ERROR" */
} unsure;

static uint64_t thread_lock(const hist_event *e)
{
    return (uint64_t)(uint32_t)e->client << 40 | (uint64_t)(uint16_t)e->inc << 24 | (uint64_t)(uint16_t)e->thread << 8 |
           (uint64_t)(uint8_t)e->lock;
}

/* Did e fail with an error that leaves it undecided (not a plain "not
 * acquired", which the store answered)? */
static int failed_unsure(const hist_event *e)
{
    return e->kind == HIST_FAIL && (e->op == HOP_ACQUIRE || e->op == HOP_RELEASE) && e->err != NULL &&
           strcmp(e->err, "not acquired") != 0;
}

void check_reentrancy(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    char *const *names = in->names;
    seen *map = NULL;
    unsure *failed = NULL;
    r->checked[SCN_INV_REENTRANCY] = 1;
    r->verdict[SCN_INV_REENTRANCY] = CHECK_HELD;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (failed_unsure(e)) {
            uint64_t key = thread_lock(e);
            unsure *u;
            HASH_FIND(hh, failed, &key, sizeof key, u);
            if (u == NULL) {
                u = sim_xcalloc(1, sizeof *u);
                u->key = key;
                snprintf(u->who, sizeof u->who, "its %s at %lld.%03llds: %.64s",
                         e->op == HOP_ACQUIRE ? "acquire" : "release", (long long)(e->t_us / 1000000),
                         (long long)(e->t_us / 1000 % 1000), e->err);
                HASH_ADD(hh, failed, key, sizeof u->key, u);
            }
            continue;
        }
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
        uint64_t key = thread_lock(e);
        unsure *u;
        HASH_FIND(hh, failed, &key, sizeof key, u);
        check_violation *v =
            check_violate(r, SCN_INV_REENTRANCY, e->t_us, k,
                          "c%d.t%d believes it holds %s %lld time(s) after its %s, the store counts %lld%s%s%s",
                          e->client, e->thread, names[e->lock], (long long)e->value,
                          e->op == HOP_ACQUIRE ? "acquire" : "release", (long long)s->count,
                          u ? "; after " : "", u ? u->who : "", u ? " (it may have run)" : "");
        if (v && u) v->cause |= CHECK_CAUSE_FAILED_OP;
    }
    unsure *u, *utmp;
    HASH_ITER(hh, failed, u, utmp) {
        HASH_DEL(failed, u);
        sim_xfree(u);
    }
    seen *s, *tmp;
    HASH_ITER(hh, map, s, tmp) {
        HASH_DEL(map, s);
        sim_xfree(s);
    }
}
