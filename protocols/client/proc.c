/* proc.c — virtual client processes: identity (a UUID from the seed), the
 * local clock, the gate every event passes (drop if the incarnation died,
 * hold while paused), process timers, the operation base, what protocols
 * may read of a process and its threads, and the history and trace
 * helpers.
 *
 * Invariants (asserted): every event belongs to a live process and sits
 * in exactly one place: armed in the sim heap (on the armed list, its
 * sim timer set) or queued by a pause (only while the process is
 * paused); an armed cl_timer's event points back at it; an event runs
 * once, never while its process is paused. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "protocols/client/client_int.h"

/* --------------------------------------------------------- owned memory */

typedef struct cl_block {
    struct cl_block *prev, *next;
    _Alignas(max_align_t) unsigned char data[];
} cl_block;

void *cl_alloc(cl_proc *p, size_t n)
{
    cl_block *b = sim_xcalloc(1, sizeof *b + n);
    b->next = p->blocks;
    if (p->blocks) p->blocks->prev = b;
    p->blocks = b;
    return b->data;
}

void cl_free(cl_proc *p, void *ptr)
{
    if (ptr == NULL) return;
    cl_block *b = (cl_block *)((unsigned char *)ptr - offsetof(cl_block, data));
    if (b->prev) b->prev->next = b->next;
    else p->blocks = b->next;
    if (b->next) b->next->prev = b->prev;
    sim_xfree(b);
}

/* ------------------------------------------------------------ the gate */

static void armed_link(cl_proc *p, cl_event *e)
{
    sim_assert(e->p == p && !e->queued && p->armed != e);
    e->prev = NULL;
    e->next = p->armed;
    if (p->armed) p->armed->prev = e;
    p->armed = e;
}

static void armed_unlink(cl_proc *p, cl_event *e)
{
    sim_assert(e->p == p && !e->queued && (e->prev != NULL || p->armed == e));
    if (e->prev) e->prev->next = e->next;
    else p->armed = e->next;
    if (e->next) e->next->prev = e->prev;
    e->prev = e->next = NULL;
}

static void queue_push(cl_proc *p, cl_event *e)
{
    sim_assert(p->paused && !e->queued && !sim_timer_armed(&e->st));
    e->queued = 1;
    e->next = NULL;
    if (p->queue_tail) p->queue_tail->next = e;
    else p->queue_head = e;
    p->queue_tail = e;
}

/* The heap fired e: run it, or hold it while the process is paused. */
static void dispatch(sim_ctx *ctx, void *arg)
{
    (void)ctx;
    cl_event *e = arg;
    cl_proc *p = e->p;
    /* a dead incarnation's events were cancelled with it */
    sim_assert(p->alive && !e->dead && !sim_timer_armed(&e->st));
    armed_unlink(p, e);
    if (p->paused) {
        queue_push(p, e);
        return;
    }
    if (e->timer) {
        sim_assert(e->timer->ev == e); /* the timer's own event */
        e->timer->ev = NULL;
        e->timer = NULL;
    }
    cl_world *cw = p->cw; /* outlives p, which fn may end */
    e->fn(p, e->arg);
    sim_fl_put(&cw->events, e);
}

static cl_event *event_arm(cl_proc *p, int64_t t_true, const char *label, cl_fn *fn, void *arg)
{
    sim_assert(p->alive && fn != NULL); /* timers belong to live processes */
    cl_event *e = sim_fl_get(&p->cw->events);
    e->p = p;
    e->fn = fn;
    e->arg = arg;
    e->label = label;
    armed_link(p, e);
    sim_timer_arm(p->cw->ctx, &e->st, t_true, label, dispatch, e);
    return e;
}

void cl_post(cl_proc *p, const char *label, cl_fn *fn, void *arg)
{
    event_arm(p, sim_now(p->cw->ctx), label, fn, arg);
}

void cl_post_owned(cl_proc *p, const char *label, cl_fn *fn, void *arg, void (*free_arg)(void *))
{
    event_arm(p, sim_now(p->cw->ctx), label, fn, arg)->free_arg = free_arg;
}

/* Frees an event that will not run, with the argument it owns. */
static void event_drop(cl_event *e)
{
    sim_assert(!sim_timer_armed(&e->st) && (e->timer == NULL || e->timer->ev == e));
    if (e->timer) e->timer->ev = NULL;
    if (e->free_arg) e->free_arg(e->arg);
    sim_fl_put(&e->p->cw->events, e);
}

void cl_timer_arm(cl_proc *p, cl_timer *t, int64_t delay_us, const char *label, cl_fn *fn,
                  void *arg)
{
    cl_timer_cancel(p, t);
    if (delay_us < 0) delay_us = 0;
    /* Local durations pass at the clock's rate (a drifting clock); jumps of
     * the wall clock do not move them (Java timers use nanoTime). */
    int64_t true_delay = delay_us;
    if (p->clock->drift_ppm != 0) { /* in 128 bits: a long delay on a slow clock is longer still */
        __int128 d = (__int128)delay_us * 1000000 / (1000000 + p->clock->drift_ppm);
        true_delay = d > SIM_TIME_NEVER - sim_now(p->cw->ctx) ? SIM_TIME_NEVER - sim_now(p->cw->ctx) : (int64_t)d;
    }
    sim_assert(t->ev == NULL);
    cl_event *e = event_arm(p, sim_now(p->cw->ctx) + true_delay, label, fn, arg);
    e->timer = t;
    t->ev = e;
}

void cl_timer_cancel(cl_proc *p, cl_timer *t)
{
    cl_event *e = t->ev;
    if (e == NULL) return;
    sim_assert(e->timer == t && e->p == p && !e->dead); /* its own, on its process */
    sim_assert(!e->queued || p->paused || !p->alive);
    t->ev = NULL;
    e->timer = NULL;
    if (e->queued) {
        e->dead = 1; /* freed when the queue drains */
        return;
    }
    armed_unlink(p, e);
    sim_timer_cancel(p->cw->ctx, &e->st);
    sim_fl_put(&p->cw->events, e);
}

int cl_timer_armed(const cl_timer *t)
{
    sim_assert(t->ev == NULL || t->ev->timer == t);
    return t->ev != NULL;
}

/* ------------------------------------------------------- pause / resume */

static void end_pause(sim_ctx *ctx, void *arg)
{
    cl_proc *p = arg;
    sim_assert(p->alive && p->paused);
    p->paused = 0;
    cl_hist(p, NULL, HIST_INFO, HOP_RESUME, 0, 0, 0, NULL);
    cl_trace(p, p->name, "resume");
    /* What arrived or fell due during the pause runs now, in order. */
    cl_event *e = p->queue_head;
    p->queue_head = p->queue_tail = NULL;
    while (e) {
        cl_event *next = e->next;
        sim_assert(e->queued && e->p == p);
        e->queued = 0;
        if (e->dead) {
            event_drop(e);
        } else {
            armed_link(p, e);
            sim_timer_arm(ctx, &e->st, sim_now(ctx), e->label, dispatch, e);
        }
        e = next;
    }
}

void cl_proc_pause(cl_proc *p, int64_t for_us)
{
    if (!p->alive || p->paused) return;
    sim_assert(for_us >= 0 && p->queue_head == NULL && !sim_timer_armed(&p->pause_end));
    p->paused = 1;
    cl_hist(p, NULL, HIST_INFO, HOP_PAUSE, 0, 0, for_us, NULL);
    cl_trace(p, p->name, "pause for %lldus", (long long)for_us);
    sim_timer_arm(p->cw->ctx, &p->pause_end, sim_now(p->cw->ctx) + for_us, "pause end",
                  end_pause, p);
}

/* ------------------------------------------------------------- identity */

void cl_random_hex(cl_proc *p, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i += 16) {
        uint64_t v = sim_rng_next(p->rng);
        for (int j = 0; j < 16; j++) out[i + j] = hex[(v >> (4 * j)) & 15];
    }
    out[32] = '\0';
}

static void make_uuid(cl_proc *p)
{
    char h[33];
    cl_random_hex(p, h);
    snprintf(p->id, sizeof p->id, "%.8s-%.4s-4%.3s-a%.3s-%.12s", h, h + 8, h + 12, h + 15,
             h + 18);
}

uint64_t cl_choose(cl_proc *p, uint64_t n, const char *label)
{
    return sim_choose(p->cw->ctx, n, label);
}

cl_proc *cl_proc_new(cl_world *cw, int client, int inc)
{
    cl_proc *p = sim_xcalloc(1, sizeof *p);
    p->cw = cw;
    p->client = client;
    p->inc = inc;
    p->alive = 1;
    snprintf(p->name, sizeof p->name, "c%d", client);
    char stream[48];
    snprintf(stream, sizeof stream, "client %d/%d", client, inc);
    p->rng = sim_stream(cw->ctx, stream);
    p->clock = &cw->clocks[client - 1]; /* the machine's clock outlives the process */
    make_uuid(p);
    p->nthreads = cw->s->threads;
    for (size_t i = 0; i < cw->s->nsteps; i++)
        if (cw->s->steps[i].client == client && cw->s->steps[i].thread > p->nthreads)
            p->nthreads = cw->s->steps[i].thread;
    p->threads = sim_xcalloc((size_t)p->nthreads, sizeof *p->threads);
    for (int i = 0; i < p->nthreads; i++) {
        cl_thread *t = &p->threads[i];
        t->p = p;
        t->index = i + 1;
        t->waiting_since = -1;
        snprintf(t->name, sizeof t->name, "c%d.t%d", client, i + 1);
        snprintf(t->lock_name, sizeof t->lock_name, "%s:%d", p->id, i + 1);
    }
    cl_nodes_open(p);
    if (cw->proto->proc_init) cw->proto->proc_init(p);
    return p;
}

/* Frees a dead process: its timers first (their events point into it). */
void cl_proc_free(cl_proc *p)
{
    if (p == NULL) return;
    p->alive = 0; /* nothing may arm an event on it from here */
    sim_timer_cancel(p->cw->ctx, &p->pause_end);
    while (p->armed) {
        cl_event *e = p->armed;
        armed_unlink(p, e);
        sim_timer_cancel(p->cw->ctx, &e->st);
        event_drop(e);
    }
    for (cl_event *e = p->queue_head, *next; e; e = next) {
        next = e->next;
        event_drop(e);
    }
    if (p->cw->proto->proc_free) p->cw->proto->proc_free(p);
    cl_watchdog_free(p);
    cl_subs_free(p);
    cl_commands_free(p);
    cl_nodes_close(p);
    while (p->blocks) cl_free(p, p->blocks->data);
    cl_workload_free(p);
    sim_assert(p->armed == NULL && p->blocks == NULL && p->subs == NULL && p->watchdog == NULL);
    sim_xfree(p->threads);
    sim_xfree(p);
}

/* --------------------------------------------------------------- helpers */

int64_t cl_now_ms(const cl_proc *p)
{
    return sim_clock_now_ms(p->cw->ctx, p->clock);
}

void cl_trace(cl_proc *p, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sim_vtrace(p->cw->ctx, who, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------- the operation base */

void *cl_op_new(cl_thread *t, size_t size, int lock, cl_done_fn *done)
{
    sim_assert(size >= sizeof(cl_op) && done != NULL && t->p->alive);
    sim_assert(lock >= 0 && lock < t->p->cw->nkeys);
    cl_op *op = cl_alloc(t->p, size);
    op->t = t;
    op->lock = lock;
    op->done = done;
    return op;
}

void cl_op_end(void *arg, int ok, int64_t value, const char *err)
{
    cl_op *op = arg;
    cl_thread *t = op->t;
    cl_proc *p = t->p;
    cl_done_fn *done = op->done;
    sim_assert(done != NULL && p->alive); /* an operation ends once, in its process */
    op->done = NULL;
    cl_timer_cancel(p, &op->timer);
    if (op->sub) cl_sub_release(p, op->sub);
    cl_free(p, op);
    done(t, ok, value, err);
}

const char *cl_err_exception(cl_err err)
{
    switch (err) {
    case CL_ERR_TIMEOUT: return "RedisResponseTimeoutException";
    case CL_ERR_CONNECTION: return "RedisConnectionException";
    case CL_ERR_NOSYNC: return "NoSyncedSlavesException";
    default: return NULL;
    }
}

const char *cl_reentry_name(cl_reentry r)
{
    switch (r) {
    case CL_REENTRY_REDIS: return "redis";
    case CL_REENTRY_LOCAL: return "local";
    default: return "no";
    }
}

int64_t cl_lease_ms(int64_t lease_us)
{
    return lease_us == SCN_LEASE_WATCHDOG ? -1 : lease_us / 1000;
}

int64_t cl_wait_ms(int64_t wait_us)
{
    return wait_us < 0 ? -1 : wait_us / 1000;
}

int cl_lock_flags(const cl_proc *p, int tr)
{
    return tr | (p->cw->set.synced ? CL_SYNCED : 0);
}

/* ----------------------------------------------------------- accessors */

cl_proc *cl_thread_proc(const cl_thread *t)
{
    return t->p;
}

int cl_thread_index(const cl_thread *t)
{
    return t->index;
}

const char *cl_thread_name(const cl_thread *t)
{
    return t->name;
}

const char *cl_thread_lock_name(const cl_thread *t)
{
    return t->lock_name;
}

uint64_t cl_thread_op(const cl_thread *t)
{
    return t->op_seq;
}

int cl_thread_mode(const cl_thread *t)
{
    return t->cur_mode;
}

int64_t cl_thread_permits(const cl_thread *t)
{
    return t->cur_n;
}

int64_t cl_thread_wait_us(const cl_thread *t)
{
    return t->cur_wait_us;
}

int cl_thread_async(const cl_thread *t)
{
    return t->cur_async;
}

int64_t cl_thread_lease_us(const cl_thread *t)
{
    return t->cur_lease_us;
}

void **cl_thread_ext(cl_thread *t)
{
    return &t->ext;
}

cl_world *cl_proc_world(const cl_proc *p)
{
    return p->cw;
}

int cl_proc_client(const cl_proc *p)
{
    return p->client;
}

const char *cl_proc_id(const cl_proc *p)
{
    return p->id;
}

const char *cl_proc_name(const cl_proc *p)
{
    return p->name;
}

int cl_proc_threads(const cl_proc *p)
{
    return p->nthreads;
}

void **cl_proc_state(cl_proc *p)
{
    return &p->proto;
}

void cl_hist(cl_proc *p, const cl_thread *t, hist_kind kind, hist_op op, int lock,
             int64_t value, int64_t aux, const char *err)
{
    hist_event e = {
        .t_us = sim_now(p->cw->ctx),
        .kind = kind,
        .op = op,
        .client = p->client,
        .inc = p->inc,
        .thread = t ? t->index : 0,
        .lock = lock,
        .value = value,
        .aux = aux,
        .seq = t ? t->op_seq : 0,
        .mode = t ? t->cur_mode : 0,
        .n = t ? t->cur_n : 0,
        .async = t ? t->cur_async : 0,
        .lease_us = t && kind == HIST_INVOKE ? t->cur_lease_us : 0,
        .err = err,
    };
    hist_add(p->cw->h, &e);
}
