/* latch.c — RedissonCountDownLatch, client side (PROTOCOLS.md §7), current
 * version: countDown() is one LATCH_COUNT_DOWN (NR since 3.16.4), which
 * publishes ZERO when it brings the count to 0; getCount() is GET; await()
 * reads the count, subscribes (entry id + name) and loops "while count > 0:
 * wait on the gate", the gate opened only by a ZERO message — for ever for
 * await(), for the rest of the wait for await(wait).
 *
 * Scenario operations: countdown, await [wait=D] [api=async], getcount,
 * trysetcount count=N.
 * The random workload: after each think, thread t1 of every client counts
 * down and the other threads await (await() in mode = lock, await(wait) in
 * mode = trylock; awaitAsync with [clients] async = yes). The runtime sets
 * [protocol] count with trySetCount before the workload.
 *
 * awaitAsync() (since 3.11.6, issue #2427) reads the count, subscribes,
 * reads it again and, while it is above 0, adds a listener to the entry
 * instead of waiting on its gate. Up to 3.23.5 the ZERO message ran only
 * the first listener (CountDownLatchPubSub: getListeners().poll()), so of
 * several awaitAsync() calls in one process one completed and the others
 * waited for ever; 3.24.0 runs them all (issue #5349, PR #5350, fdd2b33a6:
 * in the 3.24.0 tag, though the CHANGELOG lists it under 3.24.1). Before
 * 3.16.4 countDown was resent after a reply timeout (issue #3850). */
#include <stdio.h>
#include <string.h>

#include "protocols/counter.h"

typedef struct latch_cfg {
    int run_all;   /* ZERO runs every listener (3.24.0) */
    int has_async; /* awaitAsync (3.11.6) */
    int tr;        /* countDown: CL_RESEND before 3.16.4 */
} latch_cfg;

static const latch_cfg latch_current = {.run_all = 1, .has_async = 1, .tr = CL_NORESEND};

/* The client's settings (cl_world's for a protocol with none), but never
 * synced: the latch's writes are not followed by WAIT. Redisson 3.24.1
 * and 3.52.0, RedissonCountDownLatch.countDownAsync and trySetCountAsync:
 * commandExecutor.evalWriteNoRetryAsync / evalWriteAsync; only
 * RedissonBaseLock's scripts go through syncedEval. A failover to a
 * replica may lose a countDown (faults/contract.c: not claimed). */
static const cl_defaults latch_defaults = {.watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 0};

static const latch_cfg *cfg_of(const cl_thread *t)
{
    return cl_world_cfg(cl_proc_world(cl_thread_proc(t)));
}

static void channel_of(const char *name, char *buf, size_t cap)
{
    /* "redisson_countdownlatch__channel__{name}": braces always added. */
    snprintf(buf, cap, "redisson_countdownlatch__channel__{%s}", name);
}

/* ---------------------------------------------------------------- await */

typedef enum await_state { AW_FIRST, AW_SUBSCRIBING, AW_LOOP } await_state;

typedef struct await_op {
    cl_op base;        /* its sub: the latch's channel */
    counter_wait w;
    await_state state;
} await_op;

static void get_count(await_op *op);

/* released: 1 when the count was seen at 0, 0 when the wait ran out. */
static void await_end(await_op *op, int released, const char *err)
{
    cl_op_end(op, err == NULL, released, err);
}

static void on_gate(cl_proc *p, void *ud, int opened)
{
    (void)opened;
    await_op *op = ud;
    cl_hist(p, op->base.t, HIST_INFO, HOP_PARK, op->base.lock, 0, 0, NULL);
    counter_wait_charge(&op->w, p);
    get_count(op); /* the loop's test comes first, even when time is up */
}

static void on_subscribed(cl_proc *p, void *ud, int ok)
{
    await_op *op = ud;
    if (!ok || counter_wait_charge(&op->w, p)) {
        await_end(op, 0, NULL);
        return;
    }
    op->state = AW_LOOP;
    get_count(op);
}

static void on_count(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    await_op *op = ud;
    const char *fail = counter_failure(r, err);
    if (fail) {
        await_end(op, 0, fail);
        return;
    }
    if (counter_value(r) <= 0) {
        await_end(op, 1, NULL);
        return;
    }
    if (op->state == AW_FIRST) {
        char entry[256], channel[192];
        snprintf(entry, sizeof entry, "%s%s", cl_proc_id(p), counter_key(op->base.t, op->base.lock));
        channel_of(counter_key(op->base.t, op->base.lock), channel, sizeof channel);
        op->state = AW_SUBSCRIBING;
        /* await() sets no deadline of its own; await(t) waits up to t. */
        op->base.sub = cl_sub_acquire(p, counter_node_of(cl_proc_world(p), op->base.lock), entry, channel, counter_wait_us(&op->w),
                                 on_subscribed, op);
        cl_sub_kind(op->base.sub, CL_SUB_LATCH);
        cl_sub_policy(op->base.sub, cfg_of(op->base.t)->run_all ? CL_SUB_RUN_ALL : 0);
        return;
    }
    if (op->w.wait_ms >= 0 && op->w.rem_ms <= 0) {
        await_end(op, 0, NULL);
        return;
    }
    op->w.mark_ms = cl_now_ms(p);
    /* For the checker: no command in flight until the gate or listener
     * wakes it (a reply timeout then resends nothing). */
    cl_hist(p, op->base.t, HIST_INFO, HOP_PARK, op->base.lock, counter_wait_us(&op->w) < 0 ? 1 : 2, 0, NULL);
    if (cl_thread_async(op->base.t)) {
        /* The count read above was answered before the ZERO that came
         * first was sent: the listener waits for a message already gone. */
        if (cl_sub_listen_late(op->base.sub))
            cl_hist(p, op->base.t, HIST_INFO, HOP_LATE_LISTENER, op->base.lock, 0, 0, NULL);
        cl_sub_listen(p, op->base.sub, counter_wait_us(&op->w), on_gate, op);
    } else cl_sub_wait(p, op->base.sub, counter_wait_us(&op->w), on_gate, op);
}

static void get_count(await_op *op)
{
    const char *argv[] = {"GET", counter_key(op->base.t, op->base.lock)};
    cl_command(cl_thread_proc(op->base.t), counter_node_of(cl_proc_world(cl_thread_proc(op->base.t)), op->base.lock), 2, argv, CL_RESEND, cl_thread_op(op->base.t), on_count,
               op);
}

static void latch_await(cl_thread *t, int lock, cl_done_fn *done)
{
    if (cl_thread_async(t) && !cfg_of(t)->has_async) {
        done(t, 0, 0, "RCountDownLatch.awaitAsync exists since Redisson 3.11.6");
        return;
    }
    await_op *op = cl_op_new(t, sizeof *op, lock, done);
    counter_wait_start(&op->w, cl_thread_proc(t), cl_thread_wait_us(t));
    get_count(op);
}

/* ------------------------------------------------ countDown, getCount */

static void latch_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    if (what == SCN_OP_AWAIT) {
        latch_await(t, lock, done);
    } else if (what == SCN_OP_COUNTDOWN) {
        char channel[192];
        channel_of(counter_key(t, lock), channel, sizeof channel);
        const char *keys[] = {counter_key(t, lock), channel};
        const char *args[] = {"0", "publish"};
        counter_simple_eval(t, lock, "latch_count_down", keys, 2, args, cfg_of(t)->tr, done);
    } else if (what == SCN_OP_TRYSETCOUNT) {
        /* trySetCount(n): the step's count=N, the workload's [protocol]
         * count (the runtime's n); a latch that still counts is left
         * alone (answer 0). */
        char channel[192], num[24];
        channel_of(counter_key(t, lock), channel, sizeof channel);
        int64_t n = cl_thread_permits(t);
        sim_assert(n >= 1);
        sim_fmt_i64(num, n);
        const char *keys[] = {counter_key(t, lock), channel};
        const char *args[] = {"1", num, "publish"};
        counter_simple_eval(t, lock, "latch_try_set", keys, 3, args, cfg_of(t)->tr, done);
    } else {
        counter_get(t, lock, done); /* getCount, and any other query */
    }
}

/* The lock operations: a latch has none of them. */
static void latch_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    (void)lock;
    (void)wait_us;
    (void)lease_us;
    done(t, 0, 0, "a count-down latch has no lock operations (countdown, await, getcount)");
}

static void latch_no_release(cl_thread *t, int lock, cl_done_fn *done)
{
    (void)lock;
    done(t, 0, 0, "a count-down latch has no lock operations (countdown, await, getcount)");
}

/* The random workload: t1 counts down, the others await; with [clients]
 * rearm, that share of t1's cycles calls trySetCount([protocol] count)
 * instead, which arms the latch again once it has opened (a latch opens
 * many times a run, each opening a ZERO message a fault or a race can
 * meet; the choice is drawn only when the key is set). */
static scn_op latch_random_op(cl_thread *t)
{
    if (cl_thread_index(t) != 1) return SCN_OP_AWAIT;
    cl_world *cw = cl_proc_world(cl_thread_proc(t));
    int rearm = cl_world_scenario(cw)->rearm_ppm;
    if (rearm > 0 && sim_choose(cl_world_ctx(cw), SCN_PPM, "rearm") < (uint64_t)rearm) return SCN_OP_TRYSETCOUNT;
    return SCN_OP_COUNTDOWN;
}

/* trySetCount([protocol] count) on every latch, before the workload. */
static void latch_setup(cl_world *cw)
{
    for (int lock = 0; lock < cl_world_scenario(cw)->nlocks; lock++) {
        char channel[192], num[24];
        channel_of(cl_world_scenario(cw)->lock_names[lock], channel, sizeof channel);
        sim_fmt_i64(num, cl_world_scenario(cw)->init_count);
        const char *keys[] = {cl_world_scenario(cw)->lock_names[lock], channel};
        const char *args[] = {"1", num, "publish"};
        counter_setup(cw, lock, "latch_try_set", keys, 3, args, cl_world_scenario(cw)->init_count);
    }
}

/* The settings of release v (PROTO_V). */
static void latch_at_version(int v, void *cfg, cl_defaults *d)
{
    latch_cfg *c = cfg;
    c->run_all = v >= PROTO_V(3, 24, 0);
    c->has_async = v >= PROTO_V(3, 11, 6);
    c->tr = v >= PROTO_V(3, 16, 4) ? CL_NORESEND : CL_RESEND;
    counter_client_at(v, d);
    d->synced = 0; /* see latch_defaults */
}

static size_t latch_scripts(const void *cfg, const cl_defaults *d, const char **out, size_t max)
{
    (void)cfg, (void)d;
    const char *names[] = {"latch_try_set", "latch_count_down"};
    return proto_names_out(names, 2, out, max);
}

const proto_def proto_latch = {
    .name = "redisson.latch",
    .summary = "RedissonCountDownLatch (4.7.x): a count key, countDown publishes ZERO, await waits for it",
    .options = "[protocol] count = N (trySetCount before the workload; default 1); steps: countdown, "
               "await [wait=D] [api=async], getcount, trysetcount count=N; random workload: t1 of each client "
               "counts down, the others await ([clients] async = yes: awaitAsync; [clients] rearm = P: that "
               "share of t1's cycles calls trySetCount(count) instead, arming an open latch again)",
    .versions = "@3.0 .. @4.7 (awaitAsync from 3.11.6; ZERO runs one async listener up to 3.23.5, all "
                "since 3.24.0; countDown never resent before 3.10.0, resent 3.10.0-3.16.3)",
    .min_version = 30000,
    .at_version = latch_at_version,
    .cfg_size = sizeof(latch_cfg),
    .scripts = latch_scripts,
    .steps = PROTO_ASYNC | PROTO_STEP(SCN_OP_TRYSETCOUNT),
    .impl = {
        .cfg = &latch_current,
        .defaults = &latch_defaults,
        .script = proto_script_find,
        .acquire = latch_acquire,
        .release = latch_no_release,
        .force_unlock = latch_no_release,
        .query = latch_query,
        .observe = counter_observe,
        .node_of = counter_node_of,
        .invariants = PROTO_INV(SCN_INV_LATCH) | PROTO_INV(SCN_INV_LIVENESS),
        .random_op = latch_random_op,
        .setup = latch_setup,
        .reentry = CL_REENTRY_NO, /* nothing is held */
    },
};
