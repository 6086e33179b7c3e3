/* sink.c — where a command's reply goes. The same addReply-style calls
 * build either a sim_reply tree (a client's reply) or Lua values on a Lua
 * stack (redis.call), converting the way Redis 7.0 converts RESP2 to Lua:
 * integer → number, bulk → string, null → false, status → {ok=...},
 * error → {err=...}, array → table.
 *
 * An array header announces its length; the next that many values fill it
 * (nested arrays included), after which it is itself a value of its parent. */
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "sim/fake/fake_int.h"

void fsink_init_tree(fsink *s)
{
    memset(s, 0, sizeof *s);
    s->kind = FSINK_TREE;
}

void fsink_init_lua(fsink *s, lua_State *L)
{
    memset(s, 0, sizeof *s);
    s->kind = FSINK_LUA;
    s->L = L;
}

void fsink_release(fsink *s)
{
    if (s->root) sim_reply_free(s->root);
    if (s->error) sim_xfree(s->error);
    if (s->frames) sim_xfree(s->frames);
    s->root = NULL;
    s->error = NULL;
    s->frames = NULL;
    s->depth = s->cap = 0;
}

/* A complete value is on the Lua stack top (FSINK_LUA) or given as v
 * (FSINK_TREE): store it in the open array, closing arrays that fill up. */
static void attach(fsink *s, sim_reply *v)
{
    for (;;) {
        if (s->depth == 0) {
            sim_assert(!s->done);
            s->done = 1;
            if (s->kind == FSINK_TREE) s->root = v;
            return;
        }
        fsink_frame *f = &s->frames[s->depth - 1];
        if (s->kind == FSINK_TREE) f->arr->element[f->arr->elements++] = v;
        else lua_rawseti(s->L, -2, f->next_index++);
        if (--f->remaining > 0) return;
        /* The array is complete: it becomes a value of its parent. */
        v = f->arr;
        s->depth--;
    }
}

void fr_int(fcmd *c, int64_t v)
{
    fsink *s = c->sink;
    if (s->kind == FSINK_LUA) {
        lua_pushnumber(s->L, (lua_Number)v);
        attach(s, NULL);
    } else {
        attach(s, sim_reply_int(v));
    }
}

void fr_bulk(fcmd *c, const char *p, size_t len)
{
    fsink *s = c->sink;
    if (s->kind == FSINK_LUA) {
        lua_pushlstring(s->L, p, len);
        attach(s, NULL);
    } else {
        attach(s, sim_reply_str(SIM_REPLY_STR, p, len));
    }
}

void fr_cbulk(fcmd *c, const char *str)
{
    fr_bulk(c, str, strlen(str));
}

static void push_false_or(fcmd *c, sim_reply_type t)
{
    fsink *s = c->sink;
    if (s->kind == FSINK_LUA) {
        lua_pushboolean(s->L, 0);
        attach(s, NULL);
    } else {
        attach(s, sim_reply_new(t));
    }
}

void fr_nil(fcmd *c)
{
    push_false_or(c, SIM_REPLY_NIL);
}

void fr_nilarray(fcmd *c)
{
    push_false_or(c, SIM_REPLY_NILARRAY);
}

/* Pushes {field=text} on the Lua stack. */
static void push_field_table(lua_State *L, const char *field, const char *text,
                             size_t len)
{
    lua_createtable(L, 0, 1);
    lua_pushstring(L, field);
    lua_pushlstring(L, text, len);
    lua_rawset(L, -3);
}

void fr_status(fcmd *c, const char *str)
{
    fsink *s = c->sink;
    if (s->kind == FSINK_LUA) {
        push_field_table(s->L, "ok", str, strlen(str));
        attach(s, NULL);
    } else {
        attach(s, sim_reply_str(SIM_REPLY_STATUS, str, strlen(str)));
    }
}

void fr_ok(fcmd *c)
{
    fr_status(c, "OK");
}

void fsink_push_lua_error(lua_State *L, const char *text, size_t len, int dash)
{
    /* Redis' luaPushErrorBuff: "-CODE msg" keeps its code, anything else
     * gets ERR; CR/LF are trimmed from both ends of msg. */
    const char *code = "ERR", *msg = text;
    size_t code_len = 3, msg_len = len;
    int coded = (len > 0 && text[0] == '-');
    if (coded || dash) {
        const char *p = coded ? text + 1 : text;
        size_t n = coded ? len - 1 : len;
        const char *sp = memchr(p, ' ', n);
        if (sp == NULL) {
            msg = p;
            msg_len = n;
        } else {
            code = p;
            code_len = (size_t)(sp - p);
            msg = sp + 1;
            msg_len = n - code_len - 1;
        }
    }
    while (msg_len && (msg[0] == '\r' || msg[0] == '\n')) {
        msg++;
        msg_len--;
    }
    while (msg_len && (msg[msg_len - 1] == '\r' || msg[msg_len - 1] == '\n')) msg_len--;
    lua_checkstack(L, 4);
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, code, code_len);
    lua_pushstring(L, " ");
    lua_pushlstring(L, msg, msg_len);
    lua_concat(L, 3);
    lua_rawset(L, -3);
}

void fr_err(fcmd *c, const char *text)
{
    fsink *s = c->sink;
    size_t len = strlen(text);
    char *clean = sim_xmemdup(text, len);
    for (size_t i = 0; i < len; i++)
        if (clean[i] == '\r' || clean[i] == '\n') clean[i] = ' ';
    if (s->depth == 0) {
        s->top_is_error = 1;
        if (s->kind == FSINK_LUA) {
            sim_xfree(s->error);
            s->error = sim_xmemdup(clean, len);
        }
    }
    if (s->kind == FSINK_LUA) {
        fsink_push_lua_error(s->L, clean, len, 1);
        lua_pushstring(s->L, "ignore_error_stats_update");
        lua_pushboolean(s->L, 1);
        lua_rawset(s->L, -3);
        attach(s, NULL);
    } else {
        attach(s, sim_reply_str(SIM_REPLY_ERR, clean, len));
    }
    sim_xfree(clean);
}

void fr_errf(fcmd *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fr_err(c, buf);
}

void fr_array(fcmd *c, size_t n)
{
    fsink *s = c->sink;
    sim_reply *arr = NULL;
    if (s->kind == FSINK_LUA) {
        lua_checkstack(s->L, 4);
        lua_createtable(s->L, n > 1024 ? 1024 : (int)n, 0);
    } else {
        arr = sim_reply_new(SIM_REPLY_ARRAY);
        if (n) arr->element = sim_xmalloc(n * sizeof *arr->element);
    }
    if (n == 0) {
        attach(s, arr);
        return;
    }
    if (s->depth == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->frames = sim_xrealloc(s->frames, (size_t)s->cap * sizeof *s->frames);
    }
    fsink_frame *f = &s->frames[s->depth++];
    f->arr = arr;
    f->remaining = (int64_t)n;
    f->next_index = 1;
}

void fr_double(fcmd *c, double d)
{
    char buf[64];
    size_t len = fu_d2str(buf, sizeof buf, d);
    fr_bulk(c, buf, len);
}
