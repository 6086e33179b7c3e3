/* t_list.c — list commands: RPUSH LPUSH LPOP RPOP LINDEX LREM LRANGE LLEN
 * LMOVE RPOPLPUSH, and the list moves the blocking commands share
 * (blocking.c).
 * A list is a ring buffer of strings; an emptied list is deleted. Argument
 * checks come in the order Redis 7.0 makes them (some before the key lookup,
 * some after), since that order decides which error a client sees. */
#include <limits.h>
#include <string.h>

#include "sim/fake/fake_int.h"

static fstr *at(flist *l, size_t i)
{
    return &l->items[(l->head + i) % l->cap];
}

static void grow(flist *l)
{
    size_t ncap = l->cap ? l->cap * 2 : 8;
    fstr *items = sim_xcalloc(ncap, sizeof *items);
    for (size_t i = 0; i < l->len; i++) items[i] = *at(l, i);
    sim_xfree(l->items);
    l->items = items;
    l->cap = ncap;
    l->head = 0;
}

static void push(flist *l, const char *p, size_t len, int left)
{
    if (l->len == l->cap) grow(l);
    fstr *slot;
    if (left) {
        l->head = (l->head + l->cap - 1) % l->cap;
        slot = at(l, 0);
    } else {
        slot = at(l, l->len);
    }
    *slot = (fstr){0};
    fstr_set(slot, p, len);
    l->len++;
}

/* Removes the element at index i, shifting the shorter side. */
static void remove_at(flist *l, size_t i)
{
    fstr_free(at(l, i));
    if (i < l->len / 2) {
        for (size_t j = i; j > 0; j--) *at(l, j) = *at(l, j - 1);
        l->head = (l->head + 1) % l->cap;
    } else {
        for (size_t j = i; j + 1 < l->len; j++) *at(l, j) = *at(l, j + 1);
    }
    l->len--;
}

void fl_free(flist *l)
{
    if (l == NULL) return;
    for (size_t i = 0; i < l->len; i++) fstr_free(at(l, i));
    sim_xfree(l->items);
    sim_xfree(l);
}

static void push_generic(fcmd *c, int left)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (e == NULL) e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_LIST);
    for (int j = 2; j < c->argc; j++) push(e->v.list, c->argv[j], c->lens[j], left);
    c->n->dirty += (uint64_t)(c->argc - 2);
    fr_int(c, (int64_t)e->v.list->len);
}

void cmd_rpush(fcmd *c)
{
    push_generic(c, 0);
}

void cmd_lpush(fcmd *c)
{
    push_generic(c, 1);
}

static void delete_if_empty(fcmd *c, fkey *e)
{
    if (e->v.list->len == 0) fk_delete(c->n, e);
}

static void pop_generic(fcmd *c, int left)
{
    long long count = 0;
    int hascount = c->argc == 3;
    if (c->argc > 3) {
        fr_errf(c, "ERR wrong number of arguments for '%s' command", left ? "lpop" : "rpop");
        return;
    }
    if (hascount && (!fake_str2ll(c->argv[2], c->lens[2], &count) || count < 0)) {
        fr_err(c, "ERR value is out of range, must be positive");
        return;
    }
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (e == NULL) {
        if (hascount) fr_nilarray(c);
        else fr_nil(c);
        return;
    }
    flist *l = e->v.list;
    if (hascount && count == 0) {
        fr_array(c, 0);
        return;
    }
    size_t n = hascount ? ((size_t)count > l->len ? l->len : (size_t)count) : 1;
    if (hascount) fr_array(c, n);
    for (size_t i = 0; i < n; i++) {
        size_t idx = left ? 0 : l->len - 1;
        fstr *s = at(l, idx);
        fr_bulk(c, fstr_ptr(s), s->len);
        remove_at(l, idx);
    }
    c->n->dirty++;
    delete_if_empty(c, e);
}

void cmd_lpop(fcmd *c)
{
    pop_generic(c, 1);
}

void cmd_rpop(fcmd *c)
{
    pop_generic(c, 0);
}

void cmd_lindex(fcmd *c)
{
    int wrong;
    long long index;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (e == NULL) {
        fr_nil(c);
        return;
    }
    if (fu_arg_ll(c, 2, &index) != 0) return;
    flist *l = e->v.list;
    if (index < 0) index += (long long)l->len;
    if (index < 0 || index >= (long long)l->len) {
        fr_nil(c);
        return;
    }
    fstr *s = at(l, (size_t)index);
    fr_bulk(c, fstr_ptr(s), s->len);
}

void cmd_lrem(fcmd *c)
{
    long long toremove;
    if (fu_arg_ll(c, 2, &toremove) != 0) return;
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (e == NULL) {
        fr_int(c, 0);
        return;
    }
    flist *l = e->v.list;
    const char *v = c->argv[3];
    size_t vlen = c->lens[3];
    int64_t removed = 0;
    if (toremove >= 0) {
        for (size_t i = 0; i < l->len;) {
            fstr *s = at(l, i);
            if (s->len == vlen && memcmp(fstr_ptr(s), v, vlen) == 0) {
                remove_at(l, i);
                removed++;
                if (toremove && removed == toremove) break;
            } else {
                i++;
            }
        }
    } else {
        for (size_t i = l->len; i > 0; i--) {
            fstr *s = at(l, i - 1);
            if (s->len == vlen && memcmp(fstr_ptr(s), v, vlen) == 0) {
                remove_at(l, i - 1);
                removed++;
                if ((uint64_t)removed == 0 - (uint64_t)toremove) break; /* LLONG_MIN: never, all go */
            }
        }
    }
    if (removed) c->n->dirty += (uint64_t)removed;
    delete_if_empty(c, e);
    fr_int(c, removed);
}

void cmd_lrange(fcmd *c)
{
    long long start, end;
    if (fu_arg_ll(c, 2, &start) != 0 || fu_arg_ll(c, 3, &end) != 0) return;
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (e == NULL) {
        fr_array(c, 0);
        return;
    }
    flist *l = e->v.list;
    long long llen = (long long)l->len;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        fr_array(c, 0);
        return;
    }
    if (end >= llen) end = llen - 1;
    fr_array(c, (size_t)(end - start + 1));
    for (long long i = start; i <= end; i++) {
        fstr *s = at(l, (size_t)i);
        fr_bulk(c, fstr_ptr(s), s->len);
    }
}

void cmd_llen(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    fr_int(c, e ? (int64_t)e->v.list->len : 0);
}

/* "left" / "right", as Redis' getListPositionFromObjectOrReply: 1 for
 * the head, 0 for the tail, -1 after a syntax error. */
int fl_position(fcmd *c, int i)
{
    if (fu_arg_is(c, i, "left")) return 1;
    if (fu_arg_is(c, i, "right")) return 0;
    fr_err(c, FERR_SYNTAX);
    return -1;
}

void fl_pop_reply(fcmd *c, fkey *e, int left, int with_key, const char *k, size_t klen)
{
    flist *l = e->v.list;
    sim_assert(l->len > 0);
    size_t idx = left ? 0 : l->len - 1;
    fstr *s = at(l, idx);
    if (with_key) {
        fr_array(c, 2);
        fr_bulk(c, k, klen);
    }
    fr_bulk(c, fstr_ptr(s), s->len);
    remove_at(l, idx);
    c->n->dirty++;
    delete_if_empty(c, e);
}

void fl_move(fcmd *c, fkey *src, const char *dk, size_t dklen, fkey *dst, int left_from, int left_to)
{
    flist *l = src->v.list;
    sim_assert(l->len > 0 && (dst == NULL || dst->type == FOBJ_LIST));
    size_t idx = left_from ? 0 : l->len - 1;
    fstr v = {0};
    fstr_set(&v, fstr_ptr(at(l, idx)), at(l, idx)->len);
    remove_at(l, idx);
    /* The destination is pushed to before the source goes: a rotation of
     * one list (source = destination) keeps it. */
    if (dst == NULL) dst = fk_create(c->n, dk, dklen, FOBJ_LIST);
    push(dst->v.list, fstr_ptr(&v), v.len, left_to);
    c->n->dirty++;
    fr_bulk(c, fstr_ptr(&v), v.len);
    fstr_free(&v);
    delete_if_empty(c, src);
}

/* LMOVE / RPOPLPUSH, as Redis' lmoveGenericCommand: a missing or empty
 * source answers nil before the destination is looked at; a destination
 * of another type is WRONGTYPE and moves nothing. */
static void lmove_generic(fcmd *c, int left_from, int left_to)
{
    int wrong;
    fkey *src = fk_lookup_type(c, 1, FOBJ_LIST, &wrong);
    if (wrong) return;
    if (src == NULL) {
        fr_nil(c);
        return;
    }
    fkey *dst = fk_lookup_type(c, 2, FOBJ_LIST, &wrong);
    if (wrong) return;
    fl_move(c, src, c->argv[2], c->lens[2], dst, left_from, left_to);
}

void cmd_lmove(fcmd *c)
{
    int from = fl_position(c, 3);
    if (from < 0) return;
    int to = fl_position(c, 4);
    if (to < 0) return;
    lmove_generic(c, from, to);
}

void cmd_rpoplpush(fcmd *c)
{
    lmove_generic(c, 0, 1);
}
