/* test_lua_host.c — the scripting host: every conversion rule in both
 * directions, error texts and positions, the sandbox, Redis' math.random,
 * and the limits that keep a runaway or malformed script from crashing or
 * hanging the simulator. */
#include <stdio.h>
#include <string.h>

#include "tests/unit/tests.h"

#define EV(body, want) ck_assert_str_eq(teval(&t, body, 0, NULL), want)

START_TEST(lua_to_resp)
{
    tnode t;
    tnode_init(&t);
    EV("return 1", "(integer) 1");
    EV("return 3.99", "(integer) 3");          /* truncated */
    EV("return -3.99", "(integer) -3");        /* toward zero */
    EV("return 'x'", "\"x\"");
    EV("return true", "(integer) 1");
    EV("return false", "(nil)");
    EV("return nil", "(nil)");
    EV("return", "(nil)");
    EV("return {1,2,3.5,'x',nil,5}", "[(integer) 1, (integer) 2, (integer) 3, \"x\"]");
    EV("return {1,{2,{3,'a'}},false,true}",
       "[(integer) 1, [(integer) 2, [(integer) 3, \"a\"]], (nil), (integer) 1]");
    EV("return {err='My Error'}", "(error) \"My Error\"");
    EV("return {err='-X My Error'}", "(error) \"-X My Error\"");
    EV("return {err=5}", "[]");
    EV("return {ok='FINE'}", "+\"FINE\"");
    EV("return {1,{err='inner'},3}", "[(integer) 1, (error) \"inner\", (integer) 3]");
    EV("return {double=1.5}", "\"1.5\"");
    EV("return 1e20", "(integer) -9223372036854775808");
    EV("return 0/0", "(integer) -9223372036854775808");
    EV("return {1,2}, 3", "[(integer) 1, (integer) 2]");
    EV("return redis.error_reply('My Error')", "(error) \"My Error\"");
    EV("return redis.error_reply('x')", "(error) \"ERR x\"");
    EV("return redis.status_reply('a\\r\\nb')", "+\"a  b\"");
    tnode_done(&t);
}
END_TEST

START_TEST(resp_to_lua)
{
    tnode t;
    tnode_init(&t);
    tcmd(&t, "SET s v");
    tcmd(&t, "RPUSH l a b");
    EV("return type(redis.call('incr', 'n'))", "\"number\"");
    EV("return type(redis.call('get', 's'))", "\"string\"");
    EV("local r = redis.call('get', 'nokey'); return {type(r), tostring(r)}", "[\"boolean\", \"false\"]");
    EV("local r = redis.call('set', 'x', 1); return {type(r), r.ok}", "[\"table\", \"OK\"]");
    EV("local r = redis.call('lrange', 'l', 0, -1); return {type(r), #r, r[2]}",
       "[\"table\", (integer) 2, \"b\"]");
    EV("local r = redis.pcall('hget', 's', 'f'); return r.err",
       "\"WRONGTYPE Operation against a key holding the wrong kind of value\"");
    EV("local r = redis.pcall('lpop', 'nolist', 2); return type(r)", "\"boolean\"");
    /* Numbers go to commands as %.17g, not Lua's %.14g. */
    EV("redis.call('set', 'f', 0.1); return redis.call('get', 'f')", "\"0.10000000000000001\"");
    EV("redis.call('set', 'f', 2^53); return redis.call('get', 'f')", "\"9007199254740992\"");
    ck_assert_str_eq(teval(&t, "return {KEYS[1], ARGV[1], #KEYS, #ARGV}", 1, "k a b"),
                     "[\"k\", \"a\", (integer) 1, (integer) 2]");
    tnode_done(&t);
}
END_TEST

START_TEST(error_texts_and_positions)
{
    tnode t;
    tnode_init(&t);
    /* sha1("error('boom')") is 82903a04...; positions are the script's. */
    EV("error('boom')",
       "(error) \"ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.\"");
    ck_assert_ptr_nonnull(strstr(teval(&t, "local a = 1\nlocal b = 2\nreturn redis.call('nosuch')", 0, NULL),
                                 "ERR Unknown Redis command called from script script: "));
    ck_assert_ptr_nonnull(strstr(t.out, "on @user_script:3.\""));
    EV("return redis.pcall('nosuch')", "(error) \"ERR Unknown Redis command called from script\"");
    ck_assert_ptr_nonnull(strstr(teval(&t, "return redis.call('get')", 0, NULL),
                                 "ERR Wrong number of args calling Redis command from script"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return redis.call('subscribe', 'x')", 0, NULL),
                                 "ERR This Redis command is not allowed from script"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return redis.call('get', {})", 0, NULL),
                                 "ERR Lua redis lib command arguments must be strings or integers"));
    EV("return 1 +", "(error) \"ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\"");
    EV("local ok, e = pcall(redis.call, 'hget', 'k'); return e",
       "\"ERR Wrong number of args calling Redis command from script\"");
    EV("local ok, e = pcall(error, {err='x'}); return e", "\"x\"");
    /* A write before the error stays: no rollback. */
    ck_assert_ptr_nonnull(strstr(teval(&t, "redis.call('set', 'w', 1); error('late')", 0, NULL), "late"));
    ck_assert_str_eq(tcmd(&t, "GET w"), "\"1\"");
    tnode_done(&t);
}
END_TEST

START_TEST(sandbox)
{
    tnode t;
    tnode_init(&t);
    ck_assert_ptr_nonnull(strstr(teval(&t, "x = 5", 0, NULL), "user_script:1: Attempt to modify a readonly table"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return x", 0, NULL),
                                 "Script attempted to access nonexistent global variable 'x'"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return os.execute('true')", 0, NULL),
                                 "nonexistent global variable 'os'"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return io", 0, NULL), "nonexistent global variable 'io'"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return loadfile", 0, NULL), "nonexistent global variable 'loadfile'"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return require", 0, NULL), "nonexistent global variable 'require'"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "string.x = 1", 0, NULL), "Attempt to modify a readonly table"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "redis = nil", 0, NULL), "Attempt to modify a readonly table"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "rawset(_G, 'x', 1)", 0, NULL),
                                 "\"ERR Attempt to modify a readonly table script:"));
    EV("local t = {}; rawset(t, 'a', 1); return t.a", "(integer) 1");
    EV("return {type(bit), type(cjson), type(coroutine), type(_G)}",
       "[\"table\", \"table\", \"table\", \"table\"]");
    EV("return redis.sha1hex('')", "\"da39a3ee5e6b4b0d3255bfef95601890afd80709\"");
    EV("local f, e = loadstring(string.dump(function() return 1 end)); return e",
       "\"bytecode is not allowed in scripts\"");
    tnode_done(&t);
}
END_TEST

START_TEST(math_random_is_redis_rand48)
{
    tnode t;
    tnode_init(&t);
    /* The sequence a fresh redis-server 7.0 gives (never reseeded). */
    EV("return math.random(100)", "(integer) 40");
    EV("return math.random(100)", "(integer) 85");
    EV("return {math.random(100), math.random(100), math.random(1000000)}",
       "[(integer) 36, (integer) 45, (integer) 318693]");
    EV("math.randomseed(7); return math.random(1000)", "(integer) 267"); /* as redis-server */
    tnode_done(&t);
}
END_TEST

START_TEST(runaway_scripts_are_stopped)
{
    tnode t;
    tnode_init(&t);
    fake_node_set_script_limits(t.node, 2000000, 32u << 20);
    static const char *const bodies[] = {
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "while true do xpcall(function() while true do end end, function() while true do end end) end",
        "local co = coroutine.create(function() while true do end end)\n"
        "while true do coroutine.resume(co) end",
        "local f = coroutine.wrap(function() while true do end end) f()",
        "local function r() return r() end return r()",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        const char *out = teval(&t, bodies[i], 0, NULL);
        ck_assert_msg(strncmp(out, "(error)", 7) == 0, "script %zu: %s", i, out);
    }
    const char *mem = teval(&t, "local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 4096) .. i end", 0, NULL);
    ck_assert_ptr_nonnull(strstr(mem, "not enough memory"));
    ck_assert_ptr_nonnull(strstr(teval(&t, "return string.rep('x', 1e9)", 0, NULL),
                                 "(error) \"ERR Error running script "));
    ck_assert_ptr_nonnull(strstr(t.out, "not enough memory"));
    EV("return 1", "(integer) 1"); /* the node still works */
    tnode_done(&t);
}
END_TEST

/* A script that does not end, on a node that keeps going ([redis] runaway
 * = busy): its EVAL never answers, every other command gets BUSY, SCRIPT
 * KILL ends it while it has not written (UNKILLABLE once it has), and the
 * node says which script it was. */
START_TEST(runaway_scripts_leave_the_node_busy)
{
    for (int writes = 0; writes <= 1; writes++) {
        tnode t;
        tnode_init(&t);
        fake_node_set_script_limits(t.node, 2000000, 32u << 20);
        fake_node_set_runaway_keep(t.node, 1);
        const char *body = writes ? "redis.call('set', 'k', '1') while true do end" : "while true do end";
        const char *eval[] = {"EVAL", body, "0"};
        ck_assert_ptr_null(fake_execv(t.node, t.conn, 3, eval)); /* no reply: it runs for ever */
        int wrote = -1;
        ck_assert_ptr_nonnull(fake_node_runaway(t.node, &wrote));
        ck_assert_int_eq(wrote, writes);
        const char *get[] = {"GET", "x"}, *kill[] = {"SCRIPT", "KILL"};
        sim_reply *r = fake_execv(t.node, t.conn, 2, get);
        ck_assert(r->type == SIM_REPLY_ERR && strncmp(r->str, "BUSY Redis is busy running a script.", 36) == 0);
        sim_reply_free(r);
        r = fake_execv(t.node, t.conn, 2, kill);
        if (writes) ck_assert(r->type == SIM_REPLY_ERR && strncmp(r->str, "UNKILLABLE Sorry the script already", 35) == 0);
        else ck_assert(r->type == SIM_REPLY_STATUS && strcmp(r->str, "OK") == 0);
        sim_reply_free(r);
        r = fake_execv(t.node, t.conn, 2, get);
        ck_assert_int_eq(r->type, writes ? SIM_REPLY_ERR : SIM_REPLY_NIL); /* killed: the node serves again */
        sim_reply_free(r);
        r = fake_execv(t.node, t.conn, 2, kill);
        if (!writes) ck_assert(r->type == SIM_REPLY_ERR && strncmp(r->str, "NOTBUSY", 7) == 0);
        sim_reply_free(r);
        tnode_done(&t);
    }
}
END_TEST

/* Malformed or hostile bodies: always an error reply, never a crash. */
static const char *const malformed[] = {
    "return 1 +", "local = 5", "end", "%%%", "return {", "\x1bLua", "return (((((",
    "return redis.call('set')", "return redis.call()", "return redis.call(nil)",
    "return redis.error_reply()", "error()", "error(5)", "error({err=5})",
    "return setmetatable({}, {__index = function(t, k) return t[k] end}).x",
    "return string.format('%99999d', 1)", "return unpack({}, 1, 1e8)",
    "return ('x'):rep(-1)", "return cjson.decode('{')", "return select(-1)",
    "return redis.sha1hex(nil)", "return redis.log('x', 'y')", "return tostring(nil) .. nil",
};

START_TEST(malformed_scripts_give_error_replies)
{
    tnode t;
    tnode_init(&t);
    fake_node_set_script_limits(t.node, 1000000, 16u << 20);
    const char *out = teval(&t, malformed[_i], 0, NULL);
    ck_assert_msg(strncmp(out, "(error)", 7) == 0 || strcmp(out, "(nil)") == 0 ||
                      out[0] == '"' || out[0] == '[' || out[0] == '(',
                  "body %d: %s", _i, out);
    EV("return 'alive'", "\"alive\"");
    tnode_done(&t);
}
END_TEST

Suite *lua_host_suite(void)
{
    Suite *s = suite_create("lua_host");
    TCase *core = tcase_create("core");
    tcase_add_test(core, lua_to_resp);
    tcase_add_test(core, resp_to_lua);
    tcase_add_test(core, error_texts_and_positions);
    tcase_add_test(core, sandbox);
    tcase_add_test(core, math_random_is_redis_rand48);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, runaway_scripts_are_stopped);
    tcase_add_test(limits, runaway_scripts_leave_the_node_busy);
    tcase_add_loop_test(limits, malformed_scripts_give_error_replies, 0,
                        (int)(sizeof malformed / sizeof malformed[0]));
    suite_add_tcase(s, limits);
    return s;
}
