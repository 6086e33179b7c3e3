/* test_scn.c — the scenario language: values with units, distributions,
 * timed lines, endpoint names resolved against the topology, and every
 * kind of bad input reported as path:line with the offending token. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scn/scn.h"
#include "tests/unit/tests.h"

static const char *good =
    "# a comment\n"
    "[scenario]\n"
    "name = demo\n"
    "duration = 1.5m\n"
    "seed = 7\n"
    "[redis]\n"
    "nodes = 1 ; masters\n"
    "latency = 100us..2ms\n"
    "[protocol]\n"
    "name = redisson.lock\n"
    "lease = -1\n"
    "wait = 250ms\n"
    "[clients]\n"
    "count = 3\n"
    "threads = 2\n"
    "hold = exp(20ms)\n"
    "think = 5ms\n"
    "reentry = 25%\n"
    "[steps]\n"
    "at = 0s c4 lock\n"
    "at = 1s c4.t2 trylock wait=2s lease=10s\n"
    "at = 5s c1 pause for=40s\n"
    "[faults]\n"
    "at = 10s crash client=c2\n"
    "[expect]\n"
    "mutual-exclusion = violated\n"
    "liveness = held\n"
    "liveness-bound = 2s\n";

START_TEST(parses_a_full_scenario)
{
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("demo.scn", good, &s, &err), 0);
    ck_assert_str_eq(s.name, "demo");
    ck_assert_int_eq(s.duration_us, SIM_SEC(90));
    ck_assert(s.has_seed && s.seed == 7);
    ck_assert_int_eq(s.latency.kind, SCN_DIST_UNIFORM);
    ck_assert_int_eq(s.latency.a_us, 100);
    ck_assert_int_eq(s.latency.b_us, 2000);
    ck_assert_int_eq(s.lease_us, SCN_LEASE_WATCHDOG);
    ck_assert_int_eq(s.wait_us, SIM_MS(250));
    ck_assert_int_eq(s.hold.kind, SCN_DIST_EXP);
    ck_assert_int_eq(s.reentry_ppm, 250000);
    ck_assert_uint_eq(s.nsteps, 4);
    ck_assert_int_eq(s.steps[1].op, SCN_OP_TRYLOCK);
    ck_assert_int_eq(s.steps[1].thread, 2);
    ck_assert_int_eq(s.steps[1].wait_us, SIM_SEC(2));
    ck_assert_int_eq(s.steps[1].lease_us, SIM_SEC(10));
    ck_assert_int_eq(s.steps[2].op, SCN_FAULT_PAUSE);
    ck_assert_int_eq(s.steps[2].for_us, SIM_SEC(40));
    ck_assert_int_eq(s.steps[3].op, SCN_FAULT_CRASH);
    ck_assert_int_eq(s.steps[3].client, 2);
    ck_assert_int_eq(s.steps[3].line, 24);
    ck_assert_int_eq(s.expect[SCN_INV_MUTEX], SCN_EXPECT_VIOLATED);
    ck_assert_int_eq(s.liveness_bound_us, SIM_SEC(2));
    scn_free(&s);
}
END_TEST

/* Bad inputs: the text, the line the error must name, and a piece of the
 * message. */
static const struct {
    const char *text;
    int line;
    const char *msg;
} bad[] = {
    {"[protocol]\nname = redisson.lock\nleese = 10s\n", 3, "unknown key 'leese' in [protocol]"},
    {"[scenario]\nduration = 10 s\n", 2, "bad duration for 'duration'"},
    {"[scenario]\nduration = 10sec\n", 2, "bad duration"},
    {"[clients]\nhold = 50ms..5ms\n", 2, "bad distribution for 'hold'"},
    {"[clients]\ncount = -3\n", 2, "'count' must be an integer from 0"},
    {"[clients]\nreentry = 1.5\n", 2, "probability"},
    {"[bogus]\nx = 1\n", 2, "unknown section [bogus]"},
    {"[scenario]\nthis is not ini\n", 2, "syntax error"},
    {"[faults]\nat = 10s explode client=1\n", 2, "unknown fault \"explode\""},
    {"[steps]\nat = 10s c1 dance\n", 2, "unknown operation \"dance\""},
    {"[steps]\nat = soon c1 lock\n", 2, "starts with its time"},
    {"[faults]\nat = 1s pause client=1\n", 2, "pause needs for="},
    {"[faults]\nat = 1s c1 lock\n", 2, "is a client operation"},
    {"[expect]\nliveness = maybe\n", 2, "held, violated or any"},
    {"[protocol]\nlease = forever\n", 2, "bad lease"},
    {"[scenario]\nduration = 1s\n[protocol]\nname = x\n[steps]\nat = 2s c1 lock\n", 6,
     "after the end of the run"},
    {"[scenario]\nduration = 1s\n[protocol]\nname = x\n[clients]\ncount = 1\n[faults]\nat = 0s crash client=5\n",
     8, "no client 5"},
    {"[protocol]\nname = redisson.lock\n", 0, "duration is required"},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[faults]\nat = 1s partition clients|group3\n", 6, "unknown endpoint \"group3\""},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[faults]\nat = 1s crash node=redis0.r1\n", 6, "no node \"redis0.r1\""},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[faults]\nat = 1s failover\n", 6, "failover needs replicas"},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[faults]\nat = 1s drop link=c1-redis0 p=2\n", 6, "probability"},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[faults]\nat = 1s clock node=redis0 tilt=3s\n", 6, "tilt"},
    {"[nemesis]\nkinds = pause, meteor\n", 2, "meteor"},
    {"[protocol]\ncount = -1\n", 2, "'count' must be an integer from 0"},
    {"[steps]\nat = 1s c1 countdown wait=2s\n", 2, "'countdown' takes no option wait="},
    /* Node names are the world's own: no leading zeros. */
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[redis]\nnodes = 3\n[faults]\n"
     "at = 1s crash node=redis01\n", 8, "no node \"redis01\""},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n[faults]\n"
     "at = 1s delay link=c3-redis0 by=1s\n", 8, "unknown endpoint \"c3\""},
    /* fail-reply: which client, which kind of reply, how many, how. */
    {"[faults]\nat = 1s fail-reply command=unlock\n", 2, "'fail-reply' needs a client"},
    {"[faults]\nat = 1s fail-reply client=1\n", 2, "fail-reply needs command=acquire|unlock|renew"},
    {"[faults]\nat = 1s fail-reply client=1 command=release\n", 2, "command is acquire, unlock or renew"},
    {"[faults]\nat = 1s fail-reply client=1 command=renew count=0\n", 2, "count must be an integer from 1"},
    {"[faults]\nat = 1s fail-reply client=1 command=renew as=timeout\n", 2, "as is lost or error"},
    {"[faults]\nat = 1s fail-reply client=1 command=renew p=0.5\n", 2, "'fail-reply' takes no option p="},
    {"[faults]\nat = 1s crash client=1 command=unlock\n", 2, "'crash' takes no option command="},
    {"[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 1\n[faults]\n"
     "at = 1s fail-reply client=4 command=unlock\n", 8, "no client 4"},
    /* The semaphore steps and the async API. */
    {"[steps]\nat = 1s c1 addpermits\n", 2, "'addpermits' needs permits=N"},
    {"[steps]\nat = 1s c1 addpermits permits=0\n", 2, "from -2147483647, not 0,"},
    {"[steps]\nat = 1s c1 trysetpermits permits=-2\n", 2, "permits must be an integer from 1"},
    {"[steps]\nat = 1s c1 lock permits=2147483648\n", 2, "to 2147483647"},
    {"[steps]\nat = 1s c1 drainpermits permits=2\n", 2, "'drainpermits' takes no option permits="},
    {"[steps]\nat = 1s c1 updatelease\n", 2, "updatelease needs lease=D"},
    {"[steps]\nat = 1s c1 await api=later\n", 2, "api is sync or async (got \"later\")"},
    {"[steps]\nat = 1s c1 forceunlock api=async\n", 2, "'forceunlock' takes no option api="},
    {"[faults]\nat = 1s c1 addpermits permits=1\n", 2, "is a client operation"},
    {"[clients]\nasync = maybe\n", 2, "async"},
    {"[steps]\nat = 1s c1 trysetcount\n", 2, "'trysetcount' needs count=N"},
    {"[steps]\nat = 1s c1 trysetcount count=0\n", 2, "count must be an integer from 1 to 2147483647"},
    {"[steps]\nat = 1s c1 countdown count=2\n", 2, "'countdown' takes no option count="},
    {"[clients]\nlend = 0\n", 2, "'lend' is a count from 1 or a range A..B (got \"0\")"},
    /* Values with which a run could not end (found by fuzz_sim). */
    {"[redis]\nlatency = 0ms\n", 2, "'latency' must average at least 1us"},
    {"[redis]\nlatency = 0us..0us\n", 2, "'latency' must average at least 1us"},
    {"[nemesis]\ninterval = 0ms..1ms\n", 2, "'interval' must average at least 1ms"},
    {"[protocol]\nretry-interval = 0ms\n", 2, "'retry-interval' must be at least 1ms"},
    {"[scenario]\nduration = 277778h\n", 2, "bad duration for 'duration'"},
    {"[steps]\nat = 1s c1 trylock wait=1000000000000001us\n", 2, "bad duration in \"wait="},
    {"[swarm]\ninterval = 0ms..2s\n", 2, "'interval' must be at least 1ms"},
    /* crash on=reply, [nemesis] crash-on, the kind client-clock, the new [swarm] shares. */
    {"[faults]\nat = 1s crash client=1 on=answer\n", 2, "on is time or reply (got \"answer\")"},
    {"[faults]\nat = 1s crash node=redis0 on=reply\n", 2, "crash on=reply strikes a client process"},
    {"[faults]\nat = 1s restart client=1 on=reply\n", 2, "'restart' takes no option on="},
    {"[nemesis]\ncrash-on = never\n", 2, "'crash-on' is time or reply (got \"never\")"},
    {"[nemesis]\nkinds = client-clok\n", 2, "did you mean client-clock?"},
    {"[swarm]\nclient-clock = 130%\n", 2, "'client-clock' must be a probability"},
    {"[swarm]\ncrash-on-reply = lots\n", 2, "'crash-on-reply' must be a probability"},
    {"[swarm]\nreject-stale = -1\n", 2, "'reject-stale' must be a probability"},
};

START_TEST(bad_input_names_file_and_line)
{
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("bad.scn", bad[_i].text, &s, &err), -1);
    ck_assert_msg(err.line == bad[_i].line, "case %d: line %d, want %d (%s)", _i, err.line,
                  bad[_i].line, err.msg);
    ck_assert_msg(strstr(err.msg, bad[_i].msg) != NULL, "case %d: message \"%s\" lacks \"%s\"", _i,
                  err.msg, bad[_i].msg);
    ck_assert_str_eq(err.path, "bad.scn");
}
END_TEST

/* Endpoint names become ids once the whole file is read ([redis] may come
 * after [faults]): node i is group * (1 + replicas) + k; a side lists
 * nodes (groups expanded) and clients, or all of either. */
START_TEST(resolves_endpoints_against_the_topology)
{
    scenario s;
    scn_error err;
    const char *text = "[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 3\n"
                       "[faults]\n"
                       "at = 1s partition c1,group1|clients\n"
                       "at = 2s crash node=redis1.r1\n"
                       "at = 3s drop link=c2,c2.t1-nodes p=1\n"
                       "at = 4s clock node=c3 jump=+1s\n"
                       "[redis]\nnodes = 2\nreplicas = 1\n";
    ck_assert_msg(scn_load_string("ep.scn", text, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq((int)s.nsteps, 4);
    const scn_step *part = &s.steps[0], *crash = &s.steps[1], *drop = &s.steps[2], *clock = &s.steps[3];
    for (size_t i = 0; i < s.nsteps; i++) ck_assert(s.steps[i].resolved);
    /* c1 and group1 (redis1 = node 2, redis1.r1 = node 3) | every client */
    ck_assert(!part->end_a.all_nodes && !part->end_a.all_clients);
    ck_assert(!scn_side_has_node(&part->end_a, 0) && !scn_side_has_node(&part->end_a, 1));
    ck_assert(scn_side_has_node(&part->end_a, 2) && scn_side_has_node(&part->end_a, 3));
    ck_assert(scn_side_has_client(&part->end_a, 1) && !scn_side_has_client(&part->end_a, 2));
    ck_assert(part->end_b.all_clients && !part->end_b.all_nodes);
    ck_assert(scn_side_has_client(&part->end_b, 3) && !scn_side_has_node(&part->end_b, 0));
    ck_assert_int_eq(part->node_index, -1);
    ck_assert_int_eq(crash->node_index, 3);
    /* c2 and c2.t1 are one client; "nodes" takes in every node */
    ck_assert_int_eq(drop->end_a.nclients, 1);
    ck_assert(scn_side_has_client(&drop->end_a, 2));
    ck_assert(drop->end_b.all_nodes && scn_side_has_node(&drop->end_b, 3));
    ck_assert_int_eq(clock->node_index, -1); /* node=c3: a client's clock */
    ck_assert_int_eq(clock->client, 3);
    /* The names stay as written: the lines go back into traces as they were. */
    char line[256];
    scn_step_format(part, &s, line, sizeof line);
    ck_assert_str_eq(line, "at = 1s partition c1,group1|clients");
    /* A step made or edited after the parse is resolved again. */
    scn_step made = *crash;
    snprintf(made.node, sizeof made.node, "redis0.r1");
    char why[400];
    ck_assert_int_eq(scn_step_resolve(&s, &made, why, sizeof why), 0);
    ck_assert_int_eq(made.node_index, 1);
    snprintf(made.node, sizeof made.node, "redis2");
    ck_assert_int_eq(scn_step_resolve(&s, &made, why, sizeof why), -1);
    ck_assert(!made.resolved);
    ck_assert_msg(strstr(why, "no node \"redis2\"") != NULL, "%s", why);
    char name[32];
    scn_node_name(&s, 3, name, sizeof name);
    ck_assert_str_eq(name, "redis1.r1");
    scn_free(&s);
}
END_TEST

START_TEST(distributions_draw_in_range)
{
    sim_ctx *ctx = sim_new(3);
    scn_dist u = {SCN_DIST_UNIFORM, 10, 20}, c = {SCN_DIST_CONST, 7, 0}, e = {SCN_DIST_EXP, 1000, 0};
    int64_t sum = 0;
    for (int i = 0; i < 2000; i++) {
        int64_t v = scn_dist_draw(ctx, &u, "u");
        ck_assert(v >= 10 && v <= 20);
        ck_assert_int_eq(scn_dist_draw(ctx, &c, "c"), 7);
        int64_t x = scn_dist_draw(ctx, &e, "e");
        ck_assert(x >= 0);
        sum += x;
    }
    ck_assert(sum / 2000 > 800 && sum / 2000 < 1200); /* mean 1000 */
    char buf[64];
    scn_dist_format(&u, buf, sizeof buf);
    ck_assert_str_eq(buf, "10us..20us");
    scn_duration_format(SIM_SEC(90), buf, sizeof buf);
    ck_assert_str_eq(buf, "90s");
    sim_free(ctx);
}
END_TEST

/* The counter objects' keys and the latch's operations, and an await's
 * wait written back as it was given. */
START_TEST(parses_counter_objects)
{
    static const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.latch\n"
                              "count = 3\npermits = 2\n[steps]\nat = 0s c1 await\n"
                              "at = 1s c2.t2 await wait=2s\nat = 2s c3 countdown lock=other\n"
                              "at = 3s c1 getcount\n";
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("latch.scn", text, &s, &err), 0);
    ck_assert_int_eq(s.init_count, 3);
    ck_assert_int_eq(s.init_permits, 2);
    ck_assert_int_eq(s.steps[0].op, SCN_OP_AWAIT);
    ck_assert(!s.steps[0].has_wait);
    ck_assert_int_eq(s.steps[2].op, SCN_OP_COUNTDOWN);
    ck_assert_str_eq(s.lock_names[s.steps[2].lock], "other");
    ck_assert_int_eq(s.steps[3].op, SCN_OP_GETCOUNT);
    ck_assert(!scn_op_is_fault(s.steps[3].op));
    char line[128];
    scn_step_format(&s.steps[1], &s, line, sizeof line);
    ck_assert_str_eq(line, "at = 1s c2.t2 await wait=2s");
    scn_free(&s);
}
END_TEST

/* Step i of s written back is want. */
static void assert_line(const scenario *s, size_t i, const char *want)
{
    char line[256];
    scn_step_format(&s->steps[i], s, line, sizeof line);
    ck_assert_str_eq(line, want);
}

/* A latch's trySetCount step (count=N), read and written back. */
START_TEST(parses_trysetcount)
{
    static const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.latch\n"
                              "[steps]\nat = 1s c2 trysetcount count=3 lock=latch\n";
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("latch.scn", text, &s, &err), 0);
    ck_assert_int_eq(s.steps[0].op, SCN_OP_TRYSETCOUNT);
    ck_assert_int_eq(s.steps[0].permits, 3);
    ck_assert(!scn_op_is_fault(s.steps[0].op));
    char line[128];
    scn_step_format(&s.steps[0], &s, line, sizeof line);
    ck_assert_str_eq(line, "at = 1s c2 trysetcount count=3");
    scn_free(&s);
}
END_TEST

/* The semaphore steps (appended after the faults in the enum: still client
 * operations) and api=async, read and written back. */
START_TEST(parses_semaphore_steps)
{
    static const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.semaphore\n"
                              "[clients]\nasync = yes\n[steps]\nat = 0s c1 addpermits permits=-3\n"
                              "at = 1s c2 trysetpermits permits=5\nat = 2s c1 drainpermits\n"
                              "at = 3s c1.t2 availablepermits\nat = 4s c3 updatelease lease=-1\n"
                              "at = 5s c1 lock permits=2147483647 api=async\nat = 6s c2 await api=sync\n";
    scenario s;
    scn_error err;
    ck_assert_int_eq(scn_load_string("sem.scn", text, &s, &err), 0);
    ck_assert_int_eq(s.async, 1);
    ck_assert_int_eq(s.steps[0].op, SCN_OP_ADDPERMITS);
    ck_assert_int_eq(s.steps[0].permits, -3);
    ck_assert_int_eq(s.steps[1].op, SCN_OP_TRYSETPERMITS);
    ck_assert_int_eq(s.steps[2].op, SCN_OP_DRAINPERMITS);
    ck_assert_int_eq(s.steps[3].op, SCN_OP_AVAILABLEPERMITS);
    ck_assert_int_eq(s.steps[4].op, SCN_OP_UPDATELEASE);
    ck_assert_int_eq(s.steps[4].lease_us, SCN_LEASE_WATCHDOG);
    ck_assert_int_eq(s.steps[5].async, 1);
    ck_assert_int_eq(s.steps[6].async, 0);
    for (int i = 0; i < 7; i++) ck_assert(!scn_op_is_fault(s.steps[i].op));
    char line[128];
    const char *want[] = {"at = 0us c1 addpermits permits=-3", "at = 1s c2 trysetpermits permits=5",
                          "at = 2s c1 drainpermits", "at = 3s c1.t2 availablepermits",
                          "at = 4s c3 updatelease lease=-1", "at = 5s c1 lock permits=2147483647 api=async",
                          "at = 6s c2 await"};
    for (int i = 0; i < 7; i++) {
        scn_step_format(&s.steps[i], &s, line, sizeof line);
        ck_assert_str_eq(line, want[i]);
    }
    char *buf = tscn_written(&s);
    ck_assert(strstr(buf, "async = yes\n") != NULL);
    scenario t;
    ck_assert_int_eq(scn_load_string("sem.scn", buf, &t, &err), 0);
    ck_assert_uint_eq(t.nsteps, s.nsteps);
    ck_assert_int_eq(t.steps[0].permits, -3);
    ck_assert_int_eq(t.steps[5].async, 1);
    ck_assert_int_eq(t.async, 1);
    free(buf);
    scn_free(&t);
    scn_free(&s);
}
END_TEST

/* A [nemesis] header with no key is the nemesis with its defaults, and
 * the writer's text for it (the bare header) reads back the same (a bug
 * the scenario fuzzer found: the nemesis vanished in the round trip). */
START_TEST(bare_nemesis_section_is_a_nemesis)
{
    scenario s, t;
    scn_error err;
    const char *text = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n"
                       "[nemesis] ; defaults\n";
    ck_assert_int_eq(scn_load_string("n.scn", text, &s, &err), 0);
    ck_assert_int_eq(s.nemesis, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_int_eq(scn_write(m, &s), 0);
    fclose(m);
    ck_assert_int_eq(scn_load_string("n.scn", buf, &t, &err), 0);
    ck_assert_int_eq(t.nemesis, 1);
    ck_assert_int_eq(t.nemesis_kinds, s.nemesis_kinds);
    free(buf);
    scn_free(&s);
    scn_free(&t);
}
END_TEST

/* A fail-reply line keeps its options through the writer; defaults (one
 * reply, lost) stay unwritten. */
START_TEST(fail_reply_round_trips)
{
    static const char *text = "[scenario]\nduration = 60s\n[protocol]\nname = redisson.lock\n[steps]\n"
                              "at = 0s c1 lock\n[faults]\nat = 5s fail-reply client=1 command=renew as=error\n"
                              "at = 6s fail-reply client=c1 command=unlock count=3 as=lost\n"
                              "at = 7s fail-reply client=1 command=acquire count=1\n";
    scenario a, b;
    scn_error err;
    ck_assert_msg(scn_load_string("fr.scn", text, &a, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.nsteps, 4);
    ck_assert_int_eq(a.steps[1].op, SCN_FAULT_FAIL_REPLY);
    ck_assert_int_eq(a.steps[1].reply_cmd, SCN_REPLY_RENEW);
    ck_assert_int_eq(a.steps[1].reply_error, 1);
    ck_assert_int_eq(a.steps[2].reply_cmd, SCN_REPLY_UNLOCK);
    ck_assert_int_eq(a.steps[2].reply_count, 3);
    ck_assert_int_eq(a.steps[2].reply_error, 0);
    assert_line(&a, 1, "at = 5s fail-reply client=c1 command=renew as=error");
    assert_line(&a, 2, "at = 6s fail-reply client=c1 command=unlock count=3");
    assert_line(&a, 3, "at = 7s fail-reply client=c1 command=acquire count=1");
    char *t1 = tscn_written(&a);
    ck_assert_int_eq(scn_load_string("fr.scn", t1, &b, &err), 0);
    char *t2 = tscn_written(&b);
    ck_assert_str_eq(t1, t2);
    ck_assert_int_eq(b.steps[3].reply_count, 1);
    free(t1);
    free(t2);
    scn_free(&a);
    scn_free(&b);
}
END_TEST

/* crash on=reply, [nemesis] crash-on = reply, kinds client-clock and the
 * [swarm] shares of the new draws survive the writer; their defaults
 * (on=time, crash-on = time, 0%) stay unwritten. */
START_TEST(crash_on_reply_and_client_clock_round_trip)
{
    static const char *text = "[scenario]\nduration = 60s\n[protocol]\nname = redisson.lock\n[clients]\ncount = 2\n"
                              "[faults]\nat = 5s crash client=2 on=reply\nat = 6s crash client=c1 on=time\n"
                              "at = 7s clock client=2 offset=-3s\n"
                              "[nemesis]\nkinds = crash, client-clock\ncrash-on = reply\n"
                              "[swarm]\nclient-clock = 30%\ncrash-on-reply = 25%\nreject-stale = 50%\n";
    scenario a, b;
    scn_error err;
    ck_assert_msg(scn_load_string("cr.scn", text, &a, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(a.steps[0].on_reply, 1);
    ck_assert_int_eq(a.steps[1].on_reply, 0);
    ck_assert_int_eq(a.nemesis_kinds, SCN_NEM_CRASH | SCN_NEM_CLIENT_CLOCK);
    ck_assert_int_eq(a.nemesis_crash_on, SCN_CRASH_ON_REPLY);
    ck_assert_int_eq(a.swarm_client_clock_ppm, 300000);
    ck_assert_int_eq(a.swarm_crash_reply_ppm, 250000);
    ck_assert_int_eq(a.swarm_reject_stale_ppm, 500000);
    assert_line(&a, 0, "at = 5s crash client=c2 on=reply");
    assert_line(&a, 1, "at = 6s crash client=c1");
    assert_line(&a, 2, "at = 7s clock client=c2 offset=-3s");
    char *t1 = tscn_written(&a);
    ck_assert_ptr_nonnull(strstr(t1, "kinds = crash, client-clock\ncrash-on = reply\n"));
    ck_assert_ptr_nonnull(strstr(t1, "client-clock = 30%\ncrash-on-reply = 25%\nreject-stale = 50%\n"));
    ck_assert_int_eq(scn_load_string("cr.scn", t1, &b, &err), 0);
    char *t2 = tscn_written(&b);
    ck_assert_str_eq(t1, t2);
    ck_assert_int_eq(b.steps[0].on_reply, 1);
    ck_assert_int_eq(b.nemesis_crash_on, SCN_CRASH_ON_REPLY);
    free(t1);
    free(t2);
    scn_free(&a);
    scn_free(&b);
    /* The defaults are not written. */
    ck_assert_int_eq(scn_load_string("d.scn", "[scenario]\nduration = 9s\n[protocol]\nname = redisson.lock\n"
                                              "[clients]\ncount = 1\n[nemesis]\ncrash-on = time\n", &a, &err), 0);
    t1 = tscn_written(&a);
    ck_assert_ptr_null(strstr(t1, "crash-on"));
    ck_assert_ptr_null(strstr(t1, "client-clock"));
    free(t1);
    scn_free(&a);
}
END_TEST

/* scn_write: the text of a parsed scenario parses back to the same
 * scenario, and writing that again gives the same text. */
START_TEST(writes_back_what_it_read)
{
    scenario a, b;
    scn_error err;
    ck_assert_int_eq(scn_load_string("demo.scn", good, &a, &err), 0);
    char *t1 = tscn_written(&a);
    ck_assert_int_eq(scn_load_string("demo.scn", t1, &b, &err), 0);
    char *t2 = tscn_written(&b);
    ck_assert_str_eq(t1, t2);
    ck_assert_str_eq(b.name, "demo");
    ck_assert_int_eq(b.duration_us, a.duration_us);
    ck_assert_int_eq(b.seed, 7);
    ck_assert_int_eq(b.hold.kind, SCN_DIST_EXP);
    ck_assert_int_eq(b.reentry_ppm, a.reentry_ppm);
    ck_assert_int_eq(b.expect[SCN_INV_MUTEX], SCN_EXPECT_VIOLATED);
    ck_assert_int_eq(b.liveness_bound_us, SIM_SEC(2));
    ck_assert_uint_eq(b.nsteps, a.nsteps);
    /* Client operations first ([steps]), then faults ([faults]), each in order. */
    ck_assert_int_eq(b.steps[0].client, 4);
    ck_assert_int_eq(b.steps[1].thread, 2);
    ck_assert_int_eq(b.steps[1].lease_us, SIM_SEC(10));
    ck_assert_int_eq(b.steps[2].op, SCN_FAULT_PAUSE);
    ck_assert_int_eq(b.steps[2].for_us, SIM_SEC(40));
    ck_assert_int_eq(b.steps[3].op, SCN_FAULT_CRASH);
    free(t1);
    free(t2);
    scn_free(&a);
    scn_free(&b);
}
END_TEST

/* The workload shapes of [clients]: read, written back, bad values refused
 * at their line; without them, nothing is set. */
START_TEST(parses_workload_shapes)
{
    scenario a, b;
    scn_error err;
    const char *head = "[scenario]\nduration = 10s\n[protocol]\nname = redisson.rwlock\n[clients]\ncount = 2\n";
    char text[512];
    snprintf(text, sizeof text, "%sswitch = 30%%\nrelease-fifo = 0.5\nlease = 2s..8s\nretry-unlock = yes\n", head);
    ck_assert_int_eq(scn_load_string("w.scn", text, &a, &err), 0);
    ck_assert_int_eq(a.switch_ppm, 300000);
    ck_assert_int_eq(a.switch_line, 7);
    ck_assert_int_eq(a.release_fifo_ppm, 500000);
    ck_assert(scn_has_acquire_lease(&a) && a.acquire_lease.a_us == SIM_SEC(2) && a.acquire_lease.b_us == SIM_SEC(8));
    ck_assert(a.retry_unlock);
    char *t = tscn_written(&a);
    ck_assert_int_eq(scn_load_string("w.scn", t, &b, &err), 0);
    ck_assert(b.switch_ppm == a.switch_ppm && b.release_fifo_ppm == a.release_fifo_ppm && b.retry_unlock);
    ck_assert(b.acquire_lease.a_us == a.acquire_lease.a_us && b.acquire_lease.b_us == a.acquire_lease.b_us);
    free(t);
    scn_free(&a);
    scn_free(&b);
    ck_assert_int_eq(scn_load_string("w.scn", head, &a, &err), 0);
    ck_assert(!scn_has_acquire_lease(&a) && a.switch_ppm == 0 && a.switch_line == 0 && !a.retry_unlock);
    t = tscn_written(&a);
    ck_assert_ptr_null(strstr(t, "lease"));
    free(t);
    scn_free(&a);
    static const char *const refused[] = {"lease = 0s\n", "lease = 500us\n", "switch = 2\n", "retry-unlock = twice\n"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(text, sizeof text, "%s%s", head, refused[i]);
        ck_assert_int_eq(scn_load_string("w.scn", text, &a, &err), -1);
        ck_assert_int_eq(err.line, 7);
    }
}
END_TEST

START_TEST(did_you_mean)
{
    static const char *const names[] = {"redisson.lock", "redisson.fairlock", "redisson.rwlock", "pause", "crash"};
    ck_assert_uint_eq(sim_edit_distance("crash", "crahs"), 1); /* a swap is one edit */
    ck_assert_uint_eq(sim_edit_distance("Lock", "lock"), 0);
    ck_assert_str_eq(sim_closest("redisson.lok", names, 5), "redisson.lock");
    ck_assert_str_eq(sim_closest("redison.fairlock", names, 5), "redisson.fairlock");
    ck_assert_str_eq(sim_closest("crahs", names, 5), "crash");
    ck_assert_ptr_null(sim_closest("meteor", names, 5));
    ck_assert_ptr_null(sim_closest("pause", names, 5)); /* a name is not its own typo */
}
END_TEST

START_TEST(every_error_most_specific_first)
{
    scenario sc;
    scn_error err;
    const char *text = "[scenario]\nduration = 10s\n[clients]\ncont = 2\nhold = 5\n[faults]\nat = 1s crahs client=1\n";
    ck_assert_int_eq(scn_load_string("e.scn", text, &sc, &err), -1);
    ck_assert_int_eq(scn_error_count(&err), 3);
    ck_assert_int_eq(err.line, 4);
    ck_assert_ptr_nonnull(strstr(err.msg, "did you mean count?"));
    ck_assert_int_eq(err.more[0].line, 5);
    ck_assert_int_eq(err.more[1].line, 7);
    ck_assert_ptr_nonnull(strstr(err.more[1].msg, "did you mean crash?"));
    ck_assert_str_eq(err.protocol, "");
    /* Errors of the whole file come after the lines'. */
    memset(&err, 0, sizeof err);
    scn_error_add(&err, 0, "nothing to run");
    scn_error_add(&err, 9, "late line");
    scn_error_add(&err, 3, "early line");
    scn_error_sort(&err);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.more[0].line, 9);
    ck_assert_str_eq(err.more[1].msg, "nothing to run");
    for (int i = 0; i < 10; i++) scn_error_add(&err, 1, "more");
    ck_assert_int_eq(scn_error_count(&err), SCN_ERRORS_MAX);
}
END_TEST

Suite *scn_suite(void)
{
    Suite *s = suite_create("scn");
    TCase *core = tcase_create("core");
    tcase_add_test(core, parses_a_full_scenario);
    tcase_add_test(core, distributions_draw_in_range);
    tcase_add_test(core, parses_counter_objects);
    tcase_add_test(core, parses_semaphore_steps);
    tcase_add_test(core, parses_trysetcount);
    tcase_add_test(core, bare_nemesis_section_is_a_nemesis);
    tcase_add_test(core, writes_back_what_it_read);
    tcase_add_test(core, parses_workload_shapes);
    tcase_add_test(core, fail_reply_round_trips);
    tcase_add_test(core, crash_on_reply_and_client_clock_round_trip);
    tcase_add_test(core, resolves_endpoints_against_the_topology);
    suite_add_tcase(s, core);
    TCase *errors = tcase_create("errors");
    tcase_add_loop_test(errors, bad_input_names_file_and_line, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(errors, did_you_mean);
    tcase_add_test(errors, every_error_most_specific_first);
    suite_add_tcase(s, errors);
    return s;
}
