/* plot_run.c — the pictures of one run, as gnuplot scripts and data:
 * the holders timeline of each lock, acquire latency over time, and
 * throughput over time, each with the run's fault windows shaded and its
 * violations drawn in red at their true times (Jepsen's perf plots). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"

#define MAX_ROWS 48 /* threads drawn in one holders timeline */
#define COLOR_VIOLATION "#e41a1c"

static double secs(int64_t us)
{
    return (double)us / 1e6;
}

static const char *fault_color(const char *kind)
{
    static const char *const map[][2] = {
        {"pause", "#ff9f1c"},     {"crash", "#8c564b"},    {"clock", "#9467bd"},   {"partition", "#17becf"},
        {"failover", "#e377c2"},  {"disconnect", "#bcbd22"}, {"restart", "#2ca02c"}, {"network", "#7f7f7f"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(kind, map[i][0])) return map[i][1];
    return "#7f7f7f";
}

/* A nice bucket width near span/want: 1, 2 or 5 times a power of ten µs. */
static int64_t bucket_us(int64_t span_us, int want)
{
    int64_t target = span_us / want, step = 1000;
    while (step * 10 <= target) step *= 10;
    if (step * 5 <= target) return step * 5;
    if (step * 2 <= target) return step * 2;
    return step;
}

#define LABEL_ROWS 3 /* fault labels above the plot, staggered */

/* A fault's label for a picture: its line without "client=", "node=" and
 * "for=..." (the window shows how long). */
static void short_label(const char *label, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *p = label; *p && n + 1 < cap;) {
        if (!strncmp(p, "client=", 7) || !strncmp(p, "node=", 5)) {
            p = strchr(p, '=') + 1;
        } else if (!strncmp(p, "for=", 4)) {
            p += strcspn(p, " ");
            while (n > 0 && buf[n - 1] == ' ') n--;
        } else {
            buf[n++] = *p++;
        }
    }
    buf[n] = '\0';
}

/* Rows of a holders timeline: the fault of one client shades its rows. */
typedef struct row {
    int client, thread, in_violation;
} row;

/* Shaded fault windows, instant faults as dashed lines, both labelled
 * above the plot; each violation as a red line, the first one labelled.
 * With rows (a holders timeline), a fault of one client shades its rows
 * only. */
static void gp_faults(FILE *gp, const report_series *rs, const run_result *r, const row *rows, size_t nrows)
{
    int obj = 1;
    for (size_t i = 0; i < rs->nfaults; i++) {
        const report_fault *f = &rs->faults[i];
        const char *c = fault_color(f->kind);
        const char *style = "behind fs transparent solid 0.2 noborder";
        if (f->to_us > f->from_us && rows && f->client) {
            for (size_t y = 0; y < nrows; y++)
                if (rows[y].client == f->client)
                    fprintf(gp, "set object %d rect from %.6f, %.2f to %.6f, %.2f fc rgb '%s' %s\n", obj++,
                            secs(f->from_us), (double)y + 0.55, secs(f->to_us), (double)y + 1.45, c, style);
        } else if (f->to_us > f->from_us) {
            fprintf(gp, "set object %d rect from %.6f, graph 0 to %.6f, graph 1 fc rgb '%s' %s\n", obj++,
                    secs(f->from_us), secs(f->to_us), c, style);
        } else {
            fprintf(gp, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2 lw 1.5 lc rgb '%s' back\n",
                    secs(f->from_us), secs(f->from_us), c);
        }
        char label[256];
        short_label(f->label, label, sizeof label);
        fprintf(gp, "set label %zu ", i + 1);
        report_gp_str(gp, label);
        fprintf(gp, " at %.6f, graph 1 offset 0,%.1f font ',8' tc rgb '%s' front\n", secs(f->from_us),
                0.6 + (double)(LABEL_ROWS - 1 - (int)(i % LABEL_ROWS)) * 1.0, c);
    }
    for (size_t i = 0; i < r->checks.nv; i++)
        fprintf(gp, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead lw 1.2 lc rgb '%s' front\n",
                secs(r->checks.v[i].t_us), secs(r->checks.v[i].t_us), COLOR_VIOLATION);
    if (r->checks.nv) {
        char text[160];
        snprintf(text, sizeof text, " %s%s", scn_invariant_name(r->checks.v[0].inv),
                 r->checks.nv > 1 ? " (first of the violations)" : "");
        /* In the last fifth of the run the label ends at the line, not
         * past the plot's right edge. */
        int right = rs->end_us > 0 && r->checks.v[0].t_us > rs->end_us / 5 * 4;
        fprintf(gp, "set label %zu ", rs->nfaults + 1);
        report_gp_str(gp, right ? text + 1 : text);
        fprintf(gp, " at %.6f, graph 0 %s offset %s,0.7 font ',9' tc rgb '%s' front\n", secs(r->checks.v[0].t_us),
                right ? "right" : "left", right ? "-0.5" : "0", COLOR_VIOLATION);
    }
    fprintf(gp, "set tmargin %d\nset title offset 0,%d\n", 3 + LABEL_ROWS, LABEL_ROWS);
}

/* Legend entries for the kinds of fault present (a NaN plot per kind). */
static void gp_fault_keys(FILE *gp, const report_series *rs)
{
    const char *seen[16];
    size_t n = 0;
    for (size_t i = 0; i < rs->nfaults && n < 16; i++) {
        size_t j;
        for (j = 0; j < n && strcmp(seen[j], rs->faults[i].kind); j++) {}
        if (j < n) continue;
        seen[n++] = rs->faults[i].kind;
        fprintf(gp, ", NaN with boxes fs transparent solid 0.3 noborder lc rgb '%s' title '%s'",
                fault_color(rs->faults[i].kind), rs->faults[i].kind);
    }
}

/* ---------------------------------------------------------- holders */

static int row_cmp(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->client != y->client) return x->client < y->client ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int row_of(const row *rows, size_t n, int client, int thread)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].client == client && rows[i].thread == thread) return (int)i + 1;
    return 0;
}

static void row_add(row **rows, size_t *n, size_t *cap, int client, int thread, int viol)
{
    for (size_t i = 0; i < *n; i++)
        if ((*rows)[i].client == client && (*rows)[i].thread == thread) {
            (*rows)[i].in_violation |= viol;
            return;
        }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *rows = sim_xrealloc(*rows, *cap * sizeof **rows);
    }
    (*rows)[(*n)++] = (row){client, thread, viol};
}

/* The rows of lock's timeline: every thread with a span on it and every
 * thread a violation on it names; beyond MAX_ROWS, those in violations
 * first, then in client order. *total is how many there were. */
static row *holder_rows(const run_result *r, const history *h, const report_series *rs, int lock, size_t *n,
                        size_t *total)
{
    row *rows = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < r->checks.nv; i++) {
        int c[8], t[8];
        if (report_violation_lock(&r->checks.v[i], h) != lock) continue;
        size_t m = report_violation_threads(&r->checks.v[i], c, t, 8);
        for (size_t j = 0; j < m; j++) row_add(&rows, n, &cap, c[j], t[j], 1);
    }
    for (size_t i = 0; i < rs->nspans; i++)
        if (rs->spans[i].lock == lock) row_add(&rows, n, &cap, rs->spans[i].client, rs->spans[i].thread, 0);
    *total = *n;
    if (*n > MAX_ROWS) { /* violation rows came first: keep them, then the lowest clients */
        size_t v = 0;
        while (v < *n && rows[v].in_violation) v++;
        if (v < MAX_ROWS) qsort(rows + v, *n - v, sizeof *rows, row_cmp);
        *n = MAX_ROWS;
    }
    if (*n > 1) qsort(rows, *n, sizeof *rows, row_cmp);
    return rows;
}

/* One data block per kind of span: "from_s to_s row". Returns how many
 * lines it wrote. */
static size_t dat_spans(FILE *dat, const report_series *rs, int lock, report_span_kind kind, const row *rows,
                        size_t n)
{
    size_t lines = 0;
    for (size_t i = 0; i < rs->nspans; i++) {
        const report_span *sp = &rs->spans[i];
        int y = sp->lock == lock && sp->kind == kind ? row_of(rows, n, sp->client, sp->thread) : 0;
        if (y == 0) continue;
        fprintf(dat, "%.6f %.6f %d\n", secs(sp->from_us), secs(sp->to_us), y);
        lines++;
    }
    return lines;
}

static size_t dat_violations(FILE *dat, const run_result *r, const history *h, int lock, const row *rows, size_t n)
{
    size_t lines = 0;
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        int c[8], t[8];
        if (report_violation_lock(v, h) != lock) continue;
        size_t m = report_violation_threads(v, c, t, 8);
        for (size_t j = 0; j < m; j++) {
            int y = row_of(rows, n, c[j], t[j]);
            if (y) fprintf(dat, "%.6f %d\n", secs(v->t_us), y), lines++;
        }
    }
    return lines;
}

typedef struct block {
    const char *using, *style, *title;
} block;

static int plot_holders(const char *dir, const run_result *r, const history *h, const report_series *rs, int lock,
                        int width, report_plots *out, char *why, size_t cap)
{
    const scenario *s = r->s;
    char name[96], what[256];
    snprintf(name, sizeof name, "holders-%.80s", s->lock_names[lock]);
    for (char *p = name; *p; p++)
        if (*p == '/' || *p == ' ' || *p == '{' || *p == '}' || *p == ':') *p = '_';
    size_t n, total;
    row *rows = holder_rows(r, h, rs, lock, &n, &total);
    if (n == 0) { /* no thread used this lock: nothing to draw */
        sim_xfree(rows);
        return 0;
    }
    snprintf(what, sizeof what, "who held %s when (true time): a row per thread%s", s->lock_names[lock],
             total > n ? " (the threads in violations and the first others)" : "");
    FILE *dat = report_dat_open(dir, name, what, why, cap);
    if (dat == NULL) {
        sim_xfree(rows);
        return -1;
    }
    static const block blocks[] = {
        {"(($1+$2)/2):3:(($2-$1)/2):(0.08)", "with boxxyerror fc rgb '#b8b8b8' fs solid 1 border lc rgb '#a0a0a0'",
         "waiting"},
        {"(($1+$2)/2):3:(($2-$1)/2):(0.32)", "with boxxyerror fc rgb '#4a90d9' fs solid 1 border lc rgb '#1f5f9f'",
         "holds"},
        {"(($1+$2)/2):3:(($2-$1)/2):(0.22)", "with boxxyerror fc rgb '#f5a623' fs solid 1 border lc rgb '#b5761b'",
         "holds shared (read / permits)"},
        {"1:3", "with points pt 9 ps 1.2 lc rgb '#2ca02c'", "countDown"},
        {"1:2", "with points pt 2 ps 2.5 lw 2.5 lc rgb '" COLOR_VIOLATION "'", "violation"},
    };
    static const report_span_kind kinds[] = {REPORT_WAIT, REPORT_HOLD, REPORT_HOLD_SHARED, REPORT_MARK};
    size_t counts[5];
    for (int b = 0; b < 5; b++) {
        fprintf(dat, "# %s\n", blocks[b].title);
        counts[b] = b < 4 ? dat_spans(dat, rs, lock, kinds[b], rows, n) : dat_violations(dat, r, h, lock, rows, n);
        if (counts[b]) fputs("\n\n", dat);
    }
    if (report_dat_close(dat, dir, name, why, cap) != 0) {
        sim_xfree(rows);
        return -1;
    }
    int height = 170 + 22 * (int)n;
    FILE *gp = report_gp_open(dir, name, what, width, height < 320 ? 320 : height, why, cap);
    if (gp == NULL) {
        sim_xfree(rows);
        return -1;
    }
    char title[1024], proto[512];
    snprintf(title, sizeof title, "%s: holders of %s (%s, seed %llu)%s", s->name, s->lock_names[lock],
             scn_protocol_label(s, proto, sizeof proto),
             (unsigned long long)r->seed, total > n ? ", threads in violations and the first others" : "");
    fputs("set title ", gp);
    report_gp_str(gp, title);
    fputs("\nset xlabel 'true time (s)'\nset grid xtics lc rgb '#e0e0e0'\nset key below horizontal\n", gp);
    fprintf(gp, "set xrange [0:%.6f]\nset yrange [%.1f:0.4]\nset ytics (", secs(rs->end_us), (double)n + 0.6);
    for (size_t i = 0; i < n; i++)
        fprintf(gp, "%s'c%d.t%d' %zu", i ? ", " : "", rows[i].client, rows[i].thread, i + 1);
    fputs(")\n", gp);
    gp_faults(gp, rs, r, rows, n);
    fputs("plot NaN notitle", gp);
    int index = 0;
    for (int b = 0; b < 5; b++) {
        if (!counts[b]) continue;
        fprintf(gp, ", '%s.dat' index %d using %s %s title '%s'", name, index++, blocks[b].using, blocks[b].style,
                blocks[b].title);
    }
    gp_fault_keys(gp, rs);
    fputc('\n', gp);
    sim_xfree(rows);
    if (report_gp_close(gp, dir, name, why, cap) != 0) return -1;
    report_plots_add(out, name, what);
    return 0;
}

/* ---------------------------------------------------- latency, rate */

/* The acquires of the run (waits that were acquires and ended). */
/* The waits of one kind (acquire 1: acquires, 0: a latch's awaits) into
 * out, the unfinished ones too when asked; returns how many. */
static size_t waits(const report_series *rs, int acquire, int unfinished, const report_span **out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->nspans; i++) {
        const report_span *sp = &rs->spans[i];
        if (sp->kind == REPORT_WAIT && sp->acquire == acquire && (unfinished || sp->outcome != REPORT_UNFINISHED))
            out[n++] = sp;
    }
    return n;
}

/* The words of the latency and throughput pictures, for acquires or for
 * awaits (a latch has no acquire). */
typedef struct op_words {
    int acquire;
    const char *outcome[4], *latency_what, *latency_title, *rate_what, *rate_ok;
} op_words;

static const op_words acquire_words = {
    1, {"acquired", "timed out", "error", "still waiting at the end"},
    "acquire latency by start time: each acquire by outcome, quantiles per time bucket", "acquire latency",
    "acquisitions per second of true time, and acquires that timed out or failed", "acquired/s"};
static const op_words await_words = {
    0, {"released", "timed out", "error", "still waiting at the end"},
    "await latency by start time: each await by outcome, quantiles per time bucket", "await latency",
    "awaits released per second of true time, and awaits that timed out or failed", "released/s"};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Per time bucket (by start): p50 p95 p99 max of the latencies in ms. */
#define QUANTILE_MIN 5 /* samples in a bucket for its quantiles to be drawn */

static size_t dat_quantiles(FILE *dat, const report_span **acq, size_t n, int64_t width_us, int64_t end_us)
{
    int64_t *lat = sim_xcalloc(n + 1, sizeof *lat);
    size_t lines = 0;
    int gap = 0;
    for (int64_t b0 = 0; b0 < end_us; b0 += width_us) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (acq[i]->from_us >= b0 && acq[i]->from_us < b0 + width_us) lat[m++] = acq[i]->to_us - acq[i]->from_us;
        if (m < QUANTILE_MIN) { /* a blank line: the lines break here */
            gap = lines > 0;
            continue;
        }
        if (gap) fputc('\n', dat);
        gap = 0;
        lines++;
        qsort(lat, m, sizeof *lat, cmp_i64);
        fprintf(dat, "%.6f %.3f %.3f %.3f %.3f\n", secs(b0 + width_us / 2), (double)lat[(m - 1) / 2] / 1e3,
                (double)lat[(m - 1) * 95 / 100] / 1e3, (double)lat[(m - 1) * 99 / 100] / 1e3,
                (double)lat[m - 1] / 1e3);
    }
    sim_xfree(lat);
    return lines;
}

static void gp_title(FILE *gp, const run_result *r, const char *what)
{
    char title[1024], proto[512];
    snprintf(title, sizeof title, "%s: %s (%s, seed %llu)", r->s->name, what, scn_protocol_label(r->s, proto, sizeof proto),
             (unsigned long long)r->seed);
    fputs("set title ", gp);
    report_gp_str(gp, title);
    fputs("\nset xlabel 'true time (s)'\nset grid lc rgb '#e0e0e0'\nset key below horizontal\n", gp);
    fprintf(gp, "set xrange [0:%.6f]\n", secs(r->virtual_us));
}

static int plot_latency(const char *dir, const run_result *r, const report_series *rs, const op_words *ow,
                        report_plots *out, char *why, size_t cap)
{
    const char *const *outcome = ow->outcome;
    static const char *const style[] = {"pt 7 ps 0.45 lc rgb '#1f77b4'", "pt 9 ps 0.9 lc rgb '#ff7f0e'",
                                        "pt 2 ps 0.9 lc rgb '#d62728'", "pt 8 ps 1.4 lc rgb '#9467bd'"};
    const char *what = ow->latency_what;
    const report_span **acq = sim_xcalloc(rs->nspans + 1, sizeof *acq);
    size_t n = waits(rs, ow->acquire, 1, acq);
    FILE *dat = report_dat_open(dir, "latency", what, why, cap);
    if (dat == NULL) {
        sim_xfree(acq);
        return -1;
    }
    size_t counts[4] = {0}, qlines;
    int64_t lo = INT64_MAX, hi = 0;
    for (int o = 0; o < 4; o++) { /* unfinished: a lower bound, up to the end */
        fprintf(dat, "# %s: start_s latency_ms\n", outcome[o]);
        for (size_t i = 0; i < n; i++) {
            if ((int)acq[i]->outcome != o) continue;
            int64_t l = acq[i]->to_us - acq[i]->from_us;
            fprintf(dat, "%.6f %.3f\n", secs(acq[i]->from_us), (double)l / 1e3);
            counts[o]++;
            if (l < lo) lo = l;
            if (l > hi) hi = l;
        }
        if (counts[o]) fputs("\n\n", dat);
    }
    int64_t width = bucket_us(r->virtual_us > 0 ? r->virtual_us : 1, 40);
    fprintf(dat, "# quantiles per %.3fs bucket (finished ones): mid_s p50_ms p95_ms p99_ms max_ms\n", secs(width));
    size_t fin = waits(rs, ow->acquire, 0, acq);
    qlines = dat_quantiles(dat, acq, fin, width, r->virtual_us);
    sim_xfree(acq);
    if (report_dat_close(dat, dir, "latency", why, cap) != 0) return -1;
    FILE *gp = report_gp_open(dir, "latency", what, 1200, 480, why, cap);
    if (gp == NULL) return -1;
    gp_title(gp, r, ow->latency_title);
    fputs("set ylabel 'latency (ms)'\n", gp);
    if (n && lo > 0 && hi / lo >= 50) fputs("set logscale y\n", gp);
    gp_faults(gp, rs, r, NULL, 0);
    fputs("plot NaN notitle", gp);
    int index = 0;
    for (int o = 0; o < 4; o++)
        if (counts[o]) fprintf(gp, ", 'latency.dat' index %d using 1:2 with points %s title '%s'", index++, style[o],
                               outcome[o]);
    if (qlines) {
        static const char *const q[] = {"p50", "p95", "p99", "max"};
        static const char *const qs[] = {"lw 2 lc rgb '#000000'", "lw 1.5 dt 2 lc rgb '#444444'",
                                         "lw 1.5 dt 3 lc rgb '#444444'", "lw 1 lc rgb '#999999'"};
        for (int k = 0; k < 4; k++)
            fprintf(gp, ", 'latency.dat' index %d using 1:%d with linespoints pt 7 ps 0.3 %s title '%s'", index,
                    k + 2, qs[k], q[k]);
    }
    gp_fault_keys(gp, rs);
    fputc('\n', gp);
    if (report_gp_close(gp, dir, "latency", why, cap) != 0) return -1;
    report_plots_add(out, "latency", what);
    return 0;
}

static int plot_throughput(const char *dir, const run_result *r, const report_series *rs, const op_words *ow,
                           report_plots *out, char *why, size_t cap)
{
    const char *what = ow->rate_what;
    int64_t width = bucket_us(r->virtual_us > 0 ? r->virtual_us : 1, 60);
    size_t nb = (size_t)(r->virtual_us / width) + 1;
    uint64_t *cnt = sim_xcalloc(nb * 3, sizeof *cnt);
    for (size_t i = 0; i < rs->nspans; i++) {
        const report_span *sp = &rs->spans[i];
        if (sp->kind != REPORT_WAIT || sp->acquire != ow->acquire || sp->outcome == REPORT_UNFINISHED) continue;
        size_t b = (size_t)(sp->to_us / width);
        if (b < nb) cnt[b * 3 + (size_t)sp->outcome]++;
    }
    FILE *dat = report_dat_open(dir, "throughput", what, why, cap);
    if (dat == NULL) {
        sim_xfree(cnt);
        return -1;
    }
    fprintf(dat, "# per %.3fs bucket: start_s %s_per_s timed_out_per_s errors_per_s\n", secs(width), ow->outcome[0]);
    uint64_t other = 0;
    for (size_t b = 0; b < nb; b++) {
        double w = secs(width);
        fprintf(dat, "%.6f %.3f %.3f %.3f\n", secs((int64_t)b * width), (double)cnt[b * 3] / w,
                (double)cnt[b * 3 + 1] / w, (double)cnt[b * 3 + 2] / w);
        other += cnt[b * 3 + 1] + cnt[b * 3 + 2];
    }
    sim_xfree(cnt);
    if (report_dat_close(dat, dir, "throughput", why, cap) != 0) return -1;
    FILE *gp = report_gp_open(dir, "throughput", what, 1200, 360, why, cap);
    if (gp == NULL) return -1;
    gp_title(gp, r, "throughput");
    fputs("set ylabel 'per second'\nset yrange [0:*]\n", gp);
    gp_faults(gp, rs, r, NULL, 0);
    fprintf(gp, "plot 'throughput.dat' using 1:2 with steps lw 2 lc rgb '#1f77b4' title '%s'", ow->rate_ok);
    if (other)
        fputs(", '' using 1:3 with steps lw 1.5 lc rgb '#ff7f0e' title 'timed out/s', "
              "'' using 1:4 with steps lw 1.5 lc rgb '#d62728' title 'errors/s'", gp);
    gp_fault_keys(gp, rs);
    fputc('\n', gp);
    if (report_gp_close(gp, dir, "throughput", why, cap) != 0) return -1;
    report_plots_add(out, "throughput", what);
    return 0;
}

/* Every finished acquire for CDFs across runs: start_s latency_ms outcome. */
static int write_samples(const char *dir, const report_series *rs, char *why, size_t cap)
{
    FILE *dat = report_dat_open(dir, "samples", "every finished acquire: start_s latency_ms outcome "
                                "(0 acquired, 1 timed out, 2 error)", why, cap);
    if (dat == NULL) return -1;
    for (size_t i = 0; i < rs->nspans; i++) {
        const report_span *sp = &rs->spans[i];
        if (sp->kind == REPORT_WAIT && sp->acquire && sp->outcome != REPORT_UNFINISHED)
            fprintf(dat, "%.6f %.3f %d\n", secs(sp->from_us), (double)(sp->to_us - sp->from_us) / 1e3,
                    (int)sp->outcome);
    }
    return report_dat_close(dat, dir, "samples", why, cap);
}

int report_plot_holders(const char *dir, const run_result *r, const history *h, const report_series *rs, int width,
                        report_plots *out, char *why, size_t cap)
{
    for (int lock = 0; lock < r->s->nlocks; lock++)
        if (plot_holders(dir, r, h, rs, lock, width, out, why, cap) != 0) return -1;
    return 0;
}

int report_plot_run(const char *dir, const run_result *r, const history *h, const report_series *rs,
                    report_plots *out, char *why, size_t cap)
{
    if (report_plot_holders(dir, r, h, rs, 1200, out, why, cap) != 0) return -1;
    const report_span **w = sim_xcalloc(rs->nspans + 1, sizeof *w);
    const op_words *ow = waits(rs, 1, 1, w) > 0 ? &acquire_words : waits(rs, 0, 1, w) > 0 ? &await_words : NULL;
    sim_xfree(w);
    if (ow && (plot_latency(dir, r, rs, ow, out, why, cap) != 0 || plot_throughput(dir, r, rs, ow, out, why, cap) != 0))
        return -1; /* neither acquires nor awaits: nothing to draw */
    return write_samples(dir, rs, why, cap);
}
