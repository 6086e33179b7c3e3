/* hunt_page.c — the page of `locksim hunt --report DIR` (report.h): a
 * section per signature, those within the lock's contract first, each with
 * its shrunk scenario run once and drawn as a run's holders timeline, the
 * reference protocol's run of the same file beside it. Signature k's
 * pictures and scenario copy are in sig-NN/ (NN = k), the reference's in
 * sig-NN-ref/; all is written under DIR.tmp-PID until complete. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reports/report.h"
#include "sim/engine/run.h"
#include "sim/engine/shrink.h"

#define RENDER_TIMEOUT_S 120
#define WIDTH_ONE 1200  /* a timeline alone */
#define WIDTH_PAIR 640  /* each timeline of a witness pair (half the page: not scaled down), and a folded one */

/* One scenario file run once and drawn in its folder of the report. */
typedef struct drawn {
    scenario s;
    run_result r;
    history h;
    report_series rs;
    report_plots plots;
    int ran;           /* s, r, h and rs hold a run */
    char reldir[32];   /* "sig-01", "sig-01-ref" */
    char copy[300];    /* the scenario's copy, relative to the page */
} drawn;

static void drawn_free(drawn *d)
{
    if (d->ran) {
        report_series_free(&d->rs);
        run_result_free(&d->r);
        hist_free(&d->h);
        scn_free(&d->s);
    }
    report_plots_free(&d->plots);
    memset(d, 0, sizeof *d);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Copies file from into to: 0, or -1 with why. */
static int copy_to(const char *from, const char *to, char *why, size_t cap)
{
    errno = 0;
    FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
    char buf[16384];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    int bad = in == NULL || out == NULL || ferror(in) || ferror(out);
    if (in) fclose(in);
    if (out && fclose(out) != 0) bad = 1;
    if (bad) snprintf(why, cap, "cannot copy %s to %s: %s", from, to, strerror(errno ? errno : EIO));
    return bad ? -1 : 0;
}

/* Loads path into d (its folder reldir made under tmp, the file copied
 * there) and runs it once with its own seed (else seed). 0, or -1 with why. */
static int run_file(const char *tmp, const char *reldir, const char *path, uint64_t seed, drawn *d, char *why,
                    size_t cap)
{
    char folder[4200], copy[4600];
    snprintf(d->reldir, sizeof d->reldir, "%s", reldir);
    snprintf(d->copy, sizeof d->copy, "%s/%.200s", reldir, base_name(path));
    snprintf(folder, sizeof folder, "%s/%s", tmp, reldir);
    snprintf(copy, sizeof copy, "%s/%s", tmp, d->copy);
    if (report_mkdirs(folder) != 0) {
        snprintf(why, cap, "cannot create %s: %s", folder, strerror(errno));
        return -1;
    }
    if (copy_to(path, copy, why, cap) != 0) return -1;
    scn_error e;
    if (run_load(path, NULL, 0, &d->s, &e) != 0) {
        snprintf(why, cap, "%s:%d: %s", e.path[0] ? e.path : path, e.line, e.msg);
        return -1;
    }
    run_opts o = {0};
    hist_init(&d->h);
    if (run_scenario(&d->s, d->s.has_seed ? d->s.seed : seed, &o, &d->r, &d->h, &e) != 0) {
        snprintf(why, cap, "%s: cannot run: %s", path, e.msg);
        hist_free(&d->h);
        scn_free(&d->s);
        return -1;
    }
    report_series_build(&d->rs, &d->h, d->r.s, d->r.generated, d->r.ngenerated, d->r.virtual_us);
    d->ran = 1;
    return 0;
}

/* Draws d's holders timelines width pixels wide and renders them when
 * gnuplot is installed. 0, or -1 with why. */
static int draw(const char *tmp, drawn *d, int width, int gnuplot, char *why, size_t cap)
{
    char folder[4200];
    snprintf(folder, sizeof folder, "%s/%s", tmp, d->reldir);
    if (report_plot_holders(folder, &d->r, &d->h, &d->rs, width, &d->plots, why, cap) != 0) return -1;
    if (gnuplot && report_gnuplot_render(folder, &d->plots, RENDER_TIMEOUT_S, why, cap) < 0) return -1;
    return 0;
}

/* ------------------------------------------------------------ the page */

/* "1 client, 2 faults, 0 steps, 20s, seed 9" of a scenario run. */
static void size_words(const drawn *d, char *buf, size_t cap)
{
    char dur[32];
    int clients = shrink_clients_of(&d->s);
    size_t faults = shrink_fault_lines(&d->s), steps = shrink_step_lines(&d->s);
    scn_duration_format(d->s.duration_us, dur, sizeof dur);
    snprintf(buf, cap, "%d client%s, %zu fault%s, %zu step%s, %s, seed %" PRIu64, clients, clients == 1 ? "" : "s",
             faults, faults == 1 ? "" : "s", steps, steps == 1 ? "" : "s", dur, d->r.seed);
}

static void replay_line(FILE *out, const char *path, const drawn *d)
{
    char cmd[1500];
    report_replay_cmd(path, d->r.seed, NULL, d->r.checks.nv > 0, cmd, sizeof cmd);
    fputs("<p>Replay: <code>", out);
    report_xml_text(out, cmd);
    fputs("</code></p>\n", out);
}

/* One side of a signature (the scenario file path run): its verdicts, its
 * first violation, its timelines (folded: under a summary line), its
 * replay command. */
static void side(FILE *out, const char *path, const drawn *d, int fold, int rendered)
{
    report_html_chips(out, d->r.checks.verdict, NULL);
    if (d->r.checks.nv) {
        const check_violation *v = &d->r.checks.v[0];
        fprintf(out, "<p>First violation: <b>%s</b> at %.3fs: ", scn_invariant_name(v->inv), (double)v->t_us / 1e6);
        report_xml_text(out, v->detail);
        fprintf(out, "%s</p>\n", d->r.checks.nv > 1 ? " (and more)" : "");
    } else {
        fputs("<p>No invariant broken.</p>\n", out);
    }
    if (fold && d->plots.n)
        fprintf(out, "<details><summary>Holders timeline%s</summary>\n", d->plots.n == 1 ? "" : "s");
    for (size_t i = 0; i < d->plots.n; i++) report_html_figure(out, d->reldir, &d->plots.v[i], rendered);
    if (fold && d->plots.n) fputs("</details>\n", out);
    replay_line(out, path, d);
}

/* Signature k's section: d its shrunk run, ref the reference's (or NULL). */
static void sig_section(FILE *out, const report_hunt_sig *g, size_t k, const drawn *d, const drawn *ref,
                        int rendered)
{
    fprintf(out, "<section class=\"run\" id=\"sig-%zu\">\n<h2>%zu. ", k, k);
    report_xml_text(out, g->signature);
    fprintf(out, "</h2>\n<p class=\"meta\">%" PRIu64 " seed%s, the first %" PRIu64 " &middot; %s</p>\n", g->seeds,
            g->seeds == 1 ? "" : "s", g->first_seed, g->beyond ? "beyond the lock's contract" : "within the lock's contract");
    if (g->beyond) {
        fputs("<p class=\"reason\"><b>Beyond the contract:</b> ", out);
        report_xml_text(out, g->reason ? g->reason : "no reason given");
        fputs("</p>\n", out);
    }
    if (d == NULL) {
        fputs("<p class=\"note\">Not shrunk (raise <code>--max-shrinks</code>): no scenario to draw.</p>\n</section>\n",
              out);
        return;
    }
    char size[160];
    size_words(d, size, sizeof size);
    fprintf(out, "<p>Shrunk scenario: <a href=\"%s\">", d->copy);
    report_xml_text(out, base_name(g->shrunk));
    fputs("</a> &middot; ", out);
    report_xml_text(out, size);
    fputs("</p>\n", out);
    report_html_faults(out, &d->rs);
    if (ref) {
        fputs("<div class=\"pair\">\n<div><h4>", out);
        report_xml_text(out, d->s.protocol);
        fprintf(out, ": %s</h4>\n", d->r.checks.nv ? "violates" : "holds");
        side(out, g->shrunk, d, g->beyond, rendered);
        fputs("</div>\n<div><h4>", out);
        report_xml_text(out, ref->s.protocol);
        fprintf(out, " (reference, <a href=\"%s\">the same scenario</a>): %s</h4>\n", ref->copy,
                ref->r.checks.nv ? (d->r.checks.nv ? "violates too" : "violates") : "holds");
        side(out, g->reference, ref, g->beyond, rendered);
        fputs("</div>\n</div>\n", out);
    } else {
        side(out, g->shrunk, d, g->beyond, rendered);
    }
    fputs("</section>\n", out);
}

/* What the summary table says of one signature, gathered while its
 * section is written (its runs are freed before the page is). */
typedef struct sig_row {
    const report_hunt_sig *g;
    char size[160];   /* "" when not shrunk */
    int violated;     /* the shrunk run broke an invariant */
    int ref;          /* 1: a reference run, 2: it broke one too */
    char *section;    /* its HTML (malloc'ed by open_memstream) */
    size_t len;
} sig_row;

static void table(FILE *out, const report_hunt *h, const sig_row *rows, size_t n)
{
    fprintf(out, "<table class=\"summary\">\n<tr><th>#</th><th>signature</th><th>contract</th><th>seeds</th>"
                 "<th>first seed</th><th>shrunk scenario</th><th>%s</th>%s</tr>\n",
            h->target, h->against ? "<th>reference</th>" : "");
    for (size_t k = 0; k < n; k++) {
        const sig_row *w = &rows[k];
        fprintf(out, "<tr><td class=\"n\">%zu</td><td><a href=\"#sig-%zu\">", k + 1, k + 1);
        report_xml_text(out, w->g->signature);
        fprintf(out, "</a></td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td><td>",
                w->g->beyond ? "beyond" : "within", w->g->seeds, w->g->first_seed);
        report_xml_text(out, w->size[0] ? w->size : "not shrunk");
        fputs("</td><td>", out);
        if (w->size[0]) fprintf(out, "<span class=\"chip %s\">%s</span>", w->violated ? "violated" : "held",
                                w->violated ? "violates" : "holds");
        fputs("</td>", out);
        if (h->against)
            fprintf(out, "<td>%s</td>", w->ref == 0 ? "&ndash;" : w->ref == 2 ? "<span class=\"chip violated\">violates</span>"
                                                                          : "<span class=\"chip held\">holds</span>");
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void page(FILE *out, const report_hunt *h, const sig_row *rows, size_t n, size_t within)
{
    char title[300], sub[1024], when[64], against[300] = "";
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    if (h->against) snprintf(against, sizeof against, " against %s", h->against);
    snprintf(title, sizeof title, "locksim hunt %s%s", h->target, against);
    snprintf(sub, sizeof sub, "seeds %" PRIu64 "..%" PRIu64 " · %" PRIu64 " runs, %" PRIu64 " failed (%.1f%%) · %zu "
             "signature%s: %zu within the lock's contract, %zu beyond it · generated %s", h->seed_a, h->seed_b, h->runs,
             h->failed, h->runs ? 100.0 * (double)h->failed / (double)h->runs : 0.0, n, n == 1 ? "" : "s", within,
             n - within, when);
    report_html_begin(out, title, sub);
    fputs("<h2>Signatures</h2>\n", out);
    if (n) table(out, h, rows, n);
    else fputs("<p>No signature: no seed failed, or none was shrunk.</p>\n", out);
    fprintf(out, "<section id=\"within\">\n<h2>Within the lock's contract (%zu)</h2>\n<p class=\"meta\">Failures "
                 "the lock promises to prevent: each is a bug of %s.%s</p>\n", within, h->target,
            h->against ? " Beside each, the reference protocol on the same scenario file: the witness pair." : "");
    for (size_t k = 0; k < within; k++) fwrite(rows[k].section, 1, rows[k].len, out);
    fprintf(out, "</section>\n<section id=\"beyond\">\n<h2>Beyond the lock's contract (%zu)</h2>\n<p class=\"meta\">"
                 "Failures under faults no lock of this kind survives (each says why); their timelines are "
                 "folded.</p>\n", n - within);
    for (size_t k = within; k < n; k++) fwrite(rows[k].section, 1, rows[k].len, out);
    fputs("</section>\n", out);
    report_html_end(out);
}

/* Runs and draws signature g (number k) and writes its section into w.
 * 0, or -1 with why. */
static int one_sig(const char *tmp, const report_hunt_sig *g, size_t k, int gnuplot, sig_row *w, char *why,
                   size_t cap)
{
    drawn d = {0}, ref = {0};
    char reldir[32];
    int rc = 0;
    w->g = g;
    if (g->shrunk) {
        snprintf(reldir, sizeof reldir, "sig-%02zu", k);
        rc = run_file(tmp, reldir, g->shrunk, g->first_seed, &d, why, cap);
        if (rc == 0 && g->reference) {
            snprintf(reldir, sizeof reldir, "sig-%02zu-ref", k);
            rc = run_file(tmp, reldir, g->reference, g->first_seed, &ref, why, cap);
        }
        if (rc == 0 && ref.ran) { /* one time axis for the pair */
            int64_t end = d.rs.end_us > ref.rs.end_us ? d.rs.end_us : ref.rs.end_us;
            d.rs.end_us = ref.rs.end_us = end;
        }
        int width = ref.ran || g->beyond ? WIDTH_PAIR : WIDTH_ONE;
        if (rc == 0) rc = draw(tmp, &d, width, gnuplot, why, cap);
        if (rc == 0 && ref.ran) rc = draw(tmp, &ref, width, gnuplot, why, cap);
    }
    if (rc == 0) {
        FILE *m = open_memstream(&w->section, &w->len);
        sig_section(m, g, k, g->shrunk ? &d : NULL, ref.ran ? &ref : NULL, gnuplot);
        fclose(m);
        if (d.ran) size_words(&d, w->size, sizeof w->size);
        w->violated = d.ran && d.r.checks.nv > 0;
        w->ref = ref.ran ? 1 + (ref.r.checks.nv > 0) : 0;
    }
    drawn_free(&d);
    drawn_free(&ref);
    return rc;
}

int report_hunt_write(const char *dir, const report_hunt *h, char *err, size_t cap)
{
    report_outdir o;
    if (report_outdir_open(&o, dir, err, cap) != 0) return -1;
    size_t n = h->nsigs, within = 0, k = 0;
    sig_row *rows = sim_xcalloc(n + 1, sizeof *rows);
    for (size_t i = 0; i < n; i++) within += !h->sigs[i].beyond;
    int gnuplot = report_gnuplot_found(), rc = 0;
    for (int beyond = 0; beyond < 2 && rc == 0; beyond++) /* within the contract first, each in the hunt's order */
        for (size_t i = 0; i < n && rc == 0; i++)
            if (!h->sigs[i].beyond == !beyond) rc = one_sig(o.tmp, &h->sigs[i], k + 1, gnuplot, &rows[k], err, cap), k++;
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", o.tmp);
    FILE *out = rc == 0 ? fopen(path, "w") : NULL;
    if (out) page(out, h, rows, n, within);
    if (rc == 0 && (out == NULL || ferror(out) | (fclose(out) != 0) || report_render_sh(o.tmp, "sig-*/*.gp") != 0)) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    for (size_t i = 0; i < n; i++) free(rows[i].section);
    sim_xfree(rows);
    if (rc != 0) {
        report_outdir_abort(&o);
        return -1;
    }
    return report_outdir_close(&o, err, cap);
}
