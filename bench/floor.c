/* floor.c — the floor for a faithful fake: a minimal Lua 5.1 host that
 * runs the reentrant lock's acquire and release scripts (protocols/lua)
 * the way Redis calls a script — the script found by its SHA-1, fresh
 * KEYS and ARGV tables per call, redis.call through the C API with its
 * arguments converted to strings, error replies raised as Lua errors, the
 * result converted to a reply object the caller frees — against a plain
 * C hash table with no types beyond what the scripts touch, no expiry
 * clock, no replication, no observers. What the fake costs beyond this is
 * what faithfulness and the simulator's hooks cost.
 *
 * usage: bench_floor [CYCLES]: prints evals per second of the cycle
 * acquire + release + DEL of the unlock latch (the bench's "reentrant"
 * workload), best of 5 rounds, as one JSON line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "protocols/protocol.h"
#include "sim/fake/fake.h"
#include "sim/kernel/host.h"
/* The floor's table hashes every key with XXH3, as it did when its figures
 * were taken: the reference does not move with the simulator's tables. */
#include <xxhash.h>
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = (unsigned)XXH3_64bits((keyptr), (size_t)(keylen)))
#include "sim/kernel/ut.h"

#define ROUNDS 5
#define LOCK_ID "3f6c1b2e-8c4d-4d4e-9a0b-0c1d2e3f4a5b:1"

/* ------------------------------------------------------------ the store */

typedef struct field {
    UT_hash_handle hh;
    long long value;
    char name[];
} field;

typedef struct entry {
    UT_hash_handle hh;
    int is_hash;
    char *str;          /* a string's value */
    size_t len;
    field *fields;      /* a hash's fields */
    long long expire_ms; /* -1 none */
    char key[];
} entry;

typedef struct store {
    entry *keys;
    long long now_ms;
} store;

static entry *find(store *s, const char *k, size_t n)
{
    entry *e;
    HASH_FIND(hh, s->keys, k, n, e);
    return e;
}

static void drop(store *s, entry *e)
{
    HASH_DEL(s->keys, e);
    field *f, *tmp;
    HASH_ITER(hh, e->fields, f, tmp) {
        HASH_DEL(e->fields, f);
        free(f);
    }
    free(e->str);
    free(e);
}

static entry *make(store *s, const char *k, size_t n, int is_hash)
{
    entry *e = calloc(1, sizeof *e + n + 1);
    memcpy(e->key, k, n);
    e->is_hash = is_hash;
    e->expire_ms = -1;
    HASH_ADD(hh, s->keys, key[0], n, e);
    return e;
}

/* ---------------------------------------------------------- redis.call */

typedef struct host {
    lua_State *L;
    store st;
    struct script {
        UT_hash_handle hh;
        char sha[41];
        int ref;
    } *scripts;
} host;

static host *host_of(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

static int raise_err(lua_State *L, const char *msg)
{
    lua_newtable(L);
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "err");
    return lua_error(L);
}

static long long int_arg(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TNUMBER) return (long long)lua_tonumber(L, i);
    return strtoll(lua_tostring(L, i), NULL, 10);
}

/* Argument i as a string: a number as Redis converts it (an integral
 * value without a fraction, as fpconv would print it), else the string. */
static const char *str_arg(lua_State *L, int i, size_t *n, char *buf)
{
    if (lua_type(L, i) == LUA_TNUMBER) {
        lua_Number v = lua_tonumber(L, i);
        if (v == (lua_Number)(long long)v) *n = sim_fmt_i64(buf, (long long)v);
        else *n = (size_t)snprintf(buf, 32, "%.17g", v);
        return buf;
    }
    return lua_tolstring(L, i, n);
}

static int redis_call(lua_State *L)
{
    host *h = host_of(L);
    store *s = &h->st;
    int argc = lua_gettop(L);
    size_t n, kn = 0;
    for (int i = 1; i <= argc; i++)
        if (lua_type(L, i) != LUA_TSTRING && lua_type(L, i) != LUA_TNUMBER)
            return raise_err(L, "ERR Lua redis() command arguments must be strings or integers");
    char nb[3][32];
    const char *cmd = str_arg(L, 1, &n, nb[0]);
    const char *k = argc > 1 ? str_arg(L, 2, &kn, nb[1]) : "";
    entry *e = argc > 1 ? find(s, k, kn) : NULL;
    char c0 = (char)(cmd[0] | 0x20);
    if (c0 == 'e' && n == 6) { /* exists */
        lua_pushinteger(L, e != NULL);
    } else if (c0 == 'h' && (cmd[1] | 0x20) == 'e') { /* hexists */
        size_t fn;
        const char *f = str_arg(L, 3, &fn, nb[2]);
        field *x = NULL;
        if (e) HASH_FIND(hh, e->fields, f, fn, x);
        lua_pushinteger(L, x != NULL);
    } else if (c0 == 'h') { /* hincrby */
        size_t fn;
        const char *f = str_arg(L, 3, &fn, nb[2]);
        if (e == NULL) e = make(s, k, kn, 1);
        if (!e->is_hash) return raise_err(L, "WRONGTYPE Operation against a key holding the wrong kind of value");
        field *x;
        HASH_FIND(hh, e->fields, f, fn, x);
        if (x == NULL) {
            x = calloc(1, sizeof *x + fn + 1);
            memcpy(x->name, f, fn);
            HASH_ADD(hh, e->fields, name[0], fn, x);
        }
        x->value += int_arg(L, 4);
        lua_pushinteger(L, x->value);
    } else if (c0 == 'p' && n == 7 && (cmd[1] | 0x20) == 'e') { /* pexpire */
        if (e) e->expire_ms = s->now_ms + int_arg(L, 3);
        lua_pushinteger(L, e != NULL);
    } else if (c0 == 'p' && n == 4) { /* pttl */
        lua_pushinteger(L, e == NULL ? -2 : e->expire_ms < 0 ? -1 : e->expire_ms - s->now_ms);
    } else if (c0 == 'p' && n == 7) { /* publish */
        lua_pushinteger(L, 0);
    } else if (c0 == 'g') { /* get */
        if (e == NULL) lua_pushboolean(L, 0);
        else lua_pushlstring(L, e->str, e->len);
    } else if (c0 == 'd') { /* del */
        if (e) drop(s, e);
        lua_pushinteger(L, e != NULL);
    } else if (c0 == 's') { /* set k v px ms */
        size_t vn;
        const char *v = str_arg(L, 3, &vn, nb[2]);
        if (e) drop(s, e);
        e = make(s, k, kn, 0);
        e->str = malloc(vn + 1);
        memcpy(e->str, v, vn);
        e->len = vn;
        if (argc >= 5) e->expire_ms = s->now_ms + int_arg(L, 5);
        lua_newtable(L);
        lua_pushstring(L, "OK");
        lua_setfield(L, -2, "ok");
    } else {
        return raise_err(L, "ERR Unknown Redis command called from script");
    }
    return 1;
}

/* ------------------------------------------------------------- replies */

typedef struct reply {
    int type; /* 0 nil, 1 int, 2 bulk */
    long long integer;
    char *str;
} reply;

static reply *to_reply(lua_State *L)
{
    reply *r = calloc(1, sizeof *r);
    switch (lua_type(L, -1)) {
    case LUA_TNUMBER: r->type = 1, r->integer = (long long)lua_tonumber(L, -1); break;
    case LUA_TSTRING: r->type = 2, r->str = strdup(lua_tostring(L, -1)); break;
    default: break;
    }
    lua_pop(L, 1);
    return r;
}

static void reply_free(reply *r)
{
    free(r->str);
    free(r);
}

/* --------------------------------------------------------------- evals */

static void load(host *h, const cl_script *t)
{
    struct script *x = calloc(1, sizeof *x);
    memcpy(x->sha, t->sha, 41);
    if (luaL_loadbuffer(h->L, t->text, t->len, "@user_script") != 0) abort();
    x->ref = luaL_ref(h->L, LUA_REGISTRYINDEX);
    HASH_ADD(hh, h->scripts, sha[0], 40, x);
}

/* EVALSHA sha numkeys keys... args... */
static reply *evalsha(host *h, const char *sha, int nkeys, const char *const *keys, int nargs,
                      const char *const *args)
{
    lua_State *L = h->L;
    struct script *x;
    HASH_FIND(hh, h->scripts, sha, 40, x);
    if (x == NULL) abort();
    lua_createtable(L, nkeys, 0);
    for (int i = 0; i < nkeys; i++) {
        lua_pushstring(L, keys[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "KEYS");
    lua_createtable(L, nargs, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "ARGV");
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref);
    if (lua_pcall(L, 0, 1, 0) != 0) {
        fprintf(stderr, "bench_floor: %s\n", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(an error table)");
        abort();
    }
    return to_reply(L);
}

static host *host_new(void)
{
    host *h = calloc(1, sizeof *h);
    h->L = luaL_newstate();
    luaL_openlibs(h->L);
    lua_newtable(h->L);
    lua_pushlightuserdata(h->L, h);
    lua_pushcclosure(h->L, redis_call, 1);
    lua_setfield(h->L, -2, "call");
    lua_setglobal(h->L, "redis");
    h->st.now_ms = 1700000000000LL;
    return h;
}

static void host_free(host *h)
{
    while (h->st.keys) drop(&h->st, h->st.keys);
    struct script *x, *tmp;
    HASH_ITER(hh, h->scripts, x, tmp) {
        HASH_DEL(h->scripts, x);
        free(x);
    }
    lua_close(h->L);
    free(h);
}

static double round_evals_per_s(unsigned long long cycles)
{
    host *h = host_new();
    const cl_script *acq = proto_script_find("lock_acquire"), *rel = proto_script_find("lock_unlock");
    load(h, acq);
    load(h, rel);
    int64_t t0 = host_mono_us();
    char latch[64] = "redisson_unlock_latch:{lock}:";
    char *digits = latch + strlen(latch); /* 16 hex digits rewritten in place, as bench_evals does */
    for (unsigned long long i = 0; i < cycles; i++) {
        unsigned long long x = i;
        for (int k = 15; k >= 0; k--, x >>= 4) digits[k] = "0123456789abcdef"[x & 15];
        digits[16] = '\0';
        const char *akeys[] = {"lock"}, *aargs[] = {"30000", LOCK_ID};
        const char *rkeys[] = {"lock", "redisson_lock__channel:{lock}", latch};
        const char *rargs[] = {"0", "30000", LOCK_ID, "publish", "16000"};
        reply *a = evalsha(h, acq->sha, 1, akeys, 2, aargs);
        reply *r = evalsha(h, rel->sha, 3, rkeys, 5, rargs);
        if (a->type != 0 || r->type != 1 || r->integer != 1) abort();
        reply_free(a);
        reply_free(r);
        entry *e = find(&h->st, latch, strlen(latch)); /* DEL latch */
        if (e) drop(&h->st, e);
    }
    double secs = (double)(host_mono_us() - t0) / 1e6;
    host_free(h);
    return 2.0 * (double)cycles / secs;
}

int main(int argc, char **argv)
{
    unsigned long long cycles = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    double best = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double x = round_evals_per_s(cycles);
        if (x > best) best = x;
    }
    printf("{\"workload\":\"reentrant\",\"floor_evals_per_s\":%.0f,\"us_per_eval\":%.4f,\"cycles\":%llu}\n", best,
           1e6 / best, cycles);
    return 0;
}
