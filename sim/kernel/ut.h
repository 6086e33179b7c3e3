/* ut.h — uthash configured for locksim: every table hashes with one
 * function (ut_hash) and expands early (short chains). Include this instead of <uthash.h>, so all
 * code touching a table agrees on its hash function. uthash iterates in
 * insertion order, which is what keeps runs deterministic. */
#ifndef LOCKSIM_UT_H
#define LOCKSIM_UT_H

#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "sim/kernel/sim.h"

/* Keys of 4 or 8 bytes (ids, tags, numbers: most lookups of a run) mix
 * inline (murmur3's finalizer); the rest go to XXH3. Which function a table
 * hashes with changes its buckets only, never its (insertion) order. */
static inline unsigned ut_hash_word(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return (unsigned)k;
}

static inline unsigned ut_hash(const void *key, size_t len)
{
    if (len == 8) {
        uint64_t k;
        memcpy(&k, key, 8);
        return ut_hash_word(k);
    }
    if (len == 4) {
        uint32_t k;
        memcpy(&k, key, 4);
        return ut_hash_word(k);
    }
    return (unsigned)XXH3_64bits(key, len);
}

#ifndef HASH_FUNCTION /* bench/floor.c keeps its own */
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = ut_hash((keyptr), (size_t)(keylen)))
#endif
#define HASH_BKT_CAPACITY_THRESH 4U
#define uthash_malloc(sz) sim_xmalloc(sz)
#define uthash_free(ptr, sz) sim_xfree(ptr)

#include <uthash.h>

#endif /* LOCKSIM_UT_H */
