/* versions.c — Redisson releases: "redisson.lock@3.23" is the reentrant
 * lock family's client with the settings of release 3.23.0, taken from the
 * version timeline (PROTOCOLS.md §0.9): which acquire and unlock scripts
 * (merged test 3.19; unlock latch 3.24), their transport (NR since 3.37),
 * the watchdog generation (batched since 3.44), retry attempts and delay
 * (4 with jitter since 3.48), WAIT after scripts (3.12.5) and whether its
 * answer counts (3.20), lease 0 as the watchdog (3.17.1), and tryLock's
 * timeout rule (4.7.0); for the fair lock also its scripts (3.11.1: PR
 * #2100; 3.32) and queue wait (3.13.3); for the read/write lock its read
 * acquire (3.11.1: issue #2144) and unlocks (3.24); the watchdog before
 * its 3.10.5 rework (generation 0); MultiLock's member lease (3.11.1).
 * Protocols with settings of their own (the semaphores, the latch) bring
 * them (proto_def.at_version). Resolved protocols live for the process. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/rlock.h"

#define V(a, b, c) ((a) * 10000 + (b) * 100 + (c))

typedef struct resolved {
    char name[64];
    char summary[128];
    proto_def def;
    union {
        rlock_cfg lock;
        _Alignas(max_align_t) unsigned char raw[PROTO_CFG_MAX];
    } cfg;
    cl_defaults defaults;
} resolved;

static resolved **table; /* grows: every release a process names (the unit tests name many) */
static int ntable, table_cap;

/* "3.23", "3.23.1", "4.7.0" -> 32300, 32301, 40700; -1 when it is not a
 * version. */
int proto_version_parse(const char *s)
{
    int a, b, c, k = 0;
    if (s[0] < '0' || s[0] > '9') return -1;
    if (sscanf(s, "%d.%d.%d%n", &a, &b, &c, &k) == 3 && s[k] == '\0' && b < 100 && c < 100) return V(a, b, c);
    k = 0;
    if (sscanf(s, "%d.%d%n", &a, &b, &k) == 2 && s[k] == '\0' && b < 100) return V(a, b, 0);
    return -1;
}

static void settings(int v, rlock_cfg *c, cl_defaults *d)
{
    int merged = v >= V(3, 19, 0), latch = v >= V(3, 24, 0), early = v < V(3, 11, 1);
    if (c->fair.dequeue) {
        /* The fair lock: nil-safe purge and max(0, PTTL) for a queued
         * thread since 3.32; the unlock latch since 3.24; threadWaitTime
         * 5000 and no queue wait from tryLock up to 3.13.2. */
        /* the purge is nil-safe since 3.31.0 (703f6f57b), a queued thread
         * waits max(0, PTTL) since 3.32.0, the last waiter's deadline is
         * guarded since 3.45.0 (2fe06b7a3) */
        c->acquire = v >= V(3, 45, 0)   ? "fair_acquire"
                     : v >= V(3, 32, 0) ? "fair332_acquire"
                     : v >= V(3, 31, 0) ? "fair331_acquire"
                     : early            ? "fair2018_acquire"
                                        : "fair2019_acquire";
        /* acquireFailed: none before 3.2.4 (1b9ec19cb), the head's leave
         * takes threadWaitTime off every deadline 3.5.5-3.11.0 (3c63f97f2),
         * waitMs given back to those behind since 3.11.1 (PR #2100). */
        c->fair.dequeue = !early ? "fair_dequeue" : v >= V(3, 5, 5) ? "fair2017_dequeue" : "fair2018_dequeue";
        c->fair.stays_queued = v < V(3, 2, 4);
        c->unlock = latch ? "fair_unlock" : "fair2019_unlock";
        c->force = latch ? "fair_force_unlock" : "fair2019_force_unlock";
        c->fair.thread_wait_ms = v >= V(3, 13, 3) ? 300000 : 5000;
        c->fair.wait_is_queue_wait = v >= V(3, 13, 3);
        /* Before 3.2.0 (2b8d524b1) a place is a key with its deadline as
         * TTL; forceUnlock pops expired heads from 3.1.0 (93d4c8ee2). */
        c->fair.place_keys = v < V(3, 2, 0);
        if (c->fair.place_keys) {
            c->acquire = "fair300_acquire";
            c->unlock = "fair300_unlock";
            c->force = v < V(3, 1, 0) ? "fair300_force_unlock" : "fair310_force_unlock";
        }
    } else if (c->read_acquire) {
        /* The read/write lock: a joining reader's TTL is max(ttl, lease)
         * since 3.11.1 (issue #2144); the unlocks have the latch since
         * 3.24, and answer nil for a missing lock since 3.44 (1ce49b7a2;
         * 1 before). Its force scripts are the same in every one. */
        int rw_nil = v >= V(3, 44, 0);
        c->read_acquire = early ? "rw2018_read_acquire" : "rw_read_acquire";
        /* 3.3.2-3.4.2: a nested read unlock deletes the thread's own write
         * hold (issue #891, 48ddec70e); before 3.5.5 a write re-entry sets
         * the TTL to its lease (issue #1110, cbda17c68). */
        c->read_unlock = !latch                ? (v < V(3, 4, 3) ? "rw2017_read_unlock" : "rw2019_read_unlock")
                         : rw_nil ? "rw_read_unlock" : "rw2023_read_unlock";
        c->acquire = v < V(3, 5, 5) ? "rw2016_write_acquire" : "rw_write_acquire";
        /* Before 3.3.2 no read timeout keys (ccda1ee99); before 3.2.4 one
         * field name for both sides and no downgrade (0ffc2ca1e). 3.3.1's
         * shared timeout keys (141236de7) are not modelled: 3.3.1 runs
         * 3.2.4's scripts. */
        c->unlock = !latch ? "rw2019_write_unlock" : rw_nil ? "rw_write_unlock" : "rw2023_write_unlock";
        c->rw_no_timeouts = v < V(3, 3, 2);
        c->rw_shared_name = v < V(3, 2, 4);
        if (c->rw_shared_name) {
            c->read_acquire = "rw300_read_acquire";
            c->read_unlock = "rw300_read_unlock";
            c->unlock = "rw300_write_unlock";
        } else if (c->rw_no_timeouts) {
            c->read_acquire = "rw324_read_acquire";
            c->read_unlock = "rw324_read_unlock";
        }
    } else {
        if (!c->fenced) c->acquire = merged ? "lock_acquire" : "lock2019_acquire";
        /* a lock that is gone answers 1 up to 3.10.5 (fc58dd0b2, 3.10.6) */
        c->unlock = latch ? "lock_unlock" : v >= V(3, 10, 6) ? "lock2019_unlock" : "lock2018_unlock";
        c->force = latch ? "lock_force_unlock" : "lock2019_force_unlock";
    }
    c->unlock_latch = latch;
    /* ServiceManager.execute re-runs unlockAsync0 after "None of slaves
     * were synced"; up to 3.51 each run draws its request id in
     * unlockInnerAsync, since 3.52.0 unlockAsync draws one (7337c86d1). */
    c->unlock_id_per_run = latch && v < V(3, 52, 0);
    /* 3.22-3.23 pass "publish" as ARGV: same effect as the literal; the rw
     * force scripts always take it as ARGV. */
    c->publish_arg = latch || c->read_acquire;
    c->acquire_tr = c->unlock_tr = v >= V(3, 37, 0) ? CL_NORESEND : CL_RESEND;
    c->watchdog_gen = v >= V(3, 44, 0) ? 2 : v >= V(3, 10, 5) ? 1 : 0;
    c->ml_lease_from_wait = early; /* changelog 3.11.1 */
    c->ml_unlock_all = v < V(3, 27, 2); /* RedissonMultiLock.unlock, 0f05a859f */
    c->ml_member_wait = v >= V(3, 6, 3) ? 0 : v >= V(3, 5, 7) ? 1 : 2;
    c->ml_lock_wait = v >= V(3, 17, 0) ? 0 : v >= V(3, 5, 7) ? 1 : 2;
    c->ml_keeps_orphan = v < V(3, 8, 2);
    c->retry_attempts = v >= V(3, 48, 0) ? 4 : 3;
    c->jitter = v >= V(3, 48, 0);
    c->try_timeout_fails = v >= V(4, 7, 0);
    c->lease0_is_watchdog = v >= V(3, 17, 1);
    c->listen_recheck = v >= V(3, 28, 0); /* RedissonLockEntry.addListener, 2b6f2fda7 */
    c->unlock_error_keeps = v < V(3, 8, 1); /* unlockAsync's cancelExpirationRenewal(threadId) on error */
    c->nil_cancels = v >= V(3, 12, 1);      /* 2464e0661 (#2515) */
    c->lease_reset = v >= V(3, 27, 2) ? 2 : v >= V(3, 19, 2) ? 1 : 0; /* 94d73b870; 8a54ce8f6 (#4818) */
    c->rw_write_msg0 = v < V(3, 8, 2);
    c->sub_msg_policy = v < V(3, 7, 1) ? CL_SUB_TAKERS : v < V(3, 7, 2) ? CL_SUB_RUN_ALL : 0;
    d->watchdog_gen = c->watchdog_gen;
    d->retry_attempts = c->retry_attempts;
    d->jitter = c->jitter;
    d->synced = v >= V(3, 12, 5);
    /* WAIT's answer fails a lock script from 3.16.7 (e2b3973c3: "Only N
     * of M slaves were synced", any missing replica), from 3.17.5 only
     * when none acknowledged (12af11867); the acquire is rolled back from
     * 3.20.0 (ec2e41ab3) */
    d->nosync_unchecked = v < V(3, 16, 7);
    d->nosync_all = v < V(3, 17, 5);
    c->nosync_no_rollback = v < V(3, 20, 0);
    d->nosync_no_retry = v < V(3, 20, 1); /* 65320f76f: execute() retries, 3.20.1 */
    d->written_final = v < V(3, 10, 0);   /* 1a08db75b: a reply timeout resends, 3.10.0 */
    d->sub_no_timeout = v < V(3, 2, 1);   /* 835dfeaa8: syncSubscription, 3.2.1 */
    /* A read hold's watchdog renews RedissonLock's way, the hash alone,
     * before 3.8.1 (387dd9307: RedissonReadLock.renewExpirationAsync). */
    d->read_renew_hash = v < V(3, 8, 1);
    /* RedisExecutor resends on RedisReadonlyException since 3.27.1 (a
     * write that reached a master Sentinel has demoted; 3.27.0 has no
     * such case). */
    d->readonly_retry = v >= V(3, 27, 1);
    /* Generation 1's renewal error: the entry stays (issue #3194) until
     * 3.14.0, whose renewExpiration removes it (PR #3195, 1cb622e92). */
    d->wd_error_keeps = c->watchdog_gen == 1 && v < V(3, 14, 0);
    /* and a reply of 0 leaves it until 3.16.1, whose renewExpiration
     * calls cancelExpirationRenewal (cce197928, eb74e2463). */
    d->wd_zero_keeps = c->watchdog_gen == 1 && v < V(3, 16, 1);
}

/* base's settings at release v into cfg (PROTO_CFG_MAX bytes) and d. */
static void fill(const proto_def *base, int v, void *cfg, cl_defaults *d)
{
    *d = base->impl.defaults ? *base->impl.defaults : (cl_defaults){0};
    if (base->at_version) {
        sim_assert(base->cfg_size <= PROTO_CFG_MAX);
        if (base->impl.cfg) memcpy(cfg, base->impl.cfg, base->cfg_size);
        base->at_version(v, cfg, d);
    } else {
        if (base->impl.cfg) *(rlock_cfg *)cfg = *(const rlock_cfg *)base->impl.cfg;
        settings(v, cfg, d);
    }
}

size_t proto_script_names_at(const proto_def *base, int v, const char **out, size_t max)
{
    union {
        rlock_cfg lock;
        _Alignas(max_align_t) unsigned char raw[PROTO_CFG_MAX];
    } cfg = {0};
    cl_defaults d;
    fill(base, v, cfg.raw, &d);
    return base->scripts ? base->scripts(cfg.raw, &d, out, max) : 0;
}

const proto_def *proto_at_version(const proto_def *base, const char *version, const char *full_name)
{
    for (int i = 0; i < ntable; i++)
        if (strcmp(table[i]->name, full_name) == 0) return &table[i]->def;
    int v = proto_version_parse(version);
    if (v < 0 || base->versions == NULL || v < base->min_version || v > V(4, 7, 99))
        return NULL;
    resolved *r = sim_xcalloc(1, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", full_name);
    r->def = *base;
    fill(base, v, r->cfg.raw, &r->defaults);
    snprintf(r->summary, sizeof r->summary, "%s as of Redisson %d.%d.%d", base->name, v / 10000, v / 100 % 100,
             v % 100);
    r->def.name = r->name;
    r->def.summary = r->summary;
    if (base->impl.cfg) r->def.impl.cfg = r->cfg.raw;
    r->def.impl.defaults = &r->defaults;
    if (ntable == table_cap) {
        table_cap = table_cap ? table_cap * 2 : 32;
        table = sim_xrealloc(table, (size_t)table_cap * sizeof *table);
    }
    table[ntable++] = r;
    return &r->def;
}
