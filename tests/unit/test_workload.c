/* test_workload.c — the random workload's shapes (protocols/client/
 * workload.c), on small runs whose histories are read back: a re-entry on
 * the other side of a read/write lock and the release order ([clients]
 * switch, release-fifo), an upgrade only under the watchdog, a failed
 * release called once more (retry-unlock) and the cause it gives the
 * violations after it, a lease per acquire with each hold kept under its
 * own lease ([clients] lease), a nested section held after an inner
 * release ([clients] nested), the work that stops ([clients] stop), a
 * re-entered section held to its latest lease where the re-entry keeps
 * the lease; the store's hold counts the observer records for a
 * contended lock (one per change of an operation's count, each answered
 * operation's count among them). */
#include <stdio.h>
#include <string.h>

#include "protocols/protocol.h"
#include "sim/engine/run.h"
#include "tests/unit/tests.h"

/* Runs text with seed 1 into *h and *r (the caller frees both). */
static void run_text(const char *text, history *h, run_result *r, scenario *s)
{
    scn_error err;
    ck_assert_msg(scn_load_string("w.scn", text, s, &err) == 0, "%d: %s", err.line, err.msg);
    hist_init(h);
    run_opts o = {0};
    ck_assert_int_eq(run_scenario(s, 1, &o, r, h, &err), 0);
}

static void done(history *h, run_result *r, scenario *s)
{
    run_result_free(r);
    hist_free(h);
    scn_free(s);
}

static const char rw_text[] = "[scenario]\nduration = 4s\ndrain = 2s\n[protocol]\nname = redisson.rwlock\n"
                              "lease = %s\nmode = trylock\nwait = 50ms\n[clients]\ncount = 1\nread-ratio = %s\n"
                              "reentry = 100%%\nswitch = 100%%\nrelease-fifo = %s\nhold = 5ms..20ms\n";

/* One thread, all write, every re-entry reads: each cycle takes write
 * then read (a downgrade) and releases them newest first (LIFO) or oldest
 * first (FIFO), each release naming its side, a hold between the two. */
START_TEST(switch_releases_name_their_side)
{
    for (int fifo = 0; fifo <= 1; fifo++) {
        char text[1024];
        snprintf(text, sizeof text, rw_text, "-1", "0", fifo ? "100%" : "0%");
        scenario s;
        history h;
        run_result r;
        run_text(text, &h, &r, &s);
        int cycles = 0, taken[2], ntaken = 0, released[2], nreleased = 0;
        int64_t first_release_ok = -1;
        for (size_t k = 0; k < h.n; k++) {
            const hist_event *e = &h.ev[k];
            if (e->client != 1 || (e->op != HOP_ACQUIRE && e->op != HOP_RELEASE)) continue;
            if (e->op == HOP_ACQUIRE && e->kind == HIST_OK) {
                ck_assert_int_lt(ntaken, 2);
                taken[ntaken++] = e->mode;
            } else if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE) {
                ck_assert_int_lt(nreleased, 2);
                if (nreleased == 1) ck_assert_int_gt(e->t_us, first_release_ok); /* a hold between */
                released[nreleased++] = e->mode;
            } else if (e->op == HOP_RELEASE && e->kind == HIST_OK) {
                first_release_ok = e->t_us;
            }
            if (nreleased < 2) continue;
            ck_assert_int_eq(ntaken, 2);
            ck_assert_int_eq(taken[0], 0); /* no side: write */
            ck_assert_int_eq(taken[1], SCN_RW_READ);
            ck_assert_int_eq(released[0], taken[fifo ? 0 : 1]);
            ck_assert_int_eq(released[1], taken[fifo ? 1 : 0]);
            ntaken = nreleased = 0;
            cycles++;
        }
        ck_assert_int_gt(cycles, 20);
        ck_assert_int_eq(r.checks.verdict[SCN_INV_RW_EXCLUSION], CHECK_HELD);
        ck_assert_int_eq(r.checks.verdict[SCN_INV_REENTRANCY], CHECK_HELD);
        done(&h, &r, &s);
    }
}
END_TEST

/* A reader's re-entry for write waits for its own read hold to go: under
 * a lease it keeps reading (no write is ever asked for); under the
 * watchdog it asks, and lock() deadlocks on itself. */
START_TEST(upgrade_only_under_the_watchdog)
{
    char text[1024];
    snprintf(text, sizeof text, rw_text, "10s", "100%", "0%");
    scenario s;
    history h;
    run_result r;
    run_text(text, &h, &r, &s);
    size_t acquires = 0;
    for (size_t k = 0; k < h.n; k++)
        if (h.ev[k].op == HOP_ACQUIRE && h.ev[k].kind == HIST_INVOKE) {
            ck_assert_int_eq(h.ev[k].mode, SCN_RW_READ);
            acquires++;
        }
    ck_assert_uint_gt(acquires, 20);
    done(&h, &r, &s);

    snprintf(text, sizeof text, rw_text, "-1", "100%", "0%");
    char *trylock = strstr(text, "mode = trylock");
    memcpy(trylock, "mode = lock   ", 14);
    run_text(text, &h, &r, &s);
    ck_assert_int_eq(r.checks.verdict[SCN_INV_DEADLOCK], CHECK_VIOLATED);
    done(&h, &r, &s);
}
END_TEST

/* A semaphore release whose reply fails: with retry-unlock the thread
 * calls it once more at once (the same depth), the permit is added twice
 * and the violation carries the retry as its cause; without, no retry. */
START_TEST(retry_unlock_calls_a_failed_release_again)
{
    for (int retry = 0; retry <= 1; retry++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[scenario]\nduration = 3s\ndrain = 5s\n[protocol]\nname = redisson.semaphore\npermits = 1\n"
                 "[clients]\ncount = 1\nhold = 100ms\nthink = 100ms\nretry-unlock = %s\n"
                 "[faults]\nat = 1s fail-reply client=1 command=unlock as=error\n",
                 retry ? "yes" : "no");
        scenario s;
        history h;
        run_result r;
        run_text(text, &h, &r, &s);
        int retries = 0, failed = 0; /* the thread's last operation was a failed release */
        for (size_t k = 0; k < h.n; k++) {
            const hist_event *e = &h.ev[k];
            if (e->client != 1 || e->kind == HIST_INFO) continue;
            if (e->kind == HIST_INVOKE && e->op == HOP_RELEASE && failed) retries++;
            failed = e->op == HOP_RELEASE && e->kind == HIST_FAIL;
        }
        ck_assert_int_eq(retries, retry);
        ck_assert_int_eq(r.checks.verdict[SCN_INV_PERMITS], retry ? CHECK_VIOLATED : CHECK_HELD);
        if (retry) ck_assert_uint_eq(r.checks.v[0].cause & CHECK_CAUSE_RETRIED_RELEASE, CHECK_CAUSE_RETRIED_RELEASE);
        done(&h, &r, &s);
    }
}
END_TEST

/* [clients] nested: every cycle re-enters the lock; with nested the
 * thread holds its outer section (a hold, 100 ms) after the inner release
 * before the outer one, without it the two releases go back to back (the
 * drain after the duration releases at once either way). */
START_TEST(nested_holds_the_outer_section)
{
    for (int nested = 0; nested <= 1; nested++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[scenario]\nduration = 2s\n[protocol]\nname = redisson.lock\nlease = -1\n"
                 "[clients]\ncount = 1\nhold = 100ms\nthink = 10ms\nreentry = 100%%\nnested = %s\n",
                 nested ? "yes" : "no");
        scenario s;
        history h;
        run_result r;
        run_text(text, &h, &r, &s);
        int pairs = 0;
        int64_t inner_done = -1;
        for (size_t k = 0; k < h.n; k++) {
            const hist_event *e = &h.ev[k];
            if (e->client != 1 || e->op != HOP_RELEASE) continue;
            if (e->kind == HIST_OK && e->value == 1) inner_done = e->t_us;
            if (e->kind == HIST_INVOKE && inner_done >= 0 && e->t_us < SIM_SEC(2)) { /* the outer one (not the drain's) */
                int64_t gap = e->t_us - inner_done;
                ck_assert_msg(nested ? gap >= SIM_MS(100) : gap < SIM_MS(1), "outer release %lld us after the inner",
                              (long long)gap);
                pairs++;
                inner_done = -1;
            }
        }
        ck_assert_int_gt(pairs, 2);
        ck_assert_int_eq(r.checks.verdict[SCN_INV_MUTEX], CHECK_HELD);
        done(&h, &r, &s);
    }
}
END_TEST

/* [clients] lease: each acquire of the expirable semaphore draws its own
 * permit lease within the range, and each hold (drawn far longer) is cut
 * to 9/10 of its lease: no permit outlives its lease. */
START_TEST(acquire_lease_bounds_each_hold)
{
    const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.expirable-semaphore\npermits = 2\n"
                       "[clients]\ncount = 3\nlease = 200ms..2s\nhold = 1s..5s\nthink = 1ms..50ms\n";
    scenario s;
    history h;
    run_result r;
    run_text(text, &h, &r, &s);
    int64_t lo = INT64_MAX, hi = 0, lease[8] = {0}, since[8] = {0};
    int holds = 0;
    for (size_t k = 0; k < h.n; k++) {
        const hist_event *e = &h.ev[k];
        if (e->client < 1 || e->client > 3) continue;
        if (e->op == HOP_PERMIT) {
            lease[e->client] = e->value;
            since[e->client] = e->t_us;
            lo = e->value < lo ? e->value : lo;
            hi = e->value > hi ? e->value : hi;
        } else if (e->op == HOP_RELEASE && e->kind == HIST_INVOKE) {
            ck_assert_int_lt(e->t_us - since[e->client], lease[e->client]);
            holds++;
        }
    }
    ck_assert_int_gt(holds, 10);
    ck_assert_int_ge(lo, SIM_MS(200));
    ck_assert_int_le(hi, SIM_SEC(2));
    ck_assert_int_gt(hi - lo, SIM_MS(500)); /* the leases differ */
    ck_assert_int_eq(r.checks.verdict[SCN_INV_PERMITS], CHECK_HELD);
    ck_assert_int_eq(r.checks.verdict[SCN_INV_LEASES], CHECK_HELD);
    done(&h, &r, &s);
}
END_TEST

/* [clients] stop: no cycle starts from that time on (a cycle under way
 * ends: its re-entries and releases), and the processes live on. */
START_TEST(stop_ends_the_work)
{
    const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\nlease = 5s\n"
                       "[clients]\ncount = 3\nthreads = 2\nhold = 1ms..50ms\nthink = 1ms..100ms\n"
                       "reentry = 50%\nstop = 2s\n";
    scenario s;
    history h;
    run_result r;
    run_text(text, &h, &r, &s);
    int before = 0, released_after = 0;
    for (size_t k = 0; k < h.n; k++) {
        const hist_event *e = &h.ev[k];
        if (e->client < 1 || e->client > 3) continue;
        if (e->op == HOP_ACQUIRE && e->kind == HIST_INVOKE && e->value == 0) {
            ck_assert_int_lt(e->t_us, SIM_SEC(2) + SIM_MS(1));
            before++;
        }
        if (e->op == HOP_RELEASE && e->kind == HIST_OK && e->t_us >= SIM_SEC(2)) released_after++;
    }
    ck_assert_int_gt(before, 20);
    ck_assert_int_le(released_after, 6 * 2); /* the cycles under way, each at most re-entered once */
    ck_assert_int_eq(r.checks.verdict[SCN_INV_MUTEX], CHECK_HELD);
    ck_assert_int_eq(r.checks.verdict[SCN_INV_DEAD_HOLDER], CHECK_HELD);
    done(&h, &r, &s);
}
END_TEST

/* A protocol whose re-entry keeps the lease (the read/write lock) holds a
 * re-entered section up to its latest lease's end: a write re-entry with
 * a shorter lease then outlasts that lease, which 3.5.4's re-entry (the
 * TTL set to its lease, issue #1110) does not survive and 3.5.5's (the
 * lease added) does. RLock's re-entry sets the lease: its sections stop
 * at the shortest, and it holds. */
START_TEST(reentry_that_keeps_the_lease_holds_to_the_latest)
{
    static const char fmt[] = "[scenario]\nduration = 30s\n[protocol]\nname = %s\nmode = trylock\nwait = 5s\n"
                              "[clients]\ncount = 2\nhold = 2s..9s\nthink = 1ms..100ms\nreentry = 100%%\n"
                              "lease = 500ms..10s\n";
    static const struct {
        const char *proto;
        scn_invariant inv;
        check_verdict want;
    } cases[] = {
        {"redisson.rwlock@3.5.4", SCN_INV_RW_EXCLUSION, CHECK_VIOLATED},
        {"redisson.rwlock@3.5.5", SCN_INV_RW_EXCLUSION, CHECK_HELD},
        {"redisson.lock", SCN_INV_MUTEX, CHECK_HELD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, fmt, cases[i].proto);
        scenario s;
        history h;
        run_result r;
        run_text(text, &h, &r, &s);
        ck_assert_msg(r.checks.verdict[cases[i].inv] == cases[i].want, "%s", cases[i].proto);
        done(&h, &r, &s);
    }
}
END_TEST

/* [clients] addpermits: some cycles lend n permits by addPermits(n) and
 * take them back by addPermits(-n) after a hold; the count is what it was
 * at the end, and a semaphore without a permit serves its waiters only
 * through what is lent (3.16.2+: the add publishes). */
START_TEST(addpermits_lends_and_takes_back)
{
    scenario s;
    history h;
    run_result r;
    run_text("[scenario]\nduration = 10s\n[protocol]\nname = redisson.semaphore\npermits = 0\nwait = 200ms\n"
             "mode = trylock\n[clients]\ncount = 3\naddpermits = 40%\nhold = 5ms..50ms\nthink = 5ms..50ms\n",
             &h, &r, &s);
    int lent = 0, back = 0;
    int64_t net = 0;
    for (size_t k = 0; k < h.n; k++) {
        const hist_event *e = &h.ev[k];
        if (e->op != HOP_PERMITS_ADD || e->kind != HIST_OK) continue;
        lent += e->n > 0;
        back += e->n < 0;
        net += e->n;
    }
    ck_assert_int_gt(lent, 10);
    ck_assert_int_ge(lent, back);
    ck_assert_int_le(lent - back, 3); /* what the end cut short */
    ck_assert_int_ge(net, 0);
    ck_assert_uint_gt(r.acquisitions, 5); /* the lent permits were taken */
    ck_assert_int_eq(r.checks.verdict[SCN_INV_PERMITS], CHECK_HELD);
    done(&h, &r, &s);
    /* refused where there is no addPermits, at the key's line */
    scn_error err;
    ck_assert_int_eq(scn_load_string("w.scn", "[scenario]\nduration = 4s\n[protocol]\nname = redisson.lock\n"
                                              "[clients]\ncount = 1\naddpermits = 10%\n", &s, &err), 0);
    ck_assert_ptr_null(proto_resolve(&s, &err));
    ck_assert_int_eq(err.line, 7);
    ck_assert_ptr_nonnull(strstr(err.msg, "no addPermits"));
    scn_free(&s);
}
END_TEST

/* [clients] reentry on a lock that claims no re-entry is refused at the
 * key's line; one that claims it (counted in Redis or locally) runs. */
START_TEST(reentry_is_refused_where_not_claimed)
{
    static const char *const refused[] = {"redis-py", "baseline.cad", "redisson.semaphore"};
    static const char *const taken[] = {"redisson.lock", "spring-lockregistry", "redisson.spinlock"};
    for (size_t i = 0; i < 3; i++) {
        scenario s;
        scn_error err;
        char text[256];
        snprintf(text, sizeof text, "[scenario]\nduration = 4s\n[protocol]\nname = %s\n[clients]\ncount = 1\n"
                                    "reentry = 30%%\n", refused[i]);
        ck_assert_int_eq(scn_load_string("w.scn", text, &s, &err), 0);
        ck_assert_ptr_null(proto_resolve(&s, &err));
        ck_assert_str_eq(err.path, "w.scn");
        ck_assert_int_eq(err.line, 7);
        ck_assert_msg(strstr(err.msg, "does not claim re-entry (reentrant = no)") && strstr(err.msg, refused[i]),
                      "%s", err.msg);
        scn_free(&s);
        snprintf(text, sizeof text, "[scenario]\nduration = 4s\n[protocol]\nname = %s\n[clients]\ncount = 1\n"
                                    "reentry = 30%%\n", taken[i]);
        ck_assert_int_eq(scn_load_string("w.scn", text, &s, &err), 0);
        ck_assert_msg(proto_resolve(&s, &err) != NULL, "%s: %s", taken[i], err.msg);
        scn_free(&s);
    }
}
END_TEST

/* [swarm] thread-wait-time needs a wait queue, [swarm] reject-stale
 * fencing tokens: elsewhere refused at the key's line. */
START_TEST(swarm_settings_are_refused_without_their_protocol)
{
    static const struct {
        const char *proto, *key, *says;
    } cases[] = {{"redisson.lock", "thread-wait-time = 5s..20m", "has no wait queue"},
                 {"redisson.lock", "reject-stale = 50%", "has no fencing tokens"},
                 {"redisson.fairlock", "thread-wait-time = 5s..20m", NULL},
                 {"redisson.fencedlock", "reject-stale = 50%", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scenario s;
        scn_error err;
        char text[256];
        snprintf(text, sizeof text, "[scenario]\nduration = 4s\n[protocol]\nname = %s\n[clients]\ncount = 1\n"
                                    "[swarm]\n%s\n", cases[i].proto, cases[i].key);
        ck_assert_int_eq(scn_load_string("w.scn", text, &s, &err), 0);
        const proto_def *pd = proto_resolve(&s, &err);
        if (cases[i].says) {
            ck_assert_ptr_null(pd);
            ck_assert_int_eq(err.line, 8);
            ck_assert_msg(strstr(err.msg, cases[i].says) != NULL, "%s", err.msg);
        } else {
            ck_assert_msg(pd != NULL, "%s: %s", cases[i].proto, err.msg);
        }
        scn_free(&s);
    }
}
END_TEST

/* switch needs read and write sides: elsewhere the scenario is refused at
 * the key's line. */
START_TEST(switch_is_refused_without_sides)
{
    scenario s;
    scn_error err;
    const char *text = "[scenario]\nduration = 4s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 1\n"
                       "switch = 50%\n";
    ck_assert_int_eq(scn_load_string("w.scn", text, &s, &err), 0);
    ck_assert_ptr_null(proto_resolve(&s, &err));
    ck_assert_int_eq(err.line, 7);
    ck_assert_ptr_nonnull(strstr(err.msg, "no read and write sides"));
    scn_free(&s);
}
END_TEST

/* Six threads on one lock: their acquires are retried while it is held.
 * The observer records a thread's store count when an operation's command
 * changed it (or first ran), not again for a retry that left it as it
 * was; every answered acquire and release finds its count recorded before
 * its answer, equal to what its thread believes (the reentrancy checker
 * reads exactly that). */
START_TEST(store_counts_are_recorded_per_change)
{
    scenario s;
    history h;
    run_result r;
    run_text("[scenario]\nduration = 3s\n[protocol]\nname = redisson.lock\nlease = -1\n[clients]\ncount = 3\n"
             "threads = 2\nhold = 5ms..20ms\nthink = 1ms..5ms\nreentry = 0.25\n[expect]\nreentrancy = held\n",
             &h, &r, &s);
    ck_assert(r.expectations_met);
    enum { MAXK = 64 };
    struct { int key[4]; uint64_t seq; int64_t value; } last[MAXK];
    size_t nlast = 0, counts = 0, answered = 0;
    for (size_t k = 0; k < h.n; k++) {
        const hist_event *e = &h.ev[k];
        int key[4] = {e->client, e->inc, e->thread, e->lock};
        if (e->op == HOP_STORE_COUNT) {
            counts++;
            size_t i = 0;
            while (i < nlast && memcmp(last[i].key, key, sizeof key) != 0) i++;
            if (i == nlast) {
                ck_assert_uint_lt(nlast, MAXK);
                memcpy(last[nlast++].key, key, sizeof key);
            } else {
                ck_assert_msg(last[i].seq != e->seq || last[i].value != e->value,
                              "event %zu: c%d.t%d's count %lld recorded twice for one operation", k, e->client,
                              e->thread, (long long)e->value);
            }
            last[i].seq = e->seq;
            last[i].value = e->value;
            continue;
        }
        if (e->kind != HIST_OK || (e->op != HOP_ACQUIRE && e->op != HOP_RELEASE) || e->seq == 0) continue;
        answered++;
        size_t i = 0;
        while (i < nlast && memcmp(last[i].key, key, sizeof key) != 0) i++;
        ck_assert_msg(i < nlast && last[i].seq == e->seq && last[i].value == e->value,
                      "event %zu: c%d.t%d's answer (%lld) has no count of its own recorded before it", k, e->client,
                      e->thread, (long long)e->value);
    }
    /* contended: more commands ran than counts changed */
    ck_assert_uint_gt(answered, 100);
    ck_assert_uint_lt(counts, (size_t)r.evals);
    done(&h, &r, &s);
}
END_TEST

Suite *workload_suite(void)
{
    Suite *s = suite_create("workload");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 30);
    tcase_add_test(t, switch_releases_name_their_side);
    tcase_add_test(t, upgrade_only_under_the_watchdog);
    tcase_add_test(t, retry_unlock_calls_a_failed_release_again);
    tcase_add_test(t, acquire_lease_bounds_each_hold);
    tcase_add_test(t, addpermits_lends_and_takes_back);
    tcase_add_test(t, switch_is_refused_without_sides);
    tcase_add_test(t, reentry_is_refused_where_not_claimed);
    tcase_add_test(t, nested_holds_the_outer_section);
    tcase_add_test(t, swarm_settings_are_refused_without_their_protocol);
    tcase_add_test(t, stop_ends_the_work);
    tcase_add_test(t, reentry_that_keeps_the_lease_holds_to_the_latest);
    tcase_add_test(t, store_counts_are_recorded_per_change);
    suite_add_tcase(s, t);
    return s;
}
