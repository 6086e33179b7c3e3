/* run_folder.c — the report folder of `locksim run --report DIR`
 * (report.h): runs/NNNNN-NAME-sSEED/ per run shown (pictures, its
 * section, its violations), then index.html, the CDF across protocols and
 * render.sh at the top, all under the temporary name until complete. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports/report.h"

#define RENDER_TIMEOUT_S 120

void report_folder_run_name(size_t k, const char *path, uint64_t seed, char *buf, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, ".scn")) len -= 4;
    if (len > 80) len = 80;
    snprintf(buf, cap, "runs/%05zu-%.*s-s%" PRIu64, k + 1, (int)len, base, seed);
    for (char *p = buf + 5; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.' || *p == '@'))
            *p = '_';
}

/* A malloc'ed message: fmt with two strings. */
static char *msg(const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *buf = sim_xmalloc(len);
    snprintf(buf, len, fmt, a, b);
    return buf;
}

/* Writes the run's section and violations next to its pictures. */
static int write_fragments(const char *dir, const report_html_run_args *a, char **err)
{
    char path[4200], vpath[4200];
    snprintf(path, sizeof path, "%s/run.html", dir);
    snprintf(vpath, sizeof vpath, "%s/violations.html", dir);
    FILE *run = fopen(path, "w"), *viol = fopen(vpath, "w");
    if (run && viol) report_html_run(run, viol, a);
    int bad = run == NULL || viol == NULL || ferror(run) || ferror(viol);
    if (run && fclose(run) != 0) bad = 1;
    if (viol && fclose(viol) != 0) bad = 1;
    if (bad) *err = msg("locksim run: cannot write %s: %s\n", path, strerror(errno ? errno : EIO));
    return bad ? -1 : 0;
}

int report_folder_run(const report_folder *rep, size_t k, const run_result *r, const history *h, char **err)
{
    char name[256], dir[4096], why[1024];
    report_folder_run_name(k, r->s->path, r->seed, name, sizeof name);
    snprintf(dir, sizeof dir, "%s/%s", rep->dir.tmp, name);
    if (report_mkdirs(dir) != 0) {
        *err = msg("locksim run: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    report_series rs;
    report_plots plots = {0};
    report_series_build(&rs, h, r->s, r->generated, r->ngenerated, r->virtual_us);
    int rc = report_plot_run(dir, r, h, &rs, &plots, why, sizeof why);
    int rendered = 0;
    if (rc == 0 && rep->gnuplot) {
        int g = report_gnuplot_render(dir, &plots, RENDER_TIMEOUT_S, why, sizeof why);
        rendered = g == 0;
        if (g < 0) { /* our script is wrong: say so, keep the rest of the report */
            *err = msg("locksim run: warning: %s: %s\n", name, why);
        }
    }
    if (rc != 0) {
        *err = msg("locksim run: %s%s\n", why, "");
    } else {
        char replay[1500], anchor[32];
        report_replay_cmd(r->s->path, r->seed, rep->extra, r->checks.nv > 0, replay, sizeof replay);
        snprintf(anchor, sizeof anchor, "run-%zu", k + 1);
        report_html_run_args a = {.r = r, .h = h, .rs = &rs, .plots = &plots, .rendered = rendered,
                                  .reldir = name, .anchor = anchor, .replay = replay};
        char *werr = NULL;
        rc = write_fragments(dir, &a, &werr);
        if (rc != 0) {
            sim_xfree(*err);
            *err = werr;
        }
    }
    report_plots_free(&plots);
    report_series_free(&rs);
    return rc;
}

/* ------------------------------------------------------------ the page */

/* Appends file path to out; 0 when it does not exist. */
static int copy_file(FILE *out, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    char buf[16384];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, out);
    fclose(f);
    return 1;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The latency CDF per protocol over the runs with a folder, when they
 * come from two scenarios or more. Returns 1 when drawn (added to plots). */
static int cdf(const report_folder *rep, const report_row *rows, size_t n, char *const *folders, report_plots *plots)
{
    size_t scenarios = 0;
    for (size_t i = 0; i < n; i++) scenarios += folders[i] && (i == 0 || strcmp(rows[i].scenario, rows[i - 1].scenario));
    if (scenarios < 2) return 0;
    report_curve *curves = NULL;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        if (folders[i] == NULL) continue;
        size_t c;
        for (c = 0; c < nc && strcmp(curves[c].label, rows[i].protocol); c++) {}
        if (c == nc) {
            curves = sim_xrealloc(curves, (nc + 1) * sizeof *curves);
            memset(&curves[nc], 0, sizeof *curves);
            snprintf(curves[nc++].label, sizeof curves[0].label, "%s", rows[i].protocol);
        }
        char path[4096], line[256];
        snprintf(path, sizeof path, "%s/%s/samples.dat", rep->dir.tmp, folders[i]);
        FILE *f = fopen(path, "r");
        double start, lat;
        int outcome;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "%lf %lf %d", &start, &lat, &outcome) == 3 && outcome == 0)
                report_curve_add(&curves[c], lat);
        if (f) fclose(f);
    }
    char why[1024];
    int drawn = report_plot_cdf(rep->dir.tmp, "cdf", "acquire latency CDF per protocol (runs shown below)", curves, nc,
                                plots, why, sizeof why) == 0;
    if (!drawn) fprintf(stderr, "locksim run: warning: %s\n", why);
    for (size_t c = 0; c < nc; c++) report_curve_free(&curves[c]);
    sim_xfree(curves);
    return drawn;
}

static void page(FILE *out, const report_folder *rep, const report_row *rows, size_t n, char *const *folders,
                 const report_plots *plots, int rendered, const char *cmdline, int interrupted)
{
    size_t failed = 0, violations = 0, shown = 0;
    for (size_t i = 0; i < n; i++) {
        failed += !rows[i].met;
        violations += rows[i].nviolations;
        shown += folders[i] != NULL;
    }
    char sub[2048], when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    snprintf(sub, sizeof sub, "%s · %zu run%s: %zu met every expectation, %zu did not%s · generated %s", cmdline, n,
             n == 1 ? "" : "s", n - failed, failed, interrupted ? " · INTERRUPTED: the runs that finished" : "",
             when);
    report_html_begin(out, "locksim report", sub);
    fputs("<h2>Summary</h2>\n", out);
    report_html_table(out, rows, n, (char *const *)folders);
    if (shown < n)
        fprintf(out, "<p class=\"meta\">Pictures for %zu of the %zu runs: the first seed of each scenario and the "
                     "runs that broke an invariant or missed an expectation (at most %d).</p>\n",
                shown, n, REPORT_MAX_RUNS);
    for (size_t i = 0; i < plots->n; i++) report_html_figure(out, ".", &plots->v[i], rendered);
    fprintf(out, "<section id=\"violations\">\n<h2>Violations (%zu)</h2>\n", violations);
    if (violations == 0) fputs("<p>No invariant was broken.</p>\n", out);
    char path[4096];
    for (size_t i = 0; i < n; i++) {
        if (folders[i] == NULL) continue;
        snprintf(path, sizeof path, "%s/%s/violations.html", rep->dir.tmp, folders[i]);
        copy_file(out, path);
    }
    fputs("</section>\n<section id=\"runs\">\n<h2>Runs</h2>\n", out);
    for (size_t i = 0; i < n; i++) {
        if (folders[i] == NULL) continue;
        snprintf(path, sizeof path, "%s/%s/run.html", rep->dir.tmp, folders[i]);
        copy_file(out, path);
    }
    fputs("</section>\n", out);
    report_html_end(out);
}

int report_folder_finish(report_folder *rep, const report_row *rows, size_t n, const char *cmdline, int interrupted)
{
    char **folders = sim_xcalloc(n + 1, sizeof *folders);
    char path[4096], name[256];
    for (size_t i = 0; i < n; i++) {
        report_folder_run_name(i, rows[i].scenario, rows[i].seed, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s/run.html", rep->dir.tmp, name);
        if (file_size(path) > 0) folders[i] = sim_xstrdup(name);
    }
    report_plots plots = {0};
    char why[1024];
    int drawn = cdf(rep, rows, n, folders, &plots);
    int rendered = 0;
    if (drawn && rep->gnuplot) {
        int g = report_gnuplot_render(rep->dir.tmp, &plots, RENDER_TIMEOUT_S, why, sizeof why);
        if (g < 0) fprintf(stderr, "locksim run: warning: %s\n", why);
        rendered = g == 0;
    }
    snprintf(path, sizeof path, "%s/index.html", rep->dir.tmp);
    FILE *out = fopen(path, "w");
    int status = 0;
    if (out) page(out, rep, rows, n, folders, &plots, rendered, cmdline, interrupted);
    if (out == NULL || ferror(out) || fclose(out) != 0 || report_render_sh(rep->dir.tmp, "*.gp runs/*/*.gp") != 0) {
        fprintf(stderr, "locksim run: cannot write %s: %s\n", path, strerror(errno ? errno : EIO));
        report_outdir_abort(&rep->dir);
        status = 2;
    }
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) shown += folders[i] != NULL;
    char final[4096];
    snprintf(final, sizeof final, "%s", rep->dir.final ? rep->dir.final : "");
    if (status == 0) status = report_outdir_commit(&rep->dir, "locksim run");
    if (status == 0) {
        fprintf(stderr, "report: %s/index.html (%zu run%s, pictures for %zu)\n", final, n, n == 1 ? "" : "s", shown);
        if (!rep->gnuplot)
            fprintf(stderr, "report: gnuplot is not installed, so the pictures are not drawn: their data and gnuplot "
                            "scripts are in %s; install gnuplot (Debian: apt-get install gnuplot-nox), then run "
                            "sh %s/render.sh\n", final, final);
    }
    for (size_t i = 0; i < n; i++) sim_xfree(folders[i]);
    sim_xfree(folders);
    report_plots_free(&plots);
    return status;
}
