/* client.h — the client runtime that lock protocols run on, and all they
 * see of it: virtual client processes and their threads, commands and
 * scripts sent to a node group (reply timeout, resend, EVALSHA with the EVAL
 * fallback, WAIT for replicas), pub/sub entries with their latches, process
 * timers, Redisson's watchdog, an operation base with its end, and the
 * client world that runs every process of a run (workload, scripted steps,
 * client faults, the store observer's hooks).
 *
 * A protocol is a cl_protocol: the runtime calls its functions, and it
 * calls back only through this header. Processes, threads and
 * subscriptions are opaque; what a protocol may know of them has an
 * accessor below.
 *
 * Invariant: every callback into a process goes through its gate: a dead
 * incarnation's events are dropped without touching their argument; a
 * paused process queues them and runs them, in order, when it resumes. */
#ifndef LOCKSIM_CLIENT_H
#define LOCKSIM_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/history/history.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"
#include "sim/world/world.h"

typedef struct cl_world cl_world;
typedef struct cl_proc cl_proc;
typedef struct cl_thread cl_thread;
typedef struct cl_sub cl_sub;

/* ------------------------------------------------------------ scripts */

/* A Lua script as EVALSHA names it. */
typedef struct cl_script {
    const char *name;
    const char *text;
    size_t len;
    char sha[41]; /* SHA-1 of text in hex */
} cl_script;

/* --------------------------------------------------------- protocols */

/* How an operation ended: ok (acquired / released / answered), value (a
 * query's answer), err (a static reason; NULL with !ok: "not acquired"). */
typedef void cl_done_fn(cl_thread *t, int ok, int64_t value, const char *err);

/* One waiter of a lock's wait queue: its lock name (len bytes, borrowed). */
typedef void cl_queue_fn(void *ud, const char *lname, size_t len);

/* Client settings that differ by version (PROTOCOLS.md 0.8, 0.9). */
typedef struct cl_defaults {
    int watchdog_gen;     /* 0: per-reply re-armed entry (3.10.4 and before);
                             1: per-lock timer with thread counts; 2: batched */
    int retry_attempts;
    int jitter;           /* 1: EqualJitter(1000, 2000); 0: fixed 1500 ms */
    int synced;           /* lock scripts pipelined with WAIT (3.12.5+) */
    int nosync_unchecked; /* WAIT's answer is not acted on (before 3.20) */
    int readonly_retry;   /* a READONLY error is resent like a lost reply (3.27.1+) */
    int wd_error_keeps;   /* generation 1: a renewal error leaves the entry (3.10.5-3.13.x;
                             3.14.0 removes it, PR #3195) */
    int wd_zero_keeps;    /* generation 1: a renewal reply of 0 leaves the entry (before 3.16.1) */
    int nosync_no_retry;  /* "None of slaves were synced" fails at once (3.20.0: no
                             ServiceManager.execute retry before 3.20.1) */
    int nosync_all;       /* NoSyncedSlaves when any replica did not acknowledge ("Only N of M
                             slaves were synced", 3.16.7-3.17.4; else when none did) */
    int written_final;    /* a command that reached the socket is never sent again: its reply
                             timeout fails the call (before 3.10.0; 1a08db75b resends) */
    int sub_no_timeout;   /* lock() / acquire() wait for their subscription for ever (before
                             3.2.1; 835dfeaa8: syncSubscription) */
    int read_renew_hash;  /* generations 0 and 1: a read hold is renewed by RedissonLock's
                             script, the hash alone, not its timeout keys (before 3.8.1;
                             387dd9307, issue #1604) */
} cl_defaults;

/* Whether a lock claims re-entry (a thread that holds it takes it again
 * at once, and releases it as often as it took it), and who counts it. */
typedef enum cl_reentry {
    CL_REENTRY_NO,    /* not reentrant: a thread that asks again waits on itself */
    CL_REENTRY_REDIS, /* counted in Redis (Redisson's hash field per thread) */
    CL_REENTRY_LOCAL  /* counted in the client; Redis sees the first acquire only */
} cl_reentry;

/* "no", "redis", "local". */
const char *cl_reentry_name(cl_reentry r);

/* What the runtime runs of a protocol. Operations end by calling done
 * exactly once (at once, or later from a reply or a timer). */
typedef struct cl_protocol {
    const void *cfg;               /* the protocol's own settings (version) */
    const cl_defaults *defaults;   /* NULL: the current Redisson's */
    /* The script named name (NULL: none); every script a protocol or the
     * watchdog evaluates is found here. */
    const cl_script *(*script)(const char *name);
    void (*proc_init)(cl_proc *p); /* per-process state (cl_proc_state) */
    void (*proc_free)(cl_proc *p);
    /* wait_us < 0: lock() (waits for ever); >= 0: tryLock(wait).
     * lease_us: SCN_LEASE_WATCHDOG or a lease. */
    void (*acquire)(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done);
    void (*release)(cl_thread *t, int lock, cl_done_fn *done);
    void (*force_unlock)(cl_thread *t, int lock, cl_done_fn *done);
    void (*query)(cl_thread *t, int lock, scn_op what, cl_done_fn *done);
    /* Reads lock from its group's master's store (no side effects). */
    void (*observe)(cl_world *cw, int group, int lock, hist_store *out);
    /* Called once when the client world is made (may add keys). */
    void (*world_init)(cl_world *cw);
    /* The node group holding lock (-1: the lock spans groups). */
    int (*node_of)(const cl_world *cw, int lock);
    /* The fencing token of t's hold of lock, or 0 (NULL: no tokens). */
    int64_t (*token)(cl_thread *t, int lock);
    /* Calls fn for each lock name in lock's wait queue on its group's
     * master, head first, without side effects (NULL: no queue). */
    void (*queue)(cl_world *cw, int group, int lock, cl_queue_fn *fn, void *ud);
    /* How long the wait queue keeps the turn of a queued thread that does
     * not come back (its process died) for each place it holds, for an
     * acquire that waits wait_us (< 0: lock()): the fair lock's waitMs
     * (Redisson wiki 8.2: "if some thread has died then Redisson waits its
     * return for 5 seconds"). NULL: no such queue. */
    int64_t (*queue_wait_us)(const cl_world *cw, int64_t wait_us);
    /* The checkers that apply (bits 1 << SCN_INV_*; 0: the lock family's
     * mutual-exclusion, reentrancy, liveness, deadlock, fencing). */
    unsigned invariants;
    /* The store's hold count for lock name lname "<id>:<t>" (NULL: the
     * observed owner's count when lname owns it, else 0). */
    int64_t (*store_count)(cl_world *cw, int group, int lock, const char *lname);
    /* Runs once before the workload (the store's initial state), or NULL. */
    void (*setup)(cl_world *cw);
    /* The one operation a random-workload thread runs after each think
     * (NULL: the lock cycle: acquire, hold, release). */
    scn_op (*random_op)(cl_thread *t);
    /* Why the protocol cannot run s, as a sentence written into buf (cap
     * bytes) and returned; NULL when it can (a NULL hook: any scenario). */
    const char *(*refuse)(const scenario *s, char *buf, size_t cap);
    /* A user's patch ([protocol] scripts = DIR): npatched scripts that
     * replace those of script() with the same names (none: NULL, 0). */
    const cl_script *patched;
    size_t npatched;
    /* Whether the lock claims re-entry (CL_REENTRY_NO: the random workload
     * never re-enters it, [clients] reentry is refused, swarm draws none). */
    cl_reentry reentry;
    /* Whether a re-entry adds its lease to the lock's, one TTL for all
     * the holds (the read/write lock's write side, 3.5.5+): the random
     * workload then holds a cycle of such re-entries up to the latest end
     * of their leases, until its first release. Otherwise (RLock's
     * re-entry sets the lease; a read hold has a lease of its own) up to
     * the earliest. */
    int reentry_adds_lease;
} cl_protocol;

/* ------------------------------------------------------ what a protocol
 * may know of its threads, processes and world */

cl_proc *cl_thread_proc(const cl_thread *t);
int cl_thread_index(const cl_thread *t);      /* 1-based */
const char *cl_thread_name(const cl_thread *t); /* "c3.t1" */
/* Redisson's lock name of the thread: "<id>:<index>". */
const char *cl_thread_lock_name(const cl_thread *t);
/* The running operation: its tag (names it to the store observer), its
 * read/write side (SCN_RW_*; 0: none), its permits or count (0: none),
 * its wait (latch await; -1: none). */
uint64_t cl_thread_op(const cl_thread *t);
int cl_thread_mode(const cl_thread *t);
int64_t cl_thread_permits(const cl_thread *t);
int64_t cl_thread_wait_us(const cl_thread *t);
/* 1 when the running operation uses the async API (api=async). */
int cl_thread_async(const cl_thread *t);
/* The running operation's lease (SCN_LEASE_WATCHDOG: none / watchdog). */
int64_t cl_thread_lease_us(const cl_thread *t);
/* A slot for a composite protocol's running operation (NULL when idle). */
void **cl_thread_ext(cl_thread *t);

cl_world *cl_proc_world(const cl_proc *p);
int cl_proc_client(const cl_proc *p);         /* 1-based */
const char *cl_proc_id(const cl_proc *p);     /* the connection manager's UUID */
const char *cl_proc_name(const cl_proc *p);   /* "c3" */
int cl_proc_threads(const cl_proc *p);
/* The protocol's per-process state slot (set by proc_init). */
void **cl_proc_state(cl_proc *p);

const scenario *cl_world_scenario(const cl_world *cw);
/* The protocol's settings (cl_protocol.cfg). */
const void *cl_world_cfg(const cl_world *cw);
sim_ctx *cl_world_ctx(const cl_world *cw);

/* The client settings resolved for the run (scenario over version). */
typedef struct cl_settings {
    int64_t retry_attempts, retry_interval_us;
    int jitter;           /* retry delay: equal jitter (CUR) or fixed */
    int watchdog_gen;     /* 0: re-armed per reply (3.10.4-); 1: per-lock timers (V2019); 2: batched (CUR) */
    int synced;           /* lock scripts are pipelined with WAIT */
    int nosync_unchecked; /* a WAIT with no ack is not an error (before 3.20) */
    int readonly_retry;   /* READONLY (a demoted master) is resent (3.27.1+) */
    int wd_error_keeps;   /* generation 1: a renewal error leaves the entry (before 3.14.0) */
    int wd_zero_keeps;    /* generation 1: a renewal reply of 0 leaves it (before 3.16.1) */
    int nosync_no_retry;  /* NoSyncedSlaves is not retried (3.20.0) */
    int written_final;    /* nothing written is resent (before 3.10.0) */
    int nosync_all;       /* a missing acknowledgement fails the call (3.16.7-3.17.4) */
    int sub_no_timeout;   /* a blocking wait's subscription has no deadline (before 3.2.1) */
    int read_renew_hash;  /* a read hold's renewal extends the hash only (before 3.8.1) */
} cl_settings;
const cl_settings *cl_world_settings(const cl_world *cw);
/* How long after a connection is lost the client opens it again (for the
 * checkers; the runtime's reconnect timer). */
int64_t cl_reconnect_us(void);
/* How long a lock command waits for its reply before it fails with a
 * timeout (for the checkers): the reply timeout, and WAIT's where the
 * scripts are synced. */
int64_t cl_reply_wait_us(const cl_world *cw);
/* The timeout of the WAIT a synced script is followed by
 * (slavesSyncTimeout): the longest a script waits for replicas that do
 * not acknowledge (for the checkers). */
int64_t cl_wait_timeout_us(void);
/* The longest delay before a command is sent again (after its reply timed
 * out, or with no connection): the scenario's retry-interval, else the
 * jittered delay's cap (a version's fixed interval is shorter). */
int64_t cl_retry_delay_max_us(const scenario *s);
/* The node group holding lock as the protocol places it (-1: it spans
 * groups). */
int cl_lock_group(const cl_world *cw, int lock);

/* The Redis keys behind lock indexes: the scenario's locks first (group
 * 0), then whatever a protocol adds (MultiLock's members, each on its
 * group). */
const char *cl_key_name(const cl_world *cw, int lock);
int cl_key_group(const cl_world *cw, int lock);
/* Renames the key behind lock index lock (copied; world_init only). */
void cl_key_rename(cl_world *cw, int lock, const char *name);
/* Adds a key (copied) on group; returns its lock index (-1: no room). */
int cl_key_add(cl_world *cw, const char *name, int group);

/* The script named name, as the world's protocol resolves it (its patch
 * first); asserts it exists (a protocol names only its own scripts).
 * O(patched scripts) before the protocol's lookup. */
const cl_script *cl_script_of(const cl_world *cw, const char *name);
/* The same, NULL when the protocol has no script of that name. */
const cl_script *cl_script_lookup(const cl_world *cw, const char *name);

/* ------------------------------------------------------------ processes */

/* Zeroed memory owned by the process: freed by cl_free, or with the
 * process when it dies (so state machines cut off by a crash leak
 * nothing). */
void *cl_alloc(cl_proc *p, size_t n);
void cl_free(cl_proc *p, void *ptr);

typedef void cl_fn(cl_proc *p, void *arg);

/* A timer in a process: armed in the process's local (monotonic) time,
 * silent while the process is paused (it fires on resume if its time
 * passed), gone when the process dies. Zero-initialise. */
typedef struct cl_timer {
    struct cl_event *ev;
} cl_timer;

/* Arms t to run fn(p, arg) after delay_us of the process's local time. */
void cl_timer_arm(cl_proc *p, cl_timer *t, int64_t delay_us, const char *label, cl_fn *fn, void *arg);
void cl_timer_cancel(cl_proc *p, cl_timer *t);
int cl_timer_armed(const cl_timer *t);
/* Runs fn(p, arg) now through the gate (as a new event). */
void cl_post(cl_proc *p, const char *label, cl_fn *fn, void *arg);
/* The process's wall clock in ms (what System.currentTimeMillis reads). */
int64_t cl_now_ms(const cl_proc *p);
/* Trace line attributed to the process or one of its threads. */
void cl_trace(cl_proc *p, const char *who, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 32 lowercase hex characters from the process's PRNG (a request id). */
void cl_random_hex(cl_proc *p, char out[33]);
uint64_t cl_choose(cl_proc *p, uint64_t n, const char *label);
/* Records an event for thread t (or the process when t is NULL) at the
 * current true time. */
void cl_hist(cl_proc *p, const cl_thread *t, hist_kind kind, hist_op op, int lock, int64_t value, int64_t aux,
             const char *err);

/* ------------------------------------------------------------ commands */

/* Transport classes (PROTOCOLS.md 0.6), as flags. */
#define CL_RESEND 0   /* R: resent after a reply timeout, up to retryAttempts */
#define CL_NORESEND 1 /* NR: once written, a reply timeout fails the call */
#define CL_SYNCED 2   /* pipelined with WAIT R 1000: NoSyncedSlaves if none acked */
#define CL_FAILFAST 4 /* with no connection: fails at once, never resent later (a client
                         library with no offline queue: go-redis, redigo) */

typedef enum cl_err {
    CL_OK,
    CL_ERR_TIMEOUT,    /* RedisResponseTimeoutException */
    CL_ERR_REPLY,      /* the reply is an error reply (still passed) */
    CL_ERR_CONNECTION, /* could not be written: no connection (RedisConnectionException) */
    CL_ERR_NOSYNC      /* the script ran, no replica acked (NoSyncedSlavesException);
                          the script's reply is passed */
} cl_err;

/* The exception a client error raises ("RedisResponseTimeoutException",
 * ...); NULL for CL_OK and CL_ERR_REPLY. */
const char *cl_err_exception(cl_err err);

/* Called once per command with its reply (borrowed; NULL on timeout). */
typedef void cl_cmd_fn(cl_proc *p, void *ud, const sim_reply *reply, cl_err err);

/* Runs script on group's master: EVALSHA first, EVAL when the node
 * answers NOSCRIPT. keys/args are copied. tag names the operation for the
 * store observer (cl_thread_op; 0: none). fn may be NULL. */
void cl_eval(cl_proc *p, int group, const cl_script *script, int nkeys, const char *const *keys, int nargs,
             const char *const *args, int flags, uint64_t tag, cl_cmd_fn *fn, void *ud);
/* A plain command (argv copied). fn may be NULL (fire and forget). */
void cl_command(cl_proc *p, int group, int argc, const char *const *argv, int flags, uint64_t tag, cl_cmd_fn *fn,
                void *ud);
/* RETRY-NOSYNC: arms timer to run fn(p, arg) again after the retry delay
 * and counts the attempt in *retries; 0 (nothing armed) once
 * retryAttempts are used up, and always where the release does not
 * retry (3.20.0). */
int cl_nosync_retry(cl_proc *p, int *retries, cl_timer *timer, cl_fn *fn, void *arg);
/* The transport flags of a lock script of class tr: plus CL_SYNCED when
 * the run's lock scripts wait for replicas. */
int cl_lock_flags(const cl_proc *p, int tr);

/* ------------------------------------------------------------- pub/sub */

/* A waiting thread's wake-up: acquired = 1 when a permit was taken,
 * 0 on timeout. */
typedef void cl_wait_fn(cl_proc *p, void *ud, int acquired);
/* Subscribed (ok = 1) or the subscription did not complete in time. */
typedef void cl_subscribed_fn(cl_proc *p, void *ud, int ok);

/* Takes a reference on the entry `entry` for channel on group; subscribes
 * on first use. fn runs when the subscription is confirmed (at once, as a
 * posted event, if it already is), or with ok = 0 after timeout_us. */
cl_sub *cl_sub_acquire(cl_proc *p, int group, const char *entry, const char *channel, int64_t timeout_us,
                       cl_subscribed_fn *fn, void *ud);
/* Gives the reference back; the last one unsubscribes. */
void cl_sub_release(cl_proc *p, cl_sub *s);
/* latch.tryAcquire(timeout): takes a permit at once if there is one, else
 * waits for one (timeout_us < 0: for ever). fn runs as a posted event. */
void cl_sub_wait(cl_proc *p, cl_sub *s, int64_t timeout_us, cl_wait_fn *fn, void *ud);
/* The same for n permits (latch.tryAcquire(n, timeout)): waiters are
 * served in order, and one waiting for more than there are holds back the
 * ones behind it. */
void cl_sub_wait_n(cl_proc *p, cl_sub *s, int64_t n, int64_t timeout_us, cl_wait_fn *fn, void *ud);
/* latch.tryAcquire(n) without waiting: 1 when n permits were taken. */
int cl_sub_try_take(cl_sub *s, int64_t n);
/* A broadcast entry (Spring's unlock listener, a future per lock key):
 * a waiter registers before the attempt that double-checks the lock, so
 * that a message which comes before that attempt's answer is not lost:
 * it leaves a permit for the waiter. cl_sub_arm returns the registration's
 * generation; cl_sub_disarm ends it once the attempt is answered: 1 when
 * a message came meanwhile (its permit is kept for the waiter's next wait
 * when will_wait, else dropped), 0 when none did. */
uint64_t cl_sub_arm(cl_sub *s);
int cl_sub_disarm(cl_sub *s, uint64_t gen, int will_wait);
/* entry.addListener(): the async API's wait. fn(p, ud, 1) runs when a
 * message runs this listener, fn(p, ud, 0) after timeout_us (< 0: never),
 * each as a posted event. A message runs the oldest listener (see
 * CL_SUB_RUN_ALL) before it adds its permits to the latch, which the
 * listeners already waiting never look at. */
void cl_sub_listen(cl_proc *p, cl_sub *s, int64_t timeout_us, cl_wait_fn *fn, void *ud);
/* 1 when a listener added to s now would come after the message it waits
 * for: a latch's gate is open (a ZERO came) and no rule runs a new
 * listener on it (CL_SUB_RECHECK). */
int cl_sub_listen_late(const cl_sub *s);
/* Channel kinds decide what a message does to the latch. */
#define CL_SUB_LOCK 0      /* "0": one permit; "1": a permit per waiter */
#define CL_SUB_SEMAPHORE 1 /* "v" (the new count): min(references, v) permits */
#define CL_SUB_LATCH 2     /* "0" opens a gate every wait passes; "1" closes it */
#define CL_SUB_BROADCAST 3 /* any message: a permit per waiter */
/* Sets the entry's kind (entries start as CL_SUB_LOCK). */
void cl_sub_kind(cl_sub *s, int kind);
/* How messages of an entry act, by Redisson version (entries start with
 * none: the current rules). */
#define CL_SUB_ADDS_COUNT 1 /* semaphore: a message adds v permits (before 3.15.6) */
#define CL_SUB_RUN_ALL 2    /* latch: ZERO runs every listener (since 3.24.0); lock, semaphore:
                               every message does (3.7.1 only, 8d347ad22) */
#define CL_SUB_RECHECK 4    /* a new listener runs at once on a latch permit (since 3.28.0) */
#define CL_SUB_TAKERS 8     /* lock, semaphore: a message adds its permits first, then runs
                               listeners while each can take one (3.0.0 .. 3.7.0) */
void cl_sub_policy(cl_sub *s, int policy);

/* ------------------------------------------------------------ watchdog */

/* Renewal registration of (lock, thread) with lock name lname on group:
 * Generation 0 (an entry re-armed by each reply, 3.10.4 and before),
 * 1 (per-lock timer, V2019) or 2 (batched, CUR) as the run's settings
 * say. */
void cl_watchdog_add(cl_proc *p, int group, int lock, const char *lname, int thread);
/* cancelRenewal(t): thread 0 cancels every registration for lock. */
void cl_watchdog_cancel(cl_proc *p, int lock, int thread);
/* The same in the read-lock task (RedissonReadLock; lname "<id>:<t>"):
 * renews the thread's read timeout keys and the hash. Always batched. */
void cl_watchdog_add_read(cl_proc *p, int group, int lock, const char *lname, int thread);
void cl_watchdog_cancel_read(cl_proc *p, int lock, int thread);

/* ------------------------------------------------- the operation base */

/* What every running operation has: put it first in the protocol's
 * operation struct and allocate with cl_op_new. */
typedef struct cl_op {
    cl_thread *t;
    int lock;
    cl_done_fn *done;
    cl_timer timer; /* a retry, a sleep, a backoff: cancelled at the end */
    cl_sub *sub;    /* a subscription: released at the end (NULL: none) */
} cl_op;

/* A zeroed operation of size bytes (>= sizeof(cl_op), the cl_op first)
 * owned by t's process, for lock, ending with done. */
void *cl_op_new(cl_thread *t, size_t size, int lock, cl_done_fn *done);
/* Ends op: cancels its timer, releases its subscription, frees it, then
 * calls done(t, ok, value, err). op is gone afterwards. */
void cl_op_end(void *op, int ok, int64_t value, const char *err);

/* A lease in ms as Redisson passes it: -1 for the watchdog. */
int64_t cl_lease_ms(int64_t lease_us);
/* A wait in ms: -1 for lock() (no wait), else the wait. */
int64_t cl_wait_ms(int64_t wait_us);

/* ---------------------------------------------------------- the store */

/* Starts an observer's view of lock on group's master: *out cleared (not
 * held, no expiry); 1 with *pk and out->held / expire_ms set when the key
 * exists. */
int cl_store_peek(cl_world *cw, int group, int lock, hist_store *out, world_peek_result *pk);
/* Calls fn for each field of lock's hash on group's master (stop: fn
 * returns 0); 0 when it is not a hash. */
int cl_store_peek_hash(cl_world *cw, int group, int lock,
                       int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud);
/* Reads any key on group's master (no side effects): 1 with *pk filled
 * when it exists (pk->count: a zset's members). */
int cl_store_peek_key(cl_world *cw, int group, const char *key, world_peek_result *pk);
/* Calls fn for each element of list key on group's master, head first. */
int cl_store_peek_list(cl_world *cw, int group, const char *key, void (*fn)(void *ud, const char *v, size_t vlen),
                       void *ud);
/* Runs script with its keys and args on group's master as an
 * administrator would before the workload (not a client's command: no
 * timeout, no network); returns the integer it answered (0 otherwise). */
int64_t cl_admin_eval(cl_world *cw, int group, const cl_script *script, int nkeys, const char *const *keys,
                      int nargs, const char *const *args);
/* Tells the store observer that owner value token is t's (a lock client
 * that stores its own tokens, not "<id>:<thread>"). */
void cl_owner_register(cl_thread *t, const char *token);
/* 1 when group's master (as the world has it now) is up. */
int cl_group_up(const cl_world *cw, int group);
/* True time at which a key with node-clock deadline expire_ms on group's
 * master is gone (INT64_MAX when expire_ms < 0). */
int64_t cl_expiry_true_us(cl_world *cw, int group, int64_t expire_ms);
/* Records an info event about lock (no thread) at the current time. */
void cl_world_info(cl_world *cw, hist_op op, int lock, int64_t value, int64_t aux);

/* --------------------------------------------------- the client world */

/* Creates the clients of scenario s on world w with protocol p; their
 * events start when cl_world_start() schedules them. h receives the
 * history. Borrowed: w, s, p, h. */
cl_world *cl_world_new(world *w, const scenario *s, const cl_protocol *p, history *h);
void cl_world_free(cl_world *cw);
/* Schedules every thread's workload and scripted steps. */
void cl_world_start(cl_world *cw);
/* The duration is over: threads finish what they are doing, start nothing
 * new, and release what they hold. */
void cl_world_stop(cl_world *cw);
/* Client faults (client is 1-based). */
void cl_crash(cl_world *cw, int client);
/* Arms a crash of client's live process (none: nothing) at the next reply
 * that reaches it through its gate, a NOSCRIPT excepted: the server ran
 * the command, the process dies before it sees the reply, so it never
 * sends what it would have sent next. The arming dies with the process;
 * a restart of the client while the process lives disarms it. */
void cl_crash_on_reply(cl_world *cw, int client);
/* A new process of a crashed client; a live process is left running (a
 * crash on=reply still armed is disarmed). */
void cl_restart(cl_world *cw, int client);
void cl_pause(cl_world *cw, int client, int64_t for_us);
/* The kinds of script a fail-reply fault names, told from the script's
 * name: an acquire ("acquire"), an unlock or release ("unlock",
 * "release"; not a forceUnlock), a watchdog renewal ("renew", "extend"). */
#define CL_KIND_ACQUIRE 1
#define CL_KIND_UNLOCK 2
#define CL_KIND_RENEW 3
/* The client's next count replies to scripts of kind are spoiled: lost
 * (the server ran the script; the client times out and resends as its
 * transport allows) or, as_error, replaced by an error reply (the server
 * ran it; the client sees ERR). Budgets add up; the last as_error wins. */
void cl_fail_reply(cl_world *cw, int client, int kind, int count, int as_error);
/* When the replies of kind that client's fail-reply budgets spoiled came,
 * in order (*at: n times, owned by cw): the first budget armed is spent
 * first. */
size_t cl_fail_reply_spoils(const cl_world *cw, int client, int kind, const int64_t **at);
/* Every connection of the client drops; it reconnects and resubscribes. */
void cl_disconnect(cl_world *cw, int client);
/* The clock of client's machine (it outlives its processes). */
sim_clock *cl_clock(cl_world *cw, int client);
int cl_world_clients(const cl_world *cw);
/* Threads in the middle of an operation. */
int cl_world_busy(const cl_world *cw);
/* Threads that believe they hold a lock. */
int cl_world_holding(const cl_world *cw);
/* Counters of the run so far. */
void cl_world_counts(const cl_world *cw, uint64_t *acquisitions, uint64_t *failures, uint64_t *errors);
/* Records the store's view of every lock (after a fault changed it). */
void cl_world_observe_all(cl_world *cw);
/* Records in the history that a fault (its scenario line) was applied. */
void cl_world_fault(cl_world *cw, const char *line);

#endif /* LOCKSIM_CLIENT_H */
