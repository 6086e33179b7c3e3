/* test_fake_expiry.c — expiry by the node's own clock: exactly at the
 * deadline (Redis 7: a key lives while now <= deadline), PEXPIRE <= 0,
 * TTL rounding, clock jumps (of its own clock or of one it was lent), and
 * node time frozen for a script's length. */
#include "tests/unit/tests.h"

#define EQ(cmd, want) ck_assert_str_eq(tcmd(&t, cmd), want)

START_TEST(expiry_exactly_at_the_deadline)
{
    tnode t;
    tnode_init(&t);
    EQ("SET k v PX 100", "+\"OK\"");
    sim_run(t.ctx, SIM_MS(99));
    EQ("PTTL k", "(integer) 1");
    sim_run(t.ctx, SIM_MS(100)); /* node time == deadline: still there */
    EQ("PTTL k", "(integer) 0");
    EQ("EXISTS k", "(integer) 1");
    sim_run(t.ctx, SIM_MS(100) + 999); /* same millisecond */
    EQ("GET k", "\"v\"");
    sim_run(t.ctx, SIM_MS(101));
    EQ("EXISTS k", "(integer) 0");
    EQ("PTTL k", "(integer) -2");
    EQ("TTL k", "(integer) -2");
    ck_assert_uint_eq(fake_node_stats(t.node)->expired, 1);
    tnode_done(&t);
}
END_TEST

START_TEST(expire_commands)
{
    tnode t;
    tnode_init(&t);
    EQ("PEXPIRE nokey 100", "(integer) 0");
    EQ("SET k v", "+\"OK\"");
    EQ("PTTL k", "(integer) -1");
    EQ("PEXPIRE k 0", "(integer) 1"); /* ms <= 0 deletes at once */
    EQ("EXISTS k", "(integer) 0");
    EQ("SET k v", "+\"OK\"");
    EQ("EXPIRE k -5", "(integer) 1");
    EQ("EXISTS k", "(integer) 0");
    EQ("SET k v PX 1500", "+\"OK\"");
    EQ("TTL k", "(integer) 2"); /* (1500 + 500) / 1000 */
    EQ("PEXPIRE k 1499", "(integer) 1");
    EQ("TTL k", "(integer) 1");
    EQ("PEXPIRE k 5000 NX", "(integer) 0");
    EQ("PEXPIRE k 5000 GT", "(integer) 1");
    EQ("PEXPIRE k 100 GT", "(integer) 0");
    EQ("PERSIST k", "(integer) 1");
    EQ("PTTL k", "(integer) -1");
    EQ("PEXPIRE k 9223372036854775807", "(error) \"ERR invalid expire time in 'pexpire' command\"");
    EQ("PEXPIREAT k 1000", "(integer) 1"); /* in the past */
    EQ("EXISTS k", "(integer) 0");
    EQ("SET k v EX 10 KEEPTTL", "(error) \"ERR syntax error\"");
    EQ("SET k v EX 10", "+\"OK\"");
    EQ("SET k w KEEPTTL", "+\"OK\"");
    EQ("PTTL k", "(integer) 10000");
    EQ("SET k w", "+\"OK\""); /* a plain SET drops the TTL */
    EQ("PTTL k", "(integer) -1");
    tnode_done(&t);
}
END_TEST

START_TEST(a_forward_clock_jump_expires_early)
{
    tnode t;
    tnode_init(&t);
    EQ("SET lock x PX 10000", "+\"OK\"");
    sim_clock_jump(t.ctx, fake_node_clock(t.node), SIM_SEC(11));
    EQ("EXISTS lock", "(integer) 0");
    EQ("SET lock x PX 10000", "+\"OK\"");
    sim_clock_jump(t.ctx, fake_node_clock(t.node), -SIM_SEC(60)); /* backward: lives longer */
    sim_run(t.ctx, SIM_SEC(30));
    EQ("PTTL lock", "(integer) 40000");
    tnode_done(&t);
}
END_TEST

/* A node given a clock reads that one (the world owns its nodes' clocks):
 * moving the lent clock moves the node's time; its own stays unused. */
START_TEST(a_lent_clock_is_the_node_time)
{
    sim_ctx *ctx = sim_new(1);
    sim_clock lent;
    sim_clock_init(&lent);
    fake_node *n = fake_node_new(ctx, "redis0", &lent);
    ck_assert_ptr_eq(fake_node_clock(n), &lent);
    const char *set[] = {"SET", "k", "v", "PX", "10000"}, *exists[] = {"EXISTS", "k"};
    sim_reply_free(fake_execv(n, NULL, 5, set));
    sim_clock_jump(ctx, &lent, SIM_SEC(11));
    sim_reply *r = fake_execv(n, NULL, 2, exists);
    ck_assert_int_eq(r->integer, 0);
    sim_reply_free(r);
    fake_node_free(n);
    sim_free(ctx);
}
END_TEST

/* The trace sink moves the node's clock a second forward each time the
 * script logs: time passing while a script runs. */
static void jump_on_log(void *ud, const char *line, size_t len)
{
    (void)line;
    (void)len;
    tnode *t = ud;
    sim_clock_jump(t->ctx, fake_node_clock(t->node), SIM_SEC(1));
}

START_TEST(node_time_is_frozen_inside_a_script)
{
    tnode t;
    tnode_init(&t);
    sim_set_trace_sink(t.ctx, jump_on_log, &t);
    const char *body =
        "redis.call('set', KEYS[1], 'v', 'px', 500)\n"
        "redis.log(redis.LOG_NOTICE, 'tick')\n"
        "redis.log(redis.LOG_NOTICE, 'tock')\n"
        "return {redis.call('pttl', KEYS[1]), redis.call('exists', KEYS[1])}";
    ck_assert_str_eq(teval(&t, body, 1, "k"), "[(integer) 500, (integer) 1]");
    sim_set_trace_sink(t.ctx, NULL, NULL);
    EQ("EXISTS k", "(integer) 0"); /* two seconds later, outside the script */
    tnode_done(&t);
}
END_TEST

Suite *fake_expiry_suite(void)
{
    Suite *s = suite_create("fake_expiry");
    TCase *core = tcase_create("core");
    tcase_add_test(core, expiry_exactly_at_the_deadline);
    tcase_add_test(core, expire_commands);
    tcase_add_test(core, a_forward_clock_jump_expires_early);
    tcase_add_test(core, a_lent_clock_is_the_node_time);
    tcase_add_test(core, node_time_is_frozen_inside_a_script);
    suite_add_tcase(s, core);
    return s;
}
