/* fake_int.h — the fake node's insides, shared by the files of sim/fake only: value
 * types, the keyspace, the reply sink, the command table and the Lua host.
 *
 * Every table is a uthash, so iteration follows insertion order, never
 * bucket or pointer order (determinism). */
#ifndef LOCKSIM_FAKE_INT_H
#define LOCKSIM_FAKE_INT_H

#include <lua.h>
#include "sim/kernel/ut.h"

#include "sim/fake/fake.h"

/* ------------------------------------------------------------- values */

/* A byte string, NUL-terminated after len bytes. Short ones (most values
 * of a lock: counters, tokens, "0") live inline, with no allocation of
 * their own; read the bytes with fstr_ptr. A zeroed fstr is "". */
#define FSTR_INLINE 16
typedef struct fstr {
    size_t len;
    union {
        char *p;                   /* len >= FSTR_INLINE: owned */
        char small[FSTR_INLINE];   /* len < FSTR_INLINE */
    } u;
} fstr;

static inline const char *fstr_ptr(const fstr *s)
{
    return s->len < FSTR_INLINE ? s->u.small : s->u.p;
}

typedef enum fobj_type { FOBJ_STRING, FOBJ_LIST, FOBJ_HASH, FOBJ_ZSET, FOBJ_SET } fobj_type;

typedef struct fhash_field {
    UT_hash_handle hh;
    fstr val;
    size_t flen;
    char f[]; /* field name, NUL-terminated */
} fhash_field;

typedef struct flist {
    fstr *items; /* ring buffer */
    size_t head, len, cap;
} flist;

typedef struct fzmember {
    UT_hash_handle hh;
    double score;
    size_t mlen;
    char m[];
} fzmember;

/* Members by name (dict) and in (score, member) order (sorted). */
typedef struct fzset {
    fzmember *dict;
    fzmember **sorted;
    size_t len, cap;
} fzset;

typedef struct fkey {
    UT_hash_handle hh;
    int64_t expire_ms; /* absolute, node clock; -1 = no expiry */
    fobj_type type;
    union {
        fstr str;
        fhash_field *hash; /* uthash head (a set's members too: empty values) */
        flist *list;
        fzset *zset;
    } v;
    size_t klen;
    char k[];
} fkey;

/* ------------------------------------------------------------ pub/sub */

typedef struct fchannel {
    UT_hash_handle hh;
    fake_conn **subs; /* in subscription order */
    size_t nsubs, cap;
    size_t clen;
    char c[];
} fchannel;

typedef struct fblock fblock;     /* blocking.c: a client blocked in BLPOP & co. */
typedef struct fbkey fbkey;       /* blocking.c: the clients blocked on one key */

struct fake_conn {
    fake_node *node;
    uint64_t id;      /* the node's connections in the order they were made */
    fblock *block;    /* blocked in a blocking command, or NULL */
    fake_push_fn *push;
    void *push_ud;
    fstr *channels; /* subscribed, in subscription order */
    size_t nchannels, cap;
};

/* --------------------------------------------------------- reply sink */

typedef enum fsink_kind { FSINK_TREE, FSINK_LUA } fsink_kind;

typedef struct fsink_frame {
    sim_reply *arr; /* FSINK_TREE */
    int64_t remaining;
    int next_index; /* FSINK_LUA: next array slot */
} fsink_frame;

/* Receives a command's reply: as a sim_reply tree for clients, or as Lua
 * values pushed on L for redis.call (Redis' reply → Lua conversion). */
typedef struct fsink {
    fsink_kind kind;
    sim_reply *root;   /* FSINK_TREE result */
    lua_State *L;      /* FSINK_LUA target */
    fsink_frame *frames; /* open arrays, innermost last */
    int depth, cap;
    int done;          /* a complete top-level reply has been produced */
    int top_is_error;  /* ... and it is an error */
    char *error;       /* the top-level error text (FSINK_LUA), owned */
} fsink;

/* ------------------------------------------------------------ commands */

typedef struct fake_cmd fake_cmd;

/* One command being executed. */
typedef struct fcmd {
    fake_node *n;
    fake_conn *conn;       /* the client's connection; NULL inside scripts */
    int argc;
    const char *const *argv;
    const size_t *lens;
    fsink *sink;
    const fake_cmd *cmd;
    int from_script;
    int propagated;       /* the command queued its own (rewritten) effect */
} fcmd;

typedef void fake_cmd_fn(fcmd *c);

/* Command flags. */
#define FCMD_WRITE 1      /* may modify the keyspace */
#define FCMD_NOSCRIPT 2   /* not allowed from scripts */
#define FCMD_PUBSUB 4     /* allowed on a connection in subscribe mode */
#define FCMD_CONTAINER 8  /* has subcommands (SCRIPT) */

struct fake_cmd {
    const char *name;
    int arity; /* Redis convention: n exact, -n at least n */
    int flags;
    fake_cmd_fn *fn;
};

/* ---------------------------------------------------------------- node */

typedef struct lua_host lua_host;

/* A remembered command-name lookup (the lookup is a pure function of the
 * bytes, so a hit is always right). */
#define FK_CMD_CACHE 64
#define FK_CMD_CACHE_NAME 16
typedef struct fk_cmd_memo {
    size_t len; /* 0: empty */
    char name[FK_CMD_CACHE_NAME];
    const struct fake_cmd *cmd;
} fk_cmd_memo;

struct fake_node {
    sim_ctx *ctx;
    char *name;
    sim_clock *clock;   /* the node's time: own_clock, or one its owner lent */
    sim_clock own_clock;
    fkey *keys;
    fchannel *channels;
    int closing; /* fake_node_closing: the channels are gone */
    lua_host *lua;
    fake_stats stats;
    int64_t frozen_ms;  /* >= 0 while a script runs: its time snapshot */
    uint64_t dirty;     /* count of changes, as Redis' server.dirty */
    uint64_t version;   /* fake_node_version */
    uint64_t shape;     /* changes when a key is created or deleted */
    fkey *memo_key;     /* the key found last (a script names one key again */
    uint64_t memo_shape; /* and again), good while shape is memo_shape */
    int watching;       /* fake_node_watch */
    int64_t watch_min;  /* earliest expiry of a key peeked while watching, -1 none */
    uint64_t rand48;    /* math.random state (Redis' redisLrand48) */
    fake_repl_fn *repl;
    void *repl_ud;
    fake_effect *effects; /* this command's writes, to replicate */
    size_t neffects, effects_cap;
    int replica;          /* READONLY for clients; expired keys hidden, not deleted */
    int applying;         /* applying the master's stream: no expiry at all */
    uint64_t script_steps;
    size_t script_bytes;
    /* A script that did not end (it ran script_steps instructions): the
     * first one's SHA-1 ("" none) and whether it had written. With
     * runaway_keep ([redis] runaway = busy) the node then answers BUSY to
     * every command but SCRIPT KILL, as Redis 7.0 does past
     * busy-reply-threshold; else it stops the run (sim_stop). */
    char runaway_sha[41];
    int runaway_wrote;
    int runaway_keep;
    int busy;
    int runaway_silent;   /* the EVAL that ran away gets no reply (it never ends) */
    fk_cmd_memo cmd_memo[FK_CMD_CACHE];
    /* Blocked clients (blocking.c): by key, how many, the keys made ready
     * by the command running, and the answers not yet taken. */
    fbkey *blocking;
    size_t nblocked;
    fstr *ready;
    size_t nready, ready_cap;
    struct fanswer *answered_head, *answered_tail;
    uint64_t next_conn_id;
};

/* --------------------------------------------------------- shared texts */

#define FERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define FERR_NOTINT "ERR value is not an integer or out of range"
#define FERR_SYNTAX "ERR syntax error"
#define FERR_NOTFLOAT "ERR value is not a valid float"
#define FERR_OVERFLOW "ERR increment or decrement would overflow"

/* ------------------------------------------------------- prototypes */

/* sink.c — building replies */
void fsink_init_tree(fsink *s);
void fsink_init_lua(fsink *s, lua_State *L);
void fsink_release(fsink *s);
/* Pushes Redis' Lua error table {err="CODE msg"} for text, as
 * luaPushErrorBuff does; dash treats text as an error reply ("-" implied). */
void fsink_push_lua_error(lua_State *L, const char *text, size_t len, int dash);
void fr_int(fcmd *c, int64_t v);
void fr_bulk(fcmd *c, const char *p, size_t len);
void fr_cbulk(fcmd *c, const char *s);
void fr_nil(fcmd *c);
void fr_nilarray(fcmd *c);
void fr_status(fcmd *c, const char *s);
void fr_ok(fcmd *c);
/* An error reply; text starts with its code ("ERR ...", "WRONGTYPE ..."). */
void fr_err(fcmd *c, const char *text);
void fr_errf(fcmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fr_array(fcmd *c, size_t n);
void fr_double(fcmd *c, double d);

/* util.c — Redis' number parsing and formatting, SHA1, rand48 */
/* fake_str2ll (Redis' string2ll) is in fake.h: the world reads WAIT's words with it */
int fu_str2d(const char *s, size_t len, double *out);  /* getDoubleFromObject */
size_t fu_d2str(char *buf, size_t cap, double d);         /* %.17g, inf, -inf */
size_t fu_ll2str(char *buf, long long v);                 /* NUL-terminated */
size_t fu_num2str(char *buf, size_t cap, double d);       /* Redis' "%.17g" of a Lua number */
int32_t fu_rand48(uint64_t *state);
/* Argument i as long long, or replies FERR_NOTINT and returns -1. */
int fu_arg_ll(fcmd *c, int i, long long *out);
/* Argument i as a NUL-terminated copy in buf (truncated to cap-1). */
const char *fu_arg_cstr(fcmd *c, int i, char *buf, size_t cap);
int fu_arg_is(fcmd *c, int i, const char *lower);

/* effects.c — write effects for replication */
/* Queues one effect (argv copied) if the node replicates. */
void fk_propagate(fake_node *n, int argc, const char *const *argv, const size_t *lens);
/* Queues c's own argv if it wrote and queued nothing itself. */
void fk_propagate_cmd(fcmd *c, uint64_t dirty_before);
/* Does n record its writes' effects for replicas? (Commands skip building
 * rewritten effects when it does not.) */
#define fk_replicating(n) ((n)->repl != NULL && !(n)->replica && !(n)->applying)
/* Hands the queued effects to the hook and clears them. */
void fk_flush_effects(fake_node *n);

/* keyspace.c — lookup with lazy expiry, creation, deletion */
int64_t fk_now_ms(const fake_node *n);
fkey *fk_lookup(fake_node *n, const char *k, size_t klen);
/* Looks a key up for command c; replies WRONGTYPE and returns NULL with
 * *wrong set when it exists with another type. */
fkey *fk_lookup_type(fcmd *c, int argi, fobj_type type, int *wrong);
fkey *fk_create(fake_node *n, const char *k, size_t klen, fobj_type type);
void fk_delete(fake_node *n, fkey *e);
void fk_set_expire(fake_node *n, fkey *e, int64_t when_ms);
void fk_flush(fake_node *n);
void fk_free_all(fake_node *n);
/* Replaces e's value by the string v (keeps the key's place). */
void fk_set_string(fkey *e, const char *v, size_t len);
void fstr_set(fstr *s, const char *p, size_t len);
void fstr_free(fstr *s);

/* Value helpers (t_hash.c, t_list.c, t_zset.c) */
fhash_field *fh_find(fkey *e, const char *f, size_t flen);
void fh_free(fkey *e);
void fl_free(flist *l);
void fz_free(fzset *z);
/* Argument i as a list end: 1 LEFT, 0 RIGHT, or -1 after a syntax error. */
int fl_position(fcmd *c, int i);
/* Pops one element of list e (not empty) from the head (left) or tail as
 * c's reply, [k, value] with with_key; e goes when it is left empty. */
void fl_pop_reply(fcmd *c, fkey *e, int left, int with_key, const char *k, size_t klen);
/* LMOVE's move: pops from src (not empty) and pushes onto the list dst
 * (created as key dk when NULL; it may be src), the value as c's reply;
 * src goes when it is left empty. */
void fl_move(fcmd *c, fkey *src, const char *dk, size_t dklen, fkey *dst, int left_from, int left_to);
/* Pops count members (-1: one) from zset e's minimum or maximum end as
 * c's reply (member, score pairs; with emitkey k first); e goes with its
 * last member. */
void fz_pop_reply(fcmd *c, fkey *e, int max, long count, int emitkey, const char *k, size_t klen);

/* blocking.c — blocked clients */
/* Key k was created as a list or a sorted set: ready for the clients
 * blocked on it, served after the command (fk_serve_blocked). */
void fk_signal_ready(fake_node *n, const char *k, size_t klen);
void fk_serve_blocked(fake_node *n);
/* The node becomes a replica: every blocked client is answered UNBLOCKED
 * and its connection is to close. */
void fk_unblock_all(fake_node *n);
/* Connection c goes: it waits on nothing, its answers are dropped. */
void fk_block_conn_gone(fake_conn *c);
void fk_block_free_all(fake_node *n);

/* cmdtable.c */
const fake_cmd *fake_cmd_lookup(const char *name, size_t len);
/* fake_cmd_lookup through n's memo of recent names (the hot path: scripts
 * call the same few commands over and over). */
const fake_cmd *fk_cmd_find(fake_node *n, const char *name, size_t len);
/* Runs command c->argv through the table with Redis' checks for the
 * caller (client or script). */
void fake_dispatch(fcmd *c);
/* The checks redis.call makes before running cmd (NULL: unknown); 0 when it
 * may run, else -1 after writing Redis' script-side error. */
int fake_script_check(fcmd *c, const fake_cmd *cmd);

/* Command handlers */
void cmd_ping(fcmd *c);
void cmd_echo(fcmd *c);
void cmd_get(fcmd *c);
void cmd_set(fcmd *c);
void cmd_setnx(fcmd *c);
void cmd_mget(fcmd *c);
void cmd_incr(fcmd *c);
void cmd_decr(fcmd *c);
void cmd_incrby(fcmd *c);
void cmd_decrby(fcmd *c);
void cmd_strlen(fcmd *c);
void cmd_del(fcmd *c);
void cmd_exists(fcmd *c);
void cmd_expire(fcmd *c);
void cmd_pexpire(fcmd *c);
void cmd_expireat(fcmd *c);
void cmd_pexpireat(fcmd *c);
void cmd_ttl(fcmd *c);
void cmd_pttl(fcmd *c);
void cmd_persist(fcmd *c);
void cmd_type(fcmd *c);
void cmd_flushall(fcmd *c);
void cmd_hset(fcmd *c);
void cmd_hsetnx(fcmd *c);
void cmd_hget(fcmd *c);
void cmd_hmget(fcmd *c);
void cmd_hexists(fcmd *c);
void cmd_hincrby(fcmd *c);
void cmd_hdel(fcmd *c);
void cmd_hlen(fcmd *c);
void cmd_hkeys(fcmd *c);
void cmd_hvals(fcmd *c);
void cmd_hgetall(fcmd *c);
void cmd_rpush(fcmd *c);
void cmd_lpush(fcmd *c);
void cmd_lpop(fcmd *c);
void cmd_rpop(fcmd *c);
void cmd_lindex(fcmd *c);
void cmd_lrem(fcmd *c);
void cmd_lrange(fcmd *c);
void cmd_llen(fcmd *c);
void cmd_lmove(fcmd *c);
void cmd_rpoplpush(fcmd *c);
void cmd_blpop(fcmd *c);
void cmd_brpop(fcmd *c);
void cmd_blmove(fcmd *c);
void cmd_brpoplpush(fcmd *c);
void cmd_bzpopmin(fcmd *c);
void cmd_bzpopmax(fcmd *c);
void cmd_zpopmin(fcmd *c);
void cmd_zpopmax(fcmd *c);
void cmd_getset(fcmd *c);
void cmd_sadd(fcmd *c);
void cmd_srem(fcmd *c);
void cmd_scard(fcmd *c);
void cmd_sismember(fcmd *c);
void cmd_smembers(fcmd *c);
void cmd_zadd(fcmd *c);
void cmd_zscore(fcmd *c);
void cmd_zrem(fcmd *c);
void cmd_zrange(fcmd *c);
void cmd_zrangebyscore(fcmd *c);
void cmd_zremrangebyscore(fcmd *c);
void cmd_zincrby(fcmd *c);
void cmd_zcard(fcmd *c);
void cmd_publish(fcmd *c);
void cmd_subscribe(fcmd *c);
void cmd_unsubscribe(fcmd *c);
void cmd_eval(fcmd *c);
void cmd_evalsha(fcmd *c);
void cmd_script(fcmd *c);
void cmd_wait(fcmd *c);

/* pubsub.c */
void fps_unsubscribe_all(fake_conn *conn, int notify);
void fps_free_all(fake_node *n);

/* lua_host.c — the scripting engine of one node */
lua_host *lua_host_new(fake_node *n);
void lua_host_free(lua_host *h);
/* Compiles body and caches it under its SHA1 (written to sha[41]).
 * Returns 0, or -1 with the compile error text (Redis' wording) in *err,
 * which the caller frees. Compiling a cached body is a no-op. */
int lua_host_load(lua_host *h, const char *body, size_t len, char sha[41],
                  char **err);
int lua_host_exists(lua_host *h, const char *sha40);
/* Runs the cached script sha40 with keys and args taken from c->argv,
 * writing its reply into c->sink. Returns -1, writing nothing, when the
 * cache does not hold sha40. */
int lua_host_run(lua_host *h, fcmd *c, const char *sha40, int numkeys,
                  int first_arg);
/* SCRIPT FLUSH: drops the cache and recreates the Lua state. */
void lua_host_flush(lua_host *h);

#endif /* LOCKSIM_FAKE_INT_H */
