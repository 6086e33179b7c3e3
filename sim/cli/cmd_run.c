/* cmd_run.c — `locksim run PATH...`: collects scenario files (folders are
 * searched for *.scn, in name order), checks them all before running any,
 * runs the (scenario, seed) pairs (or a shard of them, in --jobs workers:
 * sweep.h), and prints a summary or JSON lines in pair order. Exit 0 when
 * every expectation was met, 1 when one was not, 2 on bad input. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faults/fault.h"
#include "protocols/protocol.h"
#include "reports/report.h"
#include "sim/checkers/checkers.h"
#include "sim/cli/cli.h"
#include "sim/engine/explore.h"
#include "sim/engine/guard.h"
#include "sim/engine/pool.h"
#include "sim/engine/run.h"

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static void paths_add(paths *p, const char *s)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->v = sim_xrealloc(p->v, p->cap * sizeof *p->v);
    }
    p->v[p->n++] = sim_xstrdup(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Adds path, or the *.scn files below it, sorted. Returns -1 if it does
 * not exist. */
static int collect(const char *path, paths *out)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        paths_add(out, path);
        return 0;
    }
    DIR *d = opendir(path);
    if (d == NULL) return -1;
    paths found = {0};
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, de->d_name);
        struct stat sub;
        if (stat(full, &sub) != 0) continue;
        if (S_ISDIR(sub.st_mode) || ends_with(de->d_name, ".scn")) paths_add(&found, full);
    }
    closedir(d);
    if (found.n > 1) qsort(found.v, found.n, sizeof *found.v, cmp_str);
    for (size_t i = 0; i < found.n; i++) {
        collect(found.v[i], out);
        sim_xfree(found.v[i]);
    }
    sim_xfree(found.v);
    return 0;
}

int cli_parse_seeds(const char *v, uint64_t *a, uint64_t *b)
{
    char *end;
    *a = strtoull(v, &end, 10);
    if (end == v) return -1;
    if (*end == '\0') {
        *b = *a;
        return 0;
    }
    if (strncmp(end, "..", 2) != 0) return -1;
    const char *rest = end + 2;
    *b = strtoull(rest, &end, 10);
    if (end == rest || *end || *b < *a) return -1;
    return 0;
}

void cli_result_error(pool_result *res, const scn_error *err)
{
    char msg[1100];
    if (err->line > 0) snprintf(msg, sizeof msg, "%s:%d: %s\n", err->path, err->line, err->msg);
    else snprintf(msg, sizeof msg, "%s: %s\n", err->path, err->msg);
    pool_result_fail(res, msg);
}

int cli_parse_budget(const char *opt, const char *v, run_opts *o)
{
    /* A count or a size with k/M/G (1000s for events, 1024s for memory);
     * 0: no limit. */
    char *end;
    double x = strtod(v, &end);
    int memory = !strcmp(opt, "--max-memory");
    double unit = 1;
    if (*end == 'k' || *end == 'K') unit = memory ? 1.0 / 1024 : 1e3, end++;
    else if (*end == 'M' || *end == 'm') unit = memory ? 1 : 1e6, end++;
    else if (*end == 'G' || *end == 'g') unit = memory ? 1024 : 1e9, end++;
    else if (memory && *end == '\0' && x != 0) unit = 1.0 / (1024.0 * 1024.0); /* plain bytes */
    if (memory && (*end == 'B' || *end == 'b')) end++;
    if (end == v || *end || x < 0 || x * unit > 1e15) {
        fprintf(stderr, "locksim: %s wants %s (got \"%s\")\n", opt,
                memory ? "a size such as 512M or 8G (0: no limit)" : "a count such as 500M or 2G (0: no limit)", v);
        return -1;
    }
    if (memory) o->max_memory_kb = x == 0 ? (long)RUN_UNLIMITED : (long)(x * unit * 1024) > 0 ? (long)(x * unit * 1024) : 1;
    else o->max_events = x == 0 ? RUN_UNLIMITED : (uint64_t)(x * unit) > 0 ? (uint64_t)(x * unit) : 1;
    return 0;
}

int cli_parse_jobs(const char *who, const char *v, unsigned *jobs)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || n < 1 || n > POOL_JOBS_MAX) {
        fprintf(stderr, "%s: --jobs wants a count from 1 to %d (got \"%s\")\n", who, POOL_JOBS_MAX, v);
        return -1;
    }
    *jobs = (unsigned)n;
    return 0;
}

/* The command line of `locksim run`. */
typedef struct run_args {
    paths files;
    uint64_t seed_a, seed_b;
    int has_seeds, json, verbose, tap, progress;
    const char *trace_path, *shard;
    const char *choices;  /* a path of locksim check to replay */
    const char *report_dir, *junit_path;
    char extra[512];      /* the options a replay of one run needs */
    pool_opts so;
    run_opts ro;
} run_args;

/* Parses argv into *a; returns 0, or 2 after printing what is wrong. */
static int parse_args(int argc, char **argv, run_args *a)
{
    a->so.jobs = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(o, "--seed") || !strcmp(o, "--seeds")) && v) {
            if (cli_parse_seeds(v, &a->seed_a, &a->seed_b) != 0 || (!strcmp(o, "--seed") && a->seed_a != a->seed_b)) {
                fprintf(stderr, "locksim run: %s wants %s (got \"%s\")\n", o,
                        !strcmp(o, "--seed") ? "an integer" : "A..B", v);
                return 2;
            }
            a->has_seeds = 1;
            i++;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--swarm")) {
            a->ro.swarm = 1;
        } else if ((!strcmp(o, "--max-events") || !strcmp(o, "--max-memory")) && v) {
            if (cli_parse_budget(o, v, &a->ro) != 0) return 2;
            i++;
        } else if (!strcmp(o, "--trace") && v) {
            a->trace_path = v;
            i++;
        } else if (!strcmp(o, "--jobs") && v) {
            if (cli_parse_jobs("locksim run", v, &a->so.jobs) != 0) return 2;
            i++;
        } else if (!strcmp(o, "--shard") && v) {
            a->shard = v;
            i++;
        } else if (!strcmp(o, "--stop-on-failure")) {
            a->so.stop_on_failure = 1;
        } else if (!strcmp(o, "--backend") && v) {
            if (strcmp(v, "fake") && strcmp(v, "redis")) {
                fprintf(stderr, "locksim run: --backend is fake or redis (got \"%s\")\n", v);
                return 2;
            }
            a->ro.real = !strcmp(v, "redis");
            i++;
        } else if (!strcmp(o, "--redis") && v) {
            a->ro.redis = v;
            i++;
        } else if (!strcmp(o, "--allow-server-faults")) {
            a->ro.allow_server_faults = 1;
        } else if (!strcmp(o, "--horizon") && v) {
            if (scn_parse_duration(v, &a->ro.horizon_us) != 0 || a->ro.horizon_us <= 0) {
                fprintf(stderr, "locksim run: --horizon wants a duration such as 5s (got \"%s\")\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(o, "--choices") && v) {
            explore_replay probe;
            if (explore_replay_parse(&probe, v) != 0) {
                fprintf(stderr, "locksim run: --choices wants values separated by '.' (got \"%s\")\n", v);
                return 2;
            }
            explore_replay_free(&probe);
            a->choices = v;
            i++;
        } else if (!strcmp(o, "--report") && v) {
            a->report_dir = v;
            i++;
        } else if (!strcmp(o, "--junit") && v) {
            a->junit_path = v;
            i++;
        } else if (!strcmp(o, "--tap")) {
            a->tap = 1;
        } else if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            a->progress = !strcmp(o, "--progress") ? 1 : -1;
        } else if (!strcmp(o, "-v") || !strcmp(o, "--verbose")) {
            a->verbose = 1;
        } else if (o[0] == '-') {
            fprintf(stderr, "locksim run: unknown or incomplete option \"%s\"\n", o);
            return 2;
        } else if (collect(o, &a->files) != 0) {
            fprintf(stderr, "locksim run: %s: %s\n", o, strerror(errno ? errno : ENOENT));
            return 2;
        }
    }
    if (a->ro.redis && !a->ro.real) {
        fprintf(stderr, "locksim run: --redis goes with --backend redis\n");
        return 2;
    }
    if (a->trace_path && a->so.jobs > 1) {
        fprintf(stderr, "locksim run: --trace writes one file in run order: use it with --jobs 1 (got --jobs %u)\n",
                a->so.jobs);
        return 2;
    }
    if (a->ro.redis && a->so.jobs > 1) {
        fprintf(stderr, "locksim run: --jobs %u with --redis would run %u scenarios on the same servers at once: "
                        "use --jobs 1, or managed servers (no --redis)\n", a->so.jobs, a->so.jobs);
        return 2;
    }
    if (a->tap && a->json) {
        fprintf(stderr, "locksim run: --tap and --json both write to stdout: choose one\n");
        return 2;
    }
    if (a->files.n == 0) {
        fprintf(stderr, "locksim run: no scenario given (a .scn file or a folder)\n");
        return 2;
    }
    size_t n = 0;
    if (a->ro.real) n += (size_t)snprintf(a->extra + n, sizeof a->extra - n, " --backend redis");
    if (a->ro.swarm) n += (size_t)snprintf(a->extra + n, sizeof a->extra - n, " --swarm");
    if (a->ro.horizon_us > 0 && n < sizeof a->extra) {
        char d[32];
        scn_duration_format(a->ro.horizon_us, d, sizeof d);
        n += (size_t)snprintf(a->extra + n, sizeof a->extra - n, " --horizon %s", d);
    }
    if (a->choices && n < sizeof a->extra) snprintf(a->extra + n, sizeof a->extra - n, " --choices %s", a->choices);
    return 0;
}

/* Loads every file before anything runs (no half a sweep): returns 0, or
 * 2 after printing the first error. *loaded counts what to scn_free. */
static int load_all(const run_args *a, scenario *scns, size_t *loaded)
{
    for (*loaded = 0; *loaded < a->files.n; (*loaded)++) {
        scenario *s = &scns[*loaded];
        scn_error err;
        if (run_load(a->files.v[*loaded], cli_scripts_override(), cli_scripts_override() != NULL, s, &err) != 0) {
            scn_error_print(&err);
            return 2;
        }
        char why[768];
        if (guard_refuse_size(s, &a->ro, why, sizeof why) != 0) {
            fprintf(stderr, "%s\n", why);
            scn_free(s);
            return 2;
        }
        if (a->ro.real && run_real_refusal(s, &a->ro, why, sizeof why) != 0) {
            fprintf(stderr, "%s\n", why);
            scn_free(s);
            return 2;
        }
    }
    return 0;
}

/* The work list: every (scenario, seed) pair, scenarios in file order,
 * seeds ascending; a shard runs items shard_i, shard_i + shard_n, ... */
typedef struct work {
    const run_args *a;
    const scenario *scns;
    uint64_t *first, *seed0; /* scenario i's first item and seed; first[n] = total */
    unsigned shard_i, shard_n;
    FILE *trace;
    report_folder *report;      /* --report, or NULL */
    report_row *rows;        /* every result, in order (for --report, --junit) */
    size_t nrows, rows_cap;
    int need_rows;
} work;

#define WORK_MAX ((uint64_t)1 << 48) /* more pairs than anyone can run */

/* Fills w's list over n scenarios; -1 when it has more than WORK_MAX. */
static int work_init(work *w, const run_args *a, const scenario *scns, size_t n)
{
    w->a = a;
    w->scns = scns;
    w->first = sim_xcalloc(n + 1, sizeof *w->first);
    w->seed0 = sim_xcalloc(n + 1, sizeof *w->seed0);
    for (size_t i = 0; i < n; i++) {
        uint64_t sa = a->has_seeds ? a->seed_a : (scns[i].has_seed ? scns[i].seed : 1);
        uint64_t sb = a->has_seeds ? a->seed_b : sa;
        w->seed0[i] = sa;
        if (sb - sa >= WORK_MAX || w->first[i] + (sb - sa) + 1 > WORK_MAX) return -1;
        w->first[i + 1] = w->first[i] + (sb - sa) + 1;
    }
    return 0;
}

static void work_free(work *w)
{
    sim_xfree(w->first);
    sim_xfree(w->seed0);
}

/* The scenario and seed of the shard's k-th item; *first_here: the
 * first item of its scenario in this shard. */
static const scenario *work_find(const work *w, size_t k, uint64_t *seed, int *first_here)
{
    uint64_t g = w->shard_i + (uint64_t)k * w->shard_n;
    size_t i = 0;
    while (g >= w->first[i + 1]) i++;
    *seed = w->seed0[i] + (g - w->first[i]);
    *first_here = g - w->first[i] < w->shard_n;
    return &w->scns[i];
}

static const scenario *work_locate(const work *w, size_t k, uint64_t *seed)
{
    int first_here;
    return work_find(w, k, seed, &first_here);
}

/* Which runs get a folder of pictures in the report: the first of each
 * scenario, every one that missed an expectation, and the ones that broke
 * an invariant among the first 20 seeds of their scenario. */
#define REPORT_VIOLATING_SEEDS 20

static int worth_pictures(const run_result *r, int first_here, uint64_t seed0)
{
    return first_here || !r->expectations_met || (r->checks.nv > 0 && r->seed - seed0 < REPORT_VIOLATING_SEEDS);
}

/* Appends text (len bytes) to *buf / *len. */
static void append(char **buf, size_t *len, const char *text)
{
    size_t add = strlen(text);
    *buf = sim_xrealloc(*buf, *len + add + 1);
    memcpy(*buf + *len, text, add + 1);
    *len += add;
}

static void work_label(void *arg, size_t k, char *buf, size_t cap)
{
    uint64_t seed;
    const scenario *s = work_locate(arg, k, &seed);
    snprintf(buf, cap, "%s seed %llu", s->path, (unsigned long long)seed);
}

/* The run's folder in the report; a failure to write it ends the sweep
 * (status 2), a warning (gnuplot complained) goes to stderr. */
static void work_report(const work *w, size_t k, const run_result *r, const history *h, pool_result *res)
{
    char *err = NULL;
    if (report_folder_run(w->report, k, r, h, &err) != 0) res->status = 2;
    if (err) {
        append(&res->err, &res->err_len, err);
        sim_xfree(err);
    }
}

/* Runs one pair; its summary or JSON line goes to res->out. */
static void work_run(void *arg, size_t k, pool_result *res)
{
    const work *w = arg;
    uint64_t seed;
    int first_here;
    const scenario *s = work_find(w, k, &seed, &first_here);
    history h;
    run_result r;
    scn_error err;
    run_opts o = w->a->ro;
    o.trace = w->trace;
    explore_replay rep = {0};
    if (w->a->choices) {
        explore_replay_parse(&rep, w->a->choices);
        o.chooser = explore_replay_choose;
        o.chooser_ud = &rep;
    }
    hist_init(&h);
    int rc = run_scenario(s, seed, &o, &r, &h, &err);
    if (rc == 0 && r.halted == RUN_HALT_SIGNAL) res->partial = 1;
    if (rc == 0 && w->a->choices && (rep.pos < rep.n || rep.mismatches))
        fprintf(stderr, "locksim run: the choice string does not fit this run (%zu of %zu values used, %llu out of range)\n",
                rep.pos, rep.n, (unsigned long long)rep.mismatches);
    explore_replay_free(&rep);
    if (rc != 0) {
        cli_result_error(res, &err);
        hist_free(&h);
        return;
    }
    FILE *m = open_memstream(&res->out, &res->out_len);
    sim_assert(m != NULL);
    if (w->a->json) report_json(m, &r, &h);
    else if (!w->a->tap) report_summary(m, &r, &h, w->a->verbose);
    fclose(m);
    if (w->need_rows) {
        m = open_memstream(&res->rec, &res->rec_len);
        sim_assert(m != NULL);
        report_json(m, &r, &h);
        fclose(m);
    }
    res->status = r.expectations_met ? 0 : 1;
    if (w->report && worth_pictures(&r, first_here, w->seed0[(size_t)(s - w->scns)]))
        work_report(w, k, &r, &h, res);
    run_result_free(&r);
    hist_free(&h);
}

/* In list order, in this process: keeps the run's row, prints its TAP line. */
static void work_result(void *arg, size_t k, const pool_result *res)
{
    work *w = arg;
    if (!w->need_rows || res->status == 2 || res->rec == NULL) return;
    report_row row;
    char why[256];
    if (report_row_parse(res->rec, res->rec_len, &row, why, sizeof why) != 0) {
        fprintf(stderr, "locksim run: internal: the result of run %zu does not read back: %s\n", k + 1, why);
        return;
    }
    if (w->a->tap) {
        report_tap_line(stdout, w->nrows + 1, &row, w->a->extra);
        fflush(stdout);
    }
    if (w->nrows == w->rows_cap) {
        w->rows_cap = w->rows_cap ? w->rows_cap * 2 : 64;
        w->rows = sim_xrealloc(w->rows, w->rows_cap * sizeof *w->rows);
    }
    w->rows[w->nrows++] = row;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, const char *v)
{
    fprintf(stderr, "locksim %s: ", cmd);
    fprintf(stderr, fmt, v ? v : "");
    fprintf(stderr, "\nusage: %s\n", usage);
    return 2;
}

void cli_command_line(int argc, char **argv, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "locksim");
    for (int i = 0; i < argc && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, " %s", argv[i]);
}

/* Opens what the sweep writes besides stdout (--report, --junit) before
 * anything runs. Returns 0 or 2 (printed). */
static int outputs_begin(const run_args *a, work *w, report_folder *rep, report_outfile *junit)
{
    if (a->junit_path && report_outfile_begin(junit, a->junit_path, "locksim run") != 0) return 2;
    if (a->report_dir) {
        if (report_outdir_begin(&rep->dir, a->report_dir, "locksim run") != 0) {
            report_outfile_abort(junit);
            return 2;
        }
        rep->extra = a->extra;
        rep->gnuplot = report_gnuplot_found();
        w->report = rep;
    }
    w->need_rows = a->report_dir || a->junit_path || a->tap;
    return 0;
}

/* Writes --junit and --report from the rows; a sweep that could not run
 * (status 2) writes neither. Returns the status. */
static int outputs_end(const run_args *a, work *w, report_folder *rep, report_outfile *junit, int status,
                       const char *cmdline, int interrupted)
{
    if (status == 2) {
        report_outfile_abort(junit);
        if (w->report) report_outdir_abort(&rep->dir);
        return status;
    }
    if (a->junit_path) {
        int rc = report_junit(junit->f, w->rows, w->nrows, a->extra) == 0 ? report_outfile_commit(junit, "locksim run")
                                                                          : 2;
        if (rc) {
            report_outfile_abort(junit);
            status = 2;
        }
    }
    if (w->report && report_folder_finish(rep, w->rows, w->nrows, cmdline, interrupted) != 0) status = 2;
    return status;
}

/* After the runs: TAP's plan, or the summary's last line. */
static void closing_lines(const run_args *a, size_t tap_tests, uint64_t runs, uint64_t failed)
{
    if (a->tap) {
        report_tap_plan(stdout, tap_tests);
        fputs("# ", stdout);
    }
    if (a->tap || !a->json)
        printf("%llu run%s: %llu met every expectation, %llu did not\n", (unsigned long long)runs,
               runs == 1 ? "" : "s", (unsigned long long)(runs - failed), (unsigned long long)failed);
    fflush(stdout);
}

/* Runs the shard's pairs (all of them when there is no shard). */
static int run_work(run_args *a, const scenario *scns, size_t n, const char *cmdline)
{
    work w = {0};
    char why[256];
    const char *from;
    if (pool_shard(a->shard, &w.shard_i, &w.shard_n, &from, why, sizeof why) != 0) {
        fprintf(stderr, "locksim run: %s\n", why);
        return 2;
    }
    if (work_init(&w, a, scns, n) != 0) {
        fprintf(stderr, "locksim run: more than 2^48 (scenario, seed) pairs: use a shorter --seeds\n");
        work_free(&w);
        return 2;
    }
    uint64_t total = w.first[n];
    uint64_t mine = total > w.shard_i ? (total - 1 - w.shard_i) / w.shard_n + 1 : 0;
    if (from && strcmp(from, "--shard"))
        fprintf(stderr, "locksim run: shard %u/%u (from %s): %llu of %llu runs\n", w.shard_i + 1, w.shard_n, from,
                (unsigned long long)mine, (unsigned long long)total);
    int status = 0;
    if (a->trace_path && (w.trace = fopen(a->trace_path, "w")) == NULL) {
        fprintf(stderr, "locksim run: cannot write %s: %s\n", a->trace_path, strerror(errno));
        status = 2;
    }
    uint64_t runs = 0, failed = 0;
    report_folder rep = {0};
    report_outfile junit = {0};
    if (status == 0) status = outputs_begin(a, &w, &rep, &junit);
    if (status == 0) {
        a->so.progress = pool_progress_wanted(a->progress);
        if (mine == 1) { /* one run: its own progress line, not the sweep's bar */
            a->ro.progress = a->so.progress;
            a->so.progress = 0;
        }
        a->so.on_result = work_result;
        a->so.on_result_arg = &w;
        if (a->tap) report_tap_begin(stdout);
        status = pool_run(&a->so, (size_t)mine, work_run, work_label, &w, &runs, &failed);
        int interrupted = pool_interrupted();
        if (w.trace) fclose(w.trace);
        if (interrupted)
            fprintf(stderr, "locksim run: interrupted: %llu of %llu runs finished; what finished is written\n",
                    (unsigned long long)runs, (unsigned long long)mine);
        if (status != 2) closing_lines(a, w.nrows, runs, failed);
        status = outputs_end(a, &w, &rep, &junit, status, cmdline, interrupted);
        if (interrupted && status != 2) status = 128 + pool_stop_signal();
    }
    for (size_t i = 0; i < w.nrows; i++) report_row_free(&w.rows[i]);
    sim_xfree(w.rows);
    work_free(&w);
    return status;
}

int cli_run(int argc, char **argv)
{
    run_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status == 0) {
        scenario *scns = sim_xcalloc(a.files.n, sizeof *scns);
        size_t loaded = 0;
        char cmdline[2048];
        cli_command_line(argc, argv, cmdline, sizeof cmdline);
        status = load_all(&a, scns, &loaded);
        if (status == 0) status = run_work(&a, scns, loaded, cmdline);
        for (size_t i = 0; i < loaded; i++) scn_free(&scns[i]);
        sim_xfree(scns);
    }
    for (size_t i = 0; i < a.files.n; i++) sim_xfree(a.files.v[i]);
    sim_xfree(a.files.v);
    return status;
}

/* Appends to buf the names of the invariants of the CHECK_INV bits inv,
 * comma-separated, each after prefix ("", "not "). */
static void inv_words(unsigned inv, const char *prefix, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    for (int k = 0; k < SCN_INV_COUNT && len < cap; k++)
        if (inv & CHECK_INV(k))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s%s", len ? ", " : "", prefix,
                                    scn_invariant_name((scn_invariant)k));
}

/* The checker table: what each checker judges, when it runs, what for. */
static void list_checkers(void)
{
    size_t n;
    const check_row *rows = check_rows(&n);
    printf("invariants, by checker in the order they run (when: what the protocol declares):\n");
    for (size_t i = 0; i < n; i++) {
        char judges[256] = "", when[256] = "";
        inv_words(rows[i].judges, "", judges, sizeof judges);
        inv_words(rows[i].when, "", when, sizeof when);
        inv_words(rows[i].unless, "not ", when, sizeof when);
        printf("  %-18s judges: %-32s when: %s\n  %-18s %s\n", rows[i].name, judges, when, "", rows[i].about);
    }
}

int cli_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("protocols:\n");
    size_t nc = 0;
    while (proto_all[nc]) nc++;
    for (size_t i = 0; i < nc + proto_policy_count(); i++) {
        const proto_def *pd = i < nc ? proto_all[i] : proto_policy_at(i - nc);
        if (i == nc) printf("lock policies (protocols/locks, --protocols DIR, or [protocol] name = FILE.lock):\n");
        printf("  %-30s %s\n", pd->name, pd->summary);
        if (pd->options) printf("  %-30s   options: %s\n", "", pd->options);
        if (pd->versions) printf("  %-30s   versions: %s\n", "", pd->versions);
        if (pd->history) printf("  %-30s   history: %s\n", "", pd->history);
        cli_list_scripts(pd, 35);
        static const char *const reentry_how[] = {
            [CL_REENTRY_NO] = "no (the workload never re-enters it)",
            [CL_REENTRY_REDIS] = "redis (counted in Redis: every acquire and release is sent)",
            [CL_REENTRY_LOCAL] = "local (counted in the client: Redis sees the first acquire, the last release)"};
        printf("  %-30s   re-entry: %s\n", "", reentry_how[proto_reentry(pd)]);
        printf("  %-30s   checkers:", "");
        size_t nrows;
        const check_row *rows = check_rows(&nrows);
        for (size_t k = 0; k < nrows; k++)
            if (check_applies(&rows[k], proto_invariants(pd))) printf(" %s", rows[k].name);
        printf("\n");
        const proto_contract *c = proto_contract_of(pd);
        char kinds[400];
        proto_contract_text(c, kinds, sizeof kinds);
        printf("  %-30s   contract: survives %s%s (from: %s)\n", "", kinds,
               c->failover_synced && (c->survives & SCN_NEM_FAILOVER) ? "; failover where it WAITs" : "", c->source);
    }
    printf("a contract's conditions: a client pause, node pause, partition or window of lost replies no longer "
           "than the renewal margin; a delay whose round trip is under the reply timeout; a node crash with "
           "persistence. `hunt` draws within it unless --beyond-contract\n");
    const char *usage, *doc;
    printf("client operations ([steps] lines: at = TIME cN[.tM] OPERATION ...):\n");
    for (size_t i = 0; scn_step_help(i, &usage, &doc); i++) printf("  %-50s %s\n", usage, doc);
    printf("faults ([faults] lines: at = TIME FAULT ...):\n");
    for (size_t i = 0; scn_fault_help(i, &usage, &doc); i++) printf("  %-50s %s\n", usage, doc);
    printf("libfiu failure points (fiu POINT p=P [for=D]):\n");
    for (size_t i = 0; fault_fiu_points[i]; i++) printf("  %s\n", fault_fiu_points[i]);
    printf("nemesis kinds ([nemesis] kinds = ...):\n ");
    for (int b = 0; b < SCN_NEM_COUNT; b++) printf(" %s", scn_nemesis_kind_name(1 << b));
    printf("\n");
    list_checkers();
    return 0;
}
