/* t_keys.c — commands on keys of any type: DEL EXISTS EXPIRE PEXPIRE
 * EXPIREAT PEXPIREAT TTL PTTL PERSIST TYPE FLUSHALL, and PING ECHO.
 *
 * Expiry arithmetic follows Redis 7.0: relative times are added to the
 * node's time (frozen inside scripts); a deadline at or before now deletes
 * the key at once and still answers 1. */
#include <limits.h>
#include <string.h>

#include "sim/fake/fake_int.h"

void cmd_ping(fcmd *c)
{
    if (c->argc > 2) {
        fr_errf(c, "ERR wrong number of arguments for '%s' command", "ping");
        return;
    }
    if (c->conn && c->conn->nchannels > 0) {
        /* RESP2 subscribe mode answers PING with a "pong" message. */
        fr_array(c, 2);
        fr_cbulk(c, "pong");
        if (c->argc == 2) fr_bulk(c, c->argv[1], c->lens[1]);
        else fr_bulk(c, "", 0);
        return;
    }
    if (c->argc == 2) fr_bulk(c, c->argv[1], c->lens[1]);
    else fr_status(c, "PONG");
}

void cmd_echo(fcmd *c)
{
    fr_bulk(c, c->argv[1], c->lens[1]);
}

void cmd_del(fcmd *c)
{
    int64_t deleted = 0;
    for (int j = 1; j < c->argc; j++) {
        fkey *e = fk_lookup(c->n, c->argv[j], c->lens[j]);
        if (e) {
            fk_delete(c->n, e);
            deleted++;
            c->n->dirty++;
        }
    }
    fr_int(c, deleted);
}

void cmd_exists(fcmd *c)
{
    int64_t count = 0;
    for (int j = 1; j < c->argc; j++)
        if (fk_lookup(c->n, c->argv[j], c->lens[j])) count++;
    fr_int(c, count);
}

#define EXP_NX 1
#define EXP_XX 2
#define EXP_GT 4
#define EXP_LT 8

static int parse_expire_flags(fcmd *c, int *flags)
{
    for (int j = 3; j < c->argc; j++) {
        if (fu_arg_is(c, j, "nx")) *flags |= EXP_NX;
        else if (fu_arg_is(c, j, "xx")) *flags |= EXP_XX;
        else if (fu_arg_is(c, j, "gt")) *flags |= EXP_GT;
        else if (fu_arg_is(c, j, "lt")) *flags |= EXP_LT;
        else {
            char buf[256];
            fr_errf(c, "ERR Unsupported option %s", fu_arg_cstr(c, j, buf, sizeof buf));
            return -1;
        }
    }
    int f = *flags;
    if ((f & EXP_NX) && (f & (EXP_XX | EXP_GT | EXP_LT))) {
        fr_err(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((f & EXP_GT) && (f & EXP_LT)) {
        fr_err(c, "ERR GT and LT options at the same time are not compatible");
        return -1;
    }
    return 0;
}

/* EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: basetime is now for the relative
 * forms and 0 for the absolute ones. */
static void expire_generic(fcmd *c, long long basetime, int seconds,
                           const char *name)
{
    int flags = 0;
    long long when;
    if (parse_expire_flags(c, &flags) != 0) return;
    if (fu_arg_ll(c, 2, &when) != 0) return;
    if (seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) goto invalid;
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) goto invalid;
    when += basetime;

    fkey *e = fk_lookup(c->n, c->argv[1], c->lens[1]);
    if (e == NULL) {
        fr_int(c, 0);
        return;
    }
    long long cur = e->expire_ms;
    if (((flags & EXP_NX) && cur != -1) || ((flags & EXP_XX) && cur == -1) ||
        ((flags & EXP_GT) && (when <= cur || cur == -1)) ||
        ((flags & EXP_LT) && cur != -1 && when >= cur)) {
        fr_int(c, 0);
        return;
    }
    /* A deadline already past deletes the key, replicated as DEL; else it
     * replicates as PEXPIREAT with the absolute time (Redis 7). A replica
     * applying its master's stream only sets the time. */
    char abs[32];
    size_t alen = fk_replicating(c->n) ? fu_ll2str(abs, when) : 0;
    if (when <= fk_now_ms(c->n) && !c->n->replica && !c->n->applying) {
        const char *argv[] = {"DEL", c->argv[1]};
        size_t lens[] = {3, c->lens[1]};
        fk_propagate(c->n, 2, argv, lens);
        fk_delete(c->n, e);
    } else {
        const char *argv[] = {"PEXPIREAT", c->argv[1], abs};
        size_t lens[] = {9, c->lens[1], alen};
        fk_propagate(c->n, 3, argv, lens);
        fk_set_expire(c->n, e, when);
    }
    c->propagated = 1;
    c->n->dirty++;
    fr_int(c, 1);
    return;
invalid:
    fr_errf(c, "ERR invalid expire time in '%s' command", name);
}

void cmd_expire(fcmd *c)
{
    expire_generic(c, fk_now_ms(c->n), 1, "expire");
}

void cmd_pexpire(fcmd *c)
{
    expire_generic(c, fk_now_ms(c->n), 0, "pexpire");
}

void cmd_expireat(fcmd *c)
{
    expire_generic(c, 0, 1, "expireat");
}

void cmd_pexpireat(fcmd *c)
{
    expire_generic(c, 0, 0, "pexpireat");
}

static void ttl_generic(fcmd *c, int ms)
{
    fkey *e = fk_lookup(c->n, c->argv[1], c->lens[1]);
    if (e == NULL) {
        fr_int(c, -2);
        return;
    }
    if (e->expire_ms == -1) {
        fr_int(c, -1);
        return;
    }
    int64_t ttl = e->expire_ms - fk_now_ms(c->n);
    if (ttl < 0) ttl = 0;
    fr_int(c, ms ? ttl : (ttl + 500) / 1000);
}

void cmd_ttl(fcmd *c)
{
    ttl_generic(c, 0);
}

void cmd_pttl(fcmd *c)
{
    ttl_generic(c, 1);
}

void cmd_persist(fcmd *c)
{
    fkey *e = fk_lookup(c->n, c->argv[1], c->lens[1]);
    if (e == NULL || e->expire_ms == -1) {
        fr_int(c, 0);
        return;
    }
    e->expire_ms = -1;
    c->n->dirty++;
    fr_int(c, 1);
}

void cmd_type(fcmd *c)
{
    static const char *const names[] = {"string", "list", "hash", "zset", "set"};
    fkey *e = fk_lookup(c->n, c->argv[1], c->lens[1]);
    fr_status(c, e ? names[e->type] : "none");
}

void cmd_flushall(fcmd *c)
{
    if (c->argc > 2 || (c->argc == 2 && !fu_arg_is(c, 1, "sync") &&
                        !fu_arg_is(c, 1, "async"))) {
        fr_err(c, FERR_SYNTAX);
        return;
    }
    fk_flush(c->n);
    c->n->dirty++;
    fr_ok(c);
}
