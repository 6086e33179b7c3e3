/* holds.c — the holds (and waits) of threads on locks, cut from a history
 * in one pass under the rules checkers.h names, for the checkers and the
 * report's pictures.
 *
 * Invariant: each rule keeps what is open in open sets (DEPTH and SIDES:
 * one per lock; SHARES: one for every lock, waits included), appended as
 * they begin; an ending entry's slot is taken by the last one, and a
 * sweep that ends several runs from the set's end back. The orders the
 * readers see (a hold's peers, the share a release ends) are those. */
#include <string.h>

#include "sim/checkers/checkers.h"

/* An open hold or wait. */
typedef struct slot {
    size_t at;     /* index in the rule's holds, or in the waits */
    int64_t depth; /* holds: reentries counted by SIDES and SHARES */
    int wait;
} slot;

typedef struct openset {
    slot *v;
    size_t n, cap;
} openset;

typedef struct builder {
    const history *h;
    check_holds *hs;
    int nlocks;
    openset *sets[CHECK_HOLD_RULES]; /* DEPTH, SIDES: per lock; SHARES: one (NULL: not built) */
} builder;

/* Which open hold an event refers to (see find). */
typedef int match_fn(const check_span *sp, const hist_event *e);

static size_t span_add(check_spans *l, const hist_event *e, size_t k)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = sim_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n] = (check_span){.client = e->client, .inc = e->inc, .thread = e->thread, .lock = e->lock,
                              .op = e->op, .mode = e->mode, .n = e->n, .from_k = k, .to_k = CHECK_OPEN,
                              .from_us = e->t_us, .to_us = INT64_MAX, .end = CHECK_END_OPEN};
    return l->n++;
}

static check_span *span_of(const builder *b, check_hold_rule rule, const slot *s)
{
    return s->wait ? &b->hs->waits.v[s->at] : &b->hs->rule[rule].v[s->at];
}

static int same_thread(const check_span *sp, const hist_event *e)
{
    return sp->client == e->client && sp->inc == e->inc && sp->thread == e->thread;
}

static void set_push(openset *set, size_t at, int wait)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 8;
        set->v = sim_xrealloc(set->v, set->cap * sizeof *set->v);
    }
    set->v[set->n++] = (slot){at, 1, wait};
}

/* Ends entry i of set at history index k; the last entry takes its slot. */
static void set_end(const builder *b, check_hold_rule rule, openset *set, size_t i, size_t k, check_end how)
{
    check_span *sp = span_of(b, rule, &set->v[i]);
    sp->to_k = k;
    sp->to_us = b->h->ev[k].t_us;
    sp->end = how;
    set->v[i] = set->v[--set->n];
}

/* The first open hold (not a wait) of set that m says e refers to;
 * CHECK_OPEN when none. */
static size_t find(const builder *b, check_hold_rule rule, const openset *set, const hist_event *e, match_fn *m)
{
    for (size_t i = 0; i < set->n; i++)
        if (!set->v[i].wait && m(span_of(b, rule, &set->v[i]), e)) return i;
    return CHECK_OPEN;
}

/* A new hold begins at k; DEPTH and SIDES note the holds already open on
 * its lock (the whole set), in set order. */
static void open_hold(builder *b, check_hold_rule rule, openset *set, size_t k)
{
    check_holds *hs = b->hs;
    size_t at = span_add(&hs->rule[rule], &b->h->ev[k], k);
    if (rule != CHECK_HOLDS_SHARES) {
        if (hs->npeers + set->n > hs->peers_cap) {
            hs->peers_cap = (hs->npeers + set->n) * 2;
            hs->peers = sim_xrealloc(hs->peers, hs->peers_cap * sizeof *hs->peers);
        }
        hs->rule[rule].v[at].peers = hs->npeers;
        hs->rule[rule].v[at].npeers = set->n;
        for (size_t i = 0; i < set->n; i++) hs->peers[hs->npeers++] = set->v[i].at;
    }
    set_push(set, at, 0);
}

/* The crash at k ends every hold and wait of its process. */
static void end_process(const builder *b, check_hold_rule rule, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    int nsets = rule == CHECK_HOLDS_SHARES ? 1 : b->nlocks;
    for (int l = 0; l < nsets; l++) {
        openset *set = &b->sets[rule][l];
        for (size_t i = set->n; i-- > 0;) {
            const check_span *sp = span_of(b, rule, &set->v[i]);
            if (sp->client == e->client && sp->inc == e->inc) set_end(b, rule, set, i, k, CHECK_END_CRASH);
        }
    }
}

/* Ends every hold (not the waits) of k's thread on k's lock. */
static void end_thread(const builder *b, check_hold_rule rule, openset *set, size_t k, check_end how)
{
    const hist_event *e = &b->h->ev[k];
    for (size_t i = set->n; i-- > 0;) {
        const check_span *sp = span_of(b, rule, &set->v[i]);
        if (!set->v[i].wait && same_thread(sp, e) && sp->lock == e->lock) set_end(b, rule, set, i, k, how);
    }
}

/* -------------------------------------------------------------- DEPTH */

static void depth_step(builder *b, openset *set, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE && e->value == 0)
        end_thread(b, CHECK_HOLDS_DEPTH, set, k, CHECK_END_RELEASE);
    else if (e->op == HOP_ACQUIRE && e->kind == HIST_OK && e->value == 1)
        open_hold(b, CHECK_HOLDS_DEPTH, set, k);
}

/* -------------------------------------------------------------- SIDES */

static int same_side(const check_span *sp, const hist_event *e)
{
    return same_thread(sp, e) && (sp->mode != SCN_RW_READ) == (e->mode != SCN_RW_READ);
}

static void sides_step(builder *b, openset *set, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    int acquired = e->op == HOP_ACQUIRE && e->kind == HIST_OK;
    int releases = e->op == HOP_RELEASE && e->kind == HIST_INVOKE;
    if (!acquired && !releases) return;
    size_t i = find(b, CHECK_HOLDS_SIDES, set, e, same_side);
    if (acquired && i != CHECK_OPEN) set->v[i].depth++;
    else if (acquired) open_hold(b, CHECK_HOLDS_SIDES, set, k);
    else if (i != CHECK_OPEN && --set->v[i].depth == 0) set_end(b, CHECK_HOLDS_SIDES, set, i, k, CHECK_END_RELEASE);
}

/* ------------------------------------------------------------- SHARES */

static int same_mode(const check_span *sp, const hist_event *e)
{
    return same_thread(sp, e) && sp->lock == e->lock && sp->n <= 0 && sp->mode == e->mode;
}

static int same_share(const check_span *sp, const hist_event *e)
{
    return same_thread(sp, e) && sp->lock == e->lock && sp->n > 0;
}

/* The reply at k ends its thread's first open wait on its lock. */
static void end_wait(const builder *b, openset *set, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    for (size_t i = 0; i < set->n; i++) {
        const check_span *sp = span_of(b, CHECK_HOLDS_SHARES, &set->v[i]);
        if (!set->v[i].wait || !same_thread(sp, e) || sp->lock != e->lock) continue;
        set_end(b, CHECK_HOLDS_SHARES, set, i, k, CHECK_END_REPLY);
        return;
    }
}

/* release(n): the thread's first open share of n permits, else its first. */
static size_t share_released(const builder *b, const openset *set, const hist_event *e)
{
    size_t best = CHECK_OPEN;
    for (size_t i = 0; i < set->n; i++) {
        const check_span *sp = span_of(b, CHECK_HOLDS_SHARES, &set->v[i]);
        if (set->v[i].wait || !same_share(sp, e)) continue;
        if (best == CHECK_OPEN) best = i;
        else if (sp->n == e->n && span_of(b, CHECK_HOLDS_SHARES, &set->v[best])->n != e->n) best = i;
    }
    return best;
}

static void shares_release(builder *b, openset *set, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    size_t i = e->n > 0 ? share_released(b, set, e) : find(b, CHECK_HOLDS_SHARES, set, e, same_mode);
    if (i != CHECK_OPEN && (e->n > 0 || --set->v[i].depth <= 0))
        set_end(b, CHECK_HOLDS_SHARES, set, i, k, CHECK_END_RELEASE);
}

static void shares_step(builder *b, openset *set, size_t k)
{
    const hist_event *e = &b->h->ev[k];
    if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE) shares_release(b, set, k);
    if ((e->op != HOP_ACQUIRE && e->op != HOP_AWAIT) || e->kind == HIST_INFO) return;
    if (e->kind == HIST_INVOKE) {
        set_push(set, span_add(&b->hs->waits, e, k), 1);
        return;
    }
    end_wait(b, set, k);
    if (e->op != HOP_ACQUIRE || e->kind != HIST_OK) return;
    size_t i = e->n > 0 ? CHECK_OPEN : find(b, CHECK_HOLDS_SHARES, set, e, same_mode);
    if (i != CHECK_OPEN) set->v[i].depth++;
    else open_hold(b, CHECK_HOLDS_SHARES, set, k); /* a share is a hold of its own */
}

/* --------------------------------------------------------------- pass */

static void step(builder *b, check_hold_rule rule, size_t k)
{
    static void (*const steps[CHECK_HOLD_RULES])(builder *, openset *, size_t) = {depth_step, sides_step,
                                                                                  shares_step};
    const hist_event *e = &b->h->ev[k];
    if (e->op == HOP_CRASH) {
        end_process(b, rule, k);
        return;
    }
    int per_lock = rule != CHECK_HOLDS_SHARES;
    if (per_lock && (e->lock < 0 || e->lock >= b->nlocks)) return;
    openset *set = &b->sets[rule][per_lock ? e->lock : 0];
    if (e->op == HOP_FORCE_UNLOCK && e->kind == HIST_OK) end_thread(b, rule, set, k, CHECK_END_FORCE);
    else steps[rule](b, set, k);
}

check_holds *check_holds_build(const history *h, int nlocks, unsigned rules)
{
    check_holds *hs = sim_xcalloc(1, sizeof *hs);
    builder b = {.h = h, .hs = hs, .nlocks = nlocks};
    size_t per_lock = (size_t)(nlocks > 0 ? nlocks : 1);
    for (int r = 0; r < CHECK_HOLD_RULES; r++)
        if (rules & CHECK_HOLDS(r)) b.sets[r] = sim_xcalloc(r == CHECK_HOLDS_SHARES ? 1 : per_lock, sizeof *b.sets[r]);
    for (size_t k = 0; rules && k < h->n; k++)
        for (int r = 0; r < CHECK_HOLD_RULES; r++)
            if (b.sets[r]) step(&b, (check_hold_rule)r, k);
    for (int r = 0; r < CHECK_HOLD_RULES; r++) {
        size_t nsets = r == CHECK_HOLDS_SHARES ? 1 : per_lock;
        for (size_t l = 0; b.sets[r] && l < nsets; l++) sim_xfree(b.sets[r][l].v);
        sim_xfree(b.sets[r]);
    }
    return hs;
}

void check_holds_free(check_holds *hs)
{
    if (hs == NULL) return;
    for (int r = 0; r < CHECK_HOLD_RULES; r++) sim_xfree(hs->rule[r].v);
    sim_xfree(hs->waits.v);
    sim_xfree(hs->peers);
    sim_xfree(hs);
}
