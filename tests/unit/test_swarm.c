/* test_swarm.c — swarm testing's draws (faults/swarm.c) and the
 * scenario language around them: a seed draws the same values every time
 * and other seeds other values; every drawn value stays within [swarm]'s
 * bounds; the kinds are a non-empty subset of what the file and the
 * topology allow; the drawn scenario written out reads back to the same
 * values and no longer draws; [nemesis] kinds = any round-trips; bounds
 * that are not bounds are refused at their line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "tests/unit/tests.h"

static const char *const base_text =
    "[scenario]\nduration = 60s\n[redis]\nreplicas = 1\n[protocol]\nname = redisson.lock\n[clients]\ncount = 3\n"
    "[nemesis]\nkinds = any\n[swarm]\nclients = 2..7\nthreads = 1..3\nhold = 2ms..300ms\nthink = 5ms..2s\n"
    "lease = 3s..20s\nwatchdog = 30%\ninterval = 2s..9s\nduration = 200ms..4s\n";

static void load(const char *text, scenario *s)
{
    scn_error err;
    if (scn_load_string("swarm.scn", text, s, &err) != 0) ck_abort_msg("%s:%d: %s", err.path, err.line, err.msg);
}

/* base_text with more [swarm] lines after it. */
static void load_base_with(const char *more, scenario *s)
{
    char *text = NULL;
    if (asprintf(&text, "%s%s", base_text, more) < 0) ck_abort();
    load(text, s);
    free(text);
}

START_TEST(a_seed_draws_the_same_values)
{
    scenario s;
    load(base_text, &s);
    ck_assert(s.swarm);
    char d1[512], d2[512], d3[512];
    scenario *a = fault_swarm_draw(&s, 42, d1, sizeof d1);
    scenario *b = fault_swarm_draw(&s, 42, d2, sizeof d2);
    scenario *c = fault_swarm_draw(&s, 43, d3, sizeof d3);
    ck_assert_str_eq(d1, d2);
    ck_assert_str_ne(d1, d3);
    ck_assert_int_eq(a->clients, b->clients);
    ck_assert_int_eq(a->nemesis_kinds, b->nemesis_kinds);
    ck_assert(!a->swarm && a->nemesis && !a->nemesis_any);
    fault_swarm_free(a);
    fault_swarm_free(b);
    fault_swarm_free(c);
    scn_free(&s);
}
END_TEST

START_TEST(draws_stay_within_the_bounds)
{
    scenario s;
    load(base_text, &s);
    int watchdogs = 0, kinds_seen = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char d[512];
        scenario *c = fault_swarm_draw(&s, seed, d, sizeof d);
        ck_assert_int_ge(c->clients, 2);
        ck_assert_int_le(c->clients, 7);
        ck_assert_int_ge(c->threads, 1);
        ck_assert_int_le(c->threads, 3);
        ck_assert_int_ge(c->hold.a_us, SIM_MS(2));
        ck_assert_int_le(c->hold.kind == SCN_DIST_UNIFORM ? c->hold.b_us : c->hold.a_us, SIM_MS(300));
        ck_assert_int_ge(c->think.a_us, SIM_MS(5));
        ck_assert_int_ge(c->nemesis_interval.a_us, SIM_SEC(2));
        ck_assert_int_le(c->nemesis_interval.a_us, SIM_SEC(9));
        ck_assert_int_ge(c->nemesis_duration.a_us, SIM_MS(200));
        if (c->lease_us == SCN_LEASE_WATCHDOG) watchdogs++;
        else ck_assert(c->lease_us >= SIM_SEC(3) && c->lease_us <= SIM_SEC(20));
        /* the kinds added later (client-clock) only when [swarm] names them */
        ck_assert(c->nemesis_kinds != 0 && (c->nemesis_kinds & ~((1 << SCN_NEM_SWARM_COUNT) - 1)) == 0);
        ck_assert_int_eq(c->nemesis_crash_on, SCN_CRASH_ON_TIME);
        ck_assert(c->nemesis_start_us <= c->nemesis_stop_us && c->nemesis_stop_us <= s.duration_us);
        kinds_seen |= c->nemesis_kinds;
        fault_swarm_free(c);
    }
    ck_assert(watchdogs > 40 && watchdogs < 150); /* 30% of 300 */
    ck_assert_int_eq(kinds_seen, (1 << SCN_NEM_SWARM_COUNT) - 1);
    scn_free(&s);
}
END_TEST

START_TEST(kinds_follow_the_file_and_the_topology)
{
    scenario s;
    load("[scenario]\nduration = 30s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n"
         "[nemesis]\nkinds = pause, clock\n[swarm]\n", &s);
    scenario any;
    load("[scenario]\nduration = 30s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n"
         "[nemesis]\nkinds = any\n", &any);
    int seen = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        char d[512];
        scenario *c = fault_swarm_draw(&s, seed, d, sizeof d);
        ck_assert(c->nemesis_kinds != 0);
        ck_assert_int_eq(c->nemesis_kinds & ~(SCN_NEM_PAUSE | SCN_NEM_CLOCK), 0); /* the file's kinds only */
        seen |= c->nemesis_kinds;
        fault_swarm_free(c);
        c = fault_swarm_draw(&any, seed, d, sizeof d);
        ck_assert_int_eq(c->nemesis_kinds & SCN_NEM_FAILOVER, 0); /* no replicas: no failover */
        fault_swarm_free(c);
    }
    ck_assert_int_eq(seen, SCN_NEM_PAUSE | SCN_NEM_CLOCK);
    scn_free(&any);
    scn_free(&s);
}
END_TEST

START_TEST(the_drawn_scenario_reads_back)
{
    scenario s;
    load(base_text, &s);
    char d[512];
    scenario *c = fault_swarm_draw(&s, 7, d, sizeof d);
    char *text = tscn_written(c);
    ck_assert_ptr_null(strstr(text, "[swarm]"));
    ck_assert_ptr_null(strstr(text, "any"));
    scenario back;
    load(text, &back);
    ck_assert(!back.swarm);
    ck_assert_int_eq(back.clients, c->clients);
    ck_assert_int_eq(back.nemesis_kinds, c->nemesis_kinds);
    ck_assert_int_eq(back.lease_us, c->lease_us);
    ck_assert_int_eq(back.nemesis_interval.a_us, c->nemesis_interval.a_us);
    ck_assert_int_eq(back.hold.a_us, c->hold.a_us);
    free(text);
    fault_swarm_free(c);
    scn_free(&back);
    scn_free(&s);
}
END_TEST

START_TEST(kinds_any_and_swarm_round_trip)
{
    scenario s;
    load(base_text, &s);
    char *text = tscn_written(&s);
    ck_assert_ptr_nonnull(strstr(text, "kinds = any"));
    ck_assert_ptr_nonnull(strstr(text, "[swarm]"));
    scenario back;
    load(text, &back);
    ck_assert(back.swarm && back.nemesis_any);
    ck_assert_int_eq(back.swarm_clients.b_us, 7);
    ck_assert_int_eq(back.swarm_watchdog_ppm, 300000);
    free(text);
    scn_free(&back);
    scn_free(&s);
}
END_TEST

/* client-clock, crash-on-reply and reject-stale are drawn after every
 * older draw: with them, a seed draws what it drew without them, plus
 * their own values, each in about its share of the seeds. */
/* A protocol that claims no re-entry draws none (nor the switch shape),
 * and every other value of the seed as a lock that claims it draws. */
START_TEST(no_reentry_where_not_claimed)
{
    scenario s, x;
    load_base_with("switch = 50%\n", &s); /* redisson.lock: claimed */
    char *text = NULL;
    if (asprintf(&text, "%s%s", base_text, "switch = 50%\n") < 0) ck_abort();
    char *name = strstr(text, "redisson.lock");
    ck_assert_ptr_nonnull(name);
    memcpy(name, "baseline.cad ", 13); /* same length: claims none */
    load(text, &x);
    free(text);
    int reentered = 0, switched = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&x, seed, d2, sizeof d2);
        ck_assert_int_eq(b->reentry_ppm, 0);
        ck_assert_int_eq(b->switch_ppm, 0);
        ck_assert_ptr_nonnull(strstr(d2, " reentry=0% "));
        reentered += a->reentry_ppm > 0;
        switched += a->switch_ppm > 0;
        ck_assert_int_eq(b->clients, a->clients);
        ck_assert_int_eq(b->threads, a->threads);
        ck_assert_int_eq(b->hold.a_us, a->hold.a_us);
        ck_assert_int_eq(b->lease_us, a->lease_us);
        ck_assert_int_eq(b->nemesis_kinds, a->nemesis_kinds);
        ck_assert_int_eq(b->nemesis_stop_us, a->nemesis_stop_us);
        ck_assert_int_eq(b->nemesis_p_ppm, a->nemesis_p_ppm);
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(reentered > 60 && switched > 60, "redisson.lock re-entered in %d, switched in %d of 200", reentered,
                  switched);
    scn_free(&x);
    scn_free(&s);
}
END_TEST

/* [swarm] addpermits and thread-wait-time: drawn after everything else,
 * only when named; the fair lock's threadWaitTime within its bounds. */
START_TEST(protocol_keys_draw_last)
{
    scenario s, x;
    load(base_text, &s);
    load_base_with("addpermits = 50%\nthread-wait-time = 1s..300s\n", &x);
    int lent = 0;
    int64_t lo = INT64_MAX, hi = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&x, seed, d2, sizeof d2);
        ck_assert_int_eq(b->nemesis_kinds, a->nemesis_kinds);
        ck_assert_int_eq(b->clients, a->clients);
        ck_assert_int_eq(b->hold.a_us, a->hold.a_us);
        ck_assert_int_eq(a->addpermits_ppm, 0);
        ck_assert_int_eq(a->thread_wait_us, s.thread_wait_us);
        ck_assert(b->addpermits_ppm == 0 || b->addpermits_ppm == 200000);
        lent += b->addpermits_ppm > 0;
        lo = b->thread_wait_us < lo ? b->thread_wait_us : lo;
        hi = b->thread_wait_us > hi ? b->thread_wait_us : hi;
        ck_assert_ptr_nonnull(strstr(d2, " thread-wait-time="));
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(lent > 110 && lent < 190, "addpermits in %d of 300 (50%%)", lent);
    ck_assert_int_ge(lo, SIM_SEC(1));
    ck_assert_int_le(hi, SIM_SEC(300));
    ck_assert_int_lt(lo, SIM_SEC(4)); /* log-uniform: short ones too */
    ck_assert_int_gt(hi, SIM_SEC(100));
    scn_free(&x);
    scn_free(&s);
}
END_TEST

START_TEST(later_keys_draw_after_the_older_draws)
{
    scenario s, x;
    load(base_text, &s);
    load_base_with("client-clock = 30%\ncrash-on-reply = 40%\nreject-stale = 50%\n", &x);
    int cc = 0, reply = 0, stale = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&x, seed, d2, sizeof d2);
        ck_assert_int_eq(b->nemesis_kinds & ~SCN_NEM_CLIENT_CLOCK, a->nemesis_kinds);
        ck_assert_int_eq(b->clients, a->clients);
        ck_assert_int_eq(b->lease_us, a->lease_us);
        ck_assert_int_eq(b->nemesis_p_ppm, a->nemesis_p_ppm);
        ck_assert_int_eq(b->nemesis_stop_us, a->nemesis_stop_us);
        ck_assert_int_eq(a->reject_stale, 1); /* [resource]'s, untouched */
        /* the description of the older draws is the same, the new ones after */
        const char *kinds_end = strchr(d1, ' ');
        ck_assert_ptr_nonnull(strstr(d2, kinds_end));
        ck_assert_ptr_nonnull(strstr(d2, " crash-on="));
        ck_assert_ptr_nonnull(strstr(d2, " reject-stale="));
        cc += (b->nemesis_kinds & SCN_NEM_CLIENT_CLOCK) != 0;
        reply += b->nemesis_crash_on == SCN_CRASH_ON_REPLY;
        stale += b->reject_stale;
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(cc > 80 && cc < 160, "client-clock in %d of 400 (30%%)", cc);
    ck_assert_msg(reply > 120 && reply < 200, "crash on reply in %d of 400 (40%%)", reply);
    ck_assert_msg(stale > 160 && stale < 240, "reject-stale in %d of 400 (50%%)", stale);
    scn_free(&x);
    scn_free(&s);
    /* A file whose own kinds name client-clock draws it in half the seeds,
     * and where it is the only kind, in every seed. */
    load("[scenario]\nduration = 30s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n"
         "[nemesis]\nkinds = client-clock\n[swarm]\n", &s);
    for (uint64_t seed = 1; seed <= 50; seed++) {
        char d[512];
        scenario *c = fault_swarm_draw(&s, seed, d, sizeof d);
        ck_assert_int_eq(c->nemesis_kinds, SCN_NEM_CLIENT_CLOCK);
        fault_swarm_free(c);
    }
    scn_free(&s);
}
END_TEST

START_TEST(bounds_that_are_not_bounds_are_refused)
{
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("x.scn", "[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n"
                                              "[clients]\ncount = 1\n[swarm]\nhold = exp(5ms)\n",
                                     &s, &err),
                     -1);
    ck_assert_int_eq(err.line, 8);
    ck_assert_ptr_nonnull(strstr(err.msg, "bounds"));
    ck_assert_int_eq(scn_load_string("x.scn", "[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n"
                                              "[clients]\ncount = 1\n[nemesis]\nkinds = pause, sometimes\n",
                                     &s, &err),
                     -1);
    ck_assert_int_eq(err.line, 8);
    ck_assert_ptr_nonnull(strstr(err.msg, "or any"));
}
END_TEST

/* A range drawn within 1 s .. 10 s (idle, slow). */
static int within_seconds(const scn_dist *d)
{
    return d->a_us >= SIM_SEC(1) && (d->kind == SCN_DIST_CONST || d->b_us <= SIM_SEC(10));
}

/* [swarm] focus, idle and slow: drawn after everything else, only when
 * named; a focused seed keeps none, one or two of the kinds it drew (a
 * third each), every other draw unchanged; one that keeps none runs no
 * nemesis, and written out reads back without one. An idle seed thinks
 * within 1 s .. 10 s, a slow one holds within 1 s .. 10 s. */
START_TEST(focus_keeps_few_of_the_drawn_kinds)
{
    scenario s, f;
    load(base_text, &s);
    load_base_with("focus = 100%\nidle = 50%\nslow = 50%\n", &f);
    int kept[3] = {0, 0, 0}, idle = 0, slow = 0;
    scenario *quiet = NULL;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&f, seed, d2, sizeof d2);
        ck_assert_int_eq(b->clients, a->clients);
        ck_assert_int_eq(b->lease_us, a->lease_us);
        ck_assert_int_eq(b->nemesis_interval.a_us, a->nemesis_interval.a_us);
        if (strstr(d2, " slow=yes")) { /* slow: holds within 1s..10s, drawn after idle */
            ck_assert(within_seconds(&b->hold));
            slow++;
        } else {
            ck_assert_ptr_nonnull(strstr(d2, " slow=no"));
            ck_assert_int_eq(b->hold.a_us, a->hold.a_us);
            ck_assert_int_eq(b->hold.b_us, a->hold.b_us);
        }
        if (strstr(d2, " idle=yes")) { /* idle: think within 1s..10s, drawn after focus */
            ck_assert(within_seconds(&b->think));
            idle++;
        } else {
            ck_assert_ptr_nonnull(strstr(d2, " idle=no"));
            ck_assert_int_eq(b->think.a_us, a->think.a_us);
        }
        ck_assert_int_eq(b->nemesis_kinds & ~a->nemesis_kinds, 0); /* a subset of its own draw */
        int n = __builtin_popcount((unsigned)b->nemesis_kinds);
        ck_assert_int_le(n, 2);
        ck_assert_int_eq(b->nemesis, n > 0);
        ck_assert_ptr_nonnull(strstr(d2, " focus=yes"));
        ck_assert_ptr_null(strstr(d1, "focus"));
        kept[n]++;
        if (n == 0 && quiet == NULL) quiet = b;
        else fault_swarm_free(b);
        fault_swarm_free(a);
    }
    for (int n = 0; n < 3; n++) ck_assert_msg(kept[n] > 60, "%d kinds kept in %d of 300 seeds", n, kept[n]);
    ck_assert_msg(idle > 110 && idle < 190, "idle in %d of 300 seeds (50%%)", idle);
    ck_assert_msg(slow > 110 && slow < 190, "slow in %d of 300 seeds (50%%)", slow);
    ck_assert_ptr_nonnull(quiet);
    char *out = tscn_written(quiet);
    ck_assert_ptr_null(strstr(out, "[nemesis]"));
    scenario back;
    load(out, &back);
    ck_assert(!back.nemesis && !back.swarm);
    free(out);
    scn_free(&back);
    fault_swarm_free(quiet);
    scn_free(&f);
    scn_free(&s);
}
END_TEST

/* [swarm] slow where a lease bounds the holds ([swarm] overrun names
 * such a protocol): only the seeds without a lease (watchdog) hold for
 * seconds; a fixed-lease seed keeps its holds as drawn. */
START_TEST(slow_keeps_the_holds_under_a_lease)
{
    scenario s, w;
    load_base_with("overrun = 25%\n", &s);
    load_base_with("overrun = 25%\nslow = 100%\n", &w);
    int slow = 0, fixed = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&w, seed, d2, sizeof d2);
        ck_assert_int_eq(b->lease_us, a->lease_us);
        if (b->lease_us == SCN_LEASE_WATCHDOG) {
            ck_assert_ptr_nonnull(strstr(d2, " slow=yes"));
            ck_assert(within_seconds(&b->hold));
            slow++;
        } else {
            ck_assert_ptr_nonnull(strstr(d2, " slow=no"));
            ck_assert_int_eq(b->hold.a_us, a->hold.a_us);
            ck_assert_int_eq(b->hold.b_us, a->hold.b_us);
            fixed++;
        }
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(slow > 20 && fixed > 100, "%d watchdog seeds slow, %d fixed-lease seeds", slow, fixed);
    scn_free(&w);
    scn_free(&s);
}
END_TEST

/* A semaphore's swarm file, for the keys drawn last. */
#define SEM_SWARM                                                                                                 \
    "[scenario]\nduration = 30s\n[protocol]\nname = redisson.semaphore\npermits = 3\n[clients]\ncount = 3\n" \
    "permits = 1..2\n[nemesis]\nkinds = any\n[swarm]\nclients = 2..5\nhold = 1ms..500ms\n"

/* b drew what a drew before the keys drawn last. */
static void same_draws(const scenario *a, const scenario *b)
{
    ck_assert_int_eq(b->clients, a->clients);
    ck_assert_int_eq(b->hold.b_us, a->hold.b_us);
    ck_assert_int_eq(b->nemesis_kinds, a->nemesis_kinds);
}

/* base into s, and base with the [swarm] line key added into with. */
static void load_with(const char *base, const char *key, scenario *s, scenario *with)
{
    char *text = NULL;
    if (asprintf(&text, "%s%s", base, key) < 0) ck_abort();
    load(base, s);
    load(text, with);
    free(text);
}

/* [swarm] huge: the last draw, only when named; a huge seed counts the
 * semaphore's permits in units of (2^31 - 1) / permits: 3 permits and
 * acquires of 1..2 become 2147483646 and 715827882..1431655764, within
 * the Java int; every other value as drawn without it; written out, the
 * counts read back. */
START_TEST(huge_counts_permits_near_the_int_limit)
{
    scenario s, h;
    load_with(SEM_SWARM, "huge = 50%\n", &s, &h);
    int huge = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&h, seed, d2, sizeof d2);
        same_draws(a, b);
        ck_assert_ptr_null(strstr(d1, "huge"));
        if (strstr(d2, " huge=yes")) {
            ck_assert_int_eq(b->init_permits, 2147483646);
            ck_assert_int_eq(b->acquire_permits.a_us, 715827882);
            ck_assert_int_eq(b->acquire_permits.b_us, 1431655764);
            if (huge++ == 0) {
                char *out = tscn_written(b);
                scenario back;
                load(out, &back);
                ck_assert_int_eq(back.init_permits, 2147483646);
                ck_assert_int_eq(back.acquire_permits.b_us, 1431655764);
                ck_assert(!back.swarm);
                scn_free(&back);
                free(out);
            }
        } else {
            ck_assert_ptr_nonnull(strstr(d2, " huge=no"));
            ck_assert_int_eq(b->init_permits, 3);
            ck_assert_int_eq(b->acquire_permits.b_us, 2);
        }
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(huge > 70 && huge < 130, "huge in %d of 200 seeds (50%%)", huge);
    scn_free(&h);
    scn_free(&s);
}
END_TEST

/* [swarm] single: drawn after huge, only when named; a single seed
 * acquires one permit a cycle and, where it lends, lends 1..2 ([clients]
 * lend); every other value as drawn without it; written out, the counts
 * read back. */
START_TEST(single_acquires_one_and_lends_the_range)
{
    scenario s, h;
    load_with(SEM_SWARM "addpermits = 50%\n", "single = 50%\n", &s, &h);
    int single = 0, lending = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        char d1[512], d2[512];
        scenario *a = fault_swarm_draw(&s, seed, d1, sizeof d1);
        scenario *b = fault_swarm_draw(&h, seed, d2, sizeof d2);
        same_draws(a, b);
        ck_assert_int_eq(b->addpermits_ppm, a->addpermits_ppm);
        ck_assert_ptr_null(strstr(d1, "single"));
        ck_assert_int_eq(a->lend_permits.a_us, 0);
        if (strstr(d2, " single=yes")) {
            single++;
            ck_assert_int_eq(b->acquire_permits.kind, SCN_DIST_CONST);
            ck_assert_int_eq(b->acquire_permits.a_us, 1);
            if (b->addpermits_ppm > 0) {
                ck_assert_ptr_nonnull(strstr(d2, " lend=1..2"));
                ck_assert_int_eq(b->lend_permits.a_us, 1);
                ck_assert_int_eq(b->lend_permits.b_us, 2);
                if (lending++ == 0) {
                    char *out = tscn_written(b);
                    ck_assert_ptr_nonnull(strstr(out, "lend = 1..2"));
                    scenario back;
                    load(out, &back);
                    ck_assert_int_eq(back.lend_permits.b_us, 2);
                    ck_assert_int_eq(back.acquire_permits.b_us, 1);
                    scn_free(&back);
                    free(out);
                }
            } else {
                ck_assert_int_eq(b->lend_permits.a_us, 0);
            }
        } else {
            ck_assert_ptr_nonnull(strstr(d2, " single=no"));
            ck_assert_int_eq(b->acquire_permits.b_us, 2);
            ck_assert_int_eq(b->lend_permits.a_us, 0);
        }
        fault_swarm_free(a);
        fault_swarm_free(b);
    }
    ck_assert_msg(single > 70 && single < 130 && lending > 20, "single in %d of 200 seeds (50%%), %d lending",
                  single, lending);
    scn_free(&h);
    scn_free(&s);
}
END_TEST

/* The workload shapes drawn last: keys at 0% draw nothing (the draws and
 * values are those of a file without them); at 100% each shape is drawn
 * within its bounds, and the drawn scenario writes and reads them back. */
START_TEST(workload_shapes_draw_only_when_asked)
{
    char text[1024];
    scenario s, zero, all, over;
    load(base_text, &s);
    snprintf(text, sizeof text, "%snowait = 0%%\nswitch = 0%%\nlease-spread = 0%%\nretry-unlock = 0%%\n"
             "overrun = 0%%\nlong-hold = 0%%\n", base_text);
    load(text, &zero);
    snprintf(text, sizeof text, "%strylock = 100%%\nnowait = 100%%\nswitch = 100%%\nlease-spread = 100%%\n"
             "retry-unlock = 100%%\nlong-hold = 100%%\n", base_text);
    load(text, &all);
    snprintf(text, sizeof text, "%soverrun = 100%%\n", base_text);
    load(text, &over);
    int spread = 0, long_holds = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        char d0[512], d1[512];
        scenario *a = fault_swarm_draw(&s, seed, d0, sizeof d0);
        scenario *z = fault_swarm_draw(&zero, seed, d1, sizeof d1);
        ck_assert_str_eq(d0, d1);
        ck_assert_int_eq(a->hold.b_us, z->hold.b_us);
        ck_assert(!z->retry_unlock && z->switch_ppm == 0 && !scn_has_acquire_lease(z));
        fault_swarm_free(z);
        scenario *c = fault_swarm_draw(&all, seed, d1, sizeof d1);
        ck_assert(c->mode == SCN_MODE_TRYLOCK && c->wait_us == 0);
        ck_assert(c->switch_ppm == 500000 && c->release_fifo_ppm == 500000 && c->reentry_ppm >= 500000);
        ck_assert(c->retry_unlock);
        int64_t top = c->hold.kind == SCN_DIST_UNIFORM ? c->hold.b_us : c->hold.a_us;
        if (c->lease_us == SCN_LEASE_WATCHDOG) { /* long-hold: past the 30s watchdog timeout, some */
            ck_assert(!scn_has_acquire_lease(c));
            ck_assert(c->hold.a_us >= SIM_SEC(15) && top <= SIM_SEC(60));
            long_holds++;
        } else { /* lease-spread: within [swarm] lease; holds up to its top */
            ck_assert(scn_has_acquire_lease(c));
            ck_assert(c->acquire_lease.a_us >= SIM_SEC(3) && c->acquire_lease.b_us <= SIM_SEC(20));
            ck_assert(top <= (c->acquire_lease.kind == SCN_DIST_UNIFORM ? c->acquire_lease.b_us : c->acquire_lease.a_us));
            spread++;
        }
        fault_swarm_free(c);
        c = fault_swarm_draw(&over, seed, d1, sizeof d1);
        top = c->hold.kind == SCN_DIST_UNIFORM ? c->hold.b_us : c->hold.a_us;
        if (c->lease_us == SCN_LEASE_WATCHDOG) ck_assert_int_eq(top, a->hold.kind == SCN_DIST_UNIFORM ? a->hold.b_us : a->hold.a_us);
        else ck_assert(c->hold.a_us >= c->lease_us / 2 && top <= c->lease_us * 2);
        fault_swarm_free(c);
        fault_swarm_free(a);
    }
    ck_assert(spread > 50 && long_holds > 20);
    /* The drawn scenario names the shapes and reads back to them. */
    char d[512];
    scenario *c = NULL;
    for (uint64_t seed = 1; c == NULL || c->lease_us == SCN_LEASE_WATCHDOG; seed++) {
        if (c) fault_swarm_free(c);
        c = fault_swarm_draw(&all, seed, d, sizeof d);
    }
    ck_assert_ptr_nonnull(strstr(d, " switch=50% leases="));
    char *out = tscn_written(c);
    ck_assert_ptr_nonnull(strstr(out, "\nswitch = 50%\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nretry-unlock = yes\n"));
    scenario back;
    load(out, &back);
    ck_assert(back.retry_unlock && back.switch_ppm == 500000 && back.release_fifo_ppm == 500000);
    ck_assert_int_eq(back.acquire_lease.a_us, c->acquire_lease.a_us);
    ck_assert_int_eq(back.acquire_lease.b_us, c->acquire_lease.b_us);
    ck_assert_int_eq(back.wait_us, 0);
    free(out);
    fault_swarm_free(c);
    scn_free(&back);
    scn_free(&over);
    scn_free(&all);
    scn_free(&zero);
    scn_free(&s);
}
END_TEST

/* [swarm] stop: drawn last, so a seed's other draws stay; the work ends
 * within the nemesis window, the faults at most the longest hold later;
 * the drawn scenario names it and reads back to it. */
START_TEST(stop_ends_the_work_and_then_the_faults)
{
    scenario s, all;
    load(base_text, &s);
    load_base_with("stop = 100%\n", &all);
    int drawn = 0, cut = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        char d0[512], d1[512];
        scenario *a = fault_swarm_draw(&s, seed, d0, sizeof d0);
        scenario *c = fault_swarm_draw(&all, seed, d1, sizeof d1);
        ck_assert_int_eq(a->work_stop_us, 0);
        ck_assert_int_eq(c->clients, a->clients);
        ck_assert_int_eq(c->nemesis_kinds, a->nemesis_kinds);
        ck_assert_int_eq(c->nemesis_start_us, a->nemesis_start_us);
        ck_assert(c->work_stop_us >= c->nemesis_start_us && c->work_stop_us <= a->nemesis_stop_us);
        int64_t hi = c->hold.kind == SCN_DIST_UNIFORM ? c->hold.b_us : c->hold.a_us;
        ck_assert(c->nemesis_stop_us <= a->nemesis_stop_us && c->nemesis_stop_us <= c->work_stop_us + hi);
        ck_assert(c->nemesis_stop_us >= c->work_stop_us || c->nemesis_stop_us == a->nemesis_stop_us);
        ck_assert_ptr_nonnull(strstr(d1, " stop="));
        ck_assert_ptr_null(strstr(d0, " stop="));
        cut += c->nemesis_stop_us < a->nemesis_stop_us;
        drawn++;
        if (seed == 7) {
            char *out = tscn_written(c);
            ck_assert_ptr_nonnull(strstr(out, "\nstop = "));
            scenario back;
            load(out, &back);
            ck_assert_int_eq(back.work_stop_us, c->work_stop_us);
            ck_assert_int_eq(back.nemesis_stop_us, c->nemesis_stop_us);
            scn_free(&back);
            free(out);
        }
        fault_swarm_free(c);
        fault_swarm_free(a);
    }
    ck_assert(drawn == 300 && cut > 100);
    scn_free(&all);
    scn_free(&s);
}
END_TEST

Suite *swarm_suite(void)
{
    Suite *s = suite_create("swarm");
    TCase *t = tcase_create("draws");
    tcase_add_test(t, a_seed_draws_the_same_values);
    tcase_add_test(t, draws_stay_within_the_bounds);
    tcase_add_test(t, kinds_follow_the_file_and_the_topology);
    tcase_add_test(t, the_drawn_scenario_reads_back);
    tcase_add_test(t, kinds_any_and_swarm_round_trip);
    tcase_add_test(t, later_keys_draw_after_the_older_draws);
    tcase_add_test(t, protocol_keys_draw_last);
    tcase_add_test(t, no_reentry_where_not_claimed);
    tcase_add_test(t, focus_keeps_few_of_the_drawn_kinds);
    tcase_add_test(t, huge_counts_permits_near_the_int_limit);
    tcase_add_test(t, single_acquires_one_and_lends_the_range);
    tcase_add_test(t, slow_keeps_the_holds_under_a_lease);
    tcase_add_test(t, bounds_that_are_not_bounds_are_refused);
    tcase_add_test(t, workload_shapes_draw_only_when_asked);
    tcase_add_test(t, stop_ends_the_work_and_then_the_faults);
    suite_add_tcase(s, t);
    return s;
}
