/* plot_multi.c — pictures across many runs: latency CDFs (one line per
 * protocol) and contention curves (a line per series against a swept
 * scenario key), as gnuplot scripts and data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"

#define CDF_POINTS 2000 /* per curve, at most */

static const char *const line_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NCOLORS (sizeof line_colors / sizeof line_colors[0])

void report_curve_add(report_curve *c, double v)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->v = sim_xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = v;
}

void report_curve_free(report_curve *c)
{
    sim_xfree(c->v);
    memset(c, 0, sizeof *c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int report_plot_cdf(const char *dir, const char *name, const char *title, report_curve *curves, size_t n,
                    report_plots *out, char *why, size_t cap)
{
    const char *what = "acquire latency CDF per protocol: the share of successful acquires at or below each latency";
    FILE *dat = report_dat_open(dir, name, what, why, cap);
    if (dat == NULL) return -1;
    for (size_t c = 0; c < n; c++) {
        report_curve *cv = &curves[c];
        if (cv->n == 0) continue;
        qsort(cv->v, cv->n, sizeof *cv->v, cmp_double);
        fprintf(dat, "# %s: latency_ms fraction (%zu acquires)\n", cv->label, cv->n);
        size_t step = cv->n > CDF_POINTS ? cv->n / CDF_POINTS : 1;
        for (size_t i = 0; i < cv->n; i += step)
            fprintf(dat, "%.3f %.6f\n", cv->v[i] > 0.001 ? cv->v[i] : 0.001, (double)(i + 1) / (double)cv->n);
        fprintf(dat, "%.3f 1\n\n\n", cv->v[cv->n - 1] > 0.001 ? cv->v[cv->n - 1] : 0.001);
    }
    if (report_dat_close(dat, dir, name, why, cap) != 0) return -1;
    FILE *gp = report_gp_open(dir, name, what, 1000, 520, why, cap);
    if (gp == NULL) return -1;
    fputs("set title ", gp);
    report_gp_str(gp, title);
    fputs("\nset xlabel 'acquire latency (ms)'\nset ylabel 'fraction of acquires'\nset logscale x\n"
          "set yrange [0:1.02]\nset grid lc rgb '#e0e0e0'\nset key bottom right\n", gp);
    fputs("plot NaN notitle", gp);
    size_t index = 0;
    for (size_t c = 0; c < n; c++) {
        if (curves[c].n == 0) continue;
        fprintf(gp, ", '%s.dat' index %zu using 1:2 with steps lw 2 dt %zu lc rgb '%s' title ", name, index,
                index / NCOLORS + 1, line_colors[index % NCOLORS]);
        index++;
        char t[192];
        snprintf(t, sizeof t, "%s (%zu)", curves[c].label, curves[c].n);
        report_gp_str(gp, t);
    }
    fputc('\n', gp);
    if (report_gp_close(gp, dir, name, why, cap) != 0) return -1;
    report_plots_add(out, name, what);
    return 0;
}

/* The x axis: logarithmic base 2 when the numbers span 8x or more (all
 * positive), categories when they are not numbers. */
static void contention_axis(FILE *gp, const report_line *lines, size_t n, int numeric)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t l = 0; l < n; l++)
        for (size_t i = 0; i < lines[l].n; i++) {
            if (lines[l].p[i].x < lo) lo = lines[l].p[i].x;
            if (lines[l].p[i].x > hi) hi = lines[l].p[i].x;
        }
    if (!numeric && n > 0) {
        fputs("set xtics (", gp);
        for (size_t i = 0; i < lines[0].n; i++) {
            fputs(i ? ", " : "", gp);
            report_gp_str(gp, lines[0].p[i].xlabel);
            fprintf(gp, " %g", lines[0].p[i].x);
        }
        fprintf(gp, ")\nset xrange [%g:%g]\n", lo - 0.5, hi + 0.5);
    } else if (lo > 0 && hi / lo >= 8) {
        fprintf(gp, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
    } else {
        fprintf(gp, "set xrange [%g:%g]\n", lo - (hi - lo) * 0.05 - 0.5, hi + (hi - lo) * 0.05 + 0.5);
    }
}

int report_plot_contention(const char *dir, const char *key, const report_line *lines, size_t n, int numeric,
                           report_plots *out, char *why, size_t cap)
{
    char what[256];
    snprintf(what, sizeof what, "contention: throughput, acquire latency, script evals per acquisition and "
                                "Jain's fairness index against %s (mean over seeds)", key);
    FILE *dat = report_dat_open(dir, "contention", what, why, cap);
    if (dat == NULL) return -1;
    for (size_t l = 0; l < n; l++) {
        fprintf(dat, "# %s: x acq_per_s acq_min acq_max p50_ms p99_ms evals_per_acq jain\n", lines[l].label);
        for (size_t i = 0; i < lines[l].n; i++) {
            const report_point *p = &lines[l].p[i];
            fprintf(dat, "%g %.3f %.3f %.3f %.3f %.3f %.4f %.4f\n", p->x, p->thr, p->thr_lo, p->thr_hi, p->p50_ms,
                    p->p99_ms, p->evals_per_acq, p->jain);
        }
        fputs("\n\n", dat);
    }
    if (report_dat_close(dat, dir, "contention", why, cap) != 0) return -1;
    FILE *gp = report_gp_open(dir, "contention", what, 1200, 860, why, cap);
    if (gp == NULL) return -1;
    fputs("set multiplot layout 2,2 title ", gp);
    char title[256];
    snprintf(title, sizeof title, "contention against %s", key);
    report_gp_str(gp, title);
    fputs("\nset grid lc rgb '#e0e0e0'\nset key top left\nset xlabel ", gp);
    report_gp_str(gp, key);
    fputc('\n', gp);
    contention_axis(gp, lines, n, numeric);
    static const char *const panel[][3] = {
        {"throughput", "acquisitions / s", "2:3:4"},
        {"acquire latency (solid p50, dashed p99)", "ms", "5"},
        {"script evals per acquisition", "evals", "7"},
        {"Jain's fairness index", "index", "8"},
    };
    for (int k = 0; k < 4; k++) {
        fputs("set title ", gp);
        report_gp_str(gp, panel[k][0]);
        fprintf(gp, "\nset key %s\nset ylabel '%s'\n%s\n", k == 0 ? "bottom right" : k == 3 ? "bottom left" : "top left",
                panel[k][1],
                k == 1   ? "set logscale y\nset yrange [*:*]"
                : k == 3 ? "unset logscale y\nset yrange [0:1.05]"
                         : "unset logscale y\nset yrange [0:*]");
        fputs("plot NaN notitle", gp);
        for (size_t l = 0; l < n; l++) {
            const char *c = line_colors[l % NCOLORS];
            fprintf(gp, ", 'contention.dat' index %zu using 1:%s with %s lw 2 pt 7 lc rgb '%s' title ", l,
                    k == 0 ? "2:3:4" : panel[k][2], k == 0 ? "yerrorlines" : "linespoints", c);
            report_gp_str(gp, lines[l].label);
            if (k == 1)
                fprintf(gp, ", 'contention.dat' index %zu using 1:6 with linespoints lw 2 dt 2 pt 6 lc rgb '%s' notitle",
                        l, c);
        }
        fputc('\n', gp);
    }
    if (report_gp_close(gp, dir, "contention", why, cap) != 0) return -1;
    report_plots_add(out, "contention", what);
    return 0;
}
