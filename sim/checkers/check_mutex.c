/* check_mutex.c — mutual exclusion, judged by what clients believe: a
 * thread holds a lock from the ok of its outermost acquire to the invoke
 * of its last release (or to its process's crash). Two holders of the same
 * lock at the same true time are a violation, reported once per pair at
 * the moment the second one starts to hold. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers.h"

typedef struct holder {
    int client, inc, thread;
    int64_t since_us;
} holder;

typedef struct lockset {
    holder *h;
    size_t n, cap;
} lockset;

static int same(const holder *a, const hist_event *e)
{
    return a->client == e->client && a->inc == e->inc && a->thread == e->thread;
}

static void drop(lockset *ls, size_t i)
{
    ls->h[i] = ls->h[--ls->n];
}

static void fmt_time(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%06llds", (long long)(us / 1000000), (long long)(us % 1000000));
}

void check_mutex(const history *hi, int nlocks, char *const *names, check_result *r)
{
    lockset *sets = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *sets);
    r->checked[SCN_INV_MUTEX] = 1;
    r->verdict[SCN_INV_MUTEX] = CHECK_HELD;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op == HOP_CRASH) {
            for (int l = 0; l < nlocks; l++)
                for (size_t i = sets[l].n; i-- > 0;)
                    if (sets[l].h[i].client == e->client && sets[l].h[i].inc == e->inc) drop(&sets[l], i);
            continue;
        }
        if (e->lock < 0 || e->lock >= nlocks) continue;
        lockset *ls = &sets[e->lock];
        int opens = e->op == HOP_ACQUIRE && e->kind == HIST_OK && e->value == 1;
        int closes = (e->op == HOP_RELEASE && e->kind == HIST_INVOKE && e->value == 0) ||
                     (e->op == HOP_FORCE_UNLOCK && e->kind == HIST_OK);
        if (closes) {
            for (size_t i = ls->n; i-- > 0;)
                if (same(&ls->h[i], e)) drop(ls, i);
            continue;
        }
        if (!opens) continue;
        for (size_t i = 0; i < ls->n; i++) {
            if (same(&ls->h[i], e)) continue;
            char a[32], b[32];
            fmt_time(ls->h[i].since_us, a, sizeof a);
            fmt_time(e->t_us, b, sizeof b);
            check_violate(r, SCN_INV_MUTEX, e->t_us, k,
                          "c%d.t%d (holding since %s) and c%d.t%d (acquired at %s) both hold %s",
                          ls->h[i].client, ls->h[i].thread, a, e->client, e->thread, b, names[e->lock]);
        }
        if (ls->n == ls->cap) {
            ls->cap = ls->cap ? ls->cap * 2 : 4;
            ls->h = sim_xrealloc(ls->h, ls->cap * sizeof *ls->h);
        }
        ls->h[ls->n++] = (holder){e->client, e->inc, e->thread, e->t_us};
    }
    for (int l = 0; l < nlocks; l++) sim_xfree(sets[l].h);
    sim_xfree(sets);
}
