/* keyspace.c — the node's keys: lookup with lazy expiry, creation and
 * deletion of typed values, expiry deadlines.
 *
 * Expiry follows Redis 7.0 exactly: a key with deadline `when` (absolute ms
 * on the node clock) still exists at node time == when (PTTL 0) and is gone
 * once node time > when. Inside a script the node time is the snapshot taken
 * when the script started, so a key cannot expire half-way through it. */
#include <string.h>

#include "sim/fake/fake_int.h"

int64_t fk_now_ms(const fake_node *n)
{
    if (n->frozen_ms >= 0) return n->frozen_ms;
    return sim_clock_now_ms(n->ctx, n->clock);
}

void fstr_set(fstr *s, const char *p, size_t len)
{
    /* p may point into s (its inline bytes or its block): copy, then free. */
    char *old = s->len >= FSTR_INLINE ? s->u.p : NULL;
    if (len < FSTR_INLINE) {
        if (len) memmove(s->u.small, p, len);
        s->u.small[len] = '\0';
    } else {
        char *q = sim_xmalloc(len + 1);
        memcpy(q, p, len);
        q[len] = '\0';
        s->u.p = q;
    }
    s->len = len;
    sim_xfree(old);
}

void fstr_free(fstr *s)
{
    if (s->len >= FSTR_INLINE) sim_xfree(s->u.p);
    memset(s, 0, sizeof *s);
}

static void free_value(fkey *e)
{
    switch (e->type) {
    case FOBJ_STRING: fstr_free(&e->v.str); break;
    case FOBJ_HASH:
    case FOBJ_SET: fh_free(e); break;
    case FOBJ_LIST: fl_free(e->v.list); break;
    case FOBJ_ZSET: fz_free(e->v.zset); break;
    }
}

fkey *fk_lookup(fake_node *n, const char *k, size_t klen)
{
    fkey *e = n->memo_key;
    if (e == NULL || n->memo_shape != n->shape || e->klen != klen || memcmp(e->k, k, klen) != 0) {
        HASH_FIND(hh, n->keys, k, klen, e);
        n->memo_key = e;
        n->memo_shape = n->shape;
    }
    if (e == NULL || e->expire_ms < 0 || n->applying) return e;
    if (fk_now_ms(n) <= e->expire_ms) return e;
    if (n->replica) return NULL; /* hidden; the master's DEL removes it */
    n->stats.expired++;
    const char *argv[] = {"DEL", e->k};
    size_t lens[] = {3, e->klen};
    fk_propagate(n, 2, argv, lens);
    fk_delete(n, e);
    return NULL;
}

fkey *fk_lookup_type(fcmd *c, int argi, fobj_type type, int *wrong)
{
    fkey *e = fk_lookup(c->n, c->argv[argi], c->lens[argi]);
    *wrong = 0;
    if (e && e->type != type) {
        fr_err(c, FERR_WRONGTYPE);
        *wrong = 1;
        return NULL;
    }
    return e;
}

fkey *fk_create(fake_node *n, const char *k, size_t klen, fobj_type type)
{
    fkey *e = sim_xcalloc(1, sizeof *e + klen + 1);
    memcpy(e->k, k, klen);
    e->klen = klen;
    e->expire_ms = -1;
    e->type = type;
    switch (type) {
    case FOBJ_STRING: fstr_set(&e->v.str, "", 0); break;
    case FOBJ_HASH:
    case FOBJ_SET: e->v.hash = NULL; break;
    case FOBJ_LIST: e->v.list = sim_xcalloc(1, sizeof(flist)); break;
    case FOBJ_ZSET: e->v.zset = sim_xcalloc(1, sizeof(fzset)); break;
    }
    HASH_ADD(hh, n->keys, k[0], klen, e);
    n->version++;
    n->shape++;
    if (n->blocking && (type == FOBJ_LIST || type == FOBJ_ZSET)) fk_signal_ready(n, e->k, klen);
    return e;
}

void fk_delete(fake_node *n, fkey *e)
{
    n->version++;
    n->shape++;
    HASH_DEL(n->keys, e);
    free_value(e);
    sim_xfree(e);
}

void fk_set_expire(fake_node *n, fkey *e, int64_t when_ms)
{
    n->version++;
    e->expire_ms = when_ms;
}

void fk_set_string(fkey *e, const char *v, size_t len)
{
    if (e->type != FOBJ_STRING) {
        free_value(e);
        memset(&e->v, 0, sizeof e->v);
        e->type = FOBJ_STRING;
    }
    fstr_set(&e->v.str, v, len);
}

void fk_flush(fake_node *n)
{
    fkey *e, *tmp;
    HASH_ITER(hh, n->keys, e, tmp) fk_delete(n, e);
}

void fk_free_all(fake_node *n)
{
    fk_flush(n);
}

/* ------------------------------------------------------------- observing */

static fkey *peek_live(fake_node *n, const char *k, size_t klen)
{
    fkey *e;
    HASH_FIND(hh, n->keys, k, klen, e);
    if (e && e->expire_ms >= 0 && fk_now_ms(n) > e->expire_ms) return NULL;
    if (e && n->watching && e->expire_ms >= 0 && (n->watch_min < 0 || e->expire_ms < n->watch_min))
        n->watch_min = e->expire_ms;
    return e;
}

uint64_t fake_node_version(const fake_node *n)
{
    return n->version;
}

void fake_node_watch(fake_node *n, int on)
{
    if (on) n->watch_min = -1;
    n->watching = on;
}

int64_t fake_node_watch_min(const fake_node *n)
{
    return n->watch_min;
}

int fake_node_peek(fake_node *n, const char *key, size_t klen, fake_peek *out)
{
    fkey *e = peek_live(n, key, klen);
    memset(out, 0, sizeof *out);
    if (e == NULL) return 0;
    out->type = (int)e->type;
    out->expire_ms = e->expire_ms;
    switch (e->type) {
    case FOBJ_STRING:
        out->str = fstr_ptr(&e->v.str);
        out->len = e->v.str.len;
        break;
    case FOBJ_HASH:
    case FOBJ_SET: out->count = HASH_COUNT(e->v.hash); break;
    case FOBJ_LIST: out->count = e->v.list->len; break;
    case FOBJ_ZSET: out->count = e->v.zset->len; break;
    }
    return 1;
}

int fake_node_peek_hash(fake_node *n, const char *key, size_t klen,
                        int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen),
                        void *ud)
{
    fkey *e = peek_live(n, key, klen);
    if (e == NULL || e->type != FOBJ_HASH) return 0;
    fhash_field *hf, *tmp;
    HASH_ITER(hh, e->v.hash, hf, tmp)
        if (!fn(ud, hf->f, hf->flen, fstr_ptr(&hf->val), hf->val.len)) break;
    return 1;
}

int fake_node_peek_list(fake_node *n, const char *key, size_t klen,
                        void (*fn)(void *ud, const char *v, size_t vlen), void *ud)
{
    fkey *e = peek_live(n, key, klen);
    if (e == NULL || e->type != FOBJ_LIST) return 0;
    const flist *l = e->v.list;
    for (size_t i = 0; i < l->len; i++) {
        const fstr *it = &l->items[(l->head + i) % l->cap];
        fn(ud, fstr_ptr(it), it->len);
    }
    return 1;
}

/* ------------------------------------------------------------ full sync */

static void copy_value(fkey *dst, const fkey *src)
{
    switch (src->type) {
    case FOBJ_STRING:
        fstr_set(&dst->v.str, fstr_ptr(&src->v.str), src->v.str.len);
        break;
    case FOBJ_HASH:
    case FOBJ_SET: {
        fhash_field *hf, *tmp;
        HASH_ITER(hh, src->v.hash, hf, tmp) {
            fhash_field *c = sim_xcalloc(1, sizeof *c + hf->flen + 1);
            memcpy(c->f, hf->f, hf->flen);
            c->flen = hf->flen;
            fstr_set(&c->val, fstr_ptr(&hf->val), hf->val.len);
            HASH_ADD(hh, dst->v.hash, f[0], c->flen, c);
        }
        break;
    }
    default:
        /* Lists and sorted sets are copied command by command below. */
        break;
    }
}

void fake_node_copy_data(fake_node *dst, fake_node *src)
{
    fk_flush(dst);
    fkey *e, *tmp;
    HASH_ITER(hh, src->keys, e, tmp) {
        if (e->type == FOBJ_STRING || e->type == FOBJ_HASH || e->type == FOBJ_SET) {
            fkey *d = fk_create(dst, e->k, e->klen, e->type);
            copy_value(d, e);
            d->expire_ms = e->expire_ms;
            continue;
        }
        /* Lists and sorted sets: rebuilt through their commands. */
        int saved = dst->applying;
        dst->applying = 1;
        if (e->type == FOBJ_LIST) {
            for (size_t i = 0; i < e->v.list->len; i++) {
                const fstr *it = &e->v.list->items[(e->v.list->head + i) % e->v.list->cap];
                const char *argv[] = {"RPUSH", e->k, fstr_ptr(it)};
                size_t lens[] = {5, e->klen, it->len};
                sim_reply_free(fake_exec(dst, NULL, 3, argv, lens));
            }
        } else {
            for (size_t i = 0; i < e->v.zset->len; i++) {
                const fzmember *m = e->v.zset->sorted[i];
                char score[64];
                size_t slen = fu_d2str(score, sizeof score, m->score);
                const char *argv[] = {"ZADD", e->k, score, m->m};
                size_t lens[] = {4, e->klen, slen, m->mlen};
                sim_reply_free(fake_exec(dst, NULL, 4, argv, lens));
            }
        }
        dst->applying = saved;
        fkey *d = fk_lookup(dst, e->k, e->klen);
        if (d) d->expire_ms = e->expire_ms;
    }
}
