/* contract.c — fault lines judged against a protocol's contract
 * (protocols' proto_contract): within it, or beyond it for a reason a
 * user can read ("a pause longer than the lease: no lease lock survives
 * it"); and the swarm's draw kept within the contract ([swarm]
 * within-contract), so that a correct lock's hunt finds nothing the lock
 * never claimed to survive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"

/* Why a line is beyond a contract, by code (fault.h). */
static const char *const reasons[] = {
    [FAULT_WITHIN] = "within the contract",
    [FAULT_BEYOND_PAUSE] = "a client pause longer than the renewal margin: no lease lock survives it "
                           "(Kleppmann 2016, How to do distributed locking)",
    [FAULT_BEYOND_PARTITION] = "a partition that, with the reply timeout of a command lost in it, outlasts the "
                               "renewal margin: the holder cannot renew and its lease runs out under it "
                               "(Kleppmann 2016)",
    [FAULT_BEYOND_CRASH_OUTAGE] = "a master down (until its restart, or until Sentinel's failover is learnt) for "
                                  "longer than the renewal margin with the reply timeout of a command lost in it: "
                                  "the holder cannot renew and its lease runs out under it (Kleppmann 2016)",
    [FAULT_BEYOND_NODE_PAUSE] = "a node pause that, with the reply timeout of a command held up in it, outlasts "
                                "the renewal margin: renewals wait while the lease runs on the node's clock "
                                "(Kleppmann 2016)",
    [FAULT_BEYOND_DELAY] = "a delay whose round trip outlasts the client's reply timeout or the renewal "
                           "margin: the reply comes after the client gave up on it",
    [FAULT_BEYOND_DROP] = "replies lost for longer than the renewal margin, or with a margin shorter than the "
                          "reply timeout: the holder waits on a reply past its lease",
    [FAULT_BEYOND_CLOCK] = "a node's clock jump: a lease runs on the node's clock (redis.io, Distributed "
                           "Locks with Redis: clocks must run at about the same rate)",
    [FAULT_BEYOND_FAILOVER] = "a failover to an asynchronous replica: the lock's write may not have reached "
                              "it (redis.io, Distributed Locks with Redis: replication is asynchronous)",
    [FAULT_BEYOND_RESTART] = "a node restart without persistence: the lock's key is lost (redis.io, "
                             "Distributed Locks with Redis: persistence, delayed restarts)",
    [FAULT_BEYOND_HOLD] = "holds longer than the lease: the application's error, not the lock's",
    [FAULT_BEYOND_UNDECIDED] = "after an operation that failed with an error (a reply timeout) and may have run: the "
                               "client told the application it did not know (indeterminate, as Jepsen's :info), "
                               "and no contract claims to undo it",
    [FAULT_BEYOND_RETRY] = "the application called release again after one failed: its own double release, "
                           "which a lock may grant twice",
    [FAULT_BEYOND_SELF] = "a thread waits for a lock its own hold keeps: a read hold upgraded to write, which "
                          "Redisson's read/write lock does not grant (the application's misuse)",
    [FAULT_BEYOND_DISCONNECT] = "a disconnect whose reconnect and the retry delay of a command held up by it "
                                "outlast the renewal margin: the holder's release or renewal goes out after "
                                "its lease has run out",
    [FAULT_BEYOND_FAILOVER_HOLDUP] = "a failover that, with the time the clients take to learn the new master "
                                     "and the resend of a command the old one refused, outlasts the renewal "
                                     "margin: the holder's release or renewal waits while its lease runs out "
                                     "(Kleppmann 2016)",
};

size_t fault_beyond_text(int code, char *buf, size_t cap)
{
    int n;
    if (code >= FAULT_BEYOND_KIND)
        n = snprintf(buf, cap, "%s: not a fault the lock's contract claims to survive (its documentation does "
                               "not claim it)",
                     scn_nemesis_kind_name(1 << (code - FAULT_BEYOND_KIND)));
    else
        n = snprintf(buf, cap, "%s", code >= 0 && code < FAULT_BEYOND_KIND ? reasons[code] : "?");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

/* Does the lock wait for its replica after its writes (WAIT)? */
static int waits_for_replica(const proto_def *pd, const scenario *s)
{
    if (s->synced >= 0) return s->synced;
    return pd->impl.defaults ? pd->impl.defaults->synced : 1; /* NULL: the current Redisson's */
}

/* How long a lost reply holds a client up: its reply timeout, and the
 * WAIT pipelined behind a write where the lock waits for its replica. */
static int64_t reply_budget(const proto_def *pd, const scenario *s)
{
    return s->timeout_us + (waits_for_replica(pd, s) ? SIM_MS(1000) : 0);
}

/* How long a failover holds a client up: until the clients learn the new
 * master (discovery), and then a command the demoted master refused
 * (READONLY) or answered unsynced (NoSyncedSlaves) waits for its resend,
 * as a lost reply does. */
static int64_t failover_budget(const proto_def *pd, const scenario *s)
{
    return s->discovery_us + reply_budget(pd, s);
}

/* How long a disconnect holds a client up: the reconnect, and a command
 * sent meanwhile waits for its retry delay before it goes again. */
static int64_t disconnect_budget(const scenario *s)
{
    return cl_reconnect_us() + cl_retry_delay_max_us(s);
}

int fault_kind_of(const scn_step *st)
{
    int node = st->node_index >= 0;
    switch (st->op) {
    case SCN_FAULT_PAUSE: return node ? SCN_NEM_NODE_PAUSE : SCN_NEM_PAUSE;
    case SCN_FAULT_CRASH: return node ? SCN_NEM_NODE_CRASH : SCN_NEM_CRASH;
    case SCN_FAULT_CLOCK: return st->client > 0 ? SCN_NEM_CLIENT_CLOCK : SCN_NEM_CLOCK; /* a machine's or a node's */
    case SCN_FAULT_PARTITION: return SCN_NEM_PARTITION;
    case SCN_FAULT_DELAY: return SCN_NEM_DELAY;
    case SCN_FAULT_DROP_REPLY: return SCN_NEM_DROP_REPLY;
    case SCN_FAULT_DROP_PUBSUB: return SCN_NEM_DROP_PUBSUB;
    case SCN_FAULT_DISCONNECT: return SCN_NEM_DISCONNECT;
    case SCN_FAULT_FAILOVER: return SCN_NEM_FAILOVER;
    case SCN_FAULT_FAIL_REPLY: return SCN_NEM_FAIL_REPLY;
    default: return 0; /* client operations, a drop or fiu rule; restart and heal end a fault */
    }
}

/* The kind a contract judges a line by: a link rule cuts as a partition does. */
static int kind_of(const scn_step *st)
{
    return st->op == SCN_FAULT_DROP ? SCN_NEM_PARTITION : fault_kind_of(st);
}

/* Does a partition or link rule cut a client off (a side or end names a
 * client)? One between nodes only (a replica cut from its master) holds
 * no client up. */
static int cuts_a_client(const scn_step *st)
{
    return st->end_a.all_clients || st->end_a.nclients > 0 || st->end_b.all_clients || st->end_b.nclients > 0;
}

int fault_beyond(const proto_def *pd, const proto_contract *c, const scenario *s, const scn_step *st, int64_t margin)
{
    int kind = kind_of(st);
    if (kind == 0) return FAULT_WITHIN;
    if (!(c->survives & (unsigned)kind)) {
        int b = 0;
        while ((1 << b) != kind) b++;
        return kind == SCN_NEM_CLOCK ? FAULT_BEYOND_CLOCK : FAULT_BEYOND_KIND + b;
    }
    switch (kind) {
    case SCN_NEM_PAUSE: return st->for_us > margin ? FAULT_BEYOND_PAUSE : FAULT_WITHIN;
    /* A node paused or a client cut off loses or holds up the replies in
     * flight: the client sends again after its reply timeout, so the
     * fault and that timeout must fit in the margin. */
    case SCN_NEM_NODE_PAUSE:
        return margin != INT64_MAX && st->for_us + reply_budget(pd, s) > margin ? FAULT_BEYOND_NODE_PAUSE : FAULT_WITHIN;
    case SCN_NEM_PARTITION:
        if (!cuts_a_client(st) || margin == INT64_MAX) return FAULT_WITHIN;
        return st->for_us == 0 || st->for_us + reply_budget(pd, s) > margin ? FAULT_BEYOND_PARTITION : FAULT_WITHIN;
    case SCN_NEM_DELAY: {
        int64_t bound = margin < s->timeout_us ? margin : s->timeout_us;
        return 2 * st->by_us >= bound ? FAULT_BEYOND_DELAY : FAULT_WITHIN;
    }
    case SCN_NEM_DROP_REPLY:
    case SCN_NEM_FAIL_REPLY: /* a lost reply costs the reply timeout (and a WAIT's) before the client goes on */
        if (margin != INT64_MAX && margin < reply_budget(pd, s)) return FAULT_BEYOND_DROP;
        return kind == SCN_NEM_DROP_REPLY && (st->for_us > margin || st->for_us == 0) ? FAULT_BEYOND_DROP
                                                                                      : FAULT_WITHIN;
    case SCN_NEM_NODE_CRASH: return s->persistence ? FAULT_WITHIN : FAULT_BEYOND_RESTART;
    case SCN_NEM_DISCONNECT:
        return margin != INT64_MAX && disconnect_budget(s) > margin ? FAULT_BEYOND_DISCONNECT : FAULT_WITHIN;
    case SCN_NEM_FAILOVER:
        if (c->failover_synced && !waits_for_replica(pd, s)) return FAULT_BEYOND_FAILOVER;
        return margin != INT64_MAX && failover_budget(pd, s) > margin ? FAULT_BEYOND_FAILOVER_HOLDUP : FAULT_WITHIN;
    default: return FAULT_WITHIN;
    }
}

int fault_beyond_workload(const proto_def *pd, const scenario *s)
{
    /* A fixed lease shorter than the longest hold: the application holds
     * past its own lease ([swarm] overrun). A lock with no lease has
     * nothing to outlast; a lease per acquire cuts each hold under it. */
    if (s->lease_us == SCN_LEASE_WATCHDOG || scn_has_acquire_lease(s) || proto_margin(pd, s) == INT64_MAX) return 0;
    int64_t hold = s->hold.kind == SCN_DIST_UNIFORM ? s->hold.b_us : s->hold.a_us;
    return s->hold.kind == SCN_DIST_EXP || hold >= s->lease_us ? FAULT_BEYOND_HOLD : FAULT_WITHIN;
}

/* Does node crash line v[i] fail its group over? Sentinel promotes a
 * replica when a master stays down for down-after (world/, impaired.c):
 * the node is its group's first (the master until a failover) or a
 * failover or crash came first, and no restart of it within down-after
 * follows. */
static int crash_fails_over(const scenario *s, const scn_step *v, size_t n, size_t i)
{
    const scn_step *st = &v[i];
    if (st->op != SCN_FAULT_CRASH || st->node_index < 0 || s->replicas <= 0) return 0;
    int master = st->node_index % (1 + s->replicas) == 0;
    for (size_t j = 0; j < n && !master; j++)
        if (v[j].at_us < st->at_us && (v[j].op == SCN_FAULT_FAILOVER || (v[j].op == SCN_FAULT_CRASH && v[j].node_index >= 0)))
            master = 1;
    if (!master) return 0;
    for (size_t j = 0; j < n; j++)
        if (v[j].op == SCN_FAULT_RESTART && v[j].node_index == st->node_index && v[j].at_us >= st->at_us &&
            v[j].at_us - st->at_us < s->down_after_us)
            return 0;
    return 1;
}

typedef struct cutoff {
    int64_t from, to;
    int why; /* the reason of its own kind: FAULT_BEYOND_PARTITION, _NODE_PAUSE, _PAUSE */
} cutoff;

static int cmp_cutoff(const void *a, const void *b)
{
    const cutoff *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* When line i of v cuts client cl off, its window [*from, *to) and the
 * reason of its kind: a partition that names cl, cl's own pause, a node's
 * pause, a node's crash until the node's next restart (none: not judged
 * here, its outage has no end the lines tell). */
static int cutoff_of(const scenario *s, const scn_step *v, size_t n, size_t i, int cl, int64_t *from, int64_t *to)
{
    const scn_step *st = &v[i];
    *from = st->at_us;
    *to = st->at_us + st->for_us;
    switch (st->op) {
    case SCN_FAULT_PARTITION:
        return st->for_us > 0 && (scn_side_has_client(&st->end_a, cl) || scn_side_has_client(&st->end_b, cl))
                   ? FAULT_BEYOND_PARTITION
                   : 0;
    case SCN_FAULT_PAUSE:
        if (st->for_us <= 0) return 0;
        if (st->node_index >= 0) return FAULT_BEYOND_NODE_PAUSE;
        return st->client == cl ? FAULT_BEYOND_PAUSE : 0;
    case SCN_FAULT_CRASH:
        if (st->node_index < 0) return 0;
        /* Down until its restart, or, with none, until Sentinel fails it
         * over and the clients learn it (a node with no replica: no end). */
        *to = s->replicas > 0 ? st->at_us + s->down_after_us + s->discovery_us : st->at_us;
        for (size_t j = 0; j < n; j++)
            if (v[j].op == SCN_FAULT_RESTART && v[j].node_index == st->node_index && v[j].at_us >= st->at_us &&
                (*to <= *from || v[j].at_us < *to))
                *to = v[j].at_us;
        return *to > *from ? FAULT_BEYOND_CRASH_OUTAGE : 0;
    default: return 0;
    }
}

/* Cut-offs of one client (cutoff_of) that follow each other closer than
 * a lost command's resend (the reply budget and the longest retry delay)
 * can lose the command and then its resend: they hold the client up as
 * one, from the first's start to the last's end, which with the reply
 * budget must fit in the margin as a single cut-off's must (each line on
 * its own is judged by fault_beyond). */
static int cutoffs_beyond(const proto_def *pd, const scenario *s, const scn_step *v, size_t n, int64_t from_us,
                          int64_t to_us, int64_t margin)
{
    if (margin == INT64_MAX || n == 0) return FAULT_WITHIN;
    int64_t budget = reply_budget(pd, s), gap = budget + cl_retry_delay_max_us(s);
    cutoff *w = sim_xcalloc(n, sizeof *w);
    int why = FAULT_WITHIN;
    for (int cl = 1; cl <= scn_max_client(s) && !why; cl++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t a, b;
            int kind = v[i].at_us < from_us || v[i].at_us > to_us ? 0 : cutoff_of(s, v, n, i, cl, &a, &b);
            if (kind) w[k++] = (cutoff){a, b, kind};
        }
        qsort(w, k, sizeof *w, cmp_cutoff);
        for (size_t i = 0; i < k && !why;) {
            int64_t start = w[i].from, end = w[i].to;
            int kind = w[i].why, crash = kind == FAULT_BEYOND_CRASH_OUTAGE;
            size_t j = i + 1;
            for (; j < k && w[j].from <= end + gap; j++) {
                if (w[j].to > end) end = w[j].to;
                if (w[j].why == FAULT_BEYOND_CRASH_OUTAGE) crash = 1;
                if (w[j].why == FAULT_BEYOND_PARTITION || w[j].why == FAULT_BEYOND_CRASH_OUTAGE) kind = w[j].why;
            }
            /* One line alone is fault_beyond's, but for a crash, whose
             * outage it cannot tell. */
            if ((j - i > 1 || crash) && end - start + budget > margin) why = kind;
            i = j;
        }
    }
    sim_xfree(w);
    return why;
}

int fault_beyond_first(const proto_def *pd, const scenario *s, const scn_step *v, size_t n, int64_t from_us,
                       int64_t to_us)
{
    const proto_contract *c = proto_contract_of(pd);
    int64_t margin = proto_margin(pd, s);
    int w = fault_beyond_workload(pd, s);
    if (w) return w;
    for (size_t i = 0; i < n; i++) {
        if (v[i].at_us < from_us || v[i].at_us > to_us) continue;
        int why = fault_beyond(pd, c, s, &v[i], margin);
        /* A crash that Sentinel fails over is judged as that failover
         * too (a lock that does not WAIT may lose its last writes). */
        if (!why && crash_fails_over(s, v, n, i)) {
            scn_step fo = {.op = SCN_FAULT_FAILOVER, .at_us = v[i].at_us, .node_index = -1, .group = -1};
            why = fault_beyond(pd, c, s, &fo, margin);
        }
        if (why) return why;
    }
    return cutoffs_beyond(pd, s, v, n, from_us, to_us, margin);
}

/* ------------------------------------------------------------ the draw */

/* The protocol named name in scenario s (the catalogue's, or a policy
 * file's relative to s), or NULL; with s's patch of its scripts only when
 * it is s's own protocol. Contracts and margins do not depend on a patch,
 * but a patch of one protocol's scripts is no script of another's. */
static const proto_def *protocol_of(const scenario *s, const char *name)
{
    if (name == NULL) return NULL;
    scenario t = *s; /* proto_resolve reads the name and the path it is relative to */
    if (name != s->protocol) t.scripts = NULL, t.scripts_line = 0;
    t.protocol = (char *)name;
    scn_error err;
    return proto_resolve(&t, &err);
}

void fault_contract_draw(const scenario *s, scenario *c)
{
    if (!s->swarm_within) return;
    const proto_def *a = protocol_of(c, c->protocol), *b = protocol_of(c, s->swarm_reference);
    if (a == NULL) return; /* the run says why */
    unsigned keep = proto_contract_of(a)->survives;
    int64_t margin = proto_margin(a, c);
    int sync_needed = proto_contract_of(a)->failover_synced && !waits_for_replica(a, c);
    if (b) {
        keep &= proto_contract_of(b)->survives;
        int64_t mb = proto_margin(b, c);
        if (mb < margin) margin = mb;
        sync_needed |= proto_contract_of(b)->failover_synced && !waits_for_replica(b, c);
    }
    keep &= ~(unsigned)SCN_NEM_CLOCK;
    if (sync_needed) keep &= ~(unsigned)SCN_NEM_FAILOVER;
    /* A node restart is claimed with its data: the nodes persist. */
    if (c->nemesis_kinds & (int)keep & SCN_NEM_NODE_CRASH) c->persistence = 1;
    /* Each fault lasts at most half the margin, so that two that meet
     * still fit in it; a delay's round trip stays under the reply
     * timeout (the nemesis slows a link by a tenth of the duration, or
     * by half of it with several masters). */
    int64_t cap = margin == INT64_MAX ? INT64_MAX : margin / 2;
    if (c->nemesis_kinds & (int)keep & SCN_NEM_DELAY) {
        int64_t d = c->nodes > 1 ? c->timeout_us - SIM_MS(1) : 5 * c->timeout_us - SIM_MS(1);
        if (d < cap) cap = d;
    }
    /* A lease shorter than a lost reply's timeout cannot survive one; a
     * fault that loses or holds up replies must leave the timeout room in
     * the margin. */
    int64_t budget = reply_budget(a, c);
    if (b && reply_budget(b, c) > budget) budget = reply_budget(b, c);
    if (margin != INT64_MAX && margin < budget) keep &= ~(unsigned)(SCN_NEM_DROP_REPLY | SCN_NEM_FAIL_REPLY);
    if (margin != INT64_MAX && (margin < failover_budget(a, c) || (b && margin < failover_budget(b, c))))
        keep &= ~(unsigned)SCN_NEM_FAILOVER;
    if (margin != INT64_MAX && margin < disconnect_budget(c)) keep &= ~(unsigned)SCN_NEM_DISCONNECT;
    if (margin != INT64_MAX && (c->nemesis_kinds & (int)keep & (SCN_NEM_PARTITION | SCN_NEM_NODE_PAUSE | SCN_NEM_NODE_CRASH)) &&
        margin - budget < cap)
        cap = margin - budget;
    if (cap < SIM_MS(1)) { /* nothing may hold a holder up; what is left keeps its durations */
        keep &= ~(unsigned)(SCN_NEM_PAUSE | SCN_NEM_NODE_PAUSE | SCN_NEM_PARTITION | SCN_NEM_DELAY | SCN_NEM_DROP_REPLY |
                            SCN_NEM_NODE_CRASH);
        cap = INT64_MAX;
    }
    c->nemesis_kinds &= (int)keep;
    c->nemesis = c->nemesis_kinds != 0;
    scn_dist *d = &c->nemesis_duration;
    int64_t top = d->kind == SCN_DIST_UNIFORM ? d->b_us : d->a_us;
    sim_assert(cap >= SIM_MS(1));
    if (cap < top) {
        if (d->kind == SCN_DIST_UNIFORM && d->a_us < cap) d->b_us = cap;
        else *d = (scn_dist){SCN_DIST_CONST, cap, cap};
    }
}
