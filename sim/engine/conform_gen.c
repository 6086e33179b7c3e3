/* gen.c — the conformance generator: a seeded stream of operations that
 * covers every command the fake implements (with options, wrong types,
 * missing keys, edge values, wrong arities and odd casing), the scripting
 * engine (conversions, errors, the sandbox, math.random, bit, cjson) and
 * every bundled protocol script.
 *
 * Timing rule: nothing generated may expire by itself during the run except
 * in the explicit expiry probe (SET PX 25, sleep 60 ms, GET), so real and
 * fake agree whatever the network delay; relative TTLs are <= 0 (delete at
 * once) or >= 60 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "protocols/protocol.h"
#include "sim/engine/conform.h"
#include "sim/fake/fake.h"

struct conform_gen {
    sim_rng rng;
    conform_op queued[12]; /* the rest of a composite operation */
    int nqueued;
    int all_scripts;      /* also the scripts added after the baseline (added[]) */
};

#define POOL(...) {__VA_ARGS__, NULL}

static const char *const keys[] = POOL(
    "k1", "k2", "k3", "h1", "h2", "l1", "l2", "z1", "z2", "lock", "{lock}:x",
    "redisson_unlock_latch:{lock}:r1", "n1", "latch", "sem");
static const char *const fields[] = POOL("f1", "f2", "f3", "p1:1", "p1:2", "p2:1", "mode", "");
static const char *const values[] = POOL(
    "", "0", "1", "-1", "2", "10", "010", "-0", "+1", "1.5", "abc", " 1", "1 ",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808",
    "inf", "nan", "1e3", "0x10", "hello world", "p1:1", "line\r\nbreak", "\x01\xff bin");
static const char *const ints[] = POOL(
    "-3", "-2", "-1", "0", "1", "2", "3", "5", "100", "abc", "", "1.5", " 1",
    "9223372036854775807", "-9223372036854775808", "99999999999999999999");
static const char *const ttl_ms[] = POOL(
    "-1", "0", "-100", "60000", "120000", "3600000", "abc", "", "1.5",
    "9223372036854775807", "-9223372036854775808", "9223372036854775806");
static const char *const ttl_s[] = POOL(
    "-1", "0", "60", "100", "3600", "abc", "9223372036854775807",
    "922337203685477", "9223372036854776", "-9223372036854775808");
static const char *const abs_ms[] = POOL("1000", "0", "-5", "99999999999999", "abc");
static const char *const abs_s[] = POOL("1000", "0", "99999999999", "abc");
static const char *const scores[] = POOL(
    "0", "1", "-1", "1.5", "0.1", "2", "3", "inf", "-inf", "+inf", "infinity",
    "nan", "abc", "", " 1", "1e3", "0x10", "1e500", "1700000300000", "-0");
static const char *const bounds[] = POOL(
    "-inf", "+inf", "inf", "(1", "(0", "0", "1", "1.5", "abc", "", "(", "( 1",
    " 2", "(-inf", "nan", "3", "1700000300000");
static const char *const members[] = POOL("a", "b", "c", "p1:1", "p1:2", "p2:1", "");
/* Blocking commands on the main connection: a timeout that ends at once
 * (10 ms: the server's hz is raised to 100 for the run), or is refused;
 * never 0 (for ever) nor long. */
static const char *const block_timeouts[] = POOL(
    "0.01", "0.01", "0.02", ".01", "-1", "-0.5", "abc", "", "nan", "inf", "-inf", "1e5000", "99999999999999999",
    " 0.01", "0.01 ");
static const char *const list_ends[] = POOL("left", "right", "LEFT", "Right", "up");
static const char *const channels[] = POOL(
    "ch1", "ch2", "redisson_lock__channel:{lock}", "redisson_lock__channel:{lock}:p1:1",
    "redisson_rwlock:{rwlock}", "redisson_sc:{sem}", "redisson_countdownlatch__channel__{latch}");
static const char *const lock_names[] = POOL("p1:1", "p1:2", "p2:1");
static const char *const lock_keys[] = POOL("lock", "lock", "lock", "k1", "h1", "z1", "l1");
/* The read/write lock's hash is a key no other generator touches: its
 * unlock and renewal loop over every hold count, which must stay small. */
static const char *const rw_keys[] = POOL(
    "rwlock", "rwlock", "rwlock", "rwlock", "rwlock", "{rwlock}:p1:1:rwlock_timeout:1");
static const char *const rw_prefixes[] = POOL(
    "{rwlock}:p1:1:rwlock_timeout", "{rwlock}:p1:2:rwlock_timeout", "{rwlock}:p2:1:rwlock_timeout");
static const char *const rw_writers[] = POOL("p1:1:write", "p1:2:write", "p2:1:write", "p1:1");
/* semaphore permits and latch counts: mostly small, sometimes odd */
static const char *const permits[] = POOL(
    "1", "1", "2", "3", "5", "0", "-1", "-2", "abc", "1.5", "9223372036854775807");
/* a semaphore policy's {n} and {permits}: its scripts loop over them */
static const char *const small_counts[] = POOL("1", "1", "2", "3", "0", "-1", "abc", "1.5");
static const char *const leases[] = POOL(
    "30000", "60000", "100000", "0", "-5", "abc", "120000");
/* Fair lock: waitMs and the client's clock. A waiter's deadline is
 * pttl + (sum of waitMs added and taken back) + now, so it carries the
 * run's timing, which differs between the two servers by milliseconds.
 * The deadlines zset is never a key the plain commands read, every waitMs
 * is 0 or a multiple of 10^9 ms and the clocks are far apart (and not
 * 10^9 apart), so a purge decision or a reply is either exactly pttl or
 * more than a day away from any deadline: never within the run's jitter. */
static const char *const wait_ms[] = POOL("0", "1000000000", "3000000000", "x");
static const char *const client_now[] = POOL("1700000000000", "1700000000000", "1800123456789", "0");
/* The expirable semaphore: permit deadlines on a client clock (the
 * scripts compare them with the now they are given, never with the
 * server's time) and permit ids, a few so that releases meet acquires. */
static const char *const deadlines[] = POOL(
    "1700000005000", "1700000000000", "1600000000000", "922337203685477", "922337203685477", "1800123456789", "x");
static const char *const permit_ids[] = POOL(
    "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210", "00000000000000000000000000000001");

/* ------------------------------------------------------------- helpers */

static uint64_t below(conform_gen *g, uint64_t n)
{
    return sim_rng_below(&g->rng, n);
}

static int chance(conform_gen *g, int percent)
{
    return (int)below(g, 100) < percent;
}

static size_t pool_len(const char *const *pool)
{
    size_t n = 0;
    while (pool[n]) n++;
    return n;
}

static const char *pick(conform_gen *g, const char *const *pool)
{
    return pool[below(g, pool_len(pool))];
}

static void add_len(conform_op *op, const char *s, size_t len)
{
    if (op->argc >= CONFORM_MAX_ARGS) return;
    op->argv[op->argc] = sim_xmemdup(s, len);
    op->lens[op->argc] = len;
    op->argc++;
}

static void add(conform_op *op, const char *s)
{
    add_len(op, s, strlen(s));
}

static void addf(conform_op *op, const char *fmt, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, fmt, v);
    add(op, buf);
}

/* The command name, usually lower case, sometimes upper or mixed. */
static void add_name(conform_gen *g, conform_op *op, const char *name)
{
    char buf[32];
    size_t n = strlen(name);
    memcpy(buf, name, n + 1);
    int mode = (int)below(g, 10);
    for (size_t i = 0; i < n; i++) {
        if (mode >= 7 || (mode == 6 && (i & 1)))
            buf[i] = (char)(buf[i] >= 'a' && buf[i] <= 'z' ? buf[i] - 32 : buf[i]);
    }
    add(op, buf);
    op->family = name;
}

static void add_some(conform_gen *g, conform_op *op, const char *const *pool, int max)
{
    int n = (int)below(g, (uint64_t)max + 1);
    for (int i = 0; i < n; i++) add(op, pick(g, pool));
}

/* Arity mutation: sometimes drop the last argument or add one. */
static void mutate_arity(conform_gen *g, conform_op *op)
{
    if (!chance(g, 3)) return;
    if (chance(g, 50) && op->argc > 1) {
        op->argc--;
        sim_xfree(op->argv[op->argc]);
    } else {
        add(op, "extra");
    }
}

/* ------------------------------------------------------------ commands */

typedef void gen_fn(conform_gen *g, conform_op *op);

static void g_string(conform_gen *g, conform_op *op)
{
    switch (below(g, 10)) {
    case 0: add_name(g, op, "get"); add(op, pick(g, keys)); break;
    case 9: add_name(g, op, "getset"); add(op, pick(g, keys)); add(op, pick(g, values)); break;
    case 1: {
        add_name(g, op, "set");
        add(op, pick(g, keys));
        add(op, pick(g, values));
        static const char *const opts[] = POOL("nx", "xx", "get", "keepttl", "ex", "px",
                                               "exat", "pxat", "NX", "Px", "bogus");
        int n = (int)below(g, 4);
        for (int i = 0; i < n; i++) {
            const char *o = pick(g, opts);
            add(op, o);
            if (!strcasecmp(o, "ex")) add(op, pick(g, ttl_s));
            else if (!strcasecmp(o, "px")) add(op, pick(g, ttl_ms));
            else if (!strcasecmp(o, "exat")) add(op, pick(g, abs_s));
            else if (!strcasecmp(o, "pxat")) add(op, pick(g, abs_ms));
        }
        break;
    }
    case 2: add_name(g, op, "setnx"); add(op, pick(g, keys)); add(op, pick(g, values)); break;
    case 3: add_name(g, op, "mget"); add(op, pick(g, keys)); add_some(g, op, keys, 3); break;
    case 4: add_name(g, op, "incr"); add(op, pick(g, keys)); break;
    case 5: add_name(g, op, "decr"); add(op, pick(g, keys)); break;
    case 6: add_name(g, op, "incrby"); add(op, pick(g, keys)); add(op, pick(g, ints)); break;
    case 7: add_name(g, op, "decrby"); add(op, pick(g, keys)); add(op, pick(g, ints)); break;
    default: add_name(g, op, "strlen"); add(op, pick(g, keys)); break;
    }
}

static void expire_flags(conform_gen *g, conform_op *op)
{
    static const char *const flags[] = POOL("nx", "xx", "gt", "lt", "XX", "bad");
    int n = chance(g, 70) ? 0 : (int)below(g, 3);
    for (int i = 0; i < n; i++) add(op, pick(g, flags));
}

static void g_keys(conform_gen *g, conform_op *op)
{
    switch (below(g, 12)) {
    case 0: add_name(g, op, chance(g, 70) ? "del" : "unlink"); add(op, pick(g, keys)); add_some(g, op, keys, 2); break;
    case 1: add_name(g, op, "exists"); add(op, pick(g, keys)); add_some(g, op, keys, 2); break;
    case 2: add_name(g, op, "expire"); add(op, pick(g, keys)); add(op, pick(g, ttl_s));
            expire_flags(g, op); break;
    case 3: add_name(g, op, "pexpire"); add(op, pick(g, keys)); add(op, pick(g, ttl_ms));
            expire_flags(g, op); break;
    case 4: add_name(g, op, "expireat"); add(op, pick(g, keys)); add(op, pick(g, abs_s));
            expire_flags(g, op); break;
    case 5: add_name(g, op, "pexpireat"); add(op, pick(g, keys)); add(op, pick(g, abs_ms));
            expire_flags(g, op); break;
    case 6: add_name(g, op, "ttl"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_TIME_SEC; break;
    case 7: add_name(g, op, "pttl"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_TIME; break;
    case 8: add_name(g, op, "persist"); add(op, pick(g, keys)); break;
    case 9: add_name(g, op, "type"); add(op, pick(g, keys)); break;
    case 10: add_name(g, op, "ping"); add_some(g, op, values, 2); break;
    default: add_name(g, op, "echo"); add(op, pick(g, values)); break;
    }
}

static void g_hash(conform_gen *g, conform_op *op)
{
    switch (below(g, 11)) {
    case 0: {
        add_name(g, op, "hset");
        add(op, pick(g, keys));
        int pairs = 1 + (int)below(g, 3);
        for (int i = 0; i < pairs; i++) {
            add(op, pick(g, fields));
            add(op, pick(g, values));
        }
        break;
    }
    case 1: add_name(g, op, "hsetnx"); add(op, pick(g, keys)); add(op, pick(g, fields));
            add(op, pick(g, values)); break;
    case 2: add_name(g, op, "hget"); add(op, pick(g, keys)); add(op, pick(g, fields)); break;
    case 3: add_name(g, op, "hmget"); add(op, pick(g, keys)); add(op, pick(g, fields));
            add_some(g, op, fields, 2); break;
    case 4: add_name(g, op, "hexists"); add(op, pick(g, keys)); add(op, pick(g, fields)); break;
    case 5: add_name(g, op, "hincrby"); add(op, pick(g, keys)); add(op, pick(g, fields));
            add(op, pick(g, ints)); break;
    case 6: add_name(g, op, "hdel"); add(op, pick(g, keys)); add(op, pick(g, fields));
            add_some(g, op, fields, 2); break;
    case 7: add_name(g, op, "hlen"); add(op, pick(g, keys)); break;
    case 8: add_name(g, op, "hkeys"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_SET; break;
    case 9: add_name(g, op, "hvals"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_SET; break;
    default: add_name(g, op, "hgetall"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_PAIRS; break;
    }
}

static void g_list(conform_gen *g, conform_op *op)
{
    switch (below(g, 14)) {
    case 8: add_name(g, op, "lmove"); add(op, pick(g, keys)); add(op, pick(g, keys)); add(op, pick(g, list_ends));
            add(op, pick(g, list_ends)); break;
    case 9: add_name(g, op, "rpoplpush"); add(op, pick(g, keys)); add(op, pick(g, keys)); break;
    case 10: add_name(g, op, "blpop"); add(op, pick(g, keys)); add_some(g, op, keys, 2);
             add(op, pick(g, block_timeouts)); break;
    case 11: add_name(g, op, "brpop"); add(op, pick(g, keys)); add_some(g, op, keys, 2);
             add(op, pick(g, block_timeouts)); break;
    case 12: add_name(g, op, "blmove"); add(op, pick(g, keys)); add(op, pick(g, keys)); add(op, pick(g, list_ends));
             add(op, pick(g, list_ends)); add(op, pick(g, block_timeouts)); break;
    case 13: add_name(g, op, "brpoplpush"); add(op, pick(g, keys)); add(op, pick(g, keys));
             add(op, pick(g, block_timeouts)); break;
    case 0: add_name(g, op, "rpush"); add(op, pick(g, keys)); add(op, pick(g, values));
            add_some(g, op, values, 3); break;
    case 1: add_name(g, op, "lpush"); add(op, pick(g, keys)); add(op, pick(g, values));
            add_some(g, op, values, 3); break;
    case 2: add_name(g, op, "lpop"); add(op, pick(g, keys));
            if (chance(g, 40)) add(op, pick(g, ints));
            break;
    case 3: add_name(g, op, "rpop"); add(op, pick(g, keys));
            if (chance(g, 40)) add(op, pick(g, ints));
            break;
    case 4: add_name(g, op, "lindex"); add(op, pick(g, keys)); add(op, pick(g, ints)); break;
    case 5: add_name(g, op, "lrem"); add(op, pick(g, keys)); add(op, pick(g, ints));
            add(op, pick(g, values)); break;
    case 6: add_name(g, op, "lrange"); add(op, pick(g, keys)); add(op, pick(g, ints));
            add(op, pick(g, ints)); break;
    default: add_name(g, op, "llen"); add(op, pick(g, keys)); break;
    }
}

static void g_zset(conform_gen *g, conform_op *op)
{
    switch (below(g, 18)) {
    case 13: add_name(g, op, "sadd"); add(op, pick(g, keys)); add(op, pick(g, members)); add_some(g, op, members, 3); break;
    case 14: add_name(g, op, "srem"); add(op, pick(g, keys)); add(op, pick(g, members)); add_some(g, op, members, 2); break;
    case 15: add_name(g, op, "scard"); add(op, pick(g, keys)); break;
    case 16: add_name(g, op, "sismember"); add(op, pick(g, keys)); add(op, pick(g, members)); break;
    case 17: add_name(g, op, "smembers"); add(op, pick(g, keys)); op->cmp = CONFORM_CMP_SET; break;
    case 9: add_name(g, op, "zpopmin"); add(op, pick(g, keys)); if (chance(g, 50)) add(op, pick(g, ints)); break;
    case 10: add_name(g, op, "zpopmax"); add(op, pick(g, keys)); if (chance(g, 50)) add(op, pick(g, ints)); break;
    case 11: add_name(g, op, "bzpopmin"); add(op, pick(g, keys)); add_some(g, op, keys, 2);
             add(op, pick(g, block_timeouts)); break;
    case 12: add_name(g, op, "bzpopmax"); add(op, pick(g, keys)); add_some(g, op, keys, 2);
             add(op, pick(g, block_timeouts)); break;
    case 0: {
        add_name(g, op, "zadd");
        add(op, pick(g, keys));
        static const char *const opts[] = POOL("nx", "xx", "gt", "lt", "ch", "incr");
        int n = chance(g, 60) ? 0 : 1 + (int)below(g, 2);
        for (int i = 0; i < n; i++) add(op, pick(g, opts));
        int pairs = 1 + (int)below(g, 3);
        for (int i = 0; i < pairs; i++) {
            add(op, pick(g, scores));
            add(op, pick(g, members));
        }
        break;
    }
    case 1: add_name(g, op, "zscore"); add(op, pick(g, keys)); add(op, pick(g, members)); break;
    case 2: add_name(g, op, "zrem"); add(op, pick(g, keys)); add(op, pick(g, members));
            add_some(g, op, members, 2); break;
    case 3: add_name(g, op, "zincrby"); add(op, pick(g, keys)); add(op, pick(g, scores));
            add(op, pick(g, members)); break;
    case 4: add_name(g, op, "zcard"); add(op, pick(g, keys)); break;
    case 5:
        add_name(g, op, "zrange");
        add(op, pick(g, keys));
        if (chance(g, 50)) {
            add(op, pick(g, ints));
            add(op, pick(g, ints));
            if (chance(g, 30)) add(op, "rev");
        } else {
            add(op, pick(g, bounds));
            add(op, pick(g, bounds));
            add(op, "byscore");
            if (chance(g, 30)) add(op, "REV");
            if (chance(g, 30)) {
                add(op, "limit");
                add(op, pick(g, ints));
                add(op, pick(g, ints));
            }
        }
        if (chance(g, 40)) add(op, "withscores");
        break;
    case 6:
        add_name(g, op, "zrangebyscore");
        add(op, pick(g, keys));
        add(op, pick(g, bounds));
        add(op, pick(g, bounds));
        if (chance(g, 40)) add(op, "WITHSCORES");
        if (chance(g, 30)) {
            add(op, "limit");
            add(op, pick(g, ints));
            add(op, pick(g, ints));
        }
        if (chance(g, 5)) add(op, "rev");
        break;
    case 7:
        add_name(g, op, "zremrangebyscore");
        add(op, pick(g, keys));
        add(op, pick(g, bounds));
        add(op, pick(g, bounds));
        break;
    default:
        add_name(g, op, "zrange");
        add(op, pick(g, keys));
        add(op, "0");
        add(op, "-1");
        add(op, "withscores");
        break;
    }
    /* A fair lock script given "h1" as its deadlines set (its 1 in 10
     * wrong-key case) leaves there a deadline derived from a PTTL: read
     * back, it may differ by the time between the two runs. */
    op->cmp |= CONFORM_CMP_TIME;
}

static void g_misc(conform_gen *g, conform_op *op)
{
    switch (below(g, 8)) {
    case 0: add_name(g, op, "publish"); add(op, pick(g, channels)); add(op, pick(g, values)); break;
    case 1: {
        /* A positive count with timeout 0 would block the real server's
         * client for ever: timeouts here are short or invalid. */
        static const char *const timeouts[] = POOL("1", "2", "abc", "-1", "", "1.5");
        add_name(g, op, "wait");
        const char *n = pick(g, ints);
        add(op, n);
        add(op, (n[0] == '-' || !strcmp(n, "0")) && chance(g, 50) ? "0" : pick(g, timeouts));
        break;
    }
    case 2: add(op, chance(g, 50) ? "nosuch" : "GETT"); op->family = "unknown";
            add_some(g, op, values, 3); break;
    case 3: add_name(g, op, "script"); add(op, "exists");
            add(op, "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
            add_some(g, op, values, 1); break;
    case 4: {
        static const char *const subs[] = POOL("kill", "help", "nope", "flush", "load");
        add_name(g, op, "script");
        const char *s = pick(g, subs);
        add(op, s);
        if (!strcmp(s, "flush") && chance(g, 50)) add(op, chance(g, 50) ? "async" : "bogus");
        if (!strcmp(s, "load")) add(op, chance(g, 50) ? "return 1" : "return +");
        break;
    }
    case 5: add_name(g, op, "script"); break;
    case 6:
        if (chance(g, 90)) { /* FLUSHALL empties the keyspace: keep it rare */
            add_name(g, op, "type");
            add(op, pick(g, keys));
            break;
        }
        add_name(g, op, "flushall");
        if (chance(g, 30)) add(op, chance(g, 50) ? "sync" : "x");
        break;
    default: add_name(g, op, "ping"); break;
    }
}

/* ------------------------------------------------------------- scripts */

typedef struct script_case {
    const char *name;  /* coverage label */
    const char *body;  /* NULL: a bundled protocol script named name */
    const char *keys;  /* key kinds: k any key, L lock key, C channel, T latch key,
                          W rw lock key, X rw channel, R rw timeout prefix, K rw key prefix,
                          S semaphore key, D its channel, A count-down latch key, B its channel,
                          Q fair queue, Z fair deadlines */
    const char *args;  /* arg kinds: v value, t ttl ms, l lease, n lockName, c channel,
                          P "publish", 0 "0", 1 "1", 2 "2", N permits / count, i int,
                          s score, m member, f field, w write lockName, q fair waitMs,
                          o the client's now (ms) */
} script_case;

static const script_case scripts[] = {
    /* conversions Lua -> RESP */
    {"ret-int", "return 1", "", ""},
    {"ret-str", "return 'x'", "", ""},
    {"ret-true", "return true", "", ""},
    {"ret-false", "return false", "", ""},
    {"ret-nil", "return nil", "", ""},
    {"ret-float", "return 3.99", "", ""},
    {"ret-negfloat", "return -3.99", "", ""},
    {"ret-array-nil", "return {1,2,3.5,'x',nil,5}", "", ""},
    {"ret-nested", "return {1,{2,{3,'a'}},false,true}", "", ""},
    {"ret-err", "return {err='My Error'}", "", ""},
    {"ret-err-dash", "return {err='-X My Error'}", "", ""},
    {"ret-err-num", "return {err=5}", "", ""},
    {"ret-err-ok", "return {err='x', ok='y'}", "", ""},
    {"ret-ok", "return {ok='+FINE'}", "", ""},
    {"ret-ok-crlf", "return redis.status_reply('a\\r\\nb')", "", ""},
    {"ret-inner-err", "return {1,{err='inner'},3}", "", ""},
    {"ret-inner-ok", "return {1,{ok='inner'},3}", "", ""},
    {"ret-huge", "return 1e20", "", ""},
    {"ret-neghuge", "return -1e20", "", ""},
    {"ret-nan", "return 0/0", "", ""},
    {"ret-inf", "return 1/0", "", ""},
    {"ret-double", "return {double=1.5}", "", ""},
    {"ret-two", "return {1,2}, 3", "", ""},
    {"ret-empty", "return", "", ""},
    {"ret-keys-argv", "return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "kk", "vv"},
    {"keys-write", "KEYS[1] = 'x'; return KEYS[1]", "k", ""},
    {"error-reply", "return redis.error_reply('My Error')", "", ""},
    {"error-reply-short", "return redis.error_reply('x')", "", ""},
    {"error-reply-empty", "return redis.error_reply('')", "", ""},
    {"error-reply-code", "return redis.error_reply('-X My Error')", "", ""},
    {"error-reply-field", "local t = redis.error_reply('x'); return t.err", "", ""},
    {"error-reply-badarg", "return redis.error_reply(5)", "", ""},
    {"status-reply", "return redis.status_reply('FINE')", "", ""},
    {"status-reply-noarg", "return redis.status_reply()", "", ""},
    {"sha1hex", "return {redis.sha1hex(''), redis.sha1hex('abc'), redis.sha1hex(5)}", "", ""},
    {"sha1hex-noarg", "return redis.sha1hex()", "", ""},
    {"tostring", "return {tostring(0.1), tostring(1e15), tostring(2^53)}", "", ""},
    {"num-args", "redis.call('set', KEYS[1], 0.1); redis.call('rpush', 'l2', 2^53, 1e300, -0.0, 1/0);"
                 " return redis.call('get', KEYS[1])", "k", ""},
    /* errors and positions */
    {"err-string", "error('boom')", "", ""},
    {"err-table", "error({err='boom'})", "", ""},
    {"err-table-code", "error({err='-X boom'})", "", ""},
    {"err-nil", "error()", "", ""},
    {"err-num", "error(5)", "", ""},
    {"err-arith", "local x = nil\nreturn x + 1", "", ""},
    {"err-lines", "local a = 1\nlocal b = 2\nreturn redis.call('nosuch')", "", ""},
    {"err-nested", "local function f()\n  return redis.call('get')\nend\nreturn f()", "", ""},
    {"err-nested-error", "local function f()\n  error('e')\nend\n\nreturn f()", "", ""},
    {"compile-error", "return 1 +", "", ""},
    {"compile-error2", "local = 5", "", ""},
    {"call-noargs", "return redis.call()", "", ""},
    {"call-badarg", "return redis.call('get', {})", "", ""},
    {"call-nilarg", "return redis.call('set', 'k', nil)", "", ""},
    {"call-bool", "return redis.call('set', 'k', true)", "", ""},
    {"call-unknown", "return redis.call('nosuch')", "", ""},
    {"call-numname", "return redis.call(5, 'k')", "", ""},
    {"call-arity", "return redis.call('get', 'k', 'a')", "", ""},
    {"call-noscript", "return redis.call('subscribe', 'x')", "", ""},
    {"call-eval", "return redis.call('eval', 'return 1', 0)", "", ""},
    {"call-wrongtype", "return redis.call('hget', KEYS[1], 'a')", "k", ""},
    {"call-incr", "return redis.call('incr', KEYS[1])", "k", ""},
    {"pcall-unknown", "return redis.pcall('nosuch')", "", ""},
    {"pcall-arity", "return redis.pcall('get', 'k', 'a')", "", ""},
    {"pcall-wrongtype", "local r = redis.pcall('hget', KEYS[1], 'a'); return r", "k", ""},
    {"pcall-err-field", "local r = redis.pcall('incr', KEYS[1]); if type(r) == 'table' then return r.err end return r",
     "k", ""},
    {"pcall-badarg", "local r = redis.pcall('set', 'k', {}); return r.err", "", ""},
    {"lua-pcall", "local ok, e = pcall(redis.call, 'incr', KEYS[1]); return {tostring(ok), e}", "k", ""},
    {"lua-pcall-table", "local ok, e = pcall(error, {err='x'}); return e", "", ""},
    {"lua-pcall-str", "local ok, e = pcall(error, 'x'); return e", "", ""},
    {"lua-pcall-foo", "local ok, e = pcall(error, {foo='x'}); return type(e)", "", ""},
    {"lua-xpcall", "local ok, e = xpcall(function() return redis.call('incr', KEYS[1]) end, "
                   "function(e) return e end); return type(e)", "k", ""},
    {"status-from-call", "local r = redis.call('set', 'n1', '1'); return {type(r), r.ok}", "", ""},
    {"nil-from-call", "return type(redis.call('get', 'nokey'))", "", ""},
    {"ping-from-call", "return {redis.call('PING'), redis.call('ping', 'a')}", "", ""},
    /* sandbox */
    {"global-write", "x = 5", "", ""},
    {"global-read", "return x", "", ""},
    {"global-fn", "function f() return 1 end", "", ""},
    {"os", "return os.execute('true')", "", ""},
    {"loadfile", "return loadfile", "", ""},
    {"dofile", "return dofile('/etc/passwd')", "", ""},
    {"print", "print('x')", "", ""},
    {"debug", "return debug", "", ""},
    {"string-write", "string.x = 1", "", ""},
    {"G-write", "_G.x = 1", "", ""},
    {"rawset-G", "rawset(_G, 'x', 1)", "", ""},
    {"redis-nil", "redis = nil", "", ""},
    {"KEYS-assign", "KEYS = {}", "", ""},
    {"nested-global-write", "local function f() y = 1 end\nf()", "", ""},
    {"loadstring-write", "local f = loadstring('z = 1')\nf()", "", ""},
    {"loadstring-read", "local f = loadstring('return nope')\nreturn f()", "", ""},
    {"string-mt", "return tostring(rawequal(getmetatable('').__index, string))", "", ""},
    {"string-mt-write", "getmetatable('').__index.x = 1", "", ""},
    {"string-mt-new", "getmetatable('').foo = 1", "", ""},
    {"redis-field-write", "redis.call = nil", "", ""},
    {"types", "return {type(bit), type(cjson), type(coroutine), type(unpack), type(loadstring),"
              " type(gcinfo), type(collectgarbage), type(_G), type(rawget), type(select)}", "", ""},
    {"version", "return _VERSION", "", ""},
    {"setmetatable", "local t = setmetatable({}, {__index=function() return 7 end}); return t.x", "", ""},
    {"string-lib", "return {string.rep('x', 3), string.format('%05d', 42), ('abc'):upper(),"
                   " table.concat({1,2,3}, ','), tostring(math.floor(2.5))}", "", ""},
    {"log", "return redis.log(redis.LOG_WARNING, 'hi')", "", ""},
    {"log-badlevel", "return redis.log(99, 'hi')", "", ""},
    {"log-noargs", "return redis.log()", "", ""},
    {"consts", "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING,"
               " redis.REPL_ALL, redis.REPL_NONE}", "", ""},
    {"replicate", "return redis.replicate_commands()", "", ""},
    {"setresp2", "return redis.setresp(2)", "", ""},
    {"random", "return {math.random(100), math.random(5, 10), math.random(1000000)}", "", ""},
    {"random-float", "return tostring(math.random())", "", ""},
    {"bit", "return {bit.band(12, 10), bit.bor(1, 2), bit.tohex(255), bit.lshift(1, 4)}", "", ""},
    {"cjson", "return {cjson.encode({1,2,3.5,'x'}), cjson.encode(0.1), cjson.decode('[1,2,\"x\"]')[3]}",
     "", ""},
    {"loop-small", "local s = 0 for i = 1, 10000 do s = s + i end return s", "", ""},
    {"hkeys-in-script", "redis.call('hset', 'h2', 'a', 1, 'b', 2); return #redis.call('hkeys', 'h2')", "", ""},
    {"pttl-in-script", "return redis.call('pttl', KEYS[1])", "k", ""},
    /* the protocol scripts */
    {"lock_acquire", NULL, "L", "ln"},
    {"lock_unlock", NULL, "LCT", "0lnPt"},
    {"lock_force_unlock", NULL, "LC", "0P"},
    {"lock_renew", NULL, "L", "ln"},
    {"lock_renew_batch", NULL, "LL", "lnn"},
    {"lock2019_acquire", NULL, "L", "ln"},
    {"lock2019_unlock", NULL, "LC", "0ln"},
    {"lock2019_force_unlock", NULL, "LC", "0"},
    {"fenced_acquire_token", NULL, "LF", "ln"},
    {"spin_acquire", NULL, "L", "ln"},
    {"spin_unlock", NULL, "LT", "lnt"},
    {"spin_force_unlock", NULL, "L", ""},
    {"rw_read_acquire", NULL, "WR", "lnw"},
    {"rw_write_acquire", NULL, "W", "lw"},
    {"rw_read_unlock", NULL, "WXRKT", "0nPt"},
    {"rw_write_unlock", NULL, "WXT", "1lwPt"},
    {"rw_read_force_unlock", NULL, "WX", "0P"},
    {"rw_write_force_unlock", NULL, "WX", "1P"},
    {"rw_read_renew_batch", NULL, "WKWK", "l1n2nn"},
    {"rw2018_read_renew", NULL, "WK", "ln"},
    {"fair_acquire", NULL, "LQZ", "lnqo"},
    {"fair_unlock", NULL, "LQZCT", "0lnoPt"},
    {"fair_force_unlock", NULL, "LQZC", "0oP"},
    {"fair_dequeue", NULL, "QZ", "nq"},
    {"fair2019_acquire", NULL, "LQZ", "lnqo"},
    {"fair2019_unlock", NULL, "LQZC", "0lno"},
    {"fair2019_force_unlock", NULL, "LQZC", "0o"},
    {"fair2018_acquire", NULL, "LQZ", "lnqo"},
    {"fair2018_dequeue", NULL, "QZ", "nq"},
    {"rw2018_read_acquire", NULL, "WR", "lnw"},
    {"rw2019_read_unlock", NULL, "WXRK", "0n"},
    {"rw2019_write_unlock", NULL, "WX", "1lw"},
    {"cad_release", NULL, "k", "v"},
    {"cad_extend", NULL, "k", "vt"},
    {"sem_try_acquire", NULL, "S", "N"},
    {"sem_release", NULL, "SD", "NP"},
    {"sem_try_set", NULL, "SD", "NP"},
    {"sem_add", NULL, "SD", "NP"},
    {"sem_drain", NULL, "S", ""},
    {"latch_try_set", NULL, "AB", "1NP"},
    {"latch_count_down", NULL, "AB", "0P"},
    {"latch_delete", NULL, "AB", "1P"},
};

#define NSCRIPTS (sizeof scripts / sizeof scripts[0])

/* The scripts added after the conformance baseline of issue 16: sent only
 * with --all-scripts, so the default stream of a seed stays what it was. */
static const script_case added[] = {
    {"sem2019_add", NULL, "SD", "NP"},
    {"psem_acquire", NULL, "SYD", "NeoxPhh"},
    {"psem_acquire", NULL, "SYD", "1eoxPh"},
    {"psem2019_acquire", NULL, "SYD", "1ehox"},
    {"psem_release", NULL, "SDY", "h1oP"},
    {"psem2019_release", NULL, "SDY", "h1"},
    {"psem_release_many", NULL, "SDY", "2oPhh"},
    {"psem_available", NULL, "SYD", "oP"},
    {"psem_add", NULL, "SD", "NP"},
    {"psem_update_lease", NULL, "SYD", "heoP"},
    {"rw2023_read_unlock", NULL, "WXRKT", "0nPt"},
    {"rw2023_write_unlock", NULL, "WXT", "1lwPt"},
};

#define NADDED (sizeof added / sizeof added[0])

static void add_script_arg(conform_gen *g, conform_op *op, char kind)
{
    switch (kind) {
    case 'v': add(op, pick(g, values)); break;
    case 't': add(op, pick(g, ttl_ms)); break;
    case 'l': add(op, pick(g, leases)); break;
    case 'n': add(op, pick(g, lock_names)); break;
    case 'c': add(op, pick(g, channels)); break;
    case 'P': add(op, "publish"); break;
    case '0': add(op, "0"); break;
    case '1': add(op, "1"); break;
    case '2': add(op, "2"); break;
    case 'w': add(op, pick(g, rw_writers)); break;
    case 'N': add(op, pick(g, permits)); break;
    case 'i': add(op, pick(g, ints)); break;
    case 'q': add(op, pick(g, wait_ms)); break;
    case 'o': add(op, pick(g, client_now)); break;
    case 'e': add(op, pick(g, deadlines)); break;
    case 'x': add(op, "922337203685477"); break;
    case 'h': add(op, pick(g, permit_ids)); break;
    default: add(op, "?"); break;
    }
}

static void add_script_key(conform_gen *g, conform_op *op, char kind)
{
    switch (kind) {
    case 'L': add(op, pick(g, lock_keys)); break;
    case 'C': add(op, chance(g, 80) ? "redisson_lock__channel:{lock}" : pick(g, channels)); break;
    case 'T': add(op, chance(g, 70) ? "redisson_unlock_latch:{lock}:r1" : pick(g, keys)); break;
    case 'F': add(op, chance(g, 80) ? "redisson_lock_token:{lock}" : pick(g, keys)); break;
    case 'W': add(op, pick(g, rw_keys)); break;
    case 'X': add(op, chance(g, 80) ? "redisson_rwlock:{rwlock}" : pick(g, channels)); break;
    case 'R': add(op, pick(g, rw_prefixes)); break;
    case 'K': add(op, chance(g, 90) ? "{rwlock}" : "rwlock"); break;
    case 'S': add(op, chance(g, 80) ? "sem" : pick(g, keys)); break;
    case 'D': add(op, chance(g, 80) ? "redisson_sc:{sem}" : pick(g, channels)); break;
    case 'A': add(op, chance(g, 80) ? "latch" : pick(g, keys)); break;
    case 'B': add(op, chance(g, 80) ? "redisson_countdownlatch__channel__{latch}" : pick(g, channels)); break;
    case 'Q': add(op, chance(g, 85) ? "redisson_lock_queue:{lock}" : chance(g, 50) ? "l1" : "k1"); break;
    case 'Z': add(op, chance(g, 90) ? "redisson_lock_timeout:{lock}" : "h1"); break;
    case 'Y': add(op, chance(g, 90) ? "{sem}:timeout" : pick(g, keys)); break;
    default: add(op, pick(g, keys)); break;
    }
}

/* One word of a lock policy's script step, its template given values
 * that meet the keyspace the other commands make. */
static void add_policy_word(conform_gen *g, conform_op *op, const char *t, int is_key)
{
    if (is_key) add(op, chance(g, 60) ? pick(g, lock_keys) : pick(g, keys));
    else if (strstr(t, "{owner}") || strstr(t, "{uuid}")) add(op, pick(g, values));
    else if (strstr(t, "{lease_ms}") || strstr(t, "{wait_ms}")) add(op, pick(g, ttl_ms));
    else if (strstr(t, "{lease_s}")) add(op, pick(g, ttl_s));
    else if (strstr(t, "{channel}")) add(op, pick(g, channels));
    else if (strstr(t, "{n}") || strstr(t, "{permits}")) add(op, pick(g, small_counts)); /* loop bounds */
    else if (strchr(t, '{')) add(op, pick(g, ints));
    else add(op, t);
}

/* A script of a bundled lock policy (protocols/locks), its KEYS and ARGV
 * from the step's templates. Returns 0 when there is none. */
static int g_policy_script(conform_gen *g, conform_op *op)
{
    proto_script_step steps[64];
    size_t total = 0, np = proto_policy_count();
    for (size_t i = 0; i < np; i++) total += proto_policy_script_steps(proto_policy_at(i), NULL, 0);
    if (total == 0) return 0;
    size_t k = below(g, total);
    for (size_t i = 0; i < np; i++) {
        size_t n = proto_policy_script_steps(proto_policy_at(i), steps, 64);
        if (k >= n) {
            k -= n;
            continue;
        }
        const proto_script_step *st = &steps[k];
        if (chance(g, 40)) {
            add_name(g, op, "evalsha");
            add(op, st->script->sha);
        } else {
            add_name(g, op, "eval");
            add_len(op, st->script->text, st->script->len);
        }
        op->family = st->script->name;
        addf(op, "%lld", (long long)st->nkeys);
        for (int w = 0; w < st->nwords; w++) add_policy_word(g, op, st->words[w], w < st->nkeys);
        op->cmp = CONFORM_CMP_TIME;
        return 1;
    }
    return 0;
}

static void g_script(conform_gen *g, conform_op *op)
{
    /* A quarter of the time, a script of a bundled lock policy. */
    if (chance(g, 25) && g_policy_script(g, op)) return;
    const script_case *sc = &scripts[below(g, NSCRIPTS)];
    /* Half of the time, one of the protocol scripts (the last entries). */
    if (chance(g, 50)) {
        size_t first = 0;
        while (scripts[first].body != NULL) first++;
        sc = &scripts[first + below(g, NSCRIPTS - first)];
    }
    if (g->all_scripts && chance(g, 25)) sc = &added[below(g, NADDED)];
    const char *body = sc->body;
    size_t blen;
    if (body == NULL) {
        const cl_script *t = proto_script_find(sc->name);
        sim_assert(t != NULL);
        body = t->text;
        blen = t->len;
    } else {
        blen = strlen(body);
    }
    int nkeys = (int)strlen(sc->keys);
    int by_sha = chance(g, 40);
    if (by_sha) {
        char sha[41];
        fake_sha1hex(body, blen, sha);
        add_name(g, op, "evalsha");
        add(op, sha);
    } else {
        add_name(g, op, "eval");
        add_len(op, body, blen);
    }
    op->family = sc->name;
    addf(op, "%lld", nkeys);
    for (int i = 0; i < nkeys; i++) add_script_key(g, op, sc->keys[i]);
    for (const char *a = sc->args; *a; a++) add_script_arg(g, op, *a);
    if (chance(g, 2)) { /* numkeys edge cases */
        sim_xfree(op->argv[2]);
        const char *nk = chance(g, 50) ? "-1" : (chance(g, 50) ? "x" : "99");
        op->argv[2] = sim_xstrdup(nk);
        op->lens[2] = strlen(nk);
    }
    op->cmp = CONFORM_CMP_TIME;
}

/* SCRIPT LOAD of a protocol script, so later EVALSHAs find it. */
static void g_script_load(conform_gen *g, conform_op *op)
{
    const script_case *sc = &scripts[below(g, NSCRIPTS)];
    add_name(g, op, "script");
    add(op, "load");
    if (sc->body) {
        add(op, sc->body);
    } else {
        const cl_script *t = proto_script_find(sc->name);
        add_len(op, t->text, t->len);
    }
    op->family = "script load";
}

/* --------------------------------------------------- subscriber and time */

static void g_sub(conform_gen *g, conform_op *op, int subscribed)
{
    op->target = CONFORM_SUB;
    switch (below(g, subscribed ? 5 : 3)) {
    case 0:
    case 1: add_name(g, op, "subscribe"); add(op, pick(g, channels)); add_some(g, op, channels, 2); break;
    case 2: add_name(g, op, "unsubscribe"); add_some(g, op, channels, 2); break;
    case 3: add_name(g, op, "ping"); add_some(g, op, values, 1); break;
    default: add_name(g, op, "get"); add(op, pick(g, keys)); break;
    }
}

/* The expiry probe: a key with a 25 ms lease is there at once and gone
 * after 60 ms, on both. */
static void g_expiry_probe(conform_gen *g, conform_op *op)
{
    const char *k = pick(g, keys);
    add_name(g, op, "set");
    add(op, k);
    add(op, "v");
    add(op, chance(g, 50) ? "px" : "PX");
    add(op, "25");
    conform_op *q = &g->queued[0];
    memset(q, 0, 3 * sizeof *q);
    add(&q[0], "pttl");
    add(&q[0], k);
    q[0].family = "pttl";
    q[0].cmp = CONFORM_CMP_PROBE;
    q[1].target = CONFORM_SLEEP;
    q[1].sleep_ms = 60;
    q[1].family = "sleep";
    add(&q[2], chance(g, 50) ? "exists" : "get");
    add(&q[2], k);
    q[2].family = "expiry probe";
    g->nqueued = 3;
}

/* A blocking round: two or three blocker connections block on a few
 * list and zset keys (100 ms, long past the round's other operations),
 * then the main connection pushes, moves and pops on those keys, then the
 * round settles (the blockers left time out): who is served, in what
 * order, with what, and the replies of those that time out. */
static void g_block_round(conform_gen *g, conform_op *op)
{
    static const char *const bkeys[] = POOL("l1", "l2", "z1");
    static const char *const bvals[] = POOL("a", "b", "c", "1");
    static const char *const blockers[] = POOL("blpop", "brpop", "blmove", "brpoplpush", "bzpopmin", "bzpopmax");
    int nb = 2 + (int)below(g, 2), nq = 0;
    conform_op *q = g->queued;
    memset(q, 0, sizeof g->queued);
    for (int i = 0; i < nb; i++) {
        conform_op *b = i == 0 ? op : &q[nq++];
        b->target = CONFORM_BLOCKER;
        b->conn = i;
        const char *name = pick(g, blockers);
        add_name(g, b, name);
        if (!strcmp(name, "blmove") || !strcmp(name, "brpoplpush")) {
            add(b, pick(g, bkeys));
            add(b, pick(g, bkeys));
            if (!strcmp(name, "blmove")) {
                add(b, chance(g, 50) ? "left" : "right");
                add(b, chance(g, 50) ? "left" : "right");
            }
        } else {
            add(b, pick(g, bkeys));
            add_some(g, b, bkeys, 2);
        }
        add(b, "0.1");
        b->family = "blocking round";
    }
    int np = 1 + (int)below(g, 4);
    for (int i = 0; i < np; i++) {
        conform_op *m = &q[nq++];
        switch (below(g, 6)) {
        case 0: add(m, "lpush"); add(m, pick(g, bkeys)); add(m, pick(g, bvals)); add_some(g, m, bvals, 2); break;
        case 1: add(m, "rpush"); add(m, pick(g, bkeys)); add(m, pick(g, bvals)); add_some(g, m, bvals, 2); break;
        case 2: add(m, "zadd"); add(m, pick(g, bkeys)); add(m, "1"); add(m, pick(g, bvals)); add(m, "2");
                add(m, pick(g, bvals)); break;
        case 3: add(m, "lmove"); add(m, pick(g, bkeys)); add(m, pick(g, bkeys)); add(m, "left"); add(m, "right"); break;
        case 4: add(m, "eval");
                add(m, "redis.call('rpush', KEYS[1], 'x'); redis.call('lpop', KEYS[1]); "
                       "return redis.call('lpush', KEYS[1], 'y', 'z')");
                add(m, "1");
                add(m, pick(g, bkeys)); break;
        default: add(m, "del"); add(m, pick(g, bkeys)); break;
        }
        m->family = "blocking round";
    }
    q[nq].target = CONFORM_SETTLE;
    q[nq].family = "blocking round";
    nq++;
    g->nqueued = nq;
}

/* ------------------------------------------------------------- the API */

conform_gen *conform_gen_new(uint64_t seed, int all_scripts)
{
    conform_gen *g = sim_xcalloc(1, sizeof *g);
    sim_rng_seed(&g->rng, seed);
    g->all_scripts = all_scripts;
    return g;
}

void conform_gen_free(conform_gen *g)
{
    if (g == NULL) return;
    for (int i = 0; i < g->nqueued; i++) conform_op_clear(&g->queued[i]);
    sim_xfree(g);
}

void conform_op_clear(conform_op *op)
{
    for (int i = 0; i < op->argc; i++) sim_xfree(op->argv[i]);
    memset(op, 0, sizeof *op);
}

void conform_gen_next(conform_gen *g, conform_op *op, int sub_subscribed)
{
    memset(op, 0, sizeof *op);
    if (g->nqueued > 0) {
        *op = g->queued[0];
        memmove(&g->queued[0], &g->queued[1], (size_t)(g->nqueued - 1) * sizeof *op);
        g->nqueued--;
        return;
    }
    uint64_t r = below(g, 1000);
    if (r < 120) g_string(g, op);
    else if (r < 250) g_keys(g, op);
    else if (r < 390) g_hash(g, op);
    else if (r < 480) g_list(g, op);
    else if (r < 580) g_zset(g, op);
    else if (r < 620) g_misc(g, op);
    else if (r < 900) g_script(g, op);
    else if (r < 920) g_script_load(g, op);
    else if (r < 997) g_sub(g, op, sub_subscribed);
    else if (r < 999) g_expiry_probe(g, op);
    else g_block_round(g, op);
    if (op->target != CONFORM_SLEEP && r < 620) mutate_arity(g, op);
}

size_t conform_op_format(const conform_op *op, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap) buf[0] = '\0';
    if (op->target == CONFORM_SLEEP) return (size_t)snprintf(buf, cap, "(sleep %d ms)", op->sleep_ms);
    if (op->target == CONFORM_SETTLE) return (size_t)snprintf(buf, cap, "(the blockers settle)");
    if (op->target == CONFORM_SUB && cap > 6) n += (size_t)snprintf(buf, cap, "[sub] ");
    if (op->target == CONFORM_BLOCKER && cap > 12) n += (size_t)snprintf(buf, cap, "[blocker %d] ", op->conn + 1);
    for (int i = 0; i < op->argc && n + 1 < cap; i++) {
        if (i) buf[n++] = ' ';
        buf[n] = '\0';
        n += sim_repr(op->argv[i], op->lens[i], buf + n, cap - n);
        if (n >= cap) n = cap - 1;
    }
    return n;
}
