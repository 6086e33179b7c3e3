/* conform.c — runs the generated operations on the fake node and on a real
 * redis-server side by side and compares every reply, and every pub/sub
 * message a subscriber connection receives. The fake's clock is set to the
 * wall clock before each operation so expiry deadlines mean the same on
 * both. Stops at the first divergence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sim/engine/conform.h"
#include "sim/fake/fake.h"
#include "sim/kernel/host.h"
#include "sim/real/real.h"

#define MAX_PUSHES 64

typedef struct pushes {
    sim_reply *msg[MAX_PUSHES];
    int n;
} pushes;

static void on_push(void *ud, const sim_reply *msg)
{
    pushes *p = ud;
    if (p->n < MAX_PUSHES) p->msg[p->n++] = sim_reply_dup(msg);
}

static void pushes_clear(pushes *p)
{
    for (int i = 0; i < p->n; i++) sim_reply_free(p->msg[i]);
    p->n = 0;
}

/* hiredis 0.14 reports a null multi-bulk as a null bulk: compare alike. */
static void normalize(sim_reply *r)
{
    if (r->type == SIM_REPLY_NILARRAY) r->type = SIM_REPLY_NIL;
    for (size_t i = 0; i < r->elements; i++) normalize(r->element[i]);
}

static int64_t absdiff(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

/* A string reply that is all digits of a value of at least 10^12 (a time
 * in ms since 1970): 1 with *v. */
static int timestamp(const sim_reply *r, long long *v)
{
    if (r->str == NULL || r->len < 13 || r->len > 18) return 0;
    long long n = 0;
    for (size_t i = 0; i < r->len; i++) {
        if (r->str[i] < '0' || r->str[i] > '9') return 0;
        n = n * 10 + (r->str[i] - '0');
    }
    *v = n;
    return 1;
}

static int equal_timed(const sim_reply *a, const sim_reply *b, int cmp)
{
    if (a->type == SIM_REPLY_INT && b->type == SIM_REPLY_INT) {
        if (a->integer == b->integer) return 1;
        if ((cmp & CONFORM_CMP_PROBE) && a->integer >= 0 && a->integer <= 25 &&
            b->integer >= 0 && b->integer <= 25)
            return 1;
        /* Milliseconds read at two different instants (PTTL, or a fair
         * lock's deadline derived from one, which may be small or even
         * negative) may differ by the time between the two runs; small
         * codes (-2..50: missing key, no TTL, counts) must match. */
        if ((cmp & CONFORM_CMP_TIME) && (a->integer > 50 || a->integer < -50) &&
            (b->integer > 50 || b->integer < -50))
            return absdiff(a->integer, b->integer) <= 50;
        if ((cmp & CONFORM_CMP_TIME_SEC) && a->integer >= 50 && b->integer >= 50)
            return absdiff(a->integer, b->integer) <= 1;
        return 0;
    }
    /* A score written from a deadline (a client-clock timestamp in ms)
     * derived from a PTTL, read back as a string: the same slack. */
    long long x, y;
    if ((cmp & CONFORM_CMP_TIME) && a->type == SIM_REPLY_STR && b->type == SIM_REPLY_STR && timestamp(a, &x) &&
        timestamp(b, &y))
        return absdiff(x, y) <= 50;
    if (a->type == SIM_REPLY_ARRAY && b->type == SIM_REPLY_ARRAY) {
        if (a->elements != b->elements) return 0;
        for (size_t i = 0; i < a->elements; i++)
            if (!equal_timed(a->element[i], b->element[i], cmp)) return 0;
        return 1;
    }
    return sim_reply_equal(a, b, 0, 0);
}

static int replies_equal(sim_reply *fake, sim_reply *real, int cmp)
{
    normalize(fake);
    normalize(real);
    if (cmp & CONFORM_CMP_PAIRS) return sim_reply_equal(fake, real, 0, SIM_REPLY_CMP_PAIRS);
    if (cmp & CONFORM_CMP_SET) return sim_reply_equal(fake, real, 0, SIM_REPLY_CMP_UNORDERED);
    return equal_timed(fake, real, cmp);
}

typedef struct run {
    const conform_opts *o;
    sim_ctx *ctx;
    fake_node *node;
    fake_conn *fmain, *fsub, *fblock[CONFORM_BLOCKERS];
    real_conn *rmain, *rsub, *rblock[CONFORM_BLOCKERS];
    sim_reply *main_answer; /* the fake's later answer to a blocked main connection */
    pushes fpush;
    uint64_t step;
    uint64_t messages, probes;
} run;

static void report(run *r, const conform_op *op, const char *what,
                   const sim_reply *fake, const sim_reply *real)
{
    char cmd[2048], fb[4096], rb[4096];
    conform_op_format(op, cmd, sizeof cmd);
    if (fake) sim_reply_format(fake, fb, sizeof fb);
    else snprintf(fb, sizeof fb, "(no reply)");
    if (real) sim_reply_format(real, rb, sizeof rb);
    else snprintf(rb, sizeof rb, "(no reply: %s)", real_errstr(r->rmain));
    fprintf(stderr,
            "conform: DIVERGENCE at step %llu (seed %llu)%s%s\n"
            "  command: %s\n  fake:    %s\n  real:    %s\n"
            "  replay:  locksim conform --redis %s:%d --seed %llu --ops %llu\n",
            (unsigned long long)r->step, (unsigned long long)r->o->seed,
            what ? ", " : "", what ? what : "", cmd, fb, rb, r->o->host, r->o->port,
            (unsigned long long)r->o->seed, (unsigned long long)r->step);
}

static void sync_clock(run *r)
{
    sim_clock *c = fake_node_clock(r->node);
    c->offset_us = host_unix_us() - sim_now(r->ctx);
}

/* An UNSUBSCRIBE with no channel lists them in the server's dict order:
 * compare kinds and counts in order, and the channel names as a set. */
static int unsub_all_equal(sim_reply **fake, sim_reply **real, int n)
{
    sim_reply fa = {.type = SIM_REPLY_ARRAY, .elements = (size_t)n};
    sim_reply ra = {.type = SIM_REPLY_ARRAY, .elements = (size_t)n};
    sim_reply *fch[MAX_PUSHES], *rch[MAX_PUSHES];
    for (int i = 0; i < n; i++) {
        if (fake[i]->elements != 3 || real[i]->elements != 3) return 0;
        if (!sim_reply_equal(fake[i]->element[0], real[i]->element[0], 0, 0) ||
            !sim_reply_equal(fake[i]->element[2], real[i]->element[2], 0, 0))
            return 0;
        fch[i] = fake[i]->element[1];
        rch[i] = real[i]->element[1];
    }
    fa.element = fch;
    ra.element = rch;
    return sim_reply_equal(&fa, &ra, 0, SIM_REPLY_CMP_UNORDERED);
}

/* Reads as many pushes from the real subscriber as the fake produced and
 * compares them; then a PING barrier proves nothing else is pending. */
static int check_pushes(run *r, const conform_op *op, int barrier, int unsub_all)
{
    sim_reply *real[MAX_PUSHES];
    int n = r->fpush.n, got = 0, ok = 1;
    for (; got < n; got++) {
        real[got] = real_get_reply(r->rsub);
        if (real[got] == NULL) break;
        normalize(real[got]);
    }
    if (got < n) {
        report(r, op, "on the subscriber connection", r->fpush.msg[got], NULL);
        ok = 0;
    } else if (unsub_all && n > 1) {
        ok = unsub_all_equal(r->fpush.msg, real, n);
        if (!ok) report(r, op, "on the subscriber connection", r->fpush.msg[0], real[0]);
    } else {
        for (int i = 0; i < n && ok; i++) {
            ok = replies_equal(r->fpush.msg[i], real[i], 0);
            if (!ok) report(r, op, "on the subscriber connection", r->fpush.msg[i], real[i]);
        }
    }
    for (int i = 0; i < got; i++) sim_reply_free(real[i]);
    r->messages += (uint64_t)n;
    pushes_clear(&r->fpush);
    if (!ok) return -1;
    if (!barrier) return 0;
    const char *ping[] = {"PING"};
    size_t lens[] = {4};
    sim_reply *fake = fake_exec(r->node, r->fsub, 1, ping, lens);
    sim_reply *pong = real_command(r->rsub, 1, ping, lens);
    ok = fake && pong && replies_equal(fake, pong, 0);
    if (!ok) report(r, op, "PING barrier after the operation (an extra message?)", fake, pong);
    sim_reply_free(fake);
    sim_reply_free(pong);
    return ok ? 0 : -1;
}

/* The fake's answers to blocked clients: a blocker's is compared with the
 * reply its real connection gets (read now: a client the real server did
 * not serve so makes it wait out the connection's timeout, and diverge);
 * the main connection's is kept for run_main. */
static int check_answers(run *r, const conform_op *op)
{
    fake_conn *fc;
    sim_reply *fake;
    int close, ok = 1;
    while (fake_node_unblocked(r->node, &fc, &fake, &close)) {
        if (fc == r->fmain) {
            sim_reply_free(r->main_answer);
            r->main_answer = fake;
            continue;
        }
        int i = 0;
        while (i < CONFORM_BLOCKERS && r->fblock[i] != fc) i++;
        sim_assert(i < CONFORM_BLOCKERS);
        sim_reply *real = ok ? real_get_reply(r->rblock[i]) : NULL;
        if (ok && real) normalize(real);
        if (ok && !(real && replies_equal(fake, real, 0))) {
            char what[64];
            snprintf(what, sizeof what, "the answer of blocker %d", i + 1);
            report(r, op, what, fake, real);
            ok = 0;
        }
        sim_reply_free(fake);
        sim_reply_free(real);
    }
    return ok ? 0 : -1;
}

static int run_main(run *r, conform_op *op)
{
    sync_clock(r);
    sim_reply *fake = fake_exec(r->node, r->fmain, op->argc, (const char *const *)op->argv,
                                op->lens);
    sim_reply *real = real_command(r->rmain, op->argc, (const char *const *)op->argv, op->lens);
    if (fake == NULL && fake_conn_blocked(r->fmain)) {
        /* The real server answered it: it timed out there, so the fake's
         * clock, caught up, times it out too. */
        sync_clock(r);
        fake_node_block_timeouts(r->node);
    }
    if (check_answers(r, op) != 0) {
        sim_reply_free(real);
        return -1;
    }
    if (fake == NULL) {
        fake = r->main_answer;
        r->main_answer = NULL;
    }
    int ok = fake && real && replies_equal(fake, real, op->cmp);
    if (!ok) report(r, op, NULL, fake, real);
    sim_reply_free(fake);
    sim_reply_free(real);
    if (!ok) return -1;
    int subscribed = fake_conn_subscriptions(r->fsub) > 0;
    if (r->fpush.n > 0 || subscribed) return check_pushes(r, op, subscribed, 0);
    return 0;
}

static int run_sub(run *r, conform_op *op)
{
    sync_clock(r);
    sim_reply *fake = fake_exec(r->node, r->fsub, op->argc, (const char *const *)op->argv,
                                op->lens);
    if (real_append(r->rsub, op->argc, (const char *const *)op->argv, op->lens) != 0) {
        report(r, op, "cannot send on the subscriber connection", fake, NULL);
        sim_reply_free(fake);
        return -1;
    }
    int ok = 1;
    if (fake) {
        sim_reply *real = real_get_reply(r->rsub);
        ok = real && replies_equal(fake, real, 0);
        if (!ok) report(r, op, "on the subscriber connection", fake, real);
        sim_reply_free(real);
    }
    sim_reply_free(fake);
    if (!ok) return -1;
    int unsub_all = op->argc == 1 && strcasecmp(op->argv[0], "unsubscribe") == 0;
    return check_pushes(r, op, fake_conn_subscriptions(r->fsub) > 0, unsub_all);
}

/* Until the real server counts as blocked (INFO clients) the blockers the
 * fake has blocked: a command on another connection must come after the
 * blocker's, as the fake ran them. */
static int wait_blocked(run *r)
{
    int want = 0;
    for (int i = 0; i < CONFORM_BLOCKERS; i++) want += fake_conn_blocked(r->fblock[i]);
    const char *info[] = {"INFO", "clients"};
    size_t lens[] = {4, 7};
    for (int tries = 0; tries < 2000; tries++) {
        sim_reply *rep = real_command(r->rmain, 2, info, lens);
        const char *at = rep && rep->str ? strstr(rep->str, "blocked_clients:") : NULL;
        int got = at ? atoi(at + 16) : -1;
        sim_reply_free(rep);
        if (got == want) return 0;
        usleep(500);
    }
    return -1;
}

/* A blocker connection sends a blocking command: answered now (compared
 * at once) or blocked, on both, until served or timed out. */
static int run_blocker(run *r, conform_op *op)
{
    int i = op->conn;
    sim_assert(i >= 0 && i < CONFORM_BLOCKERS && !fake_conn_blocked(r->fblock[i]));
    sync_clock(r);
    sim_reply *fake = fake_exec(r->node, r->fblock[i], op->argc, (const char *const *)op->argv, op->lens);
    if (real_append(r->rblock[i], op->argc, (const char *const *)op->argv, op->lens) != 0) {
        report(r, op, "cannot send on a blocker connection", fake, NULL);
        sim_reply_free(fake);
        return -1;
    }
    int ok = 1;
    if (fake) {
        sim_reply *real = real_get_reply(r->rblock[i]);
        ok = real && replies_equal(fake, real, 0);
        if (!ok) report(r, op, "on a blocker connection", fake, real);
        sim_reply_free(real);
        sim_reply_free(fake);
    } else if (real_flush(r->rblock[i]) != 0 || wait_blocked(r) != 0) {
        report(r, op, "the real server did not block the blocker", NULL, NULL);
        ok = 0;
    }
    if (!ok) return -1;
    return check_answers(r, op); /* a BLMOVE served at once may serve another */
}

/* The round's blockers still waiting time out (wall time passes their
 * deadlines, then the fake's clock catches up); then a PING on each
 * blocker connection proves nothing else is pending on either side. */
static int run_settle(run *r, conform_op *op)
{
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < CONFORM_BLOCKERS; i++) waiting |= fake_conn_blocked(r->fblock[i]);
        if (!waiting) break;
        sync_clock(r);
        int64_t d = fake_node_block_deadline(r->node), now = fake_node_time_ms(r->node);
        sim_assert(d >= 0); /* a round's blockers all have a timeout */
        if (d >= now) usleep((useconds_t)(d - now + 15) * 1000);
        sync_clock(r);
        fake_node_block_timeouts(r->node);
        if (check_answers(r, op) != 0) return -1;
    }
    const char *ping[] = {"PING"};
    size_t lens[] = {4};
    for (int i = 0; i < CONFORM_BLOCKERS; i++) {
        sim_reply *fake = fake_exec(r->node, r->fblock[i], 1, ping, lens);
        sim_reply *pong = real_command(r->rblock[i], 1, ping, lens);
        int ok = fake && pong && replies_equal(fake, pong, 0);
        if (!ok) report(r, op, "PING barrier on a blocker connection (an extra reply?)", fake, pong);
        sim_reply_free(fake);
        sim_reply_free(pong);
        if (!ok) return -1;
    }
    return 0;
}

static int prelude(run *r)
{
    static const char *const cmds[][3] = {
        {"FLUSHALL", NULL, NULL},
        {"SCRIPT", "FLUSH", NULL},
        {"EVAL", "math.randomseed(4242)", "0"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int argc = cmds[i][1] == NULL ? 1 : cmds[i][2] == NULL ? 2 : 3;
        size_t lens[3];
        for (int j = 0; j < argc; j++) lens[j] = strlen(cmds[i][j]);
        sim_reply *fake = fake_exec(r->node, r->fmain, argc, cmds[i], lens);
        sim_reply *real = real_command(r->rmain, argc, cmds[i], lens);
        int ok = real && real->type != SIM_REPLY_ERR;
        sim_reply_free(fake);
        sim_reply_free(real);
        if (!ok) {
            fprintf(stderr, "conform: could not reset the server with %s\n", cmds[i][0]);
            return -1;
        }
    }
    /* Blocking commands time out at the server's next pass through its
     * event loop, at least ten times a second (hz): a hundred times, so
     * that a 10 ms timeout costs 10 ms. The fake times out on the dot. */
    const char *hz[] = {"CONFIG", "SET", "hz", "100"};
    size_t hzlens[] = {6, 3, 2, 3};
    sim_reply *real = real_command(r->rmain, 4, hz, hzlens);
    int ok = real && real->type != SIM_REPLY_ERR;
    sim_reply_free(real);
    if (!ok) fprintf(stderr, "conform: could not set the server's hz\n");
    return ok ? 0 : -1;
}

typedef struct family_count {
    const char *name;
    uint64_t n;
} family_count;

static void count_family(family_count *fc, size_t *nfc, size_t cap, const char *name)
{
    if (name == NULL) return;
    for (size_t i = 0; i < *nfc; i++)
        if (strcmp(fc[i].name, name) == 0) {
            fc[i].n++;
            return;
        }
    if (*nfc < cap) fc[(*nfc)++] = (family_count){name, 1};
}

int conform_run(const conform_opts *o)
{
    char err[256];
    run r = {.o = o};
    r.rmain = real_connect(o->host, o->port, 2000, err, sizeof err);
    if (r.rmain) r.rsub = real_connect(o->host, o->port, 2000, err, sizeof err);
    int connected = r.rmain && r.rsub;
    for (int i = 0; i < CONFORM_BLOCKERS && connected; i++)
        connected = (r.rblock[i] = real_connect(o->host, o->port, 2000, err, sizeof err)) != NULL;
    if (!connected) {
        fprintf(stderr, "conform: %s\n", err);
        real_close(r.rmain);
        real_close(r.rsub);
        for (int i = 0; i < CONFORM_BLOCKERS; i++) real_close(r.rblock[i]);
        return 2;
    }
    real_set_timeout(r.rmain, 5000);
    real_set_timeout(r.rsub, 2000);
    r.ctx = sim_new(o->seed);
    r.node = fake_node_new(r.ctx, "fake", NULL);
    r.fmain = fake_conn_new(r.node, NULL, NULL);
    r.fsub = fake_conn_new(r.node, on_push, &r.fpush);
    for (int i = 0; i < CONFORM_BLOCKERS; i++) {
        r.fblock[i] = fake_conn_new(r.node, NULL, NULL);
        real_set_timeout(r.rblock[i], 2000);
    }
    conform_gen *g = conform_gen_new(o->seed, o->all_scripts);
    family_count fams[256];
    size_t nfams = 0;
    int status = prelude(&r) == 0 ? 0 : 2;
    int64_t t0 = host_mono_us();

    for (r.step = 1; status == 0 && r.step <= o->ops; r.step++) {
        conform_op op;
        conform_gen_next(g, &op, fake_conn_subscriptions(r.fsub) > 0);
        count_family(fams, &nfams, 256, op.family);
        if (o->verbose) {
            char buf[512];
            conform_op_format(&op, buf, sizeof buf);
            fprintf(stderr, "%llu: %s\n", (unsigned long long)r.step, buf);
        }
        int rc = 0;
        if (op.target == CONFORM_SLEEP) {
            usleep((useconds_t)op.sleep_ms * 1000);
            r.probes++;
        } else if (op.target == CONFORM_SUB) {
            rc = run_sub(&r, &op);
        } else if (op.target == CONFORM_BLOCKER) {
            rc = run_blocker(&r, &op);
        } else if (op.target == CONFORM_SETTLE) {
            rc = run_settle(&r, &op);
        } else {
            rc = run_main(&r, &op);
        }
        conform_op_clear(&op);
        if (rc != 0) status = 1;
    }
    double secs = (double)(host_mono_us() - t0) / 1e6;
    if (status == 0) {
        printf("conform: %llu ops against %s:%d (seed %llu), 0 divergences; "
               "%zu command/script families, %llu pub/sub messages compared, "
               "%llu expiry probes, %.1fs\n",
               (unsigned long long)o->ops, o->host, o->port, (unsigned long long)o->seed,
               nfams, (unsigned long long)r.messages, (unsigned long long)r.probes, secs);
        if (o->verbose)
            for (size_t i = 0; i < nfams; i++)
                printf("  %-24s %llu\n", fams[i].name, (unsigned long long)fams[i].n);
    }
    pushes_clear(&r.fpush);
    conform_gen_free(g);
    sim_reply_free(r.main_answer);
    fake_conn_free(r.fmain);
    fake_conn_free(r.fsub);
    for (int i = 0; i < CONFORM_BLOCKERS; i++) fake_conn_free(r.fblock[i]);
    fake_node_free(r.node);
    sim_free(r.ctx);
    real_close(r.rmain);
    real_close(r.rsub);
    for (int i = 0; i < CONFORM_BLOCKERS; i++) real_close(r.rblock[i]);
    return status;
}
