/* test_reply.c — reply values: construction, copy, comparison rules
 * (exact, integer tolerance, multiset, pairs) and the readable form. */
#include <string.h>

#include "tests/unit/tests.h"

static sim_reply *arr3(const char *a, const char *b, const char *c)
{
    sim_reply *e[3] = {sim_reply_str(SIM_REPLY_STR, a, strlen(a)),
                       sim_reply_str(SIM_REPLY_STR, b, strlen(b)),
                       sim_reply_str(SIM_REPLY_STR, c, strlen(c))};
    return sim_reply_array(3, e);
}

START_TEST(equality_rules)
{
    sim_reply *a = arr3("x", "y", "z"), *b = arr3("z", "x", "y");
    ck_assert(!sim_reply_equal(a, b, 0, 0));
    ck_assert(sim_reply_equal(a, b, 0, SIM_REPLY_CMP_UNORDERED));
    sim_reply *d = sim_reply_dup(a);
    ck_assert(sim_reply_equal(a, d, 0, 0));
    sim_reply *i1 = sim_reply_int(1000), *i2 = sim_reply_int(1040);
    ck_assert(!sim_reply_equal(i1, i2, 0, 0));
    ck_assert(sim_reply_equal(i1, i2, 50, 0));
    sim_reply *nil = sim_reply_new(SIM_REPLY_NIL), *st = sim_reply_str(SIM_REPLY_STATUS, "OK", 2);
    sim_reply *bulk = sim_reply_str(SIM_REPLY_STR, "OK", 2);
    ck_assert(!sim_reply_equal(st, bulk, 0, 0)); /* types matter */
    ck_assert(!sim_reply_equal(nil, bulk, 0, 0));
    sim_reply *p1 = arr3("f", "v", "g"), *p2 = arr3("g", "v", "f");
    sim_reply_push(p1, sim_reply_str(SIM_REPLY_STR, "w", 1));
    sim_reply_push(p2, sim_reply_str(SIM_REPLY_STR, "w", 1));
    /* pairs (f,v),(g,w) vs (g,v),(f,w): same multiset of items, not of pairs */
    ck_assert(sim_reply_equal(p1, p2, 0, SIM_REPLY_CMP_UNORDERED));
    ck_assert(!sim_reply_equal(p1, p2, 0, SIM_REPLY_CMP_PAIRS));
    sim_reply *all[] = {a, b, d, i1, i2, nil, st, bulk, p1, p2};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) sim_reply_free(all[k]);
}
END_TEST

START_TEST(readable_form)
{
    char buf[128];
    sim_reply *e[2] = {sim_reply_int(-3), sim_reply_str(SIM_REPLY_STR, "a\r\n\x01", 4)};
    sim_reply *a = sim_reply_array(2, e);
    sim_reply_push(a, sim_reply_err("ERR x"));
    sim_reply_push(a, sim_reply_new(SIM_REPLY_NIL));
    sim_reply_format(a, buf, sizeof buf);
    ck_assert_str_eq(buf, "[(integer) -3, \"a\\r\\n\\x01\", (error) \"ERR x\", (nil)]");
    /* Truncation keeps the buffer a string and reports the full length. */
    char small[8];
    size_t full = sim_reply_format(a, small, sizeof small);
    ck_assert_uint_eq(strlen(small), 7);
    ck_assert_uint_eq(full, strlen(buf));
    sim_reply_free(a);
}
END_TEST

Suite *reply_suite(void)
{
    Suite *s = suite_create("reply");
    TCase *core = tcase_create("core");
    tcase_add_test(core, equality_rules);
    tcase_add_test(core, readable_form);
    suite_add_tcase(s, core);
    return s;
}
