/* test_check_fair.c — the fairness checkers (fifo, starvation) on
 * hand-made histories: grants in queue order and out of it, a waiter that
 * gave up or died (not overtaken), a purged live waiter (overtaken), a
 * grant without queueing placed at its store observation, and the
 * starvation bound with its default. Also the fair scripts' queue on the
 * fake (order, already queued, dequeue, purge) as the observer reads it. */
#include <string.h>

#include "protocols/protocol.h"
#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"lock0"};
static const check_input lock0 = {.nlocks = 1, .names = names, .end_us = MS(1000)};

/* The starvation checker alone, with this bound (0: the default). */
static void starvation(const history *h, int64_t bound, check_result *r)
{
    check_input in = lock0;
    in.starvation_bound = bound;
    check_all(h, &in, CHECK_INV(SCN_INV_STARVATION), r);
}

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int64_t value)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = 1, .thread = 1,
                    .lock = 0, .value = value};
    hist_add(h, &e);
}

static void invoke(history *h, int64_t t, int c)
{
    ev(h, t, HIST_INVOKE, HOP_ACQUIRE, c, 0);
}

static void queued(history *h, int64_t t, int c, int64_t pos)
{
    ev(h, t, HIST_INFO, HOP_QUEUED, c, pos);
}

static void granted(history *h, int64_t t, int c)
{
    hist_event st = {.t_us = MS(t), .kind = HIST_INFO, .op = HOP_STORE, .client = c, .inc = 1, .thread = 1,
                     .lock = 0, .value = 1, .aux = INT64_MAX};
    hist_add(h, &st);
    ev(h, t, HIST_OK, HOP_ACQUIRE, c, 1);
}

static void released(history *h, int64_t t, int c)
{
    ev(h, t, HIST_INVOKE, HOP_RELEASE, c, 0);
    hist_event st = {.t_us = MS(t), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0};
    hist_add(h, &st);
    ev(h, t, HIST_OK, HOP_RELEASE, c, 0);
}

/* From t: c1 asks, is granted and releases, then c2. */
static void take_turns(history *h, int64_t t)
{
    invoke(h, t + 10, 1);
    granted(h, t + 11, 1);
    released(h, t + 20, 1);
    invoke(h, t + 50, 2);
    granted(h, t + 51, 2);
    released(h, t + 60, 2);
}

/* c1 holds; c2, c3, c4 queue in that order. */
static void three_waiters(history *h)
{
    invoke(h, 0, 1);
    granted(h, 1, 1);
    invoke(h, 10, 2);
    queued(h, 11, 2, 1);
    invoke(h, 12, 3);
    queued(h, 13, 3, 2);
    invoke(h, 14, 4);
    queued(h, 15, 4, 3);
    released(h, 100, 1);
}

START_TEST(fifo_holds_in_queue_order)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    three_waiters(&h);
    granted(&h, 101, 2);
    released(&h, 200, 2);
    granted(&h, 201, 3);
    released(&h, 300, 3);
    granted(&h, 301, 4);
    check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_HELD);
    ck_assert_uint_eq(r.nv, 0);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(fifo_violated_by_overtake)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    three_waiters(&h);
    /* c2 is purged (still waiting); c4 goes first, then c3. */
    ev(&h, 101, HIST_INFO, HOP_DEQUEUED, 2, 0);
    granted(&h, 102, 4);
    released(&h, 200, 4);
    granted(&h, 201, 3);
    check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 2);
    ck_assert_int_eq(r.v[0].t_us, MS(102));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c4.t1"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "ahead of c2.t1, queued at 0.011s (position 1)"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "3 overtakes in 3 grants"));
    ck_assert_ptr_nonnull(strstr(r.v[1].detail, "c3.t1"));
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* c2 queues first, c3 after; c2's lock() fails with a reply timeout and
 * calls no acquireFailed, so its place stays; it asks again and is
 * granted from that place: in order. Had its place been dequeued, the
 * grant to its new request would overtake c3. */
START_TEST(fifo_keeps_the_place_a_failed_wait_left)
{
    for (int dequeued = 0; dequeued <= 1; dequeued++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        granted(&h, 0, 1);
        invoke(&h, 10, 2);
        queued(&h, 11, 2, 1);
        invoke(&h, 20, 3);
        queued(&h, 21, 3, 2);
        hist_event fail = {.t_us = MS(40), .kind = HIST_FAIL, .op = HOP_ACQUIRE, .client = 2, .inc = 1,
                           .thread = 1, .lock = 0, .err = (char *)"RedisResponseTimeoutException"};
        hist_add(&h, &fail);
        if (dequeued) ev(&h, 45, HIST_INFO, HOP_DEQUEUED, 2, 0);
        invoke(&h, 50, 2);
        released(&h, 100, 1);
        granted(&h, 101, 2);
        check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_FIFO], dequeued ? CHECK_VIOLATED : CHECK_HELD);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

START_TEST(fifo_skips_waiters_that_gave_up_or_died)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    three_waiters(&h);
    ev(&h, 50, HIST_FAIL, HOP_ACQUIRE, 2, 0);           /* tryLock ran out */
    hist_event crash = {.t_us = MS(60), .kind = HIST_INFO, .op = HOP_CRASH, .client = 3, .inc = 1};
    hist_add(&h, &crash);
    granted(&h, 101, 4);
    check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(fifo_places_unqueued_grant_at_the_store)
{
    history h;
    check_result r;
    hist_init(&h);
    check_result_init(&r);
    /* c1 takes a free lock at once (store at 5); c2 queues at 6, before
     * c1's ok reaches it at 8: no overtake. */
    invoke(&h, 0, 1);
    invoke(&h, 1, 2);
    hist_event st = {.t_us = MS(5), .kind = HIST_INFO, .op = HOP_STORE, .client = 1, .inc = 1, .thread = 1,
                     .lock = 0, .value = 1, .aux = INT64_MAX};
    hist_add(&h, &st);
    queued(&h, 6, 2, 1);
    ev(&h, 8, HIST_OK, HOP_ACQUIRE, 1, 1);
    check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
    /* Without the store observation the ok itself is the grant: c2 was
     * queued before it, so it was overtaken. */
    hist_init(&h);
    check_result_init(&r);
    invoke(&h, 0, 1);
    invoke(&h, 1, 2);
    queued(&h, 6, 2, 1);
    ev(&h, 8, HIST_OK, HOP_ACQUIRE, 1, 1);
    check_all(&h, &lock0, CHECK_INV(SCN_INV_FIFO), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_VIOLATED);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* Starvation counts from the waiter's request as the server has it:
 * c9 invokes at 0 and its request reaches the queue only at 505 (a slow
 * link); c1 and c2 are granted 10 times before, then twice after. Case
 * 2: c9 never queues and is granted at 700, its first request to arrive,
 * on a lock that declares a queue: nobody passed it over. */
static int64_t wait_5s(const void *ud, int64_t wait_us)
{
    (void)ud;
    (void)wait_us;
    return MS(5000);
}

START_TEST(starvation_counts_from_the_queue_entry)
{
    for (int in_queue = 0; in_queue <= 2; in_queue++) {
        history h;
        check_result r;
        hist_init(&h);
        invoke(&h, 0, 9);
        for (int i = 0; i < 6; i++) {
            if (in_queue == 1 && i == 5) queued(&h, 505, 9, 1);
            take_turns(&h, 100 * i);
        }
        check_result_init(&r);
        if (in_queue == 2) {
            granted(&h, 700, 9);
            check_input in = lock0;
            in.starvation_bound = 6;
            in.queue_wait_us = wait_5s;
            check_all(&h, &in, CHECK_INV(SCN_INV_STARVATION), &r);
        } else {
            starvation(&h, 6, &r);
        }
        ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], in_queue ? CHECK_HELD : CHECK_VIOLATED);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

START_TEST(starvation_bound_and_default)
{
    history h;
    check_result r;
    hist_init(&h);
    /* c9 waits from 0 to the end while c1 and c2 take turns 5 times each. */
    invoke(&h, 0, 9);
    for (int i = 0; i < 5; i++) take_turns(&h, 100 * i);
    check_result_init(&r);
    starvation(&h, 10, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_HELD); /* 10 grants: at the bound */
    check_result_free(&r);
    check_result_init(&r);
    starvation(&h, 0, &r); /* default: 2 x 3 threads */
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c9.t1"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "(still waiting) while 10 grants"));
    ck_assert_ptr_nonnull(strstr(r.v[0].detail, "bound 6"));
    check_result_free(&r);
    /* Once c9 is served after two grants, it did not starve. */
    hist_free(&h);
    hist_init(&h);
    invoke(&h, 0, 9);
    invoke(&h, 1, 1);
    granted(&h, 2, 1);
    released(&h, 3, 1);
    invoke(&h, 4, 2);
    granted(&h, 5, 2);
    released(&h, 6, 2);
    granted(&h, 7, 9);
    check_result_init(&r);
    starvation(&h, 1, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_VIOLATED); /* 2 > 1 */
    check_result_free(&r);
    check_result_init(&r);
    starvation(&h, 2, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

static void join(void *ud, const char *v, size_t len)
{
    char *out = ud;
    size_t n = strlen(out);
    snprintf(out + n, 128 - n, "%s%.*s", n ? "," : "", (int)len, v);
}

static const char *queue_of(tnode *t)
{
    static char out[128];
    out[0] = '\0';
    fake_node_peek_list(t->node, "q", 1, join, out);
    return out;
}

START_TEST(fair_scripts_queue_dequeue_purge)
{
    tnode t;
    tnode_init(&t);
    const char *acq = proto_script_find("fair_acquire")->text;
    const char *deq = proto_script_find("fair_dequeue")->text;
    ck_assert_str_eq(teval(&t, acq, 3, "lock q z 30000 a:1 5000 1000"), "(nil)");
    ck_assert_str_eq(teval(&t, acq, 3, "lock q z 30000 b:1 5000 1000"), "(integer) 30000");
    /* c queues behind b: b's deadline (30000 + 5000 + 1000) - now */
    ck_assert_str_eq(teval(&t, acq, 3, "lock q z 30000 c:1 5000 1000"), "(integer) 35000");
    ck_assert_str_eq(queue_of(&t), "b:1,c:1");
    ck_assert_str_eq(teval(&t, acq, 3, "lock q z 30000 b:1 5000 2000"), "(integer) 30000"); /* queued */
    ck_assert_str_eq(tcmd(&t, "ZSCORE z c:1"), "\"41000\"");
    ck_assert_str_eq(teval(&t, deq, 2, "q z b:1 5000"), "(nil)");
    ck_assert_str_eq(tcmd(&t, "ZSCORE z c:1"), "\"36000\""); /* moved up by b's waitMs */
    ck_assert_str_eq(queue_of(&t), "c:1");
    /* d's clock is past c's deadline: c is purged, d queues at the head. */
    ck_assert_str_eq(teval(&t, acq, 3, "lock q z 30000 d:1 5000 50000"), "(integer) 30000");
    ck_assert_str_eq(queue_of(&t), "d:1");
    ck_assert_int_eq(fake_node_peek_list(t.node, "lock", 4, join, NULL), 0); /* not a list */
    tnode_done(&t);
}
END_TEST

START_TEST(fair_scenario_keys)
{
    scenario sc;
    scn_error err;
    const char *ok = "[scenario]\nduration = 1s\n[protocol]\nname = redisson.fairlock\n"
                     "thread-wait-time = 5s\n[clients]\ncount = 1\n[expect]\nfifo = held\n"
                     "starvation = violated\nstarvation-bound = 3\n";
    ck_assert_int_eq(scn_load_string("f.scn", ok, &sc, &err), 0);
    ck_assert_int_eq(sc.thread_wait_us, SIM_SEC(5));
    ck_assert_int_eq(sc.starvation_bound, 3);
    ck_assert_int_eq(sc.expect[SCN_INV_FIFO], SCN_EXPECT_HELD);
    ck_assert_int_eq(sc.expect[SCN_INV_STARVATION], SCN_EXPECT_VIOLATED);
    scn_free(&sc);
    const char *dflt = "[scenario]\nduration = 1s\n[protocol]\nname = redisson.fairlock\n[clients]\ncount = 1\n";
    ck_assert_int_eq(scn_load_string("f.scn", dflt, &sc, &err), 0);
    ck_assert_int_eq(sc.thread_wait_us, -1); /* the version's default */
    scn_free(&sc);
    const char *bad = "[scenario]\nduration = 1s\n[protocol]\nname = redisson.fairlock\n"
                      "thread-wait-time = 0s\n[clients]\ncount = 1\n";
    ck_assert_int_eq(scn_load_string("f.scn", bad, &sc, &err), -1);
    ck_assert_int_eq(err.line, 5);
    ck_assert_ptr_nonnull(strstr(err.msg, "'thread-wait-time' must be at least"));
}
END_TEST

Suite *check_fair_suite(void)
{
    Suite *s = suite_create("check_fair");
    TCase *core = tcase_create("core");
    tcase_add_test(core, fifo_holds_in_queue_order);
    tcase_add_test(core, fifo_violated_by_overtake);
    tcase_add_test(core, fifo_keeps_the_place_a_failed_wait_left);
    tcase_add_test(core, fifo_skips_waiters_that_gave_up_or_died);
    tcase_add_test(core, fifo_places_unqueued_grant_at_the_store);
    tcase_add_test(core, starvation_bound_and_default);
    tcase_add_test(core, starvation_counts_from_the_queue_entry);
    tcase_add_test(core, fair_scripts_queue_dequeue_purge);
    tcase_add_test(core, fair_scenario_keys);
    suite_add_tcase(s, core);
    return s;
}
