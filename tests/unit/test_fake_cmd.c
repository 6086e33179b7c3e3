/* test_fake_cmd.c — the fake node's commands, each with its edge cases and
 * Redis 7.0's exact replies and error texts (checked against redis-server
 * by `locksim conform`; these pin the behaviour down without a server). */
#include "tests/unit/tests.h"

#define EQ(cmd, want) ck_assert_str_eq(tcmd(&t, cmd), want)

START_TEST(strings)
{
    tnode t;
    tnode_init(&t);
    EQ("GET k", "(nil)");
    EQ("SET k v", "+\"OK\"");
    EQ("get k", "\"v\"");
    EQ("SET k w NX", "(nil)");
    EQ("SET k w XX GET", "\"v\"");
    EQ("SET k v NX XX", "(error) \"ERR syntax error\"");
    EQ("SET k v EX 10 PX 10", "(error) \"ERR syntax error\"");
    EQ("SET k v EX 10 EX 20", "+\"OK\""); /* repeated EX: last wins */
    EQ("SET k v PX 0", "(error) \"ERR invalid expire time in 'set' command\"");
    EQ("SET k v EX abc", "(error) \"ERR value is not an integer or out of range\"");
    EQ("SET k v PX 9223372036854775807", "(error) \"ERR invalid expire time in 'set' command\"");
    EQ("SET k", "(error) \"ERR wrong number of arguments for 'set' command\"");
    EQ("SETNX k x", "(integer) 0");
    EQ("SETNX k2 x", "(integer) 1");
    EQ("MGET k k2 nokey", "[\"v\", \"x\", (nil)]");
    EQ("SET n 010", "+\"OK\"");
    EQ("INCR n", "(error) \"ERR value is not an integer or out of range\"");
    EQ("SET n -0", "+\"OK\"");
    EQ("INCR n", "(error) \"ERR value is not an integer or out of range\"");
    EQ("SET n 9223372036854775807", "+\"OK\"");
    EQ("INCR n", "(error) \"ERR increment or decrement would overflow\"");
    EQ("DECRBY n -9223372036854775808", "(error) \"ERR decrement would overflow\"");
    EQ("INCRBY n -7", "(integer) 9223372036854775800");
    EQ("INCR fresh", "(integer) 1");
    EQ("DECR fresh2", "(integer) -1");
    EQ("STRLEN k", "(integer) 1");
    EQ("nosuch a b", "(error) \"ERR unknown command 'nosuch', with args beginning with: 'a' 'b' \"");
    tnode_done(&t);
}
END_TEST

START_TEST(keys_and_types)
{
    tnode t;
    tnode_init(&t);
    EQ("TYPE k", "+\"none\"");
    EQ("HSET h f v", "(integer) 1");
    EQ("TYPE h", "+\"hash\"");
    EQ("GET h", "(error) \"WRONGTYPE Operation against a key holding the wrong kind of value\"");
    EQ("SET h s", "+\"OK\""); /* SET overwrites any type */
    EQ("TYPE h", "+\"string\"");
    EQ("EXISTS h h nokey", "(integer) 2");
    EQ("DEL h h nokey", "(integer) 1");
    EQ("PERSIST h", "(integer) 0");
    EQ("PING", "+\"PONG\"");
    EQ("PING hi", "\"hi\"");
    EQ("ECHO x", "\"x\"");
    EQ("EXPIRE k 10 NX XX", "(error) \"ERR NX and XX, GT or LT options at the same time are not compatible\"");
    EQ("EXPIRE k 10 bogus", "(error) \"ERR Unsupported option bogus\"");
    EQ("FLUSHALL x", "(error) \"ERR syntax error\"");
    EQ("FLUSHALL", "+\"OK\"");
    tnode_done(&t);
}
END_TEST

START_TEST(hashes)
{
    tnode t;
    tnode_init(&t);
    EQ("HSET h a 1 b 2", "(integer) 2");
    EQ("HSET h a 3 c 4", "(integer) 1");
    EQ("HSET h a", "(error) \"ERR wrong number of arguments for 'hset' command\"");
    EQ("HGETALL h", "[\"a\", \"3\", \"b\", \"2\", \"c\", \"4\"]");
    EQ("HKEYS h", "[\"a\", \"b\", \"c\"]");
    EQ("HVALS h", "[\"3\", \"2\", \"4\"]");
    EQ("HLEN h", "(integer) 3");
    EQ("HEXISTS h a", "(integer) 1");
    EQ("HEXISTS h z", "(integer) 0");
    EQ("HGET h z", "(nil)");
    EQ("HMGET h a z", "[\"3\", (nil)]");
    EQ("HINCRBY h a -3", "(integer) 0"); /* a field at 0 stays */
    EQ("HEXISTS h a", "(integer) 1");
    EQ("HINCRBY h new 5", "(integer) 5");
    EQ("HSET h s x", "(integer) 1");
    EQ("HINCRBY h s 1", "(error) \"ERR hash value is not an integer\"");
    EQ("HINCRBY h s x", "(error) \"ERR value is not an integer or out of range\"");
    EQ("HSETNX h a 9", "(integer) 0");
    EQ("HDEL h a b c new s zz", "(integer) 5");
    EQ("EXISTS h", "(integer) 0"); /* an emptied hash is gone */
    EQ("HDEL h a", "(integer) 0");
    EQ("HGETALL nokey", "[]");
    tnode_done(&t);
}
END_TEST

START_TEST(lists)
{
    tnode t;
    tnode_init(&t);
    EQ("RPUSH l a b c", "(integer) 3");
    EQ("LPUSH l z", "(integer) 4");
    EQ("LRANGE l 0 -1", "[\"z\", \"a\", \"b\", \"c\"]");
    EQ("LRANGE l -2 100", "[\"b\", \"c\"]");
    EQ("LRANGE l 3 1", "[]");
    EQ("LINDEX l 0", "\"z\"");
    EQ("LINDEX l -1", "\"c\"");
    EQ("LINDEX l 9", "(nil)");
    EQ("LINDEX l x", "(error) \"ERR value is not an integer or out of range\"");
    EQ("LINDEX nokey x", "(nil)"); /* the key is looked up first */
    EQ("RPUSH l a a", "(integer) 6");
    EQ("LREM l -1 a", "(integer) 1");
    EQ("LREM l 0 a", "(integer) 2");
    EQ("RPUSH l a a", "(integer) 5");
    EQ("LREM l -9223372036854775808 a", "(integer) 2"); /* from the tail, no limit (conform seed 2, UBSan) */
    EQ("LRANGE l 0 -1", "[\"z\", \"b\", \"c\"]");
    EQ("LPOP l", "\"z\"");
    EQ("LPOP l 5", "[\"b\", \"c\"]");
    EQ("EXISTS l", "(integer) 0");
    EQ("LPOP l", "(nil)");
    EQ("LPOP l 2", "(nil array)");
    EQ("LPOP l -1", "(error) \"ERR value is out of range, must be positive\"");
    EQ("LLEN l", "(integer) 0");
    tnode_done(&t);
}
END_TEST

START_TEST(sorted_sets)
{
    tnode t;
    tnode_init(&t);
    EQ("ZADD z 1 a 0.1 b -inf c 0x10 d", "(integer) 4");
    EQ("ZRANGE z 0 -1 WITHSCORES",
       "[\"c\", \"-inf\", \"b\", \"0.10000000000000001\", \"a\", \"1\", \"d\", \"16\"]");
    EQ("ZSCORE z b", "\"0.10000000000000001\"");
    EQ("ZINCRBY z 0.2 b", "\"0.30000000000000004\"");
    EQ("ZADD z nan x", "(error) \"ERR value is not a valid float\"");
    EQ("ZADD z NX XX 1 a", "(error) \"ERR XX and NX options at the same time are not compatible\"");
    EQ("ZADD z GT LT 1 a", "(error) \"ERR GT, LT, and/or NX options at the same time are not compatible\"");
    EQ("ZADD z INCR 1 a 2 b", "(error) \"ERR INCR option supports a single increment-element pair\"");
    EQ("ZADD z 1 a 2", "(error) \"ERR syntax error\"");
    EQ("ZADD z CH 5 a 6 new", "(integer) 2");
    EQ("ZADD z GT 1 a", "(integer) 0");
    EQ("ZADD z XX INCR 1 nope", "(nil)");
    EQ("ZINCRBY z inf a", "\"inf\"");
    EQ("ZINCRBY z -inf a", "(error) \"ERR resulting score is not a number (NaN)\"");
    EQ("ZADD z -0 zero", "(integer) 1");
    EQ("ZSCORE z zero", "\"0\""); /* a stored -0 reads back as 0 */
    EQ("ZRANGEBYSCORE z (0 6", "[\"b\", \"new\"]");
    EQ("ZRANGEBYSCORE z -inf +inf LIMIT 1 2", "[\"zero\", \"b\"]");
    EQ("ZRANGEBYSCORE z x 1", "(error) \"ERR min or max is not a float\"");
    EQ("ZRANGE z 6 0 BYSCORE REV", "[\"new\", \"b\", \"zero\"]");
    EQ("ZRANGE z 0 1 LIMIT 0 1", "(error) \"ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\"");
    EQ("ZCARD z", "(integer) 6");
    EQ("ZREM z a b c d new zero", "(integer) 6");
    EQ("EXISTS z", "(integer) 0");
    tnode_done(&t);
}
END_TEST

typedef struct seen {
    int n;
    char last[256];
} seen;

static void on_push(void *ud, const sim_reply *msg)
{
    seen *s = ud;
    s->n++;
    sim_reply_format(msg, s->last, sizeof s->last);
}

START_TEST(pubsub)
{
    tnode t;
    tnode_init(&t);
    seen s = {0, ""};
    fake_conn *sub = fake_conn_new(t.node, on_push, &s);
    const char *subv[] = {"SUBSCRIBE", "ch", "ch2"};
    ck_assert_ptr_null(fake_execv(t.node, sub, 3, subv));
    ck_assert_int_eq(s.n, 2);
    ck_assert_str_eq(s.last, "[\"subscribe\", \"ch2\", (integer) 2]");
    const char *getv[] = {"GET", "k"};
    sim_reply *r = fake_execv(t.node, sub, 2, getv);
    ck_assert_int_eq(r->type, SIM_REPLY_ERR);
    sim_reply_free(r);
    EQ("PUBLISH ch hello", "(integer) 1");
    ck_assert_str_eq(s.last, "[\"message\", \"ch\", \"hello\"]");
    EQ("PUBLISH other x", "(integer) 0");
    ck_assert_str_eq(teval(&t, "return redis.call('publish', KEYS[1], 'x')", 1, "ch2"), "(integer) 1");
    ck_assert_str_eq(s.last, "[\"message\", \"ch2\", \"x\"]");
    const char *unsubv[] = {"UNSUBSCRIBE"};
    ck_assert_ptr_null(fake_execv(t.node, sub, 1, unsubv));
    ck_assert_str_eq(s.last, "[\"unsubscribe\", \"ch2\", (integer) 0]");
    EQ("PUBLISH ch hello", "(integer) 0");
    fake_conn_free(sub);
    tnode_done(&t);
}
END_TEST

START_TEST(scripting_commands)
{
    tnode t;
    tnode_init(&t);
    EQ("SCRIPT LOAD x", "(error) \"ERR Error compiling script (new function): user_script:1: '=' expected near '<eof>'\"");
    ck_assert_str_eq(tcmdv(&t, "SCRIPT", "LOAD", "return 1", NULL),
                     "\"e0e1f9fabfc9d4800c877a703b823ac0578ff8db\"");
    EQ("EVALSHA E0E1F9FABFC9D4800C877A703B823AC0578FF8DB 0", "(integer) 1");
    EQ("SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db abc", "[(integer) 1, (integer) 0]");
    EQ("SCRIPT FLUSH", "+\"OK\"");
    EQ("EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0", "(error) \"NOSCRIPT No matching script. Please use EVAL.\"");
    EQ("EVALSHA abc x", "(error) \"NOSCRIPT No matching script. Please use EVAL.\"");
    EQ("EVAL x -1", "(error) \"ERR Number of keys can't be negative\"");
    EQ("EVAL x 2 a", "(error) \"ERR Number of keys can't be greater than number of args\"");
    EQ("SCRIPT nope", "(error) \"ERR unknown subcommand 'nope'. Try SCRIPT HELP.\"");
    EQ("SCRIPT LOAD", "(error) \"ERR wrong number of arguments for 'script|load' command\"");
    EQ("SCRIPT FLUSH bogus extra", "(error) \"ERR SCRIPT FLUSH only support SYNC|ASYNC option\"");
    EQ("SCRIPT KILL now", "(error) \"ERR wrong number of arguments for 'script|kill' command\"");
    EQ("WAIT 0 0", "(integer) 0");
    EQ("WAIT 0 -1", "(error) \"ERR timeout is negative\"");
    tnode_done(&t);
}
END_TEST

Suite *fake_cmd_suite(void)
{
    Suite *s = suite_create("fake_cmd");
    TCase *core = tcase_create("core");
    tcase_add_test(core, strings);
    tcase_add_test(core, keys_and_types);
    tcase_add_test(core, hashes);
    tcase_add_test(core, lists);
    tcase_add_test(core, sorted_sets);
    tcase_add_test(core, pubsub);
    tcase_add_test(core, scripting_commands);
    suite_add_tcase(s, core);
    return s;
}
