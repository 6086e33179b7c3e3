/* checkers.h — the invariant checkers: each reads a run's history and
 * judges one or more invariants held / violated / unknown, with the
 * violations it found. Checkers observe; they never drive the run. */
#ifndef LOCKSIM_CHECKERS_H
#define LOCKSIM_CHECKERS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/history/history.h"
#include "sim/scn/scn.h"

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

/* "held", "violated" or "unknown". */
const char *check_verdict_name(check_verdict v);
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

#endif /* LOCKSIM_CHECKERS_H */
