/* checkers.h — the invariant checkers: each reads a run's history and
 * judges one or more invariants held / violated / unknown, with the
 * violations it found. Checkers observe; they never drive the run. */
#ifndef LOCKSIM_CHECKERS_H
#define LOCKSIM_CHECKERS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/history/history.h"
#include "sim/scn/scn.h"

/* ------------------------------------------------------------ results */

typedef enum check_verdict { CHECK_HELD, CHECK_VIOLATED, CHECK_UNKNOWN } check_verdict;

/* How a violation came about, where a checker can tell (bits). */
#define CHECK_CAUSE_LEASE_RAN_OUT 1u /* mutual exclusion: the store had let the first
                                        holder's key expire before the second acquired;
                                        permits (expirable semaphore): a holder's permit
                                        lease had ended when the bound was passed */
/* What a semaphore or latch waiter that slept past the liveness bound
 * waited for: bugs that starve alike differ here (a wake-up too small for
 * n, one wake-up taken by the process's other waiter, one listener run
 * per message). */
#define CHECK_CAUSE_WAIT_MANY 2u     /* it wanted more than one permit */
#define CHECK_CAUSE_MIXED_N 4u       /* its process had another waiter of the same
                                        object, for another count, at the time */
#define CHECK_CAUSE_ASYNC 8u         /* it waited through the async API */
#define CHECK_CAUSE_SIBLING 16u      /* its process had another waiter of the same
                                        object at the time (any count) */
#define CHECK_CAUSE_RETRIED_RELEASE 32u /* a thread had called a failed release once more
                                           (an application's retry) before it */
#define CHECK_CAUSE_FAILED_OP 64u /* permits lost or created at the end while acquires or
                                     releases had failed with an error (a timeout: it may
                                     have run): the client was told, unlike a resend */
#define CHECK_CAUSE_ADDED 128u /* the permits it slept through came from an addPermits
                                  (in flight when they became available): a wake-up
                                  owed by addPermits, which versions before 3.16.2
                                  do not send */
#define CHECK_CAUSE_LATE_LISTENER 256u /* its async wait added its listener after the
                                          message that should run it (HOP_LATE_LISTENER):
                                          the read of the count crossed the message */
#define CHECK_CAUSE_ADD_RESENT 512u /* permits over the bound, created or lost after an
                                       addPermits was resent on a reply timeout (its
                                       script is not idempotent: it may run twice) */
#define CHECK_CAUSE_OVER_WRITE 1024u /* read/write exclusion: the hold already there was
                                        a write (a write lock lost under its holder), not
                                        a read one cut short */
#define CHECK_CAUSE_SELF 4096u /* deadlock: the thread waits for a lock its own hold keeps (a read
                                  hold upgraded to write: the lock does not re-enter that way) */
#define CHECK_CAUSE_PARKED 2048u /* liveness: the waiter was waiting on its channel with
                                    no timeout when the bound ran out (HOP_PARK: lock()
                                    answered a negative TTL), so only a message could
                                    wake it, not a lock it would poll */

typedef struct check_violation {
    scn_invariant inv;
    int64_t t_us;
    char detail[512];
    size_t upto;    /* history index of the last event that led there */
    unsigned cause; /* CHECK_CAUSE_* bits (0: none told) */
    int64_t from_us; /* when what led to it began, where that is long before t_us (a
                        dead holder's crash: the hunt's fault window reaches back to
                        it); -1: not told */
} check_violation;

typedef struct check_result {
    check_verdict verdict[SCN_INV_COUNT];
    int checked[SCN_INV_COUNT];   /* 0: the checker did not run (unknown) */
    check_violation *v;
    size_t nv, cap;
} check_result;

/* "held", "violated" or "unknown". */
const char *check_verdict_name(check_verdict v);
/* Every invariant unknown, no violations. */
void check_result_init(check_result *r);
/* Frees the violations and zeroes r. */
void check_result_free(check_result *r);
/* Records a violation (the verdict becomes violated) and returns it, for
 * its cause. Past 64 violations only the verdict changes: NULL. */
check_violation *check_violate(check_result *r, scn_invariant inv, int64_t t_us, size_t upto,
                               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* -------------------------------------------------------------- holds */

/* A thread's holds cut from the history, by one of three rules (each
 * reproduces what its reader has always counted):
 *  DEPTH:  as the thread's own depth says, sides together: a hold begins
 *          at the ok of an acquire that reports depth 1 and ends at the
 *          invoke of a release that reports depth 0 (a thread that reports
 *          depth 1 again without ending begins another);
 *  SIDES:  per side, read or write (no side: write), the depth counted by
 *          the acquire oks and the release invokes;
 *  SHARES: per mode (none, read, write), counted the same way, except that
 *          each acquire(n) of permits is a share of its own, which the
 *          thread's first release(n) of the same n ends (else its first);
 *          with the waits.
 * Under every rule a hold also ends at the ok of a force unlock by its
 * thread on its lock, and at its process's crash. */
typedef enum check_hold_rule {
    CHECK_HOLDS_DEPTH,  /* mutual exclusion */
    CHECK_HOLDS_SIDES,  /* read/write exclusion */
    CHECK_HOLDS_SHARES, /* the report's pictures */
    CHECK_HOLD_RULES
} check_hold_rule;
#define CHECK_HOLDS(rule) (1u << (rule))

/* How a hold or a wait ended. */
typedef enum check_end {
    CHECK_END_OPEN,    /* still going when the history stops */
    CHECK_END_RELEASE, /* a hold: the invoke of a release */
    CHECK_END_FORCE,   /* a hold: the ok of a force unlock */
    CHECK_END_CRASH,   /* its process crashed */
    CHECK_END_REPLY    /* a wait: an ok / fail of its thread's acquire or await on its lock */
} check_end;

#define CHECK_OPEN ((size_t)-1)

/* One hold (or wait) of a thread on a lock. */
typedef struct check_span {
    int client, inc, thread, lock;
    hist_op op;             /* HOP_ACQUIRE; a wait: HOP_ACQUIRE or HOP_AWAIT */
    int mode;               /* the acquire's SCN_RW_READ / SCN_RW_WRITE (0: none) */
    int64_t n;              /* the acquire's permits (0: none) */
    size_t from_k, to_k;    /* history indexes; to_k = CHECK_OPEN while open */
    int64_t from_us, to_us; /* true times; to_us = INT64_MAX while open */
    check_end end;
    size_t peers, npeers;   /* DEPTH, SIDES: hs->peers[peers .. peers + npeers) are
                               the holds of the same rule and lock open when this
                               one began, in the order of the lock's open set (an
                               ending hold's slot is taken by the last one) */
} check_span;

typedef struct check_spans {
    check_span *v;
    size_t n, cap;
} check_spans;

typedef struct check_holds {
    check_spans rule[CHECK_HOLD_RULES]; /* each in the order the holds began */
    check_spans waits;                  /* built with SHARES: invoke .. end, in that order */
    size_t *peers;                      /* indexes into the same rule's holds */
    size_t npeers, peers_cap;
} check_holds;

/* The holds of h under each rule whose CHECK_HOLDS bit is in rules, in one
 * pass. DEPTH and SIDES skip events whose lock is not in [0, nlocks).
 * Never fails; the caller frees with check_holds_free. O(events x holds
 * open at once). */
check_holds *check_holds_build(const history *h, int nlocks, unsigned rules);
/* Frees hs and what it holds; NULL is fine. */
void check_holds_free(check_holds *hs);

/* ------------------------------------------------------------ the table */

/* Bit i: invariant i (the bits protocols declare with PROTO_INV). */
#define CHECK_INV(i) (1u << (i))

typedef struct check_impaired check_impaired;

/* What the checkers read besides the history. */
typedef struct check_input {
    int nlocks;
    char *const *names;         /* names[i]: lock i's name (it only words violations) */
    int64_t liveness_bound_us;  /* the longest allowed wait while the lock is there */
    int64_t starvation_bound;   /* grants to others in one wait (0: 2 x the threads) */
    int64_t end_us;             /* when the run stopped */
    /* Where the waiters' impaired periods come from (check_impaired_build);
     * s NULL: no fault lines, nothing is impaired. */
    const scenario *s;          /* its fault lines ([faults], [steps]) and topology */
    const scn_step *generated;  /* the nemesis's fault lines */
    size_t ngenerated;
    const int *lock_group;      /* per lock: the node group holding it (-1: it spans
                                   groups); NULL: group 0 */
    int64_t reconnect_us;       /* how long a client takes to open a lost connection
                                   again (cl_reconnect_us) */
    int synced;                 /* the lock's scripts are followed by WAIT for the
                                   replicas (cl_settings.synced): a paused replica
                                   holds each one for WAIT's timeout */
    int64_t reply_wait_us;      /* how long a lock command waits for its reply before
                                   it fails (cl_reply_wait_us; 0: the scenario's
                                   reply timeout) */
    int local_lock;             /* the lock declares a local lock (a policy's local-lock):
                                   a process's threads queue on it before the store, and
                                   a thread keeps it until its last release returns */
    const check_impaired *impaired; /* set by check_all for the checkers */
    /* A lock whose wait queue keeps the turn of a waiter whose process
     * died (a fair lock): for how long per place in the queue, for an
     * acquire that waits wait_us (-1: lock()); the protocol declares it
     * (cl_protocol.queue_wait_us). NULL: no such queue. */
    int64_t (*queue_wait_us)(const void *queue_ud, int64_t wait_us);
    const void *queue_ud;
    int64_t retry_delay_us;     /* the longest delay before a command is sent again
                                   (cl_retry_delay_max_us) */
    /* How long the store may keep a hold from its grant or last renewal
     * for an acquire that asked lease_us (SCN_LEASE_WATCHDOG: none): the
     * protocol's (proto_lease_in_force); INT64_MAX: it has no lease. NULL:
     * dead-holder is not judged. */
    int64_t (*lease_in_force_us)(const void *lease_ud, int64_t lease_us);
    const void *lease_ud;
    int reentry_local;          /* the lock counts re-entries in the client (CL_REENTRY_LOCAL):
                                   a re-entry asks the store nothing */
} check_input;

/* ------------------------------------------------------ impaired periods */

/* What kept a waiter from its master (check_period.kinds bits). */
#define CHECK_IMP_PARTITION 1u    /* a partition line between it and the master */
#define CHECK_IMP_DROP 2u         /* a drop rule on its link (p > 0) */
#define CHECK_IMP_DROP_REPLY 4u   /* replies to it dropped (p > 0) */
#define CHECK_IMP_DELAY 8u        /* its link slowed beyond the bound */
#define CHECK_IMP_DISCONNECT 16u  /* its connections dropped, until they are back */
#define CHECK_IMP_PAUSE 32u       /* its process paused */
#define CHECK_IMP_NODE_CRASH 64u  /* the master down */
#define CHECK_IMP_NODE_PAUSE 128u /* the master paused */
#define CHECK_IMP_FAILOVER 256u   /* a failover, until the clients learn the new master */
#define CHECK_IMP_FIU 512u        /* a raw net/partition, net/drop or net/drop-reply point */

typedef struct check_period {
    int64_t from_us, to_us; /* [from, to); to INT64_MAX: to the end */
    unsigned kinds;         /* CHECK_IMP_* */
} check_period;

/* The periods during which each client could not reach the master holding
 * each lock, from in->s's fault lines and in->generated (impaired.c says
 * what each fault impairs and for how long). Never fails; in->s NULL gives
 * none. Free with check_impaired_free (NULL is fine). O(lines x clients x
 * groups x (lines + failovers)). */
check_impaired *check_impaired_build(const check_input *in);
void check_impaired_free(check_impaired *im);
/* Client's impaired periods toward lock, sorted and disjoint (*n of them;
 * borrowed from im). A lock that spans groups: toward any of them. */
const check_period *check_impaired_of(const check_impaired *im, int client, int lock, size_t *n);
/* 1 when client was impaired toward lock at true time t. O(log periods). */
int check_impaired_at(const check_impaired *im, int client, int lock, int64_t t);
/* The kinds of the period client was in toward lock at t (0: none). */
unsigned check_impaired_kinds_at(const check_impaired *im, int client, int lock, int64_t t);
/* The kinds after which the store seen at the end may not be the one that
 * serves: the master down, paused or mid-failover. */
#define CHECK_IMP_MASTER (CHECK_IMP_NODE_CRASH | CHECK_IMP_NODE_PAUSE | CHECK_IMP_FAILOVER)
/* The next stretch [*a, *b) of [*t, to) during which client was not
 * impaired toward lock: 1 and *t moved to *b, or 0 when none is left.
 * Called from *t = from on, it cuts [from, to) into the stretches that
 * count; with no period in [from, to) the one stretch is [from, to). */
int check_impaired_next(const check_impaired *im, int client, int lock, int64_t *t, int64_t to,
                        int64_t *a /* OUT */, int64_t *b /* OUT */);
/* How long client was impaired toward lock within [from, to); *kinds
 * (when not NULL) gets the kinds of those periods OR-ed in. */
int64_t check_impaired_within(const check_impaired *im, int client, int lock, int64_t from, int64_t to,
                              unsigned *kinds /* OUT */);
/* For a violation's text: "; Nms of it not counted: the waiter could not
 * reach the master (partition, delay)", the time client was impaired
 * toward lock within [from, to) and its kinds, or "" when it was not
 * (the text of an unimpaired wait stays as it was). Returns the length. */
size_t check_impaired_told(const check_impaired *im, int client, int lock, int64_t from, int64_t to, char *buf,
                           size_t cap);

/* A checker: adds its verdicts and violations to r. hs holds the rules its
 * row names (and maybe others). */
typedef void check_fn(const history *h, const check_holds *hs, const check_input *in, check_result *r);

/* One checker: it runs when a protocol declares every invariant of `when`
 * and none of `unless`. */
typedef struct check_row {
    const char *name;  /* a word, as `locksim list` shows it */
    unsigned judges;   /* CHECK_INV bits: the invariants it gives verdicts for */
    unsigned when;     /* CHECK_INV bits */
    unsigned unless;   /* CHECK_INV bits: counter objects judge by their own rules */
    unsigned holds;    /* CHECK_HOLDS bits: the hold rules it reads */
    check_fn *fn;
    const char *about; /* one line */
} check_row;

/* The checkers in the order they run (the order of the violations); *n
 * gets how many. Static; never NULL. */
const check_row *check_rows(size_t *n);
/* 1 when row runs for a protocol that declares the invariants declared. */
int check_applies(const check_row *row, unsigned declared);
/* Runs every checker that applies to declared (CHECK_INV bits), in table
 * order, on h, building the holds they read once; adds to r (initialised
 * by the caller). Invariants no checker judges stay unknown. */
void check_all(const history *h, const check_input *in, unsigned declared, check_result *r);
/* Adds CHECK_CAUSE_RETRIED_RELEASE to each violation of r that a retried
 * release came before: a thread's release invoked right after its own
 * release of the same lock, side and permits failed, at the same depth
 * (check_all does it). O(events) when r has violations, else nothing. */
void check_mark_retried(const history *h, check_result *r);

#endif /* LOCKSIM_CHECKERS_H */
