/* parse.c — reads a .scn file with inih and fills a scenario: a table of
 * known keys per section with their value kinds and limits, the timed
 * lines of [steps] and [faults], and the checks that need the whole file.
 * The first error wins and is reported as "path:line: message"; the
 * reader counts lines itself, since inih's handler is not given them. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "sim/scn/scn_int.h"

/* ------------------------------------------------------------ the keys */

#define F(field) offsetof(scenario, field)

static const key_def keys[] = {
    {"scenario", "name", K_STR, F(name), 0, 0},
    {"scenario", "duration", K_DURATION, F(duration_us), 1, 0},
    {"scenario", "seed", K_SEED, F(seed), 0, 0},
    {"scenario", "drain", K_DURATION, F(drain_us), 0, 0},
    {"redis", "nodes", K_INT, F(nodes), 1, 15},
    {"redis", "replicas", K_INT, F(replicas), 0, 8},
    /* K_DIST min: the least mean (rounded up). A network whose messages
     * take no time lets a client spin at one instant for ever (polling a
     * lock whose PTTL reads 0); a nemesis without interval, draw faults
     * for ever. */
    {"redis", "latency", K_DIST, F(latency), 1, 0},
    {"redis", "replication-lag", K_DIST, F(replication_lag), 0, 0},
    {"redis", "persistence", K_BOOL, F(persistence), 0, 0},
    {"redis", "runaway", K_RUNAWAY, F(runaway_busy), 0, 0},
    {"redis", "down-after", K_DURATION, F(down_after_us), 1, 0},
    {"redis", "discovery", K_DURATION, F(discovery_us), 0, 0},
    {"protocol", "name", K_STR, F(protocol), 0, 0},
    {"protocol", "scripts", K_STR, F(scripts), 0, 0},
    {"protocol", "lease", K_LEASE, F(lease_us), 0, 0},
    {"protocol", "wait", K_DURATION, F(wait_us), 0, 0},
    {"protocol", "mode", K_MODE, F(mode), 0, 0},
    {"protocol", "watchdog-timeout", K_DURATION, F(watchdog_us), 3000, 0},
    {"protocol", "timeout", K_DURATION, F(timeout_us), 1000, 0},
    {"protocol", "retry-attempts", K_INT, F(retry_attempts), 0, 100},
    /* at least 1ms: resends at once would spin at one instant */
    {"protocol", "retry-interval", K_DURATION, F(retry_interval_us), 1000, 0},
    {"protocol", "poll", K_DURATION, F(poll_us), 1000, 0},
    {"protocol", "expire-mode", K_STR, F(expire_mode), 0, 0},
    {"protocol", "members", K_INT, F(members), 1, 7},
    {"protocol", "member-rotate", K_BOOL, F(member_rotate), 0, 0},
    {"protocol", "renew", K_BOOL, F(renew), 0, 0},
    {"protocol", "synced", K_BOOL, F(synced), 0, 0},
    {"protocol", "thread-wait-time", K_DURATION, F(thread_wait_us), 1000, 0},
    {"protocol", "locks", K_LOCKS, 0, 0, 0},
    {"protocol", "permits", K_INT64, F(init_permits), 0, 2147483647},
    {"protocol", "count", K_INT64, F(init_count), 0, 1000000},
    {"clients", "count", K_INT, F(clients), 0, 100000},
    {"clients", "threads", K_INT, F(threads), 1, 1000},
    {"clients", "hold", K_DIST, F(hold), 0, 0},
    {"clients", "think", K_DIST, F(think), 0, 0},
    {"clients", "start", K_DIST, F(start), 0, 0},
    {"clients", "reentry", K_PROB, F(reentry_ppm), 0, 0},
    {"clients", "reentry-depth", K_INT, F(reentry_depth), 1, 64},
    {"clients", "ops", K_INT64, F(ops_per_thread), 0, INT64_MAX},
    {"clients", "stop", K_DURATION, F(work_stop_us), 1000, 0},
    {"clients", "read-ratio", K_PROB, F(read_ppm), 0, 0},
    {"clients", "permits", K_COUNTS, F(acquire_permits), 0, 0},
    {"clients", "async", K_BOOL, F(async), 0, 0},
    {"clients", "listener-gap", K_DIST, F(listener_gap), 0, 0},
    {"clients", "switch", K_PROB, F(switch_ppm), 0, 0},
    {"clients", "release-fifo", K_PROB, F(release_fifo_ppm), 0, 0},
    /* at least 1ms on average; unset is a constant 0 (scn_has_acquire_lease) */
    {"clients", "lease", K_DIST, F(acquire_lease), 1000, 0},
    {"clients", "retry-unlock", K_BOOL, F(retry_unlock), 0, 0},
    {"clients", "nested", K_BOOL, F(nested), 0, 0},
    {"clients", "addpermits", K_PROB, F(addpermits_ppm), 0, 0},
    {"clients", "lend", K_COUNTS, F(lend_permits), 0, 0},
    {"clients", "rearm", K_PROB, F(rearm_ppm), 0, 0},
    {"resource", "enabled", K_BOOL, F(resource), 0, 0},
    {"resource", "reject-stale", K_BOOL, F(reject_stale), 0, 0},
    {"nemesis", "kinds", K_KINDS, F(nemesis_kinds), 0, 0},
    {"nemesis", "interval", K_DIST, F(nemesis_interval), 1000, 0},
    {"nemesis", "duration", K_DIST, F(nemesis_duration), 0, 0},
    {"nemesis", "jump", K_DIST, F(nemesis_jump), 0, 0},
    {"nemesis", "start", K_DURATION, F(nemesis_start_us), 0, 0},
    {"nemesis", "stop", K_DURATION, F(nemesis_stop_us), 0, 0},
    {"nemesis", "p", K_PROB, F(nemesis_p_ppm), 0, 0},
    {"nemesis", "crash-on", K_CRASH_ON, F(nemesis_crash_on), 0, 0},
    {"swarm", "clients", K_COUNTS, F(swarm_clients), 0, 0},
    {"swarm", "threads", K_COUNTS, F(swarm_threads), 0, 0},
    {"swarm", "hold", K_DIST, F(swarm_hold), 0, 0},
    {"swarm", "think", K_DIST, F(swarm_think), 0, 0},
    {"swarm", "reentry", K_PROB, F(swarm_reentry_ppm), 0, 0},
    {"swarm", "lease", K_DIST, F(swarm_lease), 0, 0},
    {"swarm", "watchdog", K_PROB, F(swarm_watchdog_ppm), 0, 0},
    {"swarm", "interval", K_DIST, F(swarm_interval), 1000, 0},
    {"swarm", "duration", K_DIST, F(swarm_duration), 0, 0},
    {"swarm", "trylock", K_PROB, F(swarm_trylock_ppm), 0, 0},
    {"swarm", "wait", K_DIST, F(swarm_wait), 0, 0},
    {"swarm", "async", K_PROB, F(swarm_async_ppm), 0, 0},
    {"swarm", "nowait", K_PROB, F(swarm_nowait_ppm), 0, 0},
    {"swarm", "switch", K_PROB, F(swarm_switch_ppm), 0, 0},
    {"swarm", "lease-spread", K_PROB, F(swarm_lease_spread_ppm), 0, 0},
    {"swarm", "retry-unlock", K_PROB, F(swarm_retry_unlock_ppm), 0, 0},
    {"swarm", "overrun", K_PROB, F(swarm_overrun_ppm), 0, 0},
    {"swarm", "long-hold", K_PROB, F(swarm_long_hold_ppm), 0, 0},
    {"swarm", "client-clock", K_PROB, F(swarm_client_clock_ppm), 0, 0},
    {"swarm", "crash-on-reply", K_PROB, F(swarm_crash_reply_ppm), 0, 0},
    {"swarm", "reject-stale", K_PROB, F(swarm_reject_stale_ppm), 0, 0},
    {"swarm", "addpermits", K_PROB, F(swarm_addpermits_ppm), 0, 0},
    {"swarm", "thread-wait-time", K_DIST, F(swarm_thread_wait), 1000, 0},
    {"swarm", "focus", K_PROB, F(swarm_focus_ppm), 0, 0},
    {"swarm", "idle", K_PROB, F(swarm_idle_ppm), 0, 0},
    {"swarm", "slow", K_PROB, F(swarm_slow_ppm), 0, 0},
    {"swarm", "huge", K_PROB, F(swarm_huge_ppm), 0, 0},
    {"swarm", "single", K_PROB, F(swarm_single_ppm), 0, 0},
    {"swarm", "rearm", K_PROB, F(swarm_rearm_ppm), 0, 0},
    {"swarm", "nested", K_PROB, F(swarm_nested_ppm), 0, 0},
    {"swarm", "listener-gap", K_DIST, F(swarm_listener_gap), 0, 0},
    {"swarm", "stop", K_PROB, F(swarm_stop_ppm), 0, 0},
    {"swarm", "within-contract", K_BOOL, F(swarm_within), 0, 0},
    {"swarm", "reference", K_STR, F(swarm_reference), 0, 0},
    {"expect", "liveness-bound", K_DURATION, F(liveness_bound_us), 1, 0},
    {"expect", "min-acquisitions", K_INT64, F(min_acquisitions), 0, INT64_MAX},
    {"expect", "starvation-bound", K_INT64, F(starvation_bound), 1, INT64_MAX},
};

static const char *const sections[] = {"scenario", "redis", "protocol", "clients", "steps",
                                       "faults", "nemesis", "swarm", "resource", "expect", NULL};

static const char *const nemesis_kinds[] = {"pause",      "crash",      "partition",   "clock",
                                            "node-crash", "node-pause", "failover",    "drop-reply",
                                            "drop-pubsub", "disconnect", "delay",      "fail-reply",
                                            "client-clock", NULL};

const char *scn_nemesis_kind_name(int bit)
{
    for (int i = 0; nemesis_kinds[i]; i++)
        if (bit == (1 << i)) return nemesis_kinds[i];
    return "?";
}

static const char *const invariant_names[SCN_INV_COUNT] = {
    "mutual-exclusion", "reentrancy", "liveness", "deadlock", "fencing",
    "fifo", "starvation", "rw-exclusion", "permits", "latch", "leases", "dead-holder"};

const char *scn_invariant_name(scn_invariant inv)
{
    return inv < SCN_INV_COUNT ? invariant_names[inv] : "?";
}

const key_def *scn_key_at(size_t i)
{
    return i < sizeof keys / sizeof keys[0] ? &keys[i] : NULL;
}

const char *scn_section_at(size_t i)
{
    return i < sizeof sections / sizeof sections[0] ? sections[i] : NULL;
}

int scn_lock_name_ok(const char *name)
{
    if (*name == '\0') return 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c <= ' ' || *c == 0x7f || *c == ',' || *c == ';') return 0;
    return 1;
}

/* ---------------------------------------------------------- the parser */

typedef struct parser {
    char bad_section[64]; /* the unknown section reported (its keys say nothing more) */
    scenario *s;
    scn_error *err;
    int line;       /* of the line inih is handling */
    int failed;
    const char *text; /* scn_load_string source */
    FILE *file;
    int too_long;
} parser;

static void fail(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(parser *p, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    scn_error_add(p->err, line, "%s", msg);
    p->failed = 1;
}

int scn_error_count(const scn_error *err)
{
    return err->msg[0] ? 1 + err->nmore : 0;
}

void scn_error_add(scn_error *err, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err->msg[0] == '\0') {
        err->line = line;
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    } else if (err->nmore < SCN_ERRORS_MAX - 1) {
        err->more[err->nmore].line = line;
        snprintf(err->more[err->nmore].msg, sizeof err->more[0].msg, "%s", msg);
        err->nmore++;
    }
}

void scn_error_sort(scn_error *err)
{
    int n = scn_error_count(err);
    if (n < 2) return;
    typedef struct one {
        int line;
        char msg[512];
    } one;
    one v[SCN_ERRORS_MAX];
    v[0].line = err->line;
    snprintf(v[0].msg, sizeof v[0].msg, "%s", err->msg);
    for (int i = 1; i < n; i++) {
        v[i].line = err->more[i - 1].line;
        snprintf(v[i].msg, sizeof v[i].msg, "%s", err->more[i - 1].msg);
    }
    for (int i = 1; i < n; i++) /* insertion sort, stable: lines first, in order, then line 0 */
        for (int j = i; j > 0; j--) {
            int a = v[j - 1].line, b = v[j].line;
            if (!((a == 0 && b > 0) || (a > 0 && b > 0 && b < a))) break;
            one t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    err->line = v[0].line;
    snprintf(err->msg, sizeof err->msg, "%s", v[0].msg);
    for (int i = 1; i < n; i++) {
        err->more[i - 1].line = v[i].line;
        snprintf(err->more[i - 1].msg, sizeof err->more[0].msg, "%s", v[i].msg);
    }
}

/* The value as a quoted, escaped token for messages. */
static const char *tok(const char *v, char *buf, size_t cap)
{
    sim_repr(v, strlen(v), buf, cap);
    return buf;
}

static int set_key(parser *p, const key_def *k, const char *v)
{
    char t[160];
    char *base = (char *)p->s;
    switch (k->kind) {
    case K_DURATION: {
        int64_t d;
        if (scn_parse_duration(v, &d) != 0) {
            fail(p, p->line, "bad duration for '%s' (got %s; write e.g. 250ms, 10s, 1.5m)",
                 k->name, tok(v, t, sizeof t));
            return 0;
        }
        if (d < k->min) {
            char m[32];
            scn_duration_format(k->min, m, sizeof m);
            fail(p, p->line, "'%s' must be at least %s (got %s)", k->name, m, tok(v, t, sizeof t));
            return 0;
        }
        *(int64_t *)(base + k->off) = d;
        return 1;
    }
    case K_DIST: {
        scn_dist d;
        if (scn_parse_dist(v, &d) != 0) {
            fail(p, p->line,
                 "bad distribution for '%s' (got %s; write 5ms, 1ms..20ms or exp(50ms))",
                 k->name, tok(v, t, sizeof t));
            return 0;
        }
        if (!strcmp(k->section, "swarm") && d.kind == SCN_DIST_EXP) {
            fail(p, p->line, "[swarm] %s takes bounds, A..B or one value (got %s)", k->name, tok(v, t, sizeof t));
            return 0;
        }
        /* the mean, rounded up: a, (a + b) / 2, or exp's a; a [swarm]
         * range is a set of choices: its least */
        int64_t mean = d.kind == SCN_DIST_UNIFORM && strcmp(k->section, "swarm") ? (d.a_us + d.b_us + 1) / 2 : d.a_us;
        if (mean < k->min) {
            char m[32];
            scn_duration_format(k->min, m, sizeof m);
            fail(p, p->line, "'%s' must %s at least %s (got %s)", k->name, strcmp(k->section, "swarm") ? "average" : "be",
                 m, tok(v, t, sizeof t));
            return 0;
        }
        *(scn_dist *)(base + k->off) = d;
        if (k->off == F(swarm_thread_wait)) p->s->swarm_thread_wait_line = p->line; /* for a refusal */
        return 1;
    }
    case K_COUNTS: {
        scn_dist *d = (scn_dist *)(base + k->off);
        long long a, b;
        int n = 0;
        if (sscanf(v, "%lld..%lld%n", &a, &b, &n) == 2 && v[n] == '\0' && a >= 1 && b >= a) {
            *d = (scn_dist){SCN_DIST_UNIFORM, a, b};
        } else if (sscanf(v, "%lld%n", &a, &n) == 1 && v[n] == '\0' && a >= 1) {
            *d = (scn_dist){SCN_DIST_CONST, a, a};
        } else {
            fail(p, p->line, "'%s' is a count from 1 or a range A..B (got %s)", k->name, tok(v, t, sizeof t));
            return 0;
        }
        if (k->off == F(lend_permits)) p->s->lend_line = p->line;
        if (k->off == F(acquire_permits)) p->s->permits_line = p->line;
        return 1;
    }
    case K_INT:
    case K_INT64: {
        int64_t n;
        if (scn_parse_int(v, &n) != 0 || n < k->min || n > k->max) {
            fail(p, p->line, "'%s' must be an integer from %lld to %lld (got %s)", k->name,
                 (long long)k->min, (long long)k->max, tok(v, t, sizeof t));
            return 0;
        }
        if (k->kind == K_INT) *(int *)(base + k->off) = (int)n;
        else *(int64_t *)(base + k->off) = n;
        if (k->off == F(init_permits)) p->s->init_permits_line = p->line;
        return 1;
    }
    case K_PROB:
        if (scn_parse_prob(v, (int *)(base + k->off)) != 0) {
            fail(p, p->line, "'%s' must be a probability such as 0.25 or 25%% (got %s)", k->name,
                 tok(v, t, sizeof t));
            return 0;
        }
        /* where a key only some protocols take was set, for their refusal */
        if (k->off == F(reentry_ppm)) p->s->reentry_line = p->line;
        if (k->off == F(switch_ppm)) p->s->switch_line = p->line;
        if (k->off == F(swarm_switch_ppm)) p->s->swarm_switch_line = p->line;
        if (k->off == F(addpermits_ppm) || k->off == F(swarm_addpermits_ppm)) p->s->addpermits_line = p->line;
        if (k->off == F(swarm_huge_ppm)) p->s->swarm_huge_line = p->line;
        if (k->off == F(swarm_single_ppm)) p->s->swarm_single_line = p->line;
        if (k->off == F(rearm_ppm) || k->off == F(swarm_rearm_ppm)) p->s->rearm_line = p->line;
        if (k->off == F(swarm_reject_stale_ppm)) p->s->swarm_reject_stale_line = p->line;
        return 1;
    case K_STR: {
        char **dst = (char **)(base + k->off);
        if (k->off == F(protocol)) p->s->protocol_line = p->line;
        if (k->off == F(scripts)) p->s->scripts_line = p->line;
        if (k->off == F(scripts) && *v == '\0') {
            fail(p, p->line, "'scripts' wants a folder of NAME.lua files (locksim scripts PROTOCOL DIR writes one)");
            return 0;
        }
        sim_xfree(*dst);
        *dst = sim_xstrdup(v);
        return 1;
    }
    case K_BOOL:
        if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1")) {
            *(int *)(base + k->off) = 1;
        } else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0")) {
            *(int *)(base + k->off) = 0;
        } else {
            fail(p, p->line, "'%s' must be yes or no (got %s)", k->name, tok(v, t, sizeof t));
            return 0;
        }
        return 1;
    case K_LEASE: {
        int64_t d;
        if (!strcmp(v, "-1") || !strcmp(v, "watchdog")) {
            d = SCN_LEASE_WATCHDOG;
        } else if (scn_parse_duration(v, &d) != 0 || d < 0) {
            fail(p, p->line, "bad lease (got %s; write a duration such as 10s, or -1 for the watchdog)",
                 tok(v, t, sizeof t));
            return 0;
        }
        *(int64_t *)(base + k->off) = d;
        return 1;
    }
    case K_RUNAWAY:
        if (!strcmp(v, "stop") || !strcmp(v, "busy")) {
            *(int *)(base + k->off) = !strcmp(v, "busy");
            return 1;
        }
        fail(p, p->line, "'runaway' must be stop or busy (got %s)", tok(v, t, sizeof t));
        return 0;
    case K_MODE:
        if (!strcmp(v, "lock")) p->s->mode = SCN_MODE_LOCK;
        else if (!strcmp(v, "trylock")) p->s->mode = SCN_MODE_TRYLOCK;
        else {
            fail(p, p->line, "'mode' must be lock or trylock (got %s)", tok(v, t, sizeof t));
            return 0;
        }
        return 1;
    case K_LOCKS: {
        for (int i = 0; i < p->s->nlocks; i++) sim_xfree(p->s->lock_names[i]);
        p->s->nlocks = 0;
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", v);
        for (char *save = NULL, *n = strtok_r(buf, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
            if (!scn_lock_name_ok(n)) {
                fail(p, p->line, "bad lock name %s (no spaces, control characters, ',' or ';')", tok(n, t, sizeof t));
                return 0;
            }
            if (p->s->nlocks == SCN_MAX_LOCKS) {
                fail(p, p->line, "at most %d locks", SCN_MAX_LOCKS);
                return 0;
            }
            p->s->lock_names[p->s->nlocks++] = sim_xstrdup(n);
        }
        if (p->s->nlocks == 0) {
            fail(p, p->line, "'locks' needs at least one lock name");
            return 0;
        }
        return 1;
    }
    case K_KINDS: {
        int bits = 0;
        char buf[512];
        snprintf(buf, sizeof buf, "%s", v);
        for (char *save = NULL, *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
            if (!strcmp(w, "any")) { /* swarm: each seed draws its kinds among all */
                p->s->nemesis_any = 1;
                bits |= (1 << SCN_NEM_COUNT) - 1;
                continue;
            }
            int i;
            for (i = 0; nemesis_kinds[i]; i++)
                if (!strcmp(w, nemesis_kinds[i])) break;
            if (nemesis_kinds[i] == NULL) {
                const char *near = sim_closest(w, nemesis_kinds, SCN_NEM_COUNT);
                if (near) {
                    fail(p, p->line, "unknown nemesis kind %s (did you mean %s?)", tok(w, t, sizeof t), near);
                    return 0;
                }
                fail(p, p->line, "unknown nemesis kind %s (pause, crash, partition, clock, node-crash, "
                                 "node-pause, failover, drop-reply, drop-pubsub, disconnect, delay, fail-reply, "
                                 "client-clock, or any)",
                     tok(w, t, sizeof t));
                return 0;
            }
            bits |= 1 << i;
        }
        *(int *)(base + k->off) = bits;
        return 1;
    }
    case K_CRASH_ON:
        if (!strcmp(v, "time")) *(int *)(base + k->off) = SCN_CRASH_ON_TIME;
        else if (!strcmp(v, "reply")) *(int *)(base + k->off) = SCN_CRASH_ON_REPLY;
        else {
            fail(p, p->line, "'%s' is time or reply (got %s)", k->name, tok(v, t, sizeof t));
            return 0;
        }
        return 1;
    case K_SEED: {
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        if (!*v || *end || v[0] == '-') {
            fail(p, p->line, "'seed' must be a non-negative integer (got %s)", tok(v, t, sizeof t));
            return 0;
        }
        p->s->seed = n;
        p->s->has_seed = 1;
        return 1;
    }
    }
    return 0;
}

/* ------------------------------------------------------ timed lines */

static int lock_index(void *ud, const char *name)
{
    parser *p = ud;
    for (int i = 0; i < p->s->nlocks; i++)
        if (!strcmp(p->s->lock_names[i], name)) return i;
    if (p->s->nlocks == SCN_MAX_LOCKS) return -1;
    p->s->lock_names[p->s->nlocks] = sim_xstrdup(name);
    return p->s->nlocks++;
}

static int parse_timed(parser *p, const char *section, const char *value)
{
    scn_step st;
    char msg[400];
    if (scn_step_parse(section, value, p->line, &st, lock_index, p, msg, sizeof msg) != 0) {
        fail(p, p->line, "%s", msg);
        return 0;
    }
    scenario *s = p->s;
    if (s->nsteps == s->steps_cap) {
        s->steps_cap = s->steps_cap ? s->steps_cap * 2 : 16;
        s->steps = sim_xrealloc(s->steps, s->steps_cap * sizeof *s->steps);
    }
    s->steps[s->nsteps++] = st;
    return 1;
}

/* " (did you mean X?)" for an unknown key of section, or " (it is a key
 * of [S])" when another section has it; "" when nothing is near. */
static const char *key_hint(const char *section, const char *name, char *buf, size_t cap)
{
    const char *names[sizeof keys / sizeof keys[0] + SCN_INV_COUNT];
    size_t n = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].section, section)) names[n++] = keys[i].name;
    if (!strcmp(section, "expect"))
        for (int i = 0; i < SCN_INV_COUNT; i++) names[n++] = invariant_names[i];
    const char *near = sim_closest(name, names, n);
    buf[0] = '\0';
    if (near) {
        snprintf(buf, cap, " (did you mean %s?)", near);
        return buf;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].name, name)) {
            snprintf(buf, cap, " (it is a key of [%s])", keys[i].section);
            break;
        }
    return buf;
}

static int parse_expect(parser *p, const char *name, const char *value)
{
    char t[160];
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        if (strcmp(name, invariant_names[i]) != 0) continue;
        if (!strcmp(value, "held")) p->s->expect[i] = SCN_EXPECT_HELD;
        else if (!strcmp(value, "violated")) p->s->expect[i] = SCN_EXPECT_VIOLATED;
        else if (!strcmp(value, "any")) p->s->expect[i] = SCN_EXPECT_ANY;
        else {
            fail(p, p->line, "expectation for '%s' must be held, violated or any (got %s)", name,
                 tok(value, t, sizeof t));
            return 0;
        }
        return 1;
    }
    return -1; /* not an invariant: maybe a key */
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parser *p = user;
    char t[160];
    if (scn_error_count(p->err) >= SCN_ERRORS_MAX) return 1; /* enough to say */
    if (p->too_long) {
        fail(p, p->line, "line too long (at most %d characters)", SCN_LINE_MAX);
        return 0;
    }
    size_t si;
    for (si = 0; sections[si]; si++)
        if (!strcmp(section, sections[si])) break;
    if (sections[si] && !strcmp(section, "nemesis")) p->s->nemesis = 1;
    if (sections[si] && !strcmp(section, "swarm")) p->s->swarm_section = 1;
    if (sections[si] == NULL) {
        if (*section && strcmp(section, p->bad_section) != 0) {
            const char *near = sim_closest(section, sections, si);
            fail(p, p->line, "unknown section [%s]%s%s%s", section, near ? " (did you mean [" : "", near ? near : "",
                 near ? "]?)" : "");
            snprintf(p->bad_section, sizeof p->bad_section, "%s", section);
        } else if (!*section) {
            fail(p, p->line, "key %s outside any section", tok(name, t, sizeof t));
        }
        return 0;
    }
    if (!strcmp(section, "steps") || !strcmp(section, "faults")) {
        if (strcmp(name, "at") != 0) {
            fail(p, p->line, "unknown key '%s' in [%s] (timed lines are written 'at = ...')", name,
                 section);
            return 0;
        }
        return parse_timed(p, section, value);
    }
    if (!strcmp(section, "expect")) {
        int r = parse_expect(p, name, value);
        if (r >= 0) return r;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
            return set_key(p, &keys[i], value);
    fail(p, p->line, "unknown key '%s' in [%s]%s", name, section, key_hint(section, name, t, sizeof t));
    return 0;
}

/* inih calls the handler for keys only: a "[nemesis]" header with no key
 * below it (the nemesis with its defaults) is seen here, as the readers
 * pass the line on. */
static void note_section(parser *p, const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    int *flag = !strncmp(line, "[nemesis]", 9) ? &p->s->nemesis : !strncmp(line, "[swarm]", 7) ? &p->s->swarm_section : NULL;
    if (flag == NULL) return;
    for (line = strchr(line, ']') + 1; *line == ' ' || *line == '\t' || *line == '\r' || *line == '\n'; line++) {}
    if (*line == '\0' || *line == ';' || *line == '#') *flag = 1;
}

/* fgets-style readers that count lines (inih does not tell them) and
 * refuse what inih would silently cut: long lines and NUL bytes. */
static char *read_file_line(char *str, int num, void *stream)
{
    parser *p = stream;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, p->file);
    if (n < 0) {
        free(line);
        return NULL;
    }
    p->line++;
    p->too_long = n >= num;
    if (memchr(line, '\0', (size_t)n)) {
        fail(p, p->line, "the line holds a NUL byte (is this a scenario file?)");
        line[0] = '\0';
    }
    size_t keep = (size_t)n < (size_t)num - 1 ? (size_t)n : (size_t)num - 1;
    memcpy(str, line, keep);
    str[keep] = '\0';
    free(line);
    note_section(p, str);
    return str;
}

static char *read_string_line(char *str, int num, void *stream)
{
    parser *p = stream;
    if (*p->text == '\0') return NULL;
    const char *nl = strchr(p->text, '\n');
    size_t n = nl ? (size_t)(nl - p->text) + 1 : strlen(p->text);
    p->too_long = n >= (size_t)num;
    if (n >= (size_t)num) n = (size_t)num - 1;
    memcpy(str, p->text, n);
    str[n] = '\0';
    p->text = nl ? nl + 1 : p->text + strlen(p->text);
    p->line++;
    note_section(p, str);
    return str;
}

/* ------------------------------------------------------------ defaults */

void scn_defaults(scenario *s)
{
    memset(s, 0, sizeof *s);
    s->duration_us = 0;
    s->drain_us = SIM_SEC(60);
    s->nodes = 1;
    s->latency = (scn_dist){SCN_DIST_UNIFORM, 100, 500};
    s->replication_lag = (scn_dist){SCN_DIST_UNIFORM, 200, 2000};
    s->down_after_us = SIM_SEC(5);
    s->discovery_us = SIM_SEC(1);
    s->protocol = NULL;
    s->lease_us = SCN_LEASE_WATCHDOG;
    s->wait_us = SIM_SEC(5);
    s->mode = SCN_MODE_LOCK;
    s->watchdog_us = SIM_SEC(30);
    s->timeout_us = SIM_SEC(3);
    s->retry_attempts = -1;
    s->retry_interval_us = -1;
    s->poll_us = SIM_MS(100);
    s->renew = 0;
    s->synced = -1;
    s->thread_wait_us = -1;
    s->reject_stale = 1;
    s->clients = 0;
    s->threads = 1;
    s->hold = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_MS(10)};
    s->think = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_MS(20)};
    s->start = (scn_dist){SCN_DIST_UNIFORM, 0, SIM_MS(10)};
    s->reentry_depth = 1;
    s->members = 3;
    s->acquire_permits = (scn_dist){SCN_DIST_CONST, 1, 1};
    s->init_permits = 1;
    s->init_count = 1;
    s->liveness_bound_us = 0;
    s->nemesis_kinds = SCN_NEM_PAUSE | SCN_NEM_CRASH | SCN_NEM_PARTITION | SCN_NEM_CLOCK;
    s->nemesis_interval = (scn_dist){SCN_DIST_EXP, SIM_SEC(10), 0};
    s->nemesis_duration = (scn_dist){SCN_DIST_UNIFORM, SIM_SEC(1), SIM_SEC(10)};
    s->nemesis_jump = (scn_dist){SCN_DIST_UNIFORM, SIM_SEC(1), SIM_SEC(30)};
    s->nemesis_start_us = SIM_SEC(1);
    s->nemesis_stop_us = -1;
    s->nemesis_p_ppm = 300000;
    s->swarm_clients = (scn_dist){SCN_DIST_UNIFORM, 2, 6};
    s->swarm_threads = (scn_dist){SCN_DIST_UNIFORM, 1, 2};
    s->swarm_hold = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_SEC(3)};
    s->swarm_think = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_SEC(1)};
    s->swarm_reentry_ppm = 500000;
    s->swarm_lease = (scn_dist){SCN_DIST_UNIFORM, SIM_SEC(1), SIM_SEC(40)};
    s->swarm_watchdog_ppm = 500000;
    s->swarm_interval = (scn_dist){SCN_DIST_UNIFORM, SIM_SEC(1), SIM_SEC(20)};
    s->swarm_duration = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(100), SIM_SEC(15)};
    s->swarm_wait = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(10), SIM_SEC(10)};
}

const char *scn_protocol_label(const scenario *s, char *buf, size_t cap)
{
    if (s->scripts) snprintf(buf, cap, "%s+scripts(%s)", s->protocol, s->scripts);
    else snprintf(buf, cap, "%s", s->protocol ? s->protocol : "");
    return buf;
}

int scn_has_acquire_lease(const scenario *s)
{
    return !(s->acquire_lease.kind == SCN_DIST_CONST && s->acquire_lease.a_us == 0); /* a set one averages 1ms+ */
}

/* The step's names resolved against the topology (scn_step_resolve),
 * then what a failover needs. */
static void check_names(parser *p, scn_step *st)
{
    const scenario *s = p->s;
    char msg[400];
    if (scn_step_resolve(s, st, msg, sizeof msg) != 0)
        fail(p, st->line, "%s", msg);
    else if (st->op == SCN_FAULT_FAILOVER && st->group >= s->nodes)
        fail(p, st->line, "no group %d: the scenario has %d", st->group, s->nodes);
    else if (st->op == SCN_FAULT_FAILOVER && s->replicas == 0)
        fail(p, st->line, "failover needs replicas ([redis] replicas = 1 or more)");
}

/* Checks that need the whole file; line 0 when no one line is at fault. */
static void validate(parser *p)
{
    scenario *s = p->s;
    if (s->name == NULL) {
        const char *base = strrchr(s->path, '/');
        s->name = sim_xstrdup(base ? base + 1 : s->path);
    }
    if (s->protocol == NULL) fail(p, 0, "[protocol] name is required (see 'locksim list')");
    if (s->duration_us == 0) fail(p, 0, "[scenario] duration is required (a run must end)");
    if (s->clients == 0 && s->nsteps == 0)
        fail(p, 0, "nothing to run: give [clients] count or [steps]");
    if (s->nlocks == 0) s->lock_names[s->nlocks++] = sim_xstrdup("lock");
    if (s->liveness_bound_us == 0) s->liveness_bound_us = SIM_SEC(1);
    if (s->nemesis_stop_us < 0) s->nemesis_stop_us = s->duration_us - s->duration_us / 5;
    s->swarm = s->swarm_section || (s->nemesis && s->nemesis_any);
    if (s->nemesis && !s->nemesis_any && (s->nemesis_kinds & SCN_NEM_FAILOVER) && s->replicas == 0)
        fail(p, 0, "[nemesis] failover needs [redis] replicas");
    int max_clients = scn_max_client(s);
    for (size_t i = 0; i < s->nsteps && !p->failed; i++) {
        scn_step *st = &s->steps[i];
        char at[32], dur[32];
        scn_duration_format(st->at_us, at, sizeof at);
        scn_duration_format(s->duration_us, dur, sizeof dur);
        if (st->at_us > s->duration_us)
            fail(p, st->line, "this line runs at %s, after the end of the run (duration %s)", at, dur);
        else if (st->client > max_clients)
            fail(p, st->line, "no client %d: the scenario has %d", st->client, max_clients);
        else
            check_names(p, st);
    }
}

static int finish(parser *p, int rc)
{
    scenario *s = p->s;
    if (rc == -1) fail(p, 0, "cannot read the file");
    else if (rc == -2) fail(p, 0, "out of memory while parsing");
    else if (rc > 0 && !p->failed) fail(p, rc, "syntax error (expected [section] or 'key = value')");
    if (!p->failed) validate(p);
    if (s->protocol) { /* for a check of the name against the catalogue, even now */
        snprintf(p->err->protocol, sizeof p->err->protocol, "%s", s->protocol);
        p->err->protocol_line = s->protocol_line;
    }
    if (p->failed) {
        scn_error_sort(p->err);
        scn_free(s);
        return -1;
    }
    return 0;
}

/* Applies the overrides as if the file ended with them. */
static void apply_overrides(parser *p, const scn_override *ov, size_t n)
{
    for (size_t i = 0; i < n && !p->failed; i++) {
        p->line = 0;
        handler(p, ov[i].section, ov[i].key, ov[i].value);
        if (p->failed) {
            char msg[sizeof p->err->msg];
            snprintf(msg, sizeof msg, "%s", p->err->msg);
            snprintf(p->err->msg, sizeof p->err->msg, "%s.%s = %.100s: %.380s", ov[i].section, ov[i].key,
                     ov[i].value, msg);
        }
    }
}

int scn_key_resolve(const char *name, const char **section, const char **key, char *why, size_t cap)
{
    static const char *const main_key[][2] = {{"clients", "count"}, {"protocol", "name"}, {"redis", "nodes"}};
    const char *dot = strchr(name, '.');
    size_t found = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const key_def *k = &keys[i];
        int match = dot ? strlen(k->section) == (size_t)(dot - name) && !strncmp(name, k->section, (size_t)(dot - name)) &&
                              !strcmp(dot + 1, k->name)
                        : !strcmp(name, k->name);
        if (!match) continue;
        /* [swarm] repeats the workload's names as bounds: by name alone,
         * "hold" is clients.hold; the bound is swarm.hold. */
        if (!dot && !strcmp(k->section, "swarm")) continue;
        if (found++ == 0) {
            *section = k->section;
            *key = k->name;
        }
    }
    for (size_t i = 0; !dot && found == 0 && i < sizeof main_key / sizeof main_key[0]; i++)
        if (!strcmp(name, main_key[i][0])) {
            *section = main_key[i][0];
            *key = main_key[i][1];
            found = 1;
        }
    if (found == 1) return 0;
    if (found > 1) {
        snprintf(why, cap, "\"%s\" is a key of several sections: write SECTION.%s (e.g. %s.%s)", name, name, *section,
                 name);
        return -1;
    }
    snprintf(why, cap, "no scenario key \"%s\" (write SECTION.KEY, e.g. clients.count, clients.hold, protocol.lease)",
             name);
    return -1;
}

int scn_load(const char *path, scenario *out, scn_error *err)
{
    return scn_load_with(path, NULL, 0, out, err);
}

int scn_load_with(const char *path, const scn_override *ov, size_t n, scenario *out, scn_error *err)
{
    parser p = {.s = out, .err = err};
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    scn_defaults(out);
    out->path = sim_xstrdup(path);
    p.file = fopen(path, "r");
    if (p.file == NULL) {
        fail(&p, 0, "cannot open the scenario file");
        scn_free(out);
        return -1;
    }
    int rc = ini_parse_stream(read_file_line, &p, handler, &p);
    fclose(p.file);
    if (rc == 0) apply_overrides(&p, ov, n);
    return finish(&p, rc);
}

int scn_load_string(const char *path, const char *text, scenario *out, scn_error *err)
{
    parser p = {.s = out, .err = err, .text = text};
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    scn_defaults(out);
    out->path = sim_xstrdup(path);
    int rc = ini_parse_stream(read_string_line, &p, handler, &p);
    return finish(&p, rc);
}

void scn_free(scenario *s)
{
    sim_xfree(s->path);
    sim_xfree(s->name);
    sim_xfree(s->protocol);
    sim_xfree(s->scripts);
    sim_xfree(s->expire_mode);
    sim_xfree(s->swarm_reference);
    for (int i = 0; i < s->nlocks; i++) sim_xfree(s->lock_names[i]);
    sim_xfree(s->steps);
    memset(s, 0, sizeof *s);
}

void scn_error_print(const scn_error *err)
{
    if (err->line > 0) fprintf(stderr, "%s:%d: %s\n", err->path, err->line, err->msg);
    else fprintf(stderr, "%s: %s\n", err->path, err->msg);
    for (int i = 0; i < err->nmore; i++) {
        if (err->more[i].line > 0) fprintf(stderr, "%s:%d: %s\n", err->path, err->more[i].line, err->more[i].msg);
        else fprintf(stderr, "%s: %s\n", err->path, err->more[i].msg);
    }
}
