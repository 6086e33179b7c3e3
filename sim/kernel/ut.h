/* ut.h — uthash configured for locksim: every table hashes with XXH3 and
 * expands early (short chains). Include this instead of <uthash.h>, so all
 * code touching a table agrees on its hash function. uthash iterates in
 * insertion order, which is what keeps runs deterministic. */
#ifndef LOCKSIM_UT_H
#define LOCKSIM_UT_H

#include <xxhash.h>

#include "sim/kernel/sim.h"

#define HASH_FUNCTION(keyptr, keylen, hashv) \
    ((hashv) = (unsigned)XXH3_64bits((keyptr), (size_t)(keylen)))
#define HASH_BKT_CAPACITY_THRESH 4U
#define uthash_malloc(sz) sim_xmalloc(sz)
#define uthash_free(ptr, sz) sim_xfree(ptr)

#include <uthash.h>

#endif /* LOCKSIM_UT_H */
