/* test_shrink.c — the shrinker (sim/engine/shrink.c): an unlock step is
 * never kept without the lock it releases, or the release it repeats. */
#include <stdio.h>
#include <string.h>

#include "sim/engine/shrink.h"
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
 * not the write lock before it. */
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
     "c1 lock mode=write,c1 lock mode=read,c1 unlock mode=read,c2 lock mode=write", 3},
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

Suite *shrink_suite(void)
{
    Suite *s = suite_create("shrink");
    TCase *t = tcase_create("core");
    tcase_add_loop_test(t, an_unlock_goes_with_its_lock_or_the_release_it_repeats, 0,
                        (int)(sizeof paired / sizeof paired[0]));
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}
