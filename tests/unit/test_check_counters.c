/* test_check_counters.c — the counter objects' checkers (check_permits for
 * the semaphore, check_latch for the count-down latch) on hand-made
 * histories: ones that satisfy them and ones that violate each rule. */
#include <string.h>

#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"sem"};

/* An operation event of (client, thread) on object 0, n permits. */
static void op(history *h, int64_t t_ms, hist_kind kind, hist_op what, int client, int64_t n, int64_t value)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = what, .client = client, .inc = 1, .thread = 1,
                    .value = value, .n = n, .err = kind == HIST_FAIL ? "not acquired" : NULL};
    hist_add(h, &e);
}

static void set(history *h, int64_t value)
{
    hist_event e = {.t_us = 0, .kind = HIST_INFO, .op = HOP_SET, .value = value, .aux = 1};
    hist_add(h, &e);
}

/* The store's count (absent when exists = 0). */
static void counter(history *h, int64_t t_ms, int64_t value, int exists)
{
    hist_event e = {.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_COUNTER, .value = value, .aux = exists};
    hist_add(h, &e);
}

static void crash(history *h, int64_t t_ms, int client)
{
    hist_event e = {.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_CRASH, .client = client, .inc = 1};
    hist_add(h, &e);
}

/* A fresh history whose object was set to value (and so stored). */
static void start(history *h, int64_t value)
{
    hist_init(h);
    set(h, value);
    counter(h, 0, value, 1);
}

static void finish(history *h, check_result *r)
{
    check_result_free(r);
    hist_free(h);
}

/* client's acquire(n) invoked at t - 1, ok at t, leaving left in the store. */
static void took(history *h, int64_t t, int client, int64_t n, int64_t left)
{
    op(h, t - 1, HIST_INVOKE, HOP_ACQUIRE, client, n, 0);
    op(h, t, HIST_OK, HOP_ACQUIRE, client, n, 1);
    counter(h, t, left, 1);
}

/* acquire(n) ok at a (invoked at a - 1), release(n) invoked at b. */
static void hold(history *h, int client, int64_t n, int64_t a, int64_t b)
{
    op(h, a - 1, HIST_INVOKE, HOP_ACQUIRE, client, n, 0);
    op(h, a, HIST_OK, HOP_ACQUIRE, client, n, 1);
    op(h, b, HIST_INVOKE, HOP_RELEASE, client, n, 0);
    op(h, b + 1, HIST_OK, HOP_RELEASE, client, n, 0);
}

static void permits(history *h, int64_t end_ms, check_result *r)
{
    check_result_init(r);
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(end_ms)};
    check_all(h, &in, CHECK_INV(SCN_INV_PERMITS), r);
}

START_TEST(permits_held_within_the_bound)
{
    history h;
    check_result r;
    start(&h, 3);
    hold(&h, 1, 2, 10, 50);
    counter(&h, 10, 1, 1);
    hold(&h, 2, 1, 20, 60);
    counter(&h, 20, 0, 1);
    counter(&h, 50, 2, 1);
    counter(&h, 60, 3, 1);
    permits(&h, 100, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_HELD);
    ck_assert_uint_eq(r.nv, 0);
    finish(&h, &r);
}
END_TEST

START_TEST(permits_release_by_non_holder_creates_one)
{
    history h;
    check_result r;
    start(&h, 1);
    took(&h, 10, 1, 0, 0);
    op(&h, 20, HIST_INVOKE, HOP_RELEASE, 2, 0, 0); /* c2 held nothing */
    counter(&h, 20, 1, 1);
    took(&h, 30, 3, 0, 0);
    op(&h, 40, HIST_INVOKE, HOP_RELEASE, 1, 0, 0);
    op(&h, 50, HIST_INVOKE, HOP_RELEASE, 3, 0, 0);
    counter(&h, 50, 2, 1);
    permits(&h, 100, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 2);
    ck_assert_int_eq(r.v[0].t_us, MS(30)); /* two holders of one permit */
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "hold 2 permits"));
    ck_assert_ptr_nonnull(strstr(r.v[1].detail, "created"));
    ck_assert_ptr_nonnull(strstr(r.v[1].detail, "c2.t1"));
    finish(&h, &r);
}
END_TEST

START_TEST(permits_lost_with_a_crashed_holder)
{
    history h;
    check_result r;
    start(&h, 1);
    took(&h, 10, 1, 0, 0);
    crash(&h, 20, 1);
    op(&h, 30, HIST_INVOKE, HOP_ACQUIRE, 2, 0, 0); /* waits for ever */
    permits(&h, 10000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD); /* no permit was ever there */
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "lost"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "crashed"));
    finish(&h, &r);
}
END_TEST

/* An acquire whose reply timed out ran in the store: its permit is lost,
 * and the client was told (CHECK_CAUSE_FAILED_OP), unlike a lost holder. */
START_TEST(permits_lost_by_a_failed_acquire_is_told)
{
    history h;
    check_result r;
    start(&h, 1);
    op(&h, 9, HIST_INVOKE, HOP_ACQUIRE, 1, 0, 0);
    hist_event e = {.t_us = MS(10), .kind = HIST_FAIL, .op = HOP_ACQUIRE, .client = 1, .inc = 1, .thread = 1,
                    .err = "RedisResponseTimeoutException"};
    hist_add(&h, &e);
    counter(&h, 10, 0, 1);
    permits(&h, 100, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "lost"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "may or may not have run"));
    ck_assert_uint_eq(r.v[0].cause & CHECK_CAUSE_FAILED_OP, CHECK_CAUSE_FAILED_OP);
    finish(&h, &r);
    start(&h, 1); /* a crashed holder's permit: no failed operation told of it */
    took(&h, 10, 1, 0, 0);
    crash(&h, 20, 1);
    permits(&h, 100, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert_uint_eq(r.v[0].cause & CHECK_CAUSE_FAILED_OP, 0);
    finish(&h, &r);
}
END_TEST

/* c1's addPermits(1) is resent after a reply timeout and runs twice: two
 * threads hold the semaphore of 1 + 1 with a third, and the end counts one
 * created; both carry CHECK_CAUSE_ADD_RESENT, which a resent release (the
 * variant: the resend is of c1's acquire) does not. */
START_TEST(permits_over_after_a_resent_addpermits_is_told)
{
    for (int variant = 0; variant < 2; variant++) {
        history h;
        check_result r;
        start(&h, 1);
        hist_event a = {.t_us = MS(1), .kind = HIST_INVOKE, .op = variant ? HOP_ACQUIRE : HOP_PERMITS_ADD,
                        .client = 1, .inc = 1, .thread = 1, .n = 1, .seq = 41};
        hist_add(&h, &a);
        counter(&h, 2, variant ? 0 : 2, 1);
        hist_event x = {.t_us = MS(3002), .kind = HIST_INFO, .op = HOP_RESENT, .client = 1, .inc = 1, .thread = 1,
                        .seq = 41};
        hist_add(&h, &x);
        counter(&h, 3003, variant ? 0 : 3, 1);
        a.t_us = MS(3004), a.kind = HIST_OK;
        hist_add(&h, &a);
        if (variant == 0) {
            took(&h, 4000, 2, 1, 2);
            took(&h, 4010, 3, 1, 1);
            took(&h, 4020, 4, 1, 0);
        }
        permits(&h, 5000, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], variant ? CHECK_HELD : CHECK_VIOLATED);
        for (size_t i = 0; i < r.nv; i++) {
            if (r.v[i].inv != SCN_INV_PERMITS) continue;
            ck_assert_ptr_nonnull(strstr(r.v[i].detail, "addPermits resent after a reply timeout (first c1.t1)"));
            ck_assert_uint_eq(r.v[i].cause & CHECK_CAUSE_ADD_RESENT, CHECK_CAUSE_ADD_RESENT);
        }
        ck_assert_uint_eq(r.nv, variant ? 0 : 2);
        finish(&h, &r);
    }
}
END_TEST

/* c2's addPermits(-2) takes a semaphore of 3 to 1 while c1's acquire(2)
 * is in flight, and c1's ok comes after c2's: the store granted c1 first
 * (3 -> 1 -> -1: a reduce takes no permit back), so c1 holds 2 of 1
 * without a violation. An acquire invoked after the reduce's ok is judged
 * against 1 (the variant). */
START_TEST(permits_acquire_overlapping_a_reduce_is_judged_before_it)
{
    for (int variant = 0; variant < 2; variant++) {
        history h;
        check_result r;
        start(&h, 3);
        hist_event a = {.t_us = MS(variant ? 13 : 10), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                        .thread = 1, .n = 2, .seq = 7};
        hist_event d = {.t_us = MS(11), .kind = HIST_INVOKE, .op = HOP_PERMITS_ADD, .client = 2, .inc = 1,
                        .thread = 1, .n = -2, .seq = 8};
        if (!variant) hist_add(&h, &a);
        hist_add(&h, &d);
        counter(&h, 11, variant ? 1 : -1, 1);
        d.t_us = MS(12), d.kind = HIST_OK;
        hist_add(&h, &d);
        if (variant) hist_add(&h, &a);
        a.t_us = MS(14), a.kind = HIST_OK, a.value = 1;
        hist_add(&h, &a);
        if (variant) counter(&h, 14, -1, 1);
        op(&h, 20, HIST_INVOKE, HOP_RELEASE, 1, 2, 0);
        counter(&h, 20, 1, 1);
        permits(&h, 100, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], variant ? CHECK_VIOLATED : CHECK_HELD);
        if (variant) {
            ck_assert_uint_eq(r.nv, 1);
            ck_assert_str_eq(r.v[0].detail, "threads hold 2 permits of sem, which has 1 (c1.t1 just acquired 2)");
        }
        finish(&h, &r);
    }
}
END_TEST

START_TEST(permits_liveness_needs_enough_available)
{
    history h;
    check_result r;
    start(&h, 2);
    took(&h, 10, 1, 0, 1);
    op(&h, 100, HIST_INVOKE, HOP_ACQUIRE, 2, 2, 0); /* wants 2: only 1 there */
    op(&h, 200, HIST_INVOKE, HOP_ACQUIRE, 3, 1, 0); /* wants 1: sleeps 5 s on it */
    op(&h, 5200, HIST_FAIL, HOP_ACQUIRE, 3, 1, 0);
    permits(&h, 6000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c3.t1 waited 5000ms"));
    ck_assert_int_eq(r.v[0].t_us, MS(1200));
    /* c2 could still get 2 when c1 releases: no deadlock */
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    finish(&h, &r);
}
END_TEST

/* What a starving waiter waited for: its n, a sibling of its process
 * that wants another n, the async API. */
START_TEST(permits_liveness_tells_the_wait_shape)
{
    for (int variant = 0; variant < 5; variant++) {
        history h;
        check_result r;
        start(&h, 2);
        took(&h, 10, 1, 2, 0); /* c1 holds both */
        /* c2.t1 wants 1 (variant 1: 2; variant 3: async) */
        hist_event w = {.t_us = MS(100), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 2, .inc = 1, .thread = 1,
                        .n = variant == 1 ? 2 : 1, .async = variant == 3};
        hist_add(&h, &w);
        if (variant == 2) { /* c2.t2 wants 2 beside it, until 300 ms */
            hist_event o = w;
            o.t_us = MS(150), o.thread = 2, o.n = 2;
            hist_add(&h, &o);
            o.t_us = MS(300), o.kind = HIST_FAIL, o.err = "not acquired";
            hist_add(&h, &o);
        }
        if (variant == 4) { /* the 2 permits come from c3's addPermits(2), in flight at 201 ms */
            hist_event a = {.t_us = MS(200), .kind = HIST_INVOKE, .op = HOP_PERMITS_ADD, .client = 3, .inc = 1,
                            .thread = 1, .n = 2};
            hist_add(&h, &a);
            counter(&h, 201, 2, 1);
            a.t_us = MS(202), a.kind = HIST_OK;
            hist_add(&h, &a);
        } else {
            op(&h, 200, HIST_INVOKE, HOP_RELEASE, 1, 2, 0);
            counter(&h, 201, 2, 1);
        }
        permits(&h, 5000, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
        ck_assert_uint_eq(r.nv, 1);
        static const unsigned want[] = {0, CHECK_CAUSE_WAIT_MANY, CHECK_CAUSE_MIXED_N | CHECK_CAUSE_SIBLING,
                                        CHECK_CAUSE_ASYNC, CHECK_CAUSE_ADDED};
        ck_assert_uint_eq(r.v[0].cause, want[variant]);
        finish(&h, &r);
    }
}
END_TEST

/* A waiter for 1 behind a waiter of its own process for 2, with 1
 * available: the other may take the process's wake-up (a non-fair
 * Semaphore's head of line), so the wait does not count; behind a waiter
 * of another process it does (each process gets its own wake-ups). Once
 * the store has 2, it counts again. */
START_TEST(permits_liveness_behind_a_bigger_sibling)
{
    for (int variant = 0; variant < 3; variant++) {
        history h;
        check_result r;
        start(&h, 2);
        took(&h, 10, 1, 2, 0); /* c1 holds both */
        hist_event big = {.t_us = MS(100), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = variant == 1 ? 3 : 2,
                          .inc = 1, .thread = 2, .n = 2};
        hist_add(&h, &big);
        hist_event w = {.t_us = MS(150), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 2, .inc = 1, .thread = 1,
                        .n = 1};
        hist_add(&h, &w);
        op(&h, 200, HIST_INVOKE, HOP_RELEASE, 1, 1, 0);
        counter(&h, 201, 1, 1);
        if (variant == 2) { /* the other 1 comes back at 3 s: both could go */
            op(&h, 3000, HIST_INVOKE, HOP_RELEASE, 1, 1, 0);
            counter(&h, 3001, 2, 1);
        }
        permits(&h, 5000, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], (variant == 0 ? CHECK_HELD : CHECK_VIOLATED));
        if (variant == 2) ck_assert_int_eq(r.v[0].t_us, MS(4001));
        finish(&h, &r);
    }
}
END_TEST

/* An acquire that ends in an error (its reply timed out: a fail-reply or
 * drop-reply lost it) spent the last reply wait (3 s here) on that reply,
 * not on a wake-up: 3 s with the permit there is on time, 5 s is not. */
START_TEST(permits_liveness_ended_by_an_error)
{
    for (int late = 0; late < 2; late++) {
        history h;
        check_result r;
        start(&h, 1);
        op(&h, 100, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0);
        hist_event f = {.t_us = MS(late ? 5100 : 3100), .kind = HIST_FAIL, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                        .thread = 1, .n = 1, .err = "RedisResponseTimeoutException"};
        hist_add(&h, &f);
        check_result_init(&r);
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(6000),
                          .reply_wait_us = MS(3000)};
        check_all(&h, &in, CHECK_INV(SCN_INV_PERMITS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], (late ? CHECK_VIOLATED : CHECK_HELD));
        finish(&h, &r);
    }
}
END_TEST

/* An addPermits whose outcome nobody learnt may or may not have run: one
 * that failed with an error (variant 0: +1, counted from its invoke, never
 * reached the store) or whose process crashed before its answer (variant
 * 1: -1, counted from an ok that never came, applied in the store) leaves
 * up to its permits fewer in the store, and that is no loss; 2 fewer for
 * 1 in doubt still is (variant 2). */
START_TEST(permits_undecided_addpermits_is_no_loss)
{
    for (int variant = 0; variant < 3; variant++) {
        history h;
        check_result r;
        start(&h, 3);
        hist_event a = {.t_us = MS(10), .kind = HIST_INVOKE, .op = HOP_PERMITS_ADD, .client = 1, .inc = 1,
                        .thread = 1, .n = variant == 1 ? -1 : 1, .seq = 7};
        hist_add(&h, &a);
        if (variant == 1) {
            counter(&h, 11, 2, 1);
            crash(&h, 12, 1);
        } else {
            a.t_us = MS(11), a.kind = HIST_FAIL, a.err = "NoSyncedSlavesException";
            hist_add(&h, &a);
            if (variant == 2) counter(&h, 11, 2, 1);
        }
        permits(&h, 100, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], (variant == 2 ? CHECK_VIOLATED : CHECK_HELD));
        finish(&h, &r);
    }
}
END_TEST

/* ---------------------------------------------------------------- latch */

static void latch(history *h, int64_t end_ms, check_result *r)
{
    check_result_init(r);
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(end_ms)};
    check_all(h, &in, CHECK_INV(SCN_INV_LATCH), r);
}

static void countdown(history *h, int64_t t_ms, int client)
{
    op(h, t_ms, HIST_INVOKE, HOP_COUNTDOWN, client, 0, 0);
    op(h, t_ms + 1, HIST_OK, HOP_COUNTDOWN, client, 0, 0);
}

START_TEST(latch_opens_after_the_last_countdown)
{
    history h;
    check_result r;
    start(&h, 2);
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    countdown(&h, 1000, 2);
    counter(&h, 1000, 1, 1);
    countdown(&h, 2000, 2);
    counter(&h, 2000, 0, 0);
    op(&h, 2002, HIST_OK, HOP_AWAIT, 1, 0, 1);
    op(&h, 3000, HIST_INVOKE, HOP_AWAIT, 3, 0, 0); /* after: at once */
    op(&h, 3001, HIST_OK, HOP_AWAIT, 3, 0, 1);
    latch(&h, 5000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    ck_assert_uint_eq(r.nv, 0);
    finish(&h, &r);
}
END_TEST

START_TEST(latch_early_release_is_a_violation)
{
    history h;
    check_result r;
    start(&h, 2);
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    countdown(&h, 1000, 2);
    counter(&h, 1500, 0, 0); /* the count vanished (a failover) */
    op(&h, 1502, HIST_OK, HOP_AWAIT, 1, 0, 1);
    latch(&h, 5000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_VIOLATED);
    ck_assert_int_eq(r.v[0].t_us, MS(1502));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "after 1 of 2"));
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    finish(&h, &r);
}
END_TEST

START_TEST(latch_awaiter_left_behind)
{
    history h;
    check_result r;
    start(&h, 1);
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 1, 0, 0); /* its ZERO message is lost */
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 3, 0, 0);
    op(&h, 1000, HIST_INVOKE, HOP_COUNTDOWN, 2, 0, 0);
    counter(&h, 1000, 0, 0); /* due now, before the countDown's ok */
    op(&h, 1001, HIST_OK, HOP_COUNTDOWN, 2, 0, 0);
    op(&h, 1002, HIST_OK, HOP_AWAIT, 3, 0, 1);
    latch(&h, 10000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c1.t1 still waited 9000ms"));
    ck_assert_int_eq(r.v[0].t_us, MS(2000));
    finish(&h, &r);
}
END_TEST

/* An async awaiter whose listener came after the ZERO it waited for (its
 * count read crossed the message) is told from one whose message left it
 * behind; a late listener of another operation of the same thread is
 * not its own. */
START_TEST(latch_late_listener_is_told)
{
    for (int variant = 0; variant < 3; variant++) {
        history h;
        check_result r;
        start(&h, 1);
        hist_event w = {.t_us = 0, .kind = HIST_INVOKE, .op = HOP_AWAIT, .client = 1, .inc = 1, .thread = 1,
                        .seq = 7, .async = 1};
        hist_add(&h, &w);
        op(&h, 1000, HIST_INVOKE, HOP_COUNTDOWN, 2, 0, 0);
        counter(&h, 1000, 0, 0);
        op(&h, 1001, HIST_OK, HOP_COUNTDOWN, 2, 0, 0);
        if (variant > 0) { /* its listener, at 1002 ms, after the ZERO */
            hist_event l = {.t_us = MS(1002), .kind = HIST_INFO, .op = HOP_LATE_LISTENER, .client = 1, .inc = 1,
                            .thread = 1, .seq = variant == 1 ? 7 : 6};
            hist_add(&h, &l);
        }
        latch(&h, 10000, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
        ck_assert_uint_eq(r.nv, 1);
        ck_assert_uint_eq(r.v[0].cause, CHECK_CAUSE_ASYNC | (variant == 1 ? CHECK_CAUSE_LATE_LISTENER : 0));
        finish(&h, &r);
    }
}
END_TEST

START_TEST(latch_due_when_the_countdowns_are_done)
{
    history h;
    check_result r;
    start(&h, 2);
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    countdown(&h, 1000, 2);
    counter(&h, 1000, 1, 1);
    counter(&h, 3000, 2, 1); /* failover: the first countDown is lost */
    countdown(&h, 4000, 2);
    counter(&h, 4000, 1, 1);
    latch(&h, 10000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_int_eq(r.v[0].t_us, MS(5001));
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
    finish(&h, &r);
}
END_TEST

/* trySetCount(n) by client (set: its answer), invoked at t_ms, answered
 * 2 ms later; the store armed at t_ms + 1 when it set. */
static void rearm(history *h, int64_t t_ms, int client, int64_t n, int set)
{
    op(h, t_ms, HIST_INVOKE, HOP_COUNT_SET, client, n, 0);
    if (set) counter(h, t_ms + 1, n, 1);
    op(h, t_ms + 2, HIST_OK, HOP_COUNT_SET, client, n, set);
}

/* A latch armed again opens again: an await of the second round waits
 * for its countDown, however long (the latch was not open), and one
 * left behind after the second opening is late from that opening. */
START_TEST(latch_rounds_rearm)
{
    history h;
    check_result r;
    start(&h, 1);
    op(&h, 0, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    countdown(&h, 1000, 2);
    counter(&h, 1000, 0, 0);
    op(&h, 1002, HIST_OK, HOP_AWAIT, 1, 0, 1);
    rearm(&h, 2000, 2, 1, 1);
    op(&h, 2500, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    countdown(&h, 6000, 2);
    counter(&h, 6000, 0, 0);
    op(&h, 6002, HIST_OK, HOP_AWAIT, 1, 0, 1);
    op(&h, 7000, HIST_INVOKE, HOP_AWAIT, 3, 0, 0); /* its ZERO was the one at 6000: never released */
    latch(&h, 10000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c3.t1 still waited 3000ms after sem was due to open at 6.000s"));
    finish(&h, &r);
}
END_TEST

/* An opening ends where a trySetCount that set began: a waiter that
 * missed a ZERO but was woken by the next round's within its own opening
 * is not late; without the re-arm it would be (open since 1 s). */
START_TEST(latch_rearm_ends_an_opening)
{
    for (int armed = 0; armed < 2; armed++) {
        history h;
        check_result r;
        start(&h, 1);
        countdown(&h, 1000, 2);
        counter(&h, 1000, 0, 0);
        op(&h, 1500, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
        if (armed) rearm(&h, 1800, 2, 1, 1);
        countdown(&h, 5000, 2);
        if (armed) counter(&h, 5000, 0, 0);
        op(&h, 5002, HIST_OK, HOP_AWAIT, 1, 0, 1);
        latch(&h, 10000, &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], armed ? CHECK_HELD : CHECK_VIOLATED);
        finish(&h, &r);
    }
}
END_TEST

/* Released across a re-arm: an await that began while the latch stood
 * open may have read 0 before the trySetCount ran, and a countDown still
 * running when it began may count in the new round; an await that began
 * after the new round was armed and saw too few countDown()s is early. */
START_TEST(latch_release_across_a_rearm)
{
    history h;
    check_result r;
    start(&h, 1);
    countdown(&h, 1000, 2);
    counter(&h, 1000, 0, 0);
    op(&h, 2000, HIST_INVOKE, HOP_AWAIT, 1, 0, 0);
    rearm(&h, 2001, 2, 2, 1);
    op(&h, 2004, HIST_OK, HOP_AWAIT, 1, 0, 1); /* read before the re-arm */
    op(&h, 2900, HIST_INVOKE, HOP_COUNTDOWN, 4, 0, 0);
    rearm(&h, 3000, 2, 2, 0);
    op(&h, 3100, HIST_OK, HOP_COUNTDOWN, 4, 0, 0);
    op(&h, 4000, HIST_INVOKE, HOP_AWAIT, 3, 0, 0);
    op(&h, 4001, HIST_OK, HOP_AWAIT, 3, 0, 1); /* 1 of 2 */
    latch(&h, 6000, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c3.t1's await returned released after 1 of 2"));
    finish(&h, &r);
    /* the countDown invoked before the re-arm, still running then, counts */
    start(&h, 1);
    countdown(&h, 1000, 2);
    counter(&h, 1000, 0, 0);
    op(&h, 1999, HIST_INVOKE, HOP_COUNTDOWN, 4, 0, 0);
    op(&h, 1999, HIST_INVOKE, HOP_COUNTDOWN, 5, 0, 0);
    rearm(&h, 2000, 2, 2, 1);
    op(&h, 2005, HIST_OK, HOP_COUNTDOWN, 4, 0, 0);
    op(&h, 2005, HIST_OK, HOP_COUNTDOWN, 5, 0, 0);
    counter(&h, 2005, 0, 0);
    op(&h, 2100, HIST_INVOKE, HOP_AWAIT, 3, 0, 0);
    op(&h, 2101, HIST_OK, HOP_AWAIT, 3, 0, 1);
    latch(&h, 6000, &r);
    ck_assert_uint_eq(r.nv, 0);
    finish(&h, &r);
}
END_TEST

Suite *check_counters_suite(void)
{
    Suite *s = suite_create("check_counters");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, permits_held_within_the_bound);
    tcase_add_test(tc, latch_rounds_rearm);
    tcase_add_test(tc, latch_rearm_ends_an_opening);
    tcase_add_test(tc, latch_release_across_a_rearm);
    tcase_add_test(tc, permits_release_by_non_holder_creates_one);
    tcase_add_test(tc, permits_lost_with_a_crashed_holder);
    tcase_add_test(tc, permits_lost_by_a_failed_acquire_is_told);
    tcase_add_test(tc, permits_over_after_a_resent_addpermits_is_told);
    tcase_add_test(tc, permits_acquire_overlapping_a_reduce_is_judged_before_it);
    tcase_add_test(tc, permits_liveness_needs_enough_available);
    tcase_add_test(tc, permits_liveness_tells_the_wait_shape);
    tcase_add_test(tc, permits_liveness_behind_a_bigger_sibling);
    tcase_add_test(tc, permits_undecided_addpermits_is_no_loss);
    tcase_add_test(tc, permits_liveness_ended_by_an_error);
    tcase_add_test(tc, latch_opens_after_the_last_countdown);
    tcase_add_test(tc, latch_early_release_is_a_violation);
    tcase_add_test(tc, latch_awaiter_left_behind);
    tcase_add_test(tc, latch_due_when_the_countdowns_are_done);
    tcase_add_test(tc, latch_late_listener_is_told);
    suite_add_tcase(s, tc);
    return s;
}
