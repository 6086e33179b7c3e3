/* world_int.h — the world's insides, shared by world.c (nodes, network,
 * connections), repl.c (replication, WAIT, failover) and nodes.c (node
 * faults). Private to sim/world. */
#ifndef LOCKSIM_WORLD_INT_H
#define LOCKSIM_WORLD_INT_H

#include "sim/fake/fake.h"
#include "sim/world/world.h"

typedef struct msg msg;
typedef struct wreal wreal;
struct real_aconn;
struct real_servers;

/* One message on the wire. */
struct msg {
    world *w;
    world_msg_kind kind;
    int from, to;             /* endpoints */
    world_conn *c;            /* client connection, or NULL */
    int link;                 /* replication link index, or -1 */
    int argc;
    char **argv;
    size_t *lens;
    sim_reply *reply;
    uint64_t tag, req_id;
    uint64_t offset;          /* REPL: batch offset; ACK: applied offset */
    fake_effect *effects;     /* REPL: the batch (owned) */
    size_t neffects;
    msg *prev, *next;         /* the world's list of messages in flight */
    msg *qnext;               /* a paused node's or blocked connection's queue */
};

struct world_conn {
    world *w;
    int from, node;
    char *name;
    char *lat_up, *lat_down;  /* PRNG stream names of the two directions */
    fake_conn *fconn;         /* node side, while open */
    world_reply_fn *on_reply;
    world_push_fn *on_push;
    world_reset_fn *on_reset;
    void *ud;
    int closed;               /* client side gone: deliver nothing more */
    int reset_sent;
    int64_t last_up_us, last_down_us;
    uint64_t woff;            /* replication offset after its last command */
    int blocked;              /* in WAIT: later commands queue */
    struct real_aconn *rconn; /* real backend: the hiredis connection */
    int sub_cookie;           /* real backend: marks subscription replies */
    msg *backlog_head, *backlog_tail;
};

/* A WAIT in progress. */
typedef struct wwait {
    world_conn *c;
    uint64_t req_id;
    long long want;
    sim_timer timer;
    struct wwait *next;
} wwait;

typedef struct wnode {
    fake_node *fake;
    sim_clock clock;          /* the node's time (the fake reads it; the real server follows it) */
    char *name;
    int group;
    int up, paused;
    sim_timer pause_end;
    msg *queue_head, *queue_tail; /* arrived while paused */
    int master;               /* -1 when this node is a master, else its master */
    uint64_t offset;          /* master: batches sent; replica: batches applied */
    wwait *waits;             /* master: WAITs blocked on acks */
    char *lat_name;
    world *owner;
    int index;
    sim_timer clock_refresh;  /* real backend: a drifting clock's offset updates */
} wnode;

/* Replication link master -> replica (one per replica). */
typedef struct wlink {
    int master, replica;
    uint64_t acked;           /* the replica's applied offset, as the master knows it */
    int64_t last_down_us, last_up_us;
    char *lat_down, *lat_up;
    int alive;
    msg *held;                /* batches that came before their turn */
} wlink;

typedef struct wgroup {
    int master;
    sim_timer failover_timer; /* Sentinel: after down-after */
    sim_timer discovery_timer;
    int announced;            /* master the clients were last told */
} wgroup;

struct world {
    sim_ctx *ctx;
    const scenario *s;
    int nnodes, ngroups;
    wnode *nodes;
    wgroup *groups;
    wlink *links;
    size_t nlinks, links_cap;
    world_exec_fn *exec_fn;
    void *exec_ud;
    world_master_fn *master_fn;
    void *master_ud;
    world_policy_fn *policy;
    void *policy_ud;
    world_conn **conns;
    size_t nconns, conns_cap;
    msg *wire;
    void *repl_hooks;         /* repl.c's per-node hook contexts */
    wreal *real;              /* the real backend (backend_real.c), or NULL: the fake */
};

/* world.c */
msg *world_msg_new(world *w, world_msg_kind kind, int from, int to);
void world_msg_free(msg *m);
/* Keeps m at paused node n until it resumes (in arrival order). */
void world_hold(wnode *n, msg *m);
/* Puts m on the wire after the policy's verdict: latency from stream
 * `lat`, never before *last (FIFO), which it updates. */
void world_post(world *w, msg *m, const char *lat, const scn_dist *d, int64_t *last);
void world_conn_reset(world_conn *c);
void world_run_cmd(world *w, world_conn *c, msg *m);

/* backend_real.c — the real backend */
void wreal_start(world *w, struct real_servers *srv);
void wreal_free(world *w);
/* A message reaches a real node (it is freed, or kept until its reply). */
void wreal_at_node(world *w, msg *m);
/* The connection's node end is gone: close its hiredis connection. */
void wreal_conn_gone(world_conn *c);
void wreal_crash(world *w, int node);
void wreal_restart(world *w, int node);
void wreal_pause(world *w, int node, int on);
uint64_t wreal_commands(const world *w);
uint64_t wreal_evals(const world *w);
int wreal_peek(world *w, int node, const char *key, size_t klen, world_peek_result *out);
int wreal_peek_hash(world *w, int node, const char *key, size_t klen,
                    int (*fn)(void *ud, const char *f, size_t flen, const char *v, size_t vlen), void *ud);
int64_t wreal_true_at(const world *w, int64_t unix_ms);
int wreal_peek_list(world *w, int node, const char *key, size_t klen,
                    void (*fn)(void *ud, const char *v, size_t vlen), void *ud);
/* Failover on servers: the most advanced live replica of group (not
 * old), or -1; then promote it and repoint the rest. */
int wreal_pick_replica(world *w, int group, int old);
void wreal_promote(world *w, int best);
void wreal_clock(world *w, int node);
sim_reply *wreal_admin(world *w, int node, int argc, const char *const *argv);
struct real_loop *wreal_loop(world *w);
/* Outside input is about to schedule events: time moves to the wall. */
void wreal_catch_up(world *w);
int wreal_port(const world *w, int node);
const char *wreal_host(const world *w, int node);

/* proxy.c — a replication link through locksim (real backend) */
typedef struct wproxy wproxy;
wproxy *wproxy_new(world *w, int master, int replica);
int wproxy_port(const wproxy *p);
void wproxy_free(wproxy *p);

/* repl.c */
void repl_init(world *w);
void repl_free(world *w);
/* The fake's replication hook: ships one command's effects. */
void repl_on_effects(void *ud, const fake_effect *effects, size_t n);
void repl_deliver(world *w, msg *m);
/* Handles a WAIT for connection c (its reply comes later when it blocks). */
void repl_wait(world *w, world_conn *c, msg *m);
/* Makes node a replica of master (full sync: a copy of its data). */
void repl_attach(world *w, int node, int master);
void repl_master_down(world *w, int node);
void repl_drop_waits(world *w, world_conn *c);

#endif /* LOCKSIM_WORLD_INT_H */
