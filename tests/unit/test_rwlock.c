/* test_rwlock.c — the read/write lock: the rw-exclusion checker on
 * hand-made histories (readers share, a writer excludes, a break over a
 * write hold says so, a thread's own downgrade is fine, a crash ends a hold), and the rw scripts on the fake
 * (downgrade, no upgrade, write reentry adds the lease, read unlock keeps
 * the longest remaining read timeout). */
#include <string.h>

#include "protocols/protocol.h"
#include "reports/report.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)
#define R SCN_RW_READ
#define W SCN_RW_WRITE

static char *const names[] = {"rw"};

static void ev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int mode)
{
    hist_event e = {.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = 1,
                    .thread = 1, .lock = 0, .mode = mode};
    hist_add(h, &e);
}

/* acquire ok at a, release invoked at b, by client's thread 1 on side mode. */
static void hold(history *h, int client, int mode, int64_t a, int64_t b)
{
    ev(h, a, HIST_OK, HOP_ACQUIRE, client, mode);
    ev(h, b, HIST_INVOKE, HOP_RELEASE, client, mode);
}

static check_verdict judge(history *h, size_t *nv)
{
    check_result r;
    check_result_init(&r);
    check_all(h, &(check_input){.nlocks = 1, .names = names}, CHECK_INV(SCN_INV_RW_EXCLUSION), &r);
    check_verdict v = r.verdict[SCN_INV_RW_EXCLUSION];
    *nv = r.nv;
    check_result_free(&r);
    hist_free(h);
    return v;
}

START_TEST(rw_readers_share_writers_wait)
{
    history h;
    size_t nv;
    hist_init(&h);
    hold(&h, 1, R, 10, 50);
    hold(&h, 2, R, 20, 40);
    hold(&h, 3, W, 60, 70);
    hold(&h, 1, 0, 80, 90); /* no side: the write lock */
    ck_assert_int_eq(judge(&h, &nv), CHECK_HELD);
    ck_assert_uint_eq(nv, 0);
}
END_TEST

START_TEST(rw_writer_beside_reader_or_writer_is_violated)
{
    history h;
    size_t nv;
    hist_init(&h);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, R);
    ev(&h, 20, HIST_OK, HOP_ACQUIRE, 2, W); /* beside the reader */
    ev(&h, 30, HIST_OK, HOP_ACQUIRE, 3, 0); /* beside both (no side: write) */
    ck_assert_int_eq(judge(&h, &nv), CHECK_VIOLATED);
    ck_assert_uint_eq(nv, 3);

    hist_init(&h);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, W);
    ev(&h, 20, HIST_OK, HOP_ACQUIRE, 2, R); /* a reader beside the writer */
    ck_assert_int_eq(judge(&h, &nv), CHECK_VIOLATED);
    ck_assert_uint_eq(nv, 1);
}
END_TEST

/* The causes of each rw-exclusion violation, in order: one over a write
 * hold says so (a write lock lost under its holder), one over a read hold
 * does not (a reader cut short). */
START_TEST(rw_over_a_write_hold_is_a_cause)
{
    history h;
    check_result r;
    hist_init(&h);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, W);
    ev(&h, 20, HIST_OK, HOP_ACQUIRE, 2, R); /* a reader over c1's write */
    ev(&h, 25, HIST_INVOKE, HOP_RELEASE, 1, W);
    ev(&h, 30, HIST_OK, HOP_ACQUIRE, 3, W); /* a writer over c2's read */
    check_result_init(&r);
    check_all(&h, &(check_input){.nlocks = 1, .names = names}, CHECK_INV(SCN_INV_RW_EXCLUSION), &r);
    ck_assert_uint_eq(r.nv, 2);
    ck_assert_uint_eq(r.v[0].cause & CHECK_CAUSE_OVER_WRITE, CHECK_CAUSE_OVER_WRITE);
    ck_assert_uint_eq(r.v[1].cause & CHECK_CAUSE_OVER_WRITE, 0);
    check_result_free(&r);
    hist_free(&h);
}
END_TEST

START_TEST(rw_downgrade_reentry_and_crash)
{
    history h;
    size_t nv;
    hist_init(&h);
    /* c1: write, read (downgrade), write released, read re-entered. */
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, W);
    ev(&h, 11, HIST_OK, HOP_ACQUIRE, 1, R);
    ev(&h, 12, HIST_OK, HOP_ACQUIRE, 1, R);
    ev(&h, 20, HIST_INVOKE, HOP_RELEASE, 1, W);
    ev(&h, 25, HIST_OK, HOP_ACQUIRE, 2, R); /* read mode now: shares */
    ev(&h, 30, HIST_INVOKE, HOP_RELEASE, 1, R);
    ev(&h, 40, HIST_INVOKE, HOP_RELEASE, 2, R);
    ck_assert_int_eq(judge(&h, &nv), CHECK_HELD);

    hist_init(&h);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, R);
    ev(&h, 11, HIST_OK, HOP_ACQUIRE, 1, R);
    ev(&h, 20, HIST_INVOKE, HOP_RELEASE, 1, R); /* one level of two: still reads */
    ev(&h, 30, HIST_OK, HOP_ACQUIRE, 2, W);
    ck_assert_int_eq(judge(&h, &nv), CHECK_VIOLATED);

    hist_init(&h);
    ev(&h, 10, HIST_OK, HOP_ACQUIRE, 1, W);
    ev(&h, 20, HIST_INFO, HOP_CRASH, 1, 0); /* a crash ends the hold */
    ev(&h, 30, HIST_OK, HOP_ACQUIRE, 2, W);
    ck_assert_int_eq(judge(&h, &nv), CHECK_HELD);
}
END_TEST

/* A waiting reader is woken late while the store is in read mode: a lost
 * wake-up; a writer waiting through the same read mode is not. */
START_TEST(rw_liveness_read_mode_is_free_for_readers)
{
    for (int mode = R; mode <= W; mode++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        hist_event st = {.t_us = MS(5), .kind = HIST_INFO, .op = HOP_STORE, .client = 1, .inc = 1,
                         .thread = 1, .value = 1, .aux = MS(60000), .mode = W};
        hist_add(&h, &st);
        ev(&h, 10, HIST_INVOKE, HOP_ACQUIRE, 2, mode);
        st.t_us = MS(20); /* c1 downgrades: read mode */
        st.mode = R;
        hist_add(&h, &st);
        ev(&h, 5000, HIST_OK, HOP_ACQUIRE, 2, mode);
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(6000)};
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], mode == R ? CHECK_VIOLATED : CHECK_HELD);
        if (mode == R) ck_assert_ptr_nonnull(strstr(r.v[0].detail, "read mode"));
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

/* A reader whose acquire ran (the store counts its read hold) but whose
 * reply was lost waits for the reply, not the lock: read mode is its own
 * hold, no lost wake-up; the same wait with the store not counting it is
 * one. */
START_TEST(rw_liveness_ends_where_the_store_grants)
{
    for (int counted = 0; counted <= 1; counted++) {
        history h;
        check_result r;
        hist_init(&h);
        check_result_init(&r);
        hist_event inv = {.t_us = MS(10), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 2, .inc = 1,
                          .thread = 1, .mode = R, .seq = 77};
        hist_add(&h, &inv);
        hist_event st = {.t_us = MS(11), .kind = HIST_INFO, .op = HOP_STORE, .client = 2, .inc = 1,
                         .thread = 1, .value = 1, .aux = MS(60000), .mode = R};
        hist_add(&h, &st);
        hist_event sc = {.t_us = MS(11), .kind = HIST_INFO, .op = HOP_STORE_COUNT, .client = 2, .inc = 1,
                         .thread = 1, .value = counted, .seq = 77};
        hist_add(&h, &sc);
        hist_event fail = inv;
        fail.t_us = MS(4011);
        fail.kind = HIST_FAIL;
        fail.err = "RedisResponseTimeoutException";
        hist_add(&h, &fail);
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(6000)};
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], counted ? CHECK_HELD : CHECK_VIOLATED);
        check_result_free(&r);
        hist_free(&h);
    }
}
END_TEST

/* ------------------------------------------------------------- scripts */

static const char *script(const char *name)
{
    const cl_script *s = proto_script_find(name);
    ck_assert_ptr_nonnull(s);
    return s->text;
}

#define RACQ(t, key, who, lease)                                                              \
    teval(t, script("rw_read_acquire"), 2,                                                    \
          key " {" key "}:" who ":rwlock_timeout " lease " " who " " who ":write")
#define WACQ(t, key, who, lease) teval(t, script("rw_write_acquire"), 1, key " " lease " " who ":write")

START_TEST(rw_scripts_downgrade_no_upgrade)
{
    tnode t;
    tnode_init(&t);
    /* Downgrade: the writer reads too; its write unlock leaves read mode. */
    ck_assert_str_eq(WACQ(&t, "rw", "p1:1", "30000"), "(nil)");
    ck_assert_str_eq(RACQ(&t, "rw", "p1:1", "30000"), "(nil)");
    ck_assert_str_eq(RACQ(&t, "rw", "p2:1", "30000"), "(integer) 30000"); /* others wait */
    ck_assert_str_eq(teval(&t, script("rw_write_unlock"), 3, "rw ch latch1 1 30000 p1:1:write publish 16000"),
                     "(integer) 1");
    ck_assert_str_eq(tcmd(&t, "HGET rw mode"), "\"read\"");
    ck_assert_str_eq(RACQ(&t, "rw", "p2:1", "30000"), "(nil)");
    /* No upgrade: a reader asking for write is refused. */
    ck_assert_str_eq(WACQ(&t, "rw", "p1:1", "30000"), "(integer) 30000");
    /* A replay of the write unlock answers from its latch. */
    ck_assert_str_eq(teval(&t, script("rw_write_unlock"), 3, "rw ch latch1 1 30000 p1:1:write publish 16000"),
                     "(integer) 1");
    ck_assert_str_eq(tcmd(&t, "HGET rw mode"), "\"read\"");
    tnode_done(&t);
}
END_TEST

START_TEST(rw_scripts_lease_rules)
{
    tnode t;
    tnode_init(&t);
    /* Write reentry adds the lease to what is left. */
    ck_assert_str_eq(WACQ(&t, "w", "p1:1", "10000"), "(nil)");
    sim_run(t.ctx, SIM_MS(1000));
    ck_assert_str_eq(WACQ(&t, "w", "p1:1", "10000"), "(nil)");
    ck_assert_str_eq(tcmd(&t, "PTTL w"), "(integer) 19000");
    /* Read: the hash lives as long as the longest read timeout. */
    ck_assert_str_eq(RACQ(&t, "r", "p1:1", "10000"), "(nil)");
    ck_assert_str_eq(RACQ(&t, "r", "p2:1", "60000"), "(nil)");
    ck_assert_str_eq(tcmd(&t, "PTTL r"), "(integer) 60000");
    sim_run(t.ctx, SIM_MS(2000));
    ck_assert_str_eq(teval(&t, script("rw_read_unlock"), 5,
                           "r ch {r}:p2:1:rwlock_timeout {r} latch2 0 p2:1 publish 16000"),
                     "(integer) 0");
    ck_assert_str_eq(tcmd(&t, "PTTL r"), "(integer) 9000");
    ck_assert_str_eq(tcmd(&t, "EXISTS {r}:p2:1:rwlock_timeout:1"), "(integer) 0");
    /* The renewal batch renews the listed holder's keys and the hash. */
    ck_assert_str_eq(teval(&t, script("rw_read_renew_batch"), 4, "r {r} w {w} 30000 1 p1:1 1 p9:9"),
                     "[(integer) 1, (integer) 0]");
    ck_assert_str_eq(tcmd(&t, "PTTL {r}:p1:1:rwlock_timeout:1"), "(integer) 30000");
    ck_assert_str_eq(tcmd(&t, "PTTL r"), "(integer) 30000");
    /* The last reader frees the lock; a later unlock finds no lock: nil. */
    ck_assert_str_eq(teval(&t, script("rw_read_unlock"), 5,
                           "r ch {r}:p1:1:rwlock_timeout {r} latch3 0 p1:1 publish 16000"),
                     "(integer) 1");
    ck_assert_str_eq(tcmd(&t, "EXISTS r"), "(integer) 0");
    ck_assert_str_eq(teval(&t, script("rw_read_unlock"), 5,
                           "r ch {r}:p1:1:rwlock_timeout {r} latch4 0 p1:1 publish 16000"),
                     "(nil)");
    tnode_done(&t);
}
END_TEST

Suite *rwlock_suite(void)
{
    Suite *s = suite_create("rwlock");
    TCase *core = tcase_create("core");
    tcase_add_test(core, rw_readers_share_writers_wait);
    tcase_add_test(core, rw_writer_beside_reader_or_writer_is_violated);
    tcase_add_test(core, rw_over_a_write_hold_is_a_cause);
    tcase_add_test(core, rw_downgrade_reentry_and_crash);
    tcase_add_test(core, rw_liveness_read_mode_is_free_for_readers);
    tcase_add_test(core, rw_liveness_ends_where_the_store_grants);
    tcase_add_test(core, rw_scripts_downgrade_no_upgrade);
    tcase_add_test(core, rw_scripts_lease_rules);
    suite_add_tcase(s, core);
    return s;
}
