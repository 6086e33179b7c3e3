/* cl_int.h — the client runtime of the protocols folder: virtual client
 * processes (id, clock, threads, alive / paused), the events that run in
 * them, their connections to nodes, Redisson's command layer (reply
 * timeout, resend, EVALSHA with NOSCRIPT fallback), the pub/sub entries
 * with their latches, and the watchdog. Private to protocols/.
 *
 * Invariant: every callback into a process goes through its gate: a dead
 * incarnation's events are dropped without touching their argument; a
 * paused process queues them and runs them, in order, when it resumes. */
#ifndef LOCKSIM_CL_INT_H
#define LOCKSIM_CL_INT_H

#include "protocols/protocol.h"
#include "sim/kernel/ut.h"

typedef struct cl_event cl_event;
typedef struct cl_node cl_node;
typedef struct cl_cmd cl_cmd;
typedef struct cl_sub cl_sub;

typedef void cl_fn(cl_proc *p, void *arg);

/* A timer in a process: armed in the process's local (monotonic) time,
 * silent while the process is paused (it fires on resume if its time
 * passed), gone when the process dies. Zero-initialise. */
typedef struct cl_timer {
    cl_event *ev;
} cl_timer;

/* An event of a process: in the sim heap (on the process's armed list) or
 * held in its pause queue. The process owns it until it runs. */
struct cl_event {
    cl_proc *p;
    cl_fn *fn;
    void *arg;
    const char *label;
    void (*free_arg)(void *); /* frees arg if the event never runs */
    cl_timer *timer;          /* armed through this timer, or NULL */
    sim_timer st;
    int queued;               /* held by a pause */
    int dead;                 /* cancelled while queued */
    cl_event *prev, *next;    /* armed list, or queue (next only) */
};

/* ------------------------------------------------------------ processes */

struct cl_thread {
    cl_proc *p;
    int index;          /* 1-based */
    char name[24];      /* "c3.t1" */
    char lock_name[56]; /* Redisson's lock name of the thread: "<id>:<index>" */
    int busy;           /* an operation is running */
    int depth[SCN_MAX_LOCKS]; /* hold depth the thread believes it has */
    int64_t waiting_since;    /* true time the current acquire began, or -1 */
    uint64_t op_seq;          /* the running operation's number */
    uint64_t opcount;   /* operations started */
    scn_op cur_op;      /* the running operation */
    int cur_lock;
    int cur_mode;       /* its read/write side (SCN_RW_*; 0: none) */
    int64_t cur_n;      /* its permits (semaphore) or count (0: none) */
    int64_t cur_wait_us; /* its wait (latch await; -1: none) */
    /* workload */
    int scripted;       /* runs its [steps], not the random workload */
    int phase;          /* workload.c's state */
    int cycle_lock, cycle_left;
    int cycle_mode;     /* the cycle's read/write side (0: none) */
    int64_t cycle_n;    /* the cycle's permits (0: one) */
    size_t *steps;      /* its steps (indexes into the scenario), by time */
    size_t nsteps, step_next;
    cl_timer wake;      /* think / hold timer */
    void *ext;          /* a composite protocol's running operation */
};

struct cl_proc {
    cl_world *cw;
    int client;         /* 1-based */
    int inc;            /* incarnation, 1-based */
    char id[40];        /* the Redisson connection-manager UUID */
    char name[16];      /* "c3" */
    sim_clock *clock;   /* its machine's clock (cl_world's, per client) */
    int alive, paused;
    cl_event *armed;                   /* events in the sim heap */
    cl_event *queue_head, *queue_tail; /* events held while paused */
    sim_timer pause_end;
    sim_rng *rng;
    cl_thread *threads;
    int nthreads;
    cl_node *nodes;     /* one per Redis node */
    cl_sub *subs;       /* pub/sub entries (uthash by entry name) */
    void *watchdog;     /* watchdog.c's state, created on first use */
    struct cl_block *blocks; /* cl_alloc'd memory, freed with the process */
    void *proto;        /* the protocol's per-process state */
};

struct cl_registry;

/* The event of one scripted step coming due. */
typedef struct cl_step_event {
    cl_world *cw;
    size_t index;
} cl_step_event;

struct cl_world {
    world *w;
    const scenario *s;
    const proto_def *proto;
    history *h;
    sim_ctx *ctx;
    cl_proc **procs;    /* current incarnation of each client, index client-1 */
    int *last_inc_of;   /* incarnation of each client's last process */
    int nprocs;
    struct cl_registry *registry;
    char *step_due;     /* per scenario step: its time has come */
    cl_step_event *step_ev;
    uint64_t acquisitions, acquire_failures, op_errors;
    int stopping;       /* the duration is over: start no new operation */
    uint64_t next_op_seq;
    int64_t retry_attempts, retry_interval_us; /* resolved for the version */
    int jitter;         /* retry delay: equal jitter (CUR) or fixed */
    int watchdog_gen;   /* 1: per-lock timers (V2019); 2: batched (CUR) */
    int synced;         /* lock scripts are pipelined with WAIT */
    int nosync_unchecked; /* a WAIT with no ack is not an error (before 3.20) */
    int *masters_known; /* per group: the master clients were told of */
    sim_clock *clocks;  /* per client machine */
    int64_t resource_max[SCN_MAX_LOCKS]; /* the fenced resource: highest token seen */
    /* the last store observation per lock, to record changes only */
    int last_client[SCN_MAX_LOCKS], last_inc[SCN_MAX_LOCKS], last_thread[SCN_MAX_LOCKS];
    int64_t last_count[SCN_MAX_LOCKS], last_expire[SCN_MAX_LOCKS];
    int observed[SCN_MAX_LOCKS];
    /* The Redis keys behind lock indexes: the scenario's locks first
     * (group 0), then whatever a protocol adds (MultiLock's members, each
     * on its group). */
    const char *key_names[SCN_MAX_LOCKS];
    char *key_owned[SCN_MAX_LOCKS];
    int key_group[SCN_MAX_LOCKS];
    int nkeys;
    int last_mode[SCN_MAX_LOCKS];
    struct cl_queues *queues; /* cl_queue.c: the last wait queue seen per lock */
};

/* The key name and node group of lock index `lock`. */
const char *cl_key_name(const cl_world *cw, int lock);
int cl_key_group(const cl_world *cw, int lock);
/* Adds a key (copied) on group; returns its lock index (-1: no room). */
int cl_key_add(cl_world *cw, const char *name, int group);
/* True time at which a key with node-clock deadline expire_ms on group's
 * master is gone (INT64_MAX when expire_ms < 0). */
int64_t cl_expiry_true_us(cl_world *cw, int group, int64_t expire_ms);

/* proc.c */
/* Zeroed memory owned by the process: freed by cl_free, or with the
 * process when it dies (so state machines cut off by a crash leak
 * nothing). */
void *cl_alloc(cl_proc *p, size_t n);
void cl_free(cl_proc *p, void *ptr);
cl_proc *cl_proc_new(cl_world *cw, int client, int inc);
void cl_proc_free(cl_proc *p);
/* Runs fn(p, arg) now through the gate (as a new event). */
void cl_post(cl_proc *p, const char *label, cl_fn *fn, void *arg);
/* The same for an arg the event owns: fn frees it when it runs, free_arg
 * if the process dies first. */
void cl_post_owned(cl_proc *p, const char *label, cl_fn *fn, void *arg, void (*free_arg)(void *));
/* Stop-the-world for for_us of true time (a GC pause, SIGSTOP). */
void cl_proc_pause(cl_proc *p, int64_t for_us);
/* Arms t to run fn(p, arg) after delay_us of the process's local time. */
void cl_timer_arm(cl_proc *p, cl_timer *t, int64_t delay_us, const char *label, cl_fn *fn,
                  void *arg);
void cl_timer_cancel(cl_proc *p, cl_timer *t);
int cl_timer_armed(const cl_timer *t);
/* The process's wall clock in ms (what System.currentTimeMillis reads). */
int64_t cl_now_ms(const cl_proc *p);
/* Trace line attributed to the process or one of its threads. */
void cl_trace(cl_proc *p, const char *who, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "<id>:<thread>" */
void cl_lock_name(const cl_thread *t, char *buf, size_t cap);
/* 32 lowercase hex characters from the process's PRNG (a request id). */
void cl_random_hex(cl_proc *p, char out[33]);
uint64_t cl_choose(cl_proc *p, uint64_t n, const char *label);

/* history.c of the runtime: records an event for thread t (or the process
 * when t is NULL) at the current true time. */
void cl_hist(cl_proc *p, const cl_thread *t, hist_kind kind, hist_op op, int lock,
             int64_t value, int64_t aux, const char *err);

/* ------------------------------------------------------------ commands */

/* Transport classes (PROTOCOLS.md 0.6), as flags. */
typedef int cl_transport;
#define CL_RESEND 0   /* R: resent after a reply timeout, up to retryAttempts */
#define CL_NORESEND 1 /* NR: once written, a reply timeout fails the call */
#define CL_SYNCED 2   /* pipelined with WAIT R 1000: NoSyncedSlaves if none acked */

typedef enum cl_err {
    CL_OK,
    CL_ERR_TIMEOUT,    /* RedisResponseTimeoutException */
    CL_ERR_REPLY,      /* the reply is an error reply (still passed) */
    CL_ERR_CONNECTION, /* could not be written: no connection (RedisConnectionException) */
    CL_ERR_NOSYNC      /* the script ran, no replica acked (NoSyncedSlavesException);
                          the script's reply is passed */
} cl_err;

/* Called once per command with its reply (borrowed; NULL on timeout). */
typedef void cl_cmd_fn(cl_proc *p, void *ud, const sim_reply *reply, cl_err err);

/* Runs the bundled script `script` on node: EVALSHA first, EVAL when the
 * node answers NOSCRIPT. keys/args are copied. */
void cl_eval(cl_proc *p, int group, const char *script, int nkeys, const char *const *keys,
             int nargs, const char *const *args, int flags, uint64_t tag, cl_cmd_fn *fn,
             void *ud);
/* A plain command (argv copied). fn may be NULL (fire and forget). tag
 * names the operation for store observers (0: none). */
void cl_command(cl_proc *p, int group, int argc, const char *const *argv, int flags,
                uint64_t tag, cl_cmd_fn *fn, void *ud);
/* RETRY-NOSYNC: arms timer to run fn(p, arg) again after the retry delay
 * and counts the attempt in *retries; 0 (nothing armed) once
 * retryAttempts are used up. */
int cl_nosync_retry(cl_proc *p, int *retries, cl_timer *timer, cl_fn *fn, void *arg);
/* Sends on the pub/sub connection (SUBSCRIBE / UNSUBSCRIBE). */
void cl_ps_send(cl_proc *p, int node, int argc, const char *const *argv);
/* Drops the process's pending commands (its death). */
void cl_commands_free(cl_proc *p);
/* Opens the process's connections to every group's master. */
void cl_nodes_open(cl_proc *p);
void cl_nodes_close(cl_proc *p);
/* The process learned that group's master is node: reconnect there. */
void cl_node_switch(cl_proc *p, int group, int node);
/* Both connections to group drop; reconnection follows. */
void cl_node_drop(cl_proc *p, int group);

/* ------------------------------------------------------------- pub/sub */

/* A waiting thread's wake-up: acquired = 1 when a permit was taken,
 * 0 on timeout. */
typedef void cl_wait_fn(cl_proc *p, void *ud, int acquired);
/* Subscribed (ok = 1) or the subscription did not complete in time. */
typedef void cl_subscribed_fn(cl_proc *p, void *ud, int ok);

/* Takes a reference on the entry `entry` for channel on node; subscribes
 * on first use. fn runs when the subscription is confirmed (at once, as a
 * posted event, if it already is), or with ok = 0 after timeout_us. */
cl_sub *cl_sub_acquire(cl_proc *p, int node, const char *entry, const char *channel,
                       int64_t timeout_us, cl_subscribed_fn *fn, void *ud);
/* Gives the reference back; the last one unsubscribes. */
void cl_sub_release(cl_proc *p, cl_sub *s);
/* latch.tryAcquire(timeout): takes a permit at once if there is one, else
 * waits for one (timeout_us < 0: for ever). fn runs as a posted event. */
void cl_sub_wait(cl_proc *p, cl_sub *s, int64_t timeout_us, cl_wait_fn *fn, void *ud);
/* Channel kinds decide what a message does to the latch. */
#define CL_SUB_LOCK 0      /* "0": one permit; "1": a permit per waiter */
#define CL_SUB_SEMAPHORE 1 /* "v" (the new count): min(references, v) permits */
#define CL_SUB_LATCH 2     /* "0" opens a gate every wait passes; "1" closes it */
/* Sets the entry's kind (entries start as CL_SUB_LOCK). */
void cl_sub_kind(cl_sub *s, int kind);
void cl_subs_free(cl_proc *p);
void cl_sub_on_push(cl_proc *p, int node, const sim_reply *msg);
/* A new pub/sub connection to group: every entry subscribes again. */
void cl_subs_resubscribe(cl_proc *p, int group);

/* cl_world.c */
/* The tag of a thread's operation on lock (see on_exec). */
uint64_t cl_tag(const cl_thread *t, int lock, uint64_t opcount);
/* Starts an observer's view of lock on group's master: *out cleared (not
 * held, no expiry); 1 with *pk and out->held / expire_ms set when the key
 * exists. */
int cl_store_peek(cl_world *cw, int group, int lock, proto_store *out, world_peek_result *pk);
/* "<uuid>:<thread>" to the (client, incarnation, thread) that used it;
 * returns 0 when no process of the run had that id. */
int cl_world_who(const cl_world *cw, const char *lname, int *client, int *inc, int *thread);
/* The live process of client (1-based), or NULL. */
cl_proc *cl_world_proc(cl_world *cw, int client);

/* cl_queue.c */
/* Fair locks: reads lock's wait queue on group's master and records how it
 * changed since the last look (HOP_QUEUED, HOP_DEQUEUED). Call after the
 * store observation of lock, whose holder it uses. */
void cl_queue_observe(cl_world *cw, int group, int lock);
void cl_queue_free(cl_world *cw);

/* workload.c */
void cl_workload_start(cl_proc *p);
void cl_workload_stop(cl_proc *p);
void cl_workload_free(cl_proc *p);
void cl_steps_schedule(cl_world *cw);

/* ------------------------------------------------------------ watchdog */

/* Renewal registration of (lock, thread) with lock name lname on node:
 * Generation 1 (per-lock timer, V2019) or 2 (batched, CUR) as the world's
 * protocol says. */
void cl_watchdog_add(cl_proc *p, int node, int lock, const char *lname, int thread);
/* cancelRenewal(t): thread 0 cancels every registration for lock. */
void cl_watchdog_cancel(cl_proc *p, int lock, int thread);
/* The same in the read-lock task (RedissonReadLock; lname "<id>:<t>"):
 * renews the thread's read timeout keys and the hash. Always batched. */
void cl_watchdog_add_read(cl_proc *p, int node, int lock, const char *lname, int thread);
void cl_watchdog_cancel_read(cl_proc *p, int lock, int thread);
void cl_watchdog_free(cl_proc *p);

#endif /* LOCKSIM_CL_INT_H */
