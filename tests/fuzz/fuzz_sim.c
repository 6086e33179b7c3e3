/* fuzz_sim.c — fuzz target: the simulator itself. The input bytes drive a
 * generator that writes a random but valid scenario as text (a protocol
 * of the catalogue with a version and a seed, [redis], [clients], [steps],
 * every kind of fault, [nemesis] and swarm, [expect]), parsed by the real parser and
 * run for a few virtual seconds through the engine the CLI uses, twice:
 * the simulator must not crash, trip an assertion or leak, and both runs
 * must give the same trace hash (else abort). Text the parser refuses is
 * skipped; LOCKSIM_FUZZ_STATS=1 prints how much it refuses, and why,
 * LOCKSIM_FUZZ_PRINT=1 each scenario before it runs.
 *
 * An input that starts with '[' is scenario text itself, run as it is
 * when it is small (SMALL_* below): what the generator wrote for a crash
 * is kept that way as a regression (tests/fuzz/regressions/sim), readable,
 * and meaning the same whatever the generator becomes. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "sim/engine/run.h"
#include "sim/scn/scn.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* ------------------------------------------------------------ the input */

/* The input as a stream of choices; past its end every choice is 0, and
 * 0 is the common case: a short input makes a plain scenario. */
typedef struct src {
    const unsigned char *p;
    size_t n, at;
} src;

/* A choice in [0, n): one byte, or two when n is above 256. */
static unsigned pick(src *s, unsigned n)
{
    if (n <= 1) return 0;
    unsigned v = s->at < s->n ? s->p[s->at++] : 0;
    if (n > 256) v = v << 8 | (s->at < s->n ? s->p[s->at++] : 0);
    return v % n;
}

/* 1 with chance 1 in n (never past the input's end). */
static int one_in(src *s, unsigned n)
{
    return pick(s, n) == n - 1;
}

/* ------------------------------------------------------------- the text */

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < t->cap - t->len) {
            t->len += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + (k > 0 ? (size_t)k : 0);
        t->buf = realloc(t->buf, t->cap);
        if (t->buf == NULL) abort();
    }
}

/* A duration up to max_ms as text: mostly whole ms, sometimes µs or s;
 * rarely hours, or the largest durations the parser takes, to probe the
 * arithmetic. */
static void put_dur(text *t, src *s, unsigned max_ms)
{
    /* the largest the parser takes (SCN_DURATION_MAX), and one above */
    static const char *const huge[] = {"277777h", "1000000000000000us", "277777.777777h", "16666667m"};
    unsigned k = pick(s, 64);
    if (k < 58) put(t, "%ums", pick(s, max_ms + 1));
    else if (k == 58) put(t, "%uus", pick(s, max_ms * 1000 + 1 > 65536 ? 65536 : max_ms * 1000 + 1));
    else if (k < 62) put(t, "%us", pick(s, max_ms / 1000 + 2));
    else if (k == 62) put(t, "%uh", 1 + pick(s, 48));
    else put(t, "%s", huge[pick(s, 4)]);
}

/* A distribution of durations below max_ms: constant, uniform or
 * exponential. */
static void put_dist(text *t, src *s, unsigned max_ms)
{
    unsigned a = pick(s, max_ms + 1), b = pick(s, max_ms + 1);
    switch (pick(s, 4)) {
    case 3: put(t, "%ums", a); break;
    case 2: put(t, "exp(%ums)", a ? a : 1); break;
    default: put(t, "%ums..%ums", a < b ? a : b, a < b ? b : a); break;
    }
}

static void put_prob(text *t, src *s)
{
    static const char *const probs[] = {"0", "0.01", "0.1", "0.25", "0.5", "1", "30%", "0.999999", "100%"};
    put(t, "%s", probs[pick(s, sizeof probs / sizeof probs[0])]);
}

static void put_bool(text *t, src *s)
{
    static const char *const b[] = {"yes", "no", "true", "false", "on", "off", "1", "0"};
    put(t, "%s", b[pick(s, 8)]);
}

/* "name = <value>" lines of each kind. */
static void key_bool(text *t, src *s, const char *name)
{
    put(t, "%s = ", name);
    put_bool(t, s);
    put(t, "\n");
}

static void key_dur(text *t, src *s, const char *name, unsigned max_ms)
{
    put(t, "%s = ", name);
    put_dur(t, s, max_ms);
    put(t, "\n");
}

static void key_dist(text *t, src *s, const char *name, unsigned max_ms)
{
    put(t, "%s = ", name);
    put_dist(t, s, max_ms);
    put(t, "\n");
}

static void key_prob(text *t, src *s, const char *name)
{
    put(t, "%s = ", name);
    put_prob(t, s);
    put(t, "\n");
}

/* ------------------------------------------------------- the catalogue */

enum kind { P_LOCK, P_FAIR, P_RW, P_SEM, P_LATCH, P_MULTI, P_BASE, P_POLICY, P_POLICY3 };

/* The protocols and a few releases each: the releases a process resolves
 * are kept for its life (32 at most), so the list stays short. */
static const struct proto {
    const char *name;
    enum kind kind;
} protos[] = {
    {"redisson.lock", P_LOCK},          {"redisson.lock@2019", P_LOCK},
    {"redisson.lock@3.11", P_LOCK},     {"redisson.lock@3.12.5", P_LOCK},
    {"redisson.lock@3.17.1", P_LOCK},   {"redisson.lock@3.19", P_LOCK},
    {"redisson.lock@3.23", P_LOCK},     {"redisson.lock@3.24", P_LOCK},
    {"redisson.lock@3.37", P_LOCK},     {"redisson.lock@3.44", P_LOCK},
    {"redisson.lock@3.48", P_LOCK},     {"redisson.lock@4.7", P_LOCK},
    {"redisson.fencedlock", P_LOCK},    {"redisson.fencedlock@3.19", P_LOCK},
    {"redisson.fairlock", P_FAIR},      {"redisson.fairlock@3.13.2", P_FAIR},
    {"redisson.fairlock@3.11", P_FAIR}, {"redisson.fairlock@3.32", P_FAIR},
    {"redisson.fairlock@4.7", P_FAIR},  {"redisson.spinlock", P_LOCK},
    {"redisson.spinlock@3.15", P_LOCK}, {"redisson.spinlock@3.44", P_LOCK},
    {"redisson.multilock", P_MULTI},    {"redisson.multilock@3.11", P_MULTI},
    {"redisson.redlock", P_MULTI},      {"redisson.redlock@4.7", P_MULTI},
    {"redisson.rwlock", P_RW},          {"redisson.rwlock@3.11", P_RW},
    {"redisson.semaphore", P_SEM},      {"redisson.semaphore@3.12", P_SEM},
    {"redisson.semaphore@3.16.1", P_SEM}, {"redisson.semaphore@3.16.4", P_SEM},
    {"redisson.expirable-semaphore", P_SEM}, {"redisson.expirable-semaphore@3.16.3", P_SEM},
    {"redisson.expirable-semaphore@3.23.4", P_SEM}, {"redisson.expirable-semaphore@3.50", P_SEM},
    {"redisson.latch", P_LATCH},        {"redisson.latch@3.24.0", P_LATCH},
    {"baseline.setnx", P_BASE},
    {"baseline.cad", P_BASE},           {"redis-py@5.0", P_POLICY},
    {"redis-py", P_POLICY},             {"spring-lockregistry@6.4", P_POLICY},
    {"spring-lockregistry@5.5", P_POLICY}, {"spring-lockregistry-pubsub@6.4", P_POLICY},
    {"textbook-get-del", P_POLICY},     {"textbook-lease", P_POLICY},
    {"textbook-setnx-expire", P_POLICY}, {"node-redlock@5.0.0-beta.2", P_POLICY3},
    {"redsync@4", P_POLICY3},
};

#define NPROTOS (sizeof protos / sizeof protos[0])

/* The lock names a [protocol] locks list gives (without one, the lock
 * is "lock"). */
static const char *const lock_names[] = {"a", "b{x}", "lock"};

/* What the generator knows of the scenario it writes. */
typedef struct gen {
    src *s;
    text *t;
    enum kind kind;
    int nodes, replicas, clients, nlocks, members;
    int max_client;  /* clients of [clients] and of the [steps] operations */
    unsigned dur_ms; /* the run's duration */
} gen;

/* ----------------------------------------------------------- sections */

static void gen_scenario(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    g->dur_ms = 100 + pick(s, 1901);
    put(t, "[scenario]\nduration = %ums\nseed = %u\n", g->dur_ms, pick(s, 65536));
    /* The drain goes on while a thread is busy: a short one. */
    if (!one_in(s, 64)) put(t, "drain = %ums\n", pick(s, 1501));
    if (one_in(s, 4)) put(t, "name = fuzz %u\n", pick(s, 100));
}

static void gen_redis(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    g->nodes = 1 + (int)pick(s, 3);
    if (g->kind == P_POLICY3 && g->nodes < 3) g->nodes = 3;
    g->replicas = (int)pick(s, 3);
    put(t, "[redis]\nnodes = %d\nreplicas = %d\n", g->nodes, g->replicas);
    /* Latency must average above 0 (one in 128 does not); a network far
     * faster than a real one makes a client polling a lock spin a million
     * times in a second: 20us at least. */
    if (!one_in(s, 3)) {
        put(t, "latency = ");
        if (one_in(s, 128)) put(t, "0ms");
        else {
            unsigned a = 20 + pick(s, 2000);
            put(t, "%uus..%uus", a, a + pick(s, 5000));
        }
        put(t, "\n");
    }
    if (!one_in(s, 3)) key_dist(t, s, "replication-lag", 20);
    if (one_in(s, 2)) key_bool(t, s, "persistence");
    if (one_in(s, 2)) put(t, "down-after = %ums\n", 1 + pick(s, 3000));
    if (one_in(s, 2)) key_dur(t, s, "discovery", 2000);
}

static void gen_protocol(gen *g, const struct proto *pr)
{
    src *s = g->s;
    text *t = g->t;
    put(t, "[protocol]\nname = %s\n", pr->name);
    if (one_in(s, 2)) {
        if (one_in(s, 3)) put(t, "lease = %s\n", one_in(s, 2) ? "-1" : "watchdog");
        else key_dur(t, s, "lease", 5000);
    }
    if (one_in(s, 2)) key_dur(t, s, "wait", 3000);
    if (one_in(s, 3)) put(t, "mode = %s\n", one_in(s, 2) ? "lock" : "trylock");
    if (one_in(s, 3)) put(t, "watchdog-timeout = %ums\n", 3 + pick(s, 10000));
    if (one_in(s, 3)) put(t, "timeout = %ums\n", 1 + pick(s, 5000));
    if (one_in(s, 4)) put(t, "retry-attempts = %u\n", pick(s, 6));
    if (one_in(s, 4)) key_dur(t, s, "retry-interval", 2000); /* below 1ms: refused */
    if (one_in(s, 4)) put(t, "poll = %ums\n", 1 + pick(s, 500));
    if (g->kind == P_BASE && one_in(s, 2)) {
        static const char *const modes[] = {"separate", "none", "atomic"};
        put(t, "expire-mode = %s\n", modes[pick(s, 3)]);
    }
    /* locks x (1 + members) keys: at most 16 (more is refused) */
    g->members = g->kind == P_MULTI || one_in(s, 8) ? 1 + (int)pick(s, 7) : 0;
    if (g->members) put(t, "members = %d\n", g->members);
    if (one_in(s, 4)) key_bool(t, s, "member-rotate");
    if (one_in(s, 4)) key_bool(t, s, "renew");
    if (one_in(s, 3)) key_bool(t, s, "synced");
    if (one_in(s, 4)) put(t, "thread-wait-time = %ums\n", 1 + pick(s, 10000));
    g->nlocks = 1;
    if (one_in(s, 3)) {
        g->nlocks = 1 + (int)pick(s, 3);
        while (g->kind == P_MULTI && g->nlocks > 1 && g->nlocks * (1 + g->members) > 16 && !one_in(s, 64))
            g->nlocks--;
        put(t, "locks = ");
        for (int i = 0; i < g->nlocks; i++) put(t, "%s%s", i ? ", " : "", lock_names[i]);
        put(t, "\n");
    }
    if (g->kind == P_SEM || one_in(s, 8)) put(t, "permits = %u\n", pick(s, 6));
    if (g->kind == P_LATCH || one_in(s, 8)) put(t, "count = %u\n", pick(s, 6));
}

static void gen_clients(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    g->clients = (int)pick(s, 5);
    put(t, "[clients]\ncount = %d\n", g->clients);
    if (!one_in(s, 3)) put(t, "threads = %u\n", 1 + pick(s, 3));
    static const char *const keys[] = {"hold", "think", "start"};
    for (int i = 0; i < 3; i++)
        if (!one_in(s, 3)) key_dist(t, s, keys[i], i == 2 ? 500 : 300);
    if (one_in(s, 3)) key_prob(t, s, "reentry");
    if (one_in(s, 3)) put(t, "reentry-depth = %u\n", 1 + pick(s, 4));
    if (one_in(s, 3)) put(t, "ops = %u\n", pick(s, 12));
    if (g->kind == P_RW || one_in(s, 8)) key_prob(t, s, "read-ratio");
    if (g->kind == P_SEM || g->kind == P_LATCH || one_in(s, 8))
        if (one_in(s, 3)) key_bool(t, s, "async");
    if (g->kind == P_SEM || one_in(s, 8)) {
        unsigned a = 1 + pick(s, 3);
        if (one_in(s, 2)) put(t, "permits = %u\n", a);
        else put(t, "permits = %u..%u\n", a, a + pick(s, 3));
    }
    /* re-entries on the other side (refused where there are no sides),
     * their release order, a lease per acquire (one that averages under
     * 1ms is refused), a failed release retried */
    if ((g->kind == P_RW || one_in(s, 16)) && one_in(s, 2)) key_prob(t, s, "switch");
    if (one_in(s, 3)) key_prob(t, s, "release-fifo");
    if (one_in(s, 4)) key_dist(t, s, "lease", 3000);
    if (one_in(s, 4)) key_bool(t, s, "retry-unlock");
    if ((g->kind == P_SEM || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "addpermits"); /* refused without it */
    if ((g->kind == P_LATCH || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "rearm"); /* refused elsewhere */
    if ((g->kind == P_SEM || one_in(s, 16)) && one_in(s, 4)) /* refused without addpermits, or at 0 */
        put(t, "lend = %u..%u\n", pick(s, 3), 2 + pick(s, 3));
}

/* A time within the run. */
static void put_at(gen *g)
{
    put(g->t, "at = %ums", pick(g->s, g->dur_ms + 1));
}

static const char *lock_of(gen *g)
{
    return g->nlocks > 1 || one_in(g->s, 4) ? lock_names[pick(g->s, (unsigned)g->nlocks)] : NULL;
}

/* One client operation line of [steps]. */
static void gen_op(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    static const char *const lockops[] = {"lock", "trylock", "unlock", "forceunlock", "islocked",
                                          "held", "holdcount", "write", "lock", "unlock"};
    static const char *const latchops[] = {"countdown", "await", "getcount", "trysetcount"};
    static const char *const semops[] = {"addpermits", "trysetpermits", "drainpermits", "availablepermits",
                                         "updatelease"};
    static const char *const all[] = {"lock",      "trylock",     "unlock",        "forceunlock",
                                      "islocked",  "held",        "holdcount",     "write",
                                      "countdown", "await",       "getcount",      "addpermits",
                                      "trysetpermits", "drainpermits", "availablepermits", "updatelease",
                                      "trysetcount"};
    const char *op = g->kind == P_LATCH ? latchops[pick(s, 4)] : lockops[pick(s, 10)];
    if (g->kind == P_SEM && one_in(s, 3)) op = semops[pick(s, 5)];
    if (one_in(s, 32)) op = all[pick(s, 17)]; /* mostly one the protocol refuses */
    int client = 1 + (int)pick(s, 5);
    if (client > g->max_client) g->max_client = client;
    put_at(g);
    if (one_in(s, 2)) put(t, " c%d", client);
    else put(t, " c%d.t%u", client, 1 + pick(s, 3));
    put(t, " %s", op);
    int takes_wait = !strcmp(op, "trylock") || !strcmp(op, "await");
    int takes_lease = !strcmp(op, "lock") || !strcmp(op, "trylock");
    int takes_arg = takes_lease || !strcmp(op, "unlock");
    int counts = !strcmp(op, "addpermits") || !strcmp(op, "trysetpermits");
    if (takes_wait && !one_in(s, 4)) {
        put(t, " wait=");
        put_dur(t, s, 2000);
    }
    if (takes_lease && one_in(s, 3)) {
        if (one_in(s, 3)) put(t, " lease=-1");
        else {
            put(t, " lease=");
            put_dur(t, s, 3000);
        }
    }
    if (takes_arg && (g->kind == P_RW || one_in(s, 8))) put(t, " mode=%s", one_in(s, 2) ? "read" : "write");
    if (takes_arg && (g->kind == P_SEM || one_in(s, 8)) && one_in(s, 2)) put(t, " permits=%u", 1 + pick(s, 3));
    /* addpermits takes a count that may be negative, not 0 (refused) */
    if (counts && !one_in(s, 16)) {
        int n = 1 + (int)pick(s, 4); /* trysetpermits: from 1 */
        put(t, " permits=%d", op[0] == 'a' && one_in(s, 2) ? -n : n);
    }
    if (!strcmp(op, "trysetcount") && !one_in(s, 16)) put(t, " count=%u", pick(s, 4)); /* count=0: refused */
    if (!strcmp(op, "updatelease") && !one_in(s, 16)) {
        put(t, " lease=");
        put_dur(t, s, 3000);
    }
    /* the async API: the semaphores' and the latch's waits (elsewhere refused) */
    if ((takes_wait || takes_lease) && ((g->kind == P_SEM || g->kind == P_LATCH) ? one_in(s, 4) : one_in(s, 64)))
        put(t, " api=%s", one_in(s, 3) ? "sync" : "async");
    const char *lock = lock_of(g);
    if (lock) put(t, " lock=%s", lock);
    put(t, "\n");
}

/* A node's name: a master or a replica. */
static void put_node(gen *g)
{
    int group = (int)pick(g->s, (unsigned)g->nodes), k = (int)pick(g->s, (unsigned)g->replicas + 1);
    if (k == 0) put(g->t, "redis%d", group);
    else put(g->t, "redis%d.r%d", group, k);
}

static void put_client(gen *g)
{
    put(g->t, one_in(g->s, 2) ? "c%u" : "%u", 1 + pick(g->s, (unsigned)g->max_client));
}

/* One endpoint of a partition side or a link. */
static void put_endpoint(gen *g, int in_side)
{
    switch (pick(g->s, in_side ? 5 : 3)) {
    case 0: put_node(g); break;
    case 1: put(g->t, "c%u", 1 + pick(g->s, (unsigned)g->max_client)); break;
    case 2: put(g->t, "group%u", pick(g->s, (unsigned)g->nodes)); break;
    case 3: put(g->t, "clients"); break;
    default: put(g->t, "nodes"); break;
    }
}

static void put_side(gen *g)
{
    int n = 1 + (int)pick(g->s, 3);
    for (int i = 0; i < n; i++) {
        if (i) put(g->t, ",");
        put_endpoint(g, 1);
    }
}

static void put_for(gen *g, int always)
{
    if (always || one_in(g->s, 2)) {
        put(g->t, " for=");
        put(g->t, "%ums", 1 + pick(g->s, 3000));
    }
}

/* A client or a node as the target of crash, restart, pause. */
static void put_target(gen *g)
{
    if (one_in(g->s, 2)) {
        put(g->t, " client=");
        put_client(g);
    } else {
        put(g->t, " node=");
        put_node(g);
    }
}

static void put_signed(gen *g)
{
    put(g->t, "%s", one_in(g->s, 2) ? "-" : (one_in(g->s, 2) ? "+" : ""));
    put_dur(g->t, g->s, 60000);
}

/* One fault line (after "at = T"). */
static void gen_fault(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    put_at(g);
    switch (pick(s, 15)) {
    case 0:
        put(t, " crash");
        if (one_in(s, 4)) { /* armed, it strikes at the client's next reply */
            put(t, " client=");
            put_client(g);
            put(t, " on=%s", one_in(s, 4) ? "time" : "reply");
        } else {
            put_target(g);
        }
        break;
    case 1: put(t, " restart"); put_target(g); break;
    case 2: put(t, " pause"); put_target(g); put_for(g, 1); break;
    case 3:
        put(t, " clock");
        switch (pick(s, 3)) {
        case 0: put(t, " node="); put_node(g); break;
        case 1: put(t, " node=c%u", 1 + pick(s, (unsigned)g->max_client)); break;
        default: put(t, " client="); put_client(g); break;
        }
        switch (pick(s, 3)) {
        case 0: put(t, " offset="); put_signed(g); break;
        case 1: put(t, " jump="); put_signed(g); break;
        default: put(t, " drift=%s%uppm", one_in(s, 2) ? "-" : "+", one_in(s, 8) ? pick(s, 1000000) : pick(s, 200001)); break;
        }
        break;
    case 4:
        put(t, " partition ");
        put_side(g);
        put(t, one_in(s, 3) ? "->" : "|");
        put_side(g);
        put_for(g, 0);
        break;
    case 5: put(t, " heal"); break;
    case 6:
    case 7: {
        int delay = pick(s, 2);
        put(t, delay ? " delay link=" : " drop link=");
        put_endpoint(g, 0);
        put(t, "-");
        put_endpoint(g, 0);
        if (delay) put(t, " by=%ums", 1 + pick(s, 2000));
        else put(t, " p=0.%02u", 1 + pick(s, 99));
        put_for(g, 0);
        break;
    }
    case 8:
    case 9:
        put(t, pick(s, 2) ? " drop-reply" : " drop-pubsub");
        if (one_in(s, 2)) {
            put(t, " client=");
            put_client(g);
        }
        put(t, " p=0.%02u", 1 + pick(s, 99));
        put_for(g, 0);
        break;
    case 10: put(t, " disconnect client="); put_client(g); break;
    case 11:
        if (g->replicas == 0) { /* failover needs replicas */
            put(t, " heal");
            break;
        }
        put(t, " failover");
        if (one_in(s, 3)) {
            put(t, " node=");
            put_node(g);
        } else if (one_in(s, 2)) {
            put(t, " group=%u", pick(s, (unsigned)g->nodes));
        }
        break;
    case 13: {
        static const char *const cmds[] = {"acquire", "unlock", "renew"};
        put(t, " fail-reply client=");
        put_client(g);
        put(t, " command=%s", cmds[pick(s, 3)]);
        if (one_in(s, 2)) put(t, " count=%u", 1 + pick(s, 3));
        if (one_in(s, 2)) put(t, " as=%s", one_in(s, 2) ? "lost" : "error");
        break;
    }
    default: {
        static const char *const points[] = {"net/partition", "net/drop", "net/drop-reply", "net/delay",
                                             "redis/pubsub/deliver", "redis/replicate", "no/such/point"};
        put(t, " fiu %s p=0.%02u", points[pick(s, 7)], 1 + pick(s, 99));
        put_for(g, 0);
        break;
    }
    }
    put(t, "\n");
}

/* A [swarm] section, after [nemesis] kinds = any: bounds for the draws. */
static void gen_swarm(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    if (one_in(s, 3)) return; /* its defaults */
    put(t, "[swarm]\n");
    if (one_in(s, 2)) put(t, "clients = %u..%u\n", 1 + pick(s, 2), 3 + pick(s, 3));
    if (one_in(s, 2)) put(t, "threads = 1..%u\n", 1 + pick(s, 3));
    if (one_in(s, 2)) put(t, "hold = %ums..%ums\n", 1 + pick(s, 10), 20 + pick(s, 2000));
    if (one_in(s, 2)) put(t, "think = %ums..%ums\n", 1 + pick(s, 10), 20 + pick(s, 1000));
    if (one_in(s, 2)) key_prob(t, s, "reentry");
    if (one_in(s, 2)) put(t, "lease = %ums..%ums\n", 10 + pick(s, 100), 200 + pick(s, 5000));
    if (one_in(s, 2)) key_prob(t, s, "watchdog");
    /* at least 1ms: one in 32 is not (refused) */
    if (one_in(s, 2)) put(t, "interval = %ums..%ums\n", one_in(s, 32) ? 0 : 1 + pick(s, 100), 100 + pick(s, 2000));
    if (one_in(s, 2)) put(t, "duration = %ums..%ums\n", 1 + pick(s, 100), 100 + pick(s, 2000));
    if (one_in(s, 2)) key_prob(t, s, "trylock");
    if (one_in(s, 2)) put(t, "wait = %ums..%ums\n", pick(s, 50), 50 + pick(s, 3000));
    if (one_in(s, 3)) key_prob(t, s, "async"); /* refused where the protocol has no async API */
    if (one_in(s, 3)) key_prob(t, s, "nowait");
    if ((g->kind == P_RW || one_in(s, 16)) && one_in(s, 2)) key_prob(t, s, "switch"); /* refused without sides */
    if (one_in(s, 3)) key_prob(t, s, "lease-spread");
    if (one_in(s, 3)) key_prob(t, s, "retry-unlock");
    if (one_in(s, 3)) key_prob(t, s, "overrun");
    if (one_in(s, 3)) key_prob(t, s, "long-hold");
    if (one_in(s, 3)) key_prob(t, s, "client-clock");
    if (one_in(s, 3)) key_prob(t, s, "crash-on-reply");
    if (one_in(s, 3)) key_prob(t, s, "reject-stale");
    if ((g->kind == P_SEM || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "addpermits");
    if ((g->kind == P_FAIR || one_in(s, 16)) && one_in(s, 3))
        put(t, "thread-wait-time = %ums..%ums\n", 1 + pick(s, 100), 100 + pick(s, 10000));
    if (one_in(s, 3)) key_prob(t, s, "focus");
    if (one_in(s, 3)) key_prob(t, s, "idle");
    if (one_in(s, 3)) key_prob(t, s, "slow");
    if ((g->kind == P_SEM || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "huge"); /* refused without counted permits */
    if ((g->kind == P_SEM || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "single"); /* refused without permit counts */
    if ((g->kind == P_LATCH || one_in(s, 16)) && one_in(s, 3)) key_prob(t, s, "rearm"); /* refused without trySetCount */
    put(t, "[nemesis]\n"); /* the keys gen_nemesis adds next */
}

static void gen_nemesis(gen *g)
{
    src *s = g->s;
    text *t = g->t;
    static const char *const kinds[] = {"pause",      "crash",    "partition",  "clock",
                                        "node-crash", "node-pause", "failover", "drop-reply",
                                        "drop-pubsub", "disconnect", "delay", "fail-reply",
                                        "client-clock"};
    put(t, "[nemesis]\n");
    if (one_in(s, 6)) {
        put(t, "kinds = any\n"); /* swarm: the seed draws the kinds, and [swarm]'s bounds the rest */
        gen_swarm(g);
    } else if (!one_in(s, 4)) {
        put(t, "kinds =");
        unsigned bits = pick(s, 1u << 13) | 1u << pick(s, 13);
        for (int i = 0; i < 13; i++)
            if ((bits >> i & 1) && (i != 6 || g->replicas > 0)) put(t, " %s", kinds[i]);
        if (g->replicas == 0 && bits == 1u << 6) put(t, " pause");
        put(t, "\n");
    } else if (g->replicas == 0) {
        put(t, "kinds = pause, crash\n"); /* the default, said */
    }
    /* The interval must average 1ms or more: one in 32 is not. */
    if (one_in(s, 2)) {
        put(t, "interval = ");
        if (one_in(s, 32)) put_dist(t, s, 1);
        else put(t, "%ums..%ums", 1 + pick(s, 200), 200 + pick(s, 2000));
        put(t, "\n");
    }
    if (one_in(s, 2)) key_dist(t, s, "duration", 2000);
    if (one_in(s, 2)) key_dist(t, s, "jump", 40000);
    if (one_in(s, 2)) put(t, "start = %ums\n", pick(s, g->dur_ms + 1));
    if (one_in(s, 3)) put(t, "stop = %ums\n", pick(s, g->dur_ms + 1));
    if (one_in(s, 3)) key_prob(t, s, "p");
    if (one_in(s, 3)) put(t, "crash-on = %s\n", one_in(s, 3) ? "time" : "reply");
}

static void gen_expect(gen *g)
{
    src *s = g->s;
    static const char *const inv[] = {"mutual-exclusion", "reentrancy", "liveness", "deadlock", "fencing",
                                      "fifo", "starvation", "rw-exclusion", "permits", "latch"};
    static const char *const verdict[] = {"held", "violated", "any"};
    put(g->t, "[expect]\n");
    int n = (int)pick(s, 4);
    for (int i = 0; i < n; i++) put(g->t, "%s = %s\n", inv[pick(s, 10)], verdict[pick(s, 3)]);
    if (one_in(s, 3)) put(g->t, "liveness-bound = %ums\n", 1 + pick(s, 5000));
    if (one_in(s, 4)) put(g->t, "min-acquisitions = %u\n", pick(s, 10));
    if (one_in(s, 4)) put(g->t, "starvation-bound = %u\n", 1 + pick(s, 10));
}

/* The scenario the input stands for, as text (malloc'd). */
static char *generate(src *s)
{
    text t = {malloc(4096), 0, 4096};
    if (t.buf == NULL) abort();
    t.buf[0] = '\0';
    const struct proto *pr = &protos[pick(s, NPROTOS)];
    gen g = {.s = s, .t = &t, .kind = pr->kind};
    gen_scenario(&g);
    gen_redis(&g);
    gen_protocol(&g, pr);
    gen_clients(&g);
    g.max_client = g.clients;
    if (one_in(s, 2)) {
        put(&t, "[resource]\n");
        key_bool(&t, s, "enabled");
        if (one_in(s, 2)) key_bool(&t, s, "reject-stale");
    }
    int nops = (int)pick(s, 12), nfaults = (int)pick(s, 12);
    if (g.clients == 0 && nops == 0) nops = 1;
    if (nops) put(&t, "[steps]\n");
    for (int i = 0; i < nops; i++) gen_op(&g);
    /* Faults go to [faults], or to [steps] after the operations. */
    if (nfaults && (nops == 0 || one_in(s, 2))) put(&t, "[faults]\n");
    for (int i = 0; i < nfaults; i++) gen_fault(&g);
    if (one_in(s, 3)) gen_nemesis(&g);
    if (one_in(s, 2)) gen_expect(&g);
    return t.buf;
}

/* ------------------------------------------------------------- the run */

static unsigned long long inputs, refused, run_refused;

static void stats(void)
{
    fprintf(stderr, "fuzz_sim: %llu inputs, %llu refused by the parser, %llu by the run (%.2f%% ran)\n", inputs,
            refused, run_refused,
            inputs ? 100.0 * (double)(inputs - refused - run_refused) / (double)inputs : 0.0);
}

#define FUZZ_MAX_EVENTS 100000

/* Runs s with seed: 0 with its trace hash in *hash, or -1 when the run
 * refuses the scenario (the protocol cannot run it: err). Every writer of
 * the result runs too (into memory), so its paths are fuzzed with the
 * run's. */
static int run_once(const scenario *s, uint64_t seed, uint64_t *hash, scn_error *err)
{
    history h;
    run_result r;
    /* An event budget keeps an execution short (a network of 20us and
     * holds of 0 make half a million events in a second, 10 s under the
     * sanitizers); where it ends the run is as deterministic as the run.
     * No memory budget: libFuzzer's -rss_limit_mb is that. */
    run_opts o = {.max_events = FUZZ_MAX_EVENTS, .max_memory_kb = (long)RUN_UNLIMITED};
    hist_init(&h);
    if (run_scenario(s, seed, &o, &r, &h, err) != 0) {
        hist_free(&h);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL) abort();
    report_json(m, &r, &h);
    report_summary(m, &r, &h, 1);
    fclose(m);
    free(buf);
    *hash = r.trace_hash;
    run_result_free(&r);
    hist_free(&h);
    return 0;
}

/* A scenario given as text runs only when it is as small as the
 * generator's: a few virtual seconds, a few clients and nodes, a network
 * no faster than a real one. */
#define SMALL_US SIM_SEC(10)
#define SMALL_LATENCY_US 20
#define SMALL_CLIENTS 8
#define SMALL_THREADS 4
#define SMALL_NODES 12

static int small(const scenario *s)
{
    int64_t lat = s->latency.kind == SCN_DIST_UNIFORM ? (s->latency.a_us + s->latency.b_us) / 2 : s->latency.a_us;
    return lat >= SMALL_LATENCY_US && s->duration_us <= SMALL_US && s->drain_us <= SMALL_US &&
           scn_max_client(s) <= SMALL_CLIENTS &&
           s->threads <= SMALL_THREADS && s->nodes * (1 + s->replicas) <= SMALL_NODES;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static int verbose = -1, print;
    if (verbose < 0) {
        const char *v = getenv("LOCKSIM_FUZZ_STATS"), *pr = getenv("LOCKSIM_FUZZ_PRINT");
        verbose = v && *v && strcmp(v, "0") != 0;
        print = pr && *pr && strcmp(pr, "0") != 0;
        if (verbose) atexit(stats);
    }
    int given = size > 0 && data[0] == '[';
    char *textbuf;
    if (given) {
        textbuf = malloc(size + 1);
        if (textbuf == NULL) abort();
        memcpy(textbuf, data, size);
        textbuf[size] = '\0';
    } else {
        src s = {data, size, 0};
        textbuf = generate(&s);
    }
    scenario sc;
    scn_error err;
    inputs++;
    if (scn_load_string("fuzz.scn", textbuf, &sc, &err) != 0) {
        refused++;
        if (verbose && !given) fprintf(stderr, "fuzz_sim: refused: line %d: %s\n%s\n", err.line, err.msg, textbuf);
        free(textbuf);
        return 0;
    }
    if (given && !small(&sc)) {
        scn_free(&sc);
        free(textbuf);
        return 0;
    }
    uint64_t seed = sc.has_seed ? sc.seed : 1;
    if (print) fprintf(stderr, "fuzz_sim: %s", textbuf);
    uint64_t a, b;
    if (run_once(&sc, seed, &a, &err) != 0) {
        run_refused++;
        if (verbose && !given) fprintf(stderr, "fuzz_sim: run refused: %s\n%s\n", err.msg, textbuf);
        scn_free(&sc);
        free(textbuf);
        return 0;
    }
    if (run_once(&sc, seed, &b, &err) != 0) {
        fprintf(stderr, "fuzz_sim: the same scenario ran once, then was refused: %s\n%s", err.msg, textbuf);
        abort();
    }
    if (a != b) {
        fprintf(stderr, "fuzz_sim: the same scenario and seed %llu gave two trace hashes, %016llx and %016llx:\n%s",
                (unsigned long long)seed, (unsigned long long)a, (unsigned long long)b, textbuf);
        abort();
    }
    scn_free(&sc);
    free(textbuf);
    return 0;
}
