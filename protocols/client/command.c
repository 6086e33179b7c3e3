/* command.c — Redisson's command layer for a virtual process: per node
 * group, a command connection and a pub/sub connection to the node the
 * process believes is the master; requests matched to replies by id; the
 * reply timeout; resending (transport R, or any request that could not be
 * written) after the retry delay — a resent script really runs again;
 * EVALSHA with the EVAL fallback on NOSCRIPT; synced evaluation (the script
 * pipelined with WAIT, NoSyncedSlaves when no replica acknowledged);
 * blocking commands (BLPOP & co.) each on a connection of their own, as a
 * pooled client borrows one, with their block time added to the reply
 * timeout (none when they block for ever; such a connection keeps what a
 * partition cuts off, as TCP would); and reconnection, with
 * resubscription, after a connection is lost or the master changes.
 *
 * A command lives until it is done; replies to its earlier attempts are
 * recognised by id and dropped.
 *
 * Invariants (asserted): a command completes once, through its callback,
 * never on its caller's stack; a request id is on the wire once and names
 * a command of its own node group; resends never pass the attempts
 * allowed; what a connection delivers passes its own process's gate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "protocols/client/client_int.h"

#define RECONNECT_US SIM_SEC(1)
#define WAIT_TIMEOUT_MS 1000 /* slavesSyncTimeout */

struct cl_cmd {
    cl_proc *p;
    int group;
    int argc;
    char **argv;       /* the command as sent (EVALSHA form first) */
    size_t *lens;
    const cl_script *script; /* NULL for plain commands */
    int flags;         /* CL_RESEND / CL_NORESEND | CL_SYNCED */
    int attempt;       /* resends so far */
    int rerun;         /* the resend due follows an attempt that was written */
    int done;
    uint64_t tag;
    uint64_t req, wait_req;          /* ids of the current attempt */
    sim_reply *first;  /* synced: the script's reply, waiting for WAIT's */
    int want_wait;     /* synced: replicas the WAIT asks for */
    cl_timer timeout, retry;
    int64_t block_us;  /* a blocking command's block time (0: for ever); -1: not one */
    world_conn *bconn; /* a blocking command's connection, of its current attempt */
    cl_cmd_fn *fn;
    void *ud;
    cl_cmd *prev, *next; /* the group's commands */
};

typedef struct req_entry {
    UT_hash_handle hh;
    uint64_t id;
    cl_cmd *cmd;
    int is_wait;
} req_entry;

struct cl_node {
    cl_proc *p;
    int group;
    int target;        /* the node believed to be the master */
    world_conn *cmd, *ps;
    int cmd_up, ps_up;
    unsigned cmd_gen, ps_gen; /* connections opened so far (a reset names its own) */
    cl_timer reconnect;
    cl_cmd *cmds;
    req_entry *reqs;   /* requests on the wire, by id */
    uint64_t next_req;
};

typedef struct delivery {
    cl_world *cw; /* its free list (n's process may end while it runs) */
    cl_node *n;
    uint64_t req;
    sim_reply *reply;
    int kind;          /* 0 reply, 1 push, 2 reset of cmd conn, 3 reset of ps conn */
    unsigned gen;      /* a reset: the generation of the connection it ended */
} delivery;

/* ------------------------------------------------------------- requests */

void cl_commands_world_init(cl_world *cw)
{
    cw->reqs = (sim_freelist)SIM_FREELIST(req_entry);
    cw->deliveries = (sim_freelist)SIM_FREELIST(delivery);
    cw->cmds = (sim_freelist)SIM_FREELIST(cl_cmd);
}

void cl_commands_world_free(cl_world *cw)
{
    sim_fl_drain(&cw->reqs);
    sim_fl_drain(&cw->deliveries);
    sim_fl_drain(&cw->cmds);
}

static void forget(cl_node *n, uint64_t id)
{
    req_entry *e;
    HASH_FIND(hh, n->reqs, &id, sizeof id, e);
    if (e == NULL) return;
    HASH_DEL(n->reqs, e);
    sim_fl_put(&n->p->cw->reqs, e);
}

static void remember(cl_node *n, uint64_t id, cl_cmd *c, int is_wait)
{
    req_entry *e;
    HASH_FIND(hh, n->reqs, &id, sizeof id, e);
    sim_assert(e == NULL && c->group == n->group && !c->done); /* each id once */
    e = sim_fl_get(&n->p->cw->reqs);
    e->id = id;
    e->cmd = c;
    e->is_wait = is_wait;
    HASH_ADD(hh, n->reqs, id, sizeof e->id, e);
}

static void cmd_free(cl_cmd *c)
{
    cl_node *n = &c->p->nodes[c->group];
    sim_assert(c->prev != NULL || n->cmds == c); /* on its group's list */
    if (c->prev) c->prev->next = c->next;
    else n->cmds = c->next;
    if (c->next) c->next->prev = c->prev;
    cl_timer_cancel(c->p, &c->timeout);
    cl_timer_cancel(c->p, &c->retry);
    world_close(c->bconn);
    c->bconn = NULL;
    /* Replies to any attempt of it are unknown ids from now on. */
    req_entry *e, *tmp;
    HASH_ITER(hh, n->reqs, e, tmp) if (e->cmd == c) {
        HASH_DEL(n->reqs, e);
        sim_fl_put(&c->p->cw->reqs, e);
    }
    sim_xfree(c->argv); /* one block: pointers, lengths, bytes */
    sim_reply_free(c->first);
    sim_fl_put(&c->p->cw->cmds, c);
}

void cl_commands_free(cl_proc *p)
{
    for (int i = 0; i < p->cw->s->nodes; i++) {
        cl_node *n = &p->nodes[i];
        while (n->cmds) cmd_free(n->cmds);
        req_entry *e, *tmp;
        HASH_ITER(hh, n->reqs, e, tmp) {
            HASH_DEL(n->reqs, e);
            sim_fl_put(&p->cw->reqs, e);
        }
    }
}

/* ------------------------------------------------------------- sending */

static void on_timeout(cl_proc *p, void *arg);
static void on_retry(cl_proc *p, void *arg);

static void finish(cl_cmd *c, const sim_reply *r, cl_err err)
{
    sim_assert(!c->done); /* a command completes once */
    c->done = 1;
    if (c->fn) c->fn(c->p, c->ud, r, err);
    cmd_free(c);
}

/* EqualJitter's cap: no jittered retry delay is longer. */
#define JITTER_MAX_US SIM_MS(2000)

/* Redisson's retry delay before resend number `attempt` (1-based). */
static int64_t retry_delay(cl_proc *p, int attempt)
{
    cl_world *cw = p->cw;
    if (!cw->set.jitter) return cw->set.retry_interval_us;
    /* EqualJitter(base 1000, max 2000): d = min(base * 2^(a-1), max),
     * delay = d/2 + uniform[0, d/2]. */
    int64_t d = SIM_MS(1000);
    for (int a = 1; a < attempt && d < JITTER_MAX_US; a++) d *= 2;
    if (d > JITTER_MAX_US) d = JITTER_MAX_US;
    return d / 2 + (int64_t)cl_choose(p, (uint64_t)(d / 2 / 1000 + 1), "retry jitter") * 1000;
}

/* Retries the command, if it may be: `written` says whether the last
 * attempt reached the socket (NR commands then fail, and every command of
 * a release before 3.10.0, written_final). */
static void retry_or_fail(cl_cmd *c, int written, const char *why, cl_err err)
{
    cl_proc *p = c->p;
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(c->lens[0] < 40 ? c->lens[0] : 40), c->argv[0]);
    int may = ((c->flags & CL_NORESEND) == 0 && !p->cw->set.written_final) || !written;
    sim_assert(!c->done && c->attempt <= p->cw->set.retry_attempts);
    if (may && c->attempt < p->cw->set.retry_attempts) {
        c->attempt++;
        c->rerun = written;
        int64_t delay = retry_delay(p, c->attempt);
        cl_trace(p, p->name, "%s: resend %d of %s in %lldus", why, c->attempt, what, (long long)delay);
        cl_timer_arm(p, &c->retry, delay, "cmd resend", on_retry, c);
        return;
    }
    cl_trace(p, p->name, "%s: %s fails", why, what);
    finish(c, NULL, err);
}

/* The retry timer of a command that could not be written fired with no
 * resend allowed: it fails. */
static void on_unwritten(cl_proc *p, void *arg)
{
    (void)p;
    retry_or_fail(arg, 0, "not connected", CL_ERR_CONNECTION);
}

/* A fail-fast command found no connection: it fails (posted, never on
 * its caller's stack). */
static void on_unwritten_fail(cl_proc *p, void *arg)
{
    cl_cmd *c = arg;
    cl_trace(p, p->name, "not connected: fails at once");
    finish(c, NULL, CL_ERR_CONNECTION);
}

static void on_block_reply(void *ud, uint64_t req, const sim_reply *r);
static void on_block_reset(void *ud);

/* A blocking command's attempt: a connection of its own to the master
 * the process knows (the last attempt's is closed), its reply matched by
 * id as any other; the reply timeout is the block time later, or none. */
static void send_blocking(cl_cmd *c)
{
    cl_proc *p = c->p;
    cl_node *n = &p->nodes[c->group];
    world *w = p->cw->w;
    world_close(c->bconn);
    c->req = ++n->next_req;
    char name[112];
    snprintf(name, sizeof name, "%s/%d#%llu>%s", p->name, p->inc, (unsigned long long)c->req,
             world_node_name(w, n->target));
    c->bconn = world_connect(w, WORLD_CLIENT(p->client), n->target, name, on_block_reply, NULL, on_block_reset, c);
    world_conn_keep(c->bconn);
    world_send(c->bconn, c->argc, (const char *const *)c->argv, c->lens, c->tag, c->req);
    remember(n, c->req, c, 0);
    c->want_wait = 0;
    if (c->block_us > 0)
        cl_timer_arm(p, &c->timeout, p->cw->s->timeout_us + c->block_us, "cmd timeout", on_timeout, c);
}

/* The block time of a blocking command (its last word, in seconds), -1
 * for any other. A time the server refuses answers at once: 0. */
static int64_t block_time_us(int argc, const char *const *argv)
{
    static const char *const names[] = {"blpop", "brpop", "bzpopmin", "bzpopmax", "blmove", "brpoplpush"};
    int blocking = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !blocking; i++) blocking = !strcasecmp(argv[0], names[i]);
    if (!blocking || argc < 3) return -1;
    char *end;
    double secs = strtod(argv[argc - 1], &end);
    if (*end != '\0' || !(secs > 0) || secs > 1e9) return 0;
    return (int64_t)(secs * 1e6);
}

static void send_now(cl_cmd *c)
{
    cl_proc *p = c->p;
    cl_node *n = &p->nodes[c->group];
    sim_assert(!c->done && p->alive && !cl_timer_armed(&c->retry));
    sim_reply_free(c->first);
    c->first = NULL;
    if (!n->cmd_up) {
        if (c->flags & CL_FAILFAST) {
            cl_timer_arm(p, &c->retry, 0, "cmd fail", on_unwritten_fail, c);
            return;
        }
        if (c->attempt == 0 && p->cw->set.retry_attempts == 0) {
            /* No resend allowed: Redisson reports the connection it could
             * not get when the attempt's retry timer fires, a retry
             * interval later; never on the caller's stack (a protocol
             * that tries again at once, MultiLock's lock(), would recurse
             * at one instant for ever). */
            cl_timer_arm(p, &c->retry, retry_delay(p, 1), "cmd fail", on_unwritten, c);
            return;
        }
        retry_or_fail(c, 0, "not connected", CL_ERR_CONNECTION);
        return;
    }
    sim_assert(n->cmd != NULL);
    if (c->block_us >= 0) {
        send_blocking(c);
        return;
    }
    c->req = ++n->next_req;
    world_send(n->cmd, c->argc, (const char *const *)c->argv, c->lens, c->tag, c->req);
    remember(n, c->req, c, 0);
    int64_t timeout = p->cw->s->timeout_us;
    c->want_wait = 0;
    if (c->flags & CL_SYNCED) {
        c->want_wait = world_connected_replicas(p->cw->w, c->group);
        if (c->want_wait > 0) {
            char want[24], ms[24];
            size_t want_len = sim_fmt_i64(want, c->want_wait), ms_len = sim_fmt_i64(ms, WAIT_TIMEOUT_MS);
            const char *argv[] = {"WAIT", want, ms};
            size_t lens[] = {4, want_len, ms_len};
            c->wait_req = ++n->next_req;
            world_send(n->cmd, 3, argv, lens, 0, c->wait_req);
            remember(n, c->wait_req, c, 1);
            timeout += SIM_MS(WAIT_TIMEOUT_MS);
        }
    }
    cl_timer_arm(p, &c->timeout, timeout, "cmd timeout", on_timeout, c);
}

int64_t cl_reconnect_us(void)
{
    return RECONNECT_US;
}

int64_t cl_retry_delay_max_us(const scenario *s)
{
    return s->retry_interval_us >= 0 ? s->retry_interval_us : JITTER_MAX_US;
}

int64_t cl_reply_wait_us(const cl_world *cw)
{
    return cw->s->timeout_us + (cw->set.synced ? cl_wait_timeout_us() : 0);
}

int64_t cl_wait_timeout_us(void)
{
    return SIM_MS(WAIT_TIMEOUT_MS);
}

static void on_retry(cl_proc *p, void *arg)
{
    cl_cmd *c = arg;
    /* A resend of a command that was written may run it twice: the
     * history says so, for the checkers to tell it (an operation's tag
     * names its thread and lock). */
    if (c->rerun && c->tag != 0) {
        hist_event e = {.t_us = sim_now(p->cw->ctx), .kind = HIST_INFO, .op = HOP_RESENT, .client = p->client,
                        .inc = p->inc, .thread = hist_tag_thread(c->tag), .lock = hist_tag_lock(c->tag),
                        .seq = c->tag};
        hist_add(p->cw->h, &e);
    }
    c->rerun = 0;
    send_now(c);
}

static void on_timeout(cl_proc *p, void *arg)
{
    (void)p;
    retry_or_fail(arg, 1, "reply timeout", CL_ERR_TIMEOUT);
}

static int is_noscript(const sim_reply *r)
{
    return r->type == SIM_REPLY_ERR && r->len >= 8 && memcmp(r->str, "NOSCRIPT", 8) == 0;
}

/* Turns an EVALSHA command into the EVAL of the script's body: the two
 * words point at static text (the bundled script), never written or freed. */
static void to_eval(cl_cmd *c)
{
    c->argv[0] = (char *)"EVAL";
    c->lens[0] = 4;
    c->argv[1] = (char *)c->script->text;
    c->lens[1] = c->script->len;
}

/* The kind of script (CL_KIND_*) a script's name says, 0 for none. */
static int script_kind(const cl_script *t)
{
    if (t == NULL || strstr(t->name, "force")) return 0;
    if (strstr(t->name, "acquire")) return CL_KIND_ACQUIRE;
    if (strstr(t->name, "unlock") || strstr(t->name, "release")) return CL_KIND_UNLOCK;
    if (strstr(t->name, "renew") || strstr(t->name, "extend")) return CL_KIND_RENEW;
    return 0;
}

/* A fail-reply fault spoils this reply: 1 when it is lost (the command
 * waits for its timeout), with *as_error set when it becomes an error. */
static int spoiled(cl_cmd *c, int *as_error)
{
    cl_fail_budget *b = &c->p->cw->fail[c->p->client - 1];
    *as_error = 0;
    if ((b->count[CL_KIND_ACQUIRE] | b->count[CL_KIND_UNLOCK] | b->count[CL_KIND_RENEW]) == 0)
        return 0; /* no budget armed: the script's kind does not matter */
    int kind = script_kind(c->script);
    if (kind == 0 || b->count[kind] == 0) return 0;
    b->count[kind]--;
    *as_error = b->as_error[kind];
    if (b->nspoiled[kind] == b->cap[kind]) {
        b->cap[kind] = b->cap[kind] ? 2 * b->cap[kind] : 4;
        b->spoiled_at[kind] = sim_xrealloc(b->spoiled_at[kind], b->cap[kind] * sizeof *b->spoiled_at[kind]);
    }
    b->spoiled_at[kind][b->nspoiled[kind]++] = sim_now(c->p->cw->ctx);
    cl_trace(c->p, c->p->name, "fail-reply: the reply to %s is %s", c->script->name,
             *as_error ? "turned into an error" : "lost");
    /* The history says whose reply it was: its thread waits for the reply
     * timeout now, which the checkers do not blame on the lock. */
    if (!*as_error && c->tag != 0) {
        hist_event e = {.t_us = sim_now(c->p->cw->ctx), .kind = HIST_INFO, .op = HOP_REPLY_LOST,
                        .client = c->p->client, .inc = c->p->inc, .thread = hist_tag_thread(c->tag),
                        .lock = hist_tag_lock(c->tag), .seq = c->tag};
        hist_add(c->p->cw->h, &e);
    }
    return !*as_error;
}

#define FAIL_REPLY_TEXT "ERR fail-reply: the reply was spoiled"
static const sim_reply fail_reply_error = {
    .type = SIM_REPLY_ERR, .str = (char *)FAIL_REPLY_TEXT, .len = sizeof FAIL_REPLY_TEXT - 1};

static int is_readonly(const sim_reply *r)
{
    return r->type == SIM_REPLY_ERR && r->len >= 8 && memcmp(r->str, "READONLY", 8) == 0;
}

/* The script's reply (and, when synced, WAIT's) is in. */
static void complete(cl_cmd *c, const sim_reply *r, const sim_reply *wait)
{
    cl_proc *p = c->p;
    if (p->cw->set.readonly_retry && is_readonly(r) && c->attempt < p->cw->set.retry_attempts) {
        /* The node was demoted and ran nothing: RedisExecutor.checkAttemptPromise
         * resends on a RedisReadonlyException after the retry delay, while
         * attempts remain (redisson-3.27.1 .. 4.7.0,
         * command/RedisExecutor.java); the resend goes to the master the
         * client knows by then. The last attempt's error is the caller's. */
        cl_timer_cancel(p, &c->timeout);
        cl_timer_cancel(p, &c->retry);
        retry_or_fail(c, 0, "READONLY", CL_ERR_REPLY);
        return;
    }
    if (c->script && is_noscript(r) && c->argv[0][4] == 'S') {
        cl_timer_cancel(p, &c->timeout);
        /* A late reply to an attempt that timed out is taken (its resend
         * was due): the resend goes, or the EVAL would run beside it. */
        cl_timer_cancel(p, &c->retry);
        to_eval(c);
        send_now(c);
        return;
    }
    int as_error;
    if (spoiled(c, &as_error)) return; /* lost: the timeout runs on */
    cl_timer_cancel(p, &c->timeout);
    cl_timer_cancel(p, &c->retry); /* a late reply taken: its due resend goes */
    if (as_error) {
        finish(c, &fail_reply_error, CL_ERR_REPLY);
        return;
    }
    if (wait && wait->type == SIM_REPLY_ERR) {
        /* The batch fails with its WAIT's error (a master demoted while the
         * WAIT blocked answers UNBLOCKED): an error, not NoSyncedSlaves,
         * so no rollback runs (CommandAsyncService.syncedEval, 4.7.0). */
        cl_trace(p, p->name, "WAIT failed: %s", wait->str);
        finish(c, wait, CL_ERR_REPLY);
        return;
    }
    if (wait && wait->type == SIM_REPLY_INT && c->want_wait > 0 && !p->cw->set.nosync_unchecked &&
        (wait->integer == 0 || (p->cw->set.nosync_all && wait->integer < c->want_wait))) {
        cl_trace(p, p->name, "NoSyncedSlavesException: no replica of %d acknowledged", c->want_wait);
        finish(c, r, CL_ERR_NOSYNC);
        return;
    }
    finish(c, r, r->type == SIM_REPLY_ERR ? CL_ERR_REPLY : CL_OK);
}

static void on_reply_entry(cl_node *n, uint64_t id, const sim_reply *r)
{
    req_entry *e;
    HASH_FIND(hh, n->reqs, &id, sizeof id, e);
    if (e == NULL) {
        cl_trace(n->p, n->p->name, "late reply dropped");
        return;
    }
    cl_cmd *c = e->cmd;
    int is_wait = e->is_wait;
    sim_assert(c->p == n->p && c->group == n->group && !c->done);
    forget(n, id);
    if (id != c->req && id != c->wait_req) {
        cl_trace(n->p, n->p->name, "reply to an earlier attempt dropped");
        return;
    }
    if (c->want_wait > 0 && !is_wait) {
        c->first = sim_reply_dup(r); /* wait for WAIT's reply */
        return;
    }
    if (is_wait) {
        if (c->first == NULL) return; /* cannot happen: replies come in order */
        sim_reply *first = c->first;
        c->first = NULL;
        complete(c, first, r);
        sim_reply_free(first);
        return;
    }
    complete(c, r, NULL);
}

/* ---------------------------------------------------------- connections */

static void open_conns(cl_node *n);
static void delivery_free(void *arg);

static void on_reconnect(cl_proc *p, void *arg)
{
    (void)p;
    open_conns(arg);
}

static void lost(cl_node *n, int ps)
{
    cl_proc *p = n->p;
    sim_assert(p->alive && n == &p->nodes[n->group]);
    if (ps) n->ps_up = 0;
    else n->cmd_up = 0;
    cl_trace(p, p->name, "connection to %s lost (%s)", world_node_name(p->cw->w, n->target),
             ps ? "pub/sub" : "commands");
    if (!cl_timer_armed(&n->reconnect))
        cl_timer_arm(p, &n->reconnect, RECONNECT_US, "reconnect", on_reconnect, n);
}

/* A crash on=reply strikes at a reply to a command that ran (a NOSCRIPT
 * ran nothing): the process dies before it reads it. */
static int crash_strikes(cl_proc *p, const delivery *d)
{
    if (!p->crash_on_reply || d->kind != 0 || d->reply == NULL || is_noscript(d->reply)) return 0;
    cl_trace(p, p->name, "crash on reply: the reply to request %llu arrives", (unsigned long long)d->req);
    cl_crash(p->cw, p->client); /* p is gone */
    return 1;
}

/* A blocking command's connection was reset (its node crashed, closed
 * it, or was made a replica): its attempt failed unanswered. */
static void block_reset(cl_node *n, uint64_t id)
{
    req_entry *e;
    HASH_FIND(hh, n->reqs, &id, sizeof id, e);
    if (e == NULL || e->cmd->req != id) return; /* answered, or a later attempt is out */
    cl_cmd *c = e->cmd;
    forget(n, id);
    cl_timer_cancel(c->p, &c->timeout);
    cl_timer_cancel(c->p, &c->retry);
    world_close(c->bconn);
    c->bconn = NULL;
    retry_or_fail(c, 1, "connection reset", CL_ERR_CONNECTION);
}

static void on_gated(cl_proc *p, void *arg)
{
    delivery *d = arg;
    cl_node *n = d->n;
    sim_assert(n->p == p && d->cw == p->cw && d->kind >= 0 && d->kind <= 4); /* its own gate */
    if (crash_strikes(p, d)) {
        cl_world_observe_all(d->cw);
        delivery_free(d);
        return;
    }
    switch (d->kind) {
    case 0: on_reply_entry(n, d->req, d->reply); break;
    case 1: cl_sub_on_push(p, n->group, d->reply); break;
    /* A reset that waited (a pause) while the connection was replaced
     * ends nothing: the new one is up, and must not be dropped. */
    case 2: if (d->gen == n->cmd_gen) lost(n, 0); break;
    case 3: if (d->gen == n->ps_gen) lost(n, 1); break;
    case 4: block_reset(n, d->req); break;
    }
    delivery_free(d);
}

static void delivery_free(void *arg)
{
    delivery *d = arg;
    sim_reply_free(d->reply);
    sim_fl_put(&d->cw->deliveries, d);
}

static void deliver(cl_node *n, int kind, uint64_t req, const sim_reply *r)
{
    delivery *d = sim_fl_get(&n->p->cw->deliveries);
    d->cw = n->p->cw;
    d->n = n;
    d->kind = kind;
    d->gen = kind == 2 ? n->cmd_gen : n->ps_gen;
    d->req = req;
    d->reply = r ? sim_reply_ref((sim_reply *)r) : NULL; /* the network's message: shared, not copied */
    static const char *const labels[] = {"reply", "push", "reset", "reset", "reset"};
    cl_post_owned(n->p, labels[kind], on_gated, d, delivery_free);
}

static void on_cmd_reply(void *ud, uint64_t req, const sim_reply *r)
{
    deliver(ud, 0, req, r);
}

static void on_ps_reply(void *ud, uint64_t req, const sim_reply *r)
{
    (void)ud;
    (void)req;
    (void)r; /* the pub/sub connection answers with pushes */
}

static void on_ps_push(void *ud, const sim_reply *r)
{
    deliver(ud, 1, 0, r);
}

static void on_cmd_reset(void *ud)
{
    deliver(ud, 2, 0, NULL);
}

static void on_ps_reset(void *ud)
{
    deliver(ud, 3, 0, NULL);
}

/* A blocking command's connection's callbacks name the command: alive,
 * since its connection closes before it is freed. */
static void on_block_reply(void *ud, uint64_t req, const sim_reply *r)
{
    cl_cmd *c = ud;
    deliver(&c->p->nodes[c->group], 0, req, r);
}

static void on_block_reset(void *ud)
{
    cl_cmd *c = ud; /* alive: its connection closes before it is freed */
    deliver(&c->p->nodes[c->group], 4, c->req, NULL);
}

/* (Re)opens whichever connection of the group is down, to the target. */
static void open_conns(cl_node *n)
{
    cl_proc *p = n->p;
    world *w = p->cw->w;
    char name[96];
    sim_assert(p->alive && n->target >= 0 && n->target < world_nodes(w));
    if (!n->cmd_up) {
        sim_assert(n->cmd == NULL || world_conn_closed(n->cmd)); /* never two live ones: the old would outlive us */
        snprintf(name, sizeof name, "%s/%d>%s", p->name, p->inc, world_node_name(w, n->target));
        n->cmd = world_connect(w, WORLD_CLIENT(p->client), n->target, name, on_cmd_reply, NULL,
                               on_cmd_reset, n);
        n->cmd_up = 1;
        n->cmd_gen++;
    }
    if (!n->ps_up) {
        sim_assert(n->ps == NULL || world_conn_closed(n->ps));
        snprintf(name, sizeof name, "%s/%d~%s", p->name, p->inc, world_node_name(w, n->target));
        n->ps = world_connect(w, WORLD_CLIENT(p->client), n->target, name, on_ps_reply, on_ps_push,
                              on_ps_reset, n);
        n->ps_up = 1;
        n->ps_gen++;
        cl_subs_resubscribe(p, n->group);
    }
}

void cl_nodes_open(cl_proc *p)
{
    int ng = p->cw->s->nodes;
    p->nodes = sim_xcalloc((size_t)ng, sizeof *p->nodes);
    for (int g = 0; g < ng; g++) {
        cl_node *n = &p->nodes[g];
        n->p = p;
        n->group = g;
        n->target = p->cw->masters_known ? p->cw->masters_known[g] : world_master(p->cw->w, g);
        open_conns(n);
    }
}

void cl_nodes_close(cl_proc *p)
{
    for (int g = 0; g < p->cw->s->nodes; g++) {
        world_close(p->nodes[g].cmd);
        world_close(p->nodes[g].ps);
    }
    sim_xfree(p->nodes);
    p->nodes = NULL;
}

void cl_node_drop(cl_proc *p, int group)
{
    cl_node *n = &p->nodes[group];
    world_close(n->cmd);
    world_close(n->ps);
    lost(n, 0);
    lost(n, 1);
}

void cl_node_switch(cl_proc *p, int group, int node)
{
    sim_assert(group >= 0 && group < p->cw->s->nodes && world_group_of(p->cw->w, node) == group);
    cl_node *n = &p->nodes[group];
    if (n->target == node) return;
    cl_trace(p, p->name, "master of group %d is now %s: reconnecting", group,
             world_node_name(p->cw->w, node));
    world_close(n->cmd);
    world_close(n->ps);
    n->cmd_up = n->ps_up = 0;
    n->target = node;
    cl_timer_cancel(p, &n->reconnect);
    open_conns(n);
}

int cl_nosync_retry(cl_proc *p, int *retries, cl_timer *timer, cl_fn *fn, void *arg)
{
    if (p->cw->set.nosync_no_retry || *retries >= p->cw->set.retry_attempts) return 0;
    (*retries)++;
    cl_timer_arm(p, timer, p->cw->set.jitter ? SIM_MS(1000) : p->cw->set.retry_interval_us, "nosync retry", fn, arg);
    return 1;
}

void cl_ps_send(cl_proc *p, int group, int argc, const char *const *argv)
{
    cl_node *n = &p->nodes[group];
    if (!n->ps_up) return; /* resubscribed on reconnection */
    size_t lens[8];
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    world_send(n->ps, argc, argv, lens, 0, 0);
}

/* ------------------------------------------------------------ the API */

static cl_cmd *cmd_new(cl_proc *p, int group, int argc, int flags, cl_cmd_fn *fn, void *ud,
                       uint64_t tag)
{
    sim_assert(p->alive && group >= 0 && group < p->cw->s->nodes && argc > 0);
    cl_cmd *c = sim_fl_get(&p->cw->cmds);
    cl_node *n = &p->nodes[group];
    c->p = p;
    c->group = group;
    c->argc = argc;
    c->flags = flags;
    c->fn = fn;
    c->ud = ud;
    c->tag = tag;
    c->next = n->cmds;
    if (n->cmds) n->cmds->prev = c;
    n->cmds = c;
    return c;
}

/* c's words: one allocation holding c->argc pointers, their lengths and
 * each word's bytes with a NUL after them. */
static void set_args(cl_cmd *c, const char *const *argv)
{
    size_t bytes = 0, len[c->argc];
    for (int i = 0; i < c->argc; i++) bytes += (len[i] = strlen(argv[i])) + 1;
    char *block = sim_xmalloc((size_t)c->argc * (sizeof *c->argv + sizeof *c->lens) + bytes);
    c->argv = (char **)block;
    c->lens = (size_t *)(block + (size_t)c->argc * sizeof *c->argv);
    char *p = (char *)(c->lens + c->argc);
    for (int i = 0; i < c->argc; i++) {
        memcpy(p, argv[i], len[i] + 1);
        c->argv[i] = p;
        c->lens[i] = len[i];
        p += len[i] + 1;
    }
}

void cl_eval(cl_proc *p, int group, const cl_script *t, int nkeys, const char *const *keys, int nargs,
             const char *const *args, int flags, uint64_t tag, cl_cmd_fn *fn, void *ud)
{
    sim_assert(t != NULL);
    cl_cmd *c = cmd_new(p, group, 3 + nkeys + nargs, flags, fn, ud, tag);
    char nk[24];
    sim_fmt_i64(nk, nkeys);
    c->script = t;
    c->block_us = -1;
    const char *words[c->argc];
    words[0] = "EVALSHA";
    words[1] = t->sha;
    words[2] = nk;
    for (int i = 0; i < nkeys; i++) words[3 + i] = keys[i];
    for (int i = 0; i < nargs; i++) words[3 + nkeys + i] = args[i];
    set_args(c, words);
    send_now(c);
}

void cl_command(cl_proc *p, int group, int argc, const char *const *argv, int flags, uint64_t tag,
                cl_cmd_fn *fn, void *ud)
{
    cl_cmd *c = cmd_new(p, group, argc, flags, fn, ud, tag);
    set_args(c, argv);
    c->block_us = block_time_us(argc, argv);
    send_now(c);
}
