/* pool.c — the worker pool (pool.h): items run in this process, or in
 * forked workers fed one item at a time over a socketpair each; results
 * come back in any order and are written in list order.
 *
 * Invariant: items are handed out in increasing order and never beyond
 * next_emit + window, so at most window results wait in the ring, slot
 * k % window; item k is written only once every item before it is. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/engine/pool.h"
#include "sim/kernel/host.h"
#include "sim/kernel/sim.h"
#include "sim/real/servers.h"

#define NONE ((size_t)-1)

/* What a worker sends back per item, followed by out_len + err_len bytes. */
typedef struct wire_head {
    uint64_t k;
    int32_t status;
    uint32_t pad;
    uint64_t out_len, err_len, rec_len;
} wire_head;

typedef struct worker {
    pid_t pid;  /* 0 once reaped */
    int fd;     /* the parent's end, -1 once closed */
    size_t cur; /* the item it runs, NONE when idle */
} worker;

/* Writing results in order, and the progress bar. */
typedef struct emitter {
    const pool_opts *o;
    int progress, stdout_tty, drawn;
    int64_t t0_us, drawn_us;
    size_t total, next;
    uint64_t runs, failed;
} emitter;

#define BAR_WIDTH 28

/* ----------------------------------------------------------- signals */

/* Set by SIGINT / SIGTERM / SIGHUP while a sweep runs: a signal flag is the
 * one global a handler may touch. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    stop_requested = sig ? sig : SIGTERM;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

static int stops_held; /* pool_hold_stops: a command catches them between its pools too */
static struct sigaction held_old[NSTOP];

/* Catches the stop signals (poll is interrupted, not restarted); old
 * gets what was there before. */
static void catch_stops(struct sigaction *old)
{
    if (!stops_held) stop_requested = 0;
    for (size_t i = 0; i < NSTOP; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        sigaction(stop_signals[i], &sa, &old[i]);
    }
    real_servers_set_signal_hook(on_stop); /* the real backend stops its servers, then us */
}

static void release_stops(const struct sigaction *old)
{
    real_servers_set_signal_hook(NULL);
    for (size_t i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &old[i], NULL);
}

void pool_hold_stops(int on)
{
    sim_assert(stops_held != on);
    if (on) catch_stops(held_old);
    else release_stops(held_old);
    stops_held = on;
}

int pool_interrupted(void)
{
    return stop_requested != 0;
}

int pool_stop_signal(void)
{
    return stop_requested;
}

int pool_progress_wanted(int force)
{
    if (force) return force > 0;
    return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
}

void pool_result_fail(pool_result *res, const char *text)
{
    res->status = 2;
    res->err = sim_xstrdup(text);
    res->err_len = strlen(text);
}

/* ------------------------------------------------------------ output */

static void progress_clear(emitter *e)
{
    if (!e->drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    e->drawn = 0;
}

/* Redraws the progress line; when it is on screen, at most every 200ms. */
static void progress_draw(emitter *e)
{
    if (!e->progress) return;
    int64_t now = host_mono_us();
    if (e->drawn && now - e->drawn_us < 200000) return;
    double secs = (double)(now - e->t0_us) / 1e6;
    double rate = secs > 0 ? (double)e->runs / secs : 0;
    char eta[32] = "?";
    if (rate > 0) {
        long left = (long)((double)(e->total - e->runs) / rate + 0.5);
        if (left >= 3600) snprintf(eta, sizeof eta, "%ldh%02ldm", left / 3600, left / 60 % 60);
        else if (left >= 60) snprintf(eta, sizeof eta, "%ldm%02lds", left / 60, left % 60);
        else snprintf(eta, sizeof eta, "%lds", left);
    }
    char bar[BAR_WIDTH + 1];
    size_t full = e->total ? (size_t)(e->runs * BAR_WIDTH / e->total) : BAR_WIDTH;
    for (size_t i = 0; i < BAR_WIDTH; i++) bar[i] = i < full ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %llu/%zu runs, %llu failed, %.1f seeds/s, ETA %s", bar,
            (unsigned long long)e->runs, e->total, (unsigned long long)e->failed, rate, eta);
    fflush(stderr);
    e->drawn = 1;
    e->drawn_us = now;
}

/* Writes one result and frees its text; returns its status. */
static int emit(emitter *e, pool_result *r)
{
    if (r->err_len || e->stdout_tty) progress_clear(e);
    if (e->o->on_result) e->o->on_result(e->o->on_result_arg, e->next, r);
    e->next++;
    if (r->out_len) fwrite(r->out, 1, r->out_len, stdout);
    fflush(stdout);
    if (r->err_len) fwrite(r->err, 1, r->err_len, stderr);
    fflush(stderr);
    if (r->status != 2) {
        e->runs++;
        if (r->status) e->failed++;
    }
    sim_xfree(r->out);
    sim_xfree(r->err);
    sim_xfree(r->rec);
    progress_draw(e);
    return r->status;
}

static int ends_sweep(const pool_opts *o, int status)
{
    return status == 2 || (status == 1 && o->stop_on_failure);
}

static int run_here(const pool_opts *o, size_t n, pool_run_fn run, void *arg, emitter *e)
{
    int worst = 0;
    for (size_t k = 0; k < n && !stop_requested; k++) {
        pool_result r = {0};
        run(arg, k, &r);
        if (stop_requested && r.partial) { /* the run stopped at the signal: what ran is its result */
            int st = emit(e, &r);
            if (st > worst) worst = st;
            break;
        }
        if (stop_requested) { /* it ran while the sweep was being stopped: not a result */
            sim_xfree(r.out);
            sim_xfree(r.err);
            sim_xfree(r.rec);
            break;
        }
        int st = emit(e, &r);
        if (st > worst) worst = st;
        if (ends_sweep(o, st)) break;
    }
    return worst;
}

/* ----------------------------------------------------------- workers */

/* Reads len bytes unless EOF or an error comes first; returns what it read. */
static size_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

static int write_full(int fd, const void *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        buf = (const char *)buf + w;
        len -= (size_t)w;
    }
    return 0;
}

/* A worker stopped by the parent (SIGTERM) takes its children with it:
 * it leads its process group, so the group's signal reaches them
 * (gnuplot, its redis-servers); it reaps them (up to 2 s), then exits. */
static void worker_stop(int sig)
{
    signal(SIGTERM, SIG_IGN); /* the group's signal reaches this process too */
    kill(0, SIGTERM);
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 200; i++) {
        pid_t r = waitpid(-1, NULL, WNOHANG);
        if (r < 0) break; /* no child left */
        if (r == 0) nanosleep(&tick, NULL);
    }
    _exit(128 + sig);
}

/* A worker's life: read an item number, run it, send the result; leave on
 * EOF. _exit: the parent's stdio buffers (flushed before fork) and atexit
 * handlers are the parent's business. */
static void worker_main(int fd, pool_run_fn run, void *arg)
{
    uint64_t k;
    /* The parent stops the sweep, with SIGTERM (worker_stop; the real
     * backend's handler stops its servers first, then calls it). */
    real_servers_set_signal_hook(worker_stop);
    for (size_t i = 0; i < NSTOP; i++) signal(stop_signals[i], SIG_DFL);
    signal(SIGTERM, worker_stop);
    signal(SIGINT, SIG_IGN);
    while (read_full(fd, &k, sizeof k) == sizeof k) {
        pool_result r = {0};
        run(arg, (size_t)k, &r);
        wire_head h = {k, r.status, 0, r.out_len, r.err_len, r.rec_len};
        if (write_full(fd, &h, sizeof h) != 0 || write_full(fd, r.out, r.out_len) != 0 ||
            write_full(fd, r.err, r.err_len) != 0 || write_full(fd, r.rec, r.rec_len) != 0)
            _exit(1);
        sim_xfree(r.out);
        sim_xfree(r.err);
        sim_xfree(r.rec);
    }
    _exit(0);
}

/* Starts worker j; the earlier workers' sockets are closed in the child,
 * so each worker sees EOF as soon as the parent closes its end. */
static int spawn(worker *all, unsigned j, pool_run_fn run, void *arg)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(sv[0]);
        for (unsigned i = 0; i < j; i++) close(all[i].fd);
        worker_main(sv[1], run, arg);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    close(sv[1]);
    all[j] = (worker){.pid = pid, .fd = sv[0], .cur = NONE};
    return 0;
}

/* The result standing for a worker that died while it ran item k. */
static void lost(worker *w, pool_label_fn label, void *arg, pool_result *r)
{
    int ws = 0;
    close(w->fd);
    w->fd = -1;
    while (waitpid(w->pid, &ws, 0) < 0 && errno == EINTR) {}
    w->pid = 0;
    char what[512], how[64];
    label(arg, w->cur, what, sizeof what);
    if (WIFSIGNALED(ws)) snprintf(how, sizeof how, "signal %d, %s", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    else snprintf(how, sizeof how, "exit %d", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    char msg[700];
    int len = snprintf(msg, sizeof msg, "locksim run: a worker died (%s) running %s; run it alone with --jobs 1\n",
                       how, what);
    *r = (pool_result){.status = 2, .err = sim_xstrdup(msg), .err_len = (size_t)len};
    w->cur = NONE;
}

/* Reads worker w's result into *r; a short or unexpected message means
 * the worker died. */
static void receive(worker *w, pool_label_fn label, void *arg, pool_result *r)
{
    wire_head h;
    if (read_full(w->fd, &h, sizeof h) != sizeof h || h.k != w->cur || h.status < 0 || h.status > 2 ||
        h.out_len > ((size_t)1 << 32) || h.err_len > ((size_t)1 << 32) || h.rec_len > ((size_t)1 << 32)) {
        lost(w, label, arg, r);
        return;
    }
    *r = (pool_result){.status = h.status, .out_len = h.out_len, .err_len = h.err_len, .rec_len = h.rec_len};
    r->out = sim_xmalloc(h.out_len + 1);
    r->err = sim_xmalloc(h.err_len + 1);
    r->rec = sim_xmalloc(h.rec_len + 1);
    if (read_full(w->fd, r->out, h.out_len) != h.out_len || read_full(w->fd, r->err, h.err_len) != h.err_len ||
        read_full(w->fd, r->rec, h.rec_len) != h.rec_len) {
        sim_xfree(r->out);
        sim_xfree(r->err);
        sim_xfree(r->rec);
        lost(w, label, arg, r);
        return;
    }
    r->rec[h.rec_len] = '\0';
    w->cur = NONE;
}

typedef struct pool {
    worker *w;
    unsigned n;
    pool_result *ring;
    char *ready;
    size_t window, next_send, next_emit, stop_at;
} pool;

/* Gives each idle worker the next item, if it may be handed out. */
static void hand_out(pool *p, size_t n, pool_label_fn label, void *arg)
{
    for (unsigned i = 0; i < p->n; i++) {
        worker *w = &p->w[i];
        if (w->fd < 0 || w->cur != NONE || p->next_send >= n || p->next_send > p->stop_at ||
            p->next_send >= p->next_emit + p->window)
            continue;
        uint64_t k = p->next_send++;
        w->cur = (size_t)k;
        if (send(w->fd, &k, sizeof k, MSG_NOSIGNAL) != (ssize_t)sizeof k) {
            size_t slot = w->cur % p->window;
            lost(w, label, arg, &p->ring[slot]);
            p->ready[slot] = 1;
            if (k < p->stop_at) p->stop_at = k;
        }
    }
}

/* Waits for results and files them in the ring. Returns -1 if nothing is
 * running (cannot happen while the invariant holds). */
static int collect(pool *p, const pool_opts *o, pool_label_fn label, void *arg, struct pollfd *pf,
                   unsigned *who, emitter *e)
{
    unsigned m = 0;
    for (unsigned i = 0; i < p->n; i++)
        if (p->w[i].fd >= 0 && p->w[i].cur != NONE) {
            pf[m] = (struct pollfd){.fd = p->w[i].fd, .events = POLLIN};
            who[m++] = i;
        }
    if (m == 0) return -1;
    int r = poll(pf, m, e->progress ? 500 : -1);
    if (r < 0 && errno != EINTR) return -1;
    for (unsigned j = 0; r > 0 && j < m; j++) {
        if (!(pf[j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        worker *w = &p->w[who[j]];
        size_t k = w->cur, slot = k % p->window;
        receive(w, label, arg, &p->ring[slot]);
        p->ready[slot] = 1;
        if (ends_sweep(o, p->ring[slot].status) && k < p->stop_at) p->stop_at = k;
    }
    return 0;
}

static int run_workers(const pool_opts *o, size_t n, pool_run_fn run, pool_label_fn label, void *arg,
                       emitter *e)
{
    pool p = {.n = 0, .window = (size_t)o->jobs * 32, .stop_at = NONE};
    unsigned want = o->jobs < n ? o->jobs : (unsigned)n;
    p.w = sim_xcalloc(want, sizeof *p.w);
    fflush(NULL); /* no half-written stdio buffer is copied into a worker */
    while (p.n < want && spawn(p.w, p.n, run, arg) == 0) p.n++;
    if (p.n == 0) {
        sim_xfree(p.w);
        return run_here(o, n, run, arg, e); /* no fork: run here rather than not at all */
    }
    p.ring = sim_xcalloc(p.window, sizeof *p.ring);
    p.ready = sim_xcalloc(p.window, 1);
    struct pollfd *pf = sim_xcalloc(p.n, sizeof *pf);
    unsigned *who = sim_xcalloc(p.n, sizeof *who);
    int worst = 0;
    while (p.next_emit < n && p.next_emit <= p.stop_at && !stop_requested) {
        hand_out(&p, n, label, arg);
        size_t slot = p.next_emit % p.window;
        if (!p.ready[slot]) {
            if (collect(&p, o, label, arg, pf, who, e) != 0) break;
            progress_draw(e);
            continue;
        }
        p.ready[slot] = 0;
        int st = emit(e, &p.ring[slot]);
        if (st > worst) worst = st;
        p.next_emit++;
    }
    /* Stopped by a signal: what finished before it is written, in order. */
    while (stop_requested && p.next_emit < n && p.next_emit <= p.stop_at && p.ready[p.next_emit % p.window]) {
        p.ready[p.next_emit % p.window] = 0;
        int st = emit(e, &p.ring[p.next_emit % p.window]);
        if (st > worst) worst = st;
        p.next_emit++;
    }
    if (p.next_emit < n && p.next_emit <= p.stop_at && !stop_requested) {
        fprintf(stderr, "locksim run: the sweep ended early (no worker left)\n");
        worst = 2;
    }
    /* Workers still busy run items beyond the stop: end them, with their
     * children (gnuplot; a real backend worker's handler stops its servers). */
    for (unsigned i = 0; i < p.n; i++) {
        if (p.w[i].fd < 0) continue;
        if (p.w[i].cur != NONE) {
            kill(-p.w[i].pid, SIGTERM);
            if (stop_requested) { /* said, so that a killed CI job names what it did not finish */
                char what[256];
                label(arg, p.w[i].cur, what, sizeof what);
                fprintf(stderr, "locksim: stopped while running %s (not judged: run it alone to see it)\n", what);
            }
        }
        close(p.w[i].fd);
    }
    for (unsigned i = 0; i < p.n; i++)
        while (p.w[i].pid > 0 && waitpid(p.w[i].pid, NULL, 0) < 0 && errno == EINTR) {}
    for (size_t s = 0; s < p.window; s++)
        if (p.ready[s]) {
            sim_xfree(p.ring[s].out);
            sim_xfree(p.ring[s].err);
            sim_xfree(p.ring[s].rec);
        }
    sim_xfree(who);
    sim_xfree(pf);
    sim_xfree(p.ready);
    sim_xfree(p.ring);
    sim_xfree(p.w);
    return worst;
}

int pool_run(const pool_opts *o, size_t n, pool_run_fn run, pool_label_fn label, void *arg,
                  uint64_t *runs, uint64_t *failed)
{
    emitter e = {.o = o, .progress = o->progress, .stdout_tty = isatty(STDOUT_FILENO), .total = n};
    struct sigaction old[NSTOP];
    catch_stops(old);
    e.t0_us = host_mono_us();
    progress_draw(&e);
    int worst = o->jobs > 1 && n > 1 ? run_workers(o, n, run, label, arg, &e) : run_here(o, n, run, arg, &e);
    progress_clear(&e);
    release_stops(old);
    *runs = e.runs;
    *failed = e.failed;
    return worst;
}

/* ------------------------------------------------------------ shards */

/* A count from 0 (from1: from 1) up to 1e6, the whole string. */
static int parse_count(const char *s, int from1, unsigned *out)
{
    if (s == NULL || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > 1000000 || (from1 && v == 0)) return -1;
    *out = (unsigned)v;
    return 0;
}

/* "I/N", 1 <= I <= N. */
static int parse_slash(const char *s, unsigned *index, unsigned *count)
{
    const char *slash = strchr(s, '/');
    char first[32];
    if (slash == NULL || (size_t)(slash - s) >= sizeof first) return -1;
    memcpy(first, s, (size_t)(slash - s));
    first[slash - s] = '\0';
    unsigned i;
    if (parse_count(first, 1, &i) != 0 || parse_count(slash + 1, 1, count) != 0 || i > *count) return -1;
    *index = i - 1;
    return 0;
}

/* A 0-based index from variable idx_var, the count from cnt_var, less
 * min_var's value when that is set (Slurm arrays may start anywhere). */
static int from_index_env(const char *idx_var, const char *cnt_var, const char *min_var, unsigned *index,
                          unsigned *count, char *why, size_t cap)
{
    const char *iv = getenv(idx_var), *cv = getenv(cnt_var), *mv = min_var ? getenv(min_var) : NULL;
    unsigned i, base = 0;
    if (parse_count(iv, 0, &i) != 0) {
        snprintf(why, cap, "%s must be an index from 0 (got \"%s\")", idx_var, iv);
        return -1;
    }
    if (cv == NULL) {
        snprintf(why, cap, "%s=%s is set but %s (the number of shards) is not", idx_var, iv, cnt_var);
        return -1;
    }
    if (parse_count(cv, 1, count) != 0) {
        snprintf(why, cap, "%s must be a count from 1 (got \"%s\")", cnt_var, cv);
        return -1;
    }
    if (mv && (parse_count(mv, 0, &base) != 0 || base > i)) {
        snprintf(why, cap, "%s must be an index from 0, at most %s=%s (got \"%s\")", min_var, idx_var, iv, mv);
        return -1;
    }
    if (i - base >= *count) {
        snprintf(why, cap, "%s=%s is not below %s=%s", idx_var, iv, cnt_var, cv);
        return -1;
    }
    *index = i - base;
    return 0;
}

int pool_shard(const char *arg, unsigned *index, unsigned *count, const char **from, char *why, size_t cap)
{
    *index = 0;
    *count = 1;
    *from = NULL;
    const char *env = getenv("LOCKSIM_SHARD");
    if (arg || env) {
        *from = arg ? "--shard" : "LOCKSIM_SHARD";
        if (parse_slash(arg ? arg : env, index, count) == 0) return 0;
        snprintf(why, cap, "%s wants I/N with 1 <= I <= N (got \"%s\")", *from, arg ? arg : env);
        return -1;
    }
    if (getenv("JOB_COMPLETION_INDEX")) {
        *from = "JOB_COMPLETION_INDEX";
        return from_index_env("JOB_COMPLETION_INDEX", "LOCKSIM_SHARDS", NULL, index, count, why, cap);
    }
    if (getenv("SLURM_ARRAY_TASK_ID")) {
        *from = "SLURM_ARRAY_TASK_ID";
        return from_index_env("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", index,
                              count, why, cap);
    }
    return 0;
}
