/* check_rw.c — read/write exclusion, judged by what clients believe: a
 * thread holds a side (read or write) of a lock from the ok of its
 * outermost acquire of that side to the invoke of its last release of it
 * (or to its process's crash). A write hold excludes every other thread's
 * hold, read or write, at the same true time; read holds share; a thread's
 * own holds never conflict (write then read is Redisson's downgrade). A
 * conflict is reported once per pair, when the second hold starts. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers.h"

typedef struct rw_hold {
    int client, inc, thread, write;
    int64_t depth, since_us;
} rw_hold;

typedef struct rw_set {
    rw_hold *h;
    size_t n, cap;
} rw_set;

static int same_thread(const rw_hold *a, const hist_event *e)
{
    return a->client == e->client && a->inc == e->inc && a->thread == e->thread;
}

static void drop(rw_set *s, size_t i)
{
    s->h[i] = s->h[--s->n];
}

static const char *side(int write)
{
    return write ? "write" : "read";
}

/* A new hold of e's side starts: every other thread's conflicting hold
 * is a violation. */
static void opens(const hist_event *e, size_t k, int write, rw_set *s, char *const *names,
                  check_result *r)
{
    for (size_t i = 0; i < s->n; i++) {
        const rw_hold *o = &s->h[i];
        if (same_thread(o, e) || (!write && !o->write)) continue;
        check_violate(r, SCN_INV_RW_EXCLUSION, e->t_us, k,
                      "c%d.t%d (holding %s since %lld.%06llds) and c%d.t%d (acquired %s at "
                      "%lld.%06llds) both hold %s",
                      o->client, o->thread, side(o->write), (long long)(o->since_us / 1000000),
                      (long long)(o->since_us % 1000000), e->client, e->thread, side(write),
                      (long long)(e->t_us / 1000000), (long long)(e->t_us % 1000000), names[e->lock]);
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->h = sim_xrealloc(s->h, s->cap * sizeof *s->h);
    }
    s->h[s->n++] = (rw_hold){e->client, e->inc, e->thread, write, 1, e->t_us};
}

void check_rw_exclusion(const history *hi, int nlocks, char *const *names, check_result *r)
{
    rw_set *sets = sim_xcalloc((size_t)(nlocks > 0 ? nlocks : 1), sizeof *sets);
    r->checked[SCN_INV_RW_EXCLUSION] = 1;
    r->verdict[SCN_INV_RW_EXCLUSION] = CHECK_HELD;
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->op == HOP_CRASH) {
            for (int l = 0; l < nlocks; l++)
                for (size_t i = sets[l].n; i-- > 0;)
                    if (sets[l].h[i].client == e->client && sets[l].h[i].inc == e->inc) drop(&sets[l], i);
            continue;
        }
        if (e->lock < 0 || e->lock >= nlocks) continue;
        rw_set *s = &sets[e->lock];
        int write = e->mode != SCN_RW_READ; /* no side: the write lock */
        if (e->op == HOP_FORCE_UNLOCK && e->kind == HIST_OK) {
            for (size_t i = s->n; i-- > 0;)
                if (same_thread(&s->h[i], e)) drop(s, i);
            continue;
        }
        int acquired = e->op == HOP_ACQUIRE && e->kind == HIST_OK;
        int releases = e->op == HOP_RELEASE && e->kind == HIST_INVOKE;
        if (!acquired && !releases) continue;
        size_t i = 0;
        while (i < s->n && !(same_thread(&s->h[i], e) && s->h[i].write == write)) i++;
        if (acquired && i < s->n) s->h[i].depth++;
        else if (acquired) opens(e, k, write, s, names, r);
        else if (i < s->n && --s->h[i].depth == 0) drop(s, i);
    }
    for (int l = 0; l < nlocks; l++) sim_xfree(sets[l].h);
    sim_xfree(sets);
}
