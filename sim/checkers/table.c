/* table.c — the checker table: which checker judges which invariants, for
 * which protocols (by the invariants they declare), and in what order the
 * checkers run; check_all runs it, `locksim list` prints it.
 *
 * The order is the order of the violations in a result: it only grows. */
#include "sim/checkers/checkers_int.h"

#define INV(i) CHECK_INV(SCN_INV_##i)
#define COUNTERS (INV(PERMITS) | INV(LATCH)) /* counter objects judge liveness and deadlock themselves */

static const check_row rows[] = {
    {"mutual-exclusion", INV(MUTEX), INV(MUTEX), 0, CHECK_HOLDS(CHECK_HOLDS_DEPTH), check_mutex,
     "no two threads believe they hold the same lock at the same true time"},
    {"reentrancy", INV(REENTRANCY), INV(REENTRANCY), 0, 0, check_reentrancy,
     "after each acquire / release the store counts the depth the thread believes it has"},
    {"liveness", INV(LIVENESS), INV(LIVENESS), COUNTERS, CHECK_HOLDS(CHECK_HOLDS_DEPTH), check_liveness,
     "no acquire waits past the bound while the lock is free in the store (a lost wake-up)"},
    {"deadlock", INV(DEADLOCK), INV(DEADLOCK), COUNTERS, 0, check_deadlock,
     "at the end no cycle of waiting threads, and no wait on a lock a dead process holds for ever"},
    {"permits", INV(PERMITS) | INV(LIVENESS) | INV(DEADLOCK), INV(PERMITS), INV(LEASES), 0, check_permits,
     "semaphores: no more permits held than set, none created or lost, no wait for permits in vain"},
    {"latch", INV(LATCH) | INV(LIVENESS), INV(LATCH), 0, 0, check_latch,
     "count-down latches: no await released before count countDown()s, none waiting past the bound after"},
    {"fencing", INV(FENCING), INV(FENCING), 0, 0, check_fencing,
     "the fenced resource accepted no write out of token order, nor two holders' under one token"},
    {"rw-exclusion", INV(RW_EXCLUSION), INV(RW_EXCLUSION), 0, CHECK_HOLDS(CHECK_HOLDS_SIDES), check_rw_exclusion,
     "a write hold overlaps no other thread's hold of the lock; read holds share"},
    {"fifo", INV(FIFO), INV(FIFO), 0, 0, check_fifo,
     "a fair lock grants in queue order: no first acquisition overtakes a thread queued before it"},
    {"starvation", INV(STARVATION), INV(STARVATION), 0, 0, check_starvation,
     "no thread sees more grants to others than the bound during one wait"},
    {"leases", INV(PERMITS) | INV(LIVENESS) | INV(DEADLOCK) | INV(LEASES), INV(LEASES), 0, 0, check_leases,
     "expirable semaphores: permits as above with leases; no release answered released past its lease or twice"},
    {"dead-holder", INV(DEAD_HOLDER), INV(DEAD_HOLDER), 0, 0, check_dead_holder,
     "a hold whose holders all crashed or let it go is free within the lease asked (watchdog timeout) + margin; no lease "
     "longer than asked"},
};

#define NROWS (sizeof rows / sizeof rows[0])

const check_row *check_rows(size_t *n)
{
    *n = NROWS;
    return rows;
}

int check_applies(const check_row *row, unsigned declared)
{
    return (declared & row->when) == row->when && (declared & row->unless) == 0;
}

void check_all(const history *h, const check_input *in, unsigned declared, check_result *r)
{
    unsigned rules = 0;
    for (size_t i = 0; i < NROWS; i++)
        if (check_applies(&rows[i], declared)) rules |= rows[i].holds;
    check_holds *hs = check_holds_build(h, in->nlocks, rules);
    check_impaired *im = check_impaired_build(in);
    check_input with = *in;
    with.impaired = im;
    for (size_t i = 0; i < NROWS; i++)
        if (check_applies(&rows[i], declared)) rows[i].fn(h, hs, &with, r);
    check_impaired_free(im);
    check_holds_free(hs);
    check_mark_retried(h, r);
}
