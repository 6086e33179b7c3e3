/* lua_scan.c — finds out whether a compiled Lua 5.1 function (or any
 * function nested in it) assigns a global, by reading the function's
 * binary chunk (lua_dump) and looking for the SETGLOBAL opcode.
 *
 * Why: scripts that never assign a global can run with the real globals
 * table as their environment (a direct lookup per global read), while the
 * rest run behind the read-only proxy that raises on every write, as
 * Redis' read-only globals do. The chunk layout is Lua 5.1's (lundump.c):
 * header, then per function: source, line info, counts, code, constants,
 * nested functions, debug info. */
#include <string.h>

#include "sim/fake/lua_host_int.h"

#define OP_SETGLOBAL 7 /* Lua 5.1 opcode number */
#define HEADER_SIZE 12

typedef struct chunk {
    char *buf;
    size_t len, cap;
} chunk;

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader;

static int collect(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    chunk *c = ud;
    if (c->len + sz > c->cap) {
        c->cap = (c->len + sz) * 2;
        c->buf = sim_xrealloc(c->buf, c->cap);
    }
    memcpy(c->buf + c->len, p, sz);
    c->len += sz;
    return 0;
}

static void need(reader *r, size_t n)
{
    if ((size_t)(r->end - r->p) < n) r->bad = 1;
}

static uint64_t read_u(reader *r, size_t size)
{
    need(r, size);
    if (r->bad) return 0;
    uint64_t v = 0;
    memcpy(&v, r->p, size); /* the chunk was written by this machine */
    r->p += size;
    return v;
}

static void skip(reader *r, size_t n)
{
    need(r, n);
    if (!r->bad) r->p += n;
}

static void skip_string(reader *r)
{
    size_t n = (size_t)read_u(r, sizeof(size_t));
    skip(r, n);
}

/* Scans one function; returns 1 if it or a nested one has SETGLOBAL. */
static int scan_function(reader *r, int depth)
{
    int found = 0;
    if (depth > 200) {
        r->bad = 1;
        return 1;
    }
    skip_string(r);               /* source */
    skip(r, 2 * sizeof(int) + 4); /* line defined, last line, 4 bytes */
    uint64_t ncode = read_u(r, sizeof(int));
    for (uint64_t i = 0; i < ncode && !r->bad; i++) {
        uint32_t ins = (uint32_t)read_u(r, 4);
        if ((ins & 0x3F) == OP_SETGLOBAL) found = 1;
    }
    uint64_t nk = read_u(r, sizeof(int));
    for (uint64_t i = 0; i < nk && !r->bad; i++) {
        int type = (int)read_u(r, 1);
        if (type == LUA_TBOOLEAN) skip(r, 1);
        else if (type == LUA_TNUMBER) skip(r, sizeof(lua_Number));
        else if (type == LUA_TSTRING) skip_string(r);
        else if (type != LUA_TNIL) r->bad = 1;
    }
    uint64_t np = read_u(r, sizeof(int));
    for (uint64_t i = 0; i < np && !r->bad; i++) found |= scan_function(r, depth + 1);
    uint64_t nline = read_u(r, sizeof(int));
    skip(r, (size_t)nline * sizeof(int));
    uint64_t nloc = read_u(r, sizeof(int));
    for (uint64_t i = 0; i < nloc && !r->bad; i++) {
        skip_string(r);
        skip(r, 2 * sizeof(int));
    }
    uint64_t nup = read_u(r, sizeof(int));
    for (uint64_t i = 0; i < nup && !r->bad; i++) skip_string(r);
    return found;
}

int lh_assigns_globals(lua_State *L)
{
    chunk c = {NULL, 0, 0};
    lua_dump(L, collect, &c);
    reader r = {(const unsigned char *)c.buf, (const unsigned char *)c.buf + c.len, 0};
    skip(&r, HEADER_SIZE);
    int found = scan_function(&r, 0);
    sim_xfree(c.buf);
    return found || r.bad; /* unreadable: take the safe path */
}
