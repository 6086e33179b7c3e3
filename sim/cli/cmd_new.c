/* cmd_new.c — `locksim new [TEMPLATE FILE]`: the scenario templates for
 * the common questions (scenarios/templates, carried by the binary):
 * without arguments, their names and what each asks; with them, the
 * template written to FILE (never over an existing file), ready to run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "protocols/protocol.h"
#include "sim/cli/cli.h"

#define TEMPLATES "scenarios/templates/"

/* The template named name ("gc-pause"), or NULL. */
static const proto_bundle_file *find(const char *name)
{
    size_t n = strlen(TEMPLATES);
    for (const proto_bundle_file *f = proto_bundle; f->path; f++) {
        if (strncmp(f->path, TEMPLATES, n) != 0) continue;
        const char *base = f->path + n;
        size_t len = strcspn(base, ".");
        if (strlen(name) == len && !strncmp(base, name, len)) return f;
    }
    return NULL;
}

/* The text after "# NAME — " on the template's first line. */
static void what(const proto_bundle_file *f, char *buf, size_t cap)
{
    const char *dash = strstr(f->text, "— ");
    const char *start = dash && dash < f->text + f->len ? dash + strlen("— ") : f->text;
    size_t n = 0;
    for (const char *p = start; p < f->text + f->len && *p != '\n' && n + 1 < cap; p++) buf[n++] = *p;
    buf[n] = '\0';
}

static void list(FILE *out)
{
    fprintf(out, "templates (locksim new TEMPLATE FILE):\n");
    size_t n = strlen(TEMPLATES);
    for (const proto_bundle_file *f = proto_bundle; f->path; f++) {
        if (strncmp(f->path, TEMPLATES, n) != 0) continue;
        char about[200];
        what(f, about, sizeof about);
        fprintf(out, "  %-20.*s %s\n", (int)strcspn(f->path + n, "."), f->path + n, about);
    }
}

int cli_new(int argc, char **argv)
{
    if (argc == 1) {
        list(stdout);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "locksim new: give a template and a file to write (locksim new TEMPLATE FILE)\n");
        list(stderr);
        return 2;
    }
    const proto_bundle_file *t = find(argv[1]);
    if (t == NULL) {
        const char *names[32];
        size_t k = 0, n = strlen(TEMPLATES);
        static char bases[32][64];
        for (const proto_bundle_file *f = proto_bundle; f->path && k < 32; f++)
            if (!strncmp(f->path, TEMPLATES, n)) {
                snprintf(bases[k], sizeof bases[k], "%.*s", (int)strcspn(f->path + n, "."), f->path + n);
                names[k] = bases[k];
                k++;
            }
        const char *near = sim_closest(argv[1], names, k);
        fprintf(stderr, "locksim new: no template '%s'%s%s%s\n", argv[1], near ? " (did you mean " : "",
                near ? near : "", near ? "?)" : "");
        list(stderr);
        return 2;
    }
    struct stat st;
    if (stat(argv[2], &st) == 0) {
        fprintf(stderr, "locksim new: %s exists: choose another name (it is never overwritten)\n", argv[2]);
        return 2;
    }
    FILE *f = fopen(argv[2], "wx");
    if (f == NULL) {
        fprintf(stderr, "locksim new: cannot write %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    int bad = fwrite(t->text, 1, t->len, f) != t->len;
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "locksim new: cannot write %s: %s\n", argv[2], strerror(errno));
        remove(argv[2]);
        return 2;
    }
    char about[200];
    what(t, about, sizeof about);
    printf("wrote %s: %s\n  run it: locksim run %s\n", argv[2], about, argv[2]);
    return 0;
}
