/* test_faults.c — the mechanics of each fault kind, driven through the
 * fault schedule exactly as a scenario's [faults] lines are: partition
 * (symmetric, directed, by group) and heal, lossy links, lost replies (the
 * command still runs), lost pub/sub messages (confirmations still arrive),
 * delays, a raw libfiu point stalling replication, node clocks (offset,
 * drift, jump) as Redis expiry sees them, the nemesis's determinism and
 * its aimed faults (delays to one of several masters, client clocks,
 * crashes on a reply), and a crash on=reply striking at the reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "sim/engine/hunt.h"
#include "tests/unit/tests.h"
#include "tests/unit/world_fixture.h"

static int64_t counter(world *w, int node)
{
    world_peek_result pk;
    if (!world_peek(w, node, "n", 1, &pk)) return 0;
    return strtoll(pk.str, NULL, 10);
}

START_TEST(partition_loses_messages_until_heal)
{
    wf_run r;
    wf_start(&r, 0, 0, "at = 10ms partition c1|redis0\nat = 500ms heal\n", 1);
    wf_rec c = {0};
    world_conn *conn = wf_connect(r.w, &c);
    wf_send(conn, 1, "INCR", "n", NULL);
    sim_run(r.ctx, SIM_MS(5));
    ck_assert_int_eq(c.replies, 1);
    sim_run(r.ctx, SIM_MS(20));
    wf_send(conn, 2, "INCR", "n", NULL);
    sim_run(r.ctx, SIM_MS(400));
    ck_assert_int_eq(c.replies, 1);
    ck_assert_int_eq(counter(r.w, 0), 1); /* the command never arrived */
    sim_run(r.ctx, SIM_MS(600));
    wf_send(conn, 3, "INCR", "n", NULL);
    sim_run(r.ctx, SIM_MS(700));
    ck_assert_int_eq(c.replies, 2);
    ck_assert_str_eq(c.last, "(integer) 2");
    wf_end(&r);
}
END_TEST

START_TEST(directed_partition_cuts_one_way)
{
    /* redis0 -> c1 is cut: commands arrive and run, replies are lost. */
    wf_run r;
    wf_start(&r, 0, 0, "at = 10ms partition redis0->c1\n", 1);
    wf_rec c = {0};
    world_conn *conn = wf_connect(r.w, &c);
    sim_run(r.ctx, SIM_MS(20));
    for (uint64_t i = 1; i <= 3; i++) wf_send(conn, i, "INCR", "n", NULL);
    sim_run(r.ctx, SIM_MS(100));
    ck_assert_int_eq(counter(r.w, 0), 3);
    ck_assert_int_eq(c.replies, 0);
    wf_end(&r);
}
END_TEST

START_TEST(group_partition_cuts_master_and_replicas)
{
    wf_run r;
    wf_start(&r, 1, 0, "at = 10ms partition c1|group0\n", 1);
    wf_rec a = {0}, b = {0};
    world_conn *ca = wf_connect(r.w, &a);
    world_conn *cb = world_connect(r.w, WORLD_CLIENT(1), 1, "c1>redis0.r1", wf_on_reply, wf_on_push, wf_on_reset, &b);
    sim_run(r.ctx, SIM_MS(20));
    wf_send(ca, 1, "PING", NULL, NULL);
    wf_send(cb, 1, "PING", NULL, NULL);
    sim_run(r.ctx, SIM_MS(100));
    ck_assert_int_eq(a.replies + b.replies, 0);
    wf_end(&r);
}
END_TEST

/* c1 subscribed to "ch" on redis0 (sub), c2 to publish (pub), under faults. */
static void pubsub_pair(wf_run *r, const char *faults, wf_rec *a, wf_rec *b, world_conn **sub, world_conn **pub)
{
    wf_start(r, 0, 0, faults, 1);
    *sub = wf_connect(r->w, a);
    *pub = world_connect(r->w, WORLD_CLIENT(2), 0, "c2>redis0", wf_on_reply, wf_on_push, wf_on_reset, b);
    wf_send(*sub, 1, "SUBSCRIBE", "ch", NULL);
}

START_TEST(partition_holds_pushes_until_it_ends)
{
    /* A pub/sub message a partition cuts off arrives when it ends (TCP
     * retransmits it on the surviving connection), after the one sent
     * before it; a healed partition lets out what it held at once. The
     * command the partition cut off is still lost. */
    for (int healed = 0; healed <= 1; healed++) {
        wf_run r;
        wf_rec a = {0}, b = {0};
        world_conn *sub, *pub;
        pubsub_pair(&r, healed ? "at = 10ms partition c1|redis0\nat = 300ms heal\n" : "at = 10ms partition c1|redis0 for=400ms\n",
                    &a, &b, &sub, &pub);
        sim_run(r.ctx, SIM_MS(5));
        ck_assert_int_eq(a.pushes, 1); /* the confirmation */
        sim_run(r.ctx, SIM_MS(20));
        wf_send(pub, 1, "PUBLISH", "ch", "first");
        wf_send(pub, 2, "PUBLISH", "ch", "second");
        wf_send(sub, 2, "PING", NULL, NULL);
        sim_run(r.ctx, SIM_MS(250));
        ck_assert_int_eq(b.replies, 2);
        ck_assert_str_eq(b.last, "(integer) 1"); /* the server sent it ... */
        ck_assert_int_eq(a.messages, 0);          /* ... held by the partition */
        sim_run(r.ctx, healed ? SIM_MS(305) : SIM_MS(415));
        ck_assert_int_eq(a.messages, 2);
        ck_assert(strstr(a.last, "second") != NULL); /* in order */
        ck_assert_int_eq(a.replies, 0);             /* the PING was lost */
        wf_end(&r);
    }
}
END_TEST

START_TEST(held_pushes_die_with_their_connection)
{
    wf_run r;
    wf_rec a = {0}, b = {0};
    world_conn *sub, *pub;
    pubsub_pair(&r, "at = 10ms partition c1|redis0\nat = 300ms heal\n", &a, &b, &sub, &pub);
    sim_run(r.ctx, SIM_MS(20));
    wf_send(pub, 1, "PUBLISH", "ch", "x");
    sim_run(r.ctx, SIM_MS(100));
    world_close(sub); /* the client gave the connection up */
    sim_run(r.ctx, SIM_MS(400));
    ck_assert_int_eq(a.messages, 0);
    wf_end(&r);
}
END_TEST

START_TEST(partition_holds_a_crashed_nodes_close)
{
    /* The node crashes while the client is cut off: the connection's
     * close reaches it at the heal (its FIN retransmitted), not at the
     * next command it writes. */
    wf_run r;
    wf_start(&r, 0, 0, "at = 10ms partition c1|redis0 for=300ms\nat = 50ms crash node=redis0\n", 1);
    wf_rec c = {0};
    wf_connect(r.w, &c);
    sim_run(r.ctx, SIM_MS(250));
    ck_assert_int_eq(c.resets, 0);
    sim_run(r.ctx, SIM_MS(320));
    ck_assert_int_eq(c.resets, 1);
    wf_end(&r);
}
END_TEST

START_TEST(lossy_link_is_deterministic)
{
    int got[2];
    for (int k = 0; k < 2; k++) {
        wf_run r;
        wf_start(&r, 0, 0, "at = 0s drop link=c1-redis0 p=0.5\n", 42);
        wf_rec c = {0};
        world_conn *conn = wf_connect(r.w, &c);
        sim_run(r.ctx, SIM_MS(1));
        for (uint64_t i = 1; i <= 200; i++) wf_send(conn, i, "INCR", "n", NULL);
        sim_run(r.ctx, SIM_SEC(1));
        /* Each command is lost with p, then each reply with p: about a
         * quarter of the round trips complete. */
        ck_assert_int_gt(c.replies, 20);
        ck_assert_int_lt(c.replies, 90);
        ck_assert_int_gt(counter(r.w, 0), 70);
        ck_assert_int_lt(counter(r.w, 0), 130);
        got[k] = c.replies;
        wf_end(&r);
    }
    ck_assert_int_eq(got[0], got[1]);
}
END_TEST

START_TEST(drop_reply_runs_the_command)
{
    wf_run r;
    wf_start(&r, 0, 0, "at = 0s drop-reply client=1 p=1\n", 3);
    wf_rec c1 = {0}, c2 = {0};
    world_conn *a = wf_connect(r.w, &c1);
    world_conn *b = world_connect(r.w, WORLD_CLIENT(2), 0, "c2>redis0", wf_on_reply, wf_on_push, wf_on_reset, &c2);
    sim_run(r.ctx, SIM_MS(1));
    wf_send(a, 1, "INCR", "n", NULL);
    wf_send(a, 2, "INCR", "n", NULL);
    wf_send(b, 1, "INCR", "n", NULL);
    sim_run(r.ctx, SIM_MS(50));
    ck_assert_int_eq(counter(r.w, 0), 3); /* all three ran ... */
    ck_assert_int_eq(c1.replies, 0);      /* ... c1 heard nothing */
    ck_assert_int_eq(c2.replies, 1);      /* c2 is not covered */
    wf_end(&r);
}
END_TEST

START_TEST(drop_pubsub_loses_messages_only)
{
    wf_run r;
    wf_start(&r, 0, 0, "at = 0s drop-pubsub client=1 p=1\n", 4);
    wf_rec c1 = {0}, c2 = {0}, c2sub = {0};
    world_conn *a = wf_connect(r.w, &c1);
    world_conn *b = world_connect(r.w, WORLD_CLIENT(2), 0, "c2>redis0", wf_on_reply, wf_on_push, wf_on_reset, &c2);
    world_conn *bs = world_connect(r.w, WORLD_CLIENT(2), 0, "c2>redis0 sub", wf_on_reply, wf_on_push, wf_on_reset,
                                   &c2sub);
    sim_run(r.ctx, SIM_MS(1));
    wf_send(a, 1, "SUBSCRIBE", "ch", NULL);
    wf_send(bs, 1, "SUBSCRIBE", "ch", NULL);
    sim_run(r.ctx, SIM_MS(10));
    ck_assert_int_eq(c1.pushes, 1); /* the confirmation arrives */
    wf_send(b, 2, "PUBLISH", "ch", "0");
    sim_run(r.ctx, SIM_MS(20));
    ck_assert_int_eq(c2.replies, 1);
    ck_assert_str_eq(c2.last, "(integer) 2"); /* Redis delivered to both ... */
    ck_assert_int_eq(c1.messages, 0);         /* ... c1's copy was lost */
    ck_assert_int_eq(c2sub.messages, 1);
    wf_end(&r);
}
END_TEST

START_TEST(delay_slows_a_link)
{
    wf_run r;
    wf_start(&r, 0, 0, "at = 0s delay link=c1-redis0 by=200ms for=1s\n", 5);
    wf_rec c = {0};
    world_conn *conn = wf_connect(r.w, &c);
    sim_run(r.ctx, SIM_MS(1));
    wf_send(conn, 1, "PING", NULL, NULL);
    sim_run(r.ctx, SIM_MS(350));
    ck_assert_int_eq(c.replies, 0); /* 200 ms each way */
    sim_run(r.ctx, SIM_MS(500));
    ck_assert_int_eq(c.replies, 1);
    /* After the window the link is fast again. */
    sim_run(r.ctx, SIM_MS(1100));
    wf_send(conn, 2, "PING", NULL, NULL);
    sim_run(r.ctx, SIM_MS(1110));
    ck_assert_int_eq(c.replies, 2);
    wf_end(&r);
}
END_TEST

START_TEST(fiu_point_stalls_replication)
{
    wf_run r;
    wf_start(&r, 1, 0, "at = 0s fiu redis/replicate p=1 for=1s\n", 6);
    wf_rec c = {0};
    world_conn *conn = wf_connect(r.w, &c);
    sim_run(r.ctx, SIM_MS(1));
    wf_send(conn, 1, "SET", "k", "v");
    sim_run(r.ctx, SIM_MS(800));
    world_peek_result pk;
    ck_assert(world_peek(r.w, 0, "k", 1, &pk));
    ck_assert(!world_peek(r.w, 1, "k", 1, &pk)); /* held back */
    sim_run(r.ctx, SIM_MS(1300));
    ck_assert(world_peek(r.w, 1, "k", 1, &pk)); /* retried after the window */
    wf_end(&r);
}
END_TEST

static int64_t pttl(world *w)
{
    const char *argv[] = {"PTTL", "k"};
    sim_reply *a = world_admin(w, 0, 2, argv);
    int64_t v = a->integer;
    sim_reply_free(a);
    return v;
}

START_TEST(node_clock_faults_move_expiry)
{
    wf_run r;
    wf_start(&r, 0, 0,
               "at = 1s clock node=redis0 offset=+2s\n"
               "at = 2s clock node=redis0 drift=+500000ppm\n"
               "at = 4s clock node=redis0 jump=+30s\n",
               7);
    const char *set[] = {"SET", "k", "v", "PX", "30000"};
    sim_reply_free(world_admin(r.w, 0, 5, set));
    sim_run(r.ctx, SIM_MS(1500));
    ck_assert_int_eq(pttl(r.w), 30000 - 1500 - 2000); /* offset: a 2 s step */
    sim_run(r.ctx, SIM_MS(3000));
    ck_assert_int_eq(pttl(r.w), 30000 - 3000 - 2000 - 500); /* 1.5 s of node time per second */
    sim_run(r.ctx, SIM_MS(4500));
    ck_assert_int_eq(pttl(r.w), -2); /* the jump expired it */
    wf_end(&r);
}
END_TEST

START_TEST(nemesis_is_a_function_of_the_seed)
{
    scenario s = wf_topo(1, 0,
                         "[nemesis]\nkinds = pause, crash, partition, clock, node-crash, failover, drop-reply\n"
                         "interval = exp(5s)\nduration = 1s..10s\n");
    char a[4096] = "", b[4096] = "", c[4096] = "";
    char *out[3] = {a, b, c};
    uint64_t seeds[3] = {11, 11, 12};
    for (int k = 0; k < 3; k++) {
        sim_ctx *ctx = sim_new(seeds[k]);
        scn_step *steps = NULL;
        size_t n = fault_nemesis(ctx, &s, &steps);
        ck_assert_int_gt((int)n, 3);
        for (size_t i = 0; i < n; i++) {
            char line[256];
            ck_assert(steps[i].generated);
            ck_assert(steps[i].resolved);
            ck_assert(scn_op_is_fault(steps[i].op));
            if (i > 0) ck_assert(steps[i].at_us >= steps[i - 1].at_us);
            scn_step_format(&steps[i], &s, line, sizeof line);
            strncat(out[k], line, 4095 - strlen(out[k]));
            strncat(out[k], "\n", 4095 - strlen(out[k]));
        }
        free(steps);
        sim_free(ctx);
    }
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c);
    scn_free(&s);
}
END_TEST

/* The nemesis's draws of one scenario over seeds 1..n, as lines. */
static size_t nemesis_lines(const scenario *s, uint64_t n, scn_step *out, size_t cap)
{
    size_t k = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        sim_ctx *ctx = sim_new(seed);
        scn_step *steps = NULL;
        size_t m = fault_nemesis(ctx, s, &steps);
        for (size_t i = 0; i < m && k < cap; i++) out[k++] = steps[i];
        free(steps);
        sim_free(ctx);
    }
    return k;
}

/* With several masters a delay aims at one group's master, from one
 * client or from all (a busy node, sometimes to the end of the run), by a
 * tenth or a half of its window; a client crash with crash-on = reply
 * strikes on a reply; a client-clock fault sets a client's offset to +-D,
 * D within jump, and the hunt files it apart from a node's clock. */
START_TEST(nemesis_aims_delays_clocks_and_crashes)
{
    scenario s = wf_topo(0, 0, "[redis]\nnodes = 3\n[nemesis]\nkinds = delay, crash, client-clock\ncrash-on = reply\n"
                               "interval = exp(2s)\nduration = 2s..10s\njump = 5s..20s\n");
    static scn_step v[2000];
    size_t n = nemesis_lines(&s, 20, v, 2000);
    int groups = 0, busy = 0, single = 0, lasting = 0, half = 0, crashes = 0, ahead = 0, behind = 0;
    for (size_t i = 0; i < n; i++) {
        const scn_step *st = &v[i];
        ck_assert(st->resolved);
        if (st->op == SCN_FAULT_DELAY) {
            ck_assert(!strcmp(st->link_b, "redis0") || !strcmp(st->link_b, "redis1") || !strcmp(st->link_b, "redis2"));
            groups |= 1 << (st->link_b[5] - '0');
            if (!strcmp(st->link_a, "clients")) busy++;
            else single++;
            if (st->for_us == 0) {
                ck_assert_str_eq(st->link_a, "clients"); /* only a busy node stays slow */
                lasting++;
            } else {
                ck_assert(st->by_us == st->for_us / 10 + 1 || st->by_us == st->for_us / 2 + 1);
                half += st->by_us == st->for_us / 2 + 1;
            }
        } else if (st->op == SCN_FAULT_CRASH) {
            ck_assert(st->on_reply && st->client > 0);
            crashes++;
        } else if (st->op == SCN_FAULT_CLOCK) {
            ck_assert(st->client > 0 && st->node_index < 0 && st->clock_what == SCN_CLOCK_OFFSET);
            int64_t d = st->clock_value < 0 ? -st->clock_value : st->clock_value;
            ck_assert(d >= SIM_SEC(5) && d <= SIM_SEC(20));
            ahead += st->clock_value > 0;
            behind += st->clock_value < 0;
            ck_assert_uint_eq(hunt_kind_of(st), SCN_NEM_CLIENT_CLOCK);
        }
    }
    ck_assert_int_eq(groups, 7);
    ck_assert(busy > 0 && single > 0 && lasting > 0 && half > 0 && crashes > 0 && ahead > 0 && behind > 0);
    scn_free(&s);
    /* One master: the delay is the one it always was, on c<k>-redis0. */
    s = wf_topo(0, 0, "[nemesis]\nkinds = delay\nduration = 2s..10s\n");
    n = nemesis_lines(&s, 5, v, 2000);
    ck_assert_uint_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(v[i].link_b, "redis0");
        ck_assert(v[i].link_a[0] == 'c' && v[i].link_a[1] != 'l');
        ck_assert_int_eq(v[i].by_us, v[i].for_us / 10 + 1);
    }
    scn_free(&s);
    /* A node's clock line stays the kind clock. */
    scn_step node_clock = {.op = SCN_FAULT_CLOCK, .node_index = 0};
    ck_assert_uint_eq(hunt_kind_of(&node_clock), SCN_NEM_CLOCK);
}
END_TEST

/* SETNX then PEXPIRE: c1 idles from 1s, locks again at 2s. A crash armed
 * at 1.5s on=reply strikes at the SETNX's reply: the key stays without
 * expiry and c2 waits for ever (deadlock); the same crash by time kills
 * c1 before it locks (c2 gets the lock); a restart before any reply
 * disarms it. */
static const struct {
    const char *faults;
    check_verdict deadlock;
    int acquisitions;
} crash_runs[] = {
    {"at = 1500ms crash client=1 on=reply\n", CHECK_VIOLATED, 1},
    {"at = 1500ms crash client=1\n", CHECK_HELD, 2},
    {"at = 1500ms crash client=1 on=reply\nat = 1800ms restart client=1\n", CHECK_HELD, 3},
};

START_TEST(crash_on_reply_strikes_between_two_commands)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[scenario]\nduration = 10s\ndrain = 2s\n[redis]\nlatency = 1ms\n[protocol]\nname = textbook-setnx-expire\n"
             "lease = 2s\n[steps]\nat = 0s c1 lock\nat = 1s c1 unlock\nat = 2s c1 lock\nat = 3s c2 lock\n"
             "at = 5s c1 unlock\n[faults]\n%s", crash_runs[_i].faults);
    trun r = trun_text(text);
    ck_assert_msg(r.verdict[SCN_INV_DEADLOCK] == crash_runs[_i].deadlock, "case %d: deadlock %s", _i,
                  check_verdict_name(r.verdict[SCN_INV_DEADLOCK]));
    ck_assert_msg(r.acquisitions == (uint64_t)crash_runs[_i].acquisitions, "case %d: %llu acquisitions", _i,
                  (unsigned long long)r.acquisitions);
}
END_TEST

Suite *faults_suite(void)
{
    Suite *s = suite_create("faults");
    TCase *net = tcase_create("network");
    tcase_add_test(net, partition_loses_messages_until_heal);
    tcase_add_test(net, directed_partition_cuts_one_way);
    tcase_add_test(net, group_partition_cuts_master_and_replicas);
    tcase_add_test(net, partition_holds_pushes_until_it_ends);
    tcase_add_test(net, held_pushes_die_with_their_connection);
    tcase_add_test(net, partition_holds_a_crashed_nodes_close);
    tcase_add_test(net, lossy_link_is_deterministic);
    tcase_add_test(net, drop_reply_runs_the_command);
    tcase_add_test(net, drop_pubsub_loses_messages_only);
    tcase_add_test(net, delay_slows_a_link);
    suite_add_tcase(s, net);
    TCase *node = tcase_create("node");
    tcase_add_test(node, fiu_point_stalls_replication);
    tcase_add_test(node, node_clock_faults_move_expiry);
    tcase_add_test(node, nemesis_is_a_function_of_the_seed);
    tcase_add_test(node, nemesis_aims_delays_clocks_and_crashes);
    tcase_add_loop_test(node, crash_on_reply_strikes_between_two_commands, 0,
                        (int)(sizeof crash_runs / sizeof crash_runs[0]));
    suite_add_tcase(s, node);
    return s;
}
