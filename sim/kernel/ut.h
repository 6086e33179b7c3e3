/* ut.h — uthash configured for locksim: every table hashes with one
 * function (ut_hash) and expands early (short chains). Include this
 * instead of <uthash.h>, so all code touching a table agrees on its hash
 * function. uthash iterates in
 * insertion order, which is what keeps runs deterministic. */
#ifndef LOCKSIM_UT_H
#define LOCKSIM_UT_H

#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "sim/kernel/sim.h"

/* murmur3's finaliser for short keys, XXH3 for the rest. Which function a
 * table hashes with changes its buckets only, never its (insertion) order. */
static inline uint64_t ut_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

/* Keys of 4, 8, 12 or 16 bytes (ids, tags, numbers, tuples of ints: most
 * lookups of a run and of its checkers) mix inline, a word at a time. */
static inline unsigned ut_hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t a, b = 0;
    uint32_t h;
    switch (len) {
    case 4:
        memcpy(&h, p, 4);
        return (unsigned)ut_mix(h);
    case 8:
        memcpy(&a, p, 8);
        return (unsigned)ut_mix(a);
    case 12:
        memcpy(&a, p, 8);
        memcpy(&h, p + 8, 4);
        b = h;
        return (unsigned)ut_mix(a ^ ut_mix(b + len));
    case 16:
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        return (unsigned)ut_mix(a ^ ut_mix(b + len));
    default:
        return (unsigned)XXH3_64bits(key, len);
    }
}

#ifndef HASH_FUNCTION /* bench/floor.c keeps its own */
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = ut_hash((keyptr), (size_t)(keylen)))
#endif
#define HASH_BKT_CAPACITY_THRESH 4U
#define uthash_malloc(sz) sim_xmalloc(sz)
#define uthash_free(ptr, sz) sim_xfree(ptr)

#include <uthash.h>

#endif /* LOCKSIM_UT_H */
