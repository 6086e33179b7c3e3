/* gnuplot.c — the files behind every picture (NAME.gp, NAME.dat), the
 * gnuplot process that renders them and the render.sh that renders them
 * again: one script draws its body twice, as PNG (pngcairo) and as SVG,
 * so one file is all a user restyles. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reports/report.h"
#include "sim/kernel/host.h"

void report_plots_add(report_plots *p, const char *name, const char *title)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->v = sim_xrealloc(p->v, p->cap * sizeof *p->v);
    }
    report_plot *x = &p->v[p->n++];
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->title, sizeof x->title, "%s", title);
}

void report_plots_free(report_plots *p)
{
    sim_xfree(p->v);
    memset(p, 0, sizeof *p);
}

static FILE *open_in(const char *dir, const char *name, const char *ext, char *why, size_t cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "w");
    if (f == NULL) snprintf(why, cap, "cannot write %s: %s", path, strerror(errno));
    return f;
}

void report_gp_str(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', gp); /* '' is a quote inside '...' */
        if (*s == '\n') continue;
        fputc(*s, gp);
    }
    fputc('\'', gp);
}

FILE *report_gp_open(const char *dir, const char *name, const char *what, int width, int height, char *why,
                     size_t cap)
{
    FILE *gp = open_in(dir, name, "gp", why, cap);
    if (gp == NULL) return NULL;
    fprintf(gp,
            "# %s.gp: %s\n"
            "# Data: %s.dat. Render in this folder: gnuplot %s.gp (writes %s.png and %s.svg).\n"
            "reset\n"
            "W = %d; H = %d\n"
            "do for [fmt in \"png svg\"] {\n"
            "if (fmt eq \"png\") {\n"
            "    set terminal pngcairo size W,H font 'DejaVu Sans,9' noenhanced background '#ffffff'\n"
            "} else {\n"
            "    set terminal svg size W,H font 'DejaVu Sans,9' noenhanced background '#ffffff'\n"
            "}\n"
            "set output '%s.'.fmt\n",
            name, what, name, name, name, name, width, height, name);
    return gp;
}

/* Closes f, DIR/NAME.EXT; -1 with why when a write failed. */
static int close_in(FILE *f, const char *dir, const char *name, const char *ext, char *why, size_t cap)
{
    int bad = ferror(f);
    if (fclose(f) == 0 && !bad) return 0;
    snprintf(why, cap, "cannot write %s/%s.%s", dir, name, ext);
    return -1;
}

int report_gp_close(FILE *gp, const char *dir, const char *name, char *why, size_t cap)
{
    fputs("unset multiplot\nunset output\n}\n", gp);
    return close_in(gp, dir, name, "gp", why, cap);
}

FILE *report_dat_open(const char *dir, const char *name, const char *what, char *why, size_t cap)
{
    FILE *f = open_in(dir, name, "dat", why, cap);
    if (f) fprintf(f, "# %s.dat: %s\n", name, what);
    return f;
}

int report_dat_close(FILE *dat, const char *dir, const char *name, char *why, size_t cap)
{
    return close_in(dat, dir, name, "dat", why, cap);
}

int report_gnuplot_found(void)
{
    return host_program_found("gnuplot");
}

/* The first line of dir/gnuplot.log into why (what gnuplot complained of). */
static void first_error(const char *log, char *why, size_t cap)
{
    FILE *f = fopen(log, "r");
    char line[512] = "";
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "rror") || strstr(line, "line ")) break;
    if (f) fclose(f);
    line[strcspn(line, "\n")] = '\0';
    snprintf(why, cap, "gnuplot failed (%s): %s", log, line[0] ? line : "no message");
}

/* Child: in dir, stdout to nothing, stderr to the log, exec gnuplot. */
static void child(const char *dir, const char *log, const report_plots *p)
{
    int devnull = open("/dev/null", O_RDWR);
    int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (chdir(dir) != 0 || devnull < 0 || logfd < 0) _exit(126);
    dup2(devnull, STDIN_FILENO);
    dup2(devnull, STDOUT_FILENO);
    dup2(logfd, STDERR_FILENO);
    char **argv = sim_xcalloc(p->n + 2, sizeof *argv);
    argv[0] = "gnuplot";
    for (size_t i = 0; i < p->n; i++) {
        argv[i + 1] = sim_xmalloc(strlen(p->v[i].name) + 4);
        sprintf(argv[i + 1], "%s.gp", p->v[i].name);
    }
    execvp("gnuplot", argv);
    _exit(127);
}

int report_gnuplot_render(const char *dir, const report_plots *p, int timeout_s, char *why, size_t cap)
{
    if (p->n == 0) return 0;
    if (!report_gnuplot_found()) {
        snprintf(why, cap, "gnuplot is not installed");
        return 1;
    }
    char log[4096];
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, cap, "cannot start gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) child(dir, log, p);
    int st = 0;
    struct timespec tick = {0, 5 * 1000 * 1000};
    long waited_ms = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
        if (waited_ms >= (long)timeout_s * 1000) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            snprintf(why, cap, "gnuplot did not finish within %ds (in %s)", timeout_s, dir);
            return -1;
        }
        nanosleep(&tick, NULL);
        waited_ms += 5;
    }
    if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        first_error(log, why, cap);
        return -1;
    }
    remove(log); /* nothing to keep: it rendered */
    return 0;
}

int report_render_sh(const char *dir, const char *globs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/render.sh", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) return -1;
    fprintf(f,
            "#!/bin/sh\n"
            "# render.sh: draws this report's pictures with gnuplot (each .gp writes its .png and .svg\n"
            "# beside it), e.g. after restyling a script. Needs gnuplot (Debian: gnuplot-nox).\n"
            "set -e\ncd \"$(dirname \"$0\")\"\n"
            "for gp in %s; do\n"
            "    [ -e \"$gp\" ] || continue\n"
            "    (cd \"$(dirname \"$gp\")\" && gnuplot \"$(basename \"$gp\")\")\n"
            "done\n",
            globs);
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}
