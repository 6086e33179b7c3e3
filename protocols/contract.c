/* contract.c — what each protocol claims to survive (protocol.h's
 * proto_contract): the lease lock's contract that most of the catalogue
 * shares, with the sources it is read from, and the renewal margin that
 * bounds how long a holder may be held up within it. faults/contract.c
 * judges fault lines against a contract; the hunt draws within it. */
#include <stdio.h>
#include <string.h>

#include "protocols/policy.h"
#include "protocols/protocol.h"

/* Redisson's wiki, "8. Distributed locks and synchronizers", 8.1 Lock:
 * "If Redisson instance which acquired lock crashes then such lock could
 * hang forever in acquired state. To avoid this Redisson maintains lock
 * watchdog, it prolongs lock expiration while lock holder Redisson
 * instance is alive"; Config.setLockWatchdogTimeout's javadoc: it
 * "prevents against infinity locked locks due to Redisson client crush";
 * Config's timeout, retryAttempts and retryInterval: a command not
 * answered in time is sent again. Failover: since 3.12.5 the lock's
 * scripts are followed by WAIT (RedissonBaseLock.evalWriteAsync). */
static const proto_contract lease_lock = {
    .survives = PROTO_SURVIVES_LEASE_LOCK,
    .failover_synced = 1,
    .source = "Redisson wiki, 8. Distributed locks and synchronizers, 8.1 Lock (the watchdog keeps a live "
              "holder's lock, a crashed holder's expires after lockWatchdogTimeout); Config javadoc "
              "(lockWatchdogTimeout, timeout, retryAttempts); a node's clock jump is not claimed",
};

/* The fair lock and the expirable semaphore put the client's clock into
 * the store (RedissonFairLock's queue deadlines and
 * RedissonPermitExpirableSemaphore's permit timeouts are
 * System.currentTimeMillis() of the caller, an ARGV of their scripts):
 * they assume the clients' clocks agree. */
const proto_contract proto_contract_client_time = {
    .survives = PROTO_SURVIVES_LEASE_LOCK & ~SCN_NEM_CLIENT_CLOCK,
    .failover_synced = 1,
    .source = "as redisson.lock (Redisson wiki 8.1); its scripts take the caller's System.currentTimeMillis() "
              "(RedissonFairLock queue deadlines, RedissonPermitExpirableSemaphore permit timeouts), so a "
              "client's clock set off is not claimed",
};

/* RSemaphore's permits have no owner and no lease (RedissonSemaphore:
 * acquire DECRBY, release INCRBY): the wiki offers
 * RPermitExpirableSemaphore ("Semaphore with lease time parameter
 * support for each acquired permit") for holders that may die. */
const proto_contract proto_contract_semaphore = {
    .survives = PROTO_SURVIVES_LEASE_LOCK & ~SCN_NEM_CRASH,
    .failover_synced = 1,
    .source = "Redisson wiki, 8. Distributed locks and synchronizers (RSemaphore; RPermitExpirableSemaphore "
              "is the semaphore with a lease per permit): a crashed holder's permits are not claimed back",
};

/* redis.io, "Distributed Locks with Redis": Redlock runs on N independent
 * masters without replication; its safety assumes "the local time in
 * every process updates at approximately the same rate" (no clock
 * jumps), and a node restarted without persistence must wait out the
 * longest lease first (delayed restarts) or keep its data (fsync). */
const proto_contract proto_contract_redlock = {
    .survives = PROTO_SURVIVES_LEASE_LOCK & ~(SCN_NEM_CLIENT_CLOCK | SCN_NEM_FAILOVER),
    .failover_synced = 1,
    .source = "redis.io, Distributed Locks with Redis (Redlock: independent masters, no failover; clocks "
              "that run at about the same rate; a node restart needs persistence or a delayed restart)",
};

const proto_contract *proto_contract_of(const proto_def *p)
{
    return p->contract ? p->contract : &lease_lock;
}

size_t proto_contract_text(const proto_contract *c, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap) buf[0] = '\0';
    for (int b = 0; b < SCN_NEM_COUNT && n < cap; b++)
        if (c->survives & (1 << b)) n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", scn_nemesis_kind_name(1 << b));
    if (n == 0 && cap) n = (size_t)snprintf(buf, cap, "nothing");
    return n < cap ? n : cap ? cap - 1 : 0;
}

/* The longest value a distribution can draw (INT64_MAX / 4: unbounded). */
static int64_t dist_top(const scn_dist *d)
{
    switch (d->kind) {
    case SCN_DIST_CONST: return d->a_us;
    case SCN_DIST_UNIFORM: return d->b_us > d->a_us ? d->b_us : d->a_us;
    default: return INT64_MAX / 4;
    }
}

/* A lease with no renewal: the lease less the longest hold, or (a lease
 * per acquire) the shortest lease less the longest hold the workload lets
 * it have (9/10 of it). */
static int64_t lease_less_hold(const scenario *s, int64_t lease)
{
    int64_t hold = dist_top(&s->hold);
    if (scn_has_acquire_lease(s)) {
        lease = s->acquire_lease.a_us;
        if (hold > lease / 10 * 9) hold = lease / 10 * 9;
    }
    return lease > hold ? lease - hold : 0;
}

static int64_t policy_margin(const pol_policy *pol, const scenario *s)
{
    int64_t lease = s->lease_us == SCN_LEASE_WATCHDOG || s->lease_us <= 0 ? pol->lease_us : s->lease_us;
    if (pol->renew.nsteps == 0) return lease_less_hold(s, lease);
    int64_t period = pol->renew_every_us > 0 ? pol->renew_every_us : lease * pol->renew_num / pol->renew_den;
    if (scn_has_acquire_lease(s)) lease = s->acquire_lease.a_us;
    return lease > period ? lease - period : 0;
}

/* The invariants p declares itself (proto_invariants adds dead-holder
 * from its lease, which is read from these). */
static unsigned own_invariants(const proto_def *p)
{
    return p->impl.invariants ? p->impl.invariants : PROTO_INV_LOCK;
}

int64_t proto_margin(const proto_def *p, const scenario *s)
{
    if (p->impl.proc_init == pol_generic_impl.proc_init) return policy_margin(p->impl.cfg, s);
    unsigned inv = own_invariants(p);
    int watchdog = s->lease_us == SCN_LEASE_WATCHDOG && !scn_has_acquire_lease(s);
    /* A latch and a semaphore's permits have no lease; an expirable
     * semaphore's only a fixed one. */
    if (inv & PROTO_INV(SCN_INV_LATCH)) return INT64_MAX;
    if ((inv & PROTO_INV(SCN_INV_PERMITS)) && !(inv & PROTO_INV(SCN_INV_LEASES))) return INT64_MAX;
    if (inv & PROTO_INV(SCN_INV_LEASES)) return watchdog ? INT64_MAX : lease_less_hold(s, s->lease_us);
    if (!strncmp(p->name, "baseline.", 9)) { /* a lease of its own (10 s by default), renewed at a third */
        int64_t lease = s->lease_us > 0 ? s->lease_us : SIM_SEC(10);
        return s->renew ? lease - lease / 3 : lease_less_hold(s, lease);
    }
    /* Redisson's watchdog renews at a third of its timeout; a fixed lease
     * is never renewed. */
    return watchdog ? s->watchdog_us - s->watchdog_us / 3 : lease_less_hold(s, s->lease_us);
}

int64_t proto_lease_in_force(const proto_def *p, const scenario *s, int64_t lease_us)
{
    int none = lease_us == SCN_LEASE_WATCHDOG || lease_us <= 0;
    if (p->impl.proc_init == pol_generic_impl.proc_init) {
        if (((const pol_policy *)p->impl.cfg)->no_lease) return INT64_MAX;
        int64_t lease = none ? ((const pol_policy *)p->impl.cfg)->lease_us : lease_us;
        return lease > 0 ? lease : INT64_MAX;
    }
    unsigned inv = own_invariants(p);
    if (inv & PROTO_INV(SCN_INV_LATCH)) return INT64_MAX;
    if ((inv & PROTO_INV(SCN_INV_PERMITS)) && !(inv & PROTO_INV(SCN_INV_LEASES))) return INT64_MAX;
    if (inv & PROTO_INV(SCN_INV_LEASES)) return lease_us == SCN_LEASE_WATCHDOG || lease_us < 0 ? INT64_MAX : lease_us;
    if (!strncmp(p->name, "baseline.", 9)) { /* its own 10 s by default; SETNX with expire-mode none: none */
        if (s->expire_mode && !strcmp(s->expire_mode, "none") && !strcmp(p->name, "baseline.setnx")) return INT64_MAX;
        return none ? SIM_SEC(10) : lease_us;
    }
    return none ? s->watchdog_us : lease_us; /* Redisson: lockWatchdogTimeout */
}

int proto_has_lease(const proto_def *p)
{
    scenario probe;
    memset(&probe, 0, sizeof probe);
    probe.lease_us = probe.watchdog_us = SIM_SEC(30);
    return proto_lease_in_force(p, &probe, SIM_SEC(30)) != INT64_MAX;
}
