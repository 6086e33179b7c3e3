/* trace.c — the canonical event trace: one text line per event or action,
 * "<true_us> <who> <text>", folded into a running XXH3-64 hash (trace_hash)
 * and handed to an optional sink (a file, a ring buffer for reports).
 * Lines are byte-identical across builds: integers only, no pointers.
 *
 * A line is written straight into the hash buffer (room for the longest
 * line is made first), by a formatter of its own for the conversions the
 * trace uses (%s %.*s %c %d %i %u with l, ll, z); any other conversion
 * sends the whole line through vsnprintf, so the bytes never depend on
 * which path wrote them. */
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
    ctx->stamp_hi = -1;
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

/* ---------------------------------------------------------- integers */

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static size_t digits(uint64_t u)
{
    size_t n = 1;
    while (u >= 10000) u /= 10000, n += 4;
    return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

/* Writes the decimal form of u at p; returns the number of bytes. */
static size_t put_u64(char *p, uint64_t u)
{
    size_t n = digits(u);
    char *e = p + n;
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        e -= 2;
        e[0] = digit_pairs[2 * r];
        e[1] = digit_pairs[2 * r + 1];
    }
    if (u >= 10) {
        e[-2] = digit_pairs[2 * u];
        e[-1] = digit_pairs[2 * u + 1];
        e -= 2;
    } else {
        e[-1] = (char)('0' + u);
        e -= 1;
    }
    sim_assert(e == p && n >= 1 && n <= 20); /* exactly digits(u) written */
    return n;
}

static size_t put_i64(char *p, int64_t v)
{
    if (v >= 0) return put_u64(p, (uint64_t)v);
    p[0] = '-';
    return 1 + put_u64(p + 1, (uint64_t)0 - (uint64_t)v);
}

size_t sim_fmt_i64(char *buf, int64_t v)
{
    size_t n = put_i64(buf, v);
    buf[n] = '\0';
    return n;
}

size_t sim_strjoin(char *buf, size_t cap, ...)
{
    va_list ap;
    va_start(ap, cap);
    size_t n = 0;
    for (const char *part; (part = va_arg(ap, const char *)) != NULL;) {
        size_t len = strnlen(part, cap - 1 - n);
        memcpy(buf + n, part, len);
        n += len;
    }
    va_end(ap);
    buf[n] = '\0';
    return n;
}

/* -------------------------------------------------------- the formatter */

/* An output bounded the way vsnprintf bounds it: at most cap - 1 bytes are
 * kept; the rest are counted and dropped. */
typedef struct out {
    char *p;
    size_t len, cap;
} out;

static void out_put(out *o, const char *s, size_t n)
{
    size_t room = o->cap - 1 - o->len;
    if (n > room) n = room;
    char *d = o->p + o->len;
    o->len += n;
    if (n > 16) {
        memcpy(d, s, n);
        return;
    }
    while (n--) *d++ = *s++;
}

/* Copies the string s (at most max bytes of it) to d; returns the count. */
static size_t put_str(char *d, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    memcpy(d, s, n);
    return n;
}

/* Formats fmt into o; returns 0, or -1 at a conversion it does not do (o
 * is then partly written and must be redone by vsnprintf). */
static int format(out *o, const char *fmt, va_list ap)
{
    char num[24];
    for (;;) {
        const char *pct = strchrnul(fmt, '%'); /* the literal text up to the next conversion */
        out_put(o, fmt, (size_t)(pct - fmt));
        if (*pct == '\0') return 0;
        const char *f = pct + 1;
        int prec = -1, lng = 0, size_t_arg = 0;
        if (f[0] == '.' && f[1] == '*') {
            prec = va_arg(ap, int);
            f += 2;
            if (*f != 's') return -1;
        }
        while (*f == 'l') lng++, f++;
        if (*f == 'z') size_t_arg = 1, f++;
        if (lng > 2 || (size_t_arg && lng)) return -1;
        switch (*f) {
        case '%':
            if (lng || size_t_arg) return -1;
            out_put(o, "%", 1);
            break;
        case 's': {
            if (lng || size_t_arg) return -1;
            const char *s = va_arg(ap, const char *);
            if (s == NULL) return -1; /* "(null)" and its precision rules: vsnprintf's */
            size_t n = prec < 0 ? strlen(s) : strnlen(s, (size_t)prec);
            out_put(o, s, n);
            break;
        }
        case 'c': {
            if (lng || size_t_arg) return -1;
            char c = (char)va_arg(ap, int);
            out_put(o, &c, 1);
            break;
        }
        case 'd':
        case 'i': {
            int64_t v = size_t_arg ? (int64_t)va_arg(ap, ssize_t)
                        : lng == 2  ? (int64_t)va_arg(ap, long long)
                        : lng == 1  ? (int64_t)va_arg(ap, long)
                                    : (int64_t)va_arg(ap, int);
            out_put(o, num, put_i64(num, v));
            break;
        }
        case 'u': {
            uint64_t v = size_t_arg ? (uint64_t)va_arg(ap, size_t)
                         : lng == 2  ? (uint64_t)va_arg(ap, unsigned long long)
                         : lng == 1  ? (uint64_t)va_arg(ap, unsigned long)
                                     : (uint64_t)va_arg(ap, unsigned);
            out_put(o, num, put_u64(num, v));
            break;
        }
        default:
            return -1;
        }
        fmt = f + 1;
    }
}

/* -------------------------------------------------------------- lines */

/* Where the next line is written: in the hash buffer, with room for the
 * longest line and its newline. */
static char *line_at(sim_ctx *ctx)
{
    if (ctx->hash_len + LINE_MAX_BYTES + 2 > HASH_BUF_BYTES) hash_flush(ctx);
    return ctx->hash_buf + ctx->hash_len;
}

/* The line of len bytes at line_at() is complete: it joins the hash, and
 * the sink gets a copy (a sink may trace in turn, which moves the buffer). */
static void emit(sim_ctx *ctx, char *line, size_t len)
{
    line[len] = '\n';
    ctx->hash_len += len + 1;
    ctx->trace_lines++;
    if (ctx->sink) {
        char copy[LINE_MAX_BYTES + 2];
        memcpy(copy, line, len);
        copy[len] = '\0';
        ctx->sink(ctx->sink_ud, copy, len);
    }
}

/* The time stamp for now. Its digits above the last four change once per
 * 10 ms of virtual time, every few dozen events: only the last four are
 * written again while they stay. */
static void restamp(sim_ctx *ctx)
{
    int64_t t = ctx->now_us;
    ctx->stamp_us = t;
    if (t >= 10000 && t / 10000 == ctx->stamp_hi) {
        unsigned lo = (unsigned)(t % 10000), a = lo / 100, b = lo % 100;
        char *d = ctx->stamp + ctx->stamp_len - 4;
        d[0] = digit_pairs[2 * a];
        d[1] = digit_pairs[2 * a + 1];
        d[2] = digit_pairs[2 * b];
        d[3] = digit_pairs[2 * b + 1];
        return;
    }
    ctx->stamp_len = put_i64(ctx->stamp, t);
    ctx->stamp_hi = t >= 10000 ? t / 10000 : -1;
}

/* Starts a line with "<now>" and returns its length. Many lines share a
 * time: it is formatted once. */
static size_t put_stamp(sim_ctx *ctx, char *line)
{
    if (ctx->stamp_us != ctx->now_us) restamp(ctx);
    sim_assert(ctx->stamp_len > 0 && ctx->stamp_len < sizeof ctx->stamp);
    memcpy(line, ctx->stamp, sizeof ctx->stamp); /* all of it: the line has room */
    return ctx->stamp_len;
}

/* Starts a line with "<now> <who> " and returns its length. */
static size_t head(sim_ctx *ctx, char *line, const char *who)
{
    size_t len = put_stamp(ctx, line);
    line[len++] = ' ';
    len += put_str(line + len, who, 64);
    line[len++] = ' ';
    return len;
}

void sim_vtrace(sim_ctx *ctx, const char *who, const char *fmt, va_list ap)
{
    char *line = line_at(ctx);
    size_t len = head(ctx, line, who);
    va_list again;
    va_copy(again, ap);
    out o = {line + len, 0, LINE_MAX_BYTES - len};
    if (format(&o, fmt, ap) == 0) {
        len += o.len;
    } else {
        int n = vsnprintf(line + len, LINE_MAX_BYTES - len, fmt, again);
        if (n < 0) n = 0;
        len += (size_t)n < LINE_MAX_BYTES - len ? (size_t)n : LINE_MAX_BYTES - len - 1;
    }
    va_end(again);
    sim_assert(len < LINE_MAX_BYTES); /* the line and its newline fit */
    emit(ctx, line, len);
}

void sim_trace(sim_ctx *ctx, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_vtrace(ctx, who, fmt, ap);
    va_end(ap);
}

/* "<now> ev <label>": the line of every event (most lines of a run), its
 * fixed parts stored whole. */
void sim_trace_event(sim_ctx *ctx, const sim_event *ev)
{
    char *line = line_at(ctx);
    size_t len = put_stamp(ctx, line);
    memcpy(line + len, " ev ", 4);
    len += 4;
    len += put_str(line + len, ev->label, LINE_MAX_BYTES - len - 1);
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
