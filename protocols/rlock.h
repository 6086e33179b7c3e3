/* rlock.h — RedissonLock's client (rlock.c): its version settings and the
 * entry points the protocol table uses. Private to protocols/. */
#ifndef LOCKSIM_RLOCK_H
#define LOCKSIM_RLOCK_H

#include "protocols/client/client.h"
#include "protocols/fairlock.h"
#include "protocols/protocol.h"

typedef struct rlock_cfg {
    const char *acquire, *unlock, *force; /* bundled script names */
    int unlock_latch;        /* request id + latch key; DEL after success */
    int unlock_id_per_run;   /* 3.24-3.51: a NoSyncedSlaves retry re-runs the unlock under a
                                fresh request id (one id per unlock() call since 3.52.0) */
    int publish_arg;         /* scripts take the publish command as ARGV */
    int acquire_tr, unlock_tr;
    int watchdog_gen;
    int retry_attempts;      /* default retryAttempts */
    int jitter;              /* EqualJitter retry delay (else fixed 1500 ms) */
    int try_timeout_fails;   /* 4.7.0: a timeout in tryLock's loop = false */
    int lease0_is_watchdog;  /* 3.17.1: lease <= 0 means the watchdog */
    int fenced;              /* RFencedLock: the acquire also draws a token */
    int listen_recheck;      /* 3.28.0: addListener runs a listener on a latch permit (async waits) */
    int nil_cancels;         /* 3.12.1 (2464e0661): an unlock answered nil cancels the renewal too */
    int lease_reset;         /* an unlock's cancel resets internalLockLeaseTime to the watchdog's: 0
                                never (before 3.19.2), 1 always (3.19.2, 8a54ce8f6), 2 unless the
                                reply was 0 (3.27.2, 94d73b870: nil, 1 or an error) */
    int nosync_no_rollback;  /* 3.16.7-3.19.x: an acquire no replica acknowledged fails the call and
                                stays (RedissonBaseLock.evalWriteAsync; handleNoSync's rollback 3.20.0) */
    int unlock_error_keeps;  /* before 3.8.1 (f5e3618b3): an unlock that fails with an error or a
                                timeout leaves the lock's renewal running */
    int sub_msg_policy;      /* how a lock message runs async listeners: CL_SUB_TAKERS up to 3.7.0,
                                CL_SUB_RUN_ALL in 3.7.1 (8d347ad22), 0 since 3.7.2 (eb36207f9) */
    int rw_shared_name;      /* before 3.2.4 (0ffc2ca1e): read and write holds share the field
                                "<id>:<t>" (no ":write"), and a writer cannot read (no downgrade) */
    int rw_no_timeouts;      /* before 3.3.2 (ccda1ee99): no read timeout keys; an unlock that
                                leaves a hold sets the hash TTL to the thread's lease */
    int rw_write_msg0;       /* before 3.8.2 (f3e3b56ea): a write unlock publishes 0 (one waiter
                                of a process wakes), not READ_UNLOCK (1, every one) */
    /* RedissonReadWriteLock (PROTOCOLS.md §5): the scripts above are the
     * write side's, these the read side's (NULL: not a read/write lock);
     * both sides share the channel redisson_rwlock:{name}. */
    const char *read_acquire, *read_unlock, *read_force;
    /* RedissonFairLock (PROTOCOLS.md §4): queue scripts, a channel per
     * thread, acquireFailed = the dequeue script (fairlock.c). */
    fair_cfg fair;
    int quorum;              /* RedissonRedLock: a quorum of the members (multilock.c) */
    int ml_unlock_all;       /* before 3.27.2: MultiLock.unlock() sends every member's unlockAsync, then
                                throws the first failure (since 0f05a859f: locks.forEach(Lock::unlock)) */
    int ml_member_wait;      /* RedLock's wait per member: 0 max(remain/n, 1) (3.6.3+, d095634e6);
                                1 max(remain/n, 1000) (3.5.7-3.6.2, 27ade0529); 2 all that remains
                                (before 3.5.7, as MultiLock's) */
    int ml_lock_wait;        /* lock(lease)'s tryLock wait: 0 drawn again every round without a floor
                                (3.17.0+, 52843b106, issue #4050); 1 drawn once, 2000 ms at least
                                (3.5.7-3.16.x, and lockAsync); 2 as 1 with 5000 ms for n*1500
                                (before 3.5.7) */
    int ml_keeps_orphan;     /* before 3.8.2 (3de7f75b0, issue #1606): a member whose tryLock timed
                                out is not unlocked, though it may be held */
    int ml_lease_from_wait;  /* before 3.11.1: MultiLock gives members 2*waitTime as their lease
                                even without a wait (-2 ms: the key is deleted) */
} rlock_cfg;

extern const rlock_cfg rlock_current, rlock_2019, rlock_fenced, rlock_rw, rlock_fair, rlock_fair_3132, rlock_redlock;

/* versions.c: base at Redisson release `version` ("3.23"), named
 * full_name; NULL when base has no such release. */
const proto_def *proto_at_version(const proto_def *base, const char *version, const char *full_name);
int proto_version_parse(const char *s);

void rlock_proc_init(cl_proc *p);
void rlock_proc_free(cl_proc *p);
int rlock_node_of(const cl_world *cw, int lock);
/* The fair lock's queue wait for an acquire of wait_us (cl_protocol.queue_wait_us). */
int64_t rlock_queue_wait_us(const cl_world *cw, int64_t wait_us);
void rlock_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done);
void rlock_release(cl_thread *t, int lock, cl_done_fn *done);
void rlock_force_unlock(cl_thread *t, int lock, cl_done_fn *done);
void rlock_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done);
void rlock_observe(cl_world *cw, int group, int lock, hist_store *out);
int64_t rlock_token(cl_thread *t, int lock);
/* proto_def.scripts of the lock family (an rlock_cfg): its acquire,
 * dequeue, unlock and force scripts, each side's, and the watchdog's. */
size_t rlock_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max);
/* The unlock latch's TTL for the world's retry settings (ms). */
int64_t rlock_latch_ttl_ms(cl_proc *p);
/* Read/write lock (rwlock.c): the store's view, and the hold count (read
 * plus write) of lock name lname. */
void rwlock_observe(cl_world *cw, int group, int lock, hist_store *out);
int64_t rwlock_store_count(cl_world *cw, int group, int lock, const char *lname);

#endif /* LOCKSIM_RLOCK_H */
