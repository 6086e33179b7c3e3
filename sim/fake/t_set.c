/* t_set.c — set commands: SADD SREM SCARD SISMEMBER SMEMBERS. A set keeps
 * its members as a hash keeps its fields (empty values), so it is walked
 * in insertion order: SMEMBERS' order is Redis' intset or dict order, which
 * no client may rely on (conform compares it as a set). An emptied set is
 * deleted. */
#include <string.h>

#include "sim/fake/fake_int.h"

void cmd_sadd(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_SET, &wrong);
    if (wrong) return;
    if (e == NULL) e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_SET);
    int64_t added = 0;
    for (int j = 2; j < c->argc; j++) {
        if (fh_find(e, c->argv[j], c->lens[j])) continue;
        fhash_field *m = sim_xcalloc(1, sizeof *m + c->lens[j] + 1);
        memcpy(m->f, c->argv[j], c->lens[j]);
        m->flen = c->lens[j];
        HASH_ADD(hh, e->v.hash, f[0], m->flen, m);
        added++;
    }
    c->n->dirty += (uint64_t)added;
    fr_int(c, added);
}

void cmd_srem(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_SET, &wrong);
    if (wrong) return;
    int64_t removed = 0;
    for (int j = 2; e && j < c->argc; j++) {
        fhash_field *m = fh_find(e, c->argv[j], c->lens[j]);
        if (m == NULL) continue;
        HASH_DEL(e->v.hash, m);
        fstr_free(&m->val);
        sim_xfree(m);
        removed++;
        if (e->v.hash == NULL) {
            fk_delete(c->n, e);
            break;
        }
    }
    c->n->dirty += (uint64_t)removed;
    fr_int(c, removed);
}

void cmd_scard(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_SET, &wrong);
    if (wrong) return;
    fr_int(c, e ? (int64_t)HASH_COUNT(e->v.hash) : 0);
}

void cmd_sismember(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_SET, &wrong);
    if (wrong) return;
    fr_int(c, e && fh_find(e, c->argv[2], c->lens[2]) ? 1 : 0);
}

void cmd_smembers(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_SET, &wrong);
    if (wrong) return;
    fr_array(c, e ? HASH_COUNT(e->v.hash) : 0);
    if (e == NULL) return;
    fhash_field *m, *tmp;
    HASH_ITER(hh, e->v.hash, m, tmp) fr_bulk(c, m->f, m->flen);
}
