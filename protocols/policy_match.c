/* policy_match.c — a policy's templates and reply patterns at run time:
 * the words of a step expanded for one operation ({key}, {owner},
 * {lease_ms}, random tokens...), and what a reply means after a step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/policy.h"

/* Appends n bytes of s to buf at *len (cut at cap - 1). */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + 1 >= cap) return;
    size_t room = cap - 1 - *len;
    if (n > room) n = room;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

static void put_i64(char *buf, size_t cap, size_t *len, int64_t v)
{
    char num[24];
    put(buf, cap, len, num, sim_fmt_i64(num, v));
}

/* n random hex characters from the process's PRNG. */
static void put_random_hex(const pol_expand *ex, char *buf, size_t cap, size_t *len, int n)
{
    char hex[33];
    while (n > 0) {
        cl_random_hex(ex->p, hex);
        int take = n < 32 ? n : 32;
        put(buf, cap, len, hex, (size_t)take);
        n -= take;
    }
}

/* n random bytes in standard base64 (with padding). */
static void put_random_base64(const pol_expand *ex, char *buf, size_t cap, size_t *len, int n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char bytes[48];
    char hex[33];
    for (int i = 0; i < n; i++) {
        if (i % 16 == 0) cl_random_hex(ex->p, hex);
        int k = 2 * (i % 16);
        bytes[i] = (unsigned char)((hex[k] <= '9' ? hex[k] - '0' : hex[k] - 'a' + 10) << 4 |
                                   (hex[k + 1] <= '9' ? hex[k + 1] - '0' : hex[k + 1] - 'a' + 10));
    }
    for (int i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16 | (i + 1 < n ? (uint32_t)bytes[i + 1] << 8 : 0) |
                     (i + 2 < n ? bytes[i + 2] : 0);
        char out[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
                       i + 2 < n ? b64[v & 63] : '='};
        put(buf, cap, len, out, 4);
    }
}

/* One placeholder (name, n bytes) into buf. depth guards {key} inside
 * {key}. */
static void put_placeholder(const pol_expand *ex, const char *name, size_t n, char *buf, size_t cap, size_t *len,
                            int depth);

static void expand(const pol_expand *ex, const char *t, char *buf, size_t cap, size_t *len, int depth)
{
    while (*t) {
        const char *open = strchr(t, '{'), *close = open ? strchr(open, '}') : NULL;
        if (open == NULL || close == NULL) {
            put(buf, cap, len, t, strlen(t));
            return;
        }
        put(buf, cap, len, t, (size_t)(open - t));
        put_placeholder(ex, open + 1, (size_t)(close - open - 1), buf, cap, len, depth);
        t = close + 1;
    }
}

/* ms as seconds: "10", "1.5", "0.01" (Redis reads a blocking time so). */
static void put_seconds(char *buf, size_t cap, size_t *len, int64_t ms)
{
    char t[48];
    int n = snprintf(t, sizeof t, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
    while (n > 0 && t[n - 1] == '0') n--;
    if (n > 0 && t[n - 1] == '.') n--;
    put(buf, cap, len, t, (size_t)n);
}

static int is(const char *name, size_t n, const char *word)
{
    return strlen(word) == n && !strncmp(name, word, n);
}

static void put_placeholder(const pol_expand *ex, const char *name, size_t n, char *buf, size_t cap, size_t *len,
                            int depth)
{
    const pol_policy *pol = ex->pol;
    sim_assert(depth < 4);
    if (is(name, n, "lock")) put(buf, cap, len, ex->lock, strlen(ex->lock));
    else if (is(name, n, "key")) expand(ex, pol->key, buf, cap, len, depth + 1);
    else if (is(name, n, "channel")) expand(ex, pol->channel ? pol->channel : "", buf, cap, len, depth + 1);
    else if (is(name, n, "owner")) put(buf, cap, len, ex->owner ? ex->owner : "", ex->owner ? strlen(ex->owner) : 0);
    else if (is(name, n, "lease_ms")) put_i64(buf, cap, len, ex->lease_ms);
    else if (is(name, n, "lease_s")) put_i64(buf, cap, len, ex->lease_ms / 1000);
    else if (is(name, n, "wait_ms")) put_i64(buf, cap, len, ex->wait_ms);
    else if (is(name, n, "now_ms")) put_i64(buf, cap, len, ex->now_ms);
    else if (is(name, n, "thread")) put_i64(buf, cap, len, ex->thread);
    else if (is(name, n, "client")) put_i64(buf, cap, len, ex->client);
    else if (is(name, n, "seq")) put_i64(buf, cap, len, (int64_t)ex->seq);
    else if (is(name, n, "permits")) put_i64(buf, cap, len, ex->permits);
    else if (is(name, n, "n")) put_i64(buf, cap, len, ex->n > 0 ? ex->n : 1);
    else if (is(name, n, "block_ms")) put_i64(buf, cap, len, ex->block_ms);
    else if (is(name, n, "block_s")) put_seconds(buf, cap, len, ex->block_ms);
    else if (is(name, n, "uuid")) put(buf, cap, len, ex->uuid ? ex->uuid : "", ex->uuid ? strlen(ex->uuid) : 0);
    else if (is(name, n, "random")) put_random_hex(ex, buf, cap, len, 32);
    else if (n > 7 && !strncmp(name, "random:", 7)) put_random_hex(ex, buf, cap, len, atoi(name + 7));
    else if (n > 7 && !strncmp(name, "base64:", 7)) put_random_base64(ex, buf, cap, len, atoi(name + 7));
    else sim_assert(!"a placeholder the parser let through");
}

size_t pol_expand_into(const pol_expand *ex, const char *t, char *buf, size_t cap)
{
    size_t len = 0;
    sim_assert(cap > 0);
    buf[0] = '\0';
    expand(ex, t, buf, cap, &len, 0);
    return len;
}

/* -------------------------------------------------------------- replies */

static int is_text(const sim_reply *r)
{
    return r->type == SIM_REPLY_STR || r->type == SIM_REPLY_STATUS;
}

static int matches(const pol_pattern *pat, const sim_reply *r, const pol_expand *ex)
{
    switch (pat->kind) {
    case PAT_OK: return is_text(r) && r->len == 2 && !memcmp(r->str, "OK", 2);
    case PAT_NIL: return r->type == SIM_REPLY_NIL || r->type == SIM_REPLY_NILARRAY;
    case PAT_INT_EQ: return r->type == SIM_REPLY_INT && r->integer == pat->value;
    case PAT_INT: return r->type == SIM_REPLY_INT;
    case PAT_INT_GT0: return r->type == SIM_REPLY_INT && r->integer > 0;
    case PAT_INT_GE0: return r->type == SIM_REPLY_INT && r->integer >= 0;
    case PAT_INT_LT0: return r->type == SIM_REPLY_INT && r->integer < 0;
    case PAT_ERR: return r->type == SIM_REPLY_ERR;
    case PAT_ARRAY: return r->type == SIM_REPLY_ARRAY;
    case PAT_ANY: return 1;
    case PAT_TEMPLATE: {
        if (!is_text(r)) return 0;
        char want[512];
        size_t n = pol_expand_into(ex, pat->text, want, sizeof want);
        return r->len == n && !memcmp(r->str, want, n);
    }
    }
    return 0;
}

pol_outcome pol_match(const pol_step *st, const sim_reply *r, const pol_expand *ex)
{
    if (r == NULL) return POL_ERROR;
    for (int i = 0; i < st->npat; i++)
        if (matches(&st->pat[i], r, ex)) return st->pat[i].outcome;
    return POL_ERROR;
}
