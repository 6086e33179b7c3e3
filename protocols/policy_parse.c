/* policy_parse.c — reads a lock policy file (policy.h) with inih: its
 * sections and keys, the steps with their reply patterns, the scripts they
 * name (compiled as Redis would, so a syntax error is reported at load
 * with its file and line), and the checks that need the whole file. The
 * first error wins, as "FILE:LINE: what is wrong". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "protocols/policy.h"
#include "sim/fake/fake.h"

typedef struct pparser {
    pol_policy *p;
    scn_error *err;
    int failed, line;
    const char *text;        /* the file's text, read line by line */
    pol_section *sec;        /* the section of steps being read, or NULL */
    char section[32];
    int permits_line, observe_line, semaphore_line; /* where [lock] permits, [observe] type, {permits} / {n} were */
    int members_line;        /* [observe] members */
    int mode_line;           /* [wait] mode */
} pparser;

static int fail(pparser *pp, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(pparser *pp, int line, const char *fmt, ...)
{
    if (pp->failed) return 0;
    pp->failed = 1;
    pp->err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pp->err->msg, sizeof pp->err->msg, fmt, ap);
    va_end(ap);
    return 0;
}

/* ------------------------------------------------------------- files */

/* The text of the policy's file `rel` (its folder first); NULL when none.
 * *owned says whether the caller frees it. */
static char *file_text(const pol_policy *p, const char *rel, size_t *len, int *owned)
{
    char path[1024];
    if (rel[0] == '/' || p->dir[0] == '\0') snprintf(path, sizeof path, "%s", rel);
    else snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    if (p->bundled) {
        *owned = 0;
        for (const proto_bundle_file *f = proto_bundle; f->path; f++)
            if (!strcmp(f->path, path)) {
                *len = f->len;
                return (char *)f->text;
            }
        return NULL;
    }
    char *buf = proto_file_read(path, len);
    *owned = buf != NULL;
    return buf;
}

/* The script file rel of the policy, compiled; NULL after failing. */
static const cl_script *load_script(pparser *pp, const char *rel)
{
    pol_policy *p = pp->p;
    for (size_t i = 0; i < p->nscripts; i++)
        if (!strcmp(p->scripts[i]->name, rel)) return p->scripts[i];
    size_t len;
    int owned;
    char *text = file_text(p, rel, &len, &owned);
    if (text == NULL) {
        fail(pp, pp->line, "script \"%s\" not found (looked in %s)", rel, p->dir[0] ? p->dir : ".");
        return NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", p->dir, p->dir[0] ? "/" : "", rel);
    if (proto_script_compile(path, text, len, pp->err) != 0) {
        pp->failed = 1;
        if (owned) sim_xfree(text);
        return NULL;
    }
    p->scripts = sim_xrealloc(p->scripts, (p->nscripts + 1) * sizeof *p->scripts);
    cl_script *s = sim_xcalloc(1, sizeof *s); /* steps point at it: never moved */
    p->scripts[p->nscripts++] = s;
    s->name = sim_xstrdup(rel);
    s->text = owned ? text : sim_xmemdup(text, len);
    s->len = len;
    fake_sha1hex(s->text, len, s->sha);
    return s;
}

/* ---------------------------------------------------------- templates */

static const char *const placeholders[] = {
    "lock", "key", "owner", "lease_ms", "lease_s", "wait_ms", "now_ms", "thread", "client",
    "uuid", "channel", "random", "seq", "permits", "n", "block_ms", "block_s", NULL,
};

/* 0 when every {name} of t is a placeholder ({random:N}, {base64:N} too). */
static int check_template(pparser *pp, const char *t)
{
    for (const char *c = strchr(t, '{'); c; c = strchr(c + 1, '{')) {
        const char *end = strchr(c, '}');
        if (end == NULL) return fail(pp, pp->line, "\"%s\": a '{' without its '}'", t), -1;
        size_t n = (size_t)(end - c - 1);
        int ok = 0;
        for (int i = 0; placeholders[i] && !ok; i++)
            ok = strlen(placeholders[i]) == n && !strncmp(c + 1, placeholders[i], n);
        if (!ok && (n > 7 && !strncmp(c + 1, "random:", 7))) ok = atoi(c + 8) > 0 && atoi(c + 8) <= 64;
        if (!ok && (n > 7 && !strncmp(c + 1, "base64:", 7))) ok = atoi(c + 8) > 0 && atoi(c + 8) <= 48;
        if (!ok)
            return fail(pp, pp->line,
                        "\"%.*s\" is not a placeholder (lock, key, owner, lease_ms, lease_s, wait_ms, now_ms, "
                        "thread, client, uuid, channel, random, random:N, base64:N, seq, permits, n, block_ms, block_s)",
                        (int)(n + 2), c),
                   -1;
        if ((n == 7 && !strncmp(c + 1, "permits", 7)) || (n == 1 && c[1] == 'n')) {
            if (pp->semaphore_line == 0) pp->semaphore_line = pp->line;
            if (n == 1) pp->p->takes_n = 1;
        }
    }
    return 0;
}

/* Splits value into words (templates) at spaces; appends them to st. */
static int add_words(pparser *pp, pol_step *st, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        if (st->nwords == POL_MAX_WORDS) return fail(pp, pp->line, "more than %d words in a step", POL_MAX_WORDS), -1;
        if (check_template(pp, w) != 0) return -1;
        st->words[st->nwords++] = sim_xstrdup(w);
    }
    return 0;
}

/* ----------------------------------------------------------- patterns */

static const struct {
    const char *name;
    pol_outcome outcome;
    const char *sections; /* where it may appear */
} outcomes[] = {
    {"next", POL_NEXT, "acquire renew release force"},
    {"acquired", POL_ACQUIRED, "acquire"},
    {"held", POL_HELD, "acquire"},
    {"ttl", POL_TTL, "acquire"},
    {"renewed", POL_RENEWED, "renew"},
    {"failed", POL_FAILED, "renew"},
    {"released", POL_RELEASED, "release force"},
    {"not-owner", POL_NOT_OWNER, "release force"},
    {"woken", POL_WOKEN, "wait"},
    {"timed-out", POL_TIMED_OUT, "wait"},
    {"error", POL_ERROR, "acquire renew release force wait"},
};

static int parse_pattern(pparser *pp, const char *w, pol_pattern *pat)
{
    char *end;
    memset(pat, 0, sizeof *pat);
    if (!strcasecmp(w, "OK")) pat->kind = PAT_OK;
    else if (!strcasecmp(w, "nil") || !strcasecmp(w, "false")) pat->kind = PAT_NIL;
    else if (!strcasecmp(w, "true")) pat->kind = PAT_INT_EQ, pat->value = 1;
    else if (!strcmp(w, "int")) pat->kind = PAT_INT;
    else if (!strcmp(w, "int>0")) pat->kind = PAT_INT_GT0;
    else if (!strcmp(w, "int>=0")) pat->kind = PAT_INT_GE0;
    else if (!strcmp(w, "int<0")) pat->kind = PAT_INT_LT0;
    else if (!strcmp(w, "err")) pat->kind = PAT_ERR;
    else if (!strcmp(w, "array")) pat->kind = PAT_ARRAY;
    else if (!strcmp(w, "any")) pat->kind = PAT_ANY;
    else if (w[0] == '{') {
        if (check_template(pp, w) != 0) return -1;
        pat->kind = PAT_TEMPLATE;
        pat->text = sim_xstrdup(w);
    } else {
        long long v = strtoll(w, &end, 10);
        if (end == w || *end)
            return fail(pp, pp->line,
                        "\"%s\" is not a reply pattern (OK, nil, an integer, int, int>0, int>=0, int<0, err, "
                        "array, any, {owner})",
                        w),
                   -1;
        pat->kind = PAT_INT_EQ;
        pat->value = v;
    }
    return 0;
}

/* "OUTCOME = P, P ..." after a step. */
static int add_patterns(pparser *pp, pol_outcome o, const char *value)
{
    pol_section *sec = pp->sec;
    if (sec->nsteps == 0) return fail(pp, pp->line, "a reply meaning before any step (write command = or script = first)"), -1;
    pol_step *st = &sec->step[sec->nsteps - 1];
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value);
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        if (st->npat == POL_MAX_PATTERNS) return fail(pp, pp->line, "more than %d reply patterns in a step", POL_MAX_PATTERNS), -1;
        pol_pattern *pat = &st->pat[st->npat];
        if (parse_pattern(pp, w, pat) != 0) return -1;
        pat->outcome = o;
        st->npat++;
    }
    return 0;
}

/* ------------------------------------------------------------- values */

static int yes_no(pparser *pp, const char *key, const char *v, int *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on")) *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off")) *out = 0;
    else return fail(pp, pp->line, "%s wants yes or no (got \"%s\")", key, v), -1;
    return 0;
}

static int duration(pparser *pp, const char *key, const char *v, int64_t *out)
{
    if (scn_parse_duration(v, out) != 0 || *out < 0)
        return fail(pp, pp->line, "%s wants a duration such as 100ms (got \"%s\")", key, v), -1;
    return 0;
}

static int dist(pparser *pp, const char *key, const char *v, scn_dist *out)
{
    if (scn_parse_dist(v, out) != 0)
        return fail(pp, pp->line, "%s wants a duration or a distribution (100ms, 50ms..250ms, exp(100ms)); got \"%s\"",
                    key, v),
               -1;
    return 0;
}

static int integer(pparser *pp, const char *key, const char *v, long lo, long hi, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < lo || n > hi)
        return fail(pp, pp->line, "%s wants an integer in %ld..%ld (got \"%s\")", key, lo, hi, v), -1;
    *out = (int)n;
    return 0;
}

/* "P%" of the lease, or "P% + D", or "D". */
static int drift(pparser *pp, const char *v, int *ppm, int64_t *us)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", v);
    *ppm = 0;
    *us = 0;
    for (char *save = NULL, *w = strtok_r(buf, " +", &save); w; w = strtok_r(NULL, " +", &save)) {
        size_t n = strlen(w);
        if (n > 1 && w[n - 1] == '%') {
            char *end;
            double pct = strtod(w, &end);
            if (end != w + n - 1 || pct < 0 || pct > 100) return fail(pp, pp->line, "bad drift \"%s\" (e.g. 1%% + 2ms)", v), -1;
            *ppm = (int)(pct * 10000 + 0.5);
        } else if (scn_parse_duration(w, us) != 0 || *us < 0) {
            return fail(pp, pp->line, "bad drift \"%s\" (e.g. 1%% + 2ms)", v), -1;
        }
    }
    return 0;
}

/* "1/3" of the lease, or a duration. */
static int every(pparser *pp, const char *v)
{
    pol_policy *p = pp->p;
    int a, b, n = 0;
    if (sscanf(v, "%d/%d%n", &a, &b, &n) == 2 && v[n] == '\0' && a > 0 && b > 0 && a < b) {
        p->renew_num = a;
        p->renew_den = b;
        return 0;
    }
    if (scn_parse_duration(v, &p->renew_every_us) == 0 && p->renew_every_us > 0) return 0;
    return fail(pp, pp->line, "every wants a fraction of the lease (1/3) or a duration (got \"%s\")", v), -1;
}

/* --------------------------------------------------------- the handler */

static int step_key(pparser *pp, const char *name, const char *value)
{
    pol_section *sec = pp->sec;
    if (!strcmp(name, "command") || !strcmp(name, "script")) {
        if (sec->nsteps == POL_MAX_STEPS) return fail(pp, pp->line, "more than %d steps in [%s]", POL_MAX_STEPS, pp->section);
        pol_step *st = &sec->step[sec->nsteps++];
        st->line = pp->line;
        if (name[0] == 's') {
            st->script = load_script(pp, value);
            return st->script != NULL;
        }
        return add_words(pp, st, value) == 0;
    }
    if (!strcmp(name, "keys") || !strcmp(name, "args")) {
        pol_step *st = sec->nsteps ? &sec->step[sec->nsteps - 1] : NULL;
        if (st == NULL || st->script == NULL) return fail(pp, pp->line, "%s belongs to a script step (script = FILE first)", name);
        if (name[0] == 'k' && st->nwords > st->nkeys) return fail(pp, pp->line, "keys come before args");
        int before = st->nwords;
        if (add_words(pp, st, value) != 0) return 0;
        if (name[0] == 'k') st->nkeys += st->nwords - before;
        return 1;
    }
    if (!strcmp(name, "resend")) return yes_no(pp, name, value, &sec->resend) == 0;
    if (!strcmp(name, "owner") && !strcmp(pp->section, "acquire")) {
        pol_step *st = sec->nsteps ? &sec->step[sec->nsteps - 1] : NULL;
        int n = 0, k = 0;
        if (st == NULL) return fail(pp, pp->line, "owner = reply belongs to a step (command = or script = first)");
        if (!strcmp(value, "reply")) st->owner_from = -1;
        else if (sscanf(value, "reply:%d%n", &n, &k) == 1 && value[k] == '\0' && n >= 1 && n <= 64) st->owner_from = n;
        else return fail(pp, pp->line, "owner wants reply or reply:N (the step's reply, or element N of it; got \"%s\")", value);
        return 1;
    }
    for (size_t i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++) {
        if (strcmp(name, outcomes[i].name) != 0) continue;
        if (!strstr(outcomes[i].sections, pp->section))
            return fail(pp, pp->line, "\"%s\" is not a reply meaning of [%s] (it belongs to [%s])", name, pp->section,
                        outcomes[i].sections);
        return add_patterns(pp, outcomes[i].outcome, value) == 0;
    }
    return -1; /* not a step key */
}

static int lock_key(pparser *pp, const char *name, const char *value)
{
    pol_policy *p = pp->p;
    char **str = !strcmp(name, "name")      ? &p->name
                 : !strcmp(name, "version") ? &p->version
                 : !strcmp(name, "summary") ? &p->summary
                 : !strcmp(name, "key")     ? &p->key
                 : !strcmp(name, "owner")   ? &p->owner
                                            : NULL;
    if (str) {
        if ((str == &p->key || str == &p->owner) && check_template(pp, value) != 0) return 0;
        sim_xfree(*str);
        *str = sim_xstrdup(value);
        return 1;
    }
    if (!strcmp(name, "lease")) {
        p->no_lease = !strcmp(value, "none"); /* the key never expires (a list of tokens) */
        if (p->no_lease) {
            p->lease_us = 0;
            return 1;
        }
        return duration(pp, name, value, &p->lease_us) == 0;
    }
    if (!strcmp(name, "permits")) {
        int v = 0;
        if (integer(pp, name, value, 1, 2147483647, &v) != 0) return 0;
        p->permits = v;
        pp->permits_line = pp->line;
        return 1;
    }
    if (!strcmp(name, "local-lock")) return yes_no(pp, name, value, &p->local_lock) == 0;
    if (!strcmp(name, "lease-scope")) {
        if (strcmp(value, "acquire") && strcmp(value, "key"))
            return fail(pp, pp->line, "lease-scope wants acquire or key (got \"%s\")", value);
        p->lease_key = !strcmp(value, "key");
        return 1;
    }
    if (!strcmp(name, "unsent")) {
        if (strcmp(value, "resend") && strcmp(value, "fail")) return fail(pp, pp->line, "unsent wants resend or fail (got \"%s\")", value);
        p->unsent_fail = !strcmp(value, "fail");
        return 1;
    }
    if (!strcmp(name, "reentrant")) {
        if (!strcmp(value, "redis")) p->reentrant = CL_REENTRY_REDIS;
        else if (!strcmp(value, "local")) p->reentrant = CL_REENTRY_LOCAL;
        else if (!strcmp(value, "no")) p->reentrant = CL_REENTRY_NO;
        else return fail(pp, pp->line, "reentrant wants redis, local or no (got \"%s\")", value);
        return 1;
    }
    if (!strcmp(name, "fencing")) {
        if (strcmp(value, "no") && strcmp(value, "reply")) return fail(pp, pp->line, "fencing wants no or reply (got \"%s\")", value);
        p->fencing = !strcmp(value, "reply");
        return 1;
    }
    return -1;
}

static int wait_key(pparser *pp, const char *name, const char *value)
{
    pol_policy *p = pp->p;
    if (!strcmp(name, "mode")) {
        if (!strcmp(value, "none")) p->wait = POL_WAIT_NONE;
        else if (!strcmp(value, "poll")) p->wait = POL_WAIT_POLL;
        else if (!strcmp(value, "pubsub")) p->wait = POL_WAIT_PUBSUB;
        else if (!strcmp(value, "block")) p->wait = POL_WAIT_BLOCK;
        else return fail(pp, pp->line, "mode wants none, poll, pubsub or block (got \"%s\")", value);
        pp->mode_line = pp->line;
        return 1;
    }
    if (!strcmp(name, "command") || !strcmp(name, "woken") || !strcmp(name, "timed-out") || !strcmp(name, "error")) {
        if (!strcmp(name, "command") && p->block.nsteps)
            return fail(pp, pp->line, "[wait] has one blocking command");
        p->block.present = 1;
        p->block.line = p->block.line ? p->block.line : pp->line;
        pp->sec = &p->block; /* the wait's step, read as a section's */
        int rc = step_key(pp, name, value);
        pp->sec = NULL;
        return rc;
    }
    if (!strcmp(name, "block")) {
        static const char *const names[] = {"remaining", "wait", "lease", "wait-or-lease", NULL};
        for (int i = 0; names[i]; i++)
            if (!strcmp(value, names[i])) {
                p->block_time = (pol_block_time)i;
                return 1;
            }
        if (scn_parse_duration(value, &p->block_us) == 0 && p->block_us >= 0) {
            p->block_time = POL_BLOCK_FIXED;
            return 1;
        }
        return fail(pp, pp->line, "block wants remaining, wait, lease, wait-or-lease or a duration (got \"%s\")", value);
    }
    if (!strcmp(name, "interval")) return dist(pp, name, value, &p->interval) == 0;
    if (!strcmp(name, "max")) return duration(pp, name, value, &p->backoff_max_us) == 0;
    if (!strcmp(name, "backoff")) {
        if (strcmp(value, "fixed") && strcmp(value, "double")) return fail(pp, pp->line, "backoff wants fixed or double (got \"%s\")", value);
        p->backoff_double = !strcmp(value, "double");
        return 1;
    }
    if (!strcmp(name, "deadline")) {
        if (strcmp(value, "try-after") && strcmp(value, "no-sleep-past"))
            return fail(pp, pp->line, "deadline wants try-after or no-sleep-past (got \"%s\")", value);
        p->no_sleep_past = !strcmp(value, "no-sleep-past");
        return 1;
    }
    if (!strcmp(name, "channel")) {
        if (check_template(pp, value) != 0) return 0;
        sim_xfree(p->channel);
        p->channel = sim_xstrdup(value);
        return 1;
    }
    if (!strcmp(name, "message")) {
        if (strcmp(value, "one") && strcmp(value, "all")) return fail(pp, pp->line, "message wants one or all (got \"%s\")", value);
        p->message_all = !strcmp(value, "all");
        return 1;
    }
    return -1;
}

static int masters_key(pparser *pp, const char *name, const char *value)
{
    pol_policy *p = pp->p;
    if (!strcmp(name, "count")) return integer(pp, name, value, 1, 15, &p->masters) == 0;
    if (!strcmp(name, "quorum")) {
        p->quorum_all = !strcmp(value, "all");
        if (p->quorum_all || !strcmp(value, "majority")) return 1;
        return integer(pp, name, value, 1, 15, &p->quorum) == 0;
    }
    if (!strcmp(name, "drift")) return drift(pp, value, &p->drift_ppm, &p->drift_us) == 0;
    if (!strcmp(name, "validity")) return yes_no(pp, name, value, &p->validity) == 0;
    if (!strcmp(name, "resolve")) {
        if (strcmp(value, "early") && strcmp(value, "all")) return fail(pp, pp->line, "resolve wants early or all (got \"%s\")", value);
        p->resolve_early = !strcmp(value, "early");
        return 1;
    }
    if (!strcmp(name, "node-timeout")) {
        int pct = 0, n = 0;
        if (sscanf(value, "%d%%%n", &pct, &n) != 1 || value[n] || pct <= 0 || pct > 100)
            return fail(pp, pp->line, "node-timeout wants a share of the lease such as 5%% (got \"%s\")", value);
        p->node_timeout_ppm = pct * 10000;
        return 1;
    }
    if (!strcmp(name, "retries")) return integer(pp, name, value, -1, 100000, &p->retries) == 0;
    if (!strcmp(name, "retry-delay")) return dist(pp, name, value, &p->retry_delay) == 0;
    if (!strcmp(name, "release-between")) return yes_no(pp, name, value, &p->release_between) == 0;
    if (!strcmp(name, "release-on-failure")) return yes_no(pp, name, value, &p->release_on_failure) == 0;
    return -1;
}

/* [contract] survives = KIND, ...: the nemesis's kind names. */
static int contract_kinds(pparser *pp, const char *value)
{
    const char *names[SCN_NEM_COUNT];
    for (int b = 0; b < SCN_NEM_COUNT; b++) names[b] = scn_nemesis_kind_name(1 << b);
    unsigned bits = 0;
    char word[64];
    for (const char *c = value; *c;) {
        while (*c == ' ' || *c == '\t' || *c == ',') c++;
        size_t n = strcspn(c, ", \t");
        if (n == 0) break;
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word - 1 ? n : sizeof word - 1), c);
        c += n;
        int b = 0;
        while (b < SCN_NEM_COUNT && strcmp(word, names[b])) b++;
        if (b == SCN_NEM_COUNT) {
            const char *near = sim_closest(word, names, SCN_NEM_COUNT);
            if (near) return fail(pp, pp->line, "survives: \"%s\" is not a fault kind (did you mean %s?)", word, near);
            return fail(pp, pp->line, "survives: \"%s\" is not a fault kind (see 'locksim list --faults')", word);
        }
        bits |= 1u << b;
    }
    pp->p->contract.survives = bits;
    pp->p->contract_line = pp->line;
    return 1;
}

static int section_key(pparser *pp, const char *section, const char *name, const char *value)
{
    pol_policy *p = pp->p;
    if (!strcmp(section, "lock")) return lock_key(pp, name, value);
    if (!strcmp(section, "wait")) return wait_key(pp, name, value);
    if (!strcmp(section, "masters")) return masters_key(pp, name, value);
    if (!strcmp(section, "observe")) {
        static const char *const types[] = {"string", "hash", "zset", "list", "counter", "set", NULL};
        if (!strcmp(name, "members")) {
            if (strcmp(value, "holders") && strcmp(value, "free"))
                return fail(pp, pp->line, "members wants holders or free (got \"%s\")", value);
            p->observe_free = !strcmp(value, "free");
            pp->members_line = pp->line;
            return 1;
        }
        if (strcmp(name, "type")) return -1;
        int i = 0;
        while (types[i] && strcmp(value, types[i])) i++;
        if (types[i] == NULL)
            return fail(pp, pp->line, "type wants string, hash, zset, set, list or counter (got \"%s\")", value);
        p->observe = (pol_observe)i;
        p->observe_hash = p->observe == POL_OBS_HASH;
        pp->observe_line = pp->line;
        return 1;
    }
    if (!strcmp(section, "contract")) {
        if (!strcmp(name, "survives")) return contract_kinds(pp, value);
        if (strcmp(name, "source")) return -1;
        sim_xfree(p->contract_source);
        p->contract_source = sim_xstrdup(value);
        return 1;
    }
    if (!strcmp(section, "renew")) {
        if (!strcmp(name, "every")) return every(pp, value) == 0;
        if (!strcmp(name, "on-error")) {
            if (strcmp(value, "stop") && strcmp(value, "retry")) return fail(pp, pp->line, "on-error wants stop or retry (got \"%s\")", value);
            p->renew_error_stop = !strcmp(value, "stop");
            return 1;
        }
        if (!strcmp(name, "on-failure")) {
            if (strcmp(value, "stop") && strcmp(value, "retry")) return fail(pp, pp->line, "on-failure wants stop or retry (got \"%s\")", value);
            p->renew_retry = !strcmp(value, "retry");
            return 1;
        }
    }
    if (pp->sec) return step_key(pp, name, value);
    return -1;
}

static pol_section *steps_of(pol_policy *p, const char *section)
{
    if (!strcmp(section, "acquire")) return &p->acquire;
    if (!strcmp(section, "renew")) return &p->renew;
    if (!strcmp(section, "release")) return &p->release;
    if (!strcmp(section, "force")) return &p->force;
    return NULL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    pparser *pp = user;
    if (pp->failed) return 1;
    static const char *const sections[] = {"lock",    "acquire", "wait",    "renew",    "release",
                                           "force",   "masters", "observe", "contract", NULL};
    int known = 0;
    for (int i = 0; sections[i]; i++) known |= !strcmp(section, sections[i]);
    if (!known)
        return fail(pp, pp->line, "unknown section [%s] (lock, acquire, wait, renew, release, force, masters, observe, contract)",
                    section),
               1;
    if (strcmp(section, pp->section) != 0) {
        snprintf(pp->section, sizeof pp->section, "%s", section);
        pp->sec = steps_of(pp->p, section);
        if (pp->sec && pp->sec->present)
            return fail(pp, pp->line, "[%s] appears twice (its steps go in one section)", section), 1;
        if (pp->sec) {
            pp->sec->present = 1;
            pp->sec->line = pp->line;
        }
    }
    int rc = section_key(pp, section, name, value);
    if (rc < 0) fail(pp, pp->line, "unknown key \"%s\" in [%s]", name, section);
    return 1;
}

static char *read_line(char *str, int num, void *stream)
{
    pparser *pp = stream;
    if (*pp->text == '\0') return NULL;
    const char *nl = strchr(pp->text, '\n');
    size_t n = nl ? (size_t)(nl - pp->text) + 1 : strlen(pp->text);
    pp->line++;
    if (n >= (size_t)num) {
        fail(pp, pp->line, "line longer than %d characters", num - 2);
        n = (size_t)num - 1;
    }
    memcpy(str, pp->text, n);
    str[n] = '\0';
    pp->text = nl ? nl + 1 : pp->text + strlen(pp->text);
    return str;
}

/* -------------------------------------------------------------- checks */

static int check_section(pparser *pp, const pol_section *sec, const char *name, int required)
{
    if (!sec->present || sec->nsteps == 0) {
        if (required) return fail(pp, sec->present ? sec->line : 0, "[%s] needs at least one step (command = or script =)", name);
        return 0;
    }
    for (int i = 0; i < sec->nsteps; i++) {
        const pol_step *st = &sec->step[i];
        if (st->script == NULL && st->nwords == 0) return fail(pp, st->line, "an empty command");
        if (st->npat == 0)
            return fail(pp, st->line, "[%s]: this step says nothing of its reply (add e.g. %s = OK)", name,
                        !strcmp(name, "acquire") ? "acquired" : !strcmp(name, "renew") ? "renewed" : "released");
        int next = 0;
        for (int k = 0; k < st->npat; k++) next |= st->pat[k].outcome == POL_NEXT;
        if (next && i == sec->nsteps - 1) return fail(pp, st->line, "[%s]: \"next\" after the last step", name);
    }
    return 0;
}

/* [wait] mode = block: one blocking command, on one master. */
static void block_checks(pparser *pp)
{
    pol_policy *p = pp->p;
    static const char *const blocking[] = {"BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BZPOPMIN", "BZPOPMAX", NULL};
    const pol_step *st = &p->block.step[0];
    if (pp->failed) return;
    if (p->wait != POL_WAIT_BLOCK) {
        if (p->block.nsteps) fail(pp, st->line, "[wait] command is a blocking wait's: mode = block is missing");
        return;
    }
    if (p->block.nsteps == 0) {
        fail(pp, pp->mode_line, "[wait] mode = block needs its blocking command (command = BLPOP KEY {block_s})");
        return;
    }
    int known = 0;
    for (int i = 0; blocking[i] && !known; i++) known = !strcasecmp(st->words[0], blocking[i]);
    if (!known) fail(pp, st->line, "[wait] command: \"%s\" does not block (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN, BZPOPMAX)",
                     st->words[0]);
    else if (p->masters > 1) fail(pp, st->line, "a blocking wait on several masters ([masters] count) is not supported");
}

/* Does a step of p read the client's clock ({now_ms})? */
static int reads_clock(const pol_policy *p)
{
    const pol_section *secs[] = {&p->acquire, &p->renew, &p->release, &p->force};
    for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++)
        for (int i = 0; i < secs[s]->nsteps; i++)
            for (int w = 0; w < secs[s]->step[i].nwords; w++)
                if (strstr(secs[s]->step[i].words[w], "{now_ms}")) return 1;
    return 0;
}

/* The contract of a policy that states none: a lease lock's, but for a
 * failover (the generic client never waits for a replica: its writes may
 * not be there) and, where it reads the client's clock ({now_ms}, a
 * validity window), a client clock set off. */
static void default_contract(pol_policy *p)
{
    p->contract.failover_synced = 0;
    p->contract.source = p->contract_source ? p->contract_source : "the policy's own [contract]";
    if (p->contract_line) return;
    p->contract.survives = PROTO_SURVIVES_LEASE_LOCK & ~SCN_NEM_FAILOVER;
    if (reads_clock(p) || p->validity) p->contract.survives &= ~SCN_NEM_CLIENT_CLOCK;
    p->contract.source = p->contract_source ? p->contract_source
                                            : "a lease lock's by default: every kind but a node's clock jump, a failover "
                                              "(no WAIT) and, where it reads the client's clock, a client's clock";
}

/* A semaphore ([lock] permits) is observed as a set of holders, and the
 * templates that name its permits need it. */
static void semaphore_checks(pparser *pp)
{
    pol_policy *p = pp->p;
    int set_type = p->observe >= POL_OBS_ZSET || (p->permits > 0 && p->observe == POL_OBS_HASH);
    if (p->permits == 0 && pp->semaphore_line)
        fail(pp, pp->semaphore_line, "{permits} and {n} are a semaphore's: [lock] permits = N is missing");
    else if (p->permits == 0 && set_type)
        fail(pp, pp->observe_line, "[observe] type zset, set, list and counter are a semaphore's: [lock] permits = N is missing");
    else if (p->permits == 0 && pp->members_line)
        fail(pp, pp->members_line, "[observe] members is a semaphore's: [lock] permits = N is missing");
    else if (p->permits > 0 && !set_type)
        fail(pp, pp->observe_line ? pp->observe_line : pp->permits_line,
             "a semaphore ([lock] permits) keeps its permits in a zset, a set, a list, a hash or a counter: [observe] "
             "type = zset, set, list, hash or counter");
    else if (p->permits > 0 && p->reentrant != CL_REENTRY_NO)
        fail(pp, pp->permits_line, "a semaphore's permits are not re-entered: reentrant = no");
    else if (p->permits > 0 && p->masters > 1)
        fail(pp, pp->permits_line, "a semaphore on several masters ([masters] count) is not supported");
}

static void finish_checks(pparser *pp)
{
    pol_policy *p = pp->p;
    if (pp->failed) return;
    if (p->name == NULL) {
        fail(pp, 0, "[lock] name is required");
        return;
    }
    for (const char *c = p->name; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("-_.", *c)) {
            fail(pp, 0, "[lock] name \"%s\": letters, digits, '-', '_' and '.' only", p->name);
            return;
        }
    if (check_section(pp, &p->acquire, "acquire", 1) || check_section(pp, &p->release, "release", 1) ||
        check_section(pp, &p->renew, "renew", 0) || check_section(pp, &p->force, "force", 0))
        return;
    if (p->wait == POL_WAIT_PUBSUB && p->channel == NULL) fail(pp, 0, "[wait] mode = pubsub needs a channel");
    block_checks(pp);
    if (p->renew.nsteps && p->renew_every_us == 0 && p->renew_num == 0) {
        p->renew_num = 1;
        p->renew_den = 3;
    }
    if (p->masters > 1 && p->quorum > p->masters) fail(pp, 0, "[masters] quorum %d is more than the %d masters", p->quorum, p->masters);
    if (!pp->failed) semaphore_checks(pp);
    default_contract(p);
}

/* ------------------------------------------------------------ loading */

static void defaults(pol_policy *p)
{
    p->lease_us = SIM_SEC(30);
    p->wait = POL_WAIT_POLL;
    p->interval = (scn_dist){SCN_DIST_CONST, SIM_MS(100), SIM_MS(100)};
    p->acquire.resend = p->renew.resend = p->release.resend = p->force.resend = 1;
    p->masters = 1;
    p->retries = -1;
    p->retry_delay = (scn_dist){SCN_DIST_CONST, SIM_MS(200), SIM_MS(200)};
    p->key = sim_xstrdup("{lock}");
    p->owner = sim_xstrdup("{uuid}:{thread}");
}

pol_policy *pol_load(const char *path, int bundled, scn_error *err)
{
    memset(err, 0, sizeof *err);
    snprintf(err->path, sizeof err->path, "%s", path);
    pol_policy *p = sim_xcalloc(1, sizeof *p);
    defaults(p);
    p->path = sim_xstrdup(path);
    p->bundled = bundled;
    const char *slash = strrchr(path, '/');
    p->dir = slash ? sim_xmemdup(path, (size_t)(slash - path)) : sim_xstrdup("");
    const char *base = slash ? slash + 1 : path;
    size_t len;
    int owned;
    char *text = file_text(p, base, &len, &owned);
    pparser pp = {.p = p, .err = err, .text = text};
    if (text == NULL) {
        fail(&pp, 0, "cannot open the lock policy file");
    } else if (memchr(text, '\0', len)) {
        fail(&pp, 0, "the file holds a NUL byte (is this a lock policy file?)");
    } else {
        int rc = ini_parse_stream(read_line, &pp, handler, &pp);
        if (rc > 0 && !pp.failed) fail(&pp, rc, "not an INI line (write KEY = VALUE, [SECTION] or ; comment)");
        finish_checks(&pp);
    }
    if (owned) sim_xfree(text);
    if (pp.failed) {
        pol_free(p);
        return NULL;
    }
    return p;
}

void pol_free(pol_policy *p)
{
    if (p == NULL) return;
    pol_section *secs[] = {&p->acquire, &p->renew, &p->release, &p->force, &p->block};
    for (size_t s = 0; s < sizeof secs / sizeof secs[0]; s++)
        for (int i = 0; i < secs[s]->nsteps; i++) {
            pol_step *st = &secs[s]->step[i];
            for (int w = 0; w < st->nwords; w++) sim_xfree(st->words[w]);
            for (int k = 0; k < st->npat; k++) sim_xfree(st->pat[k].text);
        }
    for (size_t i = 0; i < p->nscripts; i++) {
        sim_xfree((char *)p->scripts[i]->name);
        sim_xfree((char *)p->scripts[i]->text);
        sim_xfree(p->scripts[i]);
    }
    sim_xfree(p->scripts);
    sim_xfree(p->name);
    sim_xfree(p->version);
    sim_xfree(p->summary);
    sim_xfree(p->path);
    sim_xfree(p->dir);
    sim_xfree(p->key);
    sim_xfree(p->owner);
    sim_xfree(p->channel);
    sim_xfree(p->contract_source);
    sim_xfree(p);
}
