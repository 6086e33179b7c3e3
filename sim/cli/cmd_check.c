/* cmd_check.c — `locksim check SCENARIO`: systematic exploration of the
 * scenario's choices within bounds (sim/run/explore), its counts, and the
 * choice string of the first counterexample with the command that
 * replays it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/engine/explore.h"

static int int_opt(const char *name, const char *v, long lo, long hi, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < lo || n > hi) {
        fprintf(stderr, "locksim check: %s wants an integer from %ld to %ld (got \"%s\")\n", name, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

int cli_check(int argc, char **argv)
{
    explore_opts o = {.depth = 12, .branch = 2, .faults = -1, .max_runs = 0, .max_seconds = 0, .stop_at_first = 1};
    const char *path = NULL;
    uint64_t seed = 1;
    int has_seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--depth") && v) {
            if (int_opt(a, v, 0, 62, &n)) return 2;
            o.depth = (int)n;
            i++;
        } else if (!strcmp(a, "--branch") && v) {
            if (int_opt(a, v, 2, 1000, &n)) return 2;
            o.branch = (int)n;
            i++;
        } else if (!strcmp(a, "--faults") && v) {
            if (int_opt(a, v, 0, 1000, &n)) return 2;
            o.faults = (int)n;
            i++;
        } else if (!strcmp(a, "--max-runs") && v) {
            if (int_opt(a, v, 1, 1000000000, &n)) return 2;
            o.max_runs = (uint64_t)n;
            i++;
        } else if (!strcmp(a, "--max-seconds") && v) {
            if (int_opt(a, v, 1, 86400, &n)) return 2;
            o.max_seconds = (double)n;
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            if (int_opt(a, v, 0, 2147483647, &n)) return 2;
            seed = (uint64_t)n;
            has_seed = 1;
            i++;
        } else if (!strcmp(a, "--horizon") && v) {
            if (scn_parse_duration(v, &o.horizon_us) != 0 || o.horizon_us <= 0) {
                fprintf(stderr, "locksim check: --horizon wants a duration such as 5s (got \"%s\")\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--all")) {
            o.stop_at_first = 0;
        } else if (a[0] == '-' || path) {
            fprintf(stderr, "locksim check: unknown or extra argument \"%s\"\n", a);
            return 2;
        } else {
            path = a;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "locksim check: no scenario given\n");
        return 2;
    }
    scenario s;
    scn_error err;
    if (run_load(path, cli_scripts_override(), cli_scripts_override() != NULL, &s, &err) != 0) {
        scn_error_print(&err);
        return 2;
    }
    if (!has_seed && s.has_seed) seed = s.seed;
    char faults[24] = "any";
    if (o.faults >= 0) snprintf(faults, sizeof faults, "%d", o.faults);
    printf("check %s, seed %llu: depth %d, branch %d, faults %s\n", path, (unsigned long long)seed, o.depth,
           o.branch, faults);
    explore_result r;
    int rc = explore_run(&s, seed, &o, &r, isatty(2) ? stderr : NULL, &err);
    if (rc != 0) {
        scn_error_print(&err);
        scn_free(&s);
        return 2;
    }
    printf("  executions %llu, choice points %llu, distinct states %llu, distinct outcomes %llu, failing %llu, %s, "
           "%.1fs, %.0f executions/s, %.0f states/s\n",
           (unsigned long long)r.runs, (unsigned long long)r.points, (unsigned long long)r.states,
           (unsigned long long)r.outcomes, (unsigned long long)r.failures,
           r.complete ? "complete within the bounds" : r.failures ? "stopped at the first counterexample"
                                                              : "stopped by a limit",
           r.seconds, r.seconds > 0 ? (double)r.runs / r.seconds : 0.0,
           r.seconds > 0 ? (double)r.states / r.seconds : 0.0);
    int status = 0;
    if (r.counterexample) {
        status = 1;
        printf("  counterexample: %s (trace %016llx)\n", r.failure, (unsigned long long)r.ce_hash);
        printf("  choices: %s\n", r.counterexample);
        char horizon[48] = "";
        if (o.horizon_us > 0) {
            char d[32];
            scn_duration_format(o.horizon_us, d, sizeof d);
            snprintf(horizon, sizeof horizon, " --horizon %s", d);
        }
        printf("  replay:  locksim replay %s --seed %llu%s --choices %s --around violation\n", path,
               (unsigned long long)seed, horizon, r.counterexample);
    }
    explore_result_free(&r);
    scn_free(&s);
    return status;
}
