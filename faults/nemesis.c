/* nemesis.c — faults drawn from the seed, Jepsen-style: from [nemesis]
 * start to stop, one fault after each draw of `interval`, of a kind drawn
 * among `kinds`, on a target drawn among the clients or nodes, lasting a
 * draw of `duration` (a crash is followed by a restart after it; a
 * partition, a loss or a delay window ends after it). Every draw comes
 * from the stream "nemesis", so a seed always makes the same faults; they
 * become ordinary fault lines, written into the trace and the result.
 *
 * With `crash-on = reply` a client crash is armed at its time and strikes
 * at the process's next reply (crash client=N on=reply); its restart stays
 * `duration` after the arming. A client-clock fault sets a client
 * machine's clock offset to +D or -D, D a draw of `jump`. With several
 * masters a delay slows the link to the master of a drawn group, from one
 * client or from every client (a busy node), by a tenth or a half of its
 * duration, and a busy node's delay may last to the end of the run. */
#include <stdio.h>
#include <string.h>

#include "faults/fault_int.h"

typedef struct gen {
    sim_ctx *ctx;
    const scenario *s;
    scn_step *v;
    size_t n, cap;
} gen;

static scn_step *add(gen *g, int64_t at, scn_op op)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 16;
        g->v = sim_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    scn_step *st = &g->v[g->n++];
    memset(st, 0, sizeof *st);
    st->at_us = at;
    st->op = op;
    st->thread = 1;
    st->group = -1;
    st->wait_us = st->lease_us = -1;
    st->node_index = -1;
    st->generated = 1;
    return st;
}

static uint64_t pick(gen *g, uint64_t n)
{
    return sim_choose(g->ctx, n, "nemesis");
}

/* A delay with several masters (RedLock's, MultiLock's): the link to the
 * master of a drawn group, from client or, half the time, from every
 * client (a busy node); by a tenth of d or, half the time, by half of it
 * (enough to eat a RedLock's wait, or a sub-lock's lease, when d is long);
 * for d, or, for half the busy nodes, to the end of the run. */
static void delay_group(gen *g, scn_step *st, int client, int64_t d)
{
    const scenario *s = g->s;
    int group = (int)pick(g, (uint64_t)s->nodes);
    int busy = (int)pick(g, 2);
    int big = (int)pick(g, 2);
    int lasting = busy && pick(g, 2);
    if (busy) snprintf(st->link_a, sizeof st->link_a, "clients");
    else snprintf(st->link_a, sizeof st->link_a, "c%d", client);
    scn_node_name(s, group * (1 + s->replicas), st->link_b, sizeof st->link_b);
    st->by_us = big ? d / 2 + 1 : d / 10 + 1;
    st->for_us = lasting ? 0 : d;
}

static void one(gen *g, int64_t t, int kind)
{
    const scenario *s = g->s;
    int nc = scn_max_client(s);
    int nn = s->nodes * (1 + s->replicas);
    int64_t d = scn_dist_draw(g->ctx, &s->nemesis_duration, "nemesis");
    int client = nc ? 1 + (int)pick(g, (uint64_t)nc) : 0;
    scn_step *st;
    switch (kind) {
    case SCN_NEM_PAUSE:
        st = add(g, t, SCN_FAULT_PAUSE);
        st->client = client;
        st->for_us = d;
        break;
    case SCN_NEM_CRASH:
        st = add(g, t, SCN_FAULT_CRASH);
        st->client = client;
        st->on_reply = s->nemesis_crash_on == SCN_CRASH_ON_REPLY;
        add(g, t + d, SCN_FAULT_RESTART)->client = client;
        break;
    case SCN_NEM_PARTITION: {
        st = add(g, t, SCN_FAULT_PARTITION);
        snprintf(st->side_a, sizeof st->side_a, "c%d", client);
        /* With several groups (RedLock's masters), from one of them. */
        if (s->nodes > 1) snprintf(st->side_b, sizeof st->side_b, "group%d", (int)pick(g, (uint64_t)s->nodes));
        else snprintf(st->side_b, sizeof st->side_b, "nodes");
        st->for_us = d;
        break;
    }
    case SCN_NEM_CLOCK:
        st = add(g, t, SCN_FAULT_CLOCK);
        scn_node_name(s, (int)pick(g, (uint64_t)nn), st->node, sizeof st->node);
        st->clock_what = SCN_CLOCK_JUMP;
        st->clock_value = scn_dist_draw(g->ctx, &s->nemesis_jump, "nemesis");
        break;
    case SCN_NEM_NODE_CRASH: {
        int group = (int)pick(g, (uint64_t)s->nodes);
        st = add(g, t, SCN_FAULT_CRASH);
        scn_node_name(s, group * (1 + s->replicas), st->node, sizeof st->node);
        scn_step *back = add(g, t + d, SCN_FAULT_RESTART);
        memcpy(back->node, g->v[g->n - 2].node, sizeof back->node);
        break;
    }
    case SCN_NEM_NODE_PAUSE:
        st = add(g, t, SCN_FAULT_PAUSE);
        scn_node_name(s, (int)pick(g, (uint64_t)nn), st->node, sizeof st->node);
        st->for_us = d;
        break;
    case SCN_NEM_FAILOVER:
        add(g, t, SCN_FAULT_FAILOVER)->group = (int)pick(g, (uint64_t)s->nodes);
        break;
    case SCN_NEM_DROP_REPLY:
    case SCN_NEM_DROP_PUBSUB:
        st = add(g, t, kind == SCN_NEM_DROP_REPLY ? SCN_FAULT_DROP_REPLY : SCN_FAULT_DROP_PUBSUB);
        st->client = client;
        st->p_ppm = s->nemesis_p_ppm;
        st->for_us = d;
        break;
    case SCN_NEM_DISCONNECT:
        add(g, t, SCN_FAULT_DISCONNECT)->client = client;
        break;
    case SCN_NEM_FAIL_REPLY:
        st = add(g, t, SCN_FAULT_FAIL_REPLY);
        st->client = client;
        st->reply_cmd = SCN_REPLY_ACQUIRE + (int)pick(g, 3);
        st->reply_count = 1 + (int)pick(g, 2);
        st->reply_error = (int)pick(g, 2);
        break;
    case SCN_NEM_DELAY:
        st = add(g, t, SCN_FAULT_DELAY);
        if (s->nodes > 1) {
            delay_group(g, st, client, d);
            break;
        }
        snprintf(st->link_a, sizeof st->link_a, "c%d", client);
        scn_node_name(s, 0, st->link_b, sizeof st->link_b);
        st->by_us = d / 10 + 1;
        st->for_us = d;
        break;
    case SCN_NEM_CLIENT_CLOCK:
        st = add(g, t, SCN_FAULT_CLOCK);
        st->client = client;
        st->clock_what = SCN_CLOCK_OFFSET;
        st->clock_value = scn_dist_draw(g->ctx, &s->nemesis_jump, "nemesis");
        if (pick(g, 2)) st->clock_value = -st->clock_value;
        break;
    }
}

static int cmp_at(const void *a, const void *b)
{
    const scn_step *x = a, *y = b;
    if (x->at_us != y->at_us) return x->at_us < y->at_us ? -1 : 1;
    return x < y ? -1 : 1;
}

size_t fault_nemesis(sim_ctx *ctx, const scenario *s, scn_step **out)
{
    gen g = {ctx, s, NULL, 0, 0};
    *out = NULL;
    if (!s->nemesis || s->nemesis_kinds == 0) return 0;
    int kinds[16], nk = 0;
    for (int b = 0; b < SCN_NEM_COUNT; b++) {
        if (!(s->nemesis_kinds & (1 << b))) continue;
        if ((1 << b) == SCN_NEM_FAILOVER && s->replicas == 0) continue;
        if (((1 << b) & (SCN_NEM_PAUSE | SCN_NEM_CRASH | SCN_NEM_PARTITION | SCN_NEM_DROP_REPLY |
                         SCN_NEM_DROP_PUBSUB | SCN_NEM_DISCONNECT | SCN_NEM_DELAY | SCN_NEM_FAIL_REPLY |
                         SCN_NEM_CLIENT_CLOCK)) &&
            scn_max_client(s) == 0)
            continue;
        kinds[nk++] = 1 << b;
    }
    if (nk == 0) return 0;
    for (int64_t t = s->nemesis_start_us;;) {
        t += scn_dist_draw(ctx, &s->nemesis_interval, "nemesis");
        if (t > s->nemesis_stop_us) break;
        one(&g, t, kinds[pick(&g, (uint64_t)nk)]);
    }
    /* The names written above, as ids; they name only endpoints of s. */
    for (size_t i = 0; i < g.n; i++) {
        char why[400];
        int rc = scn_step_resolve(s, &g.v[i], why, sizeof why);
        sim_assert(rc == 0);
    }
    /* Restarts after the end of the run still happen (the run drains). */
    if (g.n > 1) qsort(g.v, g.n, sizeof *g.v, cmp_at);
    *out = g.v;
    return g.n;
}
