/* values.c — scenario values: durations with units (us ms s m h, decimals
 * allowed), distributions (constant, a..b, exp(mean)), counts and
 * probabilities; drawing from a distribution through a choice point; and
 * writing values back as scenario text. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scn/scn_int.h"

/* Parses "<decimal><unit>" into µs. Returns 0 or -1. Decimals are read
 * digit by digit into integers: no floating point decides a duration. */
int scn_parse_duration(const char *s, int64_t *out)
{
    const char *p = s;
    int neg = 0;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    if (!isdigit((unsigned char)*p)) return -1;
    int64_t whole = 0, frac = 0, frac_scale = 1;
    while (isdigit((unsigned char)*p)) {
        if (whole > INT64_MAX / 100) return -1;
        whole = whole * 10 + (*p++ - '0');
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return -1;
        while (isdigit((unsigned char)*p)) {
            if (frac_scale < 1000000000) {
                frac = frac * 10 + (*p - '0');
                frac_scale *= 10;
            }
            p++;
        }
    }
    static const struct {
        const char *name;
        int64_t us;
    } units[] = {{"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000}, {"h", 3600000000LL}};
    size_t ulen = strcspn(p, " \t");
    const char *rest = p + ulen;
    while (isspace((unsigned char)*rest)) rest++;
    if (*rest) return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strlen(units[i].name) != ulen || strncmp(p, units[i].name, ulen) != 0) continue;
        if (whole > SCN_DURATION_MAX / units[i].us) return -1;
        int64_t v = whole * units[i].us + frac * units[i].us / frac_scale;
        if (v > SCN_DURATION_MAX) return -1;
        *out = neg ? -v : v;
        return 0;
    }
    return -1;
}

int scn_parse_dist(const char *s, scn_dist *out)
{
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    if (strncmp(buf, "exp(", 4) == 0) {
        size_t n = strlen(buf);
        if (n < 6 || buf[n - 1] != ')') return -1;
        buf[n - 1] = '\0';
        out->kind = SCN_DIST_EXP;
        out->b_us = 0;
        return scn_parse_duration(buf + 4, &out->a_us) == 0 && out->a_us > 0 ? 0 : -1;
    }
    char *dots = strstr(buf, "..");
    if (dots) {
        *dots = '\0';
        out->kind = SCN_DIST_UNIFORM;
        if (scn_parse_duration(buf, &out->a_us) != 0 ||
            scn_parse_duration(dots + 2, &out->b_us) != 0)
            return -1;
        return out->a_us >= 0 && out->a_us <= out->b_us ? 0 : -1;
    }
    out->kind = SCN_DIST_CONST;
    out->b_us = 0;
    return scn_parse_duration(buf, &out->a_us) == 0 && out->a_us >= 0 ? 0 : -1;
}

int scn_parse_int(const char *s, int64_t *out)
{
    char *end;
    if (!*s) return -1;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    *out = v;
    return 0;
}

/* "0.25", "25%", "1", "0": parts per million, exactly. */
int scn_parse_prob(const char *s, int *ppm)
{
    const char *p = s;
    int64_t whole = 0, frac = 0, scale = 1;
    if (!isdigit((unsigned char)*p)) return -1;
    while (isdigit((unsigned char)*p)) {
        whole = whole * 10 + (*p++ - '0');
        if (whole > 100) return -1;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (scale < 1000000) {
                frac = frac * 10 + (*p - '0');
                scale *= 10;
            }
            p++;
        }
    }
    int percent = *p == '%';
    if (percent) p++;
    if (*p) return -1;
    int64_t v = whole * SCN_PPM + frac * SCN_PPM / scale;
    if (percent) v /= 100;
    if (v < 0 || v > SCN_PPM) return -1;
    *ppm = (int)v;
    return 0;
}

int64_t scn_dist_draw(sim_ctx *ctx, const scn_dist *d, const char *label)
{
    switch (d->kind) {
    case SCN_DIST_CONST:
        return d->a_us;
    case SCN_DIST_UNIFORM:
        return d->a_us + (int64_t)sim_choose(ctx, (uint64_t)(d->b_us - d->a_us + 1), label);
    case SCN_DIST_EXP: {
        /* Inverse transform on 2^53 equally spaced points; llround of an
         * IEEE double result is the same on every conforming build. */
        uint64_t k = sim_choose(ctx, UINT64_C(1) << 53, label);
        double u = ((double)k + 0.5) / 9007199254740992.0;
        double v = -log(u) * (double)d->a_us;
        if (v > (double)SCN_DURATION_MAX) v = (double)SCN_DURATION_MAX;
        return (int64_t)llround(v);
    }
    }
    return 0;
}

/* Exact and readable: "90s", "250ms", "3.605355s", "1.5ms", "7us". */
size_t scn_duration_format(int64_t us, char *buf, size_t cap)
{
    int64_t a = us < 0 ? -us : us;
    const char *sign = us < 0 ? "-" : "";
    int n;
    if (a != 0 && a % 3600000000LL == 0) n = snprintf(buf, cap, "%s%lldh", sign, (long long)(a / 3600000000LL));
    else if (a != 0 && a % 60000000 == 0) n = snprintf(buf, cap, "%s%lldm", sign, (long long)(a / 60000000));
    else if (a != 0 && a % 1000000 == 0) n = snprintf(buf, cap, "%s%llds", sign, (long long)(a / 1000000));
    else if (a != 0 && a % 1000 == 0 && a < 1000000) n = snprintf(buf, cap, "%s%lldms", sign, (long long)(a / 1000));
    else if (a >= 1000) {
        int64_t unit = a >= 1000000 ? 1000000 : 1000;
        int digits = unit == 1000000 ? 6 : 3;
        char frac[8];
        snprintf(frac, sizeof frac, "%0*lld", digits, (long long)(a % unit));
        for (int k = digits - 1; k > 0 && frac[k] == '0'; k--) frac[k] = '\0';
        n = snprintf(buf, cap, "%s%lld.%s%s", sign, (long long)(a / unit), frac, unit == 1000000 ? "s" : "ms");
    } else n = snprintf(buf, cap, "%s%lldus", sign, (long long)a);
    return n < 0 ? 0 : (size_t)n;
}

size_t scn_dist_format(const scn_dist *d, char *buf, size_t cap)
{
    char a[32], b[32];
    scn_duration_format(d->a_us, a, sizeof a);
    scn_duration_format(d->b_us, b, sizeof b);
    int n;
    switch (d->kind) {
    case SCN_DIST_UNIFORM: n = snprintf(buf, cap, "%s..%s", a, b); break;
    case SCN_DIST_EXP: n = snprintf(buf, cap, "exp(%s)", a); break;
    default: n = snprintf(buf, cap, "%s", a); break;
    }
    return n < 0 ? 0 : (size_t)n;
}
