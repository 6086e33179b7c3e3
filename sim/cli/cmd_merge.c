/* cmd_merge.c — `locksim merge FILE... [--junit FILE] [--tap]`: the JSON
 * lines that `locksim run --json` wrote (the shards of one sweep, say),
 * read back as rows and summed up as `run` does: each failing (scenario,
 * seed) in input order, then "N runs: M met every expectation, K did
 * not"; or TAP, and a JUnit file, as `run` writes them. Every line of
 * every file is checked before anything is printed; a (scenario, seed,
 * backend) seen twice is an error, since it would be counted twice.
 * Exit 0, 1, 2. Partial hunts (`hunt --shard I/N`) are the hunt's own to
 * finish: cmd_hunt.c's cli_hunt_merge. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "sim/cli/cli.h"
#include "sim/cli/hunt_part.h"
#include "sim/kernel/ut.h"

/* One run read back; key is "scenario\nseed\nbackend", for duplicates. */
typedef struct merged {
    UT_hash_handle hh;
    char *key;
    char where[600]; /* "file:line" */
} merged;

typedef struct merge_set {
    merged *by_key; /* uthash, for duplicates */
    report_row *rows; /* in input order */
    size_t n, cap;
    uint64_t failed;
} merge_set;

static int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    return *s == '\0';
}

/* Checks and adds one line. Returns 0, or -1 after printing
 * "file:line: what is wrong". */
static int add_line(merge_set *ms, const char *file, long lineno, const char *line, size_t len)
{
    report_row row;
    char why[256];
    if (report_row_parse(line, len, &row, why, sizeof why) != 0) {
        fprintf(stderr, "%s:%ld: %s; is it the output of `locksim run --json`?\n", file, lineno, why);
        return -1;
    }
    merged *m = sim_xcalloc(1, sizeof *m);
    size_t klen = strlen(row.scenario) + strlen(row.backend) + 32;
    m->key = sim_xmalloc(klen);
    snprintf(m->key, klen, "%s\n%" PRIu64 "\n%s", row.scenario, row.seed, row.backend);
    merged *dup;
    HASH_FIND_STR(ms->by_key, m->key, dup);
    if (dup) {
        fprintf(stderr, "%s:%ld: %s seed %" PRIu64 " (%s) is already at %s: overlapping shards?\n", file, lineno,
                row.scenario, row.seed, row.backend, dup->where);
        sim_xfree(m->key);
        sim_xfree(m);
        report_row_free(&row);
        return -1;
    }
    snprintf(m->where, sizeof m->where, "%s:%ld", file, lineno);
    HASH_ADD_KEYPTR(hh, ms->by_key, m->key, strlen(m->key), m);
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? ms->cap * 2 : 64;
        ms->rows = sim_xrealloc(ms->rows, ms->cap * sizeof *ms->rows);
    }
    ms->failed += !row.met;
    ms->rows[ms->n++] = row;
    return 0;
}

/* Reads one file ("-": standard input). Returns 0 or -1 (printed). */
static int add_file(merge_set *ms, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (f == NULL) {
        fprintf(stderr, "locksim merge: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (!is_blank(line)) rc = add_line(ms, path, lineno, line, (size_t)len);
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "locksim merge: %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    free(line);
    if (f != stdin) fclose(f);
    return rc;
}

/* Prints the summary (or TAP) and writes --junit. Returns the status. */
static int report(const merge_set *ms, int tap, const char *junit_path)
{
    uint64_t runs = ms->n;
    if (tap) {
        report_tap_begin(stdout);
        for (size_t i = 0; i < ms->n; i++) report_tap_line(stdout, i + 1, &ms->rows[i], NULL);
        report_tap_plan(stdout, ms->n);
        printf("# ");
    } else {
        for (size_t i = 0; i < ms->n; i++)
            if (!ms->rows[i].met)
                printf("%s  seed %" PRIu64 "  %s  [FAIL]\n  expectation not met: %s\n", ms->rows[i].scenario,
                       ms->rows[i].seed, ms->rows[i].protocol, ms->rows[i].failure);
    }
    printf("%" PRIu64 " run%s: %" PRIu64 " met every expectation, %" PRIu64 " did not\n", runs, runs == 1 ? "" : "s",
           runs - ms->failed, ms->failed);
    if (junit_path) {
        report_outfile jf;
        if (report_outfile_begin(&jf, junit_path, "locksim merge") != 0) return 2;
        if (report_junit(jf.f, ms->rows, ms->n, NULL) != 0) {
            report_outfile_abort(&jf);
            fprintf(stderr, "locksim merge: cannot write %s\n", junit_path);
            return 2;
        }
        if (report_outfile_commit(&jf, "locksim merge") != 0) return 2;
    }
    return ms->failed ? 1 : 0;
}

int cli_merge(int argc, char **argv)
{
    /* Partial hunts (hunt --shard) are finished as the hunt they are. */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--junit")) i++;
        else if (argv[i][0] != '-' && hunt_part_is(argv[i])) return cli_hunt_merge(argc, argv);
    }
    if (cli_scripts_override()) {
        fprintf(stderr, "locksim merge: --scripts is for partial hunts (hunt --shard), not for run --json outputs\n");
        return 2;
    }
    merge_set ms = {0};
    int status = 0, tap = 0, files = 0;
    const char *junit = NULL;
    for (int i = 1; i < argc && status == 0; i++) {
        if (!strcmp(argv[i], "--tap")) {
            tap = 1;
        } else if (!strcmp(argv[i], "--junit") && i + 1 < argc) {
            junit = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "locksim merge: unknown or incomplete option \"%s\"\n", argv[i]);
            status = 2;
        } else if (add_file(&ms, argv[i]) != 0) {
            status = 2;
        } else {
            files++;
        }
    }
    if (status == 0 && files == 0) {
        fprintf(stderr, "locksim merge: no file given (the output of `locksim run --json`, one or more; - for stdin)\n");
        status = 2;
    }
    if (status == 0) status = report(&ms, tap, junit);
    merged *m, *tmp;
    HASH_ITER(hh, ms.by_key, m, tmp) {
        HASH_DEL(ms.by_key, m);
        sim_xfree(m->key);
        sim_xfree(m);
    }
    for (size_t i = 0; i < ms.n; i++) report_row_free(&ms.rows[i]);
    sim_xfree(ms.rows);
    return status;
}
