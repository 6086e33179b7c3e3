/* test_check.c — every checker on hand-made histories: one that satisfies
 * it and one that violates it, plus the edge cases that decide (reentry is
 * not an overlap, a crash ends a hold, a pause does not), and the causes a
 * violation is given (a lease that ran out, a retried release). */
#include <string.h>

#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"lock0", "lock1"};
/* Each test runs one checker through the table: the one invariant declared. */
static const check_input one_lock = {.nlocks = 1, .names = names, .end_us = MS(100)};
static const check_input two_locks = {.nlocks = 2, .names = names, .end_us = MS(100)};
static const check_input live = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(40000)};

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int thread,
               int64_t value, uint64_t seq)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = 1,
                    .thread = thread, .lock = 0, .value = value, .seq = seq};
    hist_add(h, &e);
}

/* The store's view of lock 0: holder client (0 = free) until expire_ms. */
static void store(history *h, int64_t t_ms, int client, int64_t count, int64_t expire_ms)
{
    hist_event e = {.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_STORE, .client = client,
                    .inc = client ? 1 : 0, .thread = client ? 1 : 0, .lock = 0, .value = count,
                    .aux = expire_ms < 0 ? INT64_MAX : MS(expire_ms)};
    hist_add(h, &e);
}

/* acquire ok at a, release invoked at b, by (client, thread 1). */
static void hold(history *h, int client, int64_t a, int64_t b)
{
    ev(h, a - 1, HIST_INVOKE, HOP_ACQUIRE, client, 1, 0, 0);
    ev(h, a, HIST_OK, HOP_ACQUIRE, client, 1, 1, 0);
    ev(h, b, HIST_INVOKE, HOP_RELEASE, client, 1, 0, 0);
    ev(h, b + 1, HIST_OK, HOP_RELEASE, client, 1, 0, 0);
}

START_TEST(mutex_holds_for_disjoint_holds)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    hold(&h, 1, 10, 20);
    hold(&h, 2, 30, 40);
    hold(&h, 1, 50, 60);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_MUTEX), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_HELD);
    ck_assert_uint_eq(r.nv, 0);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(mutex_violated_by_overlap)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    ev(&h, 9, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0, 0);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 0);
    ev(&h, 14, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
    ev(&h, 15, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
    ev(&h, 20, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_MUTEX), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_int_eq(r.v[0].t_us, MS(15));
    ck_assert_uint_eq(r.v[0].upto, 3);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c1.t1"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c2.t1"));
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* The cause of h's one mutual-exclusion violation (h is freed). */
static unsigned mutex_cause(history *h)
{
    check_result r;
    check_result_init(&r);
    check_all(h, &one_lock, CHECK_INV(SCN_INV_MUTEX), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    unsigned cause = r.v[0].cause;
    check_result_free(&r);
    hist_free(h);
    return cause;
}

/* The cause of an overlap: c1's key expired in the store (its lease ran
 * out) before c2 acquired, or the store gave the lock away while c1's key
 * was still live (a release run twice, a lost write). */
START_TEST(mutex_cause_lease_ran_out)
{
    for (int expired = 0; expired <= 1; expired++) {
        history h;
        hist_init(&h);
        ev(&h, 9, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0, 0);
        store(&h, 9, 1, 1, expired ? 12 : 30); /* read before c1's ok arrives */
        ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 0);
        ev(&h, 14, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
        store(&h, 14, 2, 1, 44);
        ev(&h, 15, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
        ev(&h, 20, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);
        ck_assert_uint_eq(mutex_cause(&h), expired ? CHECK_CAUSE_LEASE_RAN_OUT : 0u);
    }
}
END_TEST

/* The cause of a violation after a retried release: c1's unlock fails
 * (its reply was lost, it ran) and c1 calls it again at the same depth
 * (retried = 1); a second unlock at another depth is a reentrant hold's,
 * and one after another operation is not a retry either; a violation
 * before the retry is not caused by it. */
START_TEST(retried_release_is_a_cause)
{
    history h;
    for (int retried = 0; retried <= 2; retried++) {
        hist_init(&h);
        ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 0);
        ev(&h, 12, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);
        ev(&h, 15, HIST_FAIL, HOP_RELEASE, 1, 1, 0, 0);
        if (retried == 2) ev(&h, 16, HIST_OK, HOP_QUERY, 1, 1, 0, 0); /* isLocked in between */
        ev(&h, 17, HIST_INVOKE, HOP_RELEASE, 1, 1, retried == 1 ? 0 : 1, 0);
        ev(&h, 18, HIST_OK, HOP_RELEASE, 1, 1, 0, 0);
        ev(&h, 20, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
        ev(&h, 30, HIST_OK, HOP_ACQUIRE, 3, 1, 1, 0); /* beside c2: a violation after the retry */
        ck_assert_uint_eq(mutex_cause(&h), retried == 1 ? CHECK_CAUSE_RETRIED_RELEASE : 0u);
    }
    hist_init(&h);
    ev(&h, 2, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
    ev(&h, 4, HIST_OK, HOP_ACQUIRE, 3, 1, 1, 0); /* the violation comes first */
    ev(&h, 12, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);
    ev(&h, 15, HIST_FAIL, HOP_RELEASE, 1, 1, 0, 0);
    ev(&h, 17, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);
    ck_assert_uint_eq(mutex_cause(&h), 0u);
}
END_TEST

START_TEST(mutex_reentry_crash_and_pause)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    /* Reentry by the same thread is not an overlap. */
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 0);
    ev(&h, 11, HIST_OK, HOP_ACQUIRE, 1, 1, 2, 0);
    ev(&h, 12, HIST_INVOKE, HOP_RELEASE, 1, 1, 1, 0);
    /* A crash ends c1's hold: c2 after it is fine. */
    hist_event crash = {.t_us = MS(20), .kind = HIST_INFO, .op = HOP_CRASH, .client = 1, .inc = 1};
    hist_add(&h, &crash);
    ev(&h, 30, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_MUTEX), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_HELD);
    /* A pause does not end a hold: c3 taking the lock then overlaps c2. */
    hist_event pause = {.t_us = MS(31), .kind = HIST_INFO, .op = HOP_PAUSE, .client = 2, .inc = 1};
    hist_add(&h, &pause);
    ev(&h, 40, HIST_OK, HOP_ACQUIRE, 3, 1, 1, 0);
    check_result_free(&r);
    check_result_init(&r);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_MUTEX), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_MUTEX], CHECK_VIOLATED);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(reentrancy_matches_and_mismatches)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    /* acquire (seq 7): store count 1, thread believes 1 */
    ev(&h, 10, HIST_INFO, HOP_STORE_COUNT, 1, 1, 1, 7);
    ev(&h, 11, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 7);
    /* re-entry (seq 8): the acquire ran twice (a resend): count 3 */
    ev(&h, 20, HIST_INFO, HOP_STORE_COUNT, 1, 1, 2, 8);
    ev(&h, 21, HIST_INFO, HOP_STORE_COUNT, 1, 1, 3, 8);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_REENTRANCY), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_REENTRANCY], CHECK_HELD);
    ev(&h, 22, HIST_OK, HOP_ACQUIRE, 1, 1, 2, 8);
    check_result_free(&r);
    check_result_init(&r);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_REENTRANCY), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_REENTRANCY], CHECK_VIOLATED);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "store counts 3"));
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(liveness_free_wait_and_bounded_wait)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    store(&h, 0, 1, 1, 5000);  /* c1 holds until 5 s */
    ev(&h, 100, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
    ev(&h, 5200, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0); /* 200 ms after the expiry */
    store(&h, 5200, 2, 1, 30000);
    check_all(&h, &live, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    check_result_free(&r);
    /* c3 waits from 31 s to 40 s; the lock is free from 30 s: lost wake-up */
    ev(&h, 31000, HIST_INVOKE, HOP_ACQUIRE, 3, 1, 0, 0);
    check_result_init(&r);
    check_all(&h, &live, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_int_eq(r.v[0].t_us, MS(32000));
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* A wait queue that keeps a dead waiter's place (the fair lock) keeps the
 * lock from those behind it until its turn's deadline: the lock's expiry
 * when it queued plus the declared queue wait per place. c1 holds until
 * 2 s and leaves at 1 s; c3 queues first (place 1), c2 behind it; c3 dies
 * at 0.5 s. Its place is kept until 2 s + 5 s = 7 s. */
static int64_t wait_5s(const void *ud, int64_t wait_us)
{
    (void)ud;
    (void)wait_us;
    return MS(5000);
}

/* c1 holds until 2 s; c3 queues at 0.1 s (place 1), c2 behind it (place 2). */
static void hold_and_queue(history *h)
{
    store(h, 0, 1, 1, 2000);
    ev(h, 100, HIST_INVOKE, HOP_ACQUIRE, 3, 1, 0, 0);
    ev(h, 100, HIST_INFO, HOP_QUEUED, 3, 1, 1, 0);
    ev(h, 200, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
    ev(h, 200, HIST_INFO, HOP_QUEUED, 2, 1, 2, 0);
}

START_TEST(liveness_dead_waiter_keeps_its_turn)
{
    static const struct {
        int declared;       /* the protocol declares the queue wait */
        int64_t purge_ms;   /* when the queue drops dead c3 */
        int held;
        int fails;          /* c3's acquire fails with an error instead of its crash */
    } cases[] = {
        {0, 7000, 0, 0},  /* no queue declared: 6 s free while c2 waits */
        {1, 7000, 1, 0},  /* dropped at its deadline: c2 takes the lock at once */
        {1, 12000, 0, 0}, /* kept 5 s past its deadline (3.10's refreshed head) */
        {1, 7000, 1, 1},  /* a place left behind by a failed lock() is kept the same */
        {0, 7000, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        hold_and_queue(&h);
        if (cases[i].fails) ev(&h, 500, HIST_FAIL, HOP_ACQUIRE, 3, 1, 0, 0);
        else ev(&h, 500, HIST_INFO, HOP_CRASH, 3, 0, 0, 0);
        store(&h, 1000, 0, 0, 0); /* c1 unlocks */
        ev(&h, cases[i].purge_ms, HIST_INFO, HOP_DEQUEUED, 3, 1, 0, 0);
        ev(&h, cases[i].purge_ms + 1, HIST_INFO, HOP_DEQUEUED, 2, 1, 1, 0);
        store(&h, cases[i].purge_ms + 1, 2, 1, 40000);
        ev(&h, cases[i].purge_ms + 1, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
        check_input in = live;
        if (cases[i].declared) in.queue_wait_us = wait_5s;
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (cases[i].held ? CHECK_HELD : CHECK_VIOLATED), "case %zu", i);
        if (i == 2) ck_assert_int_eq(r.v[0].t_us, MS(8000)); /* the bound runs from the deadline */
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

/* The places of two dead waiters, ended out of time order: c4 (place 3,
 * dead at 3 s) leaves the queue at 3.5 s, before c3 (place 1, dead at
 * 0.5 s, deadline 7 s) is purged at 7 s. c3's kept place covers 0.5 s ..
 * 7 s whichever ended first (merging c3's into c4's, which starts later,
 * lost 0.5 s .. 3 s: 2 s of a free lock for c2, seed 172 of the fair
 * lock's hunt). */
START_TEST(liveness_kept_turns_out_of_order)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    hold_and_queue(&h);
    ev(&h, 300, HIST_INVOKE, HOP_ACQUIRE, 4, 1, 0, 0);
    ev(&h, 300, HIST_INFO, HOP_QUEUED, 4, 1, 3, 0);
    ev(&h, 500, HIST_INFO, HOP_CRASH, 3, 0, 0, 0);
    store(&h, 1000, 0, 0, 0); /* c1 unlocks */
    ev(&h, 3000, HIST_INFO, HOP_CRASH, 4, 0, 0, 0);
    ev(&h, 3500, HIST_INFO, HOP_DEQUEUED, 4, 1, 0, 0);
    ev(&h, 7000, HIST_INFO, HOP_DEQUEUED, 3, 1, 0, 0);
    ev(&h, 7001, HIST_INFO, HOP_DEQUEUED, 2, 1, 1, 0);
    store(&h, 7001, 2, 1, 40000);
    ev(&h, 7001, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 0);
    check_input in = live;
    in.queue_wait_us = wait_5s;
    check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* A tryLock that gave up (HOP_GIVE_UP: its wait ran out) no longer waits
 * for the lock while it leaves the queue, however long that takes (here a
 * lost dequeue resent for 7.5 s): the lock free from 1 s is no lost
 * wake-up of it. Without the give-up the same wait is one. */
START_TEST(liveness_ends_at_give_up)
{
    for (int give_up = 0; give_up <= 1; give_up++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        store(&h, 0, 1, 1, 1000); /* c1 holds until 1 s */
        ev(&h, 100, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
        if (give_up) ev(&h, 1500, HIST_INFO, HOP_GIVE_UP, 2, 1, 0, 0);
        ev(&h, 9000, HIST_FAIL, HOP_ACQUIRE, 2, 1, 0, 0);
        check_all(&h, &live, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], give_up ? CHECK_HELD : CHECK_VIOLATED);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

/* A waiter that waits with no timeout when the bound runs out (HOP_PARK
 * 1, not yet ended by a HOP_PARK 0 of its operation) is told; one woken
 * before, or another operation's park, is not. */
START_TEST(liveness_tells_a_parked_waiter)
{
    static const struct {
        int64_t park_ms, wake_ms; /* -1: none */
        uint64_t park_seq;
        int parked;
    } cases[] = {
        {12000, -1, 7, 1},    /* parked from 12 s to the end */
        {12000, 20000, 7, 0}, /* woken at 20 s, before the bound ran out at 31 s */
        {12000, 40000, 7, 1}, /* woken after it */
        {12000, -1, 8, 0},    /* another operation's park */
        {35000, -1, 7, 0},    /* parked after the bound ran out */
        {-1, -1, 7, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        store(&h, 0, 1, 1, 30000); /* c1 holds until 30 s */
        ev(&h, 10000, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 7);
        if (cases[i].park_ms >= 0) ev(&h, cases[i].park_ms, HIST_INFO, HOP_PARK, 2, 1, 1, cases[i].park_seq);
        if (cases[i].wake_ms >= 0) ev(&h, cases[i].wake_ms, HIST_INFO, HOP_PARK, 2, 1, 0, cases[i].park_seq);
        check_all(&h, &live, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
        ck_assert_int_eq(r.v[0].t_us, MS(31000));
        ck_assert_msg(!!(r.v[0].cause & CHECK_CAUSE_PARKED) == cases[i].parked, "case %zu: cause %u", i, r.v[0].cause);
        ck_assert_int_eq(strstr(r.v[0].detail, "no timeout") != NULL, cases[i].parked);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

START_TEST(deadlock_cycle_and_dead_holder)
{
    history h;
    check_result r;
    hist_init(&h);
    /* Two locks: c1 holds #0 and waits for #1; c2 holds #1 and waits #0. */
    hist_event s0 = {.t_us = 0, .kind = HIST_INFO, .op = HOP_STORE, .client = 1, .inc = 1, .thread = 1,
                     .lock = 0, .value = 1, .aux = INT64_MAX};
    hist_event s1 = s0;
    s1.client = 2;
    s1.lock = 1;
    hist_add(&h, &s0);
    hist_add(&h, &s1);
    hist_event w1 = {.t_us = MS(10), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                     .thread = 1, .lock = 1};
    hist_event w2 = w1;
    w2.client = 2;
    w2.lock = 0;
    hist_add(&h, &w1);
    check_result_init(&r);
    check_all(&h, &two_locks, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_HELD); /* only one waits */
    check_result_free(&r);
    hist_add(&h, &w2);
    check_result_init(&r);
    check_all(&h, &two_locks, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    check_result_free(&r);
    hist_free(&h);

    /* A waiter on a lock that a dead process holds with no expiry. */
    hist_init(&h);
    hist_add(&h, &s0);
    hist_event crash = {.t_us = MS(5), .kind = HIST_INFO, .op = HOP_CRASH, .client = 1, .inc = 1};
    hist_add(&h, &crash);
    hist_event w3 = {.t_us = MS(10), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 3, .inc = 1,
                     .thread = 1, .lock = 0};
    hist_add(&h, &w3);
    check_result_init(&r);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "died"));
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* Many waiters behind one dead holder, some served, some crashed: the
 * index finds each open wait; a thread given two open waits (no history
 * the runtime writes does) falls back to scanning, with the same verdict. */
START_TEST(deadlock_many_waiters_and_two_open_waits)
{
    history h;
    check_result r;
    hist_init(&h);
    hist_event s0 = {.t_us = 0, .kind = HIST_INFO, .op = HOP_STORE, .client = 1, .inc = 1, .thread = 1,
                     .lock = 0, .value = 1, .aux = INT64_MAX};
    hist_add(&h, &s0);
    hist_event crash = {.t_us = MS(5), .kind = HIST_INFO, .op = HOP_CRASH, .client = 1, .inc = 1};
    hist_add(&h, &crash);
    for (int c = 2; c <= 101; c++) {
        hist_event w = {.t_us = MS(10), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = c, .inc = 1,
                        .thread = 1, .lock = 0};
        hist_add(&h, &w);
    }
    for (int c = 2; c <= 101; c += 2) { /* every other one gives up */
        hist_event e = {.t_us = MS(20), .kind = HIST_FAIL, .op = HOP_ACQUIRE, .client = c, .inc = 1,
                        .thread = 1, .lock = 0};
        hist_add(&h, &e);
    }
    hist_event c3 = {.t_us = MS(30), .kind = HIST_INFO, .op = HOP_CRASH, .client = 3, .inc = 1};
    hist_add(&h, &c3);
    check_result_init(&r);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 49); /* 50 odd clients wait, c3 crashed */
    check_result_free(&r);
    hist_event again = {.t_us = MS(40), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 5, .inc = 1,
                        .thread = 1, .lock = 0};
    hist_add(&h, &again);
    check_result_init(&r);
    check_all(&h, &one_lock, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 50);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* The table: its order, and the counter objects judging liveness and
 * deadlock by their own rules. */
START_TEST(table_rows_and_what_applies)
{
    size_t n;
    const check_row *rows = check_rows(&n);
    ck_assert_uint_eq(n, 12);
    ck_assert_str_eq(rows[0].name, "mutual-exclusion");
    ck_assert_str_eq(rows[n - 1].name, "dead-holder");
    unsigned semaphore = CHECK_INV(SCN_INV_PERMITS) | CHECK_INV(SCN_INV_LIVENESS) | CHECK_INV(SCN_INV_DEADLOCK);
    unsigned lock = CHECK_INV(SCN_INV_MUTEX) | CHECK_INV(SCN_INV_LIVENESS) | CHECK_INV(SCN_INV_DEADLOCK);
    size_t for_semaphore = 0, for_lock = 0;
    for (size_t i = 0; i < n; i++) {
        for_semaphore += (size_t)check_applies(&rows[i], semaphore);
        for_lock += (size_t)check_applies(&rows[i], lock);
        if (check_applies(&rows[i], semaphore)) ck_assert_str_eq(rows[i].name, "permits");
    }
    ck_assert_uint_eq(for_semaphore, 1);
    ck_assert_uint_eq(for_lock, 3);
    /* The expirable semaphore: the lease checker instead of permits. */
    unsigned expirable = semaphore | CHECK_INV(SCN_INV_LEASES);
    for (size_t i = 0; i < n; i++)
        if (check_applies(&rows[i], expirable)) ck_assert_str_eq(rows[i].name, "leases");
    /* Nothing declared: nothing runs, every invariant unknown. */
    history h;
    check_result r;
    hist_init(&h);
    hold(&h, 1, 10, 20);
    check_result_init(&r);
    check_all(&h, &one_lock, 0, &r);
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        ck_assert_int_eq(r.verdict[i], CHECK_UNKNOWN);
        ck_assert_int_eq(r.checked[i], 0);
    }
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

Suite *check_suite(void)
{
    Suite *s = suite_create("check");
    TCase *core = tcase_create("core");
    tcase_add_test(core, mutex_holds_for_disjoint_holds);
    tcase_add_test(core, mutex_violated_by_overlap);
    tcase_add_test(core, mutex_cause_lease_ran_out);
    tcase_add_test(core, mutex_reentry_crash_and_pause);
    tcase_add_test(core, retried_release_is_a_cause);
    tcase_add_test(core, reentrancy_matches_and_mismatches);
    tcase_add_test(core, liveness_free_wait_and_bounded_wait);
    tcase_add_test(core, liveness_tells_a_parked_waiter);
    tcase_add_test(core, liveness_dead_waiter_keeps_its_turn);
    tcase_add_test(core, liveness_kept_turns_out_of_order);
    tcase_add_test(core, liveness_ends_at_give_up);
    tcase_add_test(core, deadlock_cycle_and_dead_holder);
    tcase_add_test(core, deadlock_many_waiters_and_two_open_waits);
    tcase_add_test(core, table_rows_and_what_applies);
    suite_add_tcase(s, core);
    return s;
}
