/* reply.c — reply values (what a RESP2 client receives), shared by the fake
 * node, the real-Redis backend and the protocols: construction, copying,
 * comparison (exact, with an integer tolerance, or as a multiset) and a
 * readable one-line form for traces and diffs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/kernel/sim.h"

/* Reply blocks are made and freed by the hundred thousand per run. The
 * list is the process's: locksim runs no threads (workers are processes). */
static sim_freelist reply_blocks = SIM_FREELIST(sim_reply);

sim_reply *sim_reply_new(sim_reply_type type)
{
    sim_reply *r = sim_fl_get(&reply_blocks);
    r->type = type;
    return r;
}

sim_reply *sim_reply_int(int64_t v)
{
    sim_reply *r = sim_reply_new(SIM_REPLY_INT);
    r->integer = v;
    return r;
}

sim_reply *sim_reply_str(sim_reply_type type, const char *s, size_t len)
{
    sim_reply *r = sim_reply_new(type);
    r->str = sim_xmemdup(s, len);
    r->len = len;
    return r;
}

sim_reply *sim_reply_err(const char *msg)
{
    return sim_reply_str(SIM_REPLY_ERR, msg, strlen(msg));
}

sim_reply *sim_reply_array(size_t n, sim_reply **elems)
{
    sim_reply *r = sim_reply_new(SIM_REPLY_ARRAY);
    if (n) {
        r->element = sim_xmalloc(n * sizeof *r->element);
        memcpy(r->element, elems, n * sizeof *r->element);
    }
    r->elements = n;
    return r;
}

void sim_reply_push(sim_reply *a, sim_reply *e)
{
    sim_assert(a->type == SIM_REPLY_ARRAY);
    a->element = sim_xrealloc(a->element, (a->elements + 1) * sizeof *a->element);
    a->element[a->elements++] = e;
}

sim_reply *sim_reply_dup(const sim_reply *r)
{
    sim_assert(r != NULL && (r->elements == 0 || r->element != NULL) && (r->str != NULL || r->len == 0));
    sim_reply *d = sim_reply_new(r->type);
    d->integer = r->integer;
    if (r->str) {
        d->str = sim_xmemdup(r->str, r->len);
        d->len = r->len;
    }
    if (r->elements) {
        d->element = sim_xmalloc(r->elements * sizeof *d->element);
        for (size_t i = 0; i < r->elements; i++)
            d->element[i] = sim_reply_dup(r->element[i]);
        d->elements = r->elements;
    }
    return d;
}

sim_reply *sim_reply_ref(sim_reply *r)
{
    r->refs++;
    return r;
}

void sim_reply_free(sim_reply *r)
{
    if (r == NULL) return;
    if (r->refs > 0) {
        r->refs--;
        return;
    }
    for (size_t i = 0; i < r->elements; i++) sim_reply_free(r->element[i]);
    sim_xfree(r->element);
    sim_xfree(r->str);
    sim_fl_put(&reply_blocks, r);
}

/* ------------------------------------------------------------ comparison */

static int equal_exact(const sim_reply *a, const sim_reply *b, int64_t tol)
{
    if (a->type != b->type) return 0;
    switch (a->type) {
    case SIM_REPLY_NIL:
    case SIM_REPLY_NILARRAY:
        return 1;
    case SIM_REPLY_INT: {
        int64_t d = a->integer > b->integer ? a->integer - b->integer
                                            : b->integer - a->integer;
        return a->integer == b->integer || (d >= 0 && d <= tol);
    }
    case SIM_REPLY_STR:
    case SIM_REPLY_STATUS:
    case SIM_REPLY_ERR:
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case SIM_REPLY_ARRAY:
        if (a->elements != b->elements) return 0;
        for (size_t i = 0; i < a->elements; i++)
            if (!equal_exact(a->element[i], b->element[i], tol)) return 0;
        return 1;
    }
    return 0;
}

/* Multiset comparison of a's and b's top-level items, each item being
 * `width` consecutive elements. O(n^2), fine for reply sizes. */
static int equal_unordered(const sim_reply *a, const sim_reply *b, int64_t tol,
                           size_t width)
{
    if (a->type != SIM_REPLY_ARRAY || b->type != SIM_REPLY_ARRAY)
        return equal_exact(a, b, tol);
    if (a->elements != b->elements || a->elements % width) return 0;
    size_t n = a->elements / width;
    char *used = sim_xcalloc(n ? n : 1, 1);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        int found = 0;
        for (size_t j = 0; j < n && !found; j++) {
            if (used[j]) continue;
            int same = 1;
            for (size_t w = 0; w < width && same; w++)
                same = equal_exact(a->element[i * width + w],
                                   b->element[j * width + w], tol);
            if (same) used[j] = found = 1;
        }
        ok = found;
    }
    sim_xfree(used);
    return ok;
}

int sim_reply_equal(const sim_reply *a, const sim_reply *b, int64_t tol, int flags)
{
    if (flags & SIM_REPLY_CMP_PAIRS) return equal_unordered(a, b, tol, 2);
    if (flags & SIM_REPLY_CMP_UNORDERED) return equal_unordered(a, b, tol, 1);
    return equal_exact(a, b, tol);
}

/* --------------------------------------------------------------- display */

size_t sim_repr(const char *s, size_t len, char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(c)                          \
    do {                                \
        if (n + 1 < cap) buf[n] = (c);  \
        n++;                            \
    } while (0)
    PUT('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\\': PUT('\\'); PUT('\\'); break;
        case '"': PUT('\\'); PUT('"'); break;
        case '\n': PUT('\\'); PUT('n'); break;
        case '\r': PUT('\\'); PUT('r'); break;
        case '\t': PUT('\\'); PUT('t'); break;
        default:
            if (c >= 0x20 && c < 0x7f) {
                PUT((char)c);
            } else {
                static const char hex[] = "0123456789abcdef";
                PUT('\\'); PUT('x'); PUT(hex[c >> 4]); PUT(hex[c & 15]);
            }
        }
    }
    PUT('"');
#undef PUT
    if (cap) buf[n < cap ? n : cap - 1] = '\0';
    return n;
}

typedef struct outbuf {
    char *buf;
    size_t cap, len;
} outbuf;

static void out_str(outbuf *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len - 1;
        memcpy(o->buf + o->len, s, n < room ? n : room);
        o->buf[o->len + (n < room ? n : room)] = '\0';
    }
    o->len += n;
}

static void out_repr(outbuf *o, const char *s, size_t len)
{
    char tmp[256];
    size_t n = sim_repr(s, len, tmp, sizeof tmp);
    if (n >= sizeof tmp) {
        out_str(o, tmp, sizeof tmp - 1);
        out_str(o, "...", 3);
    } else {
        out_str(o, tmp, n);
    }
}

static void format_into(const sim_reply *r, outbuf *o)
{
    char tmp[48];
    switch (r->type) {
    case SIM_REPLY_NIL: out_str(o, "(nil)", 5); break;
    case SIM_REPLY_NILARRAY: out_str(o, "(nil array)", 11); break;
    case SIM_REPLY_INT:
        out_str(o, tmp, (size_t)snprintf(tmp, sizeof tmp, "(integer) %lld",
                                         (long long)r->integer));
        break;
    case SIM_REPLY_STR: out_repr(o, r->str, r->len); break;
    case SIM_REPLY_STATUS:
        out_str(o, "+", 1);
        out_repr(o, r->str, r->len);
        break;
    case SIM_REPLY_ERR:
        out_str(o, "(error) ", 8);
        out_repr(o, r->str, r->len);
        break;
    case SIM_REPLY_ARRAY:
        out_str(o, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) out_str(o, ", ", 2);
            format_into(r->element[i], o);
        }
        out_str(o, "]", 1);
        break;
    }
}

size_t sim_reply_format(const sim_reply *r, char *buf, size_t cap)
{
    outbuf o = {buf, cap, 0};
    if (cap) buf[0] = '\0';
    format_into(r, &o);
    return o.len;
}
