/* test_world.c — the simulated deployment's mechanics: per-connection
 * order under random latency, node crash (reset, refused, data lost or
 * kept), node pause, replication with lag (PEXPIRE as absolute PEXPIREAT),
 * WAIT, failover (the most up-to-date replica; unreplicated writes lost)
 * and the network policy hook. */
#include <stdio.h>
#include <string.h>

#include "tests/unit/tests.h"
#include "tests/unit/world_fixture.h"

START_TEST(replies_keep_order_on_a_connection)
{
    wf_run R;
    wf_start(&R, 0, 0, "", 5);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    for (uint64_t i = 1; i <= 50; i++) wf_send(c, i, "INCR", "n", NULL);
    sim_run(ctx, SIM_SEC(1));
    ck_assert_int_eq(r.replies, 50);
    for (int i = 0; i < 50; i++) ck_assert_uint_eq(r.ids[i], (uint64_t)i + 1);
    ck_assert_str_eq(r.last, "(integer) 50");
    wf_end(&R);
}
END_TEST

START_TEST(node_crash_resets_and_loses_data)
{
    for (int persist = 0; persist <= 1; persist++) {
        wf_run R;
        wf_start(&R, 0, persist, "", 1);
        sim_ctx *ctx = R.ctx;
        world *w = R.w;
        wf_rec r = {0};
        world_conn *c = wf_connect(w, &r);
        wf_send(c, 1, "SET", "k", "v");
        sim_run(ctx, SIM_MS(10));
        world_node_crash(w, 0);
        ck_assert(!world_node_up(w, 0));
        sim_run(ctx, SIM_MS(20));
        ck_assert_int_eq(r.resets, 1);
        /* A new connection to a down node is refused. */
        wf_rec r2 = {0};
        world_conn_node(world_connect(w, WORLD_CLIENT(1), 0, "c1>redis0 again", wf_on_reply, wf_on_push, wf_on_reset, &r2));
        sim_run(ctx, SIM_MS(30));
        ck_assert_int_eq(r2.resets, 1);
        world_node_restart(w, 0);
        wf_rec r3 = {0};
        world_conn *c3 = world_connect(w, WORLD_CLIENT(1), 0, "c1>redis0 third", wf_on_reply, wf_on_push, wf_on_reset, &r3);
        wf_send(c3, 9, "GET", "k", NULL);
        sim_run(ctx, SIM_MS(40));
        ck_assert_str_eq(r3.last, persist ? "\"v\"" : "(nil)");
        wf_end(&R);
    }
}
END_TEST

START_TEST(node_pause_holds_commands)
{
    wf_run R;
    wf_start(&R, 0, 0, "", 1);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    sim_run(ctx, SIM_MS(5));
    world_node_pause(w, 0, SIM_SEC(2));
    wf_send(c, 1, "SET", "k", "v");
    sim_run(ctx, SIM_SEC(1));
    ck_assert_int_eq(r.replies, 0); /* queued at the paused node */
    sim_run(ctx, SIM_SEC(3));
    ck_assert_int_eq(r.replies, 1);
    ck_assert_str_eq(r.last, "+\"OK\"");
    wf_end(&R);
}
END_TEST

START_TEST(replication_wait_and_absolute_expiry)
{
    wf_run R;
    wf_start(&R, 2, 0, "", 2);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    ck_assert_int_eq(world_nodes(w), 3);
    ck_assert_str_eq(world_node_name(w, 1), "redis0.r1");
    ck_assert_int_eq(world_connected_replicas(w, 0), 2);
    /* The replica's clock is 5 s ahead: an absolute deadline leaves it
     * 5 s less of the key's life. */
    sim_clock_jump(ctx, world_node_clock(w, 2), SIM_SEC(5));
    world_node_clock_changed(w, 2);
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    wf_send(c, 1, "SET", "k", "v");
    wf_send(c, 2, "PEXPIRE", "k", "60000");
    wf_send(c, 3, "WAIT", "2", "1000");
    sim_run(ctx, SIM_MS(5));
    ck_assert_int_eq(r.replies, 2); /* WAIT blocks until both acked */
    world_peek_result pk;
    ck_assert(!world_peek(w, 1, "k", 1, &pk)); /* not there yet: lag */
    sim_run(ctx, SIM_MS(100));
    ck_assert_int_eq(r.replies, 3);
    ck_assert_str_eq(r.last, "(integer) 2");
    ck_assert(world_peek(w, 1, "k", 1, &pk));
    int64_t master_deadline = pk.expire_ms;
    ck_assert(world_peek(w, 0, "k", 1, &pk));
    ck_assert_int_eq(pk.expire_ms, master_deadline); /* the same absolute time */
    const char *pttl[] = {"PTTL", "k"};
    sim_reply *a = world_admin(w, 0, 2, pttl);
    sim_reply *b = world_admin(w, 2, 2, pttl);
    ck_assert_int_eq(a->integer - b->integer, 5000);
    sim_reply_free(a);
    sim_reply_free(b);
    /* A replica refuses clients' writes. */
    const char *set[] = {"SET", "x", "1"};
    sim_reply *ro = world_admin(w, 1, 3, set);
    ck_assert_str_eq(ro->str, "READONLY You can't write against a read only replica.");
    sim_reply_free(ro);
    /* With a replica down, WAIT 2 times out with what it has. */
    world_node_crash(w, 2);
    wf_send(c, 4, "INCR", "n", NULL);
    wf_send(c, 5, "WAIT", "2", "50");
    sim_run(ctx, SIM_MS(300));
    ck_assert_int_eq(r.replies, 5);
    ck_assert_str_eq(r.last, "(integer) 1");
    wf_end(&R);
}
END_TEST

typedef struct told {
    int group, node, calls;
} told;

static void on_master(void *ud, int client, int group, int node)
{
    (void)client;
    told *t = ud;
    t->group = group;
    t->node = node;
    t->calls++;
}

START_TEST(failover_loses_unreplicated_writes)
{
    wf_run R;
    wf_start(&R, 2, 0, "", 3);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    told t = {-1, -1, 0};
    world_set_master_listener(w, on_master, &t);
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    wf_send(c, 1, "SET", "old", "1");
    sim_run(ctx, SIM_MS(100)); /* replicated */
    wf_send(c, 2, "SET", "new", "1");
    sim_run(ctx, SIM_MS(102)); /* executed, not yet replicated */
    world_node_crash(w, 0);
    sim_run(ctx, SIM_MS(500));
    ck_assert_int_eq(world_master(w, 0), 0); /* down-after not reached */
    sim_run(ctx, SIM_MS(1200));
    int m = world_master(w, 0);
    ck_assert(m == 1 || m == 2);
    world_peek_result pk;
    ck_assert(world_peek(w, m, "old", 3, &pk));
    ck_assert(!world_peek(w, m, "new", 3, &pk)); /* gone with the old master */
    ck_assert_int_eq(t.calls, 0); /* clients learn after the discovery delay */
    sim_run(ctx, SIM_MS(1400));
    ck_assert_int_eq(t.calls, 1);
    ck_assert_int_eq(t.node, m);
    ck_assert(!world_is_replica(w, m));
    /* The old master comes back as a replica of the new one. */
    world_node_restart(w, 0);
    ck_assert(world_is_replica(w, 0));
    ck_assert(world_peek(w, 0, "old", 3, &pk));
    wf_end(&R);
}
END_TEST

static void drop_replies(void *ud, int from, int to, world_msg_kind kind, const sim_reply *msg,
                         world_verdict *out)
{
    (void)ud;
    (void)from;
    (void)to;
    (void)msg;
    if (kind == WORLD_MSG_REPLY) out->drop = 1;
    if (kind == WORLD_MSG_CMD) out->extra_us = SIM_MS(50);
}

START_TEST(policy_drops_and_delays)
{
    wf_run R;
    wf_start(&R, 0, 0, "", 1);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    sim_run(ctx, SIM_MS(5));
    world_set_policy(w, drop_replies, NULL);
    wf_send(c, 1, "INCR", "n", NULL);
    sim_run(ctx, SIM_MS(40));
    world_peek_result pk;
    ck_assert(!world_peek(w, 0, "n", 1, &pk)); /* delayed by 50 ms */
    sim_run(ctx, SIM_MS(100));
    ck_assert(world_peek(w, 0, "n", 1, &pk)); /* the server ran it ... */
    ck_assert_int_eq(r.replies, 0);                            /* ... the reply was lost */
    wf_end(&R);
}
END_TEST

/* Everything from client 1 to the nodes is lost (a one-way partition,
 * the resets back not cut: the client side decides a connect failed). */
static void drop_from_client(void *ud, int from, int to, world_msg_kind kind, const sim_reply *msg,
                             world_verdict *out)
{
    (void)ud;
    (void)to;
    (void)kind;
    (void)msg;
    if (from == WORLD_CLIENT(1)) out->drop = 1;
}

/* A connect whose handshake is lost never opens: the client learns it as
 * a reset (one latency later), even while the link is cut both ways, and
 * a connect after the cut opens. */
START_TEST(lost_open_fails_the_connect)
{
    wf_run R;
    wf_start(&R, 0, 0, "", 1);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    world_set_policy(w, drop_from_client, NULL);
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    wf_send(c, 1, "INCR", "n", NULL);
    sim_run(ctx, SIM_MS(10));
    ck_assert_int_eq(r.resets, 1);
    ck_assert(world_conn_closed(c));
    ck_assert_int_eq(r.replies, 0);
    world_set_policy(w, NULL, NULL);
    wf_rec r2 = {0};
    world_conn *c2 = wf_connect(w, &r2);
    wf_send(c2, 2, "INCR", "n", NULL);
    sim_run(ctx, SIM_MS(20));
    ck_assert_int_eq(r2.resets, 0);
    ck_assert_int_eq(r2.replies, 1);
    ck_assert_str_eq(r2.last, "(integer) 1");
    wf_end(&R);
}
END_TEST

/* A forced failover demotes the master while a client blocks in WAIT:
 * the WAIT is answered UNBLOCKED, an error (not a count of 0), the
 * connection is closed after it, and the command queued behind the WAIT
 * never runs (Redis's disconnectAllBlockedClients on REPLICAOF). */
START_TEST(failover_unblocks_wait_with_an_error)
{
    wf_run R;
    wf_start(&R, 1, 0, "", 4);
    sim_ctx *ctx = R.ctx;
    world *w = R.w;
    wf_rec r = {0};
    world_conn *c = wf_connect(w, &r);
    wf_send(c, 1, "SET", "k", "v");
    wf_send(c, 2, "WAIT", "1", "5000");
    wf_send(c, 3, "INCR", "n", NULL);
    sim_run(ctx, SIM_MS(5)); /* run, not yet replicated (lag 10..20 ms) */
    ck_assert_int_eq(r.replies, 1);
    ck_assert(world_failover(w, 0) == 1);
    sim_run(ctx, SIM_MS(50));
    ck_assert_int_eq(r.replies, 2);
    ck_assert_msg(strstr(r.last, "UNBLOCKED force unblock") != NULL, "got %s", r.last);
    ck_assert_int_eq(r.resets, 1);
    world_peek_result pk;
    ck_assert(!world_peek(w, 0, "n", 1, &pk)); /* the INCR behind it never ran */
    wf_end(&R);
}
END_TEST

Suite *world_suite(void)
{
    Suite *s = suite_create("world");
    TCase *core = tcase_create("core");
    tcase_add_test(core, replies_keep_order_on_a_connection);
    tcase_add_test(core, node_crash_resets_and_loses_data);
    tcase_add_test(core, node_pause_holds_commands);
    tcase_add_test(core, replication_wait_and_absolute_expiry);
    tcase_add_test(core, failover_loses_unreplicated_writes);
    tcase_add_test(core, policy_drops_and_delays);
    tcase_add_test(core, lost_open_fails_the_connect);
    tcase_add_test(core, failover_unblocks_wait_with_an_error);
    suite_add_tcase(s, core);
    return s;
}
