/* bench_evals.c — script evaluation speed, fake vs real, in one run: the
 * reentrant lock's acquire/release pair (EVALSHA) on the embedded fake node,
 * then on redis-server over hiredis, pipelined and one at a time, printed
 * side by side with the ratios.
 *
 * usage: bench_evals HOST PORT [PAIRS [fake-only]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake/fake.h"
#include "protocols/protocol.h"
#include "real/real.h"

#define PIPELINE 64
#define REPEAT 5 /* each figure is the best of REPEAT runs (least disturbed) */

typedef struct pair_args {
    char acquire_sha[41], unlock_sha[41];
    char latch[64];
    int cleanup; /* follow each unlock with Redisson's DEL of its latch key */
    const char *del[2];
    size_t del_len[2];
    const char *acq[6];
    size_t acq_len[6];
    const char *rel[11];
    size_t rel_len[11];
} pair_args;

static void lens_of(const char **argv, size_t *lens, int n)
{
    for (int i = 0; i < n; i++) lens[i] = strlen(argv[i]);
}

/* The two EVALSHA commands of one lock/unlock, unlock request i. */
static void build(pair_args *p, uint64_t i)
{
    snprintf(p->latch, sizeof p->latch, "redisson_unlock_latch:{lock}:%016llx",
             (unsigned long long)i);
    const char *acq[6] = {"EVALSHA", p->acquire_sha, "1", "lock", "30000",
                          "3f6c1b2e-8c4d-4d4e-9a0b-0c1d2e3f4a5b:1"};
    const char *rel[11] = {"EVALSHA", p->unlock_sha, "3", "lock",
                           "redisson_lock__channel:{lock}", p->latch, "0", "30000",
                           "3f6c1b2e-8c4d-4d4e-9a0b-0c1d2e3f4a5b:1", "publish", "16000"};
    memcpy(p->acq, acq, sizeof acq);
    memcpy(p->rel, rel, sizeof rel);
    lens_of(p->acq, p->acq_len, 6);
    lens_of(p->rel, p->rel_len, 11);
    p->del[0] = "DEL";
    p->del[1] = p->latch;
    lens_of(p->del, p->del_len, 2);
}

static int check(const sim_reply *r, int want_nil, const char *where)
{
    int ok = r && (want_nil ? r->type == SIM_REPLY_NIL : r->type == SIM_REPLY_INT);
    if (!ok) {
        char buf[256] = "(no reply)";
        if (r) sim_reply_format(r, buf, sizeof buf);
        fprintf(stderr, "bench: unexpected reply on %s: %s\n", where, buf);
    }
    return ok;
}

static double bench_fake(pair_args *p, uint64_t pairs)
{
    sim_ctx *ctx = sim_new(1);
    fake_node *n = fake_node_new(ctx, "redis0");
    fake_conn *c = fake_conn_new(n, NULL, NULL);
    const proto_script_text *a = proto_script_find("lock_acquire");
    const proto_script_text *u = proto_script_find("lock_unlock");
    const char *load_a[] = {"SCRIPT", "LOAD", a->text};
    const char *load_u[] = {"SCRIPT", "LOAD", u->text};
    size_t la[] = {6, 4, a->len}, lu[] = {6, 4, u->len};
    sim_reply_free(fake_exec(n, c, 3, load_a, la));
    sim_reply_free(fake_exec(n, c, 3, load_u, lu));
    int64_t t0 = real_mono_us();
    for (uint64_t i = 0; i < pairs; i++) {
        build(p, i);
        sim_reply *r1 = fake_exec(n, c, 6, p->acq, p->acq_len);
        sim_reply *r2 = fake_exec(n, c, 11, p->rel, p->rel_len);
        if (p->cleanup) sim_reply_free(fake_exec(n, c, 2, p->del, p->del_len));
        int ok = check(r1, 1, "fake acquire") && check(r2, 0, "fake unlock");
        sim_reply_free(r1);
        sim_reply_free(r2);
        if (!ok) exit(1);
    }
    double secs = (double)(real_mono_us() - t0) / 1e6;
    fake_conn_free(c);
    fake_node_free(n);
    sim_free(ctx);
    return 2.0 * (double)pairs / secs;
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

static void load_scripts(real_conn *c)
{
    const char *names[] = {"lock_acquire", "lock_unlock"};
    for (int i = 0; i < 2; i++) {
        const proto_script_text *t = proto_script_find(names[i]);
        const char *argv[] = {"SCRIPT", "LOAD", t->text};
        size_t lens[] = {6, 4, t->len};
        sim_reply_free(real_command(c, 3, argv, lens));
    }
    const char *flush[] = {"FLUSHALL"};
    size_t fl[] = {8};
    sim_reply_free(real_command(c, 1, flush, fl));
}

static double bench_real(pair_args *p, const char *host, int port, uint64_t pairs, int depth)
{
    real_conn *c = connect_or_die(host, port);
    load_scripts(c);
    int64_t t0 = real_mono_us();
    for (uint64_t i = 0; i < pairs; i += (uint64_t)depth) {
        uint64_t batch = pairs - i < (uint64_t)depth ? pairs - i : (uint64_t)depth;
        for (uint64_t k = 0; k < batch; k++) {
            build(p, i + k);
            real_append(c, 6, p->acq, p->acq_len);
            real_append(c, 11, p->rel, p->rel_len);
            if (p->cleanup) real_append(c, 2, p->del, p->del_len);
        }
        for (uint64_t k = 0; k < batch; k++) {
            sim_reply *r1 = real_get_reply(c);
            sim_reply *r2 = real_get_reply(c);
            if (p->cleanup) sim_reply_free(real_get_reply(c));
            int ok = check(r1, 1, "real acquire") && check(r2, 0, "real unlock");
            sim_reply_free(r1);
            sim_reply_free(r2);
            if (!ok) exit(1);
        }
    }
    double secs = (double)(real_mono_us() - t0) / 1e6;
    real_close(c);
    return 2.0 * (double)pairs / secs;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_evals HOST PORT [PAIRS]\n");
        return 2;
    }
    const char *host = argv[1];
    int port = atoi(argv[2]);
    uint64_t pairs = argc > 3 ? strtoull(argv[3], NULL, 10) : 200000;
    pair_args p;
    fake_sha1hex(proto_script_find("lock_acquire")->text, proto_script_find("lock_acquire")->len,
                 p.acquire_sha);
    fake_sha1hex(proto_script_find("lock_unlock")->text, proto_script_find("lock_unlock")->len,
                 p.unlock_sha);

    for (int cleanup = 1; cleanup >= 0; cleanup--) {
        p.cleanup = cleanup;
        double fake = 0, piped = 0, single = 0;
        int fake_only = argc > 4 && strcmp(argv[4], "fake-only") == 0;
        /* Rounds interleave the fake and the server, so a slow spell of
         * the machine hits both sides of the ratio alike. */
        for (int r = 0; r < REPEAT; r++) {
            double f = bench_fake(&p, pairs);
            if (f > fake) fake = f;
            if (fake_only) continue;
            double x = bench_real(&p, host, port, pairs, PIPELINE);
            double y = bench_real(&p, host, port, pairs / 8, 1);
            if (x > piped) piped = x;
            if (y > single) single = y;
        }
        if (fake_only) {
            printf("fake%s: %.0f evals/s\n", cleanup ? "" : " (latch keys kept)", fake);
            continue;
        }
        printf("reentrant lock acquire + release (2 EVALSHA%s), %llu cycles\n",
               cleanup ? " + DEL of the unlock latch, as Redisson does"
                       : "; latch keys left to pile up",
               (unsigned long long)pairs);
        printf("  %-34s %12.0f evals/s  %6.2f us/eval\n", "fake (embedded Lua 5.1)", fake,
               1e6 / fake);
        printf("  %-34s %12.0f evals/s  %6.2f us/eval   fake/real %5.2fx\n",
               "redis-server, pipelined 64", piped, 1e6 / piped, fake / piped);
        printf("  %-34s %12.0f evals/s  %6.2f us/eval   fake/real %5.2fx\n",
               "redis-server, one at a time", single, 1e6 / single, fake / single);
    }
    return 0;
}
