/* cmdtable.c — the fake node's command table and the checks Redis makes
 * before running a command for a client: known command, arity, the
 * subscribe-mode restriction. (Scripts make their own checks, with their
 * own texts, in lua_host.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/fake/fake_int.h"

#define W FCMD_WRITE
#define NS FCMD_NOSCRIPT
#define PS FCMD_PUBSUB

/* The commands the fake implements (Redis 7.0 names, arities, flags). */
static const fake_cmd commands[] = {
    {"blmove", 6, W, cmd_blmove},
    {"blpop", -3, W, cmd_blpop},
    {"brpop", -3, W, cmd_brpop},
    {"brpoplpush", 4, W, cmd_brpoplpush},
    {"bzpopmax", -3, W, cmd_bzpopmax},
    {"bzpopmin", -3, W, cmd_bzpopmin},
    {"decr", 2, W, cmd_decr},
    {"decrby", 3, W, cmd_decrby},
    {"del", -2, W, cmd_del},
    {"echo", 2, 0, cmd_echo},
    {"eval", -3, NS, cmd_eval},
    {"evalsha", -3, NS, cmd_evalsha},
    {"exists", -2, 0, cmd_exists},
    {"expire", -3, W, cmd_expire},
    {"expireat", -3, W, cmd_expireat},
    {"flushall", -1, W, cmd_flushall},
    {"get", 2, 0, cmd_get},
    {"getset", 3, W, cmd_getset},
    {"hdel", -3, W, cmd_hdel},
    {"hexists", 3, 0, cmd_hexists},
    {"hget", 3, 0, cmd_hget},
    {"hgetall", 2, 0, cmd_hgetall},
    {"hincrby", 4, W, cmd_hincrby},
    {"hkeys", 2, 0, cmd_hkeys},
    {"hlen", 2, 0, cmd_hlen},
    {"hmget", -3, 0, cmd_hmget},
    {"hset", -4, W, cmd_hset},
    {"hsetnx", 4, W, cmd_hsetnx},
    {"hvals", 2, 0, cmd_hvals},
    {"incr", 2, W, cmd_incr},
    {"incrby", 3, W, cmd_incrby},
    {"lindex", 3, 0, cmd_lindex},
    {"llen", 2, 0, cmd_llen},
    {"lmove", 5, W, cmd_lmove},
    {"lpop", -2, W, cmd_lpop},
    {"lpush", -3, W, cmd_lpush},
    {"lrange", 4, 0, cmd_lrange},
    {"lrem", 4, W, cmd_lrem},
    {"mget", -2, 0, cmd_mget},
    {"persist", 2, W, cmd_persist},
    {"pexpire", -3, W, cmd_pexpire},
    {"pexpireat", -3, W, cmd_pexpireat},
    {"ping", -1, PS, cmd_ping},
    {"pttl", 2, 0, cmd_pttl},
    {"publish", 3, 0, cmd_publish},
    {"rpop", -2, W, cmd_rpop},
    {"rpoplpush", 3, W, cmd_rpoplpush},
    {"rpush", -3, W, cmd_rpush},
    {"sadd", -3, W, cmd_sadd},
    {"scard", 2, 0, cmd_scard},
    {"script", -2, NS | FCMD_CONTAINER, cmd_script},
    {"set", -3, W, cmd_set},
    {"setnx", 3, W, cmd_setnx},
    {"sismember", 3, 0, cmd_sismember},
    {"smembers", 2, 0, cmd_smembers},
    {"srem", -3, W, cmd_srem},
    {"strlen", 2, 0, cmd_strlen},
    {"subscribe", -2, NS | PS, cmd_subscribe},
    {"ttl", 2, 0, cmd_ttl},
    {"type", 2, 0, cmd_type},
    {"unlink", -2, W, cmd_del}, /* DEL whose memory is freed later: the same reply */
    {"unsubscribe", -1, NS | PS, cmd_unsubscribe},
    {"wait", 3, NS, cmd_wait},
    {"zadd", -4, W, cmd_zadd},
    {"zcard", 2, 0, cmd_zcard},
    {"zincrby", 4, W, cmd_zincrby},
    {"zpopmax", -2, W, cmd_zpopmax},
    {"zpopmin", -2, W, cmd_zpopmin},
    {"zrange", -4, 0, cmd_zrange},
    {"zrangebyscore", -4, 0, cmd_zrangebyscore},
    {"zrem", -3, W, cmd_zrem},
    {"zremrangebyscore", 4, W, cmd_zremrangebyscore},
    {"zscore", 3, 0, cmd_zscore},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* Command names, lower-cased and packed big-endian into two words, so a
 * lookup is a hash probe and two integer compares (no strcmp). */
typedef struct packed_name {
    uint64_t hi, lo;
} packed_name;

static int pack_name(const char *name, size_t len, packed_name *out)
{
    uint64_t w[2] = {0, 0};
    if (len == 0 || len > 16) return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned ch = (unsigned char)name[i];
        if (ch == 0) return 0;
        ch |= (unsigned)(ch - 'A' < 26u) << 5; /* ASCII lower case */
        w[i >> 3] |= (uint64_t)ch << (56 - 8 * (i & 7));
    }
    out->hi = w[0];
    out->lo = w[1];
    return 1;
}

#define CMD_SLOTS 256 /* power of two, > 2 * NCOMMANDS */

static unsigned slot_of(const packed_name *p)
{
    uint64_t h = (p->hi ^ (p->lo * UINT64_C(0x9e3779b97f4a7c15))) * UINT64_C(0xff51afd7ed558ccd);
    return (unsigned)(h >> 56) & (CMD_SLOTS - 1);
}

/* The probe table, built on first use from the static command list. It
 * is a pure function of that constant list, so building it twice (two
 * threads racing) writes the same bytes; no run can observe it. */
typedef struct cmd_slot {
    packed_name key;
    const fake_cmd *cmd;
} cmd_slot;

static const cmd_slot *table(void)
{
    static cmd_slot slots[CMD_SLOTS];
    static int built;
    if (!built) {
        for (size_t i = 0; i < NCOMMANDS; i++) {
            packed_name p;
            sim_assert(pack_name(commands[i].name, strlen(commands[i].name), &p));
            unsigned k = slot_of(&p);
            while (slots[k].cmd) k = (k + 1) & (CMD_SLOTS - 1);
            slots[k].key = p;
            slots[k].cmd = &commands[i];
        }
        built = 1;
    }
    return slots;
}

const fake_cmd *fake_cmd_lookup(const char *name, size_t len)
{
    packed_name p;
    if (!pack_name(name, len, &p)) return NULL;
    const cmd_slot *slots = table();
    for (unsigned k = slot_of(&p);; k = (k + 1) & (CMD_SLOTS - 1)) {
        if (slots[k].cmd == NULL) return NULL;
        if (slots[k].key.hi == p.hi && slots[k].key.lo == p.lo) return slots[k].cmd;
    }
}

const fake_cmd *fk_cmd_find(fake_node *n, const char *name, size_t len)
{
    if (len == 0 || len > FK_CMD_CACHE_NAME) return fake_cmd_lookup(name, len);
    unsigned k = (unsigned)(len * 31u + ((unsigned char)name[0] | 32u) + ((unsigned char)name[len - 1] | 32u) * 7u) &
                 (FK_CMD_CACHE - 1);
    fk_cmd_memo *m = &n->cmd_memo[k];
    if (m->len == len && memcmp(m->name, name, len) == 0) return m->cmd;
    const fake_cmd *cmd = fake_cmd_lookup(name, len);
    m->len = len;
    memcpy(m->name, name, len);
    m->cmd = cmd;
    return cmd;
}

/* "%.*s" semantics: at most max bytes, stopping at a NUL. */
static size_t cstr_prefix(const char *s, size_t len, size_t max)
{
    size_t n = 0;
    while (n < len && n < max && s[n] != '\0') n++;
    return n;
}

static void reply_unknown(fcmd *c)
{
    char args[512];
    size_t alen = 0;
    for (int i = 1; i < c->argc && alen < 128; i++) {
        size_t n = cstr_prefix(c->argv[i], c->lens[i], 128 - alen);
        args[alen++] = '\'';
        memcpy(args + alen, c->argv[i], n);
        alen += n;
        args[alen++] = '\'';
        args[alen++] = ' ';
    }
    args[alen] = '\0';
    size_t nlen = cstr_prefix(c->argv[0], c->lens[0], 128);
    fr_errf(c, "ERR unknown command '%.*s', with args beginning with: %s",
            (int)nlen, c->argv[0], args);
}

static int arity_ok(const fake_cmd *cmd, int argc)
{
    return cmd->arity > 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

void fake_dispatch(fcmd *c)
{
    const fake_cmd *cmd = fk_cmd_find(c->n, c->argv[0], c->lens[0]);
    if (cmd == NULL) {
        reply_unknown(c);
        return;
    }
    if (!arity_ok(cmd, c->argc)) {
        fr_errf(c, "ERR wrong number of arguments for '%s' command", cmd->name);
        return;
    }
    if (c->conn && c->conn->nchannels > 0 && !(cmd->flags & FCMD_PUBSUB)) {
        fr_errf(c, "ERR Can't execute '%s': only (P|S)SUBSCRIBE / "
                   "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
                cmd->name);
        return;
    }
    if (c->n->busy && !c->n->applying && !(c->argc == 2 && fu_arg_is(c, 0, "script") && fu_arg_is(c, 1, "kill"))) {
        fr_err(c, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
        return;
    }
    if ((cmd->flags & FCMD_WRITE) && c->n->replica && !c->n->applying) {
        fr_err(c, "READONLY You can't write against a read only replica.");
        return;
    }
    c->cmd = cmd;
    c->n->stats.commands++;
    uint64_t dirty = c->n->dirty;
    cmd->fn(c);
    fk_propagate_cmd(c, dirty);
}

/* Script-side checks, in Redis 7.0's order and wording; 0 when cmd may
 * run, else an error reply has been written. */
int fake_script_check(fcmd *c, const fake_cmd *cmd)
{
    if (cmd == NULL) {
        fr_err(c, "ERR Unknown Redis command called from script");
        return -1;
    }
    if (!arity_ok(cmd, c->argc)) {
        fr_err(c, "ERR Wrong number of args calling Redis command from script");
        return -1;
    }
    if (cmd->flags & FCMD_NOSCRIPT) {
        fr_err(c, "ERR This Redis command is not allowed from script");
        return -1;
    }
    if ((cmd->flags & FCMD_WRITE) && c->n->replica && !c->n->applying) {
        fr_err(c, "READONLY You can't write against a read only replica.");
        return -1;
    }
    return 0;
}
