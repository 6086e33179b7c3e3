/* world.h — the simulated deployment: Redis nodes (fake), the network
 * between them and the client processes, and the connections clients hold
 * to nodes. Messages travel with a latency drawn per message, in order on
 * each connection (TCP), and run on arrival.
 *
 * The world knows nothing of lock protocols: a client connection delivers
 * replies and pushes to callbacks of the client runtime, which decides
 * what a paused or crashed process does with them. */
#ifndef LOCKSIM_WORLD_H
#define LOCKSIM_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "fake/fake.h"
#include "scn/scn.h"
#include "sim.h"

typedef struct world world;
typedef struct world_conn world_conn;

/* Endpoint numbers: nodes are 0..nodes-1, clients are WORLD_CLIENT(i). */
#define WORLD_CLIENT_BASE 1000
#define WORLD_CLIENT(i) (WORLD_CLIENT_BASE + (i))

/* Creates the nodes and the network of scenario s on ctx. The scenario is
 * borrowed for the life of the world. */
world *world_new(sim_ctx *ctx, const scenario *s);
void world_free(world *w);
sim_ctx *world_ctx(const world *w);
int world_nodes(const world *w);
fake_node *world_node(world *w, int i);
/* The node's name in traces: "redis0", ... */
const char *world_node_name(const world *w, int i);
/* Commands executed by all nodes (scripts count once). */
uint64_t world_commands(const world *w);
uint64_t world_evals(const world *w);

/* Called with each reply, in request order; the reply is borrowed. */
typedef void world_reply_fn(void *ud, const sim_reply *reply);
/* Called with each push (pub/sub message or confirmation); borrowed. */
typedef void world_push_fn(void *ud, const sim_reply *msg);
/* Called after every command a node runs, with the tag it was sent with
 * (store observers use it). */
typedef void world_exec_fn(void *ud, int node, uint64_t tag);

/* Opens a connection from client endpoint `from` (WORLD_CLIENT(i)) to
 * node. Replies and pushes are delivered to on_reply/on_push (at arrival
 * time, after the network); name labels the connection in traces
 * ("c1>redis0"). The connection exists on the node once the open message
 * arrives. */
world_conn *world_connect(world *w, int from, int node, const char *name,
                          world_reply_fn *on_reply, world_push_fn *on_push, void *ud);
/* Sends a command (argv copied). Replies come to on_reply in the order
 * the commands were sent; tag is handed to the exec hook when it runs. */
void world_send(world_conn *c, int argc, const char *const *argv, const size_t *lens,
                uint64_t tag);
/* Closes the connection: the node drops it (and its subscriptions) when
 * the close arrives, after any request sent before. No callback runs for
 * this connection afterwards. */
void world_close(world_conn *c);
void world_set_exec_hook(world *w, world_exec_fn *fn, void *ud);


#endif /* LOCKSIM_WORLD_H */
