/* lua_host.c — the scripting engine of a fake node: an embedded Lua 5.1 VM
 * set up like Redis 7.0's (same libraries, same read-only globals, same
 * error handler), the script cache keyed by SHA1, and running a script:
 * KEYS/ARGV, frozen node time, the reply conversion Lua → RESP2 and the
 * error texts ("... script: <sha>, on @user_script:<line>.").
 *
 * The sandbox: reading a missing global raises "Script attempted to access
 * nonexistent global variable", and every write to the globals or to a
 * library table raises "Attempt to modify a readonly table". Library tables
 * are empty proxies of the real ones. A script that contains a global
 * assignment runs with an empty proxy of the globals as its environment;
 * one that contains none (lua_scan.c) reads the real globals directly,
 * whose metatable still refuses new names. Limits Redis does not have (it relies on SCRIPT
 * KILL): a VM instruction budget and a heap budget per run. */
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua-bitop.h>
#include <lua-cjson.h>

#include "sim/fake/lua_host_int.h"

/* ------------------------------------------------------------- allocator */

/* Lua's blocks of up to LH_SMALL_MAX bytes (strings, tables, closures: all
 * but a few a script makes) come from free lists of the host, one per
 * 16-byte class, carved from slabs the host frees when its state closes;
 * larger ones from malloc. Lua tells the size of every block it frees or
 * resizes, so a block's class is known without a header. The accounting
 * and the heap budget see the sizes Lua asks for, as before; under
 * AddressSanitizer every block is malloc'd (SIM_FL_BYPASS). */
static size_t small_class(size_t n)
{
    return (n + LH_SMALL_STEP - 1) / LH_SMALL_STEP;
}

static void *small_get(lua_host *h, size_t cls)
{
    void **p = h->small_free[cls];
    if (p) {
        h->small_free[cls] = *p;
        return p;
    }
    size_t bytes = cls * LH_SMALL_STEP;
    if (h->slab_left < bytes) {
        lh_slab *sl = malloc(sizeof *sl + LH_SLAB_BYTES);
        if (sl == NULL) return NULL;
        sl->next = h->slabs;
        h->slabs = sl;
        h->slab_next = sl->data;
        h->slab_left = LH_SLAB_BYTES;
    }
    void *q = h->slab_next;
    h->slab_next += bytes;
    h->slab_left -= bytes;
    return q;
}

static void small_put(lua_host *h, void *p, size_t cls)
{
    *(void **)p = h->small_free[cls];
    h->small_free[cls] = p;
}

/* Frees the slabs (the state that used them is closed). */
static void small_drop(lua_host *h)
{
    while (h->slabs) {
        lh_slab *sl = h->slabs;
        h->slabs = sl->next;
        free(sl);
    }
    memset(h->small_free, 0, sizeof h->small_free);
    h->slab_next = NULL;
    h->slab_left = 0;
}

static void *lh_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lua_host *h = ud;
    int small_old = !SIM_FL_BYPASS && ptr != NULL && osize <= LH_SMALL_MAX;
    if (nsize == 0) {
        if (small_old) small_put(h, ptr, small_class(osize));
        else free(ptr);
        h->mem_used -= osize;
        return NULL;
    }
    if (h->in_script && nsize > osize &&
        h->mem_used + (nsize - osize) > h->n->script_bytes)
        return NULL; /* Lua raises "not enough memory" */
    void *p;
    if (!SIM_FL_BYPASS && nsize <= LH_SMALL_MAX) {
        size_t cls = small_class(nsize);
        if (small_old && small_class(osize) == cls) {
            p = ptr;
        } else {
            p = small_get(h, cls);
            if (p == NULL) return NULL;
            if (ptr) {
                memcpy(p, ptr, osize < nsize ? osize : nsize);
                if (small_old) small_put(h, ptr, small_class(osize));
                else free(ptr);
            }
        }
    } else if (small_old) {
        p = malloc(nsize);
        if (p == NULL) return NULL;
        memcpy(p, ptr, osize);
        small_put(h, ptr, small_class(osize));
    } else {
        p = realloc(ptr, nsize);
        if (p == NULL) return NULL;
    }
    h->mem_used = h->mem_used - osize + nsize;
    return p;
}

/* ----------------------------------------------------------------- hooks */

void lh_count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_host *h = lh_from_state(L);
    h->steps += LH_HOOK_EVERY;
    /* A stop signal is honoured inside a script too (every 10,000
     * instructions, well under a millisecond). */
    if (!h->killed && sim_interrupted(h->n->ctx)) h->killed = LH_KILLED_STOP;
    if (!h->killed && h->steps <= h->n->script_steps) return;
    if (!h->killed) h->killed = LH_KILLED_STEPS;
    /* From now on fail at every instruction: whatever catches the error,
     * the next instruction raises it again, until the script is out. */
    lua_sethook(L, lh_count_hook, LUA_MASKCOUNT, 1);
    char msg[160];
    if (h->killed == LH_KILLED_STOP)
        snprintf(msg, sizeof msg, "Script interrupted: the run is stopping");
    else
        snprintf(msg, sizeof msg,
                 "Script did not end: it ran locksim's limit of %llu Lua instructions",
                 (unsigned long long)h->n->script_steps);
    lh_push_error(L, msg);
    lua_error(L);
}

/* ---------------------------------------------------------------- sandbox */

static int global_missing(lua_State *L)
{
    const char *name = lua_tostring(L, 2);
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                      name ? name : "?");
}

static int readonly_write(lua_State *L)
{
    return luaL_error(L, "Attempt to modify a readonly table");
}

/* rawset on a protected table: the error comes from C, so it carries no
 * script position (as in Redis, where the VM refuses it). */
static int l_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_host *h = lh_from_state(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->readonly_ref);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    int ro = lua_toboolean(L, -1);
    lua_pop(L, 2);
    if (ro) {
        lua_pushstring(L, "Attempt to modify a readonly table");
        return lua_error(L);
    }
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/* Pops an __index value and pushes the metatable of a read-only table:
 * {__index = that value, __newindex = raise, __metatable = false}. */
static void push_guard_metatable(lua_State *L)
{
    lua_newtable(L);
    lua_insert(L, -2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, readonly_write);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

/* Replaces the table on the stack top by a read-only proxy of it. */
static void make_proxy(lua_State *L, int readonly_set)
{
    int target = lua_gettop(L);
    lua_newtable(L);                       /* proxy */
    lua_pushvalue(L, target);
    push_guard_metatable(L);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_pushboolean(L, 1);
    lua_rawset(L, readonly_set);
    lua_replace(L, target);
}

static void open_lib(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    lua_setglobal(L, name); /* cjson returns its table without setting it */
}

static const char *const removed_globals[] = {
    "loadfile", "dofile", "print", "setfenv", "getfenv", "newproxy",
    "module", "require", NULL};

static const char *const protected_libs[] = {
    "string", "math", "table", "coroutine", "redis", "bit", "cjson", NULL};

/* The error handler given to lua_pcall: like Redis' __redis__err__handler
 * it turns the error into {err=..., source=..., line=...}, taking the
 * position of the function that raised it (or of its caller, if in C). */
static int err_handler(lua_State *L)
{
    lua_Debug ar;
    int have = 0;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar)) {
        have = 1;
        if (strcmp(ar.what, "C") == 0)
            have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
    }
    if (!lua_istable(L, 1)) {
        lua_getglobal(L, "tostring");
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        lua_newtable(L);
        lua_pushstring(L, "err");
        lua_pushstring(L, "ERR ");
        lua_pushvalue(L, -4);
        lua_concat(L, 2);
        lua_rawset(L, -3);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (have) {
        lua_pushstring(L, "source");
        lua_pushstring(L, ar.source);
        lua_rawset(L, 1);
        lua_pushstring(L, "line");
        lua_pushnumber(L, ar.currentline);
        lua_rawset(L, 1);
    }
    lua_settop(L, 1);
    return 1;
}

static void init_state(lua_host *h)
{
    lua_State *L = lua_newstate(lh_alloc, h);
    sim_assert(L != NULL);
    h->L = L;
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, "bit", luaopen_bit);
    open_lib(L, "cjson", luaopen_cjson);
    for (int i = 0; removed_globals[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed_globals[i]);
    }
    lh_open_api(L);
    lua_pushcfunction(L, l_rawset);
    lua_setglobal(L, "rawset");
    lua_pushcfunction(L, err_handler);
    lua_pushvalue(L, -1);
    h->handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushstring(L, "KEYS");
    h->keys_name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushstring(L, "ARGV");
    h->argv_name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setglobal(L, "__redis__err__handler");

    /* The set of read-only proxies (weak keys). */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    int ro = lua_gettop(L);
    lua_pushvalue(L, ro);
    h->readonly_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    for (int i = 0; protected_libs[i]; i++) {
        lua_getglobal(L, protected_libs[i]);
        make_proxy(L, ro);
        lua_setglobal(L, protected_libs[i]);
    }
    /* Strings find their methods through the (proxied) string table; the
     * metatable itself takes no new fields. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);                     /* [ro, "", smt] */
    lua_getglobal(L, "string");
    lua_setfield(L, -2, "__index");
    lua_newtable(L);
    lua_pushcfunction(L, readonly_write);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, ro);
    lua_pop(L, 1);                               /* [ro] */

    /* The globals: read directly by scripts that never assign one (see
     * lua_scan.c); the others get the proxy as their environment. Both
     * raise on a missing name and on any new one. _G is the proxy. */
    lua_pushvalue(L, LUA_GLOBALSINDEX);          /* [ro, real] */
    lua_pushvalue(L, -1);
    h->real_globals_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, -1);
    make_proxy(L, ro);                           /* [ro, real, proxy] */
    lua_pushvalue(L, -1);
    h->proxy_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setfield(L, -2, "_G");                   /* real._G = proxy */
    lua_pushcfunction(L, global_missing);
    push_guard_metatable(L);
    lua_setmetatable(L, -2);                     /* [ro, real] */
    lua_pop(L, 2);
    lua_newtable(L);
    h->pin_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    h->npinned = 0;
    memset(h->name_memo, 0, sizeof h->name_memo);
    lua_gc(L, LUA_GCSETPAUSE, 400); /* collect less often: scripts make short-lived garbage */
    lua_sethook(L, lh_count_hook, LUA_MASKCOUNT, LH_HOOK_EVERY);
}

lua_host *lua_host_new(fake_node *n)
{
    lua_host *h = sim_xcalloc(1, sizeof *h);
    h->n = n;
    init_state(h);
    return h;
}

static void drop_cache(lua_host *h)
{
    h->recent[0] = h->recent[1] = NULL;
    lscript *s, *tmp;
    HASH_ITER(hh, h->scripts, s, tmp) {
        HASH_DEL(h->scripts, s);
        sim_xfree(s);
    }
}

void lua_host_free(lua_host *h)
{
    if (h == NULL) return;
    drop_cache(h);
    lua_close(h->L);
    small_drop(h);
    sim_xfree(h);
}

void lua_host_flush(lua_host *h)
{
    drop_cache(h);
    lua_close(h->L);
    small_drop(h);
    h->mem_used = 0;
    init_state(h);
}

/* ---------------------------------------------------------------- loading */

void lh_protect_chunk(lua_host *h, lua_State *L)
{
    if (!lh_assigns_globals(L)) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->proxy_ref);
    lua_setfenv(L, -2);
}

static lscript *find_script(lua_host *h, const char *sha40)
{
    /* A client alternates between a few scripts: the last two found are
     * compared first. */
    for (int i = 0; i < 2; i++)
        if (h->recent[i] && memcmp(h->recent[i]->sha, sha40, 40) == 0) return h->recent[i];
    lscript *s;
    HASH_FIND(hh, h->scripts, sha40, 40, s);
    if (s) {
        h->recent[1] = h->recent[0];
        h->recent[0] = s;
    }
    return s;
}

int lua_host_exists(lua_host *h, const char *sha40)
{
    return find_script(h, sha40) != NULL;
}

int fake_script_compile(const char *body, size_t len, char *err, size_t cap)
{
    if (len > 0 && body[0] == LUA_SIGNATURE[0]) {
        snprintf(err, cap, "user_script: bytecode is not allowed");
        return -1;
    }
    lua_State *L = luaL_newstate();
    sim_assert(L != NULL);
    int rc = 0;
    if (luaL_loadbuffer(L, body, len, "@user_script") != 0) {
        const char *msg = lua_tostring(L, -1);
        snprintf(err, cap, "%s", msg ? msg : "?");
        rc = -1;
    }
    lua_close(L);
    return rc;
}

int lua_host_load(lua_host *h, const char *body, size_t len, char sha[41], char **err)
{
    fake_sha1hex(body, len, sha);
    if (find_script(h, sha)) return 0;
    lua_State *L = h->L;
    char buf[1024];
    if (len > 0 && body[0] == LUA_SIGNATURE[0]) {
        snprintf(buf, sizeof buf, "ERR Error compiling script (new function): "
                                  "user_script: bytecode is not allowed");
        *err = sim_xstrdup(buf);
        return -1;
    }
    if (luaL_loadbuffer(L, body, len, "@user_script") != 0) {
        const char *msg = lua_tostring(L, -1);
        snprintf(buf, sizeof buf, "ERR Error compiling script (new function): %s",
                 msg ? msg : "?");
        lua_pop(L, 1);
        *err = sim_xstrdup(buf);
        return -1;
    }
    lh_protect_chunk(h, L);
    lscript *s = sim_xcalloc(1, sizeof *s);
    memcpy(s->sha, sha, 41);
    s->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    HASH_ADD(hh, h->scripts, sha[0], 40, s);
    return 0;
}

/* ------------------------------------------------------ Lua → RESP reply */

/* Converts the value on the stack top into c's reply and pops it, as
 * Redis' luaReplyToRedisReply does for RESP2. */
static void lua_to_reply(lua_State *L, fcmd *c)
{
    if (!lua_checkstack(L, 4)) {
        fr_err(c, "ERR reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        fr_bulk(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        if (lua_toboolean(L, -1)) fr_int(c, 1);
        else fr_nil(c);
        break;
    case LUA_TNUMBER: {
        /* (long long) of a double, defined here for every value: x86 gives
         * LLONG_MIN for NaN and out-of-range values, and so does Redis. */
        double d = lua_tonumber(L, -1);
        long long v = (d != d || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
                          ? (long long)INT64_MIN
                          : (long long)d;
        fr_int(c, v);
        break;
    }
    case LUA_TTABLE: {
        lua_pushstring(L, "err");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TSTRING) {
            fr_err(c, lua_tostring(L, -1));
            lua_pop(L, 2);
            return;
        }
        lua_pop(L, 1);
        lua_pushstring(L, "ok");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TSTRING) {
            char *ok = sim_xstrdup(lua_tostring(L, -1));
            for (char *p = ok; *p; p++)
                if (*p == '\r' || *p == '\n') *p = ' ';
            fr_status(c, ok);
            sim_xfree(ok);
            lua_pop(L, 2);
            return;
        }
        lua_pop(L, 1);
        lua_pushstring(L, "double");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TNUMBER) {
            fr_double(c, lua_tonumber(L, -1));
            lua_pop(L, 2);
            return;
        }
        lua_pop(L, 1);
        size_t n = 0;
        for (;;) {
            lua_rawgeti(L, -1, (int)n + 1);
            int nil = lua_isnil(L, -1);
            lua_pop(L, 1);
            if (nil) break;
            n++;
        }
        fr_array(c, n);
        for (size_t j = 1; j <= n; j++) {
            lua_rawgeti(L, -1, (int)j);
            lua_to_reply(L, c);
        }
        break;
    }
    default:
        fr_nil(c);
    }
    lua_pop(L, 1);
}

/* The reply for a script that raised: "<msg> script: <sha>, on <src>:<n>." */
static void error_to_reply(lua_State *L, fcmd *c, const char *sha)
{
    char buf[2048];
    if (!lua_istable(L, -1)) {
        const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
        snprintf(buf, sizeof buf, "ERR Error running script %s, %.100s", sha, msg);
        fr_err(c, buf);
        return;
    }
    /* Raw reads: a metamethod must not run outside the protected call. */
    lua_pushstring(L, "err");
    lua_rawget(L, -2);
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pushstring(L, "source");
    lua_rawget(L, -3);
    const char *source = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pushstring(L, "line");
    lua_rawget(L, -4);
    char line[32] = "";
    if (lua_type(L, -1) == LUA_TNUMBER) snprintf(line, sizeof line, "%d", (int)lua_tonumber(L, -1));
    if (msg == NULL) msg = "ERR unknown error (error object without 'err')";
    if (source && line[0])
        snprintf(buf, sizeof buf, "%s script: %s, on %s:%s.", msg, sha, source, line);
    else
        snprintf(buf, sizeof buf, "%s", msg);
    lua_pop(L, 3);
    fr_err(c, buf);
}

/* globals[name] = {argv[from], ..., argv[from + count - 1]}; name is the
 * registry ref of an interned key string. */
static void set_array_global(lua_State *L, int globals, int name_ref,
                             fcmd *c, int from, int count)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, name_ref);
    lua_createtable(L, count, 0);
    for (int j = 0; j < count; j++) {
        lua_pushlstring(L, c->argv[from + j], c->lens[from + j]);
        lua_rawseti(L, -2, j + 1);
    }
    lua_rawset(L, globals);
}

int lua_host_run(lua_host *h, fcmd *c, const char *sha40, int numkeys, int first_arg)
{
    lua_State *L = h->L;
    lscript *s = find_script(h, sha40);
    if (s == NULL) return -1;
    lua_checkstack(L, 8);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->real_globals_ref);
    int globals = lua_gettop(L);
    set_array_global(L, globals, h->keys_name_ref, c, first_arg, numkeys);
    set_array_global(L, globals, h->argv_name_ref, c, first_arg + numkeys,
                     c->argc - first_arg - numkeys);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->handler_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref);

    fake_node *n = h->n;
    n->frozen_ms = sim_clock_now_ms(n->ctx, n->clock);
    h->cur = c;
    h->cur_sha = s->sha;
    h->steps = 0;
    h->killed = 0;
    h->in_script = 1;
    uint64_t dirty0 = n->dirty;
    lua_sethook(L, lh_count_hook, LUA_MASKCOUNT, LH_HOOK_EVERY);
    int rc = lua_pcall(L, 0, 1, globals + 1);
    h->in_script = 0;
    h->cur = NULL;
    n->frozen_ms = -1;
    if (h->killed) lua_sethook(L, lh_count_hook, LUA_MASKCOUNT, LH_HOOK_EVERY);
    if (h->killed == LH_KILLED_STEPS) {
        /* A script that does not end: Redis would run it for ever. */
        if (!n->runaway_sha[0]) {
            memcpy(n->runaway_sha, s->sha, 40);
            n->runaway_sha[40] = '\0';
            n->runaway_wrote = n->dirty != dirty0;
        }
        if (n->runaway_keep) n->busy = n->runaway_silent = 1;
        else sim_stop(n->ctx);
    }

    if (rc != 0) {
        error_to_reply(L, c, s->sha);
        lua_pop(L, 1);
        lua_gc(L, LUA_GCCOLLECT, 0);
    } else {
        lua_to_reply(L, c);
    }
    lua_settop(L, globals - 1);
    return 0;
}
