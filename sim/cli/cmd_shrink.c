/* cmd_shrink.c — `locksim shrink SCENARIO --seed N -o FILE`: from a run
 * that fails, the smallest scenario that still fails the same way with the
 * same seed. Each step below is kept only if a run of the result (written
 * as text and parsed back, exactly what FILE will hold) fails the same way:
 *   a. the nemesis's faults become [faults] lines, [nemesis] goes;
 *   b. ddmin over the fault lines;
 *   c. ddmin over the [steps] lines, then whole clients, then threads;
 *   d. the duration halved while it fails, then cut after the violation;
 *   e. distributions made constant (a..b -> a, exp(m) -> m).
 * Removing anything moves the draws of the PRNG streams, so nothing is
 * assumed: every candidate is run. The seed never changes. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/engine/run.h"

/* How a run fails: the invariant it breaks, or (inv -1) the expectation
 * it misses when it breaks none. */
typedef struct failure {
    int inv;
    char expect[256];
    int64_t at_us; /* the first violation of inv (-1: none) */
} failure;

typedef struct shrinker {
    unsigned long long seed;
    failure want;
    failure last;  /* of the last candidate that failed the same way */
    unsigned runs;
} shrinker;

/* The earliest violation of an invariant whose expectation passes test. */
static const check_violation *earliest(const run_result *r, int (*test)(scn_expect))
{
    const check_violation *best = NULL;
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        if (test(r->s->expect[v->inv]) && (best == NULL || v->t_us < best->t_us)) best = v;
    }
    return best;
}

static int exp_held(scn_expect e) { return e == SCN_EXPECT_HELD; }
static int exp_unjudged(scn_expect e) { return e != SCN_EXPECT_VIOLATED; }
static int exp_any(scn_expect e) { return e >= SCN_EXPECT_NONE; }

/* 1 when r fails (an invariant violated, or an expectation missed), with
 * how in *f. In order: an invariant expected to hold, a missed
 * expectation, an invariant not judged, one expected to break. */
static int classify(const run_result *r, failure *f)
{
    memset(f, 0, sizeof *f);
    f->inv = -1;
    f->at_us = -1;
    const check_violation *v = earliest(r, exp_held);
    if (v == NULL && !r->expectations_met) {
        /* "X expected held, was violated" / "min-acquisitions expected 5, was 2" */
        snprintf(f->expect, sizeof f->expect, "%s", r->expectation_failure);
        char *was = strstr(f->expect, ", was ");
        if (was) *was = '\0';
        return 1;
    }
    if (v == NULL) v = earliest(r, exp_unjudged);
    if (v == NULL) v = earliest(r, exp_any);
    if (v == NULL) return 0;
    f->inv = (int)v->inv;
    f->at_us = v->t_us;
    return 1;
}

static int same_failure(const failure *a, const failure *b)
{
    return a->inv == b->inv && (a->inv >= 0 || !strcmp(a->expect, b->expect));
}

static void failure_text(const failure *f, char *buf, size_t cap)
{
    if (f->inv < 0) {
        snprintf(buf, cap, "expectation not met: %s", f->expect);
        return;
    }
    char at[32];
    scn_duration_format(f->at_us, at, sizeof at);
    snprintf(buf, cap, "%s violated (first at %s)", scn_invariant_name((scn_invariant)f->inv), at);
}

/* s as scenario text (malloc'd, the caller frees). */
static char *to_text(const scenario *s, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    sim_assert(f != NULL);
    scn_write(f, s);
    fclose(f);
    if (len) *len = n;
    return text;
}

/* A deep copy of src through its text: what a file of it would hold.
 * Returns -1 when the text does not parse (a candidate with a step after
 * the end, a fault naming a client that went). */
static int reparse(const scenario *src, scenario *dst)
{
    char *text = to_text(src, NULL);
    scn_error err;
    int rc = scn_load_string(src->path, text, dst, &err);
    free(text);
    return rc;
}

/* Runs s with the seed; 1 when it fails as k->want does. */
static int fails_same(shrinker *k, const scenario *s)
{
    history h;
    run_result r;
    scn_error err;
    run_opts o = {0};
    failure f;
    hist_init(&h);
    k->runs++;
    int same = 0;
    if (run_scenario(s, k->seed, &o, &r, &h, &err) == 0) {
        same = classify(&r, &f) && same_failure(&f, &k->want);
        if (same) k->last = f;
        run_result_free(&r);
    }
    hist_free(&h);
    return same;
}

/* Tries cand (owned): when its text parses and fails the same way it
 * replaces *cur and 1 is returned; else it is freed and 0 returned. */
static int try_candidate(shrinker *k, scenario *cur, scenario *cand)
{
    scenario parsed;
    int ok = reparse(cand, &parsed) == 0;
    scn_free(cand);
    if (ok && fails_same(k, &parsed)) {
        scn_free(cur);
        *cur = parsed;
        return 1;
    }
    if (ok) scn_free(&parsed);
    return 0;
}

static void clone(const scenario *s, scenario *out)
{
    sim_assert(reparse(s, out) == 0);
}

/* Drops the steps whose mask byte is set. */
static void drop_steps(scenario *s, const unsigned char *drop)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nsteps; i++)
        if (!drop[i]) s->steps[n++] = s->steps[i];
    s->nsteps = n;
}

/* ------------------------------------------------------------- ddmin */

typedef int step_pred(const scn_step *st);
static int is_fault(const scn_step *st) { return st->op >= SCN_FIRST_FAULT; }
static int is_op(const scn_step *st) { return st->op < SCN_FIRST_FAULT; }

/* Does cur without the candidate lines outside keep[0..nkeep) fail? */
static int ddmin_test(shrinker *k, scenario *cur, step_pred *pred, const size_t *keep, size_t nkeep)
{
    scenario cand;
    clone(cur, &cand); /* cur is parsed text: its steps keep their order */
    sim_assert(cand.nsteps == cur->nsteps);
    unsigned char *drop = sim_xcalloc(cand.nsteps + 1, 1);
    for (size_t i = 0; i < cand.nsteps; i++) drop[i] = pred(&cand.steps[i]);
    for (size_t j = 0; j < nkeep; j++) drop[keep[j]] = 0;
    drop_steps(&cand, drop);
    sim_xfree(drop);
    return try_candidate(k, cur, &cand);
}

/* Zeller's ddmin over the lines of cur that pred picks: on return cur
 * keeps a 1-minimal set of them (removing any one more line makes it pass
 * or fail another way). Returns how many lines went. */
static size_t ddmin(shrinker *k, scenario *cur, step_pred *pred)
{
    size_t before = 0, n = 2;
    for (size_t i = 0; i < cur->nsteps; i++) before += (size_t)pred(&cur->steps[i]);
    if (before == 0) return 0;
    if (ddmin_test(k, cur, pred, NULL, 0)) return before;
    for (;;) {
        /* The candidate lines of cur, as indexes into its steps. */
        size_t m = 0, *c = sim_xcalloc(cur->nsteps + 1, sizeof *c);
        for (size_t i = 0; i < cur->nsteps; i++)
            if (pred(&cur->steps[i])) c[m++] = i;
        if (m < 2) {
            sim_xfree(c);
            break;
        }
        if (n > m) n = m;
        size_t chunk = (m + n - 1) / n, *sub = sim_xcalloc(m + 1, sizeof *sub);
        int reduced = 0;
        for (size_t part = 0; part < n && !reduced; part++) { /* a subset alone */
            size_t lo = part * chunk, hi = lo + chunk < m ? lo + chunk : m;
            if (lo >= hi) continue;
            if (ddmin_test(k, cur, pred, c + lo, hi - lo)) reduced = 1, n = 2;
        }
        for (size_t part = 0; part < n && !reduced && n > 2; part++) { /* its complement */
            size_t lo = part * chunk, hi = lo + chunk < m ? lo + chunk : m, ns = 0;
            for (size_t j = 0; j < m; j++)
                if (j < lo || j >= hi) sub[ns++] = c[j];
            if (ddmin_test(k, cur, pred, sub, ns)) reduced = 1, n = n - 1 > 2 ? n - 1 : 2;
        }
        sim_xfree(sub);
        sim_xfree(c);
        if (!reduced) {
            if (n >= m) break;
            n = 2 * n < m ? 2 * n : m;
        }
    }
    size_t after = 0;
    for (size_t i = 0; i < cur->nsteps; i++) after += (size_t)pred(&cur->steps[i]);
    return before - after;
}

/* ----------------------------------------------------------- clients */

/* In a comma list of endpoints, is client c named? Renumbers the clients
 * above c down by one (into buf) when it is not. */
static int list_drop_client(char *list, size_t cap, int c)
{
    char out[160] = "", *save = NULL, copy[160];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        long n = t[0] == 'c' ? strtol(t + 1, &end, 10) : 0;
        int is_c = t[0] == 'c' && end != t + 1 && *end == '\0';
        if (is_c && n == c) return 1;
        char tok[32];
        if (is_c && n > c) snprintf(tok, sizeof tok, "c%ld", n - 1);
        else snprintf(tok, sizeof tok, "%s", t);
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "%s%s", len ? "," : "", tok);
    }
    snprintf(list, cap, "%s", out);
    return 0;
}

/* s without client c: its lines go, the clients above it move down. */
static void remove_client(scenario *s, int c)
{
    unsigned char *drop = sim_xcalloc(s->nsteps + 1, 1);
    for (size_t i = 0; i < s->nsteps; i++) {
        scn_step *st = &s->steps[i];
        drop[i] = st->client == c || list_drop_client(st->side_a, sizeof st->side_a, c) ||
                  list_drop_client(st->side_b, sizeof st->side_b, c) ||
                  list_drop_client(st->link_a, sizeof st->link_a, c) ||
                  list_drop_client(st->link_b, sizeof st->link_b, c);
        if (st->client > c) st->client--;
    }
    drop_steps(s, drop);
    sim_xfree(drop);
    if (c <= s->clients) s->clients--;
}

static int max_client(const scenario *s)
{
    int n = s->clients;
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].op < SCN_FIRST_FAULT && s->steps[i].client > n) n = s->steps[i].client;
    return n;
}

static int shrink_clients(shrinker *k, scenario *cur)
{
    int removed = 0;
    for (int c = max_client(cur); c >= 1; c--) {
        scenario cand;
        clone(cur, &cand);
        remove_client(&cand, c);
        removed += try_candidate(k, cur, &cand);
    }
    return removed;
}

static int shrink_threads(shrinker *k, scenario *cur)
{
    int removed = 0;
    while (cur->threads > 1) {
        scenario cand;
        clone(cur, &cand);
        cand.threads--;
        if (!try_candidate(k, cur, &cand)) break;
        removed++;
    }
    return removed;
}

/* ---------------------------------------------------------- duration */

static int try_duration(shrinker *k, scenario *cur, int64_t d)
{
    scenario cand;
    clone(cur, &cand);
    cand.duration_us = d;
    unsigned char *drop = sim_xcalloc(cand.nsteps + 1, 1);
    for (size_t i = 0; i < cand.nsteps; i++) drop[i] = cand.steps[i].at_us > d;
    drop_steps(&cand, drop);
    sim_xfree(drop);
    return try_candidate(k, cur, &cand);
}

static void shrink_duration(shrinker *k, scenario *cur)
{
    while (cur->duration_us >= SIM_MS(2) && try_duration(k, cur, cur->duration_us / 2)) {
    }
    /* Just past the first violation, in whole seconds. */
    if (k->last.at_us >= 0) {
        int64_t cut = (k->last.at_us / SIM_SEC(1) + 1) * SIM_SEC(1);
        if (cut < cur->duration_us) try_duration(k, cur, cut);
    }
}

/* ----------------------------------------------------- distributions */

static int shrink_dists(shrinker *k, scenario *cur)
{
    size_t offs[] = {offsetof(scenario, latency),          offsetof(scenario, replication_lag),
                     offsetof(scenario, hold),             offsetof(scenario, think),
                     offsetof(scenario, start),            offsetof(scenario, acquire_permits),
                     offsetof(scenario, nemesis_interval), offsetof(scenario, nemesis_duration),
                     offsetof(scenario, nemesis_jump)};
    int made = 0;
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        const scn_dist *d = (const scn_dist *)((const char *)cur + offs[i]);
        if (d->kind == SCN_DIST_CONST || (offs[i] >= offsetof(scenario, nemesis_interval) && !cur->nemesis))
            continue;
        scenario cand;
        clone(cur, &cand);
        scn_dist *cd = (scn_dist *)((char *)&cand + offs[i]);
        *cd = (scn_dist){SCN_DIST_CONST, cd->a_us, cd->a_us};
        made += try_candidate(k, cur, &cand);
    }
    return made;
}

/* ------------------------------------------------------------ command */

static size_t count(const scenario *s, step_pred *pred)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nsteps; i++) n += (size_t)pred(&s->steps[i]);
    return n;
}

/* a. The nemesis's faults as [faults] lines; those after the end of the
 * run (restarts in the drain) cannot be written and go. */
static int make_explicit(shrinker *k, scenario *cur, const scn_step *gen, size_t ngen, size_t *late)
{
    *late = 0;
    if (!cur->nemesis) return 0;
    scenario cand;
    clone(cur, &cand);
    cand.nemesis = 0;
    for (size_t i = 0; i < ngen; i++) {
        if (gen[i].at_us > cand.duration_us) {
            (*late)++;
            continue;
        }
        if (cand.nsteps == cand.steps_cap) {
            cand.steps_cap = cand.steps_cap ? cand.steps_cap * 2 : 16;
            cand.steps = sim_xrealloc(cand.steps, cand.steps_cap * sizeof *cand.steps);
        }
        scn_step *st = &cand.steps[cand.nsteps++];
        *st = gen[i];
        st->generated = 0;
        st->line = 0;
    }
    return try_candidate(k, cur, &cand);
}

static int write_file(const char *path, const char *origin, const shrinker *k, const scenario *s)
{
    char tmp[4200], why[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    failure_text(&k->last, why, sizeof why);
    fprintf(f, "# Shrunk by `locksim shrink` from %s with seed %llu.\n", origin, k->seed);
    fprintf(f, "# It fails the same way as the original: %s.\n", why);
    fprintf(f, "# `locksim run` this file replays it: [scenario] seed = %llu.\n", k->seed);
    int rc = scn_write(f, s);
    if (fclose(f) != 0 || rc != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static int shrink_usage(const char *what, const char *v)
{
    fprintf(stderr, "locksim shrink: ");
    fprintf(stderr, what, v ? v : "");
    fprintf(stderr, "\nusage: locksim shrink SCENARIO [--seed N] -o FILE\n");
    return 2;
}

/* The first run of the input: 1 when it fails (how in k->want). */
static int first_run(shrinker *k, const scenario *s, size_t *ngen, scn_step **gen)
{
    history h;
    run_result r;
    scn_error err;
    run_opts o = {0};
    hist_init(&h);
    k->runs++;
    if (run_scenario(s, k->seed, &o, &r, &h, &err) != 0) {
        scn_error_print(&err);
        hist_free(&h);
        return -1;
    }
    int fails = classify(&r, &k->want);
    k->last = k->want;
    *ngen = r.ngenerated;
    *gen = r.generated; /* taken over */
    r.generated = NULL;
    run_result_free(&r);
    hist_free(&h);
    return fails;
}

static void print_size(const char *label, const scenario *s)
{
    char d[32];
    scn_duration_format(s->duration_us, d, sizeof d);
    printf("%s: %zu fault lines%s, %zu step lines, %d client%s x %d thread%s, duration %s\n", label,
           count(s, is_fault), s->nemesis ? " + [nemesis]" : "", count(s, is_op), max_client(s),
           max_client(s) == 1 ? "" : "s", s->threads, s->threads == 1 ? "" : "s", d);
}

/* Steps a to e on cur, each line of output saying what went. */
static void shrink_all(shrinker *k, scenario *cur, const scn_step *gen, size_t ngen)
{
    size_t faults0 = count(cur, is_fault), ops0 = count(cur, is_op), late = 0;
    int clients0 = max_client(cur), threads0 = cur->threads, nemesis = cur->nemesis;
    int64_t dur0 = cur->duration_us;
    int explicit_ok = make_explicit(k, cur, gen, ngen, &late);
    if (nemesis)
        printf("  a. nemesis made explicit: %s (%zu faults, %zu after the end of the run left out)\n",
               explicit_ok ? "yes" : "no, the explicit faults do not fail the same way", ngen - late, late);
    size_t faults_a = count(cur, is_fault);
    /* Fewer clients can make more lines unneeded: again, a few rounds. */
    for (int round = 0; round < 3; round++) {
        size_t f = ddmin(k, cur, is_fault), o = ddmin(k, cur, is_op);
        int c = shrink_clients(k, cur), t = shrink_threads(k, cur);
        if (f + o + (size_t)c + (size_t)t == 0) break;
    }
    printf("  b. faults: %zu -> %zu lines (ddmin)\n", faults_a, count(cur, is_fault));
    printf("  c. steps: %zu -> %zu lines; clients %d -> %d; threads per client %d -> %d\n", ops0,
           count(cur, is_op), clients0, max_client(cur), threads0, cur->threads);
    shrink_duration(k, cur);
    char d0[32], d1[32];
    scn_duration_format(dur0, d0, sizeof d0);
    scn_duration_format(cur->duration_us, d1, sizeof d1);
    printf("  d. duration: %s -> %s\n", d0, d1);
    int dists = shrink_dists(k, cur);
    printf("  e. distributions made constant: %d\n", dists);
    size_t faults_in = faults0 + (explicit_ok ? ngen - late : 0);
    printf("removed: %zu of %zu fault lines%s, %zu of %zu step lines, %d of %d clients, %d of %d threads "
           "per client; duration %s -> %s; %d distributions made constant\n",
           faults_in - count(cur, is_fault), faults_in, explicit_ok ? " (the nemesis's included)" : "",
           ops0 - count(cur, is_op), ops0, clients0 - max_client(cur), clients0, threads0 - cur->threads, threads0,
           d0, d1, dists);
    print_size("after", cur);
    printf("  (%u runs)\n", k->runs);
}

/* Writes cur to out and runs the file as a user will: 0 when it fails the
 * same way, 1 when not, 2 when it cannot be written or read. */
static int write_and_verify(const shrinker *k, const char *origin, const char *out, const scenario *cur)
{
    char why[300];
    if (write_file(out, origin, k, cur) != 0) {
        fprintf(stderr, "locksim shrink: cannot write %s: %s\n", out, strerror(errno));
        return 2;
    }
    scenario back;
    shrinker v = *k;
    if (cli_load(out, &back) != 0) return 2;
    v.seed = back.seed;
    int again = fails_same(&v, &back);
    failure_text(again ? &v.last : &k->want, why, sizeof why);
    size_t len, nl = 3; /* the three comment lines */
    char *text = to_text(cur, &len);
    for (size_t i = 0; i < len; i++) nl += text[i] == '\n';
    free(text);
    printf("wrote %s (%zu lines); `locksim run %s` %s: %s\n", out, nl, out,
           again ? "fails the same way" : "does NOT fail the same way", why);
    scn_free(&back);
    return again ? 0 : 1;
}

int cli_shrink(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    shrinker k = {0};
    int has_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--seed") && v) {
            if (cli_parse_seed(v, &k.seed) != 0) return shrink_usage("--seed wants an integer (got \"%s\")", v);
            has_seed = 1;
            i++;
        } else if ((!strcmp(o, "-o") || !strcmp(o, "--output")) && v) {
            out = v;
            i++;
        } else if (o[0] == '-') {
            return shrink_usage("unknown or incomplete option \"%s\"", o);
        } else if (path) {
            return shrink_usage("one scenario at a time (got a second: \"%s\")", o);
        } else {
            path = o;
        }
    }
    if (path == NULL) return shrink_usage("no scenario given%s", NULL);
    if (out == NULL) return shrink_usage("-o FILE is required (where the shrunk scenario goes)%s", NULL);
    scenario orig, cur;
    if (cli_load(path, &orig) != 0) return 2;
    if (!has_seed) k.seed = orig.has_seed ? orig.seed : 1;
    size_t ngen = 0;
    scn_step *gen = NULL;
    int fails = first_run(&k, &orig, &ngen, &gen);
    if (fails <= 0) {
        if (fails == 0)
            printf("shrink: %s with seed %llu does not fail (no violation, expectations met): nothing to shrink\n",
                   path, k.seed);
        sim_xfree(gen);
        scn_free(&orig);
        return fails == 0 ? 1 : 2;
    }
    char why[300];
    failure_text(&k.want, why, sizeof why);
    printf("shrink: %s seed %llu fails: %s\n", path, k.seed, why);
    print_size("before", &orig);
    if (orig.nemesis) printf("  the nemesis generated %zu faults\n", ngen);
    /* The name says where it came from; the seed goes into the file. */
    if (reparse(&orig, &cur) != 0) {
        fprintf(stderr, "locksim shrink: %s cannot be written back as scenario text\n", path);
        sim_xfree(gen);
        scn_free(&orig);
        return 2;
    }
    char name[160];
    snprintf(name, sizeof name, "%.100s (shrunk, seed %llu)", orig.name, k.seed);
    sim_xfree(cur.name);
    cur.name = sim_xstrdup(name);
    cur.seed = k.seed;
    cur.has_seed = 1;
    shrink_all(&k, &cur, gen, ngen);
    int status = write_and_verify(&k, path, out, &cur);
    sim_xfree(gen);
    scn_free(&cur);
    scn_free(&orig);
    return status;
}
