/* report.h — the writers of what runs leave behind: the text summary and
 * the JSON line of a run, the series its pictures are drawn from, gnuplot
 * plots, the HTML pages (of runs, of a hunt), JUnit and TAP, and the rows
 * (JSON lines read back) that the writers of many runs use. They read
 * results; they judge nothing. */
#ifndef LOCKSIM_REPORT_H
#define LOCKSIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/engine/run.h"
#include "sim/history/history.h"
#include "sim/kernel/sim.h"
#include "sim/scn/scn.h"

/* ------------------------------------------------------------ results */

/* One JSON object on one line (the DESIGN contract, more fields welcome). */
void report_json(FILE *out, const run_result *r, const history *h);
/* Writes s as a JSON string (quotes, backslashes and control bytes
 * escaped); also a valid YAML double-quoted scalar. */
void report_json_str(FILE *out, const char *s);
/* The human summary of one run. */
void report_summary(FILE *out, const run_result *r, const history *h, int verbose);

/* ------------------------------------------------------------- series */

/* What the pictures of one run show, derived from its history on true
 * time. A hold runs as the checkers count it: from the ok of a thread's
 * outermost acquire (of a side, for read/write locks) to the invoke of its
 * last release, a force unlock or its process's crash; a semaphore's
 * acquire(n) is a share of its own. A wait runs from an acquire's (or an
 * await's) invoke to its ok / fail / crash. */
typedef enum report_span_kind {
    REPORT_HOLD,        /* exclusive: a lock, the write side */
    REPORT_HOLD_SHARED, /* the read side, semaphore permits */
    REPORT_WAIT,        /* an acquire or await in progress */
    REPORT_MARK         /* an instant operation (countDown) */
} report_span_kind;

typedef enum report_outcome {
    REPORT_ACQUIRED,  /* ok */
    REPORT_TIMED_OUT, /* tryLock's wait ran out ("not acquired") */
    REPORT_ERROR,     /* any other failure */
    REPORT_UNFINISHED /* still running at the end, or cut by a crash */
} report_outcome;

typedef struct report_span {
    report_span_kind kind;
    report_outcome outcome; /* waits */
    int acquire;            /* waits: an acquire (1), an await (0) */
    int client, thread, lock;
    int mode;               /* SCN_RW_READ / SCN_RW_WRITE, 0 */
    int64_t n;              /* semaphore permits, 0 */
    int64_t from_us, to_us; /* open at the end: to_us = end of run */
} report_span;

typedef struct report_fault {
    int64_t from_us, to_us; /* to_us == from_us: an instant */
    int client;             /* the one client it acts on (0: more, or nodes) */
    const char *kind;       /* "pause" "crash" "clock" "partition" "network" "failover" "disconnect" */
    char label[256];        /* the fault line without "at = T " */
} report_fault;

typedef struct report_series {
    report_span *spans;
    size_t nspans, spans_cap;
    report_fault *faults; /* by start time, then scenario order */
    size_t nfaults, faults_cap;
    int64_t end_us;
} report_series;

/* Builds the spans of h and the fault windows of s's fault lines and the
 * nemesis's (gen, ngen) for a run that ended at end_us. O(events). */
void report_series_build(report_series *rs, const history *h, const scenario *s, const scn_step *gen,
                         size_t ngen, int64_t end_us);
void report_series_free(report_series *rs);
/* The threads a violation's sentence names ("c2.t1"), in order, at most
 * max: fills clients[] and threads[], returns how many. */
size_t report_violation_threads(const check_violation *v, int *clients, int *threads, size_t max);
/* The lock a violation is about (from the event that led there; 0). */
int report_violation_lock(const check_violation *v, const history *h);

/* -------------------------------------------------------------- plots */

/* A picture: NAME.gp (the gnuplot script) and NAME.dat (its data) in a
 * folder; gnuplot renders NAME.png (pngcairo) and NAME.svg from them, so a
 * user can restyle the script and render again (`gnuplot NAME.gp`). */
typedef struct report_plot {
    char name[96];   /* file stem, e.g. "holders-lock" */
    char title[256]; /* what it shows, for captions */
} report_plot;

typedef struct report_plots {
    report_plot *v;
    size_t n, cap;
} report_plots;

void report_plots_add(report_plots *p, const char *name, const char *title);
void report_plots_free(report_plots *p);

/* Opens DIR/NAME.gp and writes its head: what it shows, how to render,
 * and the loop that draws the body once per format (png, svg) at width x
 * height pixels. The caller writes the body (gnuplot commands, in NAME.dat
 * terms) and closes with report_gp_close. NULL when the file cannot be
 * created (why, cap bytes). */
FILE *report_gp_open(const char *dir, const char *name, const char *what, int width, int height, char *why,
                     size_t cap);
/* Ends the loop and closes DIR/NAME.gp; -1 with why on a write error. */
int report_gp_close(FILE *gp, const char *dir, const char *name, char *why, size_t cap);
/* Writes s as a gnuplot single-quoted string. */
void report_gp_str(FILE *gp, const char *s);
/* Opens DIR/NAME.dat for writing (NULL: why). */
FILE *report_dat_open(const char *dir, const char *name, const char *what, char *why, size_t cap);
/* Closes DIR/NAME.dat; -1 with why on a write error. */
int report_dat_close(FILE *dat, const char *dir, const char *name, char *why, size_t cap);

/* The pictures of one run into dir (scripts and data; rendering is
 * report_gnuplot_render's): per lock a holders timeline (a row per thread,
 * holds and shares as bars, waits thin, fault windows shaded and labelled,
 * violations in red at their true times), the acquire latency (points by
 * outcome, p50 / p95 / p99 / max per time bucket) and the throughput
 * (acquisitions per second); and samples.dat (every acquire: start,
 * latency, outcome) for latency CDFs. Adds each picture to out. Returns
 * 0, or -1 with why (cap bytes) when a file cannot be written. */
int report_plot_run(const char *dir, const run_result *r, const history *h, const report_series *rs,
                    report_plots *out, char *why, size_t cap);
/* The holders timelines alone (report_plot_run's first pictures), a
 * picture per lock any thread used, width pixels wide (1200 in a run's
 * report; narrower where two stand side by side). Returns 0, or -1 with
 * why. */
int report_plot_holders(const char *dir, const run_result *r, const history *h, const report_series *rs, int width,
                        report_plots *out, char *why, size_t cap);

/* Values of one line of a many-run picture: a latency CDF's samples, or
 * a contention curve's points (one per swept value). */
typedef struct report_curve {
    char label[128];
    double *v; /* CDF: latencies in ms (sorted by the plot) */
    size_t n, cap;
} report_curve;

void report_curve_add(report_curve *c, double v);
void report_curve_free(report_curve *c);

/* The latency CDF of each curve (P(latency <= x), x logarithmic) as
 * dir/NAME.{gp,dat}; added to out. Returns 0, or -1 with why. */
int report_plot_cdf(const char *dir, const char *name, const char *title, report_curve *curves, size_t n,
                    report_plots *out, char *why, size_t cap);

/* One point of a contention curve: the mean over seeds at one value. */
typedef struct report_point {
    double x;          /* the swept value as a number (or its index) */
    char xlabel[64];   /* as written */
    double thr, thr_lo, thr_hi; /* acquisitions per second: mean, min, max */
    double p50_ms, p99_ms, evals_per_acq, jain;
} report_point;

typedef struct report_line {
    char label[128];
    report_point *p;
    size_t n;
} report_line;

/* Contention curves against the swept key (throughput, p50 and p99
 * acquire latency, evals per acquisition, Jain's index), a line per
 * series, as dir/contention.{gp,dat}. numeric: the x values are numbers
 * (logarithmic when they span 8x or more), else categories. */
int report_plot_contention(const char *dir, const char *key, const report_line *lines, size_t n, int numeric,
                           report_plots *out, char *why, size_t cap);

/* Is gnuplot on the PATH? */
int report_gnuplot_found(void);
/* Runs gnuplot in dir on the scripts of p, one process for all of them,
 * stopped after timeout_s. Returns 0 when every picture was rendered, 1
 * when gnuplot is not installed (nothing rendered), -1 when it failed
 * (why: its first error line). */
int report_gnuplot_render(const char *dir, const report_plots *p, int timeout_s, char *why, size_t cap);
/* Writes DIR/render.sh, which renders with gnuplot, each in its own
 * folder, the scripts that globs match (shell patterns relative to DIR,
 * space-separated, such as "*.gp"). Returns 0, or -1 (errno). */
int report_render_sh(const char *dir, const char *globs);

/* --------------------------------------------------------------- rows */

/* One run as its JSON line tells it (report_json): what the writers that
 * see many runs need (the HTML index, JUnit, TAP, merge, sweep), so that
 * runs done in other processes or on other machines are read back. */
typedef struct report_row {
    char *scenario, *name, *protocol, *backend, *trace_hash; /* owned */
    char *failure;         /* the first unmet expectation ("" when met) */
    char *first_violation; /* "mutual-exclusion at 30.003s: ..." ("" when none) */
    uint64_t seed;
    int met;
    check_verdict verdict[SCN_INV_COUNT];
    scn_expect expect[SCN_INV_COUNT];
    size_t nviolations;
    uint64_t acquisitions, acquire_failures, errors, evals, events;
    double duration_ms, virtual_ms, wall_ms;
    double p50_ms, p95_ms, p99_ms, max_ms, jain;
} report_row;

/* Parses one JSON line of `locksim run --json` into *out. Returns 0, or -1
 * with why (cap bytes) saying what is missing or malformed; *out then
 * holds nothing to free. */
int report_row_parse(const char *line, size_t len, report_row *out, char *why, size_t cap);
void report_row_free(report_row *r);

/* --------------------------------------------------------------- html */

/* Writes s as HTML / XML text (& < > " ' escaped; control bytes XML
 * cannot hold become '?'). */
void report_xml_text(FILE *out, const char *s);
/* The shell command that replays a run: "locksim replay PATH --seed N"
 * (PATH quoted when it needs it), then extra (e.g. " --choices ..."), then
 * " --around violation" when violated. Returns buf. */
char *report_replay_cmd(const char *file, uint64_t seed, const char *extra, int violated, char *buf,
                        size_t cap);

/* What report_html_run shows of one run. */
typedef struct report_html_run_args {
    const run_result *r;
    const history *h;
    const report_series *rs;
    const report_plots *plots; /* in reldir */
    int rendered;              /* the pictures exist (else: how to render) */
    const char *reldir;        /* the run's folder, relative to the page */
    const char *anchor;        /* the run's id on the page ("run-3") */
    const char *replay;        /* report_replay_cmd of the run */
} report_html_run_args;

/* The fault windows of a run as a list ("Faults:"; nothing when none). */
void report_html_faults(FILE *out, const report_series *rs);
/* Writes the run's section to run_out (heading, what the scenario says it
 * shows, verdicts, figures, faults, pictures, replay command) and each of
 * its violations to viol_out, explained in words: the threads involved
 * and when they held or waited, the faults active at that moment, the
 * command to replay it, and the events around it. */
void report_html_run(FILE *run_out, FILE *viol_out, const report_html_run_args *a);
/* The head of a report page (inline style: no network) up to <main>. */
void report_html_begin(FILE *out, const char *title, const char *subtitle);
/* One chip per invariant judged or expected: its verdict, outlined when it
 * missed the scenario's expectation (expect NULL: none expected). */
void report_html_chips(FILE *out, const check_verdict *verdict, const scn_expect *expect);
/* The summary table of rows (anchors[i]: the row's section id, or NULL). */
void report_html_table(FILE *out, const report_row *rows, size_t n, char *const *anchors);
/* A figure for picture p of folder reldir (and, when it is not rendered,
 * how to render it). */
void report_html_figure(FILE *out, const char *reldir, const report_plot *p, int rendered);
void report_html_end(FILE *out);
/* A table of contention points: a row per (line, value). */
void report_html_points(FILE *out, const char *key, const report_line *lines, size_t n);

/* ----------------------------------------------------------------- ci */

/* TAP version 13: the header line, and the plan ("1..n"; TAP allows it
 * after the tests, so a sweep that stops early still plans right). */
void report_tap_begin(FILE *out);
void report_tap_plan(FILE *out, size_t n);
/* Test number num for row r: "ok N - PATH seed S (PROTOCOL)", and for a
 * failure a YAML block (message = the first unmet expectation, the first
 * violation, the replay command, the trace hash). extra: replay options. */
void report_tap_line(FILE *out, size_t num, const report_row *r, const char *extra);
/* JUnit XML: a testsuite per scenario file (consecutive rows of one
 * file), a testcase per (scenario, seed) named "seed N" with classname the
 * file's path in dots; a failure's message is the first unmet expectation
 * and its text the violations; system-out is the replay command. Returns
 * 0, or -1 on a write error. */
int report_junit(FILE *out, const report_row *rows, size_t n, const char *extra);

/* ------------------------------------------------------ output files */

/* Output that is never seen half-written: a report folder built under a
 * temporary name beside DIR and renamed into place when complete
 * (replacing an earlier locksim report, never anything else), and single
 * files written to FILE.tmp-PID then renamed (outdir.c). */

typedef struct report_outdir {
    char *final; /* DIR as given */
    char *tmp;   /* DIR.tmp-PID: everything is written here */
} report_outdir;

/* Checks that DIR may be written (absent, an empty folder, or an earlier
 * locksim report) and creates the temporary folder. Returns 0, or -1 with
 * why (cap bytes, one line); o then holds nothing. */
int report_outdir_open(report_outdir *o, const char *dir, char *why, size_t cap);
/* report_outdir_open, but returns 2 after printing why (prefixed by who). */
int report_outdir_begin(report_outdir *o, const char *dir, const char *who);
/* Marks the temporary folder as a locksim report and moves it to DIR,
 * removing the earlier report. Returns 0, or -1 with why (the temporary
 * folder is then removed). Frees o either way. */
int report_outdir_close(report_outdir *o, char *why, size_t cap);
/* report_outdir_close, but returns 2 after printing why (prefixed by who). */
int report_outdir_commit(report_outdir *o, const char *who);
/* Removes the temporary folder and frees o. Safe on a zeroed o. */
void report_outdir_abort(report_outdir *o);
/* mkdir -p path (mode 0755). Returns 0 or -1 (errno). */
int report_mkdirs(const char *path);

typedef struct report_outfile {
    char *final, *tmp;
    FILE *f;
} report_outfile;

/* Opens FILE.tmp-PID for writing (making FILE's folder when missing).
 * Returns 0, or 2 after printing why. */
int report_outfile_begin(report_outfile *o, const char *path, const char *who);
/* Closes and renames it to FILE. Returns 0, or 2 after printing why (the
 * temporary file is removed). Frees o either way. */
int report_outfile_commit(report_outfile *o, const char *who);
/* Closes and removes the temporary file; frees o. Safe on a zeroed o. */
void report_outfile_abort(report_outfile *o);

/* -------------------------------------------------- the report folder */

/* `locksim run --report DIR` (run_folder.c): each run's folder (its
 * pictures, its section of the page and its violations), written where
 * the run ran (a worker, with --jobs), and the page that puts them
 * together with the summary of every run. */

#define REPORT_MAX_RUNS 200 /* runs with a folder of pictures */

typedef struct report_folder {
    report_outdir dir;
    const char *extra; /* replay options of this sweep (" --horizon 5s") */
    int gnuplot;       /* gnuplot is installed */
} report_folder;

/* Writes run k's folder under the report (pictures rendered when gnuplot
 * is installed). Returns 0, or -1 with a message in *err (malloc'ed). */
int report_folder_run(const report_folder *rep, size_t k, const run_result *r, const history *h, char **err);
/* The run folder's name for item k of scenario path, seed. */
void report_folder_run_name(size_t k, const char *path, uint64_t seed, char *buf, size_t cap);
/* Writes index.html (the summary of rows, the latency CDF per protocol
 * when several scenarios ran, every violation explained, every run's
 * section) and render.sh, then moves the report into place. Prints where
 * it is. Returns 0 or 2 (printed). Frees rep's folder either way. */
int report_folder_finish(report_folder *rep, const report_row *rows, size_t n, const char *cmdline, int interrupted);

/* ------------------------------------------------------ the hunt page */

/* `locksim hunt --report DIR` (hunt_page.c): a page of the signatures a
 * hunt found, those within the lock's contract first, each with its shrunk
 * scenario run once and drawn as a run's holders timeline, and with
 * --against the reference protocol's run of the same file beside it (the
 * witness pair: one violates, one holds). */

typedef struct report_hunt_sig {
    const char *signature; /* "liveness after partition" */
    int beyond;            /* 0: within the lock's contract; 1: beyond it */
    const char *reason;    /* beyond: why (one line), else NULL */
    uint64_t seeds, first_seed;
    const char *shrunk;    /* the shrunk scenario file (NULL: not shrunk) */
    const char *reference; /* --against: the same scenario on the reference
                              protocol (a .scn file; NULL: none) */
} report_hunt_sig;

typedef struct report_hunt {
    const char *target;  /* "redisson.rwlock@3.10" */
    const char *against; /* "redisson.rwlock@3.11.1", or NULL */
    uint64_t seed_a, seed_b, runs, failed;
    const report_hunt_sig *sigs; /* borrowed */
    size_t nsigs;
} report_hunt;

/* Writes DIR/index.html and its pictures (DIR made if missing; an earlier
 * locksim report there is replaced, any other folder refused), with a copy
 * of each scenario file it shows. Each shrunk and reference file is run
 * once (its own seed, else the signature's first seed) to draw its
 * timeline; rendered by gnuplot when installed (else DIR/render.sh says
 * how). Returns 0, or -1 with a one-line reason in err (cap bytes): a
 * folder that cannot be written, a file that does not load or run, a
 * picture gnuplot fails on. Never a half-written page: all is written
 * under DIR.tmp-PID and renamed into place at the end. Cost: one run per
 * file. */
int report_hunt_write(const char *dir, const report_hunt *h, char *err, size_t cap);

#endif /* LOCKSIM_REPORT_H */
