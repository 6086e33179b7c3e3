/* hint.c — violations explained in Redisson's terms (hint.h): a table of
 * rules, each an invariant, the faults it needs shortly before the
 * violation, and what it says of the scenario's protocol, version and
 * settings. The first rule that applies speaks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/hint.h"
#include "sim/engine/hunt.h"

#define LOOK_BACK_US SIM_SEC(60) /* the faults a violation may come from */
#define V_CURRENT 40700          /* a name without @: the current client */
/* A clock line of a node or of a client machine (the hunt tells the two
 * kinds apart; the hints were written for both, and stay so). */
#define ANY_CLOCK (SCN_NEM_CLOCK | SCN_NEM_CLIENT_CLOCK)

static const char PERMITS_OF_THE_DEAD[] = "permits held by a crashed process are never given back (RSemaphore keeps "
                                          "no owner): RPermitExpirableSemaphore gives each permit a lease";

/* The Redisson release the protocol names (major*10000+minor*100+patch):
 * "@2019" is 3.11, no version the current client. */
static int version_of(const char *protocol)
{
    const char *at = strchr(protocol, '@');
    if (at == NULL) return V_CURRENT;
    if (!strcmp(at + 1, "2019")) return 31100;
    int major = 0, minor = 0, patch = 0;
    if (sscanf(at + 1, "%d.%d.%d", &major, &minor, &patch) < 2) return V_CURRENT;
    return major * 10000 + minor * 100 + patch;
}

static int is(const scenario *s, const char *family)
{
    size_t n = strlen(family);
    return !strncmp(s->protocol, family, n) && (s->protocol[n] == '\0' || s->protocol[n] == '@');
}

/* A lock of the RLock family (lease, watchdog, unlock latch). */
static int rlock_family(const scenario *s)
{
    return is(s, "redisson.lock") || is(s, "redisson.fencedlock") || is(s, "redisson.fairlock") ||
           is(s, "redisson.spinlock") || is(s, "redisson.rwlock") || is(s, "redisson.multilock") ||
           is(s, "redisson.redlock");
}

static void dur(int64_t us, char *buf, size_t cap)
{
    scn_duration_format(us, buf, cap);
}

size_t run_hint(const run_result *r, const check_violation *v, char *buf, size_t cap)
{
    const scenario *s = r->s;
    buf[0] = '\0';
    int64_t from = v->t_us > LOOK_BACK_US ? v->t_us - LOOK_BACK_US : 0;
    unsigned k = hunt_kinds(s->steps, s->nsteps, from, v->t_us) | hunt_kinds(r->generated, r->ngenerated, from, v->t_us);
    int ver = version_of(s->protocol), watchdog = s->lease_us == SCN_LEASE_WATCHDOG;
    char lease[32], wd[32];
    dur(s->lease_us, lease, sizeof lease);
    dur(s->watchdog_us > 0 ? s->watchdog_us : SIM_SEC(30), wd, sizeof wd);
    int n = 0;
    switch (v->inv) {
    case SCN_INV_MUTEX:
    case SCN_INV_FENCING:
    case SCN_INV_RW_EXCLUSION:
        if ((k & SCN_NEM_PAUSE) && rlock_family(s) && !watchdog)
            n = snprintf(buf, cap, "lease = %s (leaseTime) was shorter than the holder's pause: Redis expired the lock "
                                   "under it; the watchdog (lease = -1) stops with a paused process too, a fencing "
                                   "token (redisson.fencedlock, [resource]) is what keeps its late writes out", lease);
        else if ((k & SCN_NEM_PAUSE) && rlock_family(s))
            n = snprintf(buf, cap, "the pause outlasted lockWatchdogTimeout (%s): the watchdog stops with the process, "
                                   "so the lock expired; a larger lockWatchdogTimeout narrows this, a fencing token "
                                   "(redisson.fencedlock) closes it", wd);
        else if ((k & ANY_CLOCK) && (is(s, "redisson.redlock") || is(s, "node-redlock") || is(s, "redsync")))
            n = snprintf(buf, cap, "a member's clock moved: this RedLock counts no validity against clock jumps, and a "
                                   "quorum that loses one member's key by a jump is no longer a quorum");
        else if (k & ANY_CLOCK)
            n = snprintf(buf, cap, "a node's clock jumped: Redis expires keys on its own clock and no client setting "
                                   "prevents it; with the watchdog the expiry is at most lockWatchdogTimeout (%s) "
                                   "ahead, so smaller jumps are absorbed", wd);
        else if ((k & (SCN_NEM_NODE_CRASH | SCN_NEM_FAILOVER)) && s->replicas > 0 && rlock_family(s) &&
                 s->synced <= 0)
            n = snprintf(buf, cap, "a failover lost the lock before its replica had it: synced = yes (Redisson "
                                   "3.12.5+: WAIT after each lock script) narrows that window");
        else if ((k & (SCN_NEM_NODE_CRASH | SCN_NEM_FAILOVER)) && s->replicas > 0)
            n = snprintf(buf, cap, "a failover lost a lock its replica did not have yet; replication is asynchronous "
                                   "(WAIT narrows the window, it does not close it)");
        else if ((k & SCN_NEM_NODE_CRASH) && !s->persistence)
            n = snprintf(buf, cap, "the node restarted without persistence and forgot the lock: [redis] persistence "
                                   "= yes (AOF, fsync always) keeps it across a restart");
        else if ((k & (SCN_NEM_DROP_REPLY | SCN_NEM_FAIL_REPLY)) && rlock_family(s) && ver < 32400)
            n = snprintf(buf, cap, "a lost reply was resent: before Redisson 3.24 a resent unlock runs twice (one "
                                   "unlock, two decrements); 3.24+ answers it from the unlock latch (@3.24)");
        else if ((k & SCN_NEM_PARTITION) && rlock_family(s) && watchdog)
            n = snprintf(buf, cap, "the holder was cut from its master: its watchdog could not renew and the lock "
                                   "expired after lockWatchdogTimeout (%s); the holder is not told", wd);
        else if (!watchdog && rlock_family(s) && s->lease_us > 0)
            n = snprintf(buf, cap, "lease = %s (leaseTime) ran out while the holder still worked: the watchdog "
                                   "(lease = -1) renews a held lock", lease);
        break;
    case SCN_INV_REENTRANCY:
        if ((k & (SCN_NEM_DROP_REPLY | SCN_NEM_FAIL_REPLY)) && rlock_family(s) && ver < 32400)
            n = snprintf(buf, cap, "a lost reply was resent: before Redisson 3.24 scripts are resent on a timeout "
                                   "(a resent unlock or lock counts twice); 3.24+ does not resend them (@3.24)");
        else if (k & (SCN_NEM_DROP_REPLY | SCN_NEM_FAIL_REPLY))
            n = snprintf(buf, cap, "a reply was lost: the client counted the call as failed while Redis ran it "
                                   "(timeout, retryAttempts and retryInterval decide what it does next)");
        else if (k & (SCN_NEM_NODE_CRASH | SCN_NEM_FAILOVER | SCN_NEM_PARTITION | ANY_CLOCK))
            n = snprintf(buf, cap, "the store lost or expired the hold the thread still counts (a failover, a "
                                   "partition past the lease, a clock jump): the client is not told");
        break;
    case SCN_INV_LIVENESS:
        if ((k & ANY_CLOCK) && is(s, "redisson.fairlock"))
            n = snprintf(buf, cap, "the fair lock's queue deadlines are written with each client's own clock "
                                   "(threadWaitTime): a client clock ahead or behind keeps a waiter out");
        else if ((k & SCN_NEM_DROP_PUBSUB) || (k & SCN_NEM_DISCONNECT))
            n = snprintf(buf, cap, "a waiter missed its wake-up message: Redisson waiters also retry when the "
                                   "lock's TTL runs out (the lease, or lockWatchdogTimeout %s with the watchdog), "
                                   "which bounds the wait; nothing resends the message", wd);
        else if (k & (SCN_NEM_NODE_CRASH | SCN_NEM_NODE_PAUSE | SCN_NEM_FAILOVER))
            n = snprintf(buf, cap, "the master was down or paused: waiters wait for Sentinel (down-after, "
                                   "discovery) and for the timeout/retry settings, not for the lock");
        break;
    case SCN_INV_DEADLOCK:
        if ((k & SCN_NEM_CRASH) && is(s, "redisson.semaphore"))
            n = snprintf(buf, cap, "%s", PERMITS_OF_THE_DEAD);
        else if (k & SCN_NEM_CRASH)
            n = snprintf(buf, cap, "a crashed holder's lock lives until its lease runs out (%s): a shorter lease "
                                   "frees it sooner", watchdog ? "lockWatchdogTimeout after the last renewal" : lease);
        break;
    case SCN_INV_PERMITS:
        if (k & SCN_NEM_CRASH)
            n = snprintf(buf, cap, "%s", PERMITS_OF_THE_DEAD);
        else if (k & (SCN_NEM_DROP_REPLY | SCN_NEM_FAIL_REPLY))
            n = snprintf(buf, cap, "a release was resent after a lost reply: RSemaphore.release is not idempotent, "
                                   "each run adds permits");
        break;
    case SCN_INV_FIFO:
    case SCN_INV_STARVATION:
        if (k & ANY_CLOCK)
            n = snprintf(buf, cap, "the fair lock's queue deadlines are written with each client's own clock "
                                   "(threadWaitTime): a client clock ahead or behind reorders them");
        else if (k & (SCN_NEM_DROP_PUBSUB | SCN_NEM_PAUSE))
            n = snprintf(buf, cap, "the next in line missed its turn (a lost message or a pause past "
                                   "threadWaitTime): the fair lock purges it and the queue moves on");
        break;
    default:
        break;
    }
    if (n < 0) n = 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}
