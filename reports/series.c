/* series.c — what the pictures of a run show, from its history: holds
 * and shares per thread and waits with their outcome (the checkers' holds
 * under CHECK_HOLDS_SHARES, so counted as the checkers count them), instant
 * marks, and the fault windows of the scenario's and the nemesis's fault
 * lines. Observes the history; changes nothing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "sim/checkers/checkers.h"

/* ------------------------------------------------------------- spans */

static void add_span(report_series *rs, const report_span *sp)
{
    if (rs->nspans == rs->spans_cap) {
        rs->spans_cap = rs->spans_cap ? rs->spans_cap * 2 : 256;
        rs->spans = sim_xrealloc(rs->spans, rs->spans_cap * sizeof *rs->spans);
    }
    rs->spans[rs->nspans++] = *sp;
}

/* A wait's outcome, from the event that ended it. */
static report_outcome outcome(const history *h, const check_span *w)
{
    if (w->end != CHECK_END_REPLY) return REPORT_UNFINISHED; /* cut by a crash, or still waiting */
    const hist_event *e = &h->ev[w->to_k];
    return e->kind == HIST_OK && (e->op != HOP_AWAIT || e->value) ? REPORT_ACQUIRED
           : e->err && !strcmp(e->err, "not acquired")          ? REPORT_TIMED_OUT
           : e->op == HOP_AWAIT && e->kind == HIST_OK           ? REPORT_TIMED_OUT
                                                                : REPORT_ERROR;
}

/* The span of a hold, a share (n > 0) or a wait; open ones end at end_us. */
static void add_interval(report_series *rs, const history *h, const check_span *x, int wait)
{
    report_span_kind kind = wait ? REPORT_WAIT : x->n > 0 || x->mode == SCN_RW_READ ? REPORT_HOLD_SHARED : REPORT_HOLD;
    report_span sp = {.kind = kind, .client = x->client, .thread = x->thread, .lock = x->lock, .mode = x->mode,
                      .n = x->n, .from_us = x->from_us, .to_us = x->to_k == CHECK_OPEN ? rs->end_us : x->to_us,
                      .outcome = wait ? outcome(h, x) : REPORT_UNFINISHED, .acquire = x->op == HOP_ACQUIRE};
    add_span(rs, &sp);
}

/* The spans in the order they began: waits, holds and countDown marks. */
static void build_spans(report_series *rs, const history *h, int nlocks)
{
    check_holds *hs = check_holds_build(h, nlocks, CHECK_HOLDS(CHECK_HOLDS_SHARES));
    const check_spans *holds = &hs->rule[CHECK_HOLDS_SHARES], *waits = &hs->waits;
    size_t hi = 0, wi = 0;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (wi < waits->n && waits->v[wi].from_k == k) add_interval(rs, h, &waits->v[wi++], 1);
        if (hi < holds->n && holds->v[hi].from_k == k) add_interval(rs, h, &holds->v[hi++], 0);
        if (e->op == HOP_COUNTDOWN && e->kind == HIST_OK) {
            report_span sp = {.kind = REPORT_MARK, .client = e->client, .thread = e->thread, .lock = e->lock,
                              .from_us = e->t_us, .to_us = e->t_us, .outcome = REPORT_ACQUIRED};
            add_span(rs, &sp);
        }
    }
    check_holds_free(hs);
}

/* ------------------------------------------------------------ faults */

/* The one client a fault line acts on: client=N, or a partition of one
 * client from the rest; 0 otherwise. */
static int fault_client(const scn_step *st)
{
    const scn_side *a = &st->end_a;
    if (st->node_index < 0 && st->client > 0) return st->client;
    if (st->op != SCN_FAULT_PARTITION || a->all_nodes || a->all_clients || a->nclients != 1) return 0;
    for (size_t i = 0; i < sizeof a->nodes / sizeof a->nodes[0]; i++)
        if (a->nodes[i]) return 0;
    return a->clients[0];
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
    return a->node_index >= 0 ? a->node_index == b->node_index : b->node_index < 0 && a->client == b->client;
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
        if (scn_op_is_fault(s->steps[i].op)) all[n++] = &s->steps[i];
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
                      st->op == SCN_FAULT_RESTART || st->op == SCN_FAULT_FAIL_REPLY;
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
    build_spans(rs, h, s->nlocks);
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
