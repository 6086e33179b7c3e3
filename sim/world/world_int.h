/* world_int.h — the world's insides, shared by world.c (nodes, network,
 * connections, node faults), repl.c (replication, WAIT, failover) and the
 * node backends (backend.h). Private to sim/world. */
#ifndef LOCKSIM_WORLD_INT_H
#define LOCKSIM_WORLD_INT_H

#include "sim/fake/fake.h"
#include "sim/world/world.h"

typedef struct msg msg;
typedef struct wbackend wbackend;

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
    uint64_t epoch;           /* REPL, ACK: the link's epoch when sent */
    fake_effect *effects;     /* REPL: the batch (owned) */
    size_t neffects;
    msg *prev, *next;         /* the world's list of messages in flight */
    int on_wire;              /* in that list */
    msg *qnext;               /* a paused node's or blocked connection's queue */
};

struct world_conn {
    world *w;
    int from, node;
    char *name;
    char *lat_up, *lat_down;  /* PRNG stream names of the two directions */
    world_reply_fn *on_reply;
    world_push_fn *on_push;
    world_reset_fn *on_reset;
    void *ud;
    int closed;               /* client side gone: deliver nothing more */
    int keep;                 /* world_conn_keep: commands and replies a partition cuts off are held */
    int reset_sent;
    int64_t last_up_us, last_down_us;
    uint64_t woff;            /* replication offset after its last command */
    int blocked;              /* in WAIT or a blocking command: later commands queue */
    uint64_t block_req, block_tag; /* the blocking command's request id and tag (backend_fake.c) */
    void *node_end;           /* the backend's end (fake_conn, real_aconn) while open, else NULL */
    msg *backlog_head, *backlog_tail;
    msg *held_head, *held_tail; /* pushes a partition holds (world_verdict) */
    sim_timer held_timer;       /* the partition's end, when it has one */
};

/* A WAIT in progress. */
typedef struct wwait {
    world_conn *c;
    uint64_t req_id;
    long long want;
    sim_timer timer;
    int expired;              /* its timeout came while the node was paused */
    struct wwait *next;
} wwait;

typedef struct wnode {
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
} wnode;

/* Replication link master -> replica (one per replica). */
typedef struct wlink {
    int master, replica;
    uint64_t acked;           /* the replica's applied offset, as the master knows it */
    int64_t last_down_us, last_up_us;
    char *lat_down, *lat_up;
    int alive;
    uint64_t epoch;           /* bumped at each full sync: what was sent before it is stale */
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
    sim_freelist msgs; /* msg blocks */
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
    const wbackend *be;       /* what the nodes are (backend.h) */
    void *be_state;           /* the backend's own state */
};

/* world.c */
/* A world of s's topology on ctx with no backend yet: the caller (world_new,
 * world_new_real) installs one, then calls repl_init. */
world *world_alloc(sim_ctx *ctx, const scenario *s);
msg *world_msg_new(world *w, world_msg_kind kind, int from, int to);
void world_msg_free(msg *m);
/* Keeps m at paused node n until it resumes (in arrival order). */
void world_hold(wnode *n, msg *m);
/* Puts m on the wire after the policy's verdict: latency from stream
 * `lat`, never before *last (FIFO), which it updates. */
void world_post(world *w, msg *m, const char *lat, const scn_dist *d, int64_t *last);
/* m is in flight outside world_post (a replication message waiting to be
 * sent again): on the world's list, freed with the world if its event
 * never runs; and off it again. */
void world_wire_link(world *w, msg *m);
void world_wire_unlink(world *w, msg *m);
/* The node end of c sends a reply to req_id (r is taken) / a push (msg is
 * taken) back to the client, over the network. */
void world_reply(world_conn *c, uint64_t req_id, sim_reply *r);
void world_push(world_conn *c, sim_reply *msg);
/* c's WAIT or blocking command was answered: the commands that queued
 * behind it run, until one blocks again. */
void world_unblock(world *w, world_conn *c);
/* c's node end is gone: waits, queued commands and the node end go, and
 * the client learns it (once) over the network. */
void world_conn_reset(world_conn *c);
/* The node of c ran a client command sent with tag: the exec hook hears
 * of it when the node is a master. */
void world_ran(world *w, world_conn *c, uint64_t tag);

/* repl.c */
/* Sets the nodes' roles (masters ship effects to their replicas) and the
 * replication links of the initial topology. */
void repl_init(world *w);
void repl_free(world *w);
void repl_deliver(world *w, msg *m);
/* Blocks c on a WAIT (its arguments checked by the node) until `want`
 * replicas acknowledged c's last write, or timeout_ms pass (0: for ever),
 * then replies to req_id with the count. */
void repl_wait(world *w, world_conn *c, uint64_t req_id, long long want, long long timeout_ms);
/* Makes node a replica of master (full sync: a copy of its data). */
void repl_attach(world *w, int node, int master);
void repl_master_down(world *w, int node);
void repl_drop_waits(world *w, world_conn *c);
/* Paused node runs again: the WAITs whose time ran out meanwhile end
 * now (a stopped server times nothing out). */
void repl_resumed(world *w, int node);

#endif /* LOCKSIM_WORLD_INT_H */
