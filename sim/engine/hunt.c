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

const proto_def *hunt_find(const char *name, scn_error *err)
{
    scn_error local;
    if (err == NULL) err = &local;
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", name);
    const proto_def *pd = proto_find(name);
    if (pd == NULL && name[0] == '/') {
        scenario probe; /* a policy file by its absolute path, as a scenario names it */
        memset(&probe, 0, sizeof probe);
        probe.protocol = (char *)name;
        probe.path = (char *)"hunt.scn";
        pd = proto_lookup(&probe, err); /* the protocol, not whether it can run this probe */
        if (pd == NULL && err->line > 0) return NULL; /* the file's own error */
        memset(err, 0, sizeof *err);
        snprintf(err->path, sizeof err->path, "%s", name);
    }
    if (pd == NULL) proto_unknown_reason(name, err->msg, sizeof err->msg);
    return pd;
}

/* What the protocols of a hunt declare: the target's, and with --against
 * only what the reference declares too, so that a seed draws the same
 * faults and workload for both. */
typedef struct declared {
    unsigned inv;       /* invariants both are judged by */
    uint64_t steps;     /* operations both run (PROTO_STEP bits, PROTO_ASYNC) */
    int renews;         /* both renew a held lease (a watchdog, a policy's [renew]) */
    int leases;         /* what both hold has a lease (a margin below INT64_MAX) */
    int permit_counts;  /* both count permits */
    int reentry;        /* both claim re-entry (a thread's second acquire counts) */
    int members;        /* member locks per lock (MultiLock, RedLock), 0 */
    int nodes;          /* masters */
    int lease_spread;   /* both take a lease per acquire (not one per key: lease-scope = key) */
} declared;

static int is_policy(const proto_def *pd)
{
    return pd->impl.proc_init == pol_generic_impl.proc_init;
}

/* Does pd renew a lease while it is held? Redisson's watchdog does (the
 * C protocols with a lease), a policy where it has a [renew] section. */
static int renews(const proto_def *pd, int leases)
{
    if (is_policy(pd)) return ((const pol_policy *)pd->impl.cfg)->renew.nsteps > 0;
    return leases && strncmp(pd->name, "baseline.", 9) != 0 && !(proto_invariants(pd) & PROTO_INV(SCN_INV_LEASES));
}

static void declare(const proto_def *pd, declared *d)
{
    scenario probe;
    memset(&probe, 0, sizeof probe); /* no lease per acquire */
    probe.lease_us = probe.watchdog_us = SIM_SEC(30);
    probe.hold = (scn_dist){SCN_DIST_CONST, SIM_MS(1), SIM_MS(1)};
    d->inv = proto_invariants(pd);
    d->steps = pd->steps;
    d->leases = proto_margin(pd, &probe) != INT64_MAX;
    d->renews = renews(pd, d->leases);
    d->permit_counts = proto_counts_permits(pd);
    d->reentry = proto_reentry(pd) != CL_REENTRY_NO;
    d->members = 0;
    d->nodes = 1;
    d->lease_spread = !(is_policy(pd) && ((const pol_policy *)pd->impl.cfg)->lease_key);
    if (is_policy(pd)) d->nodes = ((const pol_policy *)pd->impl.cfg)->masters;
    else if (pd->options && strstr(pd->options, "members = ")) d->nodes = d->members = 3; /* member locks */
}

/* The workload shapes, from what the protocols declare (faults/swarm.c
 * draws each for its share of the seeds):
 *  - every lock waits by tryLock(wait) in half the seeds, and a third of
 *    those take no wait (tryLock(-1, lease), an API form of its own);
 *  - a lease per acquire for a third of the fixed-lease seeds: holders
 *    with leases of their own;
 *  - a quarter retry a release that failed (the signature says so:
 *    retry-unlock, the application's double release);
 *  - read/write locks re-enter on the other side in half the seeds;
 *  - a re-entrant lock's re-entered cycles hold their outer section after
 *    the inner release in half the seeds (nested lock/unlock pairs; a
 *    read/write lock's do in its switch seeds, whose re-entries on the
 *    other side hold on under the side left);
 *  - a lease that renews is held past its renewal period in a quarter of
 *    the watchdog seeds (half for read/write locks, whose two sides renew
 *    apart): the renewal must come, and can fail;
 *  - a lease that renews: a quarter of the seeds end the work within the
 *    nemesis window (stop), the processes living on: a renewal is what
 *    can outlive the work, and a thread that goes on re-takes the lock
 *    and hides it (a fixed lease left behind ends by itself);
 *  - beyond the contract only: a fixed lease held past its end (overrun),
 *    the application's error, which a checker tells from the lock's
 *    (lease-expiry, a permit's lease). */
static void template_shapes(FILE *f, const declared *d, int beyond)
{
    /* Drawn for every protocol: where nothing held has a lease, the
     * acquire reads none of it, but the draw keeps every later draw of a
     * seed what it was (published seeds replay). */
    fprintf(f, "nowait = 33%%\nlease-spread = %d%%\nretry-unlock = 25%%\n", d->lease_spread ? 33 : 0);
    if (d->inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) fprintf(f, "switch = 50%%\n");
    if (d->renews) fprintf(f, "long-hold = %d%%\n", (d->inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) ? 50 : 25);
    if (beyond && d->leases && !d->renews) fprintf(f, "overrun = 25%%\n");
    if (d->reentry && !(d->inv & PROTO_INV(SCN_INV_RW_EXCLUSION))) fprintf(f, "nested = 50%%\n");
    if (d->renews) fprintf(f, "stop = 25%%\n");
}

/* The protocol's own operations and settings, each where it is declared:
 *  - addPermits (a third of the seeds lend permits);
 *  - permits with no lease: half the seeds hold for seconds (a waiter
 *    then waits on the next release, seconds away, instead of the next
 *    of many short holds);
 *  - counted permits: a tenth count them near Java's int limit (what
 *    Redisson keeps them in), and half acquire one permit a cycle (waiters
 *    of one count each, not mixed);
 *  - a wait queue with a deadline per waiter (fifo): its threadWaitTime
 *    within 5 s .. 20 min (how long a dead waiter holds the queue);
 *  - trySetCount: half the seeds arm a latch again once it opened;
 *  - an async API: half the seeds let an async wait's listener come up to
 *    1 ms after its latch check (the future's callback on another
 *    thread), where a message runs no listener. */
static void template_protocol(FILE *f, const declared *d)
{
    if (d->steps & PROTO_STEP(SCN_OP_ADDPERMITS)) fprintf(f, "addpermits = 33%%\n");
    if (d->inv & PROTO_INV(SCN_INV_PERMITS)) fprintf(f, "slow = 50%%\n");
    if (d->permit_counts) fprintf(f, "huge = 10%%\nsingle = 50%%\n");
    if (d->inv & PROTO_INV(SCN_INV_FIFO)) fprintf(f, "thread-wait-time = 5s..20m\n");
    if (d->steps & PROTO_STEP(SCN_OP_TRYSETCOUNT)) fprintf(f, "rearm = 50%%\n");
    if (d->steps & PROTO_ASYNC) fprintf(f, "listener-gap = 10us..1ms\n");
}

/* The kind of object a protocol locks, for --against: two protocols of
 * different kinds are not compared. */
static const char *kind_name(unsigned inv)
{
    if (inv & PROTO_INV(SCN_INV_LATCH)) return "a count-down latch";
    if (inv & PROTO_INV(SCN_INV_PERMITS)) return "a semaphore";
    if (inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) return "a read/write lock";
    return "a lock";
}

int hunt_comparable(const proto_def *a, const proto_def *b, char *why, size_t cap)
{
    const char *ka = kind_name(proto_invariants(a)), *kb = kind_name(proto_invariants(b));
    if (!strcmp(ka, kb)) return 1;
    snprintf(why, cap, "--against: %s is %s, %s is %s: a hunt compares two of a kind", a->name, ka, b->name, kb);
    return 0;
}

char *hunt_template(const char *target, const hunt_base_opts *o, scn_error *err)
{
    const proto_def *pd = hunt_find(target, err);
    if (pd == NULL) return NULL;
    declared d;
    declare(pd, &d);
    if (o && o->against) {
        const proto_def *ref = hunt_find(o->against, err);
        if (ref == NULL) {
            if (err->line == 0) {
                char why[sizeof err->msg];
                memcpy(why, err->msg, sizeof why);
                snprintf(err->msg, sizeof err->msg, "--against: %.490s", why);
            }
            return NULL;
        }
        declared r;
        declare(ref, &r);
        if (!hunt_comparable(pd, ref, err->msg, sizeof err->msg)) return NULL;
        d.inv &= r.inv;
        d.steps &= r.steps;
        d.renews &= r.renews;
        d.leases |= r.leases;
        d.permit_counts &= r.permit_counts;
        d.reentry &= r.reentry;
        d.lease_spread &= r.lease_spread;
        if (r.nodes > d.nodes) d.nodes = r.nodes;
        if (r.members != d.members) d.members = 0;
    }
    unsigned inv = d.inv;
    const char *extra = "", *clients_extra = "";
    /* A protocol with fencing tokens writes to the fenced resource in
     * every critical section; half the seeds' resources refuse stale
     * tokens (a refused write keeps fencing), half accept them. */
    int fenced = (inv & PROTO_INV(SCN_INV_FENCING)) && pd->impl.token != NULL &&
                 !(o && o->against && hunt_find(o->against, NULL)->impl.token == NULL);
    /* A policy semaphore has its file's permits, and takes n a cycle only
     * where a template names {n}. */
    const pol_policy *pol = is_policy(pd) ? pd->impl.cfg : NULL;
    if ((inv & PROTO_INV(SCN_INV_PERMITS)) && pol) clients_extra = pol->takes_n ? "permits = 1..2\n" : "";
    else if (inv & PROTO_INV(SCN_INV_PERMITS)) extra = "permits = 3\n", clients_extra = "permits = 1..2\n";
    /* A latch opens once, at its second countDown: threads that start
     * within 30 s open it while the nemesis runs, with awaiters already
     * waiting; three latches, each cycle on one of them, open three times
     * a run. */
    else if (inv & PROTO_INV(SCN_INV_LATCH))
        extra = "count = 2\nlocks = l1, l2, l3\n", clients_extra = "start = 0ms..30s\n";
    else if (inv & PROTO_INV(SCN_INV_RW_EXCLUSION)) clients_extra = "read-ratio = 0.5\n";
    /* A latch's t1 counts down and the others await: two awaiters of one
     * process need three threads. */
    const char *threads = (inv & PROTO_INV(SCN_INV_LATCH)) ? "1..4" : "1..2";
    char members_line[32] = "", contract[256] = "within-contract = yes\n";
    if (d.members) snprintf(members_line, sizeof members_line, "members = %d\n", d.members);
    if (o && o->beyond) contract[0] = '\0';
    else if (o && o->against) snprintf(contract, sizeof contract, "within-contract = yes\nreference = %s\n", o->against);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sim_assert(f != NULL);
    /* A lock policy file is named by its path: two policies may share a
     * [lock] name (a lock and its patched copy). */
    fprintf(f,
            "[scenario]\nname = hunt %s\nduration = 60s\n\n"
            "[redis]\nnodes = %d\nreplicas = 1\n\n"
            "[protocol]\nname = %s\n%s%s\n"
            "[clients]\ncount = 3\n%s\n"
            "[nemesis]\nkinds = any\n\n"
            /* Hold times stay under the shortest lease: a section slower
             * than its lease is the application's error, not a fault's. */
            "[swarm]\n%sclients = 2..5\nthreads = %s\nhold = 1ms..500ms\nthink = 1ms..1s\nlease = 2s..30s\n"
            /* Half the seeds wait by tryLock(wait), whose timeouts have
             * paths of their own; half wait through the async API where
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
             * waiter that missed its wake-up waits past the liveness
             * bound instead of being woken by the next release. */
            "idle = 25%%\n",
            pd->name, d.nodes, target[0] == '/' ? target : pd->name, members_line, extra, clients_extra, contract, threads,
            (d.steps & PROTO_ASYNC) ? "async = 50%\n" : "", fenced ? "reject-stale = 50%\n" : "");
    template_shapes(f, &d, o && o->beyond);
    template_protocol(f, &d);
    if (fenced) fprintf(f, "\n[resource]\nenabled = yes\n");
    fclose(f);
    return text;
}

/* --------------------------------------------------------------- kinds */

unsigned hunt_kind_of(const scn_step *st)
{
    switch (st->op) {
    case SCN_FAULT_DROP: return HUNT_KIND_DROP;
    case SCN_FAULT_FIU: return HUNT_KIND_FIU;
    case SCN_FAULT_FAIL_REPLY:
        return st->reply_cmd == SCN_REPLY_ACQUIRE  ? HUNT_KIND_FAIL_ACQUIRE
               : st->reply_cmd == SCN_REPLY_UNLOCK ? HUNT_KIND_FAIL_UNLOCK
                                                   : HUNT_KIND_FAIL_RENEW;
    default: return (unsigned)fault_kind_of(st);
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

/* The first reason a line of s or of the n generated ones, in [from,
 * to], is beyond s's protocol's contract (0: none). */
static int beyond_of(const scenario *s, const scn_step *gen, size_t n, int64_t from, int64_t to)
{
    scn_error err;
    const proto_def *pd = s->protocol ? proto_resolve(s, &err) : NULL;
    if (pd == NULL) return FAULT_WITHIN; /* a run resolves it; a result made by hand may name none */
    int why = fault_beyond_first(pd, s, s->steps, s->nsteps, from, to);
    return why ? why : fault_beyond_first(pd, s, gen, n, from, to);
}

/* A failure the application brought about, whatever the faults: an
 * operation it was told failed and may have run, a release it called
 * again, a thread waiting on its own hold. */
static int beyond_cause(unsigned kinds, unsigned cause)
{
    if (kinds & HUNT_KIND_FAILED_OP) return FAULT_BEYOND_UNDECIDED;
    if (kinds & HUNT_KIND_RETRY_UNLOCK) return FAULT_BEYOND_RETRY;
    if (cause & CHECK_CAUSE_SELF) return FAULT_BEYOND_SELF;
    return FAULT_WITHIN;
}

/* The kinds of the fault lines of r (its scenario's, then the nemesis's)
 * that acted in [from, to] (run_result.acted_us: a fail-reply line when
 * it spoiled its first reply; one that spoiled none did nothing). */
static unsigned acted_kinds(const run_result *r, int64_t from, int64_t to)
{
    if (r->acted_us == NULL) /* a result made by hand: the lines' own times */
        return hunt_kinds(r->s->steps, r->s->nsteps, from, to) | hunt_kinds(r->generated, r->ngenerated, from, to);
    unsigned k = 0;
    for (size_t i = 0; i < r->s->nsteps + r->ngenerated; i++) {
        const scn_step *st = i < r->s->nsteps ? &r->s->steps[i] : &r->generated[i - r->s->nsteps];
        if (r->acted_us[i] >= 0 && r->acted_us[i] >= from && r->acted_us[i] <= to) k |= hunt_kind_of(st);
    }
    return k;
}

/* The longest lease a hold of s may have: the lease, the watchdog's
 * timeout (what a renewal sets), a lease per acquire's top. */
static int64_t longest_lease(const scenario *s)
{
    int64_t l = s->lease_us == SCN_LEASE_WATCHDOG ? s->watchdog_us : s->lease_us > 0 ? s->lease_us : 0;
    if (scn_has_acquire_lease(s)) {
        int64_t top = s->acquire_lease.kind == SCN_DIST_UNIFORM ? s->acquire_lease.b_us : s->acquire_lease.a_us;
        if (top > l) l = top;
    }
    return l;
}

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
    /* A lease that ran out was last set a lease before: what stopped its
     * renewal (a renewal answered with an error that ends the watchdog)
     * came before that, and the window reaches back by the lease. */
    int64_t back = HUNT_WINDOW_US + (((f.cause | f.causes) & CHECK_CAUSE_LEASE_RAN_OUT) ? longest_lease(r->s) : 0);
    int64_t from = to > back ? to - back : 0;
    /* A verdict judged at the end of the run (deadlock: who still waits
     * then) may come from a fault of any time, and the nemesis stops long
     * before the end: the window is the whole run. */
    if (f.at_us >= r->virtual_us) from = 0;
    /* A violation that tells when its story began (a dead holder's crash,
     * a lease's grant) reaches back to it: the faults since then. */
    if (f.from_us >= 0 && f.from_us < from) from = f.from_us;
    sig->kinds = acted_kinds(r, from, to) | cause_kinds(f.cause | f.causes);
    sig->held = 0;
    sig->beyond = beyond_of(r->s, r->generated, r->ngenerated, from, to);
    if (!sig->beyond) sig->beyond = beyond_cause(sig->kinds, f.cause | f.causes);
    sim_assert((sig->kinds & ~can) == 0);
    return 1;
}

int hunt_run_sig_among(const run_result *r, unsigned mask, hunt_sig *sig)
{
    run_result f = *r; /* shallow: only its violations differ */
    check_violation *v = sim_xcalloc(r->checks.nv + 1, sizeof *v);
    size_t n = 0;
    unsigned all = 0;
    for (size_t i = 0; i < r->checks.nv; i++) {
        all |= 1u << r->checks.v[i].inv;
        if (mask & (1u << r->checks.v[i].inv)) v[n++] = r->checks.v[i];
    }
    f.checks.v = v;
    f.checks.nv = n;
    int ok = n > 0 && hunt_run_sig(&f, sig);
    if (ok) sig->invs |= all;
    sim_xfree(v);
    return ok;
}

void hunt_shrunk_sig(const shrink_result *k, hunt_sig *sig)
{
    sig->inv = k->last.inv;
    sig->invs = k->last.invs;
    sig->kinds = hunt_kinds(k->out.steps, k->out.nsteps, 0, INT64_MAX) | cause_kinds(k->last.cause | k->last.causes);
    sig->held = 0;
    sig->beyond = beyond_of(&k->out, NULL, 0, INT64_MIN, INT64_MAX);
    if (!sig->beyond) sig->beyond = beyond_cause(sig->kinds, k->last.cause | k->last.causes);
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
    return a->inv == b->inv && a->invs == b->invs && a->kinds == b->kinds && a->beyond == b->beyond;
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
