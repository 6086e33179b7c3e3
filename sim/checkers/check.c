/* check.c — checker results: verdicts per invariant and the violations
 * found, each with its true time, a sentence, and the history index of the
 * last event that led there. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers.h"

#define MAX_VIOLATIONS 64

const char *check_verdict_name(check_verdict v)
{
    return v == CHECK_HELD ? "held" : v == CHECK_VIOLATED ? "violated" : "unknown";
}

void check_result_init(check_result *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < SCN_INV_COUNT; i++) r->verdict[i] = CHECK_UNKNOWN;
}

void check_result_free(check_result *r)
{
    sim_xfree(r->v);
    memset(r, 0, sizeof *r);
}

check_violation *check_violate(check_result *r, scn_invariant inv, int64_t t_us, size_t upto, const char *fmt, ...)
{
    r->verdict[inv] = CHECK_VIOLATED;
    if (r->nv >= MAX_VIOLATIONS) return NULL;
    if (r->nv == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->v = sim_xrealloc(r->v, r->cap * sizeof *r->v);
    }
    check_violation *v = &r->v[r->nv++];
    v->inv = inv;
    v->t_us = t_us;
    v->upto = upto;
    v->cause = 0;
    v->from_us = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
    return v;
}
