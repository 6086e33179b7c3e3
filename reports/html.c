/* html.c — the HTML report: one page, inline style, no script and no
 * network; a summary table of runs, and per run its pictures and its
 * violations explained in words with the events around them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"
#include "sim/engine/hint.h"

#define AROUND_BEFORE_US SIM_SEC(2)
#define AROUND_AFTER_US SIM_MS(500)
#define AROUND_MAX_BEFORE 40
#define AROUND_MAX_AFTER 12

void report_xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? '?' : c, out); break;
        }
    }
}

/* Writes the text formatted by fmt, escaped. */
static void textf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void textf(FILE *out, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    report_xml_text(out, buf);
}

char *report_replay_cmd(const char *file, uint64_t seed, const char *extra, int violated, char *buf, size_t cap)
{
    int plain = 1;
    for (const char *p = file; *p; p++)
        plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                 strchr("_./@%+=:,-", *p) != NULL;
    char quoted[1200];
    if (plain) {
        snprintf(quoted, sizeof quoted, "%s", file);
    } else { /* 'single quoted', each ' as '\'' */
        size_t n = 0;
        quoted[n++] = '\'';
        for (const char *p = file; *p && n + 6 < sizeof quoted; p++) {
            if (*p == '\'') n += (size_t)snprintf(quoted + n, sizeof quoted - n, "'\\''");
            else quoted[n++] = *p;
        }
        quoted[n++] = '\'';
        quoted[n] = '\0';
    }
    snprintf(buf, cap, "locksim replay %s --seed %" PRIu64 "%s%s", quoted, seed, extra ? extra : "",
             violated ? " --around violation" : "");
    return buf;
}

static void stamp(int64_t us, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%03llds", (long long)(us / 1000000), (long long)(us / 1000 % 1000));
}

/* ------------------------------------------------------------ the page */

void report_html_begin(FILE *out, const char *title, const char *subtitle)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    report_xml_text(out, title);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,'DejaVu Sans',sans-serif;margin:0;color:#1d1d1f;background:#fafafa}\n"
          "header{background:#20232a;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}\n"
          "header p{margin:4px 0 0;color:#cfd3da}main{padding:8px 24px 48px;max-width:1320px}\n"
          "h2{margin:26px 0 8px;font-size:18px}h3{margin:4px 0;font-size:15px}\n"
          "table{border-collapse:collapse;background:#fff}td,th{padding:3px 8px;border-bottom:1px solid #e3e3e3;"
          "text-align:left;vertical-align:top}th{background:#f0f0f0}td.n{text-align:right;white-space:nowrap}\n"
          ".res{font-weight:bold;padding:0 6px;border-radius:3px;color:#fff}.PASS{background:#2e7d32}"
          ".FAIL{background:#c62828}\n"
          ".chip{display:inline-block;padding:0 6px;margin:1px 2px;border-radius:3px;font-size:12px;"
          "white-space:nowrap}.held{background:#e8f5e9;color:#1b5e20}.violated{background:#ffebee;color:#b71c1c}"
          ".unknown{background:#eee;color:#555}.unmet{outline:2px solid #b71c1c}\n"
          ".violation{border-left:4px solid #e41a1c;background:#fff;padding:8px 14px;margin:12px 0}\n"
          ".run{border-top:2px solid #d0d0d0;margin-top:30px}.meta{color:#555;font-size:13px}\n"
          ".about{white-space:pre-wrap;color:#333;background:#fff;border:1px solid #eee;padding:6px 10px;"
          "font-size:13px}\n"
          "figure{margin:12px 0}figure img{max-width:100%;border:1px solid #ddd;background:#fff}"
          "figcaption{font-size:12px;color:#555}\n"
          "pre{background:#f4f4f4;padding:8px;overflow:auto;font-size:12px;line-height:1.35}"
          "pre .f{color:#8a4b00;font-weight:bold}pre .v{color:#c62828;font-weight:bold}\n"
          "code{background:#f0f0f0;padding:1px 4px;font-size:13px}.note{color:#8a4b00}\n"
          ".pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:14px}"
          ".pair figure{margin:6px 0}.pair h4{margin:6px 0 0;font-size:14px}\n"
          ".reason{border-left:4px solid #8a4b00;background:#fff8e1;padding:6px 12px}"
          "details>summary{cursor:pointer;color:#1f5f9f}\n"
          "</style>\n</head>\n<body>\n<header><h1>",
          out);
    report_xml_text(out, title);
    fputs("</h1><p>", out);
    report_xml_text(out, subtitle);
    fputs("</p></header>\n<main>\n", out);
}

void report_html_end(FILE *out)
{
    fputs("</main>\n</body>\n</html>\n", out);
}

void report_html_chips(FILE *out, const check_verdict *verdict, const scn_expect *expect)
{
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        scn_expect want = expect ? expect[i] : SCN_EXPECT_NONE;
        if (verdict[i] == CHECK_UNKNOWN && want == SCN_EXPECT_NONE) continue;
        int judged = want == SCN_EXPECT_HELD || want == SCN_EXPECT_VIOLATED;
        int met = !judged || (want == SCN_EXPECT_HELD) == (verdict[i] == CHECK_HELD);
        fprintf(out, "<span class=\"chip %s%s\" title=\"%s%s\">%s %s%s</span>", check_verdict_name(verdict[i]),
                met ? "" : " unmet", judged ? "expected " : "not judged",
                judged ? (want == SCN_EXPECT_HELD ? "held" : "violated") : "",
                scn_invariant_name((scn_invariant)i), check_verdict_name(verdict[i]),
                !judged ? "" : met ? " &#10003;" : (want == SCN_EXPECT_HELD ? " (expected held)" : " (expected violated)"));
    }
}

void report_html_table(FILE *out, const report_row *rows, size_t n, char *const *anchors)
{
    fputs("<table class=\"summary\">\n<tr><th>#</th><th>scenario</th><th>seed</th><th>protocol</th>"
          "<th>invariants (&#10003; = as expected)</th><th>result</th><th>acquired</th><th>latency p50 / p99</th>"
          "</tr>\n", out);
    for (size_t i = 0; i < n; i++) {
        const report_row *r = &rows[i];
        fprintf(out, "<tr><td class=\"n\">%zu</td><td>", i + 1);
        if (anchors && anchors[i]) fprintf(out, "<a href=\"#%s\">", anchors[i]);
        report_xml_text(out, r->name);
        if (anchors && anchors[i]) fputs("</a>", out);
        fputs("<br><span class=\"meta\">", out);
        report_xml_text(out, r->scenario);
        fprintf(out, "</span></td><td class=\"n\">%" PRIu64 "</td><td>", r->seed);
        report_xml_text(out, r->protocol);
        fputs("</td><td>", out);
        report_html_chips(out, r->verdict, r->expect);
        fprintf(out, "</td><td><span class=\"res %s\">%s</span>", r->met ? "PASS" : "FAIL", r->met ? "PASS" : "FAIL");
        if (!r->met) {
            fputs("<br><span class=\"meta\">", out);
            report_xml_text(out, r->failure);
            fputs("</span>", out);
        }
        fprintf(out, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", r->acquisitions);
        if (r->acquisitions || r->acquire_failures) fprintf(out, "%.1f / %.1f ms", r->p50_ms, r->p99_ms);
        else fputs("&ndash;", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

void report_html_figure(FILE *out, const char *reldir, const report_plot *p, int rendered)
{
    fprintf(out, "<figure><img src=\"%s/%s.png\" alt=\"", reldir, p->name);
    report_xml_text(out, p->title);
    fputs("\"><figcaption>", out);
    report_xml_text(out, p->title);
    fprintf(out, " &middot; <a href=\"%s/%s.svg\">SVG</a> &middot; <a href=\"%s/%s.gp\">gnuplot script</a>"
                 " &middot; <a href=\"%s/%s.dat\">data</a>",
            reldir, p->name, reldir, p->name, reldir, p->name);
    if (!rendered)
        fputs("<br><span class=\"note\">not rendered (gnuplot is not installed): run <code>sh render.sh</code> "
              "in the report folder, then reload</span>", out);
    fputs("</figcaption></figure>\n", out);
}

/* ------------------------------------------------------------ one run */

/* The comment lines that open the scenario file: what it shows. */
static void about(FILE *out, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char line[512];
    int open = 0;
    while (fgets(line, sizeof line, f) && (line[0] == '#' || line[0] == ';')) {
        if (!open) fputs("<p class=\"about\">", out);
        open = 1;
        const char *t = line + 1;
        if (*t == ' ') t++;
        report_xml_text(out, t);
    }
    if (open) fputs("</p>\n", out);
    fclose(f);
}

void report_html_faults(FILE *out, const report_series *rs)
{
    if (rs->nfaults == 0) return;
    fputs("<p>Faults:</p>\n<ul>\n", out);
    for (size_t i = 0; i < rs->nfaults; i++) {
        const report_fault *f = &rs->faults[i];
        char a[32], b[32];
        stamp(f->from_us, a, sizeof a);
        stamp(f->to_us, b, sizeof b);
        fputs("<li>", out);
        if (f->to_us > f->from_us) textf(out, "%s to %s: %s", a, b, f->label);
        else textf(out, "%s: %s", a, f->label);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

static const char *outcome_word(report_outcome o)
{
    return o == REPORT_ACQUIRED ? "acquired" : o == REPORT_TIMED_OUT ? "timed out" : o == REPORT_ERROR ? "failed"
                                                                                                       : "unfinished";
}

/* The spans of thread (c, t) on lock that cover t_us, in words; the
 * holds are collected for the overlap. */
static int thread_words(FILE *out, const report_series *rs, const char *lock, int lockno, int c, int t, int64_t t_us,
                        int64_t *from, int64_t *to)
{
    int holds = 0;
    for (size_t i = 0; i < rs->nspans; i++) {
        const report_span *sp = &rs->spans[i];
        if (sp->client != c || sp->thread != t || sp->lock != lockno || sp->from_us > t_us || sp->to_us < t_us ||
            sp->kind == REPORT_MARK || (sp->kind == REPORT_WAIT && sp->to_us == t_us))
            continue; /* a wait that ends right then says nothing */
        char a[32], b[32];
        stamp(sp->from_us, a, sizeof a);
        stamp(sp->to_us, b, sizeof b);
        if (sp->kind == REPORT_WAIT) {
            textf(out, "c%d.t%d waited for %s from %s to %s (%s). ", c, t, lock, a, b, outcome_word(sp->outcome));
            continue;
        }
        if (sp->kind == REPORT_HOLD_SHARED && sp->n > 0)
            textf(out, "c%d.t%d held %lld permit%s of %s from %s to %s. ", c, t, (long long)sp->n, sp->n == 1 ? "" : "s",
                  lock, a, b);
        else
            textf(out, "c%d.t%d held %s%s from %s to %s. ", c, t, lock,
                  sp->mode == SCN_RW_READ ? " (read)" : sp->mode == SCN_RW_WRITE ? " (write)" : "", a, b);
        if (holds == 0 || sp->from_us > *from) *from = sp->from_us;
        if (holds == 0 || sp->to_us < *to) *to = sp->to_us;
        holds++;
    }
    return holds;
}

/* The fault windows open at t_us, and the faults of the minute before. */
static void fault_words(FILE *out, const report_series *rs, int64_t t_us)
{
    int active = 0, before = 0;
    fputs("<p>", out);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < rs->nfaults; i++) {
            const report_fault *f = &rs->faults[i];
            int open = f->to_us > f->from_us && f->from_us <= t_us && t_us <= f->to_us;
            int recent = !open && f->from_us <= t_us && t_us - f->to_us <= SIM_SEC(60);
            if (pass == 0 ? !open : !recent) continue;
            char x[32], y[32];
            stamp(f->from_us, x, sizeof x);
            stamp(f->to_us, y, sizeof y);
            const char *lead = pass == 0 ? (active++ ? "; " : "Faults active at that moment: ")
                                         : (before++ ? "; " : active ? ". In the minute before: " : "In the minute before: ");
            if (f->to_us > f->from_us) textf(out, "%s%s (%s to %s)", lead, f->label, x, y);
            else textf(out, "%s%s (at %s)", lead, f->label, x);
        }
    }
    fputs(active || before ? ".</p>\n" : "No fault was active at that moment, nor in the minute before.</p>\n", out);
}

static void violation_words(FILE *out, const report_html_run_args *a, const check_violation *v)
{
    const scenario *s = a->r->s;
    int lockno = report_violation_lock(v, a->h);
    const char *lock = lockno < s->nlocks ? s->lock_names[lockno] : "?";
    int cs[8], ts[8];
    size_t m = report_violation_threads(v, cs, ts, 8);
    int64_t from = 0, to = 0;
    int holders = 0;
    fputs("<p>", out);
    for (size_t j = 0; j < m; j++) {
        int64_t f = 0, t = 0;
        if (thread_words(out, a->rs, lock, lockno, cs[j], ts[j], v->t_us, &f, &t) == 0) continue;
        if (holders == 0 || f > from) from = f;
        if (holders == 0 || t < to) to = t;
        holders++;
    }
    if (holders >= 2 && to > from) {
        char x[32], y[32];
        stamp(from, x, sizeof x);
        stamp(to, y, sizeof y);
        textf(out, "They held it together from %s to %s (%.3f s).", x, y, (double)(to - from) / 1e6);
    }
    fputs("</p>\n", out);
    fault_words(out, a->rs, v->t_us);
}

/* The history around the violation, the violation inserted at its time. */
static void around(FILE *out, const report_html_run_args *a, const check_violation *v)
{
    const history *h = a->h;
    size_t first = 0, last = 0, before = 0, after = 0;
    for (size_t k = 0; k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op == HOP_STORE_COUNT || e->t_us < v->t_us - AROUND_BEFORE_US) continue;
        if (e->t_us > v->t_us + AROUND_AFTER_US) break;
        if (e->t_us <= v->t_us) {
            if (before++ == 0) first = k;
        } else if (after < AROUND_MAX_AFTER) {
            after++;
            last = k;
        }
    }
    size_t skip = before > AROUND_MAX_BEFORE ? before - AROUND_MAX_BEFORE : 0;
    char t0[32], t1[32];
    stamp(v->t_us - AROUND_BEFORE_US > 0 ? v->t_us - AROUND_BEFORE_US : 0, t0, sizeof t0);
    stamp(v->t_us + AROUND_AFTER_US, t1, sizeof t1);
    fprintf(out, "<details open><summary>Events from %s to %s%s</summary>\n<pre>", t0, t1,
            skip ? " (the last ones before it)" : "");
    int shown = 0;
    for (size_t k = first; before && k < h->n; k++) {
        const hist_event *e = &h->ev[k];
        if (e->op == HOP_STORE_COUNT) continue;
        if (e->t_us > v->t_us && !shown) {
            fputs("<span class=\"v\">", out);
            textf(out, ">> %.6fs VIOLATION %s: %s", (double)v->t_us / 1e6, scn_invariant_name(v->inv), v->detail);
            fputs("</span>\n", out);
            shown = 1;
        }
        if (e->t_us > v->t_us && (after == 0 || k > last)) break;
        if (e->t_us <= v->t_us && skip) {
            skip--;
            continue;
        }
        char line[512];
        hist_format(h, e, a->r->s, line, sizeof line);
        if (e->op == HOP_FAULT) fputs("<span class=\"f\">", out);
        report_xml_text(out, line);
        fputs(e->op == HOP_FAULT ? "</span>\n" : "\n", out);
    }
    if (!shown) {
        fputs("<span class=\"v\">", out);
        textf(out, ">> %.6fs VIOLATION %s: %s", (double)v->t_us / 1e6, scn_invariant_name(v->inv), v->detail);
        fputs("</span>\n", out);
    }
    fputs("</pre></details>\n", out);
}

static void run_violations(FILE *out, const report_html_run_args *a)
{
    const run_result *r = a->r;
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        char at[32], replay[1500];
        snprintf(at, sizeof at, "%.6fs", (double)v->t_us / 1e6);
        fprintf(out, "<div class=\"violation\" id=\"%s-v%zu\">\n<h3>", a->anchor, i + 1);
        textf(out, "%s violated at %s", scn_invariant_name(v->inv), at);
        fprintf(out, " &mdash; <a href=\"#%s\">", a->anchor);
        report_xml_text(out, r->s->name);
        fprintf(out, "</a>, seed %" PRIu64 "</h3>\n<p><b>", r->seed);
        report_xml_text(out, v->detail);
        fputs(".</b></p>\n", out);
        violation_words(out, a, v);
        char hint[512];
        if (run_hint(r, v, hint, sizeof hint)) {
            fputs("<p class=\"hint\">In Redisson's terms: ", out);
            report_xml_text(out, hint);
            fputs(". <i>(A pointer from what locksim knows of Redisson, not something this run verified.)</i></p>\n",
                  out);
        }
        snprintf(replay, sizeof replay, "%.*s --around %s", (int)strcspn(a->replay, "\n"), a->replay, at);
        char *dup = strstr(replay, " --around violation --around"); /* one --around is enough */
        if (dup) memmove(dup, dup + strlen(" --around violation"), strlen(dup + strlen(" --around violation")) + 1);
        fputs("<p>Replay: <code>", out);
        report_xml_text(out, replay);
        fputs("</code></p>\n", out);
        around(out, a, v);
        fputs("</div>\n", out);
    }
}

void report_html_run(FILE *run_out, FILE *viol_out, const report_html_run_args *a)
{
    const run_result *r = a->r;
    const scenario *s = r->s;
    fprintf(run_out, "<section class=\"run\" id=\"%s\">\n<h2>", a->anchor);
    report_xml_text(run_out, s->name);
    fprintf(run_out, " <span class=\"res %s\">%s</span></h2>\n<p class=\"meta\">", r->expectations_met ? "PASS" : "FAIL",
            r->expectations_met ? "PASS" : "FAIL");
    char proto[512];
    textf(run_out, "%s · seed %" PRIu64 " · %s · backend %s · trace %016" PRIx64 "%s", s->path, r->seed,
          scn_protocol_label(s, proto, sizeof proto),
          r->backend, r->trace_hash, r->trace_reproducible ? "" : " (not reproducible on this backend)");
    fputs("</p>\n", run_out);
    about(run_out, s->path);
    if (!r->expectations_met) {
        fputs("<p><b>Expectation not met:</b> ", run_out);
        report_xml_text(run_out, r->expectation_failure);
        fputs("</p>\n", run_out);
    }
    fputs("<p>", run_out);
    report_html_chips(run_out, r->checks.verdict, s->expect);
    fputs("</p>\n<p>", run_out);
    textf(run_out, "%" PRIu64 " acquisitions (%" PRIu64 " not acquired, %" PRIu64 " errors); acquire latency p50 %.1f ms, "
          "p95 %.1f ms, p99 %.1f ms, max %.1f ms; fairness (Jain) %.3f; %" PRIu64 " events, %" PRIu64 " script evals; "
          "%.1f s of virtual time in %.0f ms.",
          r->acquisitions, r->acquire_failures, r->op_errors, (double)r->latency_p50_us / 1e3,
          (double)r->latency_p95_us / 1e3, (double)r->latency_p99_us / 1e3, (double)r->latency_max_us / 1e3,
          r->fairness_jain, r->events, r->evals, (double)r->virtual_us / 1e6, r->wall_ms);
    fputs("</p>\n", run_out);
    if (r->checks.nv)
        fprintf(run_out, "<p><a href=\"#%s-v1\">%zu violation%s explained below</a></p>\n", a->anchor, r->checks.nv,
                r->checks.nv == 1 ? "" : "s");
    report_html_faults(run_out, a->rs);
    for (size_t i = 0; i < a->plots->n; i++) report_html_figure(run_out, a->reldir, &a->plots->v[i], a->rendered);
    fputs("<p>Replay: <code>", run_out);
    report_xml_text(run_out, a->replay);
    fputs("</code></p>\n</section>\n", run_out);
    run_violations(viol_out, a);
}

void report_html_points(FILE *out, const char *key, const report_line *lines, size_t n)
{
    fputs("<table class=\"summary\">\n<tr><th>series</th><th>", out);
    report_xml_text(out, key);
    fputs("</th><th>acquisitions / s (min..max)</th><th>p50 ms</th><th>p99 ms</th><th>evals / acquisition</th>"
          "<th>Jain</th></tr>\n", out);
    for (size_t l = 0; l < n; l++)
        for (size_t i = 0; i < lines[l].n; i++) {
            const report_point *p = &lines[l].p[i];
            fputs("<tr><td>", out);
            report_xml_text(out, lines[l].label);
            fputs("</td><td class=\"n\">", out);
            report_xml_text(out, p->xlabel);
            fprintf(out, "</td><td class=\"n\">%.1f (%.1f..%.1f)</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td>"
                         "<td class=\"n\">%.2f</td><td class=\"n\">%.3f</td></tr>\n",
                    p->thr, p->thr_lo, p->thr_hi, p->p50_ms, p->p99_ms, p->evals_per_acq, p->jain);
        }
    fputs("</table>\n", out);
}
