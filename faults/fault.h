/* fault.h — the fault vocabulary and its schedule: the faults a scenario
 * names ([faults], fault lines in [steps], or what the [nemesis] generates
 * from the seed) become events at their true times acting on the world's
 * nodes and network and on the clients. Message-level faults are libfiu
 * failure points (net/partition, net/drop, net/drop-reply, net/delay,
 * redis/pubsub/deliver, redis/replicate), enabled with
 * fiu_enable_external and decided by the simulator's PRNG. */
#ifndef LOCKSIM_FAULT_H
#define LOCKSIM_FAULT_H

#include "protocols/client/client.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"
#include "sim/world/world.h"

typedef struct fault_sched fault_sched;

/* Schedules every fault line of s, and the n extra ones (the nemesis's),
 * on ctx, acting on w and cw; installs the network policy and the libfiu
 * points for the run. */
fault_sched *fault_schedule(sim_ctx *ctx, world *w, cl_world *cw, const scenario *s,
                            const scn_step *extra, size_t n);
/* Disables the libfiu points and frees the schedule. */
void fault_sched_free(fault_sched *f);

/* The libfiu points locksim checks, NULL-terminated (for `locksim list`). */
extern const char *const fault_fiu_points[];

/* The [nemesis] of s, drawn from ctx's stream "nemesis": fault lines
 * (scn_step, generated = 1) in time order; *out is the caller's to free.
 * Returns how many. */
size_t fault_nemesis(sim_ctx *ctx, const scenario *s, scn_step **out);

/* Swarm testing (swarm.c): the scenario seed makes of s — s with the
 * nemesis's kinds, interval, durations, window and loss, and the
 * workload's clients, threads, hold, think, reentrancy and lease drawn
 * within s's [swarm] bounds from a PRNG of the seed's own. A shallow copy
 * that borrows s's strings and steps (free it with fault_swarm_free,
 * never scn_free); written out (scn_write) it is a plain scenario whose
 * run with seed makes the same faults. desc: the drawn values, one line. */
scenario *fault_swarm_draw(const scenario *s, uint64_t seed, char *desc, size_t cap);
void fault_swarm_free(scenario *c);

#endif /* LOCKSIM_FAULT_H */
