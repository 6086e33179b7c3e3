/* hunt.c — the base scenario of a hunt, and failure signatures (hunt.h). */
#include <stdio.h>
#include <string.h>

#include "faults/fault.h"
#include "protocols/policy.h"
#include "protocols/protocol.h"
#include "sim/engine/hunt.h"

_Static_assert(HUNT_KINDS <= 32, "a signature's kinds fit an unsigned");
_Static_assert(!(HUNT_LINE_KINDS & HUNT_KIND_LEASE_EXPIRY), "lease-expiry is a cause, not a fault line");

/* ------------------------------------------------------------ templates */

/* The workload shapes of faults/swarm.c's last draws, for a protocol that
 * declares the invariants inv:
 *  - a third of the tryLock seeds take no wait (tryLock(-1, lease), the
 *    form whose member leases MultiLock 3.10 got wrong);
 *  - a third of the fixed-lease seeds give each acquire a lease of its own
 *    (readers and writers with leases of their own: a short one can cut a
 *    long one's), holds kept under each one's own lease;
 *  - a quarter retry a release that failed: the signature says so
 *    (retry-unlock), as it is the application's double release;
 *  - read/write locks: half the seeds re-enter on the other side (a
 *    downgrade, an upgrade under the watchdog) and release in either
 *    order, and half the watchdog seeds hold past the watchdog
 *    timeout (the write kept alive by its watchdog alone); Redisson's
 *    other locks a quarter (no renewal comes under a shorter hold, so
 *    none can fail);
 *  - expirable semaphores: a quarter of the fixed-lease seeds hold past the
 *    permits' lease, which their checker tells from a bug (a release
 *    answered past the lease; a permit taken from a lapsed holder is
 *    lease-expiry). Elsewhere a hold past the lease stays out: nothing
 *    tells the application's error from the lock's there but a lock's
 *    mutual exclusion. */
static void template_shapes(FILE *f, const proto_def *pd, unsigned inv)
{
    fprintf(f, "nowait = 33%%\nlease-spread = 33%%\nretry-unlock = 25%%\n");
    if (inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) fprintf(f, "switch = 50%%\nlong-hold = 50%%\n");
    else if ((inv & PROTO_INV(SCN_INV_MUTEX)) && !strncmp(pd->name, "redisson.", 9)) fprintf(f, "long-hold = 25%%\n");
    if (inv & PROTO_INV(SCN_INV_LEASES)) fprintf(f, "overrun = 25%%\n");
}

/* The protocol's own settings the swarm draws: a semaphore lends permits
 * by addPermits in a third of the seeds (the wake-up of a waiter when
 * permits are added, 3.16.2); the fair lock's threadWaitTime within 5 s
 * .. 20 min (Redisson's 5 s up to 3.13.2, 5 min since, longer where a
 * queue must outlast long holds: how long a dead waiter holds the queue,
 * and its busy-polling followers with it). Over half the seeds draw a
 * minute or more: the deadlines of a busy queue drift into the past in
 * about threadWaitTime (known bug fair-contention-purges-live-waiters),
 * which breaks fifo in a 60 s run below that and masks every fair-lock
 * bug that keeps fifo. */
static void template_protocol(FILE *f, const proto_def *pd, unsigned inv)
{
    if (pd->steps & PROTO_STEP(SCN_OP_ADDPERMITS)) fprintf(f, "addpermits = 33%%\n");
    /* A semaphore's permits have no lease to outlast: half its seeds hold
     * for seconds (the expirable semaphore's: half its seeds without a
     * lease on the permits; overrun keeps the others'). A wake-up that
     * completes one of two waiters leaves the other beside the permits
     * until the next release (known bug semaphore-async-one-listener),
     * and a release message lost with no release after it for seconds
     * leaves its waiter so (semaphore-lost-release-message, and the
     * expirable one's): with holds under 500 ms the next release always
     * came within the liveness bound. */
    if (inv & PROTO_INV(SCN_INV_PERMITS)) fprintf(f, "slow = 50%%\n");
    /* A tenth of them count permits near Java's int limit, where the
     * latch of a waiter overflowed up to 3.15.5. (The expirable
     * semaphore's permits are ids, one each: not there.) */
    if (proto_counts_permits(pd)) fprintf(f, "huge = 10%%\n");
    /* Half of them acquire one permit a cycle and lend one or two: waiters
     * that want different counts starve each other in every version
     * (mixed-n), which hides what befalls two that want one each, as one
     * message completing one of two futures after addPermits(2) (known
     * bug semaphore-async-one-listener). */
    if (proto_counts_permits(pd)) fprintf(f, "single = 50%%\n");
    if (strstr(pd->name, "fairlock")) fprintf(f, "thread-wait-time = 5s..20m\n");
    /* Half a latch's seeds arm it again once it opened (trySetCount):
     * several openings a run, each a ZERO message a fault or a race can
     * meet (known bug latch-await-async-zero-before-listener). */
    if (pd->steps & PROTO_STEP(SCN_OP_TRYSETCOUNT)) fprintf(f, "rearm = 50%%\n");
}

char *hunt_template(const char *target, scn_error *err)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", target);
    const proto_def *pd = proto_find(target);
    if (pd == NULL) {
        proto_unknown_reason(target, err->msg, sizeof err->msg);
        return NULL;
    }
    unsigned inv = proto_invariants(pd);
    int nodes = 1, members = 0;
    const char *extra = "", *clients_extra = "";
    if (pd->impl.proc_init == pol_generic_impl.proc_init) {
        const pol_policy *pol = pd->impl.cfg;
        nodes = pol->masters;
    } else if (strstr(pd->name, "multilock") || strstr(pd->name, "redlock")) {
        nodes = members = 3;
    }
    /* A protocol with fencing tokens writes to the fenced resource in
     * every critical section; half the seeds' resources refuse stale
     * tokens (a refused write keeps fencing), half accept them. */
    int fenced = (inv & PROTO_INV(SCN_INV_FENCING)) && pd->impl.token != NULL;
    if (inv & PROTO_INV(SCN_INV_PERMITS)) extra = "permits = 3\n", clients_extra = "permits = 1..2\n";
    /* A latch opens once, at its second countDown: threads that start
     * within 30 s put that moment (its ZERO message) where the nemesis
     * is, with awaiters already waiting. Three latches, each cycle on
     * one of them, open three times a run: three ZERO messages a fault
     * can meet (one latch: 2.8% of 400 drop-pubsub seeds failed, three:
     * 5.5%). */
    else if (inv & PROTO_INV(SCN_INV_LATCH))
        extra = "count = 2\nlocks = l1, l2, l3\n", clients_extra = "start = 0ms..30s\n";
    else if (inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) clients_extra = "read-ratio = 0.5\n";
    /* A latch's t1 counts down and the others await: two awaiters of one
     * process need three threads (the ZERO message runs its listeners). */
    const char *threads = (inv & PROTO_INV(SCN_INV_LATCH)) ? "1..4" : "1..2";
    char members_line[32] = "";
    if (members) snprintf(members_line, sizeof members_line, "members = %d\n", members);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sim_assert(f != NULL);
    fprintf(f,
            "[scenario]\nname = hunt %s\nduration = 60s\n\n"
            "[redis]\nnodes = %d\nreplicas = 1\n\n"
            "[protocol]\nname = %s\n%s%s\n"
            "[clients]\ncount = 3\n%s\n"
            "[nemesis]\nkinds = any\n\n"
            /* Hold times stay under the shortest lease: a section slower
             * than its lease is a finding of its own, not a fault's. */
            "[swarm]\nclients = 2..5\nthreads = %s\nhold = 1ms..500ms\nthink = 1ms..1s\nlease = 2s..30s\n"
            /* Half the seeds wait by tryLock(wait), whose timeouts have
             * bugs of their own; half wait through the async API where
             * the protocol has one. */
            "trylock = 50%%\nwait = 10ms..10s\n%s"
            /* Faults a time-drawn nemesis cannot aim: a client machine's
             * clock set off, a crash between a command's reply and the
             * next command. */
            "client-clock = 30%%\ncrash-on-reply = 30%%\n%s"
            /* Half the seeds keep none, one or two of their kinds: a
             * fault that fails a lock on its own is masked by a crowd. */
            "focus = 50%%\n"
            /* A quarter think for seconds: a lock left idle, where a
             * waiter that missed its message waits past the liveness
             * bound instead of being woken by the next release. */
            "idle = 25%%\n",
            pd->name, nodes, pd->name, members_line, extra, clients_extra, threads,
            (pd->steps & PROTO_ASYNC) ? "async = 50%\n" : "", fenced ? "reject-stale = 50%\n" : "");
    template_shapes(f, pd, inv);
    template_protocol(f, pd, inv);
    if (fenced) fprintf(f, "\n[resource]\nenabled = yes\n");
    fclose(f);
    return text;
}

/* --------------------------------------------------------------- kinds */

unsigned hunt_kind_of(const scn_step *st)
{
    int node = st->node_index >= 0;
    switch (st->op) {
    case SCN_FAULT_PAUSE: return node ? SCN_NEM_NODE_PAUSE : SCN_NEM_PAUSE;
    case SCN_FAULT_CRASH: return node ? SCN_NEM_NODE_CRASH : SCN_NEM_CRASH;
    case SCN_FAULT_CLOCK: return st->client > 0 ? SCN_NEM_CLIENT_CLOCK : SCN_NEM_CLOCK; /* a machine's or a node's */
    case SCN_FAULT_PARTITION: return SCN_NEM_PARTITION;
    case SCN_FAULT_DELAY: return SCN_NEM_DELAY;
    case SCN_FAULT_DROP: return HUNT_KIND_DROP;
    case SCN_FAULT_DROP_REPLY: return SCN_NEM_DROP_REPLY;
    case SCN_FAULT_DROP_PUBSUB: return SCN_NEM_DROP_PUBSUB;
    case SCN_FAULT_DISCONNECT: return SCN_NEM_DISCONNECT;
    case SCN_FAULT_FAILOVER: return SCN_NEM_FAILOVER;
    case SCN_FAULT_FIU: return HUNT_KIND_FIU;
    case SCN_FAULT_FAIL_REPLY:
        return st->reply_cmd == SCN_REPLY_ACQUIRE  ? HUNT_KIND_FAIL_ACQUIRE
               : st->reply_cmd == SCN_REPLY_UNLOCK ? HUNT_KIND_FAIL_UNLOCK
                                                   : HUNT_KIND_FAIL_RENEW;
    default: return 0; /* client operations; restart and heal end a fault */
    }
}

unsigned hunt_kinds(const scn_step *v, size_t n, int64_t from_us, int64_t to_us)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].at_us >= from_us && v[i].at_us <= to_us) k |= hunt_kind_of(&v[i]);
    return k;
}

unsigned hunt_drawable_kinds(const scenario *s)
{
    unsigned k = hunt_kinds(s->steps, s->nsteps, INT64_MIN, INT64_MAX) | (HUNT_ALL_KINDS & ~HUNT_DRAWN_KINDS);
    /* Steps name their own threads, API and operations: any wait. */
    if (s->async || s->nsteps > 0) k |= HUNT_KIND_ASYNC_WAIT | HUNT_KIND_LATE_LISTENER;
    if (s->threads >= 2 || s->nsteps > 0) k |= HUNT_KIND_SIBLING | HUNT_KIND_MIXED_N;
    if (s->addpermits_ppm > 0 || s->nsteps > 0) k |= HUNT_KIND_ADDED | HUNT_KIND_ADD_RESENT;
    if (s->mode == SCN_MODE_LOCK || s->nsteps > 0) k |= HUNT_KIND_PARKED; /* tryLock(wait) never parks */
    if (s->nemesis && s->nemesis_any) return k | HUNT_LINE_KINDS;
    for (int b = 0; s->nemesis && b < SCN_NEM_COUNT; b++) {
        if (!(s->nemesis_kinds & (1 << b))) continue;
        k |= (1 << b) == SCN_NEM_FAIL_REPLY ? HUNT_KIND_FAIL_ACQUIRE | HUNT_KIND_FAIL_UNLOCK | HUNT_KIND_FAIL_RENEW
                                            : 1u << b;
    }
    return k;
}

unsigned hunt_seed_kinds(const scenario *base, uint64_t seed)
{
    char desc[512];
    scenario *c = fault_swarm_draw(base, seed, desc, sizeof desc);
    unsigned k = hunt_drawable_kinds(c);
    fault_swarm_free(c);
    return k;
}

int hunt_keeps_kinds(const scenario *cand, const shrink_failure *got, void *kinds)
{
    unsigned want = *(const unsigned *)kinds & HUNT_LINE_KINDS;
    int64_t by = got && got->at_us >= 0 ? got->at_us : INT64_MAX;
    return cand->nemesis || (hunt_kinds(cand->steps, cand->nsteps, 0, by) & want) == want;
}

int hunt_unwanted_line(const scn_step *line, void *kinds)
{
    unsigned k = hunt_kind_of(line);
    return k != 0 && !(k & *(const unsigned *)kinds & HUNT_LINE_KINDS);
}

unsigned hunt_spare_kinds(const scenario *s, uint64_t seed, const shrink_failure *want, unsigned kinds)
{
    unsigned spare = 0, present = hunt_kinds(s->steps, s->nsteps, 0, INT64_MAX) & kinds & HUNT_LINE_KINDS;
    scn_step *kept = sim_xmalloc((s->nsteps + 1) * sizeof *kept);
    for (int b = 0; b < HUNT_KINDS; b++) {
        unsigned bit = 1u << b;
        if (!(present & bit)) continue;
        scenario c = *s; /* shares all but its steps; run_scenario only reads */
        size_t n = 0;
        for (size_t i = 0; i < s->nsteps; i++)
            if (!(hunt_kind_of(&s->steps[i]) & bit)) kept[n++] = s->steps[i];
        sim_assert(n < s->nsteps);
        c.steps = kept, c.nsteps = n, c.steps_cap = n;
        shrink_failure got;
        if (shrink_fails_same(&c, seed, want, &got)) spare |= bit;
    }
    sim_xfree(kept);
    return spare;
}

/* ---------------------------------------------------------- signatures */

/* The signature bits a violation's cause adds to the fault kinds. */
static unsigned cause_kinds(unsigned cause)
{
    return ((cause & CHECK_CAUSE_LEASE_RAN_OUT) ? HUNT_KIND_LEASE_EXPIRY : 0) |
           ((cause & CHECK_CAUSE_WAIT_MANY) ? HUNT_KIND_WAIT_MANY : 0) |
           ((cause & CHECK_CAUSE_MIXED_N) ? HUNT_KIND_MIXED_N : 0) |
           ((cause & CHECK_CAUSE_ASYNC) ? HUNT_KIND_ASYNC_WAIT : 0) |
           ((cause & (CHECK_CAUSE_SIBLING | CHECK_CAUSE_MIXED_N)) == CHECK_CAUSE_SIBLING ? HUNT_KIND_SIBLING : 0) |
           ((cause & CHECK_CAUSE_RETRIED_RELEASE) ? HUNT_KIND_RETRY_UNLOCK : 0) |
           ((cause & CHECK_CAUSE_FAILED_OP) ? HUNT_KIND_FAILED_OP : 0) |
           ((cause & CHECK_CAUSE_ADDED) ? HUNT_KIND_ADDED : 0) |
           ((cause & CHECK_CAUSE_LATE_LISTENER) ? HUNT_KIND_LATE_LISTENER : 0) |
           ((cause & CHECK_CAUSE_ADD_RESENT) ? HUNT_KIND_ADD_RESENT : 0) |
           ((cause & CHECK_CAUSE_OVER_WRITE) ? HUNT_KIND_OVER_WRITE : 0) |
           ((cause & CHECK_CAUSE_PARKED) ? HUNT_KIND_PARKED : 0);
}

/* The kinds a run and a target must share exactly: how the violation came
 * about, not a fault other faults may come with. */
#define CAUSE_KINDS \
    (HUNT_KIND_LEASE_EXPIRY | HUNT_KIND_RETRY_UNLOCK | HUNT_KIND_FAILED_OP | HUNT_KIND_ADDED | \
     HUNT_KIND_LATE_LISTENER | HUNT_KIND_ADD_RESENT | HUNT_KIND_OVER_WRITE | HUNT_KIND_PARKED)

int hunt_run_sig(const run_result *r, hunt_sig *sig)
{
    shrink_failure f;
    /* The runs of a draw have no kind it lacks (its own lines' are in it
     * by definition): what --want's skipped seeds rely on. */
    unsigned can = hunt_drawable_kinds(r->s);
    sim_assert((hunt_kinds(r->generated, r->ngenerated, INT64_MIN, INT64_MAX) & ~can) == 0);
    if (!shrink_classify(r, &f)) return 0;
    sig->inv = f.inv;
    sig->invs = f.invs;
    int64_t to = f.at_us >= 0 ? f.at_us : r->virtual_us;
    int64_t from = to > HUNT_WINDOW_US ? to - HUNT_WINDOW_US : 0;
    /* A verdict judged at the end of the run (deadlock: who still waits
     * then) may come from a fault of any time, and the nemesis stops long
     * before the end: the window is the whole run. */
    if (f.at_us >= r->virtual_us) from = 0;
    sig->kinds = hunt_kinds(r->s->steps, r->s->nsteps, from, to) | hunt_kinds(r->generated, r->ngenerated, from, to) |
                 cause_kinds(f.cause | f.causes);
    sig->held = 0;
    sim_assert((sig->kinds & ~can) == 0);
    return 1;
}

void hunt_shrunk_sig(const shrink_result *k, hunt_sig *sig)
{
    sig->inv = k->last.inv;
    sig->invs = k->last.invs;
    sig->kinds = hunt_kinds(k->out.steps, k->out.nsteps, 0, INT64_MAX) | cause_kinds(k->last.cause | k->last.causes);
    sig->held = 0;
}

int hunt_sig_covers(const hunt_sig *run, const hunt_sig *target)
{
    return (run->invs & target->invs) == target->invs && (run->kinds & target->kinds) == target->kinds &&
           (run->kinds & CAUSE_KINDS) == (target->kinds & CAUSE_KINDS);
}

int hunt_sig_matches(const hunt_sig *got, const hunt_sig *want)
{
    return (got->invs & want->invs) == want->invs && (got->invs & want->held) == 0 && got->kinds == want->kinds;
}

int hunt_sig_equal(const hunt_sig *a, const hunt_sig *b)
{
    return a->inv == b->inv && a->invs == b->invs && a->kinds == b->kinds;
}

/* " of an async mixed-n waiter": how the starving waiter waited (the
 * kinds named here), or "". */
static size_t shape_text(unsigned kinds, char *buf, size_t cap)
{
    static const struct {
        unsigned bit;
        const char *word;
    } words[] = {{HUNT_KIND_PARKED, "parked"},
                 {HUNT_KIND_ASYNC_WAIT, "async"},
                 {HUNT_KIND_SIBLING, "sibling"},
                 {HUNT_KIND_MIXED_N, "mixed-n"},
                 {HUNT_KIND_WAIT_MANY, "multi-permit"}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0] && n < cap; i++) {
        if (!(kinds & words[i].bit)) continue;
        const char *a = n ? "" : words[i].word[0] == 'a' ? " of an" : " of a";
        n += (size_t)snprintf(buf + n, cap - n, "%s %s", a, words[i].word);
    }
    if (n == 0 || cap == 0) return 0;
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, " waiter");
    return n < cap ? n : cap - 1;
}

/* The name of kind bit b after "after", or NULL for a kind the text says
 * otherwise (a wait's shape, a break over a write hold). */
static const char *fault_name(int b)
{
    static const char *const more[] = {"drop", "fiu", "lease-expiry", "fail-reply:acquire", "fail-reply:unlock",
                                       "fail-reply:renew", "retry-unlock", NULL, NULL, NULL, NULL, /* shapes */
                                       "failed-op", "add-permits", "late-listener",
                                       "add-resent", NULL /* over a write hold */, NULL /* parked */};
    _Static_assert(sizeof more / sizeof more[0] == HUNT_KINDS - SCN_NEM_COUNT, "a name for every kind");
    return b < SCN_NEM_COUNT ? scn_nemesis_kind_name(1 << b) : more[b - SCN_NEM_COUNT];
}

void hunt_sig_text(const hunt_sig *s, char *buf, size_t cap)
{
    size_t n = 0;
    unsigned faults = 0;
    for (int b = 0; b < HUNT_KINDS; b++)
        if ((s->kinds & (1u << b)) && fault_name(b) != NULL) faults |= 1u << b;
    if (s->invs == 0) n = (size_t)snprintf(buf, cap, "an expectation");
    for (int i = 0; i < SCN_INV_COUNT && n < cap; i++) /* the first broken first */
        if (i == s->inv && (s->invs & (1u << i))) n += (size_t)snprintf(buf + n, cap - n, "%s", scn_invariant_name((scn_invariant)i));
    for (int i = 0; i < SCN_INV_COUNT && n < cap; i++)
        if (i != s->inv && (s->invs & (1u << i)))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "+" : "", scn_invariant_name((scn_invariant)i));
    if (n < cap) n += shape_text(s->kinds, buf + n, cap - n);
    if ((s->kinds & HUNT_KIND_OVER_WRITE) && n < cap) n += (size_t)snprintf(buf + n, cap - n, " over a write hold");
    if (faults == 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (no fault)");
    if (faults != 0 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " after ");
    for (int b = 0, first = 1; b < HUNT_KINDS && n < cap; b++) {
        if (!(faults & (1u << b))) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", first ? "" : "+", fault_name(b));
        first = 0;
    }
    for (int i = 0, first = 1; i < SCN_INV_COUNT && n < cap; i++) { /* a wanted signature's */
        if (!(s->held & (1u << i))) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", first ? ", with " : "+", scn_invariant_name((scn_invariant)i));
        first = 0;
    }
    if (s->held && n < cap) snprintf(buf + n, cap - n, " held");
}
