/* sim.c — the sim context: virtual time, the event queue and timers.
 *
 * The queue orders events by (time, seq), where seq is a counter taken
 * when the event is scheduled, so two runs that schedule the same events
 * in the same order dispatch them in the same order. Time only advances
 * when the earliest event is in the future.
 *
 * Three places hold events, and the next event is the smallest (time,
 * seq) of their heads:
 *  - the now FIFO: events scheduled for the current time (posts, zero
 *    delays: about half of them), in seq order and all due now (time
 *    cannot advance while it holds a live event);
 *  - the near heap: events due within SIM_NEAR_US, the busy part;
 *  - the far heap: the rest (timeouts, watchdog ticks: a contended run
 *    keeps a thousand of them), so the near heap stays shallow.
 * Both heaps are 4-ary min-heaps. Cancelled timer events are marked dead
 * and dropped when they surface, or all at once when they come to
 * outnumber the live ones of their heap (it is rebuilt; since (time, seq)
 * orders every pair, the dispatch order cannot change).
 *
 * Invariants (asserted): time never goes backwards, and an event runs at
 * or after the time it is due; every queued event's `where` names the
 * place that holds it, its slot carries its own (time, seq), a parent
 * slot is never after its children, and the FIFO holds only events due
 * now, in seq order; each place's dead count is the number of cancelled
 * events in it; an armed timer's event points back at it (ev->owner ==
 * t) and a dead or released event has no owner; a released event is not
 * released twice; at most SIM_INSTANT_MAX events run at one instant (a
 * loop that takes no virtual time would never end). The O(n) sweeps run
 * in the paranoid builds only, every SIM_SWEEP_EVERY events. */
#include <stdlib.h>
#include <string.h>

#include "sim/kernel/sim_int.h"

#define SIM_NEAR_US 100000 /* 100 ms */
#define SIM_SWEEP_EVERY 1024
/* Events at one instant: a run that takes no virtual time is a loop. A
 * thousand-client run starts a few thousand at once; the paranoid builds
 * (fuzzing) stop sooner. */
#define SIM_INSTANT_MAX (SIM_PARANOID_ON ? UINT64_C(1) << 22 : UINT64_C(1) << 26)

sim_ctx *sim_new(uint64_t seed)
{
    sim_ctx *ctx = sim_xcalloc(1, sizeof *ctx);
    ctx->seed = seed;
    ctx->next_seq = 1;
    ctx->event_trace = 1;
    sim_trace_init(ctx);
    return ctx;
}

static void heap_free(sim_heap *h, int where)
{
    for (size_t i = 0; i < h->len; i++) {
        sim_event *ev = h->v[i].ev;
        sim_assert(ev->where == where);
        if (ev->owner) ev->owner->ev = NULL;
        sim_xfree(ev);
    }
    sim_xfree(h->v);
}

void sim_free(sim_ctx *ctx)
{
    if (ctx == NULL) return;
    heap_free(&ctx->near, SIM_IN_NEAR);
    heap_free(&ctx->far, SIM_IN_FAR);
    for (size_t i = 0; i < ctx->now_len; i++) {
        sim_event *ev = ctx->now[(ctx->now_head + i) % ctx->now_cap];
        sim_assert(ev->where == SIM_IN_NOW);
        if (ev->owner) ev->owner->ev = NULL;
        sim_xfree(ev);
    }
    sim_xfree(ctx->now);
    while (ctx->free_events) {
        sim_event *ev = ctx->free_events;
        sim_assert(ev->where == SIM_IN_FREE);
        ctx->free_events = ev->next_free;
        sim_xfree(ev);
    }
    sim_streams_free(ctx);
    sim_trace_free(ctx);
    sim_xfree(ctx);
}

uint64_t sim_seed(const sim_ctx *ctx)
{
    return ctx->seed;
}

int64_t sim_now(const sim_ctx *ctx)
{
    return ctx->now_us;
}

/* ------------------------------------------------------------------ heaps */

static int slot_before(const sim_slot *a, const sim_slot *b)
{
    if (a->t_us != b->t_us) return a->t_us < b->t_us;
    return a->seq < b->seq;
}

/* A 4-ary heap: half the depth of a binary one, and a node's children
 * side by side in memory. */
#define HEAP_ARITY 4

static void sift_up(sim_slot *h, size_t i)
{
    sim_slot x = h[i];
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_ARITY;
        if (!slot_before(&x, &h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = x;
}

static void sift_down(sim_slot *h, size_t len, size_t i)
{
    sim_assert(i < len);
    sim_slot x = h[i];
    for (;;) {
        size_t first = HEAP_ARITY * i + 1;
        if (first >= len) break;
        size_t last = first + HEAP_ARITY < len ? first + HEAP_ARITY : len;
        size_t best = first;
        for (size_t c = first + 1; c < last; c++)
            if (slot_before(&h[c], &h[best])) best = c;
        if (!slot_before(&h[best], &x)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = x;
}

static void heap_push(sim_heap *h, sim_event *ev)
{
    sim_assert(!ev->dead && (ev->where == SIM_IN_NEAR || ev->where == SIM_IN_FAR));
    if (h->len == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->v = sim_xrealloc(h->v, h->cap * sizeof *h->v);
    }
    h->v[h->len] = (sim_slot){ev->t_us, ev->seq, ev};
    sift_up(h->v, h->len);
    h->len++;
}

/* Floyd's pop: the hole at the top goes down along the smallest children
 * to the bottom, where the last slot (late, as a rule) fills it and climbs
 * back as far as it must: a compare per level fewer than a sift-down. */
static sim_event *heap_pop(sim_heap *h)
{
    sim_assert(h->len > 0);
    sim_event *top = h->v[0].ev;
    size_t n = --h->len, i = 0;
    if (n == 0) return top;
    sim_slot *v = h->v;
    for (;;) {
        size_t first = HEAP_ARITY * i + 1;
        if (first >= n) break;
        size_t last = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        size_t best = first;
        for (size_t c = first + 1; c < last; c++)
            if (slot_before(&v[c], &v[best])) best = c;
        v[i] = v[best];
        i = best;
    }
    v[i] = v[n];
    sift_up(v, i);
    return top;
}

static void event_release(sim_ctx *ctx, sim_event *ev)
{
    sim_assert(ev->where != SIM_IN_FREE); /* not twice */
    sim_assert(ev->owner == NULL || ev->owner->ev != ev); /* no armed timer points at it */
    ev->where = SIM_IN_FREE;
    ev->next_free = ctx->free_events;
    ctx->free_events = ev;
}

/* The whole heap h, holding the events of place where, is consistent:
 * each slot carries its event's key, the event knows where it is, no
 * child comes before its parent, the dead are counted, owners point back.
 * O(len). */
static int heap_ok(const sim_heap *h, int where)
{
    size_t dead = 0;
    for (size_t i = 0; i < h->len; i++) {
        const sim_slot *x = &h->v[i];
        const sim_event *ev = x->ev;
        if (x->t_us != ev->t_us || x->seq != ev->seq || ev->where != where) return 0;
        if (i > 0 && slot_before(x, &h->v[(i - 1) / HEAP_ARITY])) return 0;
        if (ev->dead ? ev->owner != NULL : ev->owner != NULL && ev->owner->ev != ev) return 0;
        dead += (size_t)ev->dead;
    }
    return dead == h->dead && h->len <= h->cap;
}

/* The FIFO holds events due now, in seq order, their dead counted. O(len). */
static int now_ok(const sim_ctx *ctx)
{
    size_t dead = 0;
    for (size_t i = 0; i < ctx->now_len; i++) {
        const sim_event *ev = ctx->now[(ctx->now_head + i) % ctx->now_cap];
        const sim_event *prev = i ? ctx->now[(ctx->now_head + i - 1) % ctx->now_cap] : NULL;
        if (ev->where != SIM_IN_NOW || ev->t_us != ctx->now_us || (prev && prev->seq >= ev->seq)) return 0;
        if (ev->dead ? ev->owner != NULL : ev->owner != NULL && ev->owner->ev != ev) return 0;
        dead += (size_t)ev->dead;
    }
    return dead == ctx->now_dead && ctx->now_len <= ctx->now_cap;
}

/* Rebuilds h (the heap of place where) without its dead events. O(len). */
static void compact(sim_ctx *ctx, sim_heap *h, int where)
{
    size_t live = 0, dead = 0;
    for (size_t i = 0; i < h->len; i++) {
        if (h->v[i].ev->dead) {
            dead++;
            event_release(ctx, h->v[i].ev);
        } else {
            h->v[live++] = h->v[i];
        }
    }
    sim_assert(dead == h->dead); /* every cancelled event was counted */
    h->len = live;
    h->dead = 0;
    /* heapify from the last parent, (live - 2) / HEAP_ARITY, down */
    for (size_t i = live > 1 ? (live - 2) / HEAP_ARITY + 1 : 0; i-- > 0;) sift_down(h->v, live, i);
    sim_paranoid(heap_ok(h, where));
}

static void now_push(sim_ctx *ctx, sim_event *ev)
{
    sim_assert(ev->t_us == ctx->now_us && !ev->dead);
    if (ctx->now_len == ctx->now_cap) { /* grow, unrolling the ring (a power of two: masked indexes) */
        size_t cap = ctx->now_cap ? ctx->now_cap * 2 : 64;
        sim_event **v = sim_xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < ctx->now_len; i++) v[i] = ctx->now[(ctx->now_head + i) % ctx->now_cap];
        sim_xfree(ctx->now);
        ctx->now = v;
        ctx->now_cap = cap;
        ctx->now_head = 0;
    }
    ev->where = SIM_IN_NOW;
    ctx->now[(ctx->now_head + ctx->now_len) & (ctx->now_cap - 1)] = ev;
    ctx->now_len++;
}

/* The earliest queued event, live or dead, or NULL: the smallest of the
 * three heads, compared by the keys the heap slots carry. */
static sim_event *peek_any(const sim_ctx *ctx)
{
    const sim_slot *best = ctx->near.len ? &ctx->near.v[0] : NULL;
    if (ctx->far.len && (best == NULL || slot_before(&ctx->far.v[0], best))) best = &ctx->far.v[0];
    sim_event *f = ctx->now_len ? ctx->now[ctx->now_head] : NULL;
    if (f && (best == NULL || f->t_us < best->t_us || (f->t_us == best->t_us && f->seq < best->seq))) return f;
    return best ? best->ev : NULL;
}

/* Drops ev, a dead event at the head of its place. */
static void drop_dead(sim_ctx *ctx, sim_event *ev)
{
    sim_assert(ev->dead && ev->owner == NULL);
    if (ev->where == SIM_IN_NOW) {
        sim_assert(ev == ctx->now[ctx->now_head] && ctx->now_dead > 0); /* counted when cancelled */
        ctx->now_head = (ctx->now_head + 1) & (ctx->now_cap - 1);
        ctx->now_len--;
        ctx->now_dead--;
    } else {
        sim_heap *h = ev->where == SIM_IN_NEAR ? &ctx->near : &ctx->far;
        sim_assert(h->len > 0 && h->v[0].ev == ev && h->dead > 0);
        heap_pop(h);
        h->dead--;
    }
    event_release(ctx, ev);
}

/* The next live event, or NULL. Dead events are dropped only when they
 * come first: dispatch follows (time, seq) over the live ones whatever
 * the dead do. */
static sim_event *peek(sim_ctx *ctx)
{
    for (;;) {
        sim_event *ev = peek_any(ctx);
        if (ev == NULL || !ev->dead) return ev;
        drop_dead(ctx, ev);
    }
}

/* Removes ev, the next live event (peek's). */
static sim_event *take(sim_ctx *ctx, sim_event *ev)
{
    sim_assert(ev != NULL && !ev->dead);
    sim_paranoid(ev == peek(ctx));
    switch (ev->where) {
    case SIM_IN_NEAR: sim_assert(heap_pop(&ctx->near) == ev); return ev;
    case SIM_IN_FAR: sim_assert(heap_pop(&ctx->far) == ev); return ev;
    default:
        sim_assert(ev->where == SIM_IN_NOW && ev == ctx->now[ctx->now_head] && ev->t_us == ctx->now_us);
        ctx->now_head = (ctx->now_head + 1) & (ctx->now_cap - 1);
        ctx->now_len--;
        return ev;
    }
}

static sim_event *schedule(sim_ctx *ctx, int64_t t_us, const char *label,
                           sim_event_fn *fn, void *arg)
{
    sim_assert(fn != NULL && label != NULL);
    sim_event *ev = ctx->free_events;
    if (ev) {
        sim_assert(ev->where == SIM_IN_FREE);
        ctx->free_events = ev->next_free;
    } else {
        ev = sim_xmalloc(sizeof *ev);
    }
    ev->t_us = t_us < ctx->now_us ? ctx->now_us : t_us;
    ev->seq = ctx->next_seq++;
    ev->fn = fn;
    ev->arg = arg;
    ev->label = label;
    ev->owner = NULL;
    ev->dead = 0;
    ev->next_free = NULL;
    if (ev->t_us == ctx->now_us) {
        now_push(ctx, ev);
    } else if (ev->t_us - ctx->now_us < SIM_NEAR_US) {
        ev->where = SIM_IN_NEAR;
        heap_push(&ctx->near, ev);
    } else {
        ev->where = SIM_IN_FAR;
        heap_push(&ctx->far, ev);
    }
    return ev;
}

void sim_at(sim_ctx *ctx, int64_t t_us, const char *label, sim_event_fn *fn,
            void *arg)
{
    schedule(ctx, t_us, label, fn, arg);
}

void sim_after(sim_ctx *ctx, int64_t delay_us, const char *label,
               sim_event_fn *fn, void *arg)
{
    int64_t t = delay_us > SIM_TIME_NEVER - ctx->now_us ? SIM_TIME_NEVER
                                                         : ctx->now_us + delay_us;
    schedule(ctx, t, label, fn, arg);
}

/* ---------------------------------------------------------------- timers */

void sim_timer_arm(sim_ctx *ctx, sim_timer *t, int64_t t_us, const char *label,
                   sim_event_fn *fn, void *arg)
{
    sim_timer_cancel(ctx, t);
    sim_assert(t->ev == NULL);
    t->ev = schedule(ctx, t_us, label, fn, arg);
    t->ev->owner = t;
}

void sim_timer_cancel(sim_ctx *ctx, sim_timer *t)
{
    if (t->ev == NULL) return;
    sim_event *ev = t->ev;
    /* an armed timer's event: queued, live, and its own */
    sim_assert(ev->owner == t && !ev->dead && ev->where != SIM_IN_FREE);
    ev->dead = 1;
    ev->owner = NULL;
    t->ev = NULL;
    if (ev->where == SIM_IN_NOW) {
        ctx->now_dead++;
        return;
    }
    sim_heap *h = ev->where == SIM_IN_NEAR ? &ctx->near : &ctx->far;
    if (++h->dead > 1024 && h->dead > h->len / 2) compact(ctx, h, ev->where);
}

int sim_timer_armed(const sim_timer *t)
{
    sim_assert(t->ev == NULL || t->ev->owner == t);
    return t->ev != NULL;
}

int64_t sim_timer_when(const sim_timer *t)
{
    sim_assert(t->ev == NULL || t->ev->owner == t);
    return t->ev ? t->ev->t_us : SIM_TIME_NEVER;
}

/* ------------------------------------------------------------- the loop */

size_t sim_pending(const sim_ctx *ctx)
{
    sim_assert(ctx->near.dead <= ctx->near.len && ctx->far.dead <= ctx->far.len && ctx->now_dead <= ctx->now_len);
    return ctx->near.len - ctx->near.dead + ctx->far.len - ctx->far.dead + ctx->now_len - ctx->now_dead;
}

uint64_t sim_events_run(const sim_ctx *ctx)
{
    return ctx->events_run;
}

int64_t sim_next_time(sim_ctx *ctx)
{
    sim_event *ev = peek(ctx);
    return ev ? ev->t_us : SIM_TIME_NEVER;
}

/* Runs next, the event peek returned. */
static void dispatch(sim_ctx *ctx, sim_event *next)
{
    if (SIM_PARANOID_ON && ctx->events_run % SIM_SWEEP_EVERY == 0)
        sim_paranoid(heap_ok(&ctx->near, SIM_IN_NEAR) && heap_ok(&ctx->far, SIM_IN_FAR) && now_ok(ctx));
    sim_event *ev = take(ctx, next);
    sim_assert(ev->t_us >= ctx->now_us); /* time never goes backwards */
    /* the near heap holds what was due within SIM_NEAR_US when scheduled */
    sim_assert(ev->where != SIM_IN_NEAR || ev->t_us - ctx->now_us < SIM_NEAR_US);
    ctx->instant_events = ev->t_us == ctx->now_us ? ctx->instant_events + 1 : 1;
    sim_assert(ctx->instant_events < SIM_INSTANT_MAX); /* a loop that takes no time */
    ctx->now_us = ev->t_us;
    sim_assert(ev->owner == NULL || ev->owner->ev == ev);
    if (ev->owner) ev->owner->ev = NULL; /* the timer is idle while it runs */
    ctx->events_run++;
    if (ctx->event_trace) sim_trace_event(ctx, ev);
    sim_event_fn *fn = ev->fn;
    void *arg = ev->arg;
    event_release(ctx, ev);
    fn(ctx, arg);
}

int sim_step(sim_ctx *ctx)
{
    sim_event *next = peek(ctx);
    if (next == NULL) return 0;
    dispatch(ctx, next);
    return 1;
}

void sim_set_waiter(sim_ctx *ctx, sim_waiter_fn *fn, void *ud)
{
    ctx->waiter = fn;
    ctx->waiter_ud = ud;
}

void sim_advance(sim_ctx *ctx, int64_t t_us)
{
    int64_t next = sim_next_time(ctx);
    if (t_us > next) t_us = next;
    if (t_us > ctx->now_us) ctx->now_us = t_us;
    sim_assert(ctx->now_us <= next); /* never past the next event */
}

uint64_t sim_run(sim_ctx *ctx, int64_t until_us)
{
    uint64_t n = 0;
    int64_t start_us = ctx->now_us;
    ctx->stopping = 0;
    for (;;) {
        if (ctx->waiter) {
            /* Real time: wait for the next event or for outside input. */
            int64_t next = sim_next_time(ctx);
            int64_t due = next < until_us ? next : until_us;
            if (due > ctx->now_us) {
                ctx->waiter(ctx->waiter_ud, ctx, due);
                if (sim_next_time(ctx) > ctx->now_us) {
                    if (ctx->now_us >= until_us) break;
                    continue;
                }
            }
        }
        sim_event *next = peek(ctx);
        if (next == NULL || next->t_us > until_us) break;
        dispatch(ctx, next);
        n++;
        if (ctx->poll && ++ctx->poll_count >= ctx->poll_every) {
            ctx->poll_count = 0;
            ctx->poll(ctx->poll_ud, ctx);
        }
        if (ctx->stopping) return n;
    }
    if (until_us != SIM_TIME_NEVER && until_us > ctx->now_us)
        ctx->now_us = until_us;
    sim_assert(ctx->now_us >= start_us);
    return n;
}

void sim_stop(sim_ctx *ctx)
{
    ctx->stopping = 1;
}

void sim_set_interrupt(sim_ctx *ctx, int (*fn)(void *), void *ud)
{
    ctx->interrupted = fn;
    ctx->interrupted_ud = ud;
}

int sim_interrupted(const sim_ctx *ctx)
{
    return ctx->interrupted && ctx->interrupted(ctx->interrupted_ud);
}

void sim_set_poll(sim_ctx *ctx, sim_poll_fn *fn, void *ud, uint64_t every)
{
    ctx->poll = every ? fn : NULL;
    ctx->poll_ud = ud;
    ctx->poll_every = every;
    ctx->poll_count = 0;
}
