/* report.h — what a run leaves behind and how it is judged: the history
 * (invoke / ok / fail / info events on true time, plus observations of the
 * store), the checkers that read it (they observe, never drive), the
 * result of a run, and its writers (text summary, JSON line). */
#ifndef LOCKSIM_REPORT_H
#define LOCKSIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scn/scn.h"
#include "sim.h"

/* ------------------------------------------------------------- history */

typedef enum hist_kind { HIST_INVOKE, HIST_OK, HIST_FAIL, HIST_INFO } hist_kind;

typedef enum hist_op {
    HOP_ACQUIRE,      /* invoke: aux = wait (-1 lock()); ok: value = hold depth after */
    HOP_RELEASE,      /* ok: value = hold depth after */
    HOP_FORCE_UNLOCK,
    HOP_QUERY,        /* isLocked / held / holdCount: value = answer */
    HOP_CRASH,        /* info: the process died */
    HOP_RESTART,      /* info: a new incarnation started */
    HOP_PAUSE,        /* info: stop-the-world began; aux = its length */
    HOP_RESUME,       /* info */
    HOP_STORE,        /* info: the lock as the store has it now: holder
                         (client/inc/thread, 0 = free), value = hold count,
                         aux = true time it expires (INT64_MAX: never) */
    HOP_STORE_COUNT,  /* info: the store's hold count for the acting
                         thread right after its acquire/release ran:
                         value = count, aux = the op's sequence number */
    HOP_WRITE,        /* ok / fail: a write to the fenced resource with
                         token value (0: the protocol has none); ok when
                         the resource accepted it */
    HOP_FAULT,        /* info: a fault applied; value = its text's index */
    HOP_COUNTER,      /* info: a counter object as the store has it now
                         (semaphore: available permits; latch: count):
                         value, aux = 1 when the key exists (0: absent) */
    HOP_SET,          /* info: the runtime's trySetPermits / trySetCount
                         before the workload: value = what it asked for,
                         aux = the script's answer (1: set, 0: existed) */
    HOP_COUNTDOWN,    /* latch countDown(): invoke, ok / fail */
    HOP_AWAIT,        /* latch await(): invoke (aux = wait, -1: await()),
                         ok (value 1: released, 0: timed out) / fail */
    HOP_QUEUED,       /* info: the thread entered the lock's wait queue (fair
                         lock), as the master ran the script: value = its
                         position, 1 = head */
    HOP_DEQUEUED,     /* info: the thread left the wait queue: value = 1 when
                         it left as the lock's new holder, 0 when removed
                         (purged, dequeued, lost with the node's data) */
    HOP_GIVE_UP       /* info: the thread's acquire stopped waiting (tryLock's
                         wait ran out: acquireFailed), before its fail */
} hist_op;

typedef struct hist_event {
    int64_t t_us;    /* true time */
    hist_kind kind;
    hist_op op;
    int client;      /* 1-based; 0 = none (free store) */
    int inc;         /* incarnation of the client process, 1-based */
    int thread;      /* 1-based */
    int lock;        /* index in the scenario's lock names */
    int64_t value;
    int64_t aux;
    uint64_t seq;    /* the operation this event belongs to (0: none) */
    int mode;        /* read/write lock: SCN_RW_READ / SCN_RW_WRITE (0: none) */
    int64_t n;       /* semaphore permits / latch count of the operation (0: none) */
    const char *err; /* static text for failures */
} hist_event;

typedef struct history {
    hist_event *ev;
    size_t n, cap;
    char **texts;      /* owned strings events refer to (HOP_FAULT) */
    size_t ntexts, texts_cap;
} history;

void hist_init(history *h);
void hist_free(history *h);
/* Appends a copy of e. */
void hist_add(history *h, const hist_event *e);
/* Where the operation invoked at event k ends: the index of its ok / fail
 * (same thread and op) or of its process's crash; (size_t)-1 when it was
 * still running at the end. O(events after k). */
size_t hist_op_end(const history *h, size_t k);
/* Keeps a copy of text; returns its index for an event's value. */
int64_t hist_text(history *h, const char *text);
/* One readable line for event e of h, e.g. "12.004s c1.t2 ok acquire lock (depth 1)". */
size_t hist_format(const history *h, const hist_event *e, const scenario *s, char *buf, size_t cap);

/* ------------------------------------------------------------ checkers */

typedef enum check_verdict { CHECK_HELD, CHECK_VIOLATED, CHECK_UNKNOWN } check_verdict;

typedef struct check_violation {
    scn_invariant inv;
    int64_t t_us;
    char detail[512];
    size_t upto; /* history index of the last event that led there */
} check_violation;

typedef struct check_result {
    check_verdict verdict[SCN_INV_COUNT];
    int checked[SCN_INV_COUNT];   /* 0: the checker did not run (unknown) */
    check_violation *v;
    size_t nv, cap;
} check_result;

void check_result_init(check_result *r);
void check_result_free(check_result *r);
/* Records a violation (the verdict becomes violated). */
void check_violate(check_result *r, scn_invariant inv, int64_t t_us, size_t upto,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Lock names (names[i] for lock i) only word the violations. */

/* No two threads (of any processes) believe they hold the same lock at the
 * same true time: a hold runs from the ok of a thread's outermost acquire
 * to the invoke of its last release (or its process's crash). */
void check_mutex(const history *h, int nlocks, char *const *names, check_result *r);
/* The store's hold count after each acquire/release equals the depth the
 * thread believes it has. */
void check_reentrancy(const history *h, char *const *names, check_result *r);
/* No thread waits in an acquire for longer than bound_us while the lock is
 * free in the store (a lost wake-up). end_us is when the run stopped. */
void check_liveness(const history *h, int nlocks, char *const *names, int64_t bound_us,
                    int64_t end_us, check_result *r);
/* At the end, no cycle of threads each waiting for a lock another holds,
 * and no thread waiting on a lock that nobody alive holds and that never
 * expires. */
void check_deadlock(const history *h, int nlocks, char *const *names, int64_t end_us,
                    check_result *r);

/* Read/write locks: a write hold (ok of a thread's outermost acquire of
 * the write side to the invoke of its last write release, or its crash)
 * overlaps no other thread's read or write hold of the same lock; read
 * holds may overlap; a thread's own write and read holds never conflict
 * (downgrade). Events without a side count as write. */
void check_rw_exclusion(const history *h, int nlocks, char *const *names, check_result *r);
/* Semaphore histories (permits from the ok of an acquire(n) to the invoke
 * of its release(n), or a crash; the permits set by HOP_SET; the store by
 * HOP_COUNTER). Judges three invariants:
 *  permits:  at no true time do the permits held exceed the permits set,
 *            and at the end available (store) + held == set: permits
 *            created (a release by a non-holder, a resend) or lost (held by
 *            a crashed process: Redisson never returns them) are violations;
 *  liveness: no thread waits in an acquire(n) longer than bound_us while
 *            the store has n permits available (a lost wake-up);
 *  deadlock: no thread still waits at the end for n permits that can never
 *            come: available + held by live threads < n. */
void check_permits(const history *h, int nlocks, char *const *names, int64_t bound_us,
                   int64_t end_us, check_result *r);
/* Count-down latch histories (HOP_SET, HOP_COUNTDOWN, HOP_AWAIT,
 * HOP_COUNTER). Judges two invariants:
 *  latch:    no await returns released before as many countDown()s as the
 *            count set were invoked;
 *  liveness: no awaiter still waits bound_us after the store's count
 *            reached 0 (or after its await began, if later). */
void check_latch(const history *h, int nlocks, char *const *names, int64_t bound_us,
                 int64_t end_us, check_result *r);
/* Fair lock, queue order: each first acquisition (depth 1) overtakes no
 * thread that entered the wait queue before it (or before it was granted,
 * when it never queued) and is still waiting, its acquire neither ended nor
 * cut short by a crash. Waiters that gave up (HOP_GIVE_UP: tryLock's wait ran
 * out; or an error) or died do not count. Every overtake is counted; a violation
 * names both threads and times. */
void check_fifo(const history *h, char *const *names, check_result *r);
/* No thread, during one acquire, sees more than bound first acquisitions
 * of the same lock by other threads (bound 0: twice the number of threads
 * that acquired in the run). Reports the worst wait. end_us is when the
 * run stopped (waits still open count until then). */
void check_starvation(const history *h, char *const *names, int64_t bound, int64_t end_us,
                      check_result *r);

/* The fenced resource: no write it accepted came out of token order, and
 * no two holders got a write accepted with the same token. Unknown when
 * the protocol gives no tokens. */
void check_fencing(const history *h, char *const *names, check_result *r);

/* ------------------------------------------------------------ results */

typedef struct run_result {
    const scenario *s;
    uint64_t seed;
    const char *backend;
    int64_t virtual_us;
    double wall_ms;
    long peak_rss_kb;     /* the process's peak resident memory so far */
    uint64_t events, evals, commands;
    uint64_t acquisitions, acquire_failures, op_errors;
    uint64_t trace_hash;
    int trace_reproducible;
    check_result checks;
    int64_t latency_p50_us, latency_p99_us, latency_max_us;
    int expectations_met;
    char expectation_failure[256]; /* the first unmet expectation */
    scn_step *generated;           /* the faults the nemesis drew (owned) */
    size_t ngenerated;
} run_result;

/* Acquire latencies (ok and fail) from h into r. */
void report_latency(const history *h, run_result *r);
/* Judges r->checks against the scenario's [expect]. */
void report_expectations(run_result *r);
/* One JSON object on one line (the DESIGN contract, more fields welcome). */
void report_json(FILE *out, const run_result *r, const history *h);
/* The human summary of one run. */
void report_summary(FILE *out, const run_result *r, const history *h, int verbose);

#endif /* LOCKSIM_REPORT_H */
