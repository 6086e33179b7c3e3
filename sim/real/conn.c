/* conn.c — a synchronous hiredis connection whose replies come back as
 * sim_reply values, so code comparing the fake with the real server (or
 * later, running protocols on either) sees one reply type. */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis.h>

#include "sim/real/real.h"

struct real_conn {
    redisContext *ctx;
};

real_conn *real_connect(const char *host, int port, int timeout_ms, char *err, size_t cap)
{
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    redisContext *ctx = redisConnectWithTimeout(host, port, tv);
    if (ctx == NULL || ctx->err) {
        snprintf(err, cap, "cannot connect to %s:%d: %s", host, port,
                 ctx ? ctx->errstr : "out of memory");
        if (ctx) redisFree(ctx);
        return NULL;
    }
    real_conn *c = sim_xcalloc(1, sizeof *c);
    c->ctx = ctx;
    return c;
}

void real_close(real_conn *c)
{
    if (c == NULL) return;
    redisFree(c->ctx);
    sim_xfree(c);
}

sim_reply *real_reply_convert(const void *reply)
{
    const redisReply *r = reply;
    switch (r->type) {
    case REDIS_REPLY_STRING: return sim_reply_str(SIM_REPLY_STR, r->str, r->len);
    case REDIS_REPLY_STATUS: return sim_reply_str(SIM_REPLY_STATUS, r->str, r->len);
    case REDIS_REPLY_ERROR: return sim_reply_str(SIM_REPLY_ERR, r->str, r->len);
    case REDIS_REPLY_INTEGER: return sim_reply_int(r->integer);
    case REDIS_REPLY_NIL: return sim_reply_new(SIM_REPLY_NIL);
    case REDIS_REPLY_ARRAY: {
        sim_reply *a = sim_reply_new(SIM_REPLY_ARRAY);
        if (r->elements) a->element = sim_xmalloc(r->elements * sizeof *a->element);
        for (size_t i = 0; i < r->elements; i++) a->element[i] = real_reply_convert(r->element[i]);
        a->elements = r->elements;
        return a;
    }
    default: return sim_reply_err("ERR locksim: unexpected reply type from server");
    }
}

sim_reply *real_command(real_conn *c, int argc, const char *const *argv, const size_t *lens)
{
    if (real_append(c, argc, argv, lens) != 0) return NULL;
    return real_get_reply(c);
}

int real_append(real_conn *c, int argc, const char *const *argv, const size_t *lens)
{
    return redisAppendCommandArgv(c->ctx, argc, (const char **)argv, lens) == REDIS_OK ? 0 : -1;
}

int real_flush(real_conn *c)
{
    int done = 0;
    while (!done)
        if (redisBufferWrite(c->ctx, &done) != REDIS_OK) return -1;
    return 0;
}

sim_reply *real_get_reply(real_conn *c)
{
    void *raw = NULL;
    if (redisGetReply(c->ctx, &raw) != REDIS_OK || raw == NULL) return NULL;
    redisReply *r = raw;
    /* hiredis 0.14 reports a null multi-bulk as NIL; RESP2 nil arrays only
     * come from commands the fake answers the same way. */
    sim_reply *out = real_reply_convert(r);
    freeReplyObject(r);
    return out;
}

int real_set_timeout(real_conn *c, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    return redisSetTimeout(c->ctx, tv) == REDIS_OK ? 0 : -1;
}

const char *real_errstr(const real_conn *c)
{
    return c->ctx->err ? c->ctx->errstr : "no error";
}
