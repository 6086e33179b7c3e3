/* ci.c — the CI formats, written from rows (so run, merge and shards
 * give the same): TAP version 13 and JUnit XML. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"

void report_tap_begin(FILE *out)
{
    fputs("TAP version 13\n", out);
}

void report_tap_plan(FILE *out, size_t n)
{
    fprintf(out, "1..%zu\n", n);
}

/* A TAP description: no newline, and '#' (a directive) escaped. */
static void tap_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '#') fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

static void yaml_field(FILE *out, const char *key, const char *value)
{
    fprintf(out, "  %s: ", key);
    report_json_str(out, value); /* a JSON string is a YAML double-quoted scalar */
    fputc('\n', out);
}

void report_tap_line(FILE *out, size_t num, const report_row *r, const char *extra)
{
    fprintf(out, "%sok %zu - ", r->met ? "" : "not ", num);
    tap_text(out, r->scenario);
    fprintf(out, " seed %" PRIu64 " (", r->seed);
    tap_text(out, r->protocol);
    fputs(")\n", out);
    if (r->met) return;
    char replay[1500];
    report_replay_cmd(r->scenario, r->seed, extra, r->nviolations > 0, replay, sizeof replay);
    fputs("  ---\n", out);
    yaml_field(out, "message", r->failure);
    if (r->first_violation[0]) yaml_field(out, "violation", r->first_violation);
    yaml_field(out, "replay", replay);
    yaml_field(out, "trace_hash", r->trace_hash);
    fputs("  ...\n", out);
}

/* The JUnit classname of a scenario path: "scenarios/a/b.scn" -> "scenarios.a.b". */
static void classname(FILE *out, const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    size_t len = strlen(buf);
    if (len > 4 && !strcmp(buf + len - 4, ".scn")) buf[len - 4] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '/') *p = '.';
    report_xml_text(out, buf[0] == '.' ? buf + 1 : buf);
}

static void testcase(FILE *out, const report_row *r, const char *extra)
{
    char replay[1500];
    report_replay_cmd(r->scenario, r->seed, extra, r->nviolations > 0, replay, sizeof replay);
    fputs("    <testcase classname=\"", out);
    classname(out, r->scenario);
    fprintf(out, "\" name=\"seed %" PRIu64 "\" time=\"%.3f\">\n", r->seed, r->wall_ms / 1000.0);
    if (!r->met) {
        fputs("      <failure type=\"expectation\" message=\"", out);
        report_xml_text(out, r->failure);
        fputs("\">", out);
        report_xml_text(out, r->failure);
        if (r->first_violation[0]) {
            fprintf(out, "\n%zu violation%s; the first: ", r->nviolations, r->nviolations == 1 ? "" : "s");
            report_xml_text(out, r->first_violation);
        }
        fputs("</failure>\n", out);
    }
    fputs("      <system-out>", out);
    report_xml_text(out, replay);
    fputs("</system-out>\n    </testcase>\n", out);
}

int report_junit(FILE *out, const report_row *rows, size_t n, const char *extra)
{
    size_t failures = 0;
    double secs = 0;
    for (size_t i = 0; i < n; i++) {
        failures += !rows[i].met;
        secs += rows[i].wall_ms / 1000.0;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"locksim\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n",
            n, failures, secs);
    for (size_t i = 0; i < n;) {
        size_t j = i, f = 0;
        double t = 0;
        for (; j < n && !strcmp(rows[j].scenario, rows[i].scenario); j++) {
            f += !rows[j].met;
            t += rows[j].wall_ms / 1000.0;
        }
        fputs("  <testsuite name=\"", out);
        report_xml_text(out, rows[i].scenario);
        fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n", j - i, f, t);
        fputs("    <properties><property name=\"protocol\" value=\"", out);
        report_xml_text(out, rows[i].protocol);
        fputs("\"/><property name=\"description\" value=\"", out);
        report_xml_text(out, rows[i].name);
        fputs("\"/></properties>\n", out);
        for (; i < j; i++) testcase(out, &rows[i], extra);
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
