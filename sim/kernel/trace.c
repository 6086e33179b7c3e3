/* trace.c — the canonical event trace: one text line per event or action,
 * "<true_us> <who> <text>", folded into a running XXH3-64 hash (trace_hash)
 * and handed to an optional sink (a file, a ring buffer for reports).
 * Lines are byte-identical across builds: integers only, no pointers. */
#include <stdio.h>
#include <string.h>

#include "sim/kernel/sim_int.h"

#define LINE_MAX_BYTES 1024
#define HASH_BUF_BYTES 65536 /* lines are hashed a chunk at a time */

void sim_trace_init(sim_ctx *ctx)
{
    ctx->hash = XXH3_createState();
    sim_assert(ctx->hash != NULL);
    XXH3_64bits_reset(ctx->hash);
    ctx->hash_buf = sim_xmalloc(HASH_BUF_BYTES);
    ctx->stamp_us = -1;
}

void sim_trace_free(sim_ctx *ctx)
{
    XXH3_freeState(ctx->hash);
    sim_xfree(ctx->hash_buf);
}

static void hash_flush(sim_ctx *ctx)
{
    XXH3_64bits_update(ctx->hash, ctx->hash_buf, ctx->hash_len);
    ctx->hash_len = 0;
}

static size_t put_i64(char *p, int64_t v);

size_t sim_fmt_i64(char *buf, int64_t v)
{
    size_t n = put_i64(buf, v);
    buf[n] = '\0';
    return n;
}

/* Writes the decimal form of v at p; returns the number of bytes. */
static size_t put_i64(char *p, int64_t v)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0) p[len++] = '-';
    while (n) p[len++] = tmp[--n];
    return len;
}

static void emit(sim_ctx *ctx, char *line, size_t len)
{
    line[len] = '\n';
    if (ctx->hash_len + len + 1 > HASH_BUF_BYTES) hash_flush(ctx);
    memcpy(ctx->hash_buf + ctx->hash_len, line, len + 1);
    ctx->hash_len += len + 1;
    line[len] = '\0';
    ctx->trace_lines++;
    if (ctx->sink) ctx->sink(ctx->sink_ud, line, len);
}

/* Starts a line with "<now> <who> " and returns its length. Many lines
 * share a time: it is formatted once. */
static size_t head(sim_ctx *ctx, char *line, const char *who)
{
    if (ctx->stamp_us != ctx->now_us) {
        ctx->stamp_len = put_i64(ctx->stamp, ctx->now_us);
        ctx->stamp_us = ctx->now_us;
    }
    size_t len = ctx->stamp_len;
    memcpy(line, ctx->stamp, len);
    line[len++] = ' ';
    size_t wl = strlen(who);
    if (wl > 64) wl = 64;
    memcpy(line + len, who, wl);
    len += wl;
    line[len++] = ' ';
    return len;
}

void sim_vtrace(sim_ctx *ctx, const char *who, const char *fmt, va_list ap)
{
    char line[LINE_MAX_BYTES + 2];
    size_t len = head(ctx, line, who);
    int n = vsnprintf(line + len, LINE_MAX_BYTES - len, fmt, ap);
    if (n < 0) n = 0;
    len += (size_t)n < LINE_MAX_BYTES - len ? (size_t)n : LINE_MAX_BYTES - len - 1;
    emit(ctx, line, len);
}

void sim_trace(sim_ctx *ctx, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_vtrace(ctx, who, fmt, ap);
    va_end(ap);
}

void sim_trace_event(sim_ctx *ctx, const sim_event *ev)
{
    char line[LINE_MAX_BYTES + 2];
    size_t len = head(ctx, line, "ev");
    size_t ll = strlen(ev->label);
    if (ll > LINE_MAX_BYTES - len - 1) ll = LINE_MAX_BYTES - len - 1;
    memcpy(line + len, ev->label, ll);
    len += ll;
    emit(ctx, line, len);
}

uint64_t sim_trace_hash(const sim_ctx *ctx)
{
    /* The digest of what was hashed and what waits: no flush, ctx stays as is. */
    XXH3_state_t *copy = XXH3_createState();
    sim_assert(copy != NULL);
    XXH3_copyState(copy, ctx->hash);
    XXH3_64bits_update(copy, ctx->hash_buf, ctx->hash_len);
    uint64_t h = XXH3_64bits_digest(copy);
    XXH3_freeState(copy);
    return h;
}

uint64_t sim_trace_lines(const sim_ctx *ctx)
{
    return ctx->trace_lines;
}

void sim_set_trace_sink(sim_ctx *ctx, sim_trace_sink_fn *fn, void *ud)
{
    ctx->sink = fn;
    ctx->sink_ud = ud;
}

void sim_set_event_trace(sim_ctx *ctx, int on)
{
    ctx->event_trace = on;
}
