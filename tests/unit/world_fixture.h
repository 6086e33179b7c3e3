/* world_fixture.h — what the world and fault tests share: a small
 * deployment built from scenario text, and a client endpoint that records
 * the replies, pushes and resets it receives. */
#ifndef LOCKSIM_WORLD_FIXTURE_H
#define LOCKSIM_WORLD_FIXTURE_H

#include <stdint.h>

#include "sim/scn/scn.h"
#include "sim/world/world.h"

typedef struct wf_rec {
    int replies, pushes, resets;
    char last[256];      /* the last reply or push, formatted */
    uint64_t ids[64];    /* request ids of the first 64 replies */
    int messages;        /* pushes that are pub/sub "message"s */
} wf_rec;

void wf_on_reply(void *ud, uint64_t id, const sim_reply *r);
void wf_on_push(void *ud, const sim_reply *r);
void wf_on_reset(void *ud);

/* A scenario with one group of `replicas` replicas, latency 100..900 µs,
 * replication lag 10..20 ms, down-after 1 s, discovery 100 ms, plus
 * `extra` appended (e.g. a [faults] section). */
scenario wf_topo(int replicas, int persistence, const char *extra);

/* A running deployment: the scenario, the sim, the world, and the fault
 * schedule of its [faults] (when `faults` is not empty). */
typedef struct wf_run {
    scenario s;
    sim_ctx *ctx;
    world *w;
    struct fault_sched *f;
} wf_run;

void wf_start(wf_run *r, int replicas, int persistence, const char *faults, uint64_t seed);
void wf_end(wf_run *r);

/* Sends a command of one to three words. */
void wf_send(world_conn *c, uint64_t id, const char *a, const char *b, const char *cc);

/* Connects client 1 to node 0, recording into r. */
world_conn *wf_connect(world *w, wf_rec *r);

#endif /* LOCKSIM_WORLD_FIXTURE_H */
