/* pool.h — the worker pool: an ordered list of work items (the (scenario,
 * seed) pairs of `locksim run`, the points of `locksim sweep`) run in this
 * process or in N forked workers, their results written in list order
 * whatever N is; and which slice of the list a shard runs (--shard I/N or
 * the environment). */
#ifndef LOCKSIM_POOL_H
#define LOCKSIM_POOL_H

#include <stddef.h>
#include <stdint.h>

/* The outcome of one item: status 0 (met every expectation), 1 (did not)
 * or 2 (could not run: the sweep stops there); out goes to stdout, err to
 * stderr; rec is a record for the caller's on_result (the run's JSON
 * line), not printed. All three malloc'ed (sim_xmalloc) or NULL, owned by
 * the engine. */
typedef struct pool_result {
    int status;
    int partial;      /* the item stopped at a stop signal: out holds what it did (written) */
    char *out, *err, *rec;
    size_t out_len, err_len, rec_len;
} pool_result;

/* Marks res as an item that could not run (status 2) with text (a line,
 * copied) for stderr. */
void pool_result_fail(pool_result *res, const char *text);

/* Runs item k of the list, filling *res (zeroed by the caller). Called in
 * a worker process when jobs > 1, so it must not write to stdout. */
typedef void (*pool_run_fn)(void *arg, size_t k, pool_result *res);
/* Names item k for messages ("scenarios/a.scn seed 3"). */
typedef void (*pool_label_fn)(void *arg, size_t k, char *buf, size_t cap);

/* Called in this process for each item in list order, just before its
 * out and err are written (it may print to stdout itself). */
typedef void (*pool_result_fn)(void *arg, size_t k, const pool_result *res);

typedef struct pool_opts {
    unsigned jobs;        /* 1: run in this process; N: N forked workers */
    int stop_on_failure;  /* stop after the first item (in list order) with status 1 */
    int progress;         /* draw a progress bar on stderr */
    pool_result_fn on_result; /* or NULL */
    void *on_result_arg;
} pool_opts;

/* Whether to draw progress: force > 0 yes, force < 0 no, 0 when both
 * stdout and stderr are terminals (nothing of it goes to files or pipes). */
int pool_progress_wanted(int force);

#define POOL_JOBS_MAX 256

/* Runs items 0..n-1 and writes each one's out and err, in list order, as
 * soon as every item before it is written; stops after an item of status
 * 2, or of status 1 with stop_on_failure, writing nothing beyond it. A
 * worker that dies is reported as status 2 on the item it was running.
 * SIGINT, SIGTERM or SIGHUP stop the sweep: the items that finished are
 * written (in order), the running ones are stopped (a worker's process
 * group: its children too) and dropped, every worker is reaped, and
 * pool_interrupted() says so. Returns the highest status written (0, 1
 * or 2); *runs and *failed count the items written with status 0 or 1,
 * and with 1. */
int pool_run(const pool_opts *o, size_t n, pool_run_fn run, pool_label_fn label, void *arg,
                  uint64_t *runs /* OUT */, uint64_t *failed /* OUT */);

/* 1 when a signal stopped the last pool_run. */
int pool_interrupted(void);
/* on = 1: the stop signals are caught from now on, between pool_runs too
 * (a command that works between its sweeps, as hunt shrinks), and a
 * signal stays seen across them; 0: as before. */
void pool_hold_stops(int on);
/* The stop signal received while a pool runs (SIGINT, SIGTERM, SIGHUP),
 * or 0: what a long item looks at to stop early (guard.c). */
int pool_stop_signal(void);

/* The shard this run is: from arg ("I/N", 1-based) when not NULL, else
 * from LOCKSIM_SHARD (I/N), JOB_COMPLETION_INDEX (0-based, with
 * LOCKSIM_SHARDS), or SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_COUNT and
 * SLURM_ARRAY_TASK_MIN), in that order; *index is 0-based, *count 1 when
 * none is set. *from names the source ("--shard", a variable). Returns 0,
 * or -1 with a message in why (cap bytes). Item k is in the shard when
 * k % count == index. */
int pool_shard(const char *arg, unsigned *index /* OUT */, unsigned *count /* OUT */,
                const char **from /* OUT */, char *why, size_t cap);

#endif /* LOCKSIM_POOL_H */
