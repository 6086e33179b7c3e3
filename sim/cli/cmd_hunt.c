/* cmd_hunt.c — `locksim hunt TARGET --seeds A..B`: swarm testing of one
 * protocol (or of a scenario file), the failing seeds grouped by the
 * signature of their run (the invariant, the fault kinds shortly before
 * it), the first seed of each group shrunk, and the groups merged by the
 * signature of the shrunk scenario (the faults no run can do without).
 * One shrunk scenario per signature is written to --out. With --want
 * FILE (a known bug), the hunt stops at the first seed that shrinks to
 * FILE's signature, and says after how many seeds. Seeds and shrinks run
 * in the worker pool (--jobs), their results taken in list order: the
 * output does not depend on --jobs. Exit 0 when nothing
 * failed (or, with --want, the signature was found), 1 otherwise, 2 on
 * bad input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "reports/report.h"
#include "sim/cli/cli.h"
#include "sim/engine/hunt.h"
#include "sim/engine/pool.h"

/* The seeds run between two looks at the failures: 64 first, twice as
 * many each time after, up to 512. A slow protocol (the fair lock runs
 * a few seeds a second on a core) has its first candidates shrunk within
 * a minute; the later chunks keep the cores busy between two barriers.
 * The bounds depend on the seeds alone, never on --jobs. */
#define HUNT_CHUNK_FIRST 64
#define HUNT_CHUNK 512

typedef struct hunt_args {
    const char *target, *want_path, *out_dir;
    const char *report_dir; /* --report DIR: the page of the signatures */
    uint64_t seed_a, seed_b;
    unsigned jobs, max_shrinks;
    int progress, print_base, verbose;
} hunt_args;

/* A failing seed as its run saw it. */
typedef struct failure {
    uint64_t seed;
    hunt_sig sig;
} failure;

/* One signature found: its shrunk scenario, and the seeds behind it. */
/* found.shrunk of a shrink that stopped early: its failure needs a fault
 * kind the hunt does not want (shrink_stats.abandoned). */
#define SHRUNK_STOPPED 2

typedef struct found {
    hunt_sig run;        /* the run signature of its first seed */
    hunt_sig final;      /* after shrinking (valid when shrunk) */
    int shrunk;          /* 1, or SHRUNK_STOPPED */
    uint64_t first_seed, seeds;
    int clients, threads;
    size_t faults, steps;
    int64_t duration_us;
    uint64_t events;     /* of a run of the shrunk scenario */
    char file[512];
} found;

typedef struct hunt {
    const hunt_args *a;
    scenario base;
    const hunt_sig *want; /* --want: the signature hunted (its fault kinds kept by every shrink) */
    uint64_t chunk0;     /* the first seed of the chunk running */
    failure *fails;
    size_t nfails, cap;
    uint64_t runs;
    uint64_t unrun;      /* --want: seeds not run, as their draw lacks a wanted kind */
} hunt;

/* The record of a seed not run: its draw lacks a kind --want needs. */
#define UNRUN "-"

static int usage(const char *fmt, const char *v)
{
    return cli_usage_error("hunt", "locksim hunt PROTOCOL[@VERSION] | SCENARIO --seeds A..B [--jobs N] [--out DIR] "
                                   "[--max-shrinks K] [--want KNOWN-BUG.scn] [--report DIR] [--verbose] [--print-base]", fmt, v);
}

static int parse_args(int argc, char **argv, hunt_args *a)
{
    a->jobs = 1;
    a->max_shrinks = 30;
    a->out_dir = "out/hunt";
    a->seed_a = 1;
    a->seed_b = 1000;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(o, "--seeds") || !strcmp(o, "--seed")) && v) {
            if (cli_parse_seeds(v, &a->seed_a, &a->seed_b) != 0) return usage("--seeds wants A..B (got \"%s\")", v);
            i++;
        } else if (!strcmp(o, "--jobs") && v) {
            if (cli_parse_jobs("locksim hunt", v, &a->jobs) != 0) return 2;
            i++;
        } else if (!strcmp(o, "--out") && v) {
            a->out_dir = v;
            i++;
        } else if (!strcmp(o, "--report") && v) {
            a->report_dir = v;
            i++;
        } else if (!strcmp(o, "--want") && v) {
            a->want_path = v;
            i++;
        } else if (!strcmp(o, "--max-shrinks") && v) {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || n > 100000) return usage("--max-shrinks wants a count (got \"%s\")", v);
            a->max_shrinks = (unsigned)n;
            i++;
        } else if (!strcmp(o, "--print-base")) {
            a->print_base = 1;
        } else if (!strcmp(o, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            a->progress = !strcmp(o, "--progress") ? 1 : -1;
        } else if (o[0] == '-') {
            return usage("unknown or incomplete option \"%s\"", o);
        } else if (a->target) {
            return usage("one target at a time (got a second: \"%s\")", o);
        } else {
            a->target = o;
        }
    }
    if (a->target == NULL) return usage("no protocol or scenario given%s", NULL);
    if (a->report_dir && a->want_path) return usage("--report is for a hunt without --want%s", NULL);
    return 0;
}

/* The base scenario: the file TARGET, or the protocol's template. */
static int load_base(const char *target, scenario *s)
{
    struct stat st;
    if (strchr(target, '/') || (stat(target, &st) == 0 && S_ISREG(st.st_mode))) return cli_load(target, s);
    scn_error err;
    char *text = hunt_template(target, &err);
    if (text == NULL) {
        fprintf(stderr, "locksim hunt: %s\n", err.msg);
        return 2;
    }
    char path[256];
    snprintf(path, sizeof path, "hunt-%s.scn", target);
    int rc = scn_load_string(path, text, s, &err);
    free(text); /* open_memstream's */
    if (rc != 0) {
        scn_error_print(&err);
        return 2;
    }
    if (proto_resolve(s, &err) == NULL) {
        scn_error_print(&err);
        scn_free(s);
        return 2;
    }
    return 0;
}

/* ----------------------------------------------------------- the runs */

static void run_seed(void *arg, size_t k, pool_result *res)
{
    hunt *h = arg;
    uint64_t seed = h->chunk0 + k;
    history hist;
    run_result r;
    scn_error err;
    run_opts o = {.swarm = 1};
    /* A run can only have the kinds its draw has (fault kinds, the async
     * API, siblings: hunt_run_sig asserts it): without one that the
     * wanted signature needs, the seed is no candidate, whatever it does. */
    unsigned need = h->want ? h->want->kinds & HUNT_DRAWN_KINDS : 0;
    if (need && (need & ~hunt_seed_kinds(&h->base, seed))) {
        res->rec = sim_xmemdup(UNRUN, strlen(UNRUN));
        res->rec_len = strlen(UNRUN);
        return;
    }
    hist_init(&hist);
    if (run_scenario(&h->base, seed, &o, &r, &hist, &err) != 0) {
        cli_result_error(res, &err);
        hist_free(&hist);
        return;
    }
    hunt_sig sig;
    if (hunt_run_sig(&r, &sig)) {
        char rec[64];
        int n = snprintf(rec, sizeof rec, "%d %u %u", sig.inv, sig.invs, sig.kinds);
        res->rec = sim_xmemdup(rec, (size_t)n);
        res->rec_len = (size_t)n;
        res->status = 1;
    }
    run_result_free(&r);
    hist_free(&hist);
}

static void label_seed(void *arg, size_t k, char *buf, size_t cap)
{
    const hunt *h = arg;
    snprintf(buf, cap, "%s seed %llu", h->base.path, (unsigned long long)(h->chunk0 + k));
}

static void on_result(void *arg, size_t k, const pool_result *res)
{
    hunt *h = arg;
    if (res->status == 0 && res->rec_len == strlen(UNRUN) && !memcmp(res->rec, UNRUN, res->rec_len)) {
        h->unrun++;
        return;
    }
    h->runs++;
    if (res->status != 1 || res->rec == NULL) return;
    failure f = {.seed = h->chunk0 + k};
    if (sscanf(res->rec, "%d %u %u", &f.sig.inv, &f.sig.invs, &f.sig.kinds) != 3) return;
    if (h->nfails == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->fails = sim_xrealloc(h->fails, h->cap * sizeof *h->fails);
    }
    h->fails[h->nfails++] = f;
}

/* Runs seeds [a, b] in the pool; the failures join h->fails. Returns 0,
 * 2 when a run could not run, 130 when interrupted. */
static int run_range(hunt *h, uint64_t a, uint64_t b)
{
    pool_opts po = {.jobs = h->a->jobs, .progress = pool_progress_wanted(h->a->progress), .on_result = on_result,
                    .on_result_arg = h};
    uint64_t runs = 0, failed = 0;
    h->chunk0 = a;
    int status = pool_run(&po, (size_t)(b - a + 1), run_seed, label_seed, h, &runs, &failed);
    if (pool_interrupted()) return 130;
    return status == 2 ? 2 : 0;
}

/* -------------------------------------------------------- shrinking */

/* mkdir -p dir (what cannot be made shows when the file is written). */
static void make_dirs(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    mkdir(path, 0777);
}

/* A batch of shrinks through the pool, one item per failing seed: a
 * worker shrinks its seed, writes the result as DIR/TARGET--seedN.part
 * and sends back the signature and sizes; this process takes the results
 * in list order, names each file by its signature, and with --want stops
 * at the first item (in list order) that shrinks to the wanted one. */
typedef struct batch {
    hunt *h;
    found *v;             /* the items (run, first_seed, seeds set); filled as results come */
    size_t n;
    unsigned keep_invs;   /* the invariants every shrink keeps broken (0: all its run breaks) */
    size_t done;          /* results taken, in list order */
    size_t match;         /* --want: the item that matched (NONE) */
} batch;

#define NONE ((size_t)-1)

/* DIR/TARGET: what the files of a hunt's shrinks start with. */
static void file_stem(const hunt *h, char *buf, size_t cap)
{
    char name[160];
    const char *t = h->a->target, *slash = strrchr(t, '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : t);
    char *dot = strstr(name, ".scn");
    if (dot) *dot = '\0';
    snprintf(buf, cap, "%s/%s", h->a->out_dir, name);
}

/* The file a worker writes item f to: DIR/TARGET--seedN.part. */
static void part_file(const hunt *h, const found *f, char *buf, size_t cap)
{
    char stem[400]; /* room for the seed in a file name */
    file_stem(h, stem, sizeof stem);
    snprintf(buf, cap, "%s--seed%llu.part", stem, (unsigned long long)f->first_seed);
}

/* Writes k's shrunk scenario to path: 0, or -1 (errno). */
static int write_shrunk(const hunt *h, const found *f, const shrink_result *k, const char *path)
{
    char sig[256];
    FILE *out = fopen(path, "w");
    if (out == NULL) return -1;
    hunt_sig_text(&f->final, sig, sizeof sig);
    fprintf(out, "# locksim hunt %s: seed %llu shrunk; %s\n", h->a->target, (unsigned long long)f->first_seed, sig);
    int bad = scn_write(out, &k->out);
    if (fclose(out) != 0 || bad) return -1;
    return 0;
}

/* Item k (in a worker, or here with --jobs 1): shrinks its seed keeping
 * the batch's invariants and, hunting for h->want, a fault line of each of
 * its kinds; writes the result to its part file and runs it once (its
 * events). The record: "shrunk inv invs kinds clients threads faults
 * steps duration events"; status 1 when it is the signature wanted, 2
 * when the file cannot be written. */
static void shrink_item(void *arg, size_t k, pool_result *res)
{
    const batch *b = arg;
    const hunt *h = b->h;
    found f = b->v[k];
    shrink_result sk;
    scn_error err;
    shrink_opts so = {.flags = SHRINK_SWARM | SHRINK_SAME_INVARIANTS, .keep = b->keep_invs};
    if (h->want) so.admit = hunt_keeps_kinds, so.unwanted = hunt_unwanted_line, so.admit_arg = (void *)&h->want->kinds;
    /* Not 1: it ran differently here (not expected); the item is not shrunk. */
    if (shrink_scenario(&h->base, f.first_seed, &so, &sk, &err) == 1) {
        f.shrunk = sk.stats.abandoned ? SHRUNK_STOPPED : 1;
        hunt_shrunk_sig(&sk, &f.final);
        if (h->want && hunt_sig_matches(&f.final, h->want))
            f.final.kinds &= ~hunt_spare_kinds(&sk.out, sk.out.seed, &sk.last, h->want->kinds);
        char path[sizeof f.file];
        part_file(h, &f, path, sizeof path);
        if (write_shrunk(h, &f, &sk, path) != 0) {
            char msg[700];
            snprintf(msg, sizeof msg, "locksim hunt: cannot write %s: %s\n", path, strerror(errno));
            pool_result_fail(res, msg);
            shrink_result_free(&sk);
            return;
        }
        history hist;
        run_result r;
        run_opts o = {0};
        hist_init(&hist);
        if (run_scenario(&sk.out, sk.out.seed, &o, &r, &hist, &err) == 0) {
            f.events = r.events;
            run_result_free(&r);
        }
        hist_free(&hist);
        f.clients = shrink_clients_of(&sk.out);
        f.threads = sk.out.threads;
        f.faults = shrink_fault_lines(&sk.out);
        f.steps = shrink_step_lines(&sk.out);
        f.duration_us = sk.out.duration_us;
        res->status = h->want && hunt_sig_matches(&f.final, h->want);
    }
    shrink_result_free(&sk);
    char rec[200];
    int n = snprintf(rec, sizeof rec, "%d %d %u %u %d %d %zu %zu %lld %llu", f.shrunk, f.final.inv, f.final.invs,
                     f.final.kinds, f.clients, f.threads, f.faults, f.steps, (long long)f.duration_us,
                     (unsigned long long)f.events);
    res->rec = sim_xmemdup(rec, (size_t)n);
    res->rec_len = (size_t)n;
}

static void label_item(void *arg, size_t k, char *buf, size_t cap)
{
    const batch *b = arg;
    snprintf(buf, cap, "the shrink of %s seed %llu", b->h->base.path, (unsigned long long)b->v[k].first_seed);
}

/* --verbose: what one candidate's shrink gave, as it comes. */
static void print_shrunk(const hunt *h, const found *f)
{
    if (!h->a->verbose) return;
    char run[256], fin[256] = "not shrunk";
    hunt_sig_text(&f->run, run, sizeof run);
    if (f->shrunk == SHRUNK_STOPPED) snprintf(fin, sizeof fin, "not without a fault of another kind (shrink stopped before the duration)");
    else if (f->shrunk) hunt_sig_text(&f->final, fin, sizeof fin);
    printf("  seed %llu: %s -> %s%s\n", (unsigned long long)f->first_seed, run, fin,
           h->want && f->shrunk && hunt_sig_matches(&f->final, h->want) ? " (wanted)" : "");
    fflush(stdout);
}

/* Item k's result, in list order: its part file renamed
 * DIR/TARGET--SIGNATURE--seedN.scn (keep() gives it its final name), or
 * removed with --want unless it is the match. */
static void on_item(void *arg, size_t k, const pool_result *res)
{
    batch *b = arg;
    found *f = &b->v[k];
    long long dur;
    unsigned long long events;
    b->done = k + 1;
    char part[sizeof f->file], stem[sizeof f->file], sig[256];
    part_file(b->h, f, part, sizeof part);
    if (res->status == 2 || res->rec == NULL ||
        sscanf(res->rec, "%d %d %u %u %d %d %zu %zu %lld %llu", &f->shrunk, &f->final.inv, &f->final.invs,
               &f->final.kinds, &f->clients, &f->threads, &f->faults, &f->steps, &dur, &events) != 10 ||
        !f->shrunk) {
        f->shrunk = 0;
        remove(part); /* a file half written */
        print_shrunk(b->h, f);
        return;
    }
    f->duration_us = dur;
    f->events = events;
    file_stem(b->h, stem, sizeof stem);
    hunt_sig_text(&f->final, sig, sizeof sig);
    for (char *c = sig; *c; c++)
        if (strchr(" ()+/:,", *c)) *c = '-';
    int len = snprintf(f->file, sizeof f->file, "%s--%s--seed%llu.scn", stem, sig, (unsigned long long)f->first_seed);
    if (len >= (int)sizeof f->file || rename(part, f->file) != 0) snprintf(f->file, sizeof f->file, "%s", part);
    print_shrunk(b->h, f);
    if (res->status == 1 && b->match == NONE) b->match = k;
    else if (b->h->want) remove(f->file), f->file[0] = '\0';
}

/* Shrinks the n items of v through the pool (--jobs workers), each
 * keeping keep_invs; with --want it stops at the first that matches
 * (*match, else NONE). *done: how many results were taken (in order).
 * Returns 0, 2 when a file could not be written, 130 when a stop signal
 * came (a shrink cut short proves nothing: it is not taken). */
static int shrink_batch(hunt *h, found *v, size_t n, unsigned keep_invs, size_t *done, size_t *match)
{
    batch b = {.h = h, .v = v, .n = n, .keep_invs = keep_invs, .match = NONE};
    pool_opts po = {.jobs = h->a->jobs, .stop_on_failure = h->want != NULL, .on_result = on_item, .on_result_arg = &b};
    uint64_t runs = 0, matched = 0;
    make_dirs(h->a->out_dir);
    int status = n ? pool_run(&po, n, shrink_item, label_item, &b, &runs, &matched) : 0;
    for (size_t k = b.done; k < n; k++) { /* items not taken (stopped, or after the match): their files go */
        char part[sizeof v[k].file];
        part_file(h, &v[k], part, sizeof part);
        remove(part);
    }
    *done = b.done;
    *match = b.match;
    if (pool_interrupted()) return 130;
    return status == 2 ? 2 : 0;
}

/* The shrunk file of a signature kept: DIR/TARGET--SIGNATURE.scn. */
static void keep(found *f)
{
    char *cut = strstr(f->file, "--seed");
    if (cut == NULL) return;
    char named[sizeof f->file];
    snprintf(named, sizeof named, "%.*s.scn", (int)(cut - f->file), f->file);
    if (rename(f->file, named) == 0) snprintf(f->file, sizeof f->file, "%s", named);
}

static void print_found(const found *f)
{
    char sig[256], dur[32];
    hunt_sig_text(f->shrunk ? &f->final : &f->run, sig, sizeof sig);
    printf("  %-44s %6llu seed%s (first %llu)", sig, (unsigned long long)f->seeds, f->seeds == 1 ? " " : "s",
           (unsigned long long)f->first_seed);
    if (f->shrunk) {
        scn_duration_format(f->duration_us, dur, sizeof dur);
        printf("  shrunk: %d client%s, %zu fault%s, %zu step%s, %s, %llu events  %s\n", f->clients,
               f->clients == 1 ? "" : "s", f->faults, f->faults == 1 ? "" : "s", f->steps, f->steps == 1 ? "" : "s",
               dur, (unsigned long long)f->events, f->file);
    } else {
        printf("  (not shrunk: --max-shrinks)\n");
    }
}

/* ---------------------------------------------------------- the modes */

static const char *ordinal(uint64_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13) return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static int by_size(const void *x, const void *y)
{
    const found *a = x, *b = y;
    if (a->seeds != b->seeds) return a->seeds > b->seeds ? -1 : 1;
    return a->first_seed < b->first_seed ? -1 : a->first_seed > b->first_seed;
}

/* --report DIR: the page of the m signatures of v that were shrunk (all
 * within the lock's contract, none with a reference). 0, or 2 (printed). */
static int write_report(const hunt *h, const found *v, size_t m)
{
    report_hunt_sig *sigs = sim_xcalloc(m + 1, sizeof *sigs);
    char (*text)[256] = sim_xcalloc(m + 1, sizeof *text);
    size_t n = 0;
    for (size_t j = 0; j < m; j++) {
        if (!v[j].shrunk) continue;
        hunt_sig_text(&v[j].final, text[n], sizeof text[n]);
        sigs[n] = (report_hunt_sig){.signature = text[n], .seeds = v[j].seeds, .first_seed = v[j].first_seed,
                                    .shrunk = v[j].file};
        n++;
    }
    report_hunt rh = {.target = h->a->target, .seed_a = h->a->seed_a, .seed_b = h->a->seed_b, .runs = h->runs,
                      .failed = h->nfails, .sigs = sigs, .nsigs = n};
    char err[1024];
    int rc = report_hunt_write(h->a->report_dir, &rh, err, sizeof err);
    if (rc == 0) printf("report: %s/index.html\n", h->a->report_dir);
    else fprintf(stderr, "locksim hunt: cannot write the report %s: %s\n", h->a->report_dir, err);
    sim_xfree(text);
    sim_xfree(sigs);
    return rc == 0 ? 0 : 2;
}

/* Without --want: every seed, then one shrink per run signature, the
 * groups merged by their shrunk signature. */
static int hunt_all(hunt *h)
{
    const hunt_args *a = h->a;
    int status = run_range(h, a->seed_a, a->seed_b);
    if (status != 0 && status != 130) return status;
    found *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < h->nfails; i++) {
        size_t j = 0;
        while (j < n && !hunt_sig_equal(&v[j].run, &h->fails[i].sig)) j++;
        if (j == n) {
            v = sim_xrealloc(v, (n + 1) * sizeof *v);
            memset(&v[n], 0, sizeof v[n]);
            v[n].run = h->fails[i].sig;
            v[n++].first_seed = h->fails[i].seed;
        }
        v[j].seeds++;
    }
    printf("hunt %s: seeds %llu..%llu, %llu runs, %zu failed (%.1f%%), %zu run signature%s\n", a->target,
           (unsigned long long)a->seed_a, (unsigned long long)a->seed_b, (unsigned long long)h->runs, h->nfails,
           h->runs ? 100.0 * (double)h->nfails / (double)h->runs : 0.0, n, n == 1 ? "" : "s");
    /* The biggest groups first: the commonest failures get shrunk. */
    if (n > 1) qsort(v, n, sizeof *v, by_size);
    size_t shrinks = 0, none;
    if (status == 0) status = shrink_batch(h, v, n < a->max_shrinks ? n : a->max_shrinks, 0, &shrinks, &none);
    /* Groups that shrank to the same signature are one bug. */
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t t = 0;
        while (t < m && !(v[t].shrunk && v[j].shrunk && hunt_sig_equal(&v[t].final, &v[j].final))) t++;
        if (t < m) {
            v[t].seeds += v[j].seeds;
            if (v[j].first_seed < v[t].first_seed) v[t].first_seed = v[j].first_seed;
            if (v[j].file[0]) remove(v[j].file);
        } else {
            v[m++] = v[j];
        }
    }
    size_t shown = 0;
    uint64_t rest_seeds = 0;
    for (size_t j = 0; j < m; j++) shown += v[j].shrunk;
    printf("%zu signature%s from %zu shrunk run signature%s:\n", shown, shown == 1 ? "" : "s", shrinks,
           shrinks == 1 ? "" : "s");
    for (size_t j = 0; j < m; j++) {
        if (v[j].shrunk) {
            keep(&v[j]);
            print_found(&v[j]);
        } else {
            rest_seeds += v[j].seeds;
        }
    }
    if (m > shown)
        printf("  and %zu run signature%s of %llu seed%s not shrunk (raise --max-shrinks)\n", m - shown,
               m - shown == 1 ? "" : "s", (unsigned long long)rest_seeds, rest_seeds == 1 ? "" : "s");
    if (a->report_dir && status == 0 && write_report(h, v, m) != 0) status = 2;
    sim_xfree(v);
    if (status == 130) printf("(interrupted: %llu runs)\n", (unsigned long long)h->runs);
    return status ? status : h->nfails ? 1 : 0;
}

/* ", N seeds skipped: drawn without a wanted kind", or "". */
static const char *unrun_text(const hunt *h, char *buf, size_t cap)
{
    if (h->unrun == 0) return "";
    snprintf(buf, cap, ", %llu seed%s skipped: drawn without a wanted kind", (unsigned long long)h->unrun,
             h->unrun == 1 ? "" : "s");
    return buf;
}

/* With --want FILE: the signature of FILE shrunk; seeds in chunks until
 * a failure shrinks to it. */
static int hunt_want(hunt *h)
{
    const hunt_args *a = h->a;
    scenario want;
    if (cli_load(a->want_path, &want) != 0) return 2;
    shrink_result k;
    scn_error err;
    uint64_t wseed = want.has_seed ? want.seed : 1;
    shrink_opts so = {.flags = SHRINK_SAME_INVARIANTS};
    int rc = shrink_scenario(&want, wseed, &so, &k, &err);
    if (rc != 1) {
        if (rc < 0) scn_error_print(&err);
        else fprintf(stderr, "locksim hunt: %s does not fail with seed %llu: no signature to hunt for\n",
                     a->want_path, (unsigned long long)wseed);
        shrink_result_free(&k);
        scn_free(&want);
        return 2;
    }
    hunt_sig target;
    hunt_shrunk_sig(&k, &target);
    /* The same signature is judged the same way: by the known bug's own
     * bounds, and a run that breaks what the known bug holds fails some
     * other way. */
    for (int i = 0; i < SCN_INV_COUNT; i++)
        if (want.expect[i] == SCN_EXPECT_HELD) target.held |= 1u << i;
    h->base.liveness_bound_us = want.liveness_bound_us;
    h->base.starvation_bound = want.starvation_bound;
    h->want = &target;
    char sig[256];
    hunt_sig_text(&target, sig, sizeof sig);
    printf("hunt %s for %s: %s (it shrinks to %zu fault%s)\n", a->target, a->want_path, sig,
           shrink_fault_lines(&k.out), shrink_fault_lines(&k.out) == 1 ? "" : "s");
    shrink_result_free(&k);
    scn_free(&want);
    /* Each chunk's candidates are shrunk in two passes: first the runs
     * that break nothing the known bug holds, then the others (their
     * other faults may shrink away); --max-shrinks caps each pass of each
     * chunk (a cap over the whole hunt would stop it looking after its
     * first candidates, however many seeds it runs). One batch per chunk,
     * the first pass's candidates first, each in seed order: the first
     * that matches in that order is the one found. */
    size_t next = 0, shrunk[2] = {0, 0}, candidates = 0;
    char unrun[96];
    found *v = sim_xcalloc(2 * (size_t)a->max_shrinks + 1, sizeof *v);
    int status = 0;
    uint64_t chunk = HUNT_CHUNK_FIRST;
    for (uint64_t c0 = a->seed_a; c0 <= a->seed_b && status == 0; c0 += chunk, chunk = chunk < HUNT_CHUNK ? chunk * 2 : chunk) {
        uint64_t c1 = a->seed_b - c0 < chunk - 1 ? a->seed_b : c0 + chunk - 1;
        status = run_range(h, c0, c1);
        size_t n = 0, first_pass = 0;
        for (int pass = 0; pass < 2 && status == 0; pass++) {
            for (size_t i = next; i < h->nfails; i++) {
                const failure *f = &h->fails[i];
                if (!hunt_sig_covers(&f->sig, &target) || ((f->sig.invs & target.held) != 0) != pass) continue;
                candidates++;
                if ((pass ? n - first_pass : n) == a->max_shrinks) continue;
                v[n++] = (found){.run = f->sig, .first_seed = f->seed, .seeds = 1};
            }
            if (pass == 0) first_pass = n;
        }
        next = h->nfails;
        size_t done = 0, match = NONE;
        if (status == 0) status = shrink_batch(h, v, n, target.invs, &done, &match);
        shrunk[0] += done < first_pass ? done : first_pass;
        shrunk[1] += done > first_pass ? done - first_pass : 0;
        if (status == 0 && match != NONE) {
            found *fd = &v[match];
            keep(fd);
            size_t shrinks = shrunk[0] + shrunk[1];
            printf("found at seed %llu, the %llu%s hunted (%zu candidate%s shrunk; %llu runs so far%s, %zu failed)\n",
                   (unsigned long long)fd->first_seed, (unsigned long long)(fd->first_seed - a->seed_a + 1),
                   ordinal(fd->first_seed - a->seed_a + 1), shrinks, shrinks == 1 ? "" : "s",
                   (unsigned long long)h->runs, unrun_text(h, unrun, sizeof unrun), h->nfails);
            print_found(fd);
            sim_xfree(v);
            return 0;
        }
    }
    sim_xfree(v);
    size_t shrinks = shrunk[0] + shrunk[1];
    if (status == 2) return 2;
    printf("not found in %s %llu..%llu: %llu runs%s, %zu failed, %zu with room for it, %zu shrunk%s%s\n",
           status == 130 ? "the seeds run of" : "seeds", (unsigned long long)a->seed_a, (unsigned long long)a->seed_b,
           (unsigned long long)h->runs, unrun_text(h, unrun, sizeof unrun), h->nfails, candidates, shrinks,
           candidates > shrinks && status != 130 ? " (--max-shrinks)" : "",
           status == 130 ? " (interrupted)" : "");
    return status == 130 ? 130 : 1;
}

int cli_hunt(int argc, char **argv)
{
    hunt_args a = {0};
    if (parse_args(argc, argv, &a) != 0) return 2;
    hunt h = {.a = &a};
    if (load_base(a.target, &h.base) != 0) return 2;
    report_outdir probe; /* a --report folder we may not write is refused before the hunt */
    if (a.report_dir && report_outdir_begin(&probe, a.report_dir, "locksim hunt") != 0) {
        scn_free(&h.base);
        return 2;
    }
    if (a.report_dir) report_outdir_abort(&probe);
    if (a.print_base) { /* the scenario every seed draws from, to edit and hunt with */
        int rc = scn_write(stdout, &h.base);
        scn_free(&h.base);
        return rc == 0 ? 0 : 2;
    }
    pool_hold_stops(1); /* a signal while shrinking stops the hunt, which says what it ran */
    int status = a.want_path ? hunt_want(&h) : hunt_all(&h);
    pool_hold_stops(0);
    sim_xfree(h.fails);
    scn_free(&h.base);
    return status;
}
