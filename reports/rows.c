/* rows.c — a run read back from its JSON line (report_json) with jansson:
 * the fields every multi-run writer needs, checked, with defaults for the
 * ones older lines lack. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "reports/report.h"

static char *dup_str(json_t *root, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(root, key));
    return sim_xstrdup(v ? v : dflt);
}

static double num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static uint64_t count(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* The invariant named key, or -1. */
static int invariant_of(const char *key)
{
    for (int i = 0; i < SCN_INV_COUNT; i++)
        if (!strcmp(key, scn_invariant_name((scn_invariant)i))) return i;
    return -1;
}

static void read_verdicts(json_t *inv, json_t *exp, report_row *r)
{
    const char *key;
    json_t *v;
    for (int i = 0; i < SCN_INV_COUNT; i++) r->verdict[i] = CHECK_UNKNOWN;
    json_object_foreach(inv, key, v) {
        int i = invariant_of(key);
        const char *s = json_string_value(v);
        if (i < 0 || s == NULL) continue;
        r->verdict[i] = !strcmp(s, "held") ? CHECK_HELD : !strcmp(s, "violated") ? CHECK_VIOLATED : CHECK_UNKNOWN;
    }
    json_object_foreach(exp, key, v) {
        int i = invariant_of(key);
        const char *s = json_string_value(v);
        if (i < 0 || s == NULL) continue;
        r->expect[i] = !strcmp(s, "held")       ? SCN_EXPECT_HELD
                       : !strcmp(s, "violated") ? SCN_EXPECT_VIOLATED
                       : !strcmp(s, "any")      ? SCN_EXPECT_ANY
                                                : SCN_EXPECT_NONE;
    }
}

static char *first_violation(json_t *viol)
{
    json_t *v = json_array_get(viol, 0);
    const char *inv = json_string_value(json_object_get(v, "invariant"));
    const char *detail = json_string_value(json_object_get(v, "detail"));
    if (inv == NULL || detail == NULL) return sim_xstrdup("");
    char buf[768];
    snprintf(buf, sizeof buf, "%s at %.3fs: %s", inv, num(v, "at_ms") / 1000.0, detail);
    return sim_xstrdup(buf);
}

int report_row_parse(const char *line, size_t len, report_row *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        snprintf(why, cap, "not JSON: %s (column %d)", je.text, je.column);
        return -1;
    }
    json_t *jseed = json_object_get(root, "seed"), *jinv = json_object_get(root, "invariants");
    json_t *jviol = json_object_get(root, "violations"), *jlat = json_object_get(root, "latency_ms");
    const char *bad = !json_is_object(root) ? "not an object"
                      : !json_is_string(json_object_get(root, "scenario"))
                          ? "\"scenario\" is missing or not a string"
                      : !json_is_integer(jseed) || json_integer_value(jseed) < 0
                          ? "\"seed\" is missing or not an integer from 0"
                      : !json_is_boolean(json_object_get(root, "expectations_met"))
                          ? "\"expectations_met\" is missing or not true/false"
                      : !json_is_string(json_object_get(root, "trace_hash"))
                          ? "\"trace_hash\" is missing or not a string"
                      : !json_is_object(jinv) ? "\"invariants\" is missing or not an object"
                      : jviol && !json_is_array(jviol) ? "\"violations\" is not an array"
                                                       : NULL;
    if (bad) {
        snprintf(why, cap, "not a locksim run result: %s", bad);
        json_decref(root);
        return -1;
    }
    out->scenario = dup_str(root, "scenario", "");
    out->name = dup_str(root, "name", out->scenario);
    out->protocol = dup_str(root, "protocol", "?");
    out->backend = dup_str(root, "backend", "fake");
    out->trace_hash = dup_str(root, "trace_hash", "");
    out->failure = dup_str(root, "expectation_failure", "");
    out->first_violation = first_violation(jviol);
    out->seed = (uint64_t)json_integer_value(jseed);
    out->met = json_is_true(json_object_get(root, "expectations_met"));
    read_verdicts(jinv, json_object_get(root, "expected"), out);
    out->nviolations = json_array_size(jviol);
    out->acquisitions = count(root, "acquisitions");
    out->acquire_failures = count(root, "acquire_failures");
    out->errors = count(root, "errors");
    out->evals = count(root, "evals");
    out->events = count(root, "events");
    out->duration_ms = num(root, "duration_ms");
    out->virtual_ms = num(root, "virtual_ms");
    out->wall_ms = num(root, "wall_ms");
    out->jain = num(root, "fairness_jain");
    out->p50_ms = num(jlat, "p50");
    out->p95_ms = num(jlat, "p95");
    out->p99_ms = num(jlat, "p99");
    out->max_ms = num(jlat, "max");
    json_decref(root);
    return 0;
}

void report_row_free(report_row *r)
{
    if (r == NULL) return;
    sim_xfree(r->scenario);
    sim_xfree(r->name);
    sim_xfree(r->protocol);
    sim_xfree(r->backend);
    sim_xfree(r->trace_hash);
    sim_xfree(r->failure);
    sim_xfree(r->first_violation);
    memset(r, 0, sizeof *r);
}
