/* cmd_scripts.c — `locksim scripts PROTOCOL[@V] DIR [--force]`: the Lua
 * scripts a protocol runs (its release's), or a lock policy's files,
 * written into DIR to start a patch from ([protocol] scripts = DIR,
 * --scripts DIR). DIR is created; a file there is never overwritten
 * without --force. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "sim/cli/cli.h"

#define USAGE "locksim scripts PROTOCOL[@V] DIR [--force]"
#define MAX_FILES 64

/* ------------------------------------------------------- locksim list */

/* " a.lua b.lua" for names (a policy's are file names already). */
static void put_names(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        printf(" %s%s", names[i], len > 4 && !strcmp(names[i] + len - 4, ".lua") ? "" : ".lua");
    }
}

static int same_names(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb) return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0) return 0;
    return 1;
}

void cli_list_scripts(const proto_def *pd, int indent)
{
    const char *names[MAX_FILES], *prev[MAX_FILES];
    size_t n = proto_script_names(pd, names, MAX_FILES), np = 0;
    sim_assert(n <= MAX_FILES);
    if (n == 0) return;
    printf("%*s", indent, "");
    printf("scripts:");
    put_names(names, n);
    printf("\n");
    if (pd->versions == NULL || pd->scripts == NULL) return;
    /* Every release it may pin, oldest first: where the scripts change
     * (nothing when they never do). */
    int from[16], ng = 0;
    for (int v = pd->min_version; v <= PROTO_V(4, 7, 99) && ng < 16; v++) {
        n = proto_script_names_at(pd, v, names, MAX_FILES);
        if (ng > 0 && same_names(names, n, prev, np)) continue;
        from[ng++] = v;
        memcpy(prev, names, n * sizeof *names);
        np = n;
    }
    for (int g = 0; g < ng && ng > 1; g++) {
        int v = from[g];
        n = proto_script_names_at(pd, v, names, MAX_FILES);
        printf("%*s", indent, "");
        if (v % 100) printf("  from @%d.%d.%d:", v / 10000, v / 100 % 100, v % 100);
        else printf("  from @%d.%d:", v / 10000, v / 100 % 100);
        put_names(names, n);
        printf("\n");
    }
}

/* ---------------------------------------------------- locksim scripts */

/* Creates dir and its missing parents (mkdir -p); -1 with errno set. */
static int make_dir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *c = path + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
        *c = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Writes f into dir; 0, or 2 after printing why. */
static int write_file(const char *dir, const proto_file *f, int force)
{
    char path[4096];
    snprintf(path, sizeof path, "%.3800s/%.255s", dir, f->name);
    FILE *out = fopen(path, force ? "w" : "wx");
    if (out == NULL) {
        if (errno == EEXIST)
            fprintf(stderr, "locksim scripts: %s exists (--force writes over it)\n", path);
        else
            fprintf(stderr, "locksim scripts: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    int bad = fwrite(f->text, 1, f->len, out) != f->len;
    if (fclose(out) != 0 || bad) {
        fprintf(stderr, "locksim scripts: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    return 0;
}

int cli_scripts(int argc, char **argv)
{
    const char *pos[2];
    int npos = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--force")) force = 1;
        else if (argv[i][0] == '-' && argv[i][1] != '\0') return cli_usage_error("scripts", USAGE, "unknown option %s", argv[i]);
        else if (npos == 2) return cli_usage_error("scripts", USAGE, "one protocol and one folder (got also %s)", argv[i]);
        else pos[npos++] = argv[i];
    }
    if (npos < 2) return cli_usage_error("scripts", USAGE, "%s", npos ? "which folder? (DIR)" : "which protocol?");
    const proto_def *pd = proto_find(pos[0]);
    if (pd == NULL) {
        char why[300];
        fprintf(stderr, "locksim scripts: %s\n", proto_unknown_reason(pos[0], why, sizeof why));
        return 2;
    }
    proto_file files[MAX_FILES];
    char why[600];
    int n = proto_script_files(pd, files, MAX_FILES, why, sizeof why);
    if (n < 0) {
        fprintf(stderr, "locksim scripts: %s\n", why);
        return 2;
    }
    sim_assert(n <= MAX_FILES);
    if (n == 0) {
        fprintf(stderr, "locksim scripts: %s runs no Lua script (nothing to patch)\n", pd->name);
        return 2;
    }
    int rc = 0;
    if (make_dir(pos[1]) != 0) {
        fprintf(stderr, "locksim scripts: cannot create the folder %s: %s\n", pos[1], strerror(errno));
        rc = 2;
    }
    for (int i = 0; i < n && rc == 0 && !force; i++) { /* all or nothing */
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%.3800s/%.255s", pos[1], files[i].name);
        if (stat(path, &st) == 0) {
            fprintf(stderr, "locksim scripts: %s exists (--force writes over it)\n", path);
            rc = 2;
        }
    }
    for (int i = 0; i < n && rc == 0; i++) rc = write_file(pos[1], &files[i], force);
    if (rc == 0) {
        printf("wrote %d file%s of %s into %s:", n, n > 1 ? "s" : "", pd->name, pos[1]);
        for (int i = 0; i < n; i++) printf(" %s", files[i].name);
        const char *last = files[n - 1].name;
        if (strlen(last) > 5 && !strcmp(last + strlen(last) - 5, ".lock")) /* a lock policy's copy */
            printf("\n  patch them, then: [protocol] name = %s/%s\n", pos[1], last);
        else
            printf("\n  patch them, then: [protocol] scripts = %s (or locksim run SCENARIO --scripts %s)\n", pos[1],
                   pos[1]);
    }
    for (int i = 0; i < n; i++) proto_file_free(&files[i]);
    return rc;
}
