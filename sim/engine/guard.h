/* guard.h — watching one run from outside the simulation: a stop signal
 * (SIGINT, SIGTERM, SIGHUP) ends it at the next look with what ran judged
 * and a replay command; the event and memory budgets end it with a message
 * naming the budget, the virtual time reached and how to raise it; on a
 * terminal, a progress line (virtual time, events/s, memory). And what a
 * budget refuses before a run starts (guard_refuse_size). */
#ifndef LOCKSIM_GUARD_H
#define LOCKSIM_GUARD_H

#include "sim/engine/run.h"

typedef struct run_guard {
    const scenario *s;
    uint64_t seed;
    uint64_t max_events;
    long max_kb;          /* 0: no memory budget */
    int progress, drawn;
    int64_t last_draw_us;
    uint64_t last_events;
    uint64_t looks;
    int halted;           /* RUN_HALT_* (0: running, or ended by itself) */
    sim_ctx *ctx;         /* the run watched */
    int signal;
    char why[400];
} run_guard;

/* Starts watching the run of s on ctx (sim_set_poll) with o's budgets. */
void guard_begin(run_guard *g, sim_ctx *ctx, const scenario *s, uint64_t seed, const run_opts *o);
/* Stops watching; clears the progress line. */
void guard_end(run_guard *g, sim_ctx *ctx);

/* The budgets o sets (their defaults when 0; RUN_UNLIMITED: none, which
 * guard_max_events says as UINT64_MAX and guard_max_kb as 0). */
uint64_t guard_max_events(const run_opts *o);
long guard_max_kb(const run_opts *o);
/* "1.5 GB", "340 MB". */
void guard_size_text(long kb, char *buf, size_t cap);
/* 0, or -1 with "path: why" in buf when s cannot fit the memory budget
 * before its first event (its clients and threads alone). */
int guard_refuse_size(const scenario *s, const run_opts *o, char *buf, size_t cap);

#endif /* LOCKSIM_GUARD_H */
