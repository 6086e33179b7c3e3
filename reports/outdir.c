/* outdir.c — report folders and files written under a temporary name and
 * renamed into place when complete (report.h). The marker file
 * .locksim-report says a folder is ours to replace. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/report.h"
#include "sim/kernel/sim.h"

#define MARKER ".locksim-report"

static char *with_suffix(const char *path, const char *what)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--; /* "out/" names "out" */
    size_t cap = len + 64;
    char *s = sim_xmalloc(cap);
    snprintf(s, cap, "%.*s.%s-%ld", (int)len, path, what, (long)getpid());
    return s;
}

int report_mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_tree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 when dir exists and is empty, 0 when not empty, -1 when absent or no folder. */
static int is_empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    struct dirent *de;
    int empty = 1;
    while (empty && (de = readdir(d)) != NULL)
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

int report_outdir_open(report_outdir *o, const char *dir, char *why, size_t cap)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if (stat(dir, &st) == 0) {
        char marker[4096];
        snprintf(marker, sizeof marker, "%s/%s", dir, MARKER);
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, cap, "%s exists and is not a folder", dir);
            return -1;
        }
        if (access(marker, F_OK) != 0 && is_empty_dir(dir) != 1) {
            snprintf(why, cap, "%s exists and is not a locksim report: give a new or empty folder", dir);
            return -1;
        }
    }
    o->final = sim_xstrdup(dir);
    o->tmp = with_suffix(dir, "tmp");
    rm_tree(o->tmp);
    if (report_mkdirs(o->tmp) != 0) {
        snprintf(why, cap, "cannot create %s: %s", o->tmp, strerror(errno));
        report_outdir_abort(o);
        return -1;
    }
    return 0;
}

int report_outdir_begin(report_outdir *o, const char *dir, const char *who)
{
    char why[4500];
    if (report_outdir_open(o, dir, why, sizeof why) == 0) return 0;
    fprintf(stderr, "%s: %s\n", who, why);
    return 2;
}

void report_outdir_abort(report_outdir *o)
{
    if (o->tmp) rm_tree(o->tmp);
    sim_xfree(o->tmp);
    sim_xfree(o->final);
    memset(o, 0, sizeof *o);
}

int report_outdir_close(report_outdir *o, char *why, size_t cap)
{
    char marker[4096];
    snprintf(marker, sizeof marker, "%s/%s", o->tmp, MARKER);
    FILE *m = fopen(marker, "w");
    if (m) fputs("a locksim report: `locksim run|sweep|hunt --report` may replace this folder\n", m);
    if (m == NULL || fclose(m) != 0) {
        snprintf(why, cap, "cannot write %s: %s", marker, strerror(errno));
        report_outdir_abort(o);
        return -1;
    }
    char *old = NULL;
    struct stat st;
    if (stat(o->final, &st) == 0) { /* an earlier report (checked at begin) */
        old = with_suffix(o->final, "old");
        if (rename(o->final, old) != 0) {
            snprintf(why, cap, "cannot move the earlier %s aside: %s", o->final, strerror(errno));
            sim_xfree(old);
            report_outdir_abort(o);
            return -1;
        }
    }
    if (rename(o->tmp, o->final) != 0) {
        snprintf(why, cap, "cannot rename %s to %s: %s", o->tmp, o->final, strerror(errno));
        if (old && rename(old, o->final) != 0) rm_tree(old);
        sim_xfree(old);
        report_outdir_abort(o);
        return -1;
    }
    if (old) rm_tree(old);
    sim_xfree(old);
    sim_xfree(o->tmp);
    o->tmp = NULL;
    report_outdir_abort(o);
    return 0;
}

int report_outdir_commit(report_outdir *o, const char *who)
{
    char why[9000];
    if (report_outdir_close(o, why, sizeof why) == 0) return 0;
    fprintf(stderr, "%s: %s\n", who, why);
    return 2;
}

int report_outfile_begin(report_outfile *o, const char *path, const char *who)
{
    memset(o, 0, sizeof *o);
    o->final = sim_xstrdup(path);
    o->tmp = with_suffix(path, "tmp");
    char *slash = strrchr(o->final, '/');
    if (slash && slash != o->final) { /* its folder, as --report makes its own */
        *slash = '\0';
        report_mkdirs(o->final);
        *slash = '/';
    }
    o->f = fopen(o->tmp, "w");
    if (o->f == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, path, strerror(errno));
        sim_xfree(o->tmp);
        o->tmp = NULL;
        report_outfile_abort(o);
        return 2;
    }
    return 0;
}

void report_outfile_abort(report_outfile *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    sim_xfree(o->tmp);
    sim_xfree(o->final);
    memset(o, 0, sizeof *o);
}

int report_outfile_commit(report_outfile *o, const char *who)
{
    int bad = ferror(o->f);
    int rc = fclose(o->f);
    o->f = NULL;
    if (bad || rc != 0 || rename(o->tmp, o->final) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, o->final, strerror(errno ? errno : EIO));
        report_outfile_abort(o);
        return 2;
    }
    sim_xfree(o->tmp);
    o->tmp = NULL;
    report_outfile_abort(o);
    return 0;
}
