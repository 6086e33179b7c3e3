/* registry.c — the protocol table: what `locksim list` prints and what a
 * scenario's [protocol] name selects. */
#include <string.h>

#include "protocols/policy.h"
#include "protocols/rlock.h"

extern const proto_def proto_baseline_setnx, proto_baseline_cad, proto_spinlock, proto_multilock,
    proto_redlock, proto_rwlock, proto_semaphore, proto_expirable_semaphore, proto_latch;

static const cl_defaults cur_defaults = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1, .readonly_retry = 1};
static const cl_defaults v2019_defaults = {
    .watchdog_gen = 1, .retry_attempts = 3, .jitter = 0, .synced = 0, .nosync_unchecked = 1,
    .wd_error_keeps = 1, .wd_zero_keeps = 1};

/* The watchdog generations by release (PROTOCOLS.md §3.4; every release
 * named is checked against Redisson's source in tools/history-audit.md). */
#define WATCHDOG_HISTORY                                                                              \
    "watchdog 3.10.0-3.10.4: one entry per lock for the thread that scheduled it, dropped by every "  \
    "renewal reply and scheduled again after a 1, only a release (1) cancels it; an error ends the "  \
    "chain and the next acquisition starts a new one. 3.10.5-3.43: one timer per lock counting its "  \
    "threads (renewExpiration, 3.10.5); an error stops it, and up to 3.13.6 the entry stays (issue "  \
    "#3194): later acquisitions of the lock by that process are not renewed; 3.14.0+ removes it "     \
    "(PR #3195), and from 3.20.0 a renewal no replica acknowledged is such an error. A reply of 0 "   \
    "leaves the entry without a timer up to 3.16.0, removes it from 3.16.1. 3.44+: batched, keeps "   \
    "ticking after errors"

#define LOCK_OPTIONS "lease (-1: watchdog), wait, mode = lock|trylock, watchdog-timeout, timeout, " \
    "retry-attempts, retry-interval, synced, locks"

/* The reentrant-lock family shares one client (rlock.c); cfg picks the
 * version. */
#define RLOCK_IMPL(c, defs, tok, ...)                                           \
    .impl = {.cfg = c, .defaults = defs, .script = proto_script_find,           \
             .proc_init = rlock_proc_init, .proc_free = rlock_proc_free,        \
             .acquire = rlock_acquire, .release = rlock_release,                \
             .force_unlock = rlock_force_unlock, .query = rlock_query,          \
             .observe = rlock_observe, .node_of = rlock_node_of, .token = tok,  \
             .reentry = CL_REENTRY_REDIS, __VA_ARGS__},                          \
    .scripts = rlock_scripts, .steps = PROTO_ASYNC

static const proto_def rlock_cur_def = {
    .name = "redisson.lock",
    .summary = "RedissonLock, current (4.7.x): merged acquire, unlock latch, batched watchdog",
    .versions = "@3.0 .. @4.7 (any release; @2019 = 3.11)", .min_version = 30000, .options = LOCK_OPTIONS,
    .history = "3.0.0-3.9.1: a command written to the socket is never sent again, its reply timeout fails "
               "the call (3.10.0 resends while attempts are left); lock() waits for its subscription for ever "
               "up to 3.2.0 (7.5 s since 3.2.1); an unlock that fails leaves the watchdog running up to 3.8.0 "
               "(3.8.1 cancels it); unlocking a lock that is gone answers 1 up to 3.10.5 (nil since 3.10.6). "
               WATCHDOG_HISTORY ". NoSyncedSlaves fails a lock script from 3.16.7 (when any replica did not acknowledge until 3.17.4, "
               "when none did from 3.17.5), with the acquire left in Redis until 3.20.0 rolls it back; it is "
               "retried from 3.20.1; an unlock's retry in 3.24-3.51 runs under a fresh request "
               "id, so the latch of the run that released does not answer it and the hold is decremented "
               "again; 3.52.0+: one id per unlock() call. Async waits (lockAsync, tryLockAsync; the fair and "
               "read/write locks alike): an unlock message between the latch check and addListener is lost up to "
               "3.27.2; 3.28.0+: addListener runs a listener on the permit it left; a message lets listeners "
               "take its permits up to 3.7.0, runs every one in 3.7.1, one since 3.7.2",
    RLOCK_IMPL(&rlock_current, &cur_defaults, NULL),
};
static const proto_def rlock_2019_def = {
    .name = "redisson.lock@2019",
    .summary = "RedissonLock 3.11 (2019): two-branch acquire, no unlock latch, resent scripts",
    .options = LOCK_OPTIONS,
    RLOCK_IMPL(&rlock_2019, &v2019_defaults, NULL),
};
static const proto_def rlock_fenced_def = {
    .name = "redisson.fencedlock",
    .summary = "RedissonFencedLock (3.19+): the current lock plus a token per acquisition (fencing)",
    .versions = "@3.19 .. @4.7", .min_version = 31900,
    .options = LOCK_OPTIONS "; [resource] enabled, reject-stale (the token fences writes)",
    RLOCK_IMPL(&rlock_fenced, &cur_defaults, rlock_token),
};

/* The fair lock: the reentrant lock's checkers plus queue order and
 * starvation (fencing needs tokens, which it has not). */
#define FAIR_INVARIANTS                                                                         \
    (PROTO_INV(SCN_INV_MUTEX) | PROTO_INV(SCN_INV_REENTRANCY) | PROTO_INV(SCN_INV_LIVENESS) | \
     PROTO_INV(SCN_INV_DEADLOCK) | PROTO_INV(SCN_INV_FIFO) | PROTO_INV(SCN_INV_STARVATION))
#define FAIR_OPTIONS                                                                          \
    LOCK_OPTIONS ", "                                                                         \
    "thread-wait-time (queue wait of lock() and of tryLock without a wait; "                 \
    "default 300s, 5s in 3.13.2); [expect] fifo, starvation, starvation-bound"

static const proto_def fair_cur_def = {
    .name = "redisson.fairlock",
    .contract = &proto_contract_client_time,
    .summary = "RedissonFairLock, current (4.7.x): FIFO queue with client-clock deadlines, a channel per thread",
    .options = FAIR_OPTIONS, .versions = "@3.0 .. @4.7 (queue wait, scripts, latch as the release)",
    .min_version = 30000,
    .history = "3.0.0-3.1.x: a waiter's place is a key whose TTL is its deadline; unlock never pops expired "
               "heads, unlockAsync runs the plain lock's unlock (no fair waiter is woken), forceUnlock pops "
               "them from 3.1.0; 3.2.0: the deadline zset. acquireFailed: none up to 3.2.3 (a tryLock that "
               "gives up keeps its place), leaves the queue from 3.2.4, and from 3.5.5 to 3.11.0 the head's "
               "leave takes threadWaitTime off every deadline. "
               "queue 3.2.0-3.11.0: a new or retrying waiter's deadline is the HEAD's deadline + waitMs "
               "(the lock's PTTL for the head), rewritten by every retry; leaving the queue gives nothing "
               "back (issue #2099 timeout drift, fixed by PR #2100 in 3.11.1). 3.11.1-3.31: the LAST "
               "waiter's deadline + waitMs, written once; an acquirer or a waiter that gives up gives waitMs "
               "back to those behind. 3.13.3: tryLock's wait is the queue wait, threadWaitTime 300 s. "
               "3.31.0: nil-safe purge; 3.32: a queued thread waits max(0, PTTL); 3.45.0: the last waiter's "
               "deadline read with a guard (before, a missing one fails the script). Watchdog as redisson.lock",
    RLOCK_IMPL(&rlock_fair, &cur_defaults, NULL, .queue = fair_queue, .queue_wait_us = rlock_queue_wait_us, .invariants = FAIR_INVARIANTS),
};
static const proto_def fair_3132_def = {
    .name = "redisson.fairlock@3.13.2",
    .contract = &proto_contract_client_time,
    .summary = "RedissonFairLock 3.13.2: threadWaitTime 5 s for every wait, no unlock latch, resent scripts",
    .options = FAIR_OPTIONS,
    RLOCK_IMPL(&rlock_fair_3132, &v2019_defaults, NULL, .queue = fair_queue, .queue_wait_us = rlock_queue_wait_us, .invariants = FAIR_INVARIANTS),
};

const proto_def *const proto_all[] = {
    &rlock_cur_def, &rlock_2019_def, &rlock_fenced_def, &fair_cur_def, &fair_3132_def, &proto_spinlock,
    &proto_multilock, &proto_redlock, &proto_rwlock, &proto_semaphore, &proto_expirable_semaphore, &proto_latch, &proto_baseline_setnx,
    &proto_baseline_cad, NULL,
};

const char *proto_unknown_reason(const char *name, char *buf, size_t cap)
{
    const char *at = strchr(name, '@');
    for (size_t i = 0; at && proto_all[i]; i++) {
        const proto_def *pd = proto_all[i];
        if (strlen(pd->name) != (size_t)(at - name) || strncmp(pd->name, name, (size_t)(at - name)) != 0) continue;
        if (pd->versions == NULL) snprintf(buf, cap, "protocol '%s' has no versions to pin", pd->name);
        else snprintf(buf, cap, "'%s' is not a release of %s (it knows %s)", at + 1, pd->name, pd->versions);
        return buf;
    }
    /* Did you mean: the catalogue's names and the lock policies'. */
    size_t n = 0;
    while (proto_all[n]) n++;
    size_t np = proto_policy_count();
    const char **names = sim_xcalloc(n + np + 1, sizeof *names);
    for (size_t i = 0; i < n; i++) names[i] = proto_all[i]->name;
    for (size_t i = 0; i < np; i++) names[n + i] = proto_policy_at(i)->name;
    char base[128];
    snprintf(base, sizeof base, "%.*s", at ? (int)(at - name) : (int)strlen(name), name);
    const char *near = sim_closest(base, names, n + np);
    if (near) snprintf(buf, cap, "unknown protocol '%s' (did you mean %s%s?)", name, near, at ? at : "");
    else snprintf(buf, cap, "unknown protocol '%s' (see 'locksim list')", name);
    sim_xfree(names);
    return buf;
}

unsigned proto_invariants(const proto_def *p)
{
    unsigned inv = p->impl.invariants ? p->impl.invariants : PROTO_INV_LOCK;
    return proto_has_lease(p) ? inv | PROTO_INV(SCN_INV_DEAD_HOLDER) : inv;
}

cl_reentry proto_reentry(const proto_def *p)
{
    return p->impl.reentry;
}

int proto_counts_permits(const proto_def *p)
{
    unsigned inv = proto_invariants(p);
    if (p->impl.proc_init == pol_generic_impl.proc_init) return 0; /* a policy's permits are its members, not a count */
    return (inv & PROTO_INV(SCN_INV_PERMITS)) && !(inv & PROTO_INV(SCN_INV_LEASES));
}

const proto_def *proto_find(const char *name)
{
    for (size_t i = 0; proto_all[i]; i++)
        if (strcmp(proto_all[i]->name, name) == 0) return proto_all[i];
    const proto_def *pol = proto_policy_find(name);
    if (pol) return pol;
    const char *at = strchr(name, '@');
    if (at == NULL) return NULL;
    for (size_t i = 0; proto_all[i]; i++)
        if (strlen(proto_all[i]->name) == (size_t)(at - name) && strncmp(proto_all[i]->name, name, (size_t)(at - name)) == 0)
            return proto_at_version(proto_all[i], at + 1, name);
    return NULL;
}
