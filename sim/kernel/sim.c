/* sim.c — the sim context: virtual time, the event queue and timers.
 *
 * The queue is a 4-ary min-heap of events ordered by (time, seq), where seq
 * is a counter taken when the event is scheduled, so two runs that schedule
 * the same events in the same order dispatch them in the same order. Time
 * only advances when the earliest event is in the future. Cancelled timer
 * events are marked dead and dropped when they surface, or all at once
 * when they come to outnumber the live ones (the heap is rebuilt; since
 * (time, seq) orders every pair, the dispatch order cannot change).
 *
 * Events scheduled for the current time (posts, zero delays: about half
 * of them) skip the heap: they go to the now FIFO, which is in seq order
 * and all at the current time, and the next event is the smaller (time,
 * seq) of the heap's top and the FIFO's head. Time cannot advance while
 * the FIFO holds a live event, so its events are always due now. */
#include <stdlib.h>
#include <string.h>

#include "sim/kernel/sim_int.h"

sim_ctx *sim_new(uint64_t seed)
{
    sim_ctx *ctx = sim_xcalloc(1, sizeof *ctx);
    ctx->seed = seed;
    ctx->next_seq = 1;
    ctx->event_trace = 1;
    sim_trace_init(ctx);
    return ctx;
}

void sim_free(sim_ctx *ctx)
{
    if (ctx == NULL) return;
    for (size_t i = 0; i < ctx->heap_len; i++) {
        sim_event *ev = ctx->heap[i].ev;
        if (ev->owner) ev->owner->ev = NULL;
        sim_xfree(ev);
    }
    for (size_t i = 0; i < ctx->now_len; i++) {
        sim_event *ev = ctx->now[(ctx->now_head + i) % ctx->now_cap];
        if (ev->owner) ev->owner->ev = NULL;
        sim_xfree(ev);
    }
    sim_xfree(ctx->now);
    while (ctx->free_events) {
        sim_event *ev = ctx->free_events;
        ctx->free_events = ev->next_free;
        sim_xfree(ev);
    }
    sim_xfree(ctx->heap);
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

/* ------------------------------------------------------------------ heap */

static int slot_before(const sim_slot *a, const sim_slot *b)
{
    if (a->t_us != b->t_us) return a->t_us < b->t_us;
    return a->seq < b->seq;
}

/* A 4-ary heap: half the depth of a binary one, and a node's children
 * side by side in memory. */
#define HEAP_ARITY 4

static void heap_up(sim_slot *h, size_t i)
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

static void heap_down(sim_slot *h, size_t len, size_t i)
{
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

static sim_event *heap_pop(sim_ctx *ctx)
{
    sim_event *top = ctx->heap[0].ev;
    ctx->heap_len--;
    if (ctx->heap_len > 0) {
        ctx->heap[0] = ctx->heap[ctx->heap_len];
        heap_down(ctx->heap, ctx->heap_len, 0);
    }
    return top;
}

static void event_release(sim_ctx *ctx, sim_event *ev)
{
    ev->next_free = ctx->free_events;
    ctx->free_events = ev;
}

/* Rebuilds the heap without its dead events. O(heap). */
static void compact(sim_ctx *ctx)
{
    size_t live = 0;
    for (size_t i = 0; i < ctx->heap_len; i++) {
        if (ctx->heap[i].ev->dead) event_release(ctx, ctx->heap[i].ev);
        else ctx->heap[live++] = ctx->heap[i];
    }
    ctx->heap_len = live;
    ctx->dead_count = 0;
    for (size_t i = live / HEAP_ARITY + 1; i-- > 0;) heap_down(ctx->heap, live, i);
}

/* Drops dead events from the heap's top and the FIFO's head, so each, if
 * not empty, starts with a live event. */
static void skip_dead(sim_ctx *ctx)
{
    while (ctx->heap_len > 0 && ctx->heap[0].ev->dead) {
        sim_event *ev = heap_pop(ctx);
        ctx->dead_count--;
        event_release(ctx, ev);
    }
    while (ctx->now_len > 0 && ctx->now[ctx->now_head]->dead) {
        sim_event *ev = ctx->now[ctx->now_head];
        ctx->now_head = (ctx->now_head + 1) % ctx->now_cap;
        ctx->now_len--;
        ctx->now_dead--;
        event_release(ctx, ev);
    }
}

static void now_push(sim_ctx *ctx, sim_event *ev)
{
    if (ctx->now_len == ctx->now_cap) { /* grow, unrolling the ring */
        size_t cap = ctx->now_cap ? ctx->now_cap * 2 : 64;
        sim_event **v = sim_xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < ctx->now_len; i++) v[i] = ctx->now[(ctx->now_head + i) % ctx->now_cap];
        sim_xfree(ctx->now);
        ctx->now = v;
        ctx->now_cap = cap;
        ctx->now_head = 0;
    }
    ev->in_now = 1;
    ctx->now[(ctx->now_head + ctx->now_len) % ctx->now_cap] = ev;
    ctx->now_len++;
}

/* The next live event (after skip_dead), or NULL; *from_now: it is the
 * FIFO's head. */
static sim_event *peek(sim_ctx *ctx, int *from_now)
{
    sim_event *h = ctx->heap_len ? ctx->heap[0].ev : NULL;
    sim_event *f = ctx->now_len ? ctx->now[ctx->now_head] : NULL;
    *from_now = f && (h == NULL || f->t_us < h->t_us || (f->t_us == h->t_us && f->seq < h->seq));
    return *from_now ? f : h;
}

/* Removes and returns the next live event (after skip_dead). */
static sim_event *take(sim_ctx *ctx)
{
    int from_now;
    sim_event *ev = peek(ctx, &from_now);
    if (!from_now) return heap_pop(ctx);
    ctx->now_head = (ctx->now_head + 1) % ctx->now_cap;
    ctx->now_len--;
    ev->in_now = 0;
    return ev;
}

static sim_event *schedule(sim_ctx *ctx, int64_t t_us, const char *label,
                           sim_event_fn *fn, void *arg)
{
    sim_event *ev = ctx->free_events;
    if (ev) ctx->free_events = ev->next_free;
    else ev = sim_xmalloc(sizeof *ev);
    ev->t_us = t_us < ctx->now_us ? ctx->now_us : t_us;
    ev->seq = ctx->next_seq++;
    ev->fn = fn;
    ev->arg = arg;
    ev->label = label;
    ev->owner = NULL;
    ev->dead = 0;
    ev->in_now = 0;
    ev->next_free = NULL;
    if (ev->t_us == ctx->now_us) {
        now_push(ctx, ev);
        return ev;
    }
    if (ctx->heap_len == ctx->heap_cap) {
        ctx->heap_cap = ctx->heap_cap ? ctx->heap_cap * 2 : 64;
        ctx->heap = sim_xrealloc(ctx->heap, ctx->heap_cap * sizeof *ctx->heap);
    }
    ctx->heap[ctx->heap_len] = (sim_slot){ev->t_us, ev->seq, ev};
    heap_up(ctx->heap, ctx->heap_len);
    ctx->heap_len++;
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
    t->ev = schedule(ctx, t_us, label, fn, arg);
    t->ev->owner = t;
}

void sim_timer_cancel(sim_ctx *ctx, sim_timer *t)
{
    if (t->ev == NULL) return;
    sim_event *ev = t->ev;
    ev->dead = 1;
    ev->owner = NULL;
    t->ev = NULL;
    if (ev->in_now) ctx->now_dead++;
    else if (++ctx->dead_count > 1024 && ctx->dead_count > ctx->heap_len / 2) compact(ctx);
}

int sim_timer_armed(const sim_timer *t)
{
    return t->ev != NULL;
}

int64_t sim_timer_when(const sim_timer *t)
{
    return t->ev ? t->ev->t_us : SIM_TIME_NEVER;
}

/* ------------------------------------------------------------- the loop */

size_t sim_pending(const sim_ctx *ctx)
{
    return ctx->heap_len - ctx->dead_count + ctx->now_len - ctx->now_dead;
}

uint64_t sim_events_run(const sim_ctx *ctx)
{
    return ctx->events_run;
}

int64_t sim_next_time(sim_ctx *ctx)
{
    skip_dead(ctx);
    int from_now;
    sim_event *ev = peek(ctx, &from_now);
    return ev ? ev->t_us : SIM_TIME_NEVER;
}

static void dispatch(sim_ctx *ctx)
{
    sim_event *ev = take(ctx);
    ctx->now_us = ev->t_us;
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
    skip_dead(ctx);
    if (ctx->heap_len == 0 && ctx->now_len == 0) return 0;
    dispatch(ctx);
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
}

uint64_t sim_run(sim_ctx *ctx, int64_t until_us)
{
    uint64_t n = 0;
    ctx->stopping = 0;
    for (;;) {
        skip_dead(ctx);
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
        int from_now;
        sim_event *next = peek(ctx, &from_now);
        if (next == NULL || next->t_us > until_us) break;
        dispatch(ctx);
        n++;
        if (ctx->stopping) return n;
    }
    if (until_us != SIM_TIME_NEVER && until_us > ctx->now_us)
        ctx->now_us = until_us;
    return n;
}

void sim_stop(sim_ctx *ctx)
{
    ctx->stopping = 1;
}
