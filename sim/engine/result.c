/* result.c — a run's figures and judgement: acquire latency quantiles,
 * Jain's fairness index, and the expectations judged against the
 * verdicts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/run.h"
#include "sim/kernel/ut.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct open_op {
    UT_hash_handle hh;
    uint64_t seq;
    int64_t t_us;
} open_op;

void run_latency(const history *h, run_result *r)
{
    int64_t *lat = NULL;
    size_t n = 0, cap = 0;
    open_op *open = NULL, *o, *tmp;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op != HOP_ACQUIRE) continue;
        if (e->kind == HIST_INVOKE) {
            o = sim_xcalloc(1, sizeof *o);
            o->seq = e->seq;
            o->t_us = e->t_us;
            HASH_ADD(hh, open, seq, sizeof o->seq, o);
            continue;
        }
        HASH_FIND(hh, open, &e->seq, sizeof e->seq, o);
        if (o == NULL) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            lat = sim_xrealloc(lat, cap * sizeof *lat);
        }
        lat[n++] = e->t_us - o->t_us;
        HASH_DEL(open, o);
        sim_xfree(o);
    }
    HASH_ITER(hh, open, o, tmp) {
        HASH_DEL(open, o);
        sim_xfree(o);
    }
    r->latency_p50_us = r->latency_p95_us = r->latency_p99_us = r->latency_max_us = 0;
    if (n) {
        qsort(lat, n, sizeof *lat, cmp_i64);
        r->latency_p50_us = lat[(n - 1) / 2];
        r->latency_p95_us = lat[(n - 1) * 95 / 100];
        r->latency_p99_us = lat[(n - 1) * 99 / 100];
        r->latency_max_us = lat[n - 1];
    }
    sim_xfree(lat);
}

/* A thread's successful acquires, keyed by (client, thread). */
typedef struct thread_count {
    UT_hash_handle hh;
    int key[2];
    uint64_t n;
} thread_count;

void run_fairness(const history *h, run_result *r)
{
    thread_count *all = NULL, *c, *tmp;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op != HOP_ACQUIRE || e->kind == HIST_INFO) continue;
        int key[2] = {e->client, e->thread};
        HASH_FIND(hh, all, key, sizeof key, c);
        if (c == NULL) {
            c = sim_xcalloc(1, sizeof *c);
            memcpy(c->key, key, sizeof key);
            HASH_ADD(hh, all, key, sizeof c->key, c);
        }
        c->n += e->kind == HIST_OK;
    }
    double sum = 0, sq = 0;
    unsigned n = 0;
    HASH_ITER(hh, all, c, tmp) { /* insertion order: the same sums on every build */
        sum += (double)c->n;
        sq += (double)c->n * (double)c->n;
        n++;
        HASH_DEL(all, c);
        sim_xfree(c);
    }
    r->fairness_jain = sq > 0 ? sum * sum / ((double)n * sq) : 0;
}

void run_expectations(run_result *r)
{
    const scenario *s = r->s;
    r->expectations_met = 1;
    r->expectation_failure[0] = '\0';
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        scn_expect want = s->expect[i];
        check_verdict got = r->checks.verdict[i];
        int ok = want == SCN_EXPECT_NONE || want == SCN_EXPECT_ANY ||
                 (want == SCN_EXPECT_HELD && got == CHECK_HELD) ||
                 (want == SCN_EXPECT_VIOLATED && got == CHECK_VIOLATED);
        if (!ok && r->expectations_met) {
            r->expectations_met = 0;
            snprintf(r->expectation_failure, sizeof r->expectation_failure,
                     "%s expected %s, was %s", scn_invariant_name((scn_invariant)i),
                     want == SCN_EXPECT_HELD ? "held" : "violated", check_verdict_name(got));
        }
    }
    if (r->expectations_met && s->min_acquisitions && (int64_t)r->acquisitions < s->min_acquisitions) {
        r->expectations_met = 0;
        snprintf(r->expectation_failure, sizeof r->expectation_failure,
                 "min-acquisitions expected %lld, was %llu", (long long)s->min_acquisitions,
                 (unsigned long long)r->acquisitions);
    }
}

