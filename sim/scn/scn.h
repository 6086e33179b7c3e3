/* scn.h — scenarios: the parsed form of a .scn file (INI, every value with
 * units) and the parser that reports bad input as "path:line: message".
 *
 * A scenario fixes everything but the seed: the Redis topology, the
 * protocol and its settings, the clients' random workload, scripted steps,
 * faults, and what the checkers are expected to find. */
#ifndef LOCKSIM_SCN_H
#define LOCKSIM_SCN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/kernel/sim.h"

struct scenario;

/* ------------------------------------------------------------ values */

typedef enum scn_dist_kind {
    SCN_DIST_CONST,   /* a */
    SCN_DIST_UNIFORM, /* a..b, both included */
    SCN_DIST_EXP      /* exp(a): exponential with mean a */
} scn_dist_kind;

/* A distribution of durations in µs. */
typedef struct scn_dist {
    scn_dist_kind kind;
    int64_t a_us, b_us;
} scn_dist;

/* Draws from d with one choice point named label (integer µs; the
 * exponential is computed in doubles and rounded, identically on every
 * IEEE-754 build). */
int64_t scn_dist_draw(sim_ctx *ctx, const scn_dist *d, const char *label);
/* Writes d as scenario text ("5ms", "1ms..20ms", "exp(50ms)"). */
size_t scn_dist_format(const scn_dist *d, char *buf, size_t cap);
size_t scn_duration_format(int64_t us, char *buf, size_t cap);
/* Parses "5ms", "1ms..20ms" or "exp(50ms)". Returns 0, or -1 when s is
 * not a distribution. */
int scn_parse_dist(const char *s, scn_dist *out);
/* Parses "<decimal><unit>" (us ms s m h, e.g. "46.7s", "-200ms") into µs.
 * Returns 0, or -1 when s is not a duration or its size is above
 * SCN_DURATION_MAX. */
int scn_parse_duration(const char *s, int64_t *out);
/* The largest duration a scenario may state: 10^15 µs (277777h 46m 40s,
 * about 31.7 years), so that a time plus a few durations never overflows
 * int64 (the exponential distribution is capped there too). */
#define SCN_DURATION_MAX ((int64_t)1000000000000000)

/* Probabilities are integer parts per million. */
#define SCN_PPM 1000000

/* ------------------------------------------------------------- steps */

typedef enum scn_op {
    /* client operations (in [steps]) */
    SCN_OP_LOCK,
    SCN_OP_TRYLOCK,
    SCN_OP_UNLOCK,
    SCN_OP_FORCEUNLOCK,
    SCN_OP_ISLOCKED,
    SCN_OP_HELD,      /* isHeldByCurrentThread */
    SCN_OP_HOLDCOUNT, /* getHoldCount */
    SCN_OP_WRITE,     /* a write to the fenced resource */
    SCN_OP_COUNTDOWN, /* latch countDown() */
    SCN_OP_AWAIT,     /* latch await() / await(wait) */
    SCN_OP_GETCOUNT,  /* latch getCount() */
    /* faults (in [faults] or [steps]) */
    SCN_FAULT_CRASH,      /* client=N or node=X */
    SCN_FAULT_RESTART,    /* client=N or node=X */
    SCN_FAULT_PAUSE,      /* client=N or node=X, for=D */
    SCN_FAULT_CLOCK,      /* node=X (a node or a client) offset= | drift= | jump= */
    SCN_FAULT_PARTITION,  /* A|B or A->B [for=D] */
    SCN_FAULT_HEAL,       /* every partition ends */
    SCN_FAULT_DELAY,      /* link=A-B by=D [for=D] */
    SCN_FAULT_DROP,       /* link=A-B p=P [for=D] */
    SCN_FAULT_DROP_REPLY, /* [client=N] p=P [for=D] */
    SCN_FAULT_DROP_PUBSUB,/* [client=N] p=P [for=D] */
    SCN_FAULT_DISCONNECT, /* client=N */
    SCN_FAULT_FAILOVER,   /* [node=X | group=G] */
    SCN_FAULT_FIU,        /* POINT p=P [for=D] */
    SCN_FAULT_FAIL_REPLY, /* client=N command=acquire|unlock|renew [count=K] [as=lost|error] */
    /* client operations added later (kept at the end: the values above
     * stay); scn_op_is_fault() tells the two kinds apart */
    SCN_OP_ADDPERMITS,       /* semaphore addPermits(n) (n may be negative) */
    SCN_OP_TRYSETPERMITS,    /* semaphore trySetPermits(n) */
    SCN_OP_DRAINPERMITS,     /* semaphore drainPermits() */
    SCN_OP_AVAILABLEPERMITS, /* semaphore availablePermits() */
    SCN_OP_UPDATELEASE,      /* expirable semaphore updateLeaseTime(id, lease) */
    SCN_OP_TRYSETCOUNT,      /* latch trySetCount(n) */
    SCN_OP_COUNT
} scn_op;

/* 1 when op is a fault ([faults] or [steps], run by the fault schedule),
 * 0 when it is a client operation (run by a client thread). */
int scn_op_is_fault(scn_op op);

/* The kinds of command a fail-reply line names (scn_step.reply_cmd). */
#define SCN_REPLY_ACQUIRE 1
#define SCN_REPLY_UNLOCK 2
#define SCN_REPLY_RENEW 3

/* Clock changes. */
#define SCN_CLOCK_OFFSET 1
#define SCN_CLOCK_DRIFT 2
#define SCN_CLOCK_JUMP 3

/* Which side of a read/write lock an operation takes. */
#define SCN_RW_READ 1
#define SCN_RW_WRITE 2

/* ---------------------------------------------------------- endpoints */

/* Nodes are numbered group * (1 + replicas) + k: k = 0 is the group's
 * first master ("redis<group>"), k >= 1 its replica "redis<group>.r<k>".
 * Clients are numbered from 1 ("c<n>"). */
#define SCN_MAX_NODES (15 * (1 + 8)) /* [redis] nodes x (1 + replicas) at most */
#define SCN_SIDE_CLIENTS 64          /* more than a side's text can name */

/* A partition's side or a link's end, resolved from its names (a comma
 * list of nodes, groups, clients, "nodes" and "clients"): the nodes it
 * names (groups expanded) and the clients, or all of either. */
typedef struct scn_side {
    int all_nodes, all_clients;
    uint64_t nodes[(SCN_MAX_NODES + 63) / 64]; /* bit i: node i */
    int nclients;
    int clients[SCN_SIDE_CLIENTS];             /* client numbers, without repeats */
} scn_side;

/* Does side s take in node i / client c (listed, or all of them)? */
int scn_side_has_node(const scn_side *s, int node);
int scn_side_has_client(const scn_side *s, int client);

/* One timed line of [steps] or [faults] (or one the nemesis made). */
typedef struct scn_step {
    int line;          /* in the scenario file (0: generated) */
    int64_t at_us;     /* true time */
    scn_op op;
    int client;        /* 1-based; 0 when the op has no client */
    int thread;        /* 1-based */
    int lock;          /* index into the scenario's lock names */
    int64_t wait_us;   /* trylock wait; -1 = [protocol] wait */
    int64_t lease_us;  /* -1 = [protocol] lease; SCN_LEASE_WATCHDOG */
    int64_t for_us;    /* pause length, or how long a rule lasts (0: until healed) */
    int has_wait, has_lease;
    int mode;          /* read/write lock: SCN_RW_READ or SCN_RW_WRITE (0: the protocol's) */
    int64_t permits;   /* semaphore: permits to acquire / release / add (0: 1) */
    int async;         /* api=async: the async API (acquireAsync, awaitAsync) */
    char node[32];     /* node=: a node name ("redis0", "redis0.r1") or a client ("c2") */
    char side_a[160], side_b[160]; /* partition sides: comma lists of names */
    int directed;      /* partition A->B: only that direction */
    char link_a[32], link_b[32];   /* link=A-B */
    int p_ppm;         /* probability, parts per million */
    int64_t by_us;     /* delay */
    int clock_what;    /* SCN_CLOCK_* */
    int64_t clock_value; /* offset/jump in µs, drift in ppm */
    char point[64];    /* fiu point */
    int group;         /* failover: the node group (-1: from node=, else 0) */
    int reply_cmd;     /* fail-reply: SCN_REPLY_ACQUIRE / _UNLOCK / _RENEW */
    int reply_count;   /* fail-reply: how many replies (0: 1) */
    int reply_error;   /* fail-reply: 1 = an error reply, 0 = the reply is lost */
    int on_reply;      /* crash client=N on=reply: armed at at_us, the process
                          dies when its next reply arrives */
    int generated;     /* written by the nemesis */
    /* The names above resolved against the topology (scn_step_resolve):
     * what runs use; the names are what traces and files show. */
    int resolved;
    int node_index;    /* node=, -1 when none */
    scn_side end_a, end_b; /* a partition's sides, or a link's ends */
} scn_step;

/* Resolves st's endpoint names (node=, a partition's sides, a link's ends)
 * against s's topology and clients (scn_max_client) into node_index,
 * end_a and end_b, and sets resolved. Returns 0, or -1 with why in msg
 * (cap bytes) when a name is not an endpoint of s (st's ids are then
 * unspecified). The parser calls it on every line once the whole file is
 * read; whatever makes or edits a step after that calls it again. Cost:
 * O(number of s's steps) to find the highest client. */
int scn_step_resolve(const struct scenario *s, scn_step *st, char *msg, size_t cap);
/* Writes st as the scenario line that would produce it ("at = 10s ..."). */
size_t scn_step_format(const scn_step *st, const struct scenario *s, char *buf, size_t cap);
/* The name of a timed operation ("lock", "drop-reply", ...). */
const char *scn_op_name(scn_op op);
/* The i-th fault kind's usage and one-line description; 0 past the end. */
int scn_fault_help(size_t i, const char **usage, const char **doc);
/* The same for the i-th client operation of [steps]. */
int scn_step_help(size_t i, const char **usage, const char **doc);

#define SCN_LEASE_WATCHDOG (-1)

/* ------------------------------------------------------- expectations */

typedef enum scn_expect {
    SCN_EXPECT_NONE,     /* not stated: reported, not judged */
    SCN_EXPECT_HELD,
    SCN_EXPECT_VIOLATED,
    SCN_EXPECT_ANY
} scn_expect;

/* The invariants checkers can judge (index = checker id). */
typedef enum scn_invariant {
    SCN_INV_MUTEX,       /* mutual-exclusion */
    SCN_INV_REENTRANCY,  /* reentrancy */
    SCN_INV_LIVENESS,    /* liveness */
    SCN_INV_DEADLOCK,    /* deadlock */
    SCN_INV_FENCING,     /* fencing: the fenced resource's accepted writes */
    SCN_INV_FIFO,        /* fifo: a fair lock grants in queue order */
    SCN_INV_STARVATION,  /* starvation: no waiter is overtaken without bound */
    SCN_INV_RW_EXCLUSION,/* rw-exclusion: a writer excludes all; readers share */
    SCN_INV_PERMITS,     /* permits: holders never exceed the permits; none lost */
    SCN_INV_LATCH,       /* latch: no awaiter released early; all released after */
    SCN_INV_LEASES,      /* leases: no release succeeds for a permit past its lease, or twice */
    SCN_INV_DEAD_HOLDER, /* dead-holder: a hold whose holders all crashed is free within its lease */
    SCN_INV_COUNT
} scn_invariant;

/* Canonical name of an invariant ("mutual-exclusion", ...). */
const char *scn_invariant_name(scn_invariant inv);

/* ----------------------------------------------------------- scenario */

#define SCN_MAX_LOCKS 16

/* Fault kinds the nemesis may draw. */
#define SCN_NEM_PAUSE (1 << 0)       /* a client pauses */
#define SCN_NEM_CRASH (1 << 1)       /* a client crashes, restarts later */
#define SCN_NEM_PARTITION (1 << 2)   /* a client is cut from its master */
#define SCN_NEM_CLOCK (1 << 3)       /* a node's clock jumps forward */
#define SCN_NEM_NODE_CRASH (1 << 4)  /* a master crashes, restarts later */
#define SCN_NEM_NODE_PAUSE (1 << 5)  /* a node pauses */
#define SCN_NEM_FAILOVER (1 << 6)    /* a forced failover */
#define SCN_NEM_DROP_REPLY (1 << 7)  /* replies to a client are lost for a while */
#define SCN_NEM_DROP_PUBSUB (1 << 8) /* pub/sub messages are lost for a while */
#define SCN_NEM_DISCONNECT (1 << 9)  /* a client's connections drop */
#define SCN_NEM_DELAY (1 << 10)      /* a client's link slows down for a while */
#define SCN_NEM_FAIL_REPLY (1 << 11) /* a client's next replies to one kind of script are spoilt */
#define SCN_NEM_CLIENT_CLOCK (1 << 12) /* a client machine's clock offset is set to +-D */
#define SCN_NEM_COUNT 13
/* The kinds a swarm draws one by one, each with a chance of one half (the
 * first 12). Kinds added after them are drawn after every older draw,
 * each with the share its [swarm] key gives, so that the scenarios
 * written before them draw what they always drew. */
#define SCN_NEM_SWARM_COUNT 12

/* When a nemesis crash of a client strikes ([nemesis] crash-on). */
#define SCN_CRASH_ON_TIME 0  /* at its time */
#define SCN_CRASH_ON_REPLY 1 /* armed at its time, at the process's next reply */

/* The name of nemesis kind bit k ("pause", "node-crash", ...). */
const char *scn_nemesis_kind_name(int bit);

typedef enum scn_mode { SCN_MODE_LOCK, SCN_MODE_TRYLOCK } scn_mode;

struct scenario {
    char *path;
    char *name;

    /* [scenario] */
    int64_t duration_us;
    uint64_t seed;
    int has_seed;
    int64_t drain_us;          /* after duration: no new ops, in-flight ones end */

    /* [redis] */
    int nodes;
    int replicas;
    scn_dist latency;          /* one way, client <-> node */
    scn_dist replication_lag;  /* one way, master <-> replica */
    int persistence;           /* data survives a node restart */
    int64_t down_after_us;     /* Sentinel: master down for this long -> failover */
    int64_t discovery_us;      /* clients learn a new master after this */

    /* [protocol] */
    char *protocol;            /* e.g. "redisson.lock", "redisson.lock@2019" */
    int protocol_line;         /* where it was named, for error messages */
    char *scripts;             /* a folder of NAME.lua replacing the protocol's own (NULL: none) */
    int scripts_line;
    int64_t lease_us;          /* SCN_LEASE_WATCHDOG = -1 */
    int64_t wait_us;           /* tryLock wait */
    scn_mode mode;
    int64_t watchdog_us;       /* lockWatchdogTimeout */
    int64_t timeout_us;        /* reply timeout */
    int retry_attempts;        /* -1: the version's default */
    int64_t retry_interval_us; /* -1: the version's default policy */
    int64_t poll_us;           /* baselines: retry interval while waiting */
    char *expire_mode;         /* baseline.setnx: none | separate | atomic */
    int members;               /* MultiLock / RedLock: member locks per lock */
    int member_rotate;         /* members taken in an order rotated per client */
    int renew;                 /* baseline.cad: run the optional renewer */
    int synced;                /* -1: the version's default; else WAIT after lock scripts */
    int64_t thread_wait_us;    /* fair lock threadWaitTime; -1: the version's default */
    char *lock_names[SCN_MAX_LOCKS];
    int nlocks;
    int64_t init_permits;      /* semaphore: trySetPermits before the workload */
    int init_permits_line;     /* where [protocol] permits was set (0: not set), for a refusal */
    int64_t init_count;        /* latch: trySetCount before the workload */

    int runaway_busy;          /* [redis] runaway = busy: a script that does not end leaves its node
                                  answering BUSY (else stop: the run is refused as bad input) */
    /* [clients] */
    int clients;
    int threads;
    scn_dist hold;
    scn_dist think;
    scn_dist start;            /* first think of each thread */
    int reentry_ppm;
    int reentry_line;          /* where reentry was set (0: not set), for a refusal */
    int reentry_depth;
    int64_t ops_per_thread;    /* 0 = until the duration ends */
    int64_t work_stop_us;      /* no thread starts a cycle from this time on, its process living on (0: none) */
    int read_ppm;              /* read/write lock: share of acquisitions that read */
    scn_dist acquire_permits;  /* semaphore: permits per acquire (integer draw) */
    scn_dist lend_permits;     /* semaphore: permits each addpermits cycle lends (integer
                                  draw; unset: a_us 0, the cycle's own acquire count) */
    int async;                 /* the workload waits through the async API */
    scn_dist listener_gap;     /* async waits: from the latch check to addListener (unset: 0) */
    int switch_ppm;            /* read/write lock: share of re-entries that take the other side */
    int switch_line;           /* where switch was set (0: not set), for a refusal */
    int release_fifo_ppm;      /* share of cycles that release first-in-first-out (else last-in-first-out) */
    scn_dist acquire_lease;    /* each random acquire's own lease (unset: a_us 0, [protocol] lease) */
    int retry_unlock;          /* a release that failed is called once more */
    int nested;                /* a re-entered cycle holds again after each inner release (its outer section) */
    int addpermits_ppm;        /* semaphores: this share of the random cycles lends
                                  addPermits(n) for a hold, then addPermits(-n) */
    int addpermits_line;       /* where it was set (0: not set), for a refusal */
    int swarm_huge_line;       /* where [swarm] huge was set (0: not set), for a refusal */
    int lend_line;             /* where [clients] lend was set (0: not set), for a refusal */
    int permits_line;          /* where [clients] permits was set (0: not set), for a refusal */
    int rearm_ppm;             /* latch: this share of t1's cycles calls trySetCount([protocol] count) */
    int rearm_line;            /* where [clients] or [swarm] rearm was set (0: not set), for a refusal */
    int swarm_single_line;     /* where [swarm] single was set (0: not set), for a refusal */
    int swarm_thread_wait_line;  /* where [swarm] thread-wait-time was set (0: not set), for a refusal */
    int swarm_reject_stale_line; /* where [swarm] reject-stale was set (0: not set), for a refusal */

    /* [steps] and [faults], in file order */
    scn_step *steps;
    size_t nsteps, steps_cap;

    /* [resource]: a fenced resource touched in every critical section */
    int resource;              /* threads write to it before releasing */
    int reject_stale;          /* it refuses tokens below the highest seen */

    /* [nemesis]: faults drawn from the seed */
    int nemesis;               /* the section is present */
    int nemesis_kinds;         /* SCN_NEM_* bits */
    scn_dist nemesis_interval; /* between two faults */
    scn_dist nemesis_duration; /* of a pause, partition, crash, window */
    scn_dist nemesis_jump;     /* size of a forward clock jump */
    int64_t nemesis_start_us, nemesis_stop_us;
    int nemesis_p_ppm;         /* loss probability of drop-reply / drop-pubsub */
    int nemesis_any;           /* kinds = any: each seed draws its kinds (swarm) */
    int nemesis_crash_on;      /* SCN_CRASH_ON_*: when a client crash strikes */

    /* [swarm]: swarm testing. Each seed draws, before its run, its own mix
     * within these bounds (faults/swarm.c): the nemesis's kinds, interval,
     * durations and window, the clients, threads, hold and think ranges,
     * reentrancy and the lease. */
    int swarm;                 /* [swarm] is present or [nemesis] kinds = any */
    int swarm_section;         /* [swarm] is present */
    scn_dist swarm_clients;    /* integer range */
    scn_dist swarm_threads;    /* integer range */
    scn_dist swarm_hold;       /* a hold range a..b is drawn within these bounds */
    scn_dist swarm_think;      /* a think range, likewise */
    int swarm_reentry_ppm;     /* reentry drawn in 0..this (half the seeds: 0) */
    scn_dist swarm_lease;      /* a fixed lease drawn within these bounds... */
    int swarm_watchdog_ppm;    /* ...or, with this chance, the watchdog */
    scn_dist swarm_interval;   /* the nemesis interval's mean, within */
    scn_dist swarm_duration;   /* the bounds of the fault durations' range */
    int swarm_trylock_ppm;     /* this share of the seeds runs tryLock(wait)... */
    scn_dist swarm_wait;       /* ...with a wait drawn within these bounds */
    int swarm_async_ppm;       /* this share of the seeds waits through the async API */
    /* Workload shapes (faults/swarm.c draws them last, each only when set). */
    int swarm_nowait_ppm;      /* this share of the tryLock seeds waits 0 */
    int swarm_switch_ppm;      /* this share re-enters on the other side (read/write locks) */
    int swarm_switch_line;     /* where it was set (0: not set), for a refusal */
    int swarm_lease_spread_ppm;/* this share of fixed-lease seeds draws a lease per acquire */
    int swarm_retry_unlock_ppm;/* this share retries a failed release */
    int swarm_overrun_ppm;     /* this share of fixed-lease seeds holds past the lease */
    int swarm_long_hold_ppm;   /* this share of watchdog seeds holds past the watchdog timeout */
    int swarm_client_clock_ppm; /* this share of the seeds has the kind client-clock */
    int swarm_crash_reply_ppm; /* this share of the seeds crashes clients on a reply */
    int swarm_addpermits_ppm;  /* this share of a semaphore's seeds lends permits ([clients] addpermits 20%) */
    scn_dist swarm_thread_wait;/* the fair lock's threadWaitTime drawn log-uniformly within (unset: a_us 0) */
    int swarm_focus_ppm;       /* this share of the seeds keeps 0, 1 or 2 of its drawn fault kinds */
    scn_dist swarm_listener_gap; /* a half of the seeds draws [clients] listener-gap within it (unset: none) */
    int swarm_idle_ppm;        /* this share of the seeds draws its think range within 1s..10s */
    int swarm_slow_ppm;        /* this share of the seeds draws its hold range within 1s..10s */
    int swarm_huge_ppm;        /* this share of a semaphore's seeds counts permits near Java's int limit */
    int swarm_single_ppm;      /* this share of a semaphore's seeds acquires one permit a cycle,
                                  lending the [clients] permits range */
    int swarm_rearm_ppm;       /* this share of a latch's seeds arms it again ([clients] rearm 1%) */
    int swarm_nested_ppm;      /* this share of the seeds holds an outer section after an inner release */
    int swarm_stop_ppm;        /* this share of the seeds ends the work within the nemesis window ([clients] stop) */
    int swarm_within;          /* draw only faults within the protocol's contract (faults/contract.c) */
    char *swarm_reference;     /* and within this protocol's too (hunt --against), or NULL */
    int swarm_reject_stale_ppm; /* this share of the seeds' resources refuse stale
                                   tokens (0: [resource] reject-stale decides) */

    /* [expect] */
    scn_expect expect[SCN_INV_COUNT];
    int64_t liveness_bound_us;
    int64_t min_acquisitions;
    int64_t starvation_bound;  /* grants to others while one waits; 0: 2 x threads seen */
};
typedef struct scenario scenario;

/* Parse outcome: up to SCN_ERRORS_MAX errors, the most specific first (a
 * line's before the whole file's); line 0 means "no line". line and msg
 * are the first; more[] the others. */
#define SCN_ERRORS_MAX 5
typedef struct scn_error {
    char path[512];
    int line;
    char msg[512];
    int nmore;
    struct {
        int line;
        char msg[512];
    } more[SCN_ERRORS_MAX - 1];
    char protocol[128]; /* the [protocol] name read, even from a file that failed */
    int protocol_line;
} scn_error;

/* Adds an error to err (the first fills line and msg); past
 * SCN_ERRORS_MAX it is dropped. */
void scn_error_add(scn_error *err, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Puts the errors with a line first, in line order, then the others. */
void scn_error_sort(scn_error *err);
/* How many errors err holds. */
int scn_error_count(const scn_error *err);

/* Parses path into *out. Returns 0, or -1 with *err set (nothing
 * allocated survives). */
int scn_load(const char *path, scenario *out, scn_error *err);
/* A key's value given on the command line instead of in the file. */
typedef struct scn_override {
    const char *section, *key, *value;
} scn_override;

/* Like scn_load, with the n overrides applied in order after the file (as
 * if it ended with them). A bad override value is reported with line 0 as
 * "section.key = value: why". */
int scn_load_with(const char *path, const scn_override *ov, size_t n, scenario *out, scn_error *err);
/* The key a command-line name means: "section.key"; a key name found in
 * one section only ("hold", "lease"); or a section with one main key
 * ("clients" = clients.count, "protocol" = protocol.name). Timed lines
 * ([steps], [faults]) are not keys. Returns 0 with *section and *key
 * (static strings), or -1 with why (cap bytes). */
int scn_key_resolve(const char *name, const char **section, const char **key, char *why, size_t cap);
/* Parses text as if read from path (tests). */
int scn_load_string(const char *path, const char *text, scenario *out, scn_error *err);
void scn_free(scenario *s);
/* Writes err as "path:line: message". */
void scn_error_print(const scn_error *err);
/* The highest client number of s: [clients] count, or the highest client
 * of a client operation in [steps] when that is higher. */
int scn_max_client(const scenario *s);
/* Writes node's name ("redis0", "redis0.r1") into buf (cap bytes);
 * returns its length. */
size_t scn_node_name(const scenario *s, int node, char *buf, size_t cap);

/* The protocol as a run names it: [protocol] name, or with a patch
 * "NAME+scripts(DIR)" (DIR as written). Writes into buf (cap bytes) and
 * returns buf. */
const char *scn_protocol_label(const scenario *s, char *buf, size_t cap);

/* 1 when s's [clients] lease is set: each random acquire draws its own
 * lease from it instead of taking [protocol] lease. */
int scn_has_acquire_lease(const scenario *s);

/* Writes s as scenario text: every key whose value differs from its
 * default, the locks, [steps] (client operations) and [faults] in file
 * order, [nemesis] when s has one, and [expect]. Parsing the text gives
 * the same runs as s (the same trace for the same seed): a round trip.
 * Returns 0, or -1 when out reports a write error or a line would be
 * longer than the parser reads (the text is then incomplete). */
int scn_write(FILE *out, const scenario *s);

#endif /* LOCKSIM_SCN_H */
