/* cmd_sweep.c — `locksim sweep SCENARIO... --KEY V1,V2,...`: runs each
 * scenario with one key set to each value (any scenario key: --clients,
 * --hold, --protocol.lease ...), over a few seeds, and measures per value
 * the throughput, p50 / p99 acquire latency, script evals per acquisition
 * and Jain's fairness index; a line per series (each --protocol given,
 * each scenario). Prints a table (or --json, one object per point);
 * --report DIR draws the contention curves and an index.html. Runs go
 * through the sweep engine (--jobs, progress). Exit 0 when every run met
 * its expectations, 1 when one did not, 2 on bad input. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "reports/report.h"
#include "sim/cli/cli.h"
#include "sim/engine/pool.h"
#include "sim/engine/run.h"

#define MAX_VALUES 64
#define MAX_SERIES 32

typedef struct list {
    char *v[MAX_VALUES];
    size_t n;
} list;

/* The results at one (series, value): sums over seeds. */
typedef struct acc {
    size_t runs, met;
    double thr, thr_lo, thr_hi, p50, p99, jain, wall_ms;
    uint64_t evals, acquisitions, events;
} acc;

typedef struct sweep_args {
    const char *files[MAX_SERIES];
    size_t nfiles;
    char name[64];               /* the swept key as given ("clients") */
    const char *section, *key;   /* what it sets ("clients", "count") */
    list values, protocols;
    uint64_t seed_a, seed_b;
    int json, progress;
    const char *report_dir;
    pool_opts so;
} sweep_args;

typedef struct sweep_work {
    const sweep_args *a;
    scenario *variants; /* [series][value] */
    size_t nseries, nvalues, nseeds;
    char labels[MAX_SERIES][128];
    acc *acc;           /* [series][value] */
    uint64_t failed;
} sweep_work;

static void list_free(list *l)
{
    for (size_t i = 0; i < l->n; i++) sim_xfree(l->v[i]);
    l->n = 0;
}

/* "a,b,c" into l. Returns 0, or -1 after printing why. */
static int split(const char *opt, const char *v, list *l)
{
    char *copy = sim_xstrdup(v);
    int rc = 0;
    for (char *save = NULL, *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
        if (l->n == MAX_VALUES) {
            fprintf(stderr, "locksim sweep: %s: at most %d values\n", opt, MAX_VALUES);
            rc = -1;
        } else {
            l->v[l->n++] = sim_xstrdup(w);
        }
    }
    sim_xfree(copy);
    if (rc == 0 && l->n == 0) {
        fprintf(stderr, "locksim sweep: %s wants values separated by commas (got \"%s\")\n", opt, v);
        rc = -1;
    }
    return rc;
}

/* A --KEY LIST option: the swept key, or --protocol (the series). */
static int key_option(sweep_args *a, const char *opt, const char *v)
{
    const char *section, *key;
    char why[256];
    if (scn_key_resolve(opt + 2, &section, &key, why, sizeof why) != 0) {
        fprintf(stderr, "locksim sweep: %s: %s\n", opt, why);
        return -1;
    }
    if (!strcmp(section, "protocol") && !strcmp(key, "name")) return split(opt, v, &a->protocols);
    if (a->key) {
        fprintf(stderr, "locksim sweep: one key is swept at a time (got %s.%s and %s.%s); "
                        "several protocols are given with --protocol\n", a->section, a->key, section, key);
        return -1;
    }
    a->section = section;
    a->key = key;
    snprintf(a->name, sizeof a->name, "%s", opt + 2);
    return split(opt, v, &a->values);
}

static int parse_args(int argc, char **argv, sweep_args *a)
{
    a->so.jobs = 1;
    a->seed_a = 1;
    a->seed_b = 3;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if ((!strcmp(o, "--seeds") || !strcmp(o, "--seed")) && v) {
            if (cli_parse_seeds(v, &a->seed_a, &a->seed_b) != 0) {
                fprintf(stderr, "locksim sweep: %s wants N or A..B (got \"%s\")\n", o, v);
                return 2;
            }
        } else if (!strcmp(o, "--jobs") && v) {
            if (cli_parse_jobs("locksim sweep", v, &a->so.jobs) != 0) return 2;
        } else if (!strcmp(o, "--report") && v) {
            a->report_dir = v;
        } else if (!strcmp(o, "--json") || !strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            takes = 0;
            if (!strcmp(o, "--json")) a->json = 1;
            else a->progress = !strcmp(o, "--progress") ? 1 : -1;
        } else if (!strncmp(o, "--", 2) && v) {
            if (key_option(a, o, v) != 0) return 2;
        } else if (o[0] == '-') {
            fprintf(stderr, "locksim sweep: unknown or incomplete option \"%s\"\n", o);
            return 2;
        } else {
            struct stat st;
            takes = 0;
            if (stat(o, &st) != 0 || S_ISDIR(st.st_mode)) {
                fprintf(stderr, "locksim sweep: %s: %s\n", o, errno ? strerror(errno) : "a folder: give scenario files");
                return 2;
            }
            if (a->nfiles == MAX_SERIES) {
                fprintf(stderr, "locksim sweep: at most %d scenarios\n", MAX_SERIES);
                return 2;
            }
            a->files[a->nfiles++] = o;
        }
        i += takes;
    }
    if (a->nfiles == 0 || a->key == NULL) {
        fprintf(stderr, "locksim sweep: give a scenario and the key to sweep, e.g. "
                        "locksim sweep scenarios/contention/lock.scn --clients 1,2,4,8\n");
        return 2;
    }
    if (a->nfiles * (a->protocols.n ? a->protocols.n : 1) > MAX_SERIES) {
        fprintf(stderr, "locksim sweep: at most %d series (scenarios x protocols)\n", MAX_SERIES);
        return 2;
    }
    if (a->seed_b - a->seed_a >= 1000) {
        fprintf(stderr, "locksim sweep: at most 1000 seeds per point\n");
        return 2;
    }
    return 0;
}

/* A series is named by its protocol, and by its file when there are several. */
static void series_label(sweep_work *w, size_t series, const char *file, const char *protocol)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (w->a->nfiles > 1) snprintf(w->labels[series], sizeof w->labels[series], "%s (%s)", base, protocol);
    else snprintf(w->labels[series], sizeof w->labels[series], "%s", protocol);
}

/* Loads every (series, value) variant before anything runs. Returns 0 or
 * 2 (printed); *loaded counts what to free. */
static int load_variants(sweep_work *w, size_t *loaded)
{
    const sweep_args *a = w->a;
    size_t np = a->protocols.n ? a->protocols.n : 1;
    *loaded = 0;
    for (size_t f = 0; f < a->nfiles; f++)
        for (size_t p = 0; p < np; p++) {
            size_t series = f * np + p;
            for (size_t x = 0; x < w->nvalues; x++) {
                scn_override ov[3] = {{a->section, a->key, a->values.v[x]}, {"protocol", "name", NULL}};
                size_t nov = a->protocols.n ? 2 : 1;
                if (cli_scripts_override()) ov[nov++] = *cli_scripts_override();
                if (a->protocols.n) ov[1].value = a->protocols.v[p];
                scn_error err;
                scenario *s = &w->variants[series * w->nvalues + x];
                if (run_load(a->files[f], ov, nov, s, &err) != 0) {
                    if (err.line > 0 || err.nmore) scn_error_print(&err);
                    else fprintf(stderr, "locksim sweep: %s: %s\n", err.path, err.msg);
                    return 2;
                }
                (*loaded)++;
                char proto[512];
                if (x == 0) series_label(w, series, a->files[f], scn_protocol_label(s, proto, sizeof proto));
            }
        }
    return 0;
}

static const scenario *item(const sweep_work *w, size_t k, uint64_t *seed, size_t *cell)
{
    *cell = k / w->nseeds;
    *seed = w->a->seed_a + k % w->nseeds;
    return &w->variants[*cell];
}

static void item_label(void *arg, size_t k, char *buf, size_t cap)
{
    uint64_t seed;
    size_t cell;
    const sweep_work *w = arg;
    const scenario *s = item(w, k, &seed, &cell);
    snprintf(buf, cap, "%s (%s = %s) seed %" PRIu64, s->path, w->a->name, w->a->values.v[cell % w->nvalues], seed);
}

static void item_run(void *arg, size_t k, pool_result *res)
{
    const sweep_work *w = arg;
    uint64_t seed;
    size_t cell;
    const scenario *s = item(w, k, &seed, &cell);
    history h;
    run_result r;
    scn_error err;
    run_opts o = {0};
    hist_init(&h);
    if (run_scenario(s, seed, &o, &r, &h, &err) != 0) {
        cli_result_error(res, &err);
        hist_free(&h);
        return;
    }
    FILE *m = open_memstream(&res->rec, &res->rec_len);
    sim_assert(m != NULL);
    report_json(m, &r, &h);
    fclose(m);
    res->status = r.expectations_met ? 0 : 1;
    if (!r.expectations_met) {
        char line[1024];
        snprintf(line, sizeof line, "locksim sweep: %s seed %" PRIu64 " (%s = %s): %s\n", s->path, seed, w->a->name,
                 w->a->values.v[cell % w->nvalues], r.expectation_failure);
        res->err = sim_xstrdup(line);
        res->err_len = strlen(line);
    }
    run_result_free(&r);
    hist_free(&h);
}

/* In list order: adds the run to its point. */
static void item_result(void *arg, size_t k, const pool_result *res)
{
    sweep_work *w = arg;
    report_row row;
    char why[256];
    if (res->status == 2 || res->rec == NULL || report_row_parse(res->rec, res->rec_len, &row, why, sizeof why) != 0)
        return;
    acc *c = &w->acc[k / w->nseeds];
    double thr = row.duration_ms > 0 ? (double)row.acquisitions / (row.duration_ms / 1000.0) : 0;
    if (c->runs == 0 || thr < c->thr_lo) c->thr_lo = thr;
    if (c->runs == 0 || thr > c->thr_hi) c->thr_hi = thr;
    c->runs++;
    c->met += row.met;
    w->failed += !row.met;
    c->thr += thr;
    c->p50 += row.p50_ms;
    c->p99 += row.p99_ms;
    c->jain += row.jain;
    c->evals += row.evals;
    c->acquisitions += row.acquisitions;
    c->events += row.events;
    c->wall_ms += row.wall_ms;
    report_row_free(&row);
}

/* The points as curves; *numeric: the x values are numbers (durations in ms). */
static report_line *curves(const sweep_work *w, int *numeric)
{
    const list *v = &w->a->values;
    int nums = 1, durs = 1;
    double xs[MAX_VALUES];
    for (size_t x = 0; x < v->n; x++) {
        char *end;
        int64_t us;
        xs[x] = strtod(v->v[x], &end);
        nums &= end != v->v[x] && *end == '\0';
        if (scn_parse_duration(v->v[x], &us) == 0) {
            if (!nums) xs[x] = (double)us / 1000.0;
        } else {
            durs = 0;
        }
    }
    *numeric = nums || durs;
    report_line *lines = sim_xcalloc(w->nseries, sizeof *lines);
    for (size_t l = 0; l < w->nseries; l++) {
        snprintf(lines[l].label, sizeof lines[l].label, "%s", w->labels[l]);
        lines[l].p = sim_xcalloc(w->nvalues, sizeof *lines[l].p);
        for (size_t x = 0; x < w->nvalues; x++) {
            const acc *c = &w->acc[l * w->nvalues + x];
            double n = c->runs ? (double)c->runs : 1;
            report_point *p = &lines[l].p[lines[l].n++];
            p->x = *numeric ? xs[x] : (double)x;
            snprintf(p->xlabel, sizeof p->xlabel, "%s", v->v[x]);
            p->thr = c->thr / n;
            p->thr_lo = c->thr_lo;
            p->thr_hi = c->thr_hi;
            p->p50_ms = c->p50 / n;
            p->p99_ms = c->p99 / n;
            p->jain = c->jain / n;
            p->evals_per_acq = c->acquisitions ? (double)c->evals / (double)c->acquisitions : 0;
        }
    }
    return lines;
}

static void print_points(const sweep_work *w, const report_line *lines)
{
    const sweep_args *a = w->a;
    for (size_t l = 0; l < w->nseries; l++)
        for (size_t x = 0; x < lines[l].n; x++) {
            const report_point *p = &lines[l].p[x];
            const acc *c = &w->acc[l * w->nvalues + x];
            if (a->json) {
                fputs("{\"series\":", stdout);
                report_json_str(stdout, lines[l].label);
                printf(",\"key\":\"%s.%s\",\"value\":", a->section, a->key);
                report_json_str(stdout, p->xlabel);
                double runs = c->runs ? (double)c->runs : 1;
                printf(",\"runs\":%zu,\"met\":%zu,\"acquisitions_per_s\":%.3f,\"acquisitions_per_s_min\":%.3f,"
                       "\"acquisitions_per_s_max\":%.3f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"evals_per_acquisition\":%.4f,"
                       "\"fairness_jain\":%.4f,\"events_per_run\":%.0f,\"evals_per_run\":%.0f,\"wall_ms_per_run\":%.3f,"
                       "\"us_per_event\":%.4f}\n",
                       c->runs, c->met, p->thr, p->thr_lo, p->thr_hi, p->p50_ms, p->p99_ms, p->evals_per_acq, p->jain,
                       (double)c->events / runs, (double)c->evals / runs, c->wall_ms / runs,
                       c->events ? c->wall_ms * 1000.0 / (double)c->events : 0.0);
                continue;
            }
            if (l == 0 && x == 0)
                printf("%-28s %14s %12s %10s %10s %10s %7s %6s\n", "series", a->name, "acq/s", "p50 ms", "p99 ms",
                       "evals/acq", "jain", "met");
            printf("%-28s %14s %12.1f %10.2f %10.2f %10.2f %7.3f %3zu/%zu\n", lines[l].label, p->xlabel, p->thr,
                   p->p50_ms, p->p99_ms, p->evals_per_acq, p->jain, c->met, c->runs);
        }
}

/* --report DIR: the contention curves and a page around them. */
static int write_report(const sweep_work *w, const report_line *lines, int numeric, const char *cmdline)
{
    report_outdir od;
    if (report_outdir_begin(&od, w->a->report_dir, "locksim sweep") != 0) return 2;
    report_plots plots = {0};
    char why[1024], key[160];
    snprintf(key, sizeof key, "%s.%s%s", w->a->section, w->a->key,
             numeric && scn_parse_duration(w->a->values.v[0], &(int64_t){0}) == 0 ? " (ms)" : "");
    if (report_plot_contention(od.tmp, key, lines, w->nseries, numeric, &plots, why, sizeof why) != 0) {
        fprintf(stderr, "locksim sweep: %s\n", why);
        report_outdir_abort(&od);
        return 2;
    }
    int g = report_gnuplot_render(od.tmp, &plots, 120, why, sizeof why);
    if (g < 0) fprintf(stderr, "locksim sweep: warning: %s\n", why);
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", od.tmp);
    FILE *out = fopen(path, "w");
    if (out) {
        report_html_begin(out, "locksim sweep", cmdline);
        report_html_figure(out, ".", &plots.v[0], g == 0);
        report_html_points(out, key, lines, w->nseries);
        report_html_end(out);
    }
    report_plots_free(&plots);
    if (out == NULL || ferror(out) || fclose(out) != 0) {
        fprintf(stderr, "locksim sweep: cannot write %s\n", path);
        report_outdir_abort(&od);
        return 2;
    }
    char final[4096];
    snprintf(final, sizeof final, "%s", od.final);
    if (report_outdir_commit(&od, "locksim sweep") != 0) return 2;
    fprintf(stderr, "report: %s/index.html, %s/contention.png%s\n", final, final,
            g == 1 ? " (not rendered: gnuplot is not installed; render with: cd DIR && gnuplot contention.gp)" : "");
    return 0;
}

int cli_sweep(int argc, char **argv)
{
    sweep_args a = {0};
    int status = parse_args(argc, argv, &a);
    sweep_work w = {.a = &a};
    size_t loaded = 0;
    if (status == 0) {
        w.nseries = a.nfiles * (a.protocols.n ? a.protocols.n : 1);
        w.nvalues = a.values.n;
        w.nseeds = (size_t)(a.seed_b - a.seed_a + 1);
        w.variants = sim_xcalloc(w.nseries * w.nvalues, sizeof *w.variants);
        w.acc = sim_xcalloc(w.nseries * w.nvalues, sizeof *w.acc);
        status = load_variants(&w, &loaded);
    }
    if (status == 0) {
        char cmdline[2048];
        cli_command_line(argc, argv, cmdline, sizeof cmdline);
        uint64_t runs = 0, failed = 0;
        a.so.progress = pool_progress_wanted(a.progress);
        a.so.on_result = item_result;
        a.so.on_result_arg = &w;
        status = pool_run(&a.so, w.nseries * w.nvalues * w.nseeds, item_run, item_label, &w, &runs, &failed);
        int interrupted = pool_interrupted();
        if (interrupted)
            fprintf(stderr, "locksim sweep: interrupted: %llu of %zu runs finished; the points are of what finished\n",
                    (unsigned long long)runs, w.nseries * w.nvalues * w.nseeds);
        if (status != 2) {
            int numeric;
            report_line *lines = curves(&w, &numeric);
            print_points(&w, lines);
            if (!a.json)
                printf("%llu runs (%zu series x %zu values x %zu seeds): %llu met every expectation, %llu did not\n",
                       (unsigned long long)runs, w.nseries, w.nvalues, w.nseeds,
                       (unsigned long long)(runs - failed), (unsigned long long)failed);
            if (a.report_dir && write_report(&w, lines, numeric, cmdline) != 0) status = 2;
            for (size_t l = 0; l < w.nseries; l++) sim_xfree(lines[l].p);
            sim_xfree(lines);
        }
        if (interrupted && status != 2) status = 130;
    }
    for (size_t i = 0; i < loaded; i++) scn_free(&w.variants[i]);
    sim_xfree(w.variants);
    sim_xfree(w.acc);
    list_free(&a.values);
    list_free(&a.protocols);
    return status;
}
