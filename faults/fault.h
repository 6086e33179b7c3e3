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
#include "protocols/protocol.h"
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

/* ----------------------------------------------------- the contract */

/* Why a fault line is beyond a protocol's contract (contract.c); 0: it is
 * within. FAULT_BEYOND_KIND + b: kind 1 << b is not claimed at all. */
enum {
    FAULT_WITHIN,
    FAULT_BEYOND_PAUSE,     /* a client pause longer than the renewal margin */
    FAULT_BEYOND_PARTITION, /* a client cut off longer than it */
    FAULT_BEYOND_NODE_PAUSE,
    FAULT_BEYOND_DELAY,     /* a round trip past the reply timeout or the margin */
    FAULT_BEYOND_DROP,      /* replies lost longer than the margin */
    FAULT_BEYOND_CLOCK,     /* a node's clock jump */
    FAULT_BEYOND_FAILOVER,  /* to a replica the lock did not WAIT for */
    FAULT_BEYOND_RESTART,   /* a node restart without persistence */
    FAULT_BEYOND_HOLD,      /* the workload holds past its fixed lease */
    FAULT_BEYOND_UNDECIDED, /* the failure follows an operation that failed with an error
                               and may have run (the application was told) */
    FAULT_BEYOND_RETRY,     /* the application released again after a failed release */
    FAULT_BEYOND_SELF,      /* a thread waits for a lock its own hold keeps (an upgrade) */
    FAULT_BEYOND_FAILOVER_HOLDUP, /* a failover whose hold-up outlasts the renewal margin */
    FAULT_BEYOND_DISCONNECT, /* a disconnect whose reconnect and resend outlast the margin */
    FAULT_BEYOND_CRASH_OUTAGE, /* a master down longer than the margin (to its restart or
                                  the failover's discovery) */
    FAULT_BEYOND_KIND       /* + the kind's bit index */
};
/* The nemesis kind (SCN_NEM_* bit) of fault line st; 0 for a line of no
 * kind of the vocabulary (a client operation, a restart or heal, a drop
 * or fiu rule). */
int fault_kind_of(const scn_step *st);
/* The reason of code, one line with its source, into buf. */
size_t fault_beyond_text(int code, char *buf, size_t cap);
/* Line st of scenario s (a drawn one) judged against contract c of pd,
 * whose renewal margin on s is margin (proto_margin). */
int fault_beyond(const proto_def *pd, const proto_contract *c, const scenario *s, const scn_step *st, int64_t margin);
/* The workload of s judged so: FAULT_BEYOND_HOLD when its holds outlast
 * a fixed lease, else 0. */
int fault_beyond_workload(const proto_def *pd, const scenario *s);
/* The first reason, in line order, among the lines of v[0..n) that start
 * in [from_us, to_us], the workload's first, then cut-offs of one client
 * (partitions, node pauses) closer than a resend, judged as one; 0 when
 * all are within. */
int fault_beyond_first(const proto_def *pd, const scenario *s, const scn_step *v, size_t n, int64_t from_us,
                       int64_t to_us);
/* [swarm] within-contract: keeps c (what fault_swarm_draw drew from s)
 * within the contract of its protocol and of s's [swarm] reference: the
 * kinds both claim (no node clock; no failover for a lock that does not
 * WAIT where the contract asks it; no lost reply where the margin is
 * shorter than the reply timeout), nodes that persist where a node crash
 * is kept, and fault durations within half the renewal margin, within the
 * margin less the reply timeout where a partition, a node pause or a node
 * crash loses or holds up replies, a delay's round trip within the reply
 * timeout; where no duration fits, no kind that holds a holder up. Draws
 * nothing: every other draw of the seed stays what it was. */
void fault_contract_draw(const scenario *s, scenario *c);

#endif /* LOCKSIM_FAULT_H */
