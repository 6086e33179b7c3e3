/* explore.c — the depth-first explorer behind `locksim check`, and the
 * choice-string replayer (explore.h). A path is the list of alternatives
 * taken at the branching points; each execution re-runs the scenario from
 * the start with a chooser that follows the path, extends it with
 * alternative 0 at new points, and records every value chosen (the choice
 * string). Backtracking moves the deepest point that has an untried
 * alternative to its next one and drops what followed. */
#include "sim/engine/explore.h"

#include <stdlib.h>
#include <string.h>

#include "sim/kernel/host.h"
#include "sim/kernel/ut.h"

typedef struct point {
    uint64_t n;       /* the point's range */
    uint64_t alts;    /* alternatives explored here (1: not branching) */
    uint64_t alt;     /* the one taken on the current path */
} point;

typedef struct explorer {
    const explore_opts *o;
    point *path;
    size_t npath, cap;   /* npath: points fixed by the path so far */
    size_t pos;          /* the next point of this execution */
    size_t div;          /* where this execution leaves the last one's path */
    int fired;           /* fault firings on this execution */
    uint64_t *taken;     /* every value chosen on this execution */
    size_t ntaken, taken_cap;
} explorer;

typedef struct seen_hash {
    uint64_t h;
    UT_hash_handle hh;
} seen_hash;

static uint64_t value_of(const point *p)
{
    return p->alts <= 1 ? 0 : p->alt * (p->n - 1) / (p->alts - 1);
}

static int is_fault(const char *label)
{
    return strncmp(label, "fiu ", 4) == 0;
}

static void take(explorer *x, uint64_t v)
{
    if (x->ntaken == x->taken_cap) {
        x->taken_cap = x->taken_cap ? x->taken_cap * 2 : 64;
        x->taken = sim_xrealloc(x->taken, x->taken_cap * sizeof *x->taken);
    }
    x->taken[x->ntaken++] = v;
}

static uint64_t choose(void *ud, sim_ctx *ctx, uint64_t n, const char *label)
{
    explorer *x = ud;
    size_t i = x->pos++;
    uint64_t v;
    if (i < x->npath) {
        v = value_of(&x->path[i]);
    } else if ((int)i < x->o->depth) {
        if (x->npath == x->cap) {
            x->cap = x->cap ? x->cap * 2 : 32;
            x->path = sim_xrealloc(x->path, x->cap * sizeof *x->path);
        }
        point *p = &x->path[x->npath++];
        p->n = n;
        p->alt = 0;
        p->alts = n < (uint64_t)x->o->branch ? n : (uint64_t)x->o->branch;
        /* The fault budget: once spent, a fault point stays silent (its
         * last value never fires) and does not branch. */
        if (is_fault(label) && x->o->faults >= 0 && x->fired >= x->o->faults) {
            p->alts = 1;
            p->alt = 0;
            v = n - 1;
            take(x, v);
            return v;
        }
        v = value_of(p);
    } else {
        v = sim_choose_seeded(ctx, n, label); /* beyond the depth: a plain run */
    }
    if (is_fault(label) && v == 0) x->fired++;
    take(x, v);
    return v;
}

/* The next path: the deepest point with an untried alternative takes it;
 * the points after it go. 0 when every path was run. */
static int backtrack(explorer *x)
{
    while (x->npath > 0) {
        point *p = &x->path[x->npath - 1];
        if (p->alt + 1 < p->alts) {
            p->alt++;
            x->div = x->npath - 1; /* the points before it are run again */
            return 1;
        }
        x->npath--;
    }
    return 0;
}

static char *choice_string(const explorer *x)
{
    size_t cap = x->ntaken * 21 + 1, len = 0;
    char *s = sim_xmalloc(cap);
    s[0] = '\0';
    for (size_t i = 0; i < x->ntaken; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%llu", i ? "." : "", (unsigned long long)x->taken[i]);
    return s;
}

int explore_run(const scenario *s, uint64_t seed, const explore_opts *o, explore_result *out, FILE *progress,
                scn_error *err)
{
    memset(out, 0, sizeof *out);
    explorer x = {.o = o};
    seen_hash *seen = NULL;
    int64_t t0 = host_mono_us(), last_report = t0;
    int rc = 0;
    for (;;) {
        x.pos = 0;
        x.fired = 0;
        x.ntaken = 0;
        history h;
        run_result r;
        run_opts ro = {.chooser = choose, .chooser_ud = &x, .horizon_us = o->horizon_us};
        hist_init(&h);
        if (run_scenario(s, seed, &ro, &r, &h, err) != 0) {
            hist_free(&h);
            rc = -1;
            break;
        }
        out->runs++;
        out->points += x.ntaken;
        out->states += x.ntaken > x.div ? x.ntaken - x.div : 0;
        seen_hash *e;
        HASH_FIND(hh, seen, &r.trace_hash, sizeof r.trace_hash, e);
        if (e == NULL) {
            e = sim_xcalloc(1, sizeof *e);
            e->h = r.trace_hash;
            HASH_ADD(hh, seen, h, sizeof e->h, e);
            out->outcomes++;
        }
        if (!r.expectations_met) {
            out->failures++;
            if (out->counterexample == NULL) {
                out->counterexample = choice_string(&x);
                out->ce_hash = r.trace_hash;
                snprintf(out->failure, sizeof out->failure, "%s", r.expectation_failure);
            }
        }
        run_result_free(&r);
        hist_free(&h);
        int64_t now = host_mono_us();
        out->seconds = (double)(now - t0) / 1e6;
        if (progress && now - last_report > 2000000) {
            fprintf(progress, "check: %llu executions, %llu distinct outcomes, %llu failing, %.0f/s\n",
                    (unsigned long long)out->runs, (unsigned long long)out->outcomes,
                    (unsigned long long)out->failures, (double)out->runs / out->seconds);
            last_report = now;
        }
        if (o->stop_at_first && out->failures) break;
        if (!backtrack(&x)) {
            out->complete = 1;
            break;
        }
        if ((o->max_runs && out->runs >= o->max_runs) || (o->max_seconds > 0 && out->seconds >= o->max_seconds))
            break;
    }
    seen_hash *e, *tmp;
    HASH_ITER(hh, seen, e, tmp) {
        HASH_DEL(seen, e);
        sim_xfree(e);
    }
    sim_xfree(x.path);
    sim_xfree(x.taken);
    return rc;
}

void explore_result_free(explore_result *r)
{
    sim_xfree(r->counterexample);
    r->counterexample = NULL;
}

/* ------------------------------------------------------------- replay */

int explore_replay_parse(explore_replay *r, const char *str)
{
    memset(r, 0, sizeof *r);
    const char *p = str;
    while (*p) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || (*end && *end != '.')) {
            explore_replay_free(r);
            return -1;
        }
        r->v = sim_xrealloc(r->v, (r->n + 1) * sizeof *r->v);
        r->v[r->n++] = v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

void explore_replay_free(explore_replay *r)
{
    sim_xfree(r->v);
    memset(r, 0, sizeof *r);
}

uint64_t explore_replay_choose(void *ud, sim_ctx *ctx, uint64_t n, const char *label)
{
    explore_replay *r = ud;
    if (r->pos < r->n) {
        uint64_t v = r->v[r->pos++];
        if (v < n) return v;
        r->mismatches++;
    }
    return sim_choose_seeded(ctx, n, label);
}
