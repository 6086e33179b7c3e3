/* cmd_shrink.c — `locksim shrink SCENARIO --seed N -o FILE`: reads the
 * arguments, runs the shrinker (sim/engine/shrink.h), prints what each step
 * removed, writes FILE (temporary name, then renamed) and runs it once more
 * as a user will, to check that it fails the same way. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocols/protocol.h"
#include "sim/cli/cli.h"
#include "sim/engine/shrink.h"

static int write_file(const char *path, const char *origin, const shrink_result *k, unsigned long long seed)
{
    char tmp[4200], why[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return -1;
    shrink_failure_text(&k->last, why, sizeof why);
    fprintf(f, "# Shrunk by `locksim shrink` from %s with seed %llu.\n", origin, seed);
    fprintf(f, "# It fails the same way as the original: %s.\n", why);
    fprintf(f, "# `locksim run` this file replays it: [scenario] seed = %llu.\n", seed);
    const scenario *s = &k->out;
    int rc = scn_write(f, s);
    if (fclose(f) != 0 || rc != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static int shrink_usage(const char *what, const char *v)
{
    fprintf(stderr, "locksim shrink: ");
    fprintf(stderr, what, v ? v : "");
    fprintf(stderr, "\nusage: locksim shrink SCENARIO [--seed N] -o FILE\n");
    return 2;
}

static void print_size(const char *label, const scenario *s)
{
    char d[32];
    int clients = shrink_clients_of(s);
    scn_duration_format(s->duration_us, d, sizeof d);
    printf("%s: %zu fault lines%s, %zu step lines, %d client%s x %d thread%s, duration %s\n", label,
           shrink_fault_lines(s), s->nemesis ? " + [nemesis]" : "", shrink_step_lines(s), clients,
           clients == 1 ? "" : "s", s->threads, s->threads == 1 ? "" : "s", d);
}

/* What each step of the shrink removed. */
static void print_steps(const shrink_result *k)
{
    const shrink_stats *st = &k->stats;
    if (st->had_nemesis)
        printf("  a. nemesis made explicit: %s (%zu faults, %zu after the end of the run left out)\n",
               st->explicit_ok ? "yes" : "no, the explicit faults do not fail the same way", st->generated - st->late,
               st->late);
    printf("  b. faults: %zu -> %zu lines (ddmin)\n", st->faults_a, st->faults1);
    char anchored[96] = "";
    if (st->anchored)
        snprintf(anchored, sizeof anchored, " (%zu unlock%s go%s with %s lock or the release %s repeat%s)",
                 st->anchored, st->anchored == 1 ? "" : "s", st->anchored == 1 ? "es" : "",
                 st->anchored == 1 ? "its" : "their", st->anchored == 1 ? "it" : "they", st->anchored == 1 ? "s" : "");
    printf("  c. steps: %zu -> %zu lines%s; clients %d -> %d; threads per client %d -> %d\n", st->ops0, st->ops1,
           anchored, st->clients0, st->clients1, st->threads0, st->threads1);
    char d0[32], d1[32];
    scn_duration_format(st->duration0_us, d0, sizeof d0);
    scn_duration_format(st->duration1_us, d1, sizeof d1);
    printf("  d. duration: %s -> %s\n", d0, d1);
    printf("  e. distributions made constant: %d\n", st->dists);
    size_t faults_in = st->faults0 + (st->explicit_ok ? st->generated - st->late : 0);
    size_t faults_out = shrink_fault_lines(&k->out), ops_out = shrink_step_lines(&k->out);
    int clients_out = shrink_clients_of(&k->out);
    printf("removed: %zu of %zu fault lines%s, %zu of %zu step lines, %d of %d clients, %d of %d threads "
           "per client; duration %s -> %s; %d distributions made constant\n",
           faults_in - faults_out, faults_in, st->explicit_ok ? " (the nemesis's included)" : "", st->ops0 - ops_out,
           st->ops0, st->clients0 - clients_out, st->clients0, st->threads0 - k->out.threads, st->threads0, d0, d1,
           st->dists);
    print_size("after", &k->out);
    printf("  (%u runs)\n", st->runs);
}

/* Writes cur to out and runs the file as a user will: 0 when it fails the
 * same way, 1 when not, 2 when it cannot be written or read. */
static int write_and_verify(const shrink_result *k, unsigned long long seed, const char *origin, const char *out)
{
    char why[300];
    if (write_file(out, origin, k, seed) != 0) {
        fprintf(stderr, "locksim shrink: cannot write %s: %s\n", out, strerror(errno));
        return 2;
    }
    scenario back;
    shrink_failure got;
    if (cli_load(out, &back) != 0) return 2;
    int again = shrink_fails_same(&back, back.seed, &k->want, &got);
    shrink_failure_text(again ? &got : &k->want, why, sizeof why);
    size_t nl = 0;
    FILE *f = fopen(out, "r");
    for (int c; f && (c = fgetc(f)) != EOF;) nl += c == '\n';
    if (f) fclose(f);
    printf("wrote %s (%zu lines); `locksim run %s` %s: %s\n", out, nl, out,
           again ? "fails the same way" : "does NOT fail the same way", why);
    scn_free(&back);
    return again ? 0 : 1;
}

int cli_shrink(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    unsigned long long seed = 0;
    int has_seed = 0, swarm = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--seed") && v) {
            if (cli_parse_seed(v, &seed) != 0) return shrink_usage("--seed wants an integer (got \"%s\")", v);
            has_seed = 1;
            i++;
        } else if (!strcmp(o, "--swarm")) {
            swarm = 1;
        } else if ((!strcmp(o, "-o") || !strcmp(o, "--output")) && v) {
            out = v;
            i++;
        } else if (o[0] == '-') {
            return shrink_usage("unknown or incomplete option \"%s\"", o);
        } else if (path) {
            return shrink_usage("one scenario at a time (got a second: \"%s\")", o);
        } else {
            path = o;
        }
    }
    if (path == NULL) return shrink_usage("no scenario given%s", NULL);
    if (out == NULL) return shrink_usage("-o FILE is required (where the shrunk scenario goes)%s", NULL);
    scenario orig;
    if (cli_load(path, &orig) != 0) return 2;
    if (!has_seed) seed = orig.has_seed ? orig.seed : 1;
    shrink_result k;
    scn_error err;
    shrink_opts so = {.flags = swarm ? SHRINK_SWARM : 0};
    int fails = shrink_scenario(&orig, seed, &so, &k, &err);
    if (fails <= 0) {
        if (fails == 0)
            printf("shrink: %s with seed %llu does not fail (no violation, expectations met): nothing to shrink\n",
                   path, seed);
        else if (err.line == 0 && strstr(err.msg, "written back"))
            fprintf(stderr, "locksim shrink: %s cannot be written back as scenario text\n", path);
        else
            scn_error_print(&err);
        shrink_result_free(&k);
        scn_free(&orig);
        return fails == 0 ? 1 : 2;
    }
    char why[300];
    shrink_failure_text(&k.want, why, sizeof why);
    printf("shrink: %s seed %llu fails: %s\n", path, seed, why);
    print_size("before", &orig);
    if (orig.swarm || swarm) printf("  swarm testing: the seed drew the values the shrinking starts from\n");
    if (orig.nemesis || orig.swarm || swarm) printf("  the nemesis generated %zu faults\n", k.stats.generated);
    print_steps(&k);
    /* A lock policy named by a path relative to the input: the written
     * file names it by its absolute path, so it runs from anywhere. */
    scn_error perr;
    const char *policy = proto_policy_file(proto_resolve(&k.out, &perr));
    if (policy) {
        sim_xfree(k.out.protocol);
        k.out.protocol = sim_xstrdup(policy);
    }
    /* So is a scripts folder ([protocol] scripts; --scripts gives it so). */
    char dir[4096], abs[PATH_MAX];
    if (k.out.scripts && k.out.scripts[0] != '/') {
        proto_scenario_path(&k.out, k.out.scripts, dir, sizeof dir);
        if (realpath(dir, abs)) {
            sim_xfree(k.out.scripts);
            k.out.scripts = sim_xstrdup(abs);
        }
    }
    int status = write_and_verify(&k, seed, path, out);
    shrink_result_free(&k);
    scn_free(&orig);
    return status;
}
