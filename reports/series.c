/* series.c — what the pictures of a run show, from its history: holds
 * and shares per thread (counted as the checkers count them), waits with
 * their outcome, instant marks, and the fault windows of the scenario's
 * and the nemesis's fault lines. Observes the history; changes nothing.
 *
 * Invariant: a thread has at most one open hold per (lock, side) (depth
 * counts reentries), any number of open shares (one per acquire(n)) and
 * at most one open wait (by operation sequence number). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"

/* ------------------------------------------------------------- spans */

/* An open hold: depth per (client, inc, thread, lock, side). */
typedef struct open_hold {
    int client, inc, thread, lock, mode;
    int64_t depth;
    size_t span; /* index in rs->spans */
} open_hold;

typedef struct builder {
    report_series *rs;
    open_hold *holds;
    size_t nholds, holds_cap;
    int64_t end_us;
} builder;

static size_t add_span(report_series *rs, const report_span *sp)
{
    if (rs->nspans == rs->spans_cap) {
        rs->spans_cap = rs->spans_cap ? rs->spans_cap * 2 : 256;
        rs->spans = sim_xrealloc(rs->spans, rs->spans_cap * sizeof *rs->spans);
    }
    rs->spans[rs->nspans] = *sp;
    return rs->nspans++;
}

static int same_thread(const open_hold *o, const hist_event *e)
{
    return o->client == e->client && o->inc == e->inc && o->thread == e->thread;
}

static void close_hold(builder *b, size_t i, int64_t t_us)
{
    b->rs->spans[b->holds[i].span].to_us = t_us;
    b->holds[i] = b->holds[--b->nholds];
}

static open_hold *find_hold(builder *b, const hist_event *e, int mode)
{
    for (size_t i = 0; i < b->nholds; i++)
        if (same_thread(&b->holds[i], e) && b->holds[i].lock == e->lock && b->holds[i].mode == mode &&
            b->rs->spans[b->holds[i].span].kind != REPORT_WAIT)
            return &b->holds[i];
    return NULL;
}

/* Starts a span for e and remembers it open (depth 1). */
static void open_span(builder *b, const hist_event *e, report_span_kind kind, int mode)
{
    report_span sp = {.kind = kind, .client = e->client, .thread = e->thread, .lock = e->lock,
                      .mode = e->mode, .n = e->n, .from_us = e->t_us, .to_us = b->end_us,
                      .outcome = REPORT_UNFINISHED, .acquire = e->op == HOP_ACQUIRE};
    if (b->nholds == b->holds_cap) {
        b->holds_cap = b->holds_cap ? b->holds_cap * 2 : 16;
        b->holds = sim_xrealloc(b->holds, b->holds_cap * sizeof *b->holds);
    }
    b->holds[b->nholds++] = (open_hold){e->client, e->inc, e->thread, e->lock, mode, 1, add_span(b->rs, &sp)};
}

/* Ends the open wait of e's thread on e's lock with e's outcome. */
static void end_wait(builder *b, const hist_event *e)
{
    for (size_t i = 0; i < b->nholds; i++) {
        report_span *sp = &b->rs->spans[b->holds[i].span];
        if (!same_thread(&b->holds[i], e) || sp->kind != REPORT_WAIT || sp->lock != e->lock) continue;
        sp->outcome = e->kind == HIST_OK && (e->op != HOP_AWAIT || e->value) ? REPORT_ACQUIRED
                      : e->err && !strcmp(e->err, "not acquired")          ? REPORT_TIMED_OUT
                      : e->op == HOP_AWAIT && e->kind == HIST_OK           ? REPORT_TIMED_OUT
                                                                           : REPORT_ERROR;
        close_hold(b, i, e->t_us);
        return;
    }
}

static void on_acquired(builder *b, const hist_event *e)
{
    if (e->n > 0) { /* a semaphore's acquire(n): a share of its own */
        open_span(b, e, REPORT_HOLD_SHARED, -1);
        return;
    }
    open_hold *o = find_hold(b, e, e->mode);
    if (o) o->depth++;
    else open_span(b, e, e->mode == SCN_RW_READ ? REPORT_HOLD_SHARED : REPORT_HOLD, e->mode);
}

static void on_release(builder *b, const hist_event *e)
{
    if (e->n > 0) { /* release(n): the thread's oldest share of n permits, else its oldest */
        size_t best = (size_t)-1;
        for (size_t i = 0; i < b->nholds; i++) {
            const open_hold *o = &b->holds[i];
            if (!same_thread(o, e) || o->lock != e->lock || o->mode != -1) continue;
            if (best == (size_t)-1 || (b->rs->spans[o->span].n == e->n && b->rs->spans[b->holds[best].span].n != e->n))
                best = i;
        }
        if (best != (size_t)-1) close_hold(b, best, e->t_us);
        return;
    }
    open_hold *o = find_hold(b, e, e->mode);
    if (o && --o->depth <= 0) close_hold(b, (size_t)(o - b->holds), e->t_us);
}

static void on_event(builder *b, const hist_event *e)
{
    switch (e->op) {
    case HOP_CRASH: /* the process's holds and waits end with it */
        for (size_t i = b->nholds; i-- > 0;)
            if (b->holds[i].client == e->client && b->holds[i].inc == e->inc) close_hold(b, i, e->t_us);
        break;
    case HOP_ACQUIRE:
    case HOP_AWAIT:
        if (e->kind == HIST_INVOKE) open_span(b, e, REPORT_WAIT, -2);
        else if (e->kind != HIST_INFO) {
            end_wait(b, e);
            if (e->op == HOP_ACQUIRE && e->kind == HIST_OK) on_acquired(b, e);
        }
        break;
    case HOP_RELEASE:
        if (e->kind == HIST_INVOKE) on_release(b, e);
        break;
    case HOP_FORCE_UNLOCK:
        if (e->kind == HIST_OK)
            for (size_t i = b->nholds; i-- > 0;)
                if (same_thread(&b->holds[i], e) && b->holds[i].lock == e->lock && b->holds[i].mode != -2)
                    close_hold(b, i, e->t_us);
        break;
    case HOP_COUNTDOWN:
        if (e->kind == HIST_OK) {
            report_span sp = {.kind = REPORT_MARK, .client = e->client, .thread = e->thread, .lock = e->lock,
                              .from_us = e->t_us, .to_us = e->t_us, .outcome = REPORT_ACQUIRED};
            add_span(b->rs, &sp);
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ faults */

/* The one client a fault line acts on: client=N, or a partition of one
 * client from the rest; 0 otherwise. */
static int fault_client(const scn_step *st)
{
    int c, n = 0;
    if (st->node[0] == '\0' && st->client > 0) return st->client;
    if (st->op == SCN_FAULT_PARTITION && sscanf(st->side_a, "c%d%n", &c, &n) == 1 && st->side_a[n] == '\0')
        return c;
    return 0;
}

static void add_fault(report_series *rs, int64_t from, int64_t to, const char *kind, const char *line, int client)
{
    if (rs->nfaults == rs->faults_cap) {
        rs->faults_cap = rs->faults_cap ? rs->faults_cap * 2 : 16;
        rs->faults = sim_xrealloc(rs->faults, rs->faults_cap * sizeof *rs->faults);
    }
    report_fault *f = &rs->faults[rs->nfaults++];
    f->from_us = from;
    f->to_us = to < from ? from : to;
    f->kind = kind;
    f->client = client;
    const char *eq = strstr(line, "at = ");
    const char *rest = eq ? strchr(eq + 5, ' ') : NULL; /* after "at = T " */
    snprintf(f->label, sizeof f->label, "%s", rest ? rest + 1 : line);
}

/* The same target: the node, or the client. */
static int same_target(const scn_step *a, const scn_step *b)
{
    return a->node[0] ? !strcmp(a->node, b->node) : !b->node[0] && a->client == b->client;
}

/* When the fault of line st stops acting: the next restart of what
 * crashed, the next heal of a partition, the end of a for= window, or
 * the end of the run. */
static int64_t fault_end(const scn_step *st, const scn_step *const *all, size_t n, int64_t end_us)
{
    if (st->for_us > 0 && st->op != SCN_FAULT_CRASH) return st->at_us + st->for_us;
    scn_op until = st->op == SCN_FAULT_CRASH ? SCN_FAULT_RESTART : st->op == SCN_FAULT_PARTITION ? SCN_FAULT_HEAL
                                                                                                 : SCN_OP_COUNT;
    int64_t best = end_us;
    for (size_t i = 0; i < n; i++) {
        const scn_step *x = all[i];
        if (x->op != until || x->at_us < st->at_us || x->at_us >= best) continue;
        if (until == SCN_FAULT_RESTART && !same_target(st, x)) continue;
        best = x->at_us;
    }
    return best;
}

static const char *fault_kind(scn_op op)
{
    switch (op) {
    case SCN_FAULT_PAUSE: return "pause";
    case SCN_FAULT_CRASH: return "crash";
    case SCN_FAULT_CLOCK: return "clock";
    case SCN_FAULT_PARTITION: return "partition";
    case SCN_FAULT_FAILOVER: return "failover";
    case SCN_FAULT_DISCONNECT: return "disconnect";
    case SCN_FAULT_RESTART: return "restart";
    default: return "network"; /* delay, drop, drop-reply, drop-pubsub, fiu */
    }
}

static int by_time(const void *a, const void *b)
{
    const scn_step *x = *(const scn_step *const *)a, *y = *(const scn_step *const *)b;
    if (x->at_us != y->at_us) return x->at_us < y->at_us ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: the scenario's lines, then the nemesis's */
}

static void build_faults(report_series *rs, const scenario *s, const scn_step *gen, size_t ngen, int64_t end_us)
{
    size_t n = 0;
    const scn_step **all = sim_xcalloc(s->nsteps + ngen + 1, sizeof *all);
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].op >= SCN_FIRST_FAULT) all[n++] = &s->steps[i];
    for (size_t i = 0; i < ngen; i++) all[n++] = &gen[i];
    qsort(all, n, sizeof *all, by_time);
    for (size_t i = 0; i < n; i++) {
        const scn_step *st = all[i];
        if (st->op == SCN_FAULT_HEAL || st->at_us > end_us) continue;
        /* A restart that ends a crash window is drawn by that window. */
        int ends_crash = 0;
        for (size_t j = 0; st->op == SCN_FAULT_RESTART && j < i; j++)
            ends_crash |= all[j]->op == SCN_FAULT_CRASH && same_target(all[j], st);
        if (ends_crash) continue;
        int instant = st->op == SCN_FAULT_CLOCK || st->op == SCN_FAULT_FAILOVER || st->op == SCN_FAULT_DISCONNECT ||
                      st->op == SCN_FAULT_RESTART;
        char line[256];
        scn_step_format(st, s, line, sizeof line);
        add_fault(rs, st->at_us, instant ? st->at_us : fault_end(st, all, n, end_us), fault_kind(st->op), line,
                  fault_client(st));
    }
    sim_xfree(all);
}

void report_series_build(report_series *rs, const history *h, const scenario *s, const scn_step *gen,
                         size_t ngen, int64_t end_us)
{
    memset(rs, 0, sizeof *rs);
    rs->end_us = end_us;
    builder b = {.rs = rs, .end_us = end_us};
    for (size_t k = 0; k < h->n; k++) on_event(&b, &h->ev[k]);
    sim_xfree(b.holds); /* what is still open ends with the run (to_us = end_us) */
    build_faults(rs, s, gen, ngen, end_us);
}

void report_series_free(report_series *rs)
{
    sim_xfree(rs->spans);
    sim_xfree(rs->faults);
    memset(rs, 0, sizeof *rs);
}

/* ---------------------------------------------------------- violations */

size_t report_violation_threads(const check_violation *v, int *clients, int *threads, size_t max)
{
    size_t n = 0;
    for (const char *p = v->detail; *p && n < max; p++) {
        int c, t, used;
        if (*p != 'c' || (p > v->detail && isalnum((unsigned char)p[-1]))) continue;
        if (sscanf(p, "c%d.t%d%n", &c, &t, &used) != 2 || isalnum((unsigned char)p[used])) continue;
        size_t i;
        for (i = 0; i < n && !(clients[i] == c && threads[i] == t); i++) {}
        if (i == n) {
            clients[n] = c;
            threads[n++] = t;
        }
        p += used - 1;
    }
    return n;
}

int report_violation_lock(const check_violation *v, const history *h)
{
    return v->upto < h->n && h->ev[v->upto].lock >= 0 ? h->ev[v->upto].lock : 0;
}
