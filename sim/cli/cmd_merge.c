/* cmd_merge.c — `locksim merge FILE...`: the JSON lines that `locksim run
 * --json` wrote (the shards of one sweep, say), read back with jansson and
 * summed up as `run` does: each failing (scenario, seed) in input order,
 * then "N runs: M met every expectation, K did not". Every line of every
 * file is checked before anything is printed; a (scenario, seed, backend)
 * seen twice is an error, since it would be counted twice. Exit 0, 1, 2. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "ut.h"

/* One run read back; key is "scenario\nseed\nbackend", for duplicates. */
typedef struct merged {
    UT_hash_handle hh;
    char *key, *scenario, *protocol, *failure;
    uint64_t seed;
    int met;
    char where[600]; /* "file:line" */
} merged;

typedef struct merge_set {
    merged *by_key; /* uthash, in input order */
    uint64_t runs, failed;
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
    json_error_t je;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        fprintf(stderr, "%s:%ld: not JSON: %s (column %d); is it the output of `locksim run --json`?\n", file,
                lineno, je.text, je.column);
        return -1;
    }
    /* What merge needs, and what says the line is a run result. */
    json_t *jscn = json_object_get(root, "scenario"), *jseed = json_object_get(root, "seed");
    json_t *jmet = json_object_get(root, "expectations_met"), *jhash = json_object_get(root, "trace_hash");
    json_t *jinv = json_object_get(root, "invariants");
    const char *bad = !json_is_object(root)           ? "not an object"
                      : !json_is_string(jscn)         ? "\"scenario\" is missing or not a string"
                      : !json_is_integer(jseed) || json_integer_value(jseed) < 0
                          ? "\"seed\" is missing or not an integer from 0"
                      : !json_is_boolean(jmet)        ? "\"expectations_met\" is missing or not true/false"
                      : !json_is_string(jhash)        ? "\"trace_hash\" is missing or not a string"
                      : !json_is_object(jinv)         ? "\"invariants\" is missing or not an object"
                                                      : NULL;
    if (bad) {
        fprintf(stderr, "%s:%ld: not a locksim run result: %s\n", file, lineno, bad);
        json_decref(root);
        return -1;
    }
    const char *scn = json_string_value(jscn), *proto = json_string_value(json_object_get(root, "protocol"));
    const char *backend = json_string_value(json_object_get(root, "backend"));
    const char *failure = json_string_value(json_object_get(root, "expectation_failure"));
    uint64_t seed = (uint64_t)json_integer_value(jseed);
    int met = json_is_true(jmet);
    if (proto == NULL) proto = "?";
    if (backend == NULL) backend = "fake";
    if (failure == NULL) failure = "";
    merged *m = sim_xcalloc(1, sizeof *m);
    size_t klen = strlen(scn) + strlen(backend) + 32;
    m->key = sim_xmalloc(klen);
    snprintf(m->key, klen, "%s\n%" PRIu64 "\n%s", scn, seed, backend);
    merged *dup;
    HASH_FIND_STR(ms->by_key, m->key, dup);
    if (dup) {
        fprintf(stderr, "%s:%ld: %s seed %" PRIu64 " (%s) is already at %s: overlapping shards?\n", file, lineno,
                scn, seed, backend, dup->where);
        sim_xfree(m->key);
        sim_xfree(m);
        json_decref(root);
        return -1;
    }
    m->scenario = sim_xstrdup(scn);
    m->protocol = sim_xstrdup(proto);
    m->failure = sim_xstrdup(failure);
    m->seed = seed;
    m->met = met;
    snprintf(m->where, sizeof m->where, "%s:%ld", file, lineno);
    HASH_ADD_KEYPTR(hh, ms->by_key, m->key, strlen(m->key), m);
    ms->runs++;
    ms->failed += !met;
    json_decref(root);
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

int cli_merge(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "locksim merge: no file given (the output of `locksim run --json`, one or more; - for stdin)\n");
        return 2;
    }
    merge_set ms = {0};
    int status = 0;
    for (int i = 1; i < argc && status == 0; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "locksim merge: unknown option \"%s\"\n", argv[i]);
            status = 2;
        } else if (add_file(&ms, argv[i]) != 0) {
            status = 2;
        }
    }
    merged *m, *tmp;
    if (status == 0) {
        for (m = ms.by_key; m; m = m->hh.next)
            if (!m->met)
                printf("%s  seed %" PRIu64 "  %s  [FAIL]\n  expectation not met: %s\n", m->scenario, m->seed,
                       m->protocol, m->failure);
        printf("%" PRIu64 " run%s: %" PRIu64 " met every expectation, %" PRIu64 " did not\n", ms.runs,
               ms.runs == 1 ? "" : "s", ms.runs - ms.failed, ms.failed);
        status = ms.failed ? 1 : 0;
    }
    HASH_ITER(hh, ms.by_key, m, tmp) {
        HASH_DEL(ms.by_key, m);
        sim_xfree(m->key);
        sim_xfree(m->scenario);
        sim_xfree(m->protocol);
        sim_xfree(m->failure);
        sim_xfree(m);
    }
    return status;
}
