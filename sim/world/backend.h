/* backend.h — what a world node is, behind one table of operations: the
 * embedded fake (backend_fake.c) or a real redis-server (backend_real.c,
 * with proxy.c). world.c and repl.c run the network, the replication
 * bookkeeping and Sentinel the same way on both and reach a node only
 * through w->be, with the backend's state in w->be_state. Private to
 * sim/world. */
#ifndef LOCKSIM_WORLD_BACKEND_H
#define LOCKSIM_WORLD_BACKEND_H

#include "sim/world/world_int.h"

struct real_servers;

struct wbackend {
    /* ---------------------------------------------------------- traffic */
    /* The latency of one message on the network, drawn from d on the PRNG
     * stream lat (a real network adds its own: 0). */
    int64_t (*latency_us)(world *w, const scn_dist *d, const char *lat);
    /* Client connection c reached its node (up, running): opens the node
     * end (c->node_end), or resets c when the node refuses it. */
    void (*open)(world *w, world_conn *c);
    /* Command m of c (node end open, not blocked behind a WAIT) reached
     * the node: runs it or sends it on; takes m (frees it or keeps it
     * until its reply). */
    void (*command)(world *w, world_conn *c, msg *m);
    /* c's node end goes away (close, reset, crash): closes it and sets
     * c->node_end to NULL; nothing when it is NULL. */
    void (*conn_gone)(world *w, world_conn *c);

    /* ------------------------------------------------------ node faults */
    /* The node's process dies (its connections were reset): its data goes
     * unless [redis] persistence. */
    void (*crash)(world *w, int node);
    /* The node's process comes back (before the world makes it a replica
     * of its group's master when it is not the master). */
    void (*restart)(world *w, int node);
    /* SIGSTOP (on = 1) / SIGCONT (on = 0). */
    void (*pause)(world *w, int node, int on);
    /* The node's clock (w->nodes[node].clock) was moved. */
    void (*clock_changed)(world *w, int node);

    /* ------------------------------------------- replication, failover */
    /* Node is a master: writes allowed; each client command's effects go
     * to ship(ud) (NULL: nothing to ship). */
    void (*set_master)(world *w, int node, fake_repl_fn *ship, void *ud);
    /* Node is a replica: clients' writes refused, keys expire by DEL. */
    void (*set_replica)(world *w, int node);
    /* Full resynchronisation: node's data becomes a copy of master's. */
    void (*full_sync)(world *w, int node, int master);
    /* A batch of its master's effects reaches replica node. */
    void (*apply)(world *w, int node, const fake_effect *effects, size_t n);
    /* The live replica of group's master old with the most data, or -1. */
    int (*pick_replica)(world *w, int group, int old);
    /* Node was chosen as its group's new master (set_master done). */
    void (*promote)(world *w, int node);

    /* -------------------------------------------------------- observing */
    /* world_peek, world_peek_hash, world_peek_list, world_admin (world.h). */
    int (*peek)(world *w, int node, const char *key, size_t klen, world_peek_result *out);
    int (*peek_hash)(world *w, int node, const char *key, size_t klen,
                     int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud);
    int (*peek_list)(world *w, int node, const char *key, size_t klen,
                     void (*fn)(void *ud, const char *v, size_t vlen), void *ud);
    sim_reply *(*admin)(world *w, int node, int argc, const char *const *argv);
    /* world_store_version, world_watch_begin / world_watch_end. */
    uint64_t (*store_version)(world *w);
    void (*watch_begin)(world *w);
    int64_t (*watch_end)(world *w);
    /* The true time (µs) at which node's clock passes node_ms >= 0. */
    int64_t (*true_at)(world *w, int node, int64_t node_ms);
    /* Commands and script runs executed by all nodes. */
    uint64_t (*commands)(const world *w);
    uint64_t (*evals)(const world *w);
    /* A node's script that did not end: its SHA-1 into sha (41 bytes),
     * whether it wrote, and 1; 0 when none did (world_runaway). */
    int (*runaway)(const world *w, char *sha, int *wrote);

    /* Frees the backend's state and every connection's node end (first
     * thing world_free does). */
    void (*free)(world *w);
};

/* A backend file's table, its operations being its static functions
 * named be_<operation>. */
#define WBACKEND_TABLE                                                              \
    {                                                                               \
        .latency_us = be_latency_us,                                                \
        .open = be_open,                                                            \
        .command = be_command,                                                      \
        .conn_gone = be_conn_gone,                                                  \
        .crash = be_crash,                                                          \
        .restart = be_restart,                                                      \
        .pause = be_pause,                                                          \
        .clock_changed = be_clock_changed,                                          \
        .set_master = be_set_master,                                                \
        .set_replica = be_set_replica,                                              \
        .full_sync = be_full_sync,                                                  \
        .apply = be_apply,                                                          \
        .pick_replica = be_pick_replica,                                            \
        .promote = be_promote,                                                      \
        .peek = be_peek,                                                            \
        .peek_hash = be_peek_hash,                                                  \
        .peek_list = be_peek_list,                                                  \
        .admin = be_admin,                                                          \
        .store_version = be_store_version,                                          \
        .watch_begin = be_watch_begin,                                              \
        .watch_end = be_watch_end,                                                  \
        .true_at = be_true_at,                                                      \
        .commands = be_commands,                                                    \
        .evals = be_evals,                                                          \
        .runaway = be_runaway,                                                      \
        .free = be_free,                                                            \
    }

/* backend_real.c, for proxy.c: the poll loop, catching the simulated
 * time up with the wall clock (before outside input schedules events),
 * and where node's server listens. */
struct real_loop *wreal_loop(world *w);
void wreal_catch_up(world *w);
int wreal_port(const world *w, int node);
const char *wreal_host(const world *w, int node);

/* proxy.c — a replication link through locksim (real backend) */
typedef struct wproxy wproxy;
/* Listens on a free loopback port for replica's replication connection
 * and relays it to master's server with the scenario's lag; NULL when no
 * port can be had. Lives until wproxy_free, at the world's end. */
wproxy *wproxy_new(world *w, int master, int replica);
int wproxy_port(const wproxy *p);
void wproxy_free(wproxy *p);

#endif /* LOCKSIM_WORLD_BACKEND_H */
