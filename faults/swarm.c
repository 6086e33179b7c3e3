/* swarm.c — swarm testing (Groce et al., ISSTA 2012; the FoundationDB and
 * TigerBeetle simulators): each seed draws, before its run, its own mix of
 * what a scenario leaves open — a random subset of the nemesis's fault
 * kinds with their interval, durations, window and loss probability, and
 * the workload's clients, threads, hold and think ranges, reentrancy (only
 * for a protocol that claims re-entry) and lease, and (when [swarm] names them) lock() or tryLock(wait), the sync
 * or async API, the workload's shapes (no wait, re-entries on the other
 * side, a lease per acquire, retried releases, holds past the lease or the
 * watchdog timeout), the nemesis's client-clock kind, crashes on a reply
 * and a resource that refuses stale tokens — within the bounds of
 * [swarm]. A random mix reaches states that "every fault at once" never
 * does (one kind of fault masks another).
 *
 * The draws come from a PRNG of their own, seeded from the seed alone, so
 * the run's own streams are untouched; integers only (no libm), so every
 * build draws the same. The result is a plain scenario: written out it
 * names every drawn value, and its nemesis draws the same faults. */
#include <stdio.h>
#include <string.h>

#include "faults/fault.h"
#include "protocols/protocol.h"

#define SWARM_SALT UINT64_C(0x5357524d5f4c4b53) /* "SWRM_LKS" */

/* The bounds [lo, hi] a [swarm] value gives (one value: lo = hi). */
static void bounds(const scn_dist *d, int64_t *lo, int64_t *hi)
{
    *lo = d->a_us;
    *hi = d->kind == SCN_DIST_UNIFORM ? d->b_us : d->a_us;
    if (*hi < *lo) *hi = *lo;
}

static int64_t uniform(sim_rng *r, int64_t lo, int64_t hi)
{
    sim_assert(lo <= hi);
    return lo + (int64_t)sim_rng_below(r, (uint64_t)(hi - lo) + 1);
}

static int floor_log2(uint64_t v)
{
    int e = 0;
    while (v >>= 1) e++;
    return e;
}

/* v with two significant digits kept (a drawn 1.017376s is written
 * 1s, 47.3ms 47ms), within [lo, hi]: scenarios a person reads. */
static int64_t round2(int64_t v, int64_t lo, int64_t hi)
{
    int64_t unit = 1;
    while (v / unit >= 100) unit *= 10;
    int64_t x = (v + unit / 2) / unit * unit;
    return x < lo ? lo : x > hi ? hi : x;
}

/* Log-uniform over [lo, hi]: an octave drawn uniformly, then a value in
 * it, so 1ms..10s gives as many draws near 1ms as near 1s; rounded to two
 * significant digits. */
static int64_t log_uniform(sim_rng *r, int64_t lo, int64_t hi)
{
    if (lo < 1) lo = 1;
    if (hi < lo) hi = lo;
    int e = floor_log2((uint64_t)lo) + (int)sim_rng_below(r, (uint64_t)(floor_log2((uint64_t)hi) - floor_log2((uint64_t)lo)) + 1);
    int64_t a = (int64_t)1 << e, b = e >= 62 ? INT64_MAX : ((int64_t)1 << (e + 1)) - 1;
    return round2(uniform(r, a > lo ? a : lo, b < hi ? b : hi), lo, hi);
}

/* A range a..b with both ends drawn log-uniformly within d's bounds. */
static scn_dist range_within(sim_rng *r, const scn_dist *d)
{
    int64_t lo, hi;
    bounds(d, &lo, &hi);
    int64_t a = log_uniform(r, lo, hi), b = log_uniform(r, lo, hi);
    if (a > b) {
        int64_t t = a;
        a = b;
        b = t;
    }
    return (scn_dist){a == b ? SCN_DIST_CONST : SCN_DIST_UNIFORM, a, b};
}

/* The kinds s allows and the topology can take. */
static int allowed_kinds(const scenario *s, int clients)
{
    int allowed = s->nemesis && !s->nemesis_any ? s->nemesis_kinds : (1 << SCN_NEM_COUNT) - 1;
    if (s->replicas == 0) allowed &= ~SCN_NEM_FAILOVER;
    if (clients == 0)
        allowed &= ~(SCN_NEM_PAUSE | SCN_NEM_CRASH | SCN_NEM_PARTITION | SCN_NEM_DROP_REPLY | SCN_NEM_DROP_PUBSUB |
                     SCN_NEM_DISCONNECT | SCN_NEM_DELAY | SCN_NEM_FAIL_REPLY | SCN_NEM_CLIENT_CLOCK);
    return allowed;
}

/* The kinds a seed draws among the first SCN_NEM_SWARM_COUNT: each
 * allowed one with a chance of one half, and one at least. */
static int draw_kinds(sim_rng *r, const scenario *s, int clients)
{
    int allowed = allowed_kinds(s, clients);
    int kinds = 0, n = 0, v[SCN_NEM_SWARM_COUNT];
    for (int b = 0; b < SCN_NEM_SWARM_COUNT; b++) {
        if (!(allowed & (1 << b))) continue;
        v[n++] = 1 << b;
        if (sim_rng_below(r, 2)) kinds |= 1 << b;
    }
    if (kinds == 0 && n > 0) kinds = v[sim_rng_below(r, (uint64_t)n)];
    return kinds;
}

static size_t put_dur(char *buf, size_t cap, const char *key, const scn_dist *d)
{
    char t[64];
    scn_dist_format(d, t, sizeof t);
    return (size_t)snprintf(buf, cap, " %s=%s", key, t);
}

/* The drawn values as one line: what the trace and the result carry. */
static void describe(const scenario *s, const scenario *c, int focused, int idle, int slow, int huge, int single,
                     char *desc, size_t cap)
{
    size_t n = (size_t)snprintf(desc, cap, "kinds=");
    for (int b = 0, first = 1; b < SCN_NEM_COUNT && n < cap; b++) {
        if (!(c->nemesis_kinds & (1 << b))) continue;
        n += (size_t)snprintf(desc + n, cap - n, "%s%s", first ? "" : ",", scn_nemesis_kind_name(1 << b));
        first = 0;
    }
    char a[32], b[32];
    if (n < cap) n += put_dur(desc + n, cap - n, "interval", &c->nemesis_interval);
    if (n < cap) n += put_dur(desc + n, cap - n, "duration", &c->nemesis_duration);
    scn_duration_format(c->nemesis_start_us, a, sizeof a);
    scn_duration_format(c->nemesis_stop_us, b, sizeof b);
    if (n < cap) n += (size_t)snprintf(desc + n, cap - n, " window=%s..%s p=%d%% clients=%d threads=%d", a, b,
                                       c->nemesis_p_ppm / 10000, c->clients, c->threads);
    if (n < cap) n += put_dur(desc + n, cap - n, "hold", &c->hold);
    if (n < cap) n += put_dur(desc + n, cap - n, "think", &c->think);
    if (c->lease_us == SCN_LEASE_WATCHDOG) snprintf(a, sizeof a, "watchdog");
    else scn_duration_format(c->lease_us, a, sizeof a);
    if (n < cap) n += (size_t)snprintf(desc + n, cap - n, " reentry=%d%% lease=%s", c->reentry_ppm / 10000, a);
    if (s->swarm_trylock_ppm > 0 && n < cap) {
        scn_duration_format(c->wait_us, a, sizeof a);
        n += (size_t)snprintf(desc + n, cap - n, " mode=%s wait=%s", c->mode == SCN_MODE_TRYLOCK ? "trylock" : "lock",
                              c->mode == SCN_MODE_TRYLOCK ? a : "-");
    }
    if (s->swarm_async_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " api=%s", c->async ? "async" : "sync");
    /* the shapes (nowait shows in wait=, overrun and long-hold in hold=) */
    if (s->swarm_switch_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " switch=%d%%", c->switch_ppm / 10000);
    if (s->swarm_lease_spread_ppm > 0 && n < cap) {
        if (scn_has_acquire_lease(c)) n += put_dur(desc + n, cap - n, "leases", &c->acquire_lease);
        else n += (size_t)snprintf(desc + n, cap - n, " leases=-");
    }
    if (s->swarm_retry_unlock_ppm > 0 && n < cap)
        n += (size_t)snprintf(desc + n, cap - n, " retry-unlock=%s", c->retry_unlock ? "yes" : "no");
    /* the later nemesis keys */
    if (s->swarm_crash_reply_ppm > 0 && n < cap)
        n += (size_t)snprintf(desc + n, cap - n, " crash-on=%s", c->nemesis_crash_on == SCN_CRASH_ON_REPLY ? "reply" : "time");
    if (s->swarm_reject_stale_ppm > 0 && n < cap)
        n += (size_t)snprintf(desc + n, cap - n, " reject-stale=%s", c->reject_stale ? "yes" : "no");
    /* the protocol's own */
    if (s->swarm_addpermits_ppm > 0 && n < cap)
        n += (size_t)snprintf(desc + n, cap - n, " addpermits=%d%%", c->addpermits_ppm / 10000);
    if (s->swarm_thread_wait.a_us > 0 && n < cap) {
        scn_duration_format(c->thread_wait_us, a, sizeof a);
        n += (size_t)snprintf(desc + n, cap - n, " thread-wait-time=%s", a);
    }
    if (s->swarm_focus_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " focus=%s", focused ? "yes" : "no");
    if (s->swarm_idle_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " idle=%s", idle ? "yes" : "no");
    if (s->swarm_slow_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " slow=%s", slow ? "yes" : "no");
    if (s->swarm_huge_ppm > 0 && n < cap)
        n += (size_t)snprintf(desc + n, cap - n, " huge=%s permits=%lld acquire=%lld..%lld", huge ? "yes" : "no",
                              (long long)c->init_permits, (long long)c->acquire_permits.a_us,
                              (long long)c->acquire_permits.b_us);
    if (s->swarm_rearm_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " rearm=%d%%", c->rearm_ppm / 10000);
    if (s->swarm_nested_ppm > 0 && n < cap) n += (size_t)snprintf(desc + n, cap - n, " nested=%s", c->nested ? "yes" : "no");
    if (s->swarm_stop_ppm > 0 && n < cap) {
        char t[64];
        scn_duration_format(c->work_stop_us, t, sizeof t);
        n += (size_t)snprintf(desc + n, cap - n, " stop=%s", c->work_stop_us > 0 ? t : "no");
    }
    if ((s->swarm_listener_gap.a_us > 0 || s->swarm_listener_gap.b_us > 0) && n < cap)
        n += put_dur(desc + n, cap - n, "listener-gap", &c->listener_gap);
    if (s->swarm_single_ppm > 0 && n < cap) {
        n += (size_t)snprintf(desc + n, cap - n, " single=%s", single ? "yes" : "no");
        if (c->lend_permits.a_us > 0 && n < cap)
            snprintf(desc + n, cap - n, " lend=%lld..%lld", (long long)c->lend_permits.a_us,
                     (long long)c->lend_permits.b_us);
    }
}

/* ------------------------------------------------------ workload shapes */

/* 1 with chance ppm, drawn only when ppm > 0 (no key, no draw). */
static int chance(sim_rng *r, int ppm)
{
    return ppm > 0 && (int64_t)sim_rng_below(r, 1000000) < ppm;
}

/* A hold range a..b drawn log-uniformly within [lo, hi]. */
static scn_dist hold_within(sim_rng *r, int64_t lo, int64_t hi)
{
    scn_dist b = {SCN_DIST_UNIFORM, lo, hi};
    return range_within(r, &b);
}

/* A hold range from a..top, a drawn log-uniformly in [lo, top]. */
static scn_dist hold_up_to(sim_rng *r, int64_t lo, int64_t top)
{
    int64_t a = log_uniform(r, lo, top);
    return (scn_dist){a == top ? SCN_DIST_CONST : SCN_DIST_UNIFORM, a, top};
}

/* The workload's shapes, drawn after every older draw, each only when
 * [swarm] names it, in this order (a key added later goes after them):
 * tryLock without a wait, re-entries on the other side of a read/write
 * lock, a lease per acquire, a failed release retried, holds past the
 * lease, holds past the watchdog timeout. Holds stay under the lease
 * unless overrun asks: a lease-spread seed draws its holds up to the
 * spread's top (a long lease's hold can outlast a short one's lease) and
 * the workload keeps each under its own ([clients] lease); long-hold
 * outlasts the watchdog timeout, which the watchdog must cover. */
static void draw_shapes(sim_rng *r, const scenario *s, scenario *c)
{
    int64_t lo, hi;
    if (chance(r, s->swarm_nowait_ppm) && c->mode == SCN_MODE_TRYLOCK) c->wait_us = 0;
    if (chance(r, s->swarm_switch_ppm)) {
        c->switch_ppm = 500000;       /* either side, */
        c->release_fifo_ppm = 500000; /* either order */
        if (c->reentry_ppm < 500000) c->reentry_ppm = 500000;
    }
    int fixed = c->lease_us != SCN_LEASE_WATCHDOG;
    if (chance(r, s->swarm_lease_spread_ppm) && fixed) {
        c->acquire_lease = range_within(r, &s->swarm_lease);
        int64_t top = c->acquire_lease.kind == SCN_DIST_UNIFORM ? c->acquire_lease.b_us : c->acquire_lease.a_us;
        bounds(&s->swarm_hold, &lo, &hi);
        if (top > hi) c->hold = hold_up_to(r, lo, top);
    }
    if (chance(r, s->swarm_retry_unlock_ppm)) c->retry_unlock = 1;
    if (chance(r, s->swarm_overrun_ppm) && fixed && !scn_has_acquire_lease(c))
        c->hold = hold_within(r, c->lease_us / 2, c->lease_us * 2);
    if (chance(r, s->swarm_long_hold_ppm) && !fixed) c->hold = hold_within(r, s->watchdog_us / 2, s->watchdog_us * 2);
}

/* A protocol that does not claim re-entry (cl_protocol.reentry) is never
 * re-entered: a thread that asks again waits on itself, the lock's
 * documented behaviour and no finding. The re-entry share and the switch
 * shape (re-entries on the other side) are drawn as for any protocol, so
 * that every later draw of the seed stays what it was, then dropped. A
 * scenario whose protocol is not found draws as before (its run fails to
 * load anyway). */
static void drop_reentry(const scenario *s, scenario *c)
{
    scn_error err;
    const proto_def *pd = proto_lookup(s, &err);
    if (pd == NULL || proto_reentry(pd) != CL_REENTRY_NO) return;
    c->reentry_ppm = 0;
    c->switch_ppm = 0;
    c->release_fifo_ppm = s->release_fifo_ppm;
}

/* The draws added after the kinds of SCN_NEM_SWARM_COUNT, in this order:
 * the kind client-clock ([swarm] client-clock, or one half when the
 * file's own kinds name it; a seed left with no kind gets it), when the
 * crashes strike (crash-on-reply) and whether the resource refuses stale
 * tokens (reject-stale). A scenario that names none of them draws
 * nothing here. */
static void draw_later_keys(sim_rng *r, const scenario *s, scenario *c)
{
    int cc = s->swarm_client_clock_ppm;
    if (cc == 0 && s->nemesis && !s->nemesis_any && (s->nemesis_kinds & SCN_NEM_CLIENT_CLOCK)) cc = SCN_PPM / 2;
    if (cc > 0) {
        int hit = chance(r, cc);
        if ((allowed_kinds(s, scn_max_client(c)) & SCN_NEM_CLIENT_CLOCK) && (hit || c->nemesis_kinds == 0))
            c->nemesis_kinds |= SCN_NEM_CLIENT_CLOCK;
    }
    if (chance(r, s->swarm_crash_reply_ppm)) c->nemesis_crash_on = SCN_CRASH_ON_REPLY;
    if (s->swarm_reject_stale_ppm > 0) c->reject_stale = chance(r, s->swarm_reject_stale_ppm);
}

/* The protocol's own settings, after every draw above, each only when
 * [swarm] names it: a share of a semaphore's seeds lends permits
 * ([clients] addpermits = 20%: a waiter must hear of permits added), and
 * the fair lock's threadWaitTime log-uniformly within its bounds (a dead
 * waiter holds the queue for it). */
static void draw_protocol_keys(sim_rng *r, const scenario *s, scenario *c)
{
    if (chance(r, s->swarm_addpermits_ppm)) c->addpermits_ppm = 200000;
    if (s->swarm_thread_wait.a_us > 0) {
        int64_t lo, hi;
        bounds(&s->swarm_thread_wait, &lo, &hi);
        c->thread_wait_us = log_uniform(r, lo, hi);
    }
}

/* [swarm] focus, the very last draw: a share of the seeds keeps none,
 * one or two of the kinds drawn above (a third each), chosen among them
 * uniformly. Every kind at a half's chance gives most seeds five or more
 * at once, and the fault that fails first masks the rest: a lost message
 * or a failed renewal on its own, or a workload with no fault at all,
 * fails in ways a crowd of faults hides. A seed that keeps none runs no
 * nemesis. */
static int draw_focus(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_focus_ppm)) return 0;
    int keep = (int)sim_rng_below(r, 3), v[SCN_NEM_COUNT], n = 0;
    for (int b = 0; b < SCN_NEM_COUNT; b++)
        if (c->nemesis_kinds & (1 << b)) v[n++] = 1 << b;
    int kept = 0;
    for (int i = 0; i < keep && n > 0; i++) { /* a partial Fisher-Yates: keep distinct kinds */
        int j = (int)sim_rng_below(r, (uint64_t)n);
        kept |= v[j];
        v[j] = v[--n];
    }
    c->nemesis_kinds = kept;
    c->nemesis = kept != 0;
    return 1;
}

/* A range a..b with both ends drawn within 1 s .. 10 s: idle and slow. */
static scn_dist seconds_range(sim_rng *r)
{
    static const scn_dist seconds = {SCN_DIST_UNIFORM, SIM_SEC(1), SIM_SEC(10)};
    return range_within(r, &seconds);
}

/* [swarm] idle, after focus: a share of the seeds draws its think range
 * within 1 s .. 10 s, whatever [swarm] think says: a lock left idle for
 * seconds between sections, where a waiter that missed its wake-up (a
 * lost release or ZERO message) waits past the liveness bound instead of
 * being woken by the next release. Elsewhere think stays short: a fault
 * must meet a holder to matter, and holds are short. */
static int draw_idle(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_idle_ppm)) return 0;
    c->think = seconds_range(r);
    return 1;
}

/* [swarm] slow, after idle: a share of the seeds draws its hold range
 * within 1 s .. 10 s, whatever [swarm] hold and the shapes said. For
 * holds with no lease to outlast (a semaphore's permits are held until
 * released): sections longer than the liveness bound, where a waiter
 * passed over by a wake-up (one message that completes one of two
 * futures) waits beside free permits until the next release, seconds
 * away, and a busy resource has waiters at all while the clients idle.
 * Where a lease bounds the holds ([swarm] overrun names such a
 * protocol), only the seeds without one (watchdog: an expirable
 * semaphore's permits with no lease) are slow: a hold past the lease is
 * overrun's, the application's error. */
static int draw_slow(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_slow_ppm)) return 0;
    if (s->swarm_overrun_ppm > 0 && c->lease_us != SCN_LEASE_WATCHDOG) return 0;
    c->hold = seconds_range(r);
    return 1;
}

/* v units, at most INT32_MAX. */
static int64_t in_units(int64_t v, int64_t unit)
{
    return v > INT32_MAX / unit ? INT32_MAX : v * unit;
}

/* [swarm] huge, after slow: a share of the seeds counts a semaphore's
 * permits in units of u = 2^31 - 1 over [protocol] permits, so that the
 * permits, each acquire's and release's count and the messages' counts
 * stand near the int that Redisson's Java side keeps them in (the
 * latch of a waiter, a java.util.concurrent.Semaphore, overflowed so up
 * to 3.15.5). Nothing else is drawn: the units make the counts of the
 * seed's own draws huge. */
static int draw_huge(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_huge_ppm)) return 0;
    int64_t unit = INT32_MAX / (c->init_permits > 0 ? c->init_permits : 1);
    scn_dist *d = &c->acquire_permits;
    int64_t b = d->kind == SCN_DIST_UNIFORM ? d->b_us : d->a_us;
    c->init_permits = in_units(c->init_permits, unit);
    d->a_us = in_units(d->a_us, unit);
    d->b_us = in_units(b, unit);
    sim_assert(unit >= 1 && c->init_permits <= INT32_MAX && d->a_us >= 1 && d->b_us >= d->a_us);
    return 1;
}

/* [swarm] single, after huge: a share of the seeds acquires one permit a
 * cycle (the lowest of [clients] permits, in huge's units where huge was
 * drawn), and its addpermits cycles lend counts drawn from the whole range
 * ([clients] lend). Waiters of different counts starve each other in every
 * version (a wake-up taken by a sibling that wants another n: mixed-n),
 * which masks the failures of waiters that want one permit each: one
 * message that completes one of two such futures while addPermits(2)
 * made room for both (known bug semaphore-async-one-listener). */
static int draw_single(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_single_ppm)) return 0;
    scn_dist *d = &c->acquire_permits;
    if (c->addpermits_ppm > 0) c->lend_permits = *d;
    *d = (scn_dist){SCN_DIST_CONST, d->a_us, d->a_us};
    sim_assert(d->a_us >= 1);
    return 1;
}

/* [swarm] rearm, after single: a share of a latch's seeds arms its
 * latches again, one in a hundred of the counting thread's cycles calling
 * trySetCount([protocol] count) ([clients] rearm = 1%), so that a latch
 * opens several times a run and awaits begin next to its openings: the
 * awaitAsync whose count check a ZERO message overtakes (known bug
 * latch-await-async-zero-before-listener) needs one that begins just
 * before an opening, and the latch left open past the liveness bound
 * after it (the next round's ZERO runs the late listener). Measured over
 * 800 seeds of the hunt base: 16 runs had such a late listener starve
 * with 1%, 9 with 3%, 10 with 5%; none without re-arming. */
static void draw_rearm(sim_rng *r, const scenario *s, scenario *c)
{
    if (chance(r, s->swarm_rearm_ppm)) c->rearm_ppm = 10000;
}

/* [swarm] nested, after rearm: a share of the seeds holds the outer
 * section of a re-entered cycle after each inner release ([clients]
 * nested = yes), a hold drawn as the inner one is, as an application's
 * nested lock() ... unlock() pairs do: a release that undoes more than
 * its own level (an unlock resent after its reply was lost, known bug
 * fail-reply-unlock-2019) leaves the thread working under a lock it no
 * longer holds, where back-to-back releases give a waiter only the round
 * trip between them. Only where the seed re-enters at all. */
static int draw_nested(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_nested_ppm)) return 0;
    c->nested = c->reentry_ppm > 0;
    return 1;
}

/* [swarm] listener-gap, after nested: half of the seeds draws a range
 * within it for [clients] listener-gap, the time an async wait takes from
 * its latch check to its addListener (the future's callback runs on
 * another thread), where a message runs no listener. Drawn for every
 * seed, used by the async waits only. */
static int draw_listener_gap(sim_rng *r, const scenario *s, scenario *c)
{
    if (s->swarm_listener_gap.a_us <= 0 && s->swarm_listener_gap.b_us <= 0) return 0;
    if (!chance(r, SCN_PPM / 2)) return 0;
    c->listener_gap = range_within(r, &s->swarm_listener_gap);
    return 1;
}

/* [swarm] stop, after listener-gap: a share of the seeds ends the work
 * ([clients] stop) at a time drawn within the nemesis window, and the
 * faults once the sections then running are over (the seed's longest
 * hold later), the processes living on: a quiet end, as Jepsen's final
 * phase, where whatever the last operations left behind under the faults
 * (a lock held for a thread that let it go, a renewal still running, a
 * waiter not woken) must settle, and no next cycle hides it. */
static int draw_stop(sim_rng *r, const scenario *s, scenario *c)
{
    if (!chance(r, s->swarm_stop_ppm)) return 0;
    int64_t lo = c->nemesis_start_us, hi = c->nemesis_stop_us, hold_lo, hold_hi;
    c->work_stop_us = round2(uniform(r, lo, hi), lo, hi);
    if (c->work_stop_us < SIM_MS(1)) c->work_stop_us = SIM_MS(1);
    bounds(&c->hold, &hold_lo, &hold_hi);
    if (c->work_stop_us + hold_hi < c->nemesis_stop_us) c->nemesis_stop_us = c->work_stop_us + hold_hi;
    return 1;
}

scenario *fault_swarm_draw(const scenario *s, uint64_t seed, char *desc, size_t cap)
{
    scenario *c = sim_xmalloc(sizeof *c);
    *c = *s; /* borrows s's strings, names and steps */
    uint64_t mix = seed ^ SWARM_SALT;
    sim_rng r;
    sim_rng_seed(&r, sim_splitmix64(&mix));

    /* The workload. A scenario of [steps] only keeps no random clients. */
    int64_t lo, hi;
    if (s->clients > 0) {
        bounds(&s->swarm_clients, &lo, &hi);
        c->clients = (int)uniform(&r, lo < 1 ? 1 : lo, hi < 1 ? 1 : hi);
    }
    bounds(&s->swarm_threads, &lo, &hi);
    c->threads = (int)uniform(&r, lo < 1 ? 1 : lo, hi < 1 ? 1 : hi);
    c->hold = range_within(&r, &s->swarm_hold);
    c->think = range_within(&r, &s->swarm_think);
    c->reentry_ppm = sim_rng_below(&r, 2) ? (int)(uniform(&r, 0, s->swarm_reentry_ppm / 10000) * 10000) : 0;
    if (s->swarm_watchdog_ppm > 0 && (int64_t)sim_rng_below(&r, 1000000) < s->swarm_watchdog_ppm) {
        c->lease_us = SCN_LEASE_WATCHDOG;
    } else {
        bounds(&s->swarm_lease, &lo, &hi);
        c->lease_us = log_uniform(&r, lo, hi);
    }

    /* The nemesis. */
    c->nemesis = 1;
    c->nemesis_any = 0;
    c->nemesis_kinds = draw_kinds(&r, s, scn_max_client(c));
    bounds(&s->swarm_interval, &lo, &hi);
    c->nemesis_interval = (scn_dist){SCN_DIST_EXP, log_uniform(&r, lo, hi), 0};
    c->nemesis_duration = range_within(&r, &s->swarm_duration);
    int64_t d = s->duration_us;
    c->nemesis_start_us = round2(uniform(&r, 0, d / 3), 0, d / 3);
    lo = c->nemesis_start_us + (d - c->nemesis_start_us) / 2;
    hi = d - d / 10 > lo ? d - d / 10 : lo;
    c->nemesis_stop_us = round2(uniform(&r, lo, hi), lo, hi);
    static const int losses[] = {100000, 300000, 600000, 1000000};
    c->nemesis_p_ppm = losses[sim_rng_below(&r, 4)];

    /* Drawn last, and only when [swarm] asks, so that the scenarios
     * written before these keys draw what they always drew. */
    if (s->swarm_trylock_ppm > 0 && (int64_t)sim_rng_below(&r, 1000000) < s->swarm_trylock_ppm) {
        bounds(&s->swarm_wait, &lo, &hi);
        c->mode = SCN_MODE_TRYLOCK;
        c->wait_us = log_uniform(&r, lo, hi);
    }
    if (s->swarm_async_ppm > 0) c->async = (int64_t)sim_rng_below(&r, 1000000) < s->swarm_async_ppm;
    draw_shapes(&r, s, c);
    drop_reentry(s, c);

    /* [swarm] client-clock, crash-on-reply, reject-stale: after every
     * draw above, each only when the scenario asks for it. */
    draw_later_keys(&r, s, c);
    draw_protocol_keys(&r, s, c);
    int focused = draw_focus(&r, s, c);
    int idle = draw_idle(&r, s, c);
    int slow = draw_slow(&r, s, c);
    int huge = draw_huge(&r, s, c);
    int single = draw_single(&r, s, c);
    draw_rearm(&r, s, c);
    draw_nested(&r, s, c);
    draw_listener_gap(&r, s, c);
    draw_stop(&r, s, c);
    fault_contract_draw(s, c); /* draws nothing: the seed's other draws stay */

    c->swarm = c->swarm_section = 0;
    sim_assert(c->clients >= 0 && c->threads >= 1 && c->nemesis_stop_us >= c->nemesis_start_us);
    describe(s, c, focused, idle, slow, huge, single, desc, cap);
    return c;
}

void fault_swarm_free(scenario *c)
{
    sim_xfree(c); /* a shallow copy: what it points to is its source's */
}
