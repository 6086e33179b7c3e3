/* pubsub.c — Redisson's pub/sub entries in a virtual process: one entry per
 * entry name (shared by the process's threads, reference counted), the
 * asynchronous SUBSCRIBE with its deadline, and the entry's latch, a
 * counting semaphore that lock messages add permits to. Permits not taken
 * accumulate, so a later wait returns at once (a spurious wake-up). Waiters
 * are served in arrival order, each taking its n permits (head of line: a
 * waiter for more than there are holds the ones behind it, as Java's
 * Semaphore does). A semaphore entry's message adds min(references, v)
 * permits (v before 3.15.6); a count-down latch entry is a gate instead
 * (ZERO opens it for every wait, NEW_COUNT closes it).
 *
 * The async API waits as listeners instead: a message runs the oldest one
 * (a lock's read-unlock "1" every one; a latch's ZERO every one since
 * 3.24.0) before it touches the latch; permits it adds are not seen by
 * listeners already waiting. An async wait checks the latch and then adds
 * its listener; with [clients] listener-gap the listener comes that long
 * after the check (the future's callback on another thread; not for a
 * latch, whose race is its count's reply overtaken by ZERO), and a
 * message in between runs no listener: it only leaves its permit, which
 * the listener looks at when it comes only since 3.28.0 (CL_SUB_RECHECK).
 *
 * Invariants (asserted): an entry's references never go below zero and
 * it is freed with its last; it stays on the node group it was made for;
 * permits are never negative; a subscribed entry has no one waiting for
 * its subscription; a waiter or a pending subscriber that times out is
 * found on its entry's list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/client/client_int.h"

#define JAVA_INT_MAX 2147483647LL /* a java.util.concurrent.Semaphore's permits */

typedef struct sub_waiter {
    cl_sub *s;
    cl_wait_fn *fn;
    void *ud;
    int64_t n;          /* latch permits it takes (a listener: none) */
    int64_t timeout_us; /* a gapped listener's wait, armed once it listens */
    cl_timer timer;
    struct sub_waiter *next;
} sub_waiter;

typedef struct sub_pending {
    cl_sub *s;
    cl_subscribed_fn *fn;
    void *ud;
    cl_timer timer;
    struct sub_pending *next;
} sub_pending;

struct cl_sub {
    UT_hash_handle hh;
    cl_proc *p;
    int node;
    char entry[192];
    char channel[192];
    int refs;
    int kind;              /* CL_SUB_* */
    int open;              /* latch: the gate is open */
    int subscribed;
    int64_t permits;
    int armed;             /* broadcast: waiters registered, not yet waiting */
    uint64_t messages;     /* broadcast: messages so far (cl_sub_arm's generation) */
    int policy;            /* CL_SUB_* policy bits */
    sub_waiter *waiters;   /* FIFO */
    sub_waiter *listeners; /* FIFO: the async API's waits */
    sub_waiter *gapped;    /* async waits between their latch check and addListener */
    sub_pending *pending;  /* waiting for the subscription */
};

typedef struct posted {
    void *fn;
    void *ud;
    int flag;
} posted;

static void run_wait_cb(cl_proc *p, void *arg)
{
    posted *x = arg;
    ((cl_wait_fn *)x->fn)(p, x->ud, x->flag);
    sim_xfree(x);
}

static void run_sub_cb(cl_proc *p, void *arg)
{
    posted *x = arg;
    ((cl_subscribed_fn *)x->fn)(p, x->ud, x->flag);
    sim_xfree(x);
}

static void post_cb(cl_proc *p, cl_fn *runner, void *fn, void *ud, int flag)
{
    posted *x = sim_xmalloc(sizeof *x);
    x->fn = fn;
    x->ud = ud;
    x->flag = flag;
    cl_post_owned(p, "latch", runner, x, sim_xfree);
}

/* -------------------------------------------------------- subscriptions */

static void on_sub_timeout(cl_proc *p, void *arg)
{
    sub_pending *w = arg;
    cl_sub *s = w->s;
    int found = 0;
    for (sub_pending **pp = &s->pending; *pp; pp = &(*pp)->next) {
        if (*pp != w) continue;
        *pp = w->next;
        found = 1;
        break;
    }
    sim_assert(found && !s->subscribed && s->p == p);
    cl_subscribed_fn *fn = w->fn;
    void *ud = w->ud;
    sim_xfree(w);
    fn(p, ud, 0);
}

cl_sub *cl_sub_acquire(cl_proc *p, int node, const char *entry, const char *channel,
                       int64_t timeout_us, cl_subscribed_fn *fn, void *ud)
{
    cl_sub *s;
    HASH_FIND_STR(p->subs, entry, s);
    if (s == NULL) {
        s = sim_xcalloc(1, sizeof *s);
        s->p = p;
        s->node = node;
        sim_strjoin(s->entry, sizeof s->entry, entry, (const char *)NULL);
        sim_strjoin(s->channel, sizeof s->channel, channel, (const char *)NULL);
        HASH_ADD_STR(p->subs, entry, s);
        const char *argv[] = {"SUBSCRIBE", channel};
        cl_ps_send(p, node, 2, argv);
    }
    sim_assert(s->node == node && s->refs >= 0 && p->alive); /* one entry name, one group */
    s->refs++;
    if (s->subscribed) {
        sim_assert(s->pending == NULL);
        post_cb(p, run_sub_cb, (void *)fn, ud, 1);
        return s;
    }
    sub_pending *w = sim_xcalloc(1, sizeof *w);
    w->s = s;
    w->fn = fn;
    w->ud = ud;
    sub_pending **tail = &s->pending;
    while (*tail) tail = &(*tail)->next;
    *tail = w;
    if (timeout_us >= 0) cl_timer_arm(p, &w->timer, timeout_us, "subscribe timeout", on_sub_timeout, w);
    return s;
}

static void free_waiters(cl_proc *p, sub_waiter **list)
{
    while (*list) {
        sub_waiter *w = *list;
        *list = w->next;
        cl_timer_cancel(p, &w->timer);
        sim_xfree(w);
    }
}

static void sub_destroy(cl_proc *p, cl_sub *s)
{
    HASH_DEL(p->subs, s);
    free_waiters(p, &s->waiters);
    free_waiters(p, &s->listeners);
    free_waiters(p, &s->gapped);
    while (s->pending) {
        sub_pending *w = s->pending;
        s->pending = w->next;
        cl_timer_cancel(p, &w->timer);
        sim_xfree(w);
    }
    sim_xfree(s);
}

void cl_sub_release(cl_proc *p, cl_sub *s)
{
    sim_assert(s->refs > 0 && s->p == p); /* never below zero */
    if (--s->refs > 0) return;
    const char *argv[] = {"UNSUBSCRIBE", s->channel};
    cl_ps_send(p, s->node, 2, argv);
    sub_destroy(p, s);
}

void cl_subs_resubscribe(cl_proc *p, int group)
{
    for (cl_sub *s = p->subs; s; s = s->hh.next) {
        if (s->node != group) continue;
        s->subscribed = 0;
        const char *argv[] = {"SUBSCRIBE", s->channel};
        cl_ps_send(p, group, 2, argv);
    }
}

void cl_subs_free(cl_proc *p)
{
    while (p->subs) sub_destroy(p, p->subs);
}

/* ---------------------------------------------------------------- latch */

/* Gives permits to waiters, oldest first, each its n while there are. */
static void serve(cl_proc *p, cl_sub *s)
{
    sim_assert(s->permits >= 0);
    while (s->waiters && s->permits >= s->waiters->n) {
        sub_waiter *w = s->waiters;
        s->waiters = w->next;
        s->permits -= w->n;
        cl_timer_cancel(p, &w->timer);
        post_cb(p, run_wait_cb, (void *)w->fn, w->ud, 1);
        sim_xfree(w);
    }
}

/* Unlinks w from list; 1 when it was there. */
static int unlink_waiter(sub_waiter **list, sub_waiter *w)
{
    for (sub_waiter **pp = list; *pp; pp = &(*pp)->next) {
        if (*pp != w) continue;
        *pp = w->next;
        return 1;
    }
    return 0;
}

static void on_wait_timeout(cl_proc *p, void *arg)
{
    sub_waiter *w = arg;
    cl_sub *s = w->s;
    int found = unlink_waiter(&s->waiters, w) || unlink_waiter(&s->listeners, w);
    sim_assert(found && s->p == p);
    cl_wait_fn *fn = w->fn;
    void *ud = w->ud;
    sim_xfree(w);
    fn(p, ud, 0);
}

void cl_sub_kind(cl_sub *s, int kind)
{
    s->kind = kind;
}

void cl_sub_policy(cl_sub *s, int policy)
{
    s->policy = policy;
}

/* Puts w last in list. */
static void append(sub_waiter **list, sub_waiter *w)
{
    sub_waiter **tail = list;
    while (*tail) tail = &(*tail)->next;
    w->next = NULL;
    *tail = w;
}

static sub_waiter *waiter_new(cl_sub *s, int64_t n, cl_wait_fn *fn, void *ud)
{
    sub_waiter *w = sim_xcalloc(1, sizeof *w);
    w->s = s;
    w->fn = fn;
    w->ud = ud;
    w->n = n;
    return w;
}

void cl_sub_wait_n(cl_proc *p, cl_sub *s, int64_t n, int64_t timeout_us, cl_wait_fn *fn, void *ud)
{
    sim_assert(s->refs > 0 && s->p == p && s->permits >= 0); /* a held entry */
    if (s->kind == CL_SUB_LATCH && s->open) {
        post_cb(p, run_wait_cb, (void *)fn, ud, 1);
        return;
    }
    if (s->permits >= n && s->waiters == NULL) {
        s->permits -= n;
        post_cb(p, run_wait_cb, (void *)fn, ud, 1);
        return;
    }
    sub_waiter *w = waiter_new(s, n, fn, ud);
    append(&s->waiters, w);
    if (timeout_us >= 0) cl_timer_arm(p, &w->timer, timeout_us, "latch timeout", on_wait_timeout, w);
    serve(p, s);
}

void cl_sub_wait(cl_proc *p, cl_sub *s, int64_t timeout_us, cl_wait_fn *fn, void *ud)
{
    cl_sub_wait_n(p, s, 1, timeout_us, fn, ud);
}

uint64_t cl_sub_arm(cl_sub *s)
{
    sim_assert(s->kind == CL_SUB_BROADCAST && s->armed >= 0);
    s->armed++;
    return s->messages;
}

int cl_sub_disarm(cl_sub *s, uint64_t gen, int will_wait)
{
    sim_assert(s->kind == CL_SUB_BROADCAST && gen <= s->messages);
    if (gen == s->messages) {
        sim_assert(s->armed > 0);
        s->armed--;
        return 0;
    }
    if (!will_wait) cl_sub_try_take(s, 1); /* its permit: nobody takes it */
    return 1;
}

int cl_sub_try_take(cl_sub *s, int64_t n)
{
    if (s->permits < n) return 0;
    s->permits -= n;
    return 1;
}

/* Runs the oldest listener (as a posted event); 0 when there is none. */
static int run_listener(cl_proc *p, cl_sub *s)
{
    sub_waiter *w = s->listeners;
    if (w == NULL) return 0;
    s->listeners = w->next;
    cl_timer_cancel(p, &w->timer);
    post_cb(p, run_wait_cb, (void *)w->fn, w->ud, 1);
    sim_xfree(w);
    return 1;
}

/* addListener: w joins the listeners, its wait starts, and since 3.28.0
 * (RedissonLockEntry.addListener, 2b6f2fda7, issues #5761, #5762) a
 * permit already in the latch runs a listener at once. */
static void listen_now(cl_proc *p, cl_sub *s, sub_waiter *w)
{
    append(&s->listeners, w);
    if (w->timeout_us >= 0) cl_timer_arm(p, &w->timer, w->timeout_us, "listener timeout", on_wait_timeout, w);
    if ((s->policy & CL_SUB_RECHECK) && cl_sub_try_take(s, 1)) run_listener(p, s);
}

static void on_gap_end(cl_proc *p, void *arg)
{
    sub_waiter *w = arg;
    int found = unlink_waiter(&w->s->gapped, w);
    sim_assert(found && w->s->p == p);
    listen_now(p, w->s, w);
}

void cl_sub_listen(cl_proc *p, cl_sub *s, int64_t timeout_us, cl_wait_fn *fn, void *ud)
{
    sim_assert(s->refs > 0 && s->p == p);
    /* The gap applies to lock and semaphore entries; a latch's awaitAsync
     * race is its count's reply overtaken by the ZERO (cl_sub_listen_late,
     * told to the checkers where the listener is added). */
    const scn_dist *gap = &cl_world_scenario(p->cw)->listener_gap;
    int64_t gap_us = s->kind == CL_SUB_LATCH || (gap->kind == SCN_DIST_CONST && gap->a_us == 0)
                         ? 0
                         : scn_dist_draw(p->cw->ctx, gap, "listener gap");
    sub_waiter *w = waiter_new(s, 0, fn, ud);
    w->timeout_us = timeout_us;
    if (gap_us <= 0) {
        listen_now(p, s, w);
        return;
    }
    append(&s->gapped, w);
    cl_timer_arm(p, &w->timer, gap_us, "listener gap", on_gap_end, w);
}

int cl_sub_listen_late(const cl_sub *s)
{
    return s->kind == CL_SUB_LATCH && s->open && !(s->policy & CL_SUB_RECHECK);
}

static int64_t count(const sub_waiter *w)
{
    int64_t n = 0;
    for (; w; w = w->next) n++;
    return n;
}

static void trace_ran(cl_proc *p, const cl_sub *s, const char *num, int64_t ran)
{
    if (ran)
        cl_trace(p, p->name, "message %s on %s ran %lld listener(s), %lld left", num, s->channel, (long long)ran,
                 (long long)count(s->listeners));
}

/* A message runs listeners first: one, or (a latch's ZERO since 3.24.0)
 * every one; the trace says so only when there were any. */
static void run_listeners(cl_proc *p, cl_sub *s, int all, const char *num)
{
    int64_t ran = 0;
    while (run_listener(p, s)) {
        ran++;
        if (!all) break;
    }
    trace_ran(p, s, num, ran);
}

/* Up to 3.7.0 (LockPubSub, SemaphorePubSub before 8d347ad22): after the
 * message's permits, listeners run while each takes one. */
static void run_takers(cl_proc *p, cl_sub *s, const char *num)
{
    int64_t ran = 0;
    while (s->listeners && cl_sub_try_take(s, 1) && run_listener(p, s)) ran++;
    trace_ran(p, s, num, ran);
}

/* A semaphore's new count, or a latch's ZERO / NEW_COUNT. */
static void on_counter_message(cl_proc *p, cl_sub *s, const sim_reply *payload)
{
    char num[32]; /* the payload as "%.*s" would copy it */
    size_t n = payload->type == SIM_REPLY_STR && payload->str ? strnlen(payload->str, payload->len < 31 ? payload->len : 31) : 0;
    memcpy(num, n ? payload->str : "", n);
    num[n] = '\0';
    int64_t v = strtoll(num, NULL, 10);
    if (s->kind == CL_SUB_SEMAPHORE) {
        if (!(s->policy & CL_SUB_TAKERS)) run_listeners(p, s, (s->policy & CL_SUB_RUN_ALL) != 0, num);
        int64_t add = (s->policy & CL_SUB_ADDS_COUNT) ? v : v < s->refs ? v : s->refs;
        if ((s->policy & CL_SUB_ADDS_COUNT) && add > 0 && s->permits + add > JAVA_INT_MAX) {
            /* java.util.concurrent.Semaphore.release(v) throws: the latch
             * keeps what it had, and no waiter is served. */
            cl_trace(p, p->name, "message %s on %s: Error: Maximum permit count exceeded (%lld + %lld)", num,
                     s->channel, (long long)s->permits, (long long)add);
            return;
        }
        if (add > 0) s->permits += add;
        if (s->policy & CL_SUB_TAKERS) run_takers(p, s, num);
        cl_trace(p, p->name, "message %s on %s: %lld permit(s), %lld waiting", num, s->channel,
                 (long long)s->permits, (long long)count(s->waiters));
        serve(p, s);
        return;
    }
    if (v == 0) run_listeners(p, s, (s->policy & CL_SUB_RUN_ALL) != 0, num);
    s->open = v == 0;
    cl_trace(p, p->name, "message %s on %s: gate %s, %lld waiting", num, s->channel, s->open ? "opens" : "closes",
             (long long)count(s->waiters));
    while (s->open && s->waiters) {
        s->permits++;
        serve(p, s);
    }
}

static cl_sub *by_channel(cl_proc *p, int node, const sim_reply *ch)
{
    for (cl_sub *s = p->subs; s; s = s->hh.next)
        if (s->node == node && strlen(s->channel) == ch->len &&
            memcmp(s->channel, ch->str, ch->len) == 0)
            return s;
    return NULL;
}

void cl_sub_on_push(cl_proc *p, int node, const sim_reply *msg)
{
    if (msg->type != SIM_REPLY_ARRAY || msg->elements != 3 ||
        msg->element[0]->type != SIM_REPLY_STR || msg->element[1]->type != SIM_REPLY_STR)
        return;
    const sim_reply *kind = msg->element[0];
    cl_sub *s = by_channel(p, node, msg->element[1]);
    if (s == NULL) return; /* a message after we let the entry go */
    sim_assert(s->refs > 0 && s->p == p);
    if (kind->len == 9 && memcmp(kind->str, "subscribe", 9) == 0) {
        s->subscribed = 1;
        while (s->pending) {
            sub_pending *w = s->pending;
            s->pending = w->next;
            cl_timer_cancel(p, &w->timer);
            post_cb(p, run_sub_cb, (void *)w->fn, w->ud, 1);
            sim_xfree(w);
        }
    } else if (kind->len == 7 && memcmp(kind->str, "message", 7) == 0) {
        const sim_reply *payload = msg->element[2];
        if (s->kind != CL_SUB_LOCK && s->kind != CL_SUB_BROADCAST) {
            on_counter_message(p, s, payload);
            return;
        }
        int read_unlock = s->kind == CL_SUB_BROADCAST ||
                          (payload->type == SIM_REPLY_STR && payload->len == 1 && payload->str[0] == '1');
        /* LockPubSub.onMessage: "0" runs one listener, "1" every one, then
         * "0" adds one permit (one waiter may go), "1" one per waiting thread. */
        if (s->kind == CL_SUB_LOCK && !(s->policy & CL_SUB_TAKERS))
            run_listeners(p, s, read_unlock || (s->policy & CL_SUB_RUN_ALL), read_unlock ? "1" : "0");
        s->permits += read_unlock ? count(s->waiters) : 1;
        if (s->kind == CL_SUB_LOCK && (s->policy & CL_SUB_TAKERS)) run_takers(p, s, read_unlock ? "1" : "0");
        if (s->kind == CL_SUB_BROADCAST) { /* registrations completed too */
            s->permits += s->armed;
            s->armed = 0;
            s->messages++;
        }
        cl_trace(p, p->name, "message %s on %s: %lld permit(s), %lld waiting",
                 s->kind == CL_SUB_BROADCAST ? "*" : read_unlock ? "1" : "0", s->channel, (long long)s->permits,
                 (long long)count(s->waiters));
        serve(p, s);
    }
}
