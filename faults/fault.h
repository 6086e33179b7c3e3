/* fault.h — the fault vocabulary and its schedule: the faults a scenario
 * names ([faults], or fault lines in [steps]) become events at their true
 * times that act on the world's clients and nodes. */
#ifndef LOCKSIM_FAULT_H
#define LOCKSIM_FAULT_H

#include "protocols/protocol.h"
#include "scn/scn.h"
#include "sim.h"
#include "world/world.h"

typedef struct fault_sched fault_sched;

/* Schedules every fault line of s on ctx, acting on w and cw. */
fault_sched *fault_schedule(sim_ctx *ctx, world *w, cl_world *cw, const scenario *s);
void fault_sched_free(fault_sched *f);

#endif /* LOCKSIM_FAULT_H */
