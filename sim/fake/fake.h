/* fake.h — the embedded fake Redis node: a typed keyspace with Redis 7.0's
 * commands, replies and error texts, expiry by the node's own clock, pub/sub,
 * and a Lua 5.1 scripting host that runs scripts exactly as Redis does.
 *
 * A node is driven one command at a time (fake_exec); it never blocks and
 * never reads the wall clock: its time is its sim_clock at the context's
 * current true time, frozen for the length of a script. */
#ifndef LOCKSIM_FAKE_H
#define LOCKSIM_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"

typedef struct fake_node fake_node;
typedef struct fake_conn fake_conn;

/* The version the fake answers as (redis.REDIS_VERSION, INFO). */
#define FAKE_REDIS_VERSION "7.0.15"
#define FAKE_REDIS_VERSION_NUM 0x07000f

/* Called for each message pushed to a connection in subscribe mode:
 * subscribe/unsubscribe confirmations and published messages, as RESP2
 * arrays. The reply is borrowed: it is freed when the callback returns,
 * unless the callback keeps a share of it (sim_reply_ref; one message may
 * go to every subscriber, so it must not be changed). */
typedef void fake_push_fn(void *ud, const sim_reply *msg);

/* One write effect, in the form Redis 7 replicates it: relative expiries
 * made absolute (PEXPIREAT, SET ... PXAT), expired keys as DEL, a script
 * as the writes it made. */
typedef struct fake_effect {
    int argc;
    char **argv;
    size_t *lens;
} fake_effect;

/* Called after each command a client ran with the effects of its writes,
 * applied atomically on a replica (a script's are one MULTI/EXEC). The
 * effects are borrowed for the call. */
typedef void fake_repl_fn(void *ud, const fake_effect *effects, size_t n);

/* Per-node counters. */
typedef struct fake_stats {
    uint64_t commands;      /* commands run, from clients and scripts */
    uint64_t scripts;       /* EVAL/EVALSHA executions */
    uint64_t script_errors; /* scripts that ended in an error reply */
    uint64_t expired;       /* keys deleted because their time had come */
} fake_stats;

/* Creates an empty node named name (used in traces). Its time is read from
 * clock (borrowed for the node's life: its owner, the world, moves it),
 * or, when clock is NULL, from a clock of its own that starts at the sim
 * epoch. Cannot fail. */
fake_node *fake_node_new(sim_ctx *ctx, const char *name, sim_clock *clock);
/* Frees the node, its connections' subscriptions and its Lua state.
 * Connections must be freed first. */
void fake_node_free(fake_node *n);
/* The world is going: drops every channel of n at once, so that its
 * connections are then freed without unsubscribing one by one (100,000
 * subscribers of one channel, each taken off the front of its list, cost
 * seconds). Nothing may run on n after it but fake_conn_free and
 * fake_node_free. */
void fake_node_closing(fake_node *n);
const char *fake_node_name(const fake_node *n);
/* The clock the node reads (its own, or the one it was given). */
sim_clock *fake_node_clock(fake_node *n);
/* The node's time in ms as Redis reads it (frozen inside a script). */
int64_t fake_node_time_ms(const fake_node *n);
const fake_stats *fake_node_stats(const fake_node *n);
/* Installs the replication hook (NULL to remove). */
void fake_node_set_repl(fake_node *n, fake_repl_fn *fn, void *ud);
/* Replica mode: clients' writes get READONLY, keys are not deleted when
 * they expire (the master sends DEL), only hidden. */
void fake_node_set_replica(fake_node *n, int replica);
int fake_node_is_replica(const fake_node *n);
/* Applies a master's effects as the replication link does (writes
 * allowed, no expiry checks). */
void fake_node_apply(fake_node *n, const fake_effect *effects, size_t count);
/* A restart of the node's process: scripts and Lua state are new; the
 * data is kept only when keep_data (persistence). Connections must have
 * been freed. */
void fake_node_reset(fake_node *n, int keep_data);
/* Full resynchronisation: dst's data becomes a copy of src's (absolute
 * expiry times copied as they are). */
void fake_node_copy_data(fake_node *dst, fake_node *src);

/* Limits per script run: Lua VM instructions and Lua heap bytes. A script
 * over either is stopped with an error reply (real Redis would keep
 * running until SCRIPT KILL). 0 keeps the default. */
void fake_node_set_script_limits(fake_node *n, uint64_t steps, size_t bytes);
/* A script that reaches the step limit did not end: by default the node
 * records it and stops the run (sim_stop); with keep, it answers BUSY to
 * every other command until SCRIPT KILL (refused with UNKILLABLE once the
 * script wrote), as Redis 7.0 past busy-reply-threshold. */
void fake_node_set_runaway_keep(fake_node *n, int keep);
/* The SHA-1 of the first script of n that did not end, or NULL; *wrote:
 * whether it had written. */
const char *fake_node_runaway(const fake_node *n, int *wrote);

/* A client connection. push may be NULL when the connection never
 * subscribes. */
fake_conn *fake_conn_new(fake_node *n, fake_push_fn *push, void *ud);
/* Closes the connection: its subscriptions are dropped. NULL is a no-op. */
void fake_conn_free(fake_conn *c);
/* Number of channels c is subscribed to. */
size_t fake_conn_subscriptions(const fake_conn *c);

/* Runs one command (argv[0] is its name, any case) sent by conn, as
 * redis-server would, and returns the reply, owned by the caller. Returns
 * NULL for commands whose replies are pushes (SUBSCRIBE, UNSUBSCRIBE in
 * subscribe mode): they arrive through the push callback instead; and
 * for the script that did not end on a node that keeps going
 * (fake_node_set_runaway_keep): it never answers. */
sim_reply *fake_exec(fake_node *n, fake_conn *conn, int argc,
                     const char *const *argv, const size_t *lens);
/* The same with NUL-terminated arguments. */
sim_reply *fake_execv(fake_node *n, fake_conn *conn, int argc,
                      const char *const *argv);

/* Blocking commands (BLPOP BRPOP BLMOVE BRPOPLPUSH BZPOPMIN BZPOPMAX):
 * a client that finds nothing to pop blocks, fake_exec returns NULL and
 * its connection sends nothing more until it is answered: served by a
 * later command's write, timed out by fake_node_block_timeouts, or told
 * UNBLOCKED when the node becomes a replica (its connection then closes,
 * as Redis' CLIENT_CLOSE_AFTER_REPLY). Answers queue on the node in the
 * order they were given; fake_node_unblocked takes the first: its
 * connection, the reply (the caller's) and whether to close after it, or
 * returns 0 when none is left. */
int fake_conn_blocked(const fake_conn *c);
int fake_node_unblocked(fake_node *n, fake_conn **conn, sim_reply **r, int *close);
/* The earliest deadline of a blocked client (node ms: it times out once
 * the node's clock is past it), -1 when none has one. */
int64_t fake_node_block_deadline(const fake_node *n);
/* Times out every blocked client whose deadline the node's clock has
 * passed (a null array each, queued as answers). */
void fake_node_block_timeouts(fake_node *n);
/* The ud the connection was made with. */
void *fake_conn_ud(const fake_conn *c);

/* ---------------------------------------------------------- observing */

/* Value types as TYPE names them. */
#define FAKE_TYPE_STRING 0
#define FAKE_TYPE_LIST 1
#define FAKE_TYPE_HASH 2
#define FAKE_TYPE_ZSET 3
#define FAKE_TYPE_SET 4

typedef struct fake_peek {
    int type;          /* FAKE_TYPE_* */
    int64_t expire_ms; /* node-clock deadline, -1 none */
    const char *str;   /* strings: the value (borrowed until the next command) */
    size_t len;
    size_t count;      /* hash fields, list or zset members */
} fake_peek;

/* Looks at key as of the node's current time, without any effect (no lazy
 * deletion, no stats, no trace): what a checker may observe. Returns 1 if
 * the key exists. */
int fake_node_peek(fake_node *n, const char *key, size_t klen, fake_peek *out);
/* Calls fn for each field of hash key in order until fn returns 0.
 * Returns 0 if key is not a live hash. */
int fake_node_peek_hash(fake_node *n, const char *key, size_t klen,
                        int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen),
                        void *ud);

/* Calls fn for each element of list key, head first. Returns 0 if key is
 * not a live list. */
int fake_node_peek_list(fake_node *n, const char *key, size_t klen,
                        void (*fn)(void *ud, const char *v, size_t vlen), void *ud);

/* A number that changes whenever what a peek could see of n changes by
 * anything but time: a write, a deletion (expiry included), a flush, a
 * resync, a role change. Between two equal readings only expiry moves. */
uint64_t fake_node_version(const fake_node *n);
/* While watching (on = 1), peeks note the earliest expiry of a live key
 * they saw; fake_node_watch_min: that expiry in node ms, or -1 when no key
 * seen will expire. on = 0 stops noting (the minimum stays readable). */
void fake_node_watch(fake_node *n, int on);
int64_t fake_node_watch_min(const fake_node *n);

/* Compiles a script body as Redis would (Lua 5.1, chunk "@user_script"),
 * without running it: 0, or -1 with Lua's message in err (cap bytes),
 * e.g. "user_script:3: '=' expected near 'x'". */
int fake_script_compile(const char *body, size_t len, char *err, size_t cap);

/* SHA1 of len bytes as 40 lowercase hex characters plus NUL (out[41]). */
void fake_sha1hex(const char *s, size_t len, char out[41]);

/* Redis' string2ll (util.c): s[0..len) as a strict integer (optional '-',
 * no leading zeros or spaces, in range) into *out; 1 if it is one, else 0. */
int fake_str2ll(const char *s, size_t len, long long *out);

#endif /* LOCKSIM_FAKE_H */
