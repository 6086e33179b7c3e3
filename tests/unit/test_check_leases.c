/* test_check_leases.c — the expirable semaphore's checker (check_leases)
 * and the semaphore checker's permits in all (addPermits, drainPermits,
 * trySetPermits steps), on hand-made histories: ones that satisfy them and
 * ones that break each rule. */
#include <string.h>

#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"sem"};

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op what, int client, int64_t n, int64_t value,
               int64_t aux)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = what, .client = client, .inc = 1, .thread = 1,
                    .value = value, .aux = aux, .n = n};
    hist_add(h, &e);
}

/* The store: available permits and acquired ids. */
static void store(history *h, int64_t t_ms, int64_t available, int64_t acquired)
{
    hist_event e = {.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_COUNTER, .value = available, .aux = 1,
                    .n = acquired};
    hist_add(h, &e);
}

static void start(history *h, int64_t permits)
{
    hist_init(h);
    hist_event e = {.t_us = 0, .kind = HIST_INFO, .op = HOP_SET, .value = permits, .aux = 1};
    hist_add(h, &e);
    store(h, 0, permits, 0);
}

/* client's acquire of n permits (number no, lease ms; -1: none) at t. */
static void took(history *h, int64_t t, int client, int64_t n, int64_t no, int64_t lease_ms)
{
    ev(h, t - 1, HIST_INVOKE, HOP_ACQUIRE, client, n, 0, 0);
    ev(h, t, HIST_INFO, HOP_PERMIT, client, n, lease_ms < 0 ? INT64_MAX : MS(lease_ms), no);
    ev(h, t, HIST_OK, HOP_ACQUIRE, client, n, 1, 0);
}

/* client's release at t, the store answering answer for permit number no. */
static void released(history *h, int64_t t, int client, int64_t no, int answer)
{
    ev(h, t, HIST_INVOKE, HOP_RELEASE, client, 0, 0, 0);
    ev(h, t + 1, HIST_INFO, HOP_PERMIT_END, client, 0, answer, no);
    ev(h, t + 1, answer ? HIST_OK : HIST_FAIL, HOP_RELEASE, client, 0, 0, 0);
}

static void judge(history *h, int64_t end_ms, unsigned declared, check_result *r)
{
    check_result_init(r);
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(end_ms)};
    check_all(h, &in, declared, r);
}

#define LEASES (CHECK_INV(SCN_INV_PERMITS) | CHECK_INV(SCN_INV_LEASES))

START_TEST(leases_held_when_released_in_time)
{
    history h;
    check_result r;
    start(&h, 1);
    took(&h, 10, 1, 1, 1, 5000);
    store(&h, 10, 0, 1);
    released(&h, 1000, 1, 1, 1);
    store(&h, 1001, 1, 0);
    took(&h, 1100, 2, 1, 1, -1);
    store(&h, 1100, 0, 1);
    judge(&h, 3000, LEASES, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LEASES], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* Released "live" after the lease ended (Redisson before 3.17.0). */
START_TEST(leases_release_past_the_lease)
{
    history h;
    check_result r;
    start(&h, 1);
    took(&h, 10, 1, 1, 1, 1000);
    store(&h, 10, 0, 1);
    released(&h, 3000, 1, 1, 1);
    store(&h, 3001, 1, 0);
    judge(&h, 5000, LEASES, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LEASES], CHECK_VIOLATED);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    ck_assert(strstr(r.v[0].detail, "lease had ended at 1.010s") != NULL);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* An id answered "released" twice, and an updated lease that kept a
 * late release in time. */
START_TEST(leases_released_twice_and_updated)
{
    history h;
    check_result r;
    start(&h, 2);
    took(&h, 10, 1, 1, 1, -1);
    released(&h, 100, 1, 1, 1);
    released(&h, 200, 1, 1, 1);
    took(&h, 300, 2, 1, 1, 500);
    ev(&h, 600, HIST_INFO, HOP_PERMIT, 2, 0, MS(10000), 1); /* updateLeaseTime */
    released(&h, 2000, 2, 1, 1);
    store(&h, 2001, 2, 0);
    judge(&h, 3000, LEASES, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LEASES], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert(strstr(r.v[0].detail, "a second time") != NULL);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* A holder past its lease (a pause) while another takes the permit: the
 * bound; at the end the store accounts for a permit lost (a resent
 * acquire): conservation. */
START_TEST(leases_bound_and_lost_permit)
{
    history h;
    check_result r;
    start(&h, 2);
    took(&h, 10, 1, 1, 1, 2000);
    took(&h, 20, 2, 1, 1, -1);
    took(&h, 2500, 3, 1, 1, -1); /* c1's permit reclaimed */
    store(&h, 2500, 0, 1);       /* ... and one permit gone */
    judge(&h, 3000, LEASES, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert(strstr(r.v[0].detail, "threads hold 3 permits of sem, which has 2") != NULL);
    ck_assert_uint_eq(r.v[0].cause, CHECK_CAUSE_LEASE_RAN_OUT); /* c1 outlived its lease */
    ck_assert(strstr(r.v[1].detail, "1 permits of sem lost: at the end 0 available + 1 acquired") != NULL);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* The cause of the bound: a holder in the last tenth of its lease (the
 * waiter reclaims the permit as its lease ends, a round trip before the
 * deadline the history counts from the reply) counts as outlived; one
 * with most of its lease left, or with none, does not. */
START_TEST(leases_bound_cause)
{
    static const struct { int64_t lease_ms, at_ms; unsigned cause; } cases[] = {
        {2000, 1850, CHECK_CAUSE_LEASE_RAN_OUT}, {2000, 1500, 0}, {-1, 1850, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        history h;
        check_result r;
        start(&h, 1);
        took(&h, 10, 1, 1, 1, cases[i].lease_ms);
        took(&h, cases[i].at_ms, 2, 1, 1, -1);
        judge(&h, 3000, LEASES, &r);
        ck_assert(r.nv >= 1 && r.v[0].inv == SCN_INV_PERMITS);
        ck_assert_msg(r.v[0].cause == cases[i].cause, "case %zu: cause %u", i, r.v[0].cause);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

/* The lease checker replaces the semaphore's: check_permits would call a
 * crashed holder's permits lost. */
START_TEST(leases_crashed_holder_not_lost)
{
    history h;
    check_result r;
    start(&h, 1);
    took(&h, 10, 1, 1, 1, 1000);
    store(&h, 10, 0, 1);
    hist_event c = {.t_us = MS(500), .kind = HIST_INFO, .op = HOP_CRASH, .client = 1, .inc = 1};
    hist_add(&h, &c);
    took(&h, 1500, 2, 1, 1, -1);
    store(&h, 1500, 0, 1);
    judge(&h, 3000, LEASES | CHECK_INV(SCN_INV_LIVENESS) | CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* check_permits follows addPermits (more from the invoke), drainPermits
 * and trySetPermits: holders within the new totals hold, beyond them not. */
START_TEST(permits_follow_the_steps)
{
    history h;
    check_result r;
    start(&h, 1);
    ev(&h, 10, HIST_INVOKE, HOP_PERMITS_ADD, 9, 2, 0, 0);
    store(&h, 11, 3, 0);
    ev(&h, 12, HIST_OK, HOP_PERMITS_ADD, 9, 2, 0, 0);
    for (int c = 1; c <= 3; c++) took(&h, 20 + c, c, 1, 1, -1);
    store(&h, 24, 0, 0);
    ev(&h, 100, HIST_INVOKE, HOP_PERMITS_SET, 9, 7, 0, 0);
    ev(&h, 101, HIST_OK, HOP_PERMITS_SET, 9, 7, 0, 0); /* already set: no change */
    judge(&h, 200, CHECK_INV(SCN_INV_PERMITS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    check_result_free(&r);
    for (int c = 1; c <= 3; c++) ev(&h, 200 + c, HIST_INVOKE, HOP_RELEASE, c, 1, 0, 0);
    store(&h, 204, 3, 0);
    ev(&h, 300, HIST_INVOKE, HOP_PERMITS_DRAIN, 9, 0, 0, 0);
    store(&h, 301, 0, 0);
    ev(&h, 301, HIST_OK, HOP_PERMITS_DRAIN, 9, 0, 3, 0);
    judge(&h, 400, CHECK_INV(SCN_INV_PERMITS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_HELD);
    check_result_free(&r);
    took(&h, 500, 4, 1, 1, -1); /* a permit the drained semaphore has not got */
    judge(&h, 600, CHECK_INV(SCN_INV_PERMITS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_PERMITS], CHECK_VIOLATED);
    ck_assert(strstr(r.v[0].detail, "threads hold 1 permits of sem, which has 0") != NULL);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

Suite *check_leases_suite(void)
{
    Suite *s = suite_create("check_leases");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, leases_held_when_released_in_time);
    tcase_add_test(tc, leases_release_past_the_lease);
    tcase_add_test(tc, leases_released_twice_and_updated);
    tcase_add_test(tc, leases_bound_and_lost_permit);
    tcase_add_test(tc, leases_bound_cause);
    tcase_add_test(tc, leases_crashed_holder_not_lost);
    tcase_add_test(tc, permits_follow_the_steps);
    suite_add_tcase(s, tc);
    return s;
}
