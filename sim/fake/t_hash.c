/* t_hash.c — hash commands: HSET HSETNX HGET HMGET HEXISTS HINCRBY HDEL
 * HLEN HKEYS HVALS HGETALL. Fields keep insertion order (as a small Redis
 * hash does); an emptied hash is deleted, as in Redis. */
#include <limits.h>
#include <string.h>

#include "sim/fake/fake_int.h"

fhash_field *fh_find(fkey *e, const char *f, size_t flen)
{
    fhash_field *hf;
    HASH_FIND(hh, e->v.hash, f, flen, hf);
    return hf;
}

/* Sets field f to v; returns 1 if the field is new. */
static int fh_set(fkey *e, const char *f, size_t flen, const char *v, size_t vlen)
{
    fhash_field *hf = fh_find(e, f, flen);
    if (hf) {
        fstr_set(&hf->val, v, vlen);
        return 0;
    }
    hf = sim_xcalloc(1, sizeof *hf + flen + 1);
    memcpy(hf->f, f, flen);
    hf->flen = flen;
    fstr_set(&hf->val, v, vlen);
    HASH_ADD(hh, e->v.hash, f[0], flen, hf);
    return 1;
}

static void fh_del_field(fkey *e, fhash_field *hf)
{
    HASH_DEL(e->v.hash, hf);
    fstr_free(&hf->val);
    sim_xfree(hf);
}

void fh_free(fkey *e)
{
    fhash_field *hf, *tmp;
    HASH_ITER(hh, e->v.hash, hf, tmp) fh_del_field(e, hf);
}

/* The hash at argv[1] for writing, created when missing; NULL after a
 * WRONGTYPE reply. */
static fkey *lookup_write_or_create(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return NULL;
    if (e == NULL) e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_HASH);
    return e;
}

void cmd_hset(fcmd *c)
{
    if (c->argc % 2 == 1) {
        fr_errf(c, "ERR wrong number of arguments for '%s' command", "hset");
        return;
    }
    fkey *e = lookup_write_or_create(c);
    if (e == NULL) return;
    int64_t created = 0;
    for (int j = 2; j < c->argc; j += 2)
        created += fh_set(e, c->argv[j], c->lens[j], c->argv[j + 1], c->lens[j + 1]);
    c->n->dirty += (uint64_t)(c->argc - 2) / 2;
    fr_int(c, created);
}

void cmd_hsetnx(fcmd *c)
{
    fkey *e = lookup_write_or_create(c);
    if (e == NULL) return;
    if (fh_find(e, c->argv[2], c->lens[2])) {
        fr_int(c, 0);
        return;
    }
    fh_set(e, c->argv[2], c->lens[2], c->argv[3], c->lens[3]);
    c->n->dirty++;
    fr_int(c, 1);
}

void cmd_hget(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    fhash_field *hf = e ? fh_find(e, c->argv[2], c->lens[2]) : NULL;
    if (hf) fr_bulk(c, fstr_ptr(&hf->val), hf->val.len);
    else fr_nil(c);
}

void cmd_hmget(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    fr_array(c, (size_t)(c->argc - 2));
    for (int j = 2; j < c->argc; j++) {
        fhash_field *hf = e ? fh_find(e, c->argv[j], c->lens[j]) : NULL;
        if (hf) fr_bulk(c, fstr_ptr(&hf->val), hf->val.len);
        else fr_nil(c);
    }
}

void cmd_hexists(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    fr_int(c, e && fh_find(e, c->argv[2], c->lens[2]) ? 1 : 0);
}

void cmd_hincrby(fcmd *c)
{
    long long incr, value = 0;
    if (fu_arg_ll(c, 3, &incr) != 0) return;
    fkey *e = lookup_write_or_create(c);
    if (e == NULL) return;
    fhash_field *hf = fh_find(e, c->argv[2], c->lens[2]);
    if (hf && !fake_str2ll(fstr_ptr(&hf->val), hf->val.len, &value)) {
        fr_err(c, "ERR hash value is not an integer");
        return;
    }
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        fr_err(c, FERR_OVERFLOW);
        return;
    }
    value += incr;
    char buf[32];
    size_t len = fu_ll2str(buf, value);
    fh_set(e, c->argv[2], c->lens[2], buf, len);
    c->n->dirty++;
    fr_int(c, value);
}

void cmd_hdel(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    int64_t deleted = 0;
    if (e) {
        for (int j = 2; j < c->argc; j++) {
            fhash_field *hf = fh_find(e, c->argv[j], c->lens[j]);
            if (hf == NULL) continue;
            fh_del_field(e, hf);
            deleted++;
            if (e->v.hash == NULL) {
                fk_delete(c->n, e);
                break;
            }
        }
    }
    c->n->dirty += (uint64_t)deleted;
    fr_int(c, deleted);
}

void cmd_hlen(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    fr_int(c, e ? (int64_t)HASH_COUNT(e->v.hash) : 0);
}

#define EMIT_FIELDS 1
#define EMIT_VALUES 2

static void hash_getall(fcmd *c, int what)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_HASH, &wrong);
    if (wrong) return;
    size_t count = e ? HASH_COUNT(e->v.hash) : 0;
    fr_array(c, count * (what == (EMIT_FIELDS | EMIT_VALUES) ? 2 : 1));
    if (e == NULL) return;
    fhash_field *hf, *tmp;
    HASH_ITER(hh, e->v.hash, hf, tmp) {
        if (what & EMIT_FIELDS) fr_bulk(c, hf->f, hf->flen);
        if (what & EMIT_VALUES) fr_bulk(c, fstr_ptr(&hf->val), hf->val.len);
    }
}

void cmd_hkeys(fcmd *c)
{
    hash_getall(c, EMIT_FIELDS);
}

void cmd_hvals(fcmd *c)
{
    hash_getall(c, EMIT_VALUES);
}

void cmd_hgetall(fcmd *c)
{
    hash_getall(c, EMIT_FIELDS | EMIT_VALUES);
}
