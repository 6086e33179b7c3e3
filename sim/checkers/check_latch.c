/* check_latch.c — a count-down latch, judged on true time, round by
 * round. The count set comes from the runtime's trySetCount (HOP_SET)
 * and, once the latch has opened, a trySetCount of the workload that set
 * it (HOP_COUNT_SET ok 1) arms it again for a new round. A round is due
 * to open at the earlier of the store's count reaching 0 (HOP_COUNTER)
 * and, in the first round, the ok of the countDown() that completes the
 * count; it stays open until the invoke of the first trySetCount that set
 * (or may have set) a new count and had not answered by then.
 *
 * latch:    no await returns released before as many countDown()s as the
 *           round's count were invoked since it was armed (or were still
 *           running then), unless the latch stood open at some time of
 *           that await before the arming trySetCount answered (it may have
 *           read 0 first): an early opening, a lost or resent countDown, a
 *           failover that lost the count;
 * liveness: no await waits longer than the bound within one time the
 *           latch stood open (a lost ZERO message; a failover that lost
 *           a countDown; a listener added after the message), counting
 *           only the time the awaiter could reach the master: its
 *           impaired periods (impaired.c: cut off, a slow link, the master
 *           down, paused or mid-failover, its process paused) are left
 *           out, and the bound starts again after each. An awaiter with
 *           a command in flight (not waiting on its gate or listener:
 *           HOP_PARK) gets the reply timeout and a retry delay on top of
 *           the bound for a stretch that starts within that time of an
 *           impairment: what it sent into the impairment is resent only
 *           then. */
#include <stdio.h>
#include <string.h>

#include "sim/checkers/checkers_int.h"

typedef struct opening {
    int64_t from_us;  /* due to open */
    int64_t until_us; /* a trySetCount that armed it again was invoked (INT64_MAX: open to the end) */
    int64_t armed_us; /* its ok (INT64_MAX: not known to have set) */
    size_t armer;     /* the ok of the trySetCount whose round opened before it answered (-1: none) */
} opening;

typedef struct arming {
    int64_t inv_us, end_us; /* a trySetCount that set or may have set: its invoke, its end (INT64_MAX: none) */
    int set;                /* it answered 1 */
    size_t end;             /* the index of its end */
} arming;

typedef struct latch {
    int64_t count;      /* the round's count */
    int has_set;
    int64_t invoked;    /* countDown()s invoked since the round was armed */
    int64_t settled;    /* pass 2: countDown()s that surely ran before the trySetCount that sets next */
    int64_t running;    /* pass 2: countDown()s invoked and not answered (a crash leaves them counted) */
    int64_t done;       /* first round: countDown()s that answered ok so far */
    int64_t due_us;     /* the round was due to open (-1: not yet) */
    int first_round;
    int store_open;     /* pass 1: the store's count is 0 or absent (HOP_COUNTER) */
    int64_t zero_us;    /* pass 1: since then */
    opening *open;      /* every time it stood open, in time order */
    size_t nopen, capopen;
    arming *arm;        /* pass 1: the trySetCounts that set or may have set, in invoke order */
    size_t narm, caparm;
} latch;

/* The trySetCount invoked at k set a count (1), may have (-1: it failed or
 * never answered), or did not (0). */
static int sets(const history *hi, const size_t *ends, size_t k)
{
    size_t end = ends[k];
    if (end == (size_t)-1 || hi->ev[end].kind != HIST_OK) return -1;
    return hi->ev[end].value == 1;
}

static void opened(latch *x, int64_t t, size_t armer)
{
    if (x->nopen == x->capopen) {
        x->capopen = x->capopen ? x->capopen * 2 : 4;
        x->open = sim_xrealloc(x->open, x->capopen * sizeof *x->open);
    }
    x->open[x->nopen++] = (opening){t, INT64_MAX, INT64_MAX, armer};
    x->due_us = t;
}

/* Pass 1: when each latch stood open, and the trySetCounts that may have
 * armed it again. */
static void openings(const history *hi, const size_t *ends, const size_t *starts, int nlocks, latch *l)
{
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->lock < 0 || e->lock >= nlocks || e->op == HOP_CRASH) continue;
        latch *x = &l[e->lock];
        if (e->op == HOP_SET && e->aux) {
            x->count += e->value;
            x->has_set = x->first_round = 1;
        }
        if (!x->has_set) continue;
        int set = e->op == HOP_COUNT_SET && e->kind == HIST_INVOKE ? sets(hi, ends, k) : 0;
        if (set != 0) {
            if (x->narm == x->caparm) {
                x->caparm = x->caparm ? x->caparm * 2 : 8;
                x->arm = sim_xrealloc(x->arm, x->caparm * sizeof *x->arm);
            }
            x->arm[x->narm++] =
                (arming){e->t_us, ends[k] == (size_t)-1 ? INT64_MAX : hi->ev[ends[k]].t_us, set == 1, ends[k]};
        }
        int zero = e->op == HOP_COUNTER && (e->aux == 0 || e->value <= 0);
        if (e->op == HOP_COUNTER && zero != x->store_open) {
            x->store_open = zero;
            x->zero_us = e->t_us;
        }
        if (e->op == HOP_COUNT_SET && e->kind == HIST_OK && e->value == 1) {
            x->due_us = -1; /* a new round: due only when the store says 0 */
            x->first_round = 0;
            /* counted down to 0 between the script and its answer */
            if (x->store_open && x->zero_us >= hi->ev[starts[k]].t_us) opened(x, x->zero_us, k);
            continue;
        }
        if (x->due_us >= 0) continue;
        if (x->first_round && e->op == HOP_COUNTDOWN && e->kind == HIST_OK && ++x->done >= x->count) zero = 1;
        if (zero) opened(x, e->t_us, (size_t)-1);
    }
}

/* Where each opening ends: at the first trySetCount that set or may have
 * set and was still running when the latch opened (one invoked before the
 * opening may have run after it: the opening then ends as it began), but
 * the one that armed the round, and is known armed again at the first
 * such one's answer of 1. */
static void closings(int nlocks, latch *l)
{
    for (int lock = 0; lock < nlocks; lock++) {
        latch *x = &l[lock];
        for (size_t i = 0; i < x->nopen; i++) {
            opening *o = &x->open[i];
            for (size_t j = 0; j < x->narm; j++) {
                const arming *a = &x->arm[j];
                if (a->end_us < o->from_us || (a->set && a->end == o->armer)) continue;
                int64_t until = a->inv_us > o->from_us ? a->inv_us : o->from_us;
                if (until < o->until_us) o->until_us = until;
                if (a->set && a->end_us < o->armed_us) o->armed_us = a->end_us;
            }
            sim_assert(o->until_us >= o->from_us && o->armed_us >= o->until_us);
        }
    }
}

/* Was the await invoked at k waiting on its gate or listener at t (its
 * HOP_PARK 1 or 2 not yet ended by a 0)? Its events come after k, in time
 * order: a scan from k to t, done only for a stretch over the bound. */
static int on_gate_at(const history *hi, size_t k, int64_t t)
{
    const hist_event *e = &hi->ev[k];
    int gate = 0;
    for (const hist_event *x = e + 1; x < hi->ev + hi->n && x->t_us <= t; x++)
        if (x->op == HOP_PARK && x->client == e->client && x->inc == e->inc && x->thread == e->thread &&
            x->seq == e->seq)
            gate = x->value != 0;
    return gate;
}

/* What the bound gets on top for the stretch from `from` (the wait, or
 * the opening, began at from0): a command the awaiter sent into an
 * impairment (its GET, or its subscribe) is lost, and the client sends it
 * again only when its reply times out and then a retry delay has passed
 * (Redisson's retryInterval, 1.5 s, or since 3.48 EqualJitter of at most
 * 2 s: command.c's retry_delay): check_resend_grace, the same for every
 * checker; so a stretch that starts within that
 * time of an impairment, while the awaiter is not waiting on its gate or
 * listener, gets it. One waiting on its gate has nothing in flight: only
 * a message (or its own timeout) wakes it, and a lost message is what
 * the check looks for. */
static int64_t resend_grace(const history *hi, size_t k, const check_input *in, int64_t from0, int64_t from)
{
    int64_t grace = check_resend_grace(in);
    if (grace == 0) return 0;
    const hist_event *e = &hi->ev[k];
    /* Only what it sent in its own wait (check_impaired_in_grace). */
    int after = from > from0 || check_impaired_in_grace(in->impaired, e->client, e->lock, e->t_us, from, grace);
    if (!after || on_gate_at(hi, k, from)) return 0;
    return grace;
}

static void late(const history *hi, const size_t *ends, size_t k, const latch *x, const check_input *in,
                 check_result *r)
{
    const hist_event *e = &hi->ev[k];
    size_t done = ends[k];
    int64_t bound_us = in->liveness_bound_us, to = done == (size_t)-1 ? in->end_us : hi->ev[done].t_us;
    for (size_t i = 0; i < x->nopen; i++) {
        const opening *o = &x->open[i];
        int64_t from0 = e->t_us > o->from_us ? e->t_us : o->from_us;
        int64_t until0 = to < o->until_us ? to : o->until_us;
        if (from0 >= to) break; /* the openings after the wait */
        if (until0 - from0 <= bound_us) continue;
        /* Only the stretches the awaiter could reach the master count. */
        int64_t t = from0, from, until;
        while (check_impaired_next(in->impaired, e->client, e->lock, &t, until0, &from, &until)) {
            if (until - from <= bound_us + resend_grace(hi, k, in, from0, from)) continue;
            char why[200];
            check_impaired_told(in->impaired, e->client, e->lock, from0, until0, why, sizeof why);
            check_violation *v = check_violate(
                r, SCN_INV_LIVENESS, from + bound_us, done == (size_t)-1 ? hi->n - 1 : done,
                "c%d.t%d %s %lldms after %s was due to open at %lld.%03llds (bound %lldms)%s", e->client, e->thread,
                done == (size_t)-1 && until == to ? "still waited" : "waited", (long long)((until - from) / 1000),
                in->names[e->lock], (long long)(o->from_us / 1000000), (long long)(o->from_us / 1000 % 1000),
                (long long)(bound_us / 1000), why);
            if (v != NULL) v->cause |= check_wait_shape(hi, ends, k, from);
            return;
        }
    }
}

/* 1 when the latch stood open at some time of [a, b] in a round a
 * trySetCount ended (until it answered: the await may have read the count
 * before it ran). An opening of the await's own round does not count: an
 * early one is what the check is for. */
static int open_before_armed(const latch *x, int64_t a, int64_t b)
{
    for (size_t i = 0; i < x->nopen; i++)
        if (x->open[i].armed_us != INT64_MAX && x->open[i].from_us <= b && x->open[i].armed_us >= a) return 1;
    return 0;
}

/* The invoke of the operation that ended at each event (itself when
 * none). malloc'd. */
static size_t *op_starts(const history *hi, const size_t *ends)
{
    size_t *starts = sim_xmalloc((hi->n + 1) * sizeof *starts);
    for (size_t j = 0; j < hi->n; j++) starts[j] = j;
    for (size_t j = 0; j < hi->n; j++)
        if (ends[j] != (size_t)-1) starts[ends[j]] = j;
    return starts;
}

void check_latch(const history *hi, const check_holds *hs, const check_input *in, check_result *r)
{
    int nlocks = in->nlocks;
    char *const *names = in->names;
    static const scn_invariant mine[] = {SCN_INV_LATCH, SCN_INV_LIVENESS};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++) {
        r->checked[mine[i]] = 1;
        if (r->verdict[mine[i]] != CHECK_VIOLATED) r->verdict[mine[i]] = CHECK_HELD;
    }
    if (nlocks <= 0) return;
    latch *l = sim_xcalloc((size_t)nlocks, sizeof *l);
    for (int i = 0; i < nlocks; i++) l[i].due_us = -1;
    size_t *ends = hist_op_ends(hi), *starts = op_starts(hi, ends);
    openings(hi, ends, starts, nlocks, l);
    closings(nlocks, l);
    for (size_t k = 0; k < hi->n; k++) {
        const hist_event *e = &hi->ev[k];
        if (e->lock < 0 || e->lock >= nlocks || e->op == HOP_CRASH) continue;
        latch *x = &l[e->lock];
        if (e->op == HOP_COUNTDOWN && e->kind == HIST_INVOKE) x->invoked++, x->running++;
        if (e->op == HOP_COUNTDOWN && e->kind != HIST_INVOKE) x->running--;
        /* A new round counts the countDown()s invoked since the
         * trySetCount that set it was, and those still running then (they
         * may have run after it). */
        if (e->op == HOP_COUNT_SET && e->kind == HIST_INVOKE && sets(hi, ends, k) == 1)
            x->settled = x->invoked - x->running;
        if (e->op == HOP_COUNT_SET && e->kind == HIST_OK && e->value == 1) {
            x->invoked -= x->settled;
            x->count = e->n;
        }
        if (e->op != HOP_AWAIT) continue;
        if (e->kind == HIST_INVOKE) late(hi, ends, k, x, in, r);
        else if (e->kind == HIST_OK && e->value == 1 && x->has_set && x->invoked < x->count &&
                 !open_before_armed(x, hi->ev[starts[k]].t_us, e->t_us))
            check_violate(r, SCN_INV_LATCH, e->t_us, k,
                          "c%d.t%d's await returned released after %lld of %lld countDown()s of %s", e->client,
                          e->thread, (long long)x->invoked, (long long)x->count, names[e->lock]);
    }
    for (int i = 0; i < nlocks; i++) {
        sim_xfree(l[i].open);
        sim_xfree(l[i].arm);
    }
    sim_xfree(starts);
    sim_xfree(ends);
    sim_xfree(l);
}
