/* test_shrink.c — the shrinker (sim/engine/shrink.c) and what hunt adds to
 * it (sim/engine/hunt.c): an unlock step is never kept without the lock it
 * releases, or the release it repeats, nor a lock without its unlock; an admit callback keeps the fault
 * kinds a hunt wants (before the first violation), and refused candidates
 * are not run; a draw's runs have no kind the draw lacks; a lease that ran
 * out marks a run whichever violation came first; a waiter with no timeout
 * names the 3.13.2 fair lock's hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/hunt.h"
#include "tests/unit/tests.h"

static void load(const char *text, scenario *s)
{
    scn_error err;
    if (scn_load_string("shrink.scn", text, s, &err) != 0) ck_abort_msg("%s:%d: %s", err.path, err.line, err.msg);
}

/* s shrunk (with seed 1) into *k, and its op lines as "c1 lock,c1 unlock
 * mode=read,..." in their order into ops. */
static void shrink_text(const char *text, const shrink_opts *o, shrink_result *k, char *ops, size_t cap)
{
    scenario s;
    scn_error err;
    load(text, &s);
    ck_assert_int_eq(shrink_scenario(&s, 1, o, k, &err), 1);
    scn_free(&s);
    size_t n = 0;
    ops[0] = '\0';
    for (size_t i = 0; i < k->out.nsteps && n < cap; i++) {
        const scn_step *st = &k->out.steps[i];
        if (scn_op_is_fault(st->op)) continue;
        n += (size_t)snprintf(ops + n, cap - n, "%sc%d %s%s", n ? "," : "", st->client, scn_op_name(st->op),
                              st->mode == SCN_RW_READ ? " mode=read" : st->mode == SCN_RW_WRITE ? " mode=write" : "");
    }
}

/* Scenarios whose unlocks must keep their anchors, and what they shrink
 * to. A repeated release breaks permits on its own (a release of a permit
 * never taken would too): the shrink keeps the acquire and the release it
 * repeats, where it used to keep a lone unlock. Pairing is per thread,
 * lock and mode, last in first out: the read unlock needs the read lock,
 * not the write lock before it. A lock keeps its unlock: the write lock
 * held to the end of the run would outlive its lease (the application's
 * error), where the read unlock stopping its watchdog is the bug. */
static const struct {
    const char *text, *ops;
    size_t anchored;
} paired[] = {
    {"[scenario]\nduration = 10s\n[protocol]\nname = redisson.semaphore\nlocks = sem\npermits = 1\n"
     "[steps]\nat = 0s c1 lock\nat = 1s c1 unlock\nat = 2s c1 unlock\nat = 3s c2 lock\nat = 4s c2 unlock\n"
     "[expect]\npermits = violated\n",
     "c1 lock,c1 unlock,c1 unlock", 3},
    {"[scenario]\nduration = 50s\n[protocol]\nname = redisson.rwlock\nlease = -1\n"
     "[steps]\nat = 0s c1 lock mode=write\nat = 100ms c1 lock mode=read\nat = 1s c1 unlock mode=read\n"
     "at = 5s c2 lock mode=write\nat = 40s c1 unlock mode=write\nat = 45s c2 unlock mode=write\n"
     "[expect]\nrw-exclusion = violated\n",
     "c1 lock mode=write,c1 lock mode=read,c1 unlock mode=read,c2 lock mode=write,c1 unlock mode=write,"
     "c2 unlock mode=write",
     3},
};

START_TEST(an_unlock_goes_with_its_lock_or_the_release_it_repeats)
{
    shrink_result k;
    shrink_opts o = {0};
    char ops[256];
    shrink_text(paired[_i].text, &o, &k, ops, sizeof ops);
    ck_assert_str_eq(ops, paired[_i].ops);
    ck_assert_uint_eq(k.stats.anchored, paired[_i].anchored);
    shrink_result_free(&k);
}
END_TEST

/* Two faults, each enough for the watchdog's lease to run out under c1: ddmin keeps
 * the first (the pause); a hunt that wants the partition kind keeps the
 * partition, and the candidates without one are refused without a run. */
static const char *const two_faults =
    "[scenario]\nduration = 60s\n[protocol]\nname = redisson.lock\nlease = -1\n"
    "[steps]\nat = 0s c1 lock\nat = 30s c2 lock\nat = 50s c1 unlock\nat = 55s c2 unlock\n"
    "[faults]\nat = 5s pause client=1 for=40s\nat = 6s partition c1|redis0 for=40s\n"
    "[expect]\nmutual-exclusion = violated\n";

static unsigned fault_kinds(const scenario *s)
{
    return hunt_kinds(s->steps, s->nsteps, 0, INT64_MAX);
}

START_TEST(ddmin_keeps_the_first_fault_that_is_enough)
{
    shrink_result k;
    shrink_opts o = {0};
    char ops[256];
    shrink_text(two_faults, &o, &k, ops, sizeof ops);
    ck_assert_uint_eq(fault_kinds(&k.out), SCN_NEM_PAUSE);
    ck_assert_uint_eq(k.stats.refused, 0);
    shrink_result_free(&k);
}
END_TEST

START_TEST(an_admit_callback_keeps_the_wanted_kinds)
{
    unsigned want = SCN_NEM_PARTITION | HUNT_KIND_LEASE_EXPIRY;
    shrink_result k;
    shrink_opts o = {.admit = hunt_keeps_kinds, .admit_arg = &want};
    char ops[256];
    shrink_text(two_faults, &o, &k, ops, sizeof ops);
    ck_assert_uint_eq(fault_kinds(&k.out), SCN_NEM_PARTITION);
    ck_assert_uint_gt(k.stats.refused, 0);
    ck_assert_int_eq(k.last.inv, SCN_INV_MUTEX);
    shrink_result_free(&k);
}
END_TEST

START_TEST(keeps_kinds_reads_lines_before_the_violation_or_a_nemesis)
{
    scenario s;
    load(two_faults, &s);
    unsigned part = SCN_NEM_PARTITION, both = part | SCN_NEM_PAUSE, crash = SCN_NEM_CRASH;
    unsigned lease = HUNT_KIND_LEASE_EXPIRY, none = 0;
    ck_assert(hunt_keeps_kinds(&s, NULL, &part));
    ck_assert(hunt_keeps_kinds(&s, NULL, &both));
    ck_assert(hunt_keeps_kinds(&s, NULL, &lease)); /* a cause, not a line */
    unsigned cause = ~HUNT_LINE_KINDS & ~HUNT_KIND_LEASE_EXPIRY; /* any bit a later cause may take */
    ck_assert(hunt_keeps_kinds(&s, NULL, &cause));
    /* every kind a line can have is a line kind (a new one joins HUNT_LINE_KINDS) */
    for (int op = 0; op < SCN_OP_COUNT; op++)
        for (int v = 0; v < 4; v++) {
            scn_step st = {.op = (scn_op)op, .node_index = v % 2 - 1, .reply_cmd = v};
            ck_assert_msg(!(hunt_kind_of(&st) & ~HUNT_LINE_KINDS), "%s", scn_op_name((scn_op)op));
        }
    ck_assert(hunt_keeps_kinds(&s, NULL, &none));
    ck_assert(!hunt_keeps_kinds(&s, NULL, &crash));
    shrink_failure got = {.inv = SCN_INV_MUTEX, .at_us = SIM_MS(5500)}; /* the partition at 6s comes after */
    unsigned pause = SCN_NEM_PAUSE;
    ck_assert(hunt_keeps_kinds(&s, &got, &pause));
    ck_assert(!hunt_keeps_kinds(&s, &got, &part));
    got.at_us = -1; /* an expectation missed: no time */
    ck_assert(hunt_keeps_kinds(&s, &got, &part));
    s.nemesis = 1;
    ck_assert(hunt_keeps_kinds(&s, NULL, &crash));
    scn_free(&s);
}
END_TEST

/* What a draw can run (hunt_drawable_kinds), which --want's skipped seeds
 * rely on: a scenario's own lines, and its nemesis kinds (a fail-reply
 * any of the three commands); and over the seeds of a hunt's base, every
 * run's lines within its draw's, some draws without drop-reply (what is
 * skipped) and some with it. */
START_TEST(drawable_kinds_hold_every_line_a_run_has)
{
    scenario s;
    load(two_faults, &s);
    unsigned shapes = HUNT_DRAWN_KINDS & ~HUNT_LINE_KINDS, undecided = HUNT_ALL_KINDS & ~HUNT_DRAWN_KINDS;
    ck_assert_uint_eq(hunt_drawable_kinds(&s), SCN_NEM_PAUSE | SCN_NEM_PARTITION | shapes | undecided);
    s.nemesis = 1, s.nemesis_kinds = SCN_NEM_FAIL_REPLY | SCN_NEM_DELAY;
    ck_assert_uint_eq(hunt_drawable_kinds(&s) & HUNT_LINE_KINDS, SCN_NEM_PAUSE | SCN_NEM_PARTITION | SCN_NEM_DELAY |
                                                   HUNT_KIND_FAIL_ACQUIRE | HUNT_KIND_FAIL_UNLOCK | HUNT_KIND_FAIL_RENEW);
    s.nemesis_any = 1;
    ck_assert_uint_eq(hunt_drawable_kinds(&s), HUNT_ALL_KINDS);
    scn_free(&s);
    /* Without steps the workload decides: one thread has no sibling, the
     * sync API no async wait, no addPermits share no add-permits cause. */
    load("[scenario]\nduration = 1s\n[protocol]\nname = redisson.semaphore\npermits = 2\n[clients]\ncount = 2\n", &s);
    ck_assert_uint_eq(hunt_drawable_kinds(&s), undecided | HUNT_KIND_PARKED); /* lock(): it may park */
    s.mode = SCN_MODE_TRYLOCK; /* every wait has a timeout */
    ck_assert_uint_eq(hunt_drawable_kinds(&s), undecided);
    s.threads = 2;
    ck_assert_uint_eq(hunt_drawable_kinds(&s), undecided | HUNT_KIND_SIBLING | HUNT_KIND_MIXED_N);
    s.threads = 1, s.async = 1;
    ck_assert_uint_eq(hunt_drawable_kinds(&s), undecided | HUNT_KIND_ASYNC_WAIT | HUNT_KIND_LATE_LISTENER);
    s.async = 0, s.addpermits_ppm = 200000;
    ck_assert_uint_eq(hunt_drawable_kinds(&s), undecided | HUNT_KIND_ADDED | HUNT_KIND_ADD_RESENT);
    scn_free(&s);

    scn_error err;
    int with = 0, without = 0;
    static const char *const protos[] = {"redisson.lock", "redisson.semaphore", "redisson.latch"};
    for (size_t p = 0; p < sizeof protos / sizeof protos[0]; p++) {
        char *text = hunt_template(protos[p], NULL, &err);
        ck_assert_ptr_nonnull(text);
        load(text, &s);
        free(text);
        for (uint64_t seed = 1; seed <= 16; seed++) {
            unsigned can = hunt_seed_kinds(&s, seed);
            with += (can & SCN_NEM_DROP_REPLY) != 0;
            without += (can & SCN_NEM_DROP_REPLY) == 0;
            history h;
            run_result r;
            run_opts o = {.swarm = 1};
            hunt_sig sig = {0};
            hist_init(&h);
            ck_assert_int_eq(run_scenario(&s, seed, &o, &r, &h, &err), 0);
            unsigned ran = hunt_kinds(r.generated, r.ngenerated, INT64_MIN, INT64_MAX);
            ck_assert_uint_eq(hunt_drawable_kinds(r.s), can);
            ck_assert_msg(!(ran & ~can), "%s seed %llu ran kinds %#x beyond its draw's %#x", protos[p],
                          (unsigned long long)seed, ran, can);
            if (hunt_run_sig(&r, &sig)) /* a failure's waits and causes too */
                ck_assert_msg(!(sig.kinds & ~can), "%s seed %llu failed with kinds %#x beyond its draw's %#x",
                              protos[p], (unsigned long long)seed, sig.kinds, can);
            run_result_free(&r);
            hist_free(&h);
        }
        scn_free(&s);
    }
    ck_assert_int_gt(with, 0);
    ck_assert_int_gt(without, 0);
}
END_TEST

/* The 3.13.2 fair lock's hang (fair-stale-head-hang-3.13.2.scn): its
 * waiters are answered a negative TTL once c1 has held past their
 * deadlines, wait with no timeout, and are purged: liveness of a parked
 * waiter. The current version answers max(0, PTTL): its waiters poll,
 * and one is granted after c1's unlock. */
START_TEST(a_parked_waiter_names_the_3_13_2_hang)
{
    static const char *const text =
        "[scenario]\nduration = 90s\n[protocol]\nname = redisson.fairlock%s\nlease = -1\n[steps]\n"
        "at = 0s c1 lock\nat = 1s c2 lock\nat = 2s c3 lock\nat = 3s c4 lock\nat = 50s c1 unlock\n";
    static const char *const versions[] = {"@3.13.2", ""};
    for (int v = 0; v < 2; v++) {
        char buf[512];
        scenario s;
        scn_error err;
        history h;
        run_result r;
        run_opts o = {0};
        hunt_sig sig = {0};
        snprintf(buf, sizeof buf, text, versions[v]);
        load(buf, &s);
        ck_assert_uint_eq(hunt_drawable_kinds(&s) & HUNT_KIND_PARKED, HUNT_KIND_PARKED); /* steps: any wait */
        hist_init(&h);
        ck_assert_int_eq(run_scenario(&s, 1, &o, &r, &h, &err), 0);
        int failed = hunt_run_sig(&r, &sig);
        if (v == 0) {
            char name[256];
            ck_assert(failed);
            hunt_sig_text(&sig, name, sizeof name);
            ck_assert_str_eq(name, "liveness of a parked waiter (no fault)");
        } else {
            ck_assert_msg(!failed || !(sig.kinds & HUNT_KIND_PARKED), "the current version parks");
        }
        run_result_free(&r);
        hist_free(&h);
        scn_free(&s);
    }
}
END_TEST

/* A run's lease cause: the first two holders' and the first permits over
 * the count's mark it whichever violation came first (a liveness break
 * under lost replies, then a holder blocked past its permit's lease), and
 * a later violation's does not. */
START_TEST(a_lease_that_ran_out_marks_the_run)
{
    scenario s = {0};
    for (int i = 0; i < SCN_INV_COUNT; i++) s.expect[i] = SCN_EXPECT_ANY;
    check_violation v[3] = {
        {.inv = SCN_INV_LIVENESS, .t_us = SIM_SEC(15)},
        {.inv = SCN_INV_PERMITS, .t_us = SIM_SEC(29), .cause = CHECK_CAUSE_LEASE_RAN_OUT},
        {.inv = SCN_INV_PERMITS, .t_us = SIM_SEC(40)},
    };
    run_result r = {.s = &s, .expectations_met = 1, .checks = {.v = v, .nv = 3}};
    shrink_failure f;
    ck_assert(shrink_classify(&r, &f));
    ck_assert_int_eq(f.inv, SCN_INV_LIVENESS);
    ck_assert_uint_eq(f.causes & CHECK_CAUSE_LEASE_RAN_OUT, CHECK_CAUSE_LEASE_RAN_OUT);
    v[1].cause = 0, v[2].cause = CHECK_CAUSE_LEASE_RAN_OUT; /* not the first permits violation's */
    ck_assert(shrink_classify(&r, &f));
    ck_assert_uint_eq(f.causes & CHECK_CAUSE_LEASE_RAN_OUT, 0);
    v[1].inv = v[2].inv = SCN_INV_MUTEX, v[1].cause = CHECK_CAUSE_LEASE_RAN_OUT;
    ck_assert(shrink_classify(&r, &f));
    ck_assert_uint_eq(f.causes & CHECK_CAUSE_LEASE_RAN_OUT, CHECK_CAUSE_LEASE_RAN_OUT);
    hunt_sig sig;
    r.virtual_us = SIM_SEC(60);
    ck_assert(hunt_run_sig(&r, &sig));
    ck_assert_uint_eq(sig.kinds, HUNT_KIND_LEASE_EXPIRY);
}
END_TEST

/* A fail-reply line acts when it spoils a reply, maybe long after it was
 * armed, and a lease that ran out was set a lease before: the 2019
 * watchdog's renewal answered with an error (armed at 1 s, spoiled at the
 * first renewal, 25 s) stops it, and the lease runs out 30 s later under
 * c1, 57 s past the line's own time: the signature names the renewal's
 * error (fail-reply-renew-2019.scn), and not a line armed within its
 * window that spoiled nothing (c1 acquires no more after 15 s). */
START_TEST(a_failed_renewal_names_the_lease_it_let_run_out)
{
    static const char *const text =
        "[scenario]\nduration = 90s\n[protocol]\nname = redisson.lock@2019\nlease = -1\n[steps]\n"
        "at = 15s c1 lock\nat = 58s c2 lock\nat = 65s c1 unlock\nat = 70s c2 unlock\n[faults]\n"
        "at = 1s fail-reply client=1 command=renew as=error\nat = 20s fail-reply client=1 command=acquire\n";
    scenario s;
    scn_error err;
    history h;
    run_result r;
    run_opts o = {0};
    hunt_sig sig = {0};
    char name[256];
    load(text, &s);
    hist_init(&h);
    ck_assert_int_eq(run_scenario(&s, 1, &o, &r, &h, &err), 0);
    ck_assert_ptr_nonnull(r.acted_us);
    int lines = 0;
    for (size_t i = 0; i < s.nsteps; i++) {
        if (s.steps[i].op != SCN_FAULT_FAIL_REPLY) continue;
        lines++;
        if (s.steps[i].reply_cmd == SCN_REPLY_RENEW) /* the first renewal, 10 s into the hold */
            ck_assert_msg(r.acted_us[i] >= SIM_SEC(25) && r.acted_us[i] < SIM_SEC(26), "acted at %lld",
                          (long long)r.acted_us[i]);
        else
            ck_assert_int_eq(r.acted_us[i], -1);
    }
    ck_assert_int_eq(lines, 2);
    ck_assert(hunt_run_sig(&r, &sig));
    hunt_sig_text(&sig, name, sizeof name);
    ck_assert_str_eq(name, "mutual-exclusion after lease-expiry+fail-reply:renew");
    run_result_free(&r);
    hist_free(&h);
    scn_free(&s);
}
END_TEST

Suite *shrink_suite(void)
{
    Suite *s = suite_create("shrink");
    TCase *t = tcase_create("core");
    tcase_add_loop_test(t, an_unlock_goes_with_its_lock_or_the_release_it_repeats, 0,
                        (int)(sizeof paired / sizeof paired[0]));
    tcase_add_test(t, ddmin_keeps_the_first_fault_that_is_enough);
    tcase_add_test(t, an_admit_callback_keeps_the_wanted_kinds);
    tcase_add_test(t, keeps_kinds_reads_lines_before_the_violation_or_a_nemesis);
    tcase_add_test(t, drawable_kinds_hold_every_line_a_run_has);
    tcase_add_test(t, a_lease_that_ran_out_marks_the_run);
    tcase_add_test(t, a_parked_waiter_names_the_3_13_2_hang);
    tcase_add_test(t, a_failed_renewal_names_the_lease_it_let_run_out);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}
