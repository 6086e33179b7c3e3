/* generic.c — the client that runs a lock policy (policy.h): acquire as
 * the policy's steps say, on one master or on N independent ones with a
 * quorum and a validity check; wait by polling (fixed or doubling, with
 * the interval a distribution), on a pub/sub channel, or in a blocking
 * command (BLPOP on a signal list: its reply wakes the waiter); renew every
 * fraction of the lease while held; release; a local lock per process
 * when the policy says so. Re-entry (reentrant =): counted in the client
 * (local: Redis sees the first acquire and the last release), or in Redis
 * (redis: every acquire and release is sent, a re-entry with the hold's
 * owner value; the hold keeps its owner, depth and renewal until its last
 * release). The store observer learns each owner token as it is drawn, so
 * every generic checker judges the lock.
 *
 * An attempt sends the acquire steps to every master at once (gen_attempt,
 * attempt.c-style state below); its replies may outlive the operation
 * (a quorum decided early, a node timeout), so the attempt is reference
 * counted and forgets its operation when the operation moves on. The
 * release after a failed try (release-between) is the operation's attempt
 * too: the retry delay starts when it is answered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/policy.h"
#include "protocols/quorum.h"

#define OWNER_MAX 128

/* Per process: each (thread, lock)'s hold. */
typedef struct gen_hold {
    char owner[OWNER_MAX];  /* the owner value of the current hold ("" none) */
    int depth;              /* acquires not yet released (reentrant = local or redis; else 0 or 1) */
    int64_t token;          /* fencing token of the hold */
    int64_t lease_ms;       /* what renewals extend to */
    int64_t grant, n;       /* a semaphore's: the hold's number in its process (HOP_PERMIT), its permits */
    cl_timer renew;
} gen_hold;

/* A process's local lock of one Redis lock (local-lock = yes). */
typedef struct gen_local {
    int holder;             /* thread index, 0: free */
    struct gen_op *waiters; /* FIFO */
} gen_local;

typedef struct gen_proc {
    gen_hold *holds;        /* [thread - 1][lock] */
    gen_local local[SCN_MAX_LOCKS];
    uint64_t seq;
    int64_t grants;         /* a semaphore's holds so far */
} gen_proc;

typedef struct gen_attempt gen_attempt;

typedef struct gen_op {
    cl_op base;             /* its timer: a sleep, a node timeout, a local wait */
    char owner[OWNER_MAX];  /* the owner value of this acquire (release: of the hold) */
    int64_t wait_ms, lease_ms, start_ms, sleep_ms;
    int attempts;
    int local_waiting;
    int reentry;            /* a re-entry counted in Redis: the hold's owner value, past its local lock */
    int between;            /* its attempt is the release after a failed try (release-between) */
    int armed;              /* a broadcast wait's registration is out (cl_sub_arm) */
    int block_timed_out;    /* a blocking wait timed out: one more try, then give up */
    uint64_t arm_gen;
    gen_attempt *att;       /* the attempt in flight, or NULL */
    struct gen_op *next;    /* in the local lock's waiters */
} gen_op;

/* One attempt of a section on every master. */
struct gen_attempt {
    gen_op *op;             /* NULL once the operation moved on */
    const pol_section *sec;
    int refs;               /* requests out, plus one while the op waits on it */
    int n, pending, votes_for, votes_against;
    int64_t ttl_ms;         /* the longest TTL a holder reported (-1: none) */
    const char *error;      /* the first error (an exception, or "unexpected reply") */
    int64_t token;          /* a fencing token in the acquired reply */
    int64_t start_ms;
    pol_expand ex;
    char owner[OWNER_MAX];
};

/* One master's part of an attempt: its chain of steps. */
typedef struct gen_req {
    gen_attempt *a;
    int master, step;
} gen_req;

static const pol_policy *pol_of(const cl_proc *p)
{
    return cl_world_cfg(cl_proc_world(p));
}

static gen_proc *state(cl_proc *p)
{
    return *cl_proc_state(p);
}

static gen_hold *hold_of(cl_thread *t, int lock)
{
    return &state(cl_thread_proc(t))->holds[(cl_thread_index(t) - 1) * SCN_MAX_LOCKS + lock];
}

static const char *lock_name(const cl_proc *p, int lock)
{
    return cl_world_scenario(cl_proc_world(p))->lock_names[lock];
}

/* A semaphore's permits: its policy's ([protocol] permits is refused). */
static int64_t permits_of(const cl_world *cw)
{
    return ((const pol_policy *)cl_world_cfg(cw))->permits;
}

static void gen_proc_init(cl_proc *p)
{
    gen_proc *g = sim_xcalloc(1, sizeof *g);
    g->holds = sim_xcalloc((size_t)cl_proc_threads(p) * SCN_MAX_LOCKS, sizeof *g->holds);
    *cl_proc_state(p) = g;
}

static void gen_proc_free(cl_proc *p)
{
    gen_proc *g = state(p);
    for (int i = 0; i < cl_proc_threads(p) * SCN_MAX_LOCKS; i++) cl_timer_cancel(p, &g->holds[i].renew);
    sim_xfree(g->holds);
    sim_xfree(g);
    *cl_proc_state(p) = NULL;
}

/* The values the templates of op's lock expand to. */
static void expansion(cl_thread *t, int lock, int64_t lease_ms, int64_t wait_ms, const char *owner, pol_expand *ex)
{
    cl_proc *p = cl_thread_proc(t);
    memset(ex, 0, sizeof *ex);
    ex->pol = pol_of(p);
    ex->lock = lock_name(p, lock);
    ex->owner = owner;
    ex->lease_ms = lease_ms;
    ex->wait_ms = wait_ms < 0 ? 0 : wait_ms;
    ex->now_ms = cl_now_ms(p);
    ex->thread = cl_thread_index(t);
    ex->client = cl_proc_client(p);
    ex->uuid = cl_proc_id(p);
    ex->seq = state(p)->seq;
    ex->permits = permits_of(cl_proc_world(p));
    ex->n = cl_thread_permits(t) > 0 ? cl_thread_permits(t) : 1;
    ex->p = p;
}

/* ---------------------------------------------------------------- steps */

static void req_send(gen_req *q, cl_proc *p);

static void attempt_unref(cl_proc *p, gen_attempt *a)
{
    if (--a->refs == 0) cl_free(p, a);
}

static void decide(cl_proc *p, gen_attempt *a);

/* One master's chain ended with outcome o. */
static void req_done(cl_proc *p, gen_req *q, pol_outcome o, const sim_reply *r, cl_err err)
{
    gen_attempt *a = q->a;
    a->pending--;
    if (o == POL_ACQUIRED || o == POL_RENEWED || o == POL_RELEASED) {
        a->votes_for++;
        if (o == POL_ACQUIRED && r && r->type == SIM_REPLY_INT) a->token = r->integer;
    } else {
        a->votes_against++;
        if (o == POL_TTL && r && r->type == SIM_REPLY_INT && r->integer > a->ttl_ms) a->ttl_ms = r->integer;
        if (o == POL_NOT_OWNER && a->error == NULL) a->error = "not-owner";
        if (o == POL_ERROR && a->error == NULL)
            a->error = cl_err_exception(err) ? cl_err_exception(err) : r && r->type == SIM_REPLY_ERR ? "error reply"
                                                                                                  : "unexpected reply";
        if (o == POL_ERROR && r) { /* what the reply was, for the trace */
            char text[200];
            sim_reply_format(r, text, sizeof text);
            cl_trace(p, cl_proc_name(p), "%s on master %d: %s %s", a->sec == &pol_of(p)->acquire ? "acquire" : "step",
                     q->master, r->type == SIM_REPLY_ERR ? "error reply" : "unexpected reply", text);
        }
    }
    cl_free(p, q);
    if (a->op) decide(p, a);
    attempt_unref(p, a);
}

/* owner = reply / reply:N: the hold's owner value is what the step
 * answered (the token a BLPOP popped), told to the store observer. */
static void take_owner(cl_proc *p, gen_attempt *a, const pol_step *st, const sim_reply *r)
{
    const sim_reply *v = r;
    if (st->owner_from > 0) v = r->type == SIM_REPLY_ARRAY && (size_t)st->owner_from <= r->elements ? r->element[st->owner_from - 1] : NULL;
    if (v == NULL || (v->type != SIM_REPLY_STR && v->type != SIM_REPLY_STATUS)) return;
    snprintf(a->owner, sizeof a->owner, "%.*s", (int)(v->len < OWNER_MAX - 1 ? v->len : OWNER_MAX - 1), v->str);
    if (a->op == NULL) return;
    snprintf(a->op->owner, sizeof a->op->owner, "%s", a->owner);
    cl_owner_register(a->op->base.t, a->owner);
    (void)p;
}

static void on_step_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    gen_req *q = ud;
    gen_attempt *a = q->a;
    const pol_step *st = &a->sec->step[q->step];
    pol_outcome o = err == CL_OK || err == CL_ERR_REPLY ? pol_match(st, r, &a->ex) : POL_ERROR;
    if (st->owner_from && (o == POL_NEXT || o == POL_ACQUIRED)) take_owner(p, a, st, r);
    if (o == POL_NEXT) { /* the parser allows no "next" after the last step */
        q->step++;
        req_send(q, p);
        return;
    }
    req_done(p, q, o, r, err);
}

static void req_send(gen_req *q, cl_proc *p)
{
    gen_attempt *a = q->a;
    const pol_step *st = &a->sec->step[q->step];
    char bufs[POL_MAX_WORDS][256];
    const char *words[POL_MAX_WORDS];
    a->ex.now_ms = cl_now_ms(p);
    for (int i = 0; i < st->nwords; i++) {
        pol_expand_into(&a->ex, st->words[i], bufs[i], sizeof bufs[i]);
        words[i] = bufs[i];
    }
    int flags = (a->sec->resend ? CL_RESEND : CL_NORESEND) | (pol_of(p)->unsent_fail ? CL_FAILFAST : 0);
    uint64_t tag = a->op ? cl_thread_op(a->op->base.t) : 0;
    if (st->script)
        cl_eval(p, q->master, st->script, st->nkeys, words, st->nwords - st->nkeys, words + st->nkeys, flags, tag,
                on_step_reply, q);
    else
        cl_command(p, q->master, st->nwords, words, flags, tag, on_step_reply, q);
}

/* Starts section sec on every master for op (op NULL: fire and forget,
 * e.g. a release after a failed quorum). ex is copied. */
static gen_attempt *attempt_start(cl_proc *p, gen_op *op, const pol_section *sec, const pol_expand *ex)
{
    const pol_policy *pol = pol_of(p);
    gen_attempt *a = cl_alloc(p, sizeof *a);
    a->op = op;
    a->sec = sec;
    a->n = a->pending = pol->masters;
    a->refs = pol->masters + (op != NULL);
    a->ttl_ms = -1;
    a->start_ms = cl_now_ms(p);
    a->ex = *ex;
    snprintf(a->owner, sizeof a->owner, "%s", ex->owner ? ex->owner : "");
    a->ex.owner = a->owner;
    if (op) op->att = a;
    for (int m = 0; m < pol->masters; m++) {
        gen_req *q = cl_alloc(p, sizeof *q);
        q->a = a;
        q->master = m;
        req_send(q, p);
    }
    return a;
}

/* The operation stops listening to its attempt. */
static void attempt_detach(cl_proc *p, gen_op *op)
{
    gen_attempt *a = op->att;
    if (a == NULL) return;
    op->att = NULL;
    a->op = NULL;
    attempt_unref(p, a);
}

/* ------------------------------------------------------------- acquire */

static void try_acquire(gen_op *op);
static void on_acquire_decided(cl_proc *p, gen_op *op, gen_attempt *a);
static void on_release_decided(cl_proc *p, gen_op *op, gen_attempt *a);
static void on_between_released(cl_proc *p, gen_op *op);

static int quorum(const pol_policy *pol)
{
    if (pol->quorum_all) return pol->masters;
    return pol->quorum > 0 ? pol->quorum : pol->masters / 2 + 1;
}

/* Enough votes in for the operation to go on? */
static void decide(cl_proc *p, gen_attempt *a)
{
    const pol_policy *pol = pol_of(p);
    int q = quorum(pol);
    int early = pol->resolve_early && (a->votes_for >= q || a->votes_against > a->n - q);
    if (a->pending > 0 && !early) return;
    gen_op *op = a->op;
    if (a->sec == &pol->acquire) on_acquire_decided(p, op, a);
    else if (op->between) on_between_released(p, op);
    else on_release_decided(p, op, a);
}

static void on_node_timeout(cl_proc *p, void *arg)
{
    gen_op *op = arg;
    gen_attempt *a = op->att;
    a->votes_against += a->pending; /* late replies do not count */
    a->pending = 0;
    if (a->error == NULL) a->error = "node timeout";
    decide(p, a);
}

/* node-timeout is a share of the lease: redsync v4's try waits
 * expiry * timeoutFactor (go-redsync/redsync v4 mutex.go, lockContext:
 * context.WithTimeout around actOnPoolsAsync), its release as well. */
static void arm_node_timeout(cl_proc *p, gen_op *op)
{
    const pol_policy *pol = pol_of(p);
    if (pol->node_timeout_ppm > 0 && op->att && op->att->pending > 0)
        cl_timer_arm(p, &op->base.timer, SIM_MS(op->lease_ms) * pol->node_timeout_ppm / 1000000, "node timeout",
                     on_node_timeout, op);
}

static int64_t elapsed_ms(const gen_op *op)
{
    return cl_now_ms(cl_thread_proc(op->base.t)) - op->start_ms;
}

static void acquire_start_attempt(gen_op *op)
{
    cl_proc *p = cl_thread_proc(op->base.t);
    const pol_policy *pol = pol_of(p);
    pol_expand ex;
    expansion(op->base.t, op->base.lock, op->lease_ms, op->wait_ms, op->owner, &ex);
    /* a blocking command in the acquire (a token's BLPOP) blocks for what
     * is left of the wait: 0, for ever, without one; 1 ms for a zero wait */
    ex.block_ms = op->wait_ms < 0 ? 0 : op->wait_ms - elapsed_ms(op) > 1 ? op->wait_ms - elapsed_ms(op) : 1;
    op->attempts++;
    attempt_start(p, op, &pol->acquire, &ex);
    arm_node_timeout(p, op);
}

/* The lock is ours: renewal, fencing token, the end of the acquire. */
static void on_renew_tick(cl_proc *p, void *arg);

static int64_t renew_period_us(const pol_policy *pol, int64_t lease_ms)
{
    return pol->renew_every_us > 0 ? pol->renew_every_us : SIM_MS(lease_ms) * pol->renew_num / pol->renew_den;
}

static void arm_renew(cl_thread *t, int lock)
{
    cl_proc *p = cl_thread_proc(t);
    const pol_policy *pol = pol_of(p);
    gen_hold *h = hold_of(t, lock);
    if (pol->renew.nsteps == 0) return;
    intptr_t key = (intptr_t)((cl_thread_index(t) - 1) * SCN_MAX_LOCKS + lock);
    cl_timer_arm(p, &h->renew, renew_period_us(pol, h->lease_ms), "renew", on_renew_tick, (void *)key);
}

/* A semaphore's hold: its number and lease told to the leases checker
 * (HOP_PERMIT, the lease counted from now; again at each renewal). */
static void permit_told(cl_proc *p, cl_thread *t, int lock, const gen_hold *h)
{
    if (pol_of(p)->permits > 0 && !pol_of(p)->no_lease)
        cl_hist(p, t, HIST_INFO, HOP_PERMIT, lock, SIM_MS(h->lease_ms), h->grant, NULL);
}

static void acquired(gen_op *op, int64_t token)
{
    gen_hold *h = hold_of(op->base.t, op->base.lock);
    if (op->reentry) { /* one level more of the hold, whose renewal goes on */
        sim_assert(h->depth > 0 && strcmp(h->owner, op->owner) == 0);
        h->depth++;
        h->token = token;
        h->lease_ms = op->lease_ms; /* the acquire set the key's expiry to its lease */
        cl_op_end(op, 1, 0, NULL);
        return;
    }
    snprintf(h->owner, sizeof h->owner, "%s", op->owner);
    h->depth = 1;
    h->token = token;
    h->lease_ms = op->lease_ms;
    cl_proc *p = cl_thread_proc(op->base.t);
    h->grant = ++state(p)->grants;
    h->n = cl_thread_permits(op->base.t) > 0 ? cl_thread_permits(op->base.t) : 1;
    permit_told(p, op->base.t, op->base.lock, h);
    arm_renew(op->base.t, op->base.lock);
    cl_op_end(op, 1, 0, NULL);
}

static void local_release(cl_thread *t, int lock);

/* The acquire ends without the lock (a re-entry: its hold goes on, and
 * with it the local lock). */
static void not_acquired(gen_op *op, const char *err)
{
    cl_thread *t = op->base.t;
    int lock = op->base.lock, reentry = op->reentry;
    cl_op_end(op, 0, 0, err);
    if (!reentry) local_release(t, lock);
}

static void on_sleep_done(cl_proc *p, void *arg)
{
    (void)p;
    try_acquire(arg);
}

/* Held by another: wait as the policy says, then try again (or give up). */
static void wait_and_retry(cl_proc *p, gen_op *op, int64_t ttl_ms)
{
    const pol_policy *pol = pol_of(p);
    if (pol->wait == POL_WAIT_NONE || op->wait_ms == 0) {
        not_acquired(op, NULL);
        return;
    }
    int64_t sleep_us = scn_dist_draw(cl_world_ctx(cl_proc_world(p)), &pol->interval, "poll");
    if (pol->backoff_double) {
        if (op->sleep_ms > 0) sleep_us = SIM_MS(op->sleep_ms) * 2;
        if (pol->backoff_max_us > 0 && sleep_us > pol->backoff_max_us) sleep_us = pol->backoff_max_us;
        op->sleep_ms = sleep_us / 1000;
    }
    (void)ttl_ms; /* polling does not wait on the holder's TTL */
    if (op->wait_ms > 0) {
        int64_t left_ms = op->wait_ms - elapsed_ms(op);
        if (left_ms <= 0 || (pol->no_sleep_past && sleep_us > SIM_MS(left_ms))) {
            not_acquired(op, NULL);
            return;
        }
    }
    cl_timer_arm(p, &op->base.timer, sleep_us, "poll", on_sleep_done, op);
}

/* The attempt after a subscription or a wake-up double-checks the lock:
 * with a broadcast message (Spring's RedisPubSubLock.subscribeLock), the
 * waiter registers first, so a message that comes before the answer
 * wakes its next wait ("//DCL": subscribeLock, then obtainLock). */
static void recheck(cl_proc *p, gen_op *op)
{
    if (pol_of(p)->message_all && op->base.sub && !op->armed) {
        op->arm_gen = cl_sub_arm(op->base.sub);
        op->armed = 1;
    }
    try_acquire(op);
}

static void on_subscribed(cl_proc *p, void *ud, int ok)
{
    (void)ok; /* subscribed or not, the next attempt goes; waits are timed */
    recheck(p, ud);
}

static void on_message(cl_proc *p, void *ud, int got)
{
    (void)got;
    recheck(p, ud);
}

/* Pub/sub: subscribes before the first wait, then waits for a message or
 * the timeout, whichever comes first. */
static void pubsub_wait(cl_proc *p, gen_op *op, int64_t ttl_ms)
{
    const pol_policy *pol = pol_of(p);
    if (op->base.sub == NULL) {
        char channel[256], entry[320];
        pol_expand ex;
        expansion(op->base.t, op->base.lock, op->lease_ms, op->wait_ms, NULL, &ex);
        pol_expand_into(&ex, pol->channel, channel, sizeof channel);
        snprintf(entry, sizeof entry, "%s:%s", cl_proc_id(p), channel);
        op->base.sub = cl_sub_acquire(p, 0, entry, channel, SIM_SEC(7), on_subscribed, op);
        if (pol->message_all) cl_sub_kind(op->base.sub, CL_SUB_BROADCAST);
        return;
    }
    int64_t wait_us = ttl_ms >= 0 ? SIM_MS(ttl_ms) : op->lease_ms > 0 ? SIM_MS(op->lease_ms) : SIM_SEC(30);
    if (op->wait_ms >= 0) {
        int64_t left_ms = op->wait_ms - elapsed_ms(op);
        if (left_ms <= 0) {
            not_acquired(op, NULL);
            return;
        }
        if (wait_us > SIM_MS(left_ms)) wait_us = SIM_MS(left_ms);
    }
    cl_sub_wait(p, op->base.sub, wait_us, on_message, op);
}

/* The blocking wait's time for op, in ms (0: for ever), as [wait] block says. */
static int64_t block_ms(const pol_policy *pol, const gen_op *op)
{
    switch (pol->block_time) {
    case POL_BLOCK_REMAINING: return op->wait_ms < 0 ? 0 : op->wait_ms - elapsed_ms(op);
    case POL_BLOCK_WAIT: return op->wait_ms < 0 ? 0 : op->wait_ms;
    case POL_BLOCK_LEASE: return op->lease_ms;
    case POL_BLOCK_WAIT_OR_LEASE: return op->wait_ms > 0 ? op->wait_ms : op->lease_ms > 0 ? op->lease_ms : 0;
    case POL_BLOCK_FIXED: return pol->block_us / 1000;
    }
    return 0;
}

static void on_block_reply(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    gen_op *op = ud;
    const pol_policy *pol = pol_of(p);
    if (err == CL_OK || err == CL_ERR_REPLY) {
        const pol_step *st = &pol->block.step[0];
        pol_expand ex = {.pol = pol, .lock = lock_name(p, op->base.lock), .owner = op->owner, .p = p};
        pol_outcome o = st->npat ? pol_match(st, r, &ex) : r->type == SIM_REPLY_ERR ? POL_ERROR
                                                            : r->type == SIM_REPLY_NIL || r->type == SIM_REPLY_NILARRAY
                                                                ? POL_TIMED_OUT
                                                                : POL_WOKEN;
        if (o == POL_ERROR) {
            not_acquired(op, r->type == SIM_REPLY_ERR ? "error reply" : "unexpected reply");
            return;
        }
        /* a timed-out wait of an acquire that has a deadline: its last try */
        if (o == POL_TIMED_OUT && op->wait_ms > 0) op->block_timed_out = 1;
    }
    try_acquire(op); /* woken, timed out, or the command failed: try again */
}

/* Blocking: the [wait] command (BLPOP on a signal list...) with its time
 * as {block_s} / {block_ms}, after which the acquire is tried again. */
static void block_wait(cl_proc *p, gen_op *op)
{
    const pol_policy *pol = pol_of(p);
    int64_t ms = block_ms(pol, op);
    if (op->block_timed_out || (pol->block_time == POL_BLOCK_REMAINING && op->wait_ms >= 0 && ms <= 0)) {
        not_acquired(op, NULL);
        return;
    }
    pol_expand ex;
    expansion(op->base.t, op->base.lock, op->lease_ms, op->wait_ms, op->owner, &ex);
    ex.block_ms = ms;
    const pol_step *st = &pol->block.step[0];
    char bufs[POL_MAX_WORDS][256];
    const char *words[POL_MAX_WORDS];
    for (int i = 0; i < st->nwords; i++) {
        pol_expand_into(&ex, st->words[i], bufs[i], sizeof bufs[i]);
        words[i] = bufs[i];
    }
    int flags = (pol->acquire.resend ? CL_RESEND : CL_NORESEND) | (pol->unsent_fail ? CL_FAILFAST : 0);
    cl_command(p, 0, st->nwords, words, flags, cl_thread_op(op->base.t), on_block_reply, op);
}

static void arm_retry(cl_proc *p, gen_op *op)
{
    int64_t delay = scn_dist_draw(cl_world_ctx(cl_proc_world(p)), &pol_of(p)->retry_delay, "retry delay");
    cl_timer_arm(p, &op->base.timer, delay, "retry", on_sleep_done, op);
}

/* Multi-master: the quorum or validity failed; release what may have
 * been taken, then try again after the retry delay (or give up).
 *
 * release-between: the release is part of the try, and the retry delay
 * starts once every master answered it (or the node timeout passed).
 * go-redsync/redsync v4 mutex.go lockContext runs the release through
 * actOnPoolsAsync, which waits for every pool's goroutine, before the
 * next iteration arms its delay timer; the redigo adapter's Eval
 * (redis/redigo/redigo.go) sends EVALSHA and, on NOSCRIPT, EVAL within
 * that goroutine. The next try reuses the value (drawn once per
 * lockContext), so a release still on the wire would delete it. The
 * release after the last try is still not waited for: no try reuses its
 * value (go-redsync returns ErrFailed after it; only the call's end
 * differs). */
static void quorum_failed(cl_proc *p, gen_op *op, const char *err)
{
    const pol_policy *pol = pol_of(p);
    int more = (pol->retries < 0 || op->attempts <= pol->retries) &&
               (op->wait_ms < 0 || elapsed_ms(op) < op->wait_ms);
    pol_expand ex;
    expansion(op->base.t, op->base.lock, op->lease_ms, op->wait_ms, op->owner, &ex);
    if (more && pol->release_between) {
        sim_assert(op->att == NULL && !op->between);
        op->between = 1;
        attempt_start(p, op, &pol->release, &ex);
        arm_node_timeout(p, op);
        return;
    }
    if (pol->release_between || (!more && pol->release_on_failure)) attempt_start(p, NULL, &pol->release, &ex);
    if (!more) {
        not_acquired(op, err);
        return;
    }
    arm_retry(p, op);
}

/* The release between tries is answered (or timed out): the delay. */
static void on_between_released(cl_proc *p, gen_op *op)
{
    sim_assert(op->between);
    cl_timer_cancel(p, &op->base.timer);
    attempt_detach(p, op);
    op->between = 0;
    arm_retry(p, op);
}

static void on_acquire_decided(cl_proc *p, gen_op *op, gen_attempt *a)
{
    const pol_policy *pol = pol_of(p);
    int64_t ttl = a->ttl_ms, token = a->token;
    const char *error = a->error;
    int for_ = a->votes_for, q = quorum(pol);
    int64_t elapsed = cl_now_ms(p) - a->start_ms;
    cl_timer_cancel(p, &op->base.timer);
    attempt_detach(p, op);
    if (pol->masters == 1) {
        if (op->armed) {
            int waits = for_ != 1 && !(error && strcmp(error, "not-owner") != 0) && pol->wait == POL_WAIT_PUBSUB &&
                        op->wait_ms != 0;
            op->armed = 0;
            cl_sub_disarm(op->base.sub, op->arm_gen, waits);
        }
        if (for_ == 1) acquired(op, token);
        else if (error && strcmp(error, "not-owner") != 0) not_acquired(op, error);
        else if (pol->wait == POL_WAIT_PUBSUB && op->wait_ms != 0) pubsub_wait(p, op, ttl);
        else if (pol->wait == POL_WAIT_BLOCK && op->wait_ms != 0) block_wait(p, op);
        else wait_and_retry(p, op, ttl);
        return;
    }
    int64_t drift_ms = op->lease_ms * pol->drift_ppm / 1000000 + pol->drift_us / 1000;
    int valid = !pol->validity || op->lease_ms - elapsed - drift_ms > 0;
    if (for_ >= q && valid) {
        acquired(op, token);
        return;
    }
    quorum_failed(p, op, NULL);
}

static void try_acquire(gen_op *op)
{
    acquire_start_attempt(op);
}

/* -------------------------------------------------------- the local lock */

static void local_grant(cl_proc *p, gen_op *op);

static void on_local_timeout(cl_proc *p, void *arg)
{
    gen_op *op = arg;
    gen_local *l = &state(p)->local[op->base.lock];
    for (gen_op **pp = &l->waiters; *pp; pp = &(*pp)->next)
        if (*pp == op) {
            *pp = op->next;
            break;
        }
    op->local_waiting = 0;
    cl_op_end(op, 0, 0, NULL);
}

/* The thread holding lock's local lock lets it go: the next waiter gets
 * it (its Redis wait starts afresh, as tryLock's does after the local
 * lock). */
static void local_release(cl_thread *t, int lock)
{
    cl_proc *p = cl_thread_proc(t);
    if (!pol_of(p)->local_lock) return;
    gen_local *l = &state(p)->local[lock];
    if (l->holder != cl_thread_index(t)) return;
    l->holder = 0;
    gen_op *next = l->waiters;
    if (next == NULL) return;
    l->waiters = next->next;
    next->local_waiting = 0;
    cl_timer_cancel(p, &next->base.timer);
    local_grant(p, next);
}

static void local_grant(cl_proc *p, gen_op *op)
{
    gen_local *l = &state(p)->local[op->base.lock];
    l->holder = cl_thread_index(op->base.t);
    op->start_ms = cl_now_ms(p);
    cl_owner_register(op->base.t, op->owner);
    try_acquire(op);
}

/* --------------------------------------------------------------- entry */

static void gen_acquire(cl_thread *t, int lock, int64_t wait_us, int64_t lease_us, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    const pol_policy *pol = pol_of(p);
    gen_hold *h = hold_of(t, lock);
    if (pol->reentrant == CL_REENTRY_LOCAL && h->depth > 0) {
        h->depth++; /* re-entry: the client counts it, Redis sees nothing */
        done(t, 1, 0, NULL);
        return;
    }
    gen_op *op = cl_op_new(t, sizeof *op, lock, done);
    op->wait_ms = cl_wait_ms(wait_us);
    op->lease_ms = pol->no_lease ? 0 : lease_us == SCN_LEASE_WATCHDOG || lease_us <= 0 ? pol->lease_us / 1000 : lease_us / 1000;
    op->start_ms = cl_now_ms(p);
    if (pol->reentrant == CL_REENTRY_REDIS && h->depth > 0) {
        /* re-entry: Redis counts it, under the hold's owner value; this
         * thread holds the local lock already */
        sim_assert(h->owner[0] != '\0');
        state(p)->seq++;
        op->reentry = 1;
        snprintf(op->owner, sizeof op->owner, "%s", h->owner);
        try_acquire(op);
        return;
    }
    /* The owner value of this acquire, drawn once and told to the observer
     * by the thread that sends it: with a local lock, once that thread
     * has it (an owner per process, as Spring's, names whichever of its
     * threads is acquiring, never one still waiting for the local lock). */
    state(p)->seq++;
    pol_expand ex;
    expansion(t, lock, op->lease_ms, op->wait_ms, NULL, &ex);
    pol_expand_into(&ex, pol->owner, op->owner, sizeof op->owner);
    if (pol->local_lock) {
        gen_local *l = &state(p)->local[lock];
        if (l->holder != 0) {
            op->local_waiting = 1;
            gen_op **tail = &l->waiters;
            while (*tail) tail = &(*tail)->next;
            *tail = op;
            if (op->wait_ms >= 0)
                cl_timer_arm(p, &op->base.timer, SIM_MS(op->wait_ms), "local wait", on_local_timeout, op);
            return;
        }
        l->holder = cl_thread_index(t);
    }
    cl_owner_register(t, op->owner);
    try_acquire(op);
}

/* ------------------------------------------------------------- release */

/* The hold is over: no owner value, no depth, no renewal. */
static void hold_end(cl_proc *p, gen_hold *h)
{
    h->owner[0] = '\0';
    h->depth = 0;
    cl_timer_cancel(p, &h->renew);
}

/* A release ended. Counted in Redis, it took one level off the hold
 * (whatever its outcome: the caller has left that level), and the hold
 * goes on while levels are left, unless Redis says it is not ours; else
 * the hold is over. */
static void on_release_decided(cl_proc *p, gen_op *op, gen_attempt *a)
{
    const pol_policy *pol = pol_of(p);
    int ok = a->votes_for >= quorum(pol);
    const char *error = a->error;
    attempt_detach(p, op);
    cl_thread *t = op->base.t;
    int lock = op->base.lock;
    gen_hold *h = hold_of(t, lock);
    if (pol->reentrant == CL_REENTRY_REDIS && h->depth > 0) h->depth--;
    int not_owner = !ok && error && !strcmp(error, "not-owner");
    /* a semaphore's release answered: released, or not (any more) ours */
    if (pol->permits > 0 && (ok || not_owner)) cl_hist(p, t, HIST_INFO, HOP_PERMIT_END, lock, ok, h->grant, NULL);
    if (pol->reentrant != CL_REENTRY_REDIS || h->depth == 0 || not_owner) hold_end(p, h);
    int ended = h->depth == 0;
    if (ok) {
        cl_op_end(op, 1, 0, NULL);
    } else if (error && !strcmp(error, "not-owner")) {
        cl_op_end(op, 0, 0, "not the owner any more (the lock expired or was taken)");
    } else {
        cl_op_end(op, 0, 0, error ? error : "not released on a quorum");
    }
    if (ended) local_release(t, lock);
}

static void gen_release(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    const pol_policy *pol = pol_of(p);
    gen_hold *h = hold_of(t, lock);
    if (pol->reentrant == CL_REENTRY_LOCAL && h->depth > 1) {
        h->depth--;
        done(t, 1, 0, NULL);
        return;
    }
    /* The last release (counted in Redis: a level stays) ends the renewal
     * as it goes, so that none runs past the DEL. */
    if (pol->reentrant != CL_REENTRY_REDIS) h->depth = 0;
    if (h->depth <= 1) cl_timer_cancel(p, &h->renew);
    gen_op *op = cl_op_new(t, sizeof *op, lock, done);
    snprintf(op->owner, sizeof op->owner, "%s", h->owner);
    pol_expand ex;
    expansion(t, lock, h->lease_ms, -1, op->owner, &ex);
    attempt_start(p, op, &pol->release, &ex);
}

/* -------------------------------------------------------------- renewal */

static void on_renew_done(cl_proc *p, void *ud, const sim_reply *r, cl_err err);

typedef struct renew_ctx {
    int thread, lock, pending, renewed, failed; /* failed: replies matching [renew] failed */
    int errors;                                 /* error replies, timeouts, lost connections */
} renew_ctx;

static void on_renew_tick(cl_proc *p, void *arg)
{
    const pol_policy *pol = pol_of(p);
    intptr_t key = (intptr_t)arg;
    int thread = (int)(key / SCN_MAX_LOCKS), lock = (int)(key % SCN_MAX_LOCKS);
    gen_hold *h = &state(p)->holds[key];
    (void)thread;
    renew_ctx *c = cl_alloc(p, sizeof *c);
    c->thread = thread + 1;
    c->lock = lock;
    c->pending = pol->masters;
    /* Renewal runs the [renew] steps, single-step per master. */
    for (int m = 0; m < pol->masters; m++) {
        pol_expand ex;
        memset(&ex, 0, sizeof ex);
        ex.pol = pol;
        ex.lock = lock_name(p, lock);
        ex.owner = h->owner;
        ex.lease_ms = h->lease_ms;
        ex.now_ms = cl_now_ms(p);
        ex.thread = c->thread;
        ex.client = cl_proc_client(p);
        ex.uuid = cl_proc_id(p);
        ex.permits = permits_of(cl_proc_world(p));
        ex.n = h->n;
        ex.p = p;
        const pol_step *st = &pol->renew.step[0];
        char bufs[POL_MAX_WORDS][256];
        const char *words[POL_MAX_WORDS];
        for (int i = 0; i < st->nwords; i++) {
            pol_expand_into(&ex, st->words[i], bufs[i], sizeof bufs[i]);
            words[i] = bufs[i];
        }
        int flags = (pol->renew.resend ? CL_RESEND : CL_NORESEND) | (pol->unsent_fail ? CL_FAILFAST : 0);
        if (st->script)
            cl_eval(p, m, st->script, st->nkeys, words, st->nwords - st->nkeys, words + st->nkeys, flags, 0,
                    on_renew_done, c);
        else
            cl_command(p, m, st->nwords, words, flags, 0, on_renew_done, c);
    }
}

static void on_renew_done(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    renew_ctx *c = ud;
    const pol_policy *pol = pol_of(p);
    gen_hold *h = &state(p)->holds[(c->thread - 1) * SCN_MAX_LOCKS + c->lock];
    pol_expand ex = {.pol = pol, .lock = lock_name(p, c->lock), .owner = h->owner, .p = p};
    pol_outcome o = err == CL_OK || err == CL_ERR_REPLY ? pol_match(&pol->renew.step[0], r, &ex) : POL_ERROR;
    if (o == POL_RENEWED) c->renewed++;
    else if (o == POL_FAILED) c->failed++;
    else c->errors++;
    if (--c->pending > 0) return;
    int ok = c->renewed >= quorum(pol);
    /* Only replies the policy declares failed (the lock is no longer ours)
     * settle a renewal's failure; an error or a timeout leaves it unknown
     * (the script may have run), and the renewer tries again at its next
     * period, as long as a quorum is still possible. */
    int lost = pol->masters - c->failed < quorum(pol);
    int errored = c->errors > 0 && pol->renew_error_stop;
    int thread = c->thread, lock = c->lock;
    cl_free(p, c);
    if (h->owner[0] == '\0') return; /* released meanwhile */
    if (!ok) {
        int stop = (lost && !pol->renew_retry) || errored;
        cl_trace(p, cl_proc_name(p), "renewal of %s failed%s", lock_name(p, lock),
                 errored ? ": an error, renewal stops"
                 : stop  ? ": renewal stops"
                 : lost  ? ": trying again"
                         : ": outcome unknown, trying again");
        if (stop) return;
    }
    if (ok) permit_told(p, NULL, lock, h);
    intptr_t key = (intptr_t)((thread - 1) * SCN_MAX_LOCKS + lock);
    cl_timer_arm(p, &h->renew, renew_period_us(pol, h->lease_ms), "renew", on_renew_tick, (void *)key);
}

/* -------------------------------------------------------- force, query */

static void on_simple(cl_proc *p, void *ud, const sim_reply *r, cl_err err)
{
    (void)p;
    if (err != CL_OK && err != CL_ERR_REPLY) {
        cl_op_end(ud, 0, 0, cl_err_exception(err));
        return;
    }
    int64_t v = r->type == SIM_REPLY_INT ? r->integer : 0;
    cl_op_end(ud, r->type != SIM_REPLY_ERR, v, r->type == SIM_REPLY_ERR ? "error reply" : NULL);
}

/* forceUnlock: the [force] steps on every master, or DEL of the key. */
static void gen_force_unlock(cl_thread *t, int lock, cl_done_fn *done)
{
    cl_proc *p = cl_thread_proc(t);
    const pol_policy *pol = pol_of(p);
    gen_hold *h = hold_of(t, lock);
    cl_timer_cancel(p, &h->renew);
    gen_op *op = cl_op_new(t, sizeof *op, lock, done);
    pol_expand ex;
    expansion(t, lock, h->lease_ms, -1, h->owner, &ex);
    h->depth = 0;
    if (pol->force.nsteps) {
        attempt_start(p, op, &pol->force, &ex);
        h->owner[0] = '\0';
        return;
    }
    char key[256];
    pol_expand_into(&ex, pol->key, key, sizeof key);
    const char *argv[] = {"DEL", key};
    h->owner[0] = '\0';
    cl_command(p, 0, 2, argv, CL_RESEND, cl_thread_op(t), on_simple, op);
}

/* Every query is EXISTS of the key on the first master. */
static void gen_query(cl_thread *t, int lock, scn_op what, cl_done_fn *done)
{
    (void)what;
    cl_proc *p = cl_thread_proc(t);
    gen_op *op = cl_op_new(t, sizeof *op, lock, done);
    pol_expand ex;
    expansion(t, lock, 0, -1, NULL, &ex);
    char key[256];
    pol_expand_into(&ex, pol_of(p)->key, key, sizeof key);
    const char *argv[] = {"EXISTS", key};
    cl_command(p, 0, 2, argv, CL_RESEND, cl_thread_op(t), on_simple, op);
}

static int64_t gen_token(cl_thread *t, int lock)
{
    return hold_of(t, lock)->token;
}

/* ------------------------------------------------------------- observer */

static int first_field(void *ud, const char *f, size_t flen, const char *v, size_t vlen)
{
    hist_store *out = ud;
    snprintf(out->owner, sizeof out->owner, "%.*s", (int)(flen < 63 ? flen : 63), f);
    char num[32];
    snprintf(num, sizeof num, "%.*s", (int)(vlen < 31 ? vlen : 31), v);
    out->count = strtoll(num, NULL, 10);
    return 0;
}

/* A semaphore's key: the permits held are its members (zset, set, list,
 * hash) or its integer (counter), the rest available; with members = free
 * the reverse (a list of free tokens). A missing key holds none. */
static void observe_semaphore(cl_world *cw, int group, int lock, hist_store *out)
{
    const pol_policy *pol = cl_world_cfg(cw);
    world_peek_result pk;
    int64_t held = 0;
    int64_t permits = permits_of(cw);
    if (cl_store_peek(cw, group, lock, out, &pk)) {
        if (pol->observe == POL_OBS_COUNTER && pk.type == WORLD_TYPE_STRING) {
            char num[32];
            snprintf(num, sizeof num, "%.*s", (int)(pk.len < 31 ? pk.len : 31), pk.str);
            held = strtoll(num, NULL, 10);
        } else if ((pol->observe == POL_OBS_ZSET && pk.type == WORLD_TYPE_ZSET) ||
                   (pol->observe == POL_OBS_LIST && pk.type == WORLD_TYPE_LIST) ||
                   (pol->observe == POL_OBS_SET && pk.type == WORLD_TYPE_SET) ||
                   (pol->observe == POL_OBS_HASH && pk.type == WORLD_TYPE_HASH)) {
            held = (int64_t)pk.count;
        }
    }
    if (pol->observe_free) held = permits - held; /* the key holds the free permits (a list of tokens) */
    out->held = 1; /* the semaphore exists whether its key does or not */
    out->counter = 1;
    out->acquired = held < 0 ? 0 : held;
    out->count = permits - out->acquired > 0 ? permits - out->acquired : 0;
}

/* The key on one group: held, owner, count, expiry. */
static void observe_group(cl_world *cw, int group, int lock, hist_store *out)
{
    world_peek_result pk;
    if (((const pol_policy *)cl_world_cfg(cw))->permits > 0) {
        observe_semaphore(cw, group, lock, out);
        return;
    }
    if (!cl_store_peek(cw, group, lock, out, &pk)) return;
    out->count = 1;
    if (pk.type == WORLD_TYPE_HASH) cl_store_peek_hash(cw, group, lock, first_field, out);
    else if (pk.type == WORLD_TYPE_STRING)
        snprintf(out->owner, sizeof out->owner, "%.*s", (int)(pk.len < 63 ? pk.len : 63), pk.str);
}

static void gen_observe(cl_world *cw, int group, int lock, hist_store *out)
{
    const pol_policy *pol = cl_world_cfg(cw);
    if (pol->masters == 1) {
        observe_group(cw, group, lock, out);
        return;
    }
    /* Several masters: held by an owner when a quorum of them say so;
     * held by nobody known when some do; gone when the last one expires. */
    hist_store m[15];
    int groups[15], n = pol->masters;
    for (int g = 0; g < n; g++) {
        groups[g] = g;
        m[g] = (hist_store){.held = 0, .expire_ms = -1};
        if (cl_group_up(cw, g)) observe_group(cw, g, lock, &m[g]);
    }
    proto_quorum_view(cw, m, groups, n, quorum(pol), out);
}

static int gen_node_of(const cl_world *cw, int lock)
{
    (void)lock;
    return ((const pol_policy *)cl_world_cfg(cw))->masters > 1 ? -1 : 0;
}

/* A semaphore's permits, as the runtime's trySetPermits would record
 * them: the policy's scripts take them as {permits}. */
static void gen_setup(cl_world *cw)
{
    const pol_policy *pol = cl_world_cfg(cw);
    if (pol->permits == 0) return;
    for (int lock = 0; lock < cl_world_scenario(cw)->nlocks; lock++)
        cl_world_info(cw, HOP_SET, lock, permits_of(cw), 1);
}

/* The key behind each lock index is the policy's key of the lock. */
static void gen_world_init(cl_world *cw)
{
    const pol_policy *pol = cl_world_cfg(cw);
    const scenario *s = cl_world_scenario(cw);
    for (int lock = 0; lock < s->nlocks; lock++) {
        char key[256];
        pol_expand ex = {.pol = pol, .lock = s->lock_names[lock]};
        pol_expand_into(&ex, pol->key, key, sizeof key);
        cl_key_rename(cw, lock, key);
    }
}

const cl_protocol pol_generic_impl = {
    .proc_init = gen_proc_init,
    .proc_free = gen_proc_free,
    .acquire = gen_acquire,
    .release = gen_release,
    .force_unlock = gen_force_unlock,
    .query = gen_query,
    .observe = gen_observe,
    .world_init = gen_world_init,
    .setup = gen_setup,
    .node_of = gen_node_of,
    .token = gen_token,
};
