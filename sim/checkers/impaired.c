/* impaired.c — when each client could not have reached the master of each
 * node group (its "impaired" periods), from a run's fault lines and its
 * topology, for the checkers that must not blame a lock for the network.
 * The periods of one client and group are sorted and disjoint.
 *
 * What each fault line does in the fake (faults/net.c, schedule.c,
 * nemesis.c, world/), and so the period it makes:
 *   partition A|B, A->B   from its time to for= or the first heal after
 *                         it (heal ends every partition), when one side
 *                         has the client and the other the group's master
 *                         (one way cuts a round trip as well);
 *   drop link=, p > 0     to for= (or the end: heal does not end it), on
 *                         the link of the client and the master;
 *   drop-reply, p > 0     to for=, for its client (none: every client);
 *   fiu net/partition,    to for=, every client (the raw points judge
 *   net/drop(-reply)      every message);
 *   disconnect client=N   its connections drop at once and come back after
 *                         the reconnect (in->reconnect_us later);
 *   pause client=N        its process runs nothing for for=, and when
 *                         the master crashed meanwhile it learns its
 *                         connections dropped only then: the reconnect
 *                         (in->reconnect_us) after;
 *   crash / pause node=X  of a node that may be the group's master: down
 *                         until its restart, or until Sentinel promotes a
 *                         replica (down-after later, when the group has
 *                         one up and X is still down and master) and the
 *                         clients learn it (discovery later: they connect
 *                         to it at once); after a restart, until the
 *                         clients' reconnect (in->reconnect_us); paused
 *                         for for= (a crash ends a pause);
 *   pause node=X          of a replica, when the lock's scripts are
 *                         synced (followed by WAIT for the replicas,
 *                         check_input.synced): paused for for=, every
 *                         client of the group (the master's WAIT waits
 *                         for the paused replica, so each script
 *                         answers only after WAIT's timeout, with a
 *                         NoSyncedSlavesException when no replica
 *                         acknowledged: a crashed replica is not waited
 *                         for, a paused one still counts as connected);
 *   crash node=X          of a replica, when the lock's scripts are
 *                         synced: from the crash for WAIT's timeout,
 *                         every client of the group (the scripts sent
 *                         before it wait for its acknowledgement until
 *                         WAIT times out, and fail NoSyncedSlaves; the
 *                         client asks WAIT only for the replicas the
 *                         master has connected, command.c's want_wait
 *                         from world_connected_replicas, so the later
 *                         ones do not wait: not until its restart, as a
 *                         pause's. Redisson 3.27.0+ keeps the count it
 *                         last read, MasterSlaveEntry.availableSlaves,
 *                         until a WAIT acks fewer, so its writes until
 *                         then wait too: the model, and so this, does
 *                         not follow that);
 *   failover              from its time until the clients learn the new
 *                         master (discovery), when a replica is up.
 * A period ends where the fault does (a reconnect aside), not later: a
 * longer tail (a lost command's reply timeout, up to 7 s) would also hide
 * a parked waiter that no message will ever wake, which has nothing in
 * flight (the 3.13.2 fair lock's hang, seed 695 of its hunt). The price:
 * a wait that ran into a lost command's reply timeout just after a
 * partition is still judged. Not impairments: drop-pubsub and the
 * pub/sub point (a lock must survive a lost message: a lost wake-up is
 * what the checkers look for), fail-reply (it spoils the next replies to
 * one kind of script, whose times the lines do not tell), clocks, client
 * crashes (a crash ends its waits), replication faults, and faults on a
 * node that cannot be the master (but a paused or crashed replica of a
 * synced lock, above).
 *
 * delay link=A-B by=D: while the delays in force on the link of the client
 * and the master add up to D each way, what the waiter must do crosses it
 * D more slowly each time: a waiter that was subscribed crosses it three
 * times after the release (the message, the acquire, its reply), one
 * whose wait began in the stretch five (its first attempt's reply, the
 * subscription's round trip, the attempt again after it: Redisson's locks,
 * semaphores and latches all subscribe, then try again). When 5D is at
 * least the liveness bound the link is impaired, from the stretch's start
 * to 2D after its end (what was sent in it lands by then); under that,
 * the delay is part of the wait the bound allows.
 *
 * Which node is a group's master follows the node lines (node 0 of each
 * group first). Where the fake promotes the most up-to-date of several
 * live replicas (by replication offsets the lines do not tell), every one
 * of them counts as possibly the master: a fault on any impairs the group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/client/client.h"
#include "sim/checkers/checkers_int.h"

#define NO_END INT64_MAX

typedef struct pset {
    check_period *v;
    size_t n, cap;
} pset;

struct check_impaired {
    int nclients, ngroups, nlocks;
    pset *per;         /* [(client - 1) * (ngroups + 1) + g]; g = ngroups: any group */
    const int *lock_group;
};

static void pset_add(pset *s, int64_t from, int64_t to, unsigned kinds)
{
    if (to <= from) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = sim_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (check_period){from, to, kinds};
}

static int cmp_period(const void *a, const void *b)
{
    const check_period *x = a, *y = b;
    return x->from_us < y->from_us ? -1 : x->from_us > y->from_us;
}

/* Sorts s and merges periods that overlap or touch. */
static void pset_merge(pset *s)
{
    if (s->n < 2) return;
    qsort(s->v, s->n, sizeof *s->v, cmp_period);
    size_t k = 0;
    for (size_t i = 1; i < s->n; i++) {
        check_period *last = &s->v[k];
        if (s->v[i].from_us <= last->to_us) {
            if (s->v[i].to_us > last->to_us) last->to_us = s->v[i].to_us;
            last->kinds |= s->v[i].kinds;
        } else {
            s->v[++k] = s->v[i];
        }
    }
    s->n = k + 1;
}

static int64_t plus(int64_t t, int64_t d)
{
    return t >= NO_END - d ? NO_END : t + d;
}

/* The kind a fault line impairs with (CHECK_IMP_*). */
static unsigned kind_bit(scn_op op)
{
    switch (op) {
    case SCN_FAULT_PARTITION: return CHECK_IMP_PARTITION;
    case SCN_FAULT_DROP: return CHECK_IMP_DROP;
    case SCN_FAULT_DROP_REPLY: return CHECK_IMP_DROP_REPLY;
    case SCN_FAULT_DELAY: return CHECK_IMP_DELAY;
    case SCN_FAULT_DISCONNECT: return CHECK_IMP_DISCONNECT;
    case SCN_FAULT_PAUSE: return CHECK_IMP_PAUSE;
    case SCN_FAULT_FAILOVER: return CHECK_IMP_FAILOVER;
    case SCN_FAULT_FIU: return CHECK_IMP_FIU;
    default: sim_assert(0); return 0;
    }
}

/* ------------------------------------------------------------ topology */

/* A group's possible masters over [from, to): bit k of mask is the group's
 * node k (group * (1 + replicas) + k). */
typedef struct seg {
    int group;
    unsigned mask;
    int64_t from, to;
} seg;

typedef struct topo {
    const scenario *s;
    int synced;                   /* check_input.synced */
    int per_group;                /* 1 + replicas */
    int *up, *paused;             /* per node */
    int64_t *pause_end;           /* per node (NO_END: none) */
    unsigned *mask;               /* per group */
    int64_t *mask_since;          /* per group */
    int64_t *fo_due, *fo_until;   /* per group: Sentinel's failover due; clients learn the master */
    int *fo_pending;              /* per group: fo_until is still to come */
    unsigned *state;              /* per group: the kinds impairing it now */
    int64_t *state_since;
    seg *segs;
    size_t nsegs, capsegs;
    pset *group_set;              /* per group: the impaired periods of every client */
    pset *replica_set;            /* per group: WAITs held by a crashed replica (no reconnect) */
} topo;

static void seg_close(topo *t, int g, int64_t now)
{
    if (now > t->mask_since[g]) {
        if (t->nsegs == t->capsegs) {
            t->capsegs = t->capsegs ? t->capsegs * 2 : 16;
            t->segs = sim_xrealloc(t->segs, t->capsegs * sizeof *t->segs);
        }
        t->segs[t->nsegs++] = (seg){g, t->mask[g], t->mask_since[g], now};
    }
    t->mask_since[g] = now;
}

/* The kinds that impair group g now: a possible master down or paused, a
 * paused replica when the scripts wait for the replicas (synced), or a
 * failover whose new master the clients have not learnt yet. */
static unsigned group_state(const topo *t, int g, int64_t now)
{
    unsigned k = 0;
    for (int i = 0; i < t->per_group; i++) {
        int node = g * t->per_group + i;
        if (!(t->mask[g] >> i & 1)) {
            if (t->synced && t->up[node] && t->paused[node]) k |= CHECK_IMP_NODE_PAUSE;
            continue;
        }
        if (!t->up[node]) k |= CHECK_IMP_NODE_CRASH;
        else if (t->paused[node]) k |= CHECK_IMP_NODE_PAUSE;
    }
    if (t->fo_until[g] > now) k |= CHECK_IMP_FAILOVER;
    return k;
}

static void group_update(topo *t, int g, int64_t now)
{
    unsigned k = group_state(t, g, now);
    if (k == t->state[g]) return;
    if (t->state[g]) pset_add(&t->group_set[g], t->state_since[g], now, t->state[g]);
    t->state[g] = k;
    t->state_since[g] = now;
}

/* Sentinel's failover of group g now (world_failover): the most up-to-date
 * live replica becomes master; none: nothing changes. */
static void failover(topo *t, int g, int64_t now)
{
    unsigned cand = 0;
    for (int i = 0; i < t->per_group; i++)
        if (t->up[g * t->per_group + i] && !(t->mask[g] >> i & 1)) cand |= 1u << i;
    if (t->mask[g] & (t->mask[g] - 1)) /* the master was one of several: any live node may be it */
        for (int i = 0; i < t->per_group; i++)
            if (t->up[g * t->per_group + i]) cand |= 1u << i;
    if (cand == 0) return;
    t->fo_due[g] = NO_END;
    seg_close(t, g, now);
    t->mask[g] = cand;
    t->fo_until[g] = plus(now, t->s->discovery_us);
    t->fo_pending[g] = 1;
}

static void apply_node_line(topo *t, const scn_step *st, int64_t now)
{
    const scenario *s = t->s;
    int node = st->node_index, g = node >= 0 ? node / t->per_group : st->group >= 0 ? st->group : 0;
    if (g < 0 || g >= s->nodes) return;
    int bit = node >= 0 ? 1 << (node % t->per_group) : 0;
    switch (st->op) {
    case SCN_FAULT_CRASH:
        if (!t->up[node]) return;
        /* A replica of a synced lock: the scripts sent before the crash
         * wait for its acknowledgement until WAIT's timeout (and fail
         * with NoSyncedSlavesException); the ones after ask WAIT only
         * for the replicas still connected (command.c: want_wait). */
        if (t->synced && !(t->mask[g] & (unsigned)bit))
            pset_add(&t->replica_set[g], now, plus(now, cl_wait_timeout_us()), CHECK_IMP_NODE_CRASH);
        t->up[node] = 0;
        t->paused[node] = 0;
        t->pause_end[node] = NO_END;
        /* Sentinel fails a crashed master over after down-after. */
        if ((unsigned)bit == t->mask[g] && s->replicas > 0) t->fo_due[g] = plus(now, s->down_after_us);
        break;
    case SCN_FAULT_RESTART:
        if (t->up[node]) return;
        t->up[node] = 1;
        if ((unsigned)bit == t->mask[g]) t->fo_due[g] = NO_END; /* back before Sentinel acted */
        break;
    case SCN_FAULT_PAUSE:
        if (!t->up[node] || t->paused[node]) return;
        t->paused[node] = 1;
        t->pause_end[node] = plus(now, st->for_us);
        break;
    case SCN_FAULT_FAILOVER: failover(t, g, now); break;
    default: sim_assert(0);
    }
}

/* The earliest timer of the topology: a pause's end, a failover due, or
 * clients learning a new master; *node / *group / *learn get which (-1:
 * not that kind). */
static int64_t next_timer(const topo *t, int *node, int *group, int *learn)
{
    int64_t best = NO_END;
    *node = *group = *learn = -1;
    for (int i = 0; i < t->s->nodes * t->per_group; i++)
        if (t->pause_end[i] < best) best = t->pause_end[i], *node = i, *group = *learn = -1;
    for (int g = 0; g < t->s->nodes; g++) {
        if (t->fo_due[g] < best) best = t->fo_due[g], *group = g, *node = *learn = -1;
        if (t->fo_pending[g] && t->fo_until[g] < best) best = t->fo_until[g], *learn = g, *node = *group = -1;
    }
    return best;
}

static int is_node_line(const scn_step *st)
{
    return st->op == SCN_FAULT_FAILOVER ||
           (st->node_index >= 0 && (st->op == SCN_FAULT_CRASH || st->op == SCN_FAULT_RESTART || st->op == SCN_FAULT_PAUSE));
}

/* Runs the node lines (in the order the schedule applies them) through the
 * topology: t->segs gets the possible masters over time, t->group_set the
 * periods each group served no one. */
static void topo_run(topo *t, const scn_step *const *lines, size_t n)
{
    const scenario *s = t->s;
    for (size_t i = 0;; i++) {
        int64_t at = i < n ? lines[i]->at_us : NO_END;
        if (i < n && !is_node_line(lines[i])) continue;
        int node, g, learn;
        int64_t due;
        while ((due = next_timer(t, &node, &g, &learn)) < at) { /* timers armed before the line */
            if (node >= 0) {
                t->paused[node] = 0;
                t->pause_end[node] = NO_END;
                group_update(t, node / t->per_group, due);
            } else if (learn >= 0) {
                t->fo_pending[learn] = 0;
                group_update(t, learn, due);
            } else {
                t->fo_due[g] = NO_END;
                /* Still down and still the master: world_failover. */
                int down_master = 0;
                for (int k = 0; k < t->per_group; k++)
                    if (t->mask[g] == 1u << k && !t->up[g * t->per_group + k]) down_master = 1;
                if (down_master) failover(t, g, due);
                group_update(t, g, due);
            }
        }
        if (i >= n) break;
        apply_node_line(t, lines[i], at);
        for (int gg = 0; gg < s->nodes; gg++) group_update(t, gg, at);
    }
    for (int g = 0; g < s->nodes; g++) {
        seg_close(t, g, NO_END);
        if (t->state[g]) pset_add(&t->group_set[g], t->state_since[g], NO_END, t->state[g]);
    }
}

/* ---------------------------------------------------------- the links */

/* Does rule side pair (a, b) join client c and node m, either way? */
static int joins(const scn_step *st, int c, int m)
{
    return (scn_side_has_client(&st->end_a, c) && scn_side_has_node(&st->end_b, m)) ||
           (scn_side_has_client(&st->end_b, c) && scn_side_has_node(&st->end_a, m));
}

static int joins_mask(const topo *t, const scn_step *st, int c, const seg *sg)
{
    for (int k = 0; k < t->per_group; k++)
        if ((sg->mask >> k & 1) && joins(st, c, sg->group * t->per_group + k)) return 1;
    return 0;
}

/* One delay rule on the link of a client and a group: D each way. */
typedef struct slow {
    int64_t from, to, by;
} slow;

/* The crossings of a slowed link a waiter may need after the release:
 * five for a wait that began in the stretch (above). */
#define WAKE_CROSSINGS 5

/* Adds to s the delay periods of one client and group: where the delays
 * in force add up to D each way and a waiter's crossings add
 * WAKE_CROSSINGS x D of at least the bound, the link is impaired, and
 * stays so 2D after (what was sent before lands). */
static void add_delays(pset *s, const slow *v, size_t n, int64_t bound_us)
{
    for (size_t i = 0; i < n; i++) {
        int64_t cuts[2] = {v[i].from, v[i].to};
        for (int c = 0; c < 2; c++) {
            int64_t a = cuts[c];
            if (a == NO_END) continue;
            /* The stretch from a to the next boundary of any rule. */
            int64_t b = NO_END, d = 0;
            for (size_t j = 0; j < n; j++) {
                if (v[j].from > a && v[j].from < b) b = v[j].from;
                if (v[j].to > a && v[j].to < b) b = v[j].to;
                if (v[j].from <= a && v[j].to > a) d += v[j].by;
            }
            if (d > 0 && WAKE_CROSSINGS * d >= bound_us) pset_add(s, a, plus(b, 2 * d), kind_bit(SCN_FAULT_DELAY));
        }
    }
}

/* The window [*from, *to) of link-rule line i (partition, drop, delay,
 * drop-reply, raw fiu), or 0 when it impairs nothing. */
static int rule_window(const scn_step *const *lines, size_t n, size_t i, int64_t *from, int64_t *to)
{
    const scn_step *st = lines[i];
    *from = st->at_us;
    *to = st->for_us ? plus(st->at_us, st->for_us) : NO_END;
    switch (st->op) {
    case SCN_FAULT_PARTITION:
        for (size_t j = i + 1; j < n; j++) /* heal ends every partition there is */
            if (lines[j]->op == SCN_FAULT_HEAL && lines[j]->at_us < *to) {
                *to = lines[j]->at_us;
                break;
            }
        return 1;
    case SCN_FAULT_DROP:
    case SCN_FAULT_DROP_REPLY: return st->p_ppm > 0;
    case SCN_FAULT_DELAY: return st->by_us > 0;
    case SCN_FAULT_FIU:
        return st->p_ppm > 0 && (!strcmp(st->point, "net/partition") || !strcmp(st->point, "net/drop") ||
                                 !strcmp(st->point, "net/drop-reply"));
    default: return 0;
    }
}

/* The client-level periods of client c toward group g. */
static void client_periods(const topo *t, const scn_step *const *lines, size_t n, int c, int g, int64_t bound_us,
                           int64_t reconnect_us, pset *out)
{
    slow *sl = NULL;
    size_t nsl = 0;
    for (size_t i = 0; i < n; i++) {
        const scn_step *st = lines[i];
        int64_t from, to;
        if (st->op == SCN_FAULT_PAUSE && st->node_index < 0 && st->client == c) {
            pset_add(out, st->at_us, plus(st->at_us, st->for_us), kind_bit(SCN_FAULT_PAUSE));
            continue;
        }
        if (st->op == SCN_FAULT_DISCONNECT && st->client == c) {
            pset_add(out, st->at_us, plus(st->at_us, reconnect_us), kind_bit(SCN_FAULT_DISCONNECT));
            continue;
        }
        if (!rule_window(lines, n, i, &from, &to)) continue;
        if (st->op == SCN_FAULT_FIU || st->op == SCN_FAULT_DROP_REPLY) {
            if (st->op == SCN_FAULT_FIU || st->client == 0 || st->client == c)
                pset_add(out, from, to, kind_bit(st->op));
            continue;
        }
        for (size_t k = 0; k < t->nsegs; k++) {
            const seg *sg = &t->segs[k];
            if (sg->group != g || sg->to <= from || sg->from >= to || !joins_mask(t, st, c, sg)) continue;
            int64_t a = sg->from > from ? sg->from : from, b = sg->to < to ? sg->to : to;
            if (st->op != SCN_FAULT_DELAY) {
                pset_add(out, a, b, kind_bit(st->op));
                continue;
            }
            sl = sim_xrealloc(sl, (nsl + 1) * sizeof *sl);
            sl[nsl++] = (slow){a, b, st->by_us};
        }
    }
    add_delays(out, sl, nsl, bound_us);
    sim_xfree(sl);
}

/* A process paused when the master of group g crashes learns that its
 * connections dropped only when it resumes ("connection to redis0 lost"
 * at the resume), and reconnects then: client c is impaired for the
 * reconnect after each of its pauses in which that happened. (A
 * disconnect drops them at once: its reconnect timer only runs late.) */
static void resume_reconnects(const topo *t, const scn_step *const *lines, size_t n, int c, int g,
                              int64_t reconnect_us, pset *out)
{
    const pset *gs = &t->group_set[g];
    for (size_t i = 0; i < n; i++) {
        const scn_step *st = lines[i];
        if (st->op != SCN_FAULT_PAUSE || st->node_index >= 0 || st->client != c) continue;
        int64_t a = st->at_us, b = plus(st->at_us, st->for_us);
        for (size_t k = 0; k < gs->n; k++)
            if ((gs->v[k].kinds & CHECK_IMP_NODE_CRASH) && gs->v[k].from_us >= a && gs->v[k].from_us < b) {
                pset_add(out, b, plus(b, reconnect_us), CHECK_IMP_PAUSE | CHECK_IMP_NODE_CRASH);
                break;
            }
    }
}

/* ------------------------------------------------------------- building */

typedef struct ordered {
    const scn_step *st;
    size_t i; /* the schedule's order among lines of one time */
} ordered;

static int cmp_line(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->st->at_us != y->st->at_us) return x->st->at_us < y->st->at_us ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

check_impaired *check_impaired_build(const check_input *in)
{
    check_impaired *im = sim_xcalloc(1, sizeof *im);
    const scenario *s = in->s;
    im->nlocks = in->nlocks;
    im->lock_group = in->lock_group;
    if (s == NULL) return im;
    im->nclients = scn_max_client(s);
    im->ngroups = s->nodes;
    sim_assert(s->nodes >= 1 && 1 + s->replicas <= 32);
    /* The fault lines in the order the schedule applies them: the
     * scenario's in file order, then the nemesis's, by time (stable). */
    size_t n = 0;
    ordered *lines = sim_xcalloc(s->nsteps + in->ngenerated + 1, sizeof *lines);
    for (size_t i = 0; i < s->nsteps; i++)
        if (scn_op_is_fault(s->steps[i].op)) lines[n] = (ordered){&s->steps[i], n}, n++;
    for (size_t i = 0; i < in->ngenerated; i++) lines[n] = (ordered){&in->generated[i], n}, n++;
    qsort(lines, n, sizeof *lines, cmp_line);
    const scn_step **sorted = sim_xcalloc(n + 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++) sorted[i] = lines[i].st;
    sim_xfree(lines);

    topo t = {.s = s, .synced = in->synced, .per_group = 1 + s->replicas};
    int nn = s->nodes * t.per_group;
    t.up = sim_xcalloc((size_t)nn, sizeof *t.up);
    t.paused = sim_xcalloc((size_t)nn, sizeof *t.paused);
    t.pause_end = sim_xcalloc((size_t)nn, sizeof *t.pause_end);
    for (int i = 0; i < nn; i++) t.up[i] = 1, t.pause_end[i] = NO_END;
    t.mask = sim_xcalloc((size_t)s->nodes, sizeof *t.mask);
    t.mask_since = sim_xcalloc((size_t)s->nodes, sizeof *t.mask_since);
    t.fo_due = sim_xcalloc((size_t)s->nodes, sizeof *t.fo_due);
    t.fo_until = sim_xcalloc((size_t)s->nodes, sizeof *t.fo_until);
    t.fo_pending = sim_xcalloc((size_t)s->nodes, sizeof *t.fo_pending);
    t.state = sim_xcalloc((size_t)s->nodes, sizeof *t.state);
    t.state_since = sim_xcalloc((size_t)s->nodes, sizeof *t.state_since);
    t.group_set = sim_xcalloc((size_t)s->nodes, sizeof *t.group_set);
    t.replica_set = sim_xcalloc((size_t)s->nodes, sizeof *t.replica_set);
    for (int g = 0; g < s->nodes; g++) {
        t.mask[g] = 1; /* node 0 of each group starts as its master */
        t.fo_due[g] = NO_END;
        t.fo_until[g] = INT64_MIN;
    }
    topo_run(&t, sorted, n);

    int stride = im->ngroups + 1;
    im->per = sim_xcalloc((size_t)im->nclients * (size_t)stride + 1, sizeof *im->per);
    for (int c = 1; c <= im->nclients; c++) {
        pset *any = &im->per[(c - 1) * stride + im->ngroups];
        for (int g = 0; g < im->ngroups; g++) {
            pset *p = &im->per[(c - 1) * stride + g];
            for (size_t k = 0; k < t.group_set[g].n; k++) {
                const check_period *x = &t.group_set[g].v[k];
                /* A master back from a crash: the clients' reconnect
                 * timers; a failover's clients connect at discovery. */
                int reconnect = (x->kinds & CHECK_IMP_NODE_CRASH) && !(x->kinds & CHECK_IMP_FAILOVER);
                pset_add(p, x->from_us, reconnect ? plus(x->to_us, in->reconnect_us) : x->to_us, x->kinds);
            }
            for (size_t k = 0; k < t.replica_set[g].n; k++) { /* no connection of the clients was lost */
                const check_period *x = &t.replica_set[g].v[k];
                pset_add(p, x->from_us, x->to_us, x->kinds);
            }
            client_periods(&t, sorted, n, c, g, in->liveness_bound_us, in->reconnect_us, p);
            resume_reconnects(&t, sorted, n, c, g, in->reconnect_us, p);
            pset_merge(p);
            for (size_t k = 0; k < p->n; k++) pset_add(any, p->v[k].from_us, p->v[k].to_us, p->v[k].kinds);
        }
        pset_merge(any);
    }
    for (int g = 0; g < s->nodes; g++) sim_xfree(t.group_set[g].v), sim_xfree(t.replica_set[g].v);
    sim_xfree(t.group_set);
    sim_xfree(t.replica_set);
    sim_xfree(t.up);
    sim_xfree(t.paused);
    sim_xfree(t.pause_end);
    sim_xfree(t.mask);
    sim_xfree(t.mask_since);
    sim_xfree(t.fo_due);
    sim_xfree(t.fo_until);
    sim_xfree(t.fo_pending);
    sim_xfree(t.state);
    sim_xfree(t.state_since);
    sim_xfree(t.segs);
    sim_xfree(sorted);
    return im;
}

void check_impaired_free(check_impaired *im)
{
    if (im == NULL) return;
    if (im->per)
        for (size_t i = 0; i < (size_t)im->nclients * (size_t)(im->ngroups + 1); i++) sim_xfree(im->per[i].v);
    sim_xfree(im->per);
    sim_xfree(im);
}

/* ------------------------------------------------------------- queries */

const check_period *check_impaired_of(const check_impaired *im, int client, int lock, size_t *n)
{
    *n = 0;
    if (im == NULL || im->per == NULL || client < 1 || client > im->nclients) return NULL;
    int g = im->lock_group && lock >= 0 && lock < im->nlocks ? im->lock_group[lock] : 0;
    if (g < 0 || g >= im->ngroups) g = im->ngroups; /* a lock across groups: any of them */
    const pset *p = &im->per[(client - 1) * (im->ngroups + 1) + g];
    *n = p->n;
    return p->v;
}

/* The first period of v[0..n) that ends after t. */
static size_t first_after(const check_period *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].to_us <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int check_impaired_at(const check_impaired *im, int client, int lock, int64_t t)
{
    size_t n;
    const check_period *v = check_impaired_of(im, client, lock, &n);
    size_t i = first_after(v, n, t);
    return i < n && v[i].from_us <= t;
}

unsigned check_impaired_kinds_at(const check_impaired *im, int client, int lock, int64_t t)
{
    size_t n;
    const check_period *v = check_impaired_of(im, client, lock, &n);
    size_t i = first_after(v, n, t);
    return i < n && v[i].from_us <= t ? v[i].kinds : 0;
}

int check_impaired_next(const check_impaired *im, int client, int lock, int64_t *t, int64_t to, int64_t *a,
                        int64_t *b)
{
    size_t n;
    const check_period *v = check_impaired_of(im, client, lock, &n);
    int64_t x = *t;
    for (size_t i = first_after(v, n, x); x < to; i++) {
        if (i < n && v[i].from_us <= x) { /* impaired at x: skip to its end */
            x = v[i].to_us;
            continue;
        }
        int64_t end = i < n && v[i].from_us < to ? v[i].from_us : to;
        *a = x;
        *b = end;
        *t = end;
        return 1;
    }
    *t = to;
    return 0;
}

int64_t check_impaired_within(const check_impaired *im, int client, int lock, int64_t from, int64_t to,
                              unsigned *kinds)
{
    size_t n;
    const check_period *v = check_impaired_of(im, client, lock, &n);
    int64_t sum = 0;
    for (size_t i = first_after(v, n, from); i < n && v[i].from_us < to; i++) {
        int64_t a = v[i].from_us > from ? v[i].from_us : from, b = v[i].to_us < to ? v[i].to_us : to;
        sum += b - a;
        if (kinds) *kinds |= v[i].kinds;
    }
    return sum;
}

static const char *const kind_names[] = {"partition", "drop", "drop-reply", "delay", "disconnect", "pause",
                                         "node-crash", "node-pause", "failover", "fiu"};

size_t check_impaired_told(const check_impaired *im, int client, int lock, int64_t from, int64_t to, char *buf,
                           size_t cap)
{
    unsigned kinds = 0;
    int64_t us = check_impaired_within(im, client, lock, from, to, &kinds);
    sim_assert(cap > 0);
    buf[0] = 0;
    if (us == 0) return 0;
    size_t len = (size_t)snprintf(buf, cap, "; %lldms of it not counted: the waiter could not reach the master (",
                                  (long long)(us / 1000));
    const char *sep = "";
    for (size_t b = 0; b < sizeof kind_names / sizeof *kind_names && len < cap; b++) {
        if (!(kinds >> b & 1)) continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, kind_names[b]);
        sep = ", ";
    }
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, ")");
    return len < cap ? len : cap - 1;
}
