/* test_sim.c — the kernel: event order and tie-breaking, timers, the run
 * loop, PRNG reproducibility and stream independence, the choice point,
 * the trace hash, node clocks (offset, jump, drift, inverse), the
 * real-time waiter, and arrays grown past the mapped size (sim_xgrow). */
#include <stdio.h>
#include <string.h>

#include "tests/unit/tests.h"

typedef struct evlog {
    char buf[256];
    sim_ctx *ctx;
} evlog;

/* Each event appends "<name>@<time>;" to the log it is given. */
typedef struct ev_arg {
    evlog *l;
    const char *name;
} ev_arg;

static void append(sim_ctx *ctx, void *arg)
{
    ev_arg *a = arg;
    size_t n = strlen(a->l->buf);
    snprintf(a->l->buf + n, sizeof a->l->buf - n, "%s@%lld;", a->name,
             (long long)sim_now(ctx));
}

START_TEST(events_run_in_time_order)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {{0}, ctx};
    ev_arg a = {&l, "a"}, b = {&l, "b"}, c = {&l, "c"};
    sim_at(ctx, 30, "c", append, &c);
    sim_at(ctx, 10, "a", append, &a);
    sim_at(ctx, 20, "b", append, &b);
    ck_assert_uint_eq(sim_run(ctx, SIM_TIME_NEVER), 3);
    ck_assert_str_eq(l.buf, "a@10;b@20;c@30;");
    ck_assert_int_eq(sim_now(ctx), 30);
    sim_free(ctx);
}
END_TEST

START_TEST(equal_times_run_in_scheduling_order)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {{0}, ctx};
    ev_arg e[5] = {{&l, "1"}, {&l, "2"}, {&l, "3"}, {&l, "4"}, {&l, "5"}};
    for (int i = 0; i < 5; i++) sim_at(ctx, 100, "tie", append, &e[i]);
    sim_at(ctx, 50, "first", append, &e[4]);
    sim_run(ctx, SIM_TIME_NEVER);
    ck_assert_str_eq(l.buf, "5@50;1@100;2@100;3@100;4@100;5@100;");
    sim_free(ctx);
}
END_TEST

static void schedule_past(sim_ctx *ctx, void *arg)
{
    sim_at(ctx, 0, "past", append, arg); /* earlier than now: runs now */
}

START_TEST(an_event_in_the_past_runs_now)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {{0}, ctx};
    ev_arg a = {&l, "p"};
    sim_at(ctx, 500, "x", schedule_past, &a);
    sim_run(ctx, SIM_TIME_NEVER);
    ck_assert_str_eq(l.buf, "p@500;");
    sim_free(ctx);
}
END_TEST

START_TEST(timers_cancel_and_move)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {{0}, ctx};
    ev_arg a = {&l, "t"};
    sim_timer t = {0};
    ck_assert(!sim_timer_armed(&t));
    sim_timer_arm(ctx, &t, 100, "t", append, &a);
    ck_assert(sim_timer_armed(&t));
    ck_assert_int_eq(sim_timer_when(&t), 100);
    sim_timer_arm(ctx, &t, 200, "t", append, &a); /* moves it */
    ck_assert_uint_eq(sim_pending(ctx), 1);
    sim_run(ctx, 150);
    ck_assert_str_eq(l.buf, "");
    ck_assert_int_eq(sim_now(ctx), 150);
    sim_timer_cancel(ctx, &t);
    sim_timer_cancel(ctx, &t); /* idle: no-op */
    ck_assert_uint_eq(sim_pending(ctx), 0);
    ck_assert_uint_eq(sim_run(ctx, SIM_TIME_NEVER), 0);
    ck_assert_str_eq(l.buf, "");
    sim_timer_arm(ctx, &t, 300, "t", append, &a);
    sim_run(ctx, SIM_TIME_NEVER);
    ck_assert_str_eq(l.buf, "t@300;");
    ck_assert(!sim_timer_armed(&t)); /* idle after firing */
    sim_free(ctx);
}
END_TEST

static void stopper(sim_ctx *ctx, void *arg)
{
    (void)arg;
    sim_stop(ctx);
}

START_TEST(run_until_and_stop)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {{0}, ctx};
    ev_arg a = {&l, "a"}, b = {&l, "b"};
    sim_at(ctx, 10, "a", append, &a);
    sim_at(ctx, 20, "stop", stopper, NULL);
    sim_at(ctx, 30, "b", append, &b);
    ck_assert_uint_eq(sim_run(ctx, SIM_TIME_NEVER), 2);
    ck_assert_int_eq(sim_now(ctx), 20);
    ck_assert_int_eq(sim_next_time(ctx), 30);
    ck_assert_uint_eq(sim_run(ctx, 25), 0);
    ck_assert_int_eq(sim_now(ctx), 25);
    ck_assert_int_eq(sim_step(ctx), 1);
    ck_assert_str_eq(l.buf, "a@10;b@30;");
    ck_assert_int_eq(sim_step(ctx), 0);
    ck_assert_uint_eq(sim_events_run(ctx), 3);
    sim_free(ctx);
}
END_TEST

START_TEST(prng_is_reproducible)
{
    sim_rng a, b, c;
    sim_rng_seed(&a, 42);
    sim_rng_seed(&b, 42);
    sim_rng_seed(&c, 43);
    int differs = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sim_rng_next(&a);
        ck_assert_uint_eq(x, sim_rng_next(&b));
        differs |= x != sim_rng_next(&c);
    }
    ck_assert(differs);
}
END_TEST

/* Loop test over n: sim_rng_below stays in range and hits both ends. */
START_TEST(rng_below_stays_in_range)
{
    uint64_t n = (uint64_t)_i;
    sim_rng r;
    sim_rng_seed(&r, 7);
    int lo = 0, hi = 0;
    for (int k = 0; k < 2000; k++) {
        uint64_t v = sim_rng_below(&r, n);
        ck_assert_uint_lt(v, n);
        lo |= v == 0;
        hi |= v == n - 1;
    }
    ck_assert(lo && hi);
}
END_TEST

START_TEST(streams_are_independent)
{
    sim_ctx *x = sim_new(9), *y = sim_new(9);
    /* x draws a lot from "net" first; "clients" must not notice. */
    for (int i = 0; i < 100; i++) sim_rng_next(sim_stream(x, "net"));
    for (int i = 0; i < 50; i++)
        ck_assert_uint_eq(sim_rng_next(sim_stream(x, "clients")),
                          sim_rng_next(sim_stream(y, "clients")));
    ck_assert_ptr_eq(sim_stream(x, "net"), sim_stream(x, "net"));
    sim_free(x);
    sim_free(y);
}
END_TEST

static uint64_t scripted(void *ud, sim_ctx *ctx, uint64_t n, const char *label)
{
    (void)label;
    uint64_t *next = ud;
    return (*next)++ % n;
}

START_TEST(choose_goes_through_the_chooser)
{
    sim_ctx *ctx = sim_new(3);
    uint64_t v = sim_choose(ctx, 1, "only");
    ck_assert_uint_eq(v, 0);
    ck_assert_uint_eq(sim_choices(ctx), 0); /* n <= 1 is not a choice */
    uint64_t a = sim_choose(ctx, 10, "x");
    ck_assert_uint_lt(a, 10);
    uint64_t next = 0;
    sim_set_chooser(ctx, scripted, &next);
    ck_assert_uint_eq(sim_choose(ctx, 3, "x"), 0);
    ck_assert_uint_eq(sim_choose(ctx, 3, "x"), 1);
    ck_assert_uint_eq(sim_choose(ctx, 3, "x"), 2);
    ck_assert_uint_eq(sim_choices(ctx), 4);
    sim_free(ctx);

    /* Without a chooser, the same seed gives the same choices. */
    sim_ctx *p = sim_new(5), *q = sim_new(5);
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(sim_choose(p, 1000, "lat"), sim_choose(q, 1000, "lat"));
    sim_free(p);
    sim_free(q);
}
END_TEST

typedef struct lines {
    int n;
    char last[128];
} lines;

static void sink(void *ud, const char *line, size_t len)
{
    lines *l = ud;
    l->n++;
    snprintf(l->last, sizeof l->last, "%.*s", (int)len, line);
}

static uint64_t trace_some(const char *word, lines *l)
{
    sim_ctx *ctx = sim_new(1);
    if (l) sim_set_trace_sink(ctx, sink, l);
    evlog lg = {{0}, ctx};
    ev_arg a = {&lg, "a"};
    sim_at(ctx, 5, "tick", append, &a);
    sim_run(ctx, SIM_TIME_NEVER);
    sim_trace(ctx, "c1.t1", "lock %s ok", word);
    uint64_t h = sim_trace_hash(ctx);
    ck_assert_uint_eq(sim_trace_lines(ctx), 2);
    sim_free(ctx);
    return h;
}

START_TEST(trace_hash_is_a_function_of_the_lines)
{
    lines l = {0, ""};
    uint64_t h1 = trace_some("x", &l);
    ck_assert_int_eq(l.n, 2);
    ck_assert_str_eq(l.last, "5 c1.t1 lock x ok");
    ck_assert_uint_eq(h1, trace_some("x", NULL));
    ck_assert_uint_ne(h1, trace_some("y", NULL));
}
END_TEST

typedef struct stamps {
    int64_t want;
    int bad;
} stamps;

static void check_stamp(void *ud, const char *line, size_t len)
{
    stamps *st = ud;
    char want[32];
    int n = snprintf(want, sizeof want, "%lld ev tick", (long long)st->want);
    if ((size_t)n != len || memcmp(want, line, len) != 0) st->bad++;
}

static void nothing(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
}

/* Time stamps are rewritten in place while their upper digits stay
 * (trace.c): every stamp reads as printf would write it, across steps of
 * one microsecond to a long jump, digit counts growing, 9999 -> 10000. */
START_TEST(trace_stamps_are_decimal_times)
{
    sim_ctx *ctx = sim_new(1);
    stamps st = {0, 0};
    sim_set_trace_sink(ctx, check_stamp, &st);
    sim_rng r;
    sim_rng_seed(&r, 7);
    const int64_t fixed[] = {0, 1, 9, 10, 99, 100, 9998, 9999, 10000, 10001, 19999, 20000, 99999999, 100000000};
    int64_t t = 0;
    for (int i = 0; i < 20000; i++) {
        if (i < (int)(sizeof fixed / sizeof fixed[0])) t = fixed[i];
        else t += (int64_t)sim_rng_below(&r, i % 97 == 0 ? 5000000 : i % 7 == 0 ? 20000 : 300);
        sim_at(ctx, t, "tick", nothing, NULL);
        st.want = t;
        ck_assert_int_eq(sim_step(ctx), 1);
    }
    ck_assert_int_eq(st.bad, 0);
    ck_assert_uint_eq(sim_trace_lines(ctx), 20000);
    sim_free(ctx);
}
END_TEST

START_TEST(strjoin_cuts_as_snprintf)
{
    char buf[8], want[8];
    ck_assert_uint_eq(sim_strjoin(buf, sizeof buf, "ab", ":", "cd", (const char *)NULL), 5);
    ck_assert_str_eq(buf, "ab:cd");
    for (size_t cap = 1; cap <= sizeof buf; cap++) {
        size_t n = sim_strjoin(buf, cap, "lock", "{", "x}", (const char *)NULL);
        snprintf(want, cap, "%s%s%s", "lock", "{", "x}");
        ck_assert_str_eq(buf, want);
        ck_assert_uint_eq(n, strlen(want));
    }
    ck_assert_uint_eq(sim_strjoin(buf, sizeof buf, (const char *)NULL), 0);
    ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(clocks_offset_jump_drift)
{
    sim_ctx *ctx = sim_new(1);
    sim_clock c;
    sim_clock_init(&c);
    ck_assert_int_eq(sim_clock_now_us(ctx, &c), SIM_CLOCK_EPOCH_US);
    ck_assert_int_eq(sim_clock_now_ms(ctx, &c), SIM_CLOCK_EPOCH_US / 1000);
    sim_clock_jump(ctx, &c, SIM_SEC(5));
    ck_assert_int_eq(sim_clock_now_us(ctx, &c), SIM_CLOCK_EPOCH_US + SIM_SEC(5));
    sim_clock_jump(ctx, &c, -SIM_SEC(5));
    sim_clock_set_drift(ctx, &c, 1000); /* +0.1 % */
    sim_run(ctx, SIM_SEC(10));
    ck_assert_int_eq(sim_clock_now_us(ctx, &c) - SIM_CLOCK_EPOCH_US, SIM_SEC(10) + SIM_MS(10));
    /* Changing the rate keeps the reading continuous. */
    int64_t before = sim_clock_now_us(ctx, &c);
    sim_clock_set_drift(ctx, &c, -500000);
    ck_assert_int_eq(sim_clock_now_us(ctx, &c), before);
    sim_run(ctx, SIM_SEC(12)); /* 2 s true at half speed: 1 s local */
    ck_assert_int_eq(sim_clock_now_us(ctx, &c), before + SIM_SEC(1));
    /* The inverse: when does the clock read 3 s more? */
    int64_t t = sim_clock_true_at(ctx, &c, sim_clock_now_us(ctx, &c) + SIM_SEC(3));
    ck_assert_int_eq(t, SIM_SEC(18));
    ck_assert_int_eq(sim_clock_true_at(ctx, &c, 0), sim_now(ctx));
    sim_free(ctx);
}
END_TEST

START_TEST(negative_clock_reads_floor_to_ms)
{
    sim_ctx *ctx = sim_new(1);
    sim_clock c = {.offset_us = -1500, .drift_ppm = 0, .drift_base_us = 0};
    ck_assert_int_eq(sim_clock_now_ms(ctx, &c), -2);
    sim_free(ctx);
}
END_TEST

/* A stand-in for the real backend's waiter: its "wall clock" jumps to each
 * due time, and at 15 µs outside input arrives (an event at that time). */
typedef struct fake_wall {
    int calls;
    int injected;
    ev_arg input;
} fake_wall;

static void wall_wait(void *ud, sim_ctx *ctx, int64_t due_us)
{
    fake_wall *w = ud;
    w->calls++;
    if (!w->injected && due_us > 15) {
        w->injected = 1;
        sim_advance(ctx, 15);
        sim_at(ctx, 15, "input", append, &w->input);
        return;
    }
    sim_advance(ctx, due_us);
}

START_TEST(real_time_waits_and_takes_input)
{
    sim_ctx *ctx = sim_new(1);
    evlog l = {.ctx = ctx};
    ev_arg a = {&l, "a"}, b = {&l, "b"};
    fake_wall w = {.input = {&l, "in"}};
    sim_set_waiter(ctx, wall_wait, &w);
    sim_at(ctx, 10, "a", append, &a);
    sim_at(ctx, 30, "b", append, &b);
    sim_run(ctx, 50);
    ck_assert_str_eq(l.buf, "a@10;in@15;b@30;");
    ck_assert_int_eq(sim_now(ctx), 50); /* it waited out the run's end too */
    ck_assert_int_ge(w.calls, 4);
    sim_free(ctx);
}
END_TEST

/* An array grown one doubling at a time from nothing to 8 MB, across
 * SIM_GROW_MAPPED (realloc'd below it, mapped and moved above), keeps
 * every element written before each growth. */
START_TEST(grown_arrays_keep_their_contents)
{
    uint64_t *v = NULL;
    size_t cap = 0, n = 0;
    while (cap * sizeof *v < ((size_t)8 << 20)) {
        size_t grown = cap ? cap * 2 : 512;
        v = sim_xgrow(v, cap * sizeof *v, grown * sizeof *v);
        for (size_t i = 0; i < n; i++) ck_assert_uint_eq(v[i], i * UINT64_C(0x9e3779b97f4a7c15));
        cap = grown;
        for (; n < cap; n++) v[n] = n * UINT64_C(0x9e3779b97f4a7c15);
    }
    ck_assert_uint_gt(cap * sizeof *v, SIM_GROW_MAPPED);
    sim_xgrow_free(v, cap * sizeof *v);
    sim_xgrow_free(NULL, 0);
}
END_TEST

Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *core = tcase_create("core");
    tcase_add_test(core, events_run_in_time_order);
    tcase_add_test(core, equal_times_run_in_scheduling_order);
    tcase_add_test(core, an_event_in_the_past_runs_now);
    tcase_add_test(core, timers_cancel_and_move);
    tcase_add_test(core, run_until_and_stop);
    tcase_add_test(core, prng_is_reproducible);
    tcase_add_test(core, streams_are_independent);
    tcase_add_test(core, choose_goes_through_the_chooser);
    tcase_add_test(core, trace_hash_is_a_function_of_the_lines);
    tcase_add_test(core, trace_stamps_are_decimal_times);
    tcase_add_test(core, strjoin_cuts_as_snprintf);
    tcase_add_test(core, clocks_offset_jump_drift);
    tcase_add_test(core, real_time_waits_and_takes_input);
    tcase_add_test(core, grown_arrays_keep_their_contents);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_loop_test(limits, rng_below_stays_in_range, 1, 12);
    tcase_add_test(limits, negative_clock_reads_floor_to_ms);
    suite_add_tcase(s, limits);
    return s;
}
