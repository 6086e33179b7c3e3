/* shrink.c — the shrinker (shrink.h): a failing run's scenario made as
 * small as it can be while a run of it, with the same seed, still fails
 * the same way. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "faults/fault.h"
#include "sim/engine/pool.h"
#include "sim/engine/shrink.h"

/* Invariant: cur (the scenario kept so far) has step i = the step of id
 * ids[i]; a step's id never changes, and anchor[id] is the id of the step
 * it needs (-1: none), always a step no later than it. An unlock and the
 * lock it releases (paired[id] of the unlock) go together: without its
 * unlock a lock becomes a hold to the end of the run, past any lease,
 * which is the application's error, not the failure being shrunk. */
typedef struct shrinker {
    unsigned long long seed;
    int same;             /* keep what the input breaks */
    const shrink_opts *o;
    shrink_failure want;
    shrink_failure last;  /* of the last candidate that failed the same way */
    unsigned runs, refused;
    int *anchor;          /* by step id */
    unsigned char *paired; /* by step id: an unlock anchored to its lock */
    size_t nids, ids_cap;
    size_t *ids;          /* cur's steps' ids */
    /* The texts of the candidates that did not fail the same way, by hash
     * (open addressing, 0 empty): a run is a function of its text and the
     * seed, so one tried before (a later round's single line, removed
     * again from an unchanged scenario) is not run again. */
    uint64_t *tried;
    size_t ntried, tried_cap;
    unsigned memo_hits;
} shrinker;

static int tried_before(const shrinker *k, uint64_t h)
{
    if (k->tried_cap == 0) return 0;
    for (size_t i = h & (k->tried_cap - 1); k->tried[i]; i = (i + 1) & (k->tried_cap - 1))
        if (k->tried[i] == h) return 1;
    return 0;
}

static void remember_tried(shrinker *k, uint64_t h)
{
    if (2 * (k->ntried + 1) > k->tried_cap) {
        size_t cap = k->tried_cap ? 2 * k->tried_cap : 256;
        uint64_t *t = sim_xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < k->tried_cap; i++) {
            if (!k->tried[i]) continue;
            size_t j = k->tried[i] & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = k->tried[i];
        }
        sim_xfree(k->tried);
        k->tried = t;
        k->tried_cap = cap;
    }
    size_t j = h & (k->tried_cap - 1);
    while (k->tried[j]) j = (j + 1) & (k->tried_cap - 1);
    k->tried[j] = h;
    k->ntried++;
}

/* A candidate: a scenario, and its steps' ids. */
typedef struct cand {
    scenario s;
    size_t *ids;
} cand;

/* The earliest violation of an invariant whose expectation passes test;
 * of invariant inv only, when inv >= 0. */
static const check_violation *earliest(const run_result *r, int (*test)(scn_expect), int inv)
{
    const check_violation *best = NULL;
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        if ((inv < 0 || (int)v->inv == inv) && test(r->s->expect[v->inv]) && (best == NULL || v->t_us < best->t_us))
            best = v;
    }
    return best;
}

static int exp_held(scn_expect e) { return e == SCN_EXPECT_HELD; }
static int exp_unjudged(scn_expect e) { return e != SCN_EXPECT_VIOLATED; }
static int exp_any(scn_expect e) { return e >= SCN_EXPECT_NONE; }

int shrink_classify(const run_result *r, shrink_failure *f)
{
    memset(f, 0, sizeof *f);
    f->inv = -1;
    f->at_us = -1;
    f->from_us = -1;
    for (size_t i = 0; i < r->checks.nv; i++) {
        f->invs |= 1u << r->checks.v[i].inv;
        f->causes |= r->checks.v[i].cause & SHRINK_RUN_CAUSES;
    }
    const check_violation *v = earliest(r, exp_held, -1);
    if (v == NULL && !r->expectations_met) {
        /* "X expected held, was violated" / "min-acquisitions expected 5, was 2" */
        snprintf(f->expect, sizeof f->expect, "%s", r->expectation_failure);
        char *was = strstr(f->expect, ", was ");
        if (was) *was = '\0';
        return 1;
    }
    if (v == NULL) v = earliest(r, exp_unjudged, -1);
    if (v == NULL) v = earliest(r, exp_any, -1);
    if (v == NULL) return 0;
    /* Two holders because the first one's lease ran out mark the run,
     * whichever violation came first: a delay that breaks liveness before
     * a lease runs out under its holder does not make that the lock's
     * own mutual-exclusion bug. So do permits held over the count because
     * a holder's lease ran out (an expirable semaphore's holder blocked
     * in a re-entry past its lease): not a permit the store lost. */
    static const scn_invariant lapsed[] = {SCN_INV_MUTEX, SCN_INV_PERMITS};
    for (size_t i = 0; i < sizeof lapsed / sizeof lapsed[0]; i++) {
        const check_violation *first = earliest(r, exp_any, (int)lapsed[i]);
        if (first != NULL) f->causes |= first->cause & CHECK_CAUSE_LEASE_RAN_OUT;
    }
    f->inv = (int)v->inv;
    f->at_us = v->t_us;
    f->from_us = v->from_us;
    f->cause = v->cause;
    return 1;
}

/* Does got fail as want does? */
static int same_failure(const shrink_failure *got, const shrink_failure *want)
{
    return got->inv == want->inv && (got->inv >= 0 || !strcmp(got->expect, want->expect)) &&
           (got->invs & want->keep) == want->keep && got->cause == want->cause && got->causes == want->causes;
}

void shrink_failure_text(const shrink_failure *f, char *buf, size_t cap)
{
    if (f->inv < 0) {
        snprintf(buf, cap, "expectation not met: %s", f->expect);
        return;
    }
    char at[32];
    scn_duration_format(f->at_us, at, sizeof at);
    snprintf(buf, cap, "%s violated (first at %s)", scn_invariant_name((scn_invariant)f->inv), at);
}

/* s as scenario text (malloc'd, the caller frees). */
static char *to_text(const scenario *s, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    sim_assert(f != NULL);
    scn_write(f, s);
    fclose(f);
    if (len) *len = n;
    return text;
}

/* A deep copy of src through its text: what a file of it would hold.
 * Returns -1 when the text does not parse (a candidate with a step after
 * the end, a fault naming a client that went). */
static int reparse(const scenario *src, scenario *dst)
{
    char *text = to_text(src, NULL);
    scn_error err;
    int rc = scn_load_string(src->path, text, dst, &err);
    free(text);
    return rc;
}

int shrink_fails_same(const scenario *s, uint64_t seed, const shrink_failure *want, shrink_failure *got)
{
    history h;
    run_result r;
    scn_error err;
    run_opts o = {0};
    hist_init(&h);
    int same = 0;
    if (run_scenario(s, seed, &o, &r, &h, &err) == 0) {
        same = shrink_classify(&r, got) && same_failure(got, want);
        run_result_free(&r);
    }
    hist_free(&h);
    return same;
}

/* Runs s with the seed; 1 when it fails as k->want does. */
static int fails_same(shrinker *k, const scenario *s)
{
    shrink_failure f;
    if (pool_stop_signal()) return 0; /* stopping: keep what is kept */
    k->runs++;
    int same = shrink_fails_same(s, k->seed, &k->want, &f) &&
               (k->o->admit == NULL || k->o->admit(s, &f, k->o->admit_arg));
    if (same) {
        k->last = f;
        k->last.keep = k->want.keep; /* a want of its own (hunt_spare_kinds) */
    }
    return same;
}

/* Does cand's text read back as the same steps, in the same order (the
 * ids follow them)? */
static int same_steps(const scenario *a, const scenario *b)
{
    if (a->nsteps != b->nsteps) return 0;
    for (size_t i = 0; i < a->nsteps; i++)
        if (a->steps[i].op != b->steps[i].op || a->steps[i].at_us != b->steps[i].at_us ||
            a->steps[i].client != b->steps[i].client)
            return 0;
    return 1;
}

/* Tries c (owned): when the admit callback takes it, its text parses and
 * it fails the same way, it replaces *cur (and its ids k's) and 1 is
 * returned; else it is freed and 0 returned. */
static int try_candidate(shrinker *k, scenario *cur, cand *c)
{
    scenario parsed;
    int admitted = k->o->admit == NULL || k->o->admit(&c->s, NULL, k->o->admit_arg);
    k->refused += !admitted;
    int ok = 0;
    uint64_t h = 0;
    if (admitted) {
        size_t len;
        char *text = to_text(&c->s, &len);
        h = XXH3_64bits(text, len) | 1; /* never 0: the empty slot */
        scn_error err;
        if (tried_before(k, h)) k->memo_hits++;
        else ok = scn_load_string(c->s.path, text, &parsed, &err) == 0;
        free(text);
    }
    if (ok) sim_assert(same_steps(&c->s, &parsed)); /* cur is parsed text: the writer keeps the order */
    scn_free(&c->s);
    if (ok && fails_same(k, &parsed)) {
        scn_free(cur);
        *cur = parsed;
        sim_xfree(k->ids);
        k->ids = c->ids;
        return 1;
    }
    if (ok) {
        scn_free(&parsed);
        remember_tried(k, h);
    }
    sim_xfree(c->ids);
    return 0;
}

static void clone(const scenario *s, scenario *out)
{
    sim_assert(reparse(s, out) == 0);
}

/* A candidate that starts as a copy of cur. */
static void start(const shrinker *k, const scenario *cur, cand *c)
{
    clone(cur, &c->s);
    c->ids = sim_xcalloc(cur->nsteps + 1, sizeof *c->ids);
    memcpy(c->ids, k->ids, cur->nsteps * sizeof *c->ids);
}

/* ----------------------------------------------------------- anchors */

/* Do two lock steps name the same lock of the same thread, in the same mode? */
static int same_hold(const scn_step *a, const scn_step *b)
{
    return a->client == b->client && a->thread == b->thread && a->lock == b->lock && a->mode == b->mode;
}

static int is_acquire(const scn_step *st) { return st->op == SCN_OP_LOCK || st->op == SCN_OP_TRYLOCK; }

/* The indexes of s's steps in time order (the list order among equal
 * times): an insertion sort, the steps being few. */
static size_t *time_order(const scenario *s)
{
    size_t *t = sim_xcalloc(s->nsteps + 1, sizeof *t);
    for (size_t i = 0; i < s->nsteps; i++) {
        size_t j = i;
        for (; j > 0 && s->steps[t[j - 1]].at_us > s->steps[i].at_us; j--) t[j] = t[j - 1];
        t[j] = i;
    }
    return t;
}

/* The anchors of s's steps (ids 0..nsteps-1), room for extra ids more.
 * In time order, an unlock takes the latest lock of its hold not taken
 * yet (a depth counter), or else the latest unlock of its hold. */
static void anchor_steps(shrinker *k, const scenario *s, size_t extra)
{
    size_t n = s->nsteps, *t = time_order(s);
    unsigned char *taken = sim_xcalloc(n + 1, 1);
    k->ids_cap = n + extra;
    k->anchor = sim_xcalloc(k->ids_cap + 1, sizeof *k->anchor);
    k->paired = sim_xcalloc(k->ids_cap + 1, sizeof *k->paired);
    k->ids = sim_xcalloc(k->ids_cap + 1, sizeof *k->ids);
    k->nids = n;
    for (size_t i = 0; i < n; i++) k->ids[i] = i, k->anchor[i] = -1;
    for (size_t j = 0; j < n; j++) {
        const scn_step *u = &s->steps[t[j]];
        if (u->op != SCN_OP_UNLOCK) continue;
        int lock = -1, again = -1;
        for (size_t i = j; i-- > 0 && lock < 0;) {
            const scn_step *v = &s->steps[t[i]];
            if (!same_hold(u, v)) continue;
            if (is_acquire(v) && !taken[t[i]]) lock = (int)t[i];
            else if (v->op == SCN_OP_UNLOCK && again < 0) again = (int)t[i];
        }
        if (lock >= 0) taken[lock] = 1;
        k->anchor[t[j]] = lock >= 0 ? lock : again;
        k->paired[t[j]] = lock >= 0;
    }
    sim_xfree(taken);
    sim_xfree(t);
}

/* A new step id without an anchor (a fault the nemesis made). */
static size_t new_id(shrinker *k)
{
    sim_assert(k->nids < k->ids_cap);
    k->anchor[k->nids] = -1;
    k->paired[k->nids] = 0;
    return k->nids++;
}

/* Drops c's steps whose mask byte is set, with them every step whose
 * anchor goes, and the lock of every unlock that goes (the mask is
 * updated: the closure). */
static void drop_steps(const shrinker *k, cand *c, unsigned char *drop)
{
    scenario *s = &c->s;
    unsigned char *kept = sim_xcalloc(k->nids + 1, 1);
    for (size_t i = 0; i < s->nsteps; i++) kept[c->ids[i]] = !drop[i];
    for (int changed = 1; changed;) { /* anchors come first in time, not in the list: to a fixed point */
        changed = 0;
        for (size_t i = 0; i < s->nsteps; i++) {
            int a = k->anchor[c->ids[i]];
            if (a < 0) continue;
            if (!drop[i] && !kept[a]) { /* its anchor went: it goes */
                drop[i] = 1;
                kept[c->ids[i]] = 0;
                changed = 1;
            } else if (drop[i] && k->paired[c->ids[i]] && kept[a]) { /* an unlock went: its lock goes */
                for (size_t j = 0; j < s->nsteps; j++)
                    if (c->ids[j] == (size_t)a) drop[j] = 1;
                kept[a] = 0;
                changed = 1;
            }
        }
    }
    sim_xfree(kept);
    size_t n = 0;
    for (size_t i = 0; i < s->nsteps; i++)
        if (!drop[i]) s->steps[n] = s->steps[i], c->ids[n++] = c->ids[i];
    s->nsteps = n;
}

/* ------------------------------------------------------------- ddmin */

typedef int step_pred(const scn_step *st);
static int is_fault(const scn_step *st) { return scn_op_is_fault(st->op); }
static int is_op(const scn_step *st) { return !scn_op_is_fault(st->op); }

/* Does cur without the candidate lines outside keep[0..nkeep) fail? */
static int ddmin_test(shrinker *k, scenario *cur, step_pred *pred, const size_t *keep, size_t nkeep)
{
    cand c;
    start(k, cur, &c); /* cur is parsed text: its steps keep their order */
    sim_assert(c.s.nsteps == cur->nsteps);
    unsigned char *drop = sim_xcalloc(c.s.nsteps + 1, 1);
    for (size_t i = 0; i < c.s.nsteps; i++) drop[i] = pred(&c.s.steps[i]);
    for (size_t j = 0; j < nkeep; j++) drop[keep[j]] = 0;
    drop_steps(k, &c, drop);
    sim_xfree(drop);
    return try_candidate(k, cur, &c);
}

/* Zeller's ddmin over the lines of cur that pred picks: on return cur
 * keeps a 1-minimal set of them (removing any one more line makes it pass
 * or fail another way). Returns how many lines went. */
static size_t ddmin(shrinker *k, scenario *cur, step_pred *pred)
{
    size_t before = 0, n = 2;
    for (size_t i = 0; i < cur->nsteps; i++) before += (size_t)pred(&cur->steps[i]);
    if (before == 0) return 0;
    if (ddmin_test(k, cur, pred, NULL, 0)) return before;
    for (;;) {
        /* The candidate lines of cur, as indexes into its steps. */
        size_t m = 0, *c = sim_xcalloc(cur->nsteps + 1, sizeof *c);
        for (size_t i = 0; i < cur->nsteps; i++)
            if (pred(&cur->steps[i])) c[m++] = i;
        if (m < 2) {
            sim_xfree(c);
            break;
        }
        if (n > m) n = m;
        size_t chunk = (m + n - 1) / n, *sub = sim_xcalloc(m + 1, sizeof *sub);
        int reduced = 0;
        for (size_t part = 0; part < n && !reduced; part++) { /* a subset alone */
            size_t lo = part * chunk, hi = lo + chunk < m ? lo + chunk : m;
            if (lo >= hi) continue;
            if (ddmin_test(k, cur, pred, c + lo, hi - lo)) reduced = 1, n = 2;
        }
        for (size_t part = 0; part < n && !reduced && n > 2; part++) { /* its complement */
            size_t lo = part * chunk, hi = lo + chunk < m ? lo + chunk : m, ns = 0;
            for (size_t j = 0; j < m; j++)
                if (j < lo || j >= hi) sub[ns++] = c[j];
            if (ddmin_test(k, cur, pred, sub, ns)) reduced = 1, n = n - 1 > 2 ? n - 1 : 2;
        }
        sim_xfree(sub);
        sim_xfree(c);
        if (!reduced) {
            if (n >= m) break;
            n = 2 * n < m ? 2 * n : m;
        }
    }
    size_t after = 0;
    for (size_t i = 0; i < cur->nsteps; i++) after += (size_t)pred(&cur->steps[i]);
    return before - after;
}

/* The lines of cur that pred picks, each tried alone without it, the
 * last first: a pass that keeps what ddmin left 1-minimal after other
 * steps made some line unneeded (len(lines) runs, where ddmin would
 * run its subsets again). Returns how many lines went. */
static size_t drop_each(shrinker *k, scenario *cur, step_pred *pred)
{
    size_t gone = 0;
    for (size_t i = cur->nsteps; i-- > 0;) {
        if (i >= cur->nsteps || !pred(&cur->steps[i])) continue;
        size_t before = cur->nsteps;
        cand c;
        start(k, cur, &c);
        unsigned char *drop = sim_xcalloc(c.s.nsteps + 1, 1);
        drop[i] = 1;
        drop_steps(k, &c, drop);
        sim_xfree(drop);
        if (try_candidate(k, cur, &c)) gone += before - cur->nsteps;
    }
    return gone;
}

/* ----------------------------------------------------------- clients */

/* In a comma list of endpoints, is client c named? Renumbers the clients
 * above c down by one (into buf) when it is not. */
static int list_drop_client(char *list, size_t cap, int c)
{
    char out[160] = "", *save = NULL, copy[160];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        long n = t[0] == 'c' ? strtol(t + 1, &end, 10) : 0;
        int is_c = t[0] == 'c' && end != t + 1 && *end == '\0';
        if (is_c && n == c) return 1;
        char tok[32];
        if (is_c && n > c) snprintf(tok, sizeof tok, "c%ld", n - 1);
        else snprintf(tok, sizeof tok, "%s", t);
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "%s%s", len ? "," : "", tok);
    }
    snprintf(list, cap, "%s", out);
    return 0;
}

/* cd's scenario without client c: its lines go, the clients above it
 * move down (the anchors of a client's lines are its own). */
static void remove_client(const shrinker *k, cand *cd, int c)
{
    scenario *s = &cd->s;
    unsigned char *drop = sim_xcalloc(s->nsteps + 1, 1);
    for (size_t i = 0; i < s->nsteps; i++) {
        scn_step *st = &s->steps[i];
        drop[i] = st->client == c || list_drop_client(st->side_a, sizeof st->side_a, c) ||
                  list_drop_client(st->side_b, sizeof st->side_b, c) ||
                  list_drop_client(st->link_a, sizeof st->link_a, c) ||
                  list_drop_client(st->link_b, sizeof st->link_b, c);
        if (st->client > c) st->client--;
    }
    drop_steps(k, cd, drop);
    sim_xfree(drop);
    if (c <= s->clients) s->clients--;
}

static int max_client(const scenario *s)
{
    int n = s->clients;
    for (size_t i = 0; i < s->nsteps; i++)
        if (!scn_op_is_fault(s->steps[i].op) && s->steps[i].client > n) n = s->steps[i].client;
    return n;
}

static int shrink_clients(shrinker *k, scenario *cur)
{
    int removed = 0;
    for (int c = max_client(cur); c >= 1; c--) {
        cand cd;
        start(k, cur, &cd);
        remove_client(k, &cd, c);
        removed += try_candidate(k, cur, &cd);
    }
    return removed;
}

static int shrink_threads(shrinker *k, scenario *cur)
{
    int removed = 0;
    while (cur->threads > 1) {
        cand c;
        start(k, cur, &c);
        c.s.threads--;
        if (!try_candidate(k, cur, &c)) break;
        removed++;
    }
    return removed;
}

/* ---------------------------------------------------------- duration */

/* Ends c's run at d: its steps after d go (and what they anchor). */
static void end_at(const shrinker *k, cand *c, int64_t d)
{
    c->s.duration_us = d;
    unsigned char *drop = sim_xcalloc(c->s.nsteps + 1, 1);
    for (size_t i = 0; i < c->s.nsteps; i++) drop[i] = c->s.steps[i].at_us > d;
    drop_steps(k, c, drop);
    sim_xfree(drop);
}

static int try_duration(shrinker *k, scenario *cur, int64_t d)
{
    cand c;
    start(k, cur, &c);
    end_at(k, &c, d);
    return try_candidate(k, cur, &c);
}

/* How far past the first violation the shrink's first cut ends the run:
 * a candidate whose failure a removal moved a few seconds later still
 * counts (cut just past it, ddmin kept more clients and faults: the
 * failure of a candidate could not move), and every candidate runs only
 * about as long as it must. */
#define SHRINK_CUT_SLACK_US SIM_SEC(5)

/* slack past the first violation of the last failure kept, rounded up to
 * the next whole second; INT64_MAX when it has none (an expectation
 * missed). */
static int64_t cut_past(const shrinker *k, int64_t slack_us)
{
    int64_t at = k->last.at_us;
    return at >= 0 ? ((at + slack_us) / SIM_SEC(1) + 1) * SIM_SEC(1) : INT64_MAX;
}

/* The early cut (SHRINK_CUT_SLACK_US past the violation), where it ends
 * cur sooner: 1 when that still fails the same way. */
static int try_early_cut(shrinker *k, scenario *cur)
{
    int64_t cut = cut_past(k, SHRINK_CUT_SLACK_US);
    return cut < cur->duration_us && try_duration(k, cur, cut);
}

static void shrink_duration(shrinker *k, scenario *cur)
{
    while (cur->duration_us >= SIM_MS(2) && try_duration(k, cur, cur->duration_us / 2)) {
    }
    int64_t cut = cut_past(k, 0);
    if (cut < cur->duration_us) try_duration(k, cur, cut);
}

/* ----------------------------------------------------- distributions */

/* cur with the distributions at offsets offs[0..n) made constant (a..b
 * -> a, exp(m) -> m). */
static int try_consts(shrinker *k, scenario *cur, const size_t *offs, size_t n)
{
    cand c;
    start(k, cur, &c);
    for (size_t i = 0; i < n; i++) {
        scn_dist *d = (scn_dist *)((char *)&c.s + offs[i]);
        *d = (scn_dist){SCN_DIST_CONST, d->a_us, d->a_us};
    }
    return try_candidate(k, cur, &c);
}

static int shrink_dists(shrinker *k, scenario *cur)
{
    size_t offs[] = {offsetof(scenario, latency),          offsetof(scenario, replication_lag),
                     offsetof(scenario, hold),             offsetof(scenario, think),
                     offsetof(scenario, start),            offsetof(scenario, acquire_permits),
                     offsetof(scenario, lend_permits),     offsetof(scenario, nemesis_interval),
                     offsetof(scenario, nemesis_duration), offsetof(scenario, nemesis_jump),
                     offsetof(scenario, listener_gap)};
    size_t n = sizeof offs / sizeof offs[0], loose[sizeof offs / sizeof offs[0]], m = 0;
    for (size_t i = 0; i < n; i++) {
        const scn_dist *d = (const scn_dist *)((const char *)cur + offs[i]);
        int nemesis = offs[i] == offsetof(scenario, nemesis_interval) || offs[i] == offsetof(scenario, nemesis_duration) ||
                      offs[i] == offsetof(scenario, nemesis_jump);
        if (d->kind != SCN_DIST_CONST && !(nemesis && !cur->nemesis))
            loose[m++] = offs[i];
    }
    /* All at once first (one run, where that fails the same way), then
     * one at a time. */
    int made = 0;
    if (m > 1 && try_consts(k, cur, loose, m)) made = (int)m;
    else
        for (size_t i = 0; i < m; i++) made += try_consts(k, cur, &loose[i], 1);
    /* A listener gap that no async wait needs goes (it reads as one). */
    if (!(cur->listener_gap.kind == SCN_DIST_CONST && cur->listener_gap.a_us == 0)) {
        cand c;
        start(k, cur, &c);
        c.s.listener_gap = (scn_dist){SCN_DIST_CONST, 0, 0};
        made += try_candidate(k, cur, &c);
    }
    return made;
}

/* ----------------------------------------------------------- the steps */

static size_t count(const scenario *s, step_pred *pred)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nsteps; i++) n += (size_t)pred(&s->steps[i]);
    return n;
}

size_t shrink_fault_lines(const scenario *s)
{
    return count(s, is_fault);
}

size_t shrink_step_lines(const scenario *s)
{
    return count(s, is_op);
}

int shrink_clients_of(const scenario *s)
{
    return max_client(s);
}

/* Is one of v[0..n) a fault line the caller cannot use (shrink_opts.
 * unwanted) that starts no later than the first violation (a later one,
 * the duration's cut may still drop)? keeps_unwanted: of cur's lines. */
static int unwanted_before(const shrinker *k, const scn_step *v, size_t n)
{
    int64_t by = k->last.at_us >= 0 ? k->last.at_us : INT64_MAX;
    for (size_t i = 0; k->o->unwanted && i < n; i++)
        if (is_fault(&v[i]) && v[i].at_us <= by && k->o->unwanted(&v[i], k->o->admit_arg)) return 1;
    return 0;
}

static int keeps_unwanted(const shrinker *k, const scenario *cur)
{
    return unwanted_before(k, cur->steps, cur->nsteps);
}

/* cur with the nemesis's faults gen[0..ngen) as [faults] lines (ids[i]
 * the id of gen[i]), those after until_us left out and the run ended
 * there when it is earlier than cur's end. */
static int try_explicit(shrinker *k, scenario *cur, const scn_step *gen, const size_t *ids, size_t ngen,
                        int64_t until_us)
{
    cand c;
    start(k, cur, &c);
    scenario *s = &c.s;
    s->nemesis = 0;
    int64_t end = until_us < s->duration_us ? until_us : s->duration_us;
    c.ids = sim_xrealloc(c.ids, (s->nsteps + ngen + 1) * sizeof *c.ids);
    for (size_t i = 0; i < ngen; i++) {
        if (gen[i].at_us > end) continue;
        if (s->nsteps == s->steps_cap) {
            s->steps_cap = s->steps_cap ? s->steps_cap * 2 : 16;
            s->steps = sim_xrealloc(s->steps, s->steps_cap * sizeof *s->steps);
        }
        c.ids[s->nsteps] = ids[i];
        scn_step *st = &s->steps[s->nsteps++];
        *st = gen[i];
        st->generated = 0;
        st->line = 0;
    }
    end_at(k, &c, end);
    return try_candidate(k, cur, &c);
}

/* a. The nemesis's faults as [faults] lines; those after the end of the
 * run (restarts in the drain) cannot be written and go. Tried first with
 * the run cut just past the first violation (what comes after it cannot
 * have caused it): every later candidate then runs only as long as it
 * must. 1 when the explicit lines fail the same way. */
static int make_explicit(shrinker *k, scenario *cur, const scn_step *gen, size_t ngen, size_t *late)
{
    *late = 0;
    if (!cur->nemesis) return 0;
    size_t *ids = sim_xcalloc(ngen + 1, sizeof *ids);
    for (size_t i = 0; i < ngen; i++) {
        if (gen[i].at_us > cur->duration_us) (*late)++;
        else ids[i] = new_id(k);
    }
    /* Not while it has lines the caller cannot use before the violation:
     * without them it may fail later, and need lines after the cut. */
    int64_t cut = unwanted_before(k, gen, ngen) ? INT64_MAX : cut_past(k, SHRINK_CUT_SLACK_US);
    int ok = (cut < cur->duration_us && try_explicit(k, cur, gen, ids, ngen, cut)) ||
             try_explicit(k, cur, gen, ids, ngen, INT64_MAX);
    sim_xfree(ids);
    return ok;
}

/* The first run of the input: 1 when it fails (how in k->want), 0 when
 * not, -1 when it cannot run (err). The nemesis's faults go to *gen. */
static int first_run(shrinker *k, const scenario *s, size_t *ngen, scn_step **gen, scn_error *err)
{
    history h;
    run_result r;
    run_opts o = {0};
    hist_init(&h);
    k->runs++;
    if (run_scenario(s, k->seed, &o, &r, &h, err) != 0) {
        hist_free(&h);
        return -1;
    }
    int fails = shrink_classify(&r, &k->want);
    k->want.keep = k->same ? k->want.invs : k->o->keep;
    if ((k->want.invs & k->want.keep) != k->want.keep) fails = 0; /* it does not break them to begin with */
    k->last = k->want;
    *ngen = r.ngenerated;
    *gen = r.generated; /* taken over */
    r.generated = NULL;
    run_result_free(&r);
    hist_free(&h);
    return fails;
}


/* cur without every fault line the caller cannot use (shrink_opts.
 * unwanted), all at once: 1 when that still fails the same way (cur is
 * now it). ddmin's result is 1-minimal only: two such lines may each be
 * needed and still go together. */
static int without_unwanted(shrinker *k, scenario *cur)
{
    cand c;
    start(k, cur, &c);
    unsigned char *drop = sim_xcalloc(c.s.nsteps + 1, 1);
    for (size_t i = 0; i < c.s.nsteps; i++)
        drop[i] = (unsigned char)(is_fault(&c.s.steps[i]) && k->o->unwanted(&c.s.steps[i], k->o->admit_arg));
    drop_steps(k, &c, drop);
    sim_xfree(drop);
    return try_candidate(k, cur, &c);
}

/* Steps a to e on cur, what each did into *st. */
static void shrink_all(shrinker *k, scenario *cur, const scn_step *gen, size_t ngen, shrink_stats *st)
{
    st->faults0 = count(cur, is_fault);
    st->ops0 = count(cur, is_op);
    st->clients0 = max_client(cur);
    st->threads0 = cur->threads;
    st->had_nemesis = cur->nemesis;
    st->duration0_us = cur->duration_us;
    st->generated = ngen;
    st->explicit_ok = make_explicit(k, cur, gen, ngen, &st->late);
    /* A scenario of explicit lines is cut as the nemesis's is above. */
    if (!st->had_nemesis) try_early_cut(k, cur);
    st->faults_a = count(cur, is_fault);
    /* Lines the caller cannot use all go first if they can (ddmin may
     * take a path that keeps some of them needed); else after the rounds. */
    if (keeps_unwanted(k, cur) && without_unwanted(k, cur)) try_early_cut(k, cur);
    /* Clients first: a client that goes takes its lines with it, and
     * every later candidate runs fewer clients. Then ddmin over the
     * fault and step lines; fewer clients can make more lines unneeded:
     * again, a few rounds, each line tried alone (ddmin's subsets were
     * tried in the first). */
    shrink_clients(k, cur);
    for (int round = 0; round < 3; round++) {
        size_t f = round ? drop_each(k, cur, is_fault) : ddmin(k, cur, is_fault);
        size_t o = round ? drop_each(k, cur, is_op) : ddmin(k, cur, is_op);
        int c = shrink_clients(k, cur), t = shrink_threads(k, cur);
        if (f + o + (size_t)c + (size_t)t == 0) break;
    }
    st->faults1 = count(cur, is_fault);
    st->ops1 = count(cur, is_op);
    st->clients1 = max_client(cur);
    st->threads1 = cur->threads;
    st->duration1_us = cur->duration_us;
    /* Fault lines the caller cannot use, before the violation, kept
     * after the rounds and needed together: the last two steps would
     * only make it smaller. */
    if ((st->abandoned = keeps_unwanted(k, cur) && !without_unwanted(k, cur)) != 0) return;
    shrink_duration(k, cur);
    st->duration1_us = cur->duration_us;
    st->dists = shrink_dists(k, cur);
    /* Constant distributions draw other holds and latencies: a line
     * needed before may not be now (each tried alone once more). */
    if (st->dists && drop_each(k, cur, is_fault) + drop_each(k, cur, is_op) > 0) {
        st->faults1 = count(cur, is_fault);
        st->ops1 = count(cur, is_op);
    }
}

static int shrink_drawn(const scenario *s, uint64_t seed, const shrink_opts *o, shrink_result *out, scn_error *err);

int shrink_scenario(const scenario *s, uint64_t seed, const shrink_opts *o, shrink_result *out, scn_error *err)
{
    if (!s->swarm && !(o->flags & SHRINK_SWARM)) return shrink_drawn(s, seed, o, out, err);
    char desc[512];
    scenario *drawn = fault_swarm_draw(s, seed, desc, sizeof desc);
    int rc = shrink_drawn(drawn, seed, o, out, err);
    fault_swarm_free(drawn);
    return rc;
}

/* The shrunk scenario's start: s as text read back (its steps in the
 * writer's order, the anchors' ids), named after s, with the seed. */
static int start_from(shrinker *k, const scenario *s, size_t ngen, scenario *out, scn_error *err)
{
    if (reparse(s, out) != 0) {
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", s->path);
        snprintf(err->msg, sizeof err->msg, "it cannot be written back as scenario text");
        return -1;
    }
    char name[160];
    snprintf(name, sizeof name, "%.100s (shrunk, seed %llu)", s->name, (unsigned long long)k->seed);
    sim_xfree(out->name);
    out->name = sim_xstrdup(name);
    out->seed = k->seed;
    out->has_seed = 1;
    anchor_steps(k, out, ngen);
    return 0;
}

/* Shrinks s, a scenario without swarm testing. */
static int shrink_drawn(const scenario *s, uint64_t seed, const shrink_opts *o, shrink_result *out, scn_error *err)
{
    memset(out, 0, sizeof *out);
    shrinker k = {.seed = seed, .same = (o->flags & SHRINK_SAME_INVARIANTS) != 0 && o->keep == 0, .o = o};
    size_t ngen = 0;
    scn_step *gen = NULL;
    int fails = first_run(&k, s, &ngen, &gen, err);
    out->want = k.want;
    out->stats.runs = k.runs;
    out->stats.generated = ngen;
    if (fails > 0 && start_from(&k, s, ngen, &out->out, err) != 0) fails = -1;
    if (fails <= 0) {
        sim_xfree(gen);
        return fails;
    }
    for (size_t i = 0; i < k.nids; i++) out->stats.anchored += k.anchor[i] >= 0;
    shrink_all(&k, &out->out, gen, ngen, &out->stats);
    out->stats.runs = k.runs;
    out->stats.refused = k.refused;
    out->last = k.last;
    sim_xfree(gen);
    sim_xfree(k.anchor);
    sim_xfree(k.paired);
    sim_xfree(k.ids);
    sim_xfree(k.tried);
    return 1;
}

void shrink_result_free(shrink_result *r)
{
    if (r->out.path || r->out.name) scn_free(&r->out);
    memset(r, 0, sizeof *r);
}
