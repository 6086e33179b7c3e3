/* world.h — the simulated deployment: Redis nodes (the embedded fake, or
 * real servers) in groups of one master and its replicas, the network
 * between them and the client processes, replication and failover, and the
 * node faults (crash, restart, pause, clock).
 *
 * Messages travel with a latency drawn per message, in order on each
 * connection (TCP), and run on arrival. A policy hook (installed by the
 * fault module) may drop or delay each message. The world knows nothing of
 * lock protocols: client connections deliver replies, pushes and
 * connection loss to callbacks of the client runtime. */
#ifndef LOCKSIM_WORLD_H
#define LOCKSIM_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"

typedef struct world world;
typedef struct world_conn world_conn;

/* Endpoints: nodes are 0..world_nodes()-1, numbered as the scenario
 * numbers them (group * (1 + replicas) + k, scn.h); client i (1-based) is
 * WORLD_CLIENT(i). */
#define WORLD_CLIENT_BASE 100000
#define WORLD_CLIENT(i) (WORLD_CLIENT_BASE + (i))
#define WORLD_IS_CLIENT(e) ((e) >= WORLD_CLIENT_BASE)

/* What travels on the network (the policy hook sees it). */
typedef enum world_msg_kind {
    WORLD_MSG_OPEN,   /* client -> node: connect */
    WORLD_MSG_CMD,    /* client -> node: a command */
    WORLD_MSG_CLOSE,  /* client -> node: disconnect */
    WORLD_MSG_REPLY,  /* node -> client: a reply */
    WORLD_MSG_PUSH,   /* node -> client: pub/sub message or confirmation */
    WORLD_MSG_RESET,  /* node -> client: the connection is gone */
    WORLD_MSG_REPL,   /* master -> replica: a batch of write effects */
    WORLD_MSG_ACK     /* replica -> master: applied offset */
} world_msg_kind;

/* The policy's verdict on one message: drop it, or add a delay. A drop
 * with hold_until_us set is a partition's: a push on a connection that
 * outlives it is held and sent again when the partition ends (at
 * hold_until_us, or at world_release_held for one that lasts until healed),
 * as TCP retransmits it; other messages it cuts off are lost. */
typedef struct world_verdict {
    int drop;
    int64_t extra_us;
    int64_t hold_until_us;
} world_verdict;

/* Decides the fate of one message from endpoint `from` to `to`; msg is
 * the reply or push for WORLD_MSG_REPLY / PUSH (else NULL). */
typedef void world_policy_fn(void *ud, int from, int to, world_msg_kind kind,
                             const sim_reply *msg, world_verdict *out);

/* A partition was healed: the pushes it held go out again (the policy
 * judges them again), in order on each connection. */
void world_release_held(world *w);

/* Creates the nodes and the network of scenario s on ctx (borrowed for
 * the life of the world). */
world *world_new(sim_ctx *ctx, const scenario *s);
struct real_servers;
/* The same world on real servers (the real backend): node i is srv's
 * node i (borrowed), the network is real (no simulated latency; the
 * policy hook still judges every message), and time is the wall clock —
 * the world installs the kernel's waiter. */
world *world_new_real(sim_ctx *ctx, const scenario *s, struct real_servers *srv);

/* Value types as TYPE names them. */
#define WORLD_TYPE_STRING 0
#define WORLD_TYPE_LIST 1
#define WORLD_TYPE_HASH 2
#define WORLD_TYPE_ZSET 3
#define WORLD_TYPE_SET 4

/* What a peek sees of one key, whichever the backend. */
typedef struct world_peek_result {
    int type;          /* WORLD_TYPE_* */
    int64_t expire_ms; /* deadline on the node's clock, -1 none */
    const char *str;   /* strings: the value, borrowed until the next peek or command */
    size_t len;
    size_t count;      /* hash fields, list, zset or set members */
} world_peek_result;

/* Reads key on node without side effects: the fake's store, or a side
 * connection to the real server. Returns 1 when the key exists (*out
 * filled), else 0. The hash variant calls fn per field (stop: fn returns
 * 0); the list variant fn per element, head first. */
int world_peek(world *w, int node, const char *key, size_t klen, world_peek_result *out);
int world_peek_hash(world *w, int node, const char *key, size_t klen,
                    int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud);
int world_peek_list(world *w, int node, const char *key, size_t klen,
                    void (*fn)(void *ud, const char *v, size_t vlen), void *ud);
/* Runs a command on node outside the simulated traffic (the runtime's
 * setup), now, and returns its reply (the caller's; NULL when the node
 * cannot be reached). */
sim_reply *world_admin(world *w, int node, int argc, const char *const *argv);
/* The true time (µs) at which node's clock passes node_ms (a key with
 * that deadline is gone); INT64_MAX when node_ms < 0. */
int64_t world_true_at(world *w, int node, int64_t node_ms);
/* Reading the stores again only when they may have changed: the store
 * version changes whenever a peek of any node could see something new,
 * the passing of time aside; between world_watch_begin and world_watch_end
 * the peeks note the keys they see, and world_watch_end returns the true
 * time before which none of them expires (INT64_MAX: none will; the
 * current time: nothing can be promised, as on real servers). A reading
 * taken under one version and before that time is still the reading. */
uint64_t world_store_version(world *w);
void world_watch_begin(world *w);
int64_t world_watch_end(world *w);
void world_free(world *w);
sim_ctx *world_ctx(const world *w);
void world_set_policy(world *w, world_policy_fn *fn, void *ud);

/* ------------------------------------------------------------- nodes */

int world_nodes(const world *w);
int world_groups(const world *w);
/* "redis0" (master of group 0 at the start), "redis0.r1" (its replica). */
const char *world_node_name(const world *w, int node);
int world_group_of(const world *w, int node);
/* The group's master as the world (Sentinel) has it now. */
int world_master(const world *w, int group);
int world_node_up(const world *w, int node);
int world_is_replica(const world *w, int node);
/* Replicas of group's master that are connected (INFO connected_slaves). */
int world_connected_replicas(const world *w, int group);
/* Commands executed by all nodes (scripts count once). */
uint64_t world_commands(const world *w);
uint64_t world_evals(const world *w);
/* A node's Lua script that did not end (the fake's step limit): 1 with
 * its SHA-1 in sha (41 bytes) and whether it wrote; 0 when none did. */
int world_runaway(const world *w, char *sha, int *wrote);

/* The node process dies: connections reset, data lost (kept with
 * [redis] persistence). A crashed master is failed over after down-after
 * if the group has a replica. */
void world_node_crash(world *w, int node);
/* The node comes back (empty unless persistence); a former master whose
 * group failed over comes back as a replica of the new master. */
void world_node_restart(world *w, int node);
/* SIGSTOP for for_us: the node runs nothing; what arrives waits. */
void world_node_pause(world *w, int node, int64_t for_us);
/* Sentinel's FAILOVER now: the most up-to-date replica becomes master;
 * clients learn it after the discovery delay. Returns the new master, or
 * -1 if the group has no replica to promote. */
int world_failover(world *w, int group);
/* Node's clock, owned by the world (valid for the world's life): faults
 * move it (offset, drift, jump), then call world_node_clock_changed. */
sim_clock *world_node_clock(world *w, int node);
/* The clock of node was changed: the real backend moves the server's wall
 * clock to match (the clock shim); the fake reads the clock itself. */
void world_node_clock_changed(world *w, int node);

/* ------------------------------------------------------- client side */

/* Called with each reply, with the request id it was sent with. The reply
 * is borrowed; the callback may keep a share (sim_reply_ref), never change it. */
typedef void world_reply_fn(void *ud, uint64_t req_id, const sim_reply *reply);
/* Called with each push (pub/sub message or confirmation); borrowed, as
 * replies are. */
typedef void world_push_fn(void *ud, const sim_reply *msg);
/* Called once when the connection is gone (the node crashed or refused). */
typedef void world_reset_fn(void *ud);
/* Called after every command a master runs, with the tag it was sent with
 * (store observers use it). */
typedef void world_exec_fn(void *ud, int node, uint64_t tag);
/* Called when a client learns that group's master is now node (after the
 * discovery delay), once per client. */
typedef void world_master_fn(void *ud, int client, int group, int node);

/* Opens a connection from client endpoint `from` to node. Callbacks run at
 * arrival time, after the network. name labels it in traces. */
world_conn *world_connect(world *w, int from, int node, const char *name,
                          world_reply_fn *on_reply, world_push_fn *on_push,
                          world_reset_fn *on_reset, void *ud);
/* Sends a command (argv copied); its reply comes back with req_id. tag is
 * handed to the exec hook when it runs. */
void world_send(world_conn *c, int argc, const char *const *argv, const size_t *lens,
                uint64_t tag, uint64_t req_id);
/* What a partition cuts off on c, commands and replies too, is held and
 * sent once it ends (TCP's retransmission), never lost: for a connection
 * whose client waits with no reply timeout (a blocking command's). */
void world_conn_keep(world_conn *c);
/* Closes the connection: no callback runs for it afterwards. */
void world_close(world_conn *c);
int world_conn_node(const world_conn *c);
/* 1 once c is closed (world_close) or was reset: nothing more reaches its owner. */
int world_conn_closed(const world_conn *c);
void world_set_exec_hook(world *w, world_exec_fn *fn, void *ud);
void world_set_master_listener(world *w, world_master_fn *fn, void *ud);

#endif /* LOCKSIM_WORLD_H */
