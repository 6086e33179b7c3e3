/* timed.c — the timed lines of [steps] and [faults]: "at = TIME [cN[.tM]]
 * OPERATION key=value..." parsed into a scn_step, and written back. The
 * grammar of each operation (which options it takes and needs) is in the
 * table below. Names are resolved against the topology later, once the
 * whole file is read (endpoints.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scn/scn_int.h"

/* Options an operation accepts. */
#define O_WAIT 1
#define O_LEASE 2
#define O_FOR 4
#define O_LOCK 8
#define O_CLIENT 16
#define O_NODE 32
#define O_LINK 64
#define O_P 128
#define O_BY 256
#define O_CLOCK 512
#define O_GROUP 1024
#define O_ARG 2048 /* mode=read|write, permits=N */
#define O_REPLY 4096 /* command=, count=, as= (fail-reply) */
#define O_ASYNC 8192 /* api=sync|async */
#define O_SIGNED 16384 /* permits=N may be 0 or negative (addPermits) */
#define O_ON 32768 /* on=time|reply (crash) */
#define O_COUNT 65536 /* count=N (trySetCount) */

typedef struct op_def {
    const char *name;
    scn_op op;
    int opts;
    const char *usage, *doc; /* for `locksim list` */
} op_def;

static const op_def ops[] = {
    {"lock", SCN_OP_LOCK, O_LEASE | O_LOCK | O_ARG | O_ASYNC, "cN[.tM] lock [lease=D] [lock=NAME] [mode=read|write] [permits=N] [api=async]", "lock(lease); lease -1: watchdog; semaphores: acquire(n) (api=async: acquireAsync)"},
    {"trylock", SCN_OP_TRYLOCK, O_WAIT | O_LEASE | O_LOCK | O_ARG | O_ASYNC, "cN trylock wait=D [lease=D] [mode=..] [permits=N] [api=async]", "tryLock(wait, lease); semaphores: tryAcquire(n, wait)"},
    {"unlock", SCN_OP_UNLOCK, O_LOCK | O_ARG | O_ASYNC, "cN unlock [mode=read|write] [permits=N] [api=async]", "unlock (IllegalMonitorState if not the owner; api=async: unlockAsync)"},
    {"forceunlock", SCN_OP_FORCEUNLOCK, O_LOCK, "cN forceunlock", "forceUnlock"},
    {"islocked", SCN_OP_ISLOCKED, O_LOCK, "cN islocked", "isLocked"},
    {"held", SCN_OP_HELD, O_LOCK, "cN held", "isHeldByCurrentThread"},
    {"holdcount", SCN_OP_HOLDCOUNT, O_LOCK, "cN holdcount", "getHoldCount"},
    {"write", SCN_OP_WRITE, O_LOCK, "cN write", "a write to the [resource] with the thread's token"},
    {"countdown", SCN_OP_COUNTDOWN, O_LOCK, "cN countdown [lock=NAME]", "latch countDown()"},
    {"await", SCN_OP_AWAIT, O_WAIT | O_LOCK | O_ASYNC, "cN await [wait=D] [lock=NAME] [api=async]",
     "latch await() (no wait=: for ever) or await(wait); api=async: awaitAsync"},
    {"getcount", SCN_OP_GETCOUNT, O_LOCK, "cN getcount [lock=NAME]", "latch getCount()"},
    {"crash", SCN_FAULT_CRASH, O_CLIENT | O_NODE | O_ON, "crash client=N [on=reply] | node=X",
     "a process dies (no unlock, no watchdog) / a Redis node dies (data lost unless persistence); "
     "on=reply: armed now, the process dies when its next reply arrives (the server ran the command, the "
     "client never learns it nor sends its next one)"},
    {"restart", SCN_FAULT_RESTART, O_CLIENT | O_NODE, "restart client=N | node=X",
     "a new process (new id) / the node comes back (a failed-over master as a replica)"},
    {"pause", SCN_FAULT_PAUSE, O_CLIENT | O_NODE | O_FOR, "pause client=N | node=X for=D",
     "stop-the-world (GC pause, SIGSTOP): nothing of it runs, timers included"},
    {"clock", SCN_FAULT_CLOCK, O_NODE | O_CLIENT | O_CLOCK, "clock node=X|cN offset=+-D | drift=+-Nppm | jump=+-D",
     "the endpoint's clock: set its offset, its drift from now on, or step it"},
    {"partition", SCN_FAULT_PARTITION, O_FOR, "partition A|B  or  A->B  [for=D]",
     "messages between the sides are lost (A->B: one way); sides are lists of c1, redis0, group0, clients, nodes"},
    {"heal", SCN_FAULT_HEAL, 0, "heal", "ends every partition"},
    {"delay", SCN_FAULT_DELAY, O_LINK | O_BY | O_FOR, "delay link=A-B by=D [for=D]", "messages on the link take D longer"},
    {"drop", SCN_FAULT_DROP, O_LINK | O_P | O_FOR, "drop link=A-B p=P [for=D]", "messages on the link are lost with P"},
    {"drop-reply", SCN_FAULT_DROP_REPLY, O_CLIENT | O_P | O_FOR, "drop-reply [client=N] p=P [for=D]",
     "the server runs the command, the reply is lost: timeouts and resends"},
    {"drop-pubsub", SCN_FAULT_DROP_PUBSUB, O_CLIENT | O_P | O_FOR, "drop-pubsub [client=N] p=P [for=D]",
     "pub/sub messages (unlock notifications) are lost"},
    {"disconnect", SCN_FAULT_DISCONNECT, O_CLIENT, "disconnect client=N",
     "its connections drop: subscriptions lost, reconnect and resubscribe"},
    {"failover", SCN_FAULT_FAILOVER, O_NODE | O_GROUP, "failover [node=X | group=N]",
     "Sentinel promotes the most up-to-date replica now"},
    {"fiu", SCN_FAULT_FIU, O_P | O_FOR, "fiu POINT p=P [for=D]", "a raw libfiu failure point (see below)"},
    {"fail-reply", SCN_FAULT_FAIL_REPLY, O_CLIENT | O_REPLY,
     "fail-reply client=N command=acquire|unlock|renew [count=K] [as=lost|error]",
     "the client's next K replies to that kind of script (acquire, unlock or release, watchdog renewal) are lost "
     "(as=lost, the default: the server ran it, the client times out and resends as its transport allows) or "
     "turned into an error reply (as=error: the server ran it, the client sees ERR and does not resend)"},
    {"addpermits", SCN_OP_ADDPERMITS, O_LOCK | O_ARG | O_SIGNED, "cN addpermits permits=N [lock=NAME]",
     "semaphore addPermits(n); n may be negative"},
    {"trysetpermits", SCN_OP_TRYSETPERMITS, O_LOCK | O_ARG, "cN trysetpermits permits=N [lock=NAME]",
     "semaphore trySetPermits(n): sets n only when the semaphore has no count yet"},
    {"drainpermits", SCN_OP_DRAINPERMITS, O_LOCK, "cN drainpermits [lock=NAME]",
     "semaphore drainPermits(): takes every available permit"},
    {"availablepermits", SCN_OP_AVAILABLEPERMITS, O_LOCK, "cN availablepermits [lock=NAME]",
     "semaphore availablePermits()"},
    {"updatelease", SCN_OP_UPDATELEASE, O_LEASE | O_LOCK, "cN updatelease lease=D [lock=NAME]",
     "expirable semaphore updateLeaseTime() of the thread's oldest permit; lease=-1: no lease"},
    {"trysetcount", SCN_OP_TRYSETCOUNT, O_LOCK | O_COUNT, "cN trysetcount count=N [lock=NAME]",
     "latch trySetCount(n): sets n only when the latch has no count (it is open), and publishes NEW_COUNT"},
};

static const char *const reply_cmds[] = {NULL, "acquire", "unlock", "renew"};

#define NOPS (sizeof ops / sizeof ops[0])

int scn_op_is_fault(scn_op op)
{
    /* The faults are one block of the enum; client operations added later
     * come after it. */
    return op >= SCN_FAULT_CRASH && op <= SCN_FAULT_FAIL_REPLY;
}

int scn_fault_help(size_t i, const char **usage, const char **doc)
{
    size_t k = 0;
    for (size_t j = 0; j < NOPS; j++) {
        if (!scn_op_is_fault(ops[j].op)) continue;
        if (k++ == i) {
            *usage = ops[j].usage;
            *doc = ops[j].doc;
            return 1;
        }
    }
    return 0;
}

int scn_step_help(size_t i, const char **usage, const char **doc)
{
    size_t k = 0;
    for (size_t j = 0; j < NOPS; j++) {
        if (scn_op_is_fault(ops[j].op)) continue;
        if (k++ == i) {
            *usage = ops[j].usage;
            *doc = ops[j].doc;
            return 1;
        }
    }
    return 0;
}

const char *scn_op_name(scn_op op)
{
    for (size_t i = 0; i < NOPS; i++)
        if (ops[i].op == op) return ops[i].name;
    return "?";
}

static int err(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int err(char *msg, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *q(const char *v, char *buf, size_t cap)
{
    sim_repr(v, strlen(v), buf, cap);
    return buf;
}

/* "c3", "c3.t2", "3": client and thread numbers. */
int scn_parse_client(const char *s, int *client, int *thread)
{
    const char *p = s;
    if (*p == 'c') p++;
    if (!isdigit((unsigned char)*p)) return -1;
    char *end;
    long c = strtol(p, &end, 10);
    long t = 1;
    if (*end == '.') {
        if (end[1] != 't' || !isdigit((unsigned char)end[2])) return -1;
        t = strtol(end + 2, &end, 10);
    }
    if (*end || c < 1 || c > 100000 || t < 1 || t > 1000) return -1;
    *client = (int)c;
    *thread = (int)t;
    return 0;
}

static int copy(char *dst, size_t cap, const char *src)
{
    if (strlen(src) >= cap || !*src) return -1;
    strcpy(dst, src);
    return 0;
}

/* A signed duration, "+5s" / "-200ms" / "5s". */
static int signed_duration(const char *v, int64_t *out)
{
    return scn_parse_duration(v, out);
}

/* One key=value option of a timed line (next: the word after it, for a
 * "drift=+500 ppm" written with a space; *used_next set if consumed). */
static int option(scn_step *st, const op_def *d, const char *word, const char *next, int *used_next,
                  int (*lock_index)(void *, const char *), void *ud, char *msg, size_t cap)
{
    char t[160];
    const char *eq = strchr(word, '=');
    if (eq == NULL) return err(msg, cap, "unexpected word %s (options are written key=value)", q(word, t, sizeof t));
    size_t klen = (size_t)(eq - word);
    const char *v = eq + 1;
#define KEY(k) (klen == strlen(k) && strncmp(word, k, klen) == 0)
#define NEED(flag)                                                                          \
    do {                                                                                    \
        if (!(d->opts & (flag)))                                                            \
            return err(msg, cap, "'%s' takes no option %.*s=", d->name, (int)klen, word);   \
    } while (0)
    if (KEY("wait")) {
        NEED(O_WAIT);
        if (scn_parse_duration(v, &st->wait_us) != 0 || st->wait_us < 0) goto bad_duration;
        st->has_wait = 1;
    } else if (KEY("lease")) {
        NEED(O_LEASE);
        if (!strcmp(v, "-1") || !strcmp(v, "watchdog")) st->lease_us = SCN_LEASE_WATCHDOG;
        else if (scn_parse_duration(v, &st->lease_us) != 0 || st->lease_us < 0) goto bad_duration;
        st->has_lease = 1;
    } else if (KEY("mode")) {
        NEED(O_ARG);
        if (!strcmp(v, "read")) st->mode = SCN_RW_READ;
        else if (!strcmp(v, "write")) st->mode = SCN_RW_WRITE;
        else return err(msg, cap, "mode is read or write (got %s)", q(v, t, sizeof t));
    } else if (KEY("permits")) {
        NEED(O_ARG);
        char *end;
        long long n = strtoll(v, &end, 10);
        long long lo = (d->opts & O_SIGNED) ? -2147483647LL : 1;
        if (*end || end == v || n < lo || n > 2147483647LL || n == 0)
            return err(msg, cap, "permits must be an integer from %s to 2147483647 (got %s)",
                       (d->opts & O_SIGNED) ? "-2147483647, not 0," : "1", q(v, t, sizeof t));
        st->permits = n;
    } else if (KEY("api")) {
        NEED(O_ASYNC);
        if (!strcmp(v, "async")) st->async = 1;
        else if (!strcmp(v, "sync")) st->async = 0;
        else return err(msg, cap, "api is sync or async (got %s)", q(v, t, sizeof t));
    } else if (KEY("for")) {
        NEED(O_FOR);
        if (scn_parse_duration(v, &st->for_us) != 0 || st->for_us <= 0) goto bad_duration;
    } else if (KEY("lock")) {
        NEED(O_LOCK);
        if (!scn_lock_name_ok(v))
            return err(msg, cap, "bad lock name %s (no spaces, control characters, ',' or ';')", q(v, t, sizeof t));
        st->lock = lock_index(ud, v);
        if (st->lock < 0) return err(msg, cap, "at most %d locks", SCN_MAX_LOCKS);
    } else if (KEY("client")) {
        NEED(O_CLIENT);
        if (scn_parse_client(v, &st->client, &st->thread) != 0)
            return err(msg, cap, "bad client (got %s; write client=3 or client=c3)", q(v, t, sizeof t));
    } else if (KEY("node")) {
        NEED(O_NODE);
        if (copy(st->node, sizeof st->node, v) != 0) return err(msg, cap, "bad node name %s", q(v, t, sizeof t));
    } else if (KEY("group")) {
        NEED(O_GROUP);
        char *end;
        long g = strtol(v, &end, 10);
        if (*end || g < 0 || g > 15) return err(msg, cap, "bad group (got %s)", q(v, t, sizeof t));
        st->group = (int)g;
    } else if (KEY("link")) {
        NEED(O_LINK);
        const char *dash = strchr(v, '-');
        if (dash == NULL || dash == v || (size_t)(dash - v) >= sizeof st->link_a ||
            copy(st->link_b, sizeof st->link_b, dash + 1) != 0)
            return err(msg, cap, "a link is written A-B, e.g. link=c1-redis0 (got %s)", q(v, t, sizeof t));
        memcpy(st->link_a, v, (size_t)(dash - v));
        st->link_a[dash - v] = '\0';
    } else if (KEY("p")) {
        NEED(O_P);
        if (scn_parse_prob(v, &st->p_ppm) != 0)
            return err(msg, cap, "p must be a probability such as 0.1 or 10%% (got %s)", q(v, t, sizeof t));
    } else if (KEY("by")) {
        NEED(O_BY);
        if (scn_parse_duration(v, &st->by_us) != 0 || st->by_us <= 0) goto bad_duration;
    } else if (KEY("command")) {
        NEED(O_REPLY);
        st->reply_cmd = 0;
        for (int k = 1; k <= SCN_REPLY_RENEW; k++)
            if (!strcmp(v, reply_cmds[k])) st->reply_cmd = k;
        if (st->reply_cmd == 0) return err(msg, cap, "command is acquire, unlock or renew (got %s)", q(v, t, sizeof t));
    } else if (KEY("count") && (d->opts & O_COUNT)) {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*end || end == v || n < 1 || n > 2147483647LL)
            return err(msg, cap, "count must be an integer from 1 to 2147483647 (got %s)", q(v, t, sizeof t));
        st->permits = n;
    } else if (KEY("count")) {
        NEED(O_REPLY);
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || end == v || n < 1 || n > 1000)
            return err(msg, cap, "count must be an integer from 1 to 1000 (got %s)", q(v, t, sizeof t));
        st->reply_count = (int)n;
    } else if (KEY("as")) {
        NEED(O_REPLY);
        if (!strcmp(v, "lost")) st->reply_error = 0;
        else if (!strcmp(v, "error")) st->reply_error = 1;
        else return err(msg, cap, "as is lost or error (got %s)", q(v, t, sizeof t));
    } else if (KEY("on")) {
        NEED(O_ON);
        if (!strcmp(v, "reply")) st->on_reply = 1;
        else if (!strcmp(v, "time")) st->on_reply = 0;
        else return err(msg, cap, "on is time or reply (got %s)", q(v, t, sizeof t));
    } else if (KEY("offset") || KEY("jump")) {
        NEED(O_CLOCK);
        st->clock_what = KEY("offset") ? SCN_CLOCK_OFFSET : SCN_CLOCK_JUMP;
        if (signed_duration(v, &st->clock_value) != 0) goto bad_duration;
    } else if (KEY("drift")) {
        NEED(O_CLOCK);
        char num[64];
        snprintf(num, sizeof num, "%s", v);
        size_t n = strlen(num);
        if (n > 3 && !strcmp(num + n - 3, "ppm")) num[n - 3] = '\0';
        else if (next && !strcmp(next, "ppm")) *used_next = 1;
        else return err(msg, cap, "drift is written in ppm, e.g. drift=+500ppm (got %s)", q(v, t, sizeof t));
        char *end;
        long long ppm = strtoll(num, &end, 10);
        if (*end || !*num || ppm <= -1000000 || ppm >= 1000000)
            return err(msg, cap, "drift must be an integer number of ppm within +-999999 (got %s)", q(v, t, sizeof t));
        st->clock_what = SCN_CLOCK_DRIFT;
        st->clock_value = ppm;
    } else {
        return err(msg, cap, "unknown option %s", q(word, t, sizeof t));
    }
    return 0;
bad_duration:
    return err(msg, cap, "bad duration in %s", q(word, t, sizeof t));
#undef KEY
#undef NEED
}

int scn_step_parse(const char *section, const char *value, int line, scn_step *st,
                   int (*lock_index)(void *, const char *), void *ud, char *msg, size_t cap)
{
    char buf[512], t[160];
    snprintf(buf, sizeof buf, "%s", value);
    char *words[32];
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && nw < 32; w = strtok_r(NULL, " \t", &save))
        words[nw++] = w;
    memset(st, 0, sizeof *st);
    st->line = line;
    st->wait_us = -1;
    st->lease_us = -1;
    st->thread = 1;
    st->group = -1;
    st->node_index = -1;
    int i = 0;
    if (nw == 0 || scn_parse_duration(words[0], &st->at_us) != 0 || st->at_us < 0)
        return err(msg, cap, "a timed line starts with its time, e.g. 'at = 10s c1 lock' (got %s)",
                   q(nw ? words[0] : "", t, sizeof t));
    i = 1;
    int client_given = 0;
    if (i < nw && words[i][0] == 'c' && isdigit((unsigned char)words[i][1])) {
        if (scn_parse_client(words[i], &st->client, &st->thread) != 0)
            return err(msg, cap, "bad client %s (write c3 or c3.t2)", q(words[i], t, sizeof t));
        client_given = 1;
        i++;
    }
    if (i >= nw) return err(msg, cap, "missing operation after the time");
    const op_def *d = NULL;
    for (size_t k = 0; k < NOPS; k++)
        if (!strcmp(words[i], ops[k].name)) d = &ops[k];
    if (d == NULL) {
        const char *names[NOPS];
        for (size_t k = 0; k < NOPS; k++) names[k] = ops[k].name;
        const char *near = sim_closest(words[i], names, NOPS);
        if (near) return err(msg, cap, "unknown %s %s (did you mean %s?)", !strcmp(section, "faults") || !client_given ? "fault" : "operation", q(words[i], t, sizeof t), near);
        if (!strcmp(section, "faults") || !client_given) return err(msg, cap, "unknown fault %s", q(words[i], t, sizeof t));
        return err(msg, cap, "unknown operation %s (lock, trylock, unlock, forceunlock, islocked, held, "
                             "holdcount, write, countdown, await, getcount, addpermits, trysetpermits, "
                             "drainpermits, availablepermits, updatelease, trysetcount, or a fault)", q(words[i], t, sizeof t));
    }
    st->op = d->op;
    i++;
    if (!scn_op_is_fault(st->op) && !strcmp(section, "faults"))
        return err(msg, cap, "'%s' is a client operation: write it in [steps]", d->name);
    /* The words that are not options: a partition's sides, a fiu point. */
    if (st->op == SCN_FAULT_PARTITION) {
        if (i >= nw) return err(msg, cap, "partition needs its sides, e.g. 'partition c1|redis0' or 'c1->redis0'");
        const char *spec = words[i++];
        const char *arrow = strstr(spec, "->"), *bar = strchr(spec, '|');
        const char *sep = arrow ? arrow : bar;
        size_t seplen = arrow ? 2 : 1;
        if (sep == NULL || sep == spec || (size_t)(sep - spec) >= sizeof st->side_a ||
            copy(st->side_b, sizeof st->side_b, sep + seplen) != 0)
            return err(msg, cap, "partition sides are written A|B or A->B (got %s)", q(spec, t, sizeof t));
        memcpy(st->side_a, spec, (size_t)(sep - spec));
        st->side_a[sep - spec] = '\0';
        st->directed = arrow != NULL;
    } else if (st->op == SCN_FAULT_FIU) {
        if (i >= nw || strchr(words[i], '=')) return err(msg, cap, "fiu needs a point name, e.g. 'fiu net/drop p=0.1'");
        if (copy(st->point, sizeof st->point, words[i++]) != 0) return err(msg, cap, "fiu point name too long");
    }
    for (; i < nw; i++) {
        int used_next = 0;
        if (option(st, d, words[i], i + 1 < nw ? words[i + 1] : NULL, &used_next, lock_index, ud, msg, cap) != 0)
            return -1;
        i += used_next;
    }
    /* What each operation cannot do without. */
    int needs_client = !scn_op_is_fault(st->op) || st->op == SCN_FAULT_DISCONNECT || st->op == SCN_FAULT_FAIL_REPLY;
    if (needs_client && st->client == 0) return err(msg, cap, "'%s' needs a client (c3, or client=3)", d->name);
    if ((st->op == SCN_FAULT_CRASH || st->op == SCN_FAULT_RESTART || st->op == SCN_FAULT_PAUSE ||
         st->op == SCN_FAULT_CLOCK) && st->client == 0 && !st->node[0])
        return err(msg, cap, "'%s' needs client=N or node=NAME", d->name);
    if (st->on_reply && (st->client == 0 || st->node[0]))
        return err(msg, cap, "crash on=reply strikes a client process: write client=N, not node=");
    if (st->op == SCN_FAULT_PAUSE && st->for_us == 0) return err(msg, cap, "pause needs for=DURATION");
    if (st->op == SCN_FAULT_CLOCK && st->clock_what == 0)
        return err(msg, cap, "clock needs offset=, drift= or jump=");
    if ((st->op == SCN_FAULT_DELAY || st->op == SCN_FAULT_DROP) && !st->link_a[0])
        return err(msg, cap, "'%s' needs link=A-B", d->name);
    if (st->op == SCN_FAULT_DELAY && st->by_us == 0) return err(msg, cap, "delay needs by=DURATION");
    if (st->op == SCN_FAULT_FAIL_REPLY && st->reply_cmd == 0)
        return err(msg, cap, "fail-reply needs command=acquire|unlock|renew");
    if ((d->opts & O_P) && st->p_ppm == 0) return err(msg, cap, "'%s' needs p=PROBABILITY (above 0)", d->name);
    if ((st->op == SCN_OP_ADDPERMITS || st->op == SCN_OP_TRYSETPERMITS) && st->permits == 0)
        return err(msg, cap, "'%s' needs permits=N", d->name);
    if (st->op == SCN_OP_TRYSETCOUNT && st->permits == 0) return err(msg, cap, "'%s' needs count=N", d->name);
    if (st->op == SCN_OP_UPDATELEASE && !st->has_lease) return err(msg, cap, "updatelease needs lease=D");
    if (st->op == SCN_FAULT_CLOCK && st->client == 0 && st->node[0] == 'c' && isdigit((unsigned char)st->node[1])) {
        int th;
        if (scn_parse_client(st->node, &st->client, &th) == 0) st->node[0] = '\0';
    }
    return 0;
}

size_t scn_step_format(const scn_step *st, const scenario *s, char *buf, size_t cap)
{
    char at[32], d[32];
    size_t n = 0;
#define PUT(...)                                                              \
    do {                                                                      \
        int k = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);        \
        if (k > 0) n += (size_t)k;                                            \
    } while (0)
    if (cap) buf[0] = '\0';
    scn_duration_format(st->at_us, at, sizeof at);
    PUT("at = %s", at);
    if (!scn_op_is_fault(st->op)) {
        if (st->thread > 1) PUT(" c%d.t%d", st->client, st->thread);
        else PUT(" c%d", st->client);
    }
    PUT(" %s", scn_op_name(st->op));
    if (st->op == SCN_FAULT_PARTITION) PUT(" %s%s%s", st->side_a, st->directed ? "->" : "|", st->side_b);
    if (st->op == SCN_FAULT_FIU) PUT(" %s", st->point);
    if (scn_op_is_fault(st->op) && st->client) PUT(" client=c%d", st->client);
    if (st->on_reply) PUT(" on=reply");
    if (st->reply_cmd > 0 && st->reply_cmd <= SCN_REPLY_RENEW) PUT(" command=%s", reply_cmds[st->reply_cmd]);
    if (st->reply_count > 0) PUT(" count=%d", st->reply_count);
    if (st->reply_error) PUT(" as=error");
    if (st->node[0]) PUT(" node=%s", st->node);
    if (st->op == SCN_FAULT_FAILOVER && st->group >= 0 && !st->node[0]) PUT(" group=%d", st->group);
    if (st->link_a[0]) PUT(" link=%s-%s", st->link_a, st->link_b);
    if (st->has_wait) {
        scn_duration_format(st->wait_us, d, sizeof d);
        PUT(" wait=%s", d);
    }
    if (st->has_lease) {
        if (st->lease_us == SCN_LEASE_WATCHDOG) PUT(" lease=-1");
        else {
            scn_duration_format(st->lease_us, d, sizeof d);
            PUT(" lease=%s", d);
        }
    }
    if (st->lock && s && st->lock < s->nlocks) PUT(" lock=%s", s->lock_names[st->lock]);
    if (st->mode) PUT(" mode=%s", st->mode == SCN_RW_READ ? "read" : "write");
    if (st->permits) PUT(st->op == SCN_OP_TRYSETCOUNT ? " count=%lld" : " permits=%lld", (long long)st->permits);
    if (st->async) PUT(" api=async");
    if (st->p_ppm) {
        if (st->p_ppm % 10000 == 0) PUT(" p=%d%%", st->p_ppm / 10000);
        else PUT(" p=0.%06d", st->p_ppm);
    }
    if (st->by_us) {
        scn_duration_format(st->by_us, d, sizeof d);
        PUT(" by=%s", d);
    }
    if (st->clock_what == SCN_CLOCK_DRIFT) PUT(" drift=%+lldppm", (long long)st->clock_value);
    else if (st->clock_what) {
        scn_duration_format(st->clock_value < 0 ? -st->clock_value : st->clock_value, d, sizeof d);
        PUT(" %s=%s%s", st->clock_what == SCN_CLOCK_OFFSET ? "offset" : "jump",
            st->clock_value < 0 ? "-" : "+", d);
    }
    if (st->for_us) {
        scn_duration_format(st->for_us, d, sizeof d);
        PUT(" for=%s", d);
    }
#undef PUT
    return n;
}
