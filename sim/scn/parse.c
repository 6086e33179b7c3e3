/* parse.c — reads a .scn file with inih and fills a scenario: a table of
 * known keys per section with their value kinds and limits, the timed
 * lines of [steps] and [faults], and the checks that need the whole file.
 * The first error wins and is reported as "path:line: message"; the
 * reader counts lines itself, since inih's handler is not given them. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "scn_int.h"

/* ------------------------------------------------------------ the keys */

typedef enum key_kind {
    K_DURATION, /* int64 µs, >= min */
    K_DIST,     /* scn_dist */
    K_INT,      /* int, in [min, max] */
    K_INT64,    /* int64, in [min, max] */
    K_PROB,     /* int ppm */
    K_STR,      /* char *, owned */
    K_BOOL,     /* int 0/1 */
    K_LEASE,    /* int64 µs or -1 ("watchdog" / -1) */
    K_MODE,     /* scn_mode */
    K_LOCKS,    /* comma-separated lock names */
    K_SEED      /* uint64 + has_seed */
} key_kind;

typedef struct key_def {
    const char *section;
    const char *name;
    key_kind kind;
    size_t off;
    int64_t min, max;
} key_def;

#define F(field) offsetof(scenario, field)

static const key_def keys[] = {
    {"scenario", "name", K_STR, F(name), 0, 0},
    {"scenario", "duration", K_DURATION, F(duration_us), 1, 0},
    {"scenario", "seed", K_SEED, F(seed), 0, 0},
    {"scenario", "drain", K_DURATION, F(drain_us), 0, 0},
    {"redis", "nodes", K_INT, F(nodes), 1, 15},
    {"redis", "replicas", K_INT, F(replicas), 0, 8},
    {"redis", "latency", K_DIST, F(latency), 0, 0},
    {"protocol", "name", K_STR, F(protocol), 0, 0},
    {"protocol", "lease", K_LEASE, F(lease_us), 0, 0},
    {"protocol", "wait", K_DURATION, F(wait_us), 0, 0},
    {"protocol", "mode", K_MODE, F(mode), 0, 0},
    {"protocol", "watchdog-timeout", K_DURATION, F(watchdog_us), 3000, 0},
    {"protocol", "timeout", K_DURATION, F(timeout_us), 1000, 0},
    {"protocol", "retry-attempts", K_INT, F(retry_attempts), 0, 100},
    {"protocol", "retry-interval", K_DURATION, F(retry_interval_us), 0, 0},
    {"protocol", "poll", K_DURATION, F(poll_us), 1000, 0},
    {"protocol", "expire-mode", K_STR, F(expire_mode), 0, 0},
    {"protocol", "renew", K_BOOL, F(renew), 0, 0},
    {"protocol", "locks", K_LOCKS, 0, 0, 0},
    {"clients", "count", K_INT, F(clients), 0, 100000},
    {"clients", "threads", K_INT, F(threads), 1, 1000},
    {"clients", "hold", K_DIST, F(hold), 0, 0},
    {"clients", "think", K_DIST, F(think), 0, 0},
    {"clients", "start", K_DIST, F(start), 0, 0},
    {"clients", "reentry", K_PROB, F(reentry_ppm), 0, 0},
    {"clients", "reentry-depth", K_INT, F(reentry_depth), 1, 64},
    {"clients", "ops", K_INT64, F(ops_per_thread), 0, INT64_MAX},
    {"expect", "liveness-bound", K_DURATION, F(liveness_bound_us), 1, 0},
    {"expect", "min-acquisitions", K_INT64, F(min_acquisitions), 0, INT64_MAX},
};

static const char *const sections[] = {"scenario", "redis", "protocol", "clients",
                                       "steps", "faults", "expect", NULL};

static const char *const invariant_names[SCN_INV_COUNT] = {
    "mutual-exclusion", "reentrancy", "liveness", "deadlock"};

const char *scn_invariant_name(scn_invariant inv)
{
    return inv < SCN_INV_COUNT ? invariant_names[inv] : "?";
}

/* ---------------------------------------------------------- the parser */

typedef struct parser {
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
    if (p->failed) return;
    p->failed = 1;
    p->err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
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
    case K_DIST:
        if (scn_parse_dist(v, (scn_dist *)(base + k->off)) != 0) {
            fail(p, p->line,
                 "bad distribution for '%s' (got %s; write 5ms, 1ms..20ms or exp(50ms))",
                 k->name, tok(v, t, sizeof t));
            return 0;
        }
        return 1;
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
        return 1;
    }
    case K_PROB:
        if (scn_parse_prob(v, (int *)(base + k->off)) != 0) {
            fail(p, p->line, "'%s' must be a probability such as 0.25 or 25%% (got %s)", k->name,
                 tok(v, t, sizeof t));
            return 0;
        }
        return 1;
    case K_STR: {
        char **dst = (char **)(base + k->off);
        if (k->off == F(protocol)) p->s->protocol_line = p->line;
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

static const struct {
    const char *name;
    scn_op op;
} op_names[] = {
    {"lock", SCN_OP_LOCK},           {"trylock", SCN_OP_TRYLOCK},
    {"unlock", SCN_OP_UNLOCK},       {"forceunlock", SCN_OP_FORCEUNLOCK},
    {"islocked", SCN_OP_ISLOCKED},   {"held", SCN_OP_HELD},
    {"holdcount", SCN_OP_HOLDCOUNT}, {"crash", SCN_FAULT_CRASH},
    {"restart", SCN_FAULT_RESTART},  {"pause", SCN_FAULT_PAUSE},
};

static int is_fault(scn_op op)
{
    return op >= SCN_FAULT_CRASH;
}

/* "c3", "c3.t2", "3": client and thread numbers. */
static int parse_client(const char *s, int *client, int *thread)
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

static int lock_index(parser *p, const char *name)
{
    for (int i = 0; i < p->s->nlocks; i++)
        if (!strcmp(p->s->lock_names[i], name)) return i;
    if (p->s->nlocks == SCN_MAX_LOCKS) return -1;
    p->s->lock_names[p->s->nlocks] = sim_xstrdup(name);
    return p->s->nlocks++;
}

/* One "key=value" option of a timed line. */
static int step_option(parser *p, scn_step *st, const char *word)
{
    char t[160];
    const char *eq = strchr(word, '=');
    if (eq == NULL) {
        fail(p, p->line, "unexpected word %s (options are written key=value)", tok(word, t, sizeof t));
        return -1;
    }
    size_t klen = (size_t)(eq - word);
    const char *v = eq + 1;
    if (klen == 4 && !strncmp(word, "wait", 4)) {
        if (scn_parse_duration(v, &st->wait_us) != 0 || st->wait_us < 0) goto bad_duration;
        st->has_wait = 1;
    } else if (klen == 5 && !strncmp(word, "lease", 5)) {
        if (!strcmp(v, "-1") || !strcmp(v, "watchdog")) st->lease_us = SCN_LEASE_WATCHDOG;
        else if (scn_parse_duration(v, &st->lease_us) != 0 || st->lease_us < 0) goto bad_duration;
        st->has_lease = 1;
    } else if (klen == 3 && !strncmp(word, "for", 3)) {
        if (scn_parse_duration(v, &st->for_us) != 0 || st->for_us <= 0) goto bad_duration;
    } else if (klen == 4 && !strncmp(word, "lock", 4)) {
        st->lock = lock_index(p, v);
        if (st->lock < 0) {
            fail(p, p->line, "at most %d locks", SCN_MAX_LOCKS);
            return -1;
        }
    } else if ((klen == 6 && !strncmp(word, "client", 6))) {
        if (parse_client(v, &st->client, &st->thread) != 0) {
            fail(p, p->line, "bad client (got %s; write client=3 or client=c3)", tok(v, t, sizeof t));
            return -1;
        }
    } else {
        fail(p, p->line, "unknown option %s", tok(word, t, sizeof t));
        return -1;
    }
    return 0;
bad_duration:
    fail(p, p->line, "bad duration in %s", tok(word, t, sizeof t));
    return -1;
}

static int parse_timed(parser *p, const char *section, const char *value)
{
    char buf[512], t[160];
    snprintf(buf, sizeof buf, "%s", value);
    char *save = NULL;
    char *w = strtok_r(buf, " \t", &save);
    scn_step st = {.line = p->line, .wait_us = -1, .lease_us = -1, .lock = 0, .thread = 1};
    if (w == NULL || scn_parse_duration(w, &st.at_us) != 0 || st.at_us < 0) {
        fail(p, p->line, "a timed line starts with its time, e.g. 'at = 10s c1 lock' (got %s)",
             tok(w ? w : "", t, sizeof t));
        return 0;
    }
    w = strtok_r(NULL, " \t", &save);
    int client_given = 0;
    if (w && (w[0] == 'c' && isdigit((unsigned char)w[1]))) {
        if (parse_client(w, &st.client, &st.thread) != 0) {
            fail(p, p->line, "bad client %s (write c3 or c3.t2)", tok(w, t, sizeof t));
            return 0;
        }
        client_given = 1;
        w = strtok_r(NULL, " \t", &save);
    }
    if (w == NULL) {
        fail(p, p->line, "missing operation after the time");
        return 0;
    }
    size_t i;
    for (i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (!strcmp(w, op_names[i].name)) break;
    if (i == sizeof op_names / sizeof op_names[0]) {
        if (!strcmp(section, "faults") || !client_given)
            fail(p, p->line, "unknown fault %s", tok(w, t, sizeof t));
        else
            fail(p, p->line, "unknown operation %s (lock, trylock, unlock, forceunlock, islocked, "
                             "held, holdcount, or a fault)", tok(w, t, sizeof t));
        return 0;
    }
    st.op = op_names[i].op;
    if (!is_fault(st.op) && !strcmp(section, "faults")) {
        fail(p, p->line, "'%s' is a client operation: write it in [steps]", w);
        return 0;
    }
    while ((w = strtok_r(NULL, " \t", &save)) != NULL)
        if (step_option(p, &st, w) != 0) return 0;
    if (st.client == 0) {
        fail(p, p->line, "'%s' needs a client (c3, or client=3)", op_names[i].name);
        return 0;
    }
    if (st.op == SCN_FAULT_PAUSE && st.for_us == 0) {
        fail(p, p->line, "pause needs for=DURATION");
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
    if (p->failed) return 1;
    if (p->too_long) {
        fail(p, p->line, "line too long (at most 199 characters)");
        return 0;
    }
    size_t si;
    for (si = 0; sections[si]; si++)
        if (!strcmp(section, sections[si])) break;
    if (sections[si] == NULL) {
        if (*section) fail(p, p->line, "unknown section [%s]", section);
        else fail(p, p->line, "key %s outside any section", tok(name, t, sizeof t));
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
    fail(p, p->line, "unknown key '%s' in [%s]", name, section);
    return 0;
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
    return str;
}

/* ------------------------------------------------------------ defaults */

static void defaults(scenario *s)
{
    memset(s, 0, sizeof *s);
    s->duration_us = 0;
    s->drain_us = SIM_SEC(60);
    s->nodes = 1;
    s->latency = (scn_dist){SCN_DIST_UNIFORM, 100, 500};
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
    s->clients = 0;
    s->threads = 1;
    s->hold = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_MS(10)};
    s->think = (scn_dist){SCN_DIST_UNIFORM, SIM_MS(1), SIM_MS(20)};
    s->start = (scn_dist){SCN_DIST_UNIFORM, 0, SIM_MS(10)};
    s->reentry_depth = 1;
    s->liveness_bound_us = 0;
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
    int max_clients = s->clients;
    for (size_t j = 0; j < s->nsteps; j++)
        if (!is_fault(s->steps[j].op) && s->steps[j].client > max_clients)
            max_clients = s->steps[j].client;
    for (size_t i = 0; i < s->nsteps && !p->failed; i++) {
        const scn_step *st = &s->steps[i];
        char at[32], dur[32];
        scn_duration_format(st->at_us, at, sizeof at);
        scn_duration_format(s->duration_us, dur, sizeof dur);
        if (st->at_us > s->duration_us)
            fail(p, st->line, "this line runs at %s, after the end of the run (duration %s)", at, dur);
        else if (st->client > max_clients)
            fail(p, st->line, "no client %d: the scenario has %d", st->client, max_clients);
    }
}

static int finish(parser *p, int rc)
{
    scenario *s = p->s;
    if (rc == -1) fail(p, 0, "cannot read the file");
    else if (rc == -2) fail(p, 0, "out of memory while parsing");
    else if (rc > 0 && !p->failed) fail(p, rc, "syntax error (expected [section] or 'key = value')");
    if (!p->failed) validate(p);
    if (p->failed) {
        scn_free(s);
        return -1;
    }
    return 0;
}

int scn_load(const char *path, scenario *out, scn_error *err)
{
    parser p = {.s = out, .err = err};
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    defaults(out);
    out->path = sim_xstrdup(path);
    p.file = fopen(path, "r");
    if (p.file == NULL) {
        fail(&p, 0, "cannot open the scenario file");
        scn_free(out);
        return -1;
    }
    int rc = ini_parse_stream(read_file_line, &p, handler, &p);
    fclose(p.file);
    return finish(&p, rc);
}

int scn_load_string(const char *path, const char *text, scenario *out, scn_error *err)
{
    parser p = {.s = out, .err = err, .text = text};
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    defaults(out);
    out->path = sim_xstrdup(path);
    int rc = ini_parse_stream(read_string_line, &p, handler, &p);
    return finish(&p, rc);
}

void scn_free(scenario *s)
{
    sim_xfree(s->path);
    sim_xfree(s->name);
    sim_xfree(s->protocol);
    sim_xfree(s->expire_mode);
    for (int i = 0; i < s->nlocks; i++) sim_xfree(s->lock_names[i]);
    sim_xfree(s->steps);
    memset(s, 0, sizeof *s);
}

void scn_error_print(const scn_error *err)
{
    if (err->line > 0) fprintf(stderr, "%s:%d: %s\n", err->path, err->line, err->msg);
    else fprintf(stderr, "%s: %s\n", err->path, err->msg);
}
