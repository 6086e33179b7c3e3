/* result.c — a run's result in words: the JSON line of the DESIGN
 * contract, and the human summary. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "sim/engine/hint.h"
#include "sim/kernel/ut.h"

void report_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static double ms(int64_t us)
{
    return (double)us / 1000.0;
}

void report_json(FILE *out, const run_result *r, const history *h)
{
    const scenario *s = r->s;
    fputs("{\"scenario\":", out);
    report_json_str(out, s->path);
    fputs(",\"name\":", out);
    report_json_str(out, s->name);
    fprintf(out, ",\"seed\":%" PRIu64 ",\"backend\":", r->seed);
    report_json_str(out, r->backend);
    char proto[512];
    fputs(",\"protocol\":", out); /* a patched one as NAME+scripts(DIR), and its folder */
    report_json_str(out, scn_protocol_label(s, proto, sizeof proto));
    if (s->scripts) {
        fputs(",\"scripts\":", out);
        report_json_str(out, s->scripts);
    }
    fprintf(out,
            ",\"virtual_ms\":%.3f,\"wall_ms\":%.3f,\"peak_rss_kb\":%ld,\"events\":%" PRIu64 ",\"evals\":%" PRIu64
            ",\"commands\":%" PRIu64 ",\"acquisitions\":%" PRIu64 ",\"acquire_failures\":%" PRIu64
            ",\"errors\":%" PRIu64 ",\"trace_hash\":\"%016" PRIx64 "\",\"trace_reproducible\":%s",
            ms(r->virtual_us), r->wall_ms, r->peak_rss_kb, r->events, r->evals, r->commands, r->acquisitions,
            r->acquire_failures, r->op_errors, r->trace_hash,
            r->trace_reproducible ? "true" : "false");
    fputs(",\"invariants\":{", out);
    int first = 1;
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        if (r->checks.verdict[i] == CHECK_UNKNOWN) continue; /* not judged (fencing: no resource) */
        fprintf(out, "%s\"%s\":\"%s\"", first ? "" : ",", scn_invariant_name((scn_invariant)i),
                check_verdict_name(r->checks.verdict[i]));
        first = 0;
    }
    fputs("},\"violations\":[", out);
    for (size_t i = 0; i < r->checks.nv; i++) {
        const check_violation *v = &r->checks.v[i];
        fprintf(out, "%s{\"invariant\":\"%s\",\"at_ms\":%.3f,\"detail\":", i ? "," : "",
                scn_invariant_name(v->inv), ms(v->t_us));
        report_json_str(out, v->detail);
        char hint[512];
        if (run_hint(r, v, hint, sizeof hint)) {
            fputs(",\"hint\":", out);
            report_json_str(out, hint);
        }
        /* The last events that led there, oldest first. */
        fputs(",\"events\":[", out);
        size_t idx[8], m = 0;
        for (size_t k = v->upto + 1; h && k-- > 0 && m < 8;)
            if (k < h->n && h->ev[k].op != HOP_STORE_COUNT) idx[m++] = k;
        for (size_t j = m; j-- > 0;) {
            char line[256];
            hist_format(h, &h->ev[idx[j]], s, line, sizeof line);
            if (j + 1 != m) fputc(',', out);
            report_json_str(out, line);
        }
        fputs("]}", out);
    }
    fputs("],", out);
    if (r->swarm) {
        fputs("\"swarm\":", out);
        report_json_str(out, r->swarm_desc);
        fputc(',', out);
    }
    fputs("\"faults\":[", out);
    for (size_t i = 0; i < r->ngenerated; i++) {
        char line[256];
        scn_step_format(&r->generated[i], s, line, sizeof line);
        if (i) fputc(',', out);
        report_json_str(out, line);
    }
    fputs("],\"expected\":{", out);
    first = 1;
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        scn_expect want = s->expect[i];
        if (want == SCN_EXPECT_NONE) continue;
        fprintf(out, "%s\"%s\":\"%s\"", first ? "" : ",", scn_invariant_name((scn_invariant)i),
                want == SCN_EXPECT_HELD ? "held" : want == SCN_EXPECT_VIOLATED ? "violated" : "any");
        first = 0;
    }
    fprintf(out, "},\"expectations_met\":%s", r->expectations_met ? "true" : "false");
    if (!r->expectations_met) {
        fputs(",\"expectation_failure\":", out);
        report_json_str(out, r->expectation_failure);
    }
    if (r->halted) {
        fputs(",\"halted\":", out);
        report_json_str(out, r->halt_why);
    }
    fprintf(out, ",\"duration_ms\":%.3f,\"fairness_jain\":%.4f", ms(s->duration_us), r->fairness_jain);
    fprintf(out, ",\"latency_ms\":{\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"max\":%.3f}}\n",
            ms(r->latency_p50_us), ms(r->latency_p95_us), ms(r->latency_p99_us), ms(r->latency_max_us));
}

static void fmt_dur(int64_t us, char *buf, size_t cap)
{
    if (us >= 1000000) snprintf(buf, cap, "%.2fs", (double)us / 1e6);
    else if (us >= 1000) snprintf(buf, cap, "%.1fms", (double)us / 1e3);
    else snprintf(buf, cap, "%lldus", (long long)us);
}

void report_summary(FILE *out, const run_result *r, const history *h, int verbose)
{
    const scenario *s = r->s;
    char proto[512];
    fprintf(out, "%s  seed %" PRIu64 "  %s  [%s]\n", s->path, r->seed, scn_protocol_label(s, proto, sizeof proto),
            r->halted ? "STOPPED" : r->expectations_met ? "PASS" : "FAIL");
    if (r->halted) fprintf(out, "  stopped: %s\n", r->halt_why);
    else if (!r->expectations_met) fprintf(out, "  expectation not met: %s\n", r->expectation_failure);
    for (int i = 0; i < SCN_INV_COUNT; i++) {
        scn_expect want = s->expect[i];
        if (r->checks.verdict[i] == CHECK_UNKNOWN && want == SCN_EXPECT_NONE) continue;
        fprintf(out, "  %-17s %-8s", scn_invariant_name((scn_invariant)i),
                check_verdict_name(r->checks.verdict[i]));
        if (want == SCN_EXPECT_HELD || want == SCN_EXPECT_VIOLATED)
            fprintf(out, " (expected %s)", want == SCN_EXPECT_HELD ? "held" : "violated");
        fputc('\n', out);
    }
    size_t shown = 0;
    for (size_t i = 0; i < r->checks.nv && shown < (verbose ? 8u : 1u); i++, shown++) {
        const check_violation *v = &r->checks.v[i];
        fprintf(out, "  ! %s at %.3fs: %s\n", scn_invariant_name(v->inv), (double)v->t_us / 1e6, v->detail);
        if (!verbose) continue;
        char hint[512];
        if (run_hint(r, v, hint, sizeof hint)) fprintf(out, "    hint: %s\n", hint);
        /* The last events that led there (store counts are bookkeeping). */
        size_t idx[8], m = 0;
        for (size_t k = v->upto + 1; k-- > 0 && m < 8;)
            if (k < h->n && h->ev[k].op != HOP_STORE_COUNT) idx[m++] = k;
        while (m-- > 0) {
            char line[256];
            hist_format(h, &h->ev[idx[m]], s, line, sizeof line);
            fprintf(out, "      %s\n", line);
        }
    }
    if (r->checks.nv > shown) fprintf(out, "  (%zu more violations)\n", r->checks.nv - shown);
    if (r->swarm) fprintf(out, "  swarm: %s\n", r->swarm_desc);
    if (r->ngenerated) {
        fprintf(out, "  nemesis: %zu faults\n", r->ngenerated);
        for (size_t i = 0; verbose && i < r->ngenerated; i++) {
            char line[256];
            scn_step_format(&r->generated[i], s, line, sizeof line);
            fprintf(out, "      %s\n", line);
        }
    }
    char p50[32], p99[32], mx[32];
    fmt_dur(r->latency_p50_us, p50, sizeof p50);
    fmt_dur(r->latency_p99_us, p99, sizeof p99);
    fmt_dur(r->latency_max_us, mx, sizeof mx);
    fprintf(out, "  acquisitions %" PRIu64 " (%" PRIu64 " not acquired, %" PRIu64
                 " errors)  acquire latency p50 %s p99 %s max %s\n",
            r->acquisitions, r->acquire_failures, r->op_errors, p50, p99, mx);
    fprintf(out, "  events %" PRIu64 "  evals %" PRIu64 "  commands %" PRIu64
                 "  virtual %.1fs  wall %.0fms  trace %016" PRIx64 "%s\n",
            r->events, r->evals, r->commands, (double)r->virtual_us / 1e6, r->wall_ms, r->trace_hash,
            r->trace_reproducible ? "" : " (not reproducible on this backend)");
}
