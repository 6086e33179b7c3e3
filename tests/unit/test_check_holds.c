/* test_check_holds.c — the holds the checkers share (check_holds_build), on
 * hand-made histories: reentry is one hold, a crash ends every hold and
 * wait of its process, a force unlock ends its thread's holds, read and
 * write sides, semaphore shares, holds open at the end, and the peers a
 * hold sees when it begins. */
#include "sim/checkers/checkers.h"
#include "tests/unit/tests.h"

#define MS(x) ((int64_t)(x) * 1000)
#define ALL (CHECK_HOLDS(CHECK_HOLDS_DEPTH) | CHECK_HOLDS(CHECK_HOLDS_SIDES) | CHECK_HOLDS(CHECK_HOLDS_SHARES))

/* One event of (client, thread) on lock; value: the depth it reports. */
static void ev(history *h, hist_kind kind, hist_op op, int client, int thread, int lock, int64_t value)
{
    hist_event e = {.t_us = MS(h->n), .kind = kind, .op = op, .client = client, .inc = 1, .thread = thread,
                    .lock = lock, .value = value};
    hist_add(h, &e);
}

/* The last event added: its mode and permits. */
static void shape(history *h, int mode, int64_t n)
{
    h->ev[h->n - 1].mode = mode;
    h->ev[h->n - 1].n = n;
}

static void crash(history *h, int client)
{
    hist_event e = {.t_us = MS(h->n), .kind = HIST_INFO, .op = HOP_CRASH, .client = client, .inc = 1};
    hist_add(h, &e);
}

static const check_spans *rule(const check_holds *hs, check_hold_rule r)
{
    return &hs->rule[r];
}

START_TEST(reentry_is_one_hold)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1);     /* 0 */
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 2);     /* 1: reentry */
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 1); /* 2: still held */
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0); /* 3: the hold ends */
    check_holds *hs = check_holds_build(&h, 1, ALL);
    for (int r = 0; r < CHECK_HOLD_RULES; r++) {
        ck_assert_uint_eq(rule(hs, r)->n, 1);
        const check_span *x = &rule(hs, r)->v[0];
        ck_assert_uint_eq(x->from_k, 0);
        ck_assert_uint_eq(x->to_k, 3);
        ck_assert_int_eq(x->to_us, MS(3));
        ck_assert_int_eq(x->end, CHECK_END_RELEASE);
    }
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

START_TEST(crash_ends_the_process_holds_and_waits)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1);     /* 0: c1.t1 holds lock 0 */
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 2, 1, 1);     /* 1: c1.t2 holds lock 1 */
    ev(&h, HIST_INVOKE, HOP_ACQUIRE, 1, 3, 0, 0); /* 2: c1.t3 waits for lock 0 */
    ev(&h, HIST_OK, HOP_ACQUIRE, 2, 1, 1, 1);     /* 3: c2.t1 holds lock 1 too */
    crash(&h, 1);                                 /* 4 */
    check_holds *hs = check_holds_build(&h, 2, ALL);
    const check_spans *d = rule(hs, CHECK_HOLDS_DEPTH);
    ck_assert_uint_eq(d->n, 3);
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(d->v[i].end, CHECK_END_CRASH);
        ck_assert_uint_eq(d->v[i].to_k, 4);
    }
    ck_assert_int_eq(d->v[2].end, CHECK_END_OPEN); /* another process's */
    ck_assert_uint_eq(hs->waits.n, 1);
    ck_assert_int_eq(hs->waits.v[0].end, CHECK_END_CRASH);
    ck_assert_int_eq(hs->waits.v[0].to_us, MS(4));
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

START_TEST(force_unlock_ends_the_thread_holds)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1); /* 0: write side */
    shape(&h, SCN_RW_WRITE, 0);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 2); /* 1: read side (a downgrade) */
    shape(&h, SCN_RW_READ, 0);
    ev(&h, HIST_FAIL, HOP_FORCE_UNLOCK, 1, 1, 0, 0); /* 2: failed: nothing ends */
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1);        /* 3: the thread reports depth 1 again */
    shape(&h, SCN_RW_WRITE, 0);
    ev(&h, HIST_OK, HOP_FORCE_UNLOCK, 1, 1, 0, 0); /* 4 */
    check_holds *hs = check_holds_build(&h, 1, ALL);
    const check_spans *s = rule(hs, CHECK_HOLDS_SIDES), *d = rule(hs, CHECK_HOLDS_DEPTH);
    ck_assert_uint_eq(s->n, 2); /* write (reentered at 3) and read */
    for (size_t i = 0; i < s->n; i++) {
        ck_assert_int_eq(s->v[i].end, CHECK_END_FORCE);
        ck_assert_uint_eq(s->v[i].to_k, 4);
    }
    ck_assert_uint_eq(d->n, 2); /* by the reported depth: a second hold at 3 */
    ck_assert_uint_eq(d->v[1].from_k, 3);
    ck_assert_uint_eq(d->v[1].npeers, 1);
    ck_assert_uint_eq(hs->peers[d->v[1].peers], 0);
    ck_assert_int_eq(d->v[0].end, CHECK_END_FORCE);
    ck_assert_int_eq(d->v[1].end, CHECK_END_FORCE);
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

START_TEST(sides_and_modes)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1); /* 0: no side: the write side */
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 2); /* 1: write: the same side, reentered */
    shape(&h, SCN_RW_WRITE, 0);
    ev(&h, HIST_OK, HOP_ACQUIRE, 2, 1, 0, 1); /* 2: another thread reads */
    shape(&h, SCN_RW_READ, 0);
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 1); /* 3: no side */
    check_holds *hs = check_holds_build(&h, 1, ALL);
    const check_spans *s = rule(hs, CHECK_HOLDS_SIDES), *m = rule(hs, CHECK_HOLDS_SHARES);
    ck_assert_uint_eq(s->n, 2);
    ck_assert_int_eq(s->v[0].end, CHECK_END_OPEN); /* depth 2 - 1 */
    ck_assert_int_eq(s->v[1].mode, SCN_RW_READ);
    ck_assert_uint_eq(s->v[1].npeers, 1); /* the reader began beside the writer */
    ck_assert_uint_eq(m->n, 3);           /* per mode: none, write, read */
    ck_assert_int_eq(m->v[0].end, CHECK_END_RELEASE);
    ck_assert_int_eq(m->v[1].mode, SCN_RW_WRITE);
    ck_assert_int_eq(m->v[1].end, CHECK_END_OPEN);
    ck_assert_uint_eq(m->v[0].npeers, 0); /* SHARES notes no peers */
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

START_TEST(semaphore_shares)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_INVOKE, HOP_ACQUIRE, 1, 1, 0, 0); /* 0 */
    shape(&h, 0, 2);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1); /* 1: a share of 2 */
    shape(&h, 0, 2);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 2); /* 2: a share of 1 */
    shape(&h, 0, 1);
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 1); /* 3: ends the share of 1 */
    shape(&h, 0, 1);
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0); /* 4: of 3: none matches, the first */
    shape(&h, 0, 3);
    check_holds *hs = check_holds_build(&h, 1, CHECK_HOLDS(CHECK_HOLDS_SHARES));
    const check_spans *m = rule(hs, CHECK_HOLDS_SHARES);
    ck_assert_uint_eq(m->n, 2);
    ck_assert_int_eq(m->v[0].n, 2);
    ck_assert_uint_eq(m->v[0].to_k, 4);
    ck_assert_int_eq(m->v[1].n, 1);
    ck_assert_uint_eq(m->v[1].to_k, 3);
    ck_assert_uint_eq(hs->waits.n, 1);
    ck_assert_int_eq(hs->waits.v[0].end, CHECK_END_REPLY);
    ck_assert_uint_eq(hs->waits.v[0].to_k, 1);
    ck_assert_uint_eq(rule(hs, CHECK_HOLDS_DEPTH)->n, 0); /* only the rules asked for */
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

START_TEST(holds_open_at_the_end)
{
    history h;
    hist_init(&h);
    ev(&h, HIST_OK, HOP_ACQUIRE, 1, 1, 0, 1);
    ev(&h, HIST_INVOKE, HOP_ACQUIRE, 2, 1, 0, 0);
    check_holds *hs = check_holds_build(&h, 1, ALL);
    for (int r = 0; r < CHECK_HOLD_RULES; r++) {
        const check_span *x = &rule(hs, r)->v[0];
        ck_assert_uint_eq(rule(hs, r)->n, 1);
        ck_assert_uint_eq(x->to_k, CHECK_OPEN);
        ck_assert_int_eq(x->to_us, INT64_MAX);
        ck_assert_int_eq(x->end, CHECK_END_OPEN);
    }
    ck_assert_int_eq(hs->waits.v[0].end, CHECK_END_OPEN);
    check_holds_free(hs);
    check_holds_free(NULL);
    hist_free(&h);
}
END_TEST

/* The peers come in the lock's open-set order: an ending hold's slot is
 * taken by the last one. */
START_TEST(peers_in_open_set_order)
{
    history h;
    hist_init(&h);
    for (int c = 1; c <= 3; c++) ev(&h, HIST_OK, HOP_ACQUIRE, c, 1, 0, 1); /* holds 0, 1, 2 */
    ev(&h, HIST_INVOKE, HOP_RELEASE, 1, 1, 0, 0);                          /* hold 2 takes slot 0 */
    ev(&h, HIST_OK, HOP_ACQUIRE, 4, 1, 0, 1);                              /* hold 3 */
    ev(&h, HIST_OK, HOP_ACQUIRE, 5, 1, 7, 1);                              /* lock 7 >= nlocks: skipped */
    check_holds *hs = check_holds_build(&h, 1, CHECK_HOLDS(CHECK_HOLDS_DEPTH));
    const check_spans *d = rule(hs, CHECK_HOLDS_DEPTH);
    ck_assert_uint_eq(d->n, 4);
    const check_span *x = &d->v[3];
    ck_assert_uint_eq(x->npeers, 2);
    ck_assert_uint_eq(hs->peers[x->peers], 2);
    ck_assert_uint_eq(hs->peers[x->peers + 1], 1);
    check_holds_free(hs);
    hist_free(&h);
}
END_TEST

Suite *check_holds_suite(void)
{
    Suite *s = suite_create("check_holds");
    TCase *core = tcase_create("core");
    tcase_add_test(core, reentry_is_one_hold);
    tcase_add_test(core, crash_ends_the_process_holds_and_waits);
    tcase_add_test(core, force_unlock_ends_the_thread_holds);
    tcase_add_test(core, sides_and_modes);
    tcase_add_test(core, semaphore_shares);
    tcase_add_test(core, holds_open_at_the_end);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, peers_in_open_set_order);
    suite_add_tcase(s, limits);
    return s;
}
