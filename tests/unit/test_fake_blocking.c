/* test_fake_blocking.c — the fake node's blocking commands: a client that
 * finds nothing blocks, writes serve the clients blocked on a key first
 * blocked first served, a BLMOVE's push serves the next key's clients,
 * timeouts follow the node's clock, scripts never block, and a node made
 * a replica answers its blocked clients UNBLOCKED (checked against
 * redis-server by `locksim conform`'s blocking rounds). */
#include "tests/unit/tests.h"

/* Runs a command on conn: its reply formatted, or "(blocked)". */
static const char *on(tnode *t, fake_conn *conn, const char *line)
{
    const char *argv[16];
    size_t lens[16];
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    for (char *w = strtok(buf, " "); w && argc < 16; w = strtok(NULL, " ")) {
        argv[argc] = w;
        lens[argc++] = strlen(w);
    }
    sim_reply *r = fake_exec(t->node, conn, argc, argv, lens);
    if (r == NULL) return ck_assert(fake_conn_blocked(conn)), "(blocked)";
    sim_reply_format(r, t->out, sizeof t->out);
    sim_reply_free(r);
    return t->out;
}

/* The next answer to a blocked client: "N: reply" (N its index in conns). */
static const char *answer(tnode *t, fake_conn **conns, int n)
{
    fake_conn *c;
    sim_reply *r;
    int close;
    if (!fake_node_unblocked(t->node, &c, &r, &close)) return "(none)";
    int i = 0;
    while (i < n && conns[i] != c) i++;
    char text[1024];
    sim_reply_format(r, text, sizeof text);
    sim_reply_free(r);
    snprintf(t->out, sizeof t->out, "%d%s: %s", i, close ? " (close)" : "", text);
    return t->out;
}

#define ON(i, cmd, want) ck_assert_str_eq(on(&t, c[i], cmd), want)
#define ANSWER(want) ck_assert_str_eq(answer(&t, c, 3), want)

START_TEST(block_and_serve)
{
    tnode t;
    tnode_init(&t);
    fake_conn *c[3] = {t.conn, fake_conn_new(t.node, NULL, NULL), fake_conn_new(t.node, NULL, NULL)};
    ON(0, "RPUSH l a", "(integer) 1");
    ON(1, "BLPOP none l 0", "[\"l\", \"a\"]"); /* data: no block, the key that had it */
    ON(1, "BLPOP l1 l2 0", "(blocked)");
    ON(2, "BRPOP l2 0", "(blocked)");
    ck_assert_int_eq(fake_node_block_deadline(t.node), -1); /* 0: for ever */
    ON(0, "RPUSH l2 x y z", "(integer) 3");
    ANSWER("1: [\"l2\", \"x\"]"); /* first blocked, first served */
    ANSWER("2: [\"l2\", \"z\"]");
    ANSWER("(none)");
    ON(0, "LRANGE l2 0 -1", "[\"y\"]");
    /* a push and a pop in one script: served after it, with what is left */
    ON(1, "BLPOP q 0", "(blocked)");
    ck_assert_str_eq(teval(&t, "redis.call('rpush', KEYS[1], 'a') redis.call('lpop', KEYS[1]) return 1", 1, "q"),
                     "(integer) 1");
    ANSWER("(none)");
    ck_assert(fake_conn_blocked(c[1]));
    ON(0, "LPUSH q b", "(integer) 1");
    ANSWER("1: [\"q\", \"b\"]");
    /* BLMOVE: the push to its destination serves that key's clients */
    ON(1, "BLMOVE src dst LEFT RIGHT 0", "(blocked)");
    ON(2, "BLPOP dst 0", "(blocked)");
    ON(0, "RPUSH src m", "(integer) 1");
    ANSWER("1: \"m\"");
    ANSWER("2: [\"dst\", \"m\"]");
    ON(0, "EXISTS src dst", "(integer) 0");
    /* zsets: the lowest score, [key, member, score] */
    ON(1, "BZPOPMIN z 0", "(blocked)");
    ON(2, "BLPOP z 0", "(blocked)");
    ON(0, "ZADD z 2 b 1 a", "(integer) 2");
    ANSWER("1: [\"z\", \"a\", \"1\"]"); /* the list client is skipped */
    ANSWER("(none)");
    ON(0, "ZPOPMAX z", "[\"b\", \"2\"]");
    fake_conn_free(c[2]); /* a blocked client that goes waits on nothing */
    c[2] = NULL;
    ON(0, "RPUSH z v", "(integer) 1");
    ANSWER("(none)");
    fake_conn_free(c[1]);
    tnode_done(&t);
}
END_TEST

START_TEST(block_timeouts_and_errors)
{
    tnode t;
    tnode_init(&t);
    fake_conn *c[3] = {t.conn, fake_conn_new(t.node, NULL, NULL), fake_conn_new(t.node, NULL, NULL)};
    ON(0, "BLPOP l -1", "(error) \"ERR timeout is negative\"");
    ON(0, "BLPOP l abc", "(error) \"ERR timeout is not a float or out of range\"");
    ON(0, "BLPOP l inf", "(error) \"ERR timeout is negative\"");
    ON(0, "BLPOP l 1e5000", "(error) \"ERR timeout is not a float or out of range\"");
    ON(0, "SET s v", "+\"OK\"");
    ON(0, "BLPOP s 0", "(error) \"WRONGTYPE Operation against a key holding the wrong kind of value\"");
    ON(0, "BLMOVE l s LEFT UP 0", "(error) \"ERR syntax error\"");
    /* in a script: as a timeout, at once */
    ck_assert_str_eq(teval(&t, "return redis.call('blpop', KEYS[1], 0)", 1, "l"), "(nil)");
    int64_t now = fake_node_time_ms(t.node);
    ON(1, "BLPOP l 1.5", "(blocked)");
    ON(2, "BZPOPMAX z 0.5", "(blocked)");
    ck_assert_int_eq(fake_node_block_deadline(t.node), now + 500);
    fake_node_block_timeouts(t.node);
    ANSWER("(none)"); /* the clock has not passed it */
    sim_clock *clk = fake_node_clock(t.node);
    clk->offset_us += 501 * 1000; /* past 0.5 s */
    fake_node_block_timeouts(t.node);
    ANSWER("2: (nil array)");
    ANSWER("(none)");
    /* the node made a replica: UNBLOCKED, the connection to close */
    fake_node_set_replica(t.node, 1);
    ANSWER("1 (close): (error) \"UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\"");
    ON(0, "BLPOP l 0", "(error) \"READONLY You can't write against a read only replica.\"");
    fake_conn_free(c[1]);
    fake_conn_free(c[2]);
    tnode_done(&t);
}
END_TEST

Suite *fake_blocking_suite(void)
{
    Suite *s = suite_create("fake_blocking");
    TCase *core = tcase_create("core");
    tcase_add_test(core, block_and_serve);
    tcase_add_test(core, block_timeouts_and_errors);
    suite_add_tcase(s, core);
    return s;
}
