/* t_string.c — string commands: GET SET SETNX GETSET MGET INCR DECR INCRBY
 * DECRBY STRLEN, with Redis 7.0's option grammar, checks and their order. */
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "sim/fake/fake_int.h"

void cmd_get(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_STRING, &wrong);
    if (wrong) return;
    if (e == NULL) fr_nil(c);
    else fr_bulk(c, fstr_ptr(&e->v.str), e->v.str.len);
}

#define SET_NX 1
#define SET_XX 2
#define SET_GET 4
#define SET_KEEPTTL 8
#define SET_EX 16
#define SET_PX 32
#define SET_EXAT 64
#define SET_PXAT 128
#define SET_ANY_EXPIRE (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

/* Adds with two's complement wrap-around, as Redis' signed overflow does. */
static long long wrap_add(long long a, long long b)
{
    return (long long)((unsigned long long)a + (unsigned long long)b);
}

/* The SET option grammar of Redis 7.0: note that a repeated EX (or NX)
 * is accepted, the last value winning, while EX with PX is an error. */
static int parse_set_options(fcmd *c, int *flags, int *expire_arg)
{
    for (int j = 3; j < c->argc; j++) {
        int has_next = j < c->argc - 1;
        int f = *flags;
        if (fu_arg_is(c, j, "nx") && !(f & SET_XX)) {
            *flags |= SET_NX;
        } else if (fu_arg_is(c, j, "xx") && !(f & SET_NX)) {
            *flags |= SET_XX;
        } else if (fu_arg_is(c, j, "get")) {
            *flags |= SET_GET;
        } else if (fu_arg_is(c, j, "keepttl") && !(f & SET_ANY_EXPIRE)) {
            *flags |= SET_KEEPTTL;
        } else if (fu_arg_is(c, j, "ex") && has_next &&
                   !(f & (SET_KEEPTTL | SET_EXAT | SET_PX | SET_PXAT))) {
            *flags |= SET_EX;
            *expire_arg = ++j;
        } else if (fu_arg_is(c, j, "px") && has_next &&
                   !(f & (SET_KEEPTTL | SET_EX | SET_EXAT | SET_PXAT))) {
            *flags |= SET_PX;
            *expire_arg = ++j;
        } else if (fu_arg_is(c, j, "exat") && has_next &&
                   !(f & (SET_KEEPTTL | SET_EX | SET_PX | SET_PXAT))) {
            *flags |= SET_EXAT;
            *expire_arg = ++j;
        } else if (fu_arg_is(c, j, "pxat") && has_next &&
                   !(f & (SET_KEEPTTL | SET_EX | SET_EXAT | SET_PX))) {
            *flags |= SET_PXAT;
            *expire_arg = ++j;
        } else {
            fr_err(c, FERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* The absolute deadline in ms for SET's expire option, or -1 after
 * replying with the error Redis gives. */
static int parse_set_expire(fcmd *c, int flags, int argi, long long *when)
{
    long long ms;
    int seconds = (flags & (SET_EX | SET_EXAT)) != 0;
    if (fu_arg_ll(c, argi, &ms) != 0) return -1;
    if (ms <= 0 || (seconds && ms > LLONG_MAX / 1000)) goto invalid;
    if (seconds) ms *= 1000;
    if (flags & (SET_EX | SET_PX)) ms = wrap_add(ms, fk_now_ms(c->n));
    if (ms <= 0) goto invalid;
    *when = ms;
    return 0;
invalid:
    fr_err(c, "ERR invalid expire time in 'set' command");
    return -1;
}

void cmd_set(fcmd *c)
{
    int flags = 0, expire_arg = 0;
    long long when = -1;
    if (parse_set_options(c, &flags, &expire_arg) != 0) return;
    if (expire_arg && parse_set_expire(c, flags, expire_arg, &when) != 0) return;
    fkey *e = fk_lookup(c->n, c->argv[1], c->lens[1]);
    if (flags & SET_GET) {
        if (e && e->type != FOBJ_STRING) {
            fr_err(c, FERR_WRONGTYPE);
            return;
        }
        if (e) fr_bulk(c, fstr_ptr(&e->v.str), e->v.str.len);
        else fr_nil(c);
    }
    if (((flags & SET_NX) && e) || ((flags & SET_XX) && !e)) {
        if (!(flags & SET_GET)) fr_nil(c);
        return;
    }
    if (e == NULL) e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_STRING);
    fk_set_string(e, c->argv[2], c->lens[2]);
    if (!(flags & SET_KEEPTTL)) e->expire_ms = -1;
    if (when >= 0) fk_set_expire(c->n, e, when);
    c->n->dirty++;
    /* Replicated as SET key value [PXAT abs | KEEPTTL]: absolute time. */
    char abs[32];
    const char *argv[5] = {"SET", c->argv[1], c->argv[2], NULL, NULL};
    size_t lens[5] = {3, c->lens[1], c->lens[2], 0, 0};
    int argc = 3;
    if (when >= 0) {
        argv[3] = "PXAT";
        lens[3] = 4;
        lens[4] = fk_replicating(c->n) ? fu_ll2str(abs, when) : 0;
        argv[4] = abs;
        argc = 5;
    } else if (flags & SET_KEEPTTL) {
        argv[3] = "KEEPTTL";
        lens[3] = 7;
        argc = 4;
    }
    fk_propagate(c->n, argc, argv, lens);
    c->propagated = 1;
    if (!(flags & SET_GET)) fr_ok(c);
}

void cmd_setnx(fcmd *c)
{
    if (fk_lookup(c->n, c->argv[1], c->lens[1])) {
        fr_int(c, 0);
        return;
    }
    fkey *e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_STRING);
    fk_set_string(e, c->argv[2], c->lens[2]);
    c->n->dirty++;
    fr_int(c, 1);
}

void cmd_mget(fcmd *c)
{
    fr_array(c, (size_t)(c->argc - 1));
    for (int j = 1; j < c->argc; j++) {
        fkey *e = fk_lookup(c->n, c->argv[j], c->lens[j]);
        if (e == NULL || e->type != FOBJ_STRING) fr_nil(c);
        else fr_bulk(c, fstr_ptr(&e->v.str), e->v.str.len);
    }
}

static void incr_decr(fcmd *c, long long incr)
{
    int wrong;
    long long value = 0;
    fkey *e = fk_lookup_type(c, 1, FOBJ_STRING, &wrong);
    if (wrong) return;
    if (e && !fake_str2ll(fstr_ptr(&e->v.str), e->v.str.len, &value)) {
        fr_err(c, FERR_NOTINT);
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
    if (e == NULL) e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_STRING);
    fk_set_string(e, buf, len);
    c->n->dirty++;
    fr_int(c, value);
}

void cmd_incr(fcmd *c)
{
    incr_decr(c, 1);
}

void cmd_decr(fcmd *c)
{
    incr_decr(c, -1);
}

void cmd_incrby(fcmd *c)
{
    long long incr;
    if (fu_arg_ll(c, 2, &incr) != 0) return;
    incr_decr(c, incr);
}

void cmd_decrby(fcmd *c)
{
    long long incr;
    if (fu_arg_ll(c, 2, &incr) != 0) return;
    if (incr == LLONG_MIN) {
        fr_err(c, "ERR decrement would overflow");
        return;
    }
    incr_decr(c, -incr);
}

void cmd_strlen(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_STRING, &wrong);
    if (wrong) return;
    fr_int(c, e ? (int64_t)e->v.str.len : 0);
}

/* GETSET key value, as Redis 7.0's getsetCommand: the old value (nil for
 * none, WRONGTYPE for a key of another type, which is left alone), then
 * the new one with no expiry; replicated as SET key value. */
void cmd_getset(fcmd *c)
{
    int wrong;
    fkey *e = fk_lookup_type(c, 1, FOBJ_STRING, &wrong);
    if (wrong) return;
    if (e == NULL) {
        fr_nil(c);
        e = fk_create(c->n, c->argv[1], c->lens[1], FOBJ_STRING);
    } else {
        fr_bulk(c, fstr_ptr(&e->v.str), e->v.str.len);
    }
    fk_set_string(e, c->argv[2], c->lens[2]);
    if (e->expire_ms >= 0) fk_set_expire(c->n, e, -1);
    c->n->dirty++;
    const char *argv[3] = {"SET", c->argv[1], c->argv[2]};
    size_t lens[3] = {3, c->lens[1], c->lens[2]};
    fk_propagate(c->n, 3, argv, lens);
    c->propagated = 1;
}
