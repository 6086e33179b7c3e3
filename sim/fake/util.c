/* util.c — number parsing and formatting with Redis' exact rules (what is
 * an integer, what is a float, how a double is printed), argument helpers
 * for command handlers, SHA1 (nettle) and Redis' rand48 for math.random. */
#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha1.h>

#include "sim/fake/fake_int.h"

/* Redis' string2ll: optional '-', no '+', no spaces, no leading zeros
 * ("0" alone is fine, "-0" is not), within long long. */
int fake_str2ll(const char *s, size_t len, long long *out)
{
    size_t i = 0;
    int negative = 0;
    unsigned long long v;
    if (len == 0 || len > 21) return 0;
    if (len == 1 && s[0] == '0') {
        *out = 0;
        return 1;
    }
    if (s[0] == '-') {
        negative = 1;
        if (++i == len) return 0;
    }
    if (s[i] < '1' || s[i] > '9') return 0;
    v = (unsigned long long)(s[i++] - '0');
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned long long d = (unsigned long long)(s[i] - '0');
        if (v > ULLONG_MAX / 10) return 0;
        v *= 10;
        if (v > ULLONG_MAX - d) return 0;
        v += d;
    }
    if (i < len) return 0;
    if (negative) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        *out = (long long)v;
    }
    return 1;
}

/* Redis' getDoubleFromObject: strtod over the whole string, no leading
 * space, not empty, no NaN, no overflow to ±HUGE_VAL or underflow to 0. */
int fu_str2d(const char *s, size_t len, double *out)
{
    /* Most scores are integers (times in ms): up to 15 digits, exact in a
     * double, read here; anything else (sign "+", "-0", fractions,
     * exponents, spaces) goes to strtod. */
    if (len > 0 && len <= 15 && s[0] >= '1' && s[0] <= '9') {
        int64_t v = 0;
        size_t i = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') v = v * 10 + (s[i++] - '0');
        if (i == len) {
            *out = (double)v;
            return 1;
        }
    }
    char buf[256];
    char *end;
    if (len == 0 || len >= sizeof buf || isspace((unsigned char)s[0])) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if ((size_t)(end - buf) != len) return 0;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0.0)) return 0;
    if (isnan(v)) return 0;
    *out = v;
    return 1;
}

size_t fu_d2str(char *buf, size_t cap, double d)
{
    /* An integral value below 10^15 prints under %.17g as its digits. */
    if (cap >= 24 && d > -1e15 && d < 1e15 && d == (double)(int64_t)d && !(d == 0 && signbit(d)))
        return fu_ll2str(buf, (long long)d);
    int n;
    if (isinf(d)) n = snprintf(buf, cap, "%s", d > 0 ? "inf" : "-inf");
    else n = snprintf(buf, cap, "%.17g", d);
    return n < 0 ? 0 : (size_t)n;
}

size_t fu_ll2str(char *buf, long long v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) buf[len++] = '-';
    while (n) buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

size_t fu_num2str(char *buf, size_t cap, double d)
{
    /* Integral values print the same under %.17g as under %lld (below
     * 1e15 in magnitude), and most script arguments are integers. */
    if (d > -1e15 && d < 1e15) {
        long long v = (long long)d;
        if ((double)v == d && !(v == 0 && signbit(d))) return fu_ll2str(buf, v);
    }
    int n = snprintf(buf, cap, "%.17g", d);
    return n < 0 ? 0 : (size_t)n;
}

/* Redis' redisLrand48: the POSIX lrand48 recurrence on 48 bits. */
int32_t fu_rand48(uint64_t *state)
{
    *state = (UINT64_C(0x5DEECE66D) * *state + 0xB) & ((UINT64_C(1) << 48) - 1);
    return (int32_t)(*state >> 17);
}

int fu_arg_ll(fcmd *c, int i, long long *out)
{
    if (fake_str2ll(c->argv[i], c->lens[i], out)) return 0;
    fr_err(c, FERR_NOTINT);
    return -1;
}

const char *fu_arg_cstr(fcmd *c, int i, char *buf, size_t cap)
{
    size_t n = c->lens[i] < cap - 1 ? c->lens[i] : cap - 1;
    memcpy(buf, c->argv[i], n);
    buf[n] = '\0';
    return buf;
}

int fu_arg_is(fcmd *c, int i, const char *lower)
{
    /* strncasecmp in the C locale, over exactly len bytes: ASCII letters
     * fold, a NUL in the word matches nothing in lower. */
    const unsigned char *w = (const unsigned char *)c->argv[i];
    size_t len = c->lens[i], k = 0;
    for (; k < len; k++) {
        unsigned ch = w[k];
        ch |= (unsigned)(ch - 'A' < 26u) << 5;
        if (lower[k] == '\0' || ch != (unsigned char)lower[k]) return 0;
    }
    return lower[k] == '\0';
}

void fake_sha1hex(const char *s, size_t len, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    struct sha1_ctx ctx;
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_init(&ctx);
    sha1_update(&ctx, len, (const uint8_t *)s);
    sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
    for (int i = 0; i < SHA1_DIGEST_SIZE; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[40] = '\0';
}
