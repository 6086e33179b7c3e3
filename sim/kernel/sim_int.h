/* sim_int.h — the sim context's layout, shared by the kernel's own files
 * (sim.c, rng.c, trace.c, clock.c). No other file includes it. */
#ifndef LOCKSIM_SIM_INT_H
#define LOCKSIM_SIM_INT_H

#include <xxhash.h>

#include "sim/kernel/sim.h"

/* A scheduled event. Dead events (cancelled timers) stay in the heap and are
 * skipped when they reach the top. */
typedef struct sim_event {
    int64_t t_us;
    uint64_t seq;
    sim_event_fn *fn;
    void *arg;
    const char *label;
    sim_timer *owner; /* the timer that armed it, or NULL */
    int dead;
    int where;        /* SIM_IN_NOW, SIM_IN_NEAR, SIM_IN_FAR; SIM_IN_FREE released */
    struct sim_event *next_free;
} sim_event;

/* A heap slot: the event's key inline, so ordering never follows the
 * pointer. */
typedef struct sim_slot {
    int64_t t_us;
    uint64_t seq;
    sim_event *ev;
} sim_slot;

/* A 4-ary min-heap of events on (t_us, seq); dead: cancelled ones in it. */
typedef struct sim_heap {
    sim_slot *v;
    size_t len, cap, dead;
} sim_heap;

enum { SIM_IN_NOW, SIM_IN_NEAR, SIM_IN_FAR, SIM_IN_FREE };

typedef struct sim_stream_entry sim_stream_entry;
#define SIM_STREAM_MEMO_BITS 9

struct sim_ctx {
    uint64_t seed;
    int64_t now_us;
    uint64_t next_seq;
    uint64_t events_run;
    uint64_t instant_events; /* run at the time of the last one, since time moved */
    int stopping;
    sim_poll_fn *poll;         /* sim_set_poll */
    int (*interrupted)(void *); /* sim_set_interrupt */
    void *interrupted_ud;
    void *poll_ud;
    uint64_t poll_every, poll_count;

    sim_heap near, far; /* events due within SIM_NEAR_US, and later ones */
    sim_event **now;  /* ring: events scheduled for the time they were
                         scheduled at, in seq order (no heap needed) */
    size_t now_head, now_len, now_cap, now_dead;
    sim_event *free_events;

    sim_stream_entry *streams; /* uthash by name, insertion ordered */
    struct {                   /* the last stream seen at each name address */
        const char *name;      /* (checked by content: a buffer is reused) */
        sim_stream_entry *e;
    } stream_memo[1 << SIM_STREAM_MEMO_BITS]; /* by a hash of the address: one per connection's
                                                latency label, and the constants */
    sim_chooser_fn *chooser;
    void *chooser_ud;
    uint64_t choices;

    XXH3_state_t *hash;
    char *hash_buf;          /* lines waiting to be hashed (XXH3 streams: */
    size_t hash_len;         /* chunking does not change the digest) */
    int64_t stamp_us;        /* the time stamp formatted in stamp */
    char stamp[24];
    size_t stamp_len;
    int64_t stamp_hi;        /* stamp_us / 10000 when that is > 0, else -1 */
    uint64_t trace_lines;
    sim_trace_sink_fn *sink;
    void *sink_ud;
    int event_trace;

    sim_waiter_fn *waiter; /* real time: blocks until the next event is due */
    void *waiter_ud;
};

void sim_streams_free(sim_ctx *ctx);
void sim_trace_init(sim_ctx *ctx);
void sim_trace_free(sim_ctx *ctx);
void sim_trace_event(sim_ctx *ctx, const sim_event *ev);

#endif /* LOCKSIM_SIM_INT_H */
