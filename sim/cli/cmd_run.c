/* cmd_run.c — `locksim run PATH...`: collects scenario files (folders are
 * searched for *.scn, in name order), checks them all before running any,
 * runs each with each seed, and prints a summary or JSON lines. Exit 0 when
 * every expectation was met, 1 when one was not, 2 on bad input. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "faults/fault.h"
#include "protocols/protocol.h"
#include "run/explore.h"
#include "run/run.h"
#include "sim/cli/cli.h"

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

static int parse_seeds(const char *v, uint64_t *a, uint64_t *b)
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

int cli_run(int argc, char **argv)
{
    paths files = {0};
    uint64_t seed_a = 0, seed_b = 0;
    int has_seeds = 0, json = 0, verbose = 0, status = 0;
    const char *trace_path = NULL;
    run_opts ro = {0};
    const char *choices = NULL; /* a path of locksim check to replay */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((!strcmp(a, "--seed") || !strcmp(a, "--seeds")) && v) {
            if (parse_seeds(v, &seed_a, &seed_b) != 0 || (!strcmp(a, "--seed") && seed_a != seed_b)) {
                fprintf(stderr, "locksim run: %s wants %s (got \"%s\")\n", a,
                        !strcmp(a, "--seed") ? "an integer" : "A..B", v);
                status = 2;
                goto out;
            }
            has_seeds = 1;
            i++;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--trace") && v) {
            trace_path = v;
            i++;
        } else if (!strcmp(a, "--backend") && v) {
            if (strcmp(v, "fake") && strcmp(v, "redis")) {
                fprintf(stderr, "locksim run: --backend is fake or redis (got \"%s\")\n", v);
                status = 2;
                goto out;
            }
            ro.real = !strcmp(v, "redis");
            i++;
        } else if (!strcmp(a, "--redis") && v) {
            ro.redis = v;
            i++;
        } else if (!strcmp(a, "--horizon") && v) {
            if (scn_parse_duration(v, &ro.horizon_us) != 0 || ro.horizon_us <= 0) {
                fprintf(stderr, "locksim run: --horizon wants a duration such as 5s (got \"%s\")\n", v);
                status = 2;
                goto out;
            }
            i++;
        } else if (!strcmp(a, "--choices") && v) {
            choices = v;
            i++;
        } else if (!strcmp(a, "--allow-server-faults")) {
            ro.allow_server_faults = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "locksim run: unknown or incomplete option \"%s\"\n", a);
            status = 2;
            goto out;
        } else if (collect(a, &files) != 0) {
            fprintf(stderr, "locksim run: %s: %s\n", a, strerror(errno ? errno : ENOENT));
            status = 2;
            goto out;
        }
    }
    if (choices) {
        explore_replay probe;
        if (explore_replay_parse(&probe, choices) != 0) {
            fprintf(stderr, "locksim run: --choices wants values separated by '.' (got \"%s\")\n", choices);
            status = 2;
            goto out;
        }
        explore_replay_free(&probe);
    }
    if (ro.redis && !ro.real) {
        fprintf(stderr, "locksim run: --redis goes with --backend redis\n");
        status = 2;
        goto out;
    }
    if (files.n == 0) {
        fprintf(stderr, "locksim run: no scenario given (a .scn file or a folder)\n");
        status = 2;
        goto out;
    }
    /* Every file is checked before anything runs: no half a sweep. */
    scenario *scns = sim_xcalloc(files.n, sizeof *scns);
    size_t loaded = 0;
    for (; loaded < files.n; loaded++) {
        scn_error err;
        if (scn_load(files.v[loaded], &scns[loaded], &err) != 0) {
            scn_error_print(&err);
            status = 2;
            break;
        }
        if (proto_find(scns[loaded].protocol) == NULL) {
            char why[256];
            fprintf(stderr, "%s:%d: %s\n", scns[loaded].path, scns[loaded].protocol_line,
                    proto_unknown_reason(scns[loaded].protocol, why, sizeof why));
            scn_free(&scns[loaded]);
            status = 2;
            break;
        }
        char why[768];
        if (ro.real && run_real_refusal(&scns[loaded], &ro, why, sizeof why) != 0) {
            fprintf(stderr, "%s\n", why);
            scn_free(&scns[loaded]);
            status = 2;
            break;
        }
    }
    FILE *trace = NULL;
    if (status == 0 && trace_path) {
        trace = fopen(trace_path, "w");
        if (trace == NULL) {
            fprintf(stderr, "locksim run: cannot write %s: %s\n", trace_path, strerror(errno));
            status = 2;
        }
    }
    uint64_t runs = 0, failed = 0;
    for (size_t i = 0; status != 2 && i < loaded; i++) {
        const scenario *s = &scns[i];
        uint64_t a = has_seeds ? seed_a : (s->has_seed ? s->seed : 1);
        uint64_t b = has_seeds ? seed_b : a;
        for (uint64_t seed = a;; seed++) {
            history h;
            run_result r;
            scn_error err;
            run_opts o = ro;
            o.trace = trace;
            explore_replay rep = {0};
            if (choices) {
                explore_replay_parse(&rep, choices);
                o.chooser = explore_replay_choose;
                o.chooser_ud = &rep;
            }
            hist_init(&h);
            if (run_scenario(s, seed, &o, &r, &h, &err) != 0) {
                scn_error_print(&err);
                status = 2;
                hist_free(&h);
                explore_replay_free(&rep);
                break;
            }
            if (choices) {
                if (rep.pos < rep.n || rep.mismatches)
                    fprintf(stderr, "locksim run: the choice string does not fit this run (%zu of %zu values used, "
                                    "%llu out of range)\n",
                            rep.pos, rep.n, (unsigned long long)rep.mismatches);
                explore_replay_free(&rep);
            }
            if (json) report_json(stdout, &r, &h);
            else report_summary(stdout, &r, &h, verbose);
            fflush(stdout);
            runs++;
            if (!r.expectations_met) {
                failed++;
                status = 1;
            }
            run_result_free(&r);
            hist_free(&h);
            if (seed == b) break;
        }
    }
    if (trace) fclose(trace);
    if (!json && status != 2)
        printf("%llu run%s: %llu met every expectation, %llu did not\n", (unsigned long long)runs,
               runs == 1 ? "" : "s", (unsigned long long)(runs - failed), (unsigned long long)failed);
    for (size_t i = 0; i < loaded; i++) scn_free(&scns[i]);
    sim_xfree(scns);
out:
    for (size_t i = 0; i < files.n; i++) sim_xfree(files.v[i]);
    sim_xfree(files.v);
    return status;
}

int cli_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("protocols:\n");
    for (size_t i = 0; proto_all[i]; i++) {
        const proto_def *pd = proto_all[i];
        printf("  %-22s %s\n", pd->name, pd->summary);
        if (pd->options) printf("  %-22s   options: %s\n", "", pd->options);
        if (pd->versions) printf("  %-22s   versions: %s\n", "", pd->versions);
        printf("  %-22s   checkers:", "");
        unsigned inv = proto_invariants(pd);
        for (int k = 0; k < SCN_INV_COUNT; k++)
            if (inv & PROTO_INV(k)) printf(" %s", scn_invariant_name((scn_invariant)k));
        printf("\n");
    }
    printf("faults ([faults] lines: at = TIME FAULT ...):\n");
    const char *usage, *doc;
    for (size_t i = 0; scn_fault_help(i, &usage, &doc); i++) printf("  %-50s %s\n", usage, doc);
    printf("libfiu failure points (fiu POINT p=P [for=D]):\n");
    for (size_t i = 0; fault_fiu_points[i]; i++) printf("  %s\n", fault_fiu_points[i]);
    printf("nemesis kinds ([nemesis] kinds = ...):\n ");
    for (int b = 0; b < SCN_NEM_COUNT; b++) printf(" %s", scn_nemesis_kind_name(1 << b));
    printf("\n");
    printf("invariants:\n");
    for (int i = 0; i < SCN_INV_COUNT; i++) printf("  %s\n", scn_invariant_name((scn_invariant)i));
    return 0;
}
