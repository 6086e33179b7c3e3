/* hunt.h — what `locksim hunt` is made of: the base scenario a protocol
 * is hunted with (swarm testing over every fault kind), and failure
 * signatures: the invariant a run breaks and the shape of the faults
 * behind it. A run's signature (the faults shortly before its first
 * violation) groups failures cheaply; a shrunk scenario's signature (the
 * faults left when no one can be removed) names the bug. */
#ifndef LOCKSIM_HUNT_H
#define LOCKSIM_HUNT_H

#include <stddef.h>
#include <stdint.h>

#include "protocols/protocol.h"
#include "sim/engine/run.h"
#include "sim/engine/shrink.h"

/* Fault kinds beyond the nemesis's (SCN_NEM_* bits): lines a scenario
 * writes by hand. */
#define HUNT_KIND_DROP (1u << SCN_NEM_COUNT)       /* drop link=A-B */
#define HUNT_KIND_FIU (1u << (SCN_NEM_COUNT + 1))  /* fiu POINT */
/* Not a fault line but how the first violation came about: the store let
 * the first holder's key expire (CHECK_CAUSE_LEASE_RAN_OUT). A lease that
 * runs out while its holder is held up is one bug; a release run twice
 * or a failover that loses the key is another, after the same faults. */
#define HUNT_KIND_LEASE_EXPIRY (1u << (SCN_NEM_COUNT + 2))
/* A fail-reply is told by the command whose reply it fails (in place of
 * SCN_NEM_FAIL_REPLY): a lost renewal and a lost unlock are two bugs. */
#define HUNT_KIND_FAIL_ACQUIRE (1u << (SCN_NEM_COUNT + 3))
#define HUNT_KIND_FAIL_UNLOCK (1u << (SCN_NEM_COUNT + 4))
#define HUNT_KIND_FAIL_RENEW (1u << (SCN_NEM_COUNT + 5))
/* Not a fault but the application: a thread called a failed release once
 * more before the first violation (CHECK_CAUSE_RETRIED_RELEASE: [clients]
 * retry-unlock, or an unlock step after an unlock that failed). A retry
 * that releases twice is the application's bug, not the lock's. */
#define HUNT_KIND_RETRY_UNLOCK (1u << (SCN_NEM_COUNT + 6))
/* Not faults but the shape of the semaphore or latch wait that starved
 * (its CHECK_CAUSE_WAIT_MANY / MIXED_N / ASYNC / SIBLING): a wake-up too
 * small for n, a wake-up taken by a sibling that wants another n, and one
 * listener run per message starve alike, and are three bugs. A sibling of
 * another n is mixed-n only. */
#define HUNT_KIND_WAIT_MANY (1u << (SCN_NEM_COUNT + 7))
#define HUNT_KIND_MIXED_N (1u << (SCN_NEM_COUNT + 8))
#define HUNT_KIND_ASYNC_WAIT (1u << (SCN_NEM_COUNT + 9))
#define HUNT_KIND_SIBLING (1u << (SCN_NEM_COUNT + 10))
/* Permits lost or created where only operations that failed with an error
 * explain it (CHECK_CAUSE_FAILED_OP): a lost reply the application was
 * told of, not a resend that ran twice behind a success. */
#define HUNT_KIND_FAILED_OP (1u << (SCN_NEM_COUNT + 11))
/* A waiter slept through permits an addPermits made (CHECK_CAUSE_ADDED):
 * the wake-up addPermits owes, not a release's. */
#define HUNT_KIND_ADDED (1u << (SCN_NEM_COUNT + 12))
/* An async waiter's listener came after the message it waited for
 * (CHECK_CAUSE_LATE_LISTENER): a race in the waiter, not a message that
 * left listeners behind. */
#define HUNT_KIND_LATE_LISTENER (1u << (SCN_NEM_COUNT + 13))
/* Permits over the bound, created or lost after an addPermits was resent
 * on a reply timeout (CHECK_CAUSE_ADD_RESENT): not a resent release. */
#define HUNT_KIND_ADD_RESENT (1u << (SCN_NEM_COUNT + 14))
/* Read/write exclusion broken over a write hold (CHECK_CAUSE_OVER_WRITE),
 * not over a read one: a write lock lost under its holder (its watchdog
 * stopped by a read unlock) and a long reader cut short by a short
 * reader's lease are two bugs, after the same faults. */
#define HUNT_KIND_OVER_WRITE (1u << (SCN_NEM_COUNT + 15))
/* The starving waiter waited with no timeout (CHECK_CAUSE_PARKED): lock()
 * answered a negative TTL parks until a message (the fair lock before
 * 3.32, whose purged waiters hang), where a waiter with a timeout polls a
 * lock some fault or purge keeps from it. Only lock() parks. */
#define HUNT_KIND_PARKED (1u << (SCN_NEM_COUNT + 16))
#define HUNT_KINDS (SCN_NEM_COUNT + 17)
#define HUNT_ALL_KINDS ((1u << HUNT_KINDS) - 1)
/* The kinds a seed's draw decides: its fault lines', and the waits and
 * causes its workload allows (an async wait needs the async API, a
 * sibling two threads, an add-permits cause an addPermits share, a parked
 * waiter lock()). */
#define HUNT_DRAWN_KINDS \
    (HUNT_LINE_KINDS | HUNT_KIND_ASYNC_WAIT | HUNT_KIND_LATE_LISTENER | HUNT_KIND_SIBLING | HUNT_KIND_MIXED_N | \
     HUNT_KIND_ADDED | HUNT_KIND_ADD_RESENT | HUNT_KIND_PARKED)

typedef struct hunt_sig {
    int inv;          /* the first invariant broken (scn_invariant), or -1: an expectation missed */
    unsigned invs;    /* every invariant broken (bit i: scn_invariant i) */
    unsigned kinds;   /* SCN_NEM_* and HUNT_KIND_* bits */
    unsigned held;    /* a wanted signature: invariants its known bug holds
                         (another failure breaks one of them: another bug) */
    int beyond;       /* FAULT_WITHIN (0), or why a fault behind it is beyond the
                         protocol's contract (FAULT_BEYOND_*, faults/fault.h) */
} hunt_sig;

/* How a protocol's base scenario is made. */
typedef struct hunt_base_opts {
    int beyond;          /* draw faults beyond the contract too (--beyond-contract) */
    const char *against; /* the reference protocol (--against): the draws follow what both declare */
} hunt_base_opts;

/* The scenario text a protocol is hunted with ("redisson.lock@2019", a
 * bundled lock policy): 60 virtual seconds, [nemesis] kinds = any drawn
 * within the protocol's contract (and the reference's: o->against) unless
 * o->beyond, and
 * [swarm] bounds that keep hold times under the shortest lease (so what
 * fails, fails by a fault; holds outlast a lease only where a checker
 * tells that from a bug), lock() or tryLock(wait), the sync or async
 * API, the workload shapes (hunt.c: template_shapes), client-clock faults
 * and crashes on a reply for a share of the seeds, replicas for
 * failovers, the masters, members, permits or count the protocol needs,
 * and for a protocol with fencing tokens the fenced resource (refusing
 * stale tokens in half the seeds). malloc'd; NULL with err set when the
 * name is not in the catalogue. */
char *hunt_template(const char *target, const hunt_base_opts *o, scn_error *err);
/* The protocol a hunt names: a catalogue name, or a lock policy file by
 * its absolute path; NULL when there is none, with err (when not NULL)
 * set to the policy file's own error (file:line) when it does not load,
 * else to the unknown name's (with a did-you-mean, line 0). */
const proto_def *hunt_find(const char *name, scn_error *err);
/* 1 when a and b lock the same kind of object (a lock, a read/write
 * lock, a semaphore, a latch), else 0 with why (one line). */
int hunt_comparable(const proto_def *a, const proto_def *b, char *why, size_t cap);

/* The fault kind of one timed line (0: not a fault of its own, such as
 * restart or heal), one of HUNT_LINE_KINDS. */
unsigned hunt_kind_of(const scn_step *st);
/* The kinds a fault line can have; the other bits of a signature are
 * causes (HUNT_KIND_LEASE_EXPIRY, ...). */
#define HUNT_LINE_KINDS \
    (((1u << SCN_NEM_COUNT) - 1) | HUNT_KIND_DROP | HUNT_KIND_FIU | HUNT_KIND_FAIL_ACQUIRE | HUNT_KIND_FAIL_UNLOCK | \
     HUNT_KIND_FAIL_RENEW)
/* The kinds of the lines of v[0..n) that start in [from_us, to_us]. */
unsigned hunt_kinds(const scn_step *v, size_t n, int64_t from_us, int64_t to_us);

/* The kinds a run of the drawn scenario s can have: its own lines', with
 * its nemesis the kinds of the lines each of its nemesis kinds writes
 * (faults/nemesis.c: a fail-reply may fail an acquire, an unlock or a
 * renewal), the waits and causes its workload allows (HUNT_DRAWN_KINDS),
 * and every kind a draw does not decide. A seed whose draw lacks a kind of
 * a wanted signature can never have room for it: --want skips it unrun. */
unsigned hunt_drawable_kinds(const scenario *s);
/* hunt_drawable_kinds of what swarm testing draws from base for seed. */
unsigned hunt_seed_kinds(const scenario *base, uint64_t seed);

/* A shrink admit callback (shrink_admit_fn) for a hunt with --want:
 * 1 when cand has a fault line of each line kind of *(const unsigned *)
 * kinds (HUNT_LINE_KINDS: the other bits, such as HUNT_KIND_LEASE_EXPIRY,
 * are causes, which the shrinker keeps already) starting no later than got's first violation (a fault after it
 * cannot have caused it; got NULL: at any time), or still has its nemesis
 * (it draws its faults itself). */
int hunt_keeps_kinds(const scenario *cand, const shrink_failure *got, void *kinds);
/* The line kinds of kinds (HUNT_LINE_KINDS) that s (a --want shrink's
 * result, run with seed) does not need: without every fault line of such
 * a kind it still fails as want does. The shrink cannot tell, as it keeps
 * a line of each wanted kind (hunt_keeps_kinds): a crash of a client that
 * only waited stays in a failure that comes without it. Those kinds are
 * not in the failure's signature. One run per kind of s in kinds. */
unsigned hunt_spare_kinds(const scenario *s, uint64_t seed, const shrink_failure *want, unsigned kinds);
/* A shrink_line_fn for a hunt that wants *kinds: a fault line of another
 * kind (restart and heal lines, no kind, are not). A candidate whose
 * failure needs one can never have the wanted signature: its shrink stops
 * before its duration and distribution steps. */
int hunt_unwanted_line(const scn_step *line, void *kinds);

/* How far back from a first violation a run's signature looks. */
#define HUNT_WINDOW_US SIM_SEC(10)

/* 1 when r fails (shrink_classify), with its run signature in *sig: the
 * invariant and the kinds of the faults (the scenario's and the
 * nemesis's) that acted in the window before the first violation (the
 * whole run when that violation is judged at the end of the run: a
 * deadlock), by when each acted (run_result.acted_us: a fail-reply line
 * at the reply it spoiled); a window longer by the run's longest lease
 * when the violation's cause is a lease that ran out (it was set a lease
 * before, and what stopped its renewal came before that). */
int hunt_run_sig(const run_result *r, hunt_sig *sig);
/* hunt_run_sig as if r had broken only the invariants of mask (its
 * earliest violation among them decides the window), its invs still
 * every one r broke; 0 when r broke none of mask. A hunt for a known bug
 * reads a run so when an earlier violation of another invariant (one the
 * reference breaks as well) would set the window elsewhere. */
int hunt_run_sig_among(const run_result *r, unsigned mask, hunt_sig *sig);
/* The signature of a shrunk scenario: its failure's invariant, the kinds
 * of all its fault lines. */
void hunt_shrunk_sig(const shrink_result *k, hunt_sig *sig);
/* Does a run signature leave room for target (every invariant and every
 * fault kind of target there, the same cause)? A run that also breaks an
 * invariant target holds still does: over a whole run other faults break
 * other things, and shrinking takes them away. Equal: the same invariants
 * broken after the same fault kinds. */
int hunt_sig_covers(const hunt_sig *run, const hunt_sig *target);
int hunt_sig_equal(const hunt_sig *a, const hunt_sig *b);
/* Is a shrunk signature the wanted one: every invariant of want broken
 * (others may be too, but none that want holds), after exactly want's
 * fault kinds, by the same cause? */
int hunt_sig_matches(const hunt_sig *got, const hunt_sig *want);
/* "mutual-exclusion after pause+clock", "reentrancy+liveness (no fault)",
 * "liveness of a mixed-n waiter (no fault)". */
void hunt_sig_text(const hunt_sig *s, char *buf, size_t cap);

#endif /* LOCKSIM_HUNT_H */
