/* test_contract.c — the lock's contract: each protocol's claims, the
 * renewal margin, a fault line judged within or beyond it (with its
 * reason), and the swarm's draw kept within it ([swarm] within-contract)
 * without moving any other draw of the seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "tests/unit/tests.h"

static void load(const char *text, scenario *s)
{
    scn_error err;
    if (scn_load_string("contract.scn", text, s, &err) != 0) ck_abort_msg("%s:%d: %s", err.path, err.line, err.msg);
}

/* A scenario of protocol name with lease (-1: the watchdog), hold and one
 * fault line. */
static void lock_with(const char *name, const char *lease, const char *hold, const char *fault, scenario *s)
{
    char *text = NULL;
    if (asprintf(&text,
                 "[scenario]\nduration = 30s\n[redis]\nreplicas = 1\n[protocol]\nname = %s\nlease = %s\n"
                 "[clients]\ncount = 2\nhold = %s\n[faults]\n%s\n",
                 name, lease, hold, fault) < 0)
        ck_abort();
    load(text, s);
    free(text);
}

/* The one fault line of name's scenario judged against its contract. */
static int judged(const char *name, const char *lease, const char *hold, const char *fault)
{
    scenario s;
    lock_with(name, lease, hold, fault, &s);
    const proto_def *pd = proto_find(name);
    ck_assert_ptr_nonnull(pd);
    ck_assert_uint_eq(s.nsteps, 1);
    int why = fault_beyond(pd, proto_contract_of(pd), &s, &s.steps[0], proto_margin(pd, &s));
    scn_free(&s);
    return why;
}

START_TEST(the_catalogue_declares_its_claims)
{
    const proto_contract *lock = proto_contract_of(proto_find("redisson.lock"));
    ck_assert_uint_eq(lock->survives, PROTO_SURVIVES_LEASE_LOCK);
    ck_assert(!(lock->survives & SCN_NEM_CLOCK));
    ck_assert(lock->failover_synced && lock->source != NULL);
    /* Scripts that read the caller's clock claim no client clock. */
    ck_assert(!(proto_contract_of(proto_find("redisson.fairlock"))->survives & SCN_NEM_CLIENT_CLOCK));
    ck_assert(!(proto_contract_of(proto_find("redisson.expirable-semaphore"))->survives & SCN_NEM_CLIENT_CLOCK));
    /* Permits with no owner: a crashed holder's are not claimed back. */
    ck_assert(!(proto_contract_of(proto_find("redisson.semaphore"))->survives & SCN_NEM_CRASH));
    /* RedLock: independent masters, no failover. */
    ck_assert(!(proto_contract_of(proto_find("redisson.redlock"))->survives & SCN_NEM_FAILOVER));
    ck_assert(!(proto_contract_of(proto_find("redsync"))->survives & SCN_NEM_FAILOVER));
    /* A policy with no [contract]: a lease lock's, but no failover (no WAIT). */
    const proto_contract *py = proto_contract_of(proto_find("redis-py"));
    ck_assert_uint_eq(py->survives, PROTO_SURVIVES_LEASE_LOCK & ~SCN_NEM_FAILOVER);
    ck_assert(!py->failover_synced);
    char text[400];
    proto_contract_text(lock, text, sizeof text);
    ck_assert_msg(strstr(text, "pause, crash, partition") && !strstr(text, "clock,"), "%s", text);
}
END_TEST

START_TEST(the_margin_is_what_a_holder_may_be_held_up)
{
    scenario s;
    const proto_def *pd = proto_find("redisson.lock");
    lock_with("redisson.lock", "-1", "100ms", "at = 1s pause client=c1 for=1s", &s);
    ck_assert_int_eq(proto_margin(pd, &s), SIM_SEC(20)); /* the watchdog renews at a third of 30 s */
    scn_free(&s);
    lock_with("redisson.lock", "5s", "1s", "at = 1s pause client=c1 for=1s", &s);
    ck_assert_int_eq(proto_margin(pd, &s), SIM_SEC(4)); /* a fixed lease less the longest hold */
    scn_free(&s);
    lock_with("redisson.semaphore", "5s", "1s", "at = 1s pause client=c1 for=1s", &s);
    ck_assert_int_eq(proto_margin(proto_find("redisson.semaphore"), &s), INT64_MAX); /* permits have no lease */
    scn_free(&s);
}
END_TEST

START_TEST(a_line_is_judged_with_its_reason)
{
    ck_assert_int_eq(judged("redisson.lock", "5s", "1s", "at = 1s pause client=c1 for=3s"), FAULT_WITHIN);
    ck_assert_int_eq(judged("redisson.lock", "5s", "1s", "at = 1s pause client=c1 for=5s"), FAULT_BEYOND_PAUSE);
    ck_assert_int_eq(judged("redisson.lock", "5s", "1s", "at = 1s partition c1|nodes for=4500ms"),
                     FAULT_BEYOND_PARTITION);
    ck_assert_int_eq(judged("redisson.lock", "-1", "1s", "at = 1s partition c1|nodes for=10s"), FAULT_WITHIN);
    ck_assert_int_eq(judged("redisson.lock", "-1", "1s", "at = 1s clock node=redis0 jump=+10s"), FAULT_BEYOND_CLOCK);
    ck_assert_int_eq(judged("redisson.lock", "-1", "1s", "at = 1s crash node=redis0"), FAULT_BEYOND_RESTART);
    ck_assert_int_eq(judged("redisson.lock", "-1", "1s", "at = 1s failover"), FAULT_WITHIN); /* it WAITs */
    ck_assert_int_eq(judged("redisson.lock@3.11", "-1", "1s", "at = 1s failover"), FAULT_BEYOND_FAILOVER);
    /* A failover holds the clients up until they learn the new master
     * (1 s) and a refused command's resend (3 s + WAIT's 1 s): a fixed
     * lease must leave that much over the hold; the watchdog's 20 s do. */
    ck_assert_int_eq(judged("redisson.lock", "5s", "1s", "at = 1s failover"), FAULT_BEYOND_FAILOVER_HOLDUP);
    ck_assert_int_eq(judged("redisson.lock", "10s", "1s", "at = 1s failover"), FAULT_WITHIN);
    /* A disconnect costs the reconnect (1 s) and a held command's retry
     * delay (up to 2 s): a 2 s margin cannot take one, a 4 s one can. */
    ck_assert_int_eq(judged("redisson.lock", "3s", "1s", "at = 1s disconnect client=c1"), FAULT_BEYOND_DISCONNECT);
    ck_assert_int_eq(judged("redisson.lock", "5s", "1s", "at = 1s disconnect client=c1"), FAULT_WITHIN);
    /* A lost reply costs the reply timeout (3 s): a 2 s lease cannot take one. */
    ck_assert_int_eq(judged("redisson.lock", "2s", "10ms", "at = 1s drop-reply client=c1 p=50% for=100ms"),
                     FAULT_BEYOND_DROP);
    ck_assert_int_eq(judged("redisson.semaphore", "-1", "1s", "at = 1s crash client=c1"),
                     FAULT_BEYOND_KIND + 1); /* crash is the second kind */
    char why[400];
    fault_beyond_text(FAULT_BEYOND_PAUSE, why, sizeof why);
    ck_assert_msg(strstr(why, "Kleppmann"), "%s", why);
    fault_beyond_text(FAULT_BEYOND_KIND + 1, why, sizeof why);
    ck_assert_msg(!strncmp(why, "crash: ", 7), "%s", why);
}
END_TEST

/* The fault lines of name's scenario judged together (fault_beyond_first). */
static int judged_all(const char *name, const char *faults)
{
    scenario s;
    char text[600];
    snprintf(text, sizeof text,
             "[scenario]\nduration = 30s\n[redis]\nreplicas = 1\npersistence = yes\n[protocol]\nname = %s\n"
             "[clients]\ncount = 2\n[faults]\n%s\n",
             name, faults);
    load(text, &s);
    const proto_def *pd = proto_find(name);
    ck_assert_ptr_nonnull(pd);
    int why = fault_beyond_first(pd, &s, s.steps, s.nsteps, INT64_MIN, INT64_MAX);
    scn_free(&s);
    return why;
}

/* The lines of a scenario of redisson.lock (a 10 s lease, 1 s holds: a
 * 9 s margin; a lost reply costs 4 s with its WAIT) judged together. */
static int judged_lock(const char *faults)
{
    scenario s;
    lock_with("redisson.lock", "10s", "1s", faults, &s);
    const proto_def *pd = proto_find("redisson.lock");
    int why = fault_beyond_first(pd, &s, s.steps, s.nsteps, 0, INT64_MAX);
    scn_free(&s);
    return why;
}

/* The latch does not WAIT after its writes (RedissonCountDownLatch's
 * evalWriteNoRetryAsync): a failover is not claimed, nor a master crash
 * that Sentinel fails over (down for its 5 s down-after); one back in
 * time, or a replica's, is claimed. The lock WAITs: both are. */
START_TEST(a_crash_that_fails_over_is_judged_as_a_failover)
{
    ck_assert_int_eq(judged_all("redisson.latch", "at = 1s failover"), FAULT_BEYOND_FAILOVER);
    ck_assert_int_eq(judged_all("redisson.latch", "at = 1s crash node=redis0\nat = 3s restart node=redis0"),
                     FAULT_WITHIN);
    ck_assert_int_eq(judged_all("redisson.latch", "at = 1s crash node=redis0\nat = 7s restart node=redis0"),
                     FAULT_BEYOND_FAILOVER);
    ck_assert_int_eq(judged_all("redisson.latch", "at = 1s crash node=redis0"), FAULT_BEYOND_FAILOVER);
    ck_assert_int_eq(judged_all("redisson.latch", "at = 1s crash node=redis0.r1"), FAULT_WITHIN);
    ck_assert_int_eq(judged_all("redisson.lock", "at = 1s crash node=redis0"), FAULT_WITHIN);
    ck_assert_int_eq(judged_all("redisson.lock", "at = 1s failover"), FAULT_WITHIN);
}
END_TEST

/* Two cut-offs of one client, the second before a command lost in the
 * first is resent (4 s and up to 2 s of retry delay after it), hold it up
 * as one: 1 s to 8 s, and 4 s more, outlasts the 9 s margin. Apart, or
 * cutting different clients, each fits on its own. */
START_TEST(cutoffs_close_together_hold_up_as_one)
{
    ck_assert_int_eq(judged_lock("at = 1s partition c1|nodes for=3s\nat = 6s partition c1|nodes for=2s"),
                     FAULT_BEYOND_PARTITION);
    ck_assert_int_eq(judged_lock("at = 1s partition c1|nodes for=3s\nat = 11s partition c1|nodes for=2s"),
                     FAULT_WITHIN);
    ck_assert_int_eq(judged_lock("at = 1s partition c1|nodes for=3s\nat = 6s partition c2|nodes for=2s"),
                     FAULT_WITHIN);
    ck_assert_int_eq(judged_lock("at = 1s partition c1|nodes for=1s\nat = 3s partition c1|nodes for=1s"),
                     FAULT_WITHIN); /* 1 s to 4 s and 4 s: within 9 s */
    ck_assert_int_eq(judged_lock("at = 1s pause node=redis0 for=3s\nat = 6s pause node=redis0 for=2s"),
                     FAULT_BEYOND_NODE_PAUSE);
    /* A master's crash lasts until its restart, or with none until the
     * failover is learnt (5 s down-after and 1 s discovery: 6 s and 4 s
     * outlast 9 s), alone or with a client's own pause after it. */
    static const struct {
        const char *faults;
        int want;
    } crash[] = {{"at = 1s crash node=redis0\nat = 3s restart node=redis0", FAULT_WITHIN},
                 {"at = 1s crash node=redis0", FAULT_BEYOND_CRASH_OUTAGE},
                 {"at = 1s crash node=redis0\nat = 3s restart node=redis0\nat = 4s pause client=c1 for=3s",
                  FAULT_BEYOND_CRASH_OUTAGE}};
    for (size_t i = 0; i < sizeof crash / sizeof *crash; i++) {
        char *text = NULL;
        if (asprintf(&text,
                     "[scenario]\nduration = 30s\n[redis]\nreplicas = 1\npersistence = yes\n[protocol]\n"
                     "name = redisson.lock\nlease = 10s\n[clients]\ncount = 2\nhold = 1s\n[faults]\n%s\n",
                     crash[i].faults) < 0)
            ck_abort();
        scenario sc;
        load(text, &sc);
        free(text);
        const proto_def *pd = proto_find("redisson.lock");
        ck_assert_msg(fault_beyond_first(pd, &sc, sc.steps, sc.nsteps, 0, INT64_MAX) == crash[i].want, "case %zu", i);
        scn_free(&sc);
    }
}
END_TEST

/* Every seed of a within-contract swarm draws only claimed kinds, with
 * durations in half the margin, and draws every other value as the same
 * scenario without the key. */
START_TEST(the_draw_stays_within_and_moves_nothing_else)
{
    static const char *const text =
        "[scenario]\nduration = 60s\n[redis]\nreplicas = 1\n[protocol]\nname = redisson.fairlock\n[clients]\ncount = 3\n"
        "[nemesis]\nkinds = any\n[swarm]\nhold = 1ms..500ms\nlease = 2s..30s\nduration = 100ms..15s\n";
    scenario any, within;
    load(text, &any);
    char *t2 = NULL;
    if (asprintf(&t2, "%swithin-contract = yes\n", text) < 0) ck_abort();
    load(t2, &within);
    free(t2);
    const proto_def *pd = proto_find("redisson.fairlock");
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&any, seed, d1, sizeof d1);
        scenario *w = fault_swarm_draw(&within, seed, d2, sizeof d2);
        ck_assert(!(w->nemesis_kinds & ~(int)proto_contract_of(pd)->survives));
        ck_assert(!(w->nemesis_kinds & (SCN_NEM_CLOCK | SCN_NEM_CLIENT_CLOCK)));
        ck_assert_int_eq(w->nemesis_kinds & ~a->nemesis_kinds, 0);
        int64_t margin = proto_margin(pd, w);
        int64_t top = w->nemesis_duration.kind == SCN_DIST_UNIFORM ? w->nemesis_duration.b_us : w->nemesis_duration.a_us;
        if (margin != INT64_MAX && (w->nemesis_kinds & (SCN_NEM_PAUSE | SCN_NEM_PARTITION | SCN_NEM_NODE_PAUSE)))
            ck_assert_msg(top <= margin / 2, "seed %llu: %lld > %lld / 2", (unsigned long long)seed, (long long)top,
                          (long long)margin);
        if (w->nemesis_kinds & SCN_NEM_NODE_CRASH) ck_assert(w->persistence);
        /* the workload is the same draw */
        ck_assert_int_eq(w->clients, a->clients);
        ck_assert_int_eq(w->threads, a->threads);
        ck_assert_int_eq(w->lease_us, a->lease_us);
        ck_assert_int_eq(w->hold.a_us, a->hold.a_us);
        ck_assert_int_eq(w->nemesis_start_us, a->nemesis_start_us);
        fault_swarm_free(a);
        fault_swarm_free(w);
    }
    scn_free(&any);
    scn_free(&within);
}
END_TEST

Suite *contract_suite(void)
{
    Suite *s = suite_create("contract");
    TCase *t = tcase_create("core");
    tcase_add_test(t, the_catalogue_declares_its_claims);
    tcase_add_test(t, the_margin_is_what_a_holder_may_be_held_up);
    tcase_add_test(t, a_line_is_judged_with_its_reason);
    tcase_add_test(t, a_crash_that_fails_over_is_judged_as_a_failover);
    tcase_add_test(t, cutoffs_close_together_hold_up_as_one);
    tcase_add_test(t, the_draw_stays_within_and_moves_nothing_else);
    suite_add_tcase(s, t);
    return s;
}
