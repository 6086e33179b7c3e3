/* run_report.h — `locksim run --report DIR`: each run's folder (its
 * pictures, its section of the page and its violations), written where
 * the run ran (a worker, with --jobs), and the page that puts them
 * together with the summary of every run. Private to sim/cli. */
#ifndef LOCKSIM_CLI_RUN_REPORT_H
#define LOCKSIM_CLI_RUN_REPORT_H

#include <stddef.h>

#include "reports/outdir.h"
#include "reports/report.h"

#define CLI_REPORT_MAX_RUNS 200 /* runs with a folder of pictures */

typedef struct cli_report {
    cli_outdir dir;
    const char *extra; /* replay options of this sweep (" --horizon 5s") */
    int gnuplot;       /* gnuplot is installed */
} cli_report;

/* Writes run k's folder under the report (pictures rendered when gnuplot
 * is installed). Returns 0, or -1 with a message in *err (malloc'ed). */
int cli_report_run(const cli_report *rep, size_t k, const run_result *r, const history *h, char **err);
/* The run folder's name for item k of scenario path, seed. */
void cli_report_run_name(size_t k, const char *path, uint64_t seed, char *buf, size_t cap);
/* Writes index.html (the summary of rows, the latency CDF per protocol
 * when several scenarios ran, every violation explained, every run's
 * section) and render.sh, then moves the report into place. Prints where
 * it is. Returns 0 or 2 (printed). Frees rep's folder either way. */
int cli_report_finish(cli_report *rep, const report_row *rows, size_t n, const char *cmdline, int interrupted);

#endif /* LOCKSIM_CLI_RUN_REPORT_H */
