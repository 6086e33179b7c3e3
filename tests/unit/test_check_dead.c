/* test_check_dead.c — the dead-holder checker (check_dead_holder) on
 * hand-made histories: a dead holder's lock freed within its lease, one
 * kept past its lease and the margin (a lease left over from an earlier
 * acquire), a grant longer than asked, shared read holds, and an
 * expirable semaphore's permit leases. */
#include <string.h>

#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"lock0"};

/* The lease in force: the watchdog's 30 s for -1, else what was asked. */
static int64_t in_force(const void *ud, int64_t lease_us)
{
    (void)ud;
    return lease_us < 0 ? MS(30000) : lease_us;
}

/* A margin of 5 s: a reply wait of 3 s and a retry delay of 2 s. */
static const check_input dead_in = {.nlocks = 1, .names = names, .end_us = MS(60000), .reply_wait_us = MS(3000),
                                    .retry_delay_us = MS(2000), .lease_in_force_us = in_force};

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int thread, int64_t value,
               int64_t lease_ms)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = 1, .thread = thread,
                    .value = value, .lease_us = lease_ms < 0 ? SCN_LEASE_WATCHDOG : MS(lease_ms)};
    hist_add(h, &e);
}

/* The store: lock 0 held by (client, thread) (0: free) until expire_ms (-1: never). */
static void store(history *h, int64_t t_ms, int client, int thread, int64_t expire_ms)
{
    hist_event e = {.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_STORE, .client = client, .inc = client ? 1 : 0,
                    .thread = thread, .value = client ? 1 : 0,
                    .aux = client == 0 || expire_ms < 0 ? INT64_MAX : MS(expire_ms)};
    hist_add(h, &e);
}

/* (client, thread)'s acquire at t with lease_ms (-1: the watchdog), the
 * store keeping it until expire_ms, answered with depth. */
static void acquire(history *h, int64_t t, int client, int thread, int64_t lease_ms, int64_t expire_ms, int depth)
{
    ev(h, t, HIST_INVOKE, HOP_ACQUIRE, client, thread, depth - 1, lease_ms);
    if (expire_ms != 0) store(h, t + 1, client, thread, expire_ms);
    ev(h, t + 2, HIST_OK, HOP_ACQUIRE, client, thread, depth, 0);
}

static void crash(history *h, int64_t t, int client)
{
    hist_event e = {.t_us = MS(t), .kind = HIST_INFO, .op = HOP_CRASH, .client = client, .inc = 1};
    hist_add(h, &e);
}

static void judge(const history *h, check_result *r)
{
    check_result_init(r);
    check_all(h, &dead_in, CHECK_INV(SCN_INV_DEAD_HOLDER), r);
}

START_TEST(dead_holder_freed_within_its_lease)
{
    history h;
    check_result r;
    hist_init(&h);
    acquire(&h, 0, 1, 1, 10000, 10000, 1);
    crash(&h, 5000, 1);
    store(&h, 12000, 0, 0, 0); /* seen free late: it expired at 10 s */
    acquire(&h, 12000, 2, 1, 10000, 22000, 1);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    ck_assert_uint_eq(r.nv, 0);
    check_result_free(&r);
    /* Not judged without the protocol's leases. */
    check_input none = dead_in;
    none.lease_in_force_us = NULL;
    check_result_init(&r);
    check_all(&h, &none, CHECK_INV(SCN_INV_DEAD_HOLDER), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_UNKNOWN);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* A watchdog hold re-entered with a 1 s lease, and a store that keeps the
 * watchdog's 30 s: the dead holder keeps it past 1 s + the margin. */
START_TEST(dead_holder_kept_past_lease_and_margin)
{
    history h;
    check_result r;
    hist_init(&h);
    acquire(&h, 0, 1, 1, -1, 30000, 1);
    acquire(&h, 1000, 1, 1, 1000, 0, 2); /* the store's expiry is left as it was */
    crash(&h, 2000, 1);
    store(&h, 31000, 0, 0, 0);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 2);
    /* The re-entry's ok leaves the 30 s of the first acquire: longer than asked. */
    ck_assert(strstr(r.v[0].detail, "a lease longer than asked: the store keeps lock0 for c1.t1 (incarnation 1) "
                                    "28.998s from 1.002s") != NULL);
    ck_assert_int_eq(r.v[1].t_us, MS(8000)); /* due at the crash + 1 s + 5 s */
    ck_assert_int_eq(r.v[1].from_us, MS(2000));
    const char *d = r.v[1].detail;
    ck_assert_msg(strstr(d, "lock0 was held by the dead c1.t1 (incarnation 1, crashed at 2.000s), held until "
                            "30.000s: due free by 8.000s, the lease asked 1s + margin 5s = reply wait 3s + "
                            "retry delay 2s + round trip 0s + delay 0s + node pause 0s") != NULL,
                  "%s", d);
    check_result_free(&r);
    hist_free(&h);
    /* Never freed: renewed for ever after the crash by someone else. */
    hist_init(&h);
    acquire(&h, 0, 1, 1, -1, 30000, 1);
    crash(&h, 2000, 1);
    store(&h, 20000, 1, 1, 50000);
    store(&h, 40000, 1, 1, 70000);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_msg(strstr(r.v[0].detail, "still held at the end (60.000s), expiring 70.000s: due free by 37.000s, "
                                        "the lease asked -1 ms (the watchdog's: 30s)") != NULL,
                  "%s", r.v[0].detail);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(dead_holder_lease_longer_than_asked)
{
    history h;
    check_result r;
    hist_init(&h);
    acquire(&h, 0, 1, 1, 10000, 15000, 1); /* 10 s + a margin of 5 s: within */
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    check_result_free(&r);
    store(&h, 3000, 1, 1, 60000); /* a renewal to 57 s ahead */
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert_uint_eq(r.nv, 1);
    ck_assert_msg(strstr(r.v[0].detail, "a lease longer than asked: the store keeps lock0 for c1.t1 (incarnation 1) "
                                        "57s from 3.000s (expiring 60.000s), beyond the longest lease asked by its "
                                        "holders and acquirers, c1.t1's 10s, + margin 5s") != NULL,
                  "%s", r.v[0].detail);
    check_result_free(&r);
    hist_free(&h);
    /* A key with no expiry at its grant. */
    hist_init(&h);
    acquire(&h, 0, 1, 1, 10000, -1, 1);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert(strstr(r.v[0].detail, "for ever from 0.002s (expiring never)") != NULL);
    check_result_free(&r);
    hist_free(&h);
    /* SETNX then EXPIRE: mended before the acquire returns, not judged. */
    hist_init(&h);
    ev(&h, 0, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0, 10000);
    store(&h, 1, 1, 1, -1);
    store(&h, 2, 1, 1, 10002);
    ev(&h, 3, HIST_OK, HOP_ACQUIRE, 1, 1, 1, 0);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* Read holds share: the store names the dead reader, a live one still
 * holds; once it releases, the store has the margin to free it. */
START_TEST(dead_holder_shared_read_holds)
{
    history h;
    check_result r;
    hist_init(&h);
    acquire(&h, 0, 1, 1, 1000, 1000, 1);
    acquire(&h, 500, 2, 1, 30000, 30500, 1);
    store(&h, 501, 1, 1, 30500); /* the store names the first reader */
    crash(&h, 600, 1);
    ev(&h, 20000, HIST_INVOKE, HOP_RELEASE, 2, 1, 0, 0);
    store(&h, 20003, 0, 0, 0);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    check_result_free(&r);
    hist_free(&h);
    /* The live reader gone, the dead one's hold kept 20 s on. */
    hist_init(&h);
    acquire(&h, 0, 1, 1, 1000, 1000, 1);
    acquire(&h, 500, 2, 1, 30000, 30500, 1);
    store(&h, 501, 1, 1, 30500);
    crash(&h, 600, 1);
    ev(&h, 5000, HIST_INVOKE, HOP_RELEASE, 2, 1, 0, 0);
    store(&h, 30500, 0, 0, 0);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert_int_eq(r.v[0].t_us, MS(10000)); /* the release + the margin */
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

/* An expirable semaphore's permit: its lease at the grant, and after
 * updateLeaseTime asked for a longer one. */
START_TEST(dead_holder_permit_leases)
{
    history h;
    check_result r;
    hist_init(&h);
    ev(&h, 0, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0, 2000);
    hist_event p = {.t_us = MS(1), .kind = HIST_INFO, .op = HOP_PERMIT, .client = 1, .inc = 1, .thread = 1,
                    .value = MS(2000), .aux = 1, .n = 1};
    hist_add(&h, &p);
    hist_event u = {.t_us = MS(1000), .kind = HIST_INVOKE, .op = HOP_QUERY, .client = 1, .inc = 1, .thread = 1,
                    .aux = SCN_OP_UPDATELEASE, .lease_us = MS(30000)};
    hist_add(&h, &u);
    p.t_us = MS(1001);
    p.value = MS(30000);
    hist_add(&h, &p);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    check_result_free(&r);
    p.t_us = MS(2000);
    p.value = MS(60000); /* the store's deadline past the 30 s asked */
    hist_add(&h, &p);
    judge(&h, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEAD_HOLDER], CHECK_VIOLATED);
    ck_assert(strstr(r.v[0].detail, "permit #1 of lock0 has 60s left at its grant, beyond the lease asked 30s") !=
              NULL);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

Suite *check_dead_suite(void)
{
    Suite *s = suite_create("check_dead");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, dead_holder_freed_within_its_lease);
    tcase_add_test(tc, dead_holder_kept_past_lease_and_margin);
    tcase_add_test(tc, dead_holder_lease_longer_than_asked);
    tcase_add_test(tc, dead_holder_shared_read_holds);
    tcase_add_test(tc, dead_holder_permit_leases);
    suite_add_tcase(s, tc);
    return s;
}
