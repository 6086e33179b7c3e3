/* lua_api.c — what scripts see of Redis: the redis.* library (call, pcall,
 * error_reply, status_reply, sha1hex, log, setresp, ...), Redis' own
 * math.random/randomseed (rand48), its pcall that turns error tables into
 * strings, loaders that refuse bytecode, and coroutines that stay under the
 * step limit. Texts and argument checks follow Redis 7.0. */
#include <math.h>
#include <string.h>

#include "sim/fake/lua_host_int.h"

lua_host *lh_from_state(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

void lh_push_error(lua_State *L, const char *text)
{
    fsink_push_lua_error(L, text, strlen(text), 0);
}

int lh_raise(lua_State *L)
{
    return lua_error(L);
}

/* ------------------------------------------------------------ redis.call */

/* The command named by argument 1 (name, len: as collected). */
static const fake_cmd *command_of(lua_host *h, lua_State *L, const char *name, size_t len)
{
    if (lua_type(L, 1) != LUA_TSTRING) return fk_cmd_find(h->n, name, len);
    size_t slot = ((uintptr_t)name >> 4) & (LH_NAME_MEMO - 1);
    if (h->name_memo[slot].name == name) return h->name_memo[slot].cmd;
    const fake_cmd *cmd = fk_cmd_find(h->n, name, len);
    if (cmd == NULL || h->npinned >= LH_PIN_MAX) return cmd;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->pin_ref);
    lua_pushvalue(L, 1);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    h->npinned++;
    h->name_memo[slot].name = name;
    h->name_memo[slot].cmd = cmd;
    return cmd;
}

/* Converts the call's arguments to strings the way Redis does: numbers with
 * %.17g (not Lua's %.14g), strings as they are, anything else refused. */
static int collect_args(lua_State *L, int argc, const char **argv, size_t *lens,
                        char *numbuf)
{
    for (int j = 0; j < argc; j++) {
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            char *d = numbuf + 32 * j;
            lens[j] = fu_num2str(d, 32, (double)lua_tonumber(L, j + 1));
            argv[j] = d;
        } else {
            argv[j] = lua_tolstring(L, j + 1, &lens[j]);
            if (argv[j] == NULL) return -1;
        }
    }
    return 0;
}

static int redis_generic(lua_State *L, int raise)
{
    lua_host *h = lh_from_state(L);
    if (h->cur == NULL) {
        lh_push_error(L, "redis.call/pcall can only be called inside a script invocation");
        return lh_raise(L);
    }
    int argc = lua_gettop(L);
    if (argc == 0) {
        lh_push_error(L, "Please specify at least one argument for this redis lib call");
        return raise ? lh_raise(L) : 1;
    }
    const char *argv_small[16];
    size_t lens_small[16];
    char num_small[16 * 32];
    const char **argv = argc <= 16 ? argv_small : sim_xmalloc((size_t)argc * sizeof *argv);
    size_t *lens = argc <= 16 ? lens_small : sim_xmalloc((size_t)argc * sizeof *lens);
    char *num = argc <= 16 ? num_small : sim_xmalloc((size_t)argc * 32);
    int bad = collect_args(L, argc, argv, lens, num);

    fsink sink;
    fsink_init_lua(&sink, L);
    fcmd sub = {.n = h->n, .conn = NULL, .argc = argc, .argv = argv, .lens = lens,
                .sink = &sink, .from_script = 1};
    if (bad) {
        lh_push_error(L, "Lua redis lib command arguments must be strings or integers");
        sink.top_is_error = 1;
    } else {
        const fake_cmd *cmd = command_of(h, L, argv[0], lens[0]);
        if (fake_script_check(&sub, cmd) == 0) {
            sub.cmd = cmd;
            h->n->stats.commands++;
            uint64_t dirty = h->n->dirty;
            cmd->fn(&sub);
            fk_propagate_cmd(&sub, dirty);
        }
        sim_assert(sink.done);
    }
    int is_error = sink.top_is_error;
    fsink_release(&sink);
    if (argv != argv_small) {
        sim_xfree(argv);
        sim_xfree(lens);
        sim_xfree(num);
    }
    if (is_error && raise) return lh_raise(L);
    return 1;
}

static int l_redis_call(lua_State *L)
{
    return redis_generic(L, 1);
}

static int l_redis_pcall(lua_State *L)
{
    return redis_generic(L, 0);
}

/* ------------------------------------------------------ the rest of redis */

static int l_error_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        lh_push_error(L, "wrong number or type of arguments");
        return 1;
    }
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    fsink_push_lua_error(L, s, len, 1);
    return 1;
}

static int l_status_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        lh_push_error(L, "wrong number or type of arguments");
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, "ok");
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    return 1;
}

static int l_sha1hex(lua_State *L)
{
    if (lua_gettop(L) != 1) {
        lh_push_error(L, "wrong number of arguments");
        return lh_raise(L);
    }
    size_t len = 0;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    fake_sha1hex(s ? s : "", s ? len : 0, hex);
    lua_pushstring(L, hex);
    return 1;
}

static int l_log(lua_State *L)
{
    int argc = lua_gettop(L);
    if (argc < 2) {
        lh_push_error(L, "redis.log() requires two arguments or more.");
        return lh_raise(L);
    }
    if (!lua_isnumber(L, -argc)) {
        lh_push_error(L, "First argument must be a number (log level).");
        return lh_raise(L);
    }
    int level = (int)lua_tonumber(L, -argc);
    if (level < 0 || level > 3) {
        lh_push_error(L, "Invalid debug level.");
        return lh_raise(L);
    }
    char msg[512];
    size_t used = 0;
    for (int j = 2; j <= argc && used < sizeof msg - 1; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (s == NULL) continue;
        if (used && used < sizeof msg - 1) msg[used++] = ' ';
        size_t n = len < sizeof msg - 1 - used ? len : sizeof msg - 1 - used;
        memcpy(msg + used, s, n);
        used += n;
    }
    msg[used] = '\0';
    lua_host *h = lh_from_state(L);
    sim_trace(h->n->ctx, h->n->name, "log %d %s", level, msg);
    return 0;
}

static int l_setresp(lua_State *L)
{
    if (lua_gettop(L) != 1) {
        lh_push_error(L, "redis.setresp() requires one argument.");
        return lh_raise(L);
    }
    int resp = (int)lua_tonumber(L, -1);
    if (resp != 2 && resp != 3) {
        lh_push_error(L, "RESP version must be 2 or 3.");
        return lh_raise(L);
    }
    if (resp == 3) {
        lh_push_error(L, "locksim: RESP3 replies inside scripts are not modelled");
        return lh_raise(L);
    }
    return 0;
}

static int l_replicate_commands(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

static int l_set_repl(lua_State *L)
{
    if (lua_gettop(L) != 1) {
        lh_push_error(L, "redis.set_repl() requires one argument.");
        return lh_raise(L);
    }
    int flags = (int)lua_tonumber(L, -1);
    if (flags < 0 || flags > 3) {
        lh_push_error(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        return lh_raise(L);
    }
    return 0;
}

static int l_breakpoint(lua_State *L)
{
    lua_pushboolean(L, 0);
    return 1;
}

static int l_debug(lua_State *L)
{
    return 0;
}

static int l_acl_check_cmd(lua_State *L)
{
    size_t len;
    const char *name = lua_gettop(L) >= 1 ? lua_tolstring(L, 1, &len) : NULL;
    if (name == NULL || fake_cmd_lookup(name, len) == NULL) {
        lh_push_error(L, "Invalid command passed to redis.acl_check_cmd()");
        return lh_raise(L);
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* ------------------------------------------------------------------ math */

#define RAND48_MAX 2147483647

static int l_math_random(lua_State *L)
{
    lua_host *h = lh_from_state(L);
    lua_Number r = (lua_Number)(fu_rand48(&h->n->rand48) % RAND48_MAX) /
                   (lua_Number)RAND48_MAX;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, r);
        break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1);
        int u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, floor(r * (u - l + 1)) + l);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int l_math_randomseed(lua_State *L)
{
    lua_host *h = lh_from_state(L);
    uint32_t seed = (uint32_t)luaL_checkint(L, 1);
    h->n->rand48 = ((uint64_t)seed << 16) | 0x330E;
    return 0;
}

/* ------------------------------------------------------- base overrides */

/* Redis 7's pcall: an error table with a string err comes back as that
 * string, so scripts written for older versions keep working. */
static int l_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    int argc = lua_gettop(L);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
        lua_remove(L, 1);
        if (lua_istable(L, -1)) {
            lua_pushstring(L, "err");
            lua_rawget(L, -2);
            if (lua_isstring(L, -1)) lua_replace(L, -2);
            else lua_pop(L, 1);
        }
        lua_pushboolean(L, 0);
        lua_insert(L, 1);
    }
    return lua_gettop(L);
}

/* xpcall(f, handler), with the handler run after the error has unwound
 * instead of at the point of error. Lua 5.1 runs a handler with hooks off
 * when the error came from a hook, so a looping handler would escape the
 * step limit; run here, it stays under it. (No script can tell the
 * difference: the debug library is not available to scripts.) */
static int l_xpcall(lua_State *L)
{
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    lua_insert(L, 1); /* [handler, f] */
    if (lua_pcall(L, 0, LUA_MULTRET, 0) == 0) {
        lua_pushboolean(L, 1);
        lua_replace(L, 1);
        return lua_gettop(L);
    }
    if (lh_from_state(L)->killed) return lua_error(L);
    lua_pushvalue(L, 1);
    lua_insert(L, -2); /* [handler, handler, err] */
    if (lua_pcall(L, 1, 1, 0) != 0) {
        if (lh_from_state(L)->killed) return lua_error(L);
        lua_pop(L, 1);
        lua_pushstring(L, "error in error handling");
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

static int refuse_bytecode(lua_State *L, const char *s, size_t len)
{
    if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
        lua_pushnil(L);
        lua_pushstring(L, "bytecode is not allowed in scripts");
        return 2;
    }
    return 0;
}

static int l_loadstring(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, s);
    int r = refuse_bytecode(L, s, len);
    if (r) return r;
    if (luaL_loadbuffer(L, s, len, name) == 0) {
        lh_protect_chunk(lh_from_state(L), L);
        return 1;
    }
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* load(func [, chunkname]): the pieces are gathered first, so the whole
 * chunk can be checked for bytecode before the parser sees it. */
static int l_load(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    const char *name = luaL_optstring(L, 2, "=(load)");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (;;) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
        size_t len;
        lua_tolstring(L, -1, &len);
        if (len == 0) {
            lua_pop(L, 1);
            break;
        }
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    int r = refuse_bytecode(L, s, len);
    if (r) return r;
    if (luaL_loadbuffer(L, s, len, name) == 0) {
        lh_protect_chunk(lh_from_state(L), L);
        return 1;
    }
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* coroutine.create: the new thread gets the step-limit hook too (hooks are
 * per thread in Lua 5.1). */
static int l_co_create(lua_State *L)
{
    luaL_argcheck(L, lua_isfunction(L, 1) && !lua_iscfunction(L, 1), 1,
                  "Lua function expected");
    lua_State *co = lua_newthread(L);
    lua_sethook(co, lh_count_hook, LUA_MASKCOUNT, LH_HOOK_EVERY);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    return 1;
}

static int co_wrap_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int narg = lua_gettop(L);
    if (!lua_checkstack(co, narg)) return luaL_error(L, "too many arguments to resume");
    if (lua_status(co) == 0 && lua_gettop(co) == 0)
        return luaL_error(L, "cannot resume dead coroutine");
    lua_xmove(L, co, narg);
    int status = lua_resume(co, narg);
    if (status == 0 || status == LUA_YIELD) {
        int nres = lua_gettop(co);
        if (!lua_checkstack(L, nres)) return luaL_error(L, "too many results to resume");
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    if (lua_isstring(L, -1)) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int l_co_wrap(lua_State *L)
{
    l_co_create(L);
    lua_pushcclosure(L, co_wrap_resume, 1);
    return 1;
}

/* --------------------------------------------------------- registration */

static void set_fn(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_pushstring(L, name);
    lua_pushcfunction(L, fn);
    lua_settable(L, -3);
}

static void set_num(lua_State *L, const char *name, lua_Number v)
{
    lua_pushstring(L, name);
    lua_pushnumber(L, v);
    lua_settable(L, -3);
}

void lh_open_api(lua_State *L)
{
    lua_newtable(L);
    set_fn(L, "call", l_redis_call);
    set_fn(L, "pcall", l_redis_pcall);
    set_fn(L, "log", l_log);
    set_fn(L, "setresp", l_setresp);
    set_fn(L, "sha1hex", l_sha1hex);
    set_fn(L, "error_reply", l_error_reply);
    set_fn(L, "status_reply", l_status_reply);
    set_fn(L, "set_repl", l_set_repl);
    set_fn(L, "replicate_commands", l_replicate_commands);
    set_fn(L, "breakpoint", l_breakpoint);
    set_fn(L, "debug", l_debug);
    set_fn(L, "acl_check_cmd", l_acl_check_cmd);
    set_num(L, "LOG_DEBUG", 0);
    set_num(L, "LOG_VERBOSE", 1);
    set_num(L, "LOG_NOTICE", 2);
    set_num(L, "LOG_WARNING", 3);
    set_num(L, "REPL_NONE", 0);
    set_num(L, "REPL_AOF", 1);
    set_num(L, "REPL_SLAVE", 2);
    set_num(L, "REPL_REPLICA", 2);
    set_num(L, "REPL_ALL", 3);
    lua_pushstring(L, "REDIS_VERSION");
    lua_pushstring(L, FAKE_REDIS_VERSION);
    lua_settable(L, -3);
    set_num(L, "REDIS_VERSION_NUM", FAKE_REDIS_VERSION_NUM);
    lua_setglobal(L, "redis");

    lua_getglobal(L, "math");
    set_fn(L, "random", l_math_random);
    set_fn(L, "randomseed", l_math_randomseed);
    lua_pop(L, 1);

    lua_getglobal(L, "coroutine");
    set_fn(L, "create", l_co_create);
    set_fn(L, "wrap", l_co_wrap);
    lua_pop(L, 1);

    lua_pushcfunction(L, l_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, l_xpcall);
    lua_setglobal(L, "xpcall");
    lua_pushcfunction(L, l_loadstring);
    lua_setglobal(L, "loadstring");
    lua_pushcfunction(L, l_load);
    lua_setglobal(L, "load");
}
