/* rng.c — seeded randomness: splitmix64 for deriving seeds, xoshiro256** for
 * streams, the named streams of a context, and the choice point.
 *
 * A stream's state depends only on (seed, name): streams are independent, so
 * a component drawing more numbers never shifts another component's draws. */
#include <string.h>

#include "sim/kernel/ut.h"

#include "sim/kernel/sim_int.h"

struct sim_stream_entry {
    sim_rng rng;
    UT_hash_handle hh;
    char name[]; /* NUL-terminated key */
};

uint64_t sim_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed)
{
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) r->s[i] = sim_splitmix64(&sm);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sim_rng_below(sim_rng *r, uint64_t n)
{
    sim_assert(n > 0);
    /* Reject v below 2^64 mod n. That bound is below n, so a draw of n or
     * more (every draw but one in 2^64 / n) is kept without dividing for it. */
    for (;;) {
        uint64_t v = sim_rng_next(r);
        if (v >= n || v >= (0 - n) % n) return v % n;
    }
}

sim_rng *sim_stream(sim_ctx *ctx, const char *name)
{
    /* Most names are string constants, drawn from again and again: the
     * memo at the name's address answers without hashing it. */
    sim_assert(name != NULL);
    size_t slot = (size_t)(((uint64_t)(uintptr_t)name * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - SIM_STREAM_MEMO_BITS));
    sim_stream_entry *e = ctx->stream_memo[slot].e;
    if (ctx->stream_memo[slot].name == name && strcmp(e->name, name) == 0) return &e->rng;
    size_t len = strlen(name);
    HASH_FIND(hh, ctx->streams, name, len, e);
    if (e) {
        ctx->stream_memo[slot].name = name;
        ctx->stream_memo[slot].e = e;
        return &e->rng;
    }
    e = sim_xmalloc(sizeof *e + len + 1);
    memcpy(e->name, name, len + 1);
    uint64_t mix = ctx->seed ^ XXH3_64bits(name, len);
    sim_rng_seed(&e->rng, sim_splitmix64(&mix));
    HASH_ADD(hh, ctx->streams, name[0], len, e);
    return &e->rng;
}

void sim_streams_free(sim_ctx *ctx)
{
    sim_stream_entry *e, *tmp;
    HASH_ITER(hh, ctx->streams, e, tmp) {
        HASH_DEL(ctx->streams, e);
        sim_xfree(e);
    }
}

uint64_t sim_choose(sim_ctx *ctx, uint64_t n, const char *label)
{
    if (n <= 1) return 0;
    ctx->choices++;
    if (ctx->chooser) {
        uint64_t v = ctx->chooser(ctx->chooser_ud, ctx, n, label);
        sim_assert(v < n);
        return v;
    }
    return sim_choose_seeded(ctx, n, label);
}

uint64_t sim_choose_seeded(sim_ctx *ctx, uint64_t n, const char *label)
{
    return sim_rng_below(sim_stream(ctx, label), n);
}

void sim_set_chooser(sim_ctx *ctx, sim_chooser_fn *fn, void *ud)
{
    ctx->chooser = fn;
    ctx->chooser_ud = ud;
}

uint64_t sim_choices(const sim_ctx *ctx)
{
    return ctx->choices;
}
