/* counter.c — helpers of the counter objects (semaphore, count-down
 * latch): the runtime's trySet before the workload, the observer of a
 * string integer key, waits on the client clock, a semaphore's waiting
 * acquire, reply decoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/counter.h"

void counter_setup(cl_world *cw, int lock, const char *script, const char *const *keys,
                   int nargs, const char *const *args, int64_t value)
{
    int64_t answer =
        cl_admin_eval(cw, counter_node_of(cw, lock), cl_script_of(cw, script), 2, keys, nargs, args);
    sim_trace(cl_world_ctx(cw), "setup", "%s %s %lld: %s", script, keys[0], (long long)value,
              answer ? "set" : "already set");
    cl_world_info(cw, HOP_SET, lock, value, answer);
}

void counter_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    world_peek_result pk;
    int exists = cl_store_peek(cw, group, lock, out, &pk);
    out->counter = 1;
    if (!exists || pk.type != WORLD_TYPE_STRING) return;
    char num[32];
    snprintf(num, sizeof num, "%.*s", (int)(pk.len < 31 ? pk.len : 31), pk.str);
    out->count = strtoll(num, NULL, 10);
}

int counter_node_of(const cl_world *cw, int lock)
{
    (void)cw;
    (void)lock;
    return 0;
}

const char *counter_key(const cl_thread *t, int lock)
{
    return cl_key_name(cl_proc_world(cl_thread_proc(t)), lock);
}

void counter_wait_start(counter_wait *w, cl_proc *p, int64_t wait_us)
{
    w->wait_ms = wait_us < 0 ? -1 : wait_us / 1000;
    w->rem_ms = w->wait_ms;
    w->mark_ms = cl_now_ms(p);
}

int counter_wait_charge(counter_wait *w, cl_proc *p)
{
    int64_t now = cl_now_ms(p);
    if (w->wait_ms < 0) {
        w->mark_ms = now;
        return 0;
    }
    w->rem_ms -= now - w->mark_ms;
    w->mark_ms = now;
    return w->rem_ms <= 0;
}

int64_t counter_wait_us(const counter_wait *w)
{
    return w->wait_ms < 0 ? -1 : SIM_MS(w->rem_ms);
}

const char *counter_failure(const sim_reply *r, cl_err err)
{
    if (cl_err_exception(err)) return cl_err_exception(err);
    if (r == NULL) return "no reply";
    if (r->type == SIM_REPLY_ERR) return "script error";
    return NULL;
}

int64_t counter_value(const sim_reply *r)
{
    if (r == NULL) return 0;
    if (r->type == SIM_REPLY_INT) return r->integer;
    if (r->type == SIM_REPLY_STR && r->str) return strtoll(r->str, NULL, 10);
    return 0;
}

const cl_defaults counter_current = {
    .watchdog_gen = 2, .retry_attempts = 4, .jitter = 1, .synced = 1, .readonly_retry = 1};

void counter_client_at(int v, cl_defaults *d)
{
    d->watchdog_gen = 2;
    d->retry_attempts = v >= PROTO_V(3, 48, 0) ? 4 : 3;
    d->jitter = v >= PROTO_V(3, 48, 0);
    d->synced = v >= PROTO_V(3, 21, 0);
    d->nosync_unchecked = v < PROTO_V(3, 20, 0);
    d->nosync_no_retry = v < PROTO_V(3, 20, 1);
    d->readonly_retry = v >= PROTO_V(3, 27, 1);
    d->written_final = v < PROTO_V(3, 10, 0);  /* 1a08db75b */
    d->sub_no_timeout = v < PROTO_V(3, 2, 1);  /* 835dfeaa8 */
}

int counter_msg_policy(int v)
{
    /* SemaphorePubSub: listeners take permits (3.0.0 .. 3.7.0), all run
     * (3.7.1, 8d347ad22), one runs (3.7.2, eb36207f9). */
    return v < PROTO_V(3, 7, 1) ? CL_SUB_TAKERS : v < PROTO_V(3, 7, 2) ? CL_SUB_RUN_ALL : 0;
}

/* ------------------------------------------------- a waiting acquire */

#define SUBSCRIBE_TIMEOUT_MS 7500 /* subscriptionTimeout */

static void acq_on_wait(cl_proc *p, void *ud, int got)
{
    (void)got;
    counter_acq *a = ud;
    if (counter_wait_charge(&a->w, p)) {
        a->end(a, 0, NULL);
        return;
    }
    a->retry(a);
}

static void acq_on_subscribed(cl_proc *p, void *ud, int ok)
{
    counter_acq *a = ud;
    if (!ok) {
        if (a->w.wait_ms >= 0) a->end(a, 0, NULL);
        else a->end(a, 0, "RedisTimeoutException: subscribe timeout (7500 ms)");
        return;
    }
    a->state = COUNTER_LOOP;
    acq_on_wait(p, a, 1);
}

void counter_acq_subscribe(counter_acq *a, cl_proc *p, int policy)
{
    const char *name = counter_key(a->base.t, a->base.lock);
    char channel[192];
    proto_brace_name("redisson_sc:", name, channel, sizeof channel);
    a->state = COUNTER_SUBSCRIBING;
    int64_t deadline = a->w.wait_ms >= 0                                   ? SIM_MS(a->w.rem_ms)
                       : cl_world_settings(cl_proc_world(p))->sub_no_timeout ? -1
                                                                          : SIM_MS(SUBSCRIBE_TIMEOUT_MS);
    a->base.sub = cl_sub_acquire(p, counter_node_of(cl_proc_world(p), a->base.lock), name, channel, deadline,
                                 acq_on_subscribed, a);
    cl_sub_kind(a->base.sub, CL_SUB_SEMAPHORE);
    cl_sub_policy(a->base.sub, policy);
}

void counter_acq_wait(counter_acq *a, cl_proc *p, int64_t take, int64_t take_async, int64_t us)
{
    if (!cl_thread_async(a->base.t)) {
        cl_sub_wait_n(p, a->base.sub, take, us, acq_on_wait, a);
        return;
    }
    if (cl_sub_try_take(a->base.sub, take_async)) {
        a->retry(a);
        return;
    }
    cl_sub_listen(p, a->base.sub, us, acq_on_wait, a);
}

static void acq_on_nosync_retry(cl_proc *p, void *arg)
{
    (void)p;
    counter_acq *a = arg;
    a->retry(a);
}

int counter_acq_nosync(counter_acq *a, cl_proc *p)
{
    return cl_nosync_retry(p, &a->nosync_retries, &a->base.timer, acq_on_nosync_retry, a);
}

/* ------------------------------------------------- one-command operations */

static void on_simple_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    const char *fail = counter_failure(r, err);
    cl_op_end(ud, fail == NULL, fail ? 0 : counter_value(r), fail);
}

void counter_simple_eval(cl_thread *t, int lock, const char *script, const char *const *keys, int nargs,
                         const char *const *args, int flags, cl_done_fn *done)
{
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    cl_world *cw = cl_proc_world(cl_thread_proc(t));
    cl_eval(cl_thread_proc(t), counter_node_of(cw, lock), cl_script_of(cw, script), 2, keys, nargs, args, flags,
            cl_thread_op(t), on_simple_reply, op);
}

void counter_get(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_op *op = cl_op_new(t, sizeof *op, lock, done);
    const char *argv[] = {"GET", counter_key(t, lock)};
    cl_command(cl_thread_proc(t), counter_node_of(cl_proc_world(cl_thread_proc(t)), lock), 2, argv, CL_RESEND,
               cl_thread_op(t), on_simple_reply, op);
}
