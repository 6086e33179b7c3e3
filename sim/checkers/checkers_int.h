/* checkers_int.h — the checkers one by one, for the table (table.c) that
 * runs them; everyone else goes through check_all. Each has the check_fn
 * signature and reads in->names only to word its violations. */
#ifndef LOCKSIM_CHECKERS_INT_H
#define LOCKSIM_CHECKERS_INT_H

#include "sim/checkers/checkers.h"

/* 1 when a and b are holds (or waits) of the same thread of the same
 * process incarnation. */
static inline int check_same_thread(const check_span *a, const check_span *b)
{
    return a->client == b->client && a->inc == b->inc && a->thread == b->thread;
}

/* grace.c: how long a command a waiter sent into an impairment may stay
 * undecided before the client sends it again: its reply wait
 * (check_reply_wait_us: in->reply_wait_us, cl_reply_wait_us: the reply
 * timeout, and WAIT's timeout where the lock's scripts are synced; the
 * scenario's reply timeout when 0) and the longest retry delay after it
 * (check_retry_delay_us: in->retry_delay_us, else cl_retry_delay_max_us
 * of the scenario; none without one). Every checker that excuses a waiter
 * after its impaired periods gives it this grace; each decides when (only
 * after an impairment of that waiter during its wait). */
int64_t check_reply_wait_us(const check_input *in);
int64_t check_retry_delay_us(const check_input *in);
int64_t check_resend_grace(const check_input *in);
/* Was the waiter (client, lock) whose wait began at wait_from impaired
 * within grace before t, during that wait (an impairment that ended
 * before the wait began lost nothing of it)? */
/* How many replies to commands of e's operation (e its invoke) did a
 * fail-reply fault lose in [from, to] (HOP_REPLY_LOST)? Its thread waits
 * for the reply timeout and the resend after each: a grace each, as after
 * an impairment. */
int check_reply_lost_within(const history *hi, const hist_event *e, int64_t from, int64_t to);
int check_impaired_in_grace(const check_impaired *im, int client, int lock, int64_t wait_from, int64_t t,
                            int64_t grace);

/* No two threads (of any processes) believe they hold the same lock at the
 * same true time (the CHECK_HOLDS_DEPTH holds): one violation per pair,
 * when the second hold begins. */
void check_mutex(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* The store's hold count after each acquire/release equals the depth the
 * thread believes it has. */
void check_reentrancy(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* No thread waits in an acquire for longer than in->liveness_bound_us while
 * the lock is free in the store (a lost wake-up). */
void check_liveness(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* At the end, no cycle of threads each waiting for a lock another holds,
 * and no thread waiting on a lock that nobody alive holds and that never
 * expires. */
void check_deadlock(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* Read/write locks (the CHECK_HOLDS_SIDES holds): a write hold overlaps no
 * other thread's read or write hold of the same lock; read holds may
 * overlap; a thread's own write and read holds never conflict (downgrade). */
void check_rw_exclusion(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* Semaphore histories (permits from the ok of an acquire(n) to the invoke
 * of its release(n), or a crash; the permits set by HOP_SET; the store by
 * HOP_COUNTER). Judges three invariants:
 *  permits:  at no true time do the permits held exceed the permits set,
 *            and at the end available (store) + held == set: permits
 *            created (a release by a non-holder, a resend) or lost (held by
 *            a crashed process: Redisson never returns them) are violations;
 *  liveness: no thread waits in an acquire(n) longer than the bound while
 *            the store has n permits available (a lost wake-up);
 *  deadlock: no thread still waits at the end for n permits that can never
 *            come: available + held by live threads < n. */
void check_permits(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* Expirable semaphore histories (RPermitExpirableSemaphore): check_permits'
 * three invariants with leases, and a fourth (check_leases.c):
 *  permits:  at no true time do threads hold more permits than set (a
 *            thread holds from its acquire's ok to its release's invoke or
 *            its crash, its lease notwithstanding: a holder that outlives
 *            its lease while another takes the permit is the violation),
 *            and at the end available + acquired (the store's timeout set)
 *            == set: none created or lost;
 *  liveness, deadlock: as check_permits, deadlock counting what the store
 *            holds in all (a permit past its lease comes back);
 *  leases:   no release is answered "released" for a permit whose lease
 *            had ended before the release was invoked, or for a permit
 *            already released. */
void check_leases(const history *h, const check_holds *hs, const check_input *in, check_result *r);

/* permit_avail.c: how event e moves a semaphore's permits in all (the
 * runtime's trySetPermits, addPermits, trySetPermits and drainPermits
 * steps): 1 with *delta, else 0. */
int check_permit_total(const hist_event *e, int64_t *delta);
/* The addPermits calls whose outcome nobody learnt, per lock, fed a
 * history's events in order: one that failed with an error (Redisson's
 * NoSyncedSlavesException, a reply timeout) or whose process crashed
 * before its answer may or may not have run. check_permit_total counts an
 * addition from its invoke and a removal from its ok, so the store may
 * hold up to permits[lock] fewer than counted, never more. */
struct check_open_add {
    uint64_t seq;
    int client, inc, thread, lock;
    int64_t n;
};
typedef struct check_undecided {
    struct check_open_add *open; /* invoked, not answered */
    size_t nopen, cap;
    int nlocks;
    int64_t *permits;            /* per lock: in doubt */
} check_undecided;
void check_undecided_init(check_undecided *x, int nlocks);
void check_undecided_feed(check_undecided *x, const hist_event *e);
void check_undecided_free(check_undecided *x);
/* The store's available permits of each lock over true time (HOP_COUNTER). */
typedef struct check_avail check_avail;
check_avail *check_avail_build(const history *hi, int nlocks);
void check_avail_free(check_avail *a);
/* The longest stretch of [from, to) during which lock had at least n
 * available; *at gets its start (untouched when 0). O(log points + points
 * in the window). */
int64_t check_avail_longest(const check_avail *a, int lock, int64_t n, int64_t from, int64_t to, int64_t *at);
/* check_avail_longest over the stretches of [from, to) during which
 * client could reach lock's master (check_impaired_next): the longest of
 * them, the same as check_avail_longest when none of [from, to) was
 * impaired. */
int64_t check_avail_reachable(const check_avail *a, const check_impaired *im, int client, int lock, int64_t n,
                              int64_t from, int64_t to, int64_t *at);
/* How late the acquire whose invoke is hi->ev[k] was, until to (ends:
 * hist_op_ends): its longest stretch that counts against the semaphore,
 * less the grace when that stretch starts within grace of one of its
 * impaired periods during the wait; 0 when none is over bound. A stretch counts where the
 * store had its n available, it could reach the master
 * (check_avail_reachable), and no other acquire of its process on the
 * semaphore, open then, wanted more permits than the store had: a
 * process's waiters share its wake-ups (Redisson's RedissonLockEntry: a
 * message releases min(waiters, permits released) on one latch, and the
 * oldest listener or blocked thread takes each), and a non-fair
 * java.util.concurrent.Semaphore, which RSemaphore and RPermitExpirable-
 * Semaphore say they implement, gives released permits to the waiter
 * "next to be assigned permits" (Semaphore.acquire(int)): one that wants
 * more, woken first, takes the wake-up and leaves the permits there. The
 * grace (check_resend_grace): a command sent into an impairment goes
 * again only when its reply times out and its retry delay has passed;
 * and a wait that ended in an error is judged only up to a grace before
 * it (the failed command's wait for its reply, which a fail-reply or
 * drop-reply lost, and for its resends). *len and *at get that
 * stretch's length and start. The
 * siblings are scanned only for a wait that could be over bound. */
int64_t check_avail_waiter(const check_avail *a, const check_impaired *im, const history *hi, const size_t *ends,
                           size_t k, int64_t to, int64_t bound, int64_t grace, int64_t *len, int64_t *at);
/* The CHECK_CAUSE_WAIT_MANY / MIXED_N / SIBLING / ASYNC / ADDED bits of
 * the wait (a semaphore's acquire, a latch's await) whose invoke is
 * hi->ev[k], as it stood at time at (ends: hist_op_ends): its count, the
 * other waits of its process on the same object open at that time, an
 * addPermits in flight then, its API; and LATE_LISTENER when its own
 * listener came after its message (at any time of the wait). O(events
 * before at, and of the wait when it is async). */
unsigned check_wait_shape(const history *hi, const size_t *ends, size_t k, int64_t at);
/* The addPermits calls resent after a reply timeout (HOP_RESENT of an
 * operation a HOP_PERMITS_ADD invoke started), per lock, fed a history's
 * events in order: its script is not idempotent, so each may have added
 * twice (CHECK_CAUSE_ADD_RESENT). */
typedef struct check_resends {
    uint64_t *adds;    /* the addPermits operations seen (seq) */
    size_t nadds, cap;
    int nlocks;
    int64_t *count;    /* per lock */
    char (*first)[64]; /* per lock: who resent the first, "cN.tM" */
} check_resends;
void check_resends_init(check_resends *x, int nlocks);
void check_resends_feed(check_resends *x, const hist_event *e);
void check_resends_free(check_resends *x);
/* For lock: "; N addPermits resent after a reply timeout (first cN.tM)
 * may have run twice" and CHECK_CAUSE_ADD_RESENT, or "" and 0. */
unsigned check_resends_told(const check_resends *x, int lock, char *why, size_t cap);
/* The bound an acquire's ok is judged against: the most permits the
 * semaphore counted at any time the acquire was in flight. A reduction
 * (addPermits(-n), drainPermits) counts from its ok, but an acquire that
 * overlaps it may have been granted before it ran: Redisson's reduce
 * takes the count below zero and takes no permit back from its holders.
 * The total is the checker's own. */
typedef struct check_peak_open check_peak_open;
typedef struct check_peaks {
    int nlocks;
    struct check_peak_cut {
        int64_t t_us, before;  /* a reduction's ok, the total before it */
    } **cuts;                  /* per lock, in time order */
    size_t *ncuts, *capcuts;
    check_peak_open *open;     /* acquires in flight: seq -> invoke time */
} check_peaks;
void check_peaks_init(check_peaks *x, int nlocks);
/* Every event in order, with e->lock's total so far: 1 when e moves it
 * (check_permit_total), by *delta, which the caller adds. */
int check_peaks_feed(check_peaks *x, const hist_event *e, int64_t total, int64_t *delta);
/* For the acquire ok e (fed), with e->lock's total now: the most permits
 * it counted from the acquire's invoke on; forgets the invoke.
 * O(reductions since then). */
int64_t check_peaks_bound(check_peaks *x, const hist_event *e, int64_t total);
void check_peaks_free(check_peaks *x);
/* Count-down latch histories (HOP_SET, HOP_COUNTDOWN, HOP_AWAIT,
 * HOP_COUNTER). Judges two invariants:
 *  latch:    no await returns released before as many countDown()s as the
 *            count set were invoked;
 *  liveness: no awaiter still waits longer than the bound after the store's
 *            count reached 0 (or after its await began, if later). */
void check_latch(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* The fenced resource: no write it accepted came out of token order, and
 * no two holders got a write accepted with the same token. Unknown when
 * the protocol gives no tokens. */
void check_fencing(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* Fair lock, queue order: each first acquisition (depth 1) overtakes no
 * thread that entered the wait queue before it (or before it was granted,
 * when it never queued) and is still waiting, its acquire neither ended nor
 * cut short by a crash. Waiters that gave up (HOP_GIVE_UP: tryLock's wait ran
 * out; or an error) or died do not count. Every overtake is counted; a violation
 * names both threads and times. */
void check_fifo(const history *h, const check_holds *hs, const check_input *in, check_result *r);
/* No thread, during one acquire, sees more than in->starvation_bound first
 * acquisitions of the same lock by other threads (0: twice the number of
 * threads that acquired in the run). Reports the worst wait; waits still
 * open count until in->end_us. */
void check_starvation(const history *h, const check_holds *hs, const check_input *in, check_result *r);

/* A hold whose every holder crashed is free within the lease its holder
 * asked for (the watchdog timeout for a watchdog hold) plus a margin, and
 * no grant or renewal keeps a hold, or a permit, longer than asked
 * (check_dead_holder.c states the rules). */
void check_dead_holder(const history *h, const check_holds *hs, const check_input *in, check_result *r);

#endif /* LOCKSIM_CHECKERS_INT_H */
