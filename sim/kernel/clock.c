/* clock.c — per-node clocks: local time = true time + offset + drift.
 * Redis nodes judge expiry by theirs, client processes time their waits and
 * leases by theirs; only checkers read true time. All integer arithmetic,
 * so every build reads the same value. */
#include "sim/kernel/sim_int.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* floor(a * m / d) without overflow for any int64 a and |m| < 2^31. */
static int64_t mul_div_floor(int64_t a, int64_t m, int64_t d)
{
    __int128 p = (__int128)a * m;
    __int128 q = p / d;
    if ((p % d != 0) && ((p < 0) != (d < 0))) q--;
    return (int64_t)q;
}

static int64_t drift_since_base(const sim_clock *c, int64_t true_us)
{
    if (c->drift_ppm == 0) return 0;
    return mul_div_floor(true_us - c->drift_base_us, c->drift_ppm, 1000000);
}

void sim_clock_init(sim_clock *c)
{
    c->offset_us = SIM_CLOCK_EPOCH_US;
    c->drift_ppm = 0;
    c->drift_base_us = 0;
}

static int64_t local_at(const sim_clock *c, int64_t true_us)
{
    return true_us + c->offset_us + drift_since_base(c, true_us);
}

int64_t sim_clock_now_us(const sim_ctx *ctx, const sim_clock *c)
{
    return local_at(c, ctx->now_us);
}

int64_t sim_clock_now_ms(const sim_ctx *ctx, const sim_clock *c)
{
    return floor_div(sim_clock_now_us(ctx, c), 1000);
}

void sim_clock_jump(sim_ctx *ctx, sim_clock *c, int64_t delta_us)
{
    (void)ctx;
    c->offset_us += delta_us;
}

void sim_clock_set_drift(sim_ctx *ctx, sim_clock *c, int64_t ppm)
{
    sim_assert(ppm > -1000000 && ppm < 1000000);
    c->offset_us += drift_since_base(c, ctx->now_us);
    c->drift_base_us = ctx->now_us;
    c->drift_ppm = ppm;
}

int64_t sim_clock_true_at(const sim_ctx *ctx, const sim_clock *c, int64_t local_us)
{
    int64_t now = ctx->now_us;
    sim_assert(c->drift_ppm > -1000000); /* a clock that runs, forwards */
    if (local_at(c, now) >= local_us) return now;
    /* Solve base + d + d*ppm/1e6 = local - offset for d, then settle the
     * rounding by stepping; the estimate is within a microsecond or two. */
    int64_t want = local_us - c->offset_us - c->drift_base_us;
    int64_t t = c->drift_base_us + mul_div_floor(want, 1000000, 1000000 + c->drift_ppm);
    if (t < now) t = now;
    while (local_at(c, t) < local_us) t++;
    while (t > now && local_at(c, t - 1) >= local_us) t--;
    sim_assert(t >= now && local_at(c, t) >= local_us && (t == now || local_at(c, t - 1) < local_us));
    return t;
}
