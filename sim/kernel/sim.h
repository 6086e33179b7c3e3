/* sim.h — the deterministic core of locksim: the sim context (virtual time,
 * event queue, timers), seeded PRNG streams and the choice point, the trace
 * and its hash, per-node clocks, and the reply values every endpoint returns.
 *
 * Determinism rule: everything here is a function of the seed and of the
 * choices made through sim_choose(); nothing reads the wall clock. */
#ifndef LOCKSIM_SIM_H
#define LOCKSIM_SIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIM_OK 0
#define SIM_ERR -1

/* Durations are int64 microseconds of true (global, virtual) time. */
#define SIM_US(x) ((int64_t)(x))
#define SIM_MS(x) ((int64_t)(x) * 1000)
#define SIM_SEC(x) ((int64_t)(x) * 1000000)
#define SIM_TIME_NEVER INT64_MAX

/* ---------------------------------------------------------------- Memory */

/* Allocation never fails: on exhaustion these print the size and abort
 * (Redis zmalloc_default_oom). sim_xfree(NULL) is a no-op. */
void *sim_xmalloc(size_t n);
void *sim_xcalloc(size_t count, size_t size);
void *sim_xrealloc(void *p, size_t n);
char *sim_xstrdup(const char *s);
char *sim_xmemdup(const void *p, size_t n); /* adds a NUL after n bytes */
/* An array that only grows (a run's history: megabytes, appended to one
 * element at a time): from old_bytes to new_bytes, its contents kept.
 * Past SIM_GROW_MAPPED bytes it lives in its own mapping, moved by
 * mremap (page tables, not bytes, are copied) and offered huge pages;
 * below, and under AddressSanitizer, it is realloc'd. Freed with
 * sim_xgrow_free and the size it last grew to. */
#define SIM_GROW_MAPPED ((size_t)1 << 20)
void *sim_xgrow(void *p, size_t old_bytes, size_t new_bytes);
void sim_xgrow_free(void *p, size_t bytes);
/* Inline: a run frees a million blocks, and NULL often (a message without
 * arguments, a reply without a string). */
static inline void sim_xfree(void *p)
{
    if (p) free(p);
}

/* A free list of equal-sized blocks, for the objects made and freed by the
 * hundred thousand per run (process events, messages, requests, replies):
 * a freed block waits for the next one instead of going back to malloc.
 * Blocks come zeroed, as from calloc. Under AddressSanitizer the list is
 * bypassed (every block is malloc'd and freed), so a use after free is
 * still caught. Initialise with SIM_FREELIST(type). */
typedef struct sim_freelist {
    size_t size;  /* of a block, >= sizeof(void *) */
    void *head;   /* kept blocks, linked through their first word */
    size_t kept;
} sim_freelist;
#define SIM_FREELIST(type) {sizeof(type) < sizeof(void *) ? sizeof(void *) : sizeof(type), NULL, 0}
void sim_fl_drain(sim_freelist *fl);        /* frees the kept blocks */
/* Get and put are inline (they run on every message, event and reply). */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_FL_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_FL_BYPASS 1
#endif
#endif
#ifndef SIM_FL_BYPASS
#define SIM_FL_BYPASS 0
#endif
static inline void *sim_fl_get(sim_freelist *fl)
{
    void **p = (void **)fl->head;
    if (SIM_FL_BYPASS || p == NULL) return sim_xcalloc(1, fl->size);
    fl->head = *p;
    fl->kept--;
    memset(p, 0, fl->size);
    return p;
}
static inline void sim_fl_put(sim_freelist *fl, void *p) /* NULL: no-op */
{
    if (p == NULL) return;
    if (SIM_FL_BYPASS) {
        free(p);
        return;
    }
    *(void **)p = fl->head;
    fl->head = p;
    fl->kept++;
}

/* words.c — did you mean: the edit distance of two names (a swap of two
 * neighbours is one edit; ASCII case does not count), and the name of
 * names[0..n) closest to word when it is close enough to be a typo of it
 * (NULL otherwise, or when word is one of them). */
size_t sim_edit_distance(const char *a, const char *b);
const char *sim_closest(const char *word, const char *const *names, size_t n);

/* Always-on assertion: prints file:line and the expression, then aborts. */
#define sim_assert(e) ((e) ? (void)0 : sim_assert_fail(#e, __FILE__, __LINE__))
void sim_assert_fail(const char *expr, const char *file, int line);

/* Consistency sweeps that cost more than O(1) (a whole heap, a list) are
 * asserted with sim_paranoid, on only in the builds that define
 * SIM_PARANOID (the sanitizer and fuzzing builds, SAN=1 and FUZZ=1): a
 * plain build compiles the expression but never evaluates it. Like
 * sim_assert, it only reads: no build may behave differently. */
#ifdef SIM_PARANOID
#define SIM_PARANOID_ON 1
#else
#define SIM_PARANOID_ON 0
#endif
#define sim_paranoid(e) (SIM_PARANOID_ON ? sim_assert(e) : (void)0)

/* ------------------------------------------------------------- Randomness */

/* xoshiro256** state; seeded through splitmix64. */
typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

/* splitmix64 step: advances *state and returns the next output. */
uint64_t sim_splitmix64(uint64_t *state);
void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
/* Uniform in [0, n), without modulo bias. n must be > 0. */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);

/* ---------------------------------------------------------- The context */

typedef struct sim_ctx sim_ctx;
typedef void sim_event_fn(sim_ctx *ctx, void *arg);

/* A cancellable timer, owned by its user (zero-initialise it). Arming an
 * armed timer moves it; cancelling marks its pending event dead (ae.c style)
 * and is a no-op when idle. A timer must be cancelled before its memory is
 * freed. */
typedef struct sim_timer {
    struct sim_event *ev; /* pending event, or NULL when idle */
} sim_timer;

/* Receives each trace line (without newline); installed by report_ code. */
typedef void sim_trace_sink_fn(void *ud, const char *line, size_t len);

struct sim_ctx;
/* Decides a choice among n > 1 alternatives (the explorer installs one);
 * it may defer to sim_choose_seeded(ctx, ...). */
typedef uint64_t sim_chooser_fn(void *ud, struct sim_ctx *ctx, uint64_t n, const char *label);

/* Creates a context at true time 0 whose PRNG streams derive from seed. */
sim_ctx *sim_new(uint64_t seed);
/* Frees the context and every pending event (their args are not freed). */
void sim_free(sim_ctx *ctx);

uint64_t sim_seed(const sim_ctx *ctx);
/* Current true time in µs. */
int64_t sim_now(const sim_ctx *ctx);

/* Schedules fn(ctx, arg) at true time t_us (clamped to now when earlier).
 * Events run ordered by (time, sequence): equal times run in scheduling
 * order. label names the event in the trace; it must outlive the event
 * (a string literal). O(log n). */
void sim_at(sim_ctx *ctx, int64_t t_us, const char *label, sim_event_fn *fn,
            void *arg);
void sim_after(sim_ctx *ctx, int64_t delay_us, const char *label,
               sim_event_fn *fn, void *arg);

void sim_timer_arm(sim_ctx *ctx, sim_timer *t, int64_t t_us, const char *label,
                   sim_event_fn *fn, void *arg);
void sim_timer_cancel(sim_ctx *ctx, sim_timer *t);
int sim_timer_armed(const sim_timer *t);
/* Time the armed timer fires at, or SIM_TIME_NEVER when idle. */
int64_t sim_timer_when(const sim_timer *t);

/* Runs events in order until none is left at or before until_us, or
 * sim_stop() is called. Time then stands at the last event run (or at
 * until_us when the queue ran dry before it and until_us is finite).
 * Returns the number of events run. */
uint64_t sim_run(sim_ctx *ctx, int64_t until_us);
/* Runs exactly one event if one is pending; returns 1 if it ran one. */
int sim_step(sim_ctx *ctx);
/* Makes sim_run() return after the current event. */
void sim_stop(sim_ctx *ctx);
/* Calls fn(ud, ctx) after every `every` events sim_run dispatches (0 or
 * NULL: never): the place to watch a run from outside (a signal, a
 * budget, progress) and sim_stop it. fn must not act on the simulation
 * otherwise: a run it does not stop goes exactly as without it. */
typedef void sim_poll_fn(void *ud, sim_ctx *ctx);
void sim_set_poll(sim_ctx *ctx, sim_poll_fn *fn, void *ud, uint64_t every);
/* Whether the run should stop now, asked from inside a long event (a Lua
 * script's instruction hook): fn(ud) set by whoever watches the run (a
 * stop signal), NULL: never. Reading it must not change the run. */
void sim_set_interrupt(sim_ctx *ctx, int (*fn)(void *), void *ud);
int sim_interrupted(const sim_ctx *ctx);
/* Pending (live) events, and events run since creation. */
size_t sim_pending(const sim_ctx *ctx);
uint64_t sim_events_run(const sim_ctx *ctx);
/* Time of the earliest live event, or SIM_TIME_NEVER. */
int64_t sim_next_time(sim_ctx *ctx);

/* Real time (the real-Redis backend): before each event sim_run calls the
 * waiter with the event's time (or until_us when sooner); it returns once
 * the wall clock has reached that time — after sim_advance() to it — or
 * earlier, after outside input (a reply) scheduled events at the time it
 * advanced to. Without a waiter, time jumps from event to event. */
typedef void sim_waiter_fn(void *ud, sim_ctx *ctx, int64_t due_us);
void sim_set_waiter(sim_ctx *ctx, sim_waiter_fn *fn, void *ud);
/* Moves time forward to t_us (never back, never past the next event). */
void sim_advance(sim_ctx *ctx, int64_t t_us);

/* ------------------------------------------------- Streams and choices */

/* The PRNG stream named name, derived from the seed and the name only, so
 * adding a stream never perturbs another. Created on first use; the pointer
 * stays valid for the life of ctx. O(len(name)). */
sim_rng *sim_stream(sim_ctx *ctx, const char *name);

/* The one choice function: returns a value in [0, n). With n <= 1 it
 * returns 0 and records nothing. Without a chooser it draws from the stream
 * named label; with one (model checking) the chooser decides. */
uint64_t sim_choose(sim_ctx *ctx, uint64_t n, const char *label);
void sim_set_chooser(sim_ctx *ctx, sim_chooser_fn *fn, void *ud);
/* What sim_choose decides without a chooser (the seeded stream label). */
uint64_t sim_choose_seeded(sim_ctx *ctx, uint64_t n, const char *label);
/* Number of sim_choose() calls with n > 1 so far. */
uint64_t sim_choices(const sim_ctx *ctx);

/* ----------------------------------------------------------------- Trace */

/* Appends one canonical line "<true_us> <who> <text>" to the trace: it is
 * folded into the running hash and handed to the sink, if any. */
/* Writes v in decimal at buf (at least 21 bytes) with a NUL; returns its
 * length. The hot paths' integer arguments (no printf). */
size_t sim_fmt_i64(char *buf, int64_t v);
/* The strings up to a NULL, one after the other, into buf of cap bytes
 * (cap > 0), cut and terminated as snprintf(buf, cap, "%s%s...") would;
 * returns the bytes written. The hot paths' names and keys (no printf). */
size_t sim_strjoin(char *buf, size_t cap, ...);
void sim_trace(sim_ctx *ctx, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sim_vtrace(sim_ctx *ctx, const char *who, const char *fmt, va_list ap);
/* XXH3-64 of every trace line so far (each followed by '\n'). */
uint64_t sim_trace_hash(const sim_ctx *ctx);
uint64_t sim_trace_lines(const sim_ctx *ctx);
void sim_set_trace_sink(sim_ctx *ctx, sim_trace_sink_fn *fn, void *ud);
/* Turns per-event lines (one per dispatched event) on or off; on by default. */
void sim_set_event_trace(sim_ctx *ctx, int on);

/* ---------------------------------------------------------------- Clocks */

/* A node's clock: local = true + offset + drift accumulated since base.
 * Each Redis node and client process owns one. */
typedef struct sim_clock {
    int64_t offset_us;     /* includes the epoch and every jump */
    int64_t drift_ppm;     /* rate error, parts per million */
    int64_t drift_base_us; /* true time the current drift rate started */
} sim_clock;

/* Epoch that node clocks start from: 2023-11-14T22:13:20Z, in µs. */
#define SIM_CLOCK_EPOCH_US ((int64_t)1700000000000 * 1000)

/* A clock reading epoch + true time, no drift. */
void sim_clock_init(sim_clock *c);
/* Local time of clock c at the current true time, in µs. */
int64_t sim_clock_now_us(const sim_ctx *ctx, const sim_clock *c);
/* The same in ms, floored (what Redis and Redisson read). */
int64_t sim_clock_now_ms(const sim_ctx *ctx, const sim_clock *c);
/* Steps the clock by delta_us (NTP correction, operator). */
void sim_clock_jump(sim_ctx *ctx, sim_clock *c, int64_t delta_us);
/* Sets the drift rate from now on, keeping the current reading. */
void sim_clock_set_drift(sim_ctx *ctx, sim_clock *c, int64_t ppm);
/* True time at which clock c reads local_us, given the current rate (the
 * inverse, used to fire local-clock timers). Never earlier than now. */
int64_t sim_clock_true_at(const sim_ctx *ctx, const sim_clock *c,
                          int64_t local_us);

/* --------------------------------------------------------------- Replies */

typedef enum sim_reply_type {
    SIM_REPLY_NIL,      /* null bulk ($-1) */
    SIM_REPLY_INT,      /* integer (:) */
    SIM_REPLY_STR,      /* bulk string ($) */
    SIM_REPLY_STATUS,   /* status (+) */
    SIM_REPLY_ERR,      /* error (-); str holds the text after '-' */
    SIM_REPLY_ARRAY,    /* multi-bulk (*) */
    SIM_REPLY_NILARRAY  /* null multi-bulk (*-1) */
} sim_reply_type;

/* A reply value, as a RESP2 client sees it. Owns its string and elements. */
typedef struct sim_reply {
    sim_reply_type type;
    int refs;              /* owners beyond the first (sim_reply_ref) */
    int64_t integer;
    size_t len;
    char *str;             /* NUL-terminated copy of len bytes, or NULL */
    size_t elements;
    struct sim_reply **element;
} sim_reply;

sim_reply *sim_reply_new(sim_reply_type type);
sim_reply *sim_reply_int(int64_t v);
/* Copies len bytes of s into a reply of type STR, STATUS or ERR. */
sim_reply *sim_reply_str(sim_reply_type type, const char *s, size_t len);
sim_reply *sim_reply_err(const char *msg);
/* An array that takes ownership of the n replies in elems (copied array). */
sim_reply *sim_reply_array(size_t n, sim_reply **elems);
/* Appends e to the array a, taking ownership of e. */
void sim_reply_push(sim_reply *a, sim_reply *e);
/* A deep copy of r, the copy's alone. */
sim_reply *sim_reply_dup(const sim_reply *r);
/* Shares r with one more owner and returns it; every owner frees it once
 * (sim_reply_free). A shared reply must not be changed. O(1). */
sim_reply *sim_reply_ref(sim_reply *r);
/* Drops one owner of r; frees it with the last. NULL is a no-op. */
void sim_reply_free(sim_reply *r);

/* Flags for sim_reply_equal(). */
#define SIM_REPLY_CMP_UNORDERED 1 /* top-level array compared as a multiset */
#define SIM_REPLY_CMP_PAIRS 2     /* ... of (field, value) pairs (HGETALL) */
/* 1 when a and b are equal; integers may differ by at most int_tolerance. */
int sim_reply_equal(const sim_reply *a, const sim_reply *b,
                    int64_t int_tolerance, int flags);
/* Writes a one-line readable form (redis-cli like, strings escaped) of r
 * into buf (always NUL-terminated, truncated to cap). Returns the length
 * the full text would have. */
size_t sim_reply_format(const sim_reply *r, char *buf, size_t cap);

/* Escapes len bytes of s into buf like Redis' sdscatrepr ("..." with \n,
 * \xHH); returns the length the full text would have. */
size_t sim_repr(const char *s, size_t len, char *buf, size_t cap);

#endif /* LOCKSIM_SIM_H */
