/* lua_host_int.h — the Lua host's state, shared by lua_host.c (the VM, the
 * sandbox, loading and running scripts) and lua_api.c (the redis.* library
 * and the replaced base functions). Private to sim/fake. */
#ifndef LOCKSIM_LUA_HOST_INT_H
#define LOCKSIM_LUA_HOST_INT_H

#include <lauxlib.h>
#include <lua.h>

#include "sim/fake/fake_int.h"

typedef struct lscript {
    UT_hash_handle hh;
    char sha[41];
    int ref; /* the compiled function, in the registry */
} lscript;

/* The small-block pool of the Lua allocator (lua_host.c). */
#define LH_SMALL_STEP 16
#define LH_SMALL_MAX 512
#define LH_SLAB_BYTES ((size_t)64 << 10)
typedef struct lh_slab {
    struct lh_slab *next;
    _Alignas(16) unsigned char data[];
} lh_slab;

#define LH_NAME_MEMO 64 /* power of two */
#define LH_PIN_MAX 512

struct lua_host {
    fake_node *n;
    lua_State *L;
    lscript *scripts;
    int real_globals_ref; /* the real globals table (thread globals) */
    int proxy_ref;        /* its read-only proxy: _G, and env of writers */
    int readonly_ref;     /* weak-keyed set of protected proxy tables */
    int handler_ref;      /* the error handler closure, made once */
    int keys_name_ref;    /* the strings "KEYS" and "ARGV", interned once */
    int argv_name_ref;
    size_t mem_used;
    void *small_free[LH_SMALL_MAX / LH_SMALL_STEP + 1]; /* free blocks by class */
    lh_slab *slabs;
    unsigned char *slab_next; /* the unused rest of the newest slab */
    size_t slab_left;
    int in_script;        /* 1 while a script runs: limits apply */
    uint64_t steps;       /* VM instructions counted in this run */
    int killed;           /* the step limit fired: keep failing */
    fcmd *cur;            /* the EVAL being run, NULL between runs */
    const char *cur_sha;
    /* redis.call's command names, by the address of the Lua string: a name
     * found once is pinned (a registry table holds the string, so it is
     * never collected and its address never names another string), and
     * the next call with it skips the lookup. */
    struct {
        const char *name;
        const fake_cmd *cmd;
    } name_memo[LH_NAME_MEMO];
    lscript *recent[2];   /* the scripts found last (find_script) */
    int pin_ref;          /* the table of pinned names */
    int npinned;          /* at most LH_PIN_MAX */
};

/* Key of the host pointer in the Lua registry. */
#define LH_REGISTRY_KEY "locksim.lua_host"
/* Instructions between two count-hook calls. */
#define LH_HOOK_EVERY 10000
#define LH_KILLED_STEPS 1 /* lua_host.killed: the script reached the step limit */
#define LH_KILLED_STOP 2  /* ... the run is stopping (a signal) */

lua_host *lh_from_state(lua_State *L);
/* Pushes Redis' error table {err = "<CODE> <msg>"} built from text as
 * luaPushErrorBuff does ("-CODE msg" keeps CODE, plain text gets ERR). */
void lh_push_error(lua_State *L, const char *text);
/* Raises the error object on the stack top (never returns). */
int lh_raise(lua_State *L);
/* Registers the redis table, math.random/randomseed, pcall, and the
 * bytecode-refusing loaders into the (still unprotected) globals. */
void lh_open_api(lua_State *L);
/* 1 if the function on the stack top (or one nested in it) assigns a
 * global (lua_scan.c); an unreadable dump counts as yes. */
int lh_assigns_globals(lua_State *L);
/* Gives the function on the stack top the read-only proxy as environment
 * if it assigns globals, so such writes raise as in Redis. */
void lh_protect_chunk(lua_host *h, lua_State *L);
/* The count hook; also installed on every coroutine a script creates. */
void lh_count_hook(lua_State *L, lua_Debug *ar);

#endif /* LOCKSIM_LUA_HOST_INT_H */
