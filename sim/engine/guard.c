/* guard.c — what watches one run from outside the simulation (guard.h):
 * a stop signal, the event and memory budgets, and a progress line on a
 * terminal. It looks every GUARD_EVERY events; a run it does not stop goes
 * exactly as without it (it reads, it never acts on the simulation). */
#include <stdio.h>
#include <string.h>

#include "sim/engine/guard.h"
#include "sim/engine/pool.h"
#include "sim/kernel/host.h"

#define GUARD_EVERY 4096
#define DRAW_EVERY_US 500000 /* the progress line: twice a second */

uint64_t guard_max_events(const run_opts *o)
{
    if (o == NULL || o->max_events == 0) return RUN_MAX_EVENTS_DEFAULT;
    return o->max_events == RUN_UNLIMITED ? UINT64_MAX : o->max_events;
}

long guard_max_kb(const run_opts *o)
{
    if (o != NULL && o->max_memory_kb == (long)RUN_UNLIMITED) return 0;
    if (o != NULL && o->max_memory_kb > 0) return o->max_memory_kb;
    long phys = host_phys_kb(), cap = 4L * 1024 * 1024; /* 4 GB, or half the machine when it has less */
    return phys > 0 && phys / 2 < cap ? phys / 2 : cap;
}

void guard_size_text(long kb, char *buf, size_t cap)
{
    if (kb >= 1024L * 1024) snprintf(buf, cap, "%.1f GB", (double)kb / (1024.0 * 1024.0));
    else snprintf(buf, cap, "%.0f MB", (double)kb / 1024.0);
}

static void progress_clear(run_guard *g)
{
    if (g->drawn) fprintf(stderr, "\r%*s\r", 100, "");
    g->drawn = 0;
}

static void draw(run_guard *g, sim_ctx *ctx, long kb)
{
    int64_t now = host_mono_us();
    if (now - g->last_draw_us < DRAW_EVERY_US) return;
    uint64_t events = sim_events_run(ctx);
    double rate = now > g->last_draw_us ? (double)(events - g->last_events) * 1e6 / (double)(now - g->last_draw_us) : 0;
    char at[32], of[32], mem[32];
    scn_duration_format(sim_now(ctx), at, sizeof at);
    scn_duration_format(g->s->duration_us, of, sizeof of);
    guard_size_text(kb, mem, sizeof mem);
    fprintf(stderr, "\r  run: virtual %s of %s (%.0f%%) · %llu events, %.0fk/s · %s   ", at, of,
            g->s->duration_us ? 100.0 * (double)sim_now(ctx) / (double)g->s->duration_us : 0.0,
            (unsigned long long)events, rate / 1000.0, mem);
    fflush(stderr);
    g->drawn = 1;
    g->last_draw_us = now;
    g->last_events = events;
}

/* "at virtual 12.3s of 1h (seed 7)" */
static size_t where(const run_guard *g, sim_ctx *ctx, char *buf, size_t cap)
{
    char at[32], of[32];
    scn_duration_format(sim_now(ctx), at, sizeof at);
    scn_duration_format(g->s->duration_us, of, sizeof of);
    return (size_t)snprintf(buf, cap, "at virtual %s of %s (seed %llu)", at, of, (unsigned long long)g->seed);
}

static void halt(run_guard *g, sim_ctx *ctx, int why)
{
    g->halted = why;
    sim_stop(ctx);
}

static void poll(void *ud, sim_ctx *ctx)
{
    run_guard *g = ud;
    int sig = pool_stop_signal();
    char at[160];
    if (sig) {
        where(g, ctx, at, sizeof at);
        char h[32];
        scn_duration_format(sim_now(ctx), h, sizeof h);
        snprintf(g->why, sizeof g->why, "interrupted by signal %d (%s) %s; what ran until then is judged; "
                                        "replay: locksim replay %s --seed %llu --horizon %s",
                 sig, sig == 2 ? "SIGINT" : sig == 15 ? "SIGTERM" : sig == 1 ? "SIGHUP" : "?", at, g->s->path,
                 (unsigned long long)g->seed, h);
        g->signal = sig;
        halt(g, ctx, RUN_HALT_SIGNAL);
        return;
    }
    if (sim_events_run(ctx) >= g->max_events) {
        where(g, ctx, at, sizeof at);
        snprintf(g->why, sizeof g->why, "the event budget of %llu events ran out %s; raise it with --max-events N "
                                        "(0: no limit), or run less of it (--horizon)",
                 (unsigned long long)g->max_events, at);
        halt(g, ctx, RUN_HALT_EVENTS);
        return;
    }
    /* Memory is read every 16th look (a file read: about 10 µs), progress
     * or not: a run of a million events reads it fifteen times. */
    if (++g->looks % 16 != 0) return;
    long kb = g->max_kb || g->progress ? host_rss_kb() : 0;
    if (g->max_kb && kb > g->max_kb) {
        char budget[32], used[32];
        where(g, ctx, at, sizeof at);
        guard_size_text(g->max_kb, budget, sizeof budget);
        guard_size_text(kb, used, sizeof used);
        snprintf(g->why, sizeof g->why, "the memory budget of %s ran out (%s resident) %s; raise it with "
                                        "--max-memory SIZE (e.g. 8G; 0: no limit), or run less of it (--horizon)",
                 budget, used, at);
        halt(g, ctx, RUN_HALT_MEMORY);
        return;
    }
    if (g->progress) draw(g, ctx, kb);
}

/* Asked from inside a long event (a script's instruction hook): a stop
 * signal ends the script at once, and the run after that event (the
 * look a poll makes, now: sim_stop is all it does to the run). */
static int signalled(void *ud)
{
    run_guard *g = ud;
    if (pool_stop_signal() == 0) return 0;
    if (!g->halted) poll(g, g->ctx);
    return 1;
}

void guard_begin(run_guard *g, sim_ctx *ctx, const scenario *s, uint64_t seed, const run_opts *o)
{
    memset(g, 0, sizeof *g);
    g->s = s;
    g->seed = seed;
    g->max_events = guard_max_events(o);
    g->max_kb = guard_max_kb(o);
    g->progress = o && o->progress;
    g->last_draw_us = host_mono_us();
    sim_set_poll(ctx, poll, g, GUARD_EVERY);
    g->ctx = ctx;
    sim_set_interrupt(ctx, signalled, g);
}

void guard_end(run_guard *g, sim_ctx *ctx)
{
    progress_clear(g);
    sim_set_poll(ctx, NULL, NULL, 0);
    sim_set_interrupt(ctx, NULL, NULL);
}

/* Static memory of a run: measured on redisson.lock (sim/cli's 30,000
 * clients: 90 MB; 10 threads each: +54 MB per 10,000 clients). */
#define BASE_KB 8192L
#define CLIENT_KB 3L
#define THREAD_KB 1L

int guard_refuse_size(const scenario *s, const run_opts *o, char *buf, size_t cap)
{
    long max = guard_max_kb(o);
    if (max == 0) return 0;
    long clients = scn_max_client(s), threads = clients * s->threads;
    long need = BASE_KB + clients * CLIENT_KB + threads * THREAD_KB;
    if (need <= max) return 0;
    char n[32], m[32];
    guard_size_text(need, n, sizeof n);
    guard_size_text(max, m, sizeof m);
    snprintf(buf, cap, "%s: %ld clients x %d thread%s need about %s before the first event (about %ld KB a client "
                       "and %ld KB a thread), more than the memory budget of %s: raise it with --max-memory SIZE, "
                       "or use fewer clients",
             s->path, clients, s->threads, s->threads == 1 ? "" : "s", n, CLIENT_KB, THREAD_KB, m);
    return -1;
}
