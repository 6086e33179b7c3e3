/* fairlock.h — what RedissonFairLock adds to the reentrant lock's client
 * (PROTOCOLS.md §4; rlock.c runs both): its settings, the queue and
 * deadline keys, the per-thread entry and channel, the waitMs rule,
 * acquireFailed (the dequeue script) and the observer's view of the wait
 * queue. Private to protocols/. */
#ifndef LOCKSIM_FAIRLOCK_H
#define LOCKSIM_FAIRLOCK_H

#include "protocols/client/client.h"

/* The fair lock's settings of a release (dequeue NULL: not a fair lock). */
typedef struct fair_cfg {
    const char *dequeue;     /* acquireFailed's script */
    int64_t thread_wait_ms;  /* default threadWaitTime */
    int wait_is_queue_wait;  /* 3.13.3: tryLock's waitTime > 0 is the queue wait */
    int stays_queued;        /* before 3.2.4 (1b9ec19cb): no acquireFailed, a tryLock that gives
                                up keeps its place until its deadline */
    int place_keys;          /* before 3.2.0 (2b8d524b1): a waiter's place is a key of its own
                                with its deadline as TTL, not a member of a deadline zset; and
                                unlockAsync runs the plain lock's unlock */
} fair_cfg;

/* The queue and deadline keys of lock name (caps: 192). */
void fair_keys(const char *name, char *queue, char *deadlines);
/* Before 3.2.0: t's place key "redisson_lock_thread:{<name>}:<lockName>"
 * (cap: 256). */
void fair_place_key(const cl_thread *t, const char *name, char *buf, size_t cap);
/* The per-thread entry and channel of t for lock (caps: 192). */
void fair_entry(const cl_thread *t, int lock, char *entry, char *channel);
/* waitMs of an acquire with tryLock wait wait_ms (-1: lock()): the wait
 * when > 0 (since 3.13.3), else threadWaitTime. */
int64_t fair_wait_ms(const fair_cfg *c, const cl_proc *p, int64_t wait_ms);
/* The same in microseconds for the checkers (cl_protocol.queue_wait_us),
 * with cw's scenario and the fair settings c; wait_us < 0: lock(). */
int64_t fair_wait_us(const fair_cfg *c, const cl_world *cw, int64_t wait_us);
/* acquireFailed: sends the dequeue script for t; fn gets its reply. */
void fair_dequeue(const fair_cfg *c, cl_thread *t, int lock, int64_t wait_ms, int flags, cl_cmd_fn *fn,
                  void *ud);
/* The lock names in lock's wait queue on group's master, head first. */
void fair_queue(cl_world *cw, int group, int lock, hist_queue_fn *fn, void *ud);

#endif /* LOCKSIM_FAIRLOCK_H */
