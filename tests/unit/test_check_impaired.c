/* test_check_impaired.c — the impaired periods the checkers leave out
 * (impaired.c), from fault lines and the topology: what each fault cuts,
 * for whom and until when, and the liveness checker leaving them out. */
#include <string.h>

#include "sim/checkers/checkers_int.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)

static char *const names[] = {"lock"};

/* Parses a scenario of two clients with faults (text after [faults]) on
 * `redis` (the [redis] lines). */
static void load(scenario *sc, const char *redis, const char *faults)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[scenario]\nduration = 60s\n[redis]\n%s\n[protocol]\nname = redisson.lock\n"
             "[clients]\ncount = 2\n[faults]\n%s\n",
             redis, faults);
    scn_error err;
    ck_assert_msg(scn_load_string("i.scn", text, sc, &err) == 0, "%s", err.msg);
}

static check_impaired *build(const scenario *sc, int64_t reconnect_us)
{
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(60000), .s = sc,
                      .reconnect_us = reconnect_us};
    return check_impaired_build(&in);
}

/* Client c's periods are exactly the n pairs of want (ms). */
static void expect_periods(const check_impaired *im, int c, const int64_t *want, size_t n, unsigned kinds)
{
    size_t got;
    const check_period *v = check_impaired_of(im, c, 0, &got);
    ck_assert_uint_eq(got, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(v[i].from_us, MS(want[2 * i]));
        ck_assert_int_eq(v[i].to_us, want[2 * i + 1] < 0 ? INT64_MAX : MS(want[2 * i + 1]));
        ck_assert_uint_eq(v[i].kinds, kinds);
    }
}

START_TEST(partition_cuts_its_client_only)
{
    scenario sc;
    load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=5s\nat = 20s partition c2|redis0\nat = 23s heal\n");
    check_impaired *im = build(&sc, 0);
    expect_periods(im, 1, (const int64_t[]){1000, 6000}, 1, CHECK_IMP_PARTITION);
    expect_periods(im, 2, (const int64_t[]){20000, 23000}, 1, CHECK_IMP_PARTITION);
    ck_assert(check_impaired_at(im, 1, 0, MS(5999)));
    ck_assert(!check_impaired_at(im, 1, 0, MS(6000)));
    check_impaired_free(im);
    /* The bound starts again where the partition ends, reconnect or not. */
    im = build(&sc, MS(7000));
    expect_periods(im, 1, (const int64_t[]){1000, 6000}, 1, CHECK_IMP_PARTITION);
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

START_TEST(delay_counts_beyond_the_bound)
{
    scenario sc;
    /* 5 x 1.3 s is over the 1 s bound: slow until 2 x 1.3 s after it ends;
     * 5 x 0.15 s is not; two rules of 150 ms add up to 300 ms (1.5 s);
     * 5 x 0.2 s is the bound (a waiter whose wait began in the stretch
     * subscribes and tries again: five crossings). */
    load(&sc, "nodes = 1",
         "at = 1s delay link=c1-redis0 by=1300ms for=15s\nat = 30s delay link=c2-redis0 by=150ms for=10s\n"
         "at = 35s delay link=c2-redis0 by=150ms for=2s\nat = 45s delay link=c2-redis0 by=200ms for=2s\n");
    check_impaired *im = build(&sc, MS(7000));
    expect_periods(im, 1, (const int64_t[]){1000, 18600}, 1, CHECK_IMP_DELAY);
    expect_periods(im, 2, (const int64_t[]){35000, 37600, 45000, 47400}, 2, CHECK_IMP_DELAY);
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

START_TEST(node_crash_until_restart_or_failover)
{
    scenario sc;
    /* No replica: down from the crash to the restart, for every client. */
    load(&sc, "nodes = 1", "at = 2s crash node=redis0\nat = 5s restart node=redis0\n");
    check_impaired *im = build(&sc, MS(1000));
    expect_periods(im, 1, (const int64_t[]){2000, 6000}, 1, CHECK_IMP_NODE_CRASH);
    expect_periods(im, 2, (const int64_t[]){2000, 6000}, 1, CHECK_IMP_NODE_CRASH);
    check_impaired_free(im);
    scn_free(&sc);
    /* A replica: Sentinel promotes it after down-after (5 s) and clients
     * learn it after discovery (1 s); then a partition from the old master
     * cuts nothing, one from the new master does. */
    load(&sc, "nodes = 1\nreplicas = 1",
         "at = 2s crash node=redis0\nat = 20s partition c1|redis0 for=2s\n"
         "at = 30s partition c2|redis0.r1 for=2s\nat = 40s restart node=redis0\n");
    im = build(&sc, 0);
    size_t n;
    const check_period *v = check_impaired_of(im, 1, 0, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(v[0].from_us, MS(2000));
    ck_assert_int_eq(v[0].to_us, MS(8000)); /* down 2..7, failover 7..8 */
    ck_assert_uint_eq(v[0].kinds, CHECK_IMP_NODE_CRASH | CHECK_IMP_FAILOVER);
    v = check_impaired_of(im, 2, 0, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(v[1].from_us, MS(30000));
    ck_assert_int_eq(v[1].to_us, MS(32000));
    ck_assert_uint_eq(v[1].kinds, CHECK_IMP_PARTITION);
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

/* A paused replica holds every synced script for WAIT's timeout (and a
 * NoSyncedSlavesException): it cuts every client of the group while the
 * scripts are synced, nobody otherwise. A crashed one holds only the
 * scripts sent before its crash (they wait for its acknowledgement until
 * WAIT's 1 s timeout); the later ones ask WAIT only for the replicas
 * still connected: 10 s to 11 s, not to its restart at 12 s. */
START_TEST(paused_replica_cuts_synced_scripts)
{
    scenario sc;
    load(&sc, "nodes = 1\nreplicas = 1",
         "at = 2s pause node=redis0.r1 for=3s\nat = 10s crash node=redis0.r1\nat = 12s restart node=redis0.r1\n");
    check_impaired *im = build(&sc, 0);
    expect_periods(im, 1, NULL, 0, 0);
    check_impaired_free(im);
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(60000), .s = &sc,
                      .synced = 1, .reconnect_us = MS(500)};
    im = check_impaired_build(&in);
    for (int c = 1; c <= 2; c++) {
        size_t n;
        const check_period *v = check_impaired_of(im, c, 0, &n);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(v[0].from_us, MS(2000));
        ck_assert_int_eq(v[0].to_us, MS(5000));
        ck_assert_uint_eq(v[0].kinds, CHECK_IMP_NODE_PAUSE);
        ck_assert_int_eq(v[1].from_us, MS(10000));
        ck_assert_int_eq(v[1].to_us, MS(11000)); /* no reconnect: no connection of the clients was lost */
        ck_assert_uint_eq(v[1].kinds, CHECK_IMP_NODE_CRASH);
    }
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

/* c1 is paused from 1 s to 4 s; the master crashes at 2 s and is back at
 * 2.5 s. c2 reconnects 1 s after the restart (to 3.5 s); c1 learns its
 * connections dropped only when it resumes, and reconnects 1 s after
 * that (to 5 s), not by 3.5 s (its pause's end was taken as its last). */
START_TEST(paused_client_reconnects_after_it_resumes)
{
    scenario sc;
    load(&sc, "nodes = 1", "at = 1s pause client=1 for=3s\nat = 2s crash node=redis0\nat = 2.5s restart node=redis0\n");
    check_impaired *im = build(&sc, MS(1000));
    expect_periods(im, 1, (const int64_t[]){1000, 5000}, 1, CHECK_IMP_PAUSE | CHECK_IMP_NODE_CRASH);
    expect_periods(im, 2, (const int64_t[]){2000, 3500}, 1, CHECK_IMP_NODE_CRASH);
    check_impaired_free(im);
    scn_free(&sc);
    /* A crash before the pause: noticed at once, nothing after it. */
    load(&sc, "nodes = 1", "at = 1s crash node=redis0\nat = 1.5s restart node=redis0\nat = 2s pause client=1 for=3s\n");
    im = build(&sc, MS(1000));
    expect_periods(im, 1, (const int64_t[]){1000, 5000}, 1, CHECK_IMP_PAUSE | CHECK_IMP_NODE_CRASH);
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

START_TEST(pause_disconnect_and_drop_reply)
{
    scenario sc;
    load(&sc, "nodes = 1",
         "at = 1s pause client=1 for=2s\nat = 10s disconnect client=2\nat = 20s drop-reply client=2 p=0.5 for=1s\n"
         "at = 30s drop-pubsub client=1 p=1 for=5s\nat = 40s pause node=redis0 for=1s\n");
    check_impaired *im = build(&sc, MS(500)); /* a 500 ms reconnect */
    size_t n;
    const check_period *v = check_impaired_of(im, 1, 0, &n);
    ck_assert_uint_eq(n, 2); /* lost pub/sub messages are the lock's to survive */
    ck_assert_int_eq(v[0].from_us, MS(1000));
    ck_assert_int_eq(v[0].to_us, MS(3000));
    ck_assert_uint_eq(v[0].kinds, CHECK_IMP_PAUSE);
    ck_assert_int_eq(v[1].from_us, MS(40000));
    ck_assert_int_eq(v[1].to_us, MS(41000));
    ck_assert_uint_eq(v[1].kinds, CHECK_IMP_NODE_PAUSE);
    v = check_impaired_of(im, 2, 0, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(v[0].kinds, CHECK_IMP_DISCONNECT);
    ck_assert_int_eq(v[0].to_us, MS(10500));
    ck_assert_uint_eq(v[1].kinds, CHECK_IMP_DROP_REPLY);
    ck_assert_int_eq(v[1].to_us, MS(21000));
    /* The stretches that count in [0, 50s) for client 2. */
    int64_t t = 0, a, b;
    ck_assert(check_impaired_next(im, 2, 0, &t, MS(50000), &a, &b));
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(b, MS(10000));
    ck_assert(check_impaired_next(im, 2, 0, &t, MS(50000), &a, &b));
    ck_assert_int_eq(a, MS(10500));
    ck_assert_int_eq(b, MS(20000));
    unsigned kinds = 0;
    ck_assert_int_eq(check_impaired_within(im, 2, 0, 0, MS(50000), &kinds), MS(500 + 1000 + 1000));
    ck_assert_uint_eq(kinds, CHECK_IMP_DISCONNECT | CHECK_IMP_DROP_REPLY | CHECK_IMP_NODE_PAUSE);
    check_impaired_free(im);
    scn_free(&sc);
}
END_TEST

/* A semaphore's waiter, the permit there all along, cut off from 1 s to
 * 3 s by a partition or a drop-reply rule: a command it sent into that
 * is resent only after its reply timeout (3 s) and the retry delay (up to
 * 2 s), so it may be answered within the bound and that resend grace
 * (check_resend_grace: 5 s) of the cut's end: 2.5 s after it is on time,
 * 4.5 s too (blamed when the semaphore's grace left the retry delay
 * out), 6.5 s late. */
START_TEST(permits_liveness_gives_a_resend_grace)
{
    static const char *const faults[] = {"at = 1s partition c1|nodes for=2s\n",
                                         "at = 1s drop-reply client=1 p=1 for=2s\n"};
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 3; c++) {
            history h;
            hist_init(&h);
            hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_SET, .value = 1, .aux = 1});
            hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_COUNTER, .value = 1, .aux = 1});
            hist_add(&h, &(hist_event){.t_us = MS(1500), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1,
                                       .inc = 1, .thread = 1, .n = 1, .seq = 1});
            int64_t ok = MS(5500 + 2000 * c);
            hist_add(&h, &(hist_event){.t_us = ok, .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                       .thread = 1, .n = 1, .seq = 1});
            hist_add(&h, &(hist_event){.t_us = ok, .kind = HIST_INFO, .op = HOP_COUNTER, .value = 0, .aux = 1});
            scenario sc;
            load(&sc, "nodes = 1", faults[f]);
            ck_assert_int_eq(sc.timeout_us, MS(3000));
            check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(12000),
                              .s = &sc, .reply_wait_us = MS(3000)};
            ck_assert_int_eq(check_resend_grace(&in), MS(5000));
            check_result r;
            check_result_init(&r);
            check_all(&h, &in, CHECK_INV(SCN_INV_PERMITS), &r);
            int late = c == 2;
            ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (late ? CHECK_VIOLATED : CHECK_HELD), "fault %d case %d",
                          f, c);
            if (late) ck_assert_ptr_nonnull(strstr(r.v[0].detail, "c1.t1 waited 6500ms for 1 permit(s)"));
            check_result_free(&r);
            scn_free(&sc);
            hist_free(&h);
        }
}
END_TEST

START_TEST(no_scenario_no_periods)
{
    check_input in = {.nlocks = 1, .names = names};
    check_impaired *im = check_impaired_build(&in);
    int64_t t = MS(1), a, b;
    ck_assert(check_impaired_next(im, 1, 0, &t, MS(9), &a, &b));
    ck_assert_int_eq(a, MS(1));
    ck_assert_int_eq(b, MS(9));
    ck_assert(!check_impaired_next(im, 1, 0, &t, MS(9), &a, &b));
    ck_assert(!check_impaired_at(NULL, 1, 0, 0));
    check_impaired_free(im);
}
END_TEST

/* A waiter whose lock is free from 2 s: 7.5 s of wait judged with and
 * without a partition that cuts it off from 1 s to 6 s (the 3.5 s left
 * after it are within the bound, the reply timeout and the retry delay of
 * a command lost in it), and one from 1 s to 3 s (6.5 s left: late). */
START_TEST(liveness_leaves_the_partition_out)
{
    history h;
    hist_init(&h);
    hist_add(&h, &(hist_event){.t_us = MS(1), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0, .aux = INT64_MAX,
                               .client = 2, .inc = 1, .thread = 1});
    hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                               .thread = 1, .aux = -1, .seq = 1});
    hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
    hist_add(&h, &(hist_event){.t_us = MS(9500), .kind = HIST_FAIL, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                               .thread = 1, .seq = 1, .err = "timeout"});
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000)};
    check_result r;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_str_eq(r.v[0].detail, "c1.t1 waited 7500ms for lock while it was free in the store "
                                    "(free from 2.000s; bound 1000ms)");
    check_result_free(&r);
    scenario sc;
    load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=5s\n");
    in.s = &sc;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_HELD);
    check_result_free(&r);
    /* A shorter partition: 1 s of the wait is cut, 6.5 s still count. */
    scn_free(&sc);
    load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=2s\n");
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], CHECK_VIOLATED);
    ck_assert_str_eq(r.v[0].detail, "c1.t1 waited 6500ms for lock while it was free in the store "
                                    "(free from 3.000s; bound 1000ms); 1000ms of it not counted: the waiter "
                                    "could not reach the master (partition)");
    check_result_free(&r);
    scn_free(&sc);
    hist_free(&h);
}
END_TEST

/* A latch open from 0.5 s; c1's await, invoked at 2 s inside a partition
 * of c1 from 1 s to 4 s, returns at end_ms. Its GET sent into the
 * partition is resent only after the reply timeout (3 s) and a retry
 * delay (at most 2 s): a stretch after the partition up to 1 + 5 s is
 * not late, unless the awaiter was waiting on its gate (HOP_PARK at
 * park_ms), with nothing in flight. */
static int latch_late(int64_t end_ms, int64_t park_ms)
{
    history h;
    hist_init(&h);
    hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_SET, .value = 1, .aux = 1});
    hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_COUNTER, .value = 1, .aux = 1});
    hist_add(&h, &(hist_event){.t_us = MS(500), .kind = HIST_INVOKE, .op = HOP_COUNTDOWN, .client = 2, .inc = 1,
                               .thread = 1, .seq = 1});
    hist_add(&h, &(hist_event){.t_us = MS(500), .kind = HIST_INFO, .op = HOP_COUNTER});
    hist_add(&h, &(hist_event){.t_us = MS(501), .kind = HIST_OK, .op = HOP_COUNTDOWN, .client = 2, .inc = 1,
                               .thread = 1, .seq = 1});
    hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INVOKE, .op = HOP_AWAIT, .client = 1, .inc = 1,
                               .thread = 1, .seq = 1});
    if (park_ms >= 0)
        hist_add(&h, &(hist_event){.t_us = MS(park_ms), .kind = HIST_INFO, .op = HOP_PARK, .client = 1, .inc = 1,
                                   .thread = 1, .seq = 1, .value = 1});
    hist_add(&h, &(hist_event){.t_us = MS(end_ms), .kind = HIST_OK, .op = HOP_AWAIT, .client = 1, .inc = 1,
                               .thread = 1, .seq = 1, .value = 1});
    scenario sc;
    load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=3s\n");
    check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000), .s = &sc};
    check_result r;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_LATCH), &r);
    int late = r.verdict[SCN_INV_LIVENESS] == CHECK_VIOLATED;
    ck_assert_int_eq(r.verdict[SCN_INV_LATCH], CHECK_HELD);
    check_result_free(&r);
    scn_free(&sc);
    hist_free(&h);
    return late;
}

START_TEST(latch_liveness_waits_for_a_resend)
{
    ck_assert(!latch_late(9500, -1));  /* 5.5 s after the partition: its GET's resend */
    ck_assert(latch_late(10500, -1));  /* 6.5 s: over the bound and the resend */
    ck_assert(latch_late(9500, 2500)); /* on its gate from 2.5 s: nothing to resend */
    ck_assert(!latch_late(4900, 2500)); /* within the bound after the partition */
}
END_TEST

/* A command sent into a partition is resent only after its reply timeout
 * (3 s) and the retry delay (up to 2 s) after it: a waiter whose lock is
 * free from 2 s and that is cut off from 1 s to 6 s may get it 5.5 s
 * after the partition (within the bound, the timeout and the delay), not
 * 6.5 s after (late), nor, with a retry-interval of 0, 4.5 s after. */
START_TEST(liveness_allows_the_resend_after_a_partition)
{
    static const struct {
        int64_t ok_ms, retry_interval_us;
        int late;
    } cases[] = {{11500, -1, 0}, {12500, -1, 1}, {10500, 0, 1}, {9900, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        history h;
        hist_init(&h);
        hist_add(&h, &(hist_event){.t_us = MS(1), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0, .aux = INT64_MAX,
                                   .client = 2, .inc = 1, .thread = 1});
        hist_add(&h, &(hist_event){.t_us = MS(1500), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                   .thread = 1, .aux = -1, .seq = 1});
        hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
        hist_add(&h, &(hist_event){.t_us = MS(cases[i].ok_ms), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1,
                                   .inc = 1, .thread = 1, .seq = 1, .value = 1});
        scenario sc;
        load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=5s\n");
        ck_assert_int_eq(sc.timeout_us, MS(3000));
        sc.retry_interval_us = cases[i].retry_interval_us;
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000), .s = &sc};
        check_result r;
        check_result_init(&r);
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (cases[i].late ? CHECK_VIOLATED : CHECK_HELD), "case %zu", i);
        check_result_free(&r);
        scn_free(&sc);
        hist_free(&h);
    }
}
END_TEST

/* The resend grace is for what a waiter sent into an impairment of its
 * own wait: c1 is cut off from 1 s to 2 s; the lock (or the semaphore's
 * one permit) is c2's until 3.5 s, then free; c1 gets it at 5.5 s, 2 s
 * later. An acquire invoked at 1.5 s (in the partition) may have lost a
 * command there, resent only after its reply timeout and retry delay: on
 * time. One invoked at 3 s, after the partition, lost nothing: late
 * (excused before, when any impairment within a grace of the free
 * stretch counted). */
START_TEST(resend_grace_only_for_an_impairment_of_its_wait)
{
    for (int sem = 0; sem <= 1; sem++)
        for (int after = 0; after <= 1; after++) {
            history h;
            hist_init(&h);
            if (sem) {
                hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_SET, .value = 1, .aux = 1});
                hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_COUNTER, .value = 0, .aux = 1});
            } else {
                hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_STORE, .lock = 0,
                                           .aux = INT64_MAX, .client = 2, .inc = 1, .thread = 1});
            }
            hist_add(&h, &(hist_event){.t_us = MS(after ? 3000 : 1500), .kind = HIST_INVOKE, .op = HOP_ACQUIRE,
                                       .client = 1, .inc = 1, .thread = 1, .n = 1, .aux = -1, .seq = 1});
            if (sem)
                hist_add(&h, &(hist_event){.t_us = MS(3500), .kind = HIST_INFO, .op = HOP_COUNTER, .value = 1,
                                           .aux = 1});
            else
                hist_add(&h, &(hist_event){.t_us = MS(3500), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
            hist_add(&h, &(hist_event){.t_us = MS(5500), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                       .thread = 1, .n = 1, .seq = 1, .value = 1});
            if (sem)
                hist_add(&h, &(hist_event){.t_us = MS(5500), .kind = HIST_INFO, .op = HOP_COUNTER, .value = 0,
                                           .aux = 1});
            scenario sc;
            load(&sc, "nodes = 1", "at = 1s partition c1|nodes for=1s\n");
            check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(10000),
                              .s = &sc};
            check_result r;
            check_result_init(&r);
            check_all(&h, &in, CHECK_INV(sem ? SCN_INV_PERMITS : SCN_INV_LIVENESS), &r);
            ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (after ? CHECK_VIOLATED : CHECK_HELD), "sem %d after %d", sem,
                          after);
            check_result_free(&r);
            scn_free(&sc);
            hist_free(&h);
        }
}
END_TEST

/* A fail-reply fault loses the reply to c1's acquire at 1.9 s (no fault
 * line says when: the history does); the lock is free from 2 s, and c1's
 * command goes again only after its 3 s reply timeout and a retry delay:
 * an ok at 6.5 s is within the bound and them. Without the lost reply it
 * is late. */
START_TEST(liveness_allows_the_resend_after_a_lost_reply)
{
    for (int lost = 0; lost <= 1; lost++) {
        history h;
        hist_init(&h);
        hist_add(&h, &(hist_event){.t_us = MS(1), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0, .aux = INT64_MAX,
                                   .client = 2, .inc = 1, .thread = 1});
        hist_add(&h, &(hist_event){.t_us = MS(1500), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                   .thread = 1, .aux = 10000000, .seq = 1});
        if (lost)
            hist_add(&h, &(hist_event){.t_us = MS(1900), .kind = HIST_INFO, .op = HOP_REPLY_LOST, .client = 1,
                                       .inc = 1, .thread = 1, .lock = 0, .seq = 1});
        hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
        hist_add(&h, &(hist_event){.t_us = MS(6500), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                   .thread = 1, .seq = 1, .value = 1});
        scenario sc;
        load(&sc, "nodes = 1", "");
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000), .s = &sc};
        check_result r;
        check_result_init(&r);
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (lost ? CHECK_HELD : CHECK_VIOLATED), "lost %d", lost);
        check_result_free(&r);
        scn_free(&sc);
        hist_free(&h);
    }
}
END_TEST

/* A lock with a local lock: c1.t1 holds it from 0.5 s; its release is
 * invoked at 2 s (the store is free from then) and returns at 8 s; c1.t2,
 * waiting from 1 s, gets it at 8.2 s. Its process's local lock kept it
 * out until t1's release returned: late only when the lock has none. A
 * waiter of another process (c2) is late either way. */
START_TEST(liveness_local_lock_waits_for_the_siblings_release)
{
    for (int local = 0; local <= 1; local++)
        for (int waiter = 1; waiter <= 2; waiter++) {
            history h;
            hist_init(&h);
            hist_add(&h, &(hist_event){.t_us = MS(500), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = 1,
                                       .inc = 1, .thread = 1, .seq = 1});
            hist_add(&h, &(hist_event){.t_us = MS(500), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0,
                                       .aux = INT64_MAX, .client = 1, .inc = 1, .thread = 1});
            hist_add(&h, &(hist_event){.t_us = MS(500), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = 1, .inc = 1,
                                       .thread = 1, .seq = 1, .value = 1});
            hist_add(&h, &(hist_event){.t_us = MS(1000), .kind = HIST_INVOKE, .op = HOP_ACQUIRE, .client = waiter,
                                       .inc = 1, .thread = 2, .seq = 2});
            hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INVOKE, .op = HOP_RELEASE, .client = 1,
                                       .inc = 1, .thread = 1, .seq = 3, .value = 0});
            hist_add(&h, &(hist_event){.t_us = MS(2000), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
            hist_add(&h, &(hist_event){.t_us = MS(8000), .kind = HIST_FAIL, .op = HOP_RELEASE, .client = 1,
                                       .inc = 1, .thread = 1, .seq = 3, .err = "not the owner"});
            hist_add(&h, &(hist_event){.t_us = MS(8200), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0,
                                       .aux = INT64_MAX, .client = waiter, .inc = 1, .thread = 2});
            hist_add(&h, &(hist_event){.t_us = MS(8200), .kind = HIST_OK, .op = HOP_ACQUIRE, .client = waiter,
                                       .inc = 1, .thread = 2, .seq = 2, .value = 1});
            check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000),
                              .local_lock = local};
            check_result r;
            check_result_init(&r);
            check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
            int late = !local || waiter == 2;
            ck_assert_msg(r.verdict[SCN_INV_LIVENESS] == (late ? CHECK_VIOLATED : CHECK_HELD), "local %d waiter c%d",
                          local, waiter);
            check_result_free(&r);
            hist_free(&h);
        }
}
END_TEST

static void fev(history *h, int64_t t_ms, hist_kind kind, hist_op op, int client, int64_t value)
{
    hist_add(h, &(hist_event){.t_us = MS(t_ms), .kind = kind, .op = op, .client = client, .inc = 1, .thread = 1,
                              .lock = 0, .value = value});
}

static void fgrant(history *h, int64_t t_ms, int client)
{
    hist_add(h, &(hist_event){.t_us = MS(t_ms), .kind = HIST_INFO, .op = HOP_STORE, .client = client, .inc = 1,
                              .thread = 1, .lock = 0, .value = 1, .aux = INT64_MAX});
    fev(h, t_ms, HIST_OK, HOP_ACQUIRE, client, 1);
}

/* c1 holds until 10 s; c2 queues first, then c3; c3 is granted at 10 s
 * while c2 still waits: an overtake, unless c2 was cut off then. Then c3
 * dies holding the lock for ever, c2 still waiting at the end: a
 * deadlock, unless the master is down at the end. */
START_TEST(fair_and_deadlock_leave_the_impaired_out)
{
    history h;
    hist_init(&h);
    fev(&h, 0, HIST_INVOKE, HOP_ACQUIRE, 1, 0);
    fgrant(&h, 1, 1);
    fev(&h, 1000, HIST_INVOKE, HOP_ACQUIRE, 2, 0);
    fev(&h, 1001, HIST_INFO, HOP_QUEUED, 2, 1);
    fev(&h, 2000, HIST_INVOKE, HOP_ACQUIRE, 3, 0);
    fev(&h, 2001, HIST_INFO, HOP_QUEUED, 3, 2);
    fev(&h, 10000, HIST_INVOKE, HOP_RELEASE, 1, 0);
    fgrant(&h, 10000, 3);
    check_input in = {.nlocks = 1, .names = names, .starvation_bound = 0, .end_us = MS(20000)};
    unsigned fair = CHECK_INV(SCN_INV_FIFO) | CHECK_INV(SCN_INV_STARVATION);
    check_result r;
    check_result_init(&r);
    check_all(&h, &in, fair, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_VIOLATED);
    check_result_free(&r);
    scenario sc;
    load(&sc, "nodes = 1", "at = 9s partition c2|nodes for=2s\n");
    in.s = &sc;
    check_result_init(&r);
    check_all(&h, &in, fair, &r);
    ck_assert_int_eq(r.verdict[SCN_INV_FIFO], CHECK_HELD);
    check_result_free(&r);
    in.s = NULL;
    scn_free(&sc);
    /* Deadlock: a dead holder keeps the lock for ever; at the end the
     * master is down: the store seen may not be what it serves again. */
    fev(&h, 12000, HIST_INFO, HOP_CRASH, 3, 0);
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    check_result_free(&r);
    load(&sc, "nodes = 1", "at = 15s crash node=redis0\n");
    in.s = &sc;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_HELD);
    check_result_free(&r);
    scn_free(&sc);
    /* Only cut off at the end: the dead holder's lock is still there. */
    load(&sc, "nodes = 1", "at = 15s partition c2|nodes\n");
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_DEADLOCK), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    check_result_free(&r);
    scn_free(&sc);
    hist_free(&h);
}
END_TEST

/* Fair lock: c1 holds; c2 queues at 1 s, c3 behind it at 2 s; c2 is cut
 * off from 3 s to 4 s (a partition, or its replies dropped). What it sent
 * then is resent only after its reply timeout (3 s) and the retry delay
 * (up to 2 s): until 9 s it may not know its turn came. c3 granted at
 * 8.5 s is no overtake of it (blamed when the fair checker's grace was
 * the reply timeout alone); at 9.5 s it is. */
START_TEST(fifo_resend_grace_after_impairment)
{
    static const char *const faults[] = {"at = 3s partition c2|nodes for=1s\n",
                                         "at = 3s drop-reply client=2 p=1 for=1s\n"};
    for (int f = 0; f < 2; f++)
        for (int late = 0; late <= 1; late++) {
            history h;
            hist_init(&h);
            fev(&h, 0, HIST_INVOKE, HOP_ACQUIRE, 1, 0);
            fgrant(&h, 1, 1);
            fev(&h, 1000, HIST_INVOKE, HOP_ACQUIRE, 2, 0);
            fev(&h, 1001, HIST_INFO, HOP_QUEUED, 2, 1);
            fev(&h, 2000, HIST_INVOKE, HOP_ACQUIRE, 3, 0);
            fev(&h, 2001, HIST_INFO, HOP_QUEUED, 3, 2);
            int64_t at = late ? 9500 : 8500;
            fev(&h, at, HIST_INVOKE, HOP_RELEASE, 1, 0);
            fgrant(&h, at, 3);
            scenario sc;
            load(&sc, "nodes = 1", faults[f]);
            check_input in = {.nlocks = 1, .names = names, .end_us = MS(20000), .s = &sc};
            ck_assert_int_eq(check_resend_grace(&in), MS(5000));
            check_result r;
            check_result_init(&r);
            check_all(&h, &in, CHECK_INV(SCN_INV_FIFO), &r);
            ck_assert_msg(r.verdict[SCN_INV_FIFO] == (late ? CHECK_VIOLATED : CHECK_HELD), "fault %d late %d", f,
                          late);
            check_result_free(&r);
            scn_free(&sc);
            hist_free(&h);
        }
}
END_TEST

/* Starvation: c2 waits from 1 s to the end while c3 is granted three
 * times; two of the grants come while it is cut off. */
START_TEST(starvation_counts_reachable_grants)
{
    history h;
    hist_init(&h);
    fev(&h, 1000, HIST_INVOKE, HOP_ACQUIRE, 2, 0);
    for (int i = 0; i < 3; i++) {
        fev(&h, 2000 + 2000 * i, HIST_INVOKE, HOP_ACQUIRE, 3, 0);
        fgrant(&h, 2001 + 2000 * i, 3);
        fev(&h, 2500 + 2000 * i, HIST_INVOKE, HOP_RELEASE, 3, 0);
        hist_add(&h, &(hist_event){.t_us = MS(2500 + 2000 * i), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
    }
    check_input in = {.nlocks = 1, .names = names, .starvation_bound = 2, .end_us = MS(20000)};
    check_result r;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_STARVATION), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_VIOLATED);
    check_result_free(&r);
    scenario sc;
    load(&sc, "nodes = 1", "at = 3s partition c2|nodes for=2s\n");
    in.s = &sc;
    check_result_init(&r);
    check_all(&h, &in, CHECK_INV(SCN_INV_STARVATION), &r);
    ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], CHECK_HELD);
    check_result_free(&r);
    scn_free(&sc);
    hist_free(&h);
}
END_TEST

/* A waiter cut off is also out of the race for a reply timeout (3 s)
 * after the partition heals: what it sent into it is sent again only
 * then. c2 waits from 1 s; cut off from 1.5 s to 2.5 s; c3 is granted
 * three times from 3 s to 4 s (within the timeout: none counts), and
 * three more from 10 s (they count: the bound of 2 is broken). */
START_TEST(starvation_resend_grace_after_impairment)
{
    for (int late = 0; late <= 1; late++) {
        history h;
        hist_init(&h);
        fev(&h, 1000, HIST_INVOKE, HOP_ACQUIRE, 2, 0);
        for (int i = 0; i < 3; i++) {
            int64_t at = (late ? 10000 : 3000) + 500 * i;
            fev(&h, at, HIST_INVOKE, HOP_ACQUIRE, 3, 0);
            fgrant(&h, at + 1, 3);
            fev(&h, at + 100, HIST_INVOKE, HOP_RELEASE, 3, 0);
            hist_add(&h, &(hist_event){.t_us = MS(at + 100), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
        }
        scenario sc;
        load(&sc, "nodes = 1", "at = 1.5s partition c2|nodes for=1s\n");
        check_input in = {.nlocks = 1, .names = names, .starvation_bound = 2, .end_us = MS(20000), .s = &sc};
        check_result r;
        check_result_init(&r);
        check_all(&h, &in, CHECK_INV(SCN_INV_STARVATION), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_STARVATION], late ? CHECK_VIOLATED : CHECK_HELD);
        check_result_free(&r);
        scn_free(&sc);
        hist_free(&h);
    }
}
END_TEST

/* A fair queue keeps the place of a head that is cut off (and then
 * cannot take its turn) up to its deadline: c1 holds until 1 s, c2
 * queues at 0.2 s, c1 queues behind it at 1.1 s; c2 is cut off from
 * 0.5 s to 6 s and takes the lock at 6.05 s, c1 at 6.2 s. The lock is
 * free from 1 s, but not to c1 while c2's place is kept: no lost wake-up
 * where the protocol declares its queue wait, one where it does not. */
static int64_t wait_10s(const void *ud, int64_t wait_us)
{
    (void)ud;
    (void)wait_us;
    return MS(10000);
}

START_TEST(liveness_keeps_an_impaired_heads_turn)
{
    for (int declared = 0; declared <= 1; declared++) {
        history h;
        hist_init(&h);
        hist_add(&h, &(hist_event){.t_us = 0, .kind = HIST_INFO, .op = HOP_STORE, .client = 1, .inc = 1,
                                   .thread = 1, .lock = 0, .value = 1, .aux = MS(60000)});
        fev(&h, 200, HIST_INVOKE, HOP_ACQUIRE, 2, 0);
        fev(&h, 200, HIST_INFO, HOP_QUEUED, 2, 1);
        hist_add(&h, &(hist_event){.t_us = MS(1000), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
        fev(&h, 1100, HIST_INVOKE, HOP_ACQUIRE, 1, 0);
        fev(&h, 1100, HIST_INFO, HOP_QUEUED, 1, 2);
        fev(&h, 6050, HIST_INFO, HOP_DEQUEUED, 2, 1);
        fgrant(&h, 6050, 2);
        fev(&h, 6100, HIST_INVOKE, HOP_RELEASE, 2, 0);
        hist_add(&h, &(hist_event){.t_us = MS(6100), .kind = HIST_INFO, .op = HOP_STORE, .lock = 0});
        fev(&h, 6200, HIST_INFO, HOP_DEQUEUED, 1, 1);
        fgrant(&h, 6200, 1);
        scenario sc;
        load(&sc, "nodes = 1", "at = 0.5s partition c2|nodes for=5.5s\n");
        check_input in = {.nlocks = 1, .names = names, .liveness_bound_us = MS(1000), .end_us = MS(20000), .s = &sc};
        if (declared) in.queue_wait_us = wait_10s;
        check_result r;
        check_result_init(&r);
        check_all(&h, &in, CHECK_INV(SCN_INV_LIVENESS), &r);
        ck_assert_int_eq(r.verdict[SCN_INV_LIVENESS], declared ? CHECK_HELD : CHECK_VIOLATED);
        check_result_free(&r);
        scn_free(&sc);
        hist_free(&h);
    }
}
END_TEST

Suite *check_impaired_suite(void)
{
    Suite *s = suite_create("check_impaired");
    TCase *core = tcase_create("core");
    tcase_add_test(core, partition_cuts_its_client_only);
    tcase_add_test(core, delay_counts_beyond_the_bound);
    tcase_add_test(core, node_crash_until_restart_or_failover);
    tcase_add_test(core, pause_disconnect_and_drop_reply);
    tcase_add_test(core, paused_replica_cuts_synced_scripts);
    tcase_add_test(core, no_scenario_no_periods);
    tcase_add_test(core, fifo_resend_grace_after_impairment);
    tcase_add_test(core, paused_client_reconnects_after_it_resumes);
    tcase_add_test(core, resend_grace_only_for_an_impairment_of_its_wait);
    tcase_add_test(core, permits_liveness_gives_a_resend_grace);
    tcase_add_test(core, liveness_leaves_the_partition_out);
    tcase_add_test(core, latch_liveness_waits_for_a_resend);
    tcase_add_test(core, liveness_allows_the_resend_after_a_partition);
    tcase_add_test(core, liveness_allows_the_resend_after_a_lost_reply);
    tcase_add_test(core, liveness_local_lock_waits_for_the_siblings_release);
    tcase_add_test(core, fair_and_deadlock_leave_the_impaired_out);
    tcase_add_test(core, starvation_counts_reachable_grants);
    tcase_add_test(core, starvation_resend_grace_after_impairment);
    tcase_add_test(core, liveness_keeps_an_impaired_heads_turn);
    suite_add_tcase(s, core);
    return s;
}
