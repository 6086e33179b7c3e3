/* bench_evals.c — script evaluation speed, fake vs real, in one run: each
 * workload (a lock's acquire/release cycle as Redisson sends it, EVALSHA of
 * the bundled scripts) on the embedded fake node, then on redis-server over
 * hiredis, pipelined and one at a time. Rounds interleave the two sides, so
 * a slow spell of the machine hits both sides of a ratio alike; each figure
 * is the best of its rounds. One JSON object per workload on stdout.
 *
 * usage: bench_evals HOST PORT [CYCLES [fake-only [WORKLOAD]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "protocols/protocol.h"
#include "sim/fake/fake.h"
#include "sim/kernel/host.h"
#include "sim/real/real.h"

#define PIPELINE 64
#define ROUNDS 5
#define MAX_ARGS 16
#define MAX_CMDS 3

#define LOCK_ID "3f6c1b2e-8c4d-4d4e-9a0b-0c1d2e3f4a5b:1"

/* One command of a cycle: its words, and the reply it must get. */
typedef struct cmd {
    int argc;
    const char *argv[MAX_ARGS];
    size_t lens[MAX_ARGS];
    int want;    /* SIM_REPLY_* of a good reply */
    int evalsha; /* counts as an eval */
} cmd;

typedef struct workload {
    const char *name, *what;
    int cleanup; /* the unlock's latch key is deleted after each cycle */
    int fair;
    cmd c[MAX_CMDS];
    int ncmds, evals;
    int built;   /* the words are set; a cycle rewrites the latch's digits */
    char latch[64], acq_sha[41], rel_sha[41];
} workload;

static void words(cmd *c, int want, int evalsha, int argc, const char *const *argv)
{
    c->argc = argc;
    c->want = want;
    c->evalsha = evalsha;
    for (int i = 0; i < argc; i++) {
        c->argv[i] = argv[i];
        c->lens[i] = strlen(argv[i]);
    }
}

#define LATCH_PREFIX "redisson_unlock_latch:{lock}:"

/* The commands of cycle i (each unlock has its own latch key, as each of
 * Redisson's unlock requests does). The words are set once; the latch's
 * 16 hex digits change in place (its length does not), so the loop times
 * the store, not this harness. */
static void build(workload *w, uint64_t i)
{
    char *digits = w->latch + sizeof LATCH_PREFIX - 1;
    for (int k = 15; k >= 0; k--, i >>= 4) digits[k] = "0123456789abcdef"[i & 15];
    digits[16] = '\0';
    if (w->built) return;
    w->built = 1;
    memcpy(w->latch, LATCH_PREFIX, sizeof LATCH_PREFIX - 1);
    if (w->fair) {
        const char *acq[] = {"EVALSHA", w->acq_sha, "3", "lock", "redisson_lock_queue:{lock}",
                             "redisson_lock_timeout:{lock}", "30000", LOCK_ID, "300000", "1000"};
        const char *rel[] = {"EVALSHA", w->rel_sha, "5", "lock", "redisson_lock_queue:{lock}",
                             "redisson_lock_timeout:{lock}", "redisson_lock__channel:{lock}", w->latch,
                             "0", "30000", LOCK_ID, "1000", "publish", "16000"};
        words(&w->c[0], SIM_REPLY_NIL, 1, 10, acq);
        words(&w->c[1], SIM_REPLY_INT, 1, 14, rel);
    } else {
        const char *acq[] = {"EVALSHA", w->acq_sha, "1", "lock", "30000", LOCK_ID};
        const char *rel[] = {"EVALSHA", w->rel_sha, "3", "lock", "redisson_lock__channel:{lock}", w->latch,
                             "0", "30000", LOCK_ID, "publish", "16000"};
        words(&w->c[0], SIM_REPLY_NIL, 1, 6, acq);
        words(&w->c[1], SIM_REPLY_INT, 1, 11, rel);
    }
    const char *del[] = {"DEL", w->latch};
    words(&w->c[2], SIM_REPLY_INT, 0, 2, del);
    w->ncmds = w->cleanup ? 3 : 2;
}

static int check(const sim_reply *r, const cmd *c, const char *where)
{
    if (r && (int)r->type == c->want) return 1;
    char buf[256] = "(no reply)";
    if (r) sim_reply_format(r, buf, sizeof buf);
    fprintf(stderr, "bench: unexpected reply on %s %s: %s\n", where, c->argv[0], buf);
    return 0;
}

static void load_fake(fake_node *n, fake_conn *c, const char *name)
{
    const cl_script *t = proto_script_find(name);
    const char *argv[] = {"SCRIPT", "LOAD", t->text};
    size_t lens[] = {6, 4, t->len};
    sim_reply_free(fake_exec(n, c, 3, argv, lens));
}

/* Evals per second on the fake. */
static double bench_fake(workload *w, const char *acq, const char *rel, uint64_t cycles)
{
    sim_ctx *ctx = sim_new(1);
    fake_node *n = fake_node_new(ctx, "redis0", NULL);
    fake_conn *c = fake_conn_new(n, NULL, NULL);
    load_fake(n, c, acq);
    load_fake(n, c, rel);
    int64_t t0 = host_mono_us();
    for (uint64_t i = 0; i < cycles; i++) {
        build(w, i);
        for (int k = 0; k < w->ncmds; k++) {
            sim_reply *r = fake_exec(n, c, w->c[k].argc, w->c[k].argv, w->c[k].lens);
            int ok = check(r, &w->c[k], "fake");
            sim_reply_free(r);
            if (!ok) exit(1);
        }
    }
    double secs = (double)(host_mono_us() - t0) / 1e6;
    fake_conn_free(c);
    fake_node_free(n);
    sim_free(ctx);
    return (double)w->evals * (double)cycles / secs;
}

static real_conn *connect_or_die(const char *host, int port)
{
    char err[256];
    real_conn *c = real_connect(host, port, 2000, err, sizeof err);
    if (c == NULL) {
        fprintf(stderr, "bench: %s\n", err);
        exit(2);
    }
    return c;
}

static void load_real(real_conn *c, const char *acq, const char *rel)
{
    const char *names[] = {acq, rel};
    for (int i = 0; i < 2; i++) {
        const cl_script *t = proto_script_find(names[i]);
        const char *argv[] = {"SCRIPT", "LOAD", t->text};
        size_t lens[] = {6, 4, t->len};
        sim_reply_free(real_command(c, 3, argv, lens));
    }
    const char *flush[] = {"FLUSHALL"};
    size_t fl[] = {8};
    sim_reply_free(real_command(c, 1, flush, fl));
}

/* Evals per second on redis-server, depth commands' cycles in flight. */
static double bench_real(workload *w, const char *acq, const char *rel, const char *host, int port,
                         uint64_t cycles, int depth)
{
    real_conn *c = connect_or_die(host, port);
    load_real(c, acq, rel);
    int64_t t0 = host_mono_us();
    for (uint64_t i = 0; i < cycles; i += (uint64_t)depth) {
        uint64_t batch = cycles - i < (uint64_t)depth ? cycles - i : (uint64_t)depth;
        for (uint64_t k = 0; k < batch; k++) {
            build(w, i + k);
            for (int j = 0; j < w->ncmds; j++) real_append(c, w->c[j].argc, w->c[j].argv, w->c[j].lens);
        }
        for (uint64_t k = 0; k < batch; k++)
            for (int j = 0; j < w->ncmds; j++) {
                sim_reply *r = real_get_reply(c);
                int ok = check(r, &w->c[j], "redis-server");
                sim_reply_free(r);
                if (!ok) exit(1);
            }
    }
    double secs = (double)(host_mono_us() - t0) / 1e6;
    real_close(c);
    return (double)w->evals * (double)cycles / secs;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_evals HOST PORT [CYCLES [fake-only]]\n");
        return 2;
    }
    const char *host = argv[1];
    int port = atoi(argv[2]);
    uint64_t cycles = argc > 3 ? strtoull(argv[3], NULL, 10) : 200000;
    int fake_only = argc > 4 && strcmp(argv[4], "fake-only") == 0;
    const char *only = argc > 5 ? argv[5] : NULL; /* one workload (profiling) */
    static workload w[] = {
        {.name = "reentrant", .what = "reentrant lock acquire + release (+ DEL of the unlock latch, as Redisson does)",
         .cleanup = 1},
        {.name = "reentrant-no-del", .what = "reentrant lock acquire + release (unlock latch keys left to pile up)"},
        {.name = "fair", .what = "fair lock acquire (FAIR_ACQUIRE_Q) + release (+ DEL of the unlock latch)",
         .cleanup = 1, .fair = 1},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        if (only && strcmp(only, w[i].name) != 0) continue;
        const char *acq = w[i].fair ? "fair_acquire" : "lock_acquire";
        const char *rel = w[i].fair ? "fair_unlock" : "lock_unlock";
        snprintf(w[i].acq_sha, sizeof w[i].acq_sha, "%s", proto_script_find(acq)->sha);
        snprintf(w[i].rel_sha, sizeof w[i].rel_sha, "%s", proto_script_find(rel)->sha);
        w[i].evals = 2;
        double fake = 0, piped = 0, single = 0;
        for (int r = 0; r < ROUNDS; r++) {
            double f = bench_fake(&w[i], acq, rel, cycles);
            if (f > fake) fake = f;
            if (fake_only) continue;
            double x = bench_real(&w[i], acq, rel, host, port, cycles, PIPELINE);
            double y = bench_real(&w[i], acq, rel, host, port, cycles / 8, 1);
            if (x > piped) piped = x;
            if (y > single) single = y;
        }
        printf("{\"workload\":\"%s\",\"what\":\"%s\",\"cycles\":%llu,\"rounds\":%d,\"fake_evals_per_s\":%.0f,"
               "\"redis_pipelined_evals_per_s\":%.0f,\"redis_single_evals_per_s\":%.0f,\"peak_rss_kb\":%ld}\n",
               w[i].name, w[i].what, (unsigned long long)cycles, ROUNDS, fake, piped, single, peak_rss_kb());
        fflush(stdout);
    }
    return 0;
}
