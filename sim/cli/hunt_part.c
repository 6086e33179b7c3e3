/* hunt_part.c — partial hunt files (hunt_part.h): written by a shard of
 * `locksim hunt --shard I/N`, read back by `locksim merge`. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cli/hunt_part.h"
#include "sim/kernel/sim.h"

int hunt_part_is(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    char line[64] = "";
    int is = fgets(line, sizeof line, f) != NULL && !strncmp(line, HUNT_PART_MAGIC, strlen(HUNT_PART_MAGIC));
    fclose(f);
    return is;
}

int hunt_part_begin(FILE *f, int argc, char **argv, const char *scripts, unsigned index, unsigned count)
{
    for (int i = 0; i < argc; i++)
        if (strpbrk(argv[i], "\t\n")) return -1;
    if (scripts && strpbrk(scripts, "\t\n")) return -1;
    fprintf(f, "%s\nargs", HUNT_PART_MAGIC);
    for (int i = 0; i < argc; i++) fprintf(f, "\t%s", argv[i]);
    fputc('\n', f);
    if (scripts) fprintf(f, "scripts\t%s\n", scripts);
    fprintf(f, "shard %u %u\n", index + 1, count);
    return 0;
}

void hunt_part_seed(FILE *f, uint64_t seed, const char *rec, size_t len)
{
    fprintf(f, "seed %" PRIu64 " %.*s\n", seed, (int)len, rec);
}

void hunt_part_end(FILE *f, uint64_t runs)
{
    fprintf(f, "end %" PRIu64 "\n", runs);
}

static int bad(const char *path, size_t line, const char *what)
{
    if (line) fprintf(stderr, "%s:%zu: %s\n", path, line, what);
    else fprintf(stderr, "locksim merge: %s: %s\n", path, what);
    return 2;
}

static int by_seed(const void *x, const void *y)
{
    const hunt_part_rec *a = x, *b = y;
    return a->seed < b->seed ? -1 : a->seed > b->seed;
}

/* One file into p; seen[i] marks shard i+1 read. */
static int read_one(const char *path, hunt_parts *p, unsigned char **seen, size_t *cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return bad(path, 0, strerror(errno));
    char *line = NULL, msg[200];
    size_t lcap = 0, no = 0;
    ssize_t len;
    int status = 0, ended = 0, sharded = 0;
    uint64_t last = 0;
    int any = 0;
    while (status == 0 && (len = getline(&line, &lcap, f)) >= 0) {
        no++;
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        if (ended) {
            status = bad(path, no, "a line after `end`");
        } else if (no == 1) {
            if (strcmp(line, HUNT_PART_MAGIC) != 0) status = bad(path, no, "not a partial hunt (locksim hunt --shard)");
        } else if (!strncmp(line, "args", 4) && (line[4] == '\t' || line[4] == '\0')) {
            const char *args = line[4] ? line + 5 : "";
            if (p->args == NULL) p->args = sim_xstrdup(args);
            else if (strcmp(p->args, args) != 0) status = bad(path, no, "another hunt than the first file's (its arguments differ)");
        } else if (!strncmp(line, "scripts\t", 8)) {
            if (p->scripts == NULL) p->scripts = sim_xstrdup(line + 8);
            else if (strcmp(p->scripts, line + 8) != 0) status = bad(path, no, "another --scripts than the first file's");
        } else if (!strncmp(line, "shard ", 6)) {
            unsigned i, n;
            char end;
            if (sscanf(line + 6, "%u %u%c", &i, &n, &end) != 2 || n == 0 || i == 0 || i > n) {
                status = bad(path, no, "`shard I N` wants 1 <= I <= N");
            } else if (p->shards && n != p->shards) {
                snprintf(msg, sizeof msg, "shard %u of %u, where the first file is one of %u", i, n, p->shards);
                status = bad(path, no, msg);
            } else {
                if (*seen == NULL) *seen = sim_xcalloc(n + 1, 1), *cap = n;
                p->shards = n;
                if ((*seen)[i - 1]) {
                    snprintf(msg, sizeof msg, "shard %u of %u given twice", i, n);
                    status = bad(path, no, msg);
                }
                (*seen)[i - 1] = 1;
                sharded = 1;
            }
        } else if (!strncmp(line, "seed ", 5)) {
            char *end;
            uint64_t seed = strtoull(line + 5, &end, 10);
            if (!sharded || end == line + 5 || *end != ' ' || end[1] == '\0') {
                status = bad(path, no, "`seed SEED RECORD` after the `shard` line");
            } else if (any && seed <= last) {
                status = bad(path, no, "seeds out of order");
            } else {
                p->recs = sim_xrealloc(p->recs, (p->nrecs + 1) * sizeof *p->recs);
                p->recs[p->nrecs++] = (hunt_part_rec){.seed = seed, .rec = sim_xstrdup(end + 1)};
                last = seed;
                any = 1;
            }
        } else if (!strncmp(line, "end ", 4)) {
            char *end;
            uint64_t runs = strtoull(line + 4, &end, 10);
            if (end == line + 4 || *end) status = bad(path, no, "`end RUNS` wants a count");
            p->runs += runs;
            ended = 1;
        } else {
            status = bad(path, no, "unknown line (args, scripts, shard, seed or end)");
        }
    }
    free(line);
    fclose(f);
    if (status == 0 && p->args == NULL) status = bad(path, 0, "no `args` line");
    if (status == 0 && !ended) status = bad(path, 0, "cut short (no `end` line: the shard did not finish)");
    return status;
}

int hunt_parts_read(char **paths, int n, hunt_parts *out)
{
    memset(out, 0, sizeof *out);
    unsigned char *seen = NULL;
    size_t cap = 0;
    int status = 0;
    for (int i = 0; i < n && status == 0; i++) status = read_one(paths[i], out, &seen, &cap);
    for (size_t i = 0; status == 0 && i < out->shards; i++)
        if (!seen[i]) {
            char msg[120];
            snprintf(msg, sizeof msg, "shard %zu of %u is missing (every shard's partial hunt is needed)", i + 1,
                     out->shards);
            fprintf(stderr, "locksim merge: %s\n", msg);
            status = 2;
        }
    sim_xfree(seen);
    if (status == 0) {
        qsort(out->recs, out->nrecs, sizeof *out->recs, by_seed);
        for (size_t i = 1; i < out->nrecs && status == 0; i++)
            if (out->recs[i].seed == out->recs[i - 1].seed) {
                fprintf(stderr, "locksim merge: seed %" PRIu64 " is in two shards\n", out->recs[i].seed);
                status = 2;
            }
    }
    if (status != 0) hunt_parts_free(out);
    return status;
}

void hunt_parts_free(hunt_parts *p)
{
    for (size_t i = 0; i < p->nrecs; i++) sim_xfree(p->recs[i].rec);
    sim_xfree(p->recs);
    sim_xfree(p->args);
    sim_xfree(p->scripts);
    memset(p, 0, sizeof *p);
}
