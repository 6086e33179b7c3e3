/* t_zset.c — sorted-set commands: ZADD (NX XX GT LT CH INCR) ZINCRBY ZSCORE
 * ZREM ZCARD ZRANGE (rank, BYSCORE, REV, LIMIT, WITHSCORES) ZRANGEBYSCORE
 * ZREMRANGEBYSCORE ZPOPMIN ZPOPMAX, and the pop BZPOPMIN / BZPOPMAX share
 * (blocking.c).
 *
 * Invariant: z->sorted holds every member of z->dict exactly once, ordered
 * by (score, member bytes), as Redis orders them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fake/fake_int.h"

/* ------------------------------------------------------------ the set */

static int zcmp(double s1, const char *m1, size_t l1, const fzmember *b)
{
    if (s1 < b->score) return -1;
    if (s1 > b->score) return 1;
    size_t n = l1 < b->mlen ? l1 : b->mlen;
    int r = memcmp(m1, b->m, n);
    if (r) return r;
    return l1 < b->mlen ? -1 : l1 > b->mlen ? 1 : 0;
}

/* First position whose element is >= (score, m). */
static size_t lower_bound(fzset *z, double score, const char *m, size_t mlen)
{
    size_t lo = 0, hi = z->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (zcmp(score, m, mlen, z->sorted[mid]) > 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void sorted_insert(fzset *z, fzmember *zm)
{
    if (z->len == z->cap) {
        z->cap = z->cap ? z->cap * 2 : 8;
        z->sorted = sim_xrealloc(z->sorted, z->cap * sizeof *z->sorted);
    }
    size_t pos = lower_bound(z, zm->score, zm->m, zm->mlen);
    memmove(&z->sorted[pos + 1], &z->sorted[pos], (z->len - pos) * sizeof *z->sorted);
    z->sorted[pos] = zm;
    z->len++;
}

static void sorted_remove(fzset *z, fzmember *zm)
{
    size_t pos = lower_bound(z, zm->score, zm->m, zm->mlen);
    sim_assert(pos < z->len && z->sorted[pos] == zm);
    memmove(&z->sorted[pos], &z->sorted[pos + 1], (z->len - pos - 1) * sizeof *z->sorted);
    z->len--;
}

static fzmember *zfind(fzset *z, const char *m, size_t mlen)
{
    fzmember *zm;
    HASH_FIND(hh, z->dict, m, mlen, zm);
    return zm;
}

/* A small Redis zset (a listpack) stores a score of -0 as 0. */
static double stored_score(double score)
{
    return score == 0 ? 0.0 : score;
}

static void zinsert(fzset *z, const char *m, size_t mlen, double score)
{
    fzmember *zm = sim_xcalloc(1, sizeof *zm + mlen + 1);
    memcpy(zm->m, m, mlen);
    zm->mlen = mlen;
    zm->score = stored_score(score);
    HASH_ADD(hh, z->dict, m[0], mlen, zm);
    sorted_insert(z, zm);
}

static void zdelete(fzset *z, fzmember *zm)
{
    sorted_remove(z, zm);
    HASH_DEL(z->dict, zm);
    sim_xfree(zm);
}

static void zrescore(fzset *z, fzmember *zm, double score)
{
    sorted_remove(z, zm);
    zm->score = stored_score(score);
    sorted_insert(z, zm);
}

void fz_free(fzset *z)
{
    if (z == NULL) return;
    fzmember *zm, *tmp;
    HASH_ITER(hh, z->dict, zm, tmp) {
        HASH_DEL(z->dict, zm);
        sim_xfree(zm);
    }
    sim_xfree(z->sorted);
    sim_xfree(z);
}

/* ----------------------------------------------------------------- ZADD */

#define ZIN_NX 1
#define ZIN_XX 2
#define ZIN_GT 4
#define ZIN_LT 8
#define ZIN_INCR 16

#define ZOUT_ADDED 1
#define ZOUT_UPDATED 2
#define ZOUT_NOP 4

/* Redis' zsetAdd: returns 0 when the resulting score would be NaN. */
static int zset_add(fzset *z, double score, const char *m, size_t mlen, int in,
                    int *out, double *newscore)
{
    *out = 0;
    if (isnan(score)) return 0;
    fzmember *zm = zfind(z, m, mlen);
    if (zm) {
        if (in & ZIN_NX) {
            *out |= ZOUT_NOP;
            return 1;
        }
        if (in & ZIN_INCR) {
            score += zm->score;
            if (isnan(score)) return 0;
        }
        if (((in & ZIN_LT) && score >= zm->score) ||
            ((in & ZIN_GT) && score <= zm->score)) {
            *out |= ZOUT_NOP;
            return 1;
        }
        *newscore = score;
        if (score != zm->score) {
            zrescore(z, zm, score);
            *out |= ZOUT_UPDATED;
        }
        return 1;
    }
    if (in & ZIN_XX) {
        *out |= ZOUT_NOP;
        return 1;
    }
    zinsert(z, m, mlen, score);
    *newscore = score;
    *out |= ZOUT_ADDED;
    return 1;
}

static void zadd_generic(fcmd *c, int in)
{
    int scoreidx = 2, ch = 0;
    if (!(in & ZIN_INCR)) {
        for (; scoreidx < c->argc; scoreidx++) {
            if (fu_arg_is(c, scoreidx, "nx")) in |= ZIN_NX;
            else if (fu_arg_is(c, scoreidx, "xx")) in |= ZIN_XX;
            else if (fu_arg_is(c, scoreidx, "ch")) ch = 1;
            else if (fu_arg_is(c, scoreidx, "incr")) in |= ZIN_INCR;
            else if (fu_arg_is(c, scoreidx, "gt")) in |= ZIN_GT;
            else if (fu_arg_is(c, scoreidx, "lt")) in |= ZIN_LT;
            else break;
        }
    }
    int elements = c->argc - scoreidx;
    if (elements % 2 || elements == 0) {
        fr_err(c, FERR_SYNTAX);
        return;
    }
    elements /= 2;
    if ((in & ZIN_XX) && (in & ZIN_NX)) {
        fr_err(c, "ERR XX and NX options at the same time are not compatible");
        return;
    }
    if (((in & ZIN_GT) && (in & ZIN_NX)) || ((in & ZIN_LT) && (in & ZIN_NX)) ||
        ((in & ZIN_GT) && (in & ZIN_LT))) {
        fr_err(c, "ERR GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if ((in & ZIN_INCR) && elements > 1) {
        fr_err(c, "ERR INCR option supports a single increment-element pair");
        return;
    }
    double *scores = sim_xmalloc((size_t)elements * sizeof *scores);
    for (int j = 0; j < elements; j++) {
        int a = scoreidx + 2 * j;
        if (!fu_str2d(c->argv[a], c->lens[a], &scores[j])) {
            fr_err(c, FERR_NOTFLOAT);
            goto cleanup;
        }
    }
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) goto cleanup;
    int64_t added = 0, updated = 0, processed = 0;
    double score = 0;
    if (e == NULL && !(in & ZIN_XX))
        e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_ZSET);
    for (int j = 0; e && j < elements; j++) {
        int a = scoreidx + 2 * j + 1, out;
        double newscore = scores[j];
        if (!zset_add(e->v.zset, scores[j], c->argv[a], c->lens[a], in, &out, &newscore)) {
            fr_err(c, "ERR resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (out & ZOUT_ADDED) added++;
        if (out & ZOUT_UPDATED) updated++;
        if (!(out & ZOUT_NOP)) processed++;
        score = newscore;
    }
    c->n->dirty += (uint64_t)(added + updated);
    if (in & ZIN_INCR) {
        if (processed) fr_double(c, score);
        else fr_nil(c);
    } else {
        fr_int(c, ch ? added + updated : added);
    }
cleanup:
    sim_xfree(scores);
}

void cmd_zadd(fcmd *c)
{
    zadd_generic(c, 0);
}

void cmd_zincrby(fcmd *c)
{
    zadd_generic(c, ZIN_INCR);
}

/* ------------------------------------------------------------- queries */

void cmd_zscore(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    fzmember *zm = e ? zfind(e->v.zset, c->argv[2], c->lens[2]) : NULL;
    if (zm) fr_double(c, zm->score);
    else fr_nil(c);
}

void cmd_zrem(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    int64_t deleted = 0;
    for (int j = 2; e && j < c->argc; j++) {
        fzmember *zm = zfind(e->v.zset, c->argv[j], c->lens[j]);
        if (zm == NULL) continue;
        zdelete(e->v.zset, zm);
        deleted++;
        if (e->v.zset->len == 0) {
            fk_delete(c->n, e);
            break;
        }
    }
    c->n->dirty += (uint64_t)deleted;
    fr_int(c, deleted);
}

void cmd_zcard(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    fr_int(c, e ? (int64_t)e->v.zset->len : 0);
}

/* --------------------------------------------------------------- ranges */

typedef struct zrangespec {
    double min, max;
    int minex, maxex;
} zrangespec;

/* Redis' zslParseRange on one bound: "(" makes it exclusive; strtod must
 * consume the rest (an empty rest parses as 0, as in Redis). */
static int parse_bound(fcmd *c, int i, double *v, int *ex)
{
    char buf[256];
    const char *s = fu_arg_cstr(c, i, buf, sizeof buf);
    char *end;
    *ex = 0;
    if (s[0] == '(') {
        s++;
        *ex = 1;
    }
    *v = strtod(s, &end);
    return end[0] == '\0' && !isnan(*v) && c->lens[i] < sizeof buf;
}

static int in_range(double v, const zrangespec *r)
{
    int ge_min = r->minex ? v > r->min : v >= r->min;
    int le_max = r->maxex ? v < r->max : v <= r->max;
    return ge_min && le_max;
}

static void emit_member(fcmd *c, const fzmember *zm, int withscores)
{
    fr_bulk(c, zm->m, zm->mlen);
    if (withscores) fr_double(c, zm->score);
}

static void range_by_rank(fcmd *c, fzset *z, long long start, long long end,
                          int withscores, int reverse)
{
    long long llen = (long long)z->len;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        fr_array(c, 0);
        return;
    }
    if (end >= llen) end = llen - 1;
    long long n = end - start + 1;
    fr_array(c, (size_t)n * (withscores ? 2 : 1));
    for (long long i = 0; i < n; i++) {
        long long rank = reverse ? llen - 1 - start - i : start + i;
        emit_member(c, z->sorted[rank], withscores);
    }
}

static void range_by_score(fcmd *c, fzset *z, const zrangespec *r, long long offset,
                           long long limit, int withscores, int reverse)
{
    /* Collect the matching ranks first: the reply length comes first. */
    size_t *picked = sim_xmalloc((z->len ? z->len : 1) * sizeof *picked);
    size_t npicked = 0;
    if (offset >= 0) {
        for (size_t k = 0; k < z->len; k++) {
            size_t rank = reverse ? z->len - 1 - k : k;
            if (!in_range(z->sorted[rank]->score, r)) continue;
            if (offset > 0) {
                offset--;
                continue;
            }
            if (limit == 0) break;
            picked[npicked++] = rank;
            if (limit > 0) limit--;
        }
    }
    fr_array(c, npicked * (withscores ? 2 : 1));
    for (size_t i = 0; i < npicked; i++) emit_member(c, z->sorted[picked[i]], withscores);
    sim_xfree(picked);
}

/* ZRANGE and ZRANGEBYSCORE (byscore_cmd), as Redis' zrangeGenericCommand. */
static void zrange_generic(fcmd *c, int byscore_cmd)
{
    int withscores = 0, reverse = 0, byscore = byscore_cmd, bylex = 0;
    long long offset = 0, limit = -1, start = 0, end = 0;
    for (int j = 4; j < c->argc; j++) {
        int left = c->argc - j - 1;
        if (fu_arg_is(c, j, "withscores")) {
            withscores = 1;
        } else if (fu_arg_is(c, j, "limit") && left >= 2) {
            if (fu_arg_ll(c, j + 1, &offset) != 0 || fu_arg_ll(c, j + 2, &limit) != 0)
                return;
            j += 2;
        } else if (!byscore_cmd && !reverse && fu_arg_is(c, j, "rev")) {
            reverse = 1;
        } else if (!byscore_cmd && !byscore && !bylex && fu_arg_is(c, j, "bylex")) {
            bylex = 1;
        } else if (!byscore_cmd && !byscore && !bylex && fu_arg_is(c, j, "byscore")) {
            byscore = 1;
        } else {
            fr_err(c, FERR_SYNTAX);
            return;
        }
    }
    if (limit != -1 && !byscore && !bylex) {
        fr_err(c, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && bylex) {
        fr_err(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    if (bylex) {
        fr_err(c, "ERR locksim: ZRANGE BYLEX is not supported by the fake");
        return;
    }
    int minidx = 2, maxidx = 3;
    if (reverse && byscore) {
        minidx = 3;
        maxidx = 2;
    }
    zrangespec r = {0, 0, 0, 0};
    if (byscore) {
        if (!parse_bound(c, minidx, &r.min, &r.minex) ||
            !parse_bound(c, maxidx, &r.max, &r.maxex)) {
            fr_err(c, "ERR min or max is not a float");
            return;
        }
    } else if (fu_arg_ll(c, 2, &start) != 0 || fu_arg_ll(c, 3, &end) != 0) {
        return;
    }
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    if (e == NULL) {
        fr_array(c, 0);
        return;
    }
    if (byscore) range_by_score(c, e->v.zset, &r, offset, limit, withscores, reverse);
    else range_by_rank(c, e->v.zset, start, end, withscores, reverse);
}

void cmd_zrange(fcmd *c)
{
    zrange_generic(c, 0);
}

void cmd_zrangebyscore(fcmd *c)
{
    zrange_generic(c, 1);
}

/* ZREMRANGEBYSCORE key min max, as Redis' zremrangeGenericCommand: the
 * range is read before the key (a bad bound is an error even for a
 * missing key); the members in it go, the key with the last of them. */
void cmd_zremrangebyscore(fcmd *c)
{
    zrangespec r = {0, 0, 0, 0};
    if (!parse_bound(c, 2, &r.min, &r.minex) || !parse_bound(c, 3, &r.max, &r.maxex)) {
        fr_err(c, "ERR min or max is not a float");
        return;
    }
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    int64_t deleted = 0;
    if (e != NULL) {
        fzset *z = e->v.zset;
        for (size_t k = z->len; k > 0; k--) {
            fzmember *zm = z->sorted[k - 1];
            if (!in_range(zm->score, &r)) continue;
            zdelete(z, zm);
            deleted++;
        }
        if (z->len == 0) fk_delete(c->n, e);
    }
    c->n->dirty += (uint64_t)deleted;
    fr_int(c, deleted);
}

/* ------------------------------------------------------------------ pops */

void fz_pop_reply(fcmd *c, fkey *e, int max, long count, int emitkey, const char *k, size_t klen)
{
    fzset *z = e->v.zset;
    if (count == -1) count = 1;
    size_t n = (size_t)count > z->len ? z->len : (size_t)count;
    fr_array(c, n * 2 + (emitkey ? 1 : 0));
    if (emitkey) fr_bulk(c, k, klen);
    for (size_t i = 0; i < n; i++) {
        fzmember *zm = z->sorted[max ? z->len - 1 : 0];
        emit_member(c, zm, 1);
        zdelete(z, zm);
    }
    c->n->dirty += (uint64_t)n;
    if (z->len == 0) fk_delete(c->n, e);
}

/* ZPOPMIN / ZPOPMAX key [count], as Redis' zpopMinMaxCommand: more than
 * one count is a syntax error, a count that is not a positive integer is
 * "out of range, must be positive", a
 * missing key or a count of 0 answers an empty array. */
static void zpop_generic(fcmd *c, int max)
{
    if (c->argc > 3) {
        fr_err(c, FERR_SYNTAX);
        return;
    }
    long long count = -1;
    if (c->argc == 3 && (!fake_str2ll(c->argv[2], c->lens[2], &count) || count < 0)) {
        fr_err(c, "ERR value is out of range, must be positive"); /* getPositiveLongFromObjectOrReply's */
        return;
    }
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_ZSET, &wrong);
    if (wrong) return;
    if (e == NULL || count == 0) {
        fr_array(c, 0);
        return;
    }
    fz_pop_reply(c, e, max, (long)count, 0, NULL, 0);
}

void cmd_zpopmin(fcmd *c)
{
    zpop_generic(c, 0);
}

void cmd_zpopmax(fcmd *c)
{
    zpop_generic(c, 1);
}
